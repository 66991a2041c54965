#!/usr/bin/env bash
# tests/cli/test_agent_ladder.sh: a campaign run (DIR/points.json) run by
# the real `srtctl agent` with SLURM stood in (tests/cli/agent_lib.sh): one
# aggregated SGLang worker stand-in (its performance model on, scaled down)
# serving directly as the frontend, and the benchmark stand-ins
# (tests/fakes/vllm `bench serve`, tests/fakes/sa_bench) as the tools.
#
# 1. vllm-bench, three points: the first is done (its result file exists,
#    its sha256 and metrics are reported, completed == prompts); the second
#    measures 0 output tokens (invalid), is retried once and finishes
#    invalid; the third exits 1, is retried once and finishes failed with
#    exit_code 1; then the run Succeeded.  Events in order: RunReady, then
#    per point PointStarted (PointRetrying, PointStarted) PointFinished.
# 2. sa-bench, one point: the warmup run, then the measured run, done.
# 3. a tool that hangs: killed at --point-timeout, the attempt failed
#    "timed out after N s".
# 4. SIGTERM while a point runs: the tool is stopped with the run, no
#    PointFinished for it, Stopped.
# 5. custom, a bash command with the point in its env and resultFile naming
#    where it writes (a variable in the name): the named file is read and
#    kept as the point's raw result; a point whose command writes nothing
#    there fails saying which file, and a file an earlier job left there is
#    not taken for this attempt's.
# 6. a job requeued by SLURM (node failure) starts again in the same run
#    directory with the same points.json: the agent killed with everything
#    it started during point 2, then started again, runs points 2 and 3
#    only (point 1 was reported finished before).
# Order and causality only (seq), never wall-clock.
set -euo pipefail

# shellcheck source=tests/cli/agent_lib.sh
source "$(dirname "$0")/agent_lib.sh"

export FAKE_PERF_SCALE=0.02 FAKE_PERF_JITTER=0
unset FAKE_BENCH_FAIL_AT_CONCURRENCY FAKE_BENCH_ZERO_OUTPUT FAKE_BENCH_ZERO_OUTPUT_AT_CONCURRENCY \
	FAKE_BENCH_HANG FAKE_BENCH_HANG_AT_CONCURRENCY FAKE_BENCH_ERROR_RATIO FAKE_BENCH_TRUNCATE || true

RECIPE="name: ladder
engine: sglang
model: {path: $model}
roles:
  agg: {}
frontend: {type: sglang}"

# points TOOL RETRIES CONCURRENCY...: run/points.json, one point per concurrency (seq 1, 2, ...).
points() {
	python3 - "$F" "$@" <<'PY'
import hashlib, json, sys
F, tool, retries, concs = sys.argv[1], sys.argv[2], int(sys.argv[3]), [int(c) for c in sys.argv[4:]]
import os
prefix = {"vllm-bench": ["python3", F + "/vllm", "bench", "serve"],
          "sa-bench": ["python3", "-u", F + "/sa_bench"], "custom": None}[tool]
pts = [{"id": hashlib.sha256(b"point%d" % c).hexdigest(), "seq": i + 1, "isl": 64, "osl": 8,
        "concurrency": c, "prompts": 4 * c, "warmup": 1, "repeat": 1} for i, c in enumerate(concs)]
stat = {"mean": 0, "median": 0, "p99": 0}
doc = {"version": 1, "campaign": "sweep", "deployment": "sweep-1a2b3c4d", "tool": tool,
       "params": {}, "command": None, "prefix": prefix, "model": None, "tokenizer": None,
       "retries": retries,
       "validity": {"min_completed_ratio": 0.99, "max_error_ratio": 0.01, "min_output_tokens_ratio": 0.5},
       "slo": {"ttft": {"mean": 0, "median": 0, "p99": 60000}, "tpot": stat, "itl": stat, "e2el": stat},
       "points": pts}
if tool == "custom":     # the command (a bash string) and resultFile from the environment
    doc["command"] = os.environ["CUSTOM_COMMAND"]
    if os.environ.get("CUSTOM_RESULT_FILE"):
        doc["result_file"] = os.environ["CUSTOM_RESULT_FILE"]
json.dump(doc, open("run/points.json", "w"), indent=1)
PY
}

# LADDER: helpers over the Point* events.
LADDER='
def pev():
    return [e for e in events() if e["reason"].startswith("Point") and e["reason"] != "PointsLoaded"]
def trace():
    return [(e["reason"], e["point"]["seq"], e["point"].get("attempt", e["point"].get("attempts"))) for e in pev()]
'

# ---- 1. vllm-bench: done, invalid after a retry, failed after a retry ----

new_case vllm "$RECIPE"
points vllm-bench 1 1 2 4
start_agent n1 FAKE_BENCH_ZERO_OUTPUT_AT_CONCURRENCY=2 FAKE_BENCH_FAIL_AT_CONCURRENCY=4
finish_agent 180
[[ $rc == 0 ]] || fail "vllm: agent exit status $rc, want 0"
check "vllm: the ladder" "$LADDER"'
import hashlib
es = events()
assert ev("PointsLoaded") and "3 load point(s) with vllm-bench" in ev("PointsLoaded")[0]["message"]
ready = ev("RunReady")[0]
assert all(e["seq"] > ready["seq"] for e in pev()), "no point before RunReady"
assert trace() == [("PointStarted", 1, 1), ("PointFinished", 1, 1),
                   ("PointStarted", 2, 1), ("PointRetrying", 2, 1), ("PointStarted", 2, 2), ("PointFinished", 2, 2),
                   ("PointStarted", 3, 1), ("PointRetrying", 3, 1), ("PointStarted", 3, 2), ("PointFinished", 3, 2)], trace()
assert all(e["object"] == {"kind": "run", "name": "ladder"} for e in pev())
fin = {e["point"]["seq"]: e["point"] for e in ev("PointFinished")}
plan_ids = [p["id"] for p in json.load(open("run/points.json"))["points"]]
assert [fin[s]["id"] for s in (1, 2, 3)] == plan_ids
# 1: done, its file and its hash, its metrics
p = fin[1]
assert p["state"] == "done" and p["exit_code"] == 0 and p["reason"] == "", p
assert p["raw_path"] == "points/0001-%s-a1.json" % plan_ids[0][:12], p["raw_path"]
raw = open("run/" + p["raw_path"], "rb").read()
assert hashlib.sha256(raw).hexdigest() == p["raw_sha256"]
assert p["metrics"]["completed"] == 4 and p["metrics"]["errors"] == 0, p["metrics"]
assert p["metrics"]["total_output_tokens"] >= 4 and p["metrics"]["duration_s"] > 0
r = json.loads(raw)
assert p["metrics"]["completed"] == r["completed"] and p["metrics"]["duration_s"] == r["duration"]
assert p["metrics"]["p99_ttft_ms"] == r["p99_ttft_ms"]
assert len(p["metrics"]) == 20 and p["slo_met"] is True
assert p["started_at"] <= p["finished_at"] and p["attempts"] == 1
# 2: invalid (0 output tokens), retried once
r2 = [e for e in ev("PointRetrying") if e["point"]["seq"] == 2][0]
assert r2["type"] == "Warning" and r2["point"]["state"] == "invalid", r2
assert "output tokens" in r2["point"]["reason"] and "minOutputTokensRatio" in r2["point"]["reason"], r2
p = fin[2]
assert p["state"] == "invalid" and p["attempts"] == 2 and p["exit_code"] == 0, p
assert p["raw_path"].endswith("-a2.json") and os.path.exists("run/" + p["raw_path"])
assert p["metrics"]["total_output_tokens"] == 0 and p["metrics"]["completed"] == 8, p["metrics"]
assert p["slo_met"] is None
# 3: the tool exited 1, retried once
r3 = [e for e in ev("PointRetrying") if e["point"]["seq"] == 3][0]
assert r3["point"]["state"] == "failed" and "exited with status 1" in r3["point"]["reason"], r3
assert "FAKE_BENCH_FAIL_AT_CONCURRENCY" in r3["point"]["reason"]   # the log tail
p = fin[3]
assert p["state"] == "failed" and p["attempts"] == 2 and p["exit_code"] == 1, p
assert p["raw_path"] is None and p["raw_sha256"] is None
assert all(v is None for v in p["metrics"].values())
# the end
last_fin = ev("PointFinished")[-1]
ok = ev("RunSucceeded")[0]
assert ok["seq"] > last_fin["seq"]
s = status()
assert s["phase"] == "Succeeded" and s["exit_code"] == 0, (s["phase"], s["exit_code"])
'"$RUN_STOPPED_ONCE"
[[ -s run/logs/benchmark_point_0001.out && -s run/logs/benchmark_point_0003.out ]] || fail "vllm: point logs"
grep -q "^--overlap --nodes=1 --ntasks=1 --nodelist=n1 --job-name=benchmark_point_0001 env" srun.log ||
	fail "vllm: the point's step: $(cat srun.log)"
echo "ok 1 vllm-bench: a point done with its file, sha256 and metrics; an invalid one and a failed one retried once; Succeeded"

# ---- 2. sa-bench: the warmup run, then the measured run ----

new_case sa "$RECIPE"
points sa-bench 0 2
start_agent n1
finish_agent 120
[[ $rc == 0 ]] || fail "sa: agent exit status $rc"
check "sa: warmup then measured" "$LADDER"'
assert trace() == [("PointStarted", 1, 1), ("PointFinished", 1, 1)], trace()
p = ev("PointFinished")[0]["point"]
assert p["state"] == "done" and p["metrics"]["completed"] == 8, p
log = open("run/logs/benchmark_point_0001.out").read()
w, m = log.find("warmup run"), log.find("measured run")
assert 0 <= w < m, log[:2000]
assert status()["phase"] == "Succeeded"
'
echo "ok 2 sa-bench: the warmup run first, then the measured run; done"

# ---- 3. a tool that hangs is killed at the point timeout ----

new_case hang "$RECIPE"
points vllm-bench 0 1
POINT_TIMEOUT=3s start_agent n1 FAKE_BENCH_HANG_AT_CONCURRENCY=1
finish_agent 120
[[ $rc == 0 ]] || fail "hang: agent exit status $rc"
check "hang: timed out" "$LADDER"'
assert trace() == [("PointStarted", 1, 1), ("PointFinished", 1, 1)], trace()
p = ev("PointFinished")[0]["point"]
assert p["state"] == "failed" and p["reason"] == "timed out after 3 s", p
assert p["exit_code"] in (143, 137), p
assert status()["phase"] == "Succeeded"
'
echo "ok 3 a hung tool is killed at --point-timeout: failed, timed out"

# ---- 4. SIGTERM while a point runs ----

new_case term "$RECIPE"
points vllm-bench 1 1 2
start_agent n1 FAKE_BENCH_HANG_AT_CONCURRENCY=1
until_py 60 'ev("PointStarted") and "FAKE_BENCH_HANG" in open("run/logs/benchmark_point_0001.out").read()'
stop_agent
[[ $rc == 143 ]] || fail "term: exit status $rc, want 143"
check "term: no report" "$LADDER"'
assert trace() == [("PointStarted", 1, 1)], trace()
assert status()["phase"] == "Stopped"
'"$RUN_STOPPED_ONCE"
for p in $(python3 -c 'import json; [print(json.loads(l)["pid"]) for l in open("rec/bench.jsonl")]'); do
	alive "$p" && fail "term: the tool (pid $p) still runs"
done
echo "ok 4 SIGTERM while a point runs: the tool is stopped, no PointFinished, Stopped"

# ---- 5. custom: the command's own result file (benchmark.resultFile) ----

new_case custom "$RECIPE"
mkdir -p out
echo '{"completed": 1}' >out/c2.json # left by an earlier job: not this attempt's result
export CUSTOM_RESULT_FILE="$PWD/out/c\${SRT_BENCH_CONCURRENCY}.json"
export CUSTOM_COMMAND='[ "$SRT_BENCH_CONCURRENCY" = 2 ] && exit 0
exec python3 '"$F"'/vllm bench serve --backend vllm --base-url "$SRT_FRONTEND_URL" \
  --model "$SRT_BENCH_MODEL" --dataset-name random --random-input-len "$SRT_BENCH_ISL" \
  --random-output-len "$SRT_BENCH_OSL" --num-prompts "$SRT_BENCH_PROMPTS" \
  --max-concurrency "$SRT_BENCH_CONCURRENCY" --ignore-eos --save-result \
  --result-dir '"$PWD"'/out --result-filename "c$SRT_BENCH_CONCURRENCY.json"'
points custom 0 1 2
unset CUSTOM_COMMAND CUSTOM_RESULT_FILE
start_agent n1
finish_agent 120
[[ $rc == 0 ]] || fail "custom: agent exit status $rc"
check "custom: the named result file" "$LADDER"'
import hashlib
assert trace() == [("PointStarted", 1, 1), ("PointFinished", 1, 1),
                   ("PointStarted", 2, 1), ("PointFinished", 2, 1)], trace()
fin = {e["point"]["seq"]: e["point"] for e in ev("PointFinished")}
p = fin[1]
assert p["state"] == "done" and p["metrics"]["completed"] == 4, p
named = open("out/c1.json", "rb").read()
assert open("run/" + p["raw_path"], "rb").read() == named       # kept: a copy of it
assert p["raw_sha256"] == hashlib.sha256(named).hexdigest()
p = fin[2]
assert p["state"] == "failed" and p["exit_code"] == 0, p
assert p["reason"].startswith("the tool exited with status 0 and wrote no result file "), p
assert p["reason"].endswith("/out/c2.json"), p
'
[[ ! -e out/c2.json ]] || fail "custom: the earlier job's out/c2.json was read, not removed"
echo "ok 5 custom: the file resultFile names is read and kept; none written: failed, naming it"

# ---- 6. requeued: the points finished before are not run again ----

new_case requeue "$RECIPE"
points vllm-bench 0 1 2 4
start_agent n1 FAKE_BENCH_HANG_AT_CONCURRENCY=2
until_py 60 '[e for e in ev("PointStarted") if e["point"]["seq"] == 2]'
until_py 60 'len([l for l in open("rec/bench.jsonl")]) >= 2' # the hung tool's own record
first="$(step_pids) $(python3 -c 'import json; [print(json.loads(l)["pid"]) for l in open("rec/bench.jsonl")]')"
kill -KILL "$agent_pid"
for p in $first; do kill -KILL "$p" 2>/dev/null || true; done
wait "$agent_pid" 2>/dev/null || true
for p in $first; do
	for ((i = 0; i < 100; i++)); do alive "$p" || break; sleep 0.1; done
done
cut=$(wc -l <run/events.jsonl)
start_agent n1
finish_agent 120
[[ $rc == 0 ]] || fail "requeue: agent exit status $rc"
check "requeue: only the unfinished points" "$LADDER"'
cut = int(sys.argv[1])
again = [e for e in pev() if e["seq"] > events()[cut - 1]["seq"]]
assert [(e["reason"], e["point"]["seq"]) for e in again] == [
    ("PointStarted", 2), ("PointFinished", 2), ("PointStarted", 3), ("PointFinished", 3)], again
loaded = ev("PointsLoaded")
assert len(loaded) == 2 and "2 load point(s)" in loaded[1]["message"], loaded[1]["message"]
assert "1 finished before this job was requeued, not run again" in loaded[1]["message"]
assert [e["point"]["seq"] for e in ev("PointFinished")] == [1, 2, 3]
assert status()["phase"] == "Succeeded"
' "$cut"
echo "ok 6 requeued job: point 1 (finished before) is not run again; 2 and 3 run"
