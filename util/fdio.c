/*
 * util/fdio.c: writing whole buffers to file descriptors (util/fdio.h).
 */
#include "util/fdio.h"

#include <errno.h>
#include <unistd.h>

int srt_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}
