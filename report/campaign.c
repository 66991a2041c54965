/*
 * report/campaign.c: a campaign's report from the state database (see
 * report/report.h): the one place that reads what the report shows (the
 * campaign row, its points, its node-hours, its stored spec) and Chart.js,
 * for `srtctl report` and the status page's /campaigns/NAME/report.
 */
#include "report/report.h"
#include "results/results.h"
#include "runplan/rundir.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/version_gen.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int srt_report_chartjs_read(const char *path, struct srt_buf *out, struct srt_error *err)
{
	int rc = srt_rundir_read_file(path, SRT_REPORT_CHARTJS_MAX, out, err);

	if (rc == 1) {
		srt_error_set(err,
			      "no Chart.js at %s; install it (apt install libjs-chart.js) or name "
			      "its UMD build (--chartjs PATH or $SRTCTL_CHARTJS)",
			      path);
		return 1;
	}
	if (rc < 0)
		return srt_error_set(err, "cannot read Chart.js: %s", err->msg);
	for (size_t i = 0; i + 8 <= out->len; i++)
		if (!strncasecmp(out->data + i, "</script", 8))
			return srt_error_set(err,
					     "%s contains \"</script\" and cannot be inlined into "
					     "the report; name Chart.js's minified UMD build "
					     "(--chartjs PATH or $SRTCTL_CHARTJS)",
					     path);
	return 0;
}

/* What the campaign's stored spec says of its template and SLO (borrowed from *spec). */
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

/* Node-hours of campaign `name`: the figure its budget is checked against. */
static int node_hours(struct srt_store *s, const char *name, double *out, struct srt_error *err)
{
	struct srt_world_deployment *w = NULL;
	size_t n = 0;
	int64_t ms = 0;

	if (srt_store_campaign_world(s, &w, &n, err) != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(w[i].campaign, name))
			ms += w[i].node_ms;
	srt_world_deployments_free(w, n);
	*out = (double)ms / 3.6e6;
	return 0;
}

int srt_report_campaign(struct srt_store *s, const char *name, const struct srt_buf *chartjs,
			const char *chartjs_name, struct srt_report_out *out, struct srt_error *err)
{
	struct srt_campaign_row crow = { 0 };
	struct srt_point_row *rows = NULL;
	struct srt_report_point *pts = NULL;
	struct spec_info si = { 0 };
	char when[40];
	size_t n = 0;
	bool *on = NULL;
	double nh = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = srt_store_campaign_get(s, name, &crow, err);
	if (rc <= 0)
		return rc;
	rc = -1;
	if (node_hours(s, crow.name, &nh, err) != 0 ||
	    srt_store_point_list(s, crow.name, false, &rows, &n, err) != 0)
		goto out;
	on = srt_xcalloc(n + 1, sizeof(*on));
	out->frontier = srt_results_points_frontier(rows, n, on);
	pts = srt_xcalloc(n + 1, sizeof(*pts));
	for (size_t i = 0; i < n; i++) {
		pts[i].row = &rows[i];
		pts[i].gpus = srt_results_point_gpus(&rows[i]);
		srt_results_point_rates(&rows[i], &pts[i].per_user, &pts[i].per_gpu);
		pts[i].frontier = on[i];
	}
	spec_info(crow.spec, &si);
	srt_time_rfc3339(srt_store_now(s), when, sizeof(when));
	out->html = srt_report_html(
		&(struct srt_report_in){ .campaign = crow.name,
					 .state = crow.state,
					 .spec_hash = crow.spec_hash,
					 .tool = si.tool ? si.tool : (n ? rows[0].tool : NULL),
					 .engine = si.engine,
					 .container = si.container,
					 .model = si.model,
					 .slo = si.slo,
					 .srtctl_version = SRT_VERSION,
					 .generated_at = when,
					 .generation = crow.generation,
					 .node_hours = nh,
					 .points = pts,
					 .npoints = n,
					 .chartjs = chartjs->data,
					 .chartjs_len = chartjs->len,
					 .chartjs_name = chartjs_name },
		&out->len);
	out->name = srt_xstrdup(crow.name);
	out->points = n;
	rc = 1;
out:
	free(pts);
	free(on);
	free(si.slo);
	json_decref(si.spec);
	srt_point_rows_free(rows, n);
	srt_campaign_row_release(&crow);
	return rc;
}

void srt_report_out_release(struct srt_report_out *out)
{
	free(out->html);
	free(out->name);
	memset(out, 0, sizeof(*out));
}
