#!/usr/bin/env bash
# tests/cli/test_fakes_bench.sh: the benchmark stand-ins under tests/fakes
# (`vllm bench serve` in tests/fakes/vllm, and tests/fakes/sa_bench) run the
# exact argv srtctl's adapters build (loadgen/, printed by `test_loadgen
# --argv`) against a small streaming server on loopback: at most
# max-concurrency requests in flight, prompts + warmup requests sent, the
# real summary printed, and a result file the C adapter parses
# (`test_loadgen --parse`).  Wrong flags exit 2 as argparse does; each fault
# knob does what tests/fakes/README.md says.  Free ports from the kernel,
# every wait bounded, every process killed by PID.
set -euo pipefail

src=${SRT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
F=$src/tests/fakes
LG=${SRT_TEST_LOADGEN:-$(dirname "${SRTCTL:?SRTCTL is not set}")/tests/test_loadgen}
[[ -x $LG ]] || { echo "FAIL: $LG (the test_loadgen unit test binary) is missing" >&2; exit 1; }

. "$src/tests/cli/fakes_lib.sh"
unset FAKE_RECORD_DIR FAKE_RECORD_FILE FAKE_BENCH_FAIL_AT_CONCURRENCY FAKE_BENCH_ZERO_OUTPUT \
	FAKE_BENCH_ERROR_RATIO FAKE_BENCH_TRUNCATE FAKE_BENCH_HANG

# A completions server: streams max_tokens chunks ("data: {...}", a usage
# chunk, "data: [DONE]") 2 ms apart, and counts requests and the most in
# flight at once into stats.json.
cat >server.py <<'PY'
import json, socket, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

lock = threading.Lock()
st = {"requests": 0, "in_flight": 0, "peak": 0, "models": []}

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with lock:
            st["requests"] += 1
            st["in_flight"] += 1
            st["peak"] = max(st["peak"], st["in_flight"])
            if body["model"] not in st["models"]:
                st["models"].append(body["model"])
        try:
            if self.path != "/v1/completions" or not body.get("stream"):
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            n = int(body["max_tokens"])
            time.sleep(0.01)
            for i in range(n):
                chunk = {"id": "c", "object": "text_completion", "model": body["model"],
                         "choices": [{"index": 0, "text": " t%d" % i, "finish_reason": None}]}
                self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                self.wfile.flush()
                time.sleep(0.002)
            usage = {"id": "c", "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": n}}
            self.wfile.write(b"data: " + json.dumps(usage).encode() + b"\n\ndata: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True
        finally:
            with lock:
                st["in_flight"] -= 1
    def do_GET(self):
        with lock:
            data = json.dumps(st).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

s = ThreadingHTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(s.server_address[1]))
s.serve_forever()
PY
python3 server.py port.txt >server.log 2>&1 &
pids+=($!)
for _ in $(seq 100); do [[ -s port.txt ]] && break; sleep 0.05; done
[[ -s port.txt ]] || fail "the test server did not start"
url=http://127.0.0.1:$(cat port.txt)

stats() { # one of the server's counters (requests, peak)
	python3 -c 'import json,sys,urllib.request; print(json.load(urllib.request.urlopen(sys.argv[1]+"/stats"))[sys.argv[2]])' "$url" "$1"
}
field() { # FILE KEY: one key of a JSON object file
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

# argv TOOL RESULT CONC PROMPTS WARMUP: the adapter's warmup argv into warm.argv,
# the measured argv into run.argv (NUL-separated), with the stand-in as prefix.
argv() {
	"$LG" --argv "$1" "$url" "$2" 16 8 "$3" "$4" "$5" >argv.txt || fail "test_loadgen --argv $*"
	python3 - "$1" "$F" <<'PY'
import sys
tool, fakes = sys.argv[1], sys.argv[2]
words = open("argv.txt").read().split("\n")[:-1]
cut = words.index("--")
prefix = [fakes + "/vllm", "bench", "serve"] if tool == "vllm-bench" else [fakes + "/sa_bench"]
for name, part in (("warm.argv", words[:cut]), ("run.argv", words[cut + 1:])):
    if part:
        assert part[:3] in (["vllm", "bench", "serve"], ["python3", "-u", "/srtctl-benchmarks/sa-bench/benchmark_serving.py"]), part[:3]
        part = prefix + part[3:]
    open(name, "w").write("".join(w + "\0" for w in part))
PY
}
run_argv() { # FILE LOG: run a NUL-separated argv, its output into LOG; RC=status
	local -a a
	mapfile -d '' a <"$1"
	RC=0
	timeout 60 "${a[@]}" >"$2" 2>&1 || RC=$?
}
parse() { # TOOL FILE -> prints the columns; fails the test when refused
	"$LG" --parse "$1" "$2" >cols.json 2>parse.err || fail "$1 result refused: $(cat parse.err)"
}

# --- vllm bench serve: 12 prompts, concurrency 3, 2 warmups -----------------------------
mkdir -p res
before=$(stats requests)
argv vllm-bench "$work/res/v.json" 3 12 2
[[ ! -s warm.argv ]] || fail "vllm-bench got a separate warmup run"
run_argv run.argv v.log
[[ $RC == 0 ]] || fail "vllm bench serve exited $RC: $(tail -5 v.log)"
grep -qx '============ Serving Benchmark Result ============' v.log || fail "no vLLM summary header"
grep -Eq '^Successful requests: +12 *$' v.log || fail "summary: successful requests"
grep -Eq '^Failed requests: +0 *$' v.log || fail "summary: failed requests"
grep -Eq '^Maximum request concurrency: +3 *$' v.log || fail "summary: concurrency"
grep -Eq '^P99 E2EL \(ms\): +[0-9.]+ *$' v.log || fail "summary: P99 E2EL"
(($(stats requests) - before == 14)) || fail "vllm bench serve sent $(($(stats requests) - before)) requests, want 12 + 2 warmups"
(($(stats peak) <= 3)) || fail "more than 3 requests in flight: $(stats peak)"
parse vllm-bench res/v.json
for kv in '"num_prompts": 12' '"completed": 12' '"errors": 0' '"total_output_tokens": 96' \
	'"total_input_tokens": 192'; do
	grep -qF "$kv" cols.json || fail "vllm-bench columns lack $kv: $(cat cols.json)"
done
python3 - res/v.json <<'PY' || fail "vllm-bench result keys or types"
import json, sys
r = json.load(open(sys.argv[1]))
want = {"date": str, "endpoint_type": str, "backend": str, "model_id": str, "tokenizer_id": str,
        "num_prompts": int, "request_rate": str, "burstiness": float, "max_concurrency": int,
        "duration": float, "completed": int, "failed": int, "total_input_tokens": int,
        "total_output_tokens": int, "request_throughput": float, "output_throughput": float,
        "total_token_throughput": float, "max_output_tokens_per_s": float,
        "max_concurrent_requests": int, "p50_ttft_ms": float, "p99_itl_ms": float,
        "std_e2el_ms": float, "median_tpot_ms": float}
for k, t in want.items():
    assert isinstance(r[k], t), (k, r[k])
assert r["request_goodput"] is None and r["label"] is None
assert "errors" not in r and "ttfts" not in r   # dropped without --save-detailed
assert r["backend"] == "vllm" and r["request_rate"] == "inf"
PY

# --- sa-bench: the warmup run, then the measured run ---------------------------------------
before=$(stats requests)
argv sa-bench "$work/res/s.json" 2 6 4
run_argv warm.argv sw.log
[[ $RC == 0 ]] || fail "sa-bench warmup exited $RC: $(tail -5 sw.log)"
[[ ! -e res/s.json ]] || fail "the warmup run wrote a result"
run_argv run.argv s.log
[[ $RC == 0 ]] || fail "sa-bench exited $RC: $(tail -5 s.log)"
grep -qx '============ Serving Benchmark Result ============' s.log || fail "no sa-bench summary header"
grep -Eq '^Total Token throughput \(tok/s\): +[0-9.]+ *$' s.log || fail "sa-bench summary line"
# each run: 1 initial test request + its prompts
(($(stats requests) - before == 1 + 4 + 1 + 6)) || fail "sa-bench sent $(($(stats requests) - before)) requests, want 12"
parse sa-bench res/s.json
grep -qF '"completed": 6' cols.json || fail "sa-bench columns: $(cat cols.json)"
grep -qF '"errors": 0' cols.json || fail "sa-bench columns: $(cat cols.json)"
[[ $(field res/s.json backend) == dynamo ]] || fail "sa-bench backend"
[[ $(field res/s.json errors) == "['', '', '', '', '', '']" ]] || fail "sa-bench errors list"

# --- wrong flags: exit 2, usage, argparse's message -------------------------------------------
"$F/vllm" bench serve --model m --max-concurency 3 >bad.log 2>&1 && fail "a misspelt flag was accepted" || RC=$?
[[ $RC == 2 ]] || fail "vllm bench serve, misspelt flag: exit $RC"
grep -q '^usage: vllm ' bad.log || fail "no usage line: $(cat bad.log)"
grep -qx 'vllm: error: unrecognized arguments: --max-concurency 3' bad.log || fail "message: $(cat bad.log)"
RC=0; "$F/vllm" bench serve --backend dynamo >bad.log 2>&1 || RC=$?
[[ $RC == 2 ]] || fail "vllm bench serve --backend dynamo: exit $RC"
grep -q "argument --backend: invalid choice: 'dynamo'" bad.log || fail "backend choice: $(cat bad.log)"
RC=0; "$F/sa_bench" --model m --num-warmups 3 >bad.log 2>&1 || RC=$?
[[ $RC == 2 ]] || fail "sa_bench --num-warmups: exit $RC"
grep -qx 'benchmark_serving.py: error: unrecognized arguments: --num-warmups 3' bad.log || fail "sa message: $(cat bad.log)"
RC=0; "$F/sa_bench" --num-prompts 3 >bad.log 2>&1 || RC=$?
[[ $RC == 2 ]] || fail "sa_bench without --model: exit $RC"
grep -q 'the following arguments are required: --model' bad.log || fail "required: $(cat bad.log)"

# --- fault knobs ---------------------------------------------------------------------------------
argv vllm-bench "$work/res/k.json" 3 12 0
FAKE_BENCH_FAIL_AT_CONCURRENCY=3 run_argv run.argv k.log
[[ $RC == 1 ]] || fail "FAKE_BENCH_FAIL_AT_CONCURRENCY=3 at concurrency 3: exit $RC"
[[ ! -e res/k.json ]] || fail "a failed run wrote a result"
FAKE_BENCH_FAIL_AT_CONCURRENCY=4 run_argv run.argv k.log
[[ $RC == 0 ]] || fail "FAKE_BENCH_FAIL_AT_CONCURRENCY=4 at concurrency 3: exit $RC"

FAKE_BENCH_ZERO_OUTPUT=1 run_argv run.argv k.log
[[ $RC == 0 ]] || fail "FAKE_BENCH_ZERO_OUTPUT: exit $RC"
parse vllm-bench res/k.json
grep -qF '"completed": 12' cols.json && grep -qF '"total_output_tokens": 0' cols.json ||
	fail "FAKE_BENCH_ZERO_OUTPUT columns: $(cat cols.json)"

FAKE_BENCH_ERROR_RATIO=0.25 run_argv run.argv k.log
[[ $RC == 0 ]] || fail "FAKE_BENCH_ERROR_RATIO: exit $RC"
parse vllm-bench res/k.json
grep -qF '"completed": 9' cols.json && grep -qF '"errors": 3' cols.json ||
	fail "FAKE_BENCH_ERROR_RATIO columns: $(cat cols.json)"
argv sa-bench "$work/res/ks.json" 3 12 0
FAKE_BENCH_ERROR_RATIO=0.25 run_argv run.argv k.log
[[ $RC == 0 ]] || fail "sa-bench FAKE_BENCH_ERROR_RATIO: exit $RC"
parse sa-bench res/ks.json
grep -qF '"errors": 3' cols.json || fail "sa-bench FAKE_BENCH_ERROR_RATIO columns: $(cat cols.json)"

argv vllm-bench "$work/res/k.json" 3 12 0
FAKE_BENCH_TRUNCATE=1 run_argv run.argv k.log
[[ $RC == 0 ]] || fail "FAKE_BENCH_TRUNCATE: exit $RC"
"$LG" --parse vllm-bench res/k.json >/dev/null 2>parse.err && fail "a truncated result was accepted"
grep -q 'not JSON' parse.err || fail "truncated: $(cat parse.err)"

mapfile -d '' a <run.argv
FAKE_BENCH_HANG=1 "${a[@]}" >hang.log 2>&1 &
hp=$!
pids+=($hp)
sleep 2
alive "$hp" || fail "FAKE_BENCH_HANG: the benchmark exited"
grep -q 'FAKE_BENCH_HANG' hang.log || fail "FAKE_BENCH_HANG: no notice"
kill -TERM "$hp"
expect_rc 143 "$hp" 10 "FAKE_BENCH_HANG after SIGTERM"

echo "ok: benchmark stand-ins"
