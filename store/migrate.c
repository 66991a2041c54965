/*
 * store/migrate.c: applying the embedded migrations.
 *
 * Migration N is migrations/NNNN_name.sql, embedded at build time.  Each
 * runs in its own write transaction together with "PRAGMA user_version =
 * N", so a database is always wholly at one version: a crash or a failing
 * statement leaves it at the previous one.  The version is read again once
 * the write lock is held, so two processes opening a new database at the
 * same time apply each migration exactly once.
 *
 * Foreign keys are off while migrating (SQLite's recipe for rebuilding a
 * table needs that, and PRAGMA foreign_keys cannot change inside a
 * transaction); PRAGMA foreign_key_check inside each migration's
 * transaction makes sure the result is consistent before it commits.
 */
#include "store/internal.h"

#include <stdio.h>

static int check_foreign_keys(struct srt_store *s, const struct srt_migration *m,
			      struct srt_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(s->db, "PRAGMA foreign_key_check", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		srt_error_set(err,
			      "migration %s left a row in table %s that refers to a missing row "
			      "of %s; the database was left at schema %d; please report this bug",
			      m->name, (const char *)sqlite3_column_text(st, 0),
			      (const char *)sqlite3_column_text(st, 2), m->version - 1);
		sqlite3_finalize(st);
		return -1;
	}
	if (rc != SQLITE_DONE) {
		srt_store_sql_error(s, err, rc, "migration %s: cannot check foreign keys", m->name);
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static int apply_one(struct srt_store *s, const struct srt_migration *m, struct srt_error *err)
{
	char *msg = NULL;
	int rc;

	rc = sqlite3_exec(s->db, m->sql, NULL, NULL, &msg);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(s->db, m->set_version, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		srt_store_sql_error(s, err, rc,
				    "cannot upgrade the database to schema %d (migration %s); "
				    "it was left at schema %d",
				    m->version, m->name, m->version - 1);
		sqlite3_free(msg);
		return -1;
	}
	return check_foreign_keys(s, m, err);
}

int srt_store_migrate(struct srt_store *s, int target, struct srt_error *err)
{
	int version;

	if (srt_store_read_version(s, &version, err) != 0 ||
	    srt_store_check_version(s, version, err) != 0)
		return -1;
	if (version >= target)
		return 0;
	if (sqlite3_exec(s->db, "PRAGMA foreign_keys = OFF", NULL, NULL, NULL) != SQLITE_OK)
		return srt_store_sql_error(s, err, sqlite3_errcode(s->db),
					   "cannot prepare the schema upgrade");
	for (;;) {
		if (srt_store_begin(s, err) != 0)
			return srt_error_prefix(err, "cannot upgrade the database schema");
		if (srt_store_read_version(s, &version, err) != 0)
			goto fail;
		/* A newer srtctl (or a hostile writer) got there first: never index
		 * the embedded migrations with a version outside 0..known. */
		if (srt_store_check_version(s, version, err) != 0)
			goto fail;
		if (version >= target) {
			srt_store_rollback(s);
			return 0;
		}
		if (apply_one(s, &srt_store_migrations[version], err) != 0)
			goto fail;
		if (srt_store_commit(s, err) != 0)
			return srt_error_prefix(err, "cannot upgrade the database to schema %d",
						version + 1);
	}
fail:
	srt_store_rollback(s);
	return -1;
}
