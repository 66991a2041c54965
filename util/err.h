/*
 * util/err.h: the error value every srtctl function fills on failure.
 *
 * A function that can fail returns 0 on success and -1 on failure, and
 * writes a message a user can act on into a caller-owned struct srt_error:
 * what failed, on which object, and what to do about it.  Callers add
 * context on the way up with srt_error_prefix().
 */
#ifndef SRT_UTIL_ERR_H
#define SRT_UTIL_ERR_H

#include <stddef.h>

#define SRT_ERROR_MAX 2048

struct srt_error {
	char msg[SRT_ERROR_MAX];
};

/* Replace the message.  Always returns -1 so callers can `return srt_error_set(...)`. */
int srt_error_set(struct srt_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prepend "context: " to the message.  Returns -1. */
int srt_error_prefix(struct srt_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Clear the message. */
void srt_error_clear(struct srt_error *err);

#endif
