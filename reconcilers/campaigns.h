/*
 * reconcilers/campaigns.h: which of a campaign's deployments run now.
 *
 * A campaign (recipe/campaign.h) is a list of deployments, each one child
 * recipe (<campaign>-<8 hex>), and each with a ladder of load points.  A
 * deployment runs by being *active*: its child recipe is recorded as desired
 * state like any applied recipe, and the run reconciler (reconcilers/runs.h)
 * then creates, submits, adopts, retries and cancels its run exactly as it
 * does for a recipe a user applied.  This reconciler only decides when a
 * deployment becomes active and when it stops being so; everything that
 * makes runs safe to kill at any moment is the run reconciler's, unchanged.
 *
 * A pure function of what one pass observed: per campaign its policy, and
 * per deployment its point counts (from SQLite), whether its child recipe
 * is active, whether its newest run is live, and whether SLURM's listing
 * shows a live job of it.  No I/O, no clock.
 *
 * The rules:
 *  - Caps come from what is live, not from a counter: a deployment counts
 *    against policy.maxConcurrentJobs and policy.maxNodes while its child
 *    recipe is active (its job may be pending, running or about to be
 *    submitted) or while the listing still shows a job of it that has not
 *    ended (a retired deployment whose job is still completing).  The caps
 *    are therefore never exceeded, also right after the controller restarts.
 *  - A deployment is activated when it has pending points, in campaign order
 *    (or smallest first), while the caps allow it; a deployment larger than
 *    maxNodes was refused at apply time.
 *  - Nothing new is activated while the campaign is suspended, once
 *    maxFailedPoints points failed, or once the node-hours used reach
 *    budget.nodeHours: running deployments finish (STOP_SUBMITTING says
 *    why, once per reason).
 *  - An active deployment is retired (its child recipe deleted; its run, if
 *    still going, is cancelled by the run reconciler) when the campaign is
 *    deleted, or when its run has ended and no point of it is pending or
 *    running.  Its run having ended with points left pending (a new point
 *    was applied, or the job ended mid-ladder) retires it too; the next pass
 *    activates it again, which makes a new generation and a new run that
 *    starts at the first unfinished point.
 *  - A run that ended while some of its points were marked running (the job
 *    died mid-point: node failure, preemption, cancel) gives those points
 *    back (RESET_POINTS): an infrastructure failure spends no point retry.
 *  - A deployment whose runs spent their attempts without ever becoming
 *    Ready (the engine never came up, a crash loop) fails its remaining
 *    points (FAIL_POINTS): a deployment failure is charged to its points.
 */
#ifndef SRT_RECONCILERS_CAMPAIGNS_H
#define SRT_RECONCILERS_CAMPAIGNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What became of a deployment's newest run. */
enum srt_cc_run {
	SRT_CC_RUN_NONE,      /* no run of the active child recipe yet */
	SRT_CC_RUN_LIVE,      /* pending, submitted, starting, ready, degraded, cancelling */
	SRT_CC_RUN_ENDED,     /* ended (succeeded, or ended with attempts left to retry) */
	SRT_CC_RUN_EXHAUSTED, /* failed with its attempts spent, never Ready */
};

struct srt_cc_deployment {
	const char *name; /* the child recipe's name */
	int64_t position; /* 1-based, campaign order */
	int64_t nodes;
	int64_t pending, running, final; /* current points by state (final: done/failed/invalid) */
	bool active;			 /* its child recipe is desired (not deleted) */
	enum srt_cc_run run;		 /* its newest run (meaningful when active) */
	bool job_live;			 /* SLURM lists a job of it that has not ended */
};

enum srt_cc_order {
	SRT_CC_ORDER_DECLARED,
	SRT_CC_ORDER_SMALLEST_FIRST
};

/* Why a campaign activates nothing new. */
enum srt_cc_stop {
	SRT_CC_STOP_NONE,
	SRT_CC_STOP_SUSPENDED,
	SRT_CC_STOP_FAILED_POINTS,
	SRT_CC_STOP_BUDGET,
};

struct srt_cc_campaign {
	const char *name;
	bool deleted, suspended;
	int64_t max_concurrent_jobs; /* >= 1 */
	int64_t max_nodes;	     /* 0: no cap */
	int64_t max_failed_points;   /* 0: no limit */
	int64_t failed_points;	     /* points failed or invalid so far */
	double budget_node_hours;    /* 0: no budget */
	double node_hours_used;
	enum srt_cc_order order;
	enum srt_cc_stop stopped; /* the reason last recorded (STOP_SUBMITTING is sent once) */
	const struct srt_cc_deployment *deps;
	size_t ndeps;
};

enum srt_cc_action_kind {
	SRT_CC_ACTIVATE,	/* campaign, deployment: record its child recipe as desired */
	SRT_CC_RETIRE,		/* campaign, deployment: delete its child recipe */
	SRT_CC_RESET_POINTS,	/* campaign, deployment: running points back to pending */
	SRT_CC_FAIL_POINTS,	/* campaign, deployment: pending points -> failed */
	SRT_CC_STOP_SUBMITTING, /* campaign, stop: record why nothing new starts */
};

struct srt_cc_action {
	enum srt_cc_action_kind kind;
	const char *campaign;	/* borrowed from the world */
	const char *deployment; /* borrowed; NULL for STOP_SUBMITTING */
	enum srt_cc_stop stop;
	char message[256];
};

struct srt_cc_actions {
	struct srt_cc_action *v;
	size_t n, cap;
};

/* Decide for one campaign; appends to *out (init zeroed, free with srt_cc_actions_release). */
void srt_reconcile_campaign(const struct srt_cc_campaign *c, struct srt_cc_actions *out);
void srt_cc_actions_release(struct srt_cc_actions *a);

/* The campaign's stop reason given its policy and counts (pure; NONE: submitting). */
enum srt_cc_stop srt_cc_stop_reason(const struct srt_cc_campaign *c);
/* "suspended", "maxFailedPoints reached", "budget.nodeHours spent", "" */
const char *srt_cc_stop_name(enum srt_cc_stop s);

#endif
