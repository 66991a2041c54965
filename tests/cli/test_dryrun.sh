#!/bin/bash
# tests/cli/test_dryrun.sh: `srtctl dry-run` as a user sees it.
#
# The seed's SGLang and vLLM quick starts and the fixtures in
# tests/data/render/ are rendered in text and JSON; the assertions are on the
# env table rows (values and owners), the JSON keys, the store_config, the
# exit codes, and that the batch script is valid bash.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"

SEED=$SRT_SOURCE_DIR/tests/data/seed
DATA=$SRT_SOURCE_DIR/tests/data/render
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" # no ./srtslurm.yaml: the built-in cluster defaults apply
export SRTSLURM_CONFIG=

fails=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# expect_row FILE ROLE NAME VALUE OWNER: the text env table of ROLE has the row.
expect_row() {
	local file=$1 role=$2 name=$3 value=$4 owner=$5
	if ! awk -v sect="## Env: $role workers" '
		$0 == sect { on = 1; next }
		/^## / { on = 0 }
		on' "$file" | grep -Eq "^$name +$value +$owner"; then
		fail "$file: no '$name $value $owner' row in the $role env table"
	fi
}

# jq-like checks with python3: py JSONFILE EXPR (EXPR must be true; d is the document).
py() {
	python3 - "$1" "$2" <<'EOF' || fail "$1: $2"
import json, sys
d = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2], {"d": d})
sys.exit(0 if ok else 1)
EOF
}

# ---- SGLang quick start (text) ----
"$SRTCTL" dry-run -f "$SEED/seed-02.yaml" >sglang.txt
grep -q '^#!/bin/bash$' sglang.txt || fail "sglang: no batch script"
grep -q '^#SBATCH --nodes=2$' sglang.txt || fail "sglang: node count"
grep -q '^## Processes (the plan the agent carries out' sglang.txt || fail "sglang: no processes section"
grep -q '^## Job (what the controller submits through slurmrestd)' sglang.txt || fail "sglang: no job section"
grep -Eq '^exec srtctl agent --run-dir /.*/outputs/seed-02-1-1$' sglang.txt || fail "sglang: job.sh does not start the agent"
grep -q 'order:     start group 0, stop tier 2 (stopped last)' sglang.txt || fail "sglang: the master's start group and stop tier"
grep -q 'restart:   on-failure, at most 5 restarts' sglang.txt || fail "sglang: restart policy"
grep -Eq 'command: +mooncake_master --rpc_port=8700 --enable_http_metadata_server=true --http_metadata_server_port=8701 --metrics_port=8702$' sglang.txt ||
	fail "sglang: master command line"
grep -q 'log:       <log_dir>/service_mooncake-master.out' sglang.txt || fail "sglang: master log"
expect_row sglang.txt prefill MOONCAKE_PROTOCOL rdma 'recipe \(roles\.prefill\.env\)'
expect_row sglang.txt prefill MOONCAKE_MASTER '<infra_node_ip>:8700' 'srtctl'
expect_row sglang.txt prefill MOONCAKE_TE_META_DATA_SERVER 'http://<infra_node_ip>:8701/metadata' 'srtctl'
expect_row sglang.txt prefill MOONCAKE_LOCAL_HOSTNAME '<worker_ip>' 'srtctl'
expect_row sglang.txt decode MOONCAKE_MASTER '<infra_node_ip>:8700' 'srtctl'
grep -A2 '^## store_config' sglang.txt | grep -q '^none' || fail "sglang: store_config should be none"

# ---- SGLang quick start (JSON) ----
"$SRTCTL" dry-run -f "$SEED/seed-02.yaml" -o json >sglang.json
python3 -c 'import json,sys; json.load(sys.stdin)' <sglang.json || fail "sglang: -o json is not JSON"
py sglang.json 'all(k in d for k in ("batch_script", "services", "env", "store_config", "warnings", "plan", "job"))'
py sglang.json 'd["batch_script"].startswith("#!/bin/bash\n")'
py sglang.json 'd["job"]["name"] == "seed-02-1-1" and d["job"]["nodes"] == 2 and d["job"]["exclusive"] is True'
py sglang.json 'd["job"]["comment"] == "srtctl:<run-uid>:1" and d["job"]["standard_output"].endswith("/outputs/seed-02-1-1/agent-%j.out")'
py sglang.json 'd["store_config"] is None'
py sglang.json '[s["name"] for s in d["services"]] == ["mooncake-master"]'
py sglang.json 'd["services"][0]["type"] == "mooncake-master" and d["services"][0]["placement"] == "infra"'
py sglang.json 'd["services"][0]["argv"][1:] == ["--rpc_port=8700", "--enable_http_metadata_server=true", "--http_metadata_server_port=8701", "--metrics_port=8702"]'
py sglang.json '{"role": "prefill", "name": "MOONCAKE_MASTER", "value": "<infra_node_ip>:8700", "owner": "srtctl"}.items() <= [r for r in d["env"] if r["role"] == "prefill" and r["name"] == "MOONCAKE_MASTER"][0].items()'
py sglang.json '[r["owner"] for r in d["env"] if r["role"] == "decode" and r["name"] == "MOONCAKE_LOCAL_HOSTNAME"] == ["srtctl"]'
py sglang.json '[r["value"] for r in d["env"] if r["role"] == "decode" and r["name"] == "MOONCAKE_PROTOCOL"] == ["rdma"]'
py sglang.json 'isinstance(d["warnings"], list)'
python3 -c 'import json,sys; sys.stdout.write(json.load(sys.stdin)["batch_script"])' <sglang.json >job.sh
bash -n job.sh || fail "sglang: the batch script is not valid bash"

# ---- vLLM quick start ----
"$SRTCTL" dry-run -f "$SEED/seed-04.yaml" >vllm.txt
expect_row vllm.txt prefill MC_ENABLE_DEST_DEVICE_AFFINITY 1 'recipe \(roles\.prefill\.env\)'
expect_row vllm.txt prefill MOONCAKE_MASTER '<infra_node_ip>:8700' 'srtctl'
expect_row vllm.txt decode MOONCAKE_CONFIG_PATH '<log_dir>/mooncake/store_config.json' 'srtctl'
grep -q '"master_server_address": "<infra_node_ip>:8700"' vllm.txt || fail "vllm: store_config text"
"$SRTCTL" dry-run -f "$SEED/seed-04.yaml" -o json >vllm.json
py vllm.json 'd["store_config"]["master_server_address"] == "<infra_node_ip>:8700"'
py vllm.json 'd["store_config"]["global_segment_size"] == "100GB" and d["store_config"]["device_name"] == "mlx5_0,mlx5_1"'
py vllm.json 'list(d["store_config"])[0] == "master_server_address"'
py vllm.json '[r["owner"] for r in d["env"] if r["name"] == "MOONCAKE_CONFIG_PATH"] == ["srtctl", "srtctl"]'
py vllm.json '"MOONCAKE_CONFIG_PATH" not in [e["name"] for e in d["services"][0]["env"]]'
py vllm.json '[c["file"] for c in d["plan"]["store_configs"]] == ["<log_dir>/mooncake/store_config.json"]'
py vllm.json 'd["store_configs"][0]["config"] == d["store_config"]'

# ---- overrides and pins ----
"$SRTCTL" dry-run -f "$DATA/sglang-overrides.yaml" >over.txt
expect_row over.txt prefill MOONCAKE_MASTER '<infra_node_ip>:8700' "srtctl \(mooncake-master; overrides '10\.1\.2\.3:9999' from roles\.prefill\.env\)"
expect_row over.txt decode MOONCAKE_LOCAL_HOSTNAME '192\.168\.50\.7' 'recipe \(roles\.decode\.env\)'
expect_row over.txt prefill MOONCAKE_LOCAL_HOSTNAME '<worker_ip>' 'srtctl'
expect_row over.txt prefill SHARED_KNOB 1 'recipe \(environment\)'
grep -q 'warning: roles.prefill.env.MOONCAKE_MASTER' over.txt || fail "overrides: the no-op warning is not shown"
"$SRTCTL" dry-run -f "$DATA/sglang-overrides.yaml" -o json >over.json
py over.json '[(r["value"], r["owner"], r.get("overridden")) for r in d["env"] if r["role"] == "prefill" and r["name"] == "MOONCAKE_MASTER"] == [("<infra_node_ip>:8700", "srtctl", "10.1.2.3:9999")]'
py over.json '[(r["value"], r["owner"], r["layer"]) for r in d["env"] if r["role"] == "decode" and r["name"] == "MOONCAKE_LOCAL_HOSTNAME"] == [("192.168.50.7", "recipe", "roles.decode.env")]'
py over.json '[s["name"] for s in d["services"]] == ["mooncake-master", "store"]'
py over.json '[e["value"] for e in d["services"][1]["env"] if e["name"] == "MOONCAKE_LOCAL_HOSTNAME"] == ["<decode_node_0_ip>"]'
py over.json 'd["services"][1]["argv"][-2:] == ["--port", "8800"] and d["services"][1]["log_file"] == "service_store.out"'
py over.json 'd["services"][0]["argv"][-1] == "--eviction_high_watermark_ratio=0.9"'
py over.json 'any("MOONCAKE_MASTER" in w for w in d["warnings"])'

# ---- a variant file: one item per variant ----
"$SRTCTL" dry-run -f "$DATA/variants.yaml" -o json >var.json
py var.json 'd["kind"] == "List" and len(d["items"]) == 2'
py var.json '[i["plan"]["processes"][1]["argv"][-2:] for i in d["items"]] == [["--tp-size", "2"], ["--tp-size", "4"]]'
[[ $(grep -c '^# Recipe ' <("$SRTCTL" dry-run -f "$DATA/variants.yaml")) == 2 ]] ||
	fail "variants: the text output should show both variants"

# ---- errors ----
set +e
"$SRTCTL" dry-run -f "$DATA/invalid.yaml" >inv.out 2>inv.err
rc=$?
set -e
[[ $rc == 1 ]] || fail "invalid recipe: exit $rc, want 1"
[[ ! -s inv.out ]] || fail "invalid recipe: nothing should go to stdout"
grep -q "invalid.yaml:7:5: services\[0\]: ValidationError" inv.err || fail "invalid recipe: no located diagnostic"

set +e
"$SRTCTL" dry-run >/dev/null 2>usage.err
rc=$?
"$SRTCTL" dry-run -f "$SEED/seed-02.yaml" -o yaml >/dev/null 2>/dev/null
rc2=$?
set -e
[[ $rc == 2 ]] || fail "no -f: exit $rc, want 2"
grep -q 'use -f FILE' usage.err || fail "no -f: the message should say what to do"
[[ $rc2 == 2 ]] || fail "-o yaml: exit $rc2, want 2"
# --job-name names the run directory too: the name rule holds.
set +e
"$SRTCTL" dry-run -f "$SEED/seed-02.yaml" --job-name ../../etc >/dev/null 2>jobname.err
rc=$?
set -e
[[ $rc == 2 ]] && grep -q "is not a valid name: it contains '..'" jobname.err ||
	fail "--job-name ../../etc: exit $rc, $(cat jobname.err)"

# ---- a cluster config: pyxis, aliases, command prefixes ----
cat >cluster.yaml <<'EOF'
runtime:
  container_runtime: pyxis
  network_interface: ib0
containers:
  mc: registry.example/mooncake:0.3.12
commands:
  mooncake_master: [/opt/mooncake/bin/mooncake_master]
EOF
cat >pyxis.yaml <<'EOF'
name: pyxis-run
engine: sglang
model: {container: registry.example/sglang:0.5}
roles:
  prefill: {args: {disaggregation-transfer-backend: mooncake}}
  decode: {args: {disaggregation-transfer-backend: mooncake}}
services:
  - {name: mooncake-master, type: mooncake-master, container: mc}
EOF
"$SRTCTL" dry-run -f pyxis.yaml --cluster-config cluster.yaml -o json >pyxis.json
py pyxis.json 'd["services"][0]["container"] == "registry.example/mooncake:0.3.12"'
py pyxis.json 'd["services"][0]["argv"][0] == "/opt/mooncake/bin/mooncake_master"'
py pyxis.json 'd["plan"]["runtime"] == {"container_runtime": "pyxis", "network_interface": "ib0"}'
py pyxis.json '[p["container"] for p in d["plan"]["processes"] if p["name"] == "mooncake-master"] == ["registry.example/mooncake:0.3.12"]'

# ---- dry-run's job.sh is the one the controller writes ----
# The example recipe, and one with stores and a dedicated master: a controller
# pass (slurmrestd unreachable, so nothing is submitted) writes the first run's
# job.sh; dry-run from the same directory prints the same bytes.
cat >stores.yaml <<'EOF'
name: stores-run
engine: vllm
roles:
  prefill: {args: {kv-transfer-config: '{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}'}}
  decode: {args: {kv-transfer-config: '{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}'}}
services:
  - name: mooncake-master
    type: mooncake-master
    placement: {node: dedicated}
    options: {store_config: {protocol: tcp, global_segment_size: 4GB, device_name: ''}}
  - {name: store, type: mooncake-store, placement: {node: workers}}
EOF
for r in "$SRT_SOURCE_DIR/examples/sglang-mooncake.yaml" "$PWD/stores.yaml"; do
	rm -rf ctl && mkdir ctl
	(
		cd ctl
		"$SRTCTL" apply -f "$r" --db s.db >/dev/null
		"$SRTCTL" controller --once --db s.db --url http://127.0.0.1:9 >ctl.log 2>&1 || true
		"$SRTCTL" dry-run -f "$r" -o json |
			python3 -c 'import json,sys; sys.stdout.write(json.load(sys.stdin)["batch_script"])' >dry-job.sh
	)
	job=$(find ctl/outputs -name job.sh 2>/dev/null | head -n 1)
	if [[ -z $job ]]; then
		fail "$(basename "$r"): the controller wrote no job.sh: $(cat ctl/ctl.log)"
	elif ! cmp -s "$job" ctl/dry-job.sh; then
		fail "$(basename "$r"): dry-run's job.sh differs from the controller's: $(diff "$job" ctl/dry-job.sh)"
	fi
done

# ---- TRT-LLM: one MPI step per worker, the engine YAML shown under it ----
cat >trt.yaml <<'YAML'
engine: {type: trtllm, served_model_name: org/m}
model: {path: /models/m}
resources: {gpus_per_node: 4}
roles:
  prefill: {gpus: 2, args: {tensor_parallel_size: 2}}
  decode: {nodes: 2, gpus: 8, args: {tensor_parallel_size: 8, kv_cache_config: {dtype: fp8}}}
frontend: {type: dynamo}
YAML
"$SRTCTL" dry-run -f trt.yaml >trt.txt 2>/dev/null || fail "trtllm: dry-run failed"
grep -q '^    step:      8 MPI ranks (srun --mpi=pmix; 4 a node) on <decode_node_0>, <decode_node_1>; rank 0 runs the command$' trt.txt ||
	fail "trtllm: the decode worker's step: $(grep 'step:' trt.txt)"
grep -q "^    command:   trtllm-llmapi-launch python3 -m dynamo.trtllm --model-path /models/m --served-model-name org/m --disaggregation-mode decode --extra-engine-args '<log_dir>/trtllm_decode_0.yaml' --request-plane tcp$" trt.txt ||
	fail "trtllm: the decode worker's command: $(grep 'command:.*decode' trt.txt)"
grep -A3 '^    file:      <log_dir>/trtllm_decode_0.yaml (written by the agent before each start)$' trt.txt |
	grep -q '^      |   dtype: fp8$' || fail "trtllm: the decode worker's engine YAML"
"$SRTCTL" dry-run -f trt.yaml -o json >trt.json 2>/dev/null || fail "trtllm: dry-run -o json failed"
py trt.json '[(p["ntasks"], p["nnodes"], p["mpi"], p["config_file"]) for p in d["plan"]["processes"] if p["kind"] == "worker"] == [(2, 1, "pmix", "trtllm_prefill_0.yaml"), (8, 2, "pmix", "trtllm_decode_0.yaml")]'

# gb200: the prefill and decode ranks run under numactl -m 0,1, as srt-slurm's
sed 's/gpus_per_node: 4}/gpus_per_node: 4, gpu_type: gb200}/' trt.yaml >trt-gb.yaml
"$SRTCTL" dry-run -f trt-gb.yaml >trt-gb.txt 2>/dev/null || fail "trtllm gb200: dry-run failed"
[[ $(grep -c '^    command:   numactl -m 0,1 trtllm-llmapi-launch python3 -m dynamo.trtllm ' trt-gb.txt) == 2 ]] ||
	fail "trtllm gb200: not both workers under numactl: $(grep 'command:' trt-gb.txt)"

# TRT-LLM's mooncake-store connector on the native master: one client config per
# role that selects it (store_config, the role's keys over it, role and model_key
# defaulted, srtctl's master address), MOONCAKE_CONFIG_PATH naming it; a role
# without the connector gets no file and no path
cat >trtmc.yaml <<'YAML'
name: trtmc
engine: {type: trtllm, served_model_name: org/m}
model: {path: /models/m}
resources: {gpus_per_node: 4}
roles:
  prefill:
    gpus: 1
    args: {tensor_parallel_size: 1, kv_connector_config: {connector: mooncake-store}}
  decode:
    gpus: 1
    args:
      tensor_parallel_size: 1
      kv_connector_config:
        connector_module: tensorrt_llm._torch.pyexecutor.connectors.mooncake_store
    mooncake_store_config: {global_segment_size: 16GiB, role: both}
frontend: {type: trtllm_serve}
services:
  - name: mooncake-master
    type: mooncake-master
    options:
      store_config: {protocol: rdma, global_segment_size: 8GiB, master_server_address: x:1}
YAML
"$SRTCTL" dry-run -f trtmc.yaml -o json >trtmc.json 2>trtmc.err || fail "trtllm mooncake: dry-run failed: $(cat trtmc.err)"
py trtmc.json '[c["file"] for c in d["store_configs"]] == ["<log_dir>/mooncake/store_config_prefill.json", "<log_dir>/mooncake/store_config_decode.json"]'
py trtmc.json 'd["store_configs"][0]["config"] == {"protocol": "rdma", "global_segment_size": "8GiB", "role": "both", "model_key": "org/m", "master_server_address": "<infra_node_ip>:8700"}'
py trtmc.json 'd["store_configs"][1]["config"]["global_segment_size"] == "16GiB" and d["store_configs"][1]["config"]["role"] == "both"'
py trtmc.json 'd["store_config"] is None and d["plan"]["store_configs"] == d["store_configs"]'
py trtmc.json 'sorted((r["role"], r["value"]) for r in d["env"] if r["name"] == "MOONCAKE_CONFIG_PATH") == [("decode", "<log_dir>/mooncake/store_config_decode.json"), ("prefill", "<log_dir>/mooncake/store_config_prefill.json")]'
py trtmc.json 'any("master_server_address: is ignored" in w for w in d["warnings"])'
sed 's/^    mooncake_store_config:.*$//; s/^        connector_module: .*$/        connector: nixl/' trtmc.yaml >trtmc1.yaml
"$SRTCTL" dry-run -f trtmc1.yaml -o json >trtmc1.json 2>trtmc1.err || fail "trtllm mooncake one role: dry-run failed: $(cat trtmc1.err)"
py trtmc1.json '[c["file"] for c in d["store_configs"]] == ["<log_dir>/mooncake/store_config_prefill.json"]'
py trtmc1.json '[r["role"] for r in d["env"] if r["name"] == "MOONCAKE_CONFIG_PATH"] == ["prefill"]'
py trtmc1.json 'any("roles.decode.args: has no '"'"'kv_connector_config'"'"' that selects the mooncake-store connector" in w for w in d["warnings"])'

# TRT-LLM's own pool: the master is trtllm-serve mooncake_master (MPI none, the
# scrub preamble, the address file cleared and probed), a donor per decode node
# (its marker a file probe with the node bound), the workers' pool env and run
# dirs, no client config; under Dynamo the prefill role runs inside the pool
cat >trtpool.yaml <<'YAML'
name: trtpool
engine: {type: trtllm, served_model_name: org/m}
model: {path: /models/m}
resources: {gpus_per_node: 4}
roles:
  prefill:
    gpus: 1
    args:
      tensor_parallel_size: 1
      kv_connector_config:
        connector: mooncake-store
        mooncake_store: {master_server_address: "file:///logs/mooncake_master.addr", protocol: tcp}
  decode:
    gpus: 1
    args: {tensor_parallel_size: 1}
frontend: {type: trtllm_serve}
services:
  - name: mooncake-master
    type: mooncake-master
    start: with_workers
    options: {eviction_ratio: 0.1, master_timeout_s: 300, store_role: producer}
  - name: donor
    type: mooncake-donor
    options: {size: 64GiB, protocol: tcp}
YAML
"$SRTCTL" dry-run -f trtpool.yaml -o json >trtpool.json 2>trtpool.err || fail "trtllm pool: dry-run failed: $(cat trtpool.err)"
py trtpool.json 'd["store_configs"] == []'
py trtpool.json '(lambda m: m["mpi"] == "none" and m["argv"][:2] == ["bash", "-c"] and "unset" in m["argv"][2] and m["argv"][4:] == ["trtllm-serve", "mooncake_master", "--rpc_port", "8700", "--metrics_port", "8702", "--eviction_ratio", "0.1", "--address_file", "<log_dir>/mooncake_master.addr"] and m["run_dir"] == "mooncake/master" and m["clear"] == ["mooncake_master.addr", "mooncake/master/master.addr"] and m["readiness"]["probes"] == [{"kind": "tcp", "port": 8700}, {"kind": "file", "path": "mooncake_master.addr"}])([p for p in d["plan"]["processes"] if p["name"] == "mooncake-master"][0])'
py trtpool.json '(lambda s: s["mpi"] == "none" and s["argv"][4:] == ["trtllm-serve", "mooncake_donor", "--master_server_address", "file://<log_dir>/mooncake_master.addr", "--segment_size", "64GiB", "--protocol", "tcp", "--ready_file", "<log_dir>/mooncake/donor-<decode_node_0>.ready"] and s["readiness"]["probes"] == [{"kind": "file", "path": "mooncake/donor-<decode_node_0>.ready"}] and s["follows"] == "mooncake-master")([p for p in d["plan"]["processes"] if p["name"] == "donor"][0])'
py trtpool.json '(lambda w: {e["name"]: e["value"] for e in w["env"]}["TRTLLM_MOONCAKE_STORE_ROLE"] == "producer" and w["run_dir"] == "mooncake/prefill-0" and "file://<log_dir>/mooncake_master.addr" in w["config_text"] and w["config_runtime"])([p for p in d["plan"]["processes"] if p["name"] == "prefill_0"][0])'
py trtpool.json '(lambda w: (lambda e: e["TRTLLM_MOONCAKE_MASTER_TIMEOUT"] == "300" and "TRTLLM_MOONCAKE_STORE_ROLE" not in e and "MOONCAKE_TE_META_DATA_SERVER" not in e)({x["name"]: x["value"] for x in w["env"]}))([p for p in d["plan"]["processes"] if p["name"] == "decode_0"][0])'
sed 's/^frontend: .*$/frontend: {type: dynamo}/' trtpool.yaml >trtpool-dyn.yaml
"$SRTCTL" dry-run -f trtpool-dyn.yaml -o json >trtpool-dyn.json 2>trtpool-dyn.err || fail "trtllm pool dynamo: dry-run failed: $(cat trtpool-dyn.err)"
py trtpool-dyn.json '(lambda a: a[1:3] == ["python3", "-c"] and "maybe_provision_pool" in a[3] and a[4] == "<log_dir>/trtllm_prefill_0.yaml")([p for p in d["plan"]["processes"] if p["name"] == "prefill_0"][0]["argv"])'
py trtpool-dyn.json '"-m" in [p for p in d["plan"]["processes"] if p["name"] == "decode_0"][0]["argv"]'

# srt-slurm's `command` override on the pool's master and donor (public
# recipes/trtllm/vr200-fp4/glm5.2/*): the recipe's argv with its templates
# filled, no subcommand or flags of srtctl's; the preamble, run dir, cleared
# files, readiness and env as for srtctl's own commands
cat >trtpool-own.yaml <<'YAML'
services:
  - name: mooncake-master
    type: mooncake-master
    start: with_workers
    command: [mooncake_master, "--rpc_port={master_port}", --metrics_port=8702]
    args: [--eviction_ratio=0.02]
    preamble: printf '%s\n' '{node_ip}:{master_port}' > /logs/mooncake_master.addr
    options: {master_timeout_s: 300, store_role: producer}
  - name: donor
    type: mooncake-donor
    command: [numactl, -m, "0", trtllm-serve, mooncake_donor, --ready_file, "/logs/mooncake/donor-{node}.ready"]
    options: {size: 64GiB, protocol: tcp}
YAML
sed '/^services:/,$d' trtpool.yaml | cat - trtpool-own.yaml >trtpool-own2.yaml
"$SRTCTL" dry-run -f trtpool-own2.yaml -o json >trtpool-own.json 2>trtpool-own.err || fail "pool command override: dry-run failed: $(cat trtpool-own.err)"
py trtpool-own.json '(lambda m: m["mpi"] == "none" and "unset" in m["argv"][2] and "<prefill_node_0_ip>:8700" in m["argv"][2] and m["argv"][4:] == ["mooncake_master", "--rpc_port=8700", "--metrics_port=8702", "--eviction_ratio=0.02"] and m["run_dir"] == "mooncake/master" and m["clear"] == ["mooncake_master.addr", "mooncake/master/master.addr"] and m["readiness"]["probes"] == [{"kind": "tcp", "port": 8700}, {"kind": "file", "path": "mooncake_master.addr"}])([p for p in d["plan"]["processes"] if p["name"] == "mooncake-master"][0])'
py trtpool-own.json '(lambda s: s["argv"][4:] == ["numactl", "-m", "0", "trtllm-serve", "mooncake_donor", "--ready_file", "/logs/mooncake/donor-<decode_node_0>.ready"] and s["readiness"]["probes"] == [{"kind": "file", "path": "mooncake/donor-<decode_node_0>.ready"}] and {e["name"]: e["value"] for e in s["env"]}["TRTLLM_MOONCAKE_MASTER_TIMEOUT"] == "300")([p for p in d["plan"]["processes"] if p["name"] == "donor"][0])'

# the override on the other typed kinds (srt-slurm's services.md: a typed
# kind's `command` replaces its default one): the recipe's argv and templates,
# none of srtctl's words; readiness and env stay the type's
cat >own-cmds.yaml <<'YAML'
model: {path: /m}
engine: sglang
roles:
  prefill: {args: {tp: 1, disaggregation-transfer-backend: mooncake}}
  decode: {args: {tp: 1, disaggregation-transfer-backend: mooncake}}
frontend: {type: dynamo}
services:
  - name: etcd
    type: etcd
    command: [/opt/etcd, --data-dir, "/tmp/etcd-{node}", --listen-client-urls, "http://0.0.0.0:2379",
              --advertise-client-urls, "http://{node_ip}:2379"]
  - name: nats
    type: nats
    command: [/opt/nats-server, -js]
  - name: mooncake-master
    type: mooncake-master
  - name: store
    type: mooncake-store
    command: [python3, -m, mooncake.mooncake_store_service, --port, "8800"]
    args: [--log-level, info]
YAML
"$SRTCTL" dry-run -f own-cmds.yaml -o json >own-cmds.json 2>own-cmds.err || fail "typed command overrides: dry-run failed: $(cat own-cmds.err)"
py own-cmds.json '(lambda s: s["etcd"]["argv"] == ["/opt/etcd", "--data-dir", "/tmp/etcd-<prefill_node_0>", "--listen-client-urls", "http://0.0.0.0:2379", "--advertise-client-urls", "http://<prefill_node_0_ip>:2379"] and s["etcd"]["readiness"]["probes"] == [{"kind": "http", "port": 2379, "path": "/health", "status": 200}] and s["nats"]["argv"] == ["/opt/nats-server", "-js"] and s["nats"]["readiness"]["probes"] == [{"kind": "tcp", "port": 4222}] and s["store_<decode_node_0>"]["argv"] == ["python3", "-m", "mooncake.mooncake_store_service", "--port", "8800", "--log-level", "info"] and {e["name"]: e["value"] for e in s["store_<decode_node_0>"]["env"]}["MOONCAKE_MASTER"] == "<infra_node_ip>:8700")({p["name"]: p for p in d["plan"]["processes"]})'
# a master command that moves a port srtctl probes is refused, naming it
sed 's|^    type: mooncake-master$|&\n    command: [mooncake_master, --rpc_port=9000]|' own-cmds.yaml >own-port.yaml
if "$SRTCTL" dry-run -f own-port.yaml >/dev/null 2>own-port.err; then fail "master command on port 9000: dry-run accepted it"; fi
grep -q "services\[2\].command\[1\]: '--rpc_port=9000' puts the master's rpc_port on 9000" own-port.err || fail "master command on port 9000: $(cat own-port.err)"

# container: '' is no container, shown as such (not printf's "(null)")
printf 'engine: sglang\nmodel: {path: /m, container: ""}\nroles:\n  agg: {args: {tp: 1}}\n' >noimg.yaml
"$SRTCTL" dry-run -f noimg.yaml >noimg.txt 2>/dev/null || fail "container '': dry-run failed"
grep -qx 'Model: /m, container -' noimg.txt || fail "container '': $(grep '^Model' noimg.txt)"

# setup_script: srt-slurm's configs/<script>, run before each worker and the
# Dynamo frontend start: /configs/<script> in a container (srtctl_root's
# configs/ mounted there), srtctl_root/configs/<script> outside one.
cat >setup.yaml <<'YAML'
name: setup
engine: vllm
model: {path: /models/m, container: /images/v.sqsh}
frontend: {type: dynamo}
roles:
  agg: {}
setup_script: patches/deps.sh
YAML
mkdir -p root/configs/patches
cat >pyxis-root.yaml <<YAML
runtime: {container_runtime: pyxis}
srtctl_root: $TMP/root
YAML
if SRTSLURM_CONFIG=$TMP/pyxis-root.yaml "$SRTCTL" dry-run -f setup.yaml -o json >setup.json 2>setup.err; then
	py setup.json '"'"$TMP"'/root/configs:/configs" in d["plan"]["runtime"]["mounts"]'
	py setup.json 'all(p["argv"][:2] == ["bash", "-c"] and p["argv"][2].startswith("if [ -f /configs/patches/deps.sh ]") for p in d["plan"]["processes"] if p["kind"] in ("worker", "frontend"))'
	py setup.json 'all(p["argv"][0] != "bash" for p in d["plan"]["processes"] if p["kind"] not in ("worker", "frontend"))'
else
	fail "setup_script dry-run: $(cat setup.err)"
fi
# Without containers the script is srtctl_root's own, run in the worker's
# shell: it runs first, a failing one stops the worker with its status, and a
# missing one is said and skipped (as srt-slurm does).
printf 'runtime: {container_runtime: none}\nsrtctl_root: %s/root\n' "$TMP" >bare-root.yaml
if SRTSLURM_CONFIG=$TMP/bare-root.yaml "$SRTCTL" dry-run -f setup.yaml -o json >bare.json 2>bare.err; then
	# the worker's own words after the preamble's "$0", swapped for a marker
	python3 - bare.json >setup.argv <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
w = [p for p in d["plan"]["processes"] if p["kind"] == "worker"][0]["argv"]
print("\0".join(w[:4] + ["sh", "-c", "echo worker-started"]), end="")
PY
	printf '#!/bin/bash\necho setup-ran\nexit "${SETUP_RC:-0}"\n' >root/configs/patches/deps.sh
	xargs -0 env <setup.argv >ran.out 2>&1 || fail "setup + worker failed: $(cat ran.out)"
	[[ $(tr '\n' ' ' <ran.out) == *"Running setup script: $TMP/root/configs/patches/deps.sh setup-ran worker-started "* ]] ||
		fail "the setup script did not run before the worker: $(cat ran.out)"
	rc=0
	SETUP_RC=3 xargs -0 env <setup.argv >ran.out 2>&1 || rc=$?
	# xargs says 123 when its command exits 1-125
	[[ $rc == 123 ]] && ! grep -q worker-started ran.out ||
		fail "a failing setup script did not stop the worker (xargs rc $rc): $(cat ran.out)"
	rm root/configs/patches/deps.sh
	xargs -0 env <setup.argv >ran.out 2>&1 || fail "a missing setup script stopped the worker: $(cat ran.out)"
	grep -q "WARNING: $TMP/root/configs/patches/deps.sh not found" ran.out && grep -q worker-started ran.out ||
		fail "a missing setup script: $(cat ran.out)"
else
	fail "setup_script dry-run without containers: $(cat bare.err)"
fi
# A path outside configs/ is refused; no srtctl_root is a warning.
sed 's|setup_script: patches/deps.sh|setup_script: ../x.sh|' setup.yaml >setup-bad.yaml
"$SRTCTL" validate -f setup-bad.yaml >/dev/null 2>setup.err && fail "setup_script ../x.sh was accepted"
grep -q "setup_script: '../x.sh' is not a script in srt-slurm's configs/ directory" setup.err ||
	fail "setup_script ../x.sh: $(cat setup.err)"
"$SRTCTL" validate -f setup.yaml >/dev/null 2>setup.err || fail "setup_script without srtctl_root: $(cat setup.err)"
grep -q "warning: setup_script: srt-slurm runs 'patches/deps.sh' from its configs/ directory" setup.err ||
	fail "no warning without srtctl_root: $(cat setup.err)"

# The cluster's default_bash_preamble runs first in every container step, in
# the step's own bash (its ulimits reach the command); a failing one stops
# the step; steps without a container do not run it.
cat >pre-pyxis.yaml <<'YAML'
runtime: {container_runtime: pyxis}
default_bash_preamble: "ulimit -S -n 77"
YAML
cat >pre.yaml <<'YAML'
name: pre
engine: sglang
model: {path: /models/m, container: /images/s.sqsh}
frontend: {type: sglang-router}
services:
  - {name: mooncake-master, type: mooncake-master}
roles:
  agg: {args: {tp: 1}}
benchmark: {type: custom, command: "echo hi"}
setup_script: deps.sh
YAML
if SRTSLURM_CONFIG=$TMP/pre-pyxis.yaml "$SRTCTL" dry-run -f pre.yaml -o json >pre.json 2>pre.err; then
	py pre.json 'sorted(p["kind"] for p in d["plan"]["processes"] if p["argv"][:2] == ["bash", "-c"] and p["argv"][2].startswith("{ ulimit -S -n 77\n} || exit\n")) == ["benchmark", "frontend", "service", "worker"]'
	# before the setup_script (the worker's), after which the command runs
	py pre.json '[p for p in d["plan"]["processes"] if p["kind"] == "worker"][0]["argv"][2].endswith("/configs/deps.sh not found\x27; fi\nexec \"$@\"")'
	python3 - pre.json >pre.argv <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
w = [p for p in d["plan"]["processes"] if p["kind"] == "worker"][0]["argv"]
print("\0".join(w[:4] + ["sh", "-c", "ulimit -n"]), end="")
PY
	[[ $(xargs -0 env <pre.argv 2>&1 | tail -1) == 77 ]] || fail "default_bash_preamble's ulimit did not reach the command: $(xargs -0 env <pre.argv 2>&1)"
	sed 's/ulimit -S -n 77/false/' pre-pyxis.yaml >pre-false.yaml
	SRTSLURM_CONFIG=$TMP/pre-false.yaml "$SRTCTL" dry-run -f pre.yaml -o json >pre.json 2>/dev/null
	python3 - pre.json >pre.argv <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
w = [p for p in d["plan"]["processes"] if p["kind"] == "worker"][0]["argv"]
print("\0".join(w[:4] + ["sh", "-c", "echo started"]), end="")
PY
	! xargs -0 env <pre.argv >pre.out 2>&1 && ! grep -q started pre.out ||
		fail "a failing default_bash_preamble did not stop the step: $(cat pre.out)"
else
	fail "default_bash_preamble dry-run: $(cat pre.err)"
fi
printf 'runtime: {container_runtime: none}\ndefault_bash_preamble: "ulimit -S -n 77"\n' >pre-bare.yaml
SRTSLURM_CONFIG=$TMP/pre-bare.yaml "$SRTCTL" dry-run -f pre.yaml -o json >pre.json 2>pre.err || fail "bare: $(cat pre.err)"
py pre.json 'not any("ulimit" in " ".join(p["argv"]) for p in d["plan"]["processes"])'

# frontend.enable_multiple_frontends: one frontend per worker node after the
# head (at most num_additional_frontends + 1), each on 8180, and nginx on the
# head at frontend.port in front of them: in nginx_container as root under
# pyxis, its config (affinity, the cluster's nginx_raise_ulimit) written by
# the agent; on bare nodes commands.nginx; one node keeps one frontend.
cat >nx.yaml <<'YAML'
name: nx
engine: sglang
model: {path: /models/m, container: /images/s.sqsh}
dynamo: {install: false}
frontend:
  type: dynamo
  enable_multiple_frontends: true
  num_additional_frontends: 1
  nginx_session_affinity: true
  nginx_session_affinity_header: X-Correlation-ID
roles:
  prefill: {nodes: 1, gpus: 4}
  decode: {workers: 3, nodes: 3, gpus: 4}
services:
  - {name: nats, type: nats}
YAML
printf 'runtime: {container_runtime: pyxis}\nnginx_raise_ulimit: true\n' >nx-pyxis.yaml
if SRTSLURM_CONFIG=$TMP/nx-pyxis.yaml "$SRTCTL" dry-run -f nx.yaml -o json >nx.json 2>nx.err; then
	py nx.json '[(p["name"], p["node"]) for p in d["plan"]["processes"] if p["kind"] == "frontend"] == [("frontend_0", 1), ("frontend_1", 2), ("nginx", 0)]'
	py nx.json 'all(p["argv"][-1] == "--http-port=8180" and p["container"] == "/images/s.sqsh" for p in d["plan"]["processes"] if p["name"].startswith("frontend_"))'
	py nx.json '[p for p in d["plan"]["processes"] if p["name"] == "nginx"][0]["argv"] == ["bash", "-c", "ulimit -n 1048576 && PATH=$PATH:/usr/local/sbin:/usr/sbin; exec \"$@\"", "nginx", "nginx", "-e", "stderr", "-c", "/logs/nginx.conf", "-g", "daemon off;"]'
	py nx.json '[p for p in d["plan"]["processes"] if p["name"] == "nginx"][0]["container"] == "nginx:1.27.4"'
	py nx.json '"--export=ALL,ENROOT_REMAP_ROOT=yes" in [p for p in d["plan"]["processes"] if p["name"] == "nginx"][0]["srun_options"]'
	py nx.json 'd["plan"]["frontend_url"] == "http://<prefill_node_0_ip>:8000"'
	py nx.json 'all(s in [p for p in d["plan"]["processes"] if p["name"] == "nginx"][0]["config_text"] for s in ("worker_rlimit_nofile 1048576;", "pid \"/logs/nginx.pid\";", "map $http_x_correlation_id $srtctl_affinity_key", "hash $srtctl_affinity_key consistent;", "server <decode_node_0_ip>:8180;\n        server <decode_node_1_ip>:8180;\n        keepalive 4096;", "listen 8000;"))'
	py nx.json '"temp_path" not in [p for p in d["plan"]["processes"] if p["name"] == "nginx"][0]["config_text"]'
else
	fail "enable_multiple_frontends dry-run: $(cat nx.err)"
fi
# bare nodes: commands.nginx, its temporary directories in the log directory
printf 'commands: {nginx: [/opt/nginx/sbin/nginx]}\n' >nx-bare.yaml
if SRTSLURM_CONFIG=$TMP/nx-bare.yaml "$SRTCTL" dry-run -f nx.yaml -o json >nx.json 2>nx.err; then
	py nx.json '[p for p in d["plan"]["processes"] if p["name"] == "nginx"][0]["argv"][3:6] == ["nginx", "/opt/nginx/sbin/nginx", "-e"]'
	py nx.json '[p for p in d["plan"]["processes"] if p["name"] == "nginx"][0].get("container") is None'
	py nx.json '"client_body_temp_path \"<log_dir>/nginx-temp-body\";" in [p for p in d["plan"]["processes"] if p["name"] == "nginx"][0]["config_text"]'
else
	fail "enable_multiple_frontends on bare nodes: $(cat nx.err)"
fi
python3 - nx.yaml >nx1.yaml <<'PY'
import sys
t = open(sys.argv[1]).read()
print(t[:t.index("roles:")] + "roles:\n  agg: {gpus: 4}\n" + t[t.index("services:"):], end="")
PY
SRTSLURM_CONFIG=$TMP/nx-pyxis.yaml "$SRTCTL" dry-run -f nx1.yaml -o json >nx1.json 2>nx.err || fail "one node: $(cat nx.err)"
py nx1.json '[p["name"] for p in d["plan"]["processes"] if p["kind"] == "frontend"] == ["frontend"]'
sed 's/type: dynamo/type: trtllm_serve/; s/engine: sglang/engine: trtllm/; s/gpus: 4}/gpus: 4, args: {tensor_parallel_size: 4}}/' nx.yaml >nx-t.yaml
"$SRTCTL" validate -f nx-t.yaml >/dev/null 2>nx.err || fail "trtllm_serve with enable_multiple_frontends is refused: $(cat nx.err)"
grep -q "warning: frontend.enable_multiple_frontends: srtctl runs several frontends behind nginx for dynamo, sglang-router and vllm-router; frontend type 'trtllm_serve' runs once, on the head node" nx.err ||
	fail "trtllm_serve with enable_multiple_frontends: $(cat nx.err)"

if ((fails)); then
	echo "$fails check(s) failed" >&2
	exit 1
fi
echo "dry-run: all checks passed"
