/*
 * util/diag.h: a list of located diagnostics (errors and warnings).
 *
 * The recipe compiler does not stop at the first problem: it collects every
 * error and warning with the file, line, column and key path it concerns,
 * so a user fixes a recipe in one round.  Printed form:
 *
 *     recipe.yaml:14:7: roles.prefill.args: <message>
 *     recipe.yaml:3:1: warning: profiling: <message>
 */
#ifndef SRT_UTIL_DIAG_H
#define SRT_UTIL_DIAG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

enum srt_diag_level { SRT_DIAG_ERROR, SRT_DIAG_WARNING };

struct srt_diag {
	enum srt_diag_level level;
	char *file; /* may be NULL */
	unsigned line, col; /* 1-based; 0 when unknown */
	char *path; /* key path such as "roles.prefill.args"; may be NULL */
	char *msg;
};

struct srt_diags {
	struct srt_diag *items;
	size_t n, cap;
	size_t nerrors, nwarnings;
};

void srt_diags_init(struct srt_diags *d);
void srt_diags_release(struct srt_diags *d);
void srt_diags_add(struct srt_diags *d, enum srt_diag_level level, const char *file,
		   unsigned line, unsigned col, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
void srt_diags_vadd(struct srt_diags *d, enum srt_diag_level level, const char *file,
		    unsigned line, unsigned col, const char *path, const char *fmt, va_list ap);
/* Format one diagnostic as printed; caller frees. */
char *srt_diag_format(const struct srt_diag *g);
/* Print every diagnostic, one per line (messages may span lines). */
void srt_diags_print(const struct srt_diags *d, FILE *out);
/* Move all of src's diagnostics to the end of dst; src is left empty. */
void srt_diags_take(struct srt_diags *dst, struct srt_diags *src);

#endif
