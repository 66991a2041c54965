/*
 * tests/unit/test_campaign.c: the Campaign kind (recipe/campaign.c): the
 * strict schema, the concurrency forms, grid/zip/exclude, child recipes and
 * point identity.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipe/campaign.h"
#include "util/buf.h"

#define TEMPLATE                                       \
	"template:\n"                                  \
	"  engine: sglang\n"                           \
	"  model: {path: /models/m, container: img}\n" \
	"  roles:\n"                                   \
	"    prefill:\n"                               \
	"      nodes: 1\n"                             \
	"      args: {tensor-parallel-size: 4}\n"      \
	"    decode:\n"                                \
	"      nodes: 1\n"                             \
	"      workers: 1\n"                           \
	"      env: {FOO: bar}\n"

struct fx {
	struct srt_ydoc *doc;
	struct srt_campaign *c;
	struct srt_campaign_plan plan;
	struct srt_diags d;
	struct srt_cluster cluster;
	size_t nerr;
};

/* Parse and expand `yaml`; errors stay in f->d (f->nerr counts them). */
static void load(struct fx *f, const char *yaml)
{
	memset(f, 0, sizeof(*f));
	srt_diags_init(&f->d);
	srt_cluster_defaults(&f->cluster);
	f->doc = srt_ydoc_parse(yaml, strlen(yaml), "c.yaml", &f->d);
	assert_non_null(f->doc);
	assert_int_equal(srt_campaign_doc_kind(f->doc, &f->d), 1);
	f->c = srt_campaign_parse(f->doc, &f->d);
	assert_non_null(f->c);
	if (!f->d.nerrors)
		srt_campaign_expand(f->c, f->doc, f->c->template_node, &f->cluster, &f->plan,
				    &f->d);
	f->nerr = f->d.nerrors;
}

static void ok(struct fx *f, const char *yaml)
{
	load(f, yaml);
	if (f->nerr) {
		srt_diags_print(&f->d, stderr);
		fail_msg("campaign did not expand");
	}
}

static void release(struct fx *f)
{
	srt_campaign_plan_release(&f->plan);
	srt_diags_release(&f->d);
	srt_cluster_release(&f->cluster);
	srt_ydoc_free(f->doc);
}

/* Does some error contain `needle` (and carry a line)? */
static bool has_error(const struct fx *f, const char *needle)
{
	for (size_t i = 0; i < f->d.n; i++)
		if (f->d.items[i].level == SRT_DIAG_ERROR && strstr(f->d.items[i].msg, needle) &&
		    f->d.items[i].line > 0)
			return true;
	return false;
}

static void expect_error(const char *yaml, const char *needle)
{
	struct fx f;

	load(&f, yaml);
	if (!has_error(&f, needle)) {
		srt_diags_print(&f.d, stderr);
		fail_msg("no error containing '%s'", needle);
	}
	release(&f);
}

static const char base_load[] = "load:\n  shapes: [{isl: 1024, osl: 256}]\n"
				"  concurrency: [4, 8]\n"
				"benchmark: {tool: vllm-bench}\n";

static char *doc(const char *deployments, const char *load_)
{
	return srt_xasprintf("kind: Campaign\nname: camp\n" TEMPLATE "%s%s", deployments,
			     load_ ? load_ : base_load);
}

static void test_minimal(void **state)
{
	struct fx f;
	char *y = doc("", NULL);

	(void)state;
	ok(&f, y);
	assert_int_equal(f.plan.ndeployments, 1);
	assert_int_equal(f.plan.npoints, 2);
	assert_int_equal(f.plan.deployments[0].nodes, 2);
	assert_string_equal(f.plan.deployments[0].axes, "{}");
	assert_true(!strncmp(f.plan.deployments[0].name, "camp-", 5));
	assert_int_equal(strlen(f.plan.deployments[0].name), 13);
	assert_int_equal(f.plan.points[0].concurrency, 4);
	assert_int_equal(f.plan.points[0].prompts, 40);
	assert_int_equal(f.plan.points[0].warmup, 8);
	assert_int_equal(f.plan.points[1].seq, 2);
	assert_int_equal(f.c->max_concurrent_jobs, 1);
	assert_int_equal(f.c->point_retries, SRT_CAMPAIGN_POINT_RETRIES);
	assert_true(f.c->min_completed_ratio > 0.98);
	assert_true(f.plan.est_node_hours > 0);
	assert_string_equal(f.plan.bench_params, "{}");
	/* The child recipe is named and keeps the template's values. */
	assert_non_null(strstr(f.plan.deployments[0].spec, "\"name\":\"camp-"));
	assert_non_null(strstr(f.plan.deployments[0].spec, "\"tensor-parallel-size\":4"));
	/* policy.jobAttempts (default 3) is its attempt budget */
	assert_non_null(strstr(f.plan.deployments[0].spec, "\"slurm\":{\"max_attempts\":3}"));
	assert_int_equal(f.c->notify.command.n, 0);
	release(&f);
	free(y);
	/* notify: the cluster config's block, for this campaign's events */
	y = doc("notify: {command: [/bin/page, -x], timeout: 2s}\n", NULL);
	ok(&f, y);
	assert_int_equal(f.c->notify.command.n, 2);
	assert_string_equal(f.c->notify.command.v[1], "-x");
	assert_int_equal(f.c->notify.timeout_ms, 2000);
	assert_int_equal(f.c->notify.max_attempts, 10);
	release(&f);
	free(y);
	y = srt_xasprintf("kind: Campaign\nname: camp\n" TEMPLATE "%spolicy: {jobAttempts: 5}\n",
			  base_load);
	ok(&f, y);
	assert_non_null(strstr(f.plan.deployments[0].spec, "\"max_attempts\":5"));
	release(&f);
	free(y);
}

static void test_grid_zip_exclude(void **state)
{
	struct fx f;
	char *y =
		doc("deployments:\n"
		    "  grid:\n"
		    "    roles.decode.workers: [1, 2]\n"
		    "    roles.prefill.args.tensor-parallel-size: [4, 8]\n"
		    "  zip:\n"
		    "    roles.decode.env.FOO: [a, b, c]\n"
		    "    roles.decode.env.BAR: [x, y, z]\n"
		    "  exclude:\n"
		    "    - {roles.decode.workers: 2, roles.prefill.args.tensor-parallel-size: 8}\n",
		    NULL);

	(void)state;
	ok(&f, y);
	/* 2 x 2 x 3 = 12, minus the 3 of (2, 8) */
	assert_int_equal(f.plan.ndeployments, 9);
	assert_int_equal(f.plan.npoints, 18);
	/* The first axis varies slowest, zip rows advance together. */
	assert_string_equal(
		f.plan.deployments[0].axes,
		"{\"roles.decode.env.BAR\":\"x\",\"roles.decode.env.FOO\":\"a\","
		"\"roles.decode.workers\":1,\"roles.prefill.args.tensor-parallel-size\":4}");
	assert_string_equal(
		f.plan.deployments[1].axes,
		"{\"roles.decode.env.BAR\":\"y\",\"roles.decode.env.FOO\":\"b\","
		"\"roles.decode.workers\":1,\"roles.prefill.args.tensor-parallel-size\":4}");
	assert_non_null(strstr(f.plan.deployments[0].spec, "\"BAR\":\"x\""));
	assert_non_null(strstr(f.plan.deployments[0].spec, "\"FOO\":\"a\""));
	for (size_t i = 0; i < f.plan.ndeployments; i++) {
		assert_null(strstr(f.plan.deployments[i].axes,
				   "\"roles.decode.workers\":2,\"roles.prefill.args."
				   "tensor-parallel-size\":8"));
		for (size_t j = 0; j < i; j++) {
			assert_string_not_equal(f.plan.deployments[i].name,
						f.plan.deployments[j].name);
			assert_string_not_equal(f.plan.deployments[i].spec_hash,
						f.plan.deployments[j].spec_hash);
		}
	}
	/* workers 2 -> 3 nodes? no: workers share the role's node count */
	assert_non_null(strstr(f.plan.deployments[8].spec, "\"workers\":2"));
	/* The template itself is not modified. */
	assert_int_equal(
		srt_ynode_get(srt_ynode_get(srt_ynode_get(f.c->template_node, "roles"), "decode"),
			      "env")
			->n,
		1);
	release(&f);
	free(y);
}

static void test_zip_list_of_groups(void **state)
{
	struct fx f;
	char *y = doc("deployments:\n"
		      "  zip:\n"
		      "    - {roles.decode.env.FOO: [a, b], roles.decode.env.BAR: [x, y]}\n"
		      "    - {roles.decode.workers: [1, 2]}\n",
		      NULL);

	(void)state;
	ok(&f, y);
	assert_int_equal(f.plan.ndeployments, 4);
	release(&f);
	free(y);
}

static void test_concurrency_forms(void **state)
{
	static const struct {
		const char *yaml;
		size_t n;
		int64_t first, last;
	} cases[] = {
		{ "[4, 8, 16]", 3, 4, 16 },
		{ "\"4x8x16\"", 3, 4, 16 },
		{ "\"1x2x4x8x16x32x64x128x256x512x1024\"", 11, 1, 1024 },
		{ "'6'", 1, 6, 6 },
		{ "6", 1, 6, 6 },
		{ "['1229']", 1, 1229, 1229 },
		{ "{start: 1, end: 256, factor: 2}", 9, 1, 256 },
		{ "{start: 4, end: 100}", 5, 4, 64 },
		{ "{start: 3, end: 100, factor: 3}", 4, 3, 81 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct srt_diags d;
		struct srt_ydoc *y;
		int64_t *v;
		size_t n;

		srt_diags_init(&d);
		y = srt_ydoc_parse(cases[i].yaml, strlen(cases[i].yaml), "t.yaml", &d);
		assert_non_null(y);
		assert_int_equal(srt_campaign_parse_concurrency(y, y->root, "load.concurrency", &v,
								&n, &d),
				 0);
		assert_int_equal(n, cases[i].n);
		assert_int_equal(v[0], cases[i].first);
		assert_int_equal(v[n - 1], cases[i].last);
		srt_ydoc_free(y);
		srt_diags_release(&d);
	}
}

static void test_concurrency_errors(void **state)
{
	static const struct {
		const char *yaml, *needle;
	} cases[] = {
		{ "\"4x8x\"", "is not a concurrency list" },
		{ "\"4,8\"", "is not a concurrency list" },
		{ "[4, 0]", "must be an integer from 1" },
		{ "[4, 4]", "listed twice" },
		{ "[]", "empty" },
		{ "{start: 8, end: 4}", "above its end" },
		{ "{start: 1}", "needs 'start' and 'end'" },
		{ "{start: 1, end: 4, factr: 2}", "did you mean 'factor'" },
		{ "-3", "must be an integer from 1" },
		{ "{start: 1, end: 8, factor: 1}", "between 2 and 1000" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct srt_diags d;
		struct srt_ydoc *y;
		int64_t *v;
		size_t n;
		bool found = false;

		srt_diags_init(&d);
		y = srt_ydoc_parse(cases[i].yaml, strlen(cases[i].yaml), "t.yaml", &d);
		assert_non_null(y);
		assert_int_equal(srt_campaign_parse_concurrency(y, y->root, "load.concurrency", &v,
								&n, &d),
				 -1);
		for (size_t k = 0; k < d.n; k++)
			found = found || strstr(d.items[k].msg, cases[i].needle);
		if (!found) {
			srt_diags_print(&d, stderr);
			fail_msg("case %zu: no error with '%s'", i, cases[i].needle);
		}
		srt_ydoc_free(y);
		srt_diags_release(&d);
	}
}

static void test_schema_errors(void **state)
{
	static const struct {
		const char *deployments, *load, *needle;
	} cases[] = {
		{ "polcy: {}\n", NULL, "did you mean 'policy'" },
		{ "deployments: {gird: {}}\n", NULL, "did you mean 'grid'" },
		{ "deployments: {grid: {roles.decode.workers: 2}}\n", NULL, "non-empty list" },
		{ "deployments: {grid: {roles.decode.wokers: [1, 2]}}\n", NULL,
		  "[deployment camp-" },
		{ "deployments: {grid: {roles.decod.workers: [1, 2]}}\n", NULL,
		  "did you mean 'decode'" },
		{ "deployments: {grid: {name: [a, b]}}\n", NULL, "cannot be swept" },
		{ "deployments: {grid: {roles.decode.workers: [1, 1]}}\n", NULL, "twice" },
		{ "deployments: {zip: {roles.decode.workers: [1, 2], roles.decode.nodes: [1]}}\n",
		  NULL, "need the same number of values" },
		{ "deployments: {grid: {roles.decode.workers: [1]}, exclude: [{roles.x: 1}]}\n",
		  NULL, "not an axis" },
		{ "deployments: {grid: {roles.decode.workers: [1]}, exclude: "
		  "[{roles.decode.workers: 1}]}\n",
		  NULL, "every deployment is excluded" },
		{ "deployments: {grid: {roles.decode.workers: [0, 1]}}\n", NULL,
		  "[deployment camp-" },
		{ "", "load: {shapes: [{isl: 1}], concurrency: [1]}\nbenchmark: {tool: sa-bench}\n",
		  "needs both 'isl' and 'osl'" },
		{ "", "load: {shapes: [{isl: 1, osl: 1}]}\nbenchmark: {tool: sa-bench}\n",
		  "'load.concurrency' is required" },
		{ "",
		  "load: {shapes: [{isl: 1, osl: 1}], concurrency: 4}\nbenchmark: {tool: vlm-bench}\n",
		  "did you mean 'vllm-bench'" },
		{ "",
		  "load: {shapes: [{isl: 1, osl: 1}], concurrency: 4}\nbenchmark: {tool: custom}\n",
		  "needs 'command'" },
		{ "",
		  "load: {shapes: [{isl: 1, osl: 1}], concurrency: 4}\n"
		  "benchmark: {tool: sa-bench, command: x}\n",
		  "custom tool only" },
		{ "",
		  "load: {shapes: [{isl: 1, osl: 1}], concurrency: 4}\n"
		  "benchmark: {tool: custom, command: x, resultFile: 'out/c${SRT_BENCH_CONC}.json'}\n",
		  "'${SRT_BENCH_CONC}' is not a variable srtctl sets" },
		{ "",
		  "load: {shapes: [{isl: 1, osl: 1}], concurrency: 4}\n"
		  "benchmark: {tool: custom, command: x, resultFile: [a]}\n",
		  "'resultFile' must be a string" },
		{ "",
		  "load: {shapes: [{isl: 1, osl: 1}], concurrency: 4}\n"
		  "benchmark: {tool: vllm-bench, resultFile: x.json}\n",
		  "'resultFile' is for the custom tool only" },
		{ "validity: {minCompletedRatio: 1.5}\n", NULL, "between 0" },
		{ "slo: {ttftP99ms: 10}\n", NULL, "did you mean 'ttftP99Ms'" },
		{ "policy: {maxConcurrentJobs: 0}\n", NULL, "between 1 and" },
		{ "policy: {maxNodes: 1}\n", NULL, "more than policy.maxNodes" },
		{ "policy: {order: biggest}\n", NULL, "smallest-first" },
		{ "policy: {budget: {nodeHours: 0}}\n", NULL, "between 0 (excluded)" },
		{ "notify: {timeout: 5s}\n", NULL, "needs command" },
		{ "notify: {command: [x], retries: 2}\n", NULL, "unknown key 'retries'" },
		{ "notify: {command: [x], max_attempts: 0}\n", NULL, "from 1 to 1000" },
		{ "notify: [x]\n", NULL, "must be a mapping with command" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *y = doc(cases[i].deployments, cases[i].load);

		expect_error(y, cases[i].needle);
		free(y);
	}
}

static void test_document_errors(void **state)
{
	struct srt_diags d;
	struct srt_ydoc *y;
	const char *bad_kind = "kind: Recipe\nname: x\n";

	(void)state;
	srt_diags_init(&d);
	y = srt_ydoc_parse(bad_kind, strlen(bad_kind), "k.yaml", &d);
	assert_int_equal(srt_campaign_doc_kind(y, &d), -1);
	assert_non_null(strstr(d.items[0].msg, "unknown kind 'Recipe'"));
	srt_ydoc_free(y);
	srt_diags_release(&d);

	expect_error("kind: Campaign\nname: -bad\n" TEMPLATE
		     "load: {shapes: [{isl: 1, osl: 1}], concurrency: 4}\n"
		     "benchmark: {tool: sa-bench}\n",
		     "campaign name '-bad'");
	expect_error("kind: Campaign\nname: c\nload: {shapes: [{isl: 1, osl: 1}], concurrency: "
		     "4}\nbenchmark: {tool: sa-bench}\n",
		     "needs 'template'");
	expect_error("kind: Campaign\nname: c\n" TEMPLATE
		     "load: {shapes: [{isl: 1, osl: 1}], concurrency: 4, prompts: 9,\n"
		     "       promptsPerConcurrency: 2}\nbenchmark: {tool: sa-bench}\n",
		     "'prompts' (one count for every point) and 'promptsPerConcurrency' (a count "
		     "per concurrency) both say how many; keep one");
	expect_error("kind: Campaign\nname: c\n" TEMPLATE
		     "load: {shapes: [{isl: 1, osl: 1}], concurrency: 4}\n"
		     "benchmark: {tool: sa-bench, params: {max-concurrency: 3}}\n",
		     "'max-concurrency' is set by srtctl from the load point");
	expect_error("kind: Campaign\nname: c\n" TEMPLATE "  benchmark: {type: sa-bench}\n"
		     "load: {shapes: [{isl: 1, osl: 1}], concurrency: 4}\n"
		     "benchmark: {tool: sa-bench}\n",
		     "delete the template's benchmark section");
	expect_error("kind: Campaign\nname: c\n" TEMPLATE "  sweep: {a: [1]}\n"
		     "load: {shapes: [{isl: 1, osl: 1}], concurrency: 4}\n"
		     "benchmark: {tool: sa-bench}\n",
		     "cannot have 'sweep:'");
}

static void test_template_path(void **state)
{
	struct srt_diags d;
	struct srt_ydoc *y;
	struct srt_campaign *c;
	const char *yaml = "kind: Campaign\nname: c\ntemplate: ../r.yaml\n"
			   "load: {shapes: [{isl: 1, osl: 1}], concurrency: 4}\n"
			   "benchmark: {tool: sa-bench}\n";

	(void)state;
	srt_diags_init(&d);
	y = srt_ydoc_parse(yaml, strlen(yaml), "dir/c.yaml", &d);
	c = srt_campaign_parse(y, &d);
	assert_int_equal(d.nerrors, 0);
	assert_null(c->template_node);
	assert_string_equal(srt_campaign_template_path(c), "dir/../r.yaml");
	srt_ydoc_free(y);
	srt_diags_release(&d);
}

/* The ids of `yaml`'s points, in order (caller frees each and the array). */
static char **ids(const char *yaml, size_t *n)
{
	struct fx f;
	char **v;

	ok(&f, yaml);
	*n = f.plan.npoints;
	v = srt_xcalloc(*n + 1, sizeof(*v));
	for (size_t i = 0; i < *n; i++)
		v[i] = srt_xasprintf("%s %s", f.plan.deployments[f.plan.points[i].deployment].name,
				     f.plan.points[i].id);
	release(&f);
	return v;
}

static void free_ids(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static bool contains(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

static void test_identity(void **state)
{
	const char *grid = "deployments:\n  grid:\n    roles.decode.workers: [1, 2]\n";
	char *a = doc(grid, NULL);
	char *same = srt_xasprintf("# comments and key order do not count\n%s", a);
	char *more = doc(grid, "load:\n  shapes: [{isl: 1024, osl: 256}]\n"
			       "  concurrency: \"4x8x16\"\n"
			       "benchmark: {tool: vllm-bench}\n");
	char *axis = doc("deployments:\n  grid:\n    roles.decode.workers: [1, 3]\n", NULL);
	char *tool = doc(grid, "load:\n  shapes: [{isl: 1024, osl: 256}]\n"
			       "  concurrency: [4, 8]\n"
			       "benchmark: {tool: sa-bench}\n");
	size_t na, ns, nm, nx, nt, kept = 0;
	char **va = ids(a, &na), **vs = ids(same, &ns), **vm = ids(more, &nm),
	     **vx = ids(axis, &nx), **vt = ids(tool, &nt);

	(void)state;
	assert_int_equal(na, 4);
	/* same input -> same ids, in the same order */
	assert_int_equal(ns, na);
	for (size_t i = 0; i < na; i++)
		assert_string_equal(va[i], vs[i]);
	/* one more concurrency: every old id kept, exactly one new per deployment */
	assert_int_equal(nm, 6);
	for (size_t i = 0; i < na; i++)
		assert_true(contains(vm, nm, va[i]));
	/* a changed axis value: the other deployment's points are unchanged */
	assert_int_equal(nx, 4);
	for (size_t i = 0; i < nx; i++)
		kept += contains(va, na, vx[i]);
	assert_int_equal(kept, 2);
	assert_true(contains(vx, nx, va[0]) && contains(vx, nx, va[1]));
	/* another tool: every id changes */
	for (size_t i = 0; i < nt; i++)
		assert_false(contains(va, na, vt[i]));
	free_ids(va, na);
	free_ids(vs, ns);
	free_ids(vm, nm);
	free_ids(vx, nx);
	free_ids(vt, nt);
	free(a);
	free(same);
	free(more);
	free(axis);
	free(tool);
}

static void test_template_change(void **state)
{
	/* The template changes: names stay (they hash axis values), specs and ids change. */
	struct fx f1, f2;
	char *a = doc("deployments: {grid: {roles.decode.workers: [1, 2]}}\n", NULL);
	char *b = srt_xasprintf("%s", a);
	char *p = strstr(b, "tensor-parallel-size: 4");

	(void)state;
	assert_non_null(p);
	p[strlen("tensor-parallel-size: ")] = '8';
	ok(&f1, a);
	ok(&f2, b);
	assert_int_equal(f1.plan.ndeployments, f2.plan.ndeployments);
	for (size_t i = 0; i < f1.plan.ndeployments; i++) {
		assert_string_equal(f1.plan.deployments[i].name, f2.plan.deployments[i].name);
		assert_string_not_equal(f1.plan.deployments[i].spec_hash,
					f2.plan.deployments[i].spec_hash);
	}
	assert_string_not_equal(f1.plan.points[0].id, f2.plan.points[0].id);
	assert_string_not_equal(f1.plan.spec_hash, f2.plan.spec_hash);
	release(&f1);
	release(&f2);
	free(a);
	free(b);
}

static void test_estimate(void **state)
{
	struct fx f;
	char *y = doc("policy: {estimate: {startupMinutes: 0, tpotMs: 10, "
		      "prefillTokensPerSecond: 1000}}\n",
		      "load:\n  shapes: [{isl: 1000, osl: 100}]\n  concurrency: [4]\n"
		      "benchmark: {tool: vllm-bench}\n");

	(void)state;
	ok(&f, y);
	/* (40 + 8) / 4 = 12 waves of (1000/1000 + 100 x 0.010) = 2 s -> 24 s, 2 nodes */
	assert_true(f.plan.est_point_seconds_total > 23.99 &&
		    f.plan.est_point_seconds_total < 24.01);
	assert_true(f.plan.est_node_hours > 2 * 24.0 / 3600 - 1e-9 &&
		    f.plan.est_node_hours < 2 * 24.0 / 3600 + 1e-9);
	release(&f);
	free(y);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_grid_zip_exclude),
		cmocka_unit_test(test_zip_list_of_groups),
		cmocka_unit_test(test_concurrency_forms),
		cmocka_unit_test(test_concurrency_errors),
		cmocka_unit_test(test_schema_errors),
		cmocka_unit_test(test_document_errors),
		cmocka_unit_test(test_template_path),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_template_change),
		cmocka_unit_test(test_estimate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
