/*
 * results/results.h: what a campaign's results say, computed over the
 * normalised metrics the store keeps (campaign_points): the Pareto frontier
 * of a set of points, and the comparison of two sets point by point.
 *
 * Everything here is pure: no I/O, no database.  The callers (srtctl get
 * points --frontier, srtctl compare, the report) read the rows and print.
 */
#ifndef SRT_RESULTS_H
#define SRT_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loadgen/loadgen.h" /* srt_point_metric_names, SRT_POINT_NMETRICS */

/* Which way a metric is better. */
enum srt_metric_better {
	SRT_BETTER_HIGHER, /* throughputs, completed */
	SRT_BETTER_LOWER,  /* latencies, errors, duration */
};

/*
 * The metric called `name` (a column of srt_point_metric_names:
 * "output_throughput", "p99_ttft_ms", ...): its index and which way is
 * better.  false when there is no such metric.
 */
bool srt_results_metric(const char *name, size_t *index, enum srt_metric_better *better);
/*
 * The index of the metric column `name`, for callers that name one of
 * srt_point_metric_names by a literal: 0 (completed) for another name, so
 * a misspelt literal shows as wrong numbers in its test, never as a crash.
 */
size_t srt_results_column(const char *name);

/*
 * The Pareto frontier of n points (x[i], y[i]), both better higher: on[i]
 * is set when no other point has x >= x[i] and y >= y[i] with one of them
 * greater (a point with a NaN coordinate is never on it; equal points are
 * both on it).  O(n log n): sorted by x descending, then one sweep keeping
 * the best y so far.  Returns how many are on it.
 */
size_t srt_results_frontier(const double *x, const double *y, size_t n, bool *on);

/* ---- a campaign's points (results/points.c) ---- */

struct srt_point_row; /* store/store.h */

/* The GPUs of a point's deployment: its nodes x resources.gpus_per_node (default 4). */
int64_t srt_results_point_gpus(const struct srt_point_row *r);
/* Output tokens/s per user (1000 / median TPOT) and per GPU; NaN when not measured. */
void srt_results_point_rates(const struct srt_point_row *r, double *per_user, double *per_gpu);
/*
 * on[i]: row i is a done point on the Pareto frontier (per user against per
 * GPU, both better higher) of its campaign and ISL/OSL shape.  Sorted into
 * groups once; returns how many are on one.
 */
size_t srt_results_points_frontier(const struct srt_point_row *rows, size_t n, bool *on);

/* One side of a comparison: a point's match key and its value of the metric. */
struct srt_cmp_in {
	const char *key; /* what must be equal for two points to be compared (borrowed) */
	double value;	 /* NaN: unknown (the point is left out) */
	size_t row;	 /* the caller's index of the point */
};

enum srt_cmp_verdict {
	SRT_CMP_SAME,	    /* within the threshold */
	SRT_CMP_BETTER,	    /* better by more than the threshold */
	SRT_CMP_REGRESSION, /* worse by more than the threshold */
};

struct srt_cmp_row {
	size_t a, b;   /* the rows of the matched points */
	double va, vb; /* their values */
	double delta;  /* (vb - va) / |va| x 100; +-INFINITY when va is 0 and vb is not */
	enum srt_cmp_verdict verdict;
};

/*
 * Match a[] and b[] by key (each key at most once per side: a repeated key
 * keeps its first point) and judge each pair: a change beyond threshold_pct
 * (>= 0) in the worse direction is a regression.  *rows (malloc'd, in a's
 * key order) gets one row per matched key; returns their number.
 * *regressions counts the REGRESSION rows.
 */
size_t srt_results_compare(const struct srt_cmp_in *a, size_t na, const struct srt_cmp_in *b,
			   size_t nb, enum srt_metric_better better, double threshold_pct,
			   struct srt_cmp_row **rows, size_t *regressions);

#endif
