/*
 * tests/unit/test_shell.c: util/shell quoting.
 *
 * The exact quoted text is asserted for a table of hostile values, and each
 * value is also round-tripped through a real /bin/sh and bash: the shell
 * runs `printf '%s' <quoted> > file` and the file must hold the original
 * bytes.  A canary file that an unquoted $(...) or backtick would create
 * must never appear.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/shell.h"

struct qcase {
	const char *in;
	size_t len; /* 0: strlen(in) */
	const char *want;
};

static const struct qcase cases[] = {
	{ "plain", 0, "plain" },
	{ "--rpc_port=8700", 0, "--rpc_port=8700" },
	{ "10.0.0.5:8700", 0, "10.0.0.5:8700" },
	{ "/a/b_c,d@e%f+g", 0, "/a/b_c,d@e%f+g" },
	{ "", 0, "''" },
	{ "two words", 0, "'two words'" },
	{ "it's", 0, "'it'\\''s'" },
	{ "'", 0, "''\\'''" },
	{ "''", 0, "''\\'''\\'''" },
	{ "$(touch canary)", 0, "'$(touch canary)'" },
	{ "`touch canary`", 0, "'`touch canary`'" },
	{ "a;touch canary", 0, "'a;touch canary'" },
	{ "a && b || c | d", 0, "'a && b || c | d'" },
	{ "line1\nline2\n", 0, "'line1\nline2\n'" },
	{ "*", 0, "'*'" },
	{ "~", 0, "'~'" },
	{ "~root/x", 0, "'~root/x'" },
	{ "!!", 0, "'!!'" },
	{ "${HOME}", 0, "'${HOME}'" },
	{ "\"dq\"", 0, "'\"dq\"'" },
	{ "back\\slash", 0, "'back\\slash'" },
	{ "{a,b}", 0, "'{a,b}'" },
	{ "#comment", 0, "'#comment'" },
	{ "tab\there", 0, "'tab\there'" },
	{ "\xff\xfe\x80 not utf-8", 0, "'\xff\xfe\x80 not utf-8'" },
	{ "{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_both\"}", 0,
	  "'{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_both\"}'" },
};

static void test_quote_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct srt_buf b;
		struct srt_error err = { "" };
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].in);

		srt_buf_init(&b);
		assert_int_equal(srt_shell_quote(&b, cases[i].in, len, &err), 0);
		assert_string_equal(b.data, cases[i].want);
		srt_buf_release(&b);
	}
}

static void test_quote_nul(void **state)
{
	struct srt_buf b;
	struct srt_error err = { "" };

	(void)state;
	srt_buf_init(&b);
	srt_buf_puts(&b, "keep ");
	assert_int_equal(srt_shell_quote(&b, "ab\0cd", 5, &err), -1);
	assert_string_equal(b.data, "keep ");
	assert_int_equal(b.len, 5);
	assert_non_null(strstr(err.msg, "NUL byte at offset 2"));
	assert_non_null(strstr(err.msg, "remove it"));
	assert_int_equal(srt_shell_quote(&b, "\0", 1, &err), -1);
	assert_non_null(strstr(err.msg, "offset 0"));
	srt_buf_release(&b);
}

static void test_argv_and_word(void **state)
{
	const char *argv[] = { "mooncake_master", "--rpc_port=8700", "a b", "", "x'y" };
	struct srt_buf b;

	(void)state;
	srt_buf_init(&b);
	srt_shell_argv(&b, argv, 5);
	assert_string_equal(b.data, "mooncake_master --rpc_port=8700 'a b' '' 'x'\\''y'");
	srt_buf_reset(&b);
	srt_shell_argv(&b, argv, 0);
	assert_string_equal(b.data, "");
	srt_shell_word(&b, "$x");
	assert_string_equal(b.data, "'$x'");
	srt_buf_release(&b);
}

static void test_env_names(void **state)
{
	static const char *const good[] = { "A", "_", "MOONCAKE_MASTER", "a1_b2", "_9" };
	static const char *const bad[] = { "", "1A", "A-B", "A B", "A=B", "$A", "A;B", "é" };

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_true(srt_shell_env_name_ok(good[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(srt_shell_env_name_ok(bad[i]));
	assert_false(srt_shell_env_name_ok(NULL));
}

static void test_export_and_assign(void **state)
{
	struct srt_buf b;
	struct srt_error err = { "" };

	(void)state;
	srt_buf_init(&b);
	assert_int_equal(srt_shell_export(&b, "MOONCAKE_MASTER", "10.0.0.1:8700", 13, &err), 0);
	assert_int_equal(srt_shell_export(&b, "X", "$(id)", 5, &err), 0);
	assert_string_equal(b.data, "export MOONCAKE_MASTER=10.0.0.1:8700\nexport X='$(id)'\n");
	srt_buf_reset(&b);
	assert_int_equal(srt_shell_export(&b, "BAD-NAME", "v", 1, &err), -1);
	assert_string_equal(b.data, "");
	assert_non_null(strstr(err.msg, "'BAD-NAME' is not a valid environment variable name"));
	assert_int_equal(srt_shell_export(&b, "X;rm", "v", 1, &err), -1);
	assert_int_equal(srt_shell_export(&b, "OK", "a\0b", 3, &err), -1);
	assert_string_equal(b.data, "");
	assert_non_null(strstr(err.msg, "environment variable 'OK': "));
	assert_non_null(strstr(err.msg, "NUL byte"));
	assert_int_equal(srt_shell_assign(&b, "A", "it's", 4, &err), 0);
	assert_string_equal(b.data, "A='it'\\''s'");
	srt_buf_release(&b);
}

/* Run `shell -c script` in dir; return its exit status. */
static int run_shell(const char *shell, const char *script, const char *dir)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		if (chdir(dir) != 0)
			_exit(126);
		execl(shell, shell, "-c", script, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	data = malloc((size_t)n + 1);
	assert_non_null(data);
	assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return data;
}

static void roundtrip(const char *shell)
{
	char dir[] = "/tmp/srt-shell-XXXXXX";
	char path[256], canary[256];
	struct stat st;

	if (access(shell, X_OK) != 0) {
		print_message("skipping %s: not installed\n", shell);
		return;
	}
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out", dir);
	snprintf(canary, sizeof(canary), "%s/canary", dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct srt_buf script;
		struct srt_error err = { "" };
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].in), got_len;
		char *got;

		srt_buf_init(&script);
		srt_buf_puts(&script, "printf '%s' ");
		assert_int_equal(srt_shell_quote(&script, cases[i].in, len, &err), 0);
		srt_buf_puts(&script, " > out");
		assert_int_equal(run_shell(shell, script.data, dir), 0);
		got = read_all(path, &got_len);
		assert_int_equal(got_len, len);
		assert_memory_equal(got, cases[i].in, len);
		free(got);
		srt_buf_release(&script);
		assert_int_not_equal(stat(canary, &st), 0);
	}
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

static void test_roundtrip_sh(void **state)
{
	(void)state;
	roundtrip("/bin/sh");
}

static void test_roundtrip_bash(void **state)
{
	(void)state;
	roundtrip("/bin/bash");
}

/* Every byte value 1..255 in one word survives the shell. */
static void test_roundtrip_all_bytes(void **state)
{
	char dir[] = "/tmp/srt-shell-XXXXXX";
	char path[256], all[255];
	struct srt_buf script;
	struct srt_error err = { "" };
	size_t got_len;
	char *got;

	(void)state;
	for (int i = 0; i < 255; i++)
		all[i] = (char)(i + 1);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out", dir);
	srt_buf_init(&script);
	srt_buf_puts(&script, "printf '%s' ");
	assert_int_equal(srt_shell_quote(&script, all, sizeof(all), &err), 0);
	srt_buf_puts(&script, " > out");
	assert_int_equal(run_shell("/bin/sh", script.data, dir), 0);
	got = read_all(path, &got_len);
	assert_int_equal(got_len, sizeof(all));
	assert_memory_equal(got, all, sizeof(all));
	free(got);
	srt_buf_release(&script);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote_table),
		cmocka_unit_test(test_quote_nul),
		cmocka_unit_test(test_argv_and_word),
		cmocka_unit_test(test_env_names),
		cmocka_unit_test(test_export_and_assign),
		cmocka_unit_test(test_roundtrip_sh),
		cmocka_unit_test(test_roundtrip_bash),
		cmocka_unit_test(test_roundtrip_all_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
