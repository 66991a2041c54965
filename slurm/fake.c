/*
 * slurm/fake.c: the in-memory SLURM of slurm/fake.h.
 *
 * Owns a table of jobs (deep copies handed out on every read, as a real
 * reply would be) and the injected failures.  A change to any job bumps a
 * counter that stands in for slurmctld's last_update.
 */
#include "slurm/fake.h"
#include "slurm/internal.h"
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fault {
	int rc;
	int times; /* < 0: until cleared */
};

struct srt_slurm_fake {
	struct srt_slurm_client base; /* first: the handle the controller holds */
	struct srt_job *jobs;
	bool *hidden; /* hidden[i]: jobs[i] is left out of listings */
	size_t n, cap;
	int64_t next_id;
	int64_t version; /* bumped on every change: the listing's last_update */
	struct fault fail[SRT_FAKE_OP_COUNT];
	struct fault lost; /* submits whose reply is lost */
	uint64_t calls[SRT_FAKE_OP_COUNT];
	uint64_t submitted;
	uint64_t failures;
};

static struct srt_slurm_fake *fake_of(struct srt_slurm_client *cl)
{
	return (struct srt_slurm_fake *)cl;
}

static char *dup_or_empty(const char *s)
{
	return srt_xstrdup(s ? s : "");
}

static void job_copy(struct srt_job *dst, const struct srt_job *src)
{
	*dst = *src;
	dst->name = dup_or_empty(src->name);
	dst->comment = dup_or_empty(src->comment);
	dst->user = dup_or_empty(src->user);
	dst->partition = dup_or_empty(src->partition);
	dst->account = dup_or_empty(src->account);
	dst->reason = dup_or_empty(src->reason);
	dst->description = dup_or_empty(src->description);
	dst->nodes = dup_or_empty(src->nodes);
	dst->batch_host = dup_or_empty(src->batch_host);
	dst->cwd = dup_or_empty(src->cwd);
	dst->stdout_path = dup_or_empty(src->stdout_path);
	dst->stderr_path = dup_or_empty(src->stderr_path);
}

/* Count the call; return the injected failure for it, or 0. */
static int take_fault(struct srt_slurm_fake *f, enum srt_fake_op op, struct srt_error *err)
{
	struct fault *x = &f->fail[op];
	int rc;

	f->calls[op]++;
	if (!x->times)
		return 0;
	if (x->times > 0)
		x->times--;
	rc = x->rc;
	f->failures++;
	srt_error_set(err, "fake slurm: injected %s", srt_slurm_rc_name(rc));
	return rc;
}

static struct srt_job *find(const struct srt_slurm_fake *f, int64_t id)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->jobs[i].id == id)
			return &f->jobs[i];
	return NULL;
}

static struct srt_job *add(struct srt_slurm_fake *f)
{
	struct srt_job *j;

	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 8;
		f->jobs = srt_xrealloc(f->jobs, f->cap * sizeof(*f->jobs));
		f->hidden = srt_xrealloc(f->hidden, f->cap * sizeof(*f->hidden));
	}
	f->hidden[f->n] = false;
	j = &f->jobs[f->n++];
	memset(j, 0, sizeof(*j));
	j->id = f->next_id++;
	j->state = j->base_state = SRT_JOB_PENDING;
	j->exit_code = -1;
	j->time_limit = -1;
	f->version++;
	return j;
}

static int fake_submit(struct srt_slurm_client *cl, const struct srt_job_spec *spec,
		       int64_t *job_id, struct srt_error *err)
{
	struct srt_slurm_fake *f = fake_of(cl);
	struct srt_job *j;
	int rc = take_fault(f, SRT_FAKE_SUBMIT, err);

	*job_id = 0;
	if (rc)
		return rc;
	srt_error_clear(err);
	j = add(f);
	j->name = dup_or_empty(spec->name);
	j->comment = dup_or_empty(spec->comment);
	j->partition = dup_or_empty(spec->partition);
	j->account = dup_or_empty(spec->account);
	j->reason = srt_xstrdup("None");
	j->cwd = dup_or_empty(spec->cwd);
	j->stdout_path = dup_or_empty(spec->stdout_path);
	j->stderr_path = dup_or_empty(spec->stderr_path);
	j->node_count = spec->nodes;
	j->time_limit = spec->time_limit ? spec->time_limit : -1;
	srt_job_normalise(j);
	f->submitted++;
	if (f->lost.times) {
		if (f->lost.times > 0)
			f->lost.times--;
		f->failures++;
		srt_error_set(err, "fake slurm: job %lld submitted, reply lost (%s)",
			      (long long)j->id, srt_slurm_rc_name(f->lost.rc));
		return f->lost.rc;
	}
	*job_id = j->id;
	return SRT_SLURM_OK;
}

/* The call `op` on job `id`: the injected failure, EGONE, or OK with *j. */
static int job_call(struct srt_slurm_fake *f, enum srt_fake_op op, int64_t id, struct srt_job **j,
		    struct srt_error *err)
{
	int rc = take_fault(f, op, err);

	*j = NULL;
	if (rc)
		return rc;
	*j = find(f, id);
	if (!*j) {
		srt_error_set(err, "fake slurm: job %lld is not known", (long long)id);
		return SRT_SLURM_EGONE;
	}
	return SRT_SLURM_OK;
}

static int fake_get_job(struct srt_slurm_client *cl, int64_t job_id, struct srt_job *out,
			struct srt_error *err)
{
	struct srt_job *j;
	int rc = job_call(fake_of(cl), SRT_FAKE_GET_JOB, job_id, &j, err);

	memset(out, 0, sizeof(*out));
	if (rc == SRT_SLURM_OK)
		job_copy(out, j);
	return rc;
}

/* Every job whose comment and name match (NULL matches any) into *out. */
static void select_jobs(const struct srt_slurm_fake *f, const char *comment, const char *name,
			struct srt_job_list *out)
{
	out->jobs = srt_xcalloc(f->n + 1, sizeof(*out->jobs));
	for (size_t i = 0; i < f->n; i++) {
		const struct srt_job *j = &f->jobs[i];

		if (f->hidden[i] || (comment && strcmp(j->comment, comment)) ||
		    (name && strcmp(j->name, name)))
			continue;
		job_copy(&out->jobs[out->n++], j);
	}
}

/* A listing (changed_since > 0: "unchanged" when nothing changed since then). */
static int listing(struct srt_slurm_fake *f, enum srt_fake_op op, int64_t changed_since,
		   const char *comment, const char *name, struct srt_job_list *out,
		   struct srt_error *err)
{
	int rc = take_fault(f, op, err);

	memset(out, 0, sizeof(*out));
	if (rc)
		return rc;
	out->last_update = f->version;
	if (changed_since > 0 && changed_since >= f->version)
		out->unchanged = true;
	else
		select_jobs(f, comment, name, out);
	return SRT_SLURM_OK;
}

static int fake_list_jobs(struct srt_slurm_client *cl, int64_t changed_since,
			  struct srt_job_list *out, struct srt_error *err)
{
	return listing(fake_of(cl), SRT_FAKE_LIST_JOBS, changed_since, NULL, NULL, out, err);
}

static int fake_find_jobs(struct srt_slurm_client *cl, const char *comment, const char *name,
			  struct srt_job_list *out, struct srt_error *err)
{
	return listing(fake_of(cl), SRT_FAKE_FIND_JOBS, 0, comment, name, out, err);
}

static int fake_cancel(struct srt_slurm_client *cl, int64_t job_id, struct srt_error *err)
{
	struct srt_slurm_fake *f = fake_of(cl);
	struct srt_job *j;
	int rc = job_call(f, SRT_FAKE_CANCEL, job_id, &j, err);

	if (rc == SRT_SLURM_OK && !srt_job_state_is_final(j->state))
		srt_slurm_fake_set_state(f, job_id, SRT_JOB_CANCELLED, -1, NULL);
	return rc;
}

static int fake_ping(struct srt_slurm_client *cl, struct srt_slurm_info *out, struct srt_error *err)
{
	int rc = take_fault(fake_of(cl), SRT_FAKE_PING, err);

	memset(out, 0, sizeof(*out));
	if (rc)
		return rc;
	snprintf(out->api_version, sizeof(out->api_version), "fake");
	out->controller_up = true;
	out->auth_ok = true;
	return SRT_SLURM_OK;
}

static void fake_stats(const struct srt_slurm_client *cl, struct srt_slurm_stats *out)
{
	const struct srt_slurm_fake *f = (const struct srt_slurm_fake *)cl;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < SRT_FAKE_OP_COUNT; i++)
		out->requests += f->calls[i];
	out->failures = f->failures;
}

static const char *fake_url(const struct srt_slurm_client *cl)
{
	(void)cl;
	return "fake:";
}

static void fake_client_free(struct srt_slurm_client *cl)
{
	(void)cl; /* owned by the fake: srt_slurm_fake_free() */
}

static const struct srt_slurm_client_ops fake_ops = {
	.submit = fake_submit,
	.get_job = fake_get_job,
	.list_jobs = fake_list_jobs,
	.find_jobs = fake_find_jobs,
	.cancel = fake_cancel,
	.ping = fake_ping,
	.stats = fake_stats,
	.url = fake_url,
	.free = fake_client_free,
};

struct srt_slurm_fake *srt_slurm_fake_new(void)
{
	struct srt_slurm_fake *f = srt_xcalloc(1, sizeof(*f));

	f->base.ops = &fake_ops;
	f->next_id = 1000;
	f->version = 1;
	return f;
}

void srt_slurm_fake_free(struct srt_slurm_fake *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		srt_job_release(&f->jobs[i]);
	free(f->jobs);
	free(f->hidden);
	free(f);
}

struct srt_slurm_client *srt_slurm_fake_client(struct srt_slurm_fake *f)
{
	return &f->base;
}

void srt_slurm_fake_fail(struct srt_slurm_fake *f, enum srt_fake_op op, int rc, int times)
{
	f->fail[op] = (struct fault){ rc, times };
}

void srt_slurm_fake_lose_reply(struct srt_slurm_fake *f, int rc, int times)
{
	f->lost = (struct fault){ rc, times };
}

int64_t srt_slurm_fake_add(struct srt_slurm_fake *f, const char *name, const char *comment,
			   enum srt_job_state state)
{
	struct srt_job *j = add(f);

	j->name = dup_or_empty(name);
	j->comment = dup_or_empty(comment);
	j->reason = srt_xstrdup("None");
	j->state = j->base_state = state;
	srt_job_normalise(j);
	return j->id;
}

int srt_slurm_fake_set_state(struct srt_slurm_fake *f, int64_t id, enum srt_job_state state,
			     int exit_code, const char *reason)
{
	struct srt_job *j = find(f, id);

	if (!j)
		return -1;
	j->state = j->base_state = state;
	j->exit_code = exit_code;
	free(j->reason);
	j->reason = srt_xstrdup(reason ? reason : "None");
	f->version++;
	return 0;
}

int srt_slurm_fake_set_times(struct srt_slurm_fake *f, int64_t id, int64_t start_time,
			     int64_t end_time)
{
	struct srt_job *j = find(f, id);

	if (!j)
		return -1;
	j->start_time = start_time;
	j->end_time = end_time;
	f->version++;
	return 0;
}

int srt_slurm_fake_purge(struct srt_slurm_fake *f, int64_t id)
{
	struct srt_job *j = find(f, id);
	size_t i;

	if (!j)
		return -1;
	i = (size_t)(j - f->jobs);

	srt_job_release(j);
	memmove(j, j + 1, (f->n - i - 1) * sizeof(*j));
	memmove(&f->hidden[i], &f->hidden[i + 1], (f->n - i - 1) * sizeof(*f->hidden));
	f->n--;
	f->version++;
	return 0;
}

int srt_slurm_fake_hide(struct srt_slurm_fake *f, int64_t id, bool hidden)
{
	struct srt_job *j = find(f, id);

	if (!j)
		return -1;
	f->hidden[j - f->jobs] = hidden;
	f->version++;
	return 0;
}

const struct srt_job *srt_slurm_fake_job(const struct srt_slurm_fake *f, int64_t id)
{
	return find(f, id);
}

size_t srt_slurm_fake_count(const struct srt_slurm_fake *f, const char *comment)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++)
		n += !strcmp(f->jobs[i].comment, comment);
	return n;
}

size_t srt_slurm_fake_njobs(const struct srt_slurm_fake *f)
{
	return f->n;
}

uint64_t srt_slurm_fake_calls(const struct srt_slurm_fake *f, enum srt_fake_op op)
{
	return f->calls[op];
}

uint64_t srt_slurm_fake_submitted(const struct srt_slurm_fake *f)
{
	return f->submitted;
}
