/*
 * tests/unit/test_store.c: store/ connection, location, migrations,
 * transactions, errors and the controller lock.
 *
 * Every test works on real SQLite files in its own temporary directory.
 * Recipes, runs, services and events are in test_store_objects.c; the
 * process-level tests (concurrent writers, kill -9, read-only and full disks)
 * are tests/store/test_*.sh.
 */
#define _GNU_SOURCE /* nftw() */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store/internal.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/sha256.h"

struct fixture {
	char dir[64];
	char *db;
};

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	struct fixture *f = srt_xcalloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/test_store_XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	f->db = srt_xasprintf("%s/srtctl.db", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(f->db);
	free(f);
	return 0;
}

static char *path_in(struct fixture *f, const char *name)
{
	return srt_xasprintf("%s/%s", f->dir, name);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_mode & 07777;
}

/* One text value from a query on the store's own connection (caller frees). */
static char *query_text(struct srt_store *s, const char *sql)
{
	sqlite3_stmt *st = NULL;
	char *v = NULL;

	assert_int_equal(sqlite3_prepare_v2(s->db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = srt_xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

static int64_t query_int(struct srt_store *s, const char *sql)
{
	char *t = query_text(s, sql);
	int64_t v = t ? atoll(t) : -1;

	free(t);
	return v;
}

static void file_hash(const char *path, char out[65])
{
	struct srt_buf b;
	char chunk[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	srt_buf_init(&b);
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		srt_buf_append(&b, chunk, (size_t)n);
	close(fd);
	srt_sha256_hex(b.data, b.len, out);
	srt_buf_release(&b);
}

/* ---- location ---- */

static void restore_env(const char *name, char *saved)
{
	if (saved) {
		setenv(name, saved, 1);
		free(saved);
	} else {
		unsetenv(name);
	}
}

static char *save_env(const char *name)
{
	const char *v = getenv(name);

	return v ? srt_xstrdup(v) : NULL;
}

static void test_default_path(void **state)
{
	char *db = save_env("SRTCTL_DB"), *xdg = save_env("XDG_STATE_HOME"),
	     *home = save_env("HOME");
	static const struct {
		const char *explicit_path, *db, *xdg, *home, *want;
	} cases[] = {
		{ "/x/explicit.db", "/env.db", "/xdg", "/home/u", "/x/explicit.db" },
		{ NULL, "/env.db", "/xdg", "/home/u", "/env.db" },
		{ NULL, "", "/xdg", "/home/u", "/xdg/srtctl/srtctl.db" },
		{ NULL, NULL, "/xdg", "/home/u", "/xdg/srtctl/srtctl.db" },
		{ NULL, NULL, "relative/xdg", "/home/u", "/home/u/.local/state/srtctl/srtctl.db" },
		{ NULL, NULL, "", "/home/u", "/home/u/.local/state/srtctl/srtctl.db" },
		{ NULL, NULL, NULL, "/home/u", "/home/u/.local/state/srtctl/srtctl.db" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got;

		if (cases[i].db)
			setenv("SRTCTL_DB", cases[i].db, 1);
		else
			unsetenv("SRTCTL_DB");
		if (cases[i].xdg)
			setenv("XDG_STATE_HOME", cases[i].xdg, 1);
		else
			unsetenv("XDG_STATE_HOME");
		setenv("HOME", cases[i].home, 1);
		got = srt_store_default_path(cases[i].explicit_path);
		assert_non_null(got);
		assert_string_equal(got, cases[i].want);
		free(got);
	}
	restore_env("SRTCTL_DB", db);
	restore_env("XDG_STATE_HOME", xdg);
	restore_env("HOME", home);
}

/* ---- opening ---- */

static void test_open_missing(void **state)
{
	struct fixture *f = *state;
	struct srt_store *s = (struct srt_store *)1;
	struct srt_error err = { "" };

	assert_int_equal(srt_store_open(&s, f->db, 0, NULL, &err), -1);
	assert_null(s);
	assert_non_null(strstr(err.msg, f->db));
	assert_non_null(strstr(err.msg, "does not exist"));
	assert_non_null(strstr(err.msg, "srtctl apply"));
	assert_int_equal(access(f->db, F_OK), -1);
	assert_int_equal(srt_store_open(&s, f->db, SRT_STORE_READONLY, NULL, &err), -1);
	assert_int_equal(access(f->db, F_OK), -1);
}

static void test_create_modes(void **state)
{
	struct fixture *f = *state;
	char *pre = path_in(f, "pre"), *a = path_in(f, "pre/a"), *b = path_in(f, "pre/a/b");
	char *db = path_in(f, "pre/a/b/srtctl.db"), *wal = srt_xasprintf("%s-wal", db),
	     *shm = srt_xasprintf("%s-shm", db);
	struct srt_store *s;
	struct srt_error err = { "" };
	mode_t old = umask(022);

	assert_int_equal(mkdir(pre, 0755), 0);
	assert_int_equal(srt_store_open(&s, db, SRT_STORE_CREATE, NULL, &err), 0);
	assert_int_equal(mode_of(pre), 0755); /* existing directories are left alone */
	assert_int_equal(mode_of(a), 0700);
	assert_int_equal(mode_of(b), 0700);
	assert_int_equal(mode_of(db), 0600);
	assert_int_equal(srt_store_event(s, &err, "Normal", "Test", "test", "x", "cli", "hi"), 0);
	assert_int_equal(mode_of(wal), 0600);
	assert_int_equal(mode_of(shm), 0600);
	assert_string_equal(srt_store_path(s), db);
	srt_store_close(s);
	umask(old);
	free(pre);
	free(a);
	free(b);
	free(db);
	free(wal);
	free(shm);
}

static void test_pragmas(void **state)
{
	struct fixture *f = *state;
	struct srt_store *s;
	struct srt_error err = { "" };
	sqlite3_stmt *st;
	char *t;
	int tables = 0;

	assert_int_equal(srt_store_open(&s, f->db, SRT_STORE_CREATE, NULL, &err), 0);
	t = query_text(s, "PRAGMA journal_mode");
	assert_string_equal(t, "wal");
	free(t);
	assert_int_equal(query_int(s, "PRAGMA foreign_keys"), 1);
	assert_int_equal(query_int(s, "PRAGMA synchronous"), 1); /* NORMAL */
	assert_int_equal(query_int(s, "PRAGMA busy_timeout"), SRT_STORE_BUSY_TIMEOUT_MS);
	assert_int_equal(query_int(s, "PRAGMA user_version"), srt_store_schema_version());
	/* Every table is STRICT. */
	assert_int_equal(sqlite3_prepare_v2(s->db,
					    "SELECT name, strict FROM pragma_table_list "
					    "WHERE schema = 'main' AND type = 'table' AND "
					    "name NOT LIKE 'sqlite_%'",
					    -1, &st, NULL),
			 SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_int(st, 1) != 1)
			fail_msg("table %s is not STRICT", sqlite3_column_text(st, 0));
		tables++;
	}
	sqlite3_finalize(st);
	assert_int_equal(tables, 11); /* 0001: 8, 0002_campaigns: 2, 0003_notifications: 1 */
	srt_store_close(s);
}

static void test_path_errors(void **state)
{
	struct fixture *f = *state;
	struct srt_store *s;
	struct srt_error err = { "" };
	char *garbage = path_in(f, "garbage.db"), *file = path_in(f, "file");
	char *under = path_in(f, "file/srtctl.db");
	FILE *fp;

	assert_int_equal(srt_store_open(&s, "", SRT_STORE_CREATE, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "--db"));
	assert_int_equal(srt_store_open(&s, f->dir, SRT_STORE_CREATE, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "is a directory"));

	fp = fopen(garbage, "w");
	assert_non_null(fp);
	for (int i = 0; i < 512; i++)
		fputs("this is not a database ", fp);
	fclose(fp);
	assert_int_equal(srt_store_open(&s, garbage, SRT_STORE_CREATE, NULL, &err), -1);
	assert_non_null(strstr(err.msg, garbage));
	assert_non_null(strstr(err.msg, "not an srtctl database"));

	fp = fopen(file, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(srt_store_open(&s, under, SRT_STORE_CREATE, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "is not a directory"));
	free(garbage);
	free(file);
	free(under);
}

/* ---- migrations ---- */

static char *schema_dump(struct srt_store *s)
{
	sqlite3_stmt *st;
	struct srt_buf b;

	srt_buf_init(&b);
	assert_int_equal(sqlite3_prepare_v2(s->db,
					    "SELECT type, name, tbl_name, sql FROM sqlite_schema "
					    "ORDER BY type, name",
					    -1, &st, NULL),
			 SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		for (int c = 0; c < 4; c++)
			srt_buf_printf(&b, "%s\n", (const char *)sqlite3_column_text(st, c));
	sqlite3_finalize(st);
	return srt_buf_detach(&b);
}

static void test_migration_table(void **state)
{
	(void)state;
	assert_true(srt_store_schema_version() >= 1);
	assert_int_equal(srt_store_schema_version(), srt_store_migrations_count);
	for (int i = 0; i < srt_store_migrations_count; i++) {
		char prefix[16], pragma[64];

		assert_int_equal(srt_store_migrations[i].version, i + 1);
		snprintf(prefix, sizeof(prefix), "%04d_", i + 1);
		assert_memory_equal(srt_store_migrations[i].name, prefix, 5);
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", i + 1);
		assert_string_equal(srt_store_migrations[i].set_version, pragma);
		assert_true(strlen(srt_store_migrations[i].sql) > 0);
	}
	assert_string_equal(srt_store_migrations[0].name, "0001_init");
}

/*
 * Rows to put into a database at schema `version` before upgrading it, so
 * that each migration is tested on data, not only on an empty schema.  The
 * SQL here is written against that old schema and must never change.
 */
static void seed_version(struct srt_store *s, int version)
{
	/*
	 * seeds[k]: rows for a database at schema k and later ones, until a
	 * newer entry replaces them (0: nothing).  The schema-1 rows use only
	 * 0001's tables, so they are also the seed of schema 2 (0002_campaigns);
	 * schema 3 (0003_notifications) adds a run, which 0004_run_frontend
	 * extends.  Add an entry when a migration changes a table they use or
	 * one worth seeding.
	 */
#define SEED_V1                                                                      \
	"INSERT INTO recipes (uid, name, spec, spec_hash, generation, created_at, "  \
	"applied_at) VALUES ('u1', 'seeded', '{}', 'h', 3, 1, 2);"                   \
	"INSERT INTO events (type, reason, kind, name, message, first_at, last_at) " \
	"VALUES ('Normal', 'RecipeCreated', 'recipe', 'seeded', 'm', 1, 1);"
	static const char *const seeds[] = {
		NULL,
		SEED_V1,
		SEED_V1,
		SEED_V1 "INSERT INTO runs (uid, recipe_id, name, generation, attempt, phase, "
			"job_name, job_comment, slurm_job_id, created_at, updated_at) VALUES "
			"('ru1', (SELECT id FROM recipes WHERE name = 'seeded'), 'seeded-3-1', 3, "
			"1, 'Ready', 'seeded-3-1', 'srtctl:ru1:1', 77, 1, 2);",
	};
#undef SEED_V1
	size_t k = (size_t)version < sizeof(seeds) / sizeof(seeds[0]) ?
			   (size_t)version :
			   sizeof(seeds) / sizeof(seeds[0]) - 1;

	if (seeds[k])
		assert_int_equal(sqlite3_exec(s->db, seeds[k], NULL, NULL, NULL), SQLITE_OK);
}

static void test_migrate_from_each_version(void **state)
{
	struct fixture *f = *state;
	const int known = srt_store_schema_version();
	struct srt_store *s;
	struct srt_error err = { "" };
	char *fresh_db = path_in(f, "fresh.db"), *want;

	assert_int_equal(srt_store_open(&s, fresh_db, SRT_STORE_CREATE, NULL, &err), 0);
	want = schema_dump(s);
	srt_store_close(s);

	for (int v = 0; v < known; v++) {
		char name[32], *db, *got;

		snprintf(name, sizeof(name), "v%d.db", v);
		db = path_in(f, name);
		assert_int_equal(srt_store_open_at_version(&s, db, v, &err), 0);
		assert_int_equal(query_int(s, "PRAGMA user_version"), v);
		seed_version(s, v);
		srt_store_close(s);

		if (srt_store_open(&s, db, SRT_STORE_CREATE, NULL, &err) != 0)
			fail_msg("upgrade from %d: %s", v, err.msg);
		assert_int_equal(query_int(s, "PRAGMA user_version"), known);
		got = schema_dump(s);
		assert_string_equal(got, want);
		assert_int_equal(query_int(s, "SELECT count(*) FROM pragma_integrity_check "
					      "WHERE integrity_check = 'ok'"),
				 1);
		assert_int_equal(query_int(s, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
		if (v >= 1) /* the seeded rows survived */
			assert_int_equal(query_int(s, "SELECT generation FROM recipes "
						      "WHERE name = 'seeded'"),
					 3);
		if (v >= 3) { /* the run too, with no frontend URL known (0004) */
			assert_int_equal(query_int(s,
						   "SELECT slurm_job_id FROM runs WHERE "
						   "name = 'seeded-3-1' AND frontend_url IS NULL "
						   "AND frontend_url_planned IS NULL"),
					 77);
		}
		free(got);
		srt_store_close(s);
		free(db);
	}
	assert_int_equal(srt_store_open_at_version(&s, fresh_db, known + 1, &err), -1);
	free(want);
	free(fresh_db);
}

static void test_newer_schema_refused(void **state)
{
	struct fixture *f = *state;
	const int known = srt_store_schema_version();
	struct srt_store *s = NULL;
	struct srt_error err = { "" };
	char before[65], after[65], want[512], pragma[64];

	assert_int_equal(srt_store_open(&s, f->db, SRT_STORE_CREATE, NULL, &err), 0);
	snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", known + 1);
	assert_int_equal(sqlite3_exec(s->db, pragma, NULL, NULL, NULL), SQLITE_OK);
	srt_store_close(s);
	file_hash(f->db, before);

	snprintf(want, sizeof(want),
		 "database %s was written by a newer srtctl (schema %d, this srtctl knows %d); "
		 "upgrade srtctl",
		 f->db, known + 1, known);
	assert_int_equal(srt_store_open(&s, f->db, SRT_STORE_CREATE, NULL, &err), -1);
	assert_null(s);
	assert_string_equal(err.msg, want);
	assert_int_equal(srt_store_open(&s, f->db, SRT_STORE_READONLY, NULL, &err), -1);
	assert_string_equal(err.msg, want);
	file_hash(f->db, after);
	assert_string_equal(before, after);
}

/* Issue #12: a user_version outside 0..known (negative, or from a newer
 * srtctl) is refused by readers and writers alike, before any migration is
 * looked up by it and without changing the file. */
static void test_bad_schema_refused(void **state)
{
	struct fixture *f = *state;
	const int known = srt_store_schema_version();
	const int bad[] = { -1, INT_MIN, known + 1, INT_MAX };
	const int modes[] = { SRT_STORE_CREATE, 0, SRT_STORE_READONLY };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct srt_store *s = NULL;
		struct srt_error err = { "" };
		char before[65], after[65], want[512], pragma[64];

		unlink(f->db);
		assert_int_equal(srt_store_open(&s, f->db, SRT_STORE_CREATE, NULL, &err), 0);
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", bad[i]);
		assert_int_equal(sqlite3_exec(s->db, pragma, NULL, NULL, NULL), SQLITE_OK);
		srt_store_close(s);
		file_hash(f->db, before);
		if (bad[i] < 0)
			snprintf(want, sizeof(want),
				 "database %s has schema version %d, which no srtctl writes (this "
				 "srtctl knows schemas 0 to %d); the file is damaged or was not "
				 "written by srtctl: restore it from a backup or move it aside",
				 f->db, bad[i], known);
		else
			snprintf(want, sizeof(want),
				 "database %s was written by a newer srtctl (schema %d, this "
				 "srtctl knows %d); upgrade srtctl",
				 f->db, bad[i], known);
		for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
			srt_error_clear(&err);
			assert_int_equal(srt_store_open(&s, f->db, modes[m], NULL, &err), -1);
			assert_null(s);
			assert_string_equal(err.msg, want);
		}
		srt_error_clear(&err);
		assert_int_equal(srt_store_open_at_version(&s, f->db, known, &err), -1);
		assert_string_equal(err.msg, want);
		file_hash(f->db, after);
		assert_string_equal(before, after);
	}
}

static void test_readonly_needs_current_schema(void **state)
{
	struct fixture *f = *state;
	struct srt_store *s = NULL;
	struct srt_error err = { "" };

	assert_int_equal(srt_store_open_at_version(&s, f->db, 0, &err), 0);
	srt_store_close(s);
	assert_int_equal(srt_store_open(&s, f->db, SRT_STORE_READONLY, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "has schema 0"));
	assert_non_null(strstr(err.msg, "srtctl apply"));
	/* A read-write open upgrades it; then read-only works and cannot write. */
	assert_int_equal(srt_store_open(&s, f->db, 0, NULL, &err), 0);
	srt_store_close(s);
	assert_int_equal(srt_store_open(&s, f->db, SRT_STORE_READONLY, NULL, &err), 0);
	assert_int_equal(srt_store_event(s, &err, "Normal", "X", "test", "x", NULL, "m"), -1);
	assert_non_null(strstr(err.msg, f->db));
	srt_store_close(s);
}

/* ---- transactions ---- */

static void test_transactions(void **state)
{
	struct fixture *f = *state;
	struct srt_store *s;
	struct srt_error err = { "" };
	struct srt_recipe_row r;
	enum srt_apply_result res;

	assert_int_equal(srt_store_open(&s, f->db, SRT_STORE_CREATE, NULL, &err), 0);
	/* Rolled back: neither the recipe nor its event remains. */
	assert_int_equal(srt_store_begin(s, &err), 0);
	assert_int_equal(srt_store_begin(s, &err), -1);
	assert_non_null(strstr(err.msg, "already open"));
	assert_int_equal(srt_store_recipe_apply(s, "r", "{}", NULL, NULL, &res, NULL, &err), 0);
	srt_store_rollback(s);
	assert_int_equal(srt_store_recipe_get(s, "r", &r, &err), 0);
	assert_int_equal(query_int(s, "SELECT count(*) FROM events"), 0);
	srt_store_rollback(s); /* no transaction: a no-op */
	assert_int_equal(srt_store_commit(s, &err), -1);
	assert_non_null(strstr(err.msg, "nothing was written"));

	/* Committed. */
	assert_int_equal(srt_store_begin(s, &err), 0);
	assert_int_equal(srt_store_recipe_apply(s, "r", "{}", NULL, NULL, &res, NULL, &err), 0);
	assert_int_equal(srt_store_commit(s, &err), 0);
	assert_int_equal(srt_store_recipe_get(s, "r", &r, &err), 1);
	srt_recipe_row_release(&r);
	assert_int_equal(query_int(s, "SELECT count(*) FROM events"), 1);

	/* Outside a transaction a writer runs in one of its own. */
	assert_int_equal(srt_store_recipe_apply(s, "r", "{\"a\":1}", NULL, NULL, &res, NULL, &err),
			 0);
	assert_int_equal(res, SRT_APPLY_CONFIGURED);
	assert_true(sqlite3_get_autocommit(s->db));
	srt_store_close(s);
}

/* Another process holds the write lock for a while: begin waits, never fails. */
static void test_begin_waits_for_writer(void **state)
{
	struct fixture *f = *state;
	struct srt_store *s;
	struct srt_error err = { "" };
	int ready[2];
	pid_t pid;
	char c;
	int64_t t0, waited;
	int status;

	assert_int_equal(srt_store_open(&s, f->db, SRT_STORE_CREATE, NULL, &err), 0);
	srt_store_close(s);
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct srt_store *cs;
		struct timespec ts = { 1, 500000000 };

		close(ready[0]);
		if (srt_store_open(&cs, f->db, 0, NULL, &err) != 0 ||
		    srt_store_begin(cs, &err) != 0 ||
		    srt_store_event(cs, &err, "Normal", "Hold", "test", "x", NULL, "held") != 0)
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		nanosleep(&ts, NULL);
		_exit(srt_store_commit(cs, &err) == 0 ? 0 : 1);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	assert_int_equal(srt_store_open(&s, f->db, 0, NULL, &err), 0);
	t0 = srt_monotonic_ms();
	if (srt_store_begin(s, &err) != 0)
		fail_msg("begin: %s", err.msg);
	waited = srt_monotonic_ms() - t0;
	/* It waited for the other writer, whose event is visible now. */
	assert_true(waited >= 500);
	assert_int_equal(query_int(s, "SELECT count(*) FROM events WHERE reason = 'Hold'"), 1);
	assert_int_equal(srt_store_commit(s, &err), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	srt_store_close(s);
}

static void test_change_counter(void **state)
{
	struct fixture *f = *state;
	struct srt_store *a, *b;
	struct srt_error err = { "" };
	int64_t c0, c1, c2;

	assert_int_equal(srt_store_open(&a, f->db, SRT_STORE_CREATE, NULL, &err), 0);
	assert_int_equal(srt_store_open(&b, f->db, 0, NULL, &err), 0);
	c0 = srt_store_change_counter(a);
	assert_int_equal(srt_store_change_counter(a), c0); /* stable without changes */
	assert_int_equal(srt_store_event(a, &err, "Normal", "A", "test", "x", NULL, "own"), 0);
	c1 = srt_store_change_counter(a);
	assert_true(c1 != c0);
	assert_int_equal(srt_store_event(b, &err, "Normal", "B", "test", "x", NULL, "other"), 0);
	c2 = srt_store_change_counter(a);
	assert_true(c2 != c1);
	srt_store_close(a);
	srt_store_close(b);
}

/* ---- errors ---- */

static void test_error_hints(void **state)
{
	struct fixture *f = *state;
	struct srt_store *s;
	struct srt_error err = { "" };
	static const struct {
		int rc;
		const char *want;
	} cases[] = {
		{ SQLITE_FULL, "full: free some space" },
		{ SQLITE_READONLY, "not mounted read-only" },
		{ SQLITE_READONLY_DIRECTORY, "make the directory writable" },
		{ SQLITE_BUSY, "locked for too long" },
		{ SQLITE_CORRUPT, "move it aside" },
		{ SQLITE_NOTADB, "not an srtctl database" },
		{ SQLITE_PERM, "permission denied" },
		{ SQLITE_CONSTRAINT, "bug in srtctl" },
		{ SQLITE_IOERR, "I/O error" },
	};

	assert_int_equal(srt_store_open(&s, f->db, SRT_STORE_CREATE, NULL, &err), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(srt_store_sql_error(s, &err, cases[i].rc, "doing %s", "things"),
				 -1);
		if (!strstr(err.msg, cases[i].want) || !strstr(err.msg, f->db) ||
		    strncmp(err.msg, "doing things: ", 14))
			fail_msg("code %d: %s", cases[i].rc, err.msg);
	}
	srt_store_close(s);
}

static void test_uid(void **state)
{
	char a[33], b[33];

	(void)state;
	srt_store_new_uid(a);
	srt_store_new_uid(b);
	assert_int_equal(strlen(a), 32);
	assert_int_equal(strspn(a, "0123456789abcdef"), 32);
	assert_string_not_equal(a, b);
}

/* ---- the controller lock ---- */

static void test_lock(void **state)
{
	struct fixture *f = *state;
	struct srt_error err = { "" };
	char *lock = srt_xasprintf("%s.lock", f->db), want[300], host[256], got[300] = "";
	int fd, fd2;
	FILE *fp;

	assert_false(srt_store_lock_is_held(f->db)); /* no lock file yet */
	assert_int_equal(access(lock, F_OK), -1);    /* and probing made none */
	fd = srt_store_lock_acquire(f->db, &err);
	assert_true(fd >= 0);
	assert_int_equal(mode_of(lock), 0600);
	gethostname(host, sizeof(host));
	snprintf(want, sizeof(want), "%ld %s\n", (long)getpid(), host);
	fp = fopen(lock, "r");
	assert_non_null(fp);
	assert_non_null(fgets(got, sizeof(got), fp));
	fclose(fp);
	assert_string_equal(got, want);
	assert_true(srt_store_lock_is_held(f->db));
	assert_true(srt_store_lock_is_held(f->db)); /* probing does not disturb it */

	fd2 = srt_store_lock_acquire(f->db, &err);
	assert_int_equal(fd2, -1);
	want[strlen(want) - 1] = '\0';
	assert_non_null(strstr(err.msg, "another controller"));
	assert_non_null(strstr(err.msg, want));
	assert_non_null(strstr(err.msg, f->db));

	srt_store_lock_release(fd);
	assert_false(srt_store_lock_is_held(f->db));
	fd = srt_store_lock_acquire(f->db, &err);
	assert_true(fd >= 0);
	srt_store_lock_release(fd);
	srt_store_lock_release(-1);
	free(lock);
}

/* A process probing the lock in a loop never makes a controller fail to start. */
static void test_lock_probe_never_blocks_acquire(void **state)
{
	struct fixture *f = *state;
	struct srt_error err = { "" };
	int fd, status;
	pid_t pid;

	fd = srt_store_lock_acquire(f->db, &err); /* creates the lock file */
	assert_true(fd >= 0);
	srt_store_lock_release(fd);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int64_t end = srt_monotonic_ms() + 20000;

		for (long i = 0; i < 100000000 && srt_monotonic_ms() < end; i++)
			srt_store_lock_is_held(f->db);
		_exit(0);
	}
	for (int i = 0; i < 30; i++) {
		struct timespec ts = { 0, 2000000 };

		fd = srt_store_lock_acquire(f->db, &err);
		if (fd < 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			fail_msg("acquire %d failed while probed: %s", i, err.msg);
		}
		nanosleep(&ts, NULL);
		srt_store_lock_release(fd);
	}
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_path),
		cmocka_unit_test_setup_teardown(test_open_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_modes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pragmas, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_errors, setup, teardown),
		cmocka_unit_test(test_migration_table),
		cmocka_unit_test_setup_teardown(test_migrate_from_each_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer_schema_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_schema_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readonly_needs_current_schema, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_transactions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_begin_waits_for_writer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_change_counter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_error_hints, setup, teardown),
		cmocka_unit_test(test_uid),
		cmocka_unit_test_setup_teardown(test_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_probe_never_blocks_acquire, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
