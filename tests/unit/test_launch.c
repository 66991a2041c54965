/*
 * tests/unit/test_launch.c: recipe/launch (what srtctl adds to each engine's
 * and router's command line and env) and the layout's GPU sets and slots.
 *
 * Recipes are compiled (parsed, validated) from YAML against the built-in
 * cluster defaults or a tweaked copy; each test asserts whole argv vectors,
 * so a word added, dropped or moved fails it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipe/compile.h"
#include "recipe/launch.h"
#include "recipe/render.h"
#include "runplan/plan.h"
#include "planq.h"

struct fx {
	struct srt_cluster cl;
	struct srt_compiled comp;
	struct srt_diags d;
	struct srt_arena a;
	struct srt_layout l;
	struct srt_runplan rp;
};

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	srt_cluster_defaults(&f->cl);
	srt_diags_init(&f->d);
	srt_arena_init(&f->a);
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	srt_runplan_release(&f->rp);
	srt_compiled_release(&f->comp);
	srt_diags_release(&f->d);
	srt_arena_release(&f->a);
	free(f);
	return 0;
}

/* Compile yaml (which must validate) and build its layout in f->l. */
static const struct srt_recipe *compile(struct fx *f, const char *yaml)
{
	srt_compiled_release(&f->comp);
	srt_diags_release(&f->d);
	srt_diags_init(&f->d);
	if (srt_compile_bytes(yaml, strlen(yaml), "t.yaml", &f->cl, &f->comp, &f->d)) {
		srt_diags_print(&f->d, stdout);
		fail_msg("the test recipe does not compile");
	}
	assert_int_equal(f->comp.n, 1);
	srt_layout_build(&f->l, &f->a, f->comp.recipes[0]);
	return f->comp.recipes[0];
}

/* The full argv of rank `rank` of worker (role, index). */
static struct srt_argv argv_of(struct fx *f, const struct srt_recipe *r, enum srt_role_kind role,
			       int index, int rank, bool **runtime)
{
	struct srt_argv av = { NULL, 0 };
	const struct srt_lworker *w = srt_layout_worker(&f->l, role, index);

	assert_non_null(w);
	assert_int_equal(
		srt_render_worker_argv(&av, runtime, &f->a, r, &f->cl, &f->l, w, rank, &f->d), 0);
	return av;
}

#define WANT(av, ...)                                                               \
	do {                                                                        \
		static const char *const want_[] = { __VA_ARGS__ };                 \
		assert_argv(av, want_, sizeof(want_) / sizeof(want_[0]), __LINE__); \
	} while (0)

static void assert_argv(const struct srt_argv *av, const char *const *want, size_t n, int line)
{
	for (size_t i = 0; i < n && i < av->n; i++)
		if (strcmp(av->v[i], want[i]))
			fail_msg("line %d: argv[%zu] is '%s', want '%s'", line, i, av->v[i],
				 want[i]);
	if (av->n != n)
		fail_msg("line %d: argc is %zu, want %zu", line, av->n, n);
}

static const struct srt_lenv *lenv(const struct srt_launch *ln, const char *name)
{
	for (size_t i = 0; i < ln->nenv; i++)
		if (!strcmp(ln->env[i].name, name))
			return &ln->env[i];
	return NULL;
}

/* A process's env value, or NULL. */
static const char *penv(const struct srt_runplan_proc *pr, const char *name)
{
	for (size_t i = 0; i < pr->nenv; i++)
		if (!strcmp(pr->env_names[i], name))
			return pr->env_values[i];
	return NULL;
}

/* srt-slurm's default vLLM connector, as --kv-transfer-config. */
#define NIXL "{\"kv_connector\": \"NixlConnector\", \"kv_role\": \"kv_both\"}"

/* The seed's minimal example: SGLang prefill + decode with Mooncake. */
static const char seed_minimal[] = "name: sglang-mooncake\n"
				   "model: {path: /models/qwen3-32b, container: sglang:latest}\n"
				   "resources: {gpus_per_node: 4}\n"
				   "engine: sglang\n"
				   "roles:\n"
				   "  prefill:\n"
				   "    args:\n"
				   "      disaggregation-transfer-backend: mooncake\n"
				   "      tensor-parallel-size: 4\n"
				   "  decode:\n"
				   "    args:\n"
				   "      disaggregation-transfer-backend: mooncake\n"
				   "      tensor-parallel-size: 4\n"
				   "frontend: {type: sglang-router}\n"
				   "services:\n"
				   "  - name: mooncake-master\n"
				   "    type: mooncake-master\n";

static void test_seed_minimal_pd(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r;
	struct srt_argv av;
	struct srt_launch ln;

	f->cl.container_runtime = SRT_CRT_PYXIS;
	r = compile(f, seed_minimal);
	av = argv_of(f, r, SRT_ROLE_PREFILL, 0, 0, NULL);
	WANT(&av, "python3", "-m", "sglang.launch_server", "--model-path", "/model",
	     "--served-model-name", "qwen3-32b", "--host", "<prefill_node_0_ip>", "--port", "6100",
	     "--nccl-port", "17500", "--disaggregation-mode", "prefill",
	     "--disaggregation-bootstrap-port", "7200", "--disaggregation-transfer-backend",
	     "mooncake", "--tensor-parallel-size", "4");
	av = argv_of(f, r, SRT_ROLE_DECODE, 0, 0, NULL);
	WANT(&av, "python3", "-m", "sglang.launch_server", "--model-path", "/model",
	     "--served-model-name", "qwen3-32b", "--host", "<decode_node_0_ip>", "--port", "6100",
	     "--nccl-port", "17500", "--disaggregation-mode", "decode",
	     "--disaggregation-transfer-backend", "mooncake", "--tensor-parallel-size", "4");

	srt_launch_worker(&ln, &f->a, r, &f->cl, &f->l,
			  srt_layout_worker(&f->l, SRT_ROLE_PREFILL, 0), 0);
	/* The model directory is mounted at /model; the whole node: no GPU list. */
	assert_string_equal(ln.mount, "/models/qwen3-32b");
	assert_int_equal(ln.nenv, 0);
	assert_int_equal(ln.bootstrap_port, 7200);
	assert_string_equal(ln.url, "http://<prefill_node_0_ip>:6100");
	assert_int_equal(ln.readiness.nprobes, 1);
	assert_int_equal(ln.readiness.probes[0].kind, SRT_PROBE_HTTP);
	assert_int_equal(ln.readiness.probes[0].port, 6100);
	assert_string_equal(ln.readiness.probes[0].path, "/health");
	/* Every word has a reason; only the node's IP is bound at run time. */
	for (size_t i = 0; i < ln.nwords; i++) {
		assert_non_null(ln.words[i].why);
		assert_int_equal(ln.words[i].runtime, i == 5);
	}

	/* Without containers the engine reads the host path; nothing is mounted. */
	f->cl.container_runtime = SRT_CRT_NONE;
	r = compile(f, seed_minimal);
	srt_launch_worker(&ln, &f->a, r, &f->cl, &f->l,
			  srt_layout_worker(&f->l, SRT_ROLE_DECODE, 0), 0);
	assert_string_equal(ln.words[1].arg, "/models/qwen3-32b");
	assert_null(ln.mount);
}

static void test_model_names(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r;
	struct srt_argv av;

	/* hf: the bare id, never mounted; a role's served-model-name names every worker. */
	f->cl.container_runtime = SRT_CRT_PYXIS;
	r = compile(
		f,
		"model: {path: 'hf:Qwen/Qwen3-8B', container: img}\n"
		"engine: sglang\n"
		"roles:\n"
		"  prefill: {args: {served-model-name: qwen, model-path: /model/, nccl-port: 1}}\n"
		"  decode: {}\n");
	av = argv_of(f, r, SRT_ROLE_DECODE, 0, 0, NULL);
	WANT(&av, "python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B",
	     "--served-model-name", "qwen", "--host", "<decode_node_0_ip>", "--port", "6100",
	     "--nccl-port", "17500", "--disaggregation-mode", "decode");
	/* The keys srtctl replaces are left out of the recipe's args (as srt-slurm does). */
	av = argv_of(f, r, SRT_ROLE_PREFILL, 0, 0, NULL);
	WANT(&av, "python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B",
	     "--served-model-name", "qwen", "--host", "<prefill_node_0_ip>", "--port", "6100",
	     "--nccl-port", "17500", "--disaggregation-mode", "prefill",
	     "--disaggregation-bootstrap-port", "7200");
	/* The model-path and nccl-port keys are warned about, served-model-name is not. */
	assert_int_equal(f->d.nwarnings, 2);
	assert_string_equal(srt_launch_served_name(&f->a, r), "qwen");
	/* A trailing slash does not hide the directory's name. */
	r = compile(f, "model: {path: /m/DeepSeek-R1/, container: img}\n"
		       "engine: sglang\nroles: {agg: {}}\n");
	assert_string_equal(srt_launch_served_name(&f->a, r), "DeepSeek-R1");
}

/* A recipe mode that agrees with the role and a recipe bootstrap port: the recipe's words. */
static void test_recipe_mode_and_bootstrap(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(f, "engine: sglang\n"
						"roles:\n"
						"  prefill: {args: {disaggregation-mode: prefill, "
						"disaggregation-bootstrap-port: 30001}}\n"
						"  decode: {}\n"
						"frontend: {type: sglang-router}\n");
	struct srt_argv av = argv_of(f, r, SRT_ROLE_PREFILL, 0, 0, NULL);
	struct srt_launch fe;

	WANT(&av, "python3", "-m", "sglang.launch_server", "--host", "<prefill_node_0_ip>",
	     "--port", "6100", "--nccl-port", "17500", "--disaggregation-mode", "prefill",
	     "--disaggregation-bootstrap-port", "30001");
	srt_launch_frontend(&fe, &f->a, r, &f->cl, &f->l);
	assert_string_equal(fe.words[3].arg, "30001");
}

/* A decode worker over 2 nodes, TP across them: the same argv but for the rank. */
static const char multinode[] = "engine: sglang\n"
				"model: {path: /m/M}\n"
				"resources: {gpus_per_node: 4}\n"
				"roles:\n"
				"  prefill: {args: {tp: 4}}\n"
				"  decode: {nodes: 2, gpus: 8, args: {tp: 8}}\n"
				"frontend: {type: sglang-router}\n";

static void test_multinode_decode(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(f, multinode);
	bool *rt0, *rt1;
	struct srt_argv a0 = argv_of(f, r, SRT_ROLE_DECODE, 0, 0, &rt0);
	struct srt_argv a1 = argv_of(f, r, SRT_ROLE_DECODE, 0, 1, &rt1);
	struct srt_launch l0, l1;
	const struct srt_lworker *w = srt_layout_worker(&f->l, SRT_ROLE_DECODE, 0);

	assert_int_equal(w->nnodes, 2);
	assert_int_equal(w->gpus, 4);
	WANT(&a0, "python3", "-m", "sglang.launch_server", "--model-path", "/m/M",
	     "--served-model-name", "M", "--host", "<decode_node_0_ip>", "--port", "6100",
	     "--nccl-port", "17500", "--disaggregation-mode", "decode", "--dist-init-addr",
	     "<decode_node_0_ip>:8300", "--nnodes", "2", "--node-rank", "0", "--tp", "8");
	WANT(&a1, "python3", "-m", "sglang.launch_server", "--model-path", "/m/M",
	     "--served-model-name", "M", "--host", "<decode_node_1_ip>", "--port", "0",
	     "--nccl-port", "17500", "--disaggregation-mode", "decode", "--dist-init-addr",
	     "<decode_node_0_ip>:8300", "--nnodes", "2", "--node-rank", "1", "--tp", "8");
	/* Only the node's own IP and the dist-init address hold placeholders. */
	for (size_t i = 0; i < a0.n; i++) {
		assert_int_equal(rt0[i], i == 8 || i == 16);
		assert_int_equal(rt1[i], i == 8 || i == 16);
	}
	/* The leader serves HTTP and is probed; the other rank is not. */
	srt_launch_worker(&l0, &f->a, r, &f->cl, &f->l, w, 0);
	srt_launch_worker(&l1, &f->a, r, &f->cl, &f->l, w, 1);
	assert_int_equal(l0.readiness.nprobes, 1);
	assert_int_equal(l1.readiness.nprobes, 0);
	assert_int_equal(l1.port, 0);
	assert_null(l1.url);
}

/* The agent binds the placeholder words (plan.json argv_runtime) and nothing else. */
static void test_multinode_bound(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(f, multinode);
	const char *hosts[] = { "n1", "n2", "n3" };
	const char *ips[] = { "10.0.0.1", "10.0.0.2", "10.0.0.3" };
	struct srt_plan *p = srt_plan_build(r, &f->cl, &f->d);
	struct srt_error err;
	json_t *j;
	const struct srt_runplan_proc *d1, *fe;

	assert_non_null(p);
	j = srt_runplan_to_json(&p->run);
	json_object_set_new(j, "generation", json_integer(1));
	srt_plan_free(p);
	if (srt_runplan_load(&f->rp, j, &err) < 0)
		fail_msg("load: %s", err.msg);
	json_decref(j);
	if (srt_runplan_bind(&f->rp, hosts, ips, 3, "/logs", &err) < 0)
		fail_msg("bind: %s", err.msg);
	d1 = srt_runplan_find(&f->rp, "decode_0_n3");
	assert_non_null(d1);
	assert_string_equal(d1->argv[8], "10.0.0.3");
	assert_string_equal(d1->argv[16], "10.0.0.2:8300");
	assert_string_equal(d1->argv[20], "1");
	fe = srt_runplan_find(&f->rp, "frontend");
	assert_non_null(fe);
	assert_string_equal(fe->argv[5], "http://10.0.0.1:6100");
	assert_string_equal(fe->argv[8], "http://10.0.0.2:6100");
	assert_string_equal(fe->endpoint, "10.0.0.1:8000");
}

/* plan.json's argv_runtime must name argv words. */
static void test_argv_runtime_checked(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(f, multinode);
	struct srt_plan *p = srt_plan_build(r, &f->cl, &f->d);
	struct srt_error err;
	json_t *j, *proc;

	assert_non_null(p);
	j = srt_runplan_to_json(&p->run);
	srt_plan_free(p);
	proc = json_array_get(json_object_get(j, "processes"), 1);
	assert_string_equal(json_string_value(json_object_get(proc, "name")),
			    "decode_0_<decode_node_0>");
	assert_int_equal(json_array_size(json_object_get(proc, "argv_runtime")), 2);
	json_object_set_new(proc, "argv_runtime", json_pack("[i]", 99));
	assert_int_equal(srt_runplan_load(&f->rp, j, &err), -1);
	assert_non_null(strstr(err.msg, "argv_runtime must list indexes of argv words"));
	json_decref(j);
}

static void test_two_workers_one_node(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(f, "engine: sglang\n"
						"model: {path: /m/M}\n"
						"resources: {gpus_per_node: 4}\n"
						"roles:\n"
						"  agg: {workers: 2, gpus: 2}\n");
	struct srt_argv a0 = argv_of(f, r, SRT_ROLE_AGG, 0, 0, NULL);
	struct srt_argv a1 = argv_of(f, r, SRT_ROLE_AGG, 1, 0, NULL);
	struct srt_launch l0, l1;

	assert_int_equal(f->l.nnodes, 1);
	WANT(&a0, "python3", "-m", "sglang.launch_server", "--model-path", "/m/M",
	     "--served-model-name", "M", "--host", "<agg_node_0_ip>", "--port", "6100",
	     "--nccl-port", "17500");
	WANT(&a1, "python3", "-m", "sglang.launch_server", "--model-path", "/m/M",
	     "--served-model-name", "M", "--host", "<agg_node_0_ip>", "--port", "6132",
	     "--nccl-port", "17501");
	srt_launch_worker(&l0, &f->a, r, &f->cl, &f->l, srt_layout_worker(&f->l, SRT_ROLE_AGG, 0),
			  0);
	srt_launch_worker(&l1, &f->a, r, &f->cl, &f->l, srt_layout_worker(&f->l, SRT_ROLE_AGG, 1),
			  0);
	assert_string_equal(lenv(&l0, "CUDA_VISIBLE_DEVICES")->value, "0,1");
	assert_string_equal(lenv(&l1, "CUDA_VISIBLE_DEVICES")->value, "2,3");
	assert_int_equal(l1.readiness.probes[0].port, 6132);
	/* The cluster names the variable (ROCm). */
	f->cl.visible_devices_env = "ROCR_VISIBLE_DEVICES";
	srt_launch_worker(&l1, &f->a, r, &f->cl, &f->l, srt_layout_worker(&f->l, SRT_ROLE_AGG, 1),
			  0);
	assert_null(lenv(&l1, "CUDA_VISIBLE_DEVICES"));
	assert_string_equal(lenv(&l1, "ROCR_VISIBLE_DEVICES")->value, "2,3");
}

/* Colocated decode continues after prefill's GPUs on the shared node. */
static void test_colocated_gpus(void **state)
{
	struct fx *f = *state;
	const struct srt_lworker *p0, *d0;

	compile(f, "engine: sglang\n"
		   "resources: {gpus_per_node: 8}\n"
		   "roles:\n"
		   "  prefill: {gpus: 4}\n"
		   "  decode: {nodes: colocate, gpus: 4}\n");
	p0 = srt_layout_worker(&f->l, SRT_ROLE_PREFILL, 0);
	d0 = srt_layout_worker(&f->l, SRT_ROLE_DECODE, 0);
	assert_int_equal(p0->node, d0->node);
	assert_int_equal(p0->gpu_first, 0);
	assert_int_equal(d0->gpu_first, 4);
	assert_int_equal(p0->slot, 0);
	assert_int_equal(d0->slot, 1);
}

static void test_vllm_dp_across_nodes(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r =
		compile(f, "engine: vllm\n"
			   "model: {path: /m/M}\n"
			   "resources: {gpus_per_node: 4}\n"
			   "roles:\n"
			   "  agg: {nodes: 2, gpus: 8, args: {data-parallel-size: 8}}\n");
	bool *rt;
	struct srt_argv a0 = argv_of(f, r, SRT_ROLE_AGG, 0, 0, &rt);
	struct srt_argv a1 = argv_of(f, r, SRT_ROLE_AGG, 0, 1, NULL);

	WANT(&a0, "vllm", "serve", "/m/M", "--served-model-name", "M", "--host", "<agg_node_0_ip>",
	     "--port", "6100", "--data-parallel-size-local", "4", "--data-parallel-address",
	     "<agg_node_0_ip>", "--data-parallel-rpc-port", "8400", "--kv-transfer-config", NIXL,
	     "--data-parallel-size", "8");
	assert_true(rt[6]);
	assert_true(rt[12]);
	WANT(&a1, "vllm", "serve", "/m/M", "--served-model-name", "M", "--data-parallel-size-local",
	     "4", "--data-parallel-address", "<agg_node_0_ip>", "--data-parallel-rpc-port", "8400",
	     "--headless", "--data-parallel-start-rank", "4", "--kv-transfer-config", NIXL,
	     "--data-parallel-size", "8");
}

static void test_vllm_tp_across_nodes(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r =
		compile(f, "engine: vllm\n"
			   "model: {path: /m/M}\n"
			   "resources: {gpus_per_node: 4}\n"
			   "roles:\n"
			   "  agg: {nodes: 2, gpus: 8, args: {tensor-parallel-size: 8}}\n");
	struct srt_argv a1 = argv_of(f, r, SRT_ROLE_AGG, 0, 1, NULL);

	WANT(&a1, "vllm", "serve", "/m/M", "--served-model-name", "M", "--nnodes", "2",
	     "--node-rank", "1", "--master-addr", "<agg_node_0_ip>", "--headless",
	     "--kv-transfer-config", NIXL, "--tensor-parallel-size", "8");
}

static void test_router_pd_and_agg(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r;
	struct srt_plan *p;
	const struct srt_runplan_proc *fe = NULL;
	struct srt_argv av;

	/* vLLM PD through vllm-router: prefill URL + NIXL side-channel port. */
	r = compile(f, "engine: vllm\n"
		       "model: {path: /m/M}\n"
		       "roles: {prefill: {}, decode: {}}\n"
		       "frontend: {type: vllm-router, port: 9000, args: {policy: round_robin}}\n");
	p = srt_plan_build(r, &f->cl, &f->d);
	assert_non_null(p);
	for (size_t i = 0; i < p->run.nprocs; i++)
		if (p->run.procs[i].kind == SRT_PROC_FRONTEND)
			fe = &p->run.procs[i];
	assert_non_null(fe);
	av = (struct srt_argv){ fe->argv, fe->argc };
	WANT(&av, "vllm-router", "--vllm-pd-disaggregation", "--prefill",
	     "http://<prefill_node_0_ip>:6100", "5400", "--decode",
	     "http://<decode_node_0_ip>:6100", "--host", "0.0.0.0", "--port", "9000", "--policy",
	     "round_robin");
	assert_string_equal(p->run.frontend_url_ph, "http://<prefill_node_0_ip>:9000");
	srt_plan_free(p);

	/* Aggregated workers behind the SGLang router. */
	r = compile(f, "engine: sglang\n"
		       "resources: {gpus_per_node: 4}\n"
		       "roles: {agg: {workers: 2, gpus: 2}}\n"
		       "frontend: {type: sglang-router}\n");
	p = srt_plan_build(r, &f->cl, &f->d);
	assert_non_null(p);
	fe = &p->run.procs[2];
	assert_int_equal(fe->kind, SRT_PROC_FRONTEND);
	av = (struct srt_argv){ fe->argv, fe->argc };
	WANT(&av, "python3", "-m", "sglang_router.launch_router", "--worker-urls",
	     "http://<agg_node_0_ip>:6100", "http://<agg_node_0_ip>:6132", "--host", "0.0.0.0",
	     "--port", "8000");
	assert_true(fe->probes[0].http);
	assert_string_equal(fe->probes[0].path, "/health");
	srt_plan_free(p);
}

/*
 * roles.<role>.args.port (srt-slurm appends it after its own --port, so it
 * wins): the workers' --port, once, and what the router and the readiness
 * probe reach; another role keeps srtctl's ports.
 */
static void test_role_port(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r;
	struct srt_plan *p;
	const struct srt_runplan_proc *fe = NULL, *pre = NULL;
	int ports = 0;

	r = compile(f, "engine: sglang\n"
		       "roles:\n"
		       "  prefill: {workers: 2, nodes: 2, args: {port: 5000, tp: 4}}\n"
		       "  decode: {}\n"
		       "frontend: {type: sglang-router}\n");
	p = srt_plan_build(r, &f->cl, &f->d);
	assert_non_null(p);
	assert_int_equal(f->d.nerrors, 0);
	for (size_t i = 0; i < p->run.nprocs; i++) {
		if (p->run.procs[i].kind == SRT_PROC_FRONTEND)
			fe = &p->run.procs[i];
		if (!pre && p->run.procs[i].kind == SRT_PROC_WORKER)
			pre = &p->run.procs[i];
	}
	assert_non_null(fe);
	assert_non_null(pre);
	for (size_t i = 0; i < pre->argc; i++)
		if (!strcmp(pre->argv[i], "--port")) {
			ports++;
			assert_string_equal(pre->argv[i + 1], "5000");
		}
	assert_int_equal(ports, 1);
	assert_true(pre->probes[0].http);
	assert_int_equal(pre->probes[0].port, 5000);
	for (size_t k = 0; k < 3; k++) {
		static const char *const urls[] = { "http://<prefill_node_0_ip>:5000",
						    "http://<prefill_node_1_ip>:5000",
						    "http://<decode_node_0_ip>:6100" };
		bool seen = false;

		for (size_t i = 0; i < fe->argc; i++)
			seen |= !strcmp(fe->argv[i], urls[k]);
		if (!seen)
			fail_msg("the router is not given %s", urls[k]);
	}
	srt_plan_free(p);
}

/*
 * Dynamo: etcd first (implied), Dynamo's workers with the discovery env and
 * their status server as readiness, the frontend last with --http-port.
 */
static void test_dynamo(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r;
	struct srt_plan *p;
	const struct srt_runplan_proc *pr;
	struct srt_argv av;

	r = compile(f, "engine: sglang\n"
		       "model: {path: /m/M}\n"
		       "resources: {gpus_per_node: 4}\n"
		       "roles: {prefill: {gpus: 2}, decode: {nodes: colocate, gpus: 2}}\n"
		       "frontend: {type: dynamo, port: 9000, args: {router-mode: kv}}\n");
	p = srt_plan_build(r, &f->cl, &f->d);
	assert_non_null(p);
	assert_int_equal(p->run.nprocs, 4);
	pr = &p->run.procs[0];
	assert_string_equal(pr->name, "etcd");
	assert_string_equal(pr->phase, "infra");
	av = (struct srt_argv){ pr->argv, pr->argc };
	WANT(&av, "etcd", "--data-dir", "<log_dir>/etcd", "--listen-client-urls",
	     "http://0.0.0.0:2379", "--advertise-client-urls", "http://<prefill_node_0_ip>:2379");
	assert_true(pr->argv_runtime[2] && pr->argv_runtime[6] && !pr->argv_runtime[4]);
	assert_true(pr->probes[0].http);
	assert_int_equal(pr->probes[0].port, 2379);
	assert_true(pr->group < p->run.procs[1].group);

	pr = proc_named(p, "prefill_0");
	av = (struct srt_argv){ pr->argv, pr->argc };
	WANT(&av, "python3", "-m", "dynamo.sglang", "--model-path", "/m/M", "--served-model-name",
	     "M", "--host", "<prefill_node_0_ip>", "--port", "6100", "--nccl-port", "17500",
	     "--disaggregation-mode", "prefill", "--disaggregation-bootstrap-port", "7200",
	     "--request-plane", "tcp");
	assert_string_equal(penv(pr, "ETCD_ENDPOINTS"), "http://<infra_node_ip>:2379");
	assert_string_equal(penv(pr, "DYN_REQUEST_PLANE"), "tcp");
	assert_string_equal(penv(pr, "DYN_SYSTEM_PORT"), "7500");
	assert_null(penv(pr, "NATS_SERVER"));
	assert_int_equal(pr->probes[0].port, 7500);
	assert_string_equal(pr->probes[0].path, "/health");
	pr = proc_named(p, "decode_0");
	assert_string_equal(penv(pr, "DYN_SYSTEM_PORT"), "7501");
	assert_int_equal(pr->probes[0].port, 7501);

	pr = proc_named(p, "frontend");
	av = (struct srt_argv){ pr->argv, pr->argc };
	WANT(&av, "python3", "-m", "dynamo.frontend", "--http-port=9000", "--router-mode", "kv");
	assert_string_equal(penv(pr, "ETCD_ENDPOINTS"), "http://<infra_node_ip>:2379");
	assert_int_equal(pr->probes[0].port, 9000);
	assert_true(pr->group > proc_named(p, "decode_0")->group);
	assert_string_equal(p->run.frontend_url_ph, "http://<prefill_node_0_ip>:9000");
	srt_plan_free(p);

	/*
	 * vLLM over a NATS request plane: --model as a flag, no API server flags,
	 * the role as --disaggregation-mode; NATS implied; an external etcd.
	 */
	r = compile(f, "engine: vllm\n"
		       "model: {path: /m/M}\n"
		       "roles: {prefill: {}, decode: {}}\n"
		       "frontend: {type: dynamo}\n"
		       "dynamo: {request_plane: nats, version: 0.8.0}\n"
		       "services: [{name: etcd, type: etcd, external: 'http://10.1.1.1:2379'}]\n");
	p = srt_plan_build(r, &f->cl, &f->d);
	assert_non_null(p);
	pr = &p->run.procs[0];
	assert_string_equal(pr->name, "nats");
	av = (struct srt_argv){ pr->argv, pr->argc };
	WANT(&av, "nats-server", "-js", "-sd", "<log_dir>/nats");
	assert_false(pr->probes[0].http);
	assert_int_equal(pr->probes[0].port, 4222);
	pr = proc_named(p, "prefill_0");
	av = (struct srt_argv){ pr->argv, pr->argc };
	WANT(&av, "python3", "-m", "dynamo.vllm", "--model", "/m/M", "--served-model-name", "M",
	     "--disaggregation-mode", "prefill", "--kv-transfer-config", NIXL, "--request-plane",
	     "nats");
	assert_string_equal(penv(pr, "ETCD_ENDPOINTS"), "http://10.1.1.1:2379");
	assert_string_equal(penv(pr, "NATS_SERVER"), "nats://<infra_node_ip>:4222");
	assert_string_equal(penv(pr, "DYN_REQUEST_PLANE"), "nats");
	assert_string_equal(penv(pr, "VLLM_NIXL_SIDE_CHANNEL_PORT"), "5400");
	for (size_t i = 0; i < p->run.nprocs; i++)
		assert_string_not_equal(p->run.procs[i].name, "etcd");
	srt_plan_free(p);
}

/*
 * Dynamo's mocker, as srt-slurm renders it: the model, the role, a
 * prefill's bootstrap ports (one per engine), srt-slurm's six default
 * knobs, the knobs set to something else, then the role's args; no
 * --request-plane (DYN_REQUEST_PLANE), and ZMQ events without NATS.
 */
static void test_dynamo_mocker(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r;
	struct srt_plan *p;
	const struct srt_runplan_proc *pr;
	struct srt_argv av;

	r = compile(f,
		    "engine: {type: mocker, speedup_ratio: 10, num_workers: 2,\n"
		    "         enable_prefix_caching: false, decode_speedup_ratio: 1,\n"
		    "         kv_cache_dtype: fp8, startup_time: 0.25}\n"
		    "model: {path: 'hf:Qwen/Qwen3-0.6B'}\n"
		    "resources: {gpus_per_node: 4}\n"
		    "roles: {prefill: {workers: 2, gpus: 2}, decode: {args: {max-num-seqs: 512}}}\n"
		    "frontend: {type: dynamo}\n");
	p = srt_plan_build(r, &f->cl, &f->d);
	assert_non_null(p);
	pr = proc_named(p, "prefill_1");
	av = (struct srt_argv){ pr->argv, pr->argc };
	WANT(&av, "python3", "-m", "dynamo.mocker", "--model-path", "Qwen/Qwen3-0.6B",
	     "--disaggregation-mode", "prefill", "--bootstrap-ports", "7202,7203", "--engine-type",
	     "vllm", "--speedup-ratio", "10.0", "--data-parallel-size", "1",
	     "--num-gpu-blocks-override", "16384", "--max-num-seqs", "256",
	     "--max-num-batched-tokens", "8192", "--num-workers", "2", "--startup-time", "0.25",
	     "--kv-cache-dtype", "fp8", "--no-enable-prefix-caching");
	assert_string_equal(penv(pr, "DYN_EVENT_PLANE"), "zmq");
	assert_string_equal(penv(pr, "DYN_SYSTEM_PORT"), "7501");
	assert_int_equal(pr->probes[0].port, 7501);
	pr = proc_named(p, "decode_0");
	av = (struct srt_argv){ pr->argv, pr->argc };
	WANT(&av, "python3", "-m", "dynamo.mocker", "--model-path", "Qwen/Qwen3-0.6B",
	     "--disaggregation-mode", "decode", "--engine-type", "vllm", "--speedup-ratio", "10.0",
	     "--data-parallel-size", "1", "--num-gpu-blocks-override", "16384", "--max-num-seqs",
	     "256", "--max-num-batched-tokens", "8192", "--num-workers", "2", "--startup-time",
	     "0.25", "--kv-cache-dtype", "fp8", "--no-enable-prefix-caching", "--max-num-seqs",
	     "512");
	srt_plan_free(p);

	/* Aggregated, srt-slurm's defaults; with NATS running, its event plane stays NATS. */
	r = compile(f, "engine: mocker\n"
		       "model: {path: /m/M}\n"
		       "roles: {agg: {}}\n"
		       "frontend: {type: dynamo}\n"
		       "dynamo: {request_plane: nats}\n");
	p = srt_plan_build(r, &f->cl, &f->d);
	assert_non_null(p);
	pr = proc_named(p, "agg_0");
	av = (struct srt_argv){ pr->argv, pr->argc };
	WANT(&av, "python3", "-m", "dynamo.mocker", "--model-path", "/m/M", "--engine-type", "vllm",
	     "--speedup-ratio", "100.0", "--data-parallel-size", "1", "--num-gpu-blocks-override",
	     "16384", "--max-num-seqs", "256", "--max-num-batched-tokens", "8192");
	assert_null(penv(pr, "DYN_EVENT_PLANE"));
	assert_string_equal(penv(pr, "DYN_REQUEST_PLANE"), "nats");
	srt_plan_free(p);
}

/*
 * vLLM's connector, as srt-slurm gives it: a role's args.connector, else
 * engine.connector, else nixl; a role's kv-transfer-config wins; none is none.
 */
static void test_vllm_connector(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r;
	struct srt_argv av;

	r = compile(f, "engine: {type: vllm, connector: lmcache}\n"
		       "model: {path: /m/M}\n"
		       "roles:\n"
		       "  prefill: {args: {connector: none}}\n"
		       "  decode: {args: {kv-transfer-config: '{\"kv_connector\": \"X\"}'}}\n");
	assert_int_equal(f->d.nwarnings, 0);
	av = argv_of(f, r, SRT_ROLE_PREFILL, 0, 0, NULL);
	WANT(&av, "vllm", "serve", "/m/M", "--served-model-name", "M", "--host",
	     "<prefill_node_0_ip>", "--port", "6100");
	av = argv_of(f, r, SRT_ROLE_DECODE, 0, 0, NULL);
	WANT(&av, "vllm", "serve", "/m/M", "--served-model-name", "M", "--host",
	     "<decode_node_0_ip>", "--port", "6100", "--kv-transfer-config",
	     "{\"kv_connector\": \"X\"}");
	/* tp x pp x dp ranks against the worker's GPUs: a warning when they differ. */
	r = compile(f, "engine: vllm\nmodel: {path: /m/M}\nresources: {gpus_per_node: 4}\n"
		       "roles: {agg: {gpus: 2, args: {data-parallel-size: 4}}}\n");
	assert_int_equal(f->d.nwarnings, 1);
	{
		char *msg = srt_diag_format(&f->d.items[0]);

		assert_non_null(strstr(msg,
				       "roles.agg: each agg worker runs tensor-parallel-size 1 "
				       "x pipeline-parallel-size 1 x data-parallel-size 4 = 4 "
				       "vLLM ranks, one GPU each, but has 2 GPU(s) (gpus)"));
		free(msg);
	}
	r = compile(f, "engine: vllm\nmodel: {path: /m/M}\nresources: {gpus_per_node: 4}\n"
		       "roles: {agg: {nodes: 2, args: {tensor-parallel-size: 4, "
		       "data_parallel_size: 2}}}\n");
	assert_int_equal(f->d.nwarnings, 0);
	/* dp_launch_mode per_node is what srtctl does: no warning; per_gpu: one. */
	r = compile(f, "engine: {type: vllm, dp_launch_mode: per_node}\nroles: {agg: {}}\n");
	assert_int_equal(f->d.nwarnings, 0);
	r = compile(f, "engine: {type: vllm, dp_launch_mode: per_gpu}\nroles: {agg: {}}\n");
	assert_int_equal(f->d.nwarnings, 1);
	r = compile(f, "engine: {type: vllm, connector: lmcache}\n"
		       "model: {path: /m/M}\n"
		       "roles: {agg: {}}\n");
	av = argv_of(f, r, SRT_ROLE_AGG, 0, 0, NULL);
	WANT(&av, "vllm", "serve", "/m/M", "--served-model-name", "M", "--host", "<agg_node_0_ip>",
	     "--port", "6100", "--kv-transfer-config",
	     "{\"kv_connector\": \"LMCacheConnectorV1\", \"kv_role\": \"kv_both\"}");
}

static void test_direct_and_none(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r;
	struct srt_plan *p;

	/* sglang (2.0): the single aggregated worker serves frontend.port; no router. */
	r = compile(f, "engine: sglang\n"
		       "roles: {agg: {}}\n"
		       "frontend: {type: sglang}\n"
		       "benchmark: {type: custom, command: run}\n");
	p = srt_plan_build(r, &f->cl, &f->d);
	assert_non_null(p);
	assert_int_equal(p->run.nprocs, 2);
	assert_string_equal(p->run.procs[0].argv[6], "8000");
	assert_string_equal(p->run.frontend_url_ph, "http://<agg_node_0_ip>:8000");
	assert_string_equal(penv(&p->run.procs[1], "SRT_FRONTEND_URL"),
			    "http://<agg_node_0_ip>:8000");
	srt_plan_free(p);

	/* none: no frontend, no URL. */
	r = compile(f, "engine: sglang\n"
		       "roles: {agg: {}}\n"
		       "benchmark: {type: custom, command: run}\n");
	p = srt_plan_build(r, &f->cl, &f->d);
	assert_non_null(p);
	assert_int_equal(p->run.nprocs, 2);
	assert_null(p->run.frontend_url_ph);
	assert_null(penv(&p->run.procs[1], "SRT_FRONTEND_URL"));
	srt_plan_free(p);
}

/* ---- conflicts: each one error, at the key, with the reason ---- */

struct conflict {
	const char *yaml;
	const char *path; /* of the error */
	const char *msg;  /* a part of its message */
};

static void test_conflicts(void **state)
{
	struct fx *f = *state;
	static const struct conflict cases[] = {
		{ "engine: sglang\nresources: {gpus_per_node: 4}\n"
		  "roles: {agg: {workers: 2, gpus: 2, args: {port: 30000}}}\n",
		  "roles.agg.args.port",
		  "port 30000 would be the HTTP port of every worker of the role, and up to 2 of "
		  "them share a node (2 GPUs each on 4-GPU nodes); remove it (srtctl then gives each "
		  "worker 6100 + 32 per worker on its node)" },
		{ "engine: sglang\nroles: {agg: {args: {port: http}}}\n", "roles.agg.args.port",
		  "'http' is not a port: write a number from 1 to 65535" },
		{ "engine: sglang\nroles: {agg: {args: {port: 70000}}}\n", "roles.agg.args.port",
		  "is not a port: write a number from 1 to 65535" },
		{ "engine: sglang\nroles: {agg: {args: {port: 9000}}}\nfrontend: {type: sglang}\n",
		  "roles.agg.args.port",
		  "with frontend.type sglang the aggregated worker serves frontend.port itself; set "
		  "frontend.port instead" },
		{ "engine: sglang\nresources: {gpus_per_node: 4}\n"
		  "roles:\n  prefill: {gpus: 2, args: {port: 5000}}\n"
		  "  decode: {nodes: colocate, gpus: 2}\n",
		  "roles.prefill.args.port", "decode shares the prefill nodes (nodes: colocate)" },
		{ "engine: sglang\nresources: {gpus_per_node: 4}\nroles: {agg: {args: {port: 7201}}}\n",
		  "roles.agg.args.port",
		  "port 7201 is one of SGLang's PD bootstrap ports on the worker nodes (7200-7203); "
		  "pick another port" },
		{ "engine: sglang\nroles: {agg: {args: {port: 8000}}}\n"
		  "frontend: {type: sglang-router}\n",
		  "roles.agg.args.port", "port 8000 is frontend.port" },
		{ "engine: sglang\nroles: {agg: {args: {port: 8701}}}\n", "roles.agg.args.port",
		  "port 8701 is the Mooncake master's metadata port on the worker nodes (8701)" },
		{ "engine: sglang\nroles: {agg: {args: {host: 127.0.0.1}}}\n",
		  "roles.agg.args.host",
		  "sets --host, which srtctl owns: srtctl binds every engine to its node's IP" },
		{ "engine: sglang\nroles: {agg: {args: {dist-init-addr: 'a:1'}}}\n",
		  "roles.agg.args.dist-init-addr", "sets --dist-init-addr, which srtctl owns" },
		{ "engine: sglang\nroles: {agg: {args: {nccl-init-addr: 'a:1'}}}\n",
		  "roles.agg.args.nccl-init-addr", "sets --dist-init-addr, which srtctl owns" },
		{ "engine: sglang\nroles: {agg: {args: {nnodes: 2}}}\n", "roles.agg.args.nnodes",
		  "sets --nnodes, which srtctl owns" },
		{ "engine: sglang\nroles: {agg: {args: {node_rank: 0}}}\n",
		  "roles.agg.args.node_rank", "sets --node-rank, which srtctl owns" },
		{ "engine: sglang\nroles: {agg: {extra_args: [--port=1]}}\n",
		  "roles.agg.extra_args[0]", "'--port=1' sets --port, which srtctl owns" },
		{ "engine: sglang\nroles: {agg: {extra_args: [--model-path, /x]}}\n",
		  "roles.agg.extra_args[0]", "sets --model-path, which srtctl owns" },
		{ "engine: sglang\nroles:\n  prefill: {args: {disaggregation-mode: decode}}\n"
		  "  decode: {}\n",
		  "roles.prefill.args.disaggregation-mode", "it must be 'prefill'" },
		{ "engine: vllm\nroles: {agg: {args: {data_parallel_address: x}}}\n",
		  "roles.agg.args.data_parallel_address",
		  "sets --data-parallel-address, which srtctl owns" },
		{ "engine: vllm\nroles: {agg: {extra_args: [-dpa, x]}}\n",
		  "roles.agg.extra_args[0]", "'-dpa' sets --data-parallel-address" },
		{ "engine: vllm\nroles: {agg: {args: {headless: true}}}\n",
		  "roles.agg.args.headless", "sets --headless, which srtctl owns" },
		{ "engine: vllm\nroles: {agg: {args: {master-addr: x}}}\n",
		  "roles.agg.args.master-addr", "sets --master-addr, which srtctl owns" },
		{ "engine: sglang\nroles: {agg: {}}\nfrontend: {type: dynamo}\n"
		  "dynamo: {request_plane: http}\n",
		  "dynamo.request_plane", "unknown request plane 'http'; expected tcp or nats" },
		{ "engine: {type: vllm, connector: moriio}\nroles: {agg: {}}\n", "engine.connector",
		  "connector 'moriio' is not one srtctl can pass" },
		{ "engine: trtllm\nroles: {agg: {gpus: 1, kv_events: true}}\n",
		  "roles.agg.kv_events",
		  "roles.agg.kv_events is not supported by the trtllm engine" },
		{ "engine: sglang\nroles: {agg: {kv_events: [zmq]}}\n", "roles.agg.kv_events",
		  "must be true, false or a mapping of the publisher's settings" },
		{ "engine: {type: vllm, dp_launch_mode: per_rank}\nroles: {agg: {}}\n",
		  "engine.dp_launch_mode",
		  "'per_rank' is not a DP launch mode; expected per_node or per_gpu" },
		{ "engine: vllm\nroles: {agg: {args: {connector: lmcache-mp}}}\n"
		  "services: [{name: lmcache-server, type: lmcache-server, enabled: false}]\n",
		  "roles.agg",
		  "connector lmcache-mp reaches the LMCache server on the worker's own node "
		  "(tcp://localhost:8750), but no enabled lmcache-server runs on the agg nodes" },
		{ "engine: vllm\nroles: {prefill: {args: {connector: lmcache-mp}}, decode: {}}\n"
		  "services: [{name: l, type: lmcache-server, placement: {node: decode}}]\n",
		  "roles.prefill", "no enabled lmcache-server runs on the prefill nodes" },
		{ "engine: {type: mocker, engine_type: trt}\nroles: {agg: {}}\nfrontend: {type: "
		  "dynamo}\n",
		  "engine.engine_type",
		  "'trt' is not one of vllm, sglang, trtllm (dynamo.mocker's "
		  "--engine-type)" },
		{ "engine: {type: mocker, max_num_seqs: 0}\nroles: {agg: {}}\n",
		  "engine.max_num_seqs", "must be an integer from 1 to 1000000000, not 0" },
		{ "engine: {type: mocker, speedup_ratio: fast}\nroles: {agg: {}}\n",
		  "engine.speedup_ratio", "must be a number from 0 to 1e12, not fast" },
		{ "engine: {type: mocker, speedup_ratio: ''}\nroles: {agg: {}}\n",
		  "engine.speedup_ratio", "must be a number from 0 to 1e12, not an empty string" },
		{ "engine: {type: mocker, startup_time: [1]}\nroles: {agg: {}}\n",
		  "engine.startup_time", "must be a number from 0 to 1e12, not a list" },
		{ "engine: sglang\nroles: {agg: {}}\nfrontend: {type: dynamo, args: {http-port: 1}}\n",
		  "frontend.args.http-port", "remove it and set frontend.port" },
		{ "engine: sglang\nroles: {agg: {}}\nfrontend: {type: dynamo}\n"
		  "services: [{name: etcd, type: etcd, enabled: false}]\n",
		  "frontend.type", "this recipe's etcd service is disabled" },
		{ "engine: vllm\nroles: {agg: {}}\nfrontend: {type: dynamo}\n"
		  "dynamo: {request_plane: nats}\nservices: [{name: nats, type: nats, enabled: false}]\n",
		  "dynamo", "a NATS request or event plane needs NATS" },
		{ "engine: sglang\nroles: {agg: {}}\nfrontend: {type: dynamo}\n"
		  "services: [{name: etcd, type: etcd, placement: {node: workers}}]\n",
		  "services[0].placement.node", "etcd runs once per job" },
		{ "engine: sglang\nroles: {agg: {}}\nfrontend: {type: dynamo}\n"
		  "services: [{name: etcd, type: etcd, start: after_frontend}]\n",
		  "services[0].start", "etcd must run before the workers" },
		{ "engine: sglang\nroles: {agg: {}}\nfrontend: {type: dynamo}\n"
		  "services: [{name: etcd, type: etcd, external: '10.0.0.5:2379'}]\n",
		  "services[0].external", "must be a URL http://host:port" },
		{ "engine: sglang\nroles: {agg: {}}\nfrontend: {type: trtllm_serve}\n",
		  "frontend.type",
		  "'trtllm_serve' is the direct frontend of trtllm, but the engine is sglang" },
		{ "engine: sglang\nroles: {prefill: {}, decode: {}}\nfrontend: {type: sglang}\n",
		  "frontend.type",
		  "this recipe has prefill/decode workers. Write 'type: sglang-router'" },
		{ "engine: sglang\nroles: {agg: {}}\nfrontend: {type: vllm}\n", "frontend.type",
		  "but the engine is sglang; write 'type: sglang'" },
		{ "engine: sglang\nroles: {prefill: {}, decode: {}}\nfrontend: {type: vllm-router}\n",
		  "frontend.type", "'vllm-router' cannot route sglang prefill/decode workers" },
		{ "engine: trtllm\nroles: {prefill: {gpus: 1}, decode: {gpus: 1}}\n"
		  "frontend: {type: sglang-router}\n",
		  "frontend.type",
		  "'sglang-router' cannot route trtllm prefill/decode workers (each router speaks its "
		  "engine's disaggregation protocol); write 'type: dynamo' or 'type: trtllm_serve'" },
		{ "engine: trtllm\nroles: {prefill: {gpus: 1}, decode: {gpus: 1}}\n"
		  "frontend: {type: trtllm_serve, server_config_extra: {port: 9}}\n",
		  "frontend.server_config_extra.port",
		  "srtctl writes 'port' in the orchestrator's" },
		{ "engine: trtllm\nroles: {prefill: {gpus: 1}, decode: {gpus: 1}}\n"
		  "frontend: {type: trtllm_serve, args: {config_file: x.yaml}}\n",
		  "frontend.args.config_file", "srtctl passes the orchestrator's config file" },
		{ "engine: sglang\nroles: {agg: {}}\n"
		  "frontend: {type: sglang-router, args: {port: 1}}\n",
		  "frontend.args.port", "remove it and set frontend.port" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct conflict *c = &cases[i];
		bool found = false;

		srt_compiled_release(&f->comp);
		srt_diags_release(&f->d);
		srt_diags_init(&f->d);
		srt_compile_bytes(c->yaml, strlen(c->yaml), "t.yaml", &f->cl, &f->comp, &f->d);
		if (f->d.nerrors != 1) {
			srt_diags_print(&f->d, stdout);
			fail_msg("case %zu: %zu errors, want 1", i, f->d.nerrors);
		}
		for (size_t k = 0; k < f->d.n; k++) {
			const struct srt_diag *dg = &f->d.items[k];

			if (dg->level != SRT_DIAG_ERROR)
				continue;
			found = true;
			if (!dg->path || strcmp(dg->path, c->path) || !strstr(dg->msg, c->msg) ||
			    !dg->line)
				fail_msg("case %zu: %u:%u: %s: %s", i, dg->line, dg->col,
					 dg->path ? dg->path : "", dg->msg);
		}
		assert_true(found);
	}
}

/* health_check's window: the recipe's, else the cluster's default_health_check, else 180 x 10 s. */
static void test_health_check(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r;
	struct srt_launch ln;
	const char *base = "engine: sglang\nroles:\n  agg:\n    nodes: 1\n    args: {tp: 4}\n";
	char yaml[512];

	r = compile(f, base);
	srt_launch_worker(&ln, &f->a, r, &f->cl, &f->l, srt_layout_worker(&f->l, SRT_ROLE_AGG, 0),
			  0);
	assert_int_equal(ln.readiness.timeout_seconds, 1800);
	f->cl.health_max_attempts = 540;
	assert_int_equal(srt_launch_ready_timeout(r, &f->cl), 5400);
	f->cl.health_interval_seconds = 20;
	assert_int_equal(srt_launch_ready_timeout(r, &f->cl), 10800);
	snprintf(yaml, sizeof(yaml), "%shealth_check: {max_attempts: 720}\n", base);
	r = compile(f, yaml);
	assert_int_equal(srt_launch_ready_timeout(r, &f->cl), 14400);
	srt_launch_worker(&ln, &f->a, r, &f->cl, &f->l, srt_layout_worker(&f->l, SRT_ROLE_AGG, 0),
			  0);
	assert_int_equal(ln.readiness.timeout_seconds, 14400);
	snprintf(yaml, sizeof(yaml),
		 "%shealth_check: {max_attempts: 1000000, interval_seconds: 3600}\n", base);
	r = compile(f, yaml);
	assert_int_equal(srt_launch_ready_timeout(r, NULL), 10 * 365 * 86400);
}

/* TRT-LLM under numactl -m 0,1: by GPU type for prefill/decode, or as engine.numa_memory_bind says. */
static void test_numa_bind(void **state)
{
	static const struct {
		const char *gpu, *bind; /* resources.gpu_type, engine.numa_memory_bind */
		bool pd, agg;		/* under numactl: a PD worker, an agg worker */
	} cases[] = {
		{ "gb200", NULL, true, false },	    { "gb300", NULL, true, false },
		{ "vrnvl72", NULL, true, false },   { "GB200", NULL, false, false },
		{ "h100", NULL, false, false },	    { NULL, NULL, false, false },
		{ "gb200", "false", false, false }, { "h100", "true", true, true },
		{ "gb200", "local", false, false },
	};
	struct fx *f = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char yaml[1024];
		const struct srt_recipe *r;
		struct srt_argv av;
		bool *rt;

		snprintf(yaml, sizeof(yaml),
			 "engine: {type: trtllm%s%s}\nmodel: {path: /m/M}\n"
			 "resources: {gpus_per_node: 4%s%s}\n"
			 "roles:\n  prefill: {gpus: 4, args: {tensor_parallel_size: 4}}\n"
			 "  decode: {gpus: 4, args: {tensor_parallel_size: 4}}\n"
			 "frontend: {type: dynamo}\n",
			 cases[i].bind ? ", numa_memory_bind: " : "",
			 cases[i].bind ? cases[i].bind : "", cases[i].gpu ? ", gpu_type: " : "",
			 cases[i].gpu ? cases[i].gpu : "");
		r = compile(f, yaml);
		if (srt_launch_numa_bind(r, SRT_ROLE_PREFILL) != cases[i].pd ||
		    srt_launch_numa_bind(r, SRT_ROLE_DECODE) != cases[i].pd ||
		    srt_launch_numa_bind(r, SRT_ROLE_AGG) != cases[i].agg)
			fail_msg("case %zu (%s, %s): wrong binding", i, cases[i].gpu,
				 cases[i].bind);
		av = argv_of(f, r, SRT_ROLE_DECODE, 0, 0, &rt);
		if (cases[i].pd) {
			assert_string_equal(av.v[0], "numactl");
			assert_string_equal(av.v[1], "-m");
			assert_string_equal(av.v[2], "0,1");
			assert_string_equal(av.v[3], "trtllm-llmapi-launch");
		} else {
			assert_string_equal(av.v[0], "trtllm-llmapi-launch");
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_seed_minimal_pd, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_model_names, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_recipe_mode_and_bootstrap, fx_setup,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_multinode_decode, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_multinode_bound, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_argv_runtime_checked, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_two_workers_one_node, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_colocated_gpus, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_vllm_dp_across_nodes, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_vllm_tp_across_nodes, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_role_port, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_router_pd_and_agg, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_direct_and_none, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_dynamo, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_dynamo_mocker, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_vllm_connector, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_conflicts, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_health_check, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_numa_bind, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
