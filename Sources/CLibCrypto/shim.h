#ifndef CLIBCRYPTO_SHIM_H
#define CLIBCRYPTO_SHIM_H

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>

/// BIO_get_mem_data is a macro over the variadic-free but untyped BIO_ctrl:
/// the bytes a memory BIO holds, and how many.
static inline long CLibCrypto_memoryData(BIO *bio, char **bytes) {
    return BIO_get_mem_data(bio, bytes);
}

/// The oldest error OpenSSL queued on this thread, as its own text; the queue is emptied so that
/// a later failure does not read an earlier one's words.
static inline void CLibCrypto_takeError(char *text, size_t capacity) {
    unsigned long code = ERR_get_error();
    if (code == 0) {
        if (capacity > 0) text[0] = 0;
    } else {
        ERR_error_string_n(code, text, capacity);
    }
    ERR_clear_error();
}

/// OpenSSL keeps state per thread (its error queue, the thread's exit handlers) and frees it
/// when the thread ends; a thread that lives until the process exits (the transfer thread,
/// Swift's pool) would keep it past OpenSSL's own clean-up at exit, which LeakSanitizer then
/// reports (it did, in about half of the runs of SignedRequestTests). This frees the calling
/// thread's state at once; OpenSSL makes it again if the thread uses it again.
static inline void CLibCrypto_releaseThreadState(void) {
    OPENSSL_thread_stop();
}

#endif
