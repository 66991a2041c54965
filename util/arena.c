/* util/arena.c: bump allocation in chained blocks. */
#include "util/arena.h"
#include "util/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_SIZE 16384
#define ALIGN 16

struct srt_arena_block {
	struct srt_arena_block *next;
	size_t used;
	size_t size;
	_Alignas(ALIGN) unsigned char data[];
};

void srt_arena_init(struct srt_arena *a)
{
	a->head = NULL;
	a->total = 0;
}

void srt_arena_release(struct srt_arena *a)
{
	struct srt_arena_block *b = a->head;

	while (b) {
		struct srt_arena_block *next = b->next;

		free(b);
		b = next;
	}
	srt_arena_init(a);
}

void *srt_arena_alloc(struct srt_arena *a, size_t n)
{
	struct srt_arena_block *b = a->head;
	size_t need = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	void *p;

	if (!need)
		need = ALIGN;
	if (!b || b->size - b->used < need) {
		size_t size = need > BLOCK_SIZE ? need : BLOCK_SIZE;

		b = srt_xmalloc(sizeof(*b) + size);
		b->size = size;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	p = b->data + b->used;
	b->used += need;
	a->total += need;
	memset(p, 0, need);
	return p;
}

char *srt_arena_strndup(struct srt_arena *a, const char *s, size_t n)
{
	char *p = srt_arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *srt_arena_strdup(struct srt_arena *a, const char *s)
{
	return srt_arena_strndup(a, s, strlen(s));
}

char *srt_arena_printf(struct srt_arena *a, const char *fmt, ...)
{
	va_list ap, cp;
	char *p;
	int n;

	va_start(ap, fmt);
	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		n = 0;
	p = srt_arena_alloc(a, (size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
