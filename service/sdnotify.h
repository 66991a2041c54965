/*
 * service/sdnotify.h: telling systemd how the controller is doing.
 *
 * A thin layer over sd_notify(3) from libsystemd, so that the rest of
 * srtctl names the states it reports and not the protocol.  Under a
 * Type=notify unit systemd passes $NOTIFY_SOCKET (and $WATCHDOG_USEC with
 * $WATCHDOG_PID when the unit sets WatchdogSec=); without them, as when
 * `srtctl controller` runs in a terminal, every call here does nothing.
 * Sending never blocks and never fails the caller: a notification that
 * cannot be sent is dropped (systemd then restarts or times the unit out,
 * which is the only meaningful reaction).
 */
#ifndef SRT_SERVICE_SDNOTIFY_H
#define SRT_SERVICE_SDNOTIFY_H

#include <stdint.h>

/* READY=1 with STATUS=`status`: the service is up (the controller: its first pass ran). */
void srt_sdnotify_ready(const char *status);

/* STATUS=`status`: one line shown by `systemctl status` (the last pass's summary). */
void srt_sdnotify_status(const char *status);

/* WATCHDOG=1: the service is alive; send at least every srt_sdnotify_watchdog_ms(). */
void srt_sdnotify_watchdog(void);

/* STOPPING=1 with STATUS=`status`: the service is shutting down. */
void srt_sdnotify_stopping(const char *status);

/*
 * How often to send WATCHDOG=1: half of $WATCHDOG_USEC, in milliseconds
 * (at least 1), when systemd's watchdog is on for this process; 0 when it
 * is off (no $WATCHDOG_USEC, or $WATCHDOG_PID names another process).
 */
int64_t srt_sdnotify_watchdog_ms(void);

#endif
