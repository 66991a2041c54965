/* util/buf.c: growable buffers and aborting allocators. */
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char empty_buf[1];

void *srt_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fputs("srtctl: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *srt_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		fputs("srtctl: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *srt_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fputs("srtctl: out of memory\n", stderr);
		abort();
	}
	return q;
}

char *srt_xstrdup(const char *s)
{
	return srt_xstrndup(s, strlen(s));
}

char *srt_xstrndup(const char *s, size_t n)
{
	char *p = srt_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *srt_xvasprintf(const char *fmt, va_list ap)
{
	struct srt_buf b;

	srt_buf_init(&b);
	srt_buf_vprintf(&b, fmt, ap);
	return srt_buf_detach(&b);
}

char *srt_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = srt_xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void srt_buf_init(struct srt_buf *b)
{
	b->data = empty_buf;
	b->len = 0;
	b->cap = 0;
}

void srt_buf_release(struct srt_buf *b)
{
	if (b->cap)
		free(b->data);
	srt_buf_init(b);
}

void srt_buf_reset(struct srt_buf *b)
{
	b->len = 0;
	if (b->cap)
		b->data[0] = '\0';
}

static void grow(struct srt_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	size_t cap;

	if (need <= b->cap)
		return;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	if (b->cap) {
		b->data = srt_xrealloc(b->data, cap);
	} else {
		b->data = srt_xmalloc(cap);
		b->data[0] = '\0';
	}
	b->cap = cap;
}

void srt_buf_append(struct srt_buf *b, const char *data, size_t len)
{
	if (!len)
		return;
	grow(b, len);
	memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void srt_buf_puts(struct srt_buf *b, const char *s)
{
	srt_buf_append(b, s, strlen(s));
}

void srt_buf_putc(struct srt_buf *b, char c)
{
	srt_buf_append(b, &c, 1);
}

void srt_buf_vprintf(struct srt_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n <= 0)
		return;
	grow(b, (size_t)n);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void srt_buf_printf(struct srt_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	srt_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void srt_buf_list_item(struct srt_buf *b, size_t *n, size_t max, const char *fmt, ...)
{
	va_list ap;

	if (++*n > max)
		return;
	if (*n > 1)
		srt_buf_puts(b, ", ");
	va_start(ap, fmt);
	srt_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void srt_buf_list_end(struct srt_buf *b, size_t n, size_t max)
{
	if (n > max)
		srt_buf_printf(b, " and %zu more", n - max);
}

char *srt_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct srt_buf b;
	char chunk[4096];
	size_t n;
	int bad;

	if (!f)
		return NULL;
	srt_buf_init(&b);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		srt_buf_append(&b, chunk, n);
	bad = ferror(f);
	fclose(f);
	if (bad) {
		srt_buf_release(&b);
		return NULL;
	}
	if (len)
		*len = b.len;
	return srt_buf_detach(&b);
}

char *srt_buf_detach(struct srt_buf *b)
{
	char *p;

	if (!b->cap)
		return srt_xstrdup("");
	p = b->data;
	srt_buf_init(b);
	return p;
}

void srt_buf_html(struct srt_buf *b, const char *s)
{
	if (!s)
		return;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&':
			srt_buf_puts(b, "&amp;");
			break;
		case '<':
			srt_buf_puts(b, "&lt;");
			break;
		case '>':
			srt_buf_puts(b, "&gt;");
			break;
		case '"':
			srt_buf_puts(b, "&quot;");
			break;
		case '\'':
			srt_buf_puts(b, "&#39;");
			break;
		default:
			if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
				srt_buf_puts(b, "\xef\xbf\xbd"); /* U+FFFD */
			else
				srt_buf_putc(b, (char)c);
		}
	}
}
