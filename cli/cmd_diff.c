/* cli/cmd_diff.c: `srtctl diff -f FILE|DIR [--db PATH]`: applied spec vs the file's. */
#include "cli/cli.h"
#include "recipe/canon.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/diff.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define DIFF_CONTEXT 3

static const char usage_text[] =
	"usage: srtctl diff -f FILE|DIR|- [-f ...] [--db PATH]\n"
	"\n"
	"Show how the recipes in FILE differ from what was last applied: a unified diff\n"
	"(3 lines of context) of the canonical specs, pretty-printed as JSON with sorted\n"
	"keys, so key order, comments and layout never show up as changes. A recipe that\n"
	"was never applied, or was deleted, is diffed against nothing. A campaign\n"
	"(kind: Campaign) is diffed the same way, its template file inlined.\n"
	"\n"
	"Options:\n"
	"  -f, --filename PATH   recipe file, directory, or - for stdin (repeatable);\n"
	"                        FILE:SELECTOR picks variants (see srtctl apply --help)\n"
	"      --db PATH         state database (default: $SRTCTL_DB, else\n"
	"                        $XDG_STATE_HOME/srtctl/srtctl.db)\n"
	"  -h, --help            show this help\n"
	"\n"
	"Exit codes: 0 no differences, 1 differences, 2 error (invalid recipe, usage, I/O).\n"
	"\n"
	"Examples:\n"
	"  srtctl diff -f recipes/qwen3-mooncake.yaml\n"
	"  srtctl diff -f recipes/ && echo up to date\n";

/* What was applied for `name` of `kind`: 1 (spec, generation, deleted_at set), 0 none, -1 error. */
static int applied(struct srt_store *store, const char *kind, const char *name, char **spec,
		   int64_t *generation, int64_t *deleted_at, struct srt_error *err)
{
	int found;

	*spec = NULL;
	if (!store)
		return 0;
	if (!strcmp(kind, "campaign")) {
		struct srt_campaign_row row;

		found = srt_store_campaign_get(store, name, &row, err);
		if (found > 0) {
			*spec = row.spec;
			row.spec = NULL;
			*generation = row.generation;
			*deleted_at = row.deleted_at;
		}
		srt_campaign_row_release(&row);
	} else {
		struct srt_recipe_row row;

		memset(&row, 0, sizeof(row));
		found = srt_store_recipe_get(store, name, &row, err);
		if (found > 0) {
			*spec = row.spec;
			row.spec = NULL;
			*generation = row.generation;
			*deleted_at = row.deleted_at;
		}
		srt_recipe_row_release(&row);
	}
	return found;
}

/*
 * Diff one recipe or campaign (its canonical spec `spec`, from `file`);
 * returns 0 equal, 1 different, -1 error (printed).
 */
static int diff_one(struct srt_store *store, const char *kind, const char *name, const char *file,
		    const char *spec)
{
	struct srt_error err;
	struct srt_buf out, label_a, label_b;
	char *mine = NULL, *theirs = NULL, *stored = NULL;
	int64_t generation = 0, deleted_at = 0;
	int found, rc = -1;

	srt_buf_init(&out);
	srt_buf_init(&label_a);
	srt_buf_init(&label_b);
	found = applied(store, kind, name, &stored, &generation, &deleted_at, &err);
	if (found < 0)
		goto fail;
	mine = srt_canon_pretty_json(spec, &err);
	if (!mine)
		goto fail;
	if (found && !deleted_at) {
		theirs = srt_canon_pretty_json(stored, &err);
		if (!theirs) {
			srt_error_prefix(&err, "%s '%s'", kind, name);
			goto fail;
		}
		srt_buf_printf(&label_a, "%s/%s (applied, generation %lld)", kind, name,
			       (long long)generation);
	} else {
		theirs = srt_xstrdup("");
		srt_buf_printf(&label_a, "%s/%s (%s)", kind, name,
			       found ? "deleted" : "not applied");
	}
	srt_buf_printf(&label_b, "%s/%s (%s)", kind, name, file);
	rc = srt_diff_unified(theirs, mine, label_a.data, label_b.data, DIFF_CONTEXT, &out) ? 1 : 0;
	fputs(out.data, stdout);
	goto out;
fail:
	fprintf(stderr, "srtctl diff: %s\n", err.msg);
out:
	free(mine);
	free(theirs);
	free(stored);
	srt_buf_release(&out);
	srt_buf_release(&label_a);
	srt_buf_release(&label_b);
	return rc;
}

int srt_cmd_diff(int argc, char **argv)
{
	enum {
		OPT_DB = 256
	};
	static const struct option opts[] = {
		{ "filename", required_argument, NULL, 'f' },
		{ "db", required_argument, NULL, OPT_DB },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct srt_cli_specs specs = { 0 };
	struct srt_store *store = NULL;
	char **paths = NULL, *db = NULL;
	const char *db_arg = NULL;
	size_t npaths = 0;
	int c, rc = SRT_EXIT_OK;

	paths = srt_xcalloc((size_t)argc + 1, sizeof(*paths));
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			paths[npaths++] = optarg;
			break;
		case OPT_DB:
			db_arg = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			goto out;
		default:
			rc = srt_cli_usage_error("diff", "unknown option");
			goto out;
		}
	}
	if (optind < argc) {
		rc = srt_cli_usage_error("diff", "unexpected argument '%s' (use -f FILE)",
					 argv[optind]);
		goto out;
	}
	if (!npaths) {
		rc = srt_cli_usage_error("diff", "no recipe given; use -f FILE|DIR|-");
		goto out;
	}
	if (srt_cli_specs_load("diff", paths, npaths, &specs) != SRT_EXIT_OK) {
		rc = SRT_EXIT_USAGE; /* diff's contract: 2 on any error, 1 means "differs" */
		goto out;
	}
	db = srt_cli_db_path(db_arg);
	if (srt_cli_db_open("diff", db, SRT_STORE_READONLY, &store) < 0) {
		rc = SRT_EXIT_USAGE;
		goto out;
	}
	for (size_t i = 0; i < specs.n + specs.ncampaigns; i++) {
		int r = i < specs.n ? diff_one(store, "recipe", specs.v[i].name, specs.v[i].file,
					       specs.v[i].spec) :
				      diff_one(store, "campaign", specs.campaigns[i - specs.n].name,
					       specs.campaigns[i - specs.n].file,
					       specs.campaigns[i - specs.n].plan.spec);

		if (r < 0) {
			rc = SRT_EXIT_USAGE;
			break;
		}
		if (r > 0)
			rc = SRT_EXIT_INVALID;
	}
out:
	if (store)
		srt_store_close(store);
	srt_cli_specs_release(&specs);
	free(db);
	free(paths);
	return rc;
}
