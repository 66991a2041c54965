/*
 * recipe/variants.c: expanding `base:` + `zip_override_<name>:` files.
 *
 * Each override is checked first: it must be a mapping, and every list found
 * by walking its mappings (lists are not walked into: a list is one zipped
 * value) must have the same length N.  Variant i is then base merged with
 * the override where each list stands for its element i.  The merge builds
 * new mapping nodes along every path the override touches and shares the
 * untouched subtrees of base, which is never modified: all variants of the
 * file point into the same base.
 *
 * A null element of a zipped list means "this variant does not override the
 * key": the base value (or its absence) stays.  A null written as a plain
 * value (not in a list) replaces like any other scalar.
 *
 * Merged mappings keep the position of the base mapping (or of the override
 * mapping when base has none), and every value keeps its own node, so
 * diagnostics on a variant still point at the line that wrote the value.
 */
#include "recipe/variants.h"
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OVERRIDE_PREFIX "zip_override_"

static bool key_is(const struct srt_ynode *k, const char *s)
{
	size_t n = strlen(s);

	return k->len == n && !memcmp(k->str, s, n);
}

static bool is_override_key(const struct srt_ynode *k)
{
	size_t n = strlen(OVERRIDE_PREFIX);

	return k->len > n && !strncmp(k->str, OVERRIDE_PREFIX, n);
}

bool srt_variants_is_variant_doc(const struct srt_ynode *root)
{
	if (!root || root->kind != SRT_Y_MAP)
		return false;
	for (size_t i = 0; i < root->n; i++)
		if (key_is(root->pairs[i].key, "base") || is_override_key(root->pairs[i].key))
			return true;
	return false;
}

/* The first list met in an override fixes N; the others must agree with it. */
struct zip_check {
	const char *file;
	struct srt_diags *diags;
	size_t n;	  /* 0 until the first list */
	char *first_path; /* where N came from */
	bool failed;
};

static void check_lists(struct zip_check *zc, const struct srt_ynode *node, struct srt_buf *path)
{
	size_t mark = path->len;

	if (node->kind == SRT_Y_SEQ) {
		if (node->n == 0) {
			srt_diags_add(zc->diags, SRT_DIAG_ERROR, zc->file, node->line, node->col,
				      path->data,
				      "an empty list cannot be zipped; give one value per variant "
				      "(or write the list under base:)");
			zc->failed = true;
		} else if (!zc->n) {
			zc->n = node->n;
			zc->first_path = srt_xstrdup(path->data);
		} else if (node->n != zc->n) {
			srt_diags_add(zc->diags, SRT_DIAG_ERROR, zc->file, node->line, node->col,
				      path->data,
				      "list has %zu values but %s has %zu; every list in one "
				      "zip_override section must have the same length",
				      node->n, zc->first_path, zc->n);
			zc->failed = true;
		}
		return;
	}
	if (node->kind != SRT_Y_MAP)
		return;
	for (size_t i = 0; i < node->n; i++) {
		const struct srt_ypair *p = &node->pairs[i];

		srt_buf_printf(path, "%s%s", path->len ? "." : "", p->key->str);
		check_lists(zc, p->value, path);
		path->len = mark;
		if (path->cap)
			path->data[mark] = '\0';
	}
}

/* A fresh mapping at `at`'s position with room for `cap` pairs. */
static struct srt_ynode *new_map_at(struct srt_ydoc *doc, const struct srt_ynode *at, size_t cap)
{
	struct srt_ynode *m = srt_ynode_new_map(doc);

	m->line = at->line;
	m->col = at->col;
	m->anchor = NULL;
	m->cap = cap ? cap : 1;
	m->pairs = srt_arena_alloc(&doc->arena, m->cap * sizeof(*m->pairs));
	return m;
}

static struct srt_ypair *find_pair(struct srt_ynode *map, const struct srt_ynode *key)
{
	for (size_t i = 0; i < map->n; i++)
		if (map->pairs[i].key->len == key->len &&
		    !memcmp(map->pairs[i].key->str, key->str, key->len))
			return &map->pairs[i];
	return NULL;
}

/*
 * Merge override `o` (variant i) over `b` (may be NULL).  Returns the new
 * value, or NULL when the variant leaves the value alone (a null element of
 * a zipped list).
 */
static struct srt_ynode *merge(struct srt_ydoc *doc, const struct srt_ynode *b,
			       const struct srt_ynode *o, size_t i)
{
	struct srt_ynode *m;

	if (o->kind == SRT_Y_SEQ) {
		struct srt_ynode *v = o->items[i];

		return srt_ynode_is_null(v) ? NULL : v;
	}
	if (o->kind != SRT_Y_MAP)
		return (struct srt_ynode *)o;
	if (b && b->kind == SRT_Y_MAP) {
		m = new_map_at(doc, b, b->n + o->n);
		memcpy(m->pairs, b->pairs, b->n * sizeof(*m->pairs));
		m->n = b->n;
	} else {
		m = new_map_at(doc, o, o->n);
	}
	for (size_t k = 0; k < o->n; k++) {
		const struct srt_ypair *op = &o->pairs[k];
		struct srt_ypair *bp = find_pair(m, op->key);
		struct srt_ynode *v = merge(doc, bp ? bp->value : NULL, op->value, i);

		if (!v)
			continue;
		if (bp) {
			bp->value = v;
		} else {
			m->pairs[m->n].key = op->key;
			m->pairs[m->n].value = v;
			m->n++;
		}
	}
	return m;
}

/* Put `name` first in the variant's mapping (or replace the one there). */
static void set_name(struct srt_ydoc *doc, struct srt_ynode *root, struct srt_ynode *name,
		     const struct srt_ynode *at)
{
	struct srt_ypair *p = NULL;

	for (size_t i = 0; i < root->n; i++)
		if (key_is(root->pairs[i].key, "name"))
			p = &root->pairs[i];
	if (p) {
		p->value = name;
		return;
	}
	if (root->n == root->cap) {
		struct srt_ypair *np = srt_arena_alloc(&doc->arena, (root->cap + 1) * sizeof(*np));

		memcpy(np, root->pairs, root->n * sizeof(*np));
		root->pairs = np;
		root->cap++;
	}
	memmove(&root->pairs[1], &root->pairs[0], root->n * sizeof(*root->pairs));
	root->pairs[0].key = srt_ynode_new_str(doc, "name", true);
	root->pairs[0].key->line = at->line;
	root->pairs[0].key->col = at->col;
	root->pairs[0].value = name;
	root->n++;
}

/*
 * Variant i's name: the zipped (or plain) `name` of the override when it
 * gives one, else base name + "-" + override suffix + index.
 */
static void name_variant(struct srt_ydoc *doc, struct srt_ynode *root, const struct srt_ynode *base,
			 const struct srt_ypair *ov, size_t i)
{
	const struct srt_ynode *given = srt_ynode_get(ov->value, "name");
	const char *base_name = srt_ynode_str(srt_ynode_get(base, "name"));
	const char *suffix = ov->key->str + strlen(OVERRIDE_PREFIX);
	struct srt_ynode *name;

	if (given && given->kind == SRT_Y_SEQ)
		given = given->items[i];
	if (given && !srt_ynode_is_null(given))
		return; /* merge() already put it in place */
	if (base_name)
		name = srt_ynode_new_str(
			doc, srt_arena_printf(&doc->arena, "%s-%s%zu", base_name, suffix, i),
			false);
	else
		name = srt_ynode_new_str(doc, srt_arena_printf(&doc->arena, "%s%zu", suffix, i),
					 false);
	name->line = ov->key->line;
	name->col = ov->key->col;
	set_name(doc, root, name, ov->key);
}

static void push_root(struct srt_ynode ***roots, size_t *n, size_t *cap, struct srt_ynode *r)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		*roots = srt_xrealloc(*roots, *cap * sizeof(**roots));
	}
	(*roots)[(*n)++] = r;
}

int srt_variants_expand(struct srt_ydoc *doc, struct srt_ynode ***roots, size_t *n,
			struct srt_diags *diags)
{
	struct srt_ynode *root = doc->root;
	const struct srt_ynode *base = NULL;
	struct srt_ynode **out = NULL;
	size_t nout = 0, cap = 0;
	size_t errors = diags->nerrors;
	struct srt_buf path;
	int rc = -1;

	*roots = NULL;
	*n = 0;
	srt_buf_init(&path);
	if (!srt_variants_is_variant_doc(root)) {
		out = srt_xmalloc(sizeof(*out));
		out[0] = root;
		*roots = out;
		*n = 1;
		return 0;
	}

	base = srt_ynode_get(root, "base");
	if (!base) {
		srt_diags_add(diags, SRT_DIAG_ERROR, doc->file, root->line, root->col, NULL,
			      "variant file has zip_override sections but no 'base:'; add the "
			      "recipe the overrides apply to under 'base:'");
	} else if (base->kind != SRT_Y_MAP) {
		srt_diags_add(diags, SRT_DIAG_ERROR, doc->file, base->line, base->col, "base",
			      "must be a mapping (a whole recipe), not %s",
			      srt_ynode_describe(base));
		base = NULL;
	}
	for (size_t k = 0; k < root->n; k++) {
		const struct srt_ypair *p = &root->pairs[k];

		if (key_is(p->key, "base"))
			continue;
		if (!is_override_key(p->key)) {
			srt_diags_add(diags, SRT_DIAG_ERROR, doc->file, p->key->line, p->key->col,
				      p->key->str,
				      "unexpected top-level key in a variant file; put it under "
				      "'base:' or in a 'zip_override_<name>:' section");
			continue;
		}
		if (p->value->kind != SRT_Y_MAP) {
			srt_diags_add(diags, SRT_DIAG_ERROR, doc->file, p->value->line,
				      p->value->col, p->key->str,
				      "must be a mapping (a partial recipe), not %s",
				      srt_ynode_describe(p->value));
			continue;
		}
	}
	if (diags->nerrors > errors || !base)
		goto out;

	for (size_t k = 0; k < root->n; k++) {
		const struct srt_ypair *p = &root->pairs[k];
		struct zip_check zc = { .file = doc->file, .diags = diags };
		size_t count;

		if (!is_override_key(p->key))
			continue;
		srt_buf_reset(&path);
		srt_buf_puts(&path, p->key->str);
		check_lists(&zc, p->value, &path);
		free(zc.first_path);
		if (zc.failed)
			continue;
		count = zc.n ? zc.n : 1;
		for (size_t i = 0; i < count; i++) {
			struct srt_ynode *v = merge(doc, base, p->value, i);

			name_variant(doc, v, base, p, i);
			push_root(&out, &nout, &cap, v);
		}
	}
	if (diags->nerrors > errors)
		goto out;

	/* With overrides, base is their template, not a variant of its own. */
	if (!nout)
		push_root(&out, &nout, &cap, (struct srt_ynode *)base);
	*roots = out;
	*n = nout;
	out = NULL;
	rc = 0;
out:
	free(out);
	srt_buf_release(&path);
	return rc;
}
