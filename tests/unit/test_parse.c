/* tests/unit/test_parse.c: the recipe model's defaults and typing (recipe/parse.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipe/compile.h"

static const struct srt_recipe *compile(const char *yaml, struct srt_compiled *comp,
					struct srt_diags *d)
{
	struct srt_cluster cluster;

	srt_cluster_defaults(&cluster);
	srt_diags_init(d);
	if (srt_compile_bytes(yaml, strlen(yaml), "dir/my-recipe.yaml", &cluster, comp, d)) {
		srt_diags_print(d, stderr);
		fail_msg("recipe did not compile");
	}
	assert_int_equal(comp->n, 1);
	return comp->recipes[0];
}

static void test_defaults(void **state)
{
	struct srt_compiled comp;
	struct srt_diags d;
	const struct srt_recipe *r =
		compile("engine: sglang\nroles:\n  prefill:\n    args:\n"
			"      disaggregation-transfer-backend: mooncake\n  decode:\n    args:\n"
			"      disaggregation-transfer-backend: mooncake\n"
			"services:\n  - name: mooncake-master\n    type: mooncake-master\n"
			"  - name: side\n    command: [sleep, '10']\n",
			&comp, &d);
	const struct srt_service *m, *g;

	(void)state;
	assert_string_equal(r->name, "my-recipe"); /* the file's stem */
	assert_int_equal(r->engine, SRT_ENGINE_SGLANG);
	assert_int_equal(r->resources.gpus_per_node, 4);
	assert_true(r->roles[SRT_ROLE_PREFILL].present);
	assert_false(r->roles[SRT_ROLE_AGG].present);
	assert_int_equal(r->roles[SRT_ROLE_PREFILL].workers, 1);
	assert_int_equal(r->roles[SRT_ROLE_PREFILL].nodes, -1);
	assert_int_equal(r->roles[SRT_ROLE_PREFILL].restart.mode, SRT_RESTART_ON_FAILURE);
	assert_int_equal(r->roles[SRT_ROLE_PREFILL].restart.max_restarts, 5);
	assert_string_equal(r->frontend.type, "none");
	assert_string_equal(r->benchmark.type, "manual");
	assert_int_equal(r->nservices, 2);
	m = srt_recipe_master(r);
	assert_ptr_equal(m, &r->services[0]);
	assert_int_equal(m->placement, SRT_PLACE_INFRA);
	assert_int_equal(m->start, SRT_START_BEFORE_WORKERS);
	assert_true(m->critical);
	assert_int_equal(m->readiness.nprobes, 3);
	assert_int_equal(m->readiness.probes[0].kind, SRT_PROBE_TCP);
	assert_int_equal(m->readiness.probes[0].port, 8700);
	assert_int_equal(m->readiness.probes[1].port, 8701);
	assert_int_equal(m->readiness.probes[2].kind, SRT_PROBE_HTTP);
	assert_int_equal(m->readiness.probes[2].port, 8702);
	assert_string_equal(m->readiness.probes[2].path, "/health");
	assert_int_equal(m->readiness.timeout_seconds, 120);
	assert_int_equal(m->readiness.interval_seconds, 2);
	g = &r->services[1];
	assert_int_equal(g->type, SRT_SVC_GENERIC);
	assert_int_equal(g->placement, SRT_PLACE_HEAD);
	assert_int_equal(g->start, SRT_START_AFTER_FRONTEND);
	assert_false(g->critical);
	assert_int_equal(g->command.n, 2);
	assert_string_equal(g->command.v[1], "10");
	srt_compiled_release(&comp);
	srt_diags_release(&d);
}

static void test_values(void **state)
{
	struct srt_compiled comp;
	struct srt_diags d;
	const struct srt_recipe *r = compile(
		"name: n1\nschema: 2\nengine: {type: vllm}\n"
		"model: {path: /m, container: img, precision: fp8}\n"
		"resources: {gpu_type: h100, gpus_per_node: 8}\n"
		"slurm: {account: acct, partition: p, time_limit: '01:00:00', directives: {requeue: ''}}\n"
		"sbatch_directives: {mem: 0}\n"
		"environment: {A: 1, B: true, C: 'x y'}\n"
		"roles:\n  agg:\n    nodes: 2\n    workers: 4\n    gpus: 4\n    container: c2\n"
		"    env: {N: 01}\n"
		"    args: {kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\"}'}\n"
		"    extra_args: [--x, '1']\n    restart: {policy: always, max_restarts: 2}\n"
		"services:\n  - name: m\n    type: mooncake-master\n    placement: {node: dedicated}\n"
		"    external: 10.0.0.5:8700\n    readiness: {timeout_seconds: 30}\n    options:\n"
		"      store_config: {protocol: tcp}\n"
		"  - name: s\n    type: mooncake-store\n    readiness: {http: {port: 8800}}\n"
		"    restart: never\n"
		"profiling: null\n",
		&comp, &d);
	const struct srt_role *agg;

	(void)state;
	assert_string_equal(r->name, "n1");
	assert_int_equal(r->schema, 2);
	assert_int_equal(r->engine, SRT_ENGINE_VLLM);
	assert_string_equal(r->model.container, "img");
	assert_int_equal(r->resources.gpus_per_node, 8);
	assert_string_equal(r->slurm.time_limit, "01:00:00");
	assert_int_equal(r->slurm.directives.n, 2);
	assert_string_equal(r->slurm.directives.v[0].name, "requeue");
	assert_string_equal(r->slurm.directives.v[0].value, "");
	assert_string_equal(r->slurm.directives.v[1].name, "mem");
	assert_string_equal(srt_env_get(&r->environment, "A"), "1");
	assert_string_equal(srt_env_get(&r->environment, "B"), "true");
	agg = &r->roles[SRT_ROLE_AGG];
	assert_int_equal(agg->nodes, 2);
	assert_int_equal(agg->workers, 4);
	assert_int_equal(agg->gpus, 4);
	/* env values keep their written text */
	assert_string_equal(srt_env_get(&agg->env, "N"), "01");
	assert_int_equal(agg->extra_args.n, 2);
	assert_int_equal(agg->restart.mode, SRT_RESTART_ALWAYS);
	assert_int_equal(agg->restart.max_restarts, 2);
	assert_int_equal(agg->restart.backoff_seconds, 1);
	assert_string_equal(r->services[0].external_host, "10.0.0.5");
	assert_int_equal(r->services[0].external_port, 8700);
	assert_int_equal(r->services[0].placement, SRT_PLACE_DEDICATED);
	assert_int_equal(r->services[0].readiness.timeout_seconds, 30);
	assert_non_null(r->services[0].store_config);
	assert_int_equal(r->services[1].placement, SRT_PLACE_WORKERS);
	assert_int_equal(r->services[1].readiness.probes[0].kind, SRT_PROBE_HTTP);
	assert_string_equal(r->services[1].readiness.probes[0].path, "/health");
	assert_int_equal(r->services[1].restart.mode, SRT_RESTART_NEVER);
	/* the unknown top-level key is kept and warned about */
	assert_int_equal(r->nunsupported, 1);
	assert_int_equal(d.nwarnings, 1);
	srt_compiled_release(&comp);
	srt_diags_release(&d);
}

/* extra_mount and container_mounts: pyxis's SRC:DST[:FLAGS], in srt-slurm's order. */
static void test_mounts(void **state)
{
	static const struct {
		const char *body, *msg; /* msg: the first diagnostic, NULL for none */
		int errors;
	} bad[] = {
		{ "extra_mount: ['/a:b']\n",
		  "r.yaml:1:15: extra_mount[0]: '/a:b': the destination must be an absolute path in "
		  "the container",
		  1 },
		{ "extra_mount: ['/a,b:/c']\n",
		  "r.yaml:1:15: extra_mount[0]: '/a,b:/c': a mount is SOURCE:DESTINATION[:FLAGS], "
		  "each part non-empty, without ',' (pyxis separates mounts with it) or control "
		  "characters",
		  1 },
		{ "extra_mount: ['/a']\n",
		  "r.yaml:1:15: extra_mount[0]: '/a': a mount is SOURCE:DESTINATION[:FLAGS], each part "
		  "non-empty, without ',' (pyxis separates mounts with it) or control characters",
		  1 },
		{ "container_mounts: {/a: /logs}\n",
		  "r.yaml:1:24: container_mounts./a: '/a: /logs': srtctl mounts the log directory at "
		  "/logs; choose another destination",
		  1 },
		{ "extra_mount: ['/a:/b:ro+zz']\n",
		  "r.yaml:1:15: extra_mount[0]: '/a:/b:ro+zz': unknown mount flag: pyxis takes ro, rw, "
		  "private, rprivate, slave, rslave, shared, rshared, nosuid, nodev, noexec, bind, "
		  "rbind (joined with '+')",
		  1 },
		/* a tmpfs: pyxis passes its options to enroot (no flag check, no warning) */
		{ "extra_mount: ['tmpfs:/dev/shm:size=100%']\n", NULL, 0 },
		{ "extra_mount: ['tmpfs:shm:size=1g']\n",
		  "r.yaml:1:15: extra_mount[0]: 'tmpfs:shm:size=1g': the destination must be an "
		  "absolute path in the container",
		  1 },
		{ "extra_mount: {a: b}\n",
		  "r.yaml:1:14: extra_mount: must be a list, not a mapping", 1 },
		{ "extra_mount: ['<FILL_ME>/m:/m']\n",
		  "r.yaml:1:15: warning: extra_mount[0]: '<FILL_ME>/m' is not an absolute host path (a "
		  "placeholder to fill in, or an environment variable that is not set?); pyxis will "
		  "fail to mount it if the node has no such path",
		  0 },
	};
	const char *base = "engine: sglang\nroles:\n  agg: {args: {tp: 1}}\n";
	struct srt_compiled comp;
	struct srt_diags d;
	const struct srt_recipe *r;
	char yaml[512];

	(void)state;
	snprintf(yaml, sizeof(yaml),
		 "extra_mount: ['/l:/l', '/d:/d:ro']\n"
		 "container_mounts: {/x/y: /work}\n%s",
		 base);
	r = compile(yaml, &comp, &d);
	assert_int_equal(d.n, 0);
	assert_int_equal(r->mounts.n, 3);
	assert_string_equal(r->mounts.v[0].name, "/l:/l");
	assert_string_equal(r->mounts.v[1].name, "/d:/d:ro");
	assert_string_equal(r->mounts.v[2].name, "/x/y:/work");
	srt_compiled_release(&comp);
	srt_diags_release(&d);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct srt_cluster cl;
		char *msg;

		snprintf(yaml, sizeof(yaml), "%s%s", bad[i].body, base);
		srt_cluster_defaults(&cl);
		srt_diags_init(&d);
		r = srt_compile_bytes(yaml, strlen(yaml), "r.yaml", &cl, &comp, &d) == 0 ?
			    comp.recipes[0] :
			    NULL;
		if (!bad[i].msg) {
			if (d.n || !r || r->mounts.n != 1)
				fail_msg("case %zu: %zu diagnostics, expected none", i, d.n);
			srt_compiled_release(&comp);
			srt_diags_release(&d);
			continue;
		}
		assert_true(d.n > 0);
		msg = srt_diag_format(&d.items[0]);
		if ((int)d.nerrors != bad[i].errors || strcmp(msg, bad[i].msg))
			fail_msg("case %zu: %zu errors; first: %s", i, d.nerrors, msg);
		free(msg);
		srt_compiled_release(&comp);
		srt_diags_release(&d);
	}
}

static void test_stem(void **state)
{
	static const struct {
		const char *path, *stem;
	} cases[] = {
		{ "a/b/c.yaml", "c" }, { "c.yml", "c" },    { "x.json", "x.json" },
		{ "-", "stdin" },      { "dir.v1/r", "r" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = srt_file_stem(cases[i].path);

		assert_string_equal(s, cases[i].stem);
		free(s);
	}
}

/*
 * Keys srtctl does not take: the ones srt-slurm accepts are kept with one
 * warning each, the others are errors.  `body` is added to a valid recipe;
 * `want` is the first diagnostic, as printed.
 */
static const struct {
	const char *body;
	size_t nerrors, nwarnings;
	const char *want;
} key_cases[] = {
	{ "frontend:\n  worker_selection: {a: 1}\n", 0, 1,
	  "r.yaml:12:3: warning: frontend.worker_selection: 'worker_selection' is a srt-slurm "
	  "setting srtctl does not use; ignored (kept in the spec)" },
	{ "frontend:\n  ctx_router: {a: 1}\n", 0, 1,
	  "r.yaml:12:3: warning: frontend.ctx_router: only trtllm_serve's orchestrator (TRT-LLM "
	  "prefill/decode workers) reads it; ignored" },
	{ "frontend:\n  nginx_container: nginx\n", 0, 1,
	  "r.yaml:12:3: warning: frontend.nginx_container: applies only with "
	  "frontend.enable_multiple_frontends: true (nginx in front of several frontends); without "
	  "it srtctl runs one frontend and no nginx, as srt-slurm does with it false" },
	{ "frontend:\n  dedicated_node: true\n", 0, 1,
	  "r.yaml:12:3: warning: frontend.dedicated_node: 'frontend.dedicated_node' (v1) is not "
	  "supported by srtctl: the frontend runs on the head node; ignored (kept in the spec for "
	  "srt-slurm)" },
	{ "frontend:\n  tpye: dynamo\n", 1, 0,
	  "r.yaml:12:3: frontend.tpye: unknown key 'tpye'; did you mean 'type'?" },
	{ "benchmark:\n  type: sa-bench\n  command: run\n  reuse_http_connections: true\n"
	  "  slow_down_sleep_time: 1\n  colocate_with_frontend: true\n",
	  0, 3,
	  "r.yaml:14:3: warning: benchmark.reuse_http_connections: 'reuse_http_connections' is a "
	  "srt-slurm setting srtctl does not use; ignored (kept in the spec)" },
	{ "benchmark:\n  command: run\n  placement: {node: dedicated}\n", 0, 1,
	  "r.yaml:13:3: warning: benchmark.placement: 'benchmark.placement' is not supported by "
	  "srtctl: the benchmark runs on the head node; ignored (kept in the spec for srt-slurm)" },
	{ "benchmark:\n  command: run\n  concurency: 4\n", 1, 0,
	  "r.yaml:13:3: benchmark.concurency: unknown key 'concurency'; did you mean "
	  "'concurrency'?" },
	{ "model:\n  path: /m\n  stage_dir: /raid\n", 0, 1,
	  "r.yaml:13:3: warning: model.stage_dir: 'model.stage_dir' (staging to node-local disk) "
	  "is not supported by srtctl; ignored (kept in the spec for srt-slurm)" },
	{ "resources:\n  het_jobs: true\n", 0, 1,
	  "r.yaml:12:3: warning: resources.het_jobs: heterogeneous jobs ('het_jobs') are not "
	  "supported by srtctl; ignored (kept in the spec for srt-slurm)" },
	{ "resources:\n  prefill_nodes: 1\n", 1, 0,
	  "r.yaml:12:3: resources.prefill_nodes: 'resources.prefill_nodes' is the v1 layout; write "
	  "roles.prefill.nodes (srtctl migrate rewrites it)" },
	{ "health_check: {max_attempts: 5}\nidentity: {model: {repo: x}}\n", 0, 1,
	  "r.yaml:12:1: warning: identity: 'identity' is not supported by srtctl and is "
	  "ignored" },
	{ "health_check: {interval_seconds: 5, extra_fatal_log_patterns: ['boom']}\n", 0, 1,
	  "r.yaml:11:37: warning: health_check.extra_fatal_log_patterns: srtctl does not scan "
	  "worker logs: a worker fails when its process exits or it is not ready within "
	  "max_attempts x interval_seconds; ignored (kept in the spec for srt-slurm)" },
	{ "health_check: {fatal_log_markers: true}\n", 0, 1,
	  "r.yaml:11:35: warning: health_check.fatal_log_markers: srtctl does not scan worker "
	  "logs for fatal lines: a worker fails when its process exits (every rank of a "
	  "multi-node worker is watched) or it is not ready within max_attempts x "
	  "interval_seconds; ignored" },
	{ "health_check: {fatal_log_markers: false, max_attempts: 0}\n", 1, 0,
	  "r.yaml:11:56: health_check.max_attempts: must be between 1 and 1000000, not 0" },
	{ "health_check: {max_attemps: 5}\n", 1, 0,
	  "r.yaml:11:16: health_check.max_attemps: unknown key 'max_attemps'; did you mean "
	  "'max_attempts'?" },
	{ "frontend:\n  enable_multiple_frontends: yes please\n", 1, 0,
	  "r.yaml:12:30: frontend.enable_multiple_frontends: must be true or false, not a string" },
	{ "frontend:\n  enable_multiple_frontends: true\n  nginx_keepalive_timeout: 10 minutes\n",
	  1, 0,
	  "r.yaml:13:28: frontend.nginx_keepalive_timeout: '10 minutes' is not an nginx time: write "
	  "a number with an optional unit (ms, s, m, h, d), e.g. 600s" },
	{ "frontend:\n  enable_multiple_frontends: true\n  nginx_session_affinity_header: 'a b'\n",
	  1, 0,
	  "r.yaml:13:34: frontend.nginx_session_affinity_header: 'a b' is not an HTTP header name "
	  "nginx can hash (letters, digits and '-', at most 64), e.g. X-Dynamo-Session-ID" },
	{ "frontend:\n  num_additional_frontends: -1\n", 1, 1,
	  "r.yaml:12:29: frontend.num_additional_frontends: must be between 0 and 1023, not -1" },
	/* unknown to both: srtctl's keys listed; a near miss of srt-slurm's key suggested */
	{ "frontend:\n  zzzqqq: 1\n", 1, 0,
	  "r.yaml:12:3: frontend.zzzqqq: unknown key 'zzzqqq'; srtctl reads type, command, args, "
	  "env, port, ctx_router, gen_router, server_config_extra, enable_multiple_frontends, "
	  "num_additional_frontends, nginx_container, nginx_raise_ulimit, nginx_session_affinity, "
	  "nginx_session_affinity_header, nginx_keepalive_timeout, container_image here, and keeps (ignoring them) the other keys srt-slurm's schema has here" },
	{ "frontend:\n  nginx_containr: x\n", 1, 0,
	  "r.yaml:12:3: frontend.nginx_containr: unknown key 'nginx_containr'; did you mean "
	  "'nginx_container'?" },
	/* use_nginx: a key of srt-slurm's v1-era frontend stage (not in the 2.0 schema) */
	{ "frontend:\n  use_nginx: false\n", 0, 1,
	  "r.yaml:12:3: warning: frontend.use_nginx: several frontends without nginx (use_nginx: "
	  "false) are not run; srtctl runs nginx in front of them (enable_multiple_frontends: "
	  "true) or one frontend; ignored (kept in the spec for srt-slurm)" },
	/* false is what srtctl does: no warning, so the first line >= 11 is the error */
	{ "frontend:\n  enable_multiple_frontends: false\n  typ: x\n", 1, 0,
	  "r.yaml:13:3: frontend.typ: unknown key 'typ'; did you mean 'type'?" },
	{ "heath_check: {max_attempts: 5}\n", 1, 0,
	  "r.yaml:11:1: heath_check: unknown top-level key 'heath_check'; did you mean "
	  "'health_check'?" },
	{ "frobnicate: 1\n", 1, 0,
	  "r.yaml:11:1: frobnicate: unknown top-level key 'frobnicate': neither srtctl nor "
	  "srt-slurm reads it (see docs/recipe-reference.md for the sections)" },
	{ "infra: {etcd_nats_dedicated_node: true}\n", 0, 1,
	  "r.yaml:11:1: warning: infra: 'infra' is not supported by srtctl and is ignored" },
};

#define KEY_BASE                                                                                \
	"engine: sglang\nroles:\n  agg:\n    nodes: 1\n    args: {tp: 4}\n"                     \
	"services:\n  - name: s\n    command: [sleep, '1']\n    options: {max_payload_mb: 8}\n" \
	"    srun_options: {x: 1}\n"

static void test_schema_keys(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(key_cases) / sizeof(key_cases[0]); i++) {
		char yaml[2048];
		struct srt_cluster cluster;
		struct srt_compiled comp;
		struct srt_diags d;
		size_t base_warnings = 2; /* the service's options.max_payload_mb, srun_options */
		char *msg = NULL;

		snprintf(yaml, sizeof(yaml), "%s%s", KEY_BASE, key_cases[i].body);
		srt_cluster_defaults(&cluster);
		srt_diags_init(&d);
		srt_compile_bytes(yaml, strlen(yaml), "r.yaml", &cluster, &comp, &d);
		for (size_t k = 0; k < d.n && !msg; k++) {
			char *m = srt_diag_format(&d.items[k]);

			if (d.items[k].line >= 11)
				msg = m;
			else
				free(m);
		}
		if (d.nerrors != key_cases[i].nerrors ||
		    d.nwarnings != key_cases[i].nwarnings + base_warnings || !msg ||
		    strcmp(msg, key_cases[i].want)) {
			srt_diags_print(&d, stderr);
			fail_msg("case %zu: %zu errors, %zu warnings; first: %s", i, d.nerrors,
				 d.nwarnings, msg ? msg : "(none)");
		}
		/* A kept key stays in the spec: the tree is not changed. */
		if (!key_cases[i].nerrors)
			assert_int_equal(comp.n, 1);
		free(msg);
		srt_compiled_release(&comp);
		srt_diags_release(&d);
	}
}

/* srt-slurm reads decode `nodes: 0` (the v1 sentinel) as colocate; only on decode. */
static void test_decode_nodes_zero(void **state)
{
	static const struct {
		const char *yaml;
		size_t nerrors;
		const char *first;
	} cases[] = {
		{ "engine: sglang\nroles:\n  prefill: {nodes: 1, gpus: 1}\n"
		  "  decode: {nodes: 0, gpus: 1}\n",
		  0,
		  "r.yaml:4:19: warning: roles.decode.nodes: 0 is the v1 way to write 'colocate'; "
		  "write 'nodes: colocate'" },
		{ "engine: sglang\nroles:\n  prefill: {nodes: 0}\n  decode: {nodes: 1}\n", 1,
		  "r.yaml:3:20: roles.prefill.nodes: must be between 1 and 16384, not 0" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct srt_cluster cluster;
		struct srt_compiled comp;
		struct srt_diags d;
		char *msg;

		srt_cluster_defaults(&cluster);
		srt_diags_init(&d);
		srt_compile_bytes(cases[i].yaml, strlen(cases[i].yaml), "r.yaml", &cluster, &comp,
				  &d);
		assert_true(d.n >= 1);
		msg = srt_diag_format(&d.items[0]);
		if (d.nerrors != cases[i].nerrors || strcmp(msg, cases[i].first)) {
			srt_diags_print(&d, stderr);
			fail_msg("case %zu: %zu errors; first: %s", i, d.nerrors, msg);
		}
		if (!cases[i].nerrors) {
			assert_int_equal(comp.n, 1);
			assert_true(comp.recipes[0]->roles[SRT_ROLE_DECODE].colocate);
		}
		free(msg);
		srt_compiled_release(&comp);
		srt_diags_release(&d);
	}
}

/*
 * srt-slurm forms at the top level: a sweep is refused (it would run once
 * with its {placeholders} left in); `backend: {type: X}` beside roles (early
 * schema-2 examples) is read as the engine, anything more in backend is the
 * v1 layout; a v1 benchmark key (tokenizer_mode) is kept with a warning.
 */
static void test_srt_slurm_forms(void **state)
{
	static const struct {
		const char *yaml;
		size_t nerrors, nwarnings;
		const char *first;
		const char *engine; /* when it compiles */
	} cases[] = {
		{ "engine: sglang\nroles:\n  agg: {args: {max-running-requests: '{conc}'}}\n"
		  "sweep: {conc: [1, 2]}\n",
		  1, 0,
		  "r.yaml:4:1: sweep: srtctl runs a sweep as a campaign: srt-slurm submits one job "
		  "per combination of the 'sweep' values, and this recipe alone would run once with "
		  "its {placeholders} left in. Write the campaign with: srtctl migrate -f r.yaml -o "
		  "r.campaign.yaml, then apply that file",
		  NULL },
		{ "schema: 2\nbackend: {type: vllm}\nroles:\n  agg: {}\n", 0, 1,
		  "r.yaml:2:1: warning: backend: 'backend: {type: ...}' beside roles is read as "
		  "'engine'; write 'engine: vllm' instead",
		  "vllm" },
		{ "engine: sglang\nbackend: {type: vllm}\nroles:\n  agg: {}\n", 1, 0,
		  "r.yaml:2:1: backend: 'backend' is the v1 layout and cannot be mixed with "
		  "engine/roles; move its settings to engine and roles.<role> (srtctl migrate does "
		  "it for v1 files)",
		  NULL },
		/* and then no engine: a second error */
		{ "backend: {type: sglang, sglang_config: {}}\nroles:\n  agg: {}\n", 2, 0,
		  "r.yaml:1:1: backend: 'backend' is the v1 layout and cannot be mixed with "
		  "engine/roles; move its settings to engine and roles.<role> (srtctl migrate does "
		  "it for v1 files)",
		  NULL },
		{ "engine: vllm\nroles:\n  agg: {}\nbenchmark: {type: manual, tokenizer_mode: auto}\n",
		  0, 1, NULL, "vllm" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct srt_cluster cluster;
		struct srt_compiled comp;
		struct srt_diags d;
		char *msg;
		int rc;

		srt_cluster_defaults(&cluster);
		srt_diags_init(&d);
		rc = srt_compile_bytes(cases[i].yaml, strlen(cases[i].yaml), "r.yaml", &cluster,
				       &comp, &d);
		msg = d.n ? srt_diag_format(&d.items[0]) : NULL;
		if (d.nerrors != cases[i].nerrors || d.nwarnings != cases[i].nwarnings ||
		    (cases[i].first && (!msg || strcmp(msg, cases[i].first)))) {
			srt_diags_print(&d, stderr);
			fail_msg("case %zu: %zu errors, %zu warnings; first: %s", i, d.nerrors,
				 d.nwarnings, msg ? msg : "(none)");
		}
		if (cases[i].engine) {
			assert_int_equal(rc, 0);
			assert_int_equal(comp.n, 1);
			assert_string_equal(comp.recipes[0]->engine_name, cases[i].engine);
		} else {
			assert_int_not_equal(rc, 0);
		}
		srt_compiled_release(&comp);
		free(msg);
		srt_diags_release(&d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_stem),
		cmocka_unit_test(test_mounts),
		cmocka_unit_test(test_schema_keys),
		cmocka_unit_test(test_decode_nodes_zero),
		cmocka_unit_test(test_srt_slurm_forms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
