/*
 * store/store.h: the SQLite state database.
 *
 * One file holds desired state (recipes, campaigns), observed state (runs and
 * their conditions, services, workers) and the event history.  The schema is
 * migrations/NNNN_*.sql, embedded in the binary and applied in order, one
 * transaction each, recorded in PRAGMA user_version; a database written by a
 * newer srtctl is refused.  Connections use WAL, foreign keys, a busy
 * timeout, and prepared statements only.
 *
 * Writers wrap their work in srt_store_begin() (BEGIN IMMEDIATE, retried
 * while another writer holds the lock, so callers never see SQLITE_BUSY) and
 * srt_store_commit().  An event that explains a state change is written in
 * the same transaction as the change.  A writing function called without an
 * open transaction runs in one of its own.  After a failed call inside a
 * transaction, the caller rolls back.
 *
 * Every function that can fail returns -1 and fills `err` with a message a
 * user can act on (which database, what failed, what to do).  Rows returned
 * to the caller are malloc'd; free them with the matching _release/_free.
 * Times are Unix milliseconds.  A struct srt_store (one SQLite connection)
 * is used by one thread at a time.
 */
#ifndef SRT_STORE_STORE_H
#define SRT_STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loadgen/loadgen.h" /* SRT_POINT_NMETRICS, srt_point_metric_names */
#include "util/clock.h"
#include "util/err.h"

struct srt_store;

/* The newest schema version this binary knows (the number of migrations). */
int srt_store_schema_version(void);

/*
 * The database path: `explicit_path` if non-NULL, else $SRTCTL_DB, else
 * $XDG_STATE_HOME/srtctl/srtctl.db (when absolute), else
 * ~/.local/state/srtctl/srtctl.db ($HOME, else the passwd entry).  Caller
 * frees.  NULL only when there is no home directory at all.
 */
char *srt_store_default_path(const char *explicit_path);

enum srt_store_flags {
	SRT_STORE_CREATE = 1, /* create the file (mode 0600, parent dirs 0700) if missing */
	SRT_STORE_READONLY = 2, /* open read-only; never migrates; needs the current schema */
};

/*
 * Open (and migrate) the database.  Without SRT_STORE_CREATE a missing file
 * is an error that says how to create one ("srtctl apply" creates it).
 * `clock` may be NULL for the system clock; it is borrowed.
 */
int srt_store_open(struct srt_store **out, const char *path, int flags,
		   const struct srt_clock *clock, struct srt_error *err);
void srt_store_close(struct srt_store *s);
const char *srt_store_path(const struct srt_store *s);
int64_t srt_store_now(const struct srt_store *s);

/* Apply migrations up to `target` (for tests of each upgrade path). */
int srt_store_open_at_version(struct srt_store **out, const char *path, int target,
			      struct srt_error *err);

int srt_store_begin(struct srt_store *s, struct srt_error *err);
int srt_store_commit(struct srt_store *s, struct srt_error *err);
void srt_store_rollback(struct srt_store *s);

/* ---- recipes ---- */

struct srt_recipe_row {
	int64_t id;
	char *uid, *name, *spec, *spec_hash, *source_file, *source_yaml;
	int64_t generation, created_at, applied_at;
	int64_t deleted_at; /* 0 when not deleted */
};

enum srt_apply_result { SRT_APPLY_CREATED, SRT_APPLY_CONFIGURED, SRT_APPLY_UNCHANGED };

/*
 * Record `spec` (canonical JSON) as the desired state of recipe `name`.
 * Created: generation 1.  Configured: the spec hash differs, generation + 1.
 * Unchanged: same hash; applied_at and the source are still updated.  A
 * deleted recipe re-applied is "configured", undeleted and gets generation
 * + 1 even with the same spec (so the controller sees a new generation to
 * run).  Writes a Normal event (RecipeCreated / RecipeConfigured) in the
 * same transaction.  Call it inside srt_store_begin/commit (to apply a
 * directory all or nothing).  `result` and `generation` may be NULL.
 */
int srt_store_recipe_apply(struct srt_store *s, const char *name, const char *spec,
			   const char *source_file, const char *source_yaml,
			   enum srt_apply_result *result, int64_t *generation,
			   struct srt_error *err);

/* 1 found, 0 not found, -1 error. */
int srt_store_recipe_get(struct srt_store *s, const char *name, struct srt_recipe_row *out,
			 struct srt_error *err);
/* All recipes by name; deleted ones only when include_deleted. */
int srt_store_recipe_list(struct srt_store *s, bool include_deleted,
			  struct srt_recipe_row **rows, size_t *n, struct srt_error *err);
/* Mark deleted (event RecipeDeleted).  1 done, 0 no such recipe (or already deleted), -1 error. */
int srt_store_recipe_delete(struct srt_store *s, const char *name, struct srt_error *err);
void srt_recipe_row_release(struct srt_recipe_row *r);
void srt_recipe_rows_free(struct srt_recipe_row *rows, size_t n);

/* ---- runs, conditions, services, workers (written by the controller) ---- */

struct srt_run_row {
	int64_t id;
	char *uid, *name, *recipe, *phase, *job_name, *job_comment, *slurm_state, *run_dir,
		*message;
	int64_t generation, attempt;
	int64_t slurm_job_id; /* 0 when not yet known */
	int64_t exit_code; /* -1 when unknown */
	int64_t created_at, updated_at, started_at, finished_at; /* 0 when unset */
	/* The plan's frontend URL with placeholders ("http://<prefill_node_0_ip>:8000"),
	 * NULL without a frontend; and the URL the agent bound, NULL until known. */
	char *frontend_url_planned, *frontend_url;
	/* When SLURM says the job started and ended (ms; 0 when not known). */
	int64_t job_started_at, job_ended_at;
};

struct srt_condition_row {
	char *type, *status, *reason, *message;
	int64_t observed_generation, last_transition_at;
};

struct srt_service_row {
	int64_t id;
	char *run, *name, *service, *type, *node, *endpoint, *state, *last_probe, *message;
	int64_t restarts, last_probe_at, started_at, updated_at;
};

struct srt_worker_row {
	int64_t id;
	char *run, *role, *node, *ip, *env_hash, *state, *message;
	int64_t idx, restarts, started_at, updated_at;
};

/*
 * The name of a run, which is also its SLURM job name and its run
 * directory's name: "<recipe>-<generation>-<attempt>".  Caller frees.
 */
char *srt_store_run_name(const char *recipe, int64_t generation, int64_t attempt);

/*
 * Create a run (phase Pending) for recipe `recipe` at its current generation:
 * name and SLURM job name "<recipe>-<generation>-<attempt>", job comment
 * "srtctl:<run uid>:<attempt>".  Fails when the recipe is unknown or deleted,
 * or the run exists.  `out` may be NULL.
 */
int srt_store_run_create(struct srt_store *s, const char *recipe, int64_t attempt,
			 struct srt_run_row *out, struct srt_error *err);
/* Filter by recipe name when non-NULL. */
int srt_store_run_list(struct srt_store *s, const char *recipe, struct srt_run_row **rows,
		       size_t *n, struct srt_error *err);
int srt_store_run_get(struct srt_store *s, const char *name, struct srt_run_row *out,
		      struct srt_error *err); /* 1/0/-1 */
/*
 * Update phase/job fields; NULL strings and negative ids leave a field
 * alone, slurm_job_id 0 clears it.  started_at is set the first time the
 * phase is Starting or later, finished_at the first time it is final
 * (Succeeded, Failed, Cancelled).  An unknown run is an error.
 */
int srt_store_run_update(struct srt_store *s, const char *name, const char *phase,
			 int64_t slurm_job_id, const char *slurm_state, const char *message,
			 struct srt_error *err);
/*
 * Record when SLURM says the run's job started and ended (ms since the
 * epoch; 0 leaves a time alone).  A campaign's node-hours count from these.
 */
int srt_store_run_set_job_times(struct srt_store *s, const char *name, int64_t started_at,
				int64_t ended_at, struct srt_error *err);
/* Record the run directory and/or the job's exit code (NULL / !set_exit_code leave them). */
int srt_store_run_set_details(struct srt_store *s, const char *name, const char *run_dir,
			      bool set_exit_code, int64_t exit_code, struct srt_error *err);
/*
 * The frontend URL of the plan written for the run (with placeholders; NULL:
 * the plan has no frontend), recorded with plan.json, so `get runs` can say
 * "pending" until the agent reports the bound URL.
 */
int srt_store_run_set_frontend_planned(struct srt_store *s, const char *name, const char *url,
				       struct srt_error *err);
/*
 * The frontend URL the agent bound (status.json "frontend_url"), or NULL
 * (not known, or none).  The caller checks it (srt_rundir_frontend_url_ok());
 * the schema refuses one over 256 bytes.  updated_at moves only when it
 * changes.
 */
int srt_store_run_set_frontend_url(struct srt_store *s, const char *name, const char *url,
				   struct srt_error *err);
/*
 * The run now realises `generation` of its recipe (rolled out in place into
 * its job).  Its name keeps the generation it was created for.
 */
int srt_store_run_set_generation(struct srt_store *s, const char *name, int64_t generation,
				 struct srt_error *err);
/*
 * The last agent event (events.jsonl seq) ingested for a run: 0 when none.
 * Set it in the transaction that inserts the events, so each is ingested
 * exactly once across controller restarts.
 */
int srt_store_ingest_cursor_get(struct srt_store *s, const char *run, int64_t *last_seq,
				struct srt_error *err);
int srt_store_ingest_cursor_set(struct srt_store *s, const char *run, int64_t last_seq,
				struct srt_error *err);
int srt_store_condition_set(struct srt_store *s, const char *run, const char *type,
			    const char *status, const char *reason, const char *message,
			    int64_t observed_generation, struct srt_error *err);
int srt_store_condition_list(struct srt_store *s, const char *run,
			     struct srt_condition_row **rows, size_t *n, struct srt_error *err);

/*
 * Insert or update by (run, name).  A NULL `service` means the same as
 * `name`; updated_at 0 means now; other times of 0 are stored as unset.
 */
int srt_store_service_upsert(struct srt_store *s, const struct srt_service_row *row,
			     struct srt_error *err);
/* run and name filters may be NULL; name matches the instance or the service name. */
int srt_store_service_list(struct srt_store *s, const char *run, const char *name,
			   struct srt_service_row **rows, size_t *n, struct srt_error *err);
/* Insert or update by (run, role, idx); updated_at 0 means now. */
int srt_store_worker_upsert(struct srt_store *s, const struct srt_worker_row *row,
			    struct srt_error *err);
int srt_store_worker_list(struct srt_store *s, const char *run, struct srt_worker_row **rows,
			  size_t *n, struct srt_error *err);

void srt_run_rows_free(struct srt_run_row *rows, size_t n);
void srt_run_row_release(struct srt_run_row *r);
void srt_condition_rows_free(struct srt_condition_row *rows, size_t n);
void srt_service_rows_free(struct srt_service_row *rows, size_t n);
void srt_worker_rows_free(struct srt_worker_row *rows, size_t n);

/* ---- campaigns (store/campaigns.c; migrations/0002_campaigns.sql) ---- */

/*
 * A campaign as applied: its deployments (child recipes, named
 * <campaign>-<hash>) and points (one benchmark run each, identified by the
 * sha256 in point_id; see recipe/campaign.h).  The store does not compute
 * identities: it records what the caller expanded.
 */
struct srt_store_campaign_deployment {
	const char *name, *axes, *spec, *spec_hash;
	int64_t nodes;
};
struct srt_store_campaign_point {
	const char *point_id;
	size_t deployment; /* index into deployments */
	int64_t seq, isl, osl, concurrency, prompts, warmup, repeat;
};
struct srt_store_campaign_in {
	const char *name, *spec, *spec_hash, *source_file, *source_yaml;
	const char *tool, *params; /* benchmark tool name, canonical JSON of its params */
	const char *notify;	   /* srt_notify_command_json() of its notify:, NULL: none */
	const struct srt_store_campaign_deployment *deployments;
	size_t ndeployments;
	const struct srt_store_campaign_point *points;
	size_t npoints;
};
/* What an apply changed (counts over the campaign's current points). */
struct srt_campaign_apply_stats {
	int64_t points_new, points_kept, points_removed;
	int64_t deployments_new, deployments_changed, deployments_removed;
};

/*
 * Record campaign `in->name` like srt_store_recipe_apply() records a recipe
 * (created / configured with generation + 1 / unchanged; a deleted campaign
 * applied again is configured and undeleted).  When the spec changed, every
 * listed deployment and point is inserted or kept (a kept point keeps its
 * state, attempts and results); those no longer listed get removed_at (their
 * results stay).  A deployment name owned by another campaign is an error.
 * Writes CampaignCreated / CampaignConfigured in the same transaction; call
 * inside srt_store_begin/commit to apply several files all or nothing.
 * `result`, `generation` and `stats` may be NULL.
 */
int srt_store_campaign_apply(struct srt_store *s, const struct srt_store_campaign_in *in,
			     enum srt_apply_result *result, int64_t *generation,
			     struct srt_campaign_apply_stats *stats, struct srt_error *err);

struct srt_campaign_row {
	int64_t id;
	char *uid, *name, *spec, *spec_hash, *state, *source_file;
	int64_t generation, created_at, updated_at, applied_at, deleted_at;
	/* current (not removed) deployments and points by state */
	int64_t deployments, pending, running, done, failed, invalid;
	/* finished points with both times, and the sum of their durations (ms) */
	int64_t timed_points, timed_ms;
};
/* All campaigns by name, deleted ones included (deleted_at != 0). */
int srt_store_campaign_list(struct srt_store *s, struct srt_campaign_row **rows, size_t *n,
			    struct srt_error *err);
/* 1 found, 0 not found, -1 error. */
int srt_store_campaign_get(struct srt_store *s, const char *name, struct srt_campaign_row *out,
			   struct srt_error *err);
/*
 * Mark deleted (event CampaignDeleted); its deployments, points and results
 * stay.  1 done, 0 no such campaign (or already deleted), -1 error.
 */
int srt_store_campaign_delete(struct srt_store *s, const char *name, struct srt_error *err);
void srt_campaign_row_release(struct srt_campaign_row *r);
void srt_campaign_rows_free(struct srt_campaign_row *rows, size_t n);

struct srt_deployment_row {
	int64_t id, nodes, position, generation, removed_at;
	char *campaign, *name, *axes, *spec_hash;
};
/* A campaign's deployments in order (removed ones last). */
int srt_store_deployment_list(struct srt_store *s, const char *campaign,
			      struct srt_deployment_row **rows, size_t *n, struct srt_error *err);
void srt_deployment_rows_free(struct srt_deployment_row *rows, size_t n);

/* The result columns of a point: srt_point_metric_names (loadgen/loadgen.h) order, NAN when
 * not known. */
struct srt_point_row {
	int64_t id;
	char *point_id, *campaign, *deployment, *axes, *tool, *params, *state, *run_name, *message,
		*raw_path, *raw_sha256;
	int64_t seq, isl, osl, concurrency, prompts, warmup, repeat, attempts, slurm_job_id,
		generation;
	int64_t created_at, updated_at, started_at, finished_at, removed_at; /* 0 when unset */
	int slo_met;							     /* -1 unknown, 0, 1 */
	double metrics[SRT_POINT_NMETRICS];
	/* Its deployment's nodes, and resources.gpus_per_node of its recipe (0: not set). */
	int64_t nodes, gpus_per_node;
};
/*
 * Points of `campaign` (NULL: of every campaign) by campaign, deployment
 * position and seq; removed points only with include_removed.
 */
int srt_store_point_list(struct srt_store *s, const char *campaign, bool include_removed,
			 struct srt_point_row **rows, size_t *n, struct srt_error *err);
/*
 * The same rows one at a time, without holding them all: fn gets each, and
 * its strings are freed after fn returns (fn takes them by zeroing the row);
 * a non-zero return stops the walk and is returned (err untouched).  0, or
 * -1 with err set.
 */
typedef int (*srt_point_fn)(void *ctx, struct srt_point_row *row);
int srt_store_point_each(struct srt_store *s, const char *campaign, bool include_removed,
			 srt_point_fn fn, void *ctx, struct srt_error *err);
void srt_point_rows_free(struct srt_point_row *rows, size_t n);

/* ---- driving campaigns (store/points.c) ---- */

/* One deployment of a campaign with the work it has left, for the controller's pass. */
struct srt_world_deployment {
	char *campaign, *campaign_spec, *campaign_state;
	bool campaign_deleted;
	char *name; /* the deployment = its child recipe's name */
	int64_t position, nodes;
	int64_t pending, running, final, failed; /* current points; failed: failed + invalid */
	int64_t node_ms; /* node-milliseconds its runs used (started to finished, or now) */
};
/*
 * Every current deployment of every campaign (a deleted campaign's too, so
 * its active deployments can be retired), by campaign name and position.
 */
int srt_store_campaign_world(struct srt_store *s, struct srt_world_deployment **rows, size_t *n,
			     struct srt_error *err);
void srt_world_deployments_free(struct srt_world_deployment *rows, size_t n);

/*
 * Make deployment `name` active: its child recipe (the deployment's spec) is
 * applied as desired state (a new generation when it was retired before),
 * with a DeploymentStarted event on its campaign saying `why`.
 */
int srt_store_deployment_activate(struct srt_store *s, const char *name, const char *why,
				  struct srt_error *err);
/*
 * The campaign of deployment `name` (a child recipe's name) and its spec,
 * malloc'd: 1 found, 0 `name` is no deployment, -1 error.
 */
int srt_store_deployment_campaign(struct srt_store *s, const char *name, char **campaign,
				  char **spec, struct srt_error *err);
/* Retire it: its child recipe is deleted (DeploymentEnded event). */
int srt_store_deployment_retire(struct srt_store *s, const char *campaign, const char *name,
				const char *why, struct srt_error *err);
/* Its running points go back to pending (PointsGivenBack Warning): no attempt is charged. */
int srt_store_points_reset(struct srt_store *s, const char *campaign, const char *deployment,
			   const char *why, struct srt_error *err);
/* Its pending and running points fail with message `why` (DeploymentFailed Warning). */
int srt_store_points_fail(struct srt_store *s, const char *campaign, const char *deployment,
			  const char *why, struct srt_error *err);
/*
 * campaigns.state `from` -> `state` ("Running", "Stopped", "OutOfBudget",
 * "Done"), with an event whose reason is `state`; nothing when the state is
 * no longer `from` (the user suspended or resumed it meanwhile: the next
 * pass decides again) or is `state` already.
 */
int srt_store_campaign_set_state(struct srt_store *s, const char *campaign, const char *from,
				 const char *state, const char *why, struct srt_error *err);

/* ---- a user steering a campaign (store/steer.c) ---- */

/* No such campaign, or it is deleted (err says which): the caller's "not found". */
#define SRT_STORE_NO_CAMPAIGN (-2)

/*
 * Suspend campaign `name`: campaigns.state "Suspended" with a
 * CampaignSuspended event (source "cli"), in one transaction.  The
 * controller then activates no new deployment; running ones finish.
 * state[0..n) gets the state it had.  Returns 1 suspended, 0 it already was
 * (nothing written), SRT_STORE_NO_CAMPAIGN, or -1 on a database error.
 */
int srt_store_campaign_suspend(struct srt_store *s, const char *name, char *state, size_t n,
			       struct srt_error *err);
/*
 * Resume it: "Suspended" -> "Running" with a CampaignResumed event, in one
 * transaction (the controller's next pass records a stop reason that still
 * holds).  Returns 1 resumed, 0 it is not suspended (state[0..n) says what it
 * is; nothing written), SRT_STORE_NO_CAMPAIGN, or -1.
 */
int srt_store_campaign_resume(struct srt_store *s, const char *name, char *state, size_t n,
			      struct srt_error *err);

struct srt_campaign_retry {
	bool failed, invalid;		     /* in: which points go back */
	int64_t reset_failed, reset_invalid; /* out: how many did */
	char state_before[32], state_after[32];
};
/*
 * The failed and/or invalid points (r->failed, r->invalid) of campaign
 * `name`'s current deployments go back to pending: attempts 0, results, raw
 * file, run, job and times cleared, message "retried by user at TIME (was:
 * OLD)".  When any did, one PointsRetried event with the counts, and a Done
 * or Stopped campaign becomes Running; all in one transaction.  Returns 1
 * (counts may be 0), SRT_STORE_NO_CAMPAIGN, or -1.
 */
int srt_store_campaign_retry(struct srt_store *s, const char *name, struct srt_campaign_retry *r,
			     struct srt_error *err);

/* A point given to a run (its points.json). */
struct srt_assigned_point {
	char *point_id, *tool, *params;
	int64_t seq, isl, osl, concurrency, prompts, warmup, repeat;
};
/*
 * Give the deployment's pending points to run `run` (their run_name) and
 * return them by seq; points still marked running (their job ended during
 * them) are pending again and given too.  Repeatable: the same run gets the
 * same points.
 */
int srt_store_points_assign(struct srt_store *s, const char *deployment, const char *run,
			    struct srt_assigned_point **out, size_t *n, struct srt_error *err);
void srt_assigned_points_free(struct srt_assigned_point *p, size_t n);

/*
 * The agent of `run` started point `point_id`: pending -> running (and a
 * PointStarted event on the campaign).  1 changed, 0 nothing to change (not
 * this run's point, or not pending: a report read twice), -1 error.
 */
int srt_store_point_started(struct srt_store *s, const char *run, const char *point_id, int64_t seq,
			    int64_t at, struct srt_error *err);

struct srt_point_finish {
	const char *point_id;
	int64_t seq;
	const char *state; /* done | failed | invalid */
	int64_t attempts;
	const char *message;
	int64_t started_at, finished_at;
	const char *raw_path, *raw_sha256, *raw_json; /* may be NULL */
	int slo_met;				      /* -1 unknown */
	double metrics[SRT_POINT_NMETRICS];	      /* NAN: unknown */
};
/*
 * The agent of `run` finished point f->point_id: pending|running -> final
 * with its results, in the caller's transaction (the event ingest's), and a
 * PointFinished event.  1 changed, 0 nothing to change, -1 error.
 */
int srt_store_point_finished(struct srt_store *s, const char *run, const struct srt_point_finish *f,
			     struct srt_error *err);

/* ---- events ---- */

struct srt_event_row {
	int64_t id;
	char *type, *reason, *kind, *name, *message, *source;
	int64_t count, first_at, last_at;
};

/* An identical event (type, reason, object, message) within this window bumps `count`. */
#define SRT_EVENT_DEDUP_WINDOW_MS (10 * 60 * 1000)
/* ... if it is among the object's this many newest events (see srt_store_event). */
#define SRT_EVENT_DEDUP_SCAN 256
#define SRT_EVENT_RETENTION_DEFAULT_MS (30LL * 24 * 3600 * 1000)

/*
 * Bounds on every stored event (issue #12: events come from agents, whose
 * files anyone with access to the run directory can forge).  Its time lies
 * in [SRT_EVENT_TIME_MIN, SRT_EVENT_TIME_MAX] (2000-01-01 to 2100-01-01 UTC,
 * in ms); its reason is 1 to SRT_EVENT_REASON_MAX bytes of [A-Za-z0-9_.-];
 * its kind 1 to SRT_EVENT_KIND_MAX bytes of [a-z0-9_-]; its name 1 to
 * SRT_EVENT_NAME_MAX bytes without control characters.  A message longer than
 * SRT_EVENT_MESSAGE_MAX bytes is cut there (at a UTF-8 boundary) and ends
 * with SRT_EVENT_TRUNCATED_MARK and its full length.
 */
#define SRT_EVENT_TIME_MIN 946684800000LL
#define SRT_EVENT_TIME_MAX 4102444800000LL
#define SRT_EVENT_REASON_MAX 64
#define SRT_EVENT_KIND_MAX 32
#define SRT_EVENT_NAME_MAX 512
#define SRT_EVENT_MESSAGE_MAX 8192
#define SRT_EVENT_TRUNCATED_MARK " [truncated by srtctl:"

/* 0 when an event with this time, reason and object is within the bounds
 * above; else -1 with `err` saying which field is wrong (without echoing
 * it: it may be long or hold control characters). */
int srt_store_event_check(int64_t at, const char *reason, const char *kind, const char *name,
			  struct srt_error *err);

/*
 * Record an event.  `type` is "Normal" or "Warning"; `reason` CamelCase;
 * `kind`/`name` the object; `source` NULL means "cli".  Within
 * SRT_EVENT_DEDUP_WINDOW_MS of an identical event the existing row's count
 * and last_at are bumped instead (when that row is among the object's
 * SRT_EVENT_DEDUP_SCAN newest, which bounds the search).  Call inside a
 * transaction that also holds the state change it explains.
 */
int srt_store_event(struct srt_store *s, struct srt_error *err, const char *type,
		    const char *reason, const char *kind, const char *name, const char *source,
		    const char *fmt, ...) __attribute__((format(printf, 8, 9)));
/* The same with an explicit time (for ingesting agent events).  Fails when
 * srt_store_event_check() does; a long message is cut (see above). */
int srt_store_event_at(struct srt_store *s, int64_t at, const char *type, const char *reason,
		       const char *kind, const char *name, const char *source,
		       const char *message, struct srt_error *err);

struct srt_event_filter {
	const char *kind, *name; /* both or neither */
	int64_t since; /* last_at >= since; 0 = all */
	const char *type; /* NULL = any */
	const char *reason; /* NULL = any */
	int64_t after_id; /* id > after_id (for --watch); 0 = all */
	int64_t limit; /* newest `limit` rows; 0 = no limit */
};
/* Matching events, oldest first (by last_at, then id). */
int srt_store_event_list(struct srt_store *s, const struct srt_event_filter *f,
			 struct srt_event_row **rows, size_t *n, struct srt_error *err);
/* Delete events with last_at < before; *deleted gets the count. */
int srt_store_event_prune(struct srt_store *s, int64_t before, int64_t *deleted,
			  struct srt_error *err);
void srt_event_rows_free(struct srt_event_row *rows, size_t n);

/* Batch insert for benchmarks and ingestion: one prepared statement, no dedup. */
int srt_store_event_insert_raw(struct srt_store *s, const struct srt_event_row *ev,
			       struct srt_error *err);

/* ---- a look from outside (`srtctl doctor`) ---- */

struct srt_store_health {
	int schema;	 /* PRAGMA user_version (srt_store_schema_version() is current) */
	int64_t bytes;	 /* the file and its -wal file */
	char check[256]; /* PRAGMA quick_check's first line: "ok" when sound */
};

/*
 * Describe the database at `path` without changing or migrating it (opened
 * read-only, whatever its schema).  Returns 0, or -1 with err saying why it
 * cannot be read (not a file, not a database, no permission).
 */
int srt_store_inspect(const char *path, struct srt_store_health *out, struct srt_error *err);

/* ---- notifications (migrations/0003_notifications.sql, 0008_campaign_notify.sql) ---- */

/*
 * Pending notifications are inserted by triggers in the transaction of the
 * change they report: a run becoming Failed (event id "run-failed:<run
 * uid>"), a service entering CrashLoopBackOff ("service-crashloop:<run
 * uid>:<instance>:<restarts>"), a campaign ending Done, Stopped or
 * OutOfBudget ("campaign-<state>:<campaign uid>:<ms of the change>",
 * migrations/0007_campaign_notifications.sql).  The payload is the JSON
 * event the notify command reads on stdin; it carries the event id as "id".
 */
struct srt_notification_row {
	int64_t id;
	char *event_id, *reason, *kind, *name, *payload, *state, *last_error;
	int64_t attempts, next_attempt_at, created_at, updated_at;
	/*
	 * The sink (migrations/0008_campaign_notify.sql): campaign_id 0 is the
	 * cluster's command; otherwise the campaign's name and its notify
	 * command as campaigns.notify holds it now (NULL: it has none).
	 */
	int64_t campaign_id;
	char *campaign, *campaign_notify;
};
/*
 * The oldest Pending notification due at `now`, for the cluster's command
 * too when `cluster` (else only campaigns' rows): 1 found (release *out),
 * 0 none, -1 error.
 */
int srt_store_notification_next_due(struct srt_store *s, int64_t now, bool cluster,
				    struct srt_notification_row *out, struct srt_error *err);
/*
 * Record a delivery step of notification `id`: its state ("Pending",
 * "Delivered", "Abandoned"), one more attempt when `attempt`, when it is due
 * next (< 0 leaves it), and the last error (NULL leaves it).  An unknown id
 * is an error.
 */
int srt_store_notification_update(struct srt_store *s, int64_t id, const char *state, bool attempt,
				  int64_t next_attempt_at, const char *error,
				  struct srt_error *err);
void srt_notification_row_release(struct srt_notification_row *r);

/* ---- counts, for metrics ---- */

enum srt_store_count {
	SRT_COUNT_RUN_PHASE,	      /* key: phase */
	SRT_COUNT_SERVICE_STATE,      /* key: state */
	SRT_COUNT_WORKER_STATE,	      /* key: state */
	SRT_COUNT_RESTARTS,	      /* key: "service" | "worker"; count: sum of restarts */
	SRT_COUNT_EVENT_REASON,	      /* key: type, key2: reason; count: occurrences */
	SRT_COUNT_CAMPAIGN_STATE,     /* key: state (deleted campaigns left out) */
	SRT_COUNT_RECIPES,	      /* key: "live" | "deleted" */
	SRT_COUNT_NOTIFICATION_STATE, /* key: state */
	SRT_COUNT_POINT_STATE,	      /* key: state (points of live campaigns, not removed) */
	SRT_COUNT_KINDS,
};
struct srt_count_row {
	char *key, *key2; /* key2 NULL unless the count has two keys */
	int64_t count;
};
/* Counts by key, sorted by key.  Free *rows with srt_count_rows_free(). */
int srt_store_count(struct srt_store *s, enum srt_store_count what, struct srt_count_row **rows,
		    size_t *n, struct srt_error *err);
void srt_count_rows_free(struct srt_count_row *rows, size_t n);

/* ---- the controller lock (a flock on "<db path>.lock") ---- */

/*
 * Take the exclusive controller lock for this database.  Returns the held
 * fd (>= 0), or -1 with err saying which process holds it (the lock file
 * records the holder's pid and host).  Released by srt_store_lock_release()
 * or process exit.
 */
int srt_store_lock_acquire(const char *db_path, struct srt_error *err);
void srt_store_lock_release(int fd);
/*
 * Is a controller holding the lock right now?  (Never blocks, never creates
 * the lock file.)  The probe holds a shared lock for an instant; a controller
 * starting in that instant is not refused, because srt_store_lock_acquire()
 * retries for about a second before it reports the lock as taken.
 */
bool srt_store_lock_is_held(const char *db_path);

/*
 * Record in the held lock `fd` that a pass ended at `unix_ms` (the lock file
 * then reads "PID HOST\nlast-pass UNIX_MS\n").  Best effort: a failed
 * write is ignored (it only informs `srtctl doctor`).
 */
void srt_store_lock_note_pass(int fd, int64_t unix_ms);

struct srt_lock_info {
	bool held;	   /* a controller holds the lock now */
	bool readable;	   /* the lock file could be read (mode 0600: its owner, root) */
	char holder[320];  /* "PID HOST", "" when unknown */
	int64_t last_pass; /* Unix ms of its last pass, 0 when none was recorded */
};

/*
 * Who holds the controller lock of `db_path` and when its last pass ended
 * (never blocks, never creates the file).  Reads at most a few hundred
 * bytes of the file and trusts nothing in it beyond that.
 */
void srt_store_lock_info(const char *db_path, struct srt_lock_info *out);

/*
 * A number that changes whenever any connection commits to the database
 * (PRAGMA data_version plus this connection's own changes), for --watch.
 */
int64_t srt_store_change_counter(struct srt_store *s);

#endif
