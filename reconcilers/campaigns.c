/* reconcilers/campaigns.c: which of a campaign's deployments run now (see campaigns.h). */
#include "reconcilers/campaigns.h"

#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

static struct srt_cc_action *push(struct srt_cc_actions *a, enum srt_cc_action_kind kind,
				  const struct srt_cc_campaign *c,
				  const struct srt_cc_deployment *d, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static struct srt_cc_action *push(struct srt_cc_actions *a, enum srt_cc_action_kind kind,
				  const struct srt_cc_campaign *c,
				  const struct srt_cc_deployment *d, const char *fmt, ...)
{
	struct srt_cc_action *x;
	va_list ap;

	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 8;
		a->v = srt_xrealloc(a->v, a->cap * sizeof(*a->v));
	}
	x = &a->v[a->n++];
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	x->campaign = c->name;
	x->deployment = d ? d->name : NULL;
	va_start(ap, fmt);
	vsnprintf(x->message, sizeof(x->message), fmt, ap);
	va_end(ap);
	return x;
}

void srt_cc_actions_release(struct srt_cc_actions *a)
{
	free(a->v);
	memset(a, 0, sizeof(*a));
}

const char *srt_cc_stop_name(enum srt_cc_stop s)
{
	switch (s) {
	case SRT_CC_STOP_SUSPENDED:
		return "suspended";
	case SRT_CC_STOP_FAILED_POINTS:
		return "maxFailedPoints reached";
	case SRT_CC_STOP_BUDGET:
		return "budget.nodeHours spent";
	case SRT_CC_STOP_NONE:
		break;
	}
	return "";
}

enum srt_cc_stop srt_cc_stop_reason(const struct srt_cc_campaign *c)
{
	if (c->suspended)
		return SRT_CC_STOP_SUSPENDED;
	if (c->max_failed_points > 0 && c->failed_points >= c->max_failed_points)
		return SRT_CC_STOP_FAILED_POINTS;
	if (c->budget_node_hours > 0 && c->node_hours_used >= c->budget_node_hours)
		return SRT_CC_STOP_BUDGET;
	return SRT_CC_STOP_NONE;
}

/* An active deployment whose run has ended: retire it (and settle its points first). */
static bool settle(const struct srt_cc_campaign *c, const struct srt_cc_deployment *d,
		   struct srt_cc_actions *out)
{
	switch (d->run) {
	case SRT_CC_RUN_LIVE:
		return false;
	case SRT_CC_RUN_NONE:
		if (d->pending || d->running)
			return false; /* the run reconciler is about to create its run */
		push(out, SRT_CC_RETIRE, c, d, "no point of it is left to run");
		return true;
	case SRT_CC_RUN_EXHAUSTED:
		if (d->pending || d->running)
			push(out, SRT_CC_FAIL_POINTS, c, d,
			     "its runs spent their attempts without becoming Ready; its %lld "
			     "unfinished point(s) fail",
			     (long long)(d->pending + d->running));
		push(out, SRT_CC_RETIRE, c, d, "its runs spent their attempts");
		return true;
	case SRT_CC_RUN_ENDED:
		break;
	}
	if (d->running)
		push(out, SRT_CC_RESET_POINTS, c, d,
		     "its run ended during %lld point(s); they run again in its next job "
		     "(no point retry spent)",
		     (long long)d->running);
	if (d->pending || d->running)
		push(out, SRT_CC_RETIRE, c, d,
		     "its run ended with %lld point(s) left; it starts again at the first "
		     "unfinished one",
		     (long long)(d->pending + d->running));
	else
		push(out, SRT_CC_RETIRE, c, d, "all %lld of its points are finished",
		     (long long)d->final);
	return true;
}

struct candidate {
	const struct srt_cc_deployment *d;
	bool smallest_first;
};

static int candidate_cmp(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	if (x->smallest_first && x->d->nodes != y->d->nodes)
		return x->d->nodes < y->d->nodes ? -1 : 1;
	return (x->d->position > y->d->position) - (x->d->position < y->d->position);
}

/* The figures behind a stop reason, " (...)", in buf; "" when it has none. */
static const char *stop_detail(const struct srt_cc_campaign *c, enum srt_cc_stop stop, char buf[96])
{
	buf[0] = '\0';
	if (stop == SRT_CC_STOP_FAILED_POINTS)
		snprintf(buf, 96, " (%" PRId64 " failed or invalid point(s), at most %" PRId64 ")",
			 c->failed_points, c->max_failed_points);
	else if (stop == SRT_CC_STOP_BUDGET)
		snprintf(buf, 96, " (%.1f of %.1f node-hours used)", c->node_hours_used,
			 c->budget_node_hours);
	return buf;
}

void srt_reconcile_campaign(const struct srt_cc_campaign *c, struct srt_cc_actions *out)
{
	struct candidate *cand;
	size_t ncand = 0;
	int64_t live = 0, nodes = 0;
	enum srt_cc_stop stop;
	char detail[96];

	if (c->deleted) {
		for (size_t i = 0; i < c->ndeps; i++)
			if (c->deps[i].active)
				push(out, SRT_CC_RETIRE, c, &c->deps[i], "campaign %s deleted",
				     c->name);
		return;
	}
	cand = srt_xcalloc(c->ndeps ? c->ndeps : 1, sizeof(*cand));
	for (size_t i = 0; i < c->ndeps; i++) {
		const struct srt_cc_deployment *d = &c->deps[i];
		bool retired = d->active && settle(c, d, out);

		/* What is live right now: an active recipe, or a job that has not ended. */
		if ((d->active && !retired) || d->job_live) {
			live++;
			nodes += d->nodes;
		} else if (!d->active && d->pending > 0) {
			cand[ncand++] =
				(struct candidate){ d, c->order == SRT_CC_ORDER_SMALLEST_FIRST };
		}
	}
	stop = srt_cc_stop_reason(c);
	if (stop != c->stopped) {
		struct srt_cc_action *x =
			stop == SRT_CC_STOP_NONE ?
				push(out, SRT_CC_STOP_SUBMITTING, c, NULL,
				     "submitting again (no longer %s)",
				     srt_cc_stop_name(c->stopped)) :
				push(out, SRT_CC_STOP_SUBMITTING, c, NULL,
				     "no new deployment starts: %s%s; running ones finish",
				     srt_cc_stop_name(stop), stop_detail(c, stop, detail));

		x->stop = stop;
	}
	if (stop != SRT_CC_STOP_NONE)
		goto out;
	qsort(cand, ncand, sizeof(*cand), candidate_cmp);
	for (size_t i = 0; i < ncand; i++) {
		const struct srt_cc_deployment *d = cand[i].d;

		if (live >= c->max_concurrent_jobs)
			break;
		if (c->max_nodes > 0 && nodes + d->nodes > c->max_nodes)
			break; /* in order: a later, smaller deployment does not overtake it */
		push(out, SRT_CC_ACTIVATE, c, d,
		     "%lld point(s) to run; %lld of at most %lld deployment job(s) live",
		     (long long)d->pending, (long long)live + 1, (long long)c->max_concurrent_jobs);
		live++;
		nodes += d->nodes;
	}
out:
	free(cand);
}
