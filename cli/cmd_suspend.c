/*
 * cli/cmd_suspend.c: `srtctl suspend campaign NAME` and `srtctl resume
 * campaign NAME`: stop a campaign from starting new deployments, and let it
 * start them again.  Desired state only (store/steer.c); the controller acts.
 */
#include "cli/cli.h"
#include "store/store.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char suspend_usage[] =
	"usage: srtctl suspend campaign NAME [--db PATH]\n"
	"\n"
	"Suspend a campaign: the controller starts no new deployment of it; the\n"
	"deployments running now finish their points. Its state becomes Suspended and\n"
	"a CampaignSuspended event records it. Suspending a suspended campaign changes\n"
	"nothing. `srtctl resume campaign NAME` lets it go on. campaign/NAME is accepted\n"
	"too.\n"
	"\n"
	"Options:\n"
	"      --db PATH   state database (default: $SRTCTL_DB, else\n"
	"                  $XDG_STATE_HOME/srtctl/srtctl.db)\n"
	"  -h, --help      show this help\n"
	"\n"
	"Exit codes: 0 suspended (or already), 1 no such campaign or it is deleted, 2\n"
	"usage or I/O.\n"
	"\n"
	"Examples:\n"
	"  srtctl suspend campaign qwen3-sweep\n";

static const char resume_usage[] =
	"usage: srtctl resume campaign NAME [--db PATH]\n"
	"\n"
	"Resume a suspended campaign: its state goes back to Running (a CampaignResumed\n"
	"event records it) and the controller's next pass starts its pending\n"
	"deployments. If a stop reason still holds (policy.maxFailedPoints reached,\n"
	"budget.nodeHours spent) the controller records it again (Stopped,\n"
	"OutOfBudget). campaign/NAME is accepted too.\n"
	"\n"
	"Options:\n"
	"      --db PATH   state database (default: $SRTCTL_DB, else\n"
	"                  $XDG_STATE_HOME/srtctl/srtctl.db)\n"
	"  -h, --help      show this help\n"
	"\n"
	"Exit codes: 0 resumed, 1 no such campaign, deleted, or not suspended, 2 usage or\n"
	"I/O.\n"
	"\n"
	"Examples:\n"
	"  srtctl resume campaign qwen3-sweep\n";

/* Parse `verb`'s options; *name and *db_arg filled.  -1 help printed, else an exit code. */
static int parse(const char *verb, const char *usage, int argc, char **argv, const char **name,
		 const char **db_arg)
{
	enum {
		OPT_DB = 256
	};
	static const struct option opts[] = {
		{ "db", required_argument, NULL, OPT_DB },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_DB:
			*db_arg = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return -1;
		default:
			return srt_cli_usage_error(verb, "unknown option");
		}
	}
	*name = srt_cli_campaign_arg(verb, argc, argv, optind);
	return *name ? SRT_EXIT_OK : SRT_EXIT_USAGE;
}

static int run(const char *verb, const char *usage, bool suspend, int argc, char **argv)
{
	struct srt_store *store = NULL;
	struct srt_error err;
	const char *name = NULL, *db_arg = NULL;
	char state[32] = "", *db;
	int rc, o;

	rc = parse(verb, usage, argc, argv, &name, &db_arg);
	if (rc != SRT_EXIT_OK)
		return rc < 0 ? SRT_EXIT_OK : rc;
	db = srt_cli_db_path(db_arg);
	o = srt_cli_db_open(verb, db, 0, &store);
	if (o != 0) {
		if (o > 0) {
			fprintf(stderr, "srtctl %s: campaign '%s' not found\n", verb, name);
			srt_cli_db_missing(verb, db);
		}
		free(db);
		return o > 0 ? SRT_EXIT_INVALID : SRT_EXIT_USAGE;
	}
	o = suspend ? srt_store_campaign_suspend(store, name, state, sizeof(state), &err) :
		      srt_store_campaign_resume(store, name, state, sizeof(state), &err);
	if (o == SRT_STORE_NO_CAMPAIGN) {
		fprintf(stderr, "srtctl %s: %s\n", verb, err.msg);
		rc = SRT_EXIT_INVALID;
	} else if (o < 0) {
		fprintf(stderr, "srtctl %s: %s; nothing was changed\n", verb, err.msg);
		rc = SRT_EXIT_USAGE;
	} else if (suspend && o == 0) {
		printf("campaign/%s is already suspended; `srtctl resume campaign %s` lets it go "
		       "on\n",
		       name, name);
	} else if (suspend) {
		printf("campaign/%s suspended (was %s): no new deployment starts; the running "
		       "ones finish their points. `srtctl resume campaign %s` lets it go on\n",
		       name, state, name);
	} else if (o == 0) {
		fprintf(stderr,
			"srtctl resume: campaign '%s' is not suspended (it is %s); nothing to "
			"resume\n",
			name, state);
		rc = SRT_EXIT_INVALID;
	} else {
		printf("campaign/%s resumed: the controller starts its pending deployments in its "
		       "next pass (and stops it again if maxFailedPoints or budget.nodeHours "
		       "still holds)\n",
		       name);
	}
	fflush(stdout);
	if (o == 1)
		srt_cli_controller_note(db);
	srt_store_close(store);
	free(db);
	return rc;
}

int srt_cmd_suspend(int argc, char **argv)
{
	return run("suspend", suspend_usage, true, argc, argv);
}

int srt_cmd_resume(int argc, char **argv)
{
	return run("resume", resume_usage, false, argc, argv);
}
