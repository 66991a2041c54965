/*
 * util/arena.h: a bump allocator for objects that live and die together.
 *
 * A parsed recipe (its YAML tree, strings and model) is allocated from one
 * arena and freed in one call, so the parser and validator never track
 * individual ownership.  Allocation aborts on out-of-memory.
 */
#ifndef SRT_UTIL_ARENA_H
#define SRT_UTIL_ARENA_H

#include <stddef.h>

struct srt_arena_block;

struct srt_arena {
	struct srt_arena_block *head;
	size_t total; /* bytes handed out, for limits and benchmarks */
};

void srt_arena_init(struct srt_arena *a);
void srt_arena_release(struct srt_arena *a);
/* Zeroed memory, aligned for any type; lives until srt_arena_release(). */
void *srt_arena_alloc(struct srt_arena *a, size_t n);
char *srt_arena_strndup(struct srt_arena *a, const char *s, size_t n);
char *srt_arena_strdup(struct srt_arena *a, const char *s);
char *srt_arena_printf(struct srt_arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
