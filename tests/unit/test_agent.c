/*
 * tests/unit/test_agent.c: the agent's pure parts and its process helpers.
 *
 * Plans come from real recipes (compile, srt_plan_build(), the JSON the
 * controller writes), are loaded and bound to made-up hosts and IPs, and
 * the tests check what the agent would run: substituted env (the master's
 * address, each worker's own IP), launch groups and stop tiers, followers,
 * the srun argv with and without pyxis, the Env: line, store_config.  The
 * restart policy is a table.  The process helpers run real commands.
 * tests/cli/test_agent.sh runs the whole agent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/agent.h"
#include "recipe/compile.h"
#include "recipe/render.h"
#include "recipe/script.h"

struct fx {
	struct srt_cluster cl;
	struct srt_compiled comp;
	struct srt_diags d;
	struct srt_runplan ap;
	const char *cmd_master[1], *cmd_store[2], *cmd_engine[2];
};

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	srt_cluster_defaults(&f->cl);
	srt_diags_init(&f->d);
	f->cmd_master[0] = "mooncake_master";
	f->cl.commands[SRT_CMD_MOONCAKE_MASTER] = (struct srt_argv){ f->cmd_master, 1 };
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	srt_runplan_release(&f->ap);
	srt_compiled_release(&f->comp);
	srt_diags_release(&f->d);
	free(f);
	return 0;
}

/* Compile yaml, build its plan, load it as the agent does (generation 5). */
static struct srt_runplan *load(struct fx *f, const char *yaml)
{
	struct srt_plan *p;
	struct srt_error err;
	json_t *j;

	srt_runplan_release(&f->ap);
	srt_compiled_release(&f->comp);
	if (srt_compile_bytes(yaml, strlen(yaml), "t.yaml", &f->cl, &f->comp, &f->d)) {
		srt_diags_print(&f->d, stdout);
		fail_msg("the test recipe does not compile");
	}
	p = srt_plan_build(f->comp.recipes[0], &f->cl, &f->d);
	assert_non_null(p);
	j = srt_runplan_to_json(&p->run);
	json_object_set_new(j, "generation", json_integer(5));
	srt_plan_free(p);
	if (srt_runplan_load(&f->ap, j, &err) < 0)
		fail_msg("load: %s", err.msg);
	json_decref(j);
	return &f->ap;
}

static void bind3(struct srt_runplan *p)
{
	const char *hosts[] = { "n1", "n2", "n3", "n4" };
	const char *ips[] = { "10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4" };
	struct srt_error err;

	if (srt_runplan_bind(p, hosts, ips, 4, "/runs/r1/logs", &err) < 0)
		fail_msg("bind: %s", err.msg);
}

static const char *env_of(const struct srt_runplan_proc *pr, const char *name)
{
	for (size_t i = 0; i < pr->nenv; i++)
		if (!strcmp(pr->env_names[i], name))
			return pr->env_values[i];
	return NULL;
}

static const char vllm_yaml[] =
	"name: v\n"
	"engine: vllm\n"
	"environment: {LITERAL: \"<log_dir>/x <infra_node_ip>\"}\n"
	"roles:\n"
	"  prefill:\n"
	"    args: {kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\"}'}\n"
	"  decode:\n"
	"    args: {kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\"}'}\n"
	"services:\n"
	"  - name: mooncake-master\n"
	"    type: mooncake-master\n"
	"    placement: {node: dedicated}\n"
	"    options:\n"
	"      store_config: {metadata_server: \"http://x:8701/metadata\", protocol: tcp}\n"
	"  - name: mooncake-store\n"
	"    type: mooncake-store\n"
	"benchmark:\n"
	"  type: custom\n"
	"  command: \"echo done\"\n";

static void test_vllm_plan_bound(void **state)
{
	struct fx *f = *state;
	struct srt_runplan *p;
	const struct srt_runplan_proc *m, *s1, *s2, *pw, *dw, *b;

	f->cmd_store[0] = "store";
	f->cl.commands[SRT_CMD_MOONCAKE_STORE] = (struct srt_argv){ f->cmd_store, 1 };
	f->cmd_engine[0] = "vllm";
	f->cl.commands[SRT_CMD_VLLM] = (struct srt_argv){ f->cmd_engine, 1 };
	p = load(f, vllm_yaml);
	assert_int_equal(p->generation, 5);
	assert_int_equal(p->nnodes, 3);
	assert_int_equal(p->infra, 2);
	assert_int_equal(p->nprocs, 6);
	bind3(p);
	assert_string_equal(p->infra_ip, "10.0.0.3");
	assert_null(p->frontend_url_ph); /* no frontend: none to report */
	assert_null(p->frontend_url);

	m = &p->procs[0];
	assert_string_equal(m->name, "mooncake-master");
	assert_string_equal(m->host, "n3");
	assert_string_equal(m->endpoint, "10.0.0.3:8700");
	assert_int_equal(m->nprobes, 3);
	assert_true(m->probes[2].http);
	assert_int_equal(m->probes[2].port, 8702);
	assert_int_equal(m->group, 0);
	assert_int_equal(m->tier, 2);

	/* One store per worker node, named and logged by the real hostname. */
	s1 = &p->procs[1];
	s2 = &p->procs[2];
	assert_string_equal(s1->name, "mooncake-store_n1");
	assert_string_equal(s1->log_file, "service_mooncake-store_n1.out");
	assert_string_equal(s2->name, "mooncake-store_n2");
	assert_string_equal(env_of(s2, "MOONCAKE_MASTER"), "10.0.0.3:8700");
	assert_string_equal(env_of(s2, "MOONCAKE_LOCAL_HOSTNAME"), "10.0.0.2");
	assert_string_equal(s1->follows, "mooncake-master");
	assert_int_equal(s1->group, 1);
	assert_int_equal(s1->tier, 1);

	pw = &p->procs[3];
	dw = &p->procs[4];
	assert_string_equal(pw->name, "prefill_0");
	assert_string_equal(env_of(pw, "MOONCAKE_MASTER"), "10.0.0.3:8700");
	assert_string_equal(env_of(pw, "MOONCAKE_TE_META_DATA_SERVER"),
			    "http://10.0.0.3:8701/metadata");
	assert_string_equal(env_of(pw, "MOONCAKE_LOCAL_HOSTNAME"), "10.0.0.1");
	assert_string_equal(env_of(dw, "MOONCAKE_LOCAL_HOSTNAME"), "10.0.0.2");
	assert_string_equal(env_of(dw, "MOONCAKE_CONFIG_PATH"),
			    "/runs/r1/logs/mooncake/store_config.json");
	/* A recipe value is never rewritten, placeholder-looking or not. */
	assert_string_equal(env_of(dw, "LITERAL"), "<log_dir>/x <infra_node_ip>");
	/* The stores have no readiness probes: the workers start with them. */
	assert_int_equal(pw->group, 1);
	assert_int_equal(pw->tier, 0);
	assert_string_equal(pw->follows, "mooncake-master");

	/* The workers gate on their engines' /health: the benchmark waits for them. */
	assert_int_equal(pw->nprobes, 1);
	assert_true(pw->probes[0].http);
	assert_string_equal(pw->endpoint, "10.0.0.1:6100");
	b = &p->procs[5];
	assert_int_equal(b->kind, SRT_PROC_BENCHMARK);
	assert_int_equal(b->group, 2);
	assert_int_equal(p->ngroups, 3);

	assert_int_equal(p->nstore_configs, 1);
	assert_string_equal(p->store_configs[0].path, "/runs/r1/logs/mooncake/store_config.json");
	assert_string_equal(p->store_configs[0].text,
			    "{\"master_server_address\":\"10.0.0.3:8700\",\"metadata_server\":"
			    "\"http://x:8701/metadata\",\"protocol\":\"tcp\"}\n");
}

static void test_groups_follow_readiness(void **state)
{
	struct fx *f = *state;
	struct srt_runplan *p;
	static const char yaml[] =
		"name: g\n"
		"engine: sglang\n"
		"roles:\n"
		"  prefill: {args: {disaggregation-transfer-backend: mooncake, "
		"disaggregation-ib-device: x, hicache-storage-backend: mooncake}}\n"
		"  decode: {args: {disaggregation-transfer-backend: mooncake, "
		"disaggregation-ib-device: x}}\n"
		"services:\n"
		"  - {name: mooncake-master, type: mooncake-master}\n"
		"  - {name: mooncake-store, type: mooncake-store, placement: {node: prefill}, "
		"readiness: {port: 8800}}\n"
		"  - {name: side, command: [sleep, '9'], start: with_workers, readiness: {port: 1}}\n"
		"  - {name: late, command: [sleep, '9']}\n"
		"frontend: {type: custom, command: [fe], port: 8000}\n"
		"benchmark: {type: custom, command: run}\n";

	f->cmd_store[0] = "store";
	f->cl.commands[SRT_CMD_MOONCAKE_STORE] = (struct srt_argv){ f->cmd_store, 1 };
	p = load(f, yaml);
	bind3(p);
	/* master | store (gated on 8800) | side, workers (side gated after them) | frontend | late | benchmark */
	static const struct {
		const char *name;
		int group, tier;
		bool follows;
	} want[] = {
		{ "mooncake-master", 0, 2, false },
		{ "mooncake-store", 1, 1, true },
		{ "side", 2, 0, false },
		{ "prefill_0", 2, 0, true },
		{ "decode_0", 2, 0, false },
		{ "frontend", 3, 0, false },
		{ "late", 4, 0, false },
		{ "benchmark", 4, 0, false },
	};
	assert_int_equal(p->nprocs, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < p->nprocs; i++) {
		assert_string_equal(p->procs[i].name, want[i].name);
		assert_int_equal(p->procs[i].group, want[i].group);
		assert_int_equal(p->procs[i].tier, want[i].tier);
		assert_int_equal(p->procs[i].follows != NULL, want[i].follows);
	}
	assert_int_equal(p->ngroups, 5);
	assert_string_equal(p->procs[5].endpoint, "10.0.0.1:8000");
	/* The frontend URL (status.json "frontend_url"): through plan.json with its
	 * placeholder, bound like the benchmark's SRT_FRONTEND_URL. */
	assert_string_equal(p->frontend_url_ph, "http://<prefill_node_0_ip>:8000");
	assert_string_equal(p->frontend_url, "http://10.0.0.1:8000");
	assert_string_equal(env_of(&p->procs[7], "SRT_FRONTEND_URL"), p->frontend_url);
}

/* The argv word that starts with prefix, or NULL. */
static const char *word_of(const struct srt_runplan_proc *pr, const char *prefix)
{
	for (size_t i = 0; i < pr->argc; i++)
		if (!strncmp(pr->argv[i], prefix, strlen(prefix)))
			return pr->argv[i];
	return NULL;
}

/*
 * A Ray cluster on a pool of its own (srt-slurm's services-only job): the
 * head on the pool's first node, gated before the joiner, which follows it
 * and waits for the whole cluster in the head's node summary; a service
 * rides the pool with its templates filled in; the custom benchmark gets
 * srt-slurm's SRT_SERVICE_* contract.
 */
static void test_ray_pool_bound(void **state)
{
	struct fx *f = *state;
	struct srt_runplan *p;
	static const char yaml[] =
		"name: rl\n"
		"resources: {gpus_per_node: 2}\n"
		"frontend: {type: none}\n"
		"services:\n"
		"  - {name: train, type: ray, nodes: 2, options: {dashboard_port: 8266}}\n"
		"  - {name: env-srv, command: [srv, '--rank={index}', '--peers={pool_ips}'], "
		"placement: {pool: train}, env: {HEAD: '{pool_ip}', J: '{\"a\": 1}'}}\n"
		"benchmark: {type: custom, command: run}\n";
	const struct srt_runplan_proc *head, *join, *bench;

	p = load(f, yaml);
	bind3(p);
	assert_int_equal(p->nnodes, 2);
	assert_int_equal(p->nprocs, 5);
	head = &p->procs[0];
	join = &p->procs[1];
	bench = &p->procs[4];
	assert_string_equal(head->name, "train_n1");
	assert_string_equal(join->name, "train_n2");
	assert_int_equal(head->group, 0);
	assert_int_equal(join->group, 1);
	assert_null(head->follows);
	assert_string_equal(join->follows, "train_n1");
	assert_non_null(word_of(head, "--head"));
	assert_string_equal(word_of(head, "--node-ip-address="), "--node-ip-address=10.0.0.1");
	assert_string_equal(word_of(head, "--dashboard-port="), "--dashboard-port=8266");
	assert_string_equal(word_of(join, "--address="), "--address=10.0.0.1:6379");
	assert_string_equal(word_of(join, "--node-ip-address="), "--node-ip-address=10.0.0.2");
	assert_string_equal(word_of(join, "--num-gpus="), "--num-gpus=2");
	assert_string_equal(env_of(join, "CUDA_VISIBLE_DEVICES"), "0,1");
	assert_string_equal(env_of(join, "RAY_memory_monitor_refresh_ms"), "0");
	/* the head: its dashboard; the joiner: its log, then the fleet on the head */
	assert_int_equal(head->nprobes, 1);
	assert_true(head->probes[0].http);
	assert_string_equal(head->probes[0].path, "/api/version");
	assert_int_equal(join->nprobes, 2);
	assert_string_equal(join->probes[0].pattern, "Ray runtime started");
	assert_string_equal(join->probes[1].host, "10.0.0.1");
	assert_int_equal(join->probes[1].port, 8266);
	assert_int_equal(join->probes[1].ray_alive, 2);
	assert_int_equal(head->timeout_s, SRT_RAY_READY_TIMEOUT);
	/* the rider: one per pool node, templates filled */
	assert_string_equal(p->procs[2].name, "env-srv_n1");
	assert_string_equal(word_of(&p->procs[3], "--rank="), "--rank=1");
	assert_string_equal(word_of(&p->procs[3], "--peers="), "--peers=10.0.0.1,10.0.0.2");
	assert_string_equal(env_of(&p->procs[3], "HEAD"), "10.0.0.1");
	assert_string_equal(env_of(&p->procs[3], "J"), "{\"a\": 1}");
	/* the benchmark, on the head node, told where the services run */
	assert_string_equal(bench->host, "n1");
	assert_string_equal(env_of(bench, "SRT_SERVICE_TRAIN_IPS"), "10.0.0.1,10.0.0.2");
	assert_string_equal(env_of(bench, "SRT_SERVICE_TRAIN_NODES"), "n1,n2");
	assert_string_equal(env_of(bench, "SRT_SERVICE_TRAIN_NODE_COUNT"), "2");
	assert_string_equal(env_of(bench, "SRT_SERVICE_ENV_SRV_NODE_COUNT"), "2");
	assert_string_equal(env_of(bench, "SRT_GPUS_PER_NODE"), "2");
	assert_string_equal(env_of(bench, "SRT_WORKER_NODES"), "");
	assert_string_equal(env_of(bench, "SRTCTL_FRONTEND_TYPE"), "none");
}

/* The argv of pr from its word `from` on, joined with spaces. */
static char *argv_from(const struct srt_runplan_proc *pr, const char *from)
{
	size_t i = 0, n = 1;
	char *s;

	while (i < pr->argc && strcmp(pr->argv[i], from))
		i++;
	for (size_t k = i; k < pr->argc; k++)
		n += strlen(pr->argv[k]) + 1;
	s = calloc(1, n);
	for (size_t k = i; k < pr->argc; k++) {
		strcat(s, pr->argv[k]);
		if (k + 1 < pr->argc)
			strcat(s, " ");
	}
	return s;
}

/*
 * TileRT's prefill/decode (srt-slurm 2.0): vLLM prefill, the TileRT decode
 * server with srtctl's --engine/--http-port/--ctrl-port and the role's args
 * as written, TileRT's router over both, in its own image.
 */
static void test_tilert_bound(void **state)
{
	struct fx *f = *state;
	struct srt_runplan *p;
	static const char yaml[] =
		"name: t\n"
		"model: {path: /m}\n"
		"resources: {gpus_per_node: 8}\n"
		"roles:\n"
		"  prefill: {engine: vllm, args: {return-tokens-as-token-ids: true}}\n"
		"  decode:\n"
		"    engine: tilert\n"
		"    args: {model: glm5, model_weights_dir: /w, with-mtp: true, num-mtp: 3, x: false}\n"
		"frontend: {type: tilert-router, container_image: img-router, args: {parser: none, "
		"queue-timeout: 1800}}\n";
	char *dec, *fe;

	p = load(f, yaml);
	bind3(p);
	assert_int_equal(p->nprocs, 3);
	assert_string_equal(p->procs[1].name, "decode_0");
	dec = argv_from(&p->procs[1], "tilert.pd_vllm.decode_server");
	assert_string_equal(dec, "tilert.pd_vllm.decode_server --engine tilert --http-port 6100 "
				 "--ctrl-port 5400 --model glm5 --model-weights-dir /w --with-mtp "
				 "--num-mtp 3");
	fe = argv_from(&p->procs[2], "tilert.pd_vllm.pd_router");
	assert_string_equal(fe, "tilert.pd_vllm.pd_router --vllm-url http://10.0.0.1:6100 "
				"--decode 10.0.0.2:5400:6100 --host 0.0.0.0 --port 8000 --parser "
				"none --queue-timeout 1800");
	assert_string_equal(p->procs[2].container, "img-router");
	assert_string_equal(p->procs[1].probes[0].path, "/health");
	assert_non_null(word_of(&p->procs[0], "--return-tokens-as-token-ids"));
	free(dec);
	free(fe);
}

/* A Ray dashboard's node summary, counted. */
static void test_ray_alive(void **state)
{
	static const char two[] =
		"{\"result\": true, \"msg\": \"\", \"data\": {\"summary\": ["
		"{\"raylet\": {\"state\": \"ALIVE\"}}, {\"raylet\": {\"state\": \"DEAD\"}}, "
		"{\"raylet\": {\"state\": \"ALIVE\"}}, {\"ip\": \"x\"}, 7]}}";
	char d[128];
	int want = 2;

	(void)state;
	assert_true(srt_agent_ray_alive(two, strlen(two), &want, d, sizeof(d)));
	assert_string_equal(d, "2 of 2 Ray nodes ALIVE");
	want = 3;
	assert_false(srt_agent_ray_alive(two, strlen(two), &want, d, sizeof(d)));
	assert_string_equal(d, "2 of 3 Ray nodes ALIVE");
	assert_false(srt_agent_ray_alive("{\"data\": {}}", 12, &want, d, sizeof(d)));
	assert_string_equal(d, "the reply has no data.summary list of Ray nodes");
	assert_false(srt_agent_ray_alive("<html>", 6, &want, d, sizeof(d)));
	assert_non_null(strstr(d, "the node summary is not JSON"));
}

static void test_external_master(void **state)
{
	struct fx *f = *state;
	struct srt_runplan *p;
	static const char yaml[] =
		"name: e\n"
		"engine: sglang\n"
		"roles:\n"
		"  agg: {args: {disaggregation-transfer-backend: mooncake, "
		"disaggregation-ib-device: x}}\n"
		"services:\n"
		"  - {name: mooncake-master, type: mooncake-master, external: '10.9.0.7:8700'}\n";

	p = load(f, yaml);
	bind3(p);
	assert_int_equal(p->nprocs, 2);
	assert_true(p->procs[0].external);
	assert_string_equal(p->procs[0].external_host, "10.9.0.7");
	assert_int_equal(p->procs[0].external_port, 8700);
	assert_int_equal(p->procs[0].nprobes, 1);
	assert_false(p->procs[0].probes[0].http);
	assert_string_equal(p->procs[0].endpoint, "10.9.0.7:8700");
	assert_int_equal(p->procs[0].group, 0);
	assert_int_equal(p->procs[1].group, 1);
	assert_null(p->procs[1].follows);
	assert_string_equal(env_of(&p->procs[1], "MOONCAKE_MASTER"), "10.9.0.7:8700");
	assert_string_equal(env_of(&p->procs[1], "MOONCAKE_LOCAL_HOSTNAME"), "10.0.0.1");
}

static void test_step_argv_and_env_line(void **state)
{
	struct fx *f = *state;
	struct srt_runplan *p;
	struct srt_arena a;
	const char **av;
	size_t n;
	char *line;
	static const char yaml[] = "name: s\n"
				   "engine: sglang\n"
				   "model: {container: img:1}\n"
				   "roles:\n"
				   "  agg:\n"
				   "    env: {Q: \"it's $(x) `y`\\nz\", E: \"\"}\n"
				   "    extra_args: ['--a b']\n";
	static const char *const want[] = {
		"srun",
		"--overlap",
		"--nodes=1",
		"--ntasks=1",
		"--nodelist=n1",
		"--job-name=agg_0",
		"--container-image=img:1",
		"--container-mounts=/runs/r1/logs:/logs",
		"env",
		"--",
		"Q=it's $(x) `y`\nz",
		"E=",
		"python3",
		"-m",
		"sglang.launch_server",
		"--host",
		"10.0.0.1",
		"--port",
		"6100",
		"--nccl-port",
		"17500",
		"--a b",
	};

	f->cl.container_runtime = SRT_CRT_PYXIS;
	p = load(f, yaml);
	bind3(p);
	assert_true(p->pyxis);
	srt_arena_init(&a);
	av = srt_agent_step_argv(&a, p, &p->procs[0], &n);
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++)
		assert_string_equal(av[i], want[i]);
	assert_null(av[n]);
	line = srt_agent_env_line(&p->procs[0]);
	assert_string_equal(line, "Env: Q='it'\\''s $(x) `y`\nz' E=''\n");
	free(line);

	/* Without pyxis the image is ignored. */
	p->pyxis = false;
	av = srt_agent_step_argv(&a, p, &p->procs[0], &n);
	assert_string_equal(av[6], "env");
	srt_arena_release(&a);
}

/* Plan j (p's, edited) as the old generation: p's first process restarts, for `reason`. */
static void assert_restarts(json_t *j, const struct srt_runplan *p, const char *reason)
{
	struct srt_runplan old;
	struct srt_error err;
	struct srt_buf why;

	memset(&old, 0, sizeof(old)); /* srt_runplan_load() initializes it */
	if (srt_runplan_load(&old, j, &err) < 0)
		fail_msg("load: %s", err.msg);
	bind3(&old);
	srt_buf_init(&why);
	assert_true(srt_runplan_proc_changed(&old, &old.procs[0], p, &p->procs[0], &why));
	assert_string_equal(why.data, reason);
	srt_buf_release(&why);
	srt_runplan_release(&old);
}

/* The recipe's mounts after /logs in every container's --container-mounts; a change restarts. */
static void test_step_argv_mounts(void **state)
{
	struct fx *f = *state;
	struct srt_runplan *p;
	struct srt_arena a;
	const char **av;
	json_t *j;
	size_t n;
	static const char yaml[] = "name: s\n"
				   "engine: sglang\n"
				   "model: {container: img:1}\n"
				   "extra_mount: ['/lustre:/lustre', '/data:/data:ro+nosuid']\n"
				   "container_mounts: {/x/y: /work}\n"
				   "roles:\n"
				   "  agg: {args: {tp: 1}}\n";

	f->cl.container_runtime = SRT_CRT_PYXIS;
	p = load(f, yaml);
	bind3(p);
	assert_int_equal(p->nmounts, 3);
	srt_arena_init(&a);
	av = srt_agent_step_argv(&a, p, &p->procs[0], &n);
	assert_string_equal(av[7], "--container-mounts=/runs/r1/logs:/logs,/lustre:/lustre,"
				   "/data:/data:ro+nosuid,/x/y:/work");
	srt_arena_release(&a);

	/* The same plan with one mount less: the container's process changes. */
	j = srt_runplan_to_json(p);
	json_array_remove(json_object_get(json_object_get(j, "runtime"), "mounts"), 2);
	assert_restarts(j, p, "container mounts");
	json_decref(j);
}

/*
 * A recipe that mounts its own model at /model again (srt-slurm's public
 * mlperf recipe, for its benchmark image): a worker mounts the model once; a
 * process without the model mount (the benchmark) gets the recipe's.
 */
static void test_step_argv_model_mount(void **state)
{
	struct fx *f = *state;
	struct srt_runplan *p;
	struct srt_arena a;
	const char **av;
	size_t n, workers = 0, others = 0;
	static const char yaml[] = "name: s\n"
				   "engine: sglang\n"
				   "model: {path: /m/r1, container: img:1}\n"
				   "extra_mount: ['/m/r1:/model:ro', '/lustre:/lustre']\n"
				   "benchmark: {type: custom, command: 'bash b.sh', "
				   "container_image: 'bench:1'}\n"
				   "roles:\n"
				   "  agg: {args: {tp: 1}}\n";

	f->cl.container_runtime = SRT_CRT_PYXIS;
	p = load(f, yaml);
	bind3(p);
	srt_arena_init(&a);
	for (size_t i = 0; i < p->nprocs; i++) {
		const char *mounts = NULL;

		if (!p->procs[i].container)
			continue;
		av = srt_agent_step_argv(&a, p, &p->procs[i], &n);
		for (size_t k = 0; k < n; k++)
			if (!strncmp(av[k], "--container-mounts=", 19))
				mounts = av[k];
		assert_non_null(mounts);
		if (p->procs[i].model_mount) {
			assert_string_equal(mounts, "--container-mounts=/runs/r1/logs:/logs,"
						    "/m/r1:/model,/lustre:/lustre");
			workers++;
		} else {
			assert_string_equal(mounts, "--container-mounts=/runs/r1/logs:/logs,"
						    "/m/r1:/model:ro,/lustre:/lustre");
			others++;
		}
	}
	assert_int_equal(workers, 1);
	assert_true(others >= 1);
	srt_arena_release(&a);
}

/*
 * srun_options: the recipe's merged under a role's, after srtctl's own
 * flags and before `env`; a change restarts the step; a plan that names a
 * flag srtctl sets is refused when loaded.
 */
static void test_step_argv_srun_options(void **state)
{
	struct fx *f = *state;
	struct srt_runplan *p, old;
	struct srt_arena a;
	struct srt_error err;
	const char **av;
	json_t *j, *so;
	size_t n;
	static const char yaml[] =
		"name: s\n"
		"engine: sglang\n"
		"model: {container: img:1}\n"
		"srun_options: {container-remap-root: '', mem: '0'}\n"
		"roles:\n"
		"  agg: {args: {tp: 1}, srun_options: {mem: 64G, cpu-bind: none}}\n";

	f->cl.container_runtime = SRT_CRT_PYXIS;
	p = load(f, yaml);
	bind3(p);
	srt_arena_init(&a);
	av = srt_agent_step_argv(&a, p, &p->procs[0], &n);
	assert_string_equal(av[7], "--container-mounts=/runs/r1/logs:/logs");
	assert_string_equal(av[8], "--container-remap-root");
	assert_string_equal(av[9], "--mem=64G");
	assert_string_equal(av[10], "--cpu-bind=none");
	assert_string_equal(av[11], "env");
	srt_arena_release(&a);

	/* The same plan without the last option: the step changes. */
	j = srt_runplan_to_json(p);
	so = json_object_get(json_array_get(json_object_get(j, "processes"), 0), "srun_options");
	json_array_remove(so, 2);
	assert_restarts(j, p, "srun options");

	/* A plan.json that names --nodelist (or anything not a flag) is refused. */
	json_array_append_new(so, json_string("--nodelist=evil"));
	memset(&old, 0, sizeof(old));
	assert_int_equal(srt_runplan_load(&old, j, &err), -1);
	assert_non_null(strstr(err.msg, "srun option '--nodelist=evil' is refused: srtctl sets "
					"this srun option itself"));
	srt_runplan_release(&old);
	json_array_clear(so);
	json_array_append_new(so, json_string("--mem=1\nx"));
	memset(&old, 0, sizeof(old));
	assert_int_equal(srt_runplan_load(&old, j, &err), -1);
	assert_non_null(strstr(err.msg, "its value holds a control character"));
	srt_runplan_release(&old);
	json_decref(j);
}

/* A TRT-LLM worker's step: its ranks over its nodes under PMIx, one failed rank ends it. */
static void test_step_argv_mpi(void **state)
{
	struct fx *f = *state;
	struct srt_runplan *p;
	struct srt_arena a;
	const char **av;
	size_t n;
	static const char yaml[] = "name: t\n"
				   "engine: trtllm\n"
				   "resources: {gpus_per_node: 4}\n"
				   "roles:\n"
				   "  agg: {nodes: 2, gpus: 8, args: {tensor_parallel_size: 8}}\n";
	static const char *const want[] = {
		"srun",
		"--overlap",
		"--nodes=2",
		"--ntasks=8",
		"--ntasks-per-node=4",
		"--mpi=pmix",
		"--oversubscribe",
		"--kill-on-bad-exit=1",
		"--nodelist=n1,n2",
		"--job-name=agg_0",
		"env",
		"--",
		"trtllm-llmapi-launch",
		"trtllm-serve",
	};

	p = load(f, yaml);
	bind3(p);
	assert_int_equal(p->nprocs, 1);
	assert_string_equal(p->procs[0].hosts, "n1,n2");
	srt_arena_init(&a);
	av = srt_agent_step_argv(&a, p, &p->procs[0], &n);
	assert_true(n > sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_string_equal(av[i], want[i]);
	/* A new generation whose engine YAML (or rank count) differs restarts the worker. */
	{
		struct srt_runplan_proc o = p->procs[0], m = p->procs[0];
		struct srt_buf why;

		srt_buf_init(&why);
		assert_false(srt_runplan_proc_changed(p, &o, p, &m, &why));
		m.config_text = "tensor_parallel_size: 4\n";
		assert_true(srt_runplan_proc_changed(p, &o, p, &m, &why));
		assert_string_equal(why.data, "trtllm_agg_0.yaml");
		m = o;
		m.ntasks = 4;
		srt_buf_reset(&why);
		assert_true(srt_runplan_proc_changed(p, &o, p, &m, &why));
		assert_string_equal(why.data, "MPI ranks 8 -> 4");
		srt_buf_release(&why);
	}
	/* The engine YAML is named in the log dir: bound to the run's. */
	for (size_t i = 0; i + 1 < n; i++)
		if (!strcmp(av[i], "--extra_llm_api_options"))
			assert_string_equal(av[i + 1], "/runs/r1/logs/trtllm_agg_0.yaml");
	srt_arena_release(&a);
}

#define TRT_MC_YAML(md)                                                                           \
	"name: t\n"                                                                               \
	"engine: {type: trtllm, served_model_name: org/m}\n"                                      \
	"resources: {gpus_per_node: 4}\n"                                                         \
	"roles:\n"                                                                                \
	"  prefill: {gpus: 4, args: {tensor_parallel_size: 4, kv_connector_config: "              \
	"{connector: mooncake-store}}}\n"                                                         \
	"  decode:\n"                                                                             \
	"    gpus: 4\n"                                                                           \
	"    args: {tensor_parallel_size: 4, kv_connector_config: {connector: mooncake-store}}\n" \
	"    mooncake_store_config: {global_segment_size: 2GiB}\n"                                \
	"services:\n"                                                                             \
	"  - name: mooncake-master\n"                                                             \
	"    type: mooncake-master\n"                                                             \
	"    options: {store_config: {protocol: tcp, metadata_server: " md "}}\n"

/* TRT-LLM's mooncake-store connector: one client config per role, each worker reading its own. */
static void test_trtllm_store_configs(void **state)
{
	struct fx *f = *state;
	struct srt_runplan *p, old;
	const struct srt_runplan_proc *pw, *dw;
	struct srt_error err;
	struct srt_buf why;
	json_t *j, *legacy;

	f->cmd_engine[0] = "trtllm-serve";
	f->cl.commands[SRT_CMD_TRTLLM] = (struct srt_argv){ f->cmd_engine, 1 };
	p = load(f, TRT_MC_YAML("P2PHANDSHAKE"));
	bind3(p);
	assert_int_equal(p->nstore_configs, 2);
	assert_string_equal(p->store_configs[0].path,
			    "/runs/r1/logs/mooncake/store_config_prefill.json");
	assert_string_equal(p->store_configs[0].text,
			    "{\"protocol\":\"tcp\",\"metadata_server\":\"P2PHANDSHAKE\",\"role\":"
			    "\"both\",\"model_key\":\"org/m\",\"master_server_address\":"
			    "\"10.0.0.1:8700\"}\n");
	assert_string_equal(p->store_configs[1].path,
			    "/runs/r1/logs/mooncake/store_config_decode.json");
	assert_string_equal(p->store_configs[1].text,
			    "{\"protocol\":\"tcp\",\"metadata_server\":\"P2PHANDSHAKE\","
			    "\"global_segment_size\":\"2GiB\",\"role\":\"capacity\",\"model_key\":"
			    "\"org/m\",\"master_server_address\":\"10.0.0.1:8700\"}\n");
	pw = &p->procs[1];
	dw = &p->procs[2];
	assert_string_equal(pw->name, "prefill_0");
	assert_string_equal(env_of(pw, "MOONCAKE_CONFIG_PATH"),
			    "/runs/r1/logs/mooncake/store_config_prefill.json");
	assert_string_equal(env_of(dw, "MOONCAKE_CONFIG_PATH"),
			    "/runs/r1/logs/mooncake/store_config_decode.json");
	assert_string_equal(env_of(dw, "MOONCAKE_MASTER"), "10.0.0.1:8700");
	/* Peer-to-peer metadata keeps nothing on the master: the workers do not follow it. */
	assert_null(pw->follows);
	assert_null(dw->follows);

	/* A change to the decode role's file restarts decode workers, not prefill ones. */
	j = srt_runplan_to_json(p);
	json_object_set_new(json_object_get(json_array_get(json_object_get(j, "store_configs"), 1),
					    "config"),
			    "global_segment_size", json_string("1GiB"));
	memset(&old, 0, sizeof(old));
	if (srt_runplan_load(&old, j, &err) < 0)
		fail_msg("load: %s", err.msg);
	bind3(&old);
	srt_buf_init(&why);
	assert_false(srt_runplan_proc_changed(&old, &old.procs[1], p, pw, &why));
	assert_true(srt_runplan_proc_changed(&old, &old.procs[2], p, dw, &why));
	assert_string_equal(why.data, "store_config");
	srt_buf_release(&why);
	srt_runplan_release(&old);
	json_decref(j);

	/* A plan written before the list: one store_config with its file. */
	j = srt_runplan_to_json(p);
	legacy = json_object_get(json_array_get(json_object_get(j, "store_configs"), 0), "config");
	json_object_set(j, "store_config", legacy);
	json_object_set_new(j, "store_config_file",
			    json_string("<log_dir>/mooncake/store_config_prefill.json"));
	json_object_del(j, "store_configs");
	memset(&old, 0, sizeof(old));
	if (srt_runplan_load(&old, j, &err) < 0)
		fail_msg("load: %s", err.msg);
	bind3(&old);
	assert_int_equal(old.nstore_configs, 1);
	assert_string_equal(old.store_configs[0].text, p->store_configs[0].text);
	srt_runplan_release(&old);

	/* A file outside the log directory's mooncake/ folder is refused. */
	json_object_set_new(j, "store_config_file", json_string("<log_dir>/../x.json"));
	memset(&old, 0, sizeof(old));
	assert_int_equal(srt_runplan_load(&old, j, &err), -1);
	assert_non_null(strstr(err.msg, "must be a file of the log directory's mooncake/ folder"));
	srt_runplan_release(&old);
	json_decref(j);

	/* Metadata on the master's HTTP server: a master restart takes the workers' segments. */
	srt_runplan_release(&f->ap);
	p = load(f, TRT_MC_YAML("\"http://x:8701/metadata\""));
	assert_string_equal(p->procs[1].follows, "mooncake-master");
	assert_string_equal(p->procs[2].follows, "mooncake-master");
}

static void test_plan_errors(void **state)
{
	struct fx *f = *state;
	struct srt_runplan p;
	struct srt_error err;
	static const struct {
		const char *json, *msg;
	} cases[] = {
		{ "[]", "not a JSON object" },
		{ "{\"nodes\":[],\"processes\":[]}", "no nodes" },
		{ "{\"nodes\":[{\"host\":\"<a>\",\"ip\":\"<a_ip>\"}],\"processes\":[{\"name\":\"x\","
		  "\"kind\":\"worker\",\"node\":3,\"argv\":[\"a\"],\"log_file\":\"x.out\"}]}",
		  "node 3 is not one of the plan's 1 nodes" },
		{ "{\"nodes\":[{\"host\":\"<a>\",\"ip\":\"<a_ip>\"}],\"processes\":[{\"name\":\"x\","
		  "\"kind\":\"robot\",\"node\":0}]}",
		  "kind 'robot'" },
		{ "{\"nodes\":[{\"host\":\"<a>\",\"ip\":\"<a_ip>\"}],\"processes\":[{\"name\":\"x\","
		  "\"kind\":\"worker\",\"node\":0,\"argv\":[],\"log_file\":\"x.out\"}]}",
		  "argv must be a non-empty list" },
		{ "{\"nodes\":[{\"host\":\"<a>\",\"ip\":\"<a_ip>\"}],\"processes\":[{\"name\":\"x\","
		  "\"kind\":\"worker\",\"node\":0,\"argv\":[\"a\"],\"log_file\":\"../x\"}]}",
		  "log_file must be a file name" },
		{ "{\"nodes\":[{\"host\":\"<a>\",\"ip\":\"<a_ip>\"}],\"processes\":[{\"name\":\"x\","
		  "\"kind\":\"worker\",\"node\":0,\"argv\":[\"a\"],\"log_file\":\"x\",\"env\":[{"
		  "\"name\":\"1X\",\"value\":\"v\"}]}]}",
		  "env[0] needs a name" },
		{ "{\"nodes\":[{\"host\":\"<a>\",\"ip\":\"<a_ip>\"}],\"processes\":[{\"name\":\"x\","
		  "\"kind\":\"worker\",\"node\":0,\"argv\":[\"a\"],\"log_file\":\"x\"},{\"name\":"
		  "\"x\",\"kind\":\"worker\",\"node\":0,\"argv\":[\"a\"],\"log_file\":\"y\"}]}",
		  "two plan processes are named 'x'" },
		{ "{\"nodes\":[{\"host\":\"<a>\",\"ip\":\"<a_ip>\"}],\"processes\":[{\"name\":\"x\","
		  "\"kind\":\"worker\",\"node\":0,\"argv\":[\"a\"],\"log_file\":\"x\",\"restart\":{"
		  "\"mode\":\"sometimes\"}}]}",
		  "restart must have mode" },
		{ "{\"nodes\":[{\"host\":\"<a>\",\"ip\":\"<a_ip>\"}],\"processes\":[{\"name\":\"x\","
		  "\"kind\":\"worker\",\"node\":0,\"argv\":[\"a\"],\"log_file\":\"x\",\"follows\":"
		  "\"ghost\"}]}",
		  "follows 'ghost'" },
		{ "{\"nodes\":[{\"host\":\"<a>\",\"ip\":\"<a_ip>\"}],\"processes\":[{\"name\":\"x\","
		  "\"kind\":\"worker\",\"node\":0,\"nnodes\":2,\"ntasks\":2,\"mpi\":\"pmix\","
		  "\"argv\":[\"a\"],\"log_file\":\"x\"}]}",
		  "nnodes 2 does not fit" },
		{ "{\"nodes\":[{\"host\":\"<a>\",\"ip\":\"<a_ip>\"}],\"processes\":[{\"name\":\"x\","
		  "\"kind\":\"worker\",\"node\":0,\"ntasks\":4,\"argv\":[\"a\"],\"log_file\":"
		  "\"x\"}]}",
		  "several tasks or nodes need an MPI type" },
		{ "{\"nodes\":[{\"host\":\"<a>\",\"ip\":\"<a_ip>\"}],\"processes\":[{\"name\":\"x\","
		  "\"kind\":\"worker\",\"node\":0,\"ntasks\":4,\"mpi\":\"openmpi\",\"argv\":[\"a\"],"
		  "\"log_file\":\"x\"}]}",
		  "mpi 'openmpi' is not pmix, pmi2 or none" },
		{ "{\"nodes\":[{\"host\":\"<a>\",\"ip\":\"<a_ip>\"}],\"processes\":[{\"name\":\"x\","
		  "\"kind\":\"worker\",\"node\":0,\"argv\":[\"a\"],\"log_file\":\"x\","
		  "\"config_file\":\"../etc/passwd\",\"config_text\":\"x\"}]}",
		  "config_file must be a file name" },
		{ "{\"nodes\":[{\"host\":\"<a>\",\"ip\":\"<a_ip>\"}],\"processes\":[{\"name\":\"x\","
		  "\"kind\":\"worker\",\"node\":0,\"argv\":[\"a\"],\"log_file\":\"x\","
		  "\"config_file\":\"c.yaml\"}]}",
		  "config_file and config_text go together" },
	};

	(void)f;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *j = json_loads(cases[i].json, 0, NULL);

		assert_non_null(j);
		err.msg[0] = '\0';
		assert_int_equal(srt_runplan_load(&p, j, &err), -1);
		if (!strstr(err.msg, cases[i].msg))
			fail_msg("case %zu: '%s' does not contain '%s'", i, err.msg, cases[i].msg);
		srt_runplan_release(&p);
		json_decref(j);
	}
}

static void test_bind_errors(void **state)
{
	struct fx *f = *state;
	struct srt_runplan *p;
	struct srt_error err;
	const char *hosts[] = { "n1", "../etc" }, *ips[] = { "10.0.0.1", "10.0.0.2" };
	static const char yaml[] = "name: b\n"
				   "engine: sglang\n"
				   "roles:\n"
				   "  prefill: {}\n"
				   "  decode: {}\n";

	p = load(f, yaml);
	assert_int_equal(srt_runplan_bind(p, hosts, ips, 1, "/l", &err), -1);
	assert_non_null(strstr(err.msg, "has 1 node(s) but the plan needs 2"));
	/* Hostnames only reach names and log files as whole words; a '/' in one is refused. */
	srt_runplan_release(&f->ap);
	p = load(f, "name: b\nengine: sglang\nroles:\n  agg: {nodes: 2, gpus: 8}\n");
	assert_int_equal(srt_runplan_bind(p, hosts, ips, 2, "/l", &err), -1);
	assert_non_null(strstr(err.msg, "is not a plain file name"));
}

static void test_followers_p2p(void **state)
{
	struct fx *f = *state;
	struct srt_runplan *p;
	static const char yaml[] =
		"name: p\n"
		"engine: vllm\n"
		"roles:\n"
		"  prefill: {args: {kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\"}'}}\n"
		"  decode: {args: {kv-transfer-config: '{\"kv_connector\":\"NixlConnector\"}'}}\n"
		"services:\n"
		"  - name: mooncake-master\n"
		"    type: mooncake-master\n"
		"    options: {store_config: {metadata_server: P2PHANDSHAKE}}\n";

	f->cmd_engine[0] = "vllm";
	f->cl.commands[SRT_CMD_VLLM] = (struct srt_argv){ f->cmd_engine, 1 };
	p = load(f, yaml);
	/* P2PHANDSHAKE keeps no TE state on the master: clients re-attach by themselves. */
	assert_string_equal(p->procs[1].name, "prefill_0");
	assert_null(p->procs[1].follows);
	assert_null(p->procs[2].follows);
	srt_runplan_release(&f->ap);
	p = load(
		f,
		"name: p\n"
		"engine: vllm\n"
		"roles:\n"
		"  prefill: {args: {kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\"}'}}\n"
		"  decode: {args: {kv-transfer-config: '{\"kv_connector\":\"NixlConnector\"}'}}\n"
		"services:\n"
		"  - name: mooncake-master\n"
		"    type: mooncake-master\n"
		"    options: {store_config: {protocol: tcp}}\n");
	/* Only the worker that uses the store connector follows. */
	assert_string_equal(p->procs[1].follows, "mooncake-master");
	assert_null(p->procs[2].follows);
}

/* The node-IP program the agent runs on each node prints an IPv4 address. */
static void test_ip_program(void **state)
{
	char dir[] = "/tmp/srt-ip-XXXXXX";
	char *prog, *out, *cmd, line[128] = "";
	unsigned a, b, c, d;
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(dir));
	prog = srt_xasprintf("%s/ip.sh", dir);
	out = srt_xasprintf("%s/ip", dir);
	fp = fopen(prog, "w");
	assert_non_null(fp);
	fputs(srt_agent_ip_program(), fp);
	assert_int_equal(fclose(fp), 0);
	cmd = srt_xasprintf("bash '%s' '' >'%s'", prog, out);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	fp = fopen(out, "r");
	assert_non_null(fp);
	assert_non_null(fgets(line, sizeof(line), fp));
	fclose(fp);
	assert_int_equal(sscanf(line, "%u.%u.%u.%u", &a, &b, &c, &d), 4);
	cmd = srt_xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(out);
	free(prog);
}

/* ---- policy ---- */

static void test_backoff(void **state)
{
	struct srt_restart_policy rp = { SRT_RESTART_ON_FAILURE, 5, 1, 60, 300 };
	static const int64_t want[] = { 0, 1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000 };
	struct srt_restart_policy zero = { SRT_RESTART_ALWAYS, 5, 0, 0, 0 };
	struct srt_restart_policy lowcap = { SRT_RESTART_ALWAYS, 5, 10, 5, 0 };

	(void)state;
	for (int i = 0; i < 9; i++)
		assert_int_equal(srt_agent_backoff_ms(&rp, i), want[i]);
	assert_int_equal(srt_agent_backoff_ms(&rp, 1000), 60000); /* no overflow */
	assert_int_equal(srt_agent_backoff_ms(&zero, 3), 0);
	assert_int_equal(srt_agent_backoff_ms(&lowcap, 0), 0);
	assert_int_equal(srt_agent_backoff_ms(&lowcap, 2), 10000);
}

static void test_decide(void **state)
{
	static const struct {
		enum srt_restart_mode mode;
		int budget;
		int64_t ran_ms;
		bool failed;
		enum srt_agent_verdict verdict;
		int64_t delay;
		int used;
	} cases[] = {
		{ SRT_RESTART_NEVER, 0, 10, true, SRT_AGENT_LEAVE, 0, 0 },
		{ SRT_RESTART_ON_FAILURE, 0, 10, false, SRT_AGENT_LEAVE, 0, 0 },
		{ SRT_RESTART_ON_FAILURE, 0, 10, true, SRT_AGENT_RESTART, 0, 1 },
		{ SRT_RESTART_ON_FAILURE, 1, 10, true, SRT_AGENT_RESTART, 2000, 2 },
		{ SRT_RESTART_ON_FAILURE, 2, 10, true, SRT_AGENT_RESTART, 4000, 3 },
		{ SRT_RESTART_ON_FAILURE, 3, 10, true, SRT_AGENT_GIVE_UP, 0, 3 },
		/* A long stable run clears the count. */
		{ SRT_RESTART_ON_FAILURE, 3, 300000, true, SRT_AGENT_RESTART, 0, 1 },
		{ SRT_RESTART_ON_FAILURE, 3, 299999, true, SRT_AGENT_GIVE_UP, 0, 3 },
		{ SRT_RESTART_ALWAYS, 0, 10, false, SRT_AGENT_RESTART, 0, 1 },
		{ SRT_RESTART_ALWAYS, 3, 10, false, SRT_AGENT_GIVE_UP, 0, 3 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct srt_restart_policy rp = { cases[i].mode, 3, 2, 60, 300 };
		struct srt_agent_decision d =
			srt_agent_decide(&rp, cases[i].budget, cases[i].ran_ms, cases[i].failed);

		if (d.verdict != cases[i].verdict || d.delay_ms != cases[i].delay ||
		    d.budget_used != cases[i].used)
			fail_msg("case %zu: verdict %d delay %lld used %d", i, d.verdict,
				 (long long)d.delay_ms, d.budget_used);
	}
}

/* ---- process helpers ---- */

static void test_run_cmds(void **state)
{
	const char *echo[] = { "sh", "-c", "printf 'a\\nb\\n'; exit 3", NULL };
	const char *slow[] = { "sleep", "30", NULL };
	const char *none[] = { "/nonexistent/program", NULL };
	struct srt_agent_cmd c[3];
	struct srt_error err;

	(void)state;
	memset(c, 0, sizeof(c));
	c[0].argv = echo;
	c[1].argv = slow;
	c[2].argv = none;
	assert_int_equal(srt_agent_run_cmds(c, 3, 300, -1, &err), 0);
	assert_string_equal(c[0].out.data, "a\nb\n");
	assert_int_equal(c[0].status, 3);
	assert_int_equal(c[1].status, -1); /* killed at the timeout */
	assert_int_equal(c[2].status, 127);
	for (int i = 0; i < 3; i++)
		srt_buf_release(&c[i].out);
}

static void test_spawn_log_and_tail(void **state)
{
	char dir[] = "/tmp/srt-agent-XXXXXX";
	const char *argv[] = { "sh", "-c",
			       "for i in 1 2 3 4 5; do echo line$i; done; echo err >&2; "
			       "exit 7",
			       NULL };
	const char *bad[] = { "/nonexistent/x", NULL };
	char *log, *tail, *cmd;
	struct srt_error err;
	int st;
	pid_t pid;

	(void)state;
	assert_non_null(mkdtemp(dir));
	log = srt_xasprintf("%s/w.out", dir);
	pid = srt_agent_spawn(argv, log, true, "Env: A=1\n", &err);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(srt_agent_exit_code(st), 7);
	tail = srt_agent_log_tail(log, 3, 4096);
	assert_string_equal(tail, "line4\nline5\nerr");
	free(tail);
	tail = srt_agent_log_tail(log, 100, 4096);
	assert_string_equal(tail, "Env: A=1\nline1\nline2\nline3\nline4\nline5\nerr");
	free(tail);
	/* Only max_bytes from the end, starting at a whole line. */
	tail = srt_agent_log_tail(log, 100, 12);
	assert_string_equal(tail, "line5\nerr");
	free(tail);
	/* Appending (a restart) keeps what was there. */
	pid = srt_agent_spawn(bad, log, false, NULL, &err);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(srt_agent_exit_code(st), 127);
	tail = srt_agent_log_tail(log, 2, 4096);
	assert_string_equal(tail, "err\nsrtctl agent: cannot run '/nonexistent/x': No such file "
				  "or directory");
	free(tail);
	/* A signal shows as 128+N. */
	{
		const char *sl[] = { "sleep", "30", NULL };

		pid = srt_agent_spawn(sl, log, false, NULL, &err);
		assert_true(pid > 0);
		srt_agent_signal(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_int_equal(srt_agent_exit_code(st), 137);
	}
	tail = srt_agent_log_tail("/nonexistent/log", 3, 100);
	assert_string_equal(tail, "");
	free(tail);
	cmd = srt_xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(log);
}

/* Is s valid UTF-8? */
static bool utf8_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n = *p < 0x80	    ? 1 :
			(*p & 0xE0) == 0xC0 ? 2 :
			(*p & 0xF0) == 0xE0 ? 3 :
			(*p & 0xF8) == 0xF0 ? 4 :
					      0;

		if (!n)
			return false;
		for (int i = 1; i < n; i++)
			if ((p[i] & 0xC0) != 0x80)
				return false;
		p += n;
	}
	return true;
}

static size_t count_char(const char *s, char c)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

/*
 * A real mooncake master's first log line is ~2 KB: the tail keeps the
 * error lines after it whole and cuts long lines in their middle instead of
 * dropping them or the lines that follow.
 */
static void test_log_tail_long_lines(void **state)
{
	char dir[] = "/tmp/srt-tail-XXXXXX";
	char *path, *tail, *cmd, *end;
	struct srt_buf b;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = srt_xasprintf("%s/m.out", dir);

	/* One long line, then the error, the fatal line and a stack trace. */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("I1201 master.cpp:1300] Master service started on port 8700", f);
	for (int i = 0; i < 150; i++)
		fprintf(f, ", setting_%03d=value", i);
	fputs(", cxl_size=8589934592\n", f);
	fputs("E1201 master.cpp:1435] Failed to start HTTP metadata server on 0.0.0.0:8701\n", f);
	fputs("F1201 master.cpp:1449] Failed to start HTTP metadata server\n", f);
	fputs("*** Check failure stack trace: ***\n", f);
	for (int i = 0; i < 8; i++)
		fprintf(f, "    @     0x7f3a2b8c%04x  frame_%d()\n", i, i);
	fclose(f);
	tail = srt_agent_log_tail(path, 20, 1024);
	assert_true(strlen(tail) <= 1024);
	assert_true(strncmp(tail, "I1201 master.cpp:1300] Master service started on port 8700",
			    58) == 0);
	assert_non_null(strstr(tail, " bytes cut ...] "));
	assert_non_null(strstr(tail,
			       ", cxl_size=8589934592\nE1201 master.cpp:1435] Failed to start "
			       "HTTP metadata server on 0.0.0.0:8701\nF1201 master.cpp:1449] "
			       "Failed to start HTTP metadata server\n*** Check failure stack "
			       "trace: ***\n"));
	end = strrchr(tail, '\n');
	assert_string_equal(end, "\n    @     0x7f3a2b8c0007  frame_7()");
	assert_int_equal(count_char(tail, '\n'), 11);
	free(tail);
	/* Room for all of it: nothing is cut. */
	tail = srt_agent_log_tail(path, 20, 8192);
	assert_null(strstr(tail, " bytes cut ...] "));
	assert_int_equal(count_char(tail, '\n'), 11);
	free(tail);
	/* The line bound: the last 3 lines. */
	tail = srt_agent_log_tail(path, 3, 1024);
	assert_string_equal(tail, "    @     0x7f3a2b8c0005  frame_5()\n"
				  "    @     0x7f3a2b8c0006  frame_6()\n"
				  "    @     0x7f3a2b8c0007  frame_7()");
	free(tail);

	/* Many long lines: each is cut to the same length, the short last one is whole. */
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < 30; i++) {
		fprintf(f, "I%02d Master Admin Metrics: ", i);
		for (int j = 0; j < 160; j++)
			fputs("Get=0.00/0.00, ", f);
		fputs("end\n", f);
	}
	fputs("E boom: the error\n", f);
	fclose(f);
	tail = srt_agent_log_tail(path, 20, 4096);
	assert_true(strlen(tail) <= 4096);
	assert_int_equal(count_char(tail, '\n'), 19);
	assert_non_null(strstr(tail, "\nE boom: the error"));
	assert_string_equal(strrchr(tail, '\n'), "\nE boom: the error");
	assert_true(strncmp(tail, "I11 Master Admin Metrics: ", 26) == 0);
	assert_non_null(strstr(tail, "end\nI29 Master Admin Metrics: "));
	free(tail);

	/* A last line longer than the read window and the byte bound, no newline. */
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < 10000; i++)
		fputs("0123456789", f);
	fputs("THE END", f);
	fclose(f);
	tail = srt_agent_log_tail(path, 20, 4096);
	assert_true(strlen(tail) <= 4096 + 64);
	assert_non_null(strstr(tail, " bytes cut ...] "));
	assert_int_equal(count_char(tail, '\n'), 0);
	assert_string_equal(tail + strlen(tail) - 7, "THE END");
	free(tail);

	/* Cuts fall between UTF-8 characters. */
	srt_buf_init(&b);
	for (int i = 0; i < 2000; i++)
		srt_buf_puts(&b, "\xc3\xa9\xe2\x82\xac"); /* é€ */
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\nlast\n", b.data);
	fclose(f);
	srt_buf_release(&b);
	for (size_t max = 290; max < 300; max++) {
		tail = srt_agent_log_tail(path, 5, max);
		assert_true(utf8_ok(tail));
		assert_true(strlen(tail) <= max);
		assert_string_equal(strrchr(tail, '\n'), "\nlast");
		free(tail);
	}

	/* Not a regular file: nothing. */
	tail = srt_agent_log_tail(dir, 5, 100);
	assert_string_equal(tail, "");
	free(tail);
	cmd = srt_xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(path);
}

static void test_nodes_without_slurm(void **state)
{
	struct srt_agent_nodes n;
	struct srt_error err;

	(void)state;
	assert_int_equal(srt_agent_nodes_resolve(&n, NULL, NULL, 1, 1000, -1, &err), -1);
	assert_non_null(strstr(err.msg, "SLURM_JOB_NODELIST is not set"));
}

/* A campaign point: its timeout, its result file's name, the model the plan's workers serve. */
static void test_ladder_helpers(void **state)
{
	struct srt_loadgen_point pt = { 1000, 100, 8, 80, 16, 1 };
	struct srt_runplan p;
	struct srt_runplan_proc w;
	const char *argv[] = { "vllm", "serve",	 "/models/x", "--served-model-name",
			       "x",    "--port", "8000" };
	const char *served, *path;
	char *f;

	(void)state;
	/* 600 s + (80 + 16) x (1 + 20) s */
	assert_int_equal(srt_agent_point_timeout_ms(&pt), (600 + 96 * 21) * 1000);
	f = srt_agent_point_file(7, "0123456789abcdef0123", 2);
	assert_string_equal(f, "points/0007-0123456789ab-a2.json");
	free(f);
	f = srt_agent_point_file(12345, "abcdefabcdefabcdef", 1);
	assert_string_equal(f, "points/12345-abcdefabcdef-a1.json");
	free(f);
	memset(&p, 0, sizeof(p));
	memset(&w, 0, sizeof(w));
	w.kind = SRT_PROC_WORKER;
	w.argv = argv;
	w.argc = 7;
	p.procs = &w;
	p.nprocs = 1;
	srt_agent_plan_model(&p, &served, &path);
	assert_string_equal(served, "x");
	assert_string_equal(path, "/models/x");
	argv[0] = "--model-path";
	argv[1] = "/m";
	argv[3] = "--port";
	srt_agent_plan_model(&p, &served, &path);
	assert_null(served);
	assert_string_equal(path, "/m");
}

/* A requeued job drops the points it already finished, keeping the others' order. */
static void test_points_drop(void **state)
{
	struct srt_points_entry pts[4] = { 0 };
	struct srt_points_file f = { .points = pts, .npoints = 4 };
	char done[3][65];

	(void)state;
	for (int i = 0; i < 4; i++) {
		memset(pts[i].id, 'a' + i, 64);
		pts[i].seq = i + 1;
	}
	memcpy(done[0], pts[2].id, 65);
	memcpy(done[1], pts[0].id, 65);
	memset(done[2], 'z', 64); /* not one of this file's */
	done[2][64] = '\0';
	assert_int_equal(srt_agent_points_drop(&f, done, 0), 0);
	assert_int_equal(f.npoints, 4);
	assert_int_equal(srt_agent_points_drop(&f, done, 3), 2);
	assert_int_equal(f.npoints, 2);
	assert_int_equal(pts[0].seq, 2);
	assert_int_equal(pts[1].seq, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_vllm_plan_bound, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_groups_follow_readiness, fx_setup,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_external_master, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_ray_pool_bound, fx_setup, fx_teardown),
		cmocka_unit_test(test_ray_alive),
		cmocka_unit_test_setup_teardown(test_tilert_bound, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_step_argv_and_env_line, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_step_argv_model_mount, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_step_argv_mounts, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_step_argv_srun_options, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_step_argv_mpi, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_followers_p2p, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_trtllm_store_configs, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_plan_errors, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_bind_errors, fx_setup, fx_teardown),
		cmocka_unit_test(test_ip_program),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_run_cmds),
		cmocka_unit_test(test_spawn_log_and_tail),
		cmocka_unit_test(test_log_tail_long_lines),
		cmocka_unit_test(test_nodes_without_slurm),
		cmocka_unit_test(test_ladder_helpers),
		cmocka_unit_test(test_points_drop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
