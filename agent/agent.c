/*
 * agent/agent.c: the supervision loop of `srtctl agent`.
 *
 * This file owns the run as the agent lives it: setting up (plan, nodes,
 * placeholders, store_config), starting processes group by group behind
 * their readiness gates, watching them (exits through SIGCHLD, liveness
 * through probes), restarting them under their policy and restarting the
 * master's followers, rolling a newer plan generation out in place and
 * rolling back to the last generation that was ready when it cannot become
 * ready, ending the run (benchmark done, critical failure, SIGTERM) with an
 * ordered stop, and reporting every step to status.json and events.jsonl.
 *
 * What happens to each process is decided by its pure step
 * (agent/supervise.h): this file feeds it observations (exits, probe
 * rounds, time, open gates, new generations, the stop) and carries out the
 * actions it returns (spawn, signal, report, fail the run or the rollout).
 *
 * One thread, one loop.  Signals (SIGTERM, SIGINT, SIGHUP; SIGCHLD) are
 * blocked and read from two signalfds (the first also interrupts node
 * resolution), so the loop sleeps in poll() until a
 * signal or its next deadline (a probe, a back-off, a kill escalation, the
 * status heartbeat), never longer than a second and never spinning.
 * Deadlines use the monotonic clock; timestamps in the reports use the
 * injected clock.
 */
#include "agent/agent.h"
#include "agent/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <limits.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe/probe.h"
#include "runplan/points.h"
#include "util/sha256.h"
#include "util/strutil.h"

/* A failure message carries the last TAIL_LINES lines of the log, at most
 * TAIL_BYTES in all: longer lines are cut in their middle (srt_agent_log_tail()). */
#define TAIL_LINES 20
#define TAIL_BYTES 4096
#define PLAN_CHECK_MS 1000 /* how often plan.json is looked at for a new generation */

/*
 * A process as the loop runs it: the state its step decides on
 * (agent/supervise.h), and what only the effects need: the pid, the probe
 * round in flight, the log, the times shown in status.json.
 */
struct rt {
	struct srt_sup_proc s;
	pid_t pid;		      /* > 0 while its step runs */
	int64_t started_at, ready_at; /* wall ms */
	bool log_started;
	/* The probes of one round, in flight together (probing) and driven by the loop's poll(). */
	struct srt_probe_op ops[4];
	bool probing;
	char message[512];
	char *log_path;
	/*
	 * Log probes: where this start's own output begins and how far it was
	 * read, the line read so far (its first LOG_LINE_MAX - 1 bytes), and
	 * whether a line matched (it stays matched for this start).
	 */
	int64_t log_at;
	char log_line[4096];
	size_t log_nline;
	bool log_hit;
};

/*
 * A campaign run (DIR/points.json): its load points, run one attempt at a
 * time on the benchmark's step once the run is Ready (docs/agent.md).
 */
struct ladder {
	bool on;       /* points.json exists */
	bool begun;    /* the first point was started */
	bool finished; /* every point reported: the run ends */
	struct srt_points_file f;
	struct srt_runplan_proc tmpl;  /* where and how the tool runs: the benchmark's step */
	const char *model, *tokenizer; /* the plan's served model name and model path */
	char *points_dir;	       /* DIR/points */
	size_t i;		       /* the point running */
	int64_t attempt;	       /* its attempt, from 1 */
	pid_t pid;		       /* > 0 while the tool runs */
	bool warming;		       /* sa-bench: the warmup run is running */
	bool truncate;		       /* the next spawn starts the point's log afresh */
	bool timed_out;		       /* SIGTERM sent at the deadline */
	struct srt_loadgen_cmd cmd;
	char *result_rel, *result_abs, *log_path;
	char *named_abs; /* custom: the file benchmark.resultFile names for it, or NULL */
	int64_t started_at, timeout_ms, deadline_m, kill_at;
	char why[4096]; /* why the attempt failed or is invalid */
};

struct agent {
	const struct srt_agent_opts *o;
	const struct srt_clock *clock;
	FILE *log;
	char *dir, *log_dir;
	struct srt_runplan plan;
	bool plan_loaded;
	char *plan_path;
	/* Generations rolled out in place: the old plans own the specs of retired processes. */
	struct srt_runplan *old_plans;
	size_t nold;
	struct stat plan_st;
	int64_t plan_check_m, rejected_gen;
	int64_t rollout_gen, rollout_m, rollout_wall; /* the rollout in progress (0: none) */
	/* The last generation that was ready (or the first): what a failed rollout goes back to. */
	json_t *good_json;
	int64_t good_gen;
	/* A rollout that could not become ready (rollout_failed()), rolled back by roll_back(). */
	bool rolling_back;  /* the rollout in progress goes back to good_gen */
	bool rollback_due;  /* roll_back() at the next tick */
	int64_t failed_gen; /* not tried again; 0: none */
	int64_t rolled_back_to, failed_since;
	char *failed_msg; /* the condition's message (status.json) */
	bool condition;	  /* status.json shows the RolloutFailed condition */
	struct rt *rt;
	size_t n;
	struct srt_rundir_events ev;
	bool ev_open;
	const char *job_id;
	char host[256];
	int64_t started_at;
	enum srt_run_phase phase;
	char *message; /* why the phase (status.json); never NULL after setup */
	int exit_code;
	int64_t status_seq, status_m;
	bool dirty;
	int sfd; /* signalfd: SIGTERM, SIGINT, SIGHUP */
	int cfd; /* signalfd: SIGCHLD */
	int grace_ms, probe_ms, live_fails;
	int next_group;
	bool run_ready;
	/* Ending the run. */
	bool stopping, done;
	enum srt_run_phase end_phase;
	struct srt_sup_stop stop; /* the tiers (agent/supervise.h) */
	int64_t write_warned_m;
	struct pollfd *pfd; /* the loop's poll set (poll_set()) */
	size_t npfd_cap;
	struct ladder ld;
	const json_t *ev_point; /* the next event's "point" member */
};

static int64_t now_wall(struct agent *a)
{
	return srt_clock_now(a->clock);
}

static void set_message(struct agent *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The run's message (status.json), whole: a failure's log tail is never cut here. */
static void set_message(struct agent *a, const char *fmt, ...)
{
	va_list ap;

	free(a->message);
	va_start(ap, fmt);
	a->message = srt_xvasprintf(fmt, ap);
	va_end(ap);
}

/* ---- reporting ---- */

static const char *object_kind(const struct srt_runplan_proc *p)
{
	return p->kind == SRT_PROC_WORKER ? "worker" : "service";
}

static void report_write_error(struct agent *a, const struct srt_error *e)
{
	int64_t m = srt_monotonic_ms();

	if (a->write_warned_m && m - a->write_warned_m < 60000)
		return;
	a->write_warned_m = m;
	fprintf(a->log, "srtctl agent: %s\n", e->msg);
	fflush(a->log);
}

static void event(struct agent *a, struct rt *r, bool warning, const char *reason, const char *fmt,
		  ...) __attribute__((format(printf, 5, 6)));
static int write_store_configs(struct agent *a, bool announce, struct srt_error *err);

static void event(struct agent *a, struct rt *r, bool warning, const char *reason, const char *fmt,
		  ...)
{
	struct srt_rundir_event ev;
	struct srt_error e;
	char ts[40];
	char *msg;
	va_list ap;
	struct srt_buf b;

	srt_buf_init(&b);
	va_start(ap, fmt);
	srt_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	msg = srt_buf_detach(&b);
	memset(&ev, 0, sizeof(ev));
	ev.time = now_wall(a);
	ev.warning = warning;
	ev.reason = reason;
	ev.object_index = -1;
	if (r) {
		const struct srt_runplan_proc *p = r->s.spec;

		ev.object_kind = object_kind(p);
		ev.object_name = p->name;
		if (p->kind == SRT_PROC_WORKER) {
			ev.object_role = p->role;
			ev.object_index = p->index;
		} else {
			ev.object_service = p->service ? p->service : srt_proc_kind_name(p->kind);
		}
		/* The status line of the process: the message's first line. */
		snprintf(r->message, sizeof(r->message), "%.*s", (int)strcspn(msg, "\n"), msg);
	} else {
		ev.object_kind = "run";
		ev.object_name = a->plan_loaded ? a->plan.recipe : "";
	}
	ev.message = msg;
	ev.point = a->ev_point;
	ev.job_id = a->job_id;
	ev.generation = a->plan_loaded ? a->plan.generation : 0;
	if (a->ev_open && srt_rundir_events_append(&a->ev, &ev, &e) < 0)
		report_write_error(a, &e);
	srt_time_rfc3339(ev.time, ts, sizeof(ts));
	fprintf(a->log, "srtctl agent: %s %s %s %s/%s: %s\n", ts, warning ? "Warning" : "Normal",
		reason, ev.object_kind, ev.object_name ? ev.object_name : "", msg);
	fflush(a->log);
	free(msg);
	a->dirty = true;
}

static void write_status(struct agent *a)
{
	struct srt_rundir_status st;
	struct srt_rundir_node *nodes = NULL;
	struct srt_rundir_proc *procs = NULL;
	struct srt_rundir_condition cond;
	struct srt_error e;

	memset(&st, 0, sizeof(st));
	st.version = SRT_RUNDIR_VERSION;
	st.seq = ++a->status_seq;
	st.plan_generation = a->plan_loaded ? a->plan.generation : 0;
	st.phase = a->phase;
	st.message = a->message;
	st.exit_code = a->done ? a->exit_code : -1;
	st.job_id = a->job_id;
	st.agent_host = a->host;
	st.agent_pid = (long)getpid();
	st.agent_started_at = a->started_at;
	if (a->plan_loaded && a->plan.hosts) {
		st.nnodes = a->plan.nnodes;
		nodes = srt_xcalloc(st.nnodes + 1, sizeof(*nodes));
		for (size_t i = 0; i < st.nnodes; i++)
			nodes[i] = (struct srt_rundir_node){ a->plan.hosts[i], a->plan.ips[i] };
		st.nodes = nodes;
		st.infra_ip = a->plan.infra_ip;
		st.frontend_url = a->plan.frontend_url;
	}
	procs = srt_xcalloc(a->n + 1, sizeof(*procs));
	for (size_t i = 0; i < a->n; i++) {
		const struct rt *r = &a->rt[i];
		const struct srt_runplan_proc *p = r->s.spec;
		struct srt_rundir_proc *q = &procs[i];

		q->name = p->name;
		q->kind = srt_proc_kind_name(p->kind);
		q->role = p->role;
		q->index = p->kind == SRT_PROC_WORKER ? p->index : -1;
		q->service = p->kind == SRT_PROC_SERVICE ? p->service : NULL;
		q->type = p->kind == SRT_PROC_SERVICE ? p->type : NULL;
		q->node = p->external ? -1 : (int)p->node;
		q->host = p->host;
		q->ip = p->ip;
		q->state = r->s.shown;
		q->restarts = r->s.restarts;
		q->pid = r->pid > 0 ? (long)r->pid : -1;
		q->started_at = r->started_at;
		q->ready_at = r->ready_at;
		q->exit_code = r->s.exit_code;
		q->endpoint = p->endpoint;
		q->env_hash = p->external ? NULL : p->env_hash;
		q->last_probe = r->s.last_probe[0] ? r->s.last_probe : NULL;
		q->message = r->message;
		q->critical = p->critical;
		q->external = p->external;
	}
	st.procs = procs;
	st.nprocs = a->n;
	if (a->condition) {
		cond = (struct srt_rundir_condition){
			"RolloutFailed", a->rolling_back ? "RollingBack" : "RolledBack",
			a->failed_gen,	 a->rolled_back_to,
			a->failed_msg,	 a->failed_since
		};
		st.conditions = &cond;
		st.nconditions = 1;
	}
	st.updated_at = now_wall(a);
	if (srt_rundir_write_status(a->dir, &st, &e) < 0)
		report_write_error(a, &e);
	free(nodes);
	free(procs);
	a->dirty = false;
	a->status_m = srt_monotonic_ms();
}

/* ---- processes ---- */

/* End r's probe round early: its process went away or its spec changed. */
static void cancel_probes(struct rt *r)
{
	if (!r->probing)
		return;
	for (size_t k = 0; k < r->s.spec->nprobes; k++)
		srt_probe_cancel(&r->ops[k]);
	r->probing = false;
}

static struct rt *find_pid(struct agent *a, pid_t pid)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->rt[i].pid == pid)
			return &a->rt[i];
	return NULL;
}

static const char *log_rel(const struct rt *r)
{
	return r->s.spec->log_file ? r->s.spec->log_file : "(none)";
}

/* "\nlast lines of service_x.out:\n..." for failure events.  Caller frees. */
static char *tail_text(const struct rt *r)
{
	char *t = srt_agent_log_tail(r->log_path, TAIL_LINES, TAIL_BYTES);
	char *out;

	if (!*t)
		out = srt_xasprintf("\n(%s is empty)", log_rel(r));
	else
		out = srt_xasprintf("\nlast lines of %s:\n%s", log_rel(r), t);
	free(t);
	return out;
}

#define HELD_PROBE_MS 300 /* one connect per port after an exit before ready */

/*
 * After r exited before it was ready: the ports of its probes that still
 * accept a connection, which only another process can hold now ("; port
 * 8701 on 10.0.0.1 still accepts connections after mooncake-master exited:
 * another process holds it").  Appends nothing when none does.
 */
static void held_ports(const struct rt *r, struct srt_buf *b)
{
	const struct srt_runplan_proc *p = r->s.spec;
	struct srt_buf ports;
	struct srt_probe_result res;
	size_t n = 0;

	srt_buf_init(&ports);
	for (size_t k = 0; k < p->nprobes; k++) {
		bool dup = false;

		for (size_t j = 0; j < k; j++)
			dup = dup || p->probes[j].port == p->probes[k].port;
		if (dup || p->probes[k].file ||
		    srt_probe_tcp(p->ip, p->probes[k].port, HELD_PROBE_MS, &res) < 0)
			continue;
		srt_buf_printf(&ports, "%s%d", n ? ", " : "", p->probes[k].port);
		n++;
	}
	if (n)
		srt_buf_printf(b,
			       "; port%s %s on %s still accept%s connections after %s exited: "
			       "another process holds %s (free %s, or give %s other ports)",
			       n > 1 ? "s" : "", ports.data, p->ip, n > 1 ? "" : "s", p->name,
			       n > 1 ? "them" : "it", n > 1 ? "them" : "it", p->name);
	srt_buf_release(&ports);
}

/*
 * The whole text of action x: its text with the held ports inserted where
 * the step asked and the log tail appended.  Caller frees.
 */
static char *action_text(const struct rt *r, const struct srt_sup_action *x)
{
	struct srt_buf b;

	srt_buf_init(&b);
	if (x->held_at >= 0) {
		srt_buf_append(&b, x->text, (size_t)x->held_at);
		held_ports(r, &b);
		srt_buf_puts(&b, x->text + x->held_at);
	} else {
		srt_buf_puts(&b, x->text ? x->text : "");
	}
	if (x->tail) {
		char *t = tail_text(r);

		srt_buf_puts(&b, t);
		free(t);
	}
	return srt_buf_detach(&b);
}

/*
 * Process r of the rollout in progress failed before it was ready (`what`
 * says how, the log tail not yet): the generation is marked failed, and
 * roll_back() restores the last generation that was ready at the next tick.
 * Nothing is restarted here: the caller may be walking the process table.
 */
static void rollout_failed(struct agent *a, struct rt *r, const char *what)
{
	char *tail = tail_text(r);

	free(a->failed_msg);
	a->failed_msg = srt_xasprintf("%s %s%s", r->s.spec->name, what, tail);
	a->failed_gen = a->rollout_gen;
	a->rolled_back_to = a->good_gen;
	a->failed_since = now_wall(a);
	a->rollback_due = true;
	a->condition = true;
	event(a, NULL, true, "RolloutFailed",
	      "generation %lld cannot become ready: %s %s; rolling back to generation %lld, the "
	      "last one that was ready; generation %lld is not tried again: fix it and apply a "
	      "newer generation%s",
	      (long long)a->failed_gen, r->s.spec->name, what, (long long)a->good_gen,
	      (long long)a->failed_gen, tail);
	free(tail);
}

static void begin_stop(struct agent *a, enum srt_run_phase end);

static void fail_run(struct agent *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail_run(struct agent *a, const char *fmt, ...)
{
	struct srt_buf b;
	va_list ap;

	if (a->stopping)
		return;
	srt_buf_init(&b);
	va_start(ap, fmt);
	srt_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	free(a->message);
	a->message = srt_buf_detach(&b);
	a->phase = SRT_RUN_FAILED;
	a->exit_code = 1;
	event(a, NULL, true, "RunFailed", "%s", a->message);
	begin_stop(a, SRT_RUN_FAILED);
}

/* The benchmark finished with status `code`: the run ends. */
/*
 * The run ends with the process r: the benchmark, or the terminal service
 * whose exit status is the worst of them (`what` names it).
 */
static void end_run_with(struct agent *a, struct rt *r, int code, const char *what)
{
	a->exit_code = code;
	if (code) {
		char *tail = tail_text(r);

		set_message(a, "%s exited with status %d; see %s%s", what, code,
			    r->s.spec->log_file, tail);
		free(tail);
		a->phase = SRT_RUN_FAILED;
		event(a, NULL, true, "RunFailed", "%s", a->message);
		begin_stop(a, SRT_RUN_FAILED);
	} else {
		set_message(a, "%s finished", what);
		a->phase = SRT_RUN_SUCCEEDED;
		event(a, NULL, false, "RunSucceeded", "%s finished with status 0", what);
		begin_stop(a, SRT_RUN_SUCCEEDED);
	}
}

static void end_run(struct agent *a, struct rt *r, int code)
{
	end_run_with(a, r, code, "the benchmark");
}

/*
 * srt-slurm's terminal services are the run: once every instance of every
 * one has exited for good (exited 0, or failed and not to be restarted),
 * the run ends with the worst exit status among them.
 */
static void check_terminal(struct agent *a)
{
	struct rt *worst = NULL;
	int code = -1;
	char what[160];

	if (a->stopping)
		return;
	for (size_t i = 0; i < a->n; i++) {
		struct rt *r = &a->rt[i];
		int c;

		if (!r->s.spec->terminal)
			continue;
		if (r->s.st != SRT_SUP_EXITED && r->s.st != SRT_SUP_FAILED)
			return;
		/* failed without a status of its own (never started, not ready): 1 */
		c = r->s.st == SRT_SUP_EXITED ? 0 : r->s.exit_code > 0 ? r->s.exit_code : 1;
		if (c > code) {
			code = c;
			worst = r;
		}
	}
	if (!worst)
		return;
	snprintf(what, sizeof(what), "every terminal service has exited: %s, the worst,",
		 worst->s.spec->name);
	end_run_with(a, worst, code, code ? what : "every terminal service");
}

/* ---- a campaign run: the ladder of load points ---- */

#define POINT_TAIL_LINES 5
#define POINT_TAIL_BYTES 1024

/* The point process's step: the plan's benchmark (its node, container, env), else one like it. */
static void ladder_template(struct agent *a)
{
	struct srt_runplan_proc *t = &a->ld.tmpl;
	const struct srt_runplan_proc *like = NULL, *bench = NULL;

	for (size_t i = 0; i < a->plan.nprocs; i++) {
		const struct srt_runplan_proc *p = &a->plan.procs[i];

		if (p->kind == SRT_PROC_BENCHMARK)
			bench = p;
		else if (!like && (p->kind == SRT_PROC_FRONTEND || p->kind == SRT_PROC_WORKER))
			like = p;
	}
	if (bench) {
		*t = *bench;
		return;
	}
	memset(t, 0, sizeof(*t));
	t->kind = SRT_PROC_BENCHMARK;
	t->name = "benchmark";
	t->node = a->plan.head;
	t->nnodes = 1;
	t->ntasks = 1;
	t->host = t->hosts = a->plan.hosts[a->plan.head];
	t->ip = a->plan.ips[a->plan.head];
	t->container = like ? like->container : NULL;
	t->model_mount = like ? like->model_mount : NULL;
	/* The recipe's `environment` reaches every process, the points too. */
	if (!like || !like->env_src)
		return;
	t->env_names = srt_arena_alloc(&a->plan.arena, (like->nenv + 1) * sizeof(char *));
	t->env_values = srt_arena_alloc(&a->plan.arena, (like->nenv + 1) * sizeof(char *));
	for (size_t i = 0; i < like->nenv; i++) {
		const struct srt_runplan_envsrc *src = &like->env_src[i];

		if (!src->layer || strcmp(src->layer, "environment") != 0 ||
		    (like->env_runtime && like->env_runtime[i]))
			continue;
		t->env_names[t->nenv] = like->env_names[i];
		t->env_values[t->nenv++] = like->env_values[i];
	}
}

/* The argv of the point step running words (with env added), in tmp. */
/* The ids of the points this run directory's events say were finished. */
struct done_ids {
	char (*v)[65];
	size_t n, cap;
};

static int collect_done(void *ctx, const struct srt_rundir_event *ev)
{
	struct done_ids *d = ctx;
	const json_t *pt = json_object_get(ev->json, "point");
	const char *id = json_string_value(json_object_get(pt, "id"));

	if (!ev->reason || strcmp(ev->reason, "PointFinished") || !id || strlen(id) != 64)
		return 0;
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 16;
		d->v = srt_xrealloc(d->v, d->cap * sizeof(*d->v));
	}
	memcpy(d->v[d->n++], id, 65);
	return 0;
}

/*
 * A requeued job starts again in the same run directory with the same
 * points.json: the points it already reported finished (events.jsonl)
 * are dropped, so none runs twice; *dropped says how many.
 */
static int points_done_before(struct agent *a, size_t *dropped, struct srt_error *err)
{
	struct done_ids d = { 0 };

	*dropped = 0;
	if (srt_rundir_read_events(a->dir, 0, collect_done, &d, NULL, NULL, err) != 0) {
		free(d.v);
		return -1;
	}
	*dropped = srt_agent_points_drop(&a->ld.f, d.v, d.n);
	free(d.v);
	return 0;
}

static const char **ladder_step_argv(struct agent *a, struct srt_arena *tmp, char **words)
{
	const struct srt_loadgen_cmd *c = &a->ld.cmd;
	struct srt_runplan_proc p = a->ld.tmpl;
	size_t nenv = 0, n = 0, ncmd = 0;
	const char **argv;

	while (words[n])
		n++;
	while (c->env && c->env[ncmd])
		ncmd++;
	p.name = srt_arena_printf(tmp, "benchmark_point_%04" PRId64, a->ld.f.points[a->ld.i].seq);
	p.argv = (const char **)words;
	p.argc = n;
	p.env_names = srt_arena_alloc(tmp, (p.nenv + ncmd + 1) * sizeof(char *));
	p.env_values = srt_arena_alloc(tmp, (p.nenv + ncmd + 1) * sizeof(char *));
	/* The benchmark's env, less what the point sets itself, then the point's. */
	for (size_t i = 0; i < a->ld.tmpl.nenv; i++) {
		const char *name = a->ld.tmpl.env_names[i];
		bool mine = false;

		for (size_t k = 0; k < ncmd && !mine; k++)
			mine = !strncmp(c->env[k], name, strlen(name)) &&
			       c->env[k][strlen(name)] == '=';
		if (mine)
			continue;
		p.env_names[nenv] = name;
		p.env_values[nenv++] = a->ld.tmpl.env_values[i];
	}
	for (size_t k = 0; k < ncmd; k++) {
		size_t eq = strcspn(c->env[k], "=");

		p.env_names[nenv] = srt_arena_strndup(tmp, c->env[k], eq);
		p.env_values[nenv++] = c->env[k] + eq + (c->env[k][eq] ? 1 : 0);
	}
	p.nenv = nenv;
	argv = srt_agent_step_argv(tmp, &a->plan, &p, &n);
	/* In a container, the result file's directory is mounted where the agent reads it. */
	for (size_t i = 0; i < n; i++)
		if (srt_str_has_prefix(argv[i], "--container-mounts="))
			argv[i] = srt_arena_printf(tmp, "%s,%s:%s", argv[i], a->ld.points_dir,
						   a->ld.points_dir);
	return argv;
}

/* Spawn words (the warmup run or the measured run) as the point's step. */
static int ladder_spawn(struct agent *a, char **words, struct srt_error *err)
{
	struct srt_arena tmp;
	const char **argv;
	char ts[40], *hdr;
	pid_t pid;

	srt_arena_init(&tmp);
	argv = ladder_step_argv(a, &tmp, words);
	srt_time_rfc3339(now_wall(a), ts, sizeof(ts));
	hdr = srt_xasprintf("srtctl agent: %s point seq %" PRId64 " attempt %" PRId64 ": %s run\n",
			    ts, a->ld.f.points[a->ld.i].seq, a->ld.attempt,
			    words == a->ld.cmd.warmup_argv ? "warmup" : "measured");
	pid = srt_agent_spawn(argv, a->ld.log_path, a->ld.truncate, hdr, err);
	a->ld.truncate = false;
	free(hdr);
	srt_arena_release(&tmp);
	if (pid < 0)
		return -1;
	a->ld.pid = pid;
	a->dirty = true;
	return 0;
}

static void ladder_event(struct agent *a, bool warning, const char *reason, json_t *point,
			 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* A run event with a "point" member (taken). */
static void ladder_event(struct agent *a, bool warning, const char *reason, json_t *point,
			 const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = srt_xvasprintf(fmt, ap);
	va_end(ap);
	a->ev_point = point;
	event(a, NULL, warning, reason, "%s", msg);
	a->ev_point = NULL;
	json_decref(point);
	free(msg);
}

static void ladder_attempt_done(struct agent *a, int code);

/* Start the next attempt of point ld.i (or end the run after the last point). */
static void ladder_start(struct agent *a)
{
	struct ladder *l = &a->ld;
	const struct srt_points_entry *pt;
	struct srt_loadgen_spec spec;
	struct srt_error e;
	char *rel;

	if (l->i == l->f.npoints) {
		l->finished = true;
		a->exit_code = 0;
		set_message(a, "the campaign's %zu load point(s) ran", l->f.npoints);
		a->phase = SRT_RUN_SUCCEEDED;
		event(a, NULL, false, "RunSucceeded", "%zu load point(s) of campaign '%s' ran",
		      l->f.npoints, l->f.campaign);
		begin_stop(a, SRT_RUN_SUCCEEDED);
		return;
	}
	pt = &l->f.points[l->i];
	l->attempt++;
	l->timed_out = false;
	l->kill_at = 0;
	srt_loadgen_cmd_release(&l->cmd);
	free(l->result_rel);
	free(l->result_abs);
	l->result_rel = rel = srt_agent_point_file(pt->seq, pt->id, l->attempt);
	l->result_abs = srt_xasprintf("%s/%s", a->dir, rel);
	(void)unlink(l->result_abs); /* an earlier job's file of this attempt is not this one's */
	if (l->attempt == 1) {
		free(l->log_path);
		l->log_path =
			srt_xasprintf("%s/benchmark_point_%04" PRId64 ".out", a->log_dir, pt->seq);
		l->truncate = true;
	}
	memset(&spec, 0, sizeof(spec));
	spec.tool = l->f.tool;
	spec.params_json = l->f.params_json;
	spec.prefix = (const char *const *)l->f.prefix;
	for (spec.nprefix = 0; l->f.prefix && l->f.prefix[spec.nprefix]; spec.nprefix++)
		;
	spec.command = (const char *const *)l->f.command;
	for (spec.ncommand = 0; l->f.command && l->f.command[spec.ncommand]; spec.ncommand++)
		;
	spec.command_shell = l->f.command_shell;
	spec.frontend_url = a->plan.frontend_url;
	spec.model = l->f.model ? l->f.model : l->model;
	spec.tokenizer = l->f.tokenizer ? l->f.tokenizer : l->tokenizer;
	spec.point = pt->load;
	spec.result_file = l->result_abs;
	l->started_at = now_wall(a);
	l->timeout_ms = a->o->point_timeout_ms > 0 ? a->o->point_timeout_ms :
						     srt_agent_point_timeout_ms(&pt->load);
	ladder_event(a, false, "PointStarted",
		     srt_point_attempt_json(pt->id, pt->seq, l->attempt, NULL, NULL),
		     "point seq %" PRId64 " (%zu of %zu), attempt %" PRId64 " of %" PRId64
		     ": isl %" PRId64 ", osl %" PRId64 ", concurrency %" PRId64 ", %" PRId64
		     " prompts, %" PRId64
		     " warmup; %s against %s; log %s, result %s, timeout %lld s",
		     pt->seq, l->i + 1, l->f.npoints, l->attempt, l->f.retries + 1, pt->load.isl,
		     pt->load.osl, pt->load.concurrency, pt->load.prompts, pt->load.warmup,
		     srt_points_tool_name(l->f.tool),
		     a->plan.frontend_url ? a->plan.frontend_url : "(no frontend)",
		     strrchr(l->log_path, '/') + 1, rel, (long long)(l->timeout_ms / 1000));
	l->deadline_m = srt_monotonic_ms() + l->timeout_ms;
	free(l->named_abs);
	l->named_abs = NULL;
	if (l->f.result_file &&
	    srt_loadgen_result_path(l->f.result_file, &spec, a->dir, &l->named_abs, &e) < 0) {
		snprintf(l->why, sizeof(l->why), "benchmark.resultFile: %s", e.msg);
		ladder_attempt_done(a, -1);
		return;
	}
	/* What an earlier attempt or job left there is not this attempt's result. */
	if (l->named_abs)
		(void)unlink(l->named_abs);
	if (srt_loadgen_build(&l->cmd, &spec, &e) < 0 ||
	    ladder_spawn(a, l->cmd.warmup_argv ? l->cmd.warmup_argv : l->cmd.argv, &e) < 0) {
		snprintf(l->why, sizeof(l->why), "could not start: %s", e.msg);
		ladder_attempt_done(a, -1);
		return;
	}
	l->warming = l->cmd.warmup_argv != NULL;
}

/* The attempt's result file, parsed and judged: 0 done, -1 invalid (why set), -2 no file. */
static int ladder_judge(struct agent *a, struct srt_point_result *res, struct srt_buf *raw,
			bool *valid)
{
	struct ladder *l = &a->ld;
	const struct srt_points_entry *pt = &l->f.points[l->i];
	struct srt_error e;
	int rc;

	*valid = false;
	rc = srt_rundir_read_file(l->named_abs ? l->named_abs : l->result_abs,
				  SRT_LOADGEN_MAX_RESULT_BYTES, raw, &e);
	if (rc == 1) {
		snprintf(l->why, sizeof(l->why), "the tool exited with status 0 and wrote no %s%s",
			 l->named_abs ? "result file " : "result file",
			 l->named_abs ? l->named_abs : "");
		return -2;
	}
	if (rc < 0) {
		snprintf(l->why, sizeof(l->why), "%s", e.msg);
		return -2;
	}
	/* The named file is the tool's; the point's raw result is srtctl's copy of it. */
	if (l->named_abs && srt_rundir_write_file(l->result_abs, raw->data, raw->len,
						  SRT_RUNDIR_FILE_MODE, &e) != 0) {
		snprintf(l->why, sizeof(l->why), "cannot keep a copy of the result: %s", e.msg);
		return -2;
	}
	if (srt_loadgen_parse_result(res, l->f.tool, raw->data, raw->len, &pt->load, &e) < 0) {
		snprintf(l->why, sizeof(l->why), "%s", e.msg);
		return -1;
	}
	*valid = srt_loadgen_valid(res, &pt->load, &l->f.validity, l->why, sizeof(l->why));
	return *valid ? 0 : -1;
}

/*
 * The attempt ended with status code (-1: it never ran): judge it, then
 * retry it (PointRetrying), or report the point (PointFinished) and go on.
 */
static void ladder_attempt_done(struct agent *a, int code)
{
	struct ladder *l = &a->ld;
	const struct srt_points_entry *pt = &l->f.points[l->i];
	struct srt_point_report rep;
	struct srt_point_result res;
	struct srt_buf raw;
	char sha[65], slo_why[256], *tail;
	enum srt_slo_verdict slo = SRT_SLO_NONE;
	bool valid = false, parsed = false;
	int judged = -2;

	memset(&res, 0, sizeof(res));
	srt_buf_init(&raw);
	l->pid = 0;
	l->deadline_m = l->kill_at = 0;
	if (code < 0) {
		; /* l->why says why it did not start */
	} else if (l->timed_out) {
		snprintf(l->why, sizeof(l->why), "timed out after %lld s",
			 (long long)(l->timeout_ms / 1000));
	} else if (code != 0) {
		tail = srt_agent_log_tail(l->log_path, POINT_TAIL_LINES, POINT_TAIL_BYTES);
		snprintf(l->why, sizeof(l->why),
			 "the tool exited with status %d; last lines of %s:\n%s", code,
			 strrchr(l->log_path, '/') + 1, tail);
		free(tail);
	} else {
		judged = ladder_judge(a, &res, &raw, &valid);
		parsed = judged != -2 && res.raw_json;
	}
	if (!valid && l->attempt <= l->f.retries) {
		ladder_event(a, true, "PointRetrying",
			     srt_point_attempt_json(pt->id, pt->seq, l->attempt,
						    judged == -1 ? "invalid" : "failed", l->why),
			     "point seq %" PRId64 " attempt %" PRId64
			     " %s: %s; trying again (%" PRId64 " retr%s allowed)",
			     pt->seq, l->attempt, judged == -1 ? "is invalid" : "failed", l->why,
			     l->f.retries, l->f.retries == 1 ? "y" : "ies");
		srt_point_result_release(&res);
		srt_buf_release(&raw);
		ladder_start(a);
		return;
	}
	memset(&rep, 0, sizeof(rep));
	memcpy(rep.id, pt->id, sizeof(rep.id));
	rep.seq = pt->seq;
	rep.attempts = l->attempt;
	rep.state = valid ? "done" : judged == -1 ? "invalid" : "failed";
	rep.exit_code = code;
	rep.reason = valid ? "" : l->why;
	rep.started_at = l->started_at;
	rep.finished_at = now_wall(a);
	rep.slo_met = -1;
	for (size_t k = 0; k < SRT_POINT_NMETRICS; k++)
		rep.metrics[k] = NAN;
	if (judged != -2 && raw.len) {
		srt_sha256_hex(raw.data, raw.len, sha);
		rep.raw_path = l->result_rel;
		rep.raw_sha256 = sha;
	}
	if (parsed)
		srt_loadgen_metrics(&res, rep.metrics);
	slo_why[0] = '\0';
	if (valid) {
		slo = srt_loadgen_slo(&res, (const double(*)[SRT_SLO_NSTATS])l->f.slo_ms, slo_why,
				      sizeof(slo_why));
		rep.slo_met = slo == SRT_SLO_NONE ? -1 : slo == SRT_SLO_MET;
		if (slo == SRT_SLO_MISSED)
			rep.reason = slo_why;
	}
	if (valid)
		ladder_event(a, false, "PointFinished", srt_point_report_json(&rep),
			     "point seq %" PRId64 " done after %" PRId64 " attempt(s): %" PRId64
			     " of %" PRId64 " requests in %.2f s, %.1f output tok/s; SLO %s%s%s",
			     pt->seq, l->attempt, res.completed, pt->load.prompts, res.duration_s,
			     res.output_throughput,
			     slo == SRT_SLO_NONE ? "not set" :
			     slo == SRT_SLO_MET	 ? "met" :
						   "missed",
			     slo == SRT_SLO_MISSED ? ": " : "", slo_why);
	else
		ladder_event(a, true, "PointFinished", srt_point_report_json(&rep),
			     "point seq %" PRId64 " %s after %" PRId64 " attempt(s): %s", pt->seq,
			     rep.state, l->attempt, l->why);
	srt_point_result_release(&res);
	srt_buf_release(&raw);
	l->i++;
	l->attempt = 0;
	ladder_start(a);
}

/* The point's step exited with status code. */
static void ladder_exited(struct agent *a, int code)
{
	struct ladder *l = &a->ld;
	struct srt_error e;

	l->pid = 0;
	a->dirty = true;
	if (a->stopping)
		return; /* stopped with the run: no report, the controller gives the point back */
	if (l->warming && code == 0 && !l->timed_out) {
		l->warming = false;
		if (ladder_spawn(a, l->cmd.argv, &e) < 0) {
			snprintf(l->why, sizeof(l->why), "could not start the measured run: %s",
				 e.msg);
			ladder_attempt_done(a, -1);
		}
		return;
	}
	ladder_attempt_done(a, code);
}

/* Each tick: start the ladder once the run is ready; bound the running attempt. */
static void ladder_tick(struct agent *a)
{
	struct ladder *l = &a->ld;
	int64_t m = srt_monotonic_ms();

	if (!l->on || l->finished || a->stopping || !a->run_ready)
		return;
	if (!l->begun) {
		l->begun = true;
		ladder_start(a);
		return;
	}
	if (l->pid > 0 && !l->timed_out && m >= l->deadline_m) {
		l->timed_out = true;
		l->kill_at = m + a->grace_ms;
		srt_agent_signal(l->pid, SIGTERM);
	} else if (l->pid > 0 && l->kill_at && m >= l->kill_at) {
		l->kill_at = 0;
		srt_agent_signal(l->pid, SIGKILL);
	}
}

/* What the run says to each process's step. */
static void sup_ctx(const struct agent *a, struct srt_sup_ctx *c)
{
	c->generation = a->plan.generation;
	c->failed_gen = a->failed_gen;
	c->rollout_at = a->rollout_m;
	c->judging = a->rollout_gen && !a->rolling_back && !a->rollback_due && !a->stopping;
	c->rolling_back = a->rolling_back;
	c->grace_ms = a->grace_ms;
	c->live_fails = a->live_fails;
}

static void observe(struct agent *a, struct rt *r, const struct srt_sup_obs *ob);

/*
 * The file p reads (TRT-LLM's engine YAML), written atomically before each
 * start: a restart reads what the plan says, even if someone changed it.
 */
static int write_config(const struct agent *a, const struct srt_runplan_proc *p,
			struct srt_error *err)
{
	char *path;
	int rc;

	if (!p->config_file)
		return 0;
	path = srt_xasprintf("%s/%s", a->log_dir, p->config_file);
	rc = srt_rundir_write_file(path, p->config_text, strlen(p->config_text), 0644, err);
	free(path);
	return rc;
}

/*
 * What the log directory must hold, and not hold, before p starts: its run
 * directory; no stale readiness file (a file probe would pass at once) and
 * none of the files it clears (a master address a crashed run left).
 */
static int prepare_paths(const struct agent *a, const struct srt_runplan_proc *p,
			 struct srt_error *err)
{
	if (p->run_dir && srt_rundir_log_mkdir(a->log_dir, p->run_dir, err) < 0)
		return -1;
	for (size_t i = 0; i < p->nclear; i++)
		if (srt_rundir_log_remove(a->log_dir, p->clear[i], err) < 0)
			return -1;
	for (size_t k = 0; k < p->nprobes; k++)
		if (p->probes[k].file &&
		    srt_rundir_log_remove(a->log_dir, p->probes[k].file, err) < 0)
			return -1;
	return 0;
}

/* LAUNCH: spawn r's step, with a log header saying why, and tell the step how it went. */
static void spawn(struct agent *a, struct rt *r, const struct srt_sup_action *x)
{
	const struct srt_runplan_proc *p = r->s.spec;
	struct srt_sup_obs ob = { .kind = SRT_SUP_ON_SPAWNED };
	struct srt_arena tmp;
	const char **argv;
	struct srt_buf hdr;
	struct srt_error e;
	char ts[40];
	pid_t pid;

	cancel_probes(r);
	srt_arena_init(&tmp);
	srt_buf_init(&hdr);
	argv = srt_agent_step_argv(&tmp, &a->plan, p, NULL);
	if (x->text) {
		srt_time_rfc3339(now_wall(a), ts, sizeof(ts));
		if (x->how == SRT_SUP_ROLLOUT)
			srt_buf_printf(&hdr, "srtctl agent: %s generation %lld: %s\n", ts,
				       (long long)a->plan.generation, x->text);
		else
			srt_buf_printf(&hdr, "srtctl agent: %s restart %d: %s\n", ts, r->s.restarts,
				       x->text);
	}
	if (p->kind == SRT_PROC_WORKER) {
		char *line = srt_agent_env_line(p);

		srt_buf_puts(&hdr, line);
		free(line);
	}
	{
		/* Where this start's own output will begin: after the header. */
		struct stat sb;

		r->log_at =
			(r->log_started && stat(r->log_path, &sb) == 0 ? (int64_t)sb.st_size : 0) +
			(int64_t)hdr.len;
		r->log_nline = 0;
		r->log_hit = false;
	}
	if (prepare_paths(a, p, &e) < 0 || write_config(a, p, &e) < 0)
		pid = -1;
	else
		pid = srt_agent_spawn(argv, r->log_path, !r->log_started, hdr.len ? hdr.data : NULL,
				      &e);
	srt_buf_release(&hdr);
	srt_arena_release(&tmp);
	r->log_started = true;
	r->started_at = now_wall(a);
	r->pid = pid > 0 ? pid : 0;
	ob.pid = (long)pid;
	ob.err = e.msg;
	observe(a, r, &ob);
}

/* The master r is ready after a restart: its followers are restarted. */
static void notify_followers(struct agent *a, const struct rt *master)
{
	struct srt_sup_obs ob = { .kind = SRT_SUP_ON_FOLLOW };

	for (size_t i = 0; i < a->n; i++) {
		struct rt *q = &a->rt[i];

		if (q->s.spec->follows && !strcmp(q->s.spec->follows, master->s.spec->name))
			observe(a, q, &ob);
	}
}

static void act(struct agent *a, struct rt *r, const struct srt_sup_action *x)
{
	char *text;

	switch (x->kind) {
	case SRT_SUP_DO_LAUNCH:
		spawn(a, r, x);
		break;
	case SRT_SUP_DO_SIGNAL:
		if (r->pid > 0)
			srt_agent_signal(r->pid, x->sig);
		break;
	case SRT_SUP_DO_EVENT:
		text = action_text(r, x);
		event(a, r, x->warning, x->reason, "%s", text);
		free(text);
		break;
	case SRT_SUP_DO_MARK_READY:
		r->ready_at = now_wall(a);
		break;
	case SRT_SUP_DO_FAIL_RUN:
		text = action_text(r, x);
		fail_run(a, "%s", text);
		free(text);
		break;
	case SRT_SUP_DO_FAIL_ROLLOUT:
		text = action_text(r, x);
		rollout_failed(a, r, text);
		free(text);
		break;
	case SRT_SUP_DO_END_RUN:
		end_run(a, r, x->code);
		break;
	case SRT_SUP_DO_NOTIFY_FOLLOWERS:
		notify_followers(a, r);
		break;
	}
}

/*
 * Feed ob to r's step and carry out its actions in order.  The actions may
 * observe other processes (followers) or r again (a spawn's outcome), never
 * reallocate the table.
 */
static void observe(struct agent *a, struct rt *r, const struct srt_sup_obs *ob)
{
	struct srt_sup_ctx c;
	struct srt_sup_actions acts;
	enum srt_proc_state shown = r->s.shown;

	sup_ctx(a, &c);
	srt_sup_step(&r->s, &c, ob, srt_monotonic_ms(), &acts);
	if (r->s.probe_at == SRT_SUP_NEVER)
		cancel_probes(r); /* what it would say no longer matters */
	if (acts.n || shown != r->s.shown)
		a->dirty = true;
	for (size_t i = 0; i < acts.n; i++)
		act(a, r, &acts.a[i]);
	srt_sup_actions_release(&acts);
}

static void observe_kind(struct agent *a, struct rt *r, enum srt_sup_obs_kind kind)
{
	struct srt_sup_obs ob = { .kind = kind };

	observe(a, r, &ob);
}

static bool group_open(struct agent *a, int g)
{
	for (size_t i = 0; i < a->n; i++)
		if (srt_sup_holds_gate(&a->rt[i].s, g))
			return false;
	return true;
}

/* What one log probe round reads at most: a chatty process costs bounded work. */
#define LOG_SCAN_MAX (1 << 20)

/*
 * A log probe (srt-slurm's LogProbe): has a line r's process wrote to its
 * log since this start matched `pattern`?  Reads what is new since the last
 * round, line by line (a line longer than the buffer is matched by its
 * start; a NUL reads as a space), and the line not yet ended too, as
 * Python's search over the whole text would.
 */
static bool log_probe(struct rt *r, const char *pattern, char *detail, size_t size)
{
	regex_t re;
	char buf[65536];
	int64_t budget = LOG_SCAN_MAX;
	int fd, open_errno;

	if (r->log_hit) {
		snprintf(detail, size, "a line matched");
		return true;
	}
	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB | REG_NEWLINE) != 0) {
		snprintf(detail, size, "the pattern does not compile"); /* checked at load */
		return false;
	}
	fd = open(r->log_path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	open_errno = errno;
	while (fd >= 0 && !r->log_hit && budget > 0) {
		size_t want = budget < (int64_t)sizeof(buf) ? (size_t)budget : sizeof(buf);
		ssize_t got = pread(fd, buf, want, (off_t)r->log_at);

		if (got <= 0)
			break;
		r->log_at += got;
		budget -= got;
		for (ssize_t i = 0; i < got && !r->log_hit; i++) {
			if (buf[i] == '\n') {
				r->log_line[r->log_nline] = '\0';
				r->log_hit = regexec(&re, r->log_line, 0, NULL, 0) == 0;
				r->log_nline = 0;
			} else if (r->log_nline < sizeof(r->log_line) - 1) {
				r->log_line[r->log_nline++] = buf[i] ? buf[i] : ' ';
			}
		}
	}
	if (!r->log_hit && r->log_nline) {
		r->log_line[r->log_nline] = '\0';
		r->log_hit = regexec(&re, r->log_line, 0, NULL, 0) == 0;
	}
	regfree(&re);
	if (fd < 0)
		snprintf(detail, size, "cannot read %s: %s", r->log_path, strerror(open_errno));
	else
		snprintf(detail, size, r->log_hit ? "a line matched" : "no line matched yet");
	if (fd >= 0)
		close(fd);
	return r->log_hit;
}

/*
 * Begin a probe round: every probe of r at once, each bounded by the probe
 * timeout (or the interval, when shorter).  The loop polls their sockets
 * and step_probes() hands the round to the step once all are DONE, so a
 * hung endpoint holds up nothing but its own round.
 */
static void start_probes(struct agent *a, struct rt *r)
{
	const struct srt_runplan_proc *p = r->s.spec;
	const char *host = p->external ? p->external_host : p->ip;
	int64_t interval = (int64_t)p->interval_s * 1000;
	int timeout = a->probe_ms < interval ? a->probe_ms : (int)interval;

	for (size_t k = 0; k < p->nprobes; k++) {
		const struct srt_runplan_probe *pb = &p->probes[k];

		if (pb->pattern) {
			char detail[sizeof(r->ops[k].res.detail)];
			bool ok = log_probe(r, pb->pattern, detail, sizeof(detail));

			srt_probe_set_done(&r->ops[k], ok, detail);
			continue;
		}
		if (pb->file) {
			char detail[sizeof(r->ops[k].res.detail)];
			int ok = srt_rundir_marker(a->log_dir, pb->file, detail, sizeof(detail));

			srt_probe_set_done(&r->ops[k], ok == 1, detail);
			continue;
		}
		if (pb->ray_alive)
			srt_probe_start_judged(&r->ops[k], pb->host ? pb->host : host, pb->port,
					       pb->path, pb->status, timeout, srt_agent_ray_alive,
					       &pb->ray_alive, SRT_AGENT_RAY_SUMMARY_MAX);
		else
			srt_probe_start(&r->ops[k], pb->host ? pb->host : host, pb->port,
					pb->http ? pb->path : NULL, pb->status, timeout);
	}
	r->probing = true;
}

/* Advance r's probe round; hand it to the step once every probe is DONE. */
static void step_probes(struct agent *a, struct rt *r)
{
	struct srt_sup_obs ob = { .kind = SRT_SUP_ON_PROBED };
	bool all = true;

	if (!r->probing)
		return;
	if (r->s.probe_at == SRT_SUP_NEVER) {
		cancel_probes(r);
		return;
	}
	for (size_t k = 0; k < r->s.spec->nprobes; k++)
		if (!srt_probe_step(&r->ops[k]))
			all = false;
	if (!all)
		return;
	r->probing = false;
	for (size_t k = 0; k < r->s.spec->nprobes; k++) {
		ob.ok[k] = r->ops[k].res.ok;
		ob.detail[k] = r->ops[k].res.detail;
	}
	observe(a, r, &ob);
}

/* ---- ending the run ---- */

/* Processes with a pid, per stop tier. */
static void tier_running(const struct agent *a, size_t running[SRT_RUNPLAN_TIERS])
{
	memset(running, 0, SRT_RUNPLAN_TIERS * sizeof(*running));
	for (size_t i = 0; i < a->n; i++)
		if (a->rt[i].pid > 0)
			running[a->rt[i].s.spec->tier]++;
	if (a->ld.pid > 0)
		running[0]++; /* a point's tool stops with the benchmark's tier */
}

/* Carry out what the stop machine says, for every process with a pid in the tier. */
static void stop_acts(struct agent *a, const struct srt_sup_stop_acts *sa)
{
	for (size_t j = 0; j < sa->n; j++) {
		const struct srt_sup_stop_act *x = &sa->a[j];
		struct srt_sup_obs ob = { .hurry_sig = x->hurry_sig };

		if (x->kind == SRT_SUP_RUN_STOPPED) {
			if (a->end_phase == SRT_RUN_STOPPED)
				a->phase = SRT_RUN_STOPPED;
			event(a, NULL, false, "Stopped", "every process of the run has stopped");
			a->done = true;
			continue;
		}
		if (x->tier == 0 && a->ld.pid > 0) {
			if (x->kind == SRT_SUP_TIER_ABANDON)
				a->ld.pid = 0;
			else
				srt_agent_signal(a->ld.pid,
						 x->kind == SRT_SUP_TIER_TERM ? SIGTERM : SIGKILL);
		}
		ob.kind = x->kind == SRT_SUP_TIER_TERM ? SRT_SUP_ON_STOP_TERM :
			  x->kind == SRT_SUP_TIER_KILL ? SRT_SUP_ON_STOP_KILL :
							 SRT_SUP_ON_ABANDON;
		for (size_t i = 0; i < a->n; i++) {
			struct rt *r = &a->rt[i];

			if (r->s.spec->tier != x->tier || r->pid <= 0)
				continue;
			observe(a, r, &ob);
			if (x->kind == SRT_SUP_TIER_ABANDON)
				r->pid = 0;
		}
	}
}

static void begin_stop(struct agent *a, enum srt_run_phase end)
{
	struct srt_sup_stop_acts sa;
	size_t running[SRT_RUNPLAN_TIERS];

	a->stopping = true;
	a->end_phase = end;
	for (size_t i = 0; i < a->n; i++)
		observe_kind(a, &a->rt[i], SRT_SUP_ON_STOP);
	a->dirty = true;
	tier_running(a, running);
	srt_sup_stop_begin(&a->stop, running, srt_monotonic_ms(), a->grace_ms, &sa);
	stop_acts(a, &sa);
}

static void drive_stop(struct agent *a)
{
	struct srt_sup_stop_acts sa;
	size_t running[SRT_RUNPLAN_TIERS];

	tier_running(a, running);
	srt_sup_stop_step(&a->stop, running, srt_monotonic_ms(), a->grace_ms, &sa);
	stop_acts(a, &sa);
}

static void request_stop(struct agent *a, int sig)
{
	if (a->stopping) {
		/* A second signal: no more grace for the current stage. */
		if (!srt_sup_stop_hurry(&a->stop, sig))
			return;
		event(a, NULL, true, "Stopping",
		      "received signal %d (%s) while stopping: what the current stage still runs "
		      "gets SIGKILL now; the stages after it get their grace",
		      sig, strsignal(sig));
		return;
	}
	a->phase = SRT_RUN_STOPPING;
	a->exit_code = 128 + sig;
	set_message(a, "stopped by %s", strsignal(sig));
	event(a, NULL, false, "Stopping",
	      "received signal %d (%s): stopping workers and the other processes, then stores, "
	      "then the master",
	      sig, strsignal(sig));
	begin_stop(a, SRT_RUN_STOPPED);
}

/* ---- a new generation, rolled out in place ---- */

#define LIST_MAX 8 /* names in a rollout event, then "and N more" */

/* The list, "none" when empty, with " and K more" past LIST_MAX items. */
static const char *list_text(struct srt_buf *b, size_t n)
{
	srt_buf_list_end(b, n, LIST_MAX);
	return n ? b->data : "none";
}

static void reject_rollout(struct agent *a, int64_t gen, const char *why)
{
	a->rejected_gen = gen;
	event(a, NULL, true, "RolloutRejected",
	      "generation %lld cannot be rolled out in this job: %s; the processes of generation "
	      "%lld keep running",
	      (long long)gen, why, (long long)a->plan.generation);
}

/* The index in a->rt of the unmatched, current process named `name`, or -1. */
static long old_index(const struct agent *a, const bool *matched, const char *name)
{
	for (size_t i = 0; i < a->n; i++) {
		const struct srt_sup_proc *s = &a->rt[i].s;

		if (!matched[i] && s->st != SRT_SUP_RETIRING && s->st != SRT_SUP_REMOVED &&
		    !strcmp(s->spec->name, name))
			return (long)i;
	}
	return -1;
}

/*
 * Is the process q follows in nrt, and being replaced (running, or launched
 * before and started again now: a rollback relaunches a master that failed)?
 * Then q is restarted as a follower once it is ready.
 */
static bool leader_replaced(const struct rt *nrt, size_t n, const bool *changed, const struct rt *q)
{
	for (size_t i = 0; q->s.spec->follows && i < n; i++)
		if (changed[i] && (nrt[i].pid > 0 || nrt[i].s.launched) &&
		    !nrt[i].s.spec->external && !strcmp(nrt[i].s.spec->name, q->s.spec->follows))
			return true;
	return false;
}

static char *log_path_of(const struct agent *a, const struct srt_runplan_proc *p)
{
	return p->log_file ? srt_xasprintf("%s/%s", a->log_dir, p->log_file) : NULL;
}

/*
 * Replace the running plan with np (generation gen, loaded and bound to the
 * same nodes): processes are matched by name; each step is told what the new
 * generation does to it (GENERATION, then REPLACE when its step changed
 * (srt_runplan_proc_changed()), deferred when the process it follows is
 * replaced too; LEADER_REPLACED when only that changed; RETIRE when the new
 * plan lacks it).  A new one waits for its launch gate.  Old plans stay
 * allocated: retired processes still point into them.
 */
static void rollout(struct agent *a, struct srt_runplan *np, int64_t gen)
{
	struct rt *nrt = srt_xcalloc(np->nprocs + a->n + 1, sizeof(*nrt));
	bool *matched = srt_xcalloc(a->n + 1, sizeof(*matched));
	bool *changed = srt_xcalloc(np->nprocs + a->n + 1, sizeof(*changed));
	char **why = srt_xcalloc(np->nprocs + 1, sizeof(*why));
	struct srt_buf restarted, added, removed, b;
	size_t k = 0, nrestart = 0, nadd = 0, nremove = 0, nsame = 0;
	char reason[sizeof(nrt->s.why)];

	srt_buf_init(&restarted);
	srt_buf_init(&added);
	srt_buf_init(&removed);
	/* Rounds in flight probe the old specs: start them again on the new ones. */
	for (size_t i = 0; i < a->n; i++)
		cancel_probes(&a->rt[i]);
	/* Match, and tell what changed, against the old plan. */
	for (size_t i = 0; i < np->nprocs; i++, k++) {
		struct srt_runplan_proc *pn = &np->procs[i];
		struct rt *q = &nrt[k];
		long j = old_index(a, matched, pn->name);

		if (j < 0) {
			srt_sup_init(&q->s, pn);
			q->log_path = log_path_of(a, pn);
			q->s.rolling = !pn->external;
			srt_buf_list_item(&added, &nadd, LIST_MAX, "%s", pn->name);
			continue;
		}
		matched[j] = true;
		*q = a->rt[j];
		srt_buf_init(&b);
		if (pn->external)
			changed[k] = !srt_str_same(q->s.spec->endpoint, pn->endpoint);
		else
			changed[k] = srt_runplan_proc_changed(&a->plan, q->s.spec, np, pn, &b);
		if (a->rolling_back && q->s.failed_rollout && !changed[k]) {
			/* Its spec is the old one (a follower): it gets a new start all the same. */
			srt_buf_printf(&b, "it failed with generation %lld",
				       (long long)a->failed_gen);
			changed[k] = true;
		}
		why[i] = srt_buf_detach(&b);
		if (!srt_str_same(q->s.spec->log_file, pn->log_file)) {
			free(q->log_path);
			q->log_path = log_path_of(a, pn);
		}
		q->s.spec = pn;
	}
	/* What the new plan lacks: stopped, and forgotten once it exited. */
	for (size_t j = 0; j < a->n; j++) {
		struct rt *o = &a->rt[j];
		bool retired = o->s.st == SRT_SUP_RETIRING || o->s.st == SRT_SUP_REMOVED;

		if (matched[j])
			continue;
		if (o->pid <= 0 && !retired) {
			free(o->log_path);
			srt_buf_list_item(&removed, &nremove, LIST_MAX, "%s", o->s.spec->name);
			continue;
		}
		nrt[k] = *o;
		if (!retired)
			srt_buf_list_item(&removed, &nremove, LIST_MAX, "%s", o->s.spec->name);
		k++;
	}
	/* Swap, so events and status carry the new generation. */
	a->old_plans = srt_xrealloc(a->old_plans, (a->nold + 1) * sizeof(*a->old_plans));
	a->old_plans[a->nold++] = a->plan;
	a->plan = *np;
	free(a->rt);
	a->rt = nrt;
	a->n = k;
	a->rollout_gen = gen;
	a->rollout_m = srt_monotonic_ms();
	if (gen > a->good_gen)
		a->rolling_back = false; /* a newer generation supersedes a rollback */
	a->rollout_wall = now_wall(a);
	{
		struct srt_error e;

		if (write_store_configs(a, false, &e) < 0)
			event(a, NULL, true, "StoreConfigNotWritten", "%s", e.msg);
	}
	/* Act: tell each step. */
	for (size_t i = 0; i < a->n; i++) {
		struct rt *q = &a->rt[i];
		const struct srt_runplan_proc *p = q->s.spec;
		struct srt_sup_obs ob = { .kind = SRT_SUP_ON_REPLACE };

		if (i >= np->nprocs) {
			observe_kind(a, q, SRT_SUP_ON_RETIRE);
			continue;
		}
		observe_kind(a, q, SRT_SUP_ON_GENERATION);
		if (!changed[i]) {
			/* Unchanged; restarted anyway when what it follows is replaced. */
			if (leader_replaced(a->rt, a->n, changed, q) && q->pid > 0)
				observe_kind(a, q, SRT_SUP_ON_LEADER_REPLACED);
			else if (q->s.launched)
				nsame++;
			continue;
		}
		if (!srt_sup_replaceable(&q->s)) {
			nsame++; /* a running benchmark is never interrupted: the next run gets it */
			continue;
		}
		srt_buf_list_item(&restarted, &nrestart, LIST_MAX, "%s (%s)", p->name,
				  why[i] && *why[i] ? why[i] : "endpoint");
		if (why[i] && !strncmp(why[i], "it failed", 9))
			snprintf(reason, sizeof(reason), "%s", why[i]);
		else
			snprintf(reason, sizeof(reason), "%s changed",
				 why[i] && *why[i] ? why[i] : "endpoint");
		ob.why = reason;
		ob.defer = leader_replaced(a->rt, a->n, changed, q);
		observe(a, q, &ob);
	}
	for (size_t i = 0; i < a->n; i++) {
		const struct rt *q = &a->rt[i];

		if (!q->s.launched && !q->s.spec->external && q->s.spec->group < a->next_group)
			a->next_group = q->s.spec->group;
	}
	if (a->rolling_back)
		event(a, NULL, true, "RollingBack",
		      "back to generation %lld after generation %lld failed: restarting %s; starting "
		      "%s; stopping %s; %zu process(es) unchanged keep running",
		      (long long)gen, (long long)a->failed_gen, list_text(&restarted, nrestart),
		      list_text(&added, nadd), list_text(&removed, nremove), nsame);
	else
		event(a, NULL, false, "RolloutStarted",
		      "generation %lld on the same %zu node(s): restarting %s; starting %s; stopping "
		      "%s; %zu process(es) unchanged keep running",
		      (long long)gen, a->plan.nnodes, list_text(&restarted, nrestart),
		      list_text(&added, nadd), list_text(&removed, nremove), nsame);
	a->dirty = true;
	for (size_t i = 0; i < np->nprocs; i++)
		free(why[i]);
	free(why);
	free(changed);
	free(matched);
	srt_buf_release(&restarted);
	srt_buf_release(&added);
	srt_buf_release(&removed);
}

/* ---- the loop ---- */

static void check_run_ready(struct agent *a)
{
	size_t nup = 0;

	if (a->run_ready || a->stopping)
		return;
	for (size_t i = 0; i < a->n; i++) {
		int up = srt_sup_up(&a->rt[i].s); /* given up or done: update_degraded() tells */

		if (!up)
			return;
		if (up > 0)
			nup++;
	}
	a->run_ready = true;
	a->phase = SRT_RUN_READY;
	if (a->plan.master_name && !a->plan.master_external)
		event(a, NULL, false, "RunReady",
		      "%zu process(es) up; mooncake master at %s:%d (metrics "
		      "http://%s:%d/metrics)",
		      nup, a->plan.infra_ip, SRT_MC_RPC_PORT, a->plan.infra_ip, SRT_MC_ADMIN_PORT);
	else
		event(a, NULL, false, "RunReady", "%zu process(es) up", nup);
}

/*
 * Ready or Degraded: a run that is up is Degraded while a non-critical
 * process (a critical one fails the run instead) is given up.
 */
static void update_degraded(struct agent *a)
{
	const struct rt *gone = NULL;
	enum srt_run_phase want;

	if (!a->run_ready || a->stopping)
		return;
	for (size_t i = 0; i < a->n && !gone; i++)
		if (srt_sup_given_up(&a->rt[i].s))
			gone = &a->rt[i];
	want = gone ? SRT_RUN_DEGRADED : SRT_RUN_READY;
	if (a->phase == want)
		return;
	a->phase = want;
	a->dirty = true;
	if (!gone) {
		set_message(a, "%s", "");
		event(a, NULL, false, "RunRecovered", "every process is up again");
		return;
	}
	set_message(a,
		    "%s was given up (exit status %d); the run goes on without it because it is "
		    "not critical: see `srtctl events --for %s/%s/%s` and %s, or set critical: "
		    "true to fail the run instead",
		    gone->s.spec->name, gone->s.exit_code, object_kind(gone->s.spec),
		    strrchr(a->dir, '/') ? strrchr(a->dir, '/') + 1 : a->dir, gone->s.spec->name,
		    log_rel(gone));
	event(a, NULL, true, "RunDegraded", "%s", a->message);
}

static void launch_groups(struct agent *a)
{
	while (!a->stopping && a->next_group < a->plan.ngroups && group_open(a, a->next_group)) {
		/* The benchmark last, after RunReady when everything else is up. */
		for (int bench = 0; bench < 2; bench++) {
			if (bench)
				check_run_ready(a);
			for (size_t i = 0; i < a->n && !a->stopping; i++) {
				struct rt *r = &a->rt[i];

				/* A campaign run's ladder replaces the benchmark. */
				if (a->ld.on && r->s.spec->kind == SRT_PROC_BENCHMARK)
					continue;
				if (r->s.spec->group == a->next_group && !r->s.spec->external &&
				    !r->s.launched &&
				    (r->s.spec->kind == SRT_PROC_BENCHMARK) == (bench == 1))
					observe_kind(a, r, SRT_SUP_ON_GATE_OPEN);
			}
		}
		a->next_group++;
	}
}

/* Look at plan.json (at most every PLAN_CHECK_MS): a newer generation is rolled out. */
static void check_plan(struct agent *a)
{
	struct srt_runplan np;
	struct srt_error e;
	struct stat st;
	json_t *j = NULL;
	int64_t gen = 0, m = srt_monotonic_ms();

	if (a->stopping || !a->plan.hosts || m < a->plan_check_m)
		return;
	a->plan_check_m = m + PLAN_CHECK_MS;
	if (stat(a->plan_path, &st) < 0 ||
	    (st.st_ino == a->plan_st.st_ino && st.st_size == a->plan_st.st_size &&
	     st.st_mtim.tv_sec == a->plan_st.st_mtim.tv_sec &&
	     st.st_mtim.tv_nsec == a->plan_st.st_mtim.tv_nsec))
		return;
	a->plan_st = st;
	if (srt_rundir_read_plan_file(a->plan_path, &j, &gen, &e) < 0) {
		event(a, NULL, true, "PlanUnreadable", "%s; the running generation %lld goes on",
		      e.msg, (long long)a->plan.generation);
		return;
	}
	/* A generation that failed to roll out is not tried again: only a newer one. */
	if (gen <= a->plan.generation || gen == a->rejected_gen || gen <= a->failed_gen) {
		json_decref(j);
		return;
	}
	memset(&np, 0, sizeof(np));
	if (srt_runplan_load(&np, j, &e) < 0) {
		reject_rollout(a, gen, e.msg);
	} else if (np.nnodes != a->plan.nnodes || np.infra != a->plan.infra) {
		char why[160];

		snprintf(why, sizeof(why),
			 "it needs %zu node(s) with the infra node at index %zu, this job has %zu "
			 "with it at %zu",
			 np.nnodes, np.infra, a->plan.nnodes, a->plan.infra);
		reject_rollout(a, gen, why);
	} else if (srt_runplan_bind(&np, a->plan.hosts, a->plan.ips, a->plan.nnodes, a->log_dir,
				    &e) < 0) {
		reject_rollout(a, gen, e.msg);
	} else {
		np.generation = gen;
		rollout(a, &np, gen);
		json_decref(j);
		return;
	}
	srt_runplan_release(&np);
	json_decref(j);
}

/*
 * A rollout failed (rollout_failed()): roll the last generation that was
 * ready out again, from its plan.json object.  Processes whose spec differs
 * from it are restarted with its spec, processes it lacks are stopped, and
 * processes only it has are started; the rest keep running.
 */
static void roll_back(struct agent *a)
{
	struct srt_runplan np;
	struct srt_error e;

	a->rollback_due = false;
	memset(&np, 0, sizeof(np));
	if (srt_runplan_load(&np, a->good_json, &e) < 0 ||
	    srt_runplan_bind(&np, a->plan.hosts, a->plan.ips, a->plan.nnodes, a->log_dir, &e) < 0) {
		srt_runplan_release(&np);
		fail_run(
			a,
			"generation %lld failed and generation %lld cannot be rolled out again: %s",
			(long long)a->failed_gen, (long long)a->good_gen, e.msg);
		return;
	}
	np.generation = a->good_gen;
	a->rolling_back = true;
	rollout(a, &np, a->good_gen);
}

/* The rollout in progress: done once every process it touched is up again (or given up). */
static void check_rollout(struct agent *a)
{
	if (!a->rollout_gen || a->stopping || a->rollback_due)
		return;
	for (size_t i = 0; i < a->n; i++) {
		if (srt_sup_rollout_waits(&a->rt[i].s))
			return;
	}
	if (a->rolling_back) {
		event(a, NULL, true, "RolledBack",
		      "generation %lld runs again (%.1f s); generation %lld failed and is not tried "
		      "again: fix it and apply a newer generation",
		      (long long)a->rollout_gen,
		      (double)(srt_monotonic_ms() - a->rollout_m) / 1000.0,
		      (long long)a->failed_gen);
		a->rolling_back = false;
	} else {
		event(a, NULL, false, "RolloutComplete", "generation %lld is rolled out (%.1f s)",
		      (long long)a->rollout_gen,
		      (double)(srt_monotonic_ms() - a->rollout_m) / 1000.0);
		json_decref(a->good_json);
		a->good_json = json_incref(a->plan.json);
		a->good_gen = a->rollout_gen;
		if (a->rollout_gen > a->failed_gen)
			a->condition = false;
	}
	a->dirty = true;
	a->rollout_gen = 0;
}

/* Forget retired processes that have exited. */
static void drop_retired(struct agent *a)
{
	size_t k = 0;

	for (size_t i = 0; i < a->n; i++) {
		if (a->rt[i].s.st == SRT_SUP_REMOVED) {
			cancel_probes(&a->rt[i]);
			free(a->rt[i].log_path);
			continue;
		}
		a->rt[k++] = a->rt[i];
	}
	if (k != a->n)
		a->dirty = true;
	a->n = k;
}

static void tick(struct agent *a)
{
	int64_t m;

	if (a->rollback_due && !a->stopping)
		roll_back(a);
	for (size_t i = 0; i < a->n && !a->stopping; i++)
		step_probes(a, &a->rt[i]);
	m = srt_monotonic_ms();

	for (size_t i = 0; i < a->n && !a->stopping; i++) {
		struct rt *r = &a->rt[i];

		observe_kind(a, r, SRT_SUP_ON_TIME); /* kill escalation */
		if (!r->probing && r->s.probe_at <= m) {
			start_probes(a, r);
			step_probes(a, r);
			m = srt_monotonic_ms();
		}
	}
	for (size_t i = 0; i < a->n && !a->stopping; i++) {
		struct rt *r = &a->rt[i];

		if (r->s.st == SRT_SUP_BACKOFF && group_open(a, r->s.spec->group))
			observe_kind(a, r, SRT_SUP_ON_GATE_OPEN);
	}
	check_run_ready(a);
	launch_groups(a);
	check_run_ready(a);
	update_degraded(a);
	check_terminal(a);
	ladder_tick(a);
	drop_retired(a);
	check_rollout(a);
	check_plan(a);
}

/* Milliseconds until the next thing the loop must do (10..1000). */
static int next_wake(struct agent *a)
{
	int64_t m = srt_monotonic_ms(), next = m + 1000;

#define SOONER(t)                      \
	do {                           \
		if ((t) && (t) < next) \
			next = (t);    \
	} while (0)

	if (a->stopping) {
		SOONER(a->stop.until);
	} else {
		for (size_t i = 0; i < a->n; i++) {
			const struct rt *r = &a->rt[i];

			if (r->probing) {
				for (size_t k = 0; k < r->s.spec->nprobes; k++)
					if (r->ops[k].stage != SRT_PROBE_DONE)
						SOONER(r->ops[k].deadline);
			} else {
				SOONER(r->s.probe_at);
			}
			if (r->pid > 0)
				SOONER(r->s.kill_at);
			if (r->s.st == SRT_SUP_BACKOFF && group_open(a, r->s.spec->group))
				SOONER(r->s.restart_at);
		}
	}
	if (a->ld.pid > 0 && !a->stopping) {
		SOONER(a->ld.deadline_m);
		SOONER(a->ld.kill_at);
	}
	SOONER(a->status_m + SRT_RUNDIR_HEARTBEAT_MS);
#undef SOONER
	next -= m;
	return next < 10 ? 10 : next > 1000 ? 1000 : (int)next;
}

static void drain_signals(struct agent *a)
{
	struct signalfd_siginfo si;

	while (read(a->cfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		; /* SIGCHLD: reap() looks at every child */
	while (read(a->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		request_stop(a, (int)si.ssi_signo);
}

static void reap(struct agent *a)
{
	int st;
	pid_t pid;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		struct rt *r = find_pid(a, pid);

		if (r) {
			struct srt_sup_obs ob = { .kind = SRT_SUP_ON_EXIT };

			ob.code = srt_agent_exit_code(st);
			r->pid = 0;
			cancel_probes(r);
			observe(a, r, &ob);
		} else if (a->ld.pid > 0 && pid == a->ld.pid) {
			ladder_exited(a, srt_agent_exit_code(st));
		}
	}
}

/* The fds the loop waits on: the two signalfds, then every probe in flight. */
static size_t poll_set(struct agent *a)
{
	size_t n = 2, need = 2 + 4 * a->n;

	if (a->npfd_cap < need) {
		a->pfd = srt_xrealloc(a->pfd, need * sizeof(*a->pfd));
		a->npfd_cap = need;
	}
	a->pfd[0] = (struct pollfd){ a->sfd, POLLIN, 0 };
	a->pfd[1] = (struct pollfd){ a->cfd, POLLIN, 0 };
	for (size_t i = 0; i < a->n; i++) {
		const struct rt *r = &a->rt[i];

		for (size_t k = 0; r->probing && k < r->s.spec->nprobes; k++) {
			short ev;
			int fd = srt_probe_pollfd(&r->ops[k], &ev);

			if (fd >= 0)
				a->pfd[n++] = (struct pollfd){ fd, ev, 0 };
		}
	}
	return n;
}

static void loop(struct agent *a)
{
	while (!a->done) {
		size_t npfd;

		drain_signals(a);
		reap(a);
		if (a->stopping)
			drive_stop(a);
		else
			tick(a);
		if (a->dirty || srt_monotonic_ms() - a->status_m >= SRT_RUNDIR_HEARTBEAT_MS)
			write_status(a);
		if (a->done)
			break;
		npfd = poll_set(a);
		(void)poll(a->pfd, (nfds_t)npfd, next_wake(a));
	}
}

/* ---- setup ---- */

static int setup_failed(struct agent *a, struct srt_error *err)
{
	a->phase = SRT_RUN_FAILED;
	a->exit_code = 1;
	set_message(a, "%s", err->msg);
	event(a, NULL, true, "RunFailed", "%s", err->msg);
	a->done = true;
	write_status(a);
	return -1;
}

/*
 * Write the plan's Mooncake client configs (mooncake/ in the log dir, made
 * if missing); announce: a StoreConfigWritten event for each.
 */
static int write_store_configs(struct agent *a, bool announce, struct srt_error *err)
{
	char *dir;

	if (!a->plan.nstore_configs)
		return 0;
	dir = srt_xasprintf("%s/mooncake", a->log_dir);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		srt_error_set(err, "cannot create '%s': %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	free(dir);
	for (size_t i = 0; i < a->plan.nstore_configs; i++) {
		const struct srt_runplan_store_config *sc = &a->plan.store_configs[i];

		if (srt_rundir_write_file(sc->path, sc->text, strlen(sc->text), 0644, err) < 0)
			return -1;
		if (announce)
			event(a, NULL, false, "StoreConfigWritten", "wrote %s: %.*s", sc->path,
			      (int)strcspn(sc->text, "\n"), sc->text);
	}
	return 0;
}

/* A campaign run: the tool's step, the model it asks for, DIR/points. */
static int ladder_setup(struct agent *a, struct srt_error *err)
{
	struct ladder *l = &a->ld;
	struct stat sb;

	ladder_template(a);
	srt_agent_plan_model(&a->plan, &l->model, &l->tokenizer);
	if (!l->model)
		l->model = l->tokenizer;
	l->points_dir = srt_xasprintf("%s/" SRT_RUNDIR_POINTS_DIR, a->dir);
	if (mkdir(l->points_dir, SRT_RUNDIR_DIR_MODE) < 0 && errno != EEXIST)
		return srt_error_set(err, "cannot create '%s': %s", l->points_dir, strerror(errno));
	if (lstat(l->points_dir, &sb) < 0 || !S_ISDIR(sb.st_mode))
		return srt_error_set(err,
				     "'%s' is not a directory (a symbolic link?); remove it: the "
				     "agent creates it for the points' result files",
				     l->points_dir);
	return 0;
}

static int setup(struct agent *a, struct srt_error *err)
{
	struct srt_agent_nodes nodes = { NULL, NULL, 0 };
	char *plan_path = NULL;
	json_t *plan = NULL;
	int64_t gen;
	int rc = -1, r;

	plan_path = a->o->plan_file ? srt_xstrdup(a->o->plan_file) :
				      srt_xasprintf("%s/" SRT_RUNDIR_PLAN, a->dir);
	a->plan_path = srt_xstrdup(plan_path);
	if (stat(plan_path, &a->plan_st) < 0)
		memset(&a->plan_st, 0, sizeof(a->plan_st));
	if (srt_rundir_read_plan_file(plan_path, &plan, &gen, err) < 0) {
		setup_failed(a, err);
		goto out;
	}
	if (srt_runplan_load(&a->plan, plan, err) < 0) {
		srt_error_prefix(err, "plan '%s'", plan_path);
		srt_runplan_release(&a->plan);
		setup_failed(a, err);
		goto out;
	}
	a->plan_loaded = true;
	a->good_json = json_incref(a->plan.json);
	a->good_gen = a->plan.generation;
	event(a, NULL, false, "PlanLoaded",
	      "plan generation %lld of recipe '%s': %zu process(es) on %zu node(s)",
	      (long long)a->plan.generation, a->plan.recipe, a->plan.nprocs, a->plan.nnodes);
	r = srt_points_read(a->dir, &a->ld.f, err);
	if (r < 0) {
		setup_failed(a, err);
		goto out;
	}
	a->ld.on = r == 0;
	if (a->ld.on) {
		size_t dropped = 0;
		char note[96] = "";

		if (points_done_before(a, &dropped, err) < 0) {
			setup_failed(a, err);
			goto out;
		}
		if (dropped)
			snprintf(note, sizeof(note),
				 "; %zu finished before this job was requeued, not run again",
				 dropped);
		event(a, NULL, false, "PointsLoaded",
		      "campaign '%s', deployment '%s': %zu load point(s) with %s after the run is "
		      "ready%s%s",
		      a->ld.f.campaign, a->ld.f.deployment, a->ld.f.npoints,
		      srt_points_tool_name(a->ld.f.tool),
		      srt_runplan_find(&a->plan, "benchmark") ? "; they replace the benchmark" : "",
		      note);
	}
	r = srt_agent_nodes_resolve(&nodes, getenv("SLURM_JOB_NODELIST"), a->plan.network_interface,
				    a->plan.nnodes, SRT_AGENT_RESOLVE_TIMEOUT_MS, a->sfd, err);
	if (r == -2) {
		/* SIGTERM while resolving: nothing runs yet. */
		drain_signals(a);
		if (!a->stopping)
			request_stop(a, SIGTERM);
		goto out_stopped;
	}
	if (r < 0) {
		setup_failed(a, err);
		goto out;
	}
	if (srt_runplan_bind(&a->plan, (const char *const *)nodes.hosts,
			     (const char *const *)nodes.ips, a->plan.nnodes, a->log_dir, err) < 0) {
		setup_failed(a, err);
		goto out;
	}
	{
		struct srt_buf b;

		srt_buf_init(&b);
		for (size_t i = 0; i < a->plan.nnodes; i++)
			srt_buf_printf(&b, "%s%s=%s%s", i ? ", " : "", a->plan.hosts[i],
				       a->plan.ips[i], i == a->plan.infra ? " (infra)" : "");
		event(a, NULL, false, "NodesResolved", "%s%s%s", b.data,
		      a->plan.network_interface ? "; interface " : "; first address of hostname -I",
		      a->plan.network_interface ? a->plan.network_interface : "");
		srt_buf_release(&b);
	}
	if (write_store_configs(a, true, err) < 0) {
		setup_failed(a, err);
		goto out;
	}
	if (a->ld.on && ladder_setup(a, err) < 0) {
		setup_failed(a, err);
		goto out;
	}
	a->n = a->plan.nprocs;
	a->rt = srt_xcalloc(a->n + 1, sizeof(*a->rt));
	for (size_t i = 0; i < a->n; i++) {
		struct rt *q = &a->rt[i];

		srt_sup_init(&q->s, &a->plan.procs[i]);
		q->log_path = log_path_of(a, q->s.spec);
	}
out_stopped:
	rc = 0;
out:
	srt_agent_nodes_release(&nodes);
	json_decref(plan);
	free(plan_path);
	return rc;
}

static void init_status_seq(struct agent *a)
{
	struct srt_rundir_status old;
	struct srt_error e;
	int r = srt_rundir_read_status(a->dir, &old, &e);

	if (r == 0)
		a->status_seq = old.seq;
	else if (r < 0)
		/* Unreadable: restart above any seq an old agent could have reached. */
		a->status_seq = now_wall(a);
	srt_rundir_status_release(&old);
}

int srt_agent_run(const struct srt_agent_opts *o, int *exit_code, struct srt_error *err)
{
	struct agent A, *a = &A;
	sigset_t mask, chld, old_mask;
	struct sigaction ign, old_pipe;
	char real[PATH_MAX];
	int rc = -1;

	memset(a, 0, sizeof(*a));
	a->o = o;
	a->clock = o->clock ? o->clock : srt_clock_system();
	a->log = o->log ? o->log : stderr;
	a->grace_ms = o->stop_grace_ms > 0 ? o->stop_grace_ms : SRT_AGENT_STOP_GRACE_MS;
	a->probe_ms = o->probe_timeout_ms > 0 ? o->probe_timeout_ms : SRT_AGENT_PROBE_TIMEOUT_MS;
	a->live_fails = o->liveness_failures > 0 ? o->liveness_failures :
						   SRT_AGENT_LIVENESS_FAILURES;
	a->exit_code = 1;
	a->message = srt_xstrdup("");
	a->sfd = -1;
	a->cfd = -1;
	a->phase = SRT_RUN_STARTING;
	a->started_at = now_wall(a);
	a->job_id = getenv("SLURM_JOB_ID");
	if (gethostname(a->host, sizeof(a->host) - 1) < 0)
		snprintf(a->host, sizeof(a->host), "unknown");
	*exit_code = 1;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &old_mask);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old_pipe);
	a->sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	a->cfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
	if (a->sfd < 0 || a->cfd < 0) {
		srt_error_set(err, "signalfd failed: %s", strerror(errno));
		goto out;
	}
	if (!o->run_dir || !*o->run_dir) {
		srt_error_set(err, "no run directory given; use --run-dir DIR");
		goto out;
	}
	if (srt_rundir_create(o->run_dir, err) < 0)
		goto out;
	if (!realpath(o->run_dir, real)) {
		srt_error_set(err, "cannot use run directory '%s': %s", o->run_dir,
			      strerror(errno));
		goto out;
	}
	a->dir = srt_xstrdup(real);
	a->log_dir = srt_xasprintf("%s/" SRT_RUNDIR_LOGS, a->dir);
	if (srt_rundir_events_open(&a->ev, a->dir, err) < 0)
		goto out;
	a->ev_open = true;
	init_status_seq(a);
	event(a, NULL, false, "AgentStarted", "agent pid %ld on %s for job %s in %s",
	      (long)getpid(), a->host, a->job_id ? a->job_id : "(none)", a->dir);
	write_status(a);
	if (setup(a, err) < 0)
		goto out;
	write_status(a);
	if (!a->done)
		loop(a);
	a->done = true;
	write_status(a);
	*exit_code = a->exit_code;
	rc = 0;
out:
	if (rc < 0 && a->done)
		*exit_code = a->exit_code;
	for (size_t i = 0; i < a->n; i++) {
		cancel_probes(&a->rt[i]);
		free(a->rt[i].log_path);
	}
	free(a->rt);
	free(a->pfd);
	srt_points_file_release(&a->ld.f);
	srt_loadgen_cmd_release(&a->ld.cmd);
	free(a->ld.points_dir);
	free(a->ld.result_rel);
	free(a->ld.result_abs);
	free(a->ld.named_abs);
	free(a->ld.log_path);
	if (a->plan_loaded)
		srt_runplan_release(&a->plan);
	for (size_t i = 0; i < a->nold; i++)
		srt_runplan_release(&a->old_plans[i]);
	free(a->old_plans);
	free(a->plan_path);
	if (a->ev_open)
		srt_rundir_events_close(&a->ev);
	free(a->dir);
	free(a->log_dir);
	free(a->message);
	free(a->failed_msg);
	json_decref(a->good_json);
	if (a->sfd >= 0)
		close(a->sfd);
	if (a->cfd >= 0)
		close(a->cfd);
	sigaction(SIGPIPE, &old_pipe, NULL);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	return rc;
}
