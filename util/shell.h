/*
 * util/shell.h: quoting values for POSIX sh and bash.
 *
 * Every value srtctl writes into a generated shell script (a batch script,
 * an srun line, an `export`) goes through srt_shell_quote(), so that a
 * recipe value such as `$(rm -rf ~)`, a backtick, a quote, a `;` or a
 * newline reaches the process as the same bytes and is never executed.
 *
 * The quoted form is one shell word:
 *   - a non-empty value made only of [A-Za-z0-9_@%+=:,./-] is written bare
 *     (nothing in that set is special to sh or bash in argument position);
 *   - anything else is wrapped in single quotes, and each single quote in
 *     the value is written as '\'' (close, escaped quote, reopen).
 * Inside single quotes sh and bash perform no expansion at all, so every
 * other byte (newlines, `!`, `*`, `~`, backslashes, bytes that are not
 * UTF-8) passes through verbatim.  The empty string becomes ''.
 *
 * A NUL byte cannot be represented: no argv word or environment value can
 * carry one.  srt_shell_quote() reports it as an error instead of silently
 * truncating; the caller turns that into a diagnostic on the recipe value.
 */
#ifndef SRT_UTIL_SHELL_H
#define SRT_UTIL_SHELL_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

/*
 * Append `len` bytes of `s`, quoted as one shell word, to `out`.
 * Returns 0, or -1 (leaving `out` unchanged) when s holds a NUL byte; the
 * message in err names the offset and says what to do.
 */
int srt_shell_quote(struct srt_buf *out, const char *s, size_t len, struct srt_error *err);

/*
 * Append a NUL-terminated string as one quoted word.  A C string cannot
 * contain a NUL, so this cannot fail.
 */
void srt_shell_word(struct srt_buf *out, const char *s);

/* Append argv[0..n) as quoted words separated by single spaces. */
void srt_shell_argv(struct srt_buf *out, const char *const *argv, size_t n);

/* Is `name` usable as an environment variable name ([A-Za-z_][A-Za-z0-9_]*)? */
bool srt_shell_env_name_ok(const char *name);

/*
 * Append the word NAME=<quoted value> (for `env NAME=value ...` or a bash
 * array).  Returns -1 with a message in err when the name is not a valid
 * variable name or the value holds a NUL byte; `out` is then unchanged.
 */
int srt_shell_assign(struct srt_buf *out, const char *name, const char *value, size_t len,
		     struct srt_error *err);

/*
 * Append the line `export NAME=<quoted value>\n`.  Fails like
 * srt_shell_assign().
 */
int srt_shell_export(struct srt_buf *out, const char *name, const char *value, size_t len,
		     struct srt_error *err);

#endif
