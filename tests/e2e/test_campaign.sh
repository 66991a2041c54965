#!/usr/bin/env bash
# tests/e2e/test_campaign.sh: a benchmark campaign end to end on the real
# local multi-node SLURM (issue 15), with the strict stand-ins: SGLang
# workers with the performance model behind the sglang-router stand-in, and
# the `vllm bench serve` stand-in as the benchmark.
#
#   scripts/slurm-local up --nodes 3 && eval "$(scripts/slurm-local env)"
#   SRTCTL=build/srtctl tests/e2e/test_campaign.sh
#
# A 2x2 deployment grid (TP 1/2 x two perf scales) x 4 concurrencies, with
# policy.maxConcurrentJobs 2, run by a controller in the background:
#  1. the campaign ends Done; every point is done, with the benchmark's
#     results (completed == prompts), its raw file's sha256, its run and job;
#  2. never more than 2 deployments active at once (the campaign's events,
#     replayed in order) and never more than 2 of its jobs in SLURM's
#     listing (sampled throughout);
#  3. one SLURM job per deployment; each deployment's points finished in
#     seq order, inside its job;
#  4. a re-apply with one more concurrency runs exactly the 4 new points (one
#     per deployment, in a new job each); the finished points keep their
#     results untouched;
#  5. deleting the campaign leaves no job of it.
# Order and causality only: no wall-clock assertion.
set -uo pipefail

if [ -z "${SRT_SLURMRESTD_URL:-}" ]; then
	echo "################################################################" >&2
	echo "# test_campaign.sh needs the local SLURM: scripts/slurm-local up --nodes 3" >&2
	echo "# && eval \"\$(scripts/slurm-local env)\"" >&2
	echo "################################################################" >&2
	[ "${SRT_E2E_REQUIRED:-0}" = 1 ] && exit 1
	exit 77
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SRTCTL=$(realpath -m "${SRTCTL:-$root/build/srtctl}")
WORK=$(mktemp -d /tmp/srt-campaign.XXXXXX)
MODEL=$WORK/model
mkdir -p "$MODEL" "$WORK/bin" "$WORK/runs"
chmod 755 "$WORK" "$MODEL"
cp "$SRTCTL" "$WORK/bin/srtctl"
cp -r "$root/tests/fakes" "$WORK/fakes"
chmod -R a+rX "$WORK/bin" "$WORK/fakes"
SRTCTL=$WORK/bin/srtctl
FAKES=$WORK/fakes
DB=$WORK/state.db
CTL_PID=
SAMPLER_PID=

n=0 passed=0 failed=0
ok() { n=$((n + 1)) passed=$((passed + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)) failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { # check DESCRIPTION COMMAND...
	local d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
S() { "$SRTCTL" "$@" --db "$DB"; }
py() { python3 - "$@"; }

# Our jobs in SLURM's own listing that have not ended (job names start with the campaign's).
our_jobs() { squeue -h -o '%i %j %T' 2>/dev/null | awk '$2 ~ /^ct-/ && $3 != "COMPLETED" {print $1}'; }

cleanup() {
	[ -n "$SAMPLER_PID" ] && kill "$SAMPLER_PID" 2>/dev/null
	S delete campaign ct >/dev/null 2>&1 || true
	if [ -n "$CTL_PID" ]; then
		for _ in $(seq 1 60); do [ -z "$(our_jobs)" ] && break; sleep 1; done
		kill "$CTL_PID" 2>/dev/null || true
		wait "$CTL_PID" 2>/dev/null || true
	fi
	if [ "$failed" -ne 0 ]; then
		echo "# controller log (last 80 lines):"
		tail -n 80 "$WORK/controller.log" 2>/dev/null | sed 's/^/#   /'
		S get points -o wide 2>&1 | sed 's/^/#   /'
	fi
	if [ "${CAMPAIGN_KEEP:-0}" = 1 ]; then echo "# kept $WORK"; else rm -rf "$WORK"; fi
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
  sglang: [$FAKES/sglang_launch_server]
  sglang_router: [$FAKES/sglang_router]
  vllm_bench: [$FAKES/vllm, bench, serve]
  srtctl: [$SRTCTL]
YAML
export SRTSLURM_CONFIG=$WORK/srtslurm.yaml
unset SLURM_JWT

cat >"$WORK/template.yaml" <<YAML
name: ct-template
engine: sglang
model: {path: $MODEL}
resources: {gpus_per_node: 4}
roles:
  agg:
    workers: 1
    args: {tensor-parallel-size: 1}
    env: {FAKE_PERF_SCALE: "0.2", FAKE_PERF_JITTER: "0"}
frontend:
  type: sglang-router
YAML
write_campaign() { # CONCURRENCY
	cat >"$WORK/campaign.yaml" <<YAML
kind: Campaign
name: ct
template: template.yaml
deployments:
  grid:
    roles.agg.args.tensor-parallel-size: [1, 2]
    roles.agg.env.FAKE_PERF_SCALE: ["0.2", "0.4"]
load:
  shapes: [{isl: 128, osl: 16}]
  concurrency: "$1"
benchmark: {tool: vllm-bench}
policy: {maxConcurrentJobs: 2}
YAML
}

"$SRTCTL" controller --db "$DB" --interval 1s >"$WORK/controller.log" 2>&1 &
CTL_PID=$!

# The listing, sampled while the campaign runs: the most of our jobs seen at once.
(
	max=0
	while :; do
		c=$(our_jobs | wc -l)
		[ "$c" -gt "$max" ] && max=$c && echo "$max" >"$WORK/max_jobs"
		sleep 0.5
	done
) &
SAMPLER_PID=$!

# wait_state STATE SECONDS: until the campaign's state is STATE (bounded).
wait_state() {
	local deadline=$((SECONDS + $2)) st=
	while [ $SECONDS -lt $deadline ]; do
		st=$(S get campaigns -o json 2>/dev/null | python3 -c '
import json, sys
items = [c for c in json.load(sys.stdin)["items"] if c["name"] == "ct"]
print(items[0]["state"] if items else "")' 2>/dev/null)
		[ "$st" = "$1" ] && return 0
		sleep 1
	done
	echo "# campaign state: '$st' (waited for $1)"
	return 1
}

# ---- 1. the campaign runs to Done -------------------------------------------------
write_campaign 1x2x4x8
S apply -f "$WORK/campaign.yaml" >"$WORK/apply1.out" 2>&1
check "1. the campaign is applied: 4 deployments, 16 points" grep -q '4 deployments, 16 points' "$WORK/apply1.out"
wait_state Done 400
check "1. the campaign ends Done" test $? -eq 0
S get points --campaign ct -o json >"$WORK/points1.json"
py "$WORK/points1.json" <<'PY'
import json, sys
pts = json.load(open(sys.argv[1]))["items"]
assert len(pts) == 16, len(pts)
for p in pts:
    assert p["state"] == "done", (p["seq"], p["deployment"], p["state"], p["message"])
    r = p["results"]
    assert r["completed"] == p["prompts"], (p["point_id"][:12], r["completed"], p["prompts"])
    assert r["total_output_tokens"] == p["prompts"] * p["osl"], r
    assert r["median_tpot_ms"] and r["median_tpot_ms"] > 0, r
    assert p["raw_sha256"] and len(p["raw_sha256"]) == 64, p
    assert p["run"] and p["slurm_job_id"], p
print(f"# 16 points done; output tok/s at concurrency 8: "
      + ", ".join(f'{p["deployment"][-8:]}={p["results"]["output_throughput"]:.0f}'
                  for p in pts if p["concurrency"] == 8))
PY
check "1. every point is done with its results, raw file hash, run and job" test $? -eq 0
# The raw files are what the database holds.
py "$WORK/points1.json" "$DB" <<'PY'
import hashlib, json, sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[2]}?mode=ro", uri=True)
for p in json.load(open(sys.argv[1]))["items"]:
    raw, run_dir = db.execute(
        "SELECT p.raw_json, r.run_dir FROM campaign_points p JOIN runs r ON r.name = p.run_name "
        "WHERE p.point_id = ?", (p["point_id"],)).fetchone()
    assert hashlib.sha256(raw.encode()).hexdigest() == p["raw_sha256"], p["point_id"]
    assert json.loads(raw)["completed"] == p["prompts"]
PY
check "1. the stored raw JSON matches the reported sha256" test $? -eq 0

# ---- 2. the cap -----------------------------------------------------------------
S events --for campaign/ct -o json >"$WORK/events1.json"
py "$WORK/events1.json" <<'PY'
import json, sys
evs = json.load(open(sys.argv[1]))["items"]
active, most, started = 0, 0, 0
for e in evs:
    if e["reason"] == "DeploymentStarted":
        active += 1; started += 1
    elif e["reason"] == "DeploymentEnded":
        active -= 1
    most = max(most, active)
assert started == 4, started
assert most == 2, most  # the cap is reached (4 deployments) and never passed
PY
check "2. at most 2 deployments active at once (events replayed), and 2 were" test $? -eq 0
check "2. never more than 2 of the campaign's jobs in SLURM's listing (sampled: $(cat "$WORK/max_jobs" 2>/dev/null))" \
	test "$(cat "$WORK/max_jobs" 2>/dev/null || echo 0)" -le 2

# ---- 3. one job per deployment, points in order -----------------------------------
py "$WORK/points1.json" <<'PY'
import json, sys, collections
pts = json.load(open(sys.argv[1]))["items"]
jobs = collections.defaultdict(set)
for p in pts:
    jobs[p["deployment"]].add(p["slurm_job_id"])
assert all(len(j) == 1 for j in jobs.values()), dict(jobs)
assert len({next(iter(j)) for j in jobs.values()}) == 4, dict(jobs)
by = collections.defaultdict(list)
for p in pts:
    by[p["deployment"]].append(p)
for d, ps in by.items():
    ps.sort(key=lambda p: p["seq"])
    ends = [p["finished_at"] for p in ps]
    starts = [p["started_at"] for p in ps]
    assert ends == sorted(ends), (d, ends)
    # each point starts after the one before it finished
    assert all(starts[i] >= ends[i - 1] for i in range(1, len(ps))), (d, starts, ends)
PY
check "3. one SLURM job per deployment; its points ran one after another in seq order" test $? -eq 0

# ---- 4. one more concurrency ------------------------------------------------------
write_campaign 1x2x4x8x16
S apply -f "$WORK/campaign.yaml" >"$WORK/apply2.out" 2>&1
check "4. re-apply: 4 new points, 16 kept" grep -q '20 points: 4 new, 16 kept, 0 removed' "$WORK/apply2.out"
wait_state Running 60 || true # it may pass through Running quickly
wait_state Done 400
check "4. the campaign ends Done again" test $? -eq 0
S get points --campaign ct -o json >"$WORK/points2.json"
py "$WORK/points1.json" "$WORK/points2.json" <<'PY'
import json, sys
old = {p["point_id"]: p for p in json.load(open(sys.argv[1]))["items"]}
new = json.load(open(sys.argv[2]))["items"]
assert len(new) == 20, len(new)
fresh = [p for p in new if p["point_id"] not in old]
assert len(fresh) == 4 and all(p["concurrency"] == 16 and p["state"] == "done" for p in fresh), fresh
assert len({p["deployment"] for p in fresh}) == 4
for p in new:
    if p["point_id"] in old:
        o = old[p["point_id"]]
        assert (p["finished_at"], p["raw_sha256"], p["attempts"], p["slurm_job_id"]) == \
               (o["finished_at"], o["raw_sha256"], o["attempts"], o["slurm_job_id"]), p["point_id"]
jobs_new = {p["slurm_job_id"] for p in fresh}
jobs_old = {p["slurm_job_id"] for p in old.values()}
assert len(jobs_new) == 4 and not (jobs_new & jobs_old), (jobs_new, jobs_old)
PY
check "4. exactly the 4 new points ran, in 4 new jobs; the finished ones are untouched" test $? -eq 0

# ---- 5. delete --------------------------------------------------------------------
S delete campaign ct >/dev/null 2>&1
for _ in $(seq 1 60); do [ -z "$(our_jobs)" ] && break; sleep 1; done
check "5. after delete campaign, no job of it is left" test -z "$(our_jobs)"

echo "1..$n"
echo "# $passed passed, $failed failed"
[ "$failed" -eq 0 ]
