/*
 * agent/policy.c: restart decisions.
 *
 * This file owns the arithmetic of a restart policy (recipe/model.h
 * struct srt_restart_policy): whether an exit is restarted, how long to
 * back off, and when the budget is spent.  Pure functions of their
 * arguments, so every branch is unit-tested without processes or clocks.
 */
#include "agent/agent.h"

int64_t srt_agent_backoff_ms(const struct srt_restart_policy *rp, int n)
{
	int64_t first = rp->backoff_seconds > 0 ? (int64_t)rp->backoff_seconds * 1000 : 0;
	int64_t cap = (int64_t)rp->max_backoff_seconds * 1000, d = first;

	/* A process that ran well and then died is back at once: only a second
	 * failure within the reset period suggests a loop worth slowing down. */
	if (n <= 0)
		return 0;
	if (cap < first)
		cap = first;
	for (int i = 1; i < n && d < cap; i++)
		d *= 2;
	return d < cap ? d : cap;
}

struct srt_agent_decision srt_agent_decide(const struct srt_restart_policy *rp, int budget_used,
					   int64_t ran_ms, bool failed)
{
	struct srt_agent_decision d = { SRT_AGENT_LEAVE, 0, budget_used };

	if (rp->reset_after_seconds > 0 && ran_ms >= (int64_t)rp->reset_after_seconds * 1000)
		d.budget_used = 0;
	if (rp->mode == SRT_RESTART_NEVER || (rp->mode == SRT_RESTART_ON_FAILURE && !failed))
		return d;
	if (d.budget_used >= rp->max_restarts) {
		d.verdict = SRT_AGENT_GIVE_UP;
		return d;
	}
	d.verdict = SRT_AGENT_RESTART;
	d.delay_ms = srt_agent_backoff_ms(rp, d.budget_used);
	d.budget_used++;
	return d;
}
