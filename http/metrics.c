/*
 * http/metrics.c: the Prometheus text format writer and the /metrics
 * document (see http/metrics.h).
 */
#include "http/metrics.h"
#include "slurm/slurm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const double srt_metrics_pass_bounds[SRT_METRICS_PASS_BUCKETS] = {
	0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
};

void srt_metrics_loop_observe(struct srt_metrics_loop *l, bool ok, int64_t usec)
{
	double sec = (double)usec / 1e6;
	size_t i = 0;

	if (ok)
		l->passes_ok++;
	else
		l->passes_failed++;
	while (i < SRT_METRICS_PASS_BUCKETS && sec > srt_metrics_pass_bounds[i])
		i++;
	l->pass_buckets[i]++;
	l->pass_seconds_sum += sec;
}

static void escape(struct srt_buf *b, const char *v, bool quote)
{
	for (; *v; v++) {
		if (*v == '\\')
			srt_buf_puts(b, "\\\\");
		else if (*v == '\n')
			srt_buf_puts(b, "\\n");
		else if (quote && *v == '"')
			srt_buf_puts(b, "\\\"");
		else
			srt_buf_putc(b, *v);
	}
}

void srt_metrics_escape_label(struct srt_buf *b, const char *v)
{
	escape(b, v, true);
}

void srt_metrics_escape_help(struct srt_buf *b, const char *v)
{
	escape(b, v, false);
}

void srt_metrics_family(struct srt_buf *b, const char *name, const char *type, const char *help)
{
	srt_buf_printf(b, "# HELP %s ", name);
	srt_metrics_escape_help(b, help);
	srt_buf_printf(b, "\n# TYPE %s %s\n", name, type);
}

static void put_value(struct srt_buf *b, double v)
{
	if (isnan(v))
		srt_buf_puts(b, "NaN");
	else if (isinf(v))
		srt_buf_puts(b, v > 0 ? "+Inf" : "-Inf");
	else if (v == floor(v) && fabs(v) < 1e15)
		srt_buf_printf(b, "%.0f", v);
	else
		srt_buf_printf(b, "%.15g", v);
}

void srt_metrics_sample(struct srt_buf *b, const char *name, const char *const *labels,
			double value)
{
	srt_buf_puts(b, name);
	if (labels && labels[0]) {
		srt_buf_putc(b, '{');
		for (size_t i = 0; labels[i] && labels[i + 1]; i += 2) {
			srt_buf_printf(b, "%s%s=\"", i ? "," : "", labels[i]);
			srt_metrics_escape_label(b, labels[i + 1]);
			srt_buf_putc(b, '"');
		}
		srt_buf_putc(b, '}');
	}
	srt_buf_putc(b, ' ');
	put_value(b, value);
	srt_buf_putc(b, '\n');
}

void srt_metrics_histogram(struct srt_buf *b, const char *name, const char *help,
			   const double *bounds, size_t nbounds, const uint64_t *buckets,
			   double sum)
{
	uint64_t cum = 0;
	char bucket[128], le[32];

	srt_metrics_family(b, name, "histogram", help);
	snprintf(bucket, sizeof(bucket), "%s_bucket", name);
	for (size_t i = 0; i <= nbounds; i++) {
		cum += buckets[i];
		if (i < nbounds)
			snprintf(le, sizeof(le), "%g", bounds[i]);
		else
			snprintf(le, sizeof(le), "+Inf");
		srt_metrics_sample(b, bucket, (const char *const[]){ "le", le, NULL }, (double)cum);
	}
	srt_buf_printf(b, "%s_sum ", name);
	put_value(b, sum);
	srt_buf_printf(b, "\n%s_count %llu\n", name, (unsigned long long)cum);
}

/* The values a label takes even when no row has them, so series do not come and go. */
static const char *const RUN_PHASES[] = { "Pending",   "Submitted", "Starting", "Ready",
					  "Degraded",  "Succeeded", "Failed",	"Cancelling",
					  "Cancelled", NULL };
static const char *const SERVICE_STATES[] = {
	"Pending", "Starting", "Ready", "Unhealthy", "CrashLoopBackOff", "Failed", "Stopped", NULL
};
static const char *const NOTIFY_STATES[] = { "Pending", "Delivered", "Abandoned", NULL };

/*
 * A gauge family from one count: every known key (0 when absent), then the
 * keys the database holds beyond those (a newer writer's states).
 */
/*
 * Node-hours each live campaign's current deployments used (SLURM's start and
 * end of their jobs; what policy.budget.nodeHours is checked against).
 */
static int node_hours_family(struct srt_buf *b, struct srt_store *s, struct srt_error *err)
{
	struct srt_world_deployment *w = NULL;
	size_t n = 0;

	if (srt_store_campaign_world(s, &w, &n, err) != 0)
		return -1;
	srt_metrics_family(b, "srtctl_campaign_node_hours", "gauge",
			   "Node-hours used by the runs of each live campaign's current "
			   "deployments (nodes x SLURM's job start to end, or to now).");
	for (size_t i = 0, k; i < n; i = k) {
		int64_t ms = 0;

		for (k = i; k < n && !strcmp(w[k].campaign, w[i].campaign); k++)
			ms += w[k].node_ms;
		if (!w[i].campaign_deleted)
			srt_metrics_sample(b, "srtctl_campaign_node_hours",
					   (const char *const[]){ "campaign", w[i].campaign, NULL },
					   (double)ms / 3.6e6);
	}
	srt_world_deployments_free(w, n);
	return 0;
}

static int count_family(struct srt_buf *b, struct srt_store *s, enum srt_store_count what,
			const char *name, const char *help, const char *label,
			const char *const *known, struct srt_error *err)
{
	struct srt_count_row *rows = NULL;
	size_t n = 0;

	if (srt_store_count(s, what, &rows, &n, err) != 0)
		return -1;
	srt_metrics_family(b, name, "gauge", help);
	for (size_t k = 0; known && known[k]; k++) {
		int64_t v = 0;

		for (size_t i = 0; i < n; i++)
			if (strcmp(rows[i].key, known[k]) == 0)
				v = rows[i].count;
		srt_metrics_sample(b, name, (const char *const[]){ label, known[k], NULL },
				   (double)v);
	}
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t k = 0; known && known[k]; k++)
			seen = seen || strcmp(rows[i].key, known[k]) == 0;
		if (seen)
			continue;
		if (rows[i].key2)
			srt_metrics_sample(b, name,
					   (const char *const[]){ label, rows[i].key, "reason",
								  rows[i].key2, NULL },
					   (double)rows[i].count);
		else
			srt_metrics_sample(b, name,
					   (const char *const[]){ label, rows[i].key, NULL },
					   (double)rows[i].count);
	}
	srt_count_rows_free(rows, n);
	return 0;
}

static void counter(struct srt_buf *b, const char *name, const char *help, uint64_t v)
{
	srt_metrics_family(b, name, "counter", help);
	srt_metrics_sample(b, name, NULL, (double)v);
}

static void gauge(struct srt_buf *b, const char *name, const char *help, double v)
{
	srt_metrics_family(b, name, "gauge", help);
	srt_metrics_sample(b, name, NULL, v);
}

int srt_metrics_render(struct srt_buf *b, struct srt_store *s, const struct srt_metrics_loop *l,
		       struct srt_error *err)
{
	/* The loop. */
	srt_metrics_family(b, "srtctl_controller_passes_total", "counter",
			   "Reconcile passes since the controller started, by result.");
	srt_metrics_sample(b, "srtctl_controller_passes_total",
			   (const char *const[]){ "result", "ok", NULL }, (double)l->passes_ok);
	srt_metrics_sample(b, "srtctl_controller_passes_total",
			   (const char *const[]){ "result", "failed", NULL },
			   (double)l->passes_failed);
	srt_metrics_histogram(b, "srtctl_controller_pass_duration_seconds",
			      "Wall time of one reconcile pass.", srt_metrics_pass_bounds,
			      SRT_METRICS_PASS_BUCKETS, l->pass_buckets, l->pass_seconds_sum);
	gauge(b, "srtctl_controller_last_pass_timestamp_seconds",
	      "When the last reconcile pass ended (Unix time; 0 before the first).",
	      (double)l->last_pass_at / 1000.0);
	counter(b, "srtctl_controller_actions_total", "Decisions the controller took.", l->actions);
	counter(b, "srtctl_controller_action_errors_total",
		"Decisions whose effect failed (decided again next pass).", l->action_errors);
	counter(b, "srtctl_controller_agent_events_ingested_total",
		"Agent events ingested from run directories.", l->events_ingested);
	/* SLURM. */
	counter(b, "srtctl_slurmrestd_requests_total",
		"HTTP requests sent to slurmrestd (version probes included).", l->slurm_requests);
	counter(b, "srtctl_slurmrestd_request_failures_total",
		"slurmrestd requests that did not end in a usable reply.", l->slurm_failures);
	srt_metrics_family(b, "srtctl_slurmrestd_listing_failures_total", "counter",
			   "Passes whose job listing failed, by error code (UNREACHABLE, "
			   "TIMEOUT, AUTH, ...): run states were unknown for that pass.");
	for (int i = 1; i < SRT_METRICS_SLURM_CODES; i++)
		srt_metrics_sample(b, "srtctl_slurmrestd_listing_failures_total",
				   (const char *const[]){ "code", srt_slurm_rc_name(-i), NULL },
				   (double)l->listing_failures[i]);
	gauge(b, "srtctl_slurm_known",
	      "1 when the last pass's job listing succeeded, 0 when run states are unknown.",
	      l->slurm_known ? 1 : 0);
	/* Notifications (delivery attempts by this controller). */
	srt_metrics_family(b, "srtctl_notify_attempts_total", "counter",
			   "Runs of the notify command, by result.");
	srt_metrics_sample(b, "srtctl_notify_attempts_total",
			   (const char *const[]){ "result", "delivered", NULL },
			   (double)l->notifications_delivered);
	srt_metrics_sample(b, "srtctl_notify_attempts_total",
			   (const char *const[]){ "result", "failed", NULL },
			   (double)l->notifications_failed);
	/* The database. */
	if (count_family(b, s, SRT_COUNT_RECIPES, "srtctl_recipes", "Recipes, live or deleted.",
			 "state", (const char *const[]){ "live", "deleted", NULL }, err) != 0 ||
	    count_family(b, s, SRT_COUNT_RUN_PHASE, "srtctl_runs", "Runs by phase.", "phase",
			 RUN_PHASES, err) != 0 ||
	    count_family(b, s, SRT_COUNT_SERVICE_STATE, "srtctl_services", "Services by state.",
			 "state", SERVICE_STATES, err) != 0 ||
	    count_family(b, s, SRT_COUNT_WORKER_STATE, "srtctl_workers", "Workers by state.",
			 "state", NULL, err) != 0 ||
	    count_family(b, s, SRT_COUNT_RESTARTS, "srtctl_process_restarts",
			 "Restarts recorded by the agents, summed over the processes in the "
			 "database, by kind.",
			 "kind", (const char *const[]){ "service", "worker", NULL }, err) != 0 ||
	    count_family(b, s, SRT_COUNT_EVENT_REASON, "srtctl_events",
			 "Events in the database (deduplicated repeats counted), by type and "
			 "reason; pruned after the retention.",
			 "type", NULL, err) != 0 ||
	    count_family(b, s, SRT_COUNT_CAMPAIGN_STATE, "srtctl_campaigns", "Campaigns by state.",
			 "state", NULL, err) != 0 ||
	    count_family(b, s, SRT_COUNT_POINT_STATE, "srtctl_campaign_points",
			 "Benchmark points of live campaigns by state.", "state",
			 (const char *const[]){ "pending", "running", "done", "failed", "invalid",
						NULL },
			 err) != 0 ||
	    node_hours_family(b, s, err) != 0 ||
	    count_family(b, s, SRT_COUNT_NOTIFICATION_STATE, "srtctl_notifications",
			 "Notifications by delivery state.", "state", NOTIFY_STATES, err) != 0)
		return -1;
	return 0;
}
