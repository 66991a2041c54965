/*
 * report/report.h: a campaign's results as one self-contained HTML file
 * (`srtctl report`): a summary, the best point per shape, the Pareto
 * frontier's points, charts (the frontier of output tok/s per GPU against
 * per user, TTFT and TPOT median and p99 and throughput against
 * concurrency, per deployment and ISL/OSL shape) and provenance.
 *
 * This module owns the file's format.  srt_report_html() is pure;
 * report/campaign.c reads what it shows (the database, Chart.js) for both
 * of its callers, `srtctl report` and the status page.  The charts are
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
#include "util/buf.h"
#include "util/err.h"

/* Debian's libjs-chart.js (3.9): its UMD build, which defines the global Chart. */
#define SRT_REPORT_CHARTJS_DEFAULT "/usr/share/javascript/chart.js/chart.min.js"
#define SRT_REPORT_CHARTJS_MAX (8u * 1024 * 1024)

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

/*
 * Read Chart.js from `path` (bounded by SRT_REPORT_CHARTJS_MAX, not through
 * a link) into `out` and check that it can be inlined.  0; 1 when there is
 * no such file; -1 otherwise; err says what to do in both cases.
 */
int srt_report_chartjs_read(const char *path, struct srt_buf *out, struct srt_error *err);

/* A report built from the database. */
struct srt_report_out {
	char *html; /* malloc'd */
	size_t len;
	char *name;		 /* the campaign's name */
	size_t points, frontier; /* its points, and how many are on the frontier */
};

/*
 * The report of campaign `name` from the database `s` (its points, their
 * frontier, node-hours, what its stored spec says), with `chartjs` (read
 * by srt_report_chartjs_read() from `chartjs_name`) inlined.  1 built
 * (release *out), 0 no such campaign, -1 with err set.
 */
int srt_report_campaign(struct srt_store *s, const char *name, const struct srt_buf *chartjs,
			const char *chartjs_name, struct srt_report_out *out,
			struct srt_error *err);
void srt_report_out_release(struct srt_report_out *out);

#endif
