/*
 * recipe/cluster.c: srtslurm.yaml, the per-cluster settings.
 *
 * Discovery: an explicit path, else $SRTSLURM_CONFIG, else ./srtslurm.yaml.
 * A missing file means "use the defaults"; a file that exists but does not
 * parse or has unknown keys is an error.
 */
#include "recipe/cluster.h"
#include "util/strutil.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const default_cmds[SRT_CMD_COUNT][4] = {
	[SRT_CMD_MOONCAKE_MASTER] = { "mooncake_master", NULL },
	[SRT_CMD_MOONCAKE_STORE] = { "python3", "-m", "mooncake.mooncake_store_service", NULL },
	[SRT_CMD_SGLANG] = { "python3", "-m", "sglang.launch_server", NULL },
	[SRT_CMD_VLLM] = { "vllm", "serve", NULL },
	[SRT_CMD_TRTLLM] = { "trtllm-serve", NULL },
	[SRT_CMD_MOCKER] = { "python3", "-m", "dynamo.mocker", NULL },
	[SRT_CMD_SRTCTL] = { "srtctl", NULL },
};

/* NULL-terminated: also the list of allowed keys under `commands:`. */
static const char *const cmd_names[SRT_CMD_COUNT + 1] = {
	[SRT_CMD_MOONCAKE_MASTER] = "mooncake_master",
	[SRT_CMD_MOONCAKE_STORE] = "mooncake_store",
	[SRT_CMD_SGLANG] = "sglang",
	[SRT_CMD_VLLM] = "vllm",
	[SRT_CMD_TRTLLM] = "trtllm",
	[SRT_CMD_MOCKER] = "mocker",
	[SRT_CMD_SRTCTL] = "srtctl",
	[SRT_CMD_COUNT] = NULL,
};

const char *srt_cmd_kind_name(enum srt_cmd_kind k)
{
	return k < SRT_CMD_COUNT ? cmd_names[k] : "?";
}

void srt_cluster_defaults(struct srt_cluster *c)
{
	memset(c, 0, sizeof(*c));
	c->container_runtime = SRT_CRT_NONE;
	c->log_root = "outputs";
	c->slurmrestd.timeout_seconds = 30;
	for (int k = 0; k < SRT_CMD_COUNT; k++) {
		size_t n = 0;

		while (default_cmds[k][n])
			n++;
		c->commands[k].v = (const char **)default_cmds[k];
		c->commands[k].n = n;
	}
}

struct cctx {
	struct srt_ydoc *doc;
	struct srt_diags *d;
	int errors;
};

static void cerr(struct cctx *c, const struct srt_ynode *n, const char *path, const char *fmt,
		 ...) __attribute__((format(printf, 4, 5)));

static void cerr(struct cctx *c, const struct srt_ynode *n, const char *path, const char *fmt,
		 ...)
{
	va_list ap;

	va_start(ap, fmt);
	srt_diags_vadd(c->d, SRT_DIAG_ERROR, c->doc->file, n ? n->line : 0, n ? n->col : 0, path,
		       fmt, ap);
	va_end(ap);
	c->errors++;
}

static void keys_known(struct cctx *c, const struct srt_ynode *map, const char *path,
		       const char *const *allowed)
{
	for (size_t i = 0; i < map->n; i++) {
		const char *k = map->pairs[i].key->str;
		const char *sugg;
		bool ok = false;

		for (size_t j = 0; allowed[j]; j++)
			if (!strcmp(k, allowed[j]))
				ok = true;
		if (ok)
			continue;
		sugg = srt_did_you_mean(k, allowed);
		if (sugg)
			cerr(c, map->pairs[i].key, path, "unknown key '%s'; did you mean '%s'?", k,
			     sugg);
		else
			cerr(c, map->pairs[i].key, path, "unknown key '%s'", k);
	}
}

static const char *str_at(struct cctx *c, const struct srt_ynode *map, const char *key,
			  const char *path, const char *dflt)
{
	const struct srt_ynode *v = srt_ynode_get(map, key);

	if (!v || srt_ynode_is_null(v))
		return dflt;
	if (v->kind != SRT_Y_SCALAR) {
		cerr(c, v, path, "'%s' must be a string, not %s", key, srt_ynode_describe(v));
		return dflt;
	}
	return v->str;
}

static bool argv_at(struct cctx *c, const struct srt_ynode *v, const char *path,
		    struct srt_argv *out)
{
	if (v->kind == SRT_Y_SCALAR && !srt_ynode_is_null(v)) {
		out->v = srt_arena_alloc(&c->doc->arena, sizeof(*out->v));
		out->v[0] = v->str;
		out->n = 1;
		return true;
	}
	if (v->kind != SRT_Y_SEQ || !v->n) {
		cerr(c, v, path, "must be a non-empty list of strings (an argv)");
		return false;
	}
	out->v = srt_arena_alloc(&c->doc->arena, v->n * sizeof(*out->v));
	out->n = 0;
	for (size_t i = 0; i < v->n; i++) {
		if (v->items[i]->kind != SRT_Y_SCALAR || srt_ynode_is_null(v->items[i])) {
			cerr(c, v->items[i], path, "every argv element must be a string");
			return false;
		}
		out->v[out->n++] = v->items[i]->str;
	}
	return true;
}

int srt_cluster_parse(struct srt_cluster *c, struct srt_ydoc *doc, struct srt_diags *diags)
{
	static const char *const top[] = { "runtime", "network_interface", "default_account",
					   "default_partition", "default_time_limit",
					   "containers", "slurmrestd", "commands", "cluster",
					   "gpus_per_node", "default_gpu_type", NULL };
	static const char *const rt[] = { "network_interface", "container_runtime", "log_root",
					  NULL };
	static const char *const rest[] = { "url", "api_version", "user", "token_file",
					    "token_command", "timeout_seconds", NULL };
	struct cctx cc = { doc, diags, 0 };
	const struct srt_ynode *root = doc->root, *v;

	srt_cluster_defaults(c);
	c->doc = doc;
	c->source = doc->file;
	if (!root)
		return 0;
	if (root->kind != SRT_Y_MAP) {
		cerr(&cc, root, NULL, "the cluster config must be a mapping");
		return -1;
	}
	keys_known(&cc, root, NULL, top);
	c->network_interface = str_at(&cc, root, "network_interface", "network_interface", NULL);
	v = srt_ynode_get(root, "runtime");
	if (v && !srt_ynode_is_null(v)) {
		if (v->kind != SRT_Y_MAP) {
			cerr(&cc, v, "runtime", "must be a mapping");
		} else {
			const char *crt;

			keys_known(&cc, v, "runtime", rt);
			c->network_interface = str_at(&cc, v, "network_interface",
						      "runtime.network_interface",
						      c->network_interface);
			c->log_root = str_at(&cc, v, "log_root", "runtime.log_root", c->log_root);
			crt = str_at(&cc, v, "container_runtime", "runtime.container_runtime", NULL);
			if (crt && !strcmp(crt, "pyxis"))
				c->container_runtime = SRT_CRT_PYXIS;
			else if (crt && strcmp(crt, "none"))
				cerr(&cc, srt_ynode_get(v, "container_runtime"),
				     "runtime.container_runtime",
				     "unknown container runtime '%s'; expected pyxis or none", crt);
		}
	}
	if (c->network_interface && !*c->network_interface)
		c->network_interface = NULL;
	c->default_account = str_at(&cc, root, "default_account", "default_account", NULL);
	c->default_partition = str_at(&cc, root, "default_partition", "default_partition", NULL);
	c->default_time_limit = str_at(&cc, root, "default_time_limit", "default_time_limit",
				       NULL);
	v = srt_ynode_get(root, "containers");
	if (v && !srt_ynode_is_null(v)) {
		if (v->kind != SRT_Y_MAP) {
			cerr(&cc, v, "containers", "must be a mapping of alias: image");
		} else {
			c->containers.v = srt_arena_alloc(&doc->arena,
							  (v->n ? v->n : 1) * sizeof(struct srt_env_var));
			for (size_t i = 0; i < v->n; i++) {
				const struct srt_ynode *val = v->pairs[i].value;

				if (val->kind != SRT_Y_SCALAR || srt_ynode_is_null(val)) {
					cerr(&cc, val, "containers", "alias '%s' must name an image",
					     v->pairs[i].key->str);
					continue;
				}
				c->containers.v[c->containers.n].name = v->pairs[i].key->str;
				c->containers.v[c->containers.n].value = val->str;
				c->containers.v[c->containers.n].node = val;
				c->containers.n++;
			}
		}
	}
	v = srt_ynode_get(root, "slurmrestd");
	if (v && !srt_ynode_is_null(v)) {
		if (v->kind != SRT_Y_MAP) {
			cerr(&cc, v, "slurmrestd", "must be a mapping");
		} else {
			const struct srt_ynode *t;
			int64_t secs;

			keys_known(&cc, v, "slurmrestd", rest);
			c->slurmrestd.url = str_at(&cc, v, "url", "slurmrestd.url", NULL);
			c->slurmrestd.api_version = str_at(&cc, v, "api_version",
							   "slurmrestd.api_version", NULL);
			c->slurmrestd.user = str_at(&cc, v, "user", "slurmrestd.user", NULL);
			c->slurmrestd.token_file = str_at(&cc, v, "token_file",
							  "slurmrestd.token_file", NULL);
			t = srt_ynode_get(v, "token_command");
			if (t && !srt_ynode_is_null(t))
				argv_at(&cc, t, "slurmrestd.token_command", &c->slurmrestd.token_command);
			t = srt_ynode_get(v, "timeout_seconds");
			if (t && !srt_ynode_is_null(t)) {
				if (!srt_ynode_int(t, &secs) || secs < 1 || secs > 3600)
					cerr(&cc, t, "slurmrestd.timeout_seconds",
					     "must be an integer from 1 to 3600");
				else
					c->slurmrestd.timeout_seconds = (int)secs;
			}
		}
	}
	v = srt_ynode_get(root, "commands");
	if (v && !srt_ynode_is_null(v)) {
		if (v->kind != SRT_Y_MAP) {
			cerr(&cc, v, "commands", "must be a mapping of name: argv");
		} else {
			keys_known(&cc, v, "commands", cmd_names);
			for (int k = 0; k < SRT_CMD_COUNT; k++) {
				const struct srt_ynode *a = srt_ynode_get(v, cmd_names[k]);

				if (a)
					argv_at(&cc, a, srt_arena_printf(&doc->arena, "commands.%s",
									cmd_names[k]),
						&c->commands[k]);
			}
		}
	}
	return cc.errors ? -1 : 0;
}

int srt_cluster_load(struct srt_cluster *c, const char *path, struct srt_diags *diags)
{
	struct srt_ydoc *doc;
	struct stat st;

	srt_cluster_defaults(c);
	if (!path) {
		const char *env = getenv("SRTSLURM_CONFIG");

		if (env && *env) {
			path = env;
		} else {
			path = "srtslurm.yaml";
			if (stat(path, &st) != 0)
				return 0; /* no config: defaults */
		}
	}
	doc = srt_ydoc_load_file(path, diags);
	if (!doc) {
		if (diags->n)
			srt_diags_add(diags, SRT_DIAG_ERROR, path, 0, 0, NULL,
				      "the cluster config is not usable; fix it or point "
				      "$SRTSLURM_CONFIG at another file");
		return -1;
	}
	if (srt_cluster_parse(c, doc, diags) != 0) {
		srt_ydoc_free(doc);
		srt_cluster_defaults(c);
		return -1;
	}
	return 0;
}

void srt_cluster_release(struct srt_cluster *c)
{
	srt_ydoc_free(c->doc);
	srt_cluster_defaults(c);
}

const char *srt_cluster_container(const struct srt_cluster *c, const char *name)
{
	const char *img;

	if (!name)
		return NULL;
	img = srt_env_get(&c->containers, name);
	return img ? img : name;
}
