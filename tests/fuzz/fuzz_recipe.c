/*
 * tests/fuzz/fuzz_recipe.c: libFuzzer target for the recipe compiler.
 *
 * Each input is treated as the bytes of a recipe file and goes through the
 * same pipeline `srtctl validate` uses (srt_compile_bytes(): YAML, variant
 * expansion, parse, validation) with the built-in cluster defaults.  A recipe
 * that compiles cleanly is also rendered, as `srtctl dry-run` would.  An
 * input in the v1 layout is migrated, written back out as YAML, and that text
 * must parse again (migrate's output is always a readable document).
 *
 * Crashes, sanitizer reports and leaks are the failures: every object made
 * here is released before returning.  The input is not NUL-terminated.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "recipe/cluster.h"
#include "recipe/compile.h"
#include "recipe/migrate.h"
#include "recipe/model.h"
#include "recipe/variants.h"
#include "recipe/yaml.h"
#include "recipe/yemit.h"
#include "util/buf.h"
#include "util/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Render every recipe of a clean compile, as dry-run does.
 *
 * TODO(render): call the renderer once recipe/render.h and recipe/script.h
 * exist (env table, store_config JSON, batch script for each recipe in c),
 * freeing everything it returns.
 */
static void render_all(const struct srt_compiled *c, const struct srt_cluster *cluster)
{
	(void)c;
	(void)cluster;
}

/* v1 input: migrate, emit, and check that the emitted text parses again. */
static void migrate_roundtrip(const char *data, size_t size)
{
	struct srt_diags diags;
	struct srt_ydoc *doc = NULL, *v2 = NULL, *again = NULL;
	struct srt_buf out;

	srt_diags_init(&diags);
	srt_buf_init(&out);

	doc = srt_ydoc_parse(data, size, "fuzz.yaml", &diags);
	if (!doc || !doc->root)
		goto out;
	if (!srt_recipe_doc_is_v1(doc->root) && !srt_variants_is_variant_doc(doc->root))
		goto out;

	v2 = srt_migrate_v1(doc, &diags);
	if (!v2 || !v2->root)
		goto out;
	if (srt_yemit(v2->root, &out) != 0)
		goto out;

	srt_diags_release(&diags);
	srt_diags_init(&diags);
	again = srt_ydoc_parse(out.data, out.len, "migrated.yaml", &diags);
	if (!again) {
		/* migrate wrote YAML that does not read back: a bug. */
		srt_diags_print(&diags, stderr);
		fprintf(stderr, "fuzz_recipe: migrated output does not parse:\n%s\n", out.data);
		abort();
	}

out:
	srt_ydoc_free(again);
	srt_ydoc_free(v2);
	srt_ydoc_free(doc);
	srt_buf_release(&out);
	srt_diags_release(&diags);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct srt_cluster cluster;
	struct srt_compiled compiled = { 0 };
	struct srt_diags diags;
	size_t nerrors;

	srt_cluster_defaults(&cluster);
	srt_diags_init(&diags);

	nerrors = srt_compile_bytes((const char *)data, size, "fuzz.yaml", &cluster, &compiled,
				    &diags);
	if (nerrors == 0)
		render_all(&compiled, &cluster);

	/* Formatting every diagnostic exercises the located-message code too. */
	for (size_t i = 0; i < diags.n; i++)
		free(srt_diag_format(&diags.items[i]));

	srt_compiled_release(&compiled);
	srt_diags_release(&diags);

	migrate_roundtrip((const char *)data, size);
	return 0;
}
