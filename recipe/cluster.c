/*
 * recipe/cluster.c: srtslurm.yaml, the per-cluster settings.
 *
 * Discovery: an explicit path, else $SRTSLURM_CONFIG, else ./srtslurm.yaml.
 * A missing file means "use the defaults"; a file that exists but does not
 * parse or has unknown keys is an error.
 *
 * The file is shared with srt-slurm: top_keys[] (sorted, searched with
 * bsearch) lists every top-level key srtctl or srt-slurm 0.3/2.0 documents,
 * and says whether srtctl reads it.  A key srtctl does not read gets one
 * warning; a key in no table is an error with a did-you-mean.
 */
#include "recipe/cluster.h"
#include "notify/notify.h"
#include "recipe/script.h"
#include "runplan/plan.h"
#include "util/clock.h"
#include "util/strutil.h"

#include <errno.h>
#include <stdio.h>
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
	[SRT_CMD_SGLANG_ROUTER] = { "python3", "-m", "sglang_router.launch_router", NULL },
	[SRT_CMD_VLLM_ROUTER] = { "vllm-router", NULL },
	[SRT_CMD_VLLM_BENCH] = { "vllm", "bench", "serve", NULL },
	[SRT_CMD_SA_BENCH] = { "python3", "-u", "/srtctl-benchmarks/sa-bench/benchmark_serving.py",
			       NULL },
	[SRT_CMD_DYNAMO_SGLANG] = { "python3", "-m", "dynamo.sglang", NULL },
	[SRT_CMD_DYNAMO_VLLM] = { "python3", "-m", "dynamo.vllm", NULL },
	[SRT_CMD_DYNAMO_FRONTEND] = { "python3", "-m", "dynamo.frontend", NULL },
	[SRT_CMD_ETCD] = { "etcd", NULL },
	[SRT_CMD_NATS] = { "nats-server", NULL },
	[SRT_CMD_DYNAMO_TRTLLM] = { "python3", "-m", "dynamo.trtllm", NULL },
	[SRT_CMD_TRTLLM_LAUNCH] = { "trtllm-llmapi-launch", NULL },
	[SRT_CMD_NUMACTL] = { "numactl", NULL },
	[SRT_CMD_LMCACHE] = { "lmcache", NULL },
	[SRT_CMD_DYNAMO_TRTLLM_POOL] = { "python3", "-c", SRT_DYNAMO_TRTLLM_POOL_PROGRAM, NULL },
	[SRT_CMD_RAY] = { "ray", NULL },
	[SRT_CMD_TILERT_DECODE] = { "python", "-m", "tilert.pd_vllm.decode_server", NULL },
	[SRT_CMD_TILERT_ROUTER] = { "python", "-m", "tilert.pd_vllm.pd_router", NULL },
	[SRT_CMD_NGINX] = { "nginx", NULL },
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
	[SRT_CMD_SGLANG_ROUTER] = "sglang_router",
	[SRT_CMD_VLLM_ROUTER] = "vllm_router",
	[SRT_CMD_VLLM_BENCH] = "vllm_bench",
	[SRT_CMD_SA_BENCH] = "sa_bench",
	[SRT_CMD_DYNAMO_SGLANG] = "dynamo_sglang",
	[SRT_CMD_DYNAMO_VLLM] = "dynamo_vllm",
	[SRT_CMD_DYNAMO_FRONTEND] = "dynamo_frontend",
	[SRT_CMD_ETCD] = "etcd",
	[SRT_CMD_NATS] = "nats",
	[SRT_CMD_DYNAMO_TRTLLM] = "dynamo_trtllm",
	[SRT_CMD_TRTLLM_LAUNCH] = "trtllm_launch",
	[SRT_CMD_NUMACTL] = "numactl",
	[SRT_CMD_LMCACHE] = "lmcache",
	[SRT_CMD_DYNAMO_TRTLLM_POOL] = "dynamo_trtllm_pool",
	[SRT_CMD_RAY] = "ray",
	[SRT_CMD_TILERT_DECODE] = "tilert_decode",
	[SRT_CMD_TILERT_ROUTER] = "tilert_router",
	[SRT_CMD_NGINX] = "nginx",
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
	c->use_gpus_per_node_directive = true;
	c->use_segment_sbatch_directive = true;
	c->use_exclusive_sbatch_directive = -1;
	c->nginx_raise_ulimit = -1;
	c->notify.timeout_ms = SRT_NOTIFY_TIMEOUT_MS;
	c->notify.backoff_ms = SRT_NOTIFY_BACKOFF_MS;
	c->notify.max_attempts = SRT_NOTIFY_MAX_ATTEMPTS;
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

static void cerr(struct cctx *c, const struct srt_ynode *n, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void cerr(struct cctx *c, const struct srt_ynode *n, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	srt_diags_vadd(c->d, SRT_DIAG_ERROR, c->doc->file, n ? n->line : 0, n ? n->col : 0, path,
		       fmt, ap);
	va_end(ap);
	c->errors++;
}

static void cwarn(struct cctx *c, const struct srt_ynode *n, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void cwarn(struct cctx *c, const struct srt_ynode *n, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	srt_diags_vadd(c->d, SRT_DIAG_WARNING, c->doc->file, n ? n->line : 0, n ? n->col : 0, path,
		       fmt, ap);
	va_end(ap);
}

/* A top-level key of srtslurm.yaml: srtctl's own, srt-slurm's, or both. */
enum key_use {
	KEY_READ,    /* srtctl reads it */
	KEY_IGNORED, /* srt-slurm reads it; srtctl does not (one warning) */
};

struct top_key {
	const char *name;
	enum key_use use;
};

/*
 * Sorted by name (bsearch).  From srt-slurm 2.0's cluster.schema.json and
 * cluster-config.md (launcher, docker_args), the 0.3 docs (cluster as a
 * mapping, default_container, ai_analysis at the top level), and srtctl's
 * own sections (runtime, slurmrestd, commands).
 */
static const struct top_key top_keys[] = {
	{ "ai_analysis", KEY_IGNORED },
	{ "cloud", KEY_IGNORED },
	{ "cluster", KEY_READ },
	{ "commands", KEY_READ },
	{ "containers", KEY_READ },
	{ "default_account", KEY_READ },
	{ "default_bash_preamble", KEY_READ },
	{ "default_container", KEY_READ },
	{ "default_gpu_exporter", KEY_IGNORED },
	{ "default_gpu_type", KEY_IGNORED },
	{ "default_health_check", KEY_READ },
	{ "default_host_setup", KEY_IGNORED },
	{ "default_mounts", KEY_READ },
	{ "default_partition", KEY_READ },
	{ "default_sbatch_directives", KEY_READ },
	{ "default_time_limit", KEY_READ },
	{ "docker_args", KEY_IGNORED },
	{ "git_http_version", KEY_IGNORED },
	{ "gpus_per_node", KEY_IGNORED },
	{ "launcher", KEY_IGNORED },
	{ "model_paths", KEY_READ },
	{ "network_interface", KEY_READ },
	{ "nginx_raise_ulimit", KEY_READ },
	{ "notify", KEY_READ },
	{ "output_dir", KEY_IGNORED },
	{ "preflight", KEY_IGNORED },
	{ "reporting", KEY_IGNORED },
	{ "runtime", KEY_READ },
	{ "slurmrestd", KEY_READ },
	{ "srtctl_root", KEY_READ },
	{ "telemetry", KEY_IGNORED },
	{ "use_exclusive_sbatch_directive", KEY_READ },
	{ "use_gpus_per_node_directive", KEY_READ },
	{ "use_het_jobs", KEY_IGNORED },
	{ "use_segment_sbatch_directive", KEY_READ },
	{ "visible_devices_env", KEY_READ },
};
#define NTOP_KEYS (sizeof(top_keys) / sizeof(top_keys[0]))

static int cmp_top_key(const void *k, const void *e)
{
	return strcmp((const char *)k, ((const struct top_key *)e)->name);
}

static const struct top_key *top_key_find(const char *name)
{
	return bsearch(name, top_keys, NTOP_KEYS, sizeof(top_keys[0]), cmp_top_key);
}

/* Top-level keys: known ones pass (srt-slurm-only ones with a warning), the rest fail. */
static void top_keys_check(struct cctx *c, const struct srt_ynode *root)
{
	const char *names[NTOP_KEYS + 1];

	for (size_t i = 0; i < NTOP_KEYS; i++)
		names[i] = top_keys[i].name;
	names[NTOP_KEYS] = NULL;
	for (size_t i = 0; i < root->n; i++) {
		const struct srt_ynode *k = root->pairs[i].key;
		const struct top_key *t = top_key_find(k->str);
		const char *sugg;

		if (t && t->use == KEY_IGNORED) {
			cwarn(c, k, k->str,
			      "a srt-slurm setting that srtctl does not use; ignored (the file "
			      "stays usable by srt-slurm)");
		} else if (!t) {
			sugg = srt_did_you_mean(k->str, names);
			if (sugg)
				cerr(c, k, NULL, "unknown key '%s'; did you mean '%s'?", k->str,
				     sugg);
			else
				cerr(c, k, NULL,
				     "unknown key '%s' (neither srtctl nor srt-slurm reads it); "
				     "remove it",
				     k->str);
		}
	}
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

/* An alias -> value mapping (containers:, model_paths:) into *out. */
static void alias_map(struct cctx *c, const struct srt_ynode *v, const char *path, const char *what,
		      struct srt_env *out)
{
	if (!v || srt_ynode_is_null(v))
		return;
	if (v->kind != SRT_Y_MAP) {
		cerr(c, v, path, "must be a mapping of alias: %s", what);
		return;
	}
	out->v = srt_arena_alloc(&c->doc->arena, (v->n ? v->n : 1) * sizeof(struct srt_env_var));
	out->n = 0;
	for (size_t i = 0; i < v->n; i++) {
		const struct srt_ynode *val = v->pairs[i].value;

		if (val->kind != SRT_Y_SCALAR || srt_ynode_is_null(val)) {
			cerr(c, val, path, "alias '%s' must be a string (the %s)",
			     v->pairs[i].key->str, what);
			continue;
		}
		out->v[out->n].name = v->pairs[i].key->str;
		out->v[out->n].value = val->str;
		out->v[out->n].node = val;
		out->n++;
	}
}

/*
 * `cluster:` is the cluster's name in srt-slurm 2.0 (ignored) and a mapping
 * of defaults in 0.3; the mapping's values apply where the top level sets none.
 */
static void cluster_section(struct cctx *cc, struct srt_cluster *c, const struct srt_ynode *v)
{
	static const char *const keys[] = { "account",
					    "partition",
					    "network_interface",
					    "gpus_per_node",
					    "default_time_limit",
					    "time_limit",
					    "default_container",
					    NULL };

	if (!v || srt_ynode_is_null(v))
		return;
	if (v->kind == SRT_Y_SCALAR) {
		cwarn(cc, v, "cluster",
		      "the cluster's name (srt-slurm status reporting); srtctl does not use it");
		return;
	}
	if (v->kind != SRT_Y_MAP) {
		cerr(cc, v, "cluster",
		     "must be the cluster's name or a mapping of defaults (account, partition, "
		     "network_interface, default_time_limit, default_container)");
		return;
	}
	keys_known(cc, v, "cluster", keys);
	if (!c->default_account)
		c->default_account = str_at(cc, v, "account", "cluster.account", NULL);
	if (!c->default_partition)
		c->default_partition = str_at(cc, v, "partition", "cluster.partition", NULL);
	if (!c->default_time_limit)
		c->default_time_limit =
			str_at(cc, v, "default_time_limit", "cluster.default_time_limit",
			       str_at(cc, v, "time_limit", "cluster.time_limit", NULL));
	if (!c->network_interface)
		c->network_interface =
			str_at(cc, v, "network_interface", "cluster.network_interface", NULL);
	if (!c->default_container)
		c->default_container =
			str_at(cc, v, "default_container", "cluster.default_container", NULL);
	if (srt_ynode_get_pair(v, "gpus_per_node"))
		cwarn(cc, srt_ynode_get_pair(v, "gpus_per_node")->key, "cluster.gpus_per_node",
		      "srtctl does not use it (set resources.gpus_per_node in the recipe); "
		      "ignored");
}

/* A top-level bool; unchanged when absent or null. */
static void bool_at(struct cctx *c, const struct srt_ynode *root, const char *key, bool *out)
{
	const struct srt_ynode *v = srt_ynode_get(root, key);

	if (v && !srt_ynode_is_null(v) && !srt_ynode_bool(v, out))
		cerr(c, v, key, "must be true or false");
}

/*
 * default_sbatch_directives: option -> value ("" or null for a bare flag),
 * checked as a recipe's directives are (recipe/script.c), stored by long name.
 */
static void default_directives(struct cctx *cc, struct srt_cluster *c, const struct srt_ynode *v)
{
	const char *path = "default_sbatch_directives";

	if (!v || srt_ynode_is_null(v))
		return;
	if (v->kind != SRT_Y_MAP) {
		cerr(cc, v, path, "must be a mapping of sbatch option: value");
		return;
	}
	c->default_sbatch_directives.v =
		srt_arena_alloc(&cc->doc->arena, (v->n ? v->n : 1) * sizeof(struct srt_env_var));
	for (size_t i = 0; i < v->n; i++) {
		const struct srt_ynode *k = v->pairs[i].key, *val = v->pairs[i].value;
		struct srt_env_var *e;
		struct srt_error derr;
		const char *canon, *value;

		if (val->kind != SRT_Y_SCALAR || strchr(val->str, '\n') ||
		    strlen(val->str) != val->len) {
			cerr(cc, val, path, "%s: must be one line of text", k->str);
			continue;
		}
		value = srt_ynode_is_null(val) ? "" : val->str;
		if (srt_script_directive_check(k->str, value, &canon, NULL, &derr) != 0) {
			cerr(cc, k, path, "%s: %s", k->str, derr.msg);
			continue;
		}
		e = &c->default_sbatch_directives.v[c->default_sbatch_directives.n++];
		e->name = canon;
		e->value = value;
		e->node = val;
	}
}

/*
 * default_health_check: a recipe's health_check where it writes none (its
 * max_attempts and interval_seconds, the keys srtctl uses; srt-slurm's
 * fatal_log_markers is accepted, as the recipe's is).
 */
static void default_health(struct cctx *cc, struct srt_cluster *c, const struct srt_ynode *v)
{
	static const char *const keys[] = { "max_attempts", "interval_seconds", "fatal_log_markers",
					    NULL };
	static const struct {
		const char *key;
		int64_t max;
	} ints[] = { { "max_attempts", 1000000 }, { "interval_seconds", 3600 } };
	int *out[] = { &c->health_max_attempts, &c->health_interval_seconds };

	if (!v || srt_ynode_is_null(v))
		return;
	if (v->kind != SRT_Y_MAP) {
		cerr(cc, v, "default_health_check",
		     "must be a mapping (max_attempts, interval_seconds)");
		return;
	}
	keys_known(cc, v, "default_health_check", keys);
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		const struct srt_ynode *t = srt_ynode_get(v, ints[i].key);
		int64_t n;

		if (!t || srt_ynode_is_null(t))
			continue;
		if (!srt_ynode_int(t, &n) || n < 1 || n > ints[i].max)
			cerr(cc, t, "default_health_check", "%s: must be an integer from 1 to %lld",
			     ints[i].key, (long long)ints[i].max);
		else
			*out[i] = (int)n;
	}
}

/* default_mounts: host path -> container path[:FLAGS], checked as a recipe's mounts are. */
static void default_mounts(struct cctx *cc, struct srt_cluster *c, const struct srt_ynode *v)
{
	if (!v || srt_ynode_is_null(v))
		return;
	if (v->kind != SRT_Y_MAP) {
		cerr(cc, v, "default_mounts", "must be a mapping of host path: container path");
		return;
	}
	c->default_mounts.v =
		srt_arena_alloc(&cc->doc->arena, (v->n ? v->n : 1) * sizeof(struct srt_env_var));
	for (size_t i = 0; i < v->n; i++) {
		const struct srt_ynode *k = v->pairs[i].key, *val = v->pairs[i].value;
		const char *why;
		bool relative;

		if (val->kind != SRT_Y_SCALAR || srt_ynode_is_null(val)) {
			cerr(cc, val, "default_mounts", "%s: must be a container path", k->str);
			continue;
		}
		why = srt_mount_problem(k->str, val->str, &relative);
		if (!why && srt_runplan_at_model_dir(val->str))
			why = "srtctl mounts each recipe's model at " SRT_CONTAINER_MODEL_DIR
			      "; choose another destination";
		if (why) {
			cerr(cc, k, "default_mounts", "%s: %s", k->str, why);
			continue;
		}
		c->default_mounts.v[c->default_mounts.n++] = (struct srt_env_var){
			srt_arena_printf(&cc->doc->arena, "%s:%s", k->str, val->str), NULL, val
		};
	}
}

/* A duration key of a section: "30s", "500ms", "2m"; from 1 ms to `max_ms`. */
static void duration_at(struct cctx *cc, const struct srt_ynode *map, const char *key,
			const char *path, int64_t max_ms, int64_t *out)
{
	const struct srt_ynode *t = srt_ynode_get(map, key);
	int64_t ms;

	if (!t || srt_ynode_is_null(t))
		return;
	if (t->kind != SRT_Y_SCALAR || srt_duration_parse(t->str, &ms) != 0 || ms < 1 ||
	    ms > max_ms)
		cerr(cc, t, path, "must be a duration such as 500ms, 30s or 2m, at most %lld s",
		     (long long)(max_ms / 1000));
	else
		*out = ms;
}

/* notify: {command, timeout, backoff, max_attempts} */
int srt_notify_block_parse(struct srt_ydoc *doc, const struct srt_ynode *v, const char *path,
			   struct srt_notify_block *out, struct srt_diags *diags)
{
	static const char *const keys[] = { "command", "timeout", "backoff", "max_attempts", NULL };
	struct cctx cc = { doc, diags, 0 };
	const struct srt_ynode *t;
	char p[64];
	int64_t n;

	*out = (struct srt_notify_block){
		{ NULL, 0 }, SRT_NOTIFY_TIMEOUT_MS, SRT_NOTIFY_BACKOFF_MS, SRT_NOTIFY_MAX_ATTEMPTS
	};
	if (!v || srt_ynode_is_null(v))
		return 0;
	if (v->kind != SRT_Y_MAP) {
		cerr(&cc, v, path, "must be a mapping with command: [argv...]");
		return cc.errors;
	}
	keys_known(&cc, v, path, keys);
	t = srt_ynode_get(v, "command");
	snprintf(p, sizeof(p), "%s.command", path);
	if (!t || srt_ynode_is_null(t))
		cerr(&cc, v, path,
		     "needs command: the program (an argv list) that receives "
		     "each notification as JSON on stdin");
	else
		argv_at(&cc, t, p, &out->command);
	snprintf(p, sizeof(p), "%s.timeout", path);
	duration_at(&cc, v, "timeout", p, 3600 * 1000, &out->timeout_ms);
	snprintf(p, sizeof(p), "%s.backoff", path);
	duration_at(&cc, v, "backoff", p, 3600 * 1000, &out->backoff_ms);
	t = srt_ynode_get(v, "max_attempts");
	snprintf(p, sizeof(p), "%s.max_attempts", path);
	if (t && !srt_ynode_is_null(t)) {
		if (!srt_ynode_int(t, &n) || n < 1 || n > 1000)
			cerr(&cc, t, p, "must be an integer from 1 to 1000");
		else
			out->max_attempts = (int)n;
	}
	return cc.errors;
}

int srt_cluster_parse(struct srt_cluster *c, struct srt_ydoc *doc, struct srt_diags *diags)
{
	static const char *const rt[] = { "network_interface", "container_runtime", "log_root",
					  NULL };
	static const char *const rest[] = { "url",	  "api_version",   "user",
					    "token_file", "token_command", "timeout_seconds",
					    NULL };
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
	top_keys_check(&cc, root);
	c->network_interface = str_at(&cc, root, "network_interface", "network_interface", NULL);
	c->visible_devices_env =
		str_at(&cc, root, "visible_devices_env", "visible_devices_env", NULL);
	if (c->visible_devices_env && !srt_is_env_name(c->visible_devices_env))
		cerr(&cc, srt_ynode_get(root, "visible_devices_env"), "visible_devices_env",
		     "'%s' is not an environment variable name ([A-Za-z_][A-Za-z0-9_]*); write "
		     "e.g. CUDA_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES",
		     c->visible_devices_env);
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
			crt = str_at(&cc, v, "container_runtime", "runtime.container_runtime",
				     NULL);
			if (crt && !strcmp(crt, "pyxis"))
				c->container_runtime = SRT_CRT_PYXIS;
			else if (crt && strcmp(crt, "none"))
				cerr(&cc, srt_ynode_get(v, "container_runtime"),
				     "runtime.container_runtime",
				     "unknown container runtime '%s'; expected pyxis or none", crt);
		}
	}
	c->default_account = str_at(&cc, root, "default_account", "default_account", NULL);
	c->default_partition = str_at(&cc, root, "default_partition", "default_partition", NULL);
	c->default_time_limit = str_at(&cc, root, "default_time_limit", "default_time_limit", NULL);
	c->default_container = str_at(&cc, root, "default_container", "default_container", NULL);
	c->srtctl_root = str_at(&cc, root, "srtctl_root", "srtctl_root", NULL);
	if (c->srtctl_root && c->srtctl_root[0] != '/')
		cerr(&cc, srt_ynode_get(root, "srtctl_root"), "srtctl_root",
		     "'%s' is not an absolute path; write the srt-slurm checkout's full path (its "
		     "configs/ holds the recipes' setup_script)",
		     c->srtctl_root);
	c->default_bash_preamble =
		str_at(&cc, root, "default_bash_preamble", "default_bash_preamble", NULL);
	if (c->default_bash_preamble &&
	    strlen(c->default_bash_preamble) != srt_ynode_get(root, "default_bash_preamble")->len) {
		cerr(&cc, srt_ynode_get(root, "default_bash_preamble"), "default_bash_preamble",
		     "contains a NUL byte, which bash cannot run");
		c->default_bash_preamble = NULL;
	} else if (c->default_bash_preamble && !*c->default_bash_preamble) {
		c->default_bash_preamble = NULL;
	}
	v = srt_ynode_get(root, "nginx_raise_ulimit");
	if (v && !srt_ynode_is_null(v)) {
		bool up = false;

		bool_at(&cc, root, "nginx_raise_ulimit", &up);
		c->nginx_raise_ulimit = up;
	}
	cluster_section(&cc, c, srt_ynode_get(root, "cluster"));
	bool_at(&cc, root, "use_gpus_per_node_directive", &c->use_gpus_per_node_directive);
	bool_at(&cc, root, "use_segment_sbatch_directive", &c->use_segment_sbatch_directive);
	if (srt_ynode_get(root, "use_exclusive_sbatch_directive") &&
	    !srt_ynode_is_null(srt_ynode_get(root, "use_exclusive_sbatch_directive"))) {
		bool ex = false;

		bool_at(&cc, root, "use_exclusive_sbatch_directive", &ex);
		c->use_exclusive_sbatch_directive = ex;
	}
	default_directives(&cc, c, srt_ynode_get(root, "default_sbatch_directives"));
	default_health(&cc, c, srt_ynode_get(root, "default_health_check"));
	default_mounts(&cc, c, srt_ynode_get(root, "default_mounts"));
	if (c->network_interface && !*c->network_interface)
		c->network_interface = NULL;
	if (c->default_container && !*c->default_container)
		c->default_container = NULL;
	alias_map(&cc, srt_ynode_get(root, "containers"), "containers", "image", &c->containers);
	alias_map(&cc, srt_ynode_get(root, "model_paths"), "model_paths", "model path",
		  &c->model_paths);
	v = srt_ynode_get(root, "slurmrestd");
	if (v && !srt_ynode_is_null(v)) {
		if (v->kind != SRT_Y_MAP) {
			cerr(&cc, v, "slurmrestd", "must be a mapping");
		} else {
			const struct srt_ynode *t;
			int64_t secs;

			keys_known(&cc, v, "slurmrestd", rest);
			c->slurmrestd.url = str_at(&cc, v, "url", "slurmrestd.url", NULL);
			c->slurmrestd.api_version =
				str_at(&cc, v, "api_version", "slurmrestd.api_version", NULL);
			c->slurmrestd.user = str_at(&cc, v, "user", "slurmrestd.user", NULL);
			c->slurmrestd.token_file =
				str_at(&cc, v, "token_file", "slurmrestd.token_file", NULL);
			t = srt_ynode_get(v, "token_command");
			if (t && !srt_ynode_is_null(t))
				argv_at(&cc, t, "slurmrestd.token_command",
					&c->slurmrestd.token_command);
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
	cc.errors += srt_notify_block_parse(cc.doc, srt_ynode_get(root, "notify"), "notify",
					    &c->notify, cc.d);
	v = srt_ynode_get(root, "commands");
	if (v && !srt_ynode_is_null(v)) {
		if (v->kind != SRT_Y_MAP) {
			cerr(&cc, v, "commands", "must be a mapping of name: argv");
		} else {
			keys_known(&cc, v, "commands", cmd_names);
			for (int k = 0; k < SRT_CMD_COUNT; k++) {
				const struct srt_ynode *a = srt_ynode_get(v, cmd_names[k]);

				if (a)
					argv_at(&cc, a,
						srt_arena_printf(&doc->arena, "commands.%s",
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

void srt_cluster_apply(const struct srt_cluster *c, struct srt_recipe *r)
{
	const char *path;

	if (!c || !r)
		return;
	if (r->model.path && (path = srt_env_get(&c->model_paths, r->model.path)))
		r->model.path = path;
	/* `container: ""` names no image either (srtctl renders it as none) */
	if ((!r->model.container || !*r->model.container) && c->default_container)
		r->model.container = c->default_container;
}

const char *srt_cluster_container(const struct srt_cluster *c, const char *name)
{
	const char *img;

	if (!name)
		return NULL;
	img = srt_env_get(&c->containers, name);
	return img ? img : name;
}
