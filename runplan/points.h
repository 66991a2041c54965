/*
 * runplan/points.h: a campaign run's load points, controller -> agent.
 *
 * A run of a campaign deployment (a child recipe, reconcilers/campaigns.h)
 * runs that deployment's unfinished load points, one after another, once
 * the deployment is Ready.  The controller says which in DIR/points.json,
 * written with plan.json before the job is submitted; the agent reports
 * each point through events.jsonl (runplan/rundir.h), so a report is
 * ingested exactly once with the events' own seq cursor.  This module owns
 * both formats.
 *
 * DIR/points.json (version 1), mode SRT_RUNDIR_FILE_MODE, written atomically:
 *   {
 *     "version": 1,
 *     "campaign": "sweep", "deployment": "sweep-1a2b3c4d",
 *     "tool": "vllm-bench" | "sa-bench" | "custom",
 *     "params": {...},            benchmark.params (an object; {} when none)
 *     "command": [..] | "..." | null,    custom only: argv, or a shell string
 *     "result_file": "...",       custom only, optional: benchmark.resultFile, the
 *                                 file the command writes (srt_loadgen_result_path());
 *                                 absent: $SRT_BENCH_RESULT_FILE
 *     "prefix": [..] | null,      the tool's command prefix; null: the default
 *     "model": "...", "tokenizer": "..." | null (null: from the plan's workers)
 *     "retries": 1,               point retries after a failed or invalid attempt
 *     "validity": {"min_completed_ratio": 0.99, "max_error_ratio": 0.01,
 *                  "min_output_tokens_ratio": 0.5},
 *     "slo": {"ttft": {"mean": 0, "median": 0, "p99": 500}, "tpot": ..., "itl": ...,
 *             "e2el": ...},       milliseconds; 0 = not set
 *     "points": [{"id": "<64 hex>", "seq": 1, "isl": 1024, "osl": 128,
 *                 "concurrency": 8, "prompts": 80, "warmup": 16, "repeat": 1}, ...]
 *   }
 *
 * The agent's reports are events (object kind "run", the run's name) with a
 * "point" member:
 *   reason PointStarted:  "point": {"id", "seq", "attempt"}
 *   reason PointRetrying (Warning): "point": {"id", "seq", "attempt", "state", "reason"}
 *   reason PointFinished: "point": {"id", "seq", "attempts",
 *       "state": "done" | "failed" | "invalid", "exit_code": N | null,
 *       "reason": "...", "raw_path": "points/0001-<12 hex>-a1.json" (relative
 *       to DIR; null when no file), "raw_sha256": "<64 hex>" | null,
 *       "started_at": MS, "finished_at": MS, "slo_met": true | false | null,
 *       "metrics": {"completed": N, "duration_s": X, ... every column of
 *       srt_point_metric_names (loadgen/loadgen.h), null when unknown}}
 *   A point whose job ends before its PointFinished has no report: the
 *   controller gives it back (reconcilers/campaigns.h, RESET_POINTS).
 */
#ifndef SRT_RUNPLAN_POINTS_H
#define SRT_RUNPLAN_POINTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loadgen/loadgen.h"
#include "util/err.h"

#define SRT_RUNDIR_POINTS "points.json"
#define SRT_RUNDIR_POINTS_DIR "points" /* raw result files: DIR/points/ */
#define SRT_POINTS_VERSION 1
#define SRT_POINTS_MAX_BYTES (16u * 1024 * 1024)

struct srt_points_entry {
	char id[65];
	int64_t seq;
	struct srt_loadgen_point load;
};

struct srt_points_file {
	char *campaign, *deployment;
	enum srt_bench_tool tool;
	char *params_json;			   /* canonical JSON object; NULL = {} */
	char **command, *command_shell;		   /* custom: argv (NULL-terminated) or a string */
	char *result_file;			   /* custom: benchmark.resultFile, or NULL */
	char **prefix;				   /* NULL-terminated, or NULL: the default */
	char *model, *tokenizer;		   /* NULL: from the plan */
	int64_t retries;			   /* >= 0 */
	struct srt_loadgen_validity validity;
	double slo_ms[SRT_SLO_NMETRICS][SRT_SLO_NSTATS]; /* 0 = not set */
	struct srt_points_entry *points;
	size_t npoints;
};

/* "vllm-bench", "sa-bench", "custom": the tool's name in points.json. */
const char *srt_points_tool_name(enum srt_bench_tool t);

/* points.json's text for `f` (malloc'd, ends with '\n'). */
char *srt_points_to_json(const struct srt_points_file *f);

/*
 * Parse points.json text (at most SRT_POINTS_MAX_BYTES; `what` names it in
 * errors) into *out (release it in every case).  Strict: a missing or
 * mistyped field, an unknown tool, a bad id, a seq or load value out of
 * range is an error that names it.
 */
int srt_points_parse(const char *text, size_t len, const char *what, struct srt_points_file *out,
		     struct srt_error *err);
void srt_points_file_release(struct srt_points_file *f);

/*
 * Read and parse DIR/points.json (the agent): a regular file, not followed
 * through a symbolic link, at most SRT_POINTS_MAX_BYTES.  1 when there is
 * none (not a campaign run), 0 read, -1 err set.  Release *out in every
 * case.
 */
int srt_points_read(const char *dir, struct srt_points_file *out, struct srt_error *err);

/* A PointFinished report as the controller reads it from an event's JSON. */
struct srt_point_report {
	char id[65];
	int64_t seq, attempts;
	const char *state;  /* "done" | "failed" | "invalid" (borrowed from the event) */
	int64_t exit_code;  /* -1: none */
	const char *reason; /* borrowed; may be NULL */
	const char *raw_path, *raw_sha256; /* borrowed; NULL when none */
	int64_t started_at, finished_at;
	int slo_met;			   /* -1 unknown, 0, 1 */
	double metrics[SRT_POINT_NMETRICS]; /* in srt_point_metric_names order; NAN unknown */
};

/*
 * The "point" member of a PointStarted (state and reason NULL) or
 * PointRetrying event (the agent, the one writer).  New reference.
 */
json_t *srt_point_attempt_json(const char *id, int64_t seq, int64_t attempt, const char *state,
			       const char *reason);

/*
 * The "point" member of a PointFinished event for r (the agent): what
 * srt_point_report_read() reads back.  NAN metrics are written as null.
 * New reference.
 */
json_t *srt_point_report_json(const struct srt_point_report *r);

/*
 * Read the "point" member of a PointFinished event (`ev` is the event's
 * whole JSON line).  1 filled, 0 not a point report, -1 malformed (err says
 * what): an agent's file is not trusted.  raw_path must be relative, under
 * SRT_RUNDIR_POINTS_DIR/, without "..".
 */
int srt_point_report_read(const json_t *ev, struct srt_point_report *out, struct srt_error *err);

#endif
