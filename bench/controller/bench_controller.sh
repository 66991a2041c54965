#!/usr/bin/env bash
# bench/controller/bench_controller.sh: controller figures on the local SLURM.
#
#   scripts/slurm-local up --nodes 3 && eval "$(scripts/slurm-local env)"
#   bench/controller/bench_controller.sh [SRTCTL]
#
# 1. apply -> master Ready -> all workers running: the SGLang quick start with
#    the stand-ins, 5 times; times come from the events srtctl recorded
#    (RecipeCreated/Configured, the master's Ready, the last worker's Started).
# 2. slurmrestd calls per controller pass with 1, 10 and 100 runs in the
#    database (one-node agg runs: a dozen run on the 3 nodes, the rest stay
#    queued): the controller's own per-pass count once nothing changes,
#    median of 10 passes.
# Prints figures; asserts nothing.  Cleans up its recipes and jobs.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SRTCTL=$(realpath "${1:-$root/build/srtctl}")
: "${SRT_SLURMRESTD_URL:?start the local SLURM: scripts/slurm-local up && eval \"\$(scripts/slurm-local env)\"}"
WORK=$(mktemp -d /tmp/srt-bench-ctl.XXXXXX)
chmod 755 "$WORK"
# The jobs run as the SLURM job user, who may not be able to enter this checkout
# (a clone under a 0700 directory): give them copies they can read.
mkdir -p "$WORK/bin"
cp "$SRTCTL" "$WORK/bin/srtctl"
cp -r "$root/tests/fakes" "$WORK/fakes"
chmod -R a+rX "$WORK/bin" "$WORK/fakes"
SRTCTL=$WORK/bin/srtctl
FAKES=$WORK/fakes
DB=$WORK/state.db
mkdir -p "$WORK/runs"
CTL=
cleanup() {
	for r in $("$SRTCTL" get recipes -o json --db "$DB" 2>/dev/null | python3 -c 'import json,sys; [print(i["name"]) for i in json.load(sys.stdin)["items"]]' 2>/dev/null); do
		"$SRTCTL" delete recipe "$r" --db "$DB" >/dev/null 2>&1 || true
	done
	"$SRTCTL" controller --once --db "$DB" >/dev/null 2>&1 || true
	sleep 3
	"$SRTCTL" controller --once --db "$DB" >/dev/null 2>&1 || true
	[ -n "$CTL" ] && kill "$CTL" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
cat >"$WORK/srtslurm.yaml" <<YAML
runtime: {log_root: $WORK/runs}
slurmrestd: {url: $SRT_SLURMRESTD_URL, user: ${SRT_SLURM_USER:-slurmci}, token_file: $SRT_SLURM_TOKEN_FILE}
commands:
  mooncake_master: [$FAKES/fake_mooncake_master]
  sglang: [$FAKES/fake_engine]
  srtctl: [$SRTCTL]
YAML
export SRTSLURM_CONFIG=$WORK/srtslurm.yaml
unset SLURM_JWT

echo "== apply -> master Ready -> workers running (SGLang quick start, 2 workers, stand-ins)"
"$SRTCTL" controller --db "$DB" --interval 500ms >"$WORK/ctl.log" 2>&1 &
CTL=$!
for i in 1 2 3 4 5; do
	cat >"$WORK/qs.yaml" <<YAML
name: bench-qs
environment: {BENCH_ROUND: "$i"}
engine: sglang
roles:
  prefill: {args: {disaggregation-transfer-backend: mooncake}}
  decode: {args: {disaggregation-transfer-backend: mooncake}}
services:
  - {name: mooncake-master, type: mooncake-master}
YAML
	"$SRTCTL" apply -f "$WORK/qs.yaml" --db "$DB" --wait --timeout 120s >/dev/null
	"$SRTCTL" events -o json --db "$DB" >"$WORK/ev.json"
	python3 - "$WORK/ev.json" "$i" <<'PY'
import json, sys
items = json.load(open(sys.argv[1]))["items"]
gen = int(sys.argv[2])
run = f"bench-qs-{gen}-1"
def first(pred):
    ts = [i["last_timestamp"] if i["reason"].startswith("Recipe") else i["first_timestamp"]
          for i in items if pred(i)]
    return min(ts) if ts else None
from datetime import datetime
def ms(t): return datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp() * 1000
applied = max(i["last_timestamp"] for i in items if i["object"]["name"] == "bench-qs" and i["reason"] in ("RecipeCreated", "RecipeConfigured"))
master = first(lambda i: i["object"]["name"] == f"{run}/mooncake-master" and i["reason"] == "Ready")
workers = [i["first_timestamp"] for i in items if i["object"]["kind"] == "worker" and i["object"]["name"].startswith(run + "/") and i["reason"] == "Started"]
print(f"  round {gen}: master Ready {ms(master) - ms(applied):6.0f} ms after apply; "
      f"all workers running {ms(max(workers)) - ms(applied):6.0f} ms after apply")
PY
done
kill "$CTL"
wait "$CTL" 2>/dev/null || true
CTL=
"$SRTCTL" delete recipe bench-qs --db "$DB" >/dev/null
"$SRTCTL" controller --once --db "$DB" >/dev/null 2>&1 || true

echo "== slurmrestd calls per controller pass (steady state, median of 10 passes)"
total=0
for n in 1 10 100; do
	while [ "$total" -lt "$n" ]; do
		total=$((total + 1))
		cat >"$WORK/r$total.yaml" <<YAML
name: bench-r$total
slurm: {max_attempts: 1}
engine: sglang
roles:
  agg: {args: {port: 30000}}
YAML
		"$SRTCTL" apply -f "$WORK/r$total.yaml" --db "$DB" >/dev/null 2>&1
	done
	# submit what is new and let phases settle, then measure quiet passes
	for _ in 1 2 3 4 5 6; do "$SRTCTL" controller --once --db "$DB" >/dev/null 2>&1; sleep 1; done
	"$SRTCTL" controller --db "$DB" --interval 200ms -v >"$WORK/calls.log" 2>&1 &
	CTL=$!
	sleep 3.5
	kill "$CTL"
	wait "$CTL" 2>/dev/null || true
	CTL=
	python3 - "$WORK/calls.log" "$n" <<'PY'
import re, sys, statistics
calls = [int(m.group(1)) for m in re.finditer(r"(\d+) slurmrestd call\(s\)", open(sys.argv[1]).read())]
ms = [float(m.group(1)) for m in re.finditer(r"call\(s\), ([\d.]+) ms", open(sys.argv[1]).read())]
steady = calls[1:11] or calls
print(f"  {int(sys.argv[2]):4d} runs: {statistics.median(steady):.0f} call(s) per pass "
      f"(passes {len(calls)}; first pass {calls[0] if calls else '?'} with the client's "
      f"version probe); pass time median {statistics.median(ms[1:11] or ms):.1f} ms")
PY
done
