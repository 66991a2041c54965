#!/usr/bin/env bash
# bench/controller/bench_controller.sh: controller figures on the local SLURM.
#
#   scripts/slurm-local up --nodes 3 && eval "$(scripts/slurm-local env)"
#   bench/controller/bench_controller.sh [SRTCTL [BENCH_HISTORY]]
#
# 1. apply -> master Ready -> all workers running: the SGLang quick start with
#    the stand-ins, 5 times; times come from the events srtctl recorded
#    (RecipeCreated/Configured, the master's Ready, the last worker's Started).
# 2. Per controller pass once nothing changes, as the controller itself
#    reports it (-v): slurmrestd calls, wall and CPU time, peak RSS; with 1,
#    10 and 100 live runs (one-node agg runs: a dozen run on the 3 nodes, the
#    rest stay queued), then 100 live + 900 finished (bench_history adds a
#    campaign's finished runs), then 1,000 live + 900 finished.
# Prints figures; asserts nothing.  Cleans up its recipes and jobs.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SRTCTL=$(realpath "${1:-$root/build/srtctl}")
HISTORY=$(realpath "${2:-$(dirname "$SRTCTL")/bench/controller/bench_history}")
[ -x "$HISTORY" ] || { echo "bench_controller: build bench_history first (cmake --build build)" >&2; exit 2; }
: "${SRT_SLURMRESTD_URL:?start the local SLURM: scripts/slurm-local up && eval \"\$(scripts/slurm-local env)\"}"
WORK=$(mktemp -d /tmp/srt-bench-ctl.XXXXXX)
MODEL=$WORK/model # the strict engine stand-in checks that it exists
mkdir -p "$MODEL"
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
  sglang: [$FAKES/sglang_launch_server]
  srtctl: [$SRTCTL]
YAML
export SRTSLURM_CONFIG=$WORK/srtslurm.yaml
unset SLURM_JWT

echo "== apply -> master Ready -> workers running (SGLang quick start, 2 workers, stand-ins)"
"$SRTCTL" controller --db "$DB" --interval 500ms >"$WORK/ctl.log" 2>&1 &
CTL=$!
for i in 1 2 3 4 5; do
	cat >"$WORK/qs.yaml" <<YAML
name: bench-qs$i
engine: sglang
model: {path: $MODEL}
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
name = f"bench-qs{gen}"
run = f"{name}-1-1"
def first(pred):
    ts = [i["last_timestamp"] if i["reason"].startswith("Recipe") else i["first_timestamp"]
          for i in items if pred(i)]
    return min(ts) if ts else None
from datetime import datetime
def ms(t): return datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp() * 1000
applied = max(i["last_timestamp"] for i in items if i["object"]["name"] == name and i["reason"] in ("RecipeCreated", "RecipeConfigured"))
master = first(lambda i: i["object"]["name"] == f"{run}/mooncake-master" and i["reason"] == "Ready")
workers = [i["first_timestamp"] for i in items if i["object"]["kind"] == "worker" and i["object"]["name"].startswith(run + "/") and i["reason"] == "Started"]
print(f"  round {gen}: master Ready {ms(master) - ms(applied):6.0f} ms after apply; "
      f"all workers running {ms(max(workers)) - ms(applied):6.0f} ms after apply")
PY
	"$SRTCTL" delete recipe "bench-qs$i" --db "$DB" >/dev/null
done
kill "$CTL"
wait "$CTL" 2>/dev/null || true
CTL=
"$SRTCTL" controller --once --db "$DB" >/dev/null 2>&1 || true

# quiet LABEL: run the controller for 3.5 s at a 200 ms interval once nothing
# changes; print its own per-pass figures (median of the passes after the first).
quiet() {
	for _ in 1 2 3 4 5 6; do "$SRTCTL" controller --once --db "$DB" >/dev/null 2>&1; sleep 1; done
	"$SRTCTL" controller --db "$DB" --interval 200ms -v >"$WORK/calls.log" 2>&1 &
	CTL=$!
	sleep 3.5
	kill "$CTL"
	wait "$CTL" 2>/dev/null || true
	CTL=
	python3 - "$WORK/calls.log" "$1" <<'PY'
import re, sys, statistics
rx = re.compile(r"pass: (\d+) run\(s\).*?(\d+) slurmrestd call\(s\), ([\d.]+) ms \(cpu ([\d.]+) ms, max rss ([\d.]+) MiB\)")
p = [m.groups() for m in rx.finditer(open(sys.argv[1]).read())]
if len(p) < 2:
    sys.exit(f"  {sys.argv[2]}: too few passes logged ({len(p)})")
runs = int(p[-1][0])
steady = p[1:]
med = lambda k: statistics.median(float(x[k]) for x in steady)
print(f"  {sys.argv[2]:<34} {runs:5d} runs: {med(1):.0f} slurmrestd call(s)/pass, "
      f"wall {med(2):6.1f} ms, cpu {med(3):6.1f} ms (max {max(float(x[3]) for x in steady):.1f}), "
      f"max rss {float(p[-1][4]):.1f} MiB ({len(steady)} passes; the first, with the "
      f"version probe, made {p[0][1]} calls)")
PY
}

add_live() { # add_live N: apply live one-node recipes bench-r1..N
	while [ "$total" -lt "$1" ]; do
		total=$((total + 1))
		cat >"$WORK/r$total.yaml" <<YAML
name: bench-r$total
slurm: {max_attempts: 1}
engine: sglang
model: {path: $MODEL}
roles:
  agg: {}
YAML
		"$SRTCTL" apply -f "$WORK/r$total.yaml" --db "$DB" >/dev/null 2>&1
	done
}

echo "== controller passes once nothing changes (figures the controller prints with -v)"
total=0
for n in 1 10 100; do
	add_live "$n"
	quiet "$n live"
done
# 900 finished runs of a campaign beside the 100 live ones.
cat >"$WORK/tpl.yaml" <<YAML
name: bench-template
engine: sglang
model: {path: $MODEL}
roles:
  agg: {}
YAML
"$SRTCTL" apply -f "$WORK/tpl.yaml" --db "$DB" >/dev/null 2>&1
"$HISTORY" "$DB" bench-template 900 >/dev/null
quiet "100 live + 900 finished"
# And 1,000 live: 900 more jobs, most of them queued in SLURM.
add_live 1000
quiet "1000 live + 900 finished"
