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

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	"                     " SRT_REPORT_CHARTJS_DEFAULT ")\n"
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
	struct srt_report_out rep = { 0 };
	struct srt_buf js;
	struct srt_error err;
	char *db, *out = NULL;
	int c, o, rc = SRT_EXIT_USAGE;

	if (!chartjs || !*chartjs)
		chartjs = SRT_REPORT_CHARTJS_DEFAULT;
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
	if (srt_report_chartjs_read(chartjs, &js, &err) != 0) {
		fprintf(stderr, "srtctl report: %s\n", err.msg);
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
	o = srt_report_campaign(store, name, &js, chartjs, &rep, &err);
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
	out = out_arg ? srt_xstrdup(out_arg) : srt_xasprintf("%s.html", rep.name);
	if (write_report(out, rep.html, rep.len) != 0)
		goto out;
	if (strcmp(out, "-"))
		printf("campaign/%s: wrote %s (%zu point(s), %zu on the frontier, %zu KiB)\n",
		       rep.name, out, rep.points, rep.frontier, (rep.len + 1023) / 1024);
	rc = SRT_EXIT_OK;
out:
	srt_report_out_release(&rep);
	free(out);
	srt_buf_release(&js);
	srt_store_close(store);
	free(db);
	return rc;
}
