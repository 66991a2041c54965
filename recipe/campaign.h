/*
 * recipe/campaign.h: the `kind: Campaign` document and its expansion.
 *
 * A campaign is a grid of deployments (each one child recipe, one SLURM
 * job) and, inside each deployment, a ladder of load points (shape x
 * concurrency x repeat) run one after another by a benchmark tool.  This
 * module is pure: it reads YAML trees and writes structs and strings; the
 * template file, when the campaign names one, is read by the caller and
 * handed in (srt_campaign_template_path() says which file).
 *
 * srt_campaign_parse() checks the document strictly (unknown keys are
 * errors with a suggestion; every error has file:line:col and says how to
 * fix it).  srt_campaign_expand() turns it into deployments and points:
 *
 *   deployments = product(grid axes, zip groups) minus `exclude`; each is the
 *                 template with every axis value set at its path and
 *                 `name: <campaign>-<8 hex of its axis values>`, parsed and
 *                 validated as any recipe;
 *   points      = deployment x shape x concurrency x repeat.
 *
 * Identity: a point's id is the SHA-256 of its deployment's canonical spec
 * hash (recipe/canon.h), the benchmark tool and its canonical params, and
 * the point's load parameters (isl, osl, concurrency, prompts, warmup,
 * repeat).  Adding a concurrency adds exactly the new points; changing an
 * axis value changes only that deployment's spec, so only its point ids.
 *
 * Ownership: the struct srt_campaign and everything it points to live in
 * the campaign document's arena (freed with srt_ydoc_free(doc)).  Child
 * recipe trees live in the template document's arena.  A struct
 * srt_campaign_plan holds heap memory: srt_campaign_plan_release().
 */
#ifndef SRT_RECIPE_CAMPAIGN_H
#define SRT_RECIPE_CAMPAIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "recipe/cluster.h"
#include "recipe/yaml.h"
#include "util/diag.h"

/* Bounds (docs/recipe-reference.md "The Campaign kind"). */
#define SRT_CAMPAIGN_MAX_DEPLOYMENTS 10000u
#define SRT_CAMPAIGN_MAX_POINTS 100000u
#define SRT_CAMPAIGN_MAX_CONCURRENCY 1000000
/*
 * Generations of one deployment's child recipe (each activation is one):
 * beyond this, a deployment whose jobs keep ending for infrastructure
 * reasons fails its points instead of running again.
 */
#define SRT_CAMPAIGN_MAX_ACTIVATIONS 100

/* Defaults. */
#define SRT_CAMPAIGN_PROMPTS_PER_CONCURRENCY 10 /* srt-slurm's num_prompts_mult */
#define SRT_CAMPAIGN_WARMUP_PER_CONCURRENCY 2	/* srt-slurm's num_warmup_mult */
#define SRT_CAMPAIGN_MIN_COMPLETED_RATIO 0.99
#define SRT_CAMPAIGN_MAX_ERROR_RATIO 0.01
#define SRT_CAMPAIGN_MIN_OUTPUT_TOKENS_RATIO 0.5
#define SRT_CAMPAIGN_POINT_RETRIES 1
#define SRT_CAMPAIGN_JOB_ATTEMPTS 3
#define SRT_CAMPAIGN_EST_STARTUP_MINUTES 10.0
#define SRT_CAMPAIGN_EST_TPOT_MS 20.0
#define SRT_CAMPAIGN_EST_PREFILL_TPS 10000.0

enum srt_bench_tool {
	SRT_BENCH_VLLM,
	SRT_BENCH_SA,
	SRT_BENCH_CUSTOM
};

/* "vllm-bench", "sa-bench", "custom". */
const char *srt_bench_tool_name(enum srt_bench_tool t);

enum srt_campaign_order {
	SRT_ORDER_DECLARED,
	SRT_ORDER_SMALLEST_FIRST
};
const char *srt_campaign_order_name(enum srt_campaign_order o);

/* One axis: a dotted path into the recipe and the values it takes. */
struct srt_campaign_axis {
	const char *path;
	const char **comps; /* path split at '.' */
	size_t ncomps;
	const struct srt_ynode *key; /* for diagnostics */
	const struct srt_ynode *const *values;
	size_t nvalues;
};

/* A grid axis is a group of one; a zip group's axes advance together. */
struct srt_campaign_group {
	struct srt_campaign_axis *axes;
	size_t n;
	size_t len; /* values per axis */
};

/* One `exclude` entry: a deployment whose axes all have these values is left out. */
struct srt_campaign_exclude {
	const char **paths;
	const struct srt_ynode **values;
	size_t n;
	const struct srt_ynode *node;
	size_t matched; /* filled by srt_campaign_expand() */
};

struct srt_campaign_shape {
	int64_t isl, osl;
};

/* SLO metrics and statistics: slo key <metric><Stat>Ms, e.g. ttftP99Ms. */
enum {
	SRT_SLO_TTFT,
	SRT_SLO_TPOT,
	SRT_SLO_ITL,
	SRT_SLO_E2EL,
	SRT_SLO_NMETRICS
};
enum {
	SRT_SLO_MEAN,
	SRT_SLO_MEDIAN,
	SRT_SLO_P99,
	SRT_SLO_NSTATS
};

struct srt_campaign {
	struct srt_ydoc *doc; /* borrowed: owns this struct */
	const struct srt_ynode *root;
	const char *file;
	const char *name;
	const char *description;
	/* template: inline (template_node is a mapping) or a file (template_file). */
	const struct srt_ynode *template_node;
	const char *template_file; /* as written; NULL when inline */

	struct srt_campaign_group *groups;
	size_t ngroups;
	struct srt_campaign_exclude *excludes;
	size_t nexcludes;

	struct srt_campaign_shape *shapes;
	size_t nshapes;
	int64_t *concurrency;
	size_t nconcurrency;
	int64_t prompts_per_concurrency, warmup_per_concurrency;
	/* load.prompts / load.warmup: one count for every point; 0 / -1: the multipliers say */
	int64_t prompts, warmup;
	int64_t repeats;

	enum srt_bench_tool tool;
	const struct srt_ynode *bench_params;  /* mapping or NULL */
	const struct srt_ynode *bench_command; /* custom: string or list */
	const char *bench_result_file; /* custom: resultFile, NULL: $SRT_BENCH_RESULT_FILE */

	double min_completed_ratio, max_error_ratio, min_output_tokens_ratio;
	double slo_ms[SRT_SLO_NMETRICS][SRT_SLO_NSTATS]; /* 0 = not set */

	int64_t max_concurrent_jobs; /* default 1 */
	int64_t max_nodes;	     /* 0 = no cap */
	int64_t point_retries, job_attempts;
	int64_t max_failed_points; /* 0 = no limit */
	double budget_node_hours;  /* 0 = no budget */
	enum srt_campaign_order order;
	double est_startup_minutes, est_tpot_ms, est_prefill_tps;

	/* notify: the campaign's own command (command.n == 0: none), as srtslurm.yaml's */
	struct srt_notify_block notify;
};

/*
 * Is this document a campaign?  1 when its root is a mapping with
 * `kind: Campaign`, 0 when it has no `kind` (a recipe), -1 after adding an
 * error to diags (any other kind).
 */
int srt_campaign_doc_kind(const struct srt_ydoc *doc, struct srt_diags *diags);

/*
 * Parse the campaign document `doc` (its root).  Returns the campaign
 * (in doc's arena) or NULL when the document is not a mapping; a non-NULL
 * campaign may still carry errors in diags (check diags->nerrors).
 */
struct srt_campaign *srt_campaign_parse(struct srt_ydoc *doc, struct srt_diags *diags);

/*
 * The template file to read, resolved against the campaign file's directory
 * (the working directory for stdin), or NULL for an inline template.  In
 * doc's arena.
 */
const char *srt_campaign_template_path(const struct srt_campaign *c);

struct srt_campaign_deployment {
	char *name; /* "<campaign>-<8 hex>": the child recipe's name */
	char *axes; /* canonical JSON {path: value} of its axis values */
	char *spec; /* canonical JSON of the child recipe */
	char spec_hash[65];
	int64_t nodes;		      /* SLURM nodes one job of it takes */
	const struct srt_ynode *root; /* the child recipe (template doc's arena) */
};

struct srt_campaign_point {
	char id[65];
	size_t deployment; /* index into plan->deployments */
	int64_t seq;	   /* 1-based order within its deployment */
	int64_t isl, osl, concurrency, prompts, warmup, repeat;
};

struct srt_campaign_plan {
	char *spec; /* canonical JSON of the campaign, the template inlined */
	char spec_hash[65];
	char *bench_params; /* canonical JSON of benchmark.params ({} when none) */
	struct srt_campaign_deployment *deployments;
	size_t ndeployments;
	struct srt_campaign_point *points;
	size_t npoints;
	double est_point_seconds_total; /* sum of every point's estimate */
	double est_node_hours;		/* see srt_campaign_estimate_point() */
};

/*
 * Expand `c` against the template `troot` (a node of `tdoc`: c->doc and
 * c->template_node for an inline template, else the template file's
 * document).  Fills *out (release it in every case).  Returns the number of
 * errors added to diags: an axis path the template does not have, a child
 * recipe that is invalid (named by its deployment and axis values), a
 * deployment larger than policy.maxNodes, too many deployments or points.
 */
size_t srt_campaign_expand(struct srt_campaign *c, struct srt_ydoc *tdoc,
			   const struct srt_ynode *troot, const struct srt_cluster *cluster,
			   struct srt_campaign_plan *out, struct srt_diags *diags);
void srt_campaign_plan_release(struct srt_campaign_plan *p);

/*
 * The estimated seconds of one point: (prompts + warmup) requests in waves
 * of `concurrency`, each request isl / prefillTokensPerSecond + osl x tpotMs.
 */
double srt_campaign_estimate_point(const struct srt_campaign *c,
				   const struct srt_campaign_point *p);

/*
 * Parse srt-slurm's concurrency forms: a list of integers (or of integer
 * strings), an integer, "4x8x16", or a ladder mapping {start, end, factor}.
 * Fills *out (in doc's arena) or adds errors to diags at `node`.  0 / -1.
 */
int srt_campaign_parse_concurrency(struct srt_ydoc *doc, const struct srt_ynode *node,
				   const char *path, int64_t **out, size_t *n,
				   struct srt_diags *diags);

/*
 * srt-slurm's `sweep:` as a campaign.  `recipe` is a v2 recipe mapping with
 * a top-level `sweep` (srt-slurm 2.0: {name: [values]}, a Cartesian product;
 * or {mode: grid|zip, parameters: {name: [values]}}).  Every string that is
 * exactly "{name}" becomes an axis at its path (a name used at several paths
 * zips them); a name used in benchmark.concurrencies becomes
 * load.concurrency.  benchmark.isl/osl become load.shapes,
 * num_prompts_mult/num_warmup_mult the per-concurrency multipliers, the
 * benchmark type the tool (sa-bench only) and its other keys its params;
 * the template is the recipe without `sweep` and `benchmark`.  Returns the
 * campaign's root (built in `out`; it may share nodes with `recipe`, so emit
 * it while both documents live), or NULL after adding errors to diags at
 * `file` (a placeholder inside a longer string, a benchmark srtctl has no
 * adapter for, missing isl/osl): what a campaign cannot express is refused.
 */
struct srt_ynode *srt_campaign_from_sweep(struct srt_ydoc *out, const struct srt_ynode *recipe,
					  const char *file, struct srt_diags *diags);

/*
 * A recipe without a sweep whose benchmark is srt-slurm's sa-bench, as a
 * campaign of one deployment: srt-slurm runs that benchmark inside the job,
 * srtctl as the campaign's load (srt_campaign_from_sweep()'s template and
 * load, no axes).  NULL without diagnostics when the recipe has a sweep or
 * another benchmark; NULL after adding errors to diags when the benchmark
 * lacks what a load needs (isl, osl, concurrencies).
 */
struct srt_ynode *srt_campaign_from_benchmark(struct srt_ydoc *out, const struct srt_ynode *recipe,
					      const char *file, struct srt_diags *diags);

/*
 * The combinations of the campaign `camp` (srt_campaign_from_sweep(), built
 * in `out`) whose parallel world cannot run on the worker's GPUs
 * (srt_recipe_parallel_fits()) go to its deployments.exclude, with a
 * warning at `sweep` in `file`: srt-slurm's sweep drops such vLLM
 * combinations, and submits TRT-LLM ones that TRT-LLM then refuses to
 * start.  When none is left, an error (srt-slurm refuses such a sweep).
 * Returns how many were excluded.
 */
size_t srt_sweep_exclude_unfit(struct srt_ydoc *out, struct srt_ynode *camp,
			       const struct srt_ynode *sweep, const char *file,
			       const struct srt_cluster *cluster, struct srt_diags *diags);

/*
 * srt-slurm's `sweep:` as a variant file, for what a campaign cannot say (a
 * placeholder inside a longer string, a swept benchmark setting, a benchmark
 * other than sa-bench): {base: the recipe without sweep, zip_override_sweep:
 * ...}, one variant (one job) per combination in srt-slurm's order (zip by
 * index; grid a product, the last parameter varying fastest), each with the
 * placeholders substituted as srt-slurm does: "{name}" alone takes the value
 * as typed, inside a longer string its text.  The zip section sets, per
 * swept path, the list of per-job values (a list holding a placeholder is
 * one value: deep merge replaces lists whole).  Returns the root (built in
 * `out`, sharing nodes with `recipe`), or NULL after adding errors to diags
 * (a malformed sweep, more than 1,000 jobs, no placeholder anywhere, a list
 * or mapping substituted inside a string).
 */
struct srt_ynode *srt_sweep_as_variants(struct srt_ydoc *out, const struct srt_ynode *recipe,
					const char *file, struct srt_diags *diags);

#endif
