/*
 * recipe/script.h: the sbatch batch script of a run.
 *
 * srt_script_render() writes the plan (recipe/render.h) as a bash script
 * that sbatch runs on the first node of the allocation:
 *
 *   #SBATCH lines  job name, node count (a dedicated infra node included),
 *                  account / partition / time (recipe, else cluster
 *                  defaults), the recipe's extra directives;
 *   set -euo pipefail;
 *   the log dir, created (and the vLLM store_config.json written into
 *                  <log_dir>/mooncake/ with master_server_address filled in);
 *   node hostnames from `scontrol show hostnames "$SLURM_JOB_NODELIST"`,
 *                  each node's IP resolved on that node (the cluster's
 *                  network_interface, else the first `hostname -I` address);
 *   every process of the plan, in order, as its own background
 *                  `srun --overlap --nodes=1 --ntasks=1 --nodelist=HOST` step
 *                  (pyxis: --container-image and the log dir mounted at /logs)
 *                  running `env -- NAME=value ... argv...` with output to its
 *                  log file; a worker's log starts with an `Env:` line;
 *   readiness gates (bash /dev/tcp TCP connects and HTTP GETs, bounded by
 *                  the timeout; a process that dies fails the job at once with
 *                  the tail of its log): the master and stores before the
 *                  workers, with_workers services after them, the frontend
 *                  before after_frontend services and the benchmark;
 *   supervision until the benchmark ends (its status is the job's) or a
 *                  critical process exits; an EXIT trap stops every step.
 *
 * Every value that reaches the shell goes through util/shell.h quoting.
 * Layout placeholders in srtctl-built values (flagged `runtime`, and log
 * file names) become "${SRT_IPS[k]}", "${SRT_HOSTS[k]}", "${SRT_INFRA_IP}"
 * or "${SRT_LOG_DIR}" expansions; recipe values are always literal.
 */
#ifndef SRT_RECIPE_SCRIPT_H
#define SRT_RECIPE_SCRIPT_H

#include "recipe/render.h"
#include "util/diag.h"

struct srt_script_opts {
	const char *job_name; /* NULL: the recipe's name */
	/* NULL: <cluster log_root>/<job name>/$SLURM_JOB_ID (log_root default "outputs",
	 * relative to the submit directory). */
	const char *log_dir;
};

/*
 * Render the batch script of plan p.  `o` may be NULL.  Returns a string
 * the caller frees with free(), or NULL after adding errors to d (an
 * #SBATCH value with a newline, quote or backslash, a job name sbatch cannot
 * carry).
 */
char *srt_script_render(const struct srt_plan *p, const struct srt_script_opts *o,
			struct srt_diags *d);

/* What the controller puts in the batch script of a job it submits. */
struct srt_script_agent_opts {
	const char *job_name; /* required: the deterministic job name */
	const char *comment;  /* #SBATCH --comment (e.g. "srtctl:<run-uid>:<attempt>"), or NULL */
	const char *run_dir;  /* required: absolute path of the run directory */
	const char *output;   /* #SBATCH --output (e.g. "<run_dir>/agent-%j.out"), or NULL */
	/* The srtctl argv prefix; NULL: the cluster's commands.srtctl (default [srtctl]). */
	const char *const *srtctl;
	size_t nsrtctl;
};

/*
 * The batch script of a controller-submitted job: the same #SBATCH lines as
 * srt_script_render() (job name, node count, account, partition, time,
 * directives) plus --comment and --output when given, then
 * `exec <srtctl> agent --run-dir <run_dir>`: the agent (agent/agent.h)
 * runs as the batch step on the first node and realises DIR/plan.json.
 * Every value is quoted (util/shell.h).  Returns a string the caller frees,
 * or NULL after adding errors to d (a value sbatch cannot carry, a missing
 * run_dir or job name).
 */
char *srt_script_render_agent(const struct srt_plan *p, const struct srt_script_agent_opts *o,
			      struct srt_diags *d);

/*
 * The bash program that prints one IPv4 address of the node it runs on:
 * $1 is the network interface (`ip -4 -o addr show dev $1`), or empty for
 * the first address of `hostname -I`.  Shared by the batch script and the
 * agent so both resolve node IPs the same way.
 */
const char *srt_script_ip_program(void);

#endif
