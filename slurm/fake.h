/*
 * slurm/fake.h: an in-memory SLURM behind the client interface, for tests.
 *
 * Jobs live in a table: a submit adds one (PENDING, ids from 1000 up), a
 * test moves it through states with srt_slurm_fake_set_state() and forgets
 * it with srt_slurm_fake_purge() (slurmctld's MinJobAge).  Failures are
 * injected per operation: the next N calls return a chosen code (ETIMEOUT,
 * EUNREACHABLE, ESERVER, EREJECTED, ...) and do nothing, or, for a submit
 * whose reply is lost, create the job and still return the code.  Every
 * call is counted, so a test can say "submitted once".
 *
 * Nothing here reads a clock: the job listing's last_update is a change
 * counter, so "changed since" behaves like slurmctld's.
 */
#ifndef SRT_SLURM_FAKE_H
#define SRT_SLURM_FAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slurm/client.h"

struct srt_slurm_fake;

enum srt_fake_op {
	SRT_FAKE_SUBMIT,
	SRT_FAKE_GET_JOB,
	SRT_FAKE_LIST_JOBS,
	SRT_FAKE_FIND_JOBS,
	SRT_FAKE_CANCEL,
	SRT_FAKE_PING,
	SRT_FAKE_OP_COUNT,
};

/* A fake with no jobs (aborts when out of memory).  Free with srt_slurm_fake_free(). */
struct srt_slurm_fake *srt_slurm_fake_new(void);
/* Free the fake and its client (NULL is a no-op). */
void srt_slurm_fake_free(struct srt_slurm_fake *f);
/*
 * The fake as a client, valid until srt_slurm_fake_free();
 * srt_slurm_client_free() on it does nothing.
 */
struct srt_slurm_client *srt_slurm_fake_client(struct srt_slurm_fake *f);

/*
 * The next `times` calls of `op` fail with `rc` (a negative srt_slurm_rc)
 * without doing anything; times < 0: every call until cleared with times 0.
 */
void srt_slurm_fake_fail(struct srt_slurm_fake *f, enum srt_fake_op op, int rc, int times);
/*
 * The next `times` submits create their job, but the caller gets `rc`
 * (ETIMEOUT, EUNREACHABLE, ESERVER): the reply was lost on the way back.
 */
void srt_slurm_fake_lose_reply(struct srt_slurm_fake *f, int rc, int times);

/* Add a job as if someone submitted it (name and comment may be NULL).  Returns its id. */
int64_t srt_slurm_fake_add(struct srt_slurm_fake *f, const char *name, const char *comment,
			   enum srt_job_state state);
/*
 * Set a job's state, exit code (-1: none) and reason (NULL: "None").
 * Returns 0, or -1 when the fake has no such job.
 */
int srt_slurm_fake_set_state(struct srt_slurm_fake *f, int64_t id, enum srt_job_state state,
			     int exit_code, const char *reason);
/* Set when SLURM says a job started and ended (seconds; 0: not yet).  0, or -1 when unknown. */
int srt_slurm_fake_set_times(struct srt_slurm_fake *f, int64_t id, int64_t start_time,
			     int64_t end_time);
/* Forget a job, as slurmctld does MinJobAge after it ends.  0, or -1 when unknown. */
int srt_slurm_fake_purge(struct srt_slurm_fake *f, int64_t id);

/*
 * Leave a job out of listings (list_jobs, find_jobs) while get_job still
 * finds it: a listing that raced with a change.  0, or -1 when unknown.
 */
int srt_slurm_fake_hide(struct srt_slurm_fake *f, int64_t id, bool hidden);

/* The job with this id (borrowed, valid until the next change), or NULL. */
const struct srt_job *srt_slurm_fake_job(const struct srt_slurm_fake *f, int64_t id);
/* How many jobs carry `comment` (purged ones are gone). */
size_t srt_slurm_fake_count(const struct srt_slurm_fake *f, const char *comment);
/* How many jobs the fake holds. */
size_t srt_slurm_fake_njobs(const struct srt_slurm_fake *f);
/* Calls of `op` so far, failed ones included. */
uint64_t srt_slurm_fake_calls(const struct srt_slurm_fake *f, enum srt_fake_op op);
/* Jobs created by submits (lost replies included). */
uint64_t srt_slurm_fake_submitted(const struct srt_slurm_fake *f);

#endif
