/* util/diag.c: collecting and printing located diagnostics. */
#include "util/diag.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

void srt_diags_init(struct srt_diags *d)
{
	memset(d, 0, sizeof(*d));
}

void srt_diags_release(struct srt_diags *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->items[i].file);
		free(d->items[i].path);
		free(d->items[i].msg);
	}
	free(d->items);
	srt_diags_init(d);
}

void srt_diags_vadd(struct srt_diags *d, enum srt_diag_level level, const char *file,
		    unsigned line, unsigned col, const char *path, const char *fmt, va_list ap)
{
	struct srt_diag *g;
	struct srt_buf b;

	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 8;
		d->items = srt_xrealloc(d->items, d->cap * sizeof(*d->items));
	}
	g = &d->items[d->n++];
	g->level = level;
	g->file = file ? srt_xstrdup(file) : NULL;
	g->line = line;
	g->col = col;
	g->path = path && *path ? srt_xstrdup(path) : NULL;
	srt_buf_init(&b);
	srt_buf_vprintf(&b, fmt, ap);
	g->msg = srt_buf_detach(&b);
	if (level == SRT_DIAG_ERROR)
		d->nerrors++;
	else
		d->nwarnings++;
}

void srt_diags_add(struct srt_diags *d, enum srt_diag_level level, const char *file,
		   unsigned line, unsigned col, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	srt_diags_vadd(d, level, file, line, col, path, fmt, ap);
	va_end(ap);
}

char *srt_diag_format(const struct srt_diag *g)
{
	struct srt_buf b;

	srt_buf_init(&b);
	if (g->file) {
		srt_buf_puts(&b, g->file);
		if (g->line)
			srt_buf_printf(&b, ":%u:%u", g->line, g->col);
		srt_buf_puts(&b, ": ");
	}
	if (g->level == SRT_DIAG_WARNING)
		srt_buf_puts(&b, "warning: ");
	if (g->path)
		srt_buf_printf(&b, "%s: ", g->path);
	srt_buf_puts(&b, g->msg);
	return srt_buf_detach(&b);
}

void srt_diags_print(const struct srt_diags *d, FILE *out)
{
	for (size_t i = 0; i < d->n; i++) {
		char *s = srt_diag_format(&d->items[i]);

		fprintf(out, "%s\n", s);
		free(s);
	}
}

void srt_diags_take(struct srt_diags *dst, struct srt_diags *src)
{
	for (size_t i = 0; i < src->n; i++) {
		struct srt_diag *g = &src->items[i];

		if (dst->n == dst->cap) {
			dst->cap = dst->cap ? dst->cap * 2 : 8;
			dst->items = srt_xrealloc(dst->items, dst->cap * sizeof(*dst->items));
		}
		dst->items[dst->n++] = *g;
		if (g->level == SRT_DIAG_ERROR)
			dst->nerrors++;
		else
			dst->nwarnings++;
	}
	free(src->items);
	srt_diags_init(src);
}
