/*
 * reconcilers/runs.h: what to do about each recipe's runs and SLURM jobs.
 *
 * A pure function of the world as one controller pass observed it: the
 * recipes (desired state), the runs (what srtctl recorded), the SLURM jobs
 * (one listing per pass) and what each run's agent last reported.  It
 * returns a list of actions; the controller performs them (controller/).
 * Nothing here does I/O or reads a clock: tests feed it worlds and check the
 * actions, and a crash between deciding and doing is harmless because the
 * next pass decides again from what is then true (level-triggered).
 *
 * The rules that make srtctl safe to kill at any moment:
 *  - Intent before effect: a run row, with the job name and comment its SLURM
 *    job will carry, is committed before anything is submitted (CREATE_RUN,
 *    then SUBMIT on a later step of the same or a later pass).
 *  - A run without a job id is first looked for in SLURM by its comment
 *    (ADOPT); only when the listing is known and holds no such job is it
 *    submitted.
 *  - "Unknown" is never "dead": when the job listing failed, no run is
 *    submitted, failed or cancelled on its account.
 *
 * Besides the pass's decision, the decisions an effect needs once it has
 * observed more live here too, as pure functions of what it observed: what a
 * SLURM call's result means for the run (srt_rc_submit_outcome() and the
 * others), whether a new generation fits the running job
 * (srt_rc_rollout_fit()), and a recipe's attempt budget
 * (srt_rc_spec_max_attempts()).  The controller only gathers and acts.
 */
#ifndef SRT_RECONCILERS_RUNS_H
#define SRT_RECONCILERS_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "slurm/slurm.h"

/* A recipe as the reconciler needs it. */
struct srt_rc_recipe {
	const char *name;
	int64_t generation;
	bool deleted;
	/*
	 * Restart policy for runs whose job ends badly (issue: self-healing):
	 * attempts per generation, >= 1; 0 takes slurm.max_attempts from
	 * `spec` (srt_rc_spec_max_attempts()).
	 */
	int max_attempts;
	const char *spec;      /* the canonical spec JSON; NULL: none */
	const char *spec_hash; /* its hash, the key of srt_rc_world.memo; NULL: none */
};

/* Run phases (the runs.phase column). */
enum srt_rc_phase {
	SRT_RC_PENDING, /* recorded, not yet submitted */
	SRT_RC_SUBMITTED, /* SLURM has it, waiting for nodes */
	SRT_RC_STARTING, /* the job runs; the agent is bringing processes up */
	SRT_RC_READY, /* the agent reports every process ready */
	SRT_RC_DEGRADED, /* running, but a service keeps failing */
	SRT_RC_SUCCEEDED,
	SRT_RC_FAILED,
	SRT_RC_CANCELLING,
	SRT_RC_CANCELLED,
	SRT_RC_PHASE_COUNT,
};

const char *srt_rc_phase_name(enum srt_rc_phase p);
/* Parse a phase name; returns false when unknown. */
bool srt_rc_phase_parse(const char *s, enum srt_rc_phase *out);
bool srt_rc_phase_is_final(enum srt_rc_phase p);

/* What the run's agent last wrote in status.json. */
enum srt_rc_agent {
	SRT_RC_AGENT_NONE, /* no status yet */
	SRT_RC_AGENT_STARTING,
	SRT_RC_AGENT_READY,
	SRT_RC_AGENT_DEGRADED,
	SRT_RC_AGENT_FAILED,
	SRT_RC_AGENT_SUCCEEDED,
	SRT_RC_AGENT_STOPPED,
};

struct srt_rc_run {
	const char *name;
	const char *recipe;
	int64_t generation;
	int64_t attempt;
	enum srt_rc_phase phase;
	int64_t job_id; /* 0: none recorded */
	const char *job_comment; /* set when the run was created */
	enum srt_rc_agent agent; /* from status.json */
	const char *agent_message;
	const char *slurm_state; /* the job state last recorded ("RUNNING"); NULL: none */
	int64_t job_started_at, job_ended_at; /* SLURM's times last recorded (ms); 0: none */
};

/* A SLURM job seen in this pass's listing. */
struct srt_rc_job {
	int64_t id;
	const char *comment;
	enum srt_job_state state;
	int exit_code;
	const char *reason;
	int64_t started_at, ended_at; /* ms; 0 until it started / ended (slurm/job.c) */
};

struct srt_rc_world {
	const struct srt_rc_recipe *recipes;
	size_t nrecipes;
	const struct srt_rc_run *runs;
	size_t nruns;
	const struct srt_rc_job *jobs;
	size_t njobs;
	bool jobs_known; /* false: the listing failed this pass (unknown, not empty) */
	/*
	 * A cache of what srt_rc_spec_max_attempts() found, by spec hash, kept by
	 * the caller across passes so that a spec is parsed once (NULL: none).
	 * srt_reconcile_runs() keeps only the specs of this world in it.
	 */
	struct srt_rc_memo *memo;
};

enum srt_rc_action_kind {
	SRT_RC_CREATE_RUN, /* recipe, generation, attempt */
	SRT_RC_SUBMIT, /* run */
	SRT_RC_ADOPT, /* run, job_id: a job with the run's comment exists */
	SRT_RC_SET_PHASE, /* run, phase, message, job state fields */
	SRT_RC_CANCEL, /* run, job_id */
	/*
	 * run, job_id: the job is missing from the listing.  The controller
	 * asks SLURM for it once more (the listing may have raced) and
	 * srt_rc_lookup_outcome() says what follows.
	 */
	SRT_RC_FORGET_JOB,
	SRT_RC_ROLLOUT, /* run, job_id, generation: hand the new generation to the run's job */
	/*
	 * run: the listing failed, so the run's job state is unknown this pass:
	 * a SlurmUnavailable Warning (with the listing's error) and nothing else.
	 */
	SRT_RC_SLURM_UNKNOWN,
	/*
	 * run, job_id, job_state, job_started_at, job_ended_at: record what the
	 * listing says of the run's job, no event (an observation, not a
	 * decision).  job_state (SRT_JOB_STATE_COUNT: unchanged) when a run that
	 * has ended still has its job in the listing in another state than the
	 * one recorded (it ended while its job was COMPLETING, or a cancel was
	 * accepted before the job ended), so that `get jobs` never shows a job
	 * alive that SLURM has ended; the times (0: unchanged) when SLURM's start
	 * or end of the job is new, for a campaign's node-hours.
	 */
	SRT_RC_OBSERVE_JOB,
};

struct srt_rc_action {
	enum srt_rc_action_kind kind;
	const char *recipe; /* borrowed from the world */
	const char *run; /* borrowed from the world; NULL for CREATE_RUN */
	int64_t generation;
	int64_t attempt;
	int64_t job_id;
	enum srt_rc_phase phase;
	enum srt_job_state job_state;
	int exit_code;
	int64_t job_started_at, job_ended_at; /* OBSERVE_JOB: SLURM's times, 0: unchanged */
	char message[256];
	bool warning; /* the event for this action is a Warning */
};

struct srt_rc_actions {
	struct srt_rc_action *v;
	size_t n, cap;
};

/*
 * Decide.  Appends to *out (init it zeroed; free with srt_rc_actions_release).
 * Order: OBSERVE_JOB first, then per recipe in the world's order; within a
 * recipe, cancellations of old generations first, then the current run's
 * action.
 *
 * A new generation of a recipe whose run has a job (submitted or running)
 * is rolled out in place: ROLLOUT for the newest such run, which then
 * counts as the current generation's run.  The controller hands the new
 * plan to the job's agent when the job's shape (nodes, partition, account,
 * time limit) is unchanged, and cancels the job otherwise (the next pass
 * then creates a run for the new generation).  Other runs of older
 * generations are retired (cancelled).
 */
void srt_reconcile_runs(const struct srt_rc_world *w, struct srt_rc_actions *out);
void srt_rc_actions_release(struct srt_rc_actions *a);

/* An empty memo for srt_rc_world.memo (aborts when out of memory). */
struct srt_rc_memo *srt_rc_memo_new(void);
/* Free a memo (NULL is a no-op). */
void srt_rc_memo_free(struct srt_rc_memo *m);

/*
 * slurm.max_attempts of a canonical spec ({"slurm": {"max_attempts": N}}),
 * when it is 1..100; else (absent, out of range, not JSON, NULL) the default,
 * SRT_MAX_ATTEMPTS_DEFAULT.
 */
int srt_rc_spec_max_attempts(const char *spec);

/* What an effect's SLURM call means for its run. */
struct srt_rc_outcome {
	bool record;	/* false: nothing to record; the next pass looks again */
	bool set_phase; /* the run's phase becomes `phase` (else only an event) */
	enum srt_rc_phase phase;
	const char *reason; /* the event's reason (static) */
	bool warning;	    /* the event is a Warning */
};

/*
 * A submit returned `slurm_rc`: OK -> Submitted (JobSubmitted); EREJECTED or
 * EINVAL -> Failed (SubmitRejected, Warning); anything else is unknown: the
 * job may exist, so only a SubmitUnknown Warning, and the next pass looks
 * for the run's comment in the listing before submitting again.
 */
struct srt_rc_outcome srt_rc_submit_outcome(int slurm_rc);
/*
 * A cancel returned `slurm_rc`: OK -> Cancelling, EGONE -> Cancelled (both
 * JobCancelled); anything else -> a CancelFailed Warning, tried again.
 */
struct srt_rc_outcome srt_rc_cancel_outcome(int slurm_rc);
/*
 * A job missing from the listing (SRT_RC_FORGET_JOB) was asked for again
 * and that returned `slurm_rc`: EGONE -> Failed (JobGone, Warning: purged
 * before srtctl saw it end); anything else (still there, or unknown) ->
 * nothing: wait for the next pass.
 */
struct srt_rc_outcome srt_rc_lookup_outcome(int slurm_rc);

/*
 * Does the job that runs plan `old` (its plan.json) take plan `new`?  It
 * does when the job's shape ("job": nodes, partition, account, time limit,
 * exclusive) and the infra node are the same: returns true (roll the new
 * generation out in place).  Otherwise returns false with *why (malloc'd)
 * saying what differs, e.g. `job nodes 1 -> 2`: the job must be replaced.
 * `old` NULL means its plan could not be read; `old_error` says why.
 */
bool srt_rc_rollout_fit(const json_t *old, const char *old_error, const json_t *new, char **why);

#endif
