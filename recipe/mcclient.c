/*
 * recipe/mcclient.c: TRT-LLM's Mooncake client config per role (see the header).
 *
 * How TRT-LLM reads the file (its mooncake_store connector config, the
 * refined API of NVIDIA/TensorRT-LLM#19706): sizes through parse_size with
 * strict units (an integer of bytes, or a number with B, KiB, MiB, GiB or
 * TiB; the decimal units are refused because vLLM reads GB as GiB), role one
 * of both, producer, consumer and capacity (stripped, any case),
 * transfer_batch_size through int(), stage_through_host as a truth value.
 */
#include "recipe/mcclient.h"

#include "util/strutil.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool srt_mcclient_reads(const struct srt_recipe *r, enum srt_role_kind k)
{
	return srt_recipe_master(r) && srt_role_trtllm_mooncake(r, k, NULL) &&
	       !srt_recipe_trtllm_pool(r);
}

const char *srt_mcclient_file(enum srt_role_kind k)
{
	switch (k) {
	case SRT_ROLE_PREFILL:
		return "mooncake/store_config_prefill.json";
	case SRT_ROLE_DECODE:
		return "mooncake/store_config_decode.json";
	case SRT_ROLE_AGG:
	default:
		return "mooncake/store_config_agg.json";
	}
}

static const char *default_role(enum srt_role_kind k)
{
	return k == SRT_ROLE_DECODE ? "capacity" : "both";
}

static void layer(json_t *out, const struct srt_ynode *map)
{
	json_t *j = map ? srt_ynode_to_json(map) : NULL;
	const char *key;
	json_t *val;

	if (json_is_object(j)) {
		json_object_foreach(j, key, val)
		{
			if (strcmp(key, "master_server_address"))
				json_object_set(out, key, val);
		}
	}
	json_decref(j);
}

json_t *srt_mcclient_render(const struct srt_recipe *r, enum srt_role_kind k,
			    const char *master_addr, const char *model_key)
{
	const struct srt_service *m = srt_recipe_master(r);
	json_t *out;

	if (!srt_mcclient_reads(r, k))
		return NULL;
	out = json_object();
	layer(out, m->store_config);
	layer(out, r->roles[k].mooncake_store_config);
	if (!json_object_get(out, "role"))
		json_object_set_new(out, "role", json_string(default_role(k)));
	if (!json_object_get(out, "model_key") && model_key)
		json_object_set_new(out, "model_key", json_string(model_key));
	json_object_set_new(out, "master_server_address", json_string(master_addr));
	return out;
}

/* ---- checks ---- */

struct mctx {
	const struct srt_recipe *r;
	struct srt_arena *a;
	struct srt_diags *d;
};

#define MC_ERR(c, n, path, ...)                                                  \
	srt_diags_add((c)->d, SRT_DIAG_ERROR, (c)->r->file, (n) ? (n)->line : 0, \
		      (n) ? (n)->col : 0, path, __VA_ARGS__)
#define MC_WARN(c, n, path, ...)                                                   \
	srt_diags_add((c)->d, SRT_DIAG_WARNING, (c)->r->file, (n) ? (n)->line : 0, \
		      (n) ? (n)->col : 0, path, __VA_ARGS__)

/* A size as TRT-LLM's parse_size reads it with strict units; NULL if fine, else why not. */
static const char *size_problem(struct srt_arena *a, const struct srt_ynode *n, double min)
{
	static const char *const binary[] = { "", "b", "kib", "mib", "gib", "tib", NULL };
	static const char *const decimal[] = { "k", "kb", "m", "mb", "g", "gb", "t", "tb", NULL };
	const char *s = srt_ynode_str(n), *p, *num, *num_end, *unit_at;
	char unit[8];
	size_t u = 0;
	double x = 0;

	switch (n->kind == SRT_Y_SCALAR ? srt_ynode_type(n) : SRT_YT_NULL) {
	case SRT_YT_INT:
	case SRT_YT_FLOAT:
		if (!srt_ynode_float(n, &x) || !isfinite(x))
			return "must be a finite size";
		break;
	case SRT_YT_STR:
		p = s;
		while (isspace((unsigned char)*p))
			p++;
		num = p;
		while (isdigit((unsigned char)*p))
			p++;
		if (p == num)
			goto bad;
		if (*p == '.') {
			if (!isdigit((unsigned char)p[1]))
				goto bad;
			p++;
			while (isdigit((unsigned char)*p))
				p++;
		}
		x = strtod(num, NULL);
		num_end = p;
		while (isspace((unsigned char)*p))
			p++;
		unit_at = p;
		while (isalpha((unsigned char)*p)) {
			if (u + 1 >= sizeof(unit))
				goto bad;
			unit[u++] = (char)tolower((unsigned char)*p++);
		}
		unit[u] = '\0';
		while (isspace((unsigned char)*p))
			p++;
		if (*p)
			goto bad;
		for (size_t i = 0; decimal[i]; i++)
			if (!strcmp(unit, decimal[i]))
				return srt_arena_printf(
					a,
					"'%s': '%.*s' is refused: TRT-LLM reads the Mooncake client "
					"config in binary units only (B, KiB, MiB, GiB, TiB); write "
					"e.g. \"%.*sGiB\"",
					s, (int)u, unit_at, (int)(num_end - num), num);
		for (size_t i = 0; binary[i]; i++)
			if (!strcmp(unit, binary[i]))
				goto range;
		goto bad;
	default:
		goto bad;
	}
range:
	if (x < min)
		return srt_arena_printf(a, "must be at least %.0f bytes", min);
	return NULL;
bad:
	return srt_arena_printf(a,
				"'%s' is not a size TRT-LLM reads: write an integer number of "
				"bytes or a number with B, KiB, MiB, GiB or TiB (e.g. \"16GiB\")",
				s ? s : srt_ynode_describe(n));
}

/* int(value) as Python reads it, then > 0; bools are refused. */
static bool positive_int(const struct srt_ynode *n)
{
	int64_t i;
	double x;
	const char *s;
	char *end;

	if (n->kind != SRT_Y_SCALAR)
		return false;
	switch (srt_ynode_type(n)) {
	case SRT_YT_INT:
		return srt_ynode_int(n, &i) && i > 0;
	case SRT_YT_FLOAT:
		return srt_ynode_float(n, &x) && isfinite(x) && x >= 1;
	case SRT_YT_STR:
		s = srt_ynode_str(n);
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			return false;
		i = (int64_t)strtoll(s, &end, 10);
		while (isspace((unsigned char)*end))
			end++;
		return !*end && end != s && i > 0;
	default:
		return false;
	}
}

/* A string stripped of blanks and lowered, in the arena. */
static const char *norm(struct srt_arena *a, const char *s)
{
	size_t n;
	char *out;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	out = srt_arena_alloc(a, n + 1);
	for (size_t i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[n] = '\0';
	return out;
}

/* A value as the user wrote it: 'text' for a scalar, else its kind. */
static const char *shown(struct srt_arena *a, const struct srt_ynode *n)
{
	if (n->kind == SRT_Y_SCALAR && srt_ynode_str(n))
		return srt_arena_printf(a, "'%s'", srt_ynode_str(n));
	return srt_ynode_describe(n);
}

/* Keys of one written mapping (the master's store_config or a role's). */
static void check_map(struct mctx *c, const struct srt_ynode *map, const char *where)
{
	/* Keys of args.kv_connector_config.mooncake_store (TRT-LLM launching its own pool). */
	static const char *const block_only[] = { "master_timeout",	   "run_dir",
						  "launch_master",	   "master_address_file",
						  "master_port",	   "master_metrics_port",
						  "master_eviction_ratio", NULL };
	static const char *const roles[] = { "both", "producer", "consumer", "capacity", NULL };

	for (size_t i = 0; map && i < map->n; i++) {
		const struct srt_ynode *k = map->pairs[i].key, *val = map->pairs[i].value;
		const char *key = k->str;
		const char *path = srt_arena_printf(c->a, "%s.%s", where, key);
		const char *why;

		for (size_t j = 0; block_only[j]; j++)
			if (!strcmp(key, block_only[j]))
				MC_ERR(c, k, path,
				       "'%s' configures TRT-LLM launching a pool of its own "
				       "(args.kv_connector_config.mooncake_store), not the client "
				       "config srtctl renders for its mooncake-master; remove it",
				       key);
		if (!strcmp(key, "segment_size")) {
			MC_ERR(c, k, path,
			       "'segment_size' is the donor's option; the client config lends "
			       "memory through global_segment_size: set global_segment_size");
		} else if (!strcmp(key, "pool")) {
			MC_ERR(c, k, path,
			       "'pool' names a pool manifest of TRT-LLM's own pool commands; the "
			       "mooncake-master service is this job's pool: drop it");
		} else if (!strcmp(key, "global_segment_size") ||
			   !strcmp(key, "local_buffer_size")) {
			why = size_problem(c->a, val, strcmp(key, "local_buffer_size") ? 0 : 1);
			if (why)
				MC_ERR(c, val, path, "%s %s", key, why);
		} else if (!strcmp(key, "transfer_batch_size")) {
			if (!positive_int(val))
				MC_ERR(c, val, path,
				       "transfer_batch_size must be a positive integer (e.g. 64), "
				       "not %s",
				       shown(c->a, val));
		} else if (!strcmp(key, "stage_through_host")) {
			if (val->kind == SRT_Y_SCALAR && srt_ynode_type(val) == SRT_YT_STR)
				MC_ERR(c, val, path,
				       "stage_through_host must be true or false, not the string "
				       "%s: TRT-LLM reads any non-empty string as true",
				       shown(c->a, val));
			else if (val->kind != SRT_Y_SCALAR || srt_ynode_type(val) == SRT_YT_NULL)
				MC_ERR(c, val, path,
				       "stage_through_host must be true or false, not %s",
				       shown(c->a, val));
		} else if (!strcmp(key, "role")) {
			const char *s = srt_ynode_type(val) == SRT_YT_STR ? srt_ynode_str(val) :
									    NULL;
			bool ok = false;

			for (size_t j = 0; s && roles[j]; j++)
				ok = ok || !strcmp(norm(c->a, s), roles[j]);
			if (!ok)
				MC_ERR(c, val, path,
				       "role must be both, producer, consumer or capacity, not %s "
				       "(a server that only lends memory is 'capacity')",
				       shown(c->a, val));
		} else if (!strcmp(key, "model_key")) {
			const char *s = srt_ynode_type(val) == SRT_YT_STR ? srt_ynode_str(val) :
									    NULL;

			if (!s || !*norm(c->a, s))
				MC_ERR(c, val, path,
				       "model_key must be a non-empty string (the name the pool "
				       "keys this model's blocks by), not %s",
				       shown(c->a, val));
		} else if (!strcmp(key, "master_server_address")) {
			MC_WARN(c, k, path,
				"is ignored: srtctl always sets it to the mooncake-master's address");
		}
	}
}

/* The value of key in role k's client config, as text (NULL when unset). */
static const char *effective(struct mctx *c, enum srt_role_kind k, const char *key,
			     const char *model_key)
{
	const struct srt_ynode *v = srt_ynode_get(c->r->roles[k].mooncake_store_config, key);
	const struct srt_service *m = srt_recipe_master(c->r);

	if (!v && m)
		v = srt_ynode_get(m->store_config, key);
	if (v && v->kind == SRT_Y_SCALAR && srt_ynode_str(v))
		return srt_ynode_str(v);
	if (!strcmp(key, "model_key") && model_key)
		return model_key;
	return NULL;
}

/* Keys every server of one pool must agree on. */
static void check_same(struct mctx *c, const char *model_key)
{
	static const char *const keys[] = { "protocol", "metadata_server", "model_key", NULL };
	const struct srt_recipe *r = c->r;

	for (size_t i = 0; keys[i]; i++) {
		int first = -1;

		for (int k = 0; k < SRT_ROLE_COUNT; k++) {
			const char *a, *b;
			const struct srt_ynode *at;

			if (!srt_mcclient_reads(r, (enum srt_role_kind)k))
				continue;
			if (first < 0) {
				first = k;
				continue;
			}
			a = effective(c, (enum srt_role_kind)first, keys[i], model_key);
			b = effective(c, (enum srt_role_kind)k, keys[i], model_key);
			if (srt_str_same(a, b))
				continue;
			at = srt_ynode_get(r->roles[k].mooncake_store_config, keys[i]);
			MC_ERR(c, at ? at : r->roles[k].node,
			       srt_arena_printf(c->a, "roles.%s.mooncake_store_config",
						r->roles[k].name),
			       "%s must be the same for every server of the pool (roles.%s: %s, "
			       "roles.%s: %s); set it once in the mooncake-master's "
			       "options.store_config",
			       keys[i], r->roles[first].name,
			       a ? srt_arena_printf(c->a, "'%s'", a) :
				   "not set (TRT-LLM's default)",
			       r->roles[k].name,
			       b ? srt_arena_printf(c->a, "'%s'", b) :
				   "not set (TRT-LLM's default)");
		}
	}
}

/* TRT-LLM without a mooncake-master: each connector role must find a client config of its own. */
static void check_own_pool(struct mctx *c)
{
	const struct srt_recipe *r = c->r;
	bool serve = r->frontend.type && !strcmp(r->frontend.type, "trtllm_serve");

	for (int k = 0; k < SRT_ROLE_COUNT; k++) {
		const struct srt_role *ro = &r->roles[k];
		const struct srt_ynode *block = NULL;
		const struct srt_ynode *rd;

		if (!srt_role_trtllm_mooncake(r, (enum srt_role_kind)k, &block))
			continue;
		if (srt_env_find(&ro->env, "MOONCAKE_CONFIG_PATH") ||
		    srt_env_find(&r->environment, "MOONCAKE_CONFIG_PATH"))
			continue;
		rd = block ? srt_ynode_get(block, "run_dir") : NULL;
		if (serve && rd && !srt_ynode_is_null(rd))
			continue;
		MC_ERR(c, ro->args,
		       srt_arena_printf(c->a, "roles.%s.args.kv_connector_config", ro->name),
		       "selects TRT-LLM's mooncake-store connector, but the role's ranks would not "
		       "find a Mooncake client config: add a mooncake-master service (srtctl then "
		       "renders one per role and sets MOONCAKE_CONFIG_PATH), or set "
		       "MOONCAKE_CONFIG_PATH in roles.%s.env to a config of your own%s",
		       ro->name,
		       serve ? ", or give args.kv_connector_config.mooncake_store a run_dir" : "");
	}
}

/* The protocol a role's mooncake_store block names (TRT-LLM's default rdma). */
static const char *block_protocol(const struct srt_recipe *r, enum srt_role_kind k)
{
	const struct srt_ynode *block = NULL, *v;

	if (!srt_role_trtllm_mooncake(r, k, &block) || !block)
		return "rdma";
	v = srt_ynode_get(block, "protocol");
	return v && srt_ynode_str(v) ? srt_ynode_str(v) : "rdma";
}

/*
 * TRT-LLM's own pool commands (srt_recipe_trtllm_pool()): the master's pool
 * options and the donors, and what does not go with them.
 */
static void check_pool(struct mctx *c)
{
	const struct srt_recipe *r = c->r;
	const struct srt_service *m = srt_recipe_master(r);
	bool pool = srt_recipe_trtllm_pool(r);

	if (m && (m->eviction_ratio > 0 || m->master_timeout_s > 0 || m->store_role) && !pool)
		MC_ERR(c, m->options,
		       srt_arena_printf(c->a, "services[%zu].options", (size_t)(m - r->services)),
		       "eviction_ratio, master_timeout_s and store_role are options of TRT-LLM's "
		       "own pool (trtllm-serve mooncake_master), which runs with engine trtllm and "
		       "a master srtctl launches; %s: remove them",
		       r->engine != SRT_ENGINE_TRTLLM ?
			       srt_arena_printf(c->a, "engine %s runs the upstream mooncake_master",
						srt_engine_name(r->engine)) :
			       "this master is external");
	if (pool && m->store_config)
		MC_ERR(c, m->store_config,
		       srt_arena_printf(c->a, "services[%zu].options.store_config",
					(size_t)(m - r->services)),
		       "TRT-LLM's pool commands render the client config themselves from each "
		       "role's args.kv_connector_config.mooncake_store; put these keys there, or "
		       "drop the pool options (and donors) to run the upstream master with "
		       "srtctl's client configs");
	for (int k = 0; pool && k < SRT_ROLE_COUNT; k++)
		if (r->roles[k].present && r->roles[k].mooncake_store_config)
			MC_ERR(c, r->roles[k].mooncake_store_config,
			       srt_arena_printf(c->a, "roles.%s.mooncake_store_config",
						r->roles[k].name),
			       "is the client config of the upstream master, but this recipe runs "
			       "TRT-LLM's own pool commands (the master's pool options, a donor, or "
			       "a mooncake_store block); put the keys in "
			       "roles.%s.args.kv_connector_config.mooncake_store",
			       r->roles[k].name);
	for (size_t i = 0; i < r->nservices; i++) {
		const struct srt_service *s = &r->services[i];
		const char *path = srt_arena_printf(c->a, "services[%zu]", i);
		const char *want;

		if (!s->enabled || s->type != SRT_SVC_MOONCAKE_DONOR)
			continue;
		if (!pool || !m) {
			MC_ERR(c, s->node, path,
			       "a mooncake-donor lends memory to TRT-LLM's own pool: it needs engine "
			       "trtllm and a mooncake-master service that srtctl launches%s",
			       r->engine != SRT_ENGINE_TRTLLM ?
				       srt_arena_printf(c->a, " (engine is %s)",
							srt_engine_name(r->engine)) :
			       !m ? "; add one" :
				    " (this one is external)");
			continue;
		}
		if (!s->donor_size)
			MC_ERR(c, s->options ? s->options : s->node,
			       srt_arena_printf(c->a, "%s.options", path),
			       "the donor needs options.size: the memory it lends to the pool (for "
			       "example 640GiB)");
		if (s->placement != SRT_PLACE_DECODE)
			MC_ERR(c, s->node, srt_arena_printf(c->a, "%s.placement", path),
			       "a mooncake-donor runs on the decode nodes (placement: {node: "
			       "decode}), where memory is free to lend; not on the %s nodes",
			       srt_placement_name(s->placement));
		else if (!r->roles[SRT_ROLE_DECODE].present)
			MC_ERR(c, s->node, srt_arena_printf(c->a, "%s.placement", path),
			       "a mooncake-donor runs on the decode nodes, but the recipe has no "
			       "decode role");
		want = block_protocol(r, SRT_ROLE_PREFILL);
		if (strcmp(s->donor_protocol ? s->donor_protocol : "rdma", want))
			MC_ERR(c,
			       srt_ynode_get(s->options, "protocol") ?
				       srt_ynode_get(s->options, "protocol") :
				       s->node,
			       srt_arena_printf(c->a, "%s.options.protocol", path),
			       "the donor lends over '%s' but the prefill workers' pool "
			       "(roles.prefill.args.kv_connector_config.mooncake_store.protocol) "
			       "uses '%s'; one pool has one transport: make them the same",
			       s->donor_protocol ? s->donor_protocol : "rdma", want);
	}
}

void srt_mcclient_check(const struct srt_recipe *r, const char *model_key, struct srt_arena *a,
			struct srt_diags *d)
{
	struct mctx c = { r, a, d };
	const struct srt_service *m = srt_recipe_master(r);
	bool any = false;

	check_pool(&c);

	for (int k = 0; k < SRT_ROLE_COUNT; k++) {
		const struct srt_role *ro = &r->roles[k];
		const char *path = srt_arena_printf(a, "roles.%s.mooncake_store_config", ro->name);
		bool conn = srt_role_trtllm_mooncake(r, (enum srt_role_kind)k, NULL);

		any = any || conn;
		if (!ro->present || !ro->mooncake_store_config)
			continue;
		if (r->engine != SRT_ENGINE_TRTLLM) {
			MC_ERR(&c, ro->mooncake_store_config, path,
			       "roles.%s.mooncake_store_config is read by TRT-LLM only (its "
			       "mooncake-store connector's client config); with engine %s configure "
			       "Mooncake through %s",
			       ro->name, srt_engine_name(r->engine),
			       r->engine == SRT_ENGINE_VLLM ?
				       "the mooncake-master's options.store_config" :
				       "the roles' args and env");
			continue;
		}
		if (!m)
			MC_ERR(&c, ro->mooncake_store_config, path,
			       "roles.%s.mooncake_store_config needs a mooncake-master service: "
			       "without one srtctl renders no client config and these keys would be "
			       "dropped; add the service, or remove the key",
			       ro->name);
		else if (!conn)
			MC_ERR(&c, ro->mooncake_store_config, path,
			       "roles.%s.mooncake_store_config is set, but roles.%s.args."
			       "kv_connector_config does not select the mooncake-store connector, "
			       "so its workers read no Mooncake client config; add {connector: "
			       "mooncake-store} or remove the key",
			       ro->name, ro->name);
		check_map(&c, ro->mooncake_store_config, path);
	}
	if (r->engine != SRT_ENGINE_TRTLLM)
		return;
	if (!m) {
		check_own_pool(&c);
		return;
	}
	if (!any)
		MC_ERR(&c, m->node, srt_arena_printf(a, "services[%zu]", (size_t)(m - r->services)),
		       "a mooncake-master service is configured but no roles: no TRT-LLM role's "
		       "args.kv_connector_config selects the mooncake-store connector, so nothing "
		       "uses the master. Add 'kv_connector_config: {connector: mooncake-store}' "
		       "to roles.prefill.args and roles.decode.args, or remove the service.");
	/* With a donor, decode lends its memory through the donor instead. */
	if (any && r->roles[SRT_ROLE_PREFILL].present && r->roles[SRT_ROLE_DECODE].present &&
	    !(srt_recipe_trtllm_pool(r) && srt_recipe_service_of(r, SRT_SVC_MOONCAKE_DONOR)) &&
	    srt_role_trtllm_mooncake(r, SRT_ROLE_PREFILL, NULL) !=
		    srt_role_trtllm_mooncake(r, SRT_ROLE_DECODE, NULL)) {
		const struct srt_role *lacks =
			&r->roles[srt_role_trtllm_mooncake(r, SRT_ROLE_PREFILL, NULL) ?
					  SRT_ROLE_DECODE :
					  SRT_ROLE_PREFILL];

		MC_WARN(&c, lacks->args ? lacks->args : lacks->node,
			srt_arena_printf(a, "roles.%s.args", lacks->name),
			"has no 'kv_connector_config' that selects the mooncake-store connector "
			"while the other role has it: its workers neither read from nor lend "
			"memory to the pool. Add {connector: mooncake-store} here too if they "
			"should.");
	}
	if (m->store_config)
		check_map(&c, m->store_config,
			  srt_arena_printf(a, "services[%zu].options.store_config",
					   (size_t)(m - r->services)));
	check_same(&c, model_key);
}
