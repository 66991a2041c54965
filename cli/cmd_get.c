/*
 * cli/cmd_get.c: `srtctl get KIND [NAME] [-o wide|json|yaml] [--watch]`.
 *
 * Each kind has one function that reads its rows and fills both a table
 * and a JSON item per row, so the table and -o json/yaml never disagree
 * about what a field is.  JSON items carry every field (wide or not) under
 * the snake_case names documented in docs/cli-reference.md, with times in
 * RFC 3339 and null for what is not known yet.
 */
#include "cli/cli.h"
#include "results/results.h"
#include "cli/print.h"
#include "store/store.h"
#include "util/buf.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: srtctl get recipes|runs|jobs|services|workers|campaigns|points [NAME]\n"
	"                  [-o wide|json|yaml|csv] [--watch] [--db PATH]\n"
	"\n"
	"List objects from the state database: what was applied (recipes, campaigns) and\n"
	"what the controller observed (runs, their SLURM jobs, services, workers).\n"
	"AGE is the time since the object was created (services and workers: started).\n"
	"Kinds may be singular (recipe) or plural (recipes); svc means services.\n"
	"\n"
	"NAME selects one object: a recipe, run or campaign name; for jobs the run name or\n"
	"the SLURM job id; for services the instance name; for workers ROLE-INDEX\n"
	"(prefill-0); for points a prefix of the point id.\n"
	"\n"
	"campaigns: points done, running, pending, failed and invalid per campaign, and\n"
	"ETA: the mean duration of its finished points x the points left / the\n"
	"deployments that run at once (\"unknown\" before a point finished; its state\n"
	"when Suspended, Stopped or OutOfBudget). -o wide adds STATE and NODE-HOURS\n"
	"(node-hours used by its deployments' runs, as its budget counts them).\n"
	"points: one row per point of a campaign (deployment x shape x concurrency x\n"
	"repeat) with its state, attempts, key metrics and whether it met the SLO.\n"
	"\n"
	"Options:\n"
	"  -o, --output FORMAT    text (default), wide (more columns), json or yaml;\n"
	"                         json/yaml print {\"kind\": \"List\", \"items\": [...]};\n"
	"                         csv (points only): a header and one row per point,\n"
	"                         every JSON field (results.* flattened)\n"
	"  -w, --watch            print again whenever the data changes (Ctrl-C stops)\n"
	"      --recipe NAME      runs and jobs: only this recipe's\n"
	"      --run NAME         services and workers: only this run's\n"
	"      --campaign NAME    points: only this campaign's\n"
	"      --frontier         points: only those on the Pareto frontier of their\n"
	"                         campaign and ISL/OSL shape (output tok/s per user\n"
	"                         against output tok/s per GPU; done points only)\n"
	"      --include-deleted  recipes: list deleted ones too\n"
	"      --db PATH          state database (default: $SRTCTL_DB, else\n"
	"                         $XDG_STATE_HOME/srtctl/srtctl.db)\n"
	"  -h, --help             show this help\n"
	"\n"
	"Exit codes: 0 ok (also when nothing is found), 1 NAME not found, 2 usage or I/O.\n"
	"\n"
	"Examples:\n"
	"  srtctl get recipes\n"
	"  srtctl get runs -o wide\n"
	"  srtctl get services --run qwen3-mooncake-2-1 --watch\n"
	"  srtctl get recipe qwen3-mooncake -o json\n"
	"  srtctl get points --campaign qwen3-sweep -o csv > points.csv\n"
	"  srtctl get points --campaign qwen3-sweep --frontier\n";

struct get_ctx {
	struct srt_store *store;
	enum srt_output fmt;
	bool wide;
	const char *name;	  /* NULL: every object */
	const char *recipe, *run, *campaign; /* filters */
	bool include_deleted;
	bool want_json; /* -o json|yaml, or --watch (which compares items) */
	int64_t now;
	/*
	 * Points with -o json or csv and no --watch: each item is printed here
	 * as it is read (stream_item()), none is kept; `streamed` counts them.
	 */
	FILE *stream;
	size_t streamed;
	bool frontier; /* points: only those on their group's Pareto frontier */
};

/*
 * Append a JSON item, building it only when JSON is wanted: with table output
 * (and no --watch) items is NULL and the per-row objects are never made.
 */
#define ADD_ITEM(items, ...)                                                                        \
	do {                                                                                        \
		if (items)                                                                          \
			json_array_append_new(items, __VA_ARGS__);                                  \
	} while (0)

/* Fill `t` (headers first) and `items` (when non-NULL); -1 with err set on a database error. */
typedef int (*kind_fn)(struct get_ctx *c, struct srt_table *t, json_t *items,
		       struct srt_error *err);

static void headers(struct srt_table *t, bool wide, const char *const *base, size_t nbase,
		    const char *const *more, size_t nmore)
{
	srt_table_init(t, nbase + (wide ? nmore : 0));
	for (size_t i = 0; i < nbase; i++)
		srt_table_add(t, base[i]);
	for (size_t i = 0; wide && i < nmore; i++)
		srt_table_add(t, more[i]);
}

#define HEADERS(t, wide, base, more) \
	headers(t, wide, base, sizeof(base) / sizeof(*base), more, sizeof(more) / sizeof(*more))

static json_t *opt_int(int64_t v, int64_t none_below)
{
	return v < none_below ? json_null() : json_integer((json_int_t)v);
}

static int64_t age_origin(int64_t started, int64_t fallback)
{
	return started ? started : fallback;
}

/* ---- recipes ---- */

static int get_recipes(struct get_ctx *c, struct srt_table *t, json_t *items, struct srt_error *err)
{
	static const char *const base[] = { "NAME", "GENERATION", "AGE" };
	static const char *const more[] = { "SPEC_HASH", "SOURCE", "DELETED" };
	struct srt_recipe_row *rows = NULL;
	size_t n = 0;

	HEADERS(t, c->wide, base, more);
	if (c->name) {
		struct srt_recipe_row one;
		int found;

		memset(&one, 0, sizeof(one));
		found = srt_store_recipe_get(c->store, c->name, &one, err);
		if (found < 0)
			return -1;
		if (found) {
			rows = srt_xcalloc(1, sizeof(*rows));
			rows[0] = one;
			n = 1;
		} else {
			srt_recipe_row_release(&one);
		}
	} else if (srt_store_recipe_list(c->store, c->include_deleted, &rows, &n, err) != 0) {
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct srt_recipe_row *r = &rows[i];
		json_t *spec = items ? json_loads(r->spec ? r->spec : "null", JSON_DECODE_ANY, NULL)
				     : NULL;
		char hash[13] = "";

		if (r->spec_hash)
			snprintf(hash, sizeof(hash), "%s", r->spec_hash);
		srt_table_add(t, r->name);
		srt_table_add_int(t, r->generation, 0);
		srt_table_add_age(t, c->now, r->created_at);
		if (c->wide) {
			srt_table_add(t, hash);
			srt_table_add(t, r->source_file);
			if (r->deleted_at)
				srt_table_add_age(t, c->now, r->deleted_at);
			else
				srt_table_add(t, NULL);
		}
		ADD_ITEM(
			items,
			json_pack("{s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "name",
				  srt_json_str(r->name), "uid", srt_json_str(r->uid), "generation",
				  (json_int_t)r->generation, "spec_hash",
				  srt_json_str(r->spec_hash), "source_file",
				  srt_json_str(r->source_file), "created_at",
				  srt_json_time(r->created_at), "applied_at",
				  srt_json_time(r->applied_at), "deleted_at",
				  srt_json_time(r->deleted_at), "spec", spec ? spec : json_null()));
	}
	srt_recipe_rows_free(rows, n);
	return 0;
}

/* ---- runs and jobs ---- */

static int load_runs(struct get_ctx *c, struct srt_run_row **rows, size_t *n, struct srt_error *err)
{
	*rows = NULL;
	*n = 0;
	if (c->name) {
		struct srt_run_row one;
		int found;

		memset(&one, 0, sizeof(one));
		found = srt_store_run_get(c->store, c->name, &one, err);
		if (found < 0)
			return -1;
		if (found && (!c->recipe || (one.recipe && !strcmp(one.recipe, c->recipe)))) {
			*rows = srt_xcalloc(1, sizeof(**rows));
			**rows = one;
			*n = 1;
		} else {
			srt_run_row_release(&one);
		}
		return 0;
	}
	return srt_store_run_list(c->store, c->recipe, rows, n, err);
}

static int get_runs(struct get_ctx *c, struct srt_table *t, json_t *items, struct srt_error *err)
{
	static const char *const base[] = { "NAME",  "RECIPE", "GENERATION", "ATTEMPT",
					    "PHASE", "JOB",    "AGE" };
	static const char *const more[] = { "SLURM_STATE", "EXIT_CODE", "FRONTEND", "RUN_DIR",
					    "MESSAGE" };
	struct srt_run_row *rows;
	size_t n;

	HEADERS(t, c->wide, base, more);
	if (load_runs(c, &rows, &n, err) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct srt_run_row *r = &rows[i];

		srt_table_add(t, r->name);
		srt_table_add(t, r->recipe);
		srt_table_add_int(t, r->generation, 0);
		srt_table_add_int(t, r->attempt, 0);
		srt_table_add(t, r->phase);
		srt_table_add_int(t, r->slurm_job_id, 1);
		srt_table_add_age(t, c->now, r->created_at);
		if (c->wide) {
			srt_table_add(t, r->slurm_state);
			srt_table_add_int(t, r->exit_code, 0);
			srt_table_add(t, srt_print_frontend(r->frontend_url_planned,
							    r->frontend_url, r->phase));
			srt_table_add(t, r->run_dir);
			srt_table_add(t, r->message);
		}
		ADD_ITEM(items,
			 json_pack(
				 "{s:o, s:o, s:o, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o,"
				 " s:o, s:o, s:o, s:o, s:o, s:o}",
				 "name", srt_json_str(r->name), "uid", srt_json_str(r->uid),
				 "recipe", srt_json_str(r->recipe), "generation",
				 (json_int_t)r->generation, "attempt", (json_int_t)r->attempt,
				 "phase", srt_json_str(r->phase), "slurm_job_id",
				 opt_int(r->slurm_job_id, 1), "slurm_state",
				 srt_json_str(r->slurm_state), "job_name",
				 srt_json_str(r->job_name), "job_comment",
				 srt_json_str(r->job_comment), "exit_code",
				 opt_int(r->exit_code, 0), "frontend_url",
				 srt_json_str(r->frontend_url), "frontend_url_planned",
				 srt_json_str(r->frontend_url_planned), "run_dir",
				 srt_json_str(r->run_dir), "message", srt_json_str(r->message),
				 "created_at", srt_json_time(r->created_at), "updated_at",
				 srt_json_time(r->updated_at), "started_at",
				 srt_json_time(r->started_at), "finished_at",
				 srt_json_time(r->finished_at)));
	}
	srt_run_rows_free(rows, n);
	return 0;
}

static int get_jobs(struct get_ctx *c, struct srt_table *t, json_t *items, struct srt_error *err)
{
	static const char *const base[] = { "RUN", "JOB_ID", "STATE", "ATTEMPT", "AGE" };
	static const char *const more[] = { "JOB_NAME", "EXIT_CODE" };
	struct srt_run_row *rows;
	const char *name = c->name;
	size_t n;
	int rc;

	HEADERS(t, c->wide, base, more);
	c->name = NULL; /* NAME may be a job id: filter below */
	rc = load_runs(c, &rows, &n, err);
	c->name = name;
	if (rc != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct srt_run_row *r = &rows[i];
		char id[32];

		if (r->slurm_job_id <= 0)
			continue; /* not submitted yet: see `get runs` */
		snprintf(id, sizeof(id), "%lld", (long long)r->slurm_job_id);
		if (name && strcmp(name, r->name) && strcmp(name, id))
			continue;
		srt_table_add(t, r->name);
		srt_table_add(t, id);
		srt_table_add(t, r->slurm_state ? r->slurm_state : "<unknown>");
		srt_table_add_int(t, r->attempt, 0);
		srt_table_add_age(t, c->now, r->created_at);
		if (c->wide) {
			srt_table_add(t, r->job_name);
			srt_table_add_int(t, r->exit_code, 0);
		}
		ADD_ITEM(
			items,
			json_pack("{s:o, s:I, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:o}", "run",
				  srt_json_str(r->name), "job_id", (json_int_t)r->slurm_job_id,
				  "job_name", srt_json_str(r->job_name), "job_comment",
				  srt_json_str(r->job_comment), "attempt", (json_int_t)r->attempt,
				  "state", srt_json_str(r->slurm_state), "exit_code",
				  opt_int(r->exit_code, 0), "created_at",
				  srt_json_time(r->created_at), "started_at",
				  srt_json_time(r->started_at), "finished_at",
				  srt_json_time(r->finished_at)));
	}
	srt_run_rows_free(rows, n);
	return 0;
}

/* ---- services and workers ---- */

static int get_services(struct get_ctx *c, struct srt_table *t, json_t *items,
			struct srt_error *err)
{
	static const char *const base[] = { "RUN",	"NAME",	    "TYPE", "STATE",
					    "ENDPOINT", "RESTARTS", "AGE" };
	static const char *const more[] = { "NODE", "LAST_PROBE" };
	struct srt_service_row *rows = NULL;
	size_t n = 0;

	HEADERS(t, c->wide, base, more);
	if (srt_store_service_list(c->store, c->run, c->name, &rows, &n, err) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct srt_service_row *r = &rows[i];

		srt_table_add(t, r->run);
		srt_table_add(t, r->name);
		srt_table_add(t, r->type);
		srt_table_add(t, r->state);
		srt_table_add(t, r->endpoint);
		srt_table_add_int(t, r->restarts, 0);
		srt_table_add_age(t, c->now, age_origin(r->started_at, r->updated_at));
		if (c->wide) {
			srt_table_add(t, r->node);
			srt_table_add(t, r->last_probe);
		}
		ADD_ITEM(
			items,
			json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o,"
				  " s:o}",
				  "run", srt_json_str(r->run), "name", srt_json_str(r->name),
				  "service", srt_json_str(r->service), "type",
				  srt_json_str(r->type), "node", srt_json_str(r->node), "endpoint",
				  srt_json_str(r->endpoint), "state", srt_json_str(r->state),
				  "restarts", (json_int_t)r->restarts, "last_probe",
				  srt_json_str(r->last_probe), "last_probe_at",
				  srt_json_time(r->last_probe_at), "message",
				  srt_json_str(r->message), "started_at",
				  srt_json_time(r->started_at), "updated_at",
				  srt_json_time(r->updated_at)));
	}
	srt_service_rows_free(rows, n);
	return 0;
}

static int get_workers(struct get_ctx *c, struct srt_table *t, json_t *items, struct srt_error *err)
{
	static const char *const base[] = { "RUN", "ROLE",  "INDEX",	"NODE",
					    "IP",  "STATE", "RESTARTS", "AGE" };
	static const char *const more[] = { "ENV_HASH", "MESSAGE" };
	struct srt_worker_row *rows = NULL;
	size_t n = 0;

	HEADERS(t, c->wide, base, more);
	if (srt_store_worker_list(c->store, c->run, &rows, &n, err) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct srt_worker_row *r = &rows[i];
		char wname[128], hash[13] = "";

		snprintf(wname, sizeof(wname), "%s-%lld", r->role ? r->role : "",
			 (long long)r->idx);
		if (c->name && strcmp(c->name, wname))
			continue;
		if (r->env_hash)
			snprintf(hash, sizeof(hash), "%s", r->env_hash);
		srt_table_add(t, r->run);
		srt_table_add(t, r->role);
		srt_table_add_int(t, r->idx, 0);
		srt_table_add(t, r->node);
		srt_table_add(t, r->ip);
		srt_table_add(t, r->state);
		srt_table_add_int(t, r->restarts, 0);
		srt_table_add_age(t, c->now, age_origin(r->started_at, r->updated_at));
		if (c->wide) {
			srt_table_add(t, hash);
			srt_table_add(t, r->message);
		}
		ADD_ITEM(
			items,
			json_pack("{s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o}", "run",
				  srt_json_str(r->run), "role", srt_json_str(r->role), "index",
				  (json_int_t)r->idx, "node", srt_json_str(r->node), "ip",
				  srt_json_str(r->ip), "env_hash", srt_json_str(r->env_hash),
				  "state", srt_json_str(r->state), "restarts",
				  (json_int_t)r->restarts, "message", srt_json_str(r->message),
				  "started_at", srt_json_time(r->started_at), "updated_at",
				  srt_json_time(r->updated_at)));
	}
	srt_worker_rows_free(rows, n);
	return 0;
}

/* ---- campaigns ---- */

static int get_campaigns(struct get_ctx *c, struct srt_table *t, json_t *items,
			 struct srt_error *err)
{
	static const char *const base[] = { "NAME",    "GEN",	  "DEPLOYMENTS", "POINTS",
					    "DONE",    "RUNNING", "PENDING",	 "FAILED",
					    "INVALID", "ETA",	  "AGE" };
	static const char *const more[] = { "STATE", "NODE-HOURS", "DELETED", "SOURCE" };
	struct srt_campaign_row *rows = NULL;
	struct srt_cli_progress *prog = NULL;
	size_t n = 0;
	int rc = 0;

	HEADERS(t, c->wide, base, more);
	if (srt_store_campaign_list(c->store, &rows, &n, err) != 0)
		return -1;
	prog = srt_xcalloc(n ? n : 1, sizeof(*prog));
	if (srt_cli_progress(c->store, rows, n, prog, err) != 0)
		rc = -1;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct srt_campaign_row *r = &rows[i];
		const struct srt_cli_progress *p = &prog[i];
		int64_t total = r->pending + r->running + r->done + r->failed + r->invalid;
		char eta[32];

		if (c->name && (!r->name || strcmp(c->name, r->name)))
			continue;
		srt_table_add(t, r->name);
		srt_table_add_int(t, r->generation, 1);
		srt_table_add_int(t, r->deployments, 0);
		srt_table_add_int(t, total, 0);
		srt_table_add_int(t, r->done, 0);
		srt_table_add_int(t, r->running, 0);
		srt_table_add_int(t, r->pending, 0);
		srt_table_add_int(t, r->failed, 0);
		srt_table_add_int(t, r->invalid, 0);
		srt_table_add(t, srt_cli_eta_text(r, p, eta, sizeof(eta)));
		srt_table_add_age(t, c->now, r->created_at);
		if (c->wide) {
			srt_table_add(t, r->state);
			srt_table_addf(t, "%.1f", p->node_hours);
			if (r->deleted_at)
				srt_table_add_age(t, c->now, r->deleted_at);
			else
				srt_table_add(t, NULL);
			srt_table_add(t, r->source_file);
		}
		ADD_ITEM(items,
			 json_pack(
				 "{s:o, s:o, s:I, s:o, s:o, s:I, s:{s:I, s:I, s:I, s:I, s:I, s:I}, "
				 "s:f, s:o, s:o, s:o, s:o, s:o, s:o}",
				 "name", srt_json_str(r->name), "uid", srt_json_str(r->uid),
				 "generation", (json_int_t)r->generation, "spec_hash",
				 srt_json_str(r->spec_hash), "state", srt_json_str(r->state),
				 "deployments", (json_int_t)r->deployments, "points", "total",
				 (json_int_t)total, "done", (json_int_t)r->done, "running",
				 (json_int_t)r->running, "pending", (json_int_t)r->pending,
				 "failed", (json_int_t)r->failed, "invalid", (json_int_t)r->invalid,
				 "node_hours", p->node_hours, "eta_seconds",
				 p->eta_ms < 0 ? json_null() : json_integer(p->eta_ms / 1000),
				 "source_file", srt_json_str(r->source_file), "created_at",
				 srt_json_time(r->created_at), "applied_at",
				 srt_json_time(r->applied_at), "updated_at",
				 srt_json_time(r->updated_at), "deleted_at",
				 srt_json_time(r->deleted_at)));
	}
	free(prog);
	srt_campaign_rows_free(rows, n);
	return rc;
}

/* ---- points ---- */

static json_t *metric_json(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static void add_metric(struct srt_table *t, double v)
{
	if (isnan(v))
		srt_table_add(t, NULL);
	else
		srt_table_addf(t, "%.4g", v);
}

struct points_walk {
	struct get_ctx *c;
	struct srt_table *t;
	json_t *items;
};

static json_t *point_item(const struct srt_point_row *r)
{
	json_t *m = json_object(), *params, *axes, *o;
	double per_user, per_gpu;

	for (size_t k = 0; k < SRT_POINT_NMETRICS; k++)
		json_object_set_new(m, srt_point_metric_names[k], metric_json(r->metrics[k]));
	params = r->params ? json_loads(r->params, 0, NULL) : NULL;
	axes = r->axes ? json_loads(r->axes, 0, NULL) : NULL;
	o = json_pack("{s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:I, s:I, s:I, s:I, s:I, "
		      "s:I, s:o, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
		      "point_id", srt_json_str(r->point_id), "campaign", srt_json_str(r->campaign),
		      "deployment", srt_json_str(r->deployment), "axes", axes ? axes : json_null(),
		      "seq", (json_int_t)r->seq, "tool", srt_json_str(r->tool), "params",
		      params ? params : json_null(), "isl", (json_int_t)r->isl, "osl",
		      (json_int_t)r->osl, "concurrency", (json_int_t)r->concurrency, "prompts",
		      (json_int_t)r->prompts, "warmup", (json_int_t)r->warmup, "repeat",
		      (json_int_t)r->repeat, "state", srt_json_str(r->state), "attempts",
		      (json_int_t)r->attempts, "run", srt_json_str(r->run_name), "slurm_job_id",
		      r->slurm_job_id ? json_integer(r->slurm_job_id) : json_null(), "message",
		      srt_json_str(r->message), "slo_met",
		      r->slo_met < 0 ? json_null() : json_boolean(r->slo_met), "results", m,
		      "raw_path", srt_json_str(r->raw_path), "raw_sha256",
		      srt_json_str(r->raw_sha256), "started_at", srt_json_time(r->started_at),
		      "finished_at", srt_json_time(r->finished_at));
	srt_results_point_rates(r, &per_user, &per_gpu);
	json_object_set_new(o, "gpus", json_integer(srt_results_point_gpus(r)));
	json_object_set_new(o, "output_tok_s_per_user", metric_json(per_user));
	json_object_set_new(o, "output_tok_s_per_gpu", metric_json(per_gpu));
	return o;
}

static void print_csv_line(FILE *out, const json_t *item, bool header);

/*
 * Print one item of a streamed list: exactly what srt_print_list() (JSON)
 * or print_csv() would print for the whole list, one item at a time.
 */
static void stream_item(struct get_ctx *c, json_t *item)
{
	char *text, *line, *nl;

	if (c->fmt == SRT_OUT_CSV) {
		if (!c->streamed)
			print_csv_line(c->stream, item, true);
		print_csv_line(c->stream, item, false);
	} else {
		fputs(c->streamed ? ",\n" : "{\n  \"kind\": \"List\",\n  \"items\": [\n",
		      c->stream);
		text = json_dumps(item, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		/* JSON text has no raw line break inside a string: indent it line by line */
		for (line = text; line && *line; line = nl ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			fprintf(c->stream, "    %.*s%s", nl ? (int)(nl - line) : (int)strlen(line),
				line, nl ? "\n" : "");
		}
		free(text);
	}
	c->streamed++;
}

/* Close a streamed list that has items (an empty one is print_nothing()'s). */
static void stream_end(struct get_ctx *c)
{
	if (c->streamed && c->fmt == SRT_OUT_JSON)
		fputs("\n  ]\n}\n", c->stream);
}

static int point_row(void *ctx, struct srt_point_row *r)
{
	struct points_walk *pw = ctx;
	struct get_ctx *c = pw->c;
	struct srt_table *t = pw->t;
	size_t out_tps = srt_results_column("output_throughput"),
	       ttft = srt_results_column("p99_ttft_ms"),
	       tpot = srt_results_column("median_tpot_ms");

	if (c->name && strncmp(r->point_id, c->name, strlen(c->name)))
		return 0;
	if (c->stream) {
		json_t *item = point_item(r);

		stream_item(c, item);
		json_decref(item);
		return 0;
	}
	srt_table_add(t, r->campaign);
	srt_table_add(t, r->deployment);
	srt_table_add_int(t, r->isl, 0);
	srt_table_add_int(t, r->osl, 0);
	srt_table_add_int(t, r->concurrency, 0);
	srt_table_add_int(t, r->repeat, 0);
	srt_table_add(t, r->state);
	srt_table_add_int(t, r->attempts, 0);
	add_metric(t, r->metrics[out_tps]);
	add_metric(t, r->metrics[ttft]);
	add_metric(t, r->metrics[tpot]);
	srt_table_add(t, r->slo_met < 0 ? NULL : r->slo_met ? "yes" : "no");
	if (c->wide) {
		srt_table_addf(t, "%.12s", r->point_id);
		srt_table_add(t, r->axes);
		srt_table_add_int(t, r->prompts, 0);
		srt_table_add_int(t, r->warmup, 0);
		srt_table_add(t, r->tool);
		srt_table_add(t, r->run_name);
		srt_table_add_int(t, r->slurm_job_id, 1);
		srt_table_add(t, r->message);
	}
	ADD_ITEM(pw->items, point_item(r));
	return 0;
}

/* --frontier: the done points on the Pareto frontier of their campaign and shape. */
static int frontier_points(struct points_walk *pw, struct srt_error *err)
{
	struct srt_point_row *rows;
	size_t n;
	bool *on;

	if (srt_store_point_list(pw->c->store, pw->c->campaign, false, &rows, &n, err) != 0)
		return -1;
	on = srt_xcalloc(n + 1, sizeof(*on));
	srt_results_points_frontier(rows, n, on);
	for (size_t i = 0; i < n; i++)
		if (on[i])
			point_row(pw, &rows[i]);
	free(on);
	srt_point_rows_free(rows, n);
	return 0;
}

static int get_points(struct get_ctx *c, struct srt_table *t, json_t *items, struct srt_error *err)
{
	static const char *const base[] = { "CAMPAIGN",	 "DEPLOYMENT", "ISL",	   "OSL",
					    "CONC",	 "REPEAT",     "STATE",	   "ATTEMPTS",
					    "OUT-TOK/S", "TTFT-P99",   "TPOT-MED", "SLO" };
	static const char *const more[] = { "POINT", "AXES", "PROMPTS", "WARMUP",
					    "TOOL",  "RUN",  "JOB",	"MESSAGE" };
	struct points_walk pw = { c, t, items };

	HEADERS(t, c->wide, base, more);
	if (c->frontier)
		return frontier_points(&pw, err);
	return srt_store_point_each(c->store, c->campaign, false, point_row, &pw, err);
}

/* ---- csv (RFC 4180: fields with a comma, quote or line break are quoted) ---- */

static void csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_value(FILE *out, const json_t *v)
{
	char *s;

	switch (json_typeof(v)) {
	case JSON_NULL:
		return;
	case JSON_STRING:
		csv_field(out, json_string_value(v));
		return;
	default:
		s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
		csv_field(out, s ? s : "");
		free(s);
	}
}

/*
 * One CSV line of an item: its field names (header) or its values, in
 * order, an object field "results" flattened as results.KEY.
 */
static void print_csv_line(FILE *out, const json_t *item, bool header)
{
	const json_t *v, *sub;
	const char *key, *k2;
	bool comma = false;

	json_object_foreach((json_t *)item, key, v)
	{
		bool flat = !strcmp(key, "results") && json_is_object(v);

		json_object_foreach((json_t *)(flat ? v : NULL), k2, sub)
		{
			if (comma)
				fputc(',', out);
			if (header)
				fprintf(out, "results.%s", k2);
			else
				csv_value(out, sub);
			comma = true;
		}
		if (flat)
			continue;
		if (comma)
			fputc(',', out);
		if (header)
			fputs(key, out);
		else
			csv_value(out, v);
		comma = true;
	}
	fputc('\n', out);
}

/* A header from the first item's keys ("results.NAME" for each result), then a row per item. */
static void print_csv(FILE *out, const json_t *items)
{
	const json_t *item;
	size_t i;

	if (!json_array_size(items))
		return;
	print_csv_line(out, json_array_get(items, 0), true);
	json_array_foreach(items, i, item)
	{
		print_csv_line(out, item, false);
	}
}

struct kind {
	const char *plural, *singular, *alias;
	kind_fn fn;
};

static const struct kind kinds[] = {
	{ "recipes", "recipe", "rcp", get_recipes },
	{ "runs", "run", NULL, get_runs },
	{ "jobs", "job", NULL, get_jobs },
	{ "services", "service", "svc", get_services },
	{ "workers", "worker", NULL, get_workers },
	{ "campaigns", "campaign", NULL, get_campaigns },
	{ "points", "point", NULL, get_points },
	{ NULL, NULL, NULL, NULL },
};

static const struct kind *find_kind(const char *s)
{
	for (size_t i = 0; kinds[i].plural; i++)
		if (!strcmp(s, kinds[i].plural) || !strcmp(s, kinds[i].singular) ||
		    (kinds[i].alias && !strcmp(s, kinds[i].alias)))
			return &kinds[i];
	return NULL;
}

/*
 * Query and render once.  *items gets the JSON items (caller decrefs).
 * Returns 0, or -1 after printing a database error.
 */
static int render(struct get_ctx *c, const struct kind *k, struct srt_buf *text, json_t **items,
		  size_t *count)
{
	struct srt_table t;
	struct srt_error err;
	FILE *mem;
	char *data = NULL;
	size_t len = 0;
	int rc;

	*items = c->want_json ? json_array() : NULL;
	c->now = srt_store_now(c->store);
	srt_error_clear(&err);
	rc = k->fn(c, &t, *items, &err);
	if (rc != 0) {
		fprintf(stderr, "srtctl get: %s\n", err.msg);
		srt_table_release(&t);
		json_decref(*items);
		*items = NULL;
		return -1;
	}
	*count = *items ? json_array_size(*items) : srt_table_rows(&t);
	mem = open_memstream(&data, &len);
	if (mem) {
		if (c->fmt == SRT_OUT_JSON || c->fmt == SRT_OUT_YAML)
			srt_print_list(mem, json_incref(*items), c->fmt);
		else if (c->fmt == SRT_OUT_CSV)
			print_csv(mem, *items);
		else if (srt_table_rows(&t))
			srt_table_print(&t, mem, "", false);
		fclose(mem);
		srt_buf_append(text, data, len);
		free(data);
	}
	srt_table_release(&t);
	return 0;
}

static void print_nothing(const struct get_ctx *c)
{
	if (c->fmt == SRT_OUT_JSON || c->fmt == SRT_OUT_YAML)
		srt_print_list(stdout, json_array(), c->fmt);
	else if (c->fmt != SRT_OUT_CSV)
		fputs("No resources found.\n", stderr);
}

/*
 * Points as JSON or CSV, printed as they are read: 10,000 rows cost what one
 * does in memory.  The output is byte for byte what render() prints.
 */
static int stream_get(struct get_ctx *c, const struct kind *k)
{
	struct srt_table t;
	struct srt_error err;
	int rc;

	c->stream = stdout;
	c->streamed = 0;
	c->want_json = false;
	c->now = srt_store_now(c->store);
	srt_error_clear(&err);
	rc = k->fn(c, &t, NULL, &err);
	srt_table_release(&t);
	stream_end(c);
	if (rc != 0) {
		fflush(stdout);
		fprintf(stderr, "srtctl get: %s\n", err.msg);
		return SRT_EXIT_USAGE;
	}
	if (!c->streamed && c->name) {
		fprintf(stderr, "srtctl get: %s '%s' not found; `srtctl get %s` lists them\n",
			k->singular, c->name, k->plural);
		return SRT_EXIT_INVALID;
	}
	if (!c->streamed)
		print_nothing(c);
	fflush(stdout);
	return SRT_EXIT_OK;
}

static int run_get(struct get_ctx *c, const struct kind *k, const char *db, bool watch,
		   const char *watch_timeout)
{
	struct srt_watch w;
	struct srt_buf text;
	json_t *items = NULL, *prev = NULL;
	bool watching = false;
	size_t count = 0;
	int rc = SRT_EXIT_OK;

	if (!watch && k->fn == get_points && (c->fmt == SRT_OUT_JSON || c->fmt == SRT_OUT_CSV))
		return stream_get(c, k);
	srt_buf_init(&text);
	c->want_json = watch || c->fmt == SRT_OUT_JSON || c->fmt == SRT_OUT_YAML ||
		       c->fmt == SRT_OUT_CSV;
	if (render(c, k, &text, &items, &count) != 0) {
		rc = SRT_EXIT_USAGE;
		goto out;
	}
	if (!count && c->name) {
		fprintf(stderr, "srtctl get: %s '%s' not found; `srtctl get %s` lists them\n",
			k->singular, c->name, k->plural);
		rc = SRT_EXIT_INVALID;
		goto out;
	}
	if (count)
		fputs(text.data, stdout);
	else
		print_nothing(c);
	fflush(stdout);
	if (!watch)
		goto out;
	if (srt_watch_init(&w, "get", db, watch_timeout, c->store) != 0) {
		rc = SRT_EXIT_USAGE;
		goto out;
	}
	watching = true;
	while (srt_watch_wait(&w, c->store)) {
		prev = items;
		items = NULL;
		srt_buf_reset(&text);
		if (render(c, k, &text, &items, &count) != 0) {
			rc = SRT_EXIT_USAGE;
			goto out;
		}
		if (json_equal(prev, items)) {
			json_decref(prev);
			prev = NULL;
			continue;
		}
		json_decref(prev);
		prev = NULL;
		if (count)
			fputs(text.data, stdout);
		else
			print_nothing(c);
		fflush(stdout);
	}
out:
	if (watching)
		srt_watch_release(&w);
	json_decref(prev);
	json_decref(items);
	srt_buf_release(&text);
	return rc;
}

int srt_cmd_get(int argc, char **argv)
{
	enum {
		OPT_DB = 256,
		OPT_RECIPE,
		OPT_RUN,
		OPT_CAMPAIGN,
		OPT_DELETED,
		OPT_WATCH_TIMEOUT,
		OPT_FRONTIER
	};
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "watch", no_argument, NULL, 'w' },
		{ "watch-timeout", required_argument, NULL, OPT_WATCH_TIMEOUT }, /* for tests */
		{ "recipe", required_argument, NULL, OPT_RECIPE },
		{ "run", required_argument, NULL, OPT_RUN },
		{ "campaign", required_argument, NULL, OPT_CAMPAIGN },
		{ "include-deleted", no_argument, NULL, OPT_DELETED },
		{ "frontier", no_argument, NULL, OPT_FRONTIER },
		{ "db", required_argument, NULL, OPT_DB },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct get_ctx ctx = { 0 };
	const struct kind *k;
	const char *db_arg = NULL, *watch_timeout = NULL;
	char *db = NULL;
	bool watch = false;
	int c, o, rc = SRT_EXIT_OK;

	ctx.fmt = SRT_OUT_TEXT;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:wh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!strcmp(optarg, "csv"))
				ctx.fmt = SRT_OUT_CSV;
			else if (srt_cli_parse_output("get", optarg, &ctx.fmt, true) != 0)
				return SRT_EXIT_USAGE;
			break;
		case 'w':
			watch = true;
			break;
		case OPT_WATCH_TIMEOUT:
			watch_timeout = optarg;
			break;
		case OPT_RECIPE:
			ctx.recipe = optarg;
			break;
		case OPT_CAMPAIGN:
			ctx.campaign = optarg;
			break;
		case OPT_RUN:
			ctx.run = optarg;
			break;
		case OPT_DELETED:
			ctx.include_deleted = true;
			break;
		case OPT_FRONTIER:
			ctx.frontier = true;
			break;
		case OPT_DB:
			db_arg = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return SRT_EXIT_OK;
		default:
			return srt_cli_usage_error("get", "unknown option");
		}
	}
	if (optind >= argc)
		return srt_cli_usage_error("get",
					   "say what to list: recipes, runs, jobs, services, "
					   "workers, campaigns or points");
	k = find_kind(argv[optind]);
	if (!k)
		return srt_cli_usage_error("get",
					   "unknown kind '%s' (expected recipes, runs, jobs, "
					   "services, workers, campaigns or points)",
					   argv[optind]);
	if (optind + 1 < argc)
		ctx.name = argv[optind + 1];
	if (optind + 2 < argc)
		return srt_cli_usage_error("get", "unexpected argument '%s' (one NAME at most)",
					   argv[optind + 2]);
	if (ctx.recipe && k->fn != get_runs && k->fn != get_jobs)
		return srt_cli_usage_error("get", "--recipe applies to runs and jobs only");
	if (ctx.run && k->fn != get_services && k->fn != get_workers)
		return srt_cli_usage_error("get", "--run applies to services and workers only");
	if (ctx.campaign && k->fn != get_points)
		return srt_cli_usage_error("get", "--campaign applies to points only");
	if (ctx.frontier && k->fn != get_points)
		return srt_cli_usage_error("get", "--frontier applies to points only");
	if (ctx.fmt == SRT_OUT_CSV && k->fn != get_points)
		return srt_cli_usage_error("get", "-o csv applies to points only");
	if (ctx.fmt == SRT_OUT_CSV && watch)
		return srt_cli_usage_error("get", "-o csv cannot be combined with --watch");
	if (ctx.include_deleted && k->fn != get_recipes)
		return srt_cli_usage_error("get", "--include-deleted applies to recipes only");
	ctx.wide = ctx.fmt == SRT_OUT_WIDE;

	db = srt_cli_db_path(db_arg);
	o = srt_cli_db_open("get", db, SRT_STORE_READONLY, &ctx.store);
	if (o < 0) {
		rc = SRT_EXIT_USAGE;
	} else if (o > 0) {
		/* No database yet: nothing has been applied, which is not an error for a list. */
		print_nothing(&ctx);
		if (ctx.fmt != SRT_OUT_JSON && ctx.fmt != SRT_OUT_YAML)
			fprintf(stderr,
				"(no state database at %s yet; `srtctl apply -f RECIPE` "
				"creates it)\n",
				db);
		if (ctx.name) {
			fprintf(stderr, "srtctl get: %s '%s' not found\n", k->singular, ctx.name);
			rc = SRT_EXIT_INVALID;
		}
	} else {
		rc = run_get(&ctx, k, db, watch, watch_timeout);
		srt_store_close(ctx.store);
	}
	free(db);
	return rc;
}
