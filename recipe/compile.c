/*
 * recipe/compile.c: the pipeline from bytes to validated recipes.
 *
 * parse YAML -> refuse v1 -> expand variants -> resolve srt-slurm's $VARs
 * (recipe/envvars.h) -> parse each recipe ->
 * apply the cluster's aliases -> validate each.  Diagnostics of every
 * variant are collected; a variant's name is prefixed to its errors so a
 * user knows which one failed.  A warning is printed once per file: one that
 * every variant raises (an ignored key in base) without a prefix, one that
 * only some raise with the first such variant's name.
 */
#include "recipe/compile.h"
#include "recipe/envvars.h"
#include "recipe/variants.h"
#include "util/buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

char *srt_file_stem(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *dot;

	base = base ? base + 1 : path;
	if (!strcmp(path, "-"))
		return srt_xstrdup("stdin");
	dot = strrchr(base, '.');
	if (dot && (!strcmp(dot, ".yaml") || !strcmp(dot, ".yml")))
		return srt_xstrndup(base, (size_t)(dot - base));
	return srt_xstrdup(base);
}

/* Warnings of one file, keyed by position, path and text (open addressing). */
struct wentry {
	char *key;    /* NULL: free slot */
	size_t count; /* variants that raised it */
	bool emitted;
};

struct wset {
	struct wentry *v;
	size_t cap; /* a power of two, at least twice the entries */
};

static char *warning_key(const struct srt_diag *g)
{
	return srt_xasprintf("%s\x1f%u\x1f%u\x1f%s\x1f%s", g->file ? g->file : "", g->line, g->col,
			     g->path ? g->path : "", g->msg);
}

static struct wentry *wset_get(struct wset *w, const char *key)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	for (i = (size_t)h & (w->cap - 1); w->v[i].key; i = (i + 1) & (w->cap - 1))
		if (!strcmp(w->v[i].key, key))
			return &w->v[i];
	w->v[i].key = srt_xstrdup(key);
	return &w->v[i];
}

/* Move one variant's diagnostics to diags: errors prefixed, warnings once. */
static void take_variant(struct srt_diags *diags, struct srt_diags *local, const char *name,
			 struct wset *w, size_t nroots)
{
	for (size_t j = 0; j < local->n; j++) {
		const struct srt_diag *g = &local->items[j];
		bool prefix = true;

		if (g->level == SRT_DIAG_WARNING) {
			char *key = warning_key(g);
			struct wentry *e = wset_get(w, key);

			free(key);
			if (e->emitted)
				continue;
			e->emitted = true;
			prefix = e->count < nroots;
		}
		if (prefix)
			srt_diags_add(diags, g->level, g->file, g->line, g->col, g->path,
				      "[variant %s] %s", name, g->msg);
		else
			srt_diags_add(diags, g->level, g->file, g->line, g->col, g->path, "%s",
				      g->msg);
	}
	srt_diags_release(local);
}

static size_t compile_doc(struct srt_ydoc *doc, const char *stem, const char *selector,
			  const struct srt_cluster *cluster, struct srt_compiled *out,
			  struct srt_diags *diags)
{
	size_t before = diags->nerrors;
	struct srt_ynode **roots = NULL;
	struct srt_diags *locals = NULL;
	const char **names = NULL;
	struct wset w = { NULL, 0 };
	size_t nroots = 0, nwarn = 0;

	out->doc = doc;
	if (doc->root && doc->root->kind == SRT_Y_MAP && srt_recipe_doc_is_v1(doc->root)) {
		const struct srt_ypair *p = srt_ynode_get_pair(doc->root, "backend");

		srt_diags_add(diags, SRT_DIAG_ERROR, doc->file, p->key->line, p->key->col,
			      "backend",
			      "this recipe uses the v1 layout ('backend:'); srtctl reads the v2 "
			      "layout (engine, roles, services). Convert it with: srtctl migrate "
			      "-f %s --in-place",
			      doc->file);
		return diags->nerrors - before;
	}
	if (srt_variants_expand_selected(doc, selector, &roots, &nroots, diags) != 0) {
		free(roots);
		return diags->nerrors - before ? diags->nerrors - before : 1;
	}
	out->recipes = srt_xcalloc(nroots ? nroots : 1, sizeof(*out->recipes));
	locals = srt_xcalloc(nroots ? nroots : 1, sizeof(*locals));
	names = srt_xcalloc(nroots ? nroots : 1, sizeof(*names));
	for (size_t i = 0; i < nroots; i++) {
		struct srt_recipe *r;

		srt_diags_init(&locals[i]);
		if (cluster)
			roots[i] = srt_recipe_expand_env(doc, roots[i], cluster->env,
							 cluster->env_strict, &locals[i]);
		r = srt_recipe_parse(doc, roots[i], stem, &locals[i]);
		if (r) {
			srt_cluster_apply(cluster, r);
			srt_recipe_validate(r, cluster, &locals[i]);
			out->recipes[out->n++] = r;
		}
		names[i] = r && r->name ? r->name : "?";
		nwarn += locals[i].nwarnings;
	}
	if (nroots == 1) {
		srt_diags_take(diags, &locals[0]);
		goto out;
	}
	/* Count, for every distinct warning, how many variants raise it. */
	for (w.cap = 16; w.cap < 2 * nwarn + 2; w.cap *= 2)
		;
	w.v = srt_xcalloc(w.cap, sizeof(*w.v));
	for (size_t i = 0; i < nroots; i++) {
		for (size_t j = 0; j < locals[i].n; j++) {
			char *key;
			struct wentry *e;

			if (locals[i].items[j].level != SRT_DIAG_WARNING)
				continue;
			key = warning_key(&locals[i].items[j]);
			e = wset_get(&w, key);
			free(key);
			if (!e->emitted) /* once per variant */
				e->count++;
			e->emitted = true;
		}
		for (size_t k = 0; k < w.cap; k++)
			w.v[k].emitted = false;
	}
	for (size_t i = 0; i < nroots; i++)
		take_variant(diags, &locals[i], names[i], &w, nroots);
out:
	for (size_t k = 0; k < w.cap; k++)
		free(w.v[k].key);
	free(w.v);
	for (size_t i = 0; i < nroots; i++)
		srt_diags_release(&locals[i]);
	free(locals);
	free(names);
	free(roots);
	return diags->nerrors - before;
}

/* Bytes named `file` in diagnostics, the default recipe name from `name_from`. */
static size_t compile_text(const char *data, size_t len, const char *file, const char *name_from,
			   const char *selector, const struct srt_cluster *cluster,
			   struct srt_compiled *out, struct srt_diags *diags)
{
	size_t before = diags->nerrors;
	struct srt_ydoc *doc;
	char *stem;

	memset(out, 0, sizeof(*out));
	doc = srt_ydoc_parse(data, len, file, diags);
	if (!doc)
		return diags->nerrors - before ? diags->nerrors - before : 1;
	stem = srt_file_stem(name_from);
	compile_doc(doc, srt_arena_strdup(&doc->arena, stem), selector, cluster, out, diags);
	free(stem);
	return diags->nerrors - before;
}

size_t srt_compile_bytes_named(const char *data, size_t len, const char *file,
			       const char *name_from, const struct srt_cluster *cluster,
			       struct srt_compiled *out, struct srt_diags *diags)
{
	return compile_text(data, len, file, name_from, NULL, cluster, out, diags);
}

size_t srt_compile_bytes(const char *data, size_t len, const char *file,
			 const struct srt_cluster *cluster, struct srt_compiled *out,
			 struct srt_diags *diags)
{
	return srt_compile_bytes_named(data, len, file, file, cluster, out, diags);
}

size_t srt_compile_bytes_selected(const char *data, size_t len, const char *file,
				  const char *selector, const struct srt_cluster *cluster,
				  struct srt_compiled *out, struct srt_diags *diags)
{
	return compile_text(data, len, file, file, selector, cluster, out, diags);
}

size_t srt_compile_file(const char *path, const struct srt_cluster *cluster,
			struct srt_compiled *out, struct srt_diags *diags)
{
	return srt_compile_file_selected(path, NULL, cluster, out, diags);
}

size_t srt_compile_file_selected(const char *path, const char *selector,
				 const struct srt_cluster *cluster, struct srt_compiled *out,
				 struct srt_diags *diags)
{
	size_t before = diags->nerrors;
	struct srt_ydoc *doc;
	char *stem;

	memset(out, 0, sizeof(*out));
	doc = srt_ydoc_load_file(path, diags);
	if (!doc)
		return diags->nerrors - before ? diags->nerrors - before : 1;
	stem = srt_file_stem(path);
	compile_doc(doc, srt_arena_strdup(&doc->arena, stem), selector, cluster, out, diags);
	free(stem);
	return diags->nerrors - before;
}

void srt_compiled_release(struct srt_compiled *c)
{
	free(c->recipes);
	srt_ydoc_free(c->doc);
	memset(c, 0, sizeof(*c));
}
