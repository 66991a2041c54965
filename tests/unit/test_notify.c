/*
 * tests/unit/test_notify.c: notify/ and the notifications of store/: the
 * triggers queue one notification per change (deduplicated by event id),
 * and the notifier delivers it with real commands: a success, failures
 * retried after the back-off until max_attempts, a missing program, a
 * command past its timeout killed by its PID.  Time is injected (`now`);
 * only the commands' own exits are waited for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "notify/notify.h"
#include "util/buf.h"

struct fx {
	char dir[64];
	char *db;
	struct srt_store *s;
	char *run;
};

static int setup(void **state)
{
	struct fx *f = srt_xcalloc(1, sizeof(*f));
	struct srt_run_row run;
	struct srt_error err;

	snprintf(f->dir, sizeof(f->dir), "/tmp/srt-notify-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->db = srt_xasprintf("%s/state.db", f->dir);
	assert_int_equal(srt_store_open(&f->s, f->db, SRT_STORE_CREATE, NULL, &err), 0);
	assert_int_equal(srt_store_recipe_apply(f->s, "r", "{}", NULL, NULL, NULL, NULL, &err), 0);
	assert_int_equal(srt_store_run_create(f->s, "r", 1, &run, &err), 0);
	f->run = srt_xstrdup(run.name);
	srt_run_row_release(&run);
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
	free(f->run);
	free(f->db);
	free(f);
	return 0;
}

/* The notification due at `now`, or NULL (caller frees the row). */
static int due(struct fx *f, int64_t now, struct srt_notification_row *row)
{
	struct srt_error err;
	int rc = srt_store_notification_next_due(f->s, now, true, row, &err);

	assert_true(rc >= 0);
	return rc;
}

static void test_triggers(void **state)
{
	struct fx *f = *state;
	struct srt_notification_row row;
	struct srt_service_row svc = { .run = f->run,
				       .name = "m",
				       .type = "mooncake-master",
				       .state = "Ready",
				       .restarts = 0 };
	struct srt_error err;

	assert_int_equal(due(f, INT64_MAX, &row), 0);
	/* A phase other than Failed queues nothing; Failed queues one, once. */
	assert_int_equal(srt_store_run_update(f->s, f->run, "Starting", -1, NULL, NULL, &err), 0);
	assert_int_equal(due(f, INT64_MAX, &row), 0);
	assert_int_equal(srt_store_run_update(f->s, f->run, "Failed", -1, NULL, "oom", &err), 0);
	assert_int_equal(srt_store_run_update(f->s, f->run, "Failed", -1, NULL, "again", &err), 0);
	assert_int_equal(due(f, INT64_MAX, &row), 1);
	assert_string_equal(row.reason, "RunFailed");
	assert_string_equal(row.kind, "run");
	assert_string_equal(row.name, f->run);
	assert_int_equal(strncmp(row.event_id, "run-failed:", 11), 0);
	assert_non_null(strstr(row.payload, "\"message\":\"oom\""));
	assert_non_null(strstr(row.payload, "\"recipe\":\"r\""));
	{
		char *id = srt_xasprintf("\"id\":\"%s\"", row.event_id);

		assert_non_null(strstr(row.payload, id));
		free(id);
	}
	assert_int_equal(
		srt_store_notification_update(f->s, row.id, "Delivered", true, -1, NULL, &err), 0);
	srt_notification_row_release(&row);
	assert_int_equal(due(f, INT64_MAX, &row), 0);
	/* A service: inserted in CrashLoopBackOff, or entering it; one per restart count. */
	assert_int_equal(srt_store_service_upsert(f->s, &svc, &err), 0);
	assert_int_equal(due(f, INT64_MAX, &row), 0);
	svc.state = "CrashLoopBackOff";
	svc.restarts = 5;
	assert_int_equal(srt_store_service_upsert(f->s, &svc, &err), 0);
	assert_int_equal(srt_store_service_upsert(f->s, &svc, &err), 0); /* no change of state */
	assert_int_equal(due(f, INT64_MAX, &row), 1);
	assert_string_equal(row.reason, "ServiceCrashLoopBackOff");
	assert_non_null(strstr(row.event_id, ":m:5"));
	assert_non_null(strstr(row.payload, "\"restarts\":5"));
	assert_int_equal(
		srt_store_notification_update(f->s, row.id, "Delivered", true, -1, NULL, &err), 0);
	srt_notification_row_release(&row);
	assert_int_equal(due(f, INT64_MAX, &row), 0);
	svc.name = "s";
	assert_int_equal(srt_store_service_upsert(f->s, &svc, &err), 0); /* inserted in it */
	assert_int_equal(due(f, INT64_MAX, &row), 1);
	assert_non_null(strstr(row.event_id, ":s:5"));
	srt_notification_row_release(&row);
}

/* Step until the running command settles (its own exit, not a clock). */
static struct srt_notify_step step_until_settled(struct srt_notifier *n, struct fx *f, int64_t now)
{
	struct srt_notify_step st = { 0 };
	struct srt_error err;

	for (int i = 0; i < 3000; i++) {
		assert_int_equal(srt_notifier_step(n, f->s, now, &st, &err), 0);
		if (st.delivered || st.failed)
			return st;
		usleep(10000);
	}
	fail_msg("the notify command did not settle in 3000 steps");
	return st;
}

static struct srt_notifier *notifier(const char *script, int64_t timeout_ms, int max_attempts)
{
	struct srt_notifier *n = NULL;
	struct srt_error err;
	const char *argv[] = { "/bin/sh", "-c", script };

	assert_int_equal(srt_notifier_new(&n,
					  &(struct srt_notify_config){
						  .argv = argv,
						  .argc = 3,
						  .timeout_ms = timeout_ms,
						  .backoff_ms = 1000,
						  .max_attempts = max_attempts,
					  },
					  &err),
			 0);
	return n;
}

static void test_deliver_retry(void **state)
{
	struct fx *f = *state;
	struct srt_notification_row row;
	struct srt_notify_step st;
	struct srt_error err;
	char *script, *out = srt_xasprintf("%s/out", f->dir);
	struct srt_notifier *n;
	int64_t t0;
	FILE *fp;
	char line[4096];

	assert_int_equal(srt_store_run_update(f->s, f->run, "Failed", -1, NULL, "x", &err), 0);
	t0 = srt_store_now(f->s) + 1; /* after the change: its row is due from its time */
	/* Fails twice (a counter in a file), then writes the env id and stdin and succeeds. */
	script = srt_xasprintf("c=$(cat %s/count 2>/dev/null || echo 0); c=$((c + 1)); "
			       "echo $c > %s/count; [ $c -ge 3 ] || exit 3; "
			       "{ echo \"$SRTCTL_EVENT_ID\"; cat; } > %s",
			       f->dir, f->dir, out);
	n = notifier(script, 60000, 5);
	st = step_until_settled(n, f, t0);
	assert_int_equal(st.failed, 1);
	/* Not due again before its back-off (1 s after the first failure). */
	assert_int_equal(srt_notifier_step(n, f->s, t0 + 999, &st, &err), 0);
	assert_int_equal(st.started, 0);
	st = step_until_settled(n, f, t0 + 1000);
	assert_int_equal(st.failed, 1);
	/* The second back-off is doubled. */
	assert_int_equal(srt_notifier_step(n, f->s, t0 + 1000 + 1999, &st, &err), 0);
	assert_int_equal(st.started, 0);
	st = step_until_settled(n, f, t0 + 3000);
	assert_int_equal(st.delivered, 1);
	assert_int_equal(due(f, INT64_MAX, &row), 0);
	/* The command read the event id from its env and the JSON (with the same id) on stdin. */
	fp = fopen(out, "r");
	assert_non_null(fp);
	assert_non_null(fgets(line, sizeof(line), fp));
	assert_int_equal(strncmp(line, "run-failed:", 11), 0);
	line[strcspn(line, "\n")] = '\0';
	{
		char json[4096];
		char *id = srt_xasprintf("{\"id\":\"%s\",", line);

		assert_non_null(fgets(json, sizeof(json), fp));
		assert_int_equal(strncmp(json, id, strlen(id)), 0);
		free(id);
	}
	fclose(fp);
	srt_notifier_free(n);
	free(script);
	free(out);
}

static void test_abandoned_and_missing(void **state)
{
	struct fx *f = *state;
	struct srt_notification_row row;
	struct srt_notify_step st;
	struct srt_error err;
	struct srt_notifier *n = NULL;
	const char *argv[] = { "/nonexistent/notify-me" };
	int64_t t0;

	assert_int_equal(srt_store_run_update(f->s, f->run, "Failed", -1, NULL, "x", &err), 0);
	t0 = srt_store_now(f->s) + 1; /* after the change: its row is due from its time */
	assert_int_equal(srt_notifier_new(&n,
					  &(struct srt_notify_config){ .argv = argv,
								       .argc = 1,
								       .backoff_ms = 10,
								       .max_attempts = 2 },
					  &err),
			 0);
	/*
	 * No such program: a failed attempt; the second one abandons the row.
	 * posix_spawnp() reports the failed exec at once, or (when it forks)
	 * the child exits 127 and a later step reaps it: step at the same
	 * moment until the failure is counted (bounded: 500 x 10 ms).
	 */
	for (int64_t at = t0; at <= t0 + 10; at += 10) {
		int failed = 0;

		for (int i = 0; i < 500 && !failed; i++) {
			assert_int_equal(srt_notifier_step(n, f->s, at, &st, &err), 0);
			failed += (int)st.failed;
			if (!failed)
				usleep(10000);
		}
		assert_int_equal(failed, 1);
	}
	assert_int_equal(due(f, INT64_MAX, &row), 0);
	srt_notifier_free(n);
	n = NULL;
	argv[0] = "";
	assert_int_equal(
		srt_notifier_new(&n, &(struct srt_notify_config){ .argv = argv, .argc = 1 }, &err),
		-1);
}

static void test_timeout_kills(void **state)
{
	struct fx *f = *state;
	struct srt_notification_row row;
	struct srt_notify_step st;
	struct srt_error err;
	char *script, *pidfile = srt_xasprintf("%s/pid", f->dir);
	struct srt_notifier *n;
	int64_t t0;
	long pid = 0;
	FILE *fp = NULL;

	assert_int_equal(srt_store_run_update(f->s, f->run, "Failed", -1, NULL, "x", &err), 0);
	t0 = srt_store_now(f->s) + 1; /* after the change: its row is due from its time */
	/* A notifier that hangs, with a child of its own (killed with its group). */
	script = srt_xasprintf("sleep 1000 & echo $! > %s.tmp; mv %s.tmp %s; wait", pidfile,
			       pidfile, pidfile);
	n = notifier(script, 5000, 3);
	assert_int_equal(srt_notifier_step(n, f->s, t0, &st, &err), 0);
	assert_int_equal(st.started, 1);
	for (int i = 0; i < 3000 && !(fp = fopen(pidfile, "r")); i++)
		usleep(10000);
	assert_non_null(fp);
	assert_int_equal(fscanf(fp, "%ld", &pid), 1);
	fclose(fp);
	/* Still inside its timeout: running, nothing settled. */
	assert_int_equal(srt_notifier_step(n, f->s, t0 + 4999, &st, &err), 0);
	assert_int_equal(st.failed + st.delivered + st.started, 0);
	/* Past it: killed (the whole group), a failed attempt, and due after the back-off. */
	assert_int_equal(srt_notifier_step(n, f->s, t0 + 5000, &st, &err), 0);
	assert_int_equal(st.failed, 1);
	for (int i = 0; i < 3000 && kill((pid_t)pid, 0) == 0; i++)
		usleep(10000); /* the orphaned sleep is reaped by init */
	assert_int_equal(kill((pid_t)pid, 0), -1);
	assert_int_equal(due(f, t0 + 5000 + 999, &row), 0);
	assert_int_equal(due(f, t0 + 5000 + 1000, &row), 1);
	assert_non_null(strstr(row.last_error, "killed"));
	assert_int_equal(row.attempts, 1);
	srt_notification_row_release(&row);
	srt_notifier_free(n);
	free(script);
	free(pidfile);
}

/* A campaign "cp" with deployment "cp-aaaaaaaa" (a recipe of that name) and `notify` (NULL: none). */
static void campaign(struct fx *f, const char *spec_hash, const char *notify)
{
	const struct srt_store_campaign_deployment dep = { "cp-aaaaaaaa", "{}", "{}", "h1", 1 };
	const struct srt_store_campaign_point pt = {
		"1111111111111111111111111111111111111111111111111111111111111111",
		0,
		1,
		128,
		16,
		1,
		10,
		2,
		1
	};
	const struct srt_store_campaign_in in = { .name = "cp",
						  .spec = "{}",
						  .spec_hash = spec_hash,
						  .tool = "vllm-bench",
						  .params = "{}",
						  .notify = notify,
						  .deployments = &dep,
						  .ndeployments = 1,
						  .points = &pt,
						  .npoints = 1 };
	struct srt_error err;

	assert_int_equal(srt_store_campaign_apply(f->s, &in, NULL, NULL, NULL, &err), 0);
}

/*
 * A campaign's notify: command gets the events of its campaign (its runs'
 * failures, its end) as rows of its own, with the same event id and the
 * campaign named in the payload; it runs even with no cluster command, and
 * the cluster's rows wait for one.  A campaign re-applied without notify:
 * abandons what it still owed, saying why.
 */
static void test_campaign_sink(void **state)
{
	struct fx *f = *state;
	struct srt_notification_row row;
	struct srt_notify_step st;
	struct srt_error err;
	struct srt_run_row run;
	struct srt_notifier *n = NULL;
	char *out = srt_xasprintf("%s/campaign-out", f->dir);
	char *script = srt_xasprintf("{ echo \"$SRTCTL_EVENT_ID\"; cat; } >> %s", out);
	const char *argv[] = { "/bin/sh", "-c", script };
	char *notify = srt_notify_command_json(argv, 3, 60000, 1000, 2);
	int64_t t0;
	char *text;

	campaign(f, "c1", notify);
	assert_int_equal(
		srt_store_recipe_apply(f->s, "cp-aaaaaaaa", "{}", NULL, NULL, NULL, NULL, &err), 0);
	assert_int_equal(srt_store_run_create(f->s, "cp-aaaaaaaa", 1, &run, &err), 0);
	assert_int_equal(srt_store_run_update(f->s, run.name, "Failed", -1, NULL, "oom", &err), 0);
	t0 = srt_store_now(f->s) + 1; /* after the change: its rows are due from its time */
	/* Two rows: the cluster's (first) and the campaign's, one event id. */
	assert_int_equal(due(f, INT64_MAX, &row), 1);
	assert_int_equal(row.campaign_id, 0);
	assert_null(row.campaign);
	text = srt_xstrdup(row.event_id);
	srt_notification_row_release(&row);
	assert_int_equal(srt_store_notification_next_due(f->s, INT64_MAX, false, &row, &err), 1);
	assert_true(row.campaign_id > 0);
	assert_string_equal(row.campaign, "cp");
	assert_string_equal(row.event_id, text);
	assert_string_equal(row.campaign_notify, notify);
	assert_non_null(strstr(row.payload, "\"campaign\":\"cp\""));
	srt_notification_row_release(&row);

	/* No cluster command: only the campaign's row is delivered. */
	assert_int_equal(srt_notifier_new(&n, &(struct srt_notify_config){ .argc = 0 }, &err), 0);
	st = step_until_settled(n, f, t0);
	assert_int_equal(st.delivered, 1);
	assert_int_equal(srt_store_notification_next_due(f->s, INT64_MAX, false, &row, &err), 0);
	assert_int_equal(due(f, INT64_MAX, &row), 1);
	assert_int_equal(row.campaign_id, 0);
	srt_notification_row_release(&row);
	{
		FILE *fp = fopen(out, "r");
		char line[4096];

		assert_non_null(fp);
		assert_non_null(fgets(line, sizeof(line), fp));
		line[strcspn(line, "\n")] = '\0';
		assert_string_equal(line, text);
		assert_non_null(fgets(line, sizeof(line), fp));
		assert_non_null(strstr(line, "\"reason\":\"RunFailed\""));
		assert_non_null(strstr(line, "\"campaign\":\"cp\""));
		fclose(fp);
	}

	/* The campaign's end: a row for it too; then re-applied without notify: abandoned. */
	assert_int_equal(srt_store_campaign_set_state(f->s, "cp", "Pending", "Done", "x", &err), 0);
	assert_int_equal(srt_store_notification_next_due(f->s, INT64_MAX, false, &row, &err), 1);
	assert_string_equal(row.reason, "CampaignDone");
	srt_notification_row_release(&row);
	campaign(f, "c2", NULL);
	assert_int_equal(srt_notifier_step(n, f->s, srt_store_now(f->s) + 1, &st, &err), 0);
	assert_int_equal(st.failed, 1);
	assert_int_equal(st.started, 0);
	assert_int_equal(srt_store_notification_next_due(f->s, INT64_MAX, false, &row, &err), 0);
	{
		sqlite3 *db;
		sqlite3_stmt *q;

		assert_int_equal(sqlite3_open_v2(f->db, &db, SQLITE_OPEN_READONLY, NULL),
				 SQLITE_OK);
		assert_int_equal(
			sqlite3_prepare_v2(db,
					   "SELECT state, last_error FROM notifications "
					   "WHERE campaign_id <> 0 AND reason = 'CampaignDone'",
					   -1, &q, NULL),
			SQLITE_OK);
		assert_int_equal(sqlite3_step(q), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(q, 0), "Abandoned");
		assert_non_null(strstr((const char *)sqlite3_column_text(q, 1),
				       "no notify command any more"));
		sqlite3_finalize(q);
		sqlite3_close(db);
	}
	/* A campaign without notify: its runs' failures queue the cluster's row only. */
	srt_run_row_release(&run);
	assert_int_equal(srt_store_run_create(f->s, "cp-aaaaaaaa", 2, &run, &err), 0);
	assert_int_equal(srt_store_run_update(f->s, run.name, "Failed", -1, NULL, "x", &err), 0);
	assert_int_equal(srt_store_notification_next_due(f->s, INT64_MAX, false, &row, &err), 0);
	srt_run_row_release(&run);
	srt_notifier_free(n);
	free(text);
	free(notify);
	free(script);
	free(out);
}

static void test_backoff(void **state)
{
	(void)state;
	assert_int_equal(srt_notify_backoff_ms(1000, 1), 1000);
	assert_int_equal(srt_notify_backoff_ms(1000, 2), 2000);
	assert_int_equal(srt_notify_backoff_ms(1000, 4), 8000);
	assert_int_equal(srt_notify_backoff_ms(1000, 100), SRT_NOTIFY_BACKOFF_MAX_MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_triggers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deliver_retry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abandoned_and_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout_kills, setup, teardown),
		cmocka_unit_test_setup_teardown(test_campaign_sink, setup, teardown),
		cmocka_unit_test(test_backoff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
