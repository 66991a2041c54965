/*
 * store/events.c: the event history (Kubernetes semantics, longer memory).
 *
 * An event names an object (kind/name) and says what happened to it.  An
 * event identical to one recorded within SRT_EVENT_DEDUP_WINDOW_MS (same
 * type, reason, object and message) bumps that row's count and last_at
 * instead of adding a row, so a crash-looping service makes one line with
 * a count, not thousands.  Rows are kept until srt_store_event_prune().
 *
 * The identical event is looked for among the object's newest
 * SRT_EVENT_DEDUP_SCAN events in the window, so recording an event costs the
 * same however many distinct events the object had lately (an exhaustive
 * search is quadratic in them).  Like Kubernetes' own event correlator, the
 * deduplication is a best effort: an event repeated after that many other
 * events of the same object in ten minutes gets a new row.
 *
 * The indexes follow the queries: events_object (kind, name, last_at)
 * serves `events --for KIND/NAME --since D` and the dedup lookup (both an
 * equality on the object and a range on last_at); events_time (last_at)
 * serves `events --since D` for every object and pruning.  Listing walks
 * the index newest first (so --limit N stops after N rows) and the result
 * is reversed to print oldest first.
 */
#include "store/store.h"
#include "store/internal.h"
#include "util/buf.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The identical event among the object's SRT_EVENT_DEDUP_SCAN newest within the window. */
static const char SQL_EVENT_FIND[] =
	"SELECT id FROM (SELECT id, type, reason, message, first_at FROM events "
	"WHERE kind = ?1 AND name = ?2 AND last_at >= ?3 ORDER BY last_at DESC LIMIT ?8) "
	"WHERE first_at <= ?4 AND type = ?5 AND reason = ?6 AND message = ?7 LIMIT 1";
static const char SQL_EVENT_BUMP[] =
	"UPDATE events SET count = count + 1, last_at = max(last_at, ?2), "
	"first_at = min(first_at, ?2) WHERE id = ?1";
static const char SQL_EVENT_INSERT[] =
	"INSERT INTO events (type, reason, kind, name, message, count, first_at, last_at, source) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
#define EVENT_COLUMNS "id, type, reason, kind, name, message, source, count, first_at, last_at"
/* ?1 kind, ?2 name, ?3 since, ?4 type, ?5 reason, ?6 after_id, ?7 limit (-1: none).
 * Not static: tests check their query plans. */
const char srt_store_sql_event_list_object[] =
	"SELECT " EVENT_COLUMNS " FROM events "
	"WHERE kind = ?1 AND name = ?2 AND last_at >= ?3 "
	"AND (?4 IS NULL OR type = ?4) AND (?5 IS NULL OR reason = ?5) AND id > ?6 "
	"ORDER BY last_at DESC, id DESC LIMIT ?7";
const char srt_store_sql_event_list_all[] =
	"SELECT " EVENT_COLUMNS " FROM events "
	"WHERE last_at >= ?3 "
	"AND (?4 IS NULL OR type = ?4) AND (?5 IS NULL OR reason = ?5) AND id > ?6 "
	"ORDER BY last_at DESC, id DESC LIMIT ?7";
static const char SQL_EVENT_PRUNE[] = "DELETE FROM events WHERE last_at < ?1";

static int insert(struct srt_store *s, const char *type, const char *reason, const char *kind,
		  const char *name, const char *message, const char *source, int64_t count,
		  int64_t first_at, int64_t last_at, struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_EVENT_INSERT, err);
	int rc;

	if (!st)
		return -1;
	srt_store_bind_text(st, 1, type);
	srt_store_bind_text(st, 2, reason);
	srt_store_bind_text(st, 3, kind);
	srt_store_bind_text(st, 4, name);
	srt_store_bind_text(st, 5, message);
	sqlite3_bind_int64(st, 6, count);
	sqlite3_bind_int64(st, 7, first_at);
	sqlite3_bind_int64(st, 8, last_at);
	srt_store_bind_text(st, 9, source ? source : "cli");
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return srt_store_sql_error(s, err, rc, "cannot record event %s for %s/%s", reason,
					   kind, name);
	return 0;
}

/* Look up an identical recent event and bump it, or insert a new row. */
static int record(struct srt_store *s, int64_t at, const char *type, const char *reason,
		  const char *kind, const char *name, const char *source, const char *message,
		  struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_EVENT_FIND, err);
	int64_t id = 0;
	int rc;

	if (!st)
		return -1;
	srt_store_bind_text(st, 1, kind);
	srt_store_bind_text(st, 2, name);
	sqlite3_bind_int64(st, 3, at - SRT_EVENT_DEDUP_WINDOW_MS);
	sqlite3_bind_int64(st, 4, at + SRT_EVENT_DEDUP_WINDOW_MS);
	srt_store_bind_text(st, 5, type);
	srt_store_bind_text(st, 6, reason);
	srt_store_bind_text(st, 7, message);
	sqlite3_bind_int(st, 8, SRT_EVENT_DEDUP_SCAN);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return srt_store_sql_error(s, err, rc, "cannot record event %s for %s/%s", reason,
					   kind, name);
	if (!id)
		return insert(s, type, reason, kind, name, message, source, 1, at, at, err);
	st = srt_store_stmt(s, SQL_EVENT_BUMP, err);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, at);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return srt_store_sql_error(s, err, rc, "cannot record event %s for %s/%s", reason,
					   kind, name);
	return 0;
}

static bool all_of(const char *s, size_t max, const char *extra, bool upper)
{
	size_t n = 0;

	for (; s[n]; n++) {
		unsigned char c = (unsigned char)s[n];

		if (n >= max)
			return false;
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      (upper && c >= 'A' && c <= 'Z') || (c && strchr(extra, c))))
			return false;
	}
	return n > 0;
}

int srt_store_event_check(int64_t at, const char *reason, const char *kind, const char *name,
			  struct srt_error *err)
{
	size_t n;

	if (at < SRT_EVENT_TIME_MIN || at > SRT_EVENT_TIME_MAX)
		return srt_error_set(err,
				     "its time is not between 2000-01-01 and 2100-01-01 (Unix ms "
				     "%lld to %lld)",
				     SRT_EVENT_TIME_MIN, SRT_EVENT_TIME_MAX);
	if (!reason || !all_of(reason, SRT_EVENT_REASON_MAX, "_.-", true))
		return srt_error_set(err,
				     "its reason is not 1 to %d characters of A-Z, a-z, 0-9, '_', "
				     "'.' and '-'",
				     SRT_EVENT_REASON_MAX);
	if (!kind || !all_of(kind, SRT_EVENT_KIND_MAX, "_-", false))
		return srt_error_set(err,
				     "its object kind is not 1 to %d characters of a-z, 0-9, '_' "
				     "and '-'",
				     SRT_EVENT_KIND_MAX);
	for (n = 0; name && name[n] && n <= SRT_EVENT_NAME_MAX; n++)
		if ((unsigned char)name[n] < 0x20 || name[n] == 0x7f)
			break;
	if (!name || !n || n > SRT_EVENT_NAME_MAX || name[n])
		return srt_error_set(err,
				     "its object name is empty, longer than %d bytes or holds "
				     "control characters",
				     SRT_EVENT_NAME_MAX);
	return 0;
}

/* The message cut to SRT_EVENT_MESSAGE_MAX bytes (on a UTF-8 boundary) and
 * marked, or NULL when it fits.  Caller frees. */
static char *cut_message(const char *message)
{
	size_t len = strlen(message), keep = SRT_EVENT_MESSAGE_MAX;

	if (len <= SRT_EVENT_MESSAGE_MAX)
		return NULL;
	while (keep && ((unsigned char)message[keep] & 0xC0) == 0x80)
		keep--; /* not inside a UTF-8 sequence */
	return srt_xasprintf("%.*s" SRT_EVENT_TRUNCATED_MARK " %zu bytes in all]", (int)keep,
			     message, len);
}

int srt_store_event_at(struct srt_store *s, int64_t at, const char *type, const char *reason,
		       const char *kind, const char *name, const char *source, const char *message,
		       struct srt_error *err)
{
	char *cut = NULL;
	bool own;
	int rc;

	if (!type || !reason || !kind || !name || !message)
		return srt_error_set(err, "internal error: an event needs a type, a reason, an "
					  "object and a message");
	if (strcmp(type, "Normal") && strcmp(type, "Warning"))
		return srt_error_set(err,
				     "internal error: event type '%s' for %s/%s is neither "
				     "Normal nor Warning",
				     type, kind, name);
	if (srt_store_event_check(at, reason, kind, name, err) != 0)
		return srt_error_prefix(err, "event refused");
	if (srt_store_tx_enter(s, &own, err) != 0)
		return -1;
	cut = cut_message(message);
	rc = record(s, at, type, reason, kind, name, source, cut ? cut : message, err);
	free(cut);
	if (srt_store_tx_end(s, own, rc == 0, err) != 0)
		rc = -1;
	return rc;
}

int srt_store_event(struct srt_store *s, struct srt_error *err, const char *type,
		    const char *reason, const char *kind, const char *name, const char *source,
		    const char *fmt, ...)
{
	struct srt_buf msg;
	va_list ap;
	int rc;

	srt_buf_init(&msg);
	va_start(ap, fmt);
	srt_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	rc = srt_store_event_at(s, srt_store_now(s), type, reason, kind, name, source, msg.data,
				err);
	srt_buf_release(&msg);
	return rc;
}

int srt_store_event_insert_raw(struct srt_store *s, const struct srt_event_row *ev,
			       struct srt_error *err)
{
	int64_t first = ev->first_at ? ev->first_at : srt_store_now(s);
	int64_t last = ev->last_at ? ev->last_at : first;
	bool own;
	int rc;

	if (srt_store_tx_enter(s, &own, err) != 0)
		return -1;
	rc = insert(s, ev->type, ev->reason, ev->kind, ev->name, ev->message, ev->source,
		    ev->count > 0 ? ev->count : 1, first, last, err);
	if (srt_store_tx_end(s, own, rc == 0, err) != 0)
		rc = -1;
	return rc;
}

static void read_row(sqlite3_stmt *st, struct srt_event_row *e)
{
	e->id = sqlite3_column_int64(st, 0);
	e->type = srt_store_col_text(st, 1);
	e->reason = srt_store_col_text(st, 2);
	e->kind = srt_store_col_text(st, 3);
	e->name = srt_store_col_text(st, 4);
	e->message = srt_store_col_text(st, 5);
	e->source = srt_store_col_text(st, 6);
	e->count = sqlite3_column_int64(st, 7);
	e->first_at = sqlite3_column_int64(st, 8);
	e->last_at = sqlite3_column_int64(st, 9);
}

int srt_store_event_list(struct srt_store *s, const struct srt_event_filter *f,
			 struct srt_event_row **rows, size_t *n, struct srt_error *err)
{
	static const struct srt_event_filter all = { 0 };
	bool object;
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	if (!f)
		f = &all;
	if (!f->kind != !f->name)
		return srt_error_set(err, "internal error: an event filter needs both a kind and "
					  "a name, or neither");
	object = f->kind != NULL;
	st = srt_store_stmt(
		s, object ? srt_store_sql_event_list_object : srt_store_sql_event_list_all, err);
	if (!st)
		return -1;
	if (object) {
		srt_store_bind_text(st, 1, f->kind);
		srt_store_bind_text(st, 2, f->name);
	}
	sqlite3_bind_int64(st, 3, f->since);
	srt_store_bind_text(st, 4, f->type);
	srt_store_bind_text(st, 5, f->reason);
	sqlite3_bind_int64(st, 6, f->after_id);
	sqlite3_bind_int64(st, 7, f->limit > 0 ? f->limit : -1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			*rows = srt_xrealloc(*rows, cap * sizeof(**rows));
		}
		read_row(st, &(*rows)[(*n)++]);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		srt_event_rows_free(*rows, *n);
		*rows = NULL;
		*n = 0;
		return srt_store_sql_error(s, err, rc, "cannot list events");
	}
	/* Newest first from the index; the caller gets oldest first. */
	for (size_t i = 0, j = *n ? *n - 1 : 0; i < j; i++, j--) {
		struct srt_event_row t = (*rows)[i];

		(*rows)[i] = (*rows)[j];
		(*rows)[j] = t;
	}
	return 0;
}

int srt_store_event_prune(struct srt_store *s, int64_t before, int64_t *deleted,
			  struct srt_error *err)
{
	sqlite3_stmt *st;
	bool own;
	int rc;

	if (deleted)
		*deleted = 0;
	if (srt_store_tx_enter(s, &own, err) != 0)
		return -1;
	st = srt_store_stmt(s, SQL_EVENT_PRUNE, err);
	if (!st) {
		srt_store_tx_end(s, own, false, NULL);
		return -1;
	}
	sqlite3_bind_int64(st, 1, before);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		srt_store_sql_error(s, err, rc, "cannot prune events");
		srt_store_tx_end(s, own, false, NULL);
		return -1;
	}
	if (deleted)
		*deleted = sqlite3_changes64(s->db);
	return srt_store_tx_end(s, own, true, err);
}

void srt_event_rows_free(struct srt_event_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].type);
		free(rows[i].reason);
		free(rows[i].kind);
		free(rows[i].name);
		free(rows[i].message);
		free(rows[i].source);
	}
	free(rows);
}
