/*
 * recipe/script.c: the batch script of a run (job.sh).
 *
 * This file owns the text of job.sh: the #SBATCH lines (the job properties
 * the controller also sends through slurmrestd, so `sbatch job.sh` asks
 * SLURM for the same job) and the one command the job runs, `srtctl agent
 * --run-dir DIR`.  The agent (agent/agent.h) is the only program that
 * carries out a plan.  Every value that comes from a recipe, the cluster
 * config or the caller is written through util/shell.h quoting or checked
 * to survive sbatch's own parsing.
 */
#include "recipe/script.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/buf.h"
#include "util/shell.h"
#include "util/version_gen.h"

/* ---- job.sh ---- */

struct sctx {
	const struct srt_plan *p;
	struct srt_buf *out;
	struct srt_diags *d;
	const char *file;
	int rc;
};

/* Text inside a # comment: a control byte would end the comment, so it becomes '?'. */
static void comment_text(struct srt_buf *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		srt_buf_putc(out, *p < 0x20 || *p == 0x7f ? '?' : (char)*p);
}

/* An #SBATCH option line; the value must survive sbatch's own parsing. */
static void sbatch_opt(struct sctx *c, const char *opt, const char *value, const char *what)
{
	bool space = false;

	for (const char *p = opt; *p; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_')) {
			srt_diags_add(c->d, SRT_DIAG_ERROR, c->file, 0, 0, what,
				      "'%s' is not an sbatch option name (letters, digits, '-' and "
				      "'_'); fix the directive",
				      opt);
			c->rc = -1;
			return;
		}
	}
	for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
		if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\') {
			srt_diags_add(c->d, SRT_DIAG_ERROR, c->file, 0, 0, what,
				      "'%s' cannot be written as an #SBATCH option: it contains a "
				      "control character, a double quote or a backslash; remove it",
				      value);
			c->rc = -1;
			return;
		}
		space = space || *p == ' ';
	}
	srt_buf_printf(c->out, "#SBATCH --%s", opt);
	if (*value)
		srt_buf_printf(c->out, space ? "=\"%s\"" : "=%s", value);
	srt_buf_putc(c->out, '\n');
}

/*
 * sbatch options srtctl sets itself: in job.sh's #SBATCH lines and in the
 * job it submits through slurmrestd.  A directive for one would give the job
 * a second value.
 */
struct directive_owner {
	const char *name; /* long option */
	char letter;	  /* short option, or 0 */
	const char *what, *field;
};

static const struct directive_owner directive_owners[] = {
	{ "job-name", 'J', "the job name",
	  "the recipe's 'name' (the controller adds "
	  "-<generation>-<attempt>)" },
	{ "nodes", 'N', "the node count",
	  "roles.<role>.nodes (plus a node for a mooncake-master with placement.node: dedicated)" },
	{ "ntasks", 'n', "the job's tasks",
	  "the plan: every process is its own one-task srun step" },
	{ "ntasks-per-node", 0, "the job's tasks",
	  "the plan: every process is its own one-task srun step" },
	{ "output", 'o', "the job's output file",
	  "the run directory (<run dir>/agent-%j.out; process logs go to the log directory)" },
	{ "error", 'e', "the job's error file",
	  "the run directory (<run dir>/agent-%j.out; process logs go to the log directory)" },
	{ "chdir", 'D', "the job's working directory", "the run directory" },
	{ "comment", 0, "the job comment",
	  "the run's identity (srtctl:<run uid>:<attempt>, which the controller finds its jobs by)" },
	{ "account", 'A', "the account", "slurm.account" },
	{ "partition", 'p', "the partition", "slurm.partition" },
	{ "time", 't', "the time limit", "slurm.time_limit" },
	{ "exclusive", 0, "node exclusivity",
	  "slurm.exclusive (true by default; the cluster config's use_exclusive_sbatch_directive "
	  "sets the default)" },
	{ "oversubscribe", 's', "node sharing", "slurm.exclusive" },
	{ "hold", 'H', "whether the job is held", "the controller (it submits jobs to run)" },
	{ "export", 0, "the job's environment", "the controller (a REST job inherits nothing)" },
};

int srt_script_directive_check(const char *name, const char *value, const char **canon,
			       const char **group, struct srt_error *err)
{
	struct srt_error scratch;

	if (!err)
		err = &scratch;
	while (*name == '-')
		name++;
	for (size_t i = 0; i < sizeof(directive_owners) / sizeof(directive_owners[0]); i++) {
		const struct directive_owner *o = &directive_owners[i];

		if (!strcmp(name, o->name) || (o->letter && name[0] == o->letter && !name[1]))
			return srt_error_set(
				err,
				"srtctl sets %s itself, from %s; remove this directive "
				"(it would give the job a second, conflicting value)",
				o->what, o->field);
	}
	if (srt_slurm_directive_check(name, value, canon, group, err) != 0)
		return -1;
	return 0;
}

/* Add d, replacing an earlier directive of its group. */
static void props_add(struct srt_job_props *jp, const char *name, const char *value, bool optional,
		      const char *source)
{
	const char *canon = name, *group = name, *g2;
	size_t j = 0;

	(void)srt_slurm_directive_check(name, NULL, &canon, &group, NULL);
	for (size_t i = 0; i < jp->ndirectives; i++) {
		g2 = jp->directives[i].name;
		(void)srt_slurm_directive_check(jp->directives[i].name, NULL, NULL, &g2, NULL);
		if (strcmp(g2, group) != 0) {
			jp->directives[j] = jp->directives[i];
			jp->sources[j++] = jp->sources[i];
		}
	}
	jp->ndirectives = j;
	jp->directives[j] =
		(struct srt_slurm_directive){ .name = canon, .value = value, .optional = optional };
	jp->sources[j] = source;
	jp->ndirectives++;
}

void srt_script_job_props(const struct srt_plan *p, struct srt_job_props *out)
{
	const struct srt_recipe *r = p->recipe;
	const struct srt_cluster *cl = p->cluster;
	const struct srt_env *rd = &r->slurm.directives;
	size_t cap = 2 + rd->n + (cl ? cl->default_sbatch_directives.n : 0);

	memset(out, 0, sizeof(*out));
	out->nodes = p->layout.nnodes;
	out->account = r->slurm.account ? r->slurm.account : cl ? cl->default_account : NULL;
	out->partition = r->slurm.partition ? r->slurm.partition :
			 cl		    ? cl->default_partition :
					      NULL;
	out->time_limit = r->slurm.time_limit ? r->slurm.time_limit :
			  cl		      ? cl->default_time_limit :
						NULL;
	out->exclusive = r->slurm.exclusive_set ? r->slurm.exclusive :
			 cl && cl->use_exclusive_sbatch_directive >= 0 ?
						  cl->use_exclusive_sbatch_directive :
						  true;
	out->directives = srt_xcalloc(cap, sizeof(*out->directives));
	out->sources = srt_xcalloc(cap, sizeof(*out->sources));
	if (!cl || cl->use_gpus_per_node_directive) {
		out->owned[0] = srt_xasprintf("%d", r->resources.gpus_per_node);
		props_add(out, "gpus-per-node", out->owned[0], false,
			  "use_gpus_per_node_directive");
	}
	if (!cl || cl->use_segment_sbatch_directive) {
		out->owned[1] = srt_xasprintf("%zu", p->layout.nnodes);
		props_add(out, "segment", out->owned[1], true, "use_segment_sbatch_directive");
	}
	for (size_t i = 0; cl && i < cl->default_sbatch_directives.n; i++)
		props_add(out, cl->default_sbatch_directives.v[i].name,
			  cl->default_sbatch_directives.v[i].value, false,
			  "default_sbatch_directives");
	for (size_t i = 0; i < rd->n; i++)
		props_add(out, rd->v[i].name, rd->v[i].value, false, "recipe");
}

void srt_script_job_props_release(struct srt_job_props *jp)
{
	free(jp->directives);
	free(jp->sources);
	free(jp->owned[0]);
	free(jp->owned[1]);
	memset(jp, 0, sizeof(*jp));
}

int srt_script_job_spec(const struct srt_job_props *jp, struct srt_job_spec *spec)
{
	static const char *const env[] = {
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"LANG=C.UTF-8",
	};
	int tl = srt_script_time_limit_minutes(jp->time_limit);

	spec->partition = jp->partition;
	spec->account = jp->account;
	spec->nodes = (int)jp->nodes;
	spec->time_limit = tl < 0 ? 0 : tl;
	spec->exclusive = jp->exclusive;
	spec->directives = jp->directives;
	spec->ndirectives = jp->ndirectives;
	spec->env = env;
	spec->nenv = sizeof(env) / sizeof(env[0]);
	return tl < 0 ? -1 : 0;
}

int srt_script_time_limit_minutes(const char *s)
{
	const long long max = 36500LL * 1440;
	long long d = 0, parts[3] = { 0, 0, 0 }, total;
	int n = 0;
	const char *p = s;
	char *end;

	if (!s || !*s || !strcasecmp(s, "unlimited") || !strcasecmp(s, "infinite"))
		return 0;
	errno = 0;
	if (strchr(s, '-')) {
		d = strtoll(s, &end, 10);
		p = end + 1;
	}
	while (*p && n < 3) {
		parts[n++] = strtoll(p, &end, 10);
		p = *end == ':' ? end + 1 : end;
		if (!*end)
			break;
	}
	if (errno == ERANGE || d < 0 || d > 36500)
		return -1;
	for (int i = 0; i < 3; i++)
		if (parts[i] < 0 || parts[i] > max * 60)
			return -1;
	if (strchr(s, '-')) /* D-HH[:MM[:SS]] */
		total = d * 1440 + parts[0] * 60 + parts[1] + (parts[2] > 0);
	else if (n == 1) /* MM */
		total = parts[0];
	else if (n == 2) /* MM:SS */
		total = parts[0] + (parts[1] > 0);
	else /* HH:MM:SS */
		total = parts[0] * 60 + parts[1] + (parts[2] > 0);
	return total > max ? -1 : (int)total;
}

static void emit_header(struct sctx *c, const char *job)
{
	struct srt_job_props jp;
	char nodes[32];

	srt_script_job_props(c->p, &jp);
	srt_buf_puts(c->out, "#!/bin/bash\n");
	sbatch_opt(c, "job-name", job, "name");
	snprintf(nodes, sizeof(nodes), "%zu", jp.nodes);
	sbatch_opt(c, "nodes", nodes, "roles");
	if (jp.account)
		sbatch_opt(c, "account", jp.account, "slurm.account");
	if (jp.partition)
		sbatch_opt(c, "partition", jp.partition, "slurm.partition");
	if (jp.time_limit)
		sbatch_opt(c, "time", jp.time_limit, "slurm.time_limit");
	if (jp.exclusive)
		sbatch_opt(c, "exclusive", "", "slurm.exclusive");
	for (size_t i = 0; i < jp.ndirectives; i++) {
		/*
		 * An optional directive (--segment, Slurm 24.05+) stays a comment:
		 * an older sbatch refuses an option it does not know.
		 */
		if (jp.directives[i].optional)
			srt_buf_printf(c->out, "# %s (Slurm 24.05+; remove '# ' to use it):\n# ",
				       jp.sources[i]);
		sbatch_opt(c, jp.directives[i].name, jp.directives[i].value, jp.sources[i]);
	}
	srt_script_job_props_release(&jp);
}

char *srt_script_render_agent(const struct srt_plan *p, const struct srt_script_agent_opts *o,
			      struct srt_diags *d)
{
	struct srt_buf out;
	struct sctx c = { p, &out, d, p->recipe->file, 0 };
	const struct srt_cluster *cl = p->cluster;
	static const char *const dflt[] = { "srtctl" };
	const char *const *cmd = dflt;
	size_t ncmd = 1;
	char *output;

	srt_buf_init(&out);
	if (!o || !o->job_name || !*o->job_name || !o->run_dir || !*o->run_dir) {
		srt_diags_add(d, SRT_DIAG_ERROR, c.file, 0, 0, "name",
			      "the agent batch script needs a job name and a run directory");
		srt_buf_release(&out);
		return NULL;
	}
	if (o->srtctl && o->nsrtctl) {
		cmd = o->srtctl;
		ncmd = o->nsrtctl;
	} else if (cl && cl->commands[SRT_CMD_SRTCTL].n) {
		cmd = cl->commands[SRT_CMD_SRTCTL].v;
		ncmd = cl->commands[SRT_CMD_SRTCTL].n;
	}
	emit_header(&c, o->job_name);
	/* Where the controller's submission puts the job too (current_working_directory). */
	sbatch_opt(&c, "chdir", o->run_dir, "chdir");
	output = srt_xasprintf("%s/%s", o->run_dir, SRT_SCRIPT_AGENT_OUT);
	sbatch_opt(&c, "output", output, "output");
	free(output);
	srt_buf_printf(&out, "#\n# Generated by srtctl %s from recipe '", SRT_VERSION);
	comment_text(&out, p->recipe->name ? p->recipe->name : "");
	srt_buf_puts(&out,
		     "'.\n"
		     "# The controller sends the job properties above through slurmrestd (which\n"
		     "# does not read #SBATCH lines); sbatch reads them here.  The agent carries\n"
		     "# out <run dir>/plan.json: it starts every process in order, gated on\n"
		     "# readiness, and keeps them running.\n"
		     "set -eu\n"
		     ": \"${SLURM_JOB_ID:?srtctl: run this script with sbatch (SLURM_JOB_ID is "
		     "not set)}\"\n"
		     "exec ");
	srt_shell_argv(&out, cmd, ncmd);
	srt_buf_puts(&out, " agent --run-dir ");
	srt_shell_word(&out, o->run_dir);
	srt_buf_putc(&out, '\n');
	if (c.rc < 0) {
		srt_buf_release(&out);
		return NULL;
	}
	return srt_buf_detach(&out);
}
