/*
 * store/notifications.c: the notifications owed to the cluster's `notify:`
 * command and to campaigns' own (migrations/0003_notifications.sql,
 * 0008_campaign_notify.sql).
 *
 * Rows are inserted by triggers in the transaction of the state change they
 * report (a run becoming Failed, a service entering CrashLoopBackOff, a
 * campaign ending), one per sink; this
 * file only reads the due ones and records what each delivery attempt did.
 * The notifier (notify/) owns the policy (back-off, attempts, timeouts).
 */
#include "store/internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

static const char SQL_NOTIFY_DUE[] =
	"SELECT n.id, n.event_id, n.reason, n.kind, n.name, n.payload, n.state, n.last_error, "
	"n.attempts, n.next_attempt_at, n.created_at, n.updated_at, n.campaign_id, c.name, "
	"c.notify FROM notifications n LEFT JOIN campaigns c ON c.id = n.campaign_id "
	"WHERE n.state = 'Pending' AND n.next_attempt_at <= ?1 AND (n.campaign_id <> 0 OR ?2) "
	"ORDER BY n.next_attempt_at, n.id LIMIT 1";
static const char SQL_NOTIFY_UPDATE[] =
	"UPDATE notifications SET state = ?2, attempts = attempts + ?3, "
	"next_attempt_at = CASE WHEN ?4 < 0 THEN next_attempt_at ELSE ?4 END, "
	"last_error = coalesce(?5, last_error), updated_at = ?6 WHERE id = ?1";

int srt_store_notification_next_due(struct srt_store *s, int64_t now, bool cluster,
				    struct srt_notification_row *out, struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_NOTIFY_DUE, err);
	int rc;

	memset(out, 0, sizeof(*out));
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int(st, 2, cluster ? 1 : 0);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->id = sqlite3_column_int64(st, 0);
		out->event_id = srt_store_col_text(st, 1);
		out->reason = srt_store_col_text(st, 2);
		out->kind = srt_store_col_text(st, 3);
		out->name = srt_store_col_text(st, 4);
		out->payload = srt_store_col_text(st, 5);
		out->state = srt_store_col_text(st, 6);
		out->last_error = srt_store_col_text(st, 7);
		out->attempts = sqlite3_column_int64(st, 8);
		out->next_attempt_at = sqlite3_column_int64(st, 9);
		out->created_at = sqlite3_column_int64(st, 10);
		out->updated_at = sqlite3_column_int64(st, 11);
		out->campaign_id = sqlite3_column_int64(st, 12);
		out->campaign = srt_store_col_text(st, 13);
		out->campaign_notify = srt_store_col_text(st, 14);
	}
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return srt_store_sql_error(s, err, rc, "cannot read the pending notifications");
}

int srt_store_notification_update(struct srt_store *s, int64_t id, const char *state, bool attempt,
				  int64_t next_attempt_at, const char *error, struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_NOTIFY_UPDATE, err);
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	srt_store_bind_text(st, 2, state);
	sqlite3_bind_int(st, 3, attempt ? 1 : 0);
	sqlite3_bind_int64(st, 4, next_attempt_at);
	srt_store_bind_text(st, 5, error);
	sqlite3_bind_int64(st, 6, srt_store_now(s));
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return srt_store_sql_error(s, err, rc, "cannot record notification %lld's delivery",
					   (long long)id);
	if (sqlite3_changes(s->db) == 0)
		return srt_error_set(err, "no notification %lld", (long long)id);
	return 0;
}

void srt_notification_row_release(struct srt_notification_row *r)
{
	if (!r)
		return;
	free(r->event_id);
	free(r->reason);
	free(r->kind);
	free(r->name);
	free(r->payload);
	free(r->state);
	free(r->last_error);
	free(r->campaign);
	free(r->campaign_notify);
	memset(r, 0, sizeof(*r));
}
