/*
 * controller/controller.c: one reconcile pass, and the effects it takes.
 *
 * Observe (database, one SLURM listing, the run directories), decide
 * (reconcilers/runs.c, pure), act.  Every state change is committed with
 * the event that explains it; a SLURM call is made only after the intent it
 * serves is committed (a run row with its job comment before a submit), so
 * a controller killed between any two lines finds, on its next pass, either
 * the job it submitted (and adopts it) or no job (and submits).
 */
#include "controller/controller.h"
#include "controller/internal.h"
#include "runplan/points.h"
#include "runplan/rundir.h"
#include "reconcilers/runs.h"
#include "recipe/compile.h"
#include "recipe/render.h"
#include "recipe/script.h"
#include "util/buf.h"
#include "util/clock.h"

#include <errno.h>
#include <jansson.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The handle: what it was given, and what it keeps between passes.  Only
 * caches live here (each pass re-reads the world): the last full job
 * listing, parsed attempt budgets, and what each run directory looked like.
 */
struct srt_controller {
	struct srt_store *store;
	struct srt_slurm_client *slurm;
	const struct srt_cluster *cluster;
	char *run_root;
	const char *const *srtctl;
	size_t nsrtctl;
	FILE *log;
	int slurm_failures; /* consecutive passes whose job listing failed */
	/*
	 * The last full job listing and slurmctld's last_update: later passes
	 * ask "changed since" and reuse this when nothing changed (a cheap
	 * reply instead of every job's JSON).
	 */
	struct srt_job_list jobs;
	bool have_jobs;
	int passes_since_full;	  /* a full listing at least every 60 passes */
	struct srt_rc_memo *memo; /* each spec's max_attempts by spec hash */
	/* Why this pass's job listing failed ("UNREACHABLE: ..."), for its events. */
	char slurm_error[SRT_ERROR_MAX + 32];
	/*
	 * What each run directory's status.json and events.jsonl looked like
	 * when last ingested (by run id): a pass skips a run whose files have
	 * not changed and reuses what it learnt from them.
	 */
	struct srt_ingest_memo *ingest;
	size_t ningest;
	/*
	 * The campaign step decides from the database (and the clock, for a
	 * budget).  cc_settled: the last step succeeded, did not need the
	 * clock, and nothing was written during its whole pass (from before the
	 * pass read recipes and runs to after the step), so it decided from
	 * what is still true; the next step then runs only once the database
	 * changed (srt_store_change_counter(), which counts every connection's
	 * commits and this one's writes, is no longer cc_counter).
	 */
	bool cc_settled;
	int64_t cc_counter;
};

/* How long after a run ends its agent's late events are still ingested. */
#define SRT_INGEST_AFTER_END_MS (5 * 60 * 1000)

/* What a pass knows about one run besides its row. */
struct run_obs {
	enum srt_rc_agent agent;
	char *agent_message;
};

/* A file as stat() saw it: changed when any of these differ. */
struct file_sig {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	bool exists;
};

struct srt_ingest_memo {
	int64_t run_id;
	struct file_sig status, events;
	struct run_obs obs; /* what status.json said */
	struct srt_rundir_events_pos pos; /* where reading events.jsonl stopped */
	bool more; /* events.jsonl was read up to the per-pass bound: read on next pass */
};

static struct file_sig file_sig(const char *dir, const char *name)
{
	struct file_sig f = { 0 };
	struct stat st;
	char *path = srt_xasprintf("%s/%s", dir, name);

	if (lstat(path, &st) == 0)
		f = (struct file_sig){ st.st_dev, st.st_ino, st.st_size, st.st_mtim, true };
	free(path);
	return f;
}

static bool sig_same(const struct file_sig *a, const struct file_sig *b)
{
	return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino &&
	       a->size == b->size && a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec;
}

static int ingest_memo_cmp(const void *a, const void *b)
{
	int64_t x = ((const struct srt_ingest_memo *)a)->run_id;
	int64_t y = ((const struct srt_ingest_memo *)b)->run_id;

	return (x > y) - (x < y);
}

static void ingest_memo_free(struct srt_ingest_memo *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(m[i].obs.agent_message);
	free(m);
}

static void logf_(struct srt_controller *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void logf_(struct srt_controller *c, const char *fmt, ...)
{
	char ts[40];
	va_list ap;

	if (!c->log)
		return;
	srt_time_rfc3339(srt_store_now(c->store), ts, sizeof(ts));
	fprintf(c->log, "%s ", ts);
	va_start(ap, fmt);
	vfprintf(c->log, fmt, ap);
	va_end(ap);
	fputc('\n', c->log);
	fflush(c->log);
}

int srt_controller_new(struct srt_controller **out, const struct srt_controller_config *cfg,
		       struct srt_error *err)
{
	struct srt_controller *c;

	*out = NULL;
	if (!cfg->store || !cfg->slurm || !cfg->cluster)
		return srt_error_set(err, "a controller needs a store, a SLURM client and a "
					  "cluster config");
	if (!cfg->run_root || cfg->run_root[0] != '/')
		return srt_error_set(err, "the run root '%s' is not an absolute path",
				     cfg->run_root ? cfg->run_root : "");
	c = srt_xcalloc(1, sizeof(*c));
	c->store = cfg->store;
	c->slurm = cfg->slurm;
	c->cluster = cfg->cluster;
	c->run_root = srt_xstrdup(cfg->run_root);
	c->srtctl = cfg->srtctl;
	c->nsrtctl = cfg->nsrtctl;
	c->log = cfg->log;
	c->memo = srt_rc_memo_new();
	*out = c;
	return 0;
}

void srt_controller_free(struct srt_controller *c)
{
	if (!c)
		return;
	srt_job_list_release(&c->jobs);
	srt_rc_memo_free(c->memo);
	ingest_memo_free(c->ingest, c->ningest);
	free(c->run_root);
	free(c);
}

int srt_controller_slurm_failures(const struct srt_controller *c)
{
	return c->slurm_failures;
}

char *srt_controller_run_dir(const struct srt_controller *c, const char *run)
{
	return srt_xasprintf("%s/%s", c->run_root, run);
}

/* Commit a state change and its event, or roll both back. */
static int finish_tx(struct srt_controller *c, int rc, struct srt_error *err)
{
	if (rc == 0)
		return srt_store_commit(c->store, err);
	srt_store_rollback(c->store);
	return -1;
}

/* The event reason of a phase change the controller observed: Phase<Name>. */
static const char *phase_reason(enum srt_rc_phase p)
{
	static const char *const reasons[SRT_RC_PHASE_COUNT] = {
		"PhasePending",	  "PhaseSubmitted", "PhaseStarting",
		"PhaseReady",	  "PhaseDegraded",  "PhaseSucceeded",
		"PhaseFailed",	  "PhaseCancelling", "PhaseCancelled",
	};

	return p < SRT_RC_PHASE_COUNT ? reasons[p] : "PhaseChanged";
}

/* ---- agent reports ---- */

static enum srt_rc_agent agent_phase(enum srt_run_phase p)
{
	switch (p) {
	case SRT_RUN_STARTING:
		return SRT_RC_AGENT_STARTING;
	case SRT_RUN_READY:
		return SRT_RC_AGENT_READY;
	case SRT_RUN_DEGRADED:
		return SRT_RC_AGENT_DEGRADED;
	case SRT_RUN_FAILED:
		return SRT_RC_AGENT_FAILED;
	case SRT_RUN_SUCCEEDED:
		return SRT_RC_AGENT_SUCCEEDED;
	case SRT_RUN_STOPPING:
	case SRT_RUN_STOPPED:
		return SRT_RC_AGENT_STOPPED;
	}
	return SRT_RC_AGENT_NONE;
}

/* A seq this far beyond the next expected one is refused, not a jump. */
#define INGEST_SEQ_GAP_MAX 1000

struct ingest_ctx {
	struct srt_controller *c;
	const char *run;
	const char *dir; /* the run directory */
	size_t n;
	int64_t expected; /* the next seq: the cursor + 1 */
	bool refused;	  /* a seq far ahead was refused (said once per pass) */
	struct srt_error *err;
};

/*
 * Ingest one agent event.  The agent's file is not trusted (issue #12): only
 * the next expected seq moves the cursor (a small gap is a Warning, a seq
 * more than INGEST_SEQ_GAP_MAX ahead is refused and later lines still
 * count); a time outside the store's range becomes the ingest time; an event
 * whose reason, kind or name is out of bounds is replaced by a Warning that
 * says so; the store cuts a long message.
 */
static int ingest_one(void *vctx, const struct srt_rundir_event *ev)
{
	struct ingest_ctx *x = vctx;
	struct srt_store *s = x->c->store;
	const char *kind = ev->object_kind ? ev->object_kind : "run";
	struct srt_error bad;
	int64_t at = ev->time;
	char *name;
	int rc = 0;

	if (ev->seq > x->expected && ev->seq - x->expected > INGEST_SEQ_GAP_MAX) {
		if (!x->refused &&
		    srt_store_event(s, x->err, "Warning", "AgentEventRefused", "run", x->run,
				    "controller",
				    "events.jsonl: seq %lld is more than %d beyond the next "
				    "expected seq %lld; that line is ignored",
				    (long long)ev->seq, INGEST_SEQ_GAP_MAX,
				    (long long)x->expected) != 0)
			return 1;
		x->refused = true;
		return SRT_RUNDIR_EVENT_REFUSE;
	}
	if (ev->seq > x->expected &&
	    srt_store_event(s, x->err, "Warning", "AgentEventsMissing", "run", x->run, "controller",
			    "events.jsonl lacks seq %lld to %lld; going on at %lld",
			    (long long)x->expected, (long long)ev->seq - 1, (long long)ev->seq) != 0)
		return 1;
	x->expected = ev->seq + 1; /* no overflow: ev->seq <= cursor + 1 + GAP */
	if (at < SRT_EVENT_TIME_MIN || at > SRT_EVENT_TIME_MAX)
		at = srt_store_now(s);
	if (!strcmp(kind, "run"))
		name = srt_xstrdup(x->run);
	else
		name = srt_xasprintf("%s/%s", x->run, ev->object_name ? ev->object_name : "?");
	srt_error_clear(&bad);
	if (srt_store_event_check(at, ev->reason, kind, name, &bad) != 0)
		rc = srt_store_event(s, x->err, "Warning", "AgentEventRefused", "run", x->run,
				     "controller", "events.jsonl: the event with seq %lld is refused: %s",
				     (long long)ev->seq, bad.msg);
	else
		rc = srt_store_event_at(s, at, ev->warning ? "Warning" : "Normal", ev->reason,
					kind, name, "agent", ev->message ? ev->message : "",
					x->err);
	/* A campaign point's report changes its point in the same transaction. */
	if (rc == 0)
		rc = srt_ctl_ingest_point_event(s, x->run, x->dir, ev, x->err);
	free(name);
	if (rc != 0)
		return 1; /* a database error: stop, roll back */
	x->n++;
	return 0;
}

/* Upsert the services and workers the agent reports. */
static int upsert_procs(struct srt_controller *c, const char *run,
			const struct srt_rundir_status *st, struct srt_error *err)
{
	int64_t now = srt_store_now(c->store);

	for (size_t i = 0; i < st->nprocs; i++) {
		const struct srt_rundir_proc *p = &st->procs[i];
		const char *state = srt_proc_state_name(p->state);

		if (p->kind && !strcmp(p->kind, "worker")) {
			struct srt_worker_row w = { 0 };

			w.run = (char *)run;
			w.role = (char *)p->role;
			w.node = (char *)p->host;
			w.ip = (char *)p->ip;
			w.env_hash = (char *)p->env_hash;
			w.state = (char *)state;
			w.message = (char *)p->message;
			w.idx = p->index;
			w.restarts = p->restarts;
			w.started_at = p->started_at;
			w.updated_at = now;
			if (srt_store_worker_upsert(c->store, &w, err) != 0)
				return -1;
		} else {
			struct srt_service_row s = { 0 };

			s.run = (char *)run;
			s.name = (char *)p->name;
			s.service = (char *)(p->service ? p->service : p->name);
			s.type = (char *)(p->type ? p->type : p->kind ? p->kind : "generic");
			s.node = (char *)p->host;
			s.endpoint = (char *)p->endpoint;
			s.state = (char *)state;
			s.last_probe = (char *)p->last_probe;
			s.message = (char *)p->message;
			s.restarts = p->restarts;
			s.last_probe_at = p->last_probe ? st->updated_at : 0;
			s.started_at = p->started_at;
			s.updated_at = now;
			if (srt_store_service_upsert(c->store, &s, err) != 0)
				return -1;
		}
	}
	return 0;
}

/*
 * The agent's conditions (status.json "conditions", e.g. RolloutFailed:
 * generation N could not become ready and was rolled back to M) become the
 * run's conditions, shown by `describe run`.  A RolloutFailed the agent no
 * longer reports (a newer generation rolled out) is set False.  Inside the
 * caller's transaction.
 */
static int ingest_conditions(struct srt_controller *c, const char *run,
			     const struct srt_rundir_status *st, struct srt_error *err)
{
	struct srt_condition_row *rows = NULL;
	size_t n = 0;
	int rc = 0;

	for (size_t i = 0; i < st->nconditions && rc == 0; i++) {
		const struct srt_rundir_condition *k = &st->conditions[i];
		char *msg = srt_xasprintf("generation %lld could not become ready; running "
					  "generation %lld: %s",
					  (long long)k->generation, (long long)k->rolled_back_to,
					  k->message ? k->message : "");

		rc = srt_store_condition_set(c->store, run, k->type, "True", k->reason, msg,
					     k->generation, err);
		free(msg);
	}
	if (rc != 0 || srt_store_condition_list(c->store, run, &rows, &n, err) != 0)
		return -1;
	for (size_t i = 0; i < n && rc == 0; i++) {
		bool reported = false;

		if (strcmp(rows[i].type, "RolloutFailed") || strcmp(rows[i].status, "True"))
			continue;
		for (size_t j = 0; j < st->nconditions; j++)
			reported = reported || !strcmp(st->conditions[j].type, "RolloutFailed");
		if (!reported)
			rc = srt_store_condition_set(c->store, run, "RolloutFailed", "False",
						     "RolledOut",
						     "a newer generation rolled out; the failed one "
						     "is no longer in effect",
						     st->plan_generation, err);
	}
	srt_condition_rows_free(rows, n);
	return rc;
}

/*
 * The frontend URL the agent bound (status.json "frontend_url") becomes the
 * run's, for `get runs -o wide` and `describe run`.  status.json belongs to
 * the job's user: a URL that is not "http://HOST:PORT" (bounded, printable)
 * is not stored; the run gets a Warning saying so (deduplicated: the same
 * file is not read again until it changes) and keeps no URL.  Inside the
 * caller's transaction.
 */
static int ingest_frontend_url(struct srt_controller *c, const char *run,
			       const struct srt_rundir_status *st, struct srt_error *err)
{
	const char *url = st->frontend_url;

	if (url && !srt_rundir_frontend_url_ok(url)) {
		struct srt_buf b;
		int rc;

		/* Quote what is safe to show: printable ASCII, at most 64 bytes. */
		srt_buf_init(&b);
		for (size_t i = 0; url[i] && i < 64; i++)
			srt_buf_putc(&b, url[i] >= 0x20 && url[i] < 0x7f ? url[i] : '?');
		rc = srt_store_event(c->store, err, "Warning", "InvalidFrontendURL", "run", run,
				     "controller",
				     "status.json reports frontend_url '%s%s', which is not "
				     "http://HOST:PORT (at most %d bytes); it is not recorded. The "
				     "agent writes it from the plan: check that this job runs "
				     "srtctl's own agent",
				     b.data, strlen(url) > 64 ? "..." : "", SRT_RUNDIR_URL_MAX);
		srt_buf_release(&b);
		if (rc != 0)
			return -1;
		url = NULL;
	}
	return srt_store_run_set_frontend_url(c->store, run, url, err);
}

/*
 * Read one run's status.json and new events.  Events are inserted and the
 * ingest cursor moved in one transaction: each is ingested exactly once.
 */
static int ingest_run(struct srt_controller *c, const struct srt_run_row *run, struct run_obs *obs,
		      struct srt_rundir_events_pos *pos, bool *more, size_t *ningested,
		      struct srt_error *err)
{
	struct srt_rundir_status st;
	struct srt_error rerr, eerr;
	char *dir = srt_controller_run_dir(c, run->name);
	struct ingest_ctx x = { c, run->name, dir, 0, 0, false, err };
	struct srt_rundir_events_read er = { .pos = *pos };
	int64_t cursor = 0, last = 0;
	int rc, src, r = 0;

	*more = false;
	srt_error_clear(&rerr);
	srt_error_clear(&eerr);
	src = srt_rundir_read_status(dir, &st, &rerr);
	if (src == 0) {
		obs->agent = agent_phase(st.phase);
		obs->agent_message = st.message && *st.message ? srt_xstrdup(st.message) : NULL;
	} else if (src < 0) {
		logf_(c, "run/%s: cannot read its status: %s", run->name, rerr.msg);
	}
	if (srt_store_begin(c->store, err) != 0) {
		rc = -1;
		goto out;
	}
	/* A file the controller refuses (a link, a FIFO, too large) is a Warning
	 * on the run; the other runs are read as usual. */
	rc = src < 0 ? srt_store_event(c->store, err, "Warning", "RunDirUnreadable", "run",
				       run->name, "controller", "%s", rerr.msg) :
		       0;
	if (rc == 0)
		rc = srt_store_ingest_cursor_get(c->store, run->name, &cursor, err);
	x.expected = cursor < INT64_MAX ? cursor + 1 : INT64_MAX;
	if (rc == 0) {
		er.after_seq = cursor;
		r = srt_rundir_read_events_from(dir, &er, ingest_one, &x, &eerr);
		last = er.last_seq; /* the events delivered before an error are in the tx */
		if (r == 1) {
			rc = -1; /* the database failed; err says how */
		} else if (r < 0) {
			logf_(c, "run/%s: cannot read its events: %s", run->name, eerr.msg);
			rc = srt_store_event(c->store, err, "Warning", "RunDirUnreadable", "run",
					     run->name, "controller", "%s", eerr.msg);
		}
	}
	if (rc == 0 && er.too_long)
		rc = srt_store_event(
			c->store, err, "Warning", "RunDirUnreadable", "run", run->name,
			"controller",
			"%s/%s: %zu line%s longer than %u KiB (the limit for one "
			"event), the first at byte %lld; %s ignored and reading goes on "
			"after %s",
			dir, SRT_RUNDIR_EVENTS, er.too_long, er.too_long == 1 ? "" : "s",
			SRT_RUNDIR_EVENT_LINE_MAX / 1024, (long long)er.too_long_at,
			er.too_long == 1 ? "it is" : "they are", er.too_long == 1 ? "it" : "them");
	if (rc == 0 && r == 0 && er.more)
		rc = srt_store_event(
			c->store, err, "Warning", "RunDirUnreadable", "run", run->name,
			"controller",
			"%s/%s: read %u MiB this pass, the most the controller reads of "
			"one run per pass; the rest (from byte %lld) is read in the "
			"next passes",
			dir, SRT_RUNDIR_EVENTS, SRT_RUNDIR_EVENTS_PASS_MAX / (1024 * 1024),
			(long long)er.pos.offset);
	if (rc == 0 && last > cursor)
		rc = srt_store_ingest_cursor_set(c->store, run->name, last, err);
	if (rc == 0 && src == 0)
		rc = upsert_procs(c, run->name, &st, err);
	if (rc == 0 && src == 0)
		rc = ingest_conditions(c, run->name, &st, err);
	if (rc == 0 && src == 0)
		rc = ingest_frontend_url(c, run->name, &st, err);
	if (finish_tx(c, rc, err) != 0) {
		rc = -1;
		goto out;
	}
	*ningested += x.n;
	*pos = er.pos; /* committed: the next pass goes on from here */
	*more = r == 0 && er.more;
out:
	if (src == 0)
		srt_rundir_status_release(&st);
	free(dir);
	return rc;
}

/* ---- effects ---- */

/*
 * A run's state change and the events that explain it, committed in one
 * transaction (or none of it).
 */
struct change {
	const char *run;
	const char *phase;		     /* NULL: unchanged */
	int64_t job_id;			     /* -1: unchanged */
	const char *slurm_state;	     /* NULL: unchanged */
	const char *message, *type, *reason; /* the run's message and the event */
	bool set_exit_code;
	int64_t exit_code;
	const char *note_reason, *note; /* a Warning recorded first; NULL: none */
};

static int commit_change(struct srt_controller *c, const struct change *ch, struct srt_error *err)
{
	int rc = 0;

	if (srt_store_begin(c->store, err) != 0)
		return -1;
	if (ch->note)
		rc = srt_store_event(c->store, err, "Warning", ch->note_reason, "run", ch->run,
				     "controller", "%s", ch->note);
	if (rc == 0)
		rc = srt_store_run_update(c->store, ch->run, ch->phase, ch->job_id, ch->slurm_state,
					  ch->message, err);
	if (rc == 0 && ch->set_exit_code)
		rc = srt_store_run_set_details(c->store, ch->run, NULL, true, ch->exit_code, err);
	if (rc == 0)
		rc = srt_store_event(c->store, err, ch->type, ch->reason, "run", ch->run,
				     "controller", "%s", ch->message);
	return finish_tx(c, rc, err);
}

static int record(struct srt_controller *c, const char *run, const char *phase, int64_t job_id,
		  const char *slurm_state, const char *message, const char *type,
		  const char *reason, struct srt_error *err)
{
	return commit_change(c,
			     &(struct change){ .run = run,
					       .phase = phase,
					       .job_id = job_id,
					       .slurm_state = slurm_state,
					       .message = message,
					       .type = type,
					       .reason = reason },
			     err);
}

/* A Warning event about a run, with no state change. */
static int warn(struct srt_controller *c, const char *run, const char *reason, const char *msg,
		struct srt_error *err)
{
	if (srt_store_begin(c->store, err) != 0)
		return -1;
	return finish_tx(c,
			 srt_store_event(c->store, err, "Warning", reason, "run", run, "controller",
					 "%s", msg),
			 err);
}

/*
 * Cancel a run's job and record why: Cancelling (Cancelled when SLURM no
 * longer knows it), or a CancelFailed Warning and another try next pass.
 */
static int cancel_job(struct srt_controller *c, const char *run, int64_t job_id, const char *why,
		      struct srt_error *err)
{
	struct srt_rc_outcome o;
	struct srt_error serr;
	char *msg;
	int rc, src;

	srt_error_clear(&serr);
	src = srt_slurm_client_cancel(c->slurm, job_id, &serr);
	o = srt_rc_cancel_outcome(src);
	if (o.set_phase) {
		msg = srt_xasprintf("cancelled job %lld: %s", (long long)job_id, why);
		rc = record(c, run, srt_rc_phase_name(o.phase), job_id, NULL, msg,
			    o.warning ? "Warning" : "Normal", o.reason, err);
	} else {
		msg = srt_xasprintf("could not cancel job %lld (%s: %s); trying again next pass: %s",
				    (long long)job_id, srt_slurm_rc_name(src), serr.msg, why);
		rc = warn(c, run, o.reason, msg, err);
	}
	logf_(c, "run/%s: %s", run, msg);
	free(msg);
	return rc;
}

/*
 * The job's user, who gets the run directory when srtctl runs as root (local
 * clusters): *uid -1 when there is none.
 */
static void job_owner(struct srt_controller *c, long *uid, long *gid)
{
	const char *user = c->cluster->slurmrestd.user;
	struct passwd *pw;

	*uid = *gid = -1;
	if (geteuid() != 0 || !user || !*user)
		return;
	pw = getpwnam(user);
	if (!pw) {
		logf_(c, "user %s (slurmrestd.user) is unknown; run directories stay root's", user);
		return;
	}
	*uid = (long)pw->pw_uid;
	*gid = (long)pw->pw_gid;
}

/*
 * A run directory that cannot be made or written: a Warning event and the
 * run's message, never only a line on stderr.  `held` says what waits for
 * it ("nothing is submitted"); the next pass tries again.
 */
static int run_dir_failed(struct srt_controller *c, const char *run, const char *why,
			  const char *held, struct srt_error *err)
{
	char *msg = srt_xasprintf("cannot prepare the run directory: %s; %s until it can be (the "
				  "next pass tries again)",
				  why, held);
	int rc;

	logf_(c, "run/%s: %s", run, msg);
	if (srt_store_begin(c->store, err) != 0) {
		free(msg);
		return -1;
	}
	rc = srt_store_run_update(c->store, run, NULL, -1, NULL, msg, err);
	if (rc == 0)
		rc = srt_store_event(c->store, err, "Warning", "RunDirFailed", "run", run,
				     "controller", "%s", msg);
	free(msg);
	return finish_tx(c, rc, err);
}

/*
 * Open an existing run directory DIR (ROOT/NAME, as run_dir records it) the
 * way srt_rundir_create_at() makes one: the root verified, NAME opened
 * without following a link, and owned by srtctl or the job's user.
 */
static int open_run_dir(const char *dir, long uid, long gid, int *dfd, struct srt_error *err)
{
	const char *slash = strrchr(dir, '/');
	char *root;
	int rc;

	*dfd = -1;
	if (!slash || !slash[1])
		return srt_error_set(err, "run directory '%s' is not of the form ROOT/NAME", dir);
	root = slash == dir ? srt_xstrdup("/") : srt_xstrndup(dir, (size_t)(slash - dir));
	rc = srt_rundir_create_at(root, slash + 1, uid, gid, dfd, err);
	free(root);
	return rc;
}

/* A recipe's spec rendered for this cluster: what a run's job realises. */
struct rendered {
	struct srt_compiled comp;
	struct srt_plan *plan;
	json_t *pj; /* plan.json's object, with "job" (job_shape()) */
	const struct srt_recipe *r;
	struct srt_job_props props; /* what the job asks SLURM for (recipe/script.h) */
	struct srt_job_spec spec;   /* the submission, less name, comment, script and paths */
};

static void rendered_release(struct rendered *x)
{
	json_decref(x->pj);
	srt_script_job_props_release(&x->props);
	srt_plan_free(x->plan);
	srt_compiled_release(&x->comp);
	memset(x, 0, sizeof(*x));
}

/*
 * What a job is asked for: plan.json keeps it, so a new generation can be
 * told apart as fitting the running job (rolled out in place) or not.
 */
static json_t *job_shape(const struct rendered *x)
{
	json_t *dirs = json_object();

	for (size_t i = 0; i < x->props.ndirectives; i++)
		json_object_set_new(dirs, x->props.directives[i].name,
				    json_string(x->props.directives[i].value));
	return json_pack("{s:I, s:s?, s:s?, s:i, s:b, s:o}", "nodes",
			 (json_int_t)x->plan->layout.nnodes, "partition", x->spec.partition,
			 "account", x->spec.account, "time_limit_minutes", x->spec.time_limit,
			 "exclusive", x->spec.exclusive, "directives", dirs);
}

/*
 * Compile and plan a recipe's spec.  Returns 0, or 1 with *why (malloc'd)
 * saying why the spec does not render with this cluster's config.
 */
static int render(struct srt_controller *c, const struct srt_recipe_row *recipe,
		  struct rendered *x, char **why)
{
	struct srt_diags d;
	char *file = srt_xasprintf("%s.yaml", recipe->name);
	int rc = 0;

	memset(x, 0, sizeof(*x));
	srt_diags_init(&d);
	if (srt_compile_bytes(recipe->spec, strlen(recipe->spec), file, c->cluster, &x->comp, &d) ||
	    x->comp.n != 1 || !(x->plan = srt_plan_build(x->comp.recipes[0], c->cluster, &d))) {
		struct srt_buf b;

		srt_buf_init(&b);
		for (size_t i = 0; i < d.n; i++) {
			char *s = srt_diag_format(&d.items[i]);

			if (d.items[i].level == SRT_DIAG_ERROR)
				srt_buf_printf(&b, "%s%s", b.len ? "; " : "", s);
			free(s);
		}
		*why = srt_xasprintf("the recipe's spec does not render with this cluster config: %s",
				     b.len ? b.data : "unknown error");
		srt_buf_release(&b);
		rendered_release(x);
		rc = 1;
		goto out;
	}
	x->r = x->comp.recipes[0];
	srt_script_job_props(x->plan, &x->props);
	if (srt_script_job_spec(&x->props, &x->spec) != 0) {
		*why = srt_xasprintf(
			"slurm.time_limit '%s' is longer than 100 years (36500-00:00:00); "
			"give a shorter limit or UNLIMITED",
			x->props.time_limit);
		rendered_release(x);
		rc = 1;
		goto out;
	}
	x->pj = srt_runplan_to_json(&x->plan->run);
	json_object_set_new(x->pj, "job", job_shape(x));
out:
	free(file);
	srt_diags_release(&d);
	return rc;
}

/* A run's row and its recipe's; -1 with err set when either is missing or unreadable. */
static int load_run(struct srt_controller *c, const char *name, struct srt_run_row *run,
		    struct srt_recipe_row *recipe, struct srt_error *err)
{
	int rc = srt_store_run_get(c->store, name, run, err);

	if (rc == 0)
		return srt_error_set(err, "run '%s' is not in the database", name);
	if (rc < 0)
		return -1;
	rc = srt_store_recipe_get(c->store, run->recipe, recipe, err);
	if (rc == 0)
		return srt_error_set(err, "recipe '%s' of run '%s' is not in the database",
				     run->recipe, name);
	return rc < 0 ? -1 : 0;
}

/*
 * Render the run's plan and batch script into its directory and submit it.
 * The run row (with its job comment) is already committed.
 */
static int submit(struct srt_controller *c, const char *run_name, struct srt_error *err)
{
	struct srt_run_row run = { 0 };
	struct srt_recipe_row recipe = { 0 };
	struct rendered x = { 0 };
	struct srt_diags d;
	char *dir = NULL, *script = NULL, *out_path = NULL, *msg = NULL;
	struct srt_rc_outcome o;
	struct srt_error serr;
	int64_t job_id = 0;
	long uid, gid;
	int rc = -1, src, dfd = -1;

	srt_diags_init(&d);
	if (load_run(c, run_name, &run, &recipe, err) != 0)
		goto out;
	if (render(c, &recipe, &x, &msg) != 0) {
		rc = record(c, run.name, "Failed", -1, NULL, msg, "Warning", "InvalidSpec", err);
		logf_(c, "run/%s: %s", run.name, msg);
		goto out;
	}
	dir = srt_controller_run_dir(c, run.name);
	out_path = srt_xasprintf("%s/%s", dir, SRT_SCRIPT_AGENT_OUT);
	job_owner(c, &uid, &gid);
	srt_error_clear(&serr);
	if (srt_rundir_create_at(c->run_root, run.name, uid, gid, &dfd, &serr) != 0 ||
	    srt_rundir_write_plan_at(dfd, dir, x.pj, run.generation, uid, gid, &serr) != 0) {
		rc = run_dir_failed(c, run.name, serr.msg, "nothing is submitted", err);
		goto out;
	}
	/* A campaign deployment's run: the points it runs (runplan/points.h). */
	{
		char *points = NULL;
		int prc = srt_ctl_points_file(c->store, c->cluster, recipe.name, run.name, &points,
					      err);

		if (prc < 0)
			goto out;
		if (prc > 0 &&
		    srt_rundir_write_file_at(dfd, dir, SRT_RUNDIR_POINTS, points, strlen(points),
					     SRT_RUNDIR_FILE_MODE, uid, gid, &serr) != 0) {
			free(points);
			rc = run_dir_failed(c, run.name, serr.msg, "nothing is submitted", err);
			goto out;
		}
		free(points);
	}
	script = srt_script_render_agent(x.plan,
					 &(struct srt_script_agent_opts){
						 .job_name = run.job_name,
						 .run_dir = dir,
						 .srtctl = c->srtctl,
						 .nsrtctl = c->nsrtctl,
					 },
					 &d);
	if (!script) {
		srt_error_set(err, "cannot render the batch script of run '%s'", run.name);
		goto out;
	}
	if (srt_rundir_write_file_at(dfd, dir, SRT_RUNDIR_JOB, script, strlen(script),
				     SRT_RUNDIR_SCRIPT_MODE, uid, gid, &serr) != 0) {
		rc = run_dir_failed(c, run.name, serr.msg, "nothing is submitted", err);
		goto out;
	}
	/* The run directory and the plan's frontend URL ("pending" until the agent binds it). */
	if (srt_store_begin(c->store, err) != 0)
		goto out;
	rc = srt_store_run_set_details(c->store, run.name, dir, false, 0, err);
	if (rc == 0)
		rc = srt_store_run_set_frontend_planned(c->store, run.name,
							x.plan->run.frontend_url_ph, err);
	if (finish_tx(c, rc, err) != 0) {
		rc = -1;
		goto out;
	}
	rc = -1;
	{
		struct srt_job_spec spec = x.spec;

		spec.name = run.job_name;
		spec.comment = run.job_comment;
		spec.script = script;
		spec.cwd = dir;
		spec.stdout_path = out_path;
		spec.stderr_path = out_path;
		srt_error_clear(&serr);
		src = srt_slurm_client_submit(c->slurm, &spec, &job_id, &serr);
	}
	o = srt_rc_submit_outcome(src);
	if (o.set_phase && o.phase == SRT_RC_SUBMITTED) {
		struct change ch = { .run = run.name,
				     .phase = srt_rc_phase_name(o.phase),
				     .job_id = job_id,
				     .slurm_state = "PENDING",
				     .type = o.warning ? "Warning" : "Normal",
				     .reason = o.reason };

		msg = srt_xasprintf("submitted job %lld (name %s, comment %s, %zu node%s) from %s",
				    (long long)job_id, run.job_name, run.job_comment,
				    x.plan->layout.nnodes, x.plan->layout.nnodes == 1 ? "" : "s", dir);
		ch.message = msg;
		rc = commit_change(c, &ch, err);
	} else if (o.set_phase) {
		msg = srt_xasprintf(src == SRT_SLURM_EINVAL ? "the job was not submitted: %s" :
							      "SLURM refused the job: %s",
				    serr.msg);
		rc = record(c, run.name, srt_rc_phase_name(o.phase), -1, NULL, msg,
			    o.warning ? "Warning" : "Normal", o.reason, err);
	} else {
		msg = srt_xasprintf("submission unconfirmed (%s: %s); the next pass looks for job "
				    "comment %s before submitting again",
				    srt_slurm_rc_name(src), serr.msg, run.job_comment);
		rc = warn(c, run.name, o.reason, msg, err);
	}
	logf_(c, "run/%s: %s", run.name, msg);
out:
	if (dfd >= 0)
		close(dfd);
	free(msg);
	free(script);
	free(out_path);
	free(dir);
	rendered_release(&x);
	srt_diags_release(&d);
	srt_recipe_row_release(&recipe);
	srt_run_row_release(&run);
	return rc;
}

/*
 * A new generation for a run whose job is submitted or running: written
 * into its plan.json for its agent to roll out in place, or, when the job's
 * shape changed, the job is cancelled (the next pass creates a run for the
 * new generation).  Either way the plan write or the cancel is repeatable:
 * a controller killed in between does it again on its next pass.
 */
static int rollout(struct srt_controller *c, const struct srt_rc_action *x, struct srt_error *err)
{
	struct srt_run_row run = { 0 };
	struct srt_recipe_row recipe = { 0 };
	struct rendered nx = { 0 };
	struct srt_error serr;
	json_t *old = NULL;
	int64_t old_gen = 0;
	char *dir = NULL, *why = NULL, *msg = NULL;
	long uid, gid;
	int rc = -1, dfd = -1;

	if (load_run(c, x->run, &run, &recipe, err) != 0)
		goto out;
	if (recipe.generation != x->generation) {
		rc = 0; /* applied again meanwhile: the next pass decides */
		goto out;
	}
	if (render(c, &recipe, &nx, &msg) != 0) {
		why = srt_xasprintf("generation %lld is not rolled out: %s", (long long)x->generation,
				    msg);
		rc = warn(c, run.name, "RolloutFailed", why, err);
		logf_(c, "run/%s: %s", run.name, why);
		goto out;
	}
	dir = run.run_dir ? srt_xstrdup(run.run_dir) : srt_controller_run_dir(c, run.name);
	msg = srt_xasprintf("generation %lld is not rolled out", (long long)x->generation);
	job_owner(c, &uid, &gid);
	srt_error_clear(&serr);
	/* The job's user owns the directory: through a verified fd, as submit() does. */
	if (open_run_dir(dir, uid, gid, &dfd, &serr) != 0) {
		rc = run_dir_failed(c, run.name, serr.msg, msg, err);
		goto out;
	}
	if (srt_rundir_read_plan_at(dfd, dir, &old, &old_gen, &serr) < 0) {
		json_decref(old);
		old = NULL;
	}
	if (srt_rc_rollout_fit(old, serr.msg, nx.pj, &why)) {
		if (srt_rundir_write_plan_at(dfd, dir, nx.pj, x->generation, uid, gid, &serr) !=
		    0) {
			rc = run_dir_failed(c, run.name, serr.msg, msg, err);
			goto out;
		}
		if (srt_store_begin(c->store, err) != 0)
			goto out;
		rc = srt_store_run_set_generation(c->store, run.name, x->generation, err);
		if (rc == 0)
			rc = srt_store_run_set_frontend_planned(c->store, run.name,
								nx.plan->run.frontend_url_ph, err);
		if (rc == 0)
			rc = srt_store_event(c->store, err, "Normal", "RollingOut", "run", run.name,
					     "controller",
					     "generation %lld handed to job %lld in place (same %zu "
					     "node(s)); its agent restarts only the processes whose "
					     "command or env changed",
					     (long long)x->generation, (long long)x->job_id,
					     nx.plan->layout.nnodes);
		if (finish_tx(c, rc, err) != 0) {
			rc = -1;
			goto out;
		}
		logf_(c, "run/%s: generation %lld rolled out in place into job %lld", run.name,
		      (long long)x->generation, (long long)x->job_id);
		goto out;
	}
	free(msg);
	msg = srt_xasprintf("generation %lld needs a new job (%s)", (long long)x->generation, why);
	rc = cancel_job(c, run.name, x->job_id, msg, err);
out:
	if (dfd >= 0)
		close(dfd);
	free(msg);
	free(why);
	free(dir);
	json_decref(old);
	rendered_release(&nx);
	srt_recipe_row_release(&recipe);
	srt_run_row_release(&run);
	return rc;
}

static int act(struct srt_controller *c, const struct srt_rc_action *x, struct srt_error *err)
{
	struct srt_error serr;
	struct srt_run_row row = { 0 };
	char *msg = NULL;
	int rc = 0, src;

	switch (x->kind) {
	case SRT_RC_CREATE_RUN:
		if (srt_store_begin(c->store, err) != 0)
			return -1;
		rc = srt_store_run_create(c->store, x->recipe, x->attempt, &row, err);
		if (rc == 0)
			rc = srt_store_event(c->store, err, x->warning ? "Warning" : "Normal",
					     "RunCreated", "run", row.name, "controller",
					     "run created for recipe %s, %s (job name %s, comment %s)",
					     x->recipe, x->message, row.job_name, row.job_comment);
		if (finish_tx(c, rc, err) != 0) {
			srt_run_row_release(&row);
			return -1;
		}
		logf_(c, "run/%s: created (%s)", row.name, x->message);
		rc = submit(c, row.name, err);
		srt_run_row_release(&row);
		return rc;
	case SRT_RC_SUBMIT:
		return submit(c, x->run, err);
	case SRT_RC_ADOPT:
		rc = record(c, x->run, "Submitted", x->job_id, NULL, x->message, "Normal",
			    "JobAdopted", err);
		logf_(c, "run/%s: %s", x->run, x->message);
		return rc;
	case SRT_RC_SET_PHASE:
		rc = commit_change(
			c,
			&(struct change){
				.run = x->run,
				.phase = srt_rc_phase_name(x->phase),
				.job_id = x->job_id ? x->job_id : -1,
				.slurm_state = x->job_id ? srt_job_state_name(x->job_state) : NULL,
				.message = x->message,
				.type = x->warning ? "Warning" : "Normal",
				.reason = phase_reason(x->phase),
				.set_exit_code = x->job_id && srt_rc_phase_is_final(x->phase) &&
						 x->exit_code >= 0,
				.exit_code = x->exit_code },
			err);
		logf_(c, "run/%s: %s (%s)", x->run, srt_rc_phase_name(x->phase), x->message);
		return rc;
	case SRT_RC_CANCEL:
		return cancel_job(c, x->run, x->job_id, x->message, err);
	case SRT_RC_ROLLOUT:
		return rollout(c, x, err);
	case SRT_RC_FORGET_JOB: {
		struct srt_job job = { 0 };
		struct srt_rc_outcome o;

		srt_error_clear(&serr);
		src = srt_slurm_client_get_job(c->slurm, x->job_id, &job, &serr);
		srt_job_release(&job);
		o = srt_rc_lookup_outcome(src);
		if (!o.record)
			return 0;
		msg = srt_xasprintf("%s (purged after MinJobAge?) before srtctl saw it end",
				    x->message);
		rc = record(c, x->run, srt_rc_phase_name(o.phase), -1, "GONE", msg,
			    o.warning ? "Warning" : "Normal", o.reason, err);
		logf_(c, "run/%s: %s", x->run, msg);
		free(msg);
		return rc;
	}
	case SRT_RC_OBSERVE_JOB:
		if (srt_store_begin(c->store, err) != 0)
			return -1;
		if (x->job_state != SRT_JOB_STATE_COUNT)
			rc = srt_store_run_update(c->store, x->run, NULL, -1,
						  srt_job_state_name(x->job_state), NULL, err);
		if (rc == 0 && (x->job_started_at || x->job_ended_at))
			rc = srt_store_run_set_job_times(c->store, x->run, x->job_started_at,
							 x->job_ended_at, err);
		return finish_tx(c, rc, err);
	case SRT_RC_SLURM_UNKNOWN:
		msg = srt_xasprintf(
			"slurmrestd did not answer (%s); the run's job state is unknown: "
			"nothing is resubmitted, failed or cancelled until it answers",
			c->slurm_error);
		rc = warn(c, x->run, "SlurmUnavailable", msg, err);
		free(msg);
		return rc;
	}
	return 0;
}

/* ---- the pass ---- */

static void log_campaign(void *arg, const struct srt_cc_action *x)
{
	static const char *const kinds[] = { "activate", "retire", "give back points",
					     "fail points", "stop submitting" };

	logf_(arg, "campaign/%s: %s%s%s: %s", x->campaign, kinds[x->kind], x->deployment ? " " : "",
	      x->deployment ? x->deployment : "", x->message);
}

static int64_t tv_usec(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * 1000000 + tv->tv_usec;
}

int srt_controller_pass(struct srt_controller *c, struct srt_pass_stats *stats,
			struct srt_error *err)
{
	struct srt_recipe_row *recipes = NULL;
	struct srt_run_row *runs = NULL;
	size_t nrecipes = 0, nruns = 0;
	struct srt_job_list jl = { 0 };
	struct srt_slurm_stats before, after;
	struct srt_rc_recipe *wr = NULL;
	struct srt_rc_run *wruns = NULL;
	struct srt_rc_job *wjobs = NULL;
	struct run_obs *obs = NULL;
	struct srt_ingest_memo *next_ingest = NULL;
	size_t nnext = 0;
	struct srt_rc_actions actions = { 0 };
	struct srt_error serr, first;
	int64_t t0 = srt_monotonic_ms(), k0;
	struct rusage ru0, ru1;
	int rc = -1, src;

	memset(stats, 0, sizeof(*stats));
	getrusage(RUSAGE_SELF, &ru0);
	srt_slurm_client_stats(c->slurm, &before);
	k0 = srt_store_change_counter(c->store); /* before anything of the pass is read */
	if (srt_store_recipe_list(c->store, true, &recipes, &nrecipes, err) != 0 ||
	    srt_store_run_list(c->store, NULL, &runs, &nruns, err) != 0)
		goto out;

	/* SLURM: every job, in one call ("changed since" the cached listing when we have one). */
	srt_error_clear(&serr);
	{
		bool full = !c->have_jobs || ++c->passes_since_full >= 60;

		src = srt_slurm_client_list_jobs(c->slurm, full ? 0 : c->jobs.last_update, &jl,
						 &serr);
		if (src == SRT_SLURM_OK && !jl.unchanged) {
			srt_job_list_release(&c->jobs);
			c->jobs = jl;
			memset(&jl, 0, sizeof(jl));
			c->have_jobs = true;
			c->passes_since_full = 0;
		} else if (src == SRT_SLURM_OK) {
			c->jobs.last_update = jl.last_update ? jl.last_update : c->jobs.last_update;
		}
	}
	stats->slurm_known = src == SRT_SLURM_OK && c->have_jobs;
	stats->slurm_rc = src;
	if (!stats->slurm_known) {
		c->slurm_failures++;
		logf_(c, "slurmrestd: %s: %s; run states are unknown this pass", srt_slurm_rc_name(src),
		      serr.msg);
		snprintf(c->slurm_error, sizeof(c->slurm_error), "%s: %s", srt_slurm_rc_name(src),
			 serr.msg);
	} else if (c->slurm_failures) {
		logf_(c, "slurmrestd answers again after %d failed pass%s", c->slurm_failures,
		      c->slurm_failures == 1 ? "" : "es");
		c->slurm_failures = 0;
	}

	/* The agents' reports: read again only when a file changed. */
	obs = srt_xcalloc(nruns ? nruns : 1, sizeof(*obs));
	next_ingest = srt_xcalloc(nruns + 1, sizeof(*next_ingest));
	for (size_t i = 0; i < nruns; i++) {
		enum srt_rc_phase p = SRT_RC_PENDING;
		struct srt_ingest_memo key = { .run_id = runs[i].id }, *m;
		char *dir;

		srt_rc_phase_parse(runs[i].phase, &p);
		/* An agent writes its last events as its job ends: keep reading a
		 * finished run's directory for a while. */
		if (!runs[i].run_dir ||
		    (srt_rc_phase_is_final(p) &&
		     srt_store_now(c->store) - runs[i].finished_at > SRT_INGEST_AFTER_END_MS))
			continue;
		dir = srt_controller_run_dir(c, runs[i].name);
		key.status = file_sig(dir, SRT_RUNDIR_STATUS);
		key.events = file_sig(dir, SRT_RUNDIR_EVENTS);
		free(dir);
		m = c->ningest ? bsearch(&key, c->ingest, c->ningest, sizeof(*m), ingest_memo_cmp) :
				 NULL;
		if (m)
			key.pos = m->pos;
		if (m && !m->more && sig_same(&m->status, &key.status) &&
		    sig_same(&m->events, &key.events)) {
			obs[i].agent = m->obs.agent;
			obs[i].agent_message =
				m->obs.agent_message ? srt_xstrdup(m->obs.agent_message) : NULL;
		} else if (ingest_run(c, &runs[i], &obs[i], &key.pos, &key.more,
				      &stats->events_ingested, err) != 0) {
			goto out;
		}
		key.obs.agent = obs[i].agent;
		key.obs.agent_message =
			obs[i].agent_message ? srt_xstrdup(obs[i].agent_message) : NULL;
		next_ingest[nnext++] = key;
	}
	qsort(next_ingest, nnext, sizeof(*next_ingest), ingest_memo_cmp);
	ingest_memo_free(c->ingest, c->ningest);
	c->ingest = next_ingest;
	c->ningest = nnext;
	next_ingest = NULL;
	nnext = 0;

	/* Decide. */
	wr = srt_xcalloc(nrecipes ? nrecipes : 1, sizeof(*wr));
	for (size_t i = 0; i < nrecipes; i++) {
		wr[i].name = recipes[i].name;
		wr[i].generation = recipes[i].generation;
		wr[i].deleted = recipes[i].deleted_at != 0;
		wr[i].spec = recipes[i].spec;
		wr[i].spec_hash = recipes[i].spec_hash;
	}
	wruns = srt_xcalloc(nruns ? nruns : 1, sizeof(*wruns));
	for (size_t i = 0; i < nruns; i++) {
		wruns[i].name = runs[i].name;
		wruns[i].recipe = runs[i].recipe;
		wruns[i].generation = runs[i].generation;
		wruns[i].attempt = runs[i].attempt;
		wruns[i].phase = SRT_RC_PENDING;
		srt_rc_phase_parse(runs[i].phase, &wruns[i].phase);
		wruns[i].job_id = runs[i].slurm_job_id;
		wruns[i].job_comment = runs[i].job_comment;
		wruns[i].slurm_state = runs[i].slurm_state;
		wruns[i].job_started_at = runs[i].job_started_at;
		wruns[i].job_ended_at = runs[i].job_ended_at;
		wruns[i].agent = obs[i].agent;
		wruns[i].agent_message = obs[i].agent_message;
	}
	{
		const struct srt_job_list *cur = stats->slurm_known ? &c->jobs : &jl;

		wjobs = srt_xcalloc(cur->n ? cur->n : 1, sizeof(*wjobs));
		for (size_t i = 0; i < cur->n; i++) {
			wjobs[i].id = cur->jobs[i].id;
			wjobs[i].comment = cur->jobs[i].comment;
			wjobs[i].state = cur->jobs[i].state;
			wjobs[i].exit_code = cur->jobs[i].exit_code;
			wjobs[i].reason = cur->jobs[i].reason;
			wjobs[i].started_at = cur->jobs[i].start_time * 1000;
			wjobs[i].ended_at = cur->jobs[i].end_time * 1000;
		}
		srt_reconcile_runs(&(struct srt_rc_world){ wr, nrecipes, wruns, nruns, wjobs,
							   stats->slurm_known ? cur->n : 0,
							   stats->slurm_known, c->memo },
				   &actions);
	}

	/*
	 * Act.  A failed effect does not stop the others; the pass reports the
	 * first failure and the next pass decides again from what is then true.
	 */
	srt_error_clear(&first);
	for (size_t i = 0; i < actions.n; i++) {
		const struct srt_rc_action *x = &actions.v[i];

		srt_error_clear(err);
		if (act(c, x, err) == 0)
			continue;
		if (x->run)
			srt_error_prefix(err, "run/%s", x->run);
		else
			srt_error_prefix(err, "recipe/%s", x->recipe);
		logf_(c, "error: %s", err->msg);
		if (!stats->action_errors++)
			first = *err;
	}
	stats->actions = actions.n;
	/* Campaigns: which deployments run (their child recipes), after the runs' own actions. */
	{
		struct srt_ctl_view v = {
			c->store, recipes, nrecipes, runs, nruns, log_campaign, c
		};
		size_t ncc = 0;
		bool clocked = false;
		int crc = 0;

		srt_error_clear(err);
		if (!c->cc_settled || srt_store_change_counter(c->store) != c->cc_counter) {
			crc = srt_ctl_campaigns_pass(&v, &ncc, &clocked, err);
			c->cc_counter = srt_store_change_counter(c->store);
			c->cc_settled = crc == 0 && !clocked && c->cc_counter == k0;
		}
		if (crc != 0) {
			logf_(c, "error: %s", err->msg);
			if (!stats->action_errors++)
				first = *err;
		}
		stats->actions += ncc;
	}
	stats->runs = nruns;
	rc = 0;
	if (stats->action_errors) {
		*err = first;
		if (stats->action_errors > 1)
			srt_error_prefix(err, "%zu actions failed, the first",
					 stats->action_errors);
		rc = -1;
	}
out:
	srt_slurm_client_stats(c->slurm, &after);
	stats->slurm_calls = after.requests - before.requests;
	stats->usec = (srt_monotonic_ms() - t0) * 1000;
	getrusage(RUSAGE_SELF, &ru1);
	stats->cpu_usec = tv_usec(&ru1.ru_utime) - tv_usec(&ru0.ru_utime) +
			  tv_usec(&ru1.ru_stime) - tv_usec(&ru0.ru_stime);
	stats->max_rss_kb = ru1.ru_maxrss;
	srt_rc_actions_release(&actions);
	ingest_memo_free(next_ingest, nnext);
	for (size_t i = 0; obs && i < nruns; i++)
		free(obs[i].agent_message);
	free(obs);
	free(wr);
	free(wruns);
	free(wjobs);
	srt_job_list_release(&jl);
	srt_recipe_rows_free(recipes, nrecipes);
	srt_run_rows_free(runs, nruns);
	return rc;
}
