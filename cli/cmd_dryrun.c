/*
 * cli/cmd_dryrun.c: `srtctl dry-run -f FILE [-o text|json]`.
 *
 * Shows what the first run of a recipe would be without touching SLURM:
 * the job as the controller submits it (its properties, sent through
 * slurmrestd, and job.sh byte for byte as the controller writes it for run
 * <recipe>-1-1), then the plan the agent carries out: every process in
 * start order with its node, command line, container, readiness, restart
 * policy, start group and stop tier, an env table per role (the MOONCAKE_*
 * values srtctl stamps included, with node placeholders such as
 * <infra_node_ip>), the rendered vLLM store_config, and the warnings.  A
 * variant file prints each variant, a directory each recipe below it; in
 * JSON several recipes are {"kind": "List", "items": [...]}.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "recipe/launch.h"
#include "recipe/render.h"
#include "recipe/script.h"
#include "runplan/plan.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/shell.h"
#include "util/strutil.h"

static const char usage_text[] =
	"usage: srtctl dry-run -f FILE|DIR [-o text|json] [--cluster-config PATH] [--job-name NAME]\n"
	"\n"
	"Show what running a recipe would do, without touching SLURM: the job as the controller\n"
	"submits it (its properties, sent through slurmrestd, and job.sh exactly as the controller\n"
	"writes it for the recipe's first run, <recipe>-1-1), then the plan the agent carries\n"
	"out: every process (mooncake master, stores, workers, frontend, benchmark) in start\n"
	"order with its command line, readiness, restart policy, start group and stop tier, an\n"
	"env table per role with the MOONCAKE_* values srtctl sets (owner 'srtctl'), the vLLM\n"
	"store_config JSON, and warnings. Node names and IPs are only known inside the\n"
	"allocation, so they appear as placeholders: <infra_node_ip>, <prefill_node_0>,\n"
	"<prefill_node_0_ip>, <worker_ip> (each worker's own node IP), <log_dir>.\n"
	"A campaign file (kind: Campaign) shows each of its deployments this way (apply\n"
	"--dry-run lists its points).\n"
	"\n"
	"Options:\n"
	"  -f, --filename PATH      recipe file, directory (every *.yaml / *.yml below it,\n"
	"                           sorted), or - for stdin; FILE:SELECTOR picks variants\n"
	"                           of a variant file (see srtctl apply --help)\n"
	"  -o, --output FORMAT      text (default) or json\n"
	"      --cluster-config P   srtslurm.yaml to use (default: $SRTSLURM_CONFIG, then\n"
	"                           ./srtslurm.yaml, then built-in defaults)\n"
	"      --job-name NAME      the run's name, which names the SLURM job and the run\n"
	"                           directory (default: <recipe>-1-1, the first run)\n"
	"  -h, --help               show this help\n"
	"\n"
	"Run directories go under runtime.log_root of the cluster config (default ./outputs,\n"
	"relative to the working directory), as the controller's do.\n"
	"\n"
	"Exit codes: 0 rendered, 1 a recipe is invalid, 2 usage or I/O error.\n"
	"\n"
	"Examples:\n"
	"  srtctl dry-run -f recipes/qwen3-mooncake.yaml\n"
	"  srtctl dry-run -f recipes/qwen3-mooncake.yaml -o json | jq '.env'\n";

/* What one dry-run needs besides the recipe. */
struct dctx {
	const struct srt_cluster *cluster;
	const char *run_root; /* absolute */
	const char *job_name; /* --job-name, or NULL */
	enum srt_output fmt;
	json_t *items;	      /* JSON: one item per recipe */
	struct srt_buf *text; /* text: everything */
	const char *selector; /* -f FILE:SELECTOR's, or NULL */
};

/* A value on one display line: control bytes escaped, the rest as is. */
static void put_display(struct srt_buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\n')
			srt_buf_puts(b, "\\n");
		else if (*p == '\t')
			srt_buf_puts(b, "\\t");
		else if (*p < 0x20 || *p == 0x7f)
			srt_buf_printf(b, "\\x%02x", *p);
		else
			srt_buf_putc(b, (char)*p);
	}
}

static void owner_text(struct srt_buf *b, const struct srt_runplan_envsrc *v)
{
	bool recipe = !v->owner || !strcmp(v->owner, srt_env_owner_name(SRT_OWNER_RECIPE));

	srt_buf_puts(b, v->owner ? v->owner : "?");
	if (recipe) {
		srt_buf_printf(b, " (%s)", v->layer ? v->layer : "");
	} else {
		srt_buf_printf(b, " (%s", v->layer ? v->layer : "");
		if (v->overridden) {
			srt_buf_puts(b, "; overrides '");
			put_display(b, v->overridden);
			srt_buf_printf(b, "' from %s",
				       v->overridden_layer ? v->overridden_layer : "?");
		}
		srt_buf_putc(b, ')');
	}
}

/* An env table: names[i] = values[i], from src[i]. */
static void print_env_rows(FILE *out, const char *const *names, const char *const *values,
			   const struct srt_runplan_envsrc *src, size_t n, const char *indent)
{
	static const struct srt_runplan_envsrc unknown = { NULL, NULL, NULL, NULL };
	size_t wn = strlen("NAME"), wv = strlen("VALUE");
	struct srt_buf val, own;

	srt_buf_init(&val);
	srt_buf_init(&own);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);

		srt_buf_reset(&val);
		put_display(&val, values[i]);
		wn = len > wn ? len : wn;
		wv = val.len > wv ? val.len : wv;
	}
	if (wv > 60)
		wv = 60;
	fprintf(out, "%s%-*s  %-*s  %s\n", indent, (int)wn, "NAME", (int)wv, "VALUE", "OWNER");
	for (size_t i = 0; i < n; i++) {
		srt_buf_reset(&val);
		srt_buf_reset(&own);
		put_display(&val, values[i]);
		owner_text(&own, src ? &src[i] : &unknown);
		fprintf(out, "%s%-*s  %-*s  %s\n", indent, (int)wn, names[i], (int)wv, val.data,
			own.data);
	}
	if (!n)
		fprintf(out, "%s(empty)\n", indent);
	srt_buf_release(&val);
	srt_buf_release(&own);
}

/* A role's env table (srt_render_role_env()). */
static void print_env_table(FILE *out, struct srt_arena *a, const struct srt_renv *e)
{
	const char **names = srt_arena_alloc(a, (e->n + 1) * sizeof(char *));
	const char **values = srt_arena_alloc(a, (e->n + 1) * sizeof(char *));
	struct srt_runplan_envsrc *src = srt_arena_alloc(a, (e->n + 1) * sizeof(*src));

	for (size_t i = 0; i < e->n; i++) {
		names[i] = e->v[i].name;
		values[i] = e->v[i].value;
		src[i] = (struct srt_runplan_envsrc){ srt_env_owner_name(e->v[i].owner),
						      e->v[i].layer, e->v[i].overridden,
						      e->v[i].overridden_layer };
	}
	print_env_rows(out, names, values, src, e->n, "");
}

static void readiness_text(struct srt_buf *b, const struct srt_runplan_proc *pr)
{
	if (!pr->nprobes) {
		srt_buf_puts(b, "none (started once launched)");
		return;
	}
	for (size_t i = 0; i < pr->nprobes; i++) {
		const struct srt_runplan_probe *p = &pr->probes[i];

		if (i)
			srt_buf_putc(b, ' ');
		if (p->pattern)
			srt_buf_printf(b, "log:/%s/ (a line of its log since its start)",
				       p->pattern);
		else if (p->file)
			srt_buf_printf(b, "file:<log_dir>/%s (nonempty; removed before each start)",
				       p->file);
		else if (p->http)
			srt_buf_printf(b, "http:%d GET %s -> %d", p->port, p->path, p->status);
		else
			srt_buf_printf(b, "tcp:%d", p->port);
		if (p->host)
			srt_buf_printf(b, " on %s", p->host);
		if (p->ray_alive)
			srt_buf_printf(b, " listing %d Ray nodes ALIVE", p->ray_alive);
	}
	srt_buf_printf(b, " (timeout %ds, every %ds)", pr->timeout_s, pr->interval_s);
}

/* How the agent restarts it, as the plan says. */
static void restart_text(struct srt_buf *b, const struct srt_runplan_proc *ap)
{
	const struct srt_restart_policy *rp = &ap->restart;

	srt_buf_puts(b, srt_restart_mode_name(rp->mode));
	if (rp->mode != SRT_RESTART_NEVER)
		srt_buf_printf(b, ", at most %d restarts, back-off %ds doubling to %ds",
			       rp->max_restarts, rp->backoff_seconds, rp->max_backoff_seconds);
	if (ap->follows)
		srt_buf_printf(b, "; restarted after %s restarts", ap->follows);
}

/*
 * What srtctl added to a worker's or router's command line and why
 * (recipe/launch.h): one line per flag, its values beside it.
 */
/* The file the agent writes before each start (TRT-LLM's engine YAML), indented. */
static void print_config_file(FILE *out, const struct srt_runplan_proc *pr)
{
	const char *s = pr->config_text;

	fprintf(out, "    file:      <log_dir>/%s (written by the agent before each start)\n",
		pr->config_file);
	while (*s) {
		size_t n = strcspn(s, "\n");

		fprintf(out, "      | %.*s\n", (int)n, s);
		s += n + (s[n] == '\n');
	}
}

static void print_launch(FILE *out, const struct srt_plan *p, const struct srt_runplan_proc *pr)
{
	struct srt_arena a;
	struct srt_launch ln = { 0 };
	const struct srt_lworker *w = NULL;

	srt_arena_init(&a);
	for (int k = 0; pr->kind == SRT_PROC_WORKER && k < SRT_ROLE_COUNT; k++)
		if (pr->role && !strcmp(pr->role, srt_role_name((enum srt_role_kind)k)))
			w = srt_layout_worker(&p->layout, (enum srt_role_kind)k, pr->index);
	if (w)
		srt_launch_worker(&ln, &a, p->recipe, p->cluster, &p->layout, w, pr->rank);
	else if (pr->kind == SRT_PROC_FRONTEND && !strcmp(pr->name, "frontend"))
		srt_launch_frontend(&ln, &a, p->recipe, p->cluster, &p->layout);
	else if (pr->kind == SRT_PROC_FRONTEND && strcmp(pr->name, "nginx"))
		/* one of several behind nginx */
		srt_launch_frontend_at(&ln, &a, p->recipe, p->cluster, &p->layout, pr->node,
				       SRT_LAUNCH_FRONTEND_INTERNAL_PORT);
	if (ln.nwords)
		fprintf(out, "    srtctl adds:\n");
	for (size_t i = 0; i < ln.nwords;) {
		struct srt_buf b;
		size_t j = i + 1;

		while (j < ln.nwords && ln.words[j].why == ln.words[i].why &&
		       ln.words[j].arg[0] != '-')
			j++;
		srt_buf_init(&b);
		for (size_t k = i; k < j; k++)
			srt_buf_printf(&b, "%s%s", k > i ? " " : "", ln.words[k].arg);
		fprintf(out, "      %-40s %s\n", b.data, ln.words[i].why);
		srt_buf_release(&b);
		i = j;
	}
	srt_arena_release(&a);
}

static void print_proc(FILE *out, const struct srt_plan *plan, size_t idx)
{
	const struct srt_runplan *p = &plan->run;
	const struct srt_runplan_proc *pr = &p->procs[idx];
	struct srt_buf b;

	srt_buf_init(&b);
	switch (pr->kind) {
	case SRT_PROC_SERVICE:
		fprintf(out, "[%zu] %s: service '%s', type %s%s%s, start %s%s%s\n", idx, pr->name,
			pr->service, pr->type, pr->placement ? ", placement " : "",
			pr->placement ? pr->placement : "", pr->phase,
			pr->external ? ", external (probed, never launched)" : "",
			pr->critical ? ", critical" : "");
		break;
	case SRT_PROC_WORKER:
		fprintf(out, "[%zu] %s: %s worker %d%s\n", idx, pr->name, pr->role, pr->index,
			pr->rank ? " (additional node)" : "");
		break;
	default:
		fprintf(out, "[%zu] %s\n", idx, pr->name);
		break;
	}
	if (pr->external) {
		fprintf(out, "    address:   %s\n", pr->endpoint);
	} else {
		fprintf(out, "    node:      %s (%s)\n", p->node_host_ph[pr->node],
			p->node_ip_ph[pr->node]);
		if (pr->mpi && !strcmp(pr->mpi, "none")) {
			fputs("    step:      srun --mpi=none: one task outside any MPI world\n",
			      out);
		} else if (pr->mpi) {
			fprintf(out, "    step:      %d MPI rank%s (srun --mpi=%s; %d a node) on",
				pr->ntasks, pr->ntasks == 1 ? "" : "s", pr->mpi,
				pr->ntasks / (int)pr->nnodes);
			for (size_t k = 0; k < pr->nnodes; k++)
				fprintf(out, "%s %s", k ? "," : "", p->node_host_ph[pr->node + k]);
			fputs("; rank 0 runs the command\n", out);
		}
		srt_shell_argv(&b, pr->argv, pr->argc);
		fprintf(out, "    command:   %s\n", b.data);
		if (pr->run_dir)
			fprintf(out,
				"    run dir:   <log_dir>/%s (created by the agent before each start)\n",
				pr->run_dir);
		for (size_t k = 0; k < pr->nclear; k++)
			fprintf(out, "    clears:    <log_dir>/%s (removed before each start)\n",
				pr->clear[k]);
		print_launch(out, plan, pr);
		fprintf(out, "    container: %s\n",
			pr->container ? pr->container : "none (bare node)");
		if (pr->nsrun_opts) {
			srt_buf_reset(&b);
			srt_shell_argv(&b, pr->srun_opts, pr->nsrun_opts);
			fprintf(out, "    srun:      %s (%s, after srtctl's)\n", b.data,
				!strcmp(pr->srun_opts[0], "--export=ALL,ENROOT_REMAP_ROOT=yes") ?
					"root in the container for Dynamo's install; srun_options" :
					"srun_options");
		}
	}
	srt_buf_reset(&b);
	readiness_text(&b, pr);
	fprintf(out, "    readiness: %s\n", b.data);
	srt_buf_reset(&b);
	restart_text(&b, pr);
	fprintf(out, "    restart:   %s%s\n", b.data, pr->critical ? " (critical)" : "");
	fprintf(out, "    order:     start group %d, stop tier %d (%s)\n", pr->group, pr->tier,
		pr->tier == 2 ? "stopped last" :
		pr->tier == 1 ? "stopped second" :
				"stopped first");
	if (!pr->external) {
		fprintf(out, "    log:       <log_dir>/%s\n", pr->log_file);
		if (pr->config_file)
			print_config_file(out, pr);
		fprintf(out, "    env:\n");
		print_env_rows(out, pr->env_names, pr->env_values, pr->env_src, pr->nenv, "      ");
	}
	srt_buf_release(&b);
}

/*
 * The job object srtctl POSTs to slurmrestd's job/submit for run j, per API
 * version: the cluster config's pinned version, else every version srtctl
 * speaks.  Each maps to the "job" object (its "script" left out: job.sh is
 * shown whole) or to {"error": why it cannot be sent}.
 */
static json_t *sent_jobs(const struct srt_cli_job *j, const struct srt_cluster *cl)
{
	const char *const *all = srt_slurm_supported_versions();
	const char *pinned[2] = { cl ? cl->slurmrestd.api_version : NULL, NULL };
	const char *const *vs = pinned[0] && *pinned[0] ? pinned : all;
	json_t *out = json_object();
	struct srt_job_spec spec = { 0 };

	(void)srt_script_job_spec(&j->props, &spec);
	spec.name = j->run_name;
	spec.comment = "srtctl:<run-uid>:1";
	spec.script = j->script;
	spec.cwd = j->run_dir;
	spec.stdout_path = j->output;
	spec.stderr_path = j->output;
	for (size_t i = 0; vs[i]; i++) {
		struct srt_error err;
		char *text = NULL;
		json_t *body, *job;

		if (srt_slurm_submit_body(vs[i], &spec, &text, &err) != 0) {
			json_object_set_new(out, vs[i], json_pack("{s:s}", "error", err.msg));
			continue;
		}
		body = json_loads(text, 0, NULL);
		job = json_incref(json_object_get(body, "job"));
		json_object_del(job, "script");
		json_object_set_new(out, vs[i], job ? job : json_object());
		json_decref(body);
		free(text);
	}
	return out;
}

static void print_job(FILE *out, const struct srt_cli_job *j, const struct srt_cluster *cl)
{
	const struct srt_job_props *jp = &j->props;
	json_t *sent = sent_jobs(j, cl);
	const char *vs[16];
	size_t n = 0;
	const char *v;
	json_t *job;

	fputs("## Job (what the controller submits through slurmrestd)\n\n", out);
	fprintf(out, "  name        %s\n", j->run_name);
	fprintf(out, "  nodes       %zu\n", jp->nodes);
	fprintf(out, "  partition   %s\n", jp->partition ? jp->partition : "(SLURM's default)");
	fprintf(out, "  account     %s\n", jp->account ? jp->account : "(SLURM's default)");
	fprintf(out, "  time limit  %s\n",
		jp->time_limit ? jp->time_limit : "(the partition's default)");
	fprintf(out, "  exclusive   %s\n",
		jp->exclusive ? "yes (the nodes are the job's alone)" : "no");
	fputs("  comment     srtctl:<run-uid>:1 (how the controller finds its job again)\n", out);
	fprintf(out, "  directory   %s\n", j->run_dir);
	fprintf(out, "  output      %s\n", j->output);
	for (size_t i = 0; i < jp->ndirectives; i++)
		fprintf(out, "  directive   --%s%s%s (from %s%s)\n", jp->directives[i].name,
			*jp->directives[i].value ? "=" : "", jp->directives[i].value,
			jp->sources[i],
			jp->directives[i].optional ?
				"; left out where the API version has no field" :
				"");
	fputs("\n  As sent to slurmrestd (POST job/submit; \"script\" is job.sh below):\n", out);
	json_object_foreach(sent, v, job)
	{
		if (n < sizeof(vs) / sizeof(vs[0]))
			vs[n++] = v;
	}
	/* Versions that get the same job object share a line. */
	for (size_t a = 0; a < n; a++) {
		char *text;

		if (!vs[a])
			continue;
		job = json_object_get(sent, vs[a]);
		fprintf(out, "  %s", vs[a]);
		for (size_t b = a + 1; b < n; b++) {
			if (vs[b] && json_equal(job, json_object_get(sent, vs[b]))) {
				fprintf(out, ", %s", vs[b]);
				vs[b] = NULL;
			}
		}
		text = json_dumps(job, JSON_COMPACT | JSON_SORT_KEYS);
		fprintf(out, ":\n    %s\n", text ? text : "?");
		free(text);
	}
	json_decref(sent);
	fprintf(out, "\n## job.sh (%s/job.sh)\n\n", j->run_dir);
	fputs(j->script, out);
}

static void print_text(FILE *out, const struct srt_recipe *r, const struct srt_plan *p,
		       const struct srt_cli_job *j, const struct srt_diags *warnings)
{
	const struct srt_layout *l = &p->layout;
	struct srt_arena a;

	srt_arena_init(&a);
	fprintf(out, "# Recipe '%s' (engine %s, %s)\n\n", r->name ? r->name : "?",
		srt_engine_name(r->engine), r->file ? r->file : "-");
	if (r->model.path || r->model.container) {
		const char *img = srt_render_job_container(r, p->cluster);

		/* container: '' is no container (validate warns): NULL here */
		fprintf(out, "Model: %s, container %s\n\n", r->model.path ? r->model.path : "-",
			img ? img : "-");
	}
	if (p->run.nmounts) {
		bool at_model = false;

		fputs("Mounts:", out);
		for (size_t i = 0; i < p->run.nmounts; i++) {
			const char *dst = strchr(p->run.mounts[i], ':');

			at_model = at_model || (dst && srt_runplan_at_model_dir(dst + 1));
			fprintf(out, "%s %s", i ? "," : "", p->run.mounts[i]);
		}
		fprintf(out, " (%s%s)\n\n",
			p->run.pyxis ? "each container's, after the log directory at /logs" :
				       "ignored: container_runtime is none",
			p->run.pyxis && at_model ? "; the workers mount the model at /model once" :
						   "");
	}
	print_job(out, j, p->cluster);
	fputs("\n## Nodes\n\n", out);
	for (size_t i = 0; i < l->nnodes; i++)
		fprintf(out, "  %zu  %-20s %-24s%s%s\n", i, l->nodes[i].host, l->nodes[i].ip,
			i == l->head ? " head" : "", i == l->infra ? " infra" : "");
	if (p->master)
		fprintf(out, "\n  mooncake master: %s (metadata %s)%s\n", p->master_addr,
			srt_render_metadata_url(&a, r, l), p->master_external ? ", external" : "");
	fprintf(out, "\n  frontend URL (SRT_FRONTEND_URL): %s\n",
		p->run.frontend_url_ph ? p->run.frontend_url_ph : "none (frontend.type none)");
	fputs("\n## Processes (the plan the agent carries out, in start order)\n\n", out);
	fputs("A process in start group G starts once every process with readiness probes in a\n"
	      "lower group is ready. Stop tier 0 stops first, then 1 (stores), then 2 (the master).\n\n",
	      out);
	for (size_t i = 0; i < p->run.nprocs; i++) {
		print_proc(out, p, i);
		fputc('\n', out);
	}
	if (!p->run.nprocs)
		fputs("(none)\n\n", out);
	for (int k = 0; k < SRT_ROLE_COUNT; k++) {
		struct srt_renv e;

		if (!r->roles[k].present)
			continue;
		srt_render_role_env(&e, &a, r, p->cluster, l, (enum srt_role_kind)k,
				    SRT_PH_WORKER_IP);
		fprintf(out, "## Env: %s workers\n\n", srt_role_name((enum srt_role_kind)k));
		print_env_table(out, &a, &e);
		fputc('\n', out);
	}
	fputs("## store_config\n\n", out);
	for (size_t i = 0; i < p->nstore_configs; i++) {
		char *text = json_dumps(p->store_configs[i], JSON_INDENT(2));

		fprintf(out, "%sWritten to %s by the agent (MOONCAKE_CONFIG_PATH):\n%s\n",
			i ? "\n" : "", p->store_config_files[i], text ? text : "{}");
		free(text);
	}
	if (!p->nstore_configs)
		fprintf(out, "none (%s)\n",
			!p->master ?
				"no mooncake-master service" :
			srt_recipe_trtllm_pool(r) ?
				"TRT-LLM's pool commands: each worker that provisions the pool "
				"renders mooncake.json in its run dir" :
			r->engine == SRT_ENGINE_TRTLLM ?
				"no TRT-LLM role selects the mooncake-store connector" :
				"only vLLM and TRT-LLM read a store_config; other engines "
				"use the roles' env");
	fputs("\n## Warnings\n\n", out);
	for (size_t i = 0; i < warnings->n; i++) {
		char *s = srt_diag_format(&warnings->items[i]);

		fprintf(out, "%s\n", s);
		free(s);
	}
	if (!warnings->n)
		fputs("(none)\n", out);
	srt_arena_release(&a);
}

static json_t *job_json(const struct srt_cli_job *j, const struct srt_cluster *cl)
{
	const struct srt_job_props *jp = &j->props;
	json_t *dirs = json_object(), *list = json_array();

	for (size_t i = 0; i < jp->ndirectives; i++) {
		json_object_set_new(dirs, jp->directives[i].name,
				    json_string(jp->directives[i].value));
		json_array_append_new(
			list, json_pack("{s:s, s:s, s:s, s:b}", "name", jp->directives[i].name,
					"value", jp->directives[i].value, "from", jp->sources[i],
					"optional", jp->directives[i].optional));
	}
	return json_pack("{s:s, s:I, s:s?, s:s?, s:s?, s:b, s:s, s:s, s:s, s:o, s:o, s:o}", "name",
			 j->run_name, "nodes", (json_int_t)jp->nodes, "partition", jp->partition,
			 "account", jp->account, "time_limit", jp->time_limit, "exclusive",
			 jp->exclusive, "comment", "srtctl:<run-uid>:1",
			 "current_working_directory", j->run_dir, "standard_output", j->output,
			 "directives", dirs, "directive_list", list, "slurmrestd",
			 sent_jobs(j, cl));
}

static json_t *to_json(const struct srt_recipe *r, const struct srt_plan *p,
		       const struct srt_cli_job *j, const struct srt_diags *warnings)
{
	const char *script = j->script;
	json_t *o = json_object(), *plan = srt_runplan_to_json(&p->run), *services = json_array();
	json_t *env = json_array(), *warn = json_array(), *procs;
	struct srt_arena a;

	srt_arena_init(&a);
	json_object_set_new(o, "recipe", json_string(r->name ? r->name : ""));
	json_object_set_new(o, "file", json_string(r->file ? r->file : "-"));
	json_object_set_new(o, "engine", json_string(srt_engine_name(r->engine)));
	json_object_set_new(o, "model",
			    json_pack("{s:s?, s:s?}", "path", r->model.path, "container",
				      srt_render_job_container(r, p->cluster)));
	json_object_set_new(o, "job", job_json(j, p->cluster));
	json_object_set_new(o, "batch_script", json_string(script));
	procs = json_object_get(plan, "processes");
	for (size_t i = 0; i < json_array_size(procs); i++) {
		json_t *pj = json_array_get(procs, i);

		if (!strcmp(json_string_value(json_object_get(pj, "kind")), "service"))
			json_array_append(services, pj);
	}
	json_object_set_new(o, "services", services);
	for (int k = 0; k < SRT_ROLE_COUNT; k++) {
		struct srt_renv e;
		json_t *rows;
		size_t i;
		json_t *row;

		if (!r->roles[k].present)
			continue;
		srt_render_role_env(&e, &a, r, p->cluster, &p->layout, (enum srt_role_kind)k,
				    SRT_PH_WORKER_IP);
		rows = srt_renv_to_json(&e);
		json_array_foreach(rows, i, row)
		{
			json_t *full = json_object();

			json_object_set_new(full, "role",
					    json_string(srt_role_name((enum srt_role_kind)k)));
			json_object_update(full, row);
			json_array_append_new(env, full);
		}
		json_decref(rows);
	}
	json_object_set_new(o, "env", env);
	/* Every client config as the plan carries it; vLLM's one also as "store_config". */
	json_object_set_new(o, "store_config",
			    p->nstore_configs == 1 && r->engine == SRT_ENGINE_VLLM ?
				    json_deep_copy(p->store_configs[0]) :
				    json_null());
	json_object_set(o, "store_configs", json_object_get(plan, "store_configs"));
	for (size_t i = 0; i < warnings->n; i++) {
		char *s = srt_diag_format(&warnings->items[i]);

		json_array_append_new(warn, json_string(s));
		free(s);
	}
	json_object_set_new(o, "warnings", warn);
	json_object_set_new(o, "plan", plan);
	srt_arena_release(&a);
	return o;
}

/* One recipe: JSON item or text appended.  Returns an exit code. */
static int dryrun_recipe(const struct dctx *x, const struct srt_recipe *r, struct srt_diags *local)
{
	struct srt_plan *p = srt_plan_build(r, x->cluster, local);
	struct srt_cli_job j = { 0 };
	int rc = SRT_EXIT_OK;

	if (!p || srt_cli_job_make(&j, p, x->cluster, x->run_root, NULL, x->job_name, local) != 0 ||
	    local->nerrors) {
		srt_diags_print(local, stderr);
		fprintf(stderr,
			"srtctl dry-run: recipe '%s' cannot be rendered; fix the errors above\n",
			r->name ? r->name : "?");
		rc = SRT_EXIT_INVALID;
		goto out;
	}
	if (x->fmt == SRT_OUT_JSON) {
		json_array_append_new(x->items, to_json(r, p, &j, local));
	} else {
		char *buf = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&buf, &len);

		if (mem) {
			if (x->text->len)
				fputs("\n", mem);
			print_text(mem, r, p, &j, local);
			fclose(mem);
			srt_buf_append(x->text, buf, len);
			free(buf);
		}
	}
out:
	srt_cli_job_release(&j);
	srt_plan_free(p);
	return rc;
}

/* Render each deployment of a campaign (its child recipe, as apply records it). */
static int dryrun_campaign(const struct dctx *x, const char *file,
			   const struct srt_cli_campaign_check *cc)
{
	int rc = SRT_EXIT_OK;

	if (cc->nerrors) {
		fprintf(stderr,
			"srtctl dry-run: campaign %s is not valid; fix the errors above (srtctl "
			"validate -f %s shows the same)\n",
			file, file);
		return SRT_EXIT_INVALID;
	}
	if (x->fmt != SRT_OUT_JSON)
		srt_buf_printf(x->text,
			       "# campaign %s: %zu deployment(s), %zu point(s); each deployment "
			       "below as its job would run (srtctl apply --dry-run -f %s lists the "
			       "points)\n\n",
			       cc->name, cc->ndeployments, cc->npoints, file);
	for (size_t i = 0; i < cc->ndeployments; i++) {
		struct srt_compiled comp = { NULL, NULL, 0 };
		struct srt_diags d;
		char *label = srt_xasprintf("%s [campaign %s]", file, cc->name);
		int one = SRT_EXIT_INVALID;

		srt_diags_init(&d);
		if (!srt_compile_bytes(cc->specs[i], strlen(cc->specs[i]), label, x->cluster, &comp,
				       &d) &&
		    comp.n == 1) {
			struct srt_diags local;

			srt_diags_init(&local);
			srt_cli_recipe_warnings(&d, comp.recipes[0]->file, &local);
			one = dryrun_recipe(x, comp.recipes[0], &local);
			srt_diags_release(&local);
		} else {
			srt_diags_print(&d, stderr);
		}
		rc = one > rc ? one : rc;
		srt_compiled_release(&comp);
		srt_diags_release(&d);
		free(label);
	}
	return rc;
}

/* Compile `file` and render each of its recipes.  Returns an exit code. */
static int dryrun_file(const struct dctx *x, const char *file)
{
	struct srt_compiled comp = { NULL, NULL, 0 };
	struct srt_cli_campaign_check cc;
	struct srt_diags d;
	int rc = SRT_EXIT_OK;

	if (!x->selector && srt_cli_campaign_check("dry-run", file, x->cluster, &cc)) {
		rc = dryrun_campaign(x, file, &cc);
		srt_cli_campaign_check_release(&cc);
		return rc;
	}
	srt_diags_init(&d);
	if (srt_compile_file_selected(file, x->selector, x->cluster, &comp, &d)) {
		srt_diags_print(&d, stderr);
		fprintf(stderr,
			"srtctl dry-run: %s is not valid; fix the errors above (srtctl "
			"validate -f %s shows the same)\n",
			file, file);
		rc = SRT_EXIT_INVALID;
		goto done;
	}
	if (!comp.n) {
		srt_diags_print(&d, stderr);
		rc = SRT_EXIT_INVALID;
		goto done;
	}
	for (size_t i = 0; i < comp.n; i++) {
		const struct srt_recipe *r = comp.recipes[i];
		struct srt_diags local;
		int one;

		srt_diags_init(&local);
		srt_cli_recipe_warnings(&d, r->file, &local);
		one = dryrun_recipe(x, r, &local);
		rc = one > rc ? one : rc;
		srt_diags_release(&local);
	}
done:
	srt_compiled_release(&comp);
	srt_diags_release(&d);
	return rc;
}

int srt_cmd_dryrun(int argc, char **argv)
{
	enum {
		OPT_CLUSTER = 256,
		OPT_JOB
	};
	static const struct option opts[] = {
		{ "filename", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "cluster-config", required_argument, NULL, OPT_CLUSTER },
		{ "job-name", required_argument, NULL, OPT_JOB },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum srt_output fmt = SRT_OUT_TEXT;
	const char *file = NULL, *cluster_path = NULL, *job_name = NULL;
	struct dctx x;
	char *run_root = NULL;
	struct srt_cluster cluster;
	char **files = NULL, *selector = NULL;
	size_t nfiles = 0;
	json_t *items = NULL;
	struct srt_buf text;
	bool have_cluster = false;
	int c, rc = SRT_EXIT_OK;

	srt_buf_init(&text);
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (file)
				return srt_cli_usage_error("dry-run",
							   "give one recipe file (-f) per dry-run");
			file = optarg;
			break;
		case 'o':
			if (srt_cli_parse_output("dry-run", optarg, &fmt, false) != 0)
				return SRT_EXIT_USAGE;
			break;
		case OPT_CLUSTER:
			cluster_path = optarg;
			break;
		case OPT_JOB:
			job_name = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return SRT_EXIT_OK;
		default:
			return srt_cli_usage_error("dry-run", "unknown option");
		}
	}
	if (optind < argc)
		return srt_cli_usage_error("dry-run", "unexpected argument '%s' (use -f FILE)",
					   argv[optind]);
	if (!file)
		return srt_cli_usage_error("dry-run", "no recipe given; use -f FILE");
	if (job_name) {
		char buf[64];
		const char *why = srt_name_problem(job_name, buf, sizeof(buf));

		if (why)
			return srt_cli_usage_error("dry-run",
						   "--job-name '%s' is not a valid name: %s; %s "
						   "(it names the SLURM job and the run directory)",
						   job_name, why, SRT_NAME_RULE);
	}

	rc = srt_cli_load_cluster_at("dry-run", cluster_path, &cluster, true);
	have_cluster = true;
	if (rc != SRT_EXIT_OK)
		goto out;
	cluster.env = srt_cli_getenv; /* srt-slurm's $VARs, as apply will resolve them */

	if (srt_cli_expand_path_sel("dry-run", file, &files, &nfiles, &selector) != 0) {
		rc = SRT_EXIT_USAGE;
		goto out;
	}
	run_root = srt_cli_run_root("dry-run", &cluster);
	if (!run_root) {
		rc = SRT_EXIT_USAGE;
		goto out;
	}
	if (fmt == SRT_OUT_JSON)
		items = json_array();
	x = (struct dctx){ &cluster, run_root, job_name, fmt, items, &text, selector };
	for (size_t i = 0; i < nfiles; i++) {
		int one = dryrun_file(&x, files[i]);

		rc = one > rc ? one : rc;
	}
	/* What did render is shown even when another file failed (exit 1). */
	if (fmt == SRT_OUT_JSON && json_array_size(items)) {
		json_t *top = json_array_size(items) == 1 ?
				      json_incref(json_array_get(items, 0)) :
				      json_pack("{s:s, s:O}", "kind", "List", "items", items);

		json_dumpf(top, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(top);
	} else if (fmt != SRT_OUT_JSON) {
		fwrite(text.data, 1, text.len, stdout);
	}
out:
	free(run_root);
	free(selector);
	json_decref(items);
	srt_buf_release(&text);
	srt_cli_free_files(files, nfiles);
	if (have_cluster)
		srt_cluster_release(&cluster);
	return rc;
}
