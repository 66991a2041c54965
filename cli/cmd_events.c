/*
 * cli/cmd_events.c: `srtctl events [filters] [-o ...] [--watch]` and
 * `srtctl events prune [--older-than DURATION]`.
 *
 * Events follow Kubernetes: an identical event repeated within the store's
 * dedup window is one row with a count and first/last times.  They are kept
 * for 30 days by default ($SRTCTL_EVENT_RETENTION), and removed only by
 * `srtctl events prune`, never behind the user's back.
 */
#include "cli/cli.h"
#include "cli/print.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/clock.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char usage_text[] =
	"usage: srtctl events [--for KIND/NAME] [--since DURATION] [--type Normal|Warning]\n"
	"                     [--reason REASON] [--limit N] [-o text|wide|json|yaml]\n"
	"                     [--watch] [--db PATH]\n"
	"       srtctl events prune [--older-than DURATION] [--db PATH]\n"
	"\n"
	"Show what happened, oldest first: every decision of srtctl and its controller is\n"
	"an event with a type (Normal or Warning), a CamelCase reason, the object it is\n"
	"about (KIND/NAME) and a message. An event repeated within 10 minutes is counted\n"
	"on one line (LAST SEEN shows \"5s (x3 over 8m)\").\n"
	"\n"
	"Options:\n"
	"      --for KIND/NAME   only events about this object; KIND is recipe, run,\n"
	"                        service (NAME is RUN/INSTANCE), worker or campaign\n"
	"      --since DURATION  only events seen in the last DURATION (90s, 15m, 1h, 2d)\n"
	"      --type TYPE       Normal or Warning\n"
	"      --reason REASON   only this reason (RecipeCreated, JobSubmitted, ...)\n"
	"      --limit N         only the newest N events\n"
	"  -o, --output FORMAT   text (default), wide (+COUNT, FIRST SEEN, SOURCE), json\n"
	"                        or yaml\n"
	"  -w, --watch           keep printing new events as they happen (Ctrl-C stops)\n"
	"      --db PATH         state database (default: $SRTCTL_DB, else\n"
	"                        $XDG_STATE_HOME/srtctl/srtctl.db)\n"
	"  -h, --help            show this help\n"
	"\n"
	"prune deletes events last seen more than DURATION ago: --older-than, else\n"
	"$SRTCTL_EVENT_RETENTION, else 30d.\n"
	"\n"
	"Exit codes: 0 ok, 2 usage or I/O.\n"
	"\n"
	"Examples:\n"
	"  srtctl events --for run/qwen3-mooncake-1-1 --since 1h\n"
	"  srtctl events --type Warning -o json\n"
	"  srtctl events --watch\n"
	"  srtctl events prune --older-than 7d\n";

static const char *const event_kinds[] = { "recipe", "run", "service", "worker", "campaign", NULL };

struct events_ctx {
	struct srt_store *store;
	struct srt_event_filter f;
	enum srt_output fmt;
	char *kind_buf; /* owns f.kind (and f.name follows it) */
};

/* "run/NAME" -> kind, name.  Returns 0, or -1 after a usage error. */
static int parse_for(const char *arg, struct events_ctx *c)
{
	const char *slash = strchr(arg, '/');
	size_t klen;

	if (!slash || slash == arg || !slash[1]) {
		srt_cli_usage_error("events", "--for takes KIND/NAME (e.g. run/my-run), not '%s'",
				    arg);
		return -1;
	}
	klen = (size_t)(slash - arg);
	if (klen > 1 && arg[klen - 1] == 's')
		klen--; /* runs/x means run/x */
	c->kind_buf = srt_xstrndup(arg, klen);
	for (size_t i = 0; event_kinds[i]; i++)
		if (!strcmp(c->kind_buf, event_kinds[i])) {
			c->f.kind = event_kinds[i];
			c->f.name = slash + 1;
			return 0;
		}
	srt_cli_usage_error("events",
			    "unknown kind '%.*s' in --for (expected recipe, run, "
			    "service, worker or campaign)",
			    (int)(slash - arg), arg);
	return -1;
}

static void last_seen(const struct srt_event_row *e, int64_t now, char *buf, size_t n)
{
	char last[32], span[32];

	srt_duration_human(now - e->last_at, last, sizeof(last));
	if (e->count > 1) {
		srt_duration_human(e->last_at - e->first_at, span, sizeof(span));
		snprintf(buf, n, "%s (x%lld over %s)", last, (long long)e->count, span);
	} else {
		snprintf(buf, n, "%s", last);
	}
}

static json_t *event_json(const struct srt_event_row *e)
{
	return json_pack("{s:o, s:o, s:{s:o, s:o}, s:o, s:I, s:o, s:o, s:o}", "type",
			 srt_json_str(e->type), "reason", srt_json_str(e->reason), "object", "kind",
			 srt_json_str(e->kind), "name", srt_json_str(e->name), "message",
			 srt_json_str(e->message), "count", (json_int_t)e->count, "first_timestamp",
			 srt_json_time(e->first_at), "last_timestamp", srt_json_time(e->last_at),
			 "source", srt_json_str(e->source));
}

/* Print rows[i] for which keep[i] (all when keep is NULL). */
static void print_events(const struct events_ctx *c, const struct srt_event_row *rows, size_t n,
			 const bool *keep)
{
	bool wide = c->fmt == SRT_OUT_WIDE;
	int64_t now = srt_store_now(c->store);
	struct srt_table t;
	json_t *items;

	if (c->fmt == SRT_OUT_JSON || c->fmt == SRT_OUT_YAML) {
		items = json_array();
		for (size_t i = 0; i < n; i++)
			if (!keep || keep[i])
				json_array_append_new(items, event_json(&rows[i]));
		srt_print_list(stdout, items, c->fmt);
		return;
	}
	srt_table_init(&t, wide ? 8 : 5);
	srt_table_add(&t, "LAST SEEN");
	srt_table_add(&t, "TYPE");
	srt_table_add(&t, "REASON");
	srt_table_add(&t, "OBJECT");
	if (wide) {
		srt_table_add(&t, "COUNT");
		srt_table_add(&t, "FIRST SEEN");
		srt_table_add(&t, "SOURCE");
	}
	srt_table_add(&t, "MESSAGE");
	for (size_t i = 0; i < n; i++) {
		const struct srt_event_row *e = &rows[i];
		char buf[96];

		if (keep && !keep[i])
			continue;
		if (wide)
			srt_duration_human(now - e->last_at, buf, sizeof(buf));
		else
			last_seen(e, now, buf, sizeof(buf));
		srt_table_add(&t, buf);
		srt_table_add(&t, e->type);
		srt_table_add(&t, e->reason);
		srt_table_addf(&t, "%s/%s", e->kind ? e->kind : "", e->name ? e->name : "");
		if (wide) {
			srt_table_add_int(&t, e->count, 0);
			srt_table_add_age(&t, now, e->first_at);
			srt_table_add(&t, e->source);
		}
		srt_table_add(&t, e->message);
	}
	srt_table_print(&t, stdout, "", false);
	srt_table_release(&t);
}

static int list_events(struct events_ctx *c, const char *db, bool watch, const char *watch_timeout)
{
	struct srt_event_row *rows = NULL;
	struct srt_error err;
	struct srt_watch w;
	int64_t last_id = 0, last_at = 0;
	bool watching = false;
	size_t n = 0;
	int rc = SRT_EXIT_OK;

	if (srt_store_event_list(c->store, &c->f, &rows, &n, &err) != 0)
		goto fail;
	if (n || c->fmt == SRT_OUT_JSON || c->fmt == SRT_OUT_YAML)
		print_events(c, rows, n, NULL);
	else
		fputs("No events found.\n", stderr);
	fflush(stdout);
	for (size_t i = 0; i < n; i++) {
		if (rows[i].id > last_id)
			last_id = rows[i].id;
		if (rows[i].last_at > last_at)
			last_at = rows[i].last_at;
	}
	srt_event_rows_free(rows, n);
	rows = NULL;
	n = 0;
	if (!watch)
		goto out;
	if (srt_watch_init(&w, "events", db, watch_timeout, c->store) != 0) {
		rc = SRT_EXIT_USAGE;
		goto out;
	}
	watching = true;
	c->f.limit = 0;
	while (srt_watch_wait(&w, c->store)) {
		struct srt_event_filter f = c->f;
		bool *keep, any = false;

		/* New rows, and old rows whose count went up (their last_at moved). */
		if (last_at > f.since)
			f.since = last_at;
		if (srt_store_event_list(c->store, &f, &rows, &n, &err) != 0)
			goto fail;
		keep = srt_xcalloc(n ? n : 1, sizeof(*keep));
		for (size_t i = 0; i < n; i++) {
			keep[i] = rows[i].id > last_id || rows[i].last_at > last_at;
			any |= keep[i];
		}
		if (any) {
			print_events(c, rows, n, keep);
			fflush(stdout);
		}
		for (size_t i = 0; i < n; i++) {
			if (rows[i].id > last_id)
				last_id = rows[i].id;
			if (rows[i].last_at > last_at)
				last_at = rows[i].last_at;
		}
		free(keep);
		srt_event_rows_free(rows, n);
		rows = NULL;
		n = 0;
	}
	goto out;
fail:
	fprintf(stderr, "srtctl events: %s\n", err.msg);
	rc = SRT_EXIT_USAGE;
out:
	if (watching)
		srt_watch_release(&w);
	srt_event_rows_free(rows, n);
	return rc;
}

static int cmd_prune(int argc, char **argv)
{
	enum {
		OPT_DB = 256,
		OPT_OLDER
	};
	static const struct option opts[] = {
		{ "older-than", required_argument, NULL, OPT_OLDER },
		{ "db", required_argument, NULL, OPT_DB },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db_arg = NULL, *older = NULL, *from = "--older-than";
	struct srt_store *store = NULL;
	struct srt_error err;
	int64_t keep_ms = SRT_EVENT_RETENTION_DEFAULT_MS, deleted = 0, before;
	char *db = NULL, when[40];
	int c, o, rc = SRT_EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_OLDER:
			older = optarg;
			break;
		case OPT_DB:
			db_arg = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return SRT_EXIT_OK;
		default:
			return srt_cli_usage_error("events prune", "unknown option");
		}
	}
	if (optind < argc)
		return srt_cli_usage_error("events prune", "unexpected argument '%s'",
					   argv[optind]);
	if (!older) {
		older = getenv("SRTCTL_EVENT_RETENTION");
		from = "$SRTCTL_EVENT_RETENTION";
		if (older && !*older)
			older = NULL;
	}
	if (older && srt_duration_parse(older, &keep_ms) == SRT_DURATION_TOO_LONG)
		return srt_cli_usage_error("events prune",
					   "%s '%s' is longer than the longest duration srtctl "
					   "accepts, " SRT_DURATION_MAX_TEXT,
					   from, older);
	if (older && (srt_duration_parse(older, &keep_ms) != 0 || keep_ms <= 0))
		return srt_cli_usage_error("events prune",
					   "%s: invalid duration '%s' (expected "
					   "e.g. 30d, 12h or 90m)",
					   from, older);
	db = srt_cli_db_path(db_arg);
	o = srt_cli_db_open("events prune", db, 0, &store);
	if (o < 0) {
		rc = SRT_EXIT_USAGE;
		goto out;
	}
	if (o > 0) {
		printf("no state database at %s; nothing to prune\n", db);
		goto out;
	}
	before = srt_store_now(store) - keep_ms;
	if (srt_store_event_prune(store, before, &deleted, &err) != 0) {
		fprintf(stderr, "srtctl events prune: %s\n", err.msg);
		rc = SRT_EXIT_USAGE;
		goto out;
	}
	srt_time_rfc3339(before, when, sizeof(when));
	printf("pruned %lld event%s last seen before %s\n", (long long)deleted,
	       deleted == 1 ? "" : "s", when);
out:
	if (store)
		srt_store_close(store);
	free(db);
	return rc;
}

int srt_cmd_events(int argc, char **argv)
{
	enum {
		OPT_DB = 256,
		OPT_FOR,
		OPT_SINCE,
		OPT_TYPE,
		OPT_REASON,
		OPT_LIMIT,
		OPT_WATCH_TIMEOUT
	};
	static const struct option opts[] = {
		{ "for", required_argument, NULL, OPT_FOR },
		{ "since", required_argument, NULL, OPT_SINCE },
		{ "type", required_argument, NULL, OPT_TYPE },
		{ "reason", required_argument, NULL, OPT_REASON },
		{ "limit", required_argument, NULL, OPT_LIMIT },
		{ "output", required_argument, NULL, 'o' },
		{ "watch", no_argument, NULL, 'w' },
		{ "watch-timeout", required_argument, NULL, OPT_WATCH_TIMEOUT }, /* for tests */
		{ "db", required_argument, NULL, OPT_DB },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct events_ctx ctx = { 0 };
	const char *db_arg = NULL, *since = NULL, *watch_timeout = NULL;
	char *db = NULL, *end;
	bool watch = false;
	int c, o, rc = SRT_EXIT_OK;

	if (argc > 1 && !strcmp(argv[1], "prune"))
		return cmd_prune(argc - 1, argv + 1);
	ctx.fmt = SRT_OUT_TEXT;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:wh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_FOR:
			free(ctx.kind_buf);
			ctx.kind_buf = NULL;
			if (parse_for(optarg, &ctx) != 0) {
				rc = SRT_EXIT_USAGE;
				goto out;
			}
			break;
		case OPT_SINCE:
			since = optarg;
			break;
		case OPT_TYPE:
			if (!strcasecmp(optarg, "Normal")) {
				ctx.f.type = "Normal";
			} else if (!strcasecmp(optarg, "Warning")) {
				ctx.f.type = "Warning";
			} else {
				rc = srt_cli_usage_error("events",
							 "unknown event type '%s' (expected "
							 "Normal or Warning)",
							 optarg);
				goto out;
			}
			break;
		case OPT_REASON:
			ctx.f.reason = optarg;
			break;
		case OPT_LIMIT:
			errno = 0;
			ctx.f.limit = strtoll(optarg, &end, 10);
			if (errno || end == optarg || *end || ctx.f.limit <= 0) {
				rc = srt_cli_usage_error("events",
							 "--limit takes a positive number, "
							 "not '%s'",
							 optarg);
				goto out;
			}
			break;
		case 'o':
			if (srt_cli_parse_output("events", optarg, &ctx.fmt, true) != 0) {
				rc = SRT_EXIT_USAGE;
				goto out;
			}
			break;
		case 'w':
			watch = true;
			break;
		case OPT_WATCH_TIMEOUT:
			watch_timeout = optarg;
			break;
		case OPT_DB:
			db_arg = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			goto out;
		default:
			rc = srt_cli_usage_error("events", "unknown option");
			goto out;
		}
	}
	if (optind < argc) {
		rc = srt_cli_usage_error("events", "unexpected argument '%s' (use --for KIND/NAME)",
					 argv[optind]);
		goto out;
	}
	if (since) {
		int64_t ms = 0;
		int prc = srt_duration_parse(since, &ms);

		if (prc == SRT_DURATION_TOO_LONG) {
			rc = srt_cli_usage_error("events",
						 "--since '%s' is longer than the longest "
						 "duration srtctl accepts, " SRT_DURATION_MAX_TEXT,
						 since);
			goto out;
		}
		if (prc != 0 || ms <= 0) {
			rc = srt_cli_usage_error("events",
						 "--since takes a duration such as 90s, "
						 "15m, 1h or 2d, not '%s'",
						 since);
			goto out;
		}
		ctx.f.since = -ms; /* made absolute once the store's clock is known */
	}
	db = srt_cli_db_path(db_arg);
	o = srt_cli_db_open("events", db, SRT_STORE_READONLY, &ctx.store);
	if (o < 0) {
		rc = SRT_EXIT_USAGE;
		goto out;
	}
	if (o > 0) {
		if (ctx.fmt == SRT_OUT_JSON || ctx.fmt == SRT_OUT_YAML)
			srt_print_list(stdout, json_array(), ctx.fmt);
		else
			fprintf(stderr,
				"No events found (no state database at %s yet; `srtctl "
				"apply -f RECIPE` creates it).\n",
				db);
		goto out;
	}
	if (ctx.f.since < 0)
		ctx.f.since += srt_store_now(ctx.store);
	rc = list_events(&ctx, db, watch, watch_timeout);
out:
	if (ctx.store)
		srt_store_close(ctx.store);
	free(ctx.kind_buf);
	free(db);
	return rc;
}
