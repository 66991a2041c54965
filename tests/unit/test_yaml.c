/* tests/unit/test_yaml.c: the located YAML tree (recipe/yaml.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "recipe/yaml.h"
#include "util/buf.h"

static struct srt_ydoc *parse(const char *text, struct srt_diags *d)
{
	srt_diags_init(d);
	return srt_ydoc_parse(text, strlen(text), "t.yaml", d);
}

static char *first_diag(const struct srt_diags *d)
{
	assert_true(d->n > 0);
	return srt_diag_format(&d->items[0]);
}

/* Parse text that must fail; returns its first diagnostic (caller frees). */
static char *parse_error(const char *text)
{
	struct srt_diags d;
	char *msg;

	assert_null(parse(text, &d));
	msg = first_diag(&d);
	srt_diags_release(&d);
	return msg;
}

static void test_positions(void **state)
{
	struct srt_diags d;
	struct srt_ydoc *doc = parse("a: 1\nb:\n  c: [x, 'y']\n", &d);
	const struct srt_ynode *b, *c;

	(void)state;
	assert_non_null(doc);
	assert_int_equal(d.n, 0);
	b = srt_ynode_get(doc->root, "b");
	assert_int_equal(b->kind, SRT_Y_MAP);
	assert_int_equal(b->line, 3);
	assert_int_equal(b->col, 3);
	c = srt_ynode_get(b, "c");
	assert_int_equal(c->kind, SRT_Y_SEQ);
	assert_int_equal(c->n, 2);
	assert_string_equal(c->items[1]->str, "y");
	assert_false(c->items[1]->plain);
	assert_int_equal(c->items[1]->line, 3);
	assert_int_equal(c->items[1]->col, 10);
	srt_ydoc_free(doc);
	srt_diags_release(&d);
}

static void test_typing(void **state)
{
	struct srt_diags d;
	struct srt_ydoc *doc =
		parse("i: 42\nh: 0x1F\nneg: -7\nf: 1.5\ne: 1e3\nt: true\nT: True\nn: ~\nn2:\n"
		      "s: '42'\nw: yes\ninf: .inf\nstr: !!str 12\n",
		      &d);
	int64_t i = 0;
	double f = 0;
	bool b = false;

	(void)state;
	assert_non_null(doc);
	assert_true(srt_ynode_int(srt_ynode_get(doc->root, "i"), &i));
	assert_int_equal(i, 42);
	assert_true(srt_ynode_int(srt_ynode_get(doc->root, "h"), &i));
	assert_int_equal(i, 31);
	assert_true(srt_ynode_int(srt_ynode_get(doc->root, "neg"), &i));
	assert_int_equal(i, -7);
	assert_true(srt_ynode_float(srt_ynode_get(doc->root, "f"), &f));
	assert_true(f > 1.49 && f < 1.51);
	assert_int_equal(srt_ynode_type(srt_ynode_get(doc->root, "e")), SRT_YT_FLOAT);
	assert_true(srt_ynode_bool(srt_ynode_get(doc->root, "t"), &b));
	assert_true(b);
	assert_int_equal(srt_ynode_type(srt_ynode_get(doc->root, "T")), SRT_YT_BOOL);
	assert_true(srt_ynode_is_null(srt_ynode_get(doc->root, "n")));
	assert_true(srt_ynode_is_null(srt_ynode_get(doc->root, "n2")));
	assert_int_equal(srt_ynode_type(srt_ynode_get(doc->root, "s")), SRT_YT_STR);
	/* YAML 1.2: yes is a string */
	assert_int_equal(srt_ynode_type(srt_ynode_get(doc->root, "w")), SRT_YT_STR);
	assert_int_equal(srt_ynode_type(srt_ynode_get(doc->root, "inf")), SRT_YT_FLOAT);
	assert_int_equal(srt_ynode_type(srt_ynode_get(doc->root, "str")), SRT_YT_STR);
	srt_ydoc_free(doc);
	srt_diags_release(&d);
}

static void test_anchor_alias_merge(void **state)
{
	struct srt_diags d;
	struct srt_ydoc *doc = parse("base: &b\n  x: 1\n  y: 2\n"
				     "other: &o\n  y: 20\n  z: 30\n"
				     "m:\n  <<: [*b, *o]\n  x: 10\n"
				     "alias: *b\n",
				     &d);
	const struct srt_ynode *m;
	int64_t v;

	(void)state;
	assert_non_null(doc);
	assert_int_equal(d.n, 0);
	m = srt_ynode_get(doc->root, "m");
	assert_int_equal(m->n, 3);
	/* explicit key wins regardless of order */
	assert_true(srt_ynode_int(srt_ynode_get(m, "x"), &v));
	assert_int_equal(v, 10);
	/* earlier merge source wins */
	assert_true(srt_ynode_int(srt_ynode_get(m, "y"), &v));
	assert_int_equal(v, 2);
	assert_true(srt_ynode_int(srt_ynode_get(m, "z"), &v));
	assert_int_equal(v, 30);
	assert_ptr_equal(srt_ynode_get(doc->root, "alias"), srt_ynode_get(doc->root, "base"));
	srt_ydoc_free(doc);
	srt_diags_release(&d);
}

static void test_duplicate_key(void **state)
{
	struct srt_diags d;
	struct srt_ydoc *doc = parse("a: 1\nb: 2\na: 3\n", &d);
	char *msg;

	(void)state;
	assert_null(doc);
	msg = first_diag(&d);
	assert_string_equal(msg, "t.yaml:3:1: duplicate key 'a' (first defined at line 1); "
				 "remove one of them");
	free(msg);
	srt_diags_release(&d);
}

static void test_merge_is_not_duplicate(void **state)
{
	struct srt_diags d;
	struct srt_ydoc *doc = parse("d: &d {a: 1}\ne:\n  <<: *d\n  a: 2\n", &d);

	(void)state;
	assert_non_null(doc);
	assert_int_equal(d.nerrors, 0);
	srt_ydoc_free(doc);
	srt_diags_release(&d);
}

static void test_errors(void **state)
{
	static const struct {
		const char *text;
		const char *want;
	} cases[] = {
		{ "a: b: c\n", "t.yaml:1:5: YAML syntax error: mapping values are not allowed in "
			       "this context" },
		{ "a: *nope\n", "t.yaml:1:4: alias '*nope' refers to no anchor defined before it "
				"(define '&nope' earlier in the file)" },
		{ "a: 1\n---\nb: 2\n", "t.yaml:2:1: the file holds more than one YAML document "
				       "('---'); put each recipe in its own file" },
		{ "? [a]\n: 1\n", "t.yaml:1:3: a mapping key must be a plain value, not a list; "
				  "quote the key" },
		{ "x: &s 1\ny:\n  <<: *s\n", "t.yaml:3:7: merge key '<<' needs a mapping or a list "
					     "of mappings (an alias such as '<<: *defaults'), not "
					     "an integer" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct srt_diags d;
		struct srt_ydoc *doc = parse(cases[i].text, &d);
		char *msg;

		assert_null(doc);
		msg = first_diag(&d);
		assert_string_equal(msg, cases[i].want);
		free(msg);
		srt_diags_release(&d);
	}
}

static void test_alias_bomb(void **state)
{
	struct srt_buf b;
	char *msg;

	(void)state;
	srt_buf_init(&b);
	srt_buf_puts(&b, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
	for (int i = 1; i < 10; i++)
		srt_buf_printf(&b, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, "
				   "*a%d, *a%d]\n",
			       i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1,
			       i - 1);
	msg = parse_error(b.data);
	assert_non_null(strstr(msg, "document expands to more than 1000000 nodes"));
	free(msg);
	srt_buf_release(&b);
}

/*
 * Issue #12 item 12: a plain document with too many nodes (no alias in it)
 * is "too large", with the limit, at the first node past it; and a document
 * over SRT_YAML_MAX_BYTES is refused by size, also in memory.
 */
static void test_too_large(void **state)
{
	struct srt_buf b;
	char *msg;

	(void)state;
	srt_buf_init(&b);
	srt_buf_puts(&b, "items:\n");
	for (int i = 0; i < 1500000; i++)
		srt_buf_puts(&b, "- 1\n");
	msg = parse_error(b.data);
	/* Node 1000001: after the root mapping, its key and the list, item 999998 (line 999999). */
	assert_string_equal(msg, "t.yaml:999999:3: the document is too large: it has more than "
				 "1000000 values (keys, values and list items); a recipe may have "
				 "at most 1000000");
	free(msg);

	srt_buf_reset(&b);
	srt_buf_puts(&b, "a: ");
	while (b.len <= SRT_YAML_MAX_BYTES)
		srt_buf_puts(&b, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	msg = parse_error(b.data);
	assert_non_null(strstr(msg, "bytes; a recipe may have at most 16777216 (16 MiB)"));
	free(msg);
	srt_buf_release(&b);
}

static void test_deep_nesting(void **state)
{
	struct srt_buf b;
	struct srt_diags d;
	struct srt_ydoc *doc;
	char *msg;

	(void)state;
	srt_buf_init(&b);
	for (int i = 0; i < 300; i++)
		srt_buf_putc(&b, '[');
	for (int i = 0; i < 300; i++)
		srt_buf_putc(&b, ']');
	doc = parse(b.data, &d);
	assert_null(doc);
	msg = first_diag(&d);
	assert_non_null(strstr(msg, "nesting is deeper than 200 levels"));
	free(msg);
	srt_diags_release(&d);
	srt_buf_release(&b);
}

static void test_to_json(void **state)
{
	struct srt_diags d;
	struct srt_ydoc *doc = parse("a: 1\nb: [true, null, '2', 2.5]\nc: {d: x}\n", &d);
	json_t *j;
	char *s;

	(void)state;
	assert_non_null(doc);
	j = srt_ynode_to_json(doc->root);
	s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	assert_string_equal(s, "{\"a\":1,\"b\":[true,null,\"2\",2.5],\"c\":{\"d\":\"x\"}}");
	free(s);
	json_decref(j);
	srt_ydoc_free(doc);
	srt_diags_release(&d);
}

static void test_builders(void **state)
{
	struct srt_ydoc *doc = srt_ydoc_new("built");
	struct srt_ynode *m = srt_ynode_new_map(doc), *s = srt_ynode_new_seq(doc);

	(void)state;
	for (int i = 0; i < 20; i++)
		srt_ynode_seq_push(doc, s, srt_ynode_new_str(doc, "x", true));
	srt_ynode_map_set(doc, m, "list", s);
	srt_ynode_map_set(doc, m, "k", srt_ynode_new_str(doc, "v", false));
	srt_ynode_map_set(doc, m, "k", srt_ynode_new_str(doc, "w", false));
	assert_int_equal(m->n, 2);
	assert_int_equal(s->n, 20);
	assert_string_equal(srt_ynode_get(m, "k")->str, "w");
	assert_true(srt_ynode_map_del(m, "list"));
	assert_false(srt_ynode_map_del(m, "list"));
	assert_int_equal(m->n, 1);
	srt_ydoc_free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_positions),
		cmocka_unit_test(test_typing),
		cmocka_unit_test(test_anchor_alias_merge),
		cmocka_unit_test(test_duplicate_key),
		cmocka_unit_test(test_merge_is_not_duplicate),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_alias_bomb),
		cmocka_unit_test(test_too_large),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_to_json),
		cmocka_unit_test(test_builders),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
