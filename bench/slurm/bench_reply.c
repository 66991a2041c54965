/*
 * bench/slurm/bench_reply.c: list the jobs at a URL once and print what it
 * cost: the reply's size, the jobs decoded, and the process's peak RSS.
 * Driven by bench/slurm/reply_rss.sh against a fake slurmrestd serving a
 * listing near the client's reply cap (figures only).
 *
 *   bench_reply URL [API_VERSION]
 */
#include "slurm/slurm.h"

#include <stdio.h>
#include <sys/resource.h>

int main(int argc, char **argv)
{
	struct srt_slurm_config cfg = { 0 };
	struct srt_slurm *s = NULL;
	struct srt_slurm_stats st;
	struct srt_job_list l;
	struct srt_error err = { "" };
	struct rusage ru;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_reply URL [API_VERSION]\n");
		return 2;
	}
	cfg.url = argv[1];
	cfg.api_version = argc > 2 ? argv[2] : "v0.0.42";
	cfg.timeout_ms = 600000;
	if (srt_slurm_new(&s, &cfg, &err) != 0) {
		fprintf(stderr, "bench_reply: %s\n", err.msg);
		return 1;
	}
	rc = srt_slurm_list_jobs(s, 0, &l, &err);
	srt_slurm_stats(s, &st);
	getrusage(RUSAGE_SELF, &ru);
	printf("rc %s, %zu jobs, reply %.1f MiB, peak RSS %.1f MiB (%.2f x the reply)\n",
	       srt_slurm_rc_name(rc), l.n, st.bytes_received / 1048576.0, ru.ru_maxrss / 1024.0,
	       st.bytes_received ? ru.ru_maxrss * 1024.0 / (double)st.bytes_received : 0.0);
	if (rc != 0)
		printf("error: %s\n", err.msg);
	srt_job_list_release(&l);
	srt_slurm_free(s);
	return rc == 0 ? 0 : 1;
}
