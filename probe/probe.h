/*
 * probe/probe.h: TCP-connect and HTTP-GET probes bounded by a timeout.
 *
 * A probe answers one question: does HOST:PORT accept a connection (TCP),
 * or answer `GET PATH` with the expected status (HTTP)?  Both are
 * non-blocking underneath (a non-blocking connect() and poll()), so a
 * probe never takes longer than its timeout, whatever the peer does: a
 * host that drops SYNs, a server that accepts and never answers, a reply
 * that trickles in.  EINTR is retried against the same deadline.
 *
 * The agent gates start-up on these probes (readiness) and watches running
 * services with them (liveness); the controller can use them for its own
 * checks.  The HTTP probe sends `GET PATH HTTP/1.1` with `Host` and
 * `Connection: close` (the mooncake master registers GET only: HEAD is a
 * 404) and reads only the status line; a judged probe reads the whole
 * reply, bounded, and hands its body to the caller's verdict (a Ray
 * dashboard's node summary counted by the agent).
 *
 * A probe is also a value the caller's event loop can drive, so a hung
 * endpoint delays nothing else: srt_probe_start() begins it,
 * srt_probe_pollfd() says which fd to poll for what, srt_probe_step()
 * advances it (call it when the fd is ready, and at the latest at its
 * deadline) until it returns true, and srt_probe_cancel() ends it early.
 * Name resolution (getaddrinfo) is the one part that can block: give
 * numeric addresses where it matters (the agent probes node IPs).
 */
#ifndef SRT_PROBE_PROBE_H
#define SRT_PROBE_PROBE_H

#include <netdb.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What one probe saw. */
struct srt_probe_result {
	bool ok;
	int http_status;    /* HTTP: the status line's code, 0 when none was read */
	int64_t elapsed_ms; /* time the probe took */
	/*
	 * One line for events and status.json: "connected",
	 * "connection refused", "timed out after 2000 ms", "HTTP 503 (want 200)",
	 * "connection closed before a status line", "cannot resolve 'x': ...".
	 */
	char detail[200];
};

enum srt_probe_stage {
	SRT_PROBE_CONNECTING,
	SRT_PROBE_SENDING, /* HTTP: the request */
	SRT_PROBE_READING, /* HTTP: the status line */
	SRT_PROBE_DONE,	   /* res is final */
};

/*
 * A judged HTTP probe's verdict on the reply body (dechunked; NUL-terminated
 * at len): true when it passes.  *detail (size bytes) says what it saw.
 */
typedef bool (*srt_probe_judge)(const char *body, size_t len, const void *arg, char *detail,
				size_t size);

/* One probe in flight.  Embedded by value; owns a socket and the resolved addresses until DONE. */
struct srt_probe_op {
	enum srt_probe_stage stage;
	struct srt_probe_result res; /* final once stage is DONE */
	int64_t start, deadline;     /* monotonic ms */
	/* internal */
	bool http;
	int want_status, timeout_ms, fd, last_err;
	struct addrinfo *ai, *next; /* the addresses, and the next one to try */
	char req[1024];
	size_t req_len, sent;
	char line[256];
	size_t got;
	/* A judged probe (srt_probe_start_judged()): the whole reply, malloc'd. */
	srt_probe_judge judge;
	const void *judge_arg;
	char *reply;
	size_t reply_len, reply_max;
};

/*
 * Begin a probe of host:port: HTTP `GET path` when path is not NULL (""
 * means "/health"; want_status 0 is any 2xx), else a TCP connect.  Never
 * fails: a bad port or name makes the probe DONE at once, with the reason
 * in op->res.  timeout_ms is at least 1.
 */
void srt_probe_start(struct srt_probe_op *op, const char *host, int port, const char *path,
		     int want_status, int timeout_ms);

/*
 * An HTTP probe that also reads the reply body, at most body_max bytes of
 * reply (status line and headers included; a longer reply fails), and
 * passes when the status matches and judge(body, arg) says so.  A chunked
 * body is decoded first.  The reply buffer is freed when the probe is DONE.
 */
void srt_probe_start_judged(struct srt_probe_op *op, const char *host, int port, const char *path,
			    int want_status, int timeout_ms, srt_probe_judge judge, const void *arg,
			    size_t body_max);

/* The fd to poll and its events (*events), or -1 when the probe is DONE. */
int srt_probe_pollfd(const struct srt_probe_op *op, short *events);

/*
 * Advance the probe as far as its socket allows, without blocking.
 * Returns true once it is DONE (op->res says what it saw; the socket is
 * closed): passed, failed, or its deadline passed.
 */
bool srt_probe_step(struct srt_probe_op *op);

/*
 * Make op DONE at once with a result the caller saw itself (a readiness
 * file): ok and the detail line.
 */
void srt_probe_set_done(struct srt_probe_op *op, bool ok, const char *detail);

/* End a probe before it is DONE (closes its socket).  Harmless when DONE. */
void srt_probe_cancel(struct srt_probe_op *op);

/*
 * Connect to host:port (a numeric IPv4/IPv6 address or a name) within
 * timeout_ms (at least 1).  Returns 0 when the connection was accepted, -1
 * otherwise; *res says what happened in both cases.
 */
int srt_probe_tcp(const char *host, int port, int timeout_ms, struct srt_probe_result *res);

/*
 * GET `path` (NULL: "/health") from host:port within timeout_ms and compare
 * the status code with want_status (0: any 2xx).  Returns 0 when it matched,
 * -1 otherwise (refused, timeout, no status line, another status).
 */
int srt_probe_http(const char *host, int port, const char *path, int want_status, int timeout_ms,
		   struct srt_probe_result *res);

/*
 * Split "host:port" or "[v6]:port" into host (at most hostlen bytes with the
 * NUL) and port.  Returns 0, or -1 when the text is not of that form.
 */
int srt_probe_split_hostport(const char *addr, char *host, unsigned hostlen, int *port);

#endif
