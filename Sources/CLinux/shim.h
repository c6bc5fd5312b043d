// Linux calls that Swift's Glibc module leaves out (they need _GNU_SOURCE).
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>

// sync_file_range(2): start writing a byte range of a file to disk.
static inline int clinux_start_writeback(int descriptor, long long offset, long long count) {
    return sync_file_range(descriptor, offset, count, SYNC_FILE_RANGE_WRITE);
}
