/*
 * runplan/runplan.h: the run plan's vocabulary, shared by the compiler
 * that writes plans (recipe/) and the agent that carries them out (agent/).
 *
 * This layer sits below both: the agent links it and not the compiler, and
 * the compiler includes it for the words a plan is made of: the kinds of
 * process, restart policies and their defaults, the ports srtctl owns on
 * the mooncake master, readiness defaults, and the layout placeholders
 * (<infra_node_ip>, <log_dir>, ...) that only the agent can bind, on the
 * allocation.  runplan/rundir.h is the run directory the plan travels in.
 */
#ifndef SRT_RUNPLAN_RUNPLAN_H
#define SRT_RUNPLAN_RUNPLAN_H

/* Ports srtctl owns on the mooncake master (see the seed spec). */
#define SRT_MC_RPC_PORT 8700
#define SRT_MC_METADATA_PORT 8701
#define SRT_MC_ADMIN_PORT 8702
/*
 * Ports srtctl owns on every node that runs an lmcache-server: LMCache's
 * RPC (ZMQ) port, which vLLM's LMCacheMPConnector reaches over localhost,
 * and its HTTP port, where GET /healthcheck gates readiness.  srt-slurm's.
 */
#define SRT_LMCACHE_RPC_PORT 8750
#define SRT_LMCACHE_HTTP_PORT 8751
/*
 * A `type: ray` service's defaults (srt-slurm's): the head's GCS port and
 * its dashboard (job submission API), and the readiness budget (the first
 * `ray start` in a fresh container imports a deep-learning stack).
 */
#define SRT_RAY_GCS_PORT 6379
#define SRT_RAY_DASHBOARD_PORT 8265
#define SRT_RAY_READY_TIMEOUT 600
/* Default readiness budget for services (seconds). */
#define SRT_READINESS_TIMEOUT_DEFAULT 120
#define SRT_READINESS_INTERVAL_DEFAULT 2

/* Layout placeholders: bound by the agent once the allocation's nodes are known. */
#define SRT_PH_INFRA_IP "<infra_node_ip>"
#define SRT_PH_WORKER_IP "<worker_ip>"
#define SRT_PH_LOG_DIR "<log_dir>"
/*
 * TRT-LLM's pool commands, relative to the log directory: the master's
 * address file (`trtllm-serve mooncake_master --address_file`, read by
 * the donors and by workers through file://) and its run directory.
 */
#define SRT_POOL_ADDRESS_FILE "mooncake_master.addr"
#define SRT_POOL_MASTER_RUN_DIR "mooncake/master"
/* Where pyxis containers see the log directory, and a process's model_mount. */
#define SRT_CONTAINER_LOG_DIR "/logs"
#define SRT_CONTAINER_MODEL_DIR "/model"

enum srt_proc_kind {
	SRT_PROC_SERVICE,
	SRT_PROC_WORKER,
	SRT_PROC_FRONTEND,
	SRT_PROC_BENCHMARK
};

/* "service", "worker", "frontend", "benchmark". */
const char *srt_proc_kind_name(enum srt_proc_kind k);

enum srt_restart_mode {
	SRT_RESTART_NEVER,
	SRT_RESTART_ON_FAILURE,
	SRT_RESTART_ALWAYS
};

/* Restart policy defaults (documented in docs/recipe-reference.md). */
#define SRT_RESTART_MAX_DEFAULT 5
#define SRT_RESTART_BACKOFF_DEFAULT 1
#define SRT_RESTART_BACKOFF_MAX_DEFAULT 60
#define SRT_RESTART_RESET_DEFAULT 300

struct srt_restart_policy {
	enum srt_restart_mode mode;
	int max_restarts;	 /* restarts allowed before giving up */
	int backoff_seconds;	 /* first delay; doubles each time */
	int max_backoff_seconds; /* cap on the delay */
	int reset_after_seconds; /* a run this long resets the count */
};

/* "never", "on-failure", "always". */
const char *srt_restart_mode_name(enum srt_restart_mode m);

#endif
