/*
 * recipe/yaml.h: a YAML document as a tree of located nodes.
 *
 * srt_ydoc_parse() reads one YAML document with libyaml into a tree whose
 * nodes remember their line and column.  It resolves anchors and aliases
 * (an alias is the same node, shared), applies `<<` merge keys (explicit
 * keys win over merged ones; earlier merge sources win over later ones),
 * and rejects duplicate keys, non-scalar keys, multi-document streams,
 * documents over SRT_YAML_MAX_BYTES or with more than SRT_YAML_MAX_NODES
 * nodes, and alias "bombs" whose expansion would exceed SRT_YAML_MAX_NODES.
 *
 * Every node and string belongs to the document's arena and is freed by
 * srt_ydoc_free(); nothing in the tree is freed on its own.
 *
 * Plain scalars are typed by the YAML 1.2 core schema (null, true/false,
 * integers, floats); quoted and block scalars are always strings.
 */
#ifndef SRT_RECIPE_YAML_H
#define SRT_RECIPE_YAML_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/diag.h"

/*
 * Bounds of one document: its bytes; the nodes (keys, values, list items)
 * written in it ("the document is too large"); the nodes it expands to
 * through aliases and merge keys (the billion-laughs guard, reported as an
 * alias expansion); its nesting.
 */
#define SRT_YAML_MAX_BYTES (16u * 1024u * 1024u)
#define SRT_YAML_MAX_NODES 1000000u
#define SRT_YAML_MAX_DEPTH 200u

enum srt_ykind { SRT_Y_SCALAR, SRT_Y_MAP, SRT_Y_SEQ };

/* The resolved type of a scalar. */
enum srt_ytype { SRT_YT_NULL, SRT_YT_BOOL, SRT_YT_INT, SRT_YT_FLOAT, SRT_YT_STR };

struct srt_ynode;

struct srt_ypair {
	struct srt_ynode *key; /* always a scalar */
	struct srt_ynode *value;
};

struct srt_ynode {
	enum srt_ykind kind;
	unsigned line, col; /* 1-based position of the node's first character */
	bool plain; /* scalar written without quotes or block style */
	const char *tag; /* explicit tag as written, or NULL */
	const char *anchor; /* anchor name, or NULL */
	/* SRT_Y_SCALAR */
	const char *str; /* NUL-terminated (may contain NULs before len) */
	size_t len;
	/* SRT_Y_MAP: pairs[0..n); SRT_Y_SEQ: items[0..n) */
	struct srt_ypair *pairs;
	struct srt_ynode **items;
	size_t n;
	size_t cap; /* capacity of pairs/items for built trees */
	size_t weight; /* nodes in the expanded subtree, aliases counted each time */
};

struct srt_ydoc {
	struct srt_arena arena;
	const char *file; /* name used in diagnostics (in the arena) */
	struct srt_ynode *root; /* NULL for an empty document */
	unsigned end_line; /* last line of the document, for "missing key" diagnostics */
};

/*
 * Parse `len` bytes of YAML.  `file` names the source in diagnostics.
 * Returns a new document (free with srt_ydoc_free()), or NULL after adding
 * at least one error to `diags`.
 */
struct srt_ydoc *srt_ydoc_parse(const char *data, size_t len, const char *file,
				struct srt_diags *diags);

/* Read and parse a file ("-" reads stdin).  NULL with an error in diags on failure. */
struct srt_ydoc *srt_ydoc_load_file(const char *path, struct srt_diags *diags);

void srt_ydoc_free(struct srt_ydoc *doc);

/* A new empty document with its own arena, to build trees in (e.g. migrate). */
struct srt_ydoc *srt_ydoc_new(const char *file);

/* Scalar typing. */
enum srt_ytype srt_ynode_type(const struct srt_ynode *n);
bool srt_ynode_is_null(const struct srt_ynode *n); /* NULL pointer counts as null */
/* Each returns false (and leaves *out alone) when n is not of that type. */
bool srt_ynode_bool(const struct srt_ynode *n, bool *out);
bool srt_ynode_int(const struct srt_ynode *n, int64_t *out);
bool srt_ynode_float(const struct srt_ynode *n, double *out);
/* The scalar's text when it is a scalar that is not null, else NULL. */
const char *srt_ynode_str(const struct srt_ynode *n);

/* Map lookup by key; NULL when absent or n is not a map. */
struct srt_ynode *srt_ynode_get(const struct srt_ynode *n, const char *key);
const struct srt_ypair *srt_ynode_get_pair(const struct srt_ynode *n, const char *key);

/* A human name for the node's kind ("a mapping", "a list", "a string", ...). */
const char *srt_ynode_describe(const struct srt_ynode *n);

/*
 * Convert to a jansson value: maps to objects (key order kept), lists to
 * arrays, scalars by their resolved type.  New reference; NULL only when
 * n is NULL.
 */
json_t *srt_ynode_to_json(const struct srt_ynode *n);

/* Builders for trees made in code (allocated in doc's arena). */
struct srt_ynode *srt_ynode_new_str(struct srt_ydoc *doc, const char *s, bool plain);
struct srt_ynode *srt_ynode_new_map(struct srt_ydoc *doc);
struct srt_ynode *srt_ynode_new_seq(struct srt_ydoc *doc);
/*
 * A copy of `n` whose own pairs or items may be replaced or appended to
 * without touching `n` (the children are shared; the anchor is not kept).
 */
struct srt_ynode *srt_ynode_copy_shallow(struct srt_ydoc *doc, const struct srt_ynode *n);
/* Append to a map (replacing the value when key exists) or a list. */
void srt_ynode_map_set(struct srt_ydoc *doc, struct srt_ynode *map, const char *key,
		       struct srt_ynode *value);
void srt_ynode_seq_push(struct srt_ydoc *doc, struct srt_ynode *seq, struct srt_ynode *item);
/* Remove a key from a map; returns whether it was there. */
bool srt_ynode_map_del(struct srt_ynode *map, const char *key);

#endif
