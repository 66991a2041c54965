/*
 * tests/unit/test_variants.c: base + zip_override_* expansion.
 *
 * The real b200-fp4__1k1k.yaml (4 sections x 2 variants) pins names, order, zipped
 * values, map merging and that base is never modified; small inline files
 * pin the error messages with their positions and the naming fallback.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "recipe/variants.h"
#include "recipe/yaml.h"

static struct srt_ydoc *parse_str(const char *yaml)
{
	struct srt_diags d;
	struct srt_ydoc *doc;

	srt_diags_init(&d);
	doc = srt_ydoc_parse(yaml, strlen(yaml), "v.yaml", &d);
	srt_diags_print(&d, stderr);
	assert_non_null(doc);
	srt_diags_release(&d);
	return doc;
}

/* Follow a dotted path of map keys. */
static const struct srt_ynode *at(const struct srt_ynode *n, const char *path)
{
	char buf[256];
	char *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && n; tok = strtok_r(NULL, ".", &save))
		n = srt_ynode_get(n, tok);
	return n;
}

static int64_t int_at(const struct srt_ynode *n, const char *path)
{
	int64_t v = -999;

	assert_true(srt_ynode_int(at(n, path), &v));
	return v;
}

static const char *str_at(const struct srt_ynode *n, const char *path)
{
	const char *s = srt_ynode_str(at(n, path));

	if (!s)
		fail_msg("no string at %s", path);
	return s;
}

static char *diag_text(const struct srt_diags *d, size_t i)
{
	assert_true(i < d->n);
	return srt_diag_format(&d->items[i]);
}

/* The variant named `name` among roots[0..n). */
static const struct srt_ynode *named(struct srt_ynode **roots, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(str_at(roots[i], "name"), name))
			return roots[i];
	fail_msg("no variant named %s", name);
	return NULL;
}

static void test_b200_eight_variants(void **state)
{
	/* srt-slurm's job order: the zip_override_ sections sorted by key. */
	static const char *const names[] = {
		"b200-fp4-mtp-low-latency-dep4-1p-tep8-5d",
		"b200-fp4-mtp-low-latency-dep4-1p-tep8-6d",
		"b200-fp4-mtp-max-tpt-dep4-1p-dep8-1d",
		"b200-fp4-mtp-max-tpt-dep4-1p-dep8-2d",
		"b200-fp4-stp-low-latency-dep4-1p-tep8-5d",
		"b200-fp4-stp-low-latency-dep4-1p-tep8-6d",
		"b200-fp4-stp-max-tpt-dep4-1p-dep8-1d",
		"b200-fp4-stp-max-tpt-dep4-1p-dep8-2d",
	};
	static const int64_t decode_nodes[] = { 5, 6, 1, 2, 5, 6, 1, 2 };
	static const char *const conc[] = { "16x512", "32x64x256x512", "512x1024", "512",
					    "16x128", "32x64x256",     "512",	   "512" };
	struct srt_diags d;
	struct srt_ydoc *doc;
	struct srt_ynode **roots = NULL;
	const struct srt_ynode *base, *v;
	char path[4096];
	size_t n = 0;

	(void)state;
	corpus_path(path, sizeof(path), "srt-slurm-v1/b200-fp4__1k1k.yaml");
	srt_diags_init(&d);
	doc = srt_ydoc_load_file(path, &d);
	assert_non_null(doc);
	assert_true(srt_variants_is_variant_doc(doc->root));
	assert_int_equal(srt_variants_expand(doc, &roots, &n, &d), 0);
	assert_int_equal(d.nerrors, 0);
	assert_int_equal(n, 8);
	for (size_t i = 0; i < n; i++) {
		const struct srt_ynode *r = roots[i];

		assert_string_equal(str_at(r, "name"), names[i]);
		/* The name stays the first key, as in base. */
		assert_string_equal(r->pairs[0].key->str, "name");
		assert_int_equal(int_at(r, "resources.decode_nodes"), decode_nodes[i]);
		assert_int_equal(int_at(r, "resources.decode_workers"), decode_nodes[i]);
		/* Untouched base values are there. */
		assert_int_equal(int_at(r, "resources.prefill_nodes"), 1);
		assert_int_equal(int_at(r, "resources.gpus_per_node"), 8);
		assert_string_equal(str_at(r, "resources.gpu_type"), "b200");
		assert_int_equal(int_at(r, "benchmark.isl"), 1024);
		assert_string_equal(str_at(r, "benchmark.type"), "sa-bench");
		assert_string_equal(str_at(r, "benchmark.concurrencies"), conc[i]);
		assert_string_equal(str_at(r, "backend.prefill_environment.PYTHONUNBUFFERED"), "1");
		assert_string_equal(str_at(r, "backend.sglang_config.decode.attention-backend"),
				    "trtllm_mla");
	}
	/* MTP low-latency: env merged key by key, a new key added. */
	v = named(roots, n, "b200-fp4-mtp-low-latency-dep4-1p-tep8-5d");
	assert_string_equal(str_at(v, "backend.prefill_environment.SGLANG_ENABLE_SPEC_V2"), "1");
	assert_string_equal(str_at(v, "backend.prefill_environment.MC_FORCE_MNNVL"), "1");
	assert_null(at(named(roots, n, "b200-fp4-stp-low-latency-dep4-1p-tep8-5d"),
		       "backend.prefill_environment.SGLANG_ENABLE_SPEC_V2"));
	assert_string_equal(str_at(named(roots, n, "b200-fp4-mtp-low-latency-dep4-1p-tep8-6d"),
				   "backend.sglang_config.decode.speculative-algorithm"),
			    "EAGLE");
	/* STP max-tpt: zipped values inside nested maps, scalars replace. */
	v = named(roots, n, "b200-fp4-stp-max-tpt-dep4-1p-dep8-1d");
	assert_int_equal(int_at(v, "backend.sglang_config.prefill.max-running-requests"), 1024);
	assert_int_equal(int_at(v, "backend.sglang_config.decode.cuda-graph-max-bs"), 1024);
	assert_int_equal(int_at(v, "backend.sglang_config.decode.data-parallel-size"), 8);
	assert_string_equal(str_at(v,
				   "backend.decode_environment.SGLANG_FLASHINFER_FP4_GEMM_BACKEND"),
			    "cutlass");
	assert_int_equal(int_at(named(roots, n, "b200-fp4-stp-max-tpt-dep4-1p-dep8-2d"),
				"backend.sglang_config.prefill.max-running-requests"),
			 512);
	assert_int_equal(int_at(named(roots, n, "b200-fp4-stp-low-latency-dep4-1p-tep8-5d"),
				"backend.sglang_config.decode.data-parallel-size"),
			 1);
	/* MTP max-tpt 1d: decode mem-fraction 0.75; 2d: 0.85. */
	assert_string_equal(str_at(named(roots, n, "b200-fp4-mtp-max-tpt-dep4-1p-dep8-1d"),
				   "backend.sglang_config.decode.mem-fraction-static"),
			    "0.75");
	assert_string_equal(str_at(named(roots, n, "b200-fp4-mtp-max-tpt-dep4-1p-dep8-2d"),
				   "backend.sglang_config.decode.mem-fraction-static"),
			    "0.85");
	/* A zipped value keeps its own position in the file. */
	assert_int_equal(at(named(roots, n, "b200-fp4-stp-low-latency-dep4-1p-tep8-6d"),
			    "resources.decode_nodes")
				 ->line,
			 168);

	/* Base itself is unchanged. */
	base = srt_ynode_get(doc->root, "base");
	assert_string_equal(str_at(base, "name"), "b200-fp4-stp-1k1k");
	assert_int_equal(int_at(base, "resources.decode_nodes"), 5);
	assert_int_equal(int_at(base, "backend.sglang_config.prefill.max-running-requests"), 512);
	assert_null(at(base, "backend.prefill_environment.SGLANG_ENABLE_SPEC_V2"));
	assert_null(at(base, "benchmark.concurrencies"));
	assert_int_equal(at(base, "backend.decode_environment")->n, 15);

	free(roots);
	srt_ydoc_free(doc);
	srt_diags_release(&d);
}

static void test_plain_recipe_is_one_root(void **state)
{
	struct srt_ydoc *doc = parse_str("name: x\nengine: sglang\n");
	struct srt_ynode **roots = NULL;
	struct srt_diags d;
	size_t n = 0;

	(void)state;
	srt_diags_init(&d);
	assert_false(srt_variants_is_variant_doc(doc->root));
	assert_int_equal(srt_variants_expand(doc, &roots, &n, &d), 0);
	assert_int_equal(n, 1);
	assert_ptr_equal(roots[0], doc->root);
	free(roots);
	srt_ydoc_free(doc);
	srt_diags_release(&d);
}

static void test_base_alone(void **state)
{
	struct srt_ydoc *doc = parse_str("base:\n  name: only\n  x: 1\n");
	struct srt_ynode **roots = NULL;
	struct srt_diags d;
	size_t n = 0;

	(void)state;
	srt_diags_init(&d);
	assert_true(srt_variants_is_variant_doc(doc->root));
	assert_int_equal(srt_variants_expand(doc, &roots, &n, &d), 0);
	assert_int_equal(n, 1);
	assert_string_equal(str_at(roots[0], "name"), "only");
	assert_int_equal(int_at(roots[0], "x"), 1);
	free(roots);
	srt_ydoc_free(doc);
	srt_diags_release(&d);
}

/*
 * Expansion cases: `names` lists the recipes in order (space-separated);
 * `checks` are "I:PATH=VALUE" (VALUE "~" for an absent key) or "I:PATH#N"
 * (a list or mapping with N entries), separated by spaces.
 */
static const struct {
	const char *what;
	const char *yaml;
	const char *names;
	const char *checks;
} expand_cases[] = {
	{ "override_ deep-merges: maps merge, lists and scalars replace, null deletes",
	  "base:\n  name: rec\n  a: {b: 1, c: 2}\n  l: [1, 2]\n  keep: k\n  gone: x\n"
	  "override_x:\n  a: {b: 10}\n  l: [9]\n  gone: null\n  new: n\n",
	  "rec_x", "0:a.b=10 0:a.c=2 0:l#1 0:l.0=9 0:keep=k 0:gone=~ 0:new=n" },
	{ "override_ with its own name keeps it",
	  "base:\n  name: rec\noverride_a:\n  name: custom\n", "custom", "" },
	{ "override_ sections sorted first, then zip_override_ sections sorted",
	  "base:\n  name: rec\nzip_override_b:\n  x: [1, 2]\noverride_z:\n  x: 3\n"
	  "override_a:\n  x: 4\nzip_override_a:\n  x: [5]\n",
	  "rec_a rec_z rec_a_0 rec_b_0 rec_b_1", "0:x=4 1:x=3 2:x=5 3:x=1 4:x=2" },
	{ "zip: a one-element list is broadcast, scalars apply to every variant",
	  "base:\n  name: rec\n  a: {b: 1, c: 2}\nzip_override_s:\n"
	  "  a:\n    b: [10, 20, 30]\n    c: [7]\n  s: scalar\n",
	  "rec_s_0 rec_s_1 rec_s_2", "0:a.b=10 1:a.b=20 2:a.b=30 0:a.c=7 2:a.c=7 2:s=scalar" },
	{ "zip: a null element deletes the key for that variant",
	  "base:\n  name: rec\n  keep: base\nzip_override_n:\n  keep: [null, over]\n",
	  "rec_n_0 rec_n_1", "0:keep=~ 1:keep=over" },
	{ "zip: a list of lists gives each variant a literal list",
	  "base:\n  name: rec\nzip_override_l:\n  l: [[1, 2], [3]]\n", "rec_l_0 rec_l_1",
	  "0:l#2 1:l#1 1:l.0=3" },
	{ "zip: a name list names the variants",
	  "base:\n  name: rec\nzip_override_s:\n  name: [n1, n2]\n  x: [1, 2]\n", "n1 n2",
	  "1:x=2" },
	{ "zip: a scalar name would repeat, so names are generated",
	  "base:\n  name: rec\nzip_override_s:\n  name: fixed\n  x: [1, 2]\n", "rec_s_0 rec_s_1",
	  "" },
	{ "zip: only one-element lists make one variant",
	  "base:\n  name: rec\nzip_override_one:\n  x: [5]\n", "rec_one_0", "0:x=5" },
	{ "zip: a mapping element merges into base's mapping",
	  "base:\n  name: rec\n  a: {b: 1, c: 2}\nzip_override_m:\n  a: [{c: 9}, {b: 8}]\n",
	  "rec_m_0 rec_m_1", "0:a.b=1 0:a.c=9 1:a.b=8 1:a.c=2" },
	{ "base without a name: generated names start with 'unnamed'",
	  "base:\n  x: 1\noverride_o:\n  x: 2\nzip_override_z:\n  x: [3, 4]\n",
	  "unnamed_o unnamed_z_0 unnamed_z_1", "0:x=2" },
	{ "a top-level schema is carried into every recipe",
	  "schema: 2\nbase:\n  name: rec\noverride_o:\n  x: 1\n", "rec_o", "0:schema=2" },
	{ "base alone is the file's one recipe", "schema: 2\nbase:\n  name: only\n  x: 1\n", "only",
	  "0:x=1 0:schema=2" },
};

static void check_one(const struct srt_ynode *const *roots, size_t n, const char *what,
		      const char *check)
{
	char buf[256], *eq, *hash, *colon;
	const struct srt_ynode *v;
	unsigned long i;

	snprintf(buf, sizeof(buf), "%s", check);
	i = strtoul(buf, &colon, 10);
	assert_true(*colon == ':');
	if (i >= n)
		fail_msg("%s: %s: no variant %lu", what, check, i);
	eq = strchr(colon, '=');
	hash = strchr(colon, '#');
	if (eq)
		*eq = '\0';
	if (hash)
		*hash = '\0';
	/* "l.0" indexes a list. */
	{
		char *dot = strrchr(colon + 1, '.');

		if (dot && dot[1] >= '0' && dot[1] <= '9') {
			*dot = '\0';
			v = at(roots[i], colon + 1);
			assert_non_null(v);
			v = v->items[strtoul(dot + 1, NULL, 10)];
		} else {
			v = at(roots[i], colon + 1);
		}
	}
	if (hash) {
		if (!v || v->n != strtoul(hash + 1, NULL, 10))
			fail_msg("%s: %s: has %zu entries", what, check, v ? v->n : 0);
	} else if (!strcmp(eq + 1, "~")) {
		if (v)
			fail_msg("%s: %s: the key is there", what, check);
	} else if (!v || !srt_ynode_str(v) || strcmp(srt_ynode_str(v), eq + 1)) {
		fail_msg("%s: %s: got %s", what, check, v && srt_ynode_str(v) ? v->str : "nothing");
	}
}

static void test_expand_cases(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof(expand_cases) / sizeof(expand_cases[0]); c++) {
		struct srt_ydoc *doc = parse_str(expand_cases[c].yaml);
		struct srt_ynode **roots = NULL;
		const struct srt_ynode *base_before;
		struct srt_diags d;
		char names[512], checks[1024], *save = NULL, *tok;
		size_t n = 0, k = 0;

		srt_diags_init(&d);
		base_before = srt_ynode_get(doc->root, "base");
		if (srt_variants_expand(doc, &roots, &n, &d) != 0 || d.n) {
			srt_diags_print(&d, stderr);
			fail_msg("%s: expansion failed", expand_cases[c].what);
		}
		snprintf(names, sizeof(names), "%s", expand_cases[c].names);
		for (tok = strtok_r(names, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save), k++) {
			if (k >= n)
				fail_msg("%s: only %zu recipes", expand_cases[c].what, n);
			if (strcmp(str_at(roots[k], "name"), tok))
				fail_msg("%s: recipe %zu is '%s', expected '%s'",
					 expand_cases[c].what, k, str_at(roots[k], "name"), tok);
			/* Never base itself: base stays as written. */
			assert_ptr_not_equal(roots[k], base_before);
		}
		if (k != n)
			fail_msg("%s: %zu recipes, expected %zu", expand_cases[c].what, n, k);
		snprintf(checks, sizeof(checks), "%s", expand_cases[c].checks);
		save = NULL;
		for (tok = strtok_r(checks, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			check_one((const struct srt_ynode *const *)roots, n, expand_cases[c].what,
				  tok);
		free(roots);
		srt_ydoc_free(doc);
		srt_diags_release(&d);
	}
}

/* Base is never modified by the expansion. */
static void test_base_untouched(void **state)
{
	struct srt_ydoc *doc = parse_str("base:\n  name: rec\n  a: {b: 1, c: 2}\n  keep: k\n"
					 "override_o:\n  a: {b: 5, c: null}\n  keep: null\n"
					 "zip_override_z:\n  a: {b: [6, 7]}\n");
	struct srt_ynode **roots = NULL;
	const struct srt_ynode *base;
	struct srt_diags d;
	size_t n = 0;

	(void)state;
	srt_diags_init(&d);
	assert_int_equal(srt_variants_expand(doc, &roots, &n, &d), 0);
	assert_int_equal(n, 3);
	assert_null(at(roots[0], "a.c"));
	base = srt_ynode_get(doc->root, "base");
	assert_int_equal(int_at(base, "a.b"), 1);
	assert_int_equal(int_at(base, "a.c"), 2);
	assert_string_equal(str_at(base, "keep"), "k");
	assert_string_equal(str_at(base, "name"), "rec");
	assert_int_equal(base->n, 3);
	free(roots);
	srt_ydoc_free(doc);
	srt_diags_release(&d);
}

/* Errors: the file, its first diagnostic (as printed) and the error count. */
static const struct {
	const char *yaml;
	const char *first;
	size_t nerrors;
} error_cases[] = {
	{ "base:\n  name: rec\nzip_override_bad:\n  name: [a, b]\n  resources:\n"
	  "    decode_nodes: [1, 2, 3]\n    other: [9]\n",
	  "v.yaml:6:19: zip_override_bad.resources.decode_nodes: list has 3 values but "
	  "zip_override_bad.name has 2; every list in one zip_override section must have the "
	  "same length, or length 1 (one value for every variant)",
	  1 },
	{ "base:\n  name: rec\nzip_override_flat:\n  a: 1\n  b: {c: 2}\n",
	  "v.yaml:3:1: zip_override_flat: a zip_override section needs at least one list value "
	  "(one value per variant); for a single variant write 'override_flat:' instead",
	  1 },
	{ "base:\n  name: rec\nzip_override_empty:\n  a: []\n",
	  "v.yaml:4:6: zip_override_empty.a: an empty list cannot be zipped; give one value per "
	  "variant, or one value for all of them (or write the list under base:)",
	  1 },
	{ "base:\n  name: rec\noverride_list: [1, 2]\nzip_override_s: 3\nstray: 1\n",
	  "v.yaml:3:16: override_list: must be a mapping (a partial recipe), not a list", 3 },
	{ "base:\n  name: rec\nstray: 1\noverride_o: {x: 1}\n",
	  "v.yaml:3:1: stray: unexpected top-level key in a variant file; put it under 'base:' "
	  "or in an 'override_<name>:' or 'zip_override_<name>:' section",
	  1 },
	{ "override_x:\n  a: 1\n",
	  "v.yaml:1:1: variant file has override sections but no 'base:'; add the recipe the "
	  "overrides apply to under 'base:'",
	  1 },
	{ "base: [1]\noverride_x:\n  a: 1\n",
	  "v.yaml:1:7: base: must be a mapping (a whole recipe), not a list", 1 },
};

static void test_errors(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof(error_cases) / sizeof(error_cases[0]); c++) {
		struct srt_ydoc *doc = parse_str(error_cases[c].yaml);
		struct srt_ynode **roots = NULL;
		struct srt_diags d;
		size_t n = 7;
		char *msg;

		srt_diags_init(&d);
		assert_int_equal(srt_variants_expand(doc, &roots, &n, &d), -1);
		assert_null(roots);
		assert_int_equal(n, 0);
		msg = diag_text(&d, 0);
		if (strcmp(msg, error_cases[c].first))
			fail_msg("case %zu: got\n  %s\nexpected\n  %s", c, msg,
				 error_cases[c].first);
		free(msg);
		if (d.nerrors != error_cases[c].nerrors) {
			srt_diags_print(&d, stderr);
			fail_msg("case %zu: %zu errors, expected %zu", c, d.nerrors,
				 error_cases[c].nerrors);
		}
		srt_ydoc_free(doc);
		srt_diags_release(&d);
	}
}

static void test_key_kinds(void **state)
{
	(void)state;
	assert_int_equal(srt_variants_key_kind("base"), SRT_VKEY_BASE);
	assert_int_equal(srt_variants_key_kind("schema"), SRT_VKEY_SCHEMA);
	assert_int_equal(srt_variants_key_kind("override_a"), SRT_VKEY_OVERRIDE);
	assert_int_equal(srt_variants_key_kind("zip_override_a"), SRT_VKEY_ZIP);
	assert_int_equal(srt_variants_key_kind("override_"), SRT_VKEY_OTHER);
	assert_int_equal(srt_variants_key_kind("zip_override_"), SRT_VKEY_OTHER);
	assert_int_equal(srt_variants_key_kind("name"), SRT_VKEY_OTHER);
}

static void test_is_variant_doc(void **state)
{
	static const struct {
		const char *yaml;
		bool want;
	} cases[] = {
		{ "base: {name: x}\n", true },		{ "override_a: {x: 1}\n", true },
		{ "zip_override_a: {x: [1]}\n", true }, { "name: x\nengine: sglang\n", false },
		{ "schema: 2\nname: x\n", false },	{ "- 1\n", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct srt_ydoc *doc = parse_str(cases[i].yaml);

		if (srt_variants_is_variant_doc(doc->root) != cases[i].want)
			fail_msg("case %zu: '%s'", i, cases[i].yaml);
		srt_ydoc_free(doc);
	}
}

/* Every variant file of the corpus expands, with distinct names. */
static void test_corpus_variant_files(void **state)
{
	static const struct {
		const char *file;
		size_t n;
	} files[] = {
		{ "b200-fp4__1k1k.yaml", 8 },
		{ "dsv4-pro__sglang__gb300-fp4__8k1k.yaml", 5 },
		{ "gb300-fp4__glm5-mtp.yaml", 16 },
		{ "gb300-fp8__glm5.yaml", 28 },
	};

	(void)state;
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char path[1024];
		struct srt_diags d;
		struct srt_ydoc *doc;
		struct srt_ynode **roots = NULL;
		size_t n = 0;

		char rel[512];

		snprintf(rel, sizeof(rel), "srt-slurm-v1/%s", files[f].file);
		corpus_path(path, sizeof(path), rel);
		srt_diags_init(&d);
		doc = srt_ydoc_load_file(path, &d);
		assert_non_null(doc);
		assert_int_equal(srt_variants_expand(doc, &roots, &n, &d), 0);
		assert_int_equal(d.nerrors, 0);
		assert_int_equal(n, files[f].n);
		for (size_t i = 0; i < n; i++) {
			assert_non_null(srt_ynode_str(srt_ynode_get(roots[i], "name")));
			for (size_t j = 0; j < i; j++)
				assert_string_not_equal(
					srt_ynode_str(srt_ynode_get(roots[i], "name")),
					srt_ynode_str(srt_ynode_get(roots[j], "name")));
		}
		free(roots);
		srt_ydoc_free(doc);
		srt_diags_release(&d);
	}
}

/* srt-slurm's -f FILE:SELECTOR: what each selector keeps, in order, and what it refuses. */
static void test_selectors(void **state)
{
	static const char *yaml = "base: {name: v, x: 1}\n"
				  "zip_override_conc: {x: [10, 20, 30]}\n"
				  "override_small: {x: 2}\n"
				  "override_big: {x: 3}\n"
				  "zip_override_alt: {x: [7]}\n";
	static const struct {
		const char *sel, *names, *err;
	} cases[] = {
		{ NULL, "v_big v_small v_alt_0 v_conc_0 v_conc_1 v_conc_2", NULL },
		{ "base", "v", NULL },
		{ "override_small", "v_small", NULL },
		{ "zip_override_conc", "v_conc_0 v_conc_1 v_conc_2", NULL },
		{ "zip_override_conc[2]", "v_conc_2", NULL },
		{ "zip_override_*", "v_alt_0 v_conc_0 v_conc_1 v_conc_2", NULL },
		{ "override_[bs]*", "v_big v_small", NULL },
		{ "zip_override_conc[3]", NULL,
		  "v.yaml:2:1: zip_override_conc: the selector 'zip_override_conc[3]' asks for "
		  "variant 3, and zip_override_conc has 3 (0 to 2)" },
		{ "override_small[0]", NULL,
		  "v.yaml:1:1: the selector 'override_small[0]' picks no variant of this file; it "
		  "has: base, override_big, override_small, zip_override_alt, zip_override_alt[i], "
		  "zip_override_conc, zip_override_conc[i]" },
		{ "nope*", NULL,
		  "v.yaml:1:1: the selector 'nope*' picks no variant of this file; it has: base, "
		  "override_big, override_small, zip_override_alt, zip_override_alt[i], "
		  "zip_override_conc, zip_override_conc[i]" },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct srt_ydoc *doc = parse_str(yaml);
		struct srt_ynode **roots = NULL;
		struct srt_diags d;
		char names[256] = "";
		size_t n = 0;
		int rc;

		srt_diags_init(&d);
		rc = srt_variants_expand_selected(doc, cases[c].sel, &roots, &n, &d);
		if (cases[c].err) {
			char *got = d.n ? diag_text(&d, 0) : NULL;

			assert_int_equal(rc, -1);
			assert_non_null(got);
			assert_string_equal(got, cases[c].err);
			free(got);
		} else {
			assert_int_equal(rc, 0);
			for (size_t i = 0; i < n; i++)
				snprintf(names + strlen(names), sizeof(names) - strlen(names),
					 "%s%s", i ? " " : "", str_at(roots[i], "name"));
			assert_string_equal(names, cases[c].names);
		}
		free(roots);
		srt_ydoc_free(doc);
		srt_diags_release(&d);
	}
}

static void test_selector_on_a_plain_recipe(void **state)
{
	struct srt_ydoc *doc = parse_str("name: x\nengine: sglang\n");
	struct srt_ynode **roots = NULL;
	struct srt_diags d;
	size_t n = 0;
	char *got;

	(void)state;
	srt_diags_init(&d);
	assert_int_equal(srt_variants_expand_selected(doc, "base", &roots, &n, &d), -1);
	got = diag_text(&d, 0);
	assert_string_equal(got,
			    "v.yaml:1:1: the selector 'base' picks a variant of a variant file "
			    "(base: and override_ sections), and this file is one recipe; drop "
			    "':base'");
	free(got);
	free(roots);
	srt_ydoc_free(doc);
	srt_diags_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_b200_eight_variants),
		cmocka_unit_test(test_plain_recipe_is_one_root),
		cmocka_unit_test(test_base_alone),
		cmocka_unit_test(test_expand_cases),
		cmocka_unit_test(test_base_untouched),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_key_kinds),
		cmocka_unit_test(test_is_variant_doc),
		cmocka_unit_test(test_corpus_variant_files),
		cmocka_unit_test(test_selectors),
		cmocka_unit_test(test_selector_on_a_plain_recipe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
