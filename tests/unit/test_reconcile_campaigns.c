/* tests/unit/test_reconcile_campaigns.c: reconcilers/campaigns.c, world in -> actions out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "reconcilers/campaigns.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct srt_cc_campaign campaign(const struct srt_cc_deployment *deps, size_t n,
				       int64_t max_jobs)
{
	return (struct srt_cc_campaign){
		.name = "c", .max_concurrent_jobs = max_jobs, .deps = deps, .ndeps = n
	};
}

static struct srt_cc_actions decide(const struct srt_cc_campaign *c)
{
	struct srt_cc_actions a = { 0 };

	srt_reconcile_campaign(c, &a);
	return a;
}

/* The deployments of `a` with action `kind`, in order, as "d1 d3" (in buf). */
static const char *names_in(char *buf, const struct srt_cc_actions *a, enum srt_cc_action_kind kind)
{
	buf[0] = '\0';
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].kind == kind) {
			if (buf[0])
				strcat(buf, " ");
			strcat(buf, a->v[i].deployment ? a->v[i].deployment : "-");
		}
	return buf;
}
#define names(a, kind) names_in((char[256]){ 0 }, a, kind)

#define DEP(n, pos, nodes_, pend)                                            \
	{                                                                    \
		.name = n, .position = pos, .nodes = nodes_, .pending = pend \
	}

static void test_activates_up_to_max_concurrent_jobs_in_order(void **state)
{
	struct srt_cc_deployment d[] = { DEP("d1", 1, 2, 4), DEP("d2", 2, 1, 4), DEP("d3", 3, 1, 4),
					 DEP("d4", 4, 1, 4) };
	struct srt_cc_campaign c = campaign(d, N(d), 2);
	struct srt_cc_actions a = decide(&c);

	(void)state;
	assert_string_equal(names(&a, SRT_CC_ACTIVATE), "d1 d2");
	assert_int_equal(a.n, 2);
	srt_cc_actions_release(&a);

	/* smallest first: the 1-node deployments before the 2-node one */
	c.order = SRT_CC_ORDER_SMALLEST_FIRST;
	a = decide(&c);
	assert_string_equal(names(&a, SRT_CC_ACTIVATE), "d2 d3");
	srt_cc_actions_release(&a);
}

static void test_live_counts_active_recipes_and_listed_jobs(void **state)
{
	/* d1 active (its job pending in SLURM), d2 retired earlier but its job is still
	 * completing: both count, so with a cap of 2 nothing new starts. */
	struct srt_cc_deployment d[] = { DEP("d1", 1, 1, 4), DEP("d2", 2, 1, 0),
					 DEP("d3", 3, 1, 4) };
	struct srt_cc_campaign c = campaign(d, N(d), 2);
	struct srt_cc_actions a;

	(void)state;
	d[0].active = true;
	d[0].run = SRT_CC_RUN_LIVE;
	d[1].job_live = true;
	a = decide(&c);
	assert_int_equal(a.n, 0);
	srt_cc_actions_release(&a);

	/* the completing job is gone from the listing: d3 may start */
	d[1].job_live = false;
	a = decide(&c);
	assert_string_equal(names(&a, SRT_CC_ACTIVATE), "d3");
	assert_int_equal(a.n, 1);
	srt_cc_actions_release(&a);
}

static void test_max_nodes_is_a_cap_in_order(void **state)
{
	struct srt_cc_deployment d[] = { DEP("d1", 1, 2, 1), DEP("d2", 2, 3, 1),
					 DEP("d3", 3, 1, 1) };
	struct srt_cc_campaign c = campaign(d, N(d), 10);
	struct srt_cc_actions a;

	(void)state;
	c.max_nodes = 4;
	a = decide(&c);
	/* d2 (3 nodes) does not fit beside d1 (2); d3 does not overtake it */
	assert_string_equal(names(&a, SRT_CC_ACTIVATE), "d1");
	srt_cc_actions_release(&a);
}

static void test_ended_run_retires_and_gives_back_running_points(void **state)
{
	struct srt_cc_deployment d[] = { DEP("d1", 1, 1, 2), DEP("d2", 2, 1, 0),
					 DEP("d3", 3, 1, 3) };
	struct srt_cc_campaign c = campaign(d, N(d), 1);
	struct srt_cc_actions a;

	(void)state;
	/* d1: its job died during a point; two more are pending */
	d[0].active = true;
	d[0].run = SRT_CC_RUN_ENDED;
	d[0].running = 1;
	d[0].final = 1;
	/* d2: all done */
	d[1].active = true;
	d[1].run = SRT_CC_RUN_ENDED;
	d[1].final = 4;
	a = decide(&c);
	assert_string_equal(names(&a, SRT_CC_RESET_POINTS), "d1");
	assert_string_equal(names(&a, SRT_CC_RETIRE), "d1 d2");
	/* both retired this pass: the one free slot goes to d3, not back to d1 yet */
	assert_string_equal(names(&a, SRT_CC_ACTIVATE), "d3");
	assert_non_null(strstr(a.v[0].message, "no point retry spent"));
	srt_cc_actions_release(&a);
}

static void test_exhausted_deployment_fails_its_points(void **state)
{
	struct srt_cc_deployment d[] = { DEP("d1", 1, 1, 3) };
	struct srt_cc_campaign c = campaign(d, N(d), 1);
	struct srt_cc_actions a;

	(void)state;
	d[0].active = true;
	d[0].run = SRT_CC_RUN_EXHAUSTED;
	a = decide(&c);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.v[0].kind, SRT_CC_FAIL_POINTS);
	assert_int_equal(a.v[1].kind, SRT_CC_RETIRE);
	srt_cc_actions_release(&a);
}

static void test_stop_reasons_are_recorded_once(void **state)
{
	struct srt_cc_deployment d[] = { DEP("d1", 1, 1, 3), DEP("d2", 2, 1, 3) };
	struct srt_cc_campaign c = campaign(d, N(d), 2);
	struct srt_cc_actions a;

	(void)state;
	d[0].active = true;
	d[0].run = SRT_CC_RUN_LIVE;
	c.budget_node_hours = 10;
	c.node_hours_used = 10.5;
	a = decide(&c);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.v[0].kind, SRT_CC_STOP_SUBMITTING);
	assert_int_equal(a.v[0].stop, SRT_CC_STOP_BUDGET);
	assert_non_null(strstr(a.v[0].message, "budget.nodeHours spent"));
	srt_cc_actions_release(&a);

	/* recorded: nothing more, and the running deployment is left alone */
	c.stopped = SRT_CC_STOP_BUDGET;
	a = decide(&c);
	assert_int_equal(a.n, 0);
	srt_cc_actions_release(&a);

	/* failed points beat the budget in the order of reasons; suspended beats both */
	c.max_failed_points = 2;
	c.failed_points = 2;
	assert_int_equal(srt_cc_stop_reason(&c), SRT_CC_STOP_FAILED_POINTS);
	c.suspended = true;
	assert_int_equal(srt_cc_stop_reason(&c), SRT_CC_STOP_SUSPENDED);

	/* resumed, budget raised: submitting again, and d2 starts */
	c.suspended = false;
	c.max_failed_points = 0;
	c.budget_node_hours = 20;
	a = decide(&c);
	assert_int_equal(a.v[0].kind, SRT_CC_STOP_SUBMITTING);
	assert_int_equal(a.v[0].stop, SRT_CC_STOP_NONE);
	assert_string_equal(names(&a, SRT_CC_ACTIVATE), "d2");
	srt_cc_actions_release(&a);
}

static void test_deleted_campaign_retires_every_active_deployment(void **state)
{
	struct srt_cc_deployment d[] = { DEP("d1", 1, 1, 3), DEP("d2", 2, 1, 3),
					 DEP("d3", 3, 1, 0) };
	struct srt_cc_campaign c = campaign(d, N(d), 2);
	struct srt_cc_actions a;

	(void)state;
	d[0].active = d[2].active = true;
	d[0].run = SRT_CC_RUN_LIVE;
	d[2].run = SRT_CC_RUN_ENDED;
	c.deleted = true;
	a = decide(&c);
	assert_string_equal(names(&a, SRT_CC_RETIRE), "d1 d3");
	assert_int_equal(a.n, 2);
	srt_cc_actions_release(&a);
}

static void test_active_without_run_waits_for_the_run_reconciler(void **state)
{
	struct srt_cc_deployment d[] = { DEP("d1", 1, 1, 3), DEP("d2", 2, 1, 0) };
	struct srt_cc_campaign c = campaign(d, N(d), 1);
	struct srt_cc_actions a;

	(void)state;
	d[0].active = true; /* just activated: no run yet */
	d[1].active = true; /* its points were removed by a re-apply */
	a = decide(&c);
	assert_string_equal(names(&a, SRT_CC_RETIRE), "d2");
	assert_int_equal(a.n, 1);
	srt_cc_actions_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_activates_up_to_max_concurrent_jobs_in_order),
		cmocka_unit_test(test_live_counts_active_recipes_and_listed_jobs),
		cmocka_unit_test(test_max_nodes_is_a_cap_in_order),
		cmocka_unit_test(test_ended_run_retires_and_gives_back_running_points),
		cmocka_unit_test(test_exhausted_deployment_fails_its_points),
		cmocka_unit_test(test_stop_reasons_are_recorded_once),
		cmocka_unit_test(test_deleted_campaign_retires_every_active_deployment),
		cmocka_unit_test(test_active_without_run_waits_for_the_run_reconciler),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
