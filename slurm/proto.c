/*
 * slurm/proto.c: slurmrestd's replies, turned into result codes and data.
 *
 * This file owns the mapping from what slurmrestd says (an HTTP status, an
 * errors[] array, a body that may not even be JSON) to enum srt_slurm_rc,
 * with the known traps of each generation:
 *
 *   - Slurm 22.05 (v0.0.38) answers a bad or expired token with HTTP 500
 *     and misleading text ("Unable to find JobId=3", error -1; "Zero Bytes
 *     were transmitted or received", error 5005).  Slurm 24.11 (v0.0.40+)
 *     answers 511 (error 1007), but its ping says 200 "DOWN".
 *   - An unknown or purged job is 500/2017 in 22.05 and 404/2017 later.
 *   - errors[] inside an HTTP 200 is a failure, except that a submit reply
 *     carrying a job id means the job exists (22.05 reports a held job's
 *     "Job is in held state" as an error).
 *   - An API version slurmrestd does not serve is a plain-text 404.
 *
 * Everything here is a pure function of its inputs.
 */
#define _GNU_SOURCE /* memmem */
#include "slurm/internal.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

const struct srt_slurm_api srt_slurm_apis[] = {
	{ "v0.0.44", 44 }, { "v0.0.43", 43 }, { "v0.0.42", 42 }, { "v0.0.41", 41 },
	{ "v0.0.40", 40 }, { "v0.0.38", 38 }, { NULL, 0 },
};

const char *const *srt_slurm_supported_versions(void)
{
	static const char *const v[] = { "v0.0.44", "v0.0.43", "v0.0.42", "v0.0.41",
					 "v0.0.40", "v0.0.38", NULL };

	return v;
}

const struct srt_slurm_api *srt_slurm_api_find(const char *version)
{
	if (!version)
		return NULL;
	if (version[0] == 'v')
		version++;
	for (size_t i = 0; srt_slurm_apis[i].version; i++)
		if (!strcmp(srt_slurm_apis[i].version + 1, version))
			return &srt_slurm_apis[i];
	return NULL;
}

const char *srt_slurm_rc_name(int rc)
{
	switch (rc) {
	case SRT_SLURM_OK:
		return "OK";
	case SRT_SLURM_EINVAL:
		return "INVALID";
	case SRT_SLURM_EGONE:
		return "GONE";
	case SRT_SLURM_EUNREACHABLE:
		return "UNREACHABLE";
	case SRT_SLURM_ETIMEOUT:
		return "TIMEOUT";
	case SRT_SLURM_EAUTH:
		return "AUTH";
	case SRT_SLURM_ESERVER:
		return "SERVER";
	case SRT_SLURM_EREJECTED:
		return "REJECTED";
	case SRT_SLURM_EPROTOCOL:
		return "PROTOCOL";
	case SRT_SLURM_ETLS:
		return "TLS";
	default:
		return "?";
	}
}

const char *srt_slurm_signal_name(int sig)
{
	switch (sig) {
	case SIGHUP:
		return "HUP";
	case SIGINT:
		return "INT";
	case SIGQUIT:
		return "QUIT";
	case SIGABRT:
		return "ABRT";
	case SIGKILL:
		return "KILL";
	case SIGALRM:
		return "ALRM";
	case SIGTERM:
		return "TERM";
	case SIGUSR1:
		return "USR1";
	case SIGUSR2:
		return "USR2";
	case SIGURG:
		return "URG";
	case SIGCONT:
		return "CONT";
	case SIGSTOP:
		return "STOP";
	case SIGTSTP:
		return "TSTP";
	case SIGTTIN:
		return "TTIN";
	case SIGTTOU:
		return "TTOU";
	default:
		return NULL;
	}
}

int srt_slurm_fail(struct srt_error *err, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* ---- secrets in replies ---------------------------------------------------------- */

static bool jwt_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == '.' || c == '=';
}

size_t srt_slurm_redact(char *buf, size_t len, const char *token)
{
	size_t tlen = token ? strlen(token) : 0, n = 0, i = 0;
	char *p;

	if (!buf)
		return 0;
	while (tlen > 0 && i + tlen <= len && (p = memmem(buf + i, len - i, token, tlen))) {
		memset(p, '*', tlen);
		i = (size_t)(p - buf) + tlen;
		n++;
	}
	/*
	 * A JWT starts with "eyJ" at a boundary (the start, '=', or a character
	 * no JWT has) and its header ({"alg":...} in base64url) is 10 characters
	 * or more before the first dot.  Each candidate is looked at once: one
	 * not at a boundary is passed at once (an "=eyJ" inside its run is still
	 * a candidate), and one at a boundary is followed to its first dot: the
	 * later candidates before that dot are nearer to it, so not JWTs either.
	 * Linear in len.
	 */
	i = 0;
	while (i + 3 <= len && (p = memmem(buf + i, len - i, "eyJ", 3))) {
		size_t start = (size_t)(p - buf), end = start;

		if (start > 0 && buf[start - 1] != '=' && jwt_char(buf[start - 1])) {
			i = start + 1;
			continue;
		}
		while (end < len && jwt_char(buf[end]) && buf[end] != '.')
			end++;
		if (end == len || buf[end] != '.') {
			i = end; /* no dot in the run: nothing in it is a JWT */
			continue;
		}
		if (end - start < 10) {
			i = end + 1;
			continue;
		}
		while (end < len && jwt_char(buf[end]))
			end++;
		memset(buf + start, '*', end - start);
		n++;
		i = end;
	}
	return n;
}

bool srt_slurm_header_value_ok(const char *v)
{
	if (!v || !*v)
		return false;
	for (; *v; v++)
		if ((unsigned char)*v < 0x21 || (unsigned char)*v > 0x7e)
			return false;
	return true;
}

/* ---- JSON field readers -------------------------------------------------------- */

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

static int wrong_type(const char *what, const char *key, const json_t *v, const char *want,
		      struct srt_error *err)
{
	return srt_slurm_fail(err, SRT_SLURM_EPROTOCOL, "%s: field '%s' is %s, expected %s", what,
			      key, type_name(v), want);
}

int srt_slurm_json_str(json_t *obj, const char *key, const char *what, char **out,
		       struct srt_error *err)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return wrong_type(what, key, v, "a string", err);
	*out = srt_xstrndup(json_string_value(v), json_string_length(v));
	return 0;
}

/* Read a bare number (integer, real or digit string) into *out. */
static int plain_num(json_t *v, int64_t *out)
{
	if (json_is_integer(v)) {
		*out = (int64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_real(v)) {
		double d = json_real_value(v);

		if (d != d || d > 9.2e18 || d < -9.2e18)
			return -1;
		*out = (int64_t)d;
		return 0;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		char *end;
		long long x;

		if (!*s)
			return -1;
		x = strtoll(s, &end, 10);
		if (*end)
			return -1;
		*out = x;
		return 0;
	}
	return -1;
}

int srt_slurm_json_num(json_t *obj, const char *key, const char *what, int64_t *out, bool *set,
		       bool *infinite, struct srt_error *err)
{
	json_t *v = json_object_get(obj, key);

	*out = 0;
	*set = false;
	if (infinite)
		*infinite = false;
	if (!v || json_is_null(v))
		return 0;
	if (json_is_object(v)) {
		/* {set, infinite, number}: "set" and "number" mean nothing when infinite. */
		json_t *js = json_object_get(v, "set");
		json_t *ji = json_object_get(v, "infinite");
		json_t *jn = json_object_get(v, "number");

		if ((js && !json_is_boolean(js)) || (ji && !json_is_boolean(ji)) ||
		    (jn && !json_is_null(jn) && !json_is_number(jn)))
			return wrong_type(what, key, v, "a number or {set, infinite, number}", err);
		if (ji && json_is_true(ji)) {
			if (infinite)
				*infinite = true;
			return 0;
		}
		if ((js && !json_is_true(js)) || !jn || json_is_null(jn))
			return 0;
		if (plain_num(jn, out) != 0)
			return wrong_type(what, key, v, "a number or {set, infinite, number}", err);
		*set = true;
		return 0;
	}
	if (plain_num(v, out) != 0)
		return wrong_type(what, key, v, "a number", err);
	*set = true;
	return 0;
}

int srt_slurm_json_put_str(json_t *obj, const char *key, const char *val, struct srt_error *err)
{
	json_t *v;

	if (!val)
		return 0;
	v = json_string(val);
	if (!v)
		return srt_slurm_fail(err, SRT_SLURM_EINVAL, "the job's %s is not valid UTF-8",
				      key);
	json_object_set_new(obj, key, v);
	return 0;
}

int srt_slurm_json_bool(json_t *obj, const char *key, const char *what, bool *out, bool *set,
			struct srt_error *err)
{
	json_t *v = json_object_get(obj, key);

	*out = false;
	*set = false;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_boolean(v))
		return wrong_type(what, key, v, "a boolean", err);
	*out = json_is_true(v);
	*set = true;
	return 0;
}

/* ---- errors[] and HTTP status ---------------------------------------------------- */

#define MAX_ERRNUMS 8

struct errinfo {
	int nums[MAX_ERRNUMS];
	size_t n;	     /* entries in errors[] */
	struct srt_buf text; /* "'desc' (Slurm error N, source)" joined by "; " */
};

/* Append a printable, bounded copy of s (server text can hold anything). */
static void put_clean(struct srt_buf *b, const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i] && i < max; i++) {
		unsigned char c = (unsigned char)s[i];

		srt_buf_putc(b, c < 0x20 || c == 0x7f ? ' ' : (char)c);
	}
	if (s[i])
		srt_buf_puts(b, "...");
}

static const char *obj_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static void collect_errors(json_t *root, struct errinfo *ei)
{
	json_t *errs = json_object_get(root, "errors");
	size_t i;
	json_t *e;

	memset(ei->nums, 0, sizeof(ei->nums));
	ei->n = 0;
	srt_buf_init(&ei->text);
	if (!json_is_array(errs))
		return;
	json_array_foreach(errs, i, e)
	{
		const char *desc, *short_text, *source;
		json_t *num;
		int64_t x = 0;
		bool has_num = false;

		if (!json_is_object(e))
			continue;
		/* 22.05's submit path says error_code; everything else error_number. */
		num = json_object_get(e, "error_number");
		if (!num)
			num = json_object_get(e, "error_code");
		if (num && plain_num(num, &x) == 0)
			has_num = true;
		if (ei->n < MAX_ERRNUMS)
			ei->nums[ei->n] = has_num ? (int)x : 0;
		ei->n++;
		if (ei->n > 3)
			continue; /* the first three say enough */
		desc = obj_str(e, "description");
		short_text = obj_str(e, "error");
		source = obj_str(e, "source");
		if (!desc || !*desc)
			desc = short_text;
		if (ei->text.len)
			srt_buf_puts(&ei->text, "; ");
		srt_buf_putc(&ei->text, '\'');
		put_clean(&ei->text, desc && *desc ? desc : "no description", 200);
		srt_buf_putc(&ei->text, '\'');
		if (has_num) {
			srt_buf_printf(&ei->text, " (Slurm error %lld", (long long)x);
			if (short_text && *short_text && desc != short_text) {
				srt_buf_puts(&ei->text, " ");
				put_clean(&ei->text, short_text, 100);
			}
			if (source && *source) {
				srt_buf_puts(&ei->text, ", in ");
				put_clean(&ei->text, source, 80);
			}
			srt_buf_putc(&ei->text, ')');
		}
	}
	if (ei->n > 3)
		srt_buf_printf(&ei->text, "; and %zu more", ei->n - 3);
}

static bool has_num(const struct errinfo *ei, int num)
{
	for (size_t i = 0; i < ei->n && i < MAX_ERRNUMS; i++)
		if (ei->nums[i] == num)
			return true;
	return false;
}

static bool has_range(const struct errinfo *ei, int lo, int hi)
{
	for (size_t i = 0; i < ei->n && i < MAX_ERRNUMS; i++)
		if (ei->nums[i] >= lo && ei->nums[i] <= hi)
			return true;
	return false;
}

/* The body's first line, for messages about replies that are not JSON. */
static void put_snippet(struct srt_buf *b, const struct srt_slurm_reply *r)
{
	size_t n = 0;

	if (!r->body || r->len == 0) {
		srt_buf_puts(b, "an empty body");
		return;
	}
	while (n < r->len && n < 120 && r->body[n] != '\n' && r->body[n] != '\r')
		n++;
	srt_buf_puts(b, "'");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)r->body[i];

		srt_buf_putc(b, c < 0x20 || c >= 0x7f ? '?' : (char)c);
	}
	srt_buf_puts(b, n < r->len ? "...'" : "'");
}

/*
 * The code for a reply that carries errors, from the Slurm error numbers
 * first and the HTTP status second.
 */
static int classify(const struct srt_slurm_api *api, enum srt_slurm_op op,
		    const struct srt_slurm_reply *r, const struct errinfo *ei, int fallback,
		    struct srt_error *err)
{
	long status = r->status;
	const char *what = ei->text.len ? ei->text.data : "no error text";

	if (has_num(ei, 1007)) /* SLURM_PROTOCOL_AUTHENTICATION_ERROR */
		return srt_slurm_fail(err, SRT_SLURM_EAUTH,
				      "the token was rejected (expired?): HTTP %ld, %s", status,
				      what);
	if (api->minor == 38 && status == 500 && (has_num(ei, -1) || has_num(ei, 5005)) &&
	    !has_num(ei, 2017)) {
		/*
		 * 22.05 says the same for a rejected token and for a slurmctld
		 * that does not answer; only the latter takes seconds.
		 */
		if (r->token_expired || r->elapsed_ms < SRT_SLURM_V38_AUTH_FAST_MS)
			return srt_slurm_fail(
				err, SRT_SLURM_EAUTH,
				"the token was rejected (expired?): HTTP 500, %s; this "
				"is how Slurm 22.05 reports a bad or expired token",
				what);
		return srt_slurm_fail(
			err, SRT_SLURM_ESERVER,
			"slurmctld did not answer slurmrestd (HTTP 500 after %lld ms, "
			"%s); is slurmctld up?",
			(long long)r->elapsed_ms, what);
	}
	if (has_num(ei, 2017) && (op == SRT_OP_GET_JOB || op == SRT_OP_KILL))
		return srt_slurm_fail(err, SRT_SLURM_EGONE,
				      "slurmctld does not know this job: it ended and was purged "
				      "(MinJobAge), or never existed (%s)",
				      what);
	if (has_num(ei, 5004)) /* SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT */
		return srt_slurm_fail(err, SRT_SLURM_ETIMEOUT,
				      "slurmrestd got no answer from slurmctld in time (%s); the "
				      "outcome is unknown",
				      what);
	if (has_range(ei, 1800, 1804)) /* SLURMCTLD_COMMUNICATIONS_* */
		return srt_slurm_fail(err, SRT_SLURM_ESERVER,
				      "slurmrestd cannot reach slurmctld (%s); is slurmctld up?",
				      what);
	if (has_range(ei, 2000, 2999) || has_range(ei, 9000, 9999))
		return srt_slurm_fail(err, SRT_SLURM_EREJECTED, "slurmctld refused the request: %s",
				      what);
	if (fallback == SRT_SLURM_EREJECTED)
		return srt_slurm_fail(err, SRT_SLURM_EREJECTED,
				      "slurmrestd refused the request (HTTP %ld): %s", status,
				      what);
	if (status == 200)
		srt_error_set(err,
			      "slurmrestd reported errors in a successful (HTTP 200) reply: %s",
			      what);
	else
		srt_error_set(err, "slurmrestd failed (HTTP %ld): %s", status, what);
	return fallback;
}

int srt_slurm_reply_check(const struct srt_slurm_api *api, enum srt_slurm_op op,
			  const struct srt_slurm_reply *r, json_t **root, bool *route_missing,
			  struct srt_error *err)
{
	json_error_t jerr;
	struct errinfo ei;
	struct srt_buf snip;
	int rc = 0;
	long st = r->status;

	*root = NULL;
	*route_missing = false;
	if (r->len > SRT_SLURM_MAX_TREE) {
		/* Only job listings are that big, and they are read job by job. */
		srt_buf_init(&snip);
		put_snippet(&snip, r);
		rc = srt_slurm_fail(err, SRT_SLURM_EPROTOCOL,
				    "the reply (HTTP %ld) is %zu bytes, more than slurmrestd sends "
				    "for this request; is the URL slurmrestd's? It starts %s",
				    st, r->len, snip.data);
		srt_buf_release(&snip);
		return rc;
	}
	if (r->body && r->len > 0) {
		json_t *j = json_loadb(r->body, r->len, 0, &jerr);

		if (j && !json_is_object(j)) {
			json_decref(j);
			j = NULL;
			snprintf(jerr.text, sizeof(jerr.text), "the top level is not an object");
			jerr.line = 1;
			jerr.column = 1;
		}
		*root = j;
	} else {
		snprintf(jerr.text, sizeof(jerr.text), "the body is empty");
		jerr.line = 0;
		jerr.column = 0;
	}
	srt_buf_init(&snip);
	put_snippet(&snip, r);
	if (*root)
		collect_errors(*root, &ei);
	else
		srt_buf_init(&ei.text);
	if (!*root)
		ei.n = 0;

	if (st == 304) {
		if (op != SRT_OP_LIST_JOBS)
			rc = srt_slurm_fail(err, SRT_SLURM_EPROTOCOL,
					    "unexpected HTTP 304 (not modified)");
	} else if (st >= 200 && st < 300) {
		if (!*root)
			rc = srt_slurm_fail(
				err, SRT_SLURM_EPROTOCOL,
				"the reply (HTTP %ld) is not JSON (%s at line %d column %d): %s",
				st, jerr.text, jerr.line, jerr.column, snip.data);
		else if (ei.n > 0)
			rc = classify(api, op, r, &ei, SRT_SLURM_ESERVER, err);
	} else if (st == 401 || st == 403) {
		srt_error_set(err,
			      "slurmrestd refused the credentials (HTTP %ld, %s): it wants a user "
			      "name and a token it accepts (X-SLURM-USER-NAME, X-SLURM-USER-TOKEN)",
			      st, snip.data);
		rc = SRT_SLURM_EAUTH;
	} else if (st == 511) {
		srt_error_set(err, "the token was rejected (expired?): HTTP 511, %s",
			      ei.n ? ei.text.data : snip.data);
		rc = SRT_SLURM_EAUTH;
	} else if (st == 404) {
		if (*root && ei.n > 0) {
			rc = classify(api, op, r, &ei, SRT_SLURM_EPROTOCOL, err);
		} else if (*root) {
			srt_error_set(err, "unexpected HTTP 404 with no errors");
			rc = SRT_SLURM_EPROTOCOL;
		} else {
			*route_missing = true;
			srt_error_set(
				err,
				"slurmrestd does not serve API %s (HTTP 404, %s); pin a version "
				"it serves (slurmrestd.api_version) or leave it unset",
				api->version, snip.data);
			rc = SRT_SLURM_EPROTOCOL;
		}
	} else if (st == 400 || st == 405 || st == 413 || st == 415 || st == 422) {
		if (ei.n > 0)
			rc = classify(api, op, r, &ei, SRT_SLURM_EREJECTED, err);
		else
			rc = srt_slurm_fail(err, SRT_SLURM_EREJECTED,
					    "slurmrestd refused the request (HTTP %ld): %s", st,
					    snip.data);
	} else if (st == 504) {
		srt_error_set(err, "slurmrestd timed out (HTTP 504, %s); the outcome is unknown",
			      ei.n ? ei.text.data : snip.data);
		rc = SRT_SLURM_ETIMEOUT;
	} else if (st >= 500 && st < 600) {
		if (ei.n > 0)
			rc = classify(api, op, r, &ei, SRT_SLURM_ESERVER, err);
		else
			rc = srt_slurm_fail(err, SRT_SLURM_ESERVER,
					    "slurmrestd failed (HTTP %ld): %s", st, snip.data);
	} else {
		srt_error_set(err, "unexpected HTTP status %ld: %s", st, snip.data);
		rc = SRT_SLURM_EPROTOCOL;
	}
	srt_buf_release(&ei.text);
	srt_buf_release(&snip);
	return rc;
}

/* ---- meta --------------------------------------------------------------------- */

static void copy_str(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
}

static void read_meta(json_t *root, struct srt_slurm_info *info)
{
	json_t *meta = json_object_get(root, "meta");
	json_t *sl;
	const char *rel;

	if (!json_is_object(meta))
		return;
	/* v0.0.38: meta.Slurm; v0.0.40+: meta.slurm. */
	sl = json_object_get(meta, "slurm");
	if (!json_is_object(sl))
		sl = json_object_get(meta, "Slurm");
	if (!json_is_object(sl))
		return;
	rel = obj_str(sl, "release");
	if (rel && *rel) {
		copy_str(info->release, sizeof(info->release), rel);
	} else {
		json_t *v = json_object_get(sl, "version");
		int64_t ma, mi, mc;

		if (json_is_object(v) && plain_num(json_object_get(v, "major"), &ma) == 0 &&
		    plain_num(json_object_get(v, "minor"), &mi) == 0 &&
		    plain_num(json_object_get(v, "micro"), &mc) == 0)
			snprintf(info->release, sizeof(info->release), "%lld.%02lld.%lld",
				 (long long)ma, (long long)mi, (long long)mc);
	}
	copy_str(info->cluster, sizeof(info->cluster), obj_str(sl, "cluster"));
}

/* ---- decoders -------------------------------------------------------------------- */

int srt_slurm_decode_ping(const struct srt_slurm_api *api, const struct srt_slurm_reply *r,
			  struct srt_slurm_info *out, struct srt_error *err)
{
	json_t *root = NULL, *pings, *p;
	bool missing, up = false, set;
	char *host = NULL, *word = NULL;
	int rc;

	copy_str(out->api_version, sizeof(out->api_version), api->version);
	rc = srt_slurm_reply_check(api, SRT_OP_PING, r, &root, &missing, err);
	if (root)
		read_meta(root, out);
	if (rc != 0) {
		if (rc == SRT_SLURM_EAUTH)
			out->auth_ok = false;
		goto out;
	}
	pings = json_object_get(root, "pings");
	if (!json_is_array(pings) || json_array_size(pings) == 0 ||
	    !json_is_object(p = json_array_get(pings, 0))) {
		rc = srt_slurm_fail(err, SRT_SLURM_EPROTOCOL, "the ping reply has no pings[]");
		goto out;
	}
	rc = srt_slurm_json_str(p, "hostname", "ping", &host, err);
	if (rc == 0 && api->minor >= 42) {
		rc = srt_slurm_json_bool(p, "responding", "ping", &up, &set, err);
		if (rc == 0 && !set) {
			rc = srt_slurm_json_str(p, "pinged", "ping", &word, err);
			up = word && !strcmp(word, "UP");
		}
	} else if (rc == 0) {
		rc = srt_slurm_json_str(p, api->minor == 38 ? "ping" : "pinged", "ping", &word,
					err);
		up = word && !strcmp(word, "UP");
	}
	if (rc != 0)
		goto out;
	copy_str(out->controller, sizeof(out->controller), host);
	out->controller_up = up;
	if (up) {
		out->auth_ok = true;
	} else if (api->minor == 38) {
		/* 22.05 fails the whole request on a bad token: auth is fine here. */
		out->auth_ok = true;
		rc = srt_slurm_fail(err, SRT_SLURM_ESERVER,
				    "slurmctld (%s) does not answer pings; is it running?",
				    host && *host ? host : "?");
	} else {
		/* 24.11 pings "DOWN" for a bad token too: the caller tells them apart. */
		rc = srt_slurm_fail(
			err, SRT_SLURM_ESERVER,
			"slurmctld (%s) does not answer pings, or the token was rejected "
			"(Slurm 24.11+ answers a bad token's ping with DOWN)",
			host && *host ? host : "?");
	}
out:
	free(host);
	free(word);
	json_decref(root);
	return rc;
}

int srt_slurm_decode_submit(const struct srt_slurm_api *api, const struct srt_slurm_reply *r,
			    int64_t *job_id, struct srt_error *err)
{
	json_t *root = NULL;
	bool missing, set = false;
	int64_t id = 0;
	char *umsg = NULL;
	struct srt_error e2;
	struct errinfo ei;
	struct srt_buf note;
	int rc;

	*job_id = 0;
	rc = srt_slurm_reply_check(api, SRT_OP_SUBMIT, r, &root, &missing, err);
	if (!root)
		return rc ? rc : SRT_SLURM_EPROTOCOL;
	if (srt_slurm_json_num(root, "job_id", "the submit reply", &id, &set, NULL, &e2) != 0) {
		/* A job id of the wrong type: we cannot know which job this was. */
		json_decref(root);
		return srt_slurm_fail(err, SRT_SLURM_EPROTOCOL, "%s", e2.msg);
	}
	if (!set || id <= 0) {
		if (rc == 0)
			rc = srt_slurm_fail(err, SRT_SLURM_EPROTOCOL,
					    "the submit reply (HTTP %ld) has no job_id", r->status);
		json_decref(root);
		return rc;
	}
	/*
	 * The job exists, whatever else the reply says (22.05 lists "Job is
	 * in held state, pending scheduler release" as an error of a held
	 * job's successful submit).  Pass the text on as a notice.
	 */
	*job_id = id;
	srt_buf_init(&note);
	collect_errors(root, &ei);
	if (ei.n)
		srt_buf_printf(&note, "slurmrestd reported with job %lld: %s", (long long)id,
			       ei.text.data);
	if (srt_slurm_json_str(root, "job_submit_user_msg", "the submit reply", &umsg, &e2) == 0 &&
	    umsg && *umsg) {
		srt_buf_puts(&note, note.len ? "; job_submit says: " : "job_submit says: ");
		put_clean(&note, umsg, 300);
	}
	if (note.len)
		srt_error_set(err, "%s", note.data);
	else
		srt_error_clear(err);
	srt_buf_release(&ei.text);
	srt_buf_release(&note);
	free(umsg);
	json_decref(root);
	return 0;
}

/* Decode jobs[i] with the version's reader; `what` for messages. */
static int decode_one(const struct srt_slurm_api *api, json_t *j, struct srt_job *out,
		      struct srt_error *err)
{
	int rc;

	memset(out, 0, sizeof(*out));
	out->exit_code = -1;
	if (!json_is_object(j)) {
		return srt_slurm_fail(err, SRT_SLURM_EPROTOCOL,
				      "a jobs[] entry is %s, expected an object", type_name(j));
	}
	if (api->minor == 38)
		rc = srt_slurm_v38_job(j, out, err);
	else
		rc = srt_slurm_v40_job(api, j, out, err);
	if (rc != 0) {
		srt_job_release(out);
		return rc;
	}
	srt_job_normalise(out);
	return 0;
}

/* ---- job listings, one job at a time ----------------------------------------------- */

/*
 * Where jobs[] and its elements sit in a reply, found without building
 * jansson's tree of it (which costs about ten times the text).  The scan
 * checks the structure around the elements (the top-level object, commas,
 * brackets, strings); jansson checks each element and the rest on its own.
 */
struct job_span {
	size_t off, len;
};

struct jobs_layout {
	bool found;		   /* the top level has a "jobs" array */
	size_t arr_start, arr_end; /* the array, '[' to after ']' */
	struct job_span *el;	   /* its elements */
	size_t n, cap;
};

static size_t skip_ws(const char *b, size_t n, size_t i)
{
	while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
		i++;
	return i;
}

/* The end of the string that starts at b[i] == '"' (after the closing quote), 0 if none. */
static size_t skip_string(const char *b, size_t n, size_t i)
{
	for (i++; i < n; i++) {
		if (b[i] == '\\')
			i++;
		else if (b[i] == '"')
			return i + 1;
	}
	return 0;
}

/*
 * The end of the value at b[i] (no leading blanks): after its closing bracket
 * or quote, or at the delimiter after a scalar; 0 if it does not end.
 */
static size_t skip_value(const char *b, size_t n, size_t i)
{
	size_t depth = 0;

	while (i < n) {
		char c = b[i];

		if (c == '"') {
			i = skip_string(b, n, i);
			if (!i || depth == 0)
				return i;
			continue;
		}
		if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (depth == 0)
				return i; /* the enclosing container's end */
			if (--depth == 0)
				return i + 1;
		} else if (depth == 0 &&
			   (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
			return i;
		}
		i++;
	}
	return depth == 0 ? i : 0;
}

/* Note the elements of the array at b[i] == '['; the end of the array, 0 if malformed. */
static size_t scan_array(const char *b, size_t n, size_t i, struct jobs_layout *L)
{
	i = skip_ws(b, n, i + 1);
	if (i < n && b[i] == ']')
		return i + 1;
	while (i < n) {
		size_t end = skip_value(b, n, i);

		if (!end || end == i)
			return 0;
		if (L->n == L->cap) {
			L->cap = L->cap ? 2 * L->cap : 64;
			L->el = srt_xrealloc(L->el, L->cap * sizeof(*L->el));
		}
		L->el[L->n].off = i;
		L->el[L->n].len = end - i;
		L->n++;
		i = skip_ws(b, n, end);
		if (i < n && b[i] == ']')
			return i + 1;
		if (i >= n || b[i] != ',')
			return 0;
		i = skip_ws(b, n, i + 1);
	}
	return 0;
}

/* Scan a reply: 0 with *L filled (found or not), -1 when it is not a JSON object. */
static int scan_jobs(const char *b, size_t n, struct jobs_layout *L)
{
	size_t i = skip_ws(b, n, 0);

	memset(L, 0, sizeof(*L));
	if (i >= n || b[i] != '{')
		return -1;
	i = skip_ws(b, n, i + 1);
	if (i < n && b[i] == '}')
		return skip_ws(b, n, i + 1) == n ? 0 : -1;
	while (i < n) {
		size_t key = i, end;
		bool is_jobs;

		if (b[i] != '"' || !(i = skip_string(b, n, i)))
			return -1;
		is_jobs = i - key == 6 && !memcmp(b + key, "\"jobs\"", 6);
		i = skip_ws(b, n, i);
		if (i >= n || b[i] != ':')
			return -1;
		i = skip_ws(b, n, i + 1);
		if (is_jobs && i < n && b[i] == '[') {
			if (L->found)
				return -1; /* two jobs[]: which would count? */
			L->found = true;
			L->arr_start = i;
			end = scan_array(b, n, i, L);
			L->arr_end = end;
		} else {
			end = skip_value(b, n, i);
		}
		if (!end || end == i)
			return -1;
		i = skip_ws(b, n, end);
		if (i < n && b[i] == '}')
			return skip_ws(b, n, i + 1) == n ? 0 : -1;
		if (i >= n || b[i] != ',')
			return -1;
		i = skip_ws(b, n, i + 1);
	}
	return -1;
}

/*
 * The common part of the job decoders: check the reply's status and
 * errors[] on the reply without its jobs' contents (*head: its JSON, with
 * jobs: []), and note where each job is (*L).  A reply that is not a JSON
 * object is checked as it is (for the status and a snippet), at most its
 * first SRT_SLURM_MAX_TREE bytes.
 */
static int jobs_reply(const struct srt_slurm_api *api, enum srt_slurm_op op,
		      const struct srt_slurm_reply *r, struct jobs_layout *L, json_t **head,
		      struct srt_error *err)
{
	struct srt_slurm_reply h = *r;
	struct srt_buf text;
	bool missing;
	int rc;

	*head = NULL;
	srt_buf_init(&text);
	if (!r->body || scan_jobs(r->body, r->len, L) != 0) {
		free(L->el);
		memset(L, 0, sizeof(*L));
		if (h.len > SRT_SLURM_MAX_TREE)
			h.len = SRT_SLURM_MAX_TREE;
		rc = srt_slurm_reply_check(api, op, &h, head, &missing, err);
		if (rc == 0 && r->len > 0)
			rc = srt_slurm_fail(
				err, SRT_SLURM_EPROTOCOL,
				"the reply (HTTP %ld, %zu bytes) is not one JSON object", r->status,
				r->len);
		goto out;
	}
	if (L->found) {
		srt_buf_append(&text, r->body, L->arr_start);
		srt_buf_puts(&text, "[]");
		srt_buf_append(&text, r->body + L->arr_end, r->len - L->arr_end);
		h.body = text.data;
		h.len = text.len;
	}
	if (h.len > SRT_SLURM_MAX_TREE) {
		rc = srt_slurm_fail(err, SRT_SLURM_EPROTOCOL,
				    "the reply (HTTP %ld) holds %zu bytes beside its jobs, more "
				    "than slurmrestd ever sends (%zu MiB); is this slurmrestd?",
				    r->status, h.len, SRT_SLURM_MAX_TREE >> 20);
		goto out;
	}
	rc = srt_slurm_reply_check(api, op, &h, head, &missing, err);
out:
	srt_buf_release(&text);
	if (rc != 0) {
		json_decref(*head);
		*head = NULL;
	}
	return rc;
}

/* jobs[i] of a scanned reply, parsed on its own.  NULL with err filled when it is not JSON. */
static json_t *job_at(const struct srt_slurm_reply *r, const struct jobs_layout *L, size_t i,
		      struct srt_error *err)
{
	json_error_t jerr;
	json_t *j;

	if (L->el[i].len > SRT_SLURM_MAX_JOB_JSON) {
		srt_slurm_fail(err, SRT_SLURM_EPROTOCOL,
			       "jobs[%zu] is %zu MiB of JSON, more than srtctl reads for one job "
			       "(%zu MiB)",
			       i, L->el[i].len >> 20, SRT_SLURM_MAX_JOB_JSON >> 20);
		return NULL;
	}
	j = json_loadb(r->body + L->el[i].off, L->el[i].len, 0, &jerr);
	if (!j)
		srt_slurm_fail(err, SRT_SLURM_EPROTOCOL,
			       "the reply (HTTP %ld) is not JSON: jobs[%zu]: %s at column %d",
			       r->status, i, jerr.text, jerr.column);
	return j;
}

int srt_slurm_decode_job(const struct srt_slurm_api *api, const struct srt_slurm_reply *r,
			 int64_t job_id, struct srt_job *out, struct srt_error *err)
{
	struct jobs_layout L;
	json_t *head = NULL, *j = NULL;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = jobs_reply(api, SRT_OP_GET_JOB, r, &L, &head, err);
	if (rc != 0)
		goto out;
	if (!L.found) {
		rc = srt_slurm_fail(err, SRT_SLURM_EPROTOCOL, "the job reply has no jobs[]");
		goto out;
	}
	for (i = 0; i < L.n; i++) {
		int64_t id;
		bool set;

		j = job_at(r, &L, i, err);
		if (!j) {
			rc = SRT_SLURM_EPROTOCOL;
			goto out;
		}
		if (json_is_object(j)) {
			if (srt_slurm_json_num(j, "job_id", "job", &id, &set, NULL, err) != 0) {
				rc = SRT_SLURM_EPROTOCOL;
				goto out;
			}
			if (set && (id == job_id || job_id <= 0)) {
				rc = decode_one(api, j, out, err);
				goto out;
			}
		}
		json_decref(j);
		j = NULL;
	}
	rc = srt_slurm_fail(err, SRT_SLURM_EGONE,
			    "slurmctld does not know this job (the reply lists no job %lld): it "
			    "ended and was purged (MinJobAge), or never existed",
			    (long long)job_id);
out:
	json_decref(j);
	json_decref(head);
	free(L.el);
	return rc;
}

int srt_slurm_decode_jobs(const struct srt_slurm_api *api, const struct srt_slurm_reply *r,
			  struct srt_job_list *out, struct srt_error *err)
{
	struct jobs_layout L;
	json_t *head = NULL, *warns, *j;
	bool set;
	int64_t lu;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&L, 0, sizeof(L));
	if (r->status == 304) {
		out->unchanged = true;
		return 0;
	}
	rc = jobs_reply(api, SRT_OP_LIST_JOBS, r, &L, &head, err);
	if (rc != 0)
		goto out;
	if (srt_slurm_json_num(head, "last_update", "the jobs reply", &lu, &set, NULL, err) != 0) {
		rc = SRT_SLURM_EPROTOCOL;
		goto out;
	}
	if (set)
		out->last_update = lu;
	if (!L.found) {
		rc = srt_slurm_fail(err, SRT_SLURM_EPROTOCOL, "the jobs reply has no jobs[]");
		goto out;
	}
	if (L.n == 0) {
		/* v0.0.42: 200, jobs:[], warning "No job changes since update_time[...]". */
		warns = json_object_get(head, "warnings");
		json_array_foreach(warns, i, j)
		{
			const char *d = obj_str(j, "description");

			if (d && strstr(d, "No job changes"))
				out->unchanged = true;
		}
		goto out;
	}
	out->jobs = srt_xcalloc(L.n, sizeof(*out->jobs));
	for (i = 0; i < L.n; i++) {
		j = job_at(r, &L, i, err);
		rc = j ? decode_one(api, j, &out->jobs[out->n], err) : SRT_SLURM_EPROTOCOL;
		json_decref(j);
		if (rc != 0) {
			if (j)
				srt_error_prefix(err, "jobs[%zu]", i);
			srt_job_list_release(out);
			goto out;
		}
		out->n++;
	}
out:
	json_decref(head);
	free(L.el);
	return rc;
}

int srt_slurm_decode_kill(const struct srt_slurm_api *api, const struct srt_slurm_reply *r,
			  struct srt_error *err)
{
	json_t *root = NULL, *status, *st;
	bool missing;
	size_t i;
	int rc;

	rc = srt_slurm_reply_check(api, SRT_OP_KILL, r, &root, &missing, err);
	if (rc != 0)
		goto out;
	/* v0.0.42+: per-job results in status[]; errors[] stays empty. */
	status = json_object_get(root, "status");
	if (!json_is_array(status))
		goto out;
	json_array_foreach(status, i, st)
	{
		json_t *e = json_object_get(st, "error");
		int64_t code = 0;
		const char *text;
		struct errinfo ei;

		if (!json_is_object(e) || plain_num(json_object_get(e, "code"), &code) != 0 ||
		    code == 0)
			continue;
		if (code == 2021) /* ESLURM_ALREADY_DONE: it ended already; fine */
			continue;
		text = obj_str(e, "string");
		if (!text || !*text)
			text = obj_str(e, "message");
		memset(&ei, 0, sizeof(ei));
		srt_buf_init(&ei.text);
		ei.nums[0] = (int)code;
		ei.n = 1;
		srt_buf_putc(&ei.text, '\'');
		put_clean(&ei.text, text ? text : "no description", 200);
		srt_buf_printf(&ei.text, "' (Slurm error %lld)", (long long)code);
		rc = classify(api, SRT_OP_KILL, r, &ei, SRT_SLURM_ESERVER, err);
		srt_buf_release(&ei.text);
		goto out;
	}
out:
	json_decref(root);
	return rc;
}

void srt_slurm_jobs_path(const struct srt_slurm_api *api, int64_t changed_since, char *buf,
			 size_t n)
{
	const char *jobs = api->minor == 38 ? "jobs" : "jobs/";

	if (changed_since <= 0)
		snprintf(buf, n, "%s", jobs);
	else if (api->minor == 40 || api->minor == 41)
		/* 24.11's v0.0.40/41 parse update_time as a Slurm time string: "uts<N>" is N. */
		snprintf(buf, n, "%s?update_time=uts%lld", jobs, (long long)changed_since);
	else
		snprintf(buf, n, "%s?update_time=%lld", jobs, (long long)changed_since);
}

/* ---- the submit body --------------------------------------------------------------- */

int srt_slurm_encode_submit(const struct srt_slurm_api *api, const struct srt_job_spec *spec,
			    struct srt_buf *out, struct srt_error *err)
{
	json_t *extra = NULL, *body = NULL;
	json_error_t jerr;
	char *text = NULL;
	int rc;

	if (!spec->script || !*spec->script)
		return srt_slurm_fail(err, SRT_SLURM_EINVAL, "the job has no batch script");
	if (strncmp(spec->script, "#!", 2) != 0)
		return srt_slurm_fail(err, SRT_SLURM_EINVAL,
				      "the batch script must start with #! (e.g. #!/bin/bash); "
				      "Slurm accepts it otherwise but the job fails to start");
	if (spec->nodes < 0 || spec->time_limit < 0)
		return srt_slurm_fail(err, SRT_SLURM_EINVAL,
				      "nodes and time_limit must not be negative");
	for (size_t i = 0; i < spec->nenv; i++) {
		const char *kv = spec->env[i];
		const char *eq = kv ? strchr(kv, '=') : NULL;
		char name[256];

		if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(name))
			return srt_slurm_fail(err, SRT_SLURM_EINVAL,
					      "environment entry %zu is not NAME=value", i);
		memcpy(name, kv, (size_t)(eq - kv));
		name[eq - kv] = '\0';
		if (!srt_is_env_name(name))
			return srt_slurm_fail(err, SRT_SLURM_EINVAL,
					      "environment entry %zu: '%s' is not a valid name", i,
					      name);
	}
	if (spec->extra_json && *spec->extra_json) {
		extra = json_loads(spec->extra_json, 0, &jerr);
		if (!extra || !json_is_object(extra)) {
			json_decref(extra);
			return srt_slurm_fail(err, SRT_SLURM_EINVAL,
					      "extra job options must be a JSON object (%s)",
					      extra ? "not an object" : jerr.text);
		}
	}
	if (api->minor == 38)
		rc = srt_slurm_v38_submit_body(spec, extra, &body, err);
	else
		rc = srt_slurm_v40_submit_body(api, spec, extra, &body, err);
	json_decref(extra);
	if (rc == 0 && spec->ndirectives)
		rc = srt_slurm_directives_encode(api, spec->directives, spec->ndirectives,
						 json_object_get(body, "job"), err);
	if (rc != 0) {
		json_decref(body);
		return rc;
	}
	text = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	if (!text)
		return srt_slurm_fail(err, SRT_SLURM_EINVAL,
				      "cannot encode the job as JSON (is every string UTF-8?)");
	srt_buf_reset(out);
	srt_buf_puts(out, text);
	free(text);
	return 0;
}

int srt_slurm_submit_body(const char *version, const struct srt_job_spec *spec, char **json,
			  struct srt_error *err)
{
	const struct srt_slurm_api *api = srt_slurm_api_find(version);
	struct srt_buf b;
	int rc;

	*json = NULL;
	if (!api)
		return srt_slurm_fail(err, SRT_SLURM_EINVAL, "API version '%s' is not supported",
				      version ? version : "");
	srt_buf_init(&b);
	rc = srt_slurm_encode_submit(api, spec, &b, err);
	if (rc == 0)
		*json = srt_buf_detach(&b);
	srt_buf_release(&b);
	return rc;
}
