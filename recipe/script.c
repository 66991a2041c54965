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

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/shell.h"
#include "util/version_gen.h"

/* Prints one IP of the node it runs on: $1 is the interface, or empty. */
static const char resolve_ip_prog[] =
	"if [ -n \"$1\" ]; then\n"
	"\tip -4 -o addr show dev \"$1\" | { read -r _ _ _ addr _ && echo \"${addr%%/*}\"; }\n"
	"else\n"
	"\thostname -I | { read -r addr _ && echo \"$addr\"; }\n"
	"fi";

const char *srt_script_ip_program(void)
{
	return resolve_ip_prog;
}

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

void srt_script_job_props(const struct srt_plan *p, struct srt_job_props *out)
{
	const struct srt_recipe *r = p->recipe;
	const struct srt_cluster *cl = p->cluster;

	out->nodes = p->layout.nnodes;
	out->account = r->slurm.account ? r->slurm.account : cl ? cl->default_account : NULL;
	out->partition = r->slurm.partition ? r->slurm.partition :
			 cl		    ? cl->default_partition :
					      NULL;
	out->time_limit = r->slurm.time_limit ? r->slurm.time_limit :
			  cl		      ? cl->default_time_limit :
						NULL;
	out->exclusive = r->slurm.exclusive;
	out->directives = &r->slurm.directives;
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
	for (size_t i = 0; i < jp.directives->n; i++) {
		const struct srt_env_var *v = &jp.directives->v[i];

		sbatch_opt(c, v->name, v->value, "slurm.directives");
	}
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
