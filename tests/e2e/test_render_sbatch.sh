#!/usr/bin/env bash
# tests/e2e/test_render_sbatch.sh: a recipe run without the controller.
#
#   scripts/slurm-local up --nodes 3 && eval "$(scripts/slurm-local env)"
#   SRTCTL=build/srtctl tests/e2e/test_render_sbatch.sh
#
# As a user without a controller would: `srtctl render -f R --out DIR`, then
# `sbatch DIR/job.sh`, both as the SLURM job user.  The agent the job starts
# carries out DIR/plan.json on the real multi-node allocation (stand-ins for
# the master and the engines): the master is ready before any worker starts,
# the benchmark runs, and the run ends Succeeded in DIR/status.json, with the
# story in DIR/events.jsonl and the agent's output in DIR/agent-<job>.out.
#
# Then the same with frontend.enable_multiple_frontends: nginx (the real one)
# on the head node in front of a router on each other node; completions of
# 40 kB prompts go through it.
#
# Native flavour only (sbatch runs on this host).  Exits 77 (skipped) when
# SRT_SLURMRESTD_URL is unset, unless SRT_E2E_REQUIRED=1.  Every wait is
# bounded; the job is cancelled by id if the test ends before it does.
set -uo pipefail

if [ -z "${SRT_SLURMRESTD_URL:-}" ] || [ -z "${SLURM_CONF:-}" ]; then
	echo "test_render_sbatch.sh needs the local SLURM: scripts/slurm-local up --nodes 3" \
		"&& eval \"\$(scripts/slurm-local env)\"" >&2
	[ "${SRT_E2E_REQUIRED:-0}" = 1 ] && exit 1
	exit 77
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SRTCTL=$(realpath -m "${SRTCTL:-$root/build/srtctl}")
USER_=${SRT_SLURM_USER:-slurmci}
WORK=$(mktemp -d /tmp/srt-render.XXXXXX)
# The model directory the workers are given (the strict engine stand-ins check that it exists).
MODEL=$WORK/model
mkdir -p "$MODEL"
chmod 755 "$WORK" "$MODEL"
chmod 755 "$WORK"
# The job user may not be able to enter this checkout: give them copies.
mkdir -p "$WORK/bin"
cp "$SRTCTL" "$WORK/bin/srtctl"
cp -r "$root/tests/fakes" "$WORK/fakes"
chmod -R a+rX "$WORK/bin" "$WORK/fakes"
chown "$USER_" "$WORK"
JOB=

n=0 passed=0 failed=0
check() { # check DESCRIPTION COMMAND...
	local d=$1
	shift
	n=$((n + 1))
	if "$@"; then
		passed=$((passed + 1))
		echo "ok $n - $d"
	else
		failed=$((failed + 1))
		echo "not ok $n - $d"
	fi
}

# as_user CMD...: run as the job user, with only the SLURM client's config.
as_user() {
	runuser -u "$USER_" -- env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$WORK" \
		SLURM_CONF="$SLURM_CONF" SRTSLURM_CONFIG="$WORK/srtslurm.yaml" "$@"
}

# wait_phase RUN_DIR: wait (bounded) for the agent to end the run; sets phase.
wait_phase() {
	phase=
	for _ in $(seq 1 180); do
		phase=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["phase"])' \
			"$1/status.json" 2>/dev/null)
		case $phase in Succeeded | Failed | Stopped) return ;; esac
		sleep 1
	done
}

# wait_gone: wait (bounded) for $JOB to leave the queue; sets state (empty: gone).
wait_gone() {
	state=
	for _ in $(seq 1 60); do
		state=$(as_user squeue -h -j "$JOB" -o %T 2>/dev/null)
		[ -z "$state" ] && return
		sleep 1
	done
}

cleanup() {
	if [ -n "$JOB" ]; then
		as_user scancel "$JOB" 2>/dev/null || true
	fi
	if [ "$failed" -ne 0 ]; then
		echo "# agent output and events:"
		cat "$WORK"/run/agent-*.out 2>/dev/null | tail -n 30 | sed 's/^/#   /'
		tail -n 30 "$WORK/run/events.jsonl" 2>/dev/null | sed 's/^/#   /'
		cat "$WORK"/nx/agent-*.out 2>/dev/null | tail -n 40 | sed 's/^/#   /'
		tail -n 5 "$WORK"/nx/logs/*.out 2>/dev/null | sed 's/^/#   /'
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

F=$WORK/fakes
cat >"$WORK/srtslurm.yaml" <<YAML
default_partition: ${SRT_SLURM_PARTITION:-debug}
commands:
  mooncake_master: [$F/fake_mooncake_master]
  sglang: [$F/sglang_launch_server]
  srtctl: [$WORK/bin/srtctl]
YAML
cat >"$WORK/r.yaml" <<YAML
name: render-run
engine: sglang
model: {path: $MODEL}
roles:
  prefill: {args: {disaggregation-transfer-backend: mooncake}}
  decode: {args: {disaggregation-transfer-backend: mooncake}}
services:
  - name: mooncake-master
    type: mooncake-master
    readiness: {timeout_seconds: 60, interval_seconds: 1}
benchmark:
  type: custom
  command: python3 $F/fake_benchmark
  env: {FAKE_BENCH_SECONDS: "1"}
YAML
chmod a+r "$WORK/srtslurm.yaml" "$WORK/r.yaml"

as_user "$WORK/bin/srtctl" render -f "$WORK/r.yaml" --out "$WORK/run" >"$WORK/render.out" 2>&1
rc=$?
check "render exits 0 and prints the job script's path" \
	test $rc -eq 0 -a "$(tail -n 1 "$WORK/render.out")" = "$WORK/run/job.sh"
check "render wrote plan.json (0600) and job.sh (0700)" \
	test "$(stat -c %a "$WORK/run/plan.json" 2>/dev/null)/$(stat -c %a "$WORK/run/job.sh" 2>/dev/null)" = 600/700

JOB=$(as_user sbatch --parsable "$WORK/run/job.sh" 2>"$WORK/sbatch.err")
check "sbatch accepts job.sh ($JOB)" test -n "$JOB"
[ -n "$JOB" ] || cat "$WORK/sbatch.err"

wait_phase "$WORK/run"
check "the run ended Succeeded (phase: ${phase:-none})" test "$phase" = Succeeded
python3 - "$WORK/run" "$JOB" <<'PY'
import json, os, sys
run, job = sys.argv[1], sys.argv[2]
ev = [json.loads(l) for l in open(f"{run}/events.jsonl")]
def first(reason, name):
    return [e["seq"] for e in ev if e["reason"] == reason and e["object"]["name"] == name][0]
master_ready = first("Ready", "mooncake-master")
for w in ("prefill_0", "decode_0"):
    assert master_ready < first("Started", w), (w, "started before the master was ready")
assert first("Started", "prefill_0") < first("Started", "benchmark")
done = [e for e in ev if e["reason"] == "RunSucceeded"]
assert done and done[0]["job_id"] == job, done
assert os.path.exists(f"{run}/agent-{job}.out"), os.listdir(run)
assert os.path.exists(f"{run}/logs/service_mooncake-master.out")
PY
check "master ready before the workers, benchmark after them, RunSucceeded for job $JOB" test $? -eq 0
# The job ends with the agent.
wait_gone
check "the job is gone from the queue (${state:-ended})" test -z "$state"
[ -z "$state" ] && JOB=

# ---- frontend.enable_multiple_frontends: nginx on the head in front of a
# router on each other node, on the real allocation (each node its own
# network namespace, as its own host) ----
cat >>"$WORK/srtslurm.yaml" <<YAML
  sglang_router: [$F/sglang_router]
YAML
cat >"$WORK/bench.py" <<'PY'
# Completions through SRT_FRONTEND_URL (nginx); each answer names no router,
# so the routers' logs say who served: every request must succeed.
import json, os, sys, urllib.request
url = os.environ["SRT_FRONTEND_URL"]
for i in range(8):
    req = urllib.request.Request(url + "/v1/completions", headers={"Content-Type": "application/json"},
                                 data=json.dumps({"model": "m", "prompt": "x" * 40000, "max_tokens": 2}).encode())
    with urllib.request.urlopen(req, timeout=30) as r:
        assert r.status == 200 and json.loads(r.read()).get("choices"), r.status
print("bench: 8 completions through", url)
PY
cat >"$WORK/nx.yaml" <<YAML
name: render-nginx
engine: sglang
model: {path: $MODEL}
roles:
  prefill: {}
  decode: {workers: 2, nodes: 2}
frontend:
  type: sglang-router
  enable_multiple_frontends: true
benchmark:
  type: custom
  command: python3 $WORK/bench.py
YAML
chmod a+r "$WORK/srtslurm.yaml" "$WORK/nx.yaml" "$WORK/bench.py"
as_user "$WORK/bin/srtctl" render -f "$WORK/nx.yaml" --out "$WORK/nx" >"$WORK/render.out" 2>&1
check "render of the nginx recipe exits 0" test $? -eq 0
JOB=$(as_user sbatch --parsable "$WORK/nx/job.sh" 2>"$WORK/sbatch.err")
check "sbatch accepts the nginx job ($JOB)" test -n "$JOB"
wait_phase "$WORK/nx"
check "the nginx run ended Succeeded (phase: ${phase:-none})" test "$phase" = Succeeded
python3 - "$WORK/nx" <<'PY'
import json, sys
run = sys.argv[1]
plan = json.load(open(f"{run}/plan.json"))
hosts = {p["name"]: p["node"] for p in plan["processes"]}
assert (hosts["nginx"], hosts["frontend_0"], hosts["frontend_1"]) == (0, 1, 2), hosts
ev = [json.loads(l) for l in open(f"{run}/events.jsonl")]
def first(reason, name):
    return [e["seq"] for e in ev if e["reason"] == reason and e["object"]["name"] == name][0]
for fe in ("frontend_0", "frontend_1", "nginx"):
    assert first("Ready", "decode_1") < first("Started", fe) < first("Started", "benchmark"), fe
conf = open(f"{run}/logs/nginx.conf").read()
assert "server <" not in conf and conf.count(":8180;") == 2, conf
assert "bench: 8 completions through http://" in open(f"{run}/logs/benchmark.out").read()
PY
check "routers on the two other nodes, nginx on the head, 8 completions through it" test $? -eq 0
wait_gone
check "the nginx job is gone from the queue (${state:-ended})" test -z "$state"
[ -z "$state" ] && JOB=

echo "# render + sbatch: $passed of $n passed"
[ "$failed" -eq 0 ]
