/*
 * cli/cmd_render.c: `srtctl render -f FILE --out DIR`.
 *
 * Writes a run directory for a recipe without the controller: DIR/plan.json
 * (generation 1) and DIR/job.sh, the same files the controller writes for a
 * run it submits.  `sbatch DIR/job.sh` then runs the agent on the
 * allocation, which carries out the plan and reports in DIR/status.json and
 * DIR/events.jsonl as it does under the controller.  A file with several
 * recipes (a variant file, a directory) gets one run directory per recipe,
 * DIR/<run name>.
 */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runplan/rundir.h"
#include "recipe/render.h"
#include "store/store.h"
#include "util/buf.h"

static const char usage_text[] =
	"usage: srtctl render -f FILE|DIR --out DIR [--cluster-config PATH] [--job-name NAME]\n"
	"\n"
	"Write a run directory for a recipe, to run it without the controller: DIR/plan.json\n"
	"(what the agent carries out) and DIR/job.sh (the batch script that starts the agent),\n"
	"the same files the controller writes for a run it submits. Then:\n"
	"\n"
	"  sbatch DIR/job.sh\n"
	"\n"
	"The agent starts every process in order, gated on readiness, keeps them running, and\n"
	"reports in DIR/status.json, DIR/events.jsonl and DIR/logs/. The cluster config's\n"
	"commands.srtctl must name an srtctl the compute nodes can run (default: srtctl on\n"
	"PATH). A file with several recipes gets one directory per recipe, DIR/<run name>.\n"
	"\n"
	"Options:\n"
	"  -f, --filename PATH      recipe file, or directory (every *.yaml / *.yml below it);\n"
	"                           FILE:SELECTOR picks variants (see srtctl apply --help)\n"
	"      --out DIR            the run directory to write (created, mode 0700; its parent\n"
	"                           must exist); refused when it already holds a plan.json\n"
	"      --cluster-config P   srtslurm.yaml to use (default: $SRTSLURM_CONFIG, then\n"
	"                           ./srtslurm.yaml, then built-in defaults)\n"
	"      --job-name NAME      the SLURM job name (default: <recipe>-1-1)\n"
	"  -h, --help               show this help\n"
	"\n"
	"Exit codes: 0 written, 1 a recipe is invalid, 2 usage or I/O error.\n"
	"\n"
	"Example:\n"
	"  srtctl render -f recipes/qwen3-mooncake.yaml --out /shared/runs/qwen3-try1\n"
	"  sbatch /shared/runs/qwen3-try1/job.sh\n";

/* Write one recipe's run directory `dir` (absolute).  Returns an exit code. */
static int render_one(const struct srt_recipe *r, const struct srt_cluster *cluster,
		      const char *dir, const char *job_name, struct srt_diags *d)
{
	struct srt_plan *p = srt_plan_build(r, cluster, d);
	struct srt_cli_job j = { 0 };
	struct srt_error err;
	char *parent = srt_xstrdup(dir), *slash = strrchr(parent, '/');
	const char *base = slash ? slash + 1 : dir;
	json_t *pj = NULL;
	struct stat sb;
	int dfd = -1, rc = SRT_EXIT_INVALID;

	srt_error_clear(&err);
	if (slash == parent)
		slash[1] = '\0'; /* a directory right under / */
	else if (slash)
		*slash = '\0';
	if (!p || srt_cli_job_make(&j, p, cluster, NULL, dir, job_name, d) != 0 || d->nerrors) {
		srt_diags_print(d, stderr);
		fprintf(stderr,
			"srtctl render: recipe '%s' cannot be rendered; fix the errors above\n",
			r->name ? r->name : "?");
		goto out;
	}
	rc = SRT_EXIT_USAGE;
	if (srt_rundir_create_at(parent, base, -1, -1, &dfd, &err) != 0) {
		fprintf(stderr, "srtctl render: %s\n", err.msg);
		goto out;
	}
	if (fstatat(dfd, SRT_RUNDIR_PLAN, &sb, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT) {
		fprintf(stderr,
			"srtctl render: %s already holds a %s (an agent may be using it); render "
			"into a new directory\n",
			dir, SRT_RUNDIR_PLAN);
		goto out;
	}
	pj = srt_runplan_to_json(&p->run);
	if (srt_rundir_write_plan_at(dfd, dir, pj, 1, -1, -1, &err) != 0 ||
	    srt_rundir_write_file_at(dfd, dir, SRT_RUNDIR_JOB, j.script, strlen(j.script),
				     SRT_RUNDIR_SCRIPT_MODE, -1, -1, &err) != 0) {
		fprintf(stderr, "srtctl render: %s\n", err.msg);
		goto out;
	}
	srt_diags_print(d, stderr); /* the warnings */
	printf("%s/%s\n", dir, SRT_RUNDIR_JOB);
	rc = SRT_EXIT_OK;
out:
	if (dfd >= 0)
		close(dfd);
	json_decref(pj);
	srt_cli_job_release(&j);
	srt_plan_free(p);
	free(parent);
	return rc;
}

int srt_cmd_render(int argc, char **argv)
{
	enum {
		OPT_OUT = 256,
		OPT_CLUSTER,
		OPT_JOB
	};
	static const struct option opts[] = {
		{ "filename", required_argument, NULL, 'f' },
		{ "out", required_argument, NULL, OPT_OUT },
		{ "cluster-config", required_argument, NULL, OPT_CLUSTER },
		{ "job-name", required_argument, NULL, OPT_JOB },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = NULL, *out = NULL, *cluster_path = NULL, *job_name = NULL;
	struct srt_cluster cluster;
	struct srt_compiled comp = { NULL, NULL, 0 };
	struct srt_diags d;
	char **files = NULL, *dir = NULL, *selector = NULL;
	size_t nfiles = 0;
	bool have_cluster = false;
	int c, rc = SRT_EXIT_OK;

	srt_diags_init(&d);
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			file = optarg;
			break;
		case OPT_OUT:
			out = optarg;
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
			return srt_cli_usage_error("render", "unknown option");
		}
	}
	if (optind < argc)
		return srt_cli_usage_error("render", "unexpected argument '%s' (use -f FILE)",
					   argv[optind]);
	if (!file)
		return srt_cli_usage_error("render", "no recipe given; use -f FILE");
	if (job_name) {
		char buf[64];
		const char *why = srt_name_problem(job_name, buf, sizeof(buf));

		if (why)
			return srt_cli_usage_error("render",
						   "--job-name '%s' is not a valid name: %s; %s "
						   "(it names the SLURM job and the run directory)",
						   job_name, why, SRT_NAME_RULE);
	}
	if (!out || !*out)
		return srt_cli_usage_error("render", "no run directory given; use --out DIR");
	dir = srt_cli_absolute("render", out);
	if (!dir)
		return SRT_EXIT_USAGE;
	rc = srt_cli_load_cluster_at("render", cluster_path, &cluster, true);
	have_cluster = true;
	if (rc != SRT_EXIT_OK)
		goto done;
	cluster.env = srt_cli_getenv; /* srt-slurm's $VARs, as apply will resolve them */
	if (srt_cli_expand_path_sel("render", file, &files, &nfiles, &selector) != 0) {
		rc = SRT_EXIT_USAGE;
		goto done;
	}
	for (size_t i = 0; i < nfiles; i++) {
		srt_compiled_release(&comp);
		srt_diags_release(&d);
		srt_diags_init(&d);
		if (srt_compile_file_selected(files[i], selector, &cluster, &comp, &d) || !comp.n) {
			srt_diags_print(&d, stderr);
			fprintf(stderr, "srtctl render: %s is not valid; fix the errors above\n",
				files[i]);
			rc = rc > SRT_EXIT_INVALID ? rc : SRT_EXIT_INVALID;
			continue;
		}
		if ((nfiles > 1 || comp.n > 1) && job_name) {
			rc = srt_cli_usage_error("render",
						 "--job-name names one run, but -f gives several "
						 "recipes");
			goto done;
		}
		for (size_t k = 0; k < comp.n; k++) {
			const struct srt_recipe *r = comp.recipes[k];
			struct srt_diags local;
			char *rdir = NULL;
			int one;

			srt_diags_init(&local);
			srt_cli_recipe_warnings(&d, r->file, &local);
			if (nfiles > 1 || comp.n > 1) {
				char *name = srt_store_run_name(r->name ? r->name : "recipe", 1, 1);

				/* One directory per recipe, under DIR (made first). */
				if (mkdir(dir, SRT_RUNDIR_DIR_MODE) != 0 && errno != EEXIST) {
					fprintf(stderr, "srtctl render: cannot create %s: %s\n",
						dir, strerror(errno));
					free(name);
					srt_diags_release(&local);
					rc = SRT_EXIT_USAGE;
					goto done;
				}
				rdir = srt_xasprintf("%s/%s", dir, name);
				free(name);
			}
			one = render_one(r, &cluster, rdir ? rdir : dir, job_name, &local);
			rc = one > rc ? one : rc;
			free(rdir);
			srt_diags_release(&local);
		}
	}
done:
	srt_compiled_release(&comp);
	srt_diags_release(&d);
	srt_cli_free_files(files, nfiles);
	free(selector);
	if (have_cluster)
		srt_cluster_release(&cluster);
	free(dir);
	return rc;
}
