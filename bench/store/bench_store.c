/*
 * bench/store/bench_store.c: time the state store on a real SQLite file.
 *
 *   bench_store [DIR] [EVENTS]
 *
 * Works in DIR (default: a new directory under /tmp, removed at the end) and
 * prints figures only; nothing here asserts a time.
 *
 *   insert      events with srt_store_event_insert_raw in transactions of 1,000
 *               and of 10,000 rows, in time order, with bursty objects (about 50
 *               active at a time, as a cluster produces them) and with uniformly
 *               random objects (the worst case): events/s.  Also srt_store_event
 *               (the deduplicating path the controller uses).
 *   events      on a database of EVENTS (default 1,000,000) events (10,000
 *               objects over 30 days; run/bench-x has 200 events in the last
 *               hour), the work of
 *               `srtctl events --for run/bench-x --since 1h -o json`: open the
 *               database, srt_store_event_list(kind, name, since), encode the
 *               rows as JSON with jansson.  Median and worst of 30.
 *   services    10,000 service rows (100 runs x 100 services); the work of
 *               `srtctl get services`: open, srt_store_service_list.  Median and
 *               worst of 30.
 */
#include "store/store.h"
#include "util/buf.h"
#include "util/clock.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RUNS 30

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void report(const char *what, double *t, int n)
{
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	printf("%-58s median %7.2f ms   worst %7.2f ms\n", what, t[n / 2], t[n - 1]);
}

static int die(const struct srt_error *err)
{
	fprintf(stderr, "bench_store: %s\n", err->msg);
	return 1;
}

static void remove_db(const char *path)
{
	char *p;

	unlink(path);
	p = srt_xasprintf("%s-wal", path);
	unlink(p);
	free(p);
	p = srt_xasprintf("%s-shm", path);
	unlink(p);
	free(p);
}

/*
 * Insert `n` events in transactions of `batch`, spread over the 30 days
 * before `now` in time order (as events arrive).  `uniform`: each event names
 * one of 10,000 objects at random (the worst case for the events_object
 * index: every row lands on a different page).  Otherwise bursty, as a
 * cluster produces them: about 50 objects are active at any time, and new
 * ones replace old ones as time goes on (10,000 over the whole span).
 */
static int fill_events(struct srt_store *s, long n, long batch, bool uniform, int64_t now,
		       double *rate, struct srt_error *err)
{
	static const char *const kinds[] = { "run", "service", "worker", "recipe" };
	static const char *const reasons[] = { "Started", "ProbeFailed", "BackOff", "Ready",
					       "EnvStamped" };
	char name[64], msg[160];
	double t0 = now_ms();
	uint64_t x = 88172645463325252ull;
	const int64_t span = 30LL * 24 * 3600 * 1000;

	for (long i = 0; i < n;) {
		if (srt_store_begin(s, err) != 0)
			return -1;
		for (long j = 0; j < batch && i < n; j++, i++) {
			struct srt_event_row ev = { 0 };
			int64_t at;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			at = now - 3600000 - span + span * i / n;
			if (uniform)
				snprintf(name, sizeof(name), "bench-%llu",
					 (unsigned long long)(x >> 20) % 10000);
			else
				snprintf(name, sizeof(name), "bench-%llu",
					 (unsigned long long)(i * 10000 / n + (x >> 20) % 50) %
						 10000);
			snprintf(msg, sizeof(msg),
				 "Back-off restarting failed process decode_%ld on node node-%02ld "
				 "(exit code 137, restart %ld)",
				 i % 8, i % 32, i);
			ev.type = i % 7 ? "Normal" : "Warning";
			ev.reason = (char *)reasons[i % 5];
			ev.kind = (char *)kinds[(x >> 8) % 4];
			ev.name = name;
			ev.message = msg;
			ev.source = "controller";
			ev.count = 1;
			ev.first_at = at;
			ev.last_at = at;
			if (srt_store_event_insert_raw(s, &ev, err) != 0) {
				srt_store_rollback(s);
				return -1;
			}
		}
		if (srt_store_commit(s, err) != 0)
			return -1;
	}
	*rate = (double)n / ((now_ms() - t0) / 1e3);
	return 0;
}

static int bench_insert(const char *dir, long events, struct srt_error *err)
{
	char *path = srt_xasprintf("%s/insert.db", dir);
	struct srt_store *s = NULL;
	int64_t now;
	double rate;
	int rc = -1;

	remove_db(path);
	if (srt_store_open(&s, path, SRT_STORE_CREATE, NULL, err) != 0)
		goto out;
	now = srt_store_now(s);
	if (fill_events(s, 200000, 1000, false, now, &rate, err) != 0)
		goto out;
	printf("%-58s %10.0f events/s\n", "insert_raw, 200,000 bursty events, 1,000 per tx", rate);
	if (fill_events(s, 200000, 10000, false, now, &rate, err) != 0)
		goto out;
	printf("%-58s %10.0f events/s\n", "insert_raw, 200,000 more bursty, 10,000 per tx", rate);
	if (fill_events(s, 200000, 1000, true, now, &rate, err) != 0)
		goto out;
	printf("%-58s %10.0f events/s\n", "insert_raw, 200,000 uniform (worst case), 1,000 per tx",
	       rate);
	if (fill_events(s, 200000, 10000, true, now, &rate, err) != 0)
		goto out;
	printf("%-58s %10.0f events/s\n", "insert_raw, 200,000 uniform (worst case), 10,000 per tx",
	       rate);
	{
		double t0 = now_ms();

		if (srt_store_begin(s, err) != 0)
			goto out;
		for (int i = 0; i < 20000; i++) {
			if (i && i % 1000 == 0 &&
			    (srt_store_commit(s, err) != 0 || srt_store_begin(s, err) != 0))
				goto out;
			if (srt_store_event(s, err, i % 3 ? "Normal" : "Warning", "ProbeFailed",
					    "service", i % 2 ? "bench-a" : "bench-b", "controller",
					    "probe of %d failed", i % 100) != 0)
				goto out;
		}
		if (srt_store_commit(s, err) != 0)
			goto out;
		printf("%-58s %10.0f events/s\n",
		       "srt_store_event (dedup path), 20,000, 1,000 per tx",
		       20000 / ((now_ms() - t0) / 1e3));
	}
	srt_store_close(s);
	s = NULL;
	remove_db(path);

	/* The database for the query benchmark: `events` in batches of 10,000. */
	free(path);
	path = srt_xasprintf("%s/events.db", dir);
	remove_db(path);
	if (srt_store_open(&s, path, SRT_STORE_CREATE, NULL, err) != 0)
		goto out;
	now = srt_store_now(s);
	if (fill_events(s, events - 200, 10000, false, now, &rate, err) != 0)
		goto out;
	printf("%-58s %10.0f events/s\n", "insert_raw, filling the query database (10,000/tx)",
	       rate);
	if (srt_store_begin(s, err) != 0)
		goto out;
	for (int i = 0; i < 200; i++) {
		struct srt_event_row ev = { .type = "Warning",
					    .reason = "ProbeFailed",
					    .kind = "run",
					    .name = "bench-x",
					    .source = "controller",
					    .count = 1 };
		char msg[96];

		snprintf(msg, sizeof(msg), "probe of decode_%d failed: connection refused", i);
		ev.message = msg;
		ev.first_at = ev.last_at = now - 3500000 + i * 1000;
		if (srt_store_event_insert_raw(s, &ev, err) != 0)
			goto out;
	}
	if (srt_store_commit(s, err) != 0)
		goto out;
	rc = 0;
out:
	if (rc != 0 && s)
		srt_store_rollback(s);
	srt_store_close(s);
	free(path);
	return rc;
}

static int bench_events(const char *dir, struct srt_error *err)
{
	char *path = srt_xasprintf("%s/events.db", dir);
	double t_all[RUNS], t_query[RUNS];
	size_t got = 0;
	int rc = -1;

	for (int r = 0; r < RUNS; r++) {
		struct srt_store *s = NULL;
		struct srt_event_row *rows = NULL;
		struct srt_event_filter f = { .kind = "run", .name = "bench-x" };
		size_t n = 0;
		double t0 = now_ms(), t1;
		json_t *list, *items;
		char *text;

		if (srt_store_open(&s, path, 0, NULL, err) != 0)
			goto out;
		f.since = srt_store_now(s) - 3600 * 1000;
		t1 = now_ms();
		if (srt_store_event_list(s, &f, &rows, &n, err) != 0) {
			srt_store_close(s);
			goto out;
		}
		list = json_object();
		items = json_array();
		json_object_set_new(list, "kind", json_string("List"));
		for (size_t i = 0; i < n; i++) {
			char first[32], last[32];
			json_t *o = json_object();

			srt_time_rfc3339(rows[i].first_at, first, sizeof(first));
			srt_time_rfc3339(rows[i].last_at, last, sizeof(last));
			json_object_set_new(o, "type", json_string(rows[i].type));
			json_object_set_new(o, "reason", json_string(rows[i].reason));
			json_object_set_new(o, "kind", json_string(rows[i].kind));
			json_object_set_new(o, "name", json_string(rows[i].name));
			json_object_set_new(o, "message", json_string(rows[i].message));
			json_object_set_new(o, "source", json_string(rows[i].source));
			json_object_set_new(o, "count", json_integer(rows[i].count));
			json_object_set_new(o, "first_timestamp", json_string(first));
			json_object_set_new(o, "last_timestamp", json_string(last));
			json_array_append_new(items, o);
		}
		json_object_set_new(list, "items", items);
		text = json_dumps(list, JSON_INDENT(2));
		t_query[r] = now_ms() - t1;
		t_all[r] = now_ms() - t0;
		free(text);
		json_decref(list);
		srt_event_rows_free(rows, n);
		srt_store_close(s);
		got = n;
	}
	{
		struct stat st;

		printf("events --for run/bench-x --since 1h -o json: %zu rows of a %.0f MB database\n",
		       got, stat(path, &st) == 0 ? (double)st.st_size / 1e6 : 0.0);
	}
	report("  open + list + JSON", t_all, RUNS);
	report("  list + JSON (connection already open)", t_query, RUNS);
	rc = 0;
out:
	free(path);
	return rc;
}

static int bench_services(const char *dir, struct srt_error *err)
{
	char *path = srt_xasprintf("%s/services.db", dir);
	struct srt_store *s = NULL;
	double t_all[RUNS], t_query[RUNS];
	size_t got = 0;
	int rc = -1;

	remove_db(path);
	if (srt_store_open(&s, path, SRT_STORE_CREATE, NULL, err) != 0)
		goto out;
	if (srt_store_begin(s, err) != 0)
		goto out;
	for (int r = 0; r < 100; r++) {
		char recipe[32];
		struct srt_run_row run;

		snprintf(recipe, sizeof(recipe), "recipe-%03d", r);
		if (srt_store_recipe_apply(s, recipe, "{}", NULL, NULL, NULL, NULL, err) != 0 ||
		    srt_store_run_create(s, recipe, 1, &run, err) != 0)
			goto out;
		for (int i = 0; i < 100; i++) {
			char name[32], node[32], endpoint[48];
			struct srt_service_row sv = { .run = run.name,
						      .name = name,
						      .service = "decode",
						      .type = "worker",
						      .node = node,
						      .endpoint = endpoint,
						      .state = "Ready",
						      .restarts = i % 3,
						      .last_probe = "ok",
						      .message = "ready" };

			snprintf(name, sizeof(name), "decode_node%03d", i);
			snprintf(node, sizeof(node), "node%03d", i);
			snprintf(endpoint, sizeof(endpoint), "10.0.%d.%d:30000", r, i);
			sv.last_probe_at = sv.started_at = srt_store_now(s);
			if (srt_store_service_upsert(s, &sv, err) != 0) {
				srt_run_row_release(&run);
				goto out;
			}
		}
		srt_run_row_release(&run);
	}
	if (srt_store_commit(s, err) != 0)
		goto out;
	srt_store_close(s);
	s = NULL;
	for (int r = 0; r < RUNS; r++) {
		struct srt_service_row *rows;
		size_t n;
		double t0 = now_ms(), t1;

		if (srt_store_open(&s, path, 0, NULL, err) != 0)
			goto out;
		t1 = now_ms();
		if (srt_store_service_list(s, NULL, NULL, &rows, &n, err) != 0)
			goto out;
		t_query[r] = now_ms() - t1;
		t_all[r] = now_ms() - t0;
		srt_service_rows_free(rows, n);
		srt_store_close(s);
		s = NULL;
		got = n;
	}
	printf("get services: %zu rows\n", got);
	report("  open + srt_store_service_list", t_all, RUNS);
	report("  srt_store_service_list (connection already open)", t_query, RUNS);
	rc = 0;
out:
	if (rc != 0 && s)
		srt_store_rollback(s);
	srt_store_close(s);
	free(path);
	return rc;
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/bench_store_XXXXXX";
	const char *dir = argc > 1 ? argv[1] : NULL;
	long events = argc > 2 ? atol(argv[2]) : 1000000;
	struct srt_error err;
	bool own = false;
	int rc = 1;

	if (!dir) {
		dir = mkdtemp(tmpl);
		own = true;
		if (!dir) {
			perror("bench_store: mkdtemp");
			return 2;
		}
	}
	if (events < 1000) {
		fprintf(stderr, "usage: bench_store [DIR] [EVENTS >= 1000]\n");
		return 2;
	}
	printf("bench_store: SQLite %s, database directory %s\n", sqlite3_libversion(), dir);
	if (bench_insert(dir, events, &err) != 0 || bench_events(dir, &err) != 0 ||
	    bench_services(dir, &err) != 0) {
		die(&err);
		goto out;
	}
	rc = 0;
out:
	if (own) {
		char *p = srt_xasprintf("%s/events.db", dir);

		remove_db(p);
		free(p);
		p = srt_xasprintf("%s/services.db", dir);
		remove_db(p);
		free(p);
		p = srt_xasprintf("%s/insert.db", dir);
		remove_db(p);
		free(p);
		rmdir(dir);
	}
	return rc;
}
