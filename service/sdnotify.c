/*
 * service/sdnotify.c: sd_notify(3) for the controller (service/sdnotify.h).
 *
 * libsystemd does the protocol (a datagram to $NOTIFY_SOCKET, '@' for an
 * abstract socket).  The environment is left as it is (unset_environment =
 * 0): the controller notifies for its whole life, and the run directories'
 * commands are not started from this process.
 */
#include "service/sdnotify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/dl.h"

#define SRT_LIBSYSTEMD "libsystemd.so.0"

int srt_sdnotify_open(struct srt_sdnotify *sd, char *errbuf, size_t n)
{
	static const struct srt_dl_sym syms[] = {
		{ "sd_notify", offsetof(struct srt_sdnotify, notify) },
		{ "sd_watchdog_enabled", offsetof(struct srt_sdnotify, watchdog_enabled) },
	};
	const char *sock = getenv("NOTIFY_SOCKET");

	memset(sd, 0, sizeof(*sd));
	if (!sock || !*sock)
		return 0; /* not under a Type=notify unit: nothing to tell */
	sd->handle = srt_dl_load(SRT_LIBSYSTEMD, syms, sizeof(syms) / sizeof(syms[0]), sd,
				 "to report to systemd ($NOTIFY_SOCKET is set)",
				 "Debian: apt-get install libsystemd0", errbuf, n);
	if (!sd->handle) {
		memset(sd, 0, sizeof(*sd));
		return -1;
	}
	return 0;
}

void srt_sdnotify_close(struct srt_sdnotify *sd)
{
	srt_dl_unload(sd->handle);
	memset(sd, 0, sizeof(*sd));
}

/* Send "STATE\nSTATUS=status"; a status with a newline is cut there (one field each). */
static void notify(const struct srt_sdnotify *sd, const char *state, const char *status)
{
	char msg[1024];
	int n;

	if (!sd->notify)
		return;
	if (status)
		n = snprintf(msg, sizeof(msg), "%s%sSTATUS=%.*s", state ? state : "",
			     state ? "\n" : "", (int)strcspn(status, "\n"), status);
	else
		n = snprintf(msg, sizeof(msg), "%s", state);
	if (n < 0)
		return;
	(void)sd->notify(0, msg); /* < 0: cannot send; 0: not under systemd */
}

void srt_sdnotify_ready(const struct srt_sdnotify *sd, const char *status)
{
	notify(sd, "READY=1", status);
}

void srt_sdnotify_status(const struct srt_sdnotify *sd, const char *status)
{
	notify(sd, NULL, status);
}

void srt_sdnotify_watchdog(const struct srt_sdnotify *sd)
{
	notify(sd, "WATCHDOG=1", NULL);
}

void srt_sdnotify_stopping(const struct srt_sdnotify *sd, const char *status)
{
	notify(sd, "STOPPING=1", status);
}

int64_t srt_sdnotify_watchdog_ms(const struct srt_sdnotify *sd)
{
	uint64_t usec = 0;
	int64_t ms;

	if (!sd->watchdog_enabled || sd->watchdog_enabled(0, &usec) <= 0 || usec == 0)
		return 0;
	ms = (int64_t)(usec / 2000);
	return ms > 0 ? ms : 1;
}
