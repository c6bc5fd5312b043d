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
#include <libxml/parserInternals.h>
#include <libxml/uri.h>
#include <libxslt/documents.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

/// The collected messages made one line in place: each line trimmed, blank
/// ones left out, the rest joined by "; ", at most 400 bytes.
static inline const char *CLibXSLT_summary(CLibXSLT_Messages *messages) {
    char line[4096 + 2];
    int out = 0;
    int start = 0;
    for (int index = 0; index <= messages->length; index++) {
        if (index < messages->length && messages->text[index] != '\n' && messages->text[index] != '\r') continue;
        int first = start, last = index;
        while (first < last && (messages->text[first] == ' ' || messages->text[first] == '\t')) first++;
        while (last > first && (messages->text[last - 1] == ' ' || messages->text[last - 1] == '\t')) last--;
        if (last > first && out + (last - first) + 2 < (int)sizeof(line)) {
            if (out > 0) {
                line[out++] = ';';
                line[out++] = ' ';
            }
            memcpy(line + out, messages->text + first, (size_t)(last - first));
            out += last - first;
        }
        start = index + 1;
    }
    if (out > 400) out = 400;
    memcpy(messages->text, line, (size_t)out);
    messages->text[out] = 0;
    messages->length = out;
    return messages->text;
}

/// Sends libxslt's messages to `messages`: libxslt's generic error handler
/// is one global for the process (the caller holds a lock while it is
/// set), libxml2's is per thread.
static inline void CLibXSLT_collectMessages(CLibXSLT_Messages *messages) {
    xsltSetGenericErrorFunc(messages, CLibXSLT_collect);
    xmlSetGenericErrorFunc(messages, CLibXSLT_collect);
    // A structured handler (CLibXML2_initialize's, which ignores) would take libxml2's messages first.
    xmlSetStructuredErrorFunc(NULL, NULL);
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

/// Says why a load was refused, in the messages being collected.
static void CLibXSLT_refuse(const xmlChar *uri, const char *why) {
    xsltGenericError(xsltGenericErrorContext, "%s is not read: %s\n", uri != NULL ? (const char *)uri : "", why);
}

/// The local path a `file:` URL or an absolute path names (percent-decoded),
/// or 0: any other scheme, or a host other than the local one.
static int CLibXSLT_localPath(const xmlChar *uri, char *path, size_t size) {
    xmlURIPtr parsed = xmlParseURI((const char *)uri);
    if (parsed == NULL) return 0;
    int local = (parsed->scheme == NULL || strcmp(parsed->scheme, "file") == 0)
        && (parsed->server == NULL || parsed->server[0] == 0 || strcmp(parsed->server, "localhost") == 0)
        && parsed->path != NULL && parsed->path[0] == '/' && strlen(parsed->path) < size;
    if (local) strcpy(path, parsed->path);
    xmlFreeURI(parsed);
    return local;
}

/// The real path of the folder that holds the file `uri` names, or 0.
static int CLibXSLT_folderOf(const xmlChar *uri, char *folder) {
    char path[PATH_MAX];
    if (!CLibXSLT_localPath(uri, path, sizeof(path))) return 0;
    char *slash = strrchr(path, '/');
    if (slash == NULL) return 0;
    *(slash == path ? slash + 1 : slash) = 0;
    return realpath(path, folder) != NULL;
}

/// Whether the real path `real` is inside the real folder `folder`.
static int CLibXSLT_inside(const char *real, const char *folder) {
    size_t length = strlen(folder);
    if (length == 0 || strncmp(real, folder, length) != 0) return 0;
    return folder[length - 1] == '/' || real[length] == '/';
}

/// The largest stylesheet file an include, an import or `document()` reads.
#define CLibXSLT_maximumFile (16 * 1024 * 1024)

/// The document `uri` names, read only when it is a regular file whose real
/// path (links followed) is inside `folder`; parsed as a stylesheet is (no
/// network, no external entity: the process's entity loader refuses them),
/// with the dictionary libxslt shares between a stylesheet's documents.
static xmlDocPtr CLibXSLT_readConfined(const xmlChar *uri, xmlDictPtr dict, const char *folder) {
    char path[PATH_MAX], real[PATH_MAX];
    if (!CLibXSLT_localPath(uri, path, sizeof(path))) {
        CLibXSLT_refuse(uri, "a stylesheet reads only files in its own folder, never the network");
        return NULL;
    }
    if (realpath(path, real) == NULL || !CLibXSLT_inside(real, folder)) {
        CLibXSLT_refuse(uri, "a stylesheet reads only files in its own folder");
        return NULL;
    }
    int descriptor = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (descriptor < 0) {
        CLibXSLT_refuse(uri, "it cannot be opened");
        return NULL;
    }
    struct stat status;
    if (fstat(descriptor, &status) != 0 || !S_ISREG(status.st_mode) || status.st_size > CLibXSLT_maximumFile) {
        close(descriptor);
        CLibXSLT_refuse(uri, "not a regular file of at most 16 MiB");
        return NULL;
    }
    size_t size = (size_t)status.st_size;
    char *bytes = malloc(size + 1);
    size_t done = 0;
    while (bytes != NULL && done < size) {
        ssize_t got = read(descriptor, bytes + done, size - done);
        if (got <= 0) break;
        done += (size_t)got;
    }
    close(descriptor);
    if (bytes == NULL || done != size) {
        free(bytes);
        CLibXSLT_refuse(uri, "it cannot be read");
        return NULL;
    }
    xmlParserCtxtPtr parser = xmlCreateMemoryParserCtxt(bytes, (int)size);
    if (parser == NULL) {
        free(bytes);
        return NULL;
    }
    if (dict != NULL) {
        if (parser->dict != NULL) xmlDictFree(parser->dict);
        parser->dict = dict;
        xmlDictReference(dict);
    }
    xmlCtxtUseOptions(parser, XML_PARSE_NONET | XML_PARSE_NOENT | XML_PARSE_NOCDATA);
    xmlParseDocument(parser);
    xmlDocPtr document = parser->myDoc;
    parser->myDoc = NULL;
    if (!parser->wellFormed && document != NULL) {
        xmlFreeDoc(document);
        document = NULL;
    }
    xmlFreeParserCtxt(parser);
    free(bytes);
    if (document != NULL && document->URL == NULL) document->URL = xmlStrdup(uri);
    return document;
}

/// libxslt's document loader, for every load: a stylesheet's `xsl:include`
/// and `xsl:import` while it compiles, `document()` while it runs (which the
/// security preferences allow only for the stylesheet's own file). A file
/// is read only from inside the folder of the principal stylesheet's own
/// file (the theme's or filter's folder); nothing from the network, nothing
/// for a stylesheet that has no file (the built-in theme).
static xmlDocPtr CLibXSLT_confinedLoader(const xmlChar *uri, xmlDictPtr dict, int options, void *context,
                                         xsltLoadType type) {
    (void)options;
    xsltStylesheetPtr style = NULL;
    if (type == XSLT_LOAD_DOCUMENT) {
        xsltTransformContextPtr transform = (xsltTransformContextPtr)context;
        style = transform != NULL ? transform->style : NULL;
    } else {
        style = (xsltStylesheetPtr)context;  // the stylesheet that includes or imports
    }
    while (style != NULL && style->parent != NULL) style = style->parent;
    char folder[PATH_MAX];
    if (style == NULL || style->doc == NULL || style->doc->URL == NULL
        || !CLibXSLT_folderOf(style->doc->URL, folder)) {
        CLibXSLT_refuse(uri, "this stylesheet has no folder of its own to read from");
        return NULL;
    }
    return CLibXSLT_readConfined(uri, dict, folder);
}

/// A stylesheet compiled from its text, or NULL: not XML, or not a usable
/// stylesheet (the reasons go to the messages being collected). Its own
/// internal entities are substituted; every external one, and any external
/// DTD, is refused by libxml2's entity loader (installed before: the
/// caller's setup), and its includes and imports are read only from inside
/// the folder of `url`, its file (links followed to their real paths),
/// never from the network (`CLibXSLT_confinedLoader`). libxslt's and
/// libxml2's messages meanwhile go to `messages` (libxslt's handler is one
/// for the process: the caller holds a lock around the compile).
static inline xsltStylesheetPtr CLibXSLT_compile(const char *bytes, int length, const char *url,
                                                 CLibXSLT_Messages *messages) {
    CLibXSLT_collectMessages(messages);
    xsltSetLoaderFunc(CLibXSLT_confinedLoader);
    xsltStylesheetPtr stylesheet = NULL;
    xmlDocPtr document = xmlReadMemory(bytes, length, url, NULL, XML_PARSE_NONET | XML_PARSE_NOENT);
    if (document != NULL) {
        stylesheet = xsltParseStylesheetDoc(document);  // owns the document once made
        if (stylesheet == NULL) {
            xmlFreeDoc(document);
        } else if (stylesheet->errors > 0) {
            xsltFreeStylesheet(stylesheet);
            stylesheet = NULL;
        }
    }
    CLibXSLT_collectMessages(NULL);
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

/// A transformation's deadline, shared with the thread that watches it.
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int finished;
    int expired;
    struct timespec end;
    xsltTransformContextPtr context;
} CLibXSLT_Deadline;

static void *CLibXSLT_watch(void *argument) {
    CLibXSLT_Deadline *deadline = (CLibXSLT_Deadline *)argument;
    pthread_mutex_lock(&deadline->lock);
    while (!deadline->finished) {
        if (pthread_cond_timedwait(&deadline->wake, &deadline->lock, &deadline->end) == ETIMEDOUT) break;
    }
    if (!deadline->finished) {
        deadline->expired = 1;
        CLibXSLT_stopTransform(deadline->context);
    }
    pthread_mutex_unlock(&deadline->lock);
    return NULL;
}

/// Applies `style` to `document` through `context` (its parameters already
/// set), stopped by a thread of its own when `seconds` have passed: a theme
/// or filter is the operator's but often downloaded, and one whose work
/// doubles at each level would hold a cron run, and the state's lock, for
/// ever. `*expired` says whether the time ran out (the result, if any, is
/// then incomplete). No watching thread, no transformation: NULL.
static inline xmlDocPtr CLibXSLT_applyWithin(xsltStylesheetPtr style, xmlDocPtr document,
                                             xsltTransformContextPtr context, double seconds, int *expired) {
    CLibXSLT_Deadline deadline;
    memset(&deadline, 0, sizeof(deadline));
    deadline.context = context;
    pthread_mutex_init(&deadline.lock, NULL);
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&deadline.wake, &attributes);
    pthread_condattr_destroy(&attributes);
    clock_gettime(CLOCK_MONOTONIC, &deadline.end);
    double whole = (double)(long)seconds;
    deadline.end.tv_sec += (time_t)whole;
    deadline.end.tv_nsec += (long)((seconds - whole) * 1e9);
    if (deadline.end.tv_nsec >= 1000000000L) {
        deadline.end.tv_sec += 1;
        deadline.end.tv_nsec -= 1000000000L;
    }
    xmlDocPtr result = NULL;
    pthread_t watcher;
    if (pthread_create(&watcher, NULL, CLibXSLT_watch, &deadline) == 0) {
        result = xsltApplyStylesheetUser(style, document, NULL, NULL, NULL, context);
        pthread_mutex_lock(&deadline.lock);
        deadline.finished = 1;
        pthread_cond_signal(&deadline.wake);
        pthread_mutex_unlock(&deadline.lock);
        pthread_join(watcher, NULL);
    }
    *expired = deadline.expired;
    pthread_cond_destroy(&deadline.wake);
    pthread_mutex_destroy(&deadline.lock);
    return result;
}

/// `xmlFree` is a global function pointer (see CLibXML2_free).
static inline void CLibXSLT_free(void *pointer) {
    xmlFree(pointer);
}

#endif
