/* cli/cmd_version.c: `srtctl version`. */
#include "cli/cli.h"
#include "util/version_gen.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

int srt_cmd_version(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: srtctl version\n\nPrint srtctl's version and the libraries it uses.");
		return SRT_EXIT_OK;
	}
	if (argc > 1)
		return srt_cli_usage_error("version", "unexpected argument '%s'", argv[1]);
	printf("srtctl %s (libyaml %s, jansson %s)\n", SRT_VERSION, yaml_get_version_string(),
	       jansson_version_str());
	return SRT_EXIT_OK;
}
