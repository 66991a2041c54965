/*
 * tests/unit/peak_rss.h: resident memory of the test process, for the unit
 * tests that bound what reading a large input costs (test_slurm_parse.c,
 * test_rundir.c).  Linux only; meaningless under AddressSanitizer, whose
 * redzones and quarantine change what memory costs, so callers skip there.
 */
#ifndef SRT_TESTS_UNIT_PEAK_RSS_H
#define SRT_TESTS_UNIT_PEAK_RSS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Resident memory in kB: VmRSS, or VmHWM (its peak since the last reset); -1 if unknown. */
static inline long vm_kb(const char *field)
{
	char line[256];
	long kb = -1;
	size_t n = strlen(field);
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			kb = atol(line + n + 1);
	fclose(f);
	return kb;
}

/* Reset the peak (VmHWM) to the current RSS ("5" to clear_refs, Linux 4.0+); false if unsupported. */
static inline bool peak_reset(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");

	if (!f)
		return false;
	if (fputs("5", f) < 0) {
		fclose(f);
		return false;
	}
	return fclose(f) == 0 && vm_kb("VmHWM") >= 0;
}

#endif
