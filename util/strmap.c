/*
 * util/strmap.c: the open-addressing string index of util/strmap.h.
 *
 * FNV-1a over the key's bytes (with '-' read as '_' when folding) and a final
 * mix, linear probing, and a table at most half full, so every probe sequence ends at
 * an empty slot.
 */
#include "util/strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

static unsigned char byte(const struct srt_strmap *m, char c)
{
	return (unsigned char)(m->fold_dashes && c == '-' ? '_' : c);
}

static uint64_t hash(const struct srt_strmap *m, const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++) {
		h ^= byte(m, s[i]);
		h *= 1099511628211ull;
	}
	/* Multiplication only carries upwards: mix the high bits into the low ones we mask. */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

static bool same(const struct srt_strmap *m, const struct srt_strmap_slot *s, uint64_t h,
		 const char *key, size_t len)
{
	if (s->hash != h || s->len != len)
		return false;
	if (!m->fold_dashes)
		return !memcmp(s->key, key, len);
	for (size_t i = 0; i < len; i++)
		if (byte(m, s->key[i]) != byte(m, key[i]))
			return false;
	return true;
}

/* The slot holding the key (of hash h), or the empty slot where it would go. */
static struct srt_strmap_slot *find(const struct srt_strmap *m, uint64_t h, const char *key,
				    size_t len)
{
	size_t i = (size_t)h & (m->cap - 1);

	while (m->slots[i].key && !same(m, &m->slots[i], h, key, len))
		i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

static struct srt_strmap_slot *new_slots(struct srt_strmap *m, size_t cap)
{
	return m->arena ? srt_arena_alloc(m->arena, cap * sizeof(struct srt_strmap_slot)) :
			  srt_xcalloc(cap, sizeof(struct srt_strmap_slot));
}

static void grow(struct srt_strmap *m)
{
	struct srt_strmap_slot *old = m->slots;
	size_t oldcap = m->cap;

	m->cap = oldcap ? oldcap * 2 : 16;
	m->slots = new_slots(m, m->cap);
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].key)
			*find(m, old[i].hash, old[i].key, old[i].len) = old[i];
	if (!m->arena)
		free(old);
}

void srt_strmap_init(struct srt_strmap *m, struct srt_arena *a, bool fold_dashes)
{
	memset(m, 0, sizeof(*m));
	m->arena = a;
	m->fold_dashes = fold_dashes;
}

void srt_strmap_release(struct srt_strmap *m)
{
	if (!m->arena)
		free(m->slots);
	m->slots = NULL;
	m->cap = 0;
	m->n = 0;
}

bool srt_strmap_addn(struct srt_strmap *m, const char *key, size_t len, size_t value,
		     size_t *existing)
{
	uint64_t h = hash(m, key, len);
	struct srt_strmap_slot *s;

	if ((m->n + 1) * 2 > m->cap)
		grow(m);
	s = find(m, h, key, len);
	if (s->key) {
		if (existing)
			*existing = s->value;
		return false;
	}
	s->key = key;
	s->len = len;
	s->value = value;
	s->hash = h;
	m->n++;
	return true;
}

bool srt_strmap_add(struct srt_strmap *m, const char *key, size_t value, size_t *existing)
{
	return srt_strmap_addn(m, key, strlen(key), value, existing);
}

bool srt_strmap_getn(const struct srt_strmap *m, const char *key, size_t len, size_t *value)
{
	const struct srt_strmap_slot *s;

	if (!m->cap)
		return false;
	s = find(m, hash(m, key, len), key, len);
	if (!s->key)
		return false;
	if (value)
		*value = s->value;
	return true;
}

bool srt_strmap_get(const struct srt_strmap *m, const char *key, size_t *value)
{
	return srt_strmap_getn(m, key, strlen(key), value);
}
