/* placeholder until the verb lands */
#include "cli/cli.h"

int srt_cmd_dryrun(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("srtctl: not implemented yet\n", stderr);
	return SRT_EXIT_USAGE;
}
