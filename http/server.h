/*
 * http/server.h: the controller's embedded HTTP server (libmicrohttpd).
 *
 * Read-only and bounded: GET and HEAD only (405 otherwise), at most
 * SRT_HTTP_MAX_CONNECTIONS connections (SRT_HTTP_MAX_PER_IP from one
 * address), SRT_HTTP_TIMEOUT_S of idle time, and SRT_HTTP_MEMORY_LIMIT bytes
 * per connection for the request (longer headers are refused by
 * libmicrohttpd with 431).  Routes: /metrics (http/metrics.h), /healthz,
 * /readyz, / (http/page.h), /campaigns/NAME/report (report/report.h, with
 * Chart.js read from its local file per request); anything else is 404.
 *
 * Threading and data.  libmicrohttpd runs one internal polling thread that
 * serves every request; nothing else runs in it.  That thread reads the
 * state database through its own read-only SQLite connection (WAL: readers
 * never block the controller's writer, nor it them), opened here and used
 * by that thread only.  What only the loop knows (pass counts and
 * durations, slurmrestd counters, when the last pass ended) reaches the
 * server as a copy: the controller's after-pass hook calls
 * srt_http_server_publish() once per pass, which copies a small struct
 * under a mutex that a request takes for the same copy.  The reconcile
 * pass itself never waits on the server.
 */
#ifndef SRT_HTTP_SERVER_H
#define SRT_HTTP_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "http/metrics.h"
#include "util/err.h"

#define SRT_HTTP_DEFAULT_PORT 9464
#define SRT_HTTP_MAX_CONNECTIONS 32
#define SRT_HTTP_MAX_PER_IP 16
#define SRT_HTTP_TIMEOUT_S 10
#define SRT_HTTP_MEMORY_LIMIT (32 * 1024)
/* /healthz fails when no pass ended within this many waits (plus the grace). */
#define SRT_HTTP_HEALTH_INTERVALS 3

/* Where to listen, as srt_http_listen_parse() understood it. */
struct srt_http_listen {
	struct sockaddr_storage addr;
	socklen_t len;
	bool loopback;
	char text[80]; /* "127.0.0.1:9464", "[::1]:9464" (the port as given; 0: any) */
};

/*
 * Parse --listen: "PORT", ":PORT", "ADDR:PORT" or "[IPv6]:PORT", a numeric
 * address (no names: what is bound must be what was asked for).  Without an
 * address: 127.0.0.1.  A non-loopback address is refused unless
 * `allow_public` (--listen-public), with a message that says so.  Port 0
 * lets the kernel choose (srt_http_server_port() tells which).
 */
int srt_http_listen_parse(const char *spec, bool allow_public, struct srt_http_listen *out,
			  struct srt_error *err);

struct srt_http_server;

struct srt_http_config {
	struct srt_http_listen listen;
	const char *db_path; /* opened read-only by the server (copied) */
	int64_t interval_ms; /* the loop's interval, for /healthz */
	int64_t grace_ms;    /* added to the health budget: a pass's slowest SLURM call */
	const char *chartjs; /* Chart.js for the reports (copied); NULL: Debian's */
};

/*
 * Open the database read-only and start listening.  Fails (-1, err says
 * why and what to do) when the database cannot be opened or the address
 * cannot be bound (in use, not local).  Stop with srt_http_server_stop().
 */
int srt_http_server_start(struct srt_http_server **out, const struct srt_http_config *cfg,
			  struct srt_error *err);
/* The port bound (the kernel's choice for port 0). */
uint16_t srt_http_server_port(const struct srt_http_server *srv);
/*
 * After each pass: the loop's numbers so far and the wait before the next
 * pass.  Copies; never blocks for long.
 */
void srt_http_server_publish(struct srt_http_server *srv, const struct srt_metrics_loop *loop,
			     int64_t next_wait_ms);
/* Stop serving (waits for the server thread), close its connection, free (NULL: no-op). */
void srt_http_server_stop(struct srt_http_server *srv);

/*
 * The health verdict, pure: 0 healthy, or -1 with `why` saying what is
 * wrong.  `passed`: a pass has ended; `age_ms`: since it ended.
 */
int srt_http_health(bool passed, int64_t age_ms, int64_t interval_ms, int64_t next_wait_ms,
		    int64_t grace_ms, char *why, size_t n);

#endif
