/*
 * controller/internal.h: between controller.c (the pass, runs) and
 * campaigns.c (the campaign effects).  Not for use outside controller/.
 */
#ifndef SRT_CONTROLLER_INTERNAL_H
#define SRT_CONTROLLER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "recipe/cluster.h"
#include "reconcilers/campaigns.h"
#include "runplan/rundir.h"
#include "store/store.h"
#include "util/err.h"

/* What the campaign step reads of the pass. */
struct srt_ctl_view {
	struct srt_store *store;
	const struct srt_recipe_row *recipes; /* deleted ones included */
	size_t nrecipes;
	const struct srt_run_row *runs;
	size_t nruns;
	void (*log)(void *arg, const struct srt_cc_action *x); /* each action taken; may be NULL */
	void *log_arg;
};

/*
 * Decide and act for every campaign (reconcilers/campaigns.h): activate and
 * retire deployments, give back or fail points, record stop reasons and the
 * campaign's state.  Adds the actions taken to *nactions.  *clocked says
 * whether the decision also depends on the clock, not only on the database:
 * a campaign with budget.nodeHours has a deployment running (its node-hours
 * grow while nothing is written).
 */
int srt_ctl_campaigns_pass(const struct srt_ctl_view *v, size_t *nactions, bool *clocked,
			   struct srt_error *err);

/*
 * When `recipe` is a campaign deployment: give its pending points to `run`
 * and return points.json's text (the tool's command from the cluster's
 * `commands:` vllm_bench / sa_bench) in *json_out (malloc'd); returns 1.  0: not
 * a campaign deployment (*json_out NULL).  -1: error.
 */
int srt_ctl_points_file(struct srt_store *store, const struct srt_cluster *cluster,
			const char *recipe, const char *run, char **json_out,
			struct srt_error *err);

/*
 * An agent event of `run` (directory run_dir): a PointStarted or
 * PointFinished report changes its point, in the caller's transaction; any
 * other event is left alone.  0, or -1 on a database error.
 */
int srt_ctl_ingest_point_event(struct srt_store *store, const char *run, const char *run_dir,
			       const struct srt_rundir_event *ev, struct srt_error *err);

#endif
