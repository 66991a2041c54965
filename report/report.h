/*
 * report/report.h: a campaign's results as one self-contained HTML file
 * (`srtctl report`): a summary, the best point per shape, the Pareto
 * frontier's points, charts (the frontier of output tok/s per GPU against
 * per user, TTFT and TPOT median and p99 and throughput against
 * concurrency, per deployment and ISL/OSL shape) and provenance.
 *
 * This module owns the file's format and is pure: the caller reads the
 * database and the charting library and writes the file.  The charts are
 * drawn by Chart.js, inlined whole (the file opens from disk or a mail
 * attachment with no network); the data is one JSON object in a
 * <script type="application/json"> element, every '<' escaped, so no value
 * can end the element; every value in the HTML itself is escaped.
 */
#ifndef SRT_REPORT_H
#define SRT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* One point with what the caller derived from it (cli/points.c). */
struct srt_report_point {
	const struct srt_point_row *row;
	int64_t gpus;
	double per_user, per_gpu; /* output tok/s per user and per GPU; NaN unknown */
	bool frontier;		  /* on the Pareto frontier of its shape */
};

struct srt_report_in {
	const char *campaign, *state, *spec_hash, *tool;
	const char *engine, *container, *model; /* from the campaign's template; may be NULL */
	const char *slo;			/* "ttftP99Ms <= 500 ms, ..."; NULL or "": none */
	const char *srtctl_version, *generated_at; /* RFC 3339 */
	int64_t generation;
	double node_hours;
	const struct srt_report_point *points;
	size_t npoints;
	const char *chartjs; /* the library's text (it must not contain "</script") */
	size_t chartjs_len;
	const char *chartjs_name; /* where it came from, for the provenance table */
};

/* The HTML (malloc'd, NUL-terminated); *len its length. */
char *srt_report_html(const struct srt_report_in *in, size_t *len);

#endif
