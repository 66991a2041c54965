/*
 * controller/campaigns.c: the controller's campaign effects (controller/internal.h).
 *
 * Observe (the deployments with their points, from SQLite; the runs of each
 * deployment's child recipe, from the pass), decide
 * (reconcilers/campaigns.c, pure), act (store/points.c, one transaction
 * per effect with its event).  The run reconciler then runs each active
 * deployment's child recipe like any other recipe; a campaign run differs
 * only in its points.json, written here before its job is submitted, and
 * in the Point* events its agent reports, ingested here in the events'
 * transaction.
 */
#include "controller/internal.h"
#include "recipe/campaign.h"
#include "reconcilers/campaigns.h"
#include "reconcilers/runs.h"
#include "runplan/points.h"
#include "runplan/rundir.h"
#include "util/buf.h"
#include "util/sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the campaign's settings, from its stored spec ---- */

struct settings {
	struct srt_ydoc *doc;
	struct srt_campaign *c; /* in doc; NULL when the spec does not parse */
};

static void settings_load(struct settings *s, const char *campaign, const char *spec)
{
	struct srt_diags d;

	memset(s, 0, sizeof(*s));
	srt_diags_init(&d);
	s->doc = srt_ydoc_parse(spec, strlen(spec), campaign, &d);
	if (s->doc)
		s->c = srt_campaign_parse(s->doc, &d);
	if (d.nerrors)
		s->c = NULL; /* applied specs parse; a spec that does not is left alone */
	srt_diags_release(&d);
}

static void settings_release(struct settings *s)
{
	srt_ydoc_free(s->doc);
	memset(s, 0, sizeof(*s));
}

/* ---- one pass ---- */

static enum srt_cc_stop stop_of_state(const char *state)
{
	if (!strcmp(state, "Suspended"))
		return SRT_CC_STOP_SUSPENDED;
	if (!strcmp(state, "Stopped"))
		return SRT_CC_STOP_FAILED_POINTS;
	if (!strcmp(state, "OutOfBudget"))
		return SRT_CC_STOP_BUDGET;
	return SRT_CC_STOP_NONE;
}

static const char *state_of_stop(enum srt_cc_stop s)
{
	switch (s) {
	case SRT_CC_STOP_SUSPENDED:
		return "Suspended";
	case SRT_CC_STOP_FAILED_POINTS:
		return "Stopped";
	case SRT_CC_STOP_BUDGET:
		return "OutOfBudget";
	case SRT_CC_STOP_NONE:
		break;
	}
	return "Running";
}

/*
 * The pass's recipes by name and runs by recipe, sorted once per pass, so
 * that each deployment finds its own in O(log n) instead of scanning every
 * recipe and run (1,000 deployments x 1,100 runs was ~2M strcmp a pass).
 */
struct by_name {
	const struct srt_recipe_row **recipes; /* by name (unique) */
	const struct srt_run_row **runs;       /* by recipe */
	size_t nrecipes, nruns;
};

static int recipe_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct srt_recipe_row *const *)a)->name,
		      (*(const struct srt_recipe_row *const *)b)->name);
}

/* bsearch: a name against a recipe. */
static int name_recipe_cmp(const void *name, const void *b)
{
	return strcmp(name, (*(const struct srt_recipe_row *const *)b)->name);
}

static int run_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct srt_run_row *const *)a)->recipe,
		      (*(const struct srt_run_row *const *)b)->recipe);
}

static void by_name_init(struct by_name *x, const struct srt_ctl_view *v)
{
	x->nrecipes = v->nrecipes;
	x->nruns = v->nruns;
	x->recipes = srt_xcalloc(v->nrecipes + 1, sizeof(*x->recipes));
	x->runs = srt_xcalloc(v->nruns + 1, sizeof(*x->runs));
	for (size_t i = 0; i < v->nrecipes; i++)
		x->recipes[i] = &v->recipes[i];
	for (size_t i = 0; i < v->nruns; i++)
		x->runs[i] = &v->runs[i];
	qsort(x->recipes, x->nrecipes, sizeof(*x->recipes), recipe_cmp);
	qsort(x->runs, x->nruns, sizeof(*x->runs), run_cmp);
}

static void by_name_release(struct by_name *x)
{
	free(x->recipes);
	free(x->runs);
}

/*
 * Did the job end for a reason that is the cluster's, not the deployment's
 * (a node failed, it was preempted, it never booted, SLURM lost it)?  Such
 * an end spends none of the deployment's attempts: the deployment is
 * retired with its points given back and runs again as a new generation,
 * at most SRT_CAMPAIGN_MAX_ACTIVATIONS times.
 */
static bool infrastructure_end(const char *slurm_state)
{
	static const char *const infra[] = { "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "GONE" };

	for (size_t i = 0; slurm_state && i < sizeof(infra) / sizeof(infra[0]); i++)
		if (!strcmp(slurm_state, infra[i]))
			return true;
	return false;
}

/* What became of deployment `d`'s child recipe and its runs. */
static void observe_runs(const struct by_name *x, struct srt_cc_deployment *d)
{
	const struct srt_recipe_row *const *found =
		bsearch(d->name, x->recipes, x->nrecipes, sizeof(*x->recipes), name_recipe_cmp);
	const struct srt_recipe_row *recipe = found ? *found : NULL;
	const struct srt_run_row *newest = NULL;
	size_t lo = 0, hi = x->nruns;

	d->active = recipe && !recipe->deleted_at;
	d->run = SRT_CC_RUN_NONE;
	d->job_live = false;
	while (lo < hi) { /* the first run of this recipe */
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(x->runs[mid]->recipe, d->name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < x->nruns && !strcmp(x->runs[i]->recipe, d->name); i++) {
		const struct srt_run_row *r = x->runs[i];
		enum srt_rc_phase p = SRT_RC_PENDING;

		srt_rc_phase_parse(r->phase, &p);
		if (!srt_rc_phase_is_final(p))
			d->job_live = true;
		if (recipe && r->generation == recipe->generation &&
		    (!newest || r->attempt > newest->attempt))
			newest = r;
	}
	if (!d->active || !newest)
		return;
	{
		enum srt_rc_phase p = SRT_RC_PENDING;

		srt_rc_phase_parse(newest->phase, &p);
		if (!srt_rc_phase_is_final(p))
			d->run = SRT_CC_RUN_LIVE;
		else if (p == SRT_RC_SUCCEEDED)
			d->run = SRT_CC_RUN_ENDED;
		else if (newest->attempt < srt_rc_spec_max_attempts(recipe->spec))
			d->run = SRT_CC_RUN_LIVE; /* the run reconciler makes its next attempt */
		else if (infrastructure_end(newest->slurm_state) &&
			 recipe->generation < SRT_CAMPAIGN_MAX_ACTIVATIONS)
			d->run = SRT_CC_RUN_ENDED; /* not the deployment's fault: it runs again */
		else
			d->run = SRT_CC_RUN_EXHAUSTED;
	}
}

static int act(struct srt_store *store, const struct srt_cc_action *x, const char *state,
	       struct srt_error *err)
{
	switch (x->kind) {
	case SRT_CC_ACTIVATE:
		return srt_store_deployment_activate(store, x->deployment, x->message, err);
	case SRT_CC_RETIRE:
		return srt_store_deployment_retire(store, x->campaign, x->deployment, x->message,
						   err);
	case SRT_CC_RESET_POINTS:
		return srt_store_points_reset(store, x->campaign, x->deployment, x->message, err);
	case SRT_CC_FAIL_POINTS:
		return srt_store_points_fail(store, x->campaign, x->deployment, x->message, err);
	case SRT_CC_STOP_SUBMITTING:
		return srt_store_campaign_set_state(store, x->campaign, state,
						    state_of_stop(x->stop), x->message, err);
	}
	return 0;
}

/* Decide and act for the deployments rows[first, end) of one campaign. */
static int one_campaign(const struct srt_ctl_view *v, const struct by_name *x,
			const struct srt_world_deployment *rows, size_t first, size_t end,
			size_t *nactions, bool *clocked, struct srt_error *err)
{
	const struct srt_world_deployment *w = &rows[first];
	struct srt_cc_deployment *deps = srt_xcalloc(end - first, sizeof(*deps));
	struct srt_cc_campaign cc = {
		.name = w->campaign,
		.deleted = w->campaign_deleted,
		.max_concurrent_jobs = 1,
		.stopped = stop_of_state(w->campaign_state),
		.deps = deps,
		.ndeps = end - first,
	};
	struct srt_cc_actions actions = { 0 };
	struct settings set;
	bool all_final = true, any_active = false;
	int rc = 0;

	settings_load(&set, w->campaign, w->campaign_spec);
	if (set.c) {
		cc.max_concurrent_jobs = set.c->max_concurrent_jobs;
		cc.max_nodes = set.c->max_nodes;
		cc.max_failed_points = set.c->max_failed_points;
		cc.budget_node_hours = set.c->budget_node_hours;
		cc.order = set.c->order == SRT_ORDER_SMALLEST_FIRST ? SRT_CC_ORDER_SMALLEST_FIRST :
								      SRT_CC_ORDER_DECLARED;
	}
	cc.suspended = cc.stopped == SRT_CC_STOP_SUSPENDED;
	for (size_t i = first; i < end; i++) {
		struct srt_cc_deployment *d = &deps[i - first];

		d->name = rows[i].name;
		d->position = rows[i].position;
		d->nodes = rows[i].nodes;
		d->pending = rows[i].pending;
		d->running = rows[i].running;
		d->final = rows[i].final;
		cc.failed_points += rows[i].failed;
		cc.node_hours_used += (double)rows[i].node_ms / 3.6e6;
		observe_runs(x, d);
		all_final = all_final && !d->pending && !d->running;
		any_active = any_active || d->active || d->job_live;
	}
	srt_reconcile_campaign(&cc, &actions);
	for (size_t i = 0; i < actions.n && rc == 0; i++) {
		if (actions.v[i].kind == SRT_CC_ACTIVATE)
			any_active = true;
		rc = act(v->store, &actions.v[i], w->campaign_state, err);
		if (rc != 0)
			srt_error_prefix(err, "campaign/%s", cc.name);
		else if (v->log)
			v->log(v->log_arg, &actions.v[i]);
	}
	*nactions += actions.n;
	if (!cc.deleted && cc.budget_node_hours > 0 && any_active)
		*clocked = true;
	if (rc == 0 && !cc.deleted && all_final && !any_active &&
	    strcmp(w->campaign_state, "Done") != 0) {
		rc = srt_store_campaign_set_state(v->store, cc.name, w->campaign_state, "Done",
						  "every point of the campaign is finished", err);
		++*nactions;
	} else if (rc == 0 && !cc.deleted && any_active &&
		   (!strcmp(w->campaign_state, "Pending") || !strcmp(w->campaign_state, "Done"))) {
		rc = srt_store_campaign_set_state(v->store, cc.name, w->campaign_state, "Running",
						  "a deployment started", err);
	}
	srt_cc_actions_release(&actions);
	settings_release(&set);
	free(deps);
	return rc;
}

int srt_ctl_campaigns_pass(const struct srt_ctl_view *v, size_t *nactions, bool *clocked,
			   struct srt_error *err)
{
	struct srt_world_deployment *rows = NULL;
	struct by_name x;
	size_t n = 0, first = 0;
	int rc = 0;

	*nactions = 0;
	*clocked = false;
	if (srt_store_campaign_world(v->store, &rows, &n, err) != 0)
		return -1;
	by_name_init(&x, v);
	for (size_t i = 1; i <= n && rc == 0; i++) {
		if (i < n && !strcmp(rows[i].campaign, rows[first].campaign))
			continue;
		rc = one_campaign(v, &x, rows, first, i, nactions, clocked, err);
		first = i;
	}
	by_name_release(&x);
	srt_world_deployments_free(rows, n);
	return rc;
}

/* ---- points.json ---- */

/* A custom command (a string, or a list of strings) into the points file. */
static void custom_command(const struct srt_ynode *cmd, struct srt_points_file *f)
{
	if (!cmd)
		return;
	if (cmd->kind == SRT_Y_SCALAR) {
		f->command_shell = srt_xstrdup(srt_ynode_str(cmd) ? srt_ynode_str(cmd) : "");
		return;
	}
	if (cmd->kind != SRT_Y_SEQ)
		return;
	f->command = srt_xcalloc(cmd->n + 1, sizeof(*f->command));
	for (size_t i = 0; i < cmd->n; i++) {
		const char *s = srt_ynode_str(cmd->items[i]);

		f->command[i] = srt_xstrdup(s ? s : "");
	}
}

int srt_ctl_points_file(struct srt_store *store, const struct srt_cluster *cluster,
			const char *recipe, const char *run, char **json_out, struct srt_error *err)
{
	struct srt_assigned_point *pts = NULL;
	struct srt_points_file f = { 0 };
	struct settings set = { 0 };
	char *campaign = NULL, *spec = NULL;
	size_t n = 0;
	int rc;

	*json_out = NULL;
	rc = srt_store_deployment_campaign(store, recipe, &campaign, &spec, err);
	if (rc <= 0)
		return rc; /* 0: not a campaign deployment */
	if (srt_store_points_assign(store, recipe, run, &pts, &n, err) != 0) {
		rc = -1;
		goto out;
	}
	settings_load(&set, campaign, spec);
	if (!set.c) {
		rc = srt_error_set(
			err, "the stored spec of campaign '%s' does not parse; apply it again",
			campaign);
		goto out;
	}
	f.campaign = srt_xstrdup(campaign);
	f.deployment = srt_xstrdup(recipe);
	f.tool = set.c->tool;
	f.params_json = n ? srt_xstrdup(pts[0].params) : NULL;
	if (f.tool == SRT_BENCH_CUSTOM) {
		custom_command(set.c->bench_command, &f);
		if (set.c->bench_result_file)
			f.result_file = srt_xstrdup(set.c->bench_result_file);
	} else {
		const struct srt_argv *cmd =
			&cluster->commands[f.tool == SRT_BENCH_VLLM ? SRT_CMD_VLLM_BENCH :
								      SRT_CMD_SA_BENCH];

		f.prefix = srt_xcalloc(cmd->n + 1, sizeof(*f.prefix));
		for (size_t i = 0; i < cmd->n; i++)
			f.prefix[i] = srt_xstrdup(cmd->v[i]);
	}
	f.retries = set.c->point_retries;
	f.validity = (struct srt_loadgen_validity){
		.min_completed_ratio = set.c->min_completed_ratio,
		.max_error_ratio = set.c->max_error_ratio,
		.min_output_tokens_ratio = set.c->min_output_tokens_ratio,
	};
	memcpy(f.slo_ms, set.c->slo_ms, sizeof(f.slo_ms));
	f.points = srt_xcalloc(n ? n : 1, sizeof(*f.points));
	f.npoints = n;
	for (size_t i = 0; i < n; i++) {
		snprintf(f.points[i].id, sizeof(f.points[i].id), "%s", pts[i].point_id);
		f.points[i].seq = pts[i].seq;
		f.points[i].load = (struct srt_loadgen_point){ pts[i].isl,	   pts[i].osl,
							       pts[i].concurrency, pts[i].prompts,
							       pts[i].warmup,	   pts[i].repeat };
	}
	*json_out = srt_points_to_json(&f);
	rc = 1;
out:
	srt_points_file_release(&f);
	settings_release(&set);
	srt_assigned_points_free(pts, n);
	free(campaign);
	free(spec);
	return rc;
}

/* ---- the agent's point reports ---- */

/*
 * The raw result file the report names, read from the run directory
 * (bounded, a regular file, no link followed) and checked against the
 * reported sha256.  NULL with *why when it cannot be trusted.
 */
static char *read_raw(const char *run_dir, const struct srt_point_report *r, char *why, size_t nwhy)
{
	const char *name = r->raw_path + strlen(SRT_RUNDIR_POINTS_DIR "/");
	int dfd = -1, pfd = -1, fd = -1;
	struct srt_buf b;
	struct stat stt;
	char hex[65];
	ssize_t got = -1;

	srt_buf_init(&b);
	/*
	 * The job's user owns the run directory: no link is followed, neither
	 * points/ nor the file (srt_point_report_read() has checked that
	 * raw_path is points/NAME with no other directory in it).
	 */
	dfd = open(run_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0)
		pfd = openat(dfd, SRT_RUNDIR_POINTS_DIR,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (pfd >= 0)
		fd = openat(pfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(why, nwhy, "cannot open %s without following a link: %s", r->raw_path,
			 strerror(errno));
		goto out;
	}
	if (fstat(fd, &stt) != 0 || !S_ISREG(stt.st_mode) ||
	    (uint64_t)stt.st_size > SRT_LOADGEN_MAX_RESULT_BYTES) {
		snprintf(why, nwhy, "%s is not a regular file of at most %u bytes", r->raw_path,
			 (unsigned)SRT_LOADGEN_MAX_RESULT_BYTES);
		goto out;
	}
	for (;;) {
		char chunk[65536];

		got = read(fd, chunk, sizeof(chunk));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0 || b.len + (size_t)got > SRT_LOADGEN_MAX_RESULT_BYTES)
			break;
		srt_buf_append(&b, chunk, (size_t)got);
	}
	if (got != 0) {
		snprintf(why, nwhy, "cannot read %s whole", r->raw_path);
		goto out;
	}
	srt_sha256_hex(b.data ? b.data : "", b.len, hex);
	if (!r->raw_sha256 || strcmp(hex, r->raw_sha256)) {
		snprintf(why, nwhy, "%s does not match the sha256 the agent reported", r->raw_path);
		got = -1;
		goto out;
	}
out:
	if (fd >= 0)
		close(fd);
	if (pfd >= 0)
		close(pfd);
	if (dfd >= 0)
		close(dfd);
	if (got != 0) {
		srt_buf_release(&b);
		return NULL;
	}
	return srt_buf_detach(&b);
}

int srt_ctl_ingest_point_event(struct srt_store *store, const char *run, const char *run_dir,
			       const struct srt_rundir_event *ev, struct srt_error *err)
{
	struct srt_point_report r;
	struct srt_point_finish f = { 0 };
	struct srt_error bad;
	char why[512] = "";
	char *raw = NULL, *msg = NULL;
	int rc;

	if (!ev->reason || !ev->json ||
	    (strcmp(ev->reason, "PointStarted") && strcmp(ev->reason, "PointFinished")))
		return 0;
	if (!strcmp(ev->reason, "PointStarted")) {
		const json_t *p = json_object_get(ev->json, "point");
		const char *id = json_string_value(json_object_get(p, "id"));
		json_int_t seq = json_integer_value(json_object_get(p, "seq"));

		if (!id || strlen(id) != 64)
			return srt_store_event(store, err, "Warning", "PointReportRefused", "run",
					       run, "controller",
					       "events.jsonl: seq %lld: a PointStarted without a "
					       "point id",
					       (long long)ev->seq);
		return srt_store_point_started(store, run, id, seq, ev->time, err) < 0 ? -1 : 0;
	}
	srt_error_clear(&bad);
	rc = srt_point_report_read(ev->json, &r, &bad);
	if (rc <= 0)
		return srt_store_event(store, err, "Warning", "PointReportRefused", "run", run,
				       "controller", "events.jsonl: seq %lld: %s",
				       (long long)ev->seq, rc < 0 ? bad.msg : "no point report");
	f.point_id = r.id;
	f.seq = r.seq;
	f.state = r.state;
	f.attempts = r.attempts;
	f.message = r.reason;
	f.started_at = r.started_at;
	f.finished_at = r.finished_at ? r.finished_at : ev->time;
	f.slo_met = r.slo_met;
	memcpy(f.metrics, r.metrics, sizeof(f.metrics));
	if (r.raw_path && run_dir) {
		raw = read_raw(run_dir, &r, why, sizeof(why));
		if (raw) {
			f.raw_path = r.raw_path;
			f.raw_sha256 = r.raw_sha256;
			f.raw_json = raw;
		} else if (!strcmp(r.state, "done")) {
			/* A result srtctl cannot check is not a result. */
			f.state = "invalid";
			msg = srt_xasprintf("the result file cannot be trusted: %s", why);
			f.message = msg;
		}
	}
	rc = srt_store_point_finished(store, run, &f, err) < 0 ? -1 : 0;
	free(raw);
	free(msg);
	return rc;
}
