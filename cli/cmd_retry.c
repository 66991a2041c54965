/*
 * cli/cmd_retry.c: `srtctl retry campaign NAME [--failed] [--invalid]`: a
 * campaign's failed or invalid points back to pending (store/steer.c); the
 * controller runs them again.
 */
#include "cli/cli.h"
#include "store/store.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: srtctl retry campaign NAME [--failed] [--invalid] [--db PATH]\n"
	"\n"
	"Run a campaign's failed (--failed) or invalid (--invalid) points again; with\n"
	"neither flag, both. Each such point of its current deployments goes back to\n"
	"pending with its attempts at 0; its results, raw result file reference, run\n"
	"and times are cleared and its message says \"retried by user at TIME\" (with\n"
	"the old message). One PointsRetried event records how many. A Done or Stopped\n"
	"(policy.maxFailedPoints reached) campaign becomes Running, so the controller\n"
	"starts their deployments again; a suspended one waits for `srtctl resume`, and\n"
	"one out of budget for a larger budget.nodeHours. campaign/NAME is accepted too.\n"
	"\n"
	"Options:\n"
	"      --failed    retry the failed points\n"
	"      --invalid   retry the invalid points (ran, but failed a validity check)\n"
	"      --db PATH   state database (default: $SRTCTL_DB, else\n"
	"                  $XDG_STATE_HOME/srtctl/srtctl.db)\n"
	"  -h, --help      show this help\n"
	"\n"
	"Exit codes: 0 done (also when no point needed it), 1 no such campaign or it is\n"
	"deleted, 2 usage or I/O.\n"
	"\n"
	"Examples:\n"
	"  srtctl retry campaign qwen3-sweep\n"
	"  srtctl retry campaign qwen3-sweep --invalid\n";

static void print_result(const char *name, const struct srt_campaign_retry *r)
{
	int64_t n = r->reset_failed + r->reset_invalid;

	if (!n) {
		printf("campaign/%s: no %s point to retry\n", name,
		       r->failed && r->invalid ? "failed or invalid" :
		       r->failed	       ? "failed" :
						 "invalid");
		return;
	}
	printf("campaign/%s: %lld point(s) back to pending (%lld failed, %lld invalid), attempts "
	       "reset",
	       name, (long long)n, (long long)r->reset_failed, (long long)r->reset_invalid);
	if (strcmp(r->state_before, r->state_after))
		printf("; state %s -> %s", r->state_before, r->state_after);
	if (!strcmp(r->state_after, "Suspended"))
		printf("; it is suspended: `srtctl resume campaign %s` runs them\n", name);
	else if (!strcmp(r->state_after, "OutOfBudget"))
		printf("; it is OutOfBudget: raise budget.nodeHours and apply it again for them "
		       "to run\n");
	else
		printf("; the controller runs them in its next pass\n");
}

int srt_cmd_retry(int argc, char **argv)
{
	enum {
		OPT_DB = 256,
		OPT_FAILED,
		OPT_INVALID
	};
	static const struct option opts[] = {
		{ "failed", no_argument, NULL, OPT_FAILED },
		{ "invalid", no_argument, NULL, OPT_INVALID },
		{ "db", required_argument, NULL, OPT_DB },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct srt_campaign_retry r = { 0 };
	struct srt_store *store = NULL;
	struct srt_error err;
	const char *db_arg = NULL, *name;
	char *db;
	int c, o, rc = SRT_EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_FAILED:
			r.failed = true;
			break;
		case OPT_INVALID:
			r.invalid = true;
			break;
		case OPT_DB:
			db_arg = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return SRT_EXIT_OK;
		default:
			return srt_cli_usage_error("retry", "unknown option");
		}
	}
	name = srt_cli_campaign_arg("retry", argc, argv, optind);
	if (!name)
		return SRT_EXIT_USAGE;
	if (!r.failed && !r.invalid)
		r.failed = r.invalid = true;
	db = srt_cli_db_path(db_arg);
	o = srt_cli_db_open("retry", db, 0, &store);
	if (o != 0) {
		if (o > 0) {
			fprintf(stderr, "srtctl retry: campaign '%s' not found\n", name);
			srt_cli_db_missing("retry", db);
		}
		free(db);
		return o > 0 ? SRT_EXIT_INVALID : SRT_EXIT_USAGE;
	}
	o = srt_store_campaign_retry(store, name, &r, &err);
	if (o == SRT_STORE_NO_CAMPAIGN) {
		fprintf(stderr, "srtctl retry: %s\n", err.msg);
		rc = SRT_EXIT_INVALID;
	} else if (o < 0) {
		fprintf(stderr, "srtctl retry: %s; nothing was changed\n", err.msg);
		rc = SRT_EXIT_USAGE;
	} else {
		print_result(name, &r);
		fflush(stdout);
		if (r.reset_failed + r.reset_invalid)
			srt_cli_controller_note(db);
	}
	srt_store_close(store);
	free(db);
	return rc;
}
