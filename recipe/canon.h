/*
 * recipe/canon.h: the canonical form of a recipe's spec.
 *
 * The state database stores what a user applied as canonical JSON: the
 * recipe's YAML tree (after anchors, aliases and merge keys are resolved)
 * converted to JSON with object keys sorted bytewise and no whitespace.  Key
 * order, comments, anchors, quoting of strings and layout therefore do not
 * change it; a changed value, key or list order does.  Its SHA-256 is the
 * spec hash, and `srtctl apply` bumps a recipe's generation only when it
 * changes.  The pretty form (same sorting, two-space indent, one value per
 * line) is what `srtctl diff` compares line by line.
 */
#ifndef SRT_RECIPE_CANON_H
#define SRT_RECIPE_CANON_H

#include "recipe/yaml.h"
#include "util/err.h"

/*
 * The canonical (compact, sorted) JSON of `root`.  Caller frees.  NULL with
 * `err` set when root is NULL or holds text jansson cannot encode.
 */
char *srt_canon_spec(const struct srt_ynode *root, struct srt_error *err);

/* The pretty form of `root`, ending in a newline.  Caller frees; NULL as above. */
char *srt_canon_pretty(const struct srt_ynode *root, struct srt_error *err);

/*
 * Re-format stored JSON (a canonical spec from the database) into the
 * pretty form.  Caller frees; NULL with `err` set when `spec` is not JSON.
 */
char *srt_canon_pretty_json(const char *spec, struct srt_error *err);

/* The spec hash: SHA-256 of the canonical JSON, 64 lowercase hex digits. */
void srt_canon_hash(const char *spec, char out[65]);

#endif
