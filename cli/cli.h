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
#include <stdint.h>
#include <stdio.h>

#include "recipe/campaign.h"
#include "recipe/compile.h"
#include "recipe/script.h"
#include "slurm/slurm.h"

#define SRT_EXIT_OK 0
#define SRT_EXIT_INVALID 1
#define SRT_EXIT_USAGE 2

enum srt_output {
	SRT_OUT_TEXT,
	SRT_OUT_JSON,
	SRT_OUT_YAML,
	SRT_OUT_WIDE,
	SRT_OUT_CSV /* `get points` only */
};

int srt_cmd_validate(int argc, char **argv);
int srt_cmd_dryrun(int argc, char **argv);
int srt_cmd_render(int argc, char **argv);
int srt_cmd_migrate(int argc, char **argv);
int srt_cmd_version(int argc, char **argv);
int srt_cmd_apply(int argc, char **argv);
int srt_cmd_diff(int argc, char **argv);
int srt_cmd_get(int argc, char **argv);
int srt_cmd_describe(int argc, char **argv);
int srt_cmd_events(int argc, char **argv);
int srt_cmd_delete(int argc, char **argv);
/* Not listed in the main help: started by the batch script (cli/cmd_agent.c). */
int srt_cmd_agent(int argc, char **argv);
int srt_cmd_doctor(int argc, char **argv);
int srt_cmd_controller(int argc, char **argv);
int srt_cmd_wait(int argc, char **argv);
int srt_cmd_suspend(int argc, char **argv);
int srt_cmd_compare(int argc, char **argv);
int srt_cmd_report(int argc, char **argv);
int srt_cmd_resume(int argc, char **argv);
int srt_cmd_retry(int argc, char **argv);

/*
 * Follow the current runs of recipes `names` until Ready (or ended, with
 * for_done), printing their story (cli/cmd_wait.c).  `timeout` is a
 * duration or NULL (30m).  Returns an exit code.
 */
int srt_cli_wait(const char *db, char *const *names, size_t n, bool for_done, const char *timeout);

/*
 * Follow campaign `name` until it is Done (cli/cmd_wait.c), with a live
 * progress line on a TTY.  `timeout` is a duration or NULL (no limit).
 * Returns an exit code.
 */
int srt_cli_wait_campaign(const char *db, const char *name, const char *timeout);

/* A campaign's progress (cli/progress.c). */

struct srt_campaign_row;
struct srt_store;
struct srt_error;

struct srt_cli_progress {
	double node_hours;	     /* used by the runs of its current deployments */
	int64_t eta_ms;		     /* -1: unknown, or it will not finish by itself */
	int64_t parallel;	     /* deployments with work left that may run at once */
	int64_t max_concurrent_jobs; /* its policy (1 when the spec does not parse) */
	int64_t max_failed_points;   /* 0: no limit */
	double budget_node_hours;    /* 0: no budget */
};

/*
 * The time left, in ms: the mean duration of the timed_points finished
 * points (timed_ms in all) x the `remaining` points / `parallel` (at least
 * 1).  0 when nothing remains; -1 (unknown) before the first point finished.
 * Pure.
 */
int64_t srt_cli_eta_ms(int64_t timed_points, int64_t timed_ms, int64_t remaining, int64_t parallel);
/* Suspended, Stopped or OutOfBudget: it starts nothing new by itself. */
bool srt_cli_campaign_halted(const char *state);
/*
 * Fill out[0..n) for rows[0..n) from one read of the controller's view of
 * every campaign (srt_store_campaign_world()).  0, or -1 with err set.
 */
int srt_cli_progress(struct srt_store *s, const struct srt_campaign_row *rows, size_t n,
		     struct srt_cli_progress *out, struct srt_error *err);
/* The ETA for a table: "12m", "unknown", the halted state, or "deleted".  Returns buf. */
const char *srt_cli_eta_text(const struct srt_campaign_row *r, const struct srt_cli_progress *p,
			     char *buf, size_t n);

/*
 * The campaign named by argv[first..argc): "campaign NAME" or
 * "campaign/NAME", nothing else.  NULL after printing a usage error for `verb`.
 */
const char *srt_cli_campaign_arg(const char *verb, int argc, char **argv, int first);

/* Shared helpers (cli/load.c). */

/* Parse "-o FORMAT"; returns 0, or -1 after printing a usage error. */
int srt_cli_parse_output(const char *verb, const char *arg, enum srt_output *out, bool allow_yaml);

/* Print a usage error for `verb` ("srtctl VERB: MSG; see 'srtctl VERB --help'"). */
int srt_cli_usage_error(const char *verb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Load the cluster config ($SRTSLURM_CONFIG, then ./srtslurm.yaml) into *c
 * for `verb`, printing its warnings.  Returns SRT_EXIT_OK; SRT_EXIT_INVALID
 * when the config is not valid; SRT_EXIT_USAGE when it cannot be read (it
 * does not exist, no permission, a directory: an I/O error), after printing
 * why.  Without `required` (migrate, validate: they do not need the cluster),
 * both are printed as warnings, *c is left at the built-in defaults and the
 * result is SRT_EXIT_OK.  Release *c with srt_cluster_release() (after a
 * failure it holds the built-in defaults, and releasing it is harmless).
 */
int srt_cli_load_cluster(const char *verb, struct srt_cluster *c, bool required);
/*
 * getenv(), as srt_cluster.env: the verbs that read a user's recipe resolve
 * srt-slurm's $VARs in it from srtctl's environment (recipe/envvars.h).
 */
const char *srt_cli_getenv(const char *name);
/* srt_cli_load_cluster() of the file `path` (`dry-run --cluster-config`); NULL: as above. */
int srt_cli_load_cluster_at(const char *verb, const char *path, struct srt_cluster *c,
			    bool required);

/* `path` made absolute against the working directory, without trailing '/'; NULL after printing why. */
char *srt_cli_absolute(const char *verb, const char *path);

/*
 * The directory under which run directories go: the cluster's
 * runtime.log_root, made absolute against the working directory when it is
 * relative (what the controller uses, so dry-run and render name the same
 * run directory).  Returns a malloc'd path, or NULL after printing why.
 */
char *srt_cli_run_root(const char *verb, const struct srt_cluster *c);

/*
 * A recipe's run as the controller would submit it: the run's name
 * (job_name, else "<recipe>-1-1", the first run), its directory (run_dir,
 * else <run_root>/<run name>), the agent's output file, the job's
 * properties and job.sh.  dry-run shows it, render writes it.
 */
struct srt_cli_job {
	char *run_name, *run_dir, *output, *script;
	struct srt_job_props props;
};

/* Fill *j for plan p.  Returns 0, or -1 after adding errors to d.  Release either way. */
int srt_cli_job_make(struct srt_cli_job *j, const struct srt_plan *p,
		     const struct srt_cluster *cluster, const char *run_root, const char *run_dir,
		     const char *job_name, struct srt_diags *d);
void srt_cli_job_release(struct srt_cli_job *j);

/*
 * Copy into `out` the warnings of `d` (a file's compilation) that concern
 * the recipe from `file` (NULL: all): a variant file's warnings concern
 * every variant, and each variant adds its own.
 */
void srt_cli_recipe_warnings(const struct srt_diags *d, const char *file, struct srt_diags *out);

/*
 * The slurmrestd client settings (cli/cmd_doctor.c), strongest first: the
 * flags (NULL when not given), $SRTCTL_SLURMRESTD_URL, $SLURM_JWT and
 * $SRTCTL_SLURMRESTD_CA_FILE, then the slurmrestd section of `c`.  The
 * strings are borrowed from the flags, the environment and `c`; *_origin
 * say where each came from (NULL: not set).  Pass out->cfg to srt_slurm_new().
 */
struct srt_cli_slurm {
	struct srt_slurm_config cfg;
	const char *url_origin; /* "--url", "$SRTCTL_SLURMRESTD_URL", "slurmrestd.url" */
	const char *api_origin; /* "--api-version", "slurmrestd.api_version" */
};
void srt_cli_slurm_config(struct srt_cli_slurm *out, const struct srt_cluster *c,
			  const char *url_arg, const char *api_arg);

/* How many directory levels srt_cli_expand_path() walks below -f DIR. */
#define SRT_CLI_MAX_DEPTH 32

/*
 * Expand FILE|DIR into the recipe files it names: a file as itself, a
 * directory as every *.yaml / *.yml file in it and below it, as srt-slurm's
 * `apply -f DIR` does.  The order is deterministic: each directory's entries
 * sorted by name (strcmp), a subdirectory's files where its name sorts.
 * Hidden files and directories (a leading '.') are skipped; symlinks are
 * followed, but one that leads back into a directory being walked is
 * skipped with a warning; a tree deeper than SRT_CLI_MAX_DEPTH levels is an
 * error.  *files is malloc'd, each entry too; free with srt_cli_free_files().
 * Returns 0, or -1 after printing an error (missing path, unreadable or too
 * deep directory, no recipe file found).
 */
int srt_cli_expand_path(const char *verb, const char *path, char ***files, size_t *n);
/*
 * srt_cli_expand_path(), or srt-slurm's `FILE:SELECTOR` (apply, dry-run,
 * render, validate, diff): when `path` names nothing and the text before its
 * last ':' is a regular file, *files holds that file and *selector (malloc'd)
 * the variant selector after the ':' (recipe/variants.h); else *selector is
 * NULL.
 */
int srt_cli_expand_path_sel(const char *verb, const char *path, char ***files, size_t *n,
			    char **selector);
void srt_cli_free_files(char **files, size_t n);

/* Recipes as they go into the state database (cli/specs.c). */

struct srt_cli_spec {
	char *name;   /* the recipe's name */
	char *file;   /* the path as given ("-" for stdin) */
	char *source; /* absolute path, or "-" for stdin */
	char *spec;   /* canonical JSON (recipe/canon.h) */
	char *yaml;   /* the file's text (shared by the variants of one file) */
};

/*
 * A campaign as it goes into the state database: its document, its template
 * (the campaign's own document for an inline template) and its expansion.
 */
struct srt_cli_campaign {
	char *name;
	char *file;		     /* the path as given ("-" for stdin) */
	char *source;		     /* absolute path, or "-" for stdin */
	char *yaml;		     /* the file's text (owned by texts) */
	struct srt_ydoc *doc, *tdoc; /* tdoc: the template file's document, or NULL */
	struct srt_campaign *c;	     /* in doc's arena */
	struct srt_campaign_plan plan;
};

struct srt_cli_specs {
	struct srt_cli_spec *v;
	size_t n;
	struct srt_cli_campaign *campaigns;
	size_t ncampaigns;
	char **texts; /* owns every ->yaml */
	size_t ntexts;
};

/*
 * Read and compile every FILE|DIR in paths[0..npaths) (stdin at most once),
 * printing diagnostics to stderr, and collect the canonical spec of every
 * recipe (a variant file gives several).  A document with `kind: Campaign`
 * is parsed and expanded into out->campaigns instead (its template file read
 * relative to it).  Two recipes (or campaigns) with one name are an error.  Returns SRT_EXIT_OK; SRT_EXIT_INVALID when a recipe is invalid;
 * SRT_EXIT_USAGE when a path cannot be read.  Release *out in every case.
 */
int srt_cli_specs_load(const char *verb, char *const *paths, size_t npaths,
		       struct srt_cli_specs *out);
void srt_cli_specs_release(struct srt_cli_specs *s);

/* What srt_cli_campaign_check() found in a campaign file (release it). */
struct srt_cli_campaign_check {
	char *name; /* NULL when it has errors */
	size_t ndeployments, npoints, nerrors, nwarnings;
	char **specs; /* each deployment's child recipe, canonical JSON (ndeployments) */
};
void srt_cli_campaign_check_release(struct srt_cli_campaign_check *c);

/*
 * Does `file` hold a campaign (kind: Campaign)?  Then parse and expand it
 * as apply does, print its diagnostics to stderr, fill *out and return 1.
 * 0 when it holds no campaign (or is "-" or unreadable: the recipe compiler
 * reads it and says so); nothing is printed then.
 */
int srt_cli_campaign_check(const char *verb, const char *file, const struct srt_cluster *cluster,
			   struct srt_cli_campaign_check *out);

/* The state database (cli/db.c). */

struct srt_store;

/* The database path: --db (may be NULL), else $SRTCTL_DB, else the XDG default.  Caller frees. */
char *srt_cli_db_path(const char *db_arg);

/*
 * Open the database at `path` for `verb` (flags as for srt_store_open()).
 * Returns 0; 1 when the file does not exist and `flags` lacks
 * SRT_STORE_CREATE (nothing printed: each verb says what that means for
 * it); -1 after printing "srtctl VERB: <error>".
 */
int srt_cli_db_open(const char *verb, const char *path, int flags, struct srt_store **out);

/* Print "srtctl VERB: no state database at PATH yet; `srtctl apply -f RECIPE` creates it". */
void srt_cli_db_missing(const char *verb, const char *path);

/* When no controller holds the lock of `path`, print one note to stderr saying how to start one. */
void srt_cli_controller_note(const char *path);

/* --watch (cli/watch.c). */

struct srt_watch {
	int ifd;	  /* inotify fd on the database's directory, or -1 */
	char *base;	  /* the database's file name */
	int64_t deadline; /* monotonic ms, 0 = none */
	int64_t counter;  /* srt_store_change_counter() when last woken */
};

/*
 * Start watching the database at `path`: SIGINT and SIGTERM end the watch
 * instead of the process, and the watch ends by itself after `timeout`
 * (a duration; NULL for $SRTCTL_WATCH_TIMEOUT, else never).  Returns 0, or
 * -1 after printing a usage error for `verb` (bad timeout).
 */
int srt_watch_init(struct srt_watch *w, const char *verb, const char *path, const char *timeout,
		   struct srt_store *s);
/*
 * Block until the database may have changed (true) or the watch is over
 * (false: a signal, or the timeout).  Sleeps on inotify events for the
 * database and its -wal file, checking srt_store_change_counter(), and
 * re-checks every two seconds for filesystems without inotify.
 */
bool srt_watch_wait(struct srt_watch *w, struct srt_store *s);
void srt_watch_release(struct srt_watch *w);

#endif
