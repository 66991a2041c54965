/*
 * notify/notify.h: delivering notifications to their notify commands.
 *
 * The rows come from the store (store.h, "notifications": inserted by
 * triggers in the transaction of the change they report).  Each row has a
 * sink: the cluster's command (srtslurm.yaml notify:, given here) or a
 * campaign's own (the campaign's notify:, which the store keeps as
 * srt_notify_command_json() wrote it at apply).  The notifier runs the
 * sink's command once per notification with the JSON event on stdin and
 * SRTCTL_EVENT_ID / SRTCTL_EVENT_REASON in its environment; exit status 0
 * means delivered.  Anything else (a non-zero exit, a signal, no such
 * program, running past the timeout) is a failed attempt, retried after a
 * back-off (backoff_ms doubled per attempt, at most SRT_NOTIFY_BACKOFF_MAX_MS)
 * until max_attempts, then the row is Abandoned.  Delivery is at least
 * once: the attempt is recorded before the command starts, so a controller
 * that dies mid-attempt retries after a restart; the command uses the event
 * id to drop a repeat.  A campaign's row whose campaign has no notify
 * command any more (re-applied without one) is Abandoned, saying so.
 *
 * Never blocking: srt_notifier_step() is called by the controller loop after
 * each pass and returns at once.  One command runs at a time, in its own
 * process group, started with posix_spawn; a step reaps it when it has
 * exited or kills its group (SIGKILL, by its PID) once it ran past the
 * timeout.  So a hanging notifier costs at most its timeout plus one
 * interval per notification, and never delays a pass.
 */
#ifndef SRT_NOTIFY_NOTIFY_H
#define SRT_NOTIFY_NOTIFY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "store/store.h"
#include "util/err.h"

#define SRT_NOTIFY_BACKOFF_MAX_MS (10 * 60 * 1000)

/* Defaults of a notify: block that leaves them out. */
#define SRT_NOTIFY_TIMEOUT_MS 30000
#define SRT_NOTIFY_BACKOFF_MS 5000
#define SRT_NOTIFY_MAX_ATTEMPTS 10

struct srt_notify_config {
	const char *const *argv; /* the cluster's command (borrowed); argc 0: none */
	size_t argc;
	int64_t timeout_ms, backoff_ms;
	int max_attempts;
	FILE *log; /* one line per attempt's outcome; NULL for none */
};

struct srt_notifier;

/*
 * Make a notifier (nothing runs yet).  With argc 0 there is no cluster
 * command: its rows wait (Pending) and only campaigns' commands run.  -1
 * when the command names no program.  Free with srt_notifier_free().
 */
int srt_notifier_new(struct srt_notifier **out, const struct srt_notify_config *cfg,
		     struct srt_error *err);

/* What one step did. */
struct srt_notify_step {
	unsigned delivered, failed, started;
};

/*
 * One step at `now` (Unix ms, the store's clock): settle the running command
 * (exited: record the outcome; past its timeout: kill it and record a
 * failure), then start the next due notification when none runs.  -1 with
 * err set when the database failed (the step is retried next time).
 */
int srt_notifier_step(struct srt_notifier *n, struct srt_store *s, int64_t now,
		      struct srt_notify_step *out, struct srt_error *err);

/*
 * A campaign's notify command as the store keeps it (campaigns.notify):
 * {"command": [argv...], "timeout_ms": N, "backoff_ms": N, "max_attempts":
 * N}, zero or negative values meaning the defaults above.  The one writer of
 * that JSON (the notifier is its one reader).  Returns malloc'd text.
 */
char *srt_notify_command_json(const char *const *argv, size_t argc, int64_t timeout_ms,
			      int64_t backoff_ms, int max_attempts);

/* The wait before attempt `attempts` + 1 (pure). */
int64_t srt_notify_backoff_ms(int64_t backoff_ms, int64_t attempts);

/*
 * Kill a running command's process group and reap it (its attempt is
 * already counted; the row is retried after the back-off), then free
 * (NULL: no-op).
 */
void srt_notifier_free(struct srt_notifier *n);

#endif
