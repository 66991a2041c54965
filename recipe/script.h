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
#include "util/diag.h"

/*
 * The job a plan asks SLURM for: the recipe's slurm settings, else the
 * cluster's defaults (NULL: SLURM's own default).  One owner of that
 * precedence for job.sh's #SBATCH lines and dry-run's job table.
 */
struct srt_job_props {
	size_t nodes;
	const char *account, *partition, *time_limit;
	bool exclusive;
	const struct srt_env *directives; /* the recipe's extra #SBATCH options */
};
void srt_script_job_props(const struct srt_plan *p, struct srt_job_props *out);

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
