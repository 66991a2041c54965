/*
 * tests/unit/test_yemit.c: the YAML emitter.
 *
 * The contract is parse(emit(tree)) == tree for values: every tricky string
 * must come back as the same string (not a number, boolean or null), typed
 * scalars keep their type and text, and key order is kept.  The layout of
 * simple trees is pinned byte for byte.  Every corpus recipe round-trips.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "recipe/yaml.h"
#include "recipe/yemit.h"
#include "util/buf.h"

/* Structural equality: kinds, key order, scalar types and values. */
static bool trees_equal(const struct srt_ynode *a, const struct srt_ynode *b, char *why,
			size_t whylen)
{
	if (!a || !b) {
		if (a != b)
			snprintf(why, whylen, "one side is missing");
		return a == b;
	}
	if (a->kind != b->kind || a->n != b->n) {
		snprintf(why, whylen, "kind/size differs at line %u (%s, %zu vs %s, %zu)", a->line,
			 srt_ynode_describe(a), a->n, srt_ynode_describe(b), b->n);
		return false;
	}
	if (a->kind == SRT_Y_SCALAR) {
		enum srt_ytype ta = srt_ynode_type(a), tb = srt_ynode_type(b);

		if (ta != tb || a->len != b->len || memcmp(a->str, b->str, a->len)) {
			snprintf(why, whylen, "scalar differs at line %u: '%s' (%s) vs '%s' (%s)",
				 a->line, a->str, srt_ynode_describe(a), b->str,
				 srt_ynode_describe(b));
			return false;
		}
		return true;
	}
	for (size_t i = 0; i < a->n; i++) {
		if (a->kind == SRT_Y_MAP) {
			if (!trees_equal(a->pairs[i].key, b->pairs[i].key, why, whylen) ||
			    !trees_equal(a->pairs[i].value, b->pairs[i].value, why, whylen))
				return false;
		} else if (!trees_equal(a->items[i], b->items[i], why, whylen)) {
			return false;
		}
	}
	return true;
}

/* Emit `root`, parse the text back; returns the new doc (caller frees). */
static struct srt_ydoc *round_trip(const struct srt_ynode *root, struct srt_buf *text)
{
	struct srt_diags d;
	struct srt_ydoc *back;

	srt_diags_init(&d);
	assert_int_equal(srt_yemit(root, text), 0);
	back = srt_ydoc_parse(text->data, text->len, "emitted", &d);
	if (!back) {
		srt_diags_print(&d, stderr);
		fprintf(stderr, "---- emitted text ----\n%s\n", text->data);
	}
	assert_non_null(back);
	assert_int_equal(d.nerrors, 0);
	srt_diags_release(&d);
	return back;
}

static struct srt_ydoc *parse_str(const char *yaml)
{
	struct srt_diags d;
	struct srt_ydoc *doc;

	srt_diags_init(&d);
	doc = srt_ydoc_parse(yaml, strlen(yaml), "test", &d);
	srt_diags_print(&d, stderr);
	assert_non_null(doc);
	srt_diags_release(&d);
	return doc;
}

static void assert_emits(const char *in, const char *expected)
{
	struct srt_ydoc *doc = parse_str(in);
	struct srt_buf b;

	srt_buf_init(&b);
	assert_int_equal(srt_yemit(doc->root, &b), 0);
	assert_string_equal(b.data, expected);
	srt_buf_release(&b);
	srt_ydoc_free(doc);
}

static void test_layout(void **state)
{
	(void)state;
	assert_emits("a: 1\nb: {c: x, d: [1, 2]}\ne: []\nf: {}\n", "a: 1\n"
								   "b:\n"
								   "  c: x\n"
								   "  d:\n"
								   "    - 1\n"
								   "    - 2\n"
								   "e: []\n"
								   "f: {}\n");
	assert_emits("- a: 1\n  b: [x, [y, z]]\n- - 1\n  - 2\n- {}\n- []\n- plain\n",
		     "- a: 1\n"
		     "  b:\n"
		     "    - x\n"
		     "    - - 'y'\n"
		     "      - z\n"
		     "- - 1\n"
		     "  - 2\n"
		     "- {}\n"
		     "- []\n"
		     "- plain\n");
	assert_emits("x", "x\n");
}

static void test_typed_scalars_keep_text(void **state)
{
	(void)state;
	assert_emits("i: 42\n'n': -7\nh: 0x1F\nf: 0.85\ne: 1e3\nt: true\nF: False\nz: null\n"
		     "tilde: ~\nempty:\ninf: .inf\nnan: .nan\n",
		     "i: 42\n'n': -7\nh: 0x1F\nf: 0.85\ne: 1e3\nt: true\nF: False\nz: null\n"
		     "tilde: ~\nempty:\ninf: .inf\nnan: .nan\n");
	assert_emits("- \n- ~\n- [a, null]\n", "-\n- ~\n- - a\n  - null\n");
	/* Quoted look-alikes stay strings. */
	assert_emits("a: \"42\"\nb: 'true'\nc: \"null\"\nd: \"\"\ne: \"1.5\"\nf: \"~\"\n",
		     "a: '42'\nb: 'true'\nc: 'null'\nd: ''\ne: '1.5'\nf: '~'\n");
}

static void test_quoting_styles(void **state)
{
	(void)state;
	assert_emits("a: \"x: y\"\nb: \"x #y\"\nc: \"- x\"\nd: \"it's\"\ne: \"a\\nb\"\n"
		     "f: \"tab\\there\"\ng: \"-flag\"\nh: \"x#y\"\ni: \"a:b\"\n",
		     "a: 'x: y'\nb: 'x #y'\nc: '- x'\nd: it's\ne: |-\n  a\n  b\n"
		     "f: \"tab\\there\"\ng: -flag\nh: x#y\ni: a:b\n");
	assert_emits("'<<': 1\n'': 2\n'true': 3\n", "'<<': 1\n'': 2\n'true': 3\n");
	/* Plain for srtctl's YAML 1.2 parser, but quoted for YAML 1.1 readers. */
	assert_emits(
		"a: yes\nb: off\nc: 1_000\nd: 1:30\ne: 0.8.0\nf: 0.5.1.post1\ng: v0.8\nh: =\n",
		"a: 'yes'\nb: 'off'\nc: '1_000'\nd: '1:30'\ne: '0.8.0'\nf: 0.5.1.post1\ng: v0.8\n"
		"h: '='\n");
	assert_emits("cmd: |\n  line one\n    indented\n\n  last\n",
		     "cmd: |\n  line one\n    indented\n\n  last\n");
	assert_emits("cmd: |+\n  keep\n\n\nnext: 1\n", "cmd: |+\n  keep\n\n\nnext: 1\n");
}

/* Strings that must come back unchanged, in every position. */
static const char *const tricky[] = {
	"",
	" ",
	"true",
	"True",
	"FALSE",
	"null",
	"Null",
	"~",
	"1",
	"-1",
	"+1",
	"0x10",
	"0o17",
	"1.5",
	"1e5",
	".inf",
	"-.inf",
	".nan",
	"0.",
	".5",
	" lead",
	"trail ",
	"a: b",
	"a:",
	"a #b",
	"#c",
	"-",
	"- x",
	"--",
	"---",
	"...",
	"? x",
	"?",
	":",
	":x",
	"[a]",
	"{a}",
	"a, b",
	"*alias",
	"&anchor",
	"!tag",
	"|",
	">",
	"'q'",
	"\"dq\"",
	"%x",
	"@x",
	"`x",
	"<<",
	"a\nb",
	"a\n",
	"a\n\n",
	"\na",
	"\n",
	"a\r\nb",
	" a\nb",
	"a\n \nb",
	"tab\tin",
	"\ttab",
	"bell\a",
	"esc\x1b",
	"del\x7f",
	"caf\xc3\xa9",
	"nel\xc2\x85",
	"ls\xe2\x80\xa8",
	"bom\xef\xbb\xbf",
	"nbsp\xc2\xa0",
	"emoji \xf0\x9f\x98\x80",
	"back\\slash",
	"quote\"mid",
	"x: 'y'",
	"{\"a\": 1}",
	"yes",
	"no",
	"on",
	"off",
	"y",
	"n",
	"=",
	"1_000",
	"1:30",
	"0b101",
	"08",
	"+.inf",
};

static void test_tricky_strings_round_trip(void **state)
{
	struct srt_ydoc *doc = srt_ydoc_new("built");
	struct srt_ynode *map = srt_ynode_new_map(doc);
	struct srt_ynode *seq = srt_ynode_new_seq(doc);
	struct srt_ynode *keys = srt_ynode_new_map(doc);
	struct srt_ydoc *back;
	struct srt_buf text;
	char why[256] = "";
	size_t n = sizeof(tricky) / sizeof(tricky[0]);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		char key[16];

		snprintf(key, sizeof(key), "k%zu", i);
		srt_ynode_map_set(doc, map, key, srt_ynode_new_str(doc, tricky[i], false));
		srt_ynode_seq_push(doc, seq, srt_ynode_new_str(doc, tricky[i], false));
		srt_ynode_map_set(doc, keys, tricky[i], srt_ynode_new_str(doc, "v", true));
		keys->pairs[keys->n - 1].key->plain = false; /* a string key, whatever it reads */
	}
	srt_ynode_map_set(doc, map, "seq", seq);
	srt_ynode_map_set(doc, map, "keys", keys);
	doc->root = map;

	srt_buf_init(&text);
	back = round_trip(doc->root, &text);
	if (!trees_equal(doc->root, back->root, why, sizeof(why)))
		fprintf(stderr, "%s\n---- emitted ----\n%s\n", why, text.data);
	assert_true(trees_equal(doc->root, back->root, why, sizeof(why)));
	/* Spot-check types and bytes directly. */
	assert_int_equal(srt_ynode_type(srt_ynode_get(back->root, "k2")), SRT_YT_STR);
	assert_string_equal(srt_ynode_get(back->root, "k2")->str, "true");
	assert_int_equal(srt_ynode_get(back->root, "k0")->len, 0);
	assert_int_equal(srt_ynode_type(srt_ynode_get(back->root, "k0")), SRT_YT_STR);
	srt_buf_release(&text);
	srt_ydoc_free(back);
	srt_ydoc_free(doc);
}

static void test_nul_and_long_keys(void **state)
{
	struct srt_ydoc *doc = srt_ydoc_new("built");
	struct srt_ynode *map = srt_ynode_new_map(doc);
	struct srt_ynode *nul = srt_ynode_new_str(doc, "a", false);
	struct srt_ydoc *back;
	struct srt_buf text;
	char why[256] = "";
	char longkey[2001];

	(void)state;
	/* A string with an embedded NUL ("a\0b"). */
	nul->str = "a\0b";
	nul->len = 3;
	srt_ynode_map_set(doc, map, "nul", nul);
	memset(longkey, 'k', sizeof(longkey) - 1);
	longkey[sizeof(longkey) - 1] = '\0';
	srt_ynode_map_set(doc, map, longkey, srt_ynode_new_str(doc, "long", true));
	doc->root = map;

	srt_buf_init(&text);
	back = round_trip(doc->root, &text);
	assert_true(trees_equal(doc->root, back->root, why, sizeof(why)));
	assert_int_equal(srt_ynode_get(back->root, "nul")->len, 3);
	assert_memory_equal(srt_ynode_get(back->root, "nul")->str, "a\0b", 3);
	assert_string_equal(srt_ynode_str(srt_ynode_get(back->root, longkey)), "long");
	srt_buf_release(&text);
	srt_ydoc_free(back);
	srt_ydoc_free(doc);
}

static void test_invalid_utf8_fails(void **state)
{
	struct srt_ydoc *doc = srt_ydoc_new("built");
	struct srt_ynode *map = srt_ynode_new_map(doc);
	struct srt_buf text;

	(void)state;
	srt_ynode_map_set(doc, map, "bad", srt_ynode_new_str(doc, "x\xff\ny", false));
	doc->root = map;
	srt_buf_init(&text);
	srt_buf_puts(&text, "# kept\n");
	assert_int_equal(srt_yemit(doc->root, &text), -1);
	assert_string_equal(text.data, "# kept\n"); /* nothing half-written */
	srt_buf_release(&text);
	srt_ydoc_free(doc);
}

static void test_null_root(void **state)
{
	struct srt_buf text;

	(void)state;
	srt_buf_init(&text);
	assert_int_equal(srt_yemit(NULL, &text), 0);
	assert_int_equal(text.len, 0);
	srt_buf_release(&text);
}

/* The emitter refuses trees deeper than the parser reads back. */
static void test_depth_limit(void **state)
{
	struct srt_ydoc *doc = srt_ydoc_new("built");
	struct srt_ynode *top = srt_ynode_new_seq(doc), *cur = top;
	struct srt_ydoc *back;
	struct srt_buf text;

	(void)state;
	for (unsigned i = 1; i < SRT_YAML_MAX_DEPTH; i++) {
		struct srt_ynode *next = srt_ynode_new_seq(doc);

		srt_ynode_seq_push(doc, cur, next);
		cur = next;
	}
	srt_ynode_seq_push(doc, cur, srt_ynode_new_str(doc, "leaf", true));
	srt_buf_init(&text);
	back = round_trip(top, &text); /* SRT_YAML_MAX_DEPTH lists: still readable */
	srt_ydoc_free(back);
	srt_buf_reset(&text);
	cur->items[0] = srt_ynode_new_seq(doc); /* one more level, even an empty one */
	assert_int_equal(srt_yemit(top, &text), -1);
	assert_int_equal(text.len, 0);
	srt_ynode_seq_push(doc, cur->items[0], srt_ynode_new_str(doc, "leaf", true));
	assert_int_equal(srt_yemit(top, &text), -1);
	assert_int_equal(text.len, 0);
	srt_buf_release(&text);
	srt_ydoc_free(doc);
}

static void test_aliases_expand(void **state)
{
	(void)state;
	assert_emits("a: &x {k: v}\nb: *x\nc:\n  <<: *x\n  j: 1\n",
		     "a:\n  k: v\nb:\n  k: v\nc:\n  k: v\n  j: 1\n");
}

static void test_corpus_round_trip(void **state)
{
	char corpus[2048];
	DIR *dir = opendir(corpus_path(corpus, sizeof(corpus), "srt-slurm-v1"));
	struct dirent *de;
	size_t count = 0;

	(void)state;
	assert_non_null(dir);
	while ((de = readdir(dir))) {
		size_t len = strlen(de->d_name);
		struct srt_diags d;
		struct srt_ydoc *doc, *back;
		struct srt_buf text;
		char path[4096], why[512] = "";

		if (len < 6 || strcmp(de->d_name + len - 5, ".yaml"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", corpus, de->d_name);
		srt_diags_init(&d);
		doc = srt_ydoc_load_file(path, &d);
		assert_non_null(doc);
		srt_buf_init(&text);
		back = round_trip(doc->root, &text);
		if (!trees_equal(doc->root, back->root, why, sizeof(why)))
			fail_msg("%s: %s", de->d_name, why);
		srt_buf_release(&text);
		srt_ydoc_free(back);
		srt_ydoc_free(doc);
		srt_diags_release(&d);
		count++;
	}
	closedir(dir);
	assert_int_equal(count, 255);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_typed_scalars_keep_text),
		cmocka_unit_test(test_quoting_styles),
		cmocka_unit_test(test_tricky_strings_round_trip),
		cmocka_unit_test(test_nul_and_long_keys),
		cmocka_unit_test(test_invalid_utf8_fails),
		cmocka_unit_test(test_null_root),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_aliases_expand),
		cmocka_unit_test(test_corpus_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
