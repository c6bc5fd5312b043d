#ifndef CGUMBO_SHIM_H
#define CGUMBO_SHIM_H

#include <stddef.h>
#include <gumbo.h>

/// Parses `length` bytes of UTF-8 as a browser parses `div.innerHTML = value`:
/// the HTML fragment parsing algorithm with a `div` in the HTML namespace as
/// the context element. The fragment's nodes are the children of
/// `output->root` (an `html` element). Parse errors are not recorded
/// (`max_errors = 0`): nothing reads them, and recording costs time.
static inline GumboOutput *CGumbo_parseFragment(const char *bytes, size_t length) {
    GumboOptions options = kGumboDefaultOptions;
    options.fragment_context = GUMBO_TAG_DIV;
    options.fragment_namespace = GUMBO_NAMESPACE_HTML;
    options.max_errors = 0;
    return gumbo_parse_with_options(&options, bytes, length);
}

/// Frees what `CGumbo_parseFragment` returned (the default allocator's options).
static inline void CGumbo_destroy(GumboOutput *output) {
    gumbo_destroy_output(&kGumboDefaultOptions, output);
}

#endif
