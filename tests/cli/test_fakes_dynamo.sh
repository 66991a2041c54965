#!/usr/bin/env bash
# tests/cli/test_fakes_dynamo.sh: the Dynamo stand-ins under tests/fakes
# (dynamo_sglang, dynamo_vllm, dynamo_mocker, dynamo_frontend) against a REAL etcd
# and a
# REAL nats-server started here on 127.0.0.1: refusals (exit status and
# message), the worker status server (503 before registration, 200 after),
# registration in etcd seen by the frontend's /health, one request through
# a prefill and then a decode worker, a worker leaving on SIGTERM, the NATS
# request plane with NATS down, and an aggregated vLLM worker.  See
# tests/fakes/README.md ("Dynamo stand-ins").  Skips (77) when etcd or
# nats-server is not installed.  Loopback only, free ports picked by the
# kernel, every wait bounded, every process stopped by PID.
set -euo pipefail

src=${SRT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
F=$src/tests/fakes
DSGL=$F/dynamo_sglang
DVLLM=$F/dynamo_vllm
DFRONT=$F/dynamo_frontend
DMOCK=$F/dynamo_mocker


. "$src/tests/cli/fakes_lib.sh"
need_discovery_plane
unset FAKE_RECORD_DIR FAKE_RECORD_FILE FAKE_CHECK_ONLY FAKE_BIND_HOST FAKE_CONTAINER_MOUNTS \
	FAKE_ENGINE_START_DELAY FAKE_ENGINE_CRASH_AFTER MOONCAKE_MASTER MOONCAKE_CONFIG_PATH \
	ETCD_ENDPOINTS NATS_SERVER
while read -r v; do unset "$v"; done < <(compgen -e | grep '^DYN_' || true)

h() { python3 "$fakes_lib_dir/fakes_http.py" "$@"; }



mkdir -p host/model rec
export FAKE_CONTAINER_MOUNTS=$work/host/model:/model

###########################################################################
# command lines: accepted and refused

accepted s1 "dynamo.sglang srt-slurm argv" -- "$DSGL" --model-path /model --served-model-name m1 \
	--host 0.0.0.0 --port 30000 --nccl-port 17500 --disaggregation-mode prefill \
	--disaggregation-bootstrap-port 7200 --tp 4 --request-plane tcp --dump-config-to "$work/cfg.json" \
	--dyn-reasoning-parser deepseek_r1 --endpoint-types completions --no-use-sglang-tokenizer
opts s1 "o['role'] == 'prefill' and o['component'] == 'prefill' and o['namespace'] == 'dynamo'"
opts s1 "o['engine']['tp_size'] == 4 and o['engine']['port'] == 30000 and o['dynamo']['request_plane'] == 'tcp'"
opts s1 "o['dynamo']['endpoint_types'] == 'completions' and o['dynamo']['use_sglang_tokenizer'] is False"
accepted s2 "dynamo.sglang decode, namespace from the environment" -- env DYN_NAMESPACE=ns1 \
	DYN_REQUEST_PLANE=nats "$DSGL" --model-path /model --disaggregation-mode decode
opts s2 "o['component'] == 'backend' and o['namespace'] == 'ns1' and o['dynamo']['request_plane'] == 'nats'"
accepted s3 "dynamo.sglang agg, explicit endpoint" -- "$DSGL" --model-path /model \
	--endpoint dyn://ns2.worker.generate
opts s3 "o['role'] == 'agg' and (o['namespace'], o['component'], o['endpoint']) == ('ns2', 'worker', 'generate')"
kv='{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
accepted v1 "dynamo.vllm prefill, underscores" -- "$DVLLM" --model /model --disaggregation-mode prefill \
	--kv_transfer_config "$kv" --tensor_parallel_size 2 --served-model-name m1
opts v1 "o['role'] == 'prefill' and o['component'] == 'prefill' and o['engine']['tensor_parallel_size'] == 2"
opts v1 "o['engine']['kv_transfer_config'] == {'kv_connector': 'NixlConnector', 'kv_role': 'kv_both'}"
accepted v2 "dynamo.vllm default mode" -- "$DVLLM" --model /model
opts v2 "o['role'] == 'agg' and o['component'] == 'backend'"
accepted f1 "dynamo.frontend new flags" -- "$DFRONT" --http-port 8123 --router-mode least-loaded \
	--kv-cache-block-size 64 --migration-limit 3 --enforce-disagg --namespace dynamo --request-plane tcp
opts f1 "o['http_port'] == 8123 and o['http_host'] == '0.0.0.0' and o['router_mode'] == 'least-loaded'"
opts f1 "o['migration_limit'] == 3 and o['enforce_disagg'] is True and o['kv_cache_block_size'] == 64"
# Dynamo 1.2 disables a busy threshold with the literal None (public srt-slurm
# recipes/b200-fp4/glm5.2-agentx*.yaml pass all three so)
accepted f3 "dynamo.frontend thresholds None" -- "$DFRONT" --router-mode kv \
	--active-decode-blocks-threshold None --active-prefill-tokens-threshold None \
	--active-prefill-tokens-threshold-frac None
opts f3 "o['active_decode_blocks_threshold'] is None and o['active_prefill_tokens_threshold'] is None"
refused 2 "argument --active-decode-blocks-threshold: invalid float value: 'off'" \
	"dynamo.frontend threshold not a number" -- "$DFRONT" --active-decode-blocks-threshold off
accepted f2 "dynamo.frontend port from DYN_HTTP_PORT" -- env DYN_HTTP_PORT=9001 "$DFRONT"
opts f2 "o['http_port'] == 9001 and o['router_mode'] == 'round-robin'"

refused 2 "__main__.py: error: unrecognized arguments: --bogus 1" "dynamo.sglang unknown flag" -- \
	"$DSGL" --model-path /model --bogus 1
refused 2 "error: unrecognized arguments: --migration-limit 2" "dynamo.sglang --migration-limit (frontend flag now)" -- \
	"$DSGL" --model-path /model --migration-limit 2
refused 2 "argument --request-plane: invalid choice: 'http'" "dynamo.sglang old request plane" -- \
	"$DSGL" --model-path /model --request-plane http
refused 1 "Cannot use both --tool-call-parser and --dyn-tool-call-parser." "dynamo.sglang two tool parsers" -- \
	"$DSGL" --model-path /model --tool-call-parser qwen --dyn-tool-call-parser hermes
refused 1 "model path /model/nope does not exist" "dynamo.sglang missing model" -- \
	"$DSGL" --model-path /model/nope
refused 1 "ValueError: Prefill worker requires --kv-transfer-config" "dynamo.vllm prefill without KV config" -- \
	"$DVLLM" --model /model --disaggregation-mode prefill
refused 2 "__main__.py: error: unrecognized arguments: --host 0.0.0.0" "dynamo.vllm frontend flag --host" -- \
	"$DVLLM" --model /model --host 0.0.0.0
refused 2 "error: unrecognized arguments: --api-server-count 2" "dynamo.vllm --api-server-count" -- \
	"$DVLLM" --model /model --api-server-count 2
refused 2 "error: unrecognized arguments: /model" "dynamo.vllm positional model" -- "$DVLLM" /model
refused 1 "ValueError: --is-prefill-worker/--is-decode-worker cannot be combined with --disaggregation-mode" \
	"dynamo.vllm old and new role flags" -- "$DVLLM" --model /model --is-prefill-worker \
	--disaggregation-mode prefill --kv-transfer-config "$kv"
refused 2 "argument --disaggregation-mode: invalid choice: 'both'" "dynamo.vllm bad mode" -- \
	"$DVLLM" --model /model --disaggregation-mode both
accepted m1 "dynamo.mocker srt-slurm prefill argv" -- "$DMOCK" --model-path /model \
	--disaggregation-mode prefill --bootstrap-ports 7200,7201 --engine-type vllm --speedup-ratio 10.0 \
	--data-parallel-size 1 --num-gpu-blocks-override 16384 --max-num-seqs 256 \
	--max-num-batched-tokens 8192 --num-workers 2 --kv-cache-dtype fp8 --no-enable-prefix-caching \
	--max-num-seqs 512
opts m1 "o['role'] == 'prefill' and o['component'] == 'prefill' and o['engine']['num_workers'] == 2"
opts m1 "o['engine']['max_num_seqs'] == 512 and o['engine']['enable_prefix_caching'] is False"
accepted m2 "dynamo.mocker prefixes, hub model, event plane from env" -- env DYN_EVENT_PLANE=zmq \
	"$DMOCK" --model-path Qwen/Qwen3-0.6B --num-gpu-blocks 64 --speedup 2
opts m2 "o['role'] == 'agg' and o['component'] == 'backend' and o['engine']['num_gpu_blocks'] == 64"
opts m2 "o['dynamo']['event_plane'] == 'zmq' and o['engine']['speedup_ratio'] == 2.0"
refused 2 "error: argument --engine-type: invalid choice: 'trtllm'" "dynamo.mocker 1.4 engine type" -- \
	"$DMOCK" --model-path /model --engine-type trtllm
refused 2 "error: unrecognized arguments: --max_num_seqs 4" "dynamo.mocker underscore flag" -- \
	"$DMOCK" --model-path /model --max_num_seqs 4
refused 2 "error: unrecognized arguments: /model" "dynamo.mocker positional model" -- "$DMOCK" /model
refused 1 "ValueError: --bootstrap-ports must have exactly --num-workers (2) ports, got 1: [7200]" \
	"dynamo.mocker one port for two engines (srt-slurm's argv)" -- "$DMOCK" --model-path /model \
	--disaggregation-mode prefill --bootstrap-ports 7200 --num-workers 2
refused 1 "model path /model/nope does not exist" "dynamo.mocker missing model" -- \
	"$DMOCK" --model-path /model/nope
refused 1 "Unknown arguments specified: ['--bogus', '1']" "dynamo.frontend unknown flag" -- \
	"$DFRONT" --http-port 8000 --bogus 1
refused 2 "argument --router-mode: invalid choice: 'consistent'" "dynamo.frontend bad router mode" -- \
	"$DFRONT" --router-mode consistent
refused 1 "ValueError: --migration-limit must be between 0 and 4294967295" "dynamo.frontend migration limit" -- \
	"$DFRONT" --migration-limit -1

# etcd that does not answer: the runtime's connection failure, naming the endpoint
read -r DEAD < <(net freeports 1)
refused 1 "http://127.0.0.1:$DEAD" "worker without etcd" -- env ETCD_ENDPOINTS="http://127.0.0.1:$DEAD" \
	FAKE_DYN_CONNECT_SECONDS=0.5 "$DSGL" --model-path /model
grep -q "Unable to connect to etcd" err || fail "worker without etcd: $(cat err)"
refused 1 "http://127.0.0.1:$DEAD" "frontend without etcd" -- env ETCD_ENDPOINTS="http://127.0.0.1:$DEAD" \
	FAKE_DYN_CONNECT_SECONDS=0.5 "$DFRONT" --http-port "$DEAD"

###########################################################################
# the real etcd and NATS

start_discovery_plane

export ETCD_ENDPOINTS=http://127.0.0.1:$EC NATS_SERVER=nats://127.0.0.1:$NP FAKE_BIND_HOST=127.0.0.1 \
	FAKE_RECORD_DIR=$work/rec FAKE_PERF_JITTER=0

###########################################################################
# a disaggregated SGLang pair and the frontend, on the NATS request plane

read -r SP1 SP2 SP3 FP < <(net freeports 4)
start p.log env DYN_SYSTEM_PORT="$SP1" FAKE_ENGINE_START_DELAY=3 "$DSGL" --model-path /model \
	--served-model-name m1 --host 0.0.0.0 --port 30000 --disaggregation-mode prefill --request-plane nats
PW=$SPID
start d.log env DYN_SYSTEM_PORT="$SP2" "$DSGL" --model-path /model --served-model-name m1 \
	--host 0.0.0.0 --port 30000 --disaggregation-mode decode --request-plane nats
DW=$SPID
start f.log env DYN_SYSTEM_PORT="$SP3" "$DFRONT" --http-port "$FP" --request-plane nats
FW=$SPID

# the prefill worker's status server: 503 while it loads, 200 once registered
h waitstatus "http://127.0.0.1:$SP1/health" 15 503 || fail "prefill /health never answered 503 while loading"
r=$(h http GET "http://127.0.0.1:$SP1/live")
[[ $(head -n 1 <<<"$r") == 503 && $r == *'"status": "notready"'* ]] || fail "prefill /live while loading: $r"
h waitstatus "http://127.0.0.1:$SP1/health" 20 200 || fail "prefill /health never answered 200"
r=$(h http GET "http://127.0.0.1:$SP1/health")
[[ $r == *'"status": "ready"'* && $r == *'"generate": "ready"'* && $r == *'"uptime"'* ]] ||
	fail "prefill /health when ready: $r"
r=$(h http GET "http://127.0.0.1:$SP1/nope")
[[ $(head -n 1 <<<"$r") == 404 && $r == *"Route not found"* ]] || fail "status server 404: $r"
h waitstatus "http://127.0.0.1:$SP2/health" 20 200 || fail "decode /health never answered 200"

# the frontend sees both generate instances
net waitjson "http://127.0.0.1:$FP/health" 20 \
	"sorted(i['component'] for i in d['instances'] if i['endpoint'] == 'generate') == ['backend', 'prefill']" ||
	fail "frontend never listed the prefill and the decode instance: $(h http GET "http://127.0.0.1:$FP/health")"
h http GET "http://127.0.0.1:$FP/health" >fh
h py "
st, d = open('fh').readline(), json.loads(open('fh').read().split('\n', 1)[1])
assert st.strip() == '200' and d['status'] == 'healthy', d
assert d['initial_discovery_complete'] is True and d['initial_discovery_error'] is None, d
assert d['endpoints'] == ['dyn://dynamo.backend.generate', 'dyn://dynamo.prefill.generate'], d
for i in d['instances']:
    assert i['namespace'] == 'dynamo' and i['transport']['tcp'].startswith('127.0.0.1:'), i
    assert isinstance(i['instance_id'], int) and i['instance_id'] > 0, i
" || fail "frontend /health body: $(cat fh)"
r=$(h http GET "http://127.0.0.1:$FP/v1/models")
[[ $r == *'"id": "m1"'* ]] || fail "frontend /v1/models: $r"
r=$(h http GET "http://127.0.0.1:$FP/live")
[[ $(head -n 1 <<<"$r") == 200 && $r == *'"status": "live"'* ]] || fail "frontend /live: $r"
h py "
recs = [json.loads(l) for l in open('$work/rec/frontend.jsonl')]
assert len(recs) == 1 and recs[0]['prog'] == 'dynamo.frontend', recs
assert 'DYN_SYSTEM_PORT' not in recs[0]['env'] and recs[0]['env']['ETCD_ENDPOINTS'] == '$ETCD_ENDPOINTS'
assert recs[0]['bind_host'] == '127.0.0.1' and recs[0]['port'] == $FP
w = {r['role']: r for r in map(json.loads, open('$work/rec/engine.jsonl'))}
assert sorted(w) == ['decode', 'prefill'], w.keys()
assert w['prefill']['prog'] == 'dynamo.sglang' and w['prefill']['component'] == 'prefill'
assert w['decode']['component'] == 'backend' and w['decode']['dyn_env']['NATS_SERVER'] == '$NATS_SERVER'
" || fail "records of the frontend and workers"

# one completion through the frontend: prefill first, then decode
r=$(h http POST "http://127.0.0.1:$FP/v1/completions" '{"model":"m1","prompt":"a b c","max_tokens":4}' dq-1)
[[ $(head -n 1 <<<"$r") == 200 && $r == *'"text": "ok"'* ]] || fail "completion through the frontend: $r"
s=$(h stream "http://127.0.0.1:$FP/v1/completions" \
	'{"model":"m1","prompt":"a b c d","max_tokens":5,"stream":true,"stream_options":{"include_usage":true}}' dq-2)
h py "
s = json.loads('''$s''')
assert s['status'] == 200 and s['chunks'] == 5 and s['done'], s
assert s['usage'] == {'prompt_tokens': 4, 'completion_tokens': 5, 'total_tokens': 9}, s
" || fail "streamed completion through the frontend: $s"
h py "
reqs = [json.loads(l) for l in open('$work/rec/requests.jsonl')]
for rid in ('dq-1', 'dq-2'):
    rr = [r for r in reqs if r['request_id'] == rid]
    assert [r['role'] for r in rr] == ['prefill', 'decode'], rr
    assert all(r['prog'] == 'dynamo.sglang' and r['status'] == 200 for r in rr), rr
    assert rr[0]['kv_transfer_params']['do_remote_decode'] is True, rr
    assert rr[1]['kv_transfer_params']['do_remote_prefill'] is True, rr
assert [r.get('stream', False) for r in reqs if r['request_id'] == 'dq-2'] == [False, True]
" || fail "request records: $(cat rec/requests.jsonl)"
grep -q "request dq-1 /v1/completions model=m1 prefill=[0-9a-f]* decode=[0-9a-f]* status=200" f.log ||
	fail "frontend log line of dq-1"
r=$(h http POST "http://127.0.0.1:$FP/v1/completions" '{"model":"nope","prompt":"x"}')
[[ $(head -n 1 <<<"$r") == 503 && $r == *'"message": "no instances found for model nope"'* ]] ||
	fail "unknown model: $r"

# the prefill worker leaves on SIGTERM: its lease is revoked, the frontend drops it
stop "$PW" "prefill worker"
grep -q "revoked lease" p.log || fail "prefill worker did not revoke its lease"
net waitjson "http://127.0.0.1:$FP/health" 15 \
	"[i['component'] for i in d['instances']] == ['backend']" ||
	fail "frontend still lists the stopped prefill: $(h http GET "http://127.0.0.1:$FP/health")"
grep -q "removed instance" f.log || fail "frontend did not log the removal"

###########################################################################
# NATS down: a worker on the NATS request plane (or event plane) fails

halt "$NATS_PID" "nats-server"
refused 1 "Failed to connect to NATS server(s) nats://127.0.0.1:$NP" "request plane nats, NATS down" -- \
	env FAKE_DYN_CONNECT_SECONDS=0.5 "$DVLLM" --model /model --request-plane nats
refused 1 "Failed to connect to NATS server(s) nats://127.0.0.1:$NP" "event plane nats from the env, NATS down" -- \
	env FAKE_DYN_CONNECT_SECONDS=0.5 DYN_EVENT_PLANE=nats "$DSGL" --model-path /model

###########################################################################
# an aggregated vLLM worker serves through the same frontend (TCP request plane)

start v.log "$DVLLM" --model /model --served-model-name m2 --tensor-parallel-size 2
VW=$SPID
net waitjson "http://127.0.0.1:$FP/v1/models" 20 "'m2' in [m['id'] for m in d['data']]" ||
	fail "frontend never listed m2"
s=$(h stream "http://127.0.0.1:$FP/v1/chat/completions" \
	'{"model":"m2","messages":[{"role":"user","content":"hi there"}],"max_tokens":3,"stream":true,"stream_options":{"include_usage":true}}' aq-1)
h py "
s = json.loads('''$s''')
assert s['status'] == 200 and s['chunks'] == 3 and s['usage']['completion_tokens'] == 3, s
rr = [json.loads(l) for l in open('$work/rec/requests.jsonl')]
rr = [r for r in rr if r['request_id'] == 'aq-1']
assert [(r['prog'], r['role'], r['path']) for r in rr] == [('dynamo.vllm', 'agg', '/v1/chat/completions')], rr
" || fail "aggregated vLLM request: $s"
grep -q "request aq-1 /v1/chat/completions model=m2 prefill=- decode=[0-9a-f]* status=200" f.log ||
	fail "frontend log line of aq-1"

# an aggregated mocker registers like any Dynamo worker and serves through the frontend
start mk.log env DYN_EVENT_PLANE=zmq "$DMOCK" --model-path /model --model-name m3 --engine-type vllm \
	--speedup-ratio 100.0 --data-parallel-size 1 --num-gpu-blocks-override 16384
MW=$SPID
net waitjson "http://127.0.0.1:$FP/v1/models" 20 "'m3' in [m['id'] for m in d['data']]" ||
	fail "frontend never listed the mocker's m3: $(tail -n 5 mk.log)"
s=$(h stream "http://127.0.0.1:$FP/v1/chat/completions" \
	'{"model":"m3","messages":[{"role":"user","content":"hi"}],"max_tokens":2,"stream":true,"stream_options":{"include_usage":true}}' mq-1)
h py "
s = json.loads('''$s''')
assert s['status'] == 200 and s['chunks'] == 2, s
rr = [json.loads(l) for l in open('$work/rec/requests.jsonl')]
assert [(r['prog'], r['role']) for r in rr if r['request_id'] == 'mq-1'] == [('dynamo.mocker', 'agg')], rr
" || fail "mocker request: $s"
stop "$MW" "dynamo.mocker"

# a disaggregated mocker pair: prefill (bootstrap port) then decode, through the frontend
read -r BP < <(net freeports 1)
start mp.log env DYN_EVENT_PLANE=zmq "$DMOCK" --model-path /model --model-name m4 \
	--disaggregation-mode prefill --bootstrap-ports "$BP" --speedup-ratio 100.0
MP=$SPID
start md.log env DYN_EVENT_PLANE=zmq "$DMOCK" --model-path /model --model-name m4 \
	--disaggregation-mode decode --speedup-ratio 100.0
MD=$SPID
net waitjson "http://127.0.0.1:$FP/health" 20 \
	"sorted(i['component'] for i in d['instances'] if i['endpoint'] == 'generate').count('prefill') == 1" ||
	fail "frontend never listed the mocker prefill: $(tail -n 5 mp.log)"
net waitjson "http://127.0.0.1:$FP/v1/models" 20 "'m4' in [m['id'] for m in d['data']]" ||
	fail "frontend never listed m4: $(tail -n 5 md.log)"
r=$(h http POST "http://127.0.0.1:$FP/v1/completions" '{"model":"m4","prompt":"a b","max_tokens":3}' mq-2)
[[ $(head -n 1 <<<"$r") == 200 ]] || fail "completion through the mocker pair: $r"
h py "
rr = sorted((r for r in map(json.loads, open('$work/rec/requests.jsonl')) if r['request_id'] == 'mq-2'),
            key=lambda r: r['time'])
assert [(r['prog'], r['role']) for r in rr] == [('dynamo.mocker', 'prefill'), ('dynamo.mocker', 'decode')], rr
" || fail "the mocker pair's request order: $r"
stop "$MP" "dynamo.mocker prefill"
stop "$MD" "dynamo.mocker decode"

# the sa-bench stand-in runs its load through the frontend
timeout 60 "$F/sa_bench" --model m2 --base-url "http://127.0.0.1:$FP" --dataset-name random \
	--num-prompts 8 --random-input-len 64 --random-output-len 8 --max-concurrency 4 >bench.log 2>&1 ||
	fail "sa_bench through the frontend: $(tail -n 5 bench.log)"
grep -Eq "^Successful requests: +8 *$" bench.log || fail "sa_bench results: $(cat bench.log)"
grep -Eq "^Total generated tokens: +64 *$" bench.log || fail "sa_bench token count: $(cat bench.log)"

for p in "$VW" "$DW" "$FW"; do stop "$p" "dynamo process"; done
halt "$ETCD_PID" "etcd"
echo "ok: dynamo fakes"
