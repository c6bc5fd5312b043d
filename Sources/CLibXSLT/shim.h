#ifndef CLIBXSLT_SHIM_H
#define CLIBXSLT_SHIM_H

// As in CLibXML2: Debian's libxml2 headers would pull in ICU types that
// clash with Foundation's; nothing here needs ICU.
#include <stdarg.h>
#include <stdio.h>
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxslt/xslt.h>
#include <libxslt/xsltInternals.h>
#include <libxslt/transform.h>
#include <libxslt/templates.h>
#include <libxslt/xsltutils.h>
#include <libxslt/security.h>
#include <libxslt/variables.h>
#include <libexslt/exslt.h>

/// Collects libxslt's messages (a theme's compile errors, `xsl:message`)
/// into a buffer the caller reads, instead of printing them to stderr.
#include <string.h>
typedef struct {
    char text[4096];
    int length;
} CLibXSLT_Messages;

static void CLibXSLT_collect(void *context, const char *format, ...) {
    CLibXSLT_Messages *messages = (CLibXSLT_Messages *)context;
    if (messages == NULL) return;
    char piece[1024];
    va_list arguments;
    va_start(arguments, format);
    int written = vsnprintf(piece, sizeof(piece), format, arguments);
    va_end(arguments);
    if (written <= 0) return;
    int room = (int)sizeof(messages->text) - 1 - messages->length;
    if (room <= 0) return;
    int length = (int)strlen(piece);
    if (length > room) length = room;
    memcpy(messages->text + messages->length, piece, (size_t)length);
    messages->length += length;
    messages->text[messages->length] = 0;
}

/// Sends libxslt's messages to `messages`: libxslt's generic error handler
/// is one global for the process (the caller holds a lock while it is
/// set), libxml2's is per thread.
static inline void CLibXSLT_collectMessages(CLibXSLT_Messages *messages) {
    xsltSetGenericErrorFunc(messages, CLibXSLT_collect);
    xmlSetGenericErrorFunc(messages, CLibXSLT_collect);
}

/// libxml2's messages on this thread go to `messages` (reading the planet document back).
static inline void CLibXSLT_collectThreadMessages(CLibXSLT_Messages *messages) {
    xmlSetGenericErrorFunc(messages, CLibXSLT_collect);
}

/// libxml2's messages on this thread go nowhere (its default prints them).
static inline void CLibXSLT_silenceThread(void) {
    xmlSetGenericErrorFunc(NULL, CLibXSLT_collect);
}

/// Sends one transformation's messages (errors, `xsl:message`) to `messages`.
static inline void CLibXSLT_collectTransformMessages(xsltTransformContextPtr context,
                                                     CLibXSLT_Messages *messages) {
    xsltSetTransformErrorFunc(context, messages, CLibXSLT_collect);
    xmlSetGenericErrorFunc(messages, CLibXSLT_collect);
}

/// A stylesheet compiled from its text (read without network access, its
/// own entities substituted), or NULL: not XML, or not a usable stylesheet
/// (the reasons go to the messages being collected).
static inline xsltStylesheetPtr CLibXSLT_compile(const char *bytes, int length, const char *url) {
    xmlDocPtr document = xmlReadMemory(bytes, length, url, NULL, XML_PARSE_NONET | XML_PARSE_NOENT);
    if (document == NULL) return NULL;
    xsltStylesheetPtr stylesheet = xsltParseStylesheetDoc(document);  // owns the document once made
    if (stylesheet == NULL) {
        xmlFreeDoc(document);
        return NULL;
    }
    if (stylesheet->errors > 0) {
        xsltFreeStylesheet(stylesheet);
        return NULL;
    }
    return stylesheet;
}

/// A stylesheet may read itself again (`document('')`, XSLT 1.0's idiom
/// for data kept in the stylesheet, as Venus's categories.xslt keeps its
/// keywords): that file was read when it was compiled. Nothing else.
static int CLibXSLT_readOnlyItself(xsltSecurityPrefsPtr sec, xsltTransformContextPtr ctxt, const char *value) {
    (void)sec;
    if (ctxt == NULL || ctxt->style == NULL || ctxt->style->doc == NULL || ctxt->style->doc->URL == NULL
        || value == NULL) {
        return 0;
    }
    const char *own = (const char *)ctxt->style->doc->URL;
    if (strcmp(own, value) == 0) return 1;
    // The same file, named as a path where the stylesheet was named by a file: URL.
    if (strncmp(own, "file://", 7) == 0 && strcmp(own + 7, value) == 0) return 1;
    return 0;
}

/// While a theme runs it reads no file but itself (document()), writes no
/// file, creates no folder and touches no network.
static inline xsltSecurityPrefsPtr CLibXSLT_securityPrefs(void) {
    xsltSecurityPrefsPtr prefs = xsltNewSecurityPrefs();
    xsltSetSecurityPrefs(prefs, XSLT_SECPREF_READ_FILE, CLibXSLT_readOnlyItself);
    xsltSetSecurityPrefs(prefs, XSLT_SECPREF_WRITE_FILE, xsltSecurityForbid);
    xsltSetSecurityPrefs(prefs, XSLT_SECPREF_CREATE_DIRECTORY, xsltSecurityForbid);
    xsltSetSecurityPrefs(prefs, XSLT_SECPREF_READ_NETWORK, xsltSecurityForbid);
    xsltSetSecurityPrefs(prefs, XSLT_SECPREF_WRITE_NETWORK, xsltSecurityForbid);
    return prefs;
}

/// `xsl:comment` as XSLT 1.0 (section 7.4) allows a processor to recover
/// from text with `--` in it or a trailing `-`: a space after each such `-`.
/// libxslt signals an error instead, which fails the whole page, so any
/// feed whose title holds `--` would cost a theme that comments its titles
/// the page.
static void CLibXSLT_comment(xsltTransformContextPtr ctxt, xmlNodePtr node, xmlNodePtr inst,
                             xsltElemPreCompPtr comp) {
    (void)comp;
    xmlChar *value = xsltEvalTemplateString(ctxt, node, inst);
    size_t length = value != NULL ? strlen((const char *)value) : 0;
    xmlChar *text = (xmlChar *)xmlMalloc(2 * length + 1);
    if (text == NULL) {
        if (value != NULL) xmlFree(value);
        return;
    }
    size_t out = 0;
    for (size_t index = 0; index < length; index++) {
        text[out++] = value[index];
        if (value[index] == '-' && (index + 1 == length || value[index + 1] == '-')) text[out++] = ' ';
    }
    text[out] = 0;
    xmlNodePtr comment = xmlNewComment(text);
    if (comment != NULL) {
        if (ctxt->insert == NULL || xmlAddChild(ctxt->insert, comment) == NULL) xmlFreeNode(comment);
    }
    xmlFree(text);
    if (value != NULL) xmlFree(value);
}

/// Every `xsl:comment` of a compiled stylesheet and of those it imports
/// (included ones share their includer's list) recovers as above.
static inline void CLibXSLT_recoverComments(xsltStylesheetPtr style) {
    for (; style != NULL; style = style->next) {
        for (xsltElemPreCompPtr comp = style->preComps; comp != NULL; comp = comp->next) {
            if (comp->func == xsltComment) comp->func = CLibXSLT_comment;
        }
        CLibXSLT_recoverComments(style->imports);
    }
}

/// Stops a transformation from another thread when its time is up: libxslt
/// checks its state between instructions (xsltStopEngine), and libxml2 an
/// XPath context's operation limit inside an expression, so an expression
/// that would run for hours fails at its next step. The two writes race with
/// the transforming thread's reads by design (a word each, read in a loop);
/// not inlined, so that a ThreadSanitizer suppression can name it.
__attribute__((noinline)) static void CLibXSLT_stopTransform(void *context) {
    xsltTransformContextPtr ctxt = (xsltTransformContextPtr)context;
    __atomic_store_n(&ctxt->state, XSLT_STATE_STOPPED, __ATOMIC_RELAXED);
    if (ctxt->xpathCtxt != NULL) __atomic_store_n(&ctxt->xpathCtxt->opLimit, 1UL, __ATOMIC_RELAXED);
}

/// `xmlFree` is a global function pointer (see CLibXML2_free).
static inline void CLibXSLT_free(void *pointer) {
    xmlFree(pointer);
}

#endif
