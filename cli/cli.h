/*
 * cli/cli.h: the verbs of the srtctl command line.
 *
 * Each verb lives in cli/cmd_<verb>.c and has the signature of main().
 * Exit codes: 0 ok; 1 the input is invalid or the check failed; 2 usage or
 * I/O error.  Results go to stdout, errors and warnings to stderr.
 */
#ifndef SRT_CLI_CLI_H
#define SRT_CLI_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "recipe/compile.h"

#define SRT_EXIT_OK 0
#define SRT_EXIT_INVALID 1
#define SRT_EXIT_USAGE 2

enum srt_output { SRT_OUT_TEXT, SRT_OUT_JSON, SRT_OUT_YAML, SRT_OUT_WIDE };

int srt_cmd_validate(int argc, char **argv);
int srt_cmd_dryrun(int argc, char **argv);
int srt_cmd_migrate(int argc, char **argv);
int srt_cmd_version(int argc, char **argv);

/* Shared helpers (cli/load.c). */

/* Parse "-o FORMAT"; returns 0, or -1 after printing a usage error. */
int srt_cli_parse_output(const char *verb, const char *arg, enum srt_output *out,
			 bool allow_yaml);

/* Print a usage error for `verb` ("srtctl VERB: MSG; see 'srtctl VERB --help'"). */
int srt_cli_usage_error(const char *verb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Load the cluster config ($SRTSLURM_CONFIG, then ./srtslurm.yaml) into *c.
 * Prints the errors and returns -1 when a config exists but is invalid.
 */
int srt_cli_load_cluster(struct srt_cluster *c);

/*
 * Expand FILE|DIR into the recipe files it names: a file as itself, a
 * directory as its *.yaml / *.yml files (sorted, not recursive).  *files is
 * malloc'd, each entry too; free with srt_cli_free_files().  Returns 0, or -1
 * after printing an error (missing path, empty directory).
 */
int srt_cli_expand_path(const char *verb, const char *path, char ***files, size_t *n);
void srt_cli_free_files(char **files, size_t n);

#endif
