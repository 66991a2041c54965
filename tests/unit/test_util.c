/* tests/unit/test_util.c: util/ (buf, arena, diag, strutil, clock, sha256). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/diag.h"
#include "util/err.h"
#include "util/sha256.h"
#include "util/strmap.h"
#include "util/strutil.h"

static void test_buf(void **state)
{
	struct srt_buf b;
	char *s;

	(void)state;
	srt_buf_init(&b);
	assert_string_equal(b.data, "");
	for (int i = 0; i < 1000; i++)
		srt_buf_printf(&b, "%d,", i % 10);
	assert_int_equal(b.len, 2000);
	srt_buf_reset(&b);
	srt_buf_append(&b, "a\0b", 3);
	assert_int_equal(b.len, 3);
	assert_int_equal(b.data[3], '\0');
	s = srt_buf_detach(&b);
	assert_memory_equal(s, "a\0b", 3);
	free(s);
	assert_int_equal(b.len, 0);
	s = srt_buf_detach(&b); /* empty buffers detach to a fresh "" */
	assert_string_equal(s, "");
	free(s);
	s = srt_xasprintf("%s-%d", "x", 7);
	assert_string_equal(s, "x-7");
	free(s);
	/* bounded lists */
	{
		size_t n = 0;

		for (int i = 0; i < 2; i++)
			srt_buf_list_item(&b, &n, 3, "p%d", i);
		srt_buf_list_end(&b, n, 3);
		assert_string_equal(b.data, "p0, p1");
		for (int i = 2; i < 6; i++)
			srt_buf_list_item(&b, &n, 3, "p%d", i);
		srt_buf_list_end(&b, n, 3);
		assert_string_equal(b.data, "p0, p1, p2 and 3 more");
		assert_int_equal(n, 6);
	}
	srt_buf_release(&b);
}

static void test_arena(void **state)
{
	struct srt_arena a;
	char *big;

	(void)state;
	srt_arena_init(&a);
	for (int i = 0; i < 10000; i++) {
		int *p = srt_arena_alloc(&a, sizeof(int) * 3);

		assert_int_equal((uintptr_t)p % 16, 0);
		assert_int_equal(p[0] | p[1] | p[2], 0);
	}
	big = srt_arena_alloc(&a, 100000); /* larger than a block */
	memset(big, 1, 100000);
	assert_string_equal(srt_arena_printf(&a, "%s=%d", "k", 3), "k=3");
	assert_string_equal(srt_arena_strndup(&a, "abcdef", 3), "abc");
	srt_arena_release(&a);
	assert_null(a.head);
}

static void test_diag_format(void **state)
{
	struct srt_diags d, e;
	char *s;

	(void)state;
	srt_diags_init(&d);
	srt_diags_add(&d, SRT_DIAG_ERROR, "r.yaml", 14, 7, "roles.prefill.args", "bad %s", "x");
	srt_diags_add(&d, SRT_DIAG_WARNING, "r.yaml", 3, 1, "profiling", "ignored");
	srt_diags_add(&d, SRT_DIAG_ERROR, "r.yaml", 0, 0, NULL, "whole file");
	srt_diags_add(&d, SRT_DIAG_ERROR, NULL, 0, 0, NULL, "no file");
	assert_int_equal(d.nerrors, 3);
	assert_int_equal(d.nwarnings, 1);
	s = srt_diag_format(&d.items[0]);
	assert_string_equal(s, "r.yaml:14:7: roles.prefill.args: bad x");
	free(s);
	s = srt_diag_format(&d.items[1]);
	assert_string_equal(s, "r.yaml:3:1: warning: profiling: ignored");
	free(s);
	s = srt_diag_format(&d.items[2]);
	assert_string_equal(s, "r.yaml: whole file");
	free(s);
	s = srt_diag_format(&d.items[3]);
	assert_string_equal(s, "no file");
	free(s);
	srt_diags_init(&e);
	srt_diags_take(&e, &d);
	assert_int_equal(e.n, 4);
	assert_int_equal(e.nerrors, 3);
	assert_int_equal(d.n, 0);
	srt_diags_release(&e);
	srt_diags_release(&d);
}

static void test_err(void **state)
{
	struct srt_error err;

	(void)state;
	assert_int_equal(srt_error_set(&err, "cannot open %s", "x"), -1);
	assert_int_equal(srt_error_prefix(&err, "recipe '%s'", "r"), -1);
	assert_string_equal(err.msg, "recipe 'r': cannot open x");
	srt_error_clear(&err);
	assert_string_equal(err.msg, "");
}

static void test_strutil(void **state)
{
	static const char *const keys[] = { "container", "workers", "readiness", "env", NULL };

	(void)state;
	assert_int_equal(srt_edit_distance("kitten", "sitting", 10), 3);
	assert_int_equal(srt_edit_distance("tp-size", "tp_size", 10), 0);
	assert_int_equal(srt_edit_distance("a", "abcdefgh", 3), 3); /* capped */
	assert_string_equal(srt_did_you_mean("contianer", keys), "container");
	assert_string_equal(srt_did_you_mean("worker", keys), "workers");
	assert_string_equal(srt_did_you_mean("readines", keys), "readiness");
	assert_null(srt_did_you_mean("zzzzzz", keys));
	assert_true(srt_is_env_name("MOONCAKE_MASTER"));
	assert_true(srt_is_env_name("_x1"));
	assert_false(srt_is_env_name("1X"));
	assert_false(srt_is_env_name("A-B"));
	assert_false(srt_is_env_name(""));
	assert_true(srt_str_eq_dashes("disaggregation-transfer-backend",
				      "disaggregation_transfer_backend"));
	assert_false(srt_str_eq_dashes("a-b", "a-bc"));
	assert_true(srt_str_same(NULL, NULL));
	assert_true(srt_str_same("a", "a"));
	assert_false(srt_str_same("a", NULL));
	assert_false(srt_str_same("a", "b"));
	assert_true(srt_str_has_prefix("--rpc_port=1", "--rpc"));
	assert_true(srt_str_has_suffix("x.yaml", ".yaml"));
}

static void test_durations(void **state)
{
	static const struct {
		const char *in;
		int64_t ms;
	} ok[] = {
		{ "90s", 90000 },  { "15m", 900000 },	  { "1h", 3600000 },
		{ "2d", 172800000 }, { "1h30m", 5400000 }, { "500ms", 500 },
		{ "30", 30000 },
	};
	static const char *const bad[] = { "", "h", "1x", "1h30", "-5s", "1.5h", NULL };
	static const char *const too_long[] = {
		"213503982335d", "36501d",	"36500d1ms", "3153600000001ms",
		"9223372036854775807ms", "9223372036854775808", "876001h", "36499d36499d",
		"99999999999999999999999999s", NULL,
	};
	char buf[64];
	int64_t ms;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(srt_duration_parse(ok[i].in, &ms), 0);
		assert_int_equal(ms, ok[i].ms);
	}
	for (size_t i = 0; bad[i]; i++)
		assert_int_equal(srt_duration_parse(bad[i], &ms), -1);
	/* Issue #12: 213503982335d wrapped to 9.6 h; anything over 100 years is
	 * refused, whatever the unit or the number of parts. */
	for (size_t i = 0; too_long[i]; i++) {
		ms = 42;
		assert_int_equal(srt_duration_parse(too_long[i], &ms), SRT_DURATION_TOO_LONG);
		assert_int_equal(ms, 42);
	}
	assert_int_equal(srt_duration_parse("36500d", &ms), 0);
	assert_int_equal(ms, SRT_DURATION_MAX_MS);
	assert_int_equal(srt_duration_parse("3153600000000ms", &ms), 0);
	assert_int_equal(ms, SRT_DURATION_MAX_MS);
	assert_int_equal(srt_duration_parse("99999999999999999999999x", &ms), -1);
	srt_duration_human(5000, buf, sizeof(buf));
	assert_string_equal(buf, "5s");
	srt_duration_human(3 * 60000, buf, sizeof(buf));
	assert_string_equal(buf, "3m");
	srt_duration_human(5 * 3600000LL, buf, sizeof(buf));
	assert_string_equal(buf, "5h");
	srt_duration_human(4 * 86400000LL, buf, sizeof(buf));
	assert_string_equal(buf, "4d");
	srt_time_rfc3339(1796064778123LL, buf, sizeof(buf));
	assert_string_equal(buf, "2026-11-30T18:52:58.123Z");
}

static void test_sha256(void **state)
{
	char hex[65];
	char big[1000];

	(void)state;
	srt_sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	srt_sha256_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	memset(big, 'a', sizeof(big));
	srt_sha256_hex(big, sizeof(big), hex);
	assert_string_equal(hex, "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

/* util/strmap: add/get, dash folding, keys with NULs, growth, arena and heap. */
static void test_strmap(void **state)
{
	static const char nul_a[] = { 'k', '\0', 'a' }, nul_b[] = { 'k', '\0', 'b' };
	struct srt_strmap m, f;
	struct srt_arena a;
	char keys[5000][16];
	size_t v = 0;

	(void)state;
	srt_strmap_init(&m, NULL, false);
	assert_false(srt_strmap_get(&m, "x", &v));
	assert_true(srt_strmap_add(&m, "tp-size", 1, NULL));
	assert_false(srt_strmap_add(&m, "tp-size", 2, &v));
	assert_int_equal(v, 1);
	assert_false(srt_strmap_get(&m, "tp_size", NULL));
	assert_true(srt_strmap_addn(&m, nul_a, sizeof(nul_a), 3, NULL));
	assert_true(srt_strmap_addn(&m, nul_b, sizeof(nul_b), 4, NULL));
	assert_true(srt_strmap_getn(&m, nul_b, sizeof(nul_b), &v));
	assert_int_equal(v, 4);
	assert_false(srt_strmap_get(&m, "k", NULL));
	for (size_t i = 0; i < 5000; i++) {
		snprintf(keys[i], sizeof(keys[i]), "key-%zu", i);
		assert_true(srt_strmap_add(&m, keys[i], i + 10, NULL));
	}
	assert_int_equal(m.n, 5003);
	for (size_t i = 0; i < 5000; i++) {
		assert_true(srt_strmap_get(&m, keys[i], &v));
		assert_int_equal(v, i + 10);
	}
	srt_strmap_release(&m);
	assert_false(srt_strmap_get(&m, "tp-size", NULL));
	srt_strmap_release(&m);

	srt_arena_init(&a);
	srt_strmap_init(&f, &a, true);
	for (size_t i = 0; i < 5000; i++)
		assert_true(srt_strmap_add(&f, keys[i], i, NULL));
	assert_true(srt_strmap_add(&f, "tp-size", 1, NULL));
	assert_false(srt_strmap_add(&f, "tp_size", 2, &v));
	assert_int_equal(v, 1);
	assert_true(srt_strmap_get(&f, "key_4999", &v));
	assert_int_equal(v, 4999);
	assert_false(srt_strmap_get(&f, "tp.size", NULL));
	srt_strmap_release(&f);
	srt_arena_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf),	    cmocka_unit_test(test_arena),
		cmocka_unit_test(test_diag_format), cmocka_unit_test(test_err),
		cmocka_unit_test(test_strutil),	    cmocka_unit_test(test_durations),
		cmocka_unit_test(test_sha256),	    cmocka_unit_test(test_strmap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
