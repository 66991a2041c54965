/* cli/cmd_apply.c: `srtctl apply -f FILE|DIR|- [--dry-run] [--db PATH]`. */
#include "cli/cli.h"
#include "store/store.h"
#include "util/buf.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: srtctl apply -f FILE|DIR|- [-f ...] [--dry-run] [--wait [--timeout D]] [--db PATH]\n"
	"\n"
	"Record recipes as desired state in the state database; a running controller\n"
	"(srtctl controller) then makes SLURM match it. Every recipe is validated first:\n"
	"if any file has an error, nothing is written (a directory is all or nothing).\n"
	"For each recipe one line says what happened:\n"
	"  recipe/NAME created       first apply (generation 1)\n"
	"  recipe/NAME configured    the spec changed (generation + 1), or it was deleted\n"
	"  recipe/NAME unchanged     same spec (key order, comments and layout do not count)\n"
	"\n"
	"Options:\n"
	"  -f, --filename PATH   recipe file, directory (every *.yaml/*.yml below it), or -\n"
	"                        for stdin (repeatable)\n"
	"      --dry-run         say what would change; write nothing\n"
	"      --wait            then follow the recipes' runs until Ready (srtctl wait)\n"
	"      --timeout D       with --wait: give up after D (default 30m)\n"
	"      --db PATH         state database (default: $SRTCTL_DB, else\n"
	"                        $XDG_STATE_HOME/srtctl/srtctl.db)\n"
	"  -h, --help            show this help\n"
	"\n"
	"Exit codes: 0 applied (with --wait: and Ready), 1 a recipe is invalid (nothing\n"
	"written) or, with --wait, a run failed or timed out, 2 usage or I/O.\n"
	"\n"
	"Examples:\n"
	"  srtctl apply -f recipes/qwen3-mooncake.yaml\n"
	"  srtctl apply -f recipes/ --dry-run\n"
	"  srtctl migrate -f old.yaml | srtctl apply -f -\n";

static const char *result_name(enum srt_apply_result r)
{
	switch (r) {
	case SRT_APPLY_CREATED:
		return "created";
	case SRT_APPLY_CONFIGURED:
		return "configured";
	case SRT_APPLY_UNCHANGED:
		break;
	}
	return "unchanged";
}

/* What applying would do, from the database as it is; store may be NULL (no database yet). */
static int predict(struct srt_store *store, const struct srt_cli_spec *sp,
		   enum srt_apply_result *result)
{
	struct srt_recipe_row row;
	struct srt_error err;
	int found;

	*result = SRT_APPLY_CREATED;
	if (!store)
		return 0;
	memset(&row, 0, sizeof(row));
	found = srt_store_recipe_get(store, sp->name, &row, &err);
	if (found < 0) {
		fprintf(stderr, "srtctl apply: %s\n", err.msg);
		return -1;
	}
	if (found)
		*result = row.deleted_at || strcmp(row.spec, sp->spec) ? SRT_APPLY_CONFIGURED :
									 SRT_APPLY_UNCHANGED;
	srt_recipe_row_release(&row);
	return 0;
}

static int dry_run(const char *db, const struct srt_cli_specs *specs)
{
	struct srt_store *store = NULL;
	enum srt_apply_result *results;
	int rc = SRT_EXIT_OK;

	if (srt_cli_db_open("apply", db, SRT_STORE_READONLY, &store) < 0)
		return SRT_EXIT_USAGE;
	results = srt_xcalloc(specs->n ? specs->n : 1, sizeof(*results));
	for (size_t i = 0; i < specs->n; i++)
		if (predict(store, &specs->v[i], &results[i]) != 0) {
			rc = SRT_EXIT_USAGE;
			goto out;
		}
	for (size_t i = 0; i < specs->n; i++)
		printf("recipe/%s %s (dry run)\n", specs->v[i].name, result_name(results[i]));
out:
	free(results);
	if (store)
		srt_store_close(store);
	return rc;
}

static int apply(const char *db, const struct srt_cli_specs *specs)
{
	struct srt_store *store = NULL;
	enum srt_apply_result *results = NULL;
	struct srt_error err;
	int rc = SRT_EXIT_OK;

	if (srt_cli_db_open("apply", db, SRT_STORE_CREATE, &store) != 0)
		return SRT_EXIT_USAGE;
	results = srt_xcalloc(specs->n ? specs->n : 1, sizeof(*results));
	if (srt_store_begin(store, &err) != 0)
		goto fail;
	for (size_t i = 0; i < specs->n; i++) {
		const struct srt_cli_spec *sp = &specs->v[i];
		int64_t gen = 0;

		if (srt_store_recipe_apply(store, sp->name, sp->spec, sp->source, sp->yaml,
					   &results[i], &gen, &err) != 0) {
			srt_store_rollback(store);
			srt_error_prefix(&err, "recipe '%s' (%s)", sp->name, sp->file);
			goto fail;
		}
	}
	if (srt_store_commit(store, &err) != 0) {
		srt_store_rollback(store);
		goto fail;
	}
	for (size_t i = 0; i < specs->n; i++)
		printf("recipe/%s %s\n", specs->v[i].name, result_name(results[i]));
	fflush(stdout);
	srt_cli_controller_note(db);
	goto out;
fail:
	fprintf(stderr, "srtctl apply: %s; nothing was applied\n", err.msg);
	rc = SRT_EXIT_USAGE;
out:
	free(results);
	if (store)
		srt_store_close(store);
	return rc;
}

int srt_cmd_apply(int argc, char **argv)
{
	enum {
		OPT_DRY_RUN = 256,
		OPT_DB,
		OPT_WAIT,
		OPT_TIMEOUT
	};
	static const struct option opts[] = {
		{ "filename", required_argument, NULL, 'f' },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "db", required_argument, NULL, OPT_DB },
		{ "wait", no_argument, NULL, OPT_WAIT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct srt_cli_specs specs = { 0 };
	char **paths = NULL, *db = NULL;
	const char *db_arg = NULL, *timeout = NULL;
	size_t npaths = 0;
	bool dry = false, wait = false;
	int c, rc = SRT_EXIT_OK;

	paths = srt_xcalloc((size_t)argc + 1, sizeof(*paths));
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			paths[npaths++] = optarg;
			break;
		case OPT_DRY_RUN:
			dry = true;
			break;
		case OPT_DB:
			db_arg = optarg;
			break;
		case OPT_WAIT:
			wait = true;
			break;
		case OPT_TIMEOUT:
			timeout = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			goto out;
		default:
			rc = srt_cli_usage_error("apply", "unknown option");
			goto out;
		}
	}
	if (optind < argc) {
		rc = srt_cli_usage_error("apply", "unexpected argument '%s' (use -f FILE)",
					 argv[optind]);
		goto out;
	}
	if (!npaths) {
		rc = srt_cli_usage_error("apply", "no recipe given; use -f FILE|DIR|-");
		goto out;
	}
	rc = srt_cli_specs_load("apply", paths, npaths, &specs);
	if (rc != SRT_EXIT_OK) {
		if (rc == SRT_EXIT_INVALID)
			fprintf(stderr,
				"srtctl apply: fix the errors above; nothing was applied\n");
		goto out;
	}
	db = srt_cli_db_path(db_arg);
	rc = dry ? dry_run(db, &specs) : apply(db, &specs);
	if (rc == SRT_EXIT_OK && wait && !dry) {
		char **names = srt_xcalloc(specs.n ? specs.n : 1, sizeof(*names));

		for (size_t i = 0; i < specs.n; i++)
			names[i] = (char *)specs.v[i].name;
		rc = srt_cli_wait(db, names, specs.n, false, timeout);
		free(names);
	}
out:
	srt_cli_specs_release(&specs);
	free(db);
	free(paths);
	return rc;
}
