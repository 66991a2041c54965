/*
 * tests/unit/test_supervise.c: the agent's supervision state machine
 * (agent/supervise.h), one policy per test.
 *
 * Processes are hand-made specs; time is just the `now` each observation
 * is fed with, so back-offs, readiness timeouts and kill escalation are
 * tested without a clock or a process.  Each step's actions are rendered
 * as one line ("event:BackOff launch:restart signal:15 fail-run ...") and
 * compared whole, so a test fails on a missing, extra or reordered action;
 * messages are checked where tests/cli/test_agent.sh matches them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/supervise.h"

/* ---- fixtures ---- */

static struct srt_runplan_proc spec(const char *name, enum srt_proc_kind kind, int nprobes,
				    int group)
{
	struct srt_runplan_proc p;

	memset(&p, 0, sizeof(p));
	p.name = name;
	p.kind = kind;
	p.service = kind == SRT_PROC_SERVICE ? name : NULL;
	p.index = p.rank = -1;
	p.host = "n1";
	p.ip = "10.0.0.1";
	p.log_file = "x.out";
	p.critical = true;
	p.group = group;
	p.nprobes = (size_t)nprobes;
	for (int k = 0; k < nprobes; k++)
		p.probes[k] = (struct srt_runplan_probe){ .http = k == 2,
							  .port = 8700 + k,
							  .path = k == 2 ? "/health" : NULL,
							  .status = 200 };
	p.endpoint = nprobes ? "10.0.0.1:8700" : NULL;
	p.timeout_s = 30;
	p.interval_s = 1;
	p.restart = (struct srt_restart_policy){ .mode = SRT_RESTART_ON_FAILURE,
						 .max_restarts = 5,
						 .backoff_seconds = 1,
						 .max_backoff_seconds = 60,
						 .reset_after_seconds = 300 };
	return p;
}

static struct srt_sup_ctx ctx(void)
{
	struct srt_sup_ctx c;

	memset(&c, 0, sizeof(c));
	c.generation = 1;
	c.grace_ms = 10000;
	c.live_fails = 3;
	return c;
}

static char line[2048];
static struct srt_sup_actions acts;
static struct srt_sup_ctx c; /* what the run says: ctx() again before each test */

static const char *act_name(const struct srt_sup_action *x, char *buf, size_t n)
{
	static const char *how[] = { "first", "restart", "follow", "rollout" };

	switch (x->kind) {
	case SRT_SUP_DO_LAUNCH:
		snprintf(buf, n, "launch:%s", how[x->how]);
		break;
	case SRT_SUP_DO_SIGNAL:
		snprintf(buf, n, "signal:%d", x->sig);
		break;
	case SRT_SUP_DO_EVENT:
		snprintf(buf, n, "event:%s", x->reason);
		break;
	case SRT_SUP_DO_MARK_READY:
		snprintf(buf, n, "ready");
		break;
	case SRT_SUP_DO_FAIL_RUN:
		snprintf(buf, n, "fail-run");
		break;
	case SRT_SUP_DO_FAIL_ROLLOUT:
		snprintf(buf, n, "fail-rollout");
		break;
	case SRT_SUP_DO_END_RUN:
		snprintf(buf, n, "end-run:%d", x->code);
		break;
	case SRT_SUP_DO_NOTIFY_FOLLOWERS:
		snprintf(buf, n, "notify");
		break;
	}
	return buf;
}

/* Feed one observation; returns the actions as one line ("" for none). */
static const char *feed(struct srt_sup_proc *s, const struct srt_sup_ctx *cx,
			const struct srt_sup_obs *ob, int64_t now)
{
	size_t off = 0;

	srt_sup_actions_release(&acts);
	srt_sup_step(s, cx, ob, now, &acts);
	line[0] = '\0';
	for (size_t i = 0; i < acts.n; i++) {
		char buf[64];

		off += (size_t)snprintf(line + off, sizeof(line) - off, "%s%s", i ? " " : "",
					act_name(&acts.a[i], buf, sizeof(buf)));
	}
	return line;
}

static const char *on(struct srt_sup_proc *s, const struct srt_sup_ctx *cx,
		      enum srt_sup_obs_kind kind, int64_t now)
{
	struct srt_sup_obs ob;

	memset(&ob, 0, sizeof(ob));
	ob.kind = kind;
	return feed(s, cx, &ob, now);
}

static const char *spawned(struct srt_sup_proc *s, const struct srt_sup_ctx *cx, long pid,
			   int64_t now)
{
	struct srt_sup_obs ob = { .kind = SRT_SUP_ON_SPAWNED, .pid = pid, .err = "no such file" };

	return feed(s, cx, &ob, now);
}

static const char *exited(struct srt_sup_proc *s, const struct srt_sup_ctx *cx, int code,
			  int64_t now)
{
	struct srt_sup_obs ob = { .kind = SRT_SUP_ON_EXIT, .code = code };

	return feed(s, cx, &ob, now);
}

/* A probe round: ok is a string of '1'/'0', one per probe. */
static const char *probed(struct srt_sup_proc *s, const struct srt_sup_ctx *cx, const char *ok,
			  int64_t now)
{
	struct srt_sup_obs ob = { .kind = SRT_SUP_ON_PROBED };

	for (size_t k = 0; ok[k] && k < 4; k++) {
		ob.ok[k] = ok[k] == '1';
		ob.detail[k] = ok[k] == '1' ? "connected" : "connection refused";
	}
	return feed(s, cx, &ob, now);
}

/* The text of action i (the step's part: no held ports, no tail). */
static const char *text(size_t i)
{
	assert_true(i < acts.n);
	return acts.a[i].text ? acts.a[i].text : "";
}

static int setup(void **state)
{
	(void)state;
	c = ctx();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	srt_sup_actions_release(&acts);
	return 0;
}

/* Launch s (gate open, spawned) at t; with probes, make it ready at t+1000. */
static void up(struct srt_sup_proc *s, const struct srt_sup_ctx *cx, int64_t t)
{
	on(s, cx, SRT_SUP_ON_GATE_OPEN, t);
	spawned(s, cx, 100, t);
	if (s->spec->nprobes)
		probed(s, cx, "111", t + 1000);
}

/* A new process for p, up (launched and ready) since 0. */
static void fresh_up(struct srt_sup_proc *s, const struct srt_runplan_proc *p)
{
	srt_sup_init(s, p);
	up(s, &c, 0);
}

/* ---- tests ---- */

/* Pending waits for its gate; a gate stays closed until probed processes below are ready. */
static void test_start_order_and_gates(void **state)
{
	struct srt_runplan_proc pm = spec("mooncake-master", SRT_PROC_SERVICE, 3, 0);
	struct srt_runplan_proc pw = spec("agg_0", SRT_PROC_WORKER, 0, 1);
	struct srt_runplan_proc pb = spec("benchmark", SRT_PROC_BENCHMARK, 0, 2);
	struct srt_sup_proc m, w, b;

	(void)state;
	srt_sup_init(&m, &pm);
	srt_sup_init(&w, &pw);
	srt_sup_init(&b, &pb);
	assert_int_equal(m.st, SRT_SUP_PENDING);
	assert_int_equal(m.shown, SRT_PS_PENDING);
	assert_false(srt_sup_running(&m));
	/* Group 0 has nothing below it; group 1 waits for the master. */
	assert_false(srt_sup_holds_gate(&m, 0));
	assert_true(srt_sup_holds_gate(&m, 1));
	assert_int_equal(srt_sup_up(&m), 0);
	assert_int_equal(srt_sup_up(&b), -1); /* the benchmark is not part of RunReady */

	/* Time alone does not launch anything. */
	assert_string_equal(on(&m, &c, SRT_SUP_ON_TIME, 5000), "");
	assert_string_equal(on(&m, &c, SRT_SUP_ON_GATE_OPEN, 0), "launch:first");
	assert_null(acts.a[0].text);
	assert_int_equal(m.st, SRT_SUP_LAUNCHING);
	assert_string_equal(spawned(&m, &c, 4321, 0), "event:Started");
	assert_string_equal(text(0), "started on n1 (10.0.0.1) as SLURM step 'mooncake-master', "
				     "pid 4321; log x.out; waiting for tcp 8700, tcp 8701, http "
				     "8702 /health");
	assert_int_equal(m.st, SRT_SUP_STARTING);
	assert_int_equal(m.shown, SRT_PS_STARTING);
	assert_int_equal(m.probe_at, SRT_SUP_START_PROBE_MS);
	assert_int_equal(m.deadline_at, 30000);
	assert_true(srt_sup_holds_gate(&m, 1)); /* launched, not ready */

	/* A round where one listener is missing: probed again 250 ms later. */
	assert_string_equal(probed(&m, &c, "101", 250), "");
	assert_int_equal(m.probe_at, 500);
	assert_true(m.probe_ok[0]);
	assert_false(m.probe_ok[1]);
	assert_string_equal(probed(&m, &c, "111", 1500), "ready event:Ready");
	assert_string_equal(text(1), "ready after 1.5 s: tcp 8700, tcp 8701, http 8702 /health "
				     "(endpoint 10.0.0.1:8700)");
	assert_int_equal(m.shown, SRT_PS_READY);
	assert_int_equal(m.probe_at, 2500); /* liveness: every interval */
	assert_false(srt_sup_holds_gate(&m, 1));
	assert_int_equal(srt_sup_up(&m), 1);

	/* Without probes: running is up, and the gate after it is open at once. */
	assert_string_equal(on(&w, &c, SRT_SUP_ON_GATE_OPEN, 1500), "launch:first");
	assert_true(srt_sup_holds_gate(&w, 2)); /* not launched yet */
	assert_string_equal(spawned(&w, &c, 4322, 1500), "event:Started");
	assert_int_equal(w.shown, SRT_PS_RUNNING);
	assert_int_equal(w.probe_at, SRT_SUP_NEVER);
	assert_false(srt_sup_holds_gate(&w, 2));
	assert_int_equal(srt_sup_up(&w), 1);
	/* A gate-open that comes again changes nothing. */
	assert_string_equal(on(&w, &c, SRT_SUP_ON_GATE_OPEN, 2000), "");

	/* The benchmark's exit ends the run with its status. */
	up(&b, &c, 2000);
	assert_string_equal(exited(&b, &c, 0, 9000), "event:ProcessExited end-run:0");
	assert_false(acts.a[0].warning);
	assert_int_equal(b.shown, SRT_PS_EXITED);
	assert_string_equal(on(&b, &c, SRT_SUP_ON_GATE_OPEN, 9000), ""); /* done: never again */
	srt_sup_init(&b, &pb);
	up(&b, &c, 9000);
	assert_string_equal(exited(&b, &c, 2, 9500), "event:ProcessExited end-run:2");
	assert_true(acts.a[0].warning);
}

/* A failure is restarted at once, then with doubling back-off; the restart waits for its gate. */
static void test_restart_with_backoff(void **state)
{
	struct srt_runplan_proc p = spec("mooncake-master", SRT_PROC_SERVICE, 3, 0);
	struct srt_sup_proc s;

	(void)state;
	fresh_up(&s, &p);
	assert_string_equal(exited(&s, &c, 1, 60000), "event:ProcessExited event:BackOff");
	assert_true(acts.a[0].warning);
	assert_true(acts.a[0].tail);
	assert_string_equal(text(0), "exited with status 1 after 60.0 s");
	assert_string_equal(text(1), "back-off 0.0 s before restart 1 of 5 (exit status 1)");
	assert_int_equal(s.st, SRT_SUP_BACKOFF);
	assert_int_equal(s.shown, SRT_PS_CRASHLOOP);
	assert_int_equal(s.restart_at, 60000);
	assert_int_equal(s.exit_code, 1);
	assert_false(srt_sup_running(&s));
	assert_true(srt_sup_holds_gate(&s, 1)); /* not ready: what comes after waits */

	assert_string_equal(on(&s, &c, SRT_SUP_ON_GATE_OPEN, 60000), "launch:restart");
	assert_string_equal(text(0), "after exit status 1");
	assert_int_equal(s.restarts, 1);
	assert_string_equal(spawned(&s, &c, 200, 60000), "event:Restarted");
	assert_string_equal(text(0), "restarted (restart 1: after exit status 1) on n1 "
				     "(10.0.0.1) as SLURM step 'mooncake-master', pid 200; log "
				     "x.out");
	assert_true(s.notify_followers);
	probed(&s, &c, "111", 61000);

	/* The second failure within reset_after_seconds waits 1 s, the third 2 s. */
	assert_string_equal(exited(&s, &c, 1, 70000), "event:ProcessExited event:BackOff");
	assert_string_equal(text(1), "back-off 1.0 s before restart 2 of 5 (exit status 1)");
	assert_int_equal(s.restart_at, 71000);
	assert_string_equal(on(&s, &c, SRT_SUP_ON_GATE_OPEN, 70999), "");
	assert_string_equal(on(&s, &c, SRT_SUP_ON_GATE_OPEN, 71000), "launch:restart");
	spawned(&s, &c, 201, 71000);
	assert_string_equal(exited(&s, &c, 1, 72000), "event:ProcessExited event:BackOff");
	assert_string_equal(text(1), "back-off 2.0 s before restart 3 of 5 (exit status 1)");
	assert_int_equal(s.budget, 3);

	/* A clean exit under on-failure is left alone; a critical one fails the run. */
	on(&s, &c, SRT_SUP_ON_GATE_OPEN, 74000);
	spawned(&s, &c, 202, 74000);
	assert_string_equal(exited(&s, &c, 0, 75000), "event:ProcessExited fail-run");
	assert_false(acts.a[0].tail);
	assert_string_equal(text(1),
			    "critical process mooncake-master exited with status 0 and "
			    "its restart policy (on-failure) does not restart it; see x.out");
	assert_int_equal(s.shown, SRT_PS_EXITED);
}

/* The budget: max_restarts restarts, then RestartLimitReached (critical: the run fails). */
static void test_crashloop_budget(void **state)
{
	struct srt_runplan_proc p = spec("mooncake-master", SRT_PROC_SERVICE, 0, 0);
	struct srt_sup_proc s;
	int64_t t = 0;

	(void)state;
	p.restart.max_restarts = 2;
	srt_sup_init(&s, &p);
	up(&s, &c, t);
	for (int i = 0; i < 2; i++) {
		t += 100;
		assert_string_equal(exited(&s, &c, 3, t), "event:ProcessExited event:BackOff");
		assert_int_equal(s.shown, SRT_PS_CRASHLOOP);
		t = s.restart_at;
		assert_string_equal(on(&s, &c, SRT_SUP_ON_GATE_OPEN, t), "launch:restart");
		spawned(&s, &c, 300 + i, t);
	}
	assert_int_equal(s.restarts, 2);
	assert_string_equal(exited(&s, &c, 3, t + 100),
			    "event:ProcessExited event:RestartLimitReached fail-run");
	assert_string_equal(text(1), "exited with status 3 and has used all 2 restarts "
				     "(restart.max_restarts); see x.out");
	assert_string_equal(text(2), "critical process mooncake-master failed 3 times in a row "
				     "(last exit status 3); see x.out and raise "
				     "restart.max_restarts only once the cause is fixed");
	assert_int_equal(s.st, SRT_SUP_FAILED);
	assert_int_equal(s.shown, SRT_PS_FAILED);
	assert_string_equal(on(&s, &c, SRT_SUP_ON_GATE_OPEN, t + 5000), "");
}

/* A non-critical process that is given up: no run failure, the run is Degraded. */
static void test_degraded(void **state)
{
	struct srt_runplan_proc p = spec("sidecar", SRT_PROC_SERVICE, 0, 1);
	struct srt_runplan_proc pr = spec("sidecar", SRT_PROC_SERVICE, 1, 1);
	struct srt_sup_proc s, r;

	(void)state;
	p.critical = false;
	p.restart.max_restarts = 0;
	fresh_up(&s, &p);
	assert_false(srt_sup_given_up(&s));
	assert_string_equal(exited(&s, &c, 1, 100),
			    "event:ProcessExited event:RestartLimitReached");
	assert_true(srt_sup_given_up(&s));
	assert_int_equal(srt_sup_up(&s), -1);	 /* left out of RunReady */
	assert_false(srt_sup_holds_gate(&s, 5)); /* and of the gates */

	/* Not ready on its first start: ReadinessFailed, the run goes on. */
	pr.critical = false;
	srt_sup_init(&r, &pr);
	on(&r, &c, SRT_SUP_ON_GATE_OPEN, 0);
	spawned(&r, &c, 7, 0);
	assert_string_equal(exited(&r, &c, 1, 100), "event:ProcessExited event:ReadinessFailed");
	assert_string_equal(text(1), "exited with status 1 before it was ready: tcp 8700 never "
				     "answered at 10.0.0.1; it is not critical, so the run goes on "
				     "without it");
	assert_int_equal(acts.a[1].held_at,
			 (long)strlen("exited with status 1 before it was ready: tcp 8700 never "
				      "answered at 10.0.0.1"));
	assert_true(srt_sup_given_up(&r));
}

/* A run of at least reset_after_seconds clears the budget: the next restart is immediate. */
static void test_reset_after(void **state)
{
	struct srt_runplan_proc p = spec("store", SRT_PROC_SERVICE, 0, 1);
	struct srt_sup_proc s;

	(void)state;
	p.restart.reset_after_seconds = 10;
	fresh_up(&s, &p);
	exited(&s, &c, 1, 100);
	on(&s, &c, SRT_SUP_ON_GATE_OPEN, 100);
	spawned(&s, &c, 8, 100);
	assert_string_equal(exited(&s, &c, 1, 200), "event:ProcessExited event:BackOff");
	assert_string_equal(text(1), "back-off 1.0 s before restart 2 of 5 (exit status 1)");
	on(&s, &c, SRT_SUP_ON_GATE_OPEN, 1200);
	spawned(&s, &c, 9, 1200);
	/* 10 s of running: the count starts again. */
	assert_string_equal(exited(&s, &c, 1, 11200), "event:ProcessExited event:BackOff");
	assert_string_equal(text(1), "back-off 0.0 s before restart 1 of 5 (exit status 1)");
	assert_int_equal(s.budget, 1);
	assert_int_equal(s.restarts, 2); /* what status.json shows keeps counting */
}

/* Liveness: N failed rounds in a row make it Unhealthy; SIGTERM, SIGKILL, restart counted. */
static void test_liveness(void **state)
{
	struct srt_runplan_proc p = spec("mooncake-master", SRT_PROC_SERVICE, 3, 0);
	struct srt_sup_proc s;

	(void)state;
	fresh_up(&s, &p);
	assert_string_equal(probed(&s, &c, "110", 2000), "");
	assert_string_equal(probed(&s, &c, "011", 3000), "");
	/* Liveness reports the first probe that failed only. */
	assert_string_equal(s.last_probe, "tcp 8700: connection refused");
	/* A good round in between resets the count. */
	assert_string_equal(probed(&s, &c, "111", 4000), "");
	assert_int_equal(s.probe_fails, 0);
	assert_string_equal(probed(&s, &c, "011", 5000), "");
	assert_string_equal(probed(&s, &c, "011", 6000), "");
	assert_int_equal(s.shown, SRT_PS_READY);
	assert_string_equal(probed(&s, &c, "011", 7000), "event:Unhealthy signal:15");
	assert_string_equal(text(0), "3 liveness probes in a row failed (last: tcp 8700: "
				     "connection refused); restarting it");
	assert_int_equal(s.st, SRT_SUP_RESTARTING);
	assert_int_equal(s.shown, SRT_PS_UNHEALTHY);
	assert_int_equal(s.probe_at, SRT_SUP_NEVER);
	assert_false(s.ready);
	/* Hung: SIGKILL once the grace is over, once. */
	assert_string_equal(on(&s, &c, SRT_SUP_ON_TIME, 16999), "");
	assert_string_equal(on(&s, &c, SRT_SUP_ON_TIME, 17000), "event:Killed signal:9");
	assert_string_equal(text(0), "did not stop within 10.0 s of SIGTERM (liveness probes "
				     "failed); sent SIGKILL");
	assert_string_equal(on(&s, &c, SRT_SUP_ON_TIME, 18000), "");
	/* The kill counts as a failure: no ProcessExited, a back-off. */
	assert_string_equal(exited(&s, &c, 137, 17100), "event:BackOff");
	assert_string_equal(s.why, "liveness probes failed (exit status 137)");
	assert_int_equal(s.budget, 1);
}

/* Followers: restarted (not counted) when their master is ready again after a restart. */
static void test_followers(void **state)
{
	struct srt_runplan_proc pm = spec("mooncake-master", SRT_PROC_SERVICE, 3, 0);
	struct srt_runplan_proc ps = spec("mooncake-store", SRT_PROC_SERVICE, 0, 1);
	struct srt_sup_proc m, st;

	(void)state;
	ps.follows = "mooncake-master";
	srt_sup_init(&m, &pm);
	srt_sup_init(&st, &ps);
	/* The first start's Ready notifies nobody. */
	on(&m, &c, SRT_SUP_ON_GATE_OPEN, 0);
	spawned(&m, &c, 1, 0);
	assert_string_equal(probed(&m, &c, "111", 1000), "ready event:Ready");
	up(&st, &c, 1000);

	/* Killed; restarted at once; ready again: its followers are told. */
	exited(&m, &c, 137, 5000);
	on(&m, &c, SRT_SUP_ON_GATE_OPEN, 5000);
	spawned(&m, &c, 2, 5000);
	assert_string_equal(probed(&m, &c, "011", 5250), "");
	assert_string_equal(probed(&m, &c, "111", 6300), "ready event:Ready notify");
	assert_false(m.notify_followers);
	assert_string_equal(probed(&m, &c, "111", 7300), ""); /* once */

	assert_string_equal(on(&st, &c, SRT_SUP_ON_FOLLOW, 6300), "event:Restarting signal:15");
	assert_string_equal(text(0), "restarting because mooncake-master restarted: the master "
				     "keeps its object index and HTTP metadata in RAM only, so "
				     "mooncake-store must register with the new instance");
	assert_int_equal(st.shown, SRT_PS_RUNNING); /* still up while it is stopped */
	/* A second request while it is being stopped changes nothing. */
	assert_string_equal(on(&st, &c, SRT_SUP_ON_FOLLOW, 6400), "");
	assert_string_equal(exited(&st, &c, 143, 6500), "launch:follow");
	assert_string_equal(text(0), "its master restarted");
	assert_int_equal(st.restarts, 1);
	assert_int_equal(st.budget, 0); /* not counted */
	assert_string_equal(spawned(&st, &c, 3, 6500), "event:Restarted");
	assert_string_equal(text(0), "restarted (restart 1: its master restarted) on n1 "
				     "(10.0.0.1) as SLURM step 'mooncake-store', pid 3; log x.out");

	/* A follower backing off is not running: nothing to restart. */
	exited(&st, &c, 1, 7000);
	assert_int_equal(st.st, SRT_SUP_BACKOFF);
	assert_string_equal(on(&st, &c, SRT_SUP_ON_FOLLOW, 7100), "");
}

/* Readiness on the first start fails the run; after a restart it is a counted failure. */
static void test_readiness_first_start_vs_restart(void **state)
{
	struct srt_runplan_proc p = spec("mooncake-master", SRT_PROC_SERVICE, 3, 0);
	struct srt_sup_proc s;
	const char *exit_msg = "mooncake-master exited with status 1 before it was ready: tcp 8700 "
			       "answered, tcp 8701 never answered (connection refused), http 8702 "
			       "/health never answered (connection refused) at 10.0.0.1";

	(void)state;
	/* Exits before ready on its first start: fails the run, no restart. */
	srt_sup_init(&s, &p);
	on(&s, &c, SRT_SUP_ON_GATE_OPEN, 0);
	spawned(&s, &c, 1, 0);
	probed(&s, &c, "100", 250);
	assert_string_equal(exited(&s, &c, 1, 400), "event:ProcessExited fail-run");
	assert_string_equal(text(1), exit_msg);
	assert_int_equal(acts.a[1].held_at, (long)strlen(exit_msg));
	assert_true(acts.a[1].tail);
	assert_int_equal(s.st, SRT_SUP_FAILED);

	/* Not ready in time on its first start: given up (SIGTERM) and the run fails. */
	srt_sup_init(&s, &p);
	on(&s, &c, SRT_SUP_ON_GATE_OPEN, 0);
	spawned(&s, &c, 1, 0);
	assert_string_equal(probed(&s, &c, "100", 29999), "");
	assert_string_equal(probed(&s, &c, "100", 30000),
			    "event:ReadinessTimeout signal:15 fail-run");
	assert_string_equal(text(0), "not ready within 30 s: tcp port 8701, http port 8702 on "
				     "10.0.0.1 never answered (last probe: tcp 8701: connection "
				     "refused); check x.out, or raise readiness.timeout_seconds if "
				     "it only needs longer");
	assert_string_equal(text(2), "mooncake-master was not ready within 30 s: tcp port 8701, "
				     "http port 8702 on 10.0.0.1 never answered; check x.out");
	assert_int_equal(s.st, SRT_SUP_GIVEN_UP);
	assert_int_equal(s.shown, SRT_PS_FAILED);
	assert_string_equal(on(&s, &c, SRT_SUP_ON_TIME, 40000), "event:Killed signal:9");
	assert_string_equal(text(0), "did not stop within 10.0 s of SIGTERM (it was given up); "
				     "sent SIGKILL");
	assert_string_equal(exited(&s, &c, 137, 40100), "event:ProcessExited");
	assert_string_equal(text(0), "exited with status 137 after it was given up");

	/* After a restart: ReadinessTimeout, then a restart counted against the budget. */
	fresh_up(&s, &p);
	exited(&s, &c, 1, 5000);
	on(&s, &c, SRT_SUP_ON_GATE_OPEN, 5000);
	spawned(&s, &c, 2, 5000);
	assert_string_equal(probed(&s, &c, "000", 35000), "event:ReadinessTimeout signal:15");
	assert_string_equal(text(0), "not ready within 30 s after restart 1: tcp port 8700, tcp "
				     "port 8701, http port 8702 on 10.0.0.1 never answered (last "
				     "probe: tcp 8700: connection refused)");
	assert_int_equal(s.st, SRT_SUP_RESTARTING);
	assert_int_equal(s.shown, SRT_PS_UNHEALTHY);
	assert_string_equal(exited(&s, &c, 143, 35100), "event:BackOff");
	assert_string_equal(text(0), "back-off 1.0 s before restart 2 of 5 (exit status 143)");
	assert_string_equal(s.why, "not ready within 30 s (exit status 143)");

	/* An exit before ready after a restart is a crash like any other. */
	on(&s, &c, SRT_SUP_ON_GATE_OPEN, 36100);
	spawned(&s, &c, 3, 36100);
	assert_string_equal(exited(&s, &c, 1, 36200), "event:ProcessExited event:BackOff");

	/* A spawn failure of a critical process fails the run. */
	srt_sup_init(&s, &p);
	on(&s, &c, SRT_SUP_ON_GATE_OPEN, 0);
	assert_string_equal(spawned(&s, &c, -1, 0), "event:FailedToStart fail-run");
	assert_string_equal(text(1), "critical process 'mooncake-master' could not be started: no "
				     "such file");
	assert_int_equal(s.exit_code, 127);
}

/* A new generation: replace (restart with the new spec), retire, rollout failure, rollback. */
static void test_rollout(void **state)
{
	struct srt_runplan_proc p = spec("mooncake-master", SRT_PROC_SERVICE, 3, 0);
	struct srt_runplan_proc pb = spec("benchmark", SRT_PROC_BENCHMARK, 0, 3);
	struct srt_sup_proc s, b;
	struct srt_sup_obs rep = { .kind = SRT_SUP_ON_REPLACE, .why = "command or args changed" };

	(void)state;
	fresh_up(&s, &p);
	s.budget = 3;
	/* Replaced: SIGTERM, and at its exit a new start at once, budget reset, not counted. */
	c.generation = 2;
	c.judging = true;
	c.rollout_at = 10000;
	assert_string_equal(on(&s, &c, SRT_SUP_ON_GENERATION, 10000), "");
	assert_string_equal(feed(&s, &c, &rep, 10000), "signal:15");
	assert_true(s.rolling);
	assert_true(srt_sup_rollout_waits(&s));
	assert_string_equal(exited(&s, &c, 143, 10100), "launch:rollout");
	assert_string_equal(text(0), "command or args changed");
	assert_int_equal(s.budget, 0);
	assert_int_equal(s.restarts, 0);
	assert_string_equal(spawned(&s, &c, 5, 10100), "event:RolledOut");
	assert_string_equal(text(0),
			    "started with generation 2 (command or args changed) on n1 "
			    "(10.0.0.1) as SLURM step 'mooncake-master', pid 5; log x.out");
	/* Ready again: the rollout no longer waits for it. */
	assert_string_equal(probed(&s, &c, "111", 11000), "ready event:Ready notify");
	assert_false(s.rolling);
	assert_false(srt_sup_rollout_waits(&s));

	/* Judged: an exit before it is ready fails the rollout, not the run; no restart. */
	feed(&s, &c, &rep, 20000);
	exited(&s, &c, 143, 20100);
	spawned(&s, &c, 6, 20100);
	assert_string_equal(exited(&s, &c, 1, 20200), "event:ProcessExited fail-rollout");
	assert_string_equal(text(1), "exited with status 1 before it was ready: tcp 8700 never "
				     "answered, tcp 8701 never answered, http 8702 /health never "
				     "answered at 10.0.0.1");
	assert_true(s.failed_rollout);
	assert_int_equal(s.st, SRT_SUP_FAILED);
	assert_false(srt_sup_rollout_waits(&s));

	/* The rollback: a FAILED process gets a new start with the old spec (no restart counted). */
	c.generation = 1;
	c.failed_gen = 2;
	c.judging = false;
	c.rolling_back = true;
	assert_string_equal(on(&s, &c, SRT_SUP_ON_GENERATION, 21000), "");
	assert_false(s.failed_rollout);
	rep.why = "it failed with generation 2";
	assert_string_equal(feed(&s, &c, &rep, 21000), "");
	assert_int_equal(s.st, SRT_SUP_BACKOFF);
	assert_int_equal(s.shown, SRT_PS_CRASHLOOP);
	assert_string_equal(on(&s, &c, SRT_SUP_ON_GATE_OPEN, 21000), "launch:rollout");
	assert_int_equal(s.restarts, 0);
	assert_string_equal(spawned(&s, &c, 7, 21000), "event:RolledBack");
	assert_true(acts.a[0].warning);
	assert_string_equal(text(0), "started again with generation 1 (it failed with generation "
				     "2; generation 2 failed) on n1 (10.0.0.1) as SLURM step "
				     "'mooncake-master', pid 7; log x.out");
	/* Not judged while rolling back: a failure is handled by the restart policy. */
	assert_string_equal(exited(&s, &c, 1, 21100), "event:ProcessExited event:BackOff");

	/* Judged: not ready in time fails the rollout; it keeps running until the rollback. */
	c.judging = true;
	c.rolling_back = false;
	c.generation = 3;
	srt_sup_init(&s, &p);
	s.rolling = true;
	on(&s, &c, SRT_SUP_ON_GATE_OPEN, 0);
	spawned(&s, &c, 8, 0);
	assert_string_equal(probed(&s, &c, "110", 30000), "event:ReadinessTimeout fail-rollout");
	assert_string_equal(text(0), "not ready within 30 s of its start with generation 3: http "
				     "port 8702 on 10.0.0.1 never answered (last probe: http 8702 "
				     "/health: connection refused)");
	assert_string_equal(text(1), "was not ready within 30 s (readiness.timeout_seconds): http "
				     "port 8702 on 10.0.0.1 never answered");
	assert_int_equal(s.shown, SRT_PS_UNHEALTHY);
	assert_true(srt_sup_running(&s));
	assert_string_equal(probed(&s, &c, "110", 31000), ""); /* not timed out twice */

	/* Judged: a spawn failure fails the rollout. */
	srt_sup_init(&s, &p);
	s.rolling = true;
	on(&s, &c, SRT_SUP_ON_GATE_OPEN, 0);
	assert_string_equal(spawned(&s, &c, -1, 0), "event:FailedToStart fail-rollout");
	assert_string_equal(text(1), "could not be started: no such file");

	/* Retired: SIGTERM, SIGKILL after the grace, Removed at its exit. */
	fresh_up(&s, &p);
	assert_string_equal(on(&s, &c, SRT_SUP_ON_RETIRE, 5000), "signal:15");
	assert_true(srt_sup_rollout_waits(&s));
	assert_string_equal(on(&s, &c, SRT_SUP_ON_RETIRE, 6000), ""); /* already asked */
	assert_string_equal(on(&s, &c, SRT_SUP_ON_TIME, 15000), "event:Killed signal:9");
	assert_string_equal(text(0), "did not stop within 10.0 s of SIGTERM (it is being removed); "
				     "sent SIGKILL");
	assert_string_equal(exited(&s, &c, 137, 15100), "event:Removed");
	assert_string_equal(text(0), "stopped (exit status 137): generation 3 of the recipe no "
				     "longer has it");
	assert_int_equal(s.st, SRT_SUP_REMOVED);
	assert_false(srt_sup_rollout_waits(&s));

	/* A deferred replace (its master is replaced too) waits for the follower restart. */
	fresh_up(&s, &p);
	rep.defer = true;
	assert_string_equal(feed(&s, &c, &rep, 5000), "");
	assert_int_equal(s.st, SRT_SUP_READY);
	assert_true(s.rolling);

	/* Unchanged, but the new generation's readiness applies: probes gone, or new ones. */
	{
		struct srt_runplan_proc p0 = spec("mooncake-store", SRT_PROC_SERVICE, 0, 1);
		struct srt_runplan_proc p1 = spec("mooncake-store", SRT_PROC_SERVICE, 1, 1);

		srt_sup_init(&s, &p1);
		on(&s, &c, SRT_SUP_ON_GATE_OPEN, 0);
		spawned(&s, &c, 9, 0);
		s.spec = &p0;
		on(&s, &c, SRT_SUP_ON_GENERATION, 100);
		assert_int_equal(s.probe_at, SRT_SUP_NEVER);
		assert_string_equal(probed(&s, &c, "", 200), "");

		srt_sup_init(&s, &p0);
		up(&s, &c, 0);
		s.spec = &p1;
		on(&s, &c, SRT_SUP_ON_GENERATION, 100);
		assert_int_equal(s.probe_at, 100);
		assert_string_equal(probed(&s, &c, "1", 100), ""); /* up already */
		probed(&s, &c, "0", 1100);
		probed(&s, &c, "0", 2100);
		assert_string_equal(probed(&s, &c, "0", 3100), "event:Unhealthy signal:15");
	}

	/* A running benchmark is never interrupted. */
	srt_sup_init(&b, &pb);
	assert_true(srt_sup_replaceable(&b));
	up(&b, &c, 0);
	assert_false(srt_sup_replaceable(&b));
}

/* The external master: probed, never launched; warnings at most every 60 s. */
static void test_external_master(void **state)
{
	struct srt_runplan_proc p = spec("mooncake-master", SRT_PROC_SERVICE, 1, 0);
	struct srt_sup_proc s;

	(void)state;
	p.external = true;
	p.endpoint = "10.9.9.9:8700";
	srt_sup_init(&s, &p);
	assert_int_equal(s.probe_at, 0);
	assert_string_equal(on(&s, &c, SRT_SUP_ON_GATE_OPEN, 0), "");
	assert_false(srt_sup_running(&s));
	assert_true(srt_sup_holds_gate(&s, 1));
	assert_string_equal(probed(&s, &c, "0", 10), "event:MasterUnreachable");
	assert_string_equal(text(0), "external mooncake-master at 10.9.9.9:8700 does not answer "
				     "(tcp 8700: connection refused); workers not started yet are "
				     "held back until it does");
	assert_string_equal(probed(&s, &c, "0", 1000), "");
	assert_string_equal(probed(&s, &c, "0", 60009), "");
	assert_string_equal(probed(&s, &c, "0", 60010), "event:MasterUnreachable");
	assert_string_equal(probed(&s, &c, "1", 101000), "ready event:Ready");
	assert_string_equal(text(1),
			    "external mooncake-master at 10.9.9.9:8700 answers (tcp 8700)");
	assert_false(srt_sup_holds_gate(&s, 1));
	assert_string_equal(exited(&s, &c, 1, 102000), ""); /* it has no process */
}

/* The run stops: back-offs end, running processes wait for their tier; Stopped at exit. */
static void test_stop_process(void **state)
{
	struct srt_runplan_proc p = spec("agg_0", SRT_PROC_WORKER, 0, 0);
	struct srt_sup_proc s, b;

	(void)state;
	srt_sup_init(&s, &p);
	srt_sup_init(&b, &p);
	up(&s, &c, 0);
	up(&b, &c, 0);
	exited(&b, &c, 1, 100);
	assert_int_equal(b.st, SRT_SUP_BACKOFF);
	assert_string_equal(on(&b, &c, SRT_SUP_ON_STOP, 200), "");
	assert_int_equal(b.shown, SRT_PS_STOPPED);
	assert_string_equal(on(&b, &c, SRT_SUP_ON_GATE_OPEN, 5000), ""); /* never again */

	assert_string_equal(on(&s, &c, SRT_SUP_ON_STOP, 200), "");
	assert_int_equal(s.st, SRT_SUP_STOPPING);
	assert_string_equal(on(&s, &c, SRT_SUP_ON_STOP_TERM, 200), "signal:15");
	assert_string_equal(on(&s, &c, SRT_SUP_ON_STOP_KILL, 10200), "event:Killed signal:9");
	assert_string_equal(text(0), "did not stop within 10.0 s of SIGTERM; sent SIGKILL");
	{
		struct srt_sup_obs ob = { .kind = SRT_SUP_ON_STOP_KILL, .hurry_sig = SIGTERM };

		assert_string_equal(feed(&s, &c, &ob, 10300), "event:Killed signal:9");
		assert_non_null(strstr(text(0), "a second signal (Terminated) asked for an "
						"immediate stop"));
	}
	assert_string_equal(exited(&s, &c, 137, 10400), "event:Stopped");
	assert_string_equal(text(0), "stopped (exit status 137)");
	assert_int_equal(s.shown, SRT_PS_STOPPED);
	assert_false(srt_sup_running(&s));

	/* One that does not exit after SIGKILL is abandoned. */
	fresh_up(&s, &p);
	on(&s, &c, SRT_SUP_ON_STOP, 0);
	assert_string_equal(on(&s, &c, SRT_SUP_ON_ABANDON, 20000), "event:Abandoned");
	assert_int_equal(s.shown, SRT_PS_STOPPED);
	assert_false(srt_sup_running(&s));
}

static const char *stop_line(const struct srt_sup_stop_acts *sa)
{
	static const char *names[] = { "term", "kill", "abandon", "stopped" };
	size_t off = 0;

	line[0] = '\0';
	for (size_t i = 0; i < sa->n; i++)
		off += (size_t)snprintf(line + off, sizeof(line) - off, "%s%s:%d", i ? " " : "",
					names[sa->a[i].kind], sa->a[i].tier);
	return line;
}

/* Ordered stop: tiers 0, 1, 2; SIGTERM, SIGKILL after the grace, abandon; empty tiers skipped. */
static void test_ordered_stop(void **state)
{
	struct srt_sup_stop st;
	struct srt_sup_stop_acts sa;
	size_t running[SRT_RUNPLAN_TIERS] = { 2, 0, 1 };

	(void)state;
	srt_sup_stop_begin(&st, running, 0, 10000, &sa);
	assert_string_equal(stop_line(&sa), "term:0");
	srt_sup_stop_step(&st, running, 9999, 10000, &sa);
	assert_string_equal(stop_line(&sa), "");
	/* One of tier 0 exited; the other does not: SIGKILL. */
	running[0] = 1;
	srt_sup_stop_step(&st, running, 10000, 10000, &sa);
	assert_string_equal(stop_line(&sa), "kill:0");
	assert_int_equal(sa.a[0].hurry_sig, 0);
	srt_sup_stop_step(&st, running, 14999, 10000, &sa);
	assert_string_equal(stop_line(&sa), "");
	/* Not even SIGKILL: abandoned; tier 1 runs nothing, so tier 2 is next. */
	srt_sup_stop_step(&st, running, 15000, 10000, &sa);
	assert_string_equal(stop_line(&sa), "abandon:0 term:2");
	assert_int_equal(st.tier, 2);
	running[0] = 0;
	/* A second signal cuts tier 2's grace short. */
	assert_true(srt_sup_stop_hurry(&st, SIGTERM));
	assert_false(srt_sup_stop_hurry(&st, SIGTERM)); /* once per stage */
	srt_sup_stop_step(&st, running, 15001, 10000, &sa);
	assert_string_equal(stop_line(&sa), "kill:2");
	assert_int_equal(sa.a[0].hurry_sig, SIGTERM);
	running[2] = 0;
	srt_sup_stop_step(&st, running, 15100, 10000, &sa);
	assert_string_equal(stop_line(&sa), "stopped:3");
	assert_true(st.done);
	assert_false(srt_sup_stop_hurry(&st, SIGINT));
	srt_sup_stop_step(&st, running, 20000, 10000, &sa);
	assert_string_equal(stop_line(&sa), "");

	/* Nothing running at all: stopped at once.  A hurried stage does not hurry the next. */
	memset(running, 0, sizeof(running));
	srt_sup_stop_begin(&st, running, 0, 10000, &sa);
	assert_string_equal(stop_line(&sa), "stopped:3");
	running[0] = running[1] = 1;
	srt_sup_stop_begin(&st, running, 0, 10000, &sa);
	assert_true(srt_sup_stop_hurry(&st, SIGINT));
	running[0] = 0;
	srt_sup_stop_step(&st, running, 1, 10000, &sa);
	assert_string_equal(stop_line(&sa), "term:1");
	assert_int_equal(st.hurry_sig, 0);
	srt_sup_stop_step(&st, running, 10000, 10000, &sa);
	assert_string_equal(stop_line(&sa), "");
	srt_sup_stop_step(&st, running, 10001, 10000, &sa);
	assert_string_equal(stop_line(&sa), "kill:1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_start_order_and_gates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart_with_backoff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crashloop_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_degraded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset_after, setup, teardown),
		cmocka_unit_test_setup_teardown(test_liveness, setup, teardown),
		cmocka_unit_test_setup_teardown(test_followers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readiness_first_start_vs_restart, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_rollout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_external_master, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_process, setup, teardown),
		cmocka_unit_test(test_ordered_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
