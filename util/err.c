/* util/err.c: formatting of struct srt_error messages. */
#include "util/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int srt_error_set(struct srt_error *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int srt_error_prefix(struct srt_error *err, const char *fmt, ...)
{
	char prefix[SRT_ERROR_MAX];
	char old[SRT_ERROR_MAX];
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	/* Truncation is acceptable: the message stays NUL-terminated. */
	if (snprintf(err->msg, sizeof(err->msg), "%.1000s: %.1000s", prefix, old) < 0)
		err->msg[0] = '\0';
	return -1;
}

void srt_error_clear(struct srt_error *err)
{
	if (err)
		err->msg[0] = '\0';
}
