/*
 * slurm/restd.c: the SLURM client over slurmrestd (libcurl), the public half.
 *
 * This file owns the connection (one curl easy handle, kept alive between
 * calls), the choice of API version (the first that answers GET
 * /slurm/<v>/ping, newest first, unless pinned; chosen again if the server
 * stops serving it), the auth headers, the mapping of transport failures
 * (refused, timed out, dropped, TLS) to result codes, the request counters,
 * and the context every message gets ("slurmrestd at URL: get job 42: ...").
 * What replies mean is proto.c's business.
 */
#include "slurm/internal.h"

#include "slurm/curl_dl.h"
#include <errno.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TIMEOUT_MS 30000
#define MAX_CONNECT_TIMEOUT_MS 10000

struct srt_slurm {
	struct srt_curl_api cu; /* libcurl, loaded by srt_slurm_new() */
	CURL *curl;
	char *url;	 /* as configured, its password masked: for messages */
	char *base;	 /* http(s)://host:port[/prefix], or http://localhost for a socket */
	char *unix_path; /* NULL over TCP */
	char *user;	 /* X-SLURM-USER-NAME, NULL for none */
	const struct srt_slurm_api *api; /* NULL until first contact */
	bool pinned;
	struct srt_slurm_auth *auth;
	long timeout_ms, connect_timeout_ms;
	char *ca_file;
	bool insecure;
	const struct srt_clock *clock;
	struct srt_slurm_stats stats;
	struct srt_buf reply;
	size_t max_reply; /* SRT_SLURM_MAX_REPLY but in tests */
	bool reply_too_big;
	char curl_err[CURL_ERROR_SIZE];
};

/* ---- construction ------------------------------------------------------------------ */

static int parse_url(struct srt_slurm *s, const char *url, struct srt_error *err)
{
	const char *path = NULL;

	if (!url || !*url)
		return srt_slurm_fail(err, SRT_SLURM_EINVAL,
				      "no slurmrestd URL: set slurmrestd.url in srtslurm.yaml "
				      "(http://host:6820, or unix:/path/to/socket)");
	if (!strncmp(url, "unix://", 7))
		path = url + 6 + (url[7] != '/'); /* unix:///p and unix://p */
	else if (!strncmp(url, "unix:", 5))
		path = url + 5;
	else if (url[0] == '/')
		path = url;
	if (path) {
		if (path[0] != '/')
			return srt_slurm_fail(
				err, SRT_SLURM_EINVAL,
				"slurmrestd URL '%s': the socket path must be absolute", s->url);
		if (strlen(path) >= 108)
			return srt_slurm_fail(err, SRT_SLURM_EINVAL,
					      "slurmrestd URL '%s': a unix socket path must be "
					      "shorter than 108 bytes",
					      s->url);
		s->unix_path = srt_xstrdup(path);
		s->base = srt_xstrdup("http://localhost");
		return 0;
	}
	if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
		return srt_slurm_fail(err, SRT_SLURM_EINVAL,
				      "slurmrestd URL '%s' must be http://host:port, "
				      "https://host:port, unix:/path or /path",
				      s->url);
	{
		const char *host = strstr(url, "://") + 3;
		size_t n = strlen(url);

		if (!*host || *host == '/' || *host == ':')
			return srt_slurm_fail(err, SRT_SLURM_EINVAL,
					      "slurmrestd URL '%s' has no host", s->url);
		if (strpbrk(url, " \t\r\n?#"))
			return srt_slurm_fail(err, SRT_SLURM_EINVAL,
					      "slurmrestd URL '%s' may not hold blanks, '?' or '#'",
					      s->url);
		while (n > 0 && url[n - 1] == '/')
			n--;
		s->base = srt_xstrndup(url, n);
	}
	return 0;
}

int srt_slurm_new(struct srt_slurm **out, const struct srt_slurm_config *cfg, struct srt_error *err)
{
	struct srt_slurm *s;
	int rc;

	*out = NULL;
	s = srt_xcalloc(1, sizeof(*s));
	srt_buf_init(&s->reply);
	s->url = srt_slurm_url_redact(cfg->url ? cfg->url : "");
	s->max_reply = SRT_SLURM_MAX_REPLY;
	s->clock = cfg->clock ? cfg->clock : srt_clock_system();
	rc = parse_url(s, cfg->url, err);
	if (rc != 0)
		goto fail;
	if (cfg->api_version && *cfg->api_version) {
		s->api = srt_slurm_api_find(cfg->api_version);
		if (!s->api) {
			rc = srt_slurm_fail(err, SRT_SLURM_EINVAL,
					    "API version '%s' is not one srtctl speaks (v0.0.38, "
					    "v0.0.40 to v0.0.44); leave slurmrestd.api_version "
					    "unset to use the newest the server serves",
					    cfg->api_version);
			goto fail;
		}
		s->pinned = true;
	}
	if (cfg->timeout_ms < 0 || cfg->connect_timeout_ms < 0) {
		rc = srt_slurm_fail(err, SRT_SLURM_EINVAL, "timeouts must not be negative");
		goto fail;
	}
	s->timeout_ms = cfg->timeout_ms ? cfg->timeout_ms : DEFAULT_TIMEOUT_MS;
	s->connect_timeout_ms = cfg->connect_timeout_ms		       ? cfg->connect_timeout_ms :
				s->timeout_ms < MAX_CONNECT_TIMEOUT_MS ? s->timeout_ms :
									 MAX_CONNECT_TIMEOUT_MS;
	s->ca_file = cfg->ca_file ? srt_xstrdup(cfg->ca_file) : NULL;
	s->insecure = cfg->insecure;
	rc = srt_slurm_auth_new(&s->auth, &cfg->auth, s->clock, err);
	if (rc != 0)
		goto fail;
	/*
	 * The user: as configured; else, over TCP, the token's "sun" claim
	 * (22.05 wants the header); over a socket none (rest_auth/local
	 * answers 401 to a user header).
	 */
	if (cfg->user && *cfg->user) {
		if (!srt_slurm_header_value_ok(cfg->user)) {
			rc = srt_slurm_fail(
				err, SRT_SLURM_EINVAL,
				"the user name (slurmrestd.user) holds a blank or a "
				"control character, which cannot go into the "
				"X-SLURM-USER-NAME header; set it to a plain user name");
			goto fail;
		}
		s->user = srt_xstrdup(cfg->user);
	} else if (!s->unix_path && *srt_slurm_auth_user(s->auth)) {
		if (!srt_slurm_header_value_ok(srt_slurm_auth_user(s->auth))) {
			rc = srt_slurm_fail(
				err, SRT_SLURM_EINVAL,
				"the token from %s names a user (its 'sun' claim) with "
				"a blank or a control character, which cannot go into "
				"the X-SLURM-USER-NAME header; use a token minted for a "
				"plain user name, or set slurmrestd.user",
				srt_slurm_auth_origin(s->auth));
			goto fail;
		}
		s->user = srt_xstrdup(srt_slurm_auth_user(s->auth));
	}
	{
		char why[512];

		if (srt_curl_load(&s->cu, why, sizeof(why)) != 0) {
			rc = srt_slurm_fail(err, SRT_SLURM_EINVAL, "%s", why);
			goto fail;
		}
	}
	if (s->cu.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		rc = srt_slurm_fail(err, SRT_SLURM_EINVAL, "libcurl failed to initialise");
		goto fail;
	}
	s->curl = s->cu.easy_init();
	if (!s->curl) {
		s->cu.global_cleanup();
		rc = srt_slurm_fail(err, SRT_SLURM_EINVAL, "libcurl failed to make a handle");
		goto fail;
	}
	*out = s;
	return 0;
fail:
	srt_slurm_free(s);
	return rc;
}

void srt_slurm_free(struct srt_slurm *s)
{
	if (!s)
		return;
	if (s->curl) {
		s->cu.easy_cleanup(s->curl);
		s->cu.global_cleanup();
	}
	srt_curl_unload(&s->cu);
	srt_slurm_auth_free(s->auth);
	free(s->url);
	free(s->base);
	free(s->unix_path);
	free(s->user);
	free(s->ca_file);
	srt_buf_release(&s->reply);
	free(s);
}

const char *srt_slurm_url(const struct srt_slurm *s)
{
	return s->url;
}

char *srt_slurm_url_redact(const char *url)
{
	const char *auth = strstr(url, "://"), *end, *at = NULL, *colon;
	struct srt_buf b;

	if (!auth)
		return srt_xstrdup(url);
	auth += 3;
	end = auth + strcspn(auth, "/?#");
	for (const char *p = auth; p < end; p++)
		if (*p == '@')
			at = p; /* the last one: a password may hold '@' */
	colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
	if (!colon)
		return srt_xstrdup(url);
	srt_buf_init(&b);
	srt_buf_append(&b, url, (size_t)(colon + 1 - url));
	srt_buf_puts(&b, "***");
	srt_buf_puts(&b, at);
	return srt_buf_detach(&b);
}

void srt_slurm_set_max_reply(struct srt_slurm *s, size_t bytes)
{
	s->max_reply = bytes;
}

const char *srt_slurm_api_version(const struct srt_slurm *s)
{
	return s->api ? s->api->version : NULL;
}

void srt_slurm_stats(const struct srt_slurm *s, struct srt_slurm_stats *out)
{
	*out = s->stats;
}

/* ---- transport ----------------------------------------------------------------------- */

static size_t on_data(char *data, size_t size, size_t n, void *arg)
{
	struct srt_slurm *s = arg;
	size_t len = size * n;

	if (s->reply.len + len > s->max_reply) {
		s->reply_too_big = true;
		return 0; /* CURLE_WRITE_ERROR */
	}
	srt_buf_append(&s->reply, data, len);
	return len;
}

/* Add "; <what to do>" for a failed auth: where the token came from, and its exp. */
static void auth_hint(struct srt_slurm *s, struct srt_error *err)
{
	struct srt_buf b;
	int64_t exp = srt_slurm_auth_exp(s->auth);
	int64_t now = srt_clock_now(s->clock) / 1000;

	srt_buf_init(&b);
	srt_buf_puts(&b, err->msg);
	if (!srt_slurm_auth_enabled(s->auth)) {
		srt_buf_puts(&b,
			     "; no token is configured: set $SLURM_JWT, or slurmrestd.token_file "
			     "or slurmrestd.token_command in srtslurm.yaml");
	} else {
		srt_buf_printf(&b, "; the token comes from %s", srt_slurm_auth_origin(s->auth));
		if (s->user)
			srt_buf_printf(&b, " for user '%s'", s->user);
		if (exp > 0 && exp <= now)
			srt_buf_printf(&b, " and expired %lld s ago (its exp claim)",
				       (long long)(now - exp));
		else if (exp > 0)
			srt_buf_printf(&b,
				       " and is valid for another %lld s by its exp claim, so "
				       "check that it was made for this cluster and user",
				       (long long)(exp - now));
		srt_buf_puts(&b, "; get a fresh one (e.g. `scontrol token lifespan=86400`)");
	}
	srt_error_set(err, "%s", b.data);
	srt_buf_release(&b);
}

/*
 * curl's message without the elapsed time it names ("Failed to connect to
 * h port 9 after 4 ms: ...", "timed out after 5001 milliseconds"): the same
 * failure must give the same text, or every pass writes a new event instead
 * of counting the one it already wrote.  Cut in place.
 */
static void drop_elapsed(char *msg)
{
	static const char *const units[] = { " ms", " milliseconds" };
	char *p = msg;

	while ((p = strstr(p, " after ")) != NULL) {
		char *q = p + strlen(" after ");
		size_t digits = strspn(q, "0123456789");
		bool cut = false;

		for (size_t i = 0; digits && !cut && i < sizeof(units) / sizeof(units[0]); i++) {
			size_t n = strlen(units[i]);

			if (!strncmp(q + digits, units[i], n)) {
				memmove(p, q + digits + n, strlen(q + digits + n) + 1);
				cut = true;
			}
		}
		if (!cut)
			p = q;
	}
}

static int curl_failure(struct srt_slurm *s, CURLcode cc, struct srt_error *err)
{
	const char *detail;

	drop_elapsed(s->curl_err);
	detail = s->curl_err[0] ? s->curl_err : s->cu.easy_strerror(cc);

	switch (cc) {
	case CURLE_COULDNT_CONNECT:
		if (s->unix_path) {
			struct stat st;

			/* curl speaks of "localhost port 80" here, which helps nobody. */
			if (stat(s->unix_path, &st) != 0)
				return srt_slurm_fail(
					err, SRT_SLURM_EUNREACHABLE,
					"slurmrestd is unreachable: socket %s: %s; "
					"is slurmrestd running, and is slurmrestd.url "
					"right?",
					s->unix_path, strerror(errno));
			return srt_slurm_fail(
				err, SRT_SLURM_EUNREACHABLE,
				"slurmrestd is unreachable: nothing accepts connections "
				"on socket %s (%s); is slurmrestd running?",
				s->unix_path,
				S_ISSOCK(st.st_mode) ? "connection refused" : "not a socket");
		}
		/* fall through */
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return srt_slurm_fail(err, SRT_SLURM_EUNREACHABLE,
				      "slurmrestd is unreachable (%s); is it running, and is "
				      "slurmrestd.url right?",
				      detail);
	case CURLE_OPERATION_TIMEDOUT:
		return srt_slurm_fail(err, SRT_SLURM_ETIMEOUT,
				      "no answer within %ld ms (%s); the outcome is unknown (the "
				      "request may still take effect)",
				      s->timeout_ms, detail);
	case CURLE_GOT_NOTHING:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_PARTIAL_FILE:
		return srt_slurm_fail(err, SRT_SLURM_EUNREACHABLE,
				      "the connection to slurmrestd broke during the request (%s); "
				      "whether it was carried out is unknown",
				      detail);
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_USE_SSL_FAILED:
	case CURLE_SSL_ENGINE_INITFAILED:
		return srt_slurm_fail(err, SRT_SLURM_ETLS,
				      "TLS with slurmrestd failed (%s); check the URL's scheme "
				      "(http or https) and the CA bundle",
				      detail);
	case CURLE_FILESIZE_EXCEEDED:
	case CURLE_WRITE_ERROR:
		if (s->reply_too_big || cc == CURLE_FILESIZE_EXCEEDED)
			return srt_slurm_fail(
				err, SRT_SLURM_EPROTOCOL,
				"the reply is larger than %zu MiB, the most srtctl reads from "
				"slurmrestd (enough to list about 100,000 jobs); it was not read. "
				"Check that the URL is slurmrestd's; if slurmctld really holds that "
				"many jobs, purge finished ones sooner (a lower MinJobAge in "
				"slurm.conf)",
				s->max_reply >> 20);
		return srt_slurm_fail(err, SRT_SLURM_EPROTOCOL, "reading the reply failed (%s)",
				      detail);
	case CURLE_URL_MALFORMAT:
	case CURLE_UNSUPPORTED_PROTOCOL:
		return srt_slurm_fail(err, SRT_SLURM_EINVAL, "bad slurmrestd URL (%s)", detail);
	default:
		return srt_slurm_fail(err, SRT_SLURM_EUNREACHABLE, "the request failed (%s)",
				      detail);
	}
}

/*
 * One HTTP request: METHOD <base>/slurm/<version>/<path>.  Returns a
 * transport failure code, or 0 with r filled (r->body points into
 * s->reply, valid until the next request).
 */
static int http(struct srt_slurm *s, const struct srt_slurm_api *api, const char *method,
		const char *path, const char *body, struct srt_slurm_reply *r,
		struct srt_error *err)
{
	struct curl_slist *h = NULL;
	char *url = NULL, *user_h = NULL, *token_h = NULL;
	const char *token = NULL;
	int64_t t0;
	CURLcode cc;
	CURL *c = s->curl;
	long status = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = srt_slurm_auth_token(s->auth, &token, err);
	if (rc != 0)
		return rc;
	/* Every header value, every time: a reloaded token is new text. */
	if ((s->user && !srt_slurm_header_value_ok(s->user)) ||
	    (token && !srt_slurm_header_value_ok(token)))
		return srt_slurm_fail(err, SRT_SLURM_EINVAL,
				      "refusing to send a %s with a blank or a control character "
				      "in it (it would break the HTTP request); check %s",
				      s->user && !srt_slurm_header_value_ok(s->user) ? "user name" :
										       "token",
				      srt_slurm_auth_origin(s->auth));
	url = srt_xasprintf("%s/slurm/%s/%s", s->base, api->version, path);
	h = s->cu.slist_append(h, "Accept: application/json");
	/* No "Expect: 100-continue" round trip before a POST body. */
	h = s->cu.slist_append(h, "Expect:");
	if (body)
		h = s->cu.slist_append(h, "Content-Type: application/json");
	if (s->user) {
		user_h = srt_xasprintf("X-SLURM-USER-NAME: %s", s->user);
		h = s->cu.slist_append(h, user_h);
	}
	if (token) {
		token_h = srt_xasprintf("X-SLURM-USER-TOKEN: %s", token);
		h = s->cu.slist_append(h, token_h);
	}
	srt_buf_reset(&s->reply);
	s->reply_too_big = false;
	s->curl_err[0] = '\0';

	s->cu.easy_setopt(c, CURLOPT_URL, url);
	s->cu.easy_setopt(c, CURLOPT_HTTPHEADER, h);
	s->cu.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	s->cu.easy_setopt(c, CURLOPT_TIMEOUT_MS, s->timeout_ms);
	s->cu.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, s->connect_timeout_ms);
	s->cu.easy_setopt(c, CURLOPT_ERRORBUFFER, s->curl_err);
	s->cu.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	s->cu.easy_setopt(c, CURLOPT_WRITEDATA, s);
	s->cu.easy_setopt(c, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	/* slurmrestd is inside the cluster: proxy variables meant for the internet do not apply. */
	s->cu.easy_setopt(c, CURLOPT_PROXY, "");
	s->cu.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	/* A Content-Length over the cap is refused before the body is read. */
	s->cu.easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)s->max_reply);
	if (s->unix_path)
		s->cu.easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, s->unix_path);
	if (s->ca_file)
		s->cu.easy_setopt(c, CURLOPT_CAINFO, s->ca_file);
	s->cu.easy_setopt(c, CURLOPT_SSL_VERIFYPEER, s->insecure ? 0L : 1L);
	s->cu.easy_setopt(c, CURLOPT_SSL_VERIFYHOST, s->insecure ? 0L : 2L);
	/*
	 * A POST gets a connection of its own: libcurl resends a request on a
	 * new connection when a kept-alive one dies without an answer, and a
	 * submit must never be sent twice by us (the caller looks for the job
	 * by its comment instead).
	 */
	s->cu.easy_setopt(c, CURLOPT_FRESH_CONNECT, body ? 1L : 0L);
	if (body) {
		s->cu.easy_setopt(c, CURLOPT_POST, 1L);
		s->cu.easy_setopt(c, CURLOPT_POSTFIELDS, body);
		s->cu.easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
		s->cu.easy_setopt(c, CURLOPT_CUSTOMREQUEST, NULL);
	} else {
		s->cu.easy_setopt(c, CURLOPT_HTTPGET, 1L);
		s->cu.easy_setopt(c, CURLOPT_CUSTOMREQUEST, strcmp(method, "GET") ? method : NULL);
	}

	t0 = srt_monotonic_ms();
	cc = s->cu.easy_perform(c);
	s->stats.usec += (uint64_t)(srt_monotonic_ms() - t0) * 1000;
	s->stats.requests++;
	s->stats.bytes_received += s->reply.len;
	/* Nothing read from the reply may carry the token on (messages, events). */
	srt_slurm_redact(s->reply.data, s->reply.len, token);
	/* Nothing of the token stays in the handle or in memory we free. */
	s->cu.easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
	s->cu.easy_setopt(c, CURLOPT_POSTFIELDS, NULL);
	s->cu.slist_free_all(h);
	if (token_h) {
		explicit_bzero(token_h, strlen(token_h));
		free(token_h);
	}
	free(user_h);
	free(url);
	if (cc != CURLE_OK) {
		s->stats.failures++;
		return curl_failure(s, cc, err);
	}
	s->cu.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	r->status = status;
	r->elapsed_ms = srt_monotonic_ms() - t0;
	r->token_expired = token && srt_slurm_auth_exp(s->auth) > 0 &&
			   srt_slurm_auth_exp(s->auth) <= srt_clock_now(s->clock) / 1000;
	r->body = s->reply.data;
	r->len = s->reply.len;
	return 0;
}

/* HTTP 404 with slurmrestd's plain-text page: the version's paths do not exist. */
static bool route_missing(const struct srt_slurm_reply *r)
{
	size_t i = 0;

	if (r->status != 404)
		return false;
	while (i < r->len && (r->body[i] == ' ' || r->body[i] == '\n' || r->body[i] == '\r'))
		i++;
	return i >= r->len || r->body[i] != '{';
}

/*
 * Choose the API version: GET /slurm/<v>/ping for each, newest first; the
 * first that is not a "no such path" 404 is served.  Auth is checked before
 * routing (401 for no token, any version), so a token is needed to probe.
 * On success *r holds the chosen version's ping reply.
 */
static int probe(struct srt_slurm *s, struct srt_slurm_reply *r, struct srt_error *err)
{
	struct srt_buf tried;
	int rc = 0;

	srt_buf_init(&tried);
	for (size_t i = 0; srt_slurm_apis[i].version; i++) {
		const struct srt_slurm_api *api = &srt_slurm_apis[i];

		rc = http(s, api, "GET", api->minor == 38 ? "ping" : "ping/", NULL, r, err);
		if (rc != 0)
			goto out;
		if (r->status == 401 || r->status == 403) {
			/* Refused before routing: we cannot tell which versions exist. */
			json_t *root = NULL;
			bool missing;

			rc = srt_slurm_reply_check(api, SRT_OP_PING, r, &root, &missing, err);
			json_decref(root);
			if (rc == 0)
				rc = SRT_SLURM_EAUTH;
			goto out;
		}
		if (!route_missing(r)) {
			s->api = api;
			goto out;
		}
		srt_buf_printf(&tried, "%s%s", tried.len ? ", " : "", api->version);
	}
	rc = srt_slurm_fail(err, SRT_SLURM_EPROTOCOL,
			    "no API version srtctl speaks is served there (tried %s, each a 404); "
			    "is the URL slurmrestd's, and is it Slurm 22.05 or newer with the "
			    "openapi plugins of those versions (slurmrestd -s)?",
			    tried.data);
out:
	srt_buf_release(&tried);
	return rc;
}

/* Make sure a version is chosen (probing costs one request per version tried). */
static int ensure_api(struct srt_slurm *s, struct srt_error *err)
{
	struct srt_slurm_reply r;

	if (s->api)
		return 0;
	return probe(s, &r, err);
}

/* The prefix every message gets. */
static int context(struct srt_slurm *s, int rc, struct srt_error *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int context(struct srt_slurm *s, int rc, struct srt_error *err, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	if (rc == SRT_SLURM_EAUTH)
		auth_hint(s, err);
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (s->api)
		srt_error_prefix(err, "slurmrestd at %s (API %s): %s", s->url, s->api->version,
				 what);
	else
		srt_error_prefix(err, "slurmrestd at %s: %s", s->url, what);
	return rc;
}

typedef int (*decode_fn)(struct srt_slurm *s, const struct srt_slurm_reply *r, void *out,
			 struct srt_error *err);

/*
 * Send a request and decode its reply, with the common handling: choose
 * the version first; on a 404 "no such path" forget an unpinned version
 * (the server was upgraded); on EAUTH reload the token once and retry when
 * that gave a new one.
 */
static int call(struct srt_slurm *s, const char *method, const char *path, const char *body,
		decode_fn decode, void *out, struct srt_error *err)
{
	struct srt_slurm_reply r;
	int rc, attempt;

	rc = ensure_api(s, err);
	if (rc != 0)
		return rc;
	for (attempt = 0;; attempt++) {
		rc = http(s, s->api, method, path, body, &r, err);
		if (rc != 0)
			return rc;
		rc = decode(s, &r, out, err);
		if (rc == SRT_SLURM_EPROTOCOL && route_missing(&r) && !s->pinned)
			s->api = NULL; /* probe again next time */
		if (rc == SRT_SLURM_EAUTH && attempt == 0 && srt_slurm_auth_reload(s->auth))
			continue;
		break;
	}
	if (rc != 0 && rc != SRT_SLURM_EGONE)
		s->stats.failures++;
	return rc;
}

/* ---- ping ---------------------------------------------------------------------------- */

static void info_init(struct srt_slurm *s, struct srt_slurm_info *out)
{
	memset(out, 0, sizeof(*out));
	out->api_version_pinned = s->pinned;
	snprintf(out->user, sizeof(out->user), "%s", s->user ? s->user : "");
	if (s->api)
		snprintf(out->api_version, sizeof(out->api_version), "%s", s->api->version);
	out->token_exp = srt_slurm_auth_exp(s->auth);
}

static int dec_diag(struct srt_slurm *s, const struct srt_slurm_reply *r, void *out,
		    struct srt_error *err)
{
	json_t *root = NULL;
	bool missing;
	int rc;

	(void)out;
	rc = srt_slurm_reply_check(s->api, SRT_OP_DIAG, r, &root, &missing, err);
	json_decref(root);
	return rc;
}

int srt_slurm_ping(struct srt_slurm *s, struct srt_slurm_info *out, struct srt_error *err)
{
	struct srt_slurm_reply r;
	int rc;

	for (int attempt = 0;; attempt++) {
		info_init(s, out);
		if (!s->api)
			rc = probe(s, &r, err);
		else
			rc = http(s, s->api, "GET", s->api->minor == 38 ? "ping" : "ping/", NULL,
				  &r, err);
		if (rc != 0)
			return context(s, rc, err, "ping");
		rc = srt_slurm_decode_ping(s->api, &r, out, err);
		if (rc == SRT_SLURM_EPROTOCOL && route_missing(&r) && !s->pinned) {
			s->api = NULL; /* upgraded under us: choose again */
			if (attempt == 0)
				continue;
			break;
		}
		if (rc == SRT_SLURM_EAUTH && attempt == 0 && srt_slurm_auth_reload(s->auth))
			continue;
		break;
	}
	if (rc == SRT_SLURM_ESERVER && s->api && s->api->minor >= 40 && !out->controller_up &&
	    r.status == 200) {
		/* A DOWN ping from 24.11+: a bad token or a dead slurmctld.  diag tells. */
		struct srt_error e2;
		int drc = call(s, "GET", "diag/", NULL, dec_diag, NULL, &e2);

		if (drc == SRT_SLURM_EAUTH) {
			*err = e2;
			rc = drc;
		}
		out->auth_ok = drc == 0;
	}
	if (rc == 0)
		out->auth_ok = true;
	if (rc != 0)
		s->stats.failures++;
	return rc ? context(s, rc, err, "ping") : 0;
}

/* ---- jobs ---------------------------------------------------------------------------- */

static int dec_submit(struct srt_slurm *s, const struct srt_slurm_reply *r, void *out,
		      struct srt_error *err)
{
	return srt_slurm_decode_submit(s->api, r, out, err);
}

int srt_slurm_submit(struct srt_slurm *s, const struct srt_job_spec *spec, int64_t *job_id,
		     struct srt_error *err)
{
	struct srt_buf body;
	const char *name = spec->name && *spec->name ? spec->name : "(no name)";
	int rc;

	*job_id = 0;
	srt_error_clear(err);
	rc = ensure_api(s, err);
	if (rc != 0)
		return context(s, rc, err, "submit job '%s'", name);
	srt_buf_init(&body);
	rc = srt_slurm_encode_submit(s->api, spec, &body, err);
	if (rc == 0)
		rc = call(s, "POST", "job/submit", body.data, dec_submit, job_id, err);
	srt_buf_release(&body);
	if (rc != 0)
		return context(s, rc, err, "submit job '%s'", name);
	return 0;
}

struct job_out {
	int64_t id;
	struct srt_job *job;
};

static int dec_job(struct srt_slurm *s, const struct srt_slurm_reply *r, void *out,
		   struct srt_error *err)
{
	struct job_out *o = out;

	return srt_slurm_decode_job(s->api, r, o->id, o->job, err);
}

int srt_slurm_get_job(struct srt_slurm *s, int64_t job_id, struct srt_job *out,
		      struct srt_error *err)
{
	struct job_out o = { job_id, out };
	char path[64];
	int rc;

	memset(out, 0, sizeof(*out));
	if (job_id <= 0)
		return srt_slurm_fail(err, SRT_SLURM_EINVAL, "job id %lld is not valid",
				      (long long)job_id);
	snprintf(path, sizeof(path), "job/%lld", (long long)job_id);
	rc = call(s, "GET", path, NULL, dec_job, &o, err);
	if (rc != 0)
		return context(s, rc, err, "get job %lld", (long long)job_id);
	return 0;
}

static int dec_jobs(struct srt_slurm *s, const struct srt_slurm_reply *r, void *out,
		    struct srt_error *err)
{
	return srt_slurm_decode_jobs(s->api, r, out, err);
}

int srt_slurm_list_jobs(struct srt_slurm *s, int64_t changed_since, struct srt_job_list *out,
			struct srt_error *err)
{
	char path[64];
	int64_t sent;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = ensure_api(s, err);
	if (rc != 0)
		return context(s, rc, err, "list jobs");
	srt_slurm_jobs_path(s->api, changed_since, path, sizeof(path));
	/*
	 * Slurm compares update_time with its last change in whole seconds
	 * (">= means unchanged"): a change in the second we ask would be
	 * missed next time, so our fallback is one second earlier.
	 */
	sent = srt_clock_now(s->clock) / 1000 - 1;
	rc = call(s, "GET", path, NULL, dec_jobs, out, err);
	if (rc != 0)
		return context(s, rc, err, "list jobs");
	/*
	 * v0.0.40+ reports the time of its answer by slurmctld's clock, which
	 * is better than ours; one second earlier for the same reason.
	 */
	if (out->last_update > 0)
		out->last_update -= 1;
	else
		out->last_update = sent;
	return 0;
}

int srt_slurm_find_jobs(struct srt_slurm *s, const char *comment, const char *name,
			struct srt_job_list *out, struct srt_error *err)
{
	struct srt_job_list all;
	size_t k = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = srt_slurm_list_jobs(s, 0, &all, err);
	if (rc != 0)
		return rc;
	for (size_t i = 0; i < all.n; i++) {
		struct srt_job *j = &all.jobs[i];

		if ((!comment || !strcmp(j->comment, comment)) && (!name || !strcmp(j->name, name)))
			all.jobs[k++] = *j; /* moved */
		else
			srt_job_release(j);
	}
	out->jobs = all.jobs;
	out->n = k;
	out->last_update = all.last_update;
	return 0;
}

static int dec_kill(struct srt_slurm *s, const struct srt_slurm_reply *r, void *out,
		    struct srt_error *err)
{
	(void)out;
	return srt_slurm_decode_kill(s->api, r, err);
}

int srt_slurm_cancel(struct srt_slurm *s, int64_t job_id, struct srt_error *err)
{
	char path[64];
	int rc;

	if (job_id <= 0)
		return srt_slurm_fail(err, SRT_SLURM_EINVAL, "job id %lld is not valid",
				      (long long)job_id);
	snprintf(path, sizeof(path), "job/%lld", (long long)job_id);
	rc = call(s, "DELETE", path, NULL, dec_kill, NULL, err);
	if (rc != 0)
		return context(s, rc, err, "cancel job %lld", (long long)job_id);
	return 0;
}

int srt_slurm_signal(struct srt_slurm *s, int64_t job_id, int sig, struct srt_error *err)
{
	const char *name = srt_slurm_signal_name(sig);
	char path[96];
	int rc;

	if (job_id <= 0)
		return srt_slurm_fail(err, SRT_SLURM_EINVAL, "job id %lld is not valid",
				      (long long)job_id);
	/* Never an unchecked name: v0.0.41+ cancels the job for a signal it does not know. */
	if (!name)
		return srt_slurm_fail(err, SRT_SLURM_EINVAL,
				      "signal %d cannot be sent through slurmrestd (it takes HUP, "
				      "INT, QUIT, ABRT, KILL, ALRM, TERM, USR1, USR2, URG, CONT, "
				      "STOP, TSTP, TTIN, TTOU)",
				      sig);
	snprintf(path, sizeof(path), "job/%lld?signal=%s", (long long)job_id, name);
	rc = call(s, "DELETE", path, NULL, dec_kill, NULL, err);
	if (rc != 0)
		return context(s, rc, err, "send SIG%s to job %lld", name, (long long)job_id);
	return 0;
}
