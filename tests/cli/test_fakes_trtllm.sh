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
# server.  See
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
refused 127 "FAKE_CHECK_ONLY=1 runs only the stand-ins dynamo_trtllm, trtllm_serve in-process" \
	"launcher check-only: another program" -- env FAKE_CHECK_ONLY=1 "$LAUNCH" sh -c 'touch ran'
[[ ! -e ran ]] || fail "launcher check-only ran a program"

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

halt "$NATS_PID" "nats-server"
halt "$ETCD_PID" "etcd"
echo "ok: trtllm fakes"
