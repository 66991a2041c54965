/*
 * tests/unit/test_store_objects.c: what the store keeps: recipes (apply,
 * delete, generations), runs and their conditions, services, workers,
 * campaigns, and events (deduplication, filters, pruning, query plans).
 *
 * Each test has its own database file and a fake clock it moves by hand.
 */
#define _GNU_SOURCE /* nftw() */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/internal.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/sha256.h"

#define T0 1800000000000LL /* 2027-01-15 */

struct fixture {
	char dir[64];
	char *db;
	int64_t now;
	struct srt_clock clock;
	struct srt_store *s;
	struct srt_error err;
};

static int64_t fake_now(void *ctx)
{
	return ((struct fixture *)ctx)->now;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	struct fixture *f = srt_xcalloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/test_store_objects_XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	f->db = srt_xasprintf("%s/srtctl.db", f->dir);
	f->now = T0;
	f->clock.now_ms = fake_now;
	f->clock.ctx = f;
	if (srt_store_open(&f->s, f->db, SRT_STORE_CREATE, &f->clock, &f->err) != 0) {
		fprintf(stderr, "%s\n", f->err.msg);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	srt_store_close(f->s);
	nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(f->db);
	free(f);
	return 0;
}

#define OK(call)                                               \
	do {                                                   \
		if ((call) != 0)                               \
			fail_msg("%s: %s", #call, f->err.msg); \
	} while (0)

static size_t count_events(struct fixture *f, const char *kind, const char *name,
			   const char *reason)
{
	struct srt_event_filter flt = { .kind = kind, .name = name, .reason = reason };
	struct srt_event_row *rows;
	size_t n;

	OK(srt_store_event_list(f->s, &flt, &rows, &n, &f->err));
	srt_event_rows_free(rows, n);
	return n;
}

/* ---- recipes ---- */

static void test_recipe_apply(void **state)
{
	struct fixture *f = *state;
	enum srt_apply_result res;
	struct srt_recipe_row r;
	int64_t gen = 0;
	char hash[65], uid[33];
	const char *spec1 = "{\"a\":1,\"b\":[1,2]}", *spec2 = "{\"a\":2,\"b\":[1,2]}";

	OK(srt_store_begin(f->s, &f->err));
	OK(srt_store_recipe_apply(f->s, "dsr1", spec1, "r.yaml", "a: 1\n", &res, &gen, &f->err));
	OK(srt_store_commit(f->s, &f->err));
	assert_int_equal(res, SRT_APPLY_CREATED);
	assert_int_equal(gen, 1);
	assert_int_equal(srt_store_recipe_get(f->s, "dsr1", &r, &f->err), 1);
	assert_string_equal(r.name, "dsr1");
	assert_string_equal(r.spec, spec1);
	srt_sha256_hex(spec1, strlen(spec1), hash);
	assert_string_equal(r.spec_hash, hash);
	assert_int_equal(strlen(r.uid), 32);
	assert_int_equal(strspn(r.uid, "0123456789abcdef"), 32);
	memcpy(uid, r.uid, 33);
	assert_string_equal(r.source_file, "r.yaml");
	assert_string_equal(r.source_yaml, "a: 1\n");
	assert_int_equal(r.generation, 1);
	assert_int_equal(r.created_at, T0);
	assert_int_equal(r.applied_at, T0);
	assert_int_equal(r.deleted_at, 0);
	srt_recipe_row_release(&r);

	/* Same canonical spec: unchanged, but the apply is recorded. */
	f->now = T0 + 1000;
	OK(srt_store_recipe_apply(f->s, "dsr1", spec1, "other.yaml", "a: 1 # c\n", &res, &gen,
				  &f->err));
	assert_int_equal(res, SRT_APPLY_UNCHANGED);
	assert_int_equal(gen, 1);
	assert_int_equal(srt_store_recipe_get(f->s, "dsr1", &r, &f->err), 1);
	assert_int_equal(r.generation, 1);
	assert_int_equal(r.applied_at, T0 + 1000);
	assert_string_equal(r.source_file, "other.yaml");
	assert_string_equal(r.source_yaml, "a: 1 # c\n");
	srt_recipe_row_release(&r);

	/* A different spec: configured, generation 2, same uid. */
	f->now = T0 + 2000;
	OK(srt_store_recipe_apply(f->s, "dsr1", spec2, NULL, NULL, &res, &gen, &f->err));
	assert_int_equal(res, SRT_APPLY_CONFIGURED);
	assert_int_equal(gen, 2);
	assert_int_equal(srt_store_recipe_get(f->s, "dsr1", &r, &f->err), 1);
	assert_int_equal(r.generation, 2);
	assert_string_equal(r.spec, spec2);
	assert_string_equal(r.uid, uid);
	assert_int_equal(r.created_at, T0);
	assert_null(r.source_file);
	srt_recipe_row_release(&r);

	assert_int_equal(count_events(f, "recipe", "dsr1", "RecipeCreated"), 1);
	assert_int_equal(count_events(f, "recipe", "dsr1", "RecipeConfigured"), 1);
	assert_int_equal(count_events(f, "recipe", "dsr1", NULL), 2);
	assert_int_equal(srt_store_recipe_get(f->s, "nope", &r, &f->err), 0);
}

static void test_recipe_delete(void **state)
{
	struct fixture *f = *state;
	struct srt_recipe_row r, *rows;
	enum srt_apply_result res;
	int64_t gen;
	size_t n;

	OK(srt_store_recipe_apply(f->s, "b", "{}", NULL, NULL, &res, NULL, &f->err));
	OK(srt_store_recipe_apply(f->s, "a", "{}", NULL, NULL, &res, NULL, &f->err));
	f->now = T0 + 5000;
	OK(srt_store_begin(f->s, &f->err));
	assert_int_equal(srt_store_recipe_delete(f->s, "a", &f->err), 1);
	OK(srt_store_commit(f->s, &f->err));
	assert_int_equal(srt_store_recipe_delete(f->s, "a", &f->err), 0); /* already deleted */
	assert_int_equal(srt_store_recipe_delete(f->s, "zzz", &f->err), 0);
	assert_int_equal(srt_store_recipe_get(f->s, "a", &r, &f->err), 1);
	assert_int_equal(r.deleted_at, T0 + 5000);
	srt_recipe_row_release(&r);
	assert_int_equal(count_events(f, "recipe", "a", "RecipeDeleted"), 1);

	OK(srt_store_recipe_list(f->s, false, &rows, &n, &f->err));
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].name, "b");
	srt_recipe_rows_free(rows, n);
	OK(srt_store_recipe_list(f->s, true, &rows, &n, &f->err));
	assert_int_equal(n, 2);
	assert_string_equal(rows[0].name, "a"); /* by name */
	assert_string_equal(rows[1].name, "b");
	srt_recipe_rows_free(rows, n);

	/* Applying the same spec again brings it back as a new generation. */
	OK(srt_store_recipe_apply(f->s, "a", "{}", NULL, NULL, &res, &gen, &f->err));
	assert_int_equal(res, SRT_APPLY_CONFIGURED);
	assert_int_equal(gen, 2);
	assert_int_equal(srt_store_recipe_get(f->s, "a", &r, &f->err), 1);
	assert_int_equal(r.deleted_at, 0);
	srt_recipe_row_release(&r);
	assert_int_equal(count_events(f, "recipe", "a", "RecipeConfigured"), 1);
	OK(srt_store_recipe_apply(f->s, "a", "{}", NULL, NULL, &res, &gen, &f->err));
	assert_int_equal(res, SRT_APPLY_UNCHANGED);
}

/* ---- runs, conditions, services, workers, campaigns ---- */

static void test_runs(void **state)
{
	struct fixture *f = *state;
	struct srt_run_row run, got, *rows;
	char comment[64];
	size_t n;

	assert_int_equal(srt_store_run_create(f->s, "r", 1, &run, &f->err), -1);
	assert_non_null(strstr(f->err.msg, "no recipe named 'r'"));
	OK(srt_store_recipe_apply(f->s, "r", "{}", NULL, NULL, NULL, NULL, &f->err));
	OK(srt_store_run_create(f->s, "r", 1, &run, &f->err));
	assert_string_equal(run.name, "r-1-1");
	assert_string_equal(run.recipe, "r");
	assert_string_equal(run.job_name, "r-1-1");
	snprintf(comment, sizeof(comment), "srtctl:%s:1", run.uid);
	assert_string_equal(run.job_comment, comment);
	assert_string_equal(run.phase, "Pending");
	assert_int_equal(run.generation, 1);
	assert_int_equal(run.attempt, 1);
	assert_int_equal(run.slurm_job_id, 0);
	assert_int_equal(run.exit_code, -1);
	assert_int_equal(run.created_at, T0);
	assert_int_equal(run.started_at, 0);
	assert_null(run.slurm_state);
	srt_run_row_release(&run);

	assert_int_equal(srt_store_run_create(f->s, "r", 1, &run, &f->err), -1);
	assert_non_null(strstr(f->err.msg, "already exists"));
	assert_int_equal(srt_store_run_create(f->s, "r", 0, &run, &f->err), -1);
	OK(srt_store_run_create(f->s, "r", 2, NULL, &f->err));
	OK(srt_store_recipe_apply(f->s, "r", "{\"x\":1}", NULL, NULL, NULL, NULL, &f->err));
	OK(srt_store_run_create(f->s, "r", 1, &run, &f->err));
	assert_string_equal(run.name, "r-2-1");
	srt_run_row_release(&run);
	OK(srt_store_recipe_apply(f->s, "q", "{}", NULL, NULL, NULL, NULL, &f->err));
	OK(srt_store_run_create(f->s, "q", 1, NULL, &f->err));

	OK(srt_store_run_list(f->s, "r", &rows, &n, &f->err));
	assert_int_equal(n, 3);
	assert_string_equal(rows[0].name, "r-1-1");
	assert_string_equal(rows[1].name, "r-1-2");
	assert_string_equal(rows[2].name, "r-2-1");
	srt_run_rows_free(rows, n);
	OK(srt_store_run_list(f->s, NULL, &rows, &n, &f->err));
	assert_int_equal(n, 4);
	assert_string_equal(rows[0].name, "q-1-1");
	srt_run_rows_free(rows, n);

	/* Updates: NULL and negative leave a field alone, 0 clears the job id. */
	f->now = T0 + 100;
	OK(srt_store_run_update(f->s, "r-1-1", "Submitted", 4242, "PENDING", "queued", &f->err));
	f->now = T0 + 200;
	OK(srt_store_run_update(f->s, "r-1-1", "Starting", -1, NULL, NULL, &f->err));
	assert_int_equal(srt_store_run_get(f->s, "r-1-1", &got, &f->err), 1);
	assert_string_equal(got.phase, "Starting");
	assert_int_equal(got.slurm_job_id, 4242);
	assert_string_equal(got.slurm_state, "PENDING");
	assert_string_equal(got.message, "queued");
	assert_int_equal(got.updated_at, T0 + 200);
	assert_int_equal(got.started_at, T0 + 200);
	assert_int_equal(got.finished_at, 0);
	srt_run_row_release(&got);
	f->now = T0 + 300;
	OK(srt_store_run_update(f->s, "r-1-1", "Failed", 0, "FAILED", "exit 1", &f->err));
	assert_int_equal(srt_store_run_get(f->s, "r-1-1", &got, &f->err), 1);
	assert_int_equal(got.slurm_job_id, 0);
	assert_int_equal(got.started_at, T0 + 200);
	assert_int_equal(got.finished_at, T0 + 300);
	srt_run_row_release(&got);

	assert_int_equal(srt_store_run_update(f->s, "r-1-1", "Exploded", -1, NULL, NULL, &f->err),
			 -1);
	assert_non_null(strstr(f->err.msg, "not a run phase"));
	assert_int_equal(srt_store_run_update(f->s, "nope", "Ready", -1, NULL, NULL, &f->err), -1);
	assert_non_null(strstr(f->err.msg, "no run named 'nope'"));
	assert_int_equal(srt_store_run_get(f->s, "nope", &got, &f->err), 0);

	/* The frontend URL: planned with placeholders, then the bound one;
	 * updated_at moves only when a value changes. */
	assert_int_equal(srt_store_run_get(f->s, "r-1-2", &got, &f->err), 1);
	assert_null(got.frontend_url_planned);
	assert_null(got.frontend_url);
	srt_run_row_release(&got);
	f->now = T0 + 400;
	OK(srt_store_run_set_frontend_planned(f->s, "r-1-2", "http://<prefill_node_0_ip>:8000",
					      &f->err));
	f->now = T0 + 500;
	OK(srt_store_run_set_frontend_url(f->s, "r-1-2", "http://10.0.0.1:8000", &f->err));
	f->now = T0 + 600;
	OK(srt_store_run_set_frontend_url(f->s, "r-1-2", "http://10.0.0.1:8000", &f->err));
	OK(srt_store_run_set_frontend_planned(f->s, "r-1-2", "http://<prefill_node_0_ip>:8000",
					      &f->err));
	assert_int_equal(srt_store_run_get(f->s, "r-1-2", &got, &f->err), 1);
	assert_string_equal(got.frontend_url_planned, "http://<prefill_node_0_ip>:8000");
	assert_string_equal(got.frontend_url, "http://10.0.0.1:8000");
	assert_int_equal(got.updated_at, T0 + 500);
	srt_run_row_release(&got);
	OK(srt_store_run_set_frontend_url(f->s, "r-1-2", NULL, &f->err));
	assert_int_equal(srt_store_run_get(f->s, "r-1-2", &got, &f->err), 1);
	assert_null(got.frontend_url);
	assert_int_equal(got.updated_at, T0 + 600);
	srt_run_row_release(&got);
	{
		/* The schema bounds the URL, whoever writes it. */
		char big[300];

		memset(big, 'a', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		assert_int_equal(srt_store_run_set_frontend_url(f->s, "r-1-2", big, &f->err), -1);
		assert_non_null(strstr(f->err.msg, "record the frontend URL of run 'r-1-2'"));
	}
	assert_int_equal(srt_store_run_set_frontend_url(f->s, "nope", NULL, &f->err), -1);
	assert_non_null(strstr(f->err.msg, "no run named 'nope'"));

	/* No runs for a deleted recipe. */
	assert_int_equal(srt_store_recipe_delete(f->s, "q", &f->err), 1);
	assert_int_equal(srt_store_run_create(f->s, "q", 2, NULL, &f->err), -1);
	assert_non_null(strstr(f->err.msg, "is deleted"));
}

static void test_conditions(void **state)
{
	struct fixture *f = *state;
	struct srt_condition_row *rows;
	size_t n;

	OK(srt_store_recipe_apply(f->s, "r", "{}", NULL, NULL, NULL, NULL, &f->err));
	OK(srt_store_run_create(f->s, "r", 1, NULL, &f->err));
	f->now = T0 + 10;
	OK(srt_store_condition_set(f->s, "r-1-1", "Submitted", "True", "JobSubmitted", "job 7", 1,
				   &f->err));
	OK(srt_store_condition_set(f->s, "r-1-1", "Ready", "False", "Starting", "waiting", 1,
				   &f->err));
	/* Same status later: the message changes, the transition time does not. */
	f->now = T0 + 20;
	OK(srt_store_condition_set(f->s, "r-1-1", "Ready", "False", "MasterNotReady",
				   "master not ready", 1, &f->err));
	OK(srt_store_condition_list(f->s, "r-1-1", &rows, &n, &f->err));
	assert_int_equal(n, 2);
	assert_string_equal(rows[0].type, "Ready"); /* both at T0+10: by type */
	assert_string_equal(rows[0].reason, "MasterNotReady");
	assert_string_equal(rows[0].message, "master not ready");
	assert_int_equal(rows[0].last_transition_at, T0 + 10);
	assert_string_equal(rows[1].type, "Submitted");
	srt_condition_rows_free(rows, n);
	/* A new status is a transition. */
	f->now = T0 + 30;
	OK(srt_store_condition_set(f->s, "r-1-1", "Ready", "True", "AllReady", NULL, 2, &f->err));
	OK(srt_store_condition_list(f->s, "r-1-1", &rows, &n, &f->err));
	assert_string_equal(rows[1].type, "Ready");
	assert_string_equal(rows[1].status, "True");
	assert_null(rows[1].message);
	assert_int_equal(rows[1].observed_generation, 2);
	assert_int_equal(rows[1].last_transition_at, T0 + 30);
	srt_condition_rows_free(rows, n);

	assert_int_equal(srt_store_condition_set(f->s, "r-1-1", "Ready", "Maybe", NULL, NULL, 1,
						 &f->err),
			 -1);
	assert_non_null(strstr(f->err.msg, "True, False or Unknown"));
	assert_int_equal(srt_store_condition_set(f->s, "x-1-1", "Ready", "True", NULL, NULL, 1,
						 &f->err),
			 -1);
	assert_non_null(strstr(f->err.msg, "no run named 'x-1-1'"));
	OK(srt_store_condition_list(f->s, "x-1-1", &rows, &n, &f->err));
	assert_int_equal(n, 0);
	srt_condition_rows_free(rows, n);
}

static void test_services(void **state)
{
	struct fixture *f = *state;
	struct srt_service_row *rows;
	struct srt_service_row sv = { .run = "r-1-1",
				      .name = "decode_node1",
				      .service = "decode",
				      .type = "worker",
				      .node = "node1",
				      .state = "Starting" };
	size_t n;

	OK(srt_store_recipe_apply(f->s, "r", "{}", NULL, NULL, NULL, NULL, &f->err));
	OK(srt_store_run_create(f->s, "r", 1, NULL, &f->err));
	OK(srt_store_run_create(f->s, "r", 2, NULL, &f->err));
	OK(srt_store_service_upsert(f->s, &sv, &f->err));
	sv.name = "master";
	sv.service = "mooncake-master";
	sv.type = "mooncake-master";
	OK(srt_store_service_upsert(f->s, &sv, &f->err));
	sv.run = "r-1-2";
	OK(srt_store_service_upsert(f->s, &sv, &f->err));
	/* Update by (run, name). */
	f->now = T0 + 50;
	sv.run = "r-1-1";
	sv.name = "decode_node1";
	sv.service = "decode";
	sv.type = "worker";
	sv.state = "Ready";
	sv.endpoint = "10.0.0.1:30000";
	sv.restarts = 2;
	sv.last_probe = "HTTP 200";
	sv.last_probe_at = T0 + 49;
	sv.started_at = T0 + 40;
	OK(srt_store_service_upsert(f->s, &sv, &f->err));

	OK(srt_store_service_list(f->s, NULL, NULL, &rows, &n, &f->err));
	assert_int_equal(n, 3);
	assert_string_equal(rows[0].run, "r-1-1");
	assert_string_equal(rows[0].name, "decode_node1");
	assert_string_equal(rows[0].state, "Ready");
	assert_string_equal(rows[0].endpoint, "10.0.0.1:30000");
	assert_int_equal(rows[0].restarts, 2);
	assert_string_equal(rows[0].last_probe, "HTTP 200");
	assert_int_equal(rows[0].last_probe_at, T0 + 49);
	assert_int_equal(rows[0].started_at, T0 + 40);
	assert_int_equal(rows[0].updated_at, T0 + 50);
	assert_string_equal(rows[1].name, "master");
	assert_int_equal(rows[1].last_probe_at, 0);
	assert_null(rows[1].endpoint);
	assert_string_equal(rows[2].run, "r-1-2");
	srt_service_rows_free(rows, n);

	OK(srt_store_service_list(f->s, "r-1-2", NULL, &rows, &n, &f->err));
	assert_int_equal(n, 1);
	srt_service_rows_free(rows, n);
	OK(srt_store_service_list(f->s, NULL, "master", &rows, &n, &f->err));
	assert_int_equal(n, 2);
	srt_service_rows_free(rows, n);
	OK(srt_store_service_list(f->s, NULL, "decode", &rows, &n, &f->err)); /* service name */
	assert_int_equal(n, 1);
	srt_service_rows_free(rows, n);
	OK(srt_store_service_list(f->s, "r-1-1", "mooncake-master", &rows, &n, &f->err));
	assert_int_equal(n, 1);
	srt_service_rows_free(rows, n);

	sv.run = "nope";
	assert_int_equal(srt_store_service_upsert(f->s, &sv, &f->err), -1);
	assert_non_null(strstr(f->err.msg, "no run named 'nope'"));
	sv.run = "r-1-1";
	sv.state = NULL;
	assert_int_equal(srt_store_service_upsert(f->s, &sv, &f->err), -1);
}

static void test_workers(void **state)
{
	struct fixture *f = *state;
	struct srt_worker_row *rows;
	struct srt_worker_row w = { .run = "r-1-1",
				    .role = "prefill",
				    .idx = 1,
				    .node = "n2",
				    .ip = "10.0.0.2",
				    .env_hash = "abc",
				    .state = "Starting" };
	size_t n;

	OK(srt_store_recipe_apply(f->s, "r", "{}", NULL, NULL, NULL, NULL, &f->err));
	OK(srt_store_run_create(f->s, "r", 1, NULL, &f->err));
	OK(srt_store_worker_upsert(f->s, &w, &f->err));
	w.idx = 0;
	OK(srt_store_worker_upsert(f->s, &w, &f->err));
	w.role = "decode";
	OK(srt_store_worker_upsert(f->s, &w, &f->err));
	w.restarts = 3;
	w.state = "Ready";
	OK(srt_store_worker_upsert(f->s, &w, &f->err));
	OK(srt_store_worker_list(f->s, "r-1-1", &rows, &n, &f->err));
	assert_int_equal(n, 3);
	assert_string_equal(rows[0].role, "decode");
	assert_int_equal(rows[0].restarts, 3);
	assert_string_equal(rows[0].state, "Ready");
	assert_string_equal(rows[1].role, "prefill");
	assert_int_equal(rows[1].idx, 0);
	assert_int_equal(rows[2].idx, 1);
	assert_string_equal(rows[2].ip, "10.0.0.2");
	assert_string_equal(rows[2].env_hash, "abc");
	srt_worker_rows_free(rows, n);
	OK(srt_store_worker_list(f->s, NULL, &rows, &n, &f->err));
	assert_int_equal(n, 3);
	srt_worker_rows_free(rows, n);
	w.role = "router";
	assert_int_equal(srt_store_worker_upsert(f->s, &w, &f->err), -1);
	assert_non_null(strstr(f->err.msg, "prefill, decode or agg"));
}

static void test_campaigns(void **state)
{
	struct fixture *f = *state;
	struct srt_campaign_row *rows;
	size_t n;

	OK(srt_store_campaign_list(f->s, &rows, &n, &f->err));
	assert_int_equal(n, 0);
	srt_campaign_rows_free(rows, n);
	assert_int_equal(sqlite3_exec(f->s->db,
				      "INSERT INTO campaigns (uid, name, spec, created_at, "
				      "updated_at) VALUES ('u', 'sweep', '{}', 1, 2)",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	OK(srt_store_campaign_list(f->s, &rows, &n, &f->err));
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].name, "sweep");
	assert_string_equal(rows[0].state, "Pending");
	assert_int_equal(rows[0].updated_at, 2);
	assert_int_equal(rows[0].deleted_at, 0);
	srt_campaign_rows_free(rows, n);
}

/* Driving a campaign: world, activate/retire, assign, started/finished, reset, fail, state. */
static void test_campaign_points(void **state)
{
	struct fixture *f = *state;
	static const char ID1[] =
		"1111111111111111111111111111111111111111111111111111111111111111";
	static const char ID2[] =
		"2222222222222222222222222222222222222222222222222222222222222222";
	const struct srt_store_campaign_deployment dep = { "cp-aaaaaaaa", "{}", "{\"name\":\"x\"}",
							   "h1", 1 };
	const struct srt_store_campaign_point pts[] = {
		{ ID1, 0, 1, 128, 16, 1, 10, 2, 1 },
		{ ID2, 0, 2, 128, 16, 2, 20, 4, 1 },
	};
	const struct srt_store_campaign_in in = { .name = "cp",
						  .spec = "{}",
						  .spec_hash = "c1",
						  .tool = "vllm-bench",
						  .params = "{}",
						  .deployments = &dep,
						  .ndeployments = 1,
						  .points = pts,
						  .npoints = 2 };
	struct srt_world_deployment *w;
	struct srt_assigned_point *ap;
	struct srt_recipe_row recipe;
	struct srt_run_row run = { 0 }, run2 = { 0 };
	struct srt_point_finish fin = { .point_id = ID1,
					.seq = 1,
					.state = "done",
					.attempts = 1,
					.started_at = T0,
					.finished_at = T0 + 5,
					.raw_path = "points/x.json",
					.raw_sha256 = "ab",
					.raw_json = "{}",
					.slo_met = 1 };
	struct srt_point_row *rows;
	size_t n;

	for (int k = 0; k < SRT_POINT_NMETRICS; k++)
		fin.metrics[k] = NAN;
	fin.metrics[0] = 10;
	OK(srt_store_campaign_apply(f->s, &in, NULL, NULL, NULL, &f->err));
	OK(srt_store_campaign_world(f->s, &w, &n, &f->err));
	assert_int_equal(n, 1);
	assert_string_equal(w[0].campaign, "cp");
	assert_string_equal(w[0].name, "cp-aaaaaaaa");
	assert_int_equal(w[0].pending, 2);
	assert_int_equal(w[0].final, 0);
	srt_world_deployments_free(w, n);

	/* active: its child recipe is desired state, and it gets a run */
	OK(srt_store_deployment_activate(f->s, "cp-aaaaaaaa", "test", &f->err));
	assert_int_equal(srt_store_recipe_get(f->s, "cp-aaaaaaaa", &recipe, &f->err), 1);
	assert_string_equal(recipe.spec, "{\"name\":\"x\"}");
	srt_recipe_row_release(&recipe);
	OK(srt_store_run_create(f->s, "cp-aaaaaaaa", 1, &run, &f->err));
	OK(srt_store_points_assign(f->s, "cp-aaaaaaaa", run.name, &ap, &n, &f->err));
	assert_int_equal(n, 2);
	assert_string_equal(ap[0].point_id, ID1);
	assert_int_equal(ap[1].concurrency, 2);
	srt_assigned_points_free(ap, n);

	/*
	 * node-time: from when srtctl saw the job start until now, then from
	 * SLURM's start and end once the listing gave them (a job that ran
	 * between two passes is counted in full).
	 */
	OK(srt_store_run_update(f->s, run.name, "Starting", 7, "RUNNING", NULL, &f->err));
	f->now = T0 + 1000;
	OK(srt_store_campaign_world(f->s, &w, &n, &f->err));
	assert_int_equal(w[0].node_ms, 1000);
	srt_world_deployments_free(w, n);
	OK(srt_store_run_set_job_times(f->s, run.name, T0 - 4000, 0, &f->err));
	OK(srt_store_campaign_world(f->s, &w, &n, &f->err));
	assert_int_equal(w[0].node_ms, 5000);
	srt_world_deployments_free(w, n);
	OK(srt_store_run_set_job_times(f->s, run.name, 0, T0 + 500, &f->err));
	f->now = T0 + 9000;
	OK(srt_store_campaign_world(f->s, &w, &n, &f->err));
	assert_int_equal(w[0].node_ms, 4500);
	srt_world_deployments_free(w, n);
	OK(srt_store_run_get(f->s, run.name, &run2, &f->err) == 1 ? 0 : -1);
	assert_int_equal(run2.job_started_at, T0 - 4000);
	assert_int_equal(run2.job_ended_at, T0 + 500);
	srt_run_row_release(&run2);

	/* a report counts once, and only from the run the point was given to */
	assert_int_equal(srt_store_point_started(f->s, "other-run", ID1, 1, T0, &f->err), 0);
	assert_int_equal(srt_store_point_started(f->s, run.name, ID1, 1, T0, &f->err), 1);
	assert_int_equal(srt_store_point_started(f->s, run.name, ID1, 1, T0, &f->err), 0);
	assert_int_equal(srt_store_point_finished(f->s, run.name, &fin, &f->err), 1);
	assert_int_equal(srt_store_point_finished(f->s, run.name, &fin, &f->err), 0);
	assert_int_equal(srt_store_point_started(f->s, run.name, ID2, 2, T0 + 6, &f->err), 1);
	OK(srt_store_campaign_world(f->s, &w, &n, &f->err));
	assert_int_equal(w[0].pending, 0);
	assert_int_equal(w[0].running, 1);
	assert_int_equal(w[0].final, 1);
	srt_world_deployments_free(w, n);

	/* the job died during point 2: it is given back, then an exhausted deployment fails it */
	OK(srt_store_points_reset(f->s, "cp", "cp-aaaaaaaa", "job ended", &f->err));
	OK(srt_store_point_list(f->s, "cp", false, &rows, &n, &f->err));
	assert_string_equal(rows[0].state, "done");
	assert_int_equal(rows[0].attempts, 1);
	assert_true(rows[0].metrics[0] == 10);
	assert_true(isnan(rows[0].metrics[1]));
	assert_string_equal(rows[0].raw_sha256, "ab");
	assert_int_equal(rows[0].slo_met, 1);
	assert_string_equal(rows[1].state, "pending");
	srt_point_rows_free(rows, n);
	OK(srt_store_points_fail(f->s, "cp", "cp-aaaaaaaa", "never ready", &f->err));
	OK(srt_store_point_list(f->s, "cp", false, &rows, &n, &f->err));
	assert_string_equal(rows[1].state, "failed");
	assert_string_equal(rows[1].message, "never ready");
	srt_point_rows_free(rows, n);

	/* retire, state changes with one event each */
	OK(srt_store_deployment_retire(f->s, "cp", "cp-aaaaaaaa", "done", &f->err));
	assert_int_equal(srt_store_recipe_get(f->s, "cp-aaaaaaaa", &recipe, &f->err), 1);
	assert_true(recipe.deleted_at != 0);
	srt_recipe_row_release(&recipe);
	OK(srt_store_campaign_set_state(f->s, "cp", "Pending", "Done", "all finished", &f->err));
	OK(srt_store_campaign_set_state(f->s, "cp", "Pending", "Done", "all finished", &f->err));
	/* the end is one notification for the cluster's notify: command */
	{
		struct srt_notification_row nr;

		assert_int_equal(srt_store_notification_next_due(f->s, f->now, true, &nr, &f->err),
				 1);
		assert_string_equal(nr.reason, "CampaignDone");
		assert_string_equal(nr.kind, "campaign");
		assert_string_equal(nr.name, "cp");
		assert_non_null(strstr(nr.payload, "\"points\":{\"total\":2,\"done\":1,"));
		assert_non_null(strstr(nr.payload, "\"message\":\"every point of the campaign"));
		assert_int_equal(strncmp(nr.event_id, "campaign-done:", 14), 0);
		OK(srt_store_notification_update(f->s, nr.id, "Delivered", true, -1, NULL,
						 &f->err));
		srt_notification_row_release(&nr);
		assert_int_equal(srt_store_notification_next_due(f->s, f->now, true, &nr, &f->err),
				 0);
	}
	/* not from the state it is in (a user changed it meanwhile): nothing */
	OK(srt_store_campaign_set_state(f->s, "cp", "Running", "Stopped", "x", &f->err));
	assert_int_equal(count_events(f, "campaign", "cp", "Done"), 1);
	assert_int_equal(count_events(f, "campaign", "cp", "Stopped"), 0);
	assert_int_equal(count_events(f, "campaign", "cp", "DeploymentStarted"), 1);
	assert_int_equal(count_events(f, "campaign", "cp", "PointFinished"), 1);
	srt_run_row_release(&run);
}

/* ---- events ---- */

static void test_event_dedup(void **state)
{
	struct fixture *f = *state;
	struct srt_event_row *rows;
	size_t n;

	OK(srt_store_event(f->s, &f->err, "Warning", "BackOff", "service", "decode_1", "controller",
			   "restarting %s", "decode_1"));
	f->now = T0 + 1000;
	OK(srt_store_event(f->s, &f->err, "Warning", "BackOff", "service", "decode_1", "controller",
			   "restarting %s", "decode_1"));
	/* Differences that make a new row: message, type, reason, object. */
	OK(srt_store_event(f->s, &f->err, "Warning", "BackOff", "service", "decode_1", NULL,
			   "restarting again"));
	OK(srt_store_event(f->s, &f->err, "Normal", "BackOff", "service", "decode_1", NULL,
			   "restarting decode_1"));
	OK(srt_store_event(f->s, &f->err, "Warning", "Other", "service", "decode_1", NULL,
			   "restarting decode_1"));
	OK(srt_store_event(f->s, &f->err, "Warning", "BackOff", "service", "decode_2", NULL,
			   "restarting decode_1"));
	/* An ingested event from a little earlier still counts into the row. */
	OK(srt_store_event_at(f->s, T0 - 500, "Warning", "BackOff", "service", "decode_1", "agent",
			      "restarting decode_1", &f->err));

	OK(srt_store_event_list(f->s,
				&(struct srt_event_filter){ .kind = "service", .name = "decode_1" },
				&rows, &n, &f->err));
	assert_int_equal(n, 4);
	assert_string_equal(rows[0].message, "restarting decode_1");
	assert_string_equal(rows[0].type, "Warning");
	assert_string_equal(rows[0].reason, "BackOff");
	assert_string_equal(rows[0].source, "controller");
	assert_int_equal(rows[0].count, 3);
	assert_int_equal(rows[0].first_at, T0 - 500);
	assert_int_equal(rows[0].last_at, T0 + 1000);
	assert_string_equal(rows[1].source, "cli"); /* NULL source */
	srt_event_rows_free(rows, n);

	/* After the window, the same event starts a new row. */
	f->now = T0 + 1000 + SRT_EVENT_DEDUP_WINDOW_MS + 1;
	OK(srt_store_event(f->s, &f->err, "Warning", "BackOff", "service", "decode_1", "controller",
			   "restarting decode_1"));
	assert_int_equal(count_events(f, "service", "decode_1", "BackOff"), 4);

	assert_int_equal(srt_store_event(f->s, &f->err, "Info", "X", "service", "a", NULL, "m"),
			 -1);
	assert_non_null(strstr(f->err.msg, "neither Normal nor Warning"));
	assert_int_equal(srt_store_event_at(f->s, T0, "Normal", NULL, "service", "a", NULL, "m",
					    &f->err),
			 -1);
}

/* The search for an identical event is bounded by SRT_EVENT_DEDUP_SCAN. */
static void test_event_dedup_scan_bound(void **state)
{
	struct fixture *f = *state;

	OK(srt_store_begin(f->s, &f->err));
	OK(srt_store_event(f->s, &f->err, "Normal", "Tick", "run", "r", NULL, "first"));
	for (int i = 0; i < SRT_EVENT_DEDUP_SCAN - 1; i++) {
		f->now++;
		OK(srt_store_event(f->s, &f->err, "Normal", "Tick", "run", "r", NULL, "tick %d",
				   i));
	}
	f->now++;
	OK(srt_store_event(f->s, &f->err, "Normal", "Tick", "run", "r", NULL, "first"));
	OK(srt_store_commit(f->s, &f->err));
	/* "first" was the oldest of the newest SRT_EVENT_DEDUP_SCAN: bumped. */
	assert_int_equal(count_events(f, "run", "r", NULL), SRT_EVENT_DEDUP_SCAN);
	f->now++;
	OK(srt_store_event(f->s, &f->err, "Normal", "Tick", "run", "r", NULL, "tick 0"));
	/* "tick 0" is still among them (the bumped "first" moved to the top). */
	assert_int_equal(count_events(f, "run", "r", NULL), SRT_EVENT_DEDUP_SCAN);
	for (int i = 0; i < SRT_EVENT_DEDUP_SCAN; i++) {
		f->now++;
		OK(srt_store_event(f->s, &f->err, "Normal", "Tick", "run", "r", NULL, "new %d", i));
	}
	f->now++;
	OK(srt_store_event(f->s, &f->err, "Normal", "Tick", "run", "r", NULL, "first"));
	/* Now it is out of reach: a new row. */
	assert_int_equal(count_events(f, "run", "r", NULL), 2 * SRT_EVENT_DEDUP_SCAN + 1);
}

static void add_event(struct fixture *f, int64_t at, const char *type, const char *reason,
		      const char *kind, const char *name, const char *msg)
{
	OK(srt_store_event_at(f->s, at, type, reason, kind, name, "controller", msg, &f->err));
}

static void test_event_list_filters(void **state)
{
	struct fixture *f = *state;
	struct srt_event_row *rows;
	size_t n;
	int64_t e4_id;

	add_event(f, T0 + 1, "Normal", "Submitted", "run", "a", "e1");
	add_event(f, T0 + 2, "Warning", "ProbeFailed", "service", "m", "e2");
	add_event(f, T0 + 3, "Warning", "ProbeFailed", "run", "a", "e3");
	add_event(f, T0 + 4, "Normal", "Ready", "run", "a", "e4");
	add_event(f, T0 + 5, "Normal", "Ready", "run", "b", "e5");
	add_event(f, T0 + 6, "Warning", "BackOff", "run", "a", "e6");
	/* e1 again: its last_at moves to T0+7, so it is now the newest of run/a. */
	add_event(f, T0 + 7, "Normal", "Submitted", "run", "a", "e1");

	OK(srt_store_event_list(f->s, NULL, &rows, &n, &f->err));
	assert_int_equal(n, 6);
	assert_string_equal(rows[0].message, "e2"); /* oldest first, by last_at */
	assert_string_equal(rows[5].message, "e1");
	srt_event_rows_free(rows, n);

	OK(srt_store_event_list(f->s, &(struct srt_event_filter){ .kind = "run", .name = "a" },
				&rows, &n, &f->err));
	assert_int_equal(n, 4);
	assert_string_equal(rows[0].message, "e3");
	assert_string_equal(rows[1].message, "e4");
	assert_string_equal(rows[2].message, "e6");
	assert_string_equal(rows[3].message, "e1");
	e4_id = rows[1].id;
	srt_event_rows_free(rows, n);

	OK(srt_store_event_list(
		f->s, &(struct srt_event_filter){ .kind = "run", .name = "a", .since = T0 + 4 },
		&rows, &n, &f->err));
	assert_int_equal(n, 3);
	assert_string_equal(rows[0].message, "e4");
	srt_event_rows_free(rows, n);

	OK(srt_store_event_list(f->s, &(struct srt_event_filter){ .type = "Warning" }, &rows, &n,
				&f->err));
	assert_int_equal(n, 3);
	srt_event_rows_free(rows, n);
	OK(srt_store_event_list(
		f->s,
		&(struct srt_event_filter){
			.kind = "run", .name = "a", .type = "Warning", .reason = "ProbeFailed" },
		&rows, &n, &f->err));
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].message, "e3");
	srt_event_rows_free(rows, n);

	/* limit: the newest N, still printed oldest first. */
	OK(srt_store_event_list(f->s, &(struct srt_event_filter){ .limit = 2 }, &rows, &n,
				&f->err));
	assert_int_equal(n, 2);
	assert_string_equal(rows[0].message, "e6");
	assert_string_equal(rows[1].message, "e1");
	srt_event_rows_free(rows, n);

	/* after_id: only rows added after a given one (for --watch). */
	OK(srt_store_event_list(f->s, &(struct srt_event_filter){ .after_id = e4_id }, &rows, &n,
				&f->err));
	assert_int_equal(n, 2);
	assert_string_equal(rows[0].message, "e5");
	assert_string_equal(rows[1].message, "e6");
	srt_event_rows_free(rows, n);

	OK(srt_store_event_list(f->s, &(struct srt_event_filter){ .since = T0 + 100 }, &rows, &n,
				&f->err));
	assert_int_equal(n, 0);
	assert_null(rows);
	assert_int_equal(srt_store_event_list(f->s, &(struct srt_event_filter){ .kind = "run" },
					      &rows, &n, &f->err),
			 -1);
	assert_non_null(strstr(f->err.msg, "both a kind and a name"));
}

static void test_event_prune_and_raw(void **state)
{
	struct fixture *f = *state;
	struct srt_event_row ev = { .type = "Normal",
				    .reason = "Raw",
				    .kind = "run",
				    .name = "x",
				    .message = "same",
				    .source = "agent",
				    .count = 5,
				    .first_at = T0 - 10,
				    .last_at = T0 };
	struct srt_event_row *rows;
	int64_t deleted = -1;
	size_t n;

	OK(srt_store_event_insert_raw(f->s, &ev, &f->err));
	OK(srt_store_event_insert_raw(f->s, &ev, &f->err)); /* no dedup */
	ev.first_at = ev.last_at = T0 + 1000;
	ev.count = 0;
	OK(srt_store_event_insert_raw(f->s, &ev, &f->err));
	OK(srt_store_event_list(f->s, NULL, &rows, &n, &f->err));
	assert_int_equal(n, 3);
	assert_int_equal(rows[0].count, 5);
	assert_int_equal(rows[0].first_at, T0 - 10);
	assert_int_equal(rows[2].count, 1);
	srt_event_rows_free(rows, n);

	OK(srt_store_event_prune(f->s, T0 + 1, &deleted, &f->err));
	assert_int_equal(deleted, 2);
	OK(srt_store_event_prune(f->s, T0 + 1, &deleted, &f->err));
	assert_int_equal(deleted, 0);
	OK(srt_store_event_list(f->s, NULL, &rows, &n, &f->err));
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].last_at, T0 + 1000);
	srt_event_rows_free(rows, n);
}

/* The plan SQLite picks for `sql`, one line per step. */
static char *query_plan(struct fixture *f, const char *sql)
{
	char *explain = srt_xasprintf("EXPLAIN QUERY PLAN %s", sql);
	sqlite3_stmt *st = NULL;
	struct srt_buf b;

	srt_buf_init(&b);
	assert_int_equal(sqlite3_prepare_v2(f->s->db, explain, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		srt_buf_printf(&b, "%s\n", (const char *)sqlite3_column_text(st, 3));
	sqlite3_finalize(st);
	free(explain);
	return srt_buf_detach(&b);
}

/* Issue #12: every stored event is bounded, whoever writes it. */
static void test_event_bounds(void **state)
{
	static const struct {
		int64_t at;
		const char *reason, *kind, *name, *want;
	} bad[] = {
		{ INT64_MIN, "R", "run", "r", "its time is not between" },
		{ INT64_MAX, "R", "run", "r", "its time is not between" },
		{ SRT_EVENT_TIME_MIN - 1, "R", "run", "r", "its time is not between" },
		{ T0, "", "run", "r", "its reason is not 1 to 64" },
		{ T0, "Bad\nReason", "run", "r", "its reason is not 1 to 64" },
		{ T0, "RRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRR", "run",
		  "r", "its reason is not 1 to 64" },
		{ T0, "R", "Run", "r", "its object kind is not" },
		{ T0, "R", "", "r", "its object kind is not" },
		{ T0, "R", "run", "", "its object name is empty" },
		{ T0, "R", "run", "a\x1b[2Jb", "its object name is empty" },
	};
	struct fixture *f = *state;
	struct srt_event_row *rows;
	size_t n, big = 50u * 1024 * 1024;
	char *msg, want[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		srt_error_clear(&f->err);
		assert_int_equal(srt_store_event_at(f->s, bad[i].at, "Normal", bad[i].reason,
						    bad[i].kind, bad[i].name, "agent", "m", &f->err),
				 -1);
		if (!strstr(f->err.msg, bad[i].want))
			fail_msg("case %zu: '%s' lacks '%s'", i, f->err.msg, bad[i].want);
	}
	OK(srt_store_event_list(f->s, NULL, &rows, &n, &f->err));
	assert_int_equal(n, 0);
	srt_event_rows_free(rows, n);

	/* The bounds themselves are fine. */
	OK(srt_store_event_at(f->s, SRT_EVENT_TIME_MAX, "Normal", "R", "run", "r", "agent", "m",
			      &f->err));
	/* A 50 MB message is cut at 8 KiB, on a UTF-8 boundary, and marked. */
	msg = malloc(big + 1);
	assert_non_null(msg);
	memset(msg, 'x', big);
	msg[SRT_EVENT_MESSAGE_MAX - 1] = '\xc3'; /* an é across the cut */
	msg[SRT_EVENT_MESSAGE_MAX] = '\xa9';
	msg[big] = '\0';
	OK(srt_store_event_at(f->s, T0, "Warning", "Huge", "run", "r", "agent", msg, &f->err));
	free(msg);
	OK(srt_store_event_list(f->s, &(struct srt_event_filter){ .reason = "Huge" }, &rows, &n,
				&f->err));
	assert_int_equal(n, 1);
	snprintf(want, sizeof(want), SRT_EVENT_TRUNCATED_MARK " %zu bytes in all]", big);
	assert_int_equal(strlen(rows[0].message), SRT_EVENT_MESSAGE_MAX - 1 + strlen(want));
	assert_string_equal(rows[0].message + SRT_EVENT_MESSAGE_MAX - 1, want);
	srt_event_rows_free(rows, n);
}

static void test_event_query_plans(void **state)
{
	struct fixture *f = *state;
	char *plan;

	/* With rows and statistics, as a real database has after a while. */
	OK(srt_store_begin(f->s, &f->err));
	for (int i = 0; i < 2000; i++) {
		char name[16];

		snprintf(name, sizeof(name), "run-%d", i % 50);
		add_event(f, T0 + i, i % 2 ? "Normal" : "Warning", "Tick", "run", name, "m");
	}
	OK(srt_store_commit(f->s, &f->err));
	assert_int_equal(sqlite3_exec(f->s->db, "ANALYZE", NULL, NULL, NULL), SQLITE_OK);

	/* events --for KIND/NAME --since D: the object index, in order, no sort. */
	plan = query_plan(f, srt_store_sql_event_list_object);
	if (!strstr(plan, "USING INDEX events_object (kind=? AND name=? AND last_at>?)") ||
	    strstr(plan, "TEMP B-TREE"))
		fail_msg("events --for --since plan:\n%s", plan);
	free(plan);
	/* events --since D: the time index, no sort. */
	plan = query_plan(f, srt_store_sql_event_list_all);
	if (!strstr(plan, "USING INDEX events_time (last_at>?)") || strstr(plan, "TEMP B-TREE"))
		fail_msg("events --since plan:\n%s", plan);
	free(plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_recipe_apply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recipe_delete, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conditions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_services, setup, teardown),
		cmocka_unit_test_setup_teardown(test_workers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_campaigns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_campaign_points, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_dedup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_dedup_scan_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_list_filters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_prune_and_raw, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_query_plans, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
