/*
 * tests/unit/test_script.c: the generated batch script, run for real.
 *
 * Each test renders a recipe's batch script and runs it under bash with
 * stand-ins on PATH: `srun` drops its --options and runs the command here,
 * `scontrol show hostnames` splits the node list, `hostname -I` prints a
 * per-node loopback IP (127.0.1.<n> for node n<n>, so probes never leave
 * the machine).  The engines and services are tests/data/render/recorder.sh
 * (argv and env written NUL-separated) and fake_master.py.  The assertions
 * compare what the processes received byte for byte with what the recipe
 * says, and check that no `$(touch canary)` or backtick in a value ran.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "recipe/compile.h"
#include "recipe/render.h"
#include "recipe/script.h"
#include "util/buf.h"

#define DATA SRT_SOURCE_DIR "/tests/data/render"
#define RECORDER DATA "/recorder.sh"

/* ---- files ---- */

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct srt_buf b;
	char chunk[4096];
	size_t n;

	if (!f)
		return NULL;
	srt_buf_init(&b);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		srt_buf_append(&b, chunk, n);
	fclose(f);
	if (len)
		*len = b.len;
	return srt_buf_detach(&b);
}

static void rm_rf(const char *path)
{
	char *cmd = srt_xasprintf("rm -rf '%s'", path);

	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* ---- the sandbox ---- */

struct box {
	char dir[64];
	char *logs;
	char *rec;
	struct srt_cluster cl;
	struct srt_compiled comp;
	struct srt_diags d;
	const char *store_cmd[3];
	const char *engine_cmd[3];
	int status;
	char *stderr_text;
};

static const char fake_srun[] =
	"#!/bin/bash\n"
	"# srun stand-in: drop the --options, run the command on this machine.\n"
	"# Each call records its options in a file of its own: bash line-buffers\n"
	"# stdout, so one printf is a write per line and steps started in\n"
	"# parallel would interleave lines in a shared file.\n"
	"opts=\n"
	"while [[ $# -gt 0 && $1 == --* ]]; do\n"
	"\tcase $1 in --nodelist=*) export SRT_FAKE_NODE=${1#--nodelist=} ;; esac\n"
	"\topts+=$1$'\\n'\n"
	"\tshift\n"
	"done\n"
	"printf '%s' \"$opts\" >\"$SRT_RECORD_DIR/srun-options.$$\"\n"
	"exec \"$@\"\n";

static const char fake_scontrol[] = "#!/bin/bash\n"
				    "[[ $1 == show && $2 == hostnames ]] || exit 2\n"
				    "tr ',' '\\n' <<<\"$3\"\n";

static const char fake_hostname[] =
	"#!/bin/bash\n"
	"if [[ ${1:-} == -I ]]; then\n"
	"\techo \"${FAKE_NODE_IP:-127.0.1.${SRT_FAKE_NODE#n}} 10.9.9.9\"\n"
	"else\n"
	"\techo \"$SRT_FAKE_NODE\"\n"
	"fi\n";

static int box_setup(void **state)
{
	struct box *b = calloc(1, sizeof(*b));
	char *path = NULL, real[PATH_MAX];

	strcpy(b->dir, "/tmp/srt-script-XXXXXX");
	assert_non_null(mkdtemp(b->dir));
	assert_non_null(realpath(b->dir, real));
	b->logs = srt_xasprintf("%s/logs", real);
	b->rec = srt_xasprintf("%s/rec", real);
	assert_int_equal(mkdir(b->rec, 0755), 0);
	free(path);
	path = srt_xasprintf("%s/bin", b->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	free(path);
	path = srt_xasprintf("%s/bin/srun", b->dir);
	write_file(path, fake_srun, 0755);
	free(path);
	path = srt_xasprintf("%s/bin/scontrol", b->dir);
	write_file(path, fake_scontrol, 0755);
	free(path);
	path = srt_xasprintf("%s/bin/hostname", b->dir);
	write_file(path, fake_hostname, 0755);
	free(path);

	srt_cluster_defaults(&b->cl);
	srt_diags_init(&b->d);
	b->engine_cmd[0] = "bash";
	b->engine_cmd[1] = RECORDER;
	b->store_cmd[0] = "bash";
	b->store_cmd[1] = RECORDER;
	b->store_cmd[2] = "store";
	b->cl.commands[SRT_CMD_MOONCAKE_STORE].v = b->store_cmd;
	b->cl.commands[SRT_CMD_MOONCAKE_STORE].n = 3;
	*state = b;
	return 0;
}

static int box_teardown(void **state)
{
	struct box *b = *state;

	srt_compiled_release(&b->comp);
	srt_diags_release(&b->d);
	free(b->stderr_text);
	free(b->logs);
	free(b->rec);
	rm_rf(b->dir);
	free(b);
	return 0;
}

static void set_engine(struct box *b, enum srt_cmd_kind k, const char *tag)
{
	b->engine_cmd[2] = tag;
	b->cl.commands[k].v = b->engine_cmd;
	b->cl.commands[k].n = 3;
}

/* Compile yaml (printf-style, %1$s is the recorder path), render, run. */
static void run_recipe(struct box *b, const char *nodelist, const char *extra_env,
		       const char *yaml_fmt)
{
	char *yaml = srt_xasprintf(yaml_fmt, RECORDER);
	struct srt_plan *p;
	struct srt_script_opts o = { "t", b->logs };
	char *script, *path = NULL, *cmd;
	size_t nerr;

	nerr = srt_compile_bytes(yaml, strlen(yaml), "test.yaml", &b->cl, &b->comp, &b->d);
	free(yaml);
	if (nerr) {
		srt_diags_print(&b->d, stdout);
		fail_msg("the test recipe does not compile");
	}
	p = srt_plan_build(b->comp.recipes[0], &b->cl, &b->d);
	assert_non_null(p);
	script = srt_script_render(p, &o, &b->d);
	assert_non_null(script);
	srt_plan_free(p);
	free(path);
	path = srt_xasprintf("%s/job.sh", b->dir);
	write_file(path, script, 0644);
	free(script);

	cmd = srt_xasprintf("cd '%s' && PATH=\"$PWD/bin:$PATH\" SLURM_JOB_ID=42 "
			    "SLURM_JOB_NODELIST='%s' SRT_RECORD_DIR='%s' %s "
			    "timeout 120 bash job.sh >stdout.txt 2>stderr.txt",
			    b->dir, nodelist, b->rec, extra_env ? extra_env : "");
	b->status = system(cmd);
	b->status = WIFEXITED(b->status) ? WEXITSTATUS(b->status) : 128;
	free(cmd);
	free(path);
	path = srt_xasprintf("%s/stderr.txt", b->dir);
	b->stderr_text = read_file(path, NULL);
	free(path);
	assert_non_null(b->stderr_text);
}

/* ---- records ---- */

struct rec {
	pid_t pid;
	char *argv_data, *env_data;
	size_t argv_len, env_len;
};

struct recs {
	struct rec v[32];
	size_t n;
};

static void load_recs(struct box *b, struct recs *rs)
{
	DIR *d = opendir(b->rec);
	struct dirent *de;

	assert_non_null(d);
	rs->n = 0;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char *path = NULL;
		struct rec *r;

		if (strncmp(de->d_name, "rec.", 4) || len < 5 ||
		    strcmp(de->d_name + len - 5, ".argv"))
			continue;
		assert_true(rs->n < 32);
		r = &rs->v[rs->n++];
		r->pid = (pid_t)atol(de->d_name + 4);
		free(path);
		path = srt_xasprintf("%s/%s", b->rec, de->d_name);
		r->argv_data = read_file(path, &r->argv_len);
		free(path);
		path = srt_xasprintf("%s/rec.%ld.env", b->rec, (long)r->pid);
		r->env_data = read_file(path, &r->env_len);
		free(path);
		assert_non_null(r->argv_data);
		assert_non_null(r->env_data);
	}
	closedir(d);
}

/* The options of every srun call, each call's lines after a blank line. */
static char *srun_options(struct box *b)
{
	DIR *d = opendir(b->rec);
	struct dirent *de;
	struct srt_buf all;

	assert_non_null(d);
	srt_buf_init(&all);
	while ((de = readdir(d))) {
		char *path, *text;
		size_t len;

		if (strncmp(de->d_name, "srun-options.", 13))
			continue;
		path = srt_xasprintf("%s/%s", b->rec, de->d_name);
		text = read_file(path, &len);
		assert_non_null(text);
		srt_buf_append(&all, "\n", 1);
		srt_buf_append(&all, text, len);
		free(text);
		free(path);
	}
	closedir(d);
	return srt_buf_detach(&all);
}

static void free_recs(struct recs *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->v[i].argv_data);
		free(rs->v[i].env_data);
	}
}

/* The i-th NUL-terminated field of data, or NULL. */
static const char *field(const char *data, size_t len, size_t i, size_t *flen)
{
	size_t at = 0;

	for (size_t k = 0; at < len; k++) {
		const char *end = memchr(data + at, '\0', len - at);
		size_t n = end ? (size_t)(end - (data + at)) : len - at;

		if (k == i) {
			if (flen)
				*flen = n;
			return data + at;
		}
		at += n + 1;
	}
	return NULL;
}

static size_t argc_of(const struct rec *r)
{
	size_t n = 0;

	while (field(r->argv_data, r->argv_len, n, NULL))
		n++;
	return n;
}

static void assert_argv(const struct rec *r, const char *const *want, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len;
		const char *a = field(r->argv_data, r->argv_len, i, &len);

		assert_non_null(a);
		assert_int_equal(len, strlen(want[i]));
		assert_memory_equal(a, want[i], len);
	}
	assert_int_equal(argc_of(r), n);
}

/* The value of NAME in a record's env (exact bytes), or NULL. */
static char *env_of(const struct rec *r, const char *name)
{
	size_t nlen = strlen(name), len;
	const char *f;

	for (size_t i = 0; (f = field(r->env_data, r->env_len, i, &len)); i++)
		if (len > nlen && !memcmp(f, name, nlen) && f[nlen] == '=')
			return srt_xstrndup(f + nlen + 1, len - nlen - 1);
	return NULL;
}

static void assert_env(const struct rec *r, const char *name, const char *want)
{
	char *v = env_of(r, name);

	if (!v)
		fail_msg("process has no %s", name);
	assert_string_equal(v, want);
	free(v);
}

/* The record whose argv[0] is tag and (when non-NULL) whose env has NAME=value. */
static const struct rec *find(const struct recs *rs, const char *tag, const char *name,
			      const char *value)
{
	for (size_t i = 0; i < rs->n; i++) {
		const struct rec *r = &rs->v[i];
		const char *a0 = field(r->argv_data, r->argv_len, 0, NULL);
		char *v;
		bool ok;

		if (!a0 || strcmp(a0, tag))
			continue;
		if (!name)
			return r;
		v = env_of(r, name);
		ok = v && !strcmp(v, value);
		free(v);
		if (ok)
			return r;
	}
	fail_msg("no %s process with %s=%s", tag, name ? name : "-", value ? value : "-");
	return NULL;
}

static size_t count(const struct recs *rs, const char *tag)
{
	size_t n = 0;

	for (size_t i = 0; i < rs->n; i++) {
		const char *a0 = field(rs->v[i].argv_data, rs->v[i].argv_len, 0, NULL);

		n += a0 && !strcmp(a0, tag);
	}
	return n;
}

static bool pid_gone(pid_t pid)
{
	char *path = NULL, *stat;
	bool gone;

	if (kill(pid, 0) != 0)
		return true;
	free(path);
	path = srt_xasprintf("/proc/%ld/stat", (long)pid);
	stat = read_file(path, NULL);
	gone = !stat || strstr(stat, ") Z ") != NULL;
	free(path);
	free(stat);
	return gone;
}

static void assert_no_canary(struct box *b)
{
	char *path = NULL;
	struct stat st;

	free(path);
	path = srt_xasprintf("%s/canary", b->dir);
	if (stat(path, &st) == 0)
		fail_msg("a $(...) or backtick in a recipe value was executed");
	free(path);
}

/* ---- the tests ---- */

#define HOSTILE \
	"it's \\\"q\\\" $(touch canary) `touch canary`; touch canary\\nline2 \\\\ end * ~ !x"
#define HOSTILE_BYTES "it's \"q\" $(touch canary) `touch canary`; touch canary\nline2 \\ end * ~ !x"

static const char hostile_recipe[] =
	"name: hostile\n"
	"engine: sglang\n"
	"environment:\n"
	"  SRT_RECORDER: %1$s\n"
	"  TOP_HOSTILE: \"top $(touch canary) `touch canary` ; touch canary\"\n"
	"roles:\n"
	"  prefill:\n"
	"    env:\n"
	"      RECORDER_LINGER: \"30\"\n"
	"      HOSTILE: \"" HOSTILE "\"\n"
	"      MOONCAKE_MASTER: \"$(touch canary)\"\n"
	"    args:\n"
	"      disaggregation-transfer-backend: mooncake\n"
	"      weird: \"a'b $(touch canary) `touch canary` ; touch canary\\nnext\"\n"
	"      json: {\"k\": \"v'$(x)\"}\n"
	"    extra_args: [\"--x=$(touch canary)\", \"'\", \"\"]\n"
	"  decode:\n"
	"    env:\n"
	"      RECORDER_LINGER: \"30\"\n"
	"      MOONCAKE_LOCAL_HOSTNAME: \"pinned;$(touch canary)\"\n"
	"    args:\n"
	"      disaggregation-transfer-backend: mooncake\n"
	"services:\n"
	"  - name: mooncake-master\n"
	"    type: mooncake-master\n"
	"    external: 10.0.0.5:8700\n"
	"  - name: store\n"
	"    type: mooncake-store\n"
	"    placement: {node: workers}\n"
	"    args: [\"--tag\", \"$(touch canary)\"]\n"
	"    env:\n"
	"      RECORDER_LINGER: \"30\"\n"
	"  - name: side\n"
	"    start: before_workers\n"
	"    command: [bash, %1$s, side, \"`touch canary`\", \"a\\nb\", \"\"]\n"
	"benchmark:\n"
	"  type: custom\n"
	"  command: 'exec bash \"$SRT_RECORDER\" bench'\n"
	"  isl: \"1024; touch canary\"\n";

static void test_hostile_values_arrive_verbatim(void **state)
{
	struct box *b = *state;
	struct recs rs;
	const struct rec *r;
	char *path = NULL, *log;
	static const char *const prefill_argv[] = {
		"sglang",
		"--disaggregation-transfer-backend",
		"mooncake",
		"--weird",
		"a'b $(touch canary) `touch canary` ; touch canary\nnext",
		"--json",
		"{\"k\":\"v'$(x)\"}",
		"--x=$(touch canary)",
		"'",
		"",
	};
	static const char *const decode_argv[] = { "sglang", "--disaggregation-transfer-backend",
						   "mooncake" };
	static const char *const store_argv[] = { "store", "--tag", "$(touch canary)" };
	static const char *const side_argv[] = { "side", "`touch canary`", "a\nb", "" };

	set_engine(b, SRT_CMD_SGLANG, "sglang");
	run_recipe(b, "n1,n2", NULL, hostile_recipe);
	if (b->status != 0)
		print_message("stderr:\n%s\n", b->stderr_text);
	assert_int_equal(b->status, 0);
	assert_no_canary(b);
	assert_non_null(strstr(b->stderr_text, "benchmark finished with status 0"));

	load_recs(b, &rs);
	assert_int_equal(rs.n, 6);
	assert_int_equal(count(&rs, "sglang"), 2);
	assert_int_equal(count(&rs, "store"), 2);

	r = find(&rs, "sglang", "MOONCAKE_LOCAL_HOSTNAME", "127.0.1.1");
	assert_argv(r, prefill_argv, sizeof(prefill_argv) / sizeof(prefill_argv[0]));
	assert_env(r, "HOSTILE", HOSTILE_BYTES);
	assert_env(r, "TOP_HOSTILE", "top $(touch canary) `touch canary` ; touch canary");
	assert_env(r, "MOONCAKE_MASTER", "10.0.0.5:8700");
	assert_env(r, "MOONCAKE_TE_META_DATA_SERVER", "http://10.0.0.5:8701/metadata");

	r = find(&rs, "sglang", "MOONCAKE_LOCAL_HOSTNAME", "pinned;$(touch canary)");
	assert_argv(r, decode_argv, 3);
	assert_env(r, "MOONCAKE_MASTER", "10.0.0.5:8700");

	r = find(&rs, "store", "MOONCAKE_LOCAL_HOSTNAME", "127.0.1.2");
	assert_argv(r, store_argv, 3);
	assert_env(r, "MOONCAKE_MASTER", "10.0.0.5:8700");
	r = find(&rs, "store", "MOONCAKE_LOCAL_HOSTNAME", "127.0.1.1");
	assert_argv(r, store_argv, 3);

	r = find(&rs, "side", NULL, NULL);
	assert_argv(r, side_argv, 4);
	assert_env(r, "TOP_HOSTILE", "top $(touch canary) `touch canary` ; touch canary");

	r = find(&rs, "bench", NULL, NULL);
	assert_env(r, "SRT_BENCH_ISL", "1024; touch canary");
	assert_env(r, "SRT_BENCH_TYPE", "custom");

	/* Lingering servers were stopped by the EXIT trap. */
	for (size_t i = 0; i < rs.n; i++)
		assert_true(pid_gone(rs.v[i].pid));

	/* A worker's log starts with its Env: line; services' logs do not. */
	free(path);
	path = srt_xasprintf("%s/worker_prefill_0.out", b->logs);
	log = read_file(path, NULL);
	assert_non_null(log);
	assert_true(!strncmp(log, "Env: ", 5));
	assert_non_null(strstr(log, "MOONCAKE_LOCAL_HOSTNAME=127.0.1.1"));
	assert_non_null(strstr(log, "recorder: 10 argument(s) recorded"));
	free(log);
	free(path);
	path = srt_xasprintf("%s/service_store_n2.out", b->logs);
	log = read_file(path, NULL);
	assert_non_null(log);
	assert_true(!strncmp(log, "recorder: 3 argument(s)", 23));
	free(log);
	free(path);
	log = srun_options(b);
	assert_non_null(strstr(log, "\n--nodelist=n2\n--job-name=store_n2\n"));
	assert_null(strstr(log, "--container-image"));
	free(log);
	free_recs(&rs);
}

static const char vllm_recipe[] =
	"name: vllm-run\n"
	"engine: vllm\n"
	"environment: {SRT_RECORDER: %1$s}\n"
	"roles:\n"
	"  prefill:\n"
	"    env: {RECORDER_LINGER: \"30\"}\n"
	"    args: {kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_both\"}'}\n"
	"  decode:\n"
	"    env: {RECORDER_LINGER: \"30\"}\n"
	"    args: {kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_both\"}'}\n"
	"services:\n"
	"  - name: mooncake-master\n"
	"    type: mooncake-master\n"
	"    readiness: {timeout_seconds: 30, interval_seconds: 1}\n"
	"    env: {MASTER_ONLY: \"m'$(touch canary)\"}\n"
	"    options:\n"
	"      store_config:\n"
	"        metadata_server: P2PHANDSHAKE\n"
	"        master_server_address: 9.9.9.9:1\n"
	"        global_segment_size: 1GB\n"
	"        local_buffer_size: 1GB\n"
	"        protocol: tcp\n"
	"        device_name: \"it's $(touch canary)\"\n"
	"benchmark:\n"
	"  type: custom\n"
	"  command: 'exec bash \"$SRT_RECORDER\" bench'\n";

static void test_vllm_with_master(void **state)
{
	struct box *b = *state;
	const char *master_cmd[] = { "python3", DATA "/fake_master.py" };
	struct recs rs;
	const struct rec *r;
	char *path = NULL, *want, *text, *log;
	static const char *const master_argv[] = {
		"master",
		"--rpc_port=8700",
		"--enable_http_metadata_server=true",
		"--http_metadata_server_port=8701",
		"--metrics_port=8702",
	};

	if (system("python3 -c 'pass' >/dev/null 2>&1") != 0)
		skip();
	set_engine(b, SRT_CMD_VLLM, "vllm");
	b->cl.commands[SRT_CMD_MOONCAKE_MASTER].v = master_cmd;
	b->cl.commands[SRT_CMD_MOONCAKE_MASTER].n = 2;
	run_recipe(b, "n1,n2", "FAKE_NODE_IP=127.0.0.1", vllm_recipe);
	free(path);
	path = srt_xasprintf("%s/service_mooncake-master.out", b->logs);
	log = read_file(path, NULL);
	if (b->status != 0 && log && strstr(log, "cannot bind")) {
		print_message("skipping: ports 8700-8702 are in use here\n");
		free(log);
		skip();
	}
	if (b->status != 0)
		print_message("stderr:\n%s\nmaster log:\n%s\n", b->stderr_text, log ? log : "");
	free(log);
	assert_int_equal(b->status, 0);
	assert_no_canary(b);
	assert_non_null(strstr(b->stderr_text, "mooncake-master is ready"));

	/* The store_config file, with the infra IP resolved at run time. */
	free(path);
	path = srt_xasprintf("%s/mooncake/store_config.json", b->logs);
	text = read_file(path, NULL);
	assert_non_null(text);
	assert_string_equal(text,
			    "{\"master_server_address\":\"127.0.0.1:8700\","
			    "\"metadata_server\":\"P2PHANDSHAKE\",\"global_segment_size\":\"1GB\","
			    "\"local_buffer_size\":\"1GB\",\"protocol\":\"tcp\","
			    "\"device_name\":\"it's $(touch canary)\"}\n");
	free(text);

	load_recs(b, &rs);
	assert_int_equal(rs.n, 4);
	r = find(&rs, "master", NULL, NULL);
	assert_argv(r, master_argv, 5);
	assert_env(r, "MASTER_ONLY", "m'$(touch canary)");
	r = find(&rs, "vllm", NULL, NULL);
	assert_env(r, "MOONCAKE_MASTER", "127.0.0.1:8700");
	assert_env(r, "MOONCAKE_TE_META_DATA_SERVER", "http://127.0.0.1:8701/metadata");
	assert_env(r, "MOONCAKE_LOCAL_HOSTNAME", "127.0.0.1");
	want = srt_xasprintf("%s/mooncake/store_config.json", b->logs);
	assert_env(r, "MOONCAKE_CONFIG_PATH", want);
	free(want);
	assert_null(env_of(r, "MASTER_ONLY"));
	free(path);
	for (size_t i = 0; i < rs.n; i++)
		assert_true(pid_gone(rs.v[i].pid));
	free_recs(&rs);
}

static void test_master_dies_before_ready(void **state)
{
	struct box *b = *state;
	const char *master_cmd[] = { "bash", RECORDER, "master" };
	struct recs rs;

	set_engine(b, SRT_CMD_SGLANG, "sglang");
	b->cl.commands[SRT_CMD_MOONCAKE_MASTER].v = master_cmd;
	b->cl.commands[SRT_CMD_MOONCAKE_MASTER].n = 3;
	run_recipe(b, "n1,n2", NULL,
		   "engine: sglang\n"
		   "environment: {R: %1$s}\n"
		   "roles:\n"
		   "  prefill: {args: {disaggregation-transfer-backend: mooncake}}\n"
		   "  decode: {args: {disaggregation-transfer-backend: mooncake}}\n"
		   "services:\n"
		   "  - name: mooncake-master\n"
		   "    type: mooncake-master\n"
		   "    readiness: {timeout_seconds: 60}\n");
	assert_int_equal(b->status, 1);
	assert_non_null(strstr(b->stderr_text,
			       "mooncake-master exited with status 0 before it was ready (tcp port "
			       "8700 on 127.0.1.1)"));
	assert_non_null(strstr(b->stderr_text, "last lines of"));
	assert_non_null(strstr(b->stderr_text, "recorder: 5 argument(s) recorded"));
	load_recs(b, &rs);
	assert_int_equal(rs.n, 1); /* no worker started */
	free_recs(&rs);
}

static void test_too_few_nodes(void **state)
{
	struct box *b = *state;

	set_engine(b, SRT_CMD_SGLANG, "sglang");
	run_recipe(b, "n1", NULL,
		   "engine: sglang\n"
		   "environment: {R: %1$s}\n"
		   "roles:\n"
		   "  prefill: {args: {disaggregation-transfer-backend: mooncake}}\n"
		   "  decode: {args: {disaggregation-transfer-backend: mooncake}}\n");
	assert_int_equal(b->status, 1);
	assert_non_null(
		strstr(b->stderr_text, "the allocation has 1 node(s) but the recipe needs 2"));
}

/* ---- the text itself ---- */

static void test_header_and_pyxis(void **state)
{
	struct box *b = *state;
	struct srt_plan *p;
	struct srt_script_opts o = { NULL, NULL };
	char *s;
	struct srt_env_var dirs[] = { { "exclusive", "", NULL } };
	static const char yaml[] =
		"name: hdr\n"
		"engine: sglang\n"
		"model: {container: img:1}\n"
		"slurm: {account: acct, time_limit: \"01:00:00\"}\n"
		"roles:\n"
		"  prefill: {args: {disaggregation-transfer-backend: mooncake}}\n"
		"  decode: {args: {disaggregation-transfer-backend: mooncake}}\n"
		"services:\n"
		"  - {name: mooncake-master, type: mooncake-master, placement: {node: dedicated}}\n";

	b->cl.container_runtime = SRT_CRT_PYXIS;
	b->cl.default_partition = "batch";
	b->cl.default_account = "ignored";
	b->cl.network_interface = "ib0";
	assert_int_equal(srt_compile_bytes(yaml, strlen(yaml), "hdr.yaml", &b->cl, &b->comp, &b->d),
			 0);
	b->comp.recipes[0]->slurm.directives.v = dirs;
	b->comp.recipes[0]->slurm.directives.n = 1;
	p = srt_plan_build(b->comp.recipes[0], &b->cl, &b->d);
	assert_non_null(p);
	s = srt_script_render(p, &o, &b->d);
	assert_non_null(s);
	assert_true(!strncmp(s,
			     "#!/bin/bash\n"
			     "#SBATCH --job-name=hdr\n"
			     "#SBATCH --nodes=3\n"
			     "#SBATCH --account=acct\n"
			     "#SBATCH --partition=batch\n"
			     "#SBATCH --time=01:00:00\n"
			     "#SBATCH --exclusive\n",
			     strlen("#!/bin/bash\n#SBATCH --job-name=hdr\n#SBATCH --nodes=3\n"
				    "#SBATCH --account=acct\n#SBATCH --partition=batch\n"
				    "#SBATCH --time=01:00:00\n#SBATCH --exclusive\n")));
	assert_non_null(strstr(s, "\nset -euo pipefail\n"));
	assert_non_null(strstr(s, "SRT_LOG_DIR=outputs/hdr/\"${SLURM_JOB_ID}\"\n"));
	assert_non_null(strstr(s, "SRT_INFRA=2\nSRT_IFACE=ib0\n"));
	assert_non_null(strstr(s, "SRT_CTR=(--container-image=img:1 "
				  "\"--container-mounts=${SRT_LOG_DIR}:/logs\")\n"));
	assert_non_null(strstr(s, "\n\tMOONCAKE_MASTER=\"${SRT_INFRA_IP}\":8700\n"));
	assert_non_null(strstr(s, "\n\tMOONCAKE_LOCAL_HOSTNAME=\"${SRT_IPS[1]}\"\n"));
	assert_non_null(strstr(s, "srt_launch mooncake-master 2 service_mooncake-master.out 0 1\n"
				  "srt_wait_ready 0 \"${SRT_IPS[2]}\" 120 2 tcp:8700 tcp:8701 "
				  "http:8702:200:/health\n"));
	free(s);

	/* A value sbatch would split on is refused. */
	b->comp.recipes[0]->slurm.account = "a\nrm -rf /";
	s = srt_script_render(p, &o, &b->d);
	assert_null(s);
	assert_non_null(
		strstr(b->d.items[b->d.n - 1].msg, "cannot be written as an #SBATCH option"));
	srt_plan_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hostile_values_arrive_verbatim, box_setup,
						box_teardown),
		cmocka_unit_test_setup_teardown(test_vllm_with_master, box_setup, box_teardown),
		cmocka_unit_test_setup_teardown(test_master_dies_before_ready, box_setup,
						box_teardown),
		cmocka_unit_test_setup_teardown(test_too_few_nodes, box_setup, box_teardown),
		cmocka_unit_test_setup_teardown(test_header_and_pyxis, box_setup, box_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
