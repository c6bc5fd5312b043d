#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H

// Debian's libxml2 is built with ICU; its headers then pull in ICU types that
// clash with Foundation's copy ("'UErrorCode' has different definitions").
// Nothing here needs ICU, so switch it off before the other headers.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlmemory.h>
#include <libxml/xmlreader.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

/// `xmlFree` is a global function pointer; Swift 6 rejects it as shared
/// mutable state, so it is called through this function.
static inline void CLibXML2_free(void *pointer) {
    xmlFree(pointer);
}

/// The external entity loader feedmerge installs: it refuses every load, so
/// no DTD, external entity or XInclude can reach the file system or network.
static xmlParserInputPtr CLibXML2_refuseExternalEntity(const char *url, const char *id,
                                                       xmlParserCtxtPtr context) {
    (void)url;
    (void)id;
    (void)context;
    return NULL;
}

/// Silences libxml2's default error printing to stderr (errors are read from
/// the parser context instead).
static void CLibXML2_ignoreError(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

static void CLibXML2_ignoreStructuredError(void *context, xmlErrorPtr error) {
    (void)context;
    (void)error;
}

/// One-time process setup: parser globals, the refusing entity loader and
/// silent error handlers.
static inline void CLibXML2_initialize(void) {
    xmlInitParser();
    xmlSetExternalEntityLoader(CLibXML2_refuseExternalEntity);
    xmlSetGenericErrorFunc(NULL, CLibXML2_ignoreError);
    xmlSetStructuredErrorFunc(NULL, CLibXML2_ignoreStructuredError);
}

#endif
