/*
 * controller/controller.h: the cluster-level reconcile loop.
 *
 * One pass re-reads the world (recipes and runs from the state database,
 * every SLURM job in one call through the SLURM client, each live run's
 * status.json and new events.jsonl lines), asks the reconciler
 * (reconcilers/runs.h) what to do, and does it: creates runs (the intent row
 * first), renders a run's plan and batch script into its run directory,
 * submits, adopts, cancels, and records every decision as an event in the
 * same transaction as the state change.  Level-triggered: a pass never
 * depends on having seen the previous one, so a controller killed at any
 * moment resumes where it was (a new handle over the same database finds
 * its jobs again).
 *
 * The loop (srt_controller_run()) runs passes every interval until SIGTERM
 * or SIGINT, doubling the interval (up to 60 s) while SLURM does not answer.
 *
 * SLURM is reached only through struct srt_slurm_client (slurm/client.h):
 * slurmrestd in production, the in-memory fake (slurm/fake.h) in tests.
 */
#ifndef SRT_CONTROLLER_CONTROLLER_H
#define SRT_CONTROLLER_CONTROLLER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "recipe/cluster.h"
#include "slurm/client.h"
#include "store/store.h"
#include "util/err.h"

struct srt_controller;

/* What a controller works with.  Everything is borrowed, except run_root (copied). */
struct srt_controller_config {
	struct srt_store *store;
	struct srt_slurm_client *slurm;
	const struct srt_cluster *cluster;
	const char *run_root; /* absolute directory for run directories */
	const char *const *srtctl; /* argv prefix that starts srtctl on a compute node */
	size_t nsrtctl;
	FILE *log; /* one line per decision; NULL for none */
};

/*
 * Make a controller.  Nothing is read or sent yet.  Fails (-1, err says
 * why) when the store, client or cluster is missing or run_root is not an
 * absolute path.  Free with srt_controller_free().
 */
int srt_controller_new(struct srt_controller **out, const struct srt_controller_config *cfg,
		       struct srt_error *err);
/* Free a controller and what it cached across passes (NULL is a no-op). */
void srt_controller_free(struct srt_controller *c);

struct srt_pass_stats {
	uint64_t slurm_calls; /* requests to SLURM during the pass */
	size_t runs; /* runs in the database */
	size_t actions; /* decisions taken */
	size_t action_errors;	/* decisions whose effect failed (retried next pass) */
	size_t events_ingested; /* agent events ingested */
	bool slurm_known; /* the job listing succeeded */
	int slurm_rc;	  /* the job listing's result: SRT_SLURM_OK or a negative srt_slurm_rc */
	int64_t usec; /* wall time of the pass */
	int64_t cpu_usec; /* CPU time of the pass (user + system, this process) */
	long max_rss_kb; /* peak resident memory of the process so far */
};

/*
 * One reconcile pass.  Returns 0, or -1 with err set when the pass could not
 * run (the database failed) or an action's effect failed: the other actions
 * are still taken, err names the first failure ("run/NAME: ..."), and the
 * next pass decides again.  SLURM being unreachable is not a failure of the
 * pass: it is recorded as Warning events and reported in stats.
 */
int srt_controller_pass(struct srt_controller *c, struct srt_pass_stats *stats,
			struct srt_error *err);

/* Consecutive passes whose job listing failed (0 once SLURM answers). */
int srt_controller_slurm_failures(const struct srt_controller *c);

/* The deterministic run directory of a run: <run_root>/<run name> (caller frees). */
char *srt_controller_run_dir(const struct srt_controller *c, const char *run);

/* ---- the loop ---- */

struct srt_controller_loop {
	int64_t interval_ms; /* between passes, >= 1 */
	bool once;	     /* one pass, then return */
	/*
	 * Called once SIGTERM and SIGINT stop the loop between passes, before
	 * the first pass (a "started" line: whoever reads it may signal the
	 * loop from then on); may be NULL.
	 */
	void (*on_start)(void *arg);
	/* Called after every pass with its result (printing); may be NULL. */
	void (*on_pass)(void *arg, int rc, const struct srt_pass_stats *st,
			const struct srt_error *err);
	/*
	 * Called after on_pass with the pass's result and the wait the loop takes next (the interval
	 * with its back-off, 0 with `once`): the place for work hooked onto the
	 * loop (metrics, notifications); it must not block.  May be NULL.
	 */
	void (*after_pass)(void *arg, int rc, const struct srt_pass_stats *st,
			   int64_t next_wait_ms);
	/*
	 * Wait `ms` between passes; NULL: sleep, waking every 200 ms to notice
	 * a stop request.  Tests pass their own (no wall time).
	 */
	void (*sleep_ms)(void *arg, int64_t ms);
	/*
	 * Called at least every tick_ms while the loop waits between passes
	 * (the wait is slept in slices of at most tick_ms; 0: one sleep, no
	 * tick), e.g. to ping systemd's watchdog when the interval is longer
	 * than its period; may be NULL.  Not called during a pass.
	 */
	int64_t tick_ms;
	void (*on_tick)(void *arg);
	/*
	 * With the default sleep: called about every 200 ms while the loop
	 * waits between passes (however long the back-off), for hooked work
	 * that must not wait for the next pass (a notifier's timeout); it must
	 * not block.  May be NULL.
	 */
	void (*idle)(void *arg);
	void *arg;
};

/*
 * Run passes until SIGTERM or SIGINT (handlers are installed for the run and
 * the previous ones restored after it; a signal stops the loop between
 * passes), or after one pass with `once`.  A failed pass is reported through
 * on_pass and the loop goes on.  Returns 0; -1 when the `once` pass failed
 * (err says why).
 */
int srt_controller_run(struct srt_controller *c, const struct srt_controller_loop *loop,
		       struct srt_error *err);

/* Ask a running loop to stop between passes, as SIGTERM does (async-signal-safe). */
void srt_controller_request_stop(void);

/*
 * The wait after a pass: `interval_ms`, doubled for each consecutive pass
 * SLURM did not answer, up to 60 s (never below interval_ms).
 */
int64_t srt_controller_backoff_ms(int64_t interval_ms, int slurm_failures);

#endif
