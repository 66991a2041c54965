/*
 * cli/progress.c: how far a campaign has come and how long it has left
 * (cli/cli.h), for `get campaigns`, `describe campaign` and `wait campaign`.
 *
 * Node-hours come from the controller's own query
 * (srt_store_campaign_world(): per deployment, node-milliseconds of its
 * runs), so the CLI shows the figure the budget is checked against.  The
 * ETA is measured, not estimated: the mean duration of the points that
 * finished, times the points left, over the deployments that can run at
 * once.
 */
#include "cli/cli.h"
#include "store/store.h"
#include "util/clock.h"

#include <stdio.h>
#include <string.h>

int64_t srt_cli_eta_ms(int64_t timed_points, int64_t timed_ms, int64_t remaining, int64_t parallel)
{
	if (remaining <= 0)
		return 0;
	if (timed_points <= 0)
		return -1;
	if (parallel < 1)
		parallel = 1;
	return (int64_t)((double)timed_ms / (double)timed_points * (double)remaining /
			 (double)parallel);
}

bool srt_cli_campaign_halted(const char *state)
{
	return state && (!strcmp(state, "Suspended") || !strcmp(state, "Stopped") ||
			 !strcmp(state, "OutOfBudget"));
}

/* The campaign's policy from its stored spec (defaults when it does not parse). */
static void policy(const struct srt_campaign_row *r, struct srt_cli_progress *p)
{
	struct srt_diags d;
	struct srt_ydoc *doc;

	p->max_concurrent_jobs = 1;
	if (!r->spec)
		return;
	srt_diags_init(&d);
	doc = srt_ydoc_parse(r->spec, strlen(r->spec), r->name, &d);
	if (doc) {
		const struct srt_campaign *c = srt_campaign_parse(doc, &d);

		if (c && !d.nerrors) {
			p->max_concurrent_jobs = c->max_concurrent_jobs;
			p->max_failed_points = c->max_failed_points;
			p->budget_node_hours = c->budget_node_hours;
		}
	}
	srt_ydoc_free(doc);
	srt_diags_release(&d);
}

int srt_cli_progress(struct srt_store *s, const struct srt_campaign_row *rows, size_t n,
		     struct srt_cli_progress *out, struct srt_error *err)
{
	struct srt_world_deployment *w = NULL;
	size_t nw = 0;

	memset(out, 0, n * sizeof(*out));
	if (srt_store_campaign_world(s, &w, &nw, err) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct srt_campaign_row *r = &rows[i];
		struct srt_cli_progress *p = &out[i];
		int64_t busy = 0, node_ms = 0;

		policy(r, p);
		for (size_t j = 0; j < nw; j++) {
			if (strcmp(w[j].campaign, r->name))
				continue;
			node_ms += w[j].node_ms;
			busy += w[j].pending + w[j].running > 0;
		}
		p->node_hours = (double)node_ms / 3.6e6;
		p->parallel = busy < p->max_concurrent_jobs ? busy : p->max_concurrent_jobs;
		p->eta_ms = r->deleted_at || srt_cli_campaign_halted(r->state) ?
				    -1 :
				    srt_cli_eta_ms(r->timed_points, r->timed_ms,
						   r->pending + r->running, p->parallel);
	}
	srt_world_deployments_free(w, nw);
	return 0;
}

const char *srt_cli_eta_text(const struct srt_campaign_row *r, const struct srt_cli_progress *p,
			     char *buf, size_t n)
{
	if (r->deleted_at)
		snprintf(buf, n, "deleted");
	else if (srt_cli_campaign_halted(r->state))
		snprintf(buf, n, "%s", r->state);
	else if (p->eta_ms < 0)
		snprintf(buf, n, "unknown");
	else
		srt_duration_human(p->eta_ms, buf, n);
	return buf;
}

const char *srt_cli_campaign_arg(const char *verb, int argc, char **argv, int first)
{
	const char *a = first < argc ? argv[first] : NULL;

	if (a && !strncmp(a, "campaign/", 9) && a[9] && first + 1 == argc)
		return a + 9;
	if (a && (!strcmp(a, "campaign") || !strcmp(a, "campaigns")) && first + 2 == argc &&
	    argv[first + 1][0])
		return argv[first + 1];
	srt_cli_usage_error(verb, "name one campaign: campaign NAME (or campaign/NAME)");
	return NULL;
}
