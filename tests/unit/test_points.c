/*
 * tests/unit/test_points.c: runplan/points.c: points.json written and read
 * back the same (byte for byte, canonical order), every refusal of a
 * hostile or malformed file with the field it names, srt_points_read() on
 * a missing file, a symbolic link and an oversized file, and the
 * PointFinished reports the controller reads: a whole report, events that
 * are not reports, and every malformed field (hostile raw_path included).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runplan/points.h"
#include "util/buf.h"
#include "util/strutil.h"

#define ID1 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID2 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

static void sample(struct srt_points_file *f, struct srt_points_entry pts[2])
{
	static char *prefix[] = { "python3", "-m", "vllm.bench", NULL };

	memset(f, 0, sizeof(*f));
	f->campaign = "sweep";
	f->deployment = "sweep-1a2b3c4d";
	f->tool = SRT_BENCH_VLLM;
	f->params_json = "{\"seed\":7,\"ignore-eos\":true}";
	f->prefix = prefix;
	f->model = "Qwen/Qwen3-0.6B";
	f->retries = 1;
	f->validity = (struct srt_loadgen_validity){ 0.99, 0.01, 0.5 };
	f->slo_ms[SRT_SLO_TTFT][SRT_SLO_P99] = 500;
	f->slo_ms[SRT_SLO_TPOT][SRT_SLO_MEAN] = 25.5;
	memset(pts, 0, 2 * sizeof(*pts));
	memcpy(pts[0].id, ID1, 65);
	pts[0].seq = 1;
	pts[0].load = (struct srt_loadgen_point){ 1024, 128, 8, 80, 16, 1 };
	memcpy(pts[1].id, ID2, 65);
	pts[1].seq = 3;
	pts[1].load = (struct srt_loadgen_point){ 2048, 256, 64, 640, 0, 2 };
	f->points = pts;
	f->npoints = 2;
}

static void test_round_trip(void **state)
{
	struct srt_points_file f, g;
	struct srt_points_entry pts[2];
	struct srt_error e;
	char *text, *again;

	(void)state;
	sample(&f, pts);
	text = srt_points_to_json(&f);
	assert_non_null(strstr(text, "\"version\": 1,\n \"campaign\": \"sweep\""));
	assert_true(text[strlen(text) - 1] == '\n');
	assert_int_equal(srt_points_parse(text, strlen(text), "points.json", &g, &e), 0);
	assert_string_equal(g.campaign, "sweep");
	assert_string_equal(g.deployment, "sweep-1a2b3c4d");
	assert_int_equal(g.tool, SRT_BENCH_VLLM);
	assert_string_equal(g.params_json, "{\"ignore-eos\":true,\"seed\":7}");
	assert_string_equal(g.prefix[2], "vllm.bench");
	assert_null(g.prefix[3]);
	assert_null(g.command);
	assert_null(g.command_shell);
	assert_string_equal(g.model, "Qwen/Qwen3-0.6B");
	assert_null(g.tokenizer);
	assert_int_equal(g.retries, 1);
	assert_true(g.validity.min_completed_ratio == 0.99);
	assert_true(g.slo_ms[SRT_SLO_TTFT][SRT_SLO_P99] == 500);
	assert_true(g.slo_ms[SRT_SLO_TPOT][SRT_SLO_MEAN] == 25.5);
	assert_true(g.slo_ms[SRT_SLO_E2EL][SRT_SLO_MEDIAN] == 0);
	assert_int_equal(g.npoints, 2);
	assert_string_equal(g.points[1].id, ID2);
	assert_int_equal(g.points[1].seq, 3);
	assert_int_equal(g.points[1].load.concurrency, 64);
	assert_int_equal(g.points[1].load.warmup, 0);
	assert_int_equal(g.points[1].load.repeat, 2);
	/* Writing what was read gives the same bytes (params canonical: keys sorted). */
	g.params_json[0] = '{';
	again = srt_points_to_json(&g);
	f.params_json = "{\"ignore-eos\":true,\"seed\":7}";
	free(text);
	text = srt_points_to_json(&f);
	assert_string_equal(again, text);
	free(again);
	free(text);
	srt_points_file_release(&g);
	srt_points_file_release(NULL);
}

static void test_custom_command(void **state)
{
	struct srt_points_file f, g;
	struct srt_points_entry pts[2];
	static char *argv[] = { "mybench", "--out", "$SRT_BENCH_RESULT_FILE", NULL };
	struct srt_error e;
	char *text;

	(void)state;
	sample(&f, pts);
	f.tool = SRT_BENCH_CUSTOM;
	f.prefix = NULL;
	f.params_json = NULL;
	f.command = argv;
	text = srt_points_to_json(&f);
	assert_non_null(strstr(text, "\"params\": {}"));
	assert_int_equal(srt_points_parse(text, strlen(text), "p", &g, &e), 0);
	assert_string_equal(g.command[2], "$SRT_BENCH_RESULT_FILE");
	assert_null(g.prefix);
	srt_points_file_release(&g);
	free(text);
	f.command = NULL;
	f.command_shell = "mybench > \"$SRT_BENCH_RESULT_FILE\"";
	text = srt_points_to_json(&f);
	assert_int_equal(srt_points_parse(text, strlen(text), "p", &g, &e), 0);
	assert_string_equal(g.command_shell, f.command_shell);
	assert_null(g.result_file);
	srt_points_file_release(&g);
	free(text);
	/* the file the command names, kept only when set */
	assert_null(strstr(text = srt_points_to_json(&f), "result_file"));
	free(text);
	f.result_file = "out/c${SRT_BENCH_CONCURRENCY}.json";
	text = srt_points_to_json(&f);
	assert_int_equal(srt_points_parse(text, strlen(text), "p", &g, &e), 0);
	assert_string_equal(g.result_file, f.result_file);
	srt_points_file_release(&g);
	free(text);
	f.result_file = "out/$NOPE.json";
	text = srt_points_to_json(&f);
	assert_int_equal(srt_points_parse(text, strlen(text), "p", &g, &e), -1);
	assert_non_null(strstr(e.msg, "'result_file': '$NOPE' is not a variable srtctl sets"));
	srt_points_file_release(&g);
	free(text);
	f.tool = SRT_BENCH_VLLM;
	f.command_shell = NULL;
	f.result_file = "x.json";
	text = srt_points_to_json(&f);
	assert_int_equal(srt_points_parse(text, strlen(text), "p", &g, &e), -1);
	assert_non_null(strstr(e.msg, "'result_file' is only for the custom tool"));
	srt_points_file_release(&g);
	free(text);
}

/* One refusal: set `path` ("a.b" or "points.0.seq") to the JSON `value` (NULL: delete it). */
struct refusal {
	const char *path, *value, *want;
};

static const struct refusal refusals[] = {
	{ "version", "2", "'version' is 2" },
	{ "version", NULL, "'version' is missing" },
	{ "campaign", "\"\"", "'campaign' must have 1 to" },
	{ "campaign", "7", "'campaign' is not a string" },
	{ "deployment", "\"a\\u0000b\"", "\\u0000 is not allowed" },
	{ "tool", "\"locust\"", "'tool' must be vllm-bench, sa-bench or custom" },
	{ "params", "[1]", "'params' is missing or not an object" },
	{ "params", NULL, "'params' is missing" },
	{ "command", "[\"x\"]", "'command' is only for the custom tool" },
	{ "command", NULL, "'command' is missing" },
	{ "prefix", "[]", "'prefix' must be a list of 1 to" },
	{ "prefix", "[\"a\", 3]", "'prefix'[1] is not a word" },
	{ "prefix", "\"vllm\"", "'prefix' must be a list" },
	{ "model", "\"\"", "'model' must have 1 to" },
	{ "tokenizer", "{}", "'tokenizer' is not a string or null" },
	{ "retries", "-1", "'retries' is -1, not in 0..100" },
	{ "retries", "1.5", "'retries' is not an integer" },
	{ "validity", "1", "'validity' is missing or not an object" },
	{ "validity.max_error_ratio", "2", "'max_error_ratio' is 2, not in 0..1" },
	{ "validity.min_completed_ratio", NULL, "'min_completed_ratio' is missing" },
	{ "slo.ttft", NULL, "'slo.ttft' is missing or not an object" },
	{ "slo.ttft.p99", "-5", "'p99' is -5" },
	{ "slo.ttft.p95", "5", "slo.ttft: unknown key 'p95'" },
	{ "slo.goodput", "{}", "slo: unknown key 'goodput'" },
	{ "extra", "1", "unknown key 'extra'" },
	{ "points", "[]", "'points' must be a list of 1 to" },
	{ "points", "{}", "'points' must be a list" },
	{ "points.0", "7", "points[0] is not an object" },
	{ "points.0.id", "\"0123\"", "points[0]: 'id' is not 64 lowercase hex digits" },
	{ "points.0.id", "\"0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef\"",
	  "'id' is not 64 lowercase hex digits" },
	{ "points.0.id", "\"../../etc/passwd456789abcdef0123456789abcdef0123456789abcdef\"",
	  "'id' is not 64 lowercase hex digits" },
	{ "points.1.id", "\"" ID1 "\"", "points[1]: id 0123456789ab... is also points[0]'s" },
	{ "points.0.seq", "0", "points[0]: 'seq' is 0, not in 1.." },
	{ "points.1.seq", "1", "points[1]: seq 1 is not above the previous point's 1" },
	{ "points.0.isl", "0", "'isl' is 0" },
	{ "points.0.osl", "100000000", "'osl' is 100000000" },
	{ "points.0.concurrency", "-8", "'concurrency' is -8" },
	{ "points.0.prompts", "\"80\"", "'prompts' is not an integer" },
	{ "points.0.warmup", "-1", "'warmup' is -1" },
	{ "points.0.repeat", "0", "'repeat' is 0" },
	{ "points.0.axes", "{}", "points[0]: unknown key 'axes'" },
	{ "points.1.isl", NULL, "points[1]: 'isl' is missing" },
};

/* The parent of the last component of path in o, and that component. */
static json_t *walk(json_t *o, const char *path, char *last, size_t size)
{
	char buf[128], *save = NULL, *tok, *next;

	snprintf(buf, sizeof(buf), "%s", path);
	tok = strtok_r(buf, ".", &save);
	while ((next = strtok_r(NULL, ".", &save))) {
		o = json_is_array(o) ? json_array_get(o, (size_t)atoi(tok)) :
				       json_object_get(o, tok);
		tok = next;
	}
	snprintf(last, size, "%s", tok);
	return o;
}

static void put(json_t *parent, const char *key, const char *value)
{
	json_t *v = value ? json_loads(value, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL) : NULL;

	if (json_is_array(parent)) {
		assert_non_null(v);
		json_array_set_new(parent, (size_t)atoi(key), v);
	} else if (v) {
		json_object_set_new(parent, key, v);
	} else {
		json_object_del(parent, key);
	}
}

static void test_refusals(void **state)
{
	struct srt_points_file f, g;
	struct srt_points_entry pts[2];
	struct srt_error e;
	char *text = NULL;

	(void)state;
	sample(&f, pts);
	text = srt_points_to_json(&f);
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		const struct refusal *r = &refusals[i];
		json_t *o = json_loads(text, 0, NULL);
		char key[64], *bad;

		put(walk(o, r->path, key, sizeof(key)), key, r->value);
		bad = json_dumps(o, JSON_PRESERVE_ORDER);
		json_decref(o);
		if (srt_points_parse(bad, strlen(bad), "points.json", &g, &e) != -1 ||
		    !strstr(e.msg, r->want))
			fail_msg("%s = %s: got '%s', want '%s'", r->path, r->value ? r->value : "-",
				 e.msg, r->want);
		assert_true(srt_str_has_prefix(e.msg, "points.json: "));
		srt_points_file_release(&g);
		free(bad);
	}
	/* Not JSON, not an object, too big. */
	assert_int_equal(srt_points_parse("{\"version\": 1,", 14, "p", &g, &e), -1);
	assert_non_null(strstr(e.msg, "p: not JSON"));
	srt_points_file_release(&g);
	assert_int_equal(srt_points_parse("[]", 2, "p", &g, &e), -1);
	assert_non_null(strstr(e.msg, "not a JSON object"));
	srt_points_file_release(&g);
	assert_int_equal(srt_points_parse(text, SRT_POINTS_MAX_BYTES + 1u, "p", &g, &e), -1);
	assert_non_null(strstr(e.msg, "more than the"));
	srt_points_file_release(&g);
	/* A custom tool without a command. */
	{
		json_t *o = json_loads(text, 0, NULL);
		char *bad;

		json_object_set_new(o, "tool", json_string("custom"));
		bad = json_dumps(o, 0);
		assert_int_equal(srt_points_parse(bad, strlen(bad), "p", &g, &e), -1);
		assert_non_null(strstr(e.msg, "'command' must be a list"));
		srt_points_file_release(&g);
		free(bad);
		json_decref(o);
	}
	free(text);
}

static void test_read_file(void **state)
{
	char dir[] = "/tmp/test_points.XXXXXX", *path, *text, *target;
	struct srt_points_file f, g;
	struct srt_points_entry pts[2];
	struct srt_error e;
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = srt_xasprintf("%s/points.json", dir);
	assert_int_equal(srt_points_read(dir, &g, &e), 1); /* none: not a campaign run */
	srt_points_file_release(&g);
	sample(&f, pts);
	text = srt_points_to_json(&f);
	fp = fopen(path, "w");
	fputs(text, fp);
	fclose(fp);
	assert_int_equal(srt_points_read(dir, &g, &e), 0);
	assert_int_equal(g.npoints, 2);
	srt_points_file_release(&g);
	/* A symbolic link is refused, not followed. */
	target = srt_xasprintf("%s/target.json", dir);
	assert_int_equal(rename(path, target), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(srt_points_read(dir, &g, &e), -1);
	assert_non_null(strstr(e.msg, "symbolic link"));
	srt_points_file_release(&g);
	unlink(path);
	unlink(target);
	free(target);
	/* A directory in its place. */
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(srt_points_read(dir, &g, &e), -1);
	srt_points_file_release(&g);
	rmdir(path);
	/* Larger than the limit: refused without reading it all. */
	fp = fopen(path, "w");
	assert_int_equal(ftruncate(fileno(fp), SRT_POINTS_MAX_BYTES + 1), 0);
	fclose(fp);
	assert_int_equal(srt_points_read(dir, &g, &e), -1);
	assert_non_null(strstr(e.msg, "larger than"));
	srt_points_file_release(&g);
	unlink(path);
	rmdir(dir);
	free(path);
	free(text);
}

/* ---- PointFinished ---- */

static const char *const REPORT =
	"{\"seq\":9,\"time\":5,\"type\":\"Normal\",\"reason\":\"PointFinished\","
	"\"object\":{\"kind\":\"run\",\"name\":\"r\"},\"message\":\"m\",\"job_id\":\"1\","
	"\"generation\":1,\"point\":{\"id\":\"" ID1 "\",\"seq\":2,\"attempts\":1,"
	"\"state\":\"done\",\"exit_code\":0,\"reason\":\"\","
	"\"raw_path\":\"points/0002-0123456789ab-a1.json\",\"raw_sha256\":\"" ID2 "\","
	"\"started_at\":100,\"finished_at\":200,\"slo_met\":true,"
	"\"metrics\":{\"completed\":80,\"duration_s\":1.5,\"p99_e2el_ms\":null,\"errors\":0}}}";

static void test_report(void **state)
{
	json_t *ev = json_loads(REPORT, 0, NULL);
	struct srt_point_report r;
	struct srt_error e;

	(void)state;
	assert_int_equal(srt_point_report_read(ev, &r, &e), 1);
	assert_string_equal(r.id, ID1);
	assert_int_equal(r.seq, 2);
	assert_int_equal(r.attempts, 1);
	assert_string_equal(r.state, "done");
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(r.raw_path, "points/0002-0123456789ab-a1.json");
	assert_string_equal(r.raw_sha256, ID2);
	assert_int_equal(r.started_at, 100);
	assert_int_equal(r.finished_at, 200);
	assert_int_equal(r.slo_met, 1);
	assert_true(r.metrics[0] == 80);
	assert_true(r.metrics[1] == 1.5);
	assert_true(isnan(r.metrics[2]));  /* missing: unknown */
	assert_true(isnan(r.metrics[18])); /* null: unknown */
	assert_true(r.metrics[19] == 0);
	/* A failed point: no file, no exit code, slo unknown. */
	json_object_set_new(json_object_get(ev, "point"), "state", json_string("failed"));
	json_object_set_new(json_object_get(ev, "point"), "raw_path", json_null());
	json_object_set_new(json_object_get(ev, "point"), "raw_sha256", json_null());
	json_object_set_new(json_object_get(ev, "point"), "exit_code", json_null());
	json_object_set_new(json_object_get(ev, "point"), "slo_met", json_null());
	assert_int_equal(srt_point_report_read(ev, &r, &e), 1);
	assert_null(r.raw_path);
	assert_int_equal(r.exit_code, -1);
	assert_int_equal(r.slo_met, -1);
	/* Not a report. */
	json_object_set_new(ev, "reason", json_string("PointStarted"));
	assert_int_equal(srt_point_report_read(ev, &r, &e), 0);
	json_object_del(ev, "reason");
	assert_int_equal(srt_point_report_read(ev, &r, &e), 0);
	json_decref(ev);
}

static const struct refusal report_refusals[] = {
	{ "point", "7", "without a 'point' object" },
	{ "point.id", "\"" ID1 "0\"", "'id' must have 1 to 64 bytes" },
	{ "point.id", "\"zz23456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"",
	  "'id' is not 64 lowercase hex" },
	{ "point.seq", "0", "'seq' is 0" },
	{ "point.attempts", "0", "'attempts' is 0" },
	{ "point.state", "\"running\"", "'state' must be done, failed or invalid" },
	{ "point.exit_code", "-3", "'exit_code' is -3" },
	{ "point.exit_code", "\"0\"", "'exit_code' is not an integer" },
	{ "point.reason", "5", "'reason' is not a string or null" },
	{ "point.raw_path", "\"/etc/passwd\"", "'raw_path' must be a file name under points/" },
	{ "point.raw_path", "\"points/../plan.json\"", "'raw_path' must be a file name" },
	{ "point.raw_path", "\"points/..\"", "'raw_path' must be a file name" },
	{ "point.raw_path", "\"points/\"", "'raw_path' must be a file name" },
	{ "point.raw_path", "\"points/a/b.json\"", "'raw_path' must be a file name" },
	{ "point.raw_path", "\"logs/x.json\"", "'raw_path' must be a file name" },
	{ "point.raw_path", "\"points/a\\nb\"", "'raw_path' must be a file name" },
	{ "point.raw_path", "\"points/a\\u0000b\"", "'raw_path' holds a NUL byte" },
	{ "point.reason", "\"a\\u0000b\"", "'reason' holds a NUL byte" },
	{ "point.raw_path", "null", "'raw_path' and 'raw_sha256' go together" },
	{ "point.raw_sha256", "\"ABC\"", "'raw_sha256' is not 64 lowercase hex" },
	{ "point.started_at", "-1", "'started_at' is -1" },
	{ "point.finished_at", "99", "'finished_at' is 99, not in 100.." },
	{ "point.slo_met", "1", "'slo_met' is not true, false or null" },
	{ "point.slo_met", NULL, "'slo_met' is missing" },
	{ "point.metrics", "[]", "'metrics' is missing or not an object" },
	{ "point.metrics.completed", "-1", "'completed' is not a finite number >= 0" },
	{ "point.metrics.completed", "\"80\"", "'completed' is not a finite number" },
	{ "point.metrics.goodput", "1", "metrics: unknown key 'goodput'" },
};

static void test_report_refusals(void **state)
{
	struct srt_point_report r;
	struct srt_error e;

	(void)state;
	for (size_t i = 0; i < sizeof(report_refusals) / sizeof(report_refusals[0]); i++) {
		const struct refusal *x = &report_refusals[i];
		json_t *ev = json_loads(REPORT, 0, NULL);
		char key[64];

		put(walk(ev, x->path, key, sizeof(key)), key, x->value);
		if (srt_point_report_read(ev, &r, &e) != -1 || !strstr(e.msg, x->want))
			fail_msg("%s = %s: got '%s', want '%s'", x->path, x->value ? x->value : "-",
				 e.msg, x->want);
		assert_null(r.state);
		json_decref(ev);
	}
}

static void test_metrics_order(void **state)
{
	struct srt_point_result r;
	double m[SRT_POINT_NMETRICS];

	(void)state;
	memset(&r, 0, sizeof(r));
	r.completed = 80;
	r.duration_s = 2.5;
	r.total_output_tokens = 1000;
	r.ms[SRT_SLO_TTFT][SRT_SLO_MEDIAN] = 12;
	r.ms[SRT_SLO_E2EL][SRT_SLO_P99] = 99;
	r.errors = 3;
	srt_loadgen_metrics(&r, m);
	assert_string_equal(srt_point_metric_names[0], "completed");
	assert_true(m[0] == 80);
	assert_true(m[1] == 2.5);
	assert_string_equal(srt_point_metric_names[3], "total_output_tokens");
	assert_true(m[3] == 1000);
	assert_string_equal(srt_point_metric_names[8], "median_ttft_ms");
	assert_true(m[8] == 12);
	assert_string_equal(srt_point_metric_names[18], "p99_e2el_ms");
	assert_true(m[18] == 99);
	assert_string_equal(srt_point_metric_names[19], "errors");
	assert_true(m[19] == 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),    cmocka_unit_test(test_custom_command),
		cmocka_unit_test(test_refusals),      cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_report),	      cmocka_unit_test(test_report_refusals),
		cmocka_unit_test(test_metrics_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
