/*
 * recipe/render.h: a validated recipe rendered into the processes of a run.
 *
 * Everything here is a pure function of (recipe, cluster config, layout):
 * no I/O, no clock, no environment.  srt_plan_build() fills the run plan
 * (runplan/plan.h), the one model of what runs: dry-run prints it, the
 * batch script (recipe/script.h) is written beside it, and plan.json (the
 * controller -> agent hand-off) is its JSON form, written by runplan/.
 *
 * Layout and placeholders.  Node hostnames and IPs are only known inside the
 * allocation, so the layout names them with placeholders that are also the
 * reference syntax consumers substitute at run time:
 *
 *   <infra_node_ip>        IP of the node the infra services run on (the
 *                          mooncake master).  With placement.node: dedicated
 *                          that is an extra node labelled infra_node.
 *   <ROLE_node_J>          hostname of the J-th node of a role
 *                          (prefill_node_0, decode_node_1, agg_node_0, ...;
 *                          a colocated decode shares the prefill nodes).
 *   <ROLE_node_J_ip>       that node's IP.
 *   <infra_node>, <infra_node_ip>   the dedicated infra node, when there is one.
 *   <log_dir>              the run's log directory on the shared filesystem
 *                          (mounted at /logs inside pyxis containers).
 *   <worker_ip>            only in srt_render_role_env() tables: "the IP of
 *                          each worker's own node".
 *
 * Only values srtctl builds carry placeholders; such values are flagged
 * `runtime` (env) so a consumer substitutes them and nothing else.  A
 * recipe value that happens to contain "<log_dir>" is never rewritten.
 *
 * Node order in the allocation: the prefill nodes, then decode (unless
 * colocated), then agg, then each service node pool (services[].nodes, in
 * declaration order: <pool_NAME_node_J>), then the dedicated infra node if
 * any.  The head node (frontend, benchmark, placement.node: head) is node 0:
 * in a recipe without roles, the first pool node (or a node of its own).  The infra node is
 * the dedicated node when a launched service asks for placement.node:
 * dedicated, else the head node.
 *
 * Endpoint rules (docs/mooncake-kv-store.md):
 *   MOONCAKE_MASTER               <infra_node_ip>:8700, or service.external
 *                                 ("host:port") verbatim.
 *   MOONCAKE_TE_META_DATA_SERVER  http://<infra_node_ip>:8701/metadata; for an
 *                                 external master http://<host>:8701/metadata
 *                                 (assumption: an external master serves its
 *                                 HTTP metadata on srtctl's port 8701).
 *   MOONCAKE_CONFIG_PATH (vLLM)   the store_config file, written by the batch
 *                                 script to <log_dir>/mooncake/store_config.json;
 *                                 workers in a pyxis container see it as
 *                                 /logs/mooncake/store_config.json.
 */
#ifndef SRT_RECIPE_RENDER_H
#define SRT_RECIPE_RENDER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "recipe/cluster.h"
#include "recipe/model.h"
#include "runplan/plan.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/strmap.h"

/* The store_config file, relative to the log directory. */
#define SRT_STORE_CONFIG_FILE SRT_RUNPLAN_VLLM_STORE_CONFIG
/* The frontend's readiness budget (it binds before the workers are ready). */
#define SRT_FRONTEND_READY_TIMEOUT 600

/* ---- layout ---- */

struct srt_lnode {
	const char *label; /* "prefill_node_0", "infra_node", "head_node", "pool_train_node_0" */
	const char *host;  /* "<prefill_node_0>" */
	const char *ip;	   /* "<prefill_node_0_ip>" */
	bool dedicated;	   /* the reserved infra node (runs no worker) */
	const char *pool;  /* the service that owns it (a node pool), or NULL */
};

/* A service node pool: nodes[first .. first+n) belong to `owner`. */
struct srt_lpool {
	const struct srt_service *owner;
	size_t first, n;
};

struct srt_lworker {
	enum srt_role_kind role;
	int index;     /* 0-based within the role */
	size_t node;   /* first node */
	size_t nnodes; /* nodes it spans: >1 for a multi-node worker */
	/*
	 * GPUs on each of its nodes: gpus from gpu_first (packed as srt-slurm
	 * does: prefill, decode, agg; partial-node workers at offsets 0..g-1,
	 * g..2g-1 on a node), and its slot among the worker leaders on its
	 * first node (0, 1, ...: picks its ports, recipe/launch.h).
	 */
	int gpu_first, gpus;
	int slot;
};

struct srt_layout {
	struct srt_lnode *nodes;
	size_t nnodes;
	struct srt_lworker *workers; /* role order, then index */
	size_t nworkers;
	struct {
		size_t first, n; /* the role's nodes: nodes[first .. first+n) */
		size_t wfirst;	 /* its workers: workers[wfirst ..], in index order */
	} roles[SRT_ROLE_COUNT];
	struct srt_lpool *pools; /* in declaration order, after the roles' nodes */
	size_t npools;
	size_t head;	      /* always 0: the first role node, else the first pool node */
	size_t infra;	      /* the node infra services run on */
	bool dedicated;	      /* infra is an extra, reserved node */
	const char *infra_ip; /* SRT_PH_INFRA_IP */
	const char *log_dir;  /* SRT_PH_LOG_DIR */
};

/*
 * Compute the node layout of r (allocated in a; cannot fail).  Per role:
 * `nodes` nodes (default 1, as validation assumes); with `gpus` per worker
 * the workers are packed onto gpus_per_node GPUs per node (a worker with
 * more GPUs than a node spans several); without it the nodes are split
 * evenly between the workers, or the workers share them.  Each worker's
 * GPU set and port slot are counted per node in role order.
 */
void srt_layout_build(struct srt_layout *l, struct srt_arena *a, const struct srt_recipe *r);

/* A placeholder recognised at the start of a string (see srt_layout_ref()). */
enum srt_lref_kind {
	SRT_LREF_INFRA_IP,
	SRT_LREF_NODE_HOST,
	SRT_LREF_NODE_IP,
	SRT_LREF_LOG_DIR
};

struct srt_lref {
	enum srt_lref_kind kind;
	size_t node; /* SRT_LREF_NODE_* */
	size_t len;  /* bytes of the placeholder */
};

/* Does s start with one of l's placeholders?  Fills *ref when it does. */
bool srt_layout_ref(const struct srt_layout *l, const char *s, struct srt_lref *ref);

/* The pool of the service named `owner` (a launched service with nodes), or NULL. */
const struct srt_lpool *srt_layout_pool(const struct srt_layout *l, const char *owner);

/* The layout's worker (role, index), or NULL. */
const struct srt_lworker *srt_layout_worker(const struct srt_layout *l, enum srt_role_kind role,
					    int index);

/* ---- environment ---- */

enum srt_env_owner {
	SRT_OWNER_RECIPE,
	SRT_OWNER_SRTCTL
};

struct srt_renv_var {
	const char *name;
	const char *value;
	enum srt_env_owner owner;
	/* Recipe: the layer that set it ("environment", "roles.prefill.env",
	 * "services.store.env", "frontend.env", "benchmark.env").
	 * srtctl: why ("mooncake-master", "mooncake-master (external)"). */
	const char *layer;
	bool runtime;		/* value holds layout placeholders to substitute */
	const char *overridden; /* a recipe value srtctl replaced, or NULL */
	const char *overridden_layer;
};

/* An ordered env: a name keeps the position it was first set at. */
struct srt_renv {
	struct srt_renv_var *v;
	size_t n, cap;
	struct srt_strmap index; /* name -> position in v, in the same arena */
};

const char *srt_env_owner_name(enum srt_env_owner o);
/* The variable `name` of e, or NULL (a hash lookup: the env may be large). */
const struct srt_renv_var *srt_renv_find(const struct srt_renv *e, const char *name);

/*
 * The env of role `role`'s workers whose node IP is `self_ip` (pass
 * SRT_PH_WORKER_IP for a per-role table).  Layers, later winning: recipe
 * `environment`, roles.<role>.env, then - when an enabled mooncake-master
 * entry exists - MOONCAKE_MASTER and MOONCAKE_TE_META_DATA_SERVER (always
 * srtctl's), MOONCAKE_LOCAL_HOSTNAME (self_ip unless roles.<role>.env pins
 * it), and for vLLM MOONCAKE_CONFIG_PATH.  Allocated in a; cannot fail.
 */
void srt_render_role_env(struct srt_renv *out, struct srt_arena *a, const struct srt_recipe *r,
			 const struct srt_cluster *c, const struct srt_layout *l,
			 enum srt_role_kind role, const char *self_ip);

/* The same for the layout's worker (role, index), with its node's IP. */
void srt_render_worker_env(struct srt_renv *out, struct srt_arena *a, const struct srt_recipe *r,
			   const struct srt_cluster *c, const struct srt_layout *l,
			   enum srt_role_kind role, int index);

/*
 * The env of one instance of service s running on node `node`:
 * recipe `environment` + the entry's env; a mooncake-store also gets
 * MOONCAKE_MASTER, MOONCAKE_TE_META_DATA_SERVER (srtctl's) and
 * MOONCAKE_LOCAL_HOSTNAME (the node's IP unless the entry's env pins it).
 * The master gets no role env and no stamped variables.
 */
void srt_render_service_env(struct srt_renv *out, struct srt_arena *a, const struct srt_recipe *r,
			    const struct srt_layout *l, const struct srt_service *s, size_t node);

/* JSON array of {name, value, owner, layer[, runtime][, overridden, overridden_layer]}. */
json_t *srt_renv_to_json(const struct srt_renv *e);

/* ---- endpoints, store_config, containers ---- */

/* "<infra_node_ip>:8700", or the external "host:port"; NULL without a master. */
const char *srt_render_master_addr(struct srt_arena *a, const struct srt_recipe *r,
				   const struct srt_layout *l);
/* "http://<infra_node_ip>:8701/metadata" (or the external host's); NULL without a master. */
const char *srt_render_metadata_url(struct srt_arena *a, const struct srt_recipe *r,
				    const struct srt_layout *l);

/*
 * The vLLM store_config object: options.store_config converted to JSON with
 * master_server_address forced to srt_render_master_addr() (always the
 * first key; a user value is ignored).  New reference; NULL when there is
 * no enabled master or the engine is not vLLM.
 */
json_t *srt_render_store_config(const struct srt_recipe *r, const struct srt_layout *l);

/*
 * Image of the job container (model.container through cluster aliases), or
 * NULL.  Here and below an empty image name ('') counts as not set, as in
 * srt-slurm: it falls back like an absent one and never renders as an empty
 * --container-image=.
 */
const char *srt_render_job_container(const struct srt_recipe *r, const struct srt_cluster *c);
/* A role's image: roles.<role>.container, else the job container. */
const char *srt_render_role_container(const struct srt_recipe *r, const struct srt_cluster *c,
				      enum srt_role_kind role);
/*
 * A service's image: its container; a mooncake-store falls back to the
 * mooncake-master entry's container; then the job container.
 */
const char *srt_render_service_container(const struct srt_recipe *r, const struct srt_cluster *c,
					 const struct srt_service *s);

/* ---- argv ---- */

/*
 * Render an `args:` mapping into argv words appended to *out (allocated
 * in a): key -> --key value (a key already starting with '-' is kept);
 * true -> --key; false or null -> omitted; a list -> --key v1 v2 ... (an
 * empty list is omitted); a mapping -> --key '<compact JSON>'; scalars as
 * written in the YAML.  `path` names the mapping in diagnostics.
 * Returns 0, or -1 after adding an error to d (a NUL byte in a key or value).
 */
int srt_render_args(struct srt_argv *out, struct srt_arena *a, const struct srt_ynode *args,
		    const char *file, const char *path, struct srt_diags *d);

/*
 * The argv of rank `rank` of layout worker w: cluster commands[engine] +
 * what srtctl adds (srt_launch_worker(), recipe/launch.h) + rendered
 * roles.<role>.args (less the keys srtctl replaces) + extra_args.  When
 * `runtime` is not NULL it gets a per-word array (in a): true where the
 * word holds layout placeholders to substitute.  -1 on error.
 */
int srt_render_worker_argv(struct srt_argv *out, bool **runtime, struct srt_arena *a,
			   const struct srt_recipe *r, const struct srt_cluster *c,
			   const struct srt_layout *l, const struct srt_lworker *w, int rank,
			   struct srt_diags *d);

/*
 * A service's argv: mooncake-master = commands[mooncake_master] +
 * --rpc_port=8700 --enable_http_metadata_server=true
 * --http_metadata_server_port=8701 --metrics_port=8702 + args (always the
 * --flag=value form: gflags reads "--flag false" as true);
 * mooncake-store = commands[mooncake_store] + args; generic = command + args.
 */
void srt_render_service_argv(struct srt_argv *out, struct srt_arena *a, const struct srt_cluster *c,
			     const struct srt_service *s);

/* ---- plan ---- */

/*
 * The compiler's output: the run plan (runplan/plan.h, the one model of
 * what runs, which plan.json is written from) and what it was made from.
 */
struct srt_plan {
	struct srt_arena arena;		   /* owns the rendered strings and everything below */
	const struct srt_recipe *recipe;   /* borrowed */
	const struct srt_cluster *cluster; /* borrowed */
	struct srt_layout layout;
	struct srt_runplan run;		  /* the processes in start order, groups, tiers */
	const struct srt_service *master; /* enabled mooncake-master entry, or NULL */
	bool master_external;
	const char *master_addr;       /* NULL without a master */
	/*
	 * The Mooncake client configs (owned): vLLM's one file
	 * ("<log_dir>/mooncake/store_config.json"), or one per TRT-LLM role
	 * that reads one (recipe/mcclient.h); none without a master.
	 */
	json_t *store_configs[SRT_RUNPLAN_STORE_CONFIGS_MAX];
	const char *store_config_files[SRT_RUNPLAN_STORE_CONFIGS_MAX];
	size_t nstore_configs;
};

/*
 * Render every process of the run in start order: the mooncake master, the
 * before_workers services (stores, in declaration order, one instance per
 * node of their placement), with_workers services, the workers (prefill,
 * decode, agg; one process per node of a multi-node worker), the frontend
 * (frontend.command + rendered frontend.args on the head node, gated on
 * TCP frontend.port; none without a command), after_frontend services, the
 * benchmark (bash -c benchmark.command on the head node, its other keys as
 * SRT_BENCH_<KEY> env; none without a command).  Log files:
 * service_<name>.out (service_<name>_<host>.out when a service runs on
 * several nodes), worker_<role>_<i>.out (worker_<role>_<i>_<host>.out per
 * node of a multi-node worker), frontend.out, benchmark.out.
 *
 * Followers (srt_runplan_proc.follows): a restarted master comes back empty (its
 * object index and its embedded HTTP metadata are in RAM only; see
 * ../shared/notes/mooncake-facts.md section 7), so the clients that cannot
 * recover by themselves are restarted after it: every mooncake-store
 * instance; a vLLM worker whose args use the MooncakeStoreConnector and
 * whose store_config.metadata_server is not P2PHANDSHAKE; an SGLang worker
 * whose args set hicache-storage-backend mooncake.  Nothing follows an
 * external master.
 *
 * The run plan is finished (srt_runplan_finish(): groups, tiers, the
 * external master's process) before it is returned.  Returns a plan (free
 * with srt_plan_free()), or NULL after adding errors to d (a NUL byte in
 * rendered args, a cluster config without the engine's command).  A warning goes to d when container_runtime is none but
 * processes name images.
 */
struct srt_plan *srt_plan_build(const struct srt_recipe *r, const struct srt_cluster *c,
				struct srt_diags *d);
void srt_plan_free(struct srt_plan *p);

/*
 * A TRT-LLM role's engine YAML: its args mapping as YAML ("{}\n" without
 * args), or NULL when the emitter refuses a value.  Allocated in a.
 */
const char *srt_render_trtllm_config(struct srt_arena *a, const struct srt_recipe *r,
				     enum srt_role_kind role);

#endif
