/* cli/load.c: helpers shared by the verbs (paths, cluster config, output flags). */
#include "cli/cli.h"
#include "util/buf.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int srt_cli_usage_error(const char *verb, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "srtctl %s: ", verb);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nRun 'srtctl %s --help' for usage.\n", verb);
	return SRT_EXIT_USAGE;
}

int srt_cli_parse_output(const char *verb, const char *arg, enum srt_output *out,
			 bool allow_yaml)
{
	if (!strcmp(arg, "json"))
		*out = SRT_OUT_JSON;
	else if (!strcmp(arg, "text"))
		*out = SRT_OUT_TEXT;
	else if (allow_yaml && !strcmp(arg, "yaml"))
		*out = SRT_OUT_YAML;
	else if (allow_yaml && !strcmp(arg, "wide"))
		*out = SRT_OUT_WIDE;
	else {
		srt_cli_usage_error(verb, "unknown output format '%s' (expected %s)", arg,
				    allow_yaml ? "text, wide, json or yaml" : "text or json");
		return -1;
	}
	return 0;
}

int srt_cli_load_cluster(struct srt_cluster *c)
{
	struct srt_diags d;
	int rc;

	srt_diags_init(&d);
	rc = srt_cluster_load(c, NULL, &d);
	srt_diags_print(&d, stderr);
	srt_diags_release(&d);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_yaml_name(const char *name)
{
	size_t n = strlen(name);

	if (name[0] == '.')
		return false;
	return (n > 5 && !strcmp(name + n - 5, ".yaml")) || (n > 4 && !strcmp(name + n - 4, ".yml"));
}

int srt_cli_expand_path(const char *verb, const char *path, char ***files, size_t *n)
{
	struct stat st;
	DIR *dir;
	struct dirent *de;
	size_t cap = 0;

	*files = NULL;
	*n = 0;
	if (!strcmp(path, "-")) {
		*files = srt_xcalloc(1, sizeof(**files));
		(*files)[(*n)++] = srt_xstrdup("-");
		return 0;
	}
	if (stat(path, &st) != 0) {
		fprintf(stderr, "srtctl %s: %s: %s\n", verb, path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		*files = srt_xcalloc(1, sizeof(**files));
		(*files)[(*n)++] = srt_xstrdup(path);
		return 0;
	}
	dir = opendir(path);
	if (!dir) {
		fprintf(stderr, "srtctl %s: %s: %s\n", verb, path, strerror(errno));
		return -1;
	}
	while ((de = readdir(dir))) {
		if (!is_yaml_name(de->d_name))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*files = srt_xrealloc(*files, cap * sizeof(**files));
		}
		(*files)[(*n)++] = srt_xasprintf("%s%s%s", path,
						 path[strlen(path) - 1] == '/' ? "" : "/",
						 de->d_name);
	}
	closedir(dir);
	if (!*n) {
		fprintf(stderr, "srtctl %s: %s: no *.yaml or *.yml files in this directory\n", verb,
			path);
		free(*files);
		*files = NULL;
		return -1;
	}
	qsort(*files, *n, sizeof(**files), cmp_str);
	return 0;
}

void srt_cli_free_files(char **files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	free(files);
}
