/*
 * loadgen/loadgen.c: the benchmark adapters (loadgen/loadgen.h).
 *
 * This file owns the knowledge of the benchmark tools' surfaces: which
 * flags srtctl sets for a load point (and so refuses in benchmark.params),
 * how a point's warmup is spelled, and which keys of each tool's result
 * JSON hold the columns of campaign_points.  The facts come from
 * vllm-project/vllm vllm/benchmarks/serve.py and datasets.py (2026 main) and
 * NVIDIA/srt-slurm src/srtctl/benchmarks/scripts/sa-bench/{bench.sh,
 * benchmark_serving.py}; docs/recipe-reference.md says which argv each tool
 * gets.  Pure: no I/O.
 */
#include "loadgen/loadgen.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

/* A growable NULL-terminated vector of owned strings. */
struct vec {
	char **v;
	size_t n, cap;
};

static void vec_push(struct vec *a, char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		a->v = srt_xrealloc(a->v, a->cap * sizeof(*a->v));
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

static void vec_add(struct vec *a, const char *s)
{
	vec_push(a, srt_xstrdup(s));
}

static void vec_flag(struct vec *a, const char *flag, const char *value)
{
	vec_add(a, flag);
	vec_add(a, value);
}

static void vec_flag_int(struct vec *a, const char *flag, int64_t value)
{
	vec_add(a, flag);
	vec_push(a, srt_xasprintf("%" PRId64, value));
}

static void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

void srt_loadgen_cmd_release(struct srt_loadgen_cmd *c)
{
	if (!c)
		return;
	strv_free(c->warmup_argv);
	strv_free(c->argv);
	strv_free(c->env);
	memset(c, 0, sizeof(*c));
}

static const char *const vllm_prefix[] = { "vllm", "bench", "serve", NULL };
static const char *const sa_prefix[] = { "python3", "-u",
					 "/srtctl-benchmarks/sa-bench/benchmark_serving.py", NULL };

const char *const *srt_loadgen_default_prefix(enum srt_bench_tool tool)
{
	switch (tool) {
	case SRT_BENCH_VLLM:
		return vllm_prefix;
	case SRT_BENCH_SA:
		return sa_prefix;
	case SRT_BENCH_CUSTOM:
		break;
	}
	return NULL;
}

/*
 * The flags srtctl sets from the point and the deployment (without "--"):
 * a param naming one would change what the point measures or where its
 * result goes, so it is refused.  common_owned holds both tools' (with
 * --host/--port, which would override the URL); each tool's list adds its
 * own and the spellings that alias one of them (vLLM's --input-len maps
 * onto --random-input-len; sa-bench's --api-url overrides the URL).
 */
static const char *const common_owned[] = { "backend",
					    "base-url",
					    "host",
					    "port",
					    "endpoint",
					    "model",
					    "served-model-name",
					    "tokenizer",
					    "dataset-name",
					    "dataset-path",
					    "random-input-len",
					    "random-output-len",
					    "num-prompts",
					    "max-concurrency",
					    "ignore-eos",
					    "save-result",
					    "result-dir",
					    "result-filename",
					    "percentile-metrics",
					    "metric-percentiles",
					    "seed",
					    "disable-tqdm",
					    NULL };
static const char *const vllm_owned[] = { "input-len", "output-len", "num-warmups", "append-result",
					  NULL };
static const char *const sa_owned[] = { "api-url", "dataset", NULL };

/* sa-bench flags srtctl sets as srt-slurm's bench.sh does unless params set them. */
struct dflt {
	const char *flag, *value; /* value NULL: a bare flag */
};
static const struct dflt sa_defaults[] = {
	{ "request-rate", "inf" },
	{ "random-range-ratio", "0.8" },
	{ "trust-remote-code", NULL },
	{ NULL, NULL },
};

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

/* "--" + key with '_' turned into '-' (srt-slurm writes snake_case keys). */
static char *flag_of(const char *key)
{
	char *f = srt_xasprintf("--%s", key);

	for (char *p = f + 2; *p; p++)
		if (*p == '_')
			*p = '-';
	return f;
}

static int scalar_word(const json_t *v, char **out)
{
	if (json_is_string(v))
		*out = srt_xstrdup(json_string_value(v));
	else if (json_is_integer(v))
		*out = srt_xasprintf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_real(v))
		*out = srt_xasprintf("%.17g", json_real_value(v));
	else if (json_is_boolean(v))
		*out = srt_xstrdup(json_is_true(v) ? "true" : "false");
	else
		return -1;
	return 0;
}

/*
 * Append the params (a JSON object) to `a` as flags; also fills `given`
 * with their flag names so defaults can step aside.
 */
static int add_params(struct vec *a, struct vec *given, const char *params,
		      const char *const *owned, struct srt_error *err)
{
	json_t *o = NULL, *v;
	json_error_t je;
	const char *key;
	int rc = -1;

	if (!params || !*params)
		return 0;
	o = json_loads(params, JSON_REJECT_DUPLICATES, &je);
	if (!o || !json_is_object(o)) {
		srt_error_set(err, "benchmark.params: not a JSON object (%s)",
			      o ? "another JSON value" : je.text);
		goto out;
	}
	json_object_foreach(o, key, v)
	{
		char *flag = flag_of(key);
		char *w = NULL;

		if (!key[0] || strchr(key, '=') || key[0] == '-') {
			srt_error_set(err,
				      "benchmark.params: '%s' is not a flag name (write it "
				      "without leading dashes)",
				      key);
			free(flag);
			goto out;
		}
		if (in_list(common_owned, flag + 2) || in_list(owned, flag + 2)) {
			srt_error_set(err,
				      "benchmark.params: '%s' is set by srtctl from the load "
				      "point and the deployment (%s); remove it",
				      key, flag);
			free(flag);
			goto out;
		}
		vec_add(given, flag + 2);
		if (json_is_true(v)) {
			vec_push(a, flag);
			continue;
		}
		if (json_is_false(v) || json_is_null(v)) {
			free(flag);
			continue;
		}
		if (json_is_array(v)) {
			size_t i;
			json_t *e;

			vec_push(a, flag);
			json_array_foreach(v, i, e)
			{
				if (scalar_word(e, &w) < 0) {
					srt_error_set(
						err,
						"benchmark.params: '%s': a list may hold only "
						"strings and numbers",
						key);
					goto out;
				}
				vec_push(a, w);
			}
			continue;
		}
		if (scalar_word(v, &w) < 0) {
			srt_error_set(err,
				      "benchmark.params: '%s': a value must be a string, a "
				      "number, a boolean or a list of them, not an object",
				      key);
			free(flag);
			goto out;
		}
		vec_push(a, flag);
		vec_push(a, w);
	}
	rc = 0;
out:
	json_decref(o);
	return rc;
}

static void add_prefix(struct vec *a, const struct srt_loadgen_spec *s)
{
	const char *const *p = s->prefix ? s->prefix : srt_loadgen_default_prefix(s->tool);
	size_t n = s->prefix ? s->nprefix : SIZE_MAX;

	for (size_t i = 0; i < n && p[i]; i++)
		vec_add(a, p[i]);
}

/* The variables a point's processes get, in their order (srt_loadgen_cmd.env). */
static const char *const env_names[] = {
	"SRT_FRONTEND_URL", "SRT_BENCH_MODEL",	     "SRT_BENCH_TOKENIZER", "SRT_BENCH_ISL",
	"SRT_BENCH_OSL",    "SRT_BENCH_CONCURRENCY", "SRT_BENCH_PROMPTS",   "SRT_BENCH_WARMUP",
	"SRT_BENCH_REPEAT", "SRT_BENCH_RESULT_FILE",
};
#define NENV (sizeof(env_names) / sizeof(env_names[0]))

/* The value of env_names[i] for spec `s` (malloc'd). */
static char *env_value(const struct srt_loadgen_spec *s, size_t i)
{
	const struct srt_loadgen_point *p = &s->point;
	const int64_t nums[] = { p->isl, p->osl, p->concurrency, p->prompts, p->warmup, p->repeat };

	switch (i) {
	case 0:
		return srt_xstrdup(s->frontend_url);
	case 1:
		return srt_xstrdup(s->model);
	case 2:
		return srt_xstrdup(s->tokenizer ? s->tokenizer : s->model);
	case NENV - 1:
		return srt_xstrdup(s->result_file);
	default:
		return srt_xasprintf("%" PRId64, nums[i - 3]);
	}
}

static void add_env(struct vec *e, const struct srt_loadgen_spec *s)
{
	for (size_t i = 0; i < NENV; i++) {
		char *v = env_value(s, i);

		vec_push(e, srt_xasprintf("%s=%s", env_names[i], v));
		free(v);
	}
}

/*
 * Expand $NAME and ${NAME} of env_names in `tmpl` with spec `s`'s values
 * (s NULL: only check the names).  *out malloc'd (NULL when s is NULL).
 */
static int expand(const char *tmpl, const struct srt_loadgen_spec *s, char **out,
		  struct srt_error *err)
{
	struct srt_buf b;

	*out = NULL;
	srt_buf_init(&b);
	for (const char *p = tmpl; *p;) {
		const char *name, *end;
		size_t i, len;
		bool brace;

		if (*p != '$') {
			srt_buf_putc(&b, *p);
			p++;
			continue;
		}
		brace = p[1] == '{';
		name = p + 1 + brace;
		for (end = name; (*end >= 'A' && *end <= 'Z') || (*end >= '0' && *end <= '9') ||
				 *end == '_' || (*end >= 'a' && *end <= 'z');
		     end++)
			;
		len = (size_t)(end - name);
		for (i = 0; i < NENV; i++)
			if (strlen(env_names[i]) == len && !strncmp(name, env_names[i], len))
				break;
		if (i == NENV || (brace && *end != '}')) {
			srt_buf_release(&b);
			return srt_error_set(err,
					     "'%.*s' is not a variable srtctl sets; write $NAME or "
					     "${NAME} with one of SRT_BENCH_ISL, SRT_BENCH_OSL, "
					     "SRT_BENCH_CONCURRENCY, SRT_BENCH_PROMPTS, "
					     "SRT_BENCH_WARMUP, SRT_BENCH_REPEAT, SRT_BENCH_MODEL, "
					     "SRT_BENCH_TOKENIZER, SRT_FRONTEND_URL, "
					     "SRT_BENCH_RESULT_FILE",
					     (int)(end - p + (brace && *end == '}')), p);
		}
		if (s) {
			char *v = env_value(s, i);

			srt_buf_puts(&b, v);
			free(v);
		}
		p = end + brace;
	}
	if (s)
		*out = srt_buf_detach(&b);
	srt_buf_release(&b);
	return 0;
}

int srt_loadgen_result_file_check(const char *tmpl, struct srt_error *err)
{
	char *unused;

	if (!*tmpl)
		return srt_error_set(err, "the result file is empty");
	if (strlen(tmpl) > SRT_LOADGEN_MAX_RESULT_PATH)
		return srt_error_set(err, "the result file's name is longer than %d bytes",
				     SRT_LOADGEN_MAX_RESULT_PATH);
	return expand(tmpl, NULL, &unused, err);
}

int srt_loadgen_result_path(const char *tmpl, const struct srt_loadgen_spec *s, const char *dir,
			    char **out, struct srt_error *err)
{
	char *p;

	*out = NULL;
	if (srt_loadgen_result_file_check(tmpl, err) != 0 || expand(tmpl, s, &p, err) != 0)
		return -1;
	if (!*p || p[strlen(p) - 1] == '/' || strlen(p) > SRT_LOADGEN_MAX_RESULT_PATH) {
		srt_error_set(err, "the result file '%s' (from '%s') %s", p, tmpl,
			      *p && p[strlen(p) - 1] == '/' ? "names a directory" : "is too long");
		free(p);
		return -1;
	}
	if (p[0] == '/') {
		*out = p;
	} else {
		*out = srt_xasprintf("%s/%s", dir, p);
		free(p);
	}
	return 0;
}

/* The flags vllm-bench and sa-bench share, in their order. */
static void add_common(struct vec *a, const struct srt_loadgen_spec *s, const char *backend,
		       int64_t prompts)
{
	const struct srt_loadgen_point *p = &s->point;

	vec_flag(a, "--backend", backend);
	vec_flag(a, "--base-url", s->frontend_url);
	vec_flag(a, "--endpoint", "/v1/completions");
	vec_flag(a, "--model", s->model);
	vec_flag(a, "--tokenizer", s->tokenizer ? s->tokenizer : s->model);
	vec_flag(a, "--dataset-name", "random");
	vec_flag_int(a, "--random-input-len", p->isl);
	vec_flag_int(a, "--random-output-len", p->osl);
	vec_flag_int(a, "--num-prompts", prompts);
	vec_flag_int(a, "--max-concurrency", p->concurrency);
	vec_flag_int(a, "--seed", p->repeat);
	vec_add(a, "--ignore-eos");
	vec_add(a, "--disable-tqdm");
	vec_flag(a, "--percentile-metrics", "ttft,tpot,itl,e2el");
	vec_flag(a, "--metric-percentiles", "50,99");
}

/* --save-result --result-dir DIR --result-filename NAME from the path. */
static void add_result(struct vec *a, const char *path)
{
	const char *slash = strrchr(path, '/');

	vec_add(a, "--save-result");
	vec_add(a, "--result-dir");
	vec_push(a, slash == path ? srt_xstrdup("/") : srt_xstrndup(path, (size_t)(slash - path)));
	vec_flag(a, "--result-filename", slash + 1);
}

static int check_spec(const struct srt_loadgen_spec *s, struct srt_error *err)
{
	const struct srt_loadgen_point *p = &s->point;
	const char *slash;

	if (!s->frontend_url || !*s->frontend_url)
		return srt_error_set(err, "benchmark: no frontend URL (the deployment has no "
					  "frontend to send the load to)");
	if (!s->model || !*s->model)
		return srt_error_set(err, "benchmark: no served model name");
	if (!s->result_file || s->result_file[0] != '/')
		return srt_error_set(err, "benchmark: the result file '%s' is not an absolute path",
				     s->result_file ? s->result_file : "");
	slash = strrchr(s->result_file, '/');
	if (!slash[1])
		return srt_error_set(err, "benchmark: the result file '%s' names a directory",
				     s->result_file);
	if (p->isl <= 0 || p->osl <= 0 || p->concurrency <= 0 || p->prompts <= 0 || p->warmup < 0 ||
	    p->repeat < 0)
		return srt_error_set(err,
				     "benchmark: load point isl=%" PRId64 " osl=%" PRId64
				     " concurrency=%" PRId64 " prompts=%" PRId64 " warmup=%" PRId64
				     ": isl, osl, concurrency and prompts must be positive",
				     p->isl, p->osl, p->concurrency, p->prompts, p->warmup);
	return 0;
}

static int build_vllm(struct srt_loadgen_cmd *out, const struct srt_loadgen_spec *s,
		      struct srt_error *err)
{
	struct vec a = { 0 }, given = { 0 };
	int rc = -1;

	add_prefix(&a, s);
	add_common(&a, s, "vllm", s->point.prompts);
	vec_flag_int(&a, "--num-warmups", s->point.warmup);
	add_result(&a, s->result_file);
	if (add_params(&a, &given, s->params_json, vllm_owned, err) < 0)
		goto out;
	out->argv = a.v;
	a.v = NULL;
	rc = 0;
out:
	strv_free(a.v);
	strv_free(given.v);
	return rc;
}

static void add_sa_defaults(struct vec *a, const struct vec *given, const char *skip)
{
	for (const struct dflt *d = sa_defaults; d->flag; d++) {
		if (given->v && in_list((const char *const *)given->v, d->flag))
			continue;
		if (skip && strcmp(d->flag, skip) == 0)
			continue;
		vec_push(a, srt_xasprintf("--%s", d->flag));
		if (d->value)
			vec_add(a, d->value);
	}
}

static int build_sa(struct srt_loadgen_cmd *out, const struct srt_loadgen_spec *s,
		    struct srt_error *err)
{
	struct vec a = { 0 }, w = { 0 }, given = { 0 }, params = { 0 };
	int rc = -1;

	/* the params go into both runs; build them once and copy */
	if (add_params(&params, &given, s->params_json, sa_owned, err) < 0)
		goto out;
	add_prefix(&a, s);
	add_common(&a, s, "dynamo", s->point.prompts);
	add_sa_defaults(&a, &given, NULL);
	add_result(&a, s->result_file);
	for (size_t i = 0; i < params.n; i++)
		vec_add(&a, params.v[i]);
	if (s->point.warmup > 0) {
		/* bench.sh's warmup run: same flags, its own prompt count, request
		 * rate 250, no result file */
		add_prefix(&w, s);
		add_common(&w, s, "dynamo", s->point.warmup);
		vec_flag(&w, "--request-rate", "250");
		add_sa_defaults(&w, &given, "request-rate");
		for (size_t i = 0; i < params.n; i++) {
			if (strcmp(params.v[i], "--request-rate") == 0) {
				i++; /* the warmup keeps its own rate */
				continue;
			}
			vec_add(&w, params.v[i]);
		}
		out->warmup_argv = w.v;
		w.v = NULL;
	}
	out->argv = a.v;
	a.v = NULL;
	rc = 0;
out:
	strv_free(a.v);
	strv_free(w.v);
	strv_free(given.v);
	strv_free(params.v);
	return rc;
}

static int build_custom(struct srt_loadgen_cmd *out, const struct srt_loadgen_spec *s,
			struct srt_error *err)
{
	struct vec a = { 0 };

	if (s->command_shell && *s->command_shell) {
		vec_add(&a, "bash");
		vec_add(&a, "-lc");
		vec_add(&a, s->command_shell);
	} else {
		for (size_t i = 0; i < s->ncommand; i++)
			vec_add(&a, s->command[i]);
	}
	if (!a.n)
		return srt_error_set(err, "benchmark: tool 'custom' needs benchmark.command");
	out->argv = a.v;
	return 0;
}

int srt_loadgen_build(struct srt_loadgen_cmd *out, const struct srt_loadgen_spec *spec,
		      struct srt_error *err)
{
	struct vec env = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	if (check_spec(spec, err) < 0)
		return -1;
	switch (spec->tool) {
	case SRT_BENCH_VLLM:
		rc = build_vllm(out, spec, err);
		break;
	case SRT_BENCH_SA:
		rc = build_sa(out, spec, err);
		break;
	case SRT_BENCH_CUSTOM:
		rc = build_custom(out, spec, err);
		break;
	default:
		return srt_error_set(err, "benchmark: unknown tool %d", (int)spec->tool);
	}
	if (rc < 0) {
		srt_loadgen_cmd_release(out);
		return -1;
	}
	add_env(&env, spec);
	out->env = env.v;
	return 0;
}

/* ------------------------------------------------------------------------
 * Results
 */

void srt_point_result_release(struct srt_point_result *r)
{
	if (!r)
		return;
	free(r->raw_json);
	memset(r, 0, sizeof(*r));
}

const char *const srt_point_metric_names[SRT_POINT_NMETRICS] = {
	"completed",
	"duration_s",
	"total_input_tokens",
	"total_output_tokens",
	"request_throughput",
	"output_throughput",
	"total_token_throughput",
	"mean_ttft_ms",
	"median_ttft_ms",
	"p99_ttft_ms",
	"mean_tpot_ms",
	"median_tpot_ms",
	"p99_tpot_ms",
	"mean_itl_ms",
	"median_itl_ms",
	"p99_itl_ms",
	"mean_e2el_ms",
	"median_e2el_ms",
	"p99_e2el_ms",
	"errors",
};

void srt_loadgen_metrics(const struct srt_point_result *r, double out[SRT_POINT_NMETRICS])
{
	size_t k = 0;

	out[k++] = (double)r->completed;
	out[k++] = r->duration_s;
	out[k++] = (double)r->total_input_tokens;
	out[k++] = (double)r->total_output_tokens;
	out[k++] = r->request_throughput;
	out[k++] = r->output_throughput;
	out[k++] = r->total_token_throughput;
	for (int m = 0; m < SRT_SLO_NMETRICS; m++)
		for (int s = 0; s < SRT_SLO_NSTATS; s++)
			out[k++] = r->ms[m][s];
	out[k] = (double)r->errors;
}

static int get_num(const json_t *o, const char *key, double *out, struct srt_error *err)
{
	const json_t *v = json_object_get(o, key);

	if (!v)
		return srt_error_set(err, "key '%s' is missing", key);
	if (!json_is_number(v))
		return srt_error_set(err, "'%s' is not a number", key);
	*out = json_number_value(v);
	if (!isfinite(*out) || *out < 0)
		return srt_error_set(err, "'%s' is %g, not a finite number >= 0", key, *out);
	return 0;
}

static int get_count(const json_t *o, const char *key, int64_t *out, struct srt_error *err)
{
	const json_t *v = json_object_get(o, key);

	if (!v)
		return srt_error_set(err, "key '%s' is missing", key);
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
	} else if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) &&
		   fabs(json_real_value(v)) < 9007199254740992.0) {
		*out = (int64_t)json_real_value(v);
	} else {
		return srt_error_set(err, "'%s' is not an integer count", key);
	}
	if (*out < 0)
		return srt_error_set(err, "'%s' is %" PRId64 ", a negative count", key, *out);
	return 0;
}

static const char *const metric_names[SRT_SLO_NMETRICS] = { "ttft", "tpot", "itl", "e2el" };
static const char *const stat_names[SRT_SLO_NSTATS] = { "mean", "median", "p99" };

/*
 * latencies_optional (custom): a latency the file does not have is unknown
 * (NaN), as vLLM's bench serve leaves out e2el unless --percentile-metrics
 * names it; srtctl asks vllm-bench and sa-bench for every one.
 */
static int parse_obj(struct srt_point_result *r, const json_t *o,
		     const struct srt_loadgen_point *point, bool latencies_optional,
		     struct srt_error *err)
{
	const json_t *errs;

	if (get_count(o, "completed", &r->completed, err) < 0 ||
	    get_num(o, "duration", &r->duration_s, err) < 0 ||
	    get_count(o, "total_input_tokens", &r->total_input_tokens, err) < 0 ||
	    get_count(o, "total_output_tokens", &r->total_output_tokens, err) < 0 ||
	    get_num(o, "request_throughput", &r->request_throughput, err) < 0 ||
	    get_num(o, "output_throughput", &r->output_throughput, err) < 0 ||
	    get_num(o, "total_token_throughput", &r->total_token_throughput, err) < 0)
		return -1;
	for (int m = 0; m < SRT_SLO_NMETRICS; m++) {
		for (int s = 0; s < SRT_SLO_NSTATS; s++) {
			char key[32];

			snprintf(key, sizeof(key), "%s_%s_ms", stat_names[s], metric_names[m]);
			if (latencies_optional && !json_object_get(o, key))
				r->ms[m][s] = NAN;
			else if (get_num(o, key, &r->ms[m][s], err) < 0)
				return -1;
		}
	}
	if (json_object_get(o, "num_prompts")) {
		if (get_count(o, "num_prompts", &r->num_prompts, err) < 0)
			return -1;
	} else {
		r->num_prompts = point ? point->prompts : 0;
	}
	errs = json_object_get(o, "errors");
	if (json_object_get(o, "failed")) {
		if (get_count(o, "failed", &r->errors, err) < 0)
			return -1;
	} else if (json_is_array(errs)) {
		/* one entry per request, "" for a success (sa-bench) */
		size_t n = json_array_size(errs);

		if ((int64_t)n < r->completed)
			return srt_error_set(err,
					     "'errors' lists %zu requests, fewer than the %" PRId64
					     " completed",
					     n, r->completed);
		r->errors = (int64_t)n - r->completed;
	} else {
		return srt_error_set(err, "neither 'failed' nor an 'errors' list says how many "
					  "requests failed");
	}
	if (r->num_prompts && r->completed + r->errors > r->num_prompts)
		return srt_error_set(err,
				     "completed %" PRId64 " + failed %" PRId64
				     " is more than the %" PRId64 " prompts",
				     r->completed, r->errors, r->num_prompts);
	return 0;
}

int srt_loadgen_parse_result(struct srt_point_result *out, enum srt_bench_tool tool,
			     const char *data, size_t len, const struct srt_loadgen_point *point,
			     struct srt_error *err)
{
	json_t *o = NULL;
	json_error_t je;
	int rc = -1;
	const char *name = tool == SRT_BENCH_VLLM ? "vllm-bench" :
			   tool == SRT_BENCH_SA	  ? "sa-bench" :
						    "custom";

	memset(out, 0, sizeof(*out));
	if (len > SRT_LOADGEN_MAX_RESULT_BYTES) {
		srt_error_set(err, "%s result: %zu bytes, more than the %u a result may have", name,
			      len, SRT_LOADGEN_MAX_RESULT_BYTES);
		goto out;
	}
	o = json_loadb(data ? data : "", len, JSON_REJECT_DUPLICATES, &je);
	if (!o) {
		srt_error_set(err, "%s result: not JSON (line %d column %d: %s); truncated?", name,
			      je.line, je.column, je.text);
		goto out;
	}
	if (!json_is_object(o)) {
		srt_error_set(err, "%s result: not a JSON object", name);
		goto out;
	}
	if (parse_obj(out, o, point, tool == SRT_BENCH_CUSTOM, err) < 0) {
		srt_error_prefix(err, "%s result", name);
		goto out;
	}
	out->raw_json = srt_xstrndup(data, len);
	out->raw_len = len;
	rc = 0;
out:
	json_decref(o);
	if (rc < 0)
		srt_point_result_release(out);
	return rc;
}

/* ------------------------------------------------------------------------
 * Validity and SLO
 */

bool srt_loadgen_valid(const struct srt_point_result *r, const struct srt_loadgen_point *point,
		       const struct srt_loadgen_validity *v, char *reason, size_t reason_size)
{
	double req = (double)point->prompts;
	double done = req > 0 ? (double)r->completed / req : 0;
	double erred = req > 0 ? (double)r->errors / req : 1;
	double want_tokens = req * (double)point->osl;
	double tokens = want_tokens > 0 ? (double)r->total_output_tokens / want_tokens : 0;

	if (done < v->min_completed_ratio) {
		snprintf(reason, reason_size,
			 "completed %" PRId64 " of %" PRId64
			 " requests (%.1f%%), below validity.minCompletedRatio %g",
			 r->completed, point->prompts, 100.0 * done, v->min_completed_ratio);
		return false;
	}
	if (erred > v->max_error_ratio) {
		snprintf(reason, reason_size,
			 "%" PRId64 " of %" PRId64
			 " requests failed (%.1f%%), above validity.maxErrorRatio %g",
			 r->errors, point->prompts, 100.0 * erred, v->max_error_ratio);
		return false;
	}
	if (tokens < v->min_output_tokens_ratio) {
		snprintf(reason, reason_size,
			 "generated %" PRId64 " output tokens of %.0f requested (%" PRId64
			 " prompts x osl %" PRId64
			 ", %.1f%%), below validity.minOutputTokensRatio %g",
			 r->total_output_tokens, want_tokens, point->prompts, point->osl,
			 100.0 * tokens, v->min_output_tokens_ratio);
		return false;
	}
	if (reason_size)
		reason[0] = '\0';
	return true;
}

enum srt_slo_verdict srt_loadgen_slo(const struct srt_point_result *r,
				     const double slo_ms[SRT_SLO_NMETRICS][SRT_SLO_NSTATS],
				     char *reason, size_t reason_size)
{
	bool any = false;

	if (reason && reason_size)
		reason[0] = '\0';
	for (int m = 0; m < SRT_SLO_NMETRICS; m++) {
		for (int s = 0; s < SRT_SLO_NSTATS; s++) {
			if (slo_ms[m][s] <= 0)
				continue;
			any = true;
			if (isnan(r->ms[m][s])) { /* a custom tool's file without it */
				if (reason && reason_size)
					snprintf(reason, reason_size,
						 "%s %s unknown (the result has no %s_%s_ms) "
						 "> slo %g ms",
						 stat_names[s], metric_names[m], stat_names[s],
						 metric_names[m], slo_ms[m][s]);
				return SRT_SLO_MISSED;
			}
			if (r->ms[m][s] > slo_ms[m][s]) {
				if (reason && reason_size)
					snprintf(reason, reason_size, "%s %s %.1f ms > slo %g ms",
						 stat_names[s], metric_names[m], r->ms[m][s],
						 slo_ms[m][s]);
				return SRT_SLO_MISSED;
			}
		}
	}
	return any ? SRT_SLO_MET : SRT_SLO_NONE;
}
