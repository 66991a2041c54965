/*
 * recipe/canon.c: canonical and pretty JSON of a recipe's YAML tree.
 *
 * Both forms come from jansson with JSON_SORT_KEYS; reals are written with
 * 17 significant digits, so every double survives a round trip and the
 * stored spec re-formats to exactly the pretty form of the tree it came
 * from.
 */
#include "recipe/canon.h"
#include "util/buf.h"
#include "util/sha256.h"

#include <string.h>

#define CANON_FLAGS (JSON_SORT_KEYS | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17))

static char *dump(json_t *j, size_t flags, struct srt_error *err)
{
	char *s = json_dumps(j, flags);

	if (!s)
		srt_error_set(err, "the recipe holds text that cannot be written as JSON "
				   "(invalid UTF-8?); fix the recipe's strings");
	return s;
}

static char *convert(const struct srt_ynode *root, size_t flags, struct srt_error *err)
{
	json_t *j;
	char *s;

	if (!root) {
		srt_error_set(err, "the recipe is empty; write at least 'engine:' and 'roles:'");
		return NULL;
	}
	j = srt_ynode_to_json(root);
	s = dump(j, flags, err);
	json_decref(j);
	return s;
}

static char *with_newline(char *s)
{
	size_t n;
	char *t;

	if (!s)
		return NULL;
	n = strlen(s);
	t = srt_xrealloc(s, n + 2);
	t[n] = '\n';
	t[n + 1] = '\0';
	return t;
}

char *srt_canon_spec(const struct srt_ynode *root, struct srt_error *err)
{
	return convert(root, CANON_FLAGS | JSON_COMPACT, err);
}

char *srt_canon_pretty(const struct srt_ynode *root, struct srt_error *err)
{
	return with_newline(convert(root, CANON_FLAGS | JSON_INDENT(2), err));
}

char *srt_canon_pretty_json(const char *spec, struct srt_error *err)
{
	json_error_t jerr;
	json_t *j;
	char *s;

	j = json_loads(spec, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
	if (!j) {
		srt_error_set(err, "stored spec is not JSON (line %d: %s); re-apply the recipe",
			      jerr.line, jerr.text);
		return NULL;
	}
	s = with_newline(dump(j, CANON_FLAGS | JSON_INDENT(2), err));
	json_decref(j);
	return s;
}

void srt_canon_hash(const char *spec, char out[65])
{
	srt_sha256_hex(spec, strlen(spec), out);
}
