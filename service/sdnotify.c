/*
 * service/sdnotify.c: sd_notify(3) for the controller (service/sdnotify.h).
 *
 * libsystemd does the protocol (a datagram to $NOTIFY_SOCKET, '@' for an
 * abstract socket) and is a no-op without $NOTIFY_SOCKET.  The environment
 * is left as it is (unset_environment = 0): the controller notifies for
 * its whole life, and the run directories' commands are not started from
 * this process.
 */
#include "service/sdnotify.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-daemon.h>

/* Send "STATE\nSTATUS=status"; a status with a newline is cut there (one field each). */
static void notify(const char *state, const char *status)
{
	char msg[1024];
	int n;

	if (status)
		n = snprintf(msg, sizeof(msg), "%s%sSTATUS=%.*s", state ? state : "",
			     state ? "\n" : "", (int)strcspn(status, "\n"), status);
	else
		n = snprintf(msg, sizeof(msg), "%s", state);
	if (n < 0)
		return;
	(void)sd_notify(0, msg); /* < 0: cannot send; 0: not under systemd */
}

void srt_sdnotify_ready(const char *status)
{
	notify("READY=1", status);
}

void srt_sdnotify_status(const char *status)
{
	notify(NULL, status);
}

void srt_sdnotify_watchdog(void)
{
	notify("WATCHDOG=1", NULL);
}

void srt_sdnotify_stopping(const char *status)
{
	notify("STOPPING=1", status);
}

int64_t srt_sdnotify_watchdog_ms(void)
{
	uint64_t usec = 0;
	int64_t ms;

	if (sd_watchdog_enabled(0, &usec) <= 0 || usec == 0)
		return 0;
	ms = (int64_t)(usec / 2000);
	return ms > 0 ? ms : 1;
}
