/*
 * cli/cmd_report.c: `srtctl report CAMPAIGN [-o FILE]`: a campaign's results
 * as one self-contained HTML file (report/report.h), with Chart.js from
 * Debian's libjs-chart.js inlined.
 */
#include "cli/cli.h"
#include "report/report.h"
#include "runplan/rundir.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/version_gen.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Debian's libjs-chart.js (3.9): its UMD build, which defines the global Chart. */
#define CHARTJS_DEFAULT "/usr/share/javascript/chart.js/chart.min.js"
#define CHARTJS_MAX (8u * 1024 * 1024)

static const char usage_text[] =
	"usage: srtctl report CAMPAIGN [-o FILE] [--chartjs PATH] [--db PATH]\n"
	"\n"
	"Write a campaign's results as one HTML file that opens from disk or as a mail\n"
	"attachment, with no network: a summary (points done, failed and invalid,\n"
	"node-hours, the SLO), the best point per ISL/OSL shape, the Pareto frontier's\n"
	"points, charts per shape (output tok/s per GPU against tok/s per user with the\n"
	"frontier drawn and the points that miss the SLO marked; TTFT and TPOT median\n"
	"and p99, and output throughput, against concurrency, one line per deployment;\n"
	"hover a point for its parameters, run, job and raw result file) and\n"
	"provenance (spec hash, engine, container, model, benchmark tool, srtctl\n"
	"version, when).  The charts are drawn by Chart.js, inlined from Debian's\n"
	"libjs-chart.js.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE  where to write it (default: CAMPAIGN.html here); \"-\" for\n"
	"                     stdout.  Written whole or not at all.\n"
	"      --chartjs PATH Chart.js's UMD build (default: $SRTCTL_CHARTJS, else\n"
	"                     " CHARTJS_DEFAULT ")\n"
	"      --db PATH      state database (default: $SRTCTL_DB, else\n"
	"                     $XDG_STATE_HOME/srtctl/srtctl.db)\n"
	"  -h, --help         show this help\n"
	"\n"
	"Exit codes: 0 written, 1 no such campaign, 2 usage or I/O (Chart.js missing:\n"
	"apt install libjs-chart.js).\n"
	"\n"
	"Examples:\n"
	"  srtctl report qwen3-sweep\n"
	"  srtctl report qwen3-sweep -o /srv/www/qwen3-sweep.html\n";

/* What the campaign's stored spec says of its template and SLO (jansson; borrowed from *spec). */
struct spec_info {
	json_t *spec;
	const char *engine, *container, *model, *tool;
	char *slo; /* "ttftP99Ms <= 500 ms, ..." or NULL */
};

static void spec_info(const char *text, struct spec_info *si)
{
	json_t *t, *slo, *v;
	const char *key;
	struct srt_buf b;

	memset(si, 0, sizeof(*si));
	si->spec = text ? json_loads(text, 0, NULL) : NULL;
	t = json_object_get(si->spec, "template");
	si->engine = json_string_value(json_object_get(t, "engine"));
	si->container =
		json_string_value(json_object_get(json_object_get(t, "model"), "container"));
	si->model = json_string_value(json_object_get(json_object_get(t, "model"), "path"));
	si->tool =
		json_string_value(json_object_get(json_object_get(si->spec, "benchmark"), "tool"));
	slo = json_object_get(si->spec, "slo");
	srt_buf_init(&b);
	json_object_foreach(slo, key, v)
	{
		if (json_is_number(v))
			srt_buf_printf(&b, "%s%s <= %g ms", b.len ? ", " : "", key,
				       json_number_value(v));
	}
	si->slo = b.len ? srt_buf_detach(&b) : NULL;
	srt_buf_release(&b);
}

/* Read Chart.js (bounded, not through a link) and check it can be inlined. */
static int read_chartjs(const char *path, struct srt_buf *out)
{
	struct srt_error err;
	int rc = srt_rundir_read_file(path, CHARTJS_MAX, out, &err);

	if (rc == 1) {
		fprintf(stderr,
			"srtctl report: no Chart.js at %s; install it (apt install libjs-chart.js) "
			"or name its UMD build with --chartjs PATH\n",
			path);
		return -1;
	}
	if (rc < 0) {
		fprintf(stderr, "srtctl report: cannot read Chart.js: %s\n", err.msg);
		return -1;
	}
	for (size_t i = 0; i + 8 <= out->len; i++)
		if (!strncasecmp(out->data + i, "</script", 8)) {
			fprintf(stderr,
				"srtctl report: %s contains \"</script\" and cannot be inlined into "
				"the report; name Chart.js's minified UMD build with --chartjs PATH\n",
				path);
			return -1;
		}
	return 0;
}

static int write_report(const char *path, const char *html, size_t len)
{
	struct srt_error err;

	if (!strcmp(path, "-")) {
		if (fwrite(html, 1, len, stdout) != len || fflush(stdout) != 0) {
			perror("srtctl report: stdout");
			return -1;
		}
		return 0;
	}
	if (srt_rundir_write_file(path, html, len, 0644, &err) != 0) {
		fprintf(stderr, "srtctl report: %s\n", err.msg);
		return -1;
	}
	return 0;
}

int srt_cmd_report(int argc, char **argv)
{
	enum {
		OPT_DB = 256,
		OPT_CHARTJS
	};
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "chartjs", required_argument, NULL, OPT_CHARTJS },
		{ "db", required_argument, NULL, OPT_DB },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db_arg = NULL, *out_arg = NULL, *chartjs = getenv("SRTCTL_CHARTJS"), *name;
	struct srt_store *store = NULL;
	struct srt_campaign_row crow = { 0 };
	struct srt_cli_progress prog;
	struct srt_point_row *rows = NULL;
	struct srt_report_point *pts = NULL;
	struct spec_info si = { 0 };
	struct srt_buf js;
	struct srt_error err;
	char when[40], *db, *out = NULL, *html = NULL;
	size_t n = 0, len = 0, nfront = 0;
	bool *on = NULL;
	int c, o, rc = SRT_EXIT_USAGE;

	if (!chartjs || !*chartjs)
		chartjs = CHARTJS_DEFAULT;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out_arg = optarg;
			break;
		case OPT_CHARTJS:
			chartjs = optarg;
			break;
		case OPT_DB:
			db_arg = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return SRT_EXIT_OK;
		default:
			return srt_cli_usage_error("report", "unknown option");
		}
	}
	if (argc - optind != 1)
		return srt_cli_usage_error("report", "name one campaign: srtctl report CAMPAIGN");
	name = argv[optind];
	if (!strncmp(name, "campaign/", 9))
		name += 9;
	srt_buf_init(&js);
	if (read_chartjs(chartjs, &js) != 0) {
		srt_buf_release(&js);
		return SRT_EXIT_USAGE;
	}
	db = srt_cli_db_path(db_arg);
	o = srt_cli_db_open("report", db, 0, &store);
	if (o != 0) {
		if (o > 0) {
			fprintf(stderr, "srtctl report: campaign '%s' not found\n", name);
			srt_cli_db_missing("report", db);
		}
		rc = o > 0 ? SRT_EXIT_INVALID : SRT_EXIT_USAGE;
		goto out;
	}
	o = srt_store_campaign_get(store, name, &crow, &err);
	if (o <= 0) {
		if (o == 0)
			fprintf(stderr,
				"srtctl report: campaign '%s' not found; `srtctl get campaigns` "
				"lists them\n",
				name);
		else
			fprintf(stderr, "srtctl report: %s\n", err.msg);
		rc = o == 0 ? SRT_EXIT_INVALID : SRT_EXIT_USAGE;
		goto out;
	}
	if (srt_cli_progress(store, &crow, 1, &prog, &err) != 0 ||
	    srt_store_point_list(store, name, false, &rows, &n, &err) != 0) {
		fprintf(stderr, "srtctl report: %s\n", err.msg);
		goto out;
	}
	on = srt_xcalloc(n + 1, sizeof(*on));
	nfront = srt_cli_points_frontier(rows, n, on);
	pts = srt_xcalloc(n + 1, sizeof(*pts));
	for (size_t i = 0; i < n; i++) {
		pts[i].row = &rows[i];
		pts[i].gpus = srt_cli_point_gpus(&rows[i]);
		srt_cli_point_rates(&rows[i], &pts[i].per_user, &pts[i].per_gpu);
		pts[i].frontier = on[i];
	}
	spec_info(crow.spec, &si);
	srt_time_rfc3339(srt_store_now(store), when, sizeof(when));
	html = srt_report_html(&(struct srt_report_in){ .campaign = crow.name,
							.state = crow.state,
							.spec_hash = crow.spec_hash,
							.tool = si.tool ? si.tool :
									  (n ? rows[0].tool : NULL),
							.engine = si.engine,
							.container = si.container,
							.model = si.model,
							.slo = si.slo,
							.srtctl_version = SRT_VERSION,
							.generated_at = when,
							.generation = crow.generation,
							.node_hours = prog.node_hours,
							.points = pts,
							.npoints = n,
							.chartjs = js.data,
							.chartjs_len = js.len,
							.chartjs_name = chartjs },
			       &len);
	out = out_arg ? srt_xstrdup(out_arg) : srt_xasprintf("%s.html", crow.name);
	if (write_report(out, html, len) != 0)
		goto out;
	if (strcmp(out, "-"))
		printf("campaign/%s: wrote %s (%zu point(s), %zu on the frontier, %zu KiB)\n",
		       crow.name, out, n, nfront, (len + 1023) / 1024);
	rc = SRT_EXIT_OK;
out:
	free(html);
	free(out);
	free(pts);
	free(on);
	free(si.slo);
	json_decref(si.spec);
	srt_point_rows_free(rows, n);
	srt_campaign_row_release(&crow);
	srt_buf_release(&js);
	srt_store_close(store);
	free(db);
	return rc;
}
