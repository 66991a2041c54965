/*
 * slurm/slurm.h: the SLURM client.  srtctl's only view of SLURM.
 *
 * A struct srt_slurm talks to one slurmrestd, over http(s)://host:port or a
 * unix socket, and hides its API version: jobs come back in one normalised
 * model (struct srt_job) whether the server speaks v0.0.38 (Slurm 22.05,
 * 23.02, 23.11) or v0.0.40 to v0.0.44 (Slurm 23.11 to 25.11).  The API version
 * is the newest one the server serves, chosen at first contact, unless the
 * configuration pins one.
 *
 * Every call that talks to slurmrestd returns SRT_SLURM_OK (0) or one of the
 * negative codes of enum srt_slurm_rc, and on failure fills the caller's
 * struct srt_error with a message a user can act on.  The codes are what a
 * caller branches on; the message is for people.  The rule for the
 * controller: only SRT_SLURM_OK and SRT_SLURM_EGONE say something about a
 * job, and EINVAL and EREJECTED that the request was not carried out.  Every
 * other failure means "unknown": the job may exist, may run, may have been
 * submitted.  Never resubmit or declare a job failed on them.
 *
 * The JWT is never printed, logged, or put in an error message.
 *
 * An instance is not thread-safe; use one per thread.  It keeps its HTTP
 * connection open between calls.
 */
#ifndef SRT_SLURM_SLURM_H
#define SRT_SLURM_SLURM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/clock.h"
#include "util/err.h"

struct srt_slurm;

/* Result codes.  Negative, so "rc < 0" is "failed". */
enum srt_slurm_rc {
	SRT_SLURM_OK = 0,
	/* A bad argument or configuration: nothing was sent. */
	SRT_SLURM_EINVAL = -1,
	/*
	 * The job is not known to slurmctld: it finished and was purged after
	 * MinJobAge, or never existed.  Distinct from failed: read its outcome
	 * elsewhere (the run directory), or record it as "gone".
	 */
	SRT_SLURM_EGONE = -2,
	/* No connection: refused, no such host or socket, or dropped mid-call. */
	SRT_SLURM_EUNREACHABLE = -3,
	/* No answer in time (ours, or slurmrestd's to slurmctld).  Unknown, not failed. */
	SRT_SLURM_ETIMEOUT = -4,
	/* No, bad or expired token (v0.0.38: HTTP 500 with misleading text; v0.0.40+: 401/511). */
	SRT_SLURM_EAUTH = -5,
	/* slurmrestd or slurmctld failed (HTTP 5xx, or errors[] inside a 200).  Try again later. */
	SRT_SLURM_ESERVER = -6,
	/* slurmctld refused the request itself (bad partition, bad script, ...).  Do not retry as is. */
	SRT_SLURM_EREJECTED = -7,
	/* A reply that is not what the API version promises (not JSON, wrong types, no job id). */
	SRT_SLURM_EPROTOCOL = -8,
	/* The TLS handshake or the certificate check failed. */
	SRT_SLURM_ETLS = -9,
};

/* "OK", "GONE", "UNREACHABLE", ... ("?" for anything else). */
const char *srt_slurm_rc_name(int rc);

/* ---- configuration ---------------------------------------------------------- */

/*
 * Where the JWT comes from; at most one of token, token_file and
 * token_command.  None: no auth headers are sent (a unix socket served with
 * rest_auth/local needs none).  A file or command is read again shortly before
 * the token's exp claim, and once after slurmrestd rejects it.
 */
struct srt_slurm_token_source {
	const char *token;		  /* the JWT itself (e.g. from $SLURM_JWT) */
	const char *token_file;		  /* a file holding the JWT, or SLURM_JWT=<jwt> */
	const char *const *token_command; /* argv printing the JWT (e.g. scontrol token) */
	size_t token_command_n;
	/* What to call the source in messages ("$SLURM_JWT", "slurmrestd.token_file"). */
	const char *origin;
	/* How long the token command may run, in ms; 0 means 20 s.  Past it (or
	 * when it prints more than 64 KiB) its process group is killed and reaped. */
	int token_command_timeout_ms;
};

struct srt_slurm_config {
	/* http://host:port, https://host:port[/prefix], unix:/path, or /path (a unix socket). */
	const char *url;
	/* "v0.0.42" (or "0.0.42") pins the API version; NULL or "" picks the newest served. */
	const char *api_version;
	/*
	 * X-SLURM-USER-NAME.  NULL: the token's "sun" claim over TCP; over a
	 * unix socket, no user header (rest_auth/local refuses one).
	 */
	const char *user;
	struct srt_slurm_token_source auth;
	int timeout_ms;		       /* whole request; 0 = 30 s */
	int connect_timeout_ms;	       /* 0 = min(timeout, 10 s) */
	const char *ca_file;	       /* PEM bundle for https; NULL = the system's */
	bool insecure;		       /* https without certificate checks (testing only) */
	const struct srt_clock *clock; /* for token expiry; NULL = system clock */
};

/*
 * Make a client.  Nothing is sent yet: the API version is chosen at first
 * contact.  The config's strings are copied.  Fails with SRT_SLURM_EINVAL on a
 * bad URL, an unknown pinned version or an unusable token source (a token
 * file that cannot be read, a command that fails or prints no token).
 * Free with srt_slurm_free().
 */
int srt_slurm_new(struct srt_slurm **out, const struct srt_slurm_config *cfg,
		  struct srt_error *err);
void srt_slurm_free(struct srt_slurm *s);

/*
 * The URL as configured, with the password of a user:password@ masked
 * (user:***@), for messages and `srtctl doctor`.
 */
const char *srt_slurm_url(const struct srt_slurm *s);
/*
 * `url` with the password of its user:password@ (if any) replaced by "***",
 * for printing: "http://ci:***@head:6820".  Anything else is copied as is.
 * Caller frees.
 */
char *srt_slurm_url_redact(const char *url);
/* The API version in use ("v0.0.42"), or NULL before first contact. */
const char *srt_slurm_api_version(const struct srt_slurm *s);
/* The API versions this client speaks, newest first, NULL-terminated. */
const char *const *srt_slurm_supported_versions(void);

/* ---- ping ---------------------------------------------------------------------- */

struct srt_slurm_info {
	char api_version[16]; /* the version used, "" if none could be chosen */
	bool api_version_pinned;
	char release[32];     /* Slurm release from the reply's meta ("22.05.8"), "" if unknown */
	char cluster[64];     /* cluster name (24.11+ meta), "" if unknown */
	char controller[128]; /* slurmctld host that answered the ping */
	bool controller_up;   /* slurmctld answered */
	bool auth_ok;	      /* the token (or local auth) was accepted */
	char user[64];	      /* the user we authenticate as, "" if none */
	int64_t token_exp;    /* the token's exp claim (Unix s), 0 if unknown or no token */
};

/*
 * Ask slurmrestd to ping slurmctld.  Fills *out as far as it got (version
 * and release also when auth fails), and returns OK only when slurmctld is
 * up and the credentials work; EAUTH when the token is rejected; ESERVER
 * when slurmctld is down.
 */
int srt_slurm_ping(struct srt_slurm *s, struct srt_slurm_info *out, struct srt_error *err);

/* ---- jobs ------------------------------------------------------------------- */

enum srt_job_state {
	SRT_JOB_UNKNOWN_STATE = 0,
	SRT_JOB_PENDING,
	SRT_JOB_RUNNING,
	SRT_JOB_SUSPENDED,
	SRT_JOB_COMPLETING, /* ended; processes are still being cleaned up */
	SRT_JOB_COMPLETED,
	SRT_JOB_FAILED,
	SRT_JOB_CANCELLED,
	SRT_JOB_TIMEOUT,
	SRT_JOB_NODE_FAIL,
	SRT_JOB_PREEMPTED,
	SRT_JOB_OUT_OF_MEMORY,
	SRT_JOB_BOOT_FAIL,
	SRT_JOB_DEADLINE,
	SRT_JOB_REQUEUED, /* going back to PENDING */
	SRT_JOB_STATE_COUNT,
};

/* Flags Slurm reports beside the state (srt_job.flags). */
enum srt_job_flag {
	SRT_JOB_F_COMPLETING = 1u << 0,
	SRT_JOB_F_CONFIGURING = 1u << 1,
	SRT_JOB_F_REQUEUED = 1u << 2,
	SRT_JOB_F_REQUEUE_HOLD = 1u << 3,
	SRT_JOB_F_REQUEUE_FED = 1u << 4,
	SRT_JOB_F_SPECIAL_EXIT = 1u << 5,
	SRT_JOB_F_RESIZING = 1u << 6,
	SRT_JOB_F_STOPPED = 1u << 7,
	SRT_JOB_F_SIGNALING = 1u << 8,
	SRT_JOB_F_STAGE_OUT = 1u << 9,
	SRT_JOB_F_LAUNCH_FAILED = 1u << 10,
	SRT_JOB_F_RECONFIG_FAIL = 1u << 11,
	SRT_JOB_F_POWER_UP_NODE = 1u << 12,
	SRT_JOB_F_REVOKED = 1u << 13,
	SRT_JOB_F_RESV_DEL_HOLD = 1u << 14,
	SRT_JOB_F_EXPEDITING = 1u << 15,
	SRT_JOB_F_HELD = 1u << 16, /* held (reason JobHeldUser or JobHeldAdmin) */
};

/* "PENDING", "RUNNING", ... as Slurm spells them; "UNKNOWN" for SRT_JOB_UNKNOWN_STATE. */
const char *srt_job_state_name(enum srt_job_state st);
/* Has the job ended for good (COMPLETED, FAILED, CANCELLED, TIMEOUT, ...)? */
bool srt_job_state_is_final(enum srt_job_state st);

/*
 * A job as slurmctld reports it.  Strings are never NULL ("" when Slurm
 * gave none).  Times are Unix seconds, 0 when not (yet) known.
 */
/* The latest time a job's listing may carry (seconds: 9999-12-31T23:59:59Z). */
#define SRT_JOB_TIME_MAX INT64_C(253402300799)

struct srt_job {
	int64_t id;
	char *name;
	char *comment;
	char *user;
	char *partition;
	char *account;
	enum srt_job_state state;      /* COMPLETING or REQUEUED override the base state */
	enum srt_job_state base_state; /* the state without flags; UNKNOWN if Slurm hid it */
	unsigned flags;		       /* enum srt_job_flag */
	char *reason; /* "None", "Priority", "JobHeldUser", "NonZeroExitCode", "TimeLimit", ... */
	char *description; /* state_description, often "" */
	/*
	 * How it ended, for final states: exit_code 0..255 when the batch
	 * script exited (exit 3 -> 3), -1 when it was killed by a signal
	 * (then `signal` says which) or has not ended.
	 */
	int exit_code;
	int signal; /* 0 = none */
	char *nodes; /* Slurm's node list ("node[1-3]"); "" while pending.  See srt_slurm_hostlist_expand(). */
	int64_t node_count;
	int64_t submit_time, start_time,
		end_time; /* s, 0..SRT_JOB_TIME_MAX: start 0 until it starts, end 0 until it ends */
	int64_t time_limit; /* minutes; -1 = none */
	char *batch_host;
	char *cwd;
	char *stdout_path, *stderr_path; /* as Slurm reports them (v0.0.38 keeps %j unexpanded) */
};

void srt_job_release(struct srt_job *j);

struct srt_job_list {
	struct srt_job *jobs;
	size_t n;
	/*
	 * Nothing changed since `changed_since`: `jobs` is empty, and that
	 * says nothing about which jobs exist.
	 */
	bool unchanged;
	/*
	 * Pass this as `changed_since` next time: one second before slurmctld's
	 * time of this answer when the API reports it (v0.0.40+), else one
	 * second before this request was sent, by our clock (v0.0.38: keep
	 * the clocks in sync, and list without changed_since now and then).
	 */
	int64_t last_update;
};

void srt_job_list_release(struct srt_job_list *l);

/*
 * A job option as sbatch takes it (--name=value), sent as the job
 * description fields of the API version in use: slurmrestd does not read
 * #SBATCH lines.  The options srtctl can send, and their fields per version,
 * are one table in slurm/directives.c (docs/recipe-reference.md, "Job
 * directives").
 */
struct srt_slurm_directive {
	const char *name;  /* long or short option, without dashes: "cpus-per-gpu", "c" */
	const char *value; /* "" (or NULL) for an option without a value (requeue) */
	/*
	 * Leave it out, without an error, when the API version in use has no
	 * field for it (the cluster config's segment switch); otherwise such a
	 * directive fails the submission with EINVAL.
	 */
	bool optional;
};

/*
 * Whether srtctl can send the directive `name` (long or short, leading
 * dashes ignored) with `value` through some API version it speaks, and
 * whether the value has the form sbatch takes (a count, a memory size with
 * K/M/G/T, a GPU count "[type:]N", ...).  0 with *canon set to the long
 * name and *group to the directives it excludes (one of "mem",
 * "mem-per-cpu" or "mem-per-gpu" per job: group "mem/mem-per-cpu/mem-per-gpu";
 * otherwise its own name); either may be NULL.  EINVAL with a message naming
 * the directive otherwise.  Whether the API version in use has a field for
 * it is known only at submission (srt_slurm_submit).
 */
int srt_slurm_directive_check(const char *name, const char *value, const char **canon,
			      const char **group, struct srt_error *err);

/* What to submit.  Only `script` is required. */
struct srt_job_spec {
	const char *name;    /* the caller's deterministic job name */
	const char *comment; /* the caller's tag, e.g. "srtctl:<run-uid>:<attempt>" */
	const char *script;  /* the batch script, starting with #! */
	const char *partition;
	const char *account;
	int nodes;	 /* 0 = Slurm's default */
	int time_limit;	 /* minutes; 0 = the partition's default */
	const char *cwd; /* working directory (send one: the default is slurmrestd's cwd) */
	const char *stdout_path, *stderr_path; /* absolute; %j is the job id */
	/*
	 * The job's whole environment, "NAME=value" each: a REST job inherits
	 * nothing.  Empty: PATH=/usr/bin:/bin (slurmrestd refuses none).
	 */
	const char *const *env;
	size_t nenv;
	bool hold; /* submit held (released by an admin or `scontrol release`) */
	/*
	 * The nodes are the job's alone (sbatch --exclusive): "exclusive":
	 * "exclusive" in v0.0.38 (Slurm 22.05 refuses the "true" its OpenAPI
	 * document lists: "Invalid exclusive specification"), "shared": ["none"]
	 * from v0.0.40 on (v0.0.42 has no "exclusive").
	 */
	bool exclusive;
	/*
	 * A JSON object whose members are added to the job description as is,
	 * for options this struct does not name (e.g. {"tasks_per_node": 1}).
	 * Their names and types follow the server's API version.
	 */
	const char *extra_json;
	/*
	 * More job options, as sbatch directives (see struct
	 * srt_slurm_directive); applied after extra_json.  A directive the API
	 * version in use has no field for fails the submission with EINVAL
	 * naming it and the version, unless it is optional.
	 */
	const struct srt_slurm_directive *directives;
	size_t ndirectives;
};

/*
 * Submit a batch job.  OK with *job_id set: the job exists.  A reply that
 * carries a job id is OK even when it also carries errors (Slurm 22.05 says
 * "Job is in held state" for a held job); err->msg then holds that text as
 * a notice worth logging (empty otherwise).  On ETIMEOUT, EUNREACHABLE and
 * ESERVER the job may or may not exist: look for it by its comment
 * (srt_slurm_find_jobs) before submitting again.
 */
int srt_slurm_submit(struct srt_slurm *s, const struct srt_job_spec *spec, int64_t *job_id,
		     struct srt_error *err);

/*
 * The JSON body srt_slurm_submit() would POST to job/submit for `spec` in
 * API version `version` ("v0.0.42"), for showing a job as it will be sent
 * (srtctl dry-run).  0 with *json (caller frees) set, or EINVAL as submit.
 */
int srt_slurm_submit_body(const char *version, const struct srt_job_spec *spec, char **json,
			  struct srt_error *err);

/* Read one job.  EGONE when slurmctld does not know it (purged after MinJobAge). */
int srt_slurm_get_job(struct srt_slurm *s, int64_t job_id, struct srt_job *out,
		      struct srt_error *err);

/*
 * Every job slurmctld holds, in one request.  With changed_since > 0 (Unix
 * s), slurmctld answers "unchanged" when no job changed since then, and
 * all jobs otherwise (it does not filter).  Release *out in every case.
 */
int srt_slurm_list_jobs(struct srt_slurm *s, int64_t changed_since, struct srt_job_list *out,
			struct srt_error *err);

/*
 * The jobs whose comment is `comment` and whose name is `name` (either may
 * be NULL to match any), found by listing all jobs.  How the controller
 * finds its jobs again after a crash.  OK with n == 0 when none matches.
 */
int srt_slurm_find_jobs(struct srt_slurm *s, const char *comment, const char *name,
			struct srt_job_list *out, struct srt_error *err);

/*
 * Cancel a job (SIGKILL to all its processes, as scancel).  Cancelling a job
 * that already ended is OK.  EGONE when slurmctld does not know the job
 * (v0.0.40 and v0.0.41 do not say so and return OK).
 */
int srt_slurm_cancel(struct srt_slurm *s, int64_t job_id, struct srt_error *err);

/*
 * Send signal `sig` (SIGHUP, SIGINT, SIGQUIT, SIGABRT, SIGKILL, SIGALRM,
 * SIGTERM, SIGUSR1, SIGUSR2, SIGURG, SIGCONT, SIGSTOP, SIGTSTP, SIGTTIN or
 * SIGTTOU) to the job's processes, the batch script included; the job goes
 * on unless they exit.  EINVAL for any other signal.  Otherwise as cancel.
 */
int srt_slurm_signal(struct srt_slurm *s, int64_t job_id, int sig, struct srt_error *err);

/* ---- accounting ------------------------------------------------------------- */

struct srt_slurm_stats {
	uint64_t requests; /* HTTP requests sent, version probes included */
	uint64_t failures; /* requests that did not end in a usable reply */
	uint64_t bytes_received;
	uint64_t usec; /* wall time spent in requests */
};

/* Counters since srt_slurm_new(), so the controller can report calls per pass. */
void srt_slurm_stats(const struct srt_slurm *s, struct srt_slurm_stats *out);

/* ---- helpers ------------------------------------------------------------------ */

/*
 * Expand a Slurm host list ("node[1-3,7],gpu[01-02]-ib") into host names, in
 * order.  *hosts is malloc'd, each entry too: free with
 * srt_slurm_hostlist_free().  EINVAL on a malformed list or more than 65536
 * hosts.
 */
int srt_slurm_hostlist_expand(const char *list, char ***hosts, size_t *n, struct srt_error *err);
void srt_slurm_hostlist_free(char **hosts, size_t n);

#endif
