/*
 * tests/unit/test_http.c: http/: the Prometheus text writer (escaping,
 * values, histograms), the /metrics document over a real SQLite file, the
 * status page's escaping of hostile names, --listen parsing and the health
 * verdict.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http/metrics.h"
#include "http/page.h"
#include "http/server.h"
#include "util/buf.h"

static void test_escape_label(void **state)
{
	struct srt_buf b;

	(void)state;
	srt_buf_init(&b);
	srt_metrics_escape_label(&b, "a\\b\"c\nd}e,f=");
	assert_string_equal(b.data, "a\\\\b\\\"c\\nd}e,f=");
	srt_buf_reset(&b);
	srt_metrics_escape_help(&b, "say \"hi\"\\\n");
	assert_string_equal(b.data, "say \"hi\"\\\\\\n");
	srt_buf_release(&b);
}

static void test_sample_values(void **state)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
		{ 0, "m 0\n" },	      { 42, "m 42\n" },		{ -3, "m -3\n" },
		{ 0.25, "m 0.25\n" }, { INFINITY, "m +Inf\n" }, { -INFINITY, "m -Inf\n" },
		{ NAN, "m NaN\n" },   { 1e20, "m 1e+20\n" },
	};
	struct srt_buf b;

	(void)state;
	srt_buf_init(&b);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		srt_buf_reset(&b);
		srt_metrics_sample(&b, "m", NULL, cases[i].v);
		assert_string_equal(b.data, cases[i].want);
	}
	srt_buf_reset(&b);
	srt_metrics_sample(&b, "srtctl_x_total",
			   (const char *const[]){ "a", "1", "b", "<\"\n>", NULL }, 7);
	assert_string_equal(b.data, "srtctl_x_total{a=\"1\",b=\"<\\\"\\n>\"} 7\n");
	srt_buf_reset(&b);
	srt_metrics_family(&b, "srtctl_y", "gauge", "two\nlines");
	assert_string_equal(b.data, "# HELP srtctl_y two\\nlines\n# TYPE srtctl_y gauge\n");
	srt_buf_release(&b);
}

static void test_histogram(void **state)
{
	static const double bounds[] = { 0.1, 1 };
	struct srt_metrics_loop l = { 0 };
	uint64_t buckets[3] = { 1, 0, 2 };
	struct srt_buf b;

	(void)state;
	srt_buf_init(&b);
	srt_metrics_histogram(&b, "h_seconds", "H.", bounds, 2, buckets, 7.5);
	assert_string_equal(b.data, "# HELP h_seconds H.\n# TYPE h_seconds histogram\n"
				    "h_seconds_bucket{le=\"0.1\"} 1\n"
				    "h_seconds_bucket{le=\"1\"} 1\n"
				    "h_seconds_bucket{le=\"+Inf\"} 3\n"
				    "h_seconds_sum 7.5\nh_seconds_count 3\n");
	srt_buf_release(&b);
	/* The loop's pass histogram: a bound is inclusive (le). */
	srt_metrics_loop_observe(&l, true, 5000);      /* 0.005 s: the first bucket */
	srt_metrics_loop_observe(&l, true, 5001);      /* just above: the second */
	srt_metrics_loop_observe(&l, false, 90000000); /* 90 s: +Inf */
	assert_int_equal(l.pass_buckets[0], 1);
	assert_int_equal(l.pass_buckets[1], 1);
	assert_int_equal(l.pass_buckets[SRT_METRICS_PASS_BUCKETS], 1);
	assert_int_equal(l.passes_ok, 2);
	assert_int_equal(l.passes_failed, 1);
}

struct fx {
	char dir[64];
	char *db;
	struct srt_store *s;
};

static int setup(void **state)
{
	struct fx *f = srt_xcalloc(1, sizeof(*f));
	struct srt_error err;

	snprintf(f->dir, sizeof(f->dir), "/tmp/srt-http-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->db = srt_xasprintf("%s/state.db", f->dir);
	assert_int_equal(srt_store_open(&f->s, f->db, SRT_STORE_CREATE, NULL, &err), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char *cmd = srt_xasprintf("rm -rf '%s'", f->dir);

	srt_store_close(f->s);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(f->db);
	free(f);
	return 0;
}

/* A recipe with a hostile name, its run Failed, a service in CrashLoopBackOff. */
static void seed(struct srt_store *s, const char *name)
{
	struct srt_run_row run;
	struct srt_error err;

	assert_int_equal(srt_store_recipe_apply(s, name, "{}", "<b>file</b>.yaml", NULL, NULL, NULL,
						&err),
			 0);
	assert_int_equal(srt_store_run_create(s, name, 1, &run, &err), 0);
	assert_int_equal(srt_store_run_update(s, run.name, "Failed", -1, NULL,
					      "exit <1> & \"quoted\"", &err),
			 0);
	assert_int_equal(srt_store_service_upsert(s,
						  &(struct srt_service_row){
							  .run = run.name,
							  .name = "master",
							  .type = "mooncake-master",
							  .state = "CrashLoopBackOff",
							  .restarts = 3,
						  },
						  &err),
			 0);
	srt_run_row_release(&run);
}

static void test_metrics_document(void **state)
{
	struct fx *f = *state;
	struct srt_metrics_loop l = { 0 };
	struct srt_error err;
	struct srt_buf b;

	seed(f->s, "r\"1");
	/* A campaign with one point done and one pending (as `apply` writes them). */
	{
		char *cmd = srt_xasprintf(
			"sqlite3 '%s' \"INSERT INTO campaigns (uid, name, spec, created_at, "
			"updated_at) VALUES ('c1', 'c', '{}', 1, 1); "
			"INSERT INTO campaign_deployments (campaign_id, name, axes, spec, spec_hash, "
			"nodes, position, generation, created_at, updated_at) "
			"VALUES (1, 'c-1', '{}', '{}', 'h', 1, 1, 1, 1, 1); "
			"INSERT INTO campaign_points (point_id, campaign_id, deployment_id, "
			"deployment_spec_hash, seq, tool, params, isl, osl, concurrency, prompts, "
			"warmup, repeat_idx, state, generation, created_at, updated_at) VALUES "
			"('p1', 1, 1, 'h', 1, 'custom', '{}', 8, 8, 1, 10, 2, 0, 'done', 1, 1, 1), "
			"('p2', 1, 1, 'h', 2, 'custom', '{}', 8, 8, 2, 20, 4, 0, 'pending', 1, 1, "
			"1);\"",
			f->db);

		assert_int_equal(system(cmd), 0);
		free(cmd);
	}
	l.listing_failures[3] = 2; /* UNREACHABLE */
	srt_metrics_loop_observe(&l, true, 1000);
	srt_buf_init(&b);
	assert_int_equal(srt_metrics_render(&b, f->s, &l, &err), 0);
	assert_non_null(strstr(b.data, "srtctl_runs{phase=\"Failed\"} 1\n"));
	assert_non_null(strstr(b.data, "srtctl_runs{phase=\"Ready\"} 0\n"));
	assert_non_null(strstr(b.data, "srtctl_services{state=\"CrashLoopBackOff\"} 1\n"));
	assert_non_null(strstr(b.data, "srtctl_process_restarts{kind=\"service\"} 3\n"));
	assert_non_null(strstr(b.data, "srtctl_recipes{state=\"live\"} 1\n"));
	assert_non_null(strstr(
		b.data, "srtctl_slurmrestd_listing_failures_total{code=\"UNREACHABLE\"} 2\n"));
	assert_non_null(strstr(b.data, "srtctl_controller_passes_total{result=\"ok\"} 1\n"));
	assert_non_null(
		strstr(b.data, "srtctl_events{type=\"Normal\",reason=\"RecipeCreated\"} 1\n"));
	assert_non_null(strstr(b.data, "srtctl_campaign_points{state=\"done\"} 1\n"));
	assert_non_null(strstr(b.data, "srtctl_campaign_points{state=\"pending\"} 1\n"));
	assert_non_null(strstr(b.data, "srtctl_campaign_points{state=\"failed\"} 0\n"));
	assert_non_null(strstr(b.data, "srtctl_campaign_node_hours{campaign=\"c\"} 0\n"));
	/* The triggers queued two notifications. */
	assert_non_null(strstr(b.data, "srtctl_notifications{state=\"Pending\"} 2\n"));
	assert_non_null(
		strstr(b.data, "# TYPE srtctl_controller_pass_duration_seconds histogram\n"));
	/* Every family has HELP before TYPE, every name is srtctl_*. */
	for (const char *p = b.data; *p;) {
		const char *nl = strchr(p, '\n');

		assert_non_null(nl);
		assert_true(strncmp(p, "# HELP srtctl_", 14) == 0 ||
			    strncmp(p, "# TYPE srtctl_", 14) == 0 || strncmp(p, "srtctl_", 7) == 0);
		p = nl + 1;
	}
	srt_buf_release(&b);
}

static void test_page_escapes(void **state)
{
	struct fx *f = *state;
	struct srt_error err;
	struct srt_buf b;
	struct srt_page_info info = { .now = 1800000000000LL,
				      .refresh_seconds = 10,
				      .health = "<ok>" };

	/* Recipe names are validated by apply; the page must not rely on it. */
	seed(f->s, "<script>alert(1)</script>");
	assert_int_equal(srt_store_event(f->s, &err, "Warning", "Boom", "run", "x", "controller",
					 "%s", "<img src=x onerror=alert(2)>'"),
			 0);
	srt_buf_init(&b);
	assert_int_equal(srt_page_render(&b, f->s, &info, &err), 0);
	assert_null(strstr(b.data, "<script"));
	assert_null(strstr(b.data, "<img"));
	assert_null(strstr(b.data, "<b>"));
	assert_non_null(strstr(b.data, "<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>"));
	assert_non_null(strstr(b.data, "&lt;img src=x onerror=alert(2)&gt;&#39;"));
	assert_non_null(strstr(b.data, "exit &lt;1&gt; &amp; &quot;quoted&quot;"));
	assert_non_null(strstr(b.data, "<span id=\"health\">&lt;ok&gt;</span>"));
	assert_non_null(strstr(b.data, "<meta http-equiv=\"refresh\" content=\"10\">"));
	srt_buf_reset(&b);
	srt_buf_html(&b, "a\x01\tb\x7f");
	assert_string_equal(b.data, "a\xef\xbf\xbd\tb\xef\xbf\xbd");
	srt_buf_release(&b);
}

static void test_listen_parse(void **state)
{
	static const struct {
		const char *spec;
		bool public_ok;
		int rc;
		const char *text;
		bool loopback;
	} cases[] = {
		{ "9464", false, 0, "127.0.0.1:9464", true },
		{ ":0", false, 0, "127.0.0.1:0", true },
		{ "127.0.0.2:80", false, 0, "127.0.0.2:80", true },
		{ "[::1]:9464", false, 0, "[::1]:9464", true },
		{ "0.0.0.0:9464", false, -1, NULL, false },
		{ "0.0.0.0:9464", true, 0, "0.0.0.0:9464", false },
		{ "10.1.2.3:1", false, -1, NULL, false },
		{ "[::]:1", false, -1, NULL, false },
		{ "localhost:9464", false, -1, NULL, false },
		{ "65536", false, -1, NULL, false },
		{ "", false, -1, NULL, false },
		{ "1.2.3.4:", true, -1, NULL, false },
		{ "[::1]9464", false, -1, NULL, false },
		{ "-1", false, -1, NULL, false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct srt_http_listen l;
		struct srt_error err;
		int rc = srt_http_listen_parse(cases[i].spec, cases[i].public_ok, &l, &err);

		if (rc != cases[i].rc)
			fail_msg("--listen '%s': rc %d, want %d", cases[i].spec, rc, cases[i].rc);
		if (rc == 0) {
			assert_string_equal(l.text, cases[i].text);
			assert_int_equal(l.loopback, cases[i].loopback);
		}
	}
	{
		struct srt_http_listen l;
		struct srt_error err;

		assert_int_equal(srt_http_listen_parse("0.0.0.0:1", false, &l, &err), -1);
		assert_non_null(strstr(err.msg, "--listen-public"));
	}
}

static void test_health(void **state)
{
	char why[256];

	(void)state;
	assert_int_equal(srt_http_health(false, 0, 5000, 5000, 0, why, sizeof(why)), -1);
	assert_string_equal(why, "no reconcile pass has finished yet");
	assert_int_equal(srt_http_health(true, 15000, 5000, 5000, 0, why, sizeof(why)), 0);
	assert_int_equal(srt_http_health(true, 15001, 5000, 5000, 0, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "stuck"));
	/* Backed off (SLURM down): three of the longer waits, plus the grace. */
	assert_int_equal(srt_http_health(true, 100000, 5000, 30000, 10000, why, sizeof(why)), 0);
	assert_int_equal(srt_http_health(true, 100001, 5000, 30000, 10000, why, sizeof(why)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape_label),
		cmocka_unit_test(test_sample_values),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test_setup_teardown(test_metrics_document, setup, teardown),
		cmocka_unit_test_setup_teardown(test_page_escapes, setup, teardown),
		cmocka_unit_test(test_listen_parse),
		cmocka_unit_test(test_health),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
