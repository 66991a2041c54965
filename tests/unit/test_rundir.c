/*
 * tests/unit/test_rundir.c: the run-directory contract (runplan/rundir.h).
 *
 * Both sides of every file: plan.json written by the controller and read
 * by the agent, status.json written by the agent and read by the
 * controller (every field round-trips), events.jsonl appended by the agent
 * and read exactly once by the controller: sequence numbers continue across
 * a reopen (an agent restart), a torn last line is ignored by readers and
 * cut off by the next writer, and bad lines are skipped and counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runplan/rundir.h"
#include "util/buf.h"
#include "peak_rss.h"

struct fx {
	char dir[64];
};

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	strcpy(f->dir, "/tmp/srt-rundir-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;
	char *cmd = srt_xasprintf("rm -rf '%s'", f->dir);

	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(f);
	return 0;
}

static char *path_in(struct fx *f, const char *name)
{
	return srt_xasprintf("%s/%s", f->dir, name);
}

static void append_raw(struct fx *f, const char *name, const char *text)
{
	char *p = path_in(f, name);
	FILE *fp = fopen(p, "ab");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	free(p);
}

static char *read_all(struct fx *f, const char *name)
{
	char *p = path_in(f, name);
	FILE *fp = fopen(p, "rb");
	struct srt_buf b;
	char chunk[4096];
	size_t n;

	free(p);
	if (!fp)
		return NULL;
	srt_buf_init(&b);
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		srt_buf_append(&b, chunk, n);
	fclose(fp);
	return srt_buf_detach(&b);
}

/* No temporary file is left behind by an atomic write. */
static void assert_no_tmp(struct fx *f)
{
	DIR *d = opendir(f->dir);
	struct dirent *de;

	assert_non_null(d);
	while ((de = readdir(d)))
		assert_null(strstr(de->d_name, ".tmp."));
	closedir(d);
}

/* ---- plan.json ---- */

static void test_plan_round_trip(void **state)
{
	struct fx *f = *state;
	json_t *plan = json_pack("{s:i, s:s, s:[]}", "version", 1, "recipe", "r1", "processes");
	json_t *back = NULL;
	struct srt_error err;
	int64_t gen = -1;
	char *p = path_in(f, SRT_RUNDIR_PLAN);

	assert_int_equal(srt_rundir_write_plan(f->dir, plan, 7, &err), 0);
	assert_null(json_object_get(plan, "generation")); /* the caller's object is untouched */
	assert_int_equal(srt_rundir_read_plan_file(p, &back, &gen, &err), 0);
	assert_int_equal(gen, 7);
	assert_string_equal(json_string_value(json_object_get(back, "recipe")), "r1");
	json_decref(back);
	assert_no_tmp(f);

	/* Rewriting replaces the generation. */
	assert_int_equal(srt_rundir_write_plan(f->dir, plan, 8, &err), 0);
	assert_int_equal(srt_rundir_read_plan_file(p, &back, &gen, &err), 0);
	assert_int_equal(gen, 8);
	json_decref(back);

	assert_int_equal(srt_rundir_write_plan(f->dir, plan, 0, &err), -1);
	assert_non_null(strstr(err.msg, "must be at least 1"));
	json_decref(plan);
	free(p);
}

static void test_plan_errors(void **state)
{
	struct fx *f = *state;
	json_t *back = NULL;
	struct srt_error err;
	int64_t gen;
	char *p = path_in(f, SRT_RUNDIR_PLAN);

	assert_int_equal(srt_rundir_read_plan_file(p, &back, &gen, &err), -1);
	assert_non_null(strstr(err.msg, "cannot read the plan"));
	assert_non_null(strstr(err.msg, "No such file"));
	append_raw(f, SRT_RUNDIR_PLAN, "{\"version\": 2}\n");
	assert_int_equal(srt_rundir_read_plan_file(p, &back, &gen, &err), -1);
	assert_non_null(strstr(err.msg, "same srtctl release"));
	assert_null(back);
	free(p);
}

/* ---- status.json ---- */

static void test_status_round_trip(void **state)
{
	struct fx *f = *state;
	struct srt_rundir_node nodes[] = { { "n1", "10.0.0.1" }, { "n2", "10.0.0.2" } };
	struct srt_rundir_proc procs[2];
	struct srt_rundir_condition conds[] = {
		{ .type = "RolloutFailed",
		  .reason = "RolledBack",
		  .generation = 4,
		  .rolled_back_to = 3,
		  .message = "mooncake-master exited with status 1\nlast lines",
		  .since = 2500 }
	};
	struct srt_rundir_status st, rd;
	struct srt_error err;
	char *text;

	memset(procs, 0, sizeof(procs));
	procs[0] = (struct srt_rundir_proc){ .name = "mooncake-master",
					     .kind = "service",
					     .index = -1,
					     .service = "mooncake-master",
					     .type = "mooncake-master",
					     .node = 0,
					     .host = "n1",
					     .ip = "10.0.0.1",
					     .state = SRT_PS_READY,
					     .restarts = 2,
					     .pid = 4321,
					     .started_at = 1000,
					     .ready_at = 2100,
					     .exit_code = 137,
					     .endpoint = "10.0.0.1:8700",
					     .env_hash = "ab",
					     .last_probe = "http 8702 /health: HTTP 200",
					     .message = "ready after 1.1 s",
					     .critical = true };
	procs[1] = (struct srt_rundir_proc){ .name = "decode_0",
					     .kind = "worker",
					     .role = "decode",
					     .index = 0,
					     .node = 1,
					     .host = "n2",
					     .ip = "10.0.0.2",
					     .state = SRT_PS_CRASHLOOP,
					     .pid = -1,
					     .exit_code = -1,
					     /* not UTF-8: written as '?' */
					     .message = "bad \xff byte" };
	memset(&st, 0, sizeof(st));
	st.version = 1;
	st.seq = 17;
	st.plan_generation = 3;
	st.phase = SRT_RUN_READY;
	st.message = "";
	st.exit_code = -1;
	st.job_id = "1234";
	st.agent_host = "n1";
	st.agent_pid = 99;
	st.agent_started_at = 500;
	st.nodes = nodes;
	st.nnodes = 2;
	st.infra_ip = "10.0.0.1";
	st.frontend_url = "http://10.0.0.1:8000";
	st.procs = procs;
	st.nprocs = 2;
	st.conditions = conds;
	st.nconditions = 1;
	st.updated_at = 3000;
	assert_int_equal(srt_rundir_write_status(f->dir, &st, &err), 0);
	assert_no_tmp(f);
	text = read_all(f, SRT_RUNDIR_STATUS);
	assert_non_null(strstr(text, "\"phase\": \"Ready\""));
	assert_non_null(strstr(text, "\"state\": \"CrashLoopBackOff\""));
	assert_non_null(strstr(text, "\"exit_code\": null"));
	assert_non_null(strstr(text, "\"pid\": null"));
	assert_non_null(strstr(text, "\"status\": \"True\""));
	assert_non_null(strstr(text, "\"frontend_url\": \"http://10.0.0.1:8000\""));
	free(text);

	assert_int_equal(srt_rundir_read_status(f->dir, &rd, &err), 0);
	assert_int_equal(rd.seq, 17);
	assert_int_equal(rd.plan_generation, 3);
	assert_int_equal(rd.phase, SRT_RUN_READY);
	assert_int_equal(rd.exit_code, -1);
	assert_string_equal(rd.job_id, "1234");
	assert_string_equal(rd.agent_host, "n1");
	assert_int_equal(rd.agent_pid, 99);
	assert_int_equal(rd.agent_started_at, 500);
	assert_int_equal(rd.nnodes, 2);
	assert_string_equal(rd.nodes[1].ip, "10.0.0.2");
	assert_string_equal(rd.infra_ip, "10.0.0.1");
	assert_string_equal(rd.frontend_url, "http://10.0.0.1:8000");
	assert_int_equal(rd.updated_at, 3000);
	assert_int_equal(rd.nprocs, 2);
	assert_string_equal(rd.procs[0].name, "mooncake-master");
	assert_string_equal(rd.procs[0].type, "mooncake-master");
	assert_null(rd.procs[0].role);
	assert_int_equal(rd.procs[0].index, -1);
	assert_int_equal(rd.procs[0].state, SRT_PS_READY);
	assert_int_equal(rd.procs[0].restarts, 2);
	assert_int_equal(rd.procs[0].pid, 4321);
	assert_int_equal(rd.procs[0].started_at, 1000);
	assert_int_equal(rd.procs[0].ready_at, 2100);
	assert_int_equal(rd.procs[0].exit_code, 137);
	assert_string_equal(rd.procs[0].endpoint, "10.0.0.1:8700");
	assert_string_equal(rd.procs[0].last_probe, "http 8702 /health: HTTP 200");
	assert_true(rd.procs[0].critical);
	assert_false(rd.procs[0].external);
	assert_string_equal(rd.procs[1].role, "decode");
	assert_int_equal(rd.procs[1].index, 0);
	assert_int_equal(rd.procs[1].node, 1);
	assert_int_equal(rd.procs[1].state, SRT_PS_CRASHLOOP);
	assert_int_equal(rd.procs[1].pid, -1);
	assert_null(rd.procs[1].endpoint);
	assert_string_equal(rd.procs[1].message, "bad ? byte");
	assert_int_equal(rd.nconditions, 1);
	assert_string_equal(rd.conditions[0].type, "RolloutFailed");
	assert_string_equal(rd.conditions[0].reason, "RolledBack");
	assert_int_equal(rd.conditions[0].generation, 4);
	assert_int_equal(rd.conditions[0].rolled_back_to, 3);
	assert_string_equal(rd.conditions[0].message,
			    "mooncake-master exited with status 1\nlast lines");
	assert_int_equal(rd.conditions[0].since, 2500);
	srt_rundir_status_release(&rd);

	/* No conditions: an empty array, read back as none.  No frontend URL
	 * (not bound yet, or no frontend): null, read back as NULL. */
	st.nconditions = 0;
	st.frontend_url = NULL;
	assert_int_equal(srt_rundir_write_status(f->dir, &st, &err), 0);
	text = read_all(f, SRT_RUNDIR_STATUS);
	assert_non_null(strstr(text, "\"conditions\": []"));
	assert_non_null(strstr(text, "\"frontend_url\": null"));
	free(text);
	assert_int_equal(srt_rundir_read_status(f->dir, &rd, &err), 0);
	assert_int_equal(rd.nconditions, 0);
	assert_null(rd.frontend_url);
	srt_rundir_status_release(&rd);
}

static void test_status_missing_and_invalid(void **state)
{
	struct fx *f = *state;
	struct srt_rundir_status rd;
	struct srt_error err;
	char *p = path_in(f, SRT_RUNDIR_STATUS);

	assert_int_equal(srt_rundir_read_status(f->dir, &rd, &err), 1);
	assert_int_equal(rd.nprocs, 0);
	srt_rundir_status_release(&rd);

	append_raw(f, SRT_RUNDIR_STATUS, "{\"version\":1,\"seq\":1,\"phase\":\"Re");
	assert_int_equal(srt_rundir_read_status(f->dir, &rd, &err), -1);
	assert_non_null(strstr(err.msg, "is not valid status JSON"));
	unlink(p);
	append_raw(f, SRT_RUNDIR_STATUS, "{\"version\":2,\"seq\":1,\"phase\":\"Ready\"}");
	assert_int_equal(srt_rundir_read_status(f->dir, &rd, &err), -1);
	assert_non_null(strstr(err.msg, "status version 2"));
	unlink(p);
	append_raw(f, SRT_RUNDIR_STATUS, "{\"version\":1,\"seq\":1,\"phase\":\"Sleeping\"}");
	assert_int_equal(srt_rundir_read_status(f->dir, &rd, &err), -1);
	unlink(p);
	append_raw(f, SRT_RUNDIR_STATUS,
		   "{\"version\":1,\"seq\":1,\"phase\":\"Ready\",\"processes\":[{\"name\":\"x\","
		   "\"state\":\"Dancing\"}]}");
	assert_int_equal(srt_rundir_read_status(f->dir, &rd, &err), -1);
	assert_non_null(strstr(err.msg, "processes[0]"));
	/* Issue #12: restarts outside 0..INT_MAX is refused, not truncated. */
	static const char *const bad_restarts[] = { "4294967297", "-1", "9223372036854775807" };
	for (size_t i = 0; i < 3; i++) {
		char doc[256];

		unlink(p);
		snprintf(doc, sizeof(doc),
			 "{\"version\":1,\"seq\":1,\"phase\":\"Ready\",\"processes\":[{\"name\":"
			 "\"x\",\"state\":\"Ready\",\"restarts\":%s}]}",
			 bad_restarts[i]);
		append_raw(f, SRT_RUNDIR_STATUS, doc);
		assert_int_equal(srt_rundir_read_status(f->dir, &rd, &err), -1);
		assert_non_null(strstr(err.msg, "processes[0]"));
		assert_non_null(strstr(err.msg, "restarts count from 0 to 2147483647"));
	}
	unlink(p);
	/* An older agent's file has no "conditions" and no "frontend_url": none. */
	append_raw(f, SRT_RUNDIR_STATUS, "{\"version\":1,\"seq\":1,\"phase\":\"Ready\"}");
	assert_int_equal(srt_rundir_read_status(f->dir, &rd, &err), 0);
	assert_int_equal(rd.nconditions, 0);
	assert_null(rd.frontend_url);
	srt_rundir_status_release(&rd);
	unlink(p);
	/* A frontend_url that is not a string reads as none; a hostile string is
	 * read as it is (the controller checks it: srt_rundir_frontend_url_ok()). */
	append_raw(f, SRT_RUNDIR_STATUS,
		   "{\"version\":1,\"seq\":1,\"phase\":\"Ready\",\"frontend_url\":42}");
	assert_int_equal(srt_rundir_read_status(f->dir, &rd, &err), 0);
	assert_null(rd.frontend_url);
	srt_rundir_status_release(&rd);
	unlink(p);
	append_raw(
		f, SRT_RUNDIR_STATUS,
		"{\"version\":1,\"seq\":1,\"phase\":\"Ready\",\"conditions\":[{\"reason\":\"x\"}]}");
	assert_int_equal(srt_rundir_read_status(f->dir, &rd, &err), -1);
	assert_non_null(strstr(err.msg, "conditions[0] lacks a type"));
	free(p);
}

static void test_frontend_url_ok(void **state)
{
	static const char *const good[] = {
		"http://10.0.0.1:8000",		 "http://n1:1",
		"http://node-1.cluster_a:65535", "http://[fd00::1]:8000",
		"http://[::ffff:10.0.0.1]:80",
	};
	static const char *const bad[] = {
		"",
		"10.0.0.1:8000",
		"https://10.0.0.1:8000",
		"HTTP://10.0.0.1:8000",
		"http://10.0.0.1",
		"http://10.0.0.1:",
		"http://:8000",
		"http://10.0.0.1:0",
		"http://10.0.0.1:08000",
		"http://10.0.0.1:65536",
		"http://10.0.0.1:123456",
		"http://10.0.0.1:8000/",
		"http://10.0.0.1:8000/v1",
		"http://user@10.0.0.1:8000",
		"http://10.0.0.1:8000\n",
		"http://10.0.0.1\x1b[31m:8000",
		"http://fd00::1:8000",
		"http://[fd00::1:8000",
		"http://[]:8000",
		"http://[fd00::g]:8000",
		"http://10.0.0.1:8000 ",
		"http://10.0.0.1:-80",
		"http://<prefill_node_0_ip>:8000",
	};
	char long_url[SRT_RUNDIR_URL_MAX + 16];
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!srt_rundir_frontend_url_ok(good[i]))
			fail_msg("refused '%s'", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (srt_rundir_frontend_url_ok(bad[i]))
			fail_msg("accepted '%s'", bad[i]);
	assert_false(srt_rundir_frontend_url_ok(NULL));
	/* The bound: a URL of exactly SRT_RUNDIR_URL_MAX bytes passes, one more does not. */
	memcpy(long_url, "http://", 7);
	n = SRT_RUNDIR_URL_MAX - 7 - 5;
	memset(long_url + 7, 'a', n);
	memcpy(long_url + 7 + n, ":8000", 6);
	assert_int_equal(strlen(long_url), SRT_RUNDIR_URL_MAX);
	assert_true(srt_rundir_frontend_url_ok(long_url));
	memmove(long_url + 8, long_url + 7, strlen(long_url + 7) + 1);
	assert_int_equal(strlen(long_url), SRT_RUNDIR_URL_MAX + 1);
	assert_false(srt_rundir_frontend_url_ok(long_url));
}

static void test_names(void **state)
{
	(void)state;
	for (int i = SRT_RUN_STARTING; i <= SRT_RUN_SUCCEEDED; i++) {
		enum srt_run_phase p;

		assert_int_equal(srt_run_phase_parse(srt_run_phase_name((enum srt_run_phase)i), &p),
				 0);
		assert_int_equal(p, i);
	}
	for (int i = SRT_PS_PENDING; i <= SRT_PS_STOPPED; i++) {
		enum srt_proc_state s;

		assert_int_equal(
			srt_proc_state_parse(srt_proc_state_name((enum srt_proc_state)i), &s), 0);
		assert_int_equal(s, i);
	}
	assert_string_equal(srt_proc_state_name(SRT_PS_CRASHLOOP), "CrashLoopBackOff");
	assert_true(srt_run_phase_final(SRT_RUN_SUCCEEDED));
	assert_false(srt_run_phase_final(SRT_RUN_STOPPING));
}

/* ---- env hash ---- */

static void test_env_hash(void **state)
{
	const char *n1[] = { "B", "A" }, *v1[] = { "2", "1" };
	const char *n2[] = { "A", "B" }, *v2[] = { "1", "2" };
	const char *n3[] = { "A" }, *v3[] = { "1\0B=2" }; /* C string: just "1" */
	const char *n4[] = { "A" }, *v4[] = { "1\nB=2" };
	char h1[65], h2[65], h3[65], h4[65], h0[65];

	(void)state;
	srt_rundir_env_hash(n1, v1, 2, h1);
	srt_rundir_env_hash(n2, v2, 2, h2);
	srt_rundir_env_hash(n3, v3, 1, h3);
	srt_rundir_env_hash(n4, v4, 1, h4);
	srt_rundir_env_hash(NULL, NULL, 0, h0);
	assert_string_equal(h1, h2); /* order of the list does not matter */
	assert_string_not_equal(h1, h3);
	assert_string_not_equal(h1, h4); /* "A=1\nB=2" is not two variables */
	assert_string_equal(h0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	/* sha256("A=1\0B=2\0") */
	assert_string_equal(h1, "22ee4d94a93a2f30a119c526110772278f3469e2e234c85c8c13b3c80d88989e");
}

/* ---- events.jsonl ---- */

struct got {
	int64_t seqs[64];
	char reasons[64][32];
	size_t n;
	int64_t stop_at;
	int64_t refuse_above; /* refuse (SRT_RUNDIR_EVENT_REFUSE) seqs above this */
};

static int collect(void *ctx, const struct srt_rundir_event *ev)
{
	struct got *g = ctx;

	if (g->stop_at && ev->seq == g->stop_at)
		return 42;
	if (g->refuse_above && ev->seq > g->refuse_above)
		return SRT_RUNDIR_EVENT_REFUSE;
	g->seqs[g->n] = ev->seq;
	snprintf(g->reasons[g->n], sizeof(g->reasons[0]), "%s", ev->reason);
	g->n++;
	return 0;
}

static void append_event(struct srt_rundir_events *w, const char *reason, bool warning)
{
	struct srt_rundir_event ev;
	struct srt_error err;

	memset(&ev, 0, sizeof(ev));
	ev.time = 1000;
	ev.warning = warning;
	ev.reason = reason;
	ev.object_kind = "service";
	ev.object_name = "mooncake-store_n2";
	ev.object_service = "mooncake-store";
	ev.object_index = -1;
	ev.message = "line one\nline two \"quoted\" \xc3\xa9 \xff";
	ev.job_id = "77";
	ev.generation = 2;
	assert_int_equal(srt_rundir_events_append(w, &ev, &err), 0);
}

static void test_events_format(void **state)
{
	struct fx *f = *state;
	struct srt_rundir_events w;
	struct srt_error err;
	char *text;

	assert_int_equal(srt_rundir_events_open(&w, f->dir, &err), 0);
	assert_int_equal(w.seq, 0);
	append_event(&w, "Started", false);
	srt_rundir_events_close(&w);
	text = read_all(f, SRT_RUNDIR_EVENTS);
	assert_string_equal(text,
			    "{\"seq\":1,\"time\":1000,\"type\":\"Normal\",\"reason\":\"Started\","
			    "\"object\":{\"kind\":\"service\",\"name\":\"mooncake-store_n2\","
			    "\"service\":\"mooncake-store\"},\"message\":\"line one\\nline two "
			    "\\\"quoted\\\" \xc3\xa9 ?\",\"job_id\":\"77\",\"generation\":2}\n");
	free(text);
}

/*
 * Issue #12 item 3: the agent reopens its events file without reading it
 * whole.  30 MB of lines, one line longer than SRT_RUNDIR_EVENT_LINE_MAX
 * (its seq is not believed) and a torn tail: the seq goes on after the
 * last complete line, the tail is cut, and the peak RSS grows by far less
 * than the file (not measured under AddressSanitizer).
 */
static void test_events_reopen_large(void **state)
{
	struct fx *f = *state;
	struct srt_rundir_events w;
	struct srt_error err;
	char *p = path_in(f, SRT_RUNDIR_EVENTS), *text;
	FILE *fp = fopen(p, "wb");
	const int n = 300000;
	struct stat sb;
	long rss0 = 0, hwm = 0;
	bool measure;

	assert_non_null(fp);
	fprintf(fp, "{\"seq\":1,\"reason\":\"AgentStarted\"}\n{\"seq\":999999,\"message\":\"");
	for (int i = 0; i < 200000; i++)
		fputc('x', fp);
	fputs("\"}\n", fp);
	for (int i = 2; i <= n; i++)
		fprintf(fp,
			"{\"seq\":%d,\"time\":1,\"type\":\"Normal\",\"reason\":\"Ready\","
			"\"message\":\"padding padding padding padding padding\"}\n",
			i);
	fputs("{\"seq\":300001,\"time\":1,\"ty", fp);
	assert_int_equal(fclose(fp), 0);

#if defined(__SANITIZE_ADDRESS__)
	measure = false;
#else
	measure = peak_reset();
	rss0 = vm_kb("VmRSS");
#endif
	assert_int_equal(srt_rundir_events_open(&w, f->dir, &err), 0);
	if (measure)
		hwm = vm_kb("VmHWM");
	assert_int_equal(w.seq, n);
	append_event(&w, "AgentStarted", false);
	srt_rundir_events_close(&w);
	assert_int_equal(stat(p, &sb), 0);
	assert_true(sb.st_size > 30 * 1000 * 1000);
	if (measure) {
		print_message("events file %lld kB, peak RSS grew by %ld kB on reopen\n",
			      (long long)sb.st_size / 1024, hwm - rss0);
		if (hwm - rss0 > 4096)
			fail_msg("reopening a %lld kB events file grew the peak RSS by %ld kB",
				 (long long)sb.st_size / 1024, hwm - rss0);
	}
	/* The torn line is gone and the new event is seq 300001. */
	fp = fopen(p, "rb");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, -400, SEEK_END), 0);
	text = calloc(1, 401);
	assert_int_equal(fread(text, 1, 400, fp), 400);
	fclose(fp);
	assert_null(strstr(text, "\"ty{"));
	assert_non_null(strstr(text, "{\"seq\":300001,\"time\":1000,"));
	free(text);
	free(p);
}

static void test_events_seq_across_reopen_and_torn_line(void **state)
{
	struct fx *f = *state;
	struct srt_rundir_events w;
	struct srt_error err;
	struct got g;
	int64_t last;
	size_t skipped;
	char *text;

	assert_int_equal(srt_rundir_events_open(&w, f->dir, &err), 0);
	append_event(&w, "AgentStarted", false);
	append_event(&w, "Started", false);
	append_event(&w, "Ready", false);
	srt_rundir_events_close(&w);

	/* The agent died in the middle of a line. */
	append_raw(f, SRT_RUNDIR_EVENTS, "{\"seq\":4,\"time\":1,\"type\":\"Warn");
	memset(&g, 0, sizeof(g));
	assert_int_equal(srt_rundir_read_events(f->dir, 0, collect, &g, &last, &skipped, &err), 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(last, 3);
	assert_int_equal(skipped, 0);

	/* The next agent cuts the torn line off and goes on at 4. */
	assert_int_equal(srt_rundir_events_open(&w, f->dir, &err), 0);
	assert_int_equal(w.seq, 3);
	append_event(&w, "AgentStarted", false);
	append_event(&w, "RunFailed", true);
	srt_rundir_events_close(&w);
	text = read_all(f, SRT_RUNDIR_EVENTS);
	assert_null(strstr(text, "Warn{"));
	free(text);

	/* Exactly once: a reader that has seen 3 gets 4 and 5. */
	memset(&g, 0, sizeof(g));
	assert_int_equal(srt_rundir_read_events(f->dir, 3, collect, &g, &last, &skipped, &err), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.seqs[0], 4);
	assert_string_equal(g.reasons[0], "AgentStarted");
	assert_int_equal(g.seqs[1], 5);
	assert_string_equal(g.reasons[1], "RunFailed");
	assert_int_equal(last, 5);

	/* Nothing new. */
	memset(&g, 0, sizeof(g));
	assert_int_equal(srt_rundir_read_events(f->dir, 5, collect, &g, &last, NULL, &err), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(last, 5);

	/* A callback that stops: its value comes back, last_seq says how far. */
	memset(&g, 0, sizeof(g));
	g.stop_at = 3;
	assert_int_equal(srt_rundir_read_events(f->dir, 0, collect, &g, &last, NULL, &err), 42);
	assert_int_equal(g.n, 2);
	assert_int_equal(last, 2);
}

static void test_events_bad_lines(void **state)
{
	struct fx *f = *state;
	struct srt_error err;
	struct got g;
	int64_t last;
	size_t skipped;

	append_raw(f, SRT_RUNDIR_EVENTS,
		   "{\"seq\":1,\"reason\":\"A\",\"object\":{\"kind\":\"run\",\"name\":\"r\"}}\n"
		   "not json\n"
		   "\n"
		   "{\"seq\":\"2\",\"reason\":\"B\",\"object\":{\"kind\":\"run\"}}\n"
		   "{\"seq\":1,\"reason\":\"Dup\",\"object\":{\"kind\":\"run\"}}\n"
		   "{\"seq\":3,\"object\":{\"kind\":\"run\"}}\n"
		   "{\"seq\":4,\"reason\":\"D\",\"object\":{\"kind\":\"run\",\"name\":\"r\"}}\n");
	memset(&g, 0, sizeof(g));
	assert_int_equal(srt_rundir_read_events(f->dir, 0, collect, &g, &last, &skipped, &err), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.seqs[0], 1);
	assert_int_equal(g.seqs[1], 4);
	assert_int_equal(last, 4);
	assert_int_equal(skipped, 4); /* not json, string seq, duplicate seq, no reason */

	/* Issue #12: a refused line (a forged seq) neither moves last_seq nor
	 * hides the lines after it. */
	{
		char *p = path_in(f, SRT_RUNDIR_EVENTS);

		unlink(p);
		free(p);
	}
	append_raw(f, SRT_RUNDIR_EVENTS,
		   "{\"seq\":1,\"reason\":\"A\",\"object\":{\"kind\":\"run\"}}\n"
		   "{\"seq\":9223372036854775807,\"reason\":\"F\",\"object\":{\"kind\":\"run\"}}\n"
		   "{\"seq\":2,\"reason\":\"B\",\"object\":{\"kind\":\"run\"}}\n");
	memset(&g, 0, sizeof(g));
	g.refuse_above = 100;
	assert_int_equal(srt_rundir_read_events(f->dir, 0, collect, &g, &last, &skipped, &err), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.seqs[0], 1);
	assert_int_equal(g.seqs[1], 2);
	assert_int_equal(last, 2);
	assert_int_equal(skipped, 1);

	/* A missing file is no events. */
	{
		char *p = path_in(f, SRT_RUNDIR_EVENTS);

		unlink(p);
		free(p);
	}
	memset(&g, 0, sizeof(g));
	assert_int_equal(srt_rundir_read_events(f->dir, 9, collect, &g, &last, NULL, &err), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(last, 9);
}

/* Issue #12: bounded reads of an untrusted run directory. */
static void test_events_bounded(void **state)
{
	struct fx *f = *state;
	struct srt_error err;
	struct srt_rundir_events_read r;
	struct got g;
	char *p = path_in(f, SRT_RUNDIR_EVENTS), *long_line;
	const char *e1 = "{\"seq\":1,\"reason\":\"A\",\"object\":{\"kind\":\"run\"}}\n";
	const char *e3 = "{\"seq\":3,\"reason\":\"C\",\"object\":{\"kind\":\"run\"}}\n";
	const char *e4 = "{\"seq\":4,\"reason\":\"D\",\"object\":{\"kind\":\"run\"}}\n";

	/* An over-long line is refused as one line; the lines after it are read. */
	long_line = malloc(200);
	memset(long_line, 'x', 198);
	long_line[198] = '\n';
	long_line[199] = '\0';
	append_raw(f, SRT_RUNDIR_EVENTS, e1);
	append_raw(f, SRT_RUNDIR_EVENTS, long_line);
	append_raw(f, SRT_RUNDIR_EVENTS, e3);
	memset(&r, 0, sizeof(r));
	memset(&g, 0, sizeof(g));
	r.max_line = 100;
	assert_int_equal(srt_rundir_read_events_from(f->dir, &r, collect, &g, &err), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.seqs[1], 3);
	assert_int_equal(r.too_long, 1);
	assert_int_equal(r.too_long_at, (int64_t)strlen(e1));
	assert_false(r.more);
	assert_int_equal(r.pos.offset, (int64_t)(strlen(e1) + 199 + strlen(e3)));

	/* The next call goes on from pos: only what was appended since. */
	append_raw(f, SRT_RUNDIR_EVENTS, e4);
	memset(&g, 0, sizeof(g));
	r.after_seq = 3;
	assert_int_equal(srt_rundir_read_events_from(f->dir, &r, collect, &g, &err), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.seqs[0], 4);
	assert_int_equal(r.too_long, 0);

	/* max_bytes: a call stops after that much and says there is more. */
	unlink(p);
	append_raw(f, SRT_RUNDIR_EVENTS, e1);
	for (int i = 0; i < 5000; i++)
		append_raw(f, SRT_RUNDIR_EVENTS, "junk line junk line junk line\n");
	append_raw(f, SRT_RUNDIR_EVENTS, e3);
	memset(&r, 0, sizeof(r));
	r.max_bytes = 1; /* one read() (64 KiB) at most */
	{
		int calls = 0;

		memset(&g, 0, sizeof(g));
		do {
			assert_int_equal(srt_rundir_read_events_from(f->dir, &r, collect, &g, &err),
					 0);
			r.after_seq = r.last_seq;
			calls++;
		} while (r.more && calls < 10);
		assert_false(r.more);
		assert_true(calls >= 3); /* 150 KB in 64 KiB reads */
	}
	assert_int_equal(g.n, 2);
	assert_int_equal(g.seqs[1], 3);

	/* A symbolic link (to /dev/zero) and a FIFO are refused, naming the file. */
	unlink(p);
	assert_int_equal(symlink("/dev/zero", p), 0);
	memset(&r, 0, sizeof(r));
	assert_int_equal(srt_rundir_read_events_from(f->dir, &r, collect, &g, &err), -1);
	assert_non_null(strstr(err.msg, "events.jsonl' is a symbolic link"));
	unlink(p);
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(srt_rundir_read_events_from(f->dir, &r, collect, &g, &err), -1);
	assert_non_null(strstr(err.msg, "events.jsonl' is a FIFO"));
	unlink(p);
	free(long_line);
	free(p);
}

static void test_status_bounded(void **state)
{
	struct fx *f = *state;
	struct srt_error err;
	struct srt_rundir_status rd;
	char *p = path_in(f, SRT_RUNDIR_STATUS);
	FILE *fp;

	assert_int_equal(symlink("/dev/zero", p), 0);
	assert_int_equal(srt_rundir_read_status(f->dir, &rd, &err), -1);
	assert_non_null(strstr(err.msg, "status.json' is a symbolic link"));
	unlink(p);
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(srt_rundir_read_status(f->dir, &rd, &err), -1);
	assert_non_null(strstr(err.msg, "status.json' is a FIFO"));
	unlink(p);
	fp = fopen(p, "w");
	assert_non_null(fp);
	assert_int_equal(ftruncate(fileno(fp), SRT_RUNDIR_STATUS_MAX + 1), 0);
	fclose(fp);
	assert_int_equal(srt_rundir_read_status(f->dir, &rd, &err), -1);
	assert_non_null(strstr(err.msg, "status.json' is larger than 4096 KiB"));
	free(p);
}

/* ---- modes and links (issue #12) ---- */

static unsigned mode_of(const char *path)
{
	struct stat sb;

	assert_int_equal(lstat(path, &sb), 0);
	return (unsigned)(sb.st_mode & 07777);
}

/* Least exposure: plan.json holds env values, so only the owner reads anything. */
static void test_modes(void **state)
{
	struct fx *f = *state;
	json_t *plan = json_pack("{s:i, s:[]}", "version", 1, "processes");
	struct srt_rundir_status st = { .version = 1, .seq = 1, .phase = SRT_RUN_STARTING };
	struct srt_rundir_events w;
	struct srt_error err;
	char *run = path_in(f, "root/run-1-1");
	char *logs = srt_xasprintf("%s/" SRT_RUNDIR_LOGS, run);
	char *p;
	mode_t old = umask(022);
	int dfd = -1;

	/* The agent's side. */
	assert_int_equal(srt_rundir_create(run, &err), 0);
	assert_int_equal(mode_of(run), 0700);
	assert_int_equal(mode_of(logs), 0700);
	assert_int_equal(srt_rundir_write_status(run, &st, &err), 0);
	p = srt_xasprintf("%s/" SRT_RUNDIR_STATUS, run);
	assert_int_equal(mode_of(p), 0600);
	free(p);
	assert_int_equal(srt_rundir_events_open(&w, run, &err), 0);
	srt_rundir_events_close(&w);
	p = srt_xasprintf("%s/" SRT_RUNDIR_EVENTS, run);
	assert_int_equal(mode_of(p), 0600);
	free(p);

	/* The controller's side. */
	p = path_in(f, "root");
	assert_int_equal(srt_rundir_create_at(p, "run-2-1", -1, -1, &dfd, &err), 0);
	free(p);
	assert_int_equal(srt_rundir_write_plan_at(dfd, "run-2-1", plan, 1, -1, -1, &err), 0);
	close(dfd);
	p = path_in(f, "root/run-2-1");
	assert_int_equal(mode_of(p), 0700);
	free(p);
	p = path_in(f, "root/run-2-1/" SRT_RUNDIR_LOGS);
	assert_int_equal(mode_of(p), 0700);
	free(p);
	p = path_in(f, "root/run-2-1/" SRT_RUNDIR_PLAN);
	assert_int_equal(mode_of(p), 0600);
	free(p);
	umask(old);
	json_decref(plan);
	free(logs);
	free(run);
}

/* The controller reads plan.json through the run directory's fd: a regular file only. */
/*
 * Paths a plan names in the log directory: a run dir is created, a stale
 * marker removed, a marker seen only as a nonempty regular file, and a link
 * planted on the way is neither followed to create nor to remove.
 */
static void test_log_paths(void **state)
{
	struct fx *f = *state;
	struct srt_error err;
	char detail[200];
	char *outside = path_in(f, "outside"), *victim = path_in(f, "outside/victim.ready");
	char *logs = path_in(f, "logs"), *marker = path_in(f, "logs/mooncake/d-n1.ready");
	char *link = path_in(f, "logs/evil");
	FILE *fp;

	assert_int_equal(mkdir(logs, 0755), 0);
	assert_int_equal(mkdir(outside, 0755), 0);
	assert_int_equal(srt_rundir_log_mkdir(logs, "mooncake/donor-n1", &err), 0);
	assert_int_equal(srt_rundir_log_mkdir(logs, "mooncake/donor-n1", &err),
			 0); /* again: fine */
	assert_int_equal(srt_rundir_marker(logs, "mooncake/d-n1.ready", detail, sizeof(detail)), 0);
	assert_non_null(strstr(detail, "no such file"));
	fp = fopen(marker, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(srt_rundir_marker(logs, "mooncake/d-n1.ready", detail, sizeof(detail)), 0);
	assert_non_null(strstr(detail, "empty"));
	fp = fopen(marker, "w");
	fputs("10.0.0.2 4294967296\n", fp);
	fclose(fp);
	assert_int_equal(srt_rundir_marker(logs, "mooncake/d-n1.ready", detail, sizeof(detail)), 1);
	assert_int_equal(srt_rundir_log_remove(logs, "mooncake/d-n1.ready", &err), 0);
	assert_int_equal(access(marker, F_OK), -1);
	assert_int_equal(srt_rundir_log_remove(logs, "mooncake/d-n1.ready", &err),
			 0); /* gone: fine */

	/* logs/evil -> outside: not followed to read, remove or create */
	assert_int_equal(symlink(outside, link), 0);
	fp = fopen(victim, "w");
	fputs("x\n", fp);
	fclose(fp);
	assert_int_equal(srt_rundir_marker(logs, "evil/victim.ready", detail, sizeof(detail)), 0);
	assert_int_equal(srt_rundir_log_remove(logs, "evil/victim.ready", &err), -1);
	assert_int_equal(access(victim, F_OK), 0);
	assert_int_equal(srt_rundir_log_mkdir(logs, "evil/run", &err), -1);
	free(link);
	link = path_in(f, "outside/run");
	assert_int_equal(access(link, F_OK), -1);
	/* a link as the marker itself is no marker, and removing it removes the link only */
	assert_int_equal(symlink(victim, marker), 0);
	assert_int_equal(srt_rundir_marker(logs, "mooncake/d-n1.ready", detail, sizeof(detail)), 0);
	assert_non_null(strstr(detail, "symbolic link"));
	assert_int_equal(srt_rundir_log_remove(logs, "mooncake/d-n1.ready", &err), 0);
	assert_int_equal(access(victim, F_OK), 0);
	free(outside);
	free(victim);
	free(logs);
	free(marker);
	free(link);
}

static void test_plan_at_refuses_links(void **state)
{
	struct fx *f = *state;
	json_t *plan = json_pack("{s:i, s:[]}", "version", 1, "processes"), *back = NULL;
	struct srt_error err;
	char *p = path_in(f, SRT_RUNDIR_PLAN);
	int64_t gen = 0;
	int dfd = open(f->dir, O_RDONLY | O_DIRECTORY);

	assert_true(dfd >= 0);
	assert_int_equal(srt_rundir_read_plan_at(dfd, f->dir, &back, &gen, &err), -1);
	assert_non_null(strstr(err.msg, "does not exist"));
	assert_int_equal(srt_rundir_write_plan_at(dfd, f->dir, plan, 4, -1, -1, &err), 0);
	assert_int_equal(srt_rundir_read_plan_at(dfd, f->dir, &back, &gen, &err), 0);
	assert_int_equal(gen, 4);
	json_decref(back);
	back = NULL;
	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink("/dev/zero", p), 0);
	assert_int_equal(srt_rundir_read_plan_at(dfd, f->dir, &back, &gen, &err), -1);
	assert_non_null(strstr(err.msg, "is a symbolic link"));
	assert_null(back);
	close(dfd);
	json_decref(plan);
	free(p);
}

/*
 * A missing log root is made without following a link in a parent that
 * another user owns (root only: the link must belong to somebody else).
 */
static void test_root_parent_link(void **state)
{
	struct fx *f = *state;
	char *victim, *link, *root, *mine, *root2, *made;
	struct srt_error err;
	struct stat sb;
	int fd;

	if (geteuid() != 0)
		skip();
	victim = path_in(f, "victim");
	link = path_in(f, "shared");
	root = path_in(f, "shared/logs");
	mine = path_in(f, "mine");
	root2 = path_in(f, "mine/logs");
	made = path_in(f, "victim/logs");
	assert_int_equal(mkdir(victim, 0755), 0);
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(lchown(link, 12345, 12345), 0);
	assert_int_equal(srt_rundir_open_root(root, &err), -1);
	assert_non_null(strstr(err.msg, "is a symbolic link owned by uid 12345"));
	assert_int_equal(stat(made, &sb), -1); /* nothing made behind the link */
	/* A link root owns is followed: an administrator's /scratch -> /lustre/scratch. */
	assert_int_equal(symlink(victim, mine), 0);
	fd = srt_rundir_open_root(root2, &err);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(stat(made, &sb), 0);
	free(victim);
	free(link);
	free(root);
	free(mine);
	free(root2);
	free(made);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_plan_round_trip, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_plan_errors, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_status_round_trip, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_status_missing_and_invalid, fx_setup,
						fx_teardown),
		cmocka_unit_test(test_frontend_url_ok),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_env_hash),
		cmocka_unit_test_setup_teardown(test_events_format, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_events_reopen_large, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_events_seq_across_reopen_and_torn_line,
						fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_events_bad_lines, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_events_bounded, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_status_bounded, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_modes, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_plan_at_refuses_links, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_log_paths, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_root_parent_link, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
