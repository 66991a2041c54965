/*
 * recipe/envvars.c: the environment variables srt-slurm resolves in a recipe
 * (see envvars.h for which, and where srtctl resolves them).
 */
#include "recipe/envvars.h"
#include "util/strutil.h"

#include <stdlib.h>
#include <string.h>

static bool name_char(char c)
{
	return srt_ascii_alnum(c) || c == '_';
}

const char *srt_expand_vars(struct srt_arena *a, const char *s, srt_getenv_fn get,
			    struct srt_buf *unset)
{
	struct srt_buf out;
	bool changed = false;
	const char *p = s;

	srt_buf_init(&out);
	while (*p) {
		const char *dollar = strchr(p, '$');
		const char *name, *end;
		size_t len;
		char *key;
		const char *val;

		if (!dollar)
			break;
		srt_buf_append(&out, p, (size_t)(dollar - p));
		if (dollar[1] == '{') {
			name = dollar + 2;
			end = strchr(name, '}');
			len = end ? (size_t)(end - name) : 0;
			end = end ? end + 1 : NULL;
		} else {
			name = dollar + 1;
			for (len = 0; name_char(name[len]); len++)
				;
			end = name + len;
		}
		if (!end || !len) { /* "$", "${", "${}", "$-": not a variable */
			srt_buf_putc(&out, '$');
			p = dollar + 1;
			continue;
		}
		key = srt_xstrndup(name, len);
		val = get(key);
		if (val) {
			srt_buf_printf(&out, "%s", val);
			changed = true;
		} else {
			srt_buf_append(&out, dollar, (size_t)(end - dollar));
			if (unset)
				srt_buf_printf(unset, "%s$%s", unset->len ? ", " : "", key);
		}
		free(key);
		p = end;
	}
	srt_buf_printf(&out, "%s", p);
	if (changed)
		s = srt_arena_strdup(a, out.data ? out.data : "");
	srt_buf_release(&out);
	return s;
}

struct ectx {
	struct srt_ydoc *doc;
	srt_getenv_fn get;
	bool strict;
	struct srt_diags *diags;
};

/* The scalar `n` (at `path`) resolved: `n` itself, or a new string node at its place. */
static struct srt_ynode *expand_scalar(struct ectx *e, struct srt_ynode *n, const char *path,
				       bool host_only)
{
	struct srt_buf unset;
	const char *s, *colon;
	struct srt_ynode *copy;

	if (!n || n->kind != SRT_Y_SCALAR || !strchr(n->str, '$'))
		return n;
	srt_buf_init(&unset);
	colon = host_only ? strchr(n->str, ':') : NULL;
	if (colon) {
		s = srt_arena_printf(&e->doc->arena, "%.*s", (int)(colon - n->str), n->str);
		s = srt_expand_vars(&e->doc->arena, s, e->get, &unset);
		s = srt_arena_printf(&e->doc->arena, "%s%s", s, colon);
	} else {
		s = srt_expand_vars(&e->doc->arena, n->str, e->get, &unset);
	}
	if (unset.len)
		srt_diags_add(
			e->diags, e->strict ? SRT_DIAG_ERROR : SRT_DIAG_WARNING, e->doc->file,
			n->line, n->col, path,
			"%s %s not set: srt-slurm resolves %s from the environment it submits "
			"the job from, srtctl from the one `srtctl apply` runs in; export %s, or "
			"write the value%s",
			unset.data, strchr(unset.data, ',') ? "are" : "is",
			strchr(unset.data, ',') ? "them" : "it",
			strchr(unset.data, ',') ? "them" : "it",
			e->strict ? "" : " (apply refuses the recipe until then)");
	srt_buf_release(&unset);
	if (!strcmp(s, n->str))
		return n;
	copy = srt_ynode_new_str(e->doc, s, false);
	copy->line = n->line;
	copy->col = n->col;
	return copy;
}

/* The container path of a mount spec "DST[:FLAGS]" is `dst`. */
static bool mount_dst_is(const char *spec, const char *dst)
{
	size_t n = strlen(dst);

	return !strncmp(spec, dst, n) && (spec[n] == '\0' || spec[n] == ':');
}

/* Does any of the recipe's mounts put something at `dst`? */
static bool mounted_at(const struct srt_ynode *root, const char *dst)
{
	const struct srt_ynode *extra = srt_ynode_get(root, "extra_mount");
	const struct srt_ynode *map = srt_ynode_get(root, "container_mounts");

	for (size_t i = 0; extra && extra->kind == SRT_Y_SEQ && i < extra->n; i++) {
		const char *s = srt_ynode_str(extra->items[i]);
		const char *colon = s ? strchr(s, ':') : NULL;

		if (colon && mount_dst_is(colon + 1, dst))
			return true;
	}
	for (size_t i = 0; map && map->kind == SRT_Y_MAP && i < map->n; i++) {
		const char *s = srt_ynode_str(map->pairs[i].value);

		if (s && mount_dst_is(s, dst))
			return true;
	}
	return false;
}

/* The first scalar under `n` (at `path`) that names `what`, and its path; depth-bounded. */
static const struct srt_ynode *first_use(struct srt_arena *a, const struct srt_ynode *n,
					 const char *what, const char *path, int depth,
					 const char **at)
{
	if (!n || depth > 32)
		return NULL;
	if (n->kind == SRT_Y_SCALAR) {
		*at = path;
		return n->str && strstr(n->str, what) ? n : NULL;
	}
	for (size_t i = 0; i < n->n; i++) {
		const struct srt_ynode *hit;
		const char *sub = n->kind == SRT_Y_MAP ?
					  srt_arena_printf(a, "%s%s%s", path, *path ? "." : "",
							   n->pairs[i].key->str) :
					  srt_arena_printf(a, "%s[%zu]", path, i);

		hit = first_use(a, n->kind == SRT_Y_MAP ? n->pairs[i].value : n->items[i], what,
				sub, depth + 1, at);
		if (hit)
			return hit;
	}
	return NULL;
}

/* Set root[key] = value on a copy of root made once (*copied). */
static struct srt_ynode *put(struct ectx *e, struct srt_ynode *root, bool *copied, const char *key,
			     struct srt_ynode *value)
{
	if (!*copied) {
		root = srt_ynode_copy_shallow(e->doc, root);
		*copied = true;
	}
	srt_ynode_map_set(e->doc, root, key, value);
	return root;
}

/* root with container_mounts {ws: /infmax-workspace} added (srt-slurm's InferenceX mount). */
static struct srt_ynode *infmax_mount(struct ectx *e, struct srt_ynode *root, bool *copied,
				      const char *ws)
{
	struct srt_ydoc *doc = e->doc;
	const struct srt_ynode *at = srt_ynode_get(root, "container_mounts");
	struct srt_ynode *m = at && at->kind == SRT_Y_MAP ? srt_ynode_copy_shallow(doc, at) :
							    srt_ynode_new_map(doc);
	struct srt_ynode *v = srt_ynode_new_str(doc, SRT_INFMAX_MOUNT, false);

	srt_ynode_map_set(doc, m, ws, v);
	m->pairs[m->n - 1].key->line = v->line = root->line;
	m->pairs[m->n - 1].key->col = v->col = root->col;
	return put(e, root, copied, "container_mounts", m);
}

struct srt_ynode *srt_recipe_expand_env(struct srt_ydoc *doc, struct srt_ynode *root,
					srt_getenv_fn get, bool strict, struct srt_diags *diags)
{
	struct ectx e = { doc, get, strict, diags };
	struct srt_ynode *model, *extra, *map;
	bool copied = false;
	const char *ws;

	if (!get || !root || root->kind != SRT_Y_MAP)
		return root;
	model = srt_ynode_get(root, "model");
	if (model && model->kind == SRT_Y_MAP) {
		struct srt_ynode *path = srt_ynode_get(model, "path");
		struct srt_ynode *image = srt_ynode_get(model, "container");
		struct srt_ynode *p2 = expand_scalar(&e, path, "model.path", false);
		struct srt_ynode *i2 = expand_scalar(&e, image, "model.container", false);

		if (p2 != path || i2 != image) {
			struct srt_ynode *m = srt_ynode_copy_shallow(doc, model);

			if (p2 != path)
				srt_ynode_map_set(doc, m, "path", p2);
			if (i2 != image)
				srt_ynode_map_set(doc, m, "container", i2);
			root = put(&e, root, &copied, "model", m);
		}
	}
	extra = srt_ynode_get(root, "extra_mount");
	if (extra && extra->kind == SRT_Y_SEQ) {
		struct srt_ynode *s = NULL;

		for (size_t i = 0; i < extra->n; i++) {
			struct srt_ynode *v = expand_scalar(
				&e, extra->items[i],
				srt_arena_printf(&doc->arena, "extra_mount[%zu]", i), true);

			if (v == extra->items[i])
				continue;
			if (!s)
				s = srt_ynode_copy_shallow(doc, extra);
			s->items[i] = v;
		}
		if (s)
			root = put(&e, root, &copied, "extra_mount", s);
	}
	map = srt_ynode_get(root, "container_mounts");
	if (map && map->kind == SRT_Y_MAP) {
		struct srt_ynode *m = NULL;

		for (size_t i = 0; i < map->n; i++) {
			const char *path = srt_arena_printf(&doc->arena, "container_mounts.%s",
							    map->pairs[i].key->str);
			struct srt_ynode *k = expand_scalar(&e, map->pairs[i].key, path, false);
			struct srt_ynode *v = expand_scalar(&e, map->pairs[i].value, path, false);

			if (k == map->pairs[i].key && v == map->pairs[i].value)
				continue;
			if (!m)
				m = srt_ynode_copy_shallow(doc, map);
			m->pairs[i].key = k;
			m->pairs[i].value = v;
		}
		if (m)
			root = put(&e, root, &copied, "container_mounts", m);
	}
	ws = get("INFMAX_WORKSPACE");
	if (ws && *ws) {
		/* the recipe's own mount there, or of that directory, wins, as in srt-slurm */
		if (!mounted_at(root, SRT_INFMAX_MOUNT) &&
		    !srt_ynode_get(srt_ynode_get(root, "container_mounts"), ws))
			root = infmax_mount(&e, root, &copied, ws);
	} else if (!mounted_at(root, SRT_INFMAX_MOUNT)) {
		const char *at = "";
		const struct srt_ynode *use =
			first_use(&doc->arena, root, SRT_INFMAX_MOUNT, "", 0, &at);

		if (use)
			srt_diags_add(
				diags, SRT_DIAG_WARNING, doc->file, use->line, use->col, at,
				"this recipe uses %s, where srt-slurm mounts $INFMAX_WORKSPACE "
				"(an InferenceX checkout the compute nodes see), and "
				"INFMAX_WORKSPACE is not set; export it before `srtctl apply` "
				"(srtctl mounts it there too), or mount the checkout in "
				"container_mounts",
				SRT_INFMAX_MOUNT);
	}
	return root;
}
