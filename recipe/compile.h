/*
 * recipe/compile.h: file -> validated recipes, the one pipeline every verb uses.
 *
 * srt_compile_file() reads a YAML file, refuses the v1 layout (naming
 * `srtctl migrate`), expands a variant file (`base:` plus `zip_override_*:`
 * sections) into one recipe per variant, parses and validates each.
 * Reading the file is the only I/O.
 */
#ifndef SRT_RECIPE_COMPILE_H
#define SRT_RECIPE_COMPILE_H

#include "recipe/cluster.h"
#include "recipe/model.h"

struct srt_compiled {
	struct srt_ydoc *doc; /* owns every recipe below */
	struct srt_recipe **recipes;
	size_t n;
};

/*
 * Compile `path` ("-" for stdin).  Always fills *out (release it with
 * srt_compiled_release()); returns the number of errors added to diags
 * (0 means every recipe in *out is valid).
 */
size_t srt_compile_file(const char *path, const struct srt_cluster *cluster,
			struct srt_compiled *out, struct srt_diags *diags);

/* The same for bytes already in memory (used by tests and the fuzzer). */
size_t srt_compile_bytes(const char *data, size_t len, const char *file,
			 const struct srt_cluster *cluster, struct srt_compiled *out,
			 struct srt_diags *diags);

/*
 * The same, where `file` names the text in diagnostics but the default
 * recipe name (a recipe without `name:`) comes from `name_from`, a path
 * whose stem is used (migrate checks its output as "F (migrated)", and the
 * name must still be F's stem).
 */
size_t srt_compile_bytes_named(const char *data, size_t len, const char *file,
			       const char *name_from, const struct srt_cluster *cluster,
			       struct srt_compiled *out, struct srt_diags *diags);

/*
 * srt_compile_file() and srt_compile_bytes() of only the variants
 * `selector` picks (srt-slurm's `-f FILE:SELECTOR`; NULL: all of them; see
 * srt_variants_expand_selected()).
 */
size_t srt_compile_file_selected(const char *path, const char *selector,
				 const struct srt_cluster *cluster, struct srt_compiled *out,
				 struct srt_diags *diags);
size_t srt_compile_bytes_selected(const char *data, size_t len, const char *file,
				  const char *selector, const struct srt_cluster *cluster,
				  struct srt_compiled *out, struct srt_diags *diags);

void srt_compiled_release(struct srt_compiled *c);

/* "dir/my-recipe.yaml" -> "my-recipe" (caller frees). */
char *srt_file_stem(const char *path);

#endif
