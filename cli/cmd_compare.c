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
	"Compare two campaigns' results point by point: a point of A and one of B are\n"
	"the same point when their deployment axes, ISL, OSL, concurrency and repeat\n"
	"are equal (so last week's campaign and today's match even though their point\n"
	"ids differ).  Only done points with the metric measured are compared.  Each\n"
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
	"  srtctl compare qwen3-sweep-w47 qwen3-sweep-w48 --metric p99_ttft_ms --threshold 10%\n";

/* One campaign's done points: their rows and the comparison's inputs (keys owned here). */
struct side {
	const char *name;
	struct srt_point_row *rows;
	size_t n;
	struct srt_cmp_in *in;
	const char *tool; /* of its points (borrowed from rows), or NULL when it has none */
	bool mixed_tools;
};

static void side_release(struct side *s)
{
	for (size_t i = 0; i < s->n; i++)
		free((char *)s->in[i].key);
	free(s->in);
	srt_point_rows_free(s->rows, s->n);
}

/* Read campaign s->name's points; 1 when it has none (or does not exist), 0, -1 error. */
static int side_load(struct srt_store *store, struct side *s, size_t metric, struct srt_error *err)
{
	if (srt_store_point_list(store, s->name, false, &s->rows, &s->n, err) != 0)
		return -1;
	s->in = calloc(s->n ? s->n : 1, sizeof(*s->in));
	if (!s->in)
		abort();
	for (size_t i = 0; i < s->n; i++) {
		const struct srt_point_row *r = &s->rows[i];
		bool done = r->state && !strcmp(r->state, "done");

		s->in[i].key = srt_xasprintf("%s|%" PRId64 "|%" PRId64 "|%" PRId64 "|%" PRId64,
					     r->axes ? r->axes : "", r->isl, r->osl, r->concurrency,
					     r->repeat);
		s->in[i].value = done ? r->metrics[metric] : NAN;
		s->in[i].row = i;
		if (!s->tool)
			s->tool = r->tool;
		else if (r->tool && strcmp(s->tool, r->tool))
			s->mixed_tools = true;
	}
	return s->n ? 0 : 1;
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
		      threshold, "a", a->name, "b", b->name, "matched", (json_int_t)n,
		      "regressions", (json_int_t)regressions, "unmatched_a", (json_int_t)(a->n - n),
		      "unmatched_b", (json_int_t)(b->n - n), "items", items);
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

static const char *campaign_name(const char *arg)
{
	return !strncmp(arg, "campaign/", 9) ? arg + 9 : arg;
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
	a.name = campaign_name(argv[optind]);
	b.name = campaign_name(argv[optind + 1]);
	db = srt_cli_db_path(db_arg);
	o = srt_cli_db_open("compare", db, 0, &store);
	if (o != 0) {
		if (o > 0)
			srt_cli_db_missing("compare", db);
		free(db);
		return SRT_EXIT_USAGE;
	}
	for (struct side *s = &a; s; s = s == &a ? &b : NULL) {
		o = side_load(store, s, mi, &err);
		if (o < 0) {
			fprintf(stderr, "srtctl compare: %s\n", err.msg);
			goto out;
		}
		if (o > 0) {
			fprintf(stderr,
				"srtctl compare: campaign '%s' has no points (is it applied? `srtctl "
				"get campaigns` lists them)\n",
				s->name);
			goto out;
		}
		if (s->mixed_tools) {
			fprintf(stderr,
				"srtctl compare: campaign '%s' has points of more than one "
				"benchmark tool; compare campaigns run with one\n",
				s->name);
			goto out;
		}
	}
	if (a.tool && b.tool && strcmp(a.tool, b.tool)) {
		fprintf(stderr,
			"srtctl compare: '%s' ran %s and '%s' ran %s: their numbers are not "
			"comparable\n",
			a.name, a.tool, b.name, b.tool);
		goto out;
	}
	n = srt_results_compare(a.in, a.n, b.in, b.n, better, threshold, &rows, &regressions);
	if (!n) {
		fprintf(stderr,
			"srtctl compare: no done point of '%s' matches one of '%s' with %s measured "
			"(points match by deployment axes, ISL, OSL, concurrency and repeat); "
			"nothing to compare\n",
			a.name, b.name, metric);
		goto out;
	}
	if (fmt == SRT_OUT_JSON) {
		print_json(&a, &b, metric, better, threshold, rows, n, regressions);
	} else {
		print_table(&a, &b, rows, n);
		printf("\n%zu point(s) matched, %zu regressed beyond %g%% (%s, %s is better); "
		       "%zu of %s and %zu of %s not matched\n",
		       n, regressions, threshold, metric,
		       better == SRT_BETTER_HIGHER ? "higher" : "lower", a.n - n, a.name, b.n - n,
		       b.name);
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
