/*
 * slurm/client.h: the SLURM interface the controller acts through.
 *
 * An ops table (submit, get a job, list jobs, find jobs by comment, cancel,
 * ping) behind one handle, with two implementations: slurmrestd
 * (srt_slurm_client_restd_new(), wrapping slurm/slurm.h) and an in-memory
 * fake for unit tests (slurm/fake.h).  The controller holds a struct
 * srt_slurm_client and never knows which one it has, so every decision and
 * effect it takes can be tested without a SLURM.
 *
 * Every call returns what the slurm/slurm.h call of the same name returns:
 * SRT_SLURM_OK or a negative enum srt_slurm_rc, with err filled on failure.
 * The same rule holds: only OK and EGONE say something about a job; EINVAL
 * and EREJECTED that a request was not carried out; anything else means
 * "unknown".
 */
#ifndef SRT_SLURM_CLIENT_H
#define SRT_SLURM_CLIENT_H

#include <stdint.h>

#include "slurm/slurm.h"
#include "util/err.h"

struct srt_slurm_client;

/* What an implementation provides; every member is required. */
struct srt_slurm_client_ops {
	int (*submit)(struct srt_slurm_client *cl, const struct srt_job_spec *spec, int64_t *job_id,
		      struct srt_error *err);
	int (*get_job)(struct srt_slurm_client *cl, int64_t job_id, struct srt_job *out,
		       struct srt_error *err);
	int (*list_jobs)(struct srt_slurm_client *cl, int64_t changed_since,
			 struct srt_job_list *out, struct srt_error *err);
	int (*find_jobs)(struct srt_slurm_client *cl, const char *comment, const char *name,
			 struct srt_job_list *out, struct srt_error *err);
	int (*cancel)(struct srt_slurm_client *cl, int64_t job_id, struct srt_error *err);
	int (*ping)(struct srt_slurm_client *cl, struct srt_slurm_info *out, struct srt_error *err);
	void (*stats)(const struct srt_slurm_client *cl, struct srt_slurm_stats *out);
	const char *(*url)(const struct srt_slurm_client *cl);
	void (*free)(struct srt_slurm_client *cl);
};

/*
 * The handle.  An implementation embeds it as its first member and points
 * `ops` at its table; callers use only the functions below.
 */
struct srt_slurm_client {
	const struct srt_slurm_client_ops *ops;
};

/*
 * A client over slurmrestd: makes a struct srt_slurm (see srt_slurm_new()
 * for what is checked and how it fails) and owns it.  Free with
 * srt_slurm_client_free().
 */
int srt_slurm_client_restd_new(struct srt_slurm_client **out, const struct srt_slurm_config *cfg,
			       struct srt_error *err);
/* Free a client (NULL is a no-op).  A fake's client is freed with its fake. */
void srt_slurm_client_free(struct srt_slurm_client *cl);

/* As srt_slurm_submit(): on ETIMEOUT, EUNREACHABLE, ESERVER the job may exist. */
int srt_slurm_client_submit(struct srt_slurm_client *cl, const struct srt_job_spec *spec,
			    int64_t *job_id, struct srt_error *err);
/* As srt_slurm_get_job(): EGONE when SLURM does not know the job.  Release *out always. */
int srt_slurm_client_get_job(struct srt_slurm_client *cl, int64_t job_id, struct srt_job *out,
			     struct srt_error *err);
/* As srt_slurm_list_jobs().  Release *out in every case. */
int srt_slurm_client_list_jobs(struct srt_slurm_client *cl, int64_t changed_since,
			       struct srt_job_list *out, struct srt_error *err);
/* As srt_slurm_find_jobs(): the jobs with this comment and name (NULL: any). */
int srt_slurm_client_find_jobs(struct srt_slurm_client *cl, const char *comment, const char *name,
			       struct srt_job_list *out, struct srt_error *err);
/* As srt_slurm_cancel(): OK also for a job that already ended; EGONE for an unknown one. */
int srt_slurm_client_cancel(struct srt_slurm_client *cl, int64_t job_id, struct srt_error *err);
/* As srt_slurm_ping(). */
int srt_slurm_client_ping(struct srt_slurm_client *cl, struct srt_slurm_info *out,
			  struct srt_error *err);
/* Request counters since the client was made. */
void srt_slurm_client_stats(const struct srt_slurm_client *cl, struct srt_slurm_stats *out);
/* Where the client talks to, for messages (a URL with its password masked). */
const char *srt_slurm_client_url(const struct srt_slurm_client *cl);

#endif
