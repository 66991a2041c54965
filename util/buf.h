/*
 * util/buf.h: a growable, always NUL-terminated byte buffer.
 *
 * struct srt_buf is embedded by value: srt_buf_init() before use,
 * srt_buf_release() to free what it holds.  Appends abort on allocation
 * failure (srtctl treats out-of-memory as fatal, like git's xmalloc).
 */
#ifndef SRT_UTIL_BUF_H
#define SRT_UTIL_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct srt_buf {
	char *data; /* NUL-terminated; never NULL after srt_buf_init() */
	size_t len;
	size_t cap;
};

void srt_buf_init(struct srt_buf *b);
void srt_buf_release(struct srt_buf *b);
void srt_buf_reset(struct srt_buf *b);
void srt_buf_append(struct srt_buf *b, const char *data, size_t len);
void srt_buf_puts(struct srt_buf *b, const char *s);
void srt_buf_putc(struct srt_buf *b, char c);
void srt_buf_printf(struct srt_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void srt_buf_vprintf(struct srt_buf *b, const char *fmt, va_list ap);
/*
 * A ", "-separated list of at most max items: items past max are only
 * counted in *n, and srt_buf_list_end() then adds " and K more".
 */
void srt_buf_list_item(struct srt_buf *b, size_t *n, size_t max, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void srt_buf_list_end(struct srt_buf *b, size_t n, size_t max);
/*
 * Append s escaped for HTML text and attribute values (& < > " '), control
 * characters but tab and newline as U+FFFD; nothing for NULL.
 */
void srt_buf_html(struct srt_buf *b, const char *s);
/* Hand the storage to the caller (who frees it with free()); b is reset. */
char *srt_buf_detach(struct srt_buf *b);
/*
 * The whole file at `path`, NUL-terminated, its length in *len (len may be
 * NULL); unbounded: for tests and tools reading files they trust.  NULL
 * with errno set when it cannot be opened or read.  Caller frees.
 */
char *srt_read_file(const char *path, size_t *len);

/* Allocation helpers that abort on failure. */
void *srt_xmalloc(size_t n);
void *srt_xcalloc(size_t n, size_t size);
void *srt_xrealloc(void *p, size_t n);
char *srt_xstrdup(const char *s);
char *srt_xstrndup(const char *s, size_t n);
char *srt_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same with a va_list (ap is consumed).  Caller frees. */
char *srt_xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
