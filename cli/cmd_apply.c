/* cli/cmd_apply.c: `srtctl apply -f FILE|DIR|- [--dry-run] [--db PATH]`. */
#include "cli/cli.h"
#include "cli/print.h"
#include "notify/notify.h"
#include "store/store.h"
#include "util/buf.h"

#include <math.h>

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: srtctl apply -f FILE|DIR|- [-f ...] [--dry-run] [--wait [--timeout D]] [--db PATH]\n"
	"\n"
	"Record recipes and campaigns (kind: Campaign) as desired state in the state\n"
	"database; a running controller (srtctl controller) then makes SLURM match it.\n"
	"Every file is validated first (a campaign: every deployment it expands to): if\n"
	"any file has an error, nothing is written (a directory is all or nothing).\n"
	"$VARs in model.path, model.container and the mounts' paths take their values\n"
	"from this environment, as srt-slurm's do from the one it submits from; the\n"
	"recorded spec holds the values, and a variable that is not set is an error.\n"
	"For each recipe or campaign one line says what happened:\n"
	"  recipe/NAME created       first apply (generation 1)\n"
	"  recipe/NAME configured    the spec changed (generation + 1), or it was deleted\n"
	"  recipe/NAME unchanged     same spec (key order, comments and layout do not count)\n"
	"  campaign/NAME created (D deployments, P points: N new, K kept, R removed)\n"
	"A campaign's points keep their state and results across applies that keep\n"
	"their identity: one more concurrency adds exactly its new points.\n"
	"\n"
	"Options:\n"
	"  -f, --filename PATH   recipe file, directory (every *.yaml/*.yml below it), or -\n"
	"                        for stdin (repeatable).  FILE:SELECTOR, as srt-slurm's,\n"
	"                        applies only the variants of a variant file it picks:\n"
	"                        base, override_<s>, zip_override_<g> (all of them),\n"
	"                        zip_override_<g>[N] (the Nth, from 0), or a glob\n"
	"                        ('override_*')\n"
	"      --dry-run         say what would change; write nothing; for a campaign also\n"
	"                        print its point table and the estimated node-hours\n"
	"      --wait            then follow the recipes' runs until Ready (srtctl wait;\n"
	"                        not for campaigns)\n"
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

/* What applying campaign `cc` would do (store may be NULL). */
static int predict_campaign(struct srt_store *store, const struct srt_cli_campaign *cc,
			    enum srt_apply_result *result)
{
	struct srt_campaign_row row;
	struct srt_error err;
	int found;

	*result = SRT_APPLY_CREATED;
	if (!store)
		return 0;
	found = srt_store_campaign_get(store, cc->name, &row, &err);
	if (found < 0) {
		fprintf(stderr, "srtctl apply: %s\n", err.msg);
		return -1;
	}
	if (found)
		*result = row.deleted_at || strcmp(row.spec_hash, cc->plan.spec_hash) ?
				  SRT_APPLY_CONFIGURED :
				  SRT_APPLY_UNCHANGED;
	srt_campaign_row_release(&row);
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	return strcmp(((const struct srt_point_row *)a)->point_id,
		      ((const struct srt_point_row *)b)->point_id);
}

/* The point table of a campaign's dry run, with each point's state in the database. */
static int print_points(struct srt_store *store, const struct srt_cli_campaign *cc)
{
	const struct srt_campaign_plan *p = &cc->plan;
	struct srt_point_row *rows = NULL, key;
	struct srt_table t;
	struct srt_error err;
	size_t n = 0, nnew = 0;
	static const char *const hdr[] = {
		"DEPLOYMENT", "NODES",	"AXES",	  "ISL", "OSL",	  "CONC",
		"PROMPTS",    "WARMUP", "REPEAT", "EST", "STATE", "POINT"
	};

	if (store && srt_store_point_list(store, cc->name, true, &rows, &n, &err) != 0) {
		fprintf(stderr, "srtctl apply: %s\n", err.msg);
		return -1;
	}
	if (n > 1)
		qsort(rows, n, sizeof(*rows), cmp_id);
	srt_table_init(&t, sizeof(hdr) / sizeof(hdr[0]));
	for (size_t i = 0; i < sizeof(hdr) / sizeof(hdr[0]); i++)
		srt_table_add(&t, hdr[i]);
	for (size_t i = 0; i < p->npoints; i++) {
		const struct srt_campaign_point *pt = &p->points[i];
		const struct srt_campaign_deployment *d = &p->deployments[pt->deployment];
		const struct srt_point_row *old;
		double est = srt_campaign_estimate_point(cc->c, pt);

		key.point_id = (char *)pt->id;
		old = n ? bsearch(&key, rows, n, sizeof(*rows), cmp_id) : NULL;
		nnew += !old;
		srt_table_add(&t, d->name);
		srt_table_addf(&t, "%lld", (long long)d->nodes);
		srt_table_add(&t, d->axes);
		srt_table_addf(&t, "%lld", (long long)pt->isl);
		srt_table_addf(&t, "%lld", (long long)pt->osl);
		srt_table_addf(&t, "%lld", (long long)pt->concurrency);
		srt_table_addf(&t, "%lld", (long long)pt->prompts);
		srt_table_addf(&t, "%lld", (long long)pt->warmup);
		srt_table_addf(&t, "%lld", (long long)pt->repeat);
		srt_table_addf(&t, "%.0fs", ceil(est));
		srt_table_add(&t, old ? old->state : "new");
		srt_table_addf(&t, "%.12s", pt->id);
	}
	srt_table_print(&t, stdout, "  ", false);
	srt_table_release(&t);
	printf("  %zu deployments, %zu points (%zu new); estimated %.1f node-hours: per "
	       "deployment, nodes x (%.0f min startup + its points' estimates); see "
	       "docs/recipe-reference.md \"The Campaign kind\"\n",
	       p->ndeployments, p->npoints, nnew, p->est_node_hours, cc->c->est_startup_minutes);
	if (cc->c->budget_node_hours > 0 && p->est_node_hours > cc->c->budget_node_hours)
		printf("  warning: the estimate is above policy.budget.nodeHours (%.1f): the "
		       "campaign would stop submitting before its last points\n",
		       cc->c->budget_node_hours);
	srt_point_rows_free(rows, n);
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
	for (size_t i = 0; i < specs->ncampaigns; i++) {
		const struct srt_cli_campaign *cc = &specs->campaigns[i];
		enum srt_apply_result r;

		if (predict_campaign(store, cc, &r) != 0) {
			rc = SRT_EXIT_USAGE;
			goto out;
		}
		printf("campaign/%s %s (dry run)\n", cc->name, result_name(r));
		if (print_points(store, cc) != 0) {
			rc = SRT_EXIT_USAGE;
			goto out;
		}
	}
out:
	free(results);
	if (store)
		srt_store_close(store);
	return rc;
}

/* Record one expanded campaign (inside the caller's transaction). */
static int apply_campaign(struct srt_store *store, const struct srt_cli_campaign *cc,
			  enum srt_apply_result *result, struct srt_campaign_apply_stats *stats,
			  struct srt_error *err)
{
	const struct srt_campaign_plan *p = &cc->plan;
	struct srt_store_campaign_deployment *ds;
	struct srt_store_campaign_point *ps;
	struct srt_store_campaign_in in = { 0 };
	char *notify = NULL;
	int rc;

	ds = srt_xcalloc(p->ndeployments + 1, sizeof(*ds));
	ps = srt_xcalloc(p->npoints + 1, sizeof(*ps));
	for (size_t i = 0; i < p->ndeployments; i++) {
		ds[i].name = p->deployments[i].name;
		ds[i].axes = p->deployments[i].axes;
		ds[i].spec = p->deployments[i].spec;
		ds[i].spec_hash = p->deployments[i].spec_hash;
		ds[i].nodes = p->deployments[i].nodes;
	}
	for (size_t i = 0; i < p->npoints; i++) {
		const struct srt_campaign_point *pt = &p->points[i];

		ps[i] = (struct srt_store_campaign_point){
			.point_id = pt->id,
			.deployment = pt->deployment,
			.seq = pt->seq,
			.isl = pt->isl,
			.osl = pt->osl,
			.concurrency = pt->concurrency,
			.prompts = pt->prompts,
			.warmup = pt->warmup,
			.repeat = pt->repeat,
		};
	}
	in.name = cc->name;
	in.spec = p->spec;
	in.spec_hash = p->spec_hash;
	in.source_file = cc->source;
	in.source_yaml = cc->yaml;
	in.tool = srt_bench_tool_name(cc->c->tool);
	in.params = p->bench_params;
	in.deployments = ds;
	in.ndeployments = p->ndeployments;
	in.points = ps;
	in.npoints = p->npoints;
	if (cc->c->notify.command.n)
		notify = srt_notify_command_json(cc->c->notify.command.v, cc->c->notify.command.n,
						 cc->c->notify.timeout_ms, cc->c->notify.backoff_ms,
						 cc->c->notify.max_attempts);
	in.notify = notify;
	rc = srt_store_campaign_apply(store, &in, result, NULL, stats, err);
	free(notify);
	free(ds);
	free(ps);
	return rc;
}

static int apply(const char *db, const struct srt_cli_specs *specs)
{
	struct srt_store *store = NULL;
	enum srt_apply_result *results = NULL, *cresults = NULL;
	struct srt_campaign_apply_stats *stats = NULL;
	struct srt_error err;
	int rc = SRT_EXIT_OK;

	if (srt_cli_db_open("apply", db, SRT_STORE_CREATE, &store) != 0)
		return SRT_EXIT_USAGE;
	results = srt_xcalloc(specs->n ? specs->n : 1, sizeof(*results));
	cresults = srt_xcalloc(specs->ncampaigns + 1, sizeof(*cresults));
	stats = srt_xcalloc(specs->ncampaigns + 1, sizeof(*stats));
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
	for (size_t i = 0; i < specs->ncampaigns; i++) {
		const struct srt_cli_campaign *cc = &specs->campaigns[i];

		if (apply_campaign(store, cc, &cresults[i], &stats[i], &err) != 0) {
			srt_store_rollback(store);
			srt_error_prefix(&err, "campaign '%s' (%s)", cc->name, cc->file);
			goto fail;
		}
	}
	if (srt_store_commit(store, &err) != 0) {
		srt_store_rollback(store);
		goto fail;
	}
	for (size_t i = 0; i < specs->n; i++)
		printf("recipe/%s %s\n", specs->v[i].name, result_name(results[i]));
	for (size_t i = 0; i < specs->ncampaigns; i++)
		printf("campaign/%s %s (%zu deployments, %zu points: %lld new, %lld kept, %lld "
		       "removed)\n",
		       specs->campaigns[i].name, result_name(cresults[i]),
		       specs->campaigns[i].plan.ndeployments, specs->campaigns[i].plan.npoints,
		       (long long)stats[i].points_new, (long long)stats[i].points_kept,
		       (long long)stats[i].points_removed);
	fflush(stdout);
	srt_cli_controller_note(db);
	goto out;
fail:
	fprintf(stderr, "srtctl apply: %s; nothing was applied\n", err.msg);
	rc = SRT_EXIT_USAGE;
out:
	free(results);
	free(cresults);
	free(stats);
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
	if (wait && specs.ncampaigns) {
		fprintf(stderr, "srtctl apply: --wait follows recipes' runs and cannot follow a "
				"campaign; apply campaigns without --wait (`srtctl get points "
				"--campaign NAME` shows their progress)\n");
		rc = SRT_EXIT_USAGE;
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
