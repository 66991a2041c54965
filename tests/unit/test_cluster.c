/* tests/unit/test_cluster.c: srtslurm.yaml (recipe/cluster.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recipe/cluster.h"
#include "recipe/model.h"

static int parse(const char *yaml, struct srt_cluster *c, struct srt_diags *d)
{
	struct srt_ydoc *doc;

	srt_diags_init(d);
	doc = srt_ydoc_parse(yaml, strlen(yaml), "srtslurm.yaml", d);
	assert_non_null(doc);
	if (srt_cluster_parse(c, doc, d) != 0) {
		srt_ydoc_free(doc);
		return -1;
	}
	return 0;
}

static void test_defaults(void **state)
{
	struct srt_cluster c;

	(void)state;
	srt_cluster_defaults(&c);
	assert_null(c.source);
	assert_int_equal(c.container_runtime, SRT_CRT_NONE);
	assert_string_equal(c.commands[SRT_CMD_MOONCAKE_MASTER].v[0], "mooncake_master");
	assert_int_equal(c.commands[SRT_CMD_MOONCAKE_STORE].n, 3);
	assert_string_equal(c.commands[SRT_CMD_VLLM].v[1], "serve");
	assert_int_equal(c.slurmrestd.timeout_seconds, 30);
	assert_int_equal(c.notify.command.n, 0);
	assert_int_equal(c.notify.timeout_ms, 30000);
	assert_int_equal(c.notify.max_attempts, 10);
}

static void test_full(void **state)
{
	struct srt_cluster c;
	struct srt_diags d;

	(void)state;
	assert_int_equal(parse("runtime:\n  network_interface: ib0\n  container_runtime: pyxis\n"
			       "  log_root: /shared/runs\n"
			       "default_account: acct\ndefault_partition: gpu\n"
			       "default_time_limit: '4:00:00'\n"
			       "containers: {sglang: nvcr.io/sglang:1}\n"
			       "slurmrestd:\n  url: http://127.0.0.1:6820\n  user: ci\n"
			       "  token_command: [scontrol, token]\n  timeout_seconds: 5\n"
			       "commands:\n  mooncake_master: [/opt/fake_master]\n"
			       "  sglang: [python3, /opt/fake_engine.py]\n"
			       "notify: {command: [/bin/page, -q], timeout: 2s, backoff: 250ms, "
			       "max_attempts: 3}\n",
			       &c, &d),
			 0);
	assert_int_equal(d.n, 0);
	assert_string_equal(c.network_interface, "ib0");
	assert_int_equal(c.container_runtime, SRT_CRT_PYXIS);
	assert_string_equal(c.log_root, "/shared/runs");
	assert_string_equal(c.default_time_limit, "4:00:00");
	assert_string_equal(srt_cluster_container(&c, "sglang"), "nvcr.io/sglang:1");
	assert_string_equal(srt_cluster_container(&c, "other:2"), "other:2");
	assert_string_equal(c.slurmrestd.url, "http://127.0.0.1:6820");
	assert_int_equal(c.slurmrestd.token_command.n, 2);
	assert_int_equal(c.slurmrestd.timeout_seconds, 5);
	assert_int_equal(c.commands[SRT_CMD_MOONCAKE_MASTER].n, 1);
	assert_string_equal(c.commands[SRT_CMD_MOONCAKE_MASTER].v[0], "/opt/fake_master");
	assert_string_equal(c.commands[SRT_CMD_SGLANG].v[1], "/opt/fake_engine.py");
	assert_int_equal(c.notify.command.n, 2);
	assert_string_equal(c.notify.command.v[1], "-q");
	assert_int_equal(c.notify.timeout_ms, 2000);
	assert_int_equal(c.notify.backoff_ms, 250);
	assert_int_equal(c.notify.max_attempts, 3);
	/* untouched commands keep their defaults */
	assert_string_equal(c.commands[SRT_CMD_VLLM].v[0], "vllm");
	srt_cluster_release(&c);
	srt_diags_release(&d);
}

static void test_errors(void **state)
{
	static const struct {
		const char *yaml, *want;
	} cases[] = {
		{ "runtime: {container_runtime: docker}\n",
		  "srtslurm.yaml:1:30: runtime.container_runtime: unknown container runtime 'docker'; "
		  "expected pyxis or none" },
		{ "netwrok_interface: eth0\n",
		  "srtslurm.yaml:1:1: unknown key 'netwrok_interface'; did you mean "
		  "'network_interface'?" },
		{ "commands: {vlm: [x]}\n",
		  "srtslurm.yaml:1:12: commands: unknown key 'vlm'; did you mean 'vllm'?" },
		{ "commands: {vllm: []}\n",
		  "srtslurm.yaml:1:18: commands.vllm: must be a non-empty list of strings (an argv)" },
		{ "slurmrestd: {timeout_seconds: 0}\n",
		  "srtslurm.yaml:1:31: slurmrestd.timeout_seconds: must be an integer from 1 to 3600" },
		{ "- a\n", "srtslurm.yaml:1:1: the cluster config must be a mapping" },
		{ "srtctl_root: srt-slurm\n",
		  "srtslurm.yaml:1:14: srtctl_root: 'srt-slurm' is not an absolute path; write the "
		  "srt-slurm checkout's full path (its configs/ holds the recipes' setup_script)" },
		{ "default_bash_preamble: \"ulimit\\0x\"\n",
		  "srtslurm.yaml:1:24: default_bash_preamble: contains a NUL byte, which bash cannot "
		  "run" },
		{ "model_path:\n  a: /m\n",
		  "srtslurm.yaml:1:1: unknown key 'model_path'; did you mean 'model_paths'?" },
		{ "frobnicate: 1\n",
		  "srtslurm.yaml:1:1: unknown key 'frobnicate' (neither srtctl nor srt-slurm reads "
		  "it); remove it" },
		{ "model_paths: [a]\n",
		  "srtslurm.yaml:1:14: model_paths: must be a mapping of alias: model path" },
		{ "model_paths: {a: {b: 1}}\n",
		  "srtslurm.yaml:1:18: model_paths: alias 'a' must be a string (the model path)" },
		{ "cluster: {acount: x}\n",
		  "srtslurm.yaml:1:11: cluster: unknown key 'acount'; did you mean 'account'?" },
		{ "notify: {timeout: 5s}\n",
		  "srtslurm.yaml:1:9: notify: needs command: the program (an argv list) that "
		  "receives each notification as JSON on stdin" },
		{ "notify: {command: [x], timeout: 0s}\n",
		  "srtslurm.yaml:1:33: notify.timeout: must be a duration such as 500ms, 30s or 2m, "
		  "at most 3600 s" },
		{ "notify: {command: [x], max_attempts: 0}\n",
		  "srtslurm.yaml:1:38: notify.max_attempts: must be an integer from 1 to 1000" },
		{ "notify: {command: [x], retries: 3}\n",
		  "srtslurm.yaml:1:24: notify: unknown key 'retries'" },
		{ "cluster: [x]\n",
		  "srtslurm.yaml:1:10: cluster: must be the cluster's name or a mapping of defaults "
		  "(account, partition, network_interface, default_time_limit, default_container)" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct srt_cluster c;
		struct srt_diags d;
		char *msg;

		assert_int_equal(parse(cases[i].yaml, &c, &d), -1);
		assert_true(d.n >= 1);
		msg = srt_diag_format(&d.items[0]);
		assert_string_equal(msg, cases[i].want);
		free(msg);
		srt_diags_release(&d);
	}
}

/* An srtslurm.yaml written for srt-slurm 2.0 (every documented key) loads. */
static void test_srt_slurm_file(void **state)
{
	static const char yaml[] =
		"default_account: acct\n"
		"default_partition: batch\n"
		"default_time_limit: '04:00:00'\n"
		"gpus_per_node: 4\n"
		"default_gpu_type: gb200\n"
		"network_interface: enP6p9s0np0\n"
		"use_gpus_per_node_directive: false\n"
		"use_segment_sbatch_directive: true\n"
		"use_exclusive_sbatch_directive: false\n"
		"use_het_jobs: false\n"
		"preflight: false\n"
		"srtctl_root: /shared/srt-slurm\n"
		"output_dir: /shared/outputs\n"
		"cluster: lyris\n"
		"cloud: {provider: none}\n"
		"default_bash_preamble: 'ulimit -n 1048576'\n"
		"default_gpu_exporter: null\n"
		"default_health_check: {max_attempts: 540, interval_seconds: 10}\n"
		"default_host_setup: {commands: ['sudo -n nvidia-smi -lmc 1,2']}\n"
		"default_mounts: {/lustre: /lustre}\n"
		"default_sbatch_directives: {cpus-per-gpu: '16', c: '2'}\n"
		"git_http_version: HTTP/1.1\n"
		"nginx_raise_ulimit: true\n"
		"reporting: {s3: {bucket: logs}}\n"
		"telemetry: {enabled: true}\n"
		"visible_devices_env: CUDA_VISIBLE_DEVICES\n"
		"launcher: slurm\n"
		"docker_args: [--user, '1000:1000']\n"
		"model_paths:\n"
		"  deepseek-r1: /models/DeepSeek-R1\n"
		"containers:\n"
		"  latest: /containers/sglang-latest.sqsh\n"
		"default_container: latest\n";
	struct srt_cluster c;
	struct srt_diags d;

	(void)state;
	assert_int_equal(parse(yaml, &c, &d), 0);
	assert_int_equal(d.nerrors, 0);
	/* One warning per key srtctl does not read: 14 of the 31 keys. */
	assert_int_equal(d.nwarnings, 14);
	assert_string_equal(c.default_bash_preamble, "ulimit -n 1048576");
	assert_int_equal(c.nginx_raise_ulimit, 1);
	for (size_t i = 0; i < d.n; i++) {
		assert_non_null(strstr(d.items[i].msg, "srtctl does not use"));
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(d.items[i].path, d.items[j].path);
	}
	assert_string_equal(c.default_account, "acct");
	assert_string_equal(c.default_partition, "batch");
	assert_string_equal(c.default_time_limit, "04:00:00");
	assert_string_equal(c.network_interface, "enP6p9s0np0");
	assert_false(c.use_gpus_per_node_directive);
	assert_true(c.use_segment_sbatch_directive);
	assert_int_equal(c.use_exclusive_sbatch_directive, 0);
	/* Stored by long name. */
	assert_int_equal(c.default_sbatch_directives.n, 2);
	assert_string_equal(srt_env_get(&c.default_sbatch_directives, "cpus-per-gpu"), "16");
	assert_string_equal(srt_env_get(&c.default_sbatch_directives, "cpus-per-task"), "2");
	assert_string_equal(srt_env_get(&c.model_paths, "deepseek-r1"), "/models/DeepSeek-R1");
	assert_string_equal(c.default_container, "latest");
	assert_string_equal(srt_cluster_container(&c, "latest"), "/containers/sglang-latest.sqsh");
	assert_int_equal(c.health_max_attempts, 540);
	assert_int_equal(c.default_mounts.n, 1);
	assert_string_equal(c.default_mounts.v[0].name, "/lustre:/lustre");
	assert_int_equal(c.health_interval_seconds, 10);
	srt_cluster_release(&c);
	srt_diags_release(&d);
}

/* default_mounts are checked as a recipe's mounts are. */
static void test_default_mounts(void **state)
{
	struct srt_cluster c;
	struct srt_diags d;

	(void)state;
	assert_int_not_equal(parse("default_mounts: {/a: b}\n", &c, &d), 0);
	assert_int_equal(d.nerrors, 1);
	assert_string_equal(d.items[0].msg,
			    "/a: the destination must be an absolute path in the container");
	srt_diags_release(&d); /* parse() freed what the failed parse held */
	/* a recipe may mount its own model at /model again; the cluster knows no model */
	assert_int_not_equal(parse("default_mounts: {/m: '/model:ro'}\n", &c, &d), 0);
	assert_int_equal(d.nerrors, 1);
	assert_string_equal(d.items[0].msg, "/m: srtctl mounts each recipe's model at /model; "
					    "choose another destination");
	srt_diags_release(&d);
	assert_int_equal(parse("default_mounts: {/a: '/b:ro', /c: /d}\n", &c, &d), 0);
	assert_int_equal(c.default_mounts.n, 2);
	assert_string_equal(c.default_mounts.v[0].name, "/a:/b:ro");
	srt_cluster_release(&c);
	srt_diags_release(&d);
}

/* Each key srt-slurm reads and srtctl does not: accepted with one warning. */
static void test_ignored_keys(void **state)
{
	static const char *const keys[] = {
		"ai_analysis: {enabled: false}",
		"cloud: {}",
		"default_gpu_exporter: null",
		"default_gpu_type: h100",
		"default_host_setup: {commands: []}",
		"docker_args: []",
		"git_http_version: HTTP/1.1",
		"gpus_per_node: 8",
		"launcher: docker",
		"output_dir: /o",
		"preflight: true",
		"reporting: {}",
		"telemetry: {}",
		"use_het_jobs: true",
		"cluster: name",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		struct srt_cluster c;
		struct srt_diags d;
		char yaml[256];

		snprintf(yaml, sizeof(yaml), "%s\n", keys[i]);
		if (parse(yaml, &c, &d) != 0 || d.nerrors || d.nwarnings != 1)
			fail_msg("'%s': %zu errors, %zu warnings", keys[i], d.nerrors, d.nwarnings);
		srt_cluster_release(&c);
		srt_diags_release(&d);
	}
}

/* The job switches and default_sbatch_directives: read, with srt-slurm's defaults. */
static void test_job_switches(void **state)
{
	static const struct {
		const char *yaml;
		const char *error; /* NULL: valid */
	} cases[] = {
		{ "default_sbatch_directives: {}\n", NULL },
		{ "use_exclusive_sbatch_directive: true\n", NULL },
		{ "use_gpus_per_node_directive: yes-please\n",
		  "use_gpus_per_node_directive: must be true or false" },
		{ "default_sbatch_directives: {comment: x}\n",
		  "default_sbatch_directives: comment: srtctl sets the job comment itself" },
		{ "default_sbatch_directives: {begin: now}\n",
		  "default_sbatch_directives: begin: srtctl cannot pass the sbatch option --begin" },
		{ "default_sbatch_directives: {mem: lots}\n",
		  "default_sbatch_directives: mem: directive --mem: 'lots' is not a memory size" },
		{ "default_sbatch_directives: [mem]\n",
		  "default_sbatch_directives: must be a mapping" },
	};
	struct srt_cluster c;
	struct srt_diags d;

	(void)state;
	assert_int_equal(parse("network_interface: eth0\n", &c, &d), 0);
	assert_true(c.use_gpus_per_node_directive);
	assert_true(c.use_segment_sbatch_directive);
	assert_int_equal(c.use_exclusive_sbatch_directive, -1);
	assert_int_equal(c.default_sbatch_directives.n, 0);
	srt_cluster_release(&c);
	srt_diags_release(&d);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s;
		int rc = parse(cases[i].yaml, &c, &d);

		if (!cases[i].error) {
			if (rc != 0 || d.n)
				fail_msg("'%s': %zu errors, %zu warnings", cases[i].yaml, d.nerrors,
					 d.nwarnings);
		} else {
			if (rc == 0 || d.nerrors != 1)
				fail_msg("'%s': want one error", cases[i].yaml);
			s = srt_diag_format(&d.items[0]);
			if (!strstr(s, cases[i].error))
				fail_msg("'%s': got\n%s\nwant it to hold\n%s", cases[i].yaml, s,
					 cases[i].error);
			free(s);
		}
		if (rc == 0)
			srt_cluster_release(&c);
		srt_diags_release(&d);
	}
}

/* srt-slurm 0.3's `cluster:` mapping fills what the top level leaves unset. */
static void test_cluster_mapping(void **state)
{
	struct srt_cluster c;
	struct srt_diags d;

	(void)state;
	assert_int_equal(parse("default_partition: top\n"
			       "cluster:\n  account: acct\n  partition: p03\n"
			       "  network_interface: ib0\n  gpus_per_node: 4\n"
			       "  default_time_limit: '1:00:00'\n  default_container: /c.sqsh\n",
			       &c, &d),
			 0);
	assert_int_equal(d.nerrors, 0);
	assert_int_equal(d.nwarnings, 1); /* gpus_per_node */
	assert_string_equal(d.items[0].path, "cluster.gpus_per_node");
	assert_string_equal(c.default_account, "acct");
	assert_string_equal(c.default_partition, "top");
	assert_string_equal(c.default_time_limit, "1:00:00");
	assert_string_equal(c.network_interface, "ib0");
	assert_string_equal(c.default_container, "/c.sqsh");
	srt_cluster_release(&c);
	srt_diags_release(&d);
}

/* model_paths aliases and default_container reach the recipe struct. */
static void test_apply(void **state)
{
	static const struct {
		const char *path, *container, *want_path, *want_container;
	} cases[] = {
		{ "deepseek-r1", NULL, "/models/DeepSeek-R1", "latest" },
		{ "/abs/model", "mine", "/abs/model", "mine" },
		{ "unknown-alias", NULL, "unknown-alias", "latest" },
		{ NULL, NULL, NULL, "latest" },
		{ "/abs/model", "", "/abs/model", "latest" }, /* "" names no image */
	};
	struct srt_cluster c;
	struct srt_diags d;

	(void)state;
	assert_int_equal(parse("model_paths: {deepseek-r1: /models/DeepSeek-R1}\n"
			       "containers: {latest: /c/latest.sqsh}\n"
			       "default_container: latest\n",
			       &c, &d),
			 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct srt_recipe r;

		memset(&r, 0, sizeof(r));
		r.model.path = cases[i].path;
		r.model.container = cases[i].container;
		srt_cluster_apply(&c, &r);
		if (cases[i].want_path)
			assert_string_equal(r.model.path, cases[i].want_path);
		else
			assert_null(r.model.path);
		assert_string_equal(r.model.container, cases[i].want_container);
	}
	/* The container alias itself resolves where images are rendered. */
	assert_string_equal(srt_cluster_container(&c, c.default_container), "/c/latest.sqsh");
	srt_cluster_apply(NULL, NULL); /* no cluster: nothing to do */
	srt_cluster_release(&c);
	srt_diags_release(&d);
}

static void test_load_discovery(void **state)
{
	char dir[] = "/tmp/srt-cluster-XXXXXX", path[256];
	struct srt_cluster c;
	struct srt_diags d;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/custom.yaml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("runtime: {network_interface: lo}\n", f);
	fclose(f);
	setenv("SRTSLURM_CONFIG", path, 1);
	srt_diags_init(&d);
	assert_int_equal(srt_cluster_load(&c, NULL, &d), 0);
	assert_string_equal(c.source, path);
	assert_string_equal(c.network_interface, "lo");
	srt_cluster_release(&c);
	/* a config named but missing is an error, not the defaults */
	snprintf(path, sizeof(path), "%s/missing.yaml", dir);
	setenv("SRTSLURM_CONFIG", path, 1);
	assert_int_equal(srt_cluster_load(&c, NULL, &d), -1);
	assert_true(d.nerrors >= 1);
	unsetenv("SRTSLURM_CONFIG");
	srt_diags_release(&d);
	snprintf(path, sizeof(path), "%s/custom.yaml", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),     cmocka_unit_test(test_full),
		cmocka_unit_test(test_errors),	     cmocka_unit_test(test_srt_slurm_file),
		cmocka_unit_test(test_ignored_keys), cmocka_unit_test(test_default_mounts),
		cmocka_unit_test(test_job_switches), cmocka_unit_test(test_cluster_mapping),
		cmocka_unit_test(test_apply),	     cmocka_unit_test(test_load_discovery),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
