#!/usr/bin/env bash
# tests/cli/test_fakes_trtllm.sh: the TensorRT-LLM stand-ins under tests/fakes
# (numactl, trtllm_llmapi_launch, dynamo_trtllm, trtllm_serve): accepted and refused
# command lines (exit status and message), the launcher's environment, log
# lines, exit statuses and FAKE_CHECK_ONLY=1 path, then against a REAL etcd
# and nats-server on 127.0.0.1: a disaggregated dynamo.trtllm pair under the
# launcher (the prefill one a simulated MPI world of two ranks) registering
# in etcd, seen by dynamo_frontend, one request through it; a world size
# that does not match the engine YAML; trtllm-serve directly and
# `trtllm-serve disaggregated` in front of a context and a generation
# server; TRT-LLM's own Mooncake pool: `trtllm-serve mooncake_master`
# publishing its address only once the master's RPC port answers and
# withdrawing it on SIGTERM, `trtllm-serve mooncake_donor` waiting for that
# address and announcing its segment, a trtllm-serve worker and srt-slurm's
# Dynamo pool wrapper (dynamo_trtllm_pool) provisioning from it.  See
# tests/fakes/README.md ("TensorRT-LLM stand-ins").  Skips (77) when etcd or
# nats-server is not installed.  Loopback only, free ports picked by the
# kernel, every wait bounded, every process stopped by PID.
set -euo pipefail

src=${SRT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
F=$src/tests/fakes
LAUNCH=$F/trtllm_llmapi_launch
DTRT=$F/dynamo_trtllm
SERVE=$F/trtllm_serve
DFRONT=$F/dynamo_frontend

if ! python3 -c 'import yaml' 2>/dev/null; then
	echo "skip: needs PyYAML (python3-yaml)"
	exit 77
fi

. "$src/tests/cli/fakes_lib.sh"
need_discovery_plane
unset FAKE_RECORD_DIR FAKE_RECORD_FILE FAKE_CHECK_ONLY FAKE_BIND_HOST FAKE_CONTAINER_MOUNTS \
	FAKE_ENGINE_START_DELAY FAKE_ENGINE_CRASH_AFTER FAKE_TRTLLM_DISAGG_CONFIG_ALIAS \
	ETCD_ENDPOINTS NATS_SERVER TLLM_SPAWN_PROXY_PROCESS TLLM_SPAWN_PROXY_PROCESS_IPC_ADDR \
	TLLM_SPAWN_PROXY_PROCESS_IPC_HMAC_KEY tllm_mpi_size
while read -r v; do unset "$v"; done < <(compgen -e | grep -E '^(DYN_|SLURM_|OMPI_|PMIX_|PMI_)' || true)

h() { python3 "$fakes_lib_dir/fakes_http.py" "$@"; }



gone() { # PID SECONDS: wait until PID (not a child of this shell) has exited
	local end=$((SECONDS + $2))
	while alive "$1"; do
		((SECONDS < end)) || return 1
		sleep 0.05
	done
}

child_of() { # LOG: the PID of the command a rank-0 launcher started (killed on exit)
	local end=$((SECONDS + 10)) pid=
	while ((SECONDS < end)); do
		# start() opens the log in the background: it may not exist yet (and a
		# failed sed would end this set -e -o pipefail script without a word)
		[[ -f $1 ]] && pid=$(sed -n 's/.*Rank0 Subshell PID: \([0-9]*\).*/\1/p' "$1" | head -n 1)
		[[ -n $pid ]] && break
		sleep 0.05
	done
	[[ -n $pid ]] || fail "no Subshell PID line in $1"
	pids+=("$pid")
	CHILD=$pid
}

mkdir -p host/model host/logs rec
export FAKE_CONTAINER_MOUNTS=$work/host/model:/model,$work/host/logs:/logs
printf 'tensor_parallel_size: 2\npipeline_parallel_size: 1\ndisable_overlap_scheduler: true\ncache_transceiver_config:\n  backend: UCX\n' >host/logs/prefill.yaml
printf 'tensor_parallel_size: 1\nkv_cache_config:\n  free_gpu_memory_fraction: 0.8\n' >host/logs/decode.yaml
printf 'a: [1, 2\n' >host/logs/broken.yaml
printf -- '- 1\n- 2\n' >host/logs/list.yaml

###########################################################################
# numactl (srt-slurm's prefix of TRT-LLM's ranks on gb200/gb300): its
# options as numactl parses them, its refusals, the command run in its place

NUMA=$F/numactl
rc=0
FAKE_RECORD_DIR=$work/rec SLURM_PROCID=3 timeout 30 "$NUMA" -m 0,1 sh -c 'echo $$ >numa.pid; exit 4' \
	>out 2>err || rc=$?
[[ $rc == 4 ]] || fail "numactl: exit status $rc, expected its command's 4: $(cat err)"
h py "
import json
r = [json.loads(l) for l in open('rec/numactl.jsonl')][-1]
assert r['options'] == {'policy': 'bind', 'nodes': [0, 1]} and r['command'][0] == 'sh', r
assert r['env'] == {'SLURM_PROCID': '3'}, r
assert int(open('numa.pid').read()) == r['pid'], 'the command did not run in numactl\'s place'
" || fail "numactl: the record or exec: $(tail -n 1 rec/numactl.jsonl)"
for form in "-m0,1" "--membind=0-1" "--memb 0,1" "-m all" "-m !2-3"; do
	# shellcheck disable=SC2086 # each form is its words
	timeout 30 "$NUMA" $form -- true || fail "numactl refused '$form'"
done
refused 1 "libnuma: Warning: node argument 4 is out of range" "numactl, node out of range" -- \
	"$NUMA" -m 0,4 true
grep -qxF "<0,4> is invalid" out || fail "numactl, node out of range: stdout lacks '<0,4> is invalid': $(cat out)"
refused 1 "numactl: Conflicting policies" "numactl, two policies" -- "$NUMA" -m 0 --interleave=1 true
refused 1 "numactl: invalid option -- 'z'" "numactl, unknown short option" -- "$NUMA" -z true
refused 1 "numactl: unrecognized option '--membound'" "numactl, unknown long option" -- \
	"$NUMA" --membound=0 true
refused 1 "usage: numactl" "numactl without a command" -- "$NUMA" -m 0,1
refused 1 "numactl: execution of \`x-no-such-command': No such file or directory" \
	"numactl, command not found" -- "$NUMA" -m 0,1 x-no-such-command
refused 2 "shared memory options are not modelled" "numactl, --shm (not modelled)" -- \
	"$NUMA" --shm /tmp/x -m 0

###########################################################################
# trtllm-llmapi-launch: environment, log lines, exit statuses

rc=0
SLURM_PROCID=0 SLURM_NTASKS=1 SLURM_JOB_ID=7 OMPI_COMM_WORLD_SIZE=1 PMIX_RANK=0 UCX_TLS=rc DYN_X=1 \
	timeout 30 "$LAUNCH" sh -c 'env | sort >child.env; exit 3' >out 2>err || rc=$?
[[ $rc == 3 ]] || fail "launcher: exit status $rc, expected the task's 3: $(cat err)"
grep -q $'^\e\\[33mRank0 Task exit code: 3\e\\[0m$' err || fail "launcher: no (yellow) 'Rank0 Task exit code: 3' line: $(cat err)"
for l in "mpi_rank: 0" "tllm_mpi_size: 1" "Rank0 run sh -c env | sort >child.env; exit 3 in background" \
	"Rank0 run mgmn leader node with mpi_world_size: 1 ..." "Rank0 MPI Comm server exit code: 0" \
	"Rank0 Subshell exit code: 3"; do
	grep -qF "$l" err || fail "launcher: stderr lacks '$l': $(cat err)"
done
h py "
env = dict(l.rstrip('\n').split('=', 1) for l in open('child.env') if '=' in l)
assert not [k for k in env if k.startswith(('SLURM_', 'OMPI_', 'PMIX_', 'UCX_'))], env
assert env['TLLM_SPAWN_PROXY_PROCESS'] == '1' and env['tllm_mpi_size'] == '1', env
assert env['TLLM_SPAWN_PROXY_PROCESS_IPC_ADDR'].startswith('tcp://127.0.0.1:'), env
assert len(env['TLLM_SPAWN_PROXY_PROCESS_IPC_HMAC_KEY']) == 64 and env['DYN_X'] == '1', env
" || fail "launcher: the task's environment: $(cat child.env)"
refused 127 "x-no-such-command: command not found" "launcher, command not found" -- \
	"$LAUNCH" x-no-such-command
grep -qF "Rank0 Task exit code: 127" err || fail "launcher: no exit code line for 127"
# OMPI_COMM_WORLD_RANK when SLURM_PROCID is unset; a rank > 0 waits for a signal
start r1.log env OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 "$LAUNCH" sh -c 'touch ran'
R1=$SPID
end=$((SECONDS + 10))
until grep -qF "Rank1 run mgmn worker node with mpi_world_size: 2 ..." r1.log; do
	((SECONDS < end)) || fail "rank 1 never logged: $(cat r1.log)"
	sleep 0.05
done
alive "$R1" || fail "rank 1 did not wait"
kill -TERM "$R1"
expect_rc 143 "$R1" 10 "rank 1 on SIGTERM (the untrapped bash dies of it)"
[[ ! -e ran ]] || fail "rank 1 ran the task"

###########################################################################
# command lines: accepted and refused

DT_ARGV=(--model-path /model --served-model-name m1 --disaggregation-mode prefill
	--extra-engine-args /logs/prefill.yaml --request-plane tcp --publish-metrics)
accepted d1 "dynamo.trtllm srtctl argv under the launcher" -- env TLLM_SPAWN_PROXY_PROCESS=1 \
	tllm_mpi_size=2 "$DTRT" "${DT_ARGV[@]}"
opts d1 "o['role'] == 'prefill' and o['component'] == 'prefill' and o['namespace'] == 'dynamo'"
opts d1 "o['engine']['tensor_parallel_size'] == 2 and o['engine']['disable_overlap_scheduler'] is True"
opts d1 "o['dynamo']['model'] == '/model' and o['dynamo']['publish_metrics'] is True and o['mpi_world_size'] == 2"
accepted d2 "dynamo.trtllm decode, --model, old publish flag, dynamic flag" -- "$DTRT" --model /model \
	--disaggregation-mode decode --extra-engine-args /logs/decode.yaml --publish-events-and-metrics \
	--trtllm.kv_cache_config.enable_block_reuse false --router-mode kv
opts d2 "o['component'] == 'backend' and o['dynamo']['publish_kv_events'] and o['dynamo']['publish_metrics']"
opts d2 "o['engine']['kv_cache_config'] == {'free_gpu_memory_fraction': 0.8, 'enable_block_reuse': False}"
opts d2 "o['router']['router_mode'] == 'kv' and o['mpi_world_size'] == 1"
accepted d3 "dynamo.trtllm agg: no mode, pd, env" -- env DYN_NAMESPACE=ns3 DYN_TRTLLM_DISAGGREGATION_MODE=pd \
	"$DTRT" --model-path /model
opts d3 "o['role'] == 'agg' and o['component'] == 'backend' and o['namespace'] == 'ns3'"

refused 1 "Unrecognized argument: --bogus" "dynamo.trtllm unknown flag (exit 1, not argparse's 2)" -- \
	"$DTRT" --model-path /model --bogus 1
refused 1 "Unrecognized argument: --host" "dynamo.trtllm --host" -- "$DTRT" --model-path /model --host 0.0.0.0
refused 2 "argument --disaggregation-mode: invalid choice: 'both'" "dynamo.trtllm bad mode" -- \
	"$DTRT" --model-path /model --disaggregation-mode both
refused 2 "argument --disaggregation-mode: invalid choice: 'prefill_and_decode'" "dynamo.trtllm old agg mode" -- \
	"$DTRT" --model-path /model --disaggregation-mode prefill_and_decode
refused 2 "argument --request-plane: invalid choice: 'http'" "dynamo.trtllm old request plane" -- \
	"$DTRT" --model-path /model --request-plane http
refused 2 "argument --tensor-parallel-size: invalid int value: 'two'" "dynamo.trtllm bad int" -- \
	"$DTRT" --model-path /model --tensor-parallel-size two
refused 1 "FileNotFoundError: [Errno 2] No such file or directory: '/logs/nope.yaml'" "dynamo.trtllm missing engine YAML" -- \
	"$DTRT" --model-path /model --extra-engine-args /logs/nope.yaml
refused 1 "yaml.parser.ParserError: while parsing a flow sequence" "dynamo.trtllm unparsable engine YAML" -- \
	"$DTRT" --model-path /model --extra-engine-args /logs/broken.yaml
refused 1 "TypeError: unsupported operand type(s) for |: 'dict' and 'list'" "dynamo.trtllm engine YAML not a mapping" -- \
	"$DTRT" --model-path /model --extra-engine-args /logs/list.yaml
refused 1 "trtllm-llmapi-launch started 4 MPI rank(s) (tllm_mpi_size=4) but tensor_parallel_size * pipeline_parallel_size * context_parallel_size = 2 * 1 * 1 = 2" \
	"dynamo.trtllm world size mismatch" -- env TLLM_SPAWN_PROXY_PROCESS=1 tllm_mpi_size=4 \
	"$DTRT" "${DT_ARGV[@]}"
refused 1 "= 1 * 1 * 1 = 1" "dynamo.trtllm two ranks for a TP1 engine" -- env TLLM_SPAWN_PROXY_PROCESS=1 \
	tllm_mpi_size=2 "$DTRT" --model-path /model --extra-engine-args /logs/decode.yaml
refused 1 "AssertionError: create_mpi_comm_session must be called by rank 0, but it was called by rank 1" \
	"dynamo.trtllm under srun without the launcher" -- env SLURM_PROCID=1 SLURM_NTASKS=2 \
	"$DTRT" "${DT_ARGV[@]}"
refused 1 "Failed to parse override_engine_args as JSON" "dynamo.trtllm bad override JSON" -- \
	"$DTRT" --model-path /model --override-engine-args '{tensor_parallel_size: 2}'
refused 1 "Dynamic flag --trtllm.max_batch_size requires a value" "dynamo.trtllm dynamic flag without value" -- \
	"$DTRT" --model-path /model --trtllm.max_batch_size
refused 1 "model path /model/nope does not exist" "dynamo.trtllm missing model" -- \
	"$DTRT" --model-path /model/nope

printf 'tensor_parallel_size: 1\nmax_batch_size: 64\n' >host/logs/agg.yaml
accepted s1 "trtllm-serve srtctl direct argv" -- env TLLM_SPAWN_PROXY_PROCESS=1 tllm_mpi_size=1 \
	"$SERVE" /model --host 0.0.0.0 --port 0 --config /logs/agg.yaml
opts s1 "o['host'] == '0.0.0.0' and o['extra_llm_api_options'] == '/logs/agg.yaml' and o['llm_args']['max_batch_size'] == 64"
accepted s2 "trtllm-serve serve, old spellings, tp from the YAML" -- env TLLM_SPAWN_PROXY_PROCESS=1 \
	tllm_mpi_size=2 "$SERVE" serve /model --tp_size 1 --extra_llm_api_options /logs/prefill.yaml \
	--backend trt --trust_remote_code --port 0
opts s2 "o['tensor_parallel_size'] == 1 and o['llm_args']['tensor_parallel_size'] == 2 and o['backend'] == 'tensorrt'"
refused 2 "Error: No such option: --bogus" "trtllm-serve unknown option" -- "$SERVE" /model --bogus
grep -qF "Usage: trtllm-serve serve [OPTIONS] MODEL" err || fail "trtllm-serve usage line: $(cat err)"
refused 2 "Error: No such option: --extra-llm-api-options Did you mean --extra_llm_api_options?" \
	"trtllm-serve dashed option" -- "$SERVE" /model --extra-llm-api-options /logs/agg.yaml
refused 2 "Error: Invalid value for '--port': 'x' is not a valid integer." "trtllm-serve bad port" -- \
	"$SERVE" serve /model --port x
refused 2 "Error: Invalid value for '--backend': 'vllm' is not one of 'pytorch', 'tensorrt', '_autodeploy'." \
	"trtllm-serve bad backend" -- "$SERVE" /model --backend vllm
refused 2 "Error: Missing argument 'MODEL'." "trtllm-serve no model" -- "$SERVE" serve --port 8000
refused 2 "Error: Option '--trust_remote_code' does not take a value." "trtllm-serve flag with value" -- \
	"$SERVE" /model --trust_remote_code=1
refused 1 "FileNotFoundError: [Errno 2] No such file or directory: '/logs/nope.yaml'" "trtllm-serve missing config" -- \
	"$SERVE" /model --config /logs/nope.yaml
refused 1 "tllm_mpi_size=1) but tensor_parallel_size * pipeline_parallel_size * context_parallel_size = 2 * 1 * 1 = 2" \
	"trtllm-serve world size mismatch" -- env TLLM_SPAWN_PROXY_PROCESS=1 tllm_mpi_size=1 \
	"$SERVE" /model --config /logs/prefill.yaml
refused 2 "Error: No such option: --config Did you mean --config_file?" "trtllm-serve disaggregated --config" -- \
	"$SERVE" disaggregated --config /logs/ser.yaml
refused 1 "FileNotFoundError: [Errno 2] No such file or directory: '/logs/ser.yaml'" \
	"trtllm-serve disaggregated --config (newer spelling allowed)" -- env FAKE_TRTLLM_DISAGG_CONFIG_ALIAS=1 \
	"$SERVE" disaggregated --config /logs/ser.yaml
printf 'hostname: 127.0.0.1\nport: 8000\ncontext_servers:\n  num_instances: 2\n  urls: ["127.0.0.1:1"]\ngeneration_servers:\n  num_instances: 1\n  urls: ["127.0.0.1:2"]\n' >host/logs/bad-ser.yaml
refused 1 "ValueError: Number of hostnames (1) should be equal to the number of instances (2)" \
	"trtllm-serve disaggregated instance count" -- "$SERVE" disaggregated -c /logs/bad-ser.yaml

# the launcher under FAKE_CHECK_ONLY=1 (tests/cli/test_corpus_argv.sh): rank 0
# of SLURM_NTASKS ranks calls the wrapped stand-in's main in its own process,
# with the MPI variables removed and tllm_mpi_size set, and starts nothing
accepted l1 "launcher check-only: rank 0 of 2 wrapping dynamo.trtllm TP2" -- env SLURM_PROCID=0 \
	SLURM_NTASKS=2 "$LAUNCH" "$DTRT" "${DT_ARGV[@]}"
opts l1 "o['mpi_world_size'] == 2 and o['engine']['tensor_parallel_size'] == 2"
grep -qF "Rank0 Task exit code: 0" err || fail "launcher check-only: no exit code line: $(cat err)"
accepted l2 "launcher check-only: trtllm-serve, the host of another node" -- env SLURM_PROCID=0 \
	SLURM_NTASKS=1 "$LAUNCH" "$SERVE" /model --host 192.0.2.1 --port 6100 --config /logs/agg.yaml
opts l2 "o['host'] == '192.0.2.1' and o['llm_args']['max_batch_size'] == 64"
accepted l3 "launcher check-only: a rank > 0 runs nothing" -- env SLURM_PROCID=1 SLURM_NTASKS=2 \
	"$LAUNCH" x-no-such-command
[[ ! -s l3 ]] || fail "launcher check-only: rank 1 printed options: $(cat l3)"
refused 1 "tllm_mpi_size=4) but tensor_parallel_size * pipeline_parallel_size * context_parallel_size = 2 * 1 * 1 = 2" \
	"launcher check-only: world size mismatch" -- env FAKE_CHECK_ONLY=1 SLURM_PROCID=0 SLURM_NTASKS=4 \
	"$LAUNCH" "$DTRT" "${DT_ARGV[@]}"
grep -qF "Rank0 Task exit code: 1" err || fail "launcher check-only: no exit code line for 1: $(cat err)"
refused 127 "FAKE_CHECK_ONLY=1 runs only the stand-ins dynamo_trtllm, dynamo_trtllm_pool, trtllm_serve in-process" \
	"launcher check-only: another program" -- env FAKE_CHECK_ONLY=1 "$LAUNCH" sh -c 'touch ran'
[[ ! -e ran ]] || fail "launcher check-only ran a program"

###########################################################################
# TRT-LLM's own Mooncake pool commands (what srtctl renders for the
# mooncake-master and mooncake-donor services): their options as click
# parses them, their refusals; the mooncake_store block of a worker's engine
# YAML as TRT-LLM validates it; srt-slurm's Dynamo pool wrapper

POOL=$F/dynamo_trtllm_pool
MASTER_ARGV=(mooncake_master --rpc_port 8700 --metrics_port 8702 --eviction_ratio 0.05
	--address_file /logs/mooncake_master.addr)
DONOR_ARGV=(mooncake_donor --master_server_address file:///logs/mooncake_master.addr
	--segment_size 4GiB --protocol rdma --ready_file /logs/mooncake/donor-node-02.ready)
accepted pm1 "mooncake_master: srtctl's argv" -- env TRTLLM_MOONCAKE_RUN_DIR=/logs/mooncake/master \
	TRTLLM_MOONCAKE_MASTER_TIMEOUT=900 "$SERVE" "${MASTER_ARGV[@]}"
opts pm1 "o['rpc_port'] == 8700 and o['metrics_port'] == 8702 and o['eviction_ratio'] == 0.05"
opts pm1 "o['address_file'] == '/logs/mooncake_master.addr' and o['heartbeat_seconds'] == 300 and o['run_dir'] is None"
accepted pd1 "mooncake_donor: srtctl's argv" -- env TRTLLM_MOONCAKE_RUN_DIR=/logs/mooncake/donor-node-02 \
	TLLM_LOG_LEVEL=INFO TRTLLM_MOONCAKE_MASTER_TIMEOUT=900 "$SERVE" "${DONOR_ARGV[@]}"
opts pd1 "o['segment_bytes'] == 4 << 30 and o['protocol'] == 'rdma' and o['local_buffer_bytes'] == 64 << 20"
opts pd1 "o['master'] == 'file:///logs/mooncake_master.addr' and o['metadata_server'] == 'P2PHANDSHAKE'"
accepted pd2 "mooncake_donor: decimal units count in 1000s" -- "$SERVE" mooncake_donor \
	--master_server_address=10.0.0.1:8700 --segment_size 4GB --local_buffer_size 1.5MiB --no-telemetry
opts pd2 "o['segment_bytes'] == 4 * 10**9 and o['local_buffer_bytes'] == 3 << 19 and o['telemetry'] is False"
refused 2 "Error: No such option: --port" "mooncake_master unknown option" -- \
	"$SERVE" mooncake_master --port 8700
grep -qF "Usage: trtllm-serve mooncake_master [OPTIONS]" err || fail "mooncake_master usage line: $(cat err)"
refused 2 "Error: Invalid value for '--rpc_port': 'x' is not a valid integer." "mooncake_master bad port" -- \
	"$SERVE" mooncake_master --rpc_port x
refused 2 "Error: No master to join. Pass --master_server_address, or a --config naming one (or set MOONCAKE_CONFIG_PATH)." \
	"mooncake_donor without a master" -- "$SERVE" mooncake_donor --segment_size 4GiB
grep -qF "Usage: trtllm-serve mooncake_donor [OPTIONS]" err || fail "mooncake_donor usage line: $(cat err)"
refused 2 "Error: --segment_size: unknown size unit 'XB' in '4XB'" "mooncake_donor bad size" -- \
	"$SERVE" "${DONOR_ARGV[@]}" --segment_size 4XB
refused 2 "Error: No such option: --segment-size" "mooncake_donor dashed option" -- \
	"$SERVE" mooncake_donor --master_server_address 10.0.0.1:8700 --segment-size 4GiB
refused 1 "ValueError: TRTLLM_MOONCAKE_MASTER_TIMEOUT='0' must be > 0" "mooncake_donor timeout 0" -- \
	env TRTLLM_MOONCAKE_MASTER_TIMEOUT=0 "$SERVE" "${DONOR_ARGV[@]}"
refused 1 "ValueError: TRTLLM_MOONCAKE_MASTER_TIMEOUT='soon' is not a number" "mooncake_donor timeout word" -- \
	env TRTLLM_MOONCAKE_MASTER_TIMEOUT=soon "$SERVE" "${DONOR_ARGV[@]}"
# no master ever publishes: the donor gives up after the timeout, announces nothing
mkdir -p host/logs/mooncake
refused 1 "TimeoutError: No Mooncake master address appeared in /logs/mooncake_master.addr within 1s" \
	"mooncake_donor, no master" -- env TRTLLM_MOONCAKE_MASTER_TIMEOUT=1 "$SERVE" "${DONOR_ARGV[@]}"
[[ ! -e host/logs/mooncake/donor-node-02.ready ]] || fail "the donor announced a segment without a master"

# a worker's mooncake_store block (design A: no MOONCAKE_CONFIG_PATH)
printf 'kv_connector_config:\n  connector: mooncake-store\n  mooncake_store:\n    master_server_address: file:///logs/mooncake_master.addr\n    protocol: rdma\n    global_segment_size: 4GiB\n' \
	>host/logs/pool.yaml
accepted pw1 "trtllm-serve with a mooncake_store block: checked, no master waited for" -- \
	env TRTLLM_MOONCAKE_RUN_DIR=/logs/mooncake/prefill-0 TRTLLM_MOONCAKE_MASTER_TIMEOUT=900 \
	TRTLLM_MOONCAKE_STORE_ROLE=producer "$SERVE" /model --host 192.0.2.1 --port 8000 --config /logs/pool.yaml
grep -qF "would provision the pool of file:///logs/mooncake_master.addr" err ||
	fail "check-only provisioning: $(cat err)"
printf 'kv_connector_config:\n  connector: mooncake-store\n  mooncake_store:\n    master_server_address: file:///logs/mooncake_master.addr\n    segment_size: 4GiB\n    global_segment_size: 16GB\n' \
	>host/logs/pool-bad.yaml
refused 1 "pydantic_core._pydantic_core.ValidationError: 2 validation errors for TorchLlmArgs" \
	"mooncake_store: an unknown key and a decimal size" -- "$SERVE" /model --config /logs/pool-bad.yaml
grep -qF "kv_connector_config.mooncake_store.segment_size" err || fail "unknown mooncake_store key: $(cat err)"
grep -qF "Extra inputs are not permitted [type=extra_forbidden" err || fail "unknown mooncake_store key: $(cat err)"
grep -qF "uses a decimal unit" err || fail "decimal size in mooncake_store: $(cat err)"
refused 1 "ValueError: 'donor' is not a valid StoreRole" "TRTLLM_MOONCAKE_STORE_ROLE donor" -- \
	env TRTLLM_MOONCAKE_STORE_ROLE=donor FAKE_CHECK_ONLY=1 "$SERVE" /model --config /logs/pool.yaml
refused 1 "ValueError: TRTLLM_MOONCAKE_MASTER_TIMEOUT='-1' must be > 0" "worker timeout -1" -- \
	env TRTLLM_MOONCAKE_MASTER_TIMEOUT=-1 FAKE_CHECK_ONLY=1 "$SERVE" /model --config /logs/pool.yaml
refused 1 "TimeoutError: No Mooncake master address appeared in /logs/mooncake_master.addr within 1s" \
	"trtllm-serve provisioning, no master" -- env TRTLLM_MOONCAKE_MASTER_TIMEOUT=1 \
	TRTLLM_MOONCAKE_RUN_DIR=/logs/mooncake/prefill-9 "$SERVE" /model --config /logs/pool.yaml
[[ ! -e host/logs/mooncake/prefill-9/mooncake.json ]] || fail "a client config without a master"
# dynamo.trtllm builds its LLM itself: a block alone gives it no client config
refused 1 "does not provision a mooncake_store block" "dynamo.trtllm with a mooncake_store block" -- \
	env FAKE_CHECK_ONLY=1 "$DTRT" --model-path /model --extra-engine-args /logs/pool.yaml

# srt-slurm's pool wrapper: the YAML popped from argv, then dynamo.trtllm on the rest
POOL_ARGV=(/logs/pool.yaml --model-path /model --served-model-name m2 --disaggregation-mode prefill
	--extra-engine-args /logs/pool.yaml --request-plane tcp)
accepted pp1 "pool wrapper: srtctl's argv" -- env TRTLLM_MOONCAKE_RUN_DIR=/logs/mooncake/prefill-0 "$POOL" "${POOL_ARGV[@]}"
opts pp1 "o['role'] == 'prefill' and o['dynamo']['served_model_name'] == 'm2' and o['dynamo']['extra_engine_args'] == '/logs/pool.yaml'"
opts pp1 "o['engine']['kv_connector_config']['mooncake_store']['global_segment_size'] == '4GiB'"
accepted pp2 "pool wrapper under the launcher (check-only, in-process)" -- env SLURM_PROCID=0 SLURM_NTASKS=1 \
	"$LAUNCH" "$POOL" "${POOL_ARGV[@]}"
opts pp2 "o['role'] == 'prefill' and o['mpi_world_size'] == 1"
grep -qF "Rank0 Task exit code: 0" err || fail "pool wrapper under the launcher: $(cat err)"
printf 'kv_connector_config:\n  connector: mooncake-store\n  connector_module: my.connector\n' >host/logs/pool-other.yaml
accepted pp3 "pool wrapper, another connector module: a no-op" -- "$POOL" /logs/pool-other.yaml \
	--model-path /model --extra-engine-args /logs/pool-other.yaml
opts pp3 "o['engine']['kv_connector_config']['connector_module'] == 'my.connector'"
refused 1 "IndexError: pop index out of range" "pool wrapper without arguments" -- "$POOL"
refused 1 "FileNotFoundError: [Errno 2] No such file or directory: '/logs/nope.yaml'" "pool wrapper, missing YAML" -- \
	"$POOL" /logs/nope.yaml --model-path /model
refused 1 "KeyError: 'kv_connector_config'" "pool wrapper, YAML without a connector" -- \
	"$POOL" /logs/agg.yaml --model-path /model
refused 1 "ValidationError: 2 validation errors for KvCacheConnectorConfig" "pool wrapper, bad mooncake_store" -- \
	"$POOL" /logs/pool-bad.yaml --model-path /model
grep -qF "mooncake_store.segment_size" err || fail "pool wrapper: the error's location: $(cat err)"
printf 'kv_connector_config:\n  connector: mooncake-store\n  mooncake_store: {launch_master: true}\n' >host/logs/pool-own.yaml
refused 2 "is not imitated" "pool wrapper, launch_master" -- "$POOL" /logs/pool-own.yaml --model-path /model
refused 1 "Unrecognized argument: --bogus" "pool wrapper: dynamo.trtllm parses the rest" -- \
	env FAKE_CHECK_ONLY=1 "$POOL" "${POOL_ARGV[@]}" --bogus 1

###########################################################################
# the real etcd and NATS

start_discovery_plane

export ETCD_ENDPOINTS=http://127.0.0.1:$EC NATS_SERVER=nats://127.0.0.1:$NP FAKE_BIND_HOST=127.0.0.1 \
	FAKE_RECORD_DIR=$work/rec FAKE_PERF_JITTER=0

###########################################################################
# dynamo.trtllm under the launcher: a prefill of two ranks, a decode of one

read -r SP1 SP2 FP < <(net freeports 3)
# srun --ntasks=2 for the TP2 prefill: two copies of the launcher, ranks 0 and 1
start p0.log env SLURM_PROCID=0 SLURM_NTASKS=2 SLURM_NODEID=0 DYN_SYSTEM_PORT="$SP1" FAKE_ENGINE_START_DELAY=2 \
	"$LAUNCH" "$DTRT" "${DT_ARGV[@]}"
P0=$SPID
child_of p0.log
PC=$CHILD
start p1.log env SLURM_PROCID=1 SLURM_NTASKS=2 SLURM_NODEID=0 DYN_SYSTEM_PORT="$SP1" \
	"$LAUNCH" "$DTRT" "${DT_ARGV[@]}"
P1=$SPID
start d0.log env SLURM_PROCID=0 SLURM_NTASKS=1 DYN_SYSTEM_PORT="$SP2" "$LAUNCH" "$DTRT" --model-path /model \
	--served-model-name m1 --disaggregation-mode decode --extra-engine-args /logs/decode.yaml --request-plane tcp \
	--publish-metrics
D0=$SPID
child_of d0.log
start f.log "$DFRONT" --http-port "$FP"
FW=$SPID

# the prefill's status server: 503 while it loads, 200 once registered
h waitstatus "http://127.0.0.1:$SP1/health" 15 503 || fail "prefill /health never answered 503 while loading"
h waitstatus "http://127.0.0.1:$SP1/health" 20 200 || fail "prefill /health never answered 200"
r=$(h http GET "http://127.0.0.1:$SP1/health")
[[ $r == *'"status": "ready"'* && $r == *'"generate": "ready"'* ]] || fail "prefill /health when ready: $r"
h waitstatus "http://127.0.0.1:$SP2/health" 20 200 || fail "decode /health never answered 200"
net waitjson "http://127.0.0.1:$FP/health" 20 \
	"sorted(i['component'] for i in d['instances'] if i['endpoint'] == 'generate') == ['backend', 'prefill']" ||
	fail "frontend never listed the prefill and the decode instance: $(h http GET "http://127.0.0.1:$FP/health")"
alive "$P1" || fail "rank 1 of the prefill exited: $(cat p1.log)"
grep -qF "Rank1 run mgmn worker node with mpi_world_size: 2 ..." p1.log || fail "rank 1 log: $(cat p1.log)"
h py "
w = {r['role']: r for r in map(json.loads, open('$work/rec/engine.jsonl'))}
assert sorted(w) == ['decode', 'prefill'], w.keys()
p = w['prefill']
assert p['prog'] == 'dynamo.trtllm' and p['component'] == 'prefill' and p['mpi_world_size'] == 2, p
assert p['under_launcher'] and p['options']['tensor_parallel_size'] == 2, p
assert not [k for k in p['env'] if k.startswith('SLURM_')], p['env']
assert p['env']['tllm_mpi_size'] == '2' and p['dyn_env']['DYN_SYSTEM_PORT'] == '$SP1', p['env']
assert w['decode']['component'] == 'backend' and w['decode']['mpi_world_size'] == 1
ranks = sorted(r['rank'] for r in map(json.loads, open('$work/rec/launcher.jsonl')))
assert ranks == ['0', '0', '1'], ranks
" || fail "records of the launchers and workers"

# one completion through the frontend: prefill first, then decode
r=$(h http POST "http://127.0.0.1:$FP/v1/completions" '{"model":"m1","prompt":"a b c","max_tokens":4}' tq-1)
[[ $(head -n 1 <<<"$r") == 200 && $r == *'"text": "ok"'* ]] || fail "completion through the frontend: $r"
h py "
rr = [json.loads(l) for l in open('$work/rec/requests.jsonl')]
rr = [r for r in rr if r['request_id'] == 'tq-1']
assert [(r['prog'], r['role']) for r in rr] == [('dynamo.trtllm', 'prefill'), ('dynamo.trtllm', 'decode')], rr
" || fail "request records: $(cat rec/requests.jsonl)"

# the prefill's rank 0 is stopped: the task gets the signal and revokes its
# lease, the launcher ends as bash would (143); rank 1 the same
kill -TERM "$P0"
expect_rc 143 "$P0" 15 "prefill rank 0 launcher on SIGTERM"
gone "$PC" 10 || fail "the prefill worker outlived its launcher"
grep -q "revoked lease" p0.log || fail "prefill worker did not revoke its lease: $(tail -n 5 p0.log)"
kill -TERM "$P1"
expect_rc 143 "$P1" 10 "prefill rank 1 launcher on SIGTERM"
net waitjson "http://127.0.0.1:$FP/health" 15 "[i['component'] for i in d['instances']] == ['backend']" ||
	fail "frontend still lists the stopped prefill"

# a world of two ranks for a TP1 engine: the task fails, the launcher says so
# and exits with its status
start m0.log env SLURM_PROCID=0 SLURM_NTASKS=2 "$LAUNCH" "$DTRT" --model-path /model \
	--extra-engine-args /logs/decode.yaml
M0=$SPID
child_of m0.log
expect_rc 1 "$M0" 15 "launcher of a mismatched world"
grep -qF "= 1 * 1 * 1 = 1" m0.log || fail "mismatch message: $(cat m0.log)"
grep -qF "Rank0 Task exit code: 1" m0.log || fail "mismatch: no task exit code line: $(cat m0.log)"

kill -TERM "$D0"
expect_rc 143 "$D0" 15 "decode launcher on SIGTERM"
stop "$FW" "dynamo frontend"

###########################################################################
# trtllm-serve under the launcher (srtctl's direct path), then
# `trtllm-serve disaggregated` in front of a context and a generation server

read -r AP CP GP OP < <(net freeports 4)
start a0.log env SLURM_PROCID=0 SLURM_NTASKS=1 "$LAUNCH" "$SERVE" /model --host 127.0.0.1 --port "$AP" \
	--config /logs/agg.yaml
A0=$SPID
child_of a0.log
h waitstatus "http://127.0.0.1:$AP/health" 20 200 || fail "trtllm-serve /health never answered 200: $(cat a0.log)"
r=$(h http GET "http://127.0.0.1:$AP/v1/models")
[[ $r == *'"id": "/model"'* ]] || fail "trtllm-serve /v1/models: $r"
s=$(h stream "http://127.0.0.1:$AP/v1/chat/completions" \
	'{"model":"/model","messages":[{"role":"user","content":"hi"}],"max_tokens":3,"stream":true,"stream_options":{"include_usage":true}}' aq-1)
h py "
s = json.loads('''$s''')
assert s['status'] == 200 and s['chunks'] == 3 and s['done'] and s['usage']['completion_tokens'] == 3, s
" || fail "trtllm-serve streamed chat: $s"
kill -TERM "$A0"
expect_rc 143 "$A0" 15 "trtllm-serve launcher on SIGTERM"

start c.log "$SERVE" /model --host 127.0.0.1 --port "$CP" --config /logs/agg.yaml
CW=$SPID
start g.log "$SERVE" /model --host 127.0.0.1 --port "$GP" --config /logs/agg.yaml
GW=$SPID
printf 'hostname: 127.0.0.1\nport: %s\nbackend: pytorch\ncontext_servers:\n  num_instances: 1\n  urls: ["127.0.0.1:%s"]\ngeneration_servers:\n  num_instances: 1\n  urls: ["127.0.0.1:%s"]\n' \
	"$OP" "$CP" "$GP" >host/logs/ser.yaml
start o.log "$SERVE" disaggregated -c /logs/ser.yaml -t 30
OW=$SPID
h waitstatus "http://127.0.0.1:$OP/health" 30 200 || fail "disaggregated server /health never answered 200: $(cat o.log)"
r=$(h http POST "http://127.0.0.1:$OP/v1/completions" '{"model":"/model","prompt":"a b c","max_tokens":4}' oq-1)
[[ $(head -n 1 <<<"$r") == 200 && $r == *'"text": "ok"'* ]] || fail "completion through the disaggregated server: $r"
s=$(h stream "http://127.0.0.1:$OP/v1/completions" \
	'{"model":"/model","prompt":"a b c d","max_tokens":5,"stream":true,"stream_options":{"include_usage":true}}' oq-2)
h py "
s = json.loads('''$s''')
assert s['status'] == 200 and s['chunks'] == 5 and s['done'], s
rr = [json.loads(l) for l in open('$work/rec/requests.jsonl')]
for rid in ('oq-1', 'oq-2'):
    got = [(r['port'], r['disaggregated_params']['request_type']) for r in rr if r['request_id'] == rid]
    assert got == [($CP, 'context_only'), ($GP, 'generation_only')], got
    gen = [r for r in rr if r['request_id'] == rid][1]
    assert gen['disaggregated_params']['ctx_request_id'] is not None, gen
" || fail "disaggregated requests: $s $(cat rec/requests.jsonl)"
for p in "$OW" "$CW" "$GW"; do stop "$p" "trtllm-serve process"; done

###########################################################################
# the mooncake-store KV connector: the client config MOONCAKE_CONFIG_PATH names
# (what srtctl renders per role) is read as TRT-LLM reads it, and the worker
# joins the master it names before it serves

printf 'kv_connector_config:\n  connector: mooncake-store\n' >host/logs/mc.yaml
read -r MP SP < <(net freeports 2)
refused 1 "needs a Mooncake client config" "mooncake-store without a client config" -- \
	"$SERVE" /model --host 127.0.0.1 --port "$SP" --config /logs/mc.yaml
printf '{"global_segment_size": "16GB", "master_server_address": "127.0.0.1:%s"}\n' "$MP" \
	>host/logs/mc-gb.json
refused 1 "uses a decimal unit" "client config in decimal units" -- \
	env MOONCAKE_CONFIG_PATH=/logs/mc-gb.json "$SERVE" /model --host 127.0.0.1 --port "$SP" \
	--config /logs/mc.yaml
printf '{"role": "donor", "master_server_address": "127.0.0.1:%s"}\n' "$MP" >host/logs/mc-role.json
refused 1 "role must be one of both, producer, consumer, capacity" "client config role donor" -- \
	env MOONCAKE_CONFIG_PATH=/logs/mc-role.json "$SERVE" /model --host 127.0.0.1 --port "$SP" \
	--config /logs/mc.yaml
printf 'kv_connector_config:\n  connector: mooncake-store\n  mooncake_store: {launch_master: true}\n' \
	>host/logs/mc-own.yaml
refused 2 "is not imitated" "TRT-LLM's own pool" -- \
	"$SERVE" /model --host 127.0.0.1 --port "$SP" --config /logs/mc-own.yaml
# a connector named by another module is not Mooncake's: no client config needed
printf 'kv_connector_config:\n  connector: mooncake-store\n  connector_module: my.connector\n' \
	>host/logs/mc-other.yaml
accepted mc-other.out "another connector module" -- \
	"$SERVE" /model --host 127.0.0.1 --port "$SP" --config /logs/mc-other.yaml
printf '{"role": " Capacity ", "global_segment_size": "1GiB", "local_buffer_size": 4096, "model_key": "m", "master_server_address": "127.0.0.1:%s"}\n' \
	"$MP" >host/logs/mc-ok.json
# the master (a listener standing in for its RPC port) comes up after the worker
start mc.log env MOONCAKE_CONFIG_PATH=/logs/mc-ok.json FAKE_RECORD_DIR="$work/rec" "$SERVE" /model \
	--host 127.0.0.1 --port "$SP" --config /logs/mc.yaml
MW=$SPID
end=$((SECONDS + 15))
until grep -q "not reachable" mc.log 2>/dev/null; do
	((SECONDS < end)) || fail "the worker did not wait for the master: $(cat mc.log)"
	sleep 0.05
done
python3 -c 'import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8); time.sleep(60)' "$MP" &
LP=$!
pids+=("$LP")
h waitstatus "http://127.0.0.1:$SP/health" 20 200 || fail "mooncake-store worker never served: $(cat mc.log)"
grep -q "joins the pool at 127.0.0.1:$MP as capacity" mc.log || fail "client config not read: $(cat mc.log)"
grep -q "Connected to Mooncake master 127.0.0.1:$MP" mc.log || fail "no master connection: $(cat mc.log)"
stop "$MW" "mooncake-store worker"
kill "$LP" 2>/dev/null || true

###########################################################################
# TRT-LLM's own pool, live: trtllm-serve mooncake_master runs the master
# binary (the stand-in's fake_mooncake_master: no mooncake_master on PATH)
# and publishes its address only once the RPC port answers; a donor waiting
# on that address file lends its segment, then announces it; a trtllm-serve
# worker and srt-slurm's Dynamo pool wrapper provision from the same file

await_line() { # FILE PATTERN SECONDS WHAT: until FILE holds a line with PATTERN (grep -F)
	local end=$((SECONDS + $3))
	until [[ -f $1 ]] && grep -qF -- "$2" "$1"; do
		((SECONDS < end)) || fail "$4: no '$2' in $1: $(tail -n 5 "$1" 2>/dev/null)"
		sleep 0.05
	done
}

export TLLM_LOG_LEVEL=INFO
read -r KRP KMP KSP KDSP R2 M2 R3 M3 < <(net freeports 8)
ADDR=host/logs/mooncake_master.addr
rm -f "$ADDR" host/logs/mooncake/donor-node-02.ready
mkdir -p host/logs/mooncake/master
# the donor first: it waits for an address file nobody has written yet
start donor.log env TRTLLM_MOONCAKE_RUN_DIR=/logs/mooncake/donor-node-02 TRTLLM_MOONCAKE_MASTER_TIMEOUT=900 \
	"$SERVE" "${DONOR_ARGV[@]}" --heartbeat_seconds 1
DN=$SPID
await_line donor.log "reading the master's address from /logs/mooncake_master.addr" 15 "donor"
alive "$DN" || fail "the donor did not wait for the master: $(cat donor.log)"
[[ ! -e host/logs/mooncake/donor-node-02.ready ]] || fail "the donor announced a segment before any master"
# the master, slow to bind its RPC port (FAKE_MASTER_SLOW_START, read by the binary)
start master.log env TRTLLM_MOONCAKE_RUN_DIR=/logs/mooncake/master TRTLLM_MOONCAKE_MASTER_TIMEOUT=900 \
	FAKE_MASTER_SLOW_START=1.5 "$SERVE" mooncake_master --rpc_port "$KRP" --metrics_port "$KMP" \
	--eviction_ratio 0.05 --address_file /logs/mooncake_master.addr --heartbeat_seconds 1
MW=$SPID
await_line master.log "mooncake-store: master pid=" 15 "master wrapper"
MC=$(sed -n 's/.*master pid=\([0-9]*\) logging to.*/\1/p' master.log | head -n 1)
pids+=("$MC")
# whenever the address file exists the RPC port answers; before, it did not
h py "
import os, socket, time
seen_closed, end = False, time.monotonic() + 30
while time.monotonic() < end:
    published = os.path.exists('$ADDR')
    try:
        socket.create_connection(('127.0.0.1', $KRP), timeout=0.5).close()
        up = True
    except OSError:
        up = False
    if published:
        assert up, 'the address was published while the RPC port refused'
        break
    seen_closed = seen_closed or not up
    time.sleep(0.02)
else:
    raise SystemExit('no address file')
assert seen_closed, 'the RPC port never refused before the address appeared'
assert open('$ADDR').read() == '127.0.0.1:$KRP\n', repr(open('$ADDR').read())
assert open('host/logs/mooncake/master/master.addr').read() == '127.0.0.1:$KRP\n'
assert not [f for f in os.listdir('host/logs') + os.listdir('host/logs/mooncake/master') if f.endswith('.partial')]
" || fail "master address publication: $(cat master.log)"
await_line master.log "published master 127.0.0.1:$KRP to /logs/mooncake_master.addr" 5 "master"
grep -qF "master ready at 127.0.0.1:$KRP after" master.log || fail "master ready line: $(cat master.log)"
await_line master.log "mooncake-store: master at 127.0.0.1:$KRP alive after 0m" 10 "master heartbeat"
[[ -s host/logs/mooncake/master/mooncake_master.log ]] || fail "the master binary's log is empty"
h py "
import json
r = [json.loads(l) for l in open('$work/rec/mooncake_master.jsonl')][-1]
assert r['argv'][1:] == ['--rpc_port=$KRP', '--metrics_port=$KMP', '--eviction_ratio=0.05'], r['argv']
assert r['env']['GLOG_logtostderr'] == '1' and r['env']['GLOG_v'] == '1', r['env']
assert r['pid'] == $MC, (r['pid'], $MC)
" || fail "the master binary's argv and env"
# the donor resolves the address, mounts its segment, only then announces it
await_line donor.log "announced this segment in /logs/mooncake/donor-node-02.ready" 15 "donor"
h py "
import re
text = open('host/logs/mooncake/donor-node-02.ready').read()
assert re.fullmatch(r'\d+\.\d+\.\d+\.\d+ 4294967296\n', text), repr(text)
lines = open('donor.log').read()
order = ['names the master at 127.0.0.1:$KRP', 'the master at 127.0.0.1:$KRP answered',
         'segment_size=4.0GiB (4294967296 bytes) protocol=rdma', 'is now part of the pool',
         'announced this segment']
at = [lines.index(s) for s in order]
assert at == sorted(at), at
" || fail "donor ready file and order: $(cat donor.log)"
segs=$(h http GET "http://127.0.0.1:$KMP/get_all_segments")
[[ $(tail -n +2 <<<"$segs") == 127.0.0.1:* ]] || fail "the master does not list the donor's segment: $segs"
await_line donor.log "still lending 4.0GiB to the pool at file:///logs/mooncake_master.addr after 0m" 10 "donor heartbeat"

# a trtllm-serve prefill worker provisions from the same address file
start pw.log env TRTLLM_MOONCAKE_RUN_DIR=/logs/mooncake/prefill-0 TRTLLM_MOONCAKE_MASTER_TIMEOUT=900 \
	TRTLLM_MOONCAKE_STORE_ROLE=producer "$SERVE" /model --host 127.0.0.1 --port "$KSP" --config /logs/pool.yaml
PW=$SPID
h waitstatus "http://127.0.0.1:$KSP/health" 20 200 || fail "provisioned trtllm-serve never served: $(cat pw.log)"
h py "
import json
c = json.load(open('host/logs/mooncake/prefill-0/mooncake.json'))
assert c == {'metadata_server': 'P2PHANDSHAKE', 'master_server_address': '127.0.0.1:$KRP',
             'protocol': 'rdma', 'device_name': c['device_name'], 'global_segment_size': 4 << 30,
             'local_buffer_size': 1 << 30, 'role': 'both', 'transfer_batch_size': 64,
             'stage_through_host': True}, c
r = [r for r in map(json.loads, open('$work/rec/engine.jsonl')) if r['port'] == $KSP][-1]
assert r['env']['MOONCAKE_CONFIG_PATH'] == '/logs/mooncake/prefill-0/mooncake.json', r['env']
assert r['mooncake_master'] == '127.0.0.1:$KRP' and r['mooncake']['role'] == 'producer', r['mooncake']
assert r['mooncake']['provisioned'] is True, r['mooncake']
" || fail "the worker's provisioning: $(cat pw.log)"
grep -qF "joins the pool at 127.0.0.1:$KRP as producer" pw.log || fail "worker join line: $(cat pw.log)"
stop "$PW" "provisioned trtllm-serve"
# an inherited MOONCAKE_CONFIG_PATH wins over the block
accepted pw2 "an inherited client config wins over the block" -- env MOONCAKE_CONFIG_PATH=/logs/mc-ok.json \
	"$SERVE" /model --config /logs/pool.yaml
grep -qF "/logs/mc-ok.json joins the pool at 127.0.0.1:$MP as capacity" err || fail "inherited config: $(cat err)"

# srt-slurm's Dynamo pool wrapper under the launcher
start dp.log env SLURM_PROCID=0 SLURM_NTASKS=1 DYN_SYSTEM_PORT="$KDSP" TRTLLM_MOONCAKE_RUN_DIR=/logs/mooncake/prefill-1 \
	TRTLLM_MOONCAKE_MASTER_TIMEOUT=900 TRTLLM_MOONCAKE_STORE_ROLE=both "$LAUNCH" "$POOL" "${POOL_ARGV[@]}"
DP=$SPID
child_of dp.log
h waitstatus "http://127.0.0.1:$KDSP/health" 20 200 || fail "the pool wrapper's worker never registered: $(cat dp.log)"
h py "
import json
c = json.load(open('host/logs/mooncake/prefill-1/mooncake.json'))
assert c['master_server_address'] == '127.0.0.1:$KRP' and c['global_segment_size'] == 4 << 30, c
r = [r for r in map(json.loads, open('$work/rec/engine.jsonl'))
     if r.get('env', {}).get('TRTLLM_MOONCAKE_RUN_DIR') == '/logs/mooncake/prefill-1'][-1]
assert r['prog'] == 'dynamo.trtllm' and r['role'] == 'prefill', r['prog']
assert r['env']['MOONCAKE_CONFIG_PATH'] == '/logs/mooncake/prefill-1/mooncake.json', r['env']
assert r['mooncake_master'] == '127.0.0.1:$KRP' and r['served_model_names'] == ['m2'], r
" || fail "the pool wrapper's provisioning: $(cat dp.log)"
kill -TERM "$DP"
expect_rc 143 "$DP" 15 "pool wrapper launcher on SIGTERM"

# SIGTERM to the master: its binary stopped, both address files withdrawn
kill -TERM "$MW"
expect_rc 143 "$MW" 20 "master wrapper on SIGTERM (trtllm-serve's 128 + N)"
gone "$MC" 5 || fail "the master binary outlived its wrapper"
[[ ! -e $ADDR && ! -e host/logs/mooncake/master/master.addr ]] || fail "the master address was not withdrawn"
h py "
lines = open('master.log').read()
order = ['withdrew the master address at /logs/mooncake/master/master.addr',
         'withdrew the master address at /logs/mooncake_master.addr',
         'master at 127.0.0.1:$KRP stopped', 'signal 15 received, shut down']
at = [lines.index(s) for s in order]
assert at == sorted(at), at
" || fail "master shutdown lines: $(tail -n 6 master.log)"
# the donor outlives the master (its segment is lost, not withdrawn); SIGTERM ends it
alive "$DN" || fail "the donor exited with the master: $(tail -n 5 donor.log)"
kill -TERM "$DN"
expect_rc 143 "$DN" 10 "donor on SIGTERM"
h py "
lines = open('donor.log').read()
assert lines.index('withdrew the 4.0GiB lent from') < lines.index('signal 15 received, shut down')
" || fail "donor shutdown lines: $(tail -n 4 donor.log)"
[[ -s host/logs/mooncake/donor-node-02.ready ]] || fail "the donor deleted its ready file"

# a master binary that dies: click's error, exit 1, the address withdrawn
start m2.log env TRTLLM_MOONCAKE_RUN_DIR=/logs/mooncake/m2 FAKE_MASTER_CRASH_AFTER=1 "$SERVE" mooncake_master \
	--rpc_port "$R2" --metrics_port "$M2" --address_file /logs/m2.addr
M2W=$SPID
end=$((SECONDS + 15))
until [[ -e host/logs/m2.addr ]] || ! alive "$M2W"; do
	((SECONDS < end)) || fail "crashing master never published: $(cat m2.log)"
	sleep 0.02
done
expect_rc 1 "$M2W" 20 "master wrapper when the binary dies"
grep -qF "Error: mooncake_master exited with code -6. See /logs/mooncake/m2/mooncake_master.log" m2.log ||
	fail "dead master message: $(tail -n 3 m2.log)"
[[ ! -e host/logs/m2.addr ]] || fail "a dead master's address stayed published"
# a master whose RPC port never answers: nothing published, TimeoutError
refused 1 "TimeoutError: The Mooncake master at 127.0.0.1:$R3 did not accept connections within 2s" \
	"master that never answers" -- env FAKE_MASTER_HANG=rpc TRTLLM_MOONCAKE_MASTER_TIMEOUT=2 \
	TRTLLM_MOONCAKE_RUN_DIR=/logs/mooncake/m3 "$SERVE" mooncake_master --rpc_port "$R3" --metrics_port "$M3" \
	--address_file /logs/m3.addr
[[ ! -e host/logs/m3.addr && ! -e host/logs/mooncake/m3/master.addr ]] || fail "an unready master was published"
refused 1 "FileNotFoundError: '/nonexistent/mooncake_master' is not on PATH" "master binary missing" -- \
	env TRTLLM_MOONCAKE_MASTER_BINARY=/nonexistent/mooncake_master "$SERVE" mooncake_master --run_dir "$work/m4"
unset TLLM_LOG_LEVEL

halt "$NATS_PID" "nats-server"
halt "$ETCD_PID" "etcd"
echo "ok: trtllm fakes"
