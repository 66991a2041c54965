/*
 * recipe/launch.c: the launch model, what srtctl adds to each engine's and
 * router's command line and environment.
 *
 * This file owns the flags srtctl sets on SGLang (`python3 -m
 * sglang.launch_server`), vLLM (`vllm serve`), the SGLang router,
 * vllm-router and Dynamo (its workers and frontend): the model argument, host and ports, disaggregation mode and
 * bootstrap port, multi-node and data-parallel placement, the GPU set, and
 * the readiness probe of each.  It also owns the table of flags a recipe may
 * not set (srt_launch_owned_flag(), used by validation) so the two cannot
 * drift apart.  Pure: no I/O; node IPs stay layout placeholders.  The rules
 * are in recipe/launch.h and docs/recipe-reference.md.
 */
#include "recipe/launch.h"

#include <jansson.h>
#include <stdlib.h>

#include <string.h>
#include <strings.h>

#include "util/strutil.h"

/* ---- building ---- */

/* Room for one more element in an arena array of *cap elements of `size` bytes. */
static void *room(struct srt_arena *a, void *v, size_t n, size_t *cap, size_t size)
{
	void *nv;

	if (n < *cap)
		return v;
	*cap = *cap ? *cap * 2 : 8;
	nv = srt_arena_alloc(a, *cap * size);
	if (n)
		memcpy(nv, v, n * size);
	return nv;
}

static void word(struct srt_launch *o, struct srt_arena *a, const char *arg, const char *why,
		 bool runtime)
{
	o->words = room(a, o->words, o->nwords, &o->capwords, sizeof(*o->words));
	o->words[o->nwords++] = (struct srt_lword){ arg, why, runtime };
}

/* A flag and its value, sharing one reason. */
static void flag(struct srt_launch *o, struct srt_arena *a, const char *f, const char *value,
		 const char *why, bool runtime)
{
	word(o, a, f, why, false);
	if (value)
		word(o, a, value, why, runtime);
}

static void flag_int(struct srt_launch *o, struct srt_arena *a, const char *f, int v,
		     const char *why)
{
	flag(o, a, f, srt_arena_printf(a, "%d", v), why, false);
}

static void env(struct srt_launch *o, struct srt_arena *a, const char *name, const char *value,
		const char *why, bool runtime)
{
	o->env = room(a, o->env, o->nenv, &o->capenv, sizeof(*o->env));
	o->env[o->nenv++] = (struct srt_lenv){ name, value, why, runtime };
}

static void http_probe(struct srt_launch *o, int port)
{
	o->readiness.probes[0] = (struct srt_probe){ SRT_PROBE_HTTP, port, "/health", 200 };
	o->readiness.nprobes = 1;
	o->readiness.timeout_seconds = SRT_LAUNCH_READY_TIMEOUT;
	o->readiness.interval_seconds = SRT_LAUNCH_READY_INTERVAL;
}

/* "http://<ip>:port", or with brackets when the IP is a literal IPv6 address. */
static const char *url(struct srt_arena *a, const char *ip, int port)
{
	return strchr(ip, ':') ? srt_arena_printf(a, "http://[%s]:%d", ip, port) :
				 srt_arena_printf(a, "http://%s:%d", ip, port);
}

/* ---- the recipe's args ---- */

/* A decimal integer in [lo, hi], the whole string. */
static bool parse_int(const char *s, long lo, long hi, long *out)
{
	long v = 0;

	if (!s || !*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > hi)
			return false;
		v = v * 10 + (*s - '0');
	}
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static const struct srt_ypair *role_arg(const struct srt_role *role, const char *dashed)
{
	if (!role->present || !role->args || role->args->kind != SRT_Y_MAP)
		return NULL;
	for (size_t i = 0; i < role->args->n; i++)
		if (srt_str_eq_dashes(role->args->pairs[i].key->str, dashed))
			return &role->args->pairs[i];
	return NULL;
}

static const char *role_arg_str(const struct srt_role *role, const char *dashed)
{
	const struct srt_ypair *p = role_arg(role, dashed);

	return p ? srt_ynode_str(p->value) : NULL;
}

static int role_arg_int(const struct srt_role *role, const char *dashed, int dflt)
{
	const char *s = role_arg_str(role, dashed);
	long v;

	if (!parse_int(s, 1, 1 << 20, &v))
		return dflt;
	return (int)v;
}

/* ---- model ---- */

static bool in_container(const struct srt_recipe *r, const struct srt_cluster *c,
			 enum srt_role_kind role)
{
	return c && c->container_runtime == SRT_CRT_PYXIS &&
	       srt_render_role_container(r, c, role) != NULL;
}

const char *srt_launch_model_arg(const struct srt_recipe *r, const struct srt_cluster *c,
				 enum srt_role_kind role)
{
	const char *path = r->model.path;

	if (!path || !*path)
		return NULL;
	if (srt_str_has_prefix(path, "hf:"))
		return path + 3;
	return in_container(r, c, role) ? SRT_CONTAINER_MODEL_DIR : path;
}

const char *srt_launch_served_name(struct srt_arena *a, const struct srt_recipe *r)
{
	static const enum srt_role_kind order[] = { SRT_ROLE_PREFILL, SRT_ROLE_AGG,
						    SRT_ROLE_DECODE };
	const char *path = r->model.path, *base, *end;

	if (r->served_model_name && *r->served_model_name)
		return r->served_model_name;
	for (size_t i = 0; i < 3; i++) {
		const char *s = role_arg_str(&r->roles[order[i]], "served-model-name");

		if (s && *s)
			return s;
	}
	if (!path || !*path)
		return NULL;
	if (srt_str_has_prefix(path, "hf:"))
		path += 3;
	end = path + strlen(path);
	while (end > path + 1 && end[-1] == '/')
		end--;
	base = end;
	while (base > path && base[-1] != '/')
		base--;
	if (base == end)
		return NULL;
	return srt_arena_strndup(a, base, (size_t)(end - base));
}

/* ---- owned flags ---- */

struct owned {
	const char *flag;  /* canonical, dashed, without "--" */
	const char *alias; /* another spelling the parser accepts, or NULL */
	const char *why;
};

#define WHY_HOST                                                                             \
	"srtctl binds every engine to its node's IP, the address the router, its peers and " \
	"the readiness probe connect to"
#define WHY_PORT                                                                           \
	"srtctl gives each worker its own HTTP port (6100 + 32 per worker on a node) and " \
	"points the router and the readiness probe at it"
#define WHY_NODES "srtctl sets it from the nodes the worker spans"
#define WHY_RANK "srtctl sets it on each node of a multi-node worker"

static const struct owned sglang_owned[] = {
	{ "host", NULL, WHY_HOST },
	{ "port", NULL, WHY_PORT },
	{ "dist-init-addr", "nccl-init-addr",
	  "srtctl sets it to the worker's first node (port 8300) on every node of a multi-node "
	  "worker" },
	{ "nnodes", NULL, WHY_NODES },
	{ "node-rank", NULL, WHY_RANK },
	{ NULL, NULL, NULL },
};

static const struct owned vllm_owned[] = {
	{ "host", NULL, WHY_HOST },
	{ "port", NULL, WHY_PORT },
	{ "data-parallel-address", "dpa",
	  "srtctl sets it to the worker's first node when data parallelism spans nodes" },
	{ "data-parallel-start-rank", "dpr", "srtctl sets it on each node of a multi-node worker" },
	{ "data-parallel-size-local", "dpl",
	  "srtctl sets it from data-parallel-size and the nodes the worker spans" },
	{ "headless", NULL, "srtctl sets it on the non-leader nodes of a multi-node worker" },
	{ "nnodes", NULL, WHY_NODES },
	{ "node-rank", NULL, WHY_RANK },
	{ "master-addr", NULL, "srtctl sets it to the worker's first node" },
	{ NULL, NULL, NULL },
};

/*
 * "--tp_size=1" -> "tp-size" into buf (dashes stripped, '_' as '-', up to
 * '='); false when nothing is left or the name does not fit.
 */
#define WHY_TRTLLM_FILE "srtctl writes the role's args as the engine's YAML file and passes it"
/* TRT-LLM's launcher flags (its extra_args; its args are engine YAML keys). */
static const struct owned trtllm_owned[] = {
	{ "model-path", NULL, "srtctl passes model.path" },
	{ "served-model-name", NULL, "srtctl passes engine.served_model_name" },
	{ "disaggregation-mode", NULL, "srtctl sets it from the worker's role" },
	{ "extra-engine-args", NULL, WHY_TRTLLM_FILE },
	{ "extra-llm-api-options", "config", WHY_TRTLLM_FILE },
	{ "request-plane", NULL, "srtctl passes dynamo.request_plane" },
	{ "host", NULL, WHY_HOST },
	{ "port", NULL, WHY_PORT },
	{ NULL, NULL, NULL },
};

static bool canon(const char *key, char *buf, size_t size)
{
	size_t n = 0;

	while (*key == '-')
		key++;
	for (; *key && *key != '=' && n + 1 < size; key++)
		buf[n++] = *key == '_' ? '-' : *key;
	buf[n] = '\0';
	return n > 0 && (!*key || *key == '=');
}

bool srt_launch_arg_replaced(const struct srt_recipe *r, const char *key)
{
	char k[64];

	if (!canon(key, k, sizeof(k)) || r->engine == SRT_ENGINE_TRTLLM)
		return false;
	if (!strcmp(k, "served-model-name") || !strcmp(k, "model"))
		return true;
	if (r->engine == SRT_ENGINE_SGLANG)
		return !strcmp(k, "model-path") || !strcmp(k, "nccl-port") || !strcmp(k, "port");
	if (r->engine == SRT_ENGINE_VLLM)
		return !strcmp(k, "connector") || !strcmp(k, "port");
	return false;
}

int srt_launch_role_port(const struct srt_recipe *r, enum srt_role_kind role)
{
	const struct srt_role *ro = &r->roles[role];
	const struct srt_ypair *p;
	int64_t v;

	if ((r->engine != SRT_ENGINE_SGLANG && r->engine != SRT_ENGINE_VLLM) ||
	    ro->engine == SRT_ENGINE_TILERT || !(p = role_arg(ro, "port")))
		return 0;
	return srt_ynode_int(p->value, &v) && v >= 1 && v <= 65535 ? (int)v : 0;
}

/* srt-slurm's vLLM connector shorthands and the --kv-transfer-config each becomes. */
static const struct {
	const char *name;
	const char *json; /* as srt-slurm's json.dumps() writes it */
} vllm_connectors[] = {
	{ "nixl", "{\"kv_connector\": \"NixlConnector\", \"kv_role\": \"kv_both\"}" },
	{ "lmcache", "{\"kv_connector\": \"LMCacheConnectorV1\", \"kv_role\": \"kv_both\"}" },
	{ "kvbm", "{\"kv_connector\": \"DynamoConnector\", \"kv_connector_module_path\": "
		  "\"kvbm.vllm_integration.connector\", \"kv_role\": \"kv_both\"}" },
	/* The lmcache-server on the worker's own node (SRT_LMCACHE_RPC_PORT). */
	{ "lmcache-mp",
	  "{\"kv_connector\": \"LMCacheMPConnector\", \"kv_connector_module_path\": "
	  "\"lmcache.integration.vllm.lmcache_mp_connector\", \"kv_role\": \"kv_both\", "
	  "\"kv_connector_extra_config\": {\"lmcache.mp.host\": \"tcp://localhost\", "
	  "\"lmcache.mp.port\": 8750}}" },
};
_Static_assert(SRT_LMCACHE_RPC_PORT == 8750, "the lmcache-mp preset names the RPC port");

const char *srt_launch_vllm_connector_json(const char *name)
{
	for (size_t i = 0; name && i < sizeof(vllm_connectors) / sizeof(vllm_connectors[0]); i++)
		if (!strcasecmp(name, vllm_connectors[i].name))
			return vllm_connectors[i].json;
	return NULL;
}

const char *srt_launch_vllm_connector(const struct srt_recipe *r, enum srt_role_kind role,
				      const char **bad)
{
	const struct srt_role *ro = &r->roles[role];
	const struct srt_ynode *v = srt_role_connector(r, role);
	const char *name = v ? srt_ynode_str(v) : "nixl";
	const char *json;

	*bad = NULL;
	if (r->engine != SRT_ENGINE_VLLM || role_arg(ro, "kv-transfer-config"))
		return NULL;
	if (v && srt_ynode_is_null(v))
		return NULL;
	if (!name) {
		*bad = "(not a string)";
		return NULL;
	}
	if (!*name || !strcasecmp(name, "none") || !strcasecmp(name, "null"))
		return NULL;
	if ((json = srt_launch_vllm_connector_json(name)))
		return json;
	if (name[0] == '{')
		return name; /* raw JSON, passed through as srt-slurm does */
	*bad = name;
	return NULL;
}

const char *srt_launch_owned_flag(const struct srt_recipe *r, const char *key, const char **why)
{
	const struct owned *t;
	char k[64];

	if (r->engine == SRT_ENGINE_SGLANG)
		t = sglang_owned;
	else if (r->engine == SRT_ENGINE_VLLM)
		t = vllm_owned;
	else if (r->engine == SRT_ENGINE_TRTLLM)
		t = trtllm_owned;
	else
		return NULL;
	if (!canon(key, k, sizeof(k)))
		return NULL;
	for (; t->flag; t++) {
		if (!strcmp(k, t->flag) || (t->alias && !strcmp(k, t->alias))) {
			*why = t->why;
			return t->flag;
		}
	}
	return NULL;
}

/* ---- workers ---- */

/*
 * Not 0.0.0.0 (srt-slurm's choice): two workers of different nodes that
 * share a host (the local test cluster's nodes are one machine's addresses)
 * would collide, and the node IP is the one srtctl advertises anyway.
 */
#define WHY_HOST_WORD                                                                      \
	"the node's IP (network_interface): what the router, peers and the probe connect " \
	"to (SGLang binds 127.0.0.1 by default)"

static const char *gpu_list(struct srt_arena *a, int first, int n)
{
	char *s = srt_arena_printf(a, "%d", first);

	for (int i = 1; i < n; i++)
		s = srt_arena_printf(a, "%s,%d", s, first + i);
	return s;
}

/* The HTTP port of a worker leader: frontend.port for a direct frontend's worker. */
static int worker_port(const struct srt_recipe *r, const struct srt_lworker *w)
{
	int own = srt_launch_role_port(r, w->role);

	if (w->role == SRT_ROLE_AGG && w->index == 0 &&
	    srt_launch_frontend_kind(r, NULL) == SRT_FE_DIRECT)
		return r->frontend.port > 0 ? r->frontend.port : SRT_LAUNCH_FRONTEND_PORT;
	return own ? own : SRT_LAUNCH_HTTP_PORT + SRT_LAUNCH_HTTP_STRIDE * w->slot;
}

#define WHY_PORT_WORD "the worker's HTTP port: 6100 + 32 per worker leader on its node"
#define WHY_OWN_PORT_WORD \
	"the worker's HTTP port: roles.<role>.args.port (one worker of the role per node)"

static const char *port_why(const struct srt_recipe *r, const struct srt_lworker *w)
{
	return srt_launch_role_port(r, w->role) ? WHY_OWN_PORT_WORD : WHY_PORT_WORD;
}

/* The model argument and mount, the served name and the GPU set: shared by both engines. */
static const char *model_why(const struct srt_recipe *r, const struct srt_cluster *c,
			     enum srt_role_kind role)
{
	if (r->model.path && srt_str_has_prefix(r->model.path, "hf:"))
		return "model.path (an hf: model: the Hugging Face id, downloaded by the engine)";
	if (in_container(r, c, role))
		return "model.path, mounted at /model in the container";
	return "model.path";
}

static void common_env(struct srt_launch *o, struct srt_arena *a, const struct srt_recipe *r,
		       const struct srt_cluster *c, const struct srt_lworker *w)
{
	int g = r->resources.gpus_per_node > 0 ? r->resources.gpus_per_node : 4;
	const char *name = c && c->visible_devices_env ? c->visible_devices_env :
							 "CUDA_VISIBLE_DEVICES";

	if (w->gpus > 0 && w->gpus < g)
		env(o, a, name, gpu_list(a, w->gpu_first, w->gpus),
		    "the worker's GPUs on a node it shares with other workers", false);
}

static void sglang_worker(struct srt_launch *o, struct srt_arena *a, const struct srt_recipe *r,
			  const struct srt_lworker *w, int rank, const char *leader_ip,
			  const char *self_ip, const char *model, const char *mwhy,
			  const char *served)
{
	const struct srt_role *ro = &r->roles[w->role];
	bool pd = w->role != SRT_ROLE_AGG;

	if (model)
		flag(o, a, "--model-path", model, mwhy, false);
	if (served)
		flag(o, a, "--served-model-name", served,
		     "the name clients ask for: the first served-model-name of the roles' args, "
		     "else the model directory's name",
		     false);
	flag(o, a, "--host", self_ip, WHY_HOST_WORD, true);
	flag_int(o, a, "--port", rank ? 0 : o->port,
		 rank ? "a non-leader rank serves no HTTP" : port_why(r, w));
	flag_int(o, a, "--nccl-port", SRT_LAUNCH_NCCL_PORT + w->slot,
		 "deterministic, distinct per worker on a node (SGLang picks a random free port "
		 "otherwise, which races on shared nodes)");
	if (pd && !role_arg(ro, "disaggregation-mode"))
		flag(o, a, "--disaggregation-mode", srt_role_name(w->role),
		     "the role: a prefill or decode server of a disaggregated pair", false);
	if (w->role == SRT_ROLE_PREFILL) {
		const char *own = role_arg_str(ro, "disaggregation-bootstrap-port");
		long v;

		if (parse_int(own, 1, 65535, &v)) {
			o->bootstrap_port = (int)v;
		} else {
			o->bootstrap_port = SRT_LAUNCH_BOOTSTRAP_PORT + w->slot;
			flag_int(
				o, a, "--disaggregation-bootstrap-port", o->bootstrap_port,
				"the prefill server's bootstrap port (7200 + its slot on the node), "
				"handed to the router");
		}
	}
	if (w->nnodes > 1) {
		const char *why = "a worker over several nodes: every node joins its first node";

		flag(o, a, "--dist-init-addr",
		     srt_arena_printf(a, "%s:%d", leader_ip, SRT_LAUNCH_DIST_INIT_PORT), why, true);
		flag_int(o, a, "--nnodes", (int)w->nnodes, why);
		flag_int(o, a, "--node-rank", rank, "this node's place in the worker");
	}
}

/*
 * vLLM's engine flags.  Under Dynamo (`python3 -m dynamo.vllm`, which parses
 * vLLM's engine arguments only) the model is --model, there is no API
 * server to place (--host/--port), and the role is --disaggregation-mode.
 */
static void vllm_worker(struct srt_launch *o, struct srt_arena *a, const struct srt_recipe *r,
			const struct srt_lworker *w, int rank, const char *leader_ip,
			const char *self_ip, const char *model, const char *mwhy,
			const char *served, bool dyn)
{
	const struct srt_role *ro = &r->roles[w->role];
	int dp = role_arg_int(ro, "data-parallel-size", 1);
	int n = (int)w->nnodes;

	if (model && dyn)
		flag(o, a, "--model", model, mwhy, false);
	else if (model)
		word(o, a, model, mwhy, false);
	if (served)
		flag(o, a, "--served-model-name", served,
		     "the name clients ask for: the first served-model-name of the roles' args, "
		     "else the model directory's name",
		     false);
	if (dyn && w->role != SRT_ROLE_AGG && !role_arg(ro, "disaggregation-mode"))
		flag(o, a, "--disaggregation-mode", srt_role_name(w->role),
		     "the role: Dynamo registers a prefill worker apart from the decode workers",
		     false);
	if (!rank && !dyn) {
		flag(o, a, "--host", self_ip, WHY_HOST_WORD, true);
		flag_int(o, a, "--port", o->port, port_why(r, w));
	}
	if (n > 1 && dp > 1 && dp % n == 0) {
		int local = dp / n;
		const char *why = "data parallelism across the worker's nodes";

		flag_int(o, a, "--data-parallel-size-local", local, why);
		flag(o, a, "--data-parallel-address", leader_ip, why, true);
		/* A recipe's own RPC port wins (srt-slurm passes it after its own). */
		if (!role_arg(ro, "data-parallel-rpc-port"))
			flag_int(o, a, "--data-parallel-rpc-port", SRT_LAUNCH_DP_RPC_PORT + w->slot,
				 why);
		if (rank) {
			word(o, a, "--headless", "a non-leader node runs engines, no API server",
			     false);
			flag_int(o, a, "--data-parallel-start-rank", rank * local,
				 "the first DP rank on this node");
		}
	} else if (n > 1) {
		const char *why = "tensor/pipeline parallelism across the worker's nodes";

		flag_int(o, a, "--nnodes", n, why);
		flag_int(o, a, "--node-rank", rank, "this node's place in the worker");
		flag(o, a, "--master-addr", leader_ip, why, true);
		if (rank)
			word(o, a, "--headless", "a non-leader node runs engines, no API server",
			     false);
	}
	{
		const char *bad, *ktc = srt_launch_vllm_connector(r, w->role, &bad);

		if (ktc)
			flag(o, a, "--kv-transfer-config", ktc,
			     "the KV connector: the role's args.connector, else engine.connector, "
			     "else srt-slurm's default nixl",
			     false);
	}
	if (w->role != SRT_ROLE_AGG) {
		o->side_port = SRT_LAUNCH_NIXL_PORT + w->slot;
		env(o, a, "VLLM_NIXL_SIDE_CHANNEL_PORT", srt_arena_printf(a, "%d", o->side_port),
		    "NIXL's KV side channel, distinct per worker on a node (5400 + its slot)",
		    false);
	}
}

/*
 * Dynamo's mocker (`python3 -m dynamo.mocker`), as srt-slurm renders it:
 * the model, the role, a prefill's bootstrap ports, then the engine knobs
 * (srt_mocker_knobs(): six always, the rest when set to a non-default).
 */
static void mocker_worker(struct srt_launch *o, struct srt_arena *a, const struct srt_recipe *r,
			  const struct srt_lworker *w, const char *model, const char *mwhy)
{
	const struct srt_mocker_knob *k = srt_mocker_knobs();

	if (model)
		flag(o, a, "--model-path", model, mwhy, false);
	if (w->role != SRT_ROLE_AGG)
		flag(o, a, "--disaggregation-mode", srt_role_name(w->role), "the worker's role",
		     false);
	if (w->role == SRT_ROLE_PREFILL) {
		/* One port per engine of the process (engine.num_workers). */
		int n = 1, base;

		for (size_t i = 0; i < SRT_MOCKER_NKNOBS; i++)
			if (!strcmp(k[i].key, "num_workers") && r->mocker[i])
				n = atoi(r->mocker[i]);
		base = SRT_LAUNCH_BOOTSTRAP_PORT + w->slot * n;
		struct srt_buf b;

		srt_buf_init(&b);
		for (int i = 0; i < n; i++)
			srt_buf_printf(&b, "%s%d", i ? "," : "", base + i);
		flag(o, a, "--bootstrap-ports", srt_arena_strdup(a, b.data),
		     "the prefill engines' bootstrap ports: 7200 + slot x engine.num_workers, one "
		     "per engine",
		     false);
		srt_buf_release(&b);
	}
	for (size_t i = 0; i < SRT_MOCKER_NKNOBS; i++) {
		const char *v = r->mocker[i];
		const char *why = srt_arena_printf(a, "engine.%s%s", k[i].key,
						   v ? "" : " (srt-slurm's default)");

		if (k[i].type == SRT_KNOB_BOOL) {
			if (v && !strcmp(v, "false"))
				word(o, a, k[i].off, why, false);
			continue;
		}
		if (!v && !k[i].always)
			continue;
		if (!v)
			v = k[i].deflt;
		else if (!k[i].always && k[i].deflt && !strcmp(v, k[i].deflt))
			continue;
		flag(o, a, k[i].flag, v, why, false);
	}
}

/* ---- Dynamo ---- */

static bool dynamo(const struct srt_recipe *r)
{
	return srt_launch_frontend_kind(r, NULL) == SRT_FE_DYNAMO;
}

static const char *request_plane(const struct srt_recipe *r)
{
	return r->dynamo.request_plane ? r->dynamo.request_plane : "tcp";
}

/* scheme://<node ip>:port of a discovery service, or its external URL. */
static const char *plane_url(struct srt_arena *a, const struct srt_layout *l,
			     const struct srt_service *s, const char *scheme, int port,
			     bool *runtime)
{
	const char *ip = s->placement == SRT_PLACE_HEAD ? l->nodes[l->head].ip : l->infra_ip;

	*runtime = !s->external;
	if (s->external)
		return s->external;
	return strchr(ip, ':') ? srt_arena_printf(a, "%s://[%s]:%d", scheme, ip, port) :
				 srt_arena_printf(a, "%s://%s:%d", scheme, ip, port);
}

void srt_launch_dyn_planes(struct srt_dyn_planes *out, struct srt_arena *a,
			   const struct srt_recipe *r, const struct srt_layout *l)
{
	const struct srt_service *etcd = srt_recipe_service_of(r, SRT_SVC_ETCD);
	const struct srt_service *nats = srt_recipe_service_of(r, SRT_SVC_NATS);

	memset(out, 0, sizeof(*out));
	if (etcd)
		out->etcd = plane_url(a, l, etcd, "http", SRT_DYN_ETCD_PORT, &out->etcd_runtime);
	if (nats)
		out->nats = plane_url(a, l, nats, "nats", SRT_DYN_NATS_PORT, &out->nats_runtime);
}

/* What every Dynamo process (workers and frontend) is told about the planes. */
static void dyn_env(struct srt_launch *o, struct srt_arena *a, const struct srt_recipe *r,
		    const struct srt_layout *l)
{
	struct srt_dyn_planes p;

	srt_launch_dyn_planes(&p, a, r, l);
	if (p.etcd)
		env(o, a, "ETCD_ENDPOINTS", p.etcd,
		    "Dynamo's discovery plane: the etcd service, where workers register and the "
		    "frontend finds them",
		    p.etcd_runtime);
	if (p.nats)
		env(o, a, "NATS_SERVER", p.nats, "Dynamo's message plane: the nats service",
		    p.nats_runtime);
	env(o, a, "DYN_REQUEST_PLANE", request_plane(r),
	    "dynamo.request_plane (default tcp): how the frontend reaches the workers", false);
	if (r->dynamo.event_plane)
		env(o, a, "DYN_EVENT_PLANE", r->dynamo.event_plane, "dynamo.event_plane", false);
	else if (r->engine == SRT_ENGINE_MOCKER && !p.nats)
		env(o, a, "DYN_EVENT_PLANE", "zmq",
		    "dynamo.mocker's event plane defaults to NATS with etcd discovery, and this "
		    "recipe runs no nats service: ZMQ, as Dynamo's other workers default to",
		    false);
}

void srt_launch_discovery(struct srt_launch *out, struct srt_arena *a, const struct srt_layout *l,
			  const struct srt_service *s, size_t node)
{
	const char *ip = l->nodes[node].ip;

	memset(out, 0, sizeof(*out));
	if (s->type == SRT_SVC_ETCD) {
		flag(out, a, "--data-dir", srt_arena_printf(a, "%s/etcd", l->log_dir),
		     "a fresh store per run attempt, in its log directory", true);
		flag(out, a, "--listen-client-urls",
		     srt_arena_printf(a, "http://0.0.0.0:%d", SRT_DYN_ETCD_PORT),
		     "clients on every node reach it", false);
		flag(out, a, "--advertise-client-urls", url(a, ip, SRT_DYN_ETCD_PORT),
		     "the node's IP: the address the workers and the frontend are given", true);
		out->port = SRT_DYN_ETCD_PORT;
		http_probe(out, SRT_DYN_ETCD_PORT);
	} else if (s->type == SRT_SVC_NATS) {
		word(out, a, "-js", "JetStream, which Dynamo's NATS planes use", false);
		flag(out, a, "-sd", srt_arena_printf(a, "%s/nats", l->log_dir),
		     "JetStream's store, fresh per run attempt, in its log directory", true);
		out->port = SRT_DYN_NATS_PORT;
		out->readiness.probes[0] =
			(struct srt_probe){ SRT_PROBE_TCP, SRT_DYN_NATS_PORT, NULL, 0 };
		out->readiness.nprobes = 1;
	}
	out->readiness.timeout_seconds = 300;
	out->readiness.interval_seconds = 1;
}

/*
 * What a Dynamo worker gets beyond its engine's flags; its readiness is its
 * status server.  The mocker takes its request plane from DYN_REQUEST_PLANE
 * alone, as srt-slurm starts it.
 */
static void dynamo_worker(struct srt_launch *o, struct srt_arena *a, const struct srt_recipe *r,
			  const struct srt_layout *l, const struct srt_lworker *w)
{
	int sys = SRT_LAUNCH_DYN_SYSTEM_PORT + w->slot;

	if (r->engine != SRT_ENGINE_MOCKER)
		flag(o, a, "--request-plane", request_plane(r),
		     "dynamo.request_plane (default tcp): how the frontend reaches the worker",
		     false);
	dyn_env(o, a, r, l);
	env(o, a, "DYN_SYSTEM_PORT", srt_arena_printf(a, "%d", sys),
	    "the worker's Dynamo status server (GET /health answers 200 once it has "
	    "registered), distinct per worker on a node: 7500 + its slot",
	    false);
	o->port = sys;
}

const char *srt_launch_trtllm_config(struct srt_arena *a, const struct srt_lworker *w)
{
	return srt_arena_printf(a, "trtllm_%s_%d.yaml", srt_role_name(w->role), w->index);
}

/*
 * TRT-LLM's own pool (srt_recipe_trtllm_pool()): every worker waits as long
 * as the master does for the pool (TRTLLM_MOONCAKE_MASTER_TIMEOUT) and has
 * a run directory of its own, where the rank that provisions the pool
 * renders mooncake.json and the other ranks read it back; prefill says
 * which side of the pool it is (TRTLLM_MOONCAKE_STORE_ROLE).  srt-slurm's
 * TRTLLMBackend.  A recipe's own value of a variable wins.
 */
static void pool_env(struct srt_launch *o, struct srt_arena *a, const struct srt_recipe *r,
		     const struct srt_layout *l, const struct srt_lworker *w, bool ctr)
{
	const struct srt_service *m = srt_recipe_master(r);
	const struct srt_role *ro = &r->roles[w->role];
	const char *dir = srt_launch_pool_run_dir(a, w);

	if (!srt_recipe_trtllm_pool(r))
		return;
	if (!srt_env_find(&ro->env, "TRTLLM_MOONCAKE_MASTER_TIMEOUT"))
		env(o, a, "TRTLLM_MOONCAKE_MASTER_TIMEOUT",
		    srt_arena_printf(a, "%d",
				     m->master_timeout_s > 0 ? m->master_timeout_s :
							       SRT_TRTLLM_POOL_TIMEOUT_DEFAULT),
		    "the mooncake-master's options.master_timeout_s: how long TRT-LLM waits for "
		    "the pool's master",
		    false);
	if (w->role == SRT_ROLE_PREFILL && !srt_env_find(&ro->env, "TRTLLM_MOONCAKE_STORE_ROLE"))
		env(o, a, "TRTLLM_MOONCAKE_STORE_ROLE", m->store_role ? m->store_role : "both",
		    "the mooncake-master's options.store_role (prefill workers)", false);
	if (!srt_env_find(&ro->env, "TRTLLM_MOONCAKE_RUN_DIR"))
		env(o, a, "TRTLLM_MOONCAKE_RUN_DIR",
		    srt_arena_printf(a, "%s/%s", ctr ? SRT_CONTAINER_LOG_DIR : l->log_dir, dir),
		    "the worker's own directory for TRT-LLM's pool files (mooncake.json)", !ctr);
}

const char *srt_launch_pool_run_dir(struct srt_arena *a, const struct srt_lworker *w)
{
	return srt_arena_printf(a, "mooncake/%s-%d", srt_role_name(w->role), w->index);
}

/*
 * A TRT-LLM worker: one MPI step whose rank 0 runs the launcher (Dynamo's
 * worker, or trtllm-serve's API server) and whose other ranks serve the
 * engine; the role's args are the engine's YAML file, not flags.
 */
static void trtllm_worker(struct srt_launch *o, struct srt_arena *a, const struct srt_recipe *r,
			  const struct srt_cluster *c, const struct srt_layout *l,
			  const struct srt_lworker *w, const char *model, const char *served,
			  bool dyn)
{
	const char *name = srt_launch_trtllm_config(a, w);
	bool ctr = in_container(r, c, w->role);
	const char *file = ctr ? srt_arena_printf(a, "%s/%s", SRT_CONTAINER_LOG_DIR, name) :
				 srt_arena_printf(a, "%s/%s", l->log_dir, name);
	const char *why_file = "the role's args, written as the engine's YAML file in the log "
			       "directory";

	pool_env(o, a, r, l, w, ctr);
	if (dyn) {
		if (model)
			flag(o, a, "--model-path", model, model_why(r, c, w->role), false);
		if (served)
			flag(o, a, "--served-model-name", served,
			     r->served_model_name ? "engine.served_model_name" :
						    "the model directory's name",
			     false);
		if (w->role != SRT_ROLE_AGG)
			flag(o, a, "--disaggregation-mode", srt_role_name(w->role),
			     "the worker's role", false);
		flag(o, a, "--extra-engine-args", file, why_file, !ctr);
		return;
	}
	if (model)
		word(o, a, model, model_why(r, c, w->role), false);
	flag(o, a, "--host", l->nodes[w->node].ip, WHY_HOST, true);
	flag_int(o, a, "--port", o->port, WHY_PORT);
	flag(o, a, "--extra_llm_api_options", file, why_file, !ctr);
}

/* KV-event ports one process of w holds: a vLLM process publishes one per local DP rank. */
static int kv_events_block(const struct srt_recipe *r, const struct srt_lworker *w)
{
	int dp, n = (int)w->nnodes;

	if (r->engine != SRT_ENGINE_VLLM)
		return 1;
	dp = role_arg_int(&r->roles[w->role], "data-parallel-size", 1);
	if (dp > 1 && n == 1)
		return dp;
	if (dp > 1 && n > 1 && dp % n == 0)
		return dp / n;
	return 1;
}

int srt_launch_kv_events_port(const struct srt_recipe *r, const struct srt_layout *l,
			      const struct srt_lworker *w, int rank)
{
	int port = SRT_LAUNCH_KV_EVENTS_PORT;

	for (size_t i = 0; i < l->nworkers; i++) {
		const struct srt_lworker *x = &l->workers[i];

		if (x == w)
			return port + rank * kv_events_block(r, x);
		port += (int)x->nnodes * kv_events_block(r, x);
	}
	return port;
}

/*
 * --kv-events-config of a process whose role has kv_events, as srt-slurm
 * renders it (json.dumps): the engine's defaults, the role's mapping over
 * them, then the endpoint this process binds.
 */
static void kv_events_flag(struct srt_launch *o, struct srt_arena *a, const struct srt_recipe *r,
			   const struct srt_role *ro, int port)
{
	json_t *cfg = json_object(), *user = NULL;
	const char *key;
	json_t *val;
	char *text;

	json_object_set_new(cfg, "publisher", json_string("zmq"));
	json_object_set_new(cfg, "topic", json_string("kv-events"));
	if (r->engine == SRT_ENGINE_VLLM)
		json_object_set_new(cfg, "enable_kv_cache_events", json_true());
	if (ro->kv_events->kind == SRT_Y_MAP)
		user = srt_ynode_to_json(ro->kv_events);
	json_object_foreach(user, key, val)
	{
		json_object_set(cfg, key, val);
	}
	json_object_set_new(cfg, "endpoint", json_string(srt_arena_printf(a, "tcp://*:%d", port)));
	text = json_dumps(cfg, JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
	flag(o, a, "--kv-events-config", text ? srt_arena_strdup(a, text) : "{}",
	     "roles.<role>.kv_events: the KV-event publisher (ZMQ) on this process's port, "
	     "srt-slurm's job-wide counter from 5200",
	     false);
	free(text);
	json_decref(user);
	json_decref(cfg);
}

/*
 * TileRT's decode server (roles.decode.engine: tilert, srt-slurm 2.0):
 * `--engine tilert --http-port P --ctrl-port C`; the role's args follow as
 * written (the model profile, weights, transport, ...).  C, its control
 * plane, is the worker's NIXL slot (5400 + j): the router names it to the
 * prefill's TileRTConnector.
 */
static void tilert_worker(struct srt_launch *o, struct srt_arena *a, const struct srt_lworker *w)
{
	flag(o, a, "--engine", "tilert",
	     "TileRT's engine (the decode server's default is a stub without a model)", false);
	flag_int(o, a, "--http-port", o->port, WHY_PORT_WORD);
	o->side_port = SRT_LAUNCH_NIXL_PORT + w->slot;
	flag_int(o, a, "--ctrl-port", o->side_port,
		 "its control plane, where the prefill's TileRTConnector hands over the KV: "
		 "5400 + its slot on the node");
}

void srt_launch_worker(struct srt_launch *out, struct srt_arena *a, const struct srt_recipe *r,
		       const struct srt_cluster *c, const struct srt_layout *l,
		       const struct srt_lworker *w, int rank)
{
	const char *leader_ip = l->nodes[w->node].ip;
	size_t self = w->node + (size_t)rank < l->nnodes ? w->node + (size_t)rank : w->node;
	const char *self_ip = l->nodes[self].ip;
	const char *model = srt_launch_model_arg(r, c, w->role);
	const char *served = srt_launch_served_name(a, r);
	const struct srt_role *ro = &r->roles[w->role];
	bool dyn = dynamo(r);
	int kv;

	memset(out, 0, sizeof(*out));
	if (r->engine != SRT_ENGINE_SGLANG && r->engine != SRT_ENGINE_VLLM &&
	    r->engine != SRT_ENGINE_TRTLLM && !(r->engine == SRT_ENGINE_MOCKER && dyn))
		return;
	out->port = worker_port(r, w);
	if (model && !strcmp(model, SRT_CONTAINER_MODEL_DIR))
		out->mount = r->model.path;
	if (ro->engine == SRT_ENGINE_TILERT)
		tilert_worker(out, a, w);
	else if (r->engine == SRT_ENGINE_TRTLLM)
		trtllm_worker(out, a, r, c, l, w, model, served, dyn);
	else if (r->engine == SRT_ENGINE_MOCKER)
		mocker_worker(out, a, r, w, model, model_why(r, c, w->role));
	else if (r->engine == SRT_ENGINE_SGLANG)
		sglang_worker(out, a, r, w, rank, leader_ip, self_ip, model,
			      model_why(r, c, w->role), served);
	else
		vllm_worker(out, a, r, w, rank, leader_ip, self_ip, model, model_why(r, c, w->role),
			    served, dyn);
	kv = srt_launch_kv_events_port(r, l, w, rank);
	if (ro->engine == SRT_ENGINE_TILERT) { /* no KV events, no Dynamo: validation */
		common_env(out, a, r, c, w);
		out->url = url(a, leader_ip, out->port);
		http_probe(out, out->port);
		out->readiness.timeout_seconds = srt_launch_ready_timeout(r, c);
		return;
	}
	/* SGLang: before --request-plane; dynamo.vllm: after it (srt-slurm's order). */
	if (r->engine == SRT_ENGINE_SGLANG && ro->kv_events)
		kv_events_flag(out, a, r, ro, kv);
	if (dyn)
		dynamo_worker(out, a, r, l, w);
	if (r->engine == SRT_ENGINE_VLLM && dyn) {
		if (ro->kv_events)
			kv_events_flag(out, a, r, ro, kv);
		env(out, a, "DYN_VLLM_KV_EVENT_PORT", srt_arena_printf(a, "%d", kv),
		    "the port dynamo.vllm's own KV-event publisher binds, distinct per process "
		    "(srt-slurm's job-wide counter from 5200; Dynamo's default 20080 collides when "
		    "workers share a node)",
		    false);
	}
	common_env(out, a, r, c, w);
	if (rank) {
		out->port = 0;
		return;
	}
	/* A Dynamo worker serves no API (the frontend reaches it through etcd). */
	if (!dyn)
		out->url = url(a, leader_ip, out->port);
	http_probe(out, out->port);
	out->readiness.timeout_seconds = srt_launch_ready_timeout(r, c);
}

bool srt_launch_numa_bind(const struct srt_recipe *r, enum srt_role_kind role)
{
	static const char *const grace[] = { "gb200", "gb300", "vrnvl72" };
	const char *gpu = r->resources.gpu_type;

	if (r->engine != SRT_ENGINE_TRTLLM || r->numa_memory_bind == SRT_NUMA_OFF)
		return false;
	if (r->numa_memory_bind == SRT_NUMA_ON)
		return true;
	if (role == SRT_ROLE_AGG || !gpu)
		return false;
	for (size_t i = 0; i < sizeof(grace) / sizeof(grace[0]); i++)
		if (!strcmp(gpu, grace[i]))
			return true;
	return false;
}

int srt_launch_ready_timeout(const struct srt_recipe *r, const struct srt_cluster *c)
{
	int n = r->health_check.max_attempts, s = r->health_check.interval_seconds;

	if (!n)
		n = c && c->health_max_attempts ?
			    c->health_max_attempts :
			    SRT_LAUNCH_READY_TIMEOUT / SRT_LAUNCH_READY_INTERVAL;
	if (!s)
		s = c && c->health_interval_seconds ? c->health_interval_seconds :
						      SRT_LAUNCH_READY_INTERVAL;
	/* Both are bounded where they are parsed (1e6 x 3600 > INT_MAX): cap at 10 years. */
	return (long long)n * s > 10LL * 365 * 86400 ? 10 * 365 * 86400 : n * s;
}

/* ---- frontend ---- */

enum srt_frontend_kind srt_launch_frontend_kind(const struct srt_recipe *r, const char **why)
{
	const char *t = r->frontend.type ? r->frontend.type : "none";
	const char *w = NULL;
	bool pd = r->roles[SRT_ROLE_PREFILL].present || r->roles[SRT_ROLE_DECODE].present;
	enum srt_frontend_kind k;

	if (!strcmp(t, "none"))
		k = r->frontend.command.n ? SRT_FE_CUSTOM : SRT_FE_NONE;
	else if (!strcmp(t, "sglang-router"))
		k = SRT_FE_SGLANG_ROUTER;
	else if (!strcmp(t, "vllm-router"))
		k = SRT_FE_VLLM_ROUTER;
	else if (!strcmp(t, "sglang") || !strcmp(t, "vllm"))
		k = SRT_FE_DIRECT;
	else if (!strcmp(t, "trtllm_serve") || !strcmp(t, "trtllm-serve")) {
		k = pd ? SRT_FE_TRTLLM_SERVE : SRT_FE_DIRECT;
	} else if (!strcmp(t, "dynamo") &&
		   (r->engine == SRT_ENGINE_SGLANG || r->engine == SRT_ENGINE_VLLM ||
		    r->engine == SRT_ENGINE_TRTLLM || r->engine == SRT_ENGINE_MOCKER))
		k = SRT_FE_DYNAMO;
	else if (!strcmp(t, "dynamo")) {
		k = SRT_FE_REFUSED;
		w = "Dynamo's frontend over this engine is not run by srtctl, which runs it over "
		    "SGLang, vLLM, TRT-LLM and mocker workers (dynamo.sglang, dynamo.vllm, "
		    "dynamo.trtllm, dynamo.mocker); use srt-slurm";
	} else if (!strcmp(t, "tilert-router")) {
		k = SRT_FE_TILERT_ROUTER;
	} else if (!strcmp(t, "atomesh")) {
		k = SRT_FE_REFUSED;
		w = "this frontend belongs to an engine which srtctl does not run; use srt-slurm, "
		    "or write 'type: sglang-router', 'vllm-router', 'sglang', 'vllm' or 'none'";
	} else {
		k = r->frontend.command.n ? SRT_FE_CUSTOM : SRT_FE_NONE;
	}
	if (why)
		*why = w;
	return k;
}

const struct srt_argv *srt_launch_frontend_command(const struct srt_recipe *r,
						   const struct srt_cluster *c)
{
	switch (srt_launch_frontend_kind(r, NULL)) {
	case SRT_FE_SGLANG_ROUTER:
		return r->frontend.command.n ? &r->frontend.command :
					       &c->commands[SRT_CMD_SGLANG_ROUTER];
	case SRT_FE_VLLM_ROUTER:
		return r->frontend.command.n ? &r->frontend.command :
					       &c->commands[SRT_CMD_VLLM_ROUTER];
	case SRT_FE_DYNAMO:
		return r->frontend.command.n ? &r->frontend.command :
					       &c->commands[SRT_CMD_DYNAMO_FRONTEND];
	case SRT_FE_TRTLLM_SERVE:
		return r->frontend.command.n ? &r->frontend.command : &c->commands[SRT_CMD_TRTLLM];
	case SRT_FE_TILERT_ROUTER:
		return r->frontend.command.n ? &r->frontend.command :
					       &c->commands[SRT_CMD_TILERT_ROUTER];
	case SRT_FE_CUSTOM:
		return &r->frontend.command;
	default:
		return NULL;
	}
}

/* A frontend key's mapping as JSON (a new reference), or NULL. */
static json_t *ser_json(const struct srt_ynode *n)
{
	return n ? srt_ynode_to_json(n) : NULL;
}

/*
 * trtllm_serve over prefill/decode workers: `trtllm-serve disaggregated -c
 * FILE`, FILE listing the context (prefill) and generation (decode)
 * servers' rank-0 addresses (as JSON, which the orchestrator's YAML loader
 * reads), frontend.ctx_router / gen_router as their routers and
 * frontend.server_config_extra's keys at the top level.
 */
static void trtllm_orchestrator(struct srt_launch *out, struct srt_arena *a,
				const struct srt_recipe *r, const struct srt_cluster *c,
				const struct srt_layout *l, int port)
{
	static const char *const why = "the orchestrator's config: the context (prefill) and "
				       "generation (decode) servers, written to the log directory";
	static const char *const keys[2] = { "context_servers", "generation_servers" };
	json_t *cfg = json_object(), *extra = ser_json(r->frontend.server_config_extra);
	json_t *urls[2] = { json_array(), json_array() };
	json_t *routers[2] = { ser_json(r->frontend.ctx_router), ser_json(r->frontend.gen_router) };
	bool ctr = in_container(r, c, SRT_ROLE_PREFILL);
	const char *name = "trtllm_disagg.yaml", *key;
	json_t *v;
	char *text;

	for (size_t i = 0; i < l->nworkers; i++) {
		const struct srt_lworker *w = &l->workers[i];
		struct srt_launch wl;

		if (w->role != SRT_ROLE_PREFILL && w->role != SRT_ROLE_DECODE)
			continue;
		srt_launch_worker(&wl, a, r, c, l, w, 0);
		json_array_append_new(
			urls[w->role == SRT_ROLE_DECODE],
			json_string(srt_arena_printf(a, "%s:%d", l->nodes[w->node].ip, wl.port)));
	}
	json_object_set_new(cfg, "hostname", json_string("0.0.0.0"));
	json_object_set_new(cfg, "port", json_integer(port));
	if (!json_object_get(extra, "backend"))
		json_object_set_new(cfg, "backend", json_string("pytorch"));
	for (size_t k = 0; k < 2; k++) {
		json_t *s = json_object();

		json_object_set_new(s, "num_instances",
				    json_integer((json_int_t)json_array_size(urls[k])));
		json_object_set_new(s, "urls", urls[k]);
		if (routers[k])
			json_object_set_new(s, "router", routers[k]);
		json_object_set_new(cfg, keys[k], s);
	}
	/* Validation refuses an extra key that names srtctl's (backend may be replaced). */
	json_object_foreach(extra, key, v)
	{
		if (!json_object_get(cfg, key))
			json_object_set(cfg, key, v);
	}
	json_decref(extra);
	text = json_dumps(cfg, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(cfg);
	out->config_file = name;
	out->config_text = srt_arena_printf(a, "%s\n", text ? text : "{}");
	out->config_runtime = true;
	free(text);
	word(out, a, "disaggregated", "trtllm_serve over prefill/decode workers: its orchestrator",
	     false);
	flag(out, a, "-c",
	     ctr ? srt_arena_printf(a, "%s/%s", SRT_CONTAINER_LOG_DIR, name) :
		   srt_arena_printf(a, "%s/%s", l->log_dir, name),
	     why, !ctr);
	out->port = port;
	out->url = url(a, l->nodes[l->head].ip, port);
	http_probe(out, port);
	out->readiness.timeout_seconds = SRT_FRONTEND_READY_TIMEOUT;
}

/*
 * A router's public endpoint: `--host 0.0.0.0 --port P` on the head node,
 * its URL, ready on GET /health.
 */
static void router_endpoint(struct srt_launch *out, struct srt_arena *a, const struct srt_layout *l,
			    size_t node, int port)
{
	flag(out, a, "--host", "0.0.0.0", "the public endpoint, reachable from every node", false);
	flag_int(out, a, "--port", port,
		 node == l->head ? "frontend.port (default 8000)" :
				   "8180: one of several frontends behind nginx");
	out->port = port;
	out->url = url(a, l->nodes[node].ip, port);
	http_probe(out, port);
	out->readiness.timeout_seconds = SRT_FRONTEND_READY_TIMEOUT;
}

/*
 * TileRT's P/D router (srt-slurm 2.0's tilert-router): `--vllm-url` the
 * prefill worker's URL, `--decode` then one HOST:CTRL_PORT:HTTP_PORT per
 * decode worker (the router hands the prefill's TileRTConnector the
 * decode's control port with each request), `--host 0.0.0.0 --port P`;
 * frontend.args follow.  Ready on GET /health.
 */
static void tilert_router(struct srt_launch *out, struct srt_arena *a, const struct srt_recipe *r,
			  const struct srt_cluster *c, const struct srt_layout *l, int port)
{
	static const char *const dwhy =
		"the TileRT decode workers: node IP, control port, HTTP port";
	bool said = false;

	/* the layout lists the workers in role order: the prefill worker first */
	for (size_t i = 0; i < l->nworkers; i++) {
		const struct srt_lworker *w = &l->workers[i];
		struct srt_launch wl;

		if (w->role == SRT_ROLE_AGG)
			continue;
		srt_launch_worker(&wl, a, r, c, l, w, 0);
		if (w->role == SRT_ROLE_PREFILL) {
			flag(out, a, "--vllm-url", wl.url, "the vLLM prefill worker", true);
			continue;
		}
		if (!said)
			word(out, a, "--decode", dwhy, false);
		said = true;
		word(out, a,
		     srt_arena_printf(a, "%s:%d:%d", l->nodes[w->node].ip, wl.side_port, wl.port),
		     dwhy, true);
	}
	router_endpoint(out, a, l, l->head, port);
}

/* Can several of this frontend run behind nginx (each one router over every worker)? */
static bool replicable(enum srt_frontend_kind k)
{
	return k == SRT_FE_DYNAMO || k == SRT_FE_SGLANG_ROUTER || k == SRT_FE_VLLM_ROUTER;
}

size_t srt_launch_frontend_nodes(const struct srt_recipe *r, const struct srt_layout *l,
				 struct srt_arena *a, const size_t **nodes)
{
	size_t cap = (size_t)(r->frontend.additional < 0 ? 0 : r->frontend.additional) + 1;
	bool *worker = NULL;
	size_t *v, n = 0;

	*nodes = NULL;
	if (!r->frontend.multiple || !replicable(srt_launch_frontend_kind(r, NULL)) || !l->nnodes)
		return 0;
	worker = srt_arena_alloc(a, l->nnodes * sizeof(*worker));
	memset(worker, 0, l->nnodes * sizeof(*worker));
	for (int k = 0; k < SRT_ROLE_COUNT; k++)
		for (size_t i = 0; i < l->roles[k].n; i++)
			if (l->roles[k].first + i < l->nnodes)
				worker[l->roles[k].first + i] = true;
	v = srt_arena_alloc(a, l->nnodes * sizeof(*v));
	for (size_t i = 0; i < l->nnodes && n < cap; i++)
		if (worker[i] && i != l->head)
			v[n++] = i;
	if (n)
		*nodes = v;
	return n;
}

/* `server HOST:PORT;` of one upstream: an IPv6 literal in brackets. */
static void nginx_server(struct srt_buf *b, const char *ip, int port)
{
	srt_buf_printf(b, strchr(ip, ':') ? "        server [%s]:%d;\n" : "        server %s:%d;\n",
		       ip, port);
}

const char *srt_launch_nginx_conf(struct srt_arena *a, const struct srt_recipe *r,
				  const struct srt_cluster *c, const struct srt_layout *l,
				  const size_t *nodes, size_t n, const char *dir, bool contained)
{
	const struct srt_frontend *f = &r->frontend;
	int port = f->port > 0 ? f->port : SRT_LAUNCH_FRONTEND_PORT;
	bool up = srt_launch_nginx_raise_ulimit(r, c);
	struct srt_buf b;
	const char *text;

	srt_buf_init(&b);
	srt_buf_printf(&b,
		       "# srtctl: nginx on the head node in front of the job's %zu frontends\n"
		       "# (frontend.enable_multiple_frontends); written before each start.\n"
		       "worker_processes auto;\n",
		       n);
	if (up)
		srt_buf_printf(&b, "worker_rlimit_nofile %d;\n", SRT_NGINX_NOFILE);
	/* paths in double quotes: a log directory may hold spaces, ';' or '#' */
	srt_buf_printf(&b, "pid \"%s/nginx.pid\";\n\n", dir);
	srt_buf_printf(&b, "events {\n    worker_connections %d;\n    multi_accept on;\n}\n\n",
		       up ? SRT_NGINX_NOFILE : SRT_NGINX_CONNECTIONS);
	srt_buf_printf(&b, "http {\n    access_log off;\n");
	/* a request body stays in memory (nginx's limit is 1m) */
	srt_buf_printf(&b, "    client_body_buffer_size 1m;\n");
	if (!contained)
		/*
		 * On a bare node nginx runs as the job's user: its temporary
		 * directories in the log directory, not the package's /var/lib/nginx.
		 */
		srt_buf_printf(&b,
			       "    client_body_temp_path \"%s/nginx-temp-body\";\n"
			       "    proxy_temp_path \"%s/nginx-temp-proxy\";\n"
			       "    fastcgi_temp_path \"%s/nginx-temp-fastcgi\";\n"
			       "    uwsgi_temp_path \"%s/nginx-temp-uwsgi\";\n"
			       "    scgi_temp_path \"%s/nginx-temp-scgi\";\n",
			       dir, dir, dir, dir, dir);
	if (f->nginx_affinity) {
		/* the header's variable: lower case, '-' as '_' (validation checks the name) */
		char *var = srt_arena_strdup(a, f->nginx_header);

		for (char *q = var; *q; q++)
			*q = *q == '-' ? '_' :
					 (char)((*q >= 'A' && *q <= 'Z') ? *q - 'A' + 'a' : *q);
		srt_buf_printf(
			&b,
			"    # a session's requests go to one frontend; without the header,\n"
			"    # a request id (spread over all of them)\n"
			"    map $http_%s $srtctl_affinity_key {\n"
			"        \"\" $request_id;\n"
			"        default $http_%s;\n"
			"    }\n",
			var, var);
	}
	srt_buf_printf(&b, "    upstream srtctl_frontends {\n");
	if (f->nginx_affinity)
		srt_buf_printf(&b, "        hash $srtctl_affinity_key consistent;\n");
	for (size_t i = 0; i < n; i++)
		nginx_server(&b, l->nodes[nodes[i]].ip, SRT_LAUNCH_FRONTEND_INTERNAL_PORT);
	srt_buf_printf(&b,
		       "        keepalive 4096;\n"
		       "        keepalive_timeout %s;\n"
		       "    }\n"
		       "    server {\n"
		       "        listen %d;\n"
		       "        keepalive_timeout %s;\n"
		       "        location / {\n"
		       "            proxy_pass http://srtctl_frontends;\n"
		       "            proxy_http_version 1.1;\n"
		       "            proxy_set_header Connection \"\";\n"
		       "            proxy_buffering off;\n"
		       "            proxy_read_timeout 24h;\n"
		       "            proxy_send_timeout 24h;\n"
		       "        }\n"
		       "    }\n"
		       "}\n",
		       f->nginx_keepalive, port, f->nginx_keepalive);
	text = srt_arena_strdup(a, b.data);
	srt_buf_release(&b);
	return text;
}

bool srt_launch_nginx_raise_ulimit(const struct srt_recipe *r, const struct srt_cluster *c)
{
	if (r->frontend.nginx_raise_ulimit >= 0)
		return r->frontend.nginx_raise_ulimit;
	return c && c->nginx_raise_ulimit > 0;
}

void srt_launch_frontend(struct srt_launch *out, struct srt_arena *a, const struct srt_recipe *r,
			 const struct srt_cluster *c, const struct srt_layout *l)
{
	srt_launch_frontend_at(out, a, r, c, l, l->head,
			       r->frontend.port > 0 ? r->frontend.port : SRT_LAUNCH_FRONTEND_PORT);
}

void srt_launch_frontend_at(struct srt_launch *out, struct srt_arena *a, const struct srt_recipe *r,
			    const struct srt_cluster *c, const struct srt_layout *l, size_t node,
			    int port)
{
	enum srt_frontend_kind k = srt_launch_frontend_kind(r, NULL);
	bool pd = r->roles[SRT_ROLE_PREFILL].present || r->roles[SRT_ROLE_DECODE].present;
	bool sgl = k == SRT_FE_SGLANG_ROUTER;
	bool agg_listed = false;

	memset(out, 0, sizeof(*out));
	switch (k) {
	case SRT_FE_NONE:
	case SRT_FE_REFUSED:
		return;
	case SRT_FE_DIRECT: {
		const struct srt_lworker *w = srt_layout_worker(l, SRT_ROLE_AGG, 0);

		if (w)
			out->url = url(a, l->nodes[w->node].ip, port);
		return;
	}
	case SRT_FE_CUSTOM:
		out->port = port;
		out->url = url(a, l->nodes[l->head].ip, port);
		out->readiness.probes[0] = (struct srt_probe){ SRT_PROBE_TCP, port, NULL, 0 };
		out->readiness.nprobes = 1;
		out->readiness.timeout_seconds = SRT_FRONTEND_READY_TIMEOUT;
		return;
	case SRT_FE_DYNAMO:
		/*
		 * It starts once every worker's status server said it registered, so
		 * the frontend's first read of etcd finds them all: its /health
		 * answers 200 after that read (503 before).
		 */
		word(out, a, srt_arena_printf(a, "--http-port=%d", port),
		     node == l->head ?
			     "frontend.port (default 8000): the OpenAI endpoint, on every address" :
			     "8180: one of several frontends behind nginx, on every address",
		     false);
		dyn_env(out, a, r, l);
		out->port = port;
		out->url = url(a, l->nodes[node].ip, port);
		http_probe(out, port);
		out->readiness.timeout_seconds = SRT_FRONTEND_READY_TIMEOUT;
		return;
	case SRT_FE_TRTLLM_SERVE:
		trtllm_orchestrator(out, a, r, c, l, port);
		return;
	case SRT_FE_TILERT_ROUTER:
		tilert_router(out, a, r, c, l, port);
		return;
	case SRT_FE_SGLANG_ROUTER:
	case SRT_FE_VLLM_ROUTER:
		break;
	}
	if (pd)
		word(out, a, sgl ? "--pd-disaggregation" : "--vllm-pd-disaggregation",
		     "prefill and decode workers: the router sends each request through both",
		     false);
	for (size_t i = 0; i < l->nworkers; i++) {
		const struct srt_lworker *w = &l->workers[i];
		struct srt_launch wl;

		srt_launch_worker(&wl, a, r, c, l, w, 0);
		if (!wl.url)
			continue;
		if (w->role == SRT_ROLE_PREFILL) {
			int bp = sgl ? wl.bootstrap_port : wl.side_port;

			word(out, a, "--prefill", "a prefill worker: its URL and bootstrap port",
			     false);
			word(out, a, wl.url, "a prefill worker: its URL and bootstrap port", true);
			if (bp)
				word(out, a, srt_arena_printf(a, "%d", bp),
				     "a prefill worker: its URL and bootstrap port", false);
		} else if (w->role == SRT_ROLE_DECODE) {
			flag(out, a, "--decode", wl.url, "a decode worker: its URL", true);
		} else {
			if (!agg_listed)
				word(out, a, "--worker-urls", "the aggregated workers", false);
			agg_listed = true;
			word(out, a, wl.url, "the aggregated workers", true);
		}
	}
	router_endpoint(out, a, l, node, port);
}
