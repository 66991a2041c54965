/*
 * agent/supervise.h: the per-process supervision state machine (pure).
 *
 * The agent decides what happens to each process with one function,
 * srt_sup_step(): the process's state, one observation (it exited, a probe
 * round ended, time passed, its launch gate is open, its master restarted,
 * a new generation replaces or removes it, the run stops) and `now` go in;
 * the new state and a short list of actions (launch, signal, emit an event,
 * fail the run or the rollout, restart the followers) come out.  No I/O, no
 * clock reads, no globals: agent/agent.c feeds it observations and carries
 * the actions out in order (spawning, signals, probe sockets, the reports).
 * The run-level ordered stop is a second small machine of the same kind
 * (srt_sup_stop_*()).  docs/agent.md ("The supervision state machine")
 * has the table of states and transitions.
 *
 * Times are monotonic milliseconds; SRT_SUP_NEVER is "no deadline".
 */
#ifndef SRT_AGENT_SUPERVISE_H
#define SRT_AGENT_SUPERVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"

#define SRT_SUP_NEVER INT64_MAX
#define SRT_SUP_START_PROBE_MS 250 /* probe cadence while a process starts */
#define SRT_SUP_ABANDON_MS 5000	   /* after SIGKILL at the end of the run: left to SLURM */

/*
 * The machine's states.  Each names what it waits for; `shown` in struct
 * srt_sup_proc is what status.json calls it (docs/agent.md).
 */
enum srt_sup_state {
	SRT_SUP_PENDING,    /* not launched: waits for its launch gate */
	SRT_SUP_LAUNCHING,  /* the launch action is out: waits for the spawn's outcome */
	SRT_SUP_STARTING,   /* running, readiness not passed: waits for a probe round
			       (ok: READY; failed past the deadline: timeout) or its exit;
			       also an external master that does not answer */
	SRT_SUP_RUNNING,    /* running without readiness probes: waits for its exit (and
			       liveness rounds once a new generation gives it probes) */
	SRT_SUP_READY,	    /* probes passed: waits for liveness rounds or its exit */
	SRT_SUP_RESTARTING, /* SIGTERM sent to start it again (`how`, `why`): waits for its
			       exit, or kill_at (SIGKILL) */
	SRT_SUP_BACKOFF,    /* exited, to be started again: waits for restart_at and its
			       launch gate (CrashLoopBackOff) */
	SRT_SUP_GIVEN_UP,   /* SIGTERM sent after its first start was not ready in time:
			       waits for its exit (FAILED), or kill_at */
	SRT_SUP_RETIRING,   /* the new generation lacks it, SIGTERM sent: waits for its exit
			       (REMOVED), or kill_at */
	SRT_SUP_STOPPING,   /* the run stops: waits for its exit (its tier's SIGTERM and
			       SIGKILL come from the stop machine) */
	SRT_SUP_FAILED,	    /* gave up or not restarted; a new generation may start it again */
	SRT_SUP_EXITED,	    /* exited 0, not restarted; idem */
	SRT_SUP_STOPPED,    /* stopped with the run: final */
	SRT_SUP_REMOVED,    /* removed by a new generation and exited: forgotten */
};

/* What kind of start the next launch is (LAUNCHING, RESTARTING, BACKOFF). */
enum srt_sup_start {
	SRT_SUP_FIRST,	 /* the first start: "Started" */
	SRT_SUP_RESTART, /* under the restart policy (counted): "Restarted" */
	SRT_SUP_FOLLOW,	 /* its master restarted (not counted): "Restarted" */
	SRT_SUP_ROLLOUT, /* a new generation (budget reset): "RolledOut" / "RolledBack" */
};

struct srt_sup_proc {
	const struct srt_runplan_proc *spec; /* set by the caller; a rollout swaps it */
	enum srt_sup_state st;
	enum srt_proc_state shown; /* status.json's state */
	enum srt_sup_start how;	   /* the next launch (LAUNCHING, RESTARTING, BACKOFF) */
	char why[256];		   /* why the next launch / the kill for a restart */
	int restarts;		   /* shown in status.json */
	int budget;		   /* restarts counted against max_restarts */
	int exit_code;		   /* the last exit, -1 while running or never */
	/* Facts, not states: */
	bool launched;	       /* launched at least once (the external master: never) */
	bool ready;	       /* passed readiness since its last start (no probes: launched) */
	bool ever_ready;       /* passed readiness at least once */
	bool notify_followers; /* this start is a restart: restart the followers once ready */
	bool rolling;	       /* part of the rollout in progress, not up yet */
	bool failed_rollout;   /* its failure failed the rollout: the rollback starts it again */
	int probe_fails;       /* liveness rounds in a row that failed */
	int64_t start_at;      /* the last start (spawned) */
	int64_t probe_at;      /* the next probe round is due (NEVER: no probing) */
	int64_t deadline_at;   /* readiness timeout of this start (NEVER: none / fired) */
	int64_t restart_at;    /* BACKOFF: the end of the back-off */
	int64_t kill_at;       /* SIGTERM sent: SIGKILL at this time */
	int64_t warned_at;     /* the external master's last "unreachable" warning (0: none) */
	bool probe_ok[4];      /* this start: the probe passed at least once */
	char probe_last[4][200];
	char last_probe[256];
};

/* A process in PENDING (external: STARTING, probed at once) for spec. */
void srt_sup_init(struct srt_sup_proc *s, const struct srt_runplan_proc *spec);

/* What the run around the process says (read only). */
struct srt_sup_ctx {
	int64_t generation; /* the running plan's */
	int64_t failed_gen; /* the generation that failed (RolledBack messages) */
	int64_t rollout_at; /* when the rollout in progress started */
	bool judging;	    /* a rollout is in progress and judged (not a rollback, not stopping) */
	bool rolling_back;  /* the rollout in progress goes back to the last good generation */
	int grace_ms;	    /* SIGTERM, then SIGKILL after this */
	int live_fails;	    /* failed liveness rounds in a row that make it Unhealthy */
};

enum srt_sup_obs_kind {
	SRT_SUP_ON_GATE_OPEN,  /* its launch gate is open (PENDING, BACKOFF) */
	SRT_SUP_ON_SPAWNED,    /* the launch's outcome: pid > 0, or err */
	SRT_SUP_ON_EXIT,       /* it exited: wait status code (srt_agent_exit_code()) */
	SRT_SUP_ON_PROBED,     /* a probe round ended: ok[k], detail[k] */
	SRT_SUP_ON_TIME,       /* time passed (kill escalation) */
	SRT_SUP_ON_FOLLOW,     /* the master it follows is ready after a restart */
	SRT_SUP_ON_GENERATION, /* a new generation is rolled out and still has it */
	SRT_SUP_ON_REPLACE,    /* ... with another spec (why; defer: its master is replaced too) */
	SRT_SUP_ON_LEADER_REPLACED, /* ... unchanged, but the process it follows is replaced */
	SRT_SUP_ON_RETIRE,	    /* ... without it */
	SRT_SUP_ON_STOP,	    /* the run stops */
	SRT_SUP_ON_STOP_TERM,	    /* the stop reached its tier: SIGTERM */
	SRT_SUP_ON_STOP_KILL, /* its tier's grace is over (hurry_sig: cut short by a signal) */
	SRT_SUP_ON_ABANDON,   /* it did not exit after SIGKILL either */
};

struct srt_sup_obs {
	enum srt_sup_obs_kind kind;
	int code;	 /* EXITED: exit status */
	long pid;	 /* SPAWNED: > 0 when spawned */
	const char *err; /* SPAWNED: why not */
	bool ok[4];	 /* PROBED */
	const char *detail[4];
	const char *why; /* REPLACE */
	bool defer;	 /* REPLACE: restarted as a follower once its master is ready */
	int hurry_sig;	 /* STOP_KILL */
};

enum srt_sup_act_kind {
	SRT_SUP_DO_LAUNCH,	     /* spawn it (how, why); feed SPAWNED back */
	SRT_SUP_DO_SIGNAL,	     /* send sig to its process group */
	SRT_SUP_DO_EVENT,	     /* an event about the process */
	SRT_SUP_DO_MARK_READY,	     /* it became ready now: record the time */
	SRT_SUP_DO_FAIL_RUN,	     /* the run fails with text */
	SRT_SUP_DO_FAIL_ROLLOUT,     /* the rollout fails: text says how the process failed */
	SRT_SUP_DO_END_RUN,	     /* the benchmark finished with status code */
	SRT_SUP_DO_NOTIFY_FOLLOWERS, /* feed FOLLOW to the processes that follow it */
};

struct srt_sup_action {
	enum srt_sup_act_kind kind;
	bool warning;		/* EVENT */
	const char *reason;	/* EVENT: a static string */
	char *text;		/* EVENT, FAIL_RUN, FAIL_ROLLOUT (malloc'd); LAUNCH: why or NULL */
	long held_at;		/* >= 0: insert the report of held probe ports at this offset */
	bool tail;		/* append the log tail ("\nlast lines of ...") */
	int sig;		/* SIGNAL */
	int code;		/* END_RUN */
	enum srt_sup_start how; /* LAUNCH */
};

#define SRT_SUP_MAX_ACTIONS 6

struct srt_sup_actions {
	struct srt_sup_action a[SRT_SUP_MAX_ACTIONS];
	size_t n;
};

/*
 * Feed observation ob to process s at `now`: s becomes its new state and
 * out (overwritten) the actions to carry out, in order.  Release out with
 * srt_sup_actions_release().  An observation the state does not wait for
 * changes nothing and yields no action.
 */
void srt_sup_step(struct srt_sup_proc *s, const struct srt_sup_ctx *c, const struct srt_sup_obs *ob,
		  int64_t now, struct srt_sup_actions *out);

void srt_sup_actions_release(struct srt_sup_actions *out);

/* Is a process running (a pid the agent must reap)? */
bool srt_sup_running(const struct srt_sup_proc *s);

/* Does s keep launch group g's gate closed (a process in group g starts only once none does)? */
bool srt_sup_holds_gate(const struct srt_sup_proc *s, int g);

/* For RunReady: 1 up, 0 not up yet, -1 left out (the benchmark; a non-critical one given up). */
int srt_sup_up(const struct srt_sup_proc *s);

/* A non-critical process given up (the run is Degraded while one is). */
bool srt_sup_given_up(const struct srt_sup_proc *s);

/* May a new generation restart s?  Not a running benchmark: the next run gets the new spec. */
bool srt_sup_replaceable(const struct srt_sup_proc *s);

/* Is the rollout in progress waiting for s (a retired one to exit, a rolled one to be up)? */
bool srt_sup_rollout_waits(const struct srt_sup_proc *s);

/* "tcp 8700, tcp 8701, http 8702 /health": the process's readiness probes. */
void srt_sup_probe_list(const struct srt_runplan_proc *p, char *buf, size_t n);

/* ---- the ordered stop of the run ---- */

/*
 * Tiers stop in order (0 first): SIGTERM to every running process of the
 * tier, SIGKILL after the grace (or at once after a second signal), and
 * SRT_SUP_ABANDON_MS after that the rest is abandoned; tiers with nothing
 * running are skipped.  After the last tier: STOPPED.
 */
struct srt_sup_stop {
	int tier;      /* the tier being stopped; SRT_RUNPLAN_TIERS when done */
	int stage;     /* 0: SIGTERM sent; 1: SIGKILL sent */
	int64_t until; /* the stage ends */
	int hurry_sig; /* a second signal cut this stage short */
	bool done;
};

enum srt_sup_stop_act_kind {
	SRT_SUP_TIER_TERM,    /* SIGTERM every running process of tier */
	SRT_SUP_TIER_KILL,    /* SIGKILL them (hurry_sig: cut short) */
	SRT_SUP_TIER_ABANDON, /* leave them to SLURM */
	SRT_SUP_RUN_STOPPED,  /* every process of the run has stopped */
};

struct srt_sup_stop_act {
	enum srt_sup_stop_act_kind kind;
	int tier, hurry_sig;
};

struct srt_sup_stop_acts {
	struct srt_sup_stop_act a[SRT_RUNPLAN_TIERS * 2 + 2];
	size_t n;
};

/*
 * Begin the stop (running[t]: how many processes of tier t run) and advance
 * it at `now`.  Both overwrite out.
 */
void srt_sup_stop_begin(struct srt_sup_stop *s, const size_t running[SRT_RUNPLAN_TIERS],
			int64_t now, int grace_ms, struct srt_sup_stop_acts *out);
void srt_sup_stop_step(struct srt_sup_stop *s, const size_t running[SRT_RUNPLAN_TIERS], int64_t now,
		       int grace_ms, struct srt_sup_stop_acts *out);

/* A second signal: true when it cuts the current stage short (not done, not hurried yet). */
bool srt_sup_stop_hurry(struct srt_sup_stop *s, int sig);

#endif
