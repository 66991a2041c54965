/*
 * store/recipes.c: desired state, one row per recipe name.
 *
 * A recipe row keeps its uid and id for life; applying a different
 * canonical spec replaces the spec and bumps the generation, deleting sets
 * deleted_at (the controller cancels what runs), and applying again after a
 * delete brings the row back as a new generation.  Each change writes its
 * event in the same transaction, so the number of RecipeConfigured events
 * of a recipe is always its generation - 1.
 */
#include "store/store.h"
#include "store/internal.h"
#include "util/buf.h"
#include "util/sha256.h"

#include <stdlib.h>
#include <string.h>

static const char SQL_RECIPE_STATE[] =
	"SELECT id, spec_hash, generation, deleted_at FROM recipes WHERE name = ?1";
static const char SQL_RECIPE_INSERT[] =
	"INSERT INTO recipes (uid, name, spec, spec_hash, generation, source_file, source_yaml, "
	"created_at, applied_at) VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?7, ?7)";
static const char SQL_RECIPE_UPDATE[] =
	"UPDATE recipes SET spec = ?2, spec_hash = ?3, generation = ?4, source_file = ?5, "
	"source_yaml = ?6, applied_at = ?7, deleted_at = NULL WHERE id = ?1";
static const char SQL_RECIPE_TOUCH[] =
	"UPDATE recipes SET source_file = ?2, source_yaml = ?3, applied_at = ?4 WHERE id = ?1";
#define RECIPE_COLUMNS                                                                       \
	"id, uid, name, spec, spec_hash, source_file, source_yaml, generation, created_at, " \
	"applied_at, deleted_at"
static const char SQL_RECIPE_GET[] = "SELECT " RECIPE_COLUMNS " FROM recipes WHERE name = ?1";
static const char SQL_RECIPE_LIST[] = "SELECT " RECIPE_COLUMNS
				      " FROM recipes WHERE ?1 OR deleted_at IS NULL ORDER BY name";
static const char SQL_RECIPE_DELETE[] =
	"UPDATE recipes SET deleted_at = ?2 WHERE name = ?1 AND deleted_at IS NULL "
	"RETURNING generation";

static void read_row(sqlite3_stmt *st, struct srt_recipe_row *r)
{
	r->id = sqlite3_column_int64(st, 0);
	r->uid = srt_store_col_text(st, 1);
	r->name = srt_store_col_text(st, 2);
	r->spec = srt_store_col_text(st, 3);
	r->spec_hash = srt_store_col_text(st, 4);
	r->source_file = srt_store_col_text(st, 5);
	r->source_yaml = srt_store_col_text(st, 6);
	r->generation = sqlite3_column_int64(st, 7);
	r->created_at = sqlite3_column_int64(st, 8);
	r->applied_at = sqlite3_column_int64(st, 9);
	r->deleted_at = sqlite3_column_int64(st, 10);
}

static const char *from(const char *source_file)
{
	return source_file && *source_file ? source_file : "-";
}

/* The body of srt_store_recipe_apply, inside a transaction. */
static int apply_locked(struct srt_store *s, const char *name, const char *spec,
			const char *source_file, const char *source_yaml,
			enum srt_apply_result *result, int64_t *generation, struct srt_error *err)
{
	sqlite3_stmt *st;
	char hash[65], uid[33];
	int64_t now = srt_store_now(s), id = 0, gen = 0;
	bool found = false, deleted = false, same = false;
	int rc;

	srt_sha256_hex(spec, strlen(spec), hash);
	st = srt_store_stmt(s, SQL_RECIPE_STATE, err);
	if (!st)
		return -1;
	srt_store_bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		found = true;
		id = sqlite3_column_int64(st, 0);
		same = !strcmp((const char *)sqlite3_column_text(st, 1), hash);
		gen = sqlite3_column_int64(st, 2);
		deleted = sqlite3_column_type(st, 3) != SQLITE_NULL;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return srt_store_sql_error(s, err, rc, "cannot read recipe '%s'", name);

	if (!found) {
		srt_store_new_uid(uid);
		st = srt_store_stmt(s, SQL_RECIPE_INSERT, err);
		if (!st)
			return -1;
		srt_store_bind_text(st, 1, uid);
		srt_store_bind_text(st, 2, name);
		srt_store_bind_text(st, 3, spec);
		srt_store_bind_text(st, 4, hash);
		srt_store_bind_text(st, 5, source_file);
		srt_store_bind_text(st, 6, source_yaml);
		sqlite3_bind_int64(st, 7, now);
		gen = 1;
		*result = SRT_APPLY_CREATED;
	} else if (same && !deleted) {
		st = srt_store_stmt(s, SQL_RECIPE_TOUCH, err);
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, id);
		srt_store_bind_text(st, 2, source_file);
		srt_store_bind_text(st, 3, source_yaml);
		sqlite3_bind_int64(st, 4, now);
		*result = SRT_APPLY_UNCHANGED;
	} else {
		st = srt_store_stmt(s, SQL_RECIPE_UPDATE, err);
		if (!st)
			return -1;
		gen++;
		sqlite3_bind_int64(st, 1, id);
		srt_store_bind_text(st, 2, spec);
		srt_store_bind_text(st, 3, hash);
		sqlite3_bind_int64(st, 4, gen);
		srt_store_bind_text(st, 5, source_file);
		srt_store_bind_text(st, 6, source_yaml);
		sqlite3_bind_int64(st, 7, now);
		*result = SRT_APPLY_CONFIGURED;
	}
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return srt_store_sql_error(s, err, rc, "cannot record recipe '%s'", name);
	if (generation)
		*generation = gen;

	switch (*result) {
	case SRT_APPLY_CREATED:
		return srt_store_event(s, err, "Normal", "RecipeCreated", "recipe", name, "cli",
				       "Created recipe %s at generation 1 from %s", name,
				       from(source_file));
	case SRT_APPLY_CONFIGURED:
		if (deleted)
			return srt_store_event(s, err, "Normal", "RecipeConfigured", "recipe", name,
					       "cli",
					       "Applied recipe %s again after its deletion: "
					       "generation %lld from %s",
					       name, (long long)gen, from(source_file));
		return srt_store_event(s, err, "Normal", "RecipeConfigured", "recipe", name, "cli",
				       "Configured recipe %s: generation %lld from %s", name,
				       (long long)gen, from(source_file));
	case SRT_APPLY_UNCHANGED:
		break;
	}
	return 0;
}

int srt_store_recipe_apply(struct srt_store *s, const char *name, const char *spec,
			   const char *source_file, const char *source_yaml,
			   enum srt_apply_result *result, int64_t *generation,
			   struct srt_error *err)
{
	enum srt_apply_result res = SRT_APPLY_UNCHANGED;
	bool own;
	int rc;

	if (!name || !*name || !spec)
		return srt_error_set(err, "internal error: recipe_apply needs a name and a spec");
	if (srt_store_tx_enter(s, &own, err) != 0)
		return srt_error_prefix(err, "recipe '%s'", name);
	rc = apply_locked(s, name, spec, source_file, source_yaml, &res, generation, err);
	if (srt_store_tx_end(s, own, rc == 0, err) != 0)
		rc = -1;
	if (rc != 0)
		return -1;
	if (result)
		*result = res;
	return 0;
}

int srt_store_recipe_get(struct srt_store *s, const char *name, struct srt_recipe_row *out,
			 struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_RECIPE_GET, err);
	int rc;

	memset(out, 0, sizeof(*out));
	if (!st)
		return -1;
	srt_store_bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		read_row(st, out);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return srt_store_sql_error(s, err, rc, "cannot read recipe '%s'", name);
}

int srt_store_recipe_list(struct srt_store *s, bool include_deleted, struct srt_recipe_row **rows,
			  size_t *n, struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_RECIPE_LIST, err);
	size_t cap = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	if (!st)
		return -1;
	sqlite3_bind_int(st, 1, include_deleted);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*rows = srt_xrealloc(*rows, cap * sizeof(**rows));
		}
		read_row(st, &(*rows)[(*n)++]);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		srt_recipe_rows_free(*rows, *n);
		*rows = NULL;
		*n = 0;
		return srt_store_sql_error(s, err, rc, "cannot list recipes");
	}
	return 0;
}

static int delete_locked(struct srt_store *s, const char *name, struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_RECIPE_DELETE, err);
	int64_t gen = 0;
	int rc;

	if (!st)
		return -1;
	srt_store_bind_text(st, 1, name);
	sqlite3_bind_int64(st, 2, srt_store_now(s));
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		gen = sqlite3_column_int64(st, 0);
		rc = sqlite3_step(st);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return srt_store_sql_error(s, err, rc, "cannot delete recipe '%s'", name);
	if (!gen)
		return 0;
	if (srt_store_event(s, err, "Normal", "RecipeDeleted", "recipe", name, "cli",
			    "Deleted recipe %s at generation %lld; the controller cancels its runs",
			    name, (long long)gen) != 0)
		return -1;
	return 1;
}

int srt_store_recipe_delete(struct srt_store *s, const char *name, struct srt_error *err)
{
	bool own;
	int rc;

	if (srt_store_tx_enter(s, &own, err) != 0)
		return srt_error_prefix(err, "recipe '%s'", name);
	rc = delete_locked(s, name, err);
	if (srt_store_tx_end(s, own, rc >= 0, err) != 0)
		return -1;
	return rc;
}

void srt_recipe_row_release(struct srt_recipe_row *r)
{
	if (!r)
		return;
	free(r->uid);
	free(r->name);
	free(r->spec);
	free(r->spec_hash);
	free(r->source_file);
	free(r->source_yaml);
	memset(r, 0, sizeof(*r));
}

void srt_recipe_rows_free(struct srt_recipe_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		srt_recipe_row_release(&rows[i]);
	free(rows);
}
