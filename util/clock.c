/* util/clock.c: the system clock, durations and timestamps. */
#include "util/clock.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static int64_t system_now(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const struct srt_clock system_clock = { system_now, NULL };

const struct srt_clock *srt_clock_system(void)
{
	return &system_clock;
}

int64_t srt_monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int srt_duration_parse(const char *s, int64_t *ms)
{
	int64_t total = 0;
	int parts = 0;
	bool too_long = false;

	if (!s || !*s)
		return -1;
	while (*s) {
		int64_t n = 0, unit;
		int digits = 0;

		/* Keep scanning the syntax after a too-long value: "99999999999999x"
		 * is malformed, not too long. */
		while (*s >= '0' && *s <= '9') {
			if (n > SRT_DURATION_MAX_MS)
				too_long = true;
			else
				n = n * 10 + (*s - '0');
			s++;
			digits++;
		}
		if (!digits)
			return -1;
		if (!strncmp(s, "ms", 2)) {
			unit = 1;
			s += 2;
		} else if (*s == 's') {
			unit = 1000;
			s++;
		} else if (*s == 'm') {
			unit = 60000;
			s++;
		} else if (*s == 'h') {
			unit = 3600000;
			s++;
		} else if (*s == 'd') {
			unit = 86400000;
			s++;
		} else if (!*s && !parts) {
			unit = 1000;
		} else {
			return -1;
		}
		/* n <= 10 * MAX + 9 and unit <= 86400000: both fit in int64_t, and
		 * the division keeps the product and the sum from overflowing. */
		if (too_long || n > (SRT_DURATION_MAX_MS - total) / unit)
			too_long = true;
		else
			total += n * unit;
		parts++;
	}
	if (too_long)
		return SRT_DURATION_TOO_LONG;
	*ms = total;
	return 0;
}

void srt_duration_human(int64_t ms, char *buf, size_t n)
{
	int64_t s = ms / 1000;

	if (s < 0)
		s = 0;
	if (s < 120)
		snprintf(buf, n, "%llds", (long long)s);
	else if (s < 3600 * 2)
		snprintf(buf, n, "%lldm", (long long)(s / 60));
	else if (s < 86400 * 2)
		snprintf(buf, n, "%lldh", (long long)(s / 3600));
	else
		snprintf(buf, n, "%lldd", (long long)(s / 86400));
}

void srt_time_rfc3339(int64_t ms, char *buf, size_t n)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}
