#!/usr/bin/env bash
# tests/e2e/test_faults.sh: srtctl under faults, on the real local multi-node SLURM.
#
#   scripts/slurm-local up --nodes 3 && eval "$(scripts/slurm-local env)"
#   SRTCTL=build/srtctl tests/e2e/test_faults.sh
#
# The fault-injection and rollout tests of issue 6 §4.  Each
# case has its own recipe; a controller (--interval 1s) runs in the background;
# checks go through `srtctl get ... -o json`, `srtctl events -o json`, the
# stand-ins' records, slurmrestd's own job list and the state database.
#
#  1. SIGKILL the master: it is restarted (RESTARTS 1, Ready); its events tell
#     exit, back-off, restart, Ready, with increasing timestamps.
#  2. SIGSTOP the master (ports open, /health silent): Unhealthy after the
#     liveness threshold, restarted, Ready again.
#  3. Crash loop (FAKE_MASTER_CRASH_AFTER=2, max_restarts 3, back-off 0, 1, 2 s):
#     back-off grows, CrashLoopBackOff is seen, the budget ends it, the run is
#     Failed (slurm.max_attempts 1), restarts <= 3.  A non-critical service that
#     spends its budget leaves its run Degraded, with a Warning naming its log.
#  4. scancel the job behind srtctl's back, with the infra node drained: a new
#     attempt on other nodes; every worker's MOONCAKE_MASTER is the new master.
#  5. A new generation rolls out in place, in the same SLURM job: changing one
#     role's env restarts that role's worker only (start times, pids), and its
#     new env is in effect; changing a master arg restarts the master and the
#     store that follows it, not the workers; a new node count cancels the job
#     and a run of the new generation starts in a new one.
#  6. kill -9 the controller FAULTS_KILLS times (50; 15 when CI=true) at random
#     moments while recipes are applied, changed and deleted: one SLURM job per
#     attempt at most (slurmrestd's list), every agent event ingested once
#     (database vs events.jsonl up to the ingest cursor), desired states reached,
#     and no worker met its port taken by another loop job's worker.
#  7. slurmrestd down for FAULTS_REST_DOWN seconds (60; 15 when CI=true) in the
#     middle of a run: no resubmission, no failed run, SlurmUnavailable warnings,
#     recovery by itself.
#
# Exits 77 (skipped) when SRT_SLURMRESTD_URL is unset, unless
# SRT_E2E_REQUIRED=1.  Must run as root (scancel, scontrol, killing slurmrestd).
# Every wait is bounded.  FAULTS_ONLY="1 3" runs only those cases.
set -uo pipefail

if [ -z "${SRT_SLURMRESTD_URL:-}" ]; then
	echo "################################################################" >&2
	echo "# test_faults.sh needs the local SLURM: scripts/slurm-local up --nodes 3" >&2
	echo "# && eval \"\$(scripts/slurm-local env)\"" >&2
	echo "################################################################" >&2
	[ "${SRT_E2E_REQUIRED:-0}" = 1 ] && exit 1
	exit 77
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SRTCTL=$(realpath -m "${SRTCTL:-$root/build/srtctl}")
FAKES=$root/tests/fakes
SLURM_LOCAL=$root/scripts/slurm-local
if [ "${CI:-}" = true ]; then
	KILLS=${FAULTS_KILLS:-15}
	REST_DOWN=${FAULTS_REST_DOWN:-15}
else
	KILLS=${FAULTS_KILLS:-50}
	REST_DOWN=${FAULTS_REST_DOWN:-60}
fi
ONLY=" ${FAULTS_ONLY:-1 2 3 4 5 6 7} "
want() { [[ "$ONLY" == *" $1 "* ]]; }

WORK=$(mktemp -d /tmp/srt-faults.XXXXXX)
# The model directory the workers are given (the strict engine stand-ins check that it exists).
MODEL=$WORK/model
mkdir -p "$MODEL"
chmod 755 "$WORK" "$MODEL"
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
REC=$WORK/rec
mkdir -p "$REC" "$WORK/runs"
chmod 1777 "$REC"
CTL_PID=
DRAINED=
unset SLURM_JWT # CLI tools as root; the token comes from the token file
: "${SLURM_CONF:?eval \"\$(scripts/slurm-local env)\" first}"

n=0 passed=0 failed=0
ok() { n=$((n + 1)) passed=$((passed + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)) failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { # check DESCRIPTION COMMAND...
	local d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
note() { echo "# $*"; }

S() { "$SRTCTL" "$@" --db "$DB"; }
py() { python3 - "$@"; }

start_ctl() {
	# One controller at a time: a second would only find the lock taken.
	if [ -n "$CTL_PID" ] && kill -0 "$CTL_PID" 2>/dev/null; then
		return 0
	fi
	"$SRTCTL" controller --db "$DB" --interval 1s >>"$WORK/controller.log" 2>&1 &
	CTL_PID=$!
}
kill9_ctl() {
	[ -n "$CTL_PID" ] || return 0
	kill -9 "$CTL_PID" 2>/dev/null
	wait "$CTL_PID" 2>/dev/null
	CTL_PID=
}

# wait_for SECONDS COMMAND...: poll every 0.25 s until COMMAND succeeds.
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	while ! "$@"; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.25
	done
}

# Jobs of this test's runs still known to SLURM and not ended.
live_jobs() {
	S get jobs -o json 2>/dev/null | python3 -c '
import json, sys
live = [str(i["job_id"]) for i in json.load(sys.stdin)["items"]
        if i.get("state") not in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
                                  "PREEMPTED", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "GONE")]
print(" ".join(live))'
}
no_live_jobs() { [ -z "$(live_jobs)" ]; }

cleanup() {
	local r
	[ -n "$DRAINED" ] && scontrol update nodename="$DRAINED" state=resume >/dev/null 2>&1
	[ -n "$CTL_PID" ] || start_ctl
	for r in $(S get recipes -o json 2>/dev/null | python3 -c 'import json,sys; [print(i["name"]) for i in json.load(sys.stdin)["items"]]' 2>/dev/null); do
		S delete recipe "$r" >/dev/null 2>&1 || true
	done
	wait_for 60 no_live_jobs
	kill "$CTL_PID" 2>/dev/null || true
	wait "$CTL_PID" 2>/dev/null || true
	# Any controller of this test's database that escaped the PID bookkeeping.
	pkill -f -- "controller --db $DB " 2>/dev/null || true
	if [ "$failed" -ne 0 ]; then
		echo "# controller log (last 60 lines):"
		tail -n 60 "$WORK/controller.log" 2>/dev/null | sed 's/^/#   /'
	fi
	if [ "${FAULTS_KEEP:-0}" = 1 ]; then echo "# kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

cat >"$WORK/srtslurm.yaml" <<YAML
runtime:
  log_root: $WORK/runs
slurmrestd:
  url: $SRT_SLURMRESTD_URL
  user: ${SRT_SLURM_USER:-slurmci}
  token_file: ${SRT_SLURM_TOKEN_FILE:?}
default_partition: ${SRT_SLURM_PARTITION:-debug}
commands:
  mooncake_master: [$FAKES/fake_mooncake_master]
  mooncake_store: [$FAKES/fake_mooncake_store]
  sglang: [$FAKES/sglang_launch_server]
  vllm: [$FAKES/vllm, serve]
  sglang_router: [$FAKES/sglang_router]
  vllm_router: [$FAKES/vllm-router]
  srtctl: [$SRTCTL]
YAML
export SRTSLURM_CONFIG=$WORK/srtslurm.yaml
echo "# nodes: ${SRT_SLURM_NODES:-?} (${SRT_SLURM_NODE_IPS:-?}); kills $KILLS; slurmrestd down ${REST_DOWN}s"

# The stand-in master process itself (python3, running as the job user).  With
# several runs alive, the one whose environment names the given record dir.
master_pid() { pgrep -u "${SRT_SLURM_USER:-slurmci}" -f "^python3 $FAKES/fake_mooncake_master" | head -n 1; }

# svc RUN NAME: "state restarts endpoint node" of a service, or nothing.
svc() {
	S get services --run "$1" -o json 2>/dev/null | python3 -c '
import json, sys
try:
    items = json.load(sys.stdin)["items"]
except ValueError:
    items = []
for s in items:
    if s["name"] == sys.argv[1]:
        print(s["state"], s["restarts"], s.get("endpoint") or "-", s.get("node") or "-")' "$2"
}
svc_is() { # svc_is RUN NAME STATE RESTARTS
	local a
	read -r -a a <<<"$(svc "$1" "$2")"
	[ "${a[0]:-}" = "$3" ] && [ "${a[1]:-}" = "$4" ]
}
run_field() { # run_field RUN FIELD
	S get runs "$1" -o json 2>/dev/null | python3 -c '
import json, sys
try:
    items = json.load(sys.stdin)["items"]
except ValueError:
    items = []  # not found (yet)
print(items[0].get(sys.argv[1]) if items else "")' "$2"
}
run_phase_is() { [ "$(run_field "$1" phase)" = "$2" ]; }

master_recipe() { # master_recipe NAME [extra service lines] > yaml
	cat <<YAML
name: $1
slurm: {max_attempts: ${MAX_ATTEMPTS:-1}}
environment:
  FAKE_RECORD_DIR: $REC/$1
engine: sglang
model: {path: $MODEL}
roles:
  prefill: {args: {disaggregation-transfer-backend: mooncake}}
  decode: {args: {disaggregation-transfer-backend: mooncake}}
services:
  - name: mooncake-master
    type: mooncake-master
${2:-}
YAML
}
apply_wait() { # apply_wait NAME YAMLFILE TIMEOUT
	mkdir -p "$REC/$1" && chmod 1777 "$REC/$1"
	S apply -f "$2" --wait --timeout "$3" >"$WORK/apply-$1.out" 2>&1
}
delete_wait() {
	S delete recipe "$1" >/dev/null 2>&1
	wait_for 40 no_live_jobs
}

start_ctl

# ---- 1. SIGKILL the master -----------------------------------------------------------
if want 1; then
	master_recipe f-kill >"$WORK/kill.yaml"
	apply_wait f-kill "$WORK/kill.yaml" 90s
	check "1. the master recipe reaches Ready" test $? -eq 0
	pid=$(master_pid)
	t_kill=$(date +%s%3N)
	[ -n "$pid" ] && kill -9 "$pid"
	check "1. found the master stand-in (pid ${pid:-none}) and SIGKILLed it" test -n "$pid"
	wait_for 30 svc_is f-kill-1-1 mooncake-master Ready 1
	check "1. the master is restarted: get services shows restarts 1, state Ready ($(svc f-kill-1-1 mooncake-master))" test $? -eq 0
	sleep 1.5 # one more pass: every event of the restart ingested
	S events --for service/f-kill-1-1/mooncake-master -o json >"$WORK/ev-kill.json"
	py "$WORK/ev-kill.json" "$t_kill" <<'PY'
import json, sys
from datetime import datetime
items = json.load(open(sys.argv[1]))["items"]
t_kill = int(sys.argv[2])
def ms(ts): return int(datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%f%z").timestamp() * 1000)
# An identical event (the second "ready after 1.3 s ...") is counted on the first one's line
# (count 2, last_timestamp moved): use the time of its latest occurrence.
after = [(ms(i["last_timestamp"]), i["reason"], i["message"]) for i in items if ms(i["last_timestamp"]) >= t_kill - 50]
reasons = [r for _, r, _ in after]
print("# after the kill:", ", ".join(f"{r} +{t - t_kill} ms" for t, r, _ in after))
down = [k for k, r in enumerate(reasons) if r in ("ProcessExited", "Unhealthy")]
rs = [k for k, r in enumerate(reasons) if r == "Restarted"]
rd = [k for k, r in enumerate(reasons) if r == "Ready"]
assert down and rs and rd, reasons
assert down[0] < rs[0] < rd[-1], reasons
ts = [t for t, _, _ in after]
# the first restart is immediate: exit and restart may share a millisecond
assert ts[down[0]] <= ts[rs[0]] < ts[rd[-1]], ts
assert "137" in after[down[0]][2] or "signal 9" in after[down[0]][2] or "Killed" in after[down[0]][2], after[down[0]][2]
assert reasons.count("Restarted") == 1, reasons
PY
	check "1. events --for service/...: exited (137), restarted, Ready, in order (timestamps never decreasing)" test $? -eq 0
	run_phase_is f-kill-1-1 Ready
	check "1. the run stays Ready on attempt 1" test $? -eq 0
	delete_wait f-kill
fi

# ---- 2. hang the master (SIGSTOP) -----------------------------------------------------
if want 2; then
	master_recipe f-hang "    readiness: {interval_seconds: 1}" >"$WORK/hang.yaml"
	apply_wait f-hang "$WORK/hang.yaml" 90s
	check "2. the master recipe reaches Ready" test $? -eq 0
	pid=$(master_pid)
	if [ -n "$pid" ]; then
		# ports stay open (the kernel still accepts TCP) but /health gets no answer
		kill -STOP "$pid"
		note "SIGSTOPped master stand-in $pid at $(date +%T.%3N)"
		if timeout 3 curl -s -o /dev/null -m 2 "http://$(svc f-hang-1-1 mooncake-master | awk '{print $3}' | cut -d: -f1):8702/health"; then
			note "(its /health still answered?)"
		fi
	fi
	check "2. found the master stand-in (pid ${pid:-none}) and SIGSTOPped it" test -n "$pid"
	t0=$SECONDS
	seen_unhealthy=0
	deadline=$((SECONDS + 60))
	while [ $SECONDS -lt $deadline ]; do
		st=$(svc f-hang-1-1 mooncake-master)
		[ "${st%% *}" = Unhealthy ] && seen_unhealthy=1
		set -- $st
		[ "${1:-}" = Ready ] && [ "${2:-0}" -ge 1 ] && break
		sleep 0.2
	done
	took=$((SECONDS - t0))
	check "2. the hung master is restarted and Ready again, restarts 1 (${took}s; $(svc f-hang-1-1 mooncake-master))" svc_is f-hang-1-1 mooncake-master Ready 1
	sleep 1.5
	S events --for service/f-hang-1-1/mooncake-master -o json >"$WORK/ev-hang.json"
	py "$WORK/ev-hang.json" <<'PY'
import json, sys
items = json.load(open(sys.argv[1]))["items"]
reasons = [i["reason"] for i in items]
print("# events:", ", ".join(f'{i["reason"]}@{i["first_timestamp"][11:23]}' for i in items))
u = [i for i in items if i["reason"] == "Unhealthy"]
assert u, reasons
print("# Unhealthy:", u[0]["message"].splitlines()[0])
assert reasons.index("Unhealthy") < reasons.index("Restarted"), reasons
assert reasons[-1] == "Ready", reasons
PY
	check "2. an Unhealthy event (liveness threshold), then Restarted, then Ready (Unhealthy state polled: $seen_unhealthy)" test $? -eq 0
	run_phase_is f-hang-1-1 Ready
	check "2. the run stays Ready" test $? -eq 0
	[ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	delete_wait f-hang
fi

# ---- 3. crash loop ---------------------------------------------------------------------
if want 3; then
	master_recipe f-crash "    env: {FAKE_MASTER_CRASH_AFTER: \"2\"}
    restart: {policy: on-failure, max_restarts: 3, backoff_seconds: 1, max_backoff_seconds: 4}" >"$WORK/crash.yaml"
	mkdir -p "$REC/f-crash" && chmod 1777 "$REC/f-crash"
	S apply -f "$WORK/crash.yaml" >/dev/null 2>&1
	seen_clbo=0 max_restarts=0
	deadline=$((SECONDS + 90))
	t0=$SECONDS
	while [ $SECONDS -lt $deadline ]; do
		st=$(svc f-crash-1-1 mooncake-master)
		set -- $st
		[ "${1:-}" = CrashLoopBackOff ] && seen_clbo=1
		[ "${2:-0}" -gt "$max_restarts" ] && max_restarts=$2
		ph=$(run_field f-crash-1-1 phase)
		case $ph in Failed | Cancelled | Succeeded) break ;; esac
		sleep 0.2
	done
	note "crash loop ended after $((SECONDS - t0))s: run ${ph:-?}, master $(svc f-crash-1-1 mooncake-master)"
	check "3. state CrashLoopBackOff is seen while it backs off" test $seen_clbo -eq 1
	check "3. the budget ends it: the run is Failed" test "${ph:-}" = Failed
	sleep 3 # a runaway would go on restarting
	st=$(svc f-crash-1-1 mooncake-master)
	set -- $st
	check "3. no runaway restarts: restarts ${2:-?} <= 3 (most seen $max_restarts), the master ${1:-?}" \
		test "${2:-99}" -le 3 -a "$max_restarts" -le 3
	S events --for service/f-crash-1-1/mooncake-master -o json >"$WORK/ev-crash.json"
	S events --for run/f-crash-1-1 -o json >"$WORK/ev-crash-run.json"
	py "$WORK/ev-crash.json" "$WORK/ev-crash-run.json" "$(wc -l <"$REC/f-crash/mooncake_master.jsonl" 2>/dev/null || echo 0)" <<'PY'
import json, re, sys
from datetime import datetime
items = json.load(open(sys.argv[1]))["items"]
run_items = json.load(open(sys.argv[2]))["items"]
starts = int(sys.argv[3])
def ms(ts): return int(datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%f%z").timestamp() * 1000)
reasons = [i["reason"] for i in items]
print("# events:", ", ".join(f'{i["reason"]}' + (f'x{i["count"]}' if i["count"] > 1 else '') for i in items))
backoffs = [i for i in items if i["reason"] == "BackOff"]
delays = [float(re.search(r"back-off ([0-9.]+) s", i["message"]).group(1)) for i in backoffs]
print("# back-off delays (messages):", delays)
assert delays == [0.0, 1.0, 2.0], delays
# the gap BackOff -> Restarted grows too (event timestamps)
restarted = [i for i in items if i["reason"] == "Restarted"]
assert len(restarted) == 3, len(restarted)
gaps = [ms(r["first_timestamp"]) - ms(b["first_timestamp"]) for b, r in zip(backoffs, restarted)]
print("# back-off -> restarted gaps (ms):", gaps)
assert gaps[0] < gaps[1] < gaps[2], gaps
assert all(abs(g - d * 1000) < 600 for g, d in zip(gaps, delays)), (gaps, delays)
assert "RestartLimitReached" in reasons, reasons
assert any(i["reason"] == "RunFailed" for i in run_items), [i["reason"] for i in run_items]
assert starts == 4, f"the master was started {starts} times, want 4 (1 + 3 restarts)"
PY
	check "3. back-off grows 0 s, 1 s, 2 s (messages and timestamps); RestartLimitReached; RunFailed; 4 starts in all" test $? -eq 0
	runs=$(S get runs --recipe f-crash -o json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["items"]))')
	check "3. slurm.max_attempts 1: no second attempt (runs: $runs)" test "$runs" = 1
	delete_wait f-crash
	# A non-critical service that spends its budget: the run is Degraded, not Failed.
	master_recipe f-degraded "  - name: sidecar
    command: [sh, -c, 'sleep 0.5; exit 3']
    start: with_workers
    restart: {policy: on-failure, max_restarts: 1}" >"$WORK/degraded.yaml"
	mkdir -p "$REC/f-degraded" && chmod 1777 "$REC/f-degraded"
	S apply -f "$WORK/degraded.yaml" >/dev/null 2>&1
	wait_for 60 run_phase_is f-degraded-1-1 Degraded
	check "3. a non-critical service past its budget leaves the run Degraded ($(run_field f-degraded-1-1 phase)), its job running" \
		test "$(run_field f-degraded-1-1 phase)/$(run_field f-degraded-1-1 slurm_state)" = Degraded/RUNNING
	S events --for run/f-degraded-1-1 -o json >"$WORK/ev-degraded.json"
	py "$WORK/ev-degraded.json" <<'PY'
import json, sys
items = json.load(open(sys.argv[1]))["items"]
d = [i for i in items if i["reason"] == "RunDegraded"]
assert d and d[0]["type"] == "Warning", [i["reason"] for i in items]
assert "sidecar was given up (exit status 3)" in d[0]["message"] and "service_sidecar.out" in d[0]["message"], d[0]["message"]
assert any(i["reason"] == "PhaseDegraded" and i["type"] == "Warning" for i in items), [i["reason"] for i in items]
print("# " + d[0]["message"][:150])
PY
	check "3. a RunDegraded Warning names the service and its log; PhaseDegraded recorded" test $? -eq 0
	delete_wait f-degraded
fi

# ---- 4. scancel behind srtctl's back, infra node drained -------------------------------
if want 4; then
	MAX_ATTEMPTS=3 master_recipe f-resched >"$WORK/resched.yaml"
	apply_wait f-resched "$WORK/resched.yaml" 90s
	check "4. the recipe reaches Ready (attempt 1)" test $? -eq 0
	read -r _ _ ep1 node1 <<<"$(svc f-resched-1-1 mooncake-master)"
	job1=$(run_field f-resched-1-1 slurm_job_id)
	note "attempt 1: job $job1, master $ep1 on $node1"
	DRAINED=$node1
	scontrol update nodename="$node1" state=drain reason=srtctl-faults-test
	scancel "$job1"
	check "4. drained $node1 and scancelled job $job1 as root" test $? -eq 0
	wait_for 90 run_phase_is f-resched-1-2 Ready
	check "4. a new attempt f-resched-1-2 starts and is Ready" test $? -eq 0
	read -r _ _ ep2 node2 <<<"$(svc f-resched-1-2 mooncake-master)"
	job2=$(run_field f-resched-1-2 slurm_job_id)
	note "attempt 2: job $job2, master $ep2 on $node2; attempt 1 is $(run_field f-resched-1-1 phase)"
	check "4. the new master is on another node and IP ($ep1 on $node1 -> $ep2 on $node2)" \
		test -n "$ep2" -a "${ep2%:*}" != "${ep1%:*}" -a "$node2" != "$node1"
	S get workers --run f-resched-1-2 -o json >"$WORK/wrk-resched.json"
	py "$REC/f-resched/engine.jsonl" "$job1" "$job2" "$ep1" "$ep2" "$WORK/wrk-resched.json" <<'PY'
import json, sys
path, job1, job2, ep1, ep2, wrk = sys.argv[1:]
recs = [json.loads(l) for l in open(path)]
new = [r for r in recs if r["env"].get("SLURM_JOB_ID") == job2]
old = [r for r in recs if r["env"].get("SLURM_JOB_ID") == job1]
workers = json.load(open(wrk))["items"]
assert len(old) == 2 and len(new) == 2 == len(workers), (len(old), len(new), len(workers))
ip1, ip2 = ep1.rsplit(":", 1)[0], ep2.rsplit(":", 1)[0]
for r in old:
    assert r["env"]["MOONCAKE_MASTER"] == ep1, r["env"]["MOONCAKE_MASTER"]
for r in new:
    e = r["env"]
    assert e["MOONCAKE_MASTER"] == ep2, (r["host"], e["MOONCAKE_MASTER"], ep2)
    assert e["MOONCAKE_TE_META_DATA_SERVER"] == f"http://{ip2}:8701/metadata", e["MOONCAKE_TE_META_DATA_SERVER"]
    stale = {k: v for k, v in e.items() if ip1 in v}
    assert not stale, ("attempt 1's master IP is still in the env", r["host"], stale)
    print(f'# attempt 2 worker on {r["host"]}: MOONCAKE_MASTER={e["MOONCAKE_MASTER"]} LOCAL_HOSTNAME={e.get("MOONCAKE_LOCAL_HOSTNAME")}')
PY
	check "4. every worker of attempt 2 has MOONCAKE_MASTER=$ep2; attempt 1's IP appears nowhere in their env" test $? -eq 0
	S events -o json >"$WORK/ev-resched.json" # (to a file: grep -q in a pipe would SIGPIPE srtctl under pipefail)
	grep -q 'attempt 2 of 3 after f-resched-1-1 ended' "$WORK/ev-resched.json"
	check "4. an event says why attempt 2 was created" test $? -eq 0
	delete_wait f-resched
	scontrol update nodename="$node1" state=resume
	check "4. $node1 resumed" test $? -eq 0
	DRAINED=
fi

# ---- 5. a new generation rolls out in place ------------------------------------------------
roll_recipe() { # roll_recipe PREFILL_VALUE MASTER_ARGS [PLACEMENT] > yaml
	local placement=
	[ -n "${3:-}" ] && placement="    placement: {node: $3}"
	cat <<YAML
name: f-roll
slurm: {max_attempts: 1}
environment:
  FAKE_RECORD_DIR: $REC/f-roll
engine: sglang
model: {path: $MODEL}
roles:
  prefill:
    env: {ROLL_VAR: "$1"}
    args: {disaggregation-transfer-backend: mooncake}
  decode:
    env: {ROLL_VAR: decode-fixed}
    args: {disaggregation-transfer-backend: mooncake}
services:
  - name: mooncake-master
    type: mooncake-master
    args: [$2]
$placement
  - name: mooncake-store
    type: mooncake-store
    placement: {node: head}
    args: [--port, "8800"]
YAML
}
# started RUN: "name=started_at" of every service and worker, sorted
started() {
	S get services --run "$1" -o json >"$WORK/started-s.json" 2>/dev/null
	S get workers --run "$1" -o json >"$WORK/started-w.json" 2>/dev/null
	python3 - "$WORK/started-s.json" "$WORK/started-w.json" <<'PY'
import json, sys
out = []
for path in sys.argv[1:]:
    for i in json.load(open(path))["items"]:
        name = i.get("name") or "%s_%s" % (i["role"], i["index"])
        out.append("%s=%s" % (name, i["started_at"]))
print(" ".join(sorted(out)))
PY
}
run_event() { # run_event RUN REASON [COUNT]: the run has at least COUNT events of REASON
	S events --for "run/$1" -o json 2>/dev/null | python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
sys.exit(0 if sum(i["count"] for i in items if i["reason"] == sys.argv[1]) >= int(sys.argv[2]) else 1)' "$2" "${3:-1}"
}
if want 5; then
	roll_recipe one "" >"$WORK/roll.yaml"
	apply_wait f-roll "$WORK/roll.yaml" 90s
	check "5. f-roll reaches Ready (generation 1)" test $? -eq 0
	job1=$(run_field f-roll-1-1 slurm_job_id)
	wait_for 20 svc_is f-roll-1-1 mooncake-store Running 0
	t1=$(started f-roll-1-1)
	note "generation 1, job $job1: $t1"
	# Generation 2: one role's env.
	roll_recipe two "" >"$WORK/roll.yaml"
	S apply -f "$WORK/roll.yaml" >/dev/null 2>&1
	rolled_env() { grep -q '"ROLL_VAR": "two"' "$REC/f-roll/engine.jsonl" 2>/dev/null; }
	wait_for 40 run_event f-roll-1-1 RolloutComplete 1 && wait_for 10 rolled_env
	check "5. generation 2 (prefill env) is rolled out: RolloutComplete, and the worker recorded its new env" test $? -eq 0
	sleep 1.5 # one more status heartbeat: start times as the agent reports them
	t2=$(started f-roll-1-1)
	note "generation 2: $t2"
	py "$t1" "$t2" "$REC/f-roll/engine.jsonl" "$job1" <<'PY'
import json, sys
t1 = dict(x.split("=", 1) for x in sys.argv[1].split())
t2 = dict(x.split("=", 1) for x in sys.argv[2].split())
changed = sorted(k for k in t1 if t1[k] != t2.get(k))
print("# restarted by generation 2:", changed)
assert changed == ["prefill_0"], changed
recs = [json.loads(l) for l in open(sys.argv[3])]
assert all(r["env"]["SLURM_JOB_ID"] == sys.argv[4] for r in recs), "one job throughout"
pre = [r for r in recs if r["env"]["ROLL_VAR"] != "decode-fixed"]
dec = [r for r in recs if r["env"]["ROLL_VAR"] == "decode-fixed"]
assert [r["env"]["ROLL_VAR"] for r in pre] == ["one", "two"], [r["env"]["ROLL_VAR"] for r in pre]
assert len(dec) == 1, len(dec)
PY
	check "5. only the prefill worker restarted (start times), in the same job $job1, and it runs with ROLL_VAR=two" test $? -eq 0
	check "5. the run is the same one, now generation 2, still Ready, job $job1" \
		test "$(run_field f-roll-1-1 generation)/$(run_field f-roll-1-1 phase)/$(run_field f-roll-1-1 slurm_job_id)" = "2/Ready/$job1"
	# Generation 3: a master arg.
	roll_recipe two "--eviction_ratio=0.1" >"$WORK/roll.yaml"
	S apply -f "$WORK/roll.yaml" >/dev/null 2>&1
	wait_for 40 run_event f-roll-1-1 RolloutComplete 2
	check "5. generation 3 (a master arg) is rolled out: RolloutComplete" test $? -eq 0
	sleep 1.5
	t3=$(started f-roll-1-1)
	note "generation 3: $t3"
	py "$t2" "$t3" <<'PY'
import sys
t2 = dict(x.split("=", 1) for x in sys.argv[1].split())
t3 = dict(x.split("=", 1) for x in sys.argv[2].split())
changed = sorted(k for k in t2 if t2[k] != t3.get(k))
print("# restarted by generation 3:", changed)
assert changed == ["mooncake-master", "mooncake-store"], changed
PY
	check "5. the master arg restarts the master and the store that follows it, not the workers" test $? -eq 0
	pgrep -u "${SRT_SLURM_USER:-slurmci}" -af "fake_mooncake_master" | grep -q -- "--eviction_ratio=0.1"
	check "5. the master runs with --eviction_ratio=0.1" test $? -eq 0
	# Generation 4: a dedicated master node: another node count, so another job.
	roll_recipe two "--eviction_ratio=0.1" dedicated >"$WORK/roll.yaml"
	S apply -f "$WORK/roll.yaml" >/dev/null 2>&1
	wait_for 90 run_phase_is f-roll-4-1 Ready
	check "5. generation 4 (3 nodes) runs as a new run f-roll-4-1 in a new job" \
		test $? -eq 0 -a "$(run_field f-roll-4-1 slurm_job_id)" != "$job1"
	S events --for run/f-roll-1-1 -o json >"$WORK/ev-roll.json"
	grep -q 'cancelled job [0-9]*: generation 4 needs a new job (job nodes 2 -> 3)' "$WORK/ev-roll.json"
	check "5. an event says why generation 4 needed a new job" test $? -eq 0
	delete_wait f-roll
fi

# ---- 6. kill -9 the controller at random moments ----------------------------------------
loop_recipe() { # loop_recipe NAME ROUND
	cat >"$WORK/$1.yaml" <<YAML
name: $1
slurm: {max_attempts: 3}
environment: {LOOP_ROUND: "$2"}
engine: sglang
model: {path: $MODEL}
roles:
  agg: {}
YAML
}
if want 6; then
	declare -A live=()
	loop_err=0 deletes=0 applies=0
	t0=$SECONDS
	RANDOM=${FAULTS_SEED:-$$}
	for ((i = 1; i <= KILLS; i++)); do
		# a random moment: mutate before, while or not at all during the controller's life
		if [ $i -le 3 ]; then
			r=f-loop-$((i - 1))
			op=apply
		elif [ $i -eq $((KILLS - 2)) ]; then
			r=f-loop-0 op=apply # so that one recipe is live at the end
		elif [ $i -eq $((KILLS - 1)) ]; then
			r=f-loop-2 op=apply # the last two: a change, then a delete, to end with one deleted recipe
		elif [ $i -eq "$KILLS" ]; then
			r=f-loop-2 op=delete
		else
			r=f-loop-$((RANDOM % 3))
			if [ -n "${live[$r]:-}" ] && [ $((RANDOM % 4)) -eq 0 ]; then op=delete; else op=apply; fi
		fi
		[ $((RANDOM % 2)) -eq 0 ] && start_ctl
		sleep "0.$((RANDOM % 10))"
		if [ "$op" = apply ]; then
			loop_recipe "$r" "$i"
			S apply -f "$WORK/$r.yaml" >/dev/null 2>&1 || loop_err=$((loop_err + 1))
			live[$r]=1
			applies=$((applies + 1))
		else
			S delete recipe "$r" >/dev/null 2>&1 || loop_err=$((loop_err + 1))
			unset "live[$r]"
			deletes=$((deletes + 1))
		fi
		[ -n "$CTL_PID" ] || start_ctl
		sleep "$((RANDOM % 2)).$((RANDOM % 10))"
		kill9_ctl
	done
	note "$KILLS controller kills in $((SECONDS - t0))s ($applies applies/changes, $deletes deletes); live at the end: ${!live[*]}"
	check "6. every apply/delete during the kill loop succeeded" test $loop_err -eq 0
	start_ctl
	# desired state: the live recipes' newest generation Ready, every other run final.
	settled() {
		S get runs -o json >"$WORK/runs6.json" 2>/dev/null && S get recipes -o json >"$WORK/rcp6.json" 2>/dev/null &&
			py "$WORK/runs6.json" "$WORK/rcp6.json" "${!live[@]}" <<'PY'
import json, sys
runs = [r for r in json.load(open(sys.argv[1]))["items"] if r["recipe"].startswith("f-loop-")]
gens = {r["name"]: r["generation"] for r in json.load(open(sys.argv[2]))["items"]}
live = set(sys.argv[3:])
final = ("Succeeded", "Failed", "Cancelled")
for r in runs:
    newest = r["recipe"] in live and r["generation"] == gens.get(r["recipe"]) and \
        r["attempt"] == max(x["attempt"] for x in runs if x["recipe"] == r["recipe"] and x["generation"] == r["generation"])
    if newest:
        if r["phase"] != "Ready":
            sys.exit(1)
    elif r["phase"] not in final:
        sys.exit(1)
for name in live:
    if not any(r["recipe"] == name and r["generation"] == gens.get(name) and r["phase"] == "Ready" for r in runs):
        sys.exit(1)
PY
	}
	wait_for 120 settled
	check "6. every recipe reaches its desired state (live ones' newest run Ready, every other run final)" test $? -eq 0
	S get runs -o json >"$WORK/runs6.json"
	py "$WORK/runs6.json" "${!live[@]}" <<'PY'
import json, sys, collections
runs = [r for r in json.load(open(sys.argv[1]))["items"] if r["recipe"].startswith("f-loop-")]
live = set(sys.argv[2:])
c = collections.Counter((r["phase"]) for r in runs)
print(f"# {len(runs)} runs of the loop: {dict(c)}")
bad = [(r["name"], r["phase"]) for r in runs if r["recipe"] not in live and r["phase"] != "Cancelled"]
# a deleted recipe's runs: Cancelled (one that was replaced by a newer generation before may also be Cancelled)
assert not bad, bad
bad = [(r["name"], r["phase"], r["message"]) for r in runs if r["phase"] == "Failed"]
assert not bad, bad
PY
	check "6. the deleted recipes' runs are Cancelled; no run Failed" test $? -eq 0
	# Each loop job has its node to itself (jobs are exclusive): no worker ever
	# found its port taken by another job's worker on a shared node.
	taken=$(grep -l "address already in use" "$WORK"/runs/f-loop-*/*.out 2>/dev/null | wc -l)
	note "worker logs of the loop that met a taken port: $taken"
	check "6. no loop worker met its port taken by another job's worker" test "$taken" -eq 0
	# slurmrestd's own list: no comment srtctl:<uid>:<attempt> on two jobs
	curl -sS -m 10 -H "X-SLURM-USER-NAME: ${SRT_SLURM_USER:-slurmci}" -H "X-SLURM-USER-TOKEN: $(cat "$SRT_SLURM_TOKEN_FILE")" \
		"$SRT_SLURMRESTD_URL/slurm/v0.0.38/jobs" >"$WORK/jobs6.json"
	py "$WORK/jobs6.json" "$WORK/runs6.json" <<'PY'
import json, sys, collections
jobs = json.load(open(sys.argv[1]))["jobs"]
runs = json.load(open(sys.argv[2]))["items"]
c = collections.Counter(j.get("comment") for j in jobs if (j.get("comment") or "").startswith("srtctl:"))
dup = {k: v for k, v in c.items() if v > 1}
print(f"# slurmrestd lists {len(jobs)} jobs, {len(c)} srtctl comments")
assert not dup, dup
ours = {r["job_comment"] for r in runs}  # job names repeat across runs of this script: count ours only
names = collections.Counter(j["name"] for j in jobs if j.get("comment") in ours)
dup = {k: v for k, v in names.items() if v > 1}
assert not dup, dup
# and every submitted loop run's job is the one slurmrestd has for its comment
byc = {j["comment"]: j["job_id"] for j in jobs if j.get("comment")}
for r in runs:
    if r["recipe"].startswith("f-loop-") and r["slurm_job_id"]:
        assert byc.get(r["job_comment"]) == r["slurm_job_id"], (r["name"], r["slurm_job_id"], byc.get(r["job_comment"]))
PY
	check "6. slurmrestd's list: no attempt (comment srtctl:<uid>:<attempt>) has two SLURM jobs" test $? -eq 0
	sleep 2
	py "$DB" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
bad = []
checked = 0
for rid, name, run_dir, cursor in db.execute(
        "SELECT r.id, r.name, r.run_dir, c.last_seq FROM runs r LEFT JOIN ingest_cursors c ON c.run_id = r.id "
        "WHERE r.name LIKE 'f-loop-%'"):
    cursor = cursor or 0
    lines = []
    if run_dir:
        try:
            with open(f"{run_dir}/events.jsonl") as f:
                lines = [json.loads(l) for l in f if l.endswith("\n")]
        except FileNotFoundError:
            pass
    want = len([e for e in lines if e["seq"] <= cursor])
    got = db.execute("SELECT coalesce(sum(count), 0) FROM events WHERE source = 'agent' "
                     "AND (name = ? OR name LIKE ? || '/%')", (name, name)).fetchone()[0]
    checked += 1
    if got != want:
        bad.append((name, f"db {got}", f"file {want} (cursor {cursor}, {len(lines)} lines)"))
print(f"# {checked} runs checked")
assert not bad, bad
PY
	check "6. every agent event ingested exactly once (database count == events.jsonl lines up to the cursor, per run)" test $? -eq 0
	for r in "${!live[@]}"; do S delete recipe "$r" >/dev/null 2>&1; done
	wait_for 60 no_live_jobs
	rc=$?
	check "6. cleanup: every loop job ended" test $rc -eq 0
	if [ $rc -ne 0 ]; then # which job, in srtctl's view and in SLURM's (seen failing once in CI)
		note "still live in srtctl's view: $(live_jobs)"
		S get jobs -o wide 2>&1 | sed 's/^/#   /'
		S get runs -o wide 2>&1 | sed 's/^/#   /'
		squeue -h -o '%i %T %j %k' 2>&1 | sed 's/^/#   squeue: /'
	fi
fi

# ---- 7. slurmrestd down in the middle of a run ------------------------------------------
if want 7; then
	master_recipe f-rest >"$WORK/rest.yaml"
	apply_wait f-rest "$WORK/rest.yaml" 90s
	check "7. the recipe reaches Ready" test $? -eq 0
	job=$(run_field f-rest-1-1 slurm_job_id)
	restpid=$(cat "${SLURM_LOCAL_DIR:-/tmp/srtctl-slurm-local}/run/slurmrestd-tcp.pid" 2>/dev/null)
	mark=$(wc -l <"$WORK/controller.log")
	kill -9 "$restpid"
	check "7. slurmrestd (tcp, pid $restpid) killed" test $? -eq 0
	note "slurmrestd down for ${REST_DOWN}s"
	sleep "$REST_DOWN"
	"$SLURM_LOCAL" restart-rest tcp >"$WORK/restart-rest.out" 2>&1
	check "7. slurmrestd restarted: $(tail -n 1 "$WORK/restart-rest.out")" test $? -eq 0
	answers() { grep -q 'slurmrestd answers again' <(tail -n +"$mark" "$WORK/controller.log"); }
	# A bound, not a speed: after N failed passes the controller waits interval x 2^N,
	# at most 60 s (controller/loop.c, BACKOFF_MAX_MS), before it asks again, and that
	# request may wait on the slurmrestd that just came back.  20 s was less than the
	# 16 s back-off after four failures plus an 8 s first answer (seen once in CI).
	wait_for 90 answers
	check "7. the controller logs that slurmrestd answers again" test $? -eq 0
	sleep 2
	check "7. the run is still Ready ($(run_field f-rest-1-1 phase))" run_phase_is f-rest-1-1 Ready
	check "7. no resubmission: same job id ($(run_field f-rest-1-1 slurm_job_id) == $job)" \
		test "$(run_field f-rest-1-1 slurm_job_id)" = "$job"
	runs=$(S get runs --recipe f-rest -o json | python3 -c 'import json,sys; print(" ".join(r["name"] for r in json.load(sys.stdin)["items"]))')
	check "7. still one attempt (runs: $runs)" test "$runs" = f-rest-1-1
	S events --for run/f-rest-1-1 -o json >"$WORK/ev-rest.json"
	py "$WORK/ev-rest.json" <<'PY'
import json, sys
items = json.load(open(sys.argv[1]))["items"]
w = [i for i in items if i["reason"] == "SlurmUnavailable"]
assert w and all(i["type"] == "Warning" for i in w), [i["reason"] for i in items]
print(f'# SlurmUnavailable: {len(w)} line(s), count {sum(i["count"] for i in w)}: {w[0]["message"][:110]}')
bad = [i["reason"] for i in items if i["reason"] in ("PhaseFailed", "RunFailed", "JobSubmitted") and i is not items[0]]
assert bad.count("JobSubmitted") <= 1 and "PhaseFailed" not in bad and "RunFailed" not in bad, bad
PY
	check "7. Warning events SlurmUnavailable recorded; no failure event" test $? -eq 0
	check "7. the master was not touched (restarts 0, Ready)" svc_is f-rest-1-1 mooncake-master Ready 0
	delete_wait f-rest
fi

check "no job of this test is left running" no_live_jobs
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
