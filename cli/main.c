/* cli/main.c: `srtctl VERB ...` dispatch and top-level help. */
#include "cli/cli.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct verb {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct verb verbs[] = {
	{ "validate", srt_cmd_validate, "check recipes (schema and cross-field rules)" },
	{ "dry-run", srt_cmd_dryrun, "show the job, job.sh and the plan the agent carries out" },
	{ "render", srt_cmd_render,
	  "write a run directory (plan.json, job.sh) to sbatch yourself" },
	{ "migrate", srt_cmd_migrate, "rewrite v1 recipes (backend:) into the v2 layout" },
	{ "apply", srt_cmd_apply, "record recipes as desired state in the state database" },
	{ "diff", srt_cmd_diff, "show how recipe files differ from what was applied" },
	{ "get", srt_cmd_get, "list recipes, runs, jobs, services, workers or campaigns" },
	{ "describe", srt_cmd_describe, "show one run, service or recipe in full, with events" },
	{ "events", srt_cmd_events, "show (or prune) the event history" },
	{ "delete", srt_cmd_delete, "mark a recipe deleted (its runs are stopped)" },
	{ "wait", srt_cmd_wait, "follow a recipe's run until Ready, or a campaign until Done" },
	{ "suspend", srt_cmd_suspend, "stop a campaign from starting new deployments" },
	{ "resume", srt_cmd_resume, "let a suspended campaign start deployments again" },
	{ "retry", srt_cmd_retry, "run a campaign's failed or invalid points again" },
	{ "report", srt_cmd_report, "write a campaign's results as one HTML file with charts" },
	{ "compare", srt_cmd_compare,
	  "compare two campaigns' results point by point (exit 1 on a regression)" },
	{ "controller", srt_cmd_controller, "run the reconcile loop (submits and follows runs)" },
	{ "doctor", srt_cmd_doctor,
	  "check the config, database, controller, slurmrestd, token, log root" },
	{ "version", srt_cmd_version, "print the version" },
	/* Hidden from the help (NULL summary): the batch script starts it. */
	{ "agent", srt_cmd_agent, NULL },
	{ NULL, NULL, NULL },
};

static void usage(FILE *out)
{
	fputs("usage: srtctl <command> [options]\n"
	      "\n"
	      "srtctl runs SGLang and vLLM prefill/decode disaggregation with Mooncake on SLURM\n"
	      "from declarative recipes.\n"
	      "\n"
	      "Commands:\n",
	      out);
	for (size_t i = 0; verbs[i].name; i++)
		if (verbs[i].summary)
			fprintf(out, "  %-10s %s\n", verbs[i].name, verbs[i].summary);
	fputs("\n"
	      "Run 'srtctl <command> --help' for a command's options.\n"
	      "Exit codes: 0 ok, 1 invalid input or failed check, 2 usage or I/O error.\n"
	      "Docs: docs/cli-reference.md and docs/recipe-reference.md.\n",
	      out);
}

/*
 * Every verb's results go to stdout through stdio: a write that failed (a
 * full disk, /dev/full, a pipe whose reader is gone with SIGPIPE ignored)
 * leaves the stream's error flag set or fails the last flush.  The output is
 * then not what the exit code would claim, so say so on stderr and exit 2
 * (an I/O error), whatever the verb decided.
 */
static int finish_stdout(const char *verb, int rc)
{
	bool failed = ferror(stdout) != 0;
	int e = 0;

	if (fflush(stdout) != 0) {
		failed = true;
		e = errno;
	}
	if (fclose(stdout) != 0 && !failed) {
		failed = true;
		e = errno;
	}
	if (!failed)
		return rc;
	fprintf(stderr,
		"srtctl %s: cannot write to standard output%s%s; the output is incomplete\n", verb,
		e ? ": " : "", e ? strerror(e) : "");
	return SRT_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const char *verb;

	if (argc < 2) {
		usage(stderr);
		return SRT_EXIT_USAGE;
	}
	verb = argv[1];
	if (!strcmp(verb, "--help") || !strcmp(verb, "-h") || !strcmp(verb, "help")) {
		usage(stdout);
		return finish_stdout("help", SRT_EXIT_OK);
	}
	if (!strcmp(verb, "--version"))
		return finish_stdout("version", srt_cmd_version(1, argv + 1));
	for (size_t i = 0; verbs[i].name; i++)
		if (!strcmp(verb, verbs[i].name))
			return finish_stdout(verb, verbs[i].fn(argc - 1, argv + 1));
	fprintf(stderr, "srtctl: '%s' is not a command; run 'srtctl --help' for the list\n", verb);
	return SRT_EXIT_USAGE;
}
