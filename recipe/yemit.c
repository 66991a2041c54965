/*
 * recipe/yemit.c: a node tree -> block-style YAML text.
 *
 * The emitter is hand-written rather than driven through libyaml's emitter
 * so that it can decide quoting with the same typing rules the parser uses
 * (srt_ynode_type()): a string goes out plain only when reading the plain
 * text back gives the same string.  Otherwise it is single-quoted, or
 * double-quoted with escapes when it holds characters a single-quoted
 * scalar cannot carry (line breaks, control characters, NULs).  Multi-line
 * strings that are safe for it use a literal block (`|`).  Scalars that are
 * plain numbers, booleans or nulls keep their original text.
 *
 * Anchors and aliases are not reproduced: a shared node is written out at
 * every place it appears, which reads back as equal values.  Tags are
 * dropped; the quoting alone carries the type.
 */
#include "recipe/yemit.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define INDENT 2
/* libyaml reads implicit keys of at most 1024 characters; stay well below. */
#define MAX_IMPLICIT_KEY 512

enum scalar_style {
	STYLE_PLAIN,
	STYLE_SINGLE,
	STYLE_DOUBLE,
	STYLE_LITERAL
};

/*
 * Decode one UTF-8 sequence at s[0..len).  Returns its length and sets *cp,
 * or 0 for a malformed sequence.
 */
static size_t utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	size_t n;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		c = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		c = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((n == 2 && c < 0x80) || (n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* Characters YAML (1.1, as libyaml reads it) treats as line breaks or BOM. */
static bool is_special_break(uint32_t c)
{
	return c == 0x85 || c == 0x2028 || c == 0x2029 || c == 0xfeff;
}

/* Printable in the YAML sense, excluding the special breaks above. */
static bool is_printable(uint32_t c)
{
	if (is_special_break(c))
		return false;
	return c == 0x09 || (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) ||
	       (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
}

/* Would `s` written plain be read back as some other type (null, number, ...)? */
static bool plain_changes_type(const char *s, size_t len)
{
	struct srt_ynode probe = { 0 };

	probe.kind = SRT_Y_SCALAR;
	probe.plain = true;
	probe.str = s;
	probe.len = len;
	return srt_ynode_type(&probe) != SRT_YT_STR;
}

/*
 * Would a YAML 1.1 reader (PyYAML, older tools that also read recipes) take
 * the plain text for something other than a string?  srtctl's parser
 * follows YAML 1.2, but quoting these too costs nothing: yes/no/on/off,
 * and number-like text such as 1_000, 1:30, 017 or 0b101.
 */
static bool yaml11_special(const char *s)
{
	static const char *const words[] = { "y",   "Y",   "yes", "Yes", "YES", "n",  "N",
					     "no",  "No",  "NO",  "on",	 "On",	"ON", "off",
					     "Off", "OFF", "=",	  "<<",	 NULL };

	for (size_t i = 0; words[i]; i++)
		if (!strcmp(s, words[i]))
			return true;
	if (!strchr("0123456789+-.", s[0]))
		return false;
	for (const char *p = s; *p; p++)
		if (!strchr("0123456789_:.+-eEoObBxXabcdefABCDEF", *p))
			return false;
	return true;
}

static bool is_indicator(char c)
{
	return strchr("-?:,[]{}#&*!|>'\"%@`", c) != NULL;
}

/*
 * Can a string be written as a plain scalar and read back unchanged?
 * Conservative: when in doubt, the caller quotes.
 */
static bool plain_ok(const char *s, size_t len, bool is_key)
{
	const unsigned char *u = (const unsigned char *)s;

	if (!len || strlen(s) != len)
		return false;
	if (plain_changes_type(s, len) || yaml11_special(s))
		return false;
	if (s[0] == ' ' || s[0] == '\t' || s[len - 1] == ' ' || s[len - 1] == '\t')
		return false;
	if (is_indicator(s[0])) {
		/* "-x", "?x" and ":x" are plain in block context; the rest never are. */
		if (!strchr("-?:", s[0]) || len < 2 || s[1] == ' ' || s[1] == '\t')
			return false;
	}
	if (len >= 3 && (!strncmp(s, "---", 3) || !strncmp(s, "...", 3)))
		return false;
	if (is_key && !strcmp(s, "<<"))
		return false;
	if (s[len - 1] == ':')
		return false;
	for (size_t i = 0; i < len;) {
		uint32_t c;
		size_t n = utf8_decode(u + i, len - i, &c);

		if (!n || !is_printable(c) || c == '\t')
			return false;
		if (c == ':' && i + 1 < len && (s[i + 1] == ' ' || s[i + 1] == '\t'))
			return false;
		if (c == '#' && i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
			return false;
		i += n;
	}
	return true;
}

/* Can the string go in single quotes (all printable, one line)? */
static bool single_ok(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	if (strlen(s) != len)
		return false;
	for (size_t i = 0; i < len;) {
		uint32_t c;
		size_t n = utf8_decode(u + i, len - i, &c);

		if (!n || !is_printable(c) || c == '\t')
			return false;
		i += n;
	}
	return true;
}

/*
 * Can a multi-line string use a literal block?  Every line must be
 * printable, the first non-empty line must not start with white space (the
 * indentation is detected from it), and no line may hold only white space
 * (such lines would fold into the indentation).
 */
static bool literal_ok(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	bool seen_text = false;
	size_t line_start = 0;

	if (strlen(s) != len || !memchr(s, '\n', len))
		return false;
	for (size_t i = 0; i < len;) {
		uint32_t c;
		size_t n = utf8_decode(u + i, len - i, &c);

		if (!n || (!is_printable(c) && c != '\n') || c == '\r')
			return false;
		i += n;
	}
	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '\n')
			continue;
		if (i > line_start) {
			bool blank = true;

			for (size_t j = line_start; j < i; j++)
				if (s[j] != ' ' && s[j] != '\t')
					blank = false;
			if (blank)
				return false;
			if (!seen_text && (s[line_start] == ' ' || s[line_start] == '\t'))
				return false;
			seen_text = true;
		}
		line_start = i + 1;
	}
	return seen_text;
}

static enum scalar_style choose_style(const struct srt_ynode *n, bool is_key)
{
	if (srt_ynode_type(n) != SRT_YT_STR)
		return STYLE_PLAIN; /* a plain number, boolean or null keeps its text */
	if (plain_ok(n->str, n->len, is_key))
		return STYLE_PLAIN;
	if (!is_key && literal_ok(n->str, n->len))
		return STYLE_LITERAL;
	if (single_ok(n->str, n->len))
		return STYLE_SINGLE;
	return STYLE_DOUBLE;
}

static void put_indent(struct srt_buf *out, unsigned indent)
{
	for (unsigned i = 0; i < indent; i++)
		srt_buf_putc(out, ' ');
}

static void put_single(struct srt_buf *out, const char *s, size_t len)
{
	srt_buf_putc(out, '\'');
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\'')
			srt_buf_putc(out, '\'');
		srt_buf_putc(out, s[i]);
	}
	srt_buf_putc(out, '\'');
}

static int put_double(struct srt_buf *out, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	srt_buf_putc(out, '"');
	for (size_t i = 0; i < len;) {
		uint32_t c;
		size_t n = utf8_decode(u + i, len - i, &c);

		if (!n)
			return -1; /* not UTF-8: cannot be written as YAML */
		switch (c) {
		case 0:
			srt_buf_puts(out, "\\0");
			break;
		case '\a':
			srt_buf_puts(out, "\\a");
			break;
		case '\b':
			srt_buf_puts(out, "\\b");
			break;
		case '\t':
			srt_buf_puts(out, "\\t");
			break;
		case '\n':
			srt_buf_puts(out, "\\n");
			break;
		case '\v':
			srt_buf_puts(out, "\\v");
			break;
		case '\f':
			srt_buf_puts(out, "\\f");
			break;
		case '\r':
			srt_buf_puts(out, "\\r");
			break;
		case 0x1b:
			srt_buf_puts(out, "\\e");
			break;
		case '"':
			srt_buf_puts(out, "\\\"");
			break;
		case '\\':
			srt_buf_puts(out, "\\\\");
			break;
		case 0x85:
			srt_buf_puts(out, "\\N");
			break;
		case 0xa0:
			srt_buf_puts(out, "\\_");
			break;
		case 0x2028:
			srt_buf_puts(out, "\\L");
			break;
		case 0x2029:
			srt_buf_puts(out, "\\P");
			break;
		default:
			if (c == ' ' || is_printable(c))
				srt_buf_append(out, s + i, n);
			else if (c <= 0xff)
				srt_buf_printf(out, "\\x%02X", (unsigned)c);
			else if (c <= 0xffff)
				srt_buf_printf(out, "\\u%04X", (unsigned)c);
			else
				srt_buf_printf(out, "\\U%08X", (unsigned)c);
			break;
		}
		i += n;
	}
	srt_buf_putc(out, '"');
	return 0;
}

/* A literal block: header then the lines at `indent`. */
static void put_literal(struct srt_buf *out, const char *s, size_t len, unsigned indent)
{
	size_t trailing = 0;
	size_t body_len;
	size_t start = 0;

	while (trailing < len && s[len - 1 - trailing] == '\n')
		trailing++;
	srt_buf_puts(out, trailing == 0 ? "|-" : trailing == 1 ? "|" : "|+");
	/* Write every line of the content, then the trailing empty lines. */
	body_len = len - trailing;
	for (size_t i = 0; i <= body_len; i++) {
		if (i < body_len && s[i] != '\n')
			continue;
		srt_buf_putc(out, '\n');
		if (i > start) {
			put_indent(out, indent);
			srt_buf_append(out, s + start, i - start);
		}
		start = i + 1;
	}
	for (size_t i = 1; i < trailing; i++)
		srt_buf_putc(out, '\n');
}

/* Write a scalar on the current line (no newline after it). */
static int put_scalar(struct srt_buf *out, const struct srt_ynode *n, bool is_key, unsigned indent)
{
	switch (choose_style(n, is_key)) {
	case STYLE_PLAIN:
		/* An empty plain scalar is null; a key keeps its (empty) text. */
		srt_buf_puts(out, n->len ? n->str : is_key ? "''" : "null");
		return 0;
	case STYLE_SINGLE:
		put_single(out, n->str, n->len);
		return 0;
	case STYLE_LITERAL:
		put_literal(out, n->str, n->len, indent);
		return 0;
	case STYLE_DOUBLE:
		break;
	}
	return put_double(out, n->str, n->len);
}

static bool is_empty_collection(const struct srt_ynode *n)
{
	return n->kind != SRT_Y_SCALAR && n->n == 0;
}

static int emit_node(struct srt_buf *out, const struct srt_ynode *n, unsigned indent,
		     unsigned depth);

/*
 * Write the value that follows "key:" or "- ".  Scalars and empty
 * collections stay on the line; a mapping or list starts on the next line
 * (a list item's mapping stays on the "- " line).
 */
static int emit_value(struct srt_buf *out, const struct srt_ynode *v, unsigned indent,
		      bool after_dash, unsigned depth)
{
	if (v->kind == SRT_Y_SCALAR) {
		if (!v->len && srt_ynode_type(v) == SRT_YT_NULL) {
			srt_buf_putc(out, '\n'); /* "key:" with nothing after it, as written */
			return 0;
		}
		srt_buf_putc(out, ' ');
		if (put_scalar(out, v, false, indent) < 0)
			return -1;
		srt_buf_putc(out, '\n');
		return 0;
	}
	if (depth + 1 >= SRT_YAML_MAX_DEPTH)
		return -1; /* deeper than srt_ydoc_parse() reads back */
	if (is_empty_collection(v)) {
		srt_buf_puts(out, v->kind == SRT_Y_MAP ? " {}\n" : " []\n");
		return 0;
	}
	if (after_dash) {
		/* "- a: 1" / "- - x": the first line shares the dash's line. */
		srt_buf_putc(out, ' ');
		return emit_node(out, v, indent, depth + 1);
	}
	srt_buf_putc(out, '\n');
	put_indent(out, indent);
	return emit_node(out, v, indent, depth + 1);
}

/*
 * Emit a mapping or list whose first line starts at the current position
 * (the indentation of that first line is already written); later lines are
 * indented by `indent`.
 */
static int emit_node(struct srt_buf *out, const struct srt_ynode *n, unsigned indent,
		     unsigned depth)
{
	if (is_empty_collection(n)) {
		srt_buf_puts(out, n->kind == SRT_Y_MAP ? "{}\n" : "[]\n");
		return 0;
	}
	for (size_t i = 0; i < n->n; i++) {
		if (i)
			put_indent(out, indent);
		if (n->kind == SRT_Y_MAP) {
			const struct srt_ypair *p = &n->pairs[i];
			size_t mark = out->len;

			if (p->key->kind != SRT_Y_SCALAR ||
			    put_scalar(out, p->key, true, indent) < 0)
				return -1;
			if (out->len - mark > MAX_IMPLICIT_KEY) {
				/* Too long for an implicit key: "? key" then ": value". */
				out->len = mark;
				srt_buf_puts(out, "? ");
				put_scalar(out, p->key, true, indent);
				srt_buf_putc(out, '\n');
				put_indent(out, indent);
			}
			srt_buf_putc(out, ':');
			if (emit_value(out, p->value, indent + INDENT, false, depth) < 0)
				return -1;
		} else {
			srt_buf_putc(out, '-');
			if (emit_value(out, n->items[i], indent + INDENT, true, depth) < 0)
				return -1;
		}
	}
	return 0;
}

int srt_yemit(const struct srt_ynode *root, struct srt_buf *out)
{
	size_t mark = out->len;
	int rc;

	if (!root)
		return 0;
	if (root->kind == SRT_Y_SCALAR) {
		/* A block scalar at the root still needs indented content. */
		rc = put_scalar(out, root, false, INDENT);
		srt_buf_putc(out, '\n');
	} else {
		rc = emit_node(out, root, 0, 0);
	}
	if (rc < 0) {
		out->len = mark;
		if (out->cap)
			out->data[mark] = '\0';
		return -1;
	}
	return 0;
}
