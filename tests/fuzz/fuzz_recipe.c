/*
 * tests/fuzz/fuzz_recipe.c: libFuzzer target for the recipe compiler.
 *
 * Each input is treated as the bytes of a recipe file and goes through the
 * same pipeline `srtctl validate` uses (srt_compile_bytes(): YAML, variant
 * expansion, parse, validation) with the built-in cluster defaults.  A recipe
 * that compiles cleanly is also rendered, as `srtctl dry-run` would.  An
 * input in the v1 layout is migrated and written back out as YAML; that text
 * must parse again (migrate's output is always a readable document), and it
 * then goes through the same compile + render pipeline.
 *
 * Crashes, sanitizer reports and leaks are the failures: every object made
 * here is released before returning.  The input is not NUL-terminated.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "recipe/campaign.h"
#include "recipe/cluster.h"
#include "recipe/compile.h"
#include "recipe/migrate.h"
#include "recipe/model.h"
#include "recipe/render.h"
#include "recipe/script.h"
#include "recipe/variants.h"
#include "recipe/yaml.h"
#include "recipe/yemit.h"
#include "util/buf.h"
#include "util/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Render every recipe of a clean compile, as dry-run does: the plan and its
 * JSON (plan.json, read back as the agent reads it), the per-role env
 * tables, and the batch script.
 */
static void render_all(const struct srt_compiled *c, const struct srt_cluster *cluster)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct srt_recipe *r = c->recipes[i];
		struct srt_diags diags;
		struct srt_plan *plan = NULL;
		char *script = NULL;

		srt_diags_init(&diags);
		plan = srt_plan_build(r, cluster, &diags);
		for (size_t k = 0; k < diags.n; k++)
			if (!strncmp(diags.items[k].msg, "internal error: the rendered plan", 33))
				__builtin_trap(); /* a plan the agent would refuse */
		if (plan) {
			json_t *pj = srt_runplan_to_json(&plan->run);
			struct srt_runplan back;
			struct srt_error err = { 0 };

			/* What the agent reads is what was written. */
			if (srt_runplan_load(&back, pj, &err) != 0)
				__builtin_trap();
			srt_runplan_release(&back);
			json_decref(pj);
			for (int k = 0; k < SRT_ROLE_COUNT; k++) {
				struct srt_renv env = { 0 };

				if (!r->roles[k].present)
					continue;
				srt_render_role_env(&env, &plan->arena, r, cluster, &plan->layout,
						    (enum srt_role_kind)k, SRT_PH_WORKER_IP);
				json_decref(srt_renv_to_json(&env));
			}
			script =
				srt_script_render_agent(plan,
							&(struct srt_script_agent_opts){
								.job_name = r->name ? r->name : "r",
								.run_dir = "/runs/r-1-1" },
							&diags);
			free(script);
		}
		srt_plan_free(plan);
		srt_diags_release(&diags);
	}
}

/* The validate + dry-run pipeline on one input. */
static void compile_and_render(const char *data, size_t size, const char *file)
{
	struct srt_cluster cluster;
	struct srt_compiled compiled = { 0 };
	struct srt_diags diags;
	size_t nerrors;

	srt_cluster_defaults(&cluster);
	srt_diags_init(&diags);

	nerrors = srt_compile_bytes(data, size, file, &cluster, &compiled, &diags);
	if (nerrors == 0)
		render_all(&compiled, &cluster);

	/* Formatting every diagnostic exercises the located-message code too. */
	for (size_t i = 0; i < diags.n; i++)
		free(srt_diag_format(&diags.items[i]));

	srt_compiled_release(&compiled);
	srt_diags_release(&diags);
}

/*
 * Nesting depth of n, counted up to `cap` (deeper trees return cap).
 * migrate moves sections one or two levels down, so an input already near
 * SRT_YAML_MAX_DEPTH may legitimately migrate into a document the parser
 * refuses as too deep; the round-trip check skips those.
 */
static unsigned depth_of(const struct srt_ynode *n, unsigned cap)
{
	unsigned d = 0, c;

	if (!n || cap == 0)
		return 0;
	for (size_t i = 0; i < n->n && d + 1 < cap; i++) {
		if (n->kind == SRT_Y_MAP)
			c = depth_of(n->pairs[i].value, cap - 1);
		else if (n->kind == SRT_Y_SEQ)
			c = depth_of(n->items[i], cap - 1);
		else
			break;
		if (c > d)
			d = c;
	}
	return d + 1;
}

/* A root with srt-slurm's sweep: as migrate writes it (a campaign, else a variant file). */
static void sweep_roundtrip(struct srt_ydoc *doc, const struct srt_ynode *root)
{
	struct srt_diags diags;
	struct srt_ynode *out;
	struct srt_buf text;

	if (!root || root->kind != SRT_Y_MAP || !srt_ynode_get(root, "sweep"))
		return;
	srt_diags_init(&diags);
	srt_buf_init(&text);
	out = srt_campaign_from_sweep(doc, root, "fuzz.yaml", &diags);
	if (!out)
		out = srt_sweep_as_variants(doc, root, "fuzz.yaml", &diags);
	if (out && srt_yemit(out, &text) == 0)
		compile_and_render(text.data, text.len, "swept.yaml");
	srt_buf_release(&text);
	srt_diags_release(&diags);
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
	if (!srt_recipe_doc_is_v1(doc->root) && !srt_variants_is_variant_doc(doc->root)) {
		sweep_roundtrip(doc, doc->root);
		goto out;
	}
	if (depth_of(doc->root, SRT_YAML_MAX_DEPTH) > SRT_YAML_MAX_DEPTH - 8)
		goto out;

	v2 = srt_migrate_v1(doc, &diags);
	if (!v2 || !v2->root)
		goto out;
	sweep_roundtrip(v2, v2->root);
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
	/* The migrated recipe then goes through the v2 pipeline like any other. */
	compile_and_render(out.data, out.len, "migrated.yaml");

out:
	srt_ydoc_free(again);
	srt_ydoc_free(v2);
	srt_ydoc_free(doc);
	srt_buf_release(&out);
	srt_diags_release(&diags);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	compile_and_render((const char *)data, size, "fuzz.yaml");
	migrate_roundtrip((const char *)data, size);
	return 0;
}
