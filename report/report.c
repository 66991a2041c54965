/*
 * report/report.c: the campaign report's HTML (report/report.h).
 */
#include "report/report.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h"
#include "util/buf.h"

static const char STYLE[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}"
	"h1{font-size:22px}h2{font-size:18px;margin-top:32px}h3{font-size:15px}"
	"table{border-collapse:collapse;margin:8px 0}"
	"td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;font-variant-numeric:"
	"tabular-nums}th{background:#f3f3f3}"
	".charts{display:flex;flex-wrap:wrap;gap:16px}"
	".chart{border:1px solid #ddd;padding:8px}.note{color:#666}.bad{color:#b00}";

/*
 * The charts.  Reads the data element, groups the points by ISL/OSL, and
 * draws for each shape: the frontier (per GPU against per user; points that
 * miss the SLO drawn as crosses), TTFT and TPOT (median solid, p99 dashed)
 * and output throughput against concurrency, one colour per deployment.
 * Every tooltip names the point's deployment, parameters, run, job and raw
 * result.  body's data-charts and data-painted say how many charts were
 * made and how many canvases have pixels (for the browser test).
 */
static const char SCRIPT[] =
	"(function () {\n"
	"'use strict';\n"
	"const d = JSON.parse(document.getElementById('srt-data').textContent);\n"
	"const C = {};\n"
	"d.cols.forEach((c, i) => { C[c] = i; });\n"
	"const out = document.getElementById('charts');\n"
	"if (typeof Chart === 'undefined') {\n"
	"  out.textContent = 'Chart.js did not load: the charts cannot be drawn.';\n"
	"  return;\n"
	"}\n"
	"Chart.defaults.animation = false;\n"
	"Chart.defaults.responsive = false;\n"
	"const palette = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b',\n"
	"  '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];\n"
	"const deps = [];\n"
	"d.rows.forEach(r => { if (!deps.includes(r[C.deployment])) deps.push(r[C.deployment]); });\n"
	"const colour = dep => palette[deps.indexOf(dep) % palette.length];\n"
	"const shapes = new Map();\n"
	"d.rows.forEach((r, i) => {\n"
	"  const k = r[C.isl] + '/' + r[C.osl];\n"
	"  if (!shapes.has(k)) shapes.set(k, []);\n"
	"  shapes.get(k).push(i);\n"
	"});\n"
	"function tip(ctx) {\n"
	"  const r = d.rows[ctx.raw.i];\n"
	"  return [r[C.deployment] + ' ' + r[C.axes],\n"
	"    'ISL ' + r[C.isl] + ', OSL ' + r[C.osl] + ', concurrency ' + r[C.concurrency] +\n"
	"      ', repeat ' + r[C.repeat] + ': (' + ctx.parsed.x.toPrecision(4) + ', ' +\n"
	"      ctx.parsed.y.toPrecision(4) + ')',\n"
	"    'SLO ' + (r[C.slo_met] === null ? 'not set' : r[C.slo_met] ? 'met' : 'missed') +\n"
	"      (r[C.frontier] ? '; on the frontier' : ''),\n"
	"    'run ' + r[C.run] + ', job ' + r[C.job], 'raw ' + r[C.raw_path]];\n"
	"}\n"
	"let charts = 0;\n"
	"function chart(box, title, xTitle, yTitle, datasets) {\n"
	"  const div = document.createElement('div');\n"
	"  div.className = 'chart';\n"
	"  const h = document.createElement('h3');\n"
	"  h.textContent = title;\n"
	"  const canvas = document.createElement('canvas');\n"
	"  canvas.width = 640;\n"
	"  canvas.height = 400;\n"
	"  div.append(h, canvas);\n"
	"  box.append(div);\n"
	"  new Chart(canvas, {type: 'scatter', data: {datasets: datasets}, options: {\n"
	"    parsing: false,\n"
	"    scales: {x: {title: {display: true, text: xTitle}},\n"
	"      y: {title: {display: true, text: yTitle}}},\n"
	"    plugins: {legend: {display: datasets.length <= 24},\n"
	"      tooltip: {callbacks: {label: tip}}}}});\n"
	"  charts++;\n"
	"}\n"
	"const known = v => v !== null && isFinite(v);\n"
	"function byConcurrency(idx, col, dash, suffix) {\n"
	"  return deps.map(dep => ({\n"
	"    label: dep + suffix, showLine: true, borderColor: colour(dep),\n"
	"    backgroundColor: colour(dep), borderDash: dash,\n"
	"    data: idx.filter(i => d.rows[i][C.deployment] === dep && known(d.rows[i][col]))\n"
	"      .map(i => ({x: d.rows[i][C.concurrency], y: d.rows[i][col], i: i}))\n"
	"      .sort((a, b) => a.x - b.x)})).filter(s => s.data.length);\n"
	"}\n"
	"for (const [shape, idx] of shapes) {\n"
	"  const [isl, osl] = shape.split('/');\n"
	"  const h = document.createElement('h2');\n"
	"  h.textContent = 'ISL ' + isl + ' / OSL ' + osl;\n"
	"  const box = document.createElement('div');\n"
	"  box.className = 'charts';\n"
	"  out.append(h, box);\n"
	"  const pts = idx.filter(i => known(d.rows[i][C.per_user]) && known(d.rows[i][C.per_gpu]));\n"
	"  const xy = i => ({x: d.rows[i][C.per_user], y: d.rows[i][C.per_gpu], i: i});\n"
	"  const ds = deps.map(dep => {\n"
	"    const mine = pts.filter(i => d.rows[i][C.deployment] === dep);\n"
	"    return {label: dep, backgroundColor: colour(dep), borderColor: colour(dep), borderWidth: 2,\n"
	"      pointStyle: mine.map(i => d.rows[i][C.slo_met] === false ? 'crossRot' : 'circle'),\n"
	"      pointRadius: mine.map(i => d.rows[i][C.frontier] ? 6 : 4), data: mine.map(xy)};\n"
	"  }).filter(s => s.data.length);\n"
	"  ds.unshift({label: 'Pareto frontier', showLine: true, borderColor: '#000',\n"
	"    backgroundColor: '#000', pointRadius: 0, borderWidth: 2,\n"
	"    data: pts.filter(i => d.rows[i][C.frontier]).map(xy).sort((a, b) => a.x - b.x)});\n"
	"  chart(box, 'Output tok/s per GPU against tok/s per user (crosses miss the SLO)',\n"
	"    'output tok/s per user (1000 / median TPOT)', 'output tok/s per GPU', ds);\n"
	"  chart(box, 'TTFT against concurrency (median solid, p99 dashed)', 'concurrency', 'TTFT ms',\n"
	"    byConcurrency(idx, C.median_ttft_ms, [], ' median')\n"
	"      .concat(byConcurrency(idx, C.p99_ttft_ms, [6, 4], ' p99')));\n"
	"  chart(box, 'TPOT against concurrency (median solid, p99 dashed)', 'concurrency', 'TPOT ms',\n"
	"    byConcurrency(idx, C.median_tpot_ms, [], ' median')\n"
	"      .concat(byConcurrency(idx, C.p99_tpot_ms, [6, 4], ' p99')));\n"
	"  chart(box, 'Output throughput against concurrency', 'concurrency', 'output tok/s',\n"
	"    byConcurrency(idx, C.output_throughput, [], ''));\n"
	"}\n"
	"let painted = 0;\n"
	"for (const c of document.querySelectorAll('canvas')) {\n"
	"  const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;\n"
	"  for (let k = 3; k < px.length; k += 4) if (px[k]) { painted++; break; }\n"
	"}\n"
	"document.body.dataset.charts = charts;\n"
	"document.body.dataset.painted = painted;\n"
	"})();\n";

/* s escaped; "<none>" for NULL. */
static void esc(struct srt_buf *b, const char *s)
{
	if (s)
		srt_buf_html(b, s);
	else
		srt_buf_puts(b, "&lt;none&gt;");
}

static void row(struct srt_buf *b, const char *key, const char *value)
{
	srt_buf_puts(b, "<tr><th>");
	esc(b, key);
	srt_buf_puts(b, "</th><td>");
	esc(b, value);
	srt_buf_puts(b, "</td></tr>\n");
}

static void cell_num(struct srt_buf *b, double v)
{
	if (isnan(v))
		srt_buf_puts(b, "<td>&lt;none&gt;</td>");
	else
		srt_buf_printf(b, "<td>%.4g</td>", v);
}

static json_t *num(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static const char *const COLS[] = {
	"deployment",
	"axes",
	"isl",
	"osl",
	"concurrency",
	"repeat",
	"state",
	"slo_met",
	"frontier",
	"gpus",
	"per_user",
	"per_gpu",
	"output_throughput",
	"median_ttft_ms",
	"p99_ttft_ms",
	"median_tpot_ms",
	"p99_tpot_ms",
	"run",
	"job",
	"raw_path",
};

/* The data element's JSON text, every '<' escaped (it cannot end the element). */
static void data_json(struct srt_buf *b, const struct srt_report_in *in)
{
	json_t *o = json_object(), *cols = json_array(), *rows = json_array();
	char *text;

	for (size_t i = 0; i < sizeof(COLS) / sizeof(*COLS); i++)
		json_array_append_new(cols, json_string(COLS[i]));
	for (size_t i = 0; i < in->npoints; i++) {
		const struct srt_report_point *p = &in->points[i];
		const struct srt_point_row *r = p->row;
		json_t *a = json_array();

		json_array_append_new(a, json_string(r->deployment ? r->deployment : ""));
		json_array_append_new(a, json_string(r->axes ? r->axes : "{}"));
		json_array_append_new(a, json_integer(r->isl));
		json_array_append_new(a, json_integer(r->osl));
		json_array_append_new(a, json_integer(r->concurrency));
		json_array_append_new(a, json_integer(r->repeat));
		json_array_append_new(a, json_string(r->state ? r->state : ""));
		json_array_append_new(a, r->slo_met < 0 ? json_null() : json_boolean(r->slo_met));
		json_array_append_new(a, json_boolean(p->frontier));
		json_array_append_new(a, json_integer(p->gpus));
		json_array_append_new(a, num(p->per_user));
		json_array_append_new(a, num(p->per_gpu));
		json_array_append_new(a, num(r->metrics[srt_results_column("output_throughput")]));
		json_array_append_new(a, num(r->metrics[srt_results_column("median_ttft_ms")]));
		json_array_append_new(a, num(r->metrics[srt_results_column("p99_ttft_ms")]));
		json_array_append_new(a, num(r->metrics[srt_results_column("median_tpot_ms")]));
		json_array_append_new(a, num(r->metrics[srt_results_column("p99_tpot_ms")]));
		json_array_append_new(a, r->run_name ? json_string(r->run_name) : json_null());
		json_array_append_new(a, r->slurm_job_id ? json_integer(r->slurm_job_id) :
							   json_null());
		json_array_append_new(a, r->raw_path ? json_string(r->raw_path) : json_null());
		json_array_append_new(rows, a);
	}
	json_object_set_new(o, "cols", cols);
	json_object_set_new(o, "rows", rows);
	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	for (const char *s = text; s && *s; s++) {
		if (*s == '<')
			srt_buf_puts(b, "\\u003c");
		else
			srt_buf_putc(b, *s);
	}
	free(text);
	json_decref(o);
}

static void counts(struct srt_buf *b, const struct srt_report_in *in)
{
	static const char *const states[] = { "done", "failed", "invalid", "running", "pending" };
	size_t n[5] = { 0 };

	for (size_t i = 0; i < in->npoints; i++)
		for (size_t k = 0; k < 5; k++)
			if (in->points[i].row->state &&
			    !strcmp(in->points[i].row->state, states[k]))
				n[k]++;
	srt_buf_printf(b,
		       "<tr><th>points</th><td>%zu: %zu done, %zu failed, %zu invalid, %zu "
		       "running, %zu pending</td></tr>\n",
		       in->npoints, n[0], n[1], n[2], n[3], n[4]);
}

static void point_cells(struct srt_buf *b, const struct srt_report_point *p)
{
	const struct srt_point_row *r = p->row;

	srt_buf_puts(b, "<td>");
	esc(b, r->deployment);
	srt_buf_puts(b, "</td><td>");
	esc(b, r->axes);
	srt_buf_printf(b, "</td><td>%" PRId64 "</td><td>%" PRId64 "</td><td>%" PRId64 "</td>",
		       r->isl, r->osl, r->concurrency);
	cell_num(b, p->per_user);
	cell_num(b, p->per_gpu);
	cell_num(b, r->metrics[srt_results_column("p99_ttft_ms")]);
	cell_num(b, r->metrics[srt_results_column("median_tpot_ms")]);
	srt_buf_printf(b, "<td>%s</td><td>",
		       r->slo_met < 0 ? "not set" :
		       r->slo_met     ? "met" :
					"<span class=bad>missed</span>");
	esc(b, r->run_name);
	srt_buf_puts(b, "</td></tr>\n");
}

#define POINT_HEAD                                                                         \
	"<tr><th>deployment</th><th>axes</th><th>ISL</th><th>OSL</th><th>concurrency</th>" \
	"<th>tok/s/user</th><th>tok/s/GPU</th><th>TTFT p99 ms</th><th>TPOT median ms</th>" \
	"<th>SLO</th><th>run</th></tr>\n"

/*
 * Per shape, the done point with the most output tok/s per GPU among those
 * that meet the SLO (all done points when none is set).
 */
static void best(struct srt_buf *b, const struct srt_report_in *in)
{
	bool *seen = srt_xcalloc(in->npoints + 1, sizeof(*seen));
	size_t shown = 0;

	srt_buf_puts(b, "<h2>Best point per shape</h2>\n<p class=note>The most output tok/s per "
			"GPU among the done points that meet the SLO (all done points when the "
			"campaign sets none).</p>\n<table>\n" POINT_HEAD);
	for (size_t i = 0; i < in->npoints; i++) {
		const struct srt_point_row *ri = in->points[i].row;
		size_t top = SIZE_MAX;

		if (seen[i])
			continue;
		for (size_t k = i; k < in->npoints; k++) {
			const struct srt_report_point *p = &in->points[k];

			if (p->row->isl != ri->isl || p->row->osl != ri->osl)
				continue;
			seen[k] = true;
			if (strcmp(p->row->state, "done") || p->row->slo_met == 0 ||
			    isnan(p->per_gpu))
				continue;
			if (top == SIZE_MAX || p->per_gpu > in->points[top].per_gpu)
				top = k;
		}
		if (top != SIZE_MAX) {
			srt_buf_puts(b, "<tr>");
			point_cells(b, &in->points[top]);
			shown++;
		}
	}
	srt_buf_puts(b, "</table>\n");
	if (!shown)
		srt_buf_puts(b, "<p class=note>No done point meets the SLO yet.</p>\n");
	free(seen);
}

char *srt_report_html(const struct srt_report_in *in, size_t *len)
{
	struct srt_buf b;
	char nh[32];
	size_t nfront = 0;

	srt_buf_init(&b);
	srt_buf_puts(&b, "<!doctype html>\n<html lang=en>\n<head>\n<meta charset=utf-8>\n"
			 "<title>srtctl report: ");
	esc(&b, in->campaign);
	srt_buf_printf(&b, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>Campaign ", STYLE);
	esc(&b, in->campaign);
	srt_buf_puts(&b, "</h1>\n<h2>Summary</h2>\n<table>\n");
	row(&b, "state", in->state);
	counts(&b, in);
	snprintf(nh, sizeof(nh), "%.2f", in->node_hours);
	row(&b, "node-hours used", nh);
	row(&b, "SLO", in->slo && *in->slo ? in->slo : "not set");
	srt_buf_puts(&b, "</table>\n");
	best(&b, in);
	srt_buf_puts(&b, "<h2>Pareto frontier</h2>\n<p class=note>Done points that no other done "
			 "point of the same ISL/OSL beats on both output tok/s per user and per "
			 "GPU.</p>\n<table>\n" POINT_HEAD);
	for (size_t i = 0; i < in->npoints; i++)
		if (in->points[i].frontier) {
			srt_buf_puts(&b, "<tr>");
			point_cells(&b, &in->points[i]);
			nfront++;
		}
	srt_buf_puts(&b, "</table>\n");
	if (!nfront)
		srt_buf_puts(&b, "<p class=note>No done point with its TPOT and throughput "
				 "measured yet.</p>\n");
	srt_buf_puts(&b, "<h2>Charts</h2>\n<p class=note>Hover a point for its parameters, run, "
			 "job and raw result file.</p>\n<div id=charts></div>\n"
			 "<h2>Provenance</h2>\n<table>\n");
	row(&b, "campaign", in->campaign);
	srt_buf_printf(&b, "<tr><th>generation</th><td>%" PRId64 "</td></tr>\n", in->generation);
	row(&b, "spec hash", in->spec_hash);
	row(&b, "engine", in->engine);
	row(&b, "container", in->container);
	row(&b, "model", in->model);
	row(&b, "benchmark tool", in->tool);
	row(&b, "srtctl", in->srtctl_version);
	row(&b, "charts", in->chartjs_name);
	row(&b, "written", in->generated_at);
	srt_buf_puts(&b, "</table>\n<script type=\"application/json\" id=\"srt-data\">");
	data_json(&b, in);
	srt_buf_puts(&b, "</script>\n<script>\n");
	srt_buf_append(&b, in->chartjs, in->chartjs_len);
	srt_buf_printf(&b, "\n</script>\n<script>\n%s</script>\n</body>\n</html>\n", SCRIPT);
	*len = b.len;
	return srt_buf_detach(&b);
}
