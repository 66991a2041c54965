/*
 * tests/unit/test_variants.c: base + zip_override_* expansion.
 *
 * The real b200-fp4__1k1k.yaml (4 overrides x 2 variants) pins names, zipped
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

#include "recipe/variants.h"
#include "recipe/yaml.h"

#define CORPUS SRT_SHARED_DIR "/corpus/srt-slurm-v1"

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

static void test_b200_eight_variants(void **state)
{
	static const char *const names[] = {
		"b200-fp4-stp-low-latency-dep4-1p-tep8-5d",
		"b200-fp4-stp-low-latency-dep4-1p-tep8-6d",
		"b200-fp4-mtp-low-latency-dep4-1p-tep8-5d",
		"b200-fp4-mtp-low-latency-dep4-1p-tep8-6d",
		"b200-fp4-stp-max-tpt-dep4-1p-dep8-1d",
		"b200-fp4-stp-max-tpt-dep4-1p-dep8-2d",
		"b200-fp4-mtp-max-tpt-dep4-1p-dep8-1d",
		"b200-fp4-mtp-max-tpt-dep4-1p-dep8-2d",
	};
	static const int64_t decode_nodes[] = { 5, 6, 5, 6, 1, 2, 1, 2 };
	static const char *const conc[] = { "16x128", "32x64x256", "16x512",   "32x64x256x512",
					    "512",    "512",	   "512x1024", "512" };
	struct srt_diags d;
	struct srt_ydoc *doc;
	struct srt_ynode **roots = NULL;
	const struct srt_ynode *base;
	size_t n = 0;

	(void)state;
	srt_diags_init(&d);
	doc = srt_ydoc_load_file(CORPUS "/b200-fp4__1k1k.yaml", &d);
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
	assert_string_equal(str_at(roots[2], "backend.prefill_environment.SGLANG_ENABLE_SPEC_V2"),
			    "1");
	assert_string_equal(str_at(roots[2], "backend.prefill_environment.MC_FORCE_MNNVL"), "1");
	assert_null(at(roots[0], "backend.prefill_environment.SGLANG_ENABLE_SPEC_V2"));
	assert_string_equal(str_at(roots[3], "backend.sglang_config.decode.speculative-algorithm"),
			    "EAGLE");
	/* STP max-tpt: zipped values inside nested maps, scalars replace. */
	assert_int_equal(int_at(roots[4], "backend.sglang_config.prefill.max-running-requests"),
			 1024);
	assert_int_equal(int_at(roots[5], "backend.sglang_config.prefill.max-running-requests"),
			 512);
	assert_int_equal(int_at(roots[4], "backend.sglang_config.decode.cuda-graph-max-bs"), 1024);
	assert_int_equal(int_at(roots[4], "backend.sglang_config.decode.data-parallel-size"), 8);
	assert_int_equal(int_at(roots[0], "backend.sglang_config.decode.data-parallel-size"), 1);
	assert_string_equal(str_at(roots[4],
				   "backend.decode_environment.SGLANG_FLASHINFER_FP4_GEMM_BACKEND"),
			    "cutlass");
	/* MTP max-tpt 1d: decode mem-fraction 0.75; 2d: 0.85. */
	assert_string_equal(str_at(roots[6], "backend.sglang_config.decode.mem-fraction-static"),
			    "0.75");
	assert_string_equal(str_at(roots[7], "backend.sglang_config.decode.mem-fraction-static"),
			    "0.85");
	/* A zipped value keeps its own position in the file. */
	assert_int_equal(at(roots[1], "resources.decode_nodes")->line, 168);

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

static void test_generated_names_and_nulls(void **state)
{
	struct srt_ydoc *doc = parse_str("base:\n"
					 "  name: rec\n"
					 "  a: {b: 1, c: 2}\n"
					 "  keep: base\n"
					 "zip_override_sweep:\n"
					 "  a:\n"
					 "    b: [10, 20, 30]\n"
					 "    new: [x, null, z]\n"
					 "  keep: [null, over, null]\n"
					 "  scalar: s\n"
					 "zip_override_one:\n"
					 "  a: {c: 5}\n"
					 "  list_in_map: {l: [[1, 2]]}\n");
	struct srt_ynode **roots = NULL;
	struct srt_diags d;
	size_t n = 0;

	(void)state;
	srt_diags_init(&d);
	assert_int_equal(srt_variants_expand(doc, &roots, &n, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(n, 4);
	assert_string_equal(str_at(roots[0], "name"), "rec-sweep0");
	assert_string_equal(str_at(roots[1], "name"), "rec-sweep1");
	assert_string_equal(str_at(roots[2], "name"), "rec-sweep2");
	assert_string_equal(str_at(roots[3], "name"), "rec-one0");
	assert_int_equal(int_at(roots[0], "a.b"), 10);
	assert_int_equal(int_at(roots[2], "a.b"), 30);
	assert_int_equal(int_at(roots[1], "a.c"), 2);
	/* A null element leaves the key as base has it (absent or base's value). */
	assert_string_equal(str_at(roots[0], "a.new"), "x");
	assert_null(at(roots[1], "a.new"));
	assert_string_equal(str_at(roots[0], "keep"), "base");
	assert_string_equal(str_at(roots[1], "keep"), "over");
	assert_string_equal(str_at(roots[2], "scalar"), "s");
	/* Key order: base keys first, then the override's new ones. */
	assert_string_equal(roots[0]->pairs[0].key->str, "name");
	assert_string_equal(roots[0]->pairs[1].key->str, "a");
	assert_string_equal(roots[0]->pairs[2].key->str, "keep");
	assert_string_equal(roots[0]->pairs[3].key->str, "scalar");
	/* A one-element list zips to its element (here a list). */
	assert_int_equal(int_at(roots[3], "a.c"), 5);
	assert_int_equal(at(roots[3], "list_in_map.l")->kind, SRT_Y_SEQ);
	assert_int_equal(at(roots[3], "list_in_map.l")->n, 2);
	/* Base keeps its values. */
	assert_int_equal(int_at(srt_ynode_get(doc->root, "base"), "a.b"), 1);
	assert_int_equal(int_at(srt_ynode_get(doc->root, "base"), "a.c"), 2);
	free(roots);
	srt_ydoc_free(doc);
	srt_diags_release(&d);
}

static void test_mismatched_lengths(void **state)
{
	struct srt_ydoc *doc = parse_str("base:\n"
					 "  name: rec\n"
					 "zip_override_bad:\n"
					 "  name: [a, b]\n"
					 "  resources:\n"
					 "    decode_nodes: [1, 2, 3]\n");
	struct srt_ynode **roots = NULL;
	struct srt_diags d;
	size_t n = 0;
	char *msg;

	(void)state;
	srt_diags_init(&d);
	assert_int_equal(srt_variants_expand(doc, &roots, &n, &d), -1);
	assert_null(roots);
	assert_int_equal(n, 0);
	assert_int_equal(d.nerrors, 1);
	msg = diag_text(&d, 0);
	assert_string_equal(msg, "v.yaml:6:19: zip_override_bad.resources.decode_nodes: list has 3 "
				 "values but zip_override_bad.name has 2; every list in one "
				 "zip_override section must have the same length");
	free(msg);
	srt_ydoc_free(doc);
	srt_diags_release(&d);
}

static void test_structure_errors(void **state)
{
	struct srt_ydoc *doc = parse_str("base:\n"
					 "  name: rec\n"
					 "zip_override_list: [1, 2]\n"
					 "zip_override_empty:\n"
					 "  a: []\n"
					 "stray: 1\n");
	struct srt_ynode **roots = NULL;
	struct srt_diags d;
	size_t n = 0;
	char *msg;

	(void)state;
	srt_diags_init(&d);
	assert_int_equal(srt_variants_expand(doc, &roots, &n, &d), -1);
	assert_int_equal(d.nerrors, 2);
	msg = diag_text(&d, 0);
	assert_string_equal(msg, "v.yaml:3:20: zip_override_list: must be a mapping (a partial "
				 "recipe), not a list");
	free(msg);
	msg = diag_text(&d, 1);
	assert_string_equal(msg, "v.yaml:6:1: stray: unexpected top-level key in a variant file; "
				 "put it under 'base:' or in a 'zip_override_<name>:' section");
	free(msg);
	srt_ydoc_free(doc);
	srt_diags_release(&d);

	doc = parse_str("base:\n  name: rec\nzip_override_empty:\n  a: []\n");
	srt_diags_init(&d);
	assert_int_equal(srt_variants_expand(doc, &roots, &n, &d), -1);
	assert_int_equal(d.nerrors, 1);
	msg = diag_text(&d, 0);
	assert_string_equal(msg, "v.yaml:4:6: zip_override_empty.a: an empty list cannot be "
				 "zipped; give one value per variant (or write the list under "
				 "base:)");
	free(msg);
	srt_ydoc_free(doc);
	srt_diags_release(&d);

	doc = parse_str("zip_override_x:\n  a: 1\n");
	srt_diags_init(&d);
	assert_int_equal(srt_variants_expand(doc, &roots, &n, &d), -1);
	msg = diag_text(&d, 0);
	assert_string_equal(msg, "v.yaml:1:1: variant file has zip_override sections but no "
				 "'base:'; add the recipe the overrides apply to under 'base:'");
	free(msg);
	srt_ydoc_free(doc);
	srt_diags_release(&d);
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

		snprintf(path, sizeof(path), "%s/%s", CORPUS, files[f].file);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_b200_eight_variants),
		cmocka_unit_test(test_plain_recipe_is_one_root),
		cmocka_unit_test(test_base_alone),
		cmocka_unit_test(test_generated_names_and_nulls),
		cmocka_unit_test(test_mismatched_lengths),
		cmocka_unit_test(test_structure_errors),
		cmocka_unit_test(test_corpus_variant_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
