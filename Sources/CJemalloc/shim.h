// jemalloc takes over malloc for the whole process (libxml2, libcurl and
// the Swift runtime included) by being linked into the executable; Swift
// only reads its version through mallctl.
#include <stddef.h>
int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);
