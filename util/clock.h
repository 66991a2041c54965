/*
 * util/clock.h: an injectable clock, so time-dependent logic is testable.
 *
 * Times are Unix milliseconds.  srt_clock_system() is the real clock; tests
 * build a struct srt_clock whose now_ms returns what they choose.
 */
#ifndef SRT_UTIL_CLOCK_H
#define SRT_UTIL_CLOCK_H

#include <stdint.h>
#include <stddef.h>

struct srt_clock {
	int64_t (*now_ms)(void *ctx);
	void *ctx;
};

/* The system clock (CLOCK_REALTIME). */
const struct srt_clock *srt_clock_system(void);

static inline int64_t srt_clock_now(const struct srt_clock *c)
{
	return c->now_ms(c->ctx);
}

/* Monotonic milliseconds, for measuring durations. */
int64_t srt_monotonic_ms(void);

/* The longest duration srt_duration_parse() accepts: 100 years of 365 days
 * (36500d), far beyond any timeout or retention and far below INT64_MAX ms,
 * so a parsed duration can be added to or subtracted from a time safely. */
#define SRT_DURATION_MAX_MS ((int64_t)36500 * 86400000)
#define SRT_DURATION_MAX_TEXT "36500d (100 years)"

/*
 * Parse a duration such as "90s", "15m", "1h", "2d", "1h30m" or "500ms" into
 * milliseconds.  A bare number means seconds.  Returns 0; -1 when `s` is not a
 * duration; SRT_DURATION_TOO_LONG when it is longer than SRT_DURATION_MAX_MS
 * (checked arithmetic: nothing wraps).  *ms is set only on success.
 */
#define SRT_DURATION_TOO_LONG (-2)
int srt_duration_parse(const char *s, int64_t *ms);

/* "3m12s"-style age for tables ("5s", "3m", "2h", "4d"; like kubectl). */
void srt_duration_human(int64_t ms, char *buf, size_t n);

/* RFC 3339 UTC with milliseconds: 2026-11-30T18:52:58.123Z.  buf >= 32 bytes. */
void srt_time_rfc3339(int64_t ms, char *buf, size_t n);

#endif
