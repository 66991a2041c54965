/*
 * store/campaigns.c: campaigns, their deployments and their points.
 *
 * A campaign row keeps its uid and id for life, like a recipe; a changed
 * spec bumps its generation.  Deployments are keyed by their (global) name
 * and points by (campaign, point id): applying a new generation upserts what
 * it lists and stamps removed_at on what it no longer lists, so a point's
 * state, attempts and results survive every re-apply that keeps its
 * identity.  Each apply and delete writes its event in the same transaction.
 */
#include "store/internal.h"
#include "util/buf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char SQL_C_STATE[] =
	"SELECT id, spec_hash, generation, deleted_at FROM campaigns WHERE name = ?1";
static const char SQL_C_INSERT[] =
	"INSERT INTO campaigns (uid, name, spec, spec_hash, generation, source_file, source_yaml, "
	"state, created_at, updated_at, applied_at, notify) "
	"VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, 'Pending', ?7, ?7, ?7, ?8) RETURNING id";
static const char SQL_C_UPDATE[] =
	"UPDATE campaigns SET spec = ?2, spec_hash = ?3, generation = ?4, source_file = ?5, "
	"source_yaml = ?6, applied_at = ?7, updated_at = ?7, deleted_at = NULL, notify = ?8 "
	"WHERE id = ?1";
static const char SQL_C_TOUCH[] =
	"UPDATE campaigns SET source_file = ?2, source_yaml = ?3, applied_at = ?4 WHERE id = ?1";
static const char SQL_C_DELETE[] =
	"UPDATE campaigns SET deleted_at = ?2, updated_at = ?2 WHERE name = ?1 AND deleted_at "
	"IS NULL RETURNING generation";
static const char SQL_D_GET[] =
	"SELECT d.id, d.spec_hash, d.campaign_id, c.name FROM campaign_deployments d "
	"JOIN campaigns c ON c.id = d.campaign_id WHERE d.name = ?1";
static const char SQL_D_INSERT[] =
	"INSERT INTO campaign_deployments (campaign_id, name, axes, spec, spec_hash, nodes, "
	"position, generation, created_at, updated_at) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9) RETURNING id";
static const char SQL_D_UPDATE[] =
	"UPDATE campaign_deployments SET axes = ?2, spec = ?3, spec_hash = ?4, nodes = ?5, "
	"position = ?6, generation = ?7, updated_at = ?8, removed_at = NULL WHERE id = ?1";
static const char SQL_D_REMOVE[] =
	"UPDATE campaign_deployments SET removed_at = ?3, updated_at = ?3 WHERE campaign_id = ?1 "
	"AND generation < ?2 AND removed_at IS NULL";
static const char SQL_P_GET[] =
	"SELECT id FROM campaign_points WHERE campaign_id = ?1 AND point_id = ?2";
static const char SQL_P_INSERT[] =
	"INSERT INTO campaign_points (point_id, campaign_id, deployment_id, deployment_spec_hash, "
	"seq, tool, params, isl, osl, concurrency, prompts, warmup, repeat_idx, generation, "
	"created_at, updated_at) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?15)";
static const char SQL_P_KEEP[] =
	"UPDATE campaign_points SET seq = ?2, generation = ?3, removed_at = NULL, "
	"updated_at = CASE WHEN removed_at IS NULL THEN updated_at ELSE ?4 END WHERE id = ?1";
static const char SQL_P_REMOVE[] =
	"UPDATE campaign_points SET removed_at = ?3, updated_at = ?3 WHERE campaign_id = ?1 AND "
	"generation < ?2 AND removed_at IS NULL";
static const char SQL_P_COUNT[] =
	"SELECT count(*) FROM campaign_points WHERE campaign_id = ?1 AND removed_at IS NULL";

/* A finished point whose duration is known (a deployment failure has no start). */
#define C_TIMED                                                                       \
	"(p.state IN ('done', 'failed', 'invalid') AND p.started_at IS NOT NULL AND " \
	"p.finished_at IS NOT NULL)"
#define C_COLUMNS                                                                                \
	"c.id, c.uid, c.name, c.spec, c.spec_hash, c.state, c.source_file, c.generation, "       \
	"c.created_at, c.updated_at, c.applied_at, c.deleted_at, "                               \
	"(SELECT count(*) FROM campaign_deployments d WHERE d.campaign_id = c.id AND "           \
	"d.removed_at IS NULL), "                                                                \
	"coalesce(sum(p.state = 'pending'), 0), coalesce(sum(p.state = 'running'), 0), "         \
	"coalesce(sum(p.state = 'done'), 0), coalesce(sum(p.state = 'failed'), 0), "             \
	"coalesce(sum(p.state = 'invalid'), 0), "                                                \
	"coalesce(sum(" C_TIMED "), 0), coalesce(sum(CASE WHEN " C_TIMED                         \
	" THEN p.finished_at - p.started_at END), 0) "                                           \
	"FROM campaigns c LEFT JOIN campaign_points p ON p.campaign_id = c.id AND p.removed_at " \
	"IS NULL "
static const char SQL_C_LIST[] = "SELECT " C_COLUMNS "GROUP BY c.id ORDER BY c.name";
static const char SQL_C_GET[] = "SELECT " C_COLUMNS "WHERE c.name = ?1 GROUP BY c.id";

static const char SQL_D_LIST[] =
	"SELECT d.id, c.name, d.name, d.axes, d.spec_hash, d.nodes, d.position, d.generation, "
	"d.removed_at FROM campaign_deployments d JOIN campaigns c ON c.id = d.campaign_id "
	"WHERE c.name = ?1 ORDER BY d.removed_at IS NOT NULL, d.position, d.name";

#define P_METRICS                                                                             \
	"p.completed, p.duration_s, p.total_input_tokens, p.total_output_tokens, "            \
	"p.request_throughput, p.output_throughput, p.total_token_throughput, "               \
	"p.mean_ttft_ms, p.median_ttft_ms, p.p99_ttft_ms, p.mean_tpot_ms, p.median_tpot_ms, " \
	"p.p99_tpot_ms, p.mean_itl_ms, p.median_itl_ms, p.p99_itl_ms, p.mean_e2el_ms, "       \
	"p.median_e2el_ms, p.p99_e2el_ms, p.errors"
static const char SQL_P_LIST[] =
	"SELECT p.id, p.point_id, c.name, d.name, d.axes, p.tool, p.params, p.state, p.run_name, "
	"p.message, p.raw_path, p.raw_sha256, p.seq, p.isl, p.osl, p.concurrency, p.prompts, "
	"p.warmup, p.repeat_idx, p.attempts, p.slurm_job_id, p.generation, p.created_at, "
	"p.updated_at, p.started_at, p.finished_at, p.removed_at, " P_METRICS ", p.slo_met, "
	"d.nodes, CASE WHEN json_valid(d.spec) THEN "
	"json_extract(d.spec, '$.resources.gpus_per_node') END "
	"FROM campaign_points p JOIN campaigns c ON c.id = p.campaign_id "
	"JOIN campaign_deployments d ON d.id = p.deployment_id "
	"WHERE (?1 IS NULL OR c.name = ?1) AND (?2 OR p.removed_at IS NULL) "
	"ORDER BY c.name, p.removed_at IS NOT NULL, d.position, p.seq, p.id";

static int step_done(struct srt_store *s, sqlite3_stmt *st, struct srt_error *err, const char *what,
		     const char *name)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return srt_store_sql_error(s, err, rc, "cannot %s of campaign '%s'", what, name);
	return 0;
}

/* Step a statement that RETURNs one integer. */
static int step_id(struct srt_store *s, sqlite3_stmt *st, int64_t *id, struct srt_error *err,
		   const char *what, const char *name)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	if (rc == SQLITE_ROW)
		rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return srt_store_sql_error(s, err, rc, "cannot %s of campaign '%s'", what, name);
	return 0;
}

static int put_deployments(struct srt_store *s, const struct srt_store_campaign_in *in, int64_t cid,
			   int64_t gen, int64_t now, int64_t *dids,
			   struct srt_campaign_apply_stats *st_out, struct srt_error *err)
{
	for (size_t i = 0; i < in->ndeployments; i++) {
		const struct srt_store_campaign_deployment *d = &in->deployments[i];
		sqlite3_stmt *st = srt_store_stmt(s, SQL_D_GET, err);
		int64_t owner = 0;
		bool found = false, same = false;
		char *owner_name = NULL;
		int rc;

		if (!st)
			return -1;
		srt_store_bind_text(st, 1, d->name);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			found = true;
			dids[i] = sqlite3_column_int64(st, 0);
			same = !strcmp((const char *)sqlite3_column_text(st, 1), d->spec_hash);
			owner = sqlite3_column_int64(st, 2);
			owner_name = srt_store_col_text(st, 3);
		}
		sqlite3_reset(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return srt_store_sql_error(s, err, rc, "cannot read deployment '%s'",
						   d->name);
		if (found && owner != cid) {
			srt_error_set(err,
				      "deployment '%s' belongs to campaign '%s'; rename one of "
				      "the campaigns (deployment names are <campaign>-<hash>)",
				      d->name, owner_name ? owner_name : "?");
			free(owner_name);
			return -1;
		}
		free(owner_name);
		st = srt_store_stmt(s, found ? SQL_D_UPDATE : SQL_D_INSERT, err);
		if (!st)
			return -1;
		if (found) {
			sqlite3_bind_int64(st, 1, dids[i]);
			srt_store_bind_text(st, 2, d->axes);
			srt_store_bind_text(st, 3, d->spec);
			srt_store_bind_text(st, 4, d->spec_hash);
			sqlite3_bind_int64(st, 5, d->nodes);
			sqlite3_bind_int64(st, 6, (int64_t)i + 1);
			sqlite3_bind_int64(st, 7, gen);
			sqlite3_bind_int64(st, 8, now);
			if (step_done(s, st, err, "record a deployment", in->name) != 0)
				return -1;
			if (!same)
				st_out->deployments_changed++;
			continue;
		}
		sqlite3_bind_int64(st, 1, cid);
		srt_store_bind_text(st, 2, d->name);
		srt_store_bind_text(st, 3, d->axes);
		srt_store_bind_text(st, 4, d->spec);
		srt_store_bind_text(st, 5, d->spec_hash);
		sqlite3_bind_int64(st, 6, d->nodes);
		sqlite3_bind_int64(st, 7, (int64_t)i + 1);
		sqlite3_bind_int64(st, 8, gen);
		sqlite3_bind_int64(st, 9, now);
		if (step_id(s, st, &dids[i], err, "record a deployment", in->name) != 0)
			return -1;
		st_out->deployments_new++;
	}
	return 0;
}

static int put_points(struct srt_store *s, const struct srt_store_campaign_in *in, int64_t cid,
		      int64_t gen, int64_t now, const int64_t *dids,
		      struct srt_campaign_apply_stats *st_out, struct srt_error *err)
{
	for (size_t i = 0; i < in->npoints; i++) {
		const struct srt_store_campaign_point *p = &in->points[i];
		sqlite3_stmt *st = srt_store_stmt(s, SQL_P_GET, err);
		int64_t pid = 0;
		int rc;

		if (!st)
			return -1;
		if (p->deployment >= in->ndeployments)
			return srt_error_set(err,
					     "internal error: point %zu names deployment %zu "
					     "of %zu",
					     i, p->deployment, in->ndeployments);
		sqlite3_bind_int64(st, 1, cid);
		srt_store_bind_text(st, 2, p->point_id);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			pid = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return srt_store_sql_error(s, err, rc,
						   "cannot read a point of campaign "
						   "'%s'",
						   in->name);
		if (pid) {
			st = srt_store_stmt(s, SQL_P_KEEP, err);
			if (!st)
				return -1;
			sqlite3_bind_int64(st, 1, pid);
			sqlite3_bind_int64(st, 2, p->seq);
			sqlite3_bind_int64(st, 3, gen);
			sqlite3_bind_int64(st, 4, now);
			st_out->points_kept++;
		} else {
			st = srt_store_stmt(s, SQL_P_INSERT, err);
			if (!st)
				return -1;
			srt_store_bind_text(st, 1, p->point_id);
			sqlite3_bind_int64(st, 2, cid);
			sqlite3_bind_int64(st, 3, dids[p->deployment]);
			srt_store_bind_text(st, 4, in->deployments[p->deployment].spec_hash);
			sqlite3_bind_int64(st, 5, p->seq);
			srt_store_bind_text(st, 6, in->tool);
			srt_store_bind_text(st, 7, in->params ? in->params : "{}");
			sqlite3_bind_int64(st, 8, p->isl);
			sqlite3_bind_int64(st, 9, p->osl);
			sqlite3_bind_int64(st, 10, p->concurrency);
			sqlite3_bind_int64(st, 11, p->prompts);
			sqlite3_bind_int64(st, 12, p->warmup);
			sqlite3_bind_int64(st, 13, p->repeat);
			sqlite3_bind_int64(st, 14, gen);
			sqlite3_bind_int64(st, 15, now);
			st_out->points_new++;
		}
		if (step_done(s, st, err, "record a point", in->name) != 0)
			return -1;
	}
	return 0;
}

static int remove_stale(struct srt_store *s, const char *sql, int64_t cid, int64_t gen, int64_t now,
			int64_t *count, const char *name, struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, sql, err);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, cid);
	sqlite3_bind_int64(st, 2, gen);
	sqlite3_bind_int64(st, 3, now);
	if (step_done(s, st, err, "remove what it no longer lists", name) != 0)
		return -1;
	*count = sqlite3_changes64(s->db);
	return 0;
}

static int apply_locked(struct srt_store *s, const struct srt_store_campaign_in *in,
			enum srt_apply_result *result, int64_t *generation,
			struct srt_campaign_apply_stats *stats, struct srt_error *err)
{
	const char *name = in->name, *src = in->source_file ? in->source_file : "-";
	int64_t now = srt_store_now(s), cid = 0, gen = 0, *dids = NULL;
	bool found = false, deleted = false, same = false;
	sqlite3_stmt *st = srt_store_stmt(s, SQL_C_STATE, err);
	char uid[33];
	int rc;

	if (!st)
		return -1;
	srt_store_bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		found = true;
		cid = sqlite3_column_int64(st, 0);
		same = !strcmp((const char *)sqlite3_column_text(st, 1), in->spec_hash);
		gen = sqlite3_column_int64(st, 2);
		deleted = sqlite3_column_type(st, 3) != SQLITE_NULL;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return srt_store_sql_error(s, err, rc, "cannot read campaign '%s'", name);
	if (found && same && !deleted) {
		st = srt_store_stmt(s, SQL_C_TOUCH, err);
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, cid);
		srt_store_bind_text(st, 2, in->source_file);
		srt_store_bind_text(st, 3, in->source_yaml);
		sqlite3_bind_int64(st, 4, now);
		if (step_done(s, st, err, "record the apply", name) != 0)
			return -1;
		st = srt_store_stmt(s, SQL_P_COUNT, err);
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, cid);
		if (step_id(s, st, &stats->points_kept, err, "count the points", name) != 0)
			return -1;
		*result = SRT_APPLY_UNCHANGED;
		*generation = gen;
		return 0;
	}
	if (!found) {
		srt_store_new_uid(uid);
		st = srt_store_stmt(s, SQL_C_INSERT, err);
		if (!st)
			return -1;
		srt_store_bind_text(st, 1, uid);
		srt_store_bind_text(st, 2, name);
		srt_store_bind_text(st, 3, in->spec);
		srt_store_bind_text(st, 4, in->spec_hash);
		srt_store_bind_text(st, 5, in->source_file);
		srt_store_bind_text(st, 6, in->source_yaml);
		sqlite3_bind_int64(st, 7, now);
		srt_store_bind_text(st, 8, in->notify);
		if (step_id(s, st, &cid, err, "record", name) != 0)
			return -1;
		gen = 1;
		*result = SRT_APPLY_CREATED;
	} else {
		st = srt_store_stmt(s, SQL_C_UPDATE, err);
		if (!st)
			return -1;
		gen++;
		sqlite3_bind_int64(st, 1, cid);
		srt_store_bind_text(st, 2, in->spec);
		srt_store_bind_text(st, 3, in->spec_hash);
		sqlite3_bind_int64(st, 4, gen);
		srt_store_bind_text(st, 5, in->source_file);
		srt_store_bind_text(st, 6, in->source_yaml);
		sqlite3_bind_int64(st, 7, now);
		srt_store_bind_text(st, 8, in->notify);
		if (step_done(s, st, err, "record", name) != 0)
			return -1;
		*result = SRT_APPLY_CONFIGURED;
	}
	*generation = gen;
	dids = srt_xcalloc(in->ndeployments + 1, sizeof(*dids));
	rc = put_deployments(s, in, cid, gen, now, dids, stats, err);
	if (rc == 0)
		rc = put_points(s, in, cid, gen, now, dids, stats, err);
	free(dids);
	if (rc == 0)
		rc = remove_stale(s, SQL_D_REMOVE, cid, gen, now, &stats->deployments_removed, name,
				  err);
	if (rc == 0)
		rc = remove_stale(s, SQL_P_REMOVE, cid, gen, now, &stats->points_removed, name,
				  err);
	if (rc != 0)
		return -1;
	if (*result == SRT_APPLY_CREATED)
		return srt_store_event(s, err, "Normal", "CampaignCreated", "campaign", name, "cli",
				       "Created campaign %s at generation 1 from %s: %zu "
				       "deployments, %zu points",
				       name, src, in->ndeployments, in->npoints);
	return srt_store_event(s, err, "Normal", "CampaignConfigured", "campaign", name, "cli",
			       "%s campaign %s: generation %lld from %s: %lld new points, %lld "
			       "kept, %lld removed",
			       deleted ? "Applied again after its deletion" : "Configured", name,
			       (long long)gen, src, (long long)stats->points_new,
			       (long long)stats->points_kept, (long long)stats->points_removed);
}

int srt_store_campaign_apply(struct srt_store *s, const struct srt_store_campaign_in *in,
			     enum srt_apply_result *result, int64_t *generation,
			     struct srt_campaign_apply_stats *stats, struct srt_error *err)
{
	struct srt_campaign_apply_stats local = { 0 };
	enum srt_apply_result res = SRT_APPLY_UNCHANGED;
	int64_t gen = 0;
	bool own;
	int rc;

	if (!in || !in->name || !*in->name || !in->spec || !in->spec_hash || !in->tool)
		return srt_error_set(err, "internal error: campaign_apply needs a name, a spec, "
					  "its hash and a tool");
	if (srt_store_tx_enter(s, &own, err) != 0)
		return srt_error_prefix(err, "campaign '%s'", in->name);
	rc = apply_locked(s, in, &res, &gen, &local, err);
	if (srt_store_tx_end(s, own, rc == 0, err) != 0)
		rc = -1;
	if (rc != 0)
		return -1;
	if (result)
		*result = res;
	if (generation)
		*generation = gen;
	if (stats)
		*stats = local;
	return 0;
}

static void read_campaign(sqlite3_stmt *st, struct srt_campaign_row *c)
{
	c->id = sqlite3_column_int64(st, 0);
	c->uid = srt_store_col_text(st, 1);
	c->name = srt_store_col_text(st, 2);
	c->spec = srt_store_col_text(st, 3);
	c->spec_hash = srt_store_col_text(st, 4);
	c->state = srt_store_col_text(st, 5);
	c->source_file = srt_store_col_text(st, 6);
	c->generation = sqlite3_column_int64(st, 7);
	c->created_at = sqlite3_column_int64(st, 8);
	c->updated_at = sqlite3_column_int64(st, 9);
	c->applied_at = sqlite3_column_int64(st, 10);
	c->deleted_at = sqlite3_column_int64(st, 11);
	c->deployments = sqlite3_column_int64(st, 12);
	c->pending = sqlite3_column_int64(st, 13);
	c->running = sqlite3_column_int64(st, 14);
	c->done = sqlite3_column_int64(st, 15);
	c->failed = sqlite3_column_int64(st, 16);
	c->invalid = sqlite3_column_int64(st, 17);
	c->timed_points = sqlite3_column_int64(st, 18);
	c->timed_ms = sqlite3_column_int64(st, 19);
}

int srt_store_campaign_list(struct srt_store *s, struct srt_campaign_row **rows, size_t *n,
			    struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_C_LIST, err);
	size_t cap = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*rows = srt_store_grow(*rows, n, &cap, sizeof(**rows));
		read_campaign(st, &(*rows)[*n - 1]);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		srt_campaign_rows_free(*rows, *n);
		*rows = NULL;
		*n = 0;
		return srt_store_sql_error(s, err, rc, "cannot list campaigns");
	}
	return 0;
}

int srt_store_campaign_get(struct srt_store *s, const char *name, struct srt_campaign_row *out,
			   struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_C_GET, err);
	int rc;

	memset(out, 0, sizeof(*out));
	if (!st)
		return -1;
	srt_store_bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		read_campaign(st, out);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return srt_store_sql_error(s, err, rc, "cannot read campaign '%s'", name);
}

int srt_store_campaign_delete(struct srt_store *s, const char *name, struct srt_error *err)
{
	sqlite3_stmt *st;
	int64_t gen = 0;
	bool own;
	int rc, found = 0;

	if (srt_store_tx_enter(s, &own, err) != 0)
		return srt_error_prefix(err, "campaign '%s'", name);
	st = srt_store_stmt(s, SQL_C_DELETE, err);
	rc = st ? 0 : -1;
	if (st) {
		int step;

		srt_store_bind_text(st, 1, name);
		sqlite3_bind_int64(st, 2, srt_store_now(s));
		step = sqlite3_step(st);
		if (step == SQLITE_ROW) {
			found = 1;
			gen = sqlite3_column_int64(st, 0);
			step = sqlite3_step(st);
		}
		sqlite3_reset(st);
		if (step != SQLITE_DONE)
			rc = srt_store_sql_error(s, err, step, "cannot delete campaign '%s'", name);
	}
	if (rc == 0 && found)
		rc = srt_store_event(s, err, "Normal", "CampaignDeleted", "campaign", name, "cli",
				     "Deleted campaign %s at generation %lld; its points and "
				     "results are kept",
				     name, (long long)gen);
	if (srt_store_tx_end(s, own, rc == 0, err) != 0)
		rc = -1;
	return rc == 0 ? found : -1;
}

void srt_campaign_row_release(struct srt_campaign_row *r)
{
	if (!r)
		return;
	free(r->uid);
	free(r->name);
	free(r->spec);
	free(r->spec_hash);
	free(r->state);
	free(r->source_file);
	memset(r, 0, sizeof(*r));
}

void srt_campaign_rows_free(struct srt_campaign_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		srt_campaign_row_release(&rows[i]);
	free(rows);
}

int srt_store_deployment_list(struct srt_store *s, const char *campaign,
			      struct srt_deployment_row **rows, size_t *n, struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_D_LIST, err);
	size_t cap = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	if (!st)
		return -1;
	srt_store_bind_text(st, 1, campaign);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct srt_deployment_row *d;

		*rows = srt_store_grow(*rows, n, &cap, sizeof(**rows));
		d = &(*rows)[*n - 1];
		d->id = sqlite3_column_int64(st, 0);
		d->campaign = srt_store_col_text(st, 1);
		d->name = srt_store_col_text(st, 2);
		d->axes = srt_store_col_text(st, 3);
		d->spec_hash = srt_store_col_text(st, 4);
		d->nodes = sqlite3_column_int64(st, 5);
		d->position = sqlite3_column_int64(st, 6);
		d->generation = sqlite3_column_int64(st, 7);
		d->removed_at = sqlite3_column_int64(st, 8);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		srt_deployment_rows_free(*rows, *n);
		*rows = NULL;
		*n = 0;
		return srt_store_sql_error(
			s, err, rc, "cannot list the deployments of campaign '%s'", campaign);
	}
	return 0;
}

void srt_deployment_rows_free(struct srt_deployment_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].campaign);
		free(rows[i].name);
		free(rows[i].axes);
		free(rows[i].spec_hash);
	}
	free(rows);
}

static void read_point(sqlite3_stmt *st, struct srt_point_row *p)
{
	int c = 0;

	p->id = sqlite3_column_int64(st, c++);
	p->point_id = srt_store_col_text(st, c++);
	p->campaign = srt_store_col_text(st, c++);
	p->deployment = srt_store_col_text(st, c++);
	p->axes = srt_store_col_text(st, c++);
	p->tool = srt_store_col_text(st, c++);
	p->params = srt_store_col_text(st, c++);
	p->state = srt_store_col_text(st, c++);
	p->run_name = srt_store_col_text(st, c++);
	p->message = srt_store_col_text(st, c++);
	p->raw_path = srt_store_col_text(st, c++);
	p->raw_sha256 = srt_store_col_text(st, c++);
	p->seq = sqlite3_column_int64(st, c++);
	p->isl = sqlite3_column_int64(st, c++);
	p->osl = sqlite3_column_int64(st, c++);
	p->concurrency = sqlite3_column_int64(st, c++);
	p->prompts = sqlite3_column_int64(st, c++);
	p->warmup = sqlite3_column_int64(st, c++);
	p->repeat = sqlite3_column_int64(st, c++);
	p->attempts = sqlite3_column_int64(st, c++);
	p->slurm_job_id = sqlite3_column_int64(st, c++);
	p->generation = sqlite3_column_int64(st, c++);
	p->created_at = sqlite3_column_int64(st, c++);
	p->updated_at = sqlite3_column_int64(st, c++);
	p->started_at = sqlite3_column_int64(st, c++);
	p->finished_at = sqlite3_column_int64(st, c++);
	p->removed_at = sqlite3_column_int64(st, c++);
	for (int m = 0; m < SRT_POINT_NMETRICS; m++, c++)
		p->metrics[m] = sqlite3_column_type(st, c) == SQLITE_NULL ?
					NAN :
					sqlite3_column_double(st, c);
	p->slo_met = sqlite3_column_type(st, c) == SQLITE_NULL ? -1 : sqlite3_column_int(st, c);
	c++;
	p->nodes = sqlite3_column_int64(st, c++);
	p->gpus_per_node =
		sqlite3_column_type(st, c) == SQLITE_INTEGER ? sqlite3_column_int64(st, c) : 0;
}

static void point_row_release(struct srt_point_row *p)
{
	free(p->point_id);
	free(p->campaign);
	free(p->deployment);
	free(p->axes);
	free(p->tool);
	free(p->params);
	free(p->state);
	free(p->run_name);
	free(p->message);
	free(p->raw_path);
	free(p->raw_sha256);
}

int srt_store_point_each(struct srt_store *s, const char *campaign, bool include_removed,
			 srt_point_fn fn, void *ctx, struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_P_LIST, err);
	int rc, frc = 0;

	if (!st)
		return -1;
	srt_store_bind_text(st, 1, campaign);
	sqlite3_bind_int(st, 2, include_removed);
	while (!frc && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct srt_point_row row;

		read_point(st, &row);
		frc = fn(ctx, &row);
		point_row_release(&row);
	}
	sqlite3_reset(st);
	if (frc)
		return frc;
	if (rc != SQLITE_DONE)
		return srt_store_sql_error(s, err, rc, "cannot list points");
	return 0;
}

struct point_rows {
	struct srt_point_row *v;
	size_t n, cap;
};

/* Keep a copy of the row: its strings are taken over (the caller's copy is zeroed). */
static int keep_point(void *ctx, struct srt_point_row *row)
{
	struct point_rows *r = ctx;

	r->v = srt_store_grow(r->v, &r->n, &r->cap, sizeof(*r->v));
	r->v[r->n - 1] = *row;
	memset(row, 0, sizeof(*row));
	return 0;
}

int srt_store_point_list(struct srt_store *s, const char *campaign, bool include_removed,
			 struct srt_point_row **rows, size_t *n, struct srt_error *err)
{
	struct point_rows r = { 0 };

	if (srt_store_point_each(s, campaign, include_removed, keep_point, &r, err) != 0) {
		srt_point_rows_free(r.v, r.n);
		*rows = NULL;
		*n = 0;
		return -1;
	}
	*rows = r.v;
	*n = r.n;
	return 0;
}

void srt_point_rows_free(struct srt_point_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		point_row_release(&rows[i]);
	free(rows);
}
