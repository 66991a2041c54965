/*
 * bench/bench_scale.c: how compile and render time grow with a recipe's size.
 *
 *   bench_scale [ROUNDS]
 *
 * Generates recipes in memory with N environment variables (N in
 * `environment` and the same N names again in roles.prefill.env, so every
 * layer of a worker's env looks each name up), N engine args
 * (roles.prefill.args) and N services (generic, each with its own readiness
 * port), for N = 1k, 10k and 100k (services: 100 and 1000, the most a
 * recipe may declare), and prints the best of ROUNDS (default 3) times of
 * srt_compile_bytes() (parse + validate) and of srt_plan_build() + plan.json's
 * text + job.sh (what dry-run and the controller do next).  Linear
 * code shows ~10x per row; quadratic code ~100x.  Prints figures only: it
 * asserts no time.  Exits 1 when a generated recipe does not compile.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "recipe/cluster.h"
#include "recipe/compile.h"
#include "recipe/render.h"
#include "recipe/script.h"
#include "util/buf.h"
#include "util/diag.h"

enum shape {
	ENV,
	ARGS,
	SERVICES
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void gen(struct srt_buf *b, enum shape s, size_t n)
{
	srt_buf_puts(b, "name: scale\nengine: sglang\nroles:\n  agg:\n    args:\n");
	if (s != ARGS)
		srt_buf_puts(b, "      tp: 4\n");
	for (size_t i = 0; s == ARGS && i < n; i++)
		srt_buf_printf(b, "      flag-%zu: %zu\n", i, i);
	if (s == ENV) {
		srt_buf_puts(b, "    env:\n");
		for (size_t i = 0; i < n; i++)
			srt_buf_printf(b, "      VAR_%zu: role-%zu\n", i, i);
		srt_buf_puts(b, "environment:\n");
		for (size_t i = 0; i < n; i++)
			srt_buf_printf(b, "  VAR_%zu: all-%zu\n", i, i);
	}
	if (s == SERVICES) {
		srt_buf_puts(b, "services:\n");
		for (size_t i = 0; i < n; i++)
			srt_buf_printf(b,
				       "  - name: svc-%zu\n    command: [sleep, infinity]\n"
				       "    readiness: {port: %zu}\n",
				       i, 10000 + i);
	}
}

/* One measurement: the best of `rounds` runs. */
static int measure(enum shape s, size_t n, int rounds, const struct srt_cluster *cl)
{
	static const char *const what[] = { "env keys", "args", "services" };
	double best_c = 1e300, best_r = 1e300;
	struct srt_buf b;
	int rc = 0;

	srt_buf_init(&b);
	gen(&b, s, n);
	for (int r = 0; r < rounds && !rc; r++) {
		struct srt_compiled c = { 0 };
		struct srt_diags d;
		struct srt_plan *p = NULL;
		char *script = NULL;
		double t0, t1, t2;

		srt_diags_init(&d);
		t0 = now_ms();
		if (srt_compile_bytes(b.data, b.len, "scale.yaml", cl, &c, &d) == 0 && c.n == 1)
			p = srt_plan_build(c.recipes[0], cl, &d);
		t1 = now_ms();
		if (p) {
			json_t *pj = srt_runplan_to_json(&p->run);
			char *text = json_dumps(pj, JSON_INDENT(1));

			script = text ? srt_script_render_agent(p,
								&(struct srt_script_agent_opts){
									.job_name = "scale-1-1",
									.run_dir =
										"/runs/scale-1-1" },
								&d) :
					NULL;
			free(text);
			json_decref(pj);
		}
		t2 = now_ms();
		if (!script) {
			fprintf(stderr, "bench_scale: %zu %s does not compile:\n", n, what[s]);
			srt_diags_print(&d, stderr);
			rc = 1;
		}
		free(script);
		srt_plan_free(p);
		srt_compiled_release(&c);
		srt_diags_release(&d);
		if (t1 - t0 < best_c)
			best_c = t1 - t0;
		if (t2 - t1 < best_r)
			best_r = t2 - t1;
	}
	if (!rc)
		printf("  %7zu %-8s %9zu bytes  compile+plan %9.1f ms  script %8.1f ms\n", n,
		       what[s], b.len, best_c, best_r);
	srt_buf_release(&b);
	return rc;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 1000, 10000, 100000 };
	static const size_t svc_sizes[] = { 100, 1000 };
	struct srt_cluster cl;
	long rounds = 3;
	char *end;

	if (argc > 2 || (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))) {
		fprintf(stderr, "usage: bench_scale [ROUNDS]\n");
		return 2;
	}
	if (argc == 2) {
		errno = 0;
		rounds = strtol(argv[1], &end, 10);
		if (errno || *end || rounds < 1 || rounds > 1000) {
			fprintf(stderr, "bench_scale: bad round count '%s' (1..1000)\n", argv[1]);
			return 2;
		}
	}
	srt_cluster_defaults(&cl);
	printf("bench_scale: best of %ld rounds (built-in cluster defaults)\n", rounds);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (measure(ENV, sizes[i], (int)rounds, &cl))
			return 1;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (measure(ARGS, sizes[i], (int)rounds, &cl))
			return 1;
	for (size_t i = 0; i < sizeof(svc_sizes) / sizeof(svc_sizes[0]); i++)
		if (measure(SERVICES, svc_sizes[i], (int)rounds, &cl))
			return 1;
	return 0;
}
