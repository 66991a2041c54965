/*
 * runplan/rundir.h: the run directory, the only channel between the
 * controller and the agent.
 *
 * The controller (on a login node) and the agent (the batch step of the
 * run's SLURM job, on the first node of the allocation) share one directory
 * on the cluster's shared filesystem.  Nothing else connects them: no
 * socket from a compute node back to the login node is needed.  Both sides'
 * code for every file is here, so the format has one owner.
 *
 *   DIR/plan.json      controller -> agent.  The run's plan
 *                      (srt_runplan_to_json(), runplan/plan.h) with a
 *                      top-level "generation" (integer >= 1) added.
 *                      Written atomically (srt_rundir_write_plan()).  The
 *                      agent reads it at start and rolls out a newer
 *                      generation written while it runs (docs/agent.md).
 *   DIR/job.sh         controller: the batch script that starts the agent
 *                      (srt_script_render_agent(), recipe/script.h).
 *   DIR/logs/          the run's log directory (the plan's <log_dir>): one
 *                      file per process (service_<name>.out,
 *                      worker_<role>_<i>.out, frontend.out, benchmark.out)
 *                      and mooncake/store_config.json.  Mounted at /logs in
 *                      pyxis containers.
 *   DIR/status.json    agent -> controller: the current state (below).
 *                      Replaced atomically (temp file, fsync, rename, fsync
 *                      of DIR) on every change and at least every
 *                      SRT_RUNDIR_HEARTBEAT_MS, so a reader sees either the
 *                      old or the new file, never a mix.
 *   DIR/events.jsonl   agent -> controller: what happened, one JSON object
 *                      per line, appended (below).
 *
 * Modes (issue #12).  plan.json holds the recipe's env values, which may be
 * secrets (tokens, keys), and the logs may echo them.  So the run directory
 * and logs/ are SRT_RUNDIR_DIR_MODE (0700), plan.json, status.json and
 * events.jsonl SRT_RUNDIR_FILE_MODE (0600), job.sh SRT_RUNDIR_SCRIPT_MODE
 * (0700): only the job's user (and root) reads them.  A controller running
 * as root gives the directories and the files it writes (plan.json, job.sh)
 * to the job's user (slurmrestd.user), so the agent, which runs as that user,
 * reads and writes everything; the controller reads status.json and
 * events.jsonl as root.  A controller running as the job's user owns all of
 * it.  `srtctl describe` and `events` read only the database.
 *
 * Stale reads.  NFS and Lustre clients cache attributes and directory
 * entries, so a reader may see an older status.json or a shorter
 * events.jsonl than the agent last wrote.  Every record therefore carries a
 * number that only grows: status.json its "seq" (+1 on every write, kept
 * across agent restarts), each event its "seq" (1, 2, 3, ... never reused,
 * kept across agent restarts).  A reader keeps the highest seq it has acted
 * on and ignores anything not newer: an older status is dropped, an event
 * is ingested exactly once.
 *
 * status.json (version 1):
 *   {
 *     "version": 1,
 *     "seq": 17,                    every write +1
 *     "plan_generation": 3,         the plan.json generation being realised
 *     "phase": "Ready",             Starting | Ready | Failed | Stopping |
 *                                   Stopped | Succeeded
 *     "message": "...",             why the phase (Failed, Stopped), or ""
 *     "exit_code": null,            the agent's exit status once it ends
 *     "job_id": "1234",             $SLURM_JOB_ID
 *     "agent": {"host": "n1", "pid": 4242, "started_at": MS},
 *     "nodes": [{"host": "n1", "ip": "10.0.0.1"}, ...],   plan node order
 *     "infra_ip": "10.0.0.1",
 *     "frontend_url": "http://10.0.0.1:8000",   null until bound / none
 *     "processes": [ one per plan process (plus an external master), plan
 *                    order:
 *       {"name": "mooncake-master", "kind": "service", "role": null,
 *        "index": null, "service": "mooncake-master",
 *        "type": "mooncake-master", "node": 0, "host": "n1",
 *        "ip": "10.0.0.1", "state": "Ready", "restarts": 0, "pid": 4321,
 *        "started_at": MS, "ready_at": MS, "exit_code": null,
 *        "endpoint": "10.0.0.1:8700", "env_hash": "<64 hex>",
 *        "last_probe": "http 8702 /health: HTTP 200", "message": "",
 *        "critical": true, "external": false},
 *       ...],
 *     "conditions": [ what the run's phase does not say; [] when none:
 *       {"type": "RolloutFailed", "status": "True",
 *        "reason": "RollingBack" | "RolledBack", "generation": 3,
 *        "rolled_back_to": 2, "message": "...", "since": MS}],
 *     "updated_at": MS
 *   }
 *   MS is Unix time in milliseconds; 0 / null when it has not happened.
 *   kind: service | worker | frontend | benchmark.  role and index: workers
 *   only.  service and type: services only.  node: index into "nodes"
 *   (null for an external master).  pid: of the local srun (null when not
 *   running).  state (enum srt_proc_state): Pending (not launched yet) |
 *   Starting (launched, readiness not passed) | Running (launched, no
 *   readiness probes) | Ready (probes passed) | Unhealthy (liveness probes
 *   failing) | CrashLoopBackOff (waiting to be restarted) | Failed (gave up,
 *   or a non-zero exit that is not restarted) | Exited (status 0, not
 *   restarted) | Stopped (stopped by the agent).  endpoint: "ip:port" of the
 *   first readiness probe (the master: infra ip:8700; an external master:
 *   its address), null without one.  env_hash: srt_rundir_env_hash() of the
 *   variables the process was given.
 *   frontend_url: where clients and the benchmark (SRT_FRONTEND_URL) reach
 *   the deployment: the plan's "frontend_url" with the allocation's IPs
 *   bound, "http://HOST:PORT" (srt_rundir_frontend_url_ok()); null before
 *   the nodes are resolved and for a plan without a frontend.  A
 *   status.json without it (an older agent) reads as null.
 *   conditions: RolloutFailed: plan generation `generation` could not become
 *   ready, and the agent went back to `rolled_back_to` (the last generation
 *   that was ready), which plan_generation then shows; reason RollingBack
 *   while the old processes come back, RolledBack once they are up.
 *   message: which process failed and how, with its log tail.  The agent
 *   does not try that generation again; the condition stays until a newer
 *   generation is rolled out.  A status.json without "conditions" (an
 *   older agent) reads as none.
 *
 * events.jsonl (one object per line, '\n'-terminated):
 *   {"seq": 5, "time": MS, "type": "Normal" | "Warning",
 *    "reason": "Ready", "object": {"kind": "service", "name":
 *    "mooncake-master", ...}, "message": "...", "job_id": "1234",
 *    "generation": 3}
 *   object.kind: run | service | worker (the frontend and the benchmark are
 *   services named "frontend" and "benchmark").  object.name: the process
 *   name (the run: the recipe name).  A service object also has "service"
 *   (the recipe's service name: "mooncake-store" for process
 *   "mooncake-store_n2"); a worker has "role" and "index".
 *   Reasons: see docs/agent.md.
 *   The agent writes each line with one write() and fsync()s it.  A line
 *   without its '\n' is torn (the agent died mid-write): readers ignore it
 *   and the next agent cuts it off before appending.
 *
 * Every function returns 0 or -1 (unless it says otherwise) and fills a
 * caller-owned struct srt_error naming the file and what to do.
 */
#ifndef SRT_AGENT_RUNDIR_H
#define SRT_AGENT_RUNDIR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/buf.h"
#include "util/err.h"

#define SRT_RUNDIR_VERSION 1
#define SRT_RUNDIR_PLAN "plan.json"
#define SRT_RUNDIR_JOB "job.sh"
#define SRT_RUNDIR_LOGS "logs"
#define SRT_RUNDIR_STATUS "status.json"
#define SRT_RUNDIR_EVENTS "events.jsonl"
/* Modes of what srtctl creates in a run directory (see "Modes" above). */
#define SRT_RUNDIR_DIR_MODE 0700
#define SRT_RUNDIR_FILE_MODE 0600
#define SRT_RUNDIR_SCRIPT_MODE 0700
/*
 * Read bounds (issue #12): the run directory belongs to the job's user, so
 * its files are not trusted.  The controller reads only regular files (not a
 * link, a device, a FIFO), at most SRT_RUNDIR_STATUS_MAX bytes of
 * status.json, event lines of at most SRT_RUNDIR_EVENT_LINE_MAX bytes (a
 * longer one is refused as one bad line and reading goes on after it), and at
 * most SRT_RUNDIR_EVENTS_PASS_MAX bytes of events.jsonl per call (the rest on
 * the next call, from where this one stopped).
 */
#define SRT_RUNDIR_STATUS_MAX (4u * 1024 * 1024)
#define SRT_RUNDIR_EVENT_LINE_MAX (64u * 1024)
#define SRT_RUNDIR_EVENTS_PASS_MAX (16u * 1024 * 1024)
/* The most the controller reads of a plan.json (when it rolls a new generation out). */
#define SRT_RUNDIR_PLAN_MAX (16u * 1024 * 1024)
/* The agent rewrites status.json at least this often (updated_at moves). */
#define SRT_RUNDIR_HEARTBEAT_MS 10000

/* ---- files ---- */

/*
 * Write `len` bytes to `path` atomically: a temporary file next to it,
 * fsync, rename over `path`, fsync of the directory.  A reader sees the old
 * content or the new, never a mix.  `mode` as for open(2).
 */
int srt_rundir_write_file(const char *path, const void *data, size_t len, unsigned mode,
			  struct srt_error *err);

/*
 * srt_rundir_write_file() relative to an open directory: `name` in dirfd
 * (`dir` only names it in messages).  The temporary file is created with
 * O_EXCL|O_NOFOLLOW and renamed over `name` with renameat(), so a link
 * planted at either name is never followed.  With uid >= 0 the file is given
 * to uid:gid (fchown on its own fd) before it is renamed into place.
 * srt_rundir_write_file() opens the directory of `path` and calls this with
 * uid -1.
 */
int srt_rundir_write_file_at(int dirfd, const char *dir, const char *name, const void *data,
			     size_t len, unsigned mode, long uid, long gid, struct srt_error *err);

/*
 * Paths a plan names inside the log directory (relative, checked by the
 * plan), reached one component at a time with openat(O_NOFOLLOW): a link
 * planted in the log directory never redirects them.
 *
 * srt_rundir_marker(): is `rel` a nonempty regular file (a file readiness
 * probe)?  1 yes, 0 no, with what was seen in detail ("no such file",
 * "empty", "a directory, not a regular file", ...).
 * srt_rundir_log_mkdir(): create directory `rel` and its parents (0755).
 * srt_rundir_log_remove(): remove file `rel` if it is there (a link is
 * removed, not followed).  Both return 0, or -1 with err set.
 */
int srt_rundir_marker(const char *log_dir, const char *rel, char *detail, size_t size);
int srt_rundir_log_mkdir(const char *log_dir, const char *rel, struct srt_error *err);
int srt_rundir_log_remove(const char *log_dir, const char *rel, struct srt_error *err);

/*
 * Append the bytes of `path` to *out: a regular file opened with
 * O_NOFOLLOW (a symbolic link is refused, not followed), at most `max`
 * bytes (a larger file is refused, nothing read past the limit).  0 read,
 * 1 no such file, -1 err set.
 */
int srt_rundir_read_file(const char *path, size_t max, struct srt_buf *out, struct srt_error *err);

/*
 * Create DIR and DIR/logs (like mkdir -p, one component at a time without
 * following a link owned by anybody but root or this user); what is created
 * gets SRT_RUNDIR_DIR_MODE.
 */
int srt_rundir_create(const char *dir, struct srt_error *err);

/*
 * Open the log root (created, mode 0755, like mkdir -p when absent: one
 * component at a time with mkdirat + openat(O_NOFOLLOW), following a link
 * in a parent only when root or this process's user owns it) as a verified
 * directory fd: not a symbolic link (O_NOFOLLOW), owned by this process's
 * user or root, and not writable by group or others unless it has the
 * sticky bit.  Returns the fd (caller closes) or -1 with err naming the path
 * and the fix.
 */
int srt_rundir_open_root(const char *root, struct srt_error *err);

/*
 * Create the run directory ROOT/NAME and its logs/ for the controller,
 * without following links: the root verified by srt_rundir_open_root(),
 * mkdirat (SRT_RUNDIR_DIR_MODE) + openat(O_NOFOLLOW|O_DIRECTORY).  An
 * existing directory (a
 * controller restart renders it again) is accepted only when it is a real
 * directory owned by this process's user or by job_uid.  With job_uid >= 0,
 * what this call created (and only that) is given to job_uid:job_gid with
 * fchown on its own fd.  *dirfd gets the run directory's fd (caller closes)
 * for srt_rundir_write_file_at() and srt_rundir_write_plan_at().
 */
int srt_rundir_create_at(const char *root, const char *name, long job_uid, long job_gid, int *dirfd,
			 struct srt_error *err);

/* ---- plan.json (controller -> agent) ---- */

/*
 * Write plan (srt_runplan_to_json()) to DIR/plan.json with "generation" set to
 * `generation` (>= 1), atomically.  `plan` is not modified.
 */
int srt_rundir_write_plan(const char *dir, const json_t *plan, int64_t generation,
			  struct srt_error *err);

/*
 * srt_rundir_write_plan() into an open run directory (dir names it in
 * messages), given to uid:gid when uid >= 0 (srt_rundir_write_file_at()).
 */
int srt_rundir_write_plan_at(int dirfd, const char *dir, const json_t *plan, int64_t generation,
			     long uid, long gid, struct srt_error *err);

/*
 * Read a plan file (DIR/plan.json, or any path given to `srtctl agent
 * --plan`).  *plan gets a new reference (caller json_decref()s) and
 * *generation its "generation" (0 when absent).  Fails on a missing or
 * invalid file, or a plan whose "version" is not 1.
 */
int srt_rundir_read_plan_file(const char *path, json_t **plan, int64_t *generation,
			      struct srt_error *err);

/*
 * srt_rundir_read_plan_file() of plan.json in an open run directory, for the
 * controller: the job's user owns the directory, so only a regular file
 * (O_NOFOLLOW: not a link to /dev/zero or to a file only root may read) of at
 * most SRT_RUNDIR_PLAN_MAX bytes is read.  A missing file is an error.
 */
int srt_rundir_read_plan_at(int dirfd, const char *dir, json_t **plan, int64_t *generation,
			    struct srt_error *err);

/* ---- status.json (agent -> controller) ---- */

enum srt_run_phase {
	SRT_RUN_STARTING,
	SRT_RUN_READY,
	SRT_RUN_FAILED,
	SRT_RUN_STOPPING,
	SRT_RUN_STOPPED,
	SRT_RUN_SUCCEEDED,
	SRT_RUN_DEGRADED, /* up, but a non-critical process was given up */
};

enum srt_proc_state {
	SRT_PS_PENDING,
	SRT_PS_STARTING,
	SRT_PS_RUNNING,
	SRT_PS_READY,
	SRT_PS_UNHEALTHY,
	SRT_PS_CRASHLOOP,
	SRT_PS_FAILED,
	SRT_PS_EXITED,
	SRT_PS_STOPPED,
};

const char *srt_run_phase_name(enum srt_run_phase p);
/* Returns 0 and sets *p, or -1 for an unknown name. */
int srt_run_phase_parse(const char *name, enum srt_run_phase *p);
/* Has the run ended (Failed, Stopped, Succeeded)? */
bool srt_run_phase_final(enum srt_run_phase p);
const char *srt_proc_state_name(enum srt_proc_state s);
int srt_proc_state_parse(const char *name, enum srt_proc_state *s);

struct srt_rundir_node {
	const char *host, *ip;
};

/* One process.  Absent values: NULL strings, -1 integers, 0 times. */
struct srt_rundir_proc {
	const char *name;
	const char *kind;    /* service | worker | frontend | benchmark */
	const char *role;    /* workers */
	int index;	     /* workers; -1 otherwise */
	const char *service; /* services */
	const char *type;    /* services: mooncake-master | mooncake-store | generic */
	int node;	     /* index into nodes; -1 for an external master */
	const char *host, *ip;
	enum srt_proc_state state;
	int restarts;
	long pid;	    /* -1: not running */
	int64_t started_at; /* last start */
	int64_t ready_at;   /* last time its readiness passed */
	int exit_code;	    /* last exit: status, or 128+signal; -1 none */
	const char *endpoint;
	const char *env_hash;
	const char *last_probe;
	const char *message;
	bool critical;
	bool external;
};

/* A condition (status.json "conditions"); "status" is always "True". */
struct srt_rundir_condition {
	const char *type;   /* "RolloutFailed" */
	const char *reason; /* "RollingBack" | "RolledBack" */
	int64_t generation; /* the generation that failed */
	int64_t rolled_back_to;
	const char *message;
	int64_t since; /* Unix ms */
};

struct srt_rundir_status {
	int version;
	int64_t seq;
	int64_t plan_generation;
	enum srt_run_phase phase;
	const char *message;
	int exit_code; /* -1 while the agent runs */
	const char *job_id;
	const char *agent_host;
	long agent_pid;
	int64_t agent_started_at;
	struct srt_rundir_node *nodes;
	size_t nnodes;
	const char *infra_ip;
	const char *frontend_url; /* NULL: not bound yet, or no frontend */
	struct srt_rundir_proc *procs;
	size_t nprocs;
	struct srt_rundir_condition *conditions;
	size_t nconditions;
	int64_t updated_at;
	/* Reader side: owns nodes, procs, conditions and every string; NULL for a writer's struct. */
	json_t *root;
};

/* The JSON form of st (the format above).  New reference. */
json_t *srt_rundir_status_to_json(const struct srt_rundir_status *st);

/* Write st to DIR/status.json atomically.  The caller chose st->seq. */
int srt_rundir_write_status(const char *dir, const struct srt_rundir_status *st,
			    struct srt_error *err);

/*
 * Read DIR/status.json into *st (release with srt_rundir_status_release()).
 * Returns 0; 1 when there is no status.json yet (the agent has not started:
 * *st is zeroed); -1 on an unreadable or invalid file, one that is not a
 * regular file (a link, a FIFO, a device) or one larger than
 * SRT_RUNDIR_STATUS_MAX.  Readers compare
 * st->seq with the last one they used and ignore an older file.
 */
int srt_rundir_read_status(const char *dir, struct srt_rundir_status *st, struct srt_error *err);
void srt_rundir_status_release(struct srt_rundir_status *st);

/* The longest frontend_url (bytes) status.json may carry. */
#define SRT_RUNDIR_URL_MAX 256

/*
 * Is s a frontend_url as the agent writes it: "http://HOST:PORT" and
 * nothing more, at most SRT_RUNDIR_URL_MAX bytes, HOST a name or IPv4
 * address (letters, digits, '.', '-', '_') or an IPv6 address in brackets
 * (hex digits, ':', '.'), PORT 1-65535 in decimal.  The controller stores
 * only a URL that passes: status.json belongs to the job's user, and the
 * URL is shown on terminals and pages.  NULL is not valid.
 */
bool srt_rundir_frontend_url_ok(const char *s);

/*
 * The env hash in status.json: SHA-256 (64 lowercase hex digits) of
 * "NAME=value\0" for every variable, in strcmp() order of NAME.  The
 * controller computes it from the plan to tell whether a process runs with
 * the env it wants.
 */
void srt_rundir_env_hash(const char *const *names, const char *const *values, size_t n,
			 char out[65]);

/* ---- events.jsonl (agent -> controller) ---- */

struct srt_rundir_event {
	int64_t seq;  /* writer: assigned by srt_rundir_events_append() */
	int64_t time; /* Unix ms */
	bool warning; /* type Warning (else Normal) */
	const char *reason;
	const char *object_kind; /* run | service | worker */
	const char *object_name;
	const char *object_service; /* service objects: the recipe's service name, or NULL */
	const char *object_role;    /* worker objects, or NULL */
	int object_index;	    /* worker objects; -1 otherwise */
	const char *message;
	const char *job_id; /* may be NULL */
	int64_t generation; /* plan generation; 0 when unknown */
	const json_t *json; /* reader: the whole line (borrowed) */
	/* writer: a "point" member (a campaign run's Point* events, runplan/points.h), or NULL */
	const json_t *point;
};

/* The writer's handle on DIR/events.jsonl. */
struct srt_rundir_events {
	int fd;
	int64_t seq; /* the last seq written (or found) */
	char *path;
};

/*
 * Open DIR/events.jsonl for appending (creating it), cut off a torn last
 * line, and find the highest seq already there so numbering continues.
 * Close with srt_rundir_events_close().
 */
int srt_rundir_events_open(struct srt_rundir_events *w, const char *dir, struct srt_error *err);

/*
 * Append ev as one line with the next seq (stored in ev->seq and w->seq),
 * with one write() followed by fsync().
 */
int srt_rundir_events_append(struct srt_rundir_events *w, struct srt_rundir_event *ev,
			     struct srt_error *err);
void srt_rundir_events_close(struct srt_rundir_events *w);

/* Called for each event; return 0 to go on, SRT_RUNDIR_EVENT_REFUSE to pass
 * over it as if the line were not there (a later line with a lower seq is then
 * still delivered), anything else to stop. */
typedef int (*srt_rundir_event_fn)(void *ctx, const struct srt_rundir_event *ev);
#define SRT_RUNDIR_EVENT_REFUSE (-2)

/*
 * Call fn for every event in DIR/events.jsonl with seq > after_seq, in
 * file order (which is seq order).  A torn last line (no '\n') is ignored;
 * so is any line that is not a JSON object with an integer seq above the
 * previous one (reported through *skipped when skipped is not NULL).
 * *last_seq (may be NULL) gets the seq of the last event passed to fn, or
 * after_seq.  A missing file is no events.
 *
 * Returns 0; -1 when the file cannot be read; or fn's non-zero value (the
 * events before it were delivered, *last_seq says up to where).
 */
int srt_rundir_read_events(const char *dir, int64_t after_seq, srt_rundir_event_fn fn, void *ctx,
			   int64_t *last_seq, size_t *skipped, struct srt_error *err);

/* Where a bounded read of events.jsonl stopped (kept by the reader between calls). */
struct srt_rundir_events_pos {
	int64_t offset; /* bytes consumed: the start of the next line to read */
	bool skipping;	/* inside a line over the limit, up to its '\n' */
	dev_t dev;	/* the file read (another file starts again at 0) */
	ino_t ino;
};

struct srt_rundir_events_read {
	/* in */
	int64_t after_seq;
	size_t max_line;  /* 0: SRT_RUNDIR_EVENT_LINE_MAX */
	size_t max_bytes; /* 0: SRT_RUNDIR_EVENTS_PASS_MAX */
	/* in and out: zero for the top of the file */
	struct srt_rundir_events_pos pos;
	/* out */
	int64_t last_seq;    /* as srt_rundir_read_events() */
	size_t skipped;	     /* bad or refused lines */
	size_t too_long;     /* lines refused for their length */
	int64_t too_long_at; /* byte offset of the first of them, or -1 */
	bool more;	     /* stopped at max_bytes: call again for the rest */
};

/*
 * srt_rundir_read_events() with bounds: reads DIR/events.jsonl (a regular
 * file only: a link, FIFO or device is an error naming it) from r->pos, at
 * most r->max_bytes of it, refusing lines longer than r->max_line, and
 * updates r->pos to the end of the last line consumed.  When the file is
 * another one than r->pos says (inode) or shorter, reading starts at its top.
 * Returns 0, -1 (err set; events delivered before the error are in
 * r->last_seq), or fn's value.
 */
int srt_rundir_read_events_from(const char *dir, struct srt_rundir_events_read *r,
				srt_rundir_event_fn fn, void *ctx, struct srt_error *err);

#endif
