/*
 * store/steer.c: a user's say over a campaign's course (store/store.h):
 * suspend, resume, and retry its failed or invalid points.
 *
 * These are desired-state changes like apply and delete: each is one
 * transaction holding the change and the event that explains it, and the
 * controller acts on them in its next pass (a suspended campaign starts no
 * new deployment; a resumed one is decided again from its counts; retried
 * points are pending work like any other).  A change is a compare-and-set
 * on what the caller read in the same transaction, so a controller pass
 * that commits in between is never overwritten blindly.
 */
#include "store/internal.h"
#include "util/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char SQL_STATE[] =
	"SELECT state, deleted_at IS NOT NULL FROM campaigns WHERE name = ?1";
static const char SQL_CAS_STATE[] = "UPDATE campaigns SET state = ?3, updated_at = ?4 "
				    "WHERE name = ?1 AND state = ?2 AND deleted_at IS NULL";
/* Points of current deployments only: a removed point or deployment is history. */
static const char SQL_RETRY[] =
	"UPDATE campaign_points SET state = 'pending', attempts = 0, updated_at = ?4, "
	"message = substr(?3 || coalesce(' (was: ' || message || ')', ''), 1, 1000), "
	"run_name = NULL, slurm_job_id = NULL, started_at = NULL, finished_at = NULL, "
	"completed = NULL, duration_s = NULL, total_input_tokens = NULL, "
	"total_output_tokens = NULL, request_throughput = NULL, output_throughput = NULL, "
	"total_token_throughput = NULL, mean_ttft_ms = NULL, median_ttft_ms = NULL, "
	"p99_ttft_ms = NULL, mean_tpot_ms = NULL, median_tpot_ms = NULL, p99_tpot_ms = NULL, "
	"mean_itl_ms = NULL, median_itl_ms = NULL, p99_itl_ms = NULL, mean_e2el_ms = NULL, "
	"median_e2el_ms = NULL, p99_e2el_ms = NULL, errors = NULL, raw_json = NULL, "
	"raw_path = NULL, raw_sha256 = NULL, slo_met = NULL "
	"WHERE campaign_id = (SELECT id FROM campaigns WHERE name = ?1) AND state = ?2 "
	"AND removed_at IS NULL AND deployment_id IN "
	"(SELECT id FROM campaign_deployments WHERE removed_at IS NULL)";

/*
 * Read campaign `name`'s state into state[0..n).  1 live, or
 * SRT_STORE_NO_CAMPAIGN (unknown or deleted, err says which), -1.
 */
static int read_state(struct srt_store *s, const char *name, char *state, size_t n,
		      struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_STATE, err);
	bool deleted = false;
	int rc;

	if (!st)
		return -1;
	srt_store_bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);

		snprintf(state, n, "%s", v ? v : "");
		deleted = sqlite3_column_int(st, 1) != 0;
	}
	sqlite3_reset(st);
	if (rc == SQLITE_DONE) {
		srt_error_set(err, "campaign '%s' not found; `srtctl get campaigns` lists them",
			      name);
		return SRT_STORE_NO_CAMPAIGN;
	}
	if (rc != SQLITE_ROW)
		return srt_store_sql_error(s, err, rc, "cannot read campaign '%s'", name);
	if (deleted) {
		srt_error_set(err, "campaign '%s' is deleted; `srtctl apply` brings it back", name);
		return SRT_STORE_NO_CAMPAIGN;
	}
	return 1;
}

/* campaigns.state from -> to (the caller read `from` in this transaction). */
static int cas_state(struct srt_store *s, const char *name, const char *from, const char *to,
		     struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_CAS_STATE, err);
	int rc;

	if (!st)
		return -1;
	srt_store_bind_text(st, 1, name);
	srt_store_bind_text(st, 2, from);
	srt_store_bind_text(st, 3, to);
	sqlite3_bind_int64(st, 4, srt_store_now(s));
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return srt_store_sql_error(s, err, rc, "cannot set the state of campaign '%s'",
					   name);
	return 0;
}

/*
 * Suspend (to "Suspended") or resume (from "Suspended" to "Running") in one
 * transaction with its event.  1 changed, 0 nothing to do, or as read_state().
 */
static int steer(struct srt_store *s, const char *name, bool suspend, char *state, size_t n,
		 struct srt_error *err)
{
	bool own;
	int rc;

	if (srt_store_tx_enter(s, &own, err) != 0)
		return -1;
	rc = read_state(s, name, state, n, err);
	if (rc == 1 && suspend == !strcmp(state, "Suspended"))
		rc = 0; /* already suspended; or resume of one that is not */
	if (rc == 1 && cas_state(s, name, state, suspend ? "Suspended" : "Running", err) != 0)
		rc = -1;
	if (rc == 1 &&
	    srt_store_event(
		    s, err, "Normal", suspend ? "CampaignSuspended" : "CampaignResumed", "campaign",
		    name, "cli", "%s",
		    suspend ? "suspended by user: no new deployment starts; running "
			      "ones finish" :
			      "resumed by user: the controller decides again what starts") != 0)
		rc = -1;
	if (srt_store_tx_end(s, own, rc == 1, err) != 0)
		rc = -1;
	return rc;
}

int srt_store_campaign_suspend(struct srt_store *s, const char *name, char *state, size_t n,
			       struct srt_error *err)
{
	return steer(s, name, true, state, n, err);
}

int srt_store_campaign_resume(struct srt_store *s, const char *name, char *state, size_t n,
			      struct srt_error *err)
{
	return steer(s, name, false, state, n, err);
}

/* Points of `name` in `pstate` back to pending; *count gets how many. */
static int retry_state(struct srt_store *s, const char *name, const char *pstate, const char *msg,
		       int64_t *count, struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_RETRY, err);
	int rc;

	if (!st)
		return -1;
	srt_store_bind_text(st, 1, name);
	srt_store_bind_text(st, 2, pstate);
	srt_store_bind_text(st, 3, msg);
	sqlite3_bind_int64(st, 4, srt_store_now(s));
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return srt_store_sql_error(
			s, err, rc, "cannot retry the %s points of campaign '%s'", pstate, name);
	*count = sqlite3_changes(s->db);
	return 0;
}

int srt_store_campaign_retry(struct srt_store *s, const char *name, struct srt_campaign_retry *r,
			     struct srt_error *err)
{
	char ts[40], msg[80];
	bool own;
	int rc;

	r->reset_failed = r->reset_invalid = 0;
	r->state_before[0] = r->state_after[0] = '\0';
	if (srt_store_tx_enter(s, &own, err) != 0)
		return -1;
	rc = read_state(s, name, r->state_before, sizeof(r->state_before), err);
	srt_time_rfc3339(srt_store_now(s), ts, sizeof(ts));
	snprintf(msg, sizeof(msg), "retried by user at %s", ts);
	if (rc == 1 && r->failed && retry_state(s, name, "failed", msg, &r->reset_failed, err) != 0)
		rc = -1;
	if (rc == 1 && r->invalid &&
	    retry_state(s, name, "invalid", msg, &r->reset_invalid, err) != 0)
		rc = -1;
	if (rc == 1)
		snprintf(r->state_after, sizeof(r->state_after), "%s", r->state_before);
	if (rc == 1 && r->reset_failed + r->reset_invalid > 0) {
		/* Work again: a finished or stopped campaign runs (the controller re-decides). */
		if (!strcmp(r->state_before, "Done") || !strcmp(r->state_before, "Stopped")) {
			snprintf(r->state_after, sizeof(r->state_after), "Running");
			if (cas_state(s, name, r->state_before, "Running", err) != 0)
				rc = -1;
		}
		if (rc == 1 &&
		    srt_store_event(
			    s, err, "Normal", "PointsRetried", "campaign", name, "cli",
			    "%lld point(s) back to pending by user (%lld failed, %lld "
			    "invalid), attempts reset; state %s%s%s",
			    (long long)(r->reset_failed + r->reset_invalid),
			    (long long)r->reset_failed, (long long)r->reset_invalid,
			    r->state_before, strcmp(r->state_before, r->state_after) ? " -> " : "",
			    strcmp(r->state_before, r->state_after) ? r->state_after : "") != 0)
			rc = -1;
	}
	if (srt_store_tx_end(s, own, rc == 1, err) != 0)
		rc = -1;
	return rc;
}
