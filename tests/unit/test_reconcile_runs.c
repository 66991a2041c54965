/* tests/unit/test_reconcile_runs.c: reconcilers/runs.c, world in -> actions out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "reconcilers/runs.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct srt_rc_actions decide(const struct srt_rc_recipe *rs, size_t nr,
				    const struct srt_rc_run *runs, size_t nruns,
				    const struct srt_rc_job *jobs, size_t njobs, bool known)
{
	struct srt_rc_world w = { rs, nr, runs, nruns, jobs, njobs, known };
	struct srt_rc_actions a = { 0 };

	srt_reconcile_runs(&w, &a);
	return a;
}

static const struct srt_rc_recipe R1 = { "r1", 1, false, 3 };

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
	struct srt_rc_run run = { "r1-1-1", "r1", 1, 1, SRT_RC_PENDING, 0, "srtctl:u1:1",
				  SRT_RC_AGENT_NONE, NULL };
	struct srt_rc_actions a = decide(&R1, 1, &run, 1, NULL, 0, false);

	(void)state;
	assert_int_equal(a.n, 0); /* unknown: never submit */
	srt_rc_actions_release(&a);
	a = decide(&R1, 1, &run, 1, NULL, 0, true);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, SRT_RC_SUBMIT);
	assert_string_equal(a.v[0].run, "r1-1-1");
	srt_rc_actions_release(&a);
}

static void test_crash_after_submit_adopts(void **state)
{
	struct srt_rc_run run = { "r1-1-1", "r1", 1, 1, SRT_RC_PENDING, 0, "srtctl:u1:1",
				  SRT_RC_AGENT_NONE, NULL };
	struct srt_rc_job jobs[] = {
		{ 40, "srtctl:other:1", SRT_JOB_RUNNING, -1, "None" },
		{ 41, "srtctl:u1:1", SRT_JOB_PENDING, -1, "Priority" },
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
		struct srt_rc_run run = { "r1-1-1", "r1", 1, 1, SRT_RC_SUBMITTED, 7,
					  "srtctl:u1:1", cases[i].ag, NULL };
		struct srt_rc_job job = { 7, "srtctl:u1:1", cases[i].js, 3, "None" };
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
	struct srt_rc_run run = { "r1-1-1", "r1", 1, 1, SRT_RC_STARTING, 7, "srtctl:u1:1",
				  SRT_RC_AGENT_NONE, NULL };
	struct srt_rc_job job = { 7, "srtctl:u1:1", SRT_JOB_FAILED, 3, "NonZeroExitCode" };
	struct srt_rc_actions a = decide(&R1, 1, &run, 1, &job, 1, true);

	(void)state;
	assert_int_equal(a.n, 1);
	assert_string_equal(a.v[0].message, "job 7 FAILED (exit code 3)");
	assert_true(a.v[0].warning);
	srt_rc_actions_release(&a);
}

static void test_unknown_is_never_dead(void **state)
{
	struct srt_rc_run run = { "r1-1-1", "r1", 1, 1, SRT_RC_STARTING, 7, "srtctl:u1:1",
				  SRT_RC_AGENT_NONE, NULL };
	struct srt_rc_actions a = decide(&R1, 1, &run, 1, NULL, 0, false);

	(void)state;
	assert_int_equal(a.n, 0);
	srt_rc_actions_release(&a);
	/* the agent's Ready still counts while SLURM is unknown */
	run.agent = SRT_RC_AGENT_READY;
	a = decide(&R1, 1, &run, 1, NULL, 0, false);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].phase, SRT_RC_READY);
	srt_rc_actions_release(&a);
}

static void test_job_missing_from_listing(void **state)
{
	struct srt_rc_run run = { "r1-1-1", "r1", 1, 1, SRT_RC_STARTING, 7, "srtctl:u1:1",
				  SRT_RC_AGENT_NONE, NULL };
	struct srt_rc_actions a = decide(&R1, 1, &run, 1, NULL, 0, true);

	(void)state;
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, SRT_RC_FORGET_JOB);
	srt_rc_actions_release(&a);
}

static void test_retry_until_budget(void **state)
{
	struct srt_rc_run run = { "r1-1-2", "r1", 1, 2, SRT_RC_FAILED, 8, "srtctl:u2:2",
				  SRT_RC_AGENT_FAILED, NULL };
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
	struct srt_rc_recipe r = { "r1", 1, true, 3 };
	struct srt_rc_run runs[] = {
		{ "r1-1-1", "r1", 1, 1, SRT_RC_READY, 7, "srtctl:a:1", SRT_RC_AGENT_READY, NULL },
		{ "r1-1-2", "r1", 1, 2, SRT_RC_PENDING, 0, "srtctl:b:2", SRT_RC_AGENT_NONE, NULL },
		{ "r1-1-3", "r1", 1, 3, SRT_RC_PENDING, 0, "srtctl:c:3", SRT_RC_AGENT_NONE, NULL },
		{ "r1-1-4", "r1", 1, 4, SRT_RC_SUCCEEDED, 5, "srtctl:d:4", SRT_RC_AGENT_NONE, NULL },
	};
	struct srt_rc_job jobs[] = {
		{ 7, "srtctl:a:1", SRT_JOB_RUNNING, -1, "None" },
		{ 9, "srtctl:b:2", SRT_JOB_PENDING, -1, "None" }, /* submitted, id never recorded */
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
	/* with the listing unknown, the unsubmitted run is left alone */
	a = decide(&r, 1, runs, N(runs), NULL, 0, false);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, SRT_RC_CANCEL);
	assert_int_equal(a.v[0].job_id, 7);
	srt_rc_actions_release(&a);
}

static void test_new_generation_rolls_out_in_place(void **state)
{
	struct srt_rc_recipe r = { "r1", 2, false, 3 };
	struct srt_rc_run run = { "r1-1-1", "r1", 1, 1, SRT_RC_READY, 7, "srtctl:a:1",
				  SRT_RC_AGENT_READY, NULL };
	struct srt_rc_job job = { 7, "srtctl:a:1", SRT_JOB_RUNNING, -1, "None" };
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
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, SRT_RC_ROLLOUT);
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
	struct srt_rc_recipe r = { "r1", 3, false, 3 };
	struct srt_rc_run runs[] = {
		/* not submitted yet: nothing to roll, so it is retired */
		{ "r1-1-1", "r1", 1, 1, SRT_RC_PENDING, 0, "srtctl:a:1", SRT_RC_AGENT_NONE, NULL },
		/* cancelling already (a rollout refused for its shape) */
		{ "r1-2-1", "r1", 2, 1, SRT_RC_CANCELLING, 8, "srtctl:b:1", SRT_RC_AGENT_READY,
		  NULL },
	};
	struct srt_rc_job job = { 8, "srtctl:b:1", SRT_JOB_CANCELLED, -1, "None" };
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
	struct srt_rc_recipe r = { "r1", 2, false, 3 };
	struct srt_rc_run runs[] = {
		{ "r1-1-1", "r1", 1, 1, SRT_RC_READY, 7, "srtctl:a:1", SRT_RC_AGENT_READY, NULL },
		{ "r1-2-1", "r1", 2, 1, SRT_RC_SUBMITTED, 9, "srtctl:c:1", SRT_RC_AGENT_NONE, NULL },
	};
	struct srt_rc_job jobs[] = {
		{ 7, "srtctl:a:1", SRT_JOB_RUNNING, -1, "None" },
		{ 9, "srtctl:c:1", SRT_JOB_PENDING, -1, "Resources" },
	};
	struct srt_rc_actions a = decide(&r, 1, runs, N(runs), jobs, N(jobs), true);

	(void)state;
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, SRT_RC_CANCEL);
	assert_string_equal(a.v[0].run, "r1-1-1");
	assert_string_equal(a.v[0].message, "superseded by generation 2");
	srt_rc_actions_release(&a);
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
		cmocka_unit_test(test_phase_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
