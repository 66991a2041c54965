/*
 * tests/unit/test_migrate.c: v1 -> v2 recipe migration.
 *
 * Hand-written fixtures in tests/data/migrate/ pin the exact v2 tree (key
 * order included) for SGLang and vLLM recipes with a Mooncake store.  Inline
 * recipes pin the single rules and their diagnostics.  Every corpus file
 * must migrate without error, emit, and parse back to the same tree; for
 * variant files, migrating then expanding must equal expanding then
 * migrating each variant.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "corpus.h"
#include "recipe/compile.h"
#include "recipe/migrate.h"
#include "recipe/render.h"
#include "recipe/variants.h"
#include "recipe/yaml.h"
#include "recipe/yemit.h"
#include "util/buf.h"
#include "util/strutil.h"

#define DATA SRT_SOURCE_DIR "/tests/data/migrate"

/* Structural equality with key order: kinds, scalar types and text. */
static bool trees_equal(const struct srt_ynode *a, const struct srt_ynode *b, char *why,
			size_t whylen)
{
	if (!a || !b) {
		if (a != b)
			snprintf(why, whylen, "one side is missing");
		return a == b;
	}
	if (a->kind != b->kind || a->n != b->n) {
		snprintf(why, whylen, "kind/size differs at line %u vs %u (%s, %zu vs %s, %zu)",
			 a->line, b->line, srt_ynode_describe(a), a->n, srt_ynode_describe(b),
			 b->n);
		return false;
	}
	if (a->kind == SRT_Y_SCALAR) {
		if (srt_ynode_type(a) != srt_ynode_type(b) || a->len != b->len ||
		    memcmp(a->str, b->str, a->len)) {
			snprintf(why, whylen,
				 "scalar differs at line %u vs %u: '%s' (%s) vs '%s' (%s)", a->line,
				 b->line, a->str, srt_ynode_describe(a), b->str,
				 srt_ynode_describe(b));
			return false;
		}
		return true;
	}
	for (size_t i = 0; i < a->n; i++) {
		if (a->kind == SRT_Y_MAP) {
			if (!trees_equal(a->pairs[i].key, b->pairs[i].key, why, whylen) ||
			    !trees_equal(a->pairs[i].value, b->pairs[i].value, why, whylen))
				return false;
		} else if (!trees_equal(a->items[i], b->items[i], why, whylen)) {
			return false;
		}
	}
	return true;
}

static struct srt_ydoc *parse_str(const char *yaml)
{
	struct srt_diags d;
	struct srt_ydoc *doc;

	srt_diags_init(&d);
	doc = srt_ydoc_parse(yaml, strlen(yaml), "r.yaml", &d);
	srt_diags_print(&d, stderr);
	assert_non_null(doc);
	srt_diags_release(&d);
	return doc;
}

static struct srt_ydoc *load(const char *path)
{
	struct srt_diags d;
	struct srt_ydoc *doc;

	srt_diags_init(&d);
	doc = srt_ydoc_load_file(path, &d);
	srt_diags_print(&d, stderr);
	assert_non_null(doc);
	srt_diags_release(&d);
	return doc;
}

static const struct srt_ynode *at(const struct srt_ynode *n, const char *path)
{
	char buf[256];
	char *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && n; tok = strtok_r(NULL, ".", &save))
		n = srt_ynode_get(n, tok);
	return n;
}

static const char *str_at(const struct srt_ynode *n, const char *path)
{
	const char *s = srt_ynode_str(at(n, path));

	if (!s)
		fail_msg("no string at %s", path);
	return s;
}

static char *diag_text(const struct srt_diags *d, size_t i)
{
	assert_true(i < d->n);
	return srt_diag_format(&d->items[i]);
}

/* Keys of a mapping, joined with spaces (caller frees). */
static char *keys_of(const struct srt_ynode *n)
{
	struct srt_buf b;

	srt_buf_init(&b);
	for (size_t i = 0; n && i < n->n; i++)
		srt_buf_printf(&b, "%s%s", i ? " " : "", n->pairs[i].key->str);
	return srt_buf_detach(&b);
}

static void assert_keys(const struct srt_ynode *n, const char *expected)
{
	char *k = keys_of(n);

	assert_string_equal(k, expected);
	free(k);
}

/* Migrate a fixture and compare with its expected v2 file, tree for tree. */
static void check_fixture(const char *stem, size_t nwarnings)
{
	char v1path[1024], v2path[1024], why[512] = "";
	struct srt_ydoc *v1, *expected, *got, *back;
	struct srt_diags d;
	struct srt_buf text;

	snprintf(v1path, sizeof(v1path), "%s/%s.v1.yaml", DATA, stem);
	snprintf(v2path, sizeof(v2path), "%s/%s.v2.yaml", DATA, stem);
	v1 = load(v1path);
	expected = load(v2path);
	srt_diags_init(&d);
	got = srt_migrate_v1(v1, &d);
	srt_diags_print(&d, stderr);
	assert_non_null(got);
	assert_int_equal(d.nerrors, 0);
	assert_int_equal(d.nwarnings, nwarnings);
	if (!trees_equal(got->root, expected->root, why, sizeof(why)))
		fail_msg("%s: %s", stem, why);

	/* The emitted text parses back to the same tree. */
	srt_buf_init(&text);
	assert_int_equal(srt_yemit(got->root, &text), 0);
	back = srt_ydoc_parse(text.data, text.len, "emitted", &d);
	assert_non_null(back);
	assert_true(trees_equal(back->root, expected->root, why, sizeof(why)));

	srt_buf_release(&text);
	srt_ydoc_free(back);
	srt_ydoc_free(got);
	srt_ydoc_free(expected);
	srt_ydoc_free(v1);
	srt_diags_release(&d);
}

static void test_mooncake_sglang_fixture(void **state)
{
	(void)state;
	check_fixture("mooncake-sglang", 3);
}

static void test_mooncake_vllm_fixture(void **state)
{
	struct srt_ydoc *v1 = load(DATA "/mooncake-vllm.v1.yaml");
	struct srt_diags d;
	struct srt_ydoc *got;
	char *msg;

	(void)state;
	check_fixture("mooncake-vllm", 7); /* the last: several frontends (srt-slurm's default) */
	/* The first warning says what was inferred, where backend is. */
	srt_diags_init(&d);
	got = srt_migrate_v1(v1, &d);
	assert_non_null(got);
	msg = diag_text(&d, 0);
	assert_string_equal(msg,
			    DATA "/mooncake-vllm.v1.yaml:17:3: warning: backend: backend.type "
				 "is not set; inferred engine 'vllm' from backend.vllm_config");
	free(msg);
	srt_ydoc_free(got);
	srt_ydoc_free(v1);
	srt_diags_release(&d);
}

static void test_engine_inference(void **state)
{
	static const struct {
		const char *yaml;
		const char *engine;
		const char *warning;
	} cases[] = {
		{ "backend:\n  trtllm_config: {prefill: {a: 1}}\n", "trtllm",
		  "r.yaml:2:3: warning: backend: backend.type is not set; inferred engine 'trtllm' "
		  "from backend.trtllm_config" },
		{ "backend:\n  mocker_config: {decode: {a: 1}}\n", "mocker",
		  "r.yaml:2:3: warning: backend: backend.type is not set; inferred engine 'mocker' "
		  "from backend.mocker_config" },
		{ "backend:\n  sglang_config: {decode: {a: 1}}\n", "sglang",
		  "r.yaml:2:3: warning: backend: backend.type is not set; inferred engine 'sglang' "
		  "from backend.sglang_config" },
		{ "backend:\n  decode_environment: {A: b}\n", "sglang",
		  "r.yaml:2:3: warning: backend: backend.type is not set and no engine config was "
		  "found; assumed engine 'sglang'" },
		{ "backend:\n  type: vllm\n  vllm_config: {decode: {a: 1}}\n", "vllm",
		  "r.yaml:2:3: warning: backend.connector: backend.connector is not set; srt-slurm's "
		  "vLLM default connector nixl is written as roles.decode.args.kv-transfer-config: "
		  "'{\"kv_connector\": \"NixlConnector\", \"kv_role\": \"kv_both\"}', the "
		  "--kv-transfer-config srt-slurm gave these workers" },
		{ "backend:\n  type: sglang\n  sglang_config: {decode: {a: 1}}\n", "sglang", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct srt_ydoc *v1 = parse_str(cases[i].yaml);
		struct srt_diags d;
		struct srt_ydoc *got;

		srt_diags_init(&d);
		got = srt_migrate_v1(v1, &d);
		assert_non_null(got);
		assert_string_equal(str_at(got->root, "engine"), cases[i].engine);
		/* and, last, the frontend srt-slurm ran by default (Dynamo's) */
		assert_int_equal(d.nwarnings, cases[i].warning ? 2 : 1);
		if (cases[i].warning) {
			char *msg = diag_text(&d, 0);

			assert_string_equal(msg, cases[i].warning);
			free(msg);
		}
		srt_ydoc_free(got);
		srt_ydoc_free(v1);
		srt_diags_release(&d);
	}
}

static void test_layout_and_moves(void **state)
{
	struct srt_ydoc *v1 = parse_str("profiling: {on: true}\n"
					"benchmark: {type: manual}\n"
					"schema: 1\n"
					"backend:\n"
					"  type: sglang\n"
					"  aggregated_environment: {A: '1'}\n"
					"  aggregated_extra_args: [--x]\n"
					"  sglang_config:\n"
					"    aggregated: {tp: 2}\n"
					"    prefill: null\n"
					"resources:\n"
					"  agg_nodes: 2\n"
					"  agg_workers: 4\n"
					"  gpus_per_agg: 4\n"
					"  prefill_nodes: null\n"
					"slurm: {account: a}\n"
					"model: {path: p}\n"
					"name: n\n");
	struct srt_diags d;
	struct srt_ydoc *got;

	(void)state;
	srt_diags_init(&d);
	got = srt_migrate_v1(v1, &d);
	assert_non_null(got);
	/* the frontend srt-slurm ran by default (Dynamo's), and several of them */
	assert_int_equal(d.n, 2);
	{
		char *msg0 = diag_text(&d, 0);

		assert_non_null(strstr(msg0, "Dynamo"));
		free(msg0);
	}
	/* Resources held only topology keys, so it is gone. */
	assert_keys(got->root,
		    "name schema model slurm engine roles profiling benchmark frontend services");
	assert_string_equal(str_at(got->root, "schema"), "2");
	assert_int_equal(srt_ynode_type(at(got->root, "schema")), SRT_YT_INT);
	assert_keys(at(got->root, "roles"), "agg");
	assert_keys(at(got->root, "roles.agg"), "nodes workers gpus env args extra_args");
	assert_string_equal(str_at(got->root, "roles.agg.nodes"), "2");
	assert_string_equal(str_at(got->root, "roles.agg.workers"), "4");
	assert_string_equal(str_at(got->root, "roles.agg.gpus"), "4");
	assert_string_equal(str_at(got->root, "roles.agg.env.A"), "1");
	assert_string_equal(str_at(got->root, "roles.agg.args.tp"), "2");
	assert_string_equal(at(got->root, "roles.agg.extra_args")->items[0]->str, "--x");
	srt_ydoc_free(got);
	srt_ydoc_free(v1);
	srt_diags_release(&d);
}

static void test_engine_options_and_kv_events(void **state)
{
	struct srt_ydoc *v1 = parse_str("backend:\n"
					"  type: sglang\n"
					"  kv_events_config:\n"
					"    prefill: true\n"
					"  vllm_config: {prefill: {a: 1}}\n"
					"  sglang_config:\n"
					"    decode: {tp: 8}\n"
					"    shared: {x: 1}\n"
					"resources:\n"
					"  gpu_type: h100\n"
					"  decode_nodes: 0\n"
					"  decode_workers: 2\n");
	struct srt_diags d;
	struct srt_ydoc *got;
	char *msg;

	(void)state;
	srt_diags_init(&d);
	got = srt_migrate_v1(v1, &d);
	assert_non_null(got);
	assert_int_equal(d.nerrors, 0);
	assert_keys(got->root, "schema resources engine roles frontend services");
	assert_keys(at(got->root, "engine"), "type vllm_config sglang_config");
	assert_string_equal(str_at(got->root, "engine.type"), "sglang");
	assert_string_equal(str_at(got->root, "engine.sglang_config.shared.x"), "1");
	assert_string_equal(str_at(got->root, "roles.prefill.kv_events"), "true");
	assert_keys(at(got->root, "roles.decode"), "nodes workers gpus args");
	assert_string_equal(str_at(got->root, "roles.decode.nodes"), "colocate");
	/* v2 needs gpus when decode colocates: taken from the engine's tp flag */
	assert_string_equal(str_at(got->root, "roles.decode.gpus"), "8");
	assert_int_equal(srt_ynode_type(at(got->root, "roles.decode.nodes")), SRT_YT_STR);
	assert_keys(at(got->root, "resources"), "gpu_type");

	assert_int_equal(d.nwarnings, 6); /* the last two: the frontend (Dynamo's by default) */
	msg = diag_text(&d, 3);
	assert_string_equal(msg, "r.yaml:11:17: warning: resources.decode_nodes: decode shares the "
				 "prefill nodes, so v2 needs roles.decode.gpus: set to 8 from its "
				 "tensor-parallel-size");
	free(msg);
	msg = diag_text(&d, 0);
	assert_string_equal(msg, "r.yaml:11:17: warning: resources.decode_nodes: 0 (decode shares "
				 "the prefill nodes) is written as roles.decode.nodes: colocate");
	free(msg);
	msg = diag_text(&d, 1);
	assert_string_equal(msg, "r.yaml:5:3: warning: backend.vllm_config: does not belong to "
				 "engine 'sglang'; kept as engine option engine.vllm_config");
	free(msg);
	msg = diag_text(&d, 2);
	assert_string_equal(msg, "r.yaml:8:5: warning: backend.sglang_config.shared: not a "
				 "prefill, decode or aggregated setting; kept as engine option "
				 "engine.sglang_config.shared");
	free(msg);
	srt_ydoc_free(got);
	srt_ydoc_free(v1);
	srt_diags_release(&d);
}

static void test_mooncake_details(void **state)
{
	struct srt_ydoc *v1 = parse_str("backend:\n"
					"  type: trtllm\n"
					"  decode_environment: {MOONCAKE_PROTOCOL: tcp}\n"
					"  mooncake_kv_store:\n"
					"    env: {MOONCAKE_PROTOCOL: rdma, X: '1'}\n"
					"    eviction_ratio: 0.1\n"
					"    container: null\n"
					"resources: {decode_nodes: 1}\n");
	struct srt_diags d;
	struct srt_ydoc *got;
	char *msg;

	(void)state;
	srt_diags_init(&d);
	got = srt_migrate_v1(v1, &d);
	assert_non_null(got);
	assert_int_equal(d.nerrors, 0);
	/*
	 * Only the present role (decode) gets the env; the store's value wins,
	 * as v1 applied it after the role's.
	 */
	assert_keys(at(got->root, "roles"), "decode");
	assert_keys(at(got->root, "roles.decode"), "nodes env");
	assert_keys(at(got->root, "roles.decode.env"), "MOONCAKE_PROTOCOL X");
	assert_string_equal(str_at(got->root, "roles.decode.env.MOONCAKE_PROTOCOL"), "rdma");
	assert_int_equal(at(got->root, "services")->n, 2); /* the master, then NATS for Dynamo */
	assert_keys(at(got->root, "services")->items[0], "name type args options");
	assert_string_equal(str_at(at(got->root, "services")->items[0], "options.eviction_ratio"),
			    "0.1");
	assert_int_equal(d.nwarnings, 4); /* the last: the frontend (Dynamo's by default) */
	msg = diag_text(&d, 2);
	assert_string_equal(msg,
			    "r.yaml:3:24: warning: backend.decode_environment.MOONCAKE_PROTOCOL: "
			    "v1 let backend.mooncake_kv_store.env.MOONCAKE_PROTOCOL override "
			    "this value; roles.decode.env gets 'rdma' as the workers did");
	free(msg);
	msg = diag_text(&d, 0);
	assert_string_equal(msg, "r.yaml:6:5: warning: backend.mooncake_kv_store.eviction_ratio: "
				 "kept as services[mooncake-master].options.eviction_ratio; check "
				 "that srtctl supports it");
	free(msg);
	srt_ydoc_free(got);
	srt_ydoc_free(v1);
	srt_diags_release(&d);
}

static void expect_error(const char *yaml, const char *expected)
{
	struct srt_ydoc *v1 = parse_str(yaml);
	struct srt_diags d;
	size_t i;
	char *msg;

	srt_diags_init(&d);
	assert_null(srt_migrate_v1(v1, &d));
	assert_int_equal(d.nerrors, 1);
	for (i = 0; i < d.n && d.items[i].level != SRT_DIAG_ERROR; i++)
		;
	msg = diag_text(&d, i);
	assert_string_equal(msg, expected);
	free(msg);
	srt_ydoc_free(v1);
	srt_diags_release(&d);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("name: x\nengine: sglang\nroles: {agg: {nodes: 1}}\n",
		     "r.yaml:3:1: already in the v2 layout; nothing to migrate ('roles' is a v2 "
		     "key)");
	expect_error("name: x\nschema: 2\nservices: []\n",
		     "r.yaml:2:1: already in the v2 layout; nothing to migrate ('schema' is a v2 "
		     "key)");
	expect_error("base:\n  engine: sglang\nzip_override_a: {name: [x]}\n",
		     "r.yaml:2:3: already in the v2 layout; nothing to migrate ('engine' is a v2 "
		     "key)");
	expect_error("- a\n", "r.yaml:1:1: a recipe must be a mapping, not a list; nothing to "
			      "migrate");
	expect_error("backend: [1]\n", "r.yaml:1:10: backend: must be a mapping, not a list");
	expect_error("backend: {type: sglnag}\n",
		     "r.yaml:1:17: backend.type: unknown engine 'sglnag'; use sglang, vllm, trtllm "
		     "or mocker");
	expect_error(
		"backend:\n  type: sglang\n  mooncake_kv_store: {env: [A]}\n"
		"resources: {decode_nodes: 1}\n",
		"r.yaml:3:28: backend.mooncake_kv_store.env: must be a mapping of NAME: value, "
		"not a list");
	expect_error("backend:\n  type: sglang\n  mooncake_kv_store: {env: {A: b}}\n",
		     "r.yaml:3:28: backend.mooncake_kv_store.env: no prefill, decode or aggregated "
		     "settings to put this env on; add resources.<mode>_nodes (or the env) for the "
		     "roles that use the store");
	expect_error("base:\n  backend: {type: sglang}\nzip_override_a:\n  backend:\n"
		     "    mooncake_kv_store: {container: c}\n",
		     "r.yaml:5:24: zip_override_a.backend.mooncake_kv_store: a mooncake store "
		     "inside a zip_override section cannot be migrated; move "
		     "backend.mooncake_kv_store to base: (or migrate this file by hand)");
}

/* Migrate inline YAML that must succeed; the caller frees the result. */
static struct srt_ydoc *migrate_ok(const char *yaml, struct srt_diags *d)
{
	struct srt_ydoc *v1 = parse_str(yaml);
	struct srt_ydoc *got;

	srt_diags_init(d);
	got = srt_migrate_v1(v1, d);
	srt_diags_print(d, stderr);
	assert_non_null(got);
	assert_int_equal(d->nerrors, 0);
	srt_ydoc_free(v1);
	return got;
}

/* Is there a diagnostic whose text contains `needle`? */
static bool has_diag(const struct srt_diags *d, const char *needle)
{
	for (size_t i = 0; i < d->n; i++) {
		char *t = srt_diag_format(&d->items[i]);
		bool hit = strstr(t, needle) != NULL;

		free(t);
		if (hit)
			return true;
	}
	return false;
}

/* A sweep cannot be expressed yet: an error naming the keys and placeholders. */
/*
 * What v1 put in front of the workers: without frontend.type srt-slurm ran
 * Dynamo's frontend (said in a warning: srtctl runs none); the SGLang
 * backend's use_sglang_router: true ran the SGLang router instead (written
 * as frontend.type: sglang-router, not kept as an engine option).  A role's
 * host goes: srtctl sets --host itself.
 */
static void test_v1_frontend_and_host(void **state)
{
	struct srt_diags d;
	struct srt_ydoc *got;
	char *msg;

	(void)state;
	got = migrate_ok("backend:\n"
			 "  type: sglang\n"
			 "  use_sglang_router: true\n"
			 "  sglang_config:\n"
			 "    prefill: {host: 0.0.0.0, tp: 2}\n"
			 "    decode: {tp: 2}\n"
			 "resources: {prefill_nodes: 1, decode_nodes: 1}\n",
			 &d);
	assert_string_equal(str_at(got->root, "frontend.type"), "sglang-router");
	assert_null(at(got->root, "engine.use_sglang_router"));
	assert_null(at(got->root, "roles.prefill.args.host"));
	assert_string_equal(str_at(got->root, "roles.prefill.args.tp"), "2");
	assert_int_equal(d.nwarnings, 3);
	msg = diag_text(&d, 0);
	assert_non_null(strstr(msg, "roles.prefill.args.host: srtctl sets --host itself"));
	free(msg);
	msg = diag_text(&d, 1);
	assert_non_null(strstr(msg, "written as frontend.type: sglang-router"));
	free(msg);
	srt_ydoc_free(got);
	srt_diags_release(&d);

	/* No frontend, no router switch: Dynamo's ran, with etcd and NATS on the head. */
	got = migrate_ok("backend:\n  type: vllm\n  connector: null\n"
			 "resources: {agg_nodes: 1, agg_workers: 1}\n",
			 &d);
	assert_string_equal(str_at(got->root, "frontend.type"), "dynamo");
	assert_int_equal(at(got->root, "services")->n, 1);
	assert_string_equal(str_at(at(got->root, "services")->items[0], "type"), "nats");
	assert_null(at(at(got->root, "services")->items[0], "placement"));
	assert_int_equal(d.nwarnings, 1);
	msg = diag_text(&d, 0);
	assert_non_null(strstr(msg, "written as frontend.type: dynamo with a nats service"));
	free(msg);
	srt_ydoc_free(got);
	srt_diags_release(&d);

	/* infra.etcd_nats_dedicated_node: etcd and NATS on a node of their own. */
	got = migrate_ok("backend: {type: sglang}\n"
			 "frontend: {type: dynamo}\n"
			 "infra: {etcd_nats_dedicated_node: true}\n"
			 "resources: {agg_nodes: 1, agg_workers: 1}\n",
			 &d);
	assert_int_equal(at(got->root, "services")->n, 2);
	assert_string_equal(str_at(at(got->root, "services")->items[0], "type"), "etcd");
	assert_string_equal(str_at(at(got->root, "services")->items[0], "placement.node"),
			    "dedicated");
	assert_string_equal(str_at(at(got->root, "services")->items[1], "type"), "nats");
	assert_string_equal(str_at(at(got->root, "services")->items[1], "placement.node"),
			    "dedicated");
	srt_ydoc_free(got);
	srt_diags_release(&d);

	/*
	 * v1 appended frontend.args after its own --request-plane and
	 * --http-port: a value equal to srtctl's goes, another stays for
	 * validate to name.
	 */
	got = migrate_ok("backend: {type: sglang}\n"
			 "frontend:\n  type: dynamo\n  port: 8080\n"
			 "  args: {request-plane: tcp, http_port: 8080, router-mode: kv}\n"
			 "resources: {agg_nodes: 1, agg_workers: 1}\n",
			 &d);
	assert_keys(at(got->root, "frontend.args"), "router-mode");
	assert_int_equal(d.nwarnings, 3);
	msg = diag_text(&d, 0);
	assert_non_null(strstr(msg, "frontend.args.request-plane: srtctl passes the Dynamo "
				    "frontend's --request-plane itself, from dynamo.request_plane "
				    "(tcp here too); the v1 argument is dropped"));
	free(msg);
	msg = diag_text(&d, 1);
	assert_non_null(strstr(msg, "frontend.args.http_port: srtctl passes the Dynamo "
				    "frontend's --http-port itself, from frontend.port (8080"));
	free(msg);
	srt_ydoc_free(got);
	srt_diags_release(&d);
	got = migrate_ok("backend: {type: sglang}\n"
			 "dynamo: {request_plane: nats}\n"
			 "frontend:\n  type: dynamo\n"
			 "  args: {request-plane: tcp, http-port: 8000}\n"
			 "resources: {agg_nodes: 1, agg_workers: 1}\n",
			 &d);
	assert_keys(at(got->root, "frontend.args"), "request-plane");
	srt_ydoc_free(got);
	srt_diags_release(&d);

	/* A frontend with a type: nothing to say. */
	got = migrate_ok("backend: {type: sglang}\n"
			 "frontend: {type: sglang-router}\n"
			 "resources: {agg_nodes: 1, agg_workers: 1}\n",
			 &d);
	assert_int_equal(d.nwarnings, 0);
	srt_ydoc_free(got);
	srt_diags_release(&d);

	/*
	 * 'sglang' was v1's router: written as sglang-router, said.  A file that
	 * says schema: 2 (at its top or in its base) already means 2.0's direct
	 * worker, whatever its layout: it stays, silently.
	 */
	got = migrate_ok("backend: {type: sglang}\n"
			 "frontend: {type: sglang}\n"
			 "resources: {agg_nodes: 1, agg_workers: 2}\n",
			 &d);
	assert_string_equal(str_at(got->root, "frontend.type"), "sglang-router");
	assert_int_equal(d.nwarnings, 1);
	msg = diag_text(&d, 0);
	assert_non_null(
		strstr(msg, "v1 'sglang' was the SGLang router; written as 'sglang-router'"));
	free(msg);
	srt_ydoc_free(got);
	srt_diags_release(&d);
	got = migrate_ok("schema: 2\n"
			 "backend: {type: sglang}\n"
			 "frontend: {type: sglang}\n"
			 "resources: {agg_nodes: 1, agg_workers: 1}\n",
			 &d);
	assert_string_equal(str_at(got->root, "frontend.type"), "sglang");
	assert_int_equal(d.nwarnings, 0);
	srt_ydoc_free(got);
	srt_diags_release(&d);
	got = migrate_ok("base:\n"
			 "  schema: 2\n"
			 "  backend: {type: sglang}\n"
			 "  frontend: {type: sglang}\n"
			 "  resources: {agg_nodes: 1, agg_workers: 1}\n"
			 "zip_override_a:\n"
			 "  name: [a1, a2]\n",
			 &d);
	assert_string_equal(str_at(got->root, "base.frontend.type"), "sglang");
	srt_ydoc_free(got);
	srt_diags_release(&d);
}

static void test_sweep(void **state)
{
	struct srt_diags d;
	struct srt_ydoc *got;

	(void)state;
	/* A whole recipe's sweep is carried over for srtctl migrate to turn into a campaign. */
	got = migrate_ok("name: s\n"
			 "backend:\n"
			 "  type: sglang\n"
			 "  sglang_config:\n"
			 "    decode: {cuda-graph-max-bs: '{bs}', tp: 8}\n"
			 "resources: {decode_nodes: 1, decode_workers: 1, prefill_nodes: 1,\n"
			 "            prefill_workers: 1}\n"
			 "benchmark: {type: sa-bench, concurrencies: '{conc}', isl: 1024}\n"
			 "sweep:\n"
			 "  bs: [8, 16]\n"
			 "  conc: [64, 128]\n",
			 &d);
	assert_non_null(srt_ynode_get(got->root, "sweep"));
	assert_string_equal(
		srt_ynode_str(srt_ynode_get(
			srt_ynode_get(srt_ynode_get(srt_ynode_get(got->root, "roles"), "decode"),
				      "args"),
			"cuda-graph-max-bs")),
		"{bs}");
	srt_ydoc_free(got);
	srt_diags_release(&d);
	/* In a variant file's base too. */
	expect_error("base:\n  name: b\n  backend: {type: sglang}\n  sweep: {x: [1]}\n"
		     "zip_override_a: {name: [c]}\n",
		     "r.yaml:4:10: base.sweep: srtctl cannot express a sweep inside a variant "
		     "file: srt-slurm submitted one job per combination of the sweep values, and a "
		     "campaign sweeps one recipe. Sweep keys: x. Placeholders found: none. Nothing "
		     "was written. Split the variants into files of their own (each with its "
		     "sweep) and migrate each: srtctl then writes the campaign (kind: Campaign) "
		     "that runs the sweep");

	/* A concurrency ladder is one sa-bench job in srt-slurm: kept as written. */
	got = migrate_ok("backend: {type: sglang}\n"
			 "resources: {agg_nodes: 1, agg_workers: 1}\n"
			 "benchmark: {type: sa-bench, concurrencies: \"1x2x4\", isl: 8}\n",
			 &d);
	assert_string_equal(str_at(got->root, "benchmark.concurrencies"), "1x2x4");
	srt_ydoc_free(got);
	srt_diags_release(&d);
	got = migrate_ok("backend: {type: sglang}\n"
			 "resources: {agg_nodes: 1, agg_workers: 1}\n"
			 "benchmark: {type: sa-bench, concurrencies: [4, 8, 16]}\n",
			 &d);
	assert_int_equal(at(got->root, "benchmark.concurrencies")->n, 3);
	assert_int_equal(d.nwarnings, 1); /* the frontend (Dynamo's by default) */
	srt_ydoc_free(got);
	srt_diags_release(&d);
}

#define NIXL_JSON "{\"kv_connector\": \"NixlConnector\", \"kv_role\": \"kv_both\"}"

/* backend.connector becomes the flag each engine reads. */
/*
 * backend.kv_events_config: roles.<role>.kv_events as srt-slurm converts it;
 * what a v1 recipe set for the layout it does not have is dropped.
 */
static void test_kv_events(void **state)
{
	struct srt_diags d;
	struct srt_ydoc *got;

	(void)state;
	got = migrate_ok("backend: {type: sglang, kv_events_config: true}\n"
			 "resources: {prefill_nodes: 1, decode_nodes: 1}\n",
			 &d);
	assert_string_equal(str_at(got->root, "roles.prefill.kv_events"), "true");
	assert_string_equal(str_at(got->root, "roles.decode.kv_events"), "true");
	assert_null(at(got->root, "roles.agg"));
	assert_false(has_diag(&d, "dropped"));
	srt_ydoc_free(got);
	srt_diags_release(&d);

	got = migrate_ok("backend:\n  type: vllm\n  connector: null\n"
			 "  kv_events_config: {decode: {topic: custom}}\n"
			 "  aggregated_environment: {A: '1'}\n"
			 "resources: {prefill_nodes: 1, decode_nodes: 1}\n",
			 &d);
	assert_null(at(got->root, "roles.prefill.kv_events"));
	assert_string_equal(str_at(got->root, "roles.decode.kv_events.topic"), "custom");
	assert_null(at(got->root, "roles.agg"));
	assert_true(has_diag(&d, "backend: the aggregated settings (env, ...) are dropped: this "
				 "recipe's resources make it disaggregated"));
	srt_ydoc_free(got);
	srt_diags_release(&d);

	expect_error("backend: {type: sglang, kv_events_config: {agg: true}}\n"
		     "resources: {agg_nodes: 1}\n",
		     "r.yaml:1:44: backend.kv_events_config: 'agg' is not a mode; the keys are "
		     "prefill, decode and aggregated");
}

static void test_connector(void **state)
{
	struct srt_diags d;
	struct srt_ydoc *got;

	(void)state;
	/* vLLM: the connector on every role, a role's own connector first. */
	got = migrate_ok("backend:\n"
			 "  type: vllm\n"
			 "  connector: nixl\n"
			 "  vllm_config:\n"
			 "    prefill: {connector: LMCache, tensor-parallel-size: 2}\n"
			 "    decode: {tensor-parallel-size: 2}\n"
			 "resources: {prefill_nodes: 1, decode_nodes: 1, prefill_workers: 1,\n"
			 "            decode_workers: 1}\n",
			 &d);
	assert_string_equal(str_at(got->root, "engine"), "vllm");
	assert_keys(at(got->root, "roles.prefill.args"), "tensor-parallel-size kv-transfer-config");
	assert_string_equal(str_at(got->root, "roles.prefill.args.kv-transfer-config"),
			    "{\"kv_connector\": \"LMCacheConnectorV1\", \"kv_role\": \"kv_both\"}");
	assert_string_equal(str_at(got->root, "roles.decode.args.kv-transfer-config"), NIXL_JSON);
	assert_true(has_diag(&d, "r.yaml:3:3: warning: backend.connector: connector 'nixl' is "
				 "written as roles.decode.args.kv-transfer-config"));
	srt_ydoc_free(got);
	srt_diags_release(&d);

	/*
	 * connector: null (or a role's 'none') means no connector at all: the
	 * role says so, since v2's default is nixl.
	 */
	got = migrate_ok("backend:\n"
			 "  type: vllm\n"
			 "  connector: null\n"
			 "  aggregated_environment: {A: '1'}\n"
			 "resources: {agg_nodes: 1, agg_workers: 1}\n",
			 &d);
	assert_keys(at(got->root, "roles.agg.args"), "connector");
	assert_string_equal(str_at(got->root, "roles.agg.args.connector"), "none");
	assert_null(at(got->root, "engine.connector"));
	srt_ydoc_free(got);
	srt_diags_release(&d);

	/* A raw JSON connector passes through; a role's kv-transfer-config wins. */
	got = migrate_ok("backend:\n"
			 "  type: vllm\n"
			 "  connector: '{\"kv_connector\":\"X\"}'\n"
			 "  vllm_config:\n"
			 "    prefill: {kv_transfer_config: '{\"kv_connector\":\"Y\"}'}\n"
			 "    decode: {a: 1}\n"
			 "resources: {prefill_nodes: 1, decode_nodes: 1}\n",
			 &d);
	assert_string_equal(str_at(got->root, "roles.decode.args.kv-transfer-config"),
			    "{\"kv_connector\":\"X\"}");
	assert_keys(at(got->root, "roles.prefill.args"), "kv_transfer_config");
	assert_true(has_diag(&d, "backend.vllm_config.prefill.kv_transfer_config: is kept, and "
				 "connector '{\"kv_connector\":\"X\"}' is not written"));
	srt_ydoc_free(got);
	srt_diags_release(&d);

	/* lmcache-mp stays a name: in v2 too it implies the lmcache-server. */
	got = migrate_ok("backend:\n  type: vllm\n  connector: lmcache-mp\n"
			 "resources: {prefill_nodes: 1, decode_nodes: 1}\n",
			 &d);
	assert_string_equal(str_at(got->root, "roles.prefill.args.connector"), "lmcache-mp");
	assert_string_equal(str_at(got->root, "roles.decode.args.connector"), "lmcache-mp");
	assert_null(at(got->root, "roles.decode.args.kv-transfer-config"));
	srt_ydoc_free(got);
	srt_diags_release(&d);

	/* A name srt-slurm passed verbatim (vLLM rejects it) is an error. */
	expect_error(
		"backend:\n  type: vllm\n  connector: mooncake\n"
		"resources: {decode_nodes: 1}\n",
		"r.yaml:3:3: backend.connector: connector 'mooncake' cannot be migrated: "
		"srtctl knows srt-slurm's vLLM shorthands nixl, lmcache, lmcache-mp and kvbm "
		"(moriio needs router wiring srtctl does not have), and "
		"srt-slurm passed any other name verbatim as --kv-transfer-config, which vLLM "
		"rejects. Write backend.vllm_config.decode.kv-transfer-config as JSON instead, "
		"e.g. '{\"kv_connector\": \"MooncakeStoreConnector\", \"kv_role\": "
		"\"kv_both\"}'");
	expect_error("base:\n  backend: {type: vllm}\nzip_override_a:\n  backend:\n"
		     "    connector: [nixl, null]\n",
		     "r.yaml:5:5: zip_override_a.backend.connector: a connector inside a "
		     "zip_override section cannot be migrated; move backend.connector to base: (or "
		     "migrate this file by hand)");

	expect_error("base:\n  backend: {type: vllm}\nzip_override_a:\n  backend:\n"
		     "    vllm_config: {decode: {connector: [nixl, lmcache]}}\n",
		     "r.yaml:5:28: zip_override_a.backend.vllm_config.decode.connector: a "
		     "connector inside a zip_override section cannot be migrated; write the role's "
		     "kv-transfer-config here instead (or move the connector to base:)");

	/* SGLang: --disaggregation-transfer-backend on prefill and decode. */
	got = migrate_ok("backend:\n"
			 "  type: sglang\n"
			 "  connector: nixl\n"
			 "  sglang_config:\n"
			 "    decode: {disaggregation-transfer-backend: mooncake}\n"
			 "resources: {prefill_nodes: 1, decode_nodes: 1}\n",
			 &d);
	assert_string_equal(str_at(got->root, "engine"), "sglang");
	assert_string_equal(str_at(got->root, "roles.prefill.args.disaggregation-transfer-backend"),
			    "nixl");
	assert_string_equal(str_at(got->root, "roles.decode.args.disaggregation-transfer-backend"),
			    "mooncake");
	assert_true(has_diag(&d, "backend.sglang_config.decode.disaggregation-transfer-backend: "
				 "is kept over backend.connector 'nixl'"));
	srt_ydoc_free(got);
	srt_diags_release(&d);
}

/* The master: srt-slurm's tuning flags, and the dedicated infra node. */
static void test_master_placement_and_flags(void **state)
{
	struct srt_diags d;
	struct srt_ydoc *got;
	const struct srt_ynode *svc, *args;

	(void)state;
	got = migrate_ok("backend:\n"
			 "  type: sglang\n"
			 "  mooncake_kv_store:\n"
			 "    master_extra_args: [--default_kv_lease_ttl=5000]\n"
			 "infra: {etcd_nats_dedicated_node: true}\n"
			 "resources: {prefill_nodes: 1, decode_nodes: 1}\n",
			 &d);
	svc = at(got->root, "services")->items[0];
	assert_keys(svc, "name type args placement");
	assert_string_equal(str_at(svc, "placement.node"), "dedicated");
	args = at(svc, "args");
	assert_int_equal(args->n, 5);
	assert_string_equal(args->items[0]->str, "--eviction_high_watermark_ratio=0.9");
	assert_string_equal(args->items[1]->str, "--default_kv_lease_ttl=10000");
	assert_string_equal(args->items[2]->str, "--rpc_thread_num=16");
	assert_string_equal(args->items[3]->str, "--enable_metric_reporting=true");
	assert_string_equal(args->items[4]->str, "--default_kv_lease_ttl=5000");
	assert_true(has_diag(&d,
			     "r.yaml:5:35: warning: infra.etcd_nats_dedicated_node: srt-slurm "
			     "reserved an extra node for its infra services and ran the mooncake "
			     "master there; written as services[mooncake-master].placement.node: "
			     "dedicated"));
	/* infra stays (srtctl warns it ignores it) */
	assert_non_null(at(got->root, "infra"));
	srt_ydoc_free(got);
	srt_diags_release(&d);

	/* Without the flag the master stays on the default (infra) node. */
	got = migrate_ok("backend:\n  type: sglang\n  mooncake_kv_store: {}\n"
			 "infra: {etcd_nats_dedicated_node: false}\n"
			 "resources: {prefill_nodes: 1, decode_nodes: 1}\n",
			 &d);
	assert_keys(at(got->root, "services")->items[0], "name type args");
	srt_ydoc_free(got);
	srt_diags_release(&d);

	/* default_kv_lease_ttl_ms replaces the lease srt-slurm passed by default. */
	got = migrate_ok("backend:\n  type: vllm\n"
			 "  mooncake_kv_store: {default_kv_lease_ttl_ms: 20000}\n"
			 "resources: {prefill_nodes: 1, decode_nodes: 1}\n",
			 &d);
	svc = at(got->root, "services")->items[0];
	assert_keys(svc, "name type args");
	args = at(svc, "args");
	assert_int_equal(args->n, 4);
	assert_string_equal(args->items[1]->str, "--default_kv_lease_ttl=20000");
	srt_ydoc_free(got);
	srt_diags_release(&d);
}

/* Where v1's env precedence differs from v2's, the role env is rewritten. */
static void test_env_precedence(void **state)
{
	struct srt_diags d;
	struct srt_ydoc *got;

	(void)state;
	got = migrate_ok(
		"environment: {LOG: warn}\n"
		"backend:\n"
		"  type: sglang\n"
		"  prefill_environment: {LOG: debug, MOONCAKE_LOCAL_HOSTNAME: 10.0.0.1, A: p}\n"
		"  decode_environment: {LOG: debug}\n"
		"  mooncake_kv_store:\n"
		"    env: {A: s, MOONCAKE_MASTER: 'x:1'}\n"
		"resources: {prefill_nodes: 1, decode_nodes: 1}\n",
		&d);
	/* environment won over the role; the store's env over both; the IP was v1's */
	assert_keys(at(got->root, "roles.prefill.env"), "A");
	assert_string_equal(str_at(got->root, "roles.prefill.env.A"), "s");
	assert_keys(at(got->root, "roles.decode.env"), "A");
	assert_string_equal(str_at(got->root, "environment.LOG"), "warn");
	assert_true(has_diag(&d,
			     "r.yaml:4:25: warning: backend.prefill_environment.LOG: v1 let "
			     "environment.LOG override this value, so it was never used; it is "
			     "left out of roles.prefill.env (in v2 the role's value would win)"));
	assert_true(has_diag(&d, "backend.prefill_environment.MOONCAKE_LOCAL_HOSTNAME: v1 "
				 "replaced this with each worker's own IP"));
	assert_true(has_diag(&d,
			     "backend.mooncake_kv_store.env.MOONCAKE_MASTER: srt-slurm always "
			     "replaced MOONCAKE_MASTER with its own value, as srtctl does; left "
			     "out"));
	srt_ydoc_free(got);
	srt_diags_release(&d);

	/* A MOONCAKE_LOCAL_HOSTNAME in the store's env pinned it in v1: every role gets it. */
	got = migrate_ok("backend:\n"
			 "  type: sglang\n"
			 "  prefill_environment: {MOONCAKE_LOCAL_HOSTNAME: a}\n"
			 "  mooncake_kv_store: {env: {MOONCAKE_LOCAL_HOSTNAME: b}}\n"
			 "resources: {prefill_nodes: 1, decode_nodes: 1}\n",
			 &d);
	assert_string_equal(str_at(got->root, "roles.prefill.env.MOONCAKE_LOCAL_HOSTNAME"), "b");
	assert_string_equal(str_at(got->root, "roles.decode.env.MOONCAKE_LOCAL_HOSTNAME"), "b");
	srt_ydoc_free(got);
	srt_diags_release(&d);
}

/* A variant file keeps zipped lists at the moved places. */
static void test_variant_file(void **state)
{
	char path[4096];
	struct srt_ydoc *v1 =
		load(corpus_path(path, sizeof(path), "srt-slurm-v1/b200-fp4__1k1k.yaml"));
	struct srt_ynode **roots = NULL;
	struct srt_diags d;
	struct srt_ydoc *got;
	const struct srt_ynode *ov;
	size_t n = 0;

	(void)state;
	srt_diags_init(&d);
	got = srt_migrate_v1(v1, &d);
	assert_non_null(got);
	assert_int_equal(d.nerrors, 0);
	assert_keys(got->root, "base zip_override_stp_lowlat zip_override_mtp_lowlat "
			       "zip_override_stp_maxtpt zip_override_mtp_maxtpt");
	assert_keys(
		at(got->root, "base"),
		"name schema model resources engine roles dynamo health_check benchmark frontend "
		"services");
	assert_string_equal(str_at(got->root, "base.engine"), "sglang");
	ov = at(got->root, "zip_override_stp_lowlat");
	assert_keys(ov, "name roles benchmark");
	assert_int_equal(at(ov, "roles.decode.nodes")->kind, SRT_Y_SEQ);
	assert_string_equal(at(ov, "roles.decode.nodes")->items[1]->str, "6");
	ov = at(got->root, "zip_override_mtp_maxtpt");
	assert_keys(ov, "name roles benchmark");
	assert_keys(at(ov, "roles.decode"), "nodes workers env args");
	assert_string_equal(at(ov, "roles.decode.args.mem-fraction-static")->items[0]->str, "0.75");

	/* Expanding the migrated file gives the 8 v2 variants. */
	assert_int_equal(srt_variants_expand(got, &roots, &n, &d), 0);
	assert_int_equal(n, 8);
	/* srt-slurm's order: sections sorted (mtp_lowlat, mtp_maxtpt, stp_lowlat, stp_maxtpt). */
	assert_string_equal(str_at(roots[5], "name"), "b200-fp4-stp-low-latency-dep4-1p-tep8-6d");
	assert_string_equal(str_at(roots[5], "roles.decode.nodes"), "6");
	assert_string_equal(str_at(roots[5], "roles.prefill.nodes"), "1");
	assert_string_equal(str_at(roots[2], "name"), "b200-fp4-mtp-max-tpt-dep4-1p-dep8-1d");
	assert_string_equal(str_at(roots[2], "roles.decode.args.mem-fraction-static"), "0.75");
	assert_string_equal(str_at(roots[2], "roles.decode.env.SGLANG_ENABLE_SPEC_V2"), "1");
	assert_string_equal(str_at(roots[2], "roles.decode.env.PYTHONUNBUFFERED"), "1");
	free(roots);
	srt_ydoc_free(got);
	srt_ydoc_free(v1);
	srt_diags_release(&d);
}

/*
 * Engine-wide keys in one override force the mapping form everywhere, so
 * expansion cannot replace base's engine with a type-less mapping.
 */
static void test_variant_engine_mapping(void **state)
{
	struct srt_ydoc *v1 = parse_str("base:\n"
					"  name: b\n"
					"  backend: {type: vllm, vllm_config: {decode: {a: 1}}}\n"
					"  resources: {decode_nodes: 1}\n"
					"zip_override_c:\n"
					"  backend: {kvbm_consolidator: [true, null]}\n");
	struct srt_ynode **roots = NULL;
	struct srt_diags d;
	struct srt_ydoc *got;
	size_t n = 0;

	(void)state;
	srt_diags_init(&d);
	got = srt_migrate_v1(v1, &d);
	assert_non_null(got);
	assert_keys(at(got->root, "base.engine"), "type");
	assert_keys(at(got->root, "zip_override_c"), "engine");
	assert_keys(at(got->root, "zip_override_c.engine"), "kvbm_consolidator");
	assert_int_equal(srt_variants_expand(got, &roots, &n, &d), 0);
	assert_int_equal(n, 2);
	assert_string_equal(str_at(roots[0], "engine.type"), "vllm");
	assert_string_equal(str_at(roots[0], "engine.kvbm_consolidator"), "true");
	assert_string_equal(str_at(roots[1], "engine.type"), "vllm");
	assert_null(srt_ynode_str(at(roots[1], "engine.kvbm_consolidator")));
	free(roots);
	srt_ydoc_free(got);
	srt_ydoc_free(v1);
	srt_diags_release(&d);
}

/* json_equal compares objects without regard to key order. */
static bool same_values(const struct srt_ynode *a, const struct srt_ynode *b)
{
	json_t *ja = srt_ynode_to_json(a), *jb = srt_ynode_to_json(b);
	bool eq = json_equal(ja, jb);

	json_decref(ja);
	json_decref(jb);
	return eq;
}

/* migrate then expand == expand then migrate, for one variant file. */
static void check_commutes(struct srt_ydoc *v1, const char *name)
{
	struct srt_ynode **v1_roots = NULL, **v2_roots = NULL;
	size_t n1 = 0, n2 = 0;
	struct srt_diags d;
	struct srt_ydoc *got;

	srt_diags_init(&d);
	got = srt_migrate_v1(v1, &d);
	assert_non_null(got);
	assert_int_equal(srt_variants_expand(got, &v2_roots, &n2, &d), 0);
	assert_int_equal(srt_variants_expand(v1, &v1_roots, &n1, &d), 0);
	assert_int_equal(n1, n2);
	for (size_t i = 0; i < n1; i++) {
		struct srt_ydoc *one = srt_ydoc_new("variant");
		struct srt_ydoc *m;

		one->root = v1_roots[i];
		m = srt_migrate_v1(one, &d);
		assert_non_null(m);
		if (!same_values(m->root, v2_roots[i]))
			fail_msg("%s: variant %zu differs between migrate+expand and "
				 "expand+migrate",
				 name, i);
		srt_ydoc_free(m);
		one->root = NULL;
		srt_ydoc_free(one);
	}
	assert_int_equal(d.nerrors, 0);
	free(v1_roots);
	free(v2_roots);
	srt_ydoc_free(got);
	srt_diags_release(&d);
}

/*
 * srt-slurm's own examples write `schema: 2` over a v1 body: that is still
 * the v1 layout and migrates (validate sends such a file to migrate).  In an
 * aggregated recipe gpus_per_prefill/gpus_per_decode change nothing in
 * srt-slurm, so they do not become prefill/decode roles.
 */
static void test_schema2_v1_body_and_agg_gpus(void **state)
{
	struct srt_ydoc *v1 = parse_str("schema: 2\n"
					"name: x\n"
					"resources: {agg_nodes: 2, agg_workers: 1, gpus_per_agg: 8,\n"
					"            gpus_per_prefill: 8, gpus_per_decode: 8}\n"
					"backend:\n"
					"  type: sglang\n"
					"  sglang_config: {aggregated: {a: 1}}\n");
	struct srt_diags d;
	struct srt_ydoc *got;

	(void)state;
	srt_diags_init(&d);
	got = srt_migrate_v1(v1, &d);
	if (!got || d.nerrors)
		srt_diags_print(&d, stderr);
	assert_non_null(got);
	assert_string_equal(str_at(got->root, "schema"), "2");
	assert_string_equal(str_at(got->root, "engine"), "sglang");
	assert_keys(at(got->root, "roles"), "agg");
	assert_string_equal(str_at(got->root, "roles.agg.nodes"), "2");
	assert_string_equal(str_at(got->root, "roles.agg.gpus"), "8");
	assert_null(at(got->root, "resources.gpus_per_decode"));
	srt_ydoc_free(got);
	srt_ydoc_free(v1);
	srt_diags_release(&d);
}

/*
 * override_<name> sections migrate like zip sections (partial recipes over
 * base, lists kept as values), and a null element of a zipped backend.type
 * (srt-slurm: the key is deleted, then the engine inferred again from
 * <engine>_config) becomes that engine, never a variant without one.
 */
static void test_override_sections_and_null_engine(void **state)
{
	struct srt_ydoc *v1 = parse_str("base:\n"
					"  name: b\n"
					"  backend:\n"
					"    sglang_config: {decode: {a: 1}}\n"
					"    decode_environment: {X: '1'}\n"
					"  resources: {decode_nodes: 1, prefill_nodes: 1}\n"
					"override_big:\n"
					"  resources: {decode_nodes: 2}\n"
					"  backend: {decode_environment: {X: '2'}}\n"
					"zip_override_t:\n"
					"  backend: {type: [sglang, null]}\n");
	struct srt_ynode **roots = NULL;
	struct srt_diags d;
	struct srt_ydoc *got;
	size_t n = 0;

	(void)state;
	srt_diags_init(&d);
	got = srt_migrate_v1(v1, &d);
	assert_non_null(got);
	assert_int_equal(d.nerrors, 0);
	assert_keys(got->root, "base override_big zip_override_t");
	assert_keys(at(got->root, "override_big"), "roles");
	assert_string_equal(str_at(got->root, "override_big.roles.decode.nodes"), "2");
	assert_string_equal(str_at(got->root, "override_big.roles.decode.env.X"), "2");
	assert_int_equal(at(got->root, "zip_override_t.engine")->kind, SRT_Y_SEQ);
	assert_string_equal(at(got->root, "zip_override_t.engine")->items[1]->str, "sglang");
	assert_int_equal(srt_variants_expand(got, &roots, &n, &d), 0);
	assert_int_equal(n, 3); /* b_big, b_t_0, b_t_1 */
	assert_string_equal(str_at(roots[0], "name"), "b_big");
	assert_string_equal(str_at(roots[0], "roles.decode.nodes"), "2");
	for (size_t i = 0; i < n; i++)
		assert_string_equal(str_at(roots[i], "engine"), "sglang");
	check_commutes(v1, "override+null engine");
	free(roots);
	srt_ydoc_free(got);
	srt_ydoc_free(v1);
	srt_diags_release(&d);
}

static void test_corpus(void **state)
{
	char corpus[2048];
	DIR *dir = opendir(corpus_path(corpus, sizeof(corpus), "srt-slurm-v1"));
	struct dirent *de;
	size_t count = 0, variant_files = 0;

	(void)state;
	assert_non_null(dir);
	while ((de = readdir(dir))) {
		size_t len = strlen(de->d_name);
		char path[4096], why[512] = "";
		struct srt_ydoc *v1, *got, *back;
		struct srt_diags d;
		struct srt_buf text;
		const struct srt_ynode *recipe;

		if (len < 6 || strcmp(de->d_name + len - 5, ".yaml"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", corpus, de->d_name);
		v1 = load(path);
		srt_diags_init(&d);
		got = srt_migrate_v1(v1, &d);
		if (!got || d.nerrors) {
			srt_diags_print(&d, stderr);
			fail_msg("%s does not migrate", de->d_name);
		}
		recipe = got->root;
		if (srt_variants_is_variant_doc(v1->root)) {
			recipe = srt_ynode_get(got->root, "base");
			variant_files++;
			check_commutes(v1, de->d_name);
		}
		/* No v1 key is left, and the v2 keys are there. */
		assert_null(srt_ynode_get(recipe, "backend"));
		assert_string_equal(str_at(recipe, "schema"), "2");
		assert_non_null(srt_ynode_str(srt_ynode_get(recipe, "engine")) ?
					srt_ynode_get(recipe, "engine") :
					srt_ynode_get(srt_ynode_get(recipe, "engine"), "type"));
		assert_non_null(srt_ynode_get(recipe, "roles"));
		assert_null(at(recipe, "resources.prefill_nodes"));
		assert_null(at(recipe, "resources.decode_nodes"));
		assert_null(at(recipe, "resources.agg_nodes"));

		srt_buf_init(&text);
		assert_int_equal(srt_yemit(got->root, &text), 0);
		back = srt_ydoc_parse(text.data, text.len, "emitted", &d);
		assert_non_null(back);
		if (!trees_equal(got->root, back->root, why, sizeof(why)))
			fail_msg("%s: emitted migration does not parse back: %s", de->d_name, why);
		/* The promise: every real v1 recipe migrates and then validates. */
		{
			struct srt_cluster cluster;
			struct srt_compiled comp;
			struct srt_diags vd;

			srt_cluster_defaults(&cluster);
			srt_diags_init(&vd);
			if (srt_compile_bytes(text.data, text.len, de->d_name, &cluster, &comp,
					      &vd)) {
				srt_diags_print(&vd, stderr);
				fail_msg("%s: the migrated recipe does not validate", de->d_name);
			} else {
				assert_true(comp.n >= 1);
			}
			srt_compiled_release(&comp);
			srt_diags_release(&vd);
		}
		srt_buf_release(&text);
		srt_ydoc_free(back);
		srt_ydoc_free(got);
		srt_ydoc_free(v1);
		srt_diags_release(&d);
		count++;
	}
	closedir(dir);
	printf("corpus: %zu v1 files migrated, every one validates\n", count);
	assert_int_equal(count, 255);
	assert_int_equal(variant_files, 4);
}

/* ---- srt-slurm's v1 semantics as an oracle, against srtctl's migrated plan ---- */

/*
 * What srt-slurm made of a v1 recipe, computed here straight from the v1
 * tree with srt-slurm's rules (not by calling srt_migrate_v1()):
 *
 *   workers per mode   resources.<mode>_workers, 0 when unset
 *   worker nodes       prefill_nodes + decode_nodes (0: decode shares the
 *                      prefill nodes) when either is set, else agg_nodes or 1
 *   frontend           frontend.type, else Dynamo's (unless the SGLang
 *                      backend says use_sglang_router: true); under Dynamo
 *                      etcd and NATS run on the infra node and every worker
 *                      gets ETCD_ENDPOINTS, NATS_SERVER, DYN_SYSTEM_PORT and
 *                      DYN_REQUEST_PLANE, a vLLM one DYN_VLLM_KV_EVENT_PORT
 *   infra node         infra.etcd_nats_dedicated_node reserves one more node
 *                      for etcd/nats (and the master, when there is a store)
 *   master             backend.mooncake_kv_store; on the reserved node when
 *                      etcd_nats_dedicated_node, else on the head node
 *   worker env         backend.<mode>_environment, the top-level
 *                      `environment` over it, then with a store the worker's
 *                      IP as MOONCAKE_LOCAL_HOSTNAME, mooncake_kv_store.env
 *                      over that, and the master's endpoints
 *   connector (vLLM)   <engine>_config.<mode>.connector, else
 *                      backend.connector, else nixl; null/none: none; a
 *                      role's kv-transfer-config wins; shorthands expand to
 *                      srt-slurm's JSON
 *   connector (SGLang) the role's disaggregation-transfer-backend, else
 *                      backend.connector (prefill and decode only)
 */
struct oracle_counts {
	size_t files, recipes, workers, nodes, env_vars, connectors, masters, dedicated;
	size_t dynamo;		     /* recipes behind Dynamo's frontend */
	size_t infra_only;	     /* of those, etcd/nats on a node of their own */
	size_t trtllm;		     /* TRT-LLM workers (MPI step, engine YAML) compared */
	size_t mismatches;
};

static const char *const v1_modes[3] = { "prefill", "decode", "aggregated" };

/* Did srt-slurm run Dynamo's frontend for this v1 recipe? */
static bool v1_dynamo_frontend(const struct srt_ynode *v1)
{
	const char *t = srt_ynode_str(srt_ynode_get(srt_ynode_get(v1, "frontend"), "type"));
	bool router = false;

	if (t)
		return !strcmp(t, "dynamo");
	srt_ynode_bool(srt_ynode_get(srt_ynode_get(v1, "backend"), "use_sglang_router"), &router);
	return !router;
}

/* The variables srt-slurm stamped on a Dynamo worker. */
static bool dynamo_var(const char *name)
{
	return !strcmp(name, "ETCD_ENDPOINTS") || !strcmp(name, "NATS_SERVER") ||
	       !strcmp(name, "DYN_SYSTEM_PORT") || !strcmp(name, "DYN_REQUEST_PLANE") ||
	       !strcmp(name, "DYN_VLLM_KV_EVENT_PORT");
}
static const char *const v1_res[3] = { "prefill", "decode", "agg" };

static const struct srt_ypair *pair_dashed(const struct srt_ynode *map, const char *dashed)
{
	for (size_t i = 0; map && map->kind == SRT_Y_MAP && i < map->n; i++)
		if (srt_str_eq_dashes(map->pairs[i].key->str, dashed))
			return &map->pairs[i];
	return NULL;
}

static int64_t int_or(const struct srt_ynode *n, int64_t dflt)
{
	int64_t v;

	return n && srt_ynode_int(n, &v) ? v : dflt;
}

static const char *v1_engine(const struct srt_ynode *backend)
{
	static const char *const names[] = { "sglang", "vllm", "trtllm", "mocker" };
	const char *t = srt_ynode_str(srt_ynode_get(backend, "type"));
	char key[32];

	if (t)
		return t;
	for (size_t i = 0; i < 4; i++) {
		snprintf(key, sizeof(key), "%s_config", names[i]);
		if (srt_ynode_get(backend, key))
			return names[i];
	}
	return "sglang";
}

/* The --kv-transfer-config srt-slurm passed to a vLLM mode, or NULL. */
static const char *v1_vllm_connector(const struct srt_ynode *backend, const struct srt_ynode *cfg,
				     bool *from_role)
{
	const struct srt_ypair *own = pair_dashed(cfg, "connector");
	const struct srt_ypair *ktc = pair_dashed(cfg, "kv-transfer-config");
	const struct srt_ypair *bc = srt_ynode_get_pair(backend, "connector");
	const char *c;

	*from_role = false;
	if (ktc) {
		*from_role = true;
		return srt_ynode_str(ktc->value);
	}
	if (own && !srt_ynode_is_null(own->value))
		c = srt_ynode_str(own->value);
	else if (bc)
		c = srt_ynode_str(bc->value);
	else
		c = "nixl";
	if (!c || !strcasecmp(c, "null") || !strcasecmp(c, "none") || !*c)
		return NULL;
	if (!strcasecmp(c, "nixl"))
		return "{\"kv_connector\": \"NixlConnector\", \"kv_role\": \"kv_both\"}";
	if (!strcasecmp(c, "lmcache"))
		return "{\"kv_connector\": \"LMCacheConnectorV1\", \"kv_role\": \"kv_both\"}";
	return c;
}

/* The value of --flag in a worker's argv (either spelling), or NULL. */
static const char *argv_value(const struct srt_argv *av, const char *dashed)
{
	for (size_t i = 0; i + 1 < av->n; i++)
		if (av->v[i][0] == '-' && av->v[i][1] == '-' &&
		    srt_str_eq_dashes(av->v[i] + 2, dashed))
			return av->v[i + 1];
	return NULL;
}

#define MISMATCH(c, ...)                      \
	do {                                  \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr);          \
		(c)->mismatches++;            \
	} while (0)

/* A plan process's env value, or NULL. */
static const char *proc_env(const struct srt_runplan_proc *pr, const char *name)
{
	for (size_t i = 0; i < pr->nenv; i++)
		if (!strcmp(pr->env_names[i], name))
			return pr->env_values[i];
	return NULL;
}

/* Compare one v1 recipe mapping with the plan srtctl renders from its migration. */
/*
 * A TRT-LLM worker as srt-slurm ran it: one MPI step of gpus_per_<role>
 * ranks (one per GPU) over ceil(gpus / gpus_per_node) nodes, reading
 * trtllm_config.<mode> as its engine YAML.
 */
static void oracle_trtllm(struct oracle_counts *c, const char *name, const struct srt_ynode *res,
			  size_t j, const struct srt_ynode *cfg, const struct srt_plan *p,
			  const struct srt_runplan_proc *pr)
{
	char key[64];
	int64_t gpn = int_or(srt_ynode_get(res, "gpus_per_node"), 4), gpus;
	struct srt_buf want;

	snprintf(key, sizeof(key), "gpus_per_%s", v1_res[j]);
	gpus = int_or(srt_ynode_get(res, key), 0);
	c->trtllm++;
	if (gpus > 0 &&
	    (pr->ntasks != gpus || !pr->mpi || (int64_t)pr->nnodes != (gpus + gpn - 1) / gpn))
		MISMATCH(c,
			 "%s: %s worker: srt-slurm ran %lld MPI ranks on %lld node(s), srtctl %d "
			 "on %zu",
			 name, v1_res[j], (long long)gpus, (long long)((gpus + gpn - 1) / gpn),
			 pr->ntasks, pr->nnodes);
	srt_buf_init(&want);
	if (cfg && !srt_ynode_is_null(cfg))
		assert_int_equal(srt_yemit(cfg, &want), 0);
	else
		srt_buf_puts(&want, "{}\n");
	if (!pr->config_text || strcmp(pr->config_text, want.data))
		MISMATCH(c, "%s: %s worker: its engine YAML is not trtllm_config.%s", name,
			 v1_res[j], v1_modes[j]);
	srt_buf_release(&want);
	(void)p;
}

static void oracle_compare(struct oracle_counts *c, const char *name, const struct srt_ynode *v1,
			   const struct srt_plan *p)
{
	const struct srt_ynode *backend = srt_ynode_get(v1, "backend");
	const struct srt_ynode *res = srt_ynode_get(v1, "resources");
	const struct srt_ynode *mc = srt_ynode_get(backend, "mooncake_kv_store");
	const struct srt_ynode *top_env = srt_ynode_get(v1, "environment");
	const char *engine = v1_engine(backend);
	bool store = mc && !srt_ynode_is_null(mc);
	bool ded = false, disagg, dyn = v1_dynamo_frontend(v1);
	int64_t want_nodes;
	size_t got_nodes = 0;
	char cfgkey[32];

	srt_ynode_bool(srt_ynode_get(srt_ynode_get(v1, "infra"), "etcd_nats_dedicated_node"), &ded);
	snprintf(cfgkey, sizeof(cfgkey), "%s_config", engine);
	c->recipes++;

	/* Nodes. */
	disagg = !srt_ynode_is_null(srt_ynode_get(res, "prefill_nodes")) ||
		 !srt_ynode_is_null(srt_ynode_get(res, "decode_nodes"));
	want_nodes = disagg ? int_or(srt_ynode_get(res, "prefill_nodes"), 0) +
				      int_or(srt_ynode_get(res, "decode_nodes"), 0) :
			      int_or(srt_ynode_get(res, "agg_nodes"), 1);
	for (size_t i = 0; i < p->layout.nnodes; i++)
		if (!p->layout.nodes[i].dedicated)
			got_nodes++;
	c->nodes++;
	if ((int64_t)got_nodes != want_nodes)
		MISMATCH(c, "%s: srt-slurm ran the workers on %lld node(s), srtctl on %zu", name,
			 (long long)want_nodes, got_nodes);

	/* The master and the reserved infra node. */
	if (store) {
		c->masters++;
		if (!p->master)
			MISMATCH(c, "%s: srt-slurm ran a mooncake master, srtctl does not", name);
		else if ((p->master->placement == SRT_PLACE_DEDICATED) != ded ||
			 p->layout.dedicated != ded)
			MISMATCH(c, "%s: srt-slurm ran the master %s, srtctl %s", name,
				 ded ? "on its own reserved node" : "on the head node",
				 p->master->placement == SRT_PLACE_DEDICATED ?
					 "on a dedicated node" :
					 "on the infra node");
		if (ded)
			c->dedicated++;
	} else if (p->master) {
		MISMATCH(c, "%s: srtctl runs a mooncake master srt-slurm did not", name);
	}
	/* Under Dynamo: etcd and NATS, on the reserved node when there is one. */
	if (dyn) {
		c->dynamo++;
		for (size_t k = 0; k < 2; k++) {
			const char *svc = k ? "nats" : "etcd";
			const struct srt_runplan_proc *pr = NULL;

			for (size_t i = 0; i < p->run.nprocs; i++)
				if (p->run.procs[i].type && !strcmp(p->run.procs[i].type, svc))
					pr = &p->run.procs[i];
			if (!pr)
				MISMATCH(c, "%s: srt-slurm ran %s for Dynamo, srtctl does not",
					 name, svc);
			else if (p->layout.nodes[pr->node].dedicated != ded)
				MISMATCH(c, "%s: srt-slurm ran %s %s, srtctl %s", name, svc,
					 ded ? "on its own node" : "on the head node",
					 ded ? "on a worker node" : "on a node of its own");
		}
		if (ded && !store)
			c->infra_only++;
	} else if (ded && !store && p->layout.dedicated) {
		MISMATCH(c, "%s: srtctl reserves a node srt-slurm used for nothing", name);
	}

	for (size_t j = 0; j < 3; j++) {
		char key[64];
		int64_t want_workers;
		size_t got_workers = 0;
		const struct srt_ynode *renv, *cfg;

		snprintf(key, sizeof(key), "%s_workers", v1_res[j]);
		want_workers = int_or(srt_ynode_get(res, key), 0);
		snprintf(key, sizeof(key), "%s_environment", v1_modes[j]);
		renv = srt_ynode_get(backend, key);
		cfg = srt_ynode_get(srt_ynode_get(backend, cfgkey), v1_modes[j]);
		for (size_t i = 0; i < p->run.nprocs; i++) {
			const struct srt_runplan_proc *pr = &p->run.procs[i];
			const struct srt_argv argv = { pr->argv, pr->argc };
			const char *want_conn = NULL, *got_conn;
			const char *flag = NULL;
			bool from_role = false;

			if (pr->kind != SRT_PROC_WORKER ||
			    strcmp(pr->role, srt_role_name((enum srt_role_kind)j)))
				continue;
			if (pr->rank == 0)
				got_workers++;
			if (pr->rank != 0 || pr->index != 0)
				continue; /* one worker per role is enough for env and args */
			if (!strcmp(engine, "trtllm"))
				oracle_trtllm(c, name, res, j, cfg, p, pr);

			/* Env: every recipe variable srt-slurm set, and nothing else. */
			for (size_t k = 0; k < pr->nenv; k++) {
				const struct srt_renv_var ev_ = {
					pr->env_names[k],
					pr->env_values[k],
					strcmp(pr->env_src[k].owner, "srtctl") ? SRT_OWNER_RECIPE :
										 SRT_OWNER_SRTCTL,
					NULL,
					false,
					NULL,
					NULL
				};
				const struct srt_renv_var *ev = &ev_;
				const struct srt_ynode *want = NULL;
				bool renv_lookup = true;

				if (store)
					want = srt_ynode_get(srt_ynode_get(mc, "env"), ev->name);
				/* With a store only the store's env could pin the worker's IP. */
				if (store && !strcmp(ev->name, "MOONCAKE_LOCAL_HOSTNAME"))
					renv_lookup = false;
				if (!want)
					want = srt_ynode_get(top_env, ev->name);
				if (!want && renv_lookup)
					want = srt_ynode_get(renv, ev->name);
				c->env_vars++;
				if (ev->owner == SRT_OWNER_SRTCTL) {
					/*
					 * The launch model's variables (GPU set, NIXL port)
					 * srt-slurm stamps too; tests/unit/test_launch.c
					 * checks them.
					 */
					if (!strcmp(ev->name, "CUDA_VISIBLE_DEVICES") ||
					    !strcmp(ev->name, "VLLM_NIXL_SIDE_CHANNEL_PORT"))
						continue;
					if (dyn && dynamo_var(ev->name))
						continue;
					if (!store)
						MISMATCH(
							c,
							"%s: %s worker: srtctl stamps %s without a store",
							name, v1_res[j], ev->name);
					else if (!strcmp(ev->name, "MOONCAKE_LOCAL_HOSTNAME") &&
						 want)
						MISMATCH(
							c,
							"%s: %s worker: srt-slurm pinned %s to '%s', "
							"srtctl stamps '%s'",
							name, v1_res[j], ev->name,
							srt_ynode_str(want), ev->value);
					continue;
				}
				if (!want || !srt_ynode_str(want) ||
				    strcmp(srt_ynode_str(want), ev->value))
					MISMATCH(
						c,
						"%s: %s worker: %s is '%s' in srtctl, '%s' in srt-slurm",
						name, v1_res[j], ev->name, ev->value,
						want ? srt_ynode_str(want) : "(unset)");
			}
			if (store && !proc_env(pr, "MOONCAKE_MASTER"))
				MISMATCH(c, "%s: %s worker: no MOONCAKE_MASTER", name, v1_res[j]);
			for (size_t k = 0; renv && renv->kind == SRT_Y_MAP && k < renv->n; k++)
				if (!proc_env(pr, renv->pairs[k].key->str) &&
				    strcmp(renv->pairs[k].key->str, "MOONCAKE_LOCAL_HOSTNAME"))
					MISMATCH(c, "%s: %s worker: %s is lost", name, v1_res[j],
						 renv->pairs[k].key->str);

			/* Connector. */
			if (!strcmp(engine, "vllm")) {
				flag = "kv-transfer-config";
				want_conn = v1_vllm_connector(backend, cfg, &from_role);
			} else if (!strcmp(engine, "sglang") && j < 2) {
				const struct srt_ypair *own =
					pair_dashed(cfg, "disaggregation-transfer-backend");

				flag = "disaggregation-transfer-backend";
				want_conn =
					own ? srt_ynode_str(own->value) :
					      srt_ynode_str(srt_ynode_get(backend, "connector"));
			}
			if (!flag)
				continue;
			c->connectors++;
			got_conn = argv_value(&argv, flag);
			if ((want_conn == NULL) != (got_conn == NULL) ||
			    (want_conn && strcmp(want_conn, got_conn)))
				MISMATCH(c, "%s: %s worker: srt-slurm passed --%s %s, srtctl %s",
					 name, v1_res[j], flag, want_conn ? want_conn : "(none)",
					 got_conn ? got_conn : "(none)");
		}
		c->workers++;
		if ((int64_t)got_workers != want_workers)
			MISMATCH(c, "%s: srt-slurm ran %lld %s worker(s), srtctl %zu", name,
				 (long long)want_workers, v1_res[j], got_workers);
	}
}

/* Migrate one v1 file, render each recipe, compare with the oracle. */
static void oracle_file(struct oracle_counts *c, const char *path, const char *name)
{
	struct srt_ydoc *v1 = load(path), *got;
	struct srt_ynode **roots = NULL, *single;
	size_t nroots = 0;
	struct srt_diags d;
	struct srt_buf text;
	struct srt_cluster cluster;
	struct srt_compiled comp = { 0 };

	srt_diags_init(&d);
	srt_cluster_defaults(&cluster);
	c->files++;
	if (srt_variants_is_variant_doc(v1->root)) {
		assert_int_equal(srt_variants_expand(v1, &roots, &nroots, &d), 0);
	} else {
		single = v1->root;
		roots = &single;
		nroots = 1;
	}
	got = srt_migrate_v1(v1, &d);
	if (!got) {
		srt_diags_print(&d, stderr);
		fail_msg("%s does not migrate", name);
	}
	srt_buf_init(&text);
	assert_int_equal(srt_yemit(got->root, &text), 0);
	if (srt_compile_bytes(text.data, text.len, name, &cluster, &comp, &d)) {
		srt_diags_print(&d, stderr);
		fail_msg("%s: the migrated recipe does not validate", name);
	} else {
		assert_int_equal(comp.n, nroots);
	}
	for (size_t i = 0; i < nroots; i++) {
		struct srt_plan *p = srt_plan_build(comp.recipes[i], &cluster, &d);

		if (!p) {
			srt_diags_print(&d, stderr);
			fail_msg("%s: no plan for recipe %zu", name, i);
		}
		oracle_compare(c, name, roots[i], p);
		srt_plan_free(p);
	}
	if (roots != &single)
		free(roots);
	srt_compiled_release(&comp);
	srt_buf_release(&text);
	srt_ydoc_free(got);
	srt_ydoc_free(v1);
	srt_diags_release(&d);
}

static void oracle_dir(struct oracle_counts *c, const char *dir, const char *suffix)
{
	DIR *dh = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;

	assert_non_null(dh);
	while ((de = readdir(dh))) {
		size_t len = strlen(de->d_name), sl = strlen(suffix);

		if (len <= sl || strcmp(de->d_name + len - sl, suffix) ||
		    !strncmp(de->d_name, "invalid-", 8) || !strncmp(de->d_name, "sweep", 5))
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		names[n++] = strdup(de->d_name);
	}
	closedir(dh);
	for (size_t i = 0; i < n; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		oracle_file(c, path, names[i]);
		free(names[i]);
	}
	free(names);
}

static void print_counts(const char *what, const struct oracle_counts *c)
{
	printf("%s: %zu files, %zu recipes; compared %zu node counts, %zu worker counts, %zu "
	       "worker env vars, %zu connectors, %zu masters (%zu on a dedicated node); %zu "
	       "recipes behind Dynamo's frontend (etcd and NATS placed; %zu on a node of their "
	       "own); %zu TRT-LLM workers (MPI ranks and engine YAML); %zu mismatches\n",
	       what, c->files, c->recipes, c->nodes, c->workers, c->env_vars, c->connectors,
	       c->masters, c->dedicated, c->dynamo, c->infra_only, c->trtllm, c->mismatches);
}

/*
 * For every corpus recipe (and every v1 fixture here), what srt-slurm's v1
 * rules say must match what srtctl renders from the migrated recipe.
 */
static void test_corpus_v1_semantics(void **state)
{
	const char *root = getenv("SRT_CORPUS_DIR");
	struct oracle_counts corpus = { 0 }, fixtures = { 0 };
	char dir[4096];
	struct stat st;

	(void)state;
	oracle_dir(&fixtures, DATA, ".v1.yaml");
	print_counts("v1 fixtures", &fixtures);
	assert_int_equal(fixtures.mismatches, 0);
	assert_true(fixtures.masters >= 3);
	assert_true(fixtures.dedicated >= 1);

	snprintf(dir, sizeof(dir), "%s/srt-slurm-v1", root ? root : "");
	if (!root || stat(dir, &st) != 0) {
		printf("corpus not found at %s (set SRT_CORPUS_DIR)\n", root ? dir : "''");
		skip();
	}
	oracle_dir(&corpus, dir, ".yaml");
	print_counts("corpus", &corpus);
	assert_int_equal(corpus.mismatches, 0);
	assert_int_equal(corpus.files, 255);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mooncake_sglang_fixture),
		cmocka_unit_test(test_mooncake_vllm_fixture),
		cmocka_unit_test(test_engine_inference),
		cmocka_unit_test(test_layout_and_moves),
		cmocka_unit_test(test_engine_options_and_kv_events),
		cmocka_unit_test(test_mooncake_details),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_v1_frontend_and_host),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_connector),
		cmocka_unit_test(test_kv_events),
		cmocka_unit_test(test_master_placement_and_flags),
		cmocka_unit_test(test_env_precedence),
		cmocka_unit_test(test_variant_file),
		cmocka_unit_test(test_variant_engine_mapping),
		cmocka_unit_test(test_schema2_v1_body_and_agg_gpus),
		cmocka_unit_test(test_override_sections_and_null_engine),
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_corpus_v1_semantics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
