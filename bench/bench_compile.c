/*
 * bench/bench_compile.c: time the recipe compiler in process.
 *
 *   bench_compile [FILE] [ITERATIONS]
 *
 * Reads FILE (default bench/data/large-recipe.yaml) once, then runs
 * srt_compile_bytes() on the same bytes ITERATIONS times (default 1000) with
 * the built-in cluster defaults, releasing everything each time, and prints
 * the mean, median, p95 and minimum microseconds per compile.  Exits 1 when
 * the file does not compile cleanly (a benchmark of the error path is not
 * what we want to measure), 2 on usage or I/O errors.  Prints figures only:
 * nothing here asserts a time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "recipe/cluster.h"
#include "recipe/compile.h"
#include "util/diag.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = NULL;
	char *data = NULL, *p;
	size_t cap = 0, n = 0, got;

	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "bench_compile: cannot open '%s': %s\n", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			p = realloc(data, cap + 1);
			if (!p) {
				free(data);
				data = NULL;
				goto out;
			}
			data = p;
		}
		got = fread(data + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "bench_compile: cannot read '%s'\n", path);
		free(data);
		data = NULL;
		goto out;
	}
	data[n] = '\0';
	*len = n;
out:
	fclose(f);
	return data;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : SRT_BENCH_DEFAULT_FILE;
	long iters = 1000;
	char *data = NULL, *end;
	double *t = NULL, sum = 0;
	size_t len = 0, nrecipes = 0;
	struct srt_cluster cluster;
	int rc = 2;

	if (argc > 3 || (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))) {
		fprintf(stderr, "usage: bench_compile [FILE] [ITERATIONS]\n");
		return 2;
	}
	if (argc > 2) {
		errno = 0;
		iters = strtol(argv[2], &end, 10);
		if (errno || *end || iters < 1 || iters > 10000000) {
			fprintf(stderr, "bench_compile: bad iteration count '%s'\n", argv[2]);
			return 2;
		}
	}
	data = read_file(path, &len);
	if (!data)
		goto out;
	t = calloc((size_t)iters, sizeof(*t));
	if (!t)
		goto out;
	srt_cluster_defaults(&cluster);

	for (long i = -10; i < iters; i++) { /* 10 warm-up rounds, not counted */
		struct srt_compiled c = { 0 };
		struct srt_diags d;
		size_t nerr;
		double t0, t1;

		srt_diags_init(&d);
		t0 = now_us();
		nerr = srt_compile_bytes(data, len, path, &cluster, &c, &d);
		nrecipes = c.n;
		srt_compiled_release(&c);
		t1 = now_us();
		if (nerr) {
			fprintf(stderr, "bench_compile: '%s' does not compile cleanly:\n", path);
			srt_diags_print(&d, stderr);
			srt_diags_release(&d);
			rc = 1;
			goto out;
		}
		srt_diags_release(&d);
		if (i >= 0)
			t[i] = t1 - t0;
	}

	for (long i = 0; i < iters; i++)
		sum += t[i];
	qsort(t, (size_t)iters, sizeof(*t), cmp_double);
	printf("bench_compile: %s (%zu bytes, %zu recipe%s), %ld compiles\n", path, len, nrecipes,
	       nrecipes == 1 ? "" : "s", iters);
	printf("  mean %.1f us  median %.1f us  p95 %.1f us  min %.1f us per compile\n",
	       sum / (double)iters, t[iters / 2], t[(size_t)((double)iters * 0.95)], t[0]);
	rc = 0;
out:
	free(t);
	free(data);
	return rc;
}
