/*
 * store/lock.c: the controller lock, one controller per database.
 *
 * The lock is flock(LOCK_EX) on "<db path>.lock" (mode 0600), held for the
 * controller's lifetime and released by the kernel when the process dies,
 * so a crash never leaves a stale lock.  The holder writes "pid host" into
 * the file so a second controller can say who holds it, and after each pass
 * a second line "last-pass UNIX_MS" for `srtctl doctor`.  This file is the
 * lock file's only writer and reader.
 *
 * srt_store_lock_is_held() probes with LOCK_SH|LOCK_NB and releases at once.
 * For that instant a controller starting up would see the lock as taken, so
 * srt_store_lock_acquire() retries for about a second before it gives up: a
 * probe (from `srtctl apply`) can never make a controller fail to start.
 * The probe's answer is, as always with such checks, only true when asked.
 */
#include "store/store.h"
#include "util/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOCK_ATTEMPTS 50
#define LOCK_RETRY_MS 20

static void holder(int fd, char *buf, size_t n)
{
	ssize_t got = pread(fd, buf, n - 1, 0);

	if (got <= 0) {
		snprintf(buf, n, "unknown");
		return;
	}
	buf[got] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/*
 * Write "PID HOST\n" and, when last_pass_ms > 0, "last-pass MS\n" over the
 * file: one pwrite, then the file cut to its length (the content only ever
 * grows while held, so a reader never sees it empty).  0 or -1 (errno).
 */
static int write_content(int fd, int64_t last_pass_ms)
{
	char host[256], text[400];
	int n;

	if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	if (last_pass_ms > 0)
		n = snprintf(text, sizeof(text), "%ld %s\nlast-pass %lld\n", (long)getpid(), host,
			     (long long)last_pass_ms);
	else
		n = snprintf(text, sizeof(text), "%ld %s\n", (long)getpid(), host);
	if (n < 0 || (size_t)n >= sizeof(text))
		return -1;
	if (pwrite(fd, text, (size_t)n, 0) != n || ftruncate(fd, n) != 0)
		return -1;
	return 0;
}

int srt_store_lock_acquire(const char *db_path, struct srt_error *err)
{
	char *path = srt_xasprintf("%s.lock", db_path);
	char who[512];
	int fd, attempt = 0;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		srt_error_set(err,
			      "cannot open the controller lock %s: %s; check that the directory "
			      "of database %s is writable",
			      path, strerror(errno), db_path);
		goto fail;
	}
	if (fchmod(fd, 0600) != 0) {
		srt_error_set(err, "cannot set mode 0600 on %s: %s", path, strerror(errno));
		goto fail;
	}
	while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		struct timespec ts = { 0, LOCK_RETRY_MS * 1000000L };

		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK) {
			srt_error_set(err, "cannot lock %s: %s", path, strerror(errno));
			goto fail;
		}
		if (++attempt >= LOCK_ATTEMPTS) {
			holder(fd, who, sizeof(who));
			srt_error_set(err,
				      "another controller already manages database %s (pid and "
				      "host: %s); stop it first, or give this one another --db",
				      db_path, who);
			goto fail;
		}
		nanosleep(&ts, NULL);
	}
	if (ftruncate(fd, 0) != 0 || write_content(fd, 0) != 0) {
		srt_error_set(err, "cannot write the controller lock %s: %s", path,
			      strerror(errno));
		goto fail;
	}
	free(path);
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	free(path);
	return -1;
}

void srt_store_lock_release(int fd)
{
	if (fd < 0)
		return;
	/* Still holding the lock: nobody reads a stale "pid host" afterwards. */
	if (ftruncate(fd, 0) != 0) {
		/* Harmless: the content only matters while the lock is held. */
	}
	close(fd);
}

bool srt_store_lock_is_held(const char *db_path)
{
	char *path = srt_xasprintf("%s.lock", db_path);
	bool held = false;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	free(path);
	if (fd < 0)
		return false; /* no lock file: no controller ever ran here */
	if (flock(fd, LOCK_SH | LOCK_NB) != 0)
		held = errno == EWOULDBLOCK;
	else
		flock(fd, LOCK_UN);
	close(fd);
	return held;
}

void srt_store_lock_note_pass(int fd, int64_t unix_ms)
{
	if (fd >= 0)
		(void)write_content(fd, unix_ms); /* best effort: it only informs doctor */
}

void srt_store_lock_info(const char *db_path, struct srt_lock_info *out)
{
	char *path = srt_xasprintf("%s.lock", db_path);
	char text[512], *line2;
	ssize_t got;
	int fd;

	memset(out, 0, sizeof(*out));
	out->held = srt_store_lock_is_held(db_path);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	free(path);
	if (fd < 0)
		return;
	got = pread(fd, text, sizeof(text) - 1, 0);
	close(fd);
	if (got < 0)
		return;
	out->readable = true;
	text[got] = '\0';
	line2 = strchr(text, '\n');
	if (line2)
		*line2++ = '\0';
	snprintf(out->holder, sizeof(out->holder), "%.*s", (int)sizeof(out->holder) - 1, text);
	for (char *c = out->holder; *c; c++) /* shown on a terminal: printable only */
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
	if (line2 && !strncmp(line2, "last-pass ", 10)) {
		char *end;
		long long ms = strtoll(line2 + 10, &end, 10);

		if (end != line2 + 10 && *end == '\n' && ms > 0)
			out->last_pass = ms;
	}
}
