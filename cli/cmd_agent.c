/* cli/cmd_agent.c: `srtctl agent --run-dir DIR [--plan FILE]` (started by the batch script). */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "util/clock.h"

static const char usage_text[] =
	"usage: srtctl agent --run-dir DIR [--plan FILE] [--stop-timeout D] [--probe-timeout D]\n"
	"                    [--point-timeout D]\n"
	"\n"
	"The in-allocation supervisor. The batch script of a controller-submitted job runs it on\n"
	"the first node of the allocation; you do not normally start it yourself. It reads\n"
	"DIR/plan.json, resolves the nodes of the allocation ($SLURM_JOB_NODELIST) and their IPs,\n"
	"starts the mooncake master, stores, workers, frontend and benchmark as SLURM steps in\n"
	"order, gated on readiness, restarts them under their restart policy, and reports to\n"
	"DIR/status.json and DIR/events.jsonl. Process logs go to DIR/logs/.\n"
	"\n"
	"Options:\n"
	"  --run-dir DIR        the run directory (required)\n"
	"  --plan FILE          read the plan from FILE instead of DIR/plan.json\n"
	"  --stop-timeout D     per stop stage (workers, stores, master): SIGTERM, then SIGKILL\n"
	"                       after D (default 10s)\n"
	"  --probe-timeout D    the limit of one readiness or liveness probe (default 2s; a\n"
	"                       probe interval shorter than D is the limit instead)\n"
	"  --point-timeout D    the limit of one attempt of a campaign's load point (default:\n"
	"                       600s + (prompts + warmup) x (isl/1000 + osl x 0.2) s)\n"
	"  -h, --help           show this help\n"
	"\n"
	"Exit codes: the benchmark's status when the run ends with it; 1 the run failed (or\n"
	"could not start); 128+N stopped by signal N; 2 usage.\n"
	"See docs/agent.md.\n";

int srt_cmd_agent(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "run-dir", required_argument, NULL, 'd' },
		{ "plan", required_argument, NULL, 'p' },
		{ "stop-timeout", required_argument, NULL, 's' },
		{ "probe-timeout", required_argument, NULL, 't' },
		{ "point-timeout", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct srt_agent_opts o;
	struct srt_error err;
	int64_t ms;
	int c, code = 1;

	memset(&o, 0, sizeof(o));
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o.run_dir = optarg;
			break;
		case 'p':
			o.plan_file = optarg;
			break;
		case 's':
		case 't':
			if (srt_duration_parse(optarg, &ms) < 0 || ms <= 0 || ms > 3600000)
				return srt_cli_usage_error(
					"agent",
					"--%s '%s' is not a duration between 1ms "
					"and 1h (e.g. 10s)",
					c == 's' ? "stop-timeout" : "probe-timeout", optarg);
			*(c == 's' ? &o.stop_grace_ms : &o.probe_timeout_ms) = (int)ms;
			break;
		case 'T':
			if (srt_duration_parse(optarg, &ms) < 0 || ms <= 0 || ms > 7 * 86400000LL)
				return srt_cli_usage_error("agent",
							   "--point-timeout '%s' is not a duration "
							   "between 1ms and 7d (e.g. 30m)",
							   optarg);
			o.point_timeout_ms = ms;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return SRT_EXIT_OK;
		default:
			return srt_cli_usage_error("agent", "unknown option");
		}
	}
	if (optind < argc)
		return srt_cli_usage_error("agent", "unexpected argument '%s'", argv[optind]);
	if (!o.run_dir)
		return srt_cli_usage_error("agent", "no run directory given; use --run-dir DIR");
	srt_error_clear(&err);
	if (srt_agent_run(&o, &code, &err) < 0) {
		fprintf(stderr, "srtctl agent: %s\n", err.msg);
		return code ? code : 1;
	}
	return code;
}
