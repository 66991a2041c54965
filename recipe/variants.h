/*
 * recipe/variants.h: variant files (`base:` + `zip_override_<name>:`).
 *
 * Real recipe collections keep several variants of one recipe in a single
 * file: a `base:` recipe and any number of `zip_override_<name>:` sections.
 * Each override is a partial recipe; a list value inside an override is
 * "zipped": variant i takes element i.  Every list in one override must have
 * the same length N, and the override yields N variants (N = 1 when it has no
 * lists).  Mappings merge key by key over base; scalars and lists (after
 * zipping) replace.  A file with `base:` and no overrides yields base alone.
 */
#ifndef SRT_RECIPE_VARIANTS_H
#define SRT_RECIPE_VARIANTS_H

#include "recipe/yaml.h"
#include "util/diag.h"

/* Does this document root look like a variant file? */
bool srt_variants_is_variant_doc(const struct srt_ynode *root);

/*
 * Expand doc->root into recipe roots allocated in doc's arena.  For a plain
 * recipe *roots is a one-element array holding doc->root.  *roots is
 * malloc'd (caller frees the array, not the nodes).  Returns 0, or -1 after
 * adding errors to diags (mismatched list lengths, an override that is not a
 * mapping, ...).
 */
int srt_variants_expand(struct srt_ydoc *doc, struct srt_ynode ***roots, size_t *n,
			struct srt_diags *diags);

#endif
