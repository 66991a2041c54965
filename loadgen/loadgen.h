/*
 * loadgen/loadgen.h: the benchmark adapters of a campaign's load points.
 *
 * One load point (isl, osl, concurrency, prompts, warmup, repeat) is run by
 * one benchmark tool against the deployment's frontend.  This module knows,
 * for each tool srtctl has an adapter for, the real command line that runs
 * one point and the real result file it writes, and turns that file into
 * the normalised columns of migrations/0002_campaigns.sql:
 *
 *   vllm-bench  `vllm bench serve` (vllm/benchmarks/serve.py): one run, the
 *               warmup requests given as --num-warmups;
 *   sa-bench    srt-slurm's benchmark_serving.py, run per point as its
 *               bench.sh runs it: a warmup run first (its own invocation,
 *               --request-rate 250, no result file), then the measured run;
 *   custom      the recipe's command as given; the point's parameters are
 *               in its environment (SRT_BENCH_*), and it writes a result
 *               file in vllm-bench's format to $SRT_BENCH_RESULT_FILE.
 *
 * Everything here is pure: no I/O, no clock.  The caller (the agent) runs
 * the command, reads the file (bounded: SRT_LOADGEN_MAX_RESULT_BYTES) and
 * hands its bytes to srt_loadgen_parse_result(); the validity gate and the
 * SLO check are functions of the parsed result and the campaign's settings.
 */
#ifndef SRT_LOADGEN_LOADGEN_H
#define SRT_LOADGEN_LOADGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "recipe/campaign.h" /* enum srt_bench_tool, SRT_SLO_* (constants only) */
#include "util/err.h"

/* A result file larger than this is refused (a real one for 100,000 requests
 * without per-request lists is under 4 KiB; sa-bench keeps its lists). */
#define SRT_LOADGEN_MAX_RESULT_BYTES (64u * 1024 * 1024)

/* One load point, as recipe/campaign.h's struct srt_campaign_point has it. */
struct srt_loadgen_point {
	int64_t isl, osl, concurrency, prompts, warmup, repeat;
};

/* What the caller knows about one point's run. */
struct srt_loadgen_spec {
	enum srt_bench_tool tool;
	/*
	 * benchmark.params as canonical JSON (an object; NULL or "" = none).
	 * Each key becomes `--key value` (true: a bare `--key`; false and null:
	 * left out; a list: `--key v1 v2 ...`); keys srtctl sets itself are
	 * refused.  Not used for `custom`.
	 */
	const char *params_json;
	/*
	 * The tool's command prefix (the cluster config may name another
	 * executable); NULL uses srt_loadgen_default_prefix().  For `custom`,
	 * the recipe's command: an argv (command, ncommand) or a shell string
	 * (command_shell, run as `bash -lc STRING`, as srt-slurm runs it).
	 */
	const char *const *prefix;
	size_t nprefix;
	const char *const *command;
	size_t ncommand;
	const char *command_shell;
	const char *frontend_url; /* "http://host:port", no trailing path */
	const char *model;	  /* the served model name */
	const char *tokenizer;	  /* path or hub id; NULL = the model name */
	struct srt_loadgen_point point;
	const char *result_file; /* absolute path under the run directory */
};

/* The processes that run one point, in order. */
struct srt_loadgen_cmd {
	char **warmup_argv; /* NULL-terminated, or NULL: no separate warmup run */
	char **argv;	    /* NULL-terminated: the measured run */
	char **env;	    /* NULL-terminated "KEY=VALUE" to add to both runs' env */
};

/*
 * The default command prefix of `tool` (NULL-terminated, static):
 * vllm-bench ["vllm", "bench", "serve"]; sa-bench ["python3", "-u",
 * "/srtctl-benchmarks/sa-bench/benchmark_serving.py"] (where srt-slurm
 * mounts its copy); custom: none (NULL).
 */
const char *const *srt_loadgen_default_prefix(enum srt_bench_tool tool);

/*
 * Build the command lines of one point into *out (zeroed first; release it
 * with srt_loadgen_cmd_release() in every case).  Returns 0, or -1 with
 * err set: a missing frontend URL, model or result file, a point with a
 * non-positive isl/osl/concurrency/prompts, params that are not a JSON
 * object, a param that names a flag srtctl owns ("benchmark.params:
 * 'max-concurrency' is set by srtctl from the load point; remove it"), a
 * nested object as a param value, a custom tool without a command.
 */
int srt_loadgen_build(struct srt_loadgen_cmd *out, const struct srt_loadgen_spec *spec,
		      struct srt_error *err);
void srt_loadgen_cmd_release(struct srt_loadgen_cmd *c);

/* The longest result file name a custom tool may give (benchmark.resultFile). */
#define SRT_LOADGEN_MAX_RESULT_PATH 1024

/*
 * benchmark.resultFile, the file a custom tool writes its result to: a path
 * in which $NAME and ${NAME} stand for the variables the point's processes
 * get (SRT_BENCH_CONCURRENCY, ...; any other $ is an error, so a typo is
 * caught at apply), relative to the run directory unless absolute.
 *
 * srt_loadgen_result_file_check() checks a template (0, or -1 with err
 * saying what is wrong: empty, too long, an unknown variable);
 * srt_loadgen_result_path() expands it for point spec `s` into *out
 * (malloc'd; a relative result is joined to `dir`).
 */
int srt_loadgen_result_file_check(const char *tmpl, struct srt_error *err);
int srt_loadgen_result_path(const char *tmpl, const struct srt_loadgen_spec *s, const char *dir,
			    char **out, struct srt_error *err);

/* One point's result, the columns of campaign_points. */
struct srt_point_result {
	int64_t num_prompts; /* requested (from the file; else the point's) */
	int64_t completed;
	int64_t errors; /* requests that failed */
	double duration_s;
	int64_t total_input_tokens, total_output_tokens;
	double request_throughput, output_throughput, total_token_throughput;
	/* [SRT_SLO_TTFT..E2EL][SRT_SLO_MEAN..P99], milliseconds */
	double ms[SRT_SLO_NMETRICS][SRT_SLO_NSTATS];
	char *raw_json; /* the file's bytes, NUL-terminated, for storage */
	size_t raw_len;
};

/*
 * Parse a tool's result file (data, len) into *out (zeroed first; release
 * with srt_point_result_release() in every case).  `point` fills
 * num_prompts when the file has none (custom).  Read: completed, duration,
 * total_input_tokens, total_output_tokens, request_throughput,
 * output_throughput, total_token_throughput, {mean,median,p99}_{ttft,tpot,
 * itl,e2el}_ms, num_prompts; errors: `failed` (vllm-bench, custom), else
 * the length of the `errors` list minus `completed` (sa-bench writes one
 * entry per request).  A custom tool's file may leave latencies out (vLLM's
 * default --percentile-metrics has no e2el): they are NaN, unknown.
 * Returns 0, or -1 with err set: more than
 * SRT_LOADGEN_MAX_RESULT_BYTES, not JSON (truncated), not an object, a key
 * missing, a value that is not a finite number, a count that is negative
 * or not an integer, completed + errors above num_prompts.
 */
int srt_loadgen_parse_result(struct srt_point_result *out, enum srt_bench_tool tool,
			     const char *data, size_t len, const struct srt_loadgen_point *point,
			     struct srt_error *err);
void srt_point_result_release(struct srt_point_result *r);

/*
 * The normalised result columns of a point (campaign_points, the metrics of
 * a PointFinished report), in this order: completed, duration_s,
 * total_input_tokens, total_output_tokens, request_throughput,
 * output_throughput, total_token_throughput, {mean,median,p99}_ttft_ms,
 * ..._tpot_ms, ..._itl_ms, ..._e2el_ms, errors.
 */
#define SRT_POINT_NMETRICS 20
extern const char *const srt_point_metric_names[SRT_POINT_NMETRICS];

/* r's columns into out, in srt_point_metric_names order. */
void srt_loadgen_metrics(const struct srt_point_result *r, double out[SRT_POINT_NMETRICS]);

/* The validity thresholds (a campaign's `validity`). */
struct srt_loadgen_validity {
	double min_completed_ratio;	/* completed / requested prompts */
	double max_error_ratio;		/* errors / requested prompts */
	double min_output_tokens_ratio; /* total_output_tokens / (prompts x osl) */
};

/*
 * Is the result a valid measurement of `point`?  true, or false with
 * `reason` (caller-owned, reason_size bytes) saying which threshold failed
 * and by how much, e.g. "completed 0 of 80 requests (0.0%), below
 * validity.minCompletedRatio 0.99".  The requested prompts are the
 * point's.
 */
bool srt_loadgen_valid(const struct srt_point_result *r, const struct srt_loadgen_point *point,
		       const struct srt_loadgen_validity *v, char *reason, size_t reason_size);

enum srt_slo_verdict {
	SRT_SLO_NONE, /* no SLO set */
	SRT_SLO_MET,
	SRT_SLO_MISSED
};

/*
 * Does the result meet the SLO table (milliseconds, 0 = not set; a
 * campaign's slo_ms)?  SRT_SLO_MISSED names the first metric that is over
 * in `reason` ("p99 ttft 812.4 ms > slo 500 ms"); an unknown (NaN) metric
 * the SLO sets misses it.  reason may be NULL.
 */
enum srt_slo_verdict srt_loadgen_slo(const struct srt_point_result *r,
				     const double slo_ms[SRT_SLO_NMETRICS][SRT_SLO_NSTATS],
				     char *reason, size_t reason_size);

#endif
