/*
 * agent/agent.h: the in-allocation supervisor (`srtctl agent --run-dir DIR`).
 *
 * The agent runs as the batch step of a run's SLURM job, on the first node
 * of the allocation.  It reads DIR/plan.json (runplan/rundir.h), resolves
 * the allocation's nodes and their IPs, substitutes the plan's layout
 * placeholders, writes the vLLM store_config file, starts every process of
 * the plan as its own `srun --overlap` step in plan order, gating each
 * stage on readiness probes (probe/probe.h), keeps the processes alive
 * under their restart policies, and reports through DIR/status.json and
 * DIR/events.jsonl.  docs/agent.md describes the behaviour for users.
 *
 * The plan comes from runplan/plan.h (read from plan.json, launch groups
 * and stop tiers, placeholders bound); the agent links runplan/, not the
 * compiler.  The module is split by concern:
 *   agent/policy.c  restart decisions and back-off (pure)
 *   agent/supervise.c  the per-process state machine: every decision about
 *                   a process as a pure step (agent/supervise.h)
 *   agent/proc.c    operating-system processes: the srun argv of a step,
 *                   spawning with a log file, signalling, commands whose
 *                   output is captured, log tails
 *   agent/nodes.c   node hostnames (scontrol) and per-node IPs (a tiny
 *                   srun step on each node)
 *   agent/ray.c     a Ray head dashboard's node summary, read for the
 *                   ray_alive readiness probe (pure)
 *   agent/agent.c   the supervision loop (the effects: spawning, signals,
 *                   probe sockets, reports), rollouts of a new generation
 *                   and rollbacks of one that cannot become ready
 */
#ifndef SRT_AGENT_AGENT_H
#define SRT_AGENT_AGENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "loadgen/loadgen.h"
#include "runplan/plan.h"
#include "runplan/rundir.h"
#include "runplan/points.h"
#include "runplan/runplan.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/err.h"

/* Defaults (docs/agent.md). */
#define SRT_AGENT_STOP_GRACE_MS 10000	/* per stop tier: SIGTERM, then SIGKILL */
#define SRT_AGENT_PROBE_TIMEOUT_MS 2000 /* one probe attempt */
#define SRT_AGENT_LIVENESS_FAILURES 3	/* failed probes in a row that make a process Unhealthy */
#define SRT_AGENT_RESOLVE_TIMEOUT_MS 120000 /* scontrol and the IP steps, all together */
#define SRT_AGENT_WARN_EVERY_MS 60000	    /* repeat "still unreachable" warnings */

/* ---- Ray (agent/ray.c) ---- */

/*
 * The verdict of a ray_alive probe (probe/probe.h srt_probe_judge) on the
 * body of a Ray dashboard's `GET /nodes?view=summary`: passes when
 * `data.summary` lists at least *(const int *)want raylets in state ALIVE.
 * *detail says how many of how many ("1 of 2 Ray nodes ALIVE"), or what
 * was wrong with the body.
 */
bool srt_agent_ray_alive(const char *body, size_t len, const void *want, char *detail, size_t size);

/* The most bytes of a node summary the probe reads (a few KiB per node). */
#define SRT_AGENT_RAY_SUMMARY_MAX (4u << 20)

/* ---- restart policy (agent/policy.c) ---- */

enum srt_agent_verdict {
	SRT_AGENT_LEAVE,   /* the policy does not restart this exit */
	SRT_AGENT_RESTART, /* restart after delay_ms */
	SRT_AGENT_GIVE_UP, /* the restart budget is spent */
};

struct srt_agent_decision {
	enum srt_agent_verdict verdict;
	int64_t delay_ms;
	int budget_used; /* restarts counted against max_restarts, this one included */
};

/*
 * Back-off before restart number `n` since the count was last reset (0 =
 * the first): none for the first, then backoff_seconds * 2^(n-1), capped at
 * max_backoff_seconds (a cap below backoff_seconds is raised to it;
 * backoff_seconds 0 means no delay).
 */
int64_t srt_agent_backoff_ms(const struct srt_restart_policy *rp, int n);

/*
 * What to do after a process ended.  `budget_used`: restarts already
 * counted; `ran_ms`: how long it ran; `failed`: a non-zero exit, a signal,
 * or a kill by the agent for failing liveness.  A run of at least
 * reset_after_seconds clears the count first.  never: LEAVE; on-failure:
 * LEAVE after a clean exit; otherwise RESTART with the back-off, or GIVE_UP
 * once max_restarts restarts were spent.
 */
struct srt_agent_decision srt_agent_decide(const struct srt_restart_policy *rp, int budget_used,
					   int64_t ran_ms, bool failed);

/* ---- processes (agent/proc.c) ---- */

/*
 * The argv of process pr's SLURM step (NULL-terminated, in a): srun
 * --overlap --nodes=1 --ntasks=1 --nodelist=HOST --job-name=NAME [pyxis:
 * --container-image=IMG --container-mounts=LOG_DIR:/logs[,MODEL_DIR:/model for a
 * worker with a model_mount]] env -- NAME=VALUE
 * ... argv...  p must be bound.
 */
const char **srt_agent_step_argv(struct srt_arena *a, const struct srt_runplan *p,
				 const struct srt_runplan_proc *pr, size_t *argc);

/* The `Env:` line of a worker log: "Env: NAME=<shell-quoted value> ...\n".  Caller frees. */
char *srt_agent_env_line(const struct srt_runplan_proc *pr);

/*
 * Fork and exec argv[0] (PATH search) in a process group of its own, with
 * stdin from /dev/null and stdout+stderr appended to log_path (created;
 * truncated first when `truncate`), after writing `header` (may be NULL)
 * to it.  The child starts with an empty signal mask and default
 * dispositions.  Returns the pid, or -1 (the log cannot be opened, fork
 * fails).  An exec failure shows as exit status 127 with a line in the
 * log.
 */
pid_t srt_agent_spawn(const char *const *argv, const char *log_path, bool truncate,
		      const char *header, struct srt_error *err);

/* Send sig to pid's process group (to pid itself when that fails). */
void srt_agent_signal(pid_t pid, int sig);

/* Exit status as the shell shows it: the code, or 128 + the signal. */
int srt_agent_exit_code(int wait_status);

/*
 * The last `lines` lines of a log file, read from its end (at most 64 KiB),
 * '\n'-separated without a trailing newline, in at most max_bytes (about
 * 30 more when a single line must be cut): when the lines do not fit, the
 * longest are cut in their middle to one length, with " [... N bytes cut
 * ...] " where the cut was (on UTF-8 character boundaries), so short lines
 * such as error messages stay whole; the oldest lines are left out only if
 * even 96 bytes of each do not fit.  The last line is always there.  ""
 * when the file is missing, unreadable, empty or not a regular file.
 * Caller frees.
 */
char *srt_agent_log_tail(const char *path, int lines, size_t max_bytes);

/* A command whose stdout is captured (stderr is passed through). */
struct srt_agent_cmd {
	const char *const *argv; /* in */
	struct srt_buf out;	 /* stdout (srt_buf_init()ed by srt_agent_run_cmds()) */
	int status;		 /* srt_agent_exit_code(), or -1 when it did not finish */
	/* internal */
	pid_t pid;
	int fd;
};

/*
 * Run the n commands in parallel and wait until all have exited or
 * timeout_ms has passed (the rest are killed, status -1).  cancel_fd (or
 * -1) is polled too: when it becomes readable every command is killed and
 * -2 is returned (the agent passes its signalfd, so SIGTERM interrupts
 * node resolution).  Returns 0 when every command ran (check each
 * status), -1 when one could not be started.  Release each out with
 * srt_buf_release().
 */
int srt_agent_run_cmds(struct srt_agent_cmd *cmds, size_t n, int timeout_ms, int cancel_fd,
		       struct srt_error *err);

/* ---- nodes (agent/nodes.c) ---- */

/*
 * The bash program that prints one IPv4 address of the node it runs on:
 * $1 is the network interface (`ip -4 -o addr show dev $1`), or empty for
 * the first address of `hostname -I`.  The agent runs it on each node.
 */
const char *srt_agent_ip_program(void);

struct srt_agent_nodes {
	char **hosts, **ips; /* n each, malloc'd */
	size_t n;
};

/*
 * Hostnames of the allocation (`scontrol show hostnames NODELIST`, in
 * SLURM's order) and each node's IP, resolved on that node by a `srun
 * --overlap --nodes=1 --ntasks=1 --nodelist=HOST --job-name=srtctl-ip`
 * step running srt_agent_ip_program() with `iface` (NULL: the first
 * address of `hostname -I`).  Only the first `need` nodes get an IP (and
 * fewer than `need` hostnames is an error that says how many the recipe
 * needs).  Errors name the node and what to set.  Release with
 * srt_agent_nodes_release().
 */
int srt_agent_nodes_resolve(struct srt_agent_nodes *out, const char *nodelist, const char *iface,
			    size_t need, int timeout_ms, int cancel_fd, struct srt_error *err);
void srt_agent_nodes_release(struct srt_agent_nodes *nodes);

/* ---- a campaign run's load points (agent/ladder.c, pure) ---- */

/* The bound on one attempt of a point unless --point-timeout says otherwise: 600 s +
 * (prompts + warmup) x (isl / 1000 + osl x 0.2) s, i.e. as if every request ran alone at
 * 1,000 prompt tokens/s and 200 ms per output token (docs/agent.md). */
int64_t srt_agent_point_timeout_ms(const struct srt_loadgen_point *p);

/* The result file of an attempt, relative to the run directory:
 * "points/<seq, 4 digits or more>-<first 12 hex of id>-a<attempt>.json".  Caller frees. */
char *srt_agent_point_file(int64_t seq, const char *id, int64_t attempt);

/*
 * The served model name and the model path the plan's first worker is
 * given (--served-model-name; --model-path, --model, or vLLM's word after
 * `serve`), borrowed from p; each NULL when the argv does not say.
 */
void srt_agent_plan_model(const struct srt_runplan *p, const char **served, const char **path);

/*
 * Drop from f->points the points whose id is in `done` (ndone ids, each 64
 * hex): those this job already reported finished before it was requeued
 * (SLURM restarts a requeued batch job in the same run directory, with the
 * same points.json).  The order of the rest is kept.  Returns how many were
 * dropped.
 */
size_t srt_agent_points_drop(struct srt_points_file *f, char (*done)[65], size_t ndone);

/* ---- the loop (agent/agent.c) ---- */

struct srt_agent_opts {
	const char *run_dir;	       /* required */
	const char *plan_file;	       /* NULL: <run_dir>/plan.json */
	int stop_grace_ms;	       /* 0: SRT_AGENT_STOP_GRACE_MS */
	int probe_timeout_ms;	       /* 0: SRT_AGENT_PROBE_TIMEOUT_MS */
	int liveness_failures;	       /* 0: SRT_AGENT_LIVENESS_FAILURES */
	const struct srt_clock *clock; /* NULL: the system clock (timestamps) */
	FILE *log;		       /* one line per event; NULL: stderr */
	int64_t point_timeout_ms; /* a campaign point's attempt; 0: srt_agent_point_timeout_ms() */
};

/*
 * Realise the plan until the run ends: the benchmark finished (Succeeded
 * when it exits 0, else Failed; *exit_code is its status), or, in a
 * campaign run (DIR/points.json, runplan/points.h), the last load point was
 * reported (Succeeded, 0: the ladder replaces the benchmark), a critical
 * process failed beyond its restart policy or never became ready (Failed,
 * 1), or SIGTERM/SIGINT (Stopped, 128 + the signal).  Every process is
 * stopped before it returns: workers and the rest first, then stores,
 * then the master, each tier with SIGTERM and, after stop_grace_ms,
 * SIGKILL.  Needs SLURM_JOB_NODELIST (and reads SLURM_JOB_ID).
 *
 * Returns 0 when the run went its course (however it ended); -1 when the
 * agent could not start it (no plan, no nodes, an unwritable run
 * directory): err says why, and status.json and events.jsonl say so too
 * whenever the run directory is writable.
 */
int srt_agent_run(const struct srt_agent_opts *o, int *exit_code, struct srt_error *err);

#endif
