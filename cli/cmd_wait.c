/*
 * cli/cmd_wait.c: `srtctl wait` (and `srtctl apply --wait`): follow a recipe's
 * current run until it is Ready (or done), printing its story as it happens.
 *
 * It only reads the database: the controller does the work.  Progress is the
 * run's phase changes and the events of the run and of its services and
 * workers (objects run/RUN, service/RUN/..., worker/RUN/...).
 */
#include "cli/cli.h"
#include "reconcilers/runs.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/clock.h"

#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: srtctl wait [recipe/]NAME [...] [--for ready|done] [--timeout DURATION] [--db PATH]\n"
	"       srtctl wait campaign NAME [--for done] [--timeout DURATION] [--db PATH]\n"
	"\n"
	"Follow each recipe's run of its current generation and print what happens\n"
	"(phase changes, and the events of the run, its services and its workers) until\n"
	"it is Ready (--for ready, the default) or has ended (--for done). A run that\n"
	"fails while the recipe has attempts left is followed into its next attempt.\n"
	"A running controller (srtctl controller) does the work; wait only reads.\n"
	"\n"
	"A campaign (campaign NAME or campaign/NAME) is followed until it is Done (every\n"
	"point finished): on a terminal one live line (points done/total, failed,\n"
	"invalid, running, pending, and the ETA: the mean duration of its finished\n"
	"points x the points left / the deployments that run at once; \"ETA unknown\"\n"
	"before the first point finished), else one line per change. A Stopped\n"
	"(policy.maxFailedPoints reached) or OutOfBudget campaign will not finish by\n"
	"itself: wait says what to do and exits 1. A Suspended one is waited for.\n"
	"Without --timeout a campaign is waited for as long as it takes.\n"
	"\n"
	"Options:\n"
	"      --for ready|done     Ready (or Succeeded), or any end (default ready;\n"
	"                           campaigns: done only)\n"
	"      --timeout DURATION   give up after this long (default 30m; campaigns:\n"
	"                           none)\n"
	"      --db PATH            the state database\n"
	"  -h, --help               show this help\n"
	"\n"
	"Exit codes: 0 reached (done: Succeeded; a campaign: Done), 1 failed, cancelled,\n"
	"deleted, timed out, or a campaign Stopped or OutOfBudget, 2 usage or I/O.\n"
	"\n"
	"Examples:\n"
	"  srtctl wait qwen3-mooncake\n"
	"  srtctl apply -f recipe.yaml --wait --timeout 20m\n"
	"  srtctl wait campaign qwen3-sweep --for done --timeout 12h\n";

struct follow {
	char *recipe;
	char *run; /* the run being followed */
	char *phase; /* its last printed phase */
	bool done;
	int rc;
};

static void print_event(const struct srt_event_row *e)
{
	char ts[40];

	srt_time_rfc3339(e->last_at, ts, sizeof(ts));
	printf("  %s  %-7s %-16s %s/%s: %s\n", ts + 11, e->type, e->reason, e->kind, e->name,
	       e->message);
}

static bool run_object(const char *run, const struct srt_event_row *e)
{
	size_t n = strlen(run);

	if (!strcmp(e->kind, "run"))
		return !strcmp(e->name, run);
	return !strncmp(e->name, run, n) && e->name[n] == '/';
}

/* One look at a recipe; returns true when its wait is over. */
static bool step(struct srt_store *s, struct follow *f, bool for_done, int64_t *last_event,
		 bool *hinted)
{
	struct srt_recipe_row recipe = { 0 };
	struct srt_run_row *runs = NULL, *cur = NULL;
	struct srt_event_row *ev = NULL;
	struct srt_error err;
	size_t n = 0, nev = 0;
	enum srt_rc_phase phase = SRT_RC_PENDING;
	int found;

	found = srt_store_recipe_get(s, f->recipe, &recipe, &err);
	if (found != 1 || recipe.deleted_at) {
		printf("recipe/%s: %s\n", f->recipe,
		       found < 0 ? err.msg : found == 0 ? "not found" : "deleted");
		f->done = true;
		f->rc = SRT_EXIT_INVALID;
		goto out;
	}
	if (srt_store_run_list(s, f->recipe, &runs, &n, &err) != 0) {
		fprintf(stderr, "srtctl wait: %s\n", err.msg);
		f->done = true;
		f->rc = SRT_EXIT_USAGE;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (runs[i].generation == recipe.generation &&
		    (!cur || runs[i].attempt > cur->attempt))
			cur = &runs[i];
	if (!cur) {
		if (!*hinted)
			printf("recipe/%s: generation %lld has no run yet; waiting for the "
			       "controller\n",
			       f->recipe, (long long)recipe.generation);
		*hinted = true;
		goto out;
	}
	if (!f->run || strcmp(f->run, cur->name)) {
		free(f->run);
		f->run = srt_xstrdup(cur->name);
		free(f->phase);
		f->phase = NULL;
		printf("run/%s: attempt %lld of recipe/%s generation %lld\n", cur->name,
		       (long long)cur->attempt, f->recipe, (long long)recipe.generation);
	}
	/* The story so far: new events of the run and its processes. */
	{
		struct srt_event_filter flt = { 0 };

		flt.after_id = *last_event;
		if (srt_store_event_list(s, &flt, &ev, &nev, &err) == 0) {
			for (size_t i = 0; i < nev; i++) {
				if (ev[i].id > *last_event)
					*last_event = ev[i].id;
				if (run_object(cur->name, &ev[i]))
					print_event(&ev[i]);
			}
		}
	}
	if (!f->phase || strcmp(f->phase, cur->phase)) {
		printf("run/%s: %s%s%s\n", cur->name, cur->phase, cur->message ? " - " : "",
		       cur->message ? cur->message : "");
		free(f->phase);
		f->phase = srt_xstrdup(cur->phase);
	}
	srt_rc_phase_parse(cur->phase, &phase);
	if ((phase == SRT_RC_READY && !for_done) || phase == SRT_RC_SUCCEEDED) {
		f->done = true;
		f->rc = SRT_EXIT_OK;
	} else if (phase == SRT_RC_DEGRADED && !for_done) {
		/* Up, but without a non-critical process the agent gave up. */
		f->done = true;
		f->rc = SRT_EXIT_OK;
		printf("run/%s: up but Degraded: a non-critical process was given up; see "
		       "`srtctl get services --run %s` and `srtctl events --for run/%s`\n",
		       cur->name, cur->name, cur->name);
	} else if (phase == SRT_RC_FAILED || phase == SRT_RC_CANCELLED) {
		json_t *spec = json_loads(recipe.spec, 0, NULL);
		json_int_t max = json_integer_value(
			json_object_get(json_object_get(spec, "slurm"), "max_attempts"));

		json_decref(spec);
		if (max < 1)
			max = 3; /* SRT_MAX_ATTEMPTS_DEFAULT */
		if (cur->attempt >= max) {
			f->done = true;
			f->rc = SRT_EXIT_INVALID;
			printf("run/%s: %s after %lld attempt(s); see `srtctl describe run %s` and "
			       "its logs in %s\n",
			       cur->name, cur->phase, (long long)cur->attempt, cur->name,
			       cur->run_dir ? cur->run_dir : "its run directory");
		}
	}
out:
	srt_event_rows_free(ev, nev);
	srt_run_rows_free(runs, n);
	srt_recipe_row_release(&recipe);
	return f->done;
}

int srt_cli_wait(const char *db, char *const *names, size_t n, bool for_done,
		 const char *timeout)
{
	struct srt_store *s = NULL;
	struct follow *f = srt_xcalloc(n ? n : 1, sizeof(*f));
	struct srt_watch w;
	int64_t last_event = 0;
	bool hinted = false, watching = false;
	int rc = SRT_EXIT_OK, orc;

	orc = srt_cli_db_open("wait", db, SRT_STORE_READONLY, &s);
	if (orc != 0) {
		if (orc == 1)
			srt_cli_db_missing("wait", db);
		free(f);
		return orc == 1 ? SRT_EXIT_INVALID : SRT_EXIT_USAGE;
	}
	{
		/* Start the story at the newest event: what is new from here on. */
		struct srt_event_filter flt = { 0 };
		struct srt_event_row *ev = NULL;
		struct srt_error err;
		size_t nev = 0;

		flt.limit = 1;
		if (srt_store_event_list(s, &flt, &ev, &nev, &err) == 0 && nev)
			last_event = ev[0].id - 1;
		srt_event_rows_free(ev, nev);
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = names[i];

		if (!strncmp(name, "recipe/", 7))
			name += 7;
		f[i].recipe = srt_xstrdup(name);
	}
	if (srt_watch_init(&w, "wait", db, timeout ? timeout : "30m", s) != 0) {
		rc = SRT_EXIT_USAGE;
		goto out;
	}
	watching = true;
	for (;;) {
		bool all = true;

		for (size_t i = 0; i < n; i++)
			if (!f[i].done && !step(s, &f[i], for_done, &last_event, &hinted))
				all = false;
		fflush(stdout);
		if (all)
			break;
		if (!srt_watch_wait(&w, s)) {
			for (size_t i = 0; i < n; i++)
				if (!f[i].done) {
					printf("recipe/%s: gave up waiting (timeout or signal)%s%s\n",
					       f[i].recipe, f[i].phase ? "; last phase " : "",
					       f[i].phase ? f[i].phase : "");
					f[i].rc = SRT_EXIT_INVALID;
				}
			break;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (f[i].rc > rc)
			rc = f[i].rc;
out:
	if (watching)
		srt_watch_release(&w);
	for (size_t i = 0; i < n; i++) {
		free(f[i].recipe);
		free(f[i].run);
		free(f[i].phase);
	}
	free(f);
	srt_store_close(s);
	return rc;
}

/* ---- a campaign ---- */

/* Its progress line: "campaign/NAME: STATE 3/8 done, 1 failed, ... ETA 12m". Caller frees. */
static char *campaign_line(const struct srt_campaign_row *r, const struct srt_cli_progress *p)
{
	char eta[32];

	if (srt_cli_campaign_halted(r->state) || r->deleted_at)
		snprintf(eta, sizeof(eta), "no ETA");
	else if (p->eta_ms < 0)
		snprintf(eta, sizeof(eta), "ETA unknown");
	else {
		memcpy(eta, "ETA ", 4);
		srt_duration_human(p->eta_ms, eta + 4, sizeof(eta) - 4);
	}
	return srt_xasprintf(
		"campaign/%s: %s, %lld/%lld done, %lld failed, %lld invalid, %lld "
		"running, %lld pending, %s",
		r->name, r->state, (long long)r->done,
		(long long)(r->pending + r->running + r->done + r->failed + r->invalid),
		(long long)r->failed, (long long)r->invalid, (long long)r->running,
		(long long)r->pending, eta);
}

/*
 * Done, or a state it will not leave by itself: print why (after `nl`, which
 * ends a live line) and return the exit code.  -1: keep waiting.
 */
static int campaign_verdict(const struct srt_campaign_row *r, const struct srt_cli_progress *p,
			    const char *nl)
{
	if (!strcmp(r->state, "Done") && !r->pending && !r->running) {
		printf("%scampaign/%s: Done: all %lld points finished (%lld done, %lld failed, %lld "
		       "invalid)%s%s%s\n",
		       nl, r->name, (long long)(r->done + r->failed + r->invalid),
		       (long long)r->done, (long long)r->failed, (long long)r->invalid,
		       r->failed + r->invalid ? "; `srtctl retry campaign " : "",
		       r->failed + r->invalid ? r->name : "",
		       r->failed + r->invalid ? "` runs the failed and invalid ones again" : "");
		return SRT_EXIT_OK;
	}
	if (!strcmp(r->state, "Stopped")) {
		printf("%scampaign/%s: Stopped: policy.maxFailedPoints reached (%lld of %lld points "
		       "failed or invalid); it will not finish by itself: `srtctl retry campaign "
		       "%s` runs them again, or raise policy.maxFailedPoints and apply it again\n",
		       nl, r->name, (long long)(r->failed + r->invalid),
		       (long long)p->max_failed_points, r->name);
		return SRT_EXIT_INVALID;
	}
	if (!strcmp(r->state, "OutOfBudget")) {
		printf("%scampaign/%s: OutOfBudget: budget.nodeHours spent (%.1f of %.1f node-hours "
		       "used); it will not finish by itself: raise budget.nodeHours in %s and "
		       "`srtctl apply` it again\n",
		       nl, r->name, p->node_hours, p->budget_node_hours,
		       r->source_file ? r->source_file : "its file");
		return SRT_EXIT_INVALID;
	}
	return -1;
}

/* One look; returns an exit code when the wait is over, else -1. */
static int campaign_step(struct srt_store *s, const char *name, bool tty, char **last_line,
			 char **last_state)
{
	struct srt_campaign_row r;
	struct srt_cli_progress p;
	struct srt_error err;
	char *line;
	int found, rc = -1;

	found = srt_store_campaign_get(s, name, &r, &err);
	if (found < 0 || (found == 1 && srt_cli_progress(s, &r, 1, &p, &err) != 0)) {
		fprintf(stderr, "%ssrtctl wait: %s\n", tty && *last_line ? "\n" : "", err.msg);
		srt_campaign_row_release(&r);
		return SRT_EXIT_USAGE;
	}
	if (found == 0 || r.deleted_at) {
		printf("%scampaign/%s: %s; it will not finish\n", tty && *last_line ? "\n" : "",
		       name, found ? "deleted (`srtctl apply` brings it back)" : "not found");
		srt_campaign_row_release(&r);
		return SRT_EXIT_INVALID;
	}
	line = campaign_line(&r, &p);
	if (!*last_line || strcmp(line, *last_line)) {
		if (tty)
			printf("\r\033[K%s", line);
		else
			printf("%s\n", line);
	}
	free(*last_line);
	*last_line = line;
	if (!*last_state || strcmp(*last_state, r.state)) {
		if (!strcmp(r.state, "Suspended"))
			printf("%scampaign/%s: Suspended: no new deployment starts; waiting for "
			       "`srtctl resume campaign %s`\n",
			       tty ? "\n" : "", name, name);
		free(*last_state);
		*last_state = srt_xstrdup(r.state);
	}
	rc = campaign_verdict(&r, &p, tty ? "\n" : "");
	srt_campaign_row_release(&r);
	return rc;
}

int srt_cli_wait_campaign(const char *db, const char *name, const char *timeout)
{
	struct srt_store *s = NULL;
	struct srt_watch w;
	char *line = NULL, *state = NULL;
	bool tty = isatty(STDOUT_FILENO) != 0;
	int rc, orc;

	orc = srt_cli_db_open("wait", db, SRT_STORE_READONLY, &s);
	if (orc != 0) {
		if (orc == 1)
			srt_cli_db_missing("wait", db);
		return orc == 1 ? SRT_EXIT_INVALID : SRT_EXIT_USAGE;
	}
	if (srt_watch_init(&w, "wait", db, timeout, s) != 0) {
		srt_store_close(s);
		return SRT_EXIT_USAGE;
	}
	for (;;) {
		rc = campaign_step(s, name, tty, &line, &state);
		fflush(stdout);
		if (rc >= 0)
			break;
		if (!srt_watch_wait(&w, s)) {
			bool timed_out = w.deadline && srt_monotonic_ms() >= w.deadline;

			printf("%scampaign/%s: %s; %s\n", tty ? "\n" : "", name,
			       timed_out ? "gave up waiting: the timeout passed" :
					   "stopped waiting (signal)",
			       line ? line + strlen("campaign/") + strlen(name) + 2 : "");
			rc = SRT_EXIT_INVALID;
			break;
		}
	}
	srt_watch_release(&w);
	free(line);
	free(state);
	srt_store_close(s);
	return rc;
}

int srt_cmd_wait(int argc, char **argv)
{
	enum { OPT_DB = 256, OPT_FOR, OPT_TIMEOUT };
	static const struct option opts[] = {
		{ "for", required_argument, NULL, OPT_FOR },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "db", required_argument, NULL, OPT_DB },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db_arg = NULL, *timeout = NULL;
	bool for_done = false, for_ready = false;
	char *db;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_FOR:
			if (!strcmp(optarg, "done"))
				for_done = true;
			else if (!strcmp(optarg, "ready"))
				for_ready = true;
			else
				return srt_cli_usage_error("wait", "--for takes ready or done, not '%s'",
							   optarg);
			break;
		case OPT_TIMEOUT:
			timeout = optarg;
			break;
		case OPT_DB:
			db_arg = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return SRT_EXIT_OK;
		default:
			return srt_cli_usage_error("wait", "unknown option");
		}
	}
	if (optind >= argc)
		return srt_cli_usage_error("wait", "name the recipe(s) to wait for");
	if (!strcmp(argv[optind], "campaign") || !strcmp(argv[optind], "campaigns") ||
	    !strncmp(argv[optind], "campaign/", 9)) {
		const char *name = srt_cli_campaign_arg("wait", argc, argv, optind);

		if (!name)
			return SRT_EXIT_USAGE;
		if (for_ready)
			return srt_cli_usage_error("wait",
						   "a campaign is waited for until it is done: "
						   "--for done");
		db = srt_cli_db_path(db_arg);
		rc = srt_cli_wait_campaign(db, name, timeout);
		free(db);
		return rc;
	}
	db = srt_cli_db_path(db_arg);
	rc = srt_cli_wait(db, argv + optind, (size_t)(argc - optind), for_done, timeout);
	free(db);
	return rc;
}
