/*
 * recipe/script.c: the plan written as an sbatch batch script.
 *
 * This file owns the text of the generated bash launcher: the #SBATCH
 * header, node and IP discovery, the launch/readiness/supervise helpers and
 * one block per process of the plan.  The helper functions are constant
 * text; every value that comes from a recipe, the cluster config or the
 * caller is written through util/shell.h (srt_shell_quote and friends), and
 * layout placeholders in srtctl-built values become references to the shell
 * variables the script fills at run time (see recipe/script.h).
 */
#include "recipe/script.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/shell.h"
#include "util/version_gen.h"

/* ---- the constant part of the launcher ---- */

/* Helpers every script carries.  No recipe data appears in this text. */
static const char launcher_lib[] =
	"SRT_PIDS=()\n"
	"SRT_NAMES=()\n"
	"SRT_LOGS=()\n"
	"SRT_CRIT=()\n"
	"SRT_DONE=()\n"
	"SRT_ENV=()\n"
	"SRT_CMD=()\n"
	"SRT_CTR=()\n"
	"\n"
	"srt_log() { printf 'srtctl: %s\\n' \"$*\" >&2; }\n"
	"\n"
	"srt_tail() {\n"
	"\tsrt_log \"last lines of $1:\"\n"
	"\ttail -n 40 -- \"$1\" >&2 || true\n"
	"}\n"
	"\n"
	"# Stop every step (newest first): TERM, up to 30 s to exit, then KILL.\n"
	"srt_cleanup() {\n"
	"\tlocal rc=$? i pid left\n"
	"\ttrap - EXIT TERM INT\n"
	"\tfor ((i = ${#SRT_PIDS[@]} - 1; i >= 0; i--)); do\n"
	"\t\tkill -TERM \"${SRT_PIDS[$i]}\" 2>/dev/null || true\n"
	"\tdone\n"
	"\tfor ((left = 30; left > 0; left--)); do\n"
	"\t\tpid=\n"
	"\t\tfor i in \"${SRT_PIDS[@]}\"; do\n"
	"\t\t\tif kill -0 \"$i\" 2>/dev/null; then pid=$i; break; fi\n"
	"\t\tdone\n"
	"\t\t[[ -z $pid ]] && break\n"
	"\t\tsleep 1\n"
	"\tdone\n"
	"\tfor i in \"${SRT_PIDS[@]}\"; do kill -KILL \"$i\" 2>/dev/null || true; done\n"
	"\texit \"$rc\"\n"
	"}\n"
	"trap srt_cleanup EXIT\n"
	"trap 'exit 143' TERM\n"
	"trap 'exit 130' INT\n"
	"\n"
	"# srt_launch NAME NODE LOG ENVLINE CRITICAL: run SRT_CMD with SRT_ENV (and the\n"
	"# container options SRT_CTR) as a background step on node NODE, output to LOG.\n"
	"srt_launch() {\n"
	"\tlocal name=$1 node=$2 log=$SRT_LOG_DIR/$3\n"
	"\tif [[ $4 == 1 ]]; then\n"
	"\t\t{\n"
	"\t\t\tprintf 'Env:'\n"
	"\t\t\t((${#SRT_ENV[@]} == 0)) || printf ' %q' \"${SRT_ENV[@]}\"\n"
	"\t\t\tprintf '\\n'\n"
	"\t\t} >\"$log\"\n"
	"\telse\n"
	"\t\t: >\"$log\"\n"
	"\tfi\n"
	"\tsrun --overlap --nodes=1 --ntasks=1 --nodelist=\"${SRT_HOSTS[$node]}\" --job-name=\"$name\" \\\n"
	"\t\t\"${SRT_CTR[@]}\" env -- \"${SRT_ENV[@]}\" \"${SRT_CMD[@]}\" </dev/null >>\"$log\" 2>&1 &\n"
	"\tSRT_PIDS+=(\"$!\")\n"
	"\tSRT_NAMES+=(\"$name\")\n"
	"\tSRT_LOGS+=(\"$log\")\n"
	"\tSRT_CRIT+=(\"$5\")\n"
	"\tSRT_DONE+=(0)\n"
	"\tsrt_log \"started $name on ${SRT_HOSTS[$node]} (log: $log)\"\n"
	"}\n"
	"\n"
	"# srt_probe IP KIND PORT STATUS PATH: one readiness attempt (bash /dev/tcp).\n"
	"srt_probe() {\n"
	"\tcase $2 in\n"
	"\ttcp) timeout 5 bash -c 'exec 3<>\"/dev/tcp/$1/$2\"' srt-probe \"$1\" \"$3\" 2>/dev/null ;;\n"
	"\thttp) timeout 5 bash -c 'exec 3<>\"/dev/tcp/$1/$2\" || exit 1\n"
	"printf \"GET %s HTTP/1.0\\r\\nHost: %s\\r\\nConnection: close\\r\\n\\r\\n\" \"$4\" \"$1\" >&3\n"
	"read -r _ code _ <&3 || exit 1\n"
	"[[ $code == \"$3\" ]]' srt-probe \"$1\" \"$3\" \"$4\" \"$5\" 2>/dev/null ;;\n"
	"\t*) return 1 ;;\n"
	"\tesac\n"
	"}\n"
	"\n"
	"# srt_wait_ready IDX IP TIMEOUT INTERVAL PROBE...: block until every probe\n"
	"# (KIND:PORT[:STATUS:PATH]) passes; fail at once if the process exits.\n"
	"srt_wait_ready() {\n"
	"\tlocal idx=$1 ip=$2 timeout=$3 interval=$4 probe kind port status path rc\n"
	"\tlocal deadline=$((SECONDS + timeout))\n"
	"\tshift 4\n"
	"\tfor probe in \"$@\"; do\n"
	"\t\tkind=${probe%%:*} probe=${probe#*:}\n"
	"\t\tport=${probe%%:*} probe=${probe#*:}\n"
	"\t\tstatus=${probe%%:*} path=${probe#*:}\n"
	"\t\tuntil srt_probe \"$ip\" \"$kind\" \"$port\" \"$status\" \"$path\"; do\n"
	"\t\t\tif ! kill -0 \"${SRT_PIDS[$idx]}\" 2>/dev/null; then\n"
	"\t\t\t\trc=0\n"
	"\t\t\t\twait \"${SRT_PIDS[$idx]}\" || rc=$?\n"
	"\t\t\t\tsrt_log \"${SRT_NAMES[$idx]} exited with status $rc before it was ready ($kind port $port on $ip)\"\n"
	"\t\t\t\tsrt_tail \"${SRT_LOGS[$idx]}\"\n"
	"\t\t\t\texit 1\n"
	"\t\t\tfi\n"
	"\t\t\tif ((SECONDS >= deadline)); then\n"
	"\t\t\t\tsrt_log \"${SRT_NAMES[$idx]} was not ready within ${timeout}s ($kind port $port on $ip); check its log, or raise readiness.timeout_seconds if it only needs longer\"\n"
	"\t\t\t\tsrt_tail \"${SRT_LOGS[$idx]}\"\n"
	"\t\t\t\texit 1\n"
	"\t\t\tfi\n"
	"\t\t\tsleep \"$interval\"\n"
	"\t\tdone\n"
	"\tdone\n"
	"\tsrt_log \"${SRT_NAMES[$idx]} is ready\"\n"
	"}\n"
	"\n"
	"# srt_supervise BENCH: return when process BENCH (-1: none) ends, with its\n"
	"# status, or when a critical process exits (status, at least 1).\n"
	"srt_supervise() {\n"
	"\tlocal bench=$1 i rc\n"
	"\twhile :; do\n"
	"\t\tfor i in \"${!SRT_PIDS[@]}\"; do\n"
	"\t\t\t[[ ${SRT_DONE[$i]} == 1 ]] && continue\n"
	"\t\t\tkill -0 \"${SRT_PIDS[$i]}\" 2>/dev/null && continue\n"
	"\t\t\tSRT_DONE[i]=1\n"
	"\t\t\trc=0\n"
	"\t\t\twait \"${SRT_PIDS[$i]}\" || rc=$?\n"
	"\t\t\tif ((i == bench)); then\n"
	"\t\t\t\tsrt_log \"${SRT_NAMES[$i]} finished with status $rc\"\n"
	"\t\t\t\treturn \"$rc\"\n"
	"\t\t\tfi\n"
	"\t\t\tif [[ ${SRT_CRIT[$i]} == 1 ]]; then\n"
	"\t\t\t\tsrt_log \"${SRT_NAMES[$i]} exited with status $rc; stopping the run\"\n"
	"\t\t\t\tsrt_tail \"${SRT_LOGS[$i]}\"\n"
	"\t\t\t\treturn $((rc ? rc : 1))\n"
	"\t\t\tfi\n"
	"\t\t\tsrt_log \"${SRT_NAMES[$i]} exited with status $rc (not critical; the run goes on)\"\n"
	"\t\tdone\n"
	"\t\tsleep 2\n"
	"\tdone\n"
	"}\n";

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

/* ---- value emission ---- */

struct sctx {
	const struct srt_plan *p;
	struct srt_buf *out;
	struct srt_diags *d;
	const char *file;
	int rc;
};

/*
 * One shell word for s.  Without subst, s is quoted literally.  With subst,
 * the layout's placeholders become variable expansions and the bytes
 * between them are quoted literally.
 */
static void emit_value(struct sctx *c, const char *s, bool subst)
{
	const struct srt_layout *l = &c->p->layout;
	struct srt_buf *out = c->out;
	size_t run = 0, start = c->out->len;
	const char *lit = s;

	if (!subst) {
		srt_shell_word(out, s);
		return;
	}
	for (const char *q = s;; q++) {
		struct srt_lref ref;

		if (*q && !srt_layout_ref(l, q, &ref)) {
			run++;
			continue;
		}
		if (run)
			(void)srt_shell_quote(out, lit, run, NULL);
		if (!*q)
			break;
		switch (ref.kind) {
		case SRT_LREF_INFRA_IP:
			srt_buf_puts(out, "\"${SRT_INFRA_IP}\"");
			break;
		case SRT_LREF_LOG_DIR:
			srt_buf_puts(out, "\"${SRT_LOG_DIR}\"");
			break;
		case SRT_LREF_NODE_IP:
			srt_buf_printf(out, "\"${SRT_IPS[%zu]}\"", ref.node);
			break;
		case SRT_LREF_NODE_HOST:
			srt_buf_printf(out, "\"${SRT_HOSTS[%zu]}\"", ref.node);
			break;
		}
		q += ref.len - 1;
		lit = q + 1;
		run = 0;
	}
	if (out->len == start)
		srt_buf_puts(out, "''");
}

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

static void emit_header(struct sctx *c, const char *job)
{
	const struct srt_recipe *r = c->p->recipe;
	const struct srt_cluster *cl = c->p->cluster;
	const char *account = r->slurm.account ? r->slurm.account : cl ? cl->default_account : NULL;
	const char *partition = r->slurm.partition ? r->slurm.partition :
				cl		   ? cl->default_partition :
						     NULL;
	const char *time = r->slurm.time_limit ? r->slurm.time_limit :
			   cl		       ? cl->default_time_limit :
						 NULL;
	char nodes[32];

	srt_buf_puts(c->out, "#!/bin/bash\n");
	sbatch_opt(c, "job-name", job, "name");
	snprintf(nodes, sizeof(nodes), "%zu", c->p->layout.nnodes);
	sbatch_opt(c, "nodes", nodes, "roles");
	if (account)
		sbatch_opt(c, "account", account, "slurm.account");
	if (partition)
		sbatch_opt(c, "partition", partition, "slurm.partition");
	if (time)
		sbatch_opt(c, "time", time, "slurm.time_limit");
	if (r->slurm.exclusive && !srt_env_get(&r->slurm.directives, "exclusive"))
		sbatch_opt(c, "exclusive", "", "slurm.exclusive");
	for (size_t i = 0; i < r->slurm.directives.n; i++) {
		const struct srt_env_var *v = &r->slurm.directives.v[i];

		sbatch_opt(c, v->name, v->value, "slurm.directives");
	}
}

/* SRT_LOG_DIR=...: the caller's directory, or <log_root>/<job>/$SLURM_JOB_ID. */
static void emit_log_dir(struct sctx *c, const struct srt_script_opts *o, const char *job)
{
	const struct srt_cluster *cl = c->p->cluster;
	const char *root = cl && cl->log_root ? cl->log_root : "outputs";
	char *rel;

	srt_buf_puts(c->out, "SRT_LOG_DIR=");
	if (o && o->log_dir) {
		srt_shell_word(c->out, o->log_dir);
	} else {
		rel = srt_xasprintf("%s/%s/", root, job);
		srt_shell_word(c->out, rel);
		srt_buf_puts(c->out, "\"${SLURM_JOB_ID}\"");
		free(rel);
	}
	srt_buf_puts(c->out, "\nmkdir -p -- \"$SRT_LOG_DIR\"\n"
			     "SRT_LOG_DIR=$(cd -- \"$SRT_LOG_DIR\" && pwd -P)\n");
}

static void emit_nodes(struct sctx *c)
{
	const struct srt_layout *l = &c->p->layout;
	const struct srt_cluster *cl = c->p->cluster;

	srt_buf_printf(c->out, "SRT_NNODES=%zu\nSRT_INFRA=%zu\nSRT_IFACE=", l->nnodes, l->infra);
	srt_shell_word(c->out, cl && cl->network_interface ? cl->network_interface : "");
	srt_buf_puts(
		c->out,
		"\n\n"
		"# Node hostnames in allocation order; each node's IP is resolved on the node.\n"
		"mapfile -t SRT_HOSTS < <(scontrol show hostnames \"$SLURM_JOB_NODELIST\")\n"
		"if ((${#SRT_HOSTS[@]} < SRT_NNODES)); then\n"
		"\tsrt_log \"the allocation has ${#SRT_HOSTS[@]} node(s) but the recipe needs "
		"$SRT_NNODES; submit with #SBATCH --nodes=$SRT_NNODES\"\n"
		"\texit 1\n"
		"fi\n"
		"SRT_IPS=()\n"
		"for ((i = 0; i < SRT_NNODES; i++)); do\n"
		"\tSRT_IPS[i]=$(srun --overlap --nodes=1 --ntasks=1 --nodelist=\"${SRT_HOSTS[$i]}\" "
		"--job-name=srtctl-ip \\\n\t\tbash -c ");
	srt_shell_word(c->out, resolve_ip_prog);
	srt_buf_puts(c->out,
		     " srtctl-ip \"$SRT_IFACE\") || SRT_IPS[i]=\n"
		     "\tif [[ -z ${SRT_IPS[$i]} ]]; then\n"
		     "\t\tsrt_log \"could not resolve the IP of node ${SRT_HOSTS[$i]} (network "
		     "interface '${SRT_IFACE:-first address of hostname -I}'); set "
		     "runtime.network_interface in srtslurm.yaml to an interface every node has\"\n"
		     "\t\texit 1\n"
		     "\tfi\n"
		     "\tsrt_log \"node $i: ${SRT_HOSTS[$i]} ${SRT_IPS[$i]}\"\n"
		     "done\n"
		     "SRT_INFRA_IP=${SRT_IPS[$SRT_INFRA]}\n"
		     "srt_log \"infra node: ${SRT_HOSTS[$SRT_INFRA]} ($SRT_INFRA_IP)\"\n");
	if (c->p->master && !c->p->master_external)
		srt_buf_printf(
			c->out,
			"srt_log \"mooncake master metrics: http://$SRT_INFRA_IP:%d/metrics\"\n",
			SRT_MC_ADMIN_PORT);
}

/* Write the vLLM store_config JSON with master_server_address filled in. */
static void emit_store_config(struct sctx *c)
{
	const struct srt_plan *p = c->p;
	json_t *rest;
	char *text, *tail;

	if (!p->store_config)
		return;
	srt_buf_puts(c->out, "\n# vLLM MooncakeStoreConnector config (MOONCAKE_CONFIG_PATH).\n"
			     "mkdir -p -- \"$SRT_LOG_DIR/mooncake\"\nprintf '%s\\n' ");
	if (p->master_external) {
		text = json_dumps(p->store_config, JSON_COMPACT);
		srt_shell_word(c->out, text ? text : "{}");
		free(text);
	} else {
		/*
		 * master_server_address is the first key (render.c): write it from
		 * the infra IP known at run time, then the rest of the object.
		 */
		rest = json_deep_copy(p->store_config);
		json_object_del(rest, "master_server_address");
		text = json_dumps(rest, JSON_COMPACT);
		tail = text && strcmp(text, "{}") ?
			       srt_xasprintf(":%d\",%s", SRT_MC_RPC_PORT, text + 1) :
			       srt_xasprintf(":%d\"}", SRT_MC_RPC_PORT);
		srt_shell_word(c->out, "{\"master_server_address\":\"");
		srt_buf_puts(c->out, "\"${SRT_INFRA_IP}\"");
		srt_shell_word(c->out, tail);
		free(tail);
		free(text);
		json_decref(rest);
	}
	srt_buf_puts(c->out, " >\"$SRT_LOG_DIR/" SRT_STORE_CONFIG_FILE "\"\n");
}

static void emit_array(struct sctx *c, const char *var, const struct srt_argv *av)
{
	srt_buf_printf(c->out, "%s=(", var);
	for (size_t i = 0; i < av->n; i++) {
		srt_buf_puts(c->out, "\n\t");
		emit_value(c, av->v[i], false);
	}
	srt_buf_puts(c->out, av->n ? "\n)\n" : ")\n");
}

static void emit_env(struct sctx *c, const struct srt_proc *pr)
{
	srt_buf_puts(c->out, "SRT_ENV=(");
	for (size_t i = 0; i < pr->env.n; i++) {
		const struct srt_renv_var *v = &pr->env.v[i];

		if (!srt_shell_env_name_ok(v->name)) {
			srt_diags_add(
				c->d, SRT_DIAG_ERROR, c->file, 0, 0, v->layer,
				"'%s' is not a valid environment variable name (letters, digits "
				"and '_', not starting with a digit); rename it",
				v->name);
			c->rc = -1;
			continue;
		}
		srt_buf_printf(c->out, "\n\t%s=", v->name);
		emit_value(c, v->value, v->runtime);
	}
	srt_buf_puts(c->out, pr->env.n ? "\n)\n" : ")\n");
}

static void emit_container(struct sctx *c, const struct srt_proc *pr)
{
	const struct srt_cluster *cl = c->p->cluster;
	char *img;

	if (!cl || cl->container_runtime != SRT_CRT_PYXIS || !pr->container) {
		srt_buf_puts(c->out, "SRT_CTR=()\n");
		return;
	}
	img = srt_xasprintf("--container-image=%s", pr->container);
	srt_buf_puts(c->out, "SRT_CTR=(");
	srt_shell_word(c->out, img);
	srt_buf_puts(c->out, " \"--container-mounts=${SRT_LOG_DIR}:" SRT_CONTAINER_LOG_DIR "\")\n");
	free(img);
}

static const char *describe(const struct srt_proc *pr, char *buf, size_t n)
{
	switch (pr->kind) {
	case SRT_PROC_SERVICE:
		snprintf(buf, n, "service (%s)", srt_service_type_name(pr->service->type));
		break;
	case SRT_PROC_WORKER:
		snprintf(buf, n, "%s worker %d", srt_role_name(pr->role), pr->index);
		break;
	default:
		snprintf(buf, n, "%s", srt_proc_kind_name(pr->kind));
		break;
	}
	return buf;
}

static void emit_launch(struct sctx *c, size_t idx)
{
	const struct srt_proc *pr = &c->p->procs[idx];
	char what[96];

	srt_buf_printf(c->out, "\n# [%zu] %s ", idx, describe(pr, what, sizeof(what)));
	comment_text(c->out, pr->name);
	srt_buf_printf(c->out, " on node %zu\n", pr->node);
	emit_env(c, pr);
	emit_array(c, "SRT_CMD", &pr->argv);
	emit_container(c, pr);
	srt_buf_puts(c->out, "srt_launch ");
	emit_value(c, pr->name, true);
	srt_buf_printf(c->out, " %zu ", pr->node);
	emit_value(c, pr->log_file, true);
	srt_buf_printf(c->out, " %d %d\n", pr->kind == SRT_PROC_WORKER ? 1 : 0,
		       pr->critical ? 1 : 0);
}

static void emit_gate(struct sctx *c, size_t idx)
{
	const struct srt_proc *pr = &c->p->procs[idx];
	const struct srt_readiness *rd = &pr->readiness;

	srt_buf_printf(c->out, "srt_wait_ready %zu \"${SRT_IPS[%zu]}\" %d %d", idx, pr->node,
		       rd->timeout_seconds, rd->interval_seconds);
	for (size_t i = 0; i < rd->nprobes; i++) {
		const struct srt_probe *pb = &rd->probes[i];
		char *word;

		if (pb->kind == SRT_PROBE_HTTP)
			word = srt_xasprintf("http:%d:%d:%s", pb->port,
					     pb->status ? pb->status : 200,
					     pb->path ? pb->path : "/health");
		else
			word = srt_xasprintf("tcp:%d", pb->port);
		srt_buf_putc(c->out, ' ');
		srt_shell_word(c->out, word);
		free(word);
	}
	srt_buf_putc(c->out, '\n');
}

static bool gate_now(const struct srt_plan *p, size_t i)
{
	const struct srt_proc *pr = &p->procs[i],
			      *next = i + 1 < p->nprocs ? &p->procs[i + 1] : NULL;

	switch (pr->kind) {
	case SRT_PROC_SERVICE:
		/* with_workers services are gated once the workers are launched. */
		if (pr->phase == SRT_START_WITH_WORKERS)
			return false;
		return !next || next->service != pr->service;
	case SRT_PROC_WORKER:
		return !next || next->kind != SRT_PROC_WORKER;
	case SRT_PROC_FRONTEND:
	case SRT_PROC_BENCHMARK:
		return true;
	}
	return true;
}

char *srt_script_render(const struct srt_plan *p, const struct srt_script_opts *o,
			struct srt_diags *d)
{
	struct srt_buf out;
	struct sctx c = { p, &out, d, p->recipe->file, 0 };
	const char *job = o && o->job_name ? o->job_name : p->recipe->name;
	size_t *pending = NULL, npending = 0;
	long bench = -1;

	srt_buf_init(&out);
	if (!job || !*job)
		job = "srtctl";
	emit_header(&c, job);
	srt_buf_printf(&out, "#\n# Generated by srtctl %s from recipe '", SRT_VERSION);
	comment_text(&out, p->recipe->name ? p->recipe->name : "");
	srt_buf_puts(&out,
		     "'. Edit the recipe, not this file.\n"
		     "set -euo pipefail\n\n"
		     ": \"${SLURM_JOB_ID:?srtctl: run this script with sbatch (SLURM_JOB_ID is "
		     "not set)}\"\n"
		     ": \"${SLURM_JOB_NODELIST:?srtctl: run this script with sbatch "
		     "(SLURM_JOB_NODELIST is not set)}\"\n");
	emit_log_dir(&c, o, job);
	srt_buf_puts(&out, "\n");
	srt_buf_puts(&out, launcher_lib);
	srt_buf_puts(&out, "\n");
	emit_nodes(&c);
	emit_store_config(&c);

	pending = srt_xcalloc(p->nprocs + 1, sizeof(*pending));
	for (size_t i = 0; i < p->nprocs; i++) {
		if (p->procs[i].kind == SRT_PROC_BENCHMARK) {
			/* Everything else is up before the benchmark starts. */
			for (size_t k = 0; k < npending; k++)
				emit_gate(&c, pending[k]);
			npending = 0;
			bench = (long)i;
		}
		emit_launch(&c, i);
		if (p->procs[i].readiness.nprobes)
			pending[npending++] = i;
		if (gate_now(p, i)) {
			for (size_t k = 0; k < npending; k++)
				emit_gate(&c, pending[k]);
			npending = 0;
		}
	}
	for (size_t k = 0; k < npending; k++)
		emit_gate(&c, pending[k]);
	free(pending);
	srt_buf_printf(&out,
		       "\n# Run until %s.\n"
		       "SRT_RC=0\n"
		       "srt_supervise %ld || SRT_RC=$?\n"
		       "exit \"$SRT_RC\"\n",
		       bench >= 0 ? "the benchmark ends (or a critical process exits)" :
				    "a critical process exits, scancel, or the time limit",
		       bench);
	if (c.rc < 0) {
		srt_buf_release(&out);
		return NULL;
	}
	return srt_buf_detach(&out);
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
	if (o->comment)
		sbatch_opt(&c, "comment", o->comment, "comment");
	if (o->output)
		sbatch_opt(&c, "output", o->output, "output");
	srt_buf_printf(&out, "#\n# Generated by srtctl %s from recipe '", SRT_VERSION);
	comment_text(&out, p->recipe->name ? p->recipe->name : "");
	srt_buf_puts(&out,
		     "' for the controller: the agent realises <run dir>/plan.json.\n"
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
