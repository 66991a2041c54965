/*
 * tests/unit/test_validate.c: every validation rule, table-driven.
 *
 * Each case is a recipe and the exact diagnostic it must produce (as the
 * user sees it: file:line:col: [warning: ]path: message).  A case passes when
 * that diagnostic is among those reported and the error count is as stated.
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

#define SG_ROLES                                                                            \
	"engine: sglang\n"                                                                  \
	"roles:\n"                                                                          \
	"  prefill:\n"                                                                      \
	"    args:\n"                                                                       \
	"      disaggregation-transfer-backend: mooncake\n"                                 \
	"  decode:\n"                                                                       \
	"    args:\n"                                                                       \
	"      disaggregation-transfer-backend: mooncake\n"

#define VLLM_KV "'{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_both\"}'"

#define VLLM_ROLES                                                                          \
	"engine: vllm\n"                                                                    \
	"roles:\n"                                                                          \
	"  prefill:\n"                                                                      \
	"    args:\n"                                                                       \
	"      kv-transfer-config: " VLLM_KV "\n"                                           \
	"  decode:\n"                                                                       \
	"    args:\n"                                                                       \
	"      kv-transfer-config: " VLLM_KV "\n"

#define MASTER "services:\n  - name: mooncake-master\n    type: mooncake-master\n"

/* Dynamo over SGLang on NATS planes; the services follow, from line 7. */
#define DYN_PLANES                                                                                     \
	"engine: sglang\nroles:\n  agg: {}\nfrontend: {type: dynamo}\ndynamo: {request_plane: nats}\n" \
	"services:\n"

#define NAME_RULE                                                                              \
	"a name is 1 to 128 characters of letters, digits, '-', '_' and '.', starts and ends " \
	"with a letter or digit, and has no '..'"
#define RECIPE_USE " (it names the SLURM job and the run directory)"
/* A recipe whose name is `written` (YAML) and reported as `shown`, refused because `why`. */
#define RECIPE_NAME_CASE(label, written, shown, why)                              \
	{                                                                         \
		"recipe name " label, "name: " written "\n" SG_ROLES, 1,          \
			"r.yaml:1:7: name: '" shown "' is not a valid name: " why \
			"; " NAME_RULE RECIPE_USE                                 \
	}
#define NAME32 "abcdefghijklmnopqrstuvwxyz012345"
#define NAME128 NAME32 NAME32 NAME32 NAME32
#define NAME129 NAME128 "x"

/* TRT-LLM prefill and decode on the mooncake-store connector (line 9 and 14: its mapping). */
#define TRT_MC_ROLE(role)                                                      \
	"  " role ":\n    gpus: 1\n    args:\n      tensor_parallel_size: 1\n" \
	"      kv_connector_config: {connector: mooncake-store}\n"
#define TRT_MC                                                                                    \
	"name: r\nengine: trtllm\nresources: {gpus_per_node: 4}\nroles:\n" TRT_MC_ROLE("prefill") \
		TRT_MC_ROLE("decode")
/* TRT-LLM's own pool: the prefill role provisions it, a donor lends the decode node's memory. */
#define TRT_POOL_ROLES                                                                        \
	"name: r\nengine: trtllm\nresources: {gpus_per_node: 4}\nroles:\n  prefill:\n"        \
	"    gpus: 1\n    args:\n      tensor_parallel_size: 1\n      kv_connector_config:\n" \
	"        connector: mooncake-store\n        mooncake_store:\n"                        \
	"          master_server_address: file:///logs/mooncake_master.addr\n"                \
	"          protocol: rdma\n  decode:\n    gpus: 1\n    args: {tensor_parallel_size: 1}\n"
#define TRT_POOL_WITH(master_opts, donor_opts)                              \
	TRT_POOL_ROLES MASTER                                               \
		"    start: with_workers\n    options: {" master_opts "}\n" \
		"  - name: donor\n    type: mooncake-donor\n    options: {" donor_opts "}\n"
#define TRT_POOL TRT_POOL_WITH("eviction_ratio: 0.05, master_timeout_s: 900", "size: 4GiB")
#define TRT_STORE(keys) MASTER "    options:\n      store_config: {" keys "}\n"

#define AGG_Y "engine: sglang\nroles:\n  agg: {}\n"
#define GEN_SVC "services:\n  - name: g\n    command: [x]\n"

/* TileRT's prefill/decode (srt-slurm 2.0): vLLM prefill, TileRT decode, its router. */
#define TILERT_Y                                         \
	"name: r\n"                                      \
	"roles:\n"                                       \
	"  prefill:\n"                                   \
	"    engine: vllm\n"                             \
	"    args: {return-tokens-as-token-ids: true}\n" \
	"  decode:\n"                                    \
	"    engine: tilert\n"                           \
	"    args:\n"                                    \
	"      model: glm5\n"                            \
	"frontend: {type: tilert-router, args: {parser: none}}\n"

/* A recipe of services only (srt-slurm's services-only job): no engine, no roles. */
#define POOLS_Y "name: r\nfrontend: {type: none}\nservices:\n"

struct vcase {
	const char *name;
	const char *yaml;
	int nerrors; /* expected error count; -1: at least one */
	const char *want; /* a diagnostic that must be present (NULL: none expected) */
};

static const struct vcase cases[] = {
	{ "sglang quick start is valid", SG_ROLES MASTER, 0, NULL },
	{ "vllm quick start is valid",
	  VLLM_ROLES MASTER "    options:\n      store_config:\n        protocol: tcp\n", 0, NULL },
	{ "sglang master without transfer backend (seed text, verbatim)",
	  "engine: sglang\nroles:\n  prefill:\n    args:\n      tp: 1\n  decode:\n    args: {}\n" MASTER,
	  1,
	  "r.yaml:9:5: services[0]: ValidationError: a mooncake-master service is configured but "
	  "neither roles.prefill.args\n"
	  "nor roles.decode.args has 'disaggregation-transfer-backend: mooncake'.\n"
	  "Add it to both roles (and 'disaggregation-ib-device') so workers actually\n"
	  "use the mooncake master srtslurm launches for you." },
	{ "underscore form of the backend flag is accepted",
	  "engine: sglang\nroles:\n  prefill:\n    args:\n      disaggregation_transfer_backend: mooncake\n"
	  "  decode:\n    args:\n      disaggregation_transfer_backend: mooncake\n" MASTER,
	  0, NULL },
	{ "backend on one role only warns",
	  "engine: sglang\nroles:\n  prefill:\n    args:\n      disaggregation-transfer-backend: mooncake\n"
	  "  decode:\n    args:\n      tp: 1\n" MASTER,
	  0,
	  "r.yaml:8:7: warning: roles.decode.args: has no 'disaggregation-transfer-backend: "
	  "mooncake' while roles.prefill has it; prefill and decode must use the same transfer "
	  "backend. Add it here too." },
	{ "vllm without a mooncake connector",
	  "engine: vllm\nroles:\n  prefill:\n    args:\n      kv-transfer-config: '{\"kv_connector\":\"NixlConnector\"}'\n"
	  "  decode: {}\n" MASTER "    options:\n      store_config: {protocol: tcp}\n",
	  1,
	  "r.yaml:8:5: services[0]: ValidationError: a mooncake-master service is configured but "
	  "no role's args has a 'kv-transfer-config' that uses MooncakeStoreConnector\n"
	  "(standalone, or inside MultiConnector's connectors list). Add it to roles.prefill.args "
	  "and roles.decode.args so vLLM\nactually uses the mooncake master srtctl launches for "
	  "you." },
	{ "tensor parallel larger than the worker's GPUs warns",
	  "engine: sglang\nresources: {gpus_per_node: 4}\nroles:\n  agg:\n    args: {tp: 8}\n", 0,
	  "r.yaml:5:11: warning: roles.agg.args: tensor parallel 8 x pipeline parallel 1 needs 8 "
	  "GPUs, but each agg worker has 4 (1 node(s) x 4 GPUs over 1 worker(s)); sglang will "
	  "fail to start. Give the role more nodes or GPUs, or lower the parallel sizes" },
	{ "tensor x pipeline parallel that fit two nodes pass",
	  "engine: vllm\nresources: {gpus_per_node: 4}\nroles:\n  agg:\n    nodes: 2\n"
	  "    args: {tensor-parallel-size: 4, pipeline-parallel-size: 2}\n",
	  0, NULL },
	{ "vllm aggregated without a mooncake connector warns (srt-slurm checks PD only)",
	  "engine: vllm\nroles:\n  agg:\n    args:\n      tp: 1\n" MASTER
	  "    options:\n      store_config: {protocol: tcp}\n",
	  0,
	  "r.yaml:5:7: warning: roles.agg.args: a mooncake-master service is configured but "
	  "roles.agg.args has no 'kv-transfer-config' that uses MooncakeStoreConnector: the "
	  "master runs and vLLM does not use it. Add the connector (standalone, or inside "
	  "MultiConnector's connectors list), or remove the service." },
	{ "vllm MultiConnector wrapping MooncakeStoreConnector is accepted",
	  "engine: vllm\nroles:\n  prefill:\n    args:\n      kv-transfer-config: '{\"kv_connector\":\"MultiConnector\","
	  "\"kv_connector_extra_config\":{\"connectors\":[{\"kv_connector\":\"NixlConnector\"},"
	  "{\"kv_connector\":\"MooncakeStoreConnector\"}]}}'\n  decode: {}\n" MASTER
	  "    options:\n      store_config: {protocol: tcp}\n",
	  0, NULL },
	{ "vllm malformed kv-transfer-config JSON shows where it broke",
	  "engine: vllm\nroles:\n  prefill:\n    args:\n      kv-transfer-config: '{\"kv_connector\": MooncakeStoreConnector}'\n"
	  "  decode: {}\n" MASTER "    options:\n      store_config: {protocol: tcp}\n",
	  -1,
	  "r.yaml:5:27: roles.prefill.args.kv-transfer-config: is not valid JSON: invalid token "
	  "at character 39 (line 1, column 39):\n"
	  "  {\"kv_connector\": MooncakeStoreConnector}\n"
	  "                                         ^\n"
	  "Write it as a single-quoted YAML string holding JSON, or as a YAML mapping." },
	{ "vllm master needs store_config", VLLM_ROLES MASTER, 1,
	  "r.yaml:10:5: services[0].options.store_config: vLLM needs options.store_config on the "
	  "mooncake-master service: it is rendered into the JSON file MOONCAKE_CONFIG_PATH points "
	  "at. srtctl does not invent defaults for it (global_segment_size, protocol, device_name "
	  "are hardware-specific): set them explicitly." },
	{ "store_config on sglang is an error",
	  SG_ROLES MASTER "    options:\n      store_config: {protocol: tcp}\n", 1,
	  "r.yaml:13:21: services[0].options.store_config: options.store_config is for vLLM and "
	  "TRT-LLM only (it becomes the client config MOONCAKE_CONFIG_PATH names); with engine "
	  "sglang configure Mooncake through the roles' env. Remove it." },
	{ "master_server_address is ignored with a warning",
	  VLLM_ROLES MASTER
	  "    options:\n      store_config:\n        master_server_address: 1.2.3.4:1\n",
	  0,
	  "r.yaml:14:9: warning: services[0].options.store_config.master_server_address: is "
	  "ignored: srtctl always sets it to <infra_node_ip>:8700" },
	{ "store_config size that vLLM rejects",
	  VLLM_ROLES MASTER
	  "    options:\n      store_config:\n        global_segment_size: 4GiB\n",
	  1,
	  "r.yaml:14:30: services[0].options.store_config.global_segment_size: '4GiB' is not a "
	  "size vLLM's MooncakeStoreConfig accepts: write an integer number of bytes or a number "
	  "with GB, MB, KB or B (e.g. \"4GB\"; \"4GiB\" and \"4G\" are rejected at startup)" },
	{ "master args may not move the RPC port",
	  SG_ROLES MASTER "    args: [\"--rpc_port=9000\"]\n", 1,
	  "r.yaml:12:12: services[0].args[0]: '--rpc_port=9000' sets the master's rpc_port, but "
	  "srtctl owns the mooncake master's ports (RPC 8700, HTTP metadata 8701, admin/metrics "
	  "8702): it points every worker and its readiness checks at them. Remove this argument." },
	{ "master args may not move the metrics port (dash form, separate value)",
	  SG_ROLES MASTER "    args: [\"--metrics-port\", \"9\"]\n", 1,
	  "r.yaml:12:12: services[0].args[0]: '--metrics-port' sets the master's metrics_port, "
	  "but srtctl owns the mooncake master's ports (RPC 8700, HTTP metadata 8701, "
	  "admin/metrics 8702): it points every worker and its readiness checks at them. Remove "
	  "this argument." },
	{ "master args may not set the metadata port",
	  SG_ROLES MASTER "    args:\n      - --http_metadata_server_port=1\n", 1,
	  "r.yaml:13:9: services[0].args[0]: '--http_metadata_server_port=1' sets the master's "
	  "http_metadata_server_port, but srtctl owns the mooncake master's ports (RPC 8700, HTTP "
	  "metadata 8701, admin/metrics 8702): it points every worker and its readiness checks at "
	  "them. Remove this argument." },
	{ "gflags bool pitfall warns", SG_ROLES MASTER "    args: [\"--enable_ha\", \"false\"]\n",
	  0,
	  "r.yaml:12:12: warning: services[0].args[0]: '--enable_ha false': mooncake_master parses "
	  "flags with gflags, where a boolean flag followed by a separate 'true'/'false' is read as "
	  "the flag alone plus a stray argument; write '--enable_ha=false'" },
	{ "a master command may not move a port srtctl probes",
	  SG_ROLES MASTER
	  "    command: [mooncake_master, --rpc_port, \"9000\", --enable_http_metadata_server=true,\n"
	  "              \"--http_metadata_server_port={metadata_port}\", --metrics_port=8702]\n",
	  1,
	  "r.yaml:12:32: services[0].command[1]: '--rpc_port 9000' puts the master's rpc_port on "
	  "9000, but srtctl's readiness check and the workers' MOONCAKE_MASTER use 8700; write "
	  "--rpc_port=8700 (or {master_port})" },
	{ "a mooncake_master command left at the binary's port defaults",
	  SG_ROLES MASTER
	  "    command: [/opt/bin/mooncake_master, --enable_http_metadata_server]\n",
	  3,
	  "r.yaml:12:14: services[0].command: this mooncake_master command runs the HTTP metadata "
	  "server on its default port 8080, but the workers' MOONCAKE_TE_META_DATA_SERVER and "
	  "srtctl's readiness check use it on 8701; add --enable_http_metadata_server=true "
	  "--http_metadata_server_port={metadata_port}" },
	{ "a mooncake_master command without the metadata server",
	  SG_ROLES MASTER
	  "    command: [mooncake_master, \"--rpc_port={master_port}\", --metrics_port=8702,\n"
	  "              --enable_http_metadata_server=false, --http_metadata_server_port=8701]\n",
	  1,
	  "r.yaml:12:14: services[0].command: this mooncake_master command leaves the HTTP "
	  "metadata server off (its default), but the workers' MOONCAKE_TE_META_DATA_SERVER and "
	  "srtctl's readiness check use it on 8701; add --enable_http_metadata_server=true "
	  "--http_metadata_server_port={metadata_port}" },
	{ "a mooncake_master command on srtctl's ports",
	  SG_ROLES MASTER
	  "    command: [mooncake_master, \"--rpc_port={master_port}\", --metrics_port=8702,\n"
	  "              --enable_http_metadata_server=1, \"--http_metadata_server_port\",\n"
	  "              \"{metadata_port}\", --default_kv_lease_ttl=60000]\n",
	  0, NULL },
	{ "a wrapped master command: only its written ports are checked",
	  SG_ROLES MASTER
	  "    command: [numactl, -N, \"0\", mooncake_master, --metrics_port=9003]\n",
	  1,
	  "r.yaml:12:50: services[0].command[4]: '--metrics_port=9003' puts the master's "
	  "metrics_port on 9003, but srtctl's readiness check (/health) uses 8702; write "
	  "--metrics_port=8702" },
	{ "TRT-LLM's pool master command needs only the RPC port",
	  TRT_POOL_ROLES MASTER
	  "    start: with_workers\n"
	  "    command: [mooncake_master, --rpc_port=8700, --metrics_port=9003, --eviction_ratio=0.02]\n"
	  "  - name: donor\n    type: mooncake-donor\n    options: {size: 4GiB}\n",
	  0, NULL },
	{ "TRT-LLM's pool master command without --rpc_port",
	  TRT_POOL_ROLES MASTER
	  "    start: with_workers\n    command: [mooncake_master]\n"
	  "  - name: donor\n    type: mooncake-donor\n    options: {size: 4GiB}\n",
	  1,
	  "r.yaml:21:14: services[0].command: this mooncake_master command sets no --rpc_port, so "
	  "the master listens on its default 50051, but srtctl's readiness checks and the workers "
	  "use 8700; add --rpc_port={master_port}" },
	{ "a bare etcd command listens on localhost only",
	  DYN_PLANES "  - name: etcd\n    type: etcd\n    command: [etcd, --data-dir, /tmp/e]\n", 1,
	  "r.yaml:9:14: services[0].command: this etcd command sets no --listen-client-urls, so "
	  "etcd listens for clients on localhost:2379 only (its default), but srtctl's readiness "
	  "check and the processes on other nodes reach it at the node's IP; add "
	  "--listen-client-urls http://0.0.0.0:2379 --advertise-client-urls "
	  "http://{node_ip}:2379" },
	{ "etcd args may not move its client port",
	  DYN_PLANES
	  "  - name: etcd\n    type: etcd\n"
	  "    args: [--listen-client-urls, \"http://0.0.0.0:12379,http://10.0.0.1:2380\"]\n",
	  1,
	  "r.yaml:9:12: services[0].args[0]: '--listen-client-urls "
	  "http://0.0.0.0:12379,http://10.0.0.1:2380' moves etcd's client listener off port 2379, "
	  "where srtctl's readiness check and every process's ETCD_ENDPOINTS reach it; listen on "
	  "http://0.0.0.0:2379" },
	{ "etcd args may not put its clients on loopback alone",
	  DYN_PLANES
	  "  - name: etcd\n    type: etcd\n"
	  "    args: [\"-listen-client-urls=http://localhost:2379,http://[::1]:2379,http://0.0.0.0:1\"]\n",
	  1,
	  "r.yaml:9:12: services[0].args[0]: '-listen-client-urls=http://localhost:2379,"
	  "http://[::1]:2379,http://0.0.0.0:1' has etcd listen for clients on loopback only, but srtctl's "
	  "readiness check and the processes on other nodes reach it at the node's IP; listen on "
	  "http://0.0.0.0:2379" },
	{ "a nats-server command may not move its port",
	  DYN_PLANES
	  "  - name: nats\n    type: nats\n    command: [nats-server, -js, -p, \"4223\"]\n",
	  1,
	  "r.yaml:9:33: services[0].command[2]: '-p 4223' puts NATS on port 4223, but srtctl's "
	  "readiness check and every process's NATS_SERVER use 4222; write -p 4222, or remove it "
	  "(4222 is nats-server's default)" },
	{ "a nats-server command may not listen on loopback alone",
	  DYN_PLANES
	  "  - name: nats\n    type: nats\n    command: [nats-server, -js, --addr=127.0.0.1]\n",
	  1,
	  "r.yaml:9:33: services[0].command[2]: '--addr=127.0.0.1' has NATS listen on loopback "
	  "only, but srtctl's readiness check and the processes on other nodes reach it at the "
	  "node's IP; remove it (nats-server listens on every address by default)" },
	{ "a nats-server command without JetStream warns",
	  DYN_PLANES
	  "  - name: nats\n    type: nats\n    command: [/usr/bin/nats-server, --port=4222]\n",
	  0,
	  "r.yaml:9:14: warning: services[0].command: this nats-server command does not enable "
	  "JetStream, which Dynamo's NATS planes use (srtctl's own command passes -js); add -js" },
	{ "etcd and nats commands on srtctl's ports",
	  DYN_PLANES
	  "  - name: etcd\n    type: etcd\n"
	  "    command: [etcd, --listen-client-urls, \"http://0.0.0.0:2379,http://[::1]:2379\",\n"
	  "              --advertise-client-urls, \"http://{node_ip}:2379\"]\n"
	  "  - name: nats\n    type: nats\n    command: [nats-server, -c, /etc/nats.conf]\n"
	  "  - name: ext\n    type: etcd\n    enabled: false\n    command: [etcd]\n",
	  0, NULL },
	{ "MOONCAKE_MASTER in role env is a no-op",
	  "engine: sglang\nroles:\n  prefill:\n    env:\n      MOONCAKE_MASTER: 1.1.1.1:1\n    args:\n"
	  "      disaggregation-transfer-backend: mooncake\n  decode:\n    args:\n"
	  "      disaggregation-transfer-backend: mooncake\n" MASTER,
	  0,
	  "r.yaml:5:24: warning: roles.prefill.env.MOONCAKE_MASTER: setting MOONCAKE_MASTER here is "
	  "a no-op: srtctl always sets it on every worker (it points at the mooncake master srtctl "
	  "launches)" },
	{ "MOONCAKE_CONFIG_PATH in role env is a no-op",
	  "engine: vllm\nroles:\n  prefill:\n    env:\n      MOONCAKE_CONFIG_PATH: /x.json\n    args:\n"
	  "      kv-transfer-config: " VLLM_KV "\n  decode: {}\n" MASTER
	  "    options:\n      store_config: {protocol: tcp}\n",
	  0,
	  "r.yaml:5:29: warning: roles.prefill.env.MOONCAKE_CONFIG_PATH: setting MOONCAKE_CONFIG_PATH "
	  "here is a no-op: srtctl always sets it on every worker (it points at the mooncake master "
	  "srtctl launches)" },
	{ "store without master", SG_ROLES "services:\n  - name: store\n    type: mooncake-store\n",
	  1,
	  "r.yaml:10:5: services[0]: a mooncake-store service needs a mooncake-master service in the "
	  "same recipe (stores register with it); add one:\n  - name: mooncake-master\n    type: "
	  "mooncake-master" },
	{ "two masters",
	  SG_ROLES MASTER
	  "  - name: m2\n    type: mooncake-master\n    placement: {node: dedicated}\n",
	  1,
	  "r.yaml:12:5: services[1]: a second mooncake-master service ('m2', services[1]); a run "
	  "has one master (first: 'mooncake-master', services[0]): remove one of them, or set "
	  "enabled: false on it" },
	{ "two masters on one node: one error, not one per port",
	  SG_ROLES MASTER "  - name: m2\n    type: mooncake-master\n", 1,
	  "r.yaml:12:5: services[1]: a second mooncake-master service ('m2', services[1]); a run "
	  "has one master (first: 'mooncake-master', services[0]): remove one of them, or set "
	  "enabled: false on it" },
	{ "store with a disabled master",
	  SG_ROLES MASTER "    enabled: false\n  - name: store\n    type: mooncake-store\n", 1,
	  "r.yaml:13:5: services[1]: a mooncake-store service needs an enabled mooncake-master "
	  "(stores register with it), but 'mooncake-master' (services[0]) has enabled: false; "
	  "remove 'enabled: false' from it, or disable this store too" },
	{ "vllm connector on one role only warns",
	  "engine: vllm\nroles:\n  prefill:\n    args:\n      kv-transfer-config: " VLLM_KV "\n"
	  "  decode:\n    args:\n      tensor-parallel-size: 1\n" MASTER
	  "    options:\n      store_config: {protocol: tcp}\n",
	  0,
	  "r.yaml:8:7: warning: roles.decode.args: has no 'kv-transfer-config' that uses "
	  "MooncakeStoreConnector while roles.prefill has it; prefill and decode must run the "
	  "same connector stack. Add it here too." },
	{ "empty role container is not set", SG_ROLES "    container: ''\n" MASTER, 0,
	  "r.yaml:9:16: warning: roles.decode.container: is empty, which srtctl (like srt-slurm) "
	  "reads as not set: the job container (model.container) is used instead. Remove the key "
	  "or name an image" },
	{ "empty model container is not set", "model: {container: ''}\n" SG_ROLES MASTER, 0,
	  "r.yaml:1:20: warning: model.container: is empty, which srtctl (like srt-slurm) reads as "
	  "not set: the processes run without a container unless they name their own. Remove the "
	  "key or name an image" },
	{ "duplicate service names",
	  SG_ROLES MASTER "  - name: mooncake-master\n    command: [sleep, '1']\n", -1,
	  "r.yaml:12:11: services[1].name: duplicate service name 'mooncake-master' (also "
	  "services[0]); names must be unique because they name the logs and processes" },
	{ "same readiness port on the same node",
	  SG_ROLES MASTER "  - name: a\n    command: [x]\n    readiness: {port: 9000}\n"
			  "  - name: b\n    command: [y]\n    readiness: {port: 9000}\n",
	  1,
	  "r.yaml:17:16: services[2].readiness: port 9000 is also the readiness port of 'a' "
	  "(services[1]) and both can run on the same node (head / head); give one of them another "
	  "port or disjoint placements" },
	{ "store readiness on a master port",
	  SG_ROLES MASTER "  - name: s\n    type: mooncake-store\n    placement: {node: infra}\n"
			  "    readiness: {port: 8701}\n",
	  1,
	  "r.yaml:15:16: services[1].readiness: port 8701 is also the readiness port of "
	  "'mooncake-master' (services[0]) and both can run on the same node (infra / infra); give "
	  "one of them another port or disjoint placements" },
	{ "same port on prefill and decode nodes is fine",
	  SG_ROLES MASTER "  - name: a\n    type: mooncake-store\n    placement: {node: prefill}\n"
			  "    readiness: {port: 8800}\n  - name: b\n    type: mooncake-store\n"
			  "    placement: {node: decode}\n    readiness: {port: 8800}\n",
	  0, NULL },
	{ "external that is not host:port", SG_ROLES MASTER "    external: 10.0.0.5\n", 1,
	  "r.yaml:12:15: services[0].external: '10.0.0.5' is not host:port (e.g. 10.0.0.5:8700; "
	  "IPv6 as [fd00::5]:8700)" },
	{ "external with a scheme", SG_ROLES MASTER "    external: http://10.0.0.5:8700\n", 1,
	  "r.yaml:12:15: services[0].external: 'http://10.0.0.5:8700' must be host:port without a "
	  "scheme (e.g. 10.0.0.5:8700)" },
	{ "external host:port is fine", SG_ROLES MASTER "    external: 10.0.0.5:8700\n", 0, NULL },
	{ "external IPv6 is fine", SG_ROLES MASTER "    external: '[fd00::5]:8700'\n", 0, NULL },
	{ "external on a store",
	  SG_ROLES MASTER "  - name: s\n    type: mooncake-store\n    external: 1.2.3.4:5\n", 1,
	  "r.yaml:14:15: services[1].external: 'external' is only for a mooncake-master, etcd or "
	  "nats that already runs" },
	{ "master readiness ports are owned", SG_ROLES MASTER "    readiness: {port: 9999}\n", 1,
	  "r.yaml:12:16: services[0].readiness: the mooncake-master's readiness ports are owned by "
	  "srtctl (RPC 8700, HTTP metadata 8701, admin 8702); set only timeout_seconds and "
	  "interval_seconds" },
	{ "unknown key with suggestion", SG_ROLES MASTER "    contianer: img\n", 1,
	  "r.yaml:12:5: services[0].contianer: unknown key 'contianer'; did you mean 'container'?" },
	{ "unknown role key with suggestion",
	  "engine: sglang\nroles:\n  prefill:\n    worker: 2\n  decode: {}\n", 1,
	  "r.yaml:4:5: roles.prefill.worker: unknown key 'worker'; did you mean 'workers'?" },
	{ "v1 topology key in resources", SG_ROLES MASTER "resources:\n  prefill_nodes: 1\n", 1,
	  "r.yaml:13:3: resources.prefill_nodes: 'resources.prefill_nodes' is the v1 layout; write "
	  "roles.prefill.nodes (srtctl migrate rewrites it)" },
	{ "unsupported top-level section warns once", SG_ROLES MASTER "profiling:\n  type: nsys\n",
	  0,
	  "r.yaml:12:1: warning: profiling: 'profiling' is not supported by srtctl and is ignored" },
	{ "typo in a top-level key is an error", SG_ROLES "servces:\n  - name: x\n", 1,
	  "r.yaml:9:1: servces: unknown top-level key 'servces'; did you mean 'services'?" },
	{ "unknown engine", "engine: vlm\nroles:\n  agg: {}\n", 1,
	  "r.yaml:1:9: engine: unknown engine 'vlm'; did you mean 'vllm'?" },
	{ "engine as a mapping", "engine: {type: sglang}\nroles:\n  agg: {}\n", 0, NULL },
	{ "dynamo.sidecar is srt-slurm's: kept with a warning",
	  "engine: sglang\ndynamo: {sidecar: true}\nroles:\n  agg: {}\n", 0,
	  "r.yaml:2:19: warning: dynamo.sidecar: srtctl runs no Dynamo sidecars beside native "
	  "engines: under the Dynamo frontend its workers are Dynamo's own (python3 -m "
	  "dynamo.<engine>), so a comparison of the two modes measures one thing twice; ignored "
	  "(kept in the spec for srt-slurm)" },
	{ "a role's port is its workers' HTTP port",
	  "engine: sglang\nroles:\n  prefill: {args: {port: 5000}}\n  decode: {}\n", 0, NULL },
	{ "a port for Dynamo's vLLM worker is ignored",
	  "engine: vllm\nfrontend: {type: dynamo}\nroles:\n  agg: {args: {port: 5000}}\n", 0,
	  "r.yaml:4:16: warning: roles.agg.args.port: is ignored: dynamo.vllm serves no HTTP API, "
	  "and srtctl passes it no --port; remove it" },
	{ "a role's sidecar says the same", "engine: sglang\nroles:\n  agg: {sidecar: true}\n", 0,
	  "r.yaml:3:9: warning: roles.agg.sidecar: srtctl runs no Dynamo sidecars beside native "
	  "engines: under the Dynamo frontend its workers are Dynamo's own (python3 -m "
	  "dynamo.<engine>), so a comparison of the two modes measures one thing twice; ignored "
	  "(kept in the spec for srt-slurm)" },
	{ "prefill without decode", "engine: sglang\nroles:\n  prefill: {}\n", 1,
	  "r.yaml:3:12: roles: a disaggregated recipe needs both roles.prefill and roles.decode "
	  "(found only prefill); for a single-role deployment use roles.agg" },
	{ "workers that do not fit",
	  "engine: sglang\nroles:\n  agg:\n    nodes: 1\n    workers: 3\n    gpus: 2\n", 1,
	  "r.yaml:4:5: roles.agg: 3 worker(s) x 2 GPUs do not fit on 1 node(s) x 4 GPUs "
	  "(resources.gpus_per_node); raise nodes or lower gpus" },
	{ "disaggregation-mode that contradicts the role",
	  "engine: sglang\nroles:\n  prefill:\n    args: {disaggregation-mode: decode}\n  decode: {}\n",
	  1,
	  "r.yaml:4:33: roles.prefill.args.disaggregation-mode: is 'decode' on the prefill role; it "
	  "must be 'prefill' (or left out)" },
	{ "dash and underscore spelling of one flag",
	  "engine: sglang\nroles:\n  agg:\n    args:\n      tp-size: 1\n      tp_size: 2\n", 1,
	  "r.yaml:6:7: roles.agg.args: 'tp_size' repeats 'tp-size' (dashes and underscores are the "
	  "same flag); keep one" },
	{ "args keys with leading dashes",
	  "engine: sglang\nroles:\n  agg:\n    args:\n      --tp-size: 1\n", 1,
	  "r.yaml:5:7: roles.agg.args: write '--tp-size' without the leading dashes (srtctl adds "
	  "'--')" },
	{ "bad env name", "engine: sglang\nroles:\n  agg:\n    env:\n      1BAD: x\n", 1,
	  "r.yaml:5:7: roles.agg.env.1BAD: '1BAD' is not a valid environment variable name "
	  "(letters, digits and '_', not starting with a digit)" },
	{ "null env value", "engine: sglang\nroles:\n  agg:\n    env:\n      FOO:\n", 1,
	  "r.yaml:5:11: roles.agg.env.FOO: has no value; write FOO: \"\" for an empty value, or "
	  "remove the line" },
	{ "sglang segment size form",
	  "engine: sglang\nroles:\n  agg:\n    env:\n      MOONCAKE_GLOBAL_SEGMENT_SIZE: 4GiB\n", 0,
	  "r.yaml:5:37: warning: roles.agg.env.MOONCAKE_GLOBAL_SEGMENT_SIZE: '4GiB': SGLang accepts "
	  "only a byte count or \"<integer>gb\" here (e.g. \"4gb\"); other forms raise ValueError at "
	  "startup" },
	{ "time limit format", "engine: sglang\nroles:\n  agg: {}\nslurm:\n  time_limit: 2h\n", 1,
	  "r.yaml:5:15: slurm.time_limit: '2h' is not a SLURM time limit; use minutes, HH:MM:SS, "
	  "D-HH:MM:SS or UNLIMITED" },
	{ "time limit D-HH:MM:SS is fine",
	  "engine: sglang\nroles:\n  agg: {}\nslurm:\n  time_limit: 1-02:00:00\n", 0, NULL },
	{ "readiness interval longer than timeout",
	  SG_ROLES MASTER
	  "  - name: g\n    command: [x]\n    readiness: {port: 1, timeout_seconds: 2, interval_seconds: 5}\n",
	  1,
	  "r.yaml:14:16: services[1].readiness: interval_seconds (5) is longer than timeout_seconds "
	  "(2); the probe would run once at most" },
	{ "generic service needs a command", SG_ROLES MASTER "  - name: g\n", 1,
	  "r.yaml:12:5: services[1]: a generic service needs a 'command' (the argv to run)" },
	{ "srt-slurm service type srtctl does not run",
	  SG_ROLES MASTER "  - name: e\n    type: gms\n", 1,
	  "r.yaml:13:11: services[1].type: service type 'gms' (vLLM's GPU memory service for "
	  "engine.failover) is not supported by srtctl; remove it and engine.failover" },
	{ "etcd's start phase",
	  SG_ROLES MASTER "  - name: e\n    type: etcd\n    start: with_workers\n", 1,
	  "r.yaml:14:12: services[1].start: etcd must run before the workers that register with "
	  "it; write 'start: infra' (or remove 'start')" },
	{ "the infra phase is the discovery plane's",
	  SG_ROLES MASTER "  - name: g\n    command: [x]\n    start: infra\n", 1,
	  "r.yaml:14:12: services[1].start: the infra phase is etcd's and NATS's; write 'start: "
	  "before_workers'" },
	{ "a donor without TRT-LLM's pool",
	  SG_ROLES MASTER "  - name: d\n    type: mooncake-donor\n", 1,
	  "r.yaml:12:5: services[1]: a mooncake-donor lends memory to TRT-LLM's own pool: it "
	  "needs engine trtllm and a mooncake-master service that srtctl launches (engine is "
	  "sglang)" },
	{ "unknown service type", SG_ROLES MASTER "  - name: e\n    type: webserver\n", 1,
	  "r.yaml:13:11: services[1].type: service type 'webserver' is not supported by srtctl; "
	  "expected mooncake-master, mooncake-store, mooncake-donor, etcd, nats, lmcache-server, "
	  "ray or generic (with a command)" },
	{ "roles name the engine",
	  "name: r\nroles:\n  prefill: {engine: sglang}\n  decode: {engine: sglang}\n", 0, NULL },
	{ "roles name different engines",
	  "name: r\nroles:\n  prefill: {engine: sglang}\n  decode: {engine: {type: vllm}}\n", 1,
	  "r.yaml:4:27: roles.decode.engine.type: 'vllm' differs from roles.prefill.engine "
	  "'sglang': srtctl runs one engine per recipe" },
	{ "a role's engine srtctl does not run",
	  "name: r\nengine: vllm\nroles:\n  prefill: {}\n  decode: {engine: atom}\n", 1,
	  "r.yaml:5:20: roles.decode.engine: engine 'atom' is not supported by srtctl; use sglang, "
	  "vllm or trtllm" },
	{ "TileRT prefill/decode", TILERT_Y, 0, NULL },
	{ "TileRT only decodes",
	  "name: r\nroles:\n  prefill: {engine: tilert}\n  decode: {engine: tilert}\n"
	  "frontend: {type: tilert-router}\n",
	  -1,
	  "r.yaml:3:21: roles.prefill.engine: engine 'tilert' (TileRT's decode server) runs only as "
	  "roles.decode.engine, beside a prefill role with engine vllm and frontend.type: "
	  "tilert-router (srt-slurm's TileRT prefill/decode)" },
	{ "TileRT behind its router",
	  "name: r\nroles:\n  prefill: {engine: vllm}\n  decode: {engine: tilert}\n"
	  "frontend: {type: vllm-router}\n",
	  -1,
	  "r.yaml:4:20: roles.decode.engine: TileRT decode workers are reached through TileRT's "
	  "router: write frontend.type: tilert-router (it is 'vllm-router')" },
	{ "the router needs TileRT decode",
	  "name: r\nengine: vllm\nroles:\n  prefill: {}\n  decode: {}\n"
	  "frontend: {type: tilert-router}\n",
	  1,
	  "r.yaml:6:18: frontend.type: tilert-router requires a TileRT decode engine: write "
	  "roles.decode.engine: tilert (beside a vLLM prefill role)" },
	{ "TileRT's prefill is vLLM",
	  "name: r\nroles:\n  prefill: {engine: sglang}\n  decode: {engine: tilert}\n"
	  "frontend: {type: tilert-router}\n",
	  -1,
	  "r.yaml:3:12: roles.prefill.engine: tilert-router requires vLLM prefill with "
	  "TileRTConnector: write roles.prefill.engine: vllm (it is sglang)" },
	{ "one TileRT prefill worker",
	  "name: r\nroles:\n  prefill: {engine: vllm, workers: 2, nodes: 2}\n"
	  "  decode: {engine: tilert}\nfrontend: {type: tilert-router}\n",
	  1,
	  "r.yaml:4:20: roles: TileRT router requires exactly one prefill worker and at least one "
	  "decode worker (no agg role); this recipe has several prefill workers" },
	{ "TileRT decode fits a node",
	  "name: r\nresources: {gpus_per_node: 8}\nroles:\n  prefill: {engine: vllm}\n"
	  "  decode: {engine: tilert, gpus: 16}\nfrontend: {type: tilert-router}\n",
	  -1,
	  "r.yaml:5:11: roles.decode: TileRT decode workers must fit on one node "
	  "(resources.gpus_per_node is 8); give each at most 8 GPUs" },
	{ "TileRT's own flags",
	  "name: r\nroles:\n  prefill: {engine: vllm}\n  decode:\n    engine: tilert\n"
	  "    args:\n      model: glm5\n      ctrl_port: 1\nfrontend: {type: tilert-router}\n",
	  1,
	  "r.yaml:8:7: roles.decode.args.ctrl_port: TileRT arguments are owned by srtctl: "
	  "['ctrl-port'] (srtctl passes --engine tilert, --http-port and --ctrl-port itself); "
	  "remove them" },
	{ "the TileRT router's own flags",
	  "name: r\nroles:\n  prefill: {engine: vllm}\n  decode: {engine: tilert}\n"
	  "frontend: {type: tilert-router, args: {decode: x, port: 1}}\n",
	  1,
	  "r.yaml:5:40: frontend.args.decode: frontend.args cannot override srtctl-managed TileRT "
	  "router argument(s): ['decode', 'port'] (srtctl passes the prefill URL, the decode "
	  "workers, host 0.0.0.0 and frontend.port); remove them" },
	{ "TileRT's served name",
	  "name: r\nroles:\n  prefill: {engine: vllm, args: {served-model-name: a}}\n"
	  "  decode: {engine: {type: tilert, served_model_name: b}}\nfrontend: {type: "
	  "tilert-router}\n",
	  1,
	  "r.yaml:4:54: roles.decode.engine.served_model_name: TileRT served_model_name must "
	  "match the prefill served-model-name ('a')" },
	{ "master placement on workers", SG_ROLES MASTER "    placement: {node: workers}\n", 1,
	  "r.yaml:12:23: services[0].placement.node: the mooncake master runs once, on the infra "
	  "node: placement.node must be infra (the default) or dedicated, not workers" },
	{ "dedicated is for the master",
	  SG_ROLES MASTER "  - name: g\n    command: [x]\n"
			  "    placement: {node: dedicated}\n",
	  1,
	  "r.yaml:14:23: services[1].placement.node: 'dedicated' reserves the infra node for the "
	  "mooncake master, etcd and nats; other services use head, infra, prefill, decode, agg "
	  "or workers" },
	{ "service names are file-safe", SG_ROLES MASTER "  - name: 'a b'\n    command: [x]\n", 1,
	  "r.yaml:12:11: services[1].name: 'a b' is not a valid name: it contains ' '; " NAME_RULE
	  " (it names the service's log file and SLURM step)" },
	/* Issue #12 item 9: one name rule for recipes and services. */
	RECIPE_NAME_CASE("''", "''", "", "it is empty"),
	RECIPE_NAME_CASE("'.'", ".", ".", "it starts with '.'"),
	RECIPE_NAME_CASE("'..'", "..", "..", "it contains '..'"),
	RECIPE_NAME_CASE("'a..b'", "a..b", "a..b", "it contains '..'"),
	RECIPE_NAME_CASE("'-rf'", "-rf", "-rf", "it starts with '-'"),
	RECIPE_NAME_CASE("'-'", "'-'", "-", "it starts with '-'"),
	RECIPE_NAME_CASE("ending in '_'", "run_", "run_", "it ends with '_'"),
	RECIPE_NAME_CASE("with a newline", "\"a\\nb\"", "a\nb", "it contains \\x0a"),
	RECIPE_NAME_CASE("of 129 characters", NAME129, NAME129, "it is longer than 128 characters"),
	{ "recipe name of 128 characters", "name: " NAME128 "\n" SG_ROLES, 0, NULL },
	{ "srt-slurm style names are valid",
	  "name: DeepSeek-R1_fp8.1k1k-1P2D\n" SG_ROLES
	  "services:\n  - name: Side_car.v2-A\n    command: [x]\n",
	  0, NULL },
	/* Issue #12 item 12. */
	{ "readiness.http.path with a space",
	  AGG_Y GEN_SVC "    readiness: {http: {port: 9000, path: '/a b'}}\n", 1,
	  "r.yaml:7:42: services[0].readiness.http.path: must be an absolute path of printable "
	  "ASCII without spaces, at most 512 characters (e.g. /health): it goes into the probe's "
	  "HTTP request line" },
	{ "readiness.http.path with CR LF",
	  AGG_Y GEN_SVC "    readiness: {http: {port: 9000, path: \"/health\\r\\nHost: x\"}}\n", 1,
	  "r.yaml:7:42: services[0].readiness.http.path: must be an absolute path of printable "
	  "ASCII without spaces, at most 512 characters (e.g. /health): it goes into the probe's "
	  "HTTP request line" },
	{ "readiness.http.path of 513 characters",
	  AGG_Y GEN_SVC "    readiness: {http: {port: 9000, path: /" NAME128 NAME128 NAME128 NAME128
			"}}\n",
	  1, NULL },
	{ "readiness.http.path with a query is valid",
	  AGG_Y GEN_SVC "    readiness: {http: {port: 9000, path: '/v1/health?ready=1'}}\n", 0,
	  NULL },
	{ "an integer past 64 bits names the range",
	  AGG_Y "resources: {gpus_per_node: 99999999999999999999}\n", 1,
	  "r.yaml:4:28: resources.gpus_per_node: must be between 1 and 1024, not "
	  "99999999999999999999" },
	{ "a negative integer past 64 bits names the range",
	  AGG_Y "slurm: {max_attempts: -99999999999999999999}\n", 1,
	  "r.yaml:4:23: slurm.max_attempts: must be between 1 and 100, not -99999999999999999999" },
	{ "a directive for the node count", AGG_Y "slurm: {directives: {nodes: 100}}\n", 1,
	  "r.yaml:4:22: slurm.directives.nodes: srtctl sets the node count itself, from "
	  "roles.<role>.nodes (plus a node for a mooncake-master with placement.node: dedicated); "
	  "remove this directive (it would give the job a second, conflicting value)" },
	{ "a short directive for the job name", AGG_Y "sbatch_directives: {-J: other}\n", 1,
	  "r.yaml:4:21: sbatch_directives.-J: srtctl sets the job name itself, from the recipe's "
	  "'name' (the controller adds -<generation>-<attempt>); remove this directive (it would "
	  "give the job a second, conflicting value)" },
	{ "a directive for the output file", AGG_Y "sbatch_directives: {output: x.out}\n", 1,
	  "r.yaml:4:21: sbatch_directives.output: srtctl sets the job's output file itself, from "
	  "the run directory (<run dir>/agent-%j.out; process logs go to the log directory); "
	  "remove this directive (it would give the job a second, conflicting value)" },
	{ "directives for time, ntasks, comment, exclusive",
	  AGG_Y "slurm: {directives: {time: '10', ntasks: 8, comment: c, exclusive: ''}}\n", 4,
	  "r.yaml:4:57: slurm.directives.exclusive: srtctl sets node exclusivity itself, from "
	  "slurm.exclusive (true by default; the cluster config's use_exclusive_sbatch_directive "
	  "sets the default); remove this directive (it would give the job a second, conflicting "
	  "value)" },
	{ "a directive srtctl cannot send", AGG_Y "sbatch_directives: {begin: now+1h}\n", 1,
	  "r.yaml:4:21: sbatch_directives.begin: srtctl cannot pass the sbatch option --begin to "
	  "SLURM: slurmrestd does not read #SBATCH lines, and srtctl sends only the options it "
	  "maps to job description fields (constraint, cpus-per-gpu, cpus-per-task, dependency, "
	  "exclude, gpus, gpus-per-node, gres, mail-type, mail-user, mem, "
	  "mem-per-cpu, mem-per-gpu, no-requeue, nodelist, qos, requeue, reservation, segment, switches); "
	  "remove it, or ask for it to be added to that table (slurm/directives.c)" },
	{ "a memory size that is not one", AGG_Y "sbatch_directives: {mem: 16GB}\n", 1,
	  "r.yaml:4:21: sbatch_directives.mem: directive --mem: '16GB' is not a memory size (a "
	  "whole number with an optional unit K, M, G or T; M by default)" },
	{ "a count that is not one", AGG_Y "sbatch_directives: {c: '0'}\n", 1,
	  "r.yaml:4:21: sbatch_directives.c: directive --cpus-per-task: '0' is not a whole number "
	  "of at least 1" },
	{ "a flag with a value", AGG_Y "sbatch_directives: {requeue: 'yes'}\n", 1,
	  "r.yaml:4:21: sbatch_directives.requeue: directive --requeue: 'yes' is not valid: the "
	  "option takes no value (write it with an empty value or null)" },
	{ "two memory directives", AGG_Y "sbatch_directives: {mem: 1G, mem-per-cpu: '100'}\n", 1,
	  "r.yaml:4:30: sbatch_directives.mem-per-cpu: --mem and --mem-per-cpu both set the job's "
	  "mem/mem-per-cpu/mem-per-gpu: keep one (SLURM takes one of mem/mem-per-cpu/mem-per-gpu)" },
	{ "gres and gpus-per-node across both maps",
	  AGG_Y "slurm: {directives: {gres: 'gpu:4'}}\nsbatch_directives: {gpus-per-node: '4'}\n",
	  1,
	  "r.yaml:5:21: sbatch_directives.gpus-per-node: --gres and --gpus-per-node both set the "
	  "job's gpus-per-node/gres: keep one (SLURM takes one of gpus-per-node/gres)" },
	{ "directives srtctl does not set are kept",
	  AGG_Y "sbatch_directives: {mem: '0', cpus-per-gpu: '16', gres: 'gpu:4', x: 'n[1-2]', "
		"mail-type: 'end,fail', no-requeue: null, segment: '2', C: 'a&b'}\n",
	  0, NULL },
	{ "variant names generated from a srt-slurm style base are valid",
	  "base:\n  name: B200_fp8.v1\n  engine: sglang\n  roles:\n    agg: {}\n"
	  "zip_override_STP-lowlat:\n  roles:\n    agg:\n      workers: [1, 2]\n",
	  0, NULL },
	{ "service name '..'", SG_ROLES MASTER "  - name: ..\n    command: [x]\n", 1,
	  "r.yaml:12:11: services[1].name: '..' is not a valid name: it contains '..'; " NAME_RULE
	  " (it names the service's log file and SLURM step)" },
	{ "service name '-rf'", SG_ROLES MASTER "  - name: -rf\n    command: [x]\n", 1,
	  "r.yaml:12:11: services[1].name: '-rf' is not a valid name: it starts with '-'; " NAME_RULE
	  " (it names the service's log file and SLURM step)" },
	{ "restart policy", SG_ROLES MASTER "    restart: {policy: sometimes}\n", 1,
	  "r.yaml:12:23: services[0].restart.policy: unknown restart policy 'sometimes'; expected "
	  "never, on-failure or always" },
	{ "schema 1", "schema: 1\nengine: sglang\nroles:\n  agg: {}\n", 1,
	  "r.yaml:1:9: schema: schema 1 is not supported; srtctl reads schema 2 (the v2 layout). For "
	  "a v1 recipe run: srtctl migrate -f r.yaml" },
	{ "v1 layout names migrate", "name: x\nbackend:\n  type: sglang\n", 1,
	  "r.yaml:2:1: backend: this recipe uses the v1 layout ('backend:'); srtctl reads the v2 "
	  "layout (engine, roles, services). Convert it with: srtctl migrate -f r.yaml --in-place" },
	{ "store_config must be a mapping",
	  VLLM_ROLES MASTER "    options:\n      store_config: x\n", -1,
	  "r.yaml:13:21: services[0].options.store_config: must be a mapping of MooncakeStoreConfig "
	  "fields, not a string" },
	{ "TRT-LLM over Dynamo, one MPI rank per GPU, is valid",
	  "engine: trtllm\nresources: {gpus_per_node: 4}\nroles:\n"
	  "  prefill: {gpus: 2, args: {tensor_parallel_size: 2}}\n"
	  "  decode: {nodes: 2, gpus: 8, args: {tensor_parallel_size: 4, pipeline_parallel_size: 2}}\n"
	  "frontend: {type: dynamo}\n",
	  0, NULL },
	{ "TRT-LLM's world size is the worker's GPUs",
	  "engine: trtllm\nresources: {gpus_per_node: 4}\nroles:\n"
	  "  agg: {gpus: 4, args: {tensor_parallel_size: 2}}\n",
	  1,
	  "r.yaml:4:24: roles.agg.args: tensor_parallel_size x pipeline_parallel_size x "
	  "context_parallel_size is 2, but the worker runs 4 MPI ranks (one per GPU: roles.gpus); "
	  "TRT-LLM needs them equal: set roles.agg.gpus to 2 or change the parallel sizes" },
	{ "TRT-LLM's parallel sizes are positive integers",
	  "engine: trtllm\nroles:\n  agg: {args: {tensor_parallel_size: four}}\n", 1,
	  "r.yaml:3:38: roles.agg.args.tensor_parallel_size: must be a positive integer" },
	{ "a TRT-LLM worker over nodes has as many ranks on each",
	  "engine: trtllm\nresources: {gpus_per_node: 4}\nroles:\n"
	  "  agg: {nodes: 2, gpus: 6, args: {tensor_parallel_size: 6}}\n",
	  1,
	  "r.yaml:4:8: roles.agg.gpus: a TRT-LLM worker over several nodes runs the same number of "
	  "MPI ranks on each (one per GPU), so its 6 GPUs must be a multiple of "
	  "resources.gpus_per_node (4)" },
	{ "TRT-LLM's launcher flags are srtctl's",
	  "engine: trtllm\nroles:\n  agg: {gpus: 4, args: {tensor_parallel_size: 4}, "
	  "extra_args: [--extra-engine-args, x.yaml]}\n"
	  "frontend: {type: dynamo}\n",
	  1,
	  "r.yaml:3:64: roles.agg.extra_args[0]: '--extra-engine-args' sets --extra-engine-args, which srtctl "
	  "owns: srtctl writes the role's args as the engine's YAML file and passes it. Remove it" },
	{ "TRT-LLM on the native master: a client config per role", TRT_MC MASTER, 0, NULL },
	{ "TRT-LLM client sizes are binary", TRT_MC TRT_STORE("global_segment_size: 16GB"), 1,
	  "r.yaml:19:43: services[0].options.store_config.global_segment_size: global_segment_size "
	  "'16GB': 'GB' is refused: TRT-LLM reads the Mooncake client config in binary units only "
	  "(B, KiB, MiB, GiB, TiB); write e.g. \"16GiB\"" },
	{ "TRT-LLM local buffer of 0", TRT_MC TRT_STORE("local_buffer_size: 0"), 1,
	  "r.yaml:19:41: services[0].options.store_config.local_buffer_size: local_buffer_size "
	  "must be at least 1 bytes" },
	{ "TRT-LLM size that is not finite", TRT_MC TRT_STORE("global_segment_size: .inf"), 1,
	  "r.yaml:19:43: services[0].options.store_config.global_segment_size: global_segment_size "
	  "must be a finite size" },
	{ "TRT-LLM transfer_batch_size is read with int()",
	  TRT_MC TRT_STORE("transfer_batch_size: '64', stage_through_host: 1"), 0, NULL },
	{ "TRT-LLM stage_through_host as a string",
	  TRT_MC TRT_STORE("transfer_batch_size: lots, stage_through_host: 'false'"), 2,
	  "r.yaml:19:69: services[0].options.store_config.stage_through_host: stage_through_host "
	  "must be true or false, not the string 'false': TRT-LLM reads any non-empty string as "
	  "true" },
	{ "the donor's segment_size in a client config", TRT_MC TRT_STORE("segment_size: 160GiB"),
	  1,
	  "r.yaml:19:22: services[0].options.store_config.segment_size: 'segment_size' is the "
	  "donor's option; the client config lends memory through global_segment_size: set "
	  "global_segment_size" },
	{ "a key of TRT-LLM's own pool in a client config", TRT_MC TRT_STORE("run_dir: /logs/mc"),
	  1,
	  "r.yaml:19:22: services[0].options.store_config.run_dir: 'run_dir' configures TRT-LLM "
	  "launching a pool of its own (args.kv_connector_config.mooncake_store), not the client "
	  "config srtctl renders for its mooncake-master; remove it" },
	{ "a role's client role is one of four",
	  "name: r\nengine: trtllm\nresources: {gpus_per_node: 4}\nroles:\n" TRT_MC_ROLE("prefill")
		  TRT_MC_ROLE("decode") "    mooncake_store_config: {role: ' Capacity '}\n" MASTER,
	  0, NULL },
	{ "a donor role is not a client role",
	  TRT_MC "    mooncake_store_config: {role: donor}\n" MASTER, 1,
	  "r.yaml:15:35: roles.decode.mooncake_store_config.role: role must be both, producer, "
	  "consumer or capacity, not 'donor' (a server that only lends memory is 'capacity')" },
	{ "the pool's protocol is one",
	  TRT_MC "    mooncake_store_config: {protocol: tcp}\n" TRT_STORE("protocol: rdma"), 1,
	  "r.yaml:15:39: roles.decode.mooncake_store_config: protocol must be the same for every "
	  "server of the pool (roles.prefill: 'rdma', roles.decode: 'tcp'); set it once in the "
	  "mooncake-master's options.store_config" },
	{ "a TRT-LLM master nobody uses",
	  "name: r\nengine: trtllm\nroles:\n  agg: {gpus: 4, args: {tensor_parallel_size: 4}}\n" MASTER,
	  1,
	  "r.yaml:6:5: services[0]: a mooncake-master service is configured but no roles: no "
	  "TRT-LLM role's args.kv_connector_config selects the mooncake-store connector, so "
	  "nothing uses the master. Add 'kv_connector_config: {connector: mooncake-store}' to "
	  "roles.prefill.args and roles.decode.args, or remove the service." },
	{ "the connector with no client config to find", TRT_MC, 2,
	  "r.yaml:13:7: roles.decode.args.kv_connector_config: selects TRT-LLM's mooncake-store "
	  "connector, but the role's ranks would not find a Mooncake client config: add a "
	  "mooncake-master service (srtctl then renders one per role and sets "
	  "MOONCAKE_CONFIG_PATH), or set MOONCAKE_CONFIG_PATH in roles.decode.env to a config of "
	  "your own" },
	{ "a client config of the recipe's own",
	  "environment: {MOONCAKE_CONFIG_PATH: /d/mc.json}\n" TRT_MC, 0, NULL },
	{ "a role's client keys need the master",
	  TRT_MC "    mooncake_store_config: {global_segment_size: 1GiB}\n"
		 "    env: {MOONCAKE_CONFIG_PATH: /d/mc.json}\n",
	  2,
	  "r.yaml:15:28: roles.decode.mooncake_store_config: roles.decode.mooncake_store_config "
	  "needs a mooncake-master service: without one srtctl renders no client config and these "
	  "keys would be dropped; add the service, or remove the key" },
	{ "a mooncake_store block beside the master: TRT-LLM's own pool",
	  "name: r\nengine: trtllm\nroles:\n  agg:\n    gpus: 4\n    args:\n"
	  "      tensor_parallel_size: 4\n      kv_connector_config:\n"
	  "        connector: mooncake-store\n        mooncake_store: {protocol: rdma}\n" MASTER,
	  0, NULL },
	{ "TRT-LLM's pool: master options, a donor, the master with the workers", TRT_POOL, 0,
	  NULL },
	{ "pool options with another engine",
	  SG_ROLES MASTER "    options: {eviction_ratio: 0.1}\n", 1,
	  "r.yaml:12:14: services[0].options: eviction_ratio, master_timeout_s and store_role are "
	  "options of TRT-LLM's own pool (trtllm-serve mooncake_master), which runs with engine "
	  "trtllm and a master srtctl launches; engine sglang runs the upstream mooncake_master: "
	  "remove them" },
	{ "eviction_ratio out of (0, 1)", TRT_POOL_WITH("eviction_ratio: 1", "size: 4GiB"), 1,
	  "r.yaml:21:31: services[0].options.eviction_ratio: must be a number between 0 and 1, "
	  "exclusive (the share of the pool the master evicts when it is full; default 0.05), "
	  "not 1" },
	{ "a store role TRT-LLM's pool does not have",
	  TRT_POOL_WITH("store_role: capacity", "size: 4GiB"), 1,
	  "r.yaml:21:27: services[0].options.store_role: 'capacity' is not a store role of "
	  "TRT-LLM's pool; write both, producer or consumer" },
	{ "a donor without a size", TRT_POOL_WITH("master_timeout_s: 900", "protocol: rdma"), 1,
	  "r.yaml:24:14: services[1].options: the donor needs options.size: the memory it "
	  "lends to the pool (for example 640GiB)" },
	{ "a donor on another transport than the pool's",
	  TRT_POOL_WITH("master_timeout_s: 900", "size: 4GiB, protocol: tcp"), 1,
	  "r.yaml:24:37: services[1].options.protocol: the donor lends over 'tcp' but the "
	  "prefill workers' pool "
	  "(roles.prefill.args.kv_connector_config.mooncake_store.protocol) uses 'rdma'; one "
	  "pool has one transport: make them the same" },
	{ "a donor on the prefill nodes", TRT_POOL "    placement: {node: prefill}\n", 1,
	  "r.yaml:22:5: services[1].placement: a mooncake-donor runs on the decode nodes "
	  "(placement: {node: decode}), where memory is free to lend; not on the prefill nodes" },
	{ "srtctl's client config keys in TRT-LLM's pool",
	  TRT_POOL_WITH("master_timeout_s: 900, store_config: {protocol: rdma}", "size: 4GiB"), 1,
	  "r.yaml:21:52: services[0].options.store_config: TRT-LLM's pool commands render the "
	  "client config themselves from each role's args.kv_connector_config.mooncake_store; "
	  "put these keys there, or drop the pool options (and donors) to run the upstream "
	  "master with srtctl's client configs" },
	{ "a readiness file outside the log directory",
	  TRT_POOL "    readiness: {file: {path: ../x.ready}}\n", 1,
	  "r.yaml:25:30: services[1].readiness.file.path: '../x.ready' must be a file inside "
	  "the job's log directory: a relative path (or one under /logs, where containers see "
	  "that directory) without '..', '//' or a trailing '/', of printable characters, at "
	  "most 512 bytes (e.g. mooncake/donor-{node}.ready); srtctl removes it before each "
	  "start" },
	{ "a readiness file under /logs is the log directory's",
	  TRT_POOL "    readiness:\n      file: {path: '/logs/mooncake/d-{node}.ready'}\n"
		   "      timeout_seconds: 900\n",
	  0, NULL },
	{ "two services' file probes hold no port",
	  AGG_Y "services:\n  - name: a\n    command: [x]\n    readiness: {file: {path: a.ready}}\n"
		"  - name: b\n    command: [y]\n    readiness: {file: {path: b.ready}}\n",
	  0, NULL },
	{ "a log readiness probe",
	  AGG_Y
	  "services:\n  - name: a\n    command: [x]\n    readiness:\n"
	  "      log: {pattern: 'All [0-9]+ daemons (on|at) node 0 are ready$'}\n"
	  "  - name: b\n    command: [y]\n    readiness: {log: {pattern: '^Ray runtime started'}}\n",
	  0, NULL },
	{ "a log pattern in Python's dialect",
	  AGG_Y "services:\n  - name: a\n    command: [x]\n    readiness:\n"
		"      log: {pattern: 'All \\d+ ready'}\n",
	  1,
	  "r.yaml:8:22: services[0].readiness.log.pattern: 'All \\d+ ready': a backslash before "
	  "a letter or digit (\\d, \\s, \\w, \\b, \\1) means something else in POSIX regular "
	  "expressions than in Python's; write a bracket expression: [0-9], [[:space:]], "
	  "[[:alnum:]_]" },
	{ "a log pattern that is no regular expression",
	  AGG_Y
	  "services:\n  - name: a\n    command: [x]\n    readiness: {log: {pattern: 'a(b'}}\n",
	  1,
	  "r.yaml:7:32: services[0].readiness.log.pattern: 'a(b': it is not a valid POSIX extended "
	  "regular expression" },
	{ "the master starts with the workers only for TRT-LLM's pool",
	  SG_ROLES MASTER "    start: with_workers\n", 1,
	  "r.yaml:12:12: services[0].start: the mooncake master must start before_workers: "
	  "workers connect to it at startup" },
	{ "another connector module is not Mooncake's",
	  "name: r\nengine: trtllm\nroles:\n  agg:\n    gpus: 4\n    args:\n"
	  "      tensor_parallel_size: 4\n      kv_connector_config:\n"
	  "        connector: mooncake-store\n        connector_module: my.connector\n" MASTER,
	  1, NULL },
	{ "client keys on a role without the connector",
	  "name: r\nengine: trtllm\nresources: {gpus_per_node: 4}\nroles:\n" TRT_MC_ROLE(
		  "prefill") "  decode:\n    gpus: 1\n    args: {tensor_parallel_size: 1}\n"
			     "    mooncake_store_config: {role: both}\n" MASTER,
	  1,
	  "r.yaml:13:28: roles.decode.mooncake_store_config: roles.decode.mooncake_store_config is "
	  "set, but roles.decode.args.kv_connector_config does not select the mooncake-store "
	  "connector, so its workers read no Mooncake client config; add {connector: "
	  "mooncake-store} or remove the key" },
	{ "client keys are TRT-LLM's",
	  "name: r\nengine: vllm\nroles:\n  agg:\n    mooncake_store_config: {protocol: tcp}\n", 1,
	  "r.yaml:5:28: roles.agg.mooncake_store_config: roles.agg.mooncake_store_config is read by "
	  "TRT-LLM only (its mooncake-store connector's client config); with engine vllm configure "
	  "Mooncake through the mooncake-master's options.store_config" },
	{ "trtllm_serve serves one aggregated TRT-LLM worker",
	  "engine: trtllm\nroles:\n  agg: {gpus: 4, args: {tensor_parallel_size: 4}}\n"
	  "frontend: {type: trtllm_serve}\n",
	  0, NULL },
	{ "trtllm_serve is TRT-LLM's direct frontend", AGG_Y "frontend: {type: trtllm_serve}\n", 1,
	  "r.yaml:4:18: frontend.type: 'trtllm_serve' is the direct frontend of trtllm, but the "
	  "engine is sglang; write 'type: sglang'" },
	{ "Dynamo's frontend over the mocker",
	  "engine: mocker\nroles:\n  agg: {}\nfrontend: {type: dynamo}\n", 0, NULL },
	{ "a Ray cluster on a pool of its own", POOLS_Y "  - {name: train, type: ray, nodes: 2}\n",
	  0, NULL },
	{ "a service rides a pool",
	  POOLS_Y "  - {name: train, type: ray, nodes: 2}\n"
		  "  - {name: env, command: [x], placement: {pool: train}}\n",
	  0, NULL },
	{ "a pool nobody owns",
	  POOLS_Y "  - {name: train, type: ray, nodes: 2}\n"
		  "  - {name: env, command: [x], placement: {pool: trian}}\n",
	  1,
	  "r.yaml:5:49: services[1].placement.pool: 'trian' names no service that owns nodes "
	  "(pools: train); give that service 'nodes: N', or name one of the pools" },
	{ "a pool whose owner is off",
	  POOLS_Y "  - {name: train, type: ray, nodes: 2, enabled: false}\n"
		  "  - {name: env, command: [x], placement: {pool: train}}\n",
	  1,
	  "r.yaml:5:49: services[1].placement.pool: pool 'train' is not allocated: its owner "
	  "(services[0]) has enabled: false; enable it or disable this service too" },
	{ "an owner rides no other pool",
	  POOLS_Y "  - {name: a, command: [x], nodes: 1}\n"
		  "  - {name: b, command: [x], nodes: 1, placement: {pool: a}}\n",
	  1,
	  "r.yaml:5:57: services[1].placement.pool: service 'b' owns nodes (nodes: 1) and runs on "
	  "them; it cannot also ride on the pool of 'a'; remove one of the two" },
	{ "an owner runs on its pool",
	  POOLS_Y "  - {name: a, command: [x], nodes: 1, placement: {node: head}}\n", 1,
	  "r.yaml:4:57: services[0].placement.node: service 'a' owns nodes (nodes: 1) and runs on "
	  "them; remove placement.node 'head' (or write workers)" },
	{ "pool and node together",
	  POOLS_Y "  - {name: a, command: [x], nodes: 1}\n"
		  "  - {name: b, command: [x], placement: {pool: a, node: head}}\n",
	  1,
	  "r.yaml:5:47: services[1].placement.pool: placement.pool replaces placement.node (the "
	  "service runs on every node of that pool); write one of them" },
	{ "at least one node", POOLS_Y "  - {name: a, command: [x], nodes: 0}\n", 1, NULL },
	{ "ray builds its own command",
	  POOLS_Y "  - {name: train, type: ray, nodes: 2, command: [ray, start]}\n", -1,
	  "r.yaml:4:5: services[0].command: a ray service's commands are srtctl's (`ray start "
	  "--head` on the first node, `ray start --address` on the others); pass extra flags in "
	  "'args' and ports in 'options'" },
	{ "ray owns whole nodes",
	  SG_ROLES MASTER "  - {name: train, type: ray, placement: {node: decode}}\n", 1,
	  "r.yaml:12:48: services[1].placement.node: a ray service owns whole nodes: place it on "
	  "workers, head or a pool (nodes: N), not 'decode'" },
	{ "ray's two ports differ",
	  POOLS_Y "  - {name: train, type: ray, nodes: 1, options: {port: 7000, dashboard_port: "
		  "7000}}\n",
	  1,
	  "r.yaml:4:49: services[0].options: the ray service's GCS port and dashboard_port are "
	  "both 7000; give them different ports" },
	{ "ray's options", POOLS_Y "  - {name: train, type: ray, nodes: 1, options: {ports: 1}}\n",
	  -1, NULL },
	/* srt-slurm's public mlperf recipe mounts the model again for its benchmark image */
	{ "the model mounted again at /model",
	  "model: {path: /m/r1}\nextra_mount: ['/m/r1/:/model:ro']\n" AGG_Y, 0, NULL },
	{ "another source at /model",
	  "model: {path: /m/r1}\ncontainer_mounts: {/m/other: /model}\n" AGG_Y, 1,
	  "r.yaml:2:30: container_mounts./m/other: '/m/other:/model': srtctl mounts the model "
	  "(model.path /m/r1) at /model, and another source there would hide it: choose another "
	  "destination, or mount model.path itself" },
	{ "empty file", "", 1,
	  "r.yaml: the file is empty; a recipe needs at least 'engine', 'roles' and 'services' (see "
	  "docs/recipe-reference.md)" },
};

static bool run_case(const struct vcase *vc)
{
	struct srt_cluster cluster;
	struct srt_compiled comp;
	struct srt_diags d;
	size_t nerr;
	bool found = vc->want == NULL;

	srt_cluster_defaults(&cluster);
	srt_diags_init(&d);
	nerr = srt_compile_bytes(vc->yaml, strlen(vc->yaml), "r.yaml", &cluster, &comp, &d);
	for (size_t i = 0; i < d.n; i++) {
		char *s = srt_diag_format(&d.items[i]);

		if (vc->want && !strcmp(s, vc->want))
			found = true;
		free(s);
	}
	if (!found || (vc->nerrors >= 0 && nerr != (size_t)vc->nerrors) ||
	    (vc->nerrors < 0 && nerr == 0)) {
		fprintf(stderr, "case '%s': %zu error(s), want %d; diagnostics:\n", vc->name, nerr,
			vc->nerrors);
		srt_diags_print(&d, stderr);
		if (vc->want)
			fprintf(stderr, "wanted:\n%s\n", vc->want);
		found = false;
	} else {
		found = true;
	}
	srt_compiled_release(&comp);
	srt_diags_release(&d);
	return found;
}

static void test_rules(void **state)
{
	size_t failed = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!run_case(&cases[i]))
			failed++;
	assert_int_equal(failed, 0);
}

/* Every YAML example in the seed spec validates as written. */
static void test_seed_examples(void **state)
{
	static const char *const files[] = { "seed-01.yaml", "seed-02.yaml", "seed-03.yaml",
					     "seed-04.yaml", "seed-05.yaml", "seed-06.yaml",
					     "seed-07.yaml", "seed-08.yaml", "seed-09.yaml",
					     "seed-11.yaml", "seed-12.yaml", NULL };
	struct srt_cluster cluster;

	(void)state;
	srt_cluster_defaults(&cluster);
	for (size_t i = 0; files[i]; i++) {
		char path[1024];
		struct srt_compiled comp;
		struct srt_diags d;
		size_t nerr;

		snprintf(path, sizeof(path), "%s/tests/data/seed/%s", SRT_SOURCE_DIR, files[i]);
		srt_diags_init(&d);
		nerr = srt_compile_file(path, &cluster, &comp, &d);
		if (nerr) {
			srt_diags_print(&d, stderr);
			fail_msg("%s does not validate", files[i]);
		}
		assert_int_equal(comp.n, 1);
		srt_compiled_release(&comp);
		srt_diags_release(&d);
	}
}

/* A generated case: the yaml is built with gen_* below and freed here. */
static bool run_generated(const char *name, char *yaml, int nerrors, const char *want)
{
	struct vcase vc = { name, yaml, nerrors, want };
	bool ok = run_case(&vc);

	free(yaml);
	return ok;
}

/* `head` + n copies of `item` (a printf format taking the index twice) + `tail`. */
static char *gen_yaml(const char *head, const char *item, size_t n, const char *tail)
{
	size_t cap = strlen(head) + strlen(tail) + n * (strlen(item) + 40) + 1, len;
	char *y = malloc(cap);

	assert_non_null(y);
	len = (size_t)snprintf(y, cap, "%s", head);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(y + len, cap - len, item, i, i);
	snprintf(y + len, cap - len, "%s", tail);
	return y;
}

#define AGG "engine: sglang\nroles:\n  agg: {}\n"
#define LIMITS_DOC " (see Limits in docs/recipe-reference.md)"

/*
 * Issue #12 item 8: what a recipe may hold is bounded, and a recipe past a
 * bound gets one error naming where, what and the limit (no wall-clock
 * assertion: the linear cost is shown by bench/bench_scale).
 */
static void test_limits(void **state)
{
	size_t failed = 0;

	(void)state;
	failed += !run_generated("100001 environment variables",
				 gen_yaml("environment:\n", "  V%zu: x%zu\n", 100001, AGG), 1,
				 "r.yaml:2:3: environment: has 100001 environment variables; a "
				 "recipe may have at most 100000" LIMITS_DOC);
	failed += !run_generated("100001 role env variables",
				 gen_yaml("engine: sglang\nroles:\n  agg:\n    env:\n",
					  "      V%zu: x%zu\n", 100001, ""),
				 1,
				 "r.yaml:5:7: roles.agg.env: has 100001 environment variables; a "
				 "recipe may have at most 100000" LIMITS_DOC);
	failed +=
		!run_generated("100001 args",
			       gen_yaml("engine: sglang\nroles:\n  agg:\n    args:\n",
					"      f%zu: %zu\n", 100001, ""),
			       1,
			       "r.yaml:5:7: roles.agg.args: has 100001 args; a recipe may have at "
			       "most 100000" LIMITS_DOC);
	failed +=
		!run_generated("100001 extra_args",
			       gen_yaml("engine: sglang\nroles:\n  agg:\n    extra_args:\n",
					"      - a%zu%zu\n", 100001, ""),
			       1,
			       "r.yaml:5:7: roles.agg.extra_args: has 100001 entries; a recipe may "
			       "have at most 100000" LIMITS_DOC);
	failed += !run_generated(
		"1001 services",
		gen_yaml(AGG "services:\n", "  - name: s%zu\n    command: [x%zu]\n", 1001, ""), 1,
		"r.yaml:5:3: services: has 1001 services; a recipe may have at most "
		"1000" LIMITS_DOC);
	failed += !run_generated(
		"1001 sbatch directives",
		gen_yaml(AGG "slurm:\n  directives:\n", "    d%zu: x%zu\n", 1001, ""), 1,
		"r.yaml:6:5: slurm.directives: brings the sbatch directives to 1001; "
		"a recipe may have at most 1000" LIMITS_DOC);
	/* At the limit: valid, and each later service on a shared port names the first. */
	failed +=
		!run_generated("1000 services on one port",
			       gen_yaml(AGG "services:\n",
					"  - name: s%zu\n    command: [x%zu]\n"
					"    readiness: {port: 9000}\n",
					1000, ""),
			       999,
			       "r.yaml:3004:16: services[999].readiness: port 9000 is also the "
			       "readiness port of 's0' (services[0]) and both can run on the same "
			       "node (head / head); give one of them another port or disjoint "
			       "placements");
	failed += !run_generated("1000 services, 1000 ports",
				 gen_yaml(AGG "services:\n",
					  "  - name: s%zu\n    command: [x]\n"
					  "    readiness: {port: 2%03zu}\n",
					  1000, ""),
				 0, NULL);
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_seed_examples),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
