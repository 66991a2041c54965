/*
 * recipe/launch.h: what srtctl adds to each engine's and router's command
 * line and environment, and why.
 *
 * A worker's argv is commands.<engine> + the words srt_launch_worker()
 * returns + the role's args (less the keys srt_launch_arg_replaced() names)
 * + extra_args; a recipe value always comes after srtctl's.  The frontend's
 * is commands.<router> (or frontend.command) + srt_launch_frontend()'s words
 * + frontend.args.  Every word and variable carries a reason (dry-run and
 * docs/recipe-reference.md "What srtctl adds to the engines' command lines"
 * show them).  Everything here is a pure function of (recipe, cluster,
 * layout): node IPs are layout placeholders ("<decode_node_0_ip>"), and a
 * word that holds one is flagged `runtime` so the agent substitutes it (and
 * nothing else) when it binds the plan to the allocation.
 *
 * Ports (per node; j is the worker's slot among the worker leaders on its
 * node, srt_lworker.slot):
 *   HTTP              6100 + 32*j (SGLang and vLLM; 0 on a non-leader SGLang rank;
 *                                  roles.<role>.args.port when set)
 *   PD bootstrap      7200 + j    (SGLang prefill; unless the recipe sets its own)
 *   NCCL              17500 + j   (SGLang)
 *   dist-init         8300        (multi-node workers own their nodes)
 *   vLLM DP RPC       8400 + j    (unless the recipe sets its own)
 *   NIXL side channel 5400 + j    (vLLM prefill/decode)
 *   frontend          frontend.port (8000)
 *   Dynamo status     7500 + j    (a Dynamo worker's /health: DYN_SYSTEM_PORT)
 *   KV events         5200 + n    (job-wide, not per node: n counts every worker
 *                                  process before this one in layout order, a vLLM
 *                                  process one per local DP rank; srt-slurm's)
 *   TRT-LLM HTTP      6100 + 32*j (trtllm-serve on a worker's rank 0; frontend.port when direct)
 *   etcd              2379 (clients), 2380 (peers)   on the etcd service's node
 *   NATS              4222                           on the nats service's node
 *
 * Under the Dynamo frontend the workers are Dynamo's (`python3 -m
 * dynamo.sglang` / `dynamo.vllm`, or the mocker's `dynamo.mocker` with the
 * knobs of srt_mocker_knobs() and no --request-plane): the same engine
 * flags (vLLM's model as --model, without the API server's --host/--port), --request-plane, and
 * the discovery env (ETCD_ENDPOINTS, NATS_SERVER when NATS runs,
 * DYN_SYSTEM_PORT, DYN_REQUEST_PLANE).  They serve no HTTP API: they
 * register in etcd, and the frontend (`python3 -m dynamo.frontend
 * --http-port=PORT`) finds them there.
 */
#ifndef SRT_RECIPE_LAUNCH_H
#define SRT_RECIPE_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

#include "recipe/cluster.h"
#include "recipe/model.h"
#include "recipe/render.h"
#include "util/arena.h"

#define SRT_LAUNCH_HTTP_PORT 6100
#define SRT_LAUNCH_HTTP_STRIDE 32
#define SRT_LAUNCH_BOOTSTRAP_PORT 7200
#define SRT_LAUNCH_NCCL_PORT 17500
#define SRT_LAUNCH_DIST_INIT_PORT 8300
#define SRT_LAUNCH_DP_RPC_PORT 8400
#define SRT_LAUNCH_NIXL_PORT 5400
#define SRT_LAUNCH_FRONTEND_PORT 8000
/* srt-slurm's port of each frontend behind nginx (its FRONTEND_INTERNAL_PORT). */
#define SRT_LAUNCH_FRONTEND_INTERNAL_PORT 8180
/* nginx's worker_connections; with nginx_raise_ulimit, this open-file limit and as many. */
#define SRT_NGINX_CONNECTIONS 65536
#define SRT_NGINX_NOFILE 1048576
#define SRT_LAUNCH_DYN_SYSTEM_PORT 7500
#define SRT_LAUNCH_KV_EVENTS_PORT 5200
#define SRT_DYN_ETCD_PORT 2379
#define SRT_DYN_ETCD_PEER_PORT 2380
#define SRT_DYN_NATS_PORT 4222
/* Engines load weights before they answer: srt-slurm waits 180 x 10 s. */
#define SRT_LAUNCH_READY_TIMEOUT 1800
#define SRT_LAUNCH_READY_INTERVAL 10

/* One argv word srtctl adds; a flag and its values share the reason. */
struct srt_lword {
	const char *arg;
	const char *why;
	bool runtime; /* holds layout placeholders the agent substitutes */
};

/* One environment variable srtctl stamps. */
struct srt_lenv {
	const char *name, *value, *why;
	bool runtime;
};

/* What srtctl adds to one process (all of it allocated in the caller's arena). */
struct srt_launch {
	struct srt_lword *words; /* in order, right after the command */
	size_t nwords, capwords;
	struct srt_lenv *env;
	size_t nenv, capenv;
	int port;	    /* the HTTP port it serves, or 0 */
	const char *url;    /* "http://<ip>:<port>" it serves, or NULL */
	int bootstrap_port; /* SGLang prefill: the port the router passes on; else 0 */
	int side_port;	    /* vLLM prefill: the NIXL side-channel port for the router */
	struct srt_readiness readiness; /* nprobes == 0: ready once launched */
	const char *mount; /* host directory to mount at SRT_CONTAINER_MODEL_DIR, or NULL */
	/*
	 * A file the process reads, written by the agent into the log dir
	 * before each start (trtllm_serve's orchestrator config): its name and
	 * text; config_runtime when the text holds layout placeholders.
	 */
	const char *config_file, *config_text;
	bool config_runtime;
};

/*
 * A TRT-LLM worker's run directory for TRT-LLM's own Mooncake pool, relative
 * to the log directory: "mooncake/<role>-<index>" (the agent creates it).
 */
const char *srt_launch_pool_run_dir(struct srt_arena *a, const struct srt_lworker *w);

/* The frontend kinds srtctl runs (frontend.type). */
enum srt_frontend_kind {
	SRT_FE_NONE,	      /* "none" (default): no frontend, no URL */
	SRT_FE_SGLANG_ROUTER, /* "sglang-router" */
	SRT_FE_VLLM_ROUTER,   /* "vllm-router" */
	SRT_FE_DIRECT,	      /* "sglang" / "vllm": the single agg worker serves frontend.port */
	SRT_FE_DYNAMO,	      /* "dynamo": Dynamo's frontend over Dynamo's workers and etcd */
	SRT_FE_TRTLLM_SERVE,  /* "trtllm_serve" over TRT-LLM prefill/decode: its orchestrator */
	SRT_FE_TILERT_ROUTER, /* "tilert-router": TileRT's P/D router over vLLM prefill, TileRT decode */
	SRT_FE_CUSTOM,	      /* another type with frontend.command: run it as written */
	SRT_FE_REFUSED,	      /* dynamo, trtllm_serve, ...: a validation error */
};

/*
 * frontend.type of r as a kind.  For SRT_FE_REFUSED, *why (when not NULL)
 * gets the sentence validation prints: why srtctl does not run it and what
 * to write instead.
 */
enum srt_frontend_kind srt_launch_frontend_kind(const struct srt_recipe *r, const char **why);

/*
 * The words and env srtctl adds to rank `rank` (0 = the leader) of layout
 * worker w, its port, URL and readiness (an HTTP GET /health on the
 * leader's port; a non-leader rank serves no HTTP and has no probe).
 * Allocated in a; cannot fail (validation has rejected what conflicts).
 */
void srt_launch_worker(struct srt_launch *out, struct srt_arena *a, const struct srt_recipe *r,
		       const struct srt_cluster *c, const struct srt_layout *l,
		       const struct srt_lworker *w, int rank);

/*
 * The KV-event port of process `rank` (node `rank` of the worker) of w:
 * roles.<role>.kv_events's endpoint (tcp, every address) and dynamo.vllm's
 * DYN_VLLM_KV_EVENT_PORT.
 */
int srt_launch_kv_events_port(const struct srt_recipe *r, const struct srt_layout *l,
			      const struct srt_lworker *w, int rank);

/*
 * How long a worker may take to become ready: health_check.max_attempts x
 * interval_seconds, each from the recipe, else the cluster's
 * default_health_check, else srt-slurm's 180 x 10 s.  srtctl probes on its
 * own cadence; only the window comes from there.
 */
int srt_launch_ready_timeout(const struct srt_recipe *r, const struct srt_cluster *c);

/*
 * Does a TRT-LLM worker of `role` run under `numactl -m 0,1` (memory from
 * the CPUs' NUMA nodes only, not the GPUs' on a Grace Blackwell tray)?
 * engine.numa_memory_bind: true for every role, false for none; unset, as
 * srt-slurm: prefill and decode workers on gb200, gb300 and vrnvl72
 * (resources.gpu_type, case-sensitive).
 */
bool srt_launch_numa_bind(const struct srt_recipe *r, enum srt_role_kind role);

/*
 * The frontend's words (after its command) and readiness, and the URL the
 * benchmark gets as SRT_FRONTEND_URL (out->url; NULL without a frontend).
 * out->nwords == 0 and out->port == 0 when no frontend process runs
 * (none, direct).  Allocated in a; cannot fail.
 */
void srt_launch_frontend(struct srt_launch *out, struct srt_arena *a, const struct srt_recipe *r,
			 const struct srt_cluster *c, const struct srt_layout *l);

/* The same for a frontend on `node` serving `port` (one of several behind nginx). */
void srt_launch_frontend_at(struct srt_launch *out, struct srt_arena *a, const struct srt_recipe *r,
			    const struct srt_cluster *c, const struct srt_layout *l, size_t node,
			    int port);

/*
 * srt-slurm's frontend topology.  With frontend.enable_multiple_frontends
 * true, a frontend that can run several times (dynamo, sglang-router,
 * vllm-router) and worker nodes besides the head: nginx on the head at
 * frontend.port in front of min(num_additional_frontends + 1, those nodes)
 * frontends, one per node in node order, each on port
 * SRT_LAUNCH_FRONTEND_INTERNAL_PORT.  Returns that count and sets *nodes
 * (allocated in a); 0 (and NULL): one frontend on the head, no nginx.
 */
size_t srt_launch_frontend_nodes(const struct srt_recipe *r, const struct srt_layout *l,
				 struct srt_arena *a, const size_t **nodes);

/*
 * nginx.conf for those frontends: round robin (or, with
 * nginx_session_affinity, a consistent hash of the header, a request id
 * without it), keepalive to them, listening on frontend.port; request
 * bodies kept in memory; its pid file in `dir` (the log directory as nginx
 * sees it), and outside a container (`contained` false: nginx runs as the
 * job's user) its temporary directories too.  The IPs are layout
 * placeholders: bind them at run time.  Allocated in a.
 */
const char *srt_launch_nginx_conf(struct srt_arena *a, const struct srt_recipe *r,
				  const struct srt_cluster *c, const struct srt_layout *l,
				  const size_t *nodes, size_t n, const char *dir, bool contained);

/* Does nginx raise its open-file limit: frontend.nginx_raise_ulimit, else the cluster's, else no. */
bool srt_launch_nginx_raise_ulimit(const struct srt_recipe *r, const struct srt_cluster *c);

/* The frontend's command from the cluster config (its router), or NULL for none/direct/custom. */
const struct srt_argv *srt_launch_frontend_command(const struct srt_recipe *r,
						   const struct srt_cluster *c);

/*
 * Is a role's args key one srtctl replaces, as srt-slurm does: the model
 * (model-path / model), served-model-name, nccl-port, port and vLLM's
 * connector (a --kv-transfer-config)?  Such a key is left out of the argv
 * (its served-model-name and port values are used); validation warns about
 * the model and nccl-port.
 */
bool srt_launch_arg_replaced(const struct srt_recipe *r, const char *key);

/*
 * roles.<role>.args.port on an SGLang or vLLM role (srt-slurm appends it
 * after its own --port, so the recipe's wins): the HTTP port of each of the
 * role's worker leaders in place of 6100 + 32*j, or 0 when unset or not a
 * port (validation says which).  Validation allows it only where it cannot
 * collide: one worker of the role per node, no colocated role.
 */
int srt_launch_role_port(const struct srt_recipe *r, enum srt_role_kind role);

/*
 * Does args key (or raw argument) `key` set a flag srtctl owns on this
 * recipe's engine?  Returns the canonical flag ("--port") and sets *why to
 * the reason, or NULL.  Dash and underscore spellings and `--flag=value`
 * match; SGLang's aliases (--nccl-init-addr) and vLLM's short forms (-dpa)
 * too.  A `disaggregation-mode` that agrees with the role, and the keys of
 * srt_launch_arg_replaced(), are not conflicts.
 */
const char *srt_launch_owned_flag(const struct srt_recipe *r, const char *key, const char **why);

/*
 * Dynamo's discovery plane as its clients see it: ETCD_ENDPOINTS and
 * NATS_SERVER (NULL when no NATS runs), a layout placeholder URL (*runtime
 * set) or the external service's URL.  etcd is NULL without an etcd service.
 */
struct srt_dyn_planes {
	const char *etcd, *nats;
	bool etcd_runtime, nats_runtime;
};
void srt_launch_dyn_planes(struct srt_dyn_planes *out, struct srt_arena *a,
			   const struct srt_recipe *r, const struct srt_layout *l);

/*
 * The words (after commands.etcd / commands.nats) and readiness of an etcd
 * or nats service on layout node `node`: etcd listens for clients on every
 * address, advertises the node's IP and keeps its data under the run's log
 * directory (fresh per attempt); NATS runs JetStream with its store there.
 */
void srt_launch_discovery(struct srt_launch *out, struct srt_arena *a, const struct srt_layout *l,
			  const struct srt_service *s, size_t node);

/*
 * vLLM's KV connector, as srt-slurm gives it to every vLLM worker: a role's
 * args `connector`, else engine.connector, else "nixl".  Returns the
 * --kv-transfer-config JSON of srt-slurm's shorthands (nixl, lmcache,
 * kvbm) or a raw JSON object as written; NULL for none (null, "none", or a
 * role that writes its own kv-transfer-config) and for a name srtctl cannot
 * translate, which *bad then names (validation reports it).
 */
const char *srt_launch_vllm_connector(const struct srt_recipe *r, enum srt_role_kind role,
				      const char **bad);

/* The JSON of one of srt-slurm's vLLM connector shorthands, or NULL. */
const char *srt_launch_vllm_connector_json(const char *name);

/*
 * A TRT-LLM worker's engine YAML: its file name in the log directory
 * ("trtllm_<role>_<index>.yaml"), where the agent writes the role's args
 * before each start and the worker reads it (--extra-engine-args,
 * --extra_llm_api_options).
 */
const char *srt_launch_trtllm_config(struct srt_arena *a, const struct srt_lworker *w);

/* The model argument: "/model" in a pyxis container, the HF id of "hf:ID", else model.path. */
const char *srt_launch_model_arg(const struct srt_recipe *r, const struct srt_cluster *c,
				 enum srt_role_kind role);

/* The served model name: the first served-model-name of prefill, agg, decode args, else basename. */
const char *srt_launch_served_name(struct srt_arena *a, const struct srt_recipe *r);

#endif
