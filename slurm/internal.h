/*
 * slurm/internal.h: what the files of slurm/ share, and what the unit tests
 * reach past the public interface for.  Not for other modules.
 *
 *   restd.c      the public calls: transport (libcurl), version choice, stats
 *   proto.c      replies: HTTP status and errors[] -> result code + message,
 *                JSON field readers, and the per-operation decoders
 *   restd_v38.c  what only v0.0.38 (Slurm 22.05) does: request bodies, job shape
 *   restd_v40.c  the same for v0.0.40 to v0.0.44 (data_parser generation)
 *   directives.c sbatch directives -> job description fields, per version
 *   job.c        the job model: state names and flags, host lists, release
 *   auth.c       the JWT: sources, exp/sun claims, refresh
 *   client.c     the client interface (client.h) and its slurmrestd ops
 *   fake.c       the in-memory fake behind the same interface (fake.h)
 *
 * The decoders are pure functions of (API version, HTTP status, body), so
 * tests can feed them recorded and spec-shaped replies.
 */
#ifndef SRT_SLURM_INTERNAL_H
#define SRT_SLURM_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "slurm/slurm.h"
#include "util/buf.h"

/* One API version: the table lives in proto.c. */
struct srt_slurm_api {
	const char *version; /* "v0.0.42" */
	int minor;	     /* 38, 40, 41, ... */
};

/* The supported versions, newest first (probe order), ending with {NULL, 0}. */
extern const struct srt_slurm_api srt_slurm_apis[];

/* "v0.0.42" or "0.0.42" -> its entry, NULL if unsupported. */
const struct srt_slurm_api *srt_slurm_api_find(const char *version);

/* What a request was for: decides how errors map (2017 is GONE only for a job). */
enum srt_slurm_op {
	SRT_OP_PING,
	SRT_OP_DIAG,
	SRT_OP_SUBMIT,
	SRT_OP_GET_JOB,
	SRT_OP_LIST_JOBS,
	SRT_OP_KILL,
};

/* A reply as the transport received it. */
struct srt_slurm_reply {
	long status;	  /* HTTP status */
	const char *body; /* not NUL-terminated necessarily; may be NULL when len is 0 */
	size_t len;
	/*
	 * Context for v0.0.38's ambiguous "HTTP 500, error -1": a rejected
	 * token is answered at once, a slurmctld that does not answer after
	 * MessageTimeout (9 s and more).  0/false when unknown.
	 */
	int64_t elapsed_ms;
	bool token_expired; /* the token sent was past its exp claim by our clock */
};

/*
 * The largest reply srtctl reads (bigger ones are refused, at once when the
 * Content-Length says so).  srtctl lists every job slurmctld holds (the
 * controller's poll, find_jobs), so this is sized for the listing of a large
 * cluster: 100,000 jobs (ten times Slurm's default MaxJobCount) at up to
 * 8 KB each (a one-node job is 2.4-2.8 KB in v0.0.38 and 5.5-6.2 KB in
 * v0.0.40+, measured on real replies; the rest is room for longer strings
 * and the per-core allocation map of multi-node jobs).  docs/slurm-client.md
 * has the figures.
 */
#define SRT_SLURM_MAX_REPLY ((size_t)768 << 20)
/*
 * jansson's tree of a reply costs about 9 to 11 times its text, so no reply
 * is parsed whole unless it is this small: a job listing is parsed one job
 * at a time, and all but its jobs[] must fit here; one job's JSON may take
 * up to SRT_SLURM_MAX_JOB_JSON (a job on ~5,000 nodes of 128 cores, by
 * v0.0.40+'s per-core map).
 */
#define SRT_SLURM_MAX_TREE ((size_t)4 << 20)
#define SRT_SLURM_MAX_JOB_JSON ((size_t)32 << 20)

/* Below this, v0.0.38's "500, error -1" is read as a rejected token. */
#define SRT_SLURM_V38_AUTH_FAST_MS 3000

/*
 * The common part of every decoder: map the HTTP status and errors[] to a
 * result code and message, and hand back the parsed JSON (*root, NULL when
 * the body is not JSON; the caller json_decref()s it) for the decoders to
 * read data from, which they do even on failure (meta, job ids).
 * *route_missing is set when slurmrestd does not serve the path at all
 * (HTTP 404 with its plain-text page), a sign that the API version is gone.
 */
int srt_slurm_reply_check(const struct srt_slurm_api *api, enum srt_slurm_op op,
			  const struct srt_slurm_reply *r, json_t **root, bool *route_missing,
			  struct srt_error *err);

/* Per operation: a reply -> result code + data.  See slurm.h for the meanings. */
int srt_slurm_decode_ping(const struct srt_slurm_api *api, const struct srt_slurm_reply *r,
			  struct srt_slurm_info *out, struct srt_error *err);
int srt_slurm_decode_submit(const struct srt_slurm_api *api, const struct srt_slurm_reply *r,
			    int64_t *job_id, struct srt_error *err);
int srt_slurm_decode_job(const struct srt_slurm_api *api, const struct srt_slurm_reply *r,
			 int64_t job_id, struct srt_job *out, struct srt_error *err);
int srt_slurm_decode_jobs(const struct srt_slurm_api *api, const struct srt_slurm_reply *r,
			  struct srt_job_list *out, struct srt_error *err);
int srt_slurm_decode_kill(const struct srt_slurm_api *api, const struct srt_slurm_reply *r,
			  struct srt_error *err);

/* The JSON body of POST job/submit for this version.  EINVAL on a bad spec. */
int srt_slurm_encode_submit(const struct srt_slurm_api *api, const struct srt_job_spec *spec,
			    struct srt_buf *out, struct srt_error *err);

/* Fill err from fmt and return rc (a value of enum srt_slurm_rc). */
int srt_slurm_fail(struct srt_error *err, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The path of GET jobs: "jobs[?update_time=...]".  v0.0.38 and v0.0.42+ take
 * Unix seconds; Slurm 24.11's v0.0.40 and v0.0.41 refuse those ("Parsing of
 * N for timestamp failed", error 9202) and take Slurm's "uts<N>".
 */
void srt_slurm_jobs_path(const struct srt_slurm_api *api, int64_t changed_since, char *buf,
			 size_t n);

/*
 * Overwrite secrets in a reply body, in place and keeping its length (so
 * JSON stays JSON): every occurrence of `token` (the token sent; NULL or ""
 * for none) and every run of base64url characters and dots that starts
 * with "eyJ" (not inside another such run, though after a '=') and holds a
 * dot at least 10 characters in (anything that looks like a JWT) become '*'.
 * Applied to every reply before it is read, so nothing quoted from a reply
 * (messages, events, job fields) can carry a token.  Returns the number of
 * runs overwritten.
 */
size_t srt_slurm_redact(char *buf, size_t len, const char *token);

/*
 * Whether a value may go into an HTTP header srtctl sends: non-empty,
 * printable ASCII without blanks (0x21-0x7e).  CR, LF or any other control
 * character could end the header and add others.
 */
bool srt_slurm_header_value_ok(const char *v);

/* For tests: read at most `bytes` of a reply instead of SRT_SLURM_MAX_REPLY. */
void srt_slurm_set_max_reply(struct srt_slurm *s, size_t bytes);

/* Signal number -> the name slurmrestd takes ("USR1"), NULL if not allowed. */
const char *srt_slurm_signal_name(int sig);

/* ---- per-version parts (restd_v38.c, restd_v40.c) ---- */

int srt_slurm_v38_job(json_t *j, struct srt_job *out, struct srt_error *err);
int srt_slurm_v38_submit_body(const struct srt_job_spec *spec, json_t *extra, json_t **out,
			      struct srt_error *err);
int srt_slurm_v40_job(const struct srt_slurm_api *api, json_t *j, struct srt_job *out,
		      struct srt_error *err);
int srt_slurm_v40_submit_body(const struct srt_slurm_api *api, const struct srt_job_spec *spec,
			      json_t *extra, json_t **out, struct srt_error *err);

/*
 * Add the directives to a job description object `job` for this API
 * version (directives.c).  EINVAL naming the first one that is invalid or
 * that the version has no field for (and is not optional).
 */
int srt_slurm_directives_encode(const struct srt_slurm_api *api,
				const struct srt_slurm_directive *dv, size_t n, json_t *job,
				struct srt_error *err);

/* ---- JSON field readers (proto.c) ----
 * Absent or null fields give the default; a field of the wrong type is
 * EPROTOCOL with a message naming it.  `what` names the object ("job 42").
 */
int srt_slurm_json_str(json_t *obj, const char *key, const char *what, char **out,
		       struct srt_error *err);
/*
 * A number: a JSON integer, a real, a string of digits, or a v0.0.40+
 * number struct {set, infinite, number}.  *set is false when absent, null
 * or unset; *infinite when the struct says so.
 */
int srt_slurm_json_num(json_t *obj, const char *key, const char *what, int64_t *out, bool *set,
		       bool *infinite, struct srt_error *err);
/* Set obj[key] to the string val (nothing when val is NULL); EINVAL when it is not UTF-8. */
int srt_slurm_json_put_str(json_t *obj, const char *key, const char *val, struct srt_error *err);
int srt_slurm_json_bool(json_t *obj, const char *key, const char *what, bool *out, bool *set,
			struct srt_error *err);

/* ---- the job model (job.c) ---- */

/* Fill the state of *j from Slurm's state words (one string in v0.0.38, an array since). */
void srt_job_set_state(struct srt_job *j, const char *const *words, size_t n, const char *reason);
/* A v0.0.38 wait status (768 = exit 3) -> exit_code / signal. */
void srt_job_set_wait_status(struct srt_job *j, int64_t status);
/* Final clean-up of a decoded job: empty strings for NULL, times/exit codes for its state. */
void srt_job_normalise(struct srt_job *j);

/* ---- auth (auth.c) ---- */

struct srt_slurm_auth;

/* Validate and load the token source (reads the file / runs the command now). */
int srt_slurm_auth_new(struct srt_slurm_auth **out, const struct srt_slurm_token_source *src,
		       const struct srt_clock *clock, struct srt_error *err);
void srt_slurm_auth_free(struct srt_slurm_auth *a);
/* Is there a token at all? */
bool srt_slurm_auth_enabled(const struct srt_slurm_auth *a);
/*
 * The token to send now, refreshed from its file or command when within the
 * refresh margin of its exp claim.  *token stays owned by `a`.
 */
int srt_slurm_auth_token(struct srt_slurm_auth *a, const char **token, struct srt_error *err);
/*
 * After slurmrestd rejected the token: load it again from its file or
 * command.  Returns 1 when that gave a different token (worth one retry), 0
 * otherwise.
 */
int srt_slurm_auth_reload(struct srt_slurm_auth *a);
/* The token's "sun" claim ("" if none) and exp claim (0 if none). */
const char *srt_slurm_auth_user(const struct srt_slurm_auth *a);
int64_t srt_slurm_auth_exp(const struct srt_slurm_auth *a);
/* How the source is called in messages ("$SLURM_JWT", "token file /x"). */
const char *srt_slurm_auth_origin(const struct srt_slurm_auth *a);

/*
 * Decode a JWT's payload claims without checking the signature: exp and
 * iat (0 when absent) and sun (malloc'd, NULL when absent).  -1 when the
 * token is not three base64url parts with a JSON object in the middle.
 */
int srt_jwt_claims(const char *token, int64_t *exp, int64_t *iat, char **sun);
/* Seconds before exp at which a token is renewed: a tenth of its life, 30 s to 300 s. */
int64_t srt_jwt_refresh_margin(int64_t iat, int64_t exp);

#endif
