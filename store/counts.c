/*
 * store/counts.c: aggregate counts for metrics (http/metrics.c): rows by
 * phase or state, events by type and reason, restarts.  Read-only; each is
 * one GROUP BY over a table, so a scrape costs a few index or table scans.
 */
#include "store/internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

/* Indexed by enum srt_store_count: key, key2 (or NULL), count. */
static const char *const SQL_COUNTS[SRT_COUNT_KINDS] = {
	[SRT_COUNT_RUN_PHASE] = "SELECT phase, NULL, count(*) FROM runs GROUP BY phase ORDER BY 1",
	[SRT_COUNT_SERVICE_STATE] =
		"SELECT state, NULL, count(*) FROM services GROUP BY state ORDER BY 1",
	[SRT_COUNT_WORKER_STATE] =
		"SELECT state, NULL, count(*) FROM workers GROUP BY state ORDER BY 1",
	[SRT_COUNT_RESTARTS] = "SELECT 'service', NULL, coalesce(sum(restarts), 0) FROM services "
			       "UNION ALL SELECT 'worker', NULL, coalesce(sum(restarts), 0) "
			       "FROM workers",
	[SRT_COUNT_EVENT_REASON] = "SELECT type, reason, sum(count) FROM events "
				   "GROUP BY type, reason ORDER BY 1, 2",
	[SRT_COUNT_CAMPAIGN_STATE] = "SELECT state, NULL, count(*) FROM campaigns "
				     "WHERE deleted_at IS NULL GROUP BY state ORDER BY 1",
	[SRT_COUNT_RECIPES] = "SELECT CASE WHEN deleted_at IS NULL THEN 'live' ELSE 'deleted' END, "
			      "NULL, count(*) FROM recipes GROUP BY 1 ORDER BY 1",
	[SRT_COUNT_NOTIFICATION_STATE] =
		"SELECT state, NULL, count(*) FROM notifications GROUP BY state ORDER BY 1",
};

int srt_store_count(struct srt_store *s, enum srt_store_count what, struct srt_count_row **rows,
		    size_t *n, struct srt_error *err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	if ((int)what < 0 || what >= SRT_COUNT_KINDS)
		return srt_error_set(err, "unknown count %d (a bug)", (int)what);
	st = srt_store_stmt(s, SQL_COUNTS[what], err);
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct srt_count_row *r;

		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*rows = srt_xrealloc(*rows, cap * sizeof(**rows));
		}
		r = &(*rows)[(*n)++];
		r->key = srt_store_col_text(st, 0);
		r->key2 = srt_store_col_text(st, 1);
		r->count = sqlite3_column_int64(st, 2);
		if (!r->key)
			r->key = srt_xstrdup("");
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		srt_count_rows_free(*rows, *n);
		*rows = NULL;
		*n = 0;
		return srt_store_sql_error(s, err, rc, "cannot count rows for metrics");
	}
	return 0;
}

void srt_count_rows_free(struct srt_count_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].key);
		free(rows[i].key2);
	}
	free(rows);
}
