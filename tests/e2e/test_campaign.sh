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
#  1. the campaign ends Done (`srtctl wait campaign --for done`); every point
#     is done, with the benchmark's results (completed == prompts), its raw
#     file's sha256, its run and job; its report (srtctl report) is drawn by
#     a real headless Chromium;
#  2. never more than 2 deployments active at once (the campaign's events,
#     replayed in order) and never more than 2 of its jobs in SLURM's
#     listing (sampled throughout);
#  3. one SLURM job per deployment; each deployment's points finished in
#     seq order, inside its job;
#  4. a re-apply with one more concurrency runs exactly the 4 new points (one
#     per deployment, in a new job each); the finished points keep their
#     results untouched;
#  5. deleting the campaign leaves no job of it;
#  6. kill -9 the controller CAMPAIGN_KILLS times (30; 10 when CI=true) at
#     random moments while a campaign runs: it ends Done with one SLURM job
#     per run (slurmrestd's list), each point finished once (one
#     PointFinished event, attempts 1);
#  7. a point whose benchmark reports 0 output tokens is invalid, retried
#     once, then stays invalid (attempts 2); the others are done;
#  8. a job cancelled behind srtctl's back after its first point: a new
#     attempt (a new job) runs the unfinished points only;
#  9. budget.nodeHours spent: no new deployment starts (OutOfBudget), the
#     running one finishes, the others' points stay pending.
# 10. the node under a running deployment fails (scontrol: state=down) after
#     two of its points: SLURM ends the job NODE_FAIL and requeues it (or
#     srtctl starts a new job); the campaign ends Done, the two points are
#     not run again, the rest ran after the failure.
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
our_jobs() { squeue -h -o '%i %j %T' 2>/dev/null | awk '$2 ~ /^ct[0-9]*-/ && $3 != "COMPLETED" {print $1}'; }

DOWNED=
cleanup() {
	[ -n "$SAMPLER_PID" ] && kill "$SAMPLER_PID" 2>/dev/null
	[ -n "$DOWNED" ] && scontrol update nodename="$DOWNED" state=resume >/dev/null 2>&1
	for c in ct ct6 ct7 ct8 ct9 ct10; do S delete campaign "$c" >/dev/null 2>&1 || true; done
	start_ctl
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
write_campaign() { # CONCURRENCY [NAME [TEMPLATE [POLICY]]]
	local name=${2:-ct} tpl=${3:-template.yaml} policy=${4:-}
	[ -n "$policy" ] || policy='{maxConcurrentJobs: 2}'
	cat >"$WORK/$name.yaml" <<YAML
kind: Campaign
name: $name
template: $tpl
deployments:
  grid:
    roles.agg.args.tensor-parallel-size: [1, 2]
    roles.agg.env.FAKE_PERF_SCALE: ["0.2", "0.4"]
load:
  shapes: [{isl: 128, osl: 16}]
  concurrency: "$1"
benchmark: {tool: vllm-bench}
policy: $policy
YAML
}

start_ctl() { # one controller at a time
	if [ -n "$CTL_PID" ] && kill -0 "$CTL_PID" 2>/dev/null; then return 0; fi
	"$SRTCTL" controller --db "$DB" --interval 1s >>"$WORK/controller.log" 2>&1 &
	CTL_PID=$!
}
kill9_ctl() {
	[ -n "$CTL_PID" ] || return 0
	kill -9 "$CTL_PID" 2>/dev/null
	wait "$CTL_PID" 2>/dev/null
	CTL_PID=
}
start_ctl

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

# campaign_state [NAME]: the campaign's state ("" when unknown).
campaign_state() {
	S get campaigns -o json 2>/dev/null | python3 -c '
import json, sys
items = [c for c in json.load(sys.stdin)["items"] if c["name"] == sys.argv[1]]
print(items[0]["state"] if items else "")' "${1:-ct}" 2>/dev/null
}
# wait_state STATE SECONDS [NAME]: until the campaign's state is STATE (bounded).
wait_state() {
	local deadline=$((SECONDS + $2)) st=
	while [ $SECONDS -lt $deadline ]; do
		st=$(campaign_state "${3:-ct}")
		[ "$st" = "$1" ] && return 0
		sleep 1
	done
	echo "# campaign ${3:-ct} state: '$st' (waited for $1)"
	return 1
}

# ---- 1. the campaign runs to Done -------------------------------------------------
write_campaign 1x2x4x8
S apply -f "$WORK/ct.yaml" >"$WORK/apply1.out" 2>&1
check "1. the campaign is applied: 4 deployments, 16 points" grep -q '4 deployments, 16 points' "$WORK/apply1.out"
S wait campaign ct --for done --timeout 400s >>"$WORK/wait.out" 2>&1
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

# Its report, opened in a real headless Chromium: one shape, 4 charts, all drawn.
S report ct -o "$WORK/ct.html" >"$WORK/report.out" 2>&1
check "1. srtctl report writes the campaign's report ($(cat "$WORK/report.out"))" test $? -eq 0
if command -v chromium >/dev/null; then
	timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$WORK/chromium" --dump-dom "file://$WORK/ct.html" >"$WORK/ct.dom" 2>/dev/null
	check "1. Chromium draws its 4 charts" grep -q '<body data-charts="4" data-painted="4">' "$WORK/ct.dom"
	if [ -n "${SRT_TEST_ARTIFACTS:-}" ]; then mkdir -p "$SRT_TEST_ARTIFACTS" && cp "$WORK/ct.html" "$SRT_TEST_ARTIFACTS/campaign-report.html"; fi
else
	not_ok "1. chromium is not installed: run scripts/install-deps (as root)"
fi

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
S apply -f "$WORK/ct.yaml" >"$WORK/apply2.out" 2>&1
check "4. re-apply: 4 new points, 16 kept" grep -q '20 points: 4 new, 16 kept, 0 removed' "$WORK/apply2.out"
S wait campaign ct --for done --timeout 400s >>"$WORK/wait.out" 2>&1
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

# points_of NAME FILE: the campaign's points as JSON.
points_of() { S get points --campaign "$1" -o json >"$2"; }
# ONCE: Python that reads a campaign's points (argv 1, in seq order) and events (argv 3) and
# checks that each of its 4 points is done, ran once (attempts 1) and was reported once.
ONCE='import json, sys, collections
pts = sorted(json.load(open(sys.argv[1]))["items"], key=lambda p: p["seq"])
events = json.load(open(sys.argv[3]))["items"]
assert all(p["state"] == "done" and p["attempts"] == 1 for p in pts), \
    [(p["seq"], p["state"], p["attempts"]) for p in pts]
fin = collections.Counter(e["message"].split()[1] for e in events if e["reason"] == "PointFinished")
assert len(fin) == 4 and set(fin.values()) == {1}, fin'
# held_template N CONCURRENCY: templateN.yaml, whose benchmark holds at CONCURRENCY while
# $WORK/holdN exists (FAKE_BENCH_HOLD_FILE), so a fault lands mid-ladder at any speed.
held_template() {
	sed -e "s/^name: ct-template/name: ct$1-template/" "$WORK/template.yaml" >"$WORK/template$1.yaml"
	cat >>"$WORK/template$1.yaml" <<YAML
environment: {FAKE_BENCH_HOLD_AT_CONCURRENCY: "$2", FAKE_BENCH_HOLD_FILE: "$WORK/hold$1"}
YAML
	touch "$WORK/hold$1"
}
# until_done CAMPAIGN COUNT FILE: until COUNT of its points are done (at most 300 s); the
# points' JSON is left in FILE.
until_done() {
	local deadline=$((SECONDS + 300))
	while [ $SECONDS -lt $deadline ]; do
		points_of "$1" "$3" && python3 -c '
import json, sys
sys.exit(0 if sum(p["state"] == "done" for p in json.load(open(sys.argv[1]))["items"]) >= int(sys.argv[2]) else 1)' "$3" "$2" && return 0
		sleep 0.5
	done
	return 1
}

# ---- 6. kill -9 the controller while a campaign runs ------------------------------
if [ "${CI:-}" = true ]; then KILLS=${CAMPAIGN_KILLS:-10}; else KILLS=${CAMPAIGN_KILLS:-30}; fi
# The last point of each deployment is held (FAKE_BENCH_HOLD_FILE) for the first half of
# the kills, so they land while jobs run whatever the machine's speed; the second half
# comes while the held points finish and the other deployments start.
held_template 6 4
write_campaign 1x2x4 ct6 template6.yaml
S apply -f "$WORK/ct6.yaml" >/dev/null 2>&1
kills=0
for i in $(seq 1 "$KILLS"); do
	[ "$i" -gt $((KILLS / 2)) ] && rm -f "$WORK/hold6"
	sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
	kill9_ctl
	kills=$((kills + 1))
	start_ctl
	sleep 0.5
done
rm -f "$WORK/hold6"
echo "# controller killed $kills times during campaign ct6"
S wait campaign ct6 --for done --timeout 400s >>"$WORK/wait.out" 2>&1
check "6. after $kills kill -9 of the controller the campaign ends Done" test $? -eq 0
points_of ct6 "$WORK/points6.json"
S events --for campaign/ct6 -o json >"$WORK/events6.json"
S get runs -o json >"$WORK/runs6.json"
curl -sS -m 10 -H "X-SLURM-USER-NAME: ${SRT_SLURM_USER:-slurmci}" -H "X-SLURM-USER-TOKEN: $(cat "$SRT_SLURM_TOKEN_FILE")" \
	"$SRT_SLURMRESTD_URL/slurm/v0.0.38/jobs" >"$WORK/jobs6.json"
py "$WORK/points6.json" "$WORK/events6.json" "$WORK/runs6.json" "$WORK/jobs6.json" <<'PY'
import json, sys, collections
pts = json.load(open(sys.argv[1]))["items"]
evs = json.load(open(sys.argv[2]))["items"]
runs = [r for r in json.load(open(sys.argv[3]))["items"] if r["recipe"].startswith("ct6-")]
jobs = json.load(open(sys.argv[4]))["jobs"]
assert len(pts) == 12 and all(p["state"] == "done" and p["attempts"] == 1 for p in pts), \
    [(p["seq"], p["state"], p["attempts"]) for p in pts]
fin = collections.Counter(e["message"].split()[2] for e in evs if e["reason"] == "PointFinished")
assert len(fin) == 12 and all(v == 1 for v in fin.values()), fin
comments = collections.Counter(j.get("comment") for j in jobs)
ours = [r["job_comment"] for r in runs]
assert all(comments[c] <= 1 for c in ours), {c: comments[c] for c in ours}
assert len({r["slurm_job_id"] for r in runs if r["slurm_job_id"]}) == len([r for r in runs if r["slurm_job_id"]])
print(f"# {len(runs)} runs, {len(pts)} points, each finished once")
PY
check "6. one SLURM job per run, every point finished exactly once (attempts 1)" test $? -eq 0

# ---- 7. an invalid point is retried once, then stays invalid ---------------------------
sed -e 's/^name: ct-template/name: ct7-template/' "$WORK/template.yaml" >"$WORK/template7.yaml"
cat >>"$WORK/template7.yaml" <<'YAML'
environment: {FAKE_BENCH_ZERO_OUTPUT_AT_CONCURRENCY: "2"}
YAML
cat >"$WORK/ct7.yaml" <<YAML
kind: Campaign
name: ct7
template: template7.yaml
load:
  shapes: [{isl: 128, osl: 16}]
  concurrency: "1x2x4"
benchmark: {tool: vllm-bench}
YAML
S apply -f "$WORK/ct7.yaml" >"$WORK/apply7.out" 2>&1
check "7. a one-deployment campaign is applied" test $? -eq 0
S wait campaign ct7 --for done --timeout 300s >>"$WORK/wait.out" 2>&1
check "7. it ends Done" test $? -eq 0
points_of ct7 "$WORK/points7.json"
py "$WORK/points7.json" <<'PY'
import json, sys
pts = {p["concurrency"]: p for p in json.load(open(sys.argv[1]))["items"]}
assert pts[2]["state"] == "invalid" and pts[2]["attempts"] == 2, pts[2]
assert "output" in (pts[2]["message"] or ""), pts[2]["message"]
for c in (1, 4):
    assert pts[c]["state"] == "done" and pts[c]["attempts"] == 1, pts[c]
PY
check "7. the 0-output-token point is invalid after 2 attempts; the others are done" test $? -eq 0

# ---- 8. a job cancelled behind srtctl's back after its first point ------------------------
# Its concurrency-8 point is held (FAKE_BENCH_HOLD_FILE) until the job is cancelled, so the
# cancel lands during the ladder whatever the machine's speed.
held_template 8 8
write_campaign 1x2x4x8 ct8 template8.yaml "{maxConcurrentJobs: 1}"
sed -i '/^deployments:/,/^load:/{/^load:/!d}' "$WORK/ct8.yaml" # one deployment
S apply -f "$WORK/ct8.yaml" >/dev/null 2>&1
until_done ct8 1 "$WORK/p8.json"
job8=$(python3 -c 'import json,sys; print([p["slurm_job_id"] for p in json.load(open(sys.argv[1]))["items"] if p["state"] == "done"][0])' "$WORK/p8.json")
scancel "$job8"
echo "# cancelled job $job8 after its first point"
for _ in $(seq 1 60); do squeue -h -j "$job8" 2>/dev/null | grep -q . || break; sleep 0.5; done
rm -f "$WORK/hold8" # the next job's concurrency-8 point may run
S wait campaign ct8 --for done --timeout 300s >>"$WORK/wait.out" 2>&1
check "8. the campaign ends Done after its job was cancelled" test $? -eq 0
points_of ct8 "$WORK/points8.json"
S events --for campaign/ct8 -o json >"$WORK/events8.json"
py "$WORK/points8.json" "$job8" "$WORK/events8.json" <<PY
$ONCE
after, job, evs = pts, int(sys.argv[2]), events
old = [p for p in after if p["slurm_job_id"] == job]
new = [p for p in after if p["slurm_job_id"] != job]
assert old and old[0]["seq"] == 1, [(p["seq"], p["slurm_job_id"]) for p in after]
# the held point (concurrency 8) ran in the new job, and the new job ran only what was left
assert [p["concurrency"] for p in new][-1:] == [8], [(p["seq"], p["slurm_job_id"]) for p in after]
assert max(p["seq"] for p in old) < min(p["seq"] for p in new)
assert len({p["slurm_job_id"] for p in new}) == 1
PY
check "8. the finished points were not rerun; the rest ran in a new job" test $? -eq 0

# ---- 9. budget.nodeHours spent -------------------------------------------------------
# Its last point is held until the campaign is OutOfBudget, so the budget is spent while the
# deployment runs whatever the machine's speed (node-hours count from SLURM's start of the job).
held_template 9 2
write_campaign 1x2 ct9 template9.yaml "{maxConcurrentJobs: 1, budget: {nodeHours: 0.0001}}"
S apply -f "$WORK/ct9.yaml" >"$WORK/apply9.out" 2>&1
check "9. a campaign with a tiny node-hour budget is applied" test $? -eq 0
wait_state OutOfBudget 300 ct9
check "9. it stops submitting: OutOfBudget" test $? -eq 0
rm -f "$WORK/hold9"
# the deployment that was running finishes; nothing else starts.  Its job leaves the listing
# before the controller's next pass ingests its last report: wait for that, not the job.
for _ in $(seq 1 120); do [ -z "$(our_jobs)" ] && break; sleep 1; done
for _ in $(seq 1 120); do
	points_of ct9 "$WORK/points9.json"
	python3 -c 'import json, sys; sys.exit(any(p["state"] == "running" for p in json.load(open(sys.argv[1]))["items"]))' "$WORK/points9.json" && break
	sleep 1
done
S events --for campaign/ct9 -o json >"$WORK/events9.json"
py "$WORK/points9.json" "$WORK/events9.json" <<'PY'
import json, sys, collections
pts = json.load(open(sys.argv[1]))["items"]
evs = json.load(open(sys.argv[2]))["items"]
started = [e for e in evs if e["reason"] == "DeploymentStarted"]
assert len(started) == 1, [e["message"] for e in started]
by = collections.defaultdict(set)
for p in pts:
    by[p["deployment"]].add(p["state"])
ran = [d for d, s in by.items() if s == {"done"}]
idle = [d for d, s in by.items() if s == {"pending"}]
assert len(ran) == 1 and len(idle) == 3, dict(by)
assert any("budget.nodeHours spent" in e["message"] for e in evs if e["reason"] == "OutOfBudget"), \
    [e["message"] for e in evs]
PY
check "9. one deployment ran to the end; the other 3 never started" test $? -eq 0

# ---- 10. the node under a running deployment fails ---------------------------------------
# Its concurrency-4 point is held until the node is down, so the failure lands during the
# ladder, after points 1 and 2, whatever the machine's speed.
held_template 10 4
write_campaign 1x2x4x8 ct10 template10.yaml "{maxConcurrentJobs: 1}"
sed -i '/^deployments:/,/^load:/{/^load:/!d}' "$WORK/ct10.yaml" # one deployment
S apply -f "$WORK/ct10.yaml" >/dev/null 2>&1
until_done ct10 2 "$WORK/p10.json"
job10=$(python3 -c 'import json,sys; print([p["slurm_job_id"] for p in json.load(open(sys.argv[1]))["items"] if p["state"] == "done"][0])' "$WORK/p10.json")
node10=$(squeue -h -j "$job10" -o %N 2>/dev/null)
DOWNED=$node10
scontrol update nodename="$node10" state=down reason=srtctl-campaign-test
check "10. node $node10 of job $job10 set down after two points" test $? -eq 0
for _ in $(seq 1 60); do
	st=$(squeue -h -j "$job10" -o %T 2>/dev/null)
	[ "$st" != RUNNING ] && break
	sleep 0.5
done
echo "# job $job10 after the node failure: $(scontrol show job "$job10" 2>/dev/null | grep -oE 'JobState=[A-Z_]+|Restarts=[0-9]+' | tr '\n' ' ')"
scontrol update nodename="$node10" state=resume >/dev/null 2>&1 # ReturnToService may have done it
DOWNED=
rm -f "$WORK/hold10"
S wait campaign ct10 --for done --timeout 300s >>"$WORK/wait.out" 2>&1
check "10. the campaign ends Done after the node failure" test $? -eq 0
points_of ct10 "$WORK/points10.json"
S events --for campaign/ct10 -o json >"$WORK/events10.json"
S get runs -o json >"$WORK/runs10.json"
py "$WORK/points10.json" "$job10" "$WORK/events10.json" <<PY
$ONCE
job = int(sys.argv[2])
before = [p for p in pts if p["finished_at"] and p["concurrency"] in (1, 2)]
after = [p for p in pts if p["concurrency"] in (4, 8)]
assert len(before) == 2 and all(p["slurm_job_id"] == job for p in before), before
# the held point and the next ran after the failure: later than the first two
assert min(p["started_at"] for p in after) >= max(p["finished_at"] for p in before), \
    [(p["seq"], p["started_at"], p["finished_at"]) for p in pts]
PY
check "10. the two points finished before the failure were not run again; the rest ran after it" test $? -eq 0

echo "1..$n"
echo "# $passed passed, $failed failed"
[ "$failed" -eq 0 ]
