/*
 * tests/unit/test_results.c: the Pareto frontier and the comparison of two
 * campaigns (results/results.h) on inputs with known answers, and the
 * frontier against a brute-force O(n^2) check on generated points.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_metric(void **state)
{
	size_t i;
	enum srt_metric_better b;

	(void)state;
	assert_true(srt_results_metric("output_throughput", &i, &b));
	assert_string_equal(srt_point_metric_names[i], "output_throughput");
	assert_int_equal(b, SRT_BETTER_HIGHER);
	assert_true(srt_results_metric("p99_ttft_ms", &i, &b));
	assert_int_equal(b, SRT_BETTER_LOWER);
	assert_true(srt_results_metric("errors", &i, &b));
	assert_int_equal(b, SRT_BETTER_LOWER);
	assert_false(srt_results_metric("ttft", &i, &b));
}

/* Known answers: dominated points, equal points, equal x, NaN. */
static void test_frontier_known(void **state)
{
	/*      0    1    2    3    4    5    6    7    8 */
	double x[] = { 1, 2, 3, 2, 3, 0.5, 3, NAN, 4 };
	double y[] = { 9, 8, 5, 7, 5, 9, 4, 100, 1 };
	bool want[] = { true, true, true, false, true, false, false, false, true };
	bool on[N(x)];

	(void)state;
	assert_int_equal(srt_results_frontier(x, y, N(x), on), 5);
	for (size_t i = 0; i < N(x); i++)
		assert_int_equal(on[i], want[i]);
	assert_int_equal(srt_results_frontier(x, y, 0, on), 0);
}

/* Generated points (a fixed seed, coarse values so ties happen) against the definition. */
static void test_frontier_brute_force(void **state)
{
	enum {
		M = 2000
	};
	double *x = calloc(M, sizeof(*x)), *y = calloc(M, sizeof(*y));
	bool *on = calloc(M, sizeof(*on));
	unsigned seed = 12345;

	(void)state;
	for (size_t i = 0; i < M; i++) {
		seed = seed * 1103515245u + 12345u;
		x[i] = (double)((seed >> 8) % 200);
		seed = seed * 1103515245u + 12345u;
		y[i] = (double)((seed >> 8) % 200);
	}
	srt_results_frontier(x, y, M, on);
	for (size_t i = 0; i < M; i++) {
		bool dominated = false;

		for (size_t k = 0; k < M && !dominated; k++)
			dominated = x[k] >= x[i] && y[k] >= y[i] && (x[k] > x[i] || y[k] > y[i]);
		assert_int_equal(on[i], !dominated);
	}
	free(x);
	free(y);
	free(on);
}

static void test_compare(void **state)
{
	const struct srt_cmp_in a[] = {
		{ "c1", 100, 0 }, { "c2", 100, 1 }, { "c3", 100, 2 },
		{ "c4", NAN, 3 }, { "c5", 0, 4 },   { "only-a", 1, 5 },
	};
	const struct srt_cmp_in
		b
			[] = {
				{ "c3", 104, 0 }, { "c2", 90, 1 }, { "c1", 110, 2 },
				{ "c4", 50, 3 },  { "c5", 3, 4 },  { "only-b", 1, 5 },
				{ "c1", 1, 6 }, /* a repeated key: the first counts */
			};
	struct srt_cmp_row *rows;
	size_t reg, n;

	(void)state;
	/* throughput: higher is better; 5% threshold */
	n = srt_results_compare(a, N(a), b, N(b), SRT_BETTER_HIGHER, 5, &rows, &reg);
	assert_int_equal(n, 4); /* c1 c2 c3 c5: c4 unknown in a, only-a/only-b unmatched */
	assert_int_equal(reg, 1);
	assert_int_equal(rows[0].a, 0);
	assert_int_equal(rows[0].b, 2);
	assert_true(fabs(rows[0].delta - 10) < 1e-9);
	assert_int_equal(rows[0].verdict, SRT_CMP_BETTER);
	assert_int_equal(rows[1].verdict, SRT_CMP_REGRESSION);	/* c2: -10% */
	assert_int_equal(rows[2].verdict, SRT_CMP_SAME);	/* c3: +4% */
	assert_true(isinf(rows[3].delta) && rows[3].delta > 0); /* c5: from 0 */
	assert_int_equal(rows[3].verdict, SRT_CMP_BETTER);
	free(rows);
	/* a latency: lower is better, the same numbers judged the other way */
	n = srt_results_compare(a, N(a), b, N(b), SRT_BETTER_LOWER, 5, &rows, &reg);
	assert_int_equal(reg, 2); /* c1 +10%, c5 from 0 */
	assert_int_equal(rows[1].verdict, SRT_CMP_BETTER);
	free(rows);
	/* exactly at the threshold is not beyond it */
	n = srt_results_compare(a, 1, (const struct srt_cmp_in[]){ { "c1", 95, 0 } }, 1,
				SRT_BETTER_HIGHER, 5, &rows, &reg);
	assert_int_equal(n, 1);
	assert_int_equal(reg, 0);
	free(rows);
	/* no overlap */
	n = srt_results_compare(a, N(a), (const struct srt_cmp_in[]){ { "zz", 1, 0 } }, 1,
				SRT_BETTER_HIGHER, 5, &rows, &reg);
	assert_int_equal(n, 0);
	free(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metric),
		cmocka_unit_test(test_frontier_known),
		cmocka_unit_test(test_frontier_brute_force),
		cmocka_unit_test(test_compare),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
