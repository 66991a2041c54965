/*
 * recipe/variants.h: variant files (`base:` + `override_<name>:` and
 * `zip_override_<name>:` sections), expanded as srt-slurm expands them.
 *
 * A variant file holds one `base:` recipe and any number of sections:
 *
 *   override_<s>:      a partial recipe deep-merged over base; one recipe,
 *                      named <base name>_<s> unless the section sets `name`.
 *   zip_override_<g>:  a partial recipe whose list values are zipped: every
 *                      list has the same length N, or length 1 (broadcast to
 *                      all N); variant i takes element i of each list (a list
 *                      of lists gives each variant a literal list).  N
 *                      recipes, named <base name>_<g>_<i> unless the section
 *                      gives `name` as a list.  A section without lists is an
 *                      error (there is nothing to zip).
 *
 * Deep merge: mappings merge key by key (keys base does not mention are
 * kept); lists and scalars replace; a null value deletes the key.  The
 * recipes come out as srt-slurm orders its jobs: every override_ section in
 * sorted key order, then every zip_override_ section in sorted key order
 * (its variants by index).  Base itself is not a recipe of the file unless
 * the file has no sections at all.  A top-level `schema:` beside base is
 * carried into every recipe that does not set its own.  When base has no
 * `name`, generated names start with "unnamed".
 */
#ifndef SRT_RECIPE_VARIANTS_H
#define SRT_RECIPE_VARIANTS_H

#include "recipe/yaml.h"
#include "util/diag.h"

enum srt_variant_key {
	SRT_VKEY_OTHER,	   /* not a key of a variant file */
	SRT_VKEY_BASE,	   /* base */
	SRT_VKEY_SCHEMA,   /* schema (beside base) */
	SRT_VKEY_OVERRIDE, /* override_<name> */
	SRT_VKEY_ZIP,	   /* zip_override_<name> */
};

/* What a top-level key of a variant file is (for migrate and the expander). */
enum srt_variant_key srt_variants_key_kind(const char *key);

/* Does this document root look like a variant file (base or a section)? */
bool srt_variants_is_variant_doc(const struct srt_ynode *root);

/*
 * Expand doc->root into recipe roots allocated in doc's arena.  For a plain
 * recipe *roots is a one-element array holding doc->root.  *roots is
 * malloc'd (caller frees the array, not the nodes).  Base is never modified:
 * the recipes share its untouched subtrees.  Returns 0, or -1 after adding
 * errors to diags (no base, a section that is not a mapping, zip lists of
 * incompatible lengths, an empty list, a zip section without lists, a stray
 * top-level key).
 */
int srt_variants_expand(struct srt_ydoc *doc, struct srt_ynode ***roots, size_t *n,
			struct srt_diags *diags);

/*
 * The same, keeping only what srt-slurm's `-f FILE:SELECTOR` picks (NULL:
 * everything): `base` (base alone, as a recipe), `override_<s>` (that
 * variant), `zip_override_<g>` (all of its variants), `zip_override_<g>[N]`
 * (its variant N, 0-based, under its usual name <base>_<g>_<N>), or a glob
 * (`*`, `?`, `[...]`) over the section names.  A selector that picks
 * nothing, or one on a file that is not a variant file, is an error that
 * lists what the file has.
 */
int srt_variants_expand_selected(struct srt_ydoc *doc, const char *selector,
				 struct srt_ynode ***roots, size_t *n, struct srt_diags *diags);

#endif
