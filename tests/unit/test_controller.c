/*
 * tests/unit/test_controller.c: controller/, against the in-memory SLURM
 * (slurm/fake.h) and a real SQLite file: every decision's effect, the
 * crash-safety promises, and the loop (back-off, signals, --once).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "controller/controller.h"
#include "recipe/campaign.h"
#include "runplan/points.h"
#include "util/sha256.h"
#include <math.h>
#include <sys/stat.h>
#include "recipe/canon.h"
#include "recipe/compile.h"
#include "runplan/rundir.h"
#include "slurm/fake.h"
#include "util/buf.h"

struct fx {
	char dir[64];
	char *db, *root;
	struct srt_cluster cl;
	struct srt_store *store;
	struct srt_slurm_fake *fake;
	struct srt_controller *ctl;
	struct srt_pass_stats st;
};

static struct srt_controller *new_controller(struct fx *f)
{
	struct srt_controller *c = NULL;
	struct srt_error err;
	static const char *const srtctl[] = { "srtctl" };

	assert_int_equal(srt_controller_new(&c,
					    &(struct srt_controller_config){
						    .store = f->store,
						    .slurm = srt_slurm_fake_client(f->fake),
						    .cluster = &f->cl,
						    .run_root = f->root,
						    .srtctl = srtctl,
						    .nsrtctl = 1,
					    },
					    &err),
			 0);
	return c;
}

static int setup(void **state)
{
	struct fx *f = srt_xcalloc(1, sizeof(*f));
	struct srt_error err;

	snprintf(f->dir, sizeof(f->dir), "/tmp/srt-ctl-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->db = srt_xasprintf("%s/state.db", f->dir);
	f->root = srt_xasprintf("%s/runs", f->dir);
	srt_cluster_defaults(&f->cl);
	assert_int_equal(srt_store_open(&f->store, f->db, SRT_STORE_CREATE, NULL, &err), 0);
	f->fake = srt_slurm_fake_new();
	f->ctl = new_controller(f);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char *cmd = srt_xasprintf("rm -rf '%s'", f->dir);

	srt_controller_free(f->ctl);
	srt_slurm_fake_free(f->fake);
	srt_store_close(f->store);
	srt_cluster_release(&f->cl);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(f->db);
	free(f->root);
	free(f);
	return 0;
}

/*
 * A recipe "r1": prefill on `nodes` node(s), a KNOB env value, a budget of
 * `attempts`, and `extra` top-level YAML (a frontend, say).
 */
static void apply_with(struct fx *f, int nodes, const char *knob, int attempts, const char *extra)
{
	char *yaml = srt_xasprintf(
		"name: r1\n"
		"model: {path: /models/qwen3-32b, container: 'sglang:latest', precision: bf16}\n"
		"resources: {gpus_per_node: 4}\n"
		"engine: sglang\n"
		"slurm: {max_attempts: %d}\n"
		"roles:\n"
		"  prefill:\n"
		"    nodes: %d\n"
		"    workers: 1\n"
		"    env: {MOONCAKE_PROTOCOL: tcp, KNOB: '%s'}\n"
		"    args: {disaggregation-transfer-backend: mooncake, tensor-parallel-size: 4}\n"
		"  decode:\n"
		"    nodes: 1\n"
		"    workers: 1\n"
		"    env: {MOONCAKE_PROTOCOL: tcp}\n"
		"    args: {disaggregation-transfer-backend: mooncake, tensor-parallel-size: 4}\n"
		"services:\n"
		"  - {name: mooncake-master, type: mooncake-master}\n"
		"%s",
		attempts, nodes, knob, extra);
	struct srt_compiled comp;
	struct srt_diags d;
	struct srt_error err;
	char *spec;

	srt_diags_init(&d);
	assert_int_equal(srt_compile_bytes(yaml, strlen(yaml), "r1.yaml", &f->cl, &comp, &d), 0);
	assert_int_equal(comp.n, 1);
	spec = srt_canon_spec(comp.recipes[0]->root, &err);
	assert_non_null(spec);
	assert_int_equal(srt_store_begin(f->store, &err), 0);
	assert_int_equal(
		srt_store_recipe_apply(f->store, "r1", spec, "r1.yaml", yaml, NULL, NULL, &err), 0);
	assert_int_equal(srt_store_commit(f->store, &err), 0);
	free(spec);
	srt_compiled_release(&comp);
	srt_diags_release(&d);
	free(yaml);
}

static void apply(struct fx *f, int nodes, const char *knob, int attempts)
{
	apply_with(f, nodes, knob, attempts, "");
}

static void pass(struct fx *f)
{
	struct srt_error err;

	srt_error_clear(&err);
	if (srt_controller_pass(f->ctl, &f->st, &err) != 0)
		fail_msg("pass failed: %s", err.msg);
}

struct run {
	char phase[32];
	int64_t job_id, generation;
	bool exists;
};

static struct run run(struct fx *f, const char *name)
{
	struct srt_run_row row = { 0 };
	struct srt_error err;
	struct run r = { 0 };
	int rc = srt_store_run_get(f->store, name, &row, &err);

	assert_true(rc >= 0);
	if (rc == 1) {
		r.exists = true;
		snprintf(r.phase, sizeof(r.phase), "%s", row.phase);
		r.job_id = row.slurm_job_id;
		r.generation = row.generation;
	}
	srt_run_row_release(&row);
	return r;
}

static char *comment_of(struct fx *f, const char *name)
{
	struct srt_run_row row = { 0 };
	struct srt_error err;
	char *c;

	assert_int_equal(srt_store_run_get(f->store, name, &row, &err), 1);
	c = srt_xstrdup(row.job_comment);
	srt_run_row_release(&row);
	return c;
}

/* The summed count of KIND/NAME's events with this reason; *message gets the last one's. */
static int64_t events_of(struct fx *f, const char *kind, const char *name, const char *reason,
			 char **message)
{
	struct srt_event_filter flt = { .kind = kind, .name = name, .reason = reason };
	struct srt_event_row *rows = NULL;
	struct srt_error err;
	size_t n = 0;
	int64_t count = 0;

	assert_int_equal(srt_store_event_list(f->store, &flt, &rows, &n, &err), 0);
	for (size_t i = 0; i < n; i++)
		count += rows[i].count;
	if (message)
		*message = n ? srt_xstrdup(rows[n - 1].message) : NULL;
	srt_event_rows_free(rows, n);
	return count;
}

static int64_t events(struct fx *f, const char *name, const char *reason, char **message)
{
	return events_of(f, "run", name, reason, message);
}

/* Submitted and running: the job the next tests play with. */
static int64_t running(struct fx *f)
{
	struct run r;

	pass(f);
	r = run(f, "r1-1-1");
	assert_string_equal(r.phase, "Submitted");
	assert_int_equal(srt_slurm_fake_set_state(f->fake, r.job_id, SRT_JOB_RUNNING, -1, NULL), 0);
	pass(f);
	assert_string_equal(run(f, "r1-1-1").phase, "Starting");
	return r.job_id;
}

/* A submit whose reply is lost: the next pass finds the job by its comment. */
static void test_submit_once_when_the_reply_is_lost(void **state)
{
	struct fx *f = *state;
	char *comment;
	struct run r;

	apply(f, 1, "a", 3);
	srt_slurm_fake_lose_reply(f->fake, SRT_SLURM_ETIMEOUT, 1);
	pass(f);
	r = run(f, "r1-1-1");
	assert_string_equal(r.phase, "Pending");
	assert_int_equal(r.job_id, 0);
	assert_int_equal(events(f, "r1-1-1", "RunCreated", NULL), 1);
	assert_int_equal(events(f, "r1-1-1", "SubmitUnknown", NULL), 1);
	assert_int_equal(srt_slurm_fake_submitted(f->fake), 1);
	pass(f);
	pass(f);
	r = run(f, "r1-1-1");
	comment = comment_of(f, "r1-1-1");
	assert_string_equal(r.phase, "Submitted");
	assert_int_equal(r.job_id, 1000);
	assert_int_equal(events(f, "r1-1-1", "JobAdopted", NULL), 1);
	assert_int_equal(events(f, "r1-1-1", "JobSubmitted", NULL), 0);
	assert_int_equal(srt_slurm_fake_submitted(f->fake), 1);
	assert_int_equal(srt_slurm_fake_count(f->fake, comment), 1);
	free(comment);
}

/* A submit that timed out before SLURM took it: looked for, not found, submitted. */
static void test_submit_unknown_then_submitted(void **state)
{
	struct fx *f = *state;
	char *comment;

	apply(f, 1, "a", 3);
	srt_slurm_fake_fail(f->fake, SRT_FAKE_SUBMIT, SRT_SLURM_ESERVER, 1);
	pass(f);
	assert_string_equal(run(f, "r1-1-1").phase, "Pending");
	assert_int_equal(srt_slurm_fake_submitted(f->fake), 0);
	pass(f);
	comment = comment_of(f, "r1-1-1");
	assert_string_equal(run(f, "r1-1-1").phase, "Submitted");
	assert_int_equal(events(f, "r1-1-1", "JobSubmitted", NULL), 1);
	assert_int_equal(srt_slurm_fake_count(f->fake, comment), 1);
	/* the job submitted with the run's name, comment and shape */
	assert_string_equal(srt_slurm_fake_job(f->fake, 1000)->name, "r1-1-1");
	assert_int_equal(srt_slurm_fake_job(f->fake, 1000)->node_count, 2);
	free(comment);
}

/* SLURM refuses the job: the run fails, without another attempt. */
static void test_submit_rejected(void **state)
{
	struct fx *f = *state;

	apply(f, 1, "a", 3);
	srt_slurm_fake_fail(f->fake, SRT_FAKE_SUBMIT, SRT_SLURM_EREJECTED, 1);
	pass(f);
	assert_string_equal(run(f, "r1-1-1").phase, "Failed");
	assert_int_equal(events(f, "r1-1-1", "SubmitRejected", NULL), 1);
}

/* A failed job gets a new attempt, up to slurm.max_attempts. */
static void test_failed_attempts_restart_up_to_max(void **state)
{
	struct fx *f = *state;
	int64_t job = (apply(f, 1, "a", 2), running(f));
	struct run r;

	srt_slurm_fake_set_state(f->fake, job, SRT_JOB_FAILED, 1, "NonZeroExitCode");
	pass(f);
	assert_string_equal(run(f, "r1-1-1").phase, "Failed");
	assert_int_equal(events(f, "r1-1-1", "PhaseFailed", NULL), 1);
	pass(f); /* attempt 2, submitted in the same pass */
	r = run(f, "r1-1-2");
	assert_true(r.exists);
	assert_string_equal(r.phase, "Submitted");
	assert_int_not_equal(r.job_id, job);
	srt_slurm_fake_set_state(f->fake, r.job_id, SRT_JOB_NODE_FAIL, -1, NULL);
	for (int i = 0; i < 3; i++)
		pass(f);
	assert_string_equal(run(f, "r1-1-2").phase, "Failed");
	assert_false(run(f, "r1-1-3").exists); /* the budget of 2 is spent */
	assert_int_equal(srt_slurm_fake_submitted(f->fake), 2);
}

/* A new generation with the same job shape goes into the running job. */
static void test_generation_that_fits_rolls_out_in_place(void **state)
{
	struct fx *f = *state;
	int64_t job = (apply(f, 1, "a", 3), running(f));
	struct run r;

	apply(f, 1, "b", 3); /* only an env value changes */
	pass(f);
	r = run(f, "r1-1-1");
	assert_int_equal(r.generation, 2);
	assert_int_equal(r.job_id, job);
	assert_int_equal(events(f, "r1-1-1", "RollingOut", NULL), 1);
	assert_int_equal(srt_slurm_fake_job(f->fake, job)->state, SRT_JOB_RUNNING);
	assert_false(run(f, "r1-2-1").exists);
	pass(f);
	assert_int_equal(srt_slurm_fake_submitted(f->fake), 1);
	assert_int_equal(srt_slurm_fake_calls(f->fake, SRT_FAKE_CANCEL), 0);
}

/* The run's frontend URLs: (planned, bound), each NULL when not set. */
static void frontend_of(struct fx *f, const char *name, char **planned, char **url)
{
	struct srt_run_row row = { 0 };
	struct srt_error err;

	assert_int_equal(srt_store_run_get(f->store, name, &row, &err), 1);
	*planned = row.frontend_url_planned ? srt_xstrdup(row.frontend_url_planned) : NULL;
	*url = row.frontend_url ? srt_xstrdup(row.frontend_url) : NULL;
	srt_run_row_release(&row);
}

/* The agent's status.json in run NAME's directory: phase Ready, this seq and frontend_url. */
static void agent_status(struct fx *f, const char *name, int64_t seq, const char *frontend_url)
{
	struct srt_rundir_status st = { 0 };
	struct srt_error err;
	char *dir = srt_xasprintf("%s/%s", f->root, name);

	st.version = SRT_RUNDIR_VERSION;
	st.seq = seq;
	st.plan_generation = 1;
	st.phase = SRT_RUN_READY;
	st.exit_code = -1;
	st.frontend_url = frontend_url;
	st.updated_at = seq;
	if (srt_rundir_write_status(dir, &st, &err) != 0)
		fail_msg("%s", err.msg);
	free(dir);
}

/*
 * Issue #14: the frontend URL.  The controller records the plan's URL (with
 * placeholders) when it submits, and the agent's bound URL from status.json
 * once it is there; a URL that is not http://HOST:PORT is refused with a
 * Warning and not stored.
 */
static void test_frontend_url_ingested(void **state)
{
	struct fx *f = *state;
	char *planned, *url, *msg;

	apply_with(f, 1, "a", 3, "frontend: {type: sglang-router}\n");
	(void)running(f);
	frontend_of(f, "r1-1-1", &planned, &url);
	assert_string_equal(planned, "http://<prefill_node_0_ip>:8000");
	assert_null(url);
	free(planned);

	/* The agent has not bound the IPs yet: null. */
	agent_status(f, "r1-1-1", 1, NULL);
	pass(f);
	frontend_of(f, "r1-1-1", &planned, &url);
	assert_null(url);
	free(planned);

	agent_status(f, "r1-1-1", 2, "http://10.0.0.1:8000");
	pass(f);
	frontend_of(f, "r1-1-1", &planned, &url);
	assert_string_equal(url, "http://10.0.0.1:8000");
	assert_string_equal(planned, "http://<prefill_node_0_ip>:8000");
	free(planned);
	free(url);
	assert_int_equal(events(f, "r1-1-1", "InvalidFrontendURL", NULL), 0);

	/* Hostile values: a terminal escape, a path, another scheme, too long. */
	{
		char big[SRT_RUNDIR_URL_MAX + 32];
		const char *hostile[] = { "http://10.0.0.1:8000\x1b]0;pwned\x07",
					  "http://10.0.0.1:8000/../admin", "javascript:alert(1)",
					  big };

		memcpy(big, "http://", 7);
		memset(big + 7, 'h', sizeof(big) - 7 - 6);
		memcpy(big + sizeof(big) - 6, ":8000", 6);
		for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
			agent_status(f, "r1-1-1", 10 + (int64_t)i, hostile[i]);
			pass(f);
			frontend_of(f, "r1-1-1", &planned, &url);
			if (url)
				fail_msg("stored '%s' from status.json '%s'", url, hostile[i]);
			free(planned);
			assert_int_equal(events(f, "r1-1-1", "InvalidFrontendURL", &msg),
					 (int64_t)i + 1);
			assert_non_null(strstr(msg, "is not http://HOST:PORT"));
			assert_null(strchr(msg, '\x1b'));
			assert_null(strchr(msg, '\x07'));
			assert_true(strlen(msg) < 512);
			free(msg);
		}
	}

	/* Back to a good URL. */
	agent_status(f, "r1-1-1", 20, "http://[fd00::1]:8000");
	pass(f);
	frontend_of(f, "r1-1-1", &planned, &url);
	assert_string_equal(url, "http://[fd00::1]:8000");
	free(planned);
	free(url);
}

/* A plan without a frontend records none, and an agent reporting none stores none. */
static void test_no_frontend_no_url(void **state)
{
	struct fx *f = *state;
	char *planned, *url;

	apply(f, 1, "a", 3);
	(void)running(f);
	agent_status(f, "r1-1-1", 1, NULL);
	pass(f);
	frontend_of(f, "r1-1-1", &planned, &url);
	assert_null(planned);
	assert_null(url);
}

/* A new generation that needs more nodes replaces the job. */
static void test_generation_that_does_not_fit_needs_a_new_job(void **state)
{
	struct fx *f = *state;
	int64_t job = (apply(f, 1, "a", 3), running(f));
	char *msg = NULL;
	struct run r;

	apply(f, 2, "a", 3);
	pass(f);
	assert_string_equal(run(f, "r1-1-1").phase, "Cancelling");
	assert_int_equal(events(f, "r1-1-1", "JobCancelled", &msg), 1);
	assert_non_null(strstr(msg, "generation 2 needs a new job (job nodes 2 -> 3)"));
	assert_int_equal(srt_slurm_fake_job(f->fake, job)->state, SRT_JOB_CANCELLED);
	pass(f); /* the old run is retired and a run for generation 2 is submitted */
	assert_string_equal(run(f, "r1-1-1").phase, "Cancelled");
	r = run(f, "r1-2-1");
	assert_string_equal(r.phase, "Submitted");
	assert_int_equal(srt_slurm_fake_job(f->fake, r.job_id)->node_count, 3);
	assert_int_equal(srt_slurm_fake_submitted(f->fake), 2);
	free(msg);
}

static void test_delete_cancels_the_job(void **state)
{
	struct fx *f = *state;
	int64_t job = (apply(f, 1, "a", 3), running(f));
	struct srt_error err;

	assert_int_equal(srt_store_begin(f->store, &err), 0);
	assert_int_equal(srt_store_recipe_delete(f->store, "r1", &err), 1);
	assert_int_equal(srt_store_commit(f->store, &err), 0);
	/* the cancel fails once: a Warning, and the next pass tries again */
	srt_slurm_fake_fail(f->fake, SRT_FAKE_CANCEL, SRT_SLURM_ETIMEOUT, 1);
	pass(f);
	assert_string_equal(run(f, "r1-1-1").phase, "Starting");
	assert_int_equal(events(f, "r1-1-1", "CancelFailed", NULL), 1);
	pass(f);
	assert_string_equal(run(f, "r1-1-1").phase, "Cancelling");
	assert_int_equal(srt_slurm_fake_job(f->fake, job)->state, SRT_JOB_CANCELLED);
	pass(f);
	assert_string_equal(run(f, "r1-1-1").phase, "Cancelled");
	pass(f);
	assert_int_equal(srt_slurm_fake_calls(f->fake, SRT_FAKE_CANCEL), 2);
	assert_false(run(f, "r1-1-2").exists);
}

/* slurmrestd down: the intent row, Warnings, and nothing submitted or failed. */
static void test_slurm_down_leaves_the_run_pending(void **state)
{
	struct fx *f = *state;
	char *msg = NULL;

	apply(f, 1, "a", 3);
	srt_slurm_fake_fail(f->fake, SRT_FAKE_LIST_JOBS, SRT_SLURM_EUNREACHABLE, -1);
	srt_slurm_fake_fail(f->fake, SRT_FAKE_SUBMIT, SRT_SLURM_EUNREACHABLE, -1);
	for (int i = 0; i < 3; i++) {
		pass(f);
		assert_false(f->st.slurm_known);
	}
	assert_int_equal(srt_controller_slurm_failures(f->ctl), 3);
	assert_string_equal(run(f, "r1-1-1").phase, "Pending");
	assert_int_equal(run(f, "r1-1-1").job_id, 0);
	assert_int_equal(events(f, "r1-1-1", "RunCreated", NULL), 1);
	assert_int_equal(events(f, "r1-1-1", "SubmitUnknown", NULL), 1);
	assert_int_equal(events(f, "r1-1-1", "SlurmUnavailable", &msg), 2); /* deduplicated */
	assert_non_null(strstr(msg, "UNREACHABLE"));
	assert_non_null(strstr(msg, "nothing is resubmitted, failed or cancelled"));
	assert_int_equal(srt_slurm_fake_calls(f->fake, SRT_FAKE_SUBMIT), 1);
	assert_int_equal(events(f, "r1-1-1", "PhaseFailed", NULL), 0);
	/* it answers again: submitted once */
	srt_slurm_fake_fail(f->fake, SRT_FAKE_LIST_JOBS, 0, 0);
	srt_slurm_fake_fail(f->fake, SRT_FAKE_SUBMIT, 0, 0);
	pass(f);
	assert_true(f->st.slurm_known);
	assert_int_equal(srt_controller_slurm_failures(f->ctl), 0);
	assert_string_equal(run(f, "r1-1-1").phase, "Submitted");
	assert_int_equal(srt_slurm_fake_submitted(f->fake), 1);
	free(msg);
}

/* A running job down with slurmrestd stays as it was. */
static void test_slurm_down_never_fails_a_running_job(void **state)
{
	struct fx *f = *state;
	int64_t job = (apply(f, 1, "a", 3), running(f));

	srt_slurm_fake_fail(f->fake, SRT_FAKE_LIST_JOBS, SRT_SLURM_ETIMEOUT, -1);
	srt_slurm_fake_fail(f->fake, SRT_FAKE_GET_JOB, SRT_SLURM_ETIMEOUT, -1);
	srt_slurm_fake_purge(f->fake, job); /* even when it is gone meanwhile */
	for (int i = 0; i < 3; i++)
		pass(f);
	assert_string_equal(run(f, "r1-1-1").phase, "Starting");
	assert_int_equal(run(f, "r1-1-1").job_id, job);
	assert_int_equal(srt_slurm_fake_submitted(f->fake), 1);
}

/* A job purged (MinJobAge) before the controller saw it end. */
static void test_purged_job_is_gone(void **state)
{
	struct fx *f = *state;
	int64_t job = (apply(f, 1, "a", 3), running(f));
	char *msg = NULL;

	srt_slurm_fake_purge(f->fake, job);
	/* the direct look-up is unknown once: nothing is decided */
	srt_slurm_fake_fail(f->fake, SRT_FAKE_GET_JOB, SRT_SLURM_ETIMEOUT, 1);
	pass(f);
	assert_string_equal(run(f, "r1-1-1").phase, "Starting");
	pass(f);
	assert_string_equal(run(f, "r1-1-1").phase, "Failed");
	assert_int_equal(events(f, "r1-1-1", "JobGone", &msg), 1);
	assert_non_null(strstr(msg, "purged after MinJobAge"));
	assert_int_equal(srt_slurm_fake_calls(f->fake, SRT_FAKE_GET_JOB), 2);
	pass(f); /* then a new attempt */
	assert_string_equal(run(f, "r1-1-2").phase, "Submitted");
	free(msg);
}

/* A job missing from the listing but there when asked (the listing raced) is left alone. */
static void test_listing_race_is_not_gone(void **state)
{
	struct fx *f = *state;
	int64_t job = (apply(f, 1, "a", 3), running(f));

	srt_slurm_fake_hide(f->fake, job, true);
	pass(f);
	pass(f);
	assert_string_equal(run(f, "r1-1-1").phase, "Starting");
	assert_int_equal(events(f, "r1-1-1", "JobGone", NULL), 0);
	assert_int_equal(srt_slurm_fake_calls(f->fake, SRT_FAKE_GET_JOB), 2);
	srt_slurm_fake_hide(f->fake, job, false);
	srt_slurm_fake_set_state(f->fake, job, SRT_JOB_COMPLETED, 0, NULL);
	pass(f);
	assert_string_equal(run(f, "r1-1-1").phase, "Succeeded");
	assert_int_equal(srt_slurm_fake_submitted(f->fake), 1);
}

/* The controller's own crash: a new handle over the same database finds its job. */
static void test_crash_resume_adopts(void **state)
{
	struct fx *f = *state;
	struct srt_error err;

	apply(f, 1, "a", 3);
	srt_slurm_fake_lose_reply(f->fake, SRT_SLURM_EUNREACHABLE, 1);
	pass(f);
	assert_int_equal(run(f, "r1-1-1").job_id, 0);
	/* "killed": the handle and the store go; a new controller starts */
	srt_controller_free(f->ctl);
	srt_store_close(f->store);
	assert_int_equal(srt_store_open(&f->store, f->db, 0, NULL, &err), 0);
	f->ctl = new_controller(f);
	pass(f);
	assert_string_equal(run(f, "r1-1-1").phase, "Submitted");
	assert_int_equal(run(f, "r1-1-1").job_id, 1000);
	assert_int_equal(events(f, "r1-1-1", "JobAdopted", NULL), 1);
	srt_slurm_fake_set_state(f->fake, 1000, SRT_JOB_RUNNING, -1, NULL);
	/* and once more, with a job it knows: it follows it, submits nothing */
	srt_controller_free(f->ctl);
	f->ctl = new_controller(f);
	pass(f);
	assert_string_equal(run(f, "r1-1-1").phase, "Starting");
	assert_int_equal(srt_slurm_fake_submitted(f->fake), 1);
}

/* Make every event insert fail (or work again), from a second connection. */
static void break_events(struct fx *f, bool broken)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(f->db, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      broken ? "CREATE TRIGGER no_events BEFORE INSERT ON events "
					       "BEGIN SELECT RAISE(ABORT, 'injected'); END;" :
					       "DROP TRIGGER no_events;",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
}

/*
 * An effect whose event cannot be written changes nothing (one transaction),
 * fails the pass with the object named, and is retried by the next pass.
 */
static void test_effect_error_is_propagated_and_retried(void **state)
{
	struct fx *f = *state;
	struct srt_error err;
	int64_t job;

	apply(f, 1, "a", 3);
	break_events(f, true);
	assert_int_equal(srt_controller_pass(f->ctl, &f->st, &err), -1);
	assert_int_equal(f->st.action_errors, 1);
	assert_non_null(strstr(err.msg, "recipe/r1: "));
	assert_false(run(f, "r1-1-1").exists); /* no run without its RunCreated */
	break_events(f, false);
	job = running(f);
	srt_slurm_fake_set_state(f->fake, job, SRT_JOB_FAILED, 2, NULL);
	break_events(f, true);
	assert_int_equal(srt_controller_pass(f->ctl, &f->st, &err), -1);
	assert_non_null(strstr(err.msg, "run/r1-1-1: "));
	assert_string_equal(run(f, "r1-1-1").phase, "Starting"); /* no phase without its event */
	break_events(f, false);
	pass(f);
	assert_string_equal(run(f, "r1-1-1").phase, "Failed");
	assert_int_equal(events(f, "r1-1-1", "PhaseFailed", NULL), 1);
}

/* ---- the loop ---- */

struct loop_probe {
	int64_t waits[16];
	int nwaits, passes, failed, ticks;
	int stop_after; /* SIGTERM during this sleep */
};

static void probe_sleep(void *arg, int64_t ms)
{
	struct loop_probe *p = arg;

	p->waits[p->nwaits++] = ms;
	if (p->nwaits == p->stop_after)
		raise(SIGTERM); /* the loop's handler: stop between passes */
}

static void probe_pass(void *arg, int rc, const struct srt_pass_stats *st,
		       const struct srt_error *err)
{
	struct loop_probe *p = arg;

	(void)st;
	(void)err;
	p->passes++;
	p->failed += rc != 0;
}

/* srt_controller_run() every second, observed by the probe. */
static int run_loop(struct fx *f, bool once, struct loop_probe *p)
{
	struct srt_error err;

	return srt_controller_run(f->ctl,
				  &(struct srt_controller_loop){
					  .interval_ms = 1000,
					  .once = once,
					  .on_pass = probe_pass,
					  .sleep_ms = probe_sleep,
					  .arg = p,
				  },
				  &err);
}

static void test_loop_backs_off_and_stops_on_sigterm(void **state)
{
	struct fx *f = *state;
	struct loop_probe p = { .stop_after = 4 };

	apply(f, 1, "a", 3);
	srt_slurm_fake_fail(f->fake, SRT_FAKE_LIST_JOBS, SRT_SLURM_EUNREACHABLE, 3);
	assert_int_equal(run_loop(f, false, &p), 0);
	assert_int_equal(p.passes, 4);
	assert_int_equal(p.failed, 0);
	assert_int_equal(p.nwaits, 4);
	assert_int_equal(p.waits[0], 2000); /* 1 failed listing */
	assert_int_equal(p.waits[1], 4000);
	assert_int_equal(p.waits[2], 8000);
	assert_int_equal(p.waits[3], 1000); /* answers again */
	assert_string_equal(run(f, "r1-1-1").phase, "Submitted");
}

static void test_loop_once(void **state)
{
	struct fx *f = *state;
	struct loop_probe p = { .stop_after = -1 };

	apply(f, 1, "a", 3);
	assert_int_equal(run_loop(f, true, &p), 0);
	assert_int_equal(p.passes, 1);
	assert_int_equal(p.nwaits, 0);
	assert_string_equal(run(f, "r1-1-1").phase, "Submitted");
}

static void probe_tick(void *arg)
{
	((struct loop_probe *)arg)->ticks++;
}

/* A wait longer than tick_ms is slept in slices with a tick after each (the watchdog). */
static void test_loop_ticks_while_it_waits(void **state)
{
	struct fx *f = *state;
	struct loop_probe p = { .stop_after = 5 };
	struct srt_error err;

	apply(f, 1, "a", 3);
	assert_int_equal(srt_controller_run(f->ctl,
					    &(struct srt_controller_loop){
						    .interval_ms = 1000,
						    .on_pass = probe_pass,
						    .sleep_ms = probe_sleep,
						    .tick_ms = 400,
						    .on_tick = probe_tick,
						    .arg = &p,
					    },
					    &err),
			 0);
	assert_int_equal(p.passes, 2);
	assert_int_equal(p.nwaits, 5);
	assert_int_equal(p.waits[0], 400);
	assert_int_equal(p.waits[1], 400);
	assert_int_equal(p.waits[2], 200);
	assert_int_equal(p.waits[3], 400);
	assert_int_equal(p.waits[4], 400);
	assert_int_equal(p.ticks, 4); /* none once SIGTERM came in the fifth slice */
}

static void test_backoff(void **state)
{
	(void)state;
	assert_int_equal(srt_controller_backoff_ms(5000, 0), 5000);
	assert_int_equal(srt_controller_backoff_ms(5000, 1), 10000);
	assert_int_equal(srt_controller_backoff_ms(5000, 3), 40000);
	assert_int_equal(srt_controller_backoff_ms(5000, 4), 60000);
	assert_int_equal(srt_controller_backoff_ms(5000, 1000), 60000);
	assert_int_equal(srt_controller_backoff_ms(200, 2), 800);
	/* an interval longer than the cap is kept */
	assert_int_equal(srt_controller_backoff_ms(300000, 0), 300000);
	assert_int_equal(srt_controller_backoff_ms(300000, 5), 300000);
}

static void test_new_refuses_a_relative_root(void **state)
{
	struct fx *f = *state;
	struct srt_controller *c = (struct srt_controller *)1;
	struct srt_error err;

	assert_int_equal(srt_controller_new(&c,
					    &(struct srt_controller_config){
						    .store = f->store,
						    .slurm = srt_slurm_fake_client(f->fake),
						    .cluster = &f->cl,
						    .run_root = "outputs",
					    },
					    &err),
			 -1);
	assert_null(c);
	assert_string_equal(err.msg, "the run root 'outputs' is not an absolute path");
	srt_controller_free(NULL);
}

/* ---- campaigns (issue #15) ---- */

/* Apply campaign YAML `y` (an inline template) as `srtctl apply` does. */
static void apply_campaign(struct fx *f, const char *y)
{
	struct srt_diags d;
	struct srt_error err;
	struct srt_campaign_plan plan;
	struct srt_ydoc *doc;
	struct srt_campaign *c;
	struct srt_store_campaign_deployment *deps;
	struct srt_store_campaign_point *pts;

	srt_diags_init(&d);
	doc = srt_ydoc_parse(y, strlen(y), "c.yaml", &d);
	assert_non_null(doc);
	c = srt_campaign_parse(doc, &d);
	assert_non_null(c);
	if (srt_campaign_expand(c, doc, c->template_node, &f->cl, &plan, &d)) {
		srt_diags_print(&d, stderr);
		fail_msg("the campaign does not expand");
	}
	deps = srt_xcalloc(plan.ndeployments, sizeof(*deps));
	pts = srt_xcalloc(plan.npoints, sizeof(*pts));
	for (size_t i = 0; i < plan.ndeployments; i++)
		deps[i] = (struct srt_store_campaign_deployment){ plan.deployments[i].name,
								  plan.deployments[i].axes,
								  plan.deployments[i].spec,
								  plan.deployments[i].spec_hash,
								  plan.deployments[i].nodes };
	for (size_t i = 0; i < plan.npoints; i++)
		pts[i] = (struct srt_store_campaign_point){
			plan.points[i].id,	plan.points[i].deployment,
			plan.points[i].seq,	plan.points[i].isl,
			plan.points[i].osl,	plan.points[i].concurrency,
			plan.points[i].prompts, plan.points[i].warmup,
			plan.points[i].repeat
		};
	assert_int_equal(srt_store_campaign_apply(
				 f->store,
				 &(struct srt_store_campaign_in){ .name = c->name,
								  .spec = plan.spec,
								  .spec_hash = plan.spec_hash,
								  .tool = "vllm-bench",
								  .params = plan.bench_params,
								  .deployments = deps,
								  .ndeployments = plan.ndeployments,
								  .points = pts,
								  .npoints = plan.npoints },
				 NULL, NULL, NULL, &err),
			 0);
	free(deps);
	free(pts);
	srt_campaign_plan_release(&plan);
	srt_ydoc_free(doc);
	srt_diags_release(&d);
}

#define CC_HEAD                                                    \
	"kind: Campaign\n"                                         \
	"name: cc\n"                                               \
	"template:\n"                                              \
	"  engine: sglang\n"                                       \
	"  model: {path: /models/m, container: img}\n"             \
	"  resources: {gpus_per_node: 4}\n"                        \
	"  roles:\n"                                               \
	"    agg: {workers: 1, args: {tensor-parallel-size: 1}}\n" \
	"  frontend: {type: sglang-router}\n"
#define CC_LOAD                             \
	"load:\n"                           \
	"  shapes: [{isl: 128, osl: 16}]\n" \
	"  concurrency: [1, 2]\n"           \
	"benchmark: {tool: vllm-bench}\n"

static const char CAMPAIGN[] = CC_HEAD
	"deployments:\n"
	"  grid:\n"
	"    roles.agg.args.tensor-parallel-size: [1, 2, 4]\n" CC_LOAD
	"policy: {maxConcurrentJobs: 2}\n";

/* The campaign's points by seq of deployment `dep`. */
static struct srt_point_row *points_of(struct fx *f, size_t *n)
{
	struct srt_point_row *rows;
	struct srt_error err;

	assert_int_equal(srt_store_point_list(f->store, "cc", false, &rows, n, &err), 0);
	return rows;
}

/* The agent of run `run` reports point `id` started and finished `state`, with a raw file. */
static void report_point(struct fx *f, const char *run, const char *id, int64_t seq,
			 const char *state, const char *raw, const char *sha_override)
{
	char *dir = srt_xasprintf("%s/%s", f->root, run);
	char *pdir = srt_xasprintf("%s/points", dir);
	char *rel = srt_xasprintf("points/%04lld-%.12s-a1.json", (long long)seq, id);
	char *abs = srt_xasprintf("%s/%s", dir, rel);
	struct srt_rundir_events w;
	struct srt_point_report r = { .seq = seq,
				      .attempts = 1,
				      .state = state,
				      .exit_code = 0,
				      .raw_path = rel,
				      .started_at = 1,
				      .finished_at = 2,
				      .slo_met = -1 };
	char sha[65];
	struct srt_error err;
	json_t *pj;
	FILE *fp;

	snprintf(r.id, sizeof(r.id), "%s", id);
	for (int k = 0; k < SRT_POINT_NMETRICS; k++)
		r.metrics[k] = NAN;
	r.metrics[0] = 10;
	(void)mkdir(pdir, 0700);
	fp = fopen(abs, "w");
	assert_non_null(fp);
	fputs(raw, fp);
	fclose(fp);
	srt_sha256_hex(raw, strlen(raw), sha);
	r.raw_sha256 = sha_override ? sha_override : sha;
	assert_int_equal(srt_rundir_events_open(&w, dir, &err), 0);
	pj = srt_point_attempt_json(id, seq, 1, NULL, NULL);
	assert_int_equal(
		srt_rundir_events_append(&w,
					 &(struct srt_rundir_event){ .time = 1,
								     .reason = "PointStarted",
								     .object_kind = "run",
								     .object_name = run,
								     .object_index = -1,
								     .message = "started",
								     .point = pj },
					 &err),
		0);
	json_decref(pj);
	pj = srt_point_report_json(&r);
	assert_int_equal(
		srt_rundir_events_append(&w,
					 &(struct srt_rundir_event){ .time = 2,
								     .reason = "PointFinished",
								     .object_kind = "run",
								     .object_name = run,
								     .object_index = -1,
								     .message = "finished",
								     .point = pj },
					 &err),
		0);
	json_decref(pj);
	srt_rundir_events_close(&w);
	free(dir);
	free(pdir);
	free(rel);
	free(abs);
}

/*
 * The controller drives a campaign: at most maxConcurrentJobs deployments
 * active, points.json for each run, the agent's point reports ingested once
 * (a raw file that does not match its sha256 makes the point invalid), a run
 * that ends with points left gives them back and runs again later.
 */
static void test_campaign_drives_deployments(void **state)
{
	struct fx *f = *state;
	struct srt_recipe_row *recipes;
	struct srt_point_row *pts;
	struct srt_points_file pf;
	struct srt_error err;
	char *runs[2], *pdir;
	size_t n, nr, active = 0;

	apply_campaign(f, CAMPAIGN);
	pass(f); /* activates 2 of 3 deployments */
	assert_int_equal(srt_store_recipe_list(f->store, false, &recipes, &nr, &err), 0);
	assert_int_equal(nr, 2);
	for (size_t i = 0; i < nr; i++)
		runs[i] = srt_xasprintf("%s-1-1", recipes[i].name);
	srt_recipe_rows_free(recipes, nr);
	pass(f); /* creates and submits their runs */
	for (size_t i = 0; i < 2; i++) {
		struct run r = run(f, runs[i]);

		assert_string_equal(r.phase, "Submitted");
		pdir = srt_xasprintf("%s/%s", f->root, runs[i]);
		assert_int_equal(srt_points_read(pdir, &pf, &err), 0);
		assert_int_equal(pf.npoints, 2);
		assert_int_equal(pf.points[0].load.concurrency, 1);
		assert_int_equal(pf.points[1].load.prompts, 20);
		srt_points_file_release(&pf);
		free(pdir);
		assert_int_equal(
			srt_slurm_fake_set_state(f->fake, r.job_id, SRT_JOB_RUNNING, -1, NULL), 0);
	}
	pass(f);
	pass(f); /* a third deployment does not start: the cap */
	assert_int_equal(srt_store_recipe_list(f->store, false, &recipes, &nr, &err), 0);
	assert_int_equal(nr, 2);
	srt_recipe_rows_free(recipes, nr);

	/* Run 0 reports its first point done; its second point's file does not match its hash. */
	pts = points_of(f, &n);
	assert_int_equal(n, 6);
	{
		char id0[65], id1[65];

		for (size_t i = 0, k = 0; i < n && k < 2; i++)
			if (pts[i].run_name && !strcmp(pts[i].run_name, runs[0]))
				snprintf(k++ ? id1 : id0, 65, "%s", pts[i].point_id);
		srt_point_rows_free(pts, n);
		report_point(f, runs[0], id0, 1, "done", "{\"completed\": 10}", NULL);
		pass(f);
		report_point(f, runs[0], id1, 2, "done", "{\"completed\": 20}",
			     "0000000000000000000000000000000000000000000000000000000000000000");
		pass(f);
		pass(f); /* read again: nothing changes twice */
	}
	pts = points_of(f, &n);
	for (size_t i = 0; i < n; i++) {
		if (!pts[i].run_name || strcmp(pts[i].run_name, runs[0]))
			continue;
		if (pts[i].seq == 1) {
			assert_string_equal(pts[i].state, "done");
			assert_non_null(pts[i].raw_sha256);
			assert_int_equal(strlen(pts[i].raw_sha256), 64);
			assert_true(pts[i].metrics[0] == 10);
			assert_int_equal(pts[i].attempts, 1);
		} else {
			assert_string_equal(pts[i].state, "invalid");
			assert_non_null(strstr(pts[i].message, "cannot be trusted"));
		}
	}
	srt_point_rows_free(pts, n);

	/*
	 * Run 1's first point: its points/ is a link planted by the job's user
	 * (to a directory with a file whose hash matches): the controller follows
	 * no link, so the point is invalid and nothing is read through it.
	 */
	{
		char *link = srt_xasprintf("%s/%s/points", f->root, runs[1]);
		char *real = srt_xasprintf("%s/elsewhere", f->dir);
		char id[65] = "";

		assert_int_equal(mkdir(real, 0700), 0);
		assert_int_equal(symlink(real, link), 0);
		pts = points_of(f, &n);
		for (size_t i = 0; i < n; i++)
			if (pts[i].run_name && !strcmp(pts[i].run_name, runs[1]) && pts[i].seq == 1)
				snprintf(id, sizeof(id), "%s", pts[i].point_id);
		srt_point_rows_free(pts, n);
		report_point(f, runs[1], id, 1, "done", "{\"completed\": 10}", NULL);
		pass(f);
		pts = points_of(f, &n);
		for (size_t i = 0; i < n; i++)
			if (!strcmp(pts[i].point_id, id)) {
				assert_string_equal(pts[i].state, "invalid");
				assert_non_null(strstr(pts[i].message, "without following a link"));
				assert_null(pts[i].raw_sha256);
			}
		srt_point_rows_free(pts, n);
		free(link);
		free(real);
	}

	/* Run 1 ends (its job completed) with its second point unreported: retired, then again. */
	{
		struct run r = run(f, runs[1]);

		assert_int_equal(
			srt_slurm_fake_set_state(f->fake, r.job_id, SRT_JOB_COMPLETED, 0, NULL), 0);
	}
	pass(f); /* the run Succeeded */
	pass(f); /* retired; the third deployment starts in the free slot */
	pass(f);
	assert_int_equal(srt_store_recipe_list(f->store, false, &recipes, &nr, &err), 0);
	for (size_t i = 0; i < nr; i++)
		active += strncmp(runs[1], recipes[i].name, strlen(recipes[i].name)) != 0;
	assert_int_equal(nr, 2);
	srt_recipe_rows_free(recipes, nr);
	assert_int_equal(active, 2); /* run 0's deployment and the third; run 1's is retired */
	pts = points_of(f, &n);
	for (size_t i = 0; i < n; i++)
		if (pts[i].run_name && !strcmp(pts[i].run_name, runs[1]) && pts[i].seq == 2)
			assert_string_equal(pts[i].state, "pending"); /* it runs again later */
	srt_point_rows_free(pts, n);
	for (size_t i = 0; i < 2; i++)
		free(runs[i]);
}

/*
 * A deployment's job that ends for the cluster's reasons (NODE_FAIL) spends
 * none of its attempts: it runs again as a new generation, its points kept.
 * One that fails for its own (FAILED) with its attempts spent fails them.
 */
static void test_campaign_infrastructure_end(void **state)
{
	struct fx *f = *state;
	struct srt_recipe_row *recipes;
	struct srt_point_row *pts;
	struct srt_error err;
	char *name, *run1, *run2;
	size_t n, nr;
	struct run r;

	apply_campaign(f, CC_HEAD CC_LOAD "policy: {maxConcurrentJobs: 1, jobAttempts: 1}\n");
	pass(f);
	assert_int_equal(srt_store_recipe_list(f->store, false, &recipes, &nr, &err), 0);
	assert_int_equal(nr, 1);
	name = srt_xstrdup(recipes[0].name);
	srt_recipe_rows_free(recipes, nr);
	run1 = srt_xasprintf("%s-1-1", name);
	run2 = srt_xasprintf("%s-2-1", name);
	pass(f);
	r = run(f, run1);
	assert_int_equal(srt_slurm_fake_set_state(f->fake, r.job_id, SRT_JOB_NODE_FAIL, -1, NULL),
			 0);
	for (int i = 0; i < 4; i++)
		pass(f);
	assert_string_equal(run(f, run1).phase, "Failed");
	r = run(f, run2);
	assert_true(r.exists); /* a new generation, a new job */
	assert_string_equal(r.phase, "Submitted");
	pts = points_of(f, &n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(pts[i].state, "pending");
	srt_point_rows_free(pts, n);

	/* Its own failure, attempts spent: the points fail. */
	assert_int_equal(srt_slurm_fake_set_state(f->fake, r.job_id, SRT_JOB_FAILED, 1, NULL), 0);
	for (int i = 0; i < 3; i++)
		pass(f);
	pts = points_of(f, &n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(pts[i].state, "failed");
	srt_point_rows_free(pts, n);
	free(name);
	free(run1);
	free(run2);
}

/* Campaign cc's events with this reason (summed counts); *message gets the last one's. */
static int64_t cc_events(struct fx *f, const char *reason, char **message)
{
	return events_of(f, "campaign", "cc", reason, message);
}

static char *cc_state(struct fx *f)
{
	struct srt_campaign_row c;
	struct srt_error err;
	char *st;

	assert_int_equal(srt_store_campaign_get(f->store, "cc", &c, &err), 1);
	st = srt_xstrdup(c.state);
	srt_campaign_row_release(&c);
	return st;
}

/* The one active deployment's run (generation 1, attempt 1), submitted: its name. */
static char *cc_first_run(struct fx *f)
{
	struct srt_recipe_row *recipes;
	struct srt_error err;
	size_t nr;
	char *run_name;

	pass(f);
	assert_int_equal(srt_store_recipe_list(f->store, false, &recipes, &nr, &err), 0);
	assert_int_equal(nr, 1);
	run_name = srt_xasprintf("%s-1-1", recipes[0].name);
	srt_recipe_rows_free(recipes, nr);
	pass(f);
	return run_name;
}

/*
 * policy.maxFailedPoints: the failed point that reaches it stops the
 * campaign (Stopped, one event saying why); the running deployment ends,
 * no other starts.
 */
static void test_campaign_max_failed_points(void **state)
{
	struct fx *f = *state;
	struct srt_point_row *pts;
	char *run_name, *msg, *st;
	size_t n;
	struct run r;

	apply_campaign(f, CC_HEAD "deployments:\n  grid:\n"
				  "    roles.agg.args.tensor-parallel-size: [1, 2, 4]\n" CC_LOAD
				  "policy: {maxConcurrentJobs: 1, maxFailedPoints: 1}\n");
	run_name = cc_first_run(f);
	r = run(f, run_name);
	assert_int_equal(srt_slurm_fake_set_state(f->fake, r.job_id, SRT_JOB_RUNNING, -1, NULL), 0);
	pass(f);
	pts = points_of(f, &n);
	for (size_t i = 0; i < n; i++)
		if (pts[i].run_name && !strcmp(pts[i].run_name, run_name) && pts[i].seq == 1)
			report_point(f, run_name, pts[i].point_id, 1, "failed", "{}", NULL);
	srt_point_rows_free(pts, n);
	pass(f);
	st = cc_state(f);
	assert_string_equal(st, "Stopped");
	free(st);
	assert_int_equal(cc_events(f, "Stopped", &msg), 1);
	assert_non_null(strstr(msg, "maxFailedPoints"));
	free(msg);
	/* the running deployment ends; nothing else starts */
	assert_int_equal(srt_slurm_fake_set_state(f->fake, r.job_id, SRT_JOB_COMPLETED, 0, NULL),
			 0);
	for (int i = 0; i < 4; i++)
		pass(f);
	assert_int_equal(cc_events(f, "DeploymentStarted", NULL), 1);
	st = cc_state(f);
	assert_string_equal(st, "Stopped");
	free(st);
	free(run_name);
}

/*
 * budget.nodeHours counts SLURM's start and end of each job: a deployment
 * whose job ran an hour between two controller passes (srtctl never saw it
 * running) spends the budget, and no other deployment starts.
 */
static void test_campaign_budget_from_slurm_times(void **state)
{
	struct fx *f = *state;
	char *run_name, *msg, *st;
	struct run r;

	apply_campaign(f, CC_HEAD "deployments:\n  grid:\n"
				  "    roles.agg.args.tensor-parallel-size: [1, 2, 4]\n" CC_LOAD
				  "policy: {maxConcurrentJobs: 1, budget: {nodeHours: 1}}\n");
	run_name = cc_first_run(f);
	r = run(f, run_name);
	assert_string_equal(r.phase, "Submitted");
	assert_int_equal(srt_slurm_fake_set_state(f->fake, r.job_id, SRT_JOB_COMPLETED, 0, NULL),
			 0);
	assert_int_equal(srt_slurm_fake_set_times(f->fake, r.job_id, 1800000000, 1800003601), 0);
	for (int i = 0; i < 4; i++)
		pass(f);
	assert_string_equal(run(f, run_name).phase, "Succeeded");
	st = cc_state(f);
	assert_string_equal(st, "OutOfBudget");
	free(st);
	assert_int_equal(cc_events(f, "OutOfBudget", &msg), 1);
	assert_non_null(strstr(msg, "1.0 of 1.0 node-hours"));
	free(msg);
	assert_int_equal(cc_events(f, "DeploymentStarted", NULL), 1);
	free(run_name);
}

/*
 * Once nothing changes the campaign step is skipped; a commit from another
 * connection (`srtctl delete campaign`) is a change: the next pass acts on it.
 */
static void test_campaign_step_wakes_on_another_connection(void **state)
{
	struct fx *f = *state;
	struct srt_store *other;
	struct srt_recipe_row *recipes;
	struct srt_error err;
	size_t nr;
	char *run_name;

	apply_campaign(f, CC_HEAD "deployments:\n  grid:\n"
				  "    roles.agg.args.tensor-parallel-size: [1, 2]\n" CC_LOAD
				  "policy: {maxConcurrentJobs: 1}\n");
	run_name = cc_first_run(f);
	for (int i = 0; i < 3; i++)
		pass(f); /* settled: the job pends, nothing is written */
	assert_int_equal(f->st.actions, 0);
	assert_int_equal(srt_store_open(&other, f->db, 0, NULL, &err), 0);
	assert_int_equal(srt_store_campaign_delete(other, "cc", &err), 1);
	srt_store_close(other);
	pass(f);
	assert_int_equal(srt_store_recipe_list(f->store, false, &recipes, &nr, &err), 0);
	srt_recipe_rows_free(recipes, nr);
	assert_int_equal(nr, 0); /* its deployment retired: its child recipe deleted */
	assert_int_equal(cc_events(f, "DeploymentEnded", NULL), 1);
	free(run_name);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_submit_once_when_the_reply_is_lost),
		T(test_loop_ticks_while_it_waits),
		T(test_submit_unknown_then_submitted),
		T(test_submit_rejected),
		T(test_failed_attempts_restart_up_to_max),
		T(test_generation_that_fits_rolls_out_in_place),
		T(test_generation_that_does_not_fit_needs_a_new_job),
		T(test_frontend_url_ingested),
		T(test_campaign_drives_deployments),
		T(test_campaign_infrastructure_end),
		T(test_campaign_max_failed_points),
		T(test_campaign_budget_from_slurm_times),
		T(test_campaign_step_wakes_on_another_connection),
		T(test_no_frontend_no_url),
		T(test_delete_cancels_the_job),
		T(test_slurm_down_leaves_the_run_pending),
		T(test_slurm_down_never_fails_a_running_job),
		T(test_purged_job_is_gone),
		T(test_listing_race_is_not_gone),
		T(test_crash_resume_adopts),
		T(test_effect_error_is_propagated_and_retried),
		T(test_loop_backs_off_and_stops_on_sigterm),
		T(test_loop_once),
		T(test_backoff),
		T(test_new_refuses_a_relative_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
