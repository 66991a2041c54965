/*
 * agent/ladder.c: the pure parts of a campaign run's ladder of load points:
 * how long one attempt may take, where its result file goes, and which
 * model the plan's workers serve (the benchmark's default model and
 * tokenizer).  The effects (spawning the tool, reading its result,
 * reporting) are in agent/agent.c.
 */
#include "agent/agent.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "runplan/points.h"
#include "util/buf.h"

int64_t srt_agent_point_timeout_ms(const struct srt_loadgen_point *p)
{
	double per = (double)p->isl / 1000.0 + (double)p->osl * 0.2;
	double s = 600.0 + (double)(p->prompts + p->warmup) * per;

	return s > 1e12 ? (int64_t)1e15 : (int64_t)(s * 1000.0);
}

char *srt_agent_point_file(int64_t seq, const char *id, int64_t attempt)
{
	return srt_xasprintf("%s/%04" PRId64 "-%.12s-a%" PRId64 ".json", SRT_RUNDIR_POINTS_DIR, seq,
			     id, attempt);
}

void srt_agent_plan_model(const struct srt_runplan *p, const char **served, const char **path)
{
	*served = *path = NULL;
	for (size_t i = 0; i < p->nprocs; i++) {
		const struct srt_runplan_proc *pr = &p->procs[i];

		if (pr->kind != SRT_PROC_WORKER)
			continue;
		for (size_t k = 0; k + 1 < pr->argc; k++) {
			const char *w = pr->argv[k], *v = pr->argv[k + 1];

			if (!strcmp(w, "--served-model-name") && !*served)
				*served = v;
			else if ((!strcmp(w, "--model-path") || !strcmp(w, "--model")) && !*path)
				*path = v;
			else if (!strcmp(w, "serve") && v[0] != '-' && !*path)
				*path = v;
		}
		return;
	}
}

static int id_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

size_t srt_agent_points_drop(struct srt_points_file *f, char (*done)[65], size_t ndone)
{
	size_t k = 0;

	if (!ndone)
		return 0;
	qsort(done, ndone, sizeof(*done), id_cmp);
	for (size_t i = 0; i < f->npoints; i++)
		if (!bsearch(f->points[i].id, done, ndone, sizeof(*done), id_cmp))
			f->points[k++] = f->points[i];
	k = f->npoints - k;
	f->npoints -= k;
	return k;
}
