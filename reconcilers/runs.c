/*
 * reconcilers/runs.c: the run/job reconciler (see runs.h for the rules).
 *
 * For every recipe: a deleted one has its live runs cancelled; a live one
 * has the newest run of an older generation that has a job rolled forward
 * to the current generation (when the current one has no run yet), its
 * other runs of older generations cancelled, and the newest attempt of its
 * current generation driven forward: created, found again (adopted) or
 * submitted, its phase kept in step with SLURM and its agent, and a new
 * attempt started when the job ended badly and attempts remain.
 *
 * Then the follow-up decisions of effects (runs.h): what a SLURM call's
 * result means, whether a new generation fits its job, and a spec's
 * attempt budget.
 */
#include "reconcilers/runs.h"
#include "recipe/model.h"
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const phase_names[SRT_RC_PHASE_COUNT] = {
	"Pending", "Submitted", "Starting",   "Ready",	   "Degraded",
	"Succeeded", "Failed",	"Cancelling", "Cancelled",
};

const char *srt_rc_phase_name(enum srt_rc_phase p)
{
	return p < SRT_RC_PHASE_COUNT ? phase_names[p] : "Unknown";
}

bool srt_rc_phase_parse(const char *s, enum srt_rc_phase *out)
{
	for (int i = 0; s && i < SRT_RC_PHASE_COUNT; i++) {
		if (!strcmp(s, phase_names[i])) {
			*out = (enum srt_rc_phase)i;
			return true;
		}
	}
	return false;
}

bool srt_rc_phase_is_final(enum srt_rc_phase p)
{
	return p == SRT_RC_SUCCEEDED || p == SRT_RC_FAILED || p == SRT_RC_CANCELLED;
}

static struct srt_rc_action *push(struct srt_rc_actions *a, enum srt_rc_action_kind kind,
				  const char *recipe, const struct srt_rc_run *run)
{
	struct srt_rc_action *x;

	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		a->v = srt_xrealloc(a->v, a->cap * sizeof(*a->v));
	}
	x = &a->v[a->n++];
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	x->recipe = recipe;
	if (run) {
		x->run = run->name;
		x->generation = run->generation;
		x->attempt = run->attempt;
		x->job_id = run->job_id;
	}
	return x;
}

void srt_rc_actions_release(struct srt_rc_actions *a)
{
	free(a->v);
	memset(a, 0, sizeof(*a));
}

static int job_id_cmp(const void *a, const void *b)
{
	int64_t x = ((const struct srt_rc_job *)a)->id, y = ((const struct srt_rc_job *)b)->id;

	return (x > y) - (x < y);
}

/* w->jobs is sorted by id here (srt_reconcile_runs() works on a sorted copy). */
static const struct srt_rc_job *job_by_id(const struct srt_rc_world *w, int64_t id)
{
	struct srt_rc_job key = { .id = id };

	if (!id || !w->njobs)
		return NULL;
	return bsearch(&key, w->jobs, w->njobs, sizeof(*w->jobs), job_id_cmp);
}

/* The newest job carrying this comment (a resubmission after a crash may leave two). */
static const struct srt_rc_job *job_by_comment(const struct srt_rc_world *w, const char *comment)
{
	const struct srt_rc_job *best = NULL;

	for (size_t i = 0; comment && *comment && i < w->njobs; i++)
		if (w->jobs[i].comment && !strcmp(w->jobs[i].comment, comment) &&
		    (!best || w->jobs[i].id > best->id))
			best = &w->jobs[i];
	return best;
}

static const struct srt_rc_job *find_job(const struct srt_rc_world *w,
					 const struct srt_rc_run *run)
{
	const struct srt_rc_job *j = job_by_id(w, run->job_id);

	return j ? j : (run->job_id ? NULL : job_by_comment(w, run->job_comment));
}

/* The phase a run is in, from its job's state and its agent's report. */
static enum srt_rc_phase phase_of(const struct srt_rc_job *job, enum srt_rc_agent agent)
{
	switch (job->state) {
	case SRT_JOB_PENDING:
	case SRT_JOB_REQUEUED:
	case SRT_JOB_SUSPENDED:
	case SRT_JOB_UNKNOWN_STATE:
	case SRT_JOB_STATE_COUNT:
		return SRT_RC_SUBMITTED;
	case SRT_JOB_RUNNING:
		if (agent == SRT_RC_AGENT_READY)
			return SRT_RC_READY;
		if (agent == SRT_RC_AGENT_DEGRADED)
			return SRT_RC_DEGRADED;
		return SRT_RC_STARTING;
	case SRT_JOB_COMPLETING:
		return agent == SRT_RC_AGENT_FAILED ? SRT_RC_FAILED : SRT_RC_STARTING;
	case SRT_JOB_COMPLETED:
		return agent == SRT_RC_AGENT_FAILED ? SRT_RC_FAILED : SRT_RC_SUCCEEDED;
	case SRT_JOB_CANCELLED:
		return SRT_RC_CANCELLED;
	case SRT_JOB_FAILED:
	case SRT_JOB_TIMEOUT:
	case SRT_JOB_NODE_FAIL:
	case SRT_JOB_PREEMPTED:
	case SRT_JOB_OUT_OF_MEMORY:
	case SRT_JOB_BOOT_FAIL:
	case SRT_JOB_DEADLINE:
		return SRT_RC_FAILED;
	}
	return SRT_RC_SUBMITTED;
}

static void describe_job(char *buf, size_t n, const struct srt_rc_job *job,
			 const struct srt_rc_run *run)
{
	const char *state = srt_job_state_name(job->state);

	if (job->state == SRT_JOB_FAILED && job->exit_code >= 0)
		snprintf(buf, n, "job %lld %s (exit code %d)%s%s", (long long)job->id, state,
			 job->exit_code, run->agent_message ? ": " : "",
			 run->agent_message ? run->agent_message : "");
	else if (srt_job_state_is_final(job->state) && job->reason && *job->reason &&
		 strcmp(job->reason, "None"))
		snprintf(buf, n, "job %lld %s (%s)", (long long)job->id, state, job->reason);
	else
		snprintf(buf, n, "job %lld %s", (long long)job->id, state);
}

/* Stop a run that should not run any more (recipe deleted, or superseded). */
static void retire(const struct srt_rc_world *w, const char *recipe, const struct srt_rc_run *run,
		   const char *why, struct srt_rc_actions *out)
{
	const struct srt_rc_job *job;
	struct srt_rc_action *x;

	if (srt_rc_phase_is_final(run->phase))
		return;
	job = find_job(w, run);
	if (job && srt_job_state_is_final(job->state)) {
		x = push(out, SRT_RC_SET_PHASE, recipe, run);
		x->job_id = job->id;
		x->job_state = job->state;
		x->exit_code = job->exit_code;
		x->phase = job->state == SRT_JOB_COMPLETED ? SRT_RC_SUCCEEDED : SRT_RC_CANCELLED;
		if (run->phase == SRT_RC_CANCELLING)
			snprintf(x->message, sizeof(x->message), "%s; job %lld ended %s", why,
				 (long long)job->id, srt_job_state_name(job->state));
		else
			snprintf(x->message, sizeof(x->message), "%s; its job had already ended",
				 why);
		return;
	}
	if (job || run->job_id) {
		if (run->phase == SRT_RC_CANCELLING && job && job->state == SRT_JOB_COMPLETING)
			return; /* the cancel is under way */
		x = push(out, SRT_RC_CANCEL, recipe, run);
		x->job_id = job ? job->id : run->job_id;
		snprintf(x->message, sizeof(x->message), "%s", why);
		return;
	}
	if (!w->jobs_known)
		return; /* it may have been submitted: wait until the listing is known */
	x = push(out, SRT_RC_SET_PHASE, recipe, run);
	x->phase = SRT_RC_CANCELLED;
	snprintf(x->message, sizeof(x->message), "%s before it was submitted", why);
}

static void drive(const struct srt_rc_world *w, const struct srt_rc_recipe *r, int max_attempts,
		  const struct srt_rc_run *run, struct srt_rc_actions *out)
{
	const struct srt_rc_job *job = find_job(w, run);
	struct srt_rc_action *x;
	enum srt_rc_phase phase;

	if (srt_rc_phase_is_final(run->phase)) {
		bool bad = run->phase == SRT_RC_FAILED || run->phase == SRT_RC_CANCELLED;

		if (!bad)
			return;
		if (run->attempt >= max_attempts)
			return; /* the budget is spent: the run stays Failed */
		x = push(out, SRT_RC_CREATE_RUN, r->name, NULL);
		x->generation = r->generation;
		x->attempt = run->attempt + 1;
		snprintf(x->message, sizeof(x->message), "attempt %lld of %d after %s ended %s",
			 (long long)run->attempt + 1, max_attempts, run->name,
			 srt_rc_phase_name(run->phase));
		x->warning = true;
		return;
	}
	if (!run->job_id) {
		if (!w->jobs_known)
			return; /* unknown: never submit twice */
		if (job) {
			x = push(out, SRT_RC_ADOPT, r->name, run);
			x->job_id = job->id;
			snprintf(x->message, sizeof(x->message),
				 "found job %lld (comment %s) submitted before a restart",
				 (long long)job->id, run->job_comment);
			return;
		}
		push(out, SRT_RC_SUBMIT, r->name, run);
		return;
	}
	if (!w->jobs_known) {
		/* SLURM is unknown this pass; the agent's own report still counts. */
		if (run->phase == SRT_RC_STARTING && run->agent == SRT_RC_AGENT_READY) {
			x = push(out, SRT_RC_SET_PHASE, r->name, run);
			x->phase = SRT_RC_READY;
		}
		return;
	}
	if (!job) {
		x = push(out, SRT_RC_FORGET_JOB, r->name, run);
		snprintf(x->message, sizeof(x->message),
			 "job %lld is no longer known to SLURM", (long long)run->job_id);
		return;
	}
	phase = phase_of(job, run->agent);
	if (phase == run->phase)
		return;
	x = push(out, SRT_RC_SET_PHASE, r->name, run);
	x->phase = phase;
	x->job_id = job->id;
	x->job_state = job->state;
	x->exit_code = job->exit_code;
	x->warning = phase == SRT_RC_FAILED || phase == SRT_RC_DEGRADED ||
		     (phase == SRT_RC_CANCELLED);
	describe_job(x->message, sizeof(x->message), job, run);
}

/* Runs by recipe, then generation and attempt. */
static int run_cmp(const void *a, const void *b)
{
	const struct srt_rc_run *x = *(const struct srt_rc_run *const *)a;
	const struct srt_rc_run *y = *(const struct srt_rc_run *const *)b;
	int c = strcmp(x->recipe, y->recipe);

	if (c)
		return c;
	if (x->generation != y->generation)
		return x->generation < y->generation ? -1 : 1;
	return (x->attempt > y->attempt) - (x->attempt < y->attempt);
}

/* The first of the sorted runs that belongs to recipe `name` (n when none). */
static size_t first_run(const struct srt_rc_run *const *runs, size_t n, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(runs[mid]->recipe, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- attempt budgets ---- */

struct srt_rc_memo {
	struct memo_entry {
		char *spec_hash;
		int max_attempts;
	} * v;
	size_t n;
};

int srt_rc_spec_max_attempts(const char *spec)
{
	json_t *j = spec ? json_loads(spec, 0, NULL) : NULL;
	json_int_t n =
		json_integer_value(json_object_get(json_object_get(j, "slurm"), "max_attempts"));

	json_decref(j);
	return n >= 1 && n <= 100 ? (int)n : SRT_MAX_ATTEMPTS_DEFAULT;
}

static void memo_entries_free(struct memo_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].spec_hash);
	free(v);
}

struct srt_rc_memo *srt_rc_memo_new(void)
{
	return srt_xcalloc(1, sizeof(struct srt_rc_memo));
}

void srt_rc_memo_free(struct srt_rc_memo *m)
{
	if (!m)
		return;
	memo_entries_free(m->v, m->n);
	free(m);
}

static int memo_cmp(const void *a, const void *b)
{
	return strcmp(((const struct memo_entry *)a)->spec_hash,
		      ((const struct memo_entry *)b)->spec_hash);
}

/*
 * max_attempts of every recipe (out[i] for recipes[i]): given, or from the
 * spec, parsing only specs the memo does not hold; the memo then holds this
 * world's specs only.
 */
static void max_attempts(const struct srt_rc_world *w, int *out)
{
	struct srt_rc_memo *m = w->memo;
	struct memo_entry *next = srt_xcalloc(w->nrecipes + 1, sizeof(*next));
	size_t k = 0;

	for (size_t i = 0; i < w->nrecipes; i++) {
		const struct srt_rc_recipe *r = &w->recipes[i];
		struct memo_entry key = { (char *)r->spec_hash, 0 };
		const struct memo_entry *e = NULL;

		if (r->max_attempts > 0) {
			out[i] = r->max_attempts;
			continue;
		}
		if (m && m->n && r->spec_hash)
			e = bsearch(&key, m->v, m->n, sizeof(*m->v), memo_cmp);
		out[i] = e ? e->max_attempts : srt_rc_spec_max_attempts(r->spec);
		if (r->spec_hash) {
			next[k].spec_hash = srt_xstrdup(r->spec_hash);
			next[k++].max_attempts = out[i];
		}
	}
	if (!m) {
		memo_entries_free(next, k);
		return;
	}
	qsort(next, k, sizeof(*next), memo_cmp);
	memo_entries_free(m->v, m->n);
	m->v = next;
	m->n = k;
}

void srt_reconcile_runs(const struct srt_rc_world *world, struct srt_rc_actions *out)
{
	/* Indexes, so a pass is O(n log n) in runs and jobs: jobs by id, runs by recipe. */
	struct srt_rc_world iw = *world, *w = &iw;
	struct srt_rc_job *jobs = srt_xcalloc(world->njobs + 1, sizeof(*jobs));
	const struct srt_rc_run **byr = srt_xcalloc(world->nruns + 1, sizeof(*byr));

	int *max = srt_xcalloc(world->nrecipes + 1, sizeof(*max));

	max_attempts(world, max);
	/* Unknown this pass: every live run says so (and nothing below acts on it). */
	for (size_t k = 0; !world->jobs_known && k < world->nruns; k++)
		if (!srt_rc_phase_is_final(world->runs[k].phase))
			push(out, SRT_RC_SLURM_UNKNOWN, world->runs[k].recipe, &world->runs[k]);
	if (world->njobs)
		memcpy(jobs, world->jobs, world->njobs * sizeof(*jobs));
	qsort(jobs, world->njobs, sizeof(*jobs), job_id_cmp);
	iw.jobs = jobs;
	/*
	 * Keep what SLURM says of a run's job recorded: the state of an ended
	 * run's job (a live run's follows from its phase below), and when the
	 * job started and ended (a campaign's node-hours count from these).
	 */
	for (size_t k = 0; world->jobs_known && k < world->nruns; k++) {
		const struct srt_rc_run *run = &world->runs[k];
		const struct srt_rc_job *job;
		struct srt_rc_action *x;
		bool state, start, end;

		if (!run->job_id)
			continue;
		job = job_by_id(w, run->job_id);
		if (!job)
			continue;
		state = srt_rc_phase_is_final(run->phase) &&
			(!run->slurm_state ||
			 strcmp(run->slurm_state, srt_job_state_name(job->state)));
		start = job->started_at > 0 && job->started_at != run->job_started_at;
		end = job->ended_at > 0 && job->ended_at != run->job_ended_at;
		if (!state && !start && !end)
			continue;
		x = push(out, SRT_RC_OBSERVE_JOB, run->recipe, run);
		x->job_id = job->id;
		x->job_state = state ? job->state : SRT_JOB_STATE_COUNT;
		x->job_started_at = start ? job->started_at : 0;
		x->job_ended_at = end ? job->ended_at : 0;
	}
	for (size_t k = 0; k < world->nruns; k++)
		byr[k] = &world->runs[k];
	qsort(byr, world->nruns, sizeof(*byr), run_cmp);
	for (size_t i = 0; i < w->nrecipes; i++) {
		const struct srt_rc_recipe *r = &w->recipes[i];
		size_t first = first_run(byr, w->nruns, r->name);
		const struct srt_rc_run *latest = NULL, *roll = NULL;
		char why[128];

		/*
		 * Without a run of the current generation, the newest run of an
		 * older one that has a live job is rolled out in place.
		 */
		for (size_t k = first; k < w->nruns && !r->deleted; k++) {
			const struct srt_rc_run *run = byr[k];

			if (strcmp(run->recipe, r->name))
				break;
			if (run->generation >= r->generation) {
				roll = NULL;
				break;
			}
			if (!run->job_id || srt_rc_phase_is_final(run->phase) ||
			    run->phase == SRT_RC_CANCELLING)
				continue;
			if (!roll || run->generation > roll->generation ||
			    (run->generation == roll->generation && run->attempt > roll->attempt))
				roll = run;
		}
		for (size_t k = first; k < w->nruns; k++) {
			const struct srt_rc_run *run = byr[k];

			if (strcmp(run->recipe, r->name))
				break;
			if (r->deleted) {
				retire(w, r->name, run, "recipe deleted", out);
				continue;
			}
			if (run == roll)
				continue;
			if (run->generation < r->generation) {
				snprintf(why, sizeof(why), "superseded by generation %lld",
					 (long long)r->generation);
				retire(w, r->name, run, why, out);
				continue;
			}
			if (run->generation == r->generation &&
			    (!latest || run->attempt > latest->attempt))
				latest = run;
		}
		if (r->deleted)
			continue;
		if (roll) {
			struct srt_rc_action *x = push(out, SRT_RC_ROLLOUT, r->name, roll);

			x->generation = r->generation;
			x->job_id = roll->job_id;
			snprintf(x->message, sizeof(x->message), "generation %lld -> %lld",
				 (long long)roll->generation, (long long)r->generation);
			drive(w, r, max[i], roll, out);
			continue;
		}
		if (!latest) {
			struct srt_rc_action *x = push(out, SRT_RC_CREATE_RUN, r->name, NULL);

			x->generation = r->generation;
			x->attempt = 1;
			snprintf(x->message, sizeof(x->message), "generation %lld",
				 (long long)r->generation);
			continue;
		}
		drive(w, r, max[i], latest, out);
	}
	free(max);
	free(byr);
	free(jobs);
}

/* ---- what an effect's result means ---- */

struct srt_rc_outcome srt_rc_submit_outcome(int slurm_rc)
{
	if (slurm_rc == SRT_SLURM_OK)
		return (struct srt_rc_outcome){ true, true, SRT_RC_SUBMITTED, "JobSubmitted",
						false };
	if (slurm_rc == SRT_SLURM_EREJECTED || slurm_rc == SRT_SLURM_EINVAL)
		return (struct srt_rc_outcome){ true, true, SRT_RC_FAILED, "SubmitRejected", true };
	/* Unknown: the job may exist.  The next pass looks for it by its comment. */
	return (struct srt_rc_outcome){ true, false, SRT_RC_PENDING, "SubmitUnknown", true };
}

struct srt_rc_outcome srt_rc_cancel_outcome(int slurm_rc)
{
	if (slurm_rc == SRT_SLURM_OK)
		return (struct srt_rc_outcome){ true, true, SRT_RC_CANCELLING, "JobCancelled",
						false };
	if (slurm_rc == SRT_SLURM_EGONE)
		return (struct srt_rc_outcome){ true, true, SRT_RC_CANCELLED, "JobCancelled",
						false };
	return (struct srt_rc_outcome){ true, false, SRT_RC_PENDING, "CancelFailed", true };
}

struct srt_rc_outcome srt_rc_lookup_outcome(int slurm_rc)
{
	if (slurm_rc == SRT_SLURM_EGONE)
		return (struct srt_rc_outcome){ true, true, SRT_RC_FAILED, "JobGone", true };
	/* Still there (the listing raced), or unknown: wait. */
	return (struct srt_rc_outcome){ false, false, SRT_RC_PENDING, NULL, false };
}

bool srt_rc_rollout_fit(const json_t *old, const char *old_error, const json_t *new, char **why)
{
	const json_t *oj = json_object_get(old, "job"), *nj = json_object_get(new, "job");
	const char *key;
	json_t *v;

	*why = NULL;
	if (!old) {
		*why = srt_xasprintf("its plan cannot be read (%s)", old_error ? old_error : "?");
		return false;
	}
	if (!json_is_object(oj)) {
		*why = srt_xstrdup("its plan.json does not record the job's shape (written by an "
				   "older srtctl)");
		return false;
	}
	json_object_foreach((json_t *)nj, key, v)
	{
		json_t *was = json_object_get(oj, key);

		if (!json_equal(was, v)) {
			char *a = json_dumps(was ? was : json_null(), JSON_ENCODE_ANY);
			char *b = json_dumps(v, JSON_ENCODE_ANY);

			*why = srt_xasprintf("job %s %s -> %s", key, a ? a : "?", b ? b : "?");
			free(a);
			free(b);
			return false;
		}
	}
	if (!json_equal(json_object_get(old, "infra_node"), json_object_get(new, "infra_node"))) {
		*why = srt_xstrdup("the infra node moves");
		return false;
	}
	return true;
}
