/*
 * recipe/migrate.c: rewriting a v1 recipe document in the v2 layout.
 *
 * The migration is a pure tree-to-tree function: it reads the v1 document
 * and builds a new document (its own arena) from deep copies of the v1
 * nodes, so the v1 tree is never modified.  One recipe mapping (a
 * "section") is migrated by:
 *
 *   1. choosing the engine: backend.type, or (whole recipes only) the
 *      engine whose *_config key is present, sglang when none is;
 *   2. moving the per-mode keys of backend and the topology keys of
 *      resources into roles.prefill / roles.decode / roles.agg
 *      (resources.decode_nodes: 0, "share the prefill nodes", becomes
 *      roles.decode.nodes: colocate);
 *   3. turning backend.connector into the role args each engine reads,
 *      and backend.mooncake_kv_store into a mooncake-master service (with
 *      srt-slurm's tuning flags and, under infra.etcd_nats_dedicated_node,
 *      a dedicated node) and its env into each present role's env, with
 *      v1's env precedence kept (see apply_environment_precedence());
 *   4. keeping every engine-wide backend key (kv_events_config included,
 *      with a warning) as an engine option, in which case engine is written
 *      as a mapping {type: ..., key: ...};
 *   5. writing the top-level keys in the v2 order (see write_section()).
 *
 * A recipe's `sweep:` section is carried over unchanged (srtctl migrate
 * then writes the campaign that runs it); one in a variant file is refused
 * before anything is built (check_sweep()).
 *
 * A variant file is migrated section by section: base as a whole recipe,
 * each zip_override_<name> as a partial recipe with the same key moves, so
 * a zipped list stays a list at the moved place.  Engine is written in the
 * mapping form in every section of a variant file as soon as one section
 * needs it, because an override's mapping would otherwise replace base's
 * plain engine string (and lose its type) when variants are expanded.
 */
#include "recipe/migrate.h"
#include "recipe/launch.h"
#include "recipe/variants.h"
#include "util/buf.h"
#include "util/strutil.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>


/* The three worker modes: v1 backend name, v1 resources name, v2 role. */
struct mode {
	const char *backend; /* <backend>_environment, <engine>_config.<backend> */
	const char *res;     /* resources.<res>_nodes, gpus_per_<res> */
	const char *role;
};

static const struct mode modes[] = {
	{ "prefill", "prefill", "prefill" },
	{ "decode", "decode", "decode" },
	{ "aggregated", "agg", "agg" },
};

#define NMODES (sizeof(modes) / sizeof(modes[0]))

static const char *const engines[] = { "sglang", "vllm", "trtllm", "mocker" };

#define NENGINES (sizeof(engines) / sizeof(engines[0]))

struct mctx {
	const struct srt_ydoc *v1;
	struct srt_ydoc *doc; /* the new document */
	struct srt_diags *diags;
	size_t errors_at_start;
	bool engine_as_map; /* write engine as a mapping in every section */
};

/* One section being migrated. */
struct section {
	const struct srt_ynode *src;	   /* the v1 recipe mapping */
	const char *prefix;		   /* "" for a plain file, "base." or "zip_override_x." */
	bool partial;			   /* a zip_override section */
	const char *engine;		   /* engine name used to pick <engine>_config */
	const struct srt_ynode *type_node; /* backend.type as written, or NULL */
	bool inferred;			   /* engine inferred (no backend.type) */
	struct srt_ynode *roles[NMODES];   /* built role mappings (NULL: none yet) */
	struct srt_ynode *services;	   /* a list, or NULL */
	struct srt_ynode *engine_out;	   /* what `engine:` becomes, or NULL */
	const struct srt_ynode *use_sglang_router; /* backend.use_sglang_router, or NULL */
	struct srt_ynode *resources_out;   /* what stays under resources, or NULL */
	bool kv_events_all;		   /* backend.kv_events_config: true (every mode) */
};

static void warn(struct mctx *m, const struct srt_ynode *at, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void fail(struct mctx *m, const struct srt_ynode *at, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void warn(struct mctx *m, const struct srt_ynode *at, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	srt_diags_vadd(m->diags, SRT_DIAG_WARNING, m->v1->file, at ? at->line : 0, at ? at->col : 0,
		       path, fmt, ap);
	va_end(ap);
}

static void fail(struct mctx *m, const struct srt_ynode *at, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	srt_diags_vadd(m->diags, SRT_DIAG_ERROR, m->v1->file, at ? at->line : 0, at ? at->col : 0,
		       path, fmt, ap);
	va_end(ap);
}

static bool failed(const struct mctx *m)
{
	return m->diags->nerrors > m->errors_at_start;
}

/* "base." + "backend.type" in the arena of the new document. */
static const char *kpath(struct mctx *m, const struct section *s, const char *path)
{
	return srt_arena_printf(&m->doc->arena, "%s%s", s->prefix, path);
}

static bool key_is(const struct srt_ynode *k, const char *s)
{
	size_t n = strlen(s);

	return k->len == n && !memcmp(k->str, s, n);
}

/* Deep-copy a v1 node into the new document (aliases become copies). */
static struct srt_ynode *copy_node(struct mctx *m, const struct srt_ynode *n)
{
	struct srt_ynode *c = srt_arena_alloc(&m->doc->arena, sizeof(*c));

	c->kind = n->kind;
	c->line = n->line;
	c->col = n->col;
	c->plain = n->plain;
	c->tag = n->tag ? srt_arena_strdup(&m->doc->arena, n->tag) : NULL;
	c->weight = n->weight;
	switch (n->kind) {
	case SRT_Y_SCALAR:
		c->str = srt_arena_strndup(&m->doc->arena, n->str, n->len);
		c->len = n->len;
		break;
	case SRT_Y_MAP:
		c->cap = n->n ? n->n : 1;
		c->pairs = srt_arena_alloc(&m->doc->arena, c->cap * sizeof(*c->pairs));
		for (size_t i = 0; i < n->n; i++) {
			c->pairs[i].key = copy_node(m, n->pairs[i].key);
			c->pairs[i].value = copy_node(m, n->pairs[i].value);
		}
		c->n = n->n;
		break;
	case SRT_Y_SEQ:
		c->cap = n->n ? n->n : 1;
		c->items = srt_arena_alloc(&m->doc->arena, c->cap * sizeof(*c->items));
		for (size_t i = 0; i < n->n; i++)
			c->items[i] = copy_node(m, n->items[i]);
		c->n = n->n;
		break;
	}
	return c;
}

/* Set key in map to a copy of v1 node `v`, keeping v1's key position. */
static void set_copy(struct mctx *m, struct srt_ynode *map, const char *key,
		     const struct srt_ynode *v)
{
	srt_ynode_map_set(m->doc, map, key, copy_node(m, v));
}

static bool is_known_engine(const char *name)
{
	for (size_t i = 0; i < NENGINES; i++)
		if (!strcmp(name, engines[i]))
			return true;
	return false;
}

/* Is this already a v2 recipe mapping (roles, engine, or schema: 2)? */
static const struct srt_ynode *v2_marker(const struct srt_ynode *root)
{
	const struct srt_ypair *p;
	int64_t schema;

	if (!root || root->kind != SRT_Y_MAP)
		return NULL;
	if ((p = srt_ynode_get_pair(root, "roles")) || (p = srt_ynode_get_pair(root, "engine")))
		return p->key;
	/*
	 * `schema: 2` over a v1 body (backend:, resources.<mode>_nodes) is
	 * still the v1 layout: srt-slurm's own examples mix them, and its loader
	 * reads both spellings.  Such a file is migrated.
	 */
	p = srt_ynode_get_pair(root, "schema");
	if (p && srt_ynode_int(p->value, &schema) && schema >= 2 && !srt_ynode_get(root, "backend"))
		return p->key;
	return NULL;
}

/* The engine a section's backend names or implies (no diagnostics). */
static const char *section_engine(const struct srt_ynode *backend, const char *fallback,
				  bool *inferred)
{
	const struct srt_ynode *tn = srt_ynode_get(backend, "type");
	const char *type = srt_ynode_str(tn);

	*inferred = false;
	if (type && is_known_engine(type))
		return type;
	if (!srt_ynode_is_null(tn))
		return fallback ? fallback : "sglang"; /* a list (zipped) or unknown name */
	if (fallback)
		return fallback;
	*inferred = true;
	for (size_t i = 0; i < NENGINES; i++) {
		char key[32];

		snprintf(key, sizeof(key), "%s_config", engines[i]);
		if (srt_ynode_get(backend, key))
			return engines[i];
	}
	return "sglang";
}

static bool mode_key(const struct srt_ynode *k, const char *suffix)
{
	for (size_t i = 0; i < NMODES; i++) {
		char name[64];

		snprintf(name, sizeof(name), "%s%s", modes[i].backend, suffix);
		if (key_is(k, name))
			return true;
	}
	return false;
}

/* Keys of backend that move to roles, services or engine's type. */
static bool is_moved_backend_key(const struct srt_ynode *k, const char *engine)
{
	char cfg[64];

	snprintf(cfg, sizeof(cfg), "%s_config", engine);
	return key_is(k, "type") || key_is(k, cfg) || key_is(k, "mooncake_kv_store") ||
	       mode_key(k, "_environment") || mode_key(k, "_extra_args") ||
	       (key_is(k, "connector") && (!strcmp(engine, "sglang") || !strcmp(engine, "vllm")));
}

/* Does <engine>_config hold keys other than the three modes? */
static bool config_has_extras(const struct srt_ynode *cfg)
{
	if (!cfg || cfg->kind != SRT_Y_MAP)
		return cfg && !srt_ynode_is_null(cfg);
	for (size_t i = 0; i < cfg->n; i++) {
		bool is_mode = false;

		for (size_t j = 0; j < NMODES; j++)
			if (key_is(cfg->pairs[i].key, modes[j].backend))
				is_mode = true;
		if (!is_mode)
			return true;
	}
	return false;
}

/* Would this section's engine need the mapping form? */
static bool needs_engine_map(const struct srt_ynode *backend, const char *engine)
{
	char cfg[64];

	if (!backend || backend->kind != SRT_Y_MAP)
		return false;
	snprintf(cfg, sizeof(cfg), "%s_config", engine);
	if (config_has_extras(srt_ynode_get(backend, cfg)))
		return true;
	for (size_t i = 0; i < backend->n; i++)
		if (!is_moved_backend_key(backend->pairs[i].key, engine))
			return true;
	return false;
}

static struct srt_ynode *role(struct mctx *m, struct section *s, size_t mode)
{
	if (!s->roles[mode])
		s->roles[mode] = srt_ynode_new_map(m->doc);
	return s->roles[mode];
}

/*
 * Copy v1 value `v` to roles.<mode>.<key>.  In a whole recipe a null means
 * "unset" and is dropped; in an override it is carried as written.
 */
static void to_role(struct mctx *m, struct section *s, size_t mode, const char *key,
		    const struct srt_ynode *v)
{
	if (!v || (!s->partial && srt_ynode_is_null(v)))
		return;
	set_copy(m, role(m, s, mode), key, v);
}

static bool is_zero(const struct srt_ynode *v)
{
	int64_t i;

	return v && srt_ynode_int(v, &i) && i == 0;
}

/*
 * resources.decode_nodes: 0 meant "decode shares the prefill nodes"; v2
 * spells that `nodes: colocate`.  In an override each zipped value is
 * converted on its own.
 */
static struct srt_ynode *decode_nodes(struct mctx *m, struct section *s, const struct srt_ynode *v,
				      const char *path)
{
	struct srt_ynode *c = copy_node(m, v);
	bool changed = false;

	if (is_zero(v)) {
		c = srt_ynode_new_str(m->doc, "colocate", true);
		c->line = v->line;
		c->col = v->col;
		changed = true;
	} else if (v->kind == SRT_Y_SEQ) {
		for (size_t i = 0; i < c->n; i++) {
			if (!is_zero(c->items[i]))
				continue;
			c->items[i] = srt_ynode_new_str(m->doc, "colocate", true);
			changed = true;
		}
	}
	if (changed)
		warn(m, v, kpath(m, s, path),
		     "0 (decode shares the prefill nodes) is written as roles.decode.nodes: "
		     "colocate");
	return c;
}

/* resources.* -> roles.*; what remains goes to s->resources_out. */
static void move_resources(struct mctx *m, struct section *s)
{
	const struct srt_ynode *res = srt_ynode_get(s->src, "resources");
	struct srt_ynode *rest;
	bool agg_only;

	if (!res)
		return;
	if (res->kind != SRT_Y_MAP) {
		if (!srt_ynode_is_null(res))
			s->resources_out = copy_node(m, res); /* the validator reports it */
		return;
	}
	/*
	 * srt-slurm reads a recipe as disaggregated only when it sets prefill or
	 * decode nodes; in an aggregated one gpus_per_prefill/gpus_per_decode
	 * change nothing, so they do not become prefill/decode roles.
	 */
	agg_only = (srt_ynode_get(res, "agg_nodes") || srt_ynode_get(res, "agg_workers")) &&
		   !srt_ynode_get(res, "prefill_nodes") && !srt_ynode_get(res, "decode_nodes") &&
		   !srt_ynode_get(res, "prefill_workers") && !srt_ynode_get(res, "decode_workers");
	rest = srt_ynode_new_map(m->doc);
	rest->line = res->line;
	rest->col = res->col;
	for (size_t i = 0; i < res->n; i++) {
		const struct srt_ypair *p = &res->pairs[i];
		bool moved = false;

		if (agg_only && (key_is(p->key, "gpus_per_prefill") ||
				 key_is(p->key, "gpus_per_decode"))) {
			warn(m, p->key, kpath(m, s, srt_arena_printf(&m->doc->arena, "resources.%s",
								     p->key->str)),
			     "the recipe is aggregated (agg_nodes/agg_workers), where srt-slurm "
			     "ignores %s; left out",
			     p->key->str);
			continue;
		}

		for (size_t j = 0; j < NMODES && !moved; j++) {
			char nodes[32], workers[32], gpus[32];

			snprintf(nodes, sizeof(nodes), "%s_nodes", modes[j].res);
			snprintf(workers, sizeof(workers), "%s_workers", modes[j].res);
			snprintf(gpus, sizeof(gpus), "gpus_per_%s", modes[j].res);
			moved = true;
			if (key_is(p->key, nodes)) {
				if (!strcmp(modes[j].res, "decode") && !srt_ynode_is_null(p->value))
					srt_ynode_map_set(m->doc, role(m, s, j), "nodes",
							  decode_nodes(m, s, p->value,
								       "resources.decode_nodes"));
				else
					to_role(m, s, j, "nodes", p->value);
			} else if (key_is(p->key, workers)) {
				to_role(m, s, j, "workers", p->value);
			} else if (key_is(p->key, gpus)) {
				to_role(m, s, j, "gpus", p->value);
			} else {
				moved = false;
			}
		}
		if (!moved)
			set_copy(m, rest, p->key->str, p->value);
	}
	if (rest->n)
		s->resources_out = rest;
}

/* backend.<engine>_config.<mode> -> roles.<role>.args. */
static void move_config(struct mctx *m, struct section *s, const struct srt_ynode *backend,
			struct srt_ynode *engine_extras)
{
	char cfgkey[64];
	const struct srt_ynode *cfg;
	struct srt_ynode *rest = NULL;

	snprintf(cfgkey, sizeof(cfgkey), "%s_config", s->engine);
	cfg = srt_ynode_get(backend, cfgkey);
	if (!cfg || srt_ynode_is_null(cfg))
		return;
	if (cfg->kind != SRT_Y_MAP) {
		fail(m, cfg, kpath(m, s, srt_arena_printf(&m->doc->arena, "backend.%s", cfgkey)),
		     "must be a mapping with prefill, decode and aggregated keys, not %s",
		     srt_ynode_describe(cfg));
		return;
	}
	for (size_t i = 0; i < cfg->n; i++) {
		const struct srt_ypair *p = &cfg->pairs[i];
		bool is_mode = false;

		for (size_t j = 0; j < NMODES; j++) {
			if (key_is(p->key, modes[j].backend)) {
				to_role(m, s, j, "args", p->value);
				is_mode = true;
			}
		}
		if (is_mode)
			continue;
		if (!rest)
			rest = srt_ynode_new_map(m->doc);
		set_copy(m, rest, p->key->str, p->value);
		warn(m, p->key,
		     kpath(m, s,
			   srt_arena_printf(&m->doc->arena, "backend.%s.%s", cfgkey, p->key->str)),
		     "not a prefill, decode or aggregated setting; kept as engine option "
		     "engine.%s.%s",
		     cfgkey, p->key->str);
	}
	if (rest)
		srt_ynode_map_set(m->doc, engine_extras, cfgkey, rest);
}

/*
 * The flags srt-slurm's v1 launcher always put on mooncake_master ahead of
 * master_extra_args (srtctl adds only the port and metadata flags it owns),
 * so the migrated master is tuned the same.  gflags keeps the last value of
 * a repeated flag, so master_extra_args, written after them, still win.
 */
static const char *const v1_master_flags[] = {
	"--eviction_high_watermark_ratio=0.9",
	"--default_kv_lease_ttl=10000",
	"--rpc_thread_num=16",
	"--enable_metric_reporting=true",
};

/* infra.etcd_nats_dedicated_node: true in this section? */
static const struct srt_ynode *dedicated_infra(const struct section *s)
{
	const struct srt_ynode *v =
		srt_ynode_get(srt_ynode_get(s->src, "infra"), "etcd_nats_dedicated_node");
	bool b = false;

	return v && srt_ynode_bool(v, &b) && b ? v : NULL;
}

/* backend.mooncake_kv_store -> a mooncake-master service + role env. */
static void move_mooncake(struct mctx *m, struct section *s, const struct srt_ynode *mc,
			  struct srt_ynode **mc_env)
{
	const char *path = kpath(m, s, "backend.mooncake_kv_store");
	struct srt_ynode *svc, *options = NULL, *args;
	const struct srt_ynode *container = NULL, *extra = NULL, *ded;
	const char *lease = NULL; /* default_kv_lease_ttl_ms: the master's lease flag */

	*mc_env = NULL;
	if (srt_ynode_is_null(mc))
		return;
	if (s->partial) {
		fail(m, mc, path,
		     "a mooncake store inside a zip_override section cannot be migrated; "
		     "move backend.mooncake_kv_store to base: (or migrate this file by hand)");
		return;
	}
	if (mc->kind != SRT_Y_MAP) {
		fail(m, mc, path,
		     "must be a mapping (container, env, master_extra_args, ...), not %s",
		     srt_ynode_describe(mc));
		return;
	}
	svc = srt_ynode_new_map(m->doc);
	svc->line = mc->line;
	svc->col = mc->col;
	for (size_t i = 0; i < mc->n; i++) {
		const struct srt_ypair *p = &mc->pairs[i];
		const char *sub = srt_arena_printf(&m->doc->arena, "%s.%s", path, p->key->str);

		if (key_is(p->key, "container")) {
			if (!srt_ynode_is_null(p->value))
				container = p->value;
		} else if (key_is(p->key, "master_extra_args")) {
			if (srt_ynode_is_null(p->value))
				continue;
			if (p->value->kind != SRT_Y_SEQ)
				fail(m, p->value, sub, "must be a list of flags, not %s",
				     srt_ynode_describe(p->value));
			else
				extra = p->value;
		} else if (key_is(p->key, "env")) {
			if (srt_ynode_is_null(p->value))
				continue;
			if (p->value->kind != SRT_Y_MAP)
				fail(m, p->value, sub, "must be a mapping of NAME: value, not %s",
				     srt_ynode_describe(p->value));
			else
				*mc_env = (struct srt_ynode *)p->value;
		} else if (key_is(p->key, "default_kv_lease_ttl_ms")) {
			int64_t ms = -1;

			if (srt_ynode_is_null(p->value))
				continue;
			if (!srt_ynode_int(p->value, &ms) || ms < 0)
				fail(m, p->value, sub,
				     "must be a whole number of milliseconds (mooncake_master's "
				     "--default_kv_lease_ttl), not '%s'",
				     srt_ynode_str(p->value) ? srt_ynode_str(p->value) :
							       "a mapping or list");
			else
				lease = srt_arena_printf(&m->doc->arena,
							 "--default_kv_lease_ttl=%lld",
							 (long long)ms);
		} else {
			if (!options)
				options = srt_ynode_new_map(m->doc);
			if (!srt_ynode_is_null(p->value))
				set_copy(m, options, p->key->str, p->value);
			if (!key_is(p->key, "store_config"))
				warn(m, p->key, sub,
				     "kept as services[mooncake-master].options.%s; check that "
				     "srtctl supports it",
				     p->key->str);
		}
	}
	srt_ynode_map_set(m->doc, svc, "name", srt_ynode_new_str(m->doc, "mooncake-master", true));
	srt_ynode_map_set(m->doc, svc, "type", srt_ynode_new_str(m->doc, "mooncake-master", true));
	if (container)
		set_copy(m, svc, "container", container);
	args = srt_ynode_new_seq(m->doc);
	for (size_t i = 0; i < sizeof(v1_master_flags) / sizeof(v1_master_flags[0]); i++) {
		const char *f = v1_master_flags[i];

		/* srt-slurm passed the recipe's lease in place of its default one. */
		if (lease && !strncmp(f, "--default_kv_lease_ttl=", 23))
			f = lease;
		srt_ynode_seq_push(m->doc, args, srt_ynode_new_str(m->doc, f, true));
	}
	for (size_t i = 0; extra && i < extra->n; i++)
		srt_ynode_seq_push(m->doc, args, copy_node(m, extra->items[i]));
	srt_ynode_map_set(m->doc, svc, "args", args);
	warn(m, mc, path,
	     "srt-slurm started the master with %s %s %s %s before master_extra_args; they are "
	     "written first in services[mooncake-master].args so the master is tuned the same",
	     v1_master_flags[0], lease ? lease : v1_master_flags[1], v1_master_flags[2],
	     v1_master_flags[3]);
	if ((ded = dedicated_infra(s))) {
		struct srt_ynode *pl = srt_ynode_new_map(m->doc);

		srt_ynode_map_set(m->doc, pl, "node", srt_ynode_new_str(m->doc, "dedicated", true));
		srt_ynode_map_set(m->doc, svc, "placement", pl);
		warn(m, ded, kpath(m, s, "infra.etcd_nats_dedicated_node"),
		     "srt-slurm reserved an extra node for its infra services and ran the mooncake "
		     "master there; written as services[mooncake-master].placement.node: dedicated");
	}
	if (options && options->n)
		srt_ynode_map_set(m->doc, svc, "options", options);
	if (!s->services)
		s->services = srt_ynode_new_seq(m->doc);
	srt_ynode_seq_push(m->doc, s->services, svc);
}

/*
 * v1 built a worker's env as: backend.<mode>_environment, then the recipe's
 * top-level `environment` over it, then (with a store) the worker's own IP as
 * MOONCAKE_LOCAL_HOSTNAME, backend.mooncake_kv_store.env over that, and the
 * master's endpoints last.  v2 lets roles.<role>.env win over `environment`
 * and lets a role's MOONCAKE_LOCAL_HOSTNAME pin the NIC.  The helpers below
 * rewrite the role env so the migrated workers get the v1 values.
 */

/* A role-env variable that `environment` overrode in v1 is dropped from the role. */
static void apply_environment_precedence(struct mctx *m, struct section *s)
{
	const struct srt_ynode *top = srt_ynode_get(s->src, "environment");

	if (s->partial || !top || top->kind != SRT_Y_MAP)
		return;
	for (size_t j = 0; j < NMODES; j++) {
		struct srt_ynode *renv = s->roles[j] ? srt_ynode_get(s->roles[j], "env") : NULL;

		if (!renv || renv->kind != SRT_Y_MAP)
			continue;
		for (size_t i = 0; i < top->n; i++) {
			const char *name = top->pairs[i].key->str;
			const struct srt_ypair *rp = srt_ynode_get_pair(renv, name);

			if (!rp)
				continue;
			warn(m, rp->key,
			     kpath(m, s,
				   srt_arena_printf(&m->doc->arena, "backend.%s_environment.%s",
						    modes[j].backend, name)),
			     "v1 let environment.%s override this value, so it was never used; it is "
			     "left out of roles.%s.env (in v2 the role's value would win)",
			     name, modes[j].role);
			srt_ynode_map_del(renv, name);
		}
	}
}

static bool is_stamped(const char *name)
{
	return !strcmp(name, "MOONCAKE_MASTER") || !strcmp(name, "MOONCAKE_TE_META_DATA_SERVER") ||
	       !strcmp(name, "MOONCAKE_CONFIG_PATH");
}

/*
 * Add the mooncake env to each present role's env, over the role's own
 * values (v1 applied it last); drop what v1 always replaced.
 */
static void spread_mooncake_env(struct mctx *m, struct section *s, const struct srt_ynode *env)
{
	const char *epath = kpath(m, s, "backend.mooncake_kv_store.env");
	bool any = false;

	for (size_t i = 0; env && i < env->n; i++)
		if (is_stamped(env->pairs[i].key->str))
			warn(m, env->pairs[i].key,
			     srt_arena_printf(&m->doc->arena, "%s.%s", epath,
					      env->pairs[i].key->str),
			     "srt-slurm always replaced %s with its own value, as srtctl does; "
			     "left out",
			     env->pairs[i].key->str);
	for (size_t j = 0; j < NMODES; j++) {
		struct srt_ynode *r = s->roles[j];
		struct srt_ynode *renv;
		const struct srt_ypair *lh;

		if (!r || !r->n)
			continue;
		any = true;
		renv = srt_ynode_get(r, "env");
		if (renv && renv->kind != SRT_Y_MAP)
			continue; /* not a mapping: the validator reports it */
		lh = srt_ynode_get_pair(renv, "MOONCAKE_LOCAL_HOSTNAME");
		if (lh && !srt_ynode_get(env, "MOONCAKE_LOCAL_HOSTNAME")) {
			warn(m, lh->key,
			     kpath(m, s,
				   srt_arena_printf(&m->doc->arena,
						    "backend.%s_environment.MOONCAKE_LOCAL_HOSTNAME",
						    modes[j].backend)),
			     "v1 replaced this with each worker's own IP (only "
			     "mooncake_kv_store.env could pin it), so it is left out of roles.%s.env; "
			     "in v2 a role's MOONCAKE_LOCAL_HOSTNAME pins the NIC: add it back to "
			     "pin one",
			     modes[j].role);
			srt_ynode_map_del(renv, "MOONCAKE_LOCAL_HOSTNAME");
		}
		if (!env || !env->n)
			continue;
		if (!renv) {
			renv = srt_ynode_new_map(m->doc);
			srt_ynode_map_set(m->doc, r, "env", renv);
		}
		for (size_t i = 0; i < env->n; i++) {
			const struct srt_ypair *p = &env->pairs[i];
			const struct srt_ypair *own = srt_ynode_get_pair(renv, p->key->str);

			if (is_stamped(p->key->str))
				continue;
			if (own &&
			    !(own->value->kind == SRT_Y_SCALAR && p->value->kind == SRT_Y_SCALAR &&
			      own->value->len == p->value->len &&
			      !memcmp(own->value->str, p->value->str, p->value->len)))
				warn(m, own->key,
				     kpath(m, s,
					   srt_arena_printf(&m->doc->arena,
							    "backend.%s_environment.%s",
							    modes[j].backend, p->key->str)),
				     "v1 let backend.mooncake_kv_store.env.%s override this value; "
				     "roles.%s.env gets '%s' as the workers did",
				     p->key->str, modes[j].role,
				     p->value->kind == SRT_Y_SCALAR ? p->value->str :
								      "(not a string)");
			set_copy(m, renv, p->key->str, p->value);
		}
	}
	if (!any && env && env->n)
		fail(m, env, epath,
		     "no prefill, decode or aggregated settings to put this env on; add "
		     "resources.<mode>_nodes (or the env) for the roles that use the store");
}

/* ---- backend.connector ---- */

static bool is_none_connector(const struct srt_ynode *v)
{
	const char *t = srt_ynode_str(v);

	return !t || !*t || !strcasecmp(t, "null") || !strcasecmp(t, "none");
}

/* An args entry by its dash or underscore spelling. */
static const struct srt_ypair *args_pair(const struct srt_ynode *args, const char *dashed)
{
	for (size_t i = 0; args && args->kind == SRT_Y_MAP && i < args->n; i++)
		if (srt_str_eq_dashes(args->pairs[i].key->str, dashed))
			return &args->pairs[i];
	return NULL;
}

/* Set roles.<role>.args.<key> (creating args); false when args is not a mapping. */
static bool set_role_arg(struct mctx *m, struct section *s, size_t j, const char *key,
			 struct srt_ynode *v)
{
	struct srt_ynode *args = srt_ynode_get(s->roles[j], "args");

	if (!args) {
		args = srt_ynode_new_map(m->doc);
		srt_ynode_map_set(m->doc, s->roles[j], "args", args);
	}
	if (args->kind != SRT_Y_MAP)
		return false; /* the validator reports it */
	srt_ynode_map_set(m->doc, args, key, v);
	return true;
}

/*
 * vLLM: a role's connector (its args' `connector`, else backend.connector,
 * else srt-slurm's default nixl) becomes roles.<role>.args.kv-transfer-config
 * unless the role writes one (srt-slurm passed the role's after the
 * connector's, so the role's won).  null/none means no connector, written
 * as the role's `connector: none` (v2's default is nixl).
 */
static void vllm_connector(struct mctx *m, struct section *s, const struct srt_ypair *bc)
{
	const char *bpath = kpath(m, s, "backend.connector");
	const struct srt_ynode *backend = srt_ynode_get(s->src, "backend");
	const struct srt_ynode *where = backend ? backend : s->src;

	for (size_t j = 0; j < NMODES; j++) {
		struct srt_ynode *args;
		const struct srt_ypair *own, *ktc;
		const struct srt_ynode *conn, *at;
		const char *name, *json = NULL, *cpath;

		if (!s->roles[j] || !s->roles[j]->n)
			continue;
		args = srt_ynode_get(s->roles[j], "args");
		own = args_pair(args, "connector");
		conn = own && !srt_ynode_is_null(own->value) ? own->value : bc ? bc->value : NULL;
		at = own && conn == own->value ? own->key : bc ? bc->key : NULL;
		cpath = own && conn == own->value ?
				kpath(m, s,
				      srt_arena_printf(&m->doc->arena, "backend.vllm_config.%s.%s",
						       modes[j].backend, own->key->str)) :
				bpath;
		if (own)
			srt_ynode_map_del(args, own->key->str);
		if (conn && is_none_connector(conn)) {
			/* v2's default is nixl: say none where v1 had no connector. */
			if (!args_pair(args, "kv-transfer-config"))
				set_role_arg(m, s, j, "connector",
					     srt_ynode_new_str(m->doc, "none", false));
			continue;
		}
		name = conn ? srt_ynode_str(conn) : "nixl";
		if (conn && conn->kind != SRT_Y_SCALAR) {
			fail(m, conn, cpath, "must be a connector name or a JSON string, not %s",
			     srt_ynode_describe(conn));
			continue;
		}
		if ((ktc = args_pair(args, "kv-transfer-config"))) {
			if (conn)
				warn(m, ktc->key,
				     kpath(m, s,
					   srt_arena_printf(&m->doc->arena,
							    "backend.vllm_config.%s.%s",
							    modes[j].backend, ktc->key->str)),
				     "is kept, and connector '%s' is not written: srt-slurm passed "
				     "this --kv-transfer-config after the connector's, so it won",
				     name);
			continue;
		}
		if (!strcasecmp(name, "lmcache-mp")) {
			/* Kept by name: in v2 too it implies the lmcache-server beside the role. */
			set_role_arg(m, s, j, "connector",
				     srt_ynode_new_str(m->doc, "lmcache-mp", false));
			continue;
		}
		json = srt_launch_vllm_connector_json(name);
		if (!json && name[0] == '{')
			json = name; /* a raw JSON config, passed through as srt-slurm did */
		if (!json) {
			fail(m, at ? at : where, cpath,
			     "connector '%s' cannot be migrated: srtctl knows srt-slurm's vLLM "
			     "shorthands nixl, lmcache, lmcache-mp and kvbm (moriio needs router "
			     "wiring srtctl does not have), and srt-slurm passed any other "
			     "name verbatim as --kv-transfer-config, which vLLM rejects. Write "
			     "backend.vllm_config.%s.kv-transfer-config as JSON instead, e.g. "
			     "'{\"kv_connector\": \"MooncakeStoreConnector\", \"kv_role\": "
			     "\"kv_both\"}'",
			     name, modes[j].backend);
			continue;
		}
		if (!set_role_arg(m, s, j, "kv-transfer-config",
				  srt_ynode_new_str(m->doc, json, false)))
			continue;
		warn(m, at ? at : where, cpath,
		     "%s is written as roles.%s.args.kv-transfer-config: '%s', the "
		     "--kv-transfer-config srt-slurm gave these workers",
		     conn ? srt_arena_printf(&m->doc->arena, "connector '%s'", name) :
			    "backend.connector is not set; srt-slurm's vLLM default connector nixl",
		     modes[j].role, json);
	}
}

/*
 * SGLang: backend.connector names the prefill/decode KV transfer backend,
 * roles.<role>.args.disaggregation-transfer-backend (a role that sets it
 * keeps its own).
 */
static void sglang_connector(struct mctx *m, struct section *s, const struct srt_ypair *bc)
{
	const char *name = srt_ynode_str(bc->value);
	const char *bpath = kpath(m, s, "backend.connector");

	if (bc->value->kind != SRT_Y_SCALAR || is_none_connector(bc->value)) {
		if (!srt_ynode_is_null(bc->value) && !is_none_connector(bc->value))
			fail(m, bc->value, bpath, "must be a transfer backend name, not %s",
			     srt_ynode_describe(bc->value));
		return;
	}
	for (size_t j = 0; j < 2; j++) { /* prefill, decode */
		struct srt_ynode *args;
		const struct srt_ypair *own;

		if (!s->roles[j] || !s->roles[j]->n)
			continue;
		args = srt_ynode_get(s->roles[j], "args");
		own = args_pair(args, "disaggregation-transfer-backend");
		if (own) {
			const char *v = srt_ynode_str(own->value);

			if (!v || strcmp(v, name))
				warn(m, own->key,
				     kpath(m, s,
					   srt_arena_printf(&m->doc->arena,
							    "backend.sglang_config.%s.%s",
							    modes[j].backend, own->key->str)),
				     "is kept over backend.connector '%s' (the role's own flag)",
				     name);
			continue;
		}
		if (!set_role_arg(m, s, j, "disaggregation-transfer-backend",
				  copy_node(m, bc->value)))
			continue;
		warn(m, bc->key, bpath,
		     "'%s' is written as roles.%s.args.disaggregation-transfer-backend, the "
		     "flag SGLang reads it from",
		     name, modes[j].role);
	}
	if (s->roles[2] && s->roles[2]->n && !(s->roles[0] && s->roles[0]->n))
		warn(m, bc->key, bpath,
		     "an aggregated SGLang worker transfers no KV between workers; '%s' is not "
		     "written",
		     name);
}

static void move_connector(struct mctx *m, struct section *s, const struct srt_ynode *backend)
{
	const struct srt_ypair *bc = srt_ynode_get_pair(backend, "connector");
	bool vllm = !strcmp(s->engine, "vllm");

	if (!vllm && strcmp(s->engine, "sglang"))
		return;
	if (s->partial) {
		if (bc)
			fail(m, bc->key, kpath(m, s, "backend.connector"),
			     "a connector inside a zip_override section cannot be migrated; move "
			     "backend.connector to base: (or migrate this file by hand)");
		for (size_t j = 0; vllm && j < NMODES; j++) {
			const struct srt_ypair *own =
				args_pair(srt_ynode_get(s->roles[j], "args"), "connector");

			if (own)
				fail(m, own->key,
				     kpath(m, s,
					   srt_arena_printf(&m->doc->arena,
							    "backend.vllm_config.%s.%s",
							    modes[j].backend, own->key->str)),
				     "a connector inside a zip_override section cannot be migrated; "
				     "write the role's kv-transfer-config here instead (or move the "
				     "connector to base:)");
		}
		return;
	}
	if (vllm)
		vllm_connector(m, s, bc);
	else if (bc)
		sglang_connector(m, s, bc);
}

/* Everything under backend: roles, services and the engine. */

/*
 * backend.type as v2's engine.  In a zip section a null element deletes the
 * key from that variant, and srt-slurm then inferred the engine again from
 * the variant's backend (<engine>_config): that element becomes the engine
 * the section implies, since a v2 variant without an engine is invalid.
 */
static struct srt_ynode *engine_type(struct mctx *m, const struct section *s)
{
	struct srt_ynode *out = copy_node(m, s->type_node);

	if (out->kind != SRT_Y_SEQ)
		return out;
	for (size_t i = 0; i < out->n; i++)
		if (srt_ynode_is_null(out->items[i]))
			out->items[i] = srt_ynode_new_str(m->doc, s->engine, true);
	return out;
}
/*
 * backend.kv_events_config: v2's roles.<role>.kv_events, as srt-slurm
 * converts it.  A mapping keyed prefill / decode / aggregated gives each
 * role its value (true or a mapping); a bare true enables prefill and
 * decode, and agg too with SGLang; false or null, nothing.
 */
static void kv_events(struct mctx *m, struct section *s, const struct srt_ypair *p)
{
	const char *path = kpath(m, s, "backend.kv_events_config");
	bool on;

	if (srt_ynode_is_null(p->value))
		return;
	if (srt_ynode_bool(p->value, &on)) {
		s->kv_events_all = on;
		for (size_t j = 0; on && j < NMODES; j++)
			if (j != 2 || !strcmp(s->engine, "sglang"))
				to_role(m, s, j, "kv_events", p->value);
		return;
	}
	if (p->value->kind != SRT_Y_MAP) {
		fail(m, p->value, path,
		     "must be true, false or a mapping of prefill / decode / aggregated to true "
		     "or a mapping (publisher, topic), not %s",
		     srt_ynode_describe(p->value));
		return;
	}
	for (size_t i = 0; i < p->value->n; i++) {
		const struct srt_ypair *q = &p->value->pairs[i];
		size_t j = 0;

		while (j < NMODES && !key_is(q->key, modes[j].backend))
			j++;
		if (j == NMODES)
			fail(m, q->key, path,
			     "'%s' is not a mode; the keys are prefill, decode and aggregated",
			     q->key->str);
		else
			to_role(m, s, j, "kv_events", q->value);
	}
}

static void move_backend(struct mctx *m, struct section *s)
{
	const struct srt_ynode *backend = srt_ynode_get(s->src, "backend");
	struct srt_ynode *extras = srt_ynode_new_map(m->doc);
	const struct srt_ynode *mc = NULL;
	struct srt_ynode *mc_env = NULL;
	const char *bpath = kpath(m, s, "backend");

	if (backend && srt_ynode_is_null(backend))
		backend = NULL;
	if (backend && backend->kind != SRT_Y_MAP) {
		fail(m, backend, bpath, "must be a mapping, not %s", srt_ynode_describe(backend));
		return;
	}
	if (s->inferred) {
		char cfg[64];

		snprintf(cfg, sizeof(cfg), "%s_config", s->engine);
		if (srt_ynode_get(backend, cfg))
			warn(m, backend, bpath,
			     "backend.type is not set; inferred engine '%s' from backend.%s",
			     s->engine, cfg);
		else
			warn(m, backend ? backend : s->src, bpath,
			     "backend.type is not set and no engine config was found; assumed "
			     "engine 'sglang'");
	}
	for (size_t i = 0; backend && i < backend->n; i++) {
		const struct srt_ypair *p = &backend->pairs[i];
		bool done = false;

		for (size_t j = 0; j < NMODES && !done; j++) {
			char env[64], extra[64];

			snprintf(env, sizeof(env), "%s_environment", modes[j].backend);
			snprintf(extra, sizeof(extra), "%s_extra_args", modes[j].backend);
			done = true;
			if (key_is(p->key, env))
				to_role(m, s, j, "env", p->value);
			else if (key_is(p->key, extra))
				to_role(m, s, j, "extra_args", p->value);
			else
				done = false;
		}
		if (done || is_moved_backend_key(p->key, s->engine))
			continue;
		if (key_is(p->key, "use_sglang_router") && !strcmp(s->engine, "sglang")) {
			s->use_sglang_router = p->value; /* frontend.type: v1_frontend() */
			continue;
		}
		if (key_is(p->key, "kv_events_config")) {
			kv_events(m, s, p);
			continue;
		}
		/* An engine-wide key: stays with the engine. */
		set_copy(m, extras, p->key->str, p->value);
		if (strlen(p->key->str) > 7 &&
		    !strcmp(p->key->str + strlen(p->key->str) - 7, "_config"))
			warn(m, p->key,
			     kpath(m, s,
				   srt_arena_printf(&m->doc->arena, "backend.%s", p->key->str)),
			     "does not belong to engine '%s'; kept as engine option engine.%s",
			     s->engine, p->key->str);
	}
	if (backend)
		move_config(m, s, backend, extras);
	move_connector(m, s, backend);
	apply_environment_precedence(m, s);
	mc = srt_ynode_get(backend, "mooncake_kv_store");
	if (mc)
		move_mooncake(m, s, mc, &mc_env);
	if (mc && !srt_ynode_is_null(mc) && !s->partial && mc->kind == SRT_Y_MAP)
		spread_mooncake_env(m, s, mc_env);

	/* engine: a plain name, or {type: ..., <engine-wide keys>}. */
	if (!extras->n && !m->engine_as_map) {
		if (s->type_node)
			s->engine_out = engine_type(m, s);
		else if (!s->partial)
			s->engine_out = srt_ynode_new_str(m->doc, s->engine, true);
		return;
	}
	if (!s->type_node && s->partial && !extras->n)
		return;
	s->engine_out = srt_ynode_new_map(m->doc);
	if (s->type_node)
		srt_ynode_map_set(m->doc, s->engine_out, "type", engine_type(m, s));
	else if (!s->partial)
		srt_ynode_map_set(m->doc, s->engine_out, "type",
				  srt_ynode_new_str(m->doc, s->engine, true));
	for (size_t i = 0; i < extras->n; i++)
		srt_ynode_map_set(m->doc, s->engine_out, extras->pairs[i].key->str,
				  extras->pairs[i].value);
}

/* Does the role have workers of its own (resources gave it nodes, workers or GPUs)? */
static bool sized(const struct srt_ynode *role)
{
	return role && (srt_ynode_get(role, "nodes") || srt_ynode_get(role, "workers") ||
			srt_ynode_get(role, "gpus"));
}

/*
 * A v1 recipe is aggregated or disaggregated by its resources; what its
 * backend says for the other layout (aggregated_environment in a prefill /
 * decode recipe, kv_events_config: true's agg part, ...) configured
 * workers that never ran.  v2 would read it as a role of its own, so it is
 * dropped, with a warning.  Overrides are partial: left alone.
 */
static void drop_other_layout(struct mctx *m, struct section *s)
{
	bool pd = sized(s->roles[0]) || sized(s->roles[1]), agg = sized(s->roles[2]);

	if (s->partial || pd == agg)
		return;
	for (size_t j = 0; j < NMODES; j++) {
		if (!s->roles[j] || !s->roles[j]->n || (j == 2) == agg)
			continue;
		if (s->kv_events_all && s->roles[j]->n == 1 &&
		    srt_ynode_get(s->roles[j], "kv_events")) {
			s->roles[j] = NULL; /* true's part for the other layout: nothing was set */
			continue;
		}
		warn(m, srt_ynode_get(s->src, "backend"), kpath(m, s, "backend"),
		     "the %s settings (%s%s) are dropped: this recipe's resources make it %s, so "
		     "srt-slurm ran no %s workers",
		     modes[j].backend, s->roles[j]->pairs[0].key->str,
		     s->roles[j]->n > 1 ? ", ..." : "", agg ? "aggregated" : "disaggregated",
		     modes[j].backend);
		s->roles[j] = NULL;
	}
}

/* Order of the keys inside a role. */
static const char *const role_keys[] = { "nodes", "workers",	"gpus",	    "env",
					 "args",  "extra_args", "kv_events" };

static struct srt_ynode *ordered_role(struct mctx *m, const struct srt_ynode *r)
{
	struct srt_ynode *o = srt_ynode_new_map(m->doc);

	for (size_t i = 0; i < sizeof(role_keys) / sizeof(role_keys[0]); i++) {
		struct srt_ynode *v = srt_ynode_get(r, role_keys[i]);

		if (v)
			srt_ynode_map_set(m->doc, o, role_keys[i], v);
	}
	return o;
}

/* An integer engine flag in a role's args, by any of its spellings (dash or underscore). */
static int64_t arg_int(const struct srt_ynode *args, const char *const *names)
{
	for (size_t i = 0; args && args->kind == SRT_Y_MAP && i < args->n; i++) {
		const char *k = args->pairs[i].key->str;

		for (size_t j = 0; names[j]; j++) {
			size_t a = 0;
			int64_t v;

			while (k[a] && names[j][a] &&
			       (k[a] == names[j][a] || (k[a] == '_' && names[j][a] == '-')))
				a++;
			if (!k[a] && !names[j][a] && srt_ynode_int(args->pairs[i].value, &v) &&
			    v > 0)
				return v;
		}
	}
	return 0;
}

/*
 * v1 computed GPUs per worker itself when decode shared the prefill nodes;
 * v2 needs `gpus` on both roles then.  Take them from the engine's own
 * parallelism flags (tensor x pipeline parallel size) when they are written.
 */
static void infer_colocate_gpus(struct mctx *m, struct section *s)
{
	static const char *const tp[] = { "tensor-parallel-size", "tp-size", "tp", NULL };
	static const char *const pp[] = { "pipeline-parallel-size", "pp-size", "pp", NULL };
	const struct srt_ynode *nodes = s->roles[1] ? srt_ynode_get(s->roles[1], "nodes") : NULL;

	if (s->partial || !nodes || nodes->kind != SRT_Y_SCALAR || strcmp(nodes->str, "colocate"))
		return;
	for (size_t j = 0; j < 2; j++) {
		const struct srt_ynode *args;
		int64_t t, p;
		char buf[32];

		if (!s->roles[j] || srt_ynode_get(s->roles[j], "gpus"))
			continue;
		args = srt_ynode_get(s->roles[j], "args");
		t = arg_int(args, tp);
		if (!t)
			continue;
		p = arg_int(args, pp);
		snprintf(buf, sizeof(buf), "%lld", (long long)(t * (p ? p : 1)));
		srt_ynode_map_set(m->doc, s->roles[j], "gpus",
				  srt_ynode_new_str(m->doc, buf, true));
		warn(m, nodes, kpath(m, s, "resources.decode_nodes"),
		     "decode shares the prefill nodes, so v2 needs roles.%s.gpus: set to %s from "
		     "its tensor-parallel-size%s",
		     modes[j].role, buf, p ? " x pipeline-parallel-size" : "");
	}
}

/*
 * The migrated section: name, schema, model, resources, slurm, engine,
 * roles, services, then every other v1 key in its original order.
 */
/*
 * v1 `frontend.type: sglang` was the SGLang router; in v2 (srt-slurm 2.0)
 * `sglang` is one aggregated worker serving the port itself and the router
 * is `sglang-router`.  Write what v1 ran.
 */
static bool says_schema2(const struct srt_ynode *map)
{
	int64_t schema;

	return srt_ynode_int(srt_ynode_get(map, "schema"), &schema) && schema >= 2;
}

static void v1_router_type(struct mctx *m, const struct section *s, struct srt_ynode *out)
{
	struct srt_ynode *fe = (struct srt_ynode *)srt_ynode_get(out, "frontend");
	const struct srt_ynode *t = srt_ynode_get(fe, "type");
	const struct srt_ynode *root = m->v1->root;

	if (!t || t->kind != SRT_Y_SCALAR || !t->str || strcmp(t->str, "sglang"))
		return;
	/*
	 * A file that says `schema: 2` (at its top, in its section or in its
	 * base) already means 2.0's 'sglang', even in the v1 layout: srt-slurm
	 * keeps the old meaning for schema 1 only.  It stays 'sglang', and
	 * validate refuses it over several workers as srt-slurm does.
	 */
	if (says_schema2(s->src) || says_schema2(root) || says_schema2(srt_ynode_get(root, "base")))
		return;
	srt_ynode_map_set(m->doc, fe, "type", srt_ynode_new_str(m->doc, "sglang-router", false));
	warn(m, t, kpath(m, s, "frontend.type"),
	     "v1 'sglang' was the SGLang router; written as 'sglang-router' (in v2 'sglang' "
	     "is one aggregated worker without a router)");
}

/*
 * v1 appended frontend.args after its own --http-port and --request-plane.
 * srtctl owns those flags (validate refuses them in frontend.args): a value
 * that says what srtctl passes anyway goes; a different one stays for
 * validate to name, since which of the two v1 meant is the user's call.
 */
static void v1_dynamo_owned_args(struct mctx *m, const struct section *s, struct srt_ynode *out)
{
	struct srt_ynode *fe = (struct srt_ynode *)srt_ynode_get(out, "frontend");
	struct srt_ynode *args = (struct srt_ynode *)srt_ynode_get(fe, "args");
	const char *plane =
		srt_ynode_str(srt_ynode_get(srt_ynode_get(out, "dynamo"), "request_plane"));
	const struct srt_ynode *port = srt_ynode_get(fe, "port");
	char port_text[16];
	int64_t n = 8000;
	const struct {
		const char *flag, *same, *field;
	} owned[] = {
		{ "request-plane", plane ? plane : "tcp", "dynamo.request_plane" },
		{ "http-port", port_text, "frontend.port" },
	};

	if (!args || args->kind != SRT_Y_MAP)
		return;
	if (port && !srt_ynode_int(port, &n))
		n = -1;
	snprintf(port_text, sizeof(port_text), "%lld", (long long)n);
	for (size_t k = 0; k < sizeof(owned) / sizeof(owned[0]); k++) {
		const struct srt_ypair *p = args_pair(args, owned[k].flag);
		const char *v = p ? srt_ynode_str(p->value) : NULL;

		if (!v || strcmp(v, owned[k].same))
			continue;
		warn(m, p->key,
		     kpath(m, s, srt_arena_printf(&m->doc->arena, "frontend.args.%s", p->key->str)),
		     "srtctl passes the Dynamo frontend's --%s itself, from %s (%s here too); "
		     "the v1 argument is dropped",
		     owned[k].flag, owned[k].field, v);
		srt_ynode_map_del(args, p->key->str);
	}
}

/*
 * Under Dynamo's frontend v1 started etcd and NATS on the infra node (the
 * head, or its own node under infra.etcd_nats_dedicated_node) whatever the
 * planes.  v2 implies etcd only: write NATS (and a dedicated etcd) so the
 * migrated job runs the same services.
 */
static void v1_dynamo(struct mctx *m, const struct section *s, struct srt_ynode *out,
		      const struct srt_ynode *where)
{
	static const char *const kinds[] = { "etcd", "nats" };
	const struct srt_ynode *ded = dedicated_infra(s);
	struct srt_ynode *all = (struct srt_ynode *)srt_ynode_get(out, "services");

	v1_dynamo_owned_args(m, s, out);
	if (all && all->kind != SRT_Y_SEQ)
		return;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct srt_ynode *svc;
		bool declared = false;

		for (size_t i = 0; all && i < all->n; i++) {
			const char *name = srt_ynode_str(srt_ynode_get(all->items[i], "name"));

			if (name && !strcmp(name, kinds[k]))
				declared = true;
		}
		if (declared || (!ded && !strcmp(kinds[k], "etcd")))
			continue;
		svc = srt_ynode_new_map(m->doc);
		srt_ynode_map_set(m->doc, svc, "name", srt_ynode_new_str(m->doc, kinds[k], false));
		srt_ynode_map_set(m->doc, svc, "type", srt_ynode_new_str(m->doc, kinds[k], false));
		if (ded) {
			struct srt_ynode *pl = srt_ynode_new_map(m->doc);

			srt_ynode_map_set(m->doc, pl, "node",
					  srt_ynode_new_str(m->doc, "dedicated", false));
			srt_ynode_map_set(m->doc, svc, "placement", pl);
		}
		if (!all) {
			all = srt_ynode_new_seq(m->doc);
			srt_ynode_map_set(m->doc, out, "services", all);
		}
		srt_ynode_seq_push(m->doc, all, svc);
	}
	warn(m, where, kpath(m, s, "frontend"),
	     "v1 ran Dynamo's frontend with etcd and NATS on %s; written as frontend.type: "
	     "dynamo with a nats service%s (etcd is implied)",
	     ded ? "a node of their own" : "the head node",
	     ded ? " and an etcd service, both placement.node: dedicated" : "");
}

/*
 * A v1 recipe without frontend.type ran srt-slurm's default frontend, Dynamo's
 * (its FrontendConfig.type defaults to "dynamo"), unless the SGLang backend
 * said use_sglang_router: true, which ran the SGLang router in its place.
 * Write the router, or Dynamo's frontend with the services v1 ran for it.
 */
static void v1_frontend(struct mctx *m, const struct section *s, struct srt_ynode *out)
{
	struct srt_ynode *fe = (struct srt_ynode *)srt_ynode_get(out, "frontend");
	const struct srt_ynode *t = srt_ynode_get(fe, "type");
	bool router = false;

	if (s->partial)
		return;
	if (t && srt_ynode_str(t) && !strcmp(srt_ynode_str(t), "dynamo")) {
		v1_dynamo(m, s, out, t);
		return;
	}
	if (t && !srt_ynode_is_null(t))
		return;
	if (s->use_sglang_router && srt_ynode_bool(s->use_sglang_router, &router) && router) {
		if (!fe || fe->kind != SRT_Y_MAP) {
			fe = srt_ynode_new_map(m->doc);
			srt_ynode_map_set(m->doc, out, "frontend", fe);
		}
		srt_ynode_map_set(m->doc, fe, "type",
				  srt_ynode_new_str(m->doc, "sglang-router", false));
		warn(m, s->use_sglang_router, kpath(m, s, "backend.use_sglang_router"),
		     "v1 ran the SGLang router in place of Dynamo's frontend; written as "
		     "frontend.type: sglang-router");
		return;
	}
	if (s->use_sglang_router && !router)
		warn(m, s->use_sglang_router, kpath(m, s, "backend.use_sglang_router"),
		     "false is srt-slurm's default (Dynamo's frontend); dropped");
	if (!fe || fe->kind != SRT_Y_MAP) {
		fe = srt_ynode_new_map(m->doc);
		srt_ynode_map_set(m->doc, out, "frontend", fe);
	}
	srt_ynode_map_set(m->doc, fe, "type", srt_ynode_new_str(m->doc, "dynamo", false));
	v1_dynamo(m, s, out, s->src);
}

/* The worker nodes of migrated roles: each role's nodes (default 1; decode 0 shares). */
static int64_t worker_nodes(const struct srt_ynode *roles)
{
	int64_t total = 0;

	for (size_t i = 0; roles && roles->kind == SRT_Y_MAP && i < roles->n; i++) {
		const struct srt_ynode *n = srt_ynode_get(roles->pairs[i].value, "nodes");
		int64_t k = 1;

		if (n && !srt_ynode_int(n, &k))
			k = 1;
		if (k > 0 && k < 1000000)
			total += k;
	}
	return total;
}

/*
 * srt-slurm's frontend.enable_multiple_frontends defaults to true: on two or
 * more worker nodes its Dynamo frontend or router ran up to
 * num_additional_frontends + 1 times (default 10) behind nginx.  srtctl's
 * default is one frontend, so a v1 recipe that leaves the key out gets it
 * written, with a warning, when it has two or more worker nodes.
 */
static void v1_multiple_frontends(struct mctx *m, const struct section *s, struct srt_ynode *out)
{
	struct srt_ynode *fe = (struct srt_ynode *)srt_ynode_get(out, "frontend");
	const char *t = srt_ynode_str(srt_ynode_get(fe, "type"));
	const struct srt_ynode *at = srt_ynode_get(s->src, "frontend");

	if (s->partial || !fe || fe->kind != SRT_Y_MAP || !t ||
	    srt_ynode_get(fe, "enable_multiple_frontends"))
		return;
	if (strcmp(t, "dynamo") && strcmp(t, "sglang-router") && strcmp(t, "vllm-router"))
		return;
	if (worker_nodes(srt_ynode_get(out, "roles")) < 2)
		return;
	srt_ynode_map_set(m->doc, fe, "enable_multiple_frontends",
			  srt_ynode_new_str(m->doc, "true", true));
	warn(m, at ? at : s->src, kpath(m, s, "frontend.enable_multiple_frontends"),
	     "srt-slurm's default (true) is written out: on two or more worker nodes it ran "
	     "nginx on the head node in front of up to num_additional_frontends + 1 frontends "
	     "(default 10); srtctl's default is one frontend");
}

/*
 * v1 passed a role's `host` after srt-slurm's own --host 0.0.0.0 (the last
 * one wins).  srtctl sets --host itself (each worker binds its node's
 * address, which the router and the probes use), so the v1 value goes.
 */
static void v1_drop_host(struct mctx *m, struct section *s)
{
	for (size_t j = 0; j < NMODES; j++) {
		struct srt_ynode *args = (struct srt_ynode *)srt_ynode_get(s->roles[j], "args");
		const struct srt_ypair *p = args_pair(args, "host");

		if (!p)
			continue;
		warn(m, p->key,
		     kpath(m, s,
			   srt_arena_printf(&m->doc->arena, "roles.%s.args.%s", modes[j].role,
					    p->key->str)),
		     "srtctl sets --host itself (each worker binds its node's address); the v1 "
		     "value is dropped");
		srt_ynode_map_del(args, p->key->str);
	}
}

static struct srt_ynode *write_section(struct mctx *m, struct section *s)
{
	static const char *const handled[] = { "name",	"schema",  "model",   "resources",
					       "slurm", "backend", "services" };
	struct srt_ynode *out = srt_ynode_new_map(m->doc);
	const struct srt_ynode *v;
	struct srt_ynode *roles = NULL;

	out->line = s->src->line;
	out->col = s->src->col;
	if ((v = srt_ynode_get(s->src, "name")))
		set_copy(m, out, "name", v);
	if (!s->partial)
		srt_ynode_map_set(m->doc, out, "schema", srt_ynode_new_str(m->doc, "2", true));
	if ((v = srt_ynode_get(s->src, "model")))
		set_copy(m, out, "model", v);
	if (s->resources_out)
		srt_ynode_map_set(m->doc, out, "resources", s->resources_out);
	if ((v = srt_ynode_get(s->src, "slurm")))
		set_copy(m, out, "slurm", v);
	if (s->engine_out)
		srt_ynode_map_set(m->doc, out, "engine", s->engine_out);
	infer_colocate_gpus(m, s);
	v1_drop_host(m, s);
	drop_other_layout(m, s);
	for (size_t j = 0; j < NMODES; j++) {
		if (!s->roles[j] || !s->roles[j]->n)
			continue;
		if (!roles)
			roles = srt_ynode_new_map(m->doc);
		srt_ynode_map_set(m->doc, roles, modes[j].role, ordered_role(m, s->roles[j]));
	}
	if (roles)
		srt_ynode_map_set(m->doc, out, "roles", roles);
	if ((v = srt_ynode_get(s->src, "services"))) {
		/* Not a v1 key, but keep what is there ahead of the migrated entries. */
		struct srt_ynode *all = copy_node(m, v);

		if (all->kind == SRT_Y_SEQ && s->services) {
			for (size_t i = 0; i < s->services->n; i++)
				srt_ynode_seq_push(m->doc, all, s->services->items[i]);
		}
		srt_ynode_map_set(m->doc, out, "services", all);
	} else if (s->services) {
		srt_ynode_map_set(m->doc, out, "services", s->services);
	}
	for (size_t i = 0; i < s->src->n; i++) {
		const struct srt_ypair *p = &s->src->pairs[i];
		bool skip = false;

		for (size_t k = 0; k < sizeof(handled) / sizeof(handled[0]); k++)
			if (key_is(p->key, handled[k]))
				skip = true;
		if (!skip)
			set_copy(m, out, p->key->str, p->value);
	}
	v1_router_type(m, s, out);
	v1_frontend(m, s, out);
	v1_multiple_frontends(m, s, out);
	return out;
}

/* Migrate one recipe mapping (whole, or a zip_override's partial recipe). */
static struct srt_ynode *migrate_section(struct mctx *m, const struct srt_ynode *src,
					 const char *prefix, bool partial, const char *base_engine)
{
	struct section s = { 0 };
	const struct srt_ynode *backend;

	s.src = src;
	s.prefix = prefix;
	s.partial = partial;
	backend = srt_ynode_get(src, "backend");
	s.type_node = srt_ynode_get(backend, "type");
	if (srt_ynode_is_null(s.type_node))
		s.type_node = NULL; /* null: not set */
	s.engine = section_engine(backend, partial ? base_engine : NULL, &s.inferred);
	if (s.type_node && s.type_node->kind == SRT_Y_SCALAR && !partial) {
		const char *t = srt_ynode_str(s.type_node);

		if (!t || !is_known_engine(t))
			fail(m, s.type_node, kpath(m, &s, "backend.type"),
			     "unknown engine '%s'; use sglang, vllm, trtllm or mocker",
			     t ? t : "null");
	}
	move_resources(m, &s);
	move_backend(m, &s);
	return write_section(m, &s);
}

/* ---- sweep: ---- */

struct sweep_scan {
	const struct srt_ynode *keys; /* the sweep mapping */
	struct srt_buf found;	      /* "{k} at path, ..." */
	size_t nfound;
};

/* Collect the string scalars that hold a {key} of the sweep. */
static void scan_placeholders(struct mctx *m, struct sweep_scan *sc, const struct srt_ynode *n,
			      const char *path)
{
	if (!n)
		return;
	if (n->kind == SRT_Y_MAP) {
		for (size_t i = 0; i < n->n; i++)
			if (!key_is(n->pairs[i].key, "sweep"))
				scan_placeholders(m, sc, n->pairs[i].value,
						  *path ? srt_arena_printf(&m->doc->arena, "%s.%s",
									   path,
									   n->pairs[i].key->str) :
							  n->pairs[i].key->str);
		return;
	}
	if (n->kind == SRT_Y_SEQ) {
		for (size_t i = 0; i < n->n; i++)
			scan_placeholders(m, sc, n->items[i],
					  srt_arena_printf(&m->doc->arena, "%s[%zu]", path, i));
		return;
	}
	for (size_t i = 0; sc->keys && sc->keys->kind == SRT_Y_MAP && i < sc->keys->n; i++) {
		const char *ph =
			srt_arena_printf(&m->doc->arena, "{%s}", sc->keys->pairs[i].key->str);

		if (!n->str || !strstr(n->str, ph))
			continue;
		if (sc->nfound++ < 8)
			srt_buf_printf(&sc->found, "%s%s in %s", sc->nfound > 1 ? ", " : "", ph,
				       path);
	}
}

/*
 * A `sweep:` section made srt-slurm submit one job per combination of its
 * values, with {name} placeholders substituted.  srtctl runs one job per
 * recipe, so migrating it would run one job with literal braces: refuse.
 * (benchmark.concurrencies such as "4x8x16" or [4, 8, 16] is not a sweep:
 * sa-bench runs that load ladder inside one job, and it migrates as is.)
 */
static void check_sweep(struct mctx *m, const struct srt_ynode *root)
{
	const struct srt_ynode *sweep = NULL;
	const char *where = "sweep";
	struct sweep_scan sc = { 0 };
	struct srt_buf keys;

	if ((sweep = srt_ynode_get(root, "sweep")) == NULL && srt_variants_is_variant_doc(root)) {
		for (size_t i = 0; i < root->n && !sweep; i++) {
			sweep = srt_ynode_get(root->pairs[i].value, "sweep");
			where = srt_arena_printf(&m->doc->arena, "%s.sweep",
						 root->pairs[i].key->str);
		}
	}
	if (!sweep)
		return;
	srt_buf_init(&keys);
	srt_buf_init(&sc.found);
	sc.keys = sweep;
	for (size_t i = 0; sweep->kind == SRT_Y_MAP && i < sweep->n; i++)
		srt_buf_printf(&keys, "%s%s", i ? ", " : "", sweep->pairs[i].key->str);
	scan_placeholders(m, &sc, root, "");
	if (sc.nfound > 8)
		srt_buf_printf(&sc.found, " and %zu more", sc.nfound - 8);
	fail(m, sweep, where,
	     "srtctl cannot express a sweep inside a variant file: srt-slurm submitted one job "
	     "per combination of the sweep values, and a campaign sweeps one recipe. Sweep "
	     "keys: %s. Placeholders found: %s. Nothing was written. Split the variants into "
	     "files of their own (each with its sweep) and migrate each: srtctl then writes the "
	     "campaign (kind: Campaign) that runs the sweep",
	     keys.len ? keys.data : "(none: 'sweep' is not a mapping)",
	     sc.found.len ? sc.found.data : "none");
	srt_buf_release(&keys);
	srt_buf_release(&sc.found);
}

static void migrate_variants(struct mctx *m)
{
	const struct srt_ynode *root = m->v1->root;
	const struct srt_ynode *base = srt_ynode_get(root, "base");
	const char *base_engine = "sglang";
	struct srt_ynode *out;
	bool inferred;

	if (!base || base->kind != SRT_Y_MAP) {
		fail(m, base ? base : root, "base",
		     "a variant file needs 'base:' holding a whole recipe mapping");
		return;
	}
	base_engine = section_engine(srt_ynode_get(base, "backend"), NULL, &inferred);
	/* One mapping-form engine forces the mapping form everywhere. */
	for (size_t i = 0; i < root->n; i++) {
		const struct srt_ynode *sec = root->pairs[i].value;
		const struct srt_ynode *backend = srt_ynode_get(sec, "backend");
		bool base_sec = key_is(root->pairs[i].key, "base");

		if (sec->kind != SRT_Y_MAP)
			continue;
		if (needs_engine_map(backend, section_engine(backend, base_sec ? NULL : base_engine,
							     &inferred)))
			m->engine_as_map = true;
	}
	out = srt_ynode_new_map(m->doc);
	for (size_t i = 0; i < root->n; i++) {
		const struct srt_ypair *p = &root->pairs[i];
		const char *prefix = srt_arena_printf(&m->doc->arena, "%s.", p->key->str);

		if (key_is(p->key, "base")) {
			srt_ynode_map_set(m->doc, out, "base",
					  migrate_section(m, p->value, prefix, false, NULL));
		} else if ((srt_variants_key_kind(p->key->str) == SRT_VKEY_ZIP ||
			    srt_variants_key_kind(p->key->str) == SRT_VKEY_OVERRIDE) &&
			   p->value->kind == SRT_Y_MAP) {
			/* override_<name> (one recipe) and zip_override_<name> (one per
			 * list element) are both partial recipes over base. */
			srt_ynode_map_set(m->doc, out, p->key->str,
					  migrate_section(m, p->value, prefix, true, base_engine));
		} else {
			set_copy(m, out, p->key->str, p->value);
		}
	}
	m->doc->root = out;
}

struct srt_ydoc *srt_migrate_v1(const struct srt_ydoc *v1, struct srt_diags *diags)
{
	struct mctx m = { 0 };
	const struct srt_ynode *root = v1->root;
	const struct srt_ynode *marker = NULL;

	m.v1 = v1;
	m.diags = diags;
	m.errors_at_start = diags->nerrors;
	if (!root || root->kind != SRT_Y_MAP) {
		fail(&m, root, NULL, "a recipe must be a mapping, not %s; nothing to migrate",
		     root ? srt_ynode_describe(root) : "an empty document");
		goto out;
	}
	m.doc = srt_ydoc_new(v1->file);
	if (srt_variants_is_variant_doc(root)) {
		for (size_t i = 0; i < root->n && !marker; i++)
			marker = v2_marker(root->pairs[i].value);
	} else {
		marker = v2_marker(root);
	}
	if (marker) {
		fail(&m, marker, NULL,
		     "already in the v2 layout; nothing to migrate ('%s' is a v2 key)",
		     marker->str);
		goto out;
	}
	/* A whole recipe's sweep is carried over: the caller turns it into a
	 * campaign (srt_campaign_from_sweep()); a variant file's is refused. */
	if (srt_variants_is_variant_doc(root))
		check_sweep(&m, root);
	if (failed(&m))
		goto out;
	if (srt_variants_is_variant_doc(root))
		migrate_variants(&m);
	else
		m.doc->root = migrate_section(&m, root, "", false, NULL);
out:
	if (failed(&m)) {
		srt_ydoc_free(m.doc);
		m.doc = NULL;
	}
	return m.doc;
}
