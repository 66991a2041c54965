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
 * The module is split by concern:
 *   agent/plan.c    the plan as the agent runs it: parsed from plan.json,
 *                   launch groups and stop tiers, placeholders bound (pure)
 *   agent/policy.c  restart decisions and back-off (pure)
 *   agent/supervise.c  the per-process state machine: every decision about
 *                   a process as a pure step (agent/supervise.h)
 *   agent/proc.c    operating-system processes: the srun argv of a step,
 *                   spawning with a log file, signalling, commands whose
 *                   output is captured, log tails
 *   agent/nodes.c   node hostnames (scontrol) and per-node IPs (a tiny
 *                   srun step on each node)
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

#include "runplan/rundir.h"
#include "recipe/model.h"
#include "recipe/render.h"
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

/* ---- the plan, as the agent runs it (agent/plan.c) ---- */

struct srt_agent_probe {
	bool http; /* else TCP */
	int port;
	const char *path; /* HTTP */
	int status;	  /* HTTP: the status wanted */
};

struct srt_agent_proc {
	const char *name; /* substituted by srt_agent_plan_bind() */
	enum srt_proc_kind kind;
	const char *service, *type; /* services */
	const char *role;	    /* workers */
	int index, rank;	    /* workers; -1 otherwise */
	const char *phase;	    /* before_workers | with_workers | after_frontend */
	size_t node;
	const char **argv; /* never substituted: recipe values are literal */
	size_t argc;
	const char **env_names, **env_values; /* values substituted when flagged runtime */
	bool *env_runtime;
	size_t nenv;
	const char *container; /* image, or NULL */
	struct srt_agent_probe probes[4];
	size_t nprobes;
	int timeout_s, interval_s;
	const char *log_file; /* relative to the log dir; substituted */
	bool critical;
	struct srt_restart_policy restart;
	const char *follows; /* the process this one restarts after, or NULL */
	/* The external mooncake master: probed at external_host:external_port, never launched. */
	bool external;
	const char *external_host;
	int external_port;
	int group; /* launch group: see srt_agent_plan_load() */
	int tier;  /* stop tier: 0 stops first */
	/* After srt_agent_plan_bind(): */
	const char *host, *ip; /* of its node (external: the master's host) */
	const char *endpoint;  /* "ip:port" of its first probe, or NULL */
	char env_hash[65];     /* srt_rundir_env_hash() of its env */
};

#define SRT_AGENT_TIERS 3

struct srt_agent_plan {
	struct srt_arena arena; /* owns the arrays and substituted strings */
	json_t *json;		/* the plan; owns the unsubstituted strings */
	int64_t generation;
	const char *recipe;
	size_t nnodes;
	const char **node_host_ph, **node_ip_ph; /* "<prefill_node_0>", "<prefill_node_0_ip>" */
	size_t infra;
	const char *infra_ip_ph, *log_dir_ph; /* "<infra_node_ip>", "<log_dir>" */
	bool pyxis;
	const char *network_interface; /* NULL: first address of hostname -I */
	const char *master_name;       /* NULL without a master */
	bool master_external;
	const json_t *store_config;    /* NULL unless vLLM with a master */
	const char *store_config_file; /* with <log_dir> */
	struct srt_agent_proc *procs;  /* plan order; an external master first */
	size_t nprocs;
	int ngroups;
	/* After srt_agent_plan_bind(): */
	const char **hosts, **ips;
	const char *infra_ip, *log_dir;
	const char *store_config_path; /* absolute, or NULL */
	char *store_config_text;       /* the file's content (malloc), or NULL */
};

/*
 * Parse plan.json's object (a reference is taken; the caller keeps its
 * own) into *p.  Every process is checked: argv, env names, node indexes,
 * probes, restart policy, log file names (relative, no "..").  An external
 * master becomes a process of its own (kind service, external) at the
 * front.  Launch groups reproduce the batch script's gates: a process in
 * group g starts once every process with readiness probes in a group below
 * g is ready; a group ends after each service (all its instances; not
 * with_workers services), after the last worker, and after the frontend,
 * and the benchmark waits for everything before it.  Stop tiers: 2 the
 * mooncake master, 1 the other before_workers services (stores), 0 the
 * rest (workers, with_workers and after_frontend services, frontend,
 * benchmark).  Release with srt_agent_plan_release() even on failure.
 */
int srt_agent_plan_load(struct srt_agent_plan *p, json_t *plan, struct srt_error *err);

/*
 * Bind the layout: hosts[i] and ips[i] are node i's hostname and IP (n at
 * least p->nnodes), log_dir the absolute log directory.  Substitutes the
 * placeholders in process names, log files and runtime env values, sets
 * each process's host, ip, endpoint and env hash, and renders the
 * store_config file (master_server_address with the infra IP).  Fails on
 * too few nodes, or a substituted log file name that leaves the log dir.
 */
int srt_agent_plan_bind(struct srt_agent_plan *p, const char *const *hosts, const char *const *ips,
			size_t n, const char *log_dir, struct srt_error *err);

/*
 * s with every layout placeholder of p replaced (p must be bound).  Only
 * whole placeholders are replaced; the rest is copied byte for byte.
 * Allocated in p's arena.
 */
const char *srt_agent_subst(struct srt_agent_plan *p, const char *s);

void srt_agent_plan_release(struct srt_agent_plan *p);

/*
 * Must process o of bound plan op be restarted to become process n of bound
 * plan np (a new generation on the same nodes)?  True when what its step
 * runs differs: node, container, argv, any env value (names added, removed
 * or changed), the store_config file it reads (through MOONCAKE_CONFIG_PATH)
 * or its log file.  Readiness, restart policy and criticality are not:
 * they apply to the running process as they are.  Appends "; "-separated
 * reasons to *why ("env MOONCAKE_PROTOCOL, FOO", "command or args").
 */
bool srt_agent_proc_changed(const struct srt_agent_plan *op, const struct srt_agent_proc *o,
			    const struct srt_agent_plan *np, const struct srt_agent_proc *n,
			    struct srt_buf *why);

/* The process named `name`, or NULL. */
struct srt_agent_proc *srt_agent_plan_find(struct srt_agent_plan *p, const char *name);

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
 * --container-image=IMG --container-mounts=LOG_DIR:/logs] env -- NAME=VALUE
 * ... argv...  p must be bound.
 */
const char **srt_agent_step_argv(struct srt_arena *a, const struct srt_agent_plan *p,
				 const struct srt_agent_proc *pr, size_t *argc);

/* The `Env:` line of a worker log: "Env: NAME=<shell-quoted value> ...\n".  Caller frees. */
char *srt_agent_env_line(const struct srt_agent_proc *pr);

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

struct srt_agent_nodes {
	char **hosts, **ips; /* n each, malloc'd */
	size_t n;
};

/*
 * Hostnames of the allocation (`scontrol show hostnames NODELIST`, in
 * SLURM's order) and each node's IP, resolved on that node by a `srun
 * --overlap --nodes=1 --ntasks=1 --nodelist=HOST --job-name=srtctl-ip`
 * step running srt_script_ip_program() with `iface` (NULL: the first
 * address of `hostname -I`).  Only the first `need` nodes get an IP (and
 * fewer than `need` hostnames is an error that says how many the recipe
 * needs).  Errors name the node and what to set.  Release with
 * srt_agent_nodes_release().
 */
int srt_agent_nodes_resolve(struct srt_agent_nodes *out, const char *nodelist, const char *iface,
			    size_t need, int timeout_ms, int cancel_fd, struct srt_error *err);
void srt_agent_nodes_release(struct srt_agent_nodes *nodes);

/* ---- the loop (agent/agent.c) ---- */

struct srt_agent_opts {
	const char *run_dir;	       /* required */
	const char *plan_file;	       /* NULL: <run_dir>/plan.json */
	int stop_grace_ms;	       /* 0: SRT_AGENT_STOP_GRACE_MS */
	int probe_timeout_ms;	       /* 0: SRT_AGENT_PROBE_TIMEOUT_MS */
	int liveness_failures;	       /* 0: SRT_AGENT_LIVENESS_FAILURES */
	const struct srt_clock *clock; /* NULL: the system clock (timestamps) */
	FILE *log;		       /* one line per event; NULL: stderr */
};

/*
 * Realise the plan until the run ends: the benchmark finished (Succeeded
 * when it exits 0, else Failed; *exit_code is its status), a critical
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
