/*
 * agent/supervise.c: the per-process supervision state machine.
 *
 * This file owns every decision about one process of the run: when it is
 * launched, what its exit means (restart with back-off, give up, fail the
 * run, fail the rollout), what a probe round means (ready, a readiness
 * timeout on the first start or after a restart, liveness failures in a
 * row), follower restarts, what a new generation does to it, and its part
 * in the run's ordered stop; and the text of every event those decisions
 * emit.  Pure: state, observation and `now` in, state and actions out
 * (agent/supervise.h).  agent/agent.c performs the actions.
 */
#include "agent/supervise.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

void srt_sup_init(struct srt_sup_proc *s, const struct srt_runplan_proc *spec)
{
	memset(s, 0, sizeof(*s));
	s->spec = spec;
	s->st = spec->external ? SRT_SUP_STARTING : SRT_SUP_PENDING;
	s->shown = SRT_PS_PENDING;
	s->exit_code = -1;
	s->probe_at = spec->external && spec->nprobes ? 0 : SRT_SUP_NEVER;
	s->deadline_at = s->restart_at = s->kill_at = SRT_SUP_NEVER;
}

/* ---- actions ---- */

static struct srt_sup_action *add(struct srt_sup_actions *out, enum srt_sup_act_kind kind)
{
	struct srt_sup_action *x;

	if (out->n >= SRT_SUP_MAX_ACTIONS)
		abort(); /* a step emits at most SRT_SUP_MAX_ACTIONS: a bug */
	x = &out->a[out->n++];
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	x->held_at = -1;
	return x;
}

static struct srt_sup_action *event(struct srt_sup_actions *out, bool warning, const char *reason,
				    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static struct srt_sup_action *event(struct srt_sup_actions *out, bool warning, const char *reason,
				    const char *fmt, ...)
{
	struct srt_sup_action *x = add(out, SRT_SUP_DO_EVENT);
	va_list ap;

	x->warning = warning;
	x->reason = reason;
	va_start(ap, fmt);
	x->text = srt_xvasprintf(fmt, ap);
	va_end(ap);
	return x;
}

static struct srt_sup_action *text_action(struct srt_sup_actions *out, enum srt_sup_act_kind kind,
					  char *text)
{
	struct srt_sup_action *x = add(out, kind);

	x->text = text;
	return x;
}

static void signal_it(struct srt_sup_actions *out, int sig)
{
	add(out, SRT_SUP_DO_SIGNAL)->sig = sig;
}

void srt_sup_actions_release(struct srt_sup_actions *out)
{
	for (size_t i = 0; i < out->n; i++)
		free(out->a[i].text);
	out->n = 0;
}

/* ---- predicates ---- */

bool srt_sup_running(const struct srt_sup_proc *s)
{
	if (s->spec->external)
		return false;
	switch (s->st) {
	case SRT_SUP_STARTING:
	case SRT_SUP_RUNNING:
	case SRT_SUP_READY:
	case SRT_SUP_RESTARTING:
	case SRT_SUP_GIVEN_UP:
	case SRT_SUP_RETIRING:
	case SRT_SUP_STOPPING:
		return true;
	default:
		return false;
	}
}

static bool done_or_given_up(const struct srt_sup_proc *s)
{
	return !s->spec->critical && (s->shown == SRT_PS_FAILED || s->shown == SRT_PS_EXITED);
}

bool srt_sup_holds_gate(const struct srt_sup_proc *s, int g)
{
	const struct srt_runplan_proc *p = s->spec;

	if (p->group >= g || done_or_given_up(s))
		return false;
	return (!p->external && !s->launched) || (p->nprobes && !s->ready);
}

int srt_sup_up(const struct srt_sup_proc *s)
{
	const struct srt_runplan_proc *p = s->spec;

	if (p->kind == SRT_PROC_BENCHMARK || done_or_given_up(s))
		return -1;
	if ((!p->external && !s->launched) || (p->nprobes && !s->ready))
		return 0;
	return 1;
}

bool srt_sup_given_up(const struct srt_sup_proc *s)
{
	return !s->spec->critical && s->spec->kind != SRT_PROC_BENCHMARK &&
	       s->shown == SRT_PS_FAILED;
}

bool srt_sup_replaceable(const struct srt_sup_proc *s)
{
	return !(s->spec->kind == SRT_PROC_BENCHMARK && srt_sup_running(s));
}

bool srt_sup_rollout_waits(const struct srt_sup_proc *s)
{
	if (s->st == SRT_SUP_RETIRING)
		return true;
	if (s->st == SRT_SUP_REMOVED)
		return false;
	return s->rolling && s->shown != SRT_PS_FAILED && s->shown != SRT_PS_EXITED;
}

/* ---- texts ---- */

void srt_sup_probe_list(const struct srt_runplan_proc *p, char *buf, size_t n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < p->nprobes && off < n; k++) {
		char name[SRT_PROBE_PATH_MAX + 64];
		int w;

		srt_runplan_probe_name(&p->probes[k], name, sizeof(name));
		w = snprintf(buf + off, n - off, "%s%s", k ? ", " : "", name);

		if (w < 0)
			break;
		off += (size_t)w;
	}
}

/*
 * "tcp 8700 never answered, tcp 8701 answered, http 8702 /health never
 * answered": each readiness probe of this start, whether it passed at least
 * once.
 */
static void probe_report(const struct srt_sup_proc *s, struct srt_buf *b)
{
	const struct srt_runplan_proc *p = s->spec;

	for (size_t k = 0; k < p->nprobes; k++) {
		const struct srt_runplan_probe *pb = &p->probes[k];
		char name[SRT_PROBE_PATH_MAX + 64];

		srt_runplan_probe_name(pb, name, sizeof(name));
		srt_buf_printf(b, "%s%s %s", k ? ", " : "", name,
			       pb->pattern    ? (s->probe_ok[k] ? "matched" : "never matched") :
			       pb->file	      ? (s->probe_ok[k] ? "appeared" : "never appeared") :
			       s->probe_ok[k] ? "answered" :
						"never answered");
		if (!s->probe_ok[k] && s->probe_last[k][0])
			srt_buf_printf(b, " (%s)", s->probe_last[k]);
	}
}

/* ---- transitions ---- */

static void launch(struct srt_sup_proc *s, enum srt_sup_start how, const char *why,
		   struct srt_sup_actions *out)
{
	struct srt_sup_action *x = add(out, SRT_SUP_DO_LAUNCH);

	s->st = SRT_SUP_LAUNCHING;
	s->how = how;
	s->probe_at = s->kill_at = SRT_SUP_NEVER;
	x->how = how;
	x->text = why ? srt_xstrdup(why) : NULL;
}

/* Ask a running process to go, to be started again (how) when it has exited. */
static void kill_for_restart(struct srt_sup_proc *s, const struct srt_sup_ctx *c, int64_t now,
			     enum srt_sup_start how, const char *why, struct srt_sup_actions *out)
{
	s->st = SRT_SUP_RESTARTING;
	s->how = how;
	if (why != s->why)
		snprintf(s->why, sizeof(s->why), "%s", why);
	s->probe_at = SRT_SUP_NEVER;
	signal_it(out, SIGTERM);
	s->kill_at = now + c->grace_ms;
}

static void fail_rollout(struct srt_sup_proc *s, struct srt_sup_actions *out, char *what,
			 long held_at)
{
	struct srt_sup_action *x = text_action(out, SRT_SUP_DO_FAIL_ROLLOUT, what);

	x->held_at = held_at;
	s->failed_rollout = true;
}

static void on_spawned(struct srt_sup_proc *s, const struct srt_sup_ctx *c,
		       const struct srt_sup_obs *ob, int64_t now, struct srt_sup_actions *out)
{
	const struct srt_runplan_proc *p = s->spec;
	char probes[160];

	if (s->st != SRT_SUP_LAUNCHING)
		return;
	s->launched = true;
	s->start_at = now;
	s->ready = false;
	s->notify_followers = s->how != SRT_SUP_FIRST;
	s->probe_fails = 0;
	memset(s->probe_ok, 0, sizeof(s->probe_ok));
	memset(s->probe_last, 0, sizeof(s->probe_last));
	s->last_probe[0] = '\0';
	if (ob->pid <= 0) {
		s->st = SRT_SUP_FAILED;
		s->shown = SRT_PS_FAILED;
		s->exit_code = 127;
		event(out, true, "FailedToStart", "%s", ob->err);
		if (c->judging && s->rolling) {
			fail_rollout(s, out, srt_xasprintf("could not be started: %s", ob->err),
				     -1);
			return;
		}
		if (p->critical)
			text_action(out, SRT_SUP_DO_FAIL_RUN,
				    srt_xasprintf("critical process '%s' could not be started: %s",
						  p->name, ob->err));
		return;
	}
	s->exit_code = -1;
	s->st = p->nprobes ? SRT_SUP_STARTING : SRT_SUP_RUNNING;
	s->shown = p->nprobes ? SRT_PS_STARTING : SRT_PS_RUNNING;
	if (!p->nprobes) {
		s->ready = true;
		s->ever_ready = true;
		s->rolling = false;
	}
	s->probe_at = p->nprobes ? now + SRT_SUP_START_PROBE_MS : SRT_SUP_NEVER;
	s->deadline_at = p->nprobes ? now + (int64_t)p->timeout_s * 1000 : SRT_SUP_NEVER;
	srt_sup_probe_list(p, probes, sizeof(probes));
	if (s->how == SRT_SUP_ROLLOUT && c->rolling_back)
		event(out, true, "RolledBack",
		      "started again with generation %lld (%s; generation %lld failed) on %s (%s) "
		      "as SLURM step '%s', pid %ld; log %s",
		      (long long)c->generation, s->why, (long long)c->failed_gen, p->host, p->ip,
		      p->name, ob->pid, p->log_file);
	else if (s->how == SRT_SUP_ROLLOUT)
		event(out, false, "RolledOut",
		      "started with generation %lld (%s) on %s (%s) as SLURM step '%s', pid %ld; "
		      "log %s",
		      (long long)c->generation, s->why, p->host, p->ip, p->name, ob->pid,
		      p->log_file);
	else if (s->how != SRT_SUP_FIRST)
		event(out, false, "Restarted",
		      "restarted (restart %d: %s) on %s (%s) as SLURM step '%s', pid %ld; log %s",
		      s->restarts, s->why, p->host, p->ip, p->name, ob->pid, p->log_file);
	else
		event(out, false, "Started",
		      "started on %s (%s) as SLURM step '%s', pid %ld; log %s%s%s", p->host, p->ip,
		      p->name, ob->pid, p->log_file, p->nprobes ? "; waiting for " : "",
		      p->nprobes ? probes : "");
}

/* It exited before it was ready: "...: tcp 8700 answered, ... at IP" and where held ports go. */
static long before_ready(const struct srt_sup_proc *s, struct srt_buf *b)
{
	probe_report(s, b);
	srt_buf_printf(b, " at %s", s->spec->ip);
	return (long)b->len;
}

static void on_exited(struct srt_sup_proc *s, const struct srt_sup_ctx *c,
		      const struct srt_sup_obs *ob, int64_t now, struct srt_sup_actions *out)
{
	const struct srt_runplan_proc *p = s->spec;
	int code = ob->code;
	int64_t ran = now - s->start_at;
	struct srt_agent_decision d;
	bool counted, failed;
	char why[sizeof(s->why) + 32];
	struct srt_buf b;

	if (!srt_sup_running(s))
		return;
	s->probe_at = s->kill_at = SRT_SUP_NEVER;
	s->exit_code = code;
	s->ready = false;
	switch (s->st) {
	case SRT_SUP_GIVEN_UP:
		s->st = SRT_SUP_FAILED;
		s->shown = SRT_PS_FAILED;
		event(out, true, "ProcessExited", "exited with status %d after it was given up",
		      code);
		return;
	case SRT_SUP_STOPPING:
		s->st = SRT_SUP_STOPPED;
		s->shown = SRT_PS_STOPPED;
		event(out, false, "Stopped", "stopped (exit status %d)", code);
		return;
	case SRT_SUP_RETIRING:
		s->st = SRT_SUP_REMOVED;
		s->shown = SRT_PS_STOPPED;
		event(out, false, "Removed",
		      "stopped (exit status %d): generation %lld of the recipe no longer has it",
		      code, (long long)c->generation);
		return;
	case SRT_SUP_RESTARTING:
		if (s->how == SRT_SUP_ROLLOUT) {
			s->budget = 0;
			launch(s, SRT_SUP_ROLLOUT, s->why, out);
			return;
		}
		break;
	default:
		break;
	}
	if (p->kind == SRT_PROC_BENCHMARK) {
		s->st = code ? SRT_SUP_FAILED : SRT_SUP_EXITED;
		s->shown = code ? SRT_PS_FAILED : SRT_PS_EXITED;
		event(out, code != 0, "ProcessExited", "benchmark finished with status %d", code);
		add(out, SRT_SUP_DO_END_RUN)->code = code;
		return;
	}
	if (s->st == SRT_SUP_RESTARTING && s->how == SRT_SUP_FOLLOW) {
		s->restarts++;
		launch(s, SRT_SUP_FOLLOW, s->why, out);
		return;
	}
	/* Killed by the agent for a counted restart (liveness, readiness after a restart). */
	counted = s->st == SRT_SUP_RESTARTING;
	failed = code != 0 || counted;
	if (counted)
		snprintf(why, sizeof(why), "%s (exit status %d)", s->why, code);
	else
		snprintf(why, sizeof(why), "after exit status %d", code);
	if (!counted)
		event(out, failed || p->critical, "ProcessExited",
		      "exited with status %d after %.1f s", code, (double)ran / 1000.0)
			->tail = failed;
	if (c->judging && s->rolling) {
		/* Part of a rollout and not ready yet: the new generation fails, no restarts. */
		long held = -1;

		srt_buf_init(&b);
		if (counted) /* the agent stopped it: `why` says why */
			srt_buf_printf(&b, "was stopped (%s) before it was ready", why);
		else
			srt_buf_printf(&b, "exited with status %d before it was ready", code);
		if (p->nprobes) {
			srt_buf_puts(&b, ": ");
			held = before_ready(s, &b);
		}
		s->st = SRT_SUP_FAILED;
		s->shown = SRT_PS_FAILED;
		fail_rollout(s, out, srt_buf_detach(&b), held);
		return;
	}
	if (p->nprobes && !s->ever_ready && s->restarts == 0) {
		/* It never became ready on its first start: a configuration problem. */
		struct srt_sup_action *x;
		long held;

		s->st = SRT_SUP_FAILED;
		s->shown = SRT_PS_FAILED;
		srt_buf_init(&b);
		if (p->critical) {
			srt_buf_printf(&b,
				       "%s exited with status %d before it was ready: ", p->name,
				       code);
			held = before_ready(s, &b);
			x = text_action(out, SRT_SUP_DO_FAIL_RUN, srt_buf_detach(&b));
			x->tail = true;
		} else {
			srt_buf_printf(&b, "exited with status %d before it was ready: ", code);
			held = before_ready(s, &b);
			srt_buf_puts(&b, "; it is not critical, so the run goes on without it");
			x = add(out, SRT_SUP_DO_EVENT);
			x->warning = true;
			x->reason = "ReadinessFailed";
			x->text = srt_buf_detach(&b);
		}
		x->held_at = held;
		return;
	}
	d = srt_agent_decide(&p->restart, s->budget, ran, failed);
	switch (d.verdict) {
	case SRT_AGENT_RESTART:
		s->budget = d.budget_used;
		s->st = SRT_SUP_BACKOFF;
		s->shown = SRT_PS_CRASHLOOP;
		s->how = SRT_SUP_RESTART;
		s->restart_at = now + d.delay_ms;
		snprintf(s->why, sizeof(s->why), "%.*s", (int)sizeof(s->why) - 1, why);
		event(out, true, "BackOff",
		      "back-off %.1f s before restart %d of %d (exit status %d)",
		      (double)d.delay_ms / 1000.0, d.budget_used, p->restart.max_restarts, code);
		break;
	case SRT_AGENT_GIVE_UP:
		s->st = SRT_SUP_FAILED;
		s->shown = SRT_PS_FAILED;
		event(out, true, "RestartLimitReached",
		      "exited with status %d and has used all %d restarts (restart.max_restarts); "
		      "see %s",
		      code, p->restart.max_restarts, p->log_file);
		if (p->critical)
			text_action(
				out, SRT_SUP_DO_FAIL_RUN,
				srt_xasprintf("critical process %s failed %d times in a row (last "
					      "exit status %d); see %s and raise "
					      "restart.max_restarts only once the cause is fixed",
					      p->name, s->budget + 1, code, p->log_file));
		break;
	case SRT_AGENT_LEAVE:
		s->st = code ? SRT_SUP_FAILED : SRT_SUP_EXITED;
		s->shown = code ? SRT_PS_FAILED : SRT_PS_EXITED;
		if (p->critical)
			text_action(
				out, SRT_SUP_DO_FAIL_RUN,
				srt_xasprintf("critical process %s exited with status %d and its "
					      "restart policy (%s) does not restart it; see %s",
					      p->name, code, srt_restart_mode_name(p->restart.mode),
					      p->log_file));
		break;
	}
}

/* A start was not ready within readiness.timeout_seconds. */
static void readiness_timeout(struct srt_sup_proc *s, const struct srt_sup_ctx *c, int64_t now,
			      struct srt_sup_actions *out)
{
	const struct srt_runplan_proc *p = s->spec;
	struct srt_buf never, files;

	srt_buf_init(&never);
	srt_buf_init(&files);
	for (size_t k = 0; k < p->nprobes; k++) {
		if (s->probe_ok[k])
			continue;
		if (p->probes[k].pattern)
			srt_buf_printf(&files, "%sno line of %s matched /%s/",
				       files.len ? "; " : "", p->log_file, p->probes[k].pattern);
		else if (p->probes[k].file)
			srt_buf_printf(&files,
				       "%sfile %s never appeared (nonempty) in the log "
				       "directory",
				       files.len ? "; " : "", p->probes[k].file);
		else
			srt_buf_printf(&never, "%s%s port %d", never.len ? ", " : "",
				       p->probes[k].http ? "http" : "tcp", p->probes[k].port);
	}
	if (never.len)
		srt_buf_printf(&never, " on %s never answered", p->ip);
	if (files.len) /* in the log directory, wherever the process runs */
		srt_buf_printf(&never, "%s%s", never.len ? "; " : "", files.data);
	srt_buf_release(&files);
	if (!never.len)
		srt_buf_puts(&never, "the probes never passed together");
	s->deadline_at = SRT_SUP_NEVER;
	if (c->judging && s->rolling) {
		/* The rollback restarts it; until then it is probed as before. */
		event(out, true, "ReadinessTimeout",
		      "not ready within %d s of its start with generation %lld: %s (last probe: %s)",
		      p->timeout_s, (long long)c->generation, never.data, s->last_probe)
			->tail = true;
		s->shown = SRT_PS_UNHEALTHY;
		fail_rollout(
			s, out,
			srt_xasprintf("was not ready within %d s (readiness.timeout_seconds): %s",
				      p->timeout_s, never.data),
			-1);
	} else if (s->restarts == 0) {
		event(out, true, "ReadinessTimeout",
		      "not ready within %d s: %s (last probe: %s); check %s, or raise %s if it "
		      "only needs longer",
		      p->timeout_s, never.data, s->last_probe, p->log_file,
		      p->kind == SRT_PROC_WORKER ?
			      "health_check.max_attempts (the window is max_attempts x "
			      "interval_seconds)" :
			      "readiness.timeout_seconds")
			->tail = true;
		s->st = SRT_SUP_GIVEN_UP;
		s->shown = SRT_PS_FAILED;
		s->probe_at = SRT_SUP_NEVER;
		signal_it(out, SIGTERM);
		s->kill_at = now + c->grace_ms;
		if (p->critical)
			text_action(out, SRT_SUP_DO_FAIL_RUN,
				    srt_xasprintf("%s was not ready within %d s: %s; check %s",
						  p->name, p->timeout_s, never.data, p->log_file))
				->tail = true;
	} else {
		char why[200];

		event(out, true, "ReadinessTimeout",
		      "not ready within %d s after restart %d: %s (last probe: %s)", p->timeout_s,
		      s->restarts, never.data, s->last_probe)
			->tail = true;
		snprintf(why, sizeof(why), "not ready within %d s", p->timeout_s);
		s->shown = SRT_PS_UNHEALTHY;
		kill_for_restart(s, c, now, SRT_SUP_RESTART, why, out);
	}
	srt_buf_release(&never);
}

static void on_probed(struct srt_sup_proc *s, const struct srt_sup_ctx *c,
		      const struct srt_sup_obs *ob, int64_t now, struct srt_sup_actions *out)
{
	const struct srt_runplan_proc *p = s->spec;
	int64_t interval = (int64_t)p->interval_s * 1000;
	bool ok = true;

	if ((s->st != SRT_SUP_STARTING && s->st != SRT_SUP_RUNNING && s->st != SRT_SUP_READY) ||
	    !p->nprobes)
		return;
	/* Starting: every probe says which listeners answered.  Ready (liveness):
	 * the first that failed is the one reported. */
	for (size_t k = 0; k < p->nprobes; k++) {
		const struct srt_runplan_probe *pb = &p->probes[k];
		const char *detail = ob->detail[k] ? ob->detail[k] : "";

		if (!ok && s->ready)
			break;
		snprintf(s->probe_last[k], sizeof(s->probe_last[k]), "%s", detail);
		/* last_probe: the first probe that failed, else the last one. */
		if (ok) {
			char name[SRT_PROBE_PATH_MAX + 64];

			srt_runplan_probe_name(pb, name, sizeof(name));
			int w = snprintf(s->last_probe, sizeof(s->last_probe), "%.200s", name);

			if (w > 0 && (size_t)w < sizeof(s->last_probe))
				snprintf(s->last_probe + w, sizeof(s->last_probe) - (size_t)w,
					 ": %s", detail);
		}
		if (!ob->ok[k]) {
			ok = false;
			continue;
		}
		s->probe_ok[k] = true;
	}
	if (ok) {
		bool was_starting = s->shown == SRT_PS_STARTING;
		char probes[160];

		s->probe_fails = 0;
		s->probe_at = now + interval;
		if (s->ready)
			return;
		s->ready = true;
		s->st = SRT_SUP_READY;
		s->shown = SRT_PS_READY;
		add(out, SRT_SUP_DO_MARK_READY);
		srt_sup_probe_list(p, probes, sizeof(probes));
		if (p->external)
			event(out, false, "Ready", "external %s at %s answers (%s)", p->name,
			      p->endpoint, probes);
		else if (p->endpoint)
			event(out, false, "Ready", "ready after %.1f s: %s (endpoint %s)",
			      (double)(now - s->start_at) / 1000.0, probes, p->endpoint);
		else
			event(out, false, "Ready", "ready after %.1f s: %s",
			      (double)(now - s->start_at) / 1000.0, probes);
		s->ever_ready = true;
		if (s->rolling && s->start_at >= c->rollout_at)
			s->rolling = false;
		if (was_starting && s->notify_followers) {
			s->notify_followers = false;
			add(out, SRT_SUP_DO_NOTIFY_FOLLOWERS);
		}
		return;
	}
	if (!s->ready) {
		if (p->external) {
			if (!s->warned_at || now - s->warned_at >= SRT_AGENT_WARN_EVERY_MS) {
				s->warned_at = now;
				s->shown = s->ever_ready ? SRT_PS_UNHEALTHY : SRT_PS_STARTING;
				event(out, true, "MasterUnreachable",
				      "external %s at %s does not answer (%s); workers not started "
				      "yet are held back until it does",
				      p->name, p->endpoint, s->last_probe);
			}
			s->probe_at = now + interval;
			return;
		}
		if (now >= s->deadline_at) {
			readiness_timeout(s, c, now, out);
			return;
		}
		s->probe_at = now + (interval < SRT_SUP_START_PROBE_MS ? interval :
									 SRT_SUP_START_PROBE_MS);
		return;
	}
	/* Liveness: it was ready. */
	s->probe_fails++;
	s->probe_at = now + interval;
	if (s->probe_fails < c->live_fails)
		return;
	s->ready = false;
	s->shown = SRT_PS_UNHEALTHY;
	s->warned_at = now;
	if (p->external) {
		s->st = SRT_SUP_STARTING;
		event(out, true, "MasterUnreachable",
		      "external %s at %s stopped answering (%d probes in a row failed, last: "
		      "%s); workers not started yet are held back until it answers",
		      p->name, p->endpoint, s->probe_fails, s->last_probe);
		return;
	}
	event(out, true, "Unhealthy",
	      "%d liveness probes in a row failed (last: %s); restarting it", s->probe_fails,
	      s->last_probe);
	kill_for_restart(s, c, now, SRT_SUP_RESTART, "liveness probes failed", out);
}

static void on_time(struct srt_sup_proc *s, const struct srt_sup_ctx *c, int64_t now,
		    struct srt_sup_actions *out)
{
	if (!srt_sup_running(s) || s->kill_at == SRT_SUP_NEVER || now < s->kill_at)
		return;
	event(out, true, "Killed", "did not stop within %.1f s of SIGTERM (%s); sent SIGKILL",
	      (double)c->grace_ms / 1000.0,
	      s->st == SRT_SUP_RETIRING	  ? "it is being removed" :
	      s->st == SRT_SUP_GIVEN_UP	  ? "it was given up" :
	      s->st == SRT_SUP_RESTARTING ? s->why :
					    "it is being stopped");
	signal_it(out, SIGKILL);
	s->kill_at = SRT_SUP_NEVER;
}

static void on_replace(struct srt_sup_proc *s, const struct srt_sup_ctx *c,
		       const struct srt_sup_obs *ob, int64_t now, struct srt_sup_actions *out)
{
	const struct srt_runplan_proc *p = s->spec;

	s->rolling = true;
	snprintf(s->why, sizeof(s->why), "%s", ob->why ? ob->why : "");
	if (p->external) {
		s->ready = false;
		s->st = SRT_SUP_STARTING;
		s->shown = SRT_PS_STARTING;
		s->probe_at = now;
		s->warned_at = 0;
	} else if (srt_sup_running(s) && s->st != SRT_SUP_GIVEN_UP) {
		if (!ob->defer) /* else restarted as a follower, with its new spec */
			kill_for_restart(s, c, now, SRT_SUP_ROLLOUT, s->why, out);
	} else if (s->launched && !srt_sup_running(s) && p->kind != SRT_PROC_BENCHMARK) {
		/* Backing off, given up or exited: a new spec deserves a new start. */
		s->budget = 0;
		s->st = SRT_SUP_BACKOFF;
		s->shown = SRT_PS_CRASHLOOP;
		s->how = SRT_SUP_ROLLOUT;
		s->restart_at = now;
	}
}

void srt_sup_step(struct srt_sup_proc *s, const struct srt_sup_ctx *c, const struct srt_sup_obs *ob,
		  int64_t now, struct srt_sup_actions *out)
{
	out->n = 0;
	switch (ob->kind) {
	case SRT_SUP_ON_GATE_OPEN:
		if (s->st == SRT_SUP_PENDING && !s->spec->external) {
			launch(s, SRT_SUP_FIRST, NULL, out);
		} else if (s->st == SRT_SUP_BACKOFF && now >= s->restart_at) {
			if (s->how != SRT_SUP_ROLLOUT)
				s->restarts++;
			launch(s, s->how, s->why, out);
		}
		break;
	case SRT_SUP_ON_SPAWNED:
		on_spawned(s, c, ob, now, out);
		break;
	case SRT_SUP_ON_EXIT:
		on_exited(s, c, ob, now, out);
		break;
	case SRT_SUP_ON_PROBED:
		on_probed(s, c, ob, now, out);
		break;
	case SRT_SUP_ON_TIME:
		on_time(s, c, now, out);
		break;
	case SRT_SUP_ON_FOLLOW:
		if (s->st != SRT_SUP_STARTING && s->st != SRT_SUP_RUNNING && s->st != SRT_SUP_READY)
			break;
		if (!srt_sup_running(s))
			break;
		if (s->spec->type && !strcmp(s->spec->type, "ray"))
			event(out, false, "Restarting",
			      "restarting because %s restarted: a new Ray head is a new cluster (a "
			      "new GCS), so %s must join it again",
			      s->spec->follows, s->spec->name);
		else
			event(out, false, "Restarting",
			      "restarting because %s restarted: the master keeps its object index "
			      "and HTTP metadata in RAM only, so %s must register with the new "
			      "instance",
			      s->spec->follows, s->spec->name);
		kill_for_restart(s, c, now, SRT_SUP_FOLLOW, "its master restarted", out);
		break;
	case SRT_SUP_ON_GENERATION:
		/* Still part of the previous rollout only while its relaunch is pending. */
		s->rolling = s->rolling &&
			     (s->st == SRT_SUP_RESTARTING ||
			      (s->st == SRT_SUP_BACKOFF && s->how == SRT_SUP_ROLLOUT));
		s->failed_rollout = false;
		/* Its spec may have changed: the new readiness applies to it as it runs. */
		if (s->st == SRT_SUP_STARTING || s->st == SRT_SUP_RUNNING ||
		    s->st == SRT_SUP_READY) {
			if (!s->spec->nprobes)
				s->probe_at = SRT_SUP_NEVER;
			else if (s->probe_at == SRT_SUP_NEVER)
				s->probe_at = now;
		}
		break;
	case SRT_SUP_ON_REPLACE:
		on_replace(s, c, ob, now, out);
		break;
	case SRT_SUP_ON_LEADER_REPLACED:
		s->rolling = true;
		break;
	case SRT_SUP_ON_RETIRE:
		if (!srt_sup_running(s))
			break;
		s->st = SRT_SUP_RETIRING;
		s->probe_at = SRT_SUP_NEVER;
		if (s->kill_at == SRT_SUP_NEVER) {
			signal_it(out, SIGTERM);
			s->kill_at = now + c->grace_ms;
		}
		break;
	case SRT_SUP_ON_STOP:
		s->probe_at = SRT_SUP_NEVER;
		s->kill_at = SRT_SUP_NEVER;
		if (s->st == SRT_SUP_BACKOFF) {
			s->st = SRT_SUP_STOPPED;
			s->shown = SRT_PS_STOPPED;
		} else if (srt_sup_running(s) && s->st != SRT_SUP_GIVEN_UP) {
			s->st = SRT_SUP_STOPPING;
		}
		break;
	case SRT_SUP_ON_STOP_TERM:
		if (srt_sup_running(s))
			signal_it(out, SIGTERM);
		break;
	case SRT_SUP_ON_STOP_KILL:
		if (!srt_sup_running(s))
			break;
		if (ob->hurry_sig)
			event(out, true, "Killed",
			      "a second signal (%s) asked for an immediate stop; sent SIGKILL "
			      "without waiting out the %.1f s grace after SIGTERM",
			      strsignal(ob->hurry_sig), (double)c->grace_ms / 1000.0);
		else
			event(out, true, "Killed",
			      "did not stop within %.1f s of SIGTERM; sent SIGKILL",
			      (double)c->grace_ms / 1000.0);
		signal_it(out, SIGKILL);
		break;
	case SRT_SUP_ON_ABANDON:
		if (!srt_sup_running(s))
			break;
		event(out, true, "Abandoned",
		      "did not exit after SIGKILL; leaving it to SLURM's job cleanup");
		s->st = SRT_SUP_STOPPED;
		s->shown = SRT_PS_STOPPED;
		break;
	}
}

/* ---- the ordered stop ---- */

static void stop_add(struct srt_sup_stop_acts *out, enum srt_sup_stop_act_kind kind, int tier,
		     int hurry)
{
	if (out->n >= sizeof(out->a) / sizeof(out->a[0]))
		abort();
	out->a[out->n++] = (struct srt_sup_stop_act){ kind, tier, hurry };
}

/* The first tier from s->tier on with something running gets SIGTERM; none left: stopped. */
static void enter_tier(struct srt_sup_stop *s, const size_t running[SRT_RUNPLAN_TIERS], int64_t now,
		       int grace_ms, struct srt_sup_stop_acts *out)
{
	for (; s->tier < SRT_RUNPLAN_TIERS; s->tier++) {
		if (!running[s->tier])
			continue;
		stop_add(out, SRT_SUP_TIER_TERM, s->tier, 0);
		s->stage = 0;
		s->until = now + grace_ms;
		s->hurry_sig = 0; /* a second signal hurried an earlier stage only */
		return;
	}
	stop_add(out, SRT_SUP_RUN_STOPPED, s->tier, 0);
	s->done = true;
}

void srt_sup_stop_begin(struct srt_sup_stop *s, const size_t running[SRT_RUNPLAN_TIERS],
			int64_t now, int grace_ms, struct srt_sup_stop_acts *out)
{
	memset(s, 0, sizeof(*s));
	out->n = 0;
	enter_tier(s, running, now, grace_ms, out);
}

void srt_sup_stop_step(struct srt_sup_stop *s, const size_t running[SRT_RUNPLAN_TIERS], int64_t now,
		       int grace_ms, struct srt_sup_stop_acts *out)
{
	out->n = 0;
	if (s->done)
		return;
	if (!running[s->tier]) {
		s->tier++;
		enter_tier(s, running, now, grace_ms, out);
		return;
	}
	if (now < s->until)
		return;
	if (s->stage == 0) {
		stop_add(out, SRT_SUP_TIER_KILL, s->tier, s->hurry_sig);
		s->stage = 1;
		s->until = now + SRT_SUP_ABANDON_MS;
	} else {
		stop_add(out, SRT_SUP_TIER_ABANDON, s->tier, 0);
		s->tier++;
		enter_tier(s, running, now, grace_ms, out);
	}
}

bool srt_sup_stop_hurry(struct srt_sup_stop *s, int sig)
{
	if (s->done || s->hurry_sig)
		return false;
	s->hurry_sig = sig;
	s->until = 0;
	return true;
}
