/*
 * probe/probe.c: TCP and HTTP probes with a hard deadline.
 *
 * This file owns the socket work behind a probe: name resolution, a
 * non-blocking connect(), writing the request and reading a status line,
 * all against one monotonic deadline.  A probe is a small state machine
 * (struct srt_probe_op) that the caller's event loop drives; the blocking
 * srt_probe_tcp()/srt_probe_http() drive one in their own poll().
 */
#include "probe/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"

/* Milliseconds left before deadline (>= 0). */
static int left_ms(int64_t deadline)
{
	int64_t left = deadline - srt_monotonic_ms();

	return left > 0 ? (int)(left > 1000000000 ? 1000000000 : left) : 0;
}

/* The probe is over: *op's result is final and its socket closed. */
static bool finish(struct srt_probe_op *op)
{
	free(op->reply);
	op->reply = NULL;
	op->reply_len = 0;
	if (op->fd >= 0)
		close(op->fd);
	op->fd = -1;
	if (op->ai)
		freeaddrinfo(op->ai);
	op->ai = op->next = NULL;
	op->stage = SRT_PROBE_DONE;
	op->res.elapsed_ms = srt_monotonic_ms() - op->start;
	return true;
}

static bool done_fail(struct srt_probe_op *op, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static bool done_fail(struct srt_probe_op *op, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(op->res.detail, sizeof(op->res.detail), fmt, ap);
	va_end(ap);
	op->res.ok = false;
	return finish(op);
}

static bool done_ok(struct srt_probe_op *op)
{
	op->res.ok = true;
	if (op->http)
		snprintf(op->res.detail, sizeof(op->res.detail), "HTTP %d", op->res.http_status);
	else
		snprintf(op->res.detail, sizeof(op->res.detail), "connected");
	return finish(op);
}

/*
 * Start connecting to the next address of the name.  Returns true when the
 * probe is over (no address left, or a TCP probe connected at once).
 */
static bool connect_next(struct srt_probe_op *op)
{
	for (; op->next; op->next = op->next->ai_next) {
		const struct addrinfo *a = op->next;

		op->fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
				a->ai_protocol);
		if (op->fd < 0) {
			op->last_err = errno;
			continue;
		}
		if (connect(op->fd, a->ai_addr, a->ai_addrlen) == 0 || errno == EINPROGRESS) {
			op->next = a->ai_next;
			op->stage = SRT_PROBE_CONNECTING;
			return false;
		}
		op->last_err = errno;
		close(op->fd);
		op->fd = -1;
	}
	if (op->last_err == ECONNREFUSED)
		return done_fail(op, "connection refused");
	return done_fail(op, "%s", strerror(op->last_err ? op->last_err : EHOSTUNREACH));
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

/* The status line (op->line, complete or cut) is in: judge it. */
static bool judge_status(struct srt_probe_op *op)
{
	int st = status_code(op->line);

	op->res.http_status = st;
	if (!st)
		return done_fail(op, "the reply is not HTTP");
	if (op->want_status ? st != op->want_status : (st < 200 || st > 299)) {
		if (op->want_status)
			return done_fail(op, "HTTP %d (want %d)", st, op->want_status);
		return done_fail(op, "HTTP %d (want 2xx)", st);
	}
	return done_ok(op);
}

static void start(struct srt_probe_op *op, const char *host, int port, const char *path,
		  int want_status, int timeout_ms)
{
	struct addrinfo hints;
	char service[16];
	bool v6 = strchr(host, ':') != NULL;
	int rc, n;

	op->fd = -1;
	op->http = path != NULL;
	op->want_status = want_status;
	op->timeout_ms = timeout_ms < 1 ? 1 : timeout_ms;
	op->start = srt_monotonic_ms();
	op->deadline = op->start + op->timeout_ms;
	op->stage = SRT_PROBE_CONNECTING;
	if (port <= 0 || port > 65535) {
		done_fail(op, "port %d is out of range", port);
		return;
	}
	if (op->http) {
		if (!*path)
			path = "/health";
		for (const char *c = path; *c; c++) {
			if ((unsigned char)*c <= 0x20 || *c == 0x7f) {
				done_fail(op, "path '%s' has a space or control character", path);
				return;
			}
		}
		n = snprintf(op->req, sizeof(op->req),
			     "GET %s HTTP/1.1\r\nHost: %s%s%s:%d\r\nUser-Agent: srtctl-probe\r\n"
			     "Accept: */*\r\nConnection: close\r\n\r\n",
			     path, v6 ? "[" : "", host, v6 ? "]" : "", port);
		if (n < 0 || (size_t)n >= sizeof(op->req)) {
			done_fail(op, "request for '%s' is too long", path);
			return;
		}
		op->req_len = (size_t)n;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(service, sizeof(service), "%d", port);
	rc = getaddrinfo(host, service, &hints, &op->ai);
	if (rc) {
		op->ai = NULL;
		done_fail(op, "cannot resolve '%s': %s", host, gai_strerror(rc));
		return;
	}
	op->next = op->ai;
	connect_next(op);
}

void srt_probe_start(struct srt_probe_op *op, const char *host, int port, const char *path,
		     int want_status, int timeout_ms)
{
	memset(op, 0, sizeof(*op));
	start(op, host, port, path, want_status, timeout_ms);
}

void srt_probe_start_judged(struct srt_probe_op *op, const char *host, int port, const char *path,
			    int want_status, int timeout_ms, srt_probe_judge judge, const void *arg,
			    size_t body_max)
{
	memset(op, 0, sizeof(*op));
	op->judge = judge;
	op->judge_arg = arg;
	op->reply_max = body_max < 256 ? 256 : body_max;
	op->reply = malloc(op->reply_max + 1);
	if (!op->reply) {
		op->fd = -1;
		op->stage = SRT_PROBE_CONNECTING;
		op->start = srt_monotonic_ms();
		done_fail(op, "out of memory for a %zu-byte reply", op->reply_max);
		return;
	}
	start(op, host, port, path ? path : "/health", want_status, timeout_ms);
}

int srt_probe_pollfd(const struct srt_probe_op *op, short *events)
{
	switch (op->stage) {
	case SRT_PROBE_CONNECTING:
	case SRT_PROBE_SENDING:
		*events = POLLOUT;
		return op->fd;
	case SRT_PROBE_READING:
		*events = POLLIN;
		return op->fd;
	case SRT_PROBE_DONE:
		break;
	}
	*events = 0;
	return -1;
}

/* One step of the CONNECTING stage: the connect finished, or not yet. */
static bool step_connect(struct srt_probe_op *op)
{
	struct pollfd p = { op->fd, POLLOUT, 0 };
	int err = 0;
	socklen_t len = sizeof(err);

	if (poll(&p, 1, 0) <= 0)
		return false;
	if (getsockopt(op->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (err) {
		op->last_err = err;
		close(op->fd);
		op->fd = -1;
		return connect_next(op);
	}
	if (!op->http)
		return done_ok(op);
	op->stage = SRT_PROBE_SENDING;
	return false;
}

static bool step_send(struct srt_probe_op *op)
{
	while (op->sent < op->req_len) {
		ssize_t w = send(op->fd, op->req + op->sent, op->req_len - op->sent, MSG_NOSIGNAL);

		if (w > 0) {
			op->sent += (size_t)w;
			continue;
		}
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return false;
		return done_fail(op, "sending the request failed: %s", strerror(errno));
	}
	op->stage = SRT_PROBE_READING;
	return false;
}

/*
 * Decode a chunked body in place (b[0..*len) -> the data); false when it is
 * not well formed.  Chunk sizes are hex, extensions after ';' are ignored,
 * trailers are dropped.
 */
static bool dechunk(char *b, size_t *len)
{
	size_t in = 0, out = 0, n = *len;

	for (;;) {
		size_t size = 0, digits = 0;
		const char *eol;

		for (; in < n && strchr("0123456789abcdefABCDEF", b[in]) && b[in]; in++, digits++) {
			if (size > (SIZE_MAX >> 4))
				return false;
			size = size * 16 +
			       (size_t)(b[in] <= '9' ? b[in] - '0' : (b[in] | 0x20) - 'a' + 10);
		}
		eol = memchr(b + in, '\n', n - in);
		if (!digits || !eol)
			return false;
		in = (size_t)(eol - b) + 1;
		if (!size)
			break;
		if (size > n - in)
			return false;
		memmove(b + out, b + in, size);
		out += size;
		in += size;
		if (in < n && b[in] == '\r')
			in++;
		if (in < n && b[in] == '\n')
			in++;
	}
	*len = out;
	b[out] = '\0';
	return true;
}

/* A header's presence with a value, case-insensitively, in head[0..len). */
static bool has_header(const char *head, const char *name, const char *value)
{
	size_t nl = strlen(name), vl = strlen(value);

	for (const char *p = head; (p = strchr(p, '\n'));) {
		p++;
		if (strncasecmp(p, name, nl) || p[nl] != ':')
			continue;
		for (p += nl + 1; *p == ' ' || *p == '\t'; p++)
			;
		if (!strncasecmp(p, value, vl))
			return true;
	}
	return false;
}

/* The whole reply of a judged probe is in: status, then the judge on its body. */
static bool judge_reply(struct srt_probe_op *op)
{
	char *b = op->reply, *eoh;
	size_t blen;
	char detail[sizeof(op->res.detail) - 16] = "";
	bool ok;

	b[op->reply_len] = '\0';
	if (memchr(b, '\0', op->reply_len))
		return done_fail(op, "the reply holds a NUL byte");
	snprintf(op->line, sizeof(op->line), "%.*s", (int)strcspn(b, "\r\n"), b);
	op->res.http_status = status_code(op->line);
	if (!op->res.http_status ||
	    (op->want_status ? op->res.http_status != op->want_status :
			       (op->res.http_status < 200 || op->res.http_status > 299)))
		return judge_status(op);
	eoh = strstr(b, "\r\n\r\n");
	if (!eoh)
		return done_fail(op, "HTTP %d without the end of its headers", op->res.http_status);
	*eoh = '\0';
	blen = op->reply_len - (size_t)(eoh + 4 - b);
	if (has_header(b, "Transfer-Encoding", "chunked") && !dechunk(eoh + 4, &blen))
		return done_fail(op, "HTTP %d with a malformed chunked body", op->res.http_status);
	ok = op->judge(eoh + 4, blen, op->judge_arg, detail, sizeof(detail));
	op->res.ok = ok;
	snprintf(op->res.detail, sizeof(op->res.detail), "HTTP %d: %s", op->res.http_status,
		 detail);
	return finish(op);
}

/* A judged probe: read the reply to the end (the server closes: Connection: close). */
static bool step_read_all(struct srt_probe_op *op)
{
	for (;;) {
		ssize_t r;

		if (op->reply_len >= op->reply_max)
			return done_fail(op, "the reply is longer than %zu bytes", op->reply_max);
		r = recv(op->fd, op->reply + op->reply_len, op->reply_max - op->reply_len, 0);
		if (r > 0) {
			op->reply_len += (size_t)r;
			continue;
		}
		if (r == 0) {
			if (!op->reply_len)
				return done_fail(op, "connection closed before a status line");
			return judge_reply(op);
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return false;
		return done_fail(op, "reading the reply failed: %s", strerror(errno));
	}
}

/* Read up to the end of the status line. */
static bool step_read(struct srt_probe_op *op)
{
	if (op->judge)
		return step_read_all(op);
	for (;;) {
		ssize_t r = recv(op->fd, op->line + op->got, sizeof(op->line) - 1 - op->got, 0);
		char *eol;

		if (r > 0) {
			op->got += (size_t)r;
			op->line[op->got] = '\0';
			eol = strpbrk(op->line, "\r\n");
			if (eol)
				*eol = '\0';
			if (eol || op->got == sizeof(op->line) - 1)
				return judge_status(op);
			continue;
		}
		if (r == 0) {
			op->line[op->got] = '\0';
			if (!op->got)
				return done_fail(op, "connection closed before a status line");
			return judge_status(op);
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return false;
		return done_fail(op, "reading the reply failed: %s", strerror(errno));
	}
}

bool srt_probe_step(struct srt_probe_op *op)
{
	bool over = false;

	for (int k = 0; k < 4 && !over && op->stage != SRT_PROBE_DONE; k++) {
		enum srt_probe_stage was = op->stage;

		switch (op->stage) {
		case SRT_PROBE_CONNECTING:
			over = step_connect(op);
			break;
		case SRT_PROBE_SENDING:
			over = step_send(op);
			break;
		case SRT_PROBE_READING:
			over = step_read(op);
			break;
		case SRT_PROBE_DONE:
			break;
		}
		if (op->stage == was) /* waiting for the socket */
			break;
	}
	if (op->stage == SRT_PROBE_DONE)
		return true;
	if (srt_monotonic_ms() < op->deadline)
		return false;
	switch (op->stage) {
	case SRT_PROBE_SENDING:
		return done_fail(op, "timed out after %d ms sending the request", op->timeout_ms);
	case SRT_PROBE_READING:
		return done_fail(op, "timed out after %d ms waiting for the reply", op->timeout_ms);
	default:
		return done_fail(op, "timed out after %d ms", op->timeout_ms);
	}
}

void srt_probe_set_done(struct srt_probe_op *op, bool ok, const char *detail)
{
	memset(op, 0, sizeof(*op));
	op->fd = -1;
	op->res.ok = ok;
	snprintf(op->res.detail, sizeof(op->res.detail), "%s", detail);
	op->stage = SRT_PROBE_DONE;
}

void srt_probe_cancel(struct srt_probe_op *op)
{
	if (op->stage != SRT_PROBE_DONE) {
		op->res.ok = false;
		snprintf(op->res.detail, sizeof(op->res.detail), "cancelled");
		finish(op);
	}
}

/* Run one probe to its end, waiting in poll(). */
static int run(struct srt_probe_op *op, struct srt_probe_result *res)
{
	while (!srt_probe_step(op)) {
		short events;
		struct pollfd p;

		p.fd = srt_probe_pollfd(op, &events);
		p.events = events;
		p.revents = 0;
		(void)poll(&p, 1, left_ms(op->deadline)); /* EINTR: step() again */
	}
	*res = op->res;
	return res->ok ? 0 : -1;
}

int srt_probe_tcp(const char *host, int port, int timeout_ms, struct srt_probe_result *res)
{
	struct srt_probe_op op;

	srt_probe_start(&op, host, port, NULL, 0, timeout_ms);
	return run(&op, res);
}

int srt_probe_http(const char *host, int port, const char *path, int want_status, int timeout_ms,
		   struct srt_probe_result *res)
{
	struct srt_probe_op op;

	srt_probe_start(&op, host, port, path ? path : "/health", want_status, timeout_ms);
	return run(&op, res);
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
