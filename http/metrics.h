/*
 * http/metrics.h: /metrics, the Prometheus text exposition format 0.0.4.
 *
 * Two layers.  The writer (srt_metrics_family/_sample/_histogram) is pure:
 * it appends HELP and TYPE lines and samples to a buffer, escaping label
 * values (backslash, double quote, newline) and HELP text (backslash,
 * newline) as the format requires; names and label names are constants of
 * this module.  srt_metrics_render() writes the whole document: what the
 * loop reported (struct srt_metrics_loop, a copy the server keeps) and
 * counts read from the state database through the caller's connection.
 *
 * Every name starts with srtctl_, counters end in _total and durations are
 * in seconds (_seconds).  Database-derived numbers (runs by phase, events
 * by reason, ...) are gauges: rows are pruned or change state.
 */
#ifndef SRT_HTTP_METRICS_H
#define SRT_HTTP_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "util/buf.h"
#include "util/err.h"

/* Pass duration buckets (seconds): a pass takes milliseconds, or a slurmrestd timeout. */
#define SRT_METRICS_PASS_BUCKETS 12
extern const double srt_metrics_pass_bounds[SRT_METRICS_PASS_BUCKETS];

/* Indexed by -srt_slurm_rc: 0 unused (OK), 1..SRT_METRICS_SLURM_CODES-1 the error codes. */
#define SRT_METRICS_SLURM_CODES 10

/* What the reconcile loop reported, accumulated since the controller started. */
struct srt_metrics_loop {
	uint64_t passes_ok, passes_failed;
	uint64_t pass_buckets[SRT_METRICS_PASS_BUCKETS + 1]; /* per bucket; the last is +Inf */
	double pass_seconds_sum;
	uint64_t actions, action_errors, events_ingested;
	uint64_t slurm_requests, slurm_failures; /* the client's own counters */
	uint64_t listing_failures[SRT_METRICS_SLURM_CODES];
	bool slurm_known;     /* the last pass's job listing succeeded */
	int64_t last_pass_at; /* Unix ms of the last pass's end; 0: none yet */
	uint64_t notifications_delivered, notifications_failed; /* notifier attempts */
};

/* Record one pass of `usec` into `l` (pure). */
void srt_metrics_loop_observe(struct srt_metrics_loop *l, bool ok, int64_t usec);

/* Append `v` as a label value: \ " and newline escaped. */
void srt_metrics_escape_label(struct srt_buf *b, const char *v);
/* Append `v` as HELP text: \ and newline escaped. */
void srt_metrics_escape_help(struct srt_buf *b, const char *v);
/* "# HELP name help\n# TYPE name type\n" */
void srt_metrics_family(struct srt_buf *b, const char *name, const char *type, const char *help);
/*
 * One sample: name{k1="v1",...} value.  `labels` is NULL or k, v pairs
 * ending with NULL; values are escaped.  Integral values print without a
 * fraction, infinities as +Inf / -Inf, NaN as NaN.
 */
void srt_metrics_sample(struct srt_buf *b, const char *name, const char *const *labels,
			double value);
/*
 * A histogram family: name_bucket{le=...} (cumulative), name_sum,
 * name_count.  `buckets` holds nbounds + 1 per-bucket counts, the last for
 * values above every bound.
 */
void srt_metrics_histogram(struct srt_buf *b, const char *name, const char *help,
			   const double *bounds, size_t nbounds, const uint64_t *buckets,
			   double sum);

/*
 * The whole /metrics document into `b`: the loop's numbers, then counts
 * from the database `s` (a read-only connection is enough).  -1 with err
 * set when the database cannot be read; `b` then holds a partial document
 * the caller should not serve.
 */
int srt_metrics_render(struct srt_buf *b, struct srt_store *s, const struct srt_metrics_loop *l,
		       struct srt_error *err);

#endif
