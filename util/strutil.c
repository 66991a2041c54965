/* util/strutil.c: edit distance, suggestions and small predicates. */
#include "util/strutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char fold(char c)
{
	return c == '-' ? '_' : c;
}

size_t srt_edit_distance(const char *a, const char *b, size_t cap)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row, best = cap;

	if (la > 256 || lb > 256)
		return cap;
	if ((la > lb ? la - lb : lb - la) >= cap)
		return cap;
	row = calloc(lb + 1, sizeof(*row));
	if (!row)
		return cap;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1;
			size_t v = diag + cost;

			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
		}
	}
	best = row[lb] < cap ? row[lb] : cap;
	free(row);
	return best;
}

const char *srt_did_you_mean(const char *word, const char *const *candidates)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;
	size_t len = strlen(word);
	size_t limit = len / 3 > 2 ? len / 3 : 2;

	for (size_t i = 0; candidates[i]; i++) {
		size_t d = srt_edit_distance(word, candidates[i], limit + 1);

		if (d <= limit && d < best_d) {
			best = candidates[i];
			best_d = d;
		}
	}
	return best;
}

bool srt_ascii_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool srt_is_env_name(const char *s)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!srt_ascii_alnum(*s) && *s != '_')
			return false;
	return true;
}

bool srt_str_has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

bool srt_str_has_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && !strcmp(s + ls - lx, suffix);
}

bool srt_str_same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

bool srt_str_eq_dashes(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (fold(*a) != fold(*b))
			return false;
	return *a == *b;
}

const char *srt_file_kind(mode_t m)
{
	return S_ISLNK(m)  ? "a symbolic link" :
	       S_ISCHR(m)  ? "a character device" :
	       S_ISBLK(m)  ? "a block device" :
	       S_ISFIFO(m) ? "a FIFO" :
	       S_ISSOCK(m) ? "a socket" :
	       S_ISDIR(m)  ? "a directory" :
			     "not a regular file";
}
