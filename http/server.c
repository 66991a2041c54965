/*
 * http/server.c: the embedded server: listening, limits, routing, /healthz
 * and /readyz (see http/server.h for the threading and data contract).
 */
#include "http/server.h"
#include "http/page.h"
#include "report/report.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/dl.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SRT_LIBMICROHTTPD "libmicrohttpd.so.12"

/*
 * libmicrohttpd's entry points, loaded at start (util/dl.h: only
 * `controller --listen` pays for the library and what it pulls in).  The
 * types come from microhttpd.h itself, so a mismatch does not compile.
 */
struct mhd_api {
	void *handle;
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
};

static int mhd_load(struct mhd_api *api, struct srt_error *err)
{
#define SYM(f)                                         \
	{                                              \
		"MHD_" #f, offsetof(struct mhd_api, f) \
	}
	static const struct srt_dl_sym syms[] = {
		SYM(start_daemon),	  SYM(stop_daemon),
		SYM(get_daemon_info),	  SYM(create_response_from_buffer),
		SYM(add_response_header), SYM(queue_response),
		SYM(destroy_response),	  SYM(lookup_connection_value),
	};
#undef SYM
	char why[512];

	api->handle = srt_dl_load(SRT_LIBMICROHTTPD, syms, sizeof(syms) / sizeof(syms[0]), api,
				  "for --listen", "Debian: apt-get install libmicrohttpd12", why,
				  sizeof(why));
	if (!api->handle) {
		srt_error_set(err, "--listen: %s", why);
		return -1;
	}
	return 0;
}

struct srt_http_server {
	struct mhd_api mhd;
	struct MHD_Daemon *daemon;
	struct srt_store *store; /* read-only; used by the server thread only */
	char *chartjs;		 /* Chart.js for the reports (read per request) */
	int64_t interval_ms, grace_ms;
	uint16_t port;
	pthread_mutex_t mu; /* guards the fields below */
	struct srt_metrics_loop loop;
	bool passed;
	int64_t last_pass_mono, next_wait_ms;
};

/* ---- --listen ---- */

static int parse_port(const char *s, unsigned *port)
{
	char *end;
	unsigned long v;

	if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 5)
		return -1;
	v = strtoul(s, &end, 10);
	if (v > 65535)
		return -1;
	*port = (unsigned)v;
	return 0;
}

int srt_http_listen_parse(const char *spec, bool allow_public, struct srt_http_listen *out,
			  struct srt_error *err)
{
	char host[64] = "127.0.0.1";
	const char *port_s = spec, *colon;
	unsigned port;
	bool v6 = false;

	memset(out, 0, sizeof(*out));
	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');

		if (!close || close[1] != ':' || (size_t)(close - spec - 1) >= sizeof(host))
			goto bad;
		memcpy(host, spec + 1, (size_t)(close - spec - 1));
		host[close - spec - 1] = '\0';
		port_s = close + 2;
		v6 = true;
	} else if ((colon = strrchr(spec, ':'))) {
		if (colon != spec) {
			if ((size_t)(colon - spec) >= sizeof(host))
				goto bad;
			memcpy(host, spec, (size_t)(colon - spec));
			host[colon - spec] = '\0';
		}
		port_s = colon + 1;
	}
	if (parse_port(port_s, &port) != 0)
		goto bad;
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&out->addr;

		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			goto bad;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		out->len = sizeof(*a);
		out->loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
		snprintf(out->text, sizeof(out->text), "[%s]:%u", host, port);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&out->addr;

		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			goto bad;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		out->len = sizeof(*a);
		out->loopback = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
		snprintf(out->text, sizeof(out->text), "%s:%u", host, port);
	}
	if (!out->loopback && !allow_public)
		return srt_error_set(err,
				     "--listen '%s' is not a loopback address: the status page "
				     "and metrics have no authentication; add --listen-public to "
				     "serve them on %s anyway, or listen on 127.0.0.1 behind a "
				     "proxy",
				     spec, host);
	return 0;
bad:
	return srt_error_set(err,
			     "--listen '%s' is not PORT, :PORT, ADDR:PORT or [IPv6]:PORT with a "
			     "numeric address and a port from 0 to 65535",
			     spec);
}

/* ---- health ---- */

int srt_http_health(bool passed, int64_t age_ms, int64_t interval_ms, int64_t next_wait_ms,
		    int64_t grace_ms, char *why, size_t n)
{
	int64_t wait = next_wait_ms > interval_ms ? next_wait_ms : interval_ms;
	int64_t budget = SRT_HTTP_HEALTH_INTERVALS * wait + grace_ms;

	if (!passed) {
		snprintf(why, n, "no reconcile pass has finished yet");
		return -1;
	}
	if (age_ms > budget) {
		snprintf(why, n,
			 "the last reconcile pass ended %lld ms ago, more than %d waits of %lld "
			 "ms plus %lld ms of grace: the loop is stuck (see the controller's log)",
			 (long long)age_ms, SRT_HTTP_HEALTH_INTERVALS, (long long)wait,
			 (long long)grace_ms);
		return -1;
	}
	snprintf(why, n, "ok");
	return 0;
}

void srt_http_server_publish(struct srt_http_server *srv, const struct srt_metrics_loop *loop,
			     int64_t next_wait_ms)
{
	pthread_mutex_lock(&srv->mu);
	srv->loop = *loop;
	srv->passed = true;
	srv->last_pass_mono = srt_monotonic_ms();
	srv->next_wait_ms = next_wait_ms;
	pthread_mutex_unlock(&srv->mu);
}

/* A copy of what the loop published, and the health verdict now. */
static int snapshot(struct srt_http_server *srv, struct srt_metrics_loop *loop, char *why, size_t n,
		    bool *passed)
{
	int rc;

	pthread_mutex_lock(&srv->mu);
	*loop = srv->loop;
	*passed = srv->passed;
	rc = srt_http_health(srv->passed, srt_monotonic_ms() - srv->last_pass_mono,
			     srv->interval_ms, srv->next_wait_ms, srv->grace_ms, why, n);
	pthread_mutex_unlock(&srv->mu);
	return rc;
}

/* ---- requests ---- */

/* Pages of this server: inline style, nothing else, nothing from the network. */
#define CSP_PAGE "default-src 'none'; style-src 'unsafe-inline'"
/* A report: its own inline scripts too (Chart.js and the charts), still nothing from the network. */
#define CSP_REPORT "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"

static enum MHD_Result reply_csp(const struct mhd_api *mhd, struct MHD_Connection *conn,
				 unsigned status, const char *type, const char *csp, char *body,
				 size_t len)
{
	struct MHD_Response *r = mhd->create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!r) {
		free(body);
		return MHD_NO;
	}
	mhd->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	mhd->add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	mhd->add_response_header(r, "X-Content-Type-Options", "nosniff");
	mhd->add_response_header(r, "Content-Security-Policy", csp);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		mhd->add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = mhd->queue_response(conn, status, r);
	mhd->destroy_response(r);
	return ret;
}

static enum MHD_Result reply(const struct mhd_api *mhd, struct MHD_Connection *conn,
			     unsigned status, const char *type, char *body, size_t len)
{
	return reply_csp(mhd, conn, status, type, CSP_PAGE, body, len);
}

static enum MHD_Result reply_text(const struct mhd_api *mhd, struct MHD_Connection *conn,
				  unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static enum MHD_Result reply_text(const struct mhd_api *mhd, struct MHD_Connection *conn,
				  unsigned status, const char *fmt, ...)
{
	struct srt_buf b;
	va_list ap;
	size_t len;

	srt_buf_init(&b);
	va_start(ap, fmt);
	srt_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	srt_buf_putc(&b, '\n');
	len = b.len;
	return reply(mhd, conn, status, "text/plain; charset=utf-8", srt_buf_detach(&b), len);
}

static enum MHD_Result serve_buf(const struct mhd_api *mhd, struct MHD_Connection *conn,
				 const char *type, struct srt_buf *b)
{
	size_t len = b->len;

	return reply(mhd, conn, MHD_HTTP_OK, type, srt_buf_detach(b), len);
}

/* /campaigns/NAME/report: the campaign's report (report/report.h), built per request. */
static enum MHD_Result campaign_report(struct srt_http_server *srv, struct MHD_Connection *conn,
				       const char *rest)
{
	const char *slash = strchr(rest, '/');
	struct srt_report_out rep;
	struct srt_error err;
	struct srt_buf js;
	char name[129];
	int rc;

	if (!slash || strcmp(slash, "/report") != 0 || (size_t)(slash - rest) >= sizeof(name))
		return reply_text(&srv->mhd, conn, MHD_HTTP_NOT_FOUND,
				  "not found; a campaign's report is /campaigns/NAME/report");
	memcpy(name, rest, (size_t)(slash - rest));
	name[slash - rest] = '\0';
	if (!srt_http_name_ok(name))
		return reply_text(&srv->mhd, conn, MHD_HTTP_NOT_FOUND,
				  "not found; a campaign's report is /campaigns/NAME/report");
	srt_buf_init(&js);
	srt_error_clear(&err);
	if (srt_report_chartjs_read(srv->chartjs, &js, &err) != 0) {
		srt_buf_release(&js);
		return reply_text(&srv->mhd, conn, MHD_HTTP_SERVICE_UNAVAILABLE,
				  "the report cannot be drawn: %s", err.msg);
	}
	rc = srt_report_campaign(srv->store, name, &js, srv->chartjs, &rep, &err);
	srt_buf_release(&js);
	if (rc == 0)
		return reply_text(&srv->mhd, conn, MHD_HTTP_NOT_FOUND,
				  "no campaign '%s'; / lists the campaigns", name);
	if (rc < 0)
		return reply_text(&srv->mhd, conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s", err.msg);
	free(rep.name); /* reply_csp() takes rep.html */
	return reply_csp(&srv->mhd, conn, MHD_HTTP_OK, "text/html; charset=utf-8", CSP_REPORT,
			 rep.html, rep.len);
}

static enum MHD_Result route(struct srt_http_server *srv, struct MHD_Connection *conn,
			     const char *url)
{
	struct srt_metrics_loop loop;
	struct srt_error err;
	struct srt_buf b;
	char why[256];
	bool passed;
	int healthy = snapshot(srv, &loop, why, sizeof(why), &passed);

	srt_error_clear(&err);

	if (strcmp(url, "/healthz") == 0)
		return healthy == 0 ? reply_text(&srv->mhd, conn, MHD_HTTP_OK, "ok") :
				      reply_text(&srv->mhd, conn, MHD_HTTP_SERVICE_UNAVAILABLE,
						 "unhealthy: %s", why);
	if (strcmp(url, "/readyz") == 0) {
		if (!passed)
			return reply_text(&srv->mhd, conn, MHD_HTTP_SERVICE_UNAVAILABLE,
					  "not ready: no reconcile pass has finished yet");
		struct srt_count_row *rows = NULL;
		size_t n = 0;

		if (srt_store_count(srv->store, SRT_COUNT_RECIPES, &rows, &n, &err) != 0)
			return reply_text(&srv->mhd, conn, MHD_HTTP_SERVICE_UNAVAILABLE,
					  "not ready: the database cannot be read: %s", err.msg);
		srt_count_rows_free(rows, n);
		return reply_text(&srv->mhd, conn, MHD_HTTP_OK, "ready");
	}
	srt_buf_init(&b);
	if (strcmp(url, "/metrics") == 0) {
		if (srt_metrics_render(&b, srv->store, &loop, &err) != 0)
			goto db_error;
		return serve_buf(&srv->mhd, conn, "text/plain; version=0.0.4; charset=utf-8", &b);
	}
	if (strcmp(url, "/") == 0) {
		struct srt_page_info info = {
			.now = srt_clock_now(srt_clock_system()),
			.last_pass_at = loop.last_pass_at,
			.refresh_seconds = 10,
			.health = why,
		};

		if (srt_page_render(&b, srv->store, &info, &err) != 0)
			goto db_error;
		return serve_buf(&srv->mhd, conn, "text/html; charset=utf-8", &b);
	}
	srt_buf_release(&b);
	if (strncmp(url, "/campaigns/", 11) == 0)
		return campaign_report(srv, conn, url + 11);
	return reply_text(&srv->mhd, conn, MHD_HTTP_NOT_FOUND,
			  "not found; this server has /, /campaigns/NAME/report, /metrics, "
			  "/healthz and /readyz");
db_error:
	srt_buf_release(&b);
	return reply_text(&srv->mhd, conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s", err.msg);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **req_cls)
{
	static int started; /* a marker: only its address is used */
	struct srt_http_server *srv = cls;

	(void)version;
	(void)upload_data;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply_text(&srv->mhd, conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				  "method %s not allowed: this server is read-only (GET, HEAD)",
				  method);
	if (*req_cls == NULL) { /* headers only so far */
		const char *cl = srv->mhd.lookup_connection_value(conn, MHD_HEADER_KIND,
								  MHD_HTTP_HEADER_CONTENT_LENGTH);

		/* Refused before it is read: this server takes no request bodies. */
		if ((cl && strcmp(cl, "0") != 0) ||
		    srv->mhd.lookup_connection_value(conn, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_TRANSFER_ENCODING))
			return reply_text(&srv->mhd, conn, MHD_HTTP_CONTENT_TOO_LARGE,
					  "a %s request has no body here", method);
		*req_cls = &started;
		return MHD_YES;
	}
	if (*upload_data_size) { /* cannot happen (refused above); never read it */
		*upload_data_size = 0;
		return MHD_YES;
	}
	return route(srv, conn, url);
}

int srt_http_server_start(struct srt_http_server **out, const struct srt_http_config *cfg,
			  struct srt_error *err)
{
	struct srt_http_server *srv = srt_xcalloc(1, sizeof(*srv));
	const union MHD_DaemonInfo *info;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL; /* errors: ours */

	*out = NULL;
	pthread_mutex_init(&srv->mu, NULL);
	srv->interval_ms = cfg->interval_ms;
	srv->chartjs = srt_xstrdup(cfg->chartjs ? cfg->chartjs : SRT_REPORT_CHARTJS_DEFAULT);
	srv->grace_ms = cfg->grace_ms;
	if (mhd_load(&srv->mhd, err) != 0)
		goto fail;
	if (srt_store_open(&srv->store, cfg->db_path, SRT_STORE_READONLY, NULL, err) != 0) {
		srt_error_prefix(err, "--listen: the server's read-only connection");
		goto fail;
	}
	if (cfg->listen.addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	srv->daemon = srv->mhd.start_daemon(
		flags, 0, NULL, NULL, on_request, srv, MHD_OPTION_SOCK_ADDR,
		(const struct sockaddr *)&cfg->listen.addr, MHD_OPTION_CONNECTION_LIMIT,
		(unsigned)SRT_HTTP_MAX_CONNECTIONS, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(unsigned)SRT_HTTP_MAX_PER_IP, MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned)SRT_HTTP_TIMEOUT_S, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)SRT_HTTP_MEMORY_LIMIT, MHD_OPTION_END);
	if (!srv->daemon) {
		srt_error_set(err,
			      "--listen %s: cannot listen there (the port is in use, or the "
			      "address is not one of this host's); choose another with --listen "
			      "ADDR:PORT",
			      cfg->listen.text);
		goto fail;
	}
	info = srv->mhd.get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
	srv->port = info ? info->port : 0;
	*out = srv;
	return 0;
fail:
	srt_http_server_stop(srv);
	return -1;
}

uint16_t srt_http_server_port(const struct srt_http_server *srv)
{
	return srv->port;
}

void srt_http_server_stop(struct srt_http_server *srv)
{
	if (!srv)
		return;
	if (srv->daemon)
		srv->mhd.stop_daemon(srv->daemon);
	srt_dl_unload(srv->mhd.handle);
	srt_store_close(srv->store);
	pthread_mutex_destroy(&srv->mu);
	free(srv->chartjs);
	free(srv);
}
