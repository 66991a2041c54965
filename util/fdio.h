/*
 * util/fdio.h: writing to file descriptors.
 *
 * The one loop that writes a whole buffer to a file descriptor, for the
 * places that write with write(2) rather than stdio (run-directory files,
 * a process log's header, migrate's atomic replace).
 */
#ifndef SRT_UTIL_FDIO_H
#define SRT_UTIL_FDIO_H

#include <stddef.h>

/*
 * Write all `len` bytes of `data` to `fd`, retrying after EINTR and short
 * writes.  Returns 0, or -1 with errno set by the write that failed.
 */
int srt_write_all(int fd, const void *data, size_t len);

#endif
