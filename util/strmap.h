/*
 * util/strmap.h: an index from strings to numbers (positions in an array).
 *
 * The recipe code looks names up in mappings that a hostile recipe can make
 * large (env keys, args, service names); a linear scan per lookup makes
 * validation and rendering quadratic.  This is an open-addressing hash table
 * of (key, value) pairs: lookups and inserts cost O(key length) on average.
 * Keys are borrowed (not copied) and compared by their bytes, with a length,
 * so keys holding NUL bytes work; with `fold_dashes`, '-' and '_' are the
 * same byte (engine flags: `tensor-parallel-size` == `tensor_parallel_size`).
 *
 * Memory comes from an arena when one is given at init (nothing to free;
 * a table outgrown leaves its old slots in the arena, at most as much again)
 * or from the heap (free with srt_strmap_release()).  A zeroed struct is an
 * empty heap table that does not fold dashes.  Allocation aborts on
 * out-of-memory, like the rest of util/.
 */
#ifndef SRT_UTIL_STRMAP_H
#define SRT_UTIL_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"

struct srt_strmap_slot {
	const char *key; /* NULL: empty */
	size_t len;
	size_t value;
	uint64_t hash; /* of key: compared first, and kept for growing */
};

struct srt_strmap {
	struct srt_strmap_slot *slots;
	size_t cap; /* a power of two, or 0 */
	size_t n;
	struct srt_arena *arena; /* NULL: the heap */
	bool fold_dashes;
};

/* An empty table; `a` may be NULL (heap). */
void srt_strmap_init(struct srt_strmap *m, struct srt_arena *a, bool fold_dashes);
/* Frees heap slots; a no-op for an arena table.  The table is empty afterwards. */
void srt_strmap_release(struct srt_strmap *m);

/*
 * Add key -> value unless the key is there.  Returns true when added; false
 * when present, with its value in *existing (when existing is not NULL).
 */
bool srt_strmap_addn(struct srt_strmap *m, const char *key, size_t len, size_t value,
		     size_t *existing);
bool srt_strmap_add(struct srt_strmap *m, const char *key, size_t value, size_t *existing);

/* The key's value in *value; false when absent. */
bool srt_strmap_getn(const struct srt_strmap *m, const char *key, size_t len, size_t *value);
bool srt_strmap_get(const struct srt_strmap *m, const char *key, size_t *value);

#endif
