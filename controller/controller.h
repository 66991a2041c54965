/*
 * controller/controller.h: the cluster-level reconcile loop.
 *
 * One pass re-reads the world (recipes and runs from the state database,
 * every SLURM job in one slurmrestd call, each live run's status.json and new
 * events.jsonl lines), asks the reconciler (reconcilers/runs.h) what to do,
 * and does it: creates runs (the intent row first), renders a run's plan
 * and batch script into its run directory, submits, adopts, cancels, and
 * records every decision as an event in the same transaction as the state
 * change.  Level-triggered: a pass never depends on having seen the previous
 * one, so a controller killed at any moment resumes where it was.
 *
 * The context borrows everything it is given; srt_controller_pass() may be
 * called any number of times.
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

struct srt_controller {
	struct srt_store *store;
	struct srt_slurm_client *slurm;
	const struct srt_cluster *cluster;
	const char *run_root; /* absolute directory for run directories */
	const char *const *srtctl; /* argv prefix that starts srtctl on a compute node */
	size_t nsrtctl;
	FILE *log; /* one line per decision; NULL for none */
	/* Set by the pass: */
	int slurm_failures; /* consecutive passes whose job listing failed */
	/*
	 * The last full job listing and slurmctld's last_update: later passes
	 * ask "changed since" and reuse this when nothing changed (a cheap
	 * reply instead of every job's JSON).  Release with srt_controller_release().
	 */
	struct srt_job_list jobs;
	bool have_jobs;
	int passes_since_full; /* a full listing at least every 60 passes */
	/* Each recipe spec's slurm.max_attempts by spec hash: a spec is parsed once. */
	struct srt_rc_memo *memo;
	/* Why this pass's job listing failed ("UNREACHABLE: ..."), for its events. */
	char slurm_error[SRT_ERROR_MAX + 32];
	/*
	 * What each run directory's status.json and events.jsonl looked like
	 * when last ingested (by run id): a pass skips a run whose files have
	 * not changed and reuses what it learnt from them.
	 */
	struct srt_ingest_memo *ingest;
	size_t ningest;
};

/* Free what the context accumulated across passes (the cached listing). */
void srt_controller_release(struct srt_controller *c);

struct srt_pass_stats {
	uint64_t slurm_calls; /* HTTP requests to slurmrestd during the pass */
	size_t runs; /* runs in the database */
	size_t actions; /* decisions taken */
	size_t events_ingested; /* agent events ingested */
	bool slurm_known; /* the job listing succeeded */
	int64_t usec; /* wall time of the pass */
	int64_t cpu_usec; /* CPU time of the pass (user + system, this process) */
	long max_rss_kb; /* peak resident memory of the process so far */
};

/*
 * One reconcile pass.  Returns 0, or -1 when the pass could not run at all
 * (the database failed); SLURM being unreachable is not a failure of the
 * pass: it is recorded as Warning events and reported in stats.
 */
int srt_controller_pass(struct srt_controller *c, struct srt_pass_stats *stats,
			struct srt_error *err);

/* The deterministic run directory of a run: <run_root>/<run name> (caller frees). */
char *srt_controller_run_dir(const struct srt_controller *c, const char *run);

#endif
