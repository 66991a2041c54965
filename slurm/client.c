/*
 * slurm/client.c: the SLURM interface's dispatch, and its slurmrestd
 * implementation (each op is the slurm/slurm.h call of the same name).
 */
#include "slurm/client.h"
#include "util/buf.h"

#include <stdlib.h>

struct restd_client {
	struct srt_slurm_client base; /* first: the handle callers hold */
	struct srt_slurm *s;
};

static struct srt_slurm *restd(struct srt_slurm_client *cl)
{
	return ((struct restd_client *)cl)->s;
}

static int restd_submit(struct srt_slurm_client *cl, const struct srt_job_spec *spec,
			int64_t *job_id, struct srt_error *err)
{
	return srt_slurm_submit(restd(cl), spec, job_id, err);
}

static int restd_get_job(struct srt_slurm_client *cl, int64_t job_id, struct srt_job *out,
			 struct srt_error *err)
{
	return srt_slurm_get_job(restd(cl), job_id, out, err);
}

static int restd_list_jobs(struct srt_slurm_client *cl, int64_t changed_since,
			   struct srt_job_list *out, struct srt_error *err)
{
	return srt_slurm_list_jobs(restd(cl), changed_since, out, err);
}

static int restd_find_jobs(struct srt_slurm_client *cl, const char *comment, const char *name,
			   struct srt_job_list *out, struct srt_error *err)
{
	return srt_slurm_find_jobs(restd(cl), comment, name, out, err);
}

static int restd_cancel(struct srt_slurm_client *cl, int64_t job_id, struct srt_error *err)
{
	return srt_slurm_cancel(restd(cl), job_id, err);
}

static int restd_ping(struct srt_slurm_client *cl, struct srt_slurm_info *out,
		      struct srt_error *err)
{
	return srt_slurm_ping(restd(cl), out, err);
}

static void restd_stats(const struct srt_slurm_client *cl, struct srt_slurm_stats *out)
{
	srt_slurm_stats(((const struct restd_client *)cl)->s, out);
}

static const char *restd_url(const struct srt_slurm_client *cl)
{
	return srt_slurm_url(((const struct restd_client *)cl)->s);
}

static void restd_free(struct srt_slurm_client *cl)
{
	srt_slurm_free(restd(cl));
	free(cl);
}

static const struct srt_slurm_client_ops restd_ops = {
	.submit = restd_submit,
	.get_job = restd_get_job,
	.list_jobs = restd_list_jobs,
	.find_jobs = restd_find_jobs,
	.cancel = restd_cancel,
	.ping = restd_ping,
	.stats = restd_stats,
	.url = restd_url,
	.free = restd_free,
};

int srt_slurm_client_restd_new(struct srt_slurm_client **out, const struct srt_slurm_config *cfg,
			       struct srt_error *err)
{
	struct restd_client *r;
	struct srt_slurm *s = NULL;
	int rc;

	*out = NULL;
	rc = srt_slurm_new(&s, cfg, err);
	if (rc != SRT_SLURM_OK)
		return rc;
	r = srt_xcalloc(1, sizeof(*r));
	r->base.ops = &restd_ops;
	r->s = s;
	*out = &r->base;
	return SRT_SLURM_OK;
}

void srt_slurm_client_free(struct srt_slurm_client *cl)
{
	if (cl)
		cl->ops->free(cl);
}

int srt_slurm_client_submit(struct srt_slurm_client *cl, const struct srt_job_spec *spec,
			    int64_t *job_id, struct srt_error *err)
{
	return cl->ops->submit(cl, spec, job_id, err);
}

int srt_slurm_client_get_job(struct srt_slurm_client *cl, int64_t job_id, struct srt_job *out,
			     struct srt_error *err)
{
	return cl->ops->get_job(cl, job_id, out, err);
}

int srt_slurm_client_list_jobs(struct srt_slurm_client *cl, int64_t changed_since,
			       struct srt_job_list *out, struct srt_error *err)
{
	return cl->ops->list_jobs(cl, changed_since, out, err);
}

int srt_slurm_client_find_jobs(struct srt_slurm_client *cl, const char *comment, const char *name,
			       struct srt_job_list *out, struct srt_error *err)
{
	return cl->ops->find_jobs(cl, comment, name, out, err);
}

int srt_slurm_client_cancel(struct srt_slurm_client *cl, int64_t job_id, struct srt_error *err)
{
	return cl->ops->cancel(cl, job_id, err);
}

int srt_slurm_client_ping(struct srt_slurm_client *cl, struct srt_slurm_info *out,
			  struct srt_error *err)
{
	return cl->ops->ping(cl, out, err);
}

void srt_slurm_client_stats(const struct srt_slurm_client *cl, struct srt_slurm_stats *out)
{
	cl->ops->stats(cl, out);
}

const char *srt_slurm_client_url(const struct srt_slurm_client *cl)
{
	return cl->ops->url(cl);
}
