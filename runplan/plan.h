/*
 * runplan/plan.h: the run plan as one typed model, read from plan.json.
 *
 * plan.json is written by the compiler (srt_plan_to_json(), recipe/render.h)
 * into the run directory (runplan/rundir.h).  This is its one reader: every
 * process checked and typed, launch groups and stop tiers decided (once,
 * here: the agent starts and stops by them and `srtctl dry-run` shows
 * them), and the binding of the layout placeholders (<prefill_node_0>,
 * <prefill_node_0_ip>, <infra_node_ip>, <log_dir>) to the allocation's
 * real hostnames, IPs and log directory, a pure function.  The agent links
 * this layer and not the compiler.
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
	bool http; /* else TCP */
	int port;
	const char *path; /* HTTP */
	int status;	  /* HTTP: the status wanted */
};

struct srt_runplan_proc {
	const char *name; /* substituted by srt_runplan_bind() */
	enum srt_proc_kind kind;
	const char *service, *type; /* services */
	const char *role;	    /* workers */
	int index, rank;	    /* workers; -1 otherwise */
	const char *phase;	    /* before_workers | with_workers | after_frontend */
	size_t node;
	/*
	 * Recipe values are literal and never substituted; only the words
	 * srtctl built with layout placeholders (plan.json "argv_runtime": their
	 * indexes, e.g. --dist-init-addr <decode_node_0_ip>:8300) are.
	 */
	const char **argv;
	size_t argc;
	bool *argv_runtime;
	const char *model_mount; /* host model dir to mount at /model (pyxis), or NULL */
	const char **env_names, **env_values; /* values substituted when flagged runtime */
	bool *env_runtime;
	size_t nenv;
	const char *container; /* image, or NULL */
	struct srt_runplan_probe probes[4];
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
	int group; /* launch group: see srt_runplan_load() */
	int tier;  /* stop tier: 0 stops first */
	/* After srt_runplan_bind(): */
	const char *host, *ip; /* of its node (external: the master's host) */
	const char *endpoint;  /* "ip:port" of its first probe, or NULL */
	char env_hash[65];     /* srt_rundir_env_hash() of its env */
};

#define SRT_RUNPLAN_TIERS 3

struct srt_runplan {
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
	const json_t *store_config;	/* NULL unless vLLM with a master */
	const char *store_config_file;	/* with <log_dir> */
	struct srt_runplan_proc *procs; /* plan order; an external master first */
	size_t nprocs;
	int ngroups;
	/* After srt_runplan_bind(): */
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
 * benchmark).  Release with srt_runplan_release() even on failure.
 */
int srt_runplan_load(struct srt_runplan *p, json_t *plan, struct srt_error *err);

/*
 * Bind the layout: hosts[i] and ips[i] are node i's hostname and IP (n at
 * least p->nnodes), log_dir the absolute log directory.  Substitutes the
 * placeholders in process names, log files and runtime env values, sets
 * each process's host, ip, endpoint and env hash, and the argv words flagged runtime, and renders the
 * store_config file (master_server_address with the infra IP).  Fails on
 * too few nodes, or a substituted log file name that leaves the log dir.
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
 * runs differs: node, container, argv, any env value (names added, removed
 * or changed), the store_config file it reads (through MOONCAKE_CONFIG_PATH)
 * or its log file.  Readiness, restart policy and criticality are not:
 * they apply to the running process as they are.  Appends "; "-separated
 * reasons to *why ("env MOONCAKE_PROTOCOL, FOO", "command or args").
 */
bool srt_runplan_proc_changed(const struct srt_runplan *op, const struct srt_runplan_proc *o,
			      const struct srt_runplan *np, const struct srt_runplan_proc *n,
			      struct srt_buf *why);

/* The process named `name`, or NULL. */
struct srt_runplan_proc *srt_runplan_find(struct srt_runplan *p, const char *name);

#endif
