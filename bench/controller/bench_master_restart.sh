#!/usr/bin/env bash
# bench/controller/bench_master_restart.sh: master killed -> Ready again -> its
# clients restarted, on the local SLURM (issue 6 §5).
#
#   scripts/slurm-local up --nodes 3 && eval "$(scripts/slurm-local env)"
#   bench/controller/bench_master_restart.sh [SRTCTL]      # as root
#
# Applies the SGLang quick start with a mooncake master and a mooncake-store on
# each worker node (the master's followers), default probe and restart settings
# except reset_after_seconds (so every kill is "restart 1" with the default
# 1 s back-off).  Then ROUNDS (20) times: SIGKILL the master stand-in and measure
#   - master Ready again: the agent's Ready event of the master (events.jsonl,
#     the times `srtctl events` shows) minus the kill time;
#   - followers restarted: the last store's Restarted event minus the kill;
#   - followers Ready: the last store's Ready event minus the kill;
#   - seen by `srtctl get services`: polled every 50 ms until the master is
#     Ready with a start time after the kill (adds the controller's pass,
#     --interval 500ms here).
# Prints median and worst of each.  Asserts nothing.  Cleans up after itself.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SRTCTL=$(realpath "${1:-$root/build/srtctl}")
ROUNDS=${ROUNDS:-20}
RESET_AFTER=${RESET_AFTER:-3}
: "${SRT_SLURMRESTD_URL:?start the local SLURM: scripts/slurm-local up && eval \"\$(scripts/slurm-local env)\"}"
FAKES=$root/tests/fakes
WORK=$(mktemp -d /tmp/srt-bench-mr.XXXXXX)
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
TAG=srt-bench-mr-$$
mkdir -p "$WORK/runs"
CTL=
S() { "$SRTCTL" "$@" --db "$DB"; }
cleanup() {
	S delete recipe bench-mr >/dev/null 2>&1 || true
	for _ in $(seq 1 60); do
		S get runs bench-mr-1-1 -o json 2>/dev/null | grep -q '"phase": *"Cancelled"' && break
		sleep 0.5
	done
	[ -n "$CTL" ] && kill "$CTL" 2>/dev/null && wait "$CTL" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
cat >"$WORK/srtslurm.yaml" <<YAML
runtime: {log_root: $WORK/runs}
slurmrestd: {url: $SRT_SLURMRESTD_URL, user: ${SRT_SLURM_USER:-slurmci}, token_file: $SRT_SLURM_TOKEN_FILE}
default_partition: ${SRT_SLURM_PARTITION:-debug}
commands:
  mooncake_master: [$FAKES/fake_mooncake_master]
  mooncake_store: [$FAKES/fake_mooncake_store]
  sglang: [$FAKES/sglang_launch_server]
  srtctl: [$SRTCTL]
YAML
export SRTSLURM_CONFIG=$WORK/srtslurm.yaml
unset SLURM_JWT
cat >"$WORK/mr.yaml" <<YAML
name: bench-mr
engine: sglang
model: {path: $MODEL}
roles:
  prefill: {env: {MOONCAKE_GLOBAL_SEGMENT_SIZE: "0"}, args: {disaggregation-transfer-backend: mooncake}}
  decode: {env: {MOONCAKE_GLOBAL_SEGMENT_SIZE: "0"}, args: {disaggregation-transfer-backend: mooncake}}
services:
  - name: mooncake-master
    type: mooncake-master
    env: {BENCH_TAG: $TAG}
    restart: {reset_after_seconds: $RESET_AFTER}
  - name: store
    type: mooncake-store
    placement: {node: workers}
    args: ["--port", "8800"]
    env: {MOONCAKE_PROTOCOL: tcp, MOONCAKE_GLOBAL_SEGMENT_SIZE: "1073741824"}
    readiness: {port: 8800}
YAML

"$SRTCTL" controller --db "$DB" --interval 500ms >"$WORK/ctl.log" 2>&1 &
CTL=$!
S apply -f "$WORK/mr.yaml" --wait --timeout 120s >"$WORK/apply.out" 2>&1 || {
	cat "$WORK/apply.out"
	exit 1
}
EV=$WORK/runs/bench-mr-1-1/events.jsonl

# The master stand-in of this benchmark (its environment carries BENCH_TAG).
master_pid() {
	local p
	for p in $(pgrep -u "${SRT_SLURM_USER:-slurmci}" -f "^python3 $FAKES/fake_mooncake_master"); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "BENCH_TAG=$TAG" && {
			echo "$p"
			return
		}
	done
}

# measure T_KILL: wait (30 s at most) for the master and both stores to be Ready
# again after T_KILL in events.jsonl; print "ready restarted followers_ready" in ms.
measure() {
	python3 - "$EV" "$1" <<'PY'
import json, sys, time
ev, t_kill = sys.argv[1], int(sys.argv[2])
deadline = time.time() + 30
while time.time() < deadline:
    evs = []
    with open(ev) as f:
        for l in f:
            if l.endswith("\n"):
                e = json.loads(l)
                if e["time"] >= t_kill:
                    evs.append(e)
    m_ready = [e["time"] for e in evs if e["object"]["name"] == "mooncake-master" and e["reason"] == "Ready"]
    stores = {e["object"]["name"] for e in evs if e["object"].get("service") == "store"}
    s_restarted = {e["object"]["name"]: e["time"] for e in evs
                   if e["object"].get("service") == "store" and e["reason"] == "Restarted"}
    s_ready = {e["object"]["name"]: e["time"] for e in evs
               if e["object"].get("service") == "store" and e["reason"] == "Ready"
               and e["object"]["name"] in s_restarted and e["time"] >= s_restarted[e["object"]["name"]]}
    if m_ready and len(s_restarted) >= 2 and len(s_ready) == len(s_restarted):
        print(m_ready[0] - t_kill, max(s_restarted.values()) - t_kill, max(s_ready.values()) - t_kill)
        sys.exit(0)
    time.sleep(0.05)
print("timeout", [(e["object"]["name"], e["reason"]) for e in evs], file=sys.stderr)
sys.exit(1)
PY
}

# seen T_KILL: poll `srtctl get services` every 50 ms until the master is Ready
# and started after T_KILL; print ms.
seen() {
	python3 - "$SRTCTL" "$DB" "$1" <<'PY'
import json, subprocess, sys, time
from datetime import datetime
srtctl, db, t_kill = sys.argv[1], sys.argv[2], int(sys.argv[3])
deadline = time.time() + 30
while time.time() < deadline:
    out = subprocess.run([srtctl, "get", "services", "--run", "bench-mr-1-1", "-o", "json", "--db", db],
                         capture_output=True, text=True).stdout
    now = int(time.time() * 1000)
    for s in json.loads(out)["items"]:
        if s["name"] == "mooncake-master" and s["state"] == "Ready" and s.get("started_at"):
            st = int(datetime.strptime(s["started_at"], "%Y-%m-%dT%H:%M:%S.%f%z").timestamp() * 1000)
            if st >= t_kill:
                print(now - t_kill)
                sys.exit(0)
    time.sleep(0.05)
sys.exit(1)
PY
}

echo "== master SIGKILLed -> Ready again -> followers (2 stores) restarted; $ROUNDS rounds"
: >"$WORK/results"
for i in $(seq 1 "$ROUNDS"); do
	sleep "$RESET_AFTER.5" # a stable period: the restart count starts afresh (back-off 1 s)
	pid=$(master_pid)
	[ -n "$pid" ] || {
		echo "round $i: no master stand-in found" >&2
		exit 1
	}
	t_kill=$(date +%s%3N)
	kill -9 "$pid"
	s=$(seen "$t_kill") || s=NA
	m=$(measure "$t_kill") || {
		echo "round $i: the master and its stores did not come back within 30 s" >&2
		exit 1
	}
	echo "$m $s" >>"$WORK/results"
	printf '  round %2d: master Ready %5s ms, stores restarted %5s ms, stores Ready %5s ms; get services shows Ready after %s ms\n' \
		"$i" $m "$s"
done
python3 - "$WORK/results" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
names = ["master killed -> Ready again (agent event)", "master killed -> followers restarted",
         "master killed -> followers Ready again", "master killed -> Ready in `srtctl get services`"]
for k, name in enumerate(names):
    v = [int(r[k]) for r in rows if r[k] != "NA"]
    if v:
        print(f"{name:50s} median {statistics.median(v) / 1000:6.2f} s   worst {max(v) / 1000:6.2f} s   (n={len(v)})")
PY
S get services --run bench-mr-1-1 -o wide 2>/dev/null | sed 's/^/  /' || true
