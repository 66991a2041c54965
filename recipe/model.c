/* recipe/model.c: names of the model's enums and small lookups. */
#include "recipe/model.h"
#include "util/strutil.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

const struct srt_mocker_knob *srt_mocker_knobs(void)
{
	static const char *const engines[] = { "vllm", "sglang", "trtllm", NULL };
	static const char *const preempt[] = { "lifo", "fifo", NULL };
	static const char *const dtypes[] = { "auto",	  "bfloat16", "fp8",	 "fp8_ds_mla",
					      "fp8_e4m3", "fp8_e5m2", "fp8_inc", NULL };
	static const struct srt_mocker_knob knobs[SRT_MOCKER_NKNOBS] = {
		{ "engine_type", SRT_KNOB_STR, "--engine-type", true, "vllm", engines, NULL },
		{ "speedup_ratio", SRT_KNOB_FLOAT, "--speedup-ratio", true, "100.0", NULL, NULL },
		{ "data_parallel_size", SRT_KNOB_INT, "--data-parallel-size", true, "1", NULL,
		  NULL },
		{ "num_gpu_blocks_override", SRT_KNOB_INT, "--num-gpu-blocks-override", true,
		  "16384", NULL, NULL },
		{ "max_num_seqs", SRT_KNOB_INT, "--max-num-seqs", true, "256", NULL, NULL },
		{ "max_num_batched_tokens", SRT_KNOB_INT, "--max-num-batched-tokens", true, "8192",
		  NULL, NULL },
		{ "decode_speedup_ratio", SRT_KNOB_FLOAT, "--decode-speedup-ratio", false, "1.0",
		  NULL, NULL },
		{ "block_size", SRT_KNOB_INT, "--block-size", false, NULL, NULL, NULL },
		{ "num_workers", SRT_KNOB_INT, "--num-workers", false, "1", NULL, NULL },
		{ "startup_time", SRT_KNOB_FLOAT, "--startup-time", false, NULL, NULL, NULL },
		{ "kv_transfer_bandwidth", SRT_KNOB_FLOAT, "--kv-transfer-bandwidth", false, NULL,
		  NULL, NULL },
		{ "kv_cache_dtype", SRT_KNOB_STR, "--kv-cache-dtype", false, NULL, dtypes, NULL },
		{ "enable_prefix_caching", SRT_KNOB_BOOL, NULL, false, "true", NULL,
		  "--no-enable-prefix-caching" },
		{ "enable_chunked_prefill", SRT_KNOB_BOOL, NULL, false, "true", NULL,
		  "--no-enable-chunked-prefill" },
		{ "preemption_mode", SRT_KNOB_STR, "--preemption-mode", false, NULL, preempt,
		  NULL },
	};

	return knobs;
}

const char *srt_engine_name(enum srt_engine_type e)
{
	switch (e) {
	case SRT_ENGINE_SGLANG:
		return "sglang";
	case SRT_ENGINE_VLLM:
		return "vllm";
	case SRT_ENGINE_TRTLLM:
		return "trtllm";
	case SRT_ENGINE_MOCKER:
		return "mocker";
	case SRT_ENGINE_TILERT:
		return "tilert";
	case SRT_ENGINE_UNSET:
		break;
	}
	return "unset";
}

const char *srt_role_name(enum srt_role_kind k)
{
	static const char *const names[] = { "prefill", "decode", "agg" };

	return k < SRT_ROLE_COUNT ? names[k] : "?";
}

const char *srt_placement_name(enum srt_placement p)
{
	switch (p) {
	case SRT_PLACE_HEAD:
		return "head";
	case SRT_PLACE_INFRA:
		return "infra";
	case SRT_PLACE_DEDICATED:
		return "dedicated";
	case SRT_PLACE_PREFILL:
		return "prefill";
	case SRT_PLACE_DECODE:
		return "decode";
	case SRT_PLACE_AGG:
		return "agg";
	case SRT_PLACE_WORKERS:
		return "workers";
	case SRT_PLACE_POOL:
		return "pool";
	case SRT_PLACE_DEFAULT:
		break;
	}
	return "default";
}

const char *srt_start_name(enum srt_start s)
{
	switch (s) {
	case SRT_START_INFRA:
		return "infra";
	case SRT_START_BEFORE_WORKERS:
		return "before_workers";
	case SRT_START_WITH_WORKERS:
		return "with_workers";
	case SRT_START_AFTER_FRONTEND:
		return "after_frontend";
	case SRT_START_DEFAULT:
		break;
	}
	return "default";
}

const char *srt_service_type_name(enum srt_service_type t)
{
	switch (t) {
	case SRT_SVC_GENERIC:
		return "generic";
	case SRT_SVC_MOONCAKE_MASTER:
		return "mooncake-master";
	case SRT_SVC_MOONCAKE_STORE:
		return "mooncake-store";
	case SRT_SVC_ETCD:
		return "etcd";
	case SRT_SVC_NATS:
		return "nats";
	case SRT_SVC_LMCACHE_SERVER:
		return "lmcache-server";
	case SRT_SVC_MOONCAKE_DONOR:
		return "mooncake-donor";
	case SRT_SVC_RAY:
		return "ray";
	}
	return "?";
}

const struct srt_env_var *srt_env_find(const struct srt_env *env, const char *name)
{
	for (size_t i = 0; i < env->n; i++)
		if (!strcmp(env->v[i].name, name))
			return &env->v[i];
	return NULL;
}

const char *srt_env_get(const struct srt_env *env, const char *name)
{
	const struct srt_env_var *v = srt_env_find(env, name);

	return v ? v->value : NULL;
}

const struct srt_service *srt_recipe_service_of(const struct srt_recipe *r, enum srt_service_type t)
{
	for (size_t i = 0; i < r->nservices; i++)
		if (r->services[i].enabled && r->services[i].type == t)
			return &r->services[i];
	return NULL;
}

const struct srt_ynode *srt_role_connector(const struct srt_recipe *r, enum srt_role_kind k)
{
	const struct srt_role *ro = &r->roles[k];

	for (size_t i = 0; ro->args && ro->args->kind == SRT_Y_MAP && i < ro->args->n; i++)
		if (srt_str_eq_dashes(ro->args->pairs[i].key->str, "connector"))
			return srt_ynode_is_null(ro->args->pairs[i].value) ?
				       r->connector :
				       ro->args->pairs[i].value;
	return r->connector;
}

const char *srt_role_connector_name(const struct srt_recipe *r, enum srt_role_kind k)
{
	const struct srt_ynode *v = srt_role_connector(r, k);

	return v && v->kind == SRT_Y_SCALAR && !srt_ynode_is_null(v) ? v->str : NULL;
}

bool srt_role_uses_lmcache_mp(const struct srt_recipe *r, enum srt_role_kind k)
{
	const char *name;

	if (r->engine != SRT_ENGINE_VLLM || !r->roles[k].present)
		return false;
	name = srt_role_connector_name(r, k);
	return name && !strcasecmp(name, "lmcache-mp");
}

bool srt_role_trtllm_mooncake(const struct srt_recipe *r, enum srt_role_kind k,
			      const struct srt_ynode **block)
{
	const struct srt_role *ro = &r->roles[k];
	const struct srt_ynode *kc, *module, *preset;
	const char *m;

	if (block)
		*block = NULL;
	if (r->engine != SRT_ENGINE_TRTLLM || !ro->present || !ro->args)
		return false;
	kc = srt_ynode_get(ro->args, "kv_connector_config");
	if (!kc || kc->kind != SRT_Y_MAP)
		return false;
	module = srt_ynode_get(kc, "connector_module");
	preset = srt_ynode_get(kc, "connector");
	if (module && !srt_ynode_is_null(module))
		m = srt_ynode_str(module);
	else
		m = preset && srt_ynode_str(preset) &&
				    !strcmp(srt_ynode_str(preset), "mooncake-store") ?
			    SRT_TRTLLM_MOONCAKE_MODULE :
			    NULL;
	if (!m || strcmp(m, SRT_TRTLLM_MOONCAKE_MODULE))
		return false;
	if (block) {
		const struct srt_ynode *b = srt_ynode_get(kc, "mooncake_store");

		*block = b && !srt_ynode_is_null(b) ? b : NULL;
	}
	return true;
}

bool srt_recipe_trtllm_pool(const struct srt_recipe *r)
{
	const struct srt_service *m = srt_recipe_master(r);
	const struct srt_ynode *block;

	if (r->engine != SRT_ENGINE_TRTLLM || !m || m->external)
		return false;
	if (m->eviction_ratio > 0 || m->master_timeout_s > 0 || m->store_role ||
	    srt_recipe_service_of(r, SRT_SVC_MOONCAKE_DONOR))
		return true;
	for (int k = 0; k < SRT_ROLE_COUNT; k++)
		if (srt_role_trtllm_mooncake(r, (enum srt_role_kind)k, &block) && block)
			return true;
	return false;
}

const struct srt_service *srt_recipe_master(const struct srt_recipe *r)
{
	return srt_recipe_service_of(r, SRT_SVC_MOONCAKE_MASTER);
}

bool srt_recipe_doc_is_v1(const struct srt_ynode *root)
{
	if (!root || root->kind != SRT_Y_MAP)
		return false;
	if (srt_ynode_get(root, "roles") || srt_ynode_get(root, "engine"))
		return false;
	return srt_ynode_get(root, "backend") != NULL;
}

/* A character as the user should see it in a message: 'x', or \xNN. */
static const char *show_char(char c, char *buf, size_t size, const char *fmt)
{
	char ch[8];

	if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
		snprintf(ch, sizeof(ch), "'%c'", c);
	else
		snprintf(ch, sizeof(ch), "\\x%02x", (unsigned char)c);
	snprintf(buf, size, fmt, ch);
	return buf;
}

const char *srt_name_problem(const char *name, char *buf, size_t size)
{
	size_t len = 0;

	if (!name || !*name)
		return "it is empty";
	for (const char *p = name; *p; p++, len++) {
		if (len >= SRT_NAME_MAX) {
			snprintf(buf, size, "it is longer than %d characters", SRT_NAME_MAX);
			return buf;
		}
		if (!srt_ascii_alnum(*p) && *p != '-' && *p != '_' && *p != '.')
			return show_char(*p, buf, size, "it contains %s");
		if (p[0] == '.' && p[1] == '.')
			return "it contains '..'";
	}
	if (!srt_ascii_alnum(name[0]))
		return show_char(name[0], buf, size, "it starts with %s");
	if (!srt_ascii_alnum(name[len - 1]))
		return show_char(name[len - 1], buf, size, "it ends with %s");
	return NULL;
}

/* The mount flags pyxis passes to enroot (its --container-mounts FLAGS). */
static bool mount_flag_ok(const char *f, size_t n)
{
	static const char *const ok[] = { "ro",	    "rw",     "private", "rprivate", "slave",
					  "rslave", "shared", "rshared", "nosuid",   "nodev",
					  "noexec", "bind",   "rbind",	 NULL };

	for (size_t i = 0; ok[i]; i++)
		if (strlen(ok[i]) == n && !strncmp(ok[i], f, n))
			return true;
	return false;
}

static bool mount_text_ok(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == ',')
			return false;
	return *s != '\0';
}

const char *srt_mount_problem(const char *src, const char *target, bool *relative_src)
{
	size_t dlen = target ? strcspn(target, ":") : 0;
	const char *flags = target && target[dlen] ? target + dlen + 1 : NULL;
	/* pyxis mounts a tmpfs for the source "tmpfs"; its flags are tmpfs options (size=...). */
	bool tmpfs = src && !strcmp(src, "tmpfs");

	*relative_src = false;
	if (!src || !target || !mount_text_ok(src) || !mount_text_ok(target) || dlen == 0 ||
	    (flags && !*flags))
		return "a mount is SOURCE:DESTINATION[:FLAGS], each part non-empty, without ',' "
		       "(pyxis separates mounts with it) or control characters";
	if (strchr(src, ':') || (flags && strchr(flags, ':')))
		return "a mount is SOURCE:DESTINATION[:FLAGS]; a path cannot hold ':'";
	if (target[0] != '/')
		return "the destination must be an absolute path in the container";
	if (dlen == 5 && !strncmp(target, "/logs", 5))
		return "srtctl mounts the log directory at /logs; choose another destination";
	for (const char *f = tmpfs ? NULL : flags; f && *f;) {
		size_t n = strcspn(f, "+");

		if (!mount_flag_ok(f, n))
			return "unknown mount flag: pyxis takes ro, rw, private, rprivate, slave, "
			       "rslave, shared, rshared, nosuid, nodev, noexec, bind, rbind (joined "
			       "with '+')";
		f += n + (f[n] ? 1 : 0);
	}
	*relative_src = !tmpfs && src[0] != '/';
	return NULL;
}
