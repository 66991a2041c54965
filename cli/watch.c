/*
 * cli/watch.c: waiting for the state database to change (`--watch`).
 *
 * A watcher sleeps in ppoll() on an inotify descriptor for the database's
 * directory and wakes when the database file or its -wal/-journal file is
 * written; then srt_store_change_counter() says whether a transaction was
 * committed.  SQLite updates the WAL index (in the -shm file, which inotify
 * cannot see for mmap writes) just after the WAL write, so a wake-up that
 * finds no new commit checks again a few times 50 ms apart.  Without
 * inotify (or on a shared filesystem where it says nothing) the counter is
 * checked every two seconds.  SIGINT and SIGTERM are blocked except inside
 * ppoll(), so a signal always ends the wait promptly and never interrupts
 * a query.
 */
#define _GNU_SOURCE /* ppoll() */
#include "cli/cli.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#define WATCH_IDLE_MS 2000
#define WATCH_RECHECK_MS 50
#define WATCH_RECHECKS 6

static volatile sig_atomic_t watch_stop;

static void on_signal(int sig)
{
	(void)sig;
	watch_stop = 1;
}

int srt_watch_init(struct srt_watch *w, const char *verb, const char *path, const char *timeout,
		   struct srt_store *s)
{
	struct sigaction sa;
	sigset_t block;
	const char *slash;
	char *dir;
	const char *from = "--timeout";
	int64_t ms = 0;
	int prc = 0;

	memset(w, 0, sizeof(*w));
	w->ifd = -1;
	if (!timeout) {
		timeout = getenv("SRTCTL_WATCH_TIMEOUT");
		from = "$SRTCTL_WATCH_TIMEOUT";
		if (timeout && !*timeout)
			timeout = NULL;
	}
	if (timeout)
		prc = srt_duration_parse(timeout, &ms);
	if (prc == SRT_DURATION_TOO_LONG) {
		srt_cli_usage_error(verb,
				    "%s '%s' is longer than the longest duration srtctl accepts, "
				    SRT_DURATION_MAX_TEXT,
				    from, timeout);
		return -1;
	}
	if (timeout && (prc != 0 || ms <= 0)) {
		srt_cli_usage_error(verb,
				    "invalid watch timeout %s '%s' (expected a duration such as "
				    "30s or 5m)",
				    from, timeout);
		return -1;
	}
	if (ms)
		w->deadline = srt_monotonic_ms() + ms;

	watch_stop = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, NULL);

	slash = strrchr(path, '/');
	dir = slash ? srt_xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) :
		      srt_xstrdup(".");
	w->base = srt_xstrdup(slash ? slash + 1 : path);
	w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->ifd >= 0 && inotify_add_watch(w->ifd, dir,
					     IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO |
						     IN_DELETE) < 0) {
		close(w->ifd);
		w->ifd = -1;
	}
	free(dir);
	w->counter = srt_store_change_counter(s);
	return 0;
}

/* Read every pending inotify event; true when one is about the database. */
static bool drain(struct srt_watch *w)
{
	_Alignas(struct inotify_event) char buf[8192];
	size_t blen = strlen(w->base);
	bool hit = false;
	ssize_t n;

	while ((n = read(w->ifd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			if (ev->len && !strncmp(ev->name, w->base, blen) &&
			    (!ev->name[blen] || !strcmp(ev->name + blen, "-wal") ||
			     !strcmp(ev->name + blen, "-journal")))
				hit = true;
			p += sizeof(*ev) + ev->len;
		}
	}
	return hit;
}

bool srt_watch_wait(struct srt_watch *w, struct srt_store *s)
{
	sigset_t during;
	int rechecks = 0;

	sigprocmask(SIG_SETMASK, NULL, &during);
	sigdelset(&during, SIGINT);
	sigdelset(&during, SIGTERM);
	for (;;) {
		struct pollfd pfd = { .fd = w->ifd, .events = POLLIN };
		struct timespec ts;
		int64_t now, c, wait_ms;
		int r;

		if (watch_stop)
			return false;
		now = srt_monotonic_ms();
		if (w->deadline && now >= w->deadline)
			return false;
		c = srt_store_change_counter(s);
		if (c != w->counter) {
			w->counter = c;
			return true;
		}
		wait_ms = rechecks ? WATCH_RECHECK_MS : WATCH_IDLE_MS;
		if (w->deadline && w->deadline - now < wait_ms)
			wait_ms = w->deadline - now;
		ts.tv_sec = wait_ms / 1000;
		ts.tv_nsec = (wait_ms % 1000) * 1000000;
		r = ppoll(&pfd, w->ifd >= 0 ? 1 : 0, &ts, &during);
		if (r > 0 && drain(w))
			rechecks = WATCH_RECHECKS;
		else if (r == 0 && rechecks)
			rechecks--;
	}
}

void srt_watch_release(struct srt_watch *w)
{
	sigset_t block;

	if (w->ifd >= 0)
		close(w->ifd);
	free(w->base);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	memset(w, 0, sizeof(*w));
	w->ifd = -1;
}
