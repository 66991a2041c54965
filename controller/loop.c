/*
 * controller/loop.c: the reconcile loop around srt_controller_pass().
 *
 * Owns the only global of the controller, the stop flag SIGTERM and SIGINT
 * set; passes run every interval, longer while SLURM does not answer.  The
 * wait between passes is cut into slices of at most tick_ms, with on_tick
 * after each (a watchdog is pinged while a long interval runs).
 */
#include "controller/controller.h"
#include "util/clock.h"

#include <signal.h>
#include <time.h>

#define BACKOFF_MAX_MS 60000

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

void srt_controller_request_stop(void)
{
	stop_requested = 1;
}

int64_t srt_controller_backoff_ms(int64_t interval_ms, int slurm_failures)
{
	int64_t wait = interval_ms;

	for (int i = 0; i < slurm_failures && wait < BACKOFF_MAX_MS; i++)
		wait *= 2;
	if (wait > BACKOFF_MAX_MS && interval_ms < BACKOFF_MAX_MS)
		wait = BACKOFF_MAX_MS;
	return wait;
}

/* Sleep `ms`, waking every 200 ms to notice a stop request and to call the idle hook. */
static void sleep_ms(const struct srt_controller_loop *loop, int64_t ms)
{
	int64_t until = srt_monotonic_ms() + ms;

	while (!stop_requested) {
		int64_t left = until - srt_monotonic_ms();
		struct timespec ts;

		if (left <= 0)
			return;
		if (left > 200)
			left = 200;
		ts.tv_sec = left / 1000;
		ts.tv_nsec = (left % 1000) * 1000000;
		nanosleep(&ts, NULL);
		if (loop->idle && !stop_requested)
			loop->idle(loop->arg);
	}
}

/*
 * Wait `ms` in slices of at most loop->tick_ms, calling on_tick after each;
 * each slice is the caller's sleep, or ours (with the idle hook).
 */
static void wait_between(const struct srt_controller_loop *loop, int64_t ms)
{
	while (ms > 0 && !stop_requested) {
		int64_t slice = loop->tick_ms > 0 && loop->tick_ms < ms ? loop->tick_ms : ms;

		if (loop->sleep_ms)
			loop->sleep_ms(loop->arg, slice);
		else
			sleep_ms(loop, slice);
		ms -= slice;
		if (loop->on_tick && !stop_requested)
			loop->on_tick(loop->arg);
	}
}

int srt_controller_run(struct srt_controller *c, const struct srt_controller_loop *loop,
		       struct srt_error *err)
{
	struct sigaction sa, old_term, old_int;
	int rc = 0;

	stop_requested = 0;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGINT, &sa, &old_int);
	if (loop->on_start)
		loop->on_start(loop->arg);
	for (;;) {
		struct srt_pass_stats st;
		int prc = srt_controller_pass(c, &st, err);

		int64_t next = loop->once ?
				       0 :
				       srt_controller_backoff_ms(loop->interval_ms,
								 srt_controller_slurm_failures(c));

		if (loop->on_pass)
			loop->on_pass(loop->arg, prc, &st, err);
		if (loop->after_pass)
			loop->after_pass(loop->arg, prc, &st, next);
		if (loop->once) {
			rc = prc;
			break;
		}
		if (stop_requested)
			break;
		wait_between(loop, next);
		if (stop_requested)
			break;
	}
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGINT, &old_int, NULL);
	return rc;
}
