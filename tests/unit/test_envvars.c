/*
 * tests/unit/test_envvars.c: srt-slurm's $VARs in a recipe (recipe/envvars.c),
 * alone and through the compile pipeline (variants share nodes; the verbs'
 * strictness; the InferenceX mount).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipe/compile.h"
#include "recipe/envvars.h"

/* A fixed environment: A=/a, B_2=b, EMPTY='', DOLLAR='$A'. */
static const char *fake_env(const char *name)
{
	static const char *const kv[][2] = {
		{ "A", "/a" },
		{ "B_2", "b" },
		{ "EMPTY", "" },
		{ "DOLLAR", "$A" },
	};

	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
		if (!strcmp(name, kv[i][0]))
			return kv[i][1];
	return NULL;
}

/* The same with INFMAX_WORKSPACE=/ws. */
static const char *fake_env_ws(const char *name)
{
	return !strcmp(name, "INFMAX_WORKSPACE") ? "/ws" : fake_env(name);
}

static void test_expand(void **state)
{
	static const struct {
		const char *in, *out, *unset;
	} cases[] = {
		{ "plain", "plain", "" },
		{ "$A/x", "/a/x", "" },
		{ "${A}x", "/ax", "" },
		{ "$B_2.$A", "b./a", "" },
		{ "$Ax", "$Ax", "$Ax" }, /* the name runs to the first non-word character */
		{ "[$EMPTY]", "[]", "" },
		{ "$DOLLAR", "$A", "" }, /* one pass: a value is not expanded again */
		{ "$ alone, $-, ${}, ${open", "$ alone, $-, ${}, ${open", "" },
		{ "$NOPE/${ALSO}/$A", "$NOPE/${ALSO}//a", "$NOPE, $ALSO" },
	};
	struct srt_arena a;

	(void)state;
	srt_arena_init(&a);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct srt_buf unset;
		const char *got;

		srt_buf_init(&unset);
		got = srt_expand_vars(&a, cases[i].in, fake_env, &unset);
		assert_string_equal(got, cases[i].out);
		assert_string_equal(unset.len ? unset.data : "", cases[i].unset);
		if (!strcmp(cases[i].in, cases[i].out))
			assert_ptr_equal(got, cases[i].in); /* unchanged: the same string */
		srt_buf_release(&unset);
	}
	srt_arena_release(&a);
}

#define ROLES "engine: sglang\nroles:\n  agg: {}\n"

/* Compile `yaml` in the environment `env`; returns the error count. */
static size_t compile(const char *yaml, srt_getenv_fn env, bool strict, struct srt_compiled *c,
		      struct srt_diags *d)
{
	struct srt_cluster cl;

	srt_cluster_defaults(&cl);
	cl.container_runtime = SRT_CRT_PYXIS;
	cl.env = env;
	cl.env_strict = strict;
	srt_diags_init(d);
	return srt_compile_bytes(yaml, strlen(yaml), "r.yaml", &cl, c, d);
}

static bool has_diag(const struct srt_diags *d, const char *want)
{
	char line[2048];

	for (size_t i = 0; i < d->n; i++) {
		const struct srt_diag *g = &d->items[i];

		snprintf(line, sizeof(line), "%s:%u:%u: %s%s: %s", g->file, g->line, g->col,
			 g->level == SRT_DIAG_WARNING ? "warning: " : "", g->path ? g->path : "",
			 g->msg);
		if (!strcmp(line, want))
			return true;
	}
	for (size_t i = 0; i < d->n; i++)
		fprintf(stderr, "have: %s:%u:%u: %s\n", d->items[i].file, d->items[i].line,
			d->items[i].col, d->items[i].msg);
	fprintf(stderr, "want: %s\n", want);
	return false;
}

static void test_fields(void **state)
{
	const char *yaml = "name: r\nmodel:\n  path: $A/m\n  container: ${B_2}.sqsh\n"
			   "extra_mount: ['$A/t.py:/opt/$A:ro']\n"
			   "container_mounts: {$A/c: /c/$B_2}\n" ROLES;
	struct srt_compiled c;
	struct srt_diags d;
	const struct srt_recipe *r;

	(void)state;
	assert_int_equal(compile(yaml, fake_env, true, &c, &d), 0);
	r = c.recipes[0];
	assert_string_equal(r->model.path, "/a/m");
	assert_string_equal(r->model.container, "b.sqsh");
	assert_int_equal(r->mounts.n, 2);
	/* extra_mount: the host side only, as srt-slurm splits it */
	assert_string_equal(r->mounts.v[0].name, "/a/t.py:/opt/$A:ro");
	/* container_mounts: both sides */
	assert_string_equal(r->mounts.v[1].name, "/a/c:/c/b");
	srt_compiled_release(&c);
	srt_diags_release(&d);
}

static void test_unset(void **state)
{
	const char *yaml = "name: r\nmodel: {path: /m, container: $NOPE}\n" ROLES;
	struct srt_compiled c;
	struct srt_diags d;

	(void)state;
	/* validate, dry-run: a warning; the value stays as written */
	assert_int_equal(compile(yaml, fake_env, false, &c, &d), 0);
	assert_true(has_diag(&d, "r.yaml:2:30: warning: model.container: $NOPE is not set: "
				 "srt-slurm resolves it from the environment it submits the job "
				 "from, srtctl from the one `srtctl apply` runs in; export it, or "
				 "write the value (apply refuses the recipe until then)"));
	assert_string_equal(c.recipes[0]->model.container, "$NOPE");
	srt_compiled_release(&c);
	srt_diags_release(&d);
	/* apply: an error */
	assert_int_equal(compile(yaml, fake_env, true, &c, &d), 1);
	assert_true(has_diag(&d,
			     "r.yaml:2:30: model.container: $NOPE is not set: srt-slurm "
			     "resolves it from the environment it submits the job from, srtctl "
			     "from the one `srtctl apply` runs in; export it, or write the value"));
	srt_compiled_release(&c);
	srt_diags_release(&d);
}

/* Variants share base's nodes: each is resolved, and base is left as written. */
static void test_variants(void **state)
{
	const char *yaml = "base:\n  name: r\n  model: {path: /m, container: $A.sqsh}\n"
			   "  engine: sglang\n  roles: {agg: {}}\n"
			   "zip_override_x:\n  slurm:\n    time_limit: ['1:00:00', '2:00:00']\n";
	struct srt_compiled c;
	struct srt_diags d;
	const struct srt_ynode *base;

	(void)state;
	assert_int_equal(compile(yaml, fake_env, true, &c, &d), 0);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.recipes[0]->model.container, "/a.sqsh");
	assert_string_equal(c.recipes[1]->model.container, "/a.sqsh");
	base = srt_ynode_get(c.doc->root, "base");
	assert_string_equal(srt_ynode_str(srt_ynode_get(srt_ynode_get(base, "model"), "container")),
			    "$A.sqsh");
	srt_compiled_release(&c);
	srt_diags_release(&d);
}

static void test_infmax(void **state)
{
	const char *uses = "name: r\nmodel: {path: /m, container: /i.sqsh}\n" ROLES
			   "benchmark: {type: custom, command: bash /infmax-workspace/run.sh}\n";
	const char *own = "name: r\nmodel: {path: /m, container: /i.sqsh}\n" ROLES
			  "container_mounts: {/mine: '/infmax-workspace:ro'}\n";
	const char *elsewhere = "name: r\nmodel: {path: /m, container: /i.sqsh}\n" ROLES
				"container_mounts: {/ws: /ix}\n";
	struct srt_compiled c;
	struct srt_diags d;

	(void)state;
	/* unset, and the recipe runs something from there: said */
	assert_int_equal(compile(uses, fake_env, true, &c, &d), 0);
	assert_true(has_diag(
		&d, "r.yaml:6:36: warning: benchmark.command: this recipe uses /infmax-workspace, "
		    "where srt-slurm mounts $INFMAX_WORKSPACE (an InferenceX checkout "
		    "the compute nodes see), and INFMAX_WORKSPACE is not set; export "
		    "it before `srtctl apply` (srtctl mounts it there too), or mount "
		    "the checkout in container_mounts"));
	assert_int_equal(c.recipes[0]->mounts.n, 0);
	srt_compiled_release(&c);
	srt_diags_release(&d);
	/* set: mounted there, as srt-slurm does */
	assert_int_equal(compile(uses, fake_env_ws, true, &c, &d), 0);
	assert_int_equal(d.nwarnings, 0);
	assert_int_equal(c.recipes[0]->mounts.n, 1);
	assert_string_equal(c.recipes[0]->mounts.v[0].name, "/ws:/infmax-workspace");
	srt_compiled_release(&c);
	srt_diags_release(&d);
	/* the recipe's own mount there wins */
	assert_int_equal(compile(own, fake_env_ws, true, &c, &d), 0);
	assert_int_equal(c.recipes[0]->mounts.n, 1);
	assert_string_equal(c.recipes[0]->mounts.v[0].name, "/mine:/infmax-workspace:ro");
	srt_compiled_release(&c);
	srt_diags_release(&d);
	/* and so does its own mount of that directory elsewhere */
	assert_int_equal(compile(elsewhere, fake_env_ws, true, &c, &d), 0);
	assert_int_equal(c.recipes[0]->mounts.n, 1);
	assert_string_equal(c.recipes[0]->mounts.v[0].name, "/ws:/ix");
	srt_compiled_release(&c);
	srt_diags_release(&d);
}

/* Without an environment (the controller compiling a recorded spec) nothing changes. */
static void test_no_env(void **state)
{
	const char *yaml = "name: r\nmodel: {path: /m, container: $A.sqsh}\n" ROLES;
	struct srt_cluster cl;
	struct srt_compiled c;
	struct srt_diags d;

	(void)state;
	srt_cluster_defaults(&cl);
	srt_diags_init(&d);
	assert_int_equal(srt_compile_bytes(yaml, strlen(yaml), "r.yaml", &cl, &c, &d), 0);
	assert_string_equal(c.recipes[0]->model.container, "$A.sqsh");
	srt_compiled_release(&c);
	srt_diags_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expand), cmocka_unit_test(test_fields),
		cmocka_unit_test(test_unset),  cmocka_unit_test(test_variants),
		cmocka_unit_test(test_infmax), cmocka_unit_test(test_no_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
