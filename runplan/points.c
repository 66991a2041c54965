/*
 * runplan/points.c: DIR/points.json and the agent's PointFinished reports.
 *
 * This file owns both formats of runplan/points.h: the one writer of
 * points.json (srt_points_to_json(), the controller) and its one reader
 * (srt_points_parse(), srt_points_read(), the agent), and the reader of
 * the "point" member of a PointFinished event (the controller).  Each side
 * reads a file the other side wrote, in a directory the job's user owns:
 * every value is checked, every length bounded, and an error names the
 * field.
 */
#include "runplan/points.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runplan/rundir.h"
#include "util/buf.h"

#define NAME_MAX_LEN 256    /* campaign, deployment */
#define WORD_MAX_LEN 4096   /* model, tokenizer, a command or prefix word */
#define WORDS_MAX 1024	    /* words of a command or prefix */
#define SHELL_MAX_LEN 65536 /* a custom command as a string */
#define RETRIES_MAX 100
#define TOKENS_MAX 10000000   /* isl, osl */
#define PROMPTS_MAX 100000000 /* prompts, warmup */
#define REPEAT_MAX 1000
#define SEQ_MAX 1000000000 /* a point's seq */
#define RAW_PATH_MAX 255
#define REASON_MAX 65536

static const char *const tool_names[] = { "vllm-bench", "sa-bench", "custom" };
static const char *const slo_metric[SRT_SLO_NMETRICS] = { "ttft", "tpot", "itl", "e2el" };
static const char *const slo_stat[SRT_SLO_NSTATS] = { "mean", "median", "p99" };
static const char *const top_keys[] = { "version",   "campaign",   "deployment", "tool",
					"params",    "command",	   "prefix",	 "model",
					"tokenizer", "retries",	   "validity",	 "slo",
					"points",    "result_file" };
static const char *const point_keys[] = { "id",		 "seq",	    "isl",    "osl",
					  "concurrency", "prompts", "warmup", "repeat" };

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
/* "what: " before a message, or nothing for a top-level field (what NULL). */
#define W(what) (what) ? (what) : "", (what) ? ": " : ""

/* ---- writing ---- */

const char *srt_points_tool_name(enum srt_bench_tool t)
{
	return (size_t)t < NELEM(tool_names) ? tool_names[t] : "custom";
}

static json_t *words_json(char *const *v)
{
	json_t *a;

	if (!v)
		return json_null();
	a = json_array();
	for (size_t i = 0; v[i]; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

char *srt_points_to_json(const struct srt_points_file *f)
{
	json_t *o = json_object(), *params = NULL, *v, *slo, *pts;
	char *text, *out;

	json_object_set_new(o, "version", json_integer(SRT_POINTS_VERSION));
	json_object_set_new(o, "campaign", str_or_null(f->campaign));
	json_object_set_new(o, "deployment", str_or_null(f->deployment));
	json_object_set_new(o, "tool", json_string(srt_points_tool_name(f->tool)));
	if (f->params_json && *f->params_json)
		params = json_loads(f->params_json, JSON_REJECT_DUPLICATES, NULL);
	json_object_set_new(o, "params", json_is_object(params) ? params : json_object());
	if (params && !json_is_object(params))
		json_decref(params);
	json_object_set_new(o, "command",
			    f->command	     ? words_json(f->command) :
			    f->command_shell ? json_string(f->command_shell) :
					       json_null());
	if (f->result_file) /* only then: an agent from before it reads the file */
		json_object_set_new(o, "result_file", json_string(f->result_file));
	json_object_set_new(o, "prefix", words_json(f->prefix));
	json_object_set_new(o, "model", str_or_null(f->model));
	json_object_set_new(o, "tokenizer", str_or_null(f->tokenizer));
	json_object_set_new(o, "retries", json_integer(f->retries));
	v = json_object();
	json_object_set_new(v, "min_completed_ratio", json_real(f->validity.min_completed_ratio));
	json_object_set_new(v, "max_error_ratio", json_real(f->validity.max_error_ratio));
	json_object_set_new(v, "min_output_tokens_ratio",
			    json_real(f->validity.min_output_tokens_ratio));
	json_object_set_new(o, "validity", v);
	slo = json_object();
	for (int m = 0; m < SRT_SLO_NMETRICS; m++) {
		json_t *s = json_object();

		for (int k = 0; k < SRT_SLO_NSTATS; k++)
			json_object_set_new(s, slo_stat[k], json_real(f->slo_ms[m][k]));
		json_object_set_new(slo, slo_metric[m], s);
	}
	json_object_set_new(o, "slo", slo);
	pts = json_array();
	for (size_t i = 0; i < f->npoints; i++) {
		const struct srt_points_entry *e = &f->points[i];
		json_t *p = json_object();

		json_object_set_new(p, "id", json_string(e->id));
		json_object_set_new(p, "seq", json_integer(e->seq));
		json_object_set_new(p, "isl", json_integer(e->load.isl));
		json_object_set_new(p, "osl", json_integer(e->load.osl));
		json_object_set_new(p, "concurrency", json_integer(e->load.concurrency));
		json_object_set_new(p, "prompts", json_integer(e->load.prompts));
		json_object_set_new(p, "warmup", json_integer(e->load.warmup));
		json_object_set_new(p, "repeat", json_integer(e->load.repeat));
		json_array_append_new(pts, p);
	}
	json_object_set_new(o, "points", pts);
	text = json_dumps(o, JSON_PRESERVE_ORDER | JSON_INDENT(1));
	json_decref(o);
	out = srt_xasprintf("%s\n", text ? text : "{}");
	free(text);
	return out;
}

/* ---- reading ---- */

static bool is_hex64(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
			return false;
	return n == 64;
}

/* A string member without NUL bytes, of min..max bytes (or null when allowed). */
static int get_str(const json_t *o, const char *key, size_t min, size_t max, bool nullable,
		   const char **out, const char *what, struct srt_error *err)
{
	const json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v)
		return srt_error_set(err, "%s%s'%s' is missing", W(what), key);
	if (json_is_null(v) && nullable)
		return 0;
	if (!json_is_string(v))
		return srt_error_set(err, "%s%s'%s' is not a string%s", W(what), key,
				     nullable ? " or null" : "");
	if (json_string_length(v) != strlen(json_string_value(v)))
		return srt_error_set(err, "%s%s'%s' holds a NUL byte", W(what), key);
	if (json_string_length(v) < min || json_string_length(v) > max)
		return srt_error_set(err, "%s%s'%s' must have %zu to %zu bytes, not %zu", W(what),
				     key, min, max, json_string_length(v));
	*out = json_string_value(v);
	return 0;
}

static int get_int(const json_t *o, const char *key, int64_t lo, int64_t hi, int64_t *out,
		   const char *what, struct srt_error *err)
{
	const json_t *v = json_object_get(o, key);

	if (!v)
		return srt_error_set(err, "%s%s'%s' is missing", W(what), key);
	if (!json_is_integer(v))
		return srt_error_set(err, "%s%s'%s' is not an integer", W(what), key);
	*out = json_integer_value(v);
	if (*out < lo || *out > hi)
		return srt_error_set(err, "%s%s'%s' is %" PRId64 ", not in %" PRId64 "..%" PRId64,
				     W(what), key, *out, lo, hi);
	return 0;
}

static int get_real(const json_t *o, const char *key, double lo, double hi, double *out,
		    const char *what, struct srt_error *err)
{
	const json_t *v = json_object_get(o, key);

	if (!v)
		return srt_error_set(err, "%s%s'%s' is missing", W(what), key);
	if (!json_is_number(v))
		return srt_error_set(err, "%s%s'%s' is not a number", W(what), key);
	*out = json_number_value(v);
	if (!isfinite(*out) || *out < lo || *out > hi)
		return srt_error_set(err, "%s%s'%s' is %g, not in %g..%g", W(what), key, *out, lo,
				     hi);
	return 0;
}

/* Every key of o is one of keys[0..n). */
static int only_keys(const json_t *o, const char *const *keys, size_t n, const char *what,
		     struct srt_error *err)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)o, k, v)
	{
		bool known = false;

		for (size_t i = 0; i < n && !known; i++)
			known = !strcmp(k, keys[i]);
		if (!known)
			return srt_error_set(err, "%s%sunknown key '%.64s'", W(what), k);
	}
	return 0;
}

/* A NULL-terminated copy of an array of 1..WORDS_MAX words. */
static int get_words(const json_t *v, const char *key, char ***out, const char *what,
		     struct srt_error *err)
{
	size_t n = json_array_size(v);

	if (!json_is_array(v) || !n || n > WORDS_MAX)
		return srt_error_set(err, "%s%s'%s' must be a list of 1 to %d words", W(what), key,
				     WORDS_MAX);
	*out = srt_xcalloc(n + 1, sizeof(**out));
	for (size_t i = 0; i < n; i++) {
		const json_t *w = json_array_get(v, i);

		if (!json_is_string(w) || json_string_length(w) != strlen(json_string_value(w)) ||
		    !json_string_length(w) || json_string_length(w) > WORD_MAX_LEN)
			return srt_error_set(err,
					     "%s%s'%s'[%zu] is not a word of 1 to %d bytes without "
					     "NUL",
					     W(what), key, i, WORD_MAX_LEN);
		(*out)[i] = srt_xstrdup(json_string_value(w));
	}
	return 0;
}

static int parse_point(const json_t *p, size_t i, struct srt_points_entry *e, struct srt_error *err)
{
	char what[48];
	const char *id;

	snprintf(what, sizeof(what), "points[%zu]", i);
	if (!json_is_object(p))
		return srt_error_set(err, "%s is not an object", what);
	if (only_keys(p, point_keys, NELEM(point_keys), what, err) < 0 ||
	    get_str(p, "id", 1, 64, false, &id, what, err) < 0)
		return -1;
	if (!is_hex64(id))
		return srt_error_set(err, "%s: 'id' is not 64 lowercase hex digits", what);
	memcpy(e->id, id, 65);
	if (get_int(p, "seq", 1, SEQ_MAX, &e->seq, what, err) < 0 ||
	    get_int(p, "isl", 1, TOKENS_MAX, &e->load.isl, what, err) < 0 ||
	    get_int(p, "osl", 1, TOKENS_MAX, &e->load.osl, what, err) < 0 ||
	    get_int(p, "concurrency", 1, SRT_CAMPAIGN_MAX_CONCURRENCY, &e->load.concurrency, what,
		    err) < 0 ||
	    get_int(p, "prompts", 1, PROMPTS_MAX, &e->load.prompts, what, err) < 0 ||
	    get_int(p, "warmup", 0, PROMPTS_MAX, &e->load.warmup, what, err) < 0 ||
	    get_int(p, "repeat", 1, REPEAT_MAX, &e->load.repeat, what, err) < 0)
		return -1;
	return 0;
}

static int parse_slo(const json_t *slo, struct srt_points_file *f, struct srt_error *err)
{
	if (!json_is_object(slo))
		return srt_error_set(err, "'slo' is not an object");
	if (only_keys(slo, slo_metric, SRT_SLO_NMETRICS, "slo", err) < 0)
		return -1;
	for (int m = 0; m < SRT_SLO_NMETRICS; m++) {
		const json_t *s = json_object_get(slo, slo_metric[m]);
		char what[24];

		snprintf(what, sizeof(what), "slo.%s", slo_metric[m]);
		if (!json_is_object(s))
			return srt_error_set(err, "'%s' is missing or not an object", what);
		if (only_keys(s, slo_stat, SRT_SLO_NSTATS, what, err) < 0)
			return -1;
		for (int k = 0; k < SRT_SLO_NSTATS; k++)
			if (get_real(s, slo_stat[k], 0, 1e9, &f->slo_ms[m][k], what, err) < 0)
				return -1;
	}
	return 0;
}

static int parse_tool_command(const json_t *o, struct srt_points_file *f, struct srt_error *err)
{
	const json_t *v = json_object_get(o, "tool"), *cmd = json_object_get(o, "command");
	const json_t *pre = json_object_get(o, "prefix");
	size_t t;

	for (t = 0; t < NELEM(tool_names); t++)
		if (json_is_string(v) && !strcmp(json_string_value(v), tool_names[t]))
			break;
	if (t == NELEM(tool_names))
		return srt_error_set(err, "'tool' must be vllm-bench, sa-bench or custom");
	f->tool = (enum srt_bench_tool)t;
	if (!cmd)
		return srt_error_set(err, "'command' is missing");
	if (f->tool != SRT_BENCH_CUSTOM && !json_is_null(cmd))
		return srt_error_set(err, "'command' is only for the custom tool, not %s",
				     tool_names[t]);
	if (f->tool == SRT_BENCH_CUSTOM) {
		if (json_is_string(cmd)) {
			const char *s;

			if (get_str(o, "command", 1, SHELL_MAX_LEN, false, &s, NULL, err) < 0)
				return -1;
			f->command_shell = srt_xstrdup(s);
		} else if (get_words(cmd, "command", &f->command, NULL, err) < 0) {
			return -1;
		}
	}
	if (json_object_get(o, "result_file")) {
		const char *s;
		struct srt_error e;

		if (f->tool != SRT_BENCH_CUSTOM)
			return srt_error_set(err,
					     "'result_file' is only for the custom tool, not %s",
					     tool_names[t]);
		if (get_str(o, "result_file", 1, SRT_LOADGEN_MAX_RESULT_PATH, false, &s, NULL,
			    err) < 0)
			return -1;
		if (srt_loadgen_result_file_check(s, &e) != 0)
			return srt_error_set(err, "'result_file': %s", e.msg);
		f->result_file = srt_xstrdup(s);
	}
	if (!pre)
		return srt_error_set(err, "'prefix' is missing");
	if (!json_is_null(pre) && get_words(pre, "prefix", &f->prefix, NULL, err) < 0)
		return -1;
	return 0;
}

static int parse_obj(const json_t *o, struct srt_points_file *f, struct srt_error *err)
{
	const json_t *v;
	const char *s;
	int64_t ver;
	size_t n;

	if (!json_is_object(o))
		return srt_error_set(err, "not a JSON object");
	if (only_keys(o, top_keys, NELEM(top_keys), NULL, err) < 0 ||
	    get_int(o, "version", SRT_POINTS_VERSION, SRT_POINTS_VERSION, &ver, NULL, err) < 0)
		return -1;
	if (get_str(o, "campaign", 1, NAME_MAX_LEN, false, &s, NULL, err) < 0)
		return -1;
	f->campaign = srt_xstrdup(s);
	if (get_str(o, "deployment", 1, NAME_MAX_LEN, false, &s, NULL, err) < 0)
		return -1;
	f->deployment = srt_xstrdup(s);
	if (parse_tool_command(o, f, err) < 0)
		return -1;
	v = json_object_get(o, "params");
	if (!json_is_object(v))
		return srt_error_set(err, "'params' is missing or not an object");
	f->params_json = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	if (get_str(o, "model", 1, WORD_MAX_LEN, true, &s, NULL, err) < 0)
		return -1;
	f->model = s ? srt_xstrdup(s) : NULL;
	if (get_str(o, "tokenizer", 1, WORD_MAX_LEN, true, &s, NULL, err) < 0)
		return -1;
	f->tokenizer = s ? srt_xstrdup(s) : NULL;
	if (get_int(o, "retries", 0, RETRIES_MAX, &f->retries, NULL, err) < 0)
		return -1;
	v = json_object_get(o, "validity");
	if (!json_is_object(v))
		return srt_error_set(err, "'validity' is missing or not an object");
	if (get_real(v, "min_completed_ratio", 0, 1, &f->validity.min_completed_ratio, "validity",
		     err) < 0 ||
	    get_real(v, "max_error_ratio", 0, 1, &f->validity.max_error_ratio, "validity", err) <
		    0 ||
	    get_real(v, "min_output_tokens_ratio", 0, 1, &f->validity.min_output_tokens_ratio,
		     "validity", err) < 0 ||
	    parse_slo(json_object_get(o, "slo"), f, err) < 0)
		return -1;
	v = json_object_get(o, "points");
	n = json_array_size(v);
	if (!json_is_array(v) || !n || n > SRT_CAMPAIGN_MAX_POINTS)
		return srt_error_set(err, "'points' must be a list of 1 to %u points",
				     SRT_CAMPAIGN_MAX_POINTS);
	f->points = srt_xcalloc(n, sizeof(*f->points));
	for (size_t i = 0; i < n; i++) {
		if (parse_point(json_array_get(v, i), i, &f->points[i], err) < 0)
			return -1;
		f->npoints++;
		/* The seqs grow in file order: the order the points run in. */
		if (i && f->points[i].seq <= f->points[i - 1].seq)
			return srt_error_set(err,
					     "points[%zu]: seq %" PRId64
					     " is not above the previous point's %" PRId64,
					     i, f->points[i].seq, f->points[i - 1].seq);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(f->points[j].id, f->points[i].id))
				return srt_error_set(
					err, "points[%zu]: id %.12s... is also points[%zu]'s", i,
					f->points[i].id, j);
	}
	return 0;
}

int srt_points_parse(const char *text, size_t len, const char *what, struct srt_points_file *out,
		     struct srt_error *err)
{
	json_error_t je;
	json_t *o;
	int rc;

	memset(out, 0, sizeof(*out));
	if (len > SRT_POINTS_MAX_BYTES)
		return srt_error_set(err, "%s: %zu bytes, more than the %u srtctl reads", what, len,
				     SRT_POINTS_MAX_BYTES);
	o = json_loadb(text ? text : "", len, JSON_REJECT_DUPLICATES, &je);
	if (!o)
		return srt_error_set(err, "%s: not JSON (line %d column %d: %s)", what, je.line,
				     je.column, je.text);
	rc = parse_obj(o, out, err);
	json_decref(o);
	if (rc < 0)
		srt_error_prefix(err, "%s", what);
	return rc;
}

int srt_points_read(const char *dir, struct srt_points_file *out, struct srt_error *err)
{
	char *path = srt_xasprintf("%s/" SRT_RUNDIR_POINTS, dir);
	struct srt_buf b;
	int rc;

	memset(out, 0, sizeof(*out));
	srt_buf_init(&b);
	rc = srt_rundir_read_file(path, SRT_POINTS_MAX_BYTES, &b, err);
	if (rc == 0)
		rc = srt_points_parse(b.data, b.len, path, out, err);
	srt_buf_release(&b);
	free(path);
	return rc;
}

static void words_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void srt_points_file_release(struct srt_points_file *f)
{
	if (!f)
		return;
	free(f->campaign);
	free(f->deployment);
	free(f->params_json);
	words_free(f->command);
	free(f->command_shell);
	free(f->result_file);
	words_free(f->prefix);
	free(f->model);
	free(f->tokenizer);
	free(f->points);
	memset(f, 0, sizeof(*f));
}

/* ---- PointFinished ---- */

json_t *srt_point_attempt_json(const char *id, int64_t seq, int64_t attempt, const char *state,
			       const char *reason)
{
	json_t *o = json_object();

	json_object_set_new(o, "id", json_string(id));
	json_object_set_new(o, "seq", json_integer(seq));
	json_object_set_new(o, "attempt", json_integer(attempt));
	if (state) {
		json_object_set_new(o, "state", json_string(state));
		json_object_set_new(o, "reason", str_or_null(reason));
	}
	return o;
}

json_t *srt_point_report_json(const struct srt_point_report *r)
{
	json_t *o = json_object(), *m = json_object();

	json_object_set_new(o, "id", json_string(r->id));
	json_object_set_new(o, "seq", json_integer(r->seq));
	json_object_set_new(o, "attempts", json_integer(r->attempts));
	json_object_set_new(o, "state", json_string(r->state));
	json_object_set_new(o, "exit_code",
			    r->exit_code >= 0 ? json_integer(r->exit_code) : json_null());
	json_object_set_new(o, "reason", str_or_null(r->reason));
	json_object_set_new(o, "raw_path", str_or_null(r->raw_path));
	json_object_set_new(o, "raw_sha256", str_or_null(r->raw_sha256));
	json_object_set_new(o, "started_at", json_integer(r->started_at));
	json_object_set_new(o, "finished_at", json_integer(r->finished_at));
	json_object_set_new(o, "slo_met", r->slo_met < 0 ? json_null() : json_boolean(r->slo_met));
	for (size_t k = 0; k < SRT_POINT_NMETRICS; k++)
		json_object_set_new(m, srt_point_metric_names[k],
				    isnan(r->metrics[k]) ? json_null() :
				    r->metrics[k] == floor(r->metrics[k]) &&
						    r->metrics[k] < 9007199254740992.0 ?
							   json_integer((json_int_t)r->metrics[k]) :
							   json_real(r->metrics[k]));
	json_object_set_new(o, "metrics", m);
	return o;
}

/* "points/<name>" with names of [A-Za-z0-9._-] only, no "." or ".." component. */
static bool raw_path_ok(const char *s)
{
	size_t n = strlen(s), plen = strlen(SRT_RUNDIR_POINTS_DIR "/");
	const char *c;

	if (n > RAW_PATH_MAX || strncmp(s, SRT_RUNDIR_POINTS_DIR "/", plen) || n == plen)
		return false;
	for (c = s + plen; *c; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
		      (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-'))
			return false;
	return strcmp(s + plen, ".") && strcmp(s + plen, "..");
}

static int report_metrics(const json_t *m, struct srt_point_report *out, struct srt_error *err)
{
	if (!json_is_object(m))
		return srt_error_set(err, "'metrics' is missing or not an object");
	if (only_keys(m, srt_point_metric_names, SRT_POINT_NMETRICS, "metrics", err) < 0)
		return -1;
	for (size_t k = 0; k < SRT_POINT_NMETRICS; k++) {
		const json_t *v = json_object_get(m, srt_point_metric_names[k]);

		out->metrics[k] = NAN;
		if (!v || json_is_null(v))
			continue;
		if (!json_is_number(v) || !isfinite(json_number_value(v)) ||
		    json_number_value(v) < 0)
			return srt_error_set(err, "metrics: '%s' is not a finite number >= 0",
					     srt_point_metric_names[k]);
		out->metrics[k] = json_number_value(v);
	}
	return 0;
}

static int report_fields(const json_t *p, struct srt_point_report *out, struct srt_error *err)
{
	const char *s;
	const json_t *v;

	if (get_str(p, "id", 1, 64, false, &s, "point", err) < 0)
		return -1;
	if (!is_hex64(s))
		return srt_error_set(err, "point: 'id' is not 64 lowercase hex digits");
	memcpy(out->id, s, 65);
	if (get_int(p, "seq", 1, SEQ_MAX, &out->seq, "point", err) < 0 ||
	    get_int(p, "attempts", 1, RETRIES_MAX + 1, &out->attempts, "point", err) < 0 ||
	    get_str(p, "state", 1, 16, false, &out->state, "point", err) < 0)
		return -1;
	if (strcmp(out->state, "done") && strcmp(out->state, "failed") &&
	    strcmp(out->state, "invalid"))
		return srt_error_set(err, "point: 'state' must be done, failed or invalid");
	v = json_object_get(p, "exit_code");
	if (json_is_null(v))
		out->exit_code = -1;
	else if (get_int(p, "exit_code", 0, 255, &out->exit_code, "point", err) < 0)
		return -1;
	if (get_str(p, "reason", 0, REASON_MAX, true, &out->reason, "point", err) < 0 ||
	    get_str(p, "raw_path", 1, RAW_PATH_MAX, true, &out->raw_path, "point", err) < 0 ||
	    get_str(p, "raw_sha256", 1, 64, true, &out->raw_sha256, "point", err) < 0)
		return -1;
	if (out->raw_path && !raw_path_ok(out->raw_path))
		return srt_error_set(err,
				     "point: 'raw_path' must be a file name under %s/ in the run "
				     "directory",
				     SRT_RUNDIR_POINTS_DIR);
	if (out->raw_sha256 && !is_hex64(out->raw_sha256))
		return srt_error_set(err, "point: 'raw_sha256' is not 64 lowercase hex digits");
	if (!out->raw_path != !out->raw_sha256)
		return srt_error_set(err, "point: 'raw_path' and 'raw_sha256' go together");
	if (get_int(p, "started_at", 0, INT64_MAX, &out->started_at, "point", err) < 0 ||
	    get_int(p, "finished_at", out->started_at, INT64_MAX, &out->finished_at, "point", err) <
		    0)
		return -1;
	v = json_object_get(p, "slo_met");
	if (!v)
		return srt_error_set(err, "point: 'slo_met' is missing");
	if (json_is_null(v))
		out->slo_met = -1;
	else if (json_is_boolean(v))
		out->slo_met = json_is_true(v);
	else
		return srt_error_set(err, "point: 'slo_met' is not true, false or null");
	return report_metrics(json_object_get(p, "metrics"), out, err);
}

int srt_point_report_read(const json_t *ev, struct srt_point_report *out, struct srt_error *err)
{
	const json_t *reason = json_object_get(ev, "reason"), *p;

	memset(out, 0, sizeof(*out));
	out->exit_code = -1;
	out->slo_met = -1;
	for (size_t k = 0; k < SRT_POINT_NMETRICS; k++)
		out->metrics[k] = NAN;
	if (!json_is_object(ev) || !json_is_string(reason) ||
	    strcmp(json_string_value(reason), "PointFinished"))
		return 0;
	p = json_object_get(ev, "point");
	if (!json_is_object(p))
		return srt_error_set(err, "PointFinished event without a 'point' object");
	if (report_fields(p, out, err) < 0) {
		out->state = out->reason = out->raw_path = out->raw_sha256 = NULL;
		return -1;
	}
	return 1;
}
