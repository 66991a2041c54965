/*
 * tests/unit/test_canon.c: the canonical spec (recipe/canon.h).
 *
 * The canonical JSON decides whether `srtctl apply` bumps a generation, so
 * the test pins both directions: what must not change it (key order,
 * comments, anchors and aliases, merge keys, quoting, flow vs block style,
 * indentation) and what must (a value, a type, list order, a key).  The
 * exact bytes of both forms are pinned, and the stored spec must re-format
 * to exactly the pretty form of the tree it came from.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipe/canon.h"
#include "recipe/yaml.h"
#include "util/diag.h"

/* The canonical JSON of a YAML text (the test fails on a parse error). */
static char *canon(const char *yaml)
{
	struct srt_diags d;
	struct srt_ydoc *doc;
	struct srt_error err;
	char *s;

	srt_diags_init(&d);
	doc = srt_ydoc_parse(yaml, strlen(yaml), "t.yaml", &d);
	if (!doc) {
		srt_diags_print(&d, stdout);
		fail_msg("cannot parse: %s", yaml);
	}
	s = srt_canon_spec(doc->root, &err);
	if (!s)
		fail_msg("srt_canon_spec: %s", err.msg);
	srt_ydoc_free(doc);
	srt_diags_release(&d);
	return s;
}

static char *pretty(const char *yaml)
{
	struct srt_diags d;
	struct srt_ydoc *doc;
	struct srt_error err;
	char *s;

	srt_diags_init(&d);
	doc = srt_ydoc_parse(yaml, strlen(yaml), "t.yaml", &d);
	assert_non_null(doc);
	s = srt_canon_pretty(doc->root, &err);
	assert_non_null(s);
	srt_ydoc_free(doc);
	srt_diags_release(&d);
	return s;
}

static const char base[] = "engine: sglang\n"
			   "roles:\n"
			   "  prefill:\n"
			   "    env:\n"
			   "      MOONCAKE_PROTOCOL: rdma\n"
			   "      SEGMENT: 4gb\n"
			   "    args:\n"
			   "      port: 8700\n"
			   "      ratio: 0.5\n"
			   "      flags: [a, b]\n"
			   "  decode:\n"
			   "    env:\n"
			   "      MOONCAKE_PROTOCOL: rdma\n"
			   "      SEGMENT: 4gb\n"
			   "    args:\n"
			   "      port: 8700\n"
			   "      ratio: 0.5\n"
			   "      flags: [a, b]\n";

static const char base_canon[] =
	"{\"engine\":\"sglang\",\"roles\":{"
	"\"decode\":{\"args\":{\"flags\":[\"a\",\"b\"],\"port\":8700,\"ratio\":0.5},"
	"\"env\":{\"MOONCAKE_PROTOCOL\":\"rdma\",\"SEGMENT\":\"4gb\"}},"
	"\"prefill\":{\"args\":{\"flags\":[\"a\",\"b\"],\"port\":8700,\"ratio\":0.5},"
	"\"env\":{\"MOONCAKE_PROTOCOL\":\"rdma\",\"SEGMENT\":\"4gb\"}}}}";

static void test_exact_bytes(void **state)
{
	char *s = canon(base);

	(void)state;
	assert_string_equal(s, base_canon);
	free(s);
	s = canon("b: 1\na: [1, 2.5, true, null, \"x\\ny\"]\nc: {}\nd: []\n");
	assert_string_equal(s, "{\"a\":[1,2.5,true,null,\"x\\ny\"],\"b\":1,\"c\":{},\"d\":[]}");
	free(s);
}

/* Each of these says exactly what `base` says, written differently (merge keys: below). */
static const char *const same_as_base[] = {
	/* keys reordered at every level, comments everywhere */
	"# a comment\n"
	"roles:   # roles\n"
	"  decode:\n"
	"    args: {ratio: 0.5, flags: [a, b], port: 8700}\n"
	"    env: {SEGMENT: 4gb, MOONCAKE_PROTOCOL: rdma}\n"
	"  prefill:\n"
	"    args:\n"
	"      flags:\n"
	"        - a   # first\n"
	"        - b\n"
	"      ratio: 0.5\n"
	"      port: 8700\n"
	"    env:\n"
	"      SEGMENT: '4gb'\n"
	"      MOONCAKE_PROTOCOL: \"rdma\"\n"
	"engine: sglang\n",
	/* anchors and aliases */
	"engine: sglang\n"
	"roles:\n"
	"  prefill: &worker\n"
	"    env: {MOONCAKE_PROTOCOL: rdma, SEGMENT: 4gb}\n"
	"    args: {port: 8700, ratio: 0.5, flags: [a, b]}\n"
	"  decode: *worker\n",
	/* other indentation, a document marker, block scalar style for a plain string */
	"---\n"
	"engine: >-\n"
	"    sglang\n"
	"roles:\n"
	"    prefill:\n"
	"        env:\n"
	"            MOONCAKE_PROTOCOL: rdma\n"
	"            SEGMENT: 4gb\n"
	"        args:\n"
	"            port: 0x21FC\n"
	"            ratio: 5e-1\n"
	"            flags: [a, b]\n"
	"    decode:\n"
	"        env: {MOONCAKE_PROTOCOL: rdma, SEGMENT: 4gb}\n"
	"        args: {port: 8700, ratio: 0.5, flags: [a, b]}\n",
};

static void test_same_spec(void **state)
{
	char *want = canon(base);

	(void)state;
	for (size_t i = 0; i < sizeof(same_as_base) / sizeof(*same_as_base); i++) {
		const char *text = same_as_base[i];
		char *got;

		got = canon(text);
		if (strcmp(got, want))
			fail_msg("variant %zu differs:\n%s\n%s", i, got, want);
		free(got);
	}
	free(want);
}

/* Merge keys resolve before canonicalisation: minus the anchor holder `x`, this is base. */
static void test_merge_key(void **state)
{
	char *want = canon(base), *got;
	char *with = canon("x: &c {MOONCAKE_PROTOCOL: rdma}\n"
			   "engine: sglang\n"
			   "roles:\n"
			   "  prefill:\n"
			   "    env: {<<: *c, SEGMENT: 4gb}\n"
			   "    args: {port: 8700, ratio: 0.5, flags: [a, b]}\n"
			   "  decode:\n"
			   "    env: {SEGMENT: 4gb, <<: *c}\n"
			   "    args: {port: 8700, ratio: 0.50, flags: [a, b]}\n");
	const char *prefix = "{\"engine\"";

	(void)state;
	/* `x` sorts last; strip it and the closing brace must match base's. */
	assert_true(!strncmp(with, prefix, strlen(prefix)));
	got = strstr(with, ",\"x\":{\"MOONCAKE_PROTOCOL\":\"rdma\"}}");
	assert_non_null(got);
	strcpy(got, "}");
	assert_string_equal(with, want);
	free(with);
	free(want);
}

/* Each of these changes one thing in `base`. */
static const struct {
	const char *from, *to;
} changes[] = {
	{ "MOONCAKE_PROTOCOL: rdma\n      SEGMENT", "MOONCAKE_PROTOCOL: tcp\n      SEGMENT" },
	{ "port: 8700", "port: \"8700\"" }, /* a type */
	{ "ratio: 0.5", "ratio: 0.25" },
	{ "flags: [a, b]", "flags: [b, a]" }, /* list order */
	{ "engine: sglang", "engine: vllm" },
	{ "SEGMENT: 4gb", "SEGMENTS: 4gb" }, /* a key */
	{ "flags: [a, b]", "flags: [a, b, c]" },
	{ "ratio: 0.5", "ratio: null" },
};

static char *replace_once(const char *s, const char *from, const char *to)
{
	const char *p = strstr(s, from);
	char *out;

	assert_non_null(p);
	out = malloc(strlen(s) - strlen(from) + strlen(to) + 1);
	assert_non_null(out);
	memcpy(out, s, (size_t)(p - s));
	strcpy(out + (p - s), to);
	strcat(out, p + strlen(from));
	return out;
}

static void test_changes_show(void **state)
{
	char *want = canon(base);

	(void)state;
	for (size_t i = 0; i < sizeof(changes) / sizeof(*changes); i++) {
		char *text = replace_once(base, changes[i].from, changes[i].to);
		char *got = canon(text);

		if (!strcmp(got, want))
			fail_msg("change %zu (%s -> %s) did not change the spec", i,
				 changes[i].from, changes[i].to);
		free(got);
		free(text);
	}
	free(want);
}

static void test_pretty(void **state)
{
	char *p = pretty("b: {y: [1, x], x: 2}\na: true\n");
	char *spec = canon("b: {y: [1, x], x: 2}\na: true\n");
	struct srt_error err;
	char *again;

	(void)state;
	assert_string_equal(p, "{\n"
			       "  \"a\": true,\n"
			       "  \"b\": {\n"
			       "    \"x\": 2,\n"
			       "    \"y\": [\n"
			       "      1,\n"
			       "      \"x\"\n"
			       "    ]\n"
			       "  }\n"
			       "}\n");
	again = srt_canon_pretty_json(spec, &err);
	assert_non_null(again);
	assert_string_equal(again, p);
	free(again);
	free(spec);
	free(p);

	/* The stored spec of a real-sized recipe re-formats to the tree's pretty form. */
	p = pretty(base);
	spec = canon(base);
	again = srt_canon_pretty_json(spec, &err);
	assert_non_null(again);
	assert_string_equal(again, p);
	free(again);
	free(spec);
	free(p);
}

/* Doubles survive canon -> JSON -> canon unchanged (17 significant digits). */
static void test_reals_round_trip(void **state)
{
	static const char *const vals[] = { "0.1", "1e-7", "123456.789", "3.141592653589793",
					    "-2.5e300" };

	(void)state;
	for (size_t i = 0; i < sizeof(vals) / sizeof(*vals); i++) {
		char yaml[64], *spec, *pretty_a, *pretty_b;
		struct srt_error err;
		char *p;

		snprintf(yaml, sizeof(yaml), "v: %s\n", vals[i]);
		spec = canon(yaml);
		pretty_a = pretty(yaml);
		pretty_b = srt_canon_pretty_json(spec, &err);
		assert_non_null(pretty_b);
		assert_string_equal(pretty_a, pretty_b);
		p = srt_canon_pretty_json(spec, &err);
		assert_string_equal(p, pretty_b);
		free(p);
		free(spec);
		free(pretty_a);
		free(pretty_b);
	}
}

static void test_errors_and_hash(void **state)
{
	struct srt_error err;
	char hex[65];

	(void)state;
	srt_error_clear(&err);
	assert_null(srt_canon_spec(NULL, &err));
	assert_non_null(strstr(err.msg, "empty"));
	srt_error_clear(&err);
	assert_null(srt_canon_pretty_json("{not json", &err));
	assert_non_null(strstr(err.msg, "re-apply"));
	srt_canon_hash("abc", hex);
	assert_string_equal(hex,
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_bytes),	cmocka_unit_test(test_same_spec),
		cmocka_unit_test(test_merge_key),	cmocka_unit_test(test_changes_show),
		cmocka_unit_test(test_pretty),		cmocka_unit_test(test_reals_round_trip),
		cmocka_unit_test(test_errors_and_hash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
