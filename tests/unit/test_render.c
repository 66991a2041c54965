/*
 * tests/unit/test_render.c: recipe/render (layout, env layers, argv, plan).
 *
 * Recipes are compiled from YAML with srt_compile_bytes() against the
 * built-in cluster defaults (or a tweaked copy), so every test exercises
 * the same model dry-run and the batch script see.
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
#include "recipe/render.h"
#include "util/strutil.h"
#include "planq.h"

struct fx {
	struct srt_cluster cl;
	struct srt_compiled comp;
	struct srt_diags d;
	struct srt_arena a;
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

	srt_compiled_release(&f->comp);
	srt_diags_release(&f->d);
	srt_arena_release(&f->a);
	free(f);
	return 0;
}

static const struct srt_recipe *compile(struct fx *f, const char *yaml)
{
	size_t nerr;

	srt_compiled_release(&f->comp);
	srt_diags_release(&f->d);
	srt_diags_init(&f->d);
	nerr = srt_compile_bytes(yaml, strlen(yaml), "test.yaml", &f->cl, &f->comp, &f->d);
	if (nerr) {
		srt_diags_print(&f->d, stdout);
		fail_msg("the test recipe does not compile");
	}
	assert_int_equal(f->comp.n, 1);
	return f->comp.recipes[0];
}

static void assert_env(const struct srt_renv *e, const char *name, const char *value,
		       enum srt_env_owner owner, const char *layer)
{
	const struct srt_renv_var *v = srt_renv_find(e, name);

	if (!v)
		fail_msg("env has no %s", name);
	assert_string_equal(v->value, value);
	assert_string_equal(srt_env_owner_name(v->owner), srt_env_owner_name(owner));
	if (layer)
		assert_string_equal(v->layer, layer);
}

/* The same for a plan process's env. */
static void assert_penv(const struct srt_runplan_proc *pr, const char *name, const char *value,
			enum srt_env_owner owner, const char *layer)
{
	for (size_t i = 0; i < pr->nenv; i++) {
		if (strcmp(pr->env_names[i], name))
			continue;
		assert_string_equal(pr->env_values[i], value);
		assert_string_equal(pr->env_src[i].owner, srt_env_owner_name(owner));
		if (layer)
			assert_string_equal(pr->env_src[i].layer, layer);
		return;
	}
	fail_msg("%s has no %s", pr->name, name);
}

/* Is a plan process's variable marked for the agent to substitute? */
static bool penv_runtime(const struct srt_runplan_proc *pr, const char *name)
{
	for (size_t i = 0; i < pr->nenv; i++)
		if (!strcmp(pr->env_names[i], name))
			return pr->env_runtime[i];
	fail_msg("%s has no %s", pr->name, name);
	return false;
}

static bool penv_has(const struct srt_runplan_proc *pr, const char *name)
{
	for (size_t i = 0; i < pr->nenv; i++)
		if (!strcmp(pr->env_names[i], name))
			return true;
	return false;
}

static const char sglang_quickstart[] = "engine: sglang\n"
					"roles:\n"
					"  prefill:\n"
					"    env:\n"
					"      MOONCAKE_PROTOCOL: rdma\n"
					"      MOONCAKE_GLOBAL_SEGMENT_SIZE: \"4gb\"\n"
					"    args:\n"
					"      disaggregation-transfer-backend: mooncake\n"
					"      disaggregation-ib-device: \"mlx5_0,mlx5_1\"\n"
					"  decode:\n"
					"    env:\n"
					"      MOONCAKE_PROTOCOL: rdma\n"
					"      MOONCAKE_GLOBAL_SEGMENT_SIZE: \"4gb\"\n"
					"    args:\n"
					"      disaggregation-transfer-backend: mooncake\n"
					"      disaggregation-ib-device: \"mlx5_0,mlx5_1\"\n"
					"services:\n"
					"  - name: mooncake-master\n"
					"    type: mooncake-master\n";

static const char vllm_quickstart[] =
	"engine: vllm\n"
	"model:\n"
	"  container: nvcr.io/nvidia/vllm:latest\n"
	"roles:\n"
	"  prefill:\n"
	"    env:\n"
	"      MC_ENABLE_DEST_DEVICE_AFFINITY: \"1\"\n"
	"    args:\n"
	"      kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_both\"}'\n"
	"  decode:\n"
	"    env:\n"
	"      MC_ENABLE_DEST_DEVICE_AFFINITY: \"1\"\n"
	"      MOONCAKE_CONFIG_PATH: /mine.json\n"
	"    args:\n"
	"      kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_both\"}'\n"
	"services:\n"
	"  - name: mooncake-master\n"
	"    type: mooncake-master\n"
	"    options:\n"
	"      store_config:\n"
	"        metadata_server: \"P2PHANDSHAKE\"\n"
	"        master_server_address: \"1.2.3.4:9999\"\n"
	"        global_segment_size: \"100GB\"\n"
	"        local_buffer_size: \"4GB\"\n"
	"        protocol: \"rdma\"\n"
	"        device_name: \"mlx5_0,mlx5_1\"\n"
	"        port: 12345\n";

/* ---- env ---- */

static void test_sglang_role_env(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(f, sglang_quickstart);
	struct srt_layout l;
	struct srt_renv e;

	srt_layout_build(&l, &f->a, r);
	srt_render_role_env(&e, &f->a, r, &f->cl, &l, SRT_ROLE_PREFILL, SRT_PH_WORKER_IP);
	assert_int_equal(e.n, 5);
	/* Order: recipe layers first, then srtctl's. */
	assert_string_equal(e.v[0].name, "MOONCAKE_PROTOCOL");
	assert_string_equal(e.v[1].name, "MOONCAKE_GLOBAL_SEGMENT_SIZE");
	assert_string_equal(e.v[2].name, "MOONCAKE_MASTER");
	assert_env(&e, "MOONCAKE_PROTOCOL", "rdma", SRT_OWNER_RECIPE, "roles.prefill.env");
	assert_env(&e, "MOONCAKE_GLOBAL_SEGMENT_SIZE", "4gb", SRT_OWNER_RECIPE,
		   "roles.prefill.env");
	assert_env(&e, "MOONCAKE_MASTER", "<infra_node_ip>:8700", SRT_OWNER_SRTCTL, NULL);
	assert_env(&e, "MOONCAKE_TE_META_DATA_SERVER", "http://<infra_node_ip>:8701/metadata",
		   SRT_OWNER_SRTCTL, NULL);
	assert_env(&e, "MOONCAKE_LOCAL_HOSTNAME", "<worker_ip>", SRT_OWNER_SRTCTL, NULL);
	assert_true(srt_renv_find(&e, "MOONCAKE_MASTER")->runtime);
	assert_false(srt_renv_find(&e, "MOONCAKE_PROTOCOL")->runtime);
	assert_null(srt_renv_find(&e, "MOONCAKE_CONFIG_PATH"));

	/* The worker form carries the worker's own node IP. */
	srt_render_worker_env(&e, &f->a, r, &f->cl, &l, SRT_ROLE_DECODE, 0);
	assert_env(&e, "MOONCAKE_LOCAL_HOSTNAME", "<decode_node_0_ip>", SRT_OWNER_SRTCTL, NULL);
}

static void test_env_overrides_and_pins(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r =
		compile(f, "engine: sglang\n"
			   "environment:\n"
			   "  SHARED: top\n"
			   "  MOONCAKE_LOCAL_HOSTNAME: 9.9.9.9\n"
			   "  ORDER: env\n"
			   "roles:\n"
			   "  prefill:\n"
			   "    env:\n"
			   "      MOONCAKE_MASTER: 10.9.9.9:1234\n"
			   "      MOONCAKE_LOCAL_HOSTNAME: 192.168.7.7\n"
			   "      SHARED: role\n"
			   "    args: {disaggregation-transfer-backend: mooncake}\n"
			   "  decode:\n"
			   "    args: {disaggregation-transfer-backend: mooncake}\n"
			   "services:\n"
			   "  - name: mooncake-master\n"
			   "    type: mooncake-master\n");
	struct srt_layout l;
	struct srt_renv e;
	const struct srt_renv_var *v;

	srt_layout_build(&l, &f->a, r);
	srt_render_role_env(&e, &f->a, r, &f->cl, &l, SRT_ROLE_PREFILL, SRT_PH_WORKER_IP);
	/* A role value replaces the top-level one in place. */
	assert_string_equal(e.v[0].name, "SHARED");
	assert_env(&e, "SHARED", "role", SRT_OWNER_RECIPE, "roles.prefill.env");
	assert_env(&e, "ORDER", "env", SRT_OWNER_RECIPE, "environment");
	/* srtctl always owns MOONCAKE_MASTER; the user's value is recorded. */
	v = srt_renv_find(&e, "MOONCAKE_MASTER");
	assert_env(&e, "MOONCAKE_MASTER", "<infra_node_ip>:8700", SRT_OWNER_SRTCTL, NULL);
	assert_string_equal(v->overridden, "10.9.9.9:1234");
	assert_string_equal(v->overridden_layer, "roles.prefill.env");
	/* A role pin wins. */
	assert_env(&e, "MOONCAKE_LOCAL_HOSTNAME", "192.168.7.7", SRT_OWNER_RECIPE,
		   "roles.prefill.env");
	assert_null(srt_renv_find(&e, "MOONCAKE_LOCAL_HOSTNAME")->overridden);

	/* Decode has no pin: the top-level value does not pin, srtctl overrides it. */
	srt_render_role_env(&e, &f->a, r, &f->cl, &l, SRT_ROLE_DECODE, SRT_PH_WORKER_IP);
	v = srt_renv_find(&e, "MOONCAKE_LOCAL_HOSTNAME");
	assert_env(&e, "MOONCAKE_LOCAL_HOSTNAME", "<worker_ip>", SRT_OWNER_SRTCTL, NULL);
	assert_string_equal(v->overridden, "9.9.9.9");
	assert_string_equal(v->overridden_layer, "environment");
	assert_env(&e, "SHARED", "top", SRT_OWNER_RECIPE, "environment");
}

static void test_no_master_no_stamps(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(f, "engine: sglang\n"
						"roles:\n"
						"  agg:\n"
						"    env: {A: \"1\"}\n");
	struct srt_layout l;
	struct srt_renv e;

	srt_layout_build(&l, &f->a, r);
	srt_render_role_env(&e, &f->a, r, &f->cl, &l, SRT_ROLE_AGG, SRT_PH_WORKER_IP);
	assert_int_equal(e.n, 1);
	assert_env(&e, "A", "1", SRT_OWNER_RECIPE, "roles.agg.env");
	assert_null(srt_render_store_config(r, &l));
	assert_null(srt_render_master_addr(&f->a, r, &l));
}

static void test_vllm_env_and_store_config(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(f, vllm_quickstart);
	struct srt_layout l;
	struct srt_renv e;
	json_t *sc;
	char *text;
	const struct srt_renv_var *v;

	srt_layout_build(&l, &f->a, r);
	srt_render_role_env(&e, &f->a, r, &f->cl, &l, SRT_ROLE_DECODE, SRT_PH_WORKER_IP);
	assert_env(&e, "MC_ENABLE_DEST_DEVICE_AFFINITY", "1", SRT_OWNER_RECIPE, "roles.decode.env");
	/* No container runtime: the host path under the log dir. */
	assert_env(&e, "MOONCAKE_CONFIG_PATH", "<log_dir>/mooncake/store_config.json",
		   SRT_OWNER_SRTCTL, NULL);
	v = srt_renv_find(&e, "MOONCAKE_CONFIG_PATH");
	assert_true(v->runtime);
	assert_string_equal(v->overridden, "/mine.json");
	assert_env(&e, "MOONCAKE_MASTER", "<infra_node_ip>:8700", SRT_OWNER_SRTCTL, NULL);
	assert_env(&e, "MOONCAKE_LOCAL_HOSTNAME", "<worker_ip>", SRT_OWNER_SRTCTL, NULL);

	/* pyxis + a container: the path inside the container. */
	f->cl.container_runtime = SRT_CRT_PYXIS;
	srt_render_role_env(&e, &f->a, r, &f->cl, &l, SRT_ROLE_PREFILL, SRT_PH_WORKER_IP);
	assert_env(&e, "MOONCAKE_CONFIG_PATH", "/logs/mooncake/store_config.json", SRT_OWNER_SRTCTL,
		   NULL);
	assert_false(srt_renv_find(&e, "MOONCAKE_CONFIG_PATH")->runtime);

	sc = srt_render_store_config(r, &l);
	assert_non_null(sc);
	text = json_dumps(sc, JSON_COMPACT);
	assert_string_equal(text, "{\"master_server_address\":\"<infra_node_ip>:8700\","
				  "\"metadata_server\":\"P2PHANDSHAKE\","
				  "\"global_segment_size\":\"100GB\",\"local_buffer_size\":\"4GB\","
				  "\"protocol\":\"rdma\",\"device_name\":\"mlx5_0,mlx5_1\","
				  "\"port\":12345}");
	free(text);
	json_decref(sc);
}

static void test_external_master(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(
		f,
		"engine: vllm\n"
		"roles:\n"
		"  agg:\n"
		"    args:\n"
		"      kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_both\"}'\n"
		"services:\n"
		"  - name: mooncake-master\n"
		"    type: mooncake-master\n"
		"    external: 10.0.0.5:8700\n"
		"    options:\n"
		"      store_config: {protocol: tcp}\n");
	struct srt_layout l;
	struct srt_renv e;
	struct srt_plan *p;
	json_t *sc;
	char *text;

	srt_layout_build(&l, &f->a, r);
	srt_render_role_env(&e, &f->a, r, &f->cl, &l, SRT_ROLE_AGG, SRT_PH_WORKER_IP);
	assert_env(&e, "MOONCAKE_MASTER", "10.0.0.5:8700", SRT_OWNER_SRTCTL,
		   "mooncake-master (external)");
	assert_false(srt_renv_find(&e, "MOONCAKE_MASTER")->runtime);
	assert_env(&e, "MOONCAKE_TE_META_DATA_SERVER", "http://10.0.0.5:8701/metadata",
		   SRT_OWNER_SRTCTL, NULL);
	sc = srt_render_store_config(r, &l);
	text = json_dumps(sc, JSON_COMPACT);
	assert_string_equal(text,
			    "{\"master_server_address\":\"10.0.0.5:8700\",\"protocol\":\"tcp\"}");
	free(text);
	json_decref(sc);

	/* Nothing launches for an external master. */
	p = srt_plan_build(r, &f->cl, &f->d);
	assert_non_null(p);
	for (size_t i = 0; i < p->run.nprocs; i++)
		assert_true(p->run.procs[i].kind != SRT_PROC_SERVICE || p->run.procs[i].external);
	assert_true(p->master_external);
	srt_plan_free(p);

	r = compile(
		f,
		"engine: sglang\n"
		"roles:\n"
		"  prefill: {args: {disaggregation-transfer-backend: mooncake}}\n"
		"  decode: {args: {disaggregation-transfer-backend: mooncake}}\n"
		"services:\n"
		"  - {name: mooncake-master, type: mooncake-master, external: '[fd00::5]:8700'}\n");
	srt_layout_build(&l, &f->a, r);
	assert_string_equal(srt_render_metadata_url(&f->a, r, &l),
			    "http://[fd00::5]:8701/metadata");
	assert_string_equal(srt_render_master_addr(&f->a, r, &l), "[fd00::5]:8700");
	assert_null(srt_render_store_config(r, &l)); /* sglang */
}

/* ---- argv ---- */

static void assert_argv(const struct srt_argv *av, const char *const *want, size_t n)
{
	for (size_t i = 0; i < n && i < av->n; i++)
		assert_string_equal(av->v[i], want[i]);
	assert_int_equal(av->n, n);
}

static void test_worker_args(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(f, "engine: sglang\n"
						"roles:\n"
						"  agg:\n"
						"    args:\n"
						"      tp-size: 8\n"
						"      mem-fraction-static: 0.85\n"
						"      trust-remote-code: true\n"
						"      enable-foo: false\n"
						"      skip-me: null\n"
						"      quoted-bool: \"true\"\n"
						"      hex: 0x1F\n"
						"      cuda-graph-bs: [1, 2, 4]\n"
						"      empty-list: []\n"
						"      ib-device: {\"0\": mlx5_0, \"1\": mlx5_1}\n"
						"      json-string: '{\"a\": 1}'\n"
						"      empty: \"\"\n"
						"      max_running_requests: 64\n"
						"    extra_args: [--log-level, debug]\n");
	static const char *const want[] = {
		"python3",
		"-m",
		"sglang.launch_server",
		/* srtctl's words (recipe/launch.h; tests/unit/test_launch.c), then the recipe's */
		"--host",
		"<agg_node_0_ip>",
		"--port",
		"6100",
		"--nccl-port",
		"17500",
		"--tp-size",
		"8",
		"--mem-fraction-static",
		"0.85",
		"--trust-remote-code",
		"--quoted-bool",
		"true",
		"--hex",
		"0x1F",
		"--cuda-graph-bs",
		"1",
		"2",
		"4",
		"--ib-device",
		"{\"0\":\"mlx5_0\",\"1\":\"mlx5_1\"}",
		"--json-string",
		"{\"a\": 1}",
		"--empty",
		"",
		/* '_' as '-', as srt-slurm renders them (SGLang knows the dashed spelling only) */
		"--max-running-requests",
		"64",
		"--log-level",
		"debug",
	};
	struct srt_argv av = { NULL, 0 };
	struct srt_layout l;

	srt_layout_build(&l, &f->a, r);
	assert_int_equal(srt_render_worker_argv(&av, NULL, &f->a, r, &f->cl, &l,
						srt_layout_worker(&l, SRT_ROLE_AGG, 0), 0, &f->d),
			 0);
	assert_argv(&av, want, sizeof(want) / sizeof(want[0]));
}

static void test_args_nul_is_an_error(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(f, "engine: sglang\n"
						"roles:\n"
						"  agg:\n"
						"    args:\n"
						"      bad: \"a\\0b\"\n");
	struct srt_argv av = { NULL, 0 };
	struct srt_layout l;

	srt_layout_build(&l, &f->a, r);
	assert_int_equal(srt_render_worker_argv(&av, NULL, &f->a, r, &f->cl, &l,
						srt_layout_worker(&l, SRT_ROLE_AGG, 0), 0, &f->d),
			 -1);
	assert_int_equal(f->d.nerrors, 1);
	assert_string_equal(f->d.items[f->d.n - 1].path, "roles.agg.args.bad");
	assert_non_null(strstr(f->d.items[f->d.n - 1].msg, "NUL byte"));
	assert_int_equal(f->d.items[f->d.n - 1].line, 5);
	assert_null(srt_plan_build(r, &f->cl, &f->d));
}

static void test_master_argv_env_container(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r =
		compile(f, "engine: sglang\n"
			   "model: {container: mycontainer}\n"
			   "environment: {TOP: \"1\"}\n"
			   "roles:\n"
			   "  prefill:\n"
			   "    env: {ROLE_ONLY: x}\n"
			   "    args: {disaggregation-transfer-backend: mooncake}\n"
			   "  decode: {args: {disaggregation-transfer-backend: mooncake}}\n"
			   "services:\n"
			   "  - name: mooncake-master\n"
			   "    type: mooncake-master\n"
			   "    args: [--nof_eviction_high_watermark_ratio=0.9]\n"
			   "    env: {MC_RPC_PROTOCOL: tcp}\n");
	static const char *const want[] = { "mooncake_master",
					    "--rpc_port=8700",
					    "--enable_http_metadata_server=true",
					    "--http_metadata_server_port=8701",
					    "--metrics_port=8702",
					    "--nof_eviction_high_watermark_ratio=0.9" };
	const struct srt_service *m = srt_recipe_master(r);
	struct srt_argv av = { NULL, 0 };
	struct srt_renv e;
	struct srt_layout l;
	static const char *const cmd[] = { "/opt/mc/bin/mooncake_master", "--v=1" };

	srt_layout_build(&l, &f->a, r);
	srt_render_service_argv(&av, &f->a, &f->cl, m);
	assert_argv(&av, want, 6);
	srt_render_service_env(&e, &f->a, r, &l, m, l.infra);
	assert_int_equal(e.n, 2);
	assert_env(&e, "TOP", "1", SRT_OWNER_RECIPE, "environment");
	assert_env(&e, "MC_RPC_PROTOCOL", "tcp", SRT_OWNER_RECIPE, "services.mooncake-master.env");
	assert_null(srt_renv_find(&e, "ROLE_ONLY"));
	assert_null(srt_renv_find(&e, "MOONCAKE_MASTER"));
	/* Job container, through no alias. */
	assert_string_equal(srt_render_service_container(r, &f->cl, m), "mycontainer");

	/* A cluster command prefix replaces the binary; the flags follow. */
	f->cl.commands[SRT_CMD_MOONCAKE_MASTER].v = (const char **)cmd;
	f->cl.commands[SRT_CMD_MOONCAKE_MASTER].n = 2;
	av.n = 0;
	srt_render_service_argv(&av, &f->a, &f->cl, m);
	assert_int_equal(av.n, 7);
	assert_string_equal(av.v[0], "/opt/mc/bin/mooncake_master");
	assert_string_equal(av.v[1], "--v=1");
	assert_string_equal(av.v[2], "--rpc_port=8700");
}

static void test_containers_and_aliases(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r;
	struct srt_env_var aliases[] = {
		{ "mooncake", "nvcr.io/nvidia/mooncake:24.10", NULL },
		{ "job", "nvcr.io/nvidia/sglang:0.5", NULL },
	};

	f->cl.containers.v = aliases;
	f->cl.containers.n = 2;
	r = compile(
		f,
		"engine: sglang\n"
		"model: {container: job}\n"
		"roles:\n"
		"  prefill:\n"
		"    container: other:1\n"
		"    args: {disaggregation-transfer-backend: mooncake}\n"
		"  decode: {args: {disaggregation-transfer-backend: mooncake}}\n"
		"services:\n"
		"  - {name: mooncake-master, type: mooncake-master, container: mooncake}\n"
		"  - {name: store, type: mooncake-store}\n"
		"  - {name: own, type: mooncake-store, container: x:2, placement: {node: decode},"
		" readiness: {port: 8801}}\n"
		"  - {name: side, command: [sleep, '1']}\n");
	assert_string_equal(srt_render_job_container(r, &f->cl), "nvcr.io/nvidia/sglang:0.5");
	assert_string_equal(srt_render_role_container(r, &f->cl, SRT_ROLE_PREFILL), "other:1");
	assert_string_equal(srt_render_role_container(r, &f->cl, SRT_ROLE_DECODE),
			    "nvcr.io/nvidia/sglang:0.5");
	assert_string_equal(srt_render_service_container(r, &f->cl, &r->services[0]),
			    "nvcr.io/nvidia/mooncake:24.10");
	/* A store defaults to the master's container. */
	assert_string_equal(srt_render_service_container(r, &f->cl, &r->services[1]),
			    "nvcr.io/nvidia/mooncake:24.10");
	assert_string_equal(srt_render_service_container(r, &f->cl, &r->services[2]), "x:2");
	assert_string_equal(srt_render_service_container(r, &f->cl, &r->services[3]),
			    "nvcr.io/nvidia/sglang:0.5");
}

/*
 * An empty container is "not set" (as in srt-slurm): the fallback image, or
 * no container at all, never an empty --container-image=.
 */
static void test_empty_container(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r;
	struct srt_plan *p;

	r = compile(f, "engine: sglang\n"
		       "model: {container: job:1}\n"
		       "roles:\n"
		       "  prefill:\n"
		       "    container: ''\n"
		       "    args: {disaggregation-transfer-backend: mooncake}\n"
		       "  decode: {args: {disaggregation-transfer-backend: mooncake}}\n"
		       "services:\n"
		       "  - {name: mooncake-master, type: mooncake-master, container: ''}\n"
		       "benchmark: {type: custom, command: 'true', container_image: ''}\n");
	assert_string_equal(srt_render_role_container(r, &f->cl, SRT_ROLE_PREFILL), "job:1");
	assert_string_equal(srt_render_service_container(r, &f->cl, &r->services[0]), "job:1");
	p = srt_plan_build(r, &f->cl, &f->d);
	assert_non_null(p);
	for (size_t i = 0; i < p->run.nprocs; i++)
		assert_string_equal(p->run.procs[i].container, "job:1");
	srt_plan_free(p);

	r = compile(f, "engine: sglang\n"
		       "model: {container: ''}\n"
		       "roles:\n"
		       "  agg: {}\n");
	assert_null(srt_render_job_container(r, &f->cl));
	assert_null(srt_render_role_container(r, &f->cl, SRT_ROLE_AGG));
}

/* ---- layout ---- */

static void test_layout(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(
		f,
		"engine: sglang\n"
		"roles:\n"
		"  prefill: {nodes: 2, workers: 1, args: {disaggregation-transfer-backend: mooncake}}\n"
		"  decode: {nodes: 2, workers: 3, gpus: 2, args: {disaggregation-transfer-backend: mooncake}}\n"
		"services:\n"
		"  - {name: mooncake-master, type: mooncake-master, placement: {node: dedicated}}\n");
	struct srt_layout l;

	srt_layout_build(&l, &f->a, r);
	/* prefill: 1 worker over 2 nodes; decode: 3 x 2 GPUs on 4-GPU nodes = 2 nodes; + infra. */
	assert_int_equal(l.nnodes, 5);
	assert_string_equal(l.nodes[0].label, "prefill_node_0");
	assert_string_equal(l.nodes[1].host, "<prefill_node_1>");
	assert_string_equal(l.nodes[2].ip, "<decode_node_0_ip>");
	assert_string_equal(l.nodes[4].label, "infra_node");
	assert_string_equal(l.nodes[4].ip, "<infra_node_ip>");
	assert_true(l.nodes[4].dedicated);
	assert_true(l.dedicated);
	assert_int_equal(l.infra, 4);
	assert_int_equal(l.head, 0);
	assert_int_equal(l.nworkers, 4);
	assert_int_equal(l.workers[0].nnodes, 2);
	assert_int_equal(l.workers[1].node, 2);
	assert_int_equal(l.workers[2].node, 2);
	assert_int_equal(l.workers[3].node, 3);

	r = compile(
		f,
		"engine: sglang\n"
		"roles:\n"
		"  prefill: {nodes: 1, workers: 1, gpus: 2, args: {disaggregation-transfer-backend: mooncake}}\n"
		"  decode: {nodes: colocate, workers: 2, gpus: 1, args: {disaggregation-transfer-backend: mooncake}}\n"
		"services:\n"
		"  - {name: mooncake-master, type: mooncake-master}\n");
	srt_layout_build(&l, &f->a, r);
	assert_int_equal(l.nnodes, 1);
	assert_false(l.dedicated);
	assert_int_equal(l.infra, 0);
	assert_int_equal(l.roles[SRT_ROLE_DECODE].first, 0);
	assert_int_equal(l.roles[SRT_ROLE_DECODE].n, 1);
	for (size_t i = 0; i < l.nworkers; i++)
		assert_int_equal(l.workers[i].node, 0);
}

static void test_layout_refs(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(f, sglang_quickstart);
	struct srt_layout l;
	struct srt_lref ref;

	srt_layout_build(&l, &f->a, r);
	assert_true(srt_layout_ref(&l, "<infra_node_ip>:8700", &ref));
	assert_int_equal(ref.kind, SRT_LREF_INFRA_IP);
	assert_int_equal(ref.len, strlen("<infra_node_ip>"));
	assert_true(srt_layout_ref(&l, "<decode_node_0_ip>", &ref));
	assert_int_equal(ref.kind, SRT_LREF_NODE_IP);
	assert_int_equal(ref.node, 1);
	assert_true(srt_layout_ref(&l, "<prefill_node_0>.out", &ref));
	assert_int_equal(ref.kind, SRT_LREF_NODE_HOST);
	assert_int_equal(ref.node, 0);
	assert_true(srt_layout_ref(&l, "<log_dir>/x", &ref));
	assert_int_equal(ref.kind, SRT_LREF_LOG_DIR);
	assert_false(srt_layout_ref(&l, "<worker_ip>", &ref));
	assert_false(srt_layout_ref(&l, "x<log_dir>", &ref));
}

/* ---- plan ---- */

static void test_plan_order_and_logs(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(
		f,
		"engine: sglang\n"
		"roles:\n"
		"  prefill: {args: {disaggregation-transfer-backend: mooncake}}\n"
		"  decode: {nodes: 2, workers: 2, args: {disaggregation-transfer-backend: mooncake}}\n"
		"frontend:\n"
		"  type: sglang-router\n"
		"  args: {policy: round_robin}\n"
		"benchmark:\n"
		"  type: sa-bench\n"
		"  command: run-bench --quick\n"
		"  isl: 1024\n"
		"  concurrencies: [1, 2]\n"
		"services:\n"
		"  - name: late\n"
		"    command: [sleep, infinity]\n"
		"  - name: store\n"
		"    type: mooncake-store\n"
		"    placement: {node: workers}\n"
		"    args: [--port, \"8800\"]\n"
		"    env: {MOONCAKE_GLOBAL_SEGMENT_SIZE: 100gb}\n"
		"    readiness: {port: 8800}\n"
		"  - name: mooncake-master\n"
		"    type: mooncake-master\n");
	struct srt_plan *p = srt_plan_build(r, &f->cl, &f->d);
	static const char *const names[] = {
		"mooncake-master",
		"store_<prefill_node_0>",
		"store_<decode_node_0>",
		"store_<decode_node_1>",
		"prefill_0",
		"decode_0",
		"decode_1",
		"frontend",
		"late",
		"benchmark",
	};
	static const char *const logs[] = {
		"service_mooncake-master.out",
		"service_store_<prefill_node_0>.out",
		"service_store_<decode_node_0>.out",
		"service_store_<decode_node_1>.out",
		"worker_prefill_0.out",
		"worker_decode_0.out",
		"worker_decode_1.out",
		"frontend.out",
		"service_late.out",
		"benchmark.out",
	};
	const struct srt_runplan_proc *pr;

	assert_non_null(p);
	assert_int_equal(p->run.nprocs, 10);
	for (size_t i = 0; i < p->run.nprocs; i++) {
		assert_string_equal(p->run.procs[i].name, names[i]);
		assert_string_equal(p->run.procs[i].log_file, logs[i]);
	}
	/* The master: infra node (= head), three probes. */
	pr = &p->run.procs[0];
	assert_int_equal(pr->node, 0);
	assert_int_equal(pr->nprobes, 3);
	assert_int_equal(pr->probes[0].port, 8700);
	assert_int_equal(pr->probes[1].port, 8701);
	assert_int_equal(pr->probes[2].port, 8702);
	assert_int_equal(pr->timeout_s, 120);
	assert_true(pr->critical);
	/* A store: its node's IP, srtctl's endpoints, argv from the cluster command. */
	pr = &p->run.procs[2];
	assert_int_equal(pr->node, 1);
	assert_penv(pr, "MOONCAKE_LOCAL_HOSTNAME", "<decode_node_0_ip>", SRT_OWNER_SRTCTL, NULL);
	assert_penv(pr, "MOONCAKE_MASTER", "<infra_node_ip>:8700", SRT_OWNER_SRTCTL, NULL);
	assert_penv(pr, "MOONCAKE_GLOBAL_SEGMENT_SIZE", "100gb", SRT_OWNER_RECIPE,
		    "services.store.env");
	assert_string_equal(pr->argv[0], "python3");
	assert_string_equal(pr->argv[2], "mooncake.mooncake_store_service");
	assert_string_equal(pr->argv[3], "--port");
	assert_string_equal(pr->argv[4], "8800");
	assert_int_equal(pr->probes[0].port, 8800);
	/* Workers. */
	pr = &p->run.procs[6];
	assert_int_equal(pr->kind, SRT_PROC_WORKER);
	assert_int_equal(pr->index, 1);
	assert_int_equal(pr->node, 2);
	assert_penv(pr, "MOONCAKE_LOCAL_HOSTNAME", "<decode_node_1_ip>", SRT_OWNER_SRTCTL, NULL);
	{
		static const char *const want[] = {
			"python3",
			"-m",
			"sglang.launch_server",
			"--host",
			"<decode_node_1_ip>",
			"--port",
			"6100",
			"--nccl-port",
			"17500",
			"--disaggregation-mode",
			"decode",
			"--disaggregation-transfer-backend",
			"mooncake",
		};

		struct srt_argv av = { pr->argv, pr->argc };

		assert_argv(&av, want, sizeof(want) / sizeof(want[0]));
	}
	/* The engine says when it is ready: HTTP /health on its port. */
	assert_int_equal(pr->nprobes, 1);
	assert_true(pr->probes[0].http);
	assert_int_equal(pr->probes[0].port, 6100);
	assert_string_equal(pr->probes[0].path, "/health");
	/* Frontend: the router over the workers, then frontend.args; gated on its /health. */
	pr = &p->run.procs[7];
	{
		static const char *const want[] = {
			"python3",
			"-m",
			"sglang_router.launch_router",
			"--pd-disaggregation",
			"--prefill",
			"http://<prefill_node_0_ip>:6100",
			"7200",
			"--decode",
			"http://<decode_node_0_ip>:6100",
			"--decode",
			"http://<decode_node_1_ip>:6100",
			"--host",
			"0.0.0.0",
			"--port",
			"8000",
			"--policy",
			"round_robin",
		};

		struct srt_argv av = { pr->argv, pr->argc };

		assert_argv(&av, want, sizeof(want) / sizeof(want[0]));
		assert_true(pr->argv_runtime[5]);
		assert_false(pr->argv_runtime[6]);
		assert_true(pr->argv_runtime[10]);
	}
	assert_true(pr->probes[0].http);
	assert_int_equal(pr->probes[0].port, 8000);
	/* Benchmark: bash -c and its parameters. */
	pr = &p->run.procs[9];
	assert_string_equal(pr->argv[0], "bash");
	assert_string_equal(pr->argv[2], "run-bench --quick");
	assert_penv(pr, "SRT_BENCH_ISL", "1024", SRT_OWNER_RECIPE, "benchmark.isl");
	assert_penv(pr, "SRT_BENCH_CONCURRENCIES", "[1,2]", SRT_OWNER_RECIPE, NULL);
	assert_penv(pr, "SRT_BENCH_TYPE", "sa-bench", SRT_OWNER_RECIPE, NULL);
	assert_false(penv_has(pr, "SRT_BENCH_COMMAND"));
	assert_penv(pr, "SRT_FRONTEND_URL", "http://<prefill_node_0_ip>:8000", SRT_OWNER_SRTCTL,
		    NULL);
	for (size_t i = 0; i < pr->nenv; i++)
		assert_int_equal(pr->env_runtime[i], !strcmp(pr->env_names[i], "SRT_FRONTEND_URL"));
	assert_false(pr->critical);
	srt_plan_free(p);
}

/*
 * srt-slurm's per-worker env templates: {node} is the process's node
 * (its hostname placeholder, bound by the agent), {node_id} that node's
 * index among the worker nodes (the dedicated infra node is not one).
 */
static void test_plan_env_node_templates(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(
		f,
		"engine: sglang\n"
		"environment: {A: 'h={node} i={node_id}', B: '{nodes}'}\n"
		"roles:\n"
		"  prefill: {nodes: 1, env: {C: '{node_id}'},\n"
		"            args: {disaggregation-transfer-backend: mooncake}}\n"
		"  decode: {nodes: 2, args: {disaggregation-transfer-backend: mooncake}}\n"
		"services:\n"
		"  - {name: mooncake-master, type: mooncake-master, placement: {node: dedicated}}\n");
	struct srt_plan *p = srt_plan_build(r, &f->cl, &f->d);
	const char *hosts[] = { "n1", "n2", "n3", "n4" };
	const char *ips[] = { "10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4" };
	struct srt_error err = { 0 };
	struct srt_runplan back;
	struct srt_renv e;
	int bound = 0;
	json_t *j;

	assert_non_null(p);
	for (size_t i = 0; i < p->run.nprocs; i++) {
		const struct srt_runplan_proc *pr = &p->run.procs[i];

		if (!strcmp(pr->name, "prefill_0")) {
			assert_penv(pr, "A", "h=<prefill_node_0> i=0", SRT_OWNER_RECIPE,
				    "environment");
			assert_penv(pr, "C", "0", SRT_OWNER_RECIPE, "roles.prefill.env");
			assert_true(penv_runtime(pr, "A"));
			assert_false(penv_runtime(pr, "C"));
		} else if (!strcmp(pr->name, "decode_0_<decode_node_1>")) {
			assert_penv(pr, "A", "h=<decode_node_1> i=2", SRT_OWNER_RECIPE, NULL);
			assert_penv(pr, "B", "{nodes}", SRT_OWNER_RECIPE, NULL);
		}
	}
	/* The agent binds the hostname. */
	j = srt_runplan_to_json(&p->run);
	assert_int_equal(srt_runplan_load(&back, j, &err), 0);
	assert_int_equal(srt_runplan_bind(&back, hosts, ips, 4, "/logs", &err), 0);
	for (size_t i = 0; i < back.nprocs; i++)
		for (size_t k = 0; k < back.procs[i].nenv; k++)
			if (!strcmp(back.procs[i].name, "decode_0_n3") &&
			    !strcmp(back.procs[i].env_names[k], "A")) {
				assert_string_equal(back.procs[i].env_values[k], "h=n3 i=2");
				bound++;
			}
	assert_int_equal(bound, 1);
	srt_runplan_release(&back);
	json_decref(j);
	/* A role's table names no node. */
	srt_render_role_env(&e, &f->a, r, &f->cl, &p->layout, SRT_ROLE_PREFILL, SRT_PH_WORKER_IP);
	assert_env(&e, "A", "h=<worker_node> i=<worker_node_id>", SRT_OWNER_RECIPE, NULL);
	srt_plan_free(p);
}

/*
 * connector: lmcache-mp implies an lmcache-server on the role's nodes (every
 * worker node when both roles use it), started before the workers, gated on
 * GET /healthcheck; its argv owns the ports and appends args; a preamble
 * runs in the same bash before it.
 */
static void test_plan_lmcache(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(f,
					     "engine: {type: vllm, connector: lmcache-mp}\n"
					     "model: {path: /m/M}\n"
					     "roles: {prefill: {nodes: 1}, decode: {nodes: 1}}\n");
	const char *const want[] = { "lmcache", "server",      "--host",  "0.0.0.0",	 "--port",
				     "8750",	"--http-host", "0.0.0.0", "--http-port", "8751" };
	const char *const want_pre[] = {
		"bash",	       "-c",	      "ulimit -l unlimited\nexec \"$@\"",
		"lmcache",     "lmcache",     "server",
		"--host",      "0.0.0.0",     "--port",
		"8750",	       "--http-host", "0.0.0.0",
		"--http-port", "8751",	      "--l1-size-gb",
		"16"
	};
	const struct srt_runplan_proc *srv, *w;
	struct srt_plan *p = srt_plan_build(r, &f->cl, &f->d);
	struct srt_argv av;

	assert_non_null(p);
	srv = proc_named(p, "lmcache-server_<prefill_node_0>");
	assert_non_null(srv);
	assert_non_null(proc_named(p, "lmcache-server_<decode_node_0>"));
	assert_string_equal(srv->type, "lmcache-server");
	assert_string_equal(srv->placement, "workers");
	assert_string_equal(srv->phase, "before_workers");
	assert_true(srv->critical);
	av = (struct srt_argv){ srv->argv, srv->argc };
	assert_argv(&av, want, sizeof(want) / sizeof(want[0]));
	assert_int_equal(srv->nprobes, 1);
	assert_true(srv->probes[0].http);
	assert_int_equal(srv->probes[0].port, 8751);
	assert_string_equal(srv->probes[0].path, "/healthcheck");
	w = proc_named(p, "decode_0");
	assert_non_null(w);
	assert_true(w->group > srv->group);
	for (size_t i = 0; i + 1 < w->argc; i++)
		if (!strcmp(w->argv[i], "--kv-transfer-config"))
			assert_non_null(
				strstr(w->argv[i + 1], "\"kv_connector\": \"LMCacheMPConnector\""));
	srt_plan_free(p);

	/* One role: its nodes only.  A written entry replaces the implied one. */
	r = compile(
		f,
		"engine: vllm\nmodel: {path: /m/M}\n"
		"roles: {prefill: {nodes: 1, args: {connector: lmcache-mp}}, decode: {nodes: 1}}\n");
	p = srt_plan_build(r, &f->cl, &f->d);
	assert_non_null(p);
	srv = proc_named(p, "lmcache-server");
	assert_non_null(srv);
	assert_string_equal(srv->placement, "prefill");
	srt_plan_free(p);
	r = compile(f, "engine: {type: vllm, connector: lmcache-mp}\nmodel: {path: /m/M}\n"
		       "roles: {agg: {}}\n"
		       "services:\n"
		       "  - name: lmc\n"
		       "    type: lmcache-server\n"
		       "    args: [--l1-size-gb, '16']\n"
		       "    preamble: |\n"
		       "      ulimit -l unlimited\n");
	p = srt_plan_build(r, &f->cl, &f->d);
	assert_non_null(p);
	assert_null(plan_proc_find(p, "lmcache-server"));
	srv = proc_named(p, "lmc");
	assert_non_null(srv);
	av = (struct srt_argv){ srv->argv, srv->argc };
	assert_argv(&av, want_pre, sizeof(want_pre) / sizeof(want_pre[0]));
	srt_plan_free(p);
}

static size_t argv_index(const struct srt_runplan_proc *pr, const char *word)
{
	for (size_t i = 0; i < pr->argc; i++)
		if (!strcmp(pr->argv[i], word))
			return i;
	return SIZE_MAX;
}

/*
 * roles.<role>.kv_events: srt-slurm's --kv-events-config (json.dumps of the
 * engine's defaults, the role's mapping, the endpoint) on every process,
 * its port counted job-wide from 5200; dynamo.vllm's after --request-plane
 * with DYN_VLLM_KV_EVENT_PORT, SGLang's before it.
 */
static void test_plan_kv_events(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r =
		compile(f, "engine: sglang\nmodel: {path: /m/M}\n"
			   "roles:\n"
			   "  prefill: {workers: 2, gpus: 2, kv_events: true}\n"
			   "  decode: {nodes: 2, kv_events: {topic: d, replay_endpoint: auto}}\n"
			   "frontend: {type: dynamo}\n");
	struct srt_plan *p = srt_plan_build(r, &f->cl, &f->d);
	const struct srt_runplan_proc *pr;

	assert_non_null(p);
	pr = proc_named(p, "prefill_1");
	assert_non_null(pr);
	assert_string_equal(argv_after(pr, "--kv-events-config"),
			    "{\"publisher\": \"zmq\", \"topic\": \"kv-events\", \"endpoint\": "
			    "\"tcp://*:5201\"}");
	assert_true(argv_index(pr, "--kv-events-config") < argv_index(pr, "--request-plane"));
	/* decode_0 spans two nodes: a port per process, after prefill's two. */
	pr = proc_named(p, "decode_0_<decode_node_1>");
	assert_non_null(pr);
	assert_string_equal(argv_after(pr, "--kv-events-config"),
			    "{\"publisher\": \"zmq\", \"topic\": \"d\", \"replay_endpoint\": "
			    "\"auto\", \"endpoint\": \"tcp://*:5203\"}");
	srt_plan_free(p);

	r = compile(f, "engine: vllm\nmodel: {path: /m/M}\n"
		       "roles:\n"
		       "  prefill: {args: {data-parallel-size: 2}, kv_events: true}\n"
		       "  decode: {}\n"
		       "frontend: {type: dynamo}\n");
	p = srt_plan_build(r, &f->cl, &f->d);
	assert_non_null(p);
	pr = proc_named(p, "prefill_0");
	assert_string_equal(argv_after(pr, "--kv-events-config"),
			    "{\"publisher\": \"zmq\", \"topic\": \"kv-events\", "
			    "\"enable_kv_cache_events\": true, \"endpoint\": \"tcp://*:5200\"}");
	assert_true(argv_index(pr, "--kv-events-config") > argv_index(pr, "--request-plane"));
	assert_penv(pr, "DYN_VLLM_KV_EVENT_PORT", "5200", SRT_OWNER_SRTCTL, NULL);
	/* Two DP ranks hold 5200 and 5201: decode's process is next. */
	pr = proc_named(p, "decode_0");
	assert_null(argv_after(pr, "--kv-events-config"));
	assert_penv(pr, "DYN_VLLM_KV_EVENT_PORT", "5202", SRT_OWNER_SRTCTL, NULL);
	srt_plan_free(p);

	/* vllm serve workers get none (srt-slurm's rule), with a warning. */
	r = compile(f, "engine: vllm\nmodel: {path: /m/M}\nroles: {agg: {kv_events: true}}\n");
	assert_int_equal(f->d.nwarnings, 1);
	p = srt_plan_build(r, &f->cl, &f->d);
	assert_null(argv_after(proc_named(p, "agg_0"), "--kv-events-config"));
	assert_false(penv_has(proc_named(p, "agg_0"), "DYN_VLLM_KV_EVENT_PORT"));
	srt_plan_free(p);
}

static void test_plan_multinode_worker(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(f, "engine: sglang\n"
						"roles:\n"
						"  agg: {nodes: 2}\n");
	struct srt_plan *p = srt_plan_build(r, &f->cl, &f->d);

	assert_non_null(p);
	assert_int_equal(p->run.nprocs, 2);
	assert_string_equal(p->run.procs[0].name, "agg_0_<agg_node_0>");
	assert_string_equal(p->run.procs[1].log_file, "worker_agg_0_<agg_node_1>.out");
	assert_int_equal(p->run.procs[1].rank, 1);
	srt_plan_free(p);
}

/*
 * A TRT-LLM worker is one MPI step: one process per worker (not per node),
 * one rank per GPU over its nodes, rank 0 running the launcher; its role's
 * args are its engine YAML file, not flags.
 */
static void test_plan_trtllm_mpi_step(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r =
		compile(f, "engine: {type: trtllm, served_model_name: org/m}\n"
			   "model: {path: /models/m}\n"
			   "resources: {gpus_per_node: 4}\n"
			   "roles:\n"
			   "  prefill: {gpus: 2, args: {tensor_parallel_size: 2}}\n"
			   "  decode:\n"
			   "    nodes: 2\n"
			   "    gpus: 8\n"
			   "    args: {tensor_parallel_size: 8, kv_cache_config: {dtype: fp8}}\n"
			   "    extra_args: [--publish-events-and-metrics]\n"
			   "frontend: {type: dynamo}\n");
	struct srt_plan *p = srt_plan_build(r, &f->cl, &f->d);
	const struct srt_runplan_proc *pre, *dec;
	static const char *const want[] = {
		"trtllm-llmapi-launch",
		"python3",
		"-m",
		"dynamo.trtllm",
		"--model-path",
		"/models/m",
		"--served-model-name",
		"org/m",
		"--disaggregation-mode",
		"decode",
		"--extra-engine-args",
		"<log_dir>/trtllm_decode_0.yaml",
		"--request-plane",
		"tcp",
		"--publish-events-and-metrics",
	};

	assert_non_null(p);
	/* etcd, one process per worker, the frontend */
	assert_int_equal(p->run.nprocs, 4);
	pre = &p->run.procs[1];
	dec = &p->run.procs[2];
	assert_string_equal(pre->name, "prefill_0");
	assert_int_equal(pre->nnodes, 1);
	assert_int_equal(pre->ntasks, 2);
	assert_string_equal(pre->mpi, "pmix");
	assert_string_equal(dec->name, "decode_0");
	assert_string_equal(dec->log_file, "worker_decode_0.out");
	assert_int_equal(dec->nnodes, 2);
	assert_int_equal(dec->ntasks, 8);
	assert_int_equal(dec->argc, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < dec->argc; i++)
		assert_string_equal(dec->argv[i], want[i]);
	assert_true(dec->argv_runtime[11]); /* the file under <log_dir> */
	assert_string_equal(dec->config_file, "trtllm_decode_0.yaml");
	assert_string_equal(dec->config_text, "tensor_parallel_size: 8\n"
					      "kv_cache_config:\n"
					      "  dtype: fp8\n");
	assert_int_equal(dec->probes[0].port, 7500);
	srt_plan_free(p);
}

/*
 * trtllm_serve over prefill/decode: the orchestrator's config lists the
 * workers' rank-0 addresses, bound to the allocation's IPs like env values,
 * with the recipe's routers and extra keys.
 */
static void test_plan_trtllm_serve_orchestrator(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r =
		compile(f, "engine: trtllm\n"
			   "resources: {gpus_per_node: 4}\n"
			   "roles:\n"
			   "  prefill: {gpus: 4, args: {tensor_parallel_size: 4}}\n"
			   "  decode: {workers: 2, gpus: 2, args: {tensor_parallel_size: 2}}\n"
			   "frontend:\n"
			   "  type: trtllm_serve\n"
			   "  gen_router: {type: load_balancing}\n"
			   "  server_config_extra: {max_retries: 3}\n");
	struct srt_plan *p = srt_plan_build(r, &f->cl, &f->d);
	const char *hosts[] = { "n1", "n2" }, *ips[] = { "10.0.0.1", "10.0.0.2" };
	const struct srt_runplan_proc *fe;
	struct srt_runplan back;
	struct srt_error err = { 0 };
	json_t *j, *cfg;

	assert_non_null(p);
	fe = &p->run.procs[p->run.nprocs - 1];
	assert_int_equal(fe->kind, SRT_PROC_FRONTEND);
	assert_string_equal(fe->argv[0], "trtllm-serve");
	assert_string_equal(fe->argv[1], "disaggregated");
	assert_string_equal(fe->argv[2], "-c");
	assert_string_equal(fe->argv[3], "<log_dir>/trtllm_disagg.yaml");
	assert_string_equal(fe->config_file, "trtllm_disagg.yaml");
	assert_true(fe->config_runtime);
	assert_int_equal(fe->probes[0].port, 8000);
	j = srt_runplan_to_json(&p->run);
	assert_int_equal(srt_runplan_load(&back, j, &err), 0);
	assert_int_equal(srt_runplan_bind(&back, hosts, ips, 2, "/logs", &err), 0);
	cfg = json_loads(back.procs[back.nprocs - 1].config_text, 0, NULL);
	assert_non_null(cfg);
	assert_string_equal(json_string_value(json_object_get(cfg, "hostname")), "0.0.0.0");
	assert_int_equal(json_integer_value(json_object_get(cfg, "port")), 8000);
	assert_string_equal(
		json_string_value(json_array_get(
			json_object_get(json_object_get(cfg, "context_servers"), "urls"), 0)),
		"10.0.0.1:6100");
	/* Two decode workers share node 2: slots 0 and 1. */
	assert_string_equal(
		json_string_value(json_array_get(
			json_object_get(json_object_get(cfg, "generation_servers"), "urls"), 1)),
		"10.0.0.2:6132");
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(cfg, "generation_servers"), "num_instances")),
			 2);
	assert_string_equal(
		json_string_value(json_object_get(
			json_object_get(json_object_get(cfg, "generation_servers"), "router"),
			"type")),
		"load_balancing");
	assert_int_equal(json_integer_value(json_object_get(cfg, "max_retries")), 3);
	json_decref(cfg);
	srt_runplan_release(&back);
	json_decref(j);
	srt_plan_free(p);
}

static void test_plan_json(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(f, vllm_quickstart);
	struct srt_plan *p = srt_plan_build(r, &f->cl, &f->d);
	json_t *j, *procs, *m, *env;
	char *text;

	assert_non_null(p);
	j = srt_runplan_to_json(&p->run);
	assert_int_equal(json_integer_value(json_object_get(j, "version")), 1);
	assert_string_equal(json_string_value(json_object_get(j, "engine")), "vllm");
	assert_int_equal(json_array_size(json_object_get(j, "nodes")), 2);
	m = json_array_get(json_object_get(j, "store_configs"), 0);
	assert_int_equal(json_array_size(json_object_get(j, "store_configs")), 1);
	assert_string_equal(json_string_value(json_object_get(json_object_get(m, "config"),
							      "master_server_address")),
			    "<infra_node_ip>:8700");
	assert_string_equal(json_string_value(json_object_get(m, "file")),
			    "<log_dir>/mooncake/store_config.json");
	/* Also as before the list, for an agent older than it. */
	assert_true(json_equal(json_object_get(j, "store_config"), json_object_get(m, "config")));
	assert_string_equal(json_string_value(json_object_get(j, "store_config_file")),
			    "<log_dir>/mooncake/store_config.json");
	procs = json_object_get(j, "processes");
	assert_int_equal(json_array_size(procs), 3);
	m = json_array_get(procs, 0);
	assert_string_equal(json_string_value(json_object_get(m, "type")), "mooncake-master");
	assert_string_equal(json_string_value(json_object_get(m, "log_file")),
			    "service_mooncake-master.out");
	assert_string_equal(json_string_value(json_array_get(json_object_get(m, "argv"), 1)),
			    "--rpc_port=8700");
	assert_int_equal(
		json_array_size(json_object_get(json_object_get(m, "readiness"), "probes")), 3);
	env = json_object_get(json_array_get(procs, 2), "env");
	text = json_dumps(env, JSON_COMPACT);
	assert_non_null(strstr(text, "{\"name\":\"MOONCAKE_CONFIG_PATH\",\"value\":\"<log_dir>/"
				     "mooncake/store_config.json\",\"owner\":\"srtctl\""));
	assert_non_null(strstr(text, "\"overridden\":\"/mine.json\""));
	free(text);
	json_decref(j);
	srt_plan_free(p);
}

/*
 * The one model both ways: the plan the compiler builds, written to
 * plan.json and read back, is the same plan (the same JSON again, the same
 * groups, tiers and followers), for plans with stores, a dedicated master,
 * an external master, a multi-node worker, a frontend and a benchmark.
 */
static void test_plan_roundtrip(void **state)
{
	static const char *const recipes[] = {
		sglang_quickstart,
		vllm_quickstart,
		"engine: sglang\n"
		"roles:\n"
		"  prefill: {workers: 1, args: {disaggregation-transfer-backend: mooncake}}\n"
		"  decode: {nodes: 2, workers: 2, args: {disaggregation-transfer-backend: mooncake}}\n"
		"frontend: {command: [router], port: 8000}\n"
		"benchmark: {type: custom, command: run, isl: 10}\n"
		"services:\n"
		"  - {name: mooncake-master, type: mooncake-master, placement: {node: dedicated}}\n"
		"  - {name: store, type: mooncake-store, placement: {node: workers}}\n",
		"engine: sglang\n"
		"roles:\n"
		"  agg: {nodes: 2}\n"
		"services:\n"
		"  - {name: mooncake-master, type: mooncake-master, external: '10.9.0.7:8700'}\n",
		"engine: trtllm\n"
		"resources: {gpus_per_node: 4}\n"
		"roles:\n"
		"  prefill: {gpus: 4, args: {tensor_parallel_size: 4}}\n"
		"  decode: {nodes: 2, gpus: 8, args: {tensor_parallel_size: 8}}\n"
		"frontend: {type: dynamo}\n",
	};
	struct fx *f = *state;

	for (size_t k = 0; k < sizeof(recipes) / sizeof(recipes[0]); k++) {
		const struct srt_recipe *r = compile(f, recipes[k]);
		struct srt_plan *p = srt_plan_build(r, &f->cl, &f->d);
		struct srt_runplan back;
		struct srt_error err = { 0 };
		json_t *j, *j2;

		assert_non_null(p);
		j = srt_runplan_to_json(&p->run);
		if (srt_runplan_load(&back, j, &err) != 0)
			fail_msg("recipe %zu: %s", k, err.msg);
		j2 = srt_runplan_to_json(&back);
		if (!json_equal(j, j2)) {
			char *a = json_dumps(j, JSON_COMPACT), *b = json_dumps(j2, JSON_COMPACT);

			fail_msg("recipe %zu: plan.json differs once read back:\n%s\n%s", k, a, b);
		}
		assert_int_equal(back.nprocs, p->run.nprocs);
		assert_int_equal(back.ngroups, p->run.ngroups);
		for (size_t i = 0; i < back.nprocs; i++) {
			assert_string_equal(back.procs[i].name, p->run.procs[i].name);
			assert_int_equal(back.procs[i].group, p->run.procs[i].group);
			assert_int_equal(back.procs[i].tier, p->run.procs[i].tier);
			assert_int_equal(back.procs[i].external, p->run.procs[i].external);
			assert_true(srt_str_same(back.procs[i].follows, p->run.procs[i].follows));
			assert_int_equal(back.procs[i].ntasks, p->run.procs[i].ntasks);
			assert_int_equal(back.procs[i].nnodes, p->run.procs[i].nnodes);
			assert_true(srt_str_same(back.procs[i].config_text,
						 p->run.procs[i].config_text));
		}
		json_decref(j2);
		json_decref(j);
		srt_runplan_release(&back);
		srt_plan_free(p);
	}
}

/* A model.path that is no path, no hf: id and no known alias is said, not mounted silently. */
static void test_plan_model_alias_unknown(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(f, "engine: sglang\n"
						"model: {path: dsr1}\n"
						"roles:\n"
						"  agg: {}\n");
	struct srt_plan *p = srt_plan_build(r, &f->cl, &f->d);
	bool warned = false;

	assert_non_null(p);
	for (size_t i = 0; i < f->d.n; i++)
		warned |= f->d.items[i].level == SRT_DIAG_WARNING &&
			  strstr(f->d.items[i].msg, "'dsr1' is neither an absolute path") != NULL;
	assert_true(warned);
	srt_plan_free(p);
	r = compile(f, "engine: sglang\n"
		       "model: {path: /models/dsr1}\n"
		       "roles:\n"
		       "  agg: {}\n");
	p = srt_plan_build(r, &f->cl, &f->d);
	assert_non_null(p);
	for (size_t i = 0; i < f->d.n; i++)
		assert_null(strstr(f->d.items[i].msg, "neither an absolute path"));
	srt_plan_free(p);
}

/* Argv words flagged runtime are bound like env values; the rest stay literal. */
static void test_plan_argv_runtime(void **state)
{
	struct fx *f = *state;
	const struct srt_recipe *r = compile(f, "engine: sglang\n"
						"roles:\n"
						"  agg: {args: {x: '<agg_node_0_ip>'}}\n");
	struct srt_plan *p = srt_plan_build(r, &f->cl, &f->d);
	const char *hosts[] = { "n1" }, *ips[] = { "10.0.0.1" };
	struct srt_runplan back;
	struct srt_runplan_proc *pr;
	struct srt_error err = { 0 };
	bool *rt;
	json_t *j;

	assert_non_null(p);
	pr = &p->run.procs[0];
	/* What a launch model would do: a word of srtctl's own names the leader's IP. */
	pr->argv = srt_arena_alloc(&p->run.arena, 3 * sizeof(char *));
	pr->argv[0] = "engine";
	pr->argv[1] = "<agg_node_0_ip>:8300";
	pr->argv[2] = "<agg_node_0_ip>";
	pr->argc = 3;
	rt = srt_arena_alloc(&p->run.arena, 3 * sizeof(bool));
	rt[0] = rt[2] = false;
	rt[1] = true;
	pr->argv_runtime = rt;
	j = srt_runplan_to_json(&p->run);
	assert_int_equal(json_integer_value(json_array_get(
				 json_object_get(json_array_get(json_object_get(j, "processes"), 0),
						 "argv_runtime"),
				 0)),
			 1);
	assert_int_equal(srt_runplan_load(&back, j, &err), 0);
	assert_int_equal(srt_runplan_bind(&back, hosts, ips, 1, "/logs", &err), 0);
	assert_string_equal(back.procs[0].argv[1], "10.0.0.1:8300");
	assert_string_equal(back.procs[0].argv[2], "<agg_node_0_ip>"); /* a recipe value */
	srt_runplan_release(&back);
	json_decref(j);
	srt_plan_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sglang_role_env, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_env_overrides_and_pins, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_no_master_no_stamps, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_vllm_env_and_store_config, fx_setup,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_external_master, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_worker_args, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_args_nul_is_an_error, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_master_argv_env_container, fx_setup,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_containers_and_aliases, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_empty_container, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_layout, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_layout_refs, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_plan_order_and_logs, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_plan_env_node_templates, fx_setup,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_plan_multinode_worker, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_plan_trtllm_mpi_step, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_plan_trtllm_serve_orchestrator, fx_setup,
						fx_teardown),
		cmocka_unit_test_setup_teardown(test_plan_lmcache, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_plan_kv_events, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_plan_json, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_plan_roundtrip, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_plan_argv_runtime, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_plan_model_alias_unknown, fx_setup,
						fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
