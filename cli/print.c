/*
 * cli/print.c: aligned tables, and JSON and YAML output of jansson values.
 *
 * Column widths count UTF-8 characters, not bytes, so names with accents
 * still line up.  The YAML printer writes block style only: mappings as
 * "key: value" lines, sequences as "- " items (kubectl's layout, with a
 * list under a key at the key's own indentation), and scalars bare only
 * when no YAML reader could mistake them for another type.
 */
#include "cli/print.h"
#include "util/buf.h"
#include "util/clock.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TABLE_GAP 3

void srt_table_init(struct srt_table *t, size_t ncols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
}

void srt_table_release(struct srt_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

char *srt_print_sanitize(char *s)
{
	for (char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	return s;
}

static void push_cell(struct srt_table *t, char *cell)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->cells = srt_xrealloc(t->cells, t->cap * sizeof(*t->cells));
	}
	t->cells[t->n++] = srt_print_sanitize(cell);
}

void srt_table_add(struct srt_table *t, const char *cell)
{
	push_cell(t, srt_xstrdup(cell && *cell ? cell : "<none>"));
}

void srt_table_addf(struct srt_table *t, const char *fmt, ...)
{
	struct srt_buf b;
	va_list ap;

	srt_buf_init(&b);
	va_start(ap, fmt);
	srt_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (!b.len)
		srt_buf_puts(&b, "<none>");
	push_cell(t, srt_buf_detach(&b));
}

void srt_table_add_age(struct srt_table *t, int64_t now, int64_t at)
{
	char age[32];

	if (!at) {
		srt_table_add(t, "<unknown>");
		return;
	}
	srt_duration_human(now - at, age, sizeof(age));
	srt_table_add(t, age);
}

void srt_table_add_int(struct srt_table *t, int64_t v, int64_t none_below)
{
	if (v < none_below)
		srt_table_add(t, NULL);
	else
		srt_table_addf(t, "%lld", (long long)v);
}

size_t srt_table_rows(const struct srt_table *t)
{
	return t->ncols && t->n >= t->ncols ? t->n / t->ncols - 1 : 0;
}

/* Display width: UTF-8 continuation bytes do not count. */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

static void print_row(FILE *out, const char *indent, char *const *cells, const size_t *widths,
		      size_t ncols)
{
	fputs(indent, out);
	for (size_t c = 0; c < ncols; c++) {
		fputs(cells[c], out);
		if (c + 1 < ncols)
			fprintf(out, "%*s", (int)(widths[c] - width(cells[c]) + TABLE_GAP), "");
	}
	fputc('\n', out);
}

void srt_table_print(const struct srt_table *t, FILE *out, const char *indent, bool underline)
{
	size_t *widths, nrows;

	if (!t->ncols || t->n < t->ncols)
		return;
	nrows = t->n / t->ncols;
	widths = srt_xcalloc(t->ncols, sizeof(*widths));
	for (size_t r = 0; r < nrows; r++)
		for (size_t c = 0; c < t->ncols; c++) {
			size_t w = width(t->cells[r * t->ncols + c]);

			if (w > widths[c])
				widths[c] = w;
		}
	print_row(out, indent, t->cells, widths, t->ncols);
	if (underline) {
		char **dashes = srt_xcalloc(t->ncols, sizeof(*dashes));

		for (size_t c = 0; c < t->ncols; c++) {
			size_t w = width(t->cells[c]);

			dashes[c] = srt_xmalloc(w + 1);
			memset(dashes[c], '-', w);
			dashes[c][w] = '\0';
		}
		print_row(out, indent, dashes, widths, t->ncols);
		for (size_t c = 0; c < t->ncols; c++)
			free(dashes[c]);
		free(dashes);
	}
	for (size_t r = 1; r < nrows; r++)
		print_row(out, indent, t->cells + r * t->ncols, widths, t->ncols);
	free(widths);
}

json_t *srt_json_time(int64_t ms)
{
	char buf[40];

	if (!ms)
		return json_null();
	srt_time_rfc3339(ms, buf, sizeof(buf));
	return json_string(buf);
}

json_t *srt_json_str(const char *s)
{
	json_t *j;

	if (!s)
		return json_null();
	j = json_string(s);
	return j ? j : json_stringn_nocheck(s, strlen(s));
}

const char *srt_print_frontend(const char *planned, const char *url, const char *phase)
{
	static const char *const ended[] = { "Succeeded", "Failed", "Cancelled" };

	if (url)
		return url;
	if (!planned)
		return NULL;
	for (size_t i = 0; phase && i < sizeof(ended) / sizeof(ended[0]); i++)
		if (!strcmp(phase, ended[i]))
			return NULL;
	return "pending";
}

void srt_print_json(FILE *out, const json_t *j)
{
	json_dumpf(j, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
	fputc('\n', out);
}

/* ---- YAML ---- */

/* Can `s` be written as a plain scalar that every YAML reader takes as this string? */
static bool plain_ok(const char *s, size_t len)
{
	static const char *const words[] = { "y",   "n",    "yes",   "no",   "on",
					     "off", "true", "false", "null", NULL };

	if (!len || strlen(s) != len)
		return false;
	if (!isalpha((unsigned char)s[0]) && s[0] != '_' && s[0] != '/')
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!isalnum(c) && c != '_' && c != '.' && c != '/' && c != '-')
			return false;
	}
	for (size_t i = 0; words[i]; i++)
		if (!strcasecmp(s, words[i]))
			return false;
	return true;
}

static void put_indent(FILE *out, int n)
{
	fprintf(out, "%*s", n, "");
}

static void put_string(FILE *out, const char *s, size_t len)
{
	json_t *j;
	char *q;

	if (plain_ok(s, len)) {
		fputs(s, out);
		return;
	}
	/* A JSON string is a valid YAML double-quoted scalar. */
	j = json_stringn_nocheck(s, len);
	q = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	fputs(q ? q : "\"\"", out);
	free(q);
	json_decref(j);
}

static void put_scalar(FILE *out, const json_t *j)
{
	char *s;

	switch (json_typeof(j)) {
	case JSON_STRING:
		put_string(out, json_string_value(j), json_string_length(j));
		return;
	case JSON_OBJECT:
		fputs("{}", out);
		return;
	case JSON_ARRAY:
		fputs("[]", out);
		return;
	default:
		s = json_dumps(j, JSON_ENCODE_ANY);
		fputs(s ? s : "null", out);
		free(s);
		return;
	}
}

static bool is_block(const json_t *j)
{
	return (json_is_object(j) && json_object_size(j)) ||
	       (json_is_array(j) && json_array_size(j));
}

static void put_seq(FILE *out, const json_t *arr, int indent);

/* A mapping; the first key goes on the current line when `inline_first`. */
static void put_map(FILE *out, const json_t *obj, int indent, bool inline_first)
{
	const char *key;
	json_t *val;
	bool first = true;

	json_object_foreach((json_t *)obj, key, val)
	{
		if (!first || !inline_first)
			put_indent(out, indent);
		first = false;
		put_string(out, key, strlen(key));
		fputc(':', out);
		if (json_is_array(val) && json_array_size(val)) {
			fputc('\n', out);
			put_seq(out, val, indent);
		} else if (is_block(val)) {
			fputc('\n', out);
			put_map(out, val, indent + 2, false);
		} else {
			fputc(' ', out);
			put_scalar(out, val);
			fputc('\n', out);
		}
	}
}

static void put_seq(FILE *out, const json_t *arr, int indent)
{
	size_t i;
	json_t *val;

	json_array_foreach(arr, i, val)
	{
		put_indent(out, indent);
		if (json_is_object(val) && json_object_size(val)) {
			fputs("- ", out);
			put_map(out, val, indent + 2, true);
		} else if (json_is_array(val) && json_array_size(val)) {
			fputs("-\n", out);
			put_seq(out, val, indent + 2);
		} else {
			fputs("- ", out);
			put_scalar(out, val);
			fputc('\n', out);
		}
	}
}

void srt_print_yaml_indent(FILE *out, const json_t *j, int indent)
{
	if (json_is_object(j) && json_object_size(j)) {
		put_map(out, j, indent, false);
	} else if (json_is_array(j) && json_array_size(j)) {
		put_seq(out, j, indent);
	} else {
		put_indent(out, indent);
		put_scalar(out, j);
		fputc('\n', out);
	}
}

void srt_print_yaml(FILE *out, const json_t *j)
{
	srt_print_yaml_indent(out, j, 0);
}

void srt_print_list(FILE *out, json_t *items, enum srt_output fmt)
{
	json_t *list = json_pack("{s:s, s:o}", "kind", "List", "items", items);

	if (fmt == SRT_OUT_YAML)
		srt_print_yaml(out, list);
	else
		srt_print_json(out, list);
	json_decref(list);
}
