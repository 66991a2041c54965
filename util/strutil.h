/*
 * util/strutil.h: small string helpers with no dependencies.
 */
#ifndef SRT_UTIL_STRUTIL_H
#define SRT_UTIL_STRUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Levenshtein distance, capped at `cap` (returns cap when it is at least cap). */
size_t srt_edit_distance(const char *a, const char *b, size_t cap);

/*
 * The candidate closest to `word` when it is close enough to be a likely
 * typo (distance <= 2, or <= len/3 for long words; dash/underscore
 * differences are free), else NULL.  `candidates` ends with NULL.
 */
const char *srt_did_you_mean(const char *word, const char *const *candidates);

/* Is c an ASCII letter or digit (whatever the locale)? */
bool srt_ascii_alnum(char c);

/* Is s a shell-safe environment variable name ([A-Za-z_][A-Za-z0-9_]*)? */
bool srt_is_env_name(const char *s);

bool srt_str_has_prefix(const char *s, const char *prefix);
bool srt_str_has_suffix(const char *s, const char *suffix);

/* Equal strings, or both NULL. */
bool srt_str_same(const char *a, const char *b);

/* Compare treating '-' and '_' as equal. */
bool srt_str_eq_dashes(const char *a, const char *b);

/*
 * What a file that is not a regular file is, in words for an error message
 * ("a symbolic link", "a FIFO", ...), from its st_mode.
 */
const char *srt_file_kind(mode_t m);

#endif
