/*
 * bench/slurm/bench_slurm.c: what the SLURM client costs, against the real
 * local slurmrestd (scripts/slurm-local up; eval "$(scripts/slurm-local env)").
 *
 *   build/bench/slurm/bench_slurm [--calls N] [--jobs N] [--no-list]
 *
 * 1. Per call: GET ping and GET job/{id}, N times each (default 200), made by
 *    curl(1) (its own time_total, so process start-up is not counted; a new
 *    connection each time) and by the client: a new client and connection
 *    per call (the like-for-like figure; goal: under 10% above curl), and one
 *    client kept alive (what the controller does).
 * 2. Listing many jobs: submit N held jobs (default 1000), list all jobs a
 *    few times (client vs curl), find one by comment, then cancel them all.
 *    Bounded: it stops at the first error or after 10 minutes, and cancels
 *    whatever it submitted.
 *
 * Prints figures only; asserts nothing.  The token goes to curl in a 0600
 * header file, never on its command line.
 */
#include "slurm/slurm.h"
#include "util/buf.h"
#include "util/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEADLINE_MS (10 * 60 * 1000)

struct env {
	const char *url, *jwt, *user, *jobs_dir, *partition;
	char header_file[64];
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct stat3 {
	double median, p90, mean;
};

static struct stat3 stats(double *v, size_t n)
{
	struct stat3 s = { 0, 0, 0 };

	if (n == 0)
		return s;
	qsort(v, n, sizeof(*v), cmp_double);
	for (size_t i = 0; i < n; i++)
		s.mean += v[i];
	s.mean /= (double)n;
	s.median = v[n / 2];
	s.p90 = v[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1];
	return s;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Run curl(1) for URL; return its time_total in µs (-1 on failure); *wall_us the process's. */
static double run_curl(const struct env *e, const char *url, double *wall_us)
{
	int pfd[2];
	pid_t pid;
	char buf[128];
	ssize_t n;
	size_t len = 0;
	int status;
	double t0 = now_us();
	char hdr[80];

	snprintf(hdr, sizeof(hdr), "@%s", e->header_file);
	if (pipe(pfd) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(pfd[1], 1);
		if (devnull >= 0)
			dup2(devnull, 2);
		close(pfd[0]);
		execlp("curl", "curl", "-s", "-o", "/dev/null", "-w", "%{time_total} %{http_code}",
		       "-H", hdr, url, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while (len < sizeof(buf) - 1 && (n = read(pfd[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(pfd[0]);
	waitpid(pid, &status, 0);
	*wall_us = now_us() - t0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !strstr(buf, " 200"))
		return -1;
	return atof(buf) * 1e6;
}

static struct srt_slurm *client(const struct env *e, const char *api)
{
	struct srt_slurm_config cfg = { 0 };
	struct srt_slurm *s;
	struct srt_error err;

	cfg.url = e->url;
	cfg.api_version = api;
	cfg.user = e->user;
	cfg.auth.token = e->jwt;
	if (srt_slurm_new(&s, &cfg, &err) != 0) {
		fprintf(stderr, "bench_slurm: %s\n", err.msg);
		exit(1);
	}
	return s;
}

static void row(const char *what, double *v, size_t n, double base_median)
{
	struct stat3 s = stats(v, n);

	printf("  %-44s %8.0f %8.0f %8.0f", what, s.median, s.p90, s.mean);
	if (base_median > 0)
		printf("   %+6.1f%%", (s.median / base_median - 1) * 100);
	putchar('\n');
}

/* 1. Per-call overhead of one GET: curl vs client (fresh / kept alive). */
static int per_call(const struct env *e, const char *api, const char *path, int64_t job_id,
		    int calls)
{
	double *curl_t = calloc((size_t)calls, sizeof(double));
	double *curl_wall = calloc((size_t)calls, sizeof(double));
	double *fresh = calloc((size_t)calls, sizeof(double));
	double *kept = calloc((size_t)calls, sizeof(double));
	char url[512];
	struct srt_slurm *s = client(e, api);
	struct srt_error err;
	struct srt_slurm_stats st;
	int rc = 0;

	snprintf(url, sizeof(url), "%s/slurm/%s/%s", e->url, api, path);
	/* Interleaved, so that load from anything else hits all three alike. */
	for (int i = 0; i < calls; i++) {
		struct srt_slurm *f;
		struct srt_slurm_info info;
		struct srt_job j;
		double t0;
		int r;

		curl_t[i] = run_curl(e, url, &curl_wall[i]);
		if (curl_t[i] < 0) {
			fprintf(stderr, "bench_slurm: curl %s failed\n", url);
			rc = -1;
			break;
		}
		t0 = now_us();
		f = client(e, api);
		r = job_id ? srt_slurm_get_job(f, job_id, &j, &err) :
			     srt_slurm_ping(f, &info, &err);
		if (job_id)
			srt_job_release(&j);
		srt_slurm_free(f);
		fresh[i] = now_us() - t0;
		if (r == 0) {
			t0 = now_us();
			r = job_id ? srt_slurm_get_job(s, job_id, &j, &err) :
				     srt_slurm_ping(s, &info, &err);
			if (job_id)
				srt_job_release(&j);
			kept[i] = now_us() - t0;
		}
		if (r != 0) {
			fprintf(stderr, "bench_slurm: %s\n", err.msg);
			rc = -1;
			break;
		}
	}
	if (rc == 0) {
		double base;

		printf("\nGET %s, %d calls each (µs)                       median      p90     mean   vs curl\n",
		       path, calls);
		base = stats(curl_t, (size_t)calls).median;
		row("curl(1) time_total (new connection)", curl_t, (size_t)calls, 0);
		row("curl(1) process, fork to exit", curl_wall, (size_t)calls, base);
		row("client, new client + connection per call", fresh, (size_t)calls, base);
		row("client, one client kept alive", kept, (size_t)calls, base);
		srt_slurm_stats(s, &st);
		printf("  (kept-alive client: %llu requests, %llu bytes received)\n",
		       (unsigned long long)st.requests, (unsigned long long)st.bytes_received);
	}
	srt_slurm_free(s);
	free(curl_t);
	free(curl_wall);
	free(fresh);
	free(kept);
	return rc;
}

/* 2. Submit `njobs` held jobs, list them, find one, cancel all. */
static int many_jobs(const struct env *e, const char *api, int njobs)
{
	static const char *const env[] = { "PATH=/usr/bin:/bin" };
	struct srt_slurm *s = client(e, api);
	int64_t *ids = calloc((size_t)njobs, sizeof(*ids));
	int64_t deadline = srt_monotonic_ms() + DEADLINE_MS;
	struct srt_job_spec spec = { 0 };
	struct srt_error err;
	struct srt_job_list l;
	struct srt_slurm_stats st0, st1;
	char comment[64], name[64], url[512];
	double t0, t_submit, t_cancel, list_us[5], curl_us[5], wall;
	int n = 0, rc = 0, cancelled = 0;
	size_t listed = 0;

	snprintf(comment, sizeof(comment), "bench:%d", (int)getpid());
	spec.script = "#!/bin/sh\ntrue\n";
	spec.hold = true;
	spec.env = env;
	spec.nenv = 1;
	spec.cwd = e->jobs_dir;
	spec.partition = e->partition;
	spec.time_limit = 1;
	t0 = now_us();
	for (n = 0; n < njobs && srt_monotonic_ms() < deadline; n++) {
		snprintf(name, sizeof(name), "bench-%d", n);
		spec.name = name;
		spec.comment = n == njobs / 2 ? comment : "bench";
		if (srt_slurm_submit(s, &spec, &ids[n], &err) != 0) {
			fprintf(stderr, "bench_slurm: submit %d: %s\n", n, err.msg);
			rc = -1;
			break;
		}
	}
	t_submit = now_us() - t0;
	printf("\n%d held jobs submitted in %.2f s (%.2f ms per submit)\n", n, t_submit / 1e6,
	       n ? t_submit / 1e3 / n : 0);
	if (rc == 0) {
		snprintf(url, sizeof(url), "%s/slurm/%s/%s", e->url, api,
			 !strcmp(api, "v0.0.38") ? "jobs" : "jobs/");
		for (int i = 0; i < 5; i++) {
			t0 = now_us();
			if (srt_slurm_list_jobs(s, 0, &l, &err) != 0) {
				fprintf(stderr, "bench_slurm: list: %s\n", err.msg);
				rc = -1;
				break;
			}
			list_us[i] = now_us() - t0;
			listed = l.n;
			srt_job_list_release(&l);
			curl_us[i] = run_curl(e, url, &wall);
		}
	}
	if (rc == 0) {
		struct stat3 a = stats(list_us, 5), b = stats(curl_us, 5);

		srt_slurm_stats(s, &st0);
		printf("list all jobs (%zu in slurmctld), 5 times   median %.1f ms (curl %.1f ms, "
		       "%+.1f%%); %.1f µs per job\n",
		       listed, a.median / 1e3, b.median / 1e3, (a.median / b.median - 1) * 100,
		       a.median / (double)(listed ? listed : 1));
		t0 = now_us();
		if (srt_slurm_find_jobs(s, comment, NULL, &l, &err) == 0) {
			srt_slurm_stats(s, &st1);
			printf("find the one job with comment %s: %.1f ms, %zu match, %llu request, "
			       "%.1f MB received\n",
			       comment, (now_us() - t0) / 1e3, l.n,
			       (unsigned long long)(st1.requests - st0.requests),
			       (double)(st1.bytes_received - st0.bytes_received) / 1e6);
			srt_job_list_release(&l);
		}
	}
	t0 = now_us();
	for (int i = 0; i < n; i++) {
		if (!ids[i])
			continue;
		if (srt_slurm_cancel(s, ids[i], &err) == 0)
			cancelled++;
		else
			fprintf(stderr, "bench_slurm: cancel %lld: %s\n", (long long)ids[i],
				err.msg);
	}
	t_cancel = now_us() - t0;
	printf("%d jobs cancelled in %.2f s (%.2f ms per cancel)\n", cancelled, t_cancel / 1e6,
	       cancelled ? t_cancel / 1e3 / cancelled : 0);
	free(ids);
	srt_slurm_free(s);
	return rc;
}

int main(int argc, char **argv)
{
	struct env e = { 0 };
	int calls = 200, njobs = 1000, list = 1;
	struct srt_slurm *s;
	struct srt_slurm_info info;
	struct srt_error err;
	struct srt_job_spec spec = { 0 };
	static const char *const env[] = { "PATH=/usr/bin:/bin" };
	char api[16], path[64];
	int64_t id;
	FILE *f;
	int fd, rc = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--calls") && i + 1 < argc)
			calls = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--jobs") && i + 1 < argc)
			njobs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--no-list"))
			list = 0;
		else {
			fprintf(stderr, "usage: bench_slurm [--calls N] [--jobs N] [--no-list]\n");
			return 2;
		}
	}
	e.url = getenv("SRT_SLURMRESTD_URL");
	e.jwt = getenv("SLURM_JWT");
	e.user = getenv("SRT_SLURM_USER");
	e.jobs_dir = getenv("SRT_SLURM_JOBS_DIR");
	e.partition = getenv("SRT_SLURM_PARTITION");
	if (!e.url || !e.jwt || !e.jobs_dir || strncmp(e.url, "http", 4) != 0) {
		fprintf(stderr, "bench_slurm: needs the local cluster over TCP: "
				"eval \"$(scripts/slurm-local env)\"\n");
		return 2;
	}
	if (calls < 1 || calls > 100000 || njobs < 1 || njobs > 10000) {
		fprintf(stderr, "bench_slurm: --calls 1..100000, --jobs 1..10000\n");
		return 2;
	}
	snprintf(e.header_file, sizeof(e.header_file), "/tmp/bench-slurm-hdr-XXXXXX");
	fd = mkstemp(e.header_file); /* mode 0600 */
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		perror("bench_slurm: mkstemp");
		return 1;
	}
	fprintf(f, "X-SLURM-USER-NAME: %s\nX-SLURM-USER-TOKEN: %s\n", e.user ? e.user : "", e.jwt);
	fclose(f);

	s = client(&e, NULL);
	if (srt_slurm_ping(s, &info, &err) != 0) {
		fprintf(stderr, "bench_slurm: %s\n", err.msg);
		rc = 1;
		goto out;
	}
	snprintf(api, sizeof(api), "%s", info.api_version);
	printf("slurmrestd %s, API %s, Slurm %s\n", e.url, api, info.release);
	/* A finished job to read. */
	spec.name = "bench-get";
	spec.script = "#!/bin/sh\ntrue\n";
	spec.env = env;
	spec.nenv = 1;
	spec.cwd = e.jobs_dir;
	spec.partition = e.partition;
	if (srt_slurm_submit(s, &spec, &id, &err) != 0) {
		fprintf(stderr, "bench_slurm: %s\n", err.msg);
		rc = 1;
		goto out;
	}
	snprintf(path, sizeof(path), "job/%lld", (long long)id);
	if (per_call(&e, api, !strcmp(api, "v0.0.38") ? "ping" : "ping/", 0, calls) != 0 ||
	    per_call(&e, api, path, id, calls) != 0)
		rc = 1;
	if (rc == 0 && list && many_jobs(&e, api, njobs) != 0)
		rc = 1;
out:
	srt_slurm_free(s);
	unlink(e.header_file);
	return rc;
}
