/*
 * slurm/job.c: the normalised job model.
 *
 * Slurm describes a job's state with a base state (PENDING, RUNNING,
 * COMPLETED, ...) plus flags (COMPLETING, REQUEUED, CONFIGURING, ...).
 * v0.0.38 prints one word, a flag winning over the base state; v0.0.40 and
 * later print an array holding both.  This file turns either into
 * srt_job.state / base_state / flags, turns wait statuses into exit codes,
 * and expands Slurm host lists.
 */
#include "slurm/internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const state_names[SRT_JOB_STATE_COUNT] = {
	[SRT_JOB_UNKNOWN_STATE] = "UNKNOWN", [SRT_JOB_PENDING] = "PENDING",
	[SRT_JOB_RUNNING] = "RUNNING",	     [SRT_JOB_SUSPENDED] = "SUSPENDED",
	[SRT_JOB_COMPLETING] = "COMPLETING", [SRT_JOB_COMPLETED] = "COMPLETED",
	[SRT_JOB_FAILED] = "FAILED",	     [SRT_JOB_CANCELLED] = "CANCELLED",
	[SRT_JOB_TIMEOUT] = "TIMEOUT",	     [SRT_JOB_NODE_FAIL] = "NODE_FAIL",
	[SRT_JOB_PREEMPTED] = "PREEMPTED",   [SRT_JOB_OUT_OF_MEMORY] = "OUT_OF_MEMORY",
	[SRT_JOB_BOOT_FAIL] = "BOOT_FAIL",   [SRT_JOB_DEADLINE] = "DEADLINE",
	[SRT_JOB_REQUEUED] = "REQUEUED",
};

const char *srt_job_state_name(enum srt_job_state st)
{
	if ((int)st < 0 || st >= SRT_JOB_STATE_COUNT)
		return "UNKNOWN";
	return state_names[st];
}

bool srt_job_state_is_final(enum srt_job_state st)
{
	switch (st) {
	case SRT_JOB_COMPLETED:
	case SRT_JOB_FAILED:
	case SRT_JOB_CANCELLED:
	case SRT_JOB_TIMEOUT:
	case SRT_JOB_NODE_FAIL:
	case SRT_JOB_PREEMPTED:
	case SRT_JOB_OUT_OF_MEMORY:
	case SRT_JOB_BOOT_FAIL:
	case SRT_JOB_DEADLINE:
		return true;
	default:
		return false;
	}
}

/* Slurm's base states. */
static const struct {
	const char *word;
	enum srt_job_state st;
} base_words[] = {
	{ "PENDING", SRT_JOB_PENDING },	    { "RUNNING", SRT_JOB_RUNNING },
	{ "SUSPENDED", SRT_JOB_SUSPENDED }, { "COMPLETED", SRT_JOB_COMPLETED },
	{ "CANCELLED", SRT_JOB_CANCELLED }, { "FAILED", SRT_JOB_FAILED },
	{ "TIMEOUT", SRT_JOB_TIMEOUT },	    { "NODE_FAIL", SRT_JOB_NODE_FAIL },
	{ "PREEMPTED", SRT_JOB_PREEMPTED }, { "BOOT_FAIL", SRT_JOB_BOOT_FAIL },
	{ "DEADLINE", SRT_JOB_DEADLINE },   { "OUT_OF_MEMORY", SRT_JOB_OUT_OF_MEMORY },
};

/*
 * Slurm's state flags, and the state a flag implies when it is all Slurm
 * shows (v0.0.38 prints "COMPLETING" instead of the base state).
 */
static const struct {
	const char *word;
	unsigned flag;
	enum srt_job_state implied;
} flag_words[] = {
	{ "COMPLETING", SRT_JOB_F_COMPLETING, SRT_JOB_COMPLETING },
	{ "STAGE_OUT", SRT_JOB_F_STAGE_OUT, SRT_JOB_COMPLETING },
	{ "CONFIGURING", SRT_JOB_F_CONFIGURING, SRT_JOB_RUNNING },
	{ "RESIZING", SRT_JOB_F_RESIZING, SRT_JOB_RUNNING },
	{ "SIGNALING", SRT_JOB_F_SIGNALING, SRT_JOB_RUNNING },
	{ "REQUEUED", SRT_JOB_F_REQUEUED, SRT_JOB_REQUEUED },
	{ "REQUEUE_FED", SRT_JOB_F_REQUEUE_FED, SRT_JOB_REQUEUED },
	{ "REQUEUE_HOLD", SRT_JOB_F_REQUEUE_HOLD, SRT_JOB_REQUEUED },
	{ "SPECIAL_EXIT", SRT_JOB_F_SPECIAL_EXIT, SRT_JOB_REQUEUED },
	{ "STOPPED", SRT_JOB_F_STOPPED, SRT_JOB_SUSPENDED },
	{ "RESV_DEL_HOLD", SRT_JOB_F_RESV_DEL_HOLD, SRT_JOB_PENDING },
	{ "LAUNCH_FAILED", SRT_JOB_F_LAUNCH_FAILED, SRT_JOB_FAILED },
	{ "RECONFIG_FAIL", SRT_JOB_F_RECONFIG_FAIL, SRT_JOB_FAILED },
	{ "POWER_UP_NODE", SRT_JOB_F_POWER_UP_NODE, SRT_JOB_RUNNING },
	{ "REVOKED", SRT_JOB_F_REVOKED, SRT_JOB_UNKNOWN_STATE },
	{ "EXPEDITING", SRT_JOB_F_EXPEDITING, SRT_JOB_UNKNOWN_STATE },
};

void srt_job_set_state(struct srt_job *j, const char *const *words, size_t n, const char *reason)
{
	enum srt_job_state base = SRT_JOB_UNKNOWN_STATE, implied = SRT_JOB_UNKNOWN_STATE;
	unsigned flags = 0;

	for (size_t i = 0; i < n; i++) {
		const char *w = words[i];
		size_t k;

		if (!w)
			continue;
		for (k = 0; k < sizeof(base_words) / sizeof(base_words[0]); k++)
			if (!strcmp(w, base_words[k].word))
				break;
		if (k < sizeof(base_words) / sizeof(base_words[0])) {
			if (base == SRT_JOB_UNKNOWN_STATE)
				base = base_words[k].st;
			continue;
		}
		for (k = 0; k < sizeof(flag_words) / sizeof(flag_words[0]); k++) {
			if (!strcmp(w, flag_words[k].word)) {
				flags |= flag_words[k].flag;
				if (implied == SRT_JOB_UNKNOWN_STATE)
					implied = flag_words[k].implied;
				break;
			}
		}
		/* An unknown word (a newer Slurm's) is ignored. */
	}
	if (reason && (!strcmp(reason, "JobHeldUser") || !strcmp(reason, "JobHeldAdmin")))
		flags |= SRT_JOB_F_HELD;
	j->base_state = base;
	j->flags = flags;
	/* COMPLETING and REQUEUED say more than the base state they come with. */
	if (flags & (SRT_JOB_F_COMPLETING | SRT_JOB_F_STAGE_OUT))
		j->state = SRT_JOB_COMPLETING;
	else if (flags & (SRT_JOB_F_REQUEUED | SRT_JOB_F_REQUEUE_FED | SRT_JOB_F_REQUEUE_HOLD |
			  SRT_JOB_F_SPECIAL_EXIT))
		j->state = SRT_JOB_REQUEUED;
	else if (base != SRT_JOB_UNKNOWN_STATE)
		j->state = base;
	else
		j->state = implied;
}

void srt_job_set_wait_status(struct srt_job *j, int64_t status)
{
	if (status < 0) {
		j->exit_code = -1;
		j->signal = 0;
	} else if ((status & 0x7f) == 0) {
		/* WIFEXITED: the exit status is in the second byte. */
		j->exit_code = (int)((status >> 8) & 0xff);
		j->signal = 0;
	} else {
		/* WIFSIGNALED (0x7f would be "stopped", which a finished job is not). */
		j->exit_code = -1;
		j->signal = (int)(status & 0x7f);
	}
}

static char *nonnull(char *s)
{
	return s ? s : srt_xstrdup("");
}

void srt_job_normalise(struct srt_job *j)
{
	j->name = nonnull(j->name);
	j->comment = nonnull(j->comment);
	j->user = nonnull(j->user);
	j->partition = nonnull(j->partition);
	j->account = nonnull(j->account);
	j->reason = nonnull(j->reason);
	j->description = nonnull(j->description);
	j->nodes = nonnull(j->nodes);
	j->batch_host = nonnull(j->batch_host);
	j->cwd = nonnull(j->cwd);
	j->stdout_path = nonnull(j->stdout_path);
	j->stderr_path = nonnull(j->stderr_path);
	/*
	 * A pending job's start_time is Slurm's guess, a running job's
	 * end_time its deadline (start + 1 year without a limit), and the exit
	 * code of a job that has not ended is 0: none of them is a fact yet.
	 */
	if (j->state == SRT_JOB_PENDING || j->state == SRT_JOB_REQUEUED)
		j->start_time = 0;
	/* A time before the epoch or after the year 9999 is no time (and would overflow as ms). */
	if (j->submit_time < 0 || j->submit_time > SRT_JOB_TIME_MAX)
		j->submit_time = 0;
	if (j->start_time < 0 || j->start_time > SRT_JOB_TIME_MAX)
		j->start_time = 0;
	if (j->end_time < 0 || j->end_time > SRT_JOB_TIME_MAX)
		j->end_time = 0;
	if (!srt_job_state_is_final(j->state) && !srt_job_state_is_final(j->base_state)) {
		j->end_time = 0;
		j->exit_code = -1;
		j->signal = 0;
	}
}

void srt_job_release(struct srt_job *j)
{
	if (!j)
		return;
	free(j->name);
	free(j->comment);
	free(j->user);
	free(j->partition);
	free(j->account);
	free(j->reason);
	free(j->description);
	free(j->nodes);
	free(j->batch_host);
	free(j->cwd);
	free(j->stdout_path);
	free(j->stderr_path);
	memset(j, 0, sizeof(*j));
}

void srt_job_list_release(struct srt_job_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		srt_job_release(&l->jobs[i]);
	free(l->jobs);
	memset(l, 0, sizeof(*l));
}

/* ---- host lists ----------------------------------------------------------------- */

#define HOSTLIST_MAX 65536

struct hosts {
	char **v;
	size_t n, cap;
};

static void hosts_push(struct hosts *h, char *s)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 8;
		h->v = srt_xrealloc(h->v, h->cap * sizeof(*h->v));
	}
	h->v[h->n++] = s;
}

/* Parse an unsigned decimal of at most 9 digits at *p; its width in *width. */
static int parse_index(const char **p, long *v, int *width)
{
	const char *s = *p;
	long x = 0;
	int w = 0;

	while (*s >= '0' && *s <= '9') {
		if (w == 9)
			return -1;
		x = x * 10 + (*s - '0');
		s++;
		w++;
	}
	if (w == 0)
		return -1;
	*p = s;
	*v = x;
	*width = w;
	return 0;
}

/*
 * Expand one host expression (no top-level commas): `prefix` is what came
 * before, `s` the rest.  Recursive over bracket groups, so
 * rack[1-2]-n[1-2] gives all four combinations in order.
 */
static int expand_one(const char *prefix, const char *s, const char *end, struct hosts *h,
		      const char *list, struct srt_error *err)
{
	const char *open = memchr(s, '[', (size_t)(end - s));
	const char *close;
	const char *p;
	struct srt_buf pre;
	int rc = 0;

	if (!open) {
		if (memchr(s, ']', (size_t)(end - s)))
			return srt_error_set(err, "host list '%s': ']' without '['", list);
		if (h->n >= HOSTLIST_MAX)
			return srt_error_set(err, "host list '%s': more than %d hosts", list,
					     HOSTLIST_MAX);
		hosts_push(h, srt_xasprintf("%s%.*s", prefix, (int)(end - s), s));
		return 0;
	}
	close = memchr(open, ']', (size_t)(end - open));
	if (!close)
		return srt_error_set(err, "host list '%s': '[' without ']'", list);
	srt_buf_init(&pre);
	p = open + 1;
	while (p < close) {
		long lo, hi;
		int wlo, whi;

		if (parse_index(&p, &lo, &wlo) != 0) {
			rc = srt_error_set(err, "host list '%s': expected a number inside [...]",
					   list);
			goto out;
		}
		hi = lo;
		whi = wlo;
		if (*p == '-') {
			p++;
			if (parse_index(&p, &hi, &whi) != 0 || hi < lo) {
				rc = srt_error_set(err, "host list '%s': bad range inside [...]",
						   list);
				goto out;
			}
		}
		if (p < close && *p != ',') {
			rc = srt_error_set(err, "host list '%s': unexpected '%c' inside [...]",
					   list, *p);
			goto out;
		}
		if (*p == ',')
			p++;
		if (hi - lo >= HOSTLIST_MAX || h->n + (size_t)(hi - lo) >= HOSTLIST_MAX) {
			rc = srt_error_set(err, "host list '%s': more than %d hosts", list,
					   HOSTLIST_MAX);
			goto out;
		}
		for (long i = lo; i <= hi; i++) {
			/* Zero padding follows the lower bound ("01-10" -> 01 ... 10). */
			srt_buf_reset(&pre);
			srt_buf_printf(&pre, "%s%.*s%0*ld", prefix, (int)(open - s), s, wlo, i);
			rc = expand_one(pre.data, close + 1, end, h, list, err);
			if (rc != 0)
				goto out;
		}
	}
out:
	srt_buf_release(&pre);
	return rc;
}

int srt_slurm_hostlist_expand(const char *list, char ***hosts, size_t *n, struct srt_error *err)
{
	struct hosts h = { 0 };
	const char *s, *e;
	int rc = 0;

	*hosts = NULL;
	*n = 0;
	if (!list)
		return 0;
	s = list;
	while (*s) {
		int depth = 0;

		/* A top-level comma separates expressions; commas inside [...] do not. */
		for (e = s; *e && !(*e == ',' && depth == 0); e++) {
			if (*e == '[')
				depth++;
			else if (*e == ']')
				depth--;
			if (depth < 0 || depth > 1) {
				rc = srt_error_set(err, "host list '%s': unbalanced brackets",
						   list);
				goto out;
			}
		}
		if (e == s) {
			rc = srt_error_set(err, "host list '%s': empty host name", list);
			goto out;
		}
		rc = expand_one("", s, e, &h, list, err);
		if (rc != 0)
			goto out;
		s = *e ? e + 1 : e;
	}
out:
	if (rc != 0) {
		srt_slurm_hostlist_free(h.v, h.n);
		return SRT_SLURM_EINVAL;
	}
	*hosts = h.v;
	*n = h.n;
	return 0;
}

void srt_slurm_hostlist_free(char **hosts, size_t n)
{
	if (!hosts)
		return;
	for (size_t i = 0; i < n; i++)
		free(hosts[i]);
	free(hosts);
}
