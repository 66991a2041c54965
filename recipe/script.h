/*
 * recipe/script.h: the batch script of a run (job.sh).
 *
 * One program carries out a plan: the agent (agent/agent.h).  job.sh is the
 * thin batch script that starts it: the job's properties as #SBATCH lines
 * (what the controller also sends through slurmrestd, so `sbatch job.sh`
 * asks SLURM for the same job), then `exec srtctl agent --run-dir DIR`.
 * The controller writes it into each run directory, `srtctl render`
 * writes it for a run you submit yourself, and `srtctl dry-run` prints it
 * byte for byte as the controller would write it for the first run.
 */
#ifndef SRT_RECIPE_SCRIPT_H
#define SRT_RECIPE_SCRIPT_H

#include "recipe/render.h"
#include "slurm/slurm.h"
#include "util/diag.h"

/*
 * The job a plan asks SLURM for: the recipe's slurm settings, else the
 * cluster's defaults (NULL: SLURM's own default), and every directive it is
 * submitted with.  One owner of that precedence for job.sh's #SBATCH lines,
 * the controller's submission and dry-run's job table.
 */
struct srt_job_props {
	size_t nodes;
	const char *account, *partition, *time_limit;
	/* slurm.exclusive if written, else the cluster's use_exclusive_sbatch_directive, else true */
	bool exclusive;
	/*
	 * The directives, in order: the cluster switches' (--gpus-per-node from
	 * use_gpus_per_node_directive, --segment from
	 * use_segment_sbatch_directive, optional: left out where the API
	 * version has no field), the cluster's default_sbatch_directives, the
	 * recipe's (slurm.directives, sbatch_directives).  A later directive
	 * replaces an earlier one of its group (srt_slurm_directive_check), so a
	 * recipe's value wins over the cluster's.  Long names.
	 */
	struct srt_slurm_directive *directives;
	const char **sources; /* where each came from: "recipe", "default_sbatch_directives", ... */
	size_t ndirectives;
	char *owned[2]; /* the switches' values */
};
/* Fill *out for plan p.  Release with srt_script_job_props_release(). */
void srt_script_job_props(const struct srt_plan *p, struct srt_job_props *out);
void srt_script_job_props_release(struct srt_job_props *jp);

/*
 * The submission of a job with properties jp: partition, account, nodes,
 * time limit in minutes, exclusive, directives, and the job's environment.
 * The caller sets name, comment, script, cwd and output paths.  spec points
 * into jp.  -1 when the time limit is beyond 100 years (as
 * srt_script_time_limit_minutes).
 */
int srt_script_job_spec(const struct srt_job_props *jp, struct srt_job_spec *spec);

/*
 * SLURM time limit text (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS,
 * UNLIMITED) -> minutes (0 when unset or unlimited), or -1 when a part or
 * the total is beyond 100 years (36500 days).
 */
int srt_script_time_limit_minutes(const char *s);

/*
 * Check one sbatch directive of a recipe or the cluster config (leading
 * dashes ignored): an option srtctl sets itself (the job name, node count,
 * account, ...) is an error naming the recipe field that controls it; any
 * other must be one srtctl can send through slurmrestd, with a value of the
 * right form (srt_slurm_directive_check).  0 with *canon (the long name) and
 * *group set (either may be NULL), or -1 with the message in err (err may be
 * NULL).
 */
int srt_script_directive_check(const char *name, const char *value, const char **canon,
			       const char **group, struct srt_error *err);

/* The agent's own output in the run directory (#SBATCH --output; %j is the job id). */
#define SRT_SCRIPT_AGENT_OUT "agent-%j.out"

/* What job.sh is made of besides the plan. */
struct srt_script_agent_opts {
	const char *job_name; /* required: the deterministic job name (the run's name) */
	const char *run_dir;  /* required: absolute path of the run directory */
	/* The srtctl argv prefix; NULL: the cluster's commands.srtctl (default [srtctl]). */
	const char *const *srtctl;
	size_t nsrtctl;
};

/*
 * job.sh of plan p: #SBATCH lines (job name, node count, account,
 * partition, time, --exclusive, the recipe's directives, --chdir <run_dir>,
 * --output <run_dir>/SRT_SCRIPT_AGENT_OUT), then `exec <srtctl> agent --run-dir
 * <run_dir>`: the agent runs as
 * the batch step on the first node and carries out DIR/plan.json.  The
 * job's comment (srtctl:<run-uid>:<attempt>) is not in the script: the
 * controller sends it through slurmrestd, and the script stays the same
 * for every attempt of a run.  Every value is quoted (util/shell.h).
 * Returns a string the caller frees, or NULL after adding errors to d (a
 * value sbatch cannot carry, a missing run_dir or job name).
 */
char *srt_script_render_agent(const struct srt_plan *p, const struct srt_script_agent_opts *o,
			      struct srt_diags *d);

#endif
