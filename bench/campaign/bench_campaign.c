/*
 * bench/campaign/bench_campaign.c: the controller's pass with a 10,000-point
 * campaign, and the ingest of point results (issue 15's benchmarks).
 *
 *   build-rel/bench/campaign/bench_campaign [-p PASSES] [-d DIR] [--setup-only]
 *
 * Builds, in DIR (default: a new /tmp/srt-bench-camp.XXXXXX, removed at the
 * end unless -d names it), a state database with one campaign "bench" of
 * 10,000 points over 1,000 deployments (10 points each), expanded by
 * recipe/campaign.h from a real Campaign document (real child recipes, real
 * sha256 point ids) and recorded with srt_store_campaign_apply():
 *   - deployments 1-100 active: child recipe applied
 *     (srt_store_deployment_activate), a live run (Ready, its job RUNNING in
 *     the in-memory SLURM, slurm/fake.h), its points given to the run and
 *     the first one running;
 *   - deployments 101-600 finished: two runs each (a NODE_FAIL, then a
 *     success), 1,000 finished runs in all, their 5,000 points done with
 *     metrics and a raw result, the deployment retired;
 *   - deployments 601-1,000 pending (maxConcurrentJobs 100 holds them back).
 * The database is built in a child process, so the figures below are those
 * of a process that only runs the controller.
 *
 * Then, against slurm/fake.h (its listing: the 100 live jobs), it prints:
 *   1. per controller pass once nothing changes (PASSES passes, default 20):
 *      CPU (getrusage, the pass's own stats->cpu_usec) median and max, wall,
 *      peak RSS; goal < 10 ms CPU and < 20 MiB;
 *   2. the campaign step alone (srt_ctl_campaigns_pass, controller/internal.h,
 *      over the recipes and runs the pass lists) and, inside it, the store
 *      query srt_store_campaign_world();
 *   3. result ingest: 900 PointStarted + PointFinished reports (9 points of
 *      each live run) written as the agent writes them (runplan/points.h
 *      srt_point_report_json(), runplan/rundir.h events append, a raw
 *      result file with its sha256 under points/), then the passes that
 *      ingest them: reports per second, CPU per report.
 * With --setup-only it builds the database (DIR/state.db) and exits: that is
 * how bench/campaign/bench_get_points.sh gets its 10,000 rows.
 * It prints figures; it asserts nothing but that the setup worked.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "controller/controller.h"
#include "controller/internal.h"
#include "recipe/campaign.h"
#include "recipe/cluster.h"
#include "recipe/yaml.h"
#include "reconcilers/runs.h"
#include "runplan/points.h"
#include "runplan/rundir.h"
#include "slurm/fake.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/sha256.h"

#define NACTIVE 100
#define NFINISHED 500 /* deployments with two finished runs each */
#define NREPORTS_PER_RUN 9

static const char CAMPAIGN[] = "bench";

static void die(const char *what, const struct srt_error *err)
{
	fprintf(stderr, "bench_campaign: %s: %s\n", what, err ? err->msg : strerror(errno));
	exit(1);
}

static int64_t cpu_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t unix_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static double median_ms(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	return n % 2 ? v[n / 2] / 1e3 : (v[n / 2 - 1] + v[n / 2]) / 2e3;
}

static double min_ms(const int64_t *v, size_t n)
{
	int64_t m = INT64_MAX;

	for (size_t i = 0; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m / 1e3;
}

static double max_ms(const int64_t *v, size_t n)
{
	int64_t m = 0;

	for (size_t i = 0; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return m / 1e3;
}

static double peak_rss_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024.0;
}

/* ---- the database (in a child process) ---- */

/* The Campaign document: 10 x 100 env values = 1,000 deployments, 10 concurrencies. */
static char *campaign_yaml(void)
{
	struct srt_buf b;

	srt_buf_init(&b);
	srt_buf_printf(&b,
		       "kind: Campaign\nname: %s\n"
		       "template:\n"
		       "  engine: sglang\n"
		       "  model: {path: /models/qwen3-32b, container: 'sglang:latest'}\n"
		       "  slurm: {max_attempts: 3}\n"
		       "  roles:\n"
		       "    agg: {args: {tensor-parallel-size: 4}, env: {BENCH_A: x, BENCH_B: x}}\n"
		       "deployments:\n"
		       "  grid:\n"
		       "    roles.agg.env.BENCH_A: [",
		       CAMPAIGN);
	for (int i = 0; i < 10; i++)
		srt_buf_printf(&b, "%s'a%d'", i ? ", " : "", i);
	srt_buf_printf(&b, "]\n    roles.agg.env.BENCH_B: [");
	for (int i = 0; i < 100; i++)
		srt_buf_printf(&b, "%s'b%d'", i ? ", " : "", i);
	srt_buf_printf(&b,
		       "]\n"
		       "load:\n"
		       "  shapes: [{isl: 1024, osl: 128}]\n"
		       "  concurrency: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]\n"
		       "benchmark: {tool: vllm-bench}\n"
		       "slo: {ttftP99Ms: 2000}\n"
		       "policy: {maxConcurrentJobs: %d}\n",
		       NACTIVE);
	return srt_buf_detach(&b);
}

/* A vllm `bench serve` result (without --save-detailed) for concurrency c. */
static char *raw_result(int64_t c, int64_t prompts, double m[SRT_POINT_NMETRICS])
{
	for (int k = 0; k < SRT_POINT_NMETRICS; k++)
		m[k] = NAN;
	m[0] = (double)prompts;	       /* completed */
	m[1] = 12.5 + (double)c / 8;   /* duration_s */
	m[2] = (double)prompts * 1024; /* total_input_tokens */
	m[3] = (double)prompts * 128;  /* total_output_tokens */
	m[4] = (double)prompts / m[1]; /* request_throughput */
	m[5] = m[3] / m[1];	       /* output_throughput */
	m[6] = (m[2] + m[3]) / m[1];   /* total_token_throughput */
	for (int k = 7; k < SRT_POINT_NMETRICS - 1; k++)
		m[k] = 10.0 + k + (double)c / 4;
	m[SRT_POINT_NMETRICS - 1] = 0; /* errors */
	return srt_xasprintf(
		"{\"date\": \"20261202-080000\", \"endpoint_type\": \"openai\", \"backend\": "
		"\"openai\", \"label\": null, \"model_id\": \"/models/qwen3-32b\", "
		"\"tokenizer_id\": \"/models/qwen3-32b\", \"num_prompts\": %lld, \"request_rate\": "
		"\"inf\", \"burstiness\": 1.0, \"max_concurrency\": %lld, \"duration\": %.6f, "
		"\"completed\": %lld, \"failed\": 0, \"total_input_tokens\": %.0f, "
		"\"total_output_tokens\": %.0f, \"request_throughput\": %.6f, "
		"\"request_goodput\": null, \"output_throughput\": %.6f, "
		"\"max_output_tokens_per_s\": %.1f, \"max_concurrent_requests\": %lld, "
		"\"total_token_throughput\": %.6f, \"mean_ttft_ms\": %.6f, \"median_ttft_ms\": "
		"%.6f, \"std_ttft_ms\": 1.5, \"p99_ttft_ms\": %.6f, \"mean_tpot_ms\": %.6f, "
		"\"median_tpot_ms\": %.6f, \"std_tpot_ms\": 0.4, \"p99_tpot_ms\": %.6f, "
		"\"mean_itl_ms\": %.6f, \"median_itl_ms\": %.6f, \"std_itl_ms\": 0.6, "
		"\"p99_itl_ms\": %.6f, \"mean_e2el_ms\": %.6f, \"median_e2el_ms\": %.6f, "
		"\"std_e2el_ms\": 20.0, \"p99_e2el_ms\": %.6f}\n",
		(long long)prompts, (long long)c, m[1], (long long)prompts, m[2], m[3], m[4], m[5],
		m[5] * 1.5, (long long)c, m[6], m[7], m[8], m[9], m[10], m[11], m[12], m[13], m[14],
		m[15], m[16], m[17], m[18]);
}

/* Give deployment `dep` a run with attempt `attempt` in phase Ready (no job yet). */
static char *new_run(struct srt_store *s, const char *dep, int64_t attempt)
{
	struct srt_run_row run = { 0 };
	struct srt_error err;
	char *name;

	if (srt_store_run_create(s, dep, attempt, &run, &err) != 0 ||
	    srt_store_run_update(s, run.name, "Submitted", -1, "PENDING", "submitted", &err) != 0 ||
	    srt_store_run_update(s, run.name, "Starting", -1, "RUNNING", "starting", &err) != 0 ||
	    srt_store_run_update(s, run.name, "Ready", -1, "RUNNING", "ready", &err) != 0)
		die("a run", &err);
	name = srt_xstrdup(run.name);
	srt_run_row_release(&run);
	return name;
}

/* Activate deployment `dep` (its child recipe applied) and give it its first run. */
static char *activate(struct srt_store *s, const char *dep)
{
	struct srt_error err;

	if (srt_store_deployment_activate(s, dep, "bench", &err) != 0)
		die("activate", &err);
	return new_run(s, dep, 1);
}

static void build_db(const char *db, const char *root)
{
	char *yaml = campaign_yaml();
	struct srt_campaign_plan plan = { 0 };
	struct srt_store_campaign_deployment *ds;
	struct srt_store_campaign_point *ps;
	struct srt_cluster cl;
	struct srt_diags d;
	struct srt_ydoc *doc;
	struct srt_campaign *c;
	struct srt_store *s = NULL;
	struct srt_error err;
	int64_t t0 = srt_monotonic_ms();

	srt_cluster_defaults(&cl);
	srt_diags_init(&d);
	doc = srt_ydoc_parse(yaml, strlen(yaml), "bench.yaml", &d);
	c = doc ? srt_campaign_parse(doc, &d) : NULL;
	if (c && !d.nerrors)
		srt_campaign_expand(c, doc, c->template_node, &cl, &plan, &d);
	if (!c || d.nerrors || plan.npoints != 10000 || plan.ndeployments != 1000) {
		srt_diags_print(&d, stderr);
		fprintf(stderr, "bench_campaign: the campaign did not expand to 10,000 points\n");
		exit(1);
	}
	ds = srt_xcalloc(plan.ndeployments, sizeof(*ds));
	ps = srt_xcalloc(plan.npoints, sizeof(*ps));
	for (size_t i = 0; i < plan.ndeployments; i++)
		ds[i] = (struct srt_store_campaign_deployment){ plan.deployments[i].name,
								plan.deployments[i].axes,
								plan.deployments[i].spec,
								plan.deployments[i].spec_hash,
								plan.deployments[i].nodes };
	for (size_t i = 0; i < plan.npoints; i++) {
		const struct srt_campaign_point *p = &plan.points[i];

		ps[i] = (struct srt_store_campaign_point){
			p->id,		p->deployment, p->seq,	  p->isl,   p->osl,
			p->concurrency, p->prompts,    p->warmup, p->repeat
		};
	}
	if (srt_store_open(&s, db, SRT_STORE_CREATE, NULL, &err) != 0 ||
	    srt_store_begin(s, &err) != 0 ||
	    srt_store_campaign_apply(
		    s,
		    &(struct srt_store_campaign_in){ .name = CAMPAIGN,
						     .spec = plan.spec,
						     .spec_hash = plan.spec_hash,
						     .source_file = "bench.yaml",
						     .source_yaml = yaml,
						     .tool = srt_bench_tool_name(c->tool),
						     .params = plan.bench_params,
						     .deployments = ds,
						     .ndeployments = plan.ndeployments,
						     .points = ps,
						     .npoints = plan.npoints },
		    NULL, NULL, NULL, &err) != 0)
		die("apply", &err);

	/* 500 finished deployments: a NODE_FAIL, then a run that did every point. */
	for (size_t k = 0; k < NFINISHED; k++) {
		const char *dep = plan.deployments[NACTIVE + k].name;
		struct srt_assigned_point *ap = NULL;
		size_t n = 0;
		char *r1, *r2;

		r1 = activate(s, dep);
		if (srt_store_run_update(s, r1, "Failed", 600000 + 2 * (int64_t)k, "NODE_FAIL",
					 "node failure", &err) != 0)
			die("a failed run", &err);
		r2 = new_run(s, dep, 2);
		if (srt_store_run_update(s, r2, NULL, 600001 + 2 * (int64_t)k, NULL, NULL, &err) !=
			    0 ||
		    srt_store_points_assign(s, dep, r2, &ap, &n, &err) != 0)
			die("assign", &err);
		for (size_t i = 0; i < n; i++) {
			double m[SRT_POINT_NMETRICS];
			char *raw = raw_result(ap[i].concurrency, ap[i].prompts, m);
			char hex[65], *path = srt_xasprintf("points/%04lld-%.12s-a1.json",
							    (long long)ap[i].seq, ap[i].point_id);
			struct srt_point_finish f = { .point_id = ap[i].point_id,
						      .seq = ap[i].seq,
						      .state = "done",
						      .attempts = 1,
						      .started_at = srt_store_now(s) - 60000,
						      .finished_at = srt_store_now(s),
						      .raw_path = path,
						      .raw_sha256 = hex,
						      .raw_json = raw,
						      .slo_met = 1 };

			srt_sha256_hex(raw, strlen(raw), hex);
			memcpy(f.metrics, m, sizeof(m));
			if (srt_store_point_started(s, r2, ap[i].point_id, ap[i].seq,
						    srt_store_now(s), &err) < 0 ||
			    srt_store_point_finished(s, r2, &f, &err) < 0)
				die("a point", &err);
			free(raw);
			free(path);
		}
		srt_assigned_points_free(ap, n);
		if (srt_store_run_update(s, r2, "Succeeded", -1, "COMPLETED",
					 "the benchmark finished", &err) != 0 ||
		    srt_store_deployment_retire(s, CAMPAIGN, dep, "every point is finished",
						&err) != 0)
			die("retire", &err);
		free(r1);
		free(r2);
	}

	/* 100 active deployments: a live run each, its points given to it, the first running. */
	for (size_t k = 0; k < NACTIVE; k++) {
		const char *dep = plan.deployments[k].name;
		struct srt_assigned_point *ap = NULL;
		size_t n = 0;
		char *r, *dir;

		r = activate(s, dep);
		dir = srt_xasprintf("%s/%s", root, r);
		if (mkdir(dir, 0700) != 0)
			die(dir, NULL);
		if (srt_store_run_set_details(s, r, dir, false, 0, &err) != 0 ||
		    srt_store_points_assign(s, dep, r, &ap, &n, &err) != 0 ||
		    srt_store_point_started(s, r, ap[0].point_id, ap[0].seq, srt_store_now(s),
					    &err) < 0)
			die("a live run", &err);
		srt_assigned_points_free(ap, n);
		free(dir);
		free(r);
	}
	if (srt_store_commit(s, &err) != 0)
		die("commit", &err);
	srt_store_close(s);
	printf("setup: campaign %s, %zu deployments, %zu points, %d active with a live run, "
	       "%d finished runs, built in %.1f s (child process)\n",
	       CAMPAIGN, plan.ndeployments, plan.npoints, NACTIVE, 2 * NFINISHED,
	       (srt_monotonic_ms() - t0) / 1e3);
	free(ds);
	free(ps);
	srt_campaign_plan_release(&plan);
	srt_ydoc_free(doc);
	srt_diags_release(&d);
	srt_cluster_release(&cl);
	free(yaml);
}

/* ---- the measurements ---- */

struct bench {
	const char *root, *db;
	struct srt_store *store;
	struct srt_slurm_fake *fake;
	struct srt_controller *ctl;
	struct srt_cluster cl;
};

static void one_pass(struct bench *b, struct srt_pass_stats *st)
{
	struct srt_error err;

	srt_error_clear(&err);
	if (srt_controller_pass(b->ctl, st, &err) != 0)
		die("pass", &err);
}

/* The agent's status.json of a Ready run: one node, its engine worker Ready. */
static void write_status(struct bench *b, const char *run, int64_t job_id)
{
	struct srt_rundir_node node = { "node-0001", "10.0.0.1" };
	struct srt_rundir_proc proc = { .name = "agg-0",
					.kind = "worker",
					.role = "agg",
					.index = 0,
					.node = 0,
					.host = "node-0001",
					.ip = "10.0.0.1",
					.state = SRT_PS_READY,
					.pid = 4242,
					.started_at = unix_ms() - 600000,
					.ready_at = unix_ms() - 500000,
					.exit_code = -1,
					.endpoint = "10.0.0.1:30000",
					.critical = true };
	char job[32], *dir = srt_xasprintf("%s/%s", b->root, run);
	struct srt_rundir_status st = { .version = SRT_RUNDIR_VERSION,
					.seq = 1,
					.plan_generation = 1,
					.phase = SRT_RUN_READY,
					.message = "every process is ready",
					.exit_code = -1,
					.job_id = job,
					.agent_host = "node-0001",
					.agent_pid = 4200,
					.agent_started_at = unix_ms() - 600000,
					.nodes = &node,
					.nnodes = 1,
					.procs = &proc,
					.nprocs = 1,
					.updated_at = unix_ms() };
	struct srt_error err;

	snprintf(job, sizeof(job), "%lld", (long long)job_id);
	if (srt_rundir_write_status(dir, &st, &err) != 0)
		die("status.json", &err);
	free(dir);
}

/* The live runs' jobs in the fake SLURM's listing, each recorded on its run, with status.json. */
static size_t add_jobs(struct bench *b)
{
	struct srt_run_row *runs = NULL;
	struct srt_error err;
	size_t n = 0, live = 0;

	if (srt_store_run_list(b->store, NULL, &runs, &n, &err) != 0)
		die("runs", &err);
	for (size_t i = 0; i < n; i++) {
		int64_t id;

		if (strcmp(runs[i].phase, "Ready"))
			continue;
		id = srt_slurm_fake_add(b->fake, runs[i].job_name, runs[i].job_comment,
					SRT_JOB_RUNNING);
		if (srt_store_run_update(b->store, runs[i].name, NULL, id, "RUNNING", NULL, &err) !=
		    0)
			die("job id", &err);
		write_status(b, runs[i].name, id);
		live++;
	}
	srt_run_rows_free(runs, n);
	return live;
}

static void steady_passes(struct bench *b, int npasses)
{
	int64_t *cpu = srt_xcalloc((size_t)npasses, sizeof(*cpu));
	int64_t *wall = srt_xcalloc((size_t)npasses, sizeof(*wall));
	struct srt_pass_stats st;
	size_t actions = 0;
	uint64_t calls = 0;
	int settle = 0;

	/* Settle: the first pass sets the campaign Running; then nothing changes. */
	do {
		one_pass(b, &st);
		settle++;
	} while (st.actions && settle < 10);
	for (int i = 0; i < npasses; i++) {
		one_pass(b, &st);
		cpu[i] = st.cpu_usec;
		wall[i] = st.usec;
		actions += st.actions;
		calls += st.slurm_calls;
	}
	printf("controller pass, 10,000 points / 1,000 deployments / %zu runs (100 live), once "
	       "nothing changes (%d passes after %d settling):\n",
	       st.runs, npasses, settle);
	printf("  pass cpu: median %.2f ms, min %.2f ms, max %.2f ms  (goal < 10 ms)\n",
	       median_ms(cpu, (size_t)npasses), min_ms(cpu, (size_t)npasses),
	       max_ms(cpu, (size_t)npasses));
	printf("  pass wall: median %.2f ms, max %.2f ms\n", median_ms(wall, (size_t)npasses),
	       max_ms(wall, (size_t)npasses));
	printf("  peak RSS: %.1f MiB  (goal < 20 MiB)\n", st.max_rss_kb / 1024.0);
	printf("  actions in the measured passes: %zu; slurm calls per pass: %.1f\n", actions,
	       (double)calls / npasses);
	free(cpu);
	free(wall);
}

/* The campaign step alone, over what the pass lists, and its store query. */
static void campaign_step(struct bench *b, int npasses)
{
	int64_t *step = srt_xcalloc((size_t)npasses, sizeof(*step));
	int64_t *world = srt_xcalloc((size_t)npasses, sizeof(*world));
	int64_t *lists = srt_xcalloc((size_t)npasses, sizeof(*lists));
	size_t ndeps = 0;

	for (int i = 0; i < npasses; i++) {
		struct srt_recipe_row *recipes = NULL;
		struct srt_run_row *runs = NULL;
		struct srt_world_deployment *rows = NULL;
		size_t nrecipes = 0, nruns = 0, nactions = 0;
		struct srt_error err;
		bool clocked;
		int64_t t0 = cpu_usec(), t1, t2;

		if (srt_store_recipe_list(b->store, true, &recipes, &nrecipes, &err) != 0 ||
		    srt_store_run_list(b->store, NULL, &runs, &nruns, &err) != 0)
			die("lists", &err);
		t1 = cpu_usec();
		if (srt_ctl_campaigns_pass(&(struct srt_ctl_view){ b->store, recipes, nrecipes,
								   runs, nruns, NULL, NULL },
					   &nactions, &clocked, &err) != 0)
			die("campaign step", &err);
		t2 = cpu_usec();
		if (nactions)
			fprintf(stderr, "bench_campaign: the campaign step took %zu action(s)\n",
				nactions);
		if (srt_store_campaign_world(b->store, &rows, &ndeps, &err) != 0)
			die("world", &err);
		world[i] = cpu_usec() - t2;
		srt_world_deployments_free(rows, ndeps);
		lists[i] = t1 - t0;
		step[i] = t2 - t1;
		srt_recipe_rows_free(recipes, nrecipes);
		srt_run_rows_free(runs, nruns);
	}
	printf("campaign step alone (srt_ctl_campaigns_pass over %zu deployments, %d runs):\n",
	       ndeps, npasses);
	printf("  campaign step cpu: median %.2f ms, min %.2f ms, max %.2f ms\n",
	       median_ms(step, (size_t)npasses), min_ms(step, (size_t)npasses),
	       max_ms(step, (size_t)npasses));
	printf("  of which srt_store_campaign_world: median %.2f ms, min %.2f ms, max %.2f ms\n",
	       median_ms(world, (size_t)npasses), min_ms(world, (size_t)npasses),
	       max_ms(world, (size_t)npasses));
	printf("  (the pass's recipe + run listing, shared with the run reconciler: median %.2f "
	       "ms)\n",
	       median_ms(lists, (size_t)npasses));
	free(step);
	free(world);
	free(lists);
}

/* Append one Point* event with its "point" member (taken) to events.jsonl, as the agent does. */
static void append_point(struct srt_rundir_events *w, const char *run, const char *reason,
			 json_t *point)
{
	struct srt_rundir_event ev = { .time = unix_ms(),
				       .reason = reason,
				       .object_kind = "run",
				       .object_name = run,
				       .object_index = -1,
				       .message = reason,
				       .point = point };
	struct srt_error err;

	if (srt_rundir_events_append(w, &ev, &err) != 0)
		die("events.jsonl", &err);
	json_decref(point);
}

/* Write, as the agent does, PointStarted + PointFinished for points 1..k of each live run. */
static size_t write_reports(struct bench *b, int k)
{
	struct srt_run_row *runs = NULL;
	struct srt_point_row *pts = NULL;
	struct srt_error err;
	size_t n = 0, np = 0, written = 0;

	if (srt_store_run_list(b->store, NULL, &runs, &n, &err) != 0 ||
	    srt_store_point_list(b->store, CAMPAIGN, false, &pts, &np, &err) != 0)
		die("runs and points", &err);
	for (size_t i = 0; i < n; i++) {
		struct srt_rundir_events w;
		char *dir, *pdir;

		if (strcmp(runs[i].phase, "Ready"))
			continue;
		dir = srt_xasprintf("%s/%s", b->root, runs[i].name);
		pdir = srt_xasprintf("%s/%s", dir, SRT_RUNDIR_POINTS_DIR);
		if (mkdir(pdir, 0700) != 0 && errno != EEXIST)
			die(pdir, NULL);
		if (srt_rundir_events_open(&w, dir, &err) != 0)
			die("events.jsonl", &err);
		for (size_t j = 0; j < np; j++) {
			struct srt_point_report r = { 0 };
			double m[SRT_POINT_NMETRICS];
			char *raw, *rel, *abs, hex[65];
			FILE *fp;

			if (!pts[j].run_name || strcmp(pts[j].run_name, runs[i].name) ||
			    pts[j].seq > k)
				continue;
			raw = raw_result(pts[j].concurrency, pts[j].prompts, m);
			rel = srt_xasprintf("%s/%04lld-%.12s-a1.json", SRT_RUNDIR_POINTS_DIR,
					    (long long)pts[j].seq, pts[j].point_id);
			abs = srt_xasprintf("%s/%s", dir, rel);
			fp = fopen(abs, "w");
			if (!fp || fputs(raw, fp) < 0 || fclose(fp) != 0)
				die(abs, NULL);
			/* PointStarted (seq 1 started when the database was built: no change) */
			append_point(&w, runs[i].name, "PointStarted",
				     srt_point_attempt_json(pts[j].point_id, pts[j].seq, 1, NULL,
							    NULL));
			snprintf(r.id, sizeof(r.id), "%s", pts[j].point_id);
			srt_sha256_hex(raw, strlen(raw), hex);
			r.seq = pts[j].seq;
			r.attempts = 1;
			r.state = "done";
			r.exit_code = 0;
			r.raw_path = rel;
			r.raw_sha256 = hex;
			r.started_at = unix_ms() - 30000;
			r.finished_at = unix_ms();
			r.slo_met = 1;
			memcpy(r.metrics, m, sizeof(m));
			append_point(&w, runs[i].name, "PointFinished", srt_point_report_json(&r));
			written++;
			free(raw);
			free(rel);
			free(abs);
		}
		srt_rundir_events_close(&w);
		free(pdir);
		free(dir);
	}
	srt_point_rows_free(pts, np);
	srt_run_rows_free(runs, n);
	return written;
}

static int64_t count_done(struct bench *b)
{
	struct srt_campaign_row row = { 0 };
	struct srt_error err;
	int64_t done;

	if (srt_store_campaign_get(b->store, CAMPAIGN, &row, &err) != 1)
		die("campaign", &err);
	done = row.done;
	srt_campaign_row_release(&row);
	return done;
}

/* The agents' side, in a child process as in life: returns the reports written. */
static size_t agents_write(struct bench *b)
{
	size_t want = (size_t)NACTIVE * NREPORTS_PER_RUN;
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork", NULL);
	if (pid == 0) {
		/* never the parent's connection across fork(): an own one */
		struct bench agent = { .root = b->root };
		struct srt_error err;

		if (srt_store_open(&agent.store, b->db, 0, NULL, &err) != 0)
			die("open", &err);
		_exit(write_reports(&agent, NREPORTS_PER_RUN) == want ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "bench_campaign: the agents' reports were not all written\n");
		exit(1);
	}
	return want;
}

static void ingest(struct bench *b)
{
	int64_t before = count_done(b), cpu = 0, wall = 0, cpu_max = 0;
	size_t reports = agents_write(b), events = 0;
	struct srt_pass_stats st;
	int passes = 0;

	while (events < 2 * reports && passes < 50) {
		one_pass(b, &st);
		passes++;
		events += st.events_ingested;
		cpu += st.cpu_usec;
		wall += st.usec;
		cpu_max = st.cpu_usec > cpu_max ? st.cpu_usec : cpu_max;
	}
	printf("result ingest: %zu PointFinished reports (+ %zu PointStarted) in %zu runs' "
	       "events.jsonl, raw files checked against their sha256:\n",
	       reports, reports, (size_t)NACTIVE);
	printf("  %d pass(es), %zu events ingested, %lld points became done\n", passes, events,
	       (long long)(count_done(b) - before));
	printf("  wall %.1f ms, cpu %.1f ms (largest pass %.1f ms): %.0f reports/s wall, "
	       "%.0f reports/s cpu, %.1f us cpu per report\n",
	       wall / 1e3, cpu / 1e3, cpu_max / 1e3, reports / (wall / 1e6), reports / (cpu / 1e6),
	       (double)cpu / (double)reports);
	printf("  peak RSS after ingest: %.1f MiB  (goal < 20 MiB)\n", peak_rss_mib());
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_campaign [-p PASSES] [-d DIR] [--setup-only]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const char *const srtctl[] = { "srtctl" };
	char tmp[] = "/tmp/srt-bench-camp.XXXXXX";
	const char *dir = NULL;
	struct bench b = { 0 };
	struct srt_error err;
	bool setup_only = false;
	int npasses = 20, status;
	char *db, *root;
	pid_t pid;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-p") && i + 1 < argc)
			npasses = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-d") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--setup-only"))
			setup_only = true;
		else
			usage();
	}
	if (npasses < 1 || npasses > 10000)
		usage();
	if (!dir && !(dir = mkdtemp(tmp)))
		die("mkdtemp", NULL);
	db = srt_xasprintf("%s/state.db", dir);
	root = srt_xasprintf("%s/runs", dir);
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		die(dir, NULL);
	if (mkdir(root, 0700) != 0)
		die(root, NULL);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork", NULL);
	if (pid == 0) {
		build_db(db, root);
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "bench_campaign: the setup failed\n");
		return 1;
	}
	if (setup_only) {
		printf("database: %s\n", db);
		free(db);
		free(root);
		return 0;
	}

	b.root = root;
	b.db = db;
	srt_cluster_defaults(&b.cl);
	printf("peak RSS before the first pass: %.1f MiB\n", peak_rss_mib());
	if (srt_store_open(&b.store, db, 0, NULL, &err) != 0)
		die("open", &err);
	b.fake = srt_slurm_fake_new();
	printf("fake SLURM: %zu live jobs listed\n", add_jobs(&b));
	if (srt_controller_new(
		    &b.ctl,
		    &(struct srt_controller_config){ .store = b.store,
						     .slurm = srt_slurm_fake_client(b.fake),
						     .cluster = &b.cl,
						     .run_root = root,
						     .srtctl = srtctl,
						     .nsrtctl = 1,
						     .log = getenv("BENCH_LOG") ? stderr : NULL },
		    &err) != 0)
		die("controller", &err);
	steady_passes(&b, npasses);
	campaign_step(&b, npasses);
	ingest(&b);
	srt_controller_free(b.ctl);
	srt_slurm_fake_free(b.fake);
	srt_store_close(b.store);
	srt_cluster_release(&b.cl);
	if (dir == tmp) {
		char *cmd = srt_xasprintf("rm -rf '%s'", tmp);

		if (system(cmd) != 0)
			fprintf(stderr, "bench_campaign: could not remove %s\n", tmp);
		free(cmd);
	}
	free(db);
	free(root);
	return 0;
}
