/*
 * recipe/validate.c: rules that need the whole recipe.
 *
 * Every rule of the Mooncake spec lives here, with its exact words where the
 * spec gives them, plus the checks srtctl adds (listed, with examples, in
 * docs/recipe-reference.md "Validation rules").  Rules only read the model:
 * they add diagnostics and never change the recipe.
 */
#include "recipe/cluster.h"
#include "recipe/launch.h"
#include "recipe/mcclient.h"
#include "recipe/model.h"
#include "runplan/plan.h"
#include "runplan/runplan.h"
#include "util/buf.h"
#include "util/strmap.h"
#include "util/strutil.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The seed spec's text, verbatim. */
static const char sglang_backend_msg[] =
	"ValidationError: a mooncake-master service is configured but neither roles.prefill.args\n"
	"nor roles.decode.args has 'disaggregation-transfer-backend: mooncake'.\n"
	"Add it to both roles (and 'disaggregation-ib-device') so workers actually\n"
	"use the mooncake master srtslurm launches for you.";

struct vctx {
	const struct srt_recipe *r;
	const struct srt_cluster *cl;
	struct srt_diags *d;
	struct srt_arena *a;
};

static void verr(struct vctx *v, const struct srt_ynode *n, const char *path, const char *fmt,
		 ...) __attribute__((format(printf, 4, 5)));
static void vwarn(struct vctx *v, const struct srt_ynode *n, const char *path, const char *fmt,
		  ...) __attribute__((format(printf, 4, 5)));

static void verr(struct vctx *v, const struct srt_ynode *n, const char *path, const char *fmt,
		 ...)
{
	va_list ap;

	va_start(ap, fmt);
	srt_diags_vadd(v->d, SRT_DIAG_ERROR, v->r->file, n ? n->line : 0, n ? n->col : 0, path,
		       fmt, ap);
	va_end(ap);
}

static void vwarn(struct vctx *v, const struct srt_ynode *n, const char *path, const char *fmt,
		  ...)
{
	va_list ap;

	va_start(ap, fmt);
	srt_diags_vadd(v->d, SRT_DIAG_WARNING, v->r->file, n ? n->line : 0, n ? n->col : 0,
		       path, fmt, ap);
	va_end(ap);
}

static const char *spath(struct vctx *v, const struct srt_service *s, const char *sub)
{
	size_t i = (size_t)(s - v->r->services);

	return sub ? srt_arena_printf(v->a, "services[%zu].%s", i, sub) :
		     srt_arena_printf(v->a, "services[%zu]", i);
}

/* An args entry looked up in dash or underscore spelling. */
static const struct srt_ypair *arg_pair(const struct srt_role *role, const char *dashed)
{
	if (!role->present || !role->args)
		return NULL;
	for (size_t i = 0; i < role->args->n; i++)
		if (srt_str_eq_dashes(role->args->pairs[i].key->str, dashed))
			return &role->args->pairs[i];
	return NULL;
}

static bool role_uses_mooncake_backend(const struct srt_role *role)
{
	const struct srt_ypair *p = arg_pair(role, "disaggregation-transfer-backend");
	const char *s = p ? srt_ynode_str(p->value) : NULL;

	return s && !strcmp(s, "mooncake");
}

/* Show where a JSON text broke: the text with a caret under the position. */
static char *json_excerpt(const char *text, int position)
{
	size_t len = strlen(text), pos = position < 0 ? 0 : (size_t)position;
	size_t from, to;
	char *out;
	size_t o = 0;

	if (pos > len)
		pos = len;
	from = pos > 40 ? pos - 40 : 0;
	to = pos + 40 < len ? pos + 40 : len;
	out = malloc((to - from) * 2 + 16);
	if (!out)
		return NULL;
	out[o++] = '\n';
	out[o++] = ' ';
	out[o++] = ' ';
	for (size_t i = from; i < to; i++)
		out[o++] = text[i] == '\n' ? ' ' : text[i];
	out[o++] = '\n';
	out[o++] = ' ';
	out[o++] = ' ';
	for (size_t i = from; i < pos; i++)
		out[o++] = ' ';
	out[o++] = '^';
	out[o] = '\0';
	return out;
}

static bool connector_is_mooncake_store(json_t *obj)
{
	const char *name = json_string_value(json_object_get(obj, "kv_connector"));

	return name && !strcmp(name, "MooncakeStoreConnector");
}

/*
 * Does this role's kv-transfer-config name MooncakeStoreConnector (alone or
 * inside MultiConnector)?  Malformed JSON is reported here.
 */
static bool role_uses_mooncake_connector(struct vctx *v, const struct srt_role *role)
{
	const struct srt_ypair *p = arg_pair(role, "kv-transfer-config");
	const char *path;
	json_t *cfg = NULL, *conns;
	json_error_t jerr;
	bool found = false;

	if (!p)
		return false;
	path = srt_arena_printf(v->a, "roles.%s.args.%s", role->name, p->key->str);
	if (p->value->kind == SRT_Y_MAP) {
		cfg = srt_ynode_to_json(p->value);
	} else if (p->value->kind == SRT_Y_SCALAR && srt_ynode_str(p->value)) {
		cfg = json_loads(p->value->str, JSON_REJECT_DUPLICATES, &jerr);
		if (!cfg) {
			char *ex = json_excerpt(p->value->str, jerr.position);

			verr(v, p->value, path,
			     "is not valid JSON: %s at character %d (line %d, column %d):%s\n"
			     "Write it as a single-quoted YAML string holding JSON, or as a YAML "
			     "mapping.",
			     jerr.text, jerr.position, jerr.line, jerr.column, ex ? ex : "");
			free(ex);
			return true; /* reported; do not also claim it is missing */
		}
	} else {
		verr(v, p->value, path, "must be a JSON string or a mapping, not %s",
		     srt_ynode_describe(p->value));
		return true;
	}
	if (!json_is_object(cfg)) {
		verr(v, p->value, path, "must be a JSON object ({\"kv_connector\": ...})");
		json_decref(cfg);
		return true;
	}
	if (connector_is_mooncake_store(cfg))
		found = true;
	conns = json_object_get(json_object_get(cfg, "kv_connector_extra_config"), "connectors");
	if (json_is_array(conns)) {
		size_t i;
		json_t *c;

		json_array_foreach(conns, i, c)
			if (json_is_object(c) && connector_is_mooncake_store(c))
				found = true;
	}
	json_decref(cfg);
	return found;
}

/* vLLM's size parser accepts an int or <number>[gb|mb|kb|b], case-insensitive. */
static bool vllm_size_ok(const struct srt_ynode *n)
{
	const char *s;
	size_t i = 0, digits = 0;
	char unit[8];
	size_t u = 0;

	if (srt_ynode_type(n) == SRT_YT_INT)
		return true;
	s = srt_ynode_str(n);
	if (!s || n->kind != SRT_Y_SCALAR)
		return false;
	while (s[i] == ' ')
		i++;
	while ((s[i] >= '0' && s[i] <= '9') || s[i] == '.') {
		i++;
		digits++;
	}
	if (!digits)
		return false;
	while (s[i] == ' ')
		i++;
	while (s[i] && s[i] != ' ' && u < sizeof(unit) - 1) {
		char ch = s[i++];

		unit[u++] = (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
	}
	unit[u] = '\0';
	while (s[i] == ' ')
		i++;
	if (s[i])
		return false;
	return !u || !strcmp(unit, "gb") || !strcmp(unit, "mb") || !strcmp(unit, "kb") ||
	       !strcmp(unit, "b");
}

/* SGLang's MOONCAKE_GLOBAL_SEGMENT_SIZE parser: an integer, or "<int>gb". */
static bool sglang_segment_ok(const char *s)
{
	size_t i = 0;

	while (s[i] >= '0' && s[i] <= '9')
		i++;
	if (!i)
		return false;
	if (!s[i])
		return true;
	return (s[i] == 'g' || s[i] == 'G') && (s[i + 1] == 'b' || s[i + 1] == 'B') && !s[i + 2];
}

static bool is_port_flag(const char *arg, const char **which)
{
	static const char *const flags[] = { "rpc_port", "port", "http_metadata_server_port",
					     "metrics_port", NULL };
	const char *name = arg;
	size_t len;

	if (name[0] != '-')
		return false;
	while (*name == '-')
		name++;
	len = strcspn(name, "=");
	for (size_t i = 0; flags[i]; i++) {
		if (strlen(flags[i]) == len) {
			char buf[64];

			memcpy(buf, name, len);
			buf[len] = '\0';
			if (srt_str_eq_dashes(buf, flags[i])) {
				*which = flags[i];
				return true;
			}
		}
	}
	return false;
}

/* The port srtctl gives the master flag `which` (a name from is_port_flag). */
static int master_port_of(const char *which)
{
	if (!strcmp(which, "http_metadata_server_port"))
		return SRT_MC_METADATA_PORT;
	if (!strcmp(which, "metrics_port"))
		return SRT_MC_ADMIN_PORT;
	return SRT_MC_RPC_PORT; /* rpc_port, and port, its deprecated alias */
}

/*
 * A port as a command word writes it: a number, or the template that names
 * one of srtctl's; -1 for anything else (a shell variable, another
 * template), which only the running master can tell.
 */
static long command_port(const char *s)
{
	long n = 0;

	if (!strcmp(s, "{master_port}"))
		return SRT_MC_RPC_PORT;
	if (!strcmp(s, "{metadata_port}"))
		return SRT_MC_METADATA_PORT;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || n > 65535)
			return -1;
		n = n * 10 + (*s - '0');
	}
	return n;
}

/* gflags' true for a boolean flag's value. */
static bool gflag_true(const char *s)
{
	return !strcmp(s, "true") || !strcmp(s, "1") || !strcmp(s, "yes") || !strcmp(s, "t") ||
	       !strcmp(s, "y");
}

/*
 * A master's own `command` (srt-slurm's override) writes its flags itself,
 * but srtctl still probes 8700/8701/8702 (a TRT-LLM pool: 8700 and the
 * address file) and points the workers there.  A port written as another
 * number is an error; when the command is mooncake_master itself, a port it
 * leaves at the binary's default (RPC 50051, metadata server off or on 8080,
 * admin 9003) is one too, as the master would never be seen Ready.
 */
static void check_master_command(struct vctx *v, const struct srt_service *m)
{
	const struct srt_ynode *cn = srt_ynode_get(m->node, "command");
	const char *argv0 = m->command.v[0];
	const char *base = strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;
	bool pool = srt_recipe_trtllm_pool(v->r);
	bool seen[3] = { false, false, false }; /* rpc, metadata, admin */
	bool meta_on = false, config_file = false;

	for (size_t i = 0; i < m->command.n; i++) {
		const char *a = m->command.v[i];
		const char *which = NULL;
		const char *eq = strchr(a, '=');
		const struct srt_ynode *item = cn && i < cn->n ? cn->items[i] : cn;
		const char *ap = srt_arena_printf(v->a, "%s[%zu]", spath(v, m, "command"), i);

		if (srt_str_has_prefix(a, "--config_path") || srt_str_has_prefix(a, "-config_path"))
			config_file = true;
		if (!strcmp(a, "--enable_http_metadata_server") ||
		    !strcmp(a, "-enable_http_metadata_server"))
			meta_on = true;
		else if (srt_str_has_prefix(a, "--enable_http_metadata_server=") ||
			 srt_str_has_prefix(a, "-enable_http_metadata_server="))
			meta_on = gflag_true(eq + 1);
		if (!is_port_flag(a, &which))
			continue;
		const char *val = eq ? eq + 1 : i + 1 < m->command.n ? m->command.v[i + 1] : "";
		long got = command_port(val);
		int want = master_port_of(which);

		seen[want == SRT_MC_RPC_PORT ? 0 : want == SRT_MC_METADATA_PORT ? 1 : 2] = true;
		if (pool && want != SRT_MC_RPC_PORT)
			continue; /* TRT-LLM's pool is probed on its RPC port alone */
		if (got >= 0 && got != want)
			verr(v, item, ap,
			     "'%s%s%s' puts the master's %s on %ld, but %s %d; write %s=%d%s", a,
			     eq ? "" : " ", eq ? "" : val, which, got,
			     want == SRT_MC_RPC_PORT ? "srtctl's readiness check and the workers' "
						       "MOONCAKE_MASTER use" :
			     want == SRT_MC_METADATA_PORT ?
						       "srtctl's readiness check and the workers' "
						       "MOONCAKE_TE_META_DATA_SERVER use" :
						       "srtctl's readiness check (/health) uses",
			     want,
			     srt_arena_printf(v->a, "%.*s",
					      (int)(eq ? (size_t)(eq - a) : strlen(a)), a),
			     want,
			     want == SRT_MC_RPC_PORT	  ? " (or {master_port})" :
			     want == SRT_MC_METADATA_PORT ? " (or {metadata_port})" :
							    "");
	}
	if (strcmp(base, "mooncake_master") || config_file)
		return; /* a wrapper or a config file: its flags are not all here */
	if (!seen[0])
		verr(v, cn, spath(v, m, "command"),
		     "this mooncake_master command sets no --rpc_port, so the master listens on "
		     "its default 50051, but srtctl's readiness checks and the workers use %d; add "
		     "--rpc_port={master_port}",
		     SRT_MC_RPC_PORT);
	if (pool)
		return; /* TRT-LLM's pool: ready on the RPC port and the address file */
	if (!meta_on || !seen[1])
		verr(v, cn, spath(v, m, "command"),
		     "this mooncake_master command %s, but the workers' "
		     "MOONCAKE_TE_META_DATA_SERVER and srtctl's readiness check use it on %d; add "
		     "--enable_http_metadata_server=true --http_metadata_server_port={metadata_port}",
		     !meta_on ? "leaves the HTTP metadata server off (its default)" :
				"runs the HTTP metadata server on its default port 8080",
		     SRT_MC_METADATA_PORT);
	if (!seen[2])
		verr(v, cn, spath(v, m, "command"),
		     "this mooncake_master command sets no --metrics_port, so its admin server "
		     "(/health) listens on its default 9003, but srtctl's readiness check uses %d; "
		     "add --metrics_port=%d",
		     SRT_MC_ADMIN_PORT, SRT_MC_ADMIN_PORT);
}

/*
 * A Go flag word (etcd and nats-server parse theirs with Go's flag package):
 * "-name" or "--name", with "=value" or the value as the next word.  The
 * name (arena copy) and its value ("" when there is none), or NULL.
 */
static const char *go_flag(struct vctx *v, const struct srt_argv *w, size_t i, const char **val)
{
	const char *a = w->v[i];
	const char *eq;
	size_t len;

	if (a[0] != '-' || !a[1])
		return NULL;
	a += a[1] == '-' ? 2 : 1;
	eq = strchr(a, '=');
	len = eq ? (size_t)(eq - a) : strlen(a);
	*val = eq ? eq + 1 : i + 1 < w->n ? w->v[i + 1] : "";
	return srt_arena_printf(v->a, "%.*s", (int)len, a);
}

/* A host that only the node itself reaches. */
static bool loopback_host(const char *h, size_t n)
{
	return (n == 9 && !strncmp(h, "localhost", 9)) || (n >= 4 && !strncmp(h, "127.", 4)) ||
	       (n == 5 && !strncmp(h, "[::1]", 5)) || (n == 3 && !strncmp(h, "::1", 3));
}

/*
 * etcd's --listen-client-urls value (a comma list of scheme://host:port):
 * whether some URL is on `port` (or on a port only the running etcd can
 * tell: a template, a variable), and whether one of those is not loopback.
 */
static void client_urls(struct vctx *v, const char *list, int port, bool *on_port, bool *reachable)
{
	*on_port = *reachable = false;
	for (const char *u = list; *u;) {
		size_t len = strcspn(u, ",");
		char *url = srt_arena_printf(v->a, "%.*s", (int)len, u);
		char *host = strstr(url, "://") ? strstr(url, "://") + 3 : url;
		char *colon, *rb;

		u += len + (u[len] == ',');
		host[strcspn(host, "/")] = '\0';
		if (!*host)
			continue;
		colon = strrchr(host, ':');
		rb = strchr(host, ']');
		if (colon && host[0] == '[' && (!rb || colon < rb))
			colon = NULL; /* "[::]" alone: an IPv6 host, no port */
		if (colon)
			*colon++ = '\0';
		if (colon && command_port(colon) >= 0 && command_port(colon) != port)
			continue;
		*on_port = true;
		*reachable |= !loopback_host(host, strlen(host));
	}
}

/*
 * Dynamo's etcd and NATS, from the recipe's own words (its `command`, its
 * `args` after srtctl's flags, which Go's flag package lets override them):
 * srtctl probes etcd's client port 2379 and NATS's 4222 at the node's IP and
 * gives every process ETCD_ENDPOINTS / NATS_SERVER there, so a listener moved
 * off that port, or onto loopback, would never be seen Ready.  When the
 * command is the binary itself (no wrapper, no config file), its defaults
 * count too: etcd listens for clients on localhost:2379 only.
 */
static void check_plane_words(struct vctx *v, const struct srt_service *s)
{
	bool etcd = s->type == SRT_SVC_ETCD;
	int port = etcd ? SRT_DYN_ETCD_PORT : SRT_DYN_NATS_PORT;
	const struct srt_argv *lists[2] = { &s->command, &s->args };
	const char *keys[2] = { "command", "args" };
	bool listen = false, config = false, js = false;
	const struct srt_ynode *cn;
	const char *base;

	for (size_t l = 0; l < 2; l++) {
		const struct srt_ynode *ln = srt_ynode_get(s->node, keys[l]);

		for (size_t i = 0; i < lists[l]->n; i++) {
			const char *val = NULL;
			const char *name = go_flag(v, lists[l], i, &val);
			const char *a = lists[l]->v[i];
			const struct srt_ynode *item = ln && i < ln->n ? ln->items[i] : ln;
			const char *ap, *shown;
			bool on_port, reachable;

			if (!name)
				continue;
			ap = srt_arena_printf(v->a, "%s[%zu]", spath(v, s, keys[l]), i);
			shown = strchr(a, '=') || !*val ? a :
							  srt_arena_printf(v->a, "%s %s", a, val);
			if (!strcmp(name, "config") || !strcmp(name, "config-file") ||
			    (!etcd && !strcmp(name, "c")))
				config = true;
			if (!etcd && (!strcmp(name, "js") || !strcmp(name, "jetstream")))
				js = true;
			if (etcd && !strcmp(name, "listen-client-urls")) {
				listen = true;
				client_urls(v, val, port, &on_port, &reachable);
				if (*val && !on_port)
					verr(v, item, ap,
					     "'%s' moves etcd's client listener off port %d, where "
					     "srtctl's readiness check and every process's "
					     "ETCD_ENDPOINTS reach it; listen on http://0.0.0.0:%d",
					     shown, port, port);
				else if (*val && !reachable)
					verr(v, item, ap,
					     "'%s' has etcd listen for clients on loopback only, but "
					     "srtctl's readiness check and the processes on other "
					     "nodes reach it at the node's IP; listen on "
					     "http://0.0.0.0:%d",
					     shown, port);
			} else if (!etcd && (!strcmp(name, "p") || !strcmp(name, "port"))) {
				long got = command_port(val);

				if (got >= 0 && got != port)
					verr(v, item, ap,
					     "'%s' puts NATS on port %ld, but srtctl's readiness check "
					     "and every process's NATS_SERVER use %d; write -p %d, or "
					     "remove it (%d is nats-server's default)",
					     shown, got, port, port, port);
			} else if (!etcd && (!strcmp(name, "a") || !strcmp(name, "addr") ||
					     !strcmp(name, "net"))) {
				if (loopback_host(val, strlen(val)))
					verr(v, item, ap,
					     "'%s' has NATS listen on loopback only, but srtctl's "
					     "readiness check and the processes on other nodes reach it "
					     "at the node's IP; remove it (nats-server listens on every "
					     "address by default)",
					     shown);
			}
		}
	}
	if (!s->command.n || config)
		return; /* srtctl's own flags, or a config file that may set the rest */
	base = strrchr(s->command.v[0], '/') ? strrchr(s->command.v[0], '/') + 1 : s->command.v[0];
	cn = srt_ynode_get(s->node, "command");
	if (etcd && !strcmp(base, "etcd") && !listen)
		verr(v, cn, spath(v, s, "command"),
		     "this etcd command sets no --listen-client-urls, so etcd listens for clients "
		     "on localhost:%d only (its default), but srtctl's readiness check and the "
		     "processes on other nodes reach it at the node's IP; add --listen-client-urls "
		     "http://0.0.0.0:%d --advertise-client-urls http://{node_ip}:%d",
		     port, port, port);
	if (!etcd && !strcmp(base, "nats-server") && !js)
		vwarn(v, cn, spath(v, s, "command"),
		      "this nats-server command does not enable JetStream, which Dynamo's NATS "
		      "planes use (srtctl's own command passes -js); add -js");
}

static void check_master(struct vctx *v, const struct srt_service *m)
{
	const struct srt_recipe *r = v->r;
	const struct srt_role *pre = &r->roles[SRT_ROLE_PREFILL];
	const struct srt_role *dec = &r->roles[SRT_ROLE_DECODE];

	/* Args that would move the ports srtctl points everyone at. */
	for (size_t i = 0; i < m->args.n; i++) {
		const char *which = NULL;
		const char *a = m->args.v[i];
		const struct srt_ynode *an = srt_ynode_get(m->node, "args");
		const struct srt_ynode *item = an && i < an->n ? an->items[i] : an;
		const char *ap = srt_arena_printf(v->a, "%s[%zu]", spath(v, m, "args"), i);

		if (is_port_flag(a, &which)) {
			verr(v, item, ap,
			     "'%s' sets the master's %s, but srtctl owns the mooncake master's ports "
			     "(RPC %d, HTTP metadata %d, admin/metrics %d): it points every worker "
			     "and its readiness checks at them. Remove this argument.",
			     a, which, SRT_MC_RPC_PORT, SRT_MC_METADATA_PORT, SRT_MC_ADMIN_PORT);
		} else if (srt_str_has_prefix(a, "--enable_http_metadata_server") ||
			   srt_str_has_prefix(a, "--enable-http-metadata-server")) {
			verr(v, item, ap,
			     "'%s': srtctl always enables the master's HTTP metadata server on port "
			     "%d (workers get MOONCAKE_TE_META_DATA_SERVER pointing at it). Remove "
			     "this argument.",
			     a, SRT_MC_METADATA_PORT);
		} else if (a[0] == '-' && !strchr(a, '=') && i + 1 < m->args.n &&
			   (!strcmp(m->args.v[i + 1], "true") || !strcmp(m->args.v[i + 1], "false"))) {
			vwarn(v, item, ap,
			      "'%s %s': mooncake_master parses flags with gflags, where a boolean "
			      "flag followed by a separate 'true'/'false' is read as the flag alone "
			      "plus a stray argument; write '%s=%s'",
			      a, m->args.v[i + 1], a, m->args.v[i + 1]);
		}
	}

	if (m->command.n && !m->external)
		check_master_command(v, m);

	if (m->placement != SRT_PLACE_INFRA && m->placement != SRT_PLACE_DEDICATED &&
	    m->placement != SRT_PLACE_HEAD)
		verr(v, srt_ynode_get(srt_ynode_get(m->node, "placement"), "node"),
		     spath(v, m, "placement.node"),
		     "the mooncake master runs once, on the infra node: placement.node must be "
		     "infra (the default) or dedicated, not %s",
		     srt_placement_name(m->placement));
	/*
	 * TRT-LLM's pool commands wait for the master themselves (they read its
	 * address file for up to master_timeout_s), so it may start with them.
	 */
	if (m->start != SRT_START_BEFORE_WORKERS &&
	    !(m->start == SRT_START_WITH_WORKERS && srt_recipe_trtllm_pool(r)))
		verr(v, srt_ynode_get(m->node, "start"), spath(v, m, "start"),
		     "the mooncake master must start before_workers: workers connect to it at "
		     "startup");
	/*
	 * A `command` replaces srtctl's (srt-slurm's override): the recipe owns the
	 * flags then, and the probes still wait on srtctl's ports (its own
	 * {master_port} template names the RPC one).
	 */
	if (m->external && (m->command.n || m->args.n || m->container || m->env.n))
		vwarn(v, srt_ynode_get(m->node, "external"), spath(v, m, "external"),
		      "an external master is not launched by srtctl: its command, args, "
		      "container and env are ignored");

	/* The engine-side wiring the spec requires. */
	if (r->engine == SRT_ENGINE_SGLANG && (pre->present || dec->present)) {
		bool p_ok = role_uses_mooncake_backend(pre);
		bool d_ok = role_uses_mooncake_backend(dec);

		if (!p_ok && !d_ok)
			verr(v, m->node, spath(v, m, NULL), "%s", sglang_backend_msg);
		else if (pre->present && dec->present && p_ok != d_ok)
			vwarn(v, (p_ok ? dec : pre)->args ? (p_ok ? dec : pre)->args : (p_ok ? dec : pre)->node,
			      srt_arena_printf(v->a, "roles.%s.args", (p_ok ? dec : pre)->name),
			      "has no 'disaggregation-transfer-backend: mooncake' while roles.%s "
			      "has it; prefill and decode must use the same transfer backend. Add it "
			      "here too.",
			      (p_ok ? pre : dec)->name);
	}
	if (r->engine == SRT_ENGINE_VLLM) {
		bool found = false, uses[SRT_ROLE_COUNT] = { false, false, false };

		for (int k = 0; k < SRT_ROLE_COUNT; k++)
			if (r->roles[k].present && role_uses_mooncake_connector(v, &r->roles[k]))
				found = uses[k] = true;
		if (pre->present && dec->present &&
		    uses[SRT_ROLE_PREFILL] != uses[SRT_ROLE_DECODE]) {
			const struct srt_role *lacks = uses[SRT_ROLE_PREFILL] ? dec : pre;
			const struct srt_role *has = uses[SRT_ROLE_PREFILL] ? pre : dec;

			vwarn(v, lacks->args ? lacks->args : lacks->node,
			      srt_arena_printf(v->a, "roles.%s.args", lacks->name),
			      "has no 'kv-transfer-config' that uses MooncakeStoreConnector while "
			      "roles.%s has it; prefill and decode must run the same connector stack. "
			      "Add it here too.",
			      has->name);
		}
		if (!found && !pre->present && !dec->present) {
			/* srt-slurm checks only disaggregated recipes; an aggregated
			 * one runs, but nothing in it uses the master. */
			const struct srt_role *agg = &r->roles[SRT_ROLE_AGG];

			vwarn(v, agg->args ? agg->args : m->node,
			      agg->args ? "roles.agg.args" : spath(v, m, NULL),
			      "a mooncake-master service is configured but roles.agg.args has no "
			      "'kv-transfer-config' that uses MooncakeStoreConnector: the master runs "
			      "and vLLM does not use it. Add the connector (standalone, or inside "
			      "MultiConnector's connectors list), or remove the service.");
		} else if (!found)
			verr(v, m->node, spath(v, m, NULL),
			     "ValidationError: a mooncake-master service is configured but no role's "
			     "args has a 'kv-transfer-config' that uses MooncakeStoreConnector\n"
			     "(standalone, or inside MultiConnector's connectors list). Add it to "
			     "roles.prefill.args and roles.decode.args so vLLM\n"
			     "actually uses the mooncake master srtctl launches for you.");
		if (!m->store_config && !m->external)
			verr(v, m->options ? m->options : m->node, spath(v, m, "options.store_config"),
			     "vLLM needs options.store_config on the mooncake-master service: it is "
			     "rendered into the JSON file MOONCAKE_CONFIG_PATH points at. srtctl does "
			     "not invent defaults for it (global_segment_size, protocol, device_name "
			     "are hardware-specific): set them explicitly.");
	} else if (m->store_config && r->engine != SRT_ENGINE_TRTLLM) {
		verr(v, srt_ynode_get(m->options, "store_config"),
		     spath(v, m, "options.store_config"),
		     "options.store_config is for vLLM and TRT-LLM only (it becomes the client "
		     "config MOONCAKE_CONFIG_PATH names); with engine %s configure Mooncake through "
		     "the roles' env. Remove it.",
		     srt_engine_name(r->engine));
	}
	/* TRT-LLM's side: recipe/mcclient.c. */
	if (r->engine == SRT_ENGINE_MOCKER)
		verr(v, m->node, spath(v, m, NULL),
		     "a mooncake-master service is supported with engine sglang, vllm or trtllm, "
		     "not %s",
		     srt_engine_name(r->engine));

	if (m->store_config && r->engine == SRT_ENGINE_VLLM) {
		const struct srt_ypair *p = srt_ynode_get_pair(m->store_config, "master_server_address");
		static const char *const sizes[] = { "global_segment_size", "local_buffer_size", NULL };

		if (p)
			vwarn(v, p->key, spath(v, m, "options.store_config.master_server_address"),
			      "is ignored: srtctl always sets it to <infra_node_ip>:%d", SRT_MC_RPC_PORT);
		for (size_t i = 0; sizes[i]; i++) {
			const struct srt_ynode *sv = srt_ynode_get(m->store_config, sizes[i]);

			if (sv && !vllm_size_ok(sv))
				verr(v, sv,
				     spath(v, m, srt_arena_printf(v->a, "options.store_config.%s",
								  sizes[i])),
				     "'%s' is not a size vLLM's MooncakeStoreConfig accepts: write an "
				     "integer number of bytes or a number with GB, MB, KB or B (e.g. "
				     "\"4GB\"; \"4GiB\" and \"4G\" are rejected at startup)",
				     sv->str);
		}
	}
}

/*
 * Args keys written with leading dashes, and the same flag twice in dash and
 * underscore spelling (each repeat names the first spelling; a hash of the
 * dash-folded keys keeps this linear in the number of args).
 */
static void check_args_keys(struct vctx *v, const struct srt_role *role)
{
	const char *path = srt_arena_printf(v->a, "roles.%s.args", role->name);
	struct srt_strmap seen;

	if (!role->args)
		return;
	srt_strmap_init(&seen, NULL, true);
	for (size_t i = 0; i < role->args->n; i++) {
		const struct srt_ynode *key = role->args->pairs[i].key;
		size_t first;

		if (key->str[0] == '-')
			verr(v, key, path,
			     "write '%s' without the leading dashes (srtctl adds '--')", key->str);
		if (!srt_strmap_add(&seen, key->str, i, &first))
			verr(v, key, path,
			     "'%s' repeats '%s' (dashes and underscores are the same flag); keep one",
			     key->str, role->args->pairs[first].key->str);
	}
	srt_strmap_release(&seen);
}

/*
 * roles.<role>.args.port: srt-slurm appends it after its own --port, so the
 * recipe's is the worker's HTTP port (public recipes move it out of the
 * ephemeral range, SGLang deriving its RPC port from it).  srtctl passes
 * it as the port and probes it there, where it cannot collide: not on a
 * direct frontend's worker (that is frontend.port), not when workers of the
 * role share a node or decode shares prefill's nodes, not on a port srtctl
 * opens on worker nodes.
 */
static void check_role_port(struct vctx *v, const struct srt_role *role, const struct srt_ypair *p,
			    const char *path)
{
	static const struct {
		int base;
		bool per_slot; /* one per worker leader on the node */
		const char *what;
	} taken[] = {
		{ SRT_LAUNCH_HTTP_PORT, true, "srtctl's worker HTTP ports (6100 + 32 per worker)" },
		{ SRT_LAUNCH_BOOTSTRAP_PORT, true, "SGLang's PD bootstrap ports" },
		{ SRT_LAUNCH_NCCL_PORT, true, "SGLang's NCCL ports" },
		{ SRT_LAUNCH_DIST_INIT_PORT, false, "the dist-init port of multi-node workers" },
		{ SRT_LAUNCH_DP_RPC_PORT, true, "vLLM's data-parallel RPC ports" },
		{ SRT_LAUNCH_NIXL_PORT, true, "NIXL's side-channel ports" },
		{ SRT_LAUNCH_DYN_SYSTEM_PORT, true, "the Dynamo workers' status ports" },
		{ SRT_DYN_ETCD_PORT, false, "etcd's client port" },
		{ SRT_DYN_ETCD_PEER_PORT, false, "etcd's peer port" },
		{ SRT_DYN_NATS_PORT, false, "NATS's port" },
		{ SRT_MC_RPC_PORT, false, "the Mooncake master's RPC port" },
		{ SRT_MC_METADATA_PORT, false, "the Mooncake master's metadata port" },
		{ SRT_MC_ADMIN_PORT, false, "the Mooncake master's admin port" },
	};
	const struct srt_recipe *r = v->r;
	int gpn = r->resources.gpus_per_node > 0 ? r->resources.gpus_per_node : 4;
	int nodes = role->nodes > 0 ? role->nodes : 1;
	int workers = role->workers > 0 ? role->workers : 1;
	int g = role->gpus > 0 ? role->gpus : nodes * gpn / workers;
	int fe = r->frontend.port > 0 ? r->frontend.port : SRT_LAUNCH_FRONTEND_PORT;
	const char *fix =
		"remove it (srtctl then gives each worker 6100 + 32 per worker on its node)";
	int64_t port;

	if (!srt_ynode_int(p->value, &port) || port < 1 || port > 65535) {
		verr(v, p->value, path, "%s is not a port: write a number from 1 to 65535, or %s",
		     p->value->kind == SRT_Y_SCALAR && p->value->str ?
			     srt_arena_printf(v->a, "'%s'", p->value->str) :
			     srt_ynode_describe(p->value),
		     fix);
		return;
	}
	if (role->kind == SRT_ROLE_AGG && srt_launch_frontend_kind(r, NULL) == SRT_FE_DIRECT) {
		verr(v, p->key, path,
		     "with frontend.type %s the aggregated worker serves frontend.port itself; set "
		     "frontend.port instead",
		     r->frontend.type);
		return;
	}
	if (r->engine == SRT_ENGINE_VLLM && srt_launch_frontend_kind(r, NULL) == SRT_FE_DYNAMO) {
		vwarn(v, p->key, path,
		      "is ignored: dynamo.vllm serves no HTTP API, and srtctl passes it no --port; "
		      "remove it");
		return;
	}
	if (role->colocate ||
	    (role->kind == SRT_ROLE_PREFILL && r->roles[SRT_ROLE_DECODE].colocate)) {
		verr(v, p->key, path,
		     "decode shares the prefill nodes (nodes: colocate), so a prefill and a decode "
		     "worker would both serve port %lld on one node; %s",
		     (long long)port, fix);
		return;
	}
	if (workers > 1 && g > 0 && 2 * g <= gpn) {
		verr(v, p->key, path,
		     "port %lld would be the HTTP port of every worker of the role, and up to %d of "
		     "them share a node (%d GPUs each on %d-GPU nodes); %s",
		     (long long)port, gpn / g, g, gpn, fix);
		return;
	}
	if (port == fe) {
		verr(v, p->key, path,
		     "port %lld is frontend.port, which the frontend serves on the head node (a "
		     "worker node); pick another port",
		     (long long)port);
		return;
	}
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
		int span = taken[i].per_slot ? gpn : 1;
		int stride = taken[i].base == SRT_LAUNCH_HTTP_PORT ? SRT_LAUNCH_HTTP_STRIDE : 1;
		int last = taken[i].base + (span - 1) * stride;

		if (port >= taken[i].base && port <= last && (port - taken[i].base) % stride == 0) {
			verr(v, p->key, path,
			     "port %lld is %s%s on the worker nodes (%s); pick another port",
			     (long long)port, span > 1 ? "one of " : "", taken[i].what,
			     span > 1 ? srt_arena_printf(v->a, "%d-%d", taken[i].base, last) :
					srt_arena_printf(v->a, "%d", last));
			return;
		}
	}
}

/*
 * Flags srtctl sets on every worker (recipe/launch.h): a recipe that sets
 * one too is an error, in args or extra_args; the keys srtctl replaces as
 * srt-slurm does (model, nccl-port) get a warning that they are ignored;
 * an args port is the workers' HTTP port (check_role_port()).
 */
static void check_owned_args(struct vctx *v, const struct srt_role *role)
{
	const struct srt_ynode *xa = srt_ynode_get(role->node, "extra_args");

	/*
	 * TRT-LLM's args are engine YAML keys, not flags: only extra_args can
	 * clash.  A TileRT decode role's are the decode server's own
	 * (check_tilert()).
	 */
	for (size_t i = 0; v->r->engine != SRT_ENGINE_TRTLLM && role->engine != SRT_ENGINE_TILERT &&
			   role->args && i < role->args->n;
	     i++) {
		const struct srt_ynode *key = role->args->pairs[i].key;
		const char *path = srt_arena_printf(v->a, "roles.%s.args.%s", role->name, key->str);
		const char *why, *f = srt_launch_owned_flag(v->r, key->str, &why);

		if (srt_str_eq_dashes(key->str, "port") &&
		    (v->r->engine == SRT_ENGINE_SGLANG || v->r->engine == SRT_ENGINE_VLLM)) {
			check_role_port(v, role, &role->args->pairs[i], path);
			continue;
		}
		if (f)
			verr(v, key, path,
			     "sets --%s, which srtctl owns: %s. Remove it (dry-run shows the value "
			     "srtctl passes)",
			     f, why);
		else if (srt_launch_arg_replaced(v->r, key->str) &&
			 !srt_str_eq_dashes(key->str, "served-model-name") &&
			 !srt_str_eq_dashes(key->str, "port") &&
			 !srt_str_eq_dashes(key->str, "connector"))
			vwarn(v, key, path,
			      "is ignored: srtctl passes the model from model.path (and a "
			      "deterministic --nccl-port), as srt-slurm does; remove it");
	}
	for (size_t i = 0; i < role->extra_args.n; i++) {
		const char *arg = role->extra_args.v[i], *why, *f;

		if (arg[0] != '-')
			continue;
		f = srt_launch_owned_flag(v->r, arg, &why);
		if (!f && srt_launch_arg_replaced(v->r, arg) && !strstr(arg, "connector")) {
			f = arg;
			while (*f == '-')
				f++;
			why = "srtctl passes the model and its name from model.path, and a "
			      "deterministic --nccl-port";
		}
		if (f)
			verr(v, xa && xa->kind == SRT_Y_SEQ && i < xa->n ? xa->items[i] : xa,
			     srt_arena_printf(v->a, "roles.%s.extra_args[%zu]", role->name, i),
			     "'%s' sets --%s, which srtctl owns: %s. Remove it", arg, f, why);
	}
}

static void check_role_env(struct vctx *v, bool have_master)
{
	static const char *const owned[] = { "MOONCAKE_MASTER", "MOONCAKE_TE_META_DATA_SERVER",
					     "MOONCAKE_CONFIG_PATH", NULL };

	for (int k = 0; k < SRT_ROLE_COUNT; k++) {
		const struct srt_role *role = &v->r->roles[k];

		if (!role->present)
			continue;
		for (size_t i = 0; have_master && owned[i]; i++) {
			const struct srt_env_var *e = srt_env_find(&role->env, owned[i]);

			if (e)
				vwarn(v, e->node,
				      srt_arena_printf(v->a, "roles.%s.env.%s", role->name, owned[i]),
				      "setting %s here is a no-op: srtctl always sets it on every "
				      "worker (it points at the mooncake master srtctl launches)",
				      owned[i]);
		}
		if (v->r->engine == SRT_ENGINE_SGLANG) {
			const struct srt_env_var *e =
				srt_env_find(&role->env, "MOONCAKE_GLOBAL_SEGMENT_SIZE");

			if (e && !sglang_segment_ok(e->value))
				vwarn(v, e->node,
				      srt_arena_printf(v->a, "roles.%s.env.MOONCAKE_GLOBAL_SEGMENT_SIZE",
						       role->name),
				      "'%s': SGLang accepts only a byte count or \"<integer>gb\" here "
				      "(e.g. \"4gb\"); other forms raise ValueError at startup",
				      e->value);
		}
		check_args_keys(v, role);
		check_owned_args(v, role);
		if (role->args && k != SRT_ROLE_AGG) {
			const struct srt_ypair *p = arg_pair(role, "disaggregation-mode");
			const char *mode = p ? srt_ynode_str(p->value) : NULL;

			if (mode && strcmp(mode, role->name))
				verr(v, p->value,
				     srt_arena_printf(v->a, "roles.%s.args.%s", role->name,
						      p->key->str),
				     "is '%s' on the %s role; it must be '%s' (or left out)", mode,
				     role->name, role->name);
		}
	}
}

/*
 * Can two placements land on the same node?  The infra node is the head node
 * unless a dedicated one is reserved; the head node is the first worker node;
 * prefill and decode nodes are disjoint unless decode colocates.
 */
static bool may_share_node(const struct srt_recipe *r, enum srt_placement a, enum srt_placement b)
{
	bool colocated = r->roles[SRT_ROLE_DECODE].colocate;

	if (a == SRT_PLACE_DEDICATED || b == SRT_PLACE_DEDICATED)
		return a == b;
	if (a == SRT_PLACE_POOL || b == SRT_PLACE_POOL) {
		/* pools follow the roles' nodes; without roles the head is a pool's first node */
		bool roles = r->roles[SRT_ROLE_PREFILL].present ||
			     r->roles[SRT_ROLE_DECODE].present || r->roles[SRT_ROLE_AGG].present;
		enum srt_placement o = a == SRT_PLACE_POOL ? b : a;

		return o == SRT_PLACE_POOL ||
		       (!roles &&
			(o == SRT_PLACE_HEAD || o == SRT_PLACE_INFRA || o == SRT_PLACE_DEFAULT));
	}
	if (!colocated && ((a == SRT_PLACE_PREFILL && b == SRT_PLACE_DECODE) ||
			   (a == SRT_PLACE_DECODE && b == SRT_PLACE_PREFILL)))
		return false;
	return true;
}

struct port_use {
	int port;
	size_t svc, probe;
};

static int cmp_port_use(const void *a, const void *b)
{
	const struct port_use *x = a, *y = b;

	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	if (x->svc != y->svc)
		return x->svc < y->svc ? -1 : 1;
	return (x->probe > y->probe) - (x->probe < y->probe);
}

#define NPLACE (SRT_PLACE_POOL + 1)

/*
 * Two launched services that gate on the same port and can land on the same
 * node: the later one is reported, naming the first such service.  The
 * probes are sorted by port; within a port, the first service of each
 * placement (masters apart: two masters are already one error) is all a
 * later one needs to be compared with, so this is O(n log n), not n^2.
 */
static void check_ports(struct vctx *v)
{
	const struct srt_recipe *r = v->r;
	struct port_use *u = srt_xcalloc(r->nservices * 3 + 1, sizeof(*u));
	size_t nu = 0;

	for (size_t i = 0; i < r->nservices; i++) {
		const struct srt_service *s = &r->services[i];

		if (!s->enabled || s->external)
			continue;
		for (size_t p = 0; p < s->readiness.nprobes && p < 3; p++) {
			enum srt_probe_kind k = s->readiness.probes[p].kind;

			if (k == SRT_PROBE_FILE || k == SRT_PROBE_LOG)
				continue; /* a file or a log holds no port */
			u[nu++] = (struct port_use){ s->readiness.probes[p].port, i, p };
		}
	}
	qsort(u, nu, sizeof(*u), cmp_port_use);
	for (size_t g = 0; g < nu;) {
		size_t first[2][NPLACE], end = g;

		for (size_t k = 0; k < NPLACE; k++)
			first[0][k] = first[1][k] = SIZE_MAX;
		while (end < nu && u[end].port == u[g].port)
			end++;
		for (; g < end; g++) {
			const struct srt_service *b = &r->services[u[g].svc];
			bool bm = b->type == SRT_SVC_MOONCAKE_MASTER;
			size_t a = SIZE_MAX;

			for (int k = 0; k < NPLACE; k++) {
				if (!may_share_node(r, (enum srt_placement)k, b->placement))
					continue;
				if (first[0][k] < a && first[0][k] < u[g].svc)
					a = first[0][k];
				if (!bm && first[1][k] < a && first[1][k] < u[g].svc)
					a = first[1][k];
			}
			if (a != SIZE_MAX)
				verr(v, b->readiness.node ? b->readiness.node : b->node,
				     spath(v, b, "readiness"),
				     "port %d is also the readiness port of '%s' (services[%zu]) and "
				     "both can run on the same node (%s / %s); give one of them another "
				     "port or disjoint placements",
				     u[g].port, r->services[a].name ? r->services[a].name : "?", a,
				     srt_placement_name(r->services[a].placement),
				     srt_placement_name(b->placement));
			if (first[bm][b->placement] == SIZE_MAX)
				first[bm][b->placement] = u[g].svc;
		}
	}
	free(u);
}

/*
 * A service on placement.pool rides the nodes of the service it names,
 * which must own nodes (services[].nodes) and run.
 */
static void check_pools(struct vctx *v)
{
	const struct srt_recipe *r = v->r;

	for (size_t i = 0; i < r->nservices; i++) {
		const struct srt_service *s = &r->services[i], *o = NULL;
		const struct srt_ynode *at =
			srt_ynode_get(srt_ynode_get(s->node, "placement"), "pool");
		struct srt_buf names;

		if (!s->enabled || s->placement != SRT_PLACE_POOL || s->pool_nodes > 0 || !s->pool)
			continue;
		for (size_t j = 0; j < r->nservices && !o; j++)
			if (r->services[j].name && !strcmp(r->services[j].name, s->pool))
				o = &r->services[j];
		if (o && o->pool_nodes > 0 && o->enabled && !o->external)
			continue;
		if (o && o->pool_nodes > 0) {
			verr(v, at, spath(v, s, "placement.pool"),
			     "pool '%s' is not allocated: its owner (services[%zu]) has enabled: "
			     "false; enable it or disable this service too",
			     s->pool, (size_t)(o - r->services));
			continue;
		}
		srt_buf_init(&names);
		for (size_t j = 0; j < r->nservices; j++)
			if (r->services[j].pool_nodes > 0 && r->services[j].enabled &&
			    r->services[j].name)
				srt_buf_printf(&names, "%s%s", names.len ? ", " : "",
					       r->services[j].name);
		verr(v, at, spath(v, s, "placement.pool"),
		     "'%s' names no service that owns nodes (pools: %s); give that service "
		     "'nodes: N', or name one of the pools",
		     s->pool, names.len ? names.data : "none");
		srt_buf_release(&names);
	}
}

/* Dynamo's discovery and message planes: etcd, NATS. */
static bool discovery(const struct srt_service *s)
{
	return s->type == SRT_SVC_ETCD || s->type == SRT_SVC_NATS;
}

/* Does an enabled lmcache-server run on the nodes of role k? */
static bool lmcache_serves(const struct srt_recipe *r, enum srt_role_kind k)
{
	for (size_t i = 0; i < r->nservices; i++) {
		const struct srt_service *s = &r->services[i];

		if (!s->enabled || s->type != SRT_SVC_LMCACHE_SERVER)
			continue;
		if (s->placement == SRT_PLACE_WORKERS ||
		    (s->placement == SRT_PLACE_PREFILL &&
		     (k == SRT_ROLE_PREFILL || (k == SRT_ROLE_DECODE && r->roles[k].colocate))) ||
		    (s->placement == SRT_PLACE_DECODE && k == SRT_ROLE_DECODE) ||
		    (s->placement == SRT_PLACE_AGG && k == SRT_ROLE_AGG))
			return true;
	}
	return false;
}

/*
 * connector: lmcache-mp points each vLLM rank at the LMCache server on its
 * own node (tcp://localhost:8750); a role whose nodes run none would fail
 * at its first request.
 */
static void check_lmcache(struct vctx *v)
{
	const struct srt_recipe *r = v->r;

	for (int k = 0; k < SRT_ROLE_COUNT; k++) {
		if (!srt_role_uses_lmcache_mp(r, (enum srt_role_kind)k) ||
		    lmcache_serves(r, (enum srt_role_kind)k))
			continue;
		verr(v, r->roles[k].node, srt_arena_printf(v->a, "roles.%s", r->roles[k].name),
		     "connector lmcache-mp reaches the LMCache server on the worker's own node "
		     "(tcp://localhost:%d), but no enabled lmcache-server runs on the %s nodes; "
		     "enable one there ('placement: {node: workers}' covers every worker node) or "
		     "remove its 'enabled: false'",
		     SRT_LMCACHE_RPC_PORT, r->roles[k].name);
	}
}

static void check_services(struct vctx *v)
{
	const struct srt_recipe *r = v->r;
	const struct srt_service *master = NULL, *off = NULL;
	size_t nmasters = 0, j;
	struct srt_strmap names;

	srt_strmap_init(&names, NULL, false);
	for (size_t i = 0; i < r->nservices; i++) {
		const struct srt_service *s = &r->services[i];

		if (!s->name)
			continue;
		if (!srt_strmap_add(&names, s->name, i, &j))
			verr(v, srt_ynode_get(s->node, "name"), spath(v, s, "name"),
			     "duplicate service name '%s' (also services[%zu]); names must be "
			     "unique because they name the logs and processes",
			     s->name, j);
		if (!s->enabled)
			continue;
		if (s->type == SRT_SVC_MOONCAKE_MASTER) {
			if (nmasters++)
				verr(v, s->node, spath(v, s, NULL),
				     "a second mooncake-master service ('%s', services[%zu]); a run has "
				     "one master (first: '%s', services[%zu]): remove one of them, or "
				     "set enabled: false on it",
				     s->name ? s->name : "?", i, master->name ? master->name : "?",
				     (size_t)(master - r->services));
			else
				master = s;
		}
		if (s->terminal && s->external)
			verr(v, srt_ynode_get(s->node, "terminal"), spath(v, s, "terminal"),
			     "a terminal service ends the run when it exits, but an external one "
			     "launches nothing to wait for; remove 'terminal' or 'external'");
		else if (s->terminal && r->benchmark.type && strcmp(r->benchmark.type, "manual"))
			verr(v, srt_ynode_get(s->node, "terminal"), spath(v, s, "terminal"),
			     "a terminal service ends the run when it exits, so the run cannot also "
			     "run benchmark.type: %s; remove the benchmark (manual) or 'terminal'",
			     r->benchmark.type);
		if (s->external && s->type != SRT_SVC_MOONCAKE_MASTER && !discovery(s))
			verr(v, srt_ynode_get(s->node, "external"), spath(v, s, "external"),
			     "'external' is only for a mooncake-master, etcd or nats that already "
			     "runs");
		if (s->placement == SRT_PLACE_DEDICATED && s->type != SRT_SVC_MOONCAKE_MASTER &&
		    !discovery(s))
			verr(v, srt_ynode_get(srt_ynode_get(s->node, "placement"), "node"),
			     spath(v, s, "placement.node"),
			     "'dedicated' reserves the infra node for the mooncake master, etcd and "
			     "nats; other services use head, infra, prefill, decode, agg or workers");
		if (discovery(s) && s->placement != SRT_PLACE_HEAD &&
		    s->placement != SRT_PLACE_INFRA && s->placement != SRT_PLACE_DEDICATED)
			verr(v, srt_ynode_get(srt_ynode_get(s->node, "placement"), "node"),
			     spath(v, s, "placement.node"),
			     "%s runs once per job: place it on head, infra or dedicated",
			     s->type_name);
		if (discovery(s) && s->start != SRT_START_INFRA &&
		    s->start != SRT_START_BEFORE_WORKERS)
			verr(v, srt_ynode_get(s->node, "start"), spath(v, s, "start"),
			     "%s must run before the workers that register with it; write 'start: "
			     "infra' (or remove 'start')",
			     s->type_name);
		if (discovery(s) && !s->external)
			check_plane_words(v, s);
		if (!discovery(s) && s->start == SRT_START_INFRA)
			verr(v, srt_ynode_get(s->node, "start"), spath(v, s, "start"),
			     "the infra phase is etcd's and NATS's; write 'start: before_workers'");
		if (s->type == SRT_SVC_GENERIC && !strcmp(s->type_name, "generic") && !s->command.n)
			verr(v, s->node, spath(v, s, NULL),
			     "a generic service needs a 'command' (the argv to run)");
		if (s->store_config && s->type != SRT_SVC_MOONCAKE_MASTER)
			verr(v, srt_ynode_get(s->options, "store_config"),
			     spath(v, s, "options.store_config"),
			     "options.store_config belongs on the mooncake-master service");
		if ((s->placement == SRT_PLACE_PREFILL || s->placement == SRT_PLACE_DECODE ||
		     s->placement == SRT_PLACE_AGG) &&
		    !r->roles[s->placement == SRT_PLACE_PREFILL ? SRT_ROLE_PREFILL :
			      s->placement == SRT_PLACE_DECODE  ? SRT_ROLE_DECODE :
								  SRT_ROLE_AGG]
			     .present)
			verr(v, srt_ynode_get(srt_ynode_get(s->node, "placement"), "node"),
			     spath(v, s, "placement.node"),
			     "placement '%s' names a role the recipe does not have",
			     srt_placement_name(s->placement));
	}
	srt_strmap_release(&names);
	/* A disabled master, named when a store has no enabled one. */
	for (size_t i = 0; i < r->nservices && !off; i++)
		if (r->services[i].type == SRT_SVC_MOONCAKE_MASTER && !r->services[i].enabled)
			off = &r->services[i];
	for (size_t i = 0; i < r->nservices; i++) {
		const struct srt_service *s = &r->services[i];

		if (!s->enabled || s->type != SRT_SVC_MOONCAKE_STORE || master)
			continue;
		if (off)
			verr(v, s->node, spath(v, s, NULL),
			     "a mooncake-store service needs an enabled mooncake-master (stores "
			     "register with it), but '%s' (services[%zu]) has enabled: false; remove "
			     "'enabled: false' from it, or disable this store too",
			     off->name ? off->name : "?", (size_t)(off - r->services));
		else
			verr(v, s->node, spath(v, s, NULL),
			     "a mooncake-store service needs a mooncake-master service in the same "
			     "recipe (stores register with it); add one:\n"
			     "  - name: mooncake-master\n    type: mooncake-master");
	}
	if (master)
		check_master(v, master);
	check_lmcache(v);
	check_pools(v);
	check_ports(v);
}

static bool time_limit_ok(const char *s)
{
	int parts = 0, digits = 0;
	const char *p = s;

	if (!strcmp(s, "UNLIMITED") || !strcmp(s, "INFINITE") || !strcmp(s, "unlimited") ||
	    !strcmp(s, "infinite"))
		return true;
	/* [days-]hours[:minutes[:seconds]] or minutes[:seconds] */
	if (strchr(s, '-')) {
		while (*p >= '0' && *p <= '9')
			p++;
		if (p == s || *p != '-')
			return false;
		p++;
	}
	for (;; p++) {
		if (*p >= '0' && *p <= '9') {
			digits++;
		} else if (*p == ':' || !*p) {
			if (!digits)
				return false;
			parts++;
			digits = 0;
			if (!*p)
				break;
		} else {
			return false;
		}
	}
	return parts >= 1 && parts <= 3;
}

/* An integer flag of a role's args (any dash/underscore spelling), or dflt. */
static int64_t role_int(const struct srt_role *ro, const char *dashed, int64_t dflt)
{
	int64_t n;

	for (size_t i = 0; ro->args && ro->args->kind == SRT_Y_MAP && i < ro->args->n; i++)
		if (srt_str_eq_dashes(ro->args->pairs[i].key->str, dashed) &&
		    srt_ynode_int(ro->args->pairs[i].value, &n))
			return n;
	return dflt;
}

/*
 * A vLLM worker runs tensor x pipeline x data parallel ranks, one GPU each:
 * with fewer GPUs it cannot start.  srt-slurm does not check it (51 of its
 * public recipes have a worker so), so a warning.  More GPUs than ranks
 * (a whole node by default, TP 1) leaves some idle and is not said.
 */
static void check_vllm_world(struct vctx *v, const struct srt_role *ro, int gpus)
{
	int64_t tp = role_int(ro, "tensor-parallel-size", 1);
	int64_t pp = role_int(ro, "pipeline-parallel-size", 1);
	int64_t dp = role_int(ro, "data-parallel-size", 1);

	if (v->r->engine != SRT_ENGINE_VLLM || gpus <= 0 || tp < 1 || pp < 1 || dp < 1 ||
	    tp > 65536 || pp > 65536 || dp > 65536 || tp * pp * dp <= gpus)
		return;
	vwarn(v, ro->node, srt_arena_printf(v->a, "roles.%s", ro->name),
	      "each %s worker runs tensor-parallel-size %lld x pipeline-parallel-size %lld x "
	      "data-parallel-size %lld = %lld vLLM ranks, one GPU each, but has %d GPU(s)%s; "
	      "check roles.%s.gpus and the parallel sizes",
	      ro->name, (long long)tp, (long long)pp, (long long)dp, (long long)(tp * pp * dp),
	      gpus, ro->gpus ? " (gpus)" : " (its share of the role's nodes)", ro->name);
}

static void check_roles(struct vctx *v)
{
	const struct srt_recipe *r = v->r;
	const struct srt_role *pre = &r->roles[SRT_ROLE_PREFILL];
	const struct srt_role *dec = &r->roles[SRT_ROLE_DECODE];
	const struct srt_role *agg = &r->roles[SRT_ROLE_AGG];
	const struct srt_ynode *roles = srt_ynode_get(r->root, "roles");
	int gpn = r->resources.gpus_per_node;

	if (!pre->present && !dec->present && !agg->present) {
		if (r->nservices == 0)
			verr(v, roles ? roles : r->root, "roles",
			     "the recipe runs nothing: add roles (prefill + decode, or agg) or "
			     "services");
		return;
	}
	if (r->engine == SRT_ENGINE_UNSET && !srt_ynode_get(r->root, "engine"))
		verr(v, r->root, "engine",
		     "no engine: add 'engine: sglang' or 'engine: vllm' at the top level");
	if (pre->present != dec->present)
		verr(v, (pre->present ? pre : dec)->node, "roles",
		     "a disaggregated recipe needs both roles.prefill and roles.decode (found only "
		     "%s); for a single-role deployment use roles.agg",
		     pre->present ? "prefill" : "decode");
	if (agg->present && (pre->present || dec->present))
		verr(v, agg->node, "roles.agg",
		     "roles.agg (aggregated) cannot be combined with prefill/decode "
		     "(disaggregated); choose one layout");
	for (int k = 0; k < SRT_ROLE_COUNT; k++) {
		const struct srt_role *role = &r->roles[k];
		const char *rp = srt_arena_printf(v->a, "roles.%s", role->name);
		int nodes;

		if (!role->present)
			continue;
		if (role->colocate) {
			if (!role->gpus || !pre->gpus)
				verr(v, role->node, rp,
				     "decode with nodes: colocate needs 'gpus' on both prefill and "
				     "decode");
			else if (pre->nodes > 0 &&
				 pre->workers * pre->gpus + role->workers * role->gpus >
					 pre->nodes * gpn)
				verr(v, role->node, rp,
				     "colocated decode does not fit: prefill %d x %d GPUs + decode %d x "
				     "%d GPUs > %d node(s) x %d GPUs",
				     pre->workers, pre->gpus, role->workers, role->gpus, pre->nodes, gpn);
			check_vllm_world(v, role, role->gpus);
			continue;
		}
		nodes = role->nodes > 0 ? role->nodes : 1;
		check_vllm_world(v, role,
				 role->gpus ? role->gpus :
				 role->workers <= nodes * gpn &&
						 (nodes * gpn) % role->workers == 0 ?
					      nodes * gpn / role->workers :
					      0);
		if (role->gpus && role->workers * role->gpus > nodes * gpn)
			verr(v, role->node, rp,
			     "%d worker(s) x %d GPUs do not fit on %d node(s) x %d GPUs "
			     "(resources.gpus_per_node); raise nodes or lower gpus",
			     role->workers, role->gpus, nodes, gpn);
		if (!role->gpus && (nodes * gpn) % role->workers && role->workers < nodes * gpn)
			vwarn(v, role->node, rp,
			      "%d node(s) x %d GPUs do not divide evenly among %d workers; set "
			      "'gpus' per worker",
			      nodes, gpn, role->workers);
		if (!role->gpus && role->workers > nodes * gpn)
			verr(v, role->node, rp,
			     "%d workers need at least one GPU each but %d node(s) have %d GPUs",
			     role->workers, nodes, nodes * gpn);
	}
	if (r->slurm.time_limit && !time_limit_ok(r->slurm.time_limit))
		verr(v, srt_ynode_get(srt_ynode_get(r->root, "slurm"), "time_limit"),
		     "slurm.time_limit",
		     "'%s' is not a SLURM time limit; use minutes, HH:MM:SS, D-HH:MM:SS or "
		     "UNLIMITED",
		     r->slurm.time_limit);
}

static void check_benchmark(struct vctx *v)
{
	const struct srt_recipe *r = v->r;

	if (!strcmp(r->benchmark.type, "sa-bench") && !r->benchmark.command)
		vwarn(v, srt_ynode_get(r->benchmark.node, "type"), "benchmark.type",
		      "srt-slurm runs sa-bench inside the job; srtctl runs it as a campaign's load, "
		      "and this recipe alone runs no benchmark: %s%s%s",
		      r->root == r->doc->root ? "`srtctl migrate -f " : "",
		      r->root == r->doc->root ? (r->file ? r->file : "RECIPE.yaml") : "",
		      r->root == r->doc->root ?
			      " -o CAMPAIGN.yaml` writes that campaign (this recipe its template, "
			      "the benchmark its load)" :
			      "write a campaign whose template is this variant and whose load is "
			      "the benchmark (see Campaigns in docs/recipe-reference.md)");
	else if (strcmp(r->benchmark.type, "manual") && !r->benchmark.command)
		vwarn(v, srt_ynode_get(r->benchmark.node, "type"), "benchmark.type",
		      "benchmark type '%s' has no 'command': srtctl runs benchmark.command (with "
		      "bash -c, its parameters in SRT_BENCH_* env) and skips the step without one",
		      r->benchmark.type);
}

/* Under the Dynamo frontend: etcd to meet at, and the flags srtctl owns. */
static void check_dynamo(struct vctx *v, const struct srt_ynode *tn)
{
	const struct srt_recipe *r = v->r;
	bool nats_plane =
		!strcmp(r->dynamo.request_plane ? r->dynamo.request_plane : "tcp", "nats") ||
		(r->dynamo.event_plane && !strcmp(r->dynamo.event_plane, "nats"));

	if (!srt_recipe_service_of(r, SRT_SVC_ETCD))
		verr(v, tn, "frontend.type",
		     "Dynamo's workers and frontend meet in etcd, and this recipe's etcd service "
		     "is disabled; remove 'enabled: false' from it, or give it 'external: "
		     "http://HOST:2379' for an etcd that already runs");
	if (nats_plane && !srt_recipe_service_of(r, SRT_SVC_NATS))
		verr(v, r->dynamo.node, "dynamo",
		     "a NATS request or event plane needs NATS, and this recipe's nats service is "
		     "disabled; remove 'enabled: false' from it, or give it 'external: "
		     "nats://HOST:4222'");
	for (size_t i = 0; r->frontend.args && i < r->frontend.args->n; i++) {
		const struct srt_ynode *key = r->frontend.args->pairs[i].key;

		if (srt_str_eq_dashes(key->str, "http-port") ||
		    srt_str_eq_dashes(key->str, "request-plane"))
			verr(v, key, srt_arena_printf(v->a, "frontend.args.%s", key->str),
			     "srtctl sets the Dynamo frontend's --%s itself; %s", key->str,
			     srt_str_eq_dashes(key->str, "http-port") ?
				     "remove it and set frontend.port" :
				     "remove it and set dynamo.request_plane");
	}
}

/* frontend.type: what srtctl runs (recipe/launch.h), what it refuses, and what each needs. */
/* The engine whose single worker a direct frontend type is ("trtllm_serve": trtllm). */
static const char *direct_engine(const char *type)
{
	return !strcmp(type, "trtllm_serve") || !strcmp(type, "trtllm-serve") ? "trtllm" : type;
}

/* trtllm_serve's orchestrator over TRT-LLM prefill/decode workers and its config keys. */
static void check_trtllm_serve(struct vctx *v, const struct srt_ynode *tn)
{
	static const char *const owned[] = { "hostname", "port", "context_servers",
					     "generation_servers", NULL };
	const struct srt_recipe *r = v->r;
	const struct srt_ynode *extra = r->frontend.server_config_extra;

	if (r->engine != SRT_ENGINE_TRTLLM)
		verr(v, tn, "frontend.type",
		     "'%s' is the orchestrator of TRT-LLM's prefill/decode workers, but the engine "
		     "is %s; write 'type: %s'",
		     r->frontend.type, srt_engine_name(r->engine),
		     r->engine == SRT_ENGINE_VLLM ? "vllm-router" : "sglang-router");
	for (size_t i = 0; owned[i]; i++)
		if (extra && srt_ynode_get(extra, owned[i]))
			verr(v, srt_ynode_get_pair(extra, owned[i])->key,
			     srt_arena_printf(v->a, "frontend.server_config_extra.%s", owned[i]),
			     "srtctl writes '%s' in the orchestrator's config (from %s); remove it",
			     owned[i],
			     i < 2 ? "frontend.port, on every address" :
				     "the prefill and decode workers' addresses");
	for (size_t i = 0; r->frontend.args && i < r->frontend.args->n; i++) {
		const struct srt_ynode *k = r->frontend.args->pairs[i].key;

		if (srt_str_eq_dashes(k->str, "config_file") || !strcmp(k->str, "c"))
			verr(v, k, srt_arena_printf(v->a, "frontend.args.%s", k->str),
			     "srtctl passes the orchestrator's config file it writes; remove it (set "
			     "frontend.ctx_router, gen_router or server_config_extra instead)");
	}
}

/* Keys of a mapping that name one of `owned` (leading dashes and '_' aside), as "['a', 'b']". */
static const char *owned_keys(struct vctx *v, const struct srt_ynode *map, const char *const *owned,
			      const struct srt_ynode **first)
{
	struct srt_buf b;
	const char *out = NULL;

	*first = NULL;
	srt_buf_init(&b);
	for (size_t i = 0; map && map->kind == SRT_Y_MAP && i < map->n; i++) {
		const char *k = map->pairs[i].key->str;

		while (*k == '-')
			k++;
		for (size_t j = 0; owned[j]; j++)
			if (srt_str_eq_dashes(k, owned[j])) {
				srt_buf_printf(&b, "%s'%s'", b.len ? ", " : "", owned[j]);
				if (!*first)
					*first = map->pairs[i].key;
			}
	}
	if (b.len)
		out = srt_arena_printf(v->a, "[%s]", b.data);
	srt_buf_release(&b);
	return out;
}

/*
 * TileRT's prefill/decode (srt-slurm 2.0): one vLLM prefill worker with the
 * TileRTConnector, TileRT decode workers (roles.decode.engine: tilert), each
 * on one node, and TileRT's router in front; srt-slurm's rules.
 */
static void check_tilert(struct vctx *v)
{
	static const char *const dec_owned[] = { "engine", "http-port", "ctrl-port", NULL };
	static const char *const fe_owned[] = { "vllm-url", "decode", "host", "port", NULL };
	const struct srt_recipe *r = v->r;
	const struct srt_role *pre = &r->roles[SRT_ROLE_PREFILL], *dec = &r->roles[SRT_ROLE_DECODE];
	const struct srt_ynode *tn = srt_ynode_get(r->frontend.node, "type");
	const struct srt_ynode *en = dec->node ? srt_ynode_get(dec->node, "engine") : NULL;
	const struct srt_ynode *at, *many;
	bool tile = dec->present && dec->engine == SRT_ENGINE_TILERT;
	bool router = srt_launch_frontend_kind(r, NULL) == SRT_FE_TILERT_ROUTER;
	int g = r->resources.gpus_per_node > 0 ? r->resources.gpus_per_node : 1;
	const char *keys;
	bool on = false;

	if (router && !tile)
		verr(v, tn, "frontend.type",
		     "tilert-router requires a TileRT decode engine: write roles.decode.engine: "
		     "tilert (beside a vLLM prefill role)");
	if (tile && !router)
		verr(v, en, "roles.decode.engine",
		     "TileRT decode workers are reached through TileRT's router: write "
		     "frontend.type: tilert-router (it is '%s')",
		     r->frontend.type ? r->frontend.type : "none");
	if (!tile)
		return;
	if (r->roles[SRT_ROLE_AGG].present || !pre->present || pre->workers > 1)
		verr(v, r->roles[SRT_ROLE_AGG].present ? r->roles[SRT_ROLE_AGG].node : en, "roles",
		     "TileRT router requires exactly one prefill worker and at least one decode "
		     "worker (no agg role); this recipe has %s",
		     r->roles[SRT_ROLE_AGG].present ? "an agg role" :
		     !pre->present		    ? "no prefill role" :
						      "several prefill workers");
	if (pre->present && r->engine != SRT_ENGINE_VLLM)
		verr(v, pre->node, "roles.prefill.engine",
		     "tilert-router requires vLLM prefill with TileRTConnector: write "
		     "roles.prefill.engine: vllm (it is %s)",
		     srt_engine_name(r->engine));
	if (dec->gpus > g || (dec->gpus <= 0 && dec->nodes > (dec->workers > 0 ? dec->workers : 1)))
		verr(v, dec->node, "roles.decode",
		     "TileRT decode workers must fit on one node (resources.gpus_per_node is %d); "
		     "give each at most %d GPUs",
		     g, g);
	if (dec->kv_events)
		verr(v, dec->kv_events, "roles.decode.kv_events",
		     "roles.decode.kv_events is not supported by the tilert engine; remove it");
	if ((keys = owned_keys(v, dec->args, dec_owned, &at)))
		verr(v, at, srt_arena_printf(v->a, "roles.decode.args.%s", at->str),
		     "TileRT arguments are owned by srtctl: %s (srtctl passes --engine tilert, "
		     "--http-port and --ctrl-port itself); remove them",
		     keys);
	if ((keys = owned_keys(v, r->frontend.args, fe_owned, &at)))
		verr(v, at, srt_arena_printf(v->a, "frontend.args.%s", at->str),
		     "frontend.args cannot override srtctl-managed TileRT router argument(s): %s "
		     "(srtctl passes the prefill URL, the decode workers, host 0.0.0.0 and "
		     "frontend.port); remove them",
		     keys);
	many = srt_ynode_get(r->frontend.node, "enable_multiple_frontends");
	if (many && srt_ynode_bool(many, &on) && on)
		verr(v, many, "frontend.enable_multiple_frontends",
		     "frontend.type: tilert-router requires frontend.enable_multiple_frontends: "
		     "false");
	if (en && en->kind == SRT_Y_MAP && srt_ynode_get(en, "served_model_name")) {
		const char *want = srt_ynode_str(srt_ynode_get(en, "served_model_name"));
		const struct srt_ynode *pn =
			pre->args ? srt_ynode_get(pre->args, "served-model-name") : NULL;

		if (!pn && pre->args)
			pn = srt_ynode_get(pre->args, "served_model_name");
		if (want && pn && srt_ynode_str(pn) && strcmp(want, srt_ynode_str(pn)))
			verr(v, srt_ynode_get(en, "served_model_name"),
			     "roles.decode.engine.served_model_name",
			     "TileRT served_model_name must match the prefill served-model-name "
			     "('%s')",
			     srt_ynode_str(pn));
	}
}

/* An nginx time ("600s", "10m", "75"): digits, then at most one unit. */
static bool nginx_time_ok(const char *s)
{
	size_t n = 0;

	while (s[n] >= '0' && s[n] <= '9')
		n++;
	if (!n || n > 9)
		return false;
	s += n;
	return !*s || !strcmp(s, "ms") || !strcmp(s, "s") || !strcmp(s, "m") || !strcmp(s, "h") ||
	       !strcmp(s, "d");
}

/* An HTTP header name nginx can read as $http_<name>: letters, digits and '-'. */
static bool header_name_ok(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!srt_ascii_alnum(s[n]) && s[n] != '-')
			return false;
	return n > 0 && n <= 64;
}

/*
 * srt-slurm's frontend topology keys: the nginx settings must be something
 * nginx reads; the topology applies to routers srtctl can run several of;
 * the nginx settings do nothing without it (said once).
 */
static void check_multiple_frontends(struct vctx *v)
{
	const struct srt_recipe *r = v->r;
	const struct srt_frontend *f = &r->frontend;
	static const char *const ngx[] = { "num_additional_frontends",
					   "nginx_container",
					   "nginx_raise_ulimit",
					   "nginx_session_affinity",
					   "nginx_session_affinity_header",
					   "nginx_keepalive_timeout",
					   NULL };
	const struct srt_ynode *n;
	enum srt_frontend_kind k = srt_launch_frontend_kind(r, NULL);

	n = srt_ynode_get(f->node, "nginx_keepalive_timeout");
	if (n && f->nginx_keepalive && !nginx_time_ok(f->nginx_keepalive))
		verr(v, n, "frontend.nginx_keepalive_timeout",
		     "'%s' is not an nginx time: write a number with an optional unit (ms, s, m, "
		     "h, d), e.g. 600s",
		     f->nginx_keepalive);
	n = srt_ynode_get(f->node, "nginx_session_affinity_header");
	if (n && f->nginx_header && !header_name_ok(f->nginx_header))
		verr(v, n, "frontend.nginx_session_affinity_header",
		     "'%s' is not an HTTP header name nginx can hash (letters, digits and '-', at "
		     "most 64), e.g. X-Dynamo-Session-ID",
		     f->nginx_header);
	n = srt_ynode_get(f->node, "nginx_container");
	if (n && f->nginx_container && !*f->nginx_container)
		verr(v, n, "frontend.nginx_container",
		     "is empty: name nginx's image (default nginx:1.27.4) or remove the key");
	if (f->multiple && k != SRT_FE_DYNAMO && k != SRT_FE_SGLANG_ROUTER &&
	    k != SRT_FE_VLLM_ROUTER && k != SRT_FE_NONE && k != SRT_FE_REFUSED &&
	    k != SRT_FE_TILERT_ROUTER)
		vwarn(v, srt_ynode_get_pair(f->node, "enable_multiple_frontends")->key,
		      "frontend.enable_multiple_frontends",
		      "srtctl runs several frontends behind nginx for dynamo, sglang-router and "
		      "vllm-router; frontend type '%s' runs once, on the head node",
		      f->type);
	if (f->multiple)
		return;
	for (size_t i = 0; ngx[i]; i++) {
		const struct srt_ypair *pr = srt_ynode_get_pair(f->node, ngx[i]);

		if (pr && !srt_ynode_is_null(pr->value)) {
			vwarn(v, pr->key, srt_arena_printf(v->a, "frontend.%s", ngx[i]),
			      "applies only with frontend.enable_multiple_frontends: true (nginx in "
			      "front of several frontends); without it srtctl runs one frontend "
			      "and no nginx, as srt-slurm does with it false");
			return;
		}
	}
}

static void check_frontend(struct vctx *v)
{
	const struct srt_recipe *r = v->r;
	const struct srt_ynode *tn = srt_ynode_get(r->frontend.node, "type");
	const char *t = r->frontend.type, *why = NULL;
	bool pd = r->roles[SRT_ROLE_PREFILL].present || r->roles[SRT_ROLE_DECODE].present;
	const struct srt_role *agg = &r->roles[SRT_ROLE_AGG];

	check_tilert(v);
	check_multiple_frontends(v);
	if (srt_launch_frontend_kind(r, NULL) != SRT_FE_TRTLLM_SERVE) {
		static const char *const ser[] = { "ctx_router", "gen_router",
						   "server_config_extra", NULL };

		for (size_t i = 0; ser[i]; i++)
			if (srt_ynode_get(r->frontend.node, ser[i]))
				vwarn(v, srt_ynode_get_pair(r->frontend.node, ser[i])->key,
				      srt_arena_printf(v->a, "frontend.%s", ser[i]),
				      "only trtllm_serve's orchestrator (TRT-LLM prefill/decode "
				      "workers) reads it; ignored");
	}
	if (r->engine == SRT_ENGINE_MOCKER && srt_launch_frontend_kind(r, NULL) != SRT_FE_DYNAMO &&
	    (pd || agg->present))
		vwarn(v, tn ? tn : r->engine_node, "frontend.type",
		      "engine mocker (dynamo.mocker) registers in etcd and serves no HTTP API: only "
		      "Dynamo's frontend reaches it, and srtctl passes it its flags only under "
		      "frontend.type: dynamo (srt-slurm's default); with '%s' nothing can send it "
		      "a request",
		      t);
	switch (srt_launch_frontend_kind(r, &why)) {
	case SRT_FE_REFUSED:
		verr(v, tn, "frontend.type", "'%s': %s", t, why);
		return;
	case SRT_FE_NONE:
		if (strcmp(t, "none"))
			vwarn(v, tn, "frontend.type",
			      "frontend type '%s' has no 'command': srtctl runs sglang-router, "
			      "vllm-router, sglang/vllm (direct) or frontend.command, and skips the "
			      "frontend otherwise",
			      t);
		return;
	case SRT_FE_DIRECT:
		if (pd || !agg->present || agg->workers > 1)
			verr(v, tn, "frontend.type",
			     "'%s' means one aggregated worker serving frontend.port itself (no "
			     "router); this recipe has %s. Write 'type: %s' to put a router in front",
			     t, pd ? "prefill/decode workers" : "several aggregated workers",
			     r->engine == SRT_ENGINE_VLLM   ? "vllm-router" :
			     r->engine == SRT_ENGINE_TRTLLM ? "dynamo" :
							      "sglang-router");
		else if (strcmp(direct_engine(t), srt_engine_name(r->engine)))
			verr(v, tn, "frontend.type",
			     "'%s' is the direct frontend of %s, but the engine is %s; write 'type: "
			     "%s'",
			     t, direct_engine(t), srt_engine_name(r->engine),
			     r->engine == SRT_ENGINE_TRTLLM ? "trtllm_serve" :
							      srt_engine_name(r->engine));
		return;
	case SRT_FE_SGLANG_ROUTER:
	case SRT_FE_VLLM_ROUTER:
		if (pd && r->engine != SRT_ENGINE_SGLANG && r->engine != SRT_ENGINE_VLLM)
			verr(v, tn, "frontend.type",
			     "'%s' cannot route %s prefill/decode workers (each router speaks its "
			     "engine's disaggregation protocol); write 'type: %s'",
			     t, srt_engine_name(r->engine),
			     r->engine == SRT_ENGINE_TRTLLM ?
				     "dynamo' or 'type: trtllm_serve' (TRT-LLM's own orchestrator)" :
				     "dynamo");
		else if (pd && r->engine != (strcmp(t, "vllm-router") ? SRT_ENGINE_SGLANG :
									SRT_ENGINE_VLLM))
			verr(v, tn, "frontend.type",
			     "'%s' cannot route %s prefill/decode workers (each router speaks its "
			     "engine's disaggregation protocol); write 'type: %s'",
			     t, srt_engine_name(r->engine),
			     r->engine == SRT_ENGINE_VLLM ? "vllm-router" : "sglang-router");
		for (size_t i = 0; r->frontend.args && i < r->frontend.args->n; i++) {
			const struct srt_ynode *key = r->frontend.args->pairs[i].key;

			if (srt_str_eq_dashes(key->str, "port") ||
			    srt_str_eq_dashes(key->str, "host") ||
			    srt_str_eq_dashes(key->str, "pd-disaggregation") ||
			    srt_str_eq_dashes(key->str, "vllm-pd-disaggregation") ||
			    srt_str_eq_dashes(key->str, "worker-urls") ||
			    srt_str_eq_dashes(key->str, "prefill") ||
			    srt_str_eq_dashes(key->str, "decode"))
				verr(v, key, srt_arena_printf(v->a, "frontend.args.%s", key->str),
				     "srtctl sets the router's --%s itself (host 0.0.0.0, port "
				     "frontend.port, the workers from the layout); remove it%s",
				     key->str,
				     srt_str_eq_dashes(key->str, "port") ?
					     " and set frontend.port" :
					     "");
		}
		return;
	case SRT_FE_DYNAMO:
		check_dynamo(v, tn);
		return;
	case SRT_FE_TRTLLM_SERVE:
		check_trtllm_serve(v, tn);
		return;
	case SRT_FE_TILERT_ROUTER: /* check_tilert() */
		return;
	case SRT_FE_CUSTOM:
		return;
	}
}

/*
 * An empty image name ('') means "not set", as in srt-slurm, where an empty
 * container is falsy: a role, service or benchmark falls back to the job
 * container, and an empty model.container is the cluster's default_container
 * (srt_cluster_apply) or runs without one.  Say so, since
 * '' is more often a template left half filled than a choice.
 */
static void empty_container(struct vctx *v, const struct srt_ynode *owner, const char *key,
			    const char *path, const char *fallback)
{
	const struct srt_ynode *n = srt_ynode_get(owner, key);
	const char *s = srt_ynode_str(n);

	if (s && !*s && n->kind == SRT_Y_SCALAR)
		vwarn(v, n, path,
		      "is empty, which srtctl (like srt-slurm) reads as not set: %s. Remove the "
		      "key or name an image",
		      fallback);
}

/* LEN bytes of A and the string B name one path, trailing slashes aside. */
static bool same_dir(const char *a, size_t len, const char *b)
{
	size_t blen = strlen(b);

	while (len > 1 && a[len - 1] == '/')
		len--;
	while (blen > 1 && b[blen - 1] == '/')
		blen--;
	return len == blen && !strncmp(a, b, len);
}

/*
 * A recipe mount at /model: srt-slurm keys its mounts by host path, so the
 * model's own path mounted there again is the model mount (public recipes do
 * it for a benchmark image that reads the tokenizer).  Another source would
 * hide the model from the workers.
 */
static void check_model_mounts(struct vctx *v)
{
	const struct srt_recipe *r = v->r;

	for (size_t i = 0; i < r->mounts.n; i++) {
		const char *spec = r->mounts.v[i].name;
		const char *colon = strchr(spec, ':');

		if (!colon || !srt_runplan_at_model_dir(colon + 1))
			continue;
		if (r->model.path && r->model.path[0] == '/' &&
		    same_dir(spec, (size_t)(colon - spec), r->model.path))
			continue;
		verr(v, r->mounts.v[i].node, r->mounts.v[i].value,
		     "'%s': srtctl mounts the model (model.path %s) at %s, and another source "
		     "there would hide it: choose another destination, or mount model.path "
		     "itself",
		     spec, r->model.path ? r->model.path : "(unset)", SRT_CONTAINER_MODEL_DIR);
	}
}

static void check_containers(struct vctx *v)
{
	const struct srt_recipe *r = v->r;
	static const char job[] = "the job container (model.container) is used instead";

	empty_container(v, srt_ynode_get(r->root, "model"), "container", "model.container",
			v->cl && v->cl->default_container ?
				srt_arena_printf(v->a,
						 "the job container is the cluster's "
						 "default_container (%s)",
						 v->cl->default_container) :
				"the processes run without a container unless they name their own");
	for (int k = 0; k < SRT_ROLE_COUNT; k++)
		if (r->roles[k].present)
			empty_container(v, r->roles[k].node, "container",
					srt_arena_printf(v->a, "roles.%s.container",
							 r->roles[k].name),
					job);
	for (size_t i = 0; i < r->nservices; i++)
		empty_container(v, r->services[i].node, "container",
				spath(v, &r->services[i], "container"),
				r->services[i].type == SRT_SVC_MOONCAKE_STORE ?
					"the mooncake-master's container, else the job container, "
					"is used instead" :
					job);
	empty_container(v, r->benchmark.node, "container_image", "benchmark.container_image", job);
}

/* vLLM: each role's connector must be one srtctl can give as --kv-transfer-config. */
/* An integer engine-YAML key of a TRT-LLM role's args (1 when absent); -1 if it is not one. */
static int64_t yaml_int(const struct srt_role *role, const char *key)
{
	const struct srt_ynode *n = role->args ? srt_ynode_get(role->args, key) : NULL;
	int64_t x = 1;

	if (n && (!srt_ynode_int(n, &x) || x < 1))
		return -1;
	return x;
}

/*
 * TRT-LLM runs each worker as one MPI step, one rank per GPU, and its
 * engine's world size (tensor x pipeline x context parallel) must be that
 * rank count; a multi-node worker's ranks split evenly over its nodes.
 */
static void check_trtllm(struct vctx *v)
{
	static const char *const sizes[] = { "tensor_parallel_size", "pipeline_parallel_size",
					     "context_parallel_size" };
	const struct srt_recipe *r = v->r;
	int gpn = r->resources.gpus_per_node > 0 ? r->resources.gpus_per_node : 4;

	if (r->engine != SRT_ENGINE_TRTLLM)
		return;
	for (int k = 0; k < SRT_ROLE_COUNT; k++) {
		const struct srt_role *role = &r->roles[k];
		const char *path = srt_arena_printf(v->a, "roles.%s.args", role->name);
		int nodes = role->nodes > 0 ? role->nodes : 1;
		int64_t ranks, world = 1;
		bool ok = true;

		if (!role->present || role->colocate)
			continue;
		ranks = role->gpus > 0 ? role->gpus : (int64_t)nodes * gpn / role->workers;
		if (ranks > gpn && ranks % gpn)
			verr(v, role->node, srt_arena_printf(v->a, "roles.%s.gpus", role->name),
			     "a TRT-LLM worker over several nodes runs the same number of MPI ranks "
			     "on each (one per GPU), so its %lld GPUs must be a multiple of "
			     "resources.gpus_per_node (%d)",
			     (long long)ranks, gpn);
		for (size_t i = 0; i < 3; i++) {
			int64_t x = yaml_int(role, sizes[i]);

			if (x < 0) {
				verr(v, srt_ynode_get(role->args, sizes[i]),
				     srt_arena_printf(v->a, "%s.%s", path, sizes[i]),
				     "must be a positive integer");
				ok = false;
			} else {
				world *= x;
			}
		}
		if (ok && world != ranks)
			verr(v, role->args ? role->args : role->node, path,
			     "tensor_parallel_size x pipeline_parallel_size x context_parallel_size "
			     "is %lld, but the worker runs %lld MPI ranks (one per GPU: %s); "
			     "TRT-LLM needs them equal: set roles.%s.gpus to %lld or change the "
			     "parallel sizes",
			     (long long)world, (long long)ranks,
			     role->gpus > 0 ? "roles.gpus" :
					      "its nodes' GPUs shared by its workers",
			     role->name, (long long)world);
	}
}

/* A role's GPUs per worker: its gpus, else its nodes' GPUs shared by its workers (0: do not divide). */
static int64_t worker_gpus(const struct srt_recipe *r, const struct srt_role *role)
{
	int64_t gpn = r->resources.gpus_per_node > 0 ? r->resources.gpus_per_node : 4;
	int64_t nodes = role->nodes > 0 ? role->nodes : 1;

	if (role->gpus > 0)
		return role->gpus;
	return role->workers > 0 && (nodes * gpn) % role->workers == 0 ?
		       nodes * gpn / role->workers :
		       0;
}

bool srt_recipe_parallel_fits(const struct srt_recipe *r, struct srt_arena *a, const char **why)
{
	for (int k = 0; k < SRT_ROLE_COUNT; k++) {
		const struct srt_role *role = &r->roles[k];
		int64_t gpus = worker_gpus(r, role), world = 1;

		if (!role->present || role->colocate || gpus <= 0)
			continue;
		if (r->engine == SRT_ENGINE_TRTLLM) {
			static const char *const sizes[] = { "tensor_parallel_size",
							     "pipeline_parallel_size",
							     "context_parallel_size" };

			for (size_t i = 0; i < 3 && world > 0 && world <= 65536; i++)
				world = yaml_int(role, sizes[i]) < 0 ?
						-1 :
						world * yaml_int(role, sizes[i]);
			if (world > 0 && world != gpus) {
				*why = srt_arena_printf(
					a,
					"%s: TRT-LLM world %lld (tensor x pipeline x context parallel) "
					"on %lld MPI ranks",
					role->name, (long long)world, (long long)gpus);
				return false;
			}
		} else if (r->engine == SRT_ENGINE_VLLM) {
			static const char *const sizes[] = { "data-parallel-size",
							     "tensor-parallel-size",
							     "pipeline-parallel-size",
							     "prefill-context-parallel-size" };
			int64_t dp = role_int(role, sizes[0], 1);

			for (size_t i = 0; i < 4 && world > 0 && world <= 65536; i++) {
				int64_t x = role_int(role, sizes[i], 1);

				world = x < 1 ? -1 : world * x;
			}
			if (world > gpus ||
			    (world > 0 && dp > 1 && world != gpus &&
			     (!r->frontend.type || strcmp(r->frontend.type, "vllm")))) {
				*why = srt_arena_printf(
					a,
					"%s: vLLM world %lld (data x tensor x pipeline x prefill context "
					"parallel) on %lld GPUs",
					role->name, (long long)world, (long long)gpus);
				return false;
			}
		}
	}
	return true;
}

/* The first of `names` (dash or underscore spelling) in the role's args as an integer; 1 if absent, -1 if not one. */
static int64_t arg_int(const struct srt_role *role, const char *const *names)
{
	for (size_t i = 0; role->args && role->args->kind == SRT_Y_MAP && i < role->args->n; i++) {
		const struct srt_ypair *p = &role->args->pairs[i];
		int64_t x;

		for (size_t k = 0; names[k]; k++)
			if (srt_str_eq_dashes(p->key->str, names[k]))
				return srt_ynode_int(p->value, &x) && x >= 1 ? x : -1;
	}
	return 1;
}

/*
 * SGLang and vLLM: a worker's tensor x pipeline parallel ranks need that
 * many GPUs, and it has its nodes' GPUs (shared by its workers) or
 * roles.gpus.  srt-slurm submits such a recipe and the engine fails at
 * start; srtctl says so before (a warning: the engine decides).
 */
static void check_engine_fit(struct vctx *v)
{
	static const char *const tp_names[] = { "tensor-parallel-size", "tp-size", "tp", NULL };
	static const char *const pp_names[] = { "pipeline-parallel-size", "pp-size", "pp", NULL };
	const struct srt_recipe *r = v->r;
	int gpn = r->resources.gpus_per_node > 0 ? r->resources.gpus_per_node : 4;

	if (r->engine != SRT_ENGINE_SGLANG && r->engine != SRT_ENGINE_VLLM)
		return;
	for (int k = 0; k < SRT_ROLE_COUNT; k++) {
		const struct srt_role *role = &r->roles[k];
		int nodes = role->nodes > 0 ? role->nodes : 1;
		int64_t tp = arg_int(role, tp_names), pp = arg_int(role, pp_names), gpus;

		if (!role->present || role->colocate || tp < 1 || pp < 1 || role->workers < 1)
			continue;
		gpus = role->gpus > 0 ? role->gpus : (int64_t)nodes * gpn / role->workers;
		if (tp * pp > gpus)
			vwarn(v, role->args ? role->args : role->node,
			      srt_arena_printf(v->a, "roles.%s.args", role->name),
			      "tensor parallel %lld x pipeline parallel %lld needs %lld GPUs, but "
			      "each %s worker has %lld (%s); %s will fail to start. Give the role "
			      "more nodes or GPUs, or lower the parallel sizes",
			      (long long)tp, (long long)pp, (long long)(tp * pp), role->name,
			      (long long)gpus,
			      role->gpus > 0 ?
				      "roles.gpus" :
				      srt_arena_printf(v->a,
						       "%d node(s) x %d GPUs over %d worker(s)",
						       nodes, gpn, role->workers),
			      srt_engine_name(r->engine));
	}
}

static void check_connectors(struct vctx *v)
{
	const struct srt_recipe *r = v->r;

	for (int k = 0; k < SRT_ROLE_COUNT; k++) {
		const struct srt_role *ro = &r->roles[k];
		const struct srt_ypair *own = NULL;
		const char *bad;

		if (!ro->present || r->engine != SRT_ENGINE_VLLM)
			continue;
		srt_launch_vllm_connector(r, (enum srt_role_kind)k, &bad);
		if (!bad)
			continue;
		for (size_t i = 0; ro->args && ro->args->kind == SRT_Y_MAP && i < ro->args->n; i++)
			if (srt_str_eq_dashes(ro->args->pairs[i].key->str, "connector"))
				own = &ro->args->pairs[i];
		verr(v, own ? own->value : r->connector,
		     own ? srt_arena_printf(v->a, "roles.%s.args.%s", ro->name, own->key->str) :
			   "engine.connector",
		     "connector '%s' is not one srtctl can pass: write nixl, lmcache, lmcache-mp, "
		     "kvbm, none, a JSON object, or roles.%s.args.kv-transfer-config (moriio needs "
		     "router wiring srtctl does not have)",
		     bad, ro->name);
	}
}

/*
 * roles.<role>.kv_events reaches SGLang's workers (any frontend) and
 * dynamo.vllm's, as srt-slurm renders it; srt-slurm refuses it on TRT-LLM
 * and passes it to no `vllm serve` worker (only llm-d's, which srtctl does
 * not run).
 */
static void check_kv_events(struct vctx *v)
{
	const struct srt_recipe *r = v->r;
	bool dyn = r->frontend.type && !strcmp(r->frontend.type, "dynamo");

	for (int k = 0; k < SRT_ROLE_COUNT; k++) {
		const struct srt_role *ro = &r->roles[k];
		const char *path = srt_arena_printf(v->a, "roles.%s.kv_events", ro->name);
		const struct srt_ynode *at = srt_ynode_get(ro->node, "kv_events");

		if (!ro->present || !ro->kv_events)
			continue;
		if (r->engine == SRT_ENGINE_TRTLLM)
			verr(v, at, path,
			     "roles.%s.kv_events is not supported by the trtllm engine", ro->name);
		else if (r->engine == SRT_ENGINE_MOCKER)
			vwarn(v, at, path,
			      "srtctl passes kv_events to SGLang and Dynamo's vLLM workers, not to "
			      "dynamo.mocker; ignored");
		else if (r->engine == SRT_ENGINE_VLLM && !dyn)
			vwarn(v, at, path,
			      "srt-slurm and srtctl pass kv_events to vLLM only under the Dynamo "
			      "frontend (dynamo.vllm), not to `vllm serve` workers; ignored (put "
			      "--kv-events-config in roles.%s.args to publish anyway)",
			      ro->name);
	}
}

/*
 * setup_script lives in srt-slurm's configs/: without srtctl_root, srtctl
 * cannot mount it, and the workers find it only if their image has it.
 */
static void check_setup_script(struct vctx *v)
{
	if (!v->r->setup_script || (v->cl && v->cl->srtctl_root))
		return;
	vwarn(v, srt_ynode_get(v->r->root, "setup_script"), "setup_script",
	      "srt-slurm runs '%s' from its configs/ directory (/configs/%s), and srtslurm.yaml "
	      "has no srtctl_root (the srt-slurm checkout) to find it in: set srtctl_root, or "
	      "each worker looks for /configs/%s in its image and starts without it when it is "
	      "not there",
	      v->r->setup_script, v->r->setup_script, v->r->setup_script);
}

/*
 * dynamo.install: the Dynamo frontend and its workers install Dynamo in
 * their containers (render.c).  srtctl builds no Dynamo from source, and
 * installs none outside a container: both are said, with what to do.
 */
static void check_dynamo_install(struct vctx *v)
{
	const struct srt_recipe *r = v->r;
	const struct srt_ynode *at = r->dynamo.node;

	if (srt_launch_frontend_kind(r, NULL) != SRT_FE_DYNAMO ||
	    r->dynamo.from == SRT_DYNAMO_FROM_NONE)
		return;
	if (r->dynamo.from == SRT_DYNAMO_FROM_GIT ||
	    r->dynamo.from == SRT_DYNAMO_FROM_TOP_OF_TREE) {
		vwarn(v, at, "dynamo",
		      "srt-slurm builds Dynamo from source here (%s%s); srtctl builds nothing, so "
		      "the processes run the Dynamo their image holds: use an image with it and set "
		      "dynamo.install: false, or install a release (dynamo.source.pypi or .wheel)",
		      r->dynamo.from == SRT_DYNAMO_FROM_GIT ? "commit " : "top_of_tree",
		      r->dynamo.from == SRT_DYNAMO_FROM_GIT ? r->dynamo.version : "");
		return;
	}
	if (r->dynamo.install_written && v->cl && v->cl->container_runtime != SRT_CRT_PYXIS)
		vwarn(v, at, "dynamo",
		      "Dynamo %s is installed in each container before its process starts, and "
		      "this cluster runs no containers (runtime.container_runtime): srtctl installs "
		      "nothing on the nodes, so their python3 must hold Dynamo (set "
		      "dynamo.install: false to say so)",
		      r->dynamo.version);
}

void srt_recipe_validate(const struct srt_recipe *r, const struct srt_cluster *cluster,
			 struct srt_diags *diags)
{
	struct vctx v = { r, cluster, diags, &r->doc->arena };

	check_roles(&v);
	check_services(&v);
	check_role_env(&v, srt_recipe_master(r) != NULL);
	check_kv_events(&v);
	check_benchmark(&v);
	check_frontend(&v);
	check_connectors(&v);
	check_engine_fit(&v);
	check_trtllm(&v);
	srt_mcclient_check(r, srt_launch_served_name(v.a, r), v.a, diags);
	check_containers(&v);
	check_model_mounts(&v);
	check_setup_script(&v);
	check_dynamo_install(&v);
	if (cluster && cluster->container_runtime == SRT_CRT_PYXIS &&
	    !(r->model.container && *r->model.container)) {
		for (int k = 0; k < SRT_ROLE_COUNT; k++)
			if (r->roles[k].present &&
			    !(r->roles[k].container && *r->roles[k].container))
				verr(&v, r->roles[k].node,
				     srt_arena_printf(v.a, "roles.%s", r->roles[k].name),
				     "the cluster runs containers (pyxis) but this role has no image: "
				     "set model.container or roles.%s.container",
				     r->roles[k].name);
	}
}
