/*
 * recipe/render.c: layout, environments, argv and the run plan.
 *
 * This file owns the rules that turn a validated recipe into processes:
 * which node each worker and service lands on, the env layers of every
 * process and which values srtctl owns (MOONCAKE_*), the argv of the
 * mooncake master, stores, generic services and engine workers, and the
 * vLLM store_config JSON.  It performs no I/O; node names and IPs are
 * placeholders that the batch script (recipe/script.c) or the agent
 * substitutes at run time.  See recipe/render.h for the rules themselves.
 */
#include "recipe/render.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipe/launch.h"
#include "recipe/mcclient.h"
#include "recipe/yemit.h"
#include "util/buf.h"
#include "util/shell.h"
#include "util/strutil.h"

/* ---- small arena helpers ---- */

struct argvb {
	const char **v;
	size_t n, cap;
};

static void argvb_push(struct argvb *b, struct srt_arena *a, const char *s)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;
		const char **v = srt_arena_alloc(a, cap * sizeof(*v));

		if (b->n)
			memcpy(v, b->v, b->n * sizeof(*v));
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n++] = s;
}

static void argvb_push_all(struct argvb *b, struct srt_arena *a, const struct srt_argv *src)
{
	for (size_t i = 0; i < src->n; i++)
		argvb_push(b, a, src->v[i]);
}

static void argvb_finish(struct argvb *b, struct srt_argv *out)
{
	out->v = b->v;
	out->n = b->n;
}

/* ---- layout ---- */

/*
 * The shape of one role: its nodes (`nodes`, default 1, as validation
 * assumes), nodes per worker and workers per node.  With `gpus` per worker
 * the workers pack onto gpus_per_node; without it the nodes are split
 * evenly between the workers, or the workers share them.
 */
struct role_shape {
	size_t nodes, npw, wpn;
};

static struct role_shape role_shape(const struct srt_recipe *r, const struct srt_role *role)
{
	size_t w = role->workers > 0 ? (size_t)role->workers : 1;
	size_t g = r->resources.gpus_per_node > 0 ? (size_t)r->resources.gpus_per_node : 4;
	struct role_shape sh = { role->nodes > 0 ? (size_t)role->nodes : 1, 1, 1 };

	if (role->gpus > 0) {
		size_t gpus = (size_t)role->gpus;

		if (gpus >= g)
			sh.npw = (gpus + g - 1) / g;
		else
			sh.wpn = g / gpus;
	} else if (w <= sh.nodes) {
		sh.npw = sh.nodes / w;
	} else {
		sh.wpn = (w + sh.nodes - 1) / sh.nodes;
	}
	return sh;
}

static bool service_launched(const struct srt_service *s)
{
	return s->enabled && !s->external;
}

static void add_node(struct srt_layout *l, struct srt_arena *a, size_t cap, const char *label,
		     bool dedicated)
{
	struct srt_lnode *n;

	if (l->nnodes >= cap)
		return;
	n = &l->nodes[l->nnodes++];
	n->label = srt_arena_strdup(a, label);
	n->host = srt_arena_printf(a, "<%s>", label);
	n->ip = srt_arena_printf(a, "<%s_ip>", label);
	n->dedicated = dedicated;
	n->pool = NULL;
}

/* Does the launched service s own a node pool? */
static bool owns_pool(const struct srt_service *s)
{
	return service_launched(s) && s->pool_nodes > 0;
}

/* The service node pools, after the roles' nodes, in declaration order. */
static void add_pools(struct srt_layout *l, struct srt_arena *a, size_t cap,
		      const struct srt_recipe *r)
{
	for (size_t i = 0; i < r->nservices; i++) {
		const struct srt_service *s = &r->services[i];
		struct srt_lpool *pl;

		if (!owns_pool(s))
			continue;
		pl = &l->pools[l->npools++];
		pl->owner = s;
		pl->first = l->nnodes;
		for (int j = 0; j < s->pool_nodes; j++) {
			char *label = srt_arena_printf(a, "pool_%s_node_%d", s->name, j);

			add_node(l, a, cap, label, false);
			if (l->nnodes > pl->first + (size_t)j)
				l->nodes[pl->first + (size_t)j].pool = s->name;
		}
		pl->n = l->nnodes - pl->first;
	}
}

const struct srt_lpool *srt_layout_pool(const struct srt_layout *l, const char *owner)
{
	for (size_t i = 0; owner && i < l->npools; i++)
		if (!strcmp(l->pools[i].owner->name, owner))
			return &l->pools[i];
	return NULL;
}

/*
 * A worker's GPUs on each of its nodes (`gpus`, else the role's nodes x g
 * split between its workers; capped at the node) taken from its first
 * node's next free GPU, and its slot among that node's worker leaders.
 * A worker that spans nodes owns them: GPUs from 0.
 */
static void place_gpus(struct srt_lworker *lw, const struct srt_role *role,
		       const struct role_shape *sh, size_t g, size_t *next_gpu, size_t *leaders)
{
	size_t w = role->workers > 0 ? (size_t)role->workers : 1;
	size_t total = role->gpus > 0 ? (size_t)role->gpus : sh->nodes * g / w;
	size_t per = lw->nnodes > 1 ? (total + lw->nnodes - 1) / lw->nnodes : total;

	if (!per)
		per = 1;
	if (per > g)
		per = g;
	if (lw->nnodes > 1 || next_gpu[lw->node] + per > g)
		next_gpu[lw->node] = 0;
	lw->gpu_first = (int)next_gpu[lw->node];
	lw->gpus = (int)per;
	next_gpu[lw->node] += per;
	lw->slot = (int)leaders[lw->node]++;
}

void srt_layout_build(struct srt_layout *l, struct srt_arena *a, const struct srt_recipe *r)
{
	struct role_shape sh[SRT_ROLE_COUNT];
	size_t cap = 2, wcap = 0;
	size_t g = r->resources.gpus_per_node > 0 ? (size_t)r->resources.gpus_per_node : 4;
	size_t *next_gpu, *leaders, npools = 0;
	bool dedicated = false;

	memset(l, 0, sizeof(*l));
	l->infra_ip = SRT_PH_INFRA_IP;
	l->log_dir = SRT_PH_LOG_DIR;
	for (size_t i = 0; i < r->nservices; i++) {
		if (service_launched(&r->services[i]) &&
		    r->services[i].placement == SRT_PLACE_DEDICATED)
			dedicated = true;
		if (owns_pool(&r->services[i])) {
			cap += (size_t)r->services[i].pool_nodes;
			npools++;
		}
	}
	l->pools = srt_arena_alloc(a, (npools ? npools : 1) * sizeof(*l->pools));
	for (int k = 0; k < SRT_ROLE_COUNT; k++) {
		const struct srt_role *role = &r->roles[k];

		if (!role->present)
			continue;
		sh[k] = role_shape(r, role);
		cap += sh[k].nodes;
		wcap += role->workers > 0 ? (size_t)role->workers : 1;
	}
	l->nodes = srt_arena_alloc(a, cap * sizeof(*l->nodes));
	next_gpu = srt_arena_alloc(a, cap * sizeof(*next_gpu));
	leaders = srt_arena_alloc(a, cap * sizeof(*leaders));
	memset(next_gpu, 0, cap * sizeof(*next_gpu));
	memset(leaders, 0, cap * sizeof(*leaders));
	l->workers = srt_arena_alloc(a, (wcap ? wcap : 1) * sizeof(*l->workers));
	for (int k = 0; k < SRT_ROLE_COUNT; k++) {
		const struct srt_role *role = &r->roles[k];
		size_t first, n, w;

		if (!role->present)
			continue;
		if (k == SRT_ROLE_DECODE && role->colocate && r->roles[SRT_ROLE_PREFILL].present &&
		    l->roles[SRT_ROLE_PREFILL].n) {
			first = l->roles[SRT_ROLE_PREFILL].first;
			n = l->roles[SRT_ROLE_PREFILL].n;
		} else {
			first = l->nnodes;
			n = sh[k].nodes;
			for (size_t j = 0; j < n; j++) {
				char label[64];

				snprintf(label, sizeof(label), "%s_node_%zu",
					 srt_role_name((enum srt_role_kind)k), j);
				add_node(l, a, cap, label, false);
			}
		}
		l->roles[k].first = first;
		l->roles[k].n = n;
		l->roles[k].wfirst = l->nworkers;
		w = role->workers > 0 ? (size_t)role->workers : 1;
		for (size_t i = 0; i < w; i++) {
			struct srt_lworker *lw = &l->workers[l->nworkers++];

			lw->role = (enum srt_role_kind)k;
			lw->index = (int)i;
			if (sh[k].npw > 1 && !(k == SRT_ROLE_DECODE && role->colocate) &&
			    (i + 1) * sh[k].npw <= n) {
				lw->node = first + i * sh[k].npw;
				lw->nnodes = sh[k].npw;
			} else {
				lw->node = first + (i / sh[k].wpn) % (n ? n : 1);
				lw->nnodes = 1;
			}
			place_gpus(lw, role, &sh[k], g, next_gpu, leaders);
		}
	}
	add_pools(l, a, cap, r);
	if (!l->nnodes)
		add_node(l, a, cap, "head_node", false);
	l->head = 0;
	l->infra = 0;
	if (dedicated) {
		l->nodes[l->nnodes].label = "infra_node";
		l->nodes[l->nnodes].host = "<infra_node>";
		l->nodes[l->nnodes].ip = SRT_PH_INFRA_IP;
		l->nodes[l->nnodes].dedicated = true;
		l->infra = l->nnodes++;
		l->dedicated = true;
	}
}

static bool starts_with(const char *s, const char *p, size_t *len)
{
	size_t n = strlen(p);

	if (strncmp(s, p, n))
		return false;
	*len = n;
	return true;
}

bool srt_layout_ref(const struct srt_layout *l, const char *s, struct srt_lref *ref)
{
	size_t n;

	if (*s != '<')
		return false;
	if (starts_with(s, l->infra_ip, &n)) {
		*ref = (struct srt_lref){ SRT_LREF_INFRA_IP, l->infra, n };
		return true;
	}
	if (starts_with(s, l->log_dir, &n)) {
		*ref = (struct srt_lref){ SRT_LREF_LOG_DIR, 0, n };
		return true;
	}
	/*
	 * "<ROLE_node_J>" / "<ROLE_node_J_ip>" names node roles[ROLE].first + J:
	 * compute the candidate instead of scanning every node (a scan per
	 * placeholder made rendering quadratic in the node count).
	 */
	for (int k = 0; k < SRT_ROLE_COUNT; k++) {
		const char *role = srt_role_name((enum srt_role_kind)k);
		size_t rl = strlen(role);
		char *end;
		unsigned long j;

		if (strncmp(s + 1, role, rl) || strncmp(s + 1 + rl, "_node_", 6))
			continue;
		j = strtoul(s + 1 + rl + 6, &end, 10);
		if (end == s + 1 + rl + 6 || j >= l->roles[k].n)
			break;
		if (starts_with(s, l->nodes[l->roles[k].first + j].ip, &n)) {
			*ref = (struct srt_lref){ SRT_LREF_NODE_IP, l->roles[k].first + j, n };
			return true;
		}
		if (starts_with(s, l->nodes[l->roles[k].first + j].host, &n)) {
			*ref = (struct srt_lref){ SRT_LREF_NODE_HOST, l->roles[k].first + j, n };
			return true;
		}
		break;
	}
	/* "<pool_NAME_node_J>": a node of a service's pool. */
	for (size_t k = 0; k < l->npools; k++) {
		const struct srt_lpool *pl = &l->pools[k];
		size_t nl = strlen(pl->owner->name);
		char *end;
		unsigned long j;

		if (strncmp(s + 1, "pool_", 5) || strncmp(s + 6, pl->owner->name, nl) ||
		    strncmp(s + 6 + nl, "_node_", 6))
			continue;
		j = strtoul(s + 6 + nl + 6, &end, 10);
		if (end == s + 6 + nl + 6 || j >= pl->n)
			continue;
		if (starts_with(s, l->nodes[pl->first + j].ip, &n)) {
			*ref = (struct srt_lref){ SRT_LREF_NODE_IP, pl->first + j, n };
			return true;
		}
		if (starts_with(s, l->nodes[pl->first + j].host, &n)) {
			*ref = (struct srt_lref){ SRT_LREF_NODE_HOST, pl->first + j, n };
			return true;
		}
	}
	/* The few nodes without a role (infra_node, head_node): a short scan. */
	for (size_t i = 0; i < l->nnodes; i++) {
		if (starts_with(s, l->nodes[i].ip, &n)) {
			*ref = (struct srt_lref){ SRT_LREF_NODE_IP, i, n };
			return true;
		}
		if (starts_with(s, l->nodes[i].host, &n)) {
			*ref = (struct srt_lref){ SRT_LREF_NODE_HOST, i, n };
			return true;
		}
		if (i >= 8 && l->nnodes > 16)
			i = l->nnodes - 9; /* role nodes come first; the rest sit at the end */
	}
	return false;
}

const struct srt_lworker *srt_layout_worker(const struct srt_layout *l, enum srt_role_kind role,
					    int index)
{
	size_t i = l->roles[role].wfirst + (size_t)index;

	if (index < 0 || i >= l->nworkers || l->workers[i].role != role)
		return NULL;
	return &l->workers[i];
}

/* ---- environment ---- */

const char *srt_env_owner_name(enum srt_env_owner o)
{
	return o == SRT_OWNER_SRTCTL ? "srtctl" : "recipe";
}

const struct srt_renv_var *srt_renv_find(const struct srt_renv *e, const char *name)
{
	size_t at;

	return srt_strmap_get(&e->index, name, &at) ? &e->v[at] : NULL;
}

static struct srt_renv_var *env_slot(struct srt_renv *e, struct srt_arena *a, const char *name,
				     bool *existed)
{
	size_t at;

	if (!e->index.cap)
		srt_strmap_init(&e->index, a, false);
	if (!srt_strmap_add(&e->index, name, e->n, &at)) {
		*existed = true;
		return &e->v[at];
	}
	*existed = false;
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 16;
		struct srt_renv_var *v = srt_arena_alloc(a, cap * sizeof(*v));

		if (e->n)
			memcpy(v, e->v, e->n * sizeof(*v));
		e->v = v;
		e->cap = cap;
	}
	memset(&e->v[e->n], 0, sizeof(e->v[e->n]));
	e->v[e->n].name = name;
	return &e->v[e->n++];
}

static void env_layer(struct srt_renv *e, struct srt_arena *a, const struct srt_env *src,
		      const char *layer)
{
	for (size_t i = 0; i < src->n; i++) {
		bool existed;
		struct srt_renv_var *v = env_slot(e, a, src->v[i].name, &existed);

		v->value = src->v[i].value;
		v->owner = SRT_OWNER_RECIPE;
		v->layer = layer;
		v->runtime = false;
		v->overridden = NULL;
		v->overridden_layer = NULL;
	}
}

static void env_stamp(struct srt_renv *e, struct srt_arena *a, const char *name, const char *value,
		      const char *why, bool runtime)
{
	bool existed;
	struct srt_renv_var *v = env_slot(e, a, name, &existed);

	if (existed && v->owner == SRT_OWNER_RECIPE) {
		v->overridden = v->value;
		v->overridden_layer = v->layer;
	}
	v->value = value;
	v->owner = SRT_OWNER_SRTCTL;
	v->layer = why;
	v->runtime = runtime;
}

/* Master endpoints, computed once per call site. */
struct endpoints {
	const struct srt_service *master;
	const char *addr, *metadata, *why;
	bool runtime;
};

static struct endpoints endpoints(struct srt_arena *a, const struct srt_recipe *r,
				  const struct srt_layout *l)
{
	struct endpoints ep = { srt_recipe_master(r), NULL, NULL, NULL, false };

	if (!ep.master)
		return ep;
	if (ep.master->external) {
		const char *h = ep.master->external_host ? ep.master->external_host : "";

		ep.addr = ep.master->external;
		ep.metadata = strchr(h, ':') ? srt_arena_printf(a, "http://[%s]:%d/metadata", h,
								SRT_MC_METADATA_PORT) :
					       srt_arena_printf(a, "http://%s:%d/metadata", h,
								SRT_MC_METADATA_PORT);
		ep.why = "mooncake-master (external)";
		ep.runtime = false;
	} else {
		ep.addr = srt_arena_printf(a, "%s:%d", l->infra_ip, SRT_MC_RPC_PORT);
		ep.metadata = srt_arena_printf(a, "http://%s:%d/metadata", l->infra_ip,
					       SRT_MC_METADATA_PORT);
		ep.why = "mooncake-master";
		ep.runtime = true;
	}
	return ep;
}

const char *srt_render_master_addr(struct srt_arena *a, const struct srt_recipe *r,
				   const struct srt_layout *l)
{
	return endpoints(a, r, l).addr;
}

const char *srt_render_metadata_url(struct srt_arena *a, const struct srt_recipe *r,
				    const struct srt_layout *l)
{
	return endpoints(a, r, l).metadata;
}

static bool in_container(const struct srt_cluster *c, const char *image)
{
	return c && c->container_runtime == SRT_CRT_PYXIS && image;
}

/* s with every "{key}" replaced by val (s itself when there is none). */
static const char *replace_all(struct srt_arena *a, const char *s, const char *key, const char *val)
{
	struct srt_buf b;
	const char *p, *q, *res;

	if (!strstr(s, key))
		return s;
	srt_buf_init(&b);
	for (p = s; (q = strstr(p, key)); p = q + strlen(key)) {
		srt_buf_append(&b, p, (size_t)(q - p));
		srt_buf_puts(&b, val);
	}
	srt_buf_puts(&b, p);
	res = srt_arena_strdup(a, b.data);
	srt_buf_release(&b);
	return res;
}

/*
 * srt-slurm's per-worker env templates in the recipe's values: {node} is
 * the hostname of the node the process runs on, {node_id} that node's index
 * among the job's worker nodes (0-based; a dedicated infra node is not one).
 * `self_ip` names the node (its IP placeholder); a role's table without a
 * node (SRT_PH_WORKER_IP) shows <worker_node> and <worker_node_id>.
 */
static void env_node_templates(struct srt_renv *e, struct srt_arena *a, const struct srt_layout *l,
			       const char *self_ip)
{
	const char *host = "<worker_node>", *id = "<worker_node_id>";

	for (size_t i = 0, k = 0; i < l->nnodes; i++) {
		if (l->nodes[i].ip && !strcmp(l->nodes[i].ip, self_ip)) {
			host = l->nodes[i].host;
			id = srt_arena_printf(a, "%zu", k);
			break;
		}
		k += !l->nodes[i].dedicated;
	}
	for (size_t i = 0; i < e->n; i++) {
		struct srt_renv_var *v = &e->v[i];
		const char *was = v->value;

		if (v->owner != SRT_OWNER_RECIPE || !was)
			continue;
		v->value = replace_all(a, replace_all(a, was, "{node}", host), "{node_id}", id);
		/* The hostname placeholder is bound by the agent. */
		v->runtime = v->runtime || strstr(was, "{node}");
	}
}

void srt_render_role_env(struct srt_renv *out, struct srt_arena *a, const struct srt_recipe *r,
			 const struct srt_cluster *c, const struct srt_layout *l,
			 enum srt_role_kind role, const char *self_ip)
{
	const struct srt_role *ro = &r->roles[role];
	struct endpoints ep = endpoints(a, r, l);

	memset(out, 0, sizeof(*out));
	env_layer(out, a, &r->environment, "environment");
	env_layer(out, a, &ro->env, srt_arena_printf(a, "roles.%s.env", srt_role_name(role)));
	env_node_templates(out, a, l, self_ip);
	if (!ep.master)
		return;
	env_stamp(out, a, "MOONCAKE_MASTER", ep.addr, ep.why, ep.runtime);
	/* TRT-LLM's own master serves no HTTP metadata (its clients hand shake P2P) */
	if (!srt_recipe_trtllm_pool(r))
		env_stamp(out, a, "MOONCAKE_TE_META_DATA_SERVER", ep.metadata, ep.why, ep.runtime);
	if (!srt_env_find(&ro->env, "MOONCAKE_LOCAL_HOSTNAME"))
		env_stamp(out, a, "MOONCAKE_LOCAL_HOSTNAME", self_ip, "the worker's node IP", true);
	if (r->engine == SRT_ENGINE_VLLM || srt_mcclient_reads(r, role)) {
		const char *file = r->engine == SRT_ENGINE_VLLM ? SRT_STORE_CONFIG_FILE :
								  srt_mcclient_file(role);
		const char *why = r->engine == SRT_ENGINE_VLLM ?
					  "options.store_config" :
					  srt_arena_printf(a,
							   "the master's options.store_config and "
							   "roles.%s.mooncake_store_config",
							   srt_role_name(role));

		if (in_container(c, srt_render_role_container(r, c, role)))
			env_stamp(out, a, "MOONCAKE_CONFIG_PATH",
				  srt_arena_printf(a, "%s/%s", SRT_CONTAINER_LOG_DIR, file), why,
				  false);
		else
			env_stamp(out, a, "MOONCAKE_CONFIG_PATH",
				  srt_arena_printf(a, "%s/%s", l->log_dir, file), why, true);
	}
}

/* The variables the launch model stamps (recipe/launch.h) over the role env. */
static void launch_env(struct srt_renv *out, struct srt_arena *a, const struct srt_launch *ln)
{
	for (size_t i = 0; i < ln->nenv; i++)
		env_stamp(out, a, ln->env[i].name, ln->env[i].value, ln->env[i].why,
			  ln->env[i].runtime);
}

void srt_render_worker_env(struct srt_renv *out, struct srt_arena *a, const struct srt_recipe *r,
			   const struct srt_cluster *c, const struct srt_layout *l,
			   enum srt_role_kind role, int index)
{
	const struct srt_lworker *w = srt_layout_worker(l, role, index);
	const char *ip = w ? l->nodes[w->node].ip : SRT_PH_WORKER_IP;
	struct srt_launch ln;

	srt_render_role_env(out, a, r, c, l, role, ip);
	if (!w)
		return;
	srt_launch_worker(&ln, a, r, c, l, w, 0);
	launch_env(out, a, &ln);
}

void srt_render_service_env(struct srt_renv *out, struct srt_arena *a, const struct srt_recipe *r,
			    const struct srt_layout *l, const struct srt_service *s, size_t node)
{
	struct endpoints ep;

	memset(out, 0, sizeof(*out));
	env_layer(out, a, &r->environment, "environment");
	env_layer(out, a, &s->env, srt_arena_printf(a, "services.%s.env", s->name));
	if (s->type != SRT_SVC_MOONCAKE_STORE)
		return;
	ep = endpoints(a, r, l);
	if (!ep.master)
		return;
	env_stamp(out, a, "MOONCAKE_MASTER", ep.addr, ep.why, ep.runtime);
	env_stamp(out, a, "MOONCAKE_TE_META_DATA_SERVER", ep.metadata, ep.why, ep.runtime);
	if (!srt_env_find(&s->env, "MOONCAKE_LOCAL_HOSTNAME") && node < l->nnodes)
		env_stamp(out, a, "MOONCAKE_LOCAL_HOSTNAME", l->nodes[node].ip,
			  "the store's node IP", true);
}

json_t *srt_renv_to_json(const struct srt_renv *e)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < e->n; i++) {
		const struct srt_renv_var *v = &e->v[i];
		json_t *o = json_object();

		json_object_set_new(o, "name", json_string(v->name));
		json_object_set_new(o, "value", json_string(v->value));
		json_object_set_new(o, "owner", json_string(srt_env_owner_name(v->owner)));
		json_object_set_new(o, "layer", json_string(v->layer ? v->layer : ""));
		if (v->runtime)
			json_object_set_new(o, "runtime", json_true());
		if (v->overridden) {
			json_object_set_new(o, "overridden", json_string(v->overridden));
			json_object_set_new(o, "overridden_layer",
					    json_string(v->overridden_layer ? v->overridden_layer :
									      ""));
		}
		json_array_append_new(arr, o);
	}
	return arr;
}

/* ---- store_config and containers ---- */

json_t *srt_render_store_config(const struct srt_recipe *r, const struct srt_layout *l)
{
	struct srt_arena a;
	struct endpoints ep;
	json_t *out = NULL, *user = NULL;
	const char *key;
	json_t *val;

	srt_arena_init(&a);
	ep = endpoints(&a, r, l);
	if (!ep.master || r->engine != SRT_ENGINE_VLLM)
		goto out;
	out = json_object();
	json_object_set_new(out, "master_server_address", json_string(ep.addr));
	user = ep.master->store_config ? srt_ynode_to_json(ep.master->store_config) : NULL;
	if (json_is_object(user)) {
		json_object_foreach(user, key, val)
		{
			if (strcmp(key, "master_server_address"))
				json_object_set(out, key, val);
		}
	}
out:
	json_decref(user);
	srt_arena_release(&a);
	return out;
}

/* An empty image name means "not set", as in srt-slurm (docs/recipe-reference.md). */
static bool image_set(const char *name)
{
	return name && *name;
}

static const char *resolve(const struct srt_cluster *c, const char *name)
{
	if (!image_set(name))
		return NULL;
	return c ? srt_cluster_container(c, name) : name;
}

const char *srt_render_job_container(const struct srt_recipe *r, const struct srt_cluster *c)
{
	return resolve(c, r->model.container);
}

const char *srt_render_role_container(const struct srt_recipe *r, const struct srt_cluster *c,
				      enum srt_role_kind role)
{
	const char *name = r->roles[role].container;

	return image_set(name) ? resolve(c, name) : srt_render_job_container(r, c);
}

const char *srt_render_service_container(const struct srt_recipe *r, const struct srt_cluster *c,
					 const struct srt_service *s)
{
	const struct srt_service *m;

	if (image_set(s->container))
		return resolve(c, s->container);
	if (s->type == SRT_SVC_MOONCAKE_STORE || s->type == SRT_SVC_MOONCAKE_DONOR) {
		m = srt_recipe_master(r);
		if (m && image_set(m->container))
			return resolve(c, m->container);
	}
	return srt_render_job_container(r, c);
}

/* ---- argv ---- */

static bool has_nul(const struct srt_ynode *n)
{
	return n->kind == SRT_Y_SCALAR && n->str && strlen(n->str) != n->len;
}

static void nul_error(struct srt_diags *d, const char *file, const struct srt_ynode *n,
		      const char *path)
{
	srt_diags_add(d, SRT_DIAG_ERROR, file, n->line, n->col, path,
		      "contains a NUL byte, which no process can receive in its arguments; "
		      "remove it");
}

/* Compact JSON of a list or mapping, in the arena; NULL when not representable. */
static const char *json_text(struct srt_arena *a, const struct srt_ynode *n)
{
	json_t *j = srt_ynode_to_json(n);
	char *s = j ? json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	const char *out = s ? srt_arena_strdup(a, s) : NULL;

	free(s);
	json_decref(j);
	return out;
}

/* Does any scalar in the subtree hold a NUL (keys included)? */
static const struct srt_ynode *find_nul(const struct srt_ynode *n)
{
	const struct srt_ynode *bad;

	if (!n)
		return NULL;
	if (n->kind == SRT_Y_SCALAR)
		return has_nul(n) ? n : NULL;
	for (size_t i = 0; i < n->n; i++) {
		if (n->kind == SRT_Y_MAP) {
			if ((bad = find_nul(n->pairs[i].key)) ||
			    (bad = find_nul(n->pairs[i].value)))
				return bad;
		} else if ((bad = find_nul(n->items[i]))) {
			return bad;
		}
	}
	return NULL;
}

static int push_value(struct argvb *b, struct srt_arena *a, const struct srt_ynode *v,
		      const char *file, const char *path, struct srt_diags *d)
{
	const char *text;
	const struct srt_ynode *bad = find_nul(v);

	if (bad) {
		nul_error(d, file, bad, path);
		return -1;
	}
	if (v->kind == SRT_Y_SCALAR) {
		argvb_push(b, a, v->str ? v->str : "");
		return 0;
	}
	text = json_text(a, v);
	if (!text) {
		srt_diags_add(d, SRT_DIAG_ERROR, file, v->line, v->col, path,
			      "cannot be rendered as JSON (is every string valid UTF-8?); write "
			      "the value as a quoted JSON string instead");
		return -1;
	}
	argvb_push(b, a, text);
	return 0;
}

/*
 * An engine flag from an args key: "--" + the key, '_' written as '-' as
 * srt-slurm renders role args (SGLang's parser knows only the dashed
 * spellings; vLLM's takes both).
 */
static const char *engine_flag(struct srt_arena *a, const char *key)
{
	char *flag = srt_arena_printf(a, "--%s", key);

	for (char *p = flag + 2; *p; p++)
		if (*p == '_')
			*p = '-';
	return flag;
}

/*
 * `engine`: a worker's args: skip the keys srtctl replaces on that recipe's
 * workers and write SGLang's and vLLM's flags dashed (NULL: keep all, as
 * written).
 */
static int render_args(struct argvb *b, struct srt_arena *a, const struct srt_ynode *args,
		       const char *file, const char *path, const struct srt_recipe *engine,
		       bool dash_keys, struct srt_diags *d)
{
	bool dashed = dash_keys || (engine && (engine->engine == SRT_ENGINE_SGLANG ||
					       engine->engine == SRT_ENGINE_VLLM));

	int rc = 0;

	if (!args || args->kind != SRT_Y_MAP)
		return 0;
	for (size_t i = 0; i < args->n; i++) {
		const struct srt_ynode *k = args->pairs[i].key, *v = args->pairs[i].value;
		const char *kpath = srt_arena_printf(a, "%s.%s", path, k->str);
		const char *flag;
		bool on;

		if (has_nul(k)) {
			nul_error(d, file, k, kpath);
			rc = -1;
			continue;
		}
		if (engine && srt_launch_arg_replaced(engine, k->str))
			continue;
		flag = k->str[0] == '-' ? k->str :
		       dashed		? engine_flag(a, k->str) :
					  srt_arena_printf(a, "--%s", k->str);
		if (srt_ynode_is_null(v))
			continue;
		if (v->kind == SRT_Y_SCALAR && srt_ynode_bool(v, &on)) {
			if (on)
				argvb_push(b, a, flag);
			continue;
		}
		if (v->kind == SRT_Y_SEQ) {
			const struct srt_ynode *bad = find_nul(v);

			if (bad) {
				nul_error(d, file, bad, kpath);
				rc = -1;
				continue;
			}
			if (!v->n)
				continue;
			argvb_push(b, a, flag);
			for (size_t j = 0; j < v->n; j++)
				if (push_value(b, a, v->items[j], file, kpath, d) < 0)
					rc = -1;
			continue;
		}
		argvb_push(b, a, flag);
		if (push_value(b, a, v, file, kpath, d) < 0)
			rc = -1;
	}
	return rc;
}

int srt_render_args(struct srt_argv *out, struct srt_arena *a, const struct srt_ynode *args,
		    const char *file, const char *path, struct srt_diags *d)
{
	struct argvb b = { NULL, 0, 0 };
	int rc;

	argvb_push_all(&b, a, out);
	rc = render_args(&b, a, args, file, path, NULL, false, d);
	argvb_finish(&b, out);
	return rc;
}

/* The worker's command: the engine's, or Dynamo's worker for it under the Dynamo frontend. */
static enum srt_cmd_kind engine_cmd(const struct srt_recipe *r)
{
	bool dyn = srt_launch_frontend_kind(r, NULL) == SRT_FE_DYNAMO;

	switch (r->engine) {
	case SRT_ENGINE_VLLM:
		return dyn ? SRT_CMD_DYNAMO_VLLM : SRT_CMD_VLLM;
	case SRT_ENGINE_TRTLLM:
		return dyn ? SRT_CMD_DYNAMO_TRTLLM : SRT_CMD_TRTLLM;
	case SRT_ENGINE_MOCKER:
		return SRT_CMD_MOCKER;
	case SRT_ENGINE_TILERT: /* a role's, never the recipe's: srt_render_worker_argv() */
		return SRT_CMD_TILERT_DECODE;
	case SRT_ENGINE_SGLANG:
	case SRT_ENGINE_UNSET:
		break;
	}
	return dyn ? SRT_CMD_DYNAMO_SGLANG : SRT_CMD_SGLANG;
}

int srt_render_worker_argv(struct srt_argv *out, bool **runtime, struct srt_arena *a,
			   const struct srt_recipe *r, const struct srt_cluster *c,
			   const struct srt_layout *l, const struct srt_lworker *w, int rank,
			   struct srt_diags *d)
{
	enum srt_role_kind role = w->role;
	const struct srt_role *ro = &r->roles[role];
	enum srt_cmd_kind ck = ro->engine == SRT_ENGINE_TILERT ? SRT_CMD_TILERT_DECODE :
								 engine_cmd(r);
	struct argvb b = { NULL, 0, 0 };
	struct srt_launch ln;
	bool *rt;
	size_t first;
	int rc;

	const struct srt_ynode *block = NULL;
	/* Dynamo's worker on a role that provisions TRT-LLM's pool: inside the pool's context */
	bool pool_wrap = ck == SRT_CMD_DYNAMO_TRTLLM && srt_recipe_trtllm_pool(r) &&
			 srt_role_trtllm_mooncake(r, role, &block) && block;
	size_t yaml_at = 0;

	if (pool_wrap)
		ck = SRT_CMD_DYNAMO_TRTLLM_POOL;
	if (r->engine == SRT_ENGINE_TRTLLM && !c->commands[SRT_CMD_TRTLLM_LAUNCH].n)
		ck = SRT_CMD_TRTLLM_LAUNCH;
	if (srt_launch_numa_bind(r, role) && !c->commands[SRT_CMD_NUMACTL].n)
		ck = SRT_CMD_NUMACTL;
	if (!c->commands[ck].n) {
		srt_diags_add(d, SRT_DIAG_ERROR, c->source ? c->source : r->file, 0, 0, "commands",
			      "the cluster config has no command for '%s'; set commands.%s in "
			      "srtslurm.yaml (e.g. [python3, -m, sglang.launch_server])",
			      srt_cmd_kind_name(ck), srt_cmd_kind_name(ck));
		return -1;
	}
	/*
	 * TRT-LLM's ranks: the launcher runs the command on rank 0 and the engine
	 * on all; on a Grace tray under numactl, so no rank's host memory lands
	 * on a GPU's NUMA node.
	 */
	if (srt_launch_numa_bind(r, role)) {
		argvb_push_all(&b, a, &c->commands[SRT_CMD_NUMACTL]);
		argvb_push(&b, a, "-m");
		argvb_push(&b, a, "0,1");
	}
	if (r->engine == SRT_ENGINE_TRTLLM)
		argvb_push_all(&b, a, &c->commands[SRT_CMD_TRTLLM_LAUNCH]);
	argvb_push_all(&b, a, &c->commands[ck]);
	srt_launch_worker(&ln, a, r, c, l, w, rank);
	if (pool_wrap) { /* the program's argv[1]: the engine YAML it provisions from */
		for (size_t i = 0; i + 1 < ln.nwords; i++)
			if (!strcmp(ln.words[i].arg, "--extra-engine-args")) {
				yaml_at = b.n;
				argvb_push(&b, a, ln.words[i + 1].arg);
				break;
			}
	}
	first = b.n;
	for (size_t i = 0; i < ln.nwords; i++)
		argvb_push(&b, a, ln.words[i].arg);
	/* TRT-LLM's args are its engine YAML (srt_render_trtllm_config()), not flags. */
	/* TileRT's decode server: the role's args as written, '_' as '-' (srt-slurm's) */
	rc = r->engine == SRT_ENGINE_TRTLLM && ro->engine != SRT_ENGINE_TILERT ?
		     0 :
		     render_args(&b, a, ro->args, r->file,
				 srt_arena_printf(a, "roles.%s.args", srt_role_name(role)),
				 ro->engine == SRT_ENGINE_TILERT ? NULL : r,
				 ro->engine == SRT_ENGINE_TILERT, d);
	argvb_push_all(&b, a, &ro->extra_args);
	argvb_finish(&b, out);
	if (runtime) {
		rt = srt_arena_alloc(a, (b.n + 1) * sizeof(*rt));
		memset(rt, 0, (b.n + 1) * sizeof(*rt));
		for (size_t i = 0; i < ln.nwords; i++)
			rt[first + i] = ln.words[i].runtime;
		if (yaml_at)
			rt[yaml_at] = strchr(b.v[yaml_at], '<') != NULL;
		*runtime = rt;
	}
	return rc;
}

void srt_render_service_argv(struct srt_argv *out, struct srt_arena *a, const struct srt_cluster *c,
			     const struct srt_service *s)
{
	struct argvb b = { NULL, 0, 0 };

	/*
	 * srt-slurm's override: a typed kind's `command` is its whole argv, no
	 * words of ours (a ray service may not have one: parse.c); the type's
	 * env, readiness and placement stay.
	 */
	if (s->command.n && s->type != SRT_SVC_RAY) {
		argvb_push_all(&b, a, &s->command);
		argvb_push_all(&b, a, &s->args);
		argvb_finish(&b, out);
		return;
	}
	switch (s->type) {
	case SRT_SVC_MOONCAKE_MASTER:
		argvb_push_all(&b, a, &c->commands[SRT_CMD_MOONCAKE_MASTER]);
		argvb_push(&b, a, srt_arena_printf(a, "--rpc_port=%d", SRT_MC_RPC_PORT));
		argvb_push(&b, a, "--enable_http_metadata_server=true");
		argvb_push(&b, a,
			   srt_arena_printf(a, "--http_metadata_server_port=%d",
					    SRT_MC_METADATA_PORT));
		argvb_push(&b, a, srt_arena_printf(a, "--metrics_port=%d", SRT_MC_ADMIN_PORT));
		break;
	case SRT_SVC_MOONCAKE_STORE:
		argvb_push_all(&b, a, &c->commands[SRT_CMD_MOONCAKE_STORE]);
		break;
	case SRT_SVC_MOONCAKE_DONOR: /* its flags: pool_service() */
		argvb_push_all(&b, a, &c->commands[SRT_CMD_TRTLLM]);
		argvb_push(&b, a, "mooncake_donor");
		break;
	case SRT_SVC_ETCD:
		argvb_push_all(&b, a, &c->commands[SRT_CMD_ETCD]);
		break;
	case SRT_SVC_NATS:
		argvb_push_all(&b, a, &c->commands[SRT_CMD_NATS]);
		break;
	case SRT_SVC_LMCACHE_SERVER:
		/*
		 * On every address of the node: vLLM ranks reach the RPC port
		 * over localhost, the agent probes the HTTP port on the node IP.
		 */
		if (!c->commands[SRT_CMD_LMCACHE].n) {
			argvb_finish(&b, out); /* empty: the plan says what to set */
			return;
		}
		argvb_push_all(&b, a, &c->commands[SRT_CMD_LMCACHE]);
		argvb_push(&b, a, "server");
		argvb_push(&b, a, "--host");
		argvb_push(&b, a, "0.0.0.0");
		argvb_push(&b, a, "--port");
		argvb_push(&b, a, srt_arena_printf(a, "%d", SRT_LMCACHE_RPC_PORT));
		argvb_push(&b, a, "--http-host");
		argvb_push(&b, a, "0.0.0.0");
		argvb_push(&b, a, "--http-port");
		argvb_push(&b, a, srt_arena_printf(a, "%d", SRT_LMCACHE_HTTP_PORT));
		break;
	case SRT_SVC_RAY: /* its words: ray_service() */
		argvb_push_all(&b, a, &c->commands[SRT_CMD_RAY]);
		break;
	case SRT_SVC_GENERIC: /* its command: above */
		break;
	}
	argvb_push_all(&b, a, &s->args);
	argvb_finish(&b, out);
}

/* ---- plan ---- */

/*
 * A preamble (a service's, the setup_script's) runs in the same bash, before
 * its command: bash -c '<preamble>
 * exec "$@"' <argv0> <argv...>.  The command stays an argv (no quoting);
 * "$0" names the command in bash's messages.  Returns the words' run-time
 * flags moved behind bash -c SCRIPT ARGV0 (`rt`: the command's, or NULL;
 * `script_rt`: the script's own), or NULL when there are none.
 */
static bool *preamble_argv(struct srt_arena *a, struct srt_argv *argv, const char *preamble,
			   const bool *rt, bool script_rt)
{
	const char **v = srt_arena_alloc(a, (argv->n + 5) * sizeof(*v));
	size_t n = 0, n0 = argv->n;
	bool *moved;

	v[n++] = "bash";
	v[n++] = "-c";
	v[n++] = srt_arena_printf(a, "%s%sexec \"$@\"", preamble,
				  preamble[strlen(preamble) - 1] == '\n' ? "" : "\n");
	v[n++] = argv->v[0];
	for (size_t i = 0; i < argv->n; i++)
		v[n++] = argv->v[i];
	v[n] = NULL;
	argv->v = v;
	argv->n = n;
	if (!rt && !script_rt)
		return NULL;
	moved = srt_arena_alloc(a, (n + 1) * sizeof(*moved));
	memset(moved, 0, (n + 1) * sizeof(*moved));
	if (rt)
		memcpy(moved + (n - n0), rt, n0 * sizeof(*moved));
	moved[2] = script_rt; /* bash -c SCRIPT */
	return moved;
}

/* Does one of the run's mounts ("SRC:DST[:FLAGS]") put something at `dst`? */
static bool mounts_at(const struct srt_runplan *run, const char *dst)
{
	size_t n = strlen(dst);

	for (size_t i = 0; i < run->nmounts; i++) {
		const char *d = strchr(run->mounts[i], ':');

		if (d && !strncmp(d + 1, dst, n) && (d[1 + n] == '\0' || d[1 + n] == ':'))
			return true;
	}
	return false;
}

/* srt-slurm's setup_script part of a start preamble (with_start_preamble). */
static void setup_script_part(struct srt_buf *out, struct srt_arena *a, const struct srt_recipe *r,
			      const struct srt_cluster *c, bool in_container)
{
	const char *path =
		in_container || !c || !c->srtctl_root ?
			srt_arena_printf(a, "/configs/%s", r->setup_script) :
			srt_arena_printf(a, "%s/configs/%s", c->srtctl_root, r->setup_script);
	struct srt_buf q;

	srt_buf_init(&q);
	srt_shell_word(&q, path);
	srt_buf_printf(out, "if [ -f %s ]; then echo ", q.data);
	srt_shell_word(out, srt_arena_printf(a, "Running setup script: %s", path));
	srt_buf_printf(out, "; bash %s || exit; else echo ", q.data);
	srt_shell_word(out, srt_arena_printf(a, "WARNING: %s not found", path));
	srt_buf_puts(out, "; fi\n");
	srt_buf_release(&q);
}

/*
 * A release or nightly is already installed at exactly the version, and
 * Dynamo's bindings import (argv[1]: the version).
 */
#define DYNAMO_INSTALLED_PY                                                                \
	"import importlib, importlib.metadata as m, sys\n"                                 \
	"assert m.version('ai-dynamo') == m.version('ai-dynamo-runtime') == sys.argv[1]\n" \
	"importlib.import_module('dynamo.llm')"

/*
 * srt-slurm's Dynamo install part of a start preamble: pip installs
 * ai-dynamo-runtime and ai-dynamo at the version (a release from PyPI with
 * NVIDIA's index beside it; a nightly from DYNAMO_INDEX_URL and
 * DYNAMO_EXTRA_INDEX_URL, skipped when that exact version is there).  The
 * ranks of one step share a container: under a lock in the python prefix,
 * the first installs and leaves a sentinel, the others skip.  A failed
 * install stops the process with pip's status.
 */
static void dynamo_install_part(struct srt_buf *out, struct srt_arena *a,
				const struct srt_recipe *r)
{
	const char *v = r->dynamo.version;
	const char *spec = srt_arena_printf(a, "ai-dynamo-runtime==%s ai-dynamo==%s", v, v);
	const char *sentinel = srt_arena_printf(a, "/.srtctl_dynamo_install.%s.complete", v);

	srt_buf_puts(out, "dyn_prefix=$(python3 -c 'import sys; print(sys.prefix)') || exit\n"
			  "( flock -x 9; if [ -f \"$dyn_prefix\"");
	srt_shell_word(out, sentinel);
	srt_buf_puts(out, " ]; then echo ");
	srt_shell_word(out, srt_arena_printf(a, "Dynamo %s already installed here, skipping", v));
	srt_buf_puts(out, "; else echo ");
	srt_shell_word(out, srt_arena_printf(a, "Installing dynamo %s...", v));
	if (r->dynamo.from == SRT_DYNAMO_FROM_WHEEL) {
		srt_buf_puts(out, " && { python3 -c ");
		srt_shell_word(out, DYNAMO_INSTALLED_PY);
		srt_buf_putc(out, ' ');
		srt_shell_word(out, v);
		srt_buf_puts(out,
			     " 2>/dev/null || pip install --break-system-packages --quiet --pre "
			     "--index-url \"${DYNAMO_INDEX_URL:-https://pypi.org/simple}\" "
			     "--extra-index-url "
			     "\"${DYNAMO_EXTRA_INDEX_URL:-https://pypi.nvidia.com}\" ");
		srt_buf_puts(out, spec);
		srt_buf_puts(out, "; }");
	} else {
		srt_buf_puts(out,
			     " && pip install --break-system-packages --quiet --extra-index-url "
			     "https://pypi.nvidia.com ");
		srt_buf_puts(out, spec);
	}
	srt_buf_puts(out, " && touch \"$dyn_prefix\"");
	srt_shell_word(out, sentinel);
	srt_buf_puts(out, " && echo ");
	srt_shell_word(out, srt_arena_printf(a, "Dynamo %s installed", v));
	srt_buf_puts(out, "; fi ) 9>\"$dyn_prefix/.srtctl_dynamo_install.lock\" || exit\n");
}

/*
 * Does this process install Dynamo before it starts?  srt-slurm's rule:
 * the Dynamo frontend's processes (the frontend and every worker), when
 * dynamo.install holds; srtctl installs releases and nightlies only, and
 * only in a container.
 */
static bool installs_dynamo(const struct srt_recipe *r, bool in_container)
{
	return in_container && srt_launch_frontend_kind(r, NULL) == SRT_FE_DYNAMO &&
	       (r->dynamo.from == SRT_DYNAMO_FROM_PYPI || r->dynamo.from == SRT_DYNAMO_FROM_WHEEL);
}

/*
 * The cluster's default_bash_preamble, first in every container step as
 * srt-slurm runs it (before the step's own preamble and command, in the
 * same bash, so its ulimits reach the command): a failing last command
 * stops the step, as srt-slurm's "PREAMBLE && ..." does.  `own`: the rest
 * of the preamble, or NULL.  Returns the whole preamble, or `own`.
 */
static const char *cluster_preamble(struct srt_arena *a, const struct srt_cluster *c,
				    bool in_container, const char *own)
{
	if (!in_container || !c->default_bash_preamble)
		return own;
	return srt_arena_printf(a, "{ %s\n} || exit\n%s", c->default_bash_preamble, own ? own : "");
}

/*
 * What runs before a worker or a frontend starts, as srt-slurm runs it, in
 * the process's own bash (preamble_argv):
 * - the cluster's default_bash_preamble (cluster_preamble), in a container;
 * - setup_script, when `setup` (workers and the Dynamo frontend; not the
 *   benchmark or another frontend):
 *   /configs/<script> in a container (the cluster's srtctl_root/configs is
 *   mounted there), srtctl_root/configs/<script> outside one.  A script
 *   that is not there is said in the log and skipped; one that fails stops
 *   the process with its status.
 * - then Dynamo's install (dynamo_install_part), when installs_dynamo().
 * *rt (the words filled in at run time) follows the words.
 */
static void with_start_preamble(struct srt_arena *a, const struct srt_recipe *r,
				const struct srt_cluster *c, bool in_container, bool setup,
				struct srt_argv *argv, bool **rt)
{
	struct srt_buf pre;
	const char *all;

	if (!argv->n)
		return;
	srt_buf_init(&pre);
	if (setup && r->setup_script)
		setup_script_part(&pre, a, r, c, in_container);
	if (setup && installs_dynamo(r, in_container))
		dynamo_install_part(&pre, a, r);
	all = cluster_preamble(a, c, in_container, pre.len ? pre.data : NULL);
	if (all)
		*rt = preamble_argv(a, argv, all, *rt, false);
	srt_buf_release(&pre);
}

struct pb {
	struct srt_plan *p;
	struct srt_arena *a;
	struct srt_diags *d;
	int rc;
	bool kv_events_said; /* kv_events_fits() said it once */
	bool srun_said;	     /* srun_opts() said it once */
};

/*
 * A step's srun options: the recipe's srun_options with `own` (a role's or
 * a service's) merged over them, key by key, as "--key[=value]" words
 * (checked by the parser).  Without pyxis a container-* option would make
 * srun refuse the step: those are left out, said once.  A step that
 * installs Dynamo (`remap_root`) runs as root in its container, as
 * srt-slurm's does: --export=ALL,ENROOT_REMAP_ROOT=yes first, which the
 * recipe's own `export` replaces.
 */
static void srun_opts(struct pb *b, struct srt_runplan_proc *pr, const struct srt_ynode *own,
		      bool remap_root)
{
	const struct srt_ynode *top = b->p->recipe->srun_options;
	const struct srt_ynode *maps[2] = { top, own };
	size_t cap = (top ? top->n : 0) + (own ? own->n : 0), n = 0;
	const char **v;
	const char **keys = srt_arena_alloc(b->a, (cap + 2) * sizeof(*keys));

	v = srt_arena_alloc(b->a, (cap + 2) * sizeof(*v));
	if (remap_root) {
		keys[n] = "export";
		v[n++] = "--export=ALL,ENROOT_REMAP_ROOT=yes";
	}
	for (int m = 0; m < 2; m++) {
		for (size_t i = 0; maps[m] && i < maps[m]->n; i++) {
			const struct srt_ypair *p = &maps[m]->pairs[i];
			const char *val = p->value->str;
			size_t k = 0;

			if (!b->p->run.pyxis && srt_str_has_prefix(p->key->str, "container-")) {
				if (!b->srun_said)
					srt_diags_add(
						b->d, SRT_DIAG_WARNING, b->p->recipe->file,
						p->key->line, p->key->col, "srun_options",
						"'%s' is a pyxis option and this cluster runs "
						"no containers (runtime.container_runtime); "
						"left out",
						p->key->str);
				b->srun_said = true;
				continue;
			}
			while (k < n && strcmp(keys[k], p->key->str))
				k++;
			keys[k] = p->key->str;
			v[k] = srt_runplan_srun_option(b->a, p->key->str,
						       srt_ynode_is_null(p->value) ? NULL : val);
			if (k == n)
				n++;
		}
	}
	v[n] = NULL;
	pr->srun_opts = v;
	pr->nsrun_opts = n;
}

static struct srt_runplan_proc *new_proc(struct pb *b)
{
	return srt_runplan_add(&b->p->run);
}

static void put_argv(struct srt_runplan_proc *pr, const struct srt_argv *av)
{
	pr->argv = av->v;
	pr->argc = av->n;
}

/* The rendered env into the plan's arrays, with where each value comes from. */
static void put_env(struct pb *b, struct srt_runplan_proc *pr, const struct srt_renv *e)
{
	pr->nenv = e->n;
	pr->env_names = srt_arena_alloc(b->a, (e->n + 1) * sizeof(char *));
	pr->env_values = srt_arena_alloc(b->a, (e->n + 1) * sizeof(char *));
	pr->env_runtime = srt_arena_alloc(b->a, (e->n + 1) * sizeof(bool));
	pr->env_src = srt_arena_alloc(b->a, (e->n + 1) * sizeof(*pr->env_src));
	for (size_t i = 0; i < e->n; i++) {
		const struct srt_renv_var *v = &e->v[i];

		pr->env_names[i] = v->name;
		pr->env_values[i] = v->value;
		pr->env_runtime[i] = v->runtime;
		pr->env_src[i] = (struct srt_runplan_envsrc){ srt_env_owner_name(v->owner),
							      v->layer, v->overridden,
							      v->overridden_layer };
	}
}

/* A recipe's readiness (defaults filled in) into the plan's probes. */
/*
 * The plan's probes of rd; a file probe's {node} becomes `host`, the
 * node's hostname placeholder, which the agent binds.
 */
static void put_readiness(struct srt_arena *a, struct srt_runplan_proc *pr,
			  const struct srt_readiness *rd, const char *host)
{
	pr->nprobes = 0;
	for (size_t i = 0; i < rd->nprobes; i++) {
		const struct srt_probe *in = &rd->probes[i];
		bool http = in->kind == SRT_PROBE_HTTP;

		if (in->kind == SRT_PROBE_LOG && in->path) {
			pr->probes[pr->nprobes++] =
				(struct srt_runplan_probe){ .pattern = in->path };
			continue;
		}
		if (in->kind == SRT_PROBE_FILE && in->path) {
			pr->probes[pr->nprobes++] = (struct srt_runplan_probe){
				.file = replace_all(a, in->path, "{node}", host)
			};
			continue;
		}
		if (in->kind != SRT_PROBE_HTTP && in->kind != SRT_PROBE_TCP)
			continue;
		pr->probes[pr->nprobes++] = (struct srt_runplan_probe){
			.http = http,
			.port = in->port,
			.path = http ? (in->path ? in->path : "/health") : NULL,
			.status = http ? (in->status ? in->status : 200) : 0,
		};
	}
	pr->timeout_s = rd->timeout_seconds > 0 ? rd->timeout_seconds :
						  SRT_READINESS_TIMEOUT_DEFAULT;
	pr->interval_s = rd->interval_seconds > 0 ? rd->interval_seconds :
						    SRT_READINESS_INTERVAL_DEFAULT;
}

/* The nodes a service runs on; returns how many were written to nodes[]. */
static size_t service_nodes(const struct srt_layout *l, const struct srt_service *s, size_t *nodes)
{
	size_t n = 0;
	enum srt_role_kind role;
	bool *seen;

	switch (s->placement) {
	case SRT_PLACE_HEAD:
		nodes[n++] = l->head;
		return n;
	case SRT_PLACE_DEFAULT:
		/* The parser resolves defaults; the master's is the infra node. */
		nodes[n++] = s->type == SRT_SVC_MOONCAKE_MASTER ? l->infra : l->head;
		return n;
	case SRT_PLACE_INFRA:
	case SRT_PLACE_DEDICATED:
		nodes[n++] = l->infra;
		return n;
	case SRT_PLACE_WORKERS:
		/* the roles' nodes (or the one head node): pools belong to their owners */
		for (size_t i = 0; i < l->nnodes; i++)
			if (!l->nodes[i].dedicated && !l->nodes[i].pool)
				nodes[n++] = i;
		return n;
	case SRT_PLACE_POOL: {
		const struct srt_lpool *pl = srt_layout_pool(l, s->pool);

		for (size_t i = 0; pl && i < pl->n; i++)
			nodes[n++] = pl->first + i;
		return n;
	}
	case SRT_PLACE_PREFILL:
		role = SRT_ROLE_PREFILL;
		break;
	case SRT_PLACE_DECODE:
		role = SRT_ROLE_DECODE;
		break;
	case SRT_PLACE_AGG:
		role = SRT_ROLE_AGG;
		break;
	default:
		return 0;
	}
	/*
	 * The distinct nodes the role's workers use (a multi-node worker counts
	 * each), in the order the workers reach them.
	 */
	seen = srt_xcalloc(l->nnodes + 1, sizeof(*seen));
	for (size_t i = 0; i < l->nworkers; i++) {
		const struct srt_lworker *w = &l->workers[i];

		if (w->role != role)
			continue;
		for (size_t k = 0; k < w->nnodes; k++) {
			size_t node = w->node + k;

			if (node < l->nnodes && !seen[node]) {
				seen[node] = true;
				nodes[n++] = node;
			}
		}
	}
	free(seen);
	return n;
}

static void warn_at(struct pb *b, const struct srt_ynode *n, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void warn_at(struct pb *b, const struct srt_ynode *n, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	srt_diags_vadd(b->d, SRT_DIAG_WARNING, b->p->recipe->file, n ? n->line : 0, n ? n->col : 0,
		       path, fmt, ap);
	va_end(ap);
}

/*
 * etcd's and NATS's argv: the command, srtctl's words (none after the
 * recipe's own command), then the service's args; their readiness when the
 * recipe wrote none.
 */
static void discovery_argv(struct pb *b, struct srt_runplan_proc *pr, struct srt_argv *argv,
			   const struct srt_service *s, size_t node, struct srt_readiness *rd)
{
	struct srt_launch ln;
	struct argvb av = { NULL, 0, 0 };
	size_t ncmd = argv->n - s->args.n;
	bool *rt;

	srt_launch_discovery(&ln, b->a, &b->p->layout, s, node);
	if (s->command.n) /* the recipe's own command: its words, not ours */
		ln.nwords = 0;
	for (size_t i = 0; i < ncmd; i++)
		argvb_push(&av, b->a, argv->v[i]);
	for (size_t i = 0; i < ln.nwords; i++)
		argvb_push(&av, b->a, ln.words[i].arg);
	argvb_push_all(&av, b->a, &s->args);
	rt = srt_arena_alloc(b->a, (av.n + 1) * sizeof(*rt));
	memset(rt, 0, (av.n + 1) * sizeof(*rt));
	for (size_t i = 0; i < ln.nwords; i++)
		rt[ncmd + i] = ln.words[i].runtime;
	argvb_finish(&av, argv);
	pr->argv_runtime = rt;
	if (!rd->nprobes) {
		int t = rd->timeout_seconds, iv = rd->interval_seconds;

		*rd = ln.readiness;
		if (t > 0)
			rd->timeout_seconds = t;
		if (iv > 0)
			rd->interval_seconds = iv;
	}
}

/*
 * Unset in the preamble of TRT-LLM's pool commands: they import TensorRT-LLM,
 * which must not join the MPI world of the step srun gives them.
 */
#define POOL_MPI_SCRUB                                                                      \
	"for v in $(compgen -e); do case $v in PMIX_*|PMI_*|OMPI_*|SLURM_*|SLURMD_*|MPI_*|" \
	"OPAL_*|PRTE_*|HYDRA_*|I_MPI_*) unset \"$v\";; esac; done\n"

/* A srtctl-owned default over the recipe's env: the recipe's own value wins. */
static void pool_env(struct srt_renv *e, struct srt_arena *a, const struct srt_service *s,
		     const char *name, const char *value, const char *why, bool runtime)
{
	if (!srt_env_find(&s->env, name))
		env_stamp(e, a, name, value, why, runtime);
}

/* `trtllm-serve mooncake_master`'s words after trtllm-serve: srt-slurm's. */
static void pool_master_flags(struct argvb *av, struct srt_arena *a, const struct srt_ynode *ev,
			      const char *addr)
{
	argvb_push(av, a, "mooncake_master");
	argvb_push(av, a, "--rpc_port");
	argvb_push(av, a, srt_arena_printf(a, "%d", SRT_MC_RPC_PORT));
	argvb_push(av, a, "--metrics_port");
	argvb_push(av, a, srt_arena_printf(a, "%d", SRT_MC_ADMIN_PORT));
	argvb_push(av, a, "--eviction_ratio");
	argvb_push(av, a,
		   ev && !srt_ynode_is_null(ev) && ev->str ?
			   ev->str :
			   srt_arena_printf(a, "%g", SRT_TRTLLM_POOL_EVICTION_DEFAULT));
	argvb_push(av, a, "--address_file");
	argvb_push(av, a, addr);
}

/* `trtllm-serve mooncake_donor`'s flags: the master's address file, what it lends, its marker. */
static void pool_donor_flags(struct argvb *av, struct srt_arena *a, const struct srt_service *s,
			     const char *addr, const char *ready)
{
	argvb_push(av, a, "--master_server_address");
	argvb_push(av, a, srt_arena_printf(a, "file://%s", addr));
	argvb_push(av, a, "--segment_size");
	argvb_push(av, a, s->donor_size ? s->donor_size : "");
	argvb_push(av, a, "--protocol");
	argvb_push(av, a, s->donor_protocol ? s->donor_protocol : "rdma");
	argvb_push(av, a, "--ready_file");
	argvb_push(av, a, ready);
}

/*
 * TRT-LLM's own pool commands (srt_recipe_trtllm_pool()), srt-slurm's
 * design: the master is `trtllm-serve mooncake_master`, which runs
 * mooncake_master and then publishes its address in SRT_POOL_ADDRESS_FILE;
 * each donor is `trtllm-serve mooncake_donor`, which joins the master named
 * there, lends its node's memory and writes its ready marker.  Sets pr's
 * argv (the command, srtctl's flags, the service's args), env, run
 * directory, files to clear and MPI type (none), and the readiness of the
 * master (the RPC port and the published address).  *preamble gets the MPI
 * scrub before the service's own.  A service with its own `command`
 * (srt-slurm's override) keeps the argv it wrote: no subcommand or flags of
 * ours, the rest (env, run directory, readiness, MPI) as for ours.
 */
static void pool_service(struct pb *b, struct srt_runplan_proc *pr, struct srt_argv *argv,
			 const struct srt_service *s, size_t node, struct srt_renv *env,
			 struct srt_readiness *rd, const char **preamble)
{
	struct srt_plan *p = b->p;
	const struct srt_layout *l = &p->layout;
	const struct srt_service *m = srt_recipe_master(p->recipe);
	bool ctr = in_container(p->cluster, pr->container);
	const char *logs = ctr ? SRT_CONTAINER_LOG_DIR : l->log_dir;
	const char *host = l->nodes[node].host;
	const char *addr = srt_arena_printf(b->a, "%s/%s", logs, SRT_POOL_ADDRESS_FILE);
	const struct srt_ynode *ev = srt_ynode_get(m->options, "eviction_ratio");
	const char *timeout = srt_arena_printf(
		b->a, "%d",
		m->master_timeout_s > 0 ? m->master_timeout_s : SRT_TRTLLM_POOL_TIMEOUT_DEFAULT);
	const char *why_t = "the mooncake-master's options.master_timeout_s: how long TRT-LLM "
			    "waits for the pool's master";
	size_t ncmd = argv->n - s->args.n;
	struct argvb av = { NULL, 0, 0 };
	bool own = s->command.n > 0;
	bool *rt;

	for (size_t i = 0; i < (own ? argv->n : ncmd); i++)
		argvb_push(&av, b->a, argv->v[i]);
	if (own)
		ncmd = av.n;
	if (s->type == SRT_SVC_MOONCAKE_MASTER) {
		if (!own)
			pool_master_flags(&av, b->a, ev, addr);
		pr->run_dir = SRT_POOL_MASTER_RUN_DIR;
		pr->clear[0] = SRT_POOL_ADDRESS_FILE;
		pr->clear[1] = SRT_POOL_MASTER_RUN_DIR "/master.addr";
		pr->nclear = 2;
		/* ready once it answers and has said where: the donors and workers read the file */
		rd->probes[0] = (struct srt_probe){ SRT_PROBE_TCP, SRT_MC_RPC_PORT, NULL, 0 };
		rd->probes[1] = (struct srt_probe){ SRT_PROBE_FILE, 0, SRT_POOL_ADDRESS_FILE, 0 };
		rd->nprobes = 2;
	} else {
		pr->run_dir = srt_arena_printf(b->a, "mooncake/donor-%s", host);
		if (!own)
			pool_donor_flags(&av, b->a, s, addr,
					 srt_arena_printf(b->a, "%s/mooncake/donor-%s.ready", logs,
							  host));
		pool_env(env, b->a, s, "TLLM_LOG_LEVEL", "INFO",
			 "the donor logs what it lends (srt-slurm's default)", false);
	}
	pool_env(env, b->a, s, "TRTLLM_MOONCAKE_RUN_DIR",
		 srt_arena_printf(b->a, "%s/%s", logs, pr->run_dir),
		 "the directory of its pool files (created by the agent)", true);
	pool_env(env, b->a, s, "TRTLLM_MOONCAKE_MASTER_TIMEOUT", timeout, why_t, false);
	if (!own)
		argvb_push_all(&av, b->a, &s->args);
	rt = srt_arena_alloc(b->a, (av.n + 1) * sizeof(*rt));
	memset(rt, 0, (av.n + 1) * sizeof(*rt));
	for (size_t i = ncmd; i < av.n - s->args.n; i++)
		rt[i] = strchr(av.v[i], '<') != NULL;
	argvb_finish(&av, argv);
	pr->argv_runtime = rt;
	pr->mpi = "none";
	*preamble = s->preamble ? srt_arena_printf(b->a, "%s%s", POOL_MPI_SCRUB, s->preamble) :
				  POOL_MPI_SCRUB;
}

/*
 * srt-slurm's service templates, filled in the recipe's words of a
 * service instance: its command and args, its env values and preamble.
 * Only these names are replaced; other braces (JSON) stay as written.
 */
struct svc_tpl {
	const char *key, *val;
};

#define SVC_NTPL 17

static size_t svc_templates(struct pb *b, struct svc_tpl *t, const struct srt_service *s,
			    const size_t *nodes, size_t n, size_t i)
{
	const struct srt_layout *l = &b->p->layout;
	const struct srt_lnode *me = &l->nodes[nodes[i]];
	struct srt_buf hosts, ips;
	size_t k = 0, id = i;

	for (size_t j = 0, c = 0; j < l->nnodes; j++) {
		if (j == nodes[i]) {
			id = c;
			break;
		}
		c += !l->nodes[j].dedicated;
	}
	srt_buf_init(&hosts);
	srt_buf_init(&ips);
	for (size_t j = 0; j < n; j++) {
		srt_buf_printf(&hosts, "%s%s", j ? "," : "", l->nodes[nodes[j]].host);
		srt_buf_printf(&ips, "%s%s", j ? "," : "", l->nodes[nodes[j]].ip);
	}
	t[k++] = (struct svc_tpl){ "{node}", me->host };
	t[k++] = (struct svc_tpl){ "{node_ip}", me->ip };
	t[k++] = (struct svc_tpl){ "{node_id}", srt_arena_printf(b->a, "%zu", id) };
	t[k++] = (struct svc_tpl){ "{index}", srt_arena_printf(b->a, "%zu", i) };
	t[k++] = (struct svc_tpl){ "{role}", s->placement == SRT_PLACE_POOL ?
						     "workers" :
						     srt_placement_name(s->placement) };
	t[k++] = (struct svc_tpl){ "{head_node}", l->nodes[l->head].host };
	t[k++] = (struct svc_tpl){ "{head_ip}", l->nodes[l->head].ip };
	t[k++] = (struct svc_tpl){ "{infra_node}", l->nodes[l->infra].host };
	t[k++] = (struct svc_tpl){ "{infra_ip}", l->infra_ip };
	t[k++] = (struct svc_tpl){ "{master_port}", srt_arena_printf(b->a, "%d", SRT_MC_RPC_PORT) };
	t[k++] = (struct svc_tpl){ "{metadata_port}",
				   srt_arena_printf(b->a, "%d", SRT_MC_METADATA_PORT) };
	t[k++] = (struct svc_tpl){ "{gpus_per_node}",
				   srt_arena_printf(b->a, "%d",
						    b->p->recipe->resources.gpus_per_node) };
	t[k++] = (struct svc_tpl){ "{pool_node}", l->nodes[nodes[0]].host };
	t[k++] = (struct svc_tpl){ "{pool_ip}", l->nodes[nodes[0]].ip };
	t[k++] = (struct svc_tpl){ "{pool_nodes}", srt_arena_strdup(b->a, hosts.data) };
	t[k++] = (struct svc_tpl){ "{pool_ips}", srt_arena_strdup(b->a, ips.data) };
	t[k++] = (struct svc_tpl){ "{pool_node_count}", srt_arena_printf(b->a, "%zu", n) };
	srt_buf_release(&hosts);
	srt_buf_release(&ips);
	return k;
}

/*
 * s with the templates filled in; *runtime is set when a filled-in value
 * is a layout placeholder the agent binds (a node's name or IP).
 */
static const char *fill_templates(struct srt_arena *a, const char *s, const struct svc_tpl *t,
				  size_t nt, bool *runtime)
{
	const char *out = s;

	if (!s || !strchr(s, '{'))
		return s;
	for (size_t k = 0; k < nt; k++) {
		if (!strstr(out, t[k].key))
			continue;
		out = replace_all(a, out, t[k].key, t[k].val);
		if (strchr(t[k].val, '<'))
			*runtime = true;
	}
	return out;
}

/*
 * The templates in an instance's recipe words: argv words from `from` on
 * (the recipe's command and args), its recipe-owned env values and its
 * preamble.
 */
static void apply_templates(struct pb *b, struct srt_runplan_proc *pr, struct srt_argv *argv,
			    size_t from, struct srt_renv *env, const char **preamble,
			    const struct svc_tpl *t, size_t nt, bool *preamble_runtime)
{
	bool *rt = NULL;

	for (size_t k = from; k < argv->n; k++) {
		bool r = false;
		const char *w = fill_templates(b->a, argv->v[k], t, nt, &r);

		if (w == argv->v[k])
			continue;
		argv->v[k] = w;
		if (!r)
			continue;
		if (!rt) {
			rt = srt_arena_alloc(b->a, (argv->n + 1) * sizeof(*rt));
			memset(rt, 0, (argv->n + 1) * sizeof(*rt));
			if (pr->argv_runtime)
				memcpy(rt, pr->argv_runtime, argv->n * sizeof(*rt));
		}
		rt[k] = true;
	}
	if (rt)
		pr->argv_runtime = rt;
	for (size_t k = 0; k < env->n; k++) {
		struct srt_renv_var *v = &env->v[k];
		bool r = false;

		if (v->owner != SRT_OWNER_RECIPE)
			continue;
		v->value = fill_templates(b->a, v->value, t, nt, &r);
		v->runtime = v->runtime || r;
	}
	if (*preamble)
		*preamble = fill_templates(b->a, *preamble, t, nt, preamble_runtime);
}

/*
 * The joiners' wait for the head's GCS (srt-slurm's: 60 tries, 5 s apart),
 * then the raylet in its place.  The head's IP and port are arguments, not
 * text in the script: bash -c SCRIPT ray-join IP PORT ray start ...
 */
#define RAY_JOIN_SCRIPT                                                    \
	"h=$1 p=$2; shift 2\n"                                             \
	"for i in $(seq 1 60); do\n"                                       \
	"  (exec 3<>\"/dev/tcp/$h/$p\") 2>/dev/null && break\n"            \
	"  echo \"ray worker: waiting for head $h:$p ($i/60)\"; sleep 5\n" \
	"done\n"                                                           \
	"exec \"$@\""

/* What a Ray node's log says once its raylet runs (ray start's banner). */
#define RAY_STARTED_PATTERN "Ray runtime started"

/*
 * A ray service's instance on nodes[i] of its n nodes (srt-slurm's design):
 * the first is the head, `ray start --head` with the GCS on options.port
 * and the dashboard (job submission API) on options.dashboard_port; the
 * others wait for the GCS and `ray start --address` it.  Both `--block`,
 * so the raylet lives as long as its step.  The head is ready when its
 * dashboard answers /api/version; a joiner when its log says Ray started
 * and the head's node summary lists all n nodes ALIVE (the fleet gate).
 * Joiners follow the head: they start after it is ready and restart when
 * it does (a new GCS is a new cluster).  Sets argv, env and readiness.
 */
static void ray_service(struct pb *b, struct srt_runplan_proc *pr, struct srt_argv *argv,
			const struct srt_service *s, const size_t *nodes, size_t n, size_t i,
			struct srt_renv *env, struct srt_readiness *rd, const char *head_name)
{
	const struct srt_layout *l = &b->p->layout;
	const char *head_ip = l->nodes[nodes[0]].ip;
	int g = s->ray_num_gpus > 0 ? s->ray_num_gpus : b->p->recipe->resources.gpus_per_node;
	size_t ncmd = argv->n - s->args.n;
	struct argvb av = { NULL, 0, 0 };
	struct srt_buf dev;
	size_t first;
	bool *rt;

	if (i > 0) {
		argvb_push(&av, b->a, "bash");
		argvb_push(&av, b->a, "-c");
		argvb_push(&av, b->a, RAY_JOIN_SCRIPT);
		argvb_push(&av, b->a, "ray-join");
		argvb_push(&av, b->a, head_ip);
		argvb_push(&av, b->a, srt_arena_printf(b->a, "%d", s->ray_port));
	}
	first = av.n;
	for (size_t k = 0; k < ncmd; k++)
		argvb_push(&av, b->a, argv->v[k]);
	argvb_push(&av, b->a, "start");
	if (i == 0) {
		argvb_push(&av, b->a, "--head");
		argvb_push(&av, b->a, srt_arena_printf(b->a, "--port=%d", s->ray_port));
		argvb_push(&av, b->a, "--dashboard-host=0.0.0.0");
		argvb_push(&av, b->a,
			   srt_arena_printf(b->a, "--dashboard-port=%d", s->ray_dashboard_port));
	} else {
		argvb_push(&av, b->a,
			   srt_arena_printf(b->a, "--address=%s:%d", head_ip, s->ray_port));
	}
	argvb_push(&av, b->a,
		   srt_arena_printf(b->a, "--node-ip-address=%s", l->nodes[nodes[i]].ip));
	argvb_push(&av, b->a, srt_arena_printf(b->a, "--num-gpus=%d", g));
	argvb_push(&av, b->a, "--disable-usage-stats");
	argvb_push(&av, b->a, "--block");
	argvb_push_all(&av, b->a, &s->args);
	rt = srt_arena_alloc(b->a, (av.n + 1) * sizeof(*rt));
	memset(rt, 0, (av.n + 1) * sizeof(*rt));
	for (size_t k = 0; k < av.n - s->args.n; k++)
		rt[k] = (k < first || k >= first + ncmd) && strchr(av.v[k], '<') != NULL;
	argvb_finish(&av, argv);
	pr->argv_runtime = rt;

	srt_buf_init(&dev);
	for (int k = 0; k < g; k++)
		srt_buf_printf(&dev, "%s%d", k ? "," : "", k);
	pool_env(env, b->a, s, "CUDA_VISIBLE_DEVICES", srt_arena_strdup(b->a, dev.data),
		 "the raylet's devices match its --num-gpus (srt-slurm's default)", false);
	srt_buf_release(&dev);
	pool_env(env, b->a, s, "RAY_memory_monitor_refresh_ms", "0",
		 "Ray's memory monitor off: a trainer offloading to host RAM trips it on purpose "
		 "(srt-slurm's default)",
		 false);

	if (!rd->nprobes) {
		rd->probes[0] =
			i == 0 ? (struct srt_probe){ SRT_PROBE_HTTP, s->ray_dashboard_port,
						     "/api/version", 200 } :
				 (struct srt_probe){ SRT_PROBE_LOG, 0, RAY_STARTED_PATTERN, 0 };
		rd->nprobes = 1;
	}
	if (i > 0)
		pr->follows = head_name;
	(void)n;
}

static void add_service(struct pb *b, const struct srt_service *s, size_t si)
{
	struct srt_plan *p = b->p;
	const struct srt_layout *l = &p->layout;
	size_t *nodes = srt_arena_alloc(b->a, (l->nnodes + 1) * sizeof(*nodes));
	size_t n = service_nodes(l, s, nodes);
	const char *head_name = NULL;
	struct svc_tpl tpl[SVC_NTPL];
	size_t nt;
	bool pre_rt;

	if (!n) {
		warn_at(b, s->node, srt_arena_printf(b->a, "services[%zu].placement", si),
			"service '%s' is placed on the %s nodes but the recipe has no %s role; it "
			"does not run",
			s->name, srt_placement_name(s->placement),
			srt_placement_name(s->placement));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct srt_runplan_proc *pr = new_proc(b);
		const char *host = l->nodes[nodes[i]].host;
		struct srt_readiness rd = s->readiness;
		struct srt_argv argv;
		struct srt_renv env = { 0 };

		pr->kind = SRT_PROC_SERVICE;
		pr->service = s->name;
		pr->type = srt_service_type_name(s->type);
		pr->placement = srt_placement_name(s->placement);
		pr->phase = srt_start_name(s->start);
		pr->node = nodes[i];
		pr->name = n == 1 ? s->name : srt_arena_printf(b->a, "%s_%s", s->name, host);
		pr->log_file = n == 1 ? srt_arena_printf(b->a, "service_%s.out", s->name) :
					srt_arena_printf(b->a, "service_%s_%s.out", s->name, host);
		const char *preamble = s->preamble;

		pr->container = srt_render_service_container(p->recipe, p->cluster, s);
		srt_render_service_argv(&argv, b->a, p->cluster, s);
		srt_render_service_env(&env, b->a, p->recipe, l, s, nodes[i]);
		if (s->type == SRT_SVC_ETCD || s->type == SRT_SVC_NATS)
			discovery_argv(b, pr, &argv, s, nodes[i], &rd);
		if (s->type == SRT_SVC_MOONCAKE_DONOR ||
		    (s->type == SRT_SVC_MOONCAKE_MASTER && srt_recipe_trtllm_pool(p->recipe))) {
			if (s->type == SRT_SVC_MOONCAKE_MASTER && !s->command.n) {
				/* its argv: trtllm-serve's, not mooncake_master's */
				struct argvb t = { NULL, 0, 0 };

				argvb_push_all(&t, b->a, &p->cluster->commands[SRT_CMD_TRTLLM]);
				argvb_push_all(&t, b->a, &s->args);
				argvb_finish(&t, &argv);
			}
			pool_service(b, pr, &argv, s, nodes[i], &env, &rd, &preamble);
		}
		if (s->type == SRT_SVC_RAY)
			ray_service(b, pr, &argv, s, nodes, n, i, &env, &rd, head_name);
		nt = svc_templates(b, tpl, s, nodes, n, i);
		pre_rt = false;
		/* the recipe's words: its command (generic or an override) and args */
		apply_templates(b, pr, &argv,
				s->type == SRT_SVC_GENERIC || s->command.n ? 0 : argv.n - s->args.n,
				&env, &preamble, tpl, nt, &pre_rt);
		preamble = cluster_preamble(b->a, p->cluster,
					    in_container(p->cluster, pr->container), preamble);
		if (preamble && argv.n)
			pr->argv_runtime =
				preamble_argv(b->a, &argv, preamble, pr->argv_runtime, pre_rt);
		put_argv(pr, &argv);
		put_env(b, pr, &env);
		srun_opts(b, pr, s->srun_options, false);
		if (s->type == SRT_SVC_MOONCAKE_MASTER && !rd.nprobes) {
			rd.probes[0] =
				(struct srt_probe){ SRT_PROBE_TCP, SRT_MC_RPC_PORT, NULL, 0 };
			rd.probes[1] =
				(struct srt_probe){ SRT_PROBE_TCP, SRT_MC_METADATA_PORT, NULL, 0 };
			rd.probes[2] =
				(struct srt_probe){ SRT_PROBE_TCP, SRT_MC_ADMIN_PORT, NULL, 0 };
			rd.nprobes = 3;
		}
		put_readiness(b->a, pr, &rd, host);
		if (s->type == SRT_SVC_RAY && i > 0 && pr->nprobes < 4) /* the fleet gate */
			pr->probes[pr->nprobes++] = (struct srt_runplan_probe){
				.http = true,
				.port = s->ray_dashboard_port,
				.path = "/nodes?view=summary",
				.status = 200,
				.ray_alive = (int)n,
				.host = l->nodes[nodes[0]].ip,
			};
		if (i == 0)
			head_name = pr->name;
		pr->critical = s->critical;
		pr->terminal = s->terminal;
		pr->restart = s->restart;
		if (!pr->argc) {
			srt_diags_add(
				b->d, SRT_DIAG_ERROR, p->recipe->file, s->node ? s->node->line : 0,
				s->node ? s->node->col : 0,
				srt_arena_printf(b->a, "services[%zu]", si),
				s->type == SRT_SVC_GENERIC ?
					"service '%s' has no command to run; give it a 'command'" :
					"service '%s' has no command to run; set commands.%s in "
					"srtslurm.yaml",
				s->name,
				s->type == SRT_SVC_MOONCAKE_STORE ? "mooncake_store" :
				s->type == SRT_SVC_LMCACHE_SERVER ? "lmcache" :
								    "mooncake_master");
			b->rc = -1;
		}
	}
}

/*
 * The KV-event ports count up job-wide from 5200 (recipe/launch.h): a job
 * with tens of thousands of worker processes (or DP ranks) would run past
 * 65535.  Said once, on the first process that does.
 */
static void kv_events_fits(struct pb *b, const struct srt_lworker *w, int rank)
{
	const struct srt_recipe *r = b->p->recipe;
	const struct srt_role *ro = &r->roles[w->role];
	int last = srt_launch_kv_events_port(r, &b->p->layout, w, rank);

	if (b->kv_events_said || !ro->kv_events || last <= 65535)
		return;
	b->kv_events_said = true;
	srt_diags_add(b->d, SRT_DIAG_ERROR, r->file, ro->node ? ro->node->line : 0,
		      ro->node ? ro->node->col : 0,
		      srt_arena_printf(b->a, "roles.%s.kv_events", ro->name),
		      "the KV-event ports (5200 and up, one per worker process and vLLM DP rank) "
		      "run past 65535 at worker %s_%d; this job has too many processes for "
		      "kv_events",
		      ro->name, w->index);
	b->rc = -1;
}

static void add_services(struct pb *b, enum srt_start phase)
{
	const struct srt_recipe *r = b->p->recipe;

	for (size_t i = 0; i < r->nservices; i++) {
		const struct srt_service *s = &r->services[i];

		if (!service_launched(s) || s == b->p->master)
			continue;
		if (s->start == phase ||
		    (s->start == SRT_START_DEFAULT &&
		     phase == (s->type == SRT_SVC_GENERIC ? SRT_START_AFTER_FRONTEND :
							    SRT_START_BEFORE_WORKERS)))
			add_service(b, s, i);
	}
}

const char *srt_render_trtllm_config(struct srt_arena *a, const struct srt_recipe *r,
				     enum srt_role_kind role)
{
	const struct srt_ynode *args = r->roles[role].args;
	struct srt_buf y;
	const char *text;

	if (!args || !args->n)
		return "{}\n";
	srt_buf_init(&y);
	text = srt_yemit(args, &y) < 0 ? NULL : srt_arena_strdup(a, y.data);
	srt_buf_release(&y);
	return text;
}

/* A TRT-LLM worker's step: one rank per GPU over its nodes, and its engine YAML. */
static void trtllm_step(struct pb *b, struct srt_runplan_proc *pr, const struct srt_lworker *w)
{
	pr->nnodes = w->nnodes;
	pr->ntasks = w->gpus * (int)w->nnodes;
	pr->mpi = "pmix";
	pr->config_file = srt_launch_trtllm_config(b->a, w);
	pr->config_text = srt_render_trtllm_config(b->a, b->p->recipe, w->role);
	/*
	 * /logs is the log directory as containers see it (srt-slurm's
	 * recipes name the pool's address file so); on a bare node it is the
	 * log directory's own path.
	 */
	if (pr->config_text && !in_container(b->p->cluster, pr->container) &&
	    strstr(pr->config_text, "file://" SRT_CONTAINER_LOG_DIR "/")) {
		pr->config_text =
			replace_all(b->a, pr->config_text, "file://" SRT_CONTAINER_LOG_DIR "/",
				    srt_arena_printf(b->a, "file://%s/", b->p->layout.log_dir));
		pr->config_runtime = true;
	}
	if (!pr->config_text) {
		const struct srt_role *ro = &b->p->recipe->roles[w->role];

		srt_diags_add(b->d, SRT_DIAG_ERROR, b->p->recipe->file, ro->args->line,
			      ro->args->col, srt_arena_printf(b->a, "roles.%s.args", pr->role),
			      "cannot be written as TRT-LLM's engine YAML (a value is not UTF-8 "
			      "text, or the nesting is too deep); fix the value");
		b->rc = -1;
		pr->config_file = NULL;
	}
}

static void add_workers(struct pb *b)
{
	struct srt_plan *p = b->p;
	const struct srt_layout *l = &p->layout;
	struct srt_launch ln;
	/* A role's args are checked once: the first rendering reports its errors. */
	bool failed[SRT_ROLE_COUNT] = { false, false, false };

	for (size_t i = 0; i < l->nworkers; i++) {
		const struct srt_lworker *w = &l->workers[i];
		const char *role = srt_role_name(w->role);

		/* A TRT-LLM worker is one MPI step over its nodes: its rank 0's process. */
		size_t nprocs = p->recipe->engine == SRT_ENGINE_TRTLLM ? 1 : w->nnodes;

		for (size_t k = 0; k < nprocs; k++) {
			struct srt_runplan_proc *pr = new_proc(b);
			size_t node = w->node + k;
			const char *host = l->nodes[node].host;
			struct srt_renv env = { 0 };

			pr->kind = SRT_PROC_WORKER;
			pr->role = role;
			pr->index = w->index;
			pr->rank = (int)k;
			pr->phase = srt_start_name(SRT_START_WITH_WORKERS);
			pr->node = node;
			if (nprocs == 1) {
				pr->name = srt_arena_printf(b->a, "%s_%d", role, w->index);
				pr->log_file =
					srt_arena_printf(b->a, "worker_%s_%d.out", role, w->index);
			} else {
				pr->name = srt_arena_printf(b->a, "%s_%d_%s", role, w->index, host);
				pr->log_file = srt_arena_printf(b->a, "worker_%s_%d_%s.out", role,
								w->index, host);
			}
			{
				struct srt_argv argv = { NULL, 0 };
				bool *rt = NULL;

				if (!failed[w->role] &&
				    srt_render_worker_argv(&argv, &rt, b->a, p->recipe, p->cluster,
							   l, w, (int)k, b->d) < 0) {
					failed[w->role] = true;
					b->rc = -1;
				}
				with_start_preamble(
					b->a, p->recipe, p->cluster,
					in_container(p->cluster,
						     srt_render_role_container(
							     p->recipe, p->cluster, w->role)),
					true, &argv, &rt);
				put_argv(pr, &argv);
				pr->argv_runtime = rt;
			}
			srt_launch_worker(&ln, b->a, p->recipe, p->cluster, l, w, (int)k);
			kv_events_fits(b, w, (int)k);
			srt_render_role_env(&env, b->a, p->recipe, p->cluster, l, w->role,
					    l->nodes[node].ip);
			launch_env(&env, b->a, &ln);
			put_env(b, pr, &env);
			put_readiness(b->a, pr, &ln.readiness, host);
			pr->model_mount = ln.mount;
			pr->container = srt_render_role_container(p->recipe, p->cluster, w->role);
			srun_opts(b, pr, p->recipe->roles[w->role].srun_options,
				  installs_dynamo(p->recipe,
						  in_container(p->cluster, pr->container)));
			pr->critical = true;
			pr->restart = p->recipe->roles[w->role].restart;
			if (p->recipe->engine == SRT_ENGINE_TRTLLM)
				trtllm_step(b, pr, w);
			if (srt_recipe_trtllm_pool(p->recipe))
				pr->run_dir = srt_launch_pool_run_dir(b->a, w);
		}
	}
}

/*
 * One frontend process on `node` serving `port`: the only one (on the head,
 * frontend.port; name "frontend") or one of several behind nginx (8180;
 * "frontend_<i>").  `ln` is what srt_launch_frontend_at() said for it.
 */
static void frontend_proc(struct pb *b, const struct srt_launch *ln, size_t node, int idx)
{
	struct srt_plan *p = b->p;
	const struct srt_recipe *r = p->recipe;
	const struct srt_frontend *f = &r->frontend;
	const struct srt_argv *cmd = srt_launch_frontend_command(r, p->cluster);
	struct argvb av = { NULL, 0, 0 };
	struct srt_runplan_proc *pr;
	struct srt_argv argv;
	struct srt_renv env = { 0 };
	struct srt_diags again;
	bool *rt;

	argvb_push_all(&av, b->a, cmd);
	for (size_t i = 0; i < ln->nwords; i++)
		argvb_push(&av, b->a, ln->words[i].arg);
	/* what is wrong in the recipe's args is said once, not per frontend */
	srt_diags_init(&again);
	if (render_args(&av, b->a, f->args, r->file, "frontend.args", NULL, false,
			idx > 0 ? &again : b->d) < 0)
		b->rc = -1;
	srt_diags_release(&again);
	rt = srt_arena_alloc(b->a, (av.n + 1) * sizeof(*rt));
	memset(rt, 0, (av.n + 1) * sizeof(*rt));
	for (size_t i = 0; i < ln->nwords; i++)
		rt[cmd->n + i] = ln->words[i].runtime;
	pr = new_proc(b);
	pr->kind = SRT_PROC_FRONTEND;
	pr->name = idx < 0 ? "frontend" : srt_arena_printf(b->a, "frontend_%d", idx);
	pr->log_file = srt_arena_printf(b->a, "%s.out", pr->name);
	pr->node = node;
	pr->phase = srt_start_name(SRT_START_AFTER_FRONTEND);
	argvb_finish(&av, &argv);
	/* frontend.container_image (TileRT's router has an image of its own) */
	pr->container = image_set(f->container) ? resolve(p->cluster, f->container) :
						  srt_render_job_container(r, p->cluster);
	with_start_preamble(b->a, r, p->cluster, in_container(p->cluster, pr->container),
			    srt_launch_frontend_kind(r, NULL) == SRT_FE_DYNAMO, &argv, &rt);
	put_argv(pr, &argv);
	env_layer(&env, b->a, &r->environment, "environment");
	env_layer(&env, b->a, &f->env, "frontend.env");
	launch_env(&env, b->a, ln);
	put_env(b, pr, &env);
	/*
	 * TileRT's router reads the tokenizer (--model-path) from the model,
	 * mounted at /model in its container as the workers' is.
	 */
	if (srt_launch_frontend_kind(r, NULL) == SRT_FE_TILERT_ROUTER && pr->container &&
	    p->run.pyxis && r->model.path && r->model.path[0] == '/')
		pr->model_mount = r->model.path;
	srun_opts(b, pr, NULL, installs_dynamo(r, in_container(p->cluster, pr->container)));
	pr->argv_runtime = rt;
	put_readiness(b->a, pr, &ln->readiness, p->layout.nodes[node].host);
	pr->critical = true;
	pr->config_file = ln->config_file;
	pr->config_text = ln->config_text;
	pr->config_runtime = ln->config_runtime;
}

/*
 * nginx on the head node in front of the n frontends (srt-slurm's
 * topology): `nginx -e stderr -c <log dir>/nginx.conf -g 'daemon off;'`
 * under a bash that sets the open-file limit (nginx_raise_ulimit) and adds
 * /usr/sbin to PATH; in frontend.nginx_container on a cluster with
 * containers (as root there), else commands.nginx as the job's user; the
 * config written by the agent before each start.  Ready once GET /health
 * through it answers 200 (a frontend behind it answered).
 */
static void nginx_proc(struct pb *b, const size_t *nodes, size_t n)
{
	struct srt_plan *p = b->p;
	const struct srt_recipe *r = p->recipe;
	int port = r->frontend.port > 0 ? r->frontend.port : SRT_LAUNCH_FRONTEND_PORT;
	struct srt_runplan_proc *pr = new_proc(b);
	const char *image = resolve(p->cluster, r->frontend.nginx_container);
	bool ctr = in_container(p->cluster, image);
	const char *dir = ctr ? SRT_CONTAINER_LOG_DIR : p->layout.log_dir;
	struct srt_readiness rd = { 0 };
	struct srt_renv env = { 0 };
	struct argvb av = { NULL, 0, 0 };
	struct srt_argv argv;
	const struct srt_argv *cmd = p->cluster ? &p->cluster->commands[SRT_CMD_NGINX] : NULL;
	bool *rt;

	/*
	 * bash for the open-file limit and PATH (Debian installs nginx in
	 * /usr/sbin, which a user's PATH may lack), then nginx in its place.
	 */
	argvb_push(&av, b->a, "bash");
	argvb_push(&av, b->a, "-c");
	argvb_push(&av, b->a,
		   srt_arena_printf(b->a, "%sPATH=$PATH:/usr/local/sbin:/usr/sbin; exec \"$@\"",
				    srt_launch_nginx_raise_ulimit(r, p->cluster) ?
					    srt_arena_printf(b->a, "ulimit -n %d && ",
							     SRT_NGINX_NOFILE) :
					    ""));
	argvb_push(&av, b->a, "nginx");
	/* in nginx's image its own nginx; on a bare node commands.nginx */
	if (ctr || !cmd || !cmd->n)
		argvb_push(&av, b->a, "nginx");
	else
		argvb_push_all(&av, b->a, cmd);
	argvb_push(&av, b->a, "-e");
	argvb_push(&av, b->a, "stderr");
	argvb_push(&av, b->a, "-c");
	argvb_push(&av, b->a, srt_arena_printf(b->a, "%s/nginx.conf", dir));
	argvb_push(&av, b->a, "-g");
	argvb_push(&av, b->a, "daemon off;");
	argvb_finish(&av, &argv);
	rt = srt_arena_alloc(b->a, (argv.n + 1) * sizeof(*rt));
	memset(rt, 0, (argv.n + 1) * sizeof(*rt));
	rt[argv.n - 3] = !ctr; /* the host's log directory is bound at run time */
	pr->kind = SRT_PROC_FRONTEND;
	pr->name = "nginx";
	pr->log_file = "nginx.out";
	pr->node = p->layout.head;
	pr->phase = srt_start_name(SRT_START_AFTER_FRONTEND);
	pr->container = ctr ? image : NULL;
	put_argv(pr, &argv);
	pr->argv_runtime = rt;
	put_env(b, pr, &env);
	srun_opts(b, pr, NULL, ctr);
	rd.probes[0] = (struct srt_probe){ SRT_PROBE_HTTP, port, "/health", 200 };
	rd.nprobes = 1;
	rd.timeout_seconds = SRT_FRONTEND_READY_TIMEOUT;
	put_readiness(b->a, pr, &rd, p->layout.nodes[p->layout.head].host);
	pr->critical = true;
	pr->config_file = "nginx.conf";
	pr->config_text =
		srt_launch_nginx_conf(b->a, r, p->cluster, &p->layout, nodes, n, dir, ctr);
	pr->config_runtime = true;
}

static void add_frontend(struct pb *b)
{
	struct srt_plan *p = b->p;
	const struct srt_recipe *r = p->recipe;
	const struct srt_argv *cmd = srt_launch_frontend_command(r, p->cluster);
	const size_t *nodes;
	size_t n;
	struct srt_launch ln;

	/* none and direct run no process (validation warns about a type without a command). */
	srt_launch_frontend(&ln, b->a, r, p->cluster, &p->layout);
	p->run.frontend_url_ph = ln.url;
	if (!cmd || !cmd->n) {
		if (srt_launch_frontend_kind(r, NULL) == SRT_FE_DYNAMO) {
			srt_diags_add(
				b->d, SRT_DIAG_ERROR,
				p->cluster && p->cluster->source ? p->cluster->source : r->file, 0,
				0, "commands",
				"the cluster config has no command for 'dynamo_frontend'; set "
				"commands.dynamo_frontend in srtslurm.yaml (e.g. [python3, -m, "
				"dynamo.frontend])");
			b->rc = -1;
		}
		return;
	}
	n = srt_launch_frontend_nodes(r, &p->layout, b->a, &nodes);
	if (!n) {
		frontend_proc(b, &ln, p->layout.head, -1);
		return;
	}
	/* the frontends first (one start group), then nginx in front of them */
	for (size_t i = 0; i < n; i++) {
		struct srt_launch rl;

		srt_launch_frontend_at(&rl, b->a, r, p->cluster, &p->layout, nodes[i],
				       SRT_LAUNCH_FRONTEND_INTERNAL_PORT);
		frontend_proc(b, &rl, nodes[i], (int)i);
	}
	nginx_proc(b, nodes, n);
}

/* "isl" -> "SRT_BENCH_ISL"; NULL when the key cannot name a variable. */
static const char *bench_var(struct srt_arena *a, const char *key)
{
	char *name = srt_arena_printf(a, "SRT_BENCH_%s", key);

	for (char *q = name; *q; q++) {
		if (*q >= 'a' && *q <= 'z')
			*q = (char)(*q - 'a' + 'A');
		else if (*q == '-' || *q == '.')
			*q = '_';
	}
	return srt_is_env_name(name) ? name : NULL;
}

/*
 * The benchmark's parameters (every key but command, env and
 * container_image) as SRT_BENCH_<KEY>: scalars as written, lists and
 * mappings as compact JSON, null as "".
 */
static void bench_params(struct pb *b, struct srt_renv *env, const struct srt_ynode *bm)
{
	const struct srt_recipe *r = b->p->recipe;

	for (size_t i = 0; bm && bm->kind == SRT_Y_MAP && i < bm->n; i++) {
		const struct srt_ynode *k = bm->pairs[i].key, *v = bm->pairs[i].value;
		const char *path = srt_arena_printf(b->a, "benchmark.%s", k->str);
		const struct srt_ynode *bad = find_nul(v);
		const char *name, *value;
		bool existed;
		struct srt_renv_var *slot;

		if (!strcmp(k->str, "command") || !strcmp(k->str, "env") ||
		    !strcmp(k->str, "container_image"))
			continue;
		if (bad) {
			nul_error(b->d, r->file, bad, path);
			b->rc = -1;
			continue;
		}
		name = bench_var(b->a, k->str);
		if (!name)
			continue;
		if (srt_ynode_is_null(v))
			value = "";
		else if (v->kind == SRT_Y_SCALAR)
			value = v->str;
		else if (!(value = json_text(b->a, v)))
			continue;
		slot = env_slot(env, b->a, name, &existed);
		slot->value = value;
		slot->owner = SRT_OWNER_RECIPE;
		slot->layer = path;
	}
}

/*
 * What srt-slurm tells a custom benchmark command about the job (its
 * contract, which launchers such as Miles's read): per running service
 * SRT_SERVICE_<NAME>_NODES / _IPS / _NODE_COUNT (NAME upper-cased, other
 * than letters and digits '_'; in instance order: a Ray head first),
 * SRT_GPUS_PER_NODE, SRT_WORKER_NODES (the engine roles' nodes) and
 * SRTCTL_FRONTEND_TYPE, with SRT_FRONTEND_HOST/PORT behind a frontend.
 * Stamped first: the recipe's environment and benchmark.env win.
 */
static void custom_bench_env(struct pb *b, struct srt_renv *env)
{
	const struct srt_plan *p = b->p;
	const struct srt_recipe *r = p->recipe;
	const struct srt_layout *l = &p->layout;
	size_t *nodes = srt_arena_alloc(b->a, (l->nnodes + 1) * sizeof(*nodes));
	struct srt_buf hosts, ips;
	const char *why = "srt-slurm's custom-benchmark contract: the service's nodes";

	for (size_t i = 0; i < r->nservices; i++) {
		const struct srt_service *s = &r->services[i];
		size_t n = service_launched(s) && s->name ? service_nodes(l, s, nodes) : 0;
		char *key;

		if (!n)
			continue;
		key = srt_arena_strdup(b->a, s->name);
		for (char *c = key; *c; c++)
			*c = (char)(isalnum((unsigned char)*c) ? toupper((unsigned char)*c) : '_');
		srt_buf_init(&hosts);
		srt_buf_init(&ips);
		for (size_t k = 0; k < n; k++) {
			srt_buf_printf(&hosts, "%s%s", k ? "," : "", l->nodes[nodes[k]].host);
			srt_buf_printf(&ips, "%s%s", k ? "," : "", l->nodes[nodes[k]].ip);
		}
		env_stamp(env, b->a, srt_arena_printf(b->a, "SRT_SERVICE_%s_NODES", key),
			  srt_arena_strdup(b->a, hosts.data), why, true);
		env_stamp(env, b->a, srt_arena_printf(b->a, "SRT_SERVICE_%s_IPS", key),
			  srt_arena_strdup(b->a, ips.data), why, true);
		env_stamp(env, b->a, srt_arena_printf(b->a, "SRT_SERVICE_%s_NODE_COUNT", key),
			  srt_arena_printf(b->a, "%zu", n), why, false);
		srt_buf_release(&hosts);
		srt_buf_release(&ips);
	}
	env_stamp(env, b->a, "SRT_GPUS_PER_NODE",
		  srt_arena_printf(b->a, "%d", r->resources.gpus_per_node),
		  "resources.gpus_per_node", false);
	srt_buf_init(&hosts);
	for (size_t k = 0; k < l->nnodes; k++)
		if (!l->nodes[k].dedicated && !l->nodes[k].pool &&
		    (r->roles[SRT_ROLE_PREFILL].present || r->roles[SRT_ROLE_DECODE].present ||
		     r->roles[SRT_ROLE_AGG].present || !l->npools))
			srt_buf_printf(&hosts, "%s%s", hosts.len ? "," : "", l->nodes[k].host);
	env_stamp(env, b->a, "SRT_WORKER_NODES",
		  srt_arena_strdup(b->a, hosts.len ? hosts.data : ""), "the engine roles' nodes",
		  true);
	srt_buf_release(&hosts);
	env_stamp(env, b->a, "SRTCTL_FRONTEND_TYPE", r->frontend.type ? r->frontend.type : "none",
		  "frontend.type", false);
	if (p->run.frontend_url_ph) {
		env_stamp(env, b->a, "SRT_FRONTEND_HOST", l->nodes[l->head].ip,
			  "the frontend's node", true);
		env_stamp(env, b->a, "SRT_FRONTEND_PORT",
			  srt_arena_printf(b->a, "%d",
					   r->frontend.port > 0 ? r->frontend.port : 8000),
			  "frontend.port", false);
	}
}

static void add_benchmark(struct pb *b)
{
	struct srt_plan *p = b->p;
	const struct srt_recipe *r = p->recipe;
	const struct srt_benchmark *bm = &r->benchmark;
	const struct srt_ynode *cmdn = srt_ynode_get(bm->node, "command");
	const char *image = srt_ynode_str(srt_ynode_get(bm->node, "container_image"));
	struct argvb av = { NULL, 0, 0 };
	struct srt_runplan_proc *pr;
	struct srt_argv argv;
	struct srt_renv env = { 0 };
	struct srt_readiness none = { 0 };

	/* No command, no step (validation warns about a type without one). */
	if (!bm->command)
		return;
	if (cmdn && has_nul(cmdn)) {
		nul_error(b->d, r->file, cmdn, "benchmark.command");
		b->rc = -1;
		return;
	}
	argvb_push(&av, b->a, "bash");
	argvb_push(&av, b->a, "-c");
	argvb_push(&av, b->a, bm->command);
	pr = new_proc(b);
	pr->kind = SRT_PROC_BENCHMARK;
	pr->name = "benchmark";
	pr->log_file = "benchmark.out";
	pr->node = p->layout.head;
	pr->phase = srt_start_name(SRT_START_AFTER_FRONTEND);
	argvb_finish(&av, &argv);
	put_argv(pr, &argv);
	if (bm->type && !strcmp(bm->type, "custom"))
		custom_bench_env(b, &env);
	env_layer(&env, b->a, &r->environment, "environment");
	bench_params(b, &env, bm->node);
	env_layer(&env, b->a, &bm->env, "benchmark.env");
	if (p->run.frontend_url_ph)
		env_stamp(&env, b->a, "SRT_FRONTEND_URL", p->run.frontend_url_ph,
			  "the frontend's URL (frontend.type)", true);
	put_env(b, pr, &env);
	put_readiness(b->a, pr, &none, NULL);
	pr->container = image_set(image) ? resolve(p->cluster, image) :
					   srt_render_job_container(r, p->cluster);
	{
		bool *rt = NULL;

		with_start_preamble(b->a, r, p->cluster, in_container(p->cluster, pr->container),
				    false, &argv, &rt);
		put_argv(pr, &argv);
		pr->argv_runtime = rt;
	}
	srun_opts(b, pr, NULL, false);
	pr->critical = false;
}

static bool argv_has(const struct srt_runplan_proc *pr, const char *needle)
{
	for (size_t i = 0; i < pr->argc; i++)
		if (strstr(pr->argv[i], needle))
			return true;
	return false;
}

static bool argv_has_pair(const struct srt_runplan_proc *pr, const char *flag, const char *value)
{
	for (size_t i = 0; i + 1 < pr->argc; i++)
		if (!strcmp(pr->argv[i], flag) && !strcmp(pr->argv[i + 1], value))
			return true;
	return false;
}

/* Does worker pr keep state on the master that it cannot re-create by itself? */
static bool worker_follows_master(const struct srt_plan *p, const struct srt_runplan_proc *pr)
{
	const char *md;

	switch (p->recipe->engine) {
	case SRT_ENGINE_VLLM:
		if (!p->nstore_configs || !argv_has(pr, "MooncakeStoreConnector"))
			return false;
		md = json_string_value(json_object_get(p->store_configs[0], "metadata_server"));
		return !md || strcmp(md, "P2PHANDSHAKE");
	case SRT_ENGINE_TRTLLM:
		/* The role's own file; TRT-LLM defaults metadata_server to P2PHANDSHAKE. */
		if (srt_recipe_trtllm_pool(p->recipe)) {
			/* its mooncake_store block, the pool TRT-LLM provisions from */
			for (int k = 0; k < SRT_ROLE_COUNT; k++) {
				const struct srt_ynode *block = NULL;

				if (strcmp(srt_role_name((enum srt_role_kind)k), pr->role) ||
				    !srt_role_trtllm_mooncake(p->recipe, (enum srt_role_kind)k,
							      &block) ||
				    !block)
					continue;
				md = srt_ynode_str(srt_ynode_get(block, "metadata_server"));
				return md && strcmp(md, "P2PHANDSHAKE");
			}
			return false;
		}
		for (int k = 0; k < SRT_ROLE_COUNT; k++) {
			const char *file = srt_mcclient_file((enum srt_role_kind)k);
			size_t n = strlen(p->layout.log_dir);

			if (strcmp(srt_role_name((enum srt_role_kind)k), pr->role))
				continue;
			for (size_t i = 0; i < p->nstore_configs; i++) {
				const char *f = p->store_config_files[i];

				if (strncmp(f, p->layout.log_dir, n) || f[n] != '/' ||
				    strcmp(f + n + 1, file))
					continue;
				md = json_string_value(
					json_object_get(p->store_configs[i], "metadata_server"));
				return md && strcmp(md, "P2PHANDSHAKE");
			}
		}
		return false;
	case SRT_ENGINE_SGLANG:
		return argv_has_pair(pr, "--hicache-storage-backend", "mooncake");
	default:
		return false;
	}
}

static void set_followers(struct srt_plan *p)
{
	if (!p->master || p->master_external)
		return;
	for (size_t i = 0; i < p->run.nprocs; i++) {
		struct srt_runplan_proc *pr = &p->run.procs[i];

		if ((pr->kind == SRT_PROC_SERVICE && pr->type &&
		     (!strcmp(pr->type, srt_service_type_name(SRT_SVC_MOONCAKE_STORE)) ||
		      !strcmp(pr->type, srt_service_type_name(SRT_SVC_MOONCAKE_DONOR)))) ||
		    (pr->kind == SRT_PROC_WORKER && worker_follows_master(p, pr)))
			pr->follows = p->master->name;
	}
}

/* The layout and the plan-wide facts into the run plan. */
static void plan_header(struct srt_plan *p)
{
	const struct srt_layout *l = &p->layout;
	struct srt_runplan *run = &p->run;
	const struct srt_cluster *c = p->cluster;
	const struct srt_recipe *r = p->recipe;

	srt_runplan_init(run, l->nnodes);
	run->recipe = p->recipe->name ? p->recipe->name : "";
	run->engine = srt_engine_name(p->recipe->engine);
	for (size_t i = 0; i < l->nnodes; i++) {
		run->node_label[i] = l->nodes[i].label;
		run->node_host_ph[i] = l->nodes[i].host;
		run->node_ip_ph[i] = l->nodes[i].ip;
		run->node_dedicated[i] = l->nodes[i].dedicated;
	}
	run->head = l->head;
	run->infra = l->infra;
	run->dedicated_infra = l->dedicated;
	run->infra_ip_ph = l->infra_ip;
	run->log_dir_ph = l->log_dir;
	run->nworkers = l->nworkers;
	run->workers = srt_arena_alloc(&run->arena, (l->nworkers + 1) * sizeof(*run->workers));
	for (size_t i = 0; i < l->nworkers; i++)
		run->workers[i] = (struct srt_runplan_worker){ srt_role_name(l->workers[i].role),
							       l->workers[i].index,
							       l->workers[i].node,
							       l->workers[i].nnodes };
	run->pyxis = c && c->container_runtime == SRT_CRT_PYXIS;
	run->network_interface = c ? c->network_interface : NULL;
	/* srt-slurm's order: the cluster's default_mounts, then the recipe's */
	run->nmounts = 0;
	run->mounts = srt_arena_alloc(&run->arena, ((c ? c->default_mounts.n : 0) + r->mounts.n +
						    2) * sizeof(*run->mounts));
	for (size_t i = 0; c && i < c->default_mounts.n; i++)
		run->mounts[run->nmounts++] = c->default_mounts.v[i].name;
	for (size_t i = 0; i < r->mounts.n; i++)
		run->mounts[run->nmounts++] = r->mounts.v[i].name;
	/* srt-slurm mounts its configs/ at /configs, where setup_script is run from */
	if (r->setup_script && c && c->srtctl_root && run->pyxis && !mounts_at(run, "/configs"))
		run->mounts[run->nmounts++] =
			srt_arena_printf(&run->arena, "%s/configs:/configs", c->srtctl_root);
	if (p->master) {
		run->master_name = p->master->name;
		run->master_external = p->master_external;
		run->master_address = p->master_addr;
		run->master_metadata = srt_render_metadata_url(&p->arena, p->recipe, l);
	}
	run->nstore_configs = p->nstore_configs;
	for (size_t i = 0; i < p->nstore_configs; i++) {
		run->store_configs[i].config = p->store_configs[i];
		run->store_configs[i].file = p->store_config_files[i];
	}
}

/* The Mooncake client configs the agent writes: vLLM's one, or TRT-LLM's per role. */
static void store_configs(struct srt_plan *p)
{
	const struct srt_recipe *r = p->recipe;
	const char *served;

	if (r->engine == SRT_ENGINE_VLLM) {
		p->store_configs[0] = srt_render_store_config(r, &p->layout);
		if (p->store_configs[0]) {
			p->store_config_files[0] = srt_arena_printf(
				&p->arena, "%s/%s", p->layout.log_dir, SRT_STORE_CONFIG_FILE);
			p->nstore_configs = 1;
		}
		return;
	}
	served = srt_launch_served_name(&p->arena, r);
	for (int k = 0; k < SRT_ROLE_COUNT; k++) {
		json_t *j = srt_mcclient_render(r, (enum srt_role_kind)k, p->master_addr, served);

		if (!j)
			continue;
		p->store_configs[p->nstore_configs] = j;
		p->store_config_files[p->nstore_configs++] =
			srt_arena_printf(&p->arena, "%s/%s", p->layout.log_dir,
					 srt_mcclient_file((enum srt_role_kind)k));
	}
}

struct srt_plan *srt_plan_build(const struct srt_recipe *r, const struct srt_cluster *c,
				struct srt_diags *d)
{
	struct srt_plan *p = srt_xcalloc(1, sizeof(*p));
	struct pb b = { p, &p->arena, d, 0, false, false };
	struct srt_error err = { 0 };

	srt_arena_init(&p->arena);
	p->recipe = r;
	p->cluster = c;
	srt_layout_build(&p->layout, &p->arena, r);
	p->master = srt_recipe_master(r);
	p->master_external = p->master && p->master->external;
	p->master_addr = srt_render_master_addr(&p->arena, r, &p->layout);
	store_configs(p);
	plan_header(p);
	if (r->model.path && r->model.path[0] != '/' && !srt_str_has_prefix(r->model.path, "hf:"))
		warn_at(&b, srt_ynode_get(srt_ynode_get(r->root, "model"), "path"), "model.path",
			"'%s' is neither an absolute path, an hf: model id nor an alias of "
			"model_paths in srtslurm.yaml; the engines get it as written (a "
			"relative path%s); add the alias to model_paths or write the path",
			r->model.path,
			c && c->container_runtime == SRT_CRT_PYXIS ? ", mounted at /model" : "");

	add_services(&b, SRT_START_INFRA);
	if (p->master && !p->master_external)
		add_service(&b, p->master, (size_t)(p->master - r->services));
	add_services(&b, SRT_START_BEFORE_WORKERS);
	add_services(&b, SRT_START_WITH_WORKERS);
	add_workers(&b);
	add_frontend(&b);
	add_services(&b, SRT_START_AFTER_FRONTEND);
	add_benchmark(&b);
	set_followers(p);

	if (c && c->container_runtime == SRT_CRT_NONE) {
		for (size_t i = 0; i < p->run.nprocs; i++) {
			if (p->run.procs[i].container) {
				srt_diags_add(
					d, SRT_DIAG_WARNING, c->source, 0, 0,
					"runtime.container_runtime",
					"container_runtime is 'none', so container images "
					"(e.g. '%s' for '%s') are ignored and every process runs "
					"on the bare node; set container_runtime: pyxis to use them",
					p->run.procs[i].container, p->run.procs[i].name);
				break;
			}
		}
		if (r->mounts.n)
			warn_at(&b, r->mounts.v[0].node, "extra_mount",
				"container_runtime is 'none': no process runs in a container, so "
				"the recipe's mounts (extra_mount, container_mounts) are ignored");
	}
	if (b.rc == 0 && srt_runplan_finish(&p->run, &err) < 0) {
		/* The compiler made a plan the agent would refuse: a bug, said plainly. */
		srt_diags_add(d, SRT_DIAG_ERROR, r->file, 0, 0, "plan",
			      "internal error: the rendered plan is invalid: %s", err.msg);
		b.rc = -1;
	}
	if (b.rc < 0) {
		srt_plan_free(p);
		return NULL;
	}
	return p;
}

void srt_plan_free(struct srt_plan *p)
{
	if (!p)
		return;
	srt_runplan_release(&p->run);
	for (size_t i = 0; i < p->nstore_configs; i++)
		json_decref(p->store_configs[i]);
	srt_arena_release(&p->arena);
	free(p);
}
