/*
 * tests/fuzz/fuzz_slurm_reply.c: libFuzzer target for slurmrestd's replies.
 *
 * The first byte of an input picks the HTTP status the reply came with
 * (its value modulo the table below: '0' is 200, '1' 500, ...); the rest is
 * the body.  The body goes through every decoder (ping, submit, get job,
 * list jobs, kill) of every API version srtctl speaks, as slurm/restd.c
 * hands replies to them, after the redaction restd.c applies to every reply.
 * A decoded job's strings must never be NULL; a redacted body must hold
 * nothing that looks like a JWT.
 *
 * Crashes, sanitizer reports and leaks are the failures: everything made
 * here is released before returning.  The input is not NUL-terminated.
 */
#define _GNU_SOURCE /* memmem */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/internal.h"
#include "slurm/slurm.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const long statuses[] = { 200, 500, 404, 401, 511, 504, 400, 304, 502, 422 };

static void check_job(const struct srt_job *j)
{
	const char *const s[] = { j->name,	 j->comment, j->user,	     j->partition,
				  j->account,	 j->reason,  j->description, j->nodes,
				  j->batch_host, j->cwd,     j->stdout_path, j->stderr_path };

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		if (!s[i]) {
			fprintf(stderr, "fuzz_slurm_reply: job string %zu is NULL\n", i);
			abort();
		}
}

/*
 * No JWT may survive the redaction: a run that starts with "eyJ" after a
 * blank, quote or '=' (or at the start) whose first dot is 10 or more
 * characters in.
 */
static void check_redacted(const char *b, size_t n)
{
	const char *p = b;

	while ((p = memmem(p, n - (size_t)(p - b), "eyJ", 3))) {
		const char *q = p + 3;

		if (p > b && p[-1] != ' ' && p[-1] != '"' && p[-1] != '=') {
			p += 3;
			continue;
		}
		while (q < b + n && (*q == '-' || *q == '_' || *q == '=' || *q == '.' ||
				     (*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'z') ||
				     (*q >= 'A' && *q <= 'Z'))) {
			if (*q == '.' && q - p >= 10) {
				fprintf(stderr, "fuzz_slurm_reply: a JWT survived redaction\n");
				abort();
			}
			if (*q == '.')
				break; /* the first dot decides */
			q++;
		}
		p += 3;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct srt_slurm_reply r;
	char *body;

	if (size == 0)
		return 0;
	memset(&r, 0, sizeof(r));
	r.status = statuses[data[0] % (sizeof(statuses) / sizeof(statuses[0]))];
	r.elapsed_ms = data[0] & 0x80 ? 10000 : 5;
	r.token_expired = data[0] & 0x40;
	body = malloc(size); /* exactly the body: ASan sees any read past it */
	if (!body)
		return 0;
	memcpy(body, data + 1, size - 1);
	srt_slurm_redact(body, size - 1, "tok");
	check_redacted(body, size - 1);
	r.body = body;
	r.len = size - 1;

	for (size_t v = 0; srt_slurm_apis[v].version; v++) {
		const struct srt_slurm_api *api = &srt_slurm_apis[v];
		struct srt_slurm_info info;
		struct srt_error err = { "" };
		struct srt_job job;
		struct srt_job_list list;
		int64_t id = 0;

		memset(&info, 0, sizeof(info));
		srt_slurm_decode_ping(api, &r, &info, &err);
		srt_slurm_decode_submit(api, &r, &id, &err);
		if (srt_slurm_decode_job(api, &r, 42, &job, &err) == 0) {
			check_job(&job);
			srt_job_release(&job);
		}
		if (srt_slurm_decode_jobs(api, &r, &list, &err) == 0) {
			for (size_t i = 0; i < list.n; i++)
				check_job(&list.jobs[i]);
			srt_job_list_release(&list);
		}
		srt_slurm_decode_kill(api, &r, &err);
	}
	free(body);
	return 0;
}
