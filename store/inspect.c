/*
 * store/inspect.c: a look at a database without changing it (`srtctl doctor`).
 *
 * Opens the file read-only with SQLite directly, not through
 * srt_store_open(): a database of an older or newer schema, or one that is
 * damaged, must still be described rather than refused or migrated.
 * Reads PRAGMA user_version and the first line of PRAGMA quick_check.
 */
#include "store/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The first column of the first row of `sql` as text into buf; SQLite's code. */
static int pragma_text(sqlite3 *db, const char *sql, char *buf, size_t n)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);

		snprintf(buf, n, "%s", t ? (const char *)t : "");
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

int srt_store_inspect(const char *path, struct srt_store_health *out, struct srt_error *err)
{
	struct srt_store s = { .path = (char *)path };
	char version[32], wal[4096];
	struct stat st;
	int rc;

	memset(out, 0, sizeof(*out));
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return srt_error_set(err, "database %s: not a regular file", path);
	out->bytes = (int64_t)st.st_size;
	snprintf(wal, sizeof(wal), "%s-wal", path);
	if (stat(wal, &st) == 0 && S_ISREG(st.st_mode))
		out->bytes += (int64_t)st.st_size;
	rc = sqlite3_open_v2(path, &s.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(s.db, SRT_STORE_BUSY_TIMEOUT_MS);
		rc = pragma_text(s.db, "PRAGMA user_version", version, sizeof(version));
	}
	if (rc != SQLITE_OK) {
		srt_store_sql_error(&s, err, rc, "cannot read the database");
		sqlite3_close(s.db);
		return -1;
	}
	out->schema = atoi(version);
	rc = pragma_text(s.db, "PRAGMA quick_check", out->check, sizeof(out->check));
	if (rc != SQLITE_OK) {
		srt_store_sql_error(&s, err, rc, "cannot check the database");
		sqlite3_close(s.db);
		return -1;
	}
	sqlite3_close(s.db);
	return 0;
}
