/*
 * cli/cmd_compare.c: `srtctl compare A B [--metric M] [--threshold P%]`:
 * two campaigns' results point by point (results/results.h), for a CI job
 * to gate on: exit 1 when a matched point regressed beyond the threshold.
 */
#include "cli/cli.h"
#include "cli/print.h"
#include "results/results.h"
#include "store/store.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: srtctl compare A B [--metric NAME] [--threshold P%] [-o json] [--db PATH]\n"
	"\n"
	"Compare two campaigns' results point by point (A and B: campaign names, or\n"
	"run/NAME for the points one run ran): a point of A and one of B are the same\n"
	"point when their deployment axes (between two campaigns), ISL, OSL,\n"
	"concurrency and repeat are equal (so last week's campaign and today's match\n"
	"even though their point ids differ).  Only done points with the metric\n"
	"measured are compared.  Each\n"
	"matched point's change of the metric from A to B is printed with its verdict:\n"
	"`regression` when it is worse by more than the threshold (lower, for a\n"
	"throughput; higher, for a latency, errors or duration), `better` when it is\n"
	"better by more, else `same`.\n"
	"\n"
	"Options:\n"
	"      --metric NAME     what to compare (default output_throughput): a column of\n"
	"                        `srtctl get points -o json`'s results, e.g.\n"
	"                        total_token_throughput, median_tpot_ms, p99_ttft_ms\n"
	"      --threshold P     how much worse counts as a regression, in percent\n"
	"                        (default 5; \"5%\" is accepted)\n"
	"  -o, --output json     the comparison as JSON (fields below)\n"
	"      --db PATH         state database (default: $SRTCTL_DB, else\n"
	"                        $XDG_STATE_HOME/srtctl/srtctl.db)\n"
	"  -h, --help            show this help\n"
	"\n"
	"JSON: metric, better (\"higher\" | \"lower\"), threshold_pct, a, b, matched,\n"
	"regressions, unmatched_a, unmatched_b, items: [{axes, isl, osl, concurrency,\n"
	"repeat, a, b, delta_pct (null when A is 0), verdict, point_a, point_b}].\n"
	"\n"
	"Exit codes: 0 no matched point regressed, 1 at least one did, 2 usage error:\n"
	"an unknown metric or campaign, campaigns run with different benchmark tools,\n"
	"or no point of A matches one of B (nothing to gate on).\n"
	"\n"
	"Examples:\n"
	"  srtctl compare qwen3-sweep-w47 qwen3-sweep-w48\n"
	"  srtctl compare qwen3-sweep-w47 qwen3-sweep-w48 --metric p99_ttft_ms --threshold 10%\n"
	"  srtctl compare run/qwen3-sweep-1a2b3c4d-1-1 run/qwen3-sweep-5e6f7a8b-1-1\n";

/*
 * One side: a campaign's points, or a run's (run/NAME: the points that ran
 * in it), their rows and the comparison's inputs (keys owned here).
 */
struct side {
	const char *arg;  /* as given, for messages */
	const char *name; /* the campaign's or the run's name */
	bool run;
	struct srt_point_row *rows;
	size_t n, cap;
	struct srt_cmp_in *in;
	const char *tool; /* of its points (borrowed from rows), or NULL when it has none */
	bool mixed_tools;
};

static void side_release(struct side *s)
{
	for (size_t i = 0; s->in && i < s->n; i++)
		free((char *)s->in[i].key);
	free(s->in);
	srt_point_rows_free(s->rows, s->n);
}

/* Keep a point of the side's run (a campaign's are all its own); its strings are taken. */
static int keep_row(void *ctx, struct srt_point_row *r)
{
	struct side *s = ctx;

	if (s->run && (!r->run_name || strcmp(r->run_name, s->name)))
		return 0;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->rows = srt_xrealloc(s->rows, s->cap * sizeof(*s->rows));
	}
	s->rows[s->n++] = *r;
	memset(r, 0, sizeof(*r));
	return 0;
}

/* Read the side's points; 1 when it has none (or does not exist), 0, -1 error. */
static int side_load(struct srt_store *store, struct side *s, struct srt_error *err)
{
	if (srt_store_point_each(store, s->run ? NULL : s->name, false, keep_row, s, err) != 0)
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		const struct srt_point_row *r = &s->rows[i];

		if (!s->tool)
			s->tool = r->tool;
		else if (r->tool && strcmp(s->tool, r->tool))
			s->mixed_tools = true;
	}
	return s->n ? 0 : 1;
}

/*
 * The comparison's inputs: a point's key is its ISL, OSL, concurrency and
 * repeat, and its deployment axes when both sides are campaigns (two runs
 * are two deployments: their axes differ by design).
 */
static void side_keys(struct side *s, size_t metric, bool with_axes)
{
	s->in = srt_xcalloc(s->n ? s->n : 1, sizeof(*s->in));
	for (size_t i = 0; i < s->n; i++) {
		const struct srt_point_row *r = &s->rows[i];
		bool done = r->state && !strcmp(r->state, "done");

		s->in[i].key = srt_xasprintf("%s|%" PRId64 "|%" PRId64 "|%" PRId64 "|%" PRId64,
					     with_axes && r->axes ? r->axes : "", r->isl, r->osl,
					     r->concurrency, r->repeat);
		s->in[i].value = done ? r->metrics[metric] : NAN;
		s->in[i].row = i;
	}
}

static const char *verdict_name(enum srt_cmp_verdict v)
{
	return v == SRT_CMP_REGRESSION ? "regression" : v == SRT_CMP_BETTER ? "better" : "same";
}

static void add_value(struct srt_table *t, double v)
{
	srt_table_addf(t, "%.4g", v);
}

static void add_delta(struct srt_table *t, double d)
{
	if (isinf(d))
		srt_table_add(t, d > 0 ? "+inf" : "-inf");
	else
		srt_table_addf(t, "%+.1f%%", d);
}

static void print_table(const struct side *a, const struct side *b, const struct srt_cmp_row *rows,
			size_t n)
{
	static const char *const head[] = { "AXES", "ISL", "OSL",   "CONC",   "REPEAT",
					    "A",    "B",   "DELTA", "VERDICT" };
	struct srt_table t;

	srt_table_init(&t, sizeof(head) / sizeof(*head));
	for (size_t i = 0; i < sizeof(head) / sizeof(*head); i++)
		srt_table_add(&t, head[i]);
	for (size_t i = 0; i < n; i++) {
		const struct srt_point_row *ra = &a->rows[rows[i].a];

		srt_table_add(&t, ra->axes);
		srt_table_add_int(&t, ra->isl, 0);
		srt_table_add_int(&t, ra->osl, 0);
		srt_table_add_int(&t, ra->concurrency, 0);
		srt_table_add_int(&t, ra->repeat, 0);
		add_value(&t, rows[i].va);
		add_value(&t, rows[i].vb);
		add_delta(&t, rows[i].delta);
		srt_table_add(&t, verdict_name(rows[i].verdict));
		(void)b;
	}
	srt_table_print(&t, stdout, "", false);
	srt_table_release(&t);
}

static void print_json(const struct side *a, const struct side *b, const char *metric,
		       enum srt_metric_better better, double threshold,
		       const struct srt_cmp_row *rows, size_t n, size_t regressions)
{
	json_t *items = json_array(), *o;

	for (size_t i = 0; i < n; i++) {
		const struct srt_point_row *ra = &a->rows[rows[i].a], *rb = &b->rows[rows[i].b];
		json_t *axes = ra->axes ? json_loads(ra->axes, 0, NULL) : NULL;

		json_array_append_new(
			items,
			json_pack("{s:o, s:I, s:I, s:I, s:I, s:f, s:f, s:o, s:s, s:s, s:s}", "axes",
				  axes ? axes : json_null(), "isl", (json_int_t)ra->isl, "osl",
				  (json_int_t)ra->osl, "concurrency", (json_int_t)ra->concurrency,
				  "repeat", (json_int_t)ra->repeat, "a", rows[i].va, "b",
				  rows[i].vb, "delta_pct",
				  isinf(rows[i].delta) ? json_null() : json_real(rows[i].delta),
				  "verdict", verdict_name(rows[i].verdict), "point_a", ra->point_id,
				  "point_b", rb->point_id));
	}
	o = json_pack("{s:s, s:s, s:f, s:s, s:s, s:I, s:I, s:I, s:I, s:o}", "metric", metric,
		      "better", better == SRT_BETTER_HIGHER ? "higher" : "lower", "threshold_pct",
		      threshold, "a", a->arg, "b", b->arg, "matched", (json_int_t)n, "regressions",
		      (json_int_t)regressions, "unmatched_a", (json_int_t)(a->n - n), "unmatched_b",
		      (json_int_t)(b->n - n), "items", items);
	srt_print_json(stdout, o);
	json_decref(o);
}

/* "5", "5%", "2.5": a percentage >= 0 (at most 1e6). */
static bool parse_threshold(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || (*end && strcmp(end, "%")) || !isfinite(v) || v < 0 || v > 1e6)
		return false;
	*out = v;
	return true;
}

/* "campaign/NAME" or "NAME": a campaign; "run/NAME": a run. */
static void side_arg(struct side *s, const char *arg)
{
	s->arg = arg;
	s->run = !strncmp(arg, "run/", 4);
	s->name = s->run ? arg + 4 : !strncmp(arg, "campaign/", 9) ? arg + 9 : arg;
}

int srt_cmd_compare(int argc, char **argv)
{
	enum {
		OPT_DB = 256,
		OPT_METRIC,
		OPT_THRESHOLD
	};
	static const struct option opts[] = {
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "output", required_argument, NULL, 'o' },
		{ "db", required_argument, NULL, OPT_DB },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db_arg = NULL, *metric = "output_throughput";
	enum srt_output fmt = SRT_OUT_TEXT;
	enum srt_metric_better better;
	struct side a = { 0 }, b = { 0 };
	struct srt_store *store = NULL;
	struct srt_cmp_row *rows = NULL;
	struct srt_error err;
	double threshold = 5;
	size_t mi, n = 0, regressions = 0;
	char *db;
	int c, o, rc = SRT_EXIT_USAGE;

	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case OPT_METRIC:
			metric = optarg;
			break;
		case OPT_THRESHOLD:
			if (!parse_threshold(optarg, &threshold))
				return srt_cli_usage_error(
					"compare",
					"--threshold '%s' is not a percentage >= 0 "
					"(write 5 or 5%%)",
					optarg);
			break;
		case 'o':
			if (srt_cli_parse_output("compare", optarg, &fmt, false) != 0)
				return SRT_EXIT_USAGE;
			if (fmt != SRT_OUT_JSON && fmt != SRT_OUT_TEXT)
				return srt_cli_usage_error("compare", "-o takes json only");
			break;
		case OPT_DB:
			db_arg = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return SRT_EXIT_OK;
		default:
			return srt_cli_usage_error("compare", "unknown option");
		}
	}
	if (argc - optind != 2)
		return srt_cli_usage_error("compare", "name two campaigns: srtctl compare A B");
	if (!srt_results_metric(metric, &mi, &better)) {
		fprintf(stderr, "srtctl compare: no metric '%s'; the metrics are", metric);
		for (size_t i = 0; i < SRT_POINT_NMETRICS; i++)
			fprintf(stderr, "%s %s", i ? "," : "", srt_point_metric_names[i]);
		fputc('\n', stderr);
		return SRT_EXIT_USAGE;
	}
	side_arg(&a, argv[optind]);
	side_arg(&b, argv[optind + 1]);
	db = srt_cli_db_path(db_arg);
	o = srt_cli_db_open("compare", db, 0, &store);
	if (o != 0) {
		if (o > 0)
			srt_cli_db_missing("compare", db);
		free(db);
		return SRT_EXIT_USAGE;
	}
	for (struct side *s = &a; s; s = s == &a ? &b : NULL) {
		o = side_load(store, s, &err);
		if (o < 0) {
			fprintf(stderr, "srtctl compare: %s\n", err.msg);
			goto out;
		}
		if (o > 0) {
			fprintf(stderr,
				s->run ?
					"srtctl compare: run '%s' ran no point (`srtctl get points "
					"-o wide` shows each point's run)\n" :
					"srtctl compare: campaign '%s' has no points (is it applied? "
					"`srtctl get campaigns` lists them)\n",
				s->name);
			goto out;
		}
		if (s->mixed_tools) {
			fprintf(stderr,
				"srtctl compare: %s has points of more than one benchmark tool; "
				"compare campaigns run with one\n",
				s->arg);
			goto out;
		}
	}
	if (a.tool && b.tool && strcmp(a.tool, b.tool)) {
		fprintf(stderr,
			"srtctl compare: '%s' ran %s and '%s' ran %s: their numbers are not "
			"comparable\n",
			a.arg, a.tool, b.arg, b.tool);
		goto out;
	}
	side_keys(&a, mi, !a.run && !b.run);
	side_keys(&b, mi, !a.run && !b.run);
	n = srt_results_compare(a.in, a.n, b.in, b.n, better, threshold, &rows, &regressions);
	if (!n) {
		fprintf(stderr,
			"srtctl compare: no done point of '%s' matches one of '%s' with %s measured "
			"(points match by ISL, OSL, concurrency and repeat, and deployment axes "
			"between campaigns); "
			"nothing to compare\n",
			a.arg, b.arg, metric);
		goto out;
	}
	if (fmt == SRT_OUT_JSON) {
		print_json(&a, &b, metric, better, threshold, rows, n, regressions);
	} else {
		print_table(&a, &b, rows, n);
		printf("\n%zu point(s) matched, %zu regressed beyond %g%% (%s, %s is better); "
		       "%zu of %s and %zu of %s not matched\n",
		       n, regressions, threshold, metric,
		       better == SRT_BETTER_HIGHER ? "higher" : "lower", a.n - n, a.arg, b.n - n,
		       b.arg);
	}
	fflush(stdout);
	rc = regressions ? SRT_EXIT_INVALID : SRT_EXIT_OK;
out:
	free(rows);
	side_release(&a);
	side_release(&b);
	srt_store_close(store);
	free(db);
	return rc;
}
