/*
 * store/runs.c: observed state, written by the controller: runs (one per
 * recipe generation and attempt), their conditions, their services and
 * workers; and the campaigns table, kept for a later issue.
 *
 * A run is created before anything is submitted (intent before effect): its
 * name "<recipe>-<generation>-<attempt>" is the SLURM job name and its
 * comment "srtctl:<run uid>:<attempt>" lets a restarted controller find and
 * adopt a job it submitted before a crash.  Services and workers are keyed
 * by (run, instance name) and (run, role, index) and written with upserts,
 * so the controller can write what it observes without first asking what is
 * there.  Times of 0 in a row mean "unset" and are stored as NULL.
 */
#include "store/store.h"
#include "store/internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

static const char SQL_RUN_ID[] = "SELECT id FROM runs WHERE name = ?1";
static const char SQL_RUN_RECIPE[] =
	"SELECT id, generation, deleted_at FROM recipes WHERE name = ?1";
static const char SQL_RUN_INSERT[] =
	"INSERT INTO runs (uid, recipe_id, name, generation, attempt, phase, job_name, "
	"job_comment, created_at, updated_at) "
	"VALUES (?1, ?2, ?3, ?4, ?5, 'Pending', ?3, ?6, ?7, ?7)";
#define RUN_COLUMNS                                                                         \
	"r.id, r.uid, r.name, c.name, r.phase, r.job_name, r.job_comment, r.slurm_state, "  \
	"r.run_dir, r.message, r.generation, r.attempt, r.slurm_job_id, r.exit_code, "      \
	"r.created_at, r.updated_at, r.started_at, r.finished_at, r.frontend_url_planned, " \
	"r.frontend_url, r.job_started_at, r.job_ended_at "                                 \
	"FROM runs r JOIN recipes c ON c.id = r.recipe_id "
static const char SQL_RUN_GET[] = "SELECT " RUN_COLUMNS "WHERE r.name = ?1";
static const char SQL_RUN_LIST[] = "SELECT " RUN_COLUMNS "ORDER BY c.name, r.generation, r.attempt";
static const char SQL_RUN_LIST_RECIPE[] = "SELECT " RUN_COLUMNS
					  "WHERE c.name = ?1 ORDER BY r.generation, r.attempt";
/* started_at: the first time the run reaches Starting or later; finished_at:
 * the first time it reaches a final phase. */
static const char SQL_RUN_UPDATE[] =
	"UPDATE runs SET phase = coalesce(?2, phase), "
	"slurm_job_id = CASE WHEN ?3 < 0 THEN slurm_job_id WHEN ?3 = 0 THEN NULL ELSE ?3 END, "
	"slurm_state = coalesce(?4, slurm_state), message = coalesce(?5, message), "
	"updated_at = ?6, "
	"started_at = CASE WHEN started_at IS NULL AND ?2 IN ('Starting', 'Ready', 'Degraded', "
	"'Succeeded', 'Failed') THEN ?6 ELSE started_at END, "
	"finished_at = CASE WHEN finished_at IS NULL AND ?2 IN ('Succeeded', 'Failed', "
	"'Cancelled') THEN ?6 ELSE finished_at END "
	"WHERE name = ?1";
/* SLURM's times only move forward from unknown (a requeued job starts again). */
static const char SQL_RUN_JOB_TIMES[] =
	"UPDATE runs SET job_started_at = CASE WHEN ?2 > 0 THEN ?2 ELSE job_started_at END, "
	"job_ended_at = CASE WHEN ?3 > 0 THEN ?3 ELSE job_ended_at END, updated_at = ?4 "
	"WHERE name = ?1";
static const char SQL_RUN_DETAILS[] =
	"UPDATE runs SET run_dir = coalesce(?2, run_dir), "
	"exit_code = CASE WHEN ?3 IS NULL THEN exit_code ELSE ?3 END, updated_at = ?4 "
	"WHERE name = ?1";
/* updated_at moves only when the value does (the agent's URL is read every pass). */
static const char SQL_RUN_FRONTEND_PLANNED[] =
	"UPDATE runs SET frontend_url_planned = ?2, updated_at = CASE WHEN "
	"frontend_url_planned IS ?2 THEN updated_at ELSE ?3 END WHERE name = ?1";
static const char SQL_RUN_FRONTEND_URL[] =
	"UPDATE runs SET frontend_url = ?2, updated_at = CASE WHEN frontend_url IS ?2 "
	"THEN updated_at ELSE ?3 END WHERE name = ?1";
static const char SQL_RUN_GENERATION[] =
	"UPDATE runs SET generation = ?2, updated_at = ?3 WHERE name = ?1";
static const char SQL_CURSOR_GET[] =
	"SELECT c.last_seq FROM ingest_cursors c JOIN runs r ON r.id = c.run_id WHERE r.name = ?1";
static const char SQL_CURSOR_SET[] =
	"INSERT INTO ingest_cursors (run_id, last_seq) "
	"SELECT id, ?2 FROM runs WHERE name = ?1 "
	"ON CONFLICT (run_id) DO UPDATE SET last_seq = excluded.last_seq";
static const char SQL_COND_SET[] =
	"INSERT INTO run_conditions (run_id, type, status, reason, message, observed_generation, "
	"last_transition_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
	"ON CONFLICT (run_id, type) DO UPDATE SET "
	"last_transition_at = CASE WHEN status = excluded.status THEN last_transition_at "
	"ELSE excluded.last_transition_at END, "
	"status = excluded.status, reason = excluded.reason, message = excluded.message, "
	"observed_generation = excluded.observed_generation";
static const char SQL_COND_LIST[] =
	"SELECT type, status, reason, message, observed_generation, last_transition_at "
	"FROM run_conditions WHERE run_id = (SELECT id FROM runs WHERE name = ?1) "
	"ORDER BY last_transition_at, type";
static const char SQL_SERVICE_UPSERT[] =
	"INSERT INTO services (run_id, name, service, type, node, endpoint, state, restarts, "
	"last_probe, last_probe_at, message, started_at, updated_at) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) "
	"ON CONFLICT (run_id, name) DO UPDATE SET service = excluded.service, "
	"type = excluded.type, node = excluded.node, endpoint = excluded.endpoint, "
	"state = excluded.state, restarts = excluded.restarts, last_probe = excluded.last_probe, "
	"last_probe_at = excluded.last_probe_at, message = excluded.message, "
	"started_at = excluded.started_at, updated_at = excluded.updated_at";
#define SERVICE_COLUMNS                                                                        \
	"s.id, r.name, s.name, s.service, s.type, s.node, s.endpoint, s.state, s.last_probe, " \
	"s.message, s.restarts, s.last_probe_at, s.started_at, s.updated_at "                  \
	"FROM services s JOIN runs r ON r.id = s.run_id "
/* A name matches the instance ("decode_node3") or the recipe's service name. */
static const char SQL_SERVICE_LIST[] = "SELECT " SERVICE_COLUMNS
				       "WHERE (?2 IS NULL OR s.name = ?2 OR s.service = ?2) "
				       "ORDER BY r.name, s.name";
static const char SQL_SERVICE_LIST_RUN[] = "SELECT " SERVICE_COLUMNS
					   "WHERE r.name = ?1 AND (?2 IS NULL OR s.name = ?2 OR "
					   "s.service = ?2) ORDER BY s.name";
static const char SQL_WORKER_UPSERT[] =
	"INSERT INTO workers (run_id, role, idx, node, ip, env_hash, state, restarts, message, "
	"started_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) "
	"ON CONFLICT (run_id, role, idx) DO UPDATE SET node = excluded.node, ip = excluded.ip, "
	"env_hash = excluded.env_hash, state = excluded.state, restarts = excluded.restarts, "
	"message = excluded.message, started_at = excluded.started_at, "
	"updated_at = excluded.updated_at";
#define WORKER_COLUMNS                                                                \
	"w.id, r.name, w.role, w.node, w.ip, w.env_hash, w.state, w.message, w.idx, " \
	"w.restarts, w.started_at, w.updated_at FROM workers w JOIN runs r ON r.id = w.run_id "
static const char SQL_WORKER_LIST[] = "SELECT " WORKER_COLUMNS "ORDER BY r.name, w.role, w.idx";
static const char SQL_WORKER_LIST_RUN[] = "SELECT " WORKER_COLUMNS
					  "WHERE r.name = ?1 ORDER BY w.role, w.idx";
void *srt_store_grow(void *rows, size_t *n, size_t *cap, size_t size)
{
	char *p = rows;

	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		p = srt_xrealloc(p, *cap * size);
	}
	memset(p + *n * size, 0, size);
	(*n)++;
	return p;
}

static void bind_time(sqlite3_stmt *st, int idx, int64_t v)
{
	if (v > 0)
		sqlite3_bind_int64(st, idx, v);
	else
		sqlite3_bind_null(st, idx);
}

int srt_store_run_id(struct srt_store *s, const char *name, int64_t *id, struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_RUN_ID, err);
	int rc;

	if (!st)
		return -1;
	srt_store_bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return srt_store_sql_error(s, err, rc, "cannot read run '%s'", name);
}

/* The id of run `name`, or -1 with err set ("no run named ..."). */
static int need_run(struct srt_store *s, const char *name, int64_t *id, struct srt_error *err)
{
	int rc = srt_store_run_id(s, name, id, err);

	if (rc == 0)
		return srt_error_set(err,
				     "no run named '%s' in database %s; 'srtctl get runs' "
				     "lists them",
				     name ? name : "(null)", s->path);
	return rc < 0 ? -1 : 0;
}

/* ---- runs ---- */

static void read_run(sqlite3_stmt *st, struct srt_run_row *r)
{
	r->id = sqlite3_column_int64(st, 0);
	r->uid = srt_store_col_text(st, 1);
	r->name = srt_store_col_text(st, 2);
	r->recipe = srt_store_col_text(st, 3);
	r->phase = srt_store_col_text(st, 4);
	r->job_name = srt_store_col_text(st, 5);
	r->job_comment = srt_store_col_text(st, 6);
	r->slurm_state = srt_store_col_text(st, 7);
	r->run_dir = srt_store_col_text(st, 8);
	r->message = srt_store_col_text(st, 9);
	r->generation = sqlite3_column_int64(st, 10);
	r->attempt = sqlite3_column_int64(st, 11);
	r->slurm_job_id = sqlite3_column_int64(st, 12);
	r->exit_code = sqlite3_column_type(st, 13) == SQLITE_NULL ? -1 :
								    sqlite3_column_int64(st, 13);
	r->created_at = sqlite3_column_int64(st, 14);
	r->updated_at = sqlite3_column_int64(st, 15);
	r->started_at = sqlite3_column_int64(st, 16);
	r->finished_at = sqlite3_column_int64(st, 17);
	r->frontend_url_planned = srt_store_col_text(st, 18);
	r->frontend_url = srt_store_col_text(st, 19);
	r->job_started_at = sqlite3_column_int64(st, 20);
	r->job_ended_at = sqlite3_column_int64(st, 21);
}

static int create_locked(struct srt_store *s, const char *recipe, int64_t attempt, char **name_out,
			 struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_RUN_RECIPE, err);
	int64_t recipe_id = 0, gen = 0, now = srt_store_now(s);
	bool deleted = false;
	char uid[33], *name = NULL, *comment = NULL;
	int rc;

	if (!st)
		return -1;
	srt_store_bind_text(st, 1, recipe);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		recipe_id = sqlite3_column_int64(st, 0);
		gen = sqlite3_column_int64(st, 1);
		deleted = sqlite3_column_type(st, 2) != SQLITE_NULL;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return srt_store_sql_error(s, err, rc, "cannot read recipe '%s'", recipe);
	if (rc == SQLITE_DONE)
		return srt_error_set(err, "no recipe named '%s' in database %s; apply it first",
				     recipe, s->path);
	if (deleted)
		return srt_error_set(err,
				     "recipe '%s' is deleted, so no run is created for it; apply "
				     "it again to run it",
				     recipe);
	srt_store_new_uid(uid);
	name = srt_store_run_name(recipe, gen, attempt);
	comment = srt_xasprintf("srtctl:%s:%lld", uid, (long long)attempt);
	st = srt_store_stmt(s, SQL_RUN_INSERT, err);
	if (!st) {
		rc = -1;
		goto out;
	}
	srt_store_bind_text(st, 1, uid);
	sqlite3_bind_int64(st, 2, recipe_id);
	srt_store_bind_text(st, 3, name);
	sqlite3_bind_int64(st, 4, gen);
	sqlite3_bind_int64(st, 5, attempt);
	srt_store_bind_text(st, 6, comment);
	sqlite3_bind_int64(st, 7, now);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_CONSTRAINT_UNIQUE) {
		rc = srt_error_set(err,
				   "run '%s' (recipe '%s', generation %lld, attempt %lld) "
				   "already exists",
				   name, recipe, (long long)gen, (long long)attempt);
		goto out;
	}
	if (rc != SQLITE_DONE) {
		rc = srt_store_sql_error(s, err, rc, "cannot create run '%s'", name);
		goto out;
	}
	rc = 0;
	*name_out = name;
	name = NULL;
out:
	free(name);
	free(comment);
	return rc;
}

char *srt_store_run_name(const char *recipe, int64_t generation, int64_t attempt)
{
	return srt_xasprintf("%s-%lld-%lld", recipe, (long long)generation, (long long)attempt);
}

int srt_store_run_create(struct srt_store *s, const char *recipe, int64_t attempt,
			 struct srt_run_row *out, struct srt_error *err)
{
	char *name = NULL;
	bool own;
	int rc;

	if (out)
		memset(out, 0, sizeof(*out));
	if (!recipe || attempt < 1)
		return srt_error_set(err, "internal error: run_create needs a recipe and an "
					  "attempt >= 1");
	if (srt_store_tx_enter(s, &own, err) != 0)
		return -1;
	rc = create_locked(s, recipe, attempt, &name, err);
	if (rc == 0 && out && srt_store_run_get(s, name, out, err) != 1)
		rc = -1;
	if (srt_store_tx_end(s, own, rc == 0, err) != 0)
		rc = -1;
	if (rc != 0 && out)
		srt_run_row_release(out);
	free(name);
	return rc;
}

int srt_store_run_list(struct srt_store *s, const char *recipe, struct srt_run_row **rows,
		       size_t *n, struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, recipe ? SQL_RUN_LIST_RECIPE : SQL_RUN_LIST, err);
	size_t cap = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	if (!st)
		return -1;
	srt_store_bind_text(st, 1, recipe);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*rows = srt_store_grow(*rows, n, &cap, sizeof(**rows));
		read_run(st, &(*rows)[*n - 1]);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		srt_run_rows_free(*rows, *n);
		*rows = NULL;
		*n = 0;
		return srt_store_sql_error(s, err, rc, "cannot list runs");
	}
	return 0;
}

int srt_store_run_get(struct srt_store *s, const char *name, struct srt_run_row *out,
		      struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_RUN_GET, err);
	int rc;

	memset(out, 0, sizeof(*out));
	if (!st)
		return -1;
	srt_store_bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		read_run(st, out);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return srt_store_sql_error(s, err, rc, "cannot read run '%s'", name);
}

static int update_locked(struct srt_store *s, const char *name, const char *phase,
			 int64_t slurm_job_id, const char *slurm_state, const char *message,
			 struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_RUN_UPDATE, err);
	int rc;

	if (!st)
		return -1;
	srt_store_bind_text(st, 1, name);
	srt_store_bind_text(st, 2, phase);
	sqlite3_bind_int64(st, 3, slurm_job_id);
	srt_store_bind_text(st, 4, slurm_state);
	srt_store_bind_text(st, 5, message);
	sqlite3_bind_int64(st, 6, srt_store_now(s));
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_CONSTRAINT_CHECK)
		return srt_error_set(err, "internal error: '%s' is not a run phase (run '%s')",
				     phase ? phase : "", name);
	if (rc != SQLITE_DONE)
		return srt_store_sql_error(s, err, rc, "cannot update run '%s'", name);
	if (sqlite3_changes(s->db) == 0)
		return srt_error_set(err, "no run named '%s' in database %s", name, s->path);
	return 0;
}

int srt_store_run_update(struct srt_store *s, const char *name, const char *phase,
			 int64_t slurm_job_id, const char *slurm_state, const char *message,
			 struct srt_error *err)
{
	bool own;
	int rc;

	if (srt_store_tx_enter(s, &own, err) != 0)
		return -1;
	rc = update_locked(s, name, phase, slurm_job_id, slurm_state, message, err);
	if (srt_store_tx_end(s, own, rc == 0, err) != 0)
		rc = -1;
	return rc;
}

/*
 * Step an UPDATE of run `name` whose parameters are bound, in a transaction
 * of its own unless one is open: 0 when it changed a row; 1, with nothing
 * set in err, on a UNIQUE violation (the caller says which); -1 otherwise.
 */
static int update_one(struct srt_store *s, sqlite3_stmt *st, bool own, const char *name,
		      const char *what, struct srt_error *err)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		rc = 1;
	else if (rc != SQLITE_DONE)
		rc = srt_store_sql_error(s, err, rc, "cannot %s of run '%s'", what, name);
	else if (sqlite3_changes(s->db) == 0)
		rc = srt_error_set(err, "no run named '%s'", name);
	else
		rc = 0;
	if (srt_store_tx_end(s, own, rc == 0, err) != 0)
		rc = -1;
	return rc;
}

/*
 * Enter a transaction (of its own unless one is open: *own) and prepare the
 * UPDATE `sql` for update_one(); NULL, with the transaction ended, on failure.
 */
static sqlite3_stmt *begin_update(struct srt_store *s, const char *sql, bool *own,
				  struct srt_error *err)
{
	sqlite3_stmt *st;

	if (srt_store_tx_enter(s, own, err) != 0)
		return NULL;
	st = srt_store_stmt(s, sql, err);
	if (!st)
		srt_store_tx_end(s, *own, false, err);
	return st;
}

int srt_store_run_set_details(struct srt_store *s, const char *name, const char *run_dir,
			      bool set_exit_code, int64_t exit_code, struct srt_error *err)
{
	bool own;
	sqlite3_stmt *st = begin_update(s, SQL_RUN_DETAILS, &own, err);

	if (!st)
		return -1;
	srt_store_bind_text(st, 1, name);
	srt_store_bind_text(st, 2, run_dir);
	if (set_exit_code)
		sqlite3_bind_int64(st, 3, exit_code);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_int64(st, 4, srt_store_now(s));
	return update_one(s, st, own, name, "update the details", err) == 0 ? 0 : -1;
}

int srt_store_run_set_job_times(struct srt_store *s, const char *name, int64_t started_at,
				int64_t ended_at, struct srt_error *err)
{
	bool own;
	sqlite3_stmt *st = begin_update(s, SQL_RUN_JOB_TIMES, &own, err);

	if (!st)
		return -1;
	srt_store_bind_text(st, 1, name);
	sqlite3_bind_int64(st, 2, started_at);
	sqlite3_bind_int64(st, 3, ended_at);
	sqlite3_bind_int64(st, 4, srt_store_now(s));
	return update_one(s, st, own, name, "record the job's start and end", err) == 0 ? 0 : -1;
}

/* UPDATE `sql` (?1 the run, ?2 a text value, ?3 now) of run `name`. */
static int set_text(struct srt_store *s, const char *sql, const char *name, const char *value,
		    const char *what, struct srt_error *err)
{
	bool own;
	sqlite3_stmt *st = begin_update(s, sql, &own, err);

	if (!st)
		return -1;
	srt_store_bind_text(st, 1, name);
	srt_store_bind_text(st, 2, value);
	sqlite3_bind_int64(st, 3, srt_store_now(s));
	return update_one(s, st, own, name, what, err) == 0 ? 0 : -1;
}

int srt_store_run_set_frontend_planned(struct srt_store *s, const char *name, const char *url,
				       struct srt_error *err)
{
	return set_text(s, SQL_RUN_FRONTEND_PLANNED, name, url, "record the planned frontend URL",
			err);
}

int srt_store_run_set_frontend_url(struct srt_store *s, const char *name, const char *url,
				   struct srt_error *err)
{
	return set_text(s, SQL_RUN_FRONTEND_URL, name, url, "record the frontend URL", err);
}

int srt_store_run_set_generation(struct srt_store *s, const char *name, int64_t generation,
				 struct srt_error *err)
{
	bool own;
	sqlite3_stmt *st = begin_update(s, SQL_RUN_GENERATION, &own, err);
	int rc;

	if (!st)
		return -1;
	srt_store_bind_text(st, 1, name);
	sqlite3_bind_int64(st, 2, generation);
	sqlite3_bind_int64(st, 3, srt_store_now(s));
	rc = update_one(s, st, own, name, "set the generation", err);
	if (rc == 1)
		return srt_error_set(err,
				     "run '%s' cannot take generation %lld: another run of its "
				     "recipe has that generation and attempt",
				     name, (long long)generation);
	return rc;
}

int srt_store_ingest_cursor_get(struct srt_store *s, const char *run, int64_t *last_seq,
				struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_CURSOR_GET, err);
	int rc;

	*last_seq = 0;
	if (!st)
		return -1;
	srt_store_bind_text(st, 1, run);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*last_seq = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return srt_store_sql_error(s, err, rc, "cannot read the ingest cursor of run '%s'",
					   run);
	return 0;
}

int srt_store_ingest_cursor_set(struct srt_store *s, const char *run, int64_t last_seq,
				struct srt_error *err)
{
	sqlite3_stmt *st;
	bool own;

	if (srt_store_tx_enter(s, &own, err) != 0)
		return -1;
	st = srt_store_stmt(s, SQL_CURSOR_SET, err);
	if (!st) {
		srt_store_tx_end(s, own, false, err);
		return -1;
	}
	srt_store_bind_text(st, 1, run);
	sqlite3_bind_int64(st, 2, last_seq);
	return update_one(s, st, own, run, "set the ingest cursor", err) == 0 ? 0 : -1;
}

/* ---- conditions ---- */

static int condition_locked(struct srt_store *s, const char *run, const char *type,
			    const char *status, const char *reason, const char *message,
			    int64_t observed_generation, struct srt_error *err)
{
	sqlite3_stmt *st;
	int64_t run_id = 0;
	int rc;

	if (need_run(s, run, &run_id, err) != 0)
		return -1;
	st = srt_store_stmt(s, SQL_COND_SET, err);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	srt_store_bind_text(st, 2, type);
	srt_store_bind_text(st, 3, status);
	srt_store_bind_text(st, 4, reason);
	srt_store_bind_text(st, 5, message);
	sqlite3_bind_int64(st, 6, observed_generation);
	sqlite3_bind_int64(st, 7, srt_store_now(s));
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_CONSTRAINT_CHECK)
		return srt_error_set(err,
				     "internal error: condition %s of run '%s' has status "
				     "'%s' (expected True, False or Unknown)",
				     type, run, status);
	if (rc != SQLITE_DONE)
		return srt_store_sql_error(s, err, rc, "cannot set condition %s of run '%s'", type,
					   run);
	return 0;
}

int srt_store_condition_set(struct srt_store *s, const char *run, const char *type,
			    const char *status, const char *reason, const char *message,
			    int64_t observed_generation, struct srt_error *err)
{
	bool own;
	int rc;

	if (!type || !status)
		return srt_error_set(err, "internal error: a condition needs a type and a status");
	if (srt_store_tx_enter(s, &own, err) != 0)
		return -1;
	rc = condition_locked(s, run, type, status, reason, message, observed_generation, err);
	if (srt_store_tx_end(s, own, rc == 0, err) != 0)
		rc = -1;
	return rc;
}

int srt_store_condition_list(struct srt_store *s, const char *run, struct srt_condition_row **rows,
			     size_t *n, struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_COND_LIST, err);
	size_t cap = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	if (!st)
		return -1;
	srt_store_bind_text(st, 1, run);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct srt_condition_row *c;

		*rows = srt_store_grow(*rows, n, &cap, sizeof(**rows));
		c = &(*rows)[*n - 1];
		c->type = srt_store_col_text(st, 0);
		c->status = srt_store_col_text(st, 1);
		c->reason = srt_store_col_text(st, 2);
		c->message = srt_store_col_text(st, 3);
		c->observed_generation = sqlite3_column_int64(st, 4);
		c->last_transition_at = sqlite3_column_int64(st, 5);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		srt_condition_rows_free(*rows, *n);
		*rows = NULL;
		*n = 0;
		return srt_store_sql_error(s, err, rc, "cannot list the conditions of run '%s'",
					   run);
	}
	return 0;
}

/* ---- services ---- */

static int service_locked(struct srt_store *s, const struct srt_service_row *row,
			  struct srt_error *err)
{
	sqlite3_stmt *st;
	int64_t run_id = 0;
	int rc;

	if (need_run(s, row->run, &run_id, err) != 0)
		return -1;
	st = srt_store_stmt(s, SQL_SERVICE_UPSERT, err);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	srt_store_bind_text(st, 2, row->name);
	srt_store_bind_text(st, 3, row->service ? row->service : row->name);
	srt_store_bind_text(st, 4, row->type);
	srt_store_bind_text(st, 5, row->node);
	srt_store_bind_text(st, 6, row->endpoint);
	srt_store_bind_text(st, 7, row->state);
	sqlite3_bind_int64(st, 8, row->restarts);
	srt_store_bind_text(st, 9, row->last_probe);
	bind_time(st, 10, row->last_probe_at);
	srt_store_bind_text(st, 11, row->message);
	bind_time(st, 12, row->started_at);
	sqlite3_bind_int64(st, 13, row->updated_at > 0 ? row->updated_at : srt_store_now(s));
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return srt_store_sql_error(s, err, rc, "cannot record service '%s' of run '%s'",
					   row->name, row->run);
	return 0;
}

int srt_store_service_upsert(struct srt_store *s, const struct srt_service_row *row,
			     struct srt_error *err)
{
	bool own;
	int rc;

	if (!row->run || !row->name || !row->type || !row->state)
		return srt_error_set(err, "internal error: a service row needs a run, a name, a "
					  "type and a state");
	if (srt_store_tx_enter(s, &own, err) != 0)
		return -1;
	rc = service_locked(s, row, err);
	if (srt_store_tx_end(s, own, rc == 0, err) != 0)
		rc = -1;
	return rc;
}

int srt_store_service_list(struct srt_store *s, const char *run, const char *name,
			   struct srt_service_row **rows, size_t *n, struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, run ? SQL_SERVICE_LIST_RUN : SQL_SERVICE_LIST, err);
	size_t cap = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	if (!st)
		return -1;
	srt_store_bind_text(st, 1, run);
	srt_store_bind_text(st, 2, name);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct srt_service_row *r;

		*rows = srt_store_grow(*rows, n, &cap, sizeof(**rows));
		r = &(*rows)[*n - 1];
		r->id = sqlite3_column_int64(st, 0);
		r->run = srt_store_col_text(st, 1);
		r->name = srt_store_col_text(st, 2);
		r->service = srt_store_col_text(st, 3);
		r->type = srt_store_col_text(st, 4);
		r->node = srt_store_col_text(st, 5);
		r->endpoint = srt_store_col_text(st, 6);
		r->state = srt_store_col_text(st, 7);
		r->last_probe = srt_store_col_text(st, 8);
		r->message = srt_store_col_text(st, 9);
		r->restarts = sqlite3_column_int64(st, 10);
		r->last_probe_at = sqlite3_column_int64(st, 11);
		r->started_at = sqlite3_column_int64(st, 12);
		r->updated_at = sqlite3_column_int64(st, 13);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		srt_service_rows_free(*rows, *n);
		*rows = NULL;
		*n = 0;
		return srt_store_sql_error(s, err, rc, "cannot list services");
	}
	return 0;
}

/* ---- workers ---- */

static int worker_locked(struct srt_store *s, const struct srt_worker_row *row,
			 struct srt_error *err)
{
	sqlite3_stmt *st;
	int64_t run_id = 0;
	int rc;

	if (need_run(s, row->run, &run_id, err) != 0)
		return -1;
	st = srt_store_stmt(s, SQL_WORKER_UPSERT, err);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	srt_store_bind_text(st, 2, row->role);
	sqlite3_bind_int64(st, 3, row->idx);
	srt_store_bind_text(st, 4, row->node);
	srt_store_bind_text(st, 5, row->ip);
	srt_store_bind_text(st, 6, row->env_hash);
	srt_store_bind_text(st, 7, row->state);
	sqlite3_bind_int64(st, 8, row->restarts);
	srt_store_bind_text(st, 9, row->message);
	bind_time(st, 10, row->started_at);
	sqlite3_bind_int64(st, 11, row->updated_at > 0 ? row->updated_at : srt_store_now(s));
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_CONSTRAINT_CHECK)
		return srt_error_set(err,
				     "internal error: worker role '%s' of run '%s' is not "
				     "prefill, decode or agg",
				     row->role, row->run);
	if (rc != SQLITE_DONE)
		return srt_store_sql_error(s, err, rc, "cannot record worker %s %lld of run '%s'",
					   row->role, (long long)row->idx, row->run);
	return 0;
}

int srt_store_worker_upsert(struct srt_store *s, const struct srt_worker_row *row,
			    struct srt_error *err)
{
	bool own;
	int rc;

	if (!row->run || !row->role || !row->state)
		return srt_error_set(err, "internal error: a worker row needs a run, a role and a "
					  "state");
	if (srt_store_tx_enter(s, &own, err) != 0)
		return -1;
	rc = worker_locked(s, row, err);
	if (srt_store_tx_end(s, own, rc == 0, err) != 0)
		rc = -1;
	return rc;
}

int srt_store_worker_list(struct srt_store *s, const char *run, struct srt_worker_row **rows,
			  size_t *n, struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, run ? SQL_WORKER_LIST_RUN : SQL_WORKER_LIST, err);
	size_t cap = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	if (!st)
		return -1;
	srt_store_bind_text(st, 1, run);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct srt_worker_row *w;

		*rows = srt_store_grow(*rows, n, &cap, sizeof(**rows));
		w = &(*rows)[*n - 1];
		w->id = sqlite3_column_int64(st, 0);
		w->run = srt_store_col_text(st, 1);
		w->role = srt_store_col_text(st, 2);
		w->node = srt_store_col_text(st, 3);
		w->ip = srt_store_col_text(st, 4);
		w->env_hash = srt_store_col_text(st, 5);
		w->state = srt_store_col_text(st, 6);
		w->message = srt_store_col_text(st, 7);
		w->idx = sqlite3_column_int64(st, 8);
		w->restarts = sqlite3_column_int64(st, 9);
		w->started_at = sqlite3_column_int64(st, 10);
		w->updated_at = sqlite3_column_int64(st, 11);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		srt_worker_rows_free(*rows, *n);
		*rows = NULL;
		*n = 0;
		return srt_store_sql_error(s, err, rc, "cannot list workers");
	}
	return 0;
}

/* ---- freeing ---- */

void srt_run_row_release(struct srt_run_row *r)
{
	if (!r)
		return;
	free(r->uid);
	free(r->name);
	free(r->recipe);
	free(r->phase);
	free(r->job_name);
	free(r->job_comment);
	free(r->slurm_state);
	free(r->run_dir);
	free(r->message);
	free(r->frontend_url_planned);
	free(r->frontend_url);
	memset(r, 0, sizeof(*r));
}

void srt_run_rows_free(struct srt_run_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		srt_run_row_release(&rows[i]);
	free(rows);
}

void srt_condition_rows_free(struct srt_condition_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].type);
		free(rows[i].status);
		free(rows[i].reason);
		free(rows[i].message);
	}
	free(rows);
}

void srt_service_rows_free(struct srt_service_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].run);
		free(rows[i].name);
		free(rows[i].service);
		free(rows[i].type);
		free(rows[i].node);
		free(rows[i].endpoint);
		free(rows[i].state);
		free(rows[i].last_probe);
		free(rows[i].message);
	}
	free(rows);
}

void srt_worker_rows_free(struct srt_worker_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].run);
		free(rows[i].role);
		free(rows[i].node);
		free(rows[i].ip);
		free(rows[i].env_hash);
		free(rows[i].state);
		free(rows[i].message);
	}
	free(rows);
}
