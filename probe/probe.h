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
 * 404) and reads only the status line.
 *
 * Nothing here keeps state between calls and nothing allocates.
 */
#ifndef SRT_PROBE_PROBE_H
#define SRT_PROBE_PROBE_H

#include <stdbool.h>
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
