/* tests/unit/test_reconcile_runs.c: reconcilers/runs.c, world in -> actions out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "reconcilers/runs.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct srt_rc_actions decide(const struct srt_rc_recipe *rs, size_t nr,
				    const struct srt_rc_run *runs, size_t nruns,
				    const struct srt_rc_job *jobs, size_t njobs, bool known)
{
	struct srt_rc_world w = { rs, nr, runs, nruns, jobs, njobs, known, NULL };
	struct srt_rc_actions a = { 0 };

	srt_reconcile_runs(&w, &a);
	return a;
}

static const struct srt_rc_recipe R1 = { "r1", 1, false, 3, NULL, NULL };

static void test_new_recipe_gets_a_run(void **state)
{
	struct srt_rc_actions a = decide(&R1, 1, NULL, 0, NULL, 0, false);

	(void)state;
	/* even with SLURM unknown: creating the intent row is safe */
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, SRT_RC_CREATE_RUN);
	assert_string_equal(a.v[0].recipe, "r1");
	assert_int_equal(a.v[0].generation, 1);
	assert_int_equal(a.v[0].attempt, 1);
	srt_rc_actions_release(&a);
}

static void test_pending_run_submitted_only_when_listing_known(void **state)
{
	struct srt_rc_run run = {
		"r1-1-1", "r1", 1, 1, SRT_RC_PENDING, 0, "srtctl:u1:1", SRT_RC_AGENT_NONE,
		NULL,	  NULL, 0, 0
	};
	struct srt_rc_actions a = decide(&R1, 1, &run, 1, NULL, 0, false);

	(void)state;
	/* unknown: never submit; only say that the job state is unknown */
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, SRT_RC_SLURM_UNKNOWN);
	assert_string_equal(a.v[0].run, "r1-1-1");
	srt_rc_actions_release(&a);
	a = decide(&R1, 1, &run, 1, NULL, 0, true);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, SRT_RC_SUBMIT);
	assert_string_equal(a.v[0].run, "r1-1-1");
	srt_rc_actions_release(&a);
}

static void test_crash_after_submit_adopts(void **state)
{
	struct srt_rc_run run = {
		"r1-1-1", "r1", 1, 1, SRT_RC_PENDING, 0, "srtctl:u1:1", SRT_RC_AGENT_NONE,
		NULL,	  NULL, 0, 0
	};
	struct srt_rc_job jobs[] = {
		{ 40, "srtctl:other:1", SRT_JOB_RUNNING, -1, "None", 0, 0 },
		{ 41, "srtctl:u1:1", SRT_JOB_PENDING, -1, "Priority", 0, 0 },
	};
	struct srt_rc_actions a = decide(&R1, 1, &run, 1, jobs, N(jobs), true);

	(void)state;
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, SRT_RC_ADOPT);
	assert_int_equal(a.v[0].job_id, 41);
	srt_rc_actions_release(&a);
}

static void test_phases_follow_job_and_agent(void **state)
{
	static const struct {
		enum srt_job_state js;
		enum srt_rc_agent ag;
		enum srt_rc_phase want;
	} cases[] = {
		{ SRT_JOB_PENDING, SRT_RC_AGENT_NONE, SRT_RC_SUBMITTED },
		{ SRT_JOB_RUNNING, SRT_RC_AGENT_NONE, SRT_RC_STARTING },
		{ SRT_JOB_RUNNING, SRT_RC_AGENT_READY, SRT_RC_READY },
		{ SRT_JOB_RUNNING, SRT_RC_AGENT_DEGRADED, SRT_RC_DEGRADED },
		{ SRT_JOB_COMPLETED, SRT_RC_AGENT_SUCCEEDED, SRT_RC_SUCCEEDED },
		{ SRT_JOB_COMPLETED, SRT_RC_AGENT_FAILED, SRT_RC_FAILED },
		{ SRT_JOB_FAILED, SRT_RC_AGENT_FAILED, SRT_RC_FAILED },
		{ SRT_JOB_TIMEOUT, SRT_RC_AGENT_READY, SRT_RC_FAILED },
		{ SRT_JOB_NODE_FAIL, SRT_RC_AGENT_READY, SRT_RC_FAILED },
		{ SRT_JOB_PREEMPTED, SRT_RC_AGENT_READY, SRT_RC_FAILED },
		{ SRT_JOB_CANCELLED, SRT_RC_AGENT_STOPPED, SRT_RC_CANCELLED },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		struct srt_rc_run run = {
			"r1-1-1", "r1", 1, 1, SRT_RC_SUBMITTED, 7, "srtctl:u1:1", cases[i].ag,
			NULL,	  NULL, 0, 0
		};
		struct srt_rc_job job = { 7, "srtctl:u1:1", cases[i].js, 3, "None", 0, 0 };
		struct srt_rc_actions a = decide(&R1, 1, &run, 1, &job, 1, true);

		if (cases[i].want == SRT_RC_SUBMITTED) {
			assert_int_equal(a.n, 0); /* no change */
		} else {
			assert_int_equal(a.n, 1);
			assert_int_equal(a.v[0].kind, SRT_RC_SET_PHASE);
			assert_int_equal(a.v[0].phase, cases[i].want);
		}
		srt_rc_actions_release(&a);
	}
}

static void test_failed_job_message(void **state)
{
	struct srt_rc_run run = {
		"r1-1-1", "r1", 1, 1, SRT_RC_STARTING, 7, "srtctl:u1:1", SRT_RC_AGENT_NONE,
		NULL,	  NULL, 0, 0
	};
	struct srt_rc_job job = { 7, "srtctl:u1:1", SRT_JOB_FAILED, 3, "NonZeroExitCode", 0, 0 };
	struct srt_rc_actions a = decide(&R1, 1, &run, 1, &job, 1, true);

	(void)state;
	assert_int_equal(a.n, 1);
	assert_string_equal(a.v[0].message, "job 7 FAILED (exit code 3)");
	assert_true(a.v[0].warning);
	srt_rc_actions_release(&a);
}

static void test_unknown_is_never_dead(void **state)
{
	struct srt_rc_run run = {
		"r1-1-1", "r1", 1, 1, SRT_RC_STARTING, 7, "srtctl:u1:1", SRT_RC_AGENT_NONE,
		NULL,	  NULL, 0, 0
	};
	struct srt_rc_run done = {
		"r1-0-1", "r1", 1, 0, SRT_RC_SUCCEEDED, 6, "srtctl:u0:1", SRT_RC_AGENT_NONE,
		NULL,	  NULL, 0, 0
	};
	struct srt_rc_run both[2];
	struct srt_rc_actions a = decide(&R1, 1, &run, 1, NULL, 0, false);

	(void)state;
	assert_int_equal(a.n, 1); /* nothing failed or resubmitted: the state is unknown */
	assert_int_equal(a.v[0].kind, SRT_RC_SLURM_UNKNOWN);
	srt_rc_actions_release(&a);
	/* the agent's Ready still counts while SLURM is unknown */
	run.agent = SRT_RC_AGENT_READY;
	a = decide(&R1, 1, &run, 1, NULL, 0, false);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.v[0].kind, SRT_RC_SLURM_UNKNOWN);
	assert_int_equal(a.v[1].kind, SRT_RC_SET_PHASE);
	assert_int_equal(a.v[1].phase, SRT_RC_READY);
	srt_rc_actions_release(&a);
	/* a finished run is not warned about */
	both[0] = done;
	both[1] = run;
	a = decide(&R1, 1, both, 2, NULL, 0, false);
	assert_int_equal(a.v[0].kind, SRT_RC_SLURM_UNKNOWN);
	assert_string_equal(a.v[0].run, "r1-1-1");
	for (size_t i = 1; i < a.n; i++)
		assert_int_not_equal(a.v[i].kind, SRT_RC_SLURM_UNKNOWN);
	srt_rc_actions_release(&a);
}

static void test_job_missing_from_listing(void **state)
{
	struct srt_rc_run run = {
		"r1-1-1", "r1", 1, 1, SRT_RC_STARTING, 7, "srtctl:u1:1", SRT_RC_AGENT_NONE,
		NULL,	  NULL, 0, 0
	};
	struct srt_rc_actions a = decide(&R1, 1, &run, 1, NULL, 0, true);

	(void)state;
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, SRT_RC_FORGET_JOB);
	srt_rc_actions_release(&a);
}

static void test_retry_until_budget(void **state)
{
	struct srt_rc_run run = {
		"r1-1-2", "r1", 1, 2, SRT_RC_FAILED, 8, "srtctl:u2:2", SRT_RC_AGENT_FAILED,
		NULL,	  NULL, 0, 0
	};
	struct srt_rc_actions a = decide(&R1, 1, &run, 1, NULL, 0, true);

	(void)state;
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, SRT_RC_CREATE_RUN);
	assert_int_equal(a.v[0].attempt, 3);
	srt_rc_actions_release(&a);
	run.attempt = 3; /* max_attempts = 3: spent */
	a = decide(&R1, 1, &run, 1, NULL, 0, true);
	assert_int_equal(a.n, 0);
	srt_rc_actions_release(&a);
	/* a cancel behind srtctl's back also gets a new attempt */
	run.attempt = 1;
	run.phase = SRT_RC_CANCELLED;
	a = decide(&R1, 1, &run, 1, NULL, 0, true);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, SRT_RC_CREATE_RUN);
	srt_rc_actions_release(&a);
	/* success: nothing more */
	run.phase = SRT_RC_SUCCEEDED;
	a = decide(&R1, 1, &run, 1, NULL, 0, true);
	assert_int_equal(a.n, 0);
	srt_rc_actions_release(&a);
}

static void test_deleted_recipe_cancels(void **state)
{
	struct srt_rc_recipe r = { "r1", 1, true, 3, NULL, NULL };
	struct srt_rc_run runs[] = {
		{ "r1-1-1", "r1", 1, 1, SRT_RC_READY, 7, "srtctl:a:1", SRT_RC_AGENT_READY, NULL,
		  NULL, 0, 0 },
		{ "r1-1-2", "r1", 1, 2, SRT_RC_PENDING, 0, "srtctl:b:2", SRT_RC_AGENT_NONE, NULL,
		  NULL, 0, 0 },
		{ "r1-1-3", "r1", 1, 3, SRT_RC_PENDING, 0, "srtctl:c:3", SRT_RC_AGENT_NONE, NULL,
		  NULL, 0, 0 },
		{ "r1-1-4", "r1", 1, 4, SRT_RC_SUCCEEDED, 5, "srtctl:d:4", SRT_RC_AGENT_NONE, NULL,
		  NULL, 0, 0 },
	};
	struct srt_rc_job jobs[] = {
		{ 7, "srtctl:a:1", SRT_JOB_RUNNING, -1, "None", 0, 0 },
		{ 9, "srtctl:b:2", SRT_JOB_PENDING, -1, "None", 0,
		  0 }, /* submitted, id never recorded */
	};
	struct srt_rc_actions a = decide(&r, 1, runs, N(runs), jobs, N(jobs), true);

	(void)state;
	assert_int_equal(a.n, 3);
	assert_int_equal(a.v[0].kind, SRT_RC_CANCEL);
	assert_int_equal(a.v[0].job_id, 7);
	assert_int_equal(a.v[1].kind, SRT_RC_CANCEL);
	assert_int_equal(a.v[1].job_id, 9);
	assert_int_equal(a.v[2].kind, SRT_RC_SET_PHASE);
	assert_string_equal(a.v[2].run, "r1-1-3");
	assert_int_equal(a.v[2].phase, SRT_RC_CANCELLED);
	srt_rc_actions_release(&a);
	/* with the listing unknown, the unsubmitted run is left alone (the live
	 * runs are said to be unknown first) */
	a = decide(&r, 1, runs, N(runs), NULL, 0, false);
	assert_int_equal(a.n, 4);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(a.v[i].kind, SRT_RC_SLURM_UNKNOWN);
	assert_int_equal(a.v[3].kind, SRT_RC_CANCEL);
	assert_int_equal(a.v[3].job_id, 7);
	srt_rc_actions_release(&a);
}

static void test_new_generation_rolls_out_in_place(void **state)
{
	struct srt_rc_recipe r = { "r1", 2, false, 3, NULL, NULL };
	struct srt_rc_run run = {
		"r1-1-1", "r1", 1, 1, SRT_RC_READY, 7, "srtctl:a:1", SRT_RC_AGENT_READY,
		NULL,	  NULL, 0, 0
	};
	struct srt_rc_job job = { 7, "srtctl:a:1", SRT_JOB_RUNNING, -1, "None", 0, 0 };
	struct srt_rc_actions a = decide(&r, 1, &run, 1, &job, 1, true);

	(void)state;
	/* no cancel, no new run: the job takes the new generation */
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, SRT_RC_ROLLOUT);
	assert_string_equal(a.v[0].run, "r1-1-1");
	assert_int_equal(a.v[0].generation, 2);
	assert_int_equal(a.v[0].job_id, 7);
	assert_string_equal(a.v[0].message, "generation 1 -> 2");
	srt_rc_actions_release(&a);
	/* SLURM unknown: a rollout touches no job, so it goes ahead */
	a = decide(&r, 1, &run, 1, NULL, 0, false);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.v[0].kind, SRT_RC_SLURM_UNKNOWN);
	assert_int_equal(a.v[1].kind, SRT_RC_ROLLOUT);
	srt_rc_actions_release(&a);
	/* a job still waiting for nodes takes it too (its agent reads the plan at start) */
	run.phase = SRT_RC_SUBMITTED;
	job.state = SRT_JOB_PENDING;
	a = decide(&r, 1, &run, 1, &job, 1, true);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, SRT_RC_ROLLOUT);
	srt_rc_actions_release(&a);
}

static void test_new_generation_supersedes(void **state)
{
	struct srt_rc_recipe r = { "r1", 3, false, 3, NULL, NULL };
	struct srt_rc_run runs[] = {
		/* not submitted yet: nothing to roll, so it is retired */
		{ "r1-1-1", "r1", 1, 1, SRT_RC_PENDING, 0, "srtctl:a:1", SRT_RC_AGENT_NONE, NULL,
		  NULL, 0, 0 },
		/* cancelling already (a rollout refused for its shape) */
		{ "r1-2-1", "r1", 2, 1, SRT_RC_CANCELLING, 8, "srtctl:b:1", SRT_RC_AGENT_READY,
		  NULL, NULL, 0, 0 },
	};
	struct srt_rc_job job = { 8, "srtctl:b:1", SRT_JOB_CANCELLED, -1, "None", 0, 0 };
	struct srt_rc_actions a = decide(&r, 1, runs, N(runs), &job, 1, true);

	(void)state;
	assert_int_equal(a.n, 3);
	assert_int_equal(a.v[0].kind, SRT_RC_SET_PHASE);
	assert_int_equal(a.v[0].phase, SRT_RC_CANCELLED);
	assert_string_equal(a.v[0].message, "superseded by generation 3 before it was submitted");
	assert_int_equal(a.v[1].kind, SRT_RC_SET_PHASE);
	assert_string_equal(a.v[1].run, "r1-2-1");
	assert_int_equal(a.v[1].phase, SRT_RC_CANCELLED);
	assert_int_equal(a.v[2].kind, SRT_RC_CREATE_RUN);
	assert_int_equal(a.v[2].generation, 3);
	srt_rc_actions_release(&a);
}

static void test_current_generation_run_retires_older_jobs(void **state)
{
	struct srt_rc_recipe r = { "r1", 2, false, 3, NULL, NULL };
	struct srt_rc_run runs[] = {
		{ "r1-1-1", "r1", 1, 1, SRT_RC_READY, 7, "srtctl:a:1", SRT_RC_AGENT_READY, NULL,
		  NULL, 0, 0 },
		{ "r1-2-1", "r1", 2, 1, SRT_RC_SUBMITTED, 9, "srtctl:c:1", SRT_RC_AGENT_NONE, NULL,
		  NULL, 0, 0 },
	};
	struct srt_rc_job jobs[] = {
		{ 7, "srtctl:a:1", SRT_JOB_RUNNING, -1, "None", 0, 0 },
		{ 9, "srtctl:c:1", SRT_JOB_PENDING, -1, "Resources", 0, 0 },
	};
	struct srt_rc_actions a = decide(&r, 1, runs, N(runs), jobs, N(jobs), true);

	(void)state;
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, SRT_RC_CANCEL);
	assert_string_equal(a.v[0].run, "r1-1-1");
	assert_string_equal(a.v[0].message, "superseded by generation 2");
	srt_rc_actions_release(&a);
}

/* Attempt budgets come from the spec (memoised by its hash) unless given. */
static void test_max_attempts_from_spec(void **state)
{
	static const char spec5[] = "{\"name\":\"r1\",\"slurm\":{\"max_attempts\":5}}";
	struct srt_rc_recipe r = { "r1", 1, false, 0, spec5, "h5" };
	struct srt_rc_run run = {
		"r1-1-4", "r1", 1, 4, SRT_RC_FAILED, 8, "srtctl:u4:4", SRT_RC_AGENT_FAILED,
		NULL,	  NULL, 0, 0
	};
	struct srt_rc_memo *memo = srt_rc_memo_new();
	struct srt_rc_world w = { &r, 1, &run, 1, NULL, 0, true, memo };
	struct srt_rc_actions a = { 0 };

	(void)state;
	assert_int_equal(srt_rc_spec_max_attempts(spec5), 5);
	assert_int_equal(srt_rc_spec_max_attempts("{\"slurm\":{\"max_attempts\":0}}"), 3);
	assert_int_equal(srt_rc_spec_max_attempts("{\"slurm\":{\"max_attempts\":101}}"), 3);
	assert_int_equal(srt_rc_spec_max_attempts("{\"slurm\":{}}"), 3);
	assert_int_equal(srt_rc_spec_max_attempts("not json"), 3);
	assert_int_equal(srt_rc_spec_max_attempts(NULL), 3);
	srt_reconcile_runs(&w, &a);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, SRT_RC_CREATE_RUN);
	assert_int_equal(a.v[0].attempt, 5);
	assert_string_equal(a.v[0].message, "attempt 5 of 5 after r1-1-4 ended Failed");
	srt_rc_actions_release(&a);
	/* the memo answers for a known hash (here: a spec that no longer says 5) */
	r.spec = "{}";
	srt_reconcile_runs(&w, &a);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].attempt, 5);
	srt_rc_actions_release(&a);
	/* a new hash is parsed again: default 3, spent at attempt 4 */
	r.spec_hash = "h3";
	srt_reconcile_runs(&w, &a);
	assert_int_equal(a.n, 0);
	srt_rc_actions_release(&a);
	/* a given budget wins over the spec */
	r.max_attempts = 9;
	srt_reconcile_runs(&w, &a);
	assert_int_equal(a.n, 1);
	assert_string_equal(a.v[0].message, "attempt 5 of 9 after r1-1-4 ended Failed");
	srt_rc_actions_release(&a);
	srt_rc_memo_free(memo);
}

/* What each SLURM result means for the run: unknown is never dead. */
static void test_outcomes(void **state)
{
	static const struct {
		struct srt_rc_outcome (*fn)(int);
		int rc;
		bool record, set_phase;
		enum srt_rc_phase phase;
		const char *reason;
		bool warning;
	} cases[] = {
		{ srt_rc_submit_outcome, SRT_SLURM_OK, true, true, SRT_RC_SUBMITTED, "JobSubmitted",
		  false },
		{ srt_rc_submit_outcome, SRT_SLURM_EREJECTED, true, true, SRT_RC_FAILED,
		  "SubmitRejected", true },
		{ srt_rc_submit_outcome, SRT_SLURM_EINVAL, true, true, SRT_RC_FAILED,
		  "SubmitRejected", true },
		{ srt_rc_submit_outcome, SRT_SLURM_ETIMEOUT, true, false, 0, "SubmitUnknown",
		  true },
		{ srt_rc_submit_outcome, SRT_SLURM_EUNREACHABLE, true, false, 0, "SubmitUnknown",
		  true },
		{ srt_rc_submit_outcome, SRT_SLURM_ESERVER, true, false, 0, "SubmitUnknown", true },
		{ srt_rc_submit_outcome, SRT_SLURM_EAUTH, true, false, 0, "SubmitUnknown", true },
		{ srt_rc_cancel_outcome, SRT_SLURM_OK, true, true, SRT_RC_CANCELLING,
		  "JobCancelled", false },
		{ srt_rc_cancel_outcome, SRT_SLURM_EGONE, true, true, SRT_RC_CANCELLED,
		  "JobCancelled", false },
		{ srt_rc_cancel_outcome, SRT_SLURM_ETIMEOUT, true, false, 0, "CancelFailed", true },
		{ srt_rc_cancel_outcome, SRT_SLURM_ESERVER, true, false, 0, "CancelFailed", true },
		{ srt_rc_lookup_outcome, SRT_SLURM_EGONE, true, true, SRT_RC_FAILED, "JobGone",
		  true },
		{ srt_rc_lookup_outcome, SRT_SLURM_OK, false, false, 0, NULL, false },
		{ srt_rc_lookup_outcome, SRT_SLURM_ETIMEOUT, false, false, 0, NULL, false },
		{ srt_rc_lookup_outcome, SRT_SLURM_EUNREACHABLE, false, false, 0, NULL, false },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		struct srt_rc_outcome o = cases[i].fn(cases[i].rc);

		assert_int_equal(o.record, cases[i].record);
		assert_int_equal(o.set_phase, cases[i].set_phase);
		if (o.set_phase)
			assert_int_equal(o.phase, cases[i].phase);
		if (cases[i].reason)
			assert_string_equal(o.reason, cases[i].reason);
		assert_int_equal(o.warning, cases[i].warning);
	}
}

/* A new generation fits the running job (in place) or needs a new one. */
static void test_rollout_fit(void **state)
{
	static const struct {
		const char *old, *new, *why; /* why NULL: fits */
	} cases[] = {
		{ "{\"job\":{\"nodes\":2,\"partition\":\"p\"},\"infra_node\":0,\"x\":1}",
		  "{\"job\":{\"nodes\":2,\"partition\":\"p\"},\"infra_node\":0,\"x\":2}", NULL },
		{ "{\"job\":{\"nodes\":1}}", "{\"job\":{\"nodes\":2}}", "job nodes 1 -> 2" },
		{ "{\"job\":{\"partition\":\"a\"}}", "{\"job\":{\"partition\":\"b\"}}",
		  "job partition \"a\" -> \"b\"" },
		{ "{\"job\":{}}", "{\"job\":{\"exclusive\":true}}", "job exclusive null -> true" },
		{ "{\"job\":{},\"infra_node\":0}", "{\"job\":{},\"infra_node\":1}",
		  "the infra node moves" },
		{ "{\"nodes\":1}", "{\"job\":{}}",
		  "its plan.json does not record the job's shape (written by an older srtctl)" },
		{ NULL, "{\"job\":{}}", "its plan cannot be read (no such file)" },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		json_t *o = cases[i].old ? json_loads(cases[i].old, 0, NULL) : NULL;
		json_t *n = json_loads(cases[i].new, 0, NULL);
		char *why = NULL;
		bool fit = srt_rc_rollout_fit(o, "no such file", n, &why);

		assert_int_equal(fit, cases[i].why == NULL);
		if (cases[i].why)
			assert_string_equal(why, cases[i].why);
		else
			assert_null(why);
		free(why);
		json_decref(o);
		json_decref(n);
	}
}

static void test_phase_names(void **state)
{
	enum srt_rc_phase p;

	(void)state;
	for (int i = 0; i < SRT_RC_PHASE_COUNT; i++) {
		assert_true(srt_rc_phase_parse(srt_rc_phase_name((enum srt_rc_phase)i), &p));
		assert_int_equal(p, i);
	}
	assert_false(srt_rc_phase_parse("Bogus", &p));
}

/* An ended run whose job SLURM still lists in another state: the state is recorded, no event. */
static void test_ended_run_follows_its_job_state(void **state)
{
	/* Failed while its job was COMPLETING (agent FAILED); max_attempts 1: no retry */
	static const struct srt_rc_recipe R = { "r1", 1, false, 1, NULL, NULL };
	struct srt_rc_run run = {
		"r1-1-1", "r1",		1, 1, SRT_RC_FAILED, 7, "srtctl:u1:1", SRT_RC_AGENT_FAILED,
		NULL,	  "COMPLETING", 0, 0
	};
	struct srt_rc_job job = { 7, "srtctl:u1:1", SRT_JOB_COMPLETED, 1, "None", 0, 0 };
	struct srt_rc_actions a = decide(&R, 1, &run, 1, &job, 1, true);

	(void)state;
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, SRT_RC_OBSERVE_JOB);
	assert_string_equal(a.v[0].run, "r1-1-1");
	assert_int_equal(a.v[0].job_id, 7);
	assert_int_equal(a.v[0].job_state, SRT_JOB_COMPLETED);
	srt_rc_actions_release(&a);

	/* recorded already: nothing */
	run.slurm_state = "COMPLETED";
	a = decide(&R, 1, &run, 1, &job, 1, true);
	assert_int_equal(a.n, 0);
	srt_rc_actions_release(&a);

	/* purged from the listing, or the listing unknown: nothing to observe */
	run.slurm_state = "COMPLETING";
	a = decide(&R, 1, &run, 1, NULL, 0, true);
	assert_int_equal(a.n, 0);
	srt_rc_actions_release(&a);
	a = decide(&R, 1, &run, 1, &job, 1, false);
	assert_int_equal(a.n, 0);
	srt_rc_actions_release(&a);
}

/*
 * SLURM's start and end of a run's job are recorded once each (a campaign's
 * node-hours count from them), for a live run too, and a time the listing
 * does not have (0) never clears one recorded.
 */
static void test_job_times_recorded_once(void **state)
{
	static const struct srt_rc_recipe R = { "r1", 1, false, 1, NULL, NULL };
	struct srt_rc_run run = {
		"r1-1-1", "r1",	     1, 1, SRT_RC_STARTING, 7, "srtctl:u1:1", SRT_RC_AGENT_STARTING,
		NULL,	  "RUNNING", 0, 0
	};
	struct srt_rc_job job = { 7, "srtctl:u1:1", SRT_JOB_RUNNING, -1, "None", 5000, 0 };
	struct srt_rc_actions a = decide(&R, 1, &run, 1, &job, 1, true);

	(void)state;
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, SRT_RC_OBSERVE_JOB);
	assert_int_equal(a.v[0].job_state, SRT_JOB_STATE_COUNT); /* a live run's state: its phase */
	assert_int_equal(a.v[0].job_started_at, 5000);
	assert_int_equal(a.v[0].job_ended_at, 0);
	srt_rc_actions_release(&a);

	run.job_started_at = 5000;
	a = decide(&R, 1, &run, 1, &job, 1, true);
	assert_int_equal(a.n, 0);
	srt_rc_actions_release(&a);

	/* it ended between two passes: the end, with the run's own phase change */
	job.state = SRT_JOB_COMPLETED;
	job.exit_code = 0;
	job.ended_at = 9000;
	a = decide(&R, 1, &run, 1, &job, 1, true);
	assert_true(a.n >= 1);
	assert_int_equal(a.v[0].kind, SRT_RC_OBSERVE_JOB);
	assert_int_equal(a.v[0].job_started_at, 0);
	assert_int_equal(a.v[0].job_ended_at, 9000);
	srt_rc_actions_release(&a);

	/* a job the listing has lost its times for (requeued): nothing is cleared */
	run.job_ended_at = 9000;
	job.state = SRT_JOB_RUNNING;
	job.started_at = job.ended_at = 0;
	a = decide(&R, 1, &run, 1, &job, 1, true);
	for (size_t i = 0; i < a.n; i++)
		assert_int_not_equal(a.v[i].kind, SRT_RC_OBSERVE_JOB);
	srt_rc_actions_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_recipe_gets_a_run),
		cmocka_unit_test(test_pending_run_submitted_only_when_listing_known),
		cmocka_unit_test(test_crash_after_submit_adopts),
		cmocka_unit_test(test_phases_follow_job_and_agent),
		cmocka_unit_test(test_failed_job_message),
		cmocka_unit_test(test_unknown_is_never_dead),
		cmocka_unit_test(test_job_missing_from_listing),
		cmocka_unit_test(test_retry_until_budget),
		cmocka_unit_test(test_deleted_recipe_cancels),
		cmocka_unit_test(test_new_generation_rolls_out_in_place),
		cmocka_unit_test(test_new_generation_supersedes),
		cmocka_unit_test(test_current_generation_run_retires_older_jobs),
		cmocka_unit_test(test_max_attempts_from_spec),
		cmocka_unit_test(test_outcomes),
		cmocka_unit_test(test_rollout_fit),
		cmocka_unit_test(test_phase_names),
		cmocka_unit_test(test_ended_run_follows_its_job_state),
		cmocka_unit_test(test_job_times_recorded_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
