/*
 * cli/cmd_describe.c: `srtctl describe run|service|recipe|campaign NAME`.
 *
 * Everything about one object, in kubectl's layout: "Label:  value" lines,
 * then indented tables (conditions, services, workers, runs) and the last
 * SRT_DESCRIBE_EVENTS events about the object.
 */
#include "cli/cli.h"
#include "cli/print.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/clock.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define SRT_DESCRIBE_EVENTS 20
#define LABEL_WIDTH 20

static const char usage_text[] =
	"usage: srtctl describe run|service|recipe|campaign NAME [--run RUN] [--db PATH]\n"
	"\n"
	"Show everything about one object: its fields, its conditions (runs), what\n"
	"belongs to it (a recipe's runs; a run's services and workers) and its last 20\n"
	"events. KIND/NAME is accepted too (run/my-run). A service NAME is its instance\n"
	"name; when several runs have one of that name, all are shown unless --run or\n"
	"RUN/NAME picks one.\n"
	"\n"
	"Options:\n"
	"      --run RUN   service: only the instance of this run\n"
	"      --db PATH   state database (default: $SRTCTL_DB, else\n"
	"                  $XDG_STATE_HOME/srtctl/srtctl.db)\n"
	"  -h, --help      show this help\n"
	"\n"
	"Exit codes: 0 ok, 1 not found, 2 usage or I/O.\n"
	"\n"
	"Examples:\n"
	"  srtctl describe run qwen3-mooncake-1-1\n"
	"  srtctl describe recipe/qwen3-mooncake\n"
	"  srtctl describe service mooncake-master --run qwen3-mooncake-1-1\n";

struct desc {
	struct srt_store *store;
	int64_t now;
	const char *run; /* --run */
};

static void field(int indent, const char *label, const char *value)
{
	int pad = LABEL_WIDTH - indent - (int)strlen(label) - 1;
	char *v = srt_print_sanitize(srt_xstrdup(value && *value ? value : "<none>"));

	printf("%*s%s:%*s%s\n", indent, "", label, pad > 1 ? pad : 1, "", v);
	free(v);
}

static void fieldf(int indent, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fieldf(int indent, const char *label, const char *fmt, ...)
{
	struct srt_buf b;
	va_list ap;

	srt_buf_init(&b);
	va_start(ap, fmt);
	srt_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	field(indent, label, b.data);
	srt_buf_release(&b);
}

static void field_time(const struct desc *d, int indent, const char *label, int64_t at)
{
	char when[40], age[32];

	if (!at) {
		field(indent, label, NULL);
		return;
	}
	srt_time_rfc3339(at, when, sizeof(when));
	srt_duration_human(d->now - at, age, sizeof(age));
	fieldf(indent, label, "%s (%s ago)", when, age);
}

static void field_int(int indent, const char *label, int64_t v, int64_t none_below)
{
	if (v < none_below)
		field(indent, label, NULL);
	else
		fieldf(indent, label, "%lld", (long long)v);
}

static void section(const char *title, struct srt_table *t)
{
	if (!srt_table_rows(t)) {
		printf("%s:%*s<none>\n", title, LABEL_WIDTH - (int)strlen(title) - 1, "");
		return;
	}
	printf("%s:\n", title);
	srt_table_print(t, stdout, "  ", true);
}

static int print_events(const struct desc *d, const char *kind, const char *name)
{
	struct srt_event_filter f = { 0 };
	struct srt_event_row *rows = NULL;
	struct srt_error err;
	struct srt_table t;
	size_t n = 0;

	f.kind = kind;
	f.name = name;
	f.limit = SRT_DESCRIBE_EVENTS;
	if (srt_store_event_list(d->store, &f, &rows, &n, &err) != 0) {
		fprintf(stderr, "srtctl describe: %s\n", err.msg);
		return -1;
	}
	srt_table_init(&t, 5);
	srt_table_add(&t, "Type");
	srt_table_add(&t, "Reason");
	srt_table_add(&t, "Age");
	srt_table_add(&t, "From");
	srt_table_add(&t, "Message");
	for (size_t i = 0; i < n; i++) {
		const struct srt_event_row *e = &rows[i];
		char age[32], span[32];

		srt_duration_human(d->now - e->last_at, age, sizeof(age));
		srt_table_add(&t, e->type);
		srt_table_add(&t, e->reason);
		if (e->count > 1) {
			srt_duration_human(e->last_at - e->first_at, span, sizeof(span));
			srt_table_addf(&t, "%s (x%lld over %s)", age, (long long)e->count, span);
		} else {
			srt_table_add(&t, age);
		}
		srt_table_add(&t, e->source);
		srt_table_add(&t, e->message);
	}
	section("Events", &t);
	srt_table_release(&t);
	srt_event_rows_free(rows, n);
	return 0;
}

/* ---- recipe ---- */

static int describe_recipe(struct desc *d, const char *name, struct srt_error *err)
{
	struct srt_recipe_row r;
	struct srt_run_row *runs = NULL;
	struct srt_table t;
	size_t nruns = 0;
	json_t *spec;
	int found, rc = -1;

	memset(&r, 0, sizeof(r));
	found = srt_store_recipe_get(d->store, name, &r, err);
	if (found <= 0) {
		srt_recipe_row_release(&r);
		return found;
	}
	if (srt_store_run_list(d->store, name, &runs, &nruns, err) != 0)
		goto out;
	field(0, "Name", r.name);
	field(0, "UID", r.uid);
	field_int(0, "Generation", r.generation, 0);
	field(0, "Spec Hash", r.spec_hash);
	field(0, "Source", r.source_file);
	field_time(d, 0, "Created", r.created_at);
	field_time(d, 0, "Applied", r.applied_at);
	field_time(d, 0, "Deleted", r.deleted_at);
	srt_table_init(&t, 6);
	srt_table_add(&t, "Name");
	srt_table_add(&t, "Generation");
	srt_table_add(&t, "Attempt");
	srt_table_add(&t, "Phase");
	srt_table_add(&t, "Job");
	srt_table_add(&t, "Age");
	for (size_t i = 0; i < nruns; i++) {
		srt_table_add(&t, runs[i].name);
		srt_table_add_int(&t, runs[i].generation, 0);
		srt_table_add_int(&t, runs[i].attempt, 0);
		srt_table_add(&t, runs[i].phase);
		srt_table_add_int(&t, runs[i].slurm_job_id, 1);
		srt_table_add_age(&t, d->now, runs[i].created_at);
	}
	section("Runs", &t);
	srt_table_release(&t);
	spec = json_loads(r.spec ? r.spec : "null", JSON_DECODE_ANY, NULL);
	printf("Spec:\n");
	if (spec)
		srt_print_yaml_indent(stdout, spec, 2);
	json_decref(spec);
	rc = print_events(d, "recipe", r.name) == 0 ? 1 : -2;
out:
	srt_run_rows_free(runs, nruns);
	srt_recipe_row_release(&r);
	return rc;
}

/* ---- run ---- */

/* "Frontend URL": the bound URL, pending (with the plan's form of it), or <none>. */
static void frontend_field(const struct srt_run_row *r)
{
	const char *shown = srt_print_frontend(r->frontend_url_planned, r->frontend_url, r->phase);

	if (shown && !r->frontend_url)
		fieldf(0, "Frontend URL",
		       "pending (%s, once the agent has bound the allocation's IPs)",
		       r->frontend_url_planned);
	else if (!shown && r->frontend_url_planned)
		field(0, "Frontend URL", "<none> (the run ended before its agent reported it)");
	else
		field(0, "Frontend URL", shown);
}

static int run_details(struct desc *d, const struct srt_run_row *r, struct srt_error *err)
{
	struct srt_condition_row *conds = NULL;
	struct srt_service_row *svcs = NULL;
	struct srt_worker_row *workers = NULL;
	size_t nconds = 0, nsvcs = 0, nworkers = 0;
	struct srt_table t;
	int rc = -1;

	if (srt_store_condition_list(d->store, r->name, &conds, &nconds, err) != 0 ||
	    srt_store_service_list(d->store, r->name, NULL, &svcs, &nsvcs, err) != 0 ||
	    srt_store_worker_list(d->store, r->name, &workers, &nworkers, err) != 0)
		goto out;
	field(0, "Name", r->name);
	field(0, "UID", r->uid);
	field(0, "Recipe", r->recipe);
	field_int(0, "Generation", r->generation, 0);
	field_int(0, "Attempt", r->attempt, 0);
	field(0, "Phase", r->phase);
	field(0, "Message", r->message);
	frontend_field(r);
	printf("SLURM Job:\n");
	field_int(2, "Job ID", r->slurm_job_id, 1);
	field(2, "Job Name", r->job_name);
	field(2, "Comment", r->job_comment);
	field(2, "State", r->slurm_state);
	field_int(2, "Exit Code", r->exit_code, 0);
	field(0, "Run Dir", r->run_dir);
	field_time(d, 0, "Created", r->created_at);
	field_time(d, 0, "Started", r->started_at);
	field_time(d, 0, "Finished", r->finished_at);
	field_time(d, 0, "Updated", r->updated_at);

	srt_table_init(&t, 6);
	srt_table_add(&t, "Type");
	srt_table_add(&t, "Status");
	srt_table_add(&t, "Reason");
	srt_table_add(&t, "Observed Generation");
	srt_table_add(&t, "Last Transition");
	srt_table_add(&t, "Message");
	for (size_t i = 0; i < nconds; i++) {
		char when[40] = "";

		if (conds[i].last_transition_at)
			srt_time_rfc3339(conds[i].last_transition_at, when, sizeof(when));
		srt_table_add(&t, conds[i].type);
		srt_table_add(&t, conds[i].status);
		srt_table_add(&t, conds[i].reason);
		srt_table_add_int(&t, conds[i].observed_generation, 0);
		srt_table_add(&t, when);
		srt_table_add(&t, conds[i].message);
	}
	section("Conditions", &t);
	srt_table_release(&t);

	srt_table_init(&t, 6);
	srt_table_add(&t, "Name");
	srt_table_add(&t, "Type");
	srt_table_add(&t, "State");
	srt_table_add(&t, "Endpoint");
	srt_table_add(&t, "Restarts");
	srt_table_add(&t, "Node");
	for (size_t i = 0; i < nsvcs; i++) {
		srt_table_add(&t, svcs[i].name);
		srt_table_add(&t, svcs[i].type);
		srt_table_add(&t, svcs[i].state);
		srt_table_add(&t, svcs[i].endpoint);
		srt_table_add_int(&t, svcs[i].restarts, 0);
		srt_table_add(&t, svcs[i].node);
	}
	section("Services", &t);
	srt_table_release(&t);

	srt_table_init(&t, 6);
	srt_table_add(&t, "Role");
	srt_table_add(&t, "Index");
	srt_table_add(&t, "Node");
	srt_table_add(&t, "IP");
	srt_table_add(&t, "State");
	srt_table_add(&t, "Restarts");
	for (size_t i = 0; i < nworkers; i++) {
		srt_table_add(&t, workers[i].role);
		srt_table_add_int(&t, workers[i].idx, 0);
		srt_table_add(&t, workers[i].node);
		srt_table_add(&t, workers[i].ip);
		srt_table_add(&t, workers[i].state);
		srt_table_add_int(&t, workers[i].restarts, 0);
	}
	section("Workers", &t);
	srt_table_release(&t);
	rc = print_events(d, "run", r->name) == 0 ? 1 : -2;
out:
	srt_condition_rows_free(conds, nconds);
	srt_service_rows_free(svcs, nsvcs);
	srt_worker_rows_free(workers, nworkers);
	return rc;
}

static int describe_run(struct desc *d, const char *name, struct srt_error *err)
{
	struct srt_run_row r;
	int found;

	memset(&r, 0, sizeof(r));
	found = srt_store_run_get(d->store, name, &r, err);
	if (found > 0)
		found = run_details(d, &r, err);
	srt_run_row_release(&r);
	return found;
}

/* ---- service ---- */

static int describe_service(struct desc *d, const char *arg, struct srt_error *err)
{
	struct srt_service_row *rows = NULL;
	const char *slash = strchr(arg, '/');
	char *run = NULL;
	const char *name = arg;
	size_t n = 0;
	int rc = -1;

	if (slash) {
		run = srt_xstrndup(arg, (size_t)(slash - arg));
		name = slash + 1;
	} else if (d->run) {
		run = srt_xstrdup(d->run);
	}
	if (srt_store_service_list(d->store, run, name, &rows, &n, err) != 0)
		goto out;
	rc = n ? 1 : 0;
	for (size_t i = 0; i < n; i++) {
		const struct srt_service_row *s = &rows[i];
		char *object = srt_xasprintf("%s/%s", s->run ? s->run : "", s->name ? s->name : "");

		if (i)
			putchar('\n');
		field(0, "Name", s->name);
		field(0, "Run", s->run);
		field(0, "Service", s->service);
		field(0, "Type", s->type);
		field(0, "Node", s->node);
		field(0, "Endpoint", s->endpoint);
		field(0, "State", s->state);
		field_int(0, "Restarts", s->restarts, 0);
		field(0, "Last Probe", s->last_probe);
		field_time(d, 0, "Last Probe Time", s->last_probe_at);
		field(0, "Message", s->message);
		field_time(d, 0, "Started", s->started_at);
		field_time(d, 0, "Updated", s->updated_at);
		if (print_events(d, "service", object) != 0)
			rc = -2;
		free(object);
	}
out:
	srt_service_rows_free(rows, n);
	free(run);
	return rc;
}

/* ---- campaign ---- */

static int describe_campaign(struct desc *d, const char *name, struct srt_error *err)
{
	struct srt_campaign_row c;
	struct srt_deployment_row *deps = NULL;
	struct srt_world_deployment *w = NULL;
	struct srt_cli_progress p;
	size_t ndeps = 0, nw = 0;
	struct srt_table t;
	char counts[256], eta[32];
	int found;

	found = srt_store_campaign_get(d->store, name, &c, err);
	if (found <= 0)
		return found;
	if (srt_store_deployment_list(d->store, name, &deps, &ndeps, err) != 0 ||
	    srt_cli_progress(d->store, &c, 1, &p, err) != 0 ||
	    srt_store_campaign_world(d->store, &w, &nw, err) != 0) {
		srt_deployment_rows_free(deps, ndeps);
		srt_campaign_row_release(&c);
		return -1;
	}
	field(0, "Name", c.name);
	field(0, "UID", c.uid);
	field_int(0, "Generation", c.generation, 1);
	field(0, "State", c.state);
	field(0, "Source", c.source_file);
	field(0, "Spec Hash", c.spec_hash);
	field_time(d, 0, "Created", c.created_at);
	field_time(d, 0, "Applied", c.applied_at);
	field_time(d, 0, "Deleted", c.deleted_at);
	snprintf(counts, sizeof(counts),
		 "%lld total: %lld done, %lld running, %lld pending, %lld failed, %lld invalid",
		 (long long)(c.pending + c.running + c.done + c.failed + c.invalid),
		 (long long)c.done, (long long)c.running, (long long)c.pending, (long long)c.failed,
		 (long long)c.invalid);
	field(0, "Points", counts);
	if (p.budget_node_hours > 0)
		fieldf(0, "Node-Hours", "%.1f used of a budget of %.1f", p.node_hours,
		       p.budget_node_hours);
	else
		fieldf(0, "Node-Hours", "%.1f used (no budget)", p.node_hours);
	srt_cli_eta_text(&c, &p, eta, sizeof(eta));
	if (c.timed_points > 0 && p.eta_ms >= 0) {
		char mean[32];

		srt_duration_human(c.timed_ms / c.timed_points, mean, sizeof(mean));
		fieldf(0, "ETA", "%s (mean point %s x %lld left / %lld at once)", eta, mean,
		       (long long)(c.pending + c.running),
		       (long long)(p.parallel ? p.parallel : 1));
	} else {
		field(0, "ETA", eta);
	}
	printf("Deployments:\n");
	srt_table_init(&t, 7);
	srt_table_add(&t, "NAME");
	srt_table_add(&t, "NODES");
	srt_table_add(&t, "ACTIVE");
	srt_table_add(&t, "DONE/TOTAL");
	srt_table_add(&t, "AXES");
	srt_table_add(&t, "SPEC");
	srt_table_add(&t, "REMOVED");
	for (size_t i = 0; i < ndeps; i++) {
		const struct srt_world_deployment *wd = NULL;
		struct srt_recipe_row child;
		struct srt_error rerr;

		for (size_t j = 0; j < nw && !wd; j++)
			if (!strcmp(w[j].name, deps[i].name))
				wd = &w[j];
		memset(&child, 0, sizeof(child));
		srt_table_add(&t, deps[i].name);
		srt_table_add_int(&t, deps[i].nodes, 0);
		srt_table_add(&t,
			      srt_store_recipe_get(d->store, deps[i].name, &child, &rerr) == 1 &&
					      !child.deleted_at ?
				      "yes" :
				      "no");
		srt_recipe_row_release(&child);
		if (wd)
			srt_table_addf(&t, "%lld/%lld", (long long)(wd->final - wd->failed),
				       (long long)(wd->pending + wd->running + wd->final));
		else
			srt_table_add(&t, NULL);
		srt_table_add(&t, deps[i].axes);
		srt_table_addf(&t, "%.12s", deps[i].spec_hash ? deps[i].spec_hash : "");
		if (deps[i].removed_at)
			srt_table_add_age(&t, d->now, deps[i].removed_at);
		else
			srt_table_add(&t, NULL);
	}
	if (ndeps)
		srt_table_print(&t, stdout, "  ", true);
	else
		printf("  <none>\n");
	srt_table_release(&t);
	printf("  (`srtctl get points --campaign %s` lists the points)\n", c.name);
	found = print_events(d, "campaign", c.name) == 0 ? 1 : -2;
	srt_world_deployments_free(w, nw);
	srt_deployment_rows_free(deps, ndeps);
	srt_campaign_row_release(&c);
	return found;
}

struct kind {
	const char *name;
	int (*fn)(struct desc *d, const char *name, struct srt_error *err);
};

static const struct kind kinds[] = {
	{ "run", describe_run },
	{ "service", describe_service },
	{ "recipe", describe_recipe },
	{ "campaign", describe_campaign },
	{ NULL, NULL },
};

static const struct kind *find_kind(const char *s, size_t len)
{
	if (len == 3 && !strncmp(s, "svc", 3))
		return &kinds[1];
	for (size_t i = 0; kinds[i].name; i++) {
		size_t n = strlen(kinds[i].name);

		if ((len == n || (len == n + 1 && s[n] == 's')) && !strncmp(s, kinds[i].name, n))
			return &kinds[i];
	}
	return NULL;
}

int srt_cmd_describe(int argc, char **argv)
{
	enum {
		OPT_DB = 256,
		OPT_RUN
	};
	static const struct option opts[] = {
		{ "run", required_argument, NULL, OPT_RUN },
		{ "db", required_argument, NULL, OPT_DB },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct desc d = { 0 };
	struct srt_error err;
	const struct kind *k;
	const char *db_arg = NULL, *name, *slash;
	char *db = NULL;
	int c, o, rc = SRT_EXIT_OK, found;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_RUN:
			d.run = optarg;
			break;
		case OPT_DB:
			db_arg = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return SRT_EXIT_OK;
		default:
			return srt_cli_usage_error("describe", "unknown option");
		}
	}
	if (optind >= argc)
		return srt_cli_usage_error("describe", "say what to describe: run|service|recipe "
						       "NAME");
	slash = strchr(argv[optind], '/');
	if (slash && optind + 1 == argc) {
		k = find_kind(argv[optind], (size_t)(slash - argv[optind]));
		name = slash + 1;
	} else {
		k = find_kind(argv[optind], strlen(argv[optind]));
		name = optind + 1 < argc ? argv[optind + 1] : NULL;
		if (optind + 2 < argc)
			return srt_cli_usage_error("describe", "unexpected argument '%s'",
						   argv[optind + 2]);
	}
	if (!k)
		return srt_cli_usage_error("describe",
					   "cannot describe '%s' (expected run, "
					   "service, recipe or campaign)",
					   argv[optind]);
	if (!name || !*name)
		return srt_cli_usage_error("describe", "no %s name given", k->name);
	if (d.run && k->fn != describe_service)
		return srt_cli_usage_error("describe", "--run applies to services only");

	db = srt_cli_db_path(db_arg);
	o = srt_cli_db_open("describe", db, SRT_STORE_READONLY, &d.store);
	if (o < 0) {
		rc = SRT_EXIT_USAGE;
		goto out;
	}
	if (o > 0) {
		fprintf(stderr, "srtctl describe: %s '%s' not found\n", k->name, name);
		srt_cli_db_missing("describe", db);
		rc = SRT_EXIT_INVALID;
		goto out;
	}
	d.now = srt_store_now(d.store);
	srt_error_clear(&err);
	found = k->fn(&d, name, &err);
	if (found == 0) {
		fprintf(stderr, "srtctl describe: %s '%s' not found; `srtctl get %ss` lists them\n",
			k->name, name, k->name);
		rc = SRT_EXIT_INVALID;
	} else if (found == -1) {
		fprintf(stderr, "srtctl describe: %s\n", err.msg);
		rc = SRT_EXIT_USAGE;
	} else if (found < 0) {
		rc = SRT_EXIT_USAGE; /* already printed */
	}
out:
	if (d.store)
		srt_store_close(d.store);
	free(db);
	return rc;
}
