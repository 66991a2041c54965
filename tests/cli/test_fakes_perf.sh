#!/usr/bin/env bash
# tests/cli/test_fakes_perf.sh: the strict engine stand-ins stream their
# answers and time them by their performance model (tests/fakes/perfmodel.py,
# README.md "Performance model"): one server-sent event per output token,
# usage when asked, [DONE]; the time per output token grows with the
# requests in flight and falls with TP; output throughput rises with
# concurrency; a PD pair behind each router stand-in streams its decode
# tokens through the router, the first one only after the prefill; a burst
# of 64 connections at once (a benchmark's start) gets through the router.
#
# Only order and causality are asserted, never a wall-clock bound.  The
# model runs deterministic (FAKE_PERF_JITTER=0) and slowed down
# (FAKE_PERF_SCALE=5: a decode step of several milliseconds, so the
# stand-in's own Python overhead per token, tens of microseconds, stays
# small beside it).  Every pair compared is predicted by the model to differ
# by at least 1.5x (the test checks the predictions first and prints them):
# scheduling noise on a busy 2-core machine only ever makes a token later,
# and the stand-in paces tokens against absolute deadlines (a late token
# does not shift the next one), so a mean over many tokens cannot move by
# anything near that margin.  Time to first token also carries a fixed,
# unmodelled cost per request (HTTP, process scheduling), so it is only
# compared where the model predicts a difference far above that cost.
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
unset FAKE_RECORD_FILE FAKE_CHECK_ONLY FAKE_BIND_HOST FAKE_CONTAINER_MOUNTS \
	FAKE_ENGINE_START_DELAY FAKE_ENGINE_CRASH_AFTER MOONCAKE_MASTER MOONCAKE_CONFIG_PATH \
	FAKE_PERF_OFF FAKE_KV_TIMEOUT
export FAKE_PERF_JITTER=0 FAKE_PERF_SCALE=5 FAKE_RECORD_DIR=$work/rec
export PERFMODEL_DIR=$F

PROMPT=1024 # words = prompt tokens
OUT=64      # output tokens per request
ROUNDS=2    # requests per client at each concurrency

cat >h.py <<'PY'
import http.client, json, os, sys, threading, time, urllib.request

cmd, a = sys.argv[1], sys.argv[2:]


def stream(port, path, words, n, rid):
    """One streaming request; checks the stream's shape, returns its timings."""
    body = {"model": "m", "max_tokens": n, "stream": True, "ignore_eos": True,
            "stream_options": {"include_usage": True}}
    if path.endswith("chat/completions"):
        body["messages"] = [{"role": "user", "content": " ".join(["w"] * words)}]
    else:
        body["prompt"] = " ".join(["w"] * words)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    t0 = time.monotonic()
    conn.request("POST", path, body=json.dumps(body),
                 headers={"Content-Type": "application/json", "X-Request-Id": rid})
    r = conn.getresponse()
    assert r.status == 200, (r.status, r.read())
    assert r.getheader("Content-Type").startswith("text/event-stream"), r.getheaders()
    times, texts, usage, done, last = [], [], None, False, None
    while True:
        line = r.readline()
        if not line:
            break
        if not line.strip():
            continue
        assert line.startswith(b"data: ") and not done, (line, done)
        data = line[6:].strip()
        if data == b"[DONE]":
            done = True
            continue
        d = json.loads(data)
        if not d["choices"]:
            assert usage is None and d["usage"], d
            usage = d["usage"]
            continue
        assert usage is None, "a token after the usage chunk"
        (c,) = d["choices"]
        times.append(time.monotonic())
        texts.append(c["delta"]["content"] if "delta" in c else c["text"])
        last = c["finish_reason"]
    conn.close()
    assert done, "no data: [DONE]"
    assert len(times) == n, ("tokens", len(times), n)
    assert "".join(texts).split() == ["tok"] * n, texts
    assert last == "length", last
    assert usage == {"prompt_tokens": words, "completion_tokens": n,
                     "total_tokens": words + n}, usage
    return {"ttft": times[0] - t0, "tpot": (times[-1] - times[0]) / max(1, n - 1),
            "e2el": times[-1] - t0}


if cmd == "load":                    # load PORT PATH CONC ROUNDS WORDS OUT -> JSON line
    port, path, conc, rounds, words, n = int(a[0]), a[1], int(a[2]), int(a[3]), int(a[4]), int(a[5])
    res, errs = [], []

    def client(k):
        try:
            for i in range(rounds):
                res.append(stream(port, path, words, n, "perf-%d-%d-%d" % (conc, k, i)))
        except Exception as e:              # noqa: BLE001 -- reported below
            errs.append(repr(e))

    t0 = time.monotonic()
    ts = [threading.Thread(target=client, args=(k,)) for k in range(conc)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    wall = time.monotonic() - t0
    if errs:
        sys.exit("load c=%d: %s" % (conc, errs[0]))
    mean = lambda k: sum(r[k] for r in res) / len(res)
    print(json.dumps({"conc": conc, "requests": len(res), "ttft": mean("ttft"),
                      "tpot": mean("tpot"), "e2el": mean("e2el"),
                      "tput": len(res) * n / wall}))
elif cmd == "one":                     # one PORT PATH WORDS OUT RID -> JSON timings
    print(json.dumps(stream(int(a[0]), a[1], int(a[2]), int(a[3]), a[4])))
elif cmd == "py":
    exec(a[0])
PY
h() { python3 "$work/h.py" "$@"; }
get() { # FILE KEY
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}
gt() { # A B FACTOR WHAT: A > B * FACTOR
	python3 -c 'import sys; a, b, f = map(float, sys.argv[1:4]); sys.exit(0 if a > b * f else 1)' \
		"$1" "$2" "$3" || fail "$4: $1 is not above $2 x $3"
}

###########################################################################
# the model's own predictions: every pair compared below differs by >= 1.5x

h py "
sys.path.insert(0, os.environ['PERFMODEL_DIR'])
import perfmodel as m
P, N, S = $PROMPT, $OUT, 5.0
ctx = P + N / 2
step = lambda n, tp=1: m.step_seconds(n, n * ctx, tp, S)
tput = lambda n: n / step(n)
pred = {'tpot1': step(1), 'tpot4': step(4), 'tpot16': step(16), 'tpot1_tp2': step(1, 2),
        'tput1': tput(1), 'tput4': tput(4), 'tput16': tput(16), 'tput64': tput(64),
        'ttft_long': m.prefill_seconds(32000, 1, S), 'ttft_short': m.prefill_seconds(8, 1, S)}
print('predicted: ' + ', '.join('%s=%.4g' % kv for kv in sorted(pred.items())))
assert pred['tpot4'] >= 1.5 * pred['tpot1'] and pred['tpot16'] >= 1.5 * pred['tpot4'], pred
assert pred['tput4'] >= 1.5 * pred['tput1'] and pred['tpot1'] >= 1.5 * pred['tpot1_tp2'], pred
assert pred['ttft_long'] >= 100 * pred['ttft_short'] and pred['ttft_long'] > 0.3, pred
# the frontier's shape: throughput saturates (the last 4x of concurrency
# gains less than the first) while the time per token keeps growing
assert pred['tput64'] / pred['tput16'] < pred['tput4'] / pred['tput1'], pred
assert step(64) > 2 * step(16), pred
" || fail "the model's predictions do not support the comparisons below"

###########################################################################
# one worker (TP 1) at concurrency 1, 4, 16; one with TP 2 at concurrency 1

read -r P1 P2 < <(net freeports 2)
start tp1.log "$SGL" --model-path m --host 127.0.0.1 --port "$P1"
T1=$SPID
start tp2.log "$SGL" --model-path m --host 127.0.0.1 --port "$P2" --tp-size 2
T2=$SPID
net waitup "$P1" 20 || fail "TP 1 worker never served"
net waitup "$P2" 20 || fail "TP 2 worker never served"

for c in 1 4 16; do
	h load "$P1" /v1/completions "$c" "$ROUNDS" "$PROMPT" "$OUT" >"c$c.json" ||
		fail "streaming at concurrency $c"
	echo "measured TP 1: $(cat "c$c.json")"
done
h load "$P2" /v1/completions 1 "$ROUNDS" "$PROMPT" "$OUT" >tp2.json || fail "streaming on TP 2"
echo "measured TP 2: $(cat tp2.json)"
h load "$P1" /v1/chat/completions 2 1 16 8 >chat.json || fail "streaming chat completions"

gt "$(get c4.json tpot)" "$(get c1.json tpot)" 1 "mean tpot at concurrency 4 vs 1"
gt "$(get c16.json tpot)" "$(get c4.json tpot)" 1 "mean tpot at concurrency 16 vs 4"
gt "$(get c4.json tput)" "$(get c1.json tput)" 1 "output throughput at concurrency 4 vs 1"
gt "$(get c1.json tpot)" "$(get tp2.json tpot)" 1 "mean tpot at concurrency 1, TP 1 vs TP 2"
h py "
reqs = [json.loads(l) for l in open('$work/rec/requests.jsonl')]
assert len(reqs) == $ROUNDS * (1 + 4 + 16 + 1) + 2, len(reqs)
assert all(r['stream'] is True and r['status'] == 200 for r in reqs), reqs[0]
assert all(r['role'] == 'null' for r in reqs), reqs[0]
" || fail "request records of the streamed requests"
# a prompt given as token ids counts its ids; a request without "stream" is answered as before
r=$(h py "
body = {'prompt': list(range(37)), 'max_tokens': 3, 'stream': True,
        'stream_options': {'include_usage': True}}
req = urllib.request.Request('http://127.0.0.1:$P1/v1/completions', data=json.dumps(body).encode())
events = urllib.request.urlopen(req, timeout=30).read().decode().split('\n\n')
print(json.loads(events[3][6:])['usage'], events[4])
body = {'prompt': 'hi', 'max_tokens': 3}
req = urllib.request.Request('http://127.0.0.1:$P1/v1/completions', data=json.dumps(body).encode())
print(json.load(urllib.request.urlopen(req, timeout=30))['choices'][0]['text'])
")
[[ $r == "{'prompt_tokens': 37, 'completion_tokens': 3, 'total_tokens': 40} data: [DONE]"$'\n'ok ]] ||
	fail "token-id prompt or non-streaming answer: $r"
for p in "$T1" "$T2"; do stop "$p" "worker"; done
rm -f rec/*

###########################################################################
# a SGLang PD pair behind the SGLang router: the decode's tokens through the
# router, the first one only once the prefill (on the other worker) is done

read -r PP BP DP RP < <(net freeports 4)
start p.log "$SGL" --model-path m --host 127.0.0.1 --port "$PP" \
	--disaggregation-mode prefill --disaggregation-bootstrap-port "$BP"
PF=$SPID
start d.log "$SGL" --model-path m --host 127.0.0.1 --port "$DP" --disaggregation-mode decode
DC=$SPID
start r.log "$SROUTER" --pd-disaggregation --prefill "http://127.0.0.1:$PP" "$BP" \
	--decode "http://127.0.0.1:$DP" --host 127.0.0.1 --port "$RP"
RT=$SPID
net waitjson "http://127.0.0.1:$RP/workers" 20 \
	"d['stats'] == {'prefill_count': 1, 'decode_count': 1, 'regular_count': 0}" ||
	fail "router never saw both workers healthy"
h one "$RP" /v1/completions 32000 12 pd-long >long.json || fail "PD stream, long prompt"
h one "$RP" /v1/completions 8 12 pd-short >short.json || fail "PD stream, short prompt"
h load "$RP" /v1/chat/completions 4 1 64 16 >pdchat.json || fail "PD chat streams"
# a burst of 64 connections at once (a benchmark's start) all get through
h load "$RP" /v1/completions 64 1 8 2 >burst.json || fail "a burst of 64 streams through the router"
echo "measured PD long prompt: $(cat long.json)"
echo "measured PD short prompt: $(cat short.json)"
# the prefill of 32000 tokens runs on the prefill worker, yet delays the
# first token the decode worker sends.  A PD request also pays a fixed cost
# the model does not know (three HTTP hops and the bootstrap query, tens of
# milliseconds on a loaded machine), so the long prefill is made to take
# over 0.3 s, 100x the short one, and compared with a 2x margin.
gt "$(get long.json ttft)" "$(get short.json ttft)" 2 "PD ttft, 32000-token vs 8-token prompt"
h py "
reqs = [json.loads(l) for l in open('$work/rec/requests.jsonl')]
for rid in ('pd-long', 'pd-short'):
    by = {r['role']: r for r in reqs if r['request_id'] == rid}
    assert sorted(by) == ['decode', 'prefill'], reqs
    assert by['prefill']['port'] == $PP and by['decode']['port'] == $DP, by
    assert by['prefill']['bootstrap_room'] == by['decode']['bootstrap_room'], by
    assert by['prefill']['stream'] is True and by['decode']['stream'] is True, by
assert len(reqs) == 2 * (2 + 4 + 64), len(reqs)
" || fail "PD request records"
# (the prefill worker streams one token only: the 12 the client got, checked
# by \`one\`, came from the decode worker)
for p in "$RT" "$PF" "$DC"; do stop "$p" "PD process"; done
rm -f rec/*

###########################################################################
# vllm-router: prefill first (not streamed), then the decode's stream

read -r VP VD VR < <(net freeports 3)
kv='{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
start vp.log "$VLLM" serve m --host 127.0.0.1 --port "$VP" --kv-transfer-config "$kv"
VPP=$SPID
start vd.log "$VLLM" serve m --host 127.0.0.1 --port "$VD" --kv-transfer-config "$kv" \
	--tensor-parallel-size 2
VDP=$SPID
start vr.log "$VROUTER" --vllm-pd-disaggregation --prefill "http://127.0.0.1:$VP" \
	--decode "http://127.0.0.1:$VD" --port "$VR"
VRP=$SPID
net waitjson "http://127.0.0.1:$VR/workers" 20 \
	"d['stats'] == {'prefill_count': 1, 'decode_count': 1, 'regular_count': 0}" ||
	fail "vllm-router never saw both workers healthy"
h one "$VR" /v1/completions 100 10 v-1 >v.json || fail "vllm PD stream"
h py "
reqs = [json.loads(l) for l in open('$work/rec/requests.jsonl')]
assert [r['port'] for r in reqs] == [$VP, $VD], reqs
p, d = reqs
assert 'stream' not in p and d['stream'] is True, reqs
assert d['kv_transfer_params']['do_remote_prefill'] is True, d
" || fail "vllm PD stream records"
for p in "$VRP" "$VPP" "$VDP"; do stop "$p" "vLLM PD process"; done

echo "ok: fakes perf"
