/*
 * tests/unit/planq.h: questions the unit tests ask of a compiled plan
 * (test_launch.c, test_render.c).  Include it after <cmocka.h> and
 * recipe/render.h: a missing process fails the calling test.
 */
#ifndef SRT_TESTS_UNIT_PLANQ_H
#define SRT_TESTS_UNIT_PLANQ_H

#include <stddef.h>
#include <string.h>

/* The plan's process called `name`, or NULL. */
static inline const struct srt_runplan_proc *plan_proc_find(const struct srt_plan *p,
							    const char *name)
{
	for (size_t i = 0; i < p->run.nprocs; i++)
		if (!strcmp(p->run.procs[i].name, name))
			return &p->run.procs[i];
	return NULL;
}

/* The plan's process called `name`; the test fails without one. */
static inline const struct srt_runplan_proc *proc_named(const struct srt_plan *p, const char *name)
{
	const struct srt_runplan_proc *pr = plan_proc_find(p, name);

	if (!pr)
		fail_msg("no process '%s' in the plan", name);
	return pr;
}

/* The word after the first `flag` in pr's argv, or NULL. */
static inline const char *argv_after(const struct srt_runplan_proc *pr, const char *flag)
{
	for (size_t i = 0; i + 1 < pr->argc; i++)
		if (!strcmp(pr->argv[i], flag))
			return pr->argv[i + 1];
	return NULL;
}

#endif
