/*
 * bench/controller/bench_history.c: give a state database a history.
 *
 *   bench_history DB TEMPLATE N
 *
 * Adds N recipes "hist-<i>", each with the spec of recipe TEMPLATE (applied
 * beforehand with `srtctl apply`) and one run that has finished (Succeeded,
 * 3 events), the way a long benchmark campaign leaves its database, then
 * deletes TEMPLATE (it never ran).  The controller benchmark uses it to
 * measure passes over 1,000 runs without running 1,000 jobs.  Prints what it
 * added and how long it took.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/clock.h"

int main(int argc, char **argv)
{
	struct srt_store *s = NULL;
	struct srt_recipe_row tpl = { 0 };
	struct srt_error err;
	int64_t t0 = srt_monotonic_ms();
	long n;
	int rc = 1;

	if (argc != 4 || (n = strtol(argv[3], NULL, 10)) < 1) {
		fprintf(stderr, "usage: bench_history DB TEMPLATE N\n");
		return 2;
	}
	if (srt_store_open(&s, argv[1], 0, NULL, &err) != 0 ||
	    srt_store_recipe_get(s, argv[2], &tpl, &err) != 1) {
		fprintf(stderr, "bench_history: %s\n", err.msg[0] ? err.msg : "no template recipe");
		goto out;
	}
	for (long i = 0; i < n; i++) {
		struct srt_run_row run = { 0 };
		char name[64];
		int r;

		snprintf(name, sizeof(name), "hist-%ld", i);
		if (srt_store_begin(s, &err) != 0)
			goto out;
		r = srt_store_recipe_apply(s, name, tpl.spec, "bench", NULL, NULL, NULL, &err);
		if (r == 0)
			r = srt_store_run_create(s, name, 1, &run, &err);
		if (r == 0)
			r = srt_store_run_update(s, run.name, "Submitted", 100000 + i, "PENDING",
						 "submitted", &err);
		if (r == 0)
			r = srt_store_run_update(s, run.name, "Ready", -1, "RUNNING", "ready", &err);
		if (r == 0)
			r = srt_store_run_update(s, run.name, "Succeeded", -1, "COMPLETED",
						 "the benchmark finished", &err);
		for (int k = 0; r == 0 && k < 3; k++)
			r = srt_store_event(s, &err, "Normal", "BenchHistory", "run", run.name,
					    "controller", "event %d", k);
		srt_run_row_release(&run);
		if (r != 0) {
			srt_store_rollback(s);
			fprintf(stderr, "bench_history: %s\n", err.msg);
			goto out;
		}
		if (srt_store_commit(s, &err) != 0)
			goto out;
	}
	if (srt_store_recipe_delete(s, argv[2], &err) < 0) {
		fprintf(stderr, "bench_history: %s\n", err.msg);
		goto out;
	}
	printf("bench_history: %ld finished runs added in %.1f s\n", n,
	       (double)(srt_monotonic_ms() - t0) / 1000.0);
	rc = 0;
out:
	srt_recipe_row_release(&tpl);
	srt_store_close(s);
	return rc;
}
