/*
 * tests/store/store_driver.c: drive the state store from the command line,
 * for the process-level tests in the tests/store/test_NAME.sh scripts.
 *
 *   store_driver open DB                     create/migrate, then close
 *   store_driver apply DB NAME [PADDING]     apply a new spec in one transaction
 *   store_driver event DB                    record one event
 *   store_driver get DB                      read-only: print the recipe count
 *   store_driver dump DB                     print a digest of every row
 *   store_driver apply-loop DB ID N          N transactions: own + shared recipe + Ping
 *   store_driver event-loop DB N             N Tick events and N Ping events
 *   store_driver verify-concurrent DB W N M  exact counts after W apply-loops + event-loop
 *   store_driver apply-forever DB SEED MS    mixed transactions until killed or MS pass
 *   store_driver check DB                    integrity + all-or-nothing invariants
 *
 * Errors go to stderr as the store reports them; the exit status is 0 on
 * success, 1 on a store error or a broken invariant, 2 on bad usage.
 */
#include "store/store.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/sha256.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(const struct srt_error *err)
{
	fprintf(stderr, "store_driver: %s\n", err->msg);
	return 1;
}

static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static char *make_spec(const char *name, long long seq, size_t pad)
{
	struct srt_buf b;

	srt_buf_init(&b);
	srt_buf_printf(&b, "{\"name\":\"%s\",\"pad\":\"", name);
	for (size_t i = 0; i < pad; i++)
		srt_buf_putc(&b, (char)('a' + (seq + (long long)i) % 26));
	srt_buf_printf(&b, "\",\"seq\":%lld}", seq);
	return srt_buf_detach(&b);
}

static const char *result_name(enum srt_apply_result r)
{
	return r == SRT_APPLY_CREATED	 ? "created" :
	       r == SRT_APPLY_CONFIGURED ? "configured" :
					   "unchanged";
}

static int cmd_open(const char *db)
{
	struct srt_store *s;
	struct srt_error err;

	if (srt_store_open(&s, db, SRT_STORE_CREATE, NULL, &err) != 0)
		return fail(&err);
	srt_store_close(s);
	return 0;
}

static int cmd_apply(const char *db, const char *name, size_t pad)
{
	struct srt_store *s = NULL;
	struct srt_error err;
	enum srt_apply_result r;
	char *spec = make_spec(name, (long long)srt_clock_now(srt_clock_system()), pad);
	int rc = 1;

	if (srt_store_open(&s, db, SRT_STORE_CREATE, NULL, &err) != 0)
		goto out;
	if (srt_store_begin(s, &err) != 0)
		goto out;
	if (srt_store_recipe_apply(s, name, spec, "driver.yaml", NULL, &r, NULL, &err) != 0 ||
	    srt_store_commit(s, &err) != 0) {
		srt_store_rollback(s);
		goto out;
	}
	printf("recipe/%s %s\n", name, result_name(r));
	rc = 0;
out:
	if (rc)
		fail(&err);
	srt_store_close(s);
	free(spec);
	return rc;
}

static int cmd_event(const char *db)
{
	struct srt_store *s;
	struct srt_error err;

	if (srt_store_open(&s, db, SRT_STORE_CREATE, NULL, &err) != 0)
		return fail(&err);
	if (srt_store_event(s, &err, "Warning", "DriverEvent", "test", "driver", "cli",
			    "event at %lld", (long long)srt_store_now(s)) != 0) {
		srt_store_close(s);
		return fail(&err);
	}
	srt_store_close(s);
	return 0;
}

static int cmd_get(const char *db)
{
	struct srt_store *s;
	struct srt_error err;
	struct srt_recipe_row *rows;
	size_t n;

	if (srt_store_open(&s, db, SRT_STORE_READONLY, NULL, &err) != 0)
		return fail(&err);
	if (srt_store_recipe_list(s, true, &rows, &n, &err) != 0) {
		srt_store_close(s);
		return fail(&err);
	}
	printf("recipes %zu\n", n);
	srt_recipe_rows_free(rows, n);
	srt_store_close(s);
	return 0;
}

/* ---- raw SQLite helpers for the checks (read-only queries) ---- */

static int raw_open(const char *db, sqlite3 **out)
{
	if (sqlite3_open_v2(db, out, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		fprintf(stderr, "store_driver: cannot open %s: %s\n", db, sqlite3_errmsg(*out));
		return -1;
	}
	sqlite3_busy_timeout(*out, 10000);
	return 0;
}

/* One integer from a query with up to two text parameters; -1 on error. */
static long long raw_int(sqlite3 *db, const char *sql, const char *p1, const char *p2)
{
	sqlite3_stmt *st = NULL;
	long long v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "store_driver: %s: %s\n", sql, sqlite3_errmsg(db));
		return -1;
	}
	if (p1)
		sqlite3_bind_text(st, 1, p1, -1, SQLITE_STATIC);
	if (p2)
		sqlite3_bind_text(st, 2, p2, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Hash every row of every query into one digest. */
static int cmd_dump(const char *db)
{
	static const char *const queries[] = {
		"PRAGMA user_version",
		"SELECT type, name, sql FROM sqlite_schema ORDER BY name",
		"SELECT * FROM recipes ORDER BY id",
		"SELECT * FROM runs ORDER BY id",
		"SELECT * FROM run_conditions ORDER BY run_id, type",
		"SELECT * FROM services ORDER BY id",
		"SELECT * FROM workers ORDER BY id",
		"SELECT * FROM events ORDER BY id",
		"SELECT * FROM campaigns ORDER BY id",
	};
	struct srt_sha256 h;
	unsigned char digest[32];
	long long rows = 0;
	sqlite3 *d = NULL;

	/* Read-write, although it only reads: as the last connection to close,
	 * it then removes the -wal and -shm files, so the database is left as
	 * the test scripts expect (a read-only connection leaves them). */
	if (sqlite3_open_v2(db, &d, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		fprintf(stderr, "store_driver: cannot open %s\n", db);
		sqlite3_close(d);
		return 1;
	}
	srt_sha256_init(&h);
	for (size_t q = 0; q < sizeof(queries) / sizeof(queries[0]); q++) {
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(d, queries[q], -1, &st, NULL) != SQLITE_OK) {
			fprintf(stderr, "store_driver: dump: %s\n", sqlite3_errmsg(d));
			sqlite3_close(d);
			return 1;
		}
		while (sqlite3_step(st) == SQLITE_ROW) {
			for (int c = 0; c < sqlite3_column_count(st); c++) {
				const unsigned char *t = sqlite3_column_text(st, c);

				srt_sha256_update(&h, t ? (const char *)t : "\x01NULL",
						  t ? (size_t)sqlite3_column_bytes(st, c) : 5);
				srt_sha256_update(&h, "\x00", 1);
			}
			rows++;
		}
		sqlite3_finalize(st);
	}
	srt_sha256_final(&h, digest);
	printf("rows %lld digest ", rows);
	for (int i = 0; i < 8; i++)
		printf("%02x", digest[i]);
	printf("\n");
	sqlite3_close(d);
	return 0;
}

/* ---- concurrency ---- */

static int cmd_apply_loop(const char *db, int id, int n)
{
	struct srt_store *s = NULL;
	struct srt_error err;
	char own[64], idstr[16];
	int rc = 1;

	snprintf(own, sizeof(own), "own-%d", id);
	snprintf(idstr, sizeof(idstr), "%d", id);
	if (srt_store_open(&s, db, SRT_STORE_CREATE, NULL, &err) != 0)
		goto out;
	for (int i = 0; i < n; i++) {
		char *spec = make_spec(idstr, i, (size_t)(i % 7) * 100);
		int r = srt_store_begin(s, &err);

		if (r == 0)
			r = srt_store_recipe_apply(s, own, spec, NULL, NULL, NULL, NULL, &err);
		if (r == 0)
			r = srt_store_recipe_apply(s, "shared", spec, NULL, NULL, NULL, NULL, &err);
		if (r == 0)
			r = srt_store_event(s, &err, "Normal", "Ping", "test", "ping", "cli",
					    "ping");
		if (r == 0)
			r = srt_store_commit(s, &err);
		free(spec);
		if (r != 0) {
			srt_store_rollback(s);
			goto out;
		}
		if (i % 10 == 0) {
			struct srt_recipe_row *rows;
			size_t nrows;

			if (srt_store_recipe_list(s, false, &rows, &nrows, &err) != 0)
				goto out;
			srt_recipe_rows_free(rows, nrows);
		}
	}
	rc = 0;
out:
	if (rc)
		fail(&err);
	srt_store_close(s);
	return rc;
}

static int cmd_event_loop(const char *db, int n)
{
	struct srt_store *s = NULL;
	struct srt_error err;
	int rc = 1;

	if (srt_store_open(&s, db, SRT_STORE_CREATE, NULL, &err) != 0)
		goto out;
	for (int i = 0; i < n; i++) {
		if (srt_store_event(s, &err, "Normal", "Tick", "test", "ticker", "controller",
				    "tick %d", i) != 0 ||
		    srt_store_event(s, &err, "Normal", "Ping", "test", "ping", "controller",
				    "ping") != 0)
			goto out;
		if (i % 5 == 0) {
			struct srt_event_filter f = { .kind = "test",
						      .name = "ticker",
						      .limit = 10 };
			struct srt_event_row *rows;
			size_t nrows;

			if (srt_store_event_list(s, &f, &rows, &nrows, &err) != 0)
				goto out;
			srt_event_rows_free(rows, nrows);
		}
	}
	rc = 0;
out:
	if (rc)
		fail(&err);
	srt_store_close(s);
	return rc;
}

#define EXPECT(cond, ...)                                                            \
	do {                                                                         \
		if (!(cond)) {                                                       \
			fprintf(stderr, "store_driver: check failed: " __VA_ARGS__); \
			fprintf(stderr, "\n");                                       \
			bad++;                                                       \
		}                                                                    \
	} while (0)

static int cmd_verify_concurrent(const char *db, int w, int n, int m)
{
	sqlite3 *d;
	int bad = 0;
	long long v;

	if (raw_open(db, &d) != 0)
		return 1;
	v = raw_int(d, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'",
		    NULL, NULL);
	EXPECT(v == 1, "integrity_check is not ok");
	for (int id = 1; id <= w; id++) {
		char own[64];

		snprintf(own, sizeof(own), "own-%d", id);
		v = raw_int(d, "SELECT generation FROM recipes WHERE name = ?1", own, NULL);
		EXPECT(v == n, "recipe %s has generation %lld, want %d", own, v, n);
		v = raw_int(d,
			    "SELECT total(count) FROM events WHERE kind = 'recipe' AND name = ?1 "
			    "AND reason = 'RecipeConfigured'",
			    own, NULL);
		EXPECT(v == n - 1, "recipe %s has %lld RecipeConfigured events, want %d", own, v,
		       n - 1);
	}
	v = raw_int(d, "SELECT generation FROM recipes WHERE name = 'shared'", NULL, NULL);
	EXPECT(v == (long long)w * n, "recipe shared has generation %lld, want %lld", v,
	       (long long)w * n);
	v = raw_int(d,
		    "SELECT count(*) FROM events WHERE kind = 'recipe' AND name = 'shared' "
		    "AND reason = 'RecipeConfigured'",
		    NULL, NULL);
	EXPECT(v == (long long)w * n - 1, "shared has %lld RecipeConfigured rows, want %lld", v,
	       (long long)w * n - 1);
	v = raw_int(d, "SELECT count(*) FROM recipes", NULL, NULL);
	EXPECT(v == w + 1, "%lld recipes, want %d", v, w + 1);
	v = raw_int(d, "SELECT count(*) FROM events WHERE reason = 'Tick' AND count = 1", NULL,
		    NULL);
	EXPECT(v == m, "%lld Tick events, want %d", v, m);
	v = raw_int(d, "SELECT count(*) FROM events WHERE reason = 'Ping'", NULL, NULL);
	EXPECT(v == 1, "%lld Ping rows, want 1 (deduplicated)", v);
	v = raw_int(d, "SELECT count FROM events WHERE reason = 'Ping'", NULL, NULL);
	EXPECT(v == (long long)w * n + m, "Ping count %lld, want %lld", v, (long long)w * n + m);
	sqlite3_close(d);
	if (!bad)
		printf("ok: %d writers x %d applies, %d ticks, ping count %lld\n", w, n, m,
		       (long long)w * n + m);
	return bad ? 1 : 0;
}

/* ---- crash safety ---- */

/* One transaction of a random kind; returns 0 or -1. */
static int forever_step(struct srt_store *s, uint64_t *rng, long long seq, struct srt_error *err)
{
	unsigned op = (unsigned)(rng_next(rng) % 10);
	unsigned k = (unsigned)(rng_next(rng) % 4);
	char a[32], b[32];
	int r;

	snprintf(a, sizeof(a), "pair-a-%u", k);
	snprintf(b, sizeof(b), "pair-b-%u", k);
	if (op == 9) /* outside a transaction: its own */
		return srt_store_event(s, err, "Normal", "Heartbeat", "test", "heartbeat",
				       "controller", "alive");
	if (srt_store_begin(s, err) != 0)
		return -1;
	if (op <= 5) {
		/* Both recipes of a pair, with the same seq, in one transaction. */
		size_t pad = (size_t)(rng_next(rng) % 40000);
		char *sa = make_spec(a, seq, pad), *sb = make_spec(b, seq, pad);

		r = srt_store_recipe_apply(s, a, sa, "pair.yaml", sa, NULL, NULL, err);
		if (r == 0)
			r = srt_store_recipe_apply(s, b, sb, "pair.yaml", NULL, NULL, NULL, err);
		free(sa);
		free(sb);
	} else if (op == 6) {
		r = srt_store_recipe_delete(s, a, err) < 0 ? -1 : 0;
		if (r == 0)
			r = srt_store_recipe_delete(s, b, err) < 0 ? -1 : 0;
	} else if (op == 7) {
		struct srt_event_row ev = { .type = "Normal",
					    .reason = "Batch",
					    .kind = "test",
					    .name = "batch",
					    .source = "agent" };
		char msg[64];

		r = 0;
		for (int i = 0; i < 50 && r == 0; i++) {
			snprintf(msg, sizeof(msg), "batch %lld item %d", seq, i);
			ev.message = msg;
			r = srt_store_event_insert_raw(s, &ev, err);
		}
	} else {
		/* A run with three services and a condition, and its event. */
		struct srt_recipe_row rec;
		struct srt_run_row run;
		int found = srt_store_recipe_get(s, a, &rec, err);

		r = found < 0 ? -1 : 0;
		if (found == 1 && !rec.deleted_at) {
			r = srt_store_run_create(s, a, seq + 1, &run, err);
			for (int i = 0; i < 3 && r == 0; i++) {
				char name[32];
				struct srt_service_row sv = { .run = run.name,
							      .name = name,
							      .type = "worker",
							      .state = "Pending" };

				snprintf(name, sizeof(name), "svc%d", i);
				r = srt_store_service_upsert(s, &sv, err);
			}
			if (r == 0)
				r = srt_store_condition_set(s, run.name, "Submitted", "True", NULL,
							    NULL, run.generation, err);
			if (r == 0)
				r = srt_store_run_update(s, run.name, "Submitted", seq, "PENDING",
							 NULL, err);
			if (r == 0)
				r = srt_store_event(s, err, "Normal", "RunCreated", "run", run.name,
						    "controller", "Created run %s", run.name);
			srt_run_row_release(&run);
		}
		srt_recipe_row_release(&rec);
	}
	if (r == 0)
		return srt_store_commit(s, err);
	srt_store_rollback(s);
	return -1;
}

static int cmd_apply_forever(const char *db, unsigned long seed, long long max_ms)
{
	struct srt_store *s = NULL;
	struct srt_error err;
	uint64_t rng = seed * 2654435761u + (uint64_t)getpid() + 1;
	int64_t end = srt_monotonic_ms() + max_ms;
	long long seq = srt_clock_now(srt_clock_system()) * 1000;
	int rc = 1;

	if (srt_store_open(&s, db, SRT_STORE_CREATE, NULL, &err) != 0)
		goto out;
	for (long i = 0; i < 10000000 && srt_monotonic_ms() < end; i++)
		if (forever_step(s, &rng, seq + i, &err) != 0)
			goto out;
	rc = 0;
out:
	if (rc)
		fail(&err);
	srt_store_close(s);
	return rc;
}

/* The schema of a fresh database, to compare with what a killed one holds. */
static char *schema_of(sqlite3 *d)
{
	sqlite3_stmt *st = NULL;
	struct srt_buf b;

	srt_buf_init(&b);
	if (sqlite3_prepare_v2(d, "SELECT type, name, sql FROM sqlite_schema ORDER BY name", -1,
			       &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW)
			for (int c = 0; c < 3; c++)
				srt_buf_printf(&b, "%s|", (const char *)sqlite3_column_text(st, c));
	}
	sqlite3_finalize(st);
	return srt_buf_detach(&b);
}

/* The schema of a new database migrated to `version` (the newest: srt_store_schema_version()). */
static char *fresh_schema(int version)
{
	char path[] = "/tmp/store_driver_fresh_XXXXXX";
	struct srt_store *s;
	struct srt_error err;
	char *dbpath, *schema = NULL;
	sqlite3 *d = NULL;

	if (!mkdtemp(path))
		return NULL;
	dbpath = srt_xasprintf("%s/fresh.db", path);
	if (srt_store_open_at_version(&s, dbpath, version, &err) == 0) {
		srt_store_close(s);
		if (raw_open(dbpath, &d) == 0)
			schema = schema_of(d);
		sqlite3_close(d);
	}
	unlink(dbpath);
	free(dbpath);
	rmdir(path);
	return schema;
}

static int check_recipes(sqlite3 *d)
{
	sqlite3_stmt *st = NULL;
	int bad = 0;

	if (sqlite3_prepare_v2(d,
			       "SELECT name, generation, spec, spec_hash, deleted_at IS NOT NULL "
			       "FROM recipes ORDER BY name",
			       -1, &st, NULL) != SQLITE_OK)
		return 1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		long long gen = sqlite3_column_int64(st, 1), v, deletes, again;
		const char *spec = (const char *)sqlite3_column_text(st, 2);
		const char *hash = (const char *)sqlite3_column_text(st, 3);
		bool deleted = sqlite3_column_int(st, 4);
		char want[65];

		srt_sha256_hex(spec, strlen(spec), want);
		EXPECT(!strcmp(hash, want), "recipe %s: spec_hash does not match its spec", name);
		v = raw_int(d,
			    "SELECT total(count) FROM events WHERE kind = 'recipe' AND name = ?1 "
			    "AND reason = 'RecipeCreated'",
			    name, NULL);
		EXPECT(v == 1, "recipe %s: %lld RecipeCreated events, want 1", name, v);
		v = raw_int(d,
			    "SELECT total(count) FROM events WHERE kind = 'recipe' AND name = ?1 "
			    "AND reason = 'RecipeConfigured'",
			    name, NULL);
		EXPECT(v == gen - 1, "recipe %s: generation %lld but %lld RecipeConfigured events",
		       name, gen, v);
		deletes = raw_int(d,
				  "SELECT total(count) FROM events WHERE kind = 'recipe' AND "
				  "name = ?1 AND reason = 'RecipeDeleted'",
				  name, NULL);
		again = raw_int(
			d,
			"SELECT total(count) FROM events WHERE kind = 'recipe' AND name = ?1 "
			"AND reason = 'RecipeConfigured' AND message LIKE '%after its deletion%'",
			name, NULL);
		EXPECT(deletes == again + (deleted ? 1 : 0),
		       "recipe %s: %lld deletions, %lld re-applies, deleted now: %d", name, deletes,
		       again, deleted);
		if (!strncmp(name, "pair-a-", 7)) {
			char other[64];

			snprintf(other, sizeof(other), "pair-b-%s", name + 7);
			v = raw_int(d, "SELECT generation FROM recipes WHERE name = ?1", other,
				    NULL);
			EXPECT(v == gen, "%s has generation %lld but %s has %lld", name, gen, other,
			       v);
			v = raw_int(
				d,
				"SELECT count(*) FROM recipes a, recipes b WHERE a.name = ?1 AND "
				"b.name = ?2 AND json_extract(a.spec, '$.seq') = "
				"json_extract(b.spec, '$.seq') AND (a.deleted_at IS NULL) = "
				"(b.deleted_at IS NULL)",
				name, other);
			EXPECT(v == 1, "%s and %s differ in spec seq or deletion", name, other);
		}
	}
	sqlite3_finalize(st);
	return bad;
}

static int cmd_check(const char *db)
{
	sqlite3 *d = NULL;
	char *want = NULL, *got = NULL;
	long long v, version;
	int bad = 0;

	if (access(db, F_OK) != 0) {
		printf("ok: no database yet\n");
		return 0;
	}
	if (raw_open(db, &d) != 0)
		return 1;
	v = raw_int(d, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'",
		    NULL, NULL);
	EXPECT(v == 1, "integrity_check is not ok");
	version = raw_int(d, "PRAGMA user_version", NULL, NULL);
	if (version == 0) {
		v = raw_int(d, "SELECT count(*) FROM sqlite_schema", NULL, NULL);
		EXPECT(v == 0, "schema version 0 but %lld schema objects (half a migration)", v);
		goto out;
	}
	/*
	 * Each migration commits on its own: a kill between two leaves a whole
	 * older schema, which the next open upgrades.  Its schema must be that
	 * version's, exactly.
	 */
	EXPECT(version >= 1 && version <= srt_store_schema_version(), "schema version %lld",
	       version);
	if (bad)
		goto out;
	want = fresh_schema((int)version);
	got = schema_of(d);
	EXPECT(want && !strcmp(want, got),
	       "the schema differs from a fresh database's at version %lld", version);
	if (bad)
		goto out;
	bad += check_recipes(d);
	v = raw_int(d, "SELECT count(*) FROM runs", NULL, NULL);
	EXPECT(v == raw_int(d, "SELECT count(*) FROM events WHERE reason = 'RunCreated'", NULL,
			    NULL),
	       "%lld runs but a different number of RunCreated events", v);
	EXPECT(v * 3 == raw_int(d, "SELECT count(*) FROM services", NULL, NULL),
	       "%lld runs but not 3 services each", v);
	EXPECT(v == raw_int(d, "SELECT count(*) FROM run_conditions", NULL, NULL),
	       "%lld runs but not one condition each", v);
	EXPECT(v == raw_int(d, "SELECT count(*) FROM runs WHERE phase = 'Submitted'", NULL, NULL),
	       "a run is not Submitted");
	v = raw_int(d, "SELECT count(*) FROM events WHERE reason = 'Batch'", NULL, NULL);
	EXPECT(v % 50 == 0, "%lld Batch events: not whole batches of 50", v);
	v = raw_int(d, "SELECT count(*) FROM pragma_foreign_key_check", NULL, NULL);
	EXPECT(v == 0, "%lld foreign key violations", v);
out:
	if (!bad)
		printf("ok: version %lld, %lld recipes, generations %lld, events %lld\n", version,
		       version ? raw_int(d, "SELECT count(*) FROM recipes", NULL, NULL) : 0,
		       version ? raw_int(d, "SELECT total(generation) FROM recipes", NULL, NULL) :
				 0,
		       version ? raw_int(d, "SELECT count(*) FROM events", NULL, NULL) : 0);
	sqlite3_close(d);
	free(want);
	free(got);
	return bad ? 1 : 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: store_driver open|apply|event|get|dump|apply-loop|event-loop|"
			"verify-concurrent|apply-forever|check DB [ARGS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *cmd, *db;

	if (argc < 3)
		return usage();
	cmd = argv[1];
	db = argv[2];
	if (!strcmp(cmd, "open"))
		return cmd_open(db);
	if (!strcmp(cmd, "apply") && argc >= 4)
		return cmd_apply(db, argv[3], argc > 4 ? (size_t)atol(argv[4]) : 100);
	if (!strcmp(cmd, "event"))
		return cmd_event(db);
	if (!strcmp(cmd, "get"))
		return cmd_get(db);
	if (!strcmp(cmd, "dump"))
		return cmd_dump(db);
	if (!strcmp(cmd, "apply-loop") && argc == 5)
		return cmd_apply_loop(db, atoi(argv[3]), atoi(argv[4]));
	if (!strcmp(cmd, "event-loop") && argc == 4)
		return cmd_event_loop(db, atoi(argv[3]));
	if (!strcmp(cmd, "verify-concurrent") && argc == 6)
		return cmd_verify_concurrent(db, atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
	if (!strcmp(cmd, "apply-forever") && argc == 5)
		return cmd_apply_forever(db, strtoul(argv[3], NULL, 10), atoll(argv[4]));
	if (!strcmp(cmd, "check"))
		return cmd_check(db);
	return usage();
}
