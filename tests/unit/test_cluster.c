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
			       "  sglang: [python3, /opt/fake_engine.py]\n",
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
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_load_discovery),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
