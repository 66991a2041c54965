/*
 * recipe/yaml.c: libyaml events -> a located node tree.
 *
 * The parser keeps a stack of open collections.  A mapping collects its
 * entries (explicit pairs and `<<` merge sources) in a temporary vector and
 * is finalised when it closes: duplicate explicit keys are reported, merged
 * pairs are inserted where the `<<` stood unless the key is written
 * explicitly or merged earlier.  Anchors are registered when their node is
 * complete, so an alias can never refer to an enclosing node (no cycles).
 */
#include "recipe/yaml.h"
#include "util/buf.h"
#include "util/strmap.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct entry {
	struct srt_ynode *key; /* NULL for a merge source */
	struct srt_ynode *value;
};

struct frame {
	struct srt_ynode *node;
	struct entry *entries; /* maps: entries; seqs: value only */
	size_t n, cap;
	struct srt_ynode *pending_key; /* maps: key waiting for its value */
	bool pending_merge;
};

struct anchor {
	const char *name;
	struct srt_ynode *node;
};

struct parser {
	struct srt_ydoc *doc;
	struct srt_diags *diags;
	struct frame *stack;
	size_t depth, stack_cap;
	struct anchor *anchors;
	size_t nanchors, anchors_cap;
	size_t nnodes; /* nodes read so far (an alias adds none) */
	bool failed;
};

static void perr(struct parser *p, unsigned line, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void perr(struct parser *p, unsigned line, unsigned col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	srt_diags_vadd(p->diags, SRT_DIAG_ERROR, p->doc->file, line, col, NULL, fmt, ap);
	va_end(ap);
	p->failed = true;
}

static size_t sat_add(size_t a, size_t b)
{
	return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

static struct srt_ynode *new_node(struct srt_ydoc *doc, enum srt_ykind kind, const yaml_mark_t *m)
{
	struct srt_ynode *n = srt_arena_alloc(&doc->arena, sizeof(*n));

	n->kind = kind;
	n->line = m ? (unsigned)m->line + 1 : 0;
	n->col = m ? (unsigned)m->column + 1 : 0;
	n->weight = 1;
	return n;
}

static void set_anchor(struct parser *p, const char *name, struct srt_ynode *node)
{
	if (!name)
		return;
	if (p->nanchors == p->anchors_cap) {
		p->anchors_cap = p->anchors_cap ? p->anchors_cap * 2 : 16;
		p->anchors = srt_xrealloc(p->anchors, p->anchors_cap * sizeof(*p->anchors));
	}
	p->anchors[p->nanchors].name = name;
	p->anchors[p->nanchors].node = node;
	p->nanchors++;
}

static struct srt_ynode *find_anchor(struct parser *p, const char *name)
{
	for (size_t i = p->nanchors; i-- > 0;)
		if (!strcmp(p->anchors[i].name, name))
			return p->anchors[i].node;
	return NULL;
}

static void frame_push_entry(struct frame *f, struct srt_ynode *key, struct srt_ynode *value)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 8;
		f->entries = srt_xrealloc(f->entries, f->cap * sizeof(*f->entries));
	}
	f->entries[f->n].key = key;
	f->entries[f->n].value = value;
	f->n++;
}

static bool is_merge_key(const struct srt_ynode *k)
{
	return k->kind == SRT_Y_SCALAR && k->plain && k->len == 2 && !memcmp(k->str, "<<", 2);
}

static void push_pair(struct srt_ypair *pairs, size_t *n, struct srt_ynode *k, struct srt_ynode *v)
{
	pairs[*n].key = k;
	pairs[*n].value = v;
	(*n)++;
}

static void finish_map(struct parser *p, struct frame *f)
{
	struct srt_ynode *map = f->node;
	struct srt_strmap explicit_keys, merged;
	size_t total = 0, out = 0;

	/* Count the most pairs the map can end with. */
	for (size_t i = 0; i < f->n; i++) {
		const struct entry *e = &f->entries[i];

		if (e->key) {
			total++;
		} else if (e->value->kind == SRT_Y_MAP) {
			total = sat_add(total, e->value->n);
		} else {
			for (size_t j = 0; j < e->value->n; j++)
				total = sat_add(total, e->value->items[j]->n);
		}
	}
	if (total > SRT_YAML_MAX_NODES) {
		perr(p, map->line, map->col, "mapping has too many keys (more than %u)",
		     SRT_YAML_MAX_NODES);
		return;
	}
	srt_strmap_init(&explicit_keys, NULL, false);
	srt_strmap_init(&merged, NULL, false);
	for (size_t i = 0; i < f->n; i++) {
		const struct srt_ynode *k = f->entries[i].key;
		size_t prev;

		if (k && !srt_strmap_addn(&explicit_keys, k->str, k->len, i, &prev))
			perr(p, k->line, k->col,
			     "duplicate key '%s' (first defined at line %u); remove one of them",
			     k->str, f->entries[prev].key->line);
	}

	map->pairs = srt_arena_alloc(&p->doc->arena, (total ? total : 1) * sizeof(*map->pairs));
	for (size_t i = 0; i < f->n; i++) {
		const struct entry *e = &f->entries[i];
		struct srt_ynode *const *srcs = &e->value;
		size_t nsrc = 1;

		if (e->key) {
			push_pair(map->pairs, &out, e->key, e->value);
			map->weight = sat_add(map->weight, sat_add(e->key->weight, e->value->weight));
			continue;
		}
		if (e->value->kind == SRT_Y_SEQ) {
			srcs = e->value->items;
			nsrc = e->value->n;
		}
		for (size_t s = 0; s < nsrc; s++) {
			const struct srt_ynode *src = srcs[s];

			for (size_t j = 0; j < src->n; j++) {
				const struct srt_ypair *mp = &src->pairs[j];

				if (srt_strmap_getn(&explicit_keys, mp->key->str, mp->key->len,
						    NULL) ||
				    !srt_strmap_addn(&merged, mp->key->str, mp->key->len, 0, NULL))
					continue;
				push_pair(map->pairs, &out, mp->key, mp->value);
				map->weight = sat_add(map->weight,
						      sat_add(mp->key->weight, mp->value->weight));
			}
		}
	}
	map->n = out;
	map->cap = out;
	srt_strmap_release(&explicit_keys);
	srt_strmap_release(&merged);
}

static void finish_seq(struct parser *p, struct frame *f)
{
	struct srt_ynode *seq = f->node;

	seq->items = srt_arena_alloc(&p->doc->arena, (f->n ? f->n : 1) * sizeof(*seq->items));
	for (size_t i = 0; i < f->n; i++) {
		seq->items[i] = f->entries[i].value;
		seq->weight = sat_add(seq->weight, f->entries[i].value->weight);
	}
	seq->n = f->n;
	seq->cap = f->n;
}

/* Attach a complete node to the open collection (or make it the root). */
static void add_value(struct parser *p, struct srt_ynode *node, unsigned line, unsigned col)
{
	struct frame *f;

	if (node->weight > SRT_YAML_MAX_NODES) {
		perr(p, node->line, node->col,
		     "document expands to more than %u nodes through aliases; "
		     "use fewer nested aliases",
		     SRT_YAML_MAX_NODES);
		return;
	}
	if (!p->depth) {
		p->doc->root = node;
		return;
	}
	f = &p->stack[p->depth - 1];
	if (f->node->kind == SRT_Y_SEQ) {
		frame_push_entry(f, NULL, node);
		return;
	}
	if (!f->pending_key && !f->pending_merge) {
		if (node->kind != SRT_Y_SCALAR) {
			perr(p, line, col,
			     "a mapping key must be a plain value, not %s; quote the key",
			     srt_ynode_describe(node));
			f->pending_key = node; /* keep the structure; value is dropped */
			return;
		}
		if (is_merge_key(node))
			f->pending_merge = true;
		else
			f->pending_key = node;
		return;
	}
	if (f->pending_merge) {
		bool ok = node->kind == SRT_Y_MAP;

		if (node->kind == SRT_Y_SEQ) {
			ok = true;
			for (size_t i = 0; i < node->n; i++)
				if (node->items[i]->kind != SRT_Y_MAP)
					ok = false;
		}
		if (!ok)
			perr(p, line, col,
			     "merge key '<<' needs a mapping or a list of mappings (an alias such "
			     "as '<<: *defaults'), not %s",
			     srt_ynode_describe(node));
		else
			frame_push_entry(f, NULL, node);
		f->pending_merge = false;
		return;
	}
	if (f->pending_key->kind == SRT_Y_SCALAR)
		frame_push_entry(f, f->pending_key, node);
	f->pending_key = NULL;
}

static const char *dup_str(struct parser *p, const unsigned char *s)
{
	return s ? srt_arena_strdup(&p->doc->arena, (const char *)s) : NULL;
}

/*
 * The document itself (not its alias expansion) has more nodes than a
 * recipe may: say so at the first node past the limit.
 */
static bool too_many_nodes(struct parser *p, const yaml_mark_t *m)
{
	if (++p->nnodes <= SRT_YAML_MAX_NODES)
		return false;
	perr(p, (unsigned)m->line + 1, (unsigned)m->column + 1,
	     "the document is too large: it has more than %u values (keys, values and list "
	     "items); a recipe may have at most %u",
	     SRT_YAML_MAX_NODES, SRT_YAML_MAX_NODES);
	return true;
}

static void open_collection(struct parser *p, struct srt_ynode *node)
{
	struct frame *f;

	if (p->depth >= SRT_YAML_MAX_DEPTH) {
		perr(p, node->line, node->col, "nesting is deeper than %u levels",
		     SRT_YAML_MAX_DEPTH);
		return;
	}
	if (p->depth == p->stack_cap) {
		p->stack_cap = p->stack_cap ? p->stack_cap * 2 : 16;
		p->stack = srt_xrealloc(p->stack, p->stack_cap * sizeof(*p->stack));
	}
	f = &p->stack[p->depth++];
	memset(f, 0, sizeof(*f));
	f->node = node;
}

static void close_collection(struct parser *p)
{
	struct frame f = p->stack[--p->depth];

	if (f.node->kind == SRT_Y_MAP)
		finish_map(p, &f);
	else
		finish_seq(p, &f);
	free(f.entries);
	set_anchor(p, f.node->anchor, f.node);
	add_value(p, f.node, f.node->line, f.node->col);
}

static void report_libyaml_error(struct parser *p, yaml_parser_t *yp)
{
	const char *what = yp->error == YAML_SCANNER_ERROR ? "YAML syntax error" :
			   yp->error == YAML_PARSER_ERROR  ? "YAML structure error" :
			   yp->error == YAML_READER_ERROR  ? "unreadable YAML input" :
							      "YAML error";
	unsigned line = (unsigned)yp->problem_mark.line + 1;
	unsigned col = (unsigned)yp->problem_mark.column + 1;

	if (yp->error == YAML_READER_ERROR) {
		perr(p, 0, 0, "%s: %s at byte %zu (the file must be UTF-8 text)", what,
		     yp->problem ? yp->problem : "unknown problem", yp->problem_offset);
	} else if (yp->context) {
		perr(p, line, col, "%s: %s %s (line %u)", what, yp->problem ? yp->problem : "",
		     yp->context, (unsigned)yp->context_mark.line + 1);
	} else {
		perr(p, line, col, "%s: %s", what, yp->problem ? yp->problem : "unknown problem");
	}
}

struct srt_ydoc *srt_ydoc_new(const char *file)
{
	struct srt_ydoc *doc = srt_xcalloc(1, sizeof(*doc));

	srt_arena_init(&doc->arena);
	doc->file = srt_arena_strdup(&doc->arena, file ? file : "<input>");
	return doc;
}

struct srt_ydoc *srt_ydoc_parse(const char *data, size_t len, const char *file,
				struct srt_diags *diags)
{
	struct parser p = { 0 };
	yaml_parser_t yp;
	yaml_event_t ev;
	int docs = 0;
	bool done = false;

	p.doc = srt_ydoc_new(file);
	p.diags = diags;
	if (len > SRT_YAML_MAX_BYTES) {
		perr(&p, 0, 0, "the document is %zu bytes; a recipe may have at most %u (%u MiB)",
		     len, SRT_YAML_MAX_BYTES, SRT_YAML_MAX_BYTES / (1024u * 1024u));
		goto out;
	}
	if (!yaml_parser_initialize(&yp)) {
		perr(&p, 0, 0, "cannot initialise the YAML parser (out of memory?)");
		goto out;
	}
	yaml_parser_set_input_string(&yp, (const unsigned char *)data, len);
	while (!done && !p.failed) {
		struct srt_ynode *node;

		if (!yaml_parser_parse(&yp, &ev)) {
			report_libyaml_error(&p, &yp);
			break;
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1)
				perr(&p, (unsigned)ev.start_mark.line + 1,
				     (unsigned)ev.start_mark.column + 1,
				     "the file holds more than one YAML document ('---'); "
				     "put each recipe in its own file");
			break;
		case YAML_DOCUMENT_END_EVENT:
			p.doc->end_line = (unsigned)ev.end_mark.line + 1;
			break;
		case YAML_SCALAR_EVENT:
			if (too_many_nodes(&p, &ev.start_mark))
				break;
			node = new_node(p.doc, SRT_Y_SCALAR, &ev.start_mark);
			node->str = srt_arena_strndup(&p.doc->arena,
						      (const char *)ev.data.scalar.value,
						      ev.data.scalar.length);
			node->len = ev.data.scalar.length;
			node->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
			node->tag = dup_str(&p, ev.data.scalar.tag);
			node->anchor = dup_str(&p, ev.data.scalar.anchor);
			set_anchor(&p, node->anchor, node);
			add_value(&p, node, node->line, node->col);
			break;
		case YAML_ALIAS_EVENT:
			node = find_anchor(&p, (const char *)ev.data.alias.anchor);
			if (!node)
				perr(&p, (unsigned)ev.start_mark.line + 1,
				     (unsigned)ev.start_mark.column + 1,
				     "alias '*%s' refers to no anchor defined before it "
				     "(define '&%s' earlier in the file)",
				     ev.data.alias.anchor, ev.data.alias.anchor);
			else
				add_value(&p, node, (unsigned)ev.start_mark.line + 1,
					  (unsigned)ev.start_mark.column + 1);
			break;
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT: {
			bool is_map = ev.type == YAML_MAPPING_START_EVENT;

			if (too_many_nodes(&p, &ev.start_mark))
				break;
			node = new_node(p.doc, is_map ? SRT_Y_MAP : SRT_Y_SEQ, &ev.start_mark);
			node->tag = dup_str(&p, is_map ? ev.data.mapping_start.tag :
							 ev.data.sequence_start.tag);
			node->anchor = dup_str(&p, is_map ? ev.data.mapping_start.anchor :
							    ev.data.sequence_start.anchor);
			open_collection(&p, node);
			break;
		}
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			if (p.depth)
				close_collection(&p);
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&yp);
out:
	while (p.depth)
		free(p.stack[--p.depth].entries);
	free(p.stack);
	free(p.anchors);
	if (p.failed) {
		srt_ydoc_free(p.doc);
		return NULL;
	}
	return p.doc;
}

struct srt_ydoc *srt_ydoc_load_file(const char *path, struct srt_diags *diags)
{
	bool is_stdin = !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	struct srt_ydoc *doc = NULL;
	struct srt_buf b;
	char chunk[65536];
	size_t n;

	if (!f) {
		srt_diags_add(diags, SRT_DIAG_ERROR, path, 0, 0, NULL, "cannot open: %s",
			      strerror(errno));
		return NULL;
	}
	srt_buf_init(&b);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (b.len + n > SRT_YAML_MAX_BYTES) {
			srt_diags_add(diags, SRT_DIAG_ERROR, path, 0, 0, NULL,
				      "file is larger than %u MiB; is it really a recipe?",
				      SRT_YAML_MAX_BYTES / (1024u * 1024u));
			goto out;
		}
		srt_buf_append(&b, chunk, n);
	}
	if (ferror(f)) {
		srt_diags_add(diags, SRT_DIAG_ERROR, path, 0, 0, NULL, "cannot read: %s",
			      strerror(errno));
		goto out;
	}
	doc = srt_ydoc_parse(b.data, b.len, is_stdin ? "<stdin>" : path, diags);
out:
	if (!is_stdin)
		fclose(f);
	srt_buf_release(&b);
	return doc;
}

void srt_ydoc_free(struct srt_ydoc *doc)
{
	if (!doc)
		return;
	srt_arena_release(&doc->arena);
	free(doc);
}

/* ---- scalar typing (YAML 1.2 core schema) ---- */

static bool tagged_str(const struct srt_ynode *n)
{
	return n->tag && (!strcmp(n->tag, "tag:yaml.org,2002:str") || !strcmp(n->tag, "!!str"));
}

static bool is_digits(const char *s, const char *digits)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr(digits, *s))
			return false;
	return true;
}

static bool looks_int(const char *s)
{
	if (!strncmp(s, "0x", 2))
		return is_digits(s + 2, "0123456789abcdefABCDEF");
	if (!strncmp(s, "0o", 2))
		return is_digits(s + 2, "01234567");
	if (*s == '-' || *s == '+')
		s++;
	return is_digits(s, "0123456789");
}

static bool looks_float(const char *s)
{
	bool digits = false;

	if (*s == '-' || *s == '+')
		s++;
	if (!strcmp(s, ".inf") || !strcmp(s, ".Inf") || !strcmp(s, ".INF"))
		return true;
	while (*s >= '0' && *s <= '9') {
		s++;
		digits = true;
	}
	if (*s == '.') {
		s++;
		while (*s >= '0' && *s <= '9') {
			s++;
			digits = true;
		}
	}
	if (!digits)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		if (!is_digits(s, "0123456789"))
			return false;
		return true;
	}
	return *s == '\0';
}

enum srt_ytype srt_ynode_type(const struct srt_ynode *n)
{
	const char *s;

	if (!n)
		return SRT_YT_NULL;
	if (n->kind != SRT_Y_SCALAR || !n->plain || tagged_str(n) || strlen(n->str) != n->len)
		return SRT_YT_STR;
	s = n->str;
	if (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	    !strcmp(s, "NULL"))
		return SRT_YT_NULL;
	if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE") ||
	    !strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))
		return SRT_YT_BOOL;
	if (looks_int(s))
		return SRT_YT_INT;
	if (!strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN") || looks_float(s))
		return SRT_YT_FLOAT;
	return SRT_YT_STR;
}

bool srt_ynode_is_null(const struct srt_ynode *n)
{
	return !n || (n->kind == SRT_Y_SCALAR && srt_ynode_type(n) == SRT_YT_NULL);
}

bool srt_ynode_bool(const struct srt_ynode *n, bool *out)
{
	if (!n || n->kind != SRT_Y_SCALAR || srt_ynode_type(n) != SRT_YT_BOOL)
		return false;
	*out = n->str[0] == 't' || n->str[0] == 'T';
	return true;
}

bool srt_ynode_int(const struct srt_ynode *n, int64_t *out)
{
	const char *s;
	char *end;
	long long v;
	int base = 10;

	if (!n || n->kind != SRT_Y_SCALAR || srt_ynode_type(n) != SRT_YT_INT)
		return false;
	s = n->str;
	if (!strncmp(s, "0x", 2)) {
		base = 16;
		s += 2;
	} else if (!strncmp(s, "0o", 2)) {
		base = 8;
		s += 2;
	}
	errno = 0;
	v = strtoll(s, &end, base);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

bool srt_ynode_float(const struct srt_ynode *n, double *out)
{
	enum srt_ytype t = srt_ynode_type(n);
	const char *s;

	if (!n || n->kind != SRT_Y_SCALAR || (t != SRT_YT_FLOAT && t != SRT_YT_INT))
		return false;
	s = n->str;
	if (strstr(s, "inf") || strstr(s, "Inf") || strstr(s, "INF")) {
		*out = s[0] == '-' ? -INFINITY : INFINITY;
		return true;
	}
	if (strstr(s, "nan") || strstr(s, "NaN") || strstr(s, "NAN")) {
		*out = NAN;
		return true;
	}
	if (t == SRT_YT_INT) {
		int64_t i;

		if (!srt_ynode_int(n, &i))
			return false;
		*out = (double)i;
		return true;
	}
	*out = strtod(s, NULL);
	return true;
}

const char *srt_ynode_str(const struct srt_ynode *n)
{
	if (!n || n->kind != SRT_Y_SCALAR || srt_ynode_is_null(n))
		return NULL;
	return n->str;
}

const struct srt_ypair *srt_ynode_get_pair(const struct srt_ynode *n, const char *key)
{
	size_t klen;

	if (!n || n->kind != SRT_Y_MAP)
		return NULL;
	klen = strlen(key);
	for (size_t i = 0; i < n->n; i++)
		if (n->pairs[i].key->len == klen && !memcmp(n->pairs[i].key->str, key, klen))
			return &n->pairs[i];
	return NULL;
}

struct srt_ynode *srt_ynode_get(const struct srt_ynode *n, const char *key)
{
	const struct srt_ypair *p = srt_ynode_get_pair(n, key);

	return p ? p->value : NULL;
}

const char *srt_ynode_describe(const struct srt_ynode *n)
{
	if (!n)
		return "nothing";
	switch (n->kind) {
	case SRT_Y_MAP:
		return "a mapping";
	case SRT_Y_SEQ:
		return "a list";
	case SRT_Y_SCALAR:
		break;
	}
	switch (srt_ynode_type(n)) {
	case SRT_YT_NULL:
		return "null";
	case SRT_YT_BOOL:
		return "a boolean";
	case SRT_YT_INT:
		return "an integer";
	case SRT_YT_FLOAT:
		return "a number";
	case SRT_YT_STR:
		break;
	}
	return "a string";
}

json_t *srt_ynode_to_json(const struct srt_ynode *n)
{
	json_t *j;

	if (!n)
		return NULL;
	switch (n->kind) {
	case SRT_Y_MAP:
		j = json_object();
		for (size_t i = 0; i < n->n; i++)
			json_object_setn_new(j, n->pairs[i].key->str, n->pairs[i].key->len,
					     srt_ynode_to_json(n->pairs[i].value));
		return j;
	case SRT_Y_SEQ:
		j = json_array();
		for (size_t i = 0; i < n->n; i++)
			json_array_append_new(j, srt_ynode_to_json(n->items[i]));
		return j;
	case SRT_Y_SCALAR:
		break;
	}
	switch (srt_ynode_type(n)) {
	case SRT_YT_NULL:
		return json_null();
	case SRT_YT_BOOL: {
		bool b = false;

		srt_ynode_bool(n, &b);
		return json_boolean(b);
	}
	case SRT_YT_INT: {
		int64_t i;

		if (srt_ynode_int(n, &i))
			return json_integer((json_int_t)i);
		break;
	}
	case SRT_YT_FLOAT: {
		double d;

		if (srt_ynode_float(n, &d) && isfinite(d))
			return json_real(d);
		break;
	}
	case SRT_YT_STR:
		break;
	}
	j = json_stringn_nocheck(n->str, n->len);
	return j ? j : json_string("");
}

/* ---- builders ---- */

struct srt_ynode *srt_ynode_new_str(struct srt_ydoc *doc, const char *s, bool plain)
{
	struct srt_ynode *n = new_node(doc, SRT_Y_SCALAR, NULL);

	n->str = srt_arena_strdup(&doc->arena, s);
	n->len = strlen(s);
	n->plain = plain;
	return n;
}

struct srt_ynode *srt_ynode_new_map(struct srt_ydoc *doc)
{
	return new_node(doc, SRT_Y_MAP, NULL);
}

struct srt_ynode *srt_ynode_new_seq(struct srt_ydoc *doc)
{
	return new_node(doc, SRT_Y_SEQ, NULL);
}

struct srt_ynode *srt_ynode_copy_shallow(struct srt_ydoc *doc, const struct srt_ynode *n)
{
	struct srt_ynode *m = srt_arena_alloc(&doc->arena, sizeof(*m));

	*m = *n;
	m->anchor = NULL;
	if (n->kind == SRT_Y_MAP) {
		m->pairs = srt_arena_alloc(&doc->arena, (n->n + 1) * sizeof(*m->pairs));
		if (n->n)
			memcpy(m->pairs, n->pairs, n->n * sizeof(*m->pairs));
		m->cap = n->n + 1;
	} else if (n->kind == SRT_Y_SEQ) {
		m->items = srt_arena_alloc(&doc->arena, (n->n + 1) * sizeof(*m->items));
		if (n->n)
			memcpy(m->items, n->items, n->n * sizeof(*m->items));
		m->cap = n->n + 1;
	}
	return m;
}

void srt_ynode_map_set(struct srt_ydoc *doc, struct srt_ynode *map, const char *key,
		       struct srt_ynode *value)
{
	size_t klen = strlen(key);

	for (size_t i = 0; i < map->n; i++) {
		if (map->pairs[i].key->len == klen && !memcmp(map->pairs[i].key->str, key, klen)) {
			map->pairs[i].value = value;
			return;
		}
	}
	if (map->n == map->cap) {
		size_t cap = map->cap ? map->cap * 2 : 8;
		struct srt_ypair *np = srt_arena_alloc(&doc->arena, cap * sizeof(*np));

		if (map->n)
			memcpy(np, map->pairs, map->n * sizeof(*np));
		map->pairs = np;
		map->cap = cap;
	}
	map->pairs[map->n].key = srt_ynode_new_str(doc, key, true);
	map->pairs[map->n].value = value;
	map->n++;
}

void srt_ynode_seq_push(struct srt_ydoc *doc, struct srt_ynode *seq, struct srt_ynode *item)
{
	if (seq->n == seq->cap) {
		size_t cap = seq->cap ? seq->cap * 2 : 8;
		struct srt_ynode **ni = srt_arena_alloc(&doc->arena, cap * sizeof(*ni));

		if (seq->n)
			memcpy(ni, seq->items, seq->n * sizeof(*ni));
		seq->items = ni;
		seq->cap = cap;
	}
	seq->items[seq->n++] = item;
}

bool srt_ynode_map_del(struct srt_ynode *map, const char *key)
{
	size_t klen = strlen(key);

	if (!map || map->kind != SRT_Y_MAP)
		return false;
	for (size_t i = 0; i < map->n; i++) {
		if (map->pairs[i].key->len == klen && !memcmp(map->pairs[i].key->str, key, klen)) {
			memmove(&map->pairs[i], &map->pairs[i + 1],
				(map->n - i - 1) * sizeof(*map->pairs));
			map->n--;
			return true;
		}
	}
	return false;
}
