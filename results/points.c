/*
 * results/points.c: what a campaign's point rows say beyond their columns
 * (results/results.h): a point's GPUs and per-user / per-GPU rates, and
 * which points are on the Pareto frontier of their campaign and shape
 * (`get points --frontier`, `report`, the status page's report).
 */
#include "recipe/model.h"
#include "results/results.h"
#include "store/store.h"
#include "util/buf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int64_t srt_results_point_gpus(const struct srt_point_row *r)
{
	return r->nodes * (r->gpus_per_node > 0 ? r->gpus_per_node : SRT_DEFAULT_GPUS_PER_NODE);
}

void srt_results_point_rates(const struct srt_point_row *r, double *per_user, double *per_gpu)
{
	double tpot = r->metrics[srt_results_column("median_tpot_ms")];
	int64_t gpus = srt_results_point_gpus(r);

	*per_user = tpot > 0 ? 1000.0 / tpot : NAN;
	*per_gpu = gpus > 0 ? r->metrics[srt_results_column("output_throughput")] / (double)gpus :
			      NAN;
}

/* A row in the grouping: by campaign, shape, then listing order. */
struct grouped {
	const struct srt_point_row *r;
	size_t i;
};

static int group_cmp(const void *pa, const void *pb)
{
	const struct grouped *a = pa, *b = pb;
	int c = strcmp(a->r->campaign, b->r->campaign);

	if (c)
		return c;
	if (a->r->isl != b->r->isl)
		return a->r->isl < b->r->isl ? -1 : 1;
	if (a->r->osl != b->r->osl)
		return a->r->osl < b->r->osl ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

size_t srt_results_points_frontier(const struct srt_point_row *rows, size_t n, bool *on)
{
	struct grouped *idx = srt_xcalloc(n + 1, sizeof(*idx));
	double *x = srt_xcalloc(n + 1, sizeof(*x)), *y = srt_xcalloc(n + 1, sizeof(*y));
	bool *gon = srt_xcalloc(n + 1, sizeof(*gon));
	size_t count = 0;

	for (size_t i = 0; i < n; i++)
		idx[i] = (struct grouped){ &rows[i], i };
	qsort(idx, n, sizeof(*idx), group_cmp);
	for (size_t g = 0, e; g < n; g = e) {
		const struct srt_point_row *first = idx[g].r;

		for (e = g; e < n; e++) {
			const struct srt_point_row *r = idx[e].r;

			if (strcmp(r->campaign, first->campaign) || r->isl != first->isl ||
			    r->osl != first->osl)
				break;
			if (strcmp(r->state, "done"))
				x[e - g] = y[e - g] = NAN;
			else
				srt_results_point_rates(r, &x[e - g], &y[e - g]);
		}
		count += srt_results_frontier(x, y, e - g, gon);
		for (size_t k = g; k < e; k++)
			on[idx[k].i] = gon[k - g];
	}
	free(idx);
	free(x);
	free(y);
	free(gon);
	return count;
}
