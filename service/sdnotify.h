/*
 * service/sdnotify.h: telling systemd how the controller is doing.
 *
 * A thin layer over sd_notify(3) from libsystemd, so that the rest of
 * srtctl names the states it reports and not the protocol.  Under a
 * Type=notify unit systemd passes $NOTIFY_SOCKET (and $WATCHDOG_USEC with
 * $WATCHDOG_PID when the unit sets WatchdogSec=); without them, as when
 * `srtctl controller` runs in a terminal, libsystemd is not even loaded and
 * every call here does nothing.  libsystemd is loaded at run time
 * (util/dl.h), so no other verb pays for it.  Sending never blocks and never
 * fails the caller: a notification that cannot be sent is dropped (systemd
 * then restarts or times the unit out, which is the only meaningful
 * reaction).
 */
#ifndef SRT_SERVICE_SDNOTIFY_H
#define SRT_SERVICE_SDNOTIFY_H

#include <stddef.h>
#include <stdint.h>

/* The loaded library: zeroed = not under systemd (every call a no-op). */
struct srt_sdnotify {
	void *handle;
	int (*notify)(int unset_environment, const char *state);
	int (*watchdog_enabled)(int unset_environment, uint64_t *usec);
};

/*
 * Load libsystemd when $NOTIFY_SOCKET is set.  Returns 0 (loaded, or not
 * needed), or -1 with errbuf saying why it could not be loaded: the caller
 * warns and goes on with *sd zeroed (systemd will then time the unit out,
 * and the message says why).
 */
int srt_sdnotify_open(struct srt_sdnotify *sd, char *errbuf, size_t n);
void srt_sdnotify_close(struct srt_sdnotify *sd);

/* READY=1 with STATUS=`status`: the service is up (the controller: its first pass ran). */
void srt_sdnotify_ready(const struct srt_sdnotify *sd, const char *status);
/* STATUS=`status`: one line shown by `systemctl status` (the last pass's summary). */
void srt_sdnotify_status(const struct srt_sdnotify *sd, const char *status);
/* WATCHDOG=1: the service is alive; send at least every srt_sdnotify_watchdog_ms(). */
void srt_sdnotify_watchdog(const struct srt_sdnotify *sd);
/* STOPPING=1 with STATUS=`status`: the service is shutting down. */
void srt_sdnotify_stopping(const struct srt_sdnotify *sd, const char *status);

/*
 * How often to send WATCHDOG=1: half of $WATCHDOG_USEC, in milliseconds
 * (at least 1), when systemd's watchdog is on for this process; 0 when it
 * is off (no $WATCHDOG_USEC, $WATCHDOG_PID names another process, or not
 * under systemd).
 */
int64_t srt_sdnotify_watchdog_ms(const struct srt_sdnotify *sd);

#endif
