/*
 * recipe/cluster.h: the cluster config, srtslurm.yaml.
 *
 * Found through $SRTSLURM_CONFIG, else ./srtslurm.yaml; when neither exists
 * the built-in defaults apply (and srt_cluster.source is NULL).  A config
 * that exists but is invalid is an error, never silently ignored.
 *
 *   runtime:
 *     network_interface: eth0       # IPs for MOONCAKE_LOCAL_HOSTNAME etc.
 *     container_runtime: pyxis      # pyxis | none
 *     log_root: /shared/srtctl/runs # run directories (default ./outputs)
 *   default_account / default_partition / default_time_limit
 *   containers: {alias: image}      # container aliases
 *   slurmrestd: {url, api_version, user, token_file, token_command, timeout_seconds}
 *   model_paths: {alias: path}      # model.path aliases (srt-slurm)
 *   default_container: image        # model.container when a recipe names none
 *   cluster: {account, partition, network_interface, default_time_limit,
 *             default_container}    # srt-slurm 0.3 form; 2.0 names the cluster
 *   commands:                       # argv prefixes, so tests can use stand-ins
 *     mooncake_master: [mooncake_master]
 *     mooncake_store:  [python3, -m, mooncake.mooncake_store_service]
 *     sglang: [python3, -m, sglang.launch_server]
 *     vllm:   [vllm, serve]
 *     trtllm: [trtllm-serve]
 *     dynamo_trtllm: [python3, -m, dynamo.trtllm]
 *     trtllm_launch: [trtllm-llmapi-launch]  # runs each TRT-LLM worker's MPI ranks
 *     mocker: [python3, -m, dynamo.mocker]
 *     srtctl: [srtctl]
 *     sglang_router: [python3, -m, sglang_router.launch_router]
 *     vllm_router:   [vllm-router]
 *     vllm_bench:    [vllm, bench, serve]      # campaign benchmark.tool: vllm-bench
 *     sa_bench:      [python3, -u, /srtctl-benchmarks/sa-bench/benchmark_serving.py]
 *   visible_devices_env: CUDA_VISIBLE_DEVICES  # the GPU-set variable (ROCm: ROCR_VISIBLE_DEVICES)
 *   notify:                         # the controller's notifications (docs/operations.md)
 *     command: [/usr/local/bin/page-oncall]   # one JSON event on stdin
 *     timeout: 30s                  # killed after this (by PID)
 *     backoff: 5s                   # first retry; doubled per attempt, up to 10m
 *     max_attempts: 10              # then the notification is Abandoned
 *
 *   use_gpus_per_node_directive / use_segment_sbatch_directive /
 *   use_exclusive_sbatch_directive: bool, default_sbatch_directives: {k: v}
 *
 * Every other key srt-slurm 0.3 or 2.0 documents for srtslurm.yaml
 * (srtctl_root, reporting, default_mounts, ...)
 * is accepted with one warning that srtctl ignores it, so one file serves
 * both tools.  A key neither tool knows is an error with a suggestion.
 */
#ifndef SRT_RECIPE_CLUSTER_H
#define SRT_RECIPE_CLUSTER_H

#include <stdbool.h>

#include "recipe/model.h"
#include "recipe/yaml.h"
#include "util/diag.h"

enum srt_container_runtime {
	SRT_CRT_NONE,
	SRT_CRT_PYXIS
};

/*
 * commands.dynamo_trtllm_pool's default: `python3 -c` this program, then the
 * role's engine YAML, then dynamo.trtllm's arguments.  Dynamo builds TRT-LLM's
 * LLM itself, past trtllm-serve's pool provisioning, so the program
 * provisions the pool from the YAML's kv_connector_config (its mooncake_store
 * block) around dynamo.trtllm's whole life; the ranks the launcher starts
 * read the rendered mooncake.json from TRTLLM_MOONCAKE_RUN_DIR.
 */
#define SRT_DYNAMO_TRTLLM_POOL_PROGRAM                                          \
	"import runpy, sys\n"                                                   \
	"import yaml\n"                                                         \
	"from tensorrt_llm.llmapi.llm_args import KvCacheConnectorConfig\n"     \
	"from tensorrt_llm._torch.pyexecutor.connectors.mooncake_store import " \
	"maybe_provision_pool\n"                                                \
	"with open(sys.argv.pop(1)) as f:\n"                                    \
	"    engine = yaml.safe_load(f) or {}\n"                                \
	"connector = KvCacheConnectorConfig(**engine['kv_connector_config'])\n" \
	"with maybe_provision_pool(connector):\n"                               \
	"    runpy.run_module('dynamo.trtllm', run_name='__main__', alter_sys=True)\n"

enum srt_cmd_kind {
	SRT_CMD_MOONCAKE_MASTER,
	SRT_CMD_MOONCAKE_STORE,
	SRT_CMD_SGLANG,
	SRT_CMD_VLLM,
	SRT_CMD_TRTLLM,
	SRT_CMD_MOCKER,
	SRT_CMD_SRTCTL,
	SRT_CMD_SGLANG_ROUTER,
	SRT_CMD_VLLM_ROUTER,
	SRT_CMD_VLLM_BENCH,
	SRT_CMD_SA_BENCH,
	SRT_CMD_DYNAMO_SGLANG,
	SRT_CMD_DYNAMO_VLLM,
	SRT_CMD_DYNAMO_FRONTEND,
	SRT_CMD_ETCD,
	SRT_CMD_NATS,
	SRT_CMD_DYNAMO_TRTLLM,
	SRT_CMD_TRTLLM_LAUNCH,
	SRT_CMD_NUMACTL,
	SRT_CMD_LMCACHE,
	SRT_CMD_DYNAMO_TRTLLM_POOL, /* dynamo.trtllm inside TRT-LLM's pool (a role with mooncake_store) */
	SRT_CMD_RAY,		    /* the `ray` CLI of a ray service */
	SRT_CMD_TILERT_DECODE,	    /* TileRT's decode server (roles.decode.engine: tilert) */
	SRT_CMD_TILERT_ROUTER,	    /* TileRT's P/D router (frontend.type: tilert-router) */
	SRT_CMD_NGINX,		    /* nginx in front of several frontends (bare nodes) */
	SRT_CMD_COUNT,
};

/* A notify: block (docs/operations.md "Notifications"). */
struct srt_notify_block {
	struct srt_argv command; /* n == 0: no notify command configured */
	int64_t timeout_ms, backoff_ms;
	int max_attempts;
};

struct srt_cluster {
	struct srt_ydoc *doc;	       /* owns the strings below; NULL for pure defaults */
	const char *source;	       /* path it was read from, or NULL */
	const char *network_interface; /* NULL: the node's default route interface */
	const char *visible_devices_env; /* NULL: CUDA_VISIBLE_DEVICES */
	enum srt_container_runtime container_runtime;
	const char *log_root;
	const char *default_account, *default_partition, *default_time_limit;
	struct srt_env containers;     /* alias -> image */
	struct srt_env model_paths;    /* alias -> model path */
	const char *default_container; /* image for recipes that name none, or NULL */
	/* srt-slurm's checkout (absolute), whose configs/ holds the recipes' setup_script; or NULL */
	const char *srtctl_root;
	/* Shell run first in every container step, before its command (ulimits...); or NULL */
	const char *default_bash_preamble;
	/* nginx_raise_ulimit for recipes that leave frontend.nginx_raise_ulimit unset: -1 unset */
	int nginx_raise_ulimit;
	struct {
		const char *url;
		const char *api_version; /* NULL: newest the server serves */
		const char *user;
		const char *token_file;
		struct srt_argv token_command;
		int timeout_seconds;
	} slurmrestd;
	struct srt_argv commands[SRT_CMD_COUNT];
	/*
	 * The job directives srt-slurm's switches ask for (recipe/script.c
	 * applies them): --gpus-per-node=<resources.gpus_per_node> (default
	 * on), --segment=<the job's node count> where the API version has it
	 * (default on), --exclusive (unset: srtctl's default, on).
	 */
	bool use_gpus_per_node_directive, use_segment_sbatch_directive;
	int use_exclusive_sbatch_directive; /* -1 unset, 0, 1 */
	/* default_sbatch_directives, long names; a recipe's directive of the same group wins */
	struct srt_env default_sbatch_directives;
	/* default_mounts: "SRC:DST[:FLAGS]" before every recipe's own mounts (name: the spec) */
	struct srt_env default_mounts;
	/* default_health_check: a recipe's health_check where it writes none (0: unset) */
	int health_max_attempts, health_interval_seconds;
	struct srt_notify_block notify;
	/*
	 * Not srtslurm.yaml's: the environment a recipe's $VARs resolve in
	 * (recipe/envvars.h), set by the verbs that read a user's recipe and
	 * NULL where a recorded (already resolved) spec is compiled; with
	 * env_strict (apply) a variable that is not set is an error.
	 */
	const char *(*env)(const char *name);
	bool env_strict;
};

/*
 * Parse a `notify:` block (srtslurm.yaml's, or a campaign's: the same keys)
 * at `v` (NULL or null: none) into *out, defaults first.  Errors go to
 * diags with paths under `path` ("notify"); returns how many.  Strings stay
 * in doc's arena.
 */
int srt_notify_block_parse(struct srt_ydoc *doc, const struct srt_ynode *v, const char *path,
			   struct srt_notify_block *out, struct srt_diags *diags);

/* Fill *c with the built-in defaults (no allocation). */
void srt_cluster_defaults(struct srt_cluster *c);

/*
 * Load the cluster config.  `path` overrides discovery when non-NULL.
 * Returns 0 (defaults when no file was found), or -1 with errors in diags.
 * Release with srt_cluster_release().
 */
int srt_cluster_load(struct srt_cluster *c, const char *path, struct srt_diags *diags);
int srt_cluster_parse(struct srt_cluster *c, struct srt_ydoc *doc, struct srt_diags *diags);
void srt_cluster_release(struct srt_cluster *c);

/*
 * Apply the cluster's aliases and defaults to a parsed recipe, before it is
 * validated: a model.path that is a model_paths alias becomes the mapped
 * path; a recipe without model.container (or with "") gets default_container.  Only the
 * struct changes (the recipe's YAML, its spec, is left as written).
 */
void srt_cluster_apply(const struct srt_cluster *c, struct srt_recipe *r);

/* Resolve a container alias; returns the image (or the name itself). */
const char *srt_cluster_container(const struct srt_cluster *c, const char *name);
const char *srt_cmd_kind_name(enum srt_cmd_kind k);

#endif
