#!/usr/bin/env bash
# tests/cli/test_fakes_tilert.sh: the strict stand-ins for TileRT 0.1.6's P/D
# pieces (tests/fakes/tilert_decode_server, tests/fakes/tilert_pd_router) and
# the vLLM stand-in as a TileRT prefill (TileRTConnector in
# --kv-transfer-config), started with the argv srtctl gives them: each
# answers /health, a completion goes router -> vLLM prefill -> KV handed over
# the decode server's control plane -> /pd/decode -> OpenAI answer, and the
# refusals are the real ones (argparse's exit 2, the router's unpack error,
# the connector's handshake assertions).  See tests/fakes/README.md.
# Loopback only (a random 127.x.y network), free ports picked by the kernel,
# every wait bounded, every process killed by PID on exit.
set -euo pipefail

src=${SRT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
F=$src/tests/fakes
DEC=$F/tilert_decode_server
ROUTER=$F/tilert_pd_router
VLLM=$F/vllm

. "$src/tests/cli/fakes_lib.sh"
unset FAKE_RECORD_DIR FAKE_RECORD_FILE FAKE_CHECK_ONLY FAKE_BIND_HOST FAKE_ENGINE_START_DELAY \
	FAKE_ENGINE_CRASH_AFTER MOONCAKE_MASTER MOONCAKE_CONFIG_PATH TILERT_PD_SENDERS \
	TILERT_PD_SHARDS TILERT_PD_NO_MTP TILERT_PD_KI_TILED TILERT_PD_BUFFER_DEVICE \
	CUDA_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES
export FAKE_PERF_OFF=1
n=0
ok() {
	n=$((n + 1))
	echo "ok $n - $*"
}

NET=127.$((100 + RANDOM % 100)).$((1 + RANDOM % 250))
P_IP=$NET.1 D_IP=$NET.2 R_IP=$NET.3
read -r PP DH DC RP DH2 DC2 < <(net freeports 6)

# the container paths srtctl uses, mounted from this test's scratch directory
mkdir -p model weights empty
echo '{"tokenizer_class": "PreTrainedTokenizerFast"}' >weights/tokenizer_config.json
echo '{% for m in messages %}{{ m.content }}{% endfor %}' >weights/chat_template.jinja
echo '{"weight_map": {}}' >weights/model.safetensors.index.json
export FAKE_CONTAINER_MOUNTS=$work/model:/model,$work/weights:/tilert_weights/glm5.1-fp8,$work/empty:/tilert_weights/empty

http_code() { # URL [BODY]: the status code, body in ./resp
	local rc=0
	if (($# > 1)); then
		curl -s -m 20 -o resp -w '%{http_code}' -H 'Content-Type: application/json' -d "$2" "$1" >code || rc=$?
	else
		curl -s -m 20 -o resp -w '%{http_code}' "$1" >code || rc=$?
	fi
	((rc == 0)) || echo 000 >code
	cat code
}

wait_200() { # URL SECONDS PID WHAT
	local end=$((SECONDS + $2))
	until [[ $(http_code "$1") == 200 ]]; do
		alive "$3" || fail "$4 exited before $1 answered 200"
		((SECONDS < end)) || fail "$4: $1 not 200 within $2 s"
		sleep 0.1
	done
}

check() { # FILE PYEXPR(d): assert on a JSON file
	python3 - "$1" "$2" <<'PY' || fail "$1: $2: $(head -c 600 "$1")"
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}

# ---- the command lines ----
refused 2 "decode_server.py: error: unrecognized arguments: --host" "decode: an unknown option" -- \
	"$DEC" --engine tilert --http-port "$DH" --ctrl-port "$DC" --host 0.0.0.0
grep -q "^usage: decode_server.py \[-h\] \[--engine {stub,tilert}\]" err || fail "decode: no argparse usage"
refused 2 "decode_server.py: error: argument --num-mtp: invalid choice: 2 (choose from 3)" \
	"decode: --num-mtp 2 (0.1.6 allows 3 only)" -- "$DEC" --engine tilert --with-mtp --num-mtp 2
refused 2 "argument --transport: invalid choice: 'rdma'" "decode: a transport TileRT lacks" -- \
	"$DEC" --transport rdma
refused 2 "argument --max-seq-len: invalid int value: '200k'" "decode: a bad int" -- \
	"$DEC" --max-seq-len 200k
refused 2 "pd_router.py: error: unrecognized arguments: --served-model-name" "router: an unknown option" -- \
	"$ROUTER" --vllm-url "http://$P_IP:$PP" --decode "$D_IP:$DC:$DH" --parser none --served-model-name m
refused 2 "pd_router.py: error: the following arguments are required: --vllm-url" "router: no --vllm-url" -- \
	"$ROUTER" --decode "$D_IP:$DC:$DH"
refused 2 "vllm: error: unrecognized arguments: --tilert-host" "vllm: an unknown option" -- \
	"$VLLM" serve /model --tilert-host "$D_IP"
ok "argparse's refusals exit 2 on all three (unknown options, --num-mtp 2, bad choice and int)"

refused 1 "ValueError: not enough values to unpack (expected 3, got 1)" "router: a --decode spec without ports" -- \
	"$ROUTER" --vllm-url "http://$P_IP:$PP" --decode "$D_IP" --parser none
grep -q "^Traceback (most recent call last):" err || fail "router: the unpack error has no traceback"
refused 1 "ValueError: not enough values to unpack (expected 3, got 2)" "router: a spec with one port" -- \
	"$ROUTER" --vllm-url "http://$P_IP:$PP" --decode "$D_IP:$DC:$DH" "$D_IP:$DC" --parser none
refused 1 "ValueError: invalid literal for int() with base 10: 'ctrl'" "router: a non-numeric port" -- \
	"$ROUTER" --vllm-url "http://$P_IP:$PP" --decode "$D_IP:ctrl:$DH" --parser none
refused 1 "--parser requires --model-path (tokenizer)" "router: the default parser without a tokenizer" -- \
	"$ROUTER" --vllm-url "http://$P_IP:$PP" --decode "$D_IP:$DC:$DH"
ok "the router splits --decode from the right: missing ports and bad ints are uncaught ValueErrors (exit 1)"

refused 1 "OSError: /tilert_weights/empty does not appear to have a file named config.json." \
	"decode: an empty weights dir" -- "$DEC" --engine tilert --model-weights-dir /tilert_weights/empty
refused 1 "OSError: Incorrect path_or_model_id: '/tilert_weights/none'." "decode: a missing weights dir" -- \
	"$DEC" --engine tilert --model-weights-dir /tilert_weights/none
refused 1 "KeyError: \"unknown model profile 'glm9'; registered: []\"" "decode: an unknown profile" -- \
	"$DEC" --engine tilert --model glm9 --model-weights-dir /tilert_weights/glm5.1-fp8
refused 1 "ValueError: unknown kv_cache_dtype 'fp16'; want fp8_ds_mla, fp8_rocm or bf16" \
	"decode: a cache dtype TileRT lacks" -- "$DEC" --kv-cache-dtype fp16
ok "decode --engine tilert: weights dir missing or empty, unknown profile, bad cache dtype exit 1"

KV_BASE='"kv_connector":"TileRTConnector","kv_connector_module_path":"tilert.pd_vllm.prefill_connector"'
refused 1 "ValueError: Unsupported connector type: TileRTConnector" "vllm: TileRTConnector without its module" -- \
	env FAKE_CHECK_ONLY=1 "$VLLM" serve /model --kv-transfer-config '{"kv_connector":"TileRTConnector","kv_role":"kv_producer"}'
refused 1 "KeyError: \"unknown model profile 'glm9'; registered: []\"" "vllm: an unknown tilert_model" -- \
	env FAKE_CHECK_ONLY=1 "$VLLM" serve /model --kv-transfer-config "{$KV_BASE,\"kv_role\":\"kv_producer\",\"kv_connector_extra_config\":{\"tilert_model\":\"glm9\"}}"
refused 1 "ValueError: invalid literal for int() with base 10: 'x'" "vllm: a bad tilert_ctrl_port" -- \
	env FAKE_CHECK_ONLY=1 "$VLLM" serve /model --kv-transfer-config "{$KV_BASE,\"kv_role\":\"kv_producer\",\"kv_connector_extra_config\":{\"tilert_ctrl_port\":\"x\"}}"
accepted opts "vllm: another connector is left alone" -- "$VLLM" serve /model \
	--kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
ok "vLLM's TileRTConnector config is checked at engine start (module, tilert_model, ports); others as before"

# ---- prefill, decode and router as srtctl starts them (loopback addresses) ----
# the recipe's JSON, newlines kept (a YAML >- block with more-indented lines)
KV='{"kv_connector":"TileRTConnector","kv_connector_module_path":"tilert.pd_vllm.prefill_connector",
 "kv_role":"kv_producer","kv_connector_extra_config":{
   "tilert_model":"glm5","tilert_max_seq_len":202752,"tilert_transport":"nixl"}}'
FAKE_RECORD_DIR=$work/rec start prefill.log "$VLLM" serve /model --host "$P_IP" --port "$PP" --device-ids 0,1,2,3,4,5,6,7 \
	--enforce-eager --gpu-memory-utilization 0.75 --kv-cache-dtype fp8_ds_mla --kv-transfer-config "$KV" \
	--max-model-len 202752 --return-tokens-as-token-ids --served-model-name zai-org/GLM-5.1-FP8 \
	--speculative-config '{"method":"mtp","num_speculative_tokens":1}' --tensor-parallel-size 8 \
	--trust-remote-code
PREFILL=$SPID
FAKE_BIND_HOST=$D_IP start decode.log "$DEC" --engine tilert --http-port "$DH" --ctrl-port "$DC" \
	--model glm5 --model-weights-dir /tilert_weights/glm5.1-fp8 --max-seq-len 202752 --kv-cache-dtype fp8 \
	--transport nixl --with-mtp --num-mtp 3
DECODE=$SPID
wait_200 "http://$P_IP:$PP/health" 30 "$PREFILL" "the vLLM prefill"
wait_200 "http://$D_IP:$DH/health" 30 "$DECODE" "the decode server"
check resp "d == {'status': 'ok'}"
grep -qF "Creating v1 connector with name: TileRTConnector" prefill.log || fail "vLLM did not create the connector"
python3 - decode.log "$DH" "$DC" <<'PY' || fail "decode startup lines: $(cat decode.log)"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
h, c = sys.argv[2], sys.argv[3]
want = [r"pd_vllm\.decode_server profile glm5 MLA cache dtype = fp8 \(layout v10\)$",
        r"pd_vllm\.decode_server loading TileRT engine \(profile=glm5, weights=/tilert_weights/glm5\.1-fp8\)\.\.\.$",
        r"pd_vllm\.decode_server TileRT engine ready \(cache window 200000, num_mtp 3\)$",
        r"pd_vllm\.receive allocating receive buffer: 8 shards x [0-9.]+ GB on cuda:0\.\.7 \(profile=glm5\)$",
        r"pd_vllm\.receive transport=nixl ready, buffer registered \([0-9.]+ GB\)$",
        r"pd_vllm\.receive control plane listening on :%s$" % c,
        r"pd_vllm\.decode_server decode server on :%s \(profile=glm5, engine=tilert, ctrl=:%s\)$" % (h, c)]
stamp = r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} "
i = 0
for line in lines:
    if i < len(want) and re.match(stamp + want[i], line):
        i += 1
sys.exit(0 if i == len(want) else 1)
PY
[[ $(http_code "http://$D_IP:$DH/metrics") == 404 ]] || fail "the decode server has a /metrics"
[[ $(http_code "http://$D_IP:$DH/capabilities") == 200 ]] || fail "no /capabilities"
check resp "d == {'profile': 'glm5', 'engine': 'MlaNsaEngineAdapter', 'capabilities': {'penalties': False, 'ignore_eos': True, 'logprobs': False}}"
ok "prefill and decode up: /health 200 ({\"status\":\"ok\"} on decode), TileRT's startup lines in order, no /metrics"

start router.log "$ROUTER" --vllm-url "http://$P_IP:$PP" --decode "$D_IP:$DC:$DH" --host "$R_IP" \
	--port "$RP" --parser none --model-path zai-org/GLM-5.1-FP8 --queue-timeout 1800
ROUTERPID=$SPID
wait_200 "http://$R_IP:$RP/health" 30 "$ROUTERPID" "the router"
check resp "d == {'status': 'ok', 'decode_free': 1}"
grep -qE "pd_vllm\.router router on :$RP -> vllm=http://$P_IP:$PP, 1 decode node\(s\), parser=none$" router.log ||
	fail "no 'router on' line: $(cat router.log)"
[[ $(http_code "http://$R_IP:$RP/pool_status") == 200 ]] || fail "/pool_status: $(cat resp)"
check resp "d == {'nodes': [{'host': '$D_IP', 'busy': False}]}"
[[ $(http_code "http://$R_IP:$RP/v1/models") == 404 ]] || fail "the router has a /v1/models"
ok "the router: /health {status ok, decode_free 1}, /pool_status, its 'router on' line"

st=$(http_code "http://$R_IP:$RP/v1/completions" '{"model":"zai-org/GLM-5.1-FP8","prompt":"the quick brown fox jumps","max_tokens":8}')
[[ $st == 200 ]] || fail "completion through the router: $st $(cat resp)"
check resp "d['object'] == 'text_completion' and d['id'].startswith('cmpl-') and len(d['choices']) == 1 and len(d['choices'][0]['token_ids']) == 8 and d['choices'][0]['text'] and d['choices'][0]['finish_reason'] == 'length' and d['usage']['prompt_tokens'] == 5 and d['usage']['completion_tokens'] == 8 and 'prefill' in d['pd_timing_ms']"
rid=$(python3 -c 'import json; print(json.load(open("resp"))["id"][len("cmpl-"):])')
grep -qE "pd_vllm\.receive request $rid: seq_len=5 \(generation 1\)$" decode.log &&
	grep -qE "pd_vllm\.receive request $rid: rank 0 done \(1/1\)$" decode.log &&
	grep -qE "pd_vllm\.decode_server REQSTAT rid=$rid seq=5 completion=8 " decode.log ||
	fail "the decode server did not log the transfer of $rid: $(tail -n 5 decode.log)"
python3 - rec/requests.jsonl "$D_IP" "$DC" <<'PY' || fail "the prefill request: $(cat rec/requests.jsonl)"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert len(recs) == 1 and recs[0]["path"] == "/v1/completions", recs
assert recs[0]["kv_transfer_params"] == {"tilert_host": sys.argv[2],
                                         "tilert_ctrl_port": int(sys.argv[3])}, recs
PY
[[ $(http_code "http://$D_IP:$DH/decode_status") == 200 ]] || fail "/decode_status: $(cat resp)"
check resp "d == {'status': 'idle', 'current_rid': None}"
[[ $(http_code "http://$R_IP:$RP/health") == 200 ]] || fail "router /health after a request"
check resp "d == {'status': 'ok', 'decode_free': 1}"
st=$(http_code "http://$R_IP:$RP/v1/chat/completions" '{"model":"m","messages":[{"role":"user","content":"hello there"}],"max_tokens":4}')
[[ $st == 200 ]] && check resp "d['object'] == 'chat.completion' and d['choices'][0]['message']['content'] == 'tok tok tok tok' and d['usage']['completion_tokens'] == 4" ||
	fail "chat through the router: $st $(cat resp)"
grep -q "seq_len=2 (generation 2)" decode.log || fail "the chat request's KV was not handed over"
st=$(http_code "http://$R_IP:$RP/v1/completions" '{"model":"m","prompt":"x","stream":true}')
[[ $st == 400 ]] && check resp "d == {'error': 'streaming is supported on /v1/chat/completions'}" ||
	fail "a streamed /v1/completions: $st $(cat resp)"
ok "router -> prefill (TileRTConnector hands the KV to the decode control plane) -> /pd/decode: choices back; decode logged the transfer"

# the first token comes from the prefill's logprobs: without token ids the router cannot read it
st=$(http_code "http://$P_IP:$PP/v1/completions" "{\"model\":\"m\",\"prompt\":\"a b\",\"max_tokens\":1,\"logprobs\":1}")
[[ $st == 200 ]] && check resp "d['choices'][0]['logprobs']['tokens'][0].startswith('token_id:')" ||
	fail "the prefill's logprobs lack token ids: $(cat resp)"
ok "the prefill answers logprobs as token_id:N (--return-tokens-as-token-ids)"

# /pd/decode takes one request at a time; a cancel ends the waiting one (499)
curl -s -m 20 -o slow.json -w '%{http_code}' -H 'Content-Type: application/json' \
	-d '{"rid":"r-slow","first_token_id":7,"timeout_s":15}' "http://$D_IP:$DH/pd/decode" >slow.code &
SLOW=$!
end=$((SECONDS + 10))
until [[ $(http_code "http://$D_IP:$DH/decode_status") == 200 ]] && grep -q '"busy"' resp; do
	((SECONDS < end)) || fail "the waiting /pd/decode never made the server busy"
	sleep 0.05
done
st=$(http_code "http://$D_IP:$DH/pd/decode" '{"rid":"r-two","first_token_id":7}')
[[ $st == 429 ]] && check resp "d == {'error': 'busy', 'current_rid': 'r-slow'}" || fail "a second /pd/decode: $st $(cat resp)"
[[ $(http_code "http://$D_IP:$DH/pd/cancel" '{"rid":"r-slow"}') == 200 ]] && check resp "d == {'cancelled': 'r-slow'}" ||
	fail "/pd/cancel: $(cat resp)"
wait "$SLOW" || true
[[ $(cat slow.code) == 499 ]] && check slow.json "d['error_type'] == 'request_cancelled'" || fail "the cancelled /pd/decode: $(cat slow.code)"
ok "/pd/decode is one at a time (429 busy with the current rid); /pd/cancel ends the waiting one (499)"

# ---- handshake refusals: the connector's assertions on the decode node's hello ----
FAKE_BIND_HOST=$D_IP start decode2.log "$DEC" --engine tilert --http-port "$DH2" --ctrl-port "$DC2" \
	--model glm5 --model-weights-dir /tilert_weights/glm5.1-fp8 --max-seq-len 202752 --kv-cache-dtype fp8 \
	--transport mooncake --with-mtp
DECODE2=$SPID
wait_200 "http://$D_IP:$DH2/health" 30 "$DECODE2" "the mooncake decode server"
st=$(http_code "http://$P_IP:$PP/v1/completions" "{\"model\":\"m\",\"prompt\":\"one two three\",\"max_tokens\":1,\"logprobs\":1,\"kv_transfer_params\":{\"tilert_host\":\"$D_IP\",\"tilert_ctrl_port\":$DC2}}")
[[ $st == 200 ]] || fail "the prefill of a refused handover: $st"
end=$((SECONDS + 10))
until grep -qF "AssertionError: transport mismatch: decode=mooncake vs prefill=nixl" prefill.log; do
	((SECONDS < end)) || fail "no transport mismatch in the prefill log: $(tail -n 5 prefill.log)"
	sleep 0.05
done
grep -qE "^send failed for [0-9a-f]{32}$" prefill.log || fail "no 'send failed for <rid>' line"
grep -q "seq_len=" decode2.log && fail "the mooncake decode server admitted a nixl sender"
end=$((SECONDS + 10))
until grep -q "connection from .* failed" decode2.log; do
	((SECONDS < end)) || fail "the decode side did not log the dropped connection"
	sleep 0.05
done
ok "transport mismatch (prefill nixl, decode mooncake) is refused at the handshake: 'send failed', AssertionError"

# a prompt longer than the decode node's --max-seq-len, and a layout mismatch (bf16 vs fp8)
kill -TERM "$DECODE2"
expect_rc 143 "$DECODE2" 10 "the mooncake decode server on SIGTERM"
FAKE_BIND_HOST=$D_IP start decode3.log "$DEC" --engine stub --http-port "$DH2" --ctrl-port "$DC2" \
	--max-seq-len 2 --kv-cache-dtype fp8 --transport nixl
DECODE3=$SPID
wait_200 "http://$D_IP:$DH2/health" 30 "$DECODE3" "the short decode server"
http_code "http://$P_IP:$PP/v1/completions" "{\"model\":\"m\",\"prompt\":\"one two three\",\"max_tokens\":1,\"kv_transfer_params\":{\"tilert_host\":\"$D_IP\",\"tilert_ctrl_port\":$DC2}}" >/dev/null
end=$((SECONDS + 10))
until grep -qF "AssertionError: seq 3 exceeds decode max_seq_len 2" prefill.log; do
	((SECONDS < end)) || fail "no seq check in the prefill log"
	sleep 0.05
done
kill -TERM "$DECODE3"
expect_rc 143 "$DECODE3" 10 "the short decode server on SIGTERM"
FAKE_BIND_HOST=$D_IP start decode4.log "$DEC" --engine stub --http-port "$DH2" --ctrl-port "$DC2" \
	--kv-cache-dtype bf16 --transport nixl
DECODE4=$SPID
wait_200 "http://$D_IP:$DH2/health" 30 "$DECODE4" "the bf16 decode server"
http_code "http://$P_IP:$PP/v1/completions" "{\"model\":\"m\",\"prompt\":\"one\",\"max_tokens\":1,\"kv_transfer_params\":{\"tilert_host\":\"$D_IP\",\"tilert_ctrl_port\":$DC2}}" >/dev/null
end=$((SECONDS + 10))
until grep -qF "AssertionError: layout version mismatch: 50 vs 10" prefill.log; do
	((SECONDS < end)) || fail "no layout check in the prefill log"
	sleep 0.05
done
st=$(http_code "http://$P_IP:$PP/v1/completions" '{"model":"m","prompt":"plain","max_tokens":1}')
[[ $st == 200 ]] || fail "a request without tilert_host: $st"
ok "seq > decode max_seq_len and a layout_version mismatch are refused as the connector asserts; plain requests are served"

# ---- signals: uvicorn re-raises the signal it caught ----
kill -TERM "$ROUTERPID"
expect_rc 143 "$ROUTERPID" 10 "the router on SIGTERM"
kill -TERM "$DECODE"
expect_rc 143 "$DECODE" 10 "the decode server on SIGTERM"
# a background job of this shell starts with SIGINT ignored: uvicorn takes it
# anyway, shuts down, raises it again (ignored) and main() returns: exit 0
kill -INT "$DECODE4"
expect_rc 0 "$DECODE4" 10 "the stub decode server on SIGINT (ignored before uvicorn took it)"
# with SIGINT at its default, Python's KeyboardInterrupt ends it (130)
FAKE_BIND_HOST=$D_IP start decode5.log python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$DEC" --http-port "$DH2" --ctrl-port "$DC2"
DECODE5=$SPID
wait_200 "http://$D_IP:$DH2/health" 30 "$DECODE5" "the SIGINT decode server"
kill -INT "$DECODE5"
expect_rc 130 "$DECODE5" 10 "the decode server on SIGINT"
grep -qx "KeyboardInterrupt" decode5.log || fail "SIGINT: no KeyboardInterrupt"
stop "$PREFILL" "the vLLM prefill"
ok "SIGTERM: router and decode server die of the signal (143); SIGINT: KeyboardInterrupt 130 (0 if it was ignored); vLLM exits 0"
echo "1..$n"
