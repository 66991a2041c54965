/*
 * recipe/compile.c: the pipeline from bytes to validated recipes.
 *
 * parse YAML -> refuse v1 -> expand variants -> parse each recipe ->
 * validate each.  Diagnostics of every variant are collected; a variant's
 * name is prefixed to its diagnostics so a user knows which one failed.
 */
#include "recipe/compile.h"
#include "recipe/variants.h"
#include "util/buf.h"

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

static size_t compile_doc(struct srt_ydoc *doc, const char *stem,
			  const struct srt_cluster *cluster, struct srt_compiled *out,
			  struct srt_diags *diags)
{
	size_t before = diags->nerrors;
	struct srt_ynode **roots = NULL;
	size_t nroots = 0;

	out->doc = doc;
	if (doc->root && doc->root->kind == SRT_Y_MAP && srt_recipe_doc_is_v1(doc->root)) {
		const struct srt_ypair *p = srt_ynode_get_pair(doc->root, "backend");

		srt_diags_add(diags, SRT_DIAG_ERROR, doc->file, p->key->line, p->key->col, "backend",
			      "this recipe uses the v1 layout ('backend:'); srtctl reads the v2 "
			      "layout (engine, roles, services). Convert it with: srtctl migrate "
			      "-f %s --in-place",
			      doc->file);
		return diags->nerrors - before;
	}
	if (srt_variants_expand(doc, &roots, &nroots, diags) != 0) {
		free(roots);
		return diags->nerrors - before ? diags->nerrors - before : 1;
	}
	out->recipes = srt_xcalloc(nroots ? nroots : 1, sizeof(*out->recipes));
	for (size_t i = 0; i < nroots; i++) {
		struct srt_diags local;
		struct srt_recipe *r;

		srt_diags_init(&local);
		r = srt_recipe_parse(doc, roots[i], stem, &local);
		if (r) {
			srt_recipe_validate(r, cluster, &local);
			out->recipes[out->n++] = r;
		}
		if (nroots > 1) {
			/* Say which variant a diagnostic is about. */
			for (size_t j = 0; j < local.n; j++) {
				struct srt_diag *g = &local.items[j];
				char *msg = srt_xasprintf("[variant %s] %s",
							  r && r->name ? r->name : "?", g->msg);

				free(g->msg);
				g->msg = msg;
			}
		}
		srt_diags_take(diags, &local);
	}
	free(roots);
	return diags->nerrors - before;
}

size_t srt_compile_bytes(const char *data, size_t len, const char *file,
			 const struct srt_cluster *cluster, struct srt_compiled *out,
			 struct srt_diags *diags)
{
	size_t before = diags->nerrors;
	struct srt_ydoc *doc;
	char *stem;

	memset(out, 0, sizeof(*out));
	doc = srt_ydoc_parse(data, len, file, diags);
	if (!doc)
		return diags->nerrors - before ? diags->nerrors - before : 1;
	stem = srt_file_stem(file);
	compile_doc(doc, srt_arena_strdup(&doc->arena, stem), cluster, out, diags);
	free(stem);
	return diags->nerrors - before;
}

size_t srt_compile_file(const char *path, const struct srt_cluster *cluster,
			struct srt_compiled *out, struct srt_diags *diags)
{
	size_t before = diags->nerrors;
	struct srt_ydoc *doc;
	char *stem;

	memset(out, 0, sizeof(*out));
	doc = srt_ydoc_load_file(path, diags);
	if (!doc)
		return diags->nerrors - before ? diags->nerrors - before : 1;
	stem = srt_file_stem(path);
	compile_doc(doc, srt_arena_strdup(&doc->arena, stem), cluster, out, diags);
	free(stem);
	return diags->nerrors - before;
}

void srt_compiled_release(struct srt_compiled *c)
{
	free(c->recipes);
	srt_ydoc_free(c->doc);
	memset(c, 0, sizeof(*c));
}
