/*
 * recipe/campaign.c: parsing and expanding `kind: Campaign` documents.
 *
 * Parsing reads the document into struct srt_campaign (in the document's
 * arena) and reports every problem it finds, not only the first.
 * Expansion builds each deployment's recipe tree by copy-on-write from the
 * template: only the mappings and lists on an axis path are copied, every
 * other node is shared (the trees are never modified once built), so a
 * thousand deployments of a large template stay cheap.  See campaign.h for
 * the identity rules.
 */
#include "recipe/campaign.h"
#include "loadgen/loadgen.h"
#include "recipe/canon.h"
#include "recipe/envvars.h"
#include "recipe/model.h"
#include "recipe/render.h"
#include "recipe/variants.h"
#include "recipe/yemit.h"
#include "util/buf.h"
#include "util/sha256.h"
#include "util/strutil.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *srt_bench_tool_name(enum srt_bench_tool t)
{
	switch (t) {
	case SRT_BENCH_VLLM:
		return "vllm-bench";
	case SRT_BENCH_SA:
		return "sa-bench";
	case SRT_BENCH_CUSTOM:
		break;
	}
	return "custom";
}

const char *srt_campaign_order_name(enum srt_campaign_order o)
{
	return o == SRT_ORDER_SMALLEST_FIRST ? "smallest-first" : "declared";
}

struct cctx {
	struct srt_ydoc *doc;
	struct srt_diags *d;
	const char *file;
};

static void err(struct cctx *c, const struct srt_ynode *n, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void err(struct cctx *c, const struct srt_ynode *n, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	srt_diags_vadd(c->d, SRT_DIAG_ERROR, c->file, n ? n->line : 1, n ? n->col : 1, path, fmt,
		       ap);
	va_end(ap);
}

static const char *join(struct cctx *c, const char *a, const char *b)
{
	return srt_arena_printf(&c->doc->arena, "%s.%s", a, b);
}

/* Unknown keys are errors, with the closest known key suggested. */
static void check_keys(struct cctx *c, const struct srt_ynode *map, const char *path,
		       const char *const *allowed)
{
	for (size_t i = 0; i < map->n; i++) {
		const struct srt_ynode *k = map->pairs[i].key;
		const char *sugg;
		struct srt_buf list;
		bool known = false;

		for (size_t a = 0; allowed[a]; a++)
			known = known || !strcmp(allowed[a], k->str);
		if (known)
			continue;
		sugg = srt_did_you_mean(k->str, allowed);
		if (sugg) {
			err(c, k, path ? join(c, path, k->str) : k->str,
			    "unknown key '%s'; did you mean '%s'?", k->str, sugg);
			continue;
		}
		srt_buf_init(&list);
		for (size_t a = 0; allowed[a]; a++)
			srt_buf_printf(&list, "%s%s", a ? ", " : "", allowed[a]);
		err(c, k, path ? join(c, path, k->str) : k->str,
		    "unknown key '%s' in %s; the keys are: %s (see docs/recipe-reference.md, "
		    "\"The Campaign kind\")",
		    k->str, path ? path : "a campaign", list.data);
		srt_buf_release(&list);
	}
}

static const struct srt_ynode *want_map(struct cctx *c, const struct srt_ynode *n, const char *path)
{
	if (!n || srt_ynode_is_null(n))
		return NULL;
	if (n->kind != SRT_Y_MAP) {
		err(c, n, path, "'%s' must be a mapping, not %s", path, srt_ynode_describe(n));
		return NULL;
	}
	return n;
}

/* An integer in [min, max]; `out` keeps its default when n is absent. */
static void get_int(struct cctx *c, const struct srt_ynode *map, const char *key, const char *path,
		    int64_t min, int64_t max, int64_t *out)
{
	const struct srt_ynode *n = srt_ynode_get(map, key);
	const char *p = path ? join(c, path, key) : key;
	int64_t v;

	if (!n)
		return;
	if (!srt_ynode_int(n, &v)) {
		err(c, n, p, "'%s' must be an integer, not %s", p, srt_ynode_describe(n));
		return;
	}
	if (v < min || v > max) {
		err(c, n, p, "'%s' is %" PRId64 "; it must be between %" PRId64 " and %" PRId64, p,
		    v, min, max);
		return;
	}
	*out = v;
}

static void get_num(struct cctx *c, const struct srt_ynode *map, const char *key, const char *path,
		    double min, double max, bool min_open, double *out)
{
	const struct srt_ynode *n = srt_ynode_get(map, key);
	const char *p = join(c, path, key);
	double v;
	int64_t i;

	if (!n)
		return;
	if (srt_ynode_int(n, &i))
		v = (double)i;
	else if (!srt_ynode_float(n, &v)) {
		err(c, n, p, "'%s' must be a number, not %s", p, srt_ynode_describe(n));
		return;
	}
	if (!isfinite(v) || v < min || v > max || (min_open && v == min)) {
		if (max < 1e300)
			err(c, n, p, "'%s' is %g; it must be between %g (%s) and %g", p, v, min,
			    min_open ? "excluded" : "included", max);
		else
			err(c, n, p, "'%s' is %g; it must be %s %g", p, v,
			    min_open ? "above" : "at least", min);
		return;
	}
	*out = v;
}

/* ---- concurrency ---- */

static bool parse_pos_int(const char *s, size_t len, int64_t *out)
{
	int64_t v = 0;

	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
		if (v > SRT_CAMPAIGN_MAX_CONCURRENCY)
			return false;
	}
	*out = v;
	return v >= 1;
}

static void push_conc(struct cctx *c, int64_t **v, size_t *n, size_t *cap, int64_t x)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		int64_t *nv = srt_arena_alloc(&c->doc->arena, ncap * sizeof(*nv));

		if (*n && *v)
			memcpy(nv, *v, *n * sizeof(*nv));
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = x;
}

#define CONC_RANGE "an integer from 1 to 1000000"

int srt_campaign_parse_concurrency(struct srt_ydoc *doc, const struct srt_ynode *node,
				   const char *path, int64_t **out, size_t *n,
				   struct srt_diags *diags)
{
	struct cctx cc = { doc, diags, doc->file };
	struct cctx *c = &cc;
	size_t before = diags->nerrors, cap = 0;
	int64_t *v = NULL, x;

	*out = NULL;
	*n = 0;
	if (node->kind == SRT_Y_SEQ) {
		for (size_t i = 0; i < node->n; i++) {
			const struct srt_ynode *it = node->items[i];
			const char *s = srt_ynode_str(it);

			if (srt_ynode_int(it, &x) && x >= 1 && x <= SRT_CAMPAIGN_MAX_CONCURRENCY)
				push_conc(c, &v, n, &cap, x);
			else if (it->kind == SRT_Y_SCALAR && s && parse_pos_int(s, strlen(s), &x))
				push_conc(c, &v, n, &cap, x);
			else
				err(c, it, path, "concurrency item %zu ('%s') must be " CONC_RANGE,
				    i + 1, s ? s : srt_ynode_describe(it));
		}
	} else if (node->kind == SRT_Y_MAP) {
		int64_t start = 0, end = 0, factor = 2;
		static const char *const keys[] = { "start", "end", "factor", NULL };

		check_keys(c, node, path, keys);
		if (!srt_ynode_get(node, "start") || !srt_ynode_get(node, "end"))
			err(c, node, path,
			    "a concurrency ladder needs 'start' and 'end' (and optionally "
			    "'factor', default 2): {start: 1, end: 256, factor: 2}");
		get_int(c, node, "start", path, 1, SRT_CAMPAIGN_MAX_CONCURRENCY, &start);
		get_int(c, node, "end", path, 1, SRT_CAMPAIGN_MAX_CONCURRENCY, &end);
		get_int(c, node, "factor", path, 2, 1000, &factor);
		if (start && end && start > end)
			err(c, node, path,
			    "the ladder's start (%" PRId64 ") is above its end (%" PRId64
			    "); swap them",
			    start, end);
		for (x = start; start && end && x <= end; x *= factor)
			push_conc(c, &v, n, &cap, x);
	} else if (srt_ynode_int(node, &x)) {
		if (x >= 1 && x <= SRT_CAMPAIGN_MAX_CONCURRENCY)
			push_conc(c, &v, n, &cap, x);
		else
			err(c, node, path, "concurrency %" PRId64 " must be " CONC_RANGE, x);
	} else if (node->kind == SRT_Y_SCALAR && srt_ynode_str(node)) {
		/* srt-slurm's "4x8x16" */
		const char *s = node->str, *p = s;

		for (;;) {
			const char *e = strchr(p, 'x');
			size_t len = e ? (size_t)(e - p) : strlen(p);

			if (!parse_pos_int(p, len, &x)) {
				err(c, node, path,
				    "'%s' is not a concurrency list: write integers joined by 'x' "
				    "(\"4x8x16\"), a list [4, 8, 16], or a ladder {start: 4, end: 16, "
				    "factor: 2}; each " CONC_RANGE,
				    s);
				break;
			}
			push_conc(c, &v, n, &cap, x);
			if (!e)
				break;
			p = e + 1;
		}
	} else {
		err(c, node, path,
		    "concurrency must be a list [4, 8, 16], a string \"4x8x16\", an integer, or a "
		    "ladder {start: 4, end: 16, factor: 2}; not %s",
		    srt_ynode_describe(node));
	}
	if (diags->nerrors == before && !*n)
		err(c, node, path, "the concurrency list is empty; give at least one value");
	for (size_t i = 0; diags->nerrors == before && i < *n; i++)
		for (size_t j = 0; j < i; j++)
			if (v[i] == v[j]) {
				err(c, node, path,
				    "concurrency %" PRId64 " is listed twice; each value runs once "
				    "per shape and repeat (use load.repeats to run it again)",
				    v[i]);
				break;
			}
	*out = v;
	return diags->nerrors == before ? 0 : -1;
}

/* ---- deployments ---- */

static bool split_path(struct cctx *c, const struct srt_ynode *key, const char *path,
		       struct srt_campaign_axis *ax)
{
	size_t n = 1;
	const char *p;

	for (p = path; *p; p++)
		n += *p == '.';
	ax->comps = srt_arena_alloc(&c->doc->arena, n * sizeof(*ax->comps));
	ax->ncomps = 0;
	p = path;
	for (;;) {
		const char *e = strchr(p, '.');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (!len) {
			err(c, key, "deployments",
			    "axis '%s' has an empty component; write a dotted path such as "
			    "roles.decode.workers",
			    path);
			return false;
		}
		ax->comps[ax->ncomps++] = srt_arena_strndup(&c->doc->arena, p, len);
		if (!e)
			break;
		p = e + 1;
	}
	if (!strcmp(ax->comps[0], "name") || !strcmp(ax->comps[0], "sweep")) {
		err(c, key, "deployments",
		    "axis '%s': '%s' cannot be swept (srtctl names each deployment "
		    "<campaign>-<hash>; a campaign replaces 'sweep')",
		    path, ax->comps[0]);
		return false;
	}
	return true;
}

static bool axis_known(const struct srt_campaign *cp, const char *path)
{
	for (size_t g = 0; g < cp->ngroups; g++)
		for (size_t a = 0; a < cp->groups[g].n; a++)
			if (!strcmp(cp->groups[g].axes[a].path, path))
				return true;
	return false;
}

/* Read a mapping path -> list of values into one group (zip) or one group per axis (grid). */
static void read_axes(struct cctx *c, struct srt_campaign *cp, const struct srt_ynode *map,
		      const char *path, bool zip)
{
	struct srt_campaign_group *zg = NULL;

	if (zip && map->n) {
		zg = &cp->groups[cp->ngroups++];
		zg->axes = srt_arena_alloc(&c->doc->arena, map->n * sizeof(*zg->axes));
	}
	for (size_t i = 0; i < map->n; i++) {
		const struct srt_ynode *k = map->pairs[i].key, *v = map->pairs[i].value;
		struct srt_campaign_axis ax = { 0 };

		if (axis_known(cp, k->str)) {
			err(c, k, path,
			    "axis '%s' is listed twice; give each recipe path once, in grid or in "
			    "one zip group",
			    k->str);
			continue;
		}
		if (v->kind != SRT_Y_SEQ || !v->n) {
			err(c, v, join(c, path, k->str),
			    "axis '%s' must be a non-empty list of values, e.g. [1, 2]; not %s",
			    k->str, v->kind == SRT_Y_SEQ ? "an empty list" : srt_ynode_describe(v));
			continue;
		}
		ax.path = k->str;
		ax.key = k;
		ax.values = (const struct srt_ynode *const *)v->items;
		ax.nvalues = v->n;
		if (!split_path(c, k, k->str, &ax))
			continue;
		for (size_t a = 0; a < v->n; a++)
			for (size_t b = 0; b < a; b++) {
				json_t *x = srt_ynode_to_json(v->items[a]),
				       *y = srt_ynode_to_json(v->items[b]);
				bool same = json_equal(x, y);

				json_decref(x);
				json_decref(y);
				if (same)
					err(c, v->items[a], join(c, path, k->str),
					    "axis '%s' lists value %zu twice (also item %zu); "
					    "each deployment must differ",
					    k->str, a + 1, b + 1);
			}
		if (zip) {
			if (zg->n && zg->len != ax.nvalues) {
				err(c, v, join(c, path, k->str),
				    "zip axis '%s' has %zu values but '%s' has %zu; zipped axes "
				    "advance together and need the same number of values",
				    k->str, ax.nvalues, zg->axes[0].path, zg->len);
				continue;
			}
			zg->len = ax.nvalues;
			zg->axes[zg->n++] = ax;
		} else {
			struct srt_campaign_group *g = &cp->groups[cp->ngroups++];

			g->axes = srt_arena_alloc(&c->doc->arena, sizeof(*g->axes));
			g->axes[0] = ax;
			g->n = 1;
			g->len = ax.nvalues;
		}
	}
	if (zg && !zg->n)
		cp->ngroups--;
}

static void parse_deployments(struct cctx *c, struct srt_campaign *cp, const struct srt_ynode *n)
{
	static const char *const keys[] = { "grid", "zip", "exclude", NULL };
	const struct srt_ynode *grid, *zip, *ex;
	size_t maxgroups = 0;

	if (!want_map(c, n, "deployments"))
		return;
	check_keys(c, n, "deployments", keys);
	grid = want_map(c, srt_ynode_get(n, "grid"), "deployments.grid");
	zip = srt_ynode_get(n, "zip");
	if (grid)
		maxgroups += grid->n;
	if (zip && zip->kind == SRT_Y_MAP)
		maxgroups += 1;
	else if (zip && zip->kind == SRT_Y_SEQ)
		maxgroups += zip->n;
	else if (zip && !srt_ynode_is_null(zip))
		err(c, zip, "deployments.zip",
		    "'deployments.zip' must be a mapping {path: [values]} (one group) or a list of "
		    "such mappings (several groups), not %s",
		    srt_ynode_describe(zip));
	cp->groups = srt_arena_alloc(&c->doc->arena, (maxgroups + 1) * sizeof(*cp->groups));
	if (grid)
		read_axes(c, cp, grid, "deployments.grid", false);
	if (zip && zip->kind == SRT_Y_MAP)
		read_axes(c, cp, zip, "deployments.zip", true);
	for (size_t i = 0; zip && zip->kind == SRT_Y_SEQ && i < zip->n; i++) {
		const char *p = srt_arena_printf(&c->doc->arena, "deployments.zip[%zu]", i);

		if (want_map(c, zip->items[i], p))
			read_axes(c, cp, zip->items[i], p, true);
	}
	ex = srt_ynode_get(n, "exclude");
	if (!ex || srt_ynode_is_null(ex))
		return;
	if (ex->kind != SRT_Y_SEQ) {
		err(c, ex, "deployments.exclude",
		    "'deployments.exclude' must be a list of mappings {path: value}, not %s",
		    srt_ynode_describe(ex));
		return;
	}
	cp->excludes = srt_arena_alloc(&c->doc->arena, (ex->n + 1) * sizeof(*cp->excludes));
	for (size_t i = 0; i < ex->n; i++) {
		const struct srt_ynode *e = ex->items[i];
		const char *p = srt_arena_printf(&c->doc->arena, "deployments.exclude[%zu]", i);
		struct srt_campaign_exclude *x;

		if (e->kind != SRT_Y_MAP || !e->n) {
			err(c, e, p,
			    "an exclude entry must be a non-empty mapping {axis path: value}, not "
			    "%s",
			    srt_ynode_describe(e));
			continue;
		}
		x = &cp->excludes[cp->nexcludes++];
		x->node = e;
		x->paths = srt_arena_alloc(&c->doc->arena, e->n * sizeof(*x->paths));
		x->values = srt_arena_alloc(&c->doc->arena, e->n * sizeof(*x->values));
		for (size_t k = 0; k < e->n; k++) {
			const char *kp = e->pairs[k].key->str;

			if (!axis_known(cp, kp)) {
				err(c, e->pairs[k].key, p,
				    "exclude names '%s', which is not an axis of deployments.grid or "
				    "deployments.zip; name one of the axes",
				    kp);
				continue;
			}
			x->paths[x->n] = kp;
			x->values[x->n++] = e->pairs[k].value;
		}
	}
}

/* ---- load, benchmark, validity, slo, policy ---- */

static void parse_load(struct cctx *c, struct srt_campaign *cp, const struct srt_ynode *n)
{
	static const char *const keys[] = { "shapes",
					    "concurrency",
					    "promptsPerConcurrency",
					    "warmupPerConcurrency",
					    "prompts",
					    "warmup",
					    "repeats",
					    NULL };
	static const char *const skeys[] = { "isl", "osl", NULL };
	const struct srt_ynode *shapes, *conc;

	cp->prompts_per_concurrency = SRT_CAMPAIGN_PROMPTS_PER_CONCURRENCY;
	cp->warmup_per_concurrency = SRT_CAMPAIGN_WARMUP_PER_CONCURRENCY;
	cp->prompts = 0;
	cp->warmup = -1;
	cp->repeats = 1;
	if (!n) {
		err(c, c->doc->root, "load",
		    "a campaign needs 'load:' with 'shapes' ([{isl: 1024, osl: 1024}]) and "
		    "'concurrency' ([4, 8, 16])");
		return;
	}
	if (!want_map(c, n, "load"))
		return;
	check_keys(c, n, "load", keys);
	get_int(c, n, "promptsPerConcurrency", "load", 1, 100000, &cp->prompts_per_concurrency);
	get_int(c, n, "warmupPerConcurrency", "load", 0, 100000, &cp->warmup_per_concurrency);
	get_int(c, n, "prompts", "load", 1, 100000000, &cp->prompts);
	get_int(c, n, "warmup", "load", 0, 100000000, &cp->warmup);
	/* a fixed count (srt-slurm's num_prompts, warmup_prompts) or a multiplier, not both */
	for (int i = 0; i < 2; i++) {
		const char *fixed = i ? "warmup" : "prompts";
		const char *per = i ? "warmupPerConcurrency" : "promptsPerConcurrency";

		if (srt_ynode_get(n, fixed) && srt_ynode_get(n, per))
			err(c, srt_ynode_get_pair(n, fixed)->key,
			    srt_arena_printf(&c->doc->arena, "load.%s", fixed),
			    "'%s' (one count for every point) and '%s' (a count per concurrency) "
			    "both say how many; keep one",
			    fixed, per);
	}
	get_int(c, n, "repeats", "load", 1, 100, &cp->repeats);
	shapes = srt_ynode_get(n, "shapes");
	if (!shapes || shapes->kind != SRT_Y_SEQ || !shapes->n) {
		err(c, shapes ? shapes : n, "load.shapes",
		    "'load.shapes' must be a non-empty list of {isl: N, osl: N} (input and output "
		    "tokens per request)");
	} else {
		cp->shapes = srt_arena_alloc(&c->doc->arena, shapes->n * sizeof(*cp->shapes));
		for (size_t i = 0; i < shapes->n; i++) {
			const struct srt_ynode *s = shapes->items[i];
			const char *p = srt_arena_printf(&c->doc->arena, "load.shapes[%zu]", i);
			struct srt_campaign_shape sh = { 0, 0 };

			if (s->kind != SRT_Y_MAP) {
				err(c, s, p, "a shape must be a mapping {isl: N, osl: N}, not %s",
				    srt_ynode_describe(s));
				continue;
			}
			check_keys(c, s, p, skeys);
			if (!srt_ynode_get(s, "isl") || !srt_ynode_get(s, "osl"))
				err(c, s, p, "a shape needs both 'isl' and 'osl'");
			get_int(c, s, "isl", p, 1, 10000000, &sh.isl);
			get_int(c, s, "osl", p, 1, 10000000, &sh.osl);
			for (size_t j = 0; j < cp->nshapes; j++)
				if (sh.isl && cp->shapes[j].isl == sh.isl &&
				    cp->shapes[j].osl == sh.osl)
					err(c, s, p,
					    "shape isl %" PRId64 " osl %" PRId64 " is listed twice",
					    sh.isl, sh.osl);
			cp->shapes[cp->nshapes++] = sh;
		}
	}
	conc = srt_ynode_get(n, "concurrency");
	if (!conc || srt_ynode_is_null(conc))
		err(c, n, "load.concurrency",
		    "'load.concurrency' is required: a list [4, 8, 16], \"4x8x16\", or a ladder "
		    "{start: 4, end: 64, factor: 2}");
	else
		srt_campaign_parse_concurrency(c->doc, conc, "load.concurrency", &cp->concurrency,
					       &cp->nconcurrency, c->d);
}

static void parse_benchmark(struct cctx *c, struct srt_campaign *cp, const struct srt_ynode *n)
{
	static const char *const keys[] = { "tool", "params", "command", "resultFile", NULL };
	static const char *const tools[] = { "vllm-bench", "sa-bench", "custom", NULL };
	const struct srt_ynode *t;
	const char *s;

	if (!n) {
		err(c, c->doc->root, "benchmark",
		    "a campaign needs 'benchmark:' with 'tool' (vllm-bench, sa-bench or custom)");
		return;
	}
	if (!want_map(c, n, "benchmark"))
		return;
	check_keys(c, n, "benchmark", keys);
	t = srt_ynode_get(n, "tool");
	s = srt_ynode_str(t);
	if (!t || !s) {
		err(c, t ? t : n, "benchmark.tool",
		    "'benchmark.tool' is required: vllm-bench, sa-bench or custom");
	} else if (!strcmp(s, "vllm-bench")) {
		cp->tool = SRT_BENCH_VLLM;
	} else if (!strcmp(s, "sa-bench")) {
		cp->tool = SRT_BENCH_SA;
	} else if (!strcmp(s, "custom")) {
		cp->tool = SRT_BENCH_CUSTOM;
	} else {
		const char *sugg = srt_did_you_mean(s, tools);

		err(c, t, "benchmark.tool",
		    "unknown benchmark tool '%s'%s%s%s; the tools are vllm-bench, sa-bench and custom",
		    s, sugg ? " (did you mean '" : "", sugg ? sugg : "", sugg ? "'?)" : "");
	}
	cp->bench_params = want_map(c, srt_ynode_get(n, "params"), "benchmark.params");
	cp->bench_command = srt_ynode_get(n, "command");
	cp->bench_result_file = srt_ynode_str(srt_ynode_get(n, "resultFile"));
	if (cp->tool == SRT_BENCH_CUSTOM) {
		if (!cp->bench_command || srt_ynode_is_null(cp->bench_command))
			err(c, n, "benchmark.command",
			    "the custom tool needs 'command' (a string run with bash -c, or an argv "
			    "list); srtctl passes SRT_FRONTEND_URL and the point's parameters in env");
		else if (cp->bench_command->kind == SRT_Y_MAP)
			err(c, cp->bench_command, "benchmark.command",
			    "'benchmark.command' must be a string or a list, not a mapping");
		if (srt_ynode_get(n, "resultFile")) {
			const struct srt_ynode *rf = srt_ynode_get(n, "resultFile");
			struct srt_error e;

			if (!cp->bench_result_file)
				err(c, rf, "benchmark.resultFile",
				    "'resultFile' must be a string: the file the command writes "
				    "(relative to the run directory; $SRT_BENCH_RESULT_FILE when "
				    "not set)");
			else if (srt_loadgen_result_file_check(cp->bench_result_file, &e) != 0)
				err(c, rf, "benchmark.resultFile", "%s", e.msg);
		}
	} else if (t && s) {
		if (cp->bench_command)
			err(c, srt_ynode_get_pair(n, "command")->key, "benchmark.command",
			    "'command' is for the custom tool only; %s builds its own command "
			    "line (put its options in 'params')",
			    s);
		if (srt_ynode_get(n, "resultFile"))
			err(c, srt_ynode_get_pair(n, "resultFile")->key, "benchmark.resultFile",
			    "'resultFile' is for the custom tool only");
	}
}

static void parse_validity(struct cctx *c, struct srt_campaign *cp, const struct srt_ynode *n)
{
	static const char *const keys[] = { "minCompletedRatio", "maxErrorRatio",
					    "minOutputTokensRatio", NULL };

	cp->min_completed_ratio = SRT_CAMPAIGN_MIN_COMPLETED_RATIO;
	cp->max_error_ratio = SRT_CAMPAIGN_MAX_ERROR_RATIO;
	cp->min_output_tokens_ratio = SRT_CAMPAIGN_MIN_OUTPUT_TOKENS_RATIO;
	if (!want_map(c, n, "validity"))
		return;
	check_keys(c, n, "validity", keys);
	get_num(c, n, "minCompletedRatio", "validity", 0, 1, false, &cp->min_completed_ratio);
	get_num(c, n, "maxErrorRatio", "validity", 0, 1, false, &cp->max_error_ratio);
	get_num(c, n, "minOutputTokensRatio", "validity", 0, 1, false,
		&cp->min_output_tokens_ratio);
}

static const char *const slo_metrics[] = { "ttft", "tpot", "itl", "e2el" };
static const char *const slo_stats[] = { "Mean", "Median", "P99" };

static void parse_slo(struct cctx *c, struct srt_campaign *cp, const struct srt_ynode *n)
{
	const char *keys[SRT_SLO_NMETRICS * SRT_SLO_NSTATS + 1];
	size_t k = 0;

	if (!want_map(c, n, "slo"))
		return;
	for (size_t m = 0; m < SRT_SLO_NMETRICS; m++)
		for (size_t s = 0; s < SRT_SLO_NSTATS; s++)
			keys[k++] = srt_arena_printf(&c->doc->arena, "%s%sMs", slo_metrics[m],
						     slo_stats[s]);
	keys[k] = NULL;
	check_keys(c, n, "slo", keys);
	for (size_t m = 0; m < SRT_SLO_NMETRICS; m++)
		for (size_t s = 0; s < SRT_SLO_NSTATS; s++)
			get_num(c, n, keys[m * SRT_SLO_NSTATS + s], "slo", 0, 1e300, true,
				&cp->slo_ms[m][s]);
}

static void parse_policy(struct cctx *c, struct srt_campaign *cp, const struct srt_ynode *n)
{
	static const char *const keys[] = { "maxConcurrentJobs",
					    "maxNodes",
					    "pointRetries",
					    "jobAttempts",
					    "maxFailedPoints",
					    "budget",
					    "order",
					    "estimate",
					    NULL };
	static const char *const bkeys[] = { "nodeHours", NULL };
	static const char *const ekeys[] = { "startupMinutes", "tpotMs", "prefillTokensPerSecond",
					     NULL };
	static const char *const orders[] = { "declared", "smallest-first", NULL };
	const struct srt_ynode *b, *e, *o;

	cp->max_concurrent_jobs = 1;
	cp->point_retries = SRT_CAMPAIGN_POINT_RETRIES;
	cp->job_attempts = SRT_CAMPAIGN_JOB_ATTEMPTS;
	cp->est_startup_minutes = SRT_CAMPAIGN_EST_STARTUP_MINUTES;
	cp->est_tpot_ms = SRT_CAMPAIGN_EST_TPOT_MS;
	cp->est_prefill_tps = SRT_CAMPAIGN_EST_PREFILL_TPS;
	if (!want_map(c, n, "policy"))
		return;
	check_keys(c, n, "policy", keys);
	get_int(c, n, "maxConcurrentJobs", "policy", 1, 10000, &cp->max_concurrent_jobs);
	get_int(c, n, "maxNodes", "policy", 1, 1000000, &cp->max_nodes);
	get_int(c, n, "pointRetries", "policy", 0, 100, &cp->point_retries);
	get_int(c, n, "jobAttempts", "policy", 1, 100, &cp->job_attempts);
	get_int(c, n, "maxFailedPoints", "policy", 1, SRT_CAMPAIGN_MAX_POINTS,
		&cp->max_failed_points);
	b = want_map(c, srt_ynode_get(n, "budget"), "policy.budget");
	if (b) {
		check_keys(c, b, "policy.budget", bkeys);
		get_num(c, b, "nodeHours", "policy.budget", 0, 1e9, true, &cp->budget_node_hours);
	}
	e = want_map(c, srt_ynode_get(n, "estimate"), "policy.estimate");
	if (e) {
		check_keys(c, e, "policy.estimate", ekeys);
		get_num(c, e, "startupMinutes", "policy.estimate", 0, 1e6, false,
			&cp->est_startup_minutes);
		get_num(c, e, "tpotMs", "policy.estimate", 0, 1e6, true, &cp->est_tpot_ms);
		get_num(c, e, "prefillTokensPerSecond", "policy.estimate", 0, 1e12, true,
			&cp->est_prefill_tps);
	}
	o = srt_ynode_get(n, "order");
	if (o) {
		const char *s = srt_ynode_str(o);

		if (s && !strcmp(s, "declared"))
			cp->order = SRT_ORDER_DECLARED;
		else if (s && !strcmp(s, "smallest-first"))
			cp->order = SRT_ORDER_SMALLEST_FIRST;
		else {
			const char *sugg = s ? srt_did_you_mean(s, orders) : NULL;

			err(c, o, "policy.order",
			    "policy.order must be 'declared' (deployments in the order the axes "
			    "list them) or 'smallest-first' (fewest nodes first)%s%s%s",
			    sugg ? "; did you mean '" : "", sugg ? sugg : "", sugg ? "'?" : "");
		}
	}
}

/* ---- the document ---- */

int srt_campaign_doc_kind(const struct srt_ydoc *doc, struct srt_diags *diags)
{
	const struct srt_ynode *k;
	const char *s;

	if (!doc->root || doc->root->kind != SRT_Y_MAP)
		return 0;
	k = srt_ynode_get(doc->root, "kind");
	if (!k)
		return 0;
	s = srt_ynode_str(k);
	if (s && !strcmp(s, "Campaign"))
		return 1;
	srt_diags_add(diags, SRT_DIAG_ERROR, doc->file, k->line, k->col, "kind",
		      "unknown kind '%s': srtctl reads 'kind: Campaign' documents and recipes "
		      "(which have no 'kind:'; delete it)",
		      s ? s : srt_ynode_describe(k));
	return -1;
}

struct srt_campaign *srt_campaign_parse(struct srt_ydoc *doc, struct srt_diags *diags)
{
	static const char *const keys[] = { "kind",	   "name",   "description", "template",
					    "deployments", "load",   "benchmark",   "validity",
					    "slo",	   "policy", "notify",	    NULL };
	struct cctx c = { doc, diags, doc->file };
	const struct srt_ynode *root = doc->root, *n, *t;
	struct srt_campaign *cp;
	char buf[128];
	const char *why;

	if (!root || root->kind != SRT_Y_MAP) {
		srt_diags_add(diags, SRT_DIAG_ERROR, doc->file, 1, 1, NULL,
			      "a campaign must be a mapping (kind: Campaign, name, template, ...)");
		return NULL;
	}
	cp = srt_arena_alloc(&doc->arena, sizeof(*cp));
	cp->doc = doc;
	cp->root = root;
	cp->file = doc->file;
	check_keys(&c, root, NULL, keys);
	n = srt_ynode_get(root, "name");
	cp->name = srt_ynode_str(n);
	if (!cp->name)
		err(&c, n ? n : root, "name", "a campaign needs 'name: NAME' (%s)", SRT_NAME_RULE);
	else if ((why = srt_name_problem(cp->name, buf, sizeof(buf))))
		err(&c, n, "name", "campaign name '%s' %s; %s", cp->name, why, SRT_NAME_RULE);
	else if (strlen(cp->name) > SRT_NAME_MAX - 9)
		err(&c, n, "name",
		    "campaign name '%s' is longer than %d characters; each deployment is named "
		    "<campaign>-<8 hex> and must fit in %d",
		    cp->name, SRT_NAME_MAX - 9, SRT_NAME_MAX);
	n = srt_ynode_get(root, "description");
	if (n && !srt_ynode_is_null(n)) {
		cp->description = srt_ynode_str(n);
		if (n->kind != SRT_Y_SCALAR)
			err(&c, n, "description", "'description' must be a string");
	}
	t = srt_ynode_get(root, "template");
	if (!t || srt_ynode_is_null(t))
		err(&c, t ? t : root, "template",
		    "a campaign needs 'template': a recipe (inline mapping) or the path of a "
		    "recipe file, relative to this file");
	else if (t->kind == SRT_Y_MAP)
		cp->template_node = t;
	else if (t->kind == SRT_Y_SCALAR && srt_ynode_type(t) == SRT_YT_STR && t->len)
		cp->template_file = t->str;
	else
		err(&c, t, "template", "'template' must be a recipe mapping or a file path, not %s",
		    srt_ynode_describe(t));
	parse_deployments(&c, cp, srt_ynode_get(root, "deployments"));
	parse_load(&c, cp, srt_ynode_get(root, "load"));
	parse_benchmark(&c, cp, srt_ynode_get(root, "benchmark"));
	parse_validity(&c, cp, srt_ynode_get(root, "validity"));
	parse_slo(&c, cp, srt_ynode_get(root, "slo"));
	parse_policy(&c, cp, srt_ynode_get(root, "policy"));
	srt_notify_block_parse(doc, srt_ynode_get(root, "notify"), "notify", &cp->notify, diags);
	return cp;
}

const char *srt_campaign_template_path(const struct srt_campaign *c)
{
	const char *slash;

	if (!c->template_file)
		return NULL;
	if (c->template_file[0] == '/' || !c->file || !strcmp(c->file, "-"))
		return c->template_file;
	slash = strrchr(c->file, '/');
	if (!slash)
		return c->template_file;
	return srt_arena_printf(&c->doc->arena, "%.*s/%s", (int)(slash - c->file), c->file,
				c->template_file);
}

/* ---- expansion ---- */

static bool seq_index(const char *s, size_t n, size_t *out)
{
	size_t v = 0;

	if (!*s)
		return false;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9' || v > n)
			return false;
		v = v * 10 + (size_t)(*p - '0');
	}
	*out = v;
	return v < n;
}

/*
 * Where axis `ax` cannot go in the template `root`: NULL when every
 * component but the last names an existing mapping key or list index (the
 * last may be a new key of a mapping), else a message.  In doc's arena.
 */
static const char *path_problem(struct srt_ydoc *doc, const struct srt_ynode *root,
				const struct srt_campaign_axis *ax)
{
	const struct srt_ynode *n = root;
	struct srt_buf at;
	const char *msg = NULL;

	srt_buf_init(&at);
	for (size_t i = 0; i < ax->ncomps; i++) {
		const char *k = ax->comps[i];
		bool last = i + 1 == ax->ncomps;
		const char *where = at.len ? at.data : "the recipe";

		if (n->kind == SRT_Y_MAP) {
			const struct srt_ynode *next = srt_ynode_get(n, k);

			if (!next && !last) {
				const char **cands =
					srt_arena_alloc(&doc->arena, (n->n + 1) * sizeof(*cands));
				const char *sugg;

				for (size_t j = 0; j < n->n; j++)
					cands[j] = n->pairs[j].key->str;
				sugg = srt_did_you_mean(k, cands);
				msg = srt_arena_printf(
					&doc->arena,
					"the template has no '%s' under %s%s%s%s; an axis may add only "
					"its last key",
					k, where, sugg ? " (did you mean '" : "", sugg ? sugg : "",
					sugg ? "'?)" : "");
				break;
			}
			n = next;
		} else if (n->kind == SRT_Y_SEQ) {
			size_t idx;

			if (!seq_index(k, n->n, &idx)) {
				msg = srt_arena_printf(&doc->arena,
						       "%s is a list of %zu items; '%s' is not an "
						       "index 0..%zu",
						       where, n->n, k, n->n ? n->n - 1 : 0);
				break;
			}
			n = n->items[idx];
		} else {
			msg = srt_arena_printf(&doc->arena,
					       "%s is %s in the template, so it has no '%s'", where,
					       srt_ynode_describe(n), k);
			break;
		}
		srt_buf_printf(&at, "%s%s", at.len ? "." : "", k);
		if (last)
			break;
	}
	srt_buf_release(&at);
	return msg;
}

/* `root` with the value at comps[i..] replaced (copying only the path); path already checked. */
static struct srt_ynode *cow_set(struct srt_ydoc *doc, const struct srt_ynode *node,
				 const char *const *comps, size_t ncomps,
				 const struct srt_ynode *value)
{
	struct srt_ynode *copy;

	if (!ncomps)
		return (struct srt_ynode *)value;
	copy = srt_ynode_copy_shallow(doc, node);
	if (node->kind == SRT_Y_MAP) {
		const struct srt_ynode *child = srt_ynode_get(node, comps[0]);

		srt_ynode_map_set(doc, copy, comps[0],
				  cow_set(doc, child, comps + 1, ncomps - 1, value));
		if (!child) {
			/* A new key: errors about it point at the axis value. */
			struct srt_ynode *k = copy->pairs[copy->n - 1].key;

			k->line = value->line;
			k->col = value->col;
		}
	} else {
		size_t idx = 0;

		seq_index(comps[0], node->n, &idx);
		copy->items[idx] = cow_set(doc, node->items[idx], comps + 1, ncomps - 1, value);
	}
	return copy;
}

static char *canon_json(json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);

	return s ? s : srt_xstrdup("null");
}

/*
 * policy.jobAttempts as the child recipe's slurm.max_attempts (the run
 * reconciler's attempt budget), unless the template sets its own.
 */
static struct srt_ynode *with_job_attempts(struct srt_ydoc *doc, struct srt_ynode *root,
					   int64_t attempts)
{
	const struct srt_ynode *slurm = srt_ynode_get(root, "slurm");
	struct srt_ynode *v =
		srt_ynode_new_str(doc, srt_arena_printf(&doc->arena, "%" PRId64, attempts), true);

	if (slurm && slurm->kind == SRT_Y_MAP) {
		if (srt_ynode_get(slurm, "max_attempts"))
			return root;
		return cow_set(doc, root, (const char *const[]){ "slurm", "max_attempts" }, 2, v);
	}
	if (slurm && !srt_ynode_is_null(slurm))
		return root; /* not a mapping: the recipe's own error */
	{
		struct srt_ynode *m = srt_ynode_new_map(doc);

		srt_ynode_map_set(doc, m, "max_attempts", v);
		return cow_set(doc, root, (const char *const[]){ "slurm" }, 1, m);
	}
}

static bool excluded(struct srt_campaign *c, const struct srt_campaign_axis *const *axes,
		     const struct srt_ynode *const *vals, size_t nax)
{
	bool any = false;

	for (size_t e = 0; e < c->nexcludes; e++) {
		struct srt_campaign_exclude *x = &c->excludes[e];
		bool all = x->n > 0;

		for (size_t k = 0; all && k < x->n; k++) {
			bool hit = false;

			for (size_t a = 0; a < nax; a++) {
				if (strcmp(axes[a]->path, x->paths[k]))
					continue;
				json_t *p = srt_ynode_to_json(vals[a]),
				       *q = srt_ynode_to_json(x->values[k]);

				hit = json_equal(p, q);
				json_decref(p);
				json_decref(q);
			}
			all = hit;
		}
		if (all) {
			x->matched++;
			any = true;
		}
	}
	return any;
}

static void point_id(const struct srt_campaign *c, const struct srt_campaign_plan *p,
		     const struct srt_campaign_deployment *d, struct srt_campaign_point *pt)
{
	char *s = srt_xasprintf("srtctl-point-v1\ndeployment=%s\ntool=%s\nparams=%s\nisl=%" PRId64
				"\nosl=%" PRId64 "\nconcurrency=%" PRId64 "\nprompts=%" PRId64
				"\nwarmup=%" PRId64 "\nrepeat=%" PRId64 "\n",
				d->spec_hash, srt_bench_tool_name(c->tool), p->bench_params,
				pt->isl, pt->osl, pt->concurrency, pt->prompts, pt->warmup,
				pt->repeat);

	srt_sha256_hex(s, strlen(s), pt->id);
	free(s);
}

double srt_campaign_estimate_point(const struct srt_campaign *c, const struct srt_campaign_point *p)
{
	double waves = ceil((double)(p->prompts + p->warmup) / (double)p->concurrency);
	double req = (double)p->isl / c->est_prefill_tps + (double)p->osl * c->est_tpot_ms / 1000.0;

	return waves * req;
}

/* The campaign spec: the document with a file template replaced by the template's tree. */
static char *campaign_spec(const struct srt_campaign *c, struct srt_ydoc *tdoc,
			   const struct srt_ynode *troot, struct srt_error *e)
{
	struct srt_ynode *root;

	if (!c->template_file)
		return srt_canon_spec(c->root, e);
	root = srt_ynode_copy_shallow(tdoc, c->root);
	srt_ynode_map_set(tdoc, root, "template", (struct srt_ynode *)troot);
	return srt_canon_spec(root, e);
}

static void check_template(struct cctx *c, const struct srt_ynode *troot, const char *tfile)
{
	const struct srt_ynode *b;
	const char *type;

	if (srt_recipe_doc_is_v1(troot))
		srt_diags_add(c->d, SRT_DIAG_ERROR, tfile, troot->line, troot->col, "template",
			      "the template uses the v1 layout ('backend:'); convert it with "
			      "srtctl migrate -f %s --in-place",
			      tfile);
	if (srt_variants_is_variant_doc(troot))
		srt_diags_add(c->d, SRT_DIAG_ERROR, tfile, troot->line, troot->col, "template",
			      "the template is a variant file (base + override sections); a "
			      "campaign's template is one recipe: express the variants as "
			      "deployments.zip axes");
	if (srt_ynode_get(troot, "sweep")) {
		const struct srt_ynode *k = srt_ynode_get_pair(troot, "sweep")->key;

		srt_diags_add(c->d, SRT_DIAG_ERROR, tfile, k->line, k->col, "template.sweep",
			      "a campaign's template cannot have 'sweep:'; the campaign's "
			      "deployments and load replace it (delete it)");
	}
	b = srt_ynode_get(troot, "benchmark");
	type = srt_ynode_str(srt_ynode_get(b, "type"));
	if (b && !srt_ynode_is_null(b) && !(type && !strcmp(type, "manual")))
		srt_diags_add(c->d, SRT_DIAG_ERROR, tfile, b->line, b->col, "template.benchmark",
			      "the template has a benchmark%s%s; in a campaign the 'load' and "
			      "'benchmark' sections say what runs: delete the template's "
			      "benchmark section (or set its type: manual)",
			      type ? " of type " : "", type ? type : "");
}

size_t srt_campaign_expand(struct srt_campaign *c, struct srt_ydoc *tdoc,
			   const struct srt_ynode *troot, const struct srt_cluster *cluster,
			   struct srt_campaign_plan *out, struct srt_diags *diags)
{
	struct cctx cc = { c->doc, diags, c->file };
	size_t before = diags->nerrors, total = 1, nax = 0, cap = 0;
	const char *tfile = tdoc->file;
	const struct srt_campaign_axis **axes = NULL;
	const struct srt_ynode **vals = NULL;
	size_t *idx = NULL;
	struct srt_error e;
	json_t *params;

	memset(out, 0, sizeof(*out));
	if (!troot || troot->kind != SRT_Y_MAP) {
		srt_diags_add(diags, SRT_DIAG_ERROR, tfile, 1, 1, "template",
			      "the template must be a recipe (a mapping), not %s",
			      srt_ynode_describe(troot));
		return diags->nerrors - before;
	}
	check_template(&cc, troot, tfile);
	out->spec = campaign_spec(c, tdoc, troot, &e);
	if (!out->spec) {
		srt_diags_add(diags, SRT_DIAG_ERROR, c->file, 1, 1, NULL, "campaign '%s': %s",
			      c->name ? c->name : "?", e.msg);
		return diags->nerrors - before;
	}
	srt_canon_hash(out->spec, out->spec_hash);
	params = c->bench_params ? srt_ynode_to_json(c->bench_params) : json_object();
	out->bench_params = canon_json(params);
	json_decref(params);
	if (c->tool != SRT_BENCH_CUSTOM) {
		/* the tool's command line takes the params: said at apply, not at the first point */
		struct srt_loadgen_spec spec = { .tool = c->tool,
						 .params_json = out->bench_params,
						 .frontend_url = "http://127.0.0.1:8000",
						 .model = "model",
						 .point = { 1, 1, 1, 1, 1, 1 },
						 .result_file = "/result.json" };
		struct srt_loadgen_cmd cmd;
		const struct srt_ynode *at = c->bench_params ? c->bench_params : c->root;

		if (srt_loadgen_build(&cmd, &spec, &e) != 0)
			srt_diags_add(diags, SRT_DIAG_ERROR, c->file, at->line, at->col, NULL, "%s",
				      e.msg);
		srt_loadgen_cmd_release(&cmd);
	}

	for (size_t g = 0; g < c->ngroups; g++) {
		nax += c->groups[g].n;
		for (size_t a = 0; a < c->groups[g].n; a++) {
			const struct srt_campaign_axis *ax = &c->groups[g].axes[a];
			const char *why = path_problem(c->doc, troot, ax);

			if (why)
				srt_diags_add(diags, SRT_DIAG_ERROR, c->file, ax->key->line,
					      ax->key->col, "deployments",
					      "axis '%s': %s; fix the path or add the key to the "
					      "template",
					      ax->path, why);
		}
		if (total <= SRT_CAMPAIGN_MAX_DEPLOYMENTS)
			total *= c->groups[g].len;
	}
	if (total > SRT_CAMPAIGN_MAX_DEPLOYMENTS)
		err(&cc, c->root, "deployments",
		    "the axes make more than %u deployments; split the campaign",
		    (unsigned)SRT_CAMPAIGN_MAX_DEPLOYMENTS);
	if (diags->nerrors != before || !c->name || !c->nshapes || !c->nconcurrency)
		return diags->nerrors - before;

	axes = srt_xcalloc(nax + 1, sizeof(*axes));
	vals = srt_xcalloc(nax + 1, sizeof(*vals));
	idx = srt_xcalloc(c->ngroups + 1, sizeof(*idx));
	for (size_t g = 0, k = 0; g < c->ngroups; g++)
		for (size_t a = 0; a < c->groups[g].n; a++)
			axes[k++] = &c->groups[g].axes[a];
	out->deployments = srt_xcalloc(total, sizeof(*out->deployments));
	for (size_t combo = 0; combo < total; combo++) {
		struct srt_campaign_deployment *d;
		struct srt_ynode *root = (struct srt_ynode *)troot;
		struct srt_diags local;
		struct srt_recipe *r;
		json_t *aj = json_object();
		char hash[65];
		size_t rest = combo;

		/* The first group varies slowest. */
		for (size_t g = c->ngroups; g-- > 0;) {
			idx[g] = rest % c->groups[g].len;
			rest /= c->groups[g].len;
		}
		for (size_t g = 0, k = 0; g < c->ngroups; g++)
			for (size_t a = 0; a < c->groups[g].n; a++, k++)
				vals[k] = c->groups[g].axes[a].values[idx[g]];
		if (excluded(c, axes, vals, nax)) {
			json_decref(aj);
			continue;
		}
		for (size_t k = 0; k < nax; k++) {
			json_object_set_new(aj, axes[k]->path, srt_ynode_to_json(vals[k]));
			root = cow_set(tdoc, root, axes[k]->comps, axes[k]->ncomps, vals[k]);
		}
		d = &out->deployments[out->ndeployments++];
		d->axes = canon_json(aj);
		json_decref(aj);
		srt_canon_hash(d->axes, hash);
		d->name = srt_xasprintf("%s-%.8s", c->name, hash);
		root = cow_set(tdoc, root, (const char *const[]){ "name" }, 1,
			       srt_ynode_new_str(tdoc, d->name, true));
		root = with_job_attempts(tdoc, root, c->job_attempts);
		srt_diags_init(&local);
		if (cluster)
			root = srt_recipe_expand_env(tdoc, root, cluster->env, cluster->env_strict,
						     &local);
		d->root = root;
		r = srt_recipe_parse(tdoc, root, d->name, &local);
		if (r) {
			struct srt_arena a;
			struct srt_layout l;

			srt_cluster_apply(cluster, r);
			srt_recipe_validate(r, cluster, &local);
			if (!local.nerrors) {
				srt_arena_init(&a);
				srt_layout_build(&l, &a, r);
				d->nodes = (int64_t)l.nnodes;
				srt_arena_release(&a);
			}
		}
		for (size_t j = 0; j < local.n; j++) {
			const struct srt_diag *g = &local.items[j];

			const char *gfile = g->file;

			if (g->level != SRT_DIAG_ERROR)
				continue;
			/* An axis value (or the key it added) sits in the campaign file. */
			for (size_t k = 0; tdoc != c->doc && k < nax; k++)
				if (vals[k]->line == g->line && vals[k]->col == g->col)
					gfile = c->file;
			srt_diags_add(diags, SRT_DIAG_ERROR, gfile, g->line, g->col, g->path,
				      "[deployment %s %s] %s", d->name, d->axes, g->msg);
		}
		srt_diags_release(&local);
		d->spec = srt_canon_spec(root, &e);
		if (!d->spec) {
			d->spec = srt_xstrdup("null");
			srt_diags_add(diags, SRT_DIAG_ERROR, c->file, 1, 1, NULL,
				      "[deployment %s] %s", d->name, e.msg);
		}
		srt_canon_hash(d->spec, d->spec_hash);
		if (c->max_nodes && d->nodes > c->max_nodes)
			err(&cc, c->root, "policy.maxNodes",
			    "deployment %s %s takes %" PRId64 " nodes, more than policy.maxNodes "
			    "(%" PRId64 "); it could never run: raise maxNodes or exclude it",
			    d->name, d->axes, d->nodes, c->max_nodes);
		for (size_t j = 0; j + 1 < out->ndeployments; j++)
			if (!strcmp(out->deployments[j].name, d->name))
				err(&cc, c->root, "deployments",
				    "deployments %s and %s have the same name %s (a hash "
				    "collision); please report this bug",
				    out->deployments[j].axes, d->axes, d->name);
	}
	for (size_t x = 0; x < c->nexcludes; x++)
		if (!c->excludes[x].matched)
			srt_diags_add(diags, SRT_DIAG_WARNING, c->file, c->excludes[x].node->line,
				      c->excludes[x].node->col, "deployments.exclude",
				      "this exclude entry matches no deployment; check its values");
	if (!out->ndeployments)
		err(&cc, c->root, "deployments",
		    "every deployment is excluded; the campaign would run nothing");
	if ((double)out->ndeployments * (double)c->nshapes * (double)c->nconcurrency *
		    (double)c->repeats >
	    SRT_CAMPAIGN_MAX_POINTS) {
		err(&cc, c->root, "load",
		    "the campaign has more than %u points (deployments x shapes x concurrencies x "
		    "repeats); split it",
		    (unsigned)SRT_CAMPAIGN_MAX_POINTS);
		goto out;
	}
	if (diags->nerrors != before)
		goto out;
	cap = out->ndeployments * c->nshapes * c->nconcurrency * (size_t)c->repeats;
	out->points = srt_xcalloc(cap ? cap : 1, sizeof(*out->points));
	for (size_t di = 0; di < out->ndeployments; di++) {
		const struct srt_campaign_deployment *d = &out->deployments[di];
		double secs = c->est_startup_minutes * 60.0;
		int64_t seq = 0;

		for (size_t s = 0; s < c->nshapes; s++)
			for (size_t k = 0; k < c->nconcurrency; k++)
				for (int64_t rep = 1; rep <= c->repeats; rep++) {
					struct srt_campaign_point *pt =
						&out->points[out->npoints++];

					pt->deployment = di;
					pt->seq = ++seq;
					pt->isl = c->shapes[s].isl;
					pt->osl = c->shapes[s].osl;
					pt->concurrency = c->concurrency[k];
					pt->prompts = c->prompts ?
							      c->prompts :
							      c->concurrency[k] *
								      c->prompts_per_concurrency;
					pt->warmup = c->warmup >= 0 ?
							     c->warmup :
							     c->concurrency[k] *
								     c->warmup_per_concurrency;
					pt->repeat = rep;
					point_id(c, out, d, pt);
					secs += srt_campaign_estimate_point(c, pt);
					out->est_point_seconds_total +=
						srt_campaign_estimate_point(c, pt);
				}
		out->est_node_hours += (double)d->nodes * secs / 3600.0;
	}
out:
	free(axes);
	free(vals);
	free(idx);
	return diags->nerrors - before;
}

void srt_campaign_plan_release(struct srt_campaign_plan *p)
{
	for (size_t i = 0; i < p->ndeployments; i++) {
		free(p->deployments[i].name);
		free(p->deployments[i].axes);
		free(p->deployments[i].spec);
	}
	free(p->deployments);
	free(p->points);
	free(p->spec);
	free(p->bench_params);
	memset(p, 0, sizeof(*p));
}

/* ---- srt-slurm's sweep: ---- */

struct sweep_use {
	const char *key;		/* the sweep parameter */
	const struct srt_ynode *values; /* its list */
	const char *paths[16];		/* where "{key}" stands alone */
	size_t npaths;
	bool concurrency; /* used in benchmark.concurrencies */
};

struct sweep_ctx {
	struct srt_ydoc *out;
	struct srt_diags *d;
	const char *file;
	struct sweep_use *uses;
	size_t nuses;
};

static void sweep_scan(struct sweep_ctx *sc, const struct srt_ynode *n, const char *path)
{
	if (n->kind == SRT_Y_MAP) {
		for (size_t i = 0; i < n->n; i++) {
			const char *k = n->pairs[i].key->str;

			if (!*path && (!strcmp(k, "sweep") || !strcmp(k, "name")))
				continue;
			sweep_scan(sc, n->pairs[i].value,
				   *path ? srt_arena_printf(&sc->out->arena, "%s.%s", path, k) : k);
		}
		return;
	}
	if (n->kind == SRT_Y_SEQ) {
		for (size_t i = 0; i < n->n; i++)
			sweep_scan(sc, n->items[i],
				   srt_arena_printf(&sc->out->arena, "%s.%zu", path, i));
		return;
	}
	for (size_t u = 0; n->str && u < sc->nuses; u++) {
		struct sweep_use *use = &sc->uses[u];
		const char *ph = srt_arena_printf(&sc->out->arena, "{%s}", use->key);

		if (!strstr(n->str, ph))
			continue;
		if (strcmp(n->str, ph)) {
			srt_diags_add(sc->d, SRT_DIAG_ERROR, sc->file, n->line, n->col, path,
				      "'%s' holds %s inside a longer value; a campaign axis sets a "
				      "whole value: write the value out for each case as a list "
				      "under sweep (or by hand in the campaign's deployments.grid)",
				      n->str, ph);
			continue;
		}
		if (!strcmp(path, "benchmark.concurrencies") ||
		    !strcmp(path, "benchmark.concurrencies.0")) {
			use->concurrency = true;
			continue;
		}
		if (srt_str_has_prefix(path, "benchmark.")) {
			srt_diags_add(sc->d, SRT_DIAG_ERROR, sc->file, n->line, n->col, path,
				      "%s sweeps the benchmark setting '%s'; a campaign's load "
				      "says what the benchmark runs (shapes, concurrency): write "
				      "the campaign's load by hand",
				      ph, path);
			continue;
		}
		if (use->npaths == sizeof(use->paths) / sizeof(use->paths[0])) {
			srt_diags_add(
				sc->d, SRT_DIAG_ERROR, sc->file, n->line, n->col, path,
				"%s is used at more than 16 places; write the campaign by hand",
				ph);
			continue;
		}
		use->paths[use->npaths++] = path;
	}
}

static struct srt_ynode *str_node(struct srt_ydoc *out, const char *s)
{
	return srt_ynode_new_str(out, s, true);
}

static void sweep_load(struct sweep_ctx *sc, struct srt_ynode *camp, const struct srt_ynode *bench,
		       const struct srt_ynode *conc_values)
{
	static const char *const moved[] = { "type",
					     "isl",
					     "osl",
					     "concurrencies",
					     "num_prompts_mult",
					     "num_warmup_mult",
					     "num_prompts",
					     "warmup_prompts",
					     "req_rate",
					     NULL };
	/* srt-slurm's own keys, which its runner does not pass to sa-bench */
	static const struct {
		const char *key, *why;
	} dropped[] = {
		{ "warmup_req_rate",
		  "srtctl's warmup run goes at srt-slurm bench.sh's 250 requests/s" },
		{ "export_node_metrics", "srtctl exports no node metrics" },
		{ "client_placement", "the benchmark runs on the head node" },
		{ "client_dedicated_node", "the benchmark runs on the head node" },
		{ "placement", "the benchmark runs on the head node" },
		{ NULL, NULL },
	};
	struct srt_ynode *load = srt_ynode_new_map(sc->out), *b = srt_ynode_new_map(sc->out);
	struct srt_ynode *shapes = srt_ynode_new_seq(sc->out), *shape = srt_ynode_new_map(sc->out);
	struct srt_ynode *params = srt_ynode_new_map(sc->out);
	const struct srt_ynode *isl = srt_ynode_get(bench, "isl"),
			       *osl = srt_ynode_get(bench, "osl");
	const char *type = srt_ynode_str(srt_ynode_get(bench, "type"));
	const struct srt_ynode *at = bench ? bench : NULL;

	if (!type || strcmp(type, "sa-bench")) {
		srt_diags_add(sc->d, SRT_DIAG_ERROR, sc->file, at ? at->line : 1, at ? at->col : 1,
			      "benchmark.type",
			      "the benchmark is of type '%s'; campaigns run sa-bench, "
			      "vllm-bench or a custom command: write the campaign's benchmark by "
			      "hand",
			      type ? type : "(none)");
		return;
	}
	if (!isl || !osl) {
		srt_diags_add(sc->d, SRT_DIAG_ERROR, sc->file, at->line, at->col, "benchmark",
			      "the benchmark has no isl/osl; a campaign needs load.shapes: "
			      "add benchmark.isl and benchmark.osl and migrate again");
		return;
	}
	srt_ynode_map_set(sc->out, shape, "isl", (struct srt_ynode *)isl);
	srt_ynode_map_set(sc->out, shape, "osl", (struct srt_ynode *)osl);
	srt_ynode_seq_push(sc->out, shapes, shape);
	srt_ynode_map_set(sc->out, load, "shapes", shapes);
	if (conc_values)
		srt_ynode_map_set(sc->out, load, "concurrency", (struct srt_ynode *)conc_values);
	else if (srt_ynode_get(bench, "concurrencies"))
		srt_ynode_map_set(sc->out, load, "concurrency",
				  srt_ynode_get(bench, "concurrencies"));
	else
		srt_diags_add(sc->d, SRT_DIAG_ERROR, sc->file, at->line, at->col,
			      "benchmark.concurrencies",
			      "the benchmark has no concurrencies; a campaign needs "
			      "load.concurrency: add benchmark.concurrencies and migrate again");
	if (srt_ynode_get(bench, "num_prompts_mult"))
		srt_ynode_map_set(sc->out, load, "promptsPerConcurrency",
				  srt_ynode_get(bench, "num_prompts_mult"));
	if (srt_ynode_get(bench, "num_warmup_mult"))
		srt_ynode_map_set(sc->out, load, "warmupPerConcurrency",
				  srt_ynode_get(bench, "num_warmup_mult"));
	/* a fixed count for every concurrency wins over the multiplier, as in srt-slurm */
	if (srt_ynode_get(bench, "num_prompts")) {
		srt_ynode_map_del(load, "promptsPerConcurrency");
		srt_ynode_map_set(sc->out, load, "prompts", srt_ynode_get(bench, "num_prompts"));
	}
	if (srt_ynode_get(bench, "warmup_prompts")) {
		srt_ynode_map_del(load, "warmupPerConcurrency");
		srt_ynode_map_set(sc->out, load, "warmup", srt_ynode_get(bench, "warmup_prompts"));
	}
	srt_ynode_map_set(sc->out, camp, "load", load);
	srt_ynode_map_set(sc->out, b, "tool", str_node(sc->out, "sa-bench"));
	/* req_rate is sa-bench's --request-rate */
	if (srt_ynode_get(bench, "req_rate"))
		srt_ynode_map_set(sc->out, params, "request-rate",
				  srt_ynode_get(bench, "req_rate"));
	for (size_t i = 0; i < bench->n; i++) {
		const struct srt_ypair *p = &bench->pairs[i];
		bool skip = false;

		for (size_t k = 0; moved[k]; k++)
			skip = skip || !strcmp(moved[k], p->key->str);
		for (size_t k = 0; !skip && dropped[k].key; k++)
			if (!strcmp(dropped[k].key, p->key->str)) {
				skip = true;
				srt_diags_add(
					sc->d, SRT_DIAG_WARNING, sc->file, p->key->line,
					p->key->col,
					srt_arena_printf(&sc->out->arena, "benchmark.%s",
							 p->key->str),
					"srt-slurm's own setting, not sa-bench's; left out of the "
					"campaign (%s)",
					dropped[k].why);
			}
		if (!skip)
			srt_ynode_map_set(sc->out, params, p->key->str, p->value);
	}
	if (params->n)
		srt_ynode_map_set(sc->out, b, "params", params);
	srt_ynode_map_set(sc->out, camp, "benchmark", b);
}

/*
 * The campaign's kind, name and template (the recipe without `sweep` and
 * `benchmark`), built in `out`.
 */
static struct srt_ynode *campaign_of(struct srt_ydoc *out, const struct srt_ynode *recipe)
{
	const char *name = srt_ynode_str(srt_ynode_get(recipe, "name"));
	struct srt_ynode *camp = srt_ynode_new_map(out), *tmpl = srt_ynode_new_map(out);

	srt_ynode_map_set(out, camp, "kind", str_node(out, "Campaign"));
	srt_ynode_map_set(out, camp, "name", str_node(out, name ? name : "campaign"));
	for (size_t i = 0; i < recipe->n; i++)
		if (strcmp(recipe->pairs[i].key->str, "sweep") &&
		    strcmp(recipe->pairs[i].key->str, "benchmark"))
			srt_ynode_map_set(out, tmpl, recipe->pairs[i].key->str,
					  recipe->pairs[i].value);
	srt_ynode_map_set(out, camp, "template", tmpl);
	return camp;
}

/*
 * A recipe's srt-slurm sweep: its parameters ({name: [values]}, the plain
 * form or sweep.parameters) and mode ("grid" for the plain form, "zip" by
 * default for {mode, parameters}).  False after adding errors to d.
 */
static bool sweep_read(const struct srt_ynode *recipe, const char *file, struct srt_diags *d,
		       const struct srt_ynode **params, const char **mode)
{
	const struct srt_ynode *sweep = srt_ynode_get(recipe, "sweep");
	bool ok = true;

	*params = sweep;
	*mode = "grid";
	if (!sweep || sweep->kind != SRT_Y_MAP || !sweep->n) {
		srt_diags_add(d, SRT_DIAG_ERROR, file, sweep ? sweep->line : 1,
			      sweep ? sweep->col : 1, "sweep",
			      "'sweep' must be a mapping {parameter: [values]}");
		return false;
	}
	if (srt_ynode_get(sweep, "parameters")) {
		/* srt-slurm's SweepConfig: {mode: zip|grid, parameters: {...}} */
		*params = srt_ynode_get(sweep, "parameters");
		*mode = srt_ynode_str(srt_ynode_get(sweep, "mode"));
		*mode = *mode ? *mode : "zip";
		if ((*params)->kind != SRT_Y_MAP || !(*params)->n ||
		    (strcmp(*mode, "zip") && strcmp(*mode, "grid"))) {
			srt_diags_add(
				d, SRT_DIAG_ERROR, file, sweep->line, sweep->col, "sweep",
				"sweep.parameters must be a mapping and sweep.mode zip or grid");
			return false;
		}
	}
	for (size_t i = 0; i < (*params)->n; i++) {
		const struct srt_ynode *v = (*params)->pairs[i].value;

		if (v->kind != SRT_Y_SEQ || !v->n) {
			srt_diags_add(d, SRT_DIAG_ERROR, file, v->line, v->col, "sweep",
				      "sweep parameter '%s' must be a non-empty list of values",
				      (*params)->pairs[i].key->str);
			ok = false;
		}
	}
	return ok;
}

/* A JSON scalar (an axis value as the plan holds it) as a YAML node of the same type. */
static struct srt_ynode *scalar_node(struct srt_ydoc *out, const json_t *v)
{
	if (json_is_string(v))
		return srt_ynode_new_str(out, json_string_value(v), false);
	if (json_is_integer(v))
		return srt_ynode_new_str(out,
					 srt_arena_printf(&out->arena, "%" JSON_INTEGER_FORMAT,
							  json_integer_value(v)),
					 true);
	if (json_is_real(v))
		return srt_ynode_new_str(
			out, srt_arena_printf(&out->arena, "%.17g", json_real_value(v)), true);
	return srt_ynode_new_str(out,
				 json_is_true(v)  ? "true" :
				 json_is_false(v) ? "false" :
						    "null",
				 true);
}

size_t srt_sweep_exclude_unfit(struct srt_ydoc *out, struct srt_ynode *camp,
			       const struct srt_ynode *sweep, const char *file,
			       const struct srt_cluster *cluster, struct srt_diags *diags)
{
	struct srt_campaign_plan plan = { 0 };
	struct srt_ynode *excl = NULL;
	struct srt_ydoc *check = NULL;
	struct srt_campaign *c = NULL;
	struct srt_diags quiet;
	struct srt_buf text;
	const char *why = NULL;
	size_t n = 0;
	bool vllm = false;

	srt_buf_init(&text);
	srt_diags_init(&quiet);
	if (srt_yemit(camp, &text) == 0)
		check = srt_ydoc_parse(text.data, text.len, file, &quiet);
	c = check ? srt_campaign_parse(check, &quiet) : NULL;
	if (c)
		srt_campaign_expand(c, check, c->template_node, cluster, &plan, &quiet);
	for (size_t i = 0; i < plan.ndeployments; i++) {
		const struct srt_campaign_deployment *dep = &plan.deployments[i];
		struct srt_diags pd;
		struct srt_recipe *r;
		const char *w = NULL;
		json_t *axes;
		const char *key;
		json_t *val;
		struct srt_ynode *entry;

		srt_diags_init(&pd);
		r = srt_recipe_parse(check, dep->root, dep->name, &pd);
		srt_diags_release(&pd);
		if (!r)
			continue;
		srt_cluster_apply(cluster, r);
		if (srt_recipe_parallel_fits(r, &check->arena, &w))
			continue;
		axes = json_loads(dep->axes, 0, NULL);
		if (!axes)
			continue;
		entry = srt_ynode_new_map(out);
		json_object_foreach(axes, key, val)
			srt_ynode_map_set(out, entry, key, scalar_node(out, val));
		json_decref(axes);
		if (!excl)
			excl = srt_ynode_new_seq(out);
		srt_ynode_seq_push(out, excl, entry);
		if (!n++) {
			why = srt_arena_strdup(&out->arena, w);
			vllm = r->engine == SRT_ENGINE_VLLM;
		}
	}
	if (n == plan.ndeployments && n)
		srt_diags_add(diags, SRT_DIAG_ERROR, file, sweep->line, sweep->col, "sweep",
			      "no combination of this sweep can run (the first: %s); srt-slurm "
			      "refuses such a sweep: change the swept parallel sizes or the "
			      "workers' GPUs",
			      why);
	else if (n)
		srt_diags_add(
			diags, SRT_DIAG_WARNING, file, sweep->line, sweep->col, "sweep",
			"%zu of the sweep's %zu combinations cannot run, their parallel world not "
			"fitting the worker's GPUs (the first: %s); %s, and the campaign lists them "
			"in deployments.exclude",
			n, plan.ndeployments, why,
			vllm ? "srt-slurm drops them from a vLLM sweep too" :
			       "srt-slurm would submit them and TRT-LLM refuse to start, one MPI "
			       "rank per GPU");
	if (n && n < plan.ndeployments) {
		struct srt_ynode *deps = srt_ynode_get(camp, "deployments");

		srt_ynode_map_set(out, deps, "exclude", excl);
	}
	srt_campaign_plan_release(&plan);
	srt_ydoc_free(check);
	srt_diags_release(&quiet);
	srt_buf_release(&text);
	return n;
}

struct srt_ynode *srt_campaign_from_sweep(struct srt_ydoc *out, const struct srt_ynode *recipe,
					  const char *file, struct srt_diags *diags)
{
	struct sweep_ctx sc = { out, diags, file, NULL, 0 };
	const struct srt_ynode *params;
	const struct srt_ynode *bench = srt_ynode_get(recipe, "benchmark"), *conc = NULL;
	const char *mode;
	struct srt_ynode *camp, *deps, *grid, *zips;
	size_t before = diags->nerrors;

	if (!sweep_read(recipe, file, diags, &params, &mode))
		return NULL;
	sc.uses = srt_arena_alloc(&out->arena, params->n * sizeof(*sc.uses));
	for (size_t i = 0; i < params->n; i++) {
		sc.uses[sc.nuses].key = params->pairs[i].key->str;
		sc.uses[sc.nuses++].values = params->pairs[i].value;
	}
	sweep_scan(&sc, recipe, "");
	for (size_t u = 0; u < sc.nuses; u++) {
		const struct sweep_use *use = &sc.uses[u];

		if (use->concurrency && use->npaths)
			srt_diags_add(
				diags, SRT_DIAG_ERROR, file, use->values->line, use->values->col,
				"sweep",
				"'{%s}' is both a concurrency and a deployment setting (%s); a "
				"campaign keeps them apart: write it by hand",
				use->key, use->paths[0]);
		else if (use->concurrency && !strcmp(mode, "zip") && sc.nuses > 1)
			srt_diags_add(
				diags, SRT_DIAG_ERROR, file, use->values->line, use->values->col,
				"sweep",
				"'{%s}' (a concurrency) is zipped with deployment settings; a "
				"campaign runs every concurrency in every deployment: write it "
				"by hand",
				use->key);
		else if (use->concurrency)
			conc = use->values;
		else if (!use->npaths)
			srt_diags_add(diags, SRT_DIAG_WARNING, file, use->values->line,
				      use->values->col, "sweep",
				      "sweep parameter '%s' is used nowhere ('{%s}' appears in no "
				      "value); it is left out of the campaign",
				      use->key, use->key);
	}
	if (diags->nerrors != before)
		return NULL;
	camp = campaign_of(out, recipe);
	deps = srt_ynode_new_map(out);
	grid = srt_ynode_new_map(out);
	zips = srt_ynode_new_seq(out);
	if (!strcmp(mode, "zip")) {
		struct srt_ynode *g = srt_ynode_new_map(out);

		for (size_t u = 0; u < sc.nuses; u++)
			for (size_t p = 0; p < sc.uses[u].npaths; p++)
				srt_ynode_map_set(out, g, sc.uses[u].paths[p],
						  (struct srt_ynode *)sc.uses[u].values);
		if (g->n)
			srt_ynode_seq_push(out, zips, g);
	}
	for (size_t u = 0; strcmp(mode, "zip") && u < sc.nuses; u++) {
		const struct sweep_use *use = &sc.uses[u];
		struct srt_ynode *g;

		if (use->npaths == 1) {
			srt_ynode_map_set(out, grid, use->paths[0],
					  (struct srt_ynode *)use->values);
			continue;
		}
		if (!use->npaths)
			continue;
		g = srt_ynode_new_map(out);
		for (size_t p = 0; p < use->npaths; p++)
			srt_ynode_map_set(out, g, use->paths[p], (struct srt_ynode *)use->values);
		srt_ynode_seq_push(out, zips, g);
	}
	if (grid->n)
		srt_ynode_map_set(out, deps, "grid", grid);
	if (zips->n)
		srt_ynode_map_set(out, deps, "zip", zips);
	if (deps->n)
		srt_ynode_map_set(out, camp, "deployments", deps);
	if (!bench || bench->kind != SRT_Y_MAP) {
		srt_diags_add(diags, SRT_DIAG_ERROR, file, recipe->line, recipe->col, "benchmark",
			      "the sweep recipe has no benchmark section; a campaign needs one "
			      "(benchmark.type sa-bench with isl, osl and concurrencies)");
		return NULL;
	}
	sweep_load(&sc, camp, bench, conc);
	return diags->nerrors == before ? camp : NULL;
}

struct srt_ynode *srt_campaign_from_benchmark(struct srt_ydoc *out, const struct srt_ynode *recipe,
					      const char *file, struct srt_diags *diags)
{
	struct sweep_ctx sc = { out, diags, file, NULL, 0 };
	const struct srt_ynode *bench = srt_ynode_get(recipe, "benchmark");
	const char *type = srt_ynode_str(srt_ynode_get(bench, "type"));
	struct srt_ynode *camp;
	size_t before = diags->nerrors;

	if (!bench || bench->kind != SRT_Y_MAP || !type || strcmp(type, "sa-bench") ||
	    srt_ynode_get(recipe, "sweep"))
		return NULL;
	camp = campaign_of(out, recipe);
	sweep_load(&sc, camp, bench, NULL);
	return diags->nerrors == before ? camp : NULL;
}

/* ---- srt-slurm's sweep: as a variant file ---- */

#define SWEEP_MAX_JOBS 1000

struct sweep_jobs {
	struct srt_ydoc *out;
	const struct srt_ynode *params; /* {name: [values]} */
	size_t njobs;
	size_t *pick; /* njobs x params->n: the value index of each parameter per job */
	bool *used;   /* per parameter */
};

/* The text a value takes inside a longer string, or NULL for a list or mapping. */
static const char *sweep_text(const struct srt_ynode *v)
{
	return v->kind == SRT_Y_SCALAR && v->str ? v->str : NULL;
}

/* Does any scalar under n hold a {parameter}? */
static bool sweep_holds(struct sweep_jobs *sj, const struct srt_ynode *n)
{
	if (n->kind != SRT_Y_SCALAR) {
		for (size_t i = 0; i < n->n; i++)
			if (sweep_holds(sj, n->kind == SRT_Y_MAP ? n->pairs[i].value : n->items[i]))
				return true;
		return false;
	}
	for (size_t p = 0; n->str && p < sj->params->n; p++)
		if (strstr(n->str, srt_arena_printf(&sj->out->arena, "{%s}",
						    sj->params->pairs[p].key->str)))
			return true;
	return false;
}

/*
 * n with job j's values substituted: a scalar that is exactly "{name}"
 * becomes the value itself (typed as written under sweep); "{name}" inside a
 * longer string is replaced by the value's text, as srt-slurm does.
 */
static struct srt_ynode *sweep_subst(struct sweep_jobs *sj, const struct srt_ynode *n, size_t j,
				     const char *file, const char *path, struct srt_diags *d)
{
	struct srt_ynode *o;
	struct srt_buf b;
	bool changed = false;

	if (n->kind == SRT_Y_MAP || n->kind == SRT_Y_SEQ) {
		o = n->kind == SRT_Y_MAP ? srt_ynode_new_map(sj->out) : srt_ynode_new_seq(sj->out);
		o->line = n->line;
		o->col = n->col;
		for (size_t i = 0; i < n->n; i++) {
			if (n->kind == SRT_Y_MAP)
				srt_ynode_map_set(sj->out, o, n->pairs[i].key->str,
						  sweep_subst(sj, n->pairs[i].value, j, file, path,
							      d));
			else
				srt_ynode_seq_push(sj->out, o,
						   sweep_subst(sj, n->items[i], j, file, path, d));
		}
		return o;
	}
	if (!n->str)
		return (struct srt_ynode *)n;
	for (size_t p = 0; p < sj->params->n; p++) {
		const struct srt_ynode *v =
			sj->params->pairs[p].value->items[sj->pick[j * sj->params->n + p]];
		const char *ph =
			srt_arena_printf(&sj->out->arena, "{%s}", sj->params->pairs[p].key->str);

		if (!strstr(n->str, ph))
			continue;
		sj->used[p] = true;
		if (!strcmp(n->str, ph))
			return (struct srt_ynode *)v;
	}
	srt_buf_init(&b);
	for (const char *s = n->str; *s;) {
		size_t p = 0, klen = 0;

		for (; *s == '{' && p < sj->params->n; p++) {
			klen = strlen(sj->params->pairs[p].key->str);
			if (!strncmp(s + 1, sj->params->pairs[p].key->str, klen) &&
			    s[1 + klen] == '}')
				break;
		}
		if (*s != '{' || p == sj->params->n) {
			srt_buf_putc(&b, *s++);
			continue;
		}
		const struct srt_ynode *v =
			sj->params->pairs[p].value->items[sj->pick[j * sj->params->n + p]];

		if (!sweep_text(v)) {
			srt_diags_add(d, SRT_DIAG_ERROR, file, v->line, v->col, path,
				      "sweep parameter '%s' has %s here, substituted inside the "
				      "string '%s' (at %s); only a number or a string can stand "
				      "inside a string: make this value a number or a string",
				      sj->params->pairs[p].key->str, srt_ynode_describe(v), n->str,
				      path);
			break;
		}
		srt_buf_puts(&b, sweep_text(v));
		s += klen + 2;
		changed = true;
	}
	o = changed ? srt_ynode_new_str(sj->out,
					srt_arena_strdup(&sj->out->arena, b.data ? b.data : ""),
					n->plain) :
		      (struct srt_ynode *)n;
	srt_buf_release(&b);
	return o;
}

/*
 * The zip section's mirror of `n`: for every subtree holding a placeholder,
 * the list of its per-job values at the deepest path a deep merge can set
 * (a mapping key; lists replace whole, so a list holding a placeholder is
 * one value).  NULL when nothing under n is swept.
 */
static struct srt_ynode *sweep_zip(struct sweep_jobs *sj, const struct srt_ynode *n,
				   const char *file, const char *path, struct srt_diags *d)
{
	struct srt_ynode *o;

	if (!sweep_holds(sj, n))
		return NULL;
	if (n->kind == SRT_Y_MAP) {
		o = srt_ynode_new_map(sj->out);
		for (size_t i = 0; i < n->n; i++) {
			const char *k = n->pairs[i].key->str;
			struct srt_ynode *z;

			if (!*path && !strcmp(k, "sweep"))
				continue;
			z = sweep_zip(
				sj, n->pairs[i].value, file,
				*path ? srt_arena_printf(&sj->out->arena, "%s.%s", path, k) : k, d);
			if (z)
				srt_ynode_map_set(sj->out, o, k, z);
		}
		return o->n ? o : NULL;
	}
	o = srt_ynode_new_seq(sj->out);
	for (size_t j = 0; j < sj->njobs; j++)
		srt_ynode_seq_push(sj->out, o, sweep_subst(sj, n, j, file, path, d));
	return o;
}

struct srt_ynode *srt_sweep_as_variants(struct srt_ydoc *out, const struct srt_ynode *recipe,
					const char *file, struct srt_diags *diags)
{
	const struct srt_ynode *sweep = srt_ynode_get(recipe, "sweep"), *params;
	struct sweep_jobs sj = { out, NULL, 1, NULL, NULL };
	struct srt_ynode *root, *base, *zip;
	const char *mode;
	size_t before = diags->nerrors;

	if (!sweep_read(recipe, file, diags, &params, &mode))
		return NULL;
	for (size_t p = 0; p < params->n; p++) {
		const struct srt_ynode *v = params->pairs[p].value;

		if (!strcmp(mode, "zip") && v->n != params->pairs[0].value->n) {
			srt_diags_add(diags, SRT_DIAG_ERROR, file, v->line, v->col, "sweep",
				      "sweep.mode zip needs lists of one length: '%s' has %zu "
				      "values, '%s' %zu",
				      params->pairs[p].key->str, v->n, params->pairs[0].key->str,
				      params->pairs[0].value->n);
			return NULL;
		}
		sj.njobs = !strcmp(mode, "zip") ? v->n : sj.njobs * v->n;
		if (sj.njobs > SWEEP_MAX_JOBS) {
			srt_diags_add(diags, SRT_DIAG_ERROR, file, sweep->line, sweep->col, "sweep",
				      "the sweep makes more than %d jobs; split it",
				      SWEEP_MAX_JOBS);
			return NULL;
		}
	}
	sj.params = params;
	sj.pick = srt_arena_alloc(&out->arena, sj.njobs * params->n * sizeof(*sj.pick));
	sj.used = srt_arena_alloc(&out->arena, params->n * sizeof(*sj.used));
	/* srt-slurm's order: zip by index; grid as a product, the last parameter fastest. */
	for (size_t j = 0; j < sj.njobs; j++)
		for (size_t p = params->n, rest = j; p-- > 0;) {
			size_t len = params->pairs[p].value->n;

			sj.pick[j * params->n + p] = !strcmp(mode, "zip") ? j : rest % len;
			rest /= !strcmp(mode, "zip") ? 1 : len;
		}
	base = srt_ynode_new_map(out);
	for (size_t i = 0; i < recipe->n; i++)
		if (strcmp(recipe->pairs[i].key->str, "sweep"))
			srt_ynode_map_set(out, base, recipe->pairs[i].key->str,
					  recipe->pairs[i].value);
	zip = sweep_zip(&sj, recipe, file, "", diags);
	if (diags->nerrors != before)
		return NULL;
	if (!zip) {
		srt_diags_add(diags, SRT_DIAG_ERROR, file, sweep->line, sweep->col, "sweep",
			      "no value holds a sweep parameter ({name}); remove 'sweep'");
		return NULL;
	}
	for (size_t p = 0; p < params->n; p++)
		if (!sj.used[p])
			srt_diags_add(diags, SRT_DIAG_WARNING, file, params->pairs[p].value->line,
				      params->pairs[p].value->col, "sweep",
				      "sweep parameter '%s' is used nowhere ('{%s}' appears in no "
				      "value)",
				      params->pairs[p].key->str, params->pairs[p].key->str);
	root = srt_ynode_new_map(out);
	srt_ynode_map_set(out, root, "base", base);
	srt_ynode_map_set(out, root, "zip_override_sweep", zip);
	return root;
}
