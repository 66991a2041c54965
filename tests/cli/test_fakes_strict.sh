#!/usr/bin/env bash
# tests/cli/test_fakes_strict.sh: the strict stand-ins under tests/fakes
# (sglang_launch_server, vllm, sglang_router, vllm-router) accept the argv
# the real programs accept and refuse the rest as they do (exit status and
# message), bind where the real ones bind by default, run a 2-node SGLang
# worker on loopback, and carry one request through a router to one prefill
# and one decode worker, as their records show.  See tests/fakes/README.md.
# Loopback only, free ports picked by the kernel, every wait bounded, every
# process killed by PID.
set -euo pipefail

src=${SRT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
F=$src/tests/fakes
SGL=$F/sglang_launch_server
VLLM=$F/vllm
SROUTER=$F/sglang_router
VROUTER=$F/vllm-router

. "$src/tests/cli/fakes_lib.sh"
unset FAKE_RECORD_DIR FAKE_RECORD_FILE FAKE_CHECK_ONLY FAKE_BIND_HOST FAKE_CONTAINER_MOUNTS \
	FAKE_ENGINE_START_DELAY FAKE_ENGINE_CRASH_AFTER MOONCAKE_MASTER MOONCAKE_CONFIG_PATH

cat >h.py <<'PY'
import json, os, socket, sys, time, urllib.request, urllib.error

cmd, a = sys.argv[1], sys.argv[2:]
if cmd == "waitup":                  # waitup PORT SECONDS
    end = time.monotonic() + float(a[1])
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", int(a[0])), timeout=0.2).close()
            sys.exit(0)
        except OSError:
            time.sleep(0.05)
    sys.exit(1)
elif cmd == "listen_addr":             # listen_addr PORT -> the IPv4 address listening there
    for line in open("/proc/net/tcp").readlines()[1:]:
        f = line.split()
        ip, port = f[1].split(":")
        if f[3] == "0A" and int(port, 16) == int(a[0]):
            print(socket.inet_ntoa(bytes.fromhex(ip)[::-1]))
elif cmd == "http":                    # http METHOD URL [BODY [REQUEST-ID]] -> status, body
    hdrs = {"Content-Type": "application/json"}
    if len(a) > 3:
        hdrs["X-Request-Id"] = a[3]
    req = urllib.request.Request(a[1], method=a[0], headers=hdrs,
                                 data=a[2].encode() if len(a) > 2 else None)
    try:
        r = urllib.request.urlopen(req, timeout=10)
        st, body = r.status, r.read()
    except urllib.error.HTTPError as e:
        st, body = e.code, e.read()
    sys.stdout.write("%d\n" % st)
    sys.stdout.buffer.write(body)
elif cmd == "waitjson":                # waitjson URL SECONDS PYEXPR(d) -> until true
    end = time.monotonic() + float(a[1])
    while time.monotonic() < end:
        try:
            d = json.load(urllib.request.urlopen(a[0], timeout=2))
            if eval(a[2]):
                sys.exit(0)
        except (OSError, ValueError):
            pass
        time.sleep(0.1)
    sys.exit(1)
elif cmd == "py":                      # py CODE: run a check
    exec(a[0])
PY
h() { python3 "$work/h.py" "$@"; }


mkdir -p host/models/m1
export FAKE_CONTAINER_MOUNTS=$work/host/models/m1:/model

###########################################################################
# SGLang server: argparse semantics

accepted o1 "sglang srt-slurm argv" -- "$SGL" --model-path /model --served-model-name m1 \
	--host 0.0.0.0 --port 6100 --nccl-port 17500 --disaggregation-mode prefill \
	--disaggregation-bootstrap-port 7200 --tensor-parallel-size 4 --trust-remote-code \
	--mem-fraction-static=0.8 --cuda-graph-bs 1 2 4 --dcp-replicate-q-proj --no-lora-strict-loading
opts o1 "o['model_path'] == '/model' and o['tp_size'] == 4 and o['port'] == 6100"
opts o1 "o['disaggregation_mode'] == 'prefill' and o['disaggregation_bootstrap_port'] == 7200"
opts o1 "o['mem_fraction_static'] == 0.8 and o['cuda_graph_bs_decode'] == [1, 2, 4]"
opts o1 "o['trust_remote_code'] is True and o['dcp_replicate_q_proj'] is True and o['lora_strict_loading'] is False"
accepted o2 "sglang abbreviations, --model alias" -- "$SGL" --model /model --tp 2 --disaggregation-m decode
opts o2 "o['tp_size'] == 2 and o['disaggregation_mode'] == 'decode' and o['model_path'] == '/model'"
opts o2 "o['host'] == '127.0.0.1' and o['port'] == 30000 and o['nnodes'] == 1 and o['node_rank'] == 0"
accepted o3 "sglang hub id" -- "$SGL" --model-path org/name
opts o3 "o['model_path'] == 'org/name'"

refused 2 "sglang serve: error: unrecognized arguments: --bogus 1" "sglang unknown flag" -- \
	"$SGL" --model-path /model --bogus 1
head -n 1 err | grep -q '^usage: sglang serve ' || fail "sglang usage line: $(head -c 200 err)"
refused 2 "error: unrecognized arguments: --tp_size 2" "sglang underscore spelling" -- \
	"$SGL" --model-path /model --tp_size 2
refused 2 "sglang serve: error: the following arguments are required: --model-path/--model" \
	"sglang without a model" -- "$SGL" --tp-size 2
refused 2 "argument --disaggregation-mode: invalid choice: 'both'" "sglang bad choice" -- \
	"$SGL" --model-path /model --disaggregation-mode both
refused 2 "argument --tp-size/--tensor-parallel-size: invalid int value: 'four'" "sglang bad int" -- \
	"$SGL" --model-path /model --tp-size four
refused 2 "error: ambiguous option: --mod could match" "sglang ambiguous prefix" -- \
	"$SGL" --model-path /model --mod x
refused 2 "unrecognized arguments: --no-trust-remote-code" "sglang has no --no-X for store_true" -- \
	"$SGL" --model-path /model --no-trust-remote-code

# checks that need no GPU
refused 1 "model path /model/sub does not exist (host path $work/host/models/m1/sub)" \
	"sglang missing model under the mount" -- "$SGL" --model-path /model/sub
refused 1 "--node-rank 2 is outside [0, 2)" "sglang rank >= nnodes" -- \
	"$SGL" --model-path /model --nnodes 2 --node-rank 2 --dist-init-addr 127.0.0.1:1234 --tp 2
refused 1 "tp_size * pp_size (3) must be divisible by nnodes (2)" "sglang tp % nnodes" -- \
	"$SGL" --model-path /model --nnodes 2 --dist-init-addr 127.0.0.1:1234 --tp 3
refused 1 "--dist-init-addr 'node1' is not HOST:PORT" "sglang malformed dist-init" -- \
	"$SGL" --model-path /model --nnodes 2 --dist-init-addr node1 --tp 2
refused 1 "--dist-init-addr is required when --nnodes > 1" "sglang multi-node without dist-init" -- \
	"$SGL" --model-path /model --nnodes 2 --tp 2
refused 1 "prefill server cannot use --disaggregation-transfer-backend fake" "sglang prefill fake" -- \
	"$SGL" --model-path /model --disaggregation-mode prefill --disaggregation-transfer-backend fake

###########################################################################
# vLLM: FlexibleArgumentParser semantics

accepted v1 "vllm srt-slurm argv" -- "$VLLM" serve /model --served-model-name m1 \
	--host 0.0.0.0 --port 8000 --tensor_parallel_size 2 --kv-transfer-config.kv_connector NixlConnector \
	--kv-transfer-config.kv_role=kv_both --no-enable-prefix-caching --max-model-len 8k
opts v1 "o['model'] == '/model' and o['tensor_parallel_size'] == 2 and o['served_model_name'] == ['m1']"
opts v1 "o['kv_transfer_config'] == {'kv_connector': 'NixlConnector', 'kv_role': 'kv_both'}"
opts v1 "o['enable_prefix_caching'] is False and o['max_model_len'] == 8000"
accepted v2 "vllm --model moved to the positional" -- "$VLLM" serve --model /model
opts v2 "o['model'] == '/model' and o['model_tag'] == '/model' and o['host'] is None and o['port'] == 8000"
grep -q "provide the model as a positional argument" err || fail "vllm --model warning: $(cat err)"

refused 2 "vllm: error: unrecognized arguments: --bogus" "vllm unknown flag" -- "$VLLM" serve /model --bogus
refused 2 "argument --dtype: invalid choice: 'int3'" "vllm bad choice" -- "$VLLM" serve /model --dtype int3
refused 2 "invalid choice: 'srve'" "vllm unknown subcommand" -- "$VLLM" srve /model
refused 2 "only \`vllm serve\` is" "vllm other subcommand" -- "$VLLM" chat
refused 2 "--served-model-name requires the model" "vllm name without model" -- \
	"$VLLM" serve --served-model-name m1
refused 1 "model path /nope does not exist" "vllm missing model" -- "$VLLM" serve /nope
refused 1 "--api-server-count cannot be used with --headless" "vllm headless api servers" -- \
	"$VLLM" serve /model --headless --api-server-count 2

###########################################################################
# routers

accepted r1 "sglang router PD argv" -- "$SROUTER" --pd-disaggregation \
	--prefill http://10.0.0.1:6100 7200 --prefill http://10.0.0.2:6100 none \
	--decode http://10.0.0.3:6100 --host 0.0.0.0 --port 8000 --policy round_robin
opts r1 "o['prefill'] == [['http://10.0.0.1:6100', '7200'], ['http://10.0.0.2:6100', 'none']]"
opts r1 "o['decode'] == [['http://10.0.0.3:6100']] and o['policy'] == 'round_robin'"
accepted r2 "sglang router defaults" -- "$SROUTER" --worker-urls http://a:1
opts r2 "o['host'] == '0.0.0.0' and o['port'] == 30000 and o['worker_urls'] == ['http://a:1']"
refused 2 "argument --policy: invalid choice: 'consistent_hash'" "sglang router bad policy" -- \
	"$SROUTER" --worker-urls http://a:1 --policy consistent_hash
refused 2 "launch_router.py: error: unrecognized arguments: --pd_disaggregation" \
	"sglang router underscore" -- "$SROUTER" --pd_disaggregation
refused 1 "requires at least one --prefill and one --decode" "sglang router PD without decode" -- \
	"$SROUTER" --pd-disaggregation --prefill http://a:1

accepted r3 "vllm-router PD argv" -- "$VROUTER" --vllm-pd-disaggregation \
	--prefill http://10.0.0.1:8000 5600 --prefill http://10.0.0.2:8000 \
	--decode http://10.0.0.3:8000 --decode=http://10.0.0.4:8000 --policy consistent_hash
opts r3 "o['prefill'] == [['http://10.0.0.1:8000', 5600], ['http://10.0.0.2:8000', None]]"
opts r3 "o['decode'] == ['http://10.0.0.3:8000', 'http://10.0.0.4:8000']"
opts r3 "o['host'] == '127.0.0.1' and o['port'] == 30000 and o['policy'] == 'consistent_hash'"
refused 2 "error: unexpected argument '--worker_urls' found" "vllm-router underscore" -- \
	"$VROUTER" --worker_urls http://a:1
refused 2 "error: invalid value '70000' for '--port <PORT>'" "vllm-router port range" -- \
	"$VROUTER" --port 70000
refused 2 "[possible values: random, round_robin" "vllm-router bad policy" -- \
	"$VROUTER" --policy manual
refused 2 "error: unexpected argument '--pol' found" "vllm-router has no abbreviations" -- \
	"$VROUTER" --pol random

###########################################################################
# default bind addresses (ports given, hosts left to the program)

read -r P1 P2 P3 P4 < <(net freeports 4)
start b1.log "$SGL" --model-path /model --port "$P1"
S1=$SPID
start b2.log "$VLLM" serve /model --port "$P2"
S2=$SPID
start b3.log "$SROUTER" --worker-urls "http://127.0.0.1:$P1" --port "$P3"
S3=$SPID
start b4.log "$VROUTER" --worker-urls "http://127.0.0.1:$P2" --port "$P4"
S4=$SPID
for p in "$P1" "$P2" "$P3" "$P4"; do h waitup "$p" 15 || fail "port $p never served"; done
[[ $(h listen_addr "$P1") == 127.0.0.1 ]] || fail "sglang default host: $(h listen_addr "$P1")"
[[ $(h listen_addr "$P2") == 0.0.0.0 ]] || fail "vllm default host: $(h listen_addr "$P2")"
[[ $(h listen_addr "$P3") == 0.0.0.0 ]] || fail "sglang router default host: $(h listen_addr "$P3")"
[[ $(h listen_addr "$P4") == 127.0.0.1 ]] || fail "vllm-router default host: $(h listen_addr "$P4")"
r=$(h http GET "http://127.0.0.1:$P1/v1/models")
[[ $r == *'"id": "/model"'* ]] || fail "sglang /v1/models: $r"
h waitjson "http://127.0.0.1:$P3/workers" 15 "d['stats'] == {'prefill_count': 0, 'decode_count': 0, 'regular_count': 1}" ||
	fail "sglang router never counted its worker"
r=$(h http POST "http://127.0.0.1:$P3/v1/chat/completions" '{"model":"/model","messages":[]}')
[[ $(head -n 1 <<<"$r") == 200 && $r == *'"content": "ok"'* ]] || fail "aggregated request: $r"
for p in "$S1" "$S2" "$S3" "$S4"; do stop "$p" "default-host process"; done

###########################################################################
# a 2-node SGLang worker on loopback: rank 1 waits for rank 0

read -r HP DP < <(net freeports 2)
mkdir -p rec
export FAKE_RECORD_DIR=$work/rec
two=(--model-path /model --tp 2 --nnodes 2 --dist-init-addr "127.0.0.1:$DP" --host 127.0.0.1 --port "$HP")
start n1.log "$SGL" "${two[@]}" --node-rank 1
N1=$SPID
sleep 0.3
alive "$N1" || fail "rank 1 gave up before rank 0 started"
start n0.log "$SGL" "${two[@]}" --node-rank 0
N0=$SPID
h waitup "$HP" 20 || fail "rank 0 never served"
grep -q "dist init: rank 1 joined 127.0.0.1:$DP" n1.log || fail "rank 1 did not join"
grep -q "rank 1 serves no HTTP" n1.log || fail "rank 1 served HTTP"
h py "
recs = {r['node_rank']: r for r in map(json.loads, open('$work/rec/engine.jsonl'))}
assert sorted(recs) == [0, 1], recs.keys()
assert recs[0]['serves_http'] is True and recs[1]['serves_http'] is False
assert all(r['options']['dist_init_addr'] == '127.0.0.1:$DP' and r['nnodes'] == 2 for r in recs.values())
assert recs[0]['prog'] == 'sglang.launch_server' and recs[0]['bind_host'] == '127.0.0.1'
" || fail "2-node records"
# the leader goes away: the follower fails as its NCCL group would
kill -KILL "$N0"
wait "$N0" 2>/dev/null || true
expect_rc 1 "$N1" 15 "rank 1 after losing rank 0"
grep -q "NCCL communicator aborted" n1.log || fail "rank 1 loss message"
# a follower whose leader never comes fails after FAKE_DIST_INIT_TIMEOUT
read -r DP2 < <(net freeports 1)
refused 1 "DistNetworkError: failed to connect to 127.0.0.1:$DP2" "rank 1 without rank 0" -- \
	env FAKE_DIST_INIT_TIMEOUT=1 "$SGL" --model-path /model --tp 2 --nnodes 2 --node-rank 1 \
	--dist-init-addr "127.0.0.1:$DP2"
rm -f rec/*

# vLLM over 2 nodes as srt-slurm renders it: rank 1 headless, both naming the master
read -r VH VM < <(net freeports 2)
vtwo=(serve /model --host 127.0.0.1 --port "$VH" --nnodes 2 --master-addr 127.0.0.1 --master-port "$VM")
start v1.log "$VLLM" "${vtwo[@]}" --node-rank 1 --headless
V1=$SPID
start v0.log "$VLLM" "${vtwo[@]}" --node-rank 0
V0=$SPID
h waitup "$VH" 20 || fail "vLLM rank 0 never served"
grep -q "dist init: rank 1 joined 127.0.0.1:$VM" v1.log || fail "vLLM rank 1 did not join"
h py "
recs = {r['node_rank']: r for r in map(json.loads, open('$work/rec/engine.jsonl'))}
assert recs[0]['serves_http'] and not recs[1]['serves_http'] and recs[1]['options']['headless']
assert recs[0]['prog'] == 'vllm serve' and recs[0]['options']['model'] == '/model'
" || fail "vLLM 2-node records"
stop "$V0" "vLLM rank 0"
expect_rc 1 "$V1" 15 "vLLM rank 1 after rank 0 stopped"
rm -f rec/*

###########################################################################
# SGLang router: one request through one prefill and one decode

read -r PP BP DCP RP < <(net freeports 4)
start p.log "$SGL" --model-path /model --host 127.0.0.1 --port "$PP" \
	--disaggregation-mode prefill --disaggregation-bootstrap-port "$BP"
PPID_=$SPID
start d.log "$SGL" --model-path /model --host 127.0.0.1 --port "$DCP" --disaggregation-mode decode
DPID=$SPID
start r.log "$SROUTER" --pd-disaggregation --prefill "http://127.0.0.1:$PP" "$BP" \
	--decode "http://127.0.0.1:$DCP" --host 127.0.0.1 --port "$RP"
RPID=$SPID
h waitjson "http://127.0.0.1:$RP/workers" 20 \
	"d['stats'] == {'prefill_count': 1, 'decode_count': 1, 'regular_count': 0}" ||
	fail "router never saw both workers healthy"
[[ $(h listen_addr "$BP") == 0.0.0.0 ]] || fail "prefill bootstrap port not listening"
r=$(h http POST "http://127.0.0.1:$RP/v1/completions" '{"model":"/model","prompt":"hi"}' rq-1)
[[ $(head -n 1 <<<"$r") == 200 && $r == *'"text": "ok"'* ]] || fail "PD request: $r"
h py "
reqs = [json.loads(l) for l in open('$work/rec/requests.jsonl')]
assert len(reqs) == 2, reqs
by = {r['role']: r for r in reqs}
assert sorted(by) == ['decode', 'prefill'], reqs
assert by['prefill']['port'] == $PP and by['decode']['port'] == $DCP
for r in reqs:
    assert r['request_id'] == 'rq-1' and r['status'] == 200, r
    assert r['bootstrap_host'] == '127.0.0.1' and r['bootstrap_port'] == $BP, r
assert by['prefill']['bootstrap_room'] == by['decode']['bootstrap_room'], reqs
rr = [json.loads(l) for l in open('$work/rec/router.jsonl')]
assert rr[0]['prefill'] == [['http://127.0.0.1:$PP', $BP]] and rr[0]['decode'] == ['http://127.0.0.1:$DCP']
" || fail "PD request records"
# a decode worker refuses a request whose bootstrap server does not answer
read -r NOBP < <(net freeports 1)
r=$(h http POST "http://127.0.0.1:$DCP/v1/completions" \
	"{\"prompt\":\"x\",\"bootstrap_host\":\"127.0.0.1\",\"bootstrap_port\":$NOBP,\"bootstrap_room\":1}")
[[ $(head -n 1 <<<"$r") == 500 && $r == *"bootstrap server 127.0.0.1:$NOBP unreachable"* ]] ||
	fail "decode with a dead bootstrap: $r"
for p in "$RPID" "$PPID_" "$DPID"; do stop "$p" "PD process"; done
rm -f rec/*

###########################################################################
# vllm-router: prefill first, then decode with its kv_transfer_params

read -r VP VD VR < <(net freeports 3)
kv='{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
start vp.log "$VLLM" serve /model --host 127.0.0.1 --port "$VP" --kv-transfer-config "$kv"
VPP=$SPID
start vd.log "$VLLM" serve /model --host 127.0.0.1 --port "$VD" --kv_transfer_config "$kv"
VDP=$SPID
start vr.log "$VROUTER" --vllm-pd-disaggregation --prefill "http://127.0.0.1:$VP" 5600 \
	--decode "http://127.0.0.1:$VD" --port "$VR"
VRP=$SPID
h waitjson "http://127.0.0.1:$VR/workers" 20 \
	"d['stats'] == {'prefill_count': 1, 'decode_count': 1, 'regular_count': 0}" ||
	fail "vllm-router never saw both workers healthy"
r=$(h http POST "http://127.0.0.1:$VR/v1/completions" '{"model":"/model","prompt":"hi","max_tokens":8}' vq-1)
[[ $(head -n 1 <<<"$r") == 200 ]] || fail "vllm PD request: $r"
h py "
reqs = [json.loads(l) for l in open('$work/rec/requests.jsonl')]
assert [r['port'] for r in reqs] == [$VP, $VD], reqs
p, d = reqs
assert p['request_id'] == d['request_id'] == 'vq-1'
assert p['kv_transfer_params']['do_remote_decode'] is True
assert d['kv_transfer_params']['do_remote_prefill'] is True
assert d['kv_transfer_params']['remote_port'] == $VP
" || fail "vllm PD request records"
for p in "$VRP" "$VPP" "$VDP"; do stop "$p" "vLLM PD process"; done

###########################################################################
# --kv-events-config: the ZMQ publisher binds its endpoint (vLLM: one port
# per DP rank); a second engine on a taken port fails as the real one does

# Runs of two: K1+1 too must be free (vLLM's second DP rank binds it).
read -r K1 S1 S2 V1 < <(net freeports 4 2)
ev() { printf '{"publisher": "zmq", "topic": "kv-events", %s"endpoint": "tcp://*:%s"}' "${2:-}" "$1"; }
start k1.log "$SGL" --model-path /model --host 127.0.0.1 --port "$S1" --kv-events-config "$(ev "$K1")"
K1P=$SPID
h waitup "$S1" 20 || fail "the SGLang worker with kv events never served"
grep -qF "kv events: ZMQ publisher bound on tcp://*:$K1" k1.log || fail "no KV-event publisher bound"
start k2.log "$SGL" --model-path /model --host 127.0.0.1 --port "$S2" --kv-events-config "$(ev "$K1")"
expect_rc 1 "$SPID" 20 "a second publisher on a taken KV-event port"
grep -qF "zmq.error.ZMQError: Address already in use (addr='tcp://*:$K1')" k2.log ||
	fail "no ZMQError for the taken port: $(tail -n 2 k2.log)"
stop "$K1P" "the SGLang worker with kv events"
start k3.log "$VLLM" serve /model --host 127.0.0.1 --port "$V1" --data-parallel-size 2 \
	--kv-events-config "$(ev "$K1" '"enable_kv_cache_events": true, ')"
h waitup "$V1" 20 || fail "the vLLM worker with kv events never served"
grep -qF "kv events: ZMQ publisher bound on tcp://*:$((K1 + 1))" k3.log ||
	fail "vLLM's second DP rank bound no publisher on $((K1 + 1))"
stop "$SPID" "the vLLM worker with kv events"

echo "ok: strict fakes"
