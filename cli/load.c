/* cli/load.c: helpers shared by the verbs (paths, cluster config, output flags). */
#include "cli/cli.h"
#include "recipe/script.h"
#include "store/store.h"
#include "util/buf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int srt_cli_parse_output(const char *verb, const char *arg, enum srt_output *out, bool allow_yaml)
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

/*
 * Can the cluster config at `path` be read at all?  A file that cannot be
 * opened (missing, no permission) or is a directory is an I/O error, not an
 * invalid config.  Returns 0, or -1 after printing why (as a warning without
 * `required`).
 */
static int cluster_readable(const char *verb, const char *path, bool required)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), e = 0;

	if (fd < 0)
		e = errno;
	else if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
		e = EISDIR;
	if (fd >= 0)
		close(fd);
	if (!e)
		return 0;
	fprintf(stderr, "srtctl %s: %scannot read the cluster config '%s': %s; %s\n", verb,
		required ? "" : "warning: ", path, strerror(e),
		required ? "fix it or point $SRTSLURM_CONFIG at another file" :
			   "going on with the built-in defaults ('srtctl dry-run', 'apply' and "
			   "'controller' refuse it until it is fixed)");
	return -1;
}

int srt_cli_load_cluster_at(const char *verb, const char *path, struct srt_cluster *c,
			    bool required)
{
	const char *env = getenv("SRTSLURM_CONFIG");
	struct srt_diags d;
	struct stat st;
	int rc;

	if (!path)
		path = env && *env ? env : stat("srtslurm.yaml", &st) == 0 ? "srtslurm.yaml" : NULL;
	if (path && cluster_readable(verb, path, required) != 0) {
		srt_cluster_defaults(c);
		return required ? SRT_EXIT_USAGE : SRT_EXIT_OK;
	}
	srt_diags_init(&d);
	rc = srt_cluster_load(c, path, &d);
	if (rc != 0 && !required) {
		/* This verb does not need the cluster: say what is wrong, then go on. */
		for (size_t i = 0; i < d.n; i++)
			d.items[i].level = SRT_DIAG_WARNING;
		srt_diags_print(&d, stderr);
		fprintf(stderr,
			"srtctl %s: warning: the cluster config '%s' is not usable (see above); "
			"going on with the built-in defaults ('srtctl dry-run', 'apply' and "
			"'controller' refuse it until it is fixed)\n",
			verb, path);
		srt_cluster_defaults(c);
		rc = 0;
	} else {
		srt_diags_print(&d, stderr);
		if (rc != 0)
			fprintf(stderr,
				"srtctl %s: the cluster config '%s' is not usable (see above); fix "
				"it or point $SRTSLURM_CONFIG at another file\n",
				verb, path);
	}
	srt_diags_release(&d);
	return rc ? SRT_EXIT_INVALID : SRT_EXIT_OK;
}

const char *srt_cli_getenv(const char *name)
{
	return getenv(name);
}

int srt_cli_load_cluster(const char *verb, struct srt_cluster *c, bool required)
{
	return srt_cli_load_cluster_at(verb, NULL, c, required);
}

char *srt_cli_absolute(const char *verb, const char *path)
{
	char cwd[4096];
	char *abs;
	size_t n;

	if (path[0] == '/') {
		abs = srt_xstrdup(path);
	} else {
		if (!getcwd(cwd, sizeof(cwd))) {
			fprintf(stderr, "srtctl %s: cannot read the working directory: %s\n", verb,
				strerror(errno));
			return NULL;
		}
		abs = srt_xasprintf("%s/%s", cwd, path);
	}
	n = strlen(abs);
	while (n > 1 && abs[n - 1] == '/')
		abs[--n] = '\0';
	return abs;
}

char *srt_cli_run_root(const char *verb, const struct srt_cluster *c)
{
	return srt_cli_absolute(verb, c->log_root);
}

int srt_cli_job_make(struct srt_cli_job *j, const struct srt_plan *p,
		     const struct srt_cluster *cluster, const char *run_root, const char *run_dir,
		     const char *job_name, struct srt_diags *d)
{
	const char *recipe = p->recipe->name ? p->recipe->name : "recipe";

	memset(j, 0, sizeof(*j));
	j->run_name = job_name ? srt_xstrdup(job_name) : srt_store_run_name(recipe, 1, 1);
	j->run_dir = run_dir ? srt_xstrdup(run_dir) : srt_xasprintf("%s/%s", run_root, j->run_name);
	j->output = srt_xasprintf("%s/%s", j->run_dir, SRT_SCRIPT_AGENT_OUT);
	srt_script_job_props(p, &j->props);
	j->script = srt_script_render_agent(p,
					    &(struct srt_script_agent_opts){
						    .job_name = j->run_name,
						    .run_dir = j->run_dir,
						    .srtctl = cluster->commands[SRT_CMD_SRTCTL].v,
						    .nsrtctl = cluster->commands[SRT_CMD_SRTCTL].n,
					    },
					    d);
	return j->script ? 0 : -1;
}

void srt_cli_job_release(struct srt_cli_job *j)
{
	free(j->run_name);
	free(j->run_dir);
	free(j->output);
	free(j->script);
	srt_script_job_props_release(&j->props);
	memset(j, 0, sizeof(*j));
}

void srt_cli_recipe_warnings(const struct srt_diags *d, const char *file, struct srt_diags *out)
{
	for (size_t k = 0; k < d->n; k++)
		if (d->items[k].level == SRT_DIAG_WARNING &&
		    (!d->items[k].file || !file || !strcmp(d->items[k].file, file)))
			srt_diags_add(out, SRT_DIAG_WARNING, d->items[k].file, d->items[k].line,
				      d->items[k].col, d->items[k].path, "%s", d->items[k].msg);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_yaml_name(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && !strcmp(name + n - 5, ".yaml")) ||
	       (n > 4 && !strcmp(name + n - 4, ".yml"));
}

/* A directory being walked: (device, inode), to refuse a symlink loop. */
struct dir_id {
	dev_t dev;
	ino_t ino;
};

struct walk {
	const char *verb;
	const char *root;
	char **files;
	size_t n, cap;
	struct dir_id stack[SRT_CLI_MAX_DEPTH + 1]; /* the directories above this one */
	size_t depth;
};

static void walk_push(struct walk *w, char *path)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 16;
		w->files = srt_xrealloc(w->files, w->cap * sizeof(*w->files));
	}
	w->files[w->n++] = path;
}

/*
 * Collect the recipe files under `dir` (already stat'ed as st), its entries
 * in sorted order, directories walked where they sort.  Returns 0, or -1
 * after printing an error (unreadable directory, too deep).
 */
static int walk_dir(struct walk *w, const char *dir, const struct stat *st)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	for (size_t i = 0; i < w->depth; i++) {
		if (w->stack[i].dev == st->st_dev && w->stack[i].ino == st->st_ino) {
			fprintf(stderr,
				"srtctl %s: warning: skipping '%s': it leads back into a directory "
				"already being walked (a symlink loop)\n",
				w->verb, dir);
			return 0;
		}
	}
	if (w->depth >= SRT_CLI_MAX_DEPTH) {
		fprintf(stderr,
			"srtctl %s: '%s' is more than %d directories below '%s'; srtctl walks at "
			"most %d levels (pass a deeper directory with -f, or flatten the tree)\n",
			w->verb, dir, SRT_CLI_MAX_DEPTH, w->root, SRT_CLI_MAX_DEPTH);
		return -1;
	}
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "srtctl %s: %s: %s\n", w->verb, dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.') /* ".", ".." and hidden files and directories */
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			names = srt_xrealloc(names, cap * sizeof(*names));
		}
		names[n++] = srt_xstrdup(de->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_str);
	w->stack[w->depth].dev = st->st_dev;
	w->stack[w->depth].ino = st->st_ino;
	w->depth++;
	for (size_t i = 0; i < n && rc == 0; i++) {
		char *path = srt_xasprintf("%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/",
					   names[i]);
		struct stat est;

		if (stat(path, &est) != 0) {
			/* A dangling symlink: not a recipe, say so and go on. */
			fprintf(stderr, "srtctl %s: warning: skipping '%s': %s\n", w->verb, path,
				strerror(errno));
			free(path);
		} else if (S_ISDIR(est.st_mode)) {
			rc = walk_dir(w, path, &est);
			free(path);
		} else if (S_ISREG(est.st_mode) && is_yaml_name(names[i])) {
			walk_push(w, path);
		} else {
			free(path);
		}
	}
	w->depth--;
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int srt_cli_expand_path(const char *verb, const char *path, char ***files, size_t *n)
{
	struct walk w = { .verb = verb, .root = path };
	struct stat st;

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
	if (walk_dir(&w, path, &st) != 0) {
		srt_cli_free_files(w.files, w.n);
		return -1;
	}
	if (!w.n) {
		fprintf(stderr,
			"srtctl %s: %s: no *.yaml or *.yml files in this directory or below it\n",
			verb, path);
		free(w.files);
		return -1;
	}
	*files = w.files;
	*n = w.n;
	return 0;
}

int srt_cli_expand_path_sel(const char *verb, const char *path, char ***files, size_t *n,
			    char **selector)
{
	struct stat st;
	const char *colon = strrchr(path, ':');

	*selector = NULL;
	if (strcmp(path, "-") && colon && colon[1] && !strchr(colon, '/') && stat(path, &st) != 0 &&
	    errno == ENOENT) {
		char *file = srt_xstrndup(path, (size_t)(colon - path));

		if (stat(file, &st) == 0 && S_ISREG(st.st_mode)) {
			*files = srt_xcalloc(1, sizeof(**files));
			(*files)[0] = file;
			*n = 1;
			*selector = srt_xstrdup(colon + 1);
			return 0;
		}
		free(file);
	}
	return srt_cli_expand_path(verb, path, files, n);
}

void srt_cli_free_files(char **files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	free(files);
}
