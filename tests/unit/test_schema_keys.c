/* tests/unit/test_schema_keys.c: srt-slurm's recipe keys (recipe/schema_keys.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "recipe/schema_keys.h"

/* bsearch needs every table sorted and free of duplicates. */
static void test_tables_sorted(void **state)
{
	(void)state;
	for (int s = 0; s < SRT_SCHEMA_COUNT; s++) {
		size_t n = 99;
		const char *const *t = srt_schema_keys((enum srt_schema_section)s, &n);

		assert_null(t[n]);
		for (size_t i = 1; i < n; i++)
			if (strcmp(t[i - 1], t[i]) >= 0)
				fail_msg("section %d: '%s' before '%s'", s, t[i - 1], t[i]);
		for (size_t i = 0; i < n; i++)
			assert_true(srt_schema_has_key((enum srt_schema_section)s, t[i]));
	}
}

static void test_lookups(void **state)
{
	static const struct {
		enum srt_schema_section s;
		const char *key;
		bool want;
	} cases[] = {
		{ SRT_SCHEMA_FRONTEND, "ctx_router", true },
		{ SRT_SCHEMA_FRONTEND, "nginx_session_affinity_header", true },
		{ SRT_SCHEMA_FRONTEND, "dedicated_node", true }, /* v1 */
		{ SRT_SCHEMA_FRONTEND, "port", false },		 /* srtctl's own */
		{ SRT_SCHEMA_BENCHMARK, "agentperf_config", true },
		{ SRT_SCHEMA_BENCHMARK, "client_placement", true }, /* v1 */
		{ SRT_SCHEMA_BENCHMARK, "use_chat_template", true },
		{ SRT_SCHEMA_BENCHMARK, "concurency", false },
		{ SRT_SCHEMA_TOP, "health_check", true },
		{ SRT_SCHEMA_TOP, "infra", true }, /* v1 */
		{ SRT_SCHEMA_TOP, "zip_override_x", false },
		{ SRT_SCHEMA_ROLE, "kv_events", true },
		{ SRT_SCHEMA_ROLE, "gpus_per_worker", false },
		{ SRT_SCHEMA_RESOURCES, "prefill_nodes", false }, /* the v1 layout */
		{ SRT_SCHEMA_SERVICE, "preamble", true },
		{ SRT_SCHEMA_SERVICE_OPTIONS, "max_payload_mb", true },
		{ SRT_SCHEMA_READINESS, "log", true },
		{ SRT_SCHEMA_READINESS, "file", false },
		{ SRT_SCHEMA_NONE, "anything", false },
		{ SRT_SCHEMA_COUNT, "port", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (srt_schema_has_key(cases[i].s, cases[i].key) != cases[i].want)
			fail_msg("section %d, '%s': want %d", cases[i].s, cases[i].key,
				 cases[i].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_sorted),
		cmocka_unit_test(test_lookups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
