/*
 * recipe/parse.c: YAML tree -> struct srt_recipe.
 *
 * This file owns the shape of a recipe: which keys exist in each section
 * srtctl models, their types, enums and defaults.  It reports every problem
 * it finds (it never stops at the first) with the node's position and key
 * path, and suggests the intended key for typos.  Cross-field rules (which
 * need the whole recipe) are in validate.c.
 *
 * A key srtctl does not take is checked against srt-slurm's recipe model
 * (recipe/schema_keys.h): one srt-slurm accepts is kept in the spec with a
 * warning that srtctl ignores it; one neither accepts is an error with a
 * did-you-mean.  Key lookups use sorted tables, so a mapping of n keys costs
 * O(n log m), never n * m.
 */
#include "recipe/model.h"
#include "recipe/schema_keys.h"
#include "recipe/script.h"
#include "runplan/plan.h"
#include "runplan/runplan.h"
#include "util/strutil.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct pctx {
	struct srt_ydoc *doc;
	struct srt_arena *a;
	struct srt_diags *d;
};

/*
 * Why srtctl does not take a key: for a key srt-slurm accepts, the warning's
 * text; for one it does not (the v1 layout, ...), the error's.
 */
/*
 * TRT-LLM's own Mooncake pool commands (trtllm-serve mooncake_master and
 * mooncake_donor, the master's pool options, the donor service) are a
 * different integration from the one srtctl runs for TRT-LLM: the upstream
 * mooncake_master and a client config per role (roles.<role>.mooncake_store_config).
 */
#define TRTLLM_MOONCAKE                                                                         \
	"TRT-LLM's own Mooncake pool commands (trtllm-serve mooncake_master and "               \
	"mooncake_donor), which srtctl does not run; srtctl runs the upstream mooncake_master " \
	"and gives each TRT-LLM role a client config (roles.<role>.mooncake_store_config "      \
	"over the master's options.store_config): remove it, or run this recipe with srt-slurm"

struct hint {
	const char *key;
	const char *text;
};

static void vdiag(struct pctx *c, enum srt_diag_level lvl, const struct srt_ynode *n,
		  const char *path, const char *fmt, va_list ap)
{
	srt_diags_vadd(c->d, lvl, c->doc->file, n ? n->line : 0, n ? n->col : 0, path, fmt, ap);
}

static void err(struct pctx *c, const struct srt_ynode *n, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void warn(struct pctx *c, const struct srt_ynode *n, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void err(struct pctx *c, const struct srt_ynode *n, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(c, SRT_DIAG_ERROR, n, path, fmt, ap);
	va_end(ap);
}

static void warn(struct pctx *c, const struct srt_ynode *n, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(c, SRT_DIAG_WARNING, n, path, fmt, ap);
	va_end(ap);
}

static const char *join(struct pctx *c, const char *parent, const char *key)
{
	if (!parent || !*parent)
		return srt_arena_strdup(c->a, key);
	return srt_arena_printf(c->a, "%s.%s", parent, key);
}

static const char *idx(struct pctx *c, const char *parent, size_t i)
{
	return srt_arena_printf(c->a, "%s[%zu]", parent, i);
}

static bool in_list(const char *s, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

static void join_list(char *out, size_t outsz, const char *const *list)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; list[i] && used + 1 < outsz; i++) {
		int n = snprintf(out + used, outsz - used, "%s%s", i ? ", " : "", list[i]);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Report keys of `map` outside `allowed`: a key of srt-slurm's `section` is
 * ignored with a warning (its hint, when there is one, says why); any other
 * is an error (its hint, or a did-you-mean over `allowed`).
 */
static void check_keys(struct pctx *c, const struct srt_ynode *map, const char *path,
		       const char *const *allowed, const struct hint *hints,
		       enum srt_schema_section section)
{
	const char *sorted[64];
	size_t na = 0;

	while (allowed[na] && na < sizeof(sorted) / sizeof(sorted[0])) {
		sorted[na] = allowed[na];
		na++;
	}
	qsort(sorted, na, sizeof(sorted[0]), cmp_str);
	for (size_t i = 0; i < map->n; i++) {
		const struct srt_ynode *k = map->pairs[i].key;
		const char *key = k->str;
		const char *kpath;
		const char *hint = NULL, *sugg;
		char list[1024];

		if (bsearch(&key, sorted, na, sizeof(sorted[0]), cmp_str))
			continue;
		kpath = join(c, path, key);
		for (size_t h = 0; hints && hints[h].key; h++)
			if (!strcmp(hints[h].key, key))
				hint = hints[h].text;
		if (srt_schema_has_key(section, key)) {
			if (hint)
				warn(c, k, kpath, "%s; ignored (kept in the spec for srt-slurm)",
				     hint);
			else
				warn(c, k, kpath,
				     "'%s' is a srt-slurm setting srtctl does not use; ignored (kept "
				     "in the spec)",
				     key);
			continue;
		}
		if (hint) {
			err(c, k, kpath, "%s", hint);
			continue;
		}
		sugg = srt_did_you_mean(key, allowed);
		if (!sugg)
			sugg = srt_did_you_mean(key, srt_schema_keys(section, NULL));
		if (sugg) {
			err(c, k, kpath, "unknown key '%s'; did you mean '%s'?", key, sugg);
		} else {
			join_list(list, sizeof(list), allowed);
			if (*srt_schema_keys(section, NULL))
				err(c, k, kpath,
				    "unknown key '%s'; srtctl reads %s here, and keeps (ignoring "
				    "them) the other keys srt-slurm's schema has here",
				    key, list);
			else
				err(c, k, kpath, "unknown key '%s'; expected one of: %s", key,
				    list);
		}
	}
}

/* A mapping or list longer than srtctl takes (model.h): one error at it. */
static bool too_many(struct pctx *c, const struct srt_ynode *n, const char *path, size_t max,
		     const char *what)
{
	if (n->n <= max)
		return false;
	err(c, n, path,
	    "has %zu %s; a recipe may have at most %zu (see Limits in docs/recipe-reference.md)",
	    n->n, what, max);
	return true;
}

static bool want_map(struct pctx *c, const struct srt_ynode *n, const char *path)
{
	if (n && n->kind == SRT_Y_MAP)
		return true;
	err(c, n, path, "must be a mapping (key: value lines), not %s", srt_ynode_describe(n));
	return false;
}

static bool want_seq(struct pctx *c, const struct srt_ynode *n, const char *path)
{
	if (n && n->kind == SRT_Y_SEQ)
		return true;
	err(c, n, path, "must be a list, not %s", srt_ynode_describe(n));
	return false;
}

/* A scalar as text; numbers and booleans keep their written form. */
static bool want_str(struct pctx *c, const struct srt_ynode *n, const char *path, const char **out)
{
	if (!n || n->kind != SRT_Y_SCALAR || srt_ynode_is_null(n)) {
		err(c, n, path, "must be a string, not %s", srt_ynode_describe(n));
		return false;
	}
	if (strlen(n->str) != n->len) {
		err(c, n, path, "contains a NUL byte, which no process can receive");
		return false;
	}
	*out = n->str;
	return true;
}

static bool want_int(struct pctx *c, const struct srt_ynode *n, const char *path, int *out, int min,
		     int max)
{
	int64_t v;

	if (!srt_ynode_int(n, &v)) {
		if (srt_ynode_type(n) == SRT_YT_INT) /* too large for 64 bits */
			err(c, n, path, "must be between %d and %d, not %s", min, max, n->str);
		else
			err(c, n, path, "must be an integer, not %s", srt_ynode_describe(n));
		return false;
	}
	if (v < min || v > max) {
		err(c, n, path, "must be between %d and %d, not %lld", min, max, (long long)v);
		return false;
	}
	*out = (int)v;
	return true;
}

static bool want_bool(struct pctx *c, const struct srt_ynode *n, const char *path, bool *out)
{
	if (!srt_ynode_bool(n, out)) {
		err(c, n, path, "must be true or false, not %s", srt_ynode_describe(n));
		return false;
	}
	return true;
}

/* Optional string field of a mapping. */
static void opt_str(struct pctx *c, const struct srt_ynode *map, const char *path, const char *key,
		    const char **out)
{
	const struct srt_ynode *v = srt_ynode_get(map, key);

	if (v && !srt_ynode_is_null(v))
		want_str(c, v, join(c, path, key), out);
}

static void opt_int(struct pctx *c, const struct srt_ynode *map, const char *path, const char *key,
		    int *out, int min, int max)
{
	const struct srt_ynode *v = srt_ynode_get(map, key);

	if (v && !srt_ynode_is_null(v))
		want_int(c, v, join(c, path, key), out, min, max);
}

static void opt_bool(struct pctx *c, const struct srt_ynode *map, const char *path, const char *key,
		     bool *out)
{
	const struct srt_ynode *v = srt_ynode_get(map, key);

	if (v && !srt_ynode_is_null(v))
		want_bool(c, v, join(c, path, key), out);
}

static void parse_env(struct pctx *c, const struct srt_ynode *n, const char *path,
		      struct srt_env *env)
{
	if (srt_ynode_is_null(n))
		return;
	if (!want_map(c, n, path) ||
	    too_many(c, n, path, SRT_RECIPE_MAX_ENV, "environment variables"))
		return;
	env->v = srt_arena_alloc(c->a, (n->n ? n->n : 1) * sizeof(*env->v));
	for (size_t i = 0; i < n->n; i++) {
		const struct srt_ynode *k = n->pairs[i].key;
		const struct srt_ynode *v = n->pairs[i].value;
		const char *vpath = join(c, path, k->str);
		struct srt_env_var *e;

		if (!srt_is_env_name(k->str)) {
			err(c, k, vpath,
			    "'%s' is not a valid environment variable name (letters, digits and "
			    "'_', not starting with a digit)",
			    k->str);
			continue;
		}
		if (v->kind != SRT_Y_SCALAR) {
			err(c, v, vpath, "an environment value must be a string, not %s",
			    srt_ynode_describe(v));
			continue;
		}
		if (srt_ynode_is_null(v)) {
			err(c, v, vpath,
			    "has no value; write %s: \"\" for an empty value, or remove the line",
			    k->str);
			continue;
		}
		if (strlen(v->str) != v->len) {
			err(c, v, vpath, "contains a NUL byte, which no process can receive");
			continue;
		}
		e = &env->v[env->n++];
		e->name = k->str;
		e->value = v->str;
		e->node = v;
	}
}

/* A list of scalars as argv words. */
static void parse_argv(struct pctx *c, const struct srt_ynode *n, const char *path,
		       struct srt_argv *argv)
{
	if (srt_ynode_is_null(n))
		return;
	if (n->kind != SRT_Y_SEQ) {
		err(c, n, path, "must be a list of strings (e.g. [\"--flag\", \"value\"]), not %s",
		    srt_ynode_describe(n));
		return;
	}
	if (too_many(c, n, path, SRT_RECIPE_MAX_ARGS, "entries"))
		return;
	argv->v = srt_arena_alloc(c->a, (n->n ? n->n : 1) * sizeof(*argv->v));
	for (size_t i = 0; i < n->n; i++) {
		const struct srt_ynode *it = n->items[i];

		if (it->kind != SRT_Y_SCALAR || srt_ynode_is_null(it)) {
			err(c, it, idx(c, path, i), "must be a string, not %s",
			    srt_ynode_describe(it));
			continue;
		}
		if (strlen(it->str) != it->len) {
			err(c, it, idx(c, path, i),
			    "contains a NUL byte, which no process can receive");
			continue;
		}
		argv->v[argv->n++] = it->str;
	}
}

static void restart_defaults(struct srt_restart_policy *p, enum srt_restart_mode mode)
{
	p->mode = mode;
	p->max_restarts = SRT_RESTART_MAX_DEFAULT;
	p->backoff_seconds = SRT_RESTART_BACKOFF_DEFAULT;
	p->max_backoff_seconds = SRT_RESTART_BACKOFF_MAX_DEFAULT;
	p->reset_after_seconds = SRT_RESTART_RESET_DEFAULT;
}

static bool parse_restart_mode(struct pctx *c, const struct srt_ynode *n, const char *path,
			       enum srt_restart_mode *out)
{
	static const char *const modes[] = { "never", "on-failure", "always", NULL };
	const char *s = NULL;
	const char *sugg;

	if (!want_str(c, n, path, &s))
		return false;
	if (!strcmp(s, "never"))
		*out = SRT_RESTART_NEVER;
	else if (!strcmp(s, "on-failure") || !strcmp(s, "on_failure"))
		*out = SRT_RESTART_ON_FAILURE;
	else if (!strcmp(s, "always"))
		*out = SRT_RESTART_ALWAYS;
	else {
		sugg = srt_did_you_mean(s, modes);
		err(c, n, path,
		    "unknown restart policy '%s'%s%s%s; expected never, on-failure or always", s,
		    sugg ? " (did you mean '" : "", sugg ? sugg : "", sugg ? "'?)" : "");
		return false;
	}
	return true;
}

static void parse_restart(struct pctx *c, const struct srt_ynode *n, const char *path,
			  struct srt_restart_policy *p)
{
	static const char *const keys[] = { "policy",
					    "max_restarts",
					    "backoff_seconds",
					    "max_backoff_seconds",
					    "reset_after_seconds",
					    NULL };
	const struct srt_ynode *v;

	if (srt_ynode_is_null(n))
		return;
	if (n->kind == SRT_Y_SCALAR) {
		parse_restart_mode(c, n, path, &p->mode);
		return;
	}
	if (!want_map(c, n, path))
		return;
	check_keys(c, n, path, keys, NULL, SRT_SCHEMA_RESTART);
	v = srt_ynode_get(n, "policy");
	if (v)
		parse_restart_mode(c, v, join(c, path, "policy"), &p->mode);
	opt_int(c, n, path, "max_restarts", &p->max_restarts, 0, 1000000);
	opt_int(c, n, path, "backoff_seconds", &p->backoff_seconds, 0, 86400);
	opt_int(c, n, path, "max_backoff_seconds", &p->max_backoff_seconds, 0, 86400);
	opt_int(c, n, path, "reset_after_seconds", &p->reset_after_seconds, 0, 86400 * 30);
	if (p->max_backoff_seconds < p->backoff_seconds)
		err(c, n, path,
		    "max_backoff_seconds (%d) is smaller than backoff_seconds (%d); raise it",
		    p->max_backoff_seconds, p->backoff_seconds);
}

/*
 * A recipe or service name against the one name rule (model.h).  `n` is the
 * name's node, or NULL when the name is the file's (a recipe without `name`).
 */
static void check_name(struct pctx *c, const struct srt_ynode *n, const char *path,
		       const char *name, const char *use)
{
	char buf[64];
	const char *why = name ? srt_name_problem(name, buf, sizeof(buf)) : NULL;

	if (!why)
		return;
	if (n)
		err(c, n, path, "'%s' is not a valid name: %s; %s (%s)", name, why, SRT_NAME_RULE,
		    use);
	else
		err(c, n, path,
		    "the recipe has no 'name', and its file name '%s' is not a valid name: %s; "
		    "%s (%s). Add 'name: ...'",
		    name, why, SRT_NAME_RULE, use);
}

/* ---- engine ---- */

/* The mocker knob named `key` (srt_mocker_knobs()), or NULL. */
static const struct srt_mocker_knob *mocker_knob(const char *key)
{
	const struct srt_mocker_knob *k = srt_mocker_knobs();

	for (size_t i = 0; i < SRT_MOCKER_NKNOBS; i++)
		if (!strcmp(k[i].key, key))
			return &k[i];
	return NULL;
}

/* d as Python's str(float) writes it (100.0, 0.25, 1e-05): what srt-slurm passes. */
static const char *py_float(struct pctx *c, double d)
{
	char buf[64];

	if (d == (double)(long long)d && d > -1e16 && d < 1e16)
		return srt_arena_printf(c->a, "%.1f", d);
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	return srt_arena_strdup(c->a, buf);
}

/*
 * engine: {type: mocker, <knob>: ...}: each knob checked against its type
 * and dynamo.mocker's choices, kept as the text its flag takes.
 */
static void parse_mocker(struct pctx *c, struct srt_recipe *r, const struct srt_ynode *n)
{
	const struct srt_mocker_knob *k = srt_mocker_knobs();

	for (size_t i = 0; i < SRT_MOCKER_NKNOBS; i++) {
		const struct srt_ynode *v = srt_ynode_get(n, k[i].key);
		const char *path = join(c, "engine", k[i].key), *str, *shown;
		int64_t iv;
		double dv;
		char *end;
		bool bv;

		if (!v || srt_ynode_is_null(v))
			continue;
		/* What the value was, for a message: its text, else what kind of node. */
		shown = v->kind != SRT_Y_SCALAR || !v->str ? srt_ynode_describe(v) :
			*v->str				   ? v->str :
							     "an empty string";
		switch (k[i].type) {
		case SRT_KNOB_STR:
			if (!want_str(c, v, path, &str))
				break;
			if (k[i].choices && !in_list(str, k[i].choices)) {
				char list[256];

				join_list(list, sizeof(list), k[i].choices);
				err(c, v, path, "'%s' is not one of %s (dynamo.mocker's %s)", str,
				    list, k[i].flag);
				break;
			}
			r->mocker[i] = str;
			break;
		case SRT_KNOB_INT:
			if (!srt_ynode_int(v, &iv) || iv < 1 || iv > 1000000000) {
				err(c, v, path, "must be an integer from 1 to 1000000000, not %s",
				    shown);
				break;
			}
			r->mocker[i] = srt_arena_printf(c->a, "%lld", (long long)iv);
			break;
		case SRT_KNOB_FLOAT:
			end = NULL;
			dv = 0;
			errno = 0;
			if (v->kind == SRT_Y_SCALAR && v->str && *v->str)
				dv = strtod(v->str, &end);
			if (!end || *end || errno || !isfinite(dv) || dv < 0 || dv > 1e12) {
				err(c, v, path, "must be a number from 0 to 1e12, not %s", shown);
				break;
			}
			r->mocker[i] = py_float(c, dv);
			break;
		case SRT_KNOB_BOOL:
			if (want_bool(c, v, path, &bv))
				r->mocker[i] = bv ? "true" : "false";
			break;
		}
	}
}

/*
 * engine.dp_launch_mode (vLLM): srtctl starts one process per node of a
 * data-parallel worker, with the node's ranks (--data-parallel-size-local),
 * which is srt-slurm's default per_node; per_gpu, its deprecated layout of
 * one process per GPU, is not run.
 */
static void dp_launch_mode(struct pctx *c, const struct srt_ynode *v, const char *path)
{
	const char *mode;

	if (!want_str(c, v, path, &mode))
		return;
	if (!strcmp(mode, "per_gpu"))
		warn(c, v, path,
		     "srtctl launches vLLM's data-parallel ranks per node (one process per node "
		     "with --data-parallel-size-local, srt-slurm's default per_node); per_gpu is "
		     "ignored");
	else if (strcmp(mode, "per_node"))
		err(c, v, path, "'%s' is not a DP launch mode; expected per_node or per_gpu", mode);
}

/*
 * An engine written as `sglang` or `{type: sglang, knobs...}` at `base`
 * ("engine", or "roles.<role>.engine"): its enum (SRT_ENGINE_UNSET after
 * an error, which is reported) and, in *name, its spelling.
 */
static enum srt_engine_type read_engine(struct pctx *c, const struct srt_ynode *n, const char *base,
					const char **name)
{
	static const char *const engines[] = { "sglang", "vllm", "trtllm", "mocker", NULL };
	static const char *const unsupported[] = { "atom", "tokenspeed", NULL };
	const struct srt_ynode *tn = n;
	const char *s = NULL, *path = base, *sugg;

	*name = NULL;
	if (n->kind == SRT_Y_MAP) {
		path = join(c, base, "type");
		tn = srt_ynode_get(n, "type");
		if (!tn) {
			err(c, n, base,
			    "the engine mapping needs a 'type' (sglang, vllm or trtllm)");
			return SRT_ENGINE_UNSET;
		}
		const char *t = srt_ynode_str(tn);

		for (size_t i = 0; i < n->n; i++) {
			const char *k = n->pairs[i].key->str;

			/* vLLM's connector: recipe/launch.h, srt_launch_vllm_connector(). */
			if (!strcmp(k, "connector") && t && !strcmp(t, "vllm") &&
			    !strcmp(base, "engine"))
				continue;
			/* The mocker's knobs: parse_mocker(). */
			if (t && !strcmp(t, "mocker") && !strcmp(base, "engine") && mocker_knob(k))
				continue;
			/* vLLM's data-parallel layout: srtctl launches per node. */
			if (!strcmp(k, "dp_launch_mode") && t && !strcmp(t, "vllm") &&
			    !strcmp(base, "engine")) {
				dp_launch_mode(c, n->pairs[i].value, join(c, base, k));
				continue;
			}
			/* TileRT's engine mapping: the schema's served_model_name (checked in validate.c) */
			if (!strcmp(k, "served_model_name") && t && !strcmp(t, "tilert"))
				continue;
			/* TRT-LLM's --served-model-name and NUMA policy: parse_engine(). */
			if ((!strcmp(k, "served_model_name") || !strcmp(k, "numa_memory_bind") ||
			     !strcmp(k, "numa_cpu_bind")) &&
			    t && !strcmp(t, "trtllm") && !strcmp(base, "engine"))
				continue;
			if (strcmp(k, "type"))
				warn(c, n->pairs[i].key, join(c, base, k),
				     "engine option '%s' is not used by srtctl and is ignored; %s",
				     k,
				     t && !strcmp(t, "trtllm") ?
					     "put TRT-LLM's engine options in roles.<role>.args "
					     "(the engine YAML) and the worker's command-line flags "
					     "in roles.<role>.extra_args" :
					     "put engine flags in roles.<role>.args");
		}
	}
	if (!want_str(c, tn, path, &s))
		return SRT_ENGINE_UNSET;
	*name = s;
	if (!strcmp(s, "sglang"))
		return SRT_ENGINE_SGLANG;
	if (!strcmp(s, "vllm"))
		return SRT_ENGINE_VLLM;
	if (!strcmp(s, "trtllm"))
		return SRT_ENGINE_TRTLLM;
	if (!strcmp(s, "mocker"))
		return SRT_ENGINE_MOCKER;
	if (!strcmp(s, "tilert") && !strcmp(base, "roles.decode.engine"))
		return SRT_ENGINE_TILERT;
	if (!strcmp(s, "tilert"))
		err(c, tn, path,
		    "engine 'tilert' (TileRT's decode server) runs only as roles.decode.engine, "
		    "beside a prefill role with engine vllm and frontend.type: tilert-router "
		    "(srt-slurm's TileRT prefill/decode)");
	else if (in_list(s, unsupported))
		err(c, tn, path,
		    "engine '%s' is not supported by srtctl; use sglang, vllm or trtllm", s);
	else if ((sugg = srt_did_you_mean(s, engines)))
		err(c, tn, path, "unknown engine '%s'; did you mean '%s'?", s, sugg);
	else
		err(c, tn, path,
		    "unknown engine '%s'; expected sglang, vllm or trtllm (also: mocker)", s);
	*name = NULL;
	return SRT_ENGINE_UNSET;
}

static void parse_engine(struct pctx *c, struct srt_recipe *r, const struct srt_ynode *n)
{
	r->engine_node = n;
	if (srt_ynode_is_null(n))
		return;
	r->engine = read_engine(c, n, "engine", &r->engine_name);
	if (r->engine == SRT_ENGINE_VLLM && n->kind == SRT_Y_MAP)
		r->connector = srt_ynode_get(n, "connector");
	if (r->engine == SRT_ENGINE_MOCKER && n->kind == SRT_Y_MAP)
		parse_mocker(c, r, n);
	if (r->engine == SRT_ENGINE_TRTLLM && n->kind == SRT_Y_MAP) {
		const struct srt_ynode *v = srt_ynode_get(n, "numa_memory_bind");
		bool on = false;

		opt_str(c, n, "engine", "served_model_name", &r->served_model_name);
		if (v && srt_ynode_str(v) && !strcmp(srt_ynode_str(v), "local")) {
			warn(c, v, "engine.numa_memory_bind",
			     "'local' binds each rank's memory to its GPU's NUMA node, which "
			     "srt-slurm finds at run time with a script of its own; srtctl does not, "
			     "so the ranks run without a memory binding. Write true for nodes 0,1 "
			     "(srt-slurm's default on gb200/gb300)");
			r->numa_memory_bind = SRT_NUMA_OFF;
		} else if (v && !srt_ynode_is_null(v) &&
			   want_bool(c, v, "engine.numa_memory_bind", &on))
			r->numa_memory_bind = on ? SRT_NUMA_ON : SRT_NUMA_OFF;
		on = false;
		v = srt_ynode_get(n, "numa_cpu_bind");
		if (v && !srt_ynode_is_null(v) && want_bool(c, v, "engine.numa_cpu_bind", &on) &&
		    on)
			warn(c, v, "engine.numa_cpu_bind",
			     "srtctl does not pin TRT-LLM's ranks to their GPU's CPUs (srt-slurm "
			     "wraps them in taskset from a script of its own); ignored");
	}
}

/*
 * srt-slurm lets each role name its engine (and then the top-level one is
 * optional).  srtctl runs one engine per recipe: roles that name one must
 * agree with each other and with the top level, which they supply when it
 * is missing.
 */
static void parse_role_engines(struct pctx *c, struct srt_recipe *r)
{
	const char *from = NULL; /* the role whose engine the recipe took */

	for (size_t k = 0; k < SRT_ROLE_COUNT; k++) {
		const struct srt_role *role = &r->roles[k];
		const struct srt_ynode *n = role->present && role->node &&
							    role->node->kind == SRT_Y_MAP ?
						    srt_ynode_get(role->node, "engine") :
						    NULL;
		const char *base, *name;
		enum srt_engine_type e;

		if (!n || srt_ynode_is_null(n))
			continue;
		base = join(c, join(c, "roles", role->name), "engine");
		e = read_engine(c, n, base, &name);
		if (e == SRT_ENGINE_UNSET)
			continue;
		if (e == SRT_ENGINE_TILERT) { /* the decode role's own; the recipe's is prefill's */
			r->roles[k].engine = e;
			continue;
		}
		if (n->kind == SRT_Y_MAP) { /* read_engine() found its type */
			n = srt_ynode_get(n, "type");
			base = join(c, base, "type");
		}
		if (r->engine == SRT_ENGINE_UNSET && !r->engine_node) {
			r->engine = e;
			r->engine_name = name;
			from = role->name;
		} else if (e != r->engine && r->engine != SRT_ENGINE_UNSET) {
			if (from)
				err(c, n, base,
				    "'%s' differs from roles.%s.engine '%s': srtctl runs one engine "
				    "per recipe",
				    name, from, r->engine_name);
			else
				err(c, n, base,
				    "'%s' differs from the recipe's engine '%s': srtctl runs one "
				    "engine per recipe; remove it or make them match",
				    name, r->engine_name);
		}
	}
}

/* ---- roles ---- */

/*
 * srun_options (top level, roles.<role>, services[]): srt-slurm's extra
 * srun flags, KEY: VALUE becoming --KEY=VALUE (an empty value: --KEY).
 * The keys srtctl sets itself on every step are refused, as is anything
 * that is not a flag (recipe/render.c renders them; runplan/plan.c checks
 * them again when the agent loads the plan).
 */
static const struct srt_ynode *parse_srun_options(struct pctx *c, const struct srt_ynode *n,
						  const char *path)
{
	bool ok = true;

	if (!n || srt_ynode_is_null(n) || !want_map(c, n, path))
		return NULL;
	for (size_t i = 0; i < n->n; i++) {
		const struct srt_ypair *p = &n->pairs[i];
		const char *kp = join(c, path, p->key->str), *why;
		const struct srt_ynode *v = p->value;
		const char *opt;

		if (v->kind != SRT_Y_SCALAR) {
			err(c, v, kp, "must be a string (the srun option's value), not %s",
			    srt_ynode_describe(v));
			ok = false;
			continue;
		}
		opt = srt_runplan_srun_option(c->a, p->key->str,
					      srt_ynode_is_null(v) ? NULL : v->str);
		if (strlen(v->str ? v->str : "") != v->len || strlen(p->key->str) != p->key->len)
			why = "it holds a NUL byte";
		else
			why = srt_runplan_srun_option_problem(opt);
		if (why) {
			err(c, p->key, kp, "srun option '%s' is refused: %s; remove it", opt, why);
			ok = false;
		}
	}
	return ok ? n : NULL;
}

/*
 * roles.<role>.kv_events: true (the engine's default ZMQ publisher), false
 * or null (off), or a mapping merged over those defaults (publisher,
 * topic, ...; srt-slurm checks no keys and neither does srtctl: the engine
 * does).  recipe/launch.c renders it.
 */
static void parse_kv_events(struct pctx *c, const struct srt_ynode *v, const char *path,
			    struct srt_role *role)
{
	bool on;

	if (!v || srt_ynode_is_null(v))
		return;
	if (srt_ynode_bool(v, &on))
		role->kv_events = on ? v : NULL;
	else if (v->kind == SRT_Y_MAP)
		role->kv_events = v;
	else
		err(c, v, path,
		    "must be true, false or a mapping of the publisher's settings (e.g. {topic: "
		    "kv-events}), not %s",
		    srt_ynode_describe(v));
}

/*
 * srt-slurm's native sidecar mode (roles.<role>.sidecar, dynamo.sidecar):
 * sglang.launch_server with a Dynamo sidecar on its gRPC port.  srtctl runs
 * Dynamo's own worker in its place, which serves the same frontend.
 */
#define SIDECAR_IGNORED                                                                        \
	"srtctl runs no Dynamo sidecars beside native engines: under the Dynamo frontend its " \
	"workers are Dynamo's own (python3 -m dynamo.<engine>), so a comparison of the two "   \
	"modes measures one thing twice"

static void parse_role(struct pctx *c, struct srt_recipe *r, struct srt_role *role,
		       const struct srt_ynode *n, const char *path)
{
	static const char *const keys[] = { "nodes",	 "workers",	 "gpus",
					    "env",	 "args",	 "extra_args",
					    "container", "restart",	 "engine",
					    "kv_events", "srun_options", "mooncake_store_config",
					    NULL };
	static const struct hint hints[] = {
		{ "sidecar", SIDECAR_IGNORED },
		{ "critical",
		  "'critical' is not supported on roles: every worker is critical; use 'restart' to keep workers alive" },
		{ "gpus_per_worker",
		  "unknown key 'gpus_per_worker'; did you mean 'gpus' (GPUs per worker)?" },
		{ NULL, NULL },
	};
	const struct srt_ynode *v;

	(void)r;
	role->present = true;
	role->node = n;
	role->nodes = -1;
	role->workers = 1;
	restart_defaults(&role->restart, SRT_RESTART_ON_FAILURE);
	if (srt_ynode_is_null(n))
		return;
	if (!want_map(c, n, path))
		return;
	check_keys(c, n, path, keys, hints, SRT_SCHEMA_ROLE);
	v = srt_ynode_get(n, "nodes");
	if (v && !srt_ynode_is_null(v)) {
		const char *s = srt_ynode_str(v);
		int64_t zero = -1;

		if (role->kind == SRT_ROLE_DECODE && srt_ynode_int(v, &zero) && zero == 0) {
			/* srt-slurm still reads the v1 sentinel in schema 2 recipes. */
			warn(c, v, join(c, path, "nodes"),
			     "0 is the v1 way to write 'colocate'; write 'nodes: colocate'");
			role->colocate = true;
			role->nodes = 0;
		} else if (s && !strcmp(s, "colocate")) {
			if (role->kind != SRT_ROLE_DECODE)
				err(c, v, join(c, path, "nodes"),
				    "'colocate' is only valid on roles.decode (it packs decode workers "
				    "onto the prefill nodes)");
			role->colocate = true;
			role->nodes = 0;
		} else {
			want_int(c, v, join(c, path, "nodes"), &role->nodes, 1, 16384);
		}
	}
	opt_int(c, n, path, "workers", &role->workers, 1, 16384);
	opt_int(c, n, path, "gpus", &role->gpus, 1, 1024);
	parse_env(c, srt_ynode_get(n, "env"), join(c, path, "env"), &role->env);
	v = srt_ynode_get(n, "args");
	if (v && !srt_ynode_is_null(v) && want_map(c, v, join(c, path, "args")) &&
	    !too_many(c, v, join(c, path, "args"), SRT_RECIPE_MAX_ARGS, "args"))
		role->args = v;
	parse_argv(c, srt_ynode_get(n, "extra_args"), join(c, path, "extra_args"),
		   &role->extra_args);
	opt_str(c, n, path, "container", &role->container);
	parse_restart(c, srt_ynode_get(n, "restart"), join(c, path, "restart"), &role->restart);
	parse_kv_events(c, srt_ynode_get(n, "kv_events"), join(c, path, "kv_events"), role);
	role->srun_options = parse_srun_options(c, srt_ynode_get(n, "srun_options"),
						join(c, path, "srun_options"));
	v = srt_ynode_get(n, "mooncake_store_config");
	if (v && !srt_ynode_is_null(v)) {
		if (v->kind == SRT_Y_MAP)
			role->mooncake_store_config = v;
		else
			err(c, v, join(c, path, "mooncake_store_config"),
			    "must be a mapping of Mooncake client config keys (e.g. "
			    "{global_segment_size: 16GiB}), not %s",
			    srt_ynode_describe(v));
	}
}

static void parse_roles(struct pctx *c, struct srt_recipe *r, const struct srt_ynode *n)
{
	static const char *const keys[] = { "prefill", "decode", "agg", NULL };
	static const struct hint hints[] = {
		{ "aggregated", "the aggregated role is called 'agg' in the v2 layout" },
		{ NULL, NULL },
	};

	for (int k = 0; k < SRT_ROLE_COUNT; k++) {
		r->roles[k].kind = (enum srt_role_kind)k;
		r->roles[k].name = srt_role_name((enum srt_role_kind)k);
	}
	if (srt_ynode_is_null(n))
		return;
	if (!want_map(c, n, "roles"))
		return;
	check_keys(c, n, "roles", keys, hints, SRT_SCHEMA_NONE);
	for (int k = 0; k < SRT_ROLE_COUNT; k++) {
		const struct srt_ypair *p =
			srt_ynode_get_pair(n, srt_role_name((enum srt_role_kind)k));

		if (p)
			parse_role(c, r, &r->roles[k], p->value, join(c, "roles", p->key->str));
	}
}

/* ---- services ---- */

static bool parse_placement(struct pctx *c, const struct srt_ynode *n, const char *path,
			    enum srt_placement *out, const char **pool)
{
	static const char *const names[] = { "head",   "infra", "dedicated", "prefill",
					     "decode", "agg",	"workers",   NULL };
	static const char *const kno[] = { "node", "pool", NULL };
	static const struct hint hints[] = {
		{ "per", "'placement.per' (per-worker sidecars) is not supported by srtctl" },
		{ NULL, NULL },
	};
	const struct srt_ynode *v;
	const char *s = NULL, *sugg;

	if (srt_ynode_is_null(n))
		return true;
	if (!want_map(c, n, path))
		return false;
	check_keys(c, n, path, kno, hints, SRT_SCHEMA_SERVICE_PLACEMENT);
	v = srt_ynode_get(n, "pool");
	if (v && !srt_ynode_is_null(v)) {
		if (srt_ynode_get(n, "node")) {
			err(c, v, join(c, path, "pool"),
			    "placement.pool replaces placement.node (the service runs on every "
			    "node of that pool); write one of them");
			return false;
		}
		if (!want_str(c, v, join(c, path, "pool"), &s))
			return false;
		*pool = s;
		*out = SRT_PLACE_POOL;
		return true;
	}
	v = srt_ynode_get(n, "node");
	if (!v)
		return true;
	path = join(c, path, "node");
	if (!want_str(c, v, path, &s))
		return false;
	for (int i = 0; names[i]; i++) {
		if (!strcmp(s, names[i])) {
			*out = (enum srt_placement)(SRT_PLACE_HEAD + i);
			return true;
		}
	}
	sugg = srt_did_you_mean(s, names);
	if (sugg)
		err(c, v, path, "unknown placement '%s'; did you mean '%s'?", s, sugg);
	else
		err(c, v, path,
		    "unknown placement '%s'; expected head, infra, dedicated, prefill, decode, agg "
		    "or workers",
		    s);
	return false;
}

/* An HTTP probe path: '/' then printable non-space ASCII, bounded. */
static bool http_path_ok(const char *p)
{
	size_t n = 0;

	if (p[0] != '/')
		return false;
	for (; p[n]; n++)
		if (n >= SRT_PROBE_PATH_MAX || (unsigned char)p[n] <= 0x20 ||
		    (unsigned char)p[n] >= 0x7f)
			return false;
	return true;
}

static void parse_probe_port(struct pctx *c, const struct srt_ynode *n, const char *path,
			     struct srt_probe *p, enum srt_probe_kind kind)
{
	static const char *const tcpkeys[] = { "port", NULL };
	static const char *const httpkeys[] = { "port", "path", "status", NULL };
	const struct srt_ynode *port;

	p->kind = kind;
	p->path = "/health";
	p->status = 200;
	if (!want_map(c, n, path))
		return;
	check_keys(c, n, path, kind == SRT_PROBE_TCP ? tcpkeys : httpkeys, NULL,
		   kind == SRT_PROBE_TCP ? SRT_SCHEMA_TCP_PROBE : SRT_SCHEMA_HTTP_PROBE);
	port = srt_ynode_get(n, "port");
	if (!port)
		err(c, n, path, "needs a 'port'");
	else
		want_int(c, port, join(c, path, "port"), &p->port, 1, 65535);
	if (kind == SRT_PROBE_HTTP) {
		opt_str(c, n, path, "path", &p->path);
		if (p->path && !http_path_ok(p->path))
			err(c, srt_ynode_get(n, "path"), join(c, path, "path"),
			    "must be an absolute path of printable ASCII without spaces, at most %d "
			    "characters (e.g. /health): it goes into the probe's HTTP request line",
			    SRT_PROBE_PATH_MAX);
		opt_int(c, n, path, "status", &p->status, 100, 599);
	}
}

/*
 * readiness.file: {path: P}, srt-slurm's FileProbe: ready once P is a
 * nonempty regular file.  P is relative to the job's log directory (/logs in
 * a container, which is also accepted as its prefix) and may hold {node},
 * the instance's node; the agent removes it before each start, so it must
 * stay inside the log directory.
 */
static void parse_probe_file(struct pctx *c, const struct srt_ynode *n, const char *path,
			     struct srt_probe *p)
{
	static const char *const keys[] = { "path", NULL };
	const char *f = NULL;

	p->kind = SRT_PROBE_FILE;
	if (!want_map(c, n, path))
		return;
	check_keys(c, n, path, keys, NULL, SRT_SCHEMA_NONE);
	if (!srt_ynode_get(n, "path")) {
		err(c, n, path, "needs a 'path' (e.g. mooncake/donor-{node}.ready)");
		return;
	}
	opt_str(c, n, path, "path", &f);
	if (!f)
		return;
	if (srt_str_has_prefix(f, SRT_CONTAINER_LOG_DIR "/"))
		f += strlen(SRT_CONTAINER_LOG_DIR "/");
	if (!*f || *f == '/' || !strcmp(f, "..") || srt_str_has_prefix(f, "../") ||
	    strstr(f, "/../") || srt_str_has_suffix(f, "/..") || strstr(f, "//") ||
	    f[strlen(f) - 1] == '/' || !http_path_ok(srt_arena_printf(c->a, "/%s", f))) {
		err(c, srt_ynode_get(n, "path"), join(c, path, "path"),
		    "'%s' must be a file inside the job's log directory: a relative path (or one "
		    "under /logs, where containers see that directory) without '..', '//' or a "
		    "trailing '/', of printable characters, at most %d bytes (e.g. "
		    "mooncake/donor-{node}.ready); srtctl removes it before each start",
		    f, SRT_PROBE_PATH_MAX);
		return;
	}
	p->path = f;
}

/*
 * readiness.log: {pattern: P}, srt-slurm's LogProbe: ready once the
 * process's log matches P (Python's re.search, MULTILINE).  srtctl matches
 * each line written since the process started against P as a POSIX
 * extended regular expression, so P must mean the same in both
 * (srt_runplan_pattern_problem()).
 */
static void parse_probe_log(struct pctx *c, const struct srt_ynode *n, const char *path,
			    struct srt_probe *p)
{
	static const char *const keys[] = { "pattern", NULL };
	const char *pat = NULL, *why;

	p->kind = SRT_PROBE_LOG;
	if (!want_map(c, n, path))
		return;
	check_keys(c, n, path, keys, NULL, SRT_SCHEMA_NONE);
	if (!srt_ynode_get(n, "pattern")) {
		err(c, n, path,
		    "needs a 'pattern' (a regular expression a line of the log matches)");
		return;
	}
	opt_str(c, n, path, "pattern", &pat);
	if (!pat)
		return;
	if ((why = srt_runplan_pattern_problem(pat))) {
		err(c, srt_ynode_get(n, "pattern"), join(c, path, "pattern"), "'%s': %s", pat, why);
		return;
	}
	p->path = pat;
}

static void parse_readiness(struct pctx *c, const struct srt_ynode *n, const char *path,
			    struct srt_readiness *rd)
{
	static const char *const keys[] = {
		"port", "tcp", "http", "file", "log", "timeout_seconds", "interval_seconds", NULL
	};
	const struct srt_ynode *port, *tcp, *http, *file, *log;
	int kinds;

	rd->timeout_seconds = SRT_READINESS_TIMEOUT_DEFAULT;
	rd->interval_seconds = SRT_READINESS_INTERVAL_DEFAULT;
	if (srt_ynode_is_null(n))
		return;
	if (!want_map(c, n, path))
		return;
	rd->explicit_ = true;
	rd->node = n;
	check_keys(c, n, path, keys, NULL, SRT_SCHEMA_READINESS);
	port = srt_ynode_get(n, "port");
	tcp = srt_ynode_get(n, "tcp");
	http = srt_ynode_get(n, "http");
	file = srt_ynode_get(n, "file");
	log = srt_ynode_get(n, "log");
	kinds = !!port + !!tcp + !!http + !!file + !!log;
	if (kinds > 1)
		err(c, n, path, "name exactly one probe: port, tcp, http, file or log (found %d)",
		    kinds);
	if (port) {
		rd->probes[0].kind = SRT_PROBE_TCP;
		want_int(c, port, join(c, path, "port"), &rd->probes[0].port, 1, 65535);
		rd->nprobes = 1;
	} else if (tcp) {
		parse_probe_port(c, tcp, join(c, path, "tcp"), &rd->probes[0], SRT_PROBE_TCP);
		rd->nprobes = 1;
	} else if (http) {
		parse_probe_port(c, http, join(c, path, "http"), &rd->probes[0], SRT_PROBE_HTTP);
		rd->nprobes = 1;
	} else if (file) {
		parse_probe_file(c, file, join(c, path, "file"), &rd->probes[0]);
		rd->nprobes = 1;
	} else if (log) {
		parse_probe_log(c, log, join(c, path, "log"), &rd->probes[0]);
		rd->nprobes = 1;
	}
	opt_int(c, n, path, "timeout_seconds", &rd->timeout_seconds, 1, 86400);
	opt_int(c, n, path, "interval_seconds", &rd->interval_seconds, 1, 3600);
	if (rd->interval_seconds > rd->timeout_seconds)
		err(c, n, path,
		    "interval_seconds (%d) is longer than timeout_seconds (%d); the probe would "
		    "run once at most",
		    rd->interval_seconds, rd->timeout_seconds);
}

static void parse_start(struct pctx *c, const struct srt_ynode *n, const char *path,
			enum srt_start *out)
{
	static const char *const names[] = { "infra", "before_workers", "with_workers",
					     "after_frontend", NULL };
	const char *s = NULL, *sugg;

	if (srt_ynode_is_null(n) || !want_str(c, n, path, &s))
		return;
	if (!strcmp(s, "infra"))
		*out = SRT_START_INFRA;
	else if (!strcmp(s, "before_workers"))
		*out = SRT_START_BEFORE_WORKERS;
	else if (!strcmp(s, "with_workers"))
		*out = SRT_START_WITH_WORKERS;
	else if (!strcmp(s, "after_frontend"))
		*out = SRT_START_AFTER_FRONTEND;
	else if ((sugg = srt_did_you_mean(s, names)))
		err(c, n, path, "unknown start phase '%s'; did you mean '%s'?", s, sugg);
	else
		err(c, n, path,
		    "unknown start phase '%s'; expected infra (etcd, nats), before_workers, "
		    "with_workers or after_frontend",
		    s);
}

static void parse_external(struct pctx *c, struct srt_service *s, const struct srt_ynode *n,
			   const char *path)
{
	const char *text = NULL, *url = NULL;
	const char *colon, *host_end;
	char *end;
	long port;

	if (srt_ynode_is_null(n) || !want_str(c, n, path, &text))
		return;
	s->external = text;
	if (s->type == SRT_SVC_ETCD || s->type == SRT_SVC_NATS) {
		/* Dynamo's processes take a URL: ETCD_ENDPOINTS, NATS_SERVER. */
		const char *scheme = s->type == SRT_SVC_ETCD ? "http://" : "nats://";

		if (!srt_str_has_prefix(text, scheme)) {
			err(c, n, path, "'%s' must be a URL %shost:port (e.g. %s10.0.0.5:%d)", text,
			    scheme, scheme, s->type == SRT_SVC_ETCD ? 2379 : 4222);
			return;
		}
		url = text;
		text += strlen(scheme);
	}
	if (text[0] == '[') {
		host_end = strchr(text, ']');
		colon = host_end ? host_end + 1 : NULL;
		if (!host_end || *colon != ':')
			colon = NULL;
	} else {
		colon = strrchr(text, ':');
		host_end = colon;
		if (colon && memchr(text, ':', (size_t)(colon - text)))
			colon = NULL; /* bare IPv6 without brackets */
	}
	if (!url && strstr(text, "://")) {
		err(c, n, path, "'%s' must be host:port without a scheme (e.g. 10.0.0.5:8700)",
		    text);
		return;
	}
	if (!colon || colon == text || (text[0] == '[' && host_end == text + 1)) {
		err(c, n, path,
		    "'%s' is not host:port (e.g. 10.0.0.5:8700; IPv6 as [fd00::5]:8700)", text);
		return;
	}
	port = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || port < 1 || port > 65535) {
		err(c, n, path, "'%s' has no valid port after ':' (1-65535)", text);
		return;
	}
	if (text[0] == '[')
		s->external_host = srt_arena_strndup(c->a, text + 1, (size_t)(host_end - text - 1));
	else
		s->external_host = srt_arena_strndup(c->a, text, (size_t)(colon - text));
	for (const char *p = s->external_host; *p; p++) {
		if (*p == ' ' || *p == '/' || *p == '\t') {
			err(c, n, path, "'%s' has an invalid host part", url ? url : text);
			return;
		}
	}
	s->external_port = (int)port;
}

/* services[].options.max_payload_mb: NATS's, kept and said to be unused. */
static void check_max_payload(struct pctx *c, const struct srt_ynode *v, const char *path)
{
	int mb;

	if (want_int(c, v, path, &mb, 1, 64))
		warn(c, v, path,
		     "srtctl does not write a NATS config file, so the server keeps its 1 MB "
		     "payload limit; ignored (kept in the spec for srt-slurm)");
}

/*
 * Why srtctl refuses a service kind that srt-slurm has, and what to write
 * instead; NULL for a kind srt-slurm does not have either.  Each of these
 * belongs to a stack srtctl does not run, so accepting the entry would run
 * a different deployment from the one the recipe describes.
 */
static const char *srt_slurm_only_kind(const char *type)
{
#define EXPORTER                                                                  \
	"(a telemetry exporter) is not started by srtctl, which does not scrape " \
	"metrics; run it as a 'generic' service with its 'command'"
	static const struct hint kinds[] = {
		{ "gms", "(vLLM's GPU memory service for engine.failover) is not supported by "
			 "srtctl; remove it and engine.failover" },
		{ "dcgm-exporter", EXPORTER },
		{ "node-exporter", EXPORTER },
		{ "process-exporter", EXPORTER },
		{ NULL, NULL },
	};

#undef EXPORTER

	for (size_t i = 0; kinds[i].key; i++)
		if (!strcmp(kinds[i].key, type))
			return kinds[i].text;
	return NULL;
}

/*
 * services[].preamble: shell that runs before the command, in the same
 * bash, inside the container (srt-slurm's key).  Text only; a NUL cannot
 * reach bash -c.
 */
static void parse_preamble(struct pctx *c, const struct srt_ynode *n, const char *path,
			   const char **out)
{
	const char *text;

	if (!n || srt_ynode_is_null(n) || !want_str(c, n, path, &text))
		return;
	if (strlen(text) != n->len) {
		err(c, n, path, "contains a NUL byte, which bash -c cannot receive; remove it");
		return;
	}
	*out = *text ? text : NULL;
}

/* An lmcache-server's readiness when none is written: GET /healthcheck on its HTTP port. */
static void lmcache_readiness(struct srt_readiness *rd)
{
	rd->probes[0] =
		(struct srt_probe){ SRT_PROBE_HTTP, SRT_LMCACHE_HTTP_PORT, "/healthcheck", 200 };
	rd->nprobes = 1;
}

/*
 * The master's options for TRT-LLM's pool commands (srt-slurm's
 * TRTLLMMooncakeKVStoreConfig): eviction_ratio in (0, 1), master_timeout_s
 * above 0, store_role both|producer|consumer.  Whether the engine runs them
 * is validation's (recipe/validate.c).
 */
static bool one_of(const char *w, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(w, list[i]))
			return true;
	return false;
}

static void parse_pool_options(struct pctx *c, struct srt_service *s, const struct srt_ynode *o,
			       const char *path)
{
	static const char *const roles[] = { "both", "producer", "consumer", NULL };
	const struct srt_ynode *v;
	char *end;

	if ((v = srt_ynode_get(o, "eviction_ratio")) && !srt_ynode_is_null(v)) {
		double x = v->kind == SRT_Y_SCALAR && v->str ? strtod(v->str, &end) : NAN;

		if (v->kind != SRT_Y_SCALAR || !v->str || end == v->str || *end || !(x > 0) ||
		    !(x < 1))
			err(c, v, join(c, path, "eviction_ratio"),
			    "must be a number between 0 and 1, exclusive (the share of the pool the "
			    "master evicts when it is full; default %g), not %s",
			    SRT_TRTLLM_POOL_EVICTION_DEFAULT,
			    v->kind == SRT_Y_SCALAR && v->str ? v->str : srt_ynode_describe(v));
		else
			s->eviction_ratio = x;
	}
	opt_int(c, o, path, "master_timeout_s", &s->master_timeout_s, 1, 86400);
	opt_str(c, o, path, "store_role", &s->store_role);
	if (s->store_role && !one_of(s->store_role, roles)) {
		err(c, srt_ynode_get(o, "store_role"), join(c, path, "store_role"),
		    "'%s' is not a store role of TRT-LLM's pool; write both, producer or consumer",
		    s->store_role);
		s->store_role = NULL;
	}
}

/* The donor's options: size (required: the memory it lends, e.g. 640GiB) and protocol. */
static void parse_donor_options(struct pctx *c, struct srt_service *s, const struct srt_ynode *o,
				const char *path)
{
	const struct srt_ynode *v = srt_ynode_get(o, "size");

	if (v && !srt_ynode_is_null(v) && v->kind == SRT_Y_SCALAR && v->str)
		s->donor_size = v->str; /* a number (bytes) or a size with a unit, as written */
	else if (v && !srt_ynode_is_null(v))
		err(c, v, join(c, path, "size"),
		    "must be a size such as 640GiB or a number of bytes, not %s",
		    srt_ynode_describe(v));
	opt_str(c, o, path, "protocol", &s->donor_protocol);
}

/*
 * services[].nodes: whole nodes the service owns, its pool.  The owner runs
 * on them, one instance per node: placement.node may only say `workers`
 * (srt-slurm's spelling of "its own nodes"), and placement.pool is for the
 * services that ride on someone else's pool.
 */
static void parse_pool_owner(struct pctx *c, struct srt_service *s, const struct srt_ynode *n,
			     const char *path)
{
	const struct srt_ynode *v = srt_ynode_get(n, "nodes");
	const struct srt_ynode *pl = srt_ynode_get(n, "placement");

	if (!v || srt_ynode_is_null(v))
		return;
	opt_int(c, n, path, "nodes", &s->pool_nodes, 1, SRT_RECIPE_MAX_POOL_NODES);
	if (s->pool_nodes <= 0)
		return;
	if (s->placement == SRT_PLACE_POOL) {
		err(c, srt_ynode_get(pl, "pool"), join(c, path, "placement.pool"),
		    "service '%s' owns nodes (nodes: %d) and runs on them; it cannot also ride on "
		    "the pool of '%s'; remove one of the two",
		    s->name ? s->name : "?", s->pool_nodes, s->pool);
		return;
	}
	if (s->placement != SRT_PLACE_DEFAULT && s->placement != SRT_PLACE_WORKERS) {
		err(c, srt_ynode_get(pl, "node"), join(c, path, "placement.node"),
		    "service '%s' owns nodes (nodes: %d) and runs on them; remove placement.node "
		    "'%s' (or write workers)",
		    s->name ? s->name : "?", s->pool_nodes, srt_placement_name(s->placement));
		return;
	}
	if (s->external) {
		err(c, v, join(c, path, "nodes"),
		    "service '%s' is external: it runs elsewhere and owns no nodes of the job; "
		    "remove nodes or external",
		    s->name ? s->name : "?");
		return;
	}
	s->placement = SRT_PLACE_POOL;
	s->pool = s->name;
}

/*
 * A ray service's defaults and rules (srt-slurm's): srtctl builds its
 * `ray start` commands (no command), it owns whole nodes (placement
 * workers, head or a pool), its readiness budget is 600 s unless written
 * (probes written in `readiness` replace the head's and the joiners' own,
 * as in srt-slurm; the fleet gate stays).
 */
static void ray_defaults(struct pctx *c, struct srt_service *s, const char *path)
{
	if (s->command.n)
		err(c, s->node, join(c, path, "command"),
		    "a ray service's commands are srtctl's (`ray start --head` on the first node, "
		    "`ray start --address` on the others); pass extra flags in 'args' and ports "
		    "in 'options'");
	if (s->placement != SRT_PLACE_WORKERS && s->placement != SRT_PLACE_HEAD &&
	    s->placement != SRT_PLACE_POOL)
		err(c, srt_ynode_get(srt_ynode_get(s->node, "placement"), "node"),
		    join(c, path, "placement.node"),
		    "a ray service owns whole nodes: place it on workers, head or a pool (nodes: "
		    "N), not '%s'",
		    srt_placement_name(s->placement));
	if (s->external)
		err(c, s->node, join(c, path, "external"),
		    "srtctl starts the Ray cluster of a ray service; an external one is not "
		    "supported: remove 'external'");
	if (!s->ray_port)
		s->ray_port = SRT_RAY_GCS_PORT;
	if (!s->ray_dashboard_port)
		s->ray_dashboard_port = SRT_RAY_DASHBOARD_PORT;
	if (s->ray_port == s->ray_dashboard_port)
		err(c, s->options, join(c, path, "options"),
		    "the ray service's GCS port and dashboard_port are both %d; give them "
		    "different ports",
		    s->ray_port);
	if (!srt_ynode_get(s->readiness.node, "timeout_seconds"))
		s->readiness.timeout_seconds = SRT_RAY_READY_TIMEOUT;
}

static void parse_service(struct pctx *c, struct srt_service *s, const struct srt_ynode *n,
			  const char *path)
{
	static const char *const keys[] = { "name",	 "type",     "enabled",	 "container",
					    "command",	 "args",     "env",	 "options",
					    "placement", "external", "start",	 "readiness",
					    "restart",	 "critical", "preamble", "nodes",
					    "terminal",	 NULL };
	static const struct hint hints[] = {
		{ "source", "'source' (building a service from git) is not supported by srtctl" },
		{ "build_command", "'build_command' is not supported by srtctl" },
		{ "cpus_per_task", "'cpus_per_task' is not supported by srtctl" },
		{ "cpu_bind", "'cpu_bind' is not supported by srtctl" },
		{ "metrics", "'metrics' scraping is not supported by srtctl" },
		{ "inherit_discovery_env",
		  "'inherit_discovery_env' is not supported by srtctl (srtctl runs no etcd/NATS)" },
		{ "build_timeout_seconds", "'build_timeout_seconds' is not supported by srtctl" },
		{ NULL, NULL },
	};
	static const char *const types[] = { "generic",
					     "mooncake-master",
					     "mooncake-store",
					     "mooncake-donor",
					     "etcd",
					     "nats",
					     "lmcache-server",
					     "ray",
					     NULL };
	const struct srt_ynode *v;
	const char *type = "generic", *sugg, *why;

	s->node = n;
	s->enabled = true;
	s->type_name = "generic";
	if (!want_map(c, n, path))
		return;
	check_keys(c, n, path, keys, hints, SRT_SCHEMA_SERVICE);
	v = srt_ynode_get(n, "name");
	if (!v)
		err(c, n, path, "a service needs a 'name' (it names its log, service_<name>.out)");
	else if (want_str(c, v, join(c, path, "name"), &s->name))
		check_name(c, v, join(c, path, "name"), s->name,
			   "it names the service's log file and SLURM step");
	v = srt_ynode_get(n, "type");
	if (v && want_str(c, v, join(c, path, "type"), &type)) {
		if (!strcmp(type, "mooncake-master"))
			s->type = SRT_SVC_MOONCAKE_MASTER;
		else if (!strcmp(type, "mooncake-store"))
			s->type = SRT_SVC_MOONCAKE_STORE;
		else if (!strcmp(type, "generic"))
			s->type = SRT_SVC_GENERIC;
		else if (!strcmp(type, "etcd"))
			s->type = SRT_SVC_ETCD;
		else if (!strcmp(type, "nats"))
			s->type = SRT_SVC_NATS;
		else if (!strcmp(type, "lmcache-server"))
			s->type = SRT_SVC_LMCACHE_SERVER;
		else if (!strcmp(type, "mooncake-donor"))
			s->type = SRT_SVC_MOONCAKE_DONOR;
		else if (!strcmp(type, "ray"))
			s->type = SRT_SVC_RAY;
		else if ((why = srt_slurm_only_kind(type)))
			err(c, v, join(c, path, "type"), "service type '%s' %s", type, why);
		else if ((sugg = srt_did_you_mean(type, types)))
			err(c, v, join(c, path, "type"),
			    "unknown service type '%s'; did you mean '%s'?", type, sugg);
		else
			err(c, v, join(c, path, "type"),
			    "service type '%s' is not supported by srtctl; expected mooncake-master, "
			    "mooncake-store, mooncake-donor, etcd, nats, lmcache-server, ray or "
			    "generic (with a command)",
			    type);
		s->type_name = type;
	}
	opt_bool(c, n, path, "enabled", &s->enabled);
	opt_str(c, n, path, "container", &s->container);
	parse_preamble(c, srt_ynode_get(n, "preamble"), join(c, path, "preamble"), &s->preamble);
	s->srun_options = parse_srun_options(c, srt_ynode_get(n, "srun_options"),
					     join(c, path, "srun_options"));
	parse_argv(c, srt_ynode_get(n, "command"), join(c, path, "command"), &s->command);
	parse_argv(c, srt_ynode_get(n, "args"), join(c, path, "args"), &s->args);
	parse_env(c, srt_ynode_get(n, "env"), join(c, path, "env"), &s->env);
	v = srt_ynode_get(n, "options");
	if (v && !srt_ynode_is_null(v) && want_map(c, v, join(c, path, "options"))) {
		static const char *const okeys[] = { "store_config", NULL };
		static const char *const master_okeys[] = { "store_config", "eviction_ratio",
							    "master_timeout_s", "store_role",
							    NULL };
		static const char *const donor_okeys[] = { "size", "protocol", NULL };
		static const char *const ray_okeys[] = { "port", "dashboard_port", "num_gpus",
							 NULL };
		static const char *const nats_okeys[] = { "store_config", "max_payload_mb", NULL };
		static const struct hint ohints[] = {
			{ "eviction_ratio",
			  "'eviction_ratio' is an option of the mooncake-master (TRT-LLM's pool)" },
			{ "master_timeout_s",
			  "'master_timeout_s' is an option of the mooncake-master (TRT-LLM's pool)" },
			{ "store_role",
			  "'store_role' is an option of the mooncake-master (TRT-LLM's pool)" },
			{ "size", "'size' is an option of the mooncake-donor (TRT-LLM's pool)" },
			{ "protocol",
			  "'protocol' is an option of the mooncake-donor (TRT-LLM's pool)" },
			{ NULL, NULL },
		};

		s->options = v;
		check_keys(c, v, join(c, path, "options"),
			   s->type == SRT_SVC_NATS	      ? nats_okeys :
			   s->type == SRT_SVC_MOONCAKE_MASTER ? master_okeys :
			   s->type == SRT_SVC_MOONCAKE_DONOR  ? donor_okeys :
			   s->type == SRT_SVC_RAY	      ? ray_okeys :
								okeys,
			   ohints, SRT_SCHEMA_SERVICE_OPTIONS);
		if (s->type == SRT_SVC_MOONCAKE_MASTER)
			parse_pool_options(c, s, v, join(c, path, "options"));
		if (s->type == SRT_SVC_MOONCAKE_DONOR)
			parse_donor_options(c, s, v, join(c, path, "options"));
		if (s->type == SRT_SVC_RAY) {
			opt_int(c, v, join(c, path, "options"), "port", &s->ray_port, 1, 65535);
			opt_int(c, v, join(c, path, "options"), "dashboard_port",
				&s->ray_dashboard_port, 1, 65535);
			opt_int(c, v, join(c, path, "options"), "num_gpus", &s->ray_num_gpus, 1,
				1024);
		}
		s->store_config = srt_ynode_get(v, "store_config");
		if (s->type == SRT_SVC_NATS && srt_ynode_get(v, "max_payload_mb"))
			check_max_payload(c, srt_ynode_get(v, "max_payload_mb"),
					  join(c, path, "options.max_payload_mb"));
		if (s->store_config && srt_ynode_is_null(s->store_config))
			s->store_config = NULL;
		else if (s->store_config && s->store_config->kind != SRT_Y_MAP) {
			err(c, s->store_config, join(c, path, "options.store_config"),
			    "must be a mapping of MooncakeStoreConfig fields, not %s",
			    srt_ynode_describe(s->store_config));
			s->store_config = NULL;
		}
	}
	parse_placement(c, srt_ynode_get(n, "placement"), join(c, path, "placement"), &s->placement,
			&s->pool);
	parse_external(c, s, srt_ynode_get(n, "external"), join(c, path, "external"));
	parse_pool_owner(c, s, n, path);
	parse_start(c, srt_ynode_get(n, "start"), join(c, path, "start"), &s->start);
	parse_readiness(c, srt_ynode_get(n, "readiness"), join(c, path, "readiness"),
			&s->readiness);
	opt_bool(c, n, path, "terminal", &s->terminal);
	/* a terminal service is the run: its exit ends it, not a restart */
	restart_defaults(&s->restart, s->terminal ? SRT_RESTART_NEVER : SRT_RESTART_ON_FAILURE);
	parse_restart(c, srt_ynode_get(n, "restart"), join(c, path, "restart"), &s->restart);

	/* Type defaults. */
	s->critical = s->type != SRT_SVC_GENERIC;
	opt_bool(c, n, path, "critical", &s->critical);
	if (s->placement == SRT_PLACE_DEFAULT)
		s->placement = s->type == SRT_SVC_MOONCAKE_MASTER || s->type == SRT_SVC_ETCD ||
					       s->type == SRT_SVC_NATS ?
				       SRT_PLACE_INFRA :
			       s->type == SRT_SVC_MOONCAKE_STORE ||
					       s->type == SRT_SVC_LMCACHE_SERVER ||
					       s->type == SRT_SVC_RAY ?
				       SRT_PLACE_WORKERS :
			       s->type == SRT_SVC_MOONCAKE_DONOR ? SRT_PLACE_DECODE :
								   SRT_PLACE_HEAD;
	if (s->start == SRT_START_DEFAULT)
		s->start = s->type == SRT_SVC_GENERIC ? SRT_START_AFTER_FRONTEND :
			   s->type == SRT_SVC_ETCD || s->type == SRT_SVC_NATS ?
							SRT_START_INFRA :
							SRT_START_BEFORE_WORKERS;
	if (s->type == SRT_SVC_MOONCAKE_MASTER) {
		if (s->readiness.nprobes)
			err(c, s->readiness.node, join(c, path, "readiness"),
			    "the mooncake-master's readiness ports are owned by srtctl (RPC %d, HTTP "
			    "metadata %d, admin %d); set only timeout_seconds and interval_seconds",
			    SRT_MC_RPC_PORT, SRT_MC_METADATA_PORT, SRT_MC_ADMIN_PORT);
		s->readiness.probes[0] =
			(struct srt_probe){ SRT_PROBE_TCP, SRT_MC_RPC_PORT, NULL, 0 };
		s->readiness.probes[1] =
			(struct srt_probe){ SRT_PROBE_TCP, SRT_MC_METADATA_PORT, NULL, 0 };
		s->readiness.probes[2] =
			(struct srt_probe){ SRT_PROBE_HTTP, SRT_MC_ADMIN_PORT, "/health", 200 };
		s->readiness.nprobes = 3;
	}
	if (s->type == SRT_SVC_LMCACHE_SERVER && !s->readiness.nprobes)
		lmcache_readiness(&s->readiness);
	if (s->type == SRT_SVC_RAY)
		ray_defaults(c, s, path);
	if (s->type == SRT_SVC_MOONCAKE_DONOR && !s->readiness.nprobes) {
		/* the marker `trtllm-serve mooncake_donor --ready_file` writes once its memory is lent */
		s->readiness.probes[0] =
			(struct srt_probe){ SRT_PROBE_FILE, 0, SRT_DONOR_READY_FILE, 0 };
		s->readiness.nprobes = 1;
	}
}

static void parse_services(struct pctx *c, struct srt_recipe *r, const struct srt_ynode *n)
{
	if (srt_ynode_is_null(n))
		return;
	if (n->kind != SRT_Y_SEQ) {
		err(c, n, "services",
		    "must be a list of service entries (each line starting with '- name: ...'), "
		    "not %s",
		    srt_ynode_describe(n));
		return;
	}
	if (too_many(c, n, "services", SRT_RECIPE_MAX_SERVICES, "services"))
		return;
	r->services = srt_arena_alloc(c->a, (n->n ? n->n : 1) * sizeof(*r->services));
	r->nservices = n->n;
	for (size_t i = 0; i < n->n; i++)
		parse_service(c, &r->services[i], n->items[i], idx(c, "services", i));
}

/* ---- the other owned sections ---- */

static void parse_model(struct pctx *c, struct srt_recipe *r, const struct srt_ynode *n)
{
	static const char *const keys[] = { "path", "container", "precision", NULL };
	static const struct hint hints[] = {
		{ "stage_dir",
		  "'model.stage_dir' (staging to node-local disk) is not supported by srtctl" },
		{ NULL, NULL },
	};

	if (srt_ynode_is_null(n) || !want_map(c, n, "model"))
		return;
	check_keys(c, n, "model", keys, hints, SRT_SCHEMA_MODEL);
	opt_str(c, n, "model", "path", &r->model.path);
	opt_str(c, n, "model", "container", &r->model.container);
	opt_str(c, n, "model", "precision", &r->model.precision);
}

static void parse_resources(struct pctx *c, struct srt_recipe *r, const struct srt_ynode *n)
{
	static const char *const keys[] = { "gpu_type", "gpus_per_node", NULL };
	static const struct hint hints[] = {
		{ "prefill_nodes",
		  "'resources.prefill_nodes' is the v1 layout; write roles.prefill.nodes (srtctl migrate rewrites it)" },
		{ "decode_nodes",
		  "'resources.decode_nodes' is the v1 layout; write roles.decode.nodes (srtctl migrate rewrites it)" },
		{ "agg_nodes",
		  "'resources.agg_nodes' is the v1 layout; write roles.agg.nodes (srtctl migrate rewrites it)" },
		{ "prefill_workers",
		  "'resources.prefill_workers' is the v1 layout; write roles.prefill.workers (srtctl migrate rewrites it)" },
		{ "decode_workers",
		  "'resources.decode_workers' is the v1 layout; write roles.decode.workers (srtctl migrate rewrites it)" },
		{ "agg_workers",
		  "'resources.agg_workers' is the v1 layout; write roles.agg.workers (srtctl migrate rewrites it)" },
		{ "gpus_per_prefill",
		  "'resources.gpus_per_prefill' is the v1 layout; write roles.prefill.gpus (srtctl migrate rewrites it)" },
		{ "gpus_per_decode",
		  "'resources.gpus_per_decode' is the v1 layout; write roles.decode.gpus (srtctl migrate rewrites it)" },
		{ "gpus_per_agg",
		  "'resources.gpus_per_agg' is the v1 layout; write roles.agg.gpus (srtctl migrate rewrites it)" },
		{ "het_jobs", "heterogeneous jobs ('het_jobs') are not supported by srtctl" },
		{ "spread_workers", "'spread_workers' is not supported by srtctl" },
		{ NULL, NULL },
	};

	r->resources.gpus_per_node = SRT_DEFAULT_GPUS_PER_NODE;
	if (srt_ynode_is_null(n) || !want_map(c, n, "resources"))
		return;
	check_keys(c, n, "resources", keys, hints, SRT_SCHEMA_RESOURCES);
	opt_str(c, n, "resources", "gpu_type", &r->resources.gpu_type);
	opt_int(c, n, "resources", "gpus_per_node", &r->resources.gpus_per_node, 1, 1024);
}

static void parse_slurm(struct pctx *c, struct srt_recipe *r, const struct srt_ynode *n)
{
	static const char *const keys[] = { "account",	    "partition", "time_limit",
					    "directives",   "max_attempts", "exclusive",
					    NULL };

	r->slurm.max_attempts = SRT_MAX_ATTEMPTS_DEFAULT;
	r->slurm.exclusive = true;
	if (srt_ynode_is_null(n) || !want_map(c, n, "slurm"))
		return;
	check_keys(c, n, "slurm", keys, NULL, SRT_SCHEMA_SLURM);
	opt_int(c, n, "slurm", "max_attempts", &r->slurm.max_attempts, 1, 100);
	opt_bool(c, n, "slurm", "exclusive", &r->slurm.exclusive);
	r->slurm.exclusive_set = srt_ynode_get(n, "exclusive") != NULL;
	opt_str(c, n, "slurm", "account", &r->slurm.account);
	opt_str(c, n, "slurm", "partition", &r->slurm.partition);
	opt_str(c, n, "slurm", "time_limit", &r->slurm.time_limit);
}

/* sbatch directives: a mapping of option -> value ("" or null for a bare flag). */
static void parse_directives(struct pctx *c, struct srt_recipe *r, const struct srt_ynode *n,
			     const char *path)
{
	struct srt_env_var *nv;
	size_t total;

	if (srt_ynode_is_null(n) || !want_map(c, n, path))
		return;
	total = r->slurm.directives.n + n->n;
	if (total > SRT_RECIPE_MAX_DIRECTIVES) {
		err(c, n, path,
		    "brings the sbatch directives to %zu; a recipe may have at most %u (see Limits "
		    "in docs/recipe-reference.md)",
		    total, SRT_RECIPE_MAX_DIRECTIVES);
		return;
	}
	nv = srt_arena_alloc(c->a, (total ? total : 1) * sizeof(*nv));
	if (r->slurm.directives.n)
		memcpy(nv, r->slurm.directives.v, r->slurm.directives.n * sizeof(*nv));
	r->slurm.directives.v = nv;
	for (size_t i = 0; i < n->n; i++) {
		const struct srt_ynode *k = n->pairs[i].key, *v = n->pairs[i].value;
		const char *kp = join(c, path, k->str);
		struct srt_env_var *e;
		const char *name = k->str, *canon, *group, *value;
		struct srt_error derr;
		size_t j;

		while (*name == '-')
			name++;
		if (!*name || strpbrk(name, " \t\n=#")) {
			err(c, k, kp,
			    "'%s' is not an sbatch option name (e.g. 'cpus-per-gpu', 'mem')",
			    k->str);
			continue;
		}
		if (v->kind != SRT_Y_SCALAR) {
			err(c, v, kp, "must be a string, not %s", srt_ynode_describe(v));
			continue;
		}
		if (strchr(v->str, '\n') || strlen(v->str) != v->len) {
			err(c, v, kp, "an sbatch directive value cannot contain a newline or NUL");
			continue;
		}
		value = srt_ynode_is_null(v) ? "" : v->str;
		if (srt_script_directive_check(name, value, &canon, &group, &derr) != 0) {
			err(c, k, kp, "%s", derr.msg);
			continue;
		}
		/* One directive of a group (mem, mem-per-cpu, mem-per-gpu) per recipe. */
		for (j = 0; j < r->slurm.directives.n; j++) {
			const char *g2 = NULL;

			/* Sets the group before it checks the (absent) value. */
			(void)srt_slurm_directive_check(r->slurm.directives.v[j].name, NULL, NULL,
							&g2, NULL);
			if (g2 && !strcmp(g2, group))
				break;
		}
		if (j < r->slurm.directives.n) {
			err(c, k, kp,
			    "--%s and --%s both set the job's %s: keep one (SLURM takes one of %s)",
			    r->slurm.directives.v[j].name, canon, group, group);
			continue;
		}
		e = &r->slurm.directives.v[r->slurm.directives.n++];
		e->name = canon;
		e->value = value;
		e->node = v;
	}
}

static void parse_frontend(struct pctx *c, struct srt_recipe *r, const struct srt_ynode *n)
{
	static const char *const keys[] = { "type",
					    "command",
					    "args",
					    "env",
					    "port",
					    "ctx_router",
					    "gen_router",
					    "server_config_extra",
					    "enable_multiple_frontends",
					    "num_additional_frontends",
					    "nginx_container",
					    "nginx_raise_ulimit",
					    "nginx_session_affinity",
					    "nginx_session_affinity_header",
					    "nginx_keepalive_timeout",
					    "container_image",
					    NULL };
	static const char *const ser[] = { "ctx_router", "gen_router", "server_config_extra" };
	const struct srt_ynode **ser_out[] = { &r->frontend.ctx_router, &r->frontend.gen_router,
					       &r->frontend.server_config_extra };
	static const struct hint hints[] = {
		{ "use_nginx",
		  "several frontends without nginx (use_nginx: false) are not run; srtctl runs "
		  "nginx in front of them (enable_multiple_frontends: true) or one frontend" },
		{ "placement",
		  "'frontend.placement' is not supported by srtctl: the frontend runs on the head node" },
		{ "dedicated_node",
		  "'frontend.dedicated_node' (v1) is not supported by srtctl: the frontend runs on the head node" },
		{ "orchestrator_placement",
		  "'frontend.orchestrator_placement' (v1) is not supported by srtctl: the frontend runs on the head node" },
		{ NULL, NULL },
	};
	const struct srt_ynode *v;

	r->frontend.type = "none";
	r->frontend.port = 8000;
	r->frontend.additional = SRT_FRONTEND_ADDITIONAL_DEFAULT;
	r->frontend.nginx_container = SRT_NGINX_CONTAINER_DEFAULT;
	r->frontend.nginx_raise_ulimit = -1;
	r->frontend.nginx_header = SRT_NGINX_AFFINITY_HEADER_DEFAULT;
	r->frontend.nginx_keepalive = SRT_NGINX_KEEPALIVE_DEFAULT;
	r->frontend.node = n;
	if (srt_ynode_is_null(n) || !want_map(c, n, "frontend"))
		return;
	check_keys(c, n, "frontend", keys, hints, SRT_SCHEMA_FRONTEND);
	opt_str(c, n, "frontend", "type", &r->frontend.type);
	parse_argv(c, srt_ynode_get(n, "command"), "frontend.command", &r->frontend.command);
	v = srt_ynode_get(n, "args");
	if (v && !srt_ynode_is_null(v) && want_map(c, v, "frontend.args") &&
	    !too_many(c, v, "frontend.args", SRT_RECIPE_MAX_ARGS, "args"))
		r->frontend.args = v;
	parse_env(c, srt_ynode_get(n, "env"), "frontend.env", &r->frontend.env);
	opt_str(c, n, "frontend", "container_image", &r->frontend.container);
	opt_int(c, n, "frontend", "port", &r->frontend.port, 1, 65535);
	opt_bool(c, n, "frontend", "enable_multiple_frontends", &r->frontend.multiple);
	opt_int(c, n, "frontend", "num_additional_frontends", &r->frontend.additional, 0,
		SRT_FRONTEND_ADDITIONAL_MAX);
	opt_str(c, n, "frontend", "nginx_container", &r->frontend.nginx_container);
	v = srt_ynode_get(n, "nginx_raise_ulimit");
	if (v && !srt_ynode_is_null(v)) {
		bool up = false;

		if (want_bool(c, v, "frontend.nginx_raise_ulimit", &up))
			r->frontend.nginx_raise_ulimit = up;
	}
	opt_bool(c, n, "frontend", "nginx_session_affinity", &r->frontend.nginx_affinity);
	opt_str(c, n, "frontend", "nginx_session_affinity_header", &r->frontend.nginx_header);
	opt_str(c, n, "frontend", "nginx_keepalive_timeout", &r->frontend.nginx_keepalive);
	for (size_t i = 0; i < 3; i++) {
		v = srt_ynode_get(n, ser[i]);
		if (v && !srt_ynode_is_null(v) && want_map(c, v, join(c, "frontend", ser[i])))
			*ser_out[i] = v;
	}
}

static void parse_benchmark(struct pctx *c, struct srt_recipe *r, const struct srt_ynode *n)
{
	/* srtctl runs `command`; the other fields are parameters handed to it as env. */
	static const char *const keys[] = { "type",
					    "command",
					    "env",
					    "container_image",
					    "isl",
					    "osl",
					    "concurrencies",
					    "req_rate",
					    "stream_output",
					    "num_examples",
					    "max_tokens",
					    "repeat",
					    "num_threads",
					    "max_context_length",
					    "categories",
					    "num_shots",
					    "temperature",
					    "top_p",
					    "top_k",
					    "num_requests",
					    "concurrency",
					    "prefix_ratios",
					    "mooncake_workload",
					    "ttft_threshold_ms",
					    "itl_threshold_ms",
					    "random_range_ratio",
					    "num_prompts_mult",
					    "num_warmup_mult",
					    "dataset_name",
					    "dataset_path",
					    "trace_file",
					    "custom_tokenizer",
					    "use_chat_template",
					    "aiperf_args",
					    "aiperf_package",
					    NULL };
	static const struct hint hints[] = {
		{ "placement",
		  "'benchmark.placement' is not supported by srtctl: the benchmark runs on the head node" },
		{ "sweep",
		  "'benchmark.sweep' is not supported by srtctl; use one recipe per point (or a variant file)" },
		{ "client_placement",
		  "'benchmark.client_placement' (v1) is not supported by srtctl: the benchmark runs on the head node" },
		{ "client_dedicated_node",
		  "'benchmark.client_dedicated_node' (v1) is not supported by srtctl: the benchmark runs on the head node" },
		{ NULL, NULL },
	};

	r->benchmark.type = "manual";
	r->benchmark.node = n;
	if (srt_ynode_is_null(n) || !want_map(c, n, "benchmark"))
		return;
	check_keys(c, n, "benchmark", keys, hints, SRT_SCHEMA_BENCHMARK);
	opt_str(c, n, "benchmark", "type", &r->benchmark.type);
	opt_str(c, n, "benchmark", "command", &r->benchmark.command);
	parse_env(c, srt_ynode_get(n, "env"), "benchmark.env", &r->benchmark.env);
}

/*
 * A Dynamo version as pip takes it after "==" (PEP 440's letters): it is
 * passed to pip, and nothing else may ride along in it.
 */
static bool dynamo_version_ok(const char *v)
{
	size_t n = strlen(v);

	if (!n || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!srt_ascii_alnum(v[i]) && !strchr(".+!-_", v[i]))
			return false;
	return true;
}

/* A git commit or ref (srt-slurm's source.rev, v1 hash): letters, digits, . _ / - only. */
static bool dynamo_rev_ok(const char *v)
{
	size_t n = strlen(v);

	if (!n || n > 255 || v[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!srt_ascii_alnum(v[i]) && !strchr("._/-", v[i]))
			return false;
	return true;
}

static void dynamo_version(struct pctx *c, struct srt_recipe *r, const struct srt_ynode *v,
			   const char *path, enum srt_dynamo_from from)
{
	const char *s;

	if (!want_str(c, v, path, &s))
		return;
	if (from == SRT_DYNAMO_FROM_GIT ? !dynamo_rev_ok(s) : !dynamo_version_ok(s)) {
		err(c, v, path,
		    from == SRT_DYNAMO_FROM_GIT ?
			    "'%s' is not a git commit or ref (letters, digits, '.', '_', '/', '-')" :
			    "'%s' is not a version pip takes (e.g. 0.8.0 or 1.4.0.dev20260730)",
		    s);
		return;
	}
	r->dynamo.from = from;
	r->dynamo.version = s;
}

/*
 * dynamo.source (srt-slurm 2.0): exactly one of git (with rev), pypi or
 * wheel, as its DynamoSourceConfig checks.
 */
static void parse_dynamo_source(struct pctx *c, struct srt_recipe *r, const struct srt_ynode *n)
{
	static const char *const keys[] = { "git", "rev", "sha", "patches", "pypi", "wheel", NULL };
	static const char *const banned_revs[] = { "main", "master", "HEAD", NULL };
	const struct srt_ynode *git = srt_ynode_get(n, "git"), *rev = srt_ynode_get(n, "rev");
	const struct srt_ynode *pypi = srt_ynode_get(n, "pypi"), *wheel = srt_ynode_get(n, "wheel");
	const char *s;
	int kinds = (git || rev) + !!pypi + !!wheel;

	if (!want_map(c, n, "dynamo.source"))
		return;
	check_keys(c, n, "dynamo.source", keys, NULL, SRT_SCHEMA_NONE);
	if (kinds != 1) {
		err(c, n, "dynamo.source",
		    "names %s; write exactly one of git (with rev), pypi or wheel",
		    kinds ? "more than one source" : "no source");
		return;
	}
	if (pypi) {
		dynamo_version(c, r, pypi, "dynamo.source.pypi", SRT_DYNAMO_FROM_PYPI);
	} else if (wheel) {
		dynamo_version(c, r, wheel, "dynamo.source.wheel", SRT_DYNAMO_FROM_WHEEL);
	} else if (!rev) {
		err(c, git, "dynamo.source.git", "needs rev: the commit, tag or ref to build");
	} else if (want_str(c, rev, "dynamo.source.rev", &s) && in_list(s, banned_revs)) {
		err(c, rev, "dynamo.source.rev",
		    "'%s' moves; name a commit, a tag or refs/pull/<n>/head", s);
	} else {
		dynamo_version(c, r, srt_ynode_get(n, "sha") ? srt_ynode_get(n, "sha") : rev,
			       "dynamo.source.rev", SRT_DYNAMO_FROM_GIT);
	}
	for (const char *const *k = (const char *const[]){ "sha", "patches", NULL }; *k; k++)
		if (srt_ynode_get(n, *k) && (pypi || wheel))
			err(c, srt_ynode_get(n, *k), join(c, "dynamo.source", *k),
			    "belongs to a git source; pypi and wheel take none");
}

/*
 * What Dynamo the recipe's Dynamo processes install (srt-slurm's
 * DynamoConfig): install (default true), then source (2.0) or the v1 keys
 * version, hash, wheel, top_of_tree; nothing written is PyPI's
 * SRT_DYNAMO_DEFAULT_VERSION.  Only one source may be named.
 */
static void parse_dynamo_install(struct pctx *c, struct srt_recipe *r, const struct srt_ynode *n)
{
	static const char *const sources[] = { "source", "version",	"hash",
					       "wheel",	 "top_of_tree", NULL };
	const struct srt_ynode *v;
	const char *first = NULL;
	bool install = true, top = false;
	int named = 0;

	r->dynamo.from = SRT_DYNAMO_FROM_PYPI;
	r->dynamo.version = SRT_DYNAMO_DEFAULT_VERSION;
	if (srt_ynode_is_null(n) || n->kind != SRT_Y_MAP)
		return;
	for (const char *const *k = sources; *k; k++) {
		v = srt_ynode_get(n, *k);
		if (!v || srt_ynode_is_null(v))
			continue;
		if (!strcmp(*k, "top_of_tree") &&
		    (!want_bool(c, v, "dynamo.top_of_tree", &top) || !top))
			continue;
		r->dynamo.install_written = true;
		if (named++) {
			err(c, v, join(c, "dynamo", *k),
			    "a second Dynamo source beside '%s'; name one (source: in srt-slurm "
			    "2.0, or one of version, hash, wheel, top_of_tree)",
			    first);
			return;
		}
		first = *k;
	}
	if ((v = srt_ynode_get(n, "source")) && !srt_ynode_is_null(v))
		parse_dynamo_source(c, r, v);
	else if ((v = srt_ynode_get(n, "version")) && !srt_ynode_is_null(v))
		dynamo_version(c, r, v, "dynamo.version", SRT_DYNAMO_FROM_PYPI);
	else if ((v = srt_ynode_get(n, "hash")) && !srt_ynode_is_null(v))
		dynamo_version(c, r, v, "dynamo.hash", SRT_DYNAMO_FROM_GIT);
	else if ((v = srt_ynode_get(n, "wheel")) && !srt_ynode_is_null(v))
		dynamo_version(c, r, v, "dynamo.wheel", SRT_DYNAMO_FROM_WHEEL);
	else if (top)
		r->dynamo.from = SRT_DYNAMO_FROM_TOP_OF_TREE, r->dynamo.version = NULL;
	if ((v = srt_ynode_get(n, "cargo_patches")) && !srt_ynode_is_null(v) &&
	    r->dynamo.from != SRT_DYNAMO_FROM_GIT)
		err(c, v, "dynamo.cargo_patches",
		    "patches a source build and needs dynamo.hash (the commit to build)");
	if ((v = srt_ynode_get(n, "install"))) {
		r->dynamo.install_written = true;
		if (want_bool(c, v, "dynamo.install", &install) && !install)
			r->dynamo.from = SRT_DYNAMO_FROM_NONE;
	}
}

/*
 * dynamo: the planes Dynamo's processes use, and the Dynamo they install
 * (parse_dynamo_install).
 */
static void parse_dynamo(struct pctx *c, struct srt_recipe *r, const struct srt_ynode *n)
{
	/* sidecar: false is what srtctl runs; true is warned about below. */
	static const char *const keys[] = { "request_plane", "event_plane",   "sidecar", "install",
					    "version",	     "hash",	      "wheel",	 "source",
					    "top_of_tree",   "cargo_patches", NULL };
	static const char *const request_planes[] = { "tcp", "nats", NULL };
	static const char *const event_planes[] = { "zmq", "nats", NULL };
	const struct srt_ynode *v;
	bool sidecar = false;

	r->dynamo.request_plane = "tcp";
	r->dynamo.node = n;
	parse_dynamo_install(c, r, n);
	if (srt_ynode_is_null(n) || !want_map(c, n, "dynamo"))
		return;
	check_keys(c, n, "dynamo", keys, NULL, SRT_SCHEMA_DYNAMO);
	opt_str(c, n, "dynamo", "request_plane", &r->dynamo.request_plane);
	opt_str(c, n, "dynamo", "event_plane", &r->dynamo.event_plane);
	v = srt_ynode_get(n, "request_plane");
	if (v && !in_list(r->dynamo.request_plane, request_planes))
		err(c, v, "dynamo.request_plane",
		    "unknown request plane '%s'; expected tcp or nats", r->dynamo.request_plane);
	v = srt_ynode_get(n, "event_plane");
	if (v && r->dynamo.event_plane && !in_list(r->dynamo.event_plane, event_planes))
		err(c, v, "dynamo.event_plane", "unknown event plane '%s'; expected zmq or nats",
		    r->dynamo.event_plane);
	v = srt_ynode_get(n, "sidecar");
	if (v && want_bool(c, v, "dynamo.sidecar", &sidecar) && sidecar)
		warn(c, v, "dynamo.sidecar", "%s; ignored (kept in the spec for srt-slurm)",
		     SIDECAR_IGNORED);
}

/* Is a service named `name` written in the recipe (enabled or not)? */
static bool service_declared(const struct srt_recipe *r, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (r->services[i].name && !strcmp(r->services[i].name, name))
			return true;
	return false;
}

/*
 * Where an implied lmcache-server runs: the nodes of the one vLLM role with
 * connector lmcache-mp, or every worker node when several roles use it;
 * SRT_PLACE_DEFAULT when none does or an lmcache-server entry is written
 * (enabled or not: `enabled: false` is how a recipe switches it off).
 */
static enum srt_placement lmcache_implied_at(const struct srt_recipe *r)
{
	static const enum srt_placement at[SRT_ROLE_COUNT] = {
		[SRT_ROLE_PREFILL] = SRT_PLACE_PREFILL,
		[SRT_ROLE_DECODE] = SRT_PLACE_DECODE,
		[SRT_ROLE_AGG] = SRT_PLACE_AGG,
	};
	enum srt_placement p = SRT_PLACE_DEFAULT;
	int users = 0;

	for (size_t i = 0; i < r->nservices; i++)
		if (r->services[i].type == SRT_SVC_LMCACHE_SERVER)
			return SRT_PLACE_DEFAULT;
	for (int k = 0; k < SRT_ROLE_COUNT; k++)
		if (srt_role_uses_lmcache_mp(r, (enum srt_role_kind)k)) {
			p = at[k];
			users++;
		}
	return users > 1 ? SRT_PLACE_WORKERS : p;
}

/*
 * The services the recipe implies (srt-slurm 2.0 does the same): etcd under
 * the Dynamo frontend, NATS when a Dynamo plane is NATS, an lmcache-server
 * beside vLLM roles with connector lmcache-mp.  A service written under the
 * same name takes the implied one's place.
 */
static void add_implied_services(struct pctx *c, struct srt_recipe *r)
{
	bool dynamo = r->frontend.type && !strcmp(r->frontend.type, "dynamo");
	enum srt_placement lmcache_at = lmcache_implied_at(r);
	struct {
		const char *name;
		enum srt_service_type type;
		bool want;
		enum srt_placement placement;
		enum srt_start start;
		const struct srt_ynode *why;
	} implied[] = {
		{ "etcd", SRT_SVC_ETCD, dynamo, SRT_PLACE_INFRA, SRT_START_INFRA,
		  r->frontend.node },
		{ "nats", SRT_SVC_NATS,
		  dynamo && (!strcmp(r->dynamo.request_plane, "nats") ||
			     (r->dynamo.event_plane && !strcmp(r->dynamo.event_plane, "nats"))),
		  SRT_PLACE_INFRA, SRT_START_INFRA, r->frontend.node },
		{ "lmcache-server", SRT_SVC_LMCACHE_SERVER, lmcache_at != SRT_PLACE_DEFAULT,
		  lmcache_at, SRT_START_BEFORE_WORKERS, r->connector },
	};
	size_t nimplied = sizeof(implied) / sizeof(implied[0]);
	struct srt_service *all;
	size_t n = r->nservices;

	all = srt_arena_alloc(c->a, (n + nimplied) * sizeof(*all));
	if (n)
		memcpy(all, r->services, n * sizeof(*all));
	for (size_t k = 0; k < nimplied; k++) {
		struct srt_service *s;

		if (!implied[k].want || service_declared(r, r->nservices, implied[k].name))
			continue;
		s = &all[n++];
		memset(s, 0, sizeof(*s));
		s->name = implied[k].name;
		s->type = implied[k].type;
		s->type_name = srt_service_type_name(s->type);
		s->enabled = true;
		s->placement = implied[k].placement;
		s->start = implied[k].start;
		s->critical = true;
		s->implied = true;
		restart_defaults(&s->restart, SRT_RESTART_ON_FAILURE);
		if (s->type == SRT_SVC_LMCACHE_SERVER) {
			s->readiness.timeout_seconds = SRT_READINESS_TIMEOUT_DEFAULT;
			s->readiness.interval_seconds = SRT_READINESS_INTERVAL_DEFAULT;
			lmcache_readiness(&s->readiness);
		}
		s->node = implied[k].why;
	}
	r->services = all;
	r->nservices = n;
}

/*
 * health_check: the readiness window of every worker.  srt-slurm also fails
 * a run on "fatal" lines in a worker's log; srtctl goes by the process and
 * its probes, so patterns are kept with a warning.
 */
static void parse_health_check(struct pctx *c, struct srt_recipe *r, const struct srt_ynode *n)
{
	static const char *const keys[] = { "max_attempts", "interval_seconds", "fatal_log_markers",
					    NULL };
	static const struct hint hints[] = {
		{ "extra_fatal_log_patterns",
		  "srtctl does not scan worker logs: a worker fails when its process exits or "
		  "it is not ready within max_attempts x interval_seconds" },
		{ NULL, NULL },
	};
	const struct srt_ynode *v;
	bool markers = false;

	if (srt_ynode_is_null(n) || !want_map(c, n, "health_check"))
		return;
	check_keys(c, n, "health_check", keys, hints, SRT_SCHEMA_HEALTH_CHECK);
	/* At most about a year: the product stays well inside an int. */
	opt_int(c, n, "health_check", "max_attempts", &r->health_check.max_attempts, 1, 1000000);
	opt_int(c, n, "health_check", "interval_seconds", &r->health_check.interval_seconds, 1,
		3600);
	opt_bool(c, n, "health_check", "fatal_log_markers", &markers);
	v = srt_ynode_get(n, "fatal_log_markers");
	if (markers)
		warn(c, v, "health_check.fatal_log_markers",
		     "srtctl does not scan worker logs for fatal lines: a worker fails when its "
		     "process exits (every rank of a multi-node worker is watched) or it is not "
		     "ready within max_attempts x interval_seconds; ignored");
}

/* One mount of extra_mount (spec "SRC:DST[:FLAGS]") or container_mounts (src: "DST[:FLAGS]"). */
static void add_mount(struct pctx *c, struct srt_recipe *r, const struct srt_ynode *at,
		      const char *path, const char *shown, const char *src, const char *target)
{
	const char *why;
	bool relative;

	why = srt_mount_problem(src, target, &relative);
	if (why) {
		err(c, at, path, "'%s': %s", shown, why);
		return;
	}
	if (relative)
		warn(c, at, path,
		     "'%s' is not an absolute host path (a placeholder to fill in, or an "
		     "environment variable that is not set?); pyxis will fail to mount it if the "
		     "node has no such path",
		     src);
	r->mounts.v[r->mounts.n++] =
		(struct srt_env_var){ srt_arena_printf(c->a, "%s:%s", src, target), path, at };
}

/*
 * setup_script: srt-slurm's script in its configs/ directory ("x.sh",
 * "patches/y.sh"), which the workers run before they start.
 */
static void parse_setup_script(struct pctx *c, struct srt_recipe *r, const struct srt_ynode *n)
{
	const char *s;

	if (srt_ynode_is_null(n) || !want_str(c, n, "setup_script", &s))
		return;
	if (!*s || s[0] == '/' || !strcmp(s, "..") || srt_str_has_prefix(s, "../") ||
	    strstr(s, "/../") || (strlen(s) >= 3 && !strcmp(s + strlen(s) - 3, "/.."))) {
		err(c, n, "setup_script",
		    "'%s' is not a script in srt-slurm's configs/ directory: write its path "
		    "relative to configs/ (e.g. install-deps.sh), without '..'",
		    s);
		return;
	}
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f) {
			err(c, n, "setup_script", "must not contain control characters");
			return;
		}
	r->setup_script = s;
}

/* extra_mount (a list of "SRC:DST[:FLAGS]") and container_mounts (SRC: DST), in that order. */
static void parse_mounts(struct pctx *c, struct srt_recipe *r, const struct srt_ynode *extra,
			 const struct srt_ynode *map)
{
	size_t cap = 1;

	if (!srt_ynode_is_null(extra) && want_seq(c, extra, "extra_mount") &&
	    !too_many(c, extra, "extra_mount", SRT_RECIPE_MAX_ARGS, "mounts"))
		cap += extra->n;
	else
		extra = NULL;
	if (!srt_ynode_is_null(map) && want_map(c, map, "container_mounts") &&
	    !too_many(c, map, "container_mounts", SRT_RECIPE_MAX_ARGS, "mounts"))
		cap += map->n;
	else
		map = NULL;
	r->mounts.v = srt_arena_alloc(c->a, cap * sizeof(*r->mounts.v));
	for (size_t i = 0; extra && i < extra->n; i++) {
		const char *path = srt_arena_printf(c->a, "extra_mount[%zu]", i);
		const char *spec;
		const char *colon;

		if (!want_str(c, extra->items[i], path, &spec))
			continue;
		colon = strchr(spec, ':');
		add_mount(c, r, extra->items[i], path, spec,
			  colon ? srt_arena_printf(c->a, "%.*s", (int)(colon - spec), spec) : NULL,
			  colon ? colon + 1 : NULL);
	}
	for (size_t i = 0; map && i < map->n; i++) {
		const struct srt_ypair *p = &map->pairs[i];
		const char *path = join(c, "container_mounts", p->key->str);
		const char *dst;

		if (want_str(c, p->value, path, &dst))
			add_mount(c, r, p->value, path,
				  srt_arena_printf(c->a, "%s: %s", p->key->str, dst), p->key->str,
				  dst);
	}
}

/* Top-level sections srtctl models. */
static const char *const owned_keys[] = { "name",
					  "schema",
					  "engine",
					  "roles",
					  "services",
					  "model",
					  "resources",
					  "slurm",
					  "sbatch_directives",
					  "environment",
					  "frontend",
					  "benchmark",
					  "dynamo",
					  "health_check",
					  "extra_mount",
					  "container_mounts",
					  "srun_options",
					  "setup_script",
					  NULL };

/* "dir/x.yaml" -> "dir/x.campaign.yaml": where migrate may write a sweep's campaign. */
static const char *sweep_output(struct pctx *c, const char *file)
{
	size_t n;

	if (!file || !strcmp(file, "-"))
		return "CAMPAIGN.yaml";
	n = strlen(file);
	if (n > 5 && !strcmp(file + n - 5, ".yaml"))
		n -= 5;
	else if (n > 4 && !strcmp(file + n - 4, ".yml"))
		n -= 4;
	return srt_arena_printf(c->a, "%.*s.campaign.yaml", (int)n, file);
}

struct srt_recipe *srt_recipe_parse(struct srt_ydoc *doc, const struct srt_ynode *root,
				    const char *default_name, struct srt_diags *diags)
{
	struct pctx c = { doc, &doc->arena, diags };
	struct srt_recipe *r;
	const struct srt_ynode *v;

	if (!root) {
		srt_diags_add(diags, SRT_DIAG_ERROR, doc->file, 0, 0, NULL,
			      "the file is empty; a recipe needs at least 'engine', 'roles' and "
			      "'services' (see docs/recipe-reference.md)");
		return NULL;
	}
	if (root->kind != SRT_Y_MAP) {
		err(&c, root, NULL, "a recipe must be a mapping at the top level, not %s",
		    srt_ynode_describe(root));
		return NULL;
	}
	if (srt_recipe_doc_is_v1(root)) {
		const struct srt_ypair *p = srt_ynode_get_pair(root, "backend");

		err(&c, p->key, "backend",
		    "this recipe uses the v1 layout ('backend:'); srtctl reads the v2 layout "
		    "(engine, roles, services). Convert it with: srtctl migrate -f %s --in-place",
		    doc->file);
		return NULL;
	}
	r = srt_arena_alloc(c.a, sizeof(*r));
	r->doc = doc;
	r->root = root;
	r->file = doc->file;
	r->name = default_name;
	opt_str(&c, root, NULL, "name", &r->name);
	check_name(&c, srt_ynode_get(root, "name"), "name", r->name,
		   "it names the SLURM job and the run directory");
	v = srt_ynode_get(root, "schema");
	if (v && want_int(&c, v, "schema", &r->schema, 1, 1000) && r->schema != 2)
		err(&c, v, "schema",
		    "schema %d is not supported; srtctl reads schema 2 (the v2 layout). For a v1 "
		    "recipe run: srtctl migrate -f %s",
		    r->schema, doc->file);
	v = srt_ynode_get(root, "engine");
	if (srt_ynode_get_pair(root, "backend")) {
		const struct srt_ypair *p = srt_ynode_get_pair(root, "backend");
		const struct srt_ynode *type = srt_ynode_get(p->value, "type");

		if (p->value->kind == SRT_Y_MAP && p->value->n == 1 && type && !v) {
			/* srt-slurm's early schema-2 examples name the engine this way. */
			warn(&c, p->key, "backend",
			    "'backend: {type: ...}' beside roles is read as 'engine'; write "
			    "'engine: %s' instead",
			    srt_ynode_str(type) ? srt_ynode_str(type) : "...");
			v = type;
		} else {
			err(&c, p->key, "backend",
			    "'backend' is the v1 layout and cannot be mixed with engine/roles; move "
			    "its settings to engine and roles.<role> (srtctl migrate does it for v1 "
			    "files)");
		}
	}
	parse_engine(&c, r, v);
	parse_roles(&c, r, srt_ynode_get(root, "roles"));
	parse_role_engines(&c, r);
	parse_services(&c, r, srt_ynode_get(root, "services"));
	parse_model(&c, r, srt_ynode_get(root, "model"));
	parse_resources(&c, r, srt_ynode_get(root, "resources"));
	parse_slurm(&c, r, srt_ynode_get(root, "slurm"));
	v = srt_ynode_get(root, "slurm");
	if (v && v->kind == SRT_Y_MAP)
		parse_directives(&c, r, srt_ynode_get(v, "directives"), "slurm.directives");
	parse_directives(&c, r, srt_ynode_get(root, "sbatch_directives"), "sbatch_directives");
	r->srun_options =
		parse_srun_options(&c, srt_ynode_get(root, "srun_options"), "srun_options");
	parse_env(&c, srt_ynode_get(root, "environment"), "environment", &r->environment);
	parse_frontend(&c, r, srt_ynode_get(root, "frontend"));
	parse_dynamo(&c, r, srt_ynode_get(root, "dynamo"));
	add_implied_services(&c, r);
	parse_benchmark(&c, r, srt_ynode_get(root, "benchmark"));
	parse_health_check(&c, r, srt_ynode_get(root, "health_check"));
	parse_mounts(&c, r, srt_ynode_get(root, "extra_mount"),
		     srt_ynode_get(root, "container_mounts"));
	parse_setup_script(&c, r, srt_ynode_get(root, "setup_script"));

	/*
	 * A section srt-slurm knows is kept (it is part of the spec) but not acted
	 * on; anything else is a mistake.
	 */
	r->unsupported = srt_arena_alloc(c.a, root->n * sizeof(*r->unsupported) + 1);
	for (size_t i = 0; i < root->n; i++) {
		const struct srt_ypair *p = &root->pairs[i];
		const char *key = p->key->str;
		const char *sugg;

		if (in_list(key, owned_keys) || !strcmp(key, "backend"))
			continue;
		if (!strcmp(key, "sweep")) {
			/* Ignoring it would run one job with {placeholders} left in. */
			err(&c, p->key, key,
			    "srtctl runs a sweep as a campaign: srt-slurm submits one job per "
			    "combination of the 'sweep' values, and this recipe alone would run "
			    "once with its {placeholders} left in. Write the campaign with: srtctl "
			    "migrate -f %s -o %s, then apply that file",
			    r->file ? r->file : "RECIPE.yaml", sweep_output(&c, r->file));
			continue;
		}
		if (srt_schema_has_key(SRT_SCHEMA_TOP, key)) {
			r->unsupported[r->nunsupported++] = p;
			warn(&c, p->key, key, "'%s' is not supported by srtctl and is ignored",
			     key);
			continue;
		}
		sugg = srt_did_you_mean(key, owned_keys);
		if (!sugg)
			sugg = srt_did_you_mean(key, srt_schema_keys(SRT_SCHEMA_TOP, NULL));
		if (sugg)
			err(&c, p->key, key, "unknown top-level key '%s'; did you mean '%s'?", key,
			    sugg);
		else
			err(&c, p->key, key,
			    "unknown top-level key '%s': neither srtctl nor srt-slurm reads it (see "
			    "docs/recipe-reference.md for the sections)",
			    key);
	}
	return r;
}
