/*
 * results/results.c: the Pareto frontier and the point-by-point comparison
 * (results/results.h).
 */
#include "results/results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

bool srt_results_metric(const char *name, size_t *index, enum srt_metric_better *better)
{
	static const char *const higher[] = { "completed",	    "request_throughput",
					      "output_throughput",  "total_token_throughput",
					      "total_input_tokens", "total_output_tokens" };

	for (size_t i = 0; i < SRT_POINT_NMETRICS; i++) {
		if (strcmp(srt_point_metric_names[i], name))
			continue;
		*index = i;
		*better = SRT_BETTER_LOWER;
		for (size_t k = 0; k < sizeof(higher) / sizeof(*higher); k++)
			if (!strcmp(higher[k], name))
				*better = SRT_BETTER_HIGHER;
		return true;
	}
	return false;
}

size_t srt_results_column(const char *name)
{
	size_t i = 0;
	enum srt_metric_better better;

	return srt_results_metric(name, &i, &better) ? i : 0;
}

struct xy {
	double x, y;
	size_t i;
};

/* By x descending, then y descending: a point is dominated by one before it, or by none. */
static int xy_cmp(const void *pa, const void *pb)
{
	const struct xy *a = pa, *b = pb;

	if (a->x != b->x)
		return a->x < b->x ? 1 : -1;
	if (a->y != b->y)
		return a->y < b->y ? 1 : -1;
	return 0;
}

size_t srt_results_frontier(const double *x, const double *y, size_t n, bool *on)
{
	struct xy *v = srt_xcalloc(n ? n : 1, sizeof(*v));
	size_t m = 0, k = 0, count = 0;
	double best = -INFINITY; /* the greatest y of the points with a greater x */

	for (size_t i = 0; i < n; i++) {
		on[i] = false;
		if (!isnan(x[i]) && !isnan(y[i]))
			v[m++] = (struct xy){ x[i], y[i], i };
	}
	qsort(v, m, sizeof(*v), xy_cmp);
	while (k < m) {
		/* One x at a time: only its greatest y can be on it, if no greater x reaches it. */
		double gx = v[k].x, gy = v[k].y;

		for (; k < m && v[k].x == gx; k++)
			if (v[k].y == gy && gy > best) {
				on[v[k].i] = true;
				count++;
			}
		if (gy > best)
			best = gy;
	}
	free(v);
	return count;
}

static int in_cmp(const void *pa, const void *pb)
{
	const struct srt_cmp_in *const *a = pa, *const *b = pb;
	int c = strcmp((*a)->key, (*b)->key);

	if (c)
		return c;
	return (*a)->row < (*b)->row ? -1 : (*a)->row > (*b)->row;
}

/* The known points of one side, sorted by key, each key once (its first row). */
static size_t sorted_side(const struct srt_cmp_in *in, size_t n, const struct srt_cmp_in ***out)
{
	const struct srt_cmp_in **v = srt_xcalloc(n ? n : 1, sizeof(*v));
	size_t m = 0, k = 0;

	for (size_t i = 0; i < n; i++)
		if (!isnan(in[i].value))
			v[m++] = &in[i];
	qsort(v, m, sizeof(*v), in_cmp);
	for (size_t i = 0; i < m; i++)
		if (!k || strcmp(v[k - 1]->key, v[i]->key))
			v[k++] = v[i];
	*out = v;
	return k;
}

size_t srt_results_compare(const struct srt_cmp_in *a, size_t na, const struct srt_cmp_in *b,
			   size_t nb, enum srt_metric_better better, double threshold_pct,
			   struct srt_cmp_row **rows, size_t *regressions)
{
	const struct srt_cmp_in **sa, **sb;
	size_t ma = sorted_side(a, na, &sa), mb = sorted_side(b, nb, &sb);
	size_t i = 0, j = 0, n = 0;
	struct srt_cmp_row *out = srt_xcalloc(ma ? ma : 1, sizeof(*out));

	*regressions = 0;
	while (i < ma && j < mb) {
		int c = strcmp(sa[i]->key, sb[j]->key);
		struct srt_cmp_row *r;
		double worse;

		if (c < 0) {
			i++;
			continue;
		}
		if (c > 0) {
			j++;
			continue;
		}
		r = &out[n++];
		r->a = sa[i]->row;
		r->b = sb[j]->row;
		r->va = sa[i]->value;
		r->vb = sb[j]->value;
		if (r->va == r->vb)
			r->delta = 0;
		else if (r->va == 0)
			r->delta = r->vb > 0 ? INFINITY : -INFINITY;
		else
			r->delta = (r->vb - r->va) / fabs(r->va) * 100.0;
		worse = better == SRT_BETTER_HIGHER ? -r->delta : r->delta;
		r->verdict = worse > threshold_pct  ? SRT_CMP_REGRESSION :
			     -worse > threshold_pct ? SRT_CMP_BETTER :
						      SRT_CMP_SAME;
		*regressions += r->verdict == SRT_CMP_REGRESSION;
		i++;
		j++;
	}
	free(sa);
	free(sb);
	*rows = out;
	return n;
}
