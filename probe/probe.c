/*
 * probe/probe.c: TCP and HTTP probes with a hard deadline.
 *
 * This file owns the socket work behind a probe: name resolution, a
 * non-blocking connect() finished with poll(), writing the request and
 * reading a status line, all against one monotonic deadline.  It keeps no
 * state between calls.
 */
#include "probe/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"

static void result_init(struct srt_probe_result *res)
{
	memset(res, 0, sizeof(*res));
}

static int fail(struct srt_probe_result *res, int64_t start, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct srt_probe_result *res, int64_t start, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(res->detail, sizeof(res->detail), fmt, ap);
	va_end(ap);
	res->ok = false;
	res->elapsed_ms = srt_monotonic_ms() - start;
	return -1;
}

/* Milliseconds left before deadline (>= 0). */
static int left_ms(int64_t deadline)
{
	int64_t left = deadline - srt_monotonic_ms();

	return left > 0 ? (int)(left > 1000000000 ? 1000000000 : left) : 0;
}

/* poll() one fd for `events` until the deadline; 1 ready, 0 timeout, -1 error. */
static int wait_fd(int fd, short events, int64_t deadline, short *revents)
{
	for (;;) {
		struct pollfd p = { fd, events, 0 };
		int n = poll(&p, 1, left_ms(deadline));

		if (n > 0) {
			*revents = p.revents;
			return 1;
		}
		if (n == 0)
			return 0;
		if (errno != EINTR)
			return -1;
		if (!left_ms(deadline))
			return 0;
	}
}

/*
 * Open a connected socket to host:port before the deadline.  Returns the
 * fd, or -1 with res filled.  Every address the name resolves to is tried
 * in turn while time remains.
 */
static int open_conn(const char *host, int port, int64_t start, int64_t deadline, int timeout_ms,
		     struct srt_probe_result *res)
{
	struct addrinfo hints, *ai = NULL, *a;
	char service[16];
	int rc, fd = -1, last_err = 0;
	bool timed_out = false;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(service, sizeof(service), "%d", port);
	if (port <= 0 || port > 65535) {
		fail(res, start, "port %d is out of range", port);
		return -1;
	}
	rc = getaddrinfo(host, service, &hints, &ai);
	if (rc) {
		fail(res, start, "cannot resolve '%s': %s", host, gai_strerror(rc));
		return -1;
	}
	for (a = ai; a; a = a->ai_next) {
		short rev = 0;
		int err = 0, w;
		socklen_t len = sizeof(err);

		fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    a->ai_protocol);
		if (fd < 0) {
			last_err = errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		if (errno != EINPROGRESS) {
			last_err = errno;
			goto next;
		}
		w = wait_fd(fd, POLLOUT, deadline, &rev);
		if (w == 0) {
			timed_out = true;
			goto next;
		}
		if (w < 0) {
			last_err = errno;
			goto next;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
			err = errno;
		if (!err)
			break;
		last_err = err;
next:
		close(fd);
		fd = -1;
		if (timed_out)
			break;
	}
	freeaddrinfo(ai);
	if (fd >= 0)
		return fd;
	if (timed_out)
		fail(res, start, "timed out after %d ms", timeout_ms);
	else if (last_err == ECONNREFUSED)
		fail(res, start, "connection refused");
	else
		fail(res, start, "%s", strerror(last_err ? last_err : EHOSTUNREACH));
	return -1;
}

int srt_probe_tcp(const char *host, int port, int timeout_ms, struct srt_probe_result *res)
{
	int64_t start = srt_monotonic_ms();
	int fd;

	result_init(res);
	if (timeout_ms < 1)
		timeout_ms = 1;
	fd = open_conn(host, port, start, start + timeout_ms, timeout_ms, res);
	if (fd < 0)
		return -1;
	close(fd);
	res->ok = true;
	res->elapsed_ms = srt_monotonic_ms() - start;
	snprintf(res->detail, sizeof(res->detail), "connected");
	return 0;
}

/* "HTTP/1.1 200 OK" -> 200; 0 when the line is not a status line. */
static int status_code(const char *line)
{
	const char *p;
	int code = 0;

	if (strncmp(line, "HTTP/", 5))
		return 0;
	p = strchr(line, ' ');
	if (!p)
		return 0;
	for (p++; *p >= '0' && *p <= '9' && code < 1000; p++)
		code = code * 10 + (*p - '0');
	return code >= 100 && code < 1000 ? code : 0;
}

int srt_probe_http(const char *host, int port, const char *path, int want_status, int timeout_ms,
		   struct srt_probe_result *res)
{
	int64_t start = srt_monotonic_ms(), deadline;
	char req[1024], line[256];
	size_t off = 0, len = 0;
	int fd, n, rc = -1;
	bool v6 = strchr(host, ':') != NULL;

	result_init(res);
	if (timeout_ms < 1)
		timeout_ms = 1;
	deadline = start + timeout_ms;
	if (!path || !*path)
		path = "/health";
	n = snprintf(req, sizeof(req),
		     "GET %s HTTP/1.1\r\nHost: %s%s%s:%d\r\nUser-Agent: srtctl-probe\r\n"
		     "Accept: */*\r\nConnection: close\r\n\r\n",
		     path, v6 ? "[" : "", host, v6 ? "]" : "", port);
	if (n < 0 || (size_t)n >= sizeof(req))
		return fail(res, start, "request for '%s' is too long", path);
	for (const char *c = path; *c; c++)
		if ((unsigned char)*c <= 0x20 || *c == 0x7f)
			return fail(res, start, "path '%s' has a space or control character", path);
	len = (size_t)n;
	fd = open_conn(host, port, start, deadline, timeout_ms, res);
	if (fd < 0)
		return -1;
	while (off < len) {
		short rev = 0;
		ssize_t w = send(fd, req + off, len - off, MSG_NOSIGNAL);

		if (w > 0) {
			off += (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			fail(res, start, "sending the request failed: %s", strerror(errno));
			goto out;
		}
		if (wait_fd(fd, POLLOUT, deadline, &rev) <= 0) {
			fail(res, start, "timed out after %d ms sending the request", timeout_ms);
			goto out;
		}
	}
	/* Read up to the end of the status line. */
	off = 0;
	for (;;) {
		short rev = 0;
		ssize_t r;
		char *eol;

		r = recv(fd, line + off, sizeof(line) - 1 - off, 0);
		if (r > 0) {
			off += (size_t)r;
			line[off] = '\0';
			eol = strpbrk(line, "\r\n");
			if (eol || off == sizeof(line) - 1) {
				if (eol)
					*eol = '\0';
				break;
			}
			continue;
		}
		if (r == 0) {
			line[off] = '\0';
			if (!off) {
				fail(res, start, "connection closed before a status line");
				goto out;
			}
			break;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			fail(res, start, "reading the reply failed: %s", strerror(errno));
			goto out;
		}
		if (wait_fd(fd, POLLIN, deadline, &rev) <= 0) {
			fail(res, start, "timed out after %d ms waiting for the reply", timeout_ms);
			goto out;
		}
	}
	res->http_status = status_code(line);
	if (!res->http_status) {
		fail(res, start, "the reply is not HTTP");
		goto out;
	}
	if (want_status ? res->http_status != want_status :
			  (res->http_status < 200 || res->http_status > 299)) {
		if (want_status)
			fail(res, start, "HTTP %d (want %d)", res->http_status, want_status);
		else
			fail(res, start, "HTTP %d (want 2xx)", res->http_status);
		goto out;
	}
	res->ok = true;
	res->elapsed_ms = srt_monotonic_ms() - start;
	snprintf(res->detail, sizeof(res->detail), "HTTP %d", res->http_status);
	rc = 0;
out:
	close(fd);
	return rc;
}

int srt_probe_split_hostport(const char *addr, char *host, unsigned hostlen, int *port)
{
	const char *colon, *h = addr, *he;
	char *end;
	long p;

	if (!addr || !*addr)
		return -1;
	if (*addr == '[') {
		he = strchr(addr, ']');
		if (!he || he[1] != ':')
			return -1;
		h = addr + 1;
		colon = he + 1;
	} else {
		colon = strrchr(addr, ':');
		if (!colon || colon == addr || memchr(addr, ':', (size_t)(colon - addr)))
			return -1;
		he = colon;
	}
	errno = 0;
	p = strtol(colon + 1, &end, 10);
	if (errno || *end || end == colon + 1 || p <= 0 || p > 65535)
		return -1;
	if ((size_t)(he - h) + 1 > hostlen || he == h)
		return -1;
	memcpy(host, h, (size_t)(he - h));
	host[he - h] = '\0';
	*port = (int)p;
	return 0;
}
