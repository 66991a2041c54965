/*
 * store/internal.h: what the files of the store module share (private).
 *
 * store/store.h is the module's interface; this header is included only by
 * the store/ sources.  It holds the connection struct, the per-connection cache of
 * prepared statements, the error helper that turns an SQLite failure into a
 * message a user can act on, and the table of embedded migrations (generated
 * at build time from the migrations/ SQL files by store/embed_migrations.cmake).
 */
#ifndef SRT_STORE_INTERNAL_H
#define SRT_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"

/* Bound on how long srt_store_begin() keeps retrying a busy database. */
#define SRT_STORE_BEGIN_TIMEOUT_MS 30000
/* SQLite's own busy handler waits this long inside one call. */
#define SRT_STORE_BUSY_TIMEOUT_MS 10000

struct srt_migration {
	int version;
	const char *name; /* "0001_init" */
	const char *sql;
	const char *set_version; /* "PRAGMA user_version = N" */
};

/* Generated: migrations in order; srt_store_migrations[i].version == i + 1. */
extern const struct srt_migration srt_store_migrations[];
extern const int srt_store_migrations_count;

struct srt_cached_stmt {
	const char *sql; /* the key: the address of a static string */
	sqlite3_stmt *stmt;
};

struct srt_store {
	sqlite3 *db;
	char *path;
	const struct srt_clock *clock;
	bool readonly;
	struct srt_cached_stmt *cache;
	size_t ncache, capcache;
};

/*
 * The prepared statement for `sql` (a static string: the cache is keyed by
 * its address), prepared once per connection, reset and with its bindings
 * cleared.  The caller must sqlite3_reset() it when done so that it does
 * not hold a read snapshot open.  NULL with err set on failure.
 */
sqlite3_stmt *srt_store_stmt(struct srt_store *s, const char *sql, struct srt_error *err);

/*
 * Fill err for a failed SQLite call with result code `rc`: "<what>: <what
 * SQLite said> (<path>); <what to do>".  The hint is chosen from the result
 * code and the system errno (disk full, read-only, permissions, damaged
 * file, busy).  Returns -1.
 */
int srt_store_sql_error(struct srt_store *s, struct srt_error *err, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * For writers that may be called with or without an open transaction:
 * begins one when none is open and sets *own.  srt_store_tx_end() commits
 * (ok) or rolls back (!ok) what it began; it returns 0, or -1 when the
 * commit failed.
 */
int srt_store_tx_enter(struct srt_store *s, bool *own, struct srt_error *err);
int srt_store_tx_end(struct srt_store *s, bool own, bool ok, struct srt_error *err);

/* Random identifier: 32 lowercase hex digits from getrandom(). */
void srt_store_new_uid(char out[33]);

/* Column helpers: a malloc'd copy of a text column, or NULL when NULL. */
char *srt_store_col_text(sqlite3_stmt *st, int col);
/* Bind a string or NULL. */
int srt_store_bind_text(sqlite3_stmt *st, int idx, const char *v);

/* Grow an array of rows by one (store/runs.c); returns the array, whose new last slot is zeroed. */
void *srt_store_grow(void *rows, size_t *n, size_t *cap, size_t size);

/* The id of run `name`: 1 found, 0 not found, -1 error. */
int srt_store_run_id(struct srt_store *s, const char *name, int64_t *id, struct srt_error *err);

/* The two queries behind srt_store_event_list() (tests check their plans). */
extern const char srt_store_sql_event_list_object[];
extern const char srt_store_sql_event_list_all[];

/* Migrations (store/migrate.c). */
int srt_store_read_version(struct srt_store *s, int *version, struct srt_error *err);
/* 0 when `version` (PRAGMA user_version) is one this srtctl can use or upgrade
 * (0 to srt_store_schema_version()); otherwise -1 with `err` naming the
 * database, the version found and the versions known. */
int srt_store_check_version(const struct srt_store *s, int version, struct srt_error *err);
int srt_store_migrate(struct srt_store *s, int target, struct srt_error *err);

#endif
