/*
 * tests/fuzz/fuzz_rundir.c: libFuzzer target for the run-directory files the
 * controller reads (runplan/rundir.h).  The job's user writes them, so every
 * byte is hostile.
 *
 * An input is split at its first NUL byte: the bytes before it become
 * status.json, the bytes after it events.jsonl (without a NUL, both files
 * get the whole input).  Then, as the controller does each pass:
 *
 *   - srt_rundir_read_status(); a status that reads is written back with
 *     srt_rundir_write_status() and must read again with the same seq,
 *     phase and counts (the agent's writer and the controller's reader
 *     agree on every value the reader accepted);
 *   - srt_rundir_read_events_from() with a line bound taken from the input,
 *     each event put through the controller's ingest check
 *     (srt_store_event_check()); read again from a cursor in the middle, it
 *     must deliver exactly the events after that seq (seq order and the
 *     cursor are what make ingestion exactly-once);
 *   - srt_rundir_events_open(), the agent's reopen: it cuts a torn last
 *     line, and the file must then end in '\n' (or be empty).
 *
 * Crashes, sanitizer reports, leaks and a broken property (abort()) are the
 * failures.  The files live in one temporary directory for the process
 * (on /dev/shm when it is writable), removed at exit.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runplan/rundir.h"
#include "store/store.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SEEN 4096

static char dir[64];

struct seen {
	int64_t seq[MAX_SEEN];
	size_t n;
	size_t checked;
};

static void put_file(const char *name, const uint8_t *p, size_t n)
{
	char *path = srt_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");

	if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0)
		abort();
	free(path);
}

static int collect(void *ctx, const struct srt_rundir_event *ev)
{
	struct seen *s = ctx;
	struct srt_error err;
	char *name;

	/* As controller.c's ingest_one(): the object's name under the run, then the bounds. */
	name = srt_xasprintf("run-1-1/%s", ev->object_name ? ev->object_name : "?");
	srt_error_clear(&err);
	if (srt_store_event_check(ev->time, ev->reason, ev->object_kind, name, &err) == 0)
		s->checked++;
	free(name);
	if (s->n && ev->seq <= s->seq[s->n - 1])
		abort(); /* delivered out of seq order */
	if (s->n < MAX_SEEN)
		s->seq[s->n++] = ev->seq;
	return 0;
}

static void check_status(void)
{
	struct srt_rundir_status st, back;
	struct srt_error err;

	if (srt_rundir_read_status(dir, &st, &err) != 0)
		return;
	if (srt_rundir_write_status(dir, &st, &err) != 0)
		abort();
	if (srt_rundir_read_status(dir, &back, &err) != 0)
		abort(); /* what the reader accepted, written again, must read */
	if (back.seq != st.seq || back.phase != st.phase || back.nprocs != st.nprocs ||
	    back.nnodes != st.nnodes || back.nconditions != st.nconditions ||
	    back.plan_generation != st.plan_generation)
		abort();
	srt_rundir_status_release(&back);
	srt_rundir_status_release(&st);
}

static void check_events(size_t max_line)
{
	struct srt_rundir_events_read r = { .after_seq = 0, .max_line = max_line };
	struct srt_rundir_events w;
	struct seen *all = calloc(1, sizeof(*all)), *tail = calloc(1, sizeof(*tail));
	struct srt_error err;
	struct stat sb;
	char *path = srt_xasprintf("%s/%s", dir, SRT_RUNDIR_EVENTS);

	if (!all || !tail)
		abort();
	if (srt_rundir_read_events_from(dir, &r, collect, all, &err) != 0)
		abort(); /* a regular file of a few KiB always reads */
	if (all->n && all->n < MAX_SEEN) {
		/* From a cursor in the middle: exactly the events after it. */
		size_t mid = all->n / 2;
		struct srt_rundir_events_read r2 = { .after_seq = all->seq[mid],
						     .max_line = max_line };

		if (srt_rundir_read_events_from(dir, &r2, collect, tail, &err) != 0)
			abort();
		if (tail->n != all->n - mid - 1 ||
		    memcmp(tail->seq, all->seq + mid + 1, tail->n * sizeof(int64_t)) != 0 ||
		    r2.last_seq != all->seq[all->n - 1])
			abort();
	}
	/* The agent's reopen: a torn last line is cut off. */
	if (srt_rundir_events_open(&w, dir, &err) == 0) {
		FILE *f = fopen(path, "rb");

		if (!f || fstat(fileno(f), &sb) != 0)
			abort();
		if (sb.st_size > 0) {
			if (fseek(f, -1, SEEK_END) != 0 || fgetc(f) != '\n')
				abort();
		}
		fclose(f);
		srt_rundir_events_close(&w);
	}
	free(path);
	free(all);
	free(tail);
}

static void remove_dir(void)
{
	static const char *const names[] = { SRT_RUNDIR_STATUS, SRT_RUNDIR_EVENTS };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *path = srt_xasprintf("%s/%s", dir, names[i]);

		(void)unlink(path);
		free(path);
	}
	(void)rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = size ? memchr(data, '\0', size) : NULL;
	size_t nstatus = nul ? (size_t)(nul - data) : size;
	const uint8_t *events = nul ? nul + 1 : data;
	size_t nevents = nul ? size - nstatus - 1 : size;

	if (!dir[0]) {
		/* tmpfs when there is one: the writers fsync every file. */
		snprintf(dir, sizeof(dir), "%s/fuzz-rundir-XXXXXX",
			 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
		if (!mkdtemp(dir))
			abort();
		atexit(remove_dir);
	}
	put_file(SRT_RUNDIR_STATUS, data, nstatus);
	put_file(SRT_RUNDIR_EVENTS, events, nevents);
	check_status();
	/* A line bound from the input: small ones exercise the too-long path. */
	check_events(size ? 16 + data[size - 1] * 4u : 0);
	return 0;
}
