/*
 * util/shell.c: the one quoting function for generated shell text.
 *
 * This file owns the rule for turning bytes into a shell word; nothing else
 * in srtctl writes a value into a script any other way.  See util/shell.h
 * for the quoted form and why it is safe.
 */
#include "util/shell.h"

#include <string.h>

/* Bytes that are never special in argument position for sh or bash. */
static bool safe_byte(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	return c != '\0' && strchr("_@%+=:,./-", c) != NULL;
}

int srt_shell_quote(struct srt_buf *out, const char *s, size_t len, struct srt_error *err)
{
	const char *nul = memchr(s, '\0', len);
	bool bare = len > 0;

	if (nul)
		return srt_error_set(
			err,
			"the value contains a NUL byte at offset %zu, which no "
			"process can receive in its arguments or environment; remove it",
			(size_t)(nul - s));
	for (size_t i = 0; i < len && bare; i++)
		bare = safe_byte((unsigned char)s[i]);
	if (bare) {
		srt_buf_append(out, s, len);
		return 0;
	}
	srt_buf_putc(out, '\'');
	for (size_t i = 0; i < len; i++) {
		const char *q = memchr(s + i, '\'', len - i);
		size_t run = q ? (size_t)(q - (s + i)) : len - i;

		srt_buf_append(out, s + i, run);
		i += run;
		if (i < len)
			srt_buf_puts(out, "'\\''");
	}
	srt_buf_putc(out, '\'');
	return 0;
}

void srt_shell_word(struct srt_buf *out, const char *s)
{
	/* strlen() stops at the first NUL, so the quote cannot fail. */
	(void)srt_shell_quote(out, s, strlen(s), NULL);
}

void srt_shell_argv(struct srt_buf *out, const char *const *argv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			srt_buf_putc(out, ' ');
		srt_shell_word(out, argv[i]);
	}
}

bool srt_shell_env_name_ok(const char *name)
{
	if (!name || !*name || (*name >= '0' && *name <= '9'))
		return false;
	for (const char *p = name; *p; p++) {
		char c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return false;
	}
	return true;
}

int srt_shell_assign(struct srt_buf *out, const char *name, const char *value, size_t len,
		     struct srt_error *err)
{
	size_t mark = out->len;

	if (!srt_shell_env_name_ok(name))
		return srt_error_set(err,
				     "'%s' is not a valid environment variable name (letters, "
				     "digits and '_', not starting with a digit); rename it",
				     name ? name : "");
	srt_buf_puts(out, name);
	srt_buf_putc(out, '=');
	if (srt_shell_quote(out, value, len, err) < 0) {
		out->len = mark;
		if (out->cap)
			out->data[mark] = '\0';
		return srt_error_prefix(err, "environment variable '%s'", name);
	}
	return 0;
}

int srt_shell_export(struct srt_buf *out, const char *name, const char *value, size_t len,
		     struct srt_error *err)
{
	size_t mark = out->len;

	srt_buf_puts(out, "export ");
	if (srt_shell_assign(out, name, value, len, err) < 0) {
		out->len = mark;
		if (out->cap)
			out->data[mark] = '\0';
		return -1;
	}
	srt_buf_putc(out, '\n');
	return 0;
}
