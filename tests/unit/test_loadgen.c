/*
 * tests/unit/test_loadgen.c: loadgen/: the exact argv each benchmark tool
 * gets for a load point, benchmark.params as flags and the refusals, the
 * real result files of `vllm bench serve` and sa-bench parsed into
 * campaign_points' columns (tests/data/loadgen/), truncated and hostile
 * files refused, the validity gate and the SLO verdict.
 *
 * `test_loadgen --parse TOOL FILE` parses one result file and prints the
 * normalised columns as one JSON line (exit 0), or the error (exit 1);
 * `test_loadgen --argv TOOL URL RESULT ISL OSL CONC PROMPTS WARMUP [PARAMS]`
 * prints the argv srtctl gives the tool (default prefix), one word a line,
 * the warmup run's first (after a line "--"), then the measured run's.
 * tests/cli/test_fakes_bench.sh runs the stand-ins with them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loadgen/loadgen.h"
#include "util/buf.h"

#define DATA SRT_SOURCE_DIR "/tests/data/loadgen/"

static const struct srt_loadgen_point pt = {
	.isl = 1024, .osl = 128, .concurrency = 8, .prompts = 80, .warmup = 16, .repeat = 1
};

static struct srt_loadgen_spec spec_of(enum srt_bench_tool tool, const char *params)
{
	struct srt_loadgen_spec s = {
		.tool = tool,
		.params_json = params,
		.frontend_url = "http://10.0.0.1:8000",
		.model = "Qwen/Qwen3-0.6B",
		.tokenizer = "/model",
		.point = pt,
		.result_file = "/runs/r1/bench/point-0001.json",
	};
	return s;
}

/* argv joined by single spaces, for exact comparison */
static char *join(char **v)
{
	struct srt_buf b;

	srt_buf_init(&b);
	for (size_t i = 0; v && v[i]; i++) {
		if (i)
			srt_buf_putc(&b, ' ');
		srt_buf_puts(&b, v[i]);
	}
	return srt_buf_detach(&b);
}

static void assert_argv(char **v, const char *want)
{
	char *got = join(v);

	if (strcmp(got, want) != 0)
		fail_msg("argv\n got: %s\nwant: %s", got, want);
	free(got);
}

#define COMMON(backend, n)                                                                  \
	"--backend " backend " --base-url http://10.0.0.1:8000 --endpoint /v1/completions " \
	"--model Qwen/Qwen3-0.6B --tokenizer /model --dataset-name random "                 \
	"--random-input-len 1024 --random-output-len 128 --num-prompts " n " "              \
	"--max-concurrency 8 --seed 1 --ignore-eos --disable-tqdm "                         \
	"--percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,99"
#define RESULT "--save-result --result-dir /runs/r1/bench --result-filename point-0001.json"

static void test_argv_vllm(void **state)
{
	struct srt_loadgen_spec s =
		spec_of(SRT_BENCH_VLLM, "{\"request-rate\":20,\"temperature\":0}");
	struct srt_loadgen_cmd c;
	struct srt_error err;
	(void)state;

	assert_int_equal(srt_loadgen_build(&c, &s, &err), 0);
	assert_null(c.warmup_argv);
	assert_argv(c.argv,
		    "vllm bench serve " COMMON("vllm", "80") " --num-warmups 16 " RESULT
							     " --request-rate 20 --temperature 0");
	assert_argv(c.env,
		    "SRT_FRONTEND_URL=http://10.0.0.1:8000 SRT_BENCH_MODEL=Qwen/Qwen3-0.6B "
		    "SRT_BENCH_TOKENIZER=/model SRT_BENCH_ISL=1024 SRT_BENCH_OSL=128 "
		    "SRT_BENCH_CONCURRENCY=8 SRT_BENCH_PROMPTS=80 SRT_BENCH_WARMUP=16 "
		    "SRT_BENCH_REPEAT=1 SRT_BENCH_RESULT_FILE=/runs/r1/bench/point-0001.json");
	srt_loadgen_cmd_release(&c);

	/* a cluster's own prefix replaces the default */
	const char *prefix[] = { "/opt/venv/bin/vllm", "bench", "serve" };
	s.prefix = prefix;
	s.nprefix = 3;
	s.params_json = NULL;
	assert_int_equal(srt_loadgen_build(&c, &s, &err), 0);
	assert_argv(c.argv, "/opt/venv/bin/vllm bench serve " COMMON(
				    "vllm", "80") " --num-warmups 16 " RESULT);
	srt_loadgen_cmd_release(&c);
}

static void test_argv_sa(void **state)
{
	struct srt_loadgen_spec s = spec_of(SRT_BENCH_SA, NULL);
	struct srt_loadgen_cmd c;
	struct srt_error err;
	(void)state;

	assert_int_equal(srt_loadgen_build(&c, &s, &err), 0);
	assert_argv(c.warmup_argv,
		    "python3 -u /srtctl-benchmarks/sa-bench/benchmark_serving.py " COMMON(
			    "dynamo", "16") " --request-rate 250 --random-range-ratio 0.8 "
					    "--trust-remote-code");
	assert_argv(c.argv, "python3 -u /srtctl-benchmarks/sa-bench/benchmark_serving.py " COMMON(
				    "dynamo", "80") " --request-rate inf --random-range-ratio 0.8 "
						    "--trust-remote-code " RESULT);
	srt_loadgen_cmd_release(&c);

	/* params replace the defaults (snake_case keys as srt-slurm writes them); no warmup */
	s.params_json =
		"{\"random_range_ratio\":1.0,\"request-rate\":\"inf\",\"use_chat_template\":"
		"true,\"trust-remote-code\":false,\"lora-modules\":[\"a\",\"b\"]}";
	s.point.warmup = 0;
	assert_int_equal(srt_loadgen_build(&c, &s, &err), 0);
	assert_null(c.warmup_argv);
	assert_argv(c.argv,
		    "python3 -u /srtctl-benchmarks/sa-bench/benchmark_serving.py " COMMON(
			    "dynamo", "80") " " RESULT " --random-range-ratio 1 --request-rate inf "
					    "--use-chat-template --lora-modules a b");
	srt_loadgen_cmd_release(&c);
}

static void test_argv_custom(void **state)
{
	struct srt_loadgen_spec s = spec_of(SRT_BENCH_CUSTOM, NULL);
	struct srt_loadgen_cmd c;
	struct srt_error err;
	const char *cmd[] = { "/opt/bench/run", "--fast" };
	(void)state;

	s.command_shell = "mybench --url \"$SRT_FRONTEND_URL\" > $SRT_BENCH_RESULT_FILE";
	assert_int_equal(srt_loadgen_build(&c, &s, &err), 0);
	assert_int_equal(c.argv[0] != NULL, 1);
	assert_string_equal(c.argv[0], "bash");
	assert_string_equal(c.argv[1], "-lc");
	assert_string_equal(c.argv[2], s.command_shell);
	assert_null(c.argv[3]);
	assert_string_equal(c.env[0], "SRT_FRONTEND_URL=http://10.0.0.1:8000");
	srt_loadgen_cmd_release(&c);

	s.command_shell = NULL;
	s.command = cmd;
	s.ncommand = 2;
	assert_int_equal(srt_loadgen_build(&c, &s, &err), 0);
	assert_argv(c.argv, "/opt/bench/run --fast");
	srt_loadgen_cmd_release(&c);

	s.ncommand = 0;
	assert_int_equal(srt_loadgen_build(&c, &s, &err), -1);
	assert_string_equal(err.msg, "benchmark: tool 'custom' needs benchmark.command");
	srt_loadgen_cmd_release(&c);
}

static void test_refusals(void **state)
{
	static const struct {
		enum srt_bench_tool tool;
		const char *params, *want;
	} cases[] = {
		{ SRT_BENCH_VLLM, "{\"max-concurrency\":4}",
		  "benchmark.params: 'max-concurrency' is set by srtctl from the load point and the "
		  "deployment (--max-concurrency); remove it" },
		{ SRT_BENCH_VLLM, "{\"num_prompts\":4}",
		  "benchmark.params: 'num_prompts' is set by srtctl from the load point and the "
		  "deployment (--num-prompts); remove it" },
		{ SRT_BENCH_VLLM, "{\"input-len\":4}",
		  "benchmark.params: 'input-len' is set by srtctl from the load point and the "
		  "deployment (--input-len); remove it" },
		{ SRT_BENCH_SA, "{\"api-url\":\"http://x\"}",
		  "benchmark.params: 'api-url' is set by srtctl from the load point and the deployment "
		  "(--api-url); remove it" },
		{ SRT_BENCH_SA, "{\"result_dir\":\"/tmp\"}",
		  "benchmark.params: 'result_dir' is set by srtctl from the load point and the "
		  "deployment (--result-dir); remove it" },
		{ SRT_BENCH_VLLM, "{\"extra-body\":{\"a\":1}}",
		  "benchmark.params: 'extra-body': a value must be a string, a number, a boolean or a "
		  "list of them, not an object" },
		{ SRT_BENCH_VLLM, "{\"x\":[{}]}",
		  "benchmark.params: 'x': a list may hold only strings and numbers" },
		{ SRT_BENCH_VLLM, "{\"--x\":1}",
		  "benchmark.params: '--x' is not a flag name (write it without leading dashes)" },
		{ SRT_BENCH_VLLM, "[1]",
		  "benchmark.params: not a JSON object (another JSON value)" },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct srt_loadgen_spec s = spec_of(cases[i].tool, cases[i].params);
		struct srt_loadgen_cmd c;
		struct srt_error err;

		assert_int_equal(srt_loadgen_build(&c, &s, &err), -1);
		assert_null(c.argv);
		assert_string_equal(err.msg, cases[i].want);
		srt_loadgen_cmd_release(&c);
	}

	/* the spec itself */
	struct srt_loadgen_spec s = spec_of(SRT_BENCH_VLLM, NULL);
	struct srt_loadgen_cmd c;
	struct srt_error err;

	s.point.concurrency = 0;
	assert_int_equal(srt_loadgen_build(&c, &s, &err), -1);
	assert_non_null(strstr(err.msg, "must be positive"));
	s = spec_of(SRT_BENCH_VLLM, NULL);
	s.result_file = "relative.json";
	assert_int_equal(srt_loadgen_build(&c, &s, &err), -1);
	assert_string_equal(err.msg,
			    "benchmark: the result file 'relative.json' is not an absolute path");
	s = spec_of(SRT_BENCH_VLLM, NULL);
	s.frontend_url = NULL;
	assert_int_equal(srt_loadgen_build(&c, &s, &err), -1);
	srt_loadgen_cmd_release(&c);
}

/* benchmark.resultFile: the point's variables expanded, relative to the run directory. */
static void test_result_path(void **state)
{
	struct srt_loadgen_spec s = spec_of(SRT_BENCH_CUSTOM, NULL);
	struct srt_error err;
	char *p;

	(void)state;
	assert_int_equal(
		srt_loadgen_result_path("out/c${SRT_BENCH_CONCURRENCY}-$SRT_BENCH_ISL.json", &s,
					"/runs/r1", &p, &err),
		0);
	assert_string_equal(p, "/runs/r1/out/c8-1024.json");
	free(p);
	assert_int_equal(srt_loadgen_result_path("/data/$SRT_BENCH_REPEAT/x.json", &s, "/runs/r1",
						 &p, &err),
			 0);
	assert_string_equal(p, "/data/1/x.json");
	free(p);
	assert_int_equal(srt_loadgen_result_path("a$HOME.json", &s, "/r", &p, &err), -1);
	assert_string_equal(
		err.msg, "'$HOME' is not a variable srtctl sets; write $NAME or ${NAME} with one "
			 "of SRT_BENCH_ISL, SRT_BENCH_OSL, SRT_BENCH_CONCURRENCY, "
			 "SRT_BENCH_PROMPTS, SRT_BENCH_WARMUP, SRT_BENCH_REPEAT, "
			 "SRT_BENCH_MODEL, SRT_BENCH_TOKENIZER, SRT_FRONTEND_URL, "
			 "SRT_BENCH_RESULT_FILE");
	assert_null(p);
	assert_int_equal(srt_loadgen_result_path("${SRT_BENCH_ISL", &s, "/r", &p, &err), -1);
	assert_non_null(strstr(err.msg, "'${SRT_BENCH_ISL' is not a variable"));
	assert_int_equal(srt_loadgen_result_path("a$", &s, "/r", &p, &err), -1);
	assert_int_equal(srt_loadgen_result_path("out/", &s, "/r", &p, &err), -1);
	assert_non_null(strstr(err.msg, "names a directory"));
	assert_int_equal(srt_loadgen_result_file_check("", &err), -1);
	assert_int_equal(srt_loadgen_result_file_check("out/${SRT_BENCH_OSL}.json", &err), 0);
}

/* A custom tool's file may leave latencies out: unknown, and an SLO on one is missed. */
static void test_parse_custom_without_e2el(void **state)
{
	static const char doc[] =
		"{\"completed\": 4, \"failed\": 0, \"duration\": 1.5, \"total_input_tokens\": 40, "
		"\"total_output_tokens\": 8, \"request_throughput\": 2.6, "
		"\"output_throughput\": 5.3, \"total_token_throughput\": 32, "
		"\"mean_ttft_ms\": 1, \"median_ttft_ms\": 1, \"p99_ttft_ms\": 2, "
		"\"mean_tpot_ms\": 1, \"median_tpot_ms\": 1, \"p99_tpot_ms\": 2, "
		"\"mean_itl_ms\": 1, \"median_itl_ms\": 1, \"p99_itl_ms\": 2}";
	struct srt_loadgen_point p4 = { 64, 2, 1, 4, 0, 1 };
	double slo[SRT_SLO_NMETRICS][SRT_SLO_NSTATS] = { { 0 } };
	struct srt_point_result r;
	struct srt_error err;
	char why[200];

	(void)state;
	assert_int_equal(
		srt_loadgen_parse_result(&r, SRT_BENCH_CUSTOM, doc, strlen(doc), &p4, &err), 0);
	assert_true(isnan(r.ms[SRT_SLO_E2EL][SRT_SLO_P99]));
	assert_true(r.ms[SRT_SLO_TTFT][SRT_SLO_P99] == 2);
	slo[SRT_SLO_TTFT][SRT_SLO_P99] = 10;
	assert_int_equal(srt_loadgen_slo(&r, (const double(*)[SRT_SLO_NSTATS])slo, why,
					 sizeof(why)),
			 SRT_SLO_MET);
	slo[SRT_SLO_E2EL][SRT_SLO_P99] = 10;
	assert_int_equal(srt_loadgen_slo(&r, (const double(*)[SRT_SLO_NSTATS])slo, why,
					 sizeof(why)),
			 SRT_SLO_MISSED);
	assert_string_equal(why, "p99 e2el unknown (the result has no p99_e2el_ms) > slo 10 ms");
	srt_point_result_release(&r);
	/* vllm-bench: srtctl asked for every latency, so one missing is an error */
	assert_int_equal(srt_loadgen_parse_result(&r, SRT_BENCH_VLLM, doc, strlen(doc), &p4, &err),
			 -1);
	assert_string_equal(err.msg, "vllm-bench result: key 'mean_e2el_ms' is missing");
	srt_point_result_release(&r);
}

static void test_parse_vllm(void **state)
{
	size_t len;
	char *data = srt_read_file(DATA "vllm_bench_serve.json", &len);
	struct srt_point_result r;
	struct srt_error err;
	(void)state;

	assert_non_null(data);
	assert_int_equal(srt_loadgen_parse_result(&r, SRT_BENCH_VLLM, data, len, &pt, &err), 0);
	assert_int_equal(r.num_prompts, 8);
	assert_int_equal(r.completed, 7);
	assert_int_equal(r.errors, 1);
	assert_true(r.duration_s == 2.5051);
	assert_int_equal(r.total_input_tokens, 896);
	assert_int_equal(r.total_output_tokens, 448);
	assert_true(r.request_throughput == 2.794299628757335);
	assert_true(r.output_throughput == 178.83517624046945);
	assert_true(r.total_token_throughput == 536.5055287213983);
	assert_true(r.ms[SRT_SLO_TTFT][SRT_SLO_MEAN] == 41.5);
	assert_true(r.ms[SRT_SLO_TTFT][SRT_SLO_MEDIAN] == 40.25);
	assert_true(r.ms[SRT_SLO_TTFT][SRT_SLO_P99] == 55.75);
	assert_true(r.ms[SRT_SLO_TPOT][SRT_SLO_P99] == 9.875);
	assert_true(r.ms[SRT_SLO_ITL][SRT_SLO_MEDIAN] == 8.5);
	assert_true(r.ms[SRT_SLO_E2EL][SRT_SLO_P99] == 640.25);
	assert_int_equal(r.raw_len, len);
	assert_memory_equal(r.raw_json, data, len);
	srt_point_result_release(&r);
	free(data);
}

static void test_parse_sa(void **state)
{
	size_t len;
	char *data = srt_read_file(DATA "sa_bench.json", &len);
	struct srt_point_result r;
	struct srt_error err;
	(void)state;

	assert_non_null(data);
	assert_int_equal(srt_loadgen_parse_result(&r, SRT_BENCH_SA, data, len, &pt, &err), 0);
	assert_int_equal(r.num_prompts, 4);
	assert_int_equal(r.completed, 3);
	assert_int_equal(r.errors, 1); /* 4 entries in `errors`, 3 completed */
	assert_true(r.duration_s == 1.25);
	assert_int_equal(r.total_output_tokens, 192);
	assert_true(r.ms[SRT_SLO_TTFT][SRT_SLO_P99] == 34.94);
	assert_true(r.ms[SRT_SLO_E2EL][SRT_SLO_MEDIAN] == 599.0);
	srt_point_result_release(&r);
	free(data);
}

/* Take the vLLM sample and replace one key's value textually. */
static void test_hostile(void **state)
{
	size_t len;
	char *data = srt_read_file(DATA "vllm_bench_serve.json", &len);
	static const struct {
		const char *from, *to, *want;
	} cases[] = {
		{ "\"completed\": 7", "\"completed\": -7",
		  "vllm-bench result: 'completed' is -7, a negative count" },
		{ "\"completed\": 7", "\"completed\": 7.5",
		  "vllm-bench result: 'completed' is not an integer count" },
		{ "\"completed\": 7", "\"completed\": \"7\"",
		  "vllm-bench result: 'completed' is not an integer count" },
		{ "\"completed\": 7", "\"completedx\": 7",
		  "vllm-bench result: key 'completed' is missing" },
		{ "\"duration\": 2.5051", "\"duration\": NaN", NULL },
		{ "\"duration\": 2.5051", "\"duration\": 1e999", NULL },
		{ "\"duration\": 2.5051", "\"duration\": -1.0",
		  "vllm-bench result: 'duration' is -1, not a finite number >= 0" },
		{ "\"mean_ttft_ms\": 41.5", "\"mean_ttft_ms\": null",
		  "vllm-bench result: 'mean_ttft_ms' is not a number" },
		{ "\"failed\": 1", "\"failed\": 9",
		  "vllm-bench result: completed 7 + failed 9 is more than the 8 prompts" },
		{ "\"failed\": 1", "\"fail\": 1",
		  "vllm-bench result: neither 'failed' nor an 'errors' list says how many requests "
		  "failed" },
		{ "\"completed\": 7", "\"completed\": 7, \"completed\": 8", NULL },
	};
	(void)state;

	assert_non_null(data);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *at = strstr(data, cases[i].from);
		struct srt_buf b;
		struct srt_point_result r;
		struct srt_error err;

		assert_non_null(at);
		srt_buf_init(&b);
		srt_buf_append(&b, data, (size_t)(at - data));
		srt_buf_puts(&b, cases[i].to);
		srt_buf_puts(&b, at + strlen(cases[i].from));
		assert_int_equal(
			srt_loadgen_parse_result(&r, SRT_BENCH_VLLM, b.data, b.len, &pt, &err), -1);
		assert_null(r.raw_json);
		if (cases[i].want)
			assert_string_equal(err.msg, cases[i].want);
		else
			assert_non_null(strstr(err.msg, "not JSON"));
		srt_buf_release(&b);
	}

	/* every truncation of the file is refused */
	for (size_t n = 0; n < len; n++) {
		struct srt_point_result r;
		struct srt_error err;

		assert_int_equal(srt_loadgen_parse_result(&r, SRT_BENCH_VLLM, data, n, &pt, &err),
				 -1);
		assert_non_null(strstr(err.msg, "not JSON"));
	}

	/* not an object; too big; NUL inside */
	struct srt_point_result r;
	struct srt_error err;
	assert_int_equal(srt_loadgen_parse_result(&r, SRT_BENCH_SA, "[1,2]", 5, &pt, &err), -1);
	assert_string_equal(err.msg, "sa-bench result: not a JSON object");
	assert_int_equal(srt_loadgen_parse_result(&r, SRT_BENCH_SA, data,
						  SRT_LOADGEN_MAX_RESULT_BYTES + 1u, &pt, &err),
			 -1);
	assert_non_null(strstr(err.msg, "more than the"));
	assert_int_equal(srt_loadgen_parse_result(&r, SRT_BENCH_SA, "{\"a\":\"\0\"}", 9, &pt, &err),
			 -1);
	free(data);
}

static struct srt_point_result ok_result(void)
{
	struct srt_point_result r = { 0 };

	r.num_prompts = 80;
	r.completed = 80;
	r.total_output_tokens = 80 * 128;
	return r;
}

static void test_validity(void **state)
{
	const struct srt_loadgen_validity v = { 0.99, 0.01, 0.5 };
	struct srt_point_result r = ok_result();
	char why[256];
	(void)state;

	assert_true(srt_loadgen_valid(&r, &pt, &v, why, sizeof(why)));
	assert_string_equal(why, "");

	r.completed = 0;
	r.errors = 80;
	r.total_output_tokens = 0;
	assert_false(srt_loadgen_valid(&r, &pt, &v, why, sizeof(why)));
	assert_string_equal(why, "completed 0 of 80 requests (0.0%), below "
				 "validity.minCompletedRatio 0.99");

	/* every request "succeeded" with no tokens: the KV-transfer failure case */
	r = ok_result();
	r.total_output_tokens = 0;
	assert_false(srt_loadgen_valid(&r, &pt, &v, why, sizeof(why)));
	assert_string_equal(why, "generated 0 output tokens of 10240 requested (80 prompts x osl "
				 "128, 0.0%), below validity.minOutputTokensRatio 0.5");

	r = ok_result();
	r.completed = 79;
	r.errors = 1;
	assert_false(srt_loadgen_valid(&r, &pt, &v, why, sizeof(why)));
	assert_string_equal(why, "completed 79 of 80 requests (98.8%), below "
				 "validity.minCompletedRatio 0.99");
	const struct srt_loadgen_validity loose = { 0.9, 0.05, 0.5 };
	assert_true(srt_loadgen_valid(&r, &pt, &loose, why, sizeof(why)));
	const struct srt_loadgen_validity strict = { 0.9, 0.0, 0.5 };
	assert_false(srt_loadgen_valid(&r, &pt, &strict, why, sizeof(why)));
	assert_string_equal(why, "1 of 80 requests failed (1.2%), above validity.maxErrorRatio 0");

	r.total_output_tokens = 5120; /* exactly half */
	assert_true(srt_loadgen_valid(&r, &pt, &loose, why, sizeof(why)));
	r.total_output_tokens = 5119;
	assert_false(srt_loadgen_valid(&r, &pt, &loose, why, sizeof(why)));
}

static void test_slo(void **state)
{
	double slo[SRT_SLO_NMETRICS][SRT_SLO_NSTATS] = { { 0 } };
	struct srt_point_result r = ok_result();
	char why[128];
	(void)state;

	r.ms[SRT_SLO_TTFT][SRT_SLO_P99] = 812.4;
	r.ms[SRT_SLO_TPOT][SRT_SLO_MEDIAN] = 20.0;
	assert_int_equal(srt_loadgen_slo(&r, slo, why, sizeof(why)), SRT_SLO_NONE);
	slo[SRT_SLO_TPOT][SRT_SLO_MEDIAN] = 20.0; /* equal meets it */
	assert_int_equal(srt_loadgen_slo(&r, slo, why, sizeof(why)), SRT_SLO_MET);
	assert_string_equal(why, "");
	slo[SRT_SLO_TTFT][SRT_SLO_P99] = 500;
	assert_int_equal(srt_loadgen_slo(&r, slo, why, sizeof(why)), SRT_SLO_MISSED);
	assert_string_equal(why, "p99 ttft 812.4 ms > slo 500 ms");
	assert_int_equal(srt_loadgen_slo(&r, slo, NULL, 0), SRT_SLO_MISSED);
}

/* test_loadgen --parse TOOL FILE: print the columns or the error. */
static int parse_file(const char *tool, const char *path)
{
	enum srt_bench_tool t = strcmp(tool, "sa-bench") == 0 ? SRT_BENCH_SA :
				strcmp(tool, "custom") == 0   ? SRT_BENCH_CUSTOM :
								SRT_BENCH_VLLM;
	size_t len = 0;
	char *data = srt_read_file(path, &len);
	struct srt_point_result r;
	struct srt_error err;
	static const char *const m[] = { "ttft", "tpot", "itl", "e2el" };
	static const char *const s[] = { "mean", "median", "p99" };

	if (!data) {
		fprintf(stderr, "cannot read %s\n", path);
		return 1;
	}
	if (srt_loadgen_parse_result(&r, t, data, len, NULL, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		free(data);
		return 1;
	}
	printf("{\"num_prompts\": %" PRId64 ", \"completed\": %" PRId64 ", \"errors\": %" PRId64
	       ", \"duration_s\": %.17g, \"total_input_tokens\": %" PRId64
	       ", \"total_output_tokens\": %" PRId64 ", \"request_throughput\": %.17g"
	       ", \"output_throughput\": %.17g, \"total_token_throughput\": %.17g",
	       r.num_prompts, r.completed, r.errors, r.duration_s, r.total_input_tokens,
	       r.total_output_tokens, r.request_throughput, r.output_throughput,
	       r.total_token_throughput);
	for (int i = 0; i < SRT_SLO_NMETRICS; i++)
		for (int j = 0; j < SRT_SLO_NSTATS; j++)
			printf(", \"%s_%s_ms\": %.17g", s[j], m[i], r.ms[i][j]);
	printf("}\n");
	srt_point_result_release(&r);
	free(data);
	return 0;
}

static int print_argv(char **argv)
{
	enum srt_bench_tool t = strcmp(argv[0], "sa-bench") == 0 ? SRT_BENCH_SA : SRT_BENCH_VLLM;
	struct srt_loadgen_spec s = spec_of(t, argv[8]);
	struct srt_loadgen_cmd c;
	struct srt_error err;

	s.frontend_url = argv[1];
	s.result_file = argv[2];
	s.tokenizer = NULL;
	s.point.isl = strtoll(argv[3], NULL, 10);
	s.point.osl = strtoll(argv[4], NULL, 10);
	s.point.concurrency = strtoll(argv[5], NULL, 10);
	s.point.prompts = strtoll(argv[6], NULL, 10);
	s.point.warmup = strtoll(argv[7], NULL, 10);
	s.point.repeat = 0;
	if (srt_loadgen_build(&c, &s, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	for (char **p = c.warmup_argv; p && *p; p++)
		printf("%s\n", *p);
	printf("--\n");
	for (char **p = c.argv; *p; p++)
		printf("%s\n", *p);
	srt_loadgen_cmd_release(&c);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv_vllm),
		cmocka_unit_test(test_argv_sa),
		cmocka_unit_test(test_argv_custom),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_result_path),
		cmocka_unit_test(test_parse_custom_without_e2el),
		cmocka_unit_test(test_parse_vllm),
		cmocka_unit_test(test_parse_sa),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_validity),
		cmocka_unit_test(test_slo),
	};

	if (argc == 4 && strcmp(argv[1], "--parse") == 0)
		return parse_file(argv[2], argv[3]);
	if ((argc == 10 || argc == 11) && strcmp(argv[1], "--argv") == 0)
		return print_argv(argv + 2); /* argv[argc] is NULL: no params */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
