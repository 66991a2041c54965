/*
 * recipe/model.h: the typed v2 recipe model.
 *
 * srt_recipe_parse() turns a YAML document into a struct srt_recipe and
 * reports every structural problem (types, unknown keys, bad enums) with its
 * file:line:col and key path.  Cross-field rules live in validate.c and are
 * applied by srt_recipe_validate().  The recipe lives in the YAML document's
 * arena: the struct, its arrays, and every string and node it points to die
 * with srt_ydoc_free(recipe->doc).  There is no srt_recipe_free().
 *
 * The model is plain data: nothing here performs I/O.
 */
#ifndef SRT_RECIPE_MODEL_H
#define SRT_RECIPE_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "recipe/yaml.h"
#include "runplan/runplan.h"
#include "util/diag.h"

enum srt_engine_type {
	SRT_ENGINE_UNSET,
	SRT_ENGINE_SGLANG,
	SRT_ENGINE_VLLM,
	SRT_ENGINE_TRTLLM,
	SRT_ENGINE_MOCKER,
	/* TileRT's decode server: only as roles.decode.engine beside vLLM prefill (srt-slurm's P/D) */
	SRT_ENGINE_TILERT,
};

enum srt_role_kind { SRT_ROLE_PREFILL, SRT_ROLE_DECODE, SRT_ROLE_AGG, SRT_ROLE_COUNT };

enum srt_service_type {
	SRT_SVC_GENERIC,
	SRT_SVC_MOONCAKE_MASTER,
	SRT_SVC_MOONCAKE_STORE,
	SRT_SVC_ETCD, /* Dynamo's discovery plane */
	SRT_SVC_NATS, /* Dynamo's message plane */
	SRT_SVC_LMCACHE_SERVER, /* LMCache's multiprocess server, one per worker node */
	/* TRT-LLM's pool commands: `trtllm-serve mooncake_donor` lends a node's memory */
	SRT_SVC_MOONCAKE_DONOR,
	/* One Ray cluster over the service's nodes: `ray start --head` on the first, joiners after */
	SRT_SVC_RAY,
};

/* Where the Dynamo a recipe's Dynamo processes run comes from (srt-slurm's dynamo.source). */
enum srt_dynamo_from {
	SRT_DYNAMO_FROM_NONE,	     /* install: false: the container holds it */
	SRT_DYNAMO_FROM_PYPI,	     /* ai-dynamo==version from PyPI */
	SRT_DYNAMO_FROM_WHEEL,	     /* a staged nightly ai-dynamo==version */
	SRT_DYNAMO_FROM_GIT,	     /* built from a commit: srtctl builds nothing (warned) */
	SRT_DYNAMO_FROM_TOP_OF_TREE, /* built from HEAD: srtctl builds nothing (warned) */
};

/* srt-slurm's DEFAULT_PYPI_VERSION: what it installs when a recipe names none. */
#define SRT_DYNAMO_DEFAULT_VERSION "0.8.0"

enum srt_placement {
	SRT_PLACE_DEFAULT, /* the type's default, resolved by the parser */
	SRT_PLACE_HEAD,
	SRT_PLACE_INFRA,
	SRT_PLACE_DEDICATED,
	SRT_PLACE_PREFILL,
	SRT_PLACE_DECODE,
	SRT_PLACE_AGG,
	SRT_PLACE_WORKERS,
	/* A service node pool: the service's own (`nodes`) or another's (placement.pool) */
	SRT_PLACE_POOL,
};

enum srt_start {
	SRT_START_DEFAULT,
	SRT_START_INFRA, /* etcd and NATS: first, before the Mooncake master */
	SRT_START_BEFORE_WORKERS,
	SRT_START_WITH_WORKERS,
	SRT_START_AFTER_FRONTEND,
};

/*
 * FILE: a nonempty regular file, relative to the log directory ({node}: the
 * instance's node).  LOG: a line of the process's log, written since its
 * start, matches `path` (a POSIX extended regular expression).
 */
enum srt_probe_kind {
	SRT_PROBE_NONE,
	SRT_PROBE_TCP,
	SRT_PROBE_HTTP,
	SRT_PROBE_FILE,
	SRT_PROBE_LOG
};

/*
 * What one recipe may hold (docs/recipe-reference.md "Limits"); the YAML
 * reader's own bounds (bytes, nodes, depth) are in recipe/yaml.h.  Past one
 * of these the recipe is an error naming the limit.  They are far above any
 * real recipe and keep what the controller renders bounded.
 */
#define SRT_RECIPE_MAX_SERVICES 1000u	/* entries of `services` */
#define SRT_RECIPE_MAX_ENV 100000u	/* variables in one env mapping */
#define SRT_RECIPE_MAX_ARGS 100000u	/* keys of an args mapping, items of an argv list */
#define SRT_RECIPE_MAX_DIRECTIVES 1000u /* slurm.directives + sbatch_directives */
#define SRT_DEFAULT_GPUS_PER_NODE 4	/* resources.gpus_per_node when not set */
#define SRT_RECIPE_MAX_POOL_NODES 10000 /* a service's `nodes` */

/*
 * Recipe and service names (docs/recipe-reference.md "Names"): 1 to
 * SRT_NAME_MAX ASCII letters, digits, '-', '_' and '.', starting and ending
 * with a letter or digit, without "..".  A recipe name becomes the SLURM job
 * name and the run directory <run root>/<name>-<generation>-<attempt> (at
 * most 1 + 19 + 1 + 3 more bytes; a path component holds 255); a service
 * name becomes a log file service_<name>_<host>.out and an srun step name.
 */
#define SRT_NAME_MAX 128
#define SRT_NAME_RULE                                                                     \
	"a name is 1 to 128 characters of letters, digits, '-', '_' and '.', starts and " \
	"ends with a letter or digit, and has no '..'"

/*
 * NULL when `name` follows the rule, else what breaks it ("starts with
 * '-'"), in `buf` (of `size` bytes) or a static string.
 */
const char *srt_name_problem(const char *name, char *buf, size_t size);

/* Attempts (SLURM jobs) per recipe generation when jobs end badly. */
#define SRT_MAX_ATTEMPTS_DEFAULT 3

/* The longest readiness.http.path (printable ASCII, no spaces, starting with '/'). */
#define SRT_PROBE_PATH_MAX 512

struct srt_probe {
	enum srt_probe_kind kind;
	int port;
	const char *path; /* HTTP: default "/health"; FILE: the file; LOG: the pattern */
	int status; /* HTTP only; default 200 */
};

struct srt_readiness {
	struct srt_probe probes[3]; /* the master gates on three ports */
	size_t nprobes;
	int timeout_seconds;
	int interval_seconds;
	bool explicit_; /* written in the recipe (not a type default) */
	const struct srt_ynode *node;
};

struct srt_env_var {
	const char *name;
	const char *value;
	const struct srt_ynode *node; /* the value's node, for diagnostics */
};

/* An ordered NAME=value list; later duplicates are rejected by the parser. */
struct srt_env {
	struct srt_env_var *v;
	size_t n;
};

struct srt_argv {
	const char **v;
	size_t n;
};

struct srt_role {
	bool present;
	enum srt_role_kind kind;
	const char *name; /* "prefill", "decode", "agg" */
	int nodes; /* -1 when unset */
	bool colocate; /* decode only: share the prefill nodes */
	int workers; /* default 1 */
	int gpus; /* GPUs per worker; 0 = derived from nodes and gpus_per_node */
	/* Its own engine when it differs from the recipe's: SRT_ENGINE_TILERT (decode); else UNSET */
	enum srt_engine_type engine;
	const char *container; /* NULL: model.container */
	struct srt_env env;
	const struct srt_ynode *args; /* a mapping, or NULL */
	/* kv_events: true or a mapping (publisher, topic, ...); NULL when off. */
	const struct srt_ynode *kv_events;
	const struct srt_ynode *srun_options; /* a mapping (checked), or NULL */
	/* TRT-LLM: this role's Mooncake client config keys (a mapping), or NULL */
	const struct srt_ynode *mooncake_store_config;
	struct srt_argv extra_args;
	struct srt_restart_policy restart;
	const struct srt_ynode *node;
};

struct srt_service {
	const char *name;
	enum srt_service_type type;
	const char *type_name;
	bool enabled;
	const char *container; /* NULL: type default, then the job container */
	struct srt_argv command; /* generic's; on a typed kind (not ray) it replaces srtctl's */
	struct srt_argv args;
	struct srt_env env;
	const struct srt_ynode *options; /* mapping or NULL */
	const struct srt_ynode *store_config; /* options.store_config, or NULL */
	/*
	 * TRT-LLM's pool commands (srt_recipe_trtllm_pool()): the master's
	 * options eviction_ratio (0 when not written: 0.05), master_timeout_s
	 * (0: 60), store_role (NULL: both); the donor's size and protocol
	 * (NULL: rdma).  Each option's node, for diagnostics, in `options`.
	 */
	double eviction_ratio;
	int master_timeout_s;
	const char *store_role;
	const char *donor_size, *donor_protocol;
	enum srt_placement placement;
	/*
	 * Service node pools (docs/recipe-reference.md "Node pools"): pool_nodes
	 * whole nodes this service owns (0: none), added to the allocation after
	 * the roles' nodes in declaration order; `pool`, the owner whose nodes
	 * it runs on (placement.pool, or its own name when it owns nodes), one
	 * instance per node.  placement is SRT_PLACE_POOL with either.
	 */
	int pool_nodes;
	const char *pool;
	/* type ray: options.port (GCS), dashboard_port, num_gpus (0: the node's GPUs) */
	int ray_port, ray_dashboard_port, ray_num_gpus;
	/*
	 * An instance that already runs: "host:port" of a master, a URL for etcd
	 * ("http://host:port") and NATS ("nats://host:port").
	 */
	const char *external;
	const char *external_host;
	int external_port;
	enum srt_start start;
	struct srt_readiness readiness;
	struct srt_restart_policy restart;
	bool critical;
	/*
	 * srt-slurm's terminal service: the job's run ends once every instance
	 * has exited, with the worst exit status (restart default: never).
	 */
	bool terminal;
	/* Added by srtctl, not written: etcd (and NATS) under the Dynamo frontend. */
	bool implied;
	/* Shell run before the command, inside the container (bash -c). */
	const char *preamble;
	const struct srt_ynode *srun_options; /* a mapping (checked), or NULL */
	const struct srt_ynode *node;
};

/* srt-slurm's defaults for its frontend topology (frontend.*). */
#define SRT_FRONTEND_ADDITIONAL_DEFAULT 9
#define SRT_FRONTEND_ADDITIONAL_MAX 1023
#define SRT_NGINX_CONTAINER_DEFAULT "nginx:1.27.4"
#define SRT_NGINX_AFFINITY_HEADER_DEFAULT "X-Dynamo-Session-ID"
#define SRT_NGINX_KEEPALIVE_DEFAULT "600s"

struct srt_frontend {
	const char *type; /* default "none" */
	struct srt_argv command; /* optional explicit argv */
	const struct srt_ynode *args;
	struct srt_env env;
	int port; /* default 8000 */
	const char *container; /* frontend.container_image (an alias or image), or NULL: the job's */
	/* trtllm_serve's orchestrator: context_servers.router, generation_servers.router, extra keys. */
	const struct srt_ynode *ctx_router, *gen_router, *server_config_extra;
	/*
	 * srt-slurm's frontend topology: enable_multiple_frontends (true: nginx
	 * on the head in front of up to num_additional_frontends + 1 frontends
	 * on the other worker nodes; srtctl's default is false, srt-slurm's
	 * true), and the nginx_* settings of the nginx it generates.
	 */
	bool multiple;
	int additional;		     /* num_additional_frontends, default 9 */
	const char *nginx_container; /* default "nginx:1.27.4" */
	int nginx_raise_ulimit;	     /* -1 unset (the cluster's, else off), 0, 1 */
	bool nginx_affinity;	     /* nginx_session_affinity */
	const char *nginx_header;    /* nginx_session_affinity_header */
	const char *nginx_keepalive; /* nginx_keepalive_timeout, default "600s" */
	const struct srt_ynode *node;
};

struct srt_benchmark {
	const char *type; /* default "manual": no benchmark step */
	const char *command; /* run with bash -c */
	struct srt_env env;
	const struct srt_ynode *node; /* the whole mapping (parameters) */
};

/*
 * Dynamo mocker's engine knobs (`engine: {type: mocker, <key>: ...}`,
 * srt-slurm's MockerBackend), each a flag of `python3 -m dynamo.mocker`.
 * A knob with `always` is passed every time (its value, else `deflt`); the
 * others only when the recipe sets them to something else than `deflt`
 * (NULL: any value).  A bool knob's default is true: false passes `off`.
 */
enum srt_knob_type {
	SRT_KNOB_STR,
	SRT_KNOB_INT,
	SRT_KNOB_FLOAT,
	SRT_KNOB_BOOL
};

struct srt_mocker_knob {
	const char *key;
	enum srt_knob_type type;
	const char *flag;
	bool always;
	const char *deflt;
	const char *const *choices; /* SRT_KNOB_STR: the values dynamo.mocker takes, or NULL */
	const char *off;	    /* SRT_KNOB_BOOL: the flag for false */
};

#define SRT_MOCKER_NKNOBS 15

/* The knobs, in the order srt-slurm passes their flags. */
const struct srt_mocker_knob *srt_mocker_knobs(void);

struct srt_recipe {
	struct srt_ydoc *doc; /* borrowed: owns this struct and all it points to */
	const struct srt_ynode *root;
	const char *file;
	const char *name;
	int schema; /* 2, or 0 when not written */
	enum srt_engine_type engine;
	const char *engine_name;
	const struct srt_ynode *engine_node;
	/* engine.connector (vLLM): the workers' KV connector; NULL: srt-slurm's default nixl. */
	const struct srt_ynode *connector;
	/* engine.served_model_name (TRT-LLM: a launcher flag, not an engine YAML key), or NULL. */
	const char *served_model_name;
	/*
	 * setup_script: a script in srt-slurm's configs/ (a relative path) that
	 * each worker and the Dynamo frontend run before they start; or NULL.
	 */
	const char *setup_script;
	struct {
		const char *path, *container, *precision;
	} model;
	struct {
		const char *gpu_type;
		int gpus_per_node; /* default SRT_DEFAULT_GPUS_PER_NODE */
	} resources;
	struct {
		const char *account, *partition, *time_limit;
		struct srt_env directives; /* extra #SBATCH --key=value */
		int max_attempts; /* SLURM jobs per generation before the run stays Failed */
		/*
		 * The job's nodes are its alone (default true): srtctl's processes
		 * listen on fixed ports, so a second job on the same node would
		 * collide with them.
		 */
		bool exclusive;
		bool exclusive_set; /* written (else the cluster config's switch decides) */
	} slurm;
	struct srt_env environment; /* every process of the run */
	/* srun_options: a mapping for every step; roles and services merge theirs over it. */
	const struct srt_ynode *srun_options;
	struct srt_frontend frontend;
	/* The `dynamo:` section: the planes Dynamo's processes talk over, and what Dynamo they run. */
	struct {
		const char *request_plane; /* "tcp" (default) or "nats" */
		const char *event_plane;   /* NULL (Dynamo's default, zmq), "zmq" or "nats" */
		/*
		 * srt-slurm's dynamo.install with its source: what the Dynamo
		 * frontend and its workers install in their containers before
		 * they start.  from: SRT_DYNAMO_FROM_PYPI with version
		 * SRT_DYNAMO_DEFAULT_VERSION when nothing is written;
		 * SRT_DYNAMO_FROM_NONE for `install: false`.
		 */
		enum srt_dynamo_from from;
		const char *version;  /* PYPI and WHEEL: the version; GIT: the commit or ref */
		bool install_written; /* one of the install keys is written */
		const struct srt_ynode *node;
	} dynamo;
	struct srt_benchmark benchmark;
	/*
	 * health_check: a worker may take max_attempts x interval_seconds to
	 * become ready (srt-slurm polls that long); 0 where not written (the
	 * cluster's default_health_check, then 180 x 10 s).
	 */
	struct {
		int max_attempts, interval_seconds;
	} health_check;
	/*
	 * Container mounts, "SRC:DST[:FLAGS]" as pyxis's --container-mounts
	 * takes them: extra_mount's, then container_mounts' (srt-slurm's order;
	 * the cluster's default_mounts go first, recipe/render.c).
	 */
	struct srt_env mounts; /* name: the spec; value: its key path, for diagnostics */
	/* TRT-LLM's engine.numa_memory_bind (srt_launch_numa_bind()) */
	enum srt_numa_bind {
		SRT_NUMA_BY_GPU,
		SRT_NUMA_OFF,
		SRT_NUMA_ON
	} numa_memory_bind;
	/* engine.<knob> of the mocker (srt_mocker_knobs()), normalised text; NULL: not set. */
	const char *mocker[SRT_MOCKER_NKNOBS];
	struct srt_role roles[SRT_ROLE_COUNT];
	struct srt_service *services;
	size_t nservices;
	/* Top-level sections srtctl keeps but does not act on (each warned once). */
	const struct srt_ypair **unsupported;
	size_t nunsupported;
};

/*
 * Parse `root` (a node of doc; usually doc->root) into a recipe allocated in
 * doc's arena.  Problems go to diags; the return value is NULL only when the
 * node is not a recipe at all (not a mapping, or the v1 layout).  A non-NULL
 * recipe may still carry errors in diags: callers check diags->nerrors.
 * `default_name` is used when the recipe has no `name` (the file's stem).
 */
struct srt_recipe *srt_recipe_parse(struct srt_ydoc *doc, const struct srt_ynode *root,
				    const char *default_name, struct srt_diags *diags);

/* Cross-field validation (recipe/validate.c).  Adds to diags. */
struct srt_cluster;
void srt_recipe_validate(const struct srt_recipe *r, const struct srt_cluster *cluster,
			 struct srt_diags *diags);
/*
 * Whether each role's parallel world can run on its workers' GPUs: vLLM's
 * data x tensor x pipeline x prefill-context parallel no more than them,
 * and equal to them for a data-parallel worker outside vLLM's own frontend
 * (srt-slurm's sweep drops the combinations that fail this); TRT-LLM's
 * tensor x pipeline x context parallel equal to its MPI ranks, one per GPU.
 * *why: the first role that does not, in words (in `a`).
 */
struct srt_arena;
bool srt_recipe_parallel_fits(const struct srt_recipe *r, struct srt_arena *a, const char **why);

/* Lookups and names. */
const struct srt_service *srt_recipe_master(const struct srt_recipe *r);
/* The enabled service of type t (the first one), or NULL. */
const struct srt_service *srt_recipe_service_of(const struct srt_recipe *r,
						enum srt_service_type t);
/*
 * The vLLM connector a role names: roles.<role>.args.connector (its first
 * spelling) unless null, else engine.connector; NULL when neither is set.
 * _name: its text, NULL when it is not a string (unset, null, a mapping).
 */
const struct srt_ynode *srt_role_connector(const struct srt_recipe *r, enum srt_role_kind k);
const char *srt_role_connector_name(const struct srt_recipe *r, enum srt_role_kind k);
/* Does a present vLLM role use connector lmcache-mp (which implies an lmcache-server)? */
bool srt_role_uses_lmcache_mp(const struct srt_recipe *r, enum srt_role_kind k);
/*
 * Does a present TRT-LLM role's engine YAML select TRT-LLM's mooncake-store KV
 * connector?  As TRT-LLM resolves args.kv_connector_config: connector_module
 * when set (it must be SRT_TRTLLM_MOONCAKE_MODULE), else the preset name
 * 'mooncake-store'.  *block: its mooncake_store mapping, or NULL.
 */
#define SRT_TRTLLM_MOONCAKE_MODULE "tensorrt_llm._torch.pyexecutor.connectors.mooncake_store"
bool srt_role_trtllm_mooncake(const struct srt_recipe *r, enum srt_role_kind k,
			      const struct srt_ynode **block);
/*
 * Does this TRT-LLM recipe run TRT-LLM's own Mooncake pool commands
 * (`trtllm-serve mooncake_master` and `mooncake_donor`, srt-slurm's
 * TRTLLMMooncakeKVStoreConfig) rather than the upstream master with a
 * client config per role?  True when the engine is trtllm, a mooncake-master
 * is launched (not external), and the master has a pool option
 * (eviction_ratio, master_timeout_s, store_role), or a mooncake-donor is
 * enabled, or a role's kv_connector_config has a mooncake_store block.
 */
bool srt_recipe_trtllm_pool(const struct srt_recipe *r);
/* The donor's readiness marker (relative to the log directory; {node}: its node). */
#define SRT_DONOR_READY_FILE "mooncake/donor-{node}.ready"
/* The pool's master_timeout_s (default 60) and eviction_ratio (default 0.05). */
#define SRT_TRTLLM_POOL_TIMEOUT_DEFAULT 60
#define SRT_TRTLLM_POOL_EVICTION_DEFAULT 0.05
const char *srt_engine_name(enum srt_engine_type e);
const char *srt_role_name(enum srt_role_kind k);
const char *srt_placement_name(enum srt_placement p);
const char *srt_start_name(enum srt_start s);
const char *srt_service_type_name(enum srt_service_type t);
const char *srt_env_get(const struct srt_env *env, const char *name);
const struct srt_env_var *srt_env_find(const struct srt_env *env, const char *name);

/* Is this document the v1 layout (a top-level `backend:` and no roles/engine)? */
bool srt_recipe_doc_is_v1(const struct srt_ynode *root);

/*
 * What is wrong with the container mount SRC:TARGET, TARGET being
 * "DESTINATION[:FLAGS]", as pyxis's --container-mounts takes it, or NULL
 * when nothing is.  The source "tmpfs" is a tmpfs (its flags are tmpfs
 * options such as size=100%, passed on to enroot).  Another source that is
 * not an absolute path is allowed (pyxis resolves it on the node) and
 * reported through *relative_src (a placeholder left in?).  The destination
 * /model is not judged here: srtctl mounts the model there, so only the
 * model's own path may go there (srt_runplan_at_model_dir, recipe/validate.c).
 */
const char *srt_mount_problem(const char *src, const char *target, bool *relative_src);

#endif
