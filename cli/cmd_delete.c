/* cli/cmd_delete.c: `srtctl delete recipe|campaign NAME... [--db PATH]`. */
#include "cli/cli.h"
#include "store/store.h"
#include "util/buf.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: srtctl delete recipe|campaign NAME [NAME...] [--db PATH]\n"
	"\n"
	"Mark recipes deleted. The controller cancels their SLURM jobs and stops their\n"
	"runs; the recipe, its runs and its events stay in the database for `get`,\n"
	"`describe` and `events`. Applying the recipe again brings it back\n"
	"(recipe/NAME configured). All names are deleted in one transaction: if one is\n"
	"unknown, nothing is deleted. A name given twice is deleted (and reported) once.\n"
	"RECIPE/NAME is accepted too (recipe/my-recipe).\n"
	"\n"
	"A campaign is marked deleted the same way: it stops submitting, and its\n"
	"deployments, points and results stay (`get points --campaign NAME`).\n"
	"Applying it again brings it back as a new generation, its finished points\n"
	"still finished.\n"
	"\n"
	"Options:\n"
	"      --db PATH   state database (default: $SRTCTL_DB, else\n"
	"                  $XDG_STATE_HOME/srtctl/srtctl.db)\n"
	"  -h, --help      show this help\n"
	"\n"
	"Exit codes: 0 deleted, 1 no such recipe or campaign (nothing deleted), 2 usage\n"
	"or I/O.\n"
	"\n"
	"Examples:\n"
	"  srtctl delete recipe qwen3-mooncake\n"
	"  srtctl delete recipe/qwen3-mooncake\n"
	"  srtctl delete campaign qwen3-sweep\n";

static bool is_kind(const char *s, const char *singular)
{
	size_t n = strlen(singular);

	return !strcmp(s, singular) || (!strncmp(s, singular, n) && !strcmp(s + n, "s"));
}

/*
 * Drop the repeats of a name from names[0..*n), keeping the first of each in
 * place: `delete recipe a a` (or `recipe/a a`) deletes and reports a once.
 */
static void dedupe(char **names, size_t *n)
{
	size_t k = 0;

	for (size_t i = 0; i < *n; i++) {
		size_t j = 0;

		while (j < k && strcmp(names[j], names[i]))
			j++;
		if (j == k)
			names[k++] = names[i];
	}
	*n = k;
}

/* Is `name` of `kind` there (1, with *deleted_at), absent (0), or an error (-1)? */
static int lookup(struct srt_store *store, bool campaign, const char *name, int64_t *deleted_at,
		  struct srt_error *err)
{
	int found;

	if (campaign) {
		struct srt_campaign_row row;

		found = srt_store_campaign_get(store, name, &row, err);
		*deleted_at = row.deleted_at;
		srt_campaign_row_release(&row);
	} else {
		struct srt_recipe_row row;

		memset(&row, 0, sizeof(row));
		found = srt_store_recipe_get(store, name, &row, err);
		*deleted_at = row.deleted_at;
		srt_recipe_row_release(&row);
	}
	return found;
}

/*
 * Delete names[0..n) (no repeats) of `kind` ("recipe" or "campaign") in one
 * transaction.  Returns an exit code.
 */
static int delete_objects(const char *db, const char *kind, char **names, size_t n)
{
	struct srt_store *store = NULL;
	struct srt_error err;
	size_t missing = 0;
	bool campaign = !strcmp(kind, "campaign");
	int rc = SRT_EXIT_OK, o;

	o = srt_cli_db_open("delete", db, 0, &store);
	if (o < 0)
		return SRT_EXIT_USAGE;
	if (o > 0) {
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, "srtctl delete: %s '%s' not found\n", kind, names[i]);
		srt_cli_db_missing("delete", db);
		return SRT_EXIT_INVALID;
	}
	if (srt_store_begin(store, &err) != 0)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		int64_t deleted_at = 0;
		int found = lookup(store, campaign, names[i], &deleted_at, &err);

		if (found < 0) {
			srt_store_rollback(store);
			goto fail;
		}
		if (found && deleted_at) {
			fprintf(stderr,
				"srtctl delete: %s '%s' not found (it is already deleted; "
				"`srtctl apply` brings it back)\n",
				kind, names[i]);
			missing++;
			continue;
		}
		if (found)
			found = campaign ? srt_store_campaign_delete(store, names[i], &err) :
					   srt_store_recipe_delete(store, names[i], &err);
		if (found < 0) {
			srt_store_rollback(store);
			goto fail;
		}
		if (!found) {
			fprintf(stderr,
				"srtctl delete: %s '%s' not found; `srtctl get %ss` lists them\n",
				kind, names[i], kind);
			missing++;
		}
	}
	if (missing) {
		srt_store_rollback(store);
		if (n > 1)
			fprintf(stderr, "srtctl delete: nothing was deleted\n");
		rc = SRT_EXIT_INVALID;
		goto out;
	}
	if (srt_store_commit(store, &err) != 0) {
		srt_store_rollback(store);
		goto fail;
	}
	for (size_t i = 0; i < n; i++)
		printf("%s/%s deleted\n", kind, names[i]);
	fflush(stdout);
	srt_cli_controller_note(db);
	goto out;
fail:
	fprintf(stderr, "srtctl delete: %s; nothing was deleted\n", err.msg);
	rc = SRT_EXIT_USAGE;
out:
	srt_store_close(store);
	return rc;
}

int srt_cmd_delete(int argc, char **argv)
{
	enum {
		OPT_DB = 256
	};
	static const struct option opts[] = {
		{ "db", required_argument, NULL, OPT_DB },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db_arg = NULL, *kind;
	char **names = NULL, *db = NULL, *kind_buf = NULL;
	size_t nnames = 0;
	int c, rc = SRT_EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_DB:
			db_arg = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return SRT_EXIT_OK;
		default:
			return srt_cli_usage_error("delete", "unknown option");
		}
	}
	if (optind >= argc)
		return srt_cli_usage_error("delete",
					   "say what to delete: recipe NAME or campaign NAME");
	names = srt_xcalloc((size_t)argc, sizeof(*names));
	kind = argv[optind];
	if (strchr(kind, '/')) {
		/* KIND/NAME [KIND/NAME...]: every argument names its kind. */
		const char *slash = strchr(kind, '/');

		kind_buf = srt_xstrndup(kind, (size_t)(slash - kind));
		kind = kind_buf;
		for (int i = optind; i < argc; i++) {
			const char *s = strchr(argv[i], '/');

			if (!s || strncmp(argv[i], kind_buf, (size_t)(s - argv[i])) ||
			    s - argv[i] != (long)strlen(kind_buf) || !s[1]) {
				rc = srt_cli_usage_error("delete", "'%s' is not %s/NAME", argv[i],
							 kind_buf);
				goto out;
			}
			names[nnames++] = (char *)s + 1;
		}
	} else {
		for (int i = optind + 1; i < argc; i++)
			names[nnames++] = argv[i];
	}
	if (!is_kind(kind, "recipe") && !is_kind(kind, "campaign")) {
		rc = srt_cli_usage_error("delete",
					 "cannot delete '%s'; only recipes and campaigns can be "
					 "deleted (runs stop when their recipe is deleted)",
					 kind);
		goto out;
	}
	kind = is_kind(kind, "recipe") ? "recipe" : "campaign";
	if (!nnames) {
		rc = srt_cli_usage_error("delete", "no %s name given", kind);
		goto out;
	}
	dedupe(names, &nnames);
	db = srt_cli_db_path(db_arg);
	rc = delete_objects(db, kind, names, nnames);
out:
	free(kind_buf);
	free(names);
	free(db);
	return rc;
}
