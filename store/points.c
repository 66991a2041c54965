/*
 * store/points.c: driving a campaign: which deployments exist with what
 * work left, and the state changes of its points (store/store.h).
 *
 * A point moves pending -> running -> done | failed | invalid.  Every
 * change that comes from an agent's report names the run the point was
 * given to (run_name, set when its run's points.json is written), so a
 * report from an older run of the same deployment, read late, changes
 * nothing; a final point is never changed again (its results stay).
 */
#include "store/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char SQL_WORLD[] =
	"SELECT c.name, c.spec, c.state, c.deleted_at IS NOT NULL, d.name, d.position, d.nodes, "
	"coalesce(sum(p.state = 'pending'), 0), coalesce(sum(p.state = 'running'), 0), "
	"coalesce(sum(p.state IN ('done', 'failed', 'invalid')), 0), "
	"coalesce(sum(p.state IN ('failed', 'invalid')), 0), "
	"coalesce((SELECT sum(d.nodes * max(0, coalesce(r.job_ended_at, r.finished_at, ?1) - "
	"  coalesce(r.job_started_at, r.started_at))) "
	"  FROM runs r JOIN recipes rc ON rc.id = r.recipe_id WHERE rc.name = d.name AND "
	"  coalesce(r.job_started_at, r.started_at) IS NOT NULL), 0) "
	"FROM campaign_deployments d JOIN campaigns c ON c.id = d.campaign_id "
	"LEFT JOIN campaign_points p ON p.deployment_id = d.id AND p.removed_at IS NULL "
	"WHERE d.removed_at IS NULL OR c.deleted_at IS NOT NULL "
	"GROUP BY d.id ORDER BY c.name, d.position, d.name";
static const char SQL_D_SPEC[] =
	"SELECT d.spec, c.name FROM campaign_deployments d JOIN campaigns c ON c.id = d.campaign_id "
	"WHERE d.name = ?1";
static const char SQL_D_CAMPAIGN[] =
	"SELECT c.name, c.spec FROM campaign_deployments d JOIN campaigns c ON c.id = d.campaign_id "
	"WHERE d.name = ?1";
static const char SQL_SET_STATE[] =
	"UPDATE campaigns SET state = ?2, updated_at = ?3 WHERE name = ?1 AND state = ?4 "
	"AND state != ?2";
static const char SQL_RESET[] =
	"UPDATE campaign_points SET state = 'pending', updated_at = ?2, message = ?3 "
	"WHERE deployment_id = (SELECT id FROM campaign_deployments WHERE name = ?1) "
	"AND state = 'running' AND removed_at IS NULL";
static const char SQL_FAIL[] =
	"UPDATE campaign_points SET state = 'failed', updated_at = ?2, finished_at = ?2, "
	"message = ?3 WHERE deployment_id = (SELECT id FROM campaign_deployments WHERE name = ?1) "
	"AND state IN ('pending', 'running') AND removed_at IS NULL";
/*
 * A deployment has one run at a time, so a point still marked running when
 * its next run is submitted was cut short by the end of the previous job
 * (node failure, preemption, a cancel): it is given back with the rest.
 */
static const char SQL_ASSIGN[] =
	"UPDATE campaign_points SET run_name = ?2, state = 'pending', slurm_job_id = NULL, "
	"updated_at = ?3 "
	"WHERE deployment_id = (SELECT id FROM campaign_deployments WHERE name = ?1) "
	"AND state IN ('pending', 'running') AND removed_at IS NULL";
static const char SQL_ASSIGNED[] =
	"SELECT p.point_id, p.seq, p.tool, p.params, p.isl, p.osl, p.concurrency, p.prompts, "
	"p.warmup, p.repeat_idx FROM campaign_points p WHERE p.run_name = ?1 AND "
	"p.state = 'pending' AND p.removed_at IS NULL ORDER BY p.seq, p.id";
/*
 * The campaign of run ?2 (its recipe is a deployment): with it, a report's
 * UPDATE finds its point through UNIQUE (campaign_id, point_id) instead of
 * scanning every point (point_id alone has no index).
 */
#define SQL_RUN_CAMPAIGN                                                            \
	"(SELECT d.campaign_id FROM runs r JOIN recipes rc ON rc.id = r.recipe_id " \
	"JOIN campaign_deployments d ON d.name = rc.name WHERE r.name = ?2)"
static const char SQL_STARTED[] =
	"UPDATE campaign_points SET state = 'running', started_at = ?3, updated_at = ?3, "
	"message = NULL, slurm_job_id = (SELECT slurm_job_id FROM runs WHERE name = ?2) "
	"WHERE campaign_id = " SQL_RUN_CAMPAIGN " AND point_id = ?1 AND run_name = ?2 "
	"AND state = 'pending' "
	"RETURNING (SELECT name FROM campaigns WHERE id = campaign_id)";
static const char SQL_FINISHED[] =
	"UPDATE campaign_points SET state = ?3, attempts = attempts + ?4, message = ?5, "
	"finished_at = ?6, started_at = coalesce(started_at, ?7), updated_at = ?6, "
	"raw_path = ?8, raw_sha256 = ?9, raw_json = ?10, slo_met = ?11, "
	"completed = ?12, duration_s = ?13, total_input_tokens = ?14, total_output_tokens = ?15, "
	"request_throughput = ?16, output_throughput = ?17, total_token_throughput = ?18, "
	"mean_ttft_ms = ?19, median_ttft_ms = ?20, p99_ttft_ms = ?21, "
	"mean_tpot_ms = ?22, median_tpot_ms = ?23, p99_tpot_ms = ?24, "
	"mean_itl_ms = ?25, median_itl_ms = ?26, p99_itl_ms = ?27, "
	"mean_e2el_ms = ?28, median_e2el_ms = ?29, p99_e2el_ms = ?30, errors = ?31, "
	"slurm_job_id = (SELECT slurm_job_id FROM runs WHERE name = ?2) "
	"WHERE campaign_id = " SQL_RUN_CAMPAIGN " AND point_id = ?1 AND run_name = ?2 "
	"AND state IN ('pending', 'running') "
	"RETURNING (SELECT name FROM campaigns WHERE id = campaign_id)";

int srt_store_campaign_world(struct srt_store *s, struct srt_world_deployment **rows, size_t *n,
			     struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_WORLD, err);
	size_t cap = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, srt_store_now(s));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct srt_world_deployment *d;

		*rows = srt_store_grow(*rows, n, &cap, sizeof(**rows));
		d = &(*rows)[*n - 1];
		d->campaign = srt_store_col_text(st, 0);
		d->campaign_spec = srt_store_col_text(st, 1);
		d->campaign_state = srt_store_col_text(st, 2);
		d->campaign_deleted = sqlite3_column_int(st, 3) != 0;
		d->name = srt_store_col_text(st, 4);
		d->position = sqlite3_column_int64(st, 5);
		d->nodes = sqlite3_column_int64(st, 6);
		d->pending = sqlite3_column_int64(st, 7);
		d->running = sqlite3_column_int64(st, 8);
		d->final = sqlite3_column_int64(st, 9);
		d->failed = sqlite3_column_int64(st, 10);
		d->node_ms = sqlite3_column_int64(st, 11);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		srt_world_deployments_free(*rows, *n);
		*rows = NULL;
		*n = 0;
		return srt_store_sql_error(s, err, rc, "cannot read the campaigns' deployments");
	}
	return 0;
}

void srt_world_deployments_free(struct srt_world_deployment *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].campaign);
		free(rows[i].campaign_spec);
		free(rows[i].campaign_state);
		free(rows[i].name);
	}
	free(rows);
}

int srt_store_deployment_activate(struct srt_store *s, const char *name, const char *why,
				  struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_D_SPEC, err);
	char *spec = NULL, *campaign = NULL;
	int64_t gen = 0;
	bool own;
	int rc;

	if (!st)
		return -1;
	srt_store_bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		spec = srt_store_col_text(st, 0);
		campaign = srt_store_col_text(st, 1);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW) {
		if (rc == SQLITE_DONE)
			return srt_error_set(err, "no campaign deployment named '%s'", name);
		return srt_store_sql_error(s, err, rc, "cannot read deployment '%s'", name);
	}
	rc = srt_store_tx_enter(s, &own, err);
	if (rc == 0)
		rc = srt_store_recipe_apply(s, name, spec, NULL, NULL, NULL, &gen, err);
	if (rc == 0)
		rc = srt_store_event(s, err, "Normal", "DeploymentStarted", "campaign", campaign,
				     "controller", "deployment %s: recipe generation %lld: %s",
				     name, (long long)gen, why);
	if (srt_store_tx_end(s, own, rc == 0, err) != 0)
		rc = -1;
	free(spec);
	free(campaign);
	return rc;
}

int srt_store_deployment_campaign(struct srt_store *s, const char *name, char **campaign,
				  char **spec, struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_D_CAMPAIGN, err);
	int rc;

	*campaign = *spec = NULL;
	if (!st)
		return -1;
	srt_store_bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*campaign = srt_store_col_text(st, 0);
		*spec = srt_store_col_text(st, 1);
	}
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return srt_store_sql_error(s, err, rc, "cannot read the campaign of deployment '%s'", name);
}

int srt_store_deployment_retire(struct srt_store *s, const char *campaign, const char *name,
				const char *why, struct srt_error *err)
{
	bool own;
	int rc = srt_store_tx_enter(s, &own, err);

	if (rc == 0)
		rc = srt_store_recipe_delete(s, name, err) < 0 ? -1 : 0;
	if (rc == 0)
		rc = srt_store_event(s, err, "Normal", "DeploymentEnded", "campaign", campaign,
				     "controller", "deployment %s: %s", name, why);
	if (srt_store_tx_end(s, own, rc == 0, err) != 0)
		rc = -1;
	return rc;
}

/* Run one UPDATE over a deployment's points with an event on the campaign. */
static int points_change(struct srt_store *s, const char *sql, const char *campaign,
			 const char *name, const char *type, const char *reason, const char *why,
			 struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, sql, err);
	int64_t changed;
	bool own;
	int rc;

	if (!st)
		return -1;
	if (srt_store_tx_enter(s, &own, err) != 0)
		return -1;
	srt_store_bind_text(st, 1, name);
	sqlite3_bind_int64(st, 2, srt_store_now(s));
	srt_store_bind_text(st, 3, why);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	changed = sqlite3_changes(s->db);
	if (rc != SQLITE_DONE)
		rc = srt_store_sql_error(s, err, rc, "cannot change the points of deployment '%s'",
					 name);
	else
		rc = srt_store_event(s, err, type, reason, "campaign", campaign, "controller",
				     "deployment %s: %lld point(s): %s", name, (long long)changed,
				     why);
	if (srt_store_tx_end(s, own, rc == 0, err) != 0)
		rc = -1;
	return rc;
}

int srt_store_points_reset(struct srt_store *s, const char *campaign, const char *deployment,
			   const char *why, struct srt_error *err)
{
	return points_change(s, SQL_RESET, campaign, deployment, "Warning", "PointsGivenBack", why,
			     err);
}

int srt_store_points_fail(struct srt_store *s, const char *campaign, const char *deployment,
			  const char *why, struct srt_error *err)
{
	return points_change(s, SQL_FAIL, campaign, deployment, "Warning", "DeploymentFailed", why,
			     err);
}

int srt_store_campaign_set_state(struct srt_store *s, const char *campaign, const char *from,
				 const char *state, const char *why, struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_SET_STATE, err);
	bool own;
	int rc;

	if (!st || srt_store_tx_enter(s, &own, err) != 0)
		return -1;
	srt_store_bind_text(st, 1, campaign);
	srt_store_bind_text(st, 2, state);
	sqlite3_bind_int64(st, 3, srt_store_now(s));
	srt_store_bind_text(st, 4, from);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		rc = srt_store_sql_error(s, err, rc, "cannot set the state of campaign '%s'",
					 campaign);
	else if (sqlite3_changes(s->db) > 0)
		rc = srt_store_event(s, err, "Normal", state, "campaign", campaign, "controller",
				     "%s", why);
	else
		rc = 0;
	if (srt_store_tx_end(s, own, rc == 0, err) != 0)
		rc = -1;
	return rc;
}

int srt_store_points_assign(struct srt_store *s, const char *deployment, const char *run,
			    struct srt_assigned_point **out, size_t *n, struct srt_error *err)
{
	sqlite3_stmt *assign = srt_store_stmt(s, SQL_ASSIGN, err);
	sqlite3_stmt *st = assign ? srt_store_stmt(s, SQL_ASSIGNED, err) : NULL;
	size_t cap = 0;
	bool own;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st || srt_store_tx_enter(s, &own, err) != 0)
		return -1;
	srt_store_bind_text(assign, 1, deployment);
	srt_store_bind_text(assign, 2, run);
	sqlite3_bind_int64(assign, 3, srt_store_now(s));
	rc = sqlite3_step(assign);
	sqlite3_reset(assign);
	if (rc == SQLITE_DONE) {
		srt_store_bind_text(st, 1, run);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			struct srt_assigned_point *p;

			*out = srt_store_grow(*out, n, &cap, sizeof(**out));
			p = &(*out)[*n - 1];
			p->point_id = srt_store_col_text(st, 0);
			p->seq = sqlite3_column_int64(st, 1);
			p->tool = srt_store_col_text(st, 2);
			p->params = srt_store_col_text(st, 3);
			p->isl = sqlite3_column_int64(st, 4);
			p->osl = sqlite3_column_int64(st, 5);
			p->concurrency = sqlite3_column_int64(st, 6);
			p->prompts = sqlite3_column_int64(st, 7);
			p->warmup = sqlite3_column_int64(st, 8);
			p->repeat = sqlite3_column_int64(st, 9);
		}
		sqlite3_reset(st);
	}
	if (rc != SQLITE_DONE) {
		srt_store_sql_error(s, err, rc,
				    "cannot give the points of deployment '%s' to run '%s'",
				    deployment, run);
		srt_assigned_points_free(*out, *n);
		*out = NULL;
		*n = 0;
		srt_store_tx_end(s, own, false, err);
		return -1;
	}
	return srt_store_tx_end(s, own, true, err);
}

void srt_assigned_points_free(struct srt_assigned_point *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].point_id);
		free(p[i].tool);
		free(p[i].params);
	}
	free(p);
}

/* Step an UPDATE ... RETURNING campaign name: 1 changed (*campaign malloc'd), 0 none, -1. */
static int step_returning(struct srt_store *s, sqlite3_stmt *st, char **campaign, const char *point,
			  struct srt_error *err)
{
	int rc = sqlite3_step(st);

	*campaign = NULL;
	if (rc == SQLITE_ROW) {
		*campaign = srt_store_col_text(st, 0);
		rc = sqlite3_step(st);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		free(*campaign);
		*campaign = NULL;
		return srt_store_sql_error(s, err, rc, "cannot change point %.12s", point);
	}
	return *campaign ? 1 : 0;
}

int srt_store_point_started(struct srt_store *s, const char *run, const char *point_id, int64_t seq,
			    int64_t at, struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_STARTED, err);
	char *campaign;
	int rc;

	if (!st)
		return -1;
	srt_store_bind_text(st, 1, point_id);
	srt_store_bind_text(st, 2, run);
	sqlite3_bind_int64(st, 3, at);
	rc = step_returning(s, st, &campaign, point_id, err);
	if (rc == 1)
		rc = srt_store_event(s, err, "Normal", "PointStarted", "campaign", campaign,
				     "controller", "point %lld (%.12s) started in run %s",
				     (long long)seq, point_id, run) == 0 ?
			     1 :
			     -1;
	free(campaign);
	return rc;
}

static void bind_metric(sqlite3_stmt *st, int idx, double v, bool integer)
{
	if (isnan(v))
		sqlite3_bind_null(st, idx);
	else if (integer)
		sqlite3_bind_int64(st, idx, (int64_t)v);
	else
		sqlite3_bind_double(st, idx, v);
}

int srt_store_point_finished(struct srt_store *s, const char *run, const struct srt_point_finish *f,
			     struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_FINISHED, err);
	char *campaign;
	int rc;

	if (!st)
		return -1;
	srt_store_bind_text(st, 1, f->point_id);
	srt_store_bind_text(st, 2, run);
	srt_store_bind_text(st, 3, f->state);
	sqlite3_bind_int64(st, 4, f->attempts);
	srt_store_bind_text(st, 5, f->message);
	sqlite3_bind_int64(st, 6, f->finished_at);
	sqlite3_bind_int64(st, 7, f->started_at);
	srt_store_bind_text(st, 8, f->raw_path);
	srt_store_bind_text(st, 9, f->raw_sha256);
	srt_store_bind_text(st, 10, f->raw_json);
	if (f->slo_met < 0)
		sqlite3_bind_null(st, 11);
	else
		sqlite3_bind_int(st, 11, f->slo_met);
	for (int k = 0; k < SRT_POINT_NMETRICS; k++) {
		/* completed, token totals and errors are integer columns */
		bool integer = k == 0 || k == 2 || k == 3 || k == SRT_POINT_NMETRICS - 1;

		bind_metric(st, 12 + k, f->metrics[k], integer);
	}
	rc = step_returning(s, st, &campaign, f->point_id, err);
	if (rc == 1)
		rc = srt_store_event(s, err, strcmp(f->state, "done") ? "Warning" : "Normal",
				     "PointFinished", "campaign", campaign, "controller",
				     "point %lld (%.12s) %s in run %s after %lld attempt(s)%s%s",
				     (long long)f->seq, f->point_id, f->state, run,
				     (long long)f->attempts, f->message ? ": " : "",
				     f->message ? f->message : "") == 0 ?
			     1 :
			     -1;
	free(campaign);
	return rc;
}
