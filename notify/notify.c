/*
 * notify/notify.c: the notifier (see notify/notify.h).  Owns at most one
 * child process, the running notify command, and the row it delivers.
 */
#define _GNU_SOURCE
#include "notify/notify.h"
#include "util/buf.h"
#include "util/fdio.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* One notify command and its policy. */
struct sink {
	char **argv; /* NULL-terminated, owned; NULL: no command */
	int64_t timeout_ms, backoff_ms;
	int max_attempts;
};

struct srt_notifier {
	struct sink cluster; /* srtslurm.yaml's notify: (argv NULL when none) */
	FILE *log;
	/* The running command: pid 0 when none; `cur` is its sink's policy (argv unused). */
	pid_t pid;
	struct sink cur;
	int64_t started_at, row_id, attempts;
	char *event_id;
};

static void sink_policy(struct sink *k, int64_t timeout_ms, int64_t backoff_ms, int max_attempts)
{
	k->timeout_ms = timeout_ms > 0 ? timeout_ms : SRT_NOTIFY_TIMEOUT_MS;
	k->backoff_ms = backoff_ms > 0 ? backoff_ms : SRT_NOTIFY_BACKOFF_MS;
	k->max_attempts = max_attempts > 0 ? max_attempts : SRT_NOTIFY_MAX_ATTEMPTS;
}

static void sink_release(struct sink *k)
{
	for (size_t i = 0; k->argv && k->argv[i]; i++)
		free(k->argv[i]);
	free(k->argv);
	k->argv = NULL;
}

char *srt_notify_command_json(const char *const *argv, size_t argc, int64_t timeout_ms,
			      int64_t backoff_ms, int max_attempts)
{
	json_t *o = json_object(), *a = json_array();
	char *text;

	for (size_t i = 0; i < argc; i++)
		json_array_append_new(a, json_string(argv[i]));
	json_object_set_new(o, "command", a);
	json_object_set_new(o, "timeout_ms", json_integer(timeout_ms));
	json_object_set_new(o, "backoff_ms", json_integer(backoff_ms));
	json_object_set_new(o, "max_attempts", json_integer(max_attempts));
	text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	if (!text)
		abort(); /* jansson's only failure here is out of memory */
	return text;
}

/* Read a campaign's command (srt_notify_command_json's text): 0, or -1 with `why` set. */
static int sink_from_json(struct sink *k, const char *text, char *why, size_t whylen)
{
	json_t *o = text ? json_loads(text, 0, NULL) : NULL;
	json_t *a = json_object_get(o, "command");
	size_t n = json_array_size(a);
	int rc = -1;

	memset(k, 0, sizeof(*k));
	if (!text)
		snprintf(why, whylen, "the campaign has no notify command any more");
	else if (!n || n > 4096)
		snprintf(why, whylen, "the campaign's notify command is unreadable (re-apply it)");
	else {
		k->argv = srt_xcalloc(n + 1, sizeof(*k->argv));
		for (size_t i = 0; i < n; i++) {
			const char *w = json_string_value(json_array_get(a, i));

			k->argv[i] = srt_xstrdup(w ? w : "");
		}
		sink_policy(k, json_integer_value(json_object_get(o, "timeout_ms")),
			    json_integer_value(json_object_get(o, "backoff_ms")),
			    (int)json_integer_value(json_object_get(o, "max_attempts")));
		if (!*k->argv[0]) {
			snprintf(why, whylen, "the campaign's notify command names no program");
			sink_release(k);
		} else
			rc = 0;
	}
	json_decref(o);
	return rc;
}

int64_t srt_notify_backoff_ms(int64_t backoff_ms, int64_t attempts)
{
	int64_t wait = backoff_ms;

	for (int64_t i = 1; i < attempts && wait < SRT_NOTIFY_BACKOFF_MAX_MS; i++)
		wait *= 2;
	return wait > SRT_NOTIFY_BACKOFF_MAX_MS ? SRT_NOTIFY_BACKOFF_MAX_MS : wait;
}

int srt_notifier_new(struct srt_notifier **out, const struct srt_notify_config *cfg,
		     struct srt_error *err)
{
	struct srt_notifier *n;

	*out = NULL;
	if (cfg->argc && (!cfg->argv || !cfg->argv[0] || !*cfg->argv[0]))
		return srt_error_set(err, "notify.command is empty: give the program to run");
	n = srt_xcalloc(1, sizeof(*n));
	if (cfg->argc) {
		n->cluster.argv = srt_xcalloc(cfg->argc + 1, sizeof(*n->cluster.argv));
		for (size_t i = 0; i < cfg->argc; i++)
			n->cluster.argv[i] = srt_xstrdup(cfg->argv[i]);
	}
	sink_policy(&n->cluster, cfg->timeout_ms, cfg->backoff_ms, cfg->max_attempts);
	n->log = cfg->log;
	*out = n;
	return 0;
}

static void logf_(const struct srt_notifier *n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void logf_(const struct srt_notifier *n, const char *fmt, ...)
{
	va_list ap;

	if (!n->log)
		return;
	fputs("srtctl controller: notify: ", n->log);
	va_start(ap, fmt);
	vfprintf(n->log, fmt, ap);
	va_end(ap);
	fputc('\n', n->log);
	fflush(n->log);
}

/* Record a failed attempt of the running row: Pending again after a back-off, or Abandoned. */
static int record_failure(struct srt_notifier *n, struct srt_store *s, int64_t now, const char *why,
			  struct srt_error *err)
{
	bool last = n->attempts >= n->cur.max_attempts;
	int64_t wait = srt_notify_backoff_ms(n->cur.backoff_ms, n->attempts);

	if (last)
		logf_(n, "%s: attempt %lld of %d failed: %s; abandoned", n->event_id,
		      (long long)n->attempts, n->cur.max_attempts, why);
	else
		logf_(n, "%s: attempt %lld of %d failed: %s; retried in %lld ms", n->event_id,
		      (long long)n->attempts, n->cur.max_attempts, why, (long long)wait);
	return srt_store_notification_update(s, n->row_id, last ? "Abandoned" : "Pending", false,
					     last ? -1 : now + wait, why, err);
}

static void clear_running(struct srt_notifier *n)
{
	n->pid = 0;
	free(n->event_id);
	n->event_id = NULL;
}

/* Settle the running command: 1 still running, 0 settled (or none), -1 database error. */
static int settle(struct srt_notifier *n, struct srt_store *s, int64_t now,
		  struct srt_notify_step *out, struct srt_error *err)
{
	char why[128];
	int status, rc;
	pid_t r;

	if (!n->pid)
		return 0;
	r = waitpid(n->pid, &status, WNOHANG);
	if (r == 0 && now - n->started_at < n->cur.timeout_ms)
		return 1;
	if (r == 0) { /* past its timeout: kill its process group by its PID */
		kill(-n->pid, SIGKILL);
		kill(n->pid, SIGKILL);
		while (waitpid(n->pid, &status, 0) < 0 && errno == EINTR)
			;
		snprintf(why, sizeof(why), "still running after %lld ms; killed",
			 (long long)n->cur.timeout_ms);
		out->failed++;
		rc = record_failure(n, s, now, why, err);
	} else if (r > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		logf_(n, "%s: delivered (attempt %lld)", n->event_id, (long long)n->attempts);
		out->delivered++;
		rc = srt_store_notification_update(s, n->row_id, "Delivered", false, -1, NULL, err);
	} else {
		if (r < 0)
			snprintf(why, sizeof(why), "cannot wait for it: %s", strerror(errno));
		else if (WIFEXITED(status))
			snprintf(why, sizeof(why), "exited %d", WEXITSTATUS(status));
		else
			snprintf(why, sizeof(why), "killed by signal %d", WTERMSIG(status));
		out->failed++;
		rc = record_failure(n, s, now, why, err);
	}
	clear_running(n);
	return rc;
}

/* environ without SRTCTL_EVENT_*, plus ours (the strings are borrowed or in `own`). */
static char **child_env(const struct srt_notification_row *row, char *own[2])
{
	size_t count = 0, k = 0;
	char **env;

	while (environ[count])
		count++;
	env = srt_xcalloc(count + 3, sizeof(*env));
	for (size_t i = 0; i < count; i++)
		if (strncmp(environ[i], "SRTCTL_EVENT_", 13) != 0)
			env[k++] = environ[i];
	own[0] = srt_xasprintf("SRTCTL_EVENT_ID=%s", row->event_id);
	own[1] = srt_xasprintf("SRTCTL_EVENT_REASON=%s", row->reason);
	env[k++] = own[0];
	env[k++] = own[1];
	return env;
}

/* Start the command for `row` with its payload on stdin: 0 started, -1 with `why` set. */
static int spawn(struct srt_notifier *n, char *const *argv, const struct srt_notification_row *row,
		 char *why, size_t whylen)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t def, none;
	char *own[2] = { NULL, NULL };
	char **env = NULL;
	size_t len = strlen(row->payload);
	int fd, rc;

	/* stdin is a memory file holding the event: no pipe, so no SIGPIPE and no blocking. */
	fd = memfd_create("srtctl-notify", MFD_CLOEXEC);
	if (fd < 0 || srt_write_all(fd, row->payload, len) != 0 ||
	    srt_write_all(fd, "\n", 1) != 0 || lseek(fd, 0, SEEK_SET) != 0) {
		snprintf(why, whylen, "cannot hold the event for its stdin: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, 0);
	posix_spawn_file_actions_adddup2(&fa, 2, 1); /* its output goes to our log */
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGPIPE);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
					      POSIX_SPAWN_SETSIGDEF);
	env = child_env(row, own);
	rc = posix_spawnp(&n->pid, argv[0], &fa, &at, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	free(env);
	free(own[0]);
	free(own[1]);
	close(fd);
	if (rc != 0) {
		n->pid = 0;
		snprintf(why, whylen, "cannot run '%s': %s (check notify.command)", argv[0],
			 strerror(rc));
		return -1;
	}
	return 0;
}

int srt_notifier_step(struct srt_notifier *n, struct srt_store *s, int64_t now,
		      struct srt_notify_step *out, struct srt_error *err)
{
	struct srt_notification_row row;
	struct sink campaign = { 0 };
	const struct sink *k = &n->cluster;
	char why[256];
	int rc;

	memset(out, 0, sizeof(*out));
	rc = settle(n, s, now, out, err);
	if (rc != 0)
		return rc > 0 ? 0 : -1;
	rc = srt_store_notification_next_due(s, now, n->cluster.argv != NULL, &row, err);
	if (rc <= 0)
		return rc;
	n->row_id = row.id;
	n->event_id = row.campaign ? srt_xasprintf("%s (campaign %s)", row.event_id, row.campaign) :
				     srt_xstrdup(row.event_id);
	if (row.campaign_id) {
		k = &campaign;
		if (sink_from_json(&campaign, row.campaign_notify, why, sizeof(why)) != 0) {
			logf_(n, "%s: abandoned: %s", n->event_id, why);
			out->failed++;
			rc = srt_store_notification_update(s, row.id, "Abandoned", false, -1, why,
							   err);
			clear_running(n);
			srt_notification_row_release(&row);
			return rc;
		}
	}
	n->cur = (struct sink){ NULL, k->timeout_ms, k->backoff_ms, k->max_attempts };
	/* Intent first: the attempt is counted and the row pushed past this attempt's end. */
	if (srt_store_notification_update(
		    s, row.id, "Pending", true,
		    now + k->timeout_ms + srt_notify_backoff_ms(k->backoff_ms, row.attempts + 1),
		    NULL, err) != 0) {
		clear_running(n);
		sink_release(&campaign);
		srt_notification_row_release(&row);
		return -1;
	}
	n->attempts = row.attempts + 1;
	n->started_at = now;
	if (spawn(n, k->argv, &row, why, sizeof(why)) != 0) {
		out->failed++;
		rc = record_failure(n, s, now, why, err);
		clear_running(n);
	} else {
		out->started++;
		rc = 0;
	}
	sink_release(&campaign);
	srt_notification_row_release(&row);
	return rc;
}

void srt_notifier_free(struct srt_notifier *n)
{
	if (!n)
		return;
	if (n->pid > 0) {
		kill(-n->pid, SIGKILL);
		kill(n->pid, SIGKILL);
		while (waitpid(n->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	free(n->event_id);
	sink_release(&n->cluster);
	free(n);
}
