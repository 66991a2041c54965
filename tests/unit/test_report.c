/*
 * tests/unit/test_report.c: the campaign report's HTML (report/report.h):
 * its tables say what the points say (best per shape, the frontier), every
 * value in the HTML is escaped, and no value in the data element can end it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void test_report(void **state)
{
	static const char hostile[] = "</script><script>alert(1)</script>";
	struct srt_point_row rows[4];
	struct srt_report_point pts[4];
	const double tput[] = { 400, 800, 300, 1000 }, user[] = { 100, 50, 100, 40 };
	size_t len;
	char *html, *data;

	(void)state;
	memset(rows, 0, sizeof(rows));
	for (int i = 0; i < 4; i++) {
		for (int k = 0; k < SRT_POINT_NMETRICS; k++)
			rows[i].metrics[k] = NAN;
		rows[i].deployment = i < 2 ? "dep-a" : (char *)hostile;
		rows[i].axes = i < 2 ? "{\"w\":1}" : "{\"w\":\"<b>\"}";
		rows[i].state = "done";
		rows[i].isl = 1024;
		rows[i].osl = 128;
		rows[i].concurrency = i % 2 ? 8 : 4;
		rows[i].repeat = 1;
		rows[i].slo_met = i == 1 ? 0 : 1;
		rows[i].run_name = "run-1";
		rows[i].raw_path = "points/x.json";
		pts[i] = (struct srt_report_point){ &rows[i], 4, user[i], tput[i] / 4, i != 2 };
	}
	html = srt_report_html(&(struct srt_report_in){ .campaign = "c&<1>",
							.state = "Done",
							.spec_hash = "abc",
							.tool = "vllm-bench",
							.engine = "sglang",
							.slo = "ttftP99Ms <= 500 ms",
							.srtctl_version = "0.1.0",
							.generated_at = "2026-12-02T00:00:00Z",
							.generation = 2,
							.node_hours = 1.5,
							.points = pts,
							.npoints = 4,
							.chartjs = "window.Chart = undefined;",
							.chartjs_len = 25,
							.chartjs_name = "test" },
			       &len);
	assert_int_equal(strlen(html), len);
	assert_non_null(strstr(html, "<title>srtctl report: c&amp;&lt;1&gt;</title>"));
	assert_non_null(strstr(html, "4: 4 done, 0 failed, 0 invalid, 0 running, 0 pending"));
	assert_non_null(strstr(html, "<td>1.50</td>"));
	assert_non_null(strstr(html, "window.Chart = undefined;"));
	/* three script elements and nothing else ends one: the hostile name is escaped everywhere */
	assert_int_equal(count(html, "</script"), 3);
	assert_null(strstr(html, "<script><script>"));
	assert_non_null(strstr(html, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
	data = strstr(html, "id=\"srt-data\">");
	assert_non_null(data);
	assert_non_null(strstr(data, "\\u003c/script>\\u003cscript>alert(1)"));
	/* the frontier table: three rows; the best point per shape: the SLO-met one with the most */
	assert_int_equal(count(strstr(html, "<h2>Pareto frontier"), "<tr><td>") -
				 count(strstr(html, "<h2>Charts"), "<tr><td>"),
			 3);
	assert_non_null(strstr(strstr(html, "<h2>Best point"), "<td>250</td>")); /* 1000/4 */
	assert_non_null(strstr(html, "<span class=bad>missed</span>"));
	free(html);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
