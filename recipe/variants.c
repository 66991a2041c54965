/*
 * recipe/variants.c: expanding `base:` + `override_*:` / `zip_override_*:`.
 *
 * The rules are srt-slurm's (docs/config-overrides and its config loader):
 * an override_ section is deep-merged over base; a zip_override_ section is
 * first sliced (every list stands for its element i, a one-element list for
 * its only element, scalars for themselves) and the slice is deep-merged over
 * base.  Deep merge: mapping over mapping merges key by key, a null deletes
 * the key, anything else replaces (lists are not appended).
 *
 * Every section is checked before anything is built, and all problems of a
 * file are reported in one pass.  The merge builds new mapping nodes along
 * every path a section touches and shares the untouched subtrees of base,
 * which is never modified: every recipe of the file points into one base.
 * Merged mappings keep the position of the base mapping (or of the section's
 * mapping when base has none), and every value keeps its own node, so
 * diagnostics on a recipe still point at the line that wrote the value.
 */
#include "recipe/variants.h"
#include "util/buf.h"

#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OVERRIDE_PREFIX "override_"
#define ZIP_PREFIX "zip_override_"

static bool has_prefix(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return strlen(s) > n && !strncmp(s, prefix, n);
}

enum srt_variant_key srt_variants_key_kind(const char *key)
{
	if (!strcmp(key, "base"))
		return SRT_VKEY_BASE;
	if (!strcmp(key, "schema"))
		return SRT_VKEY_SCHEMA;
	if (has_prefix(key, OVERRIDE_PREFIX))
		return SRT_VKEY_OVERRIDE;
	if (has_prefix(key, ZIP_PREFIX))
		return SRT_VKEY_ZIP;
	return SRT_VKEY_OTHER;
}

bool srt_variants_is_variant_doc(const struct srt_ynode *root)
{
	if (!root || root->kind != SRT_Y_MAP)
		return false;
	for (size_t i = 0; i < root->n; i++) {
		enum srt_variant_key k = srt_variants_key_kind(root->pairs[i].key->str);

		if (k == SRT_VKEY_BASE || k == SRT_VKEY_OVERRIDE || k == SRT_VKEY_ZIP)
			return true;
	}
	return false;
}

/*
 * The zip length of a section: the first list longer than one fixes N; the
 * other lists must have N values or one.
 */
struct zip_check {
	const char *file;
	struct srt_diags *diags;
	size_t n;	  /* 0 until the first list longer than one */
	char *first_path; /* where N came from */
	size_t nlists;
	bool failed;
};

static void check_lists(struct zip_check *zc, const struct srt_ynode *node, struct srt_buf *path)
{
	size_t mark = path->len;

	if (node->kind == SRT_Y_SEQ) {
		zc->nlists++;
		if (node->n == 0) {
			srt_diags_add(
				zc->diags, SRT_DIAG_ERROR, zc->file, node->line, node->col,
				path->data,
				"an empty list cannot be zipped; give one value per variant, "
				"or one value for all of them (or write the list under base:)");
			zc->failed = true;
		} else if (node->n == 1) {
			/* broadcast */
		} else if (!zc->n) {
			zc->n = node->n;
			zc->first_path = srt_xstrdup(path->data);
		} else if (node->n != zc->n) {
			srt_diags_add(zc->diags, SRT_DIAG_ERROR, zc->file, node->line, node->col,
				      path->data,
				      "list has %zu values but %s has %zu; every list in one "
				      "zip_override section must have the same length, or length 1 "
				      "(one value for every variant)",
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
 * Variant i of a zip section: each list stands for its element i (a
 * one-element list for its only element); mappings are sliced key by key;
 * lists inside a list element stay as written (a literal list).
 */
static struct srt_ynode *zip_slice(struct srt_ydoc *doc, struct srt_ynode *o, size_t i)
{
	struct srt_ynode *m;

	if (o->kind == SRT_Y_SEQ)
		return o->items[o->n == 1 ? 0 : i];
	if (o->kind != SRT_Y_MAP)
		return o;
	m = new_map_at(doc, o, o->n);
	for (size_t k = 0; k < o->n; k++) {
		m->pairs[k].key = o->pairs[k].key;
		m->pairs[k].value = zip_slice(doc, o->pairs[k].value, i);
	}
	m->n = o->n;
	return m;
}

/*
 * Deep-merge mapping `o` over mapping `b` into a new mapping: a null value
 * deletes the key, a mapping over a mapping merges, anything else replaces.
 * Base keys keep their order; new keys follow in the section's order.
 */
static struct srt_ynode *deep_merge(struct srt_ydoc *doc, const struct srt_ynode *b,
				    const struct srt_ynode *o)
{
	struct srt_ynode *m = new_map_at(doc, b, b->n + o->n);

	memcpy(m->pairs, b->pairs, b->n * sizeof(*m->pairs));
	m->n = b->n;
	for (size_t k = 0; k < o->n; k++) {
		const struct srt_ypair *op = &o->pairs[k];
		struct srt_ypair *bp = find_pair(m, op->key);
		struct srt_ynode *v = op->value;

		if (srt_ynode_is_null(v)) {
			if (bp) {
				size_t at = (size_t)(bp - m->pairs);

				memmove(bp, bp + 1, (m->n - at - 1) * sizeof(*bp));
				m->n--;
			}
			continue;
		}
		if (bp && v->kind == SRT_Y_MAP && bp->value->kind == SRT_Y_MAP)
			v = deep_merge(doc, bp->value, v);
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

/* Set `key` to `value` in a built mapping: in place when present, else first. */
static void set_first(struct srt_ydoc *doc, struct srt_ynode *root, const char *key,
		      struct srt_ynode *value, const struct srt_ynode *at)
{
	size_t klen = strlen(key);

	for (size_t i = 0; i < root->n; i++) {
		if (root->pairs[i].key->len == klen &&
		    !memcmp(root->pairs[i].key->str, key, klen)) {
			root->pairs[i].value = value;
			return;
		}
	}
	if (root->n == root->cap) {
		struct srt_ypair *np = srt_arena_alloc(&doc->arena, (root->cap + 1) * sizeof(*np));

		memcpy(np, root->pairs, root->n * sizeof(*np));
		root->pairs = np;
		root->cap++;
	}
	memmove(&root->pairs[1], &root->pairs[0], root->n * sizeof(*root->pairs));
	root->pairs[0].key = srt_ynode_new_str(doc, key, true);
	root->pairs[0].key->line = at->line;
	root->pairs[0].key->col = at->col;
	root->pairs[0].value = value;
	root->n++;
}

/* The generated name "<base name>_<suffix>", located at the section key. */
static void set_generated_name(struct srt_ydoc *doc, struct srt_ynode *root,
			       const struct srt_ynode *base, const char *suffix,
			       const struct srt_ynode *at)
{
	const char *base_name = srt_ynode_str(srt_ynode_get(base, "name"));
	struct srt_ynode *name;

	name = srt_ynode_new_str(doc,
				 srt_arena_printf(&doc->arena, "%s_%s",
						  base_name ? base_name : "unnamed", suffix),
				 false);
	name->line = at->line;
	name->col = at->col;
	set_first(doc, root, "name", name, at);
}

static void push_root(struct srt_ynode ***roots, size_t *n, size_t *cap, struct srt_ynode *r)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		*roots = srt_xrealloc(*roots, *cap * sizeof(**roots));
	}
	(*roots)[(*n)++] = r;
}

static int cmp_pair_key(const void *a, const void *b)
{
	const struct srt_ypair *pa = *(const struct srt_ypair *const *)a;
	const struct srt_ypair *pb = *(const struct srt_ypair *const *)b;

	return strcmp(pa->key->str, pb->key->str);
}

/* One recipe per override_ section. */
static void expand_override(struct srt_ydoc *doc, const struct srt_ynode *base,
			    const struct srt_ypair *p, struct srt_ynode ***out, size_t *nout,
			    size_t *cap)
{
	struct srt_ynode *v = deep_merge(doc, base, p->value);

	if (!srt_ynode_get_pair(p->value, "name"))
		set_generated_name(doc, v, base, p->key->str + strlen(OVERRIDE_PREFIX), p->key);
	push_root(out, nout, cap, v);
}

/* N recipes per zip_override_ section; returns -1 after reporting its errors. */
static int expand_zip(struct srt_ydoc *doc, const struct srt_ynode *base, const struct srt_ypair *p,
		      struct srt_ynode ***out, size_t *nout, size_t *cap, struct srt_diags *diags)
{
	struct zip_check zc = { .file = doc->file, .diags = diags };
	const struct srt_ynode *given = srt_ynode_get(p->value, "name");
	const char *group = p->key->str + strlen(ZIP_PREFIX);
	struct srt_buf path;
	size_t count;

	srt_buf_init(&path);
	srt_buf_puts(&path, p->key->str);
	check_lists(&zc, p->value, &path);
	srt_buf_release(&path);
	free(zc.first_path);
	if (!zc.failed && !zc.nlists) {
		srt_diags_add(diags, SRT_DIAG_ERROR, doc->file, p->key->line, p->key->col,
			      p->key->str,
			      "a zip_override section needs at least one list value (one value "
			      "per variant); for a single variant write 'override_%s:' instead",
			      group);
		zc.failed = true;
	}
	if (zc.failed)
		return -1;
	count = zc.n ? zc.n : 1;
	for (size_t i = 0; i < count; i++) {
		struct srt_ynode *slice = zip_slice(doc, p->value, i);
		struct srt_ynode *v = deep_merge(doc, base, slice);

		/* A scalar name would give every variant the same name. */
		if (!given || given->kind != SRT_Y_SEQ)
			set_generated_name(doc, v, base,
					   srt_arena_printf(&doc->arena, "%s_%zu", group, i),
					   p->key);
		push_root(out, nout, cap, v);
	}
	return 0;
}

/* What a variant file offers a selector: "base, override_a, zip_override_b, zip_override_b[i]". */
static char *available(const struct srt_ypair *const *over, size_t nover,
		       const struct srt_ypair *const *zips, size_t nzip)
{
	struct srt_buf b;

	srt_buf_init(&b);
	srt_buf_puts(&b, "base");
	for (size_t k = 0; k < nover; k++)
		srt_buf_printf(&b, ", %s", over[k]->key->str);
	for (size_t k = 0; k < nzip; k++)
		srt_buf_printf(&b, ", %s, %s[i]", zips[k]->key->str, zips[k]->key->str);
	return srt_buf_detach(&b);
}

/* "zip_override_<g>[N]": the section name (in `a`) and N; false for anything else. */
static bool zip_index(struct srt_arena *a, const char *sel, const char **key, size_t *idx)
{
	const char *lb = strchr(sel, '[');
	size_t n = 0, digits = 0;
	const char *p;

	if (!lb || !has_prefix(sel, ZIP_PREFIX) || lb == sel + strlen(ZIP_PREFIX))
		return false;
	for (p = lb + 1; *p >= '0' && *p <= '9' && digits < 9; p++, digits++)
		n = n * 10 + (size_t)(*p - '0');
	if (!digits || p[0] != ']' || p[1])
		return false;
	*key = srt_arena_printf(a, "%.*s", (int)(lb - sel), sel);
	*idx = n;
	return true;
}

/*
 * Keep, of the sorted sections, those `sel` names (see
 * srt_variants_expand_selected): none for "base" (base alone is then the
 * recipe), *zidx for an index (SIZE_MAX: all).  Returns false after
 * reporting a selector that picks nothing.
 */
static bool select_sections(struct srt_ydoc *doc, const char *sel, const struct srt_ypair **over,
			    size_t *nover, const struct srt_ypair **zips, size_t *nzip,
			    size_t *zidx, struct srt_diags *diags)
{
	const char *key = sel;
	size_t no = 0, nz = 0, idx = 0;
	bool indexed = zip_index(&doc->arena, sel, &key, &idx);
	bool glob = !indexed && strpbrk(sel, "*?[");
	char *avail;

	*zidx = indexed ? idx : SIZE_MAX;
	if (!strcmp(sel, "base")) {
		*nover = *nzip = 0;
		return true;
	}
	for (size_t k = 0; k < *nover; k++)
		if (glob ? !fnmatch(sel, over[k]->key->str, 0) : !strcmp(key, over[k]->key->str))
			over[no++] = over[k];
	for (size_t k = 0; k < *nzip; k++)
		if (glob ? !fnmatch(sel, zips[k]->key->str, 0) : !strcmp(key, zips[k]->key->str))
			zips[nz++] = zips[k];
	if (*zidx != SIZE_MAX)
		no = 0; /* an index picks in a zip section only */
	if (no + nz) {
		*nover = no;
		*nzip = nz;
		return true;
	}
	avail = available(over, *nover, zips, *nzip);
	srt_diags_add(diags, SRT_DIAG_ERROR, doc->file, 1, 1, NULL,
		      "the selector '%s' picks no variant of this file; it has: %s", sel, avail);
	free(avail);
	return false;
}

int srt_variants_expand(struct srt_ydoc *doc, struct srt_ynode ***roots, size_t *n,
			struct srt_diags *diags)
{
	return srt_variants_expand_selected(doc, NULL, roots, n, diags);
}

int srt_variants_expand_selected(struct srt_ydoc *doc, const char *selector,
				 struct srt_ynode ***roots, size_t *n, struct srt_diags *diags)
{
	struct srt_ynode *root = doc->root;
	const struct srt_ynode *base = NULL, *schema = NULL;
	const struct srt_ypair **overrides = NULL, **zips = NULL;
	size_t nover = 0, nzip = 0;
	struct srt_ynode **out = NULL;
	size_t nout = 0, cap = 0;
	size_t errors = diags->nerrors;
	size_t zidx = SIZE_MAX;
	int rc = -1;

	*roots = NULL;
	*n = 0;
	if (!srt_variants_is_variant_doc(root) && selector) {
		srt_diags_add(diags, SRT_DIAG_ERROR, doc->file, 1, 1, NULL,
			      "the selector '%s' picks a variant of a variant file (base: and "
			      "override_ sections), and this file is one recipe; drop ':%s'",
			      selector, selector);
		return -1;
	}
	if (!srt_variants_is_variant_doc(root)) {
		out = srt_xmalloc(sizeof(*out));
		out[0] = root;
		*roots = out;
		*n = 1;
		return 0;
	}

	base = srt_ynode_get(root, "base");
	schema = srt_ynode_get(root, "schema");
	if (!base) {
		srt_diags_add(diags, SRT_DIAG_ERROR, doc->file, root->line, root->col, NULL,
			      "variant file has override sections but no 'base:'; add the recipe "
			      "the overrides apply to under 'base:'");
	} else if (base->kind != SRT_Y_MAP) {
		srt_diags_add(diags, SRT_DIAG_ERROR, doc->file, base->line, base->col, "base",
			      "must be a mapping (a whole recipe), not %s",
			      srt_ynode_describe(base));
		base = NULL;
	}
	overrides = srt_xcalloc(root->n, sizeof(*overrides));
	zips = srt_xcalloc(root->n, sizeof(*zips));
	for (size_t k = 0; k < root->n; k++) {
		const struct srt_ypair *p = &root->pairs[k];
		enum srt_variant_key kind = srt_variants_key_kind(p->key->str);

		if (kind == SRT_VKEY_BASE || kind == SRT_VKEY_SCHEMA)
			continue;
		if (kind == SRT_VKEY_OTHER) {
			srt_diags_add(diags, SRT_DIAG_ERROR, doc->file, p->key->line, p->key->col,
				      p->key->str,
				      "unexpected top-level key in a variant file; put it under "
				      "'base:' or in an 'override_<name>:' or "
				      "'zip_override_<name>:' section");
			continue;
		}
		if (p->value->kind != SRT_Y_MAP) {
			srt_diags_add(diags, SRT_DIAG_ERROR, doc->file, p->value->line,
				      p->value->col, p->key->str,
				      "must be a mapping (a partial recipe), not %s",
				      srt_ynode_describe(p->value));
			continue;
		}
		if (kind == SRT_VKEY_OVERRIDE)
			overrides[nover++] = p;
		else
			zips[nzip++] = p;
	}
	if (diags->nerrors > errors || !base)
		goto out;

	/* srt-slurm's job order: override_ sections sorted, then zip_override_ sorted. */
	if (nover > 1)
		qsort(overrides, nover, sizeof(*overrides), cmp_pair_key);
	if (nzip > 1)
		qsort(zips, nzip, sizeof(*zips), cmp_pair_key);
	if (selector &&
	    !select_sections(doc, selector, overrides, &nover, zips, &nzip, &zidx, diags))
		goto out;
	for (size_t k = 0; k < nover; k++)
		expand_override(doc, base, overrides[k], &out, &nout, &cap);
	for (size_t k = 0; k < nzip; k++)
		expand_zip(doc, base, zips[k], &out, &nout, &cap, diags);
	if (diags->nerrors > errors)
		goto out;
	if (zidx != SIZE_MAX) {
		if (zidx >= nout) {
			srt_diags_add(diags, SRT_DIAG_ERROR, doc->file, zips[0]->key->line,
				      zips[0]->key->col, zips[0]->key->str,
				      "the selector '%s' asks for variant %zu, and %s has %zu "
				      "(0 to %zu)",
				      selector, zidx, zips[0]->key->str, nout, nout - 1);
			goto out;
		}
		out[0] = out[zidx];
		nout = 1;
	}

	/* With sections, base is their template, not a recipe of its own. */
	if (!nout) {
		struct srt_ynode *copy = new_map_at(doc, base, base->n + 1);

		memcpy(copy->pairs, base->pairs, base->n * sizeof(*copy->pairs));
		copy->n = base->n;
		push_root(&out, &nout, &cap, copy);
	}
	if (schema)
		for (size_t i = 0; i < nout; i++)
			if (!srt_ynode_get_pair(out[i], "schema"))
				srt_ynode_map_set(doc, out[i], "schema",
						  (struct srt_ynode *)schema);
	*roots = out;
	*n = nout;
	out = NULL;
	rc = 0;
out:
	free(out);
	free(overrides);
	free(zips);
	return rc;
}
