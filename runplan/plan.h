/*
 * runplan/plan.h: the run plan, one typed model.
 *
 * The compiler (recipe/render.h, srt_plan_build()) fills this model in
 * memory and srt_runplan_finish() completes it; srt_runplan_to_json() is
 * the one writer of plan.json and srt_runplan_load() its one reader, which
 * ends in the same srt_runplan_finish().  So launch groups, stop tiers and
 * the external master's process are decided once, here, whichever way a
 * plan arrives: the agent starts and stops by them and `srtctl dry-run`
 * shows them.  The binding of the layout placeholders (<prefill_node_0>,
 * <prefill_node_0_ip>, <infra_node_ip>, <log_dir>) to the allocation's
 * real hostnames, IPs and log directory is one pure function,
 * srt_runplan_bind().  The agent links this layer and not the compiler.
 */
#ifndef SRT_RUNPLAN_PLAN_H
#define SRT_RUNPLAN_PLAN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runplan/runplan.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/err.h"

struct srt_runplan_probe {
	bool http; /* else TCP, or a file probe when `file` is set */
	int port;
	const char *path; /* HTTP */
	int status;	  /* HTTP: the status wanted */
	/*
	 * A file probe: ready once this file (relative to the log dir, layout
	 * placeholders bound) is a nonempty regular file; the agent removes it
	 * before each start of the process.  port is 0.
	 */
	const char *file;
	/*
	 * A log probe: ready once a line the process wrote to its log since
	 * this start matches this POSIX extended regular expression (checked
	 * when the plan is loaded).  port is 0.
	 */
	const char *pattern;
	/*
	 * An HTTP probe of a Ray head's dashboard (`/nodes?view=summary`): ready
	 * once its node summary lists at least this many raylets ALIVE (the
	 * cluster has formed).  0: a plain HTTP probe.
	 */
	int ray_alive;
	/*
	 * TCP and HTTP probes: the node probed, as another node's IP
	 * placeholder ("<pool_train_node_0_ip>", bound by srt_runplan_bind()),
	 * or NULL for the process's own node.
	 */
	const char *host;
};

/*
 * NULL when `pattern` is a log probe's pattern srtctl takes: a POSIX
 * extended regular expression (regcomp) of 1 to 512 printable bytes that
 * means the same in Python's re (srt-slurm's): no backslash before a letter
 * or digit (write [0-9] for \d, [[:space:]] for \s), no (?...) group and
 * no lazy quantifier; else why not (a static string).
 */
const char *srt_runplan_pattern_problem(const char *pattern);

/* Where an env value comes from (plan.json and dry-run show it; the agent ignores it). */
struct srt_runplan_envsrc {
	const char *owner;	/* "recipe" | "srtctl" */
	const char *layer;	/* "roles.prefill.env", "mooncake-master", ... */
	const char *overridden; /* a recipe value srtctl replaced, or NULL */
	const char *overridden_layer;
};

struct srt_runplan_proc {
	const char *name; /* substituted by srt_runplan_bind() */
	enum srt_proc_kind kind;
	const char *service, *type, *placement; /* services */
	const char *role;	    /* workers */
	int index, rank;	    /* workers; -1 otherwise */
	const char *phase;	    /* before_workers | with_workers | after_frontend */
	size_t node;
	/*
	 * An MPI step (TRT-LLM's workers): one srun of `ntasks` ranks over
	 * nodes[node .. node+nnodes), `ntasks / nnodes` per node, under
	 * `--mpi=<mpi>`.  Otherwise (mpi NULL) nnodes and ntasks are 1.
	 */
	size_t nnodes;
	int ntasks;
	const char *mpi;
	/*
	 * A file the process reads, written by the agent before every start
	 * (TRT-LLM's engine YAML): config_file names it in the log dir (a
	 * plain file name), config_text is its content; NULL: none.
	 */
	const char *config_file, *config_text;
	bool config_runtime; /* the text holds layout placeholders: bound like env values */
	/*
	 * Relative to the log dir, layout placeholders bound: a directory the
	 * agent creates before every start (NULL: none), and files it removes
	 * before every start (a stale marker or address a crashed run left).
	 */
	const char *run_dir;
	const char *clear[2];
	size_t nclear;
	const char **argv;  /* words flagged in argv_runtime are substituted */
	bool *argv_runtime; /* NULL: none (recipe values are literal) */
	size_t argc;
	const char *model_mount; /* host model dir to mount at /model (pyxis), or NULL */
	const char **env_names, **env_values; /* values substituted when flagged runtime */
	bool *env_runtime;
	struct srt_runplan_envsrc *env_src; /* per variable; NULL: not known */
	size_t nenv;
	const char *container; /* image, or NULL */
	/* The recipe's srun options for this step ("--key" or "--key=value"), before srtctl's. */
	const char **srun_opts;
	size_t nsrun_opts;
	struct srt_runplan_probe probes[4];
	size_t nprobes;
	int timeout_s, interval_s;
	const char *log_file; /* relative to the log dir; substituted */
	bool critical;
	/* A terminal service's instance: the run ends when every one has exited for good. */
	bool terminal;
	struct srt_restart_policy restart;
	const char *follows; /* the process this one restarts after, or NULL */
	/* The external mooncake master: probed at external_host:external_port, never launched. */
	bool external;
	const char *external_host;
	int external_port;
	int group; /* launch group: see srt_runplan_load() */
	int tier;  /* stop tier: 0 stops first */
	/* After srt_runplan_bind(): */
	const char *host, *ip; /* of its node (external: the master's host) */
	const char *hosts;     /* an MPI step's nodes, comma-separated (else host) */
	const char *endpoint;  /* "ip:port" of its first probe, or NULL */
	char env_hash[65];     /* srt_rundir_env_hash() of its env */
};

#define SRT_RUNPLAN_TIERS 3
/* The most raylets a ray_alive probe waits for (a job's nodes are far fewer). */
#define SRT_RUNPLAN_RAY_ALIVE_MAX 100000
/* Mooncake client config files: one per role at most (prefill, decode, agg). */
#define SRT_RUNPLAN_STORE_CONFIGS_MAX 3
/* vLLM's one client config, relative to the log dir (also read from pre-list plans). */
#define SRT_RUNPLAN_VLLM_STORE_CONFIG "mooncake/store_config.json"

/* A worker of the layout: a multi-node worker has one process per node. */
struct srt_runplan_worker {
	const char *role;
	int index;
	size_t node, nnodes; /* nodes[node .. node+nnodes) */
};

struct srt_runplan {
	struct srt_arena arena; /* owns the arrays and substituted strings */
	json_t *json;		/* read plans: the plan, owning the unsubstituted strings */
	int64_t generation;
	const char *recipe, *engine;
	size_t nnodes;
	const char **node_host_ph, **node_ip_ph; /* "<prefill_node_0>", "<prefill_node_0_ip>" */
	const char **node_label;		 /* "prefill_node_0", "infra_node" */
	bool *node_dedicated;			 /* the reserved infra node */
	size_t head, infra;
	bool dedicated_infra;
	const char *infra_ip_ph, *log_dir_ph; /* "<infra_node_ip>", "<log_dir>" */
	struct srt_runplan_worker *workers;
	size_t nworkers;
	bool pyxis;
	/* container mounts "SRC:DST[:FLAGS]" after /logs and /model (pyxis only) */
	const char **mounts;
	size_t nmounts;
	const char *network_interface; /* NULL: first address of hostname -I */
	const char *master_name;       /* NULL without a master */
	bool master_external;
	const char *master_address;	/* "<infra_node_ip>:8700" or the external host:port */
	const char *master_metadata;	/* MOONCAKE_TE_META_DATA_SERVER */
	/*
	 * The Mooncake client configs the agent writes before any process
	 * starts (MOONCAKE_CONFIG_PATH names one): vLLM's one file, or one
	 * per TRT-LLM role.  file is "<log_dir>/mooncake/...json"; config is
	 * borrowed.  path and text are set by srt_runplan_bind().
	 */
	struct srt_runplan_store_config {
		const char *file;
		const json_t *config;
		const char *path; /* absolute */
		char *text;	  /* the file's content (malloc) */
	} store_configs[SRT_RUNPLAN_STORE_CONFIGS_MAX];
	size_t nstore_configs;
	/* The URL clients and the benchmark (SRT_FRONTEND_URL) reach the
	 * deployment at, with placeholders ("http://<prefill_node_0_ip>:8000");
	 * NULL without a frontend (frontend.type none). */
	const char *frontend_url_ph;
	struct srt_runplan_proc *procs; /* plan order; an external master first */
	size_t nprocs, cap;
	int ngroups;
	/* After srt_runplan_bind(): */
	const char **hosts, **ips;
	const char *infra_ip, *log_dir;
	const char *frontend_url; /* frontend_url_ph bound, or NULL */
};

/* A probe as events and status say it: "tcp 8700", "http 8702 /health", "file x.ready". */
void srt_runplan_probe_name(const struct srt_runplan_probe *pb, char *buf, size_t size);

/* ---- building (the compiler) ---- */

/* An empty plan of nnodes nodes (their arrays allocated, to be filled). */
void srt_runplan_init(struct srt_runplan *p, size_t nnodes);
/* A new zeroed process at the end of p->procs (pointers to earlier ones move). */
struct srt_runplan_proc *srt_runplan_add(struct srt_runplan *p);

/*
 * Complete a plan, built or read: check it (unique names, node indexes,
 * log file names relative and without "..", followed processes present),
 * put an external master at the front as a process of its own (kind
 * service, external: probed at its address, never launched), and decide
 * launch groups and stop tiers.  Launch groups: a process in group g
 * starts once every process with readiness probes in a group below g is
 * ready; a group ends after each service (all its instances; not
 * with_workers services), after the last worker, and after the frontend
 * (several frontends and their nginx: after the last of them), and the benchmark waits for everything before it.  Stop tiers: 2 the
 * mooncake master, 1 the other before_workers and the infra services
 * (stores, etcd, NATS), 0 the
 * rest (workers, with_workers and after_frontend services, frontend,
 * benchmark).
 */
int srt_runplan_finish(struct srt_runplan *p, struct srt_error *err);

/*
 * plan.json's object, the one writer (the run directory adds
 * "generation").  An external master's process is not written: it is
 * "mooncake_master".  srt_runplan_load() of the result gives the same
 * plan.  New reference.
 */
json_t *srt_runplan_to_json(const struct srt_runplan *p);

/* ---- reading (the agent, dry-run) ---- */

/*
 * Parse plan.json's object (a reference is taken; the caller keeps its
 * own) into *p: every process checked and typed (argv, env names, probes,
 * restart policy), then srt_runplan_finish().  Release with
 * srt_runplan_release() even on failure.
 */
int srt_runplan_load(struct srt_runplan *p, json_t *plan, struct srt_error *err);

/*
 * Bind the layout: hosts[i] and ips[i] are node i's hostname and IP (n at
 * least p->nnodes), log_dir the absolute log directory.  Substitutes the
 * placeholders in process names, log files, runtime env values and the
 * frontend URL, sets each process's host, ip, endpoint and env hash, and
 * renders the
 * store_config files (master_server_address with the infra IP).  Fails on
 * too few nodes, or a substituted log file name that leaves the log dir.
 * Argv words flagged runtime are substituted like env values.
 */
int srt_runplan_bind(struct srt_runplan *p, const char *const *hosts, const char *const *ips,
		     size_t n, const char *log_dir, struct srt_error *err);

/*
 * s with every layout placeholder of p replaced (p must be bound).  Only
 * whole placeholders are replaced; the rest is copied byte for byte.
 * Allocated in p's arena.
 */
const char *srt_runplan_subst(struct srt_runplan *p, const char *s);

void srt_runplan_release(struct srt_runplan *p);

/*
 * Must process o of bound plan op be restarted to become process n of bound
 * plan np (a new generation on the same nodes)?  True when what its step
 * runs differs: node, container, model mount, argv, any env value (names added, removed
 * or changed), the store_config file it reads (the one MOONCAKE_CONFIG_PATH names)
 * or its log file.  Readiness, restart policy and criticality are not:
 * they apply to the running process as they are.  Appends "; "-separated
 * reasons to *why ("env MOONCAKE_PROTOCOL, FOO", "command or args").
 */
bool srt_runplan_proc_changed(const struct srt_runplan *op, const struct srt_runplan_proc *o,
			      const struct srt_runplan *np, const struct srt_runplan_proc *n,
			      struct srt_buf *why);

/*
 * NULL when `opt` may be one of a step's srun options ("--key" or
 * "--key=value": key of lowercase letters, digits and '-'; value printable
 * ASCII without spaces' worth of trouble: no NUL, newline or tab) and is
 * not one srtctl sets itself (nodes, tasks, node list, job name, MPI,
 * container image and mounts, output files, ...); else why not.
 */
const char *srt_runplan_srun_option_problem(const char *opt);

/*
 * Is TARGET, a mount's "DESTINATION[:FLAGS]", the directory where a process
 * with a model_mount sees its model (SRT_CONTAINER_MODEL_DIR)?  Validation,
 * dry-run and the agent's --container-mounts judge it alike.
 */
bool srt_runplan_at_model_dir(const char *target);

/*
 * The srun option a recipe's `key: value` becomes: "--key=value", or
 * "--key" when value is NULL or empty (the one owner of that spelling).
 * Allocated in a.
 */
const char *srt_runplan_srun_option(struct srt_arena *a, const char *key, const char *value);

/* The process named `name`, or NULL. */
struct srt_runplan_proc *srt_runplan_find(struct srt_runplan *p, const char *name);

#endif
