/*
 * runplan/plan.c: the run plan's model (plan.h), and plan.json.
 *
 * This file owns plan.json's format, both ways: the one writer
 * (srt_runplan_to_json()) and the one reader (srt_runplan_load()), the
 * checks and decisions every plan goes through however it was made
 * (srt_runplan_finish(): launch groups, stop tiers, the external master's
 * process), and the binding of layout placeholders (<prefill_node_0>,
 * <prefill_node_0_ip>, <infra_node_ip>, <log_dir>) to the allocation's real
 * hostnames, IPs and log directory.  It is pure: no I/O, no clock.
 */
#include "runplan/plan.h"

#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"
#include "runplan/rundir.h"
#include "util/strutil.h"

/* ---- reading ---- */

static const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static int jint(const json_t *o, const char *key, int dflt)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}

static int kind_parse(const char *s, enum srt_proc_kind *k)
{
	static const enum srt_proc_kind all[] = { SRT_PROC_SERVICE, SRT_PROC_WORKER,
						  SRT_PROC_FRONTEND, SRT_PROC_BENCHMARK };

	for (size_t i = 0; s && i < sizeof(all) / sizeof(all[0]); i++) {
		if (!strcmp(s, srt_proc_kind_name(all[i]))) {
			*k = all[i];
			return 0;
		}
	}
	return -1;
}

static int restart_parse(const json_t *o, struct srt_restart_policy *rp)
{
	const char *mode = jstr(o, "mode");

	memset(rp, 0, sizeof(*rp));
	rp->mode = SRT_RESTART_NEVER;
	if (!o || json_is_null(o))
		return 0;
	if (!mode)
		return -1;
	if (!strcmp(mode, "never"))
		rp->mode = SRT_RESTART_NEVER;
	else if (!strcmp(mode, "on-failure"))
		rp->mode = SRT_RESTART_ON_FAILURE;
	else if (!strcmp(mode, "always"))
		rp->mode = SRT_RESTART_ALWAYS;
	else
		return -1;
	rp->max_restarts = jint(o, "max_restarts", SRT_RESTART_MAX_DEFAULT);
	rp->backoff_seconds = jint(o, "backoff_seconds", SRT_RESTART_BACKOFF_DEFAULT);
	rp->max_backoff_seconds = jint(o, "max_backoff_seconds", SRT_RESTART_BACKOFF_MAX_DEFAULT);
	rp->reset_after_seconds = jint(o, "reset_after_seconds", SRT_RESTART_RESET_DEFAULT);
	return rp->max_restarts < 0 || rp->backoff_seconds < 0 || rp->max_backoff_seconds < 0 ? -1 :
												0;
}

static bool log_name_ok(const char *s)
{
	return s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

/* A path inside the log dir: relative, components that are log names, at most 4 deep. */
static bool log_path_ok(const char *s)
{
	size_t depth = 0;

	if (!s || !*s || strlen(s) > 512)
		return false;
	for (const char *q = s;; depth++) {
		size_t n = strcspn(q, "/");
		char part[256];

		if (!n || n >= sizeof(part) || depth >= 4)
			return false;
		memcpy(part, q, n);
		part[n] = '\0';
		if (!log_name_ok(part))
			return false;
		if (!q[n])
			return true;
		q += n + 1;
	}
}

static int readiness_parse(const json_t *o, struct srt_runplan_proc *pr, struct srt_error *err)
{
	const json_t *probes = json_object_get(o, "probes");

	pr->nprobes = 0;
	pr->timeout_s = jint(o, "timeout_seconds", SRT_READINESS_TIMEOUT_DEFAULT);
	pr->interval_s = jint(o, "interval_seconds", SRT_READINESS_INTERVAL_DEFAULT);
	if (!o || json_is_null(o))
		return 0;
	if (!json_is_array(probes) ||
	    json_array_size(probes) > sizeof(pr->probes) / sizeof(pr->probes[0]))
		return srt_error_set(err, "readiness.probes is not a list of at most %zu probes",
				     sizeof(pr->probes) / sizeof(pr->probes[0]));
	for (size_t i = 0; i < json_array_size(probes); i++) {
		const json_t *pj = json_array_get(probes, i);
		const char *kind = jstr(pj, "kind");
		struct srt_runplan_probe *pb = &pr->probes[pr->nprobes];

		pb->port = jint(pj, "port", 0);
		if (kind && !strcmp(kind, "log")) {
			const char *why;

			pb->pattern = jstr(pj, "pattern");
			pb->port = 0;
			if (!pb->pattern)
				return srt_error_set(err,
						     "readiness.probes[%zu]: a log probe needs a "
						     "pattern",
						     i);
			if ((why = srt_runplan_pattern_problem(pb->pattern)))
				return srt_error_set(err, "readiness.probes[%zu]: pattern '%s': %s",
						     i, pb->pattern, why);
			pr->nprobes++;
			continue;
		}
		if (kind && !strcmp(kind, "file")) {
			pb->file = jstr(pj, "path");
			pb->port = 0;
			if (!pb->file || !log_path_ok(pb->file))
				return srt_error_set(err,
						     "readiness.probes[%zu]: a file probe needs a "
						     "path inside the log directory",
						     i);
			pr->nprobes++;
			continue;
		}
		if (!kind || (strcmp(kind, "tcp") && strcmp(kind, "http")) || pb->port <= 0 ||
		    pb->port > 65535)
			return srt_error_set(err,
					     "readiness.probes[%zu] needs kind tcp|http|file and a "
					     "port in 1..65535 (file: a path)",
					     i);
		pb->http = !strcmp(kind, "http");
		pb->path = jstr(pj, "path") ? jstr(pj, "path") : "/health";
		pb->status = jint(pj, "status", 200);
		pb->ray_alive = pb->http ? jint(pj, "ray_alive", 0) : 0;
		pb->host = jstr(pj, "host");
		if (pb->ray_alive < 0 || pb->ray_alive > SRT_RUNPLAN_RAY_ALIVE_MAX)
			return srt_error_set(err, "readiness.probes[%zu]: ray_alive must be 0..%d",
					     i, SRT_RUNPLAN_RAY_ALIVE_MAX);
		pr->nprobes++;
	}
	if (pr->timeout_s <= 0)
		pr->timeout_s = SRT_READINESS_TIMEOUT_DEFAULT;
	if (pr->interval_s <= 0)
		pr->interval_s = SRT_READINESS_INTERVAL_DEFAULT;
	return 0;
}

static int strings(struct srt_arena *a, const json_t *arr, const char ***out, size_t *n)
{
	*n = json_array_size(arr);
	*out = srt_arena_alloc(a, (*n + 1) * sizeof(**out));
	for (size_t i = 0; i < *n; i++) {
		(*out)[i] = json_string_value(json_array_get(arr, i));
		if (!(*out)[i])
			return -1;
	}
	return 0;
}

/* Is a (substituted) log file name safe to put under the log dir? */

/* plan.json's "argv_runtime": the indexes of the words to substitute. */
static int argv_runtime_parse(struct srt_arena *a, const json_t *idx, struct srt_runplan_proc *pr)
{
	if (!idx || json_is_null(idx))
		return 0;
	if (!json_is_array(idx))
		return -1;
	pr->argv_runtime = srt_arena_alloc(a, (pr->argc + 1) * sizeof(bool));
	memset(pr->argv_runtime, 0, (pr->argc + 1) * sizeof(bool));
	for (size_t i = 0; i < json_array_size(idx); i++) {
		const json_t *v = json_array_get(idx, i);

		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    (size_t)json_integer_value(v) >= pr->argc)
			return -1;
		pr->argv_runtime[json_integer_value(v)] = true;
	}
	return 0;
}

static int env_parse(struct srt_arena *a, const json_t *env, struct srt_runplan_proc *pr,
		     struct srt_error *err)
{
	if (env && !json_is_array(env))
		return srt_error_set(err, "env must be a list");
	pr->nenv = json_array_size(env);
	pr->env_names = srt_arena_alloc(a, (pr->nenv + 1) * sizeof(char *));
	pr->env_values = srt_arena_alloc(a, (pr->nenv + 1) * sizeof(char *));
	pr->env_runtime = srt_arena_alloc(a, (pr->nenv + 1) * sizeof(bool));
	pr->env_src = srt_arena_alloc(a, (pr->nenv + 1) * sizeof(*pr->env_src));
	for (size_t i = 0; i < pr->nenv; i++) {
		const json_t *v = json_array_get(env, i);

		pr->env_names[i] = jstr(v, "name");
		pr->env_values[i] = jstr(v, "value");
		pr->env_runtime[i] = json_is_true(json_object_get(v, "runtime"));
		pr->env_src[i] = (struct srt_runplan_envsrc){ jstr(v, "owner"), jstr(v, "layer"),
							      jstr(v, "overridden"),
							      jstr(v, "overridden_layer") };
		if (!pr->env_names[i] || !srt_is_env_name(pr->env_names[i]) || !pr->env_values[i])
			return srt_error_set(err,
					     "env[%zu] needs a name ([A-Za-z_][A-Za-z0-9_]*) and a "
					     "string value",
					     i);
	}
	return 0;
}

/* The largest MPI step srtctl launches (ranks): far above any GPU count of a worker. */
#define MPI_TASKS_MAX 65536

/* "nnodes", "ntasks", "mpi" (an MPI step) and "config_file"/"config_text". */
static int mpi_parse(const struct srt_runplan *p, const json_t *o, struct srt_runplan_proc *pr,
		     struct srt_error *err)
{
	int nn = jint(o, "nnodes", 1), nt = jint(o, "ntasks", 1);

	pr->mpi = jstr(o, "mpi");
	if (nn < 1 || (size_t)nn > p->nnodes - pr->node)
		return srt_error_set(err,
				     "nnodes %d does not fit the plan's %zu nodes from node %zu",
				     nn, p->nnodes, pr->node);
	if (nt < nn || nt > MPI_TASKS_MAX || nt % nn)
		return srt_error_set(err,
				     "ntasks %d is not a multiple of nnodes %d within %d ranks", nt,
				     nn, MPI_TASKS_MAX);
	pr->nnodes = (size_t)nn;
	pr->ntasks = nt;
	pr->config_file = jstr(o, "config_file");
	pr->config_text = jstr(o, "config_text");
	pr->config_runtime = json_is_true(json_object_get(o, "config_runtime"));
	return 0;
}

/* "run_dir" and "clear": paths inside the log dir the agent prepares before each start. */
static int prep_parse(struct srt_arena *a, const json_t *o, struct srt_runplan_proc *pr,
		      struct srt_error *err)
{
	const json_t *cl = json_object_get(o, "clear");
	const char **v = NULL;
	size_t n = 0;

	pr->run_dir = jstr(o, "run_dir");
	if (!cl || json_is_null(cl))
		return 0;
	if (!json_is_array(cl) || json_array_size(cl) > sizeof(pr->clear) / sizeof(pr->clear[0]) ||
	    strings(a, cl, &v, &n) < 0)
		return srt_error_set(err, "clear must be a list of at most %zu file names",
				     sizeof(pr->clear) / sizeof(pr->clear[0]));
	for (size_t i = 0; i < n; i++)
		pr->clear[i] = v[i];
	pr->nclear = n;
	return 0;
}

/* srun options srtctl sets on every step (agent/proc.c), with their short forms. */
static const char *const srun_owned[] = {
	"overlap",
	"nodes",
	"N",
	"ntasks",
	"n",
	"ntasks-per-node",
	"mpi",
	"oversubscribe",
	"kill-on-bad-exit",
	"nodelist",
	"w",
	"job-name",
	"J",
	"container-image",
	"container-mounts",
	"output",
	"o",
	"error",
	"e",
	"input",
	"i",
	"jobid",
	NULL,
};

const char *srt_runplan_srun_option(struct srt_arena *a, const char *key, const char *value)
{
	return value && *value ? srt_arena_printf(a, "--%s=%s", key, value) :
				 srt_arena_printf(a, "--%s", key);
}

bool srt_runplan_at_model_dir(const char *target)
{
	size_t dlen = target ? strcspn(target, ":") : 0;

	return dlen == strlen(SRT_CONTAINER_MODEL_DIR) &&
	       !strncmp(target, SRT_CONTAINER_MODEL_DIR, dlen);
}

const char *srt_runplan_srun_option_problem(const char *opt)
{
	const char *k, *end;
	size_t n;

	if (!opt || strncmp(opt, "--", 2) || !opt[2])
		return "it is not --KEY or --KEY=VALUE";
	k = opt + 2;
	end = strchr(k, '=');
	n = end ? (size_t)(end - k) : strlen(k);
	if (!n || n > 64)
		return "its key is empty or longer than 64 characters";
	for (size_t i = 0; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= '0' && k[i] <= '9') || k[i] == '-'))
			return "its key is not lowercase letters, digits and '-'";
	for (const char *c = end ? end + 1 : k + n; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return "its value holds a control character";
	for (size_t i = 0; srun_owned[i]; i++)
		if (strlen(srun_owned[i]) == n && !strncmp(srun_owned[i], k, n))
			return "srtctl sets this srun option itself";
	return NULL;
}

/* plan.json's "srun_options": a list of checked "--key[=value]" words. */
static int srun_opts_parse(struct srt_arena *a, const json_t *arr, struct srt_runplan_proc *pr,
			   struct srt_error *err)
{
	const char *why;

	if (!arr || json_is_null(arr))
		return 0;
	if (!json_is_array(arr) || strings(a, arr, &pr->srun_opts, &pr->nsrun_opts) < 0)
		return srt_error_set(err, "srun_options must be a list of strings");
	for (size_t i = 0; i < pr->nsrun_opts; i++)
		if ((why = srt_runplan_srun_option_problem(pr->srun_opts[i])))
			return srt_error_set(err, "srun option '%s' is refused: %s",
					     pr->srun_opts[i], why);
	return 0;
}

static int proc_parse(struct srt_runplan *p, const json_t *o, struct srt_runplan_proc *pr,
		      struct srt_error *err)
{
	int node = jint(o, "node", -1);

	pr->name = jstr(o, "name");
	if (kind_parse(jstr(o, "kind"), &pr->kind) < 0)
		return srt_error_set(err, "kind '%s' is not service|worker|frontend|benchmark",
				     jstr(o, "kind") ? jstr(o, "kind") : "");
	pr->service = jstr(o, "service");
	pr->type = jstr(o, "type");
	pr->placement = jstr(o, "placement");
	pr->role = jstr(o, "role");
	pr->index = pr->kind == SRT_PROC_WORKER ? jint(o, "index", 0) : -1;
	pr->rank = pr->kind == SRT_PROC_WORKER ? jint(o, "rank", 0) : -1;
	pr->phase = jstr(o, "phase") ? jstr(o, "phase") : "with_workers";
	if (node < 0 || (size_t)node >= p->nnodes)
		return srt_error_set(err, "node %d is not one of the plan's %zu nodes", node,
				     p->nnodes);
	pr->node = (size_t)node;
	if (mpi_parse(p, o, pr, err) < 0 || prep_parse(&p->arena, o, pr, err) < 0)
		return -1;
	if (!json_is_array(json_object_get(o, "argv")) ||
	    strings(&p->arena, json_object_get(o, "argv"), &pr->argv, &pr->argc) < 0)
		return srt_error_set(err, "argv must be a non-empty list of strings");
	if (argv_runtime_parse(&p->arena, json_object_get(o, "argv_runtime"), pr) < 0)
		return srt_error_set(err, "argv_runtime must list indexes of argv words");
	pr->model_mount = jstr(o, "model_mount");
	if (env_parse(&p->arena, json_object_get(o, "env"), pr, err) < 0)
		return -1;
	pr->container = jstr(o, "container");
	if (srun_opts_parse(&p->arena, json_object_get(o, "srun_options"), pr, err) < 0)
		return -1;
	if (readiness_parse(json_object_get(o, "readiness"), pr, err) < 0)
		return -1;
	pr->log_file = jstr(o, "log_file");
	pr->critical = json_is_true(json_object_get(o, "critical"));
	pr->terminal = json_is_true(json_object_get(o, "terminal"));
	if (restart_parse(json_object_get(o, "restart"), &pr->restart) < 0)
		return srt_error_set(err, "restart must have mode never|on-failure|always and "
					  "non-negative limits");
	pr->follows = jstr(o, "follows");
	return 0;
}

/* The batch script's gate points: where a launch group ends. */
static bool gate_after(const struct srt_runplan *p, size_t i)
{
	const struct srt_runplan_proc *pr = &p->procs[i],
				      *next = i + 1 < p->nprocs ? &p->procs[i + 1] : NULL;

	switch (pr->kind) {
	case SRT_PROC_SERVICE:
		if (!strcmp(pr->phase, "with_workers"))
			return false;
		/* a Ray head before the nodes that join it: they follow it */
		if (next && next->follows && !strcmp(next->follows, pr->name))
			return true;
		return !next || next->kind != SRT_PROC_SERVICE || !next->service || !pr->service ||
		       strcmp(next->service, pr->service) || next->external != pr->external;
	case SRT_PROC_WORKER:
		return !next || next->kind != SRT_PROC_WORKER;
	case SRT_PROC_FRONTEND:
		/* several frontends and the nginx in front of them start together */
		return !next || next->kind != SRT_PROC_FRONTEND;
	case SRT_PROC_BENCHMARK:
		return true;
	}
	return true;
}

static void assign_groups(struct srt_runplan *p)
{
	int g = 0;
	size_t pending = 0;

	for (size_t i = 0; i < p->nprocs; i++) {
		struct srt_runplan_proc *pr = &p->procs[i];

		if (pr->kind == SRT_PROC_BENCHMARK && pending) {
			g++;
			pending = 0;
		}
		pr->group = g;
		if (pr->nprobes)
			pending++;
		if (gate_after(p, i) && pending) {
			g++;
			pending = 0;
		}
		if (pr->kind == SRT_PROC_SERVICE && pr->type &&
		    !strcmp(pr->type, "mooncake-master"))
			pr->tier = 2;
		else if (pr->kind == SRT_PROC_SERVICE &&
			 (!strcmp(pr->phase, "before_workers") || !strcmp(pr->phase, "infra")))
			pr->tier = 1;
		else
			pr->tier = 0;
	}
	p->ngroups = p->nprocs ? p->procs[p->nprocs - 1].group + 1 : 0;
}

/* The external master as a process of its own: probed (TCP), never launched. */
static int external_proc(struct srt_runplan *p, struct srt_runplan_proc *pr, struct srt_error *err)
{
	const char *addr = p->master_address;
	char host[256];
	int port;

	if (!addr || srt_probe_split_hostport(addr, host, sizeof(host), &port) < 0)
		return srt_error_set(err,
				     "mooncake_master.address '%s' is not host:port; fix "
				     "services[].external in the recipe",
				     addr ? addr : "");
	memset(pr, 0, sizeof(*pr));
	pr->name = p->master_name ? p->master_name : "mooncake-master";
	pr->kind = SRT_PROC_SERVICE;
	pr->service = pr->name;
	pr->type = "mooncake-master";
	pr->index = pr->rank = -1;
	pr->phase = "before_workers";
	pr->external = true;
	pr->external_host = srt_arena_strdup(&p->arena, host);
	pr->external_port = port;
	pr->probes[0] = (struct srt_runplan_probe){ .http = false, .port = port };
	pr->nprobes = 1;
	pr->timeout_s = SRT_READINESS_TIMEOUT_DEFAULT;
	pr->interval_s = SRT_READINESS_INTERVAL_DEFAULT;
	pr->restart.mode = SRT_RESTART_NEVER;
	pr->endpoint = srt_arena_strdup(&p->arena, addr);
	pr->host = pr->ip = pr->external_host;
	return 0;
}

/* ---- building ---- */

void srt_runplan_init(struct srt_runplan *p, size_t nnodes)
{
	memset(p, 0, sizeof(*p));
	srt_arena_init(&p->arena);
	p->recipe = "";
	p->nnodes = nnodes;
	p->node_host_ph = srt_arena_alloc(&p->arena, (nnodes + 1) * sizeof(char *));
	p->node_ip_ph = srt_arena_alloc(&p->arena, (nnodes + 1) * sizeof(char *));
	p->node_label = srt_arena_alloc(&p->arena, (nnodes + 1) * sizeof(char *));
	p->node_dedicated = srt_arena_alloc(&p->arena, (nnodes + 1) * sizeof(bool));
	memset(p->node_dedicated, 0, (nnodes + 1) * sizeof(bool));
	p->infra_ip_ph = SRT_PH_INFRA_IP;
	p->log_dir_ph = SRT_PH_LOG_DIR;
}

struct srt_runplan_proc *srt_runplan_add(struct srt_runplan *p)
{
	if (p->nprocs == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct srt_runplan_proc *v = srt_arena_alloc(&p->arena, cap * sizeof(*v));

		if (p->nprocs)
			memcpy(v, p->procs, p->nprocs * sizeof(*v));
		p->procs = v;
		p->cap = cap;
	}
	memset(&p->procs[p->nprocs], 0, sizeof(p->procs[0]));
	p->procs[p->nprocs].index = p->procs[p->nprocs].rank = -1;
	p->procs[p->nprocs].nnodes = 1;
	p->procs[p->nprocs].ntasks = 1;
	return &p->procs[p->nprocs++];
}

static int proc_check(const struct srt_runplan *p, const struct srt_runplan_proc *pr,
		      struct srt_error *err)
{
	if (!pr->name || !*pr->name)
		return srt_error_set(err, "a process has no name");
	if (pr->node >= p->nnodes)
		return srt_error_set(err, "node %zu is not one of the plan's %zu nodes", pr->node,
				     p->nnodes);
	if (!pr->argc || !pr->argv[0] || !*pr->argv[0])
		return srt_error_set(err, "argv must be a non-empty list of strings");
	if (!pr->log_file || !*pr->log_file || strchr(pr->log_file, '/') ||
	    !strcmp(pr->log_file, ".") || !strcmp(pr->log_file, ".."))
		return srt_error_set(err, "log_file must be a file name inside the log directory");
	if (!pr->phase)
		return srt_error_set(err, "it has no start phase");
	if (!pr->nnodes || pr->nnodes > p->nnodes - pr->node || pr->ntasks < 1 ||
	    (size_t)pr->ntasks % pr->nnodes || (size_t)pr->ntasks < pr->nnodes)
		return srt_error_set(err, "its %d tasks on %zu nodes from node %zu do not fit",
				     pr->ntasks, pr->nnodes, pr->node);
	if ((pr->nnodes > 1 || pr->ntasks > 1) && !pr->mpi)
		return srt_error_set(err, "several tasks or nodes need an MPI type ('mpi')");
	if (pr->mpi && strcmp(pr->mpi, "pmix") && strcmp(pr->mpi, "pmi2") &&
	    strcmp(pr->mpi, "none"))
		return srt_error_set(err, "mpi '%s' is not pmix, pmi2 or none", pr->mpi);
	if (pr->mpi && !strcmp(pr->mpi, "none") && (pr->nnodes > 1 || pr->ntasks > 1))
		return srt_error_set(err, "mpi 'none' is one task on one node");
	if (pr->run_dir && !log_path_ok(pr->run_dir))
		return srt_error_set(err,
				     "run_dir '%s' must be a directory inside the log directory",
				     pr->run_dir);
	for (size_t i = 0; i < pr->nclear; i++)
		if (!log_path_ok(pr->clear[i]))
			return srt_error_set(err,
					     "clear '%s' must be a file inside the log directory",
					     pr->clear[i]);
	if (!pr->config_file != !pr->config_text)
		return srt_error_set(err, "config_file and config_text go together");
	if (pr->config_file && !log_name_ok(pr->config_file))
		return srt_error_set(err,
				     "config_file must be a file name inside the log directory");
	return 0;
}

int srt_runplan_finish(struct srt_runplan *p, struct srt_error *err)
{
	size_t first = 0;

	if (!p->nnodes)
		return srt_error_set(err, "the plan has no nodes");
	for (size_t i = 0; i < p->nnodes; i++)
		if (!p->node_host_ph[i] || !p->node_ip_ph[i])
			return srt_error_set(err, "plan node %zu has no host or ip", i);
	if (p->infra >= p->nnodes || p->head >= p->nnodes)
		return srt_error_set(err, "infra_node %zu is not one of the plan's %zu nodes",
				     p->infra, p->nnodes);
	for (size_t i = 0; i < p->nstore_configs; i++) {
		const char *f = p->store_configs[i].file;

		if (!f || !p->store_configs[i].config)
			return srt_error_set(err, "store_configs[%zu] needs a file and a config",
					     i);
		if (!srt_str_has_prefix(f, SRT_PH_LOG_DIR "/mooncake/") || strstr(f, "/..") ||
		    strchr(f + strlen(SRT_PH_LOG_DIR "/mooncake/"), '/'))
			return srt_error_set(err,
					     "store_configs[%zu].file '%s' must be a file of the "
					     "log directory's mooncake/ folder",
					     i, f);
	}
	if (p->master_external && !(p->nprocs && p->procs[0].external)) {
		srt_runplan_add(p); /* room for it: the array may move */
		memmove(&p->procs[1], &p->procs[0], (p->nprocs - 1) * sizeof(p->procs[0]));
		if (external_proc(p, &p->procs[0], err) < 0)
			return -1;
	}
	first = p->master_external ? 1 : 0;
	for (size_t i = first; i < p->nprocs; i++) {
		const struct srt_runplan_proc *pr = &p->procs[i];

		if (proc_check(p, pr, err) < 0)
			return srt_error_prefix(err, "plan process %zu ('%s')", i - first,
						pr->name ? pr->name : "?");
		for (size_t k = 0; k < i; k++)
			if (!strcmp(p->procs[k].name, pr->name))
				return srt_error_set(err, "two plan processes are named '%s'",
						     pr->name);
	}
	for (size_t i = 0; i < p->nprocs; i++) {
		const char *f = p->procs[i].follows;

		if (f && !srt_runplan_find(p, f))
			return srt_error_set(err,
					     "process '%s' follows '%s', which is not in the plan",
					     p->procs[i].name, f);
	}
	assign_groups(p);
	return 0;
}

/* ---- reading ---- */

static int nodes_parse(struct srt_runplan *p, const json_t *nodes, struct srt_error *err)
{
	for (size_t i = 0; i < p->nnodes; i++) {
		const json_t *n = json_array_get(nodes, i);

		p->node_host_ph[i] = jstr(n, "host");
		p->node_ip_ph[i] = jstr(n, "ip");
		p->node_label[i] = jstr(n, "label");
		p->node_dedicated[i] = json_is_true(json_object_get(n, "dedicated"));
		if (!p->node_host_ph[i] || !p->node_ip_ph[i])
			return srt_error_set(err, "plan node %zu has no host or ip", i);
	}
	return 0;
}

static int workers_parse(struct srt_runplan *p, const json_t *ws, struct srt_error *err)
{
	p->nworkers = json_array_size(ws);
	p->workers = srt_arena_alloc(&p->arena, (p->nworkers + 1) * sizeof(*p->workers));
	for (size_t i = 0; i < p->nworkers; i++) {
		const json_t *w = json_array_get(ws, i);
		int node = jint(w, "node", -1), nn = jint(w, "nnodes", 0);

		p->workers[i].role = jstr(w, "role");
		p->workers[i].index = jint(w, "index", -1);
		if (!p->workers[i].role || node < 0 || nn < 1 || (size_t)node >= p->nnodes ||
		    (size_t)nn > p->nnodes - (size_t)node)
			return srt_error_set(err,
					     "plan worker %zu needs a role and nodes inside "
					     "the plan's",
					     i);
		p->workers[i].node = (size_t)node;
		p->workers[i].nnodes = (size_t)nn;
	}
	return 0;
}

/*
 * "store_configs": [{file, config}]; a plan written before TRT-LLM's client
 * configs has one "store_config" with its "store_config_file".
 */
static int load_store_configs(struct srt_runplan *p, const json_t *plan, struct srt_error *err)
{
	const json_t *list = json_object_get(plan, "store_configs");
	const json_t *old = json_object_get(plan, "store_config");

	p->nstore_configs = 0;
	if (json_is_object(old) && !list) {
		p->store_configs[0].config = old;
		p->store_configs[0].file = jstr(plan, "store_config_file");
		p->nstore_configs = 1;
		return 0;
	}
	if (!list || json_is_null(list))
		return 0;
	if (!json_is_array(list) || json_array_size(list) > SRT_RUNPLAN_STORE_CONFIGS_MAX)
		return srt_error_set(err, "store_configs must be a list of at most %d entries",
				     SRT_RUNPLAN_STORE_CONFIGS_MAX);
	for (size_t i = 0; i < json_array_size(list); i++) {
		const json_t *e = json_array_get(list, i);
		const json_t *c = json_object_get(e, "config");

		if (!json_is_object(c) || !jstr(e, "file"))
			return srt_error_set(
				err, "store_configs[%zu] needs a file and a config object", i);
		p->store_configs[i].config = c;
		p->store_configs[i].file = jstr(e, "file");
		p->nstore_configs = i + 1;
	}
	return 0;
}

int srt_runplan_load(struct srt_runplan *p, json_t *plan, struct srt_error *err)
{
	const json_t *nodes, *procs, *m, *rt;
	size_t np;

	memset(p, 0, sizeof(*p));
	srt_arena_init(&p->arena);
	if (!json_is_object(plan))
		return srt_error_set(err, "the plan is not a JSON object");
	nodes = json_object_get(plan, "nodes");
	procs = json_object_get(plan, "processes");
	if (!json_is_array(nodes) || !json_array_size(nodes) || !json_is_array(procs))
		return srt_error_set(err, "the plan has no nodes or no processes list");
	srt_arena_release(&p->arena);
	srt_runplan_init(p, json_array_size(nodes));
	p->json = json_incref(plan);
	p->generation = json_integer_value(json_object_get(plan, "generation"));
	p->recipe = jstr(plan, "recipe") ? jstr(plan, "recipe") : "";
	p->engine = jstr(plan, "engine");
	if (nodes_parse(p, nodes, err) < 0 ||
	    workers_parse(p, json_object_get(plan, "workers"), err) < 0)
		return -1;
	p->head = (size_t)jint(plan, "head_node", 0);
	p->infra = (size_t)jint(plan, "infra_node", 0);
	p->dedicated_infra = json_is_true(json_object_get(plan, "dedicated_infra_node"));
	if (jstr(plan, "infra_ip"))
		p->infra_ip_ph = jstr(plan, "infra_ip");
	if (jstr(plan, "log_dir"))
		p->log_dir_ph = jstr(plan, "log_dir");
	rt = json_object_get(plan, "runtime");
	p->pyxis = jstr(rt, "container_runtime") && !strcmp(jstr(rt, "container_runtime"), "pyxis");
	p->network_interface = jstr(rt, "network_interface");
	if (p->network_interface && !*p->network_interface)
		p->network_interface = NULL;
	m = json_object_get(rt, "mounts");
	if (m && !json_is_null(m)) {
		if (!json_is_array(m) || strings(&p->arena, m, &p->mounts, &p->nmounts) < 0)
			return srt_error_set(err, "runtime.mounts must be a list of strings");
		for (size_t i = 0; i < p->nmounts; i++)
			if (!*p->mounts[i] || strpbrk(p->mounts[i], ",\n\r"))
				return srt_error_set(err,
						     "runtime.mounts[%zu] is not one "
						     "SRC:DST[:FLAGS] mount",
						     i);
	}
	m = json_object_get(plan, "mooncake_master");
	if (json_is_object(m)) {
		p->master_name = jstr(m, "name");
		p->master_external = json_is_true(json_object_get(m, "external"));
		p->master_address = jstr(m, "address");
		p->master_metadata = jstr(m, "metadata_server");
	}
	if (load_store_configs(p, plan, err) < 0)
		return -1;
	/* Absent in plans written before the frontend URL was recorded: none known. */
	p->frontend_url_ph = jstr(plan, "frontend_url");

	np = json_array_size(procs);
	for (size_t i = 0; i < np; i++) {
		struct srt_runplan_proc *pr = srt_runplan_add(p);

		if (proc_parse(p, json_array_get(procs, i), pr, err) < 0)
			return srt_error_prefix(err, "plan process %zu ('%s')", i,
						pr->name ? pr->name : "?");
	}
	return srt_runplan_finish(p, err);
}

const char *srt_runplan_pattern_problem(const char *pattern)
{
	regex_t re;
	size_t n = strlen(pattern);

	if (!n || n > 512)
		return "a pattern is 1 to 512 bytes";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)pattern[i];

		if (c < 0x20 || c == 0x7f)
			return "a pattern matches within one line: no control characters";
		if (c == '\\' && i + 1 < n && isalnum((unsigned char)pattern[i + 1]))
			return "a backslash before a letter or digit (\\d, \\s, \\w, \\b, \\1) "
			       "means something else in POSIX regular expressions than in "
			       "Python's; write a bracket expression: [0-9], [[:space:]], "
			       "[[:alnum:]_]";
		if (c == '\\')
			i++; /* an escaped punctuation character: the same in both */
		else if (c == '(' && pattern[i + 1] == '?')
			return "(?...) groups are Python's; write plain ( ) groups";
		else if ((c == '*' || c == '+' || c == '?' || c == '}') && pattern[i + 1] == '?' &&
			 i > 0)
			return "lazy quantifiers (*?, +?, ?\?) are Python's; a search for a line "
			       "needs none";
	}
	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB | REG_NEWLINE) != 0)
		return "it is not a valid POSIX extended regular expression";
	regfree(&re);
	return NULL;
}

void srt_runplan_probe_name(const struct srt_runplan_probe *pb, char *buf, size_t size)
{
	if (pb->pattern)
		snprintf(buf, size, "log /%s/", pb->pattern);
	else if (pb->file)
		snprintf(buf, size, "file %s", pb->file);
	else if (pb->http && pb->ray_alive) {
		bool v6 = pb->host && strchr(pb->host, ':');

		snprintf(buf, size, "http %s%s%s%s%d %s (%d Ray nodes ALIVE)", v6 ? "[" : "",
			 pb->host ? pb->host : "", v6 ? "]" : "", pb->host ? ":" : "", pb->port,
			 pb->path ? pb->path : "/health", pb->ray_alive);
	} else if (pb->http)
		snprintf(buf, size, "http %d %s", pb->port, pb->path ? pb->path : "/health");
	else
		snprintf(buf, size, "tcp %d", pb->port);
}

/* ---- writing ---- */

static json_t *jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *readiness_json(const struct srt_runplan_proc *pr)
{
	json_t *o, *probes;

	if (!pr->nprobes)
		return json_null();
	o = json_object();
	probes = json_array();
	for (size_t i = 0; i < pr->nprobes; i++) {
		const struct srt_runplan_probe *pb = &pr->probes[i];
		json_t *j = json_object();

		if (pb->pattern) {
			json_object_set_new(j, "kind", json_string("log"));
			json_object_set_new(j, "pattern", json_string(pb->pattern));
			json_array_append_new(probes, j);
			continue;
		}
		if (pb->file) {
			json_object_set_new(j, "kind", json_string("file"));
			json_object_set_new(j, "path", json_string(pb->file));
			json_array_append_new(probes, j);
			continue;
		}
		json_object_set_new(j, "kind", json_string(pb->http ? "http" : "tcp"));
		json_object_set_new(j, "port", json_integer(pb->port));
		if (pb->http) {
			json_object_set_new(j, "path",
					    json_string(pb->path ? pb->path : "/health"));
			json_object_set_new(j, "status",
					    json_integer(pb->status ? pb->status : 200));
			if (pb->ray_alive)
				json_object_set_new(j, "ray_alive", json_integer(pb->ray_alive));
		}
		if (pb->host)
			json_object_set_new(j, "host", json_string(pb->host));
		json_array_append_new(probes, j);
	}
	json_object_set_new(o, "probes", probes);
	json_object_set_new(o, "timeout_seconds", json_integer(pr->timeout_s));
	json_object_set_new(o, "interval_seconds", json_integer(pr->interval_s));
	return o;
}

static json_t *restart_json(const struct srt_restart_policy *rp)
{
	json_t *o = json_object();

	json_object_set_new(o, "mode", json_string(srt_restart_mode_name(rp->mode)));
	json_object_set_new(o, "max_restarts", json_integer(rp->max_restarts));
	json_object_set_new(o, "backoff_seconds", json_integer(rp->backoff_seconds));
	json_object_set_new(o, "max_backoff_seconds", json_integer(rp->max_backoff_seconds));
	json_object_set_new(o, "reset_after_seconds", json_integer(rp->reset_after_seconds));
	return o;
}

static json_t *env_json(const struct srt_runplan_proc *pr)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < pr->nenv; i++) {
		const struct srt_runplan_envsrc *src = pr->env_src ? &pr->env_src[i] : NULL;
		json_t *o = json_object();

		json_object_set_new(o, "name", json_string(pr->env_names[i]));
		json_object_set_new(o, "value", json_string(pr->env_values[i]));
		if (src && src->owner) {
			json_object_set_new(o, "owner", json_string(src->owner));
			json_object_set_new(o, "layer", json_string(src->layer ? src->layer : ""));
		}
		if (pr->env_runtime[i])
			json_object_set_new(o, "runtime", json_true());
		if (src && src->overridden) {
			json_object_set_new(o, "overridden", json_string(src->overridden));
			json_object_set_new(
				o, "overridden_layer",
				json_string(src->overridden_layer ? src->overridden_layer : ""));
		}
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *strings_json(const char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static json_t *proc_json(const struct srt_runplan *p, const struct srt_runplan_proc *pr)
{
	json_t *o = json_object(), *argv = json_array();

	json_object_set_new(o, "name", json_string(pr->name));
	json_object_set_new(o, "kind", json_string(srt_proc_kind_name(pr->kind)));
	if (pr->kind == SRT_PROC_SERVICE) {
		json_object_set_new(o, "service", jstr_or_null(pr->service));
		json_object_set_new(o, "type", jstr_or_null(pr->type));
		json_object_set_new(o, "placement", jstr_or_null(pr->placement));
	} else if (pr->kind == SRT_PROC_WORKER) {
		json_object_set_new(o, "role", jstr_or_null(pr->role));
		json_object_set_new(o, "index", json_integer(pr->index));
		json_object_set_new(o, "rank", json_integer(pr->rank));
	}
	json_object_set_new(o, "phase", json_string(pr->phase));
	json_object_set_new(o, "node", json_integer((json_int_t)pr->node));
	json_object_set_new(o, "host", json_string(p->node_host_ph[pr->node]));
	if (pr->mpi) {
		json_object_set_new(o, "nnodes", json_integer((json_int_t)pr->nnodes));
		json_object_set_new(o, "ntasks", json_integer(pr->ntasks));
		json_object_set_new(o, "mpi", json_string(pr->mpi));
	}
	if (pr->run_dir)
		json_object_set_new(o, "run_dir", json_string(pr->run_dir));
	if (pr->nclear)
		json_object_set_new(o, "clear", strings_json(pr->clear, pr->nclear));
	if (pr->config_file) {
		json_object_set_new(o, "config_file", json_string(pr->config_file));
		json_object_set_new(o, "config_text", json_string(pr->config_text));
		if (pr->config_runtime)
			json_object_set_new(o, "config_runtime", json_true());
	}
	for (size_t i = 0; i < pr->argc; i++)
		json_array_append_new(argv, json_string(pr->argv[i]));
	json_object_set_new(o, "argv", argv);
	if (pr->argv_runtime) {
		json_t *idx = json_array();

		for (size_t i = 0; i < pr->argc; i++)
			if (pr->argv_runtime[i])
				json_array_append_new(idx, json_integer((json_int_t)i));
		if (json_array_size(idx))
			json_object_set_new(o, "argv_runtime", idx);
		else
			json_decref(idx);
	}
	if (pr->model_mount)
		json_object_set_new(o, "model_mount", json_string(pr->model_mount));
	json_object_set_new(o, "env", env_json(pr));
	json_object_set_new(o, "container", jstr_or_null(pr->container));
	if (pr->nsrun_opts)
		json_object_set_new(o, "srun_options", strings_json(pr->srun_opts, pr->nsrun_opts));
	json_object_set_new(o, "readiness", readiness_json(pr));
	json_object_set_new(o, "log_file", json_string(pr->log_file));
	json_object_set_new(o, "critical", json_boolean(pr->critical));
	if (pr->terminal)
		json_object_set_new(o, "terminal", json_true());
	json_object_set_new(o, "restart", restart_json(&pr->restart));
	json_object_set_new(o, "follows", jstr_or_null(pr->follows));
	return o;
}

json_t *srt_runplan_to_json(const struct srt_runplan *p)
{
	json_t *o = json_object(), *nodes = json_array(), *workers = json_array();
	json_t *procs = json_array(), *rt = json_object(), *scs;

	json_object_set_new(o, "version", json_integer(1));
	json_object_set_new(o, "recipe", json_string(p->recipe ? p->recipe : ""));
	json_object_set_new(o, "engine", jstr_or_null(p->engine));
	json_object_set_new(o, "log_dir", json_string(p->log_dir_ph));
	json_object_set_new(o, "head_node", json_integer((json_int_t)p->head));
	json_object_set_new(o, "infra_node", json_integer((json_int_t)p->infra));
	json_object_set_new(o, "infra_ip", json_string(p->infra_ip_ph));
	json_object_set_new(o, "dedicated_infra_node", json_boolean(p->dedicated_infra));
	json_object_set_new(rt, "container_runtime", json_string(p->pyxis ? "pyxis" : "none"));
	json_object_set_new(rt, "network_interface", jstr_or_null(p->network_interface));
	if (p->nmounts) {
		json_t *mounts = json_array();

		for (size_t i = 0; i < p->nmounts; i++)
			json_array_append_new(mounts, json_string(p->mounts[i]));
		json_object_set_new(rt, "mounts", mounts);
	}
	json_object_set_new(o, "runtime", rt);
	for (size_t i = 0; i < p->nnodes; i++) {
		json_t *n = json_object();

		json_object_set_new(n, "index", json_integer((json_int_t)i));
		json_object_set_new(n, "label", jstr_or_null(p->node_label[i]));
		json_object_set_new(n, "host", json_string(p->node_host_ph[i]));
		json_object_set_new(n, "ip", json_string(p->node_ip_ph[i]));
		json_object_set_new(n, "dedicated", json_boolean(p->node_dedicated[i]));
		json_array_append_new(nodes, n);
	}
	json_object_set_new(o, "nodes", nodes);
	for (size_t i = 0; i < p->nworkers; i++) {
		const struct srt_runplan_worker *w = &p->workers[i];
		json_t *j = json_object();

		json_object_set_new(j, "role", json_string(w->role));
		json_object_set_new(j, "index", json_integer(w->index));
		json_object_set_new(j, "node", json_integer((json_int_t)w->node));
		json_object_set_new(j, "nnodes", json_integer((json_int_t)w->nnodes));
		json_array_append_new(workers, j);
	}
	json_object_set_new(o, "workers", workers);
	if (p->master_name) {
		json_t *m = json_object();

		json_object_set_new(m, "name", json_string(p->master_name));
		json_object_set_new(m, "external", json_boolean(p->master_external));
		json_object_set_new(m, "address", jstr_or_null(p->master_address));
		json_object_set_new(m, "metadata_server", jstr_or_null(p->master_metadata));
		json_object_set_new(o, "mooncake_master", m);
	} else {
		json_object_set_new(o, "mooncake_master", json_null());
	}
	scs = json_array();
	for (size_t i = 0; i < p->nstore_configs; i++)
		json_array_append_new(scs, json_pack("{s:s, s:o}", "file", p->store_configs[i].file,
						     "config",
						     json_deep_copy(p->store_configs[i].config)));
	json_object_set_new(o, "store_configs", scs);
	/* An agent older than the list reads vLLM's one file from these. */
	if (p->nstore_configs == 1 &&
	    !strcmp(p->store_configs[0].file, SRT_PH_LOG_DIR "/" SRT_RUNPLAN_VLLM_STORE_CONFIG)) {
		json_object_set_new(o, "store_config", json_deep_copy(p->store_configs[0].config));
		json_object_set_new(o, "store_config_file", json_string(p->store_configs[0].file));
	}
	json_object_set_new(o, "frontend_url", jstr_or_null(p->frontend_url_ph));
	for (size_t i = 0; i < p->nprocs; i++)
		if (!p->procs[i].external)
			json_array_append_new(procs, proc_json(p, &p->procs[i]));
	json_object_set_new(o, "processes", procs);
	return o;
}

struct srt_runplan_proc *srt_runplan_find(struct srt_runplan *p, const char *name)
{
	for (size_t i = 0; i < p->nprocs; i++)
		if (!strcmp(p->procs[i].name, name))
			return &p->procs[i];
	return NULL;
}

void srt_runplan_release(struct srt_runplan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nstore_configs; i++)
		free(p->store_configs[i].text);
	json_decref(p->json);
	srt_arena_release(&p->arena);
	memset(p, 0, sizeof(*p));
}

/* ---- binding ---- */

static bool starts_with(const char *s, const char *placeholder, size_t *len)
{
	size_t n = placeholder ? strlen(placeholder) : 0;

	if (!n || strncmp(s, placeholder, n))
		return false;
	*len = n;
	return true;
}

/*
 * The value of the placeholder at the start of s, with its length; NULL
 * when none.  Placeholders are compared whole ("<prefill_node_1>" is not a
 * prefix of "<prefill_node_1_ip>"), so the order of the checks does not
 * matter.
 */
static const char *match(const struct srt_runplan *p, const char *s, size_t *len)
{
	if (starts_with(s, p->infra_ip_ph, len))
		return p->infra_ip;
	if (starts_with(s, p->log_dir_ph, len))
		return p->log_dir;
	for (size_t i = 0; i < p->nnodes; i++) {
		if (starts_with(s, p->node_ip_ph[i], len))
			return p->ips[i];
		if (starts_with(s, p->node_host_ph[i], len))
			return p->hosts[i];
	}
	return NULL;
}

const char *srt_runplan_subst(struct srt_runplan *p, const char *s)
{
	struct srt_buf b;
	const char *out;

	if (!s || !strchr(s, '<'))
		return s;
	srt_buf_init(&b);
	for (const char *q = s; *q;) {
		size_t len;
		const char *v = *q == '<' ? match(p, q, &len) : NULL;

		if (v) {
			srt_buf_puts(&b, v);
			q += len;
		} else {
			srt_buf_putc(&b, *q++);
		}
	}
	out = srt_arena_strdup(&p->arena, b.data);
	srt_buf_release(&b);
	return out;
}

/* "10.0.0.1:8700", "[fd00::1]:8700" */
static const char *hostport(struct srt_arena *a, const char *ip, int port)
{
	return strchr(ip, ':') ? srt_arena_printf(a, "[%s]:%d", ip, port) :
				 srt_arena_printf(a, "%s:%d", ip, port);
}

int srt_runplan_bind(struct srt_runplan *p, const char *const *hosts, const char *const *ips,
		     size_t n, const char *log_dir, struct srt_error *err)
{
	if (n < p->nnodes)
		return srt_error_set(err,
				     "the allocation has %zu node(s) but the plan needs %zu; "
				     "submit the job with --nodes=%zu",
				     n, p->nnodes, p->nnodes);
	p->hosts = srt_arena_alloc(&p->arena, p->nnodes * sizeof(char *));
	p->ips = srt_arena_alloc(&p->arena, p->nnodes * sizeof(char *));
	for (size_t i = 0; i < p->nnodes; i++) {
		p->hosts[i] = srt_arena_strdup(&p->arena, hosts[i]);
		p->ips[i] = srt_arena_strdup(&p->arena, ips[i]);
	}
	p->infra_ip = p->ips[p->infra];
	p->log_dir = srt_arena_strdup(&p->arena, log_dir);
	p->frontend_url = p->frontend_url_ph ? srt_runplan_subst(p, p->frontend_url_ph) : NULL;
	for (size_t i = 0; i < p->nprocs; i++) {
		struct srt_runplan_proc *pr = &p->procs[i];

		if (pr->external) {
			srt_rundir_env_hash(NULL, NULL, 0, pr->env_hash);
			continue;
		}
		pr->name = srt_runplan_subst(p, pr->name);
		pr->log_file = srt_runplan_subst(p, pr->log_file);
		if (!log_name_ok(pr->log_file))
			return srt_error_set(err,
					     "process '%s': log file '%s' is not a plain file name "
					     "once node names are filled in",
					     pr->name, pr->log_file);
		pr->run_dir = srt_runplan_subst(p, pr->run_dir);
		for (size_t k = 0; k < pr->nclear; k++)
			pr->clear[k] = srt_runplan_subst(p, pr->clear[k]);
		for (size_t k = 0; k < pr->nprobes; k++) {
			if (pr->probes[k].file)
				pr->probes[k].file = srt_runplan_subst(p, pr->probes[k].file);
			if (pr->probes[k].host) {
				pr->probes[k].host = srt_runplan_subst(p, pr->probes[k].host);
				if (strchr(pr->probes[k].host, '<'))
					return srt_error_set(err,
							     "process '%s': readiness probe host "
							     "'%s' names no node of the plan",
							     pr->name, pr->probes[k].host);
			}
		}
		if ((pr->run_dir && !log_path_ok(pr->run_dir)) ||
		    (pr->nclear && !log_path_ok(pr->clear[0])) ||
		    (pr->nclear > 1 && !log_path_ok(pr->clear[1])))
			return srt_error_set(
				err,
				"process '%s': a run directory or file to clear leaves "
				"the log directory once node names are filled in",
				pr->name);
		for (size_t k = 0; k < pr->nprobes; k++)
			if (pr->probes[k].file && !log_path_ok(pr->probes[k].file))
				return srt_error_set(err,
						     "process '%s': readiness file '%s' leaves the "
						     "log directory once node names are filled in",
						     pr->name, pr->probes[k].file);
		for (size_t k = 0; k < pr->nenv; k++)
			if (pr->env_runtime[k])
				pr->env_values[k] = srt_runplan_subst(p, pr->env_values[k]);
		for (size_t k = 0; pr->argv_runtime && k < pr->argc; k++)
			if (pr->argv_runtime[k])
				pr->argv[k] = srt_runplan_subst(p, pr->argv[k]);
		if (pr->config_runtime)
			pr->config_text = srt_runplan_subst(p, pr->config_text);
		pr->host = p->hosts[pr->node];
		pr->ip = p->ips[pr->node];
		pr->hosts = pr->host;
		for (size_t k = 1; k < pr->nnodes; k++)
			pr->hosts = srt_arena_printf(&p->arena, "%s,%s", pr->hosts,
						     p->hosts[pr->node + k]);
		pr->endpoint = pr->nprobes && !pr->probes[0].file && !pr->probes[0].pattern ?
				       hostport(&p->arena, pr->ip, pr->probes[0].port) :
				       NULL;
		srt_rundir_env_hash(pr->env_names, pr->env_values, pr->nenv, pr->env_hash);
	}
	for (size_t i = 0; i < p->nprocs; i++)
		if (p->procs[i].follows)
			p->procs[i].follows = srt_runplan_subst(p, p->procs[i].follows);
	for (size_t i = 0; i < p->nstore_configs; i++) {
		struct srt_runplan_store_config *sc = &p->store_configs[i];
		json_t *j = json_deep_copy(sc->config);
		const char *addr = jstr(j, "master_server_address");
		char *text;

		if (addr && !p->master_external)
			json_object_set_new(j, "master_server_address",
					    json_string(srt_runplan_subst(p, addr)));
		text = json_dumps(j, JSON_COMPACT);
		json_decref(j);
		if (!text)
			return srt_error_set(err, "cannot render the store_config JSON %s",
					     sc->file);
		free(sc->text);
		sc->text = srt_xasprintf("%s\n", text);
		free(text);
		sc->path = srt_runplan_subst(p, sc->file);
	}
	return 0;
}

/* ---- what a new generation changes ---- */

/* The bound text of the store_config file a MOONCAKE_CONFIG_PATH value names, or NULL. */
static const char *store_text(const struct srt_runplan *p, const char *path)
{
	const char *slash = strrchr(path, '/');

	for (size_t i = 0; slash && i < p->nstore_configs; i++) {
		const char *f = p->store_configs[i].file;
		const char *fs = strrchr(f, '/');

		if (fs && !strcmp(fs, slash))
			return p->store_configs[i].text;
	}
	return NULL;
}

static const char *env_value(const struct srt_runplan_proc *p, const char *name)
{
	for (size_t i = 0; i < p->nenv; i++)
		if (!strcmp(p->env_names[i], name))
			return p->env_values[i];
	return NULL;
}

#define ENV_LIST_MAX 5 /* env names in a reason, then "and N more" */

static bool mounts_same(const struct srt_runplan *a, const struct srt_runplan *b)
{
	if (a->nmounts != b->nmounts)
		return false;
	for (size_t i = 0; i < a->nmounts; i++)
		if (strcmp(a->mounts[i], b->mounts[i]))
			return false;
	return true;
}

static bool strings_same(const char *const *a, size_t na, const char *const *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]))
			return false;
	return true;
}

bool srt_runplan_proc_changed(const struct srt_runplan *op, const struct srt_runplan_proc *o,
			      const struct srt_runplan *np, const struct srt_runplan_proc *n,
			      struct srt_buf *why)
{
	size_t start = why->len, nenv = 0;
	struct srt_buf env;
	bool argv_same = o->argc == n->argc;

#define WHY(...)                                                 \
	do {                                                     \
		srt_buf_puts(why, why->len > start ? "; " : ""); \
		srt_buf_printf(why, __VA_ARGS__);                \
	} while (0)

	if (!srt_str_same(o->hosts, n->hosts))
		WHY("node %s -> %s", o->hosts, n->hosts);
	if (o->ntasks != n->ntasks || !srt_str_same(o->mpi, n->mpi))
		WHY("MPI ranks %d -> %d", o->ntasks, n->ntasks);
	if (!srt_str_same(o->config_text, n->config_text))
		WHY("%s", n->config_file ? n->config_file : "config file");
	if (!srt_str_same(o->container, n->container))
		WHY("container %s -> %s", o->container ? o->container : "(none)",
		    n->container ? n->container : "(none)");
	if (!srt_str_same(o->model_mount, n->model_mount))
		WHY("model mount %s -> %s", o->model_mount ? o->model_mount : "(none)",
		    n->model_mount ? n->model_mount : "(none)");
	if ((o->container || n->container) && !mounts_same(op, np))
		WHY("container mounts");
	if (!strings_same(o->srun_opts, o->nsrun_opts, n->srun_opts, n->nsrun_opts))
		WHY("srun options");
	for (size_t i = 0; argv_same && i < n->argc; i++)
		argv_same = !strcmp(o->argv[i], n->argv[i]);
	if (!argv_same)
		WHY("command or args");
	srt_buf_init(&env);
	for (size_t i = 0; i < n->nenv; i++) {
		const char *was = env_value(o, n->env_names[i]);

		if (!was || strcmp(was, n->env_values[i]))
			srt_buf_list_item(&env, &nenv, ENV_LIST_MAX, "%s", n->env_names[i]);
	}
	for (size_t i = 0; i < o->nenv; i++)
		if (!env_value(n, o->env_names[i]))
			srt_buf_list_item(&env, &nenv, ENV_LIST_MAX, "%s", o->env_names[i]);
	srt_buf_list_end(&env, nenv, ENV_LIST_MAX);
	if (nenv)
		WHY("env %s", env.data);
	srt_buf_release(&env);
	if (env_value(n, "MOONCAKE_CONFIG_PATH") &&
	    !srt_str_same(store_text(op, env_value(n, "MOONCAKE_CONFIG_PATH")),
			  store_text(np, env_value(n, "MOONCAKE_CONFIG_PATH"))))
		WHY("store_config");
	if (!srt_str_same(o->log_file, n->log_file))
		WHY("log file %s -> %s", o->log_file, n->log_file);
#undef WHY
	return why->len > start;
}
