#!/usr/bin/env bash
# tests/cli/test_campaign.sh: campaigns (kind: Campaign) through the CLI on a
# temporary SQLite database: apply (all or nothing, generations, --dry-run
# with the point table and the node-hours estimate), point identity across
# re-applies, diff, get campaigns / get points (-o json, csv), describe, delete,
# strict errors with file:line:col, the sweep refusal naming migrate, and
# steering (suspend, resume, retry, wait campaign) with sqlite3 playing the
# controller.
set -euo pipefail
: "${SRTCTL:?set SRTCTL to the srtctl binary}"

# fail, run, isolated_workdir
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
isolated_workdir
DB="$work/state/srtctl.db"

cat >r.yaml <<'YAML'
name: base
engine: sglang
model: {path: /models/m, container: img}
roles:
  prefill: {nodes: 1, args: {tensor-parallel-size: 4}}
  decode: {nodes: 1, workers: 1}
YAML
write_campaign() { # CONCURRENCY [FILE NAME POLICY]
	local file=${2:-c.yaml} name=${3:-sweep1} policy=${4:-'{maxConcurrentJobs: 2}'}
	cat >"$file" <<YAML
kind: Campaign
name: $name
template: r.yaml
deployments:
  grid:
    roles.decode.workers: [1, 2]
load:
  shapes: [{isl: 1024, osl: 1024}]
  concurrency: "$1"
benchmark: {tool: vllm-bench}
policy: $policy
YAML
}

# --dry-run: the point table and the estimate; nothing is written.
write_campaign 4x8
run 0 "$SRTCTL" apply -f c.yaml --dry-run --db "$DB"
grep -qx 'campaign/sweep1 created (dry run)' out || fail "dry run: $(cat out)"
[[ $(grep -c ' new ' out) == 4 ]] || fail "dry run: expected 4 new points: $(cat out)"
grep -q '2 deployments, 4 points (4 new); estimated 1.2 node-hours' out ||
	fail "dry run estimate: $(cat out)"
[[ ! -e $DB ]] || fail "dry run wrote the database"

# validate: a campaign is expanded and checked as apply checks it.
run 0 "$SRTCTL" validate -f c.yaml
grep -qx 'c.yaml: campaign .sweep1. is valid (2 deployments, 4 points)' out ||
	fail "validate campaign: $(cat out)"
run 0 "$SRTCTL" validate -f c.yaml -o json
jq -e '.valid and .files[0].campaign == "sweep1" and .files[0].points == 4' out >/dev/null ||
	fail "validate -o json campaign: $(cat out)"
# dry-run: each deployment as its job would run.
run 0 "$SRTCTL" dry-run -f c.yaml
grep -q '^# campaign sweep1: 2 deployment(s), 4 point(s)' out || fail "dry-run campaign: $(head -3 out)"
[[ $(grep -c "^# Recipe 'sweep1-" out) == 2 ]] || fail "dry-run campaign: want 2 deployments: $(grep '^# Recipe' out)"
run 0 "$SRTCTL" dry-run -f c.yaml -o json
jq -e '.kind == "List" and (.items | length) == 2' out >/dev/null || fail "dry-run -o json campaign: $(head -c 300 out)"
write_campaign 4x8 bad.yaml sweep1 '{maxConcurrentJobs: 0}'
run 1 "$SRTCTL" validate -f bad.yaml
grep -q 'bad.yaml:.*policy.*between 1 and' err || fail "validate bad campaign: $(cat err)"
run 1 "$SRTCTL" dry-run -f bad.yaml
grep -q 'campaign bad.yaml is not valid' err || fail "dry-run bad campaign: $(cat err)"
rm bad.yaml

run 0 "$SRTCTL" apply -f c.yaml --db "$DB"
grep -qx 'campaign/sweep1 created (2 deployments, 4 points: 4 new, 0 kept, 0 removed)' out ||
	fail "apply: $(cat out)"
run 0 "$SRTCTL" get points --campaign sweep1 -o json --db "$DB"
jq -r '.items[].point_id' out | sort >ids1
[[ $(wc -l <ids1) == 4 ]] || fail "4 points expected"

# One more concurrency: exactly the two new points (one per deployment), old ids kept.
write_campaign 4x8x16
run 0 "$SRTCTL" apply -f c.yaml --db "$DB"
grep -qx 'campaign/sweep1 configured (2 deployments, 6 points: 2 new, 4 kept, 0 removed)' out ||
	fail "re-apply: $(cat out)"
run 0 "$SRTCTL" get points --campaign sweep1 -o json --db "$DB"
jq -r '.items[].point_id' out | sort >ids2
[[ $(comm -23 ids1 ids2 | wc -l) == 0 ]] || fail "an old point id changed"
[[ $(comm -13 ids1 ids2 | wc -l) == 2 ]] || fail "expected 2 new ids"
[[ $(jq '[.items[] | select(.concurrency == 16)] | length' out) == 2 ]] || fail "conc 16"
run 0 "$SRTCTL" apply -f c.yaml --db "$DB"
grep -q 'campaign/sweep1 unchanged' out || fail "unchanged: $(cat out)"

# diff: a campaign against what was applied (its template file inlined).
run 0 "$SRTCTL" diff -f c.yaml --db "$DB"
write_campaign 4x8x32
run 1 "$SRTCTL" diff -f c.yaml --db "$DB"
grep -qx -- '-    "concurrency": "4x8x16",' out || fail "diff: $(cat out)"
grep -qx -- '+    "concurrency": "4x8x32",' out || fail "diff: $(cat out)"

# Back to two concurrencies: the 16s are removed (kept in the database, not listed).
write_campaign 4x8
run 0 "$SRTCTL" apply -f c.yaml --db "$DB"
grep -q '0 new, 4 kept, 2 removed' out || fail "removed: $(cat out)"

run 0 "$SRTCTL" get campaigns --db "$DB"
grep -Eq '^sweep1 +3 +2 +4 +0 +0 +4 +0 +0 ' out || fail "get campaigns: $(cat out)"
run 0 "$SRTCTL" get campaigns -o json --db "$DB"
[[ $(jq '.items[0].points.pending' out) == 4 ]] || fail "points.pending"
[[ $(jq '.items[0].generation' out) == 3 ]] || fail "generation"
run 0 "$SRTCTL" get points --campaign sweep1 -o csv --db "$DB"
head -1 out | grep -q '^point_id,campaign,deployment,axes,' || fail "csv header: $(head -1 out)"
[[ $(wc -l <out) == 5 ]] || fail "csv rows: $(cat out)"
grep -q '"{""roles.decode.workers"":1}"' out || fail "csv quoting: $(cat out)"
run 0 "$SRTCTL" get points -o wide --db "$DB"
grep -q 'vllm-bench' out || fail "get points -o wide"
# -o json and csv are printed as the rows are read (no list kept): JSON byte for byte what
# --watch, which renders the whole list, prints first; CSV is checked above.
run 0 "$SRTCTL" get points -o json --db "$DB"
mv out streamed.json
run 0 "$SRTCTL" get points -o json --watch --watch-timeout 100ms --db "$DB"
cmp -s out streamed.json || fail "get points -o json: streamed differs from rendered: $(diff out streamed.json | head)"
jq -e '.items | length == 4' streamed.json >/dev/null || fail "streamed json: $(head -c 300 streamed.json)"
run 0 "$SRTCTL" get points --campaign nosuch -o json --db "$DB"
[[ $(jq -c . out) == '{"kind":"List","items":[]}' ]] || fail "no points, json: $(cat out)"
run 0 "$SRTCTL" get points --campaign nosuch -o csv --db "$DB"
[[ ! -s out ]] || fail "no points, csv: $(cat out)"
run 1 "$SRTCTL" get point ffffffff -o json --db "$DB"
grep -q "point 'ffffffff' not found" err || fail "not found: $(cat err)"
run 2 "$SRTCTL" get runs -o csv --db "$DB"
run 2 "$SRTCTL" get runs --campaign sweep1 --db "$DB"
run 1 "$SRTCTL" get campaign nosuch --db "$DB"

run 0 "$SRTCTL" describe campaign sweep1 --db "$DB"
grep -q '^Generation: *3' out || fail "describe: $(cat out)"
grep -q 'Points: *4 total: 0 done, 0 running, 4 pending' out || fail "describe points"
[[ $(grep -c 'sweep1-[0-9a-f]\{8\} ' out) == 2 ]] || fail "describe deployments: $(cat out)"
grep -q 'CampaignConfigured' out || fail "describe events"

# All or nothing: a campaign with an error and a valid recipe write nothing.
cat >bad.yaml <<'YAML'
kind: Campaign
name: bad
template: r.yaml
deployments:
  grid:
    roles.decode.wokers: [1, 2]
load: {shapes: [{isl: 1, osl: 1}], concurrency: [1], repeat: 2}
benchmark: {tool: sa-bench}
YAML
mkdir -p mix
cp bad.yaml mix/a.yaml
sed 's/^name: base/name: other/' r.yaml >mix/b.yaml
run 1 "$SRTCTL" apply -f mix --db "$DB"
grep -q "mix/a.yaml:7:54: load.repeat: unknown key 'repeat'; did you mean 'repeats'?" err ||
	fail "strict key: $(cat err)"
grep -q 'nothing was applied' err || fail "all or nothing: $(cat err)"
sed -i -e 's/repeat: 2/repeats: 2/' -e 's,template: r.yaml,template: ../r.yaml,' mix/a.yaml
run 1 "$SRTCTL" apply -f mix --db "$DB"
grep -q "mix/a.yaml:6:27: roles.decode.wokers: \[deployment bad-[0-9a-f]* {\"roles.decode.wokers\":1}\] unknown key 'wokers'; did you mean 'workers'?" err ||
	fail "child recipe error: $(cat err)"
run 0 "$SRTCTL" get recipes --db "$DB"
! grep -q other out || fail "the recipe was applied"

# Unknown kind.
printf 'kind: Deployment\nname: x\n' >k.yaml
run 1 "$SRTCTL" apply -f k.yaml --db "$DB"
grep -q "k.yaml:1:7: kind: unknown kind 'Deployment'" err || fail "kind: $(cat err)"

# A template file that does not exist.
sed 's/template: r.yaml/template: missing.yaml/' c.yaml >m.yaml
run 1 "$SRTCTL" apply -f m.yaml --db "$DB"
grep -q "cannot read the template" err || fail "missing template: $(cat err)"

# delete campaign
run 0 "$SRTCTL" delete campaign sweep1 --db "$DB"
grep -qx 'campaign/sweep1 deleted' out || fail "delete: $(cat out)"
run 1 "$SRTCTL" delete campaign sweep1 --db "$DB"
grep -q 'already deleted' err || fail "delete twice: $(cat err)"
run 0 "$SRTCTL" events --for campaign/sweep1 --db "$DB"
grep -q CampaignDeleted out || fail "CampaignDeleted event"
run 0 "$SRTCTL" apply -f c.yaml --db "$DB"
grep -q 'campaign/sweep1 configured (2 deployments, 4 points: 0 new, 4 kept' out ||
	fail "re-apply after delete: $(cat out)"

# --wait cannot follow a campaign.
run 2 "$SRTCTL" apply -f c.yaml --wait --db "$DB"

# A srt-slurm sweep recipe is refused with the migrate command that converts it.
cat >sweep.yaml <<'YAML'
name: sw
engine: sglang
model: {path: /models/m, container: img}
roles:
  agg: {nodes: 1, args: {max-running-requests: "{mrr}"}}
sweep:
  mrr: [16, 64]
YAML
run 1 "$SRTCTL" apply -f sweep.yaml --db "$DB"
grep -q 'srtctl migrate -f sweep.yaml -o sweep.campaign.yaml' err || fail "sweep: $(cat err)"

# ---- steering: suspend / resume / retry / wait (no controller: the test plays it with sqlite3) ----
write_campaign 4x8 s.yaml steer '{maxConcurrentJobs: 2, maxFailedPoints: 2, budget: {nodeHours: 100}}'
run 0 "$SRTCTL" apply -f s.yaml --db "$DB"
sq() { sqlite3 "$DB" "$@"; }
sq "PRAGMA busy_timeout = 5000" >/dev/null
cid=$(sq "SELECT id FROM campaigns WHERE name = 'steer'")
pts() { # STATE: the rowids of steer's points in that state, by deployment and seq
	sq "SELECT id FROM campaign_points WHERE campaign_id = $cid AND state = '$1' ORDER BY deployment_id, seq"
}
nevents() { sq "SELECT coalesce(sum(count), 0) FROM events WHERE kind = 'campaign' AND name = 'steer' AND reason = '$1'"; }

# suspend / resume round trip, with one event each; suspend is idempotent.
run 0 "$SRTCTL" suspend campaign steer --db "$DB"
grep -q '^campaign/steer suspended (was Pending): no new deployment starts; the running ones finish their points' out ||
	fail "suspend: $(cat out)"
[[ $(sq "SELECT state FROM campaigns WHERE id = $cid") == Suspended ]] || fail "state not Suspended"
run 0 "$SRTCTL" suspend campaign/steer --db "$DB"
grep -qx 'campaign/steer is already suspended; `srtctl resume campaign steer` lets it go on' out ||
	fail "suspend twice: $(cat out)"
[[ $(nevents CampaignSuspended) == 1 ]] || fail "one CampaignSuspended event expected"
run 0 "$SRTCTL" get campaigns steer -o json --db "$DB"
[[ $(jq -r '.items[0].state' out) == Suspended ]] || fail "get: state $(jq -r '.items[0].state' out)"
run 0 "$SRTCTL" get campaigns steer --db "$DB"
grep -Eq '^steer +1 +2 +4 +0 +0 +4 +0 +0 +Suspended ' out || fail "get campaigns ETA column: $(cat out)"
run 0 "$SRTCTL" resume campaign steer --db "$DB"
grep -q '^campaign/steer resumed: the controller starts its pending deployments' out || fail "resume: $(cat out)"
[[ $(sq "SELECT state FROM campaigns WHERE id = $cid") == Running ]] || fail "state not Running"
run 1 "$SRTCTL" resume campaign steer --db "$DB"
grep -qx "srtctl resume: campaign 'steer' is not suspended (it is Running); nothing to resume" err ||
	fail "resume twice: $(cat err)"
[[ $(nevents CampaignResumed) == 1 ]] || fail "one CampaignResumed event expected"
run 0 "$SRTCTL" events --for campaign/steer --db "$DB"
grep -q 'CampaignSuspended .*suspended by user' out && grep -q 'CampaignResumed' out ||
	fail "events: $(cat out)"

# Refusals: unknown, deleted, usage.
run 1 "$SRTCTL" suspend campaign nosuch --db "$DB"
grep -qx "srtctl suspend: campaign 'nosuch' not found; \`srtctl get campaigns\` lists them" err ||
	fail "unknown: $(cat err)"
run 1 "$SRTCTL" retry campaign nosuch --db "$DB"
run 2 "$SRTCTL" suspend recipe steer --db "$DB"
run 2 "$SRTCTL" retry campaign --db "$DB"
run 2 "$SRTCTL" wait campaign steer --for ready --db "$DB"

# Progress: the first point of each deployment done in 60 s, one running.
# ETA = mean 60 s x 2 points left / 2 deployments at once = 60 s.
now=$(($(date +%s) * 1000))
mapfile -t p < <(pts pending)
p1=${p[0]} p2=${p[1]} p3=${p[2]} p4=${p[3]}
sq "UPDATE campaign_points SET state = 'done', started_at = $((now - 120000)), finished_at = $((now - 60000)) WHERE id IN ($p1, $p3)"
sq "UPDATE campaign_points SET state = 'running', started_at = $now WHERE id = $p2"
# One run of a deployment: 1 node x 2 h = 2 node-hours (its child recipe made by hand).
dep=$(sq "SELECT name FROM campaign_deployments WHERE campaign_id = $cid ORDER BY position LIMIT 1")
dnodes=$(sq "SELECT nodes FROM campaign_deployments WHERE name = '$dep'")
sq "INSERT INTO recipes (uid, name, spec, spec_hash, generation, created_at, applied_at) VALUES ('u-$dep', '$dep', '{}', 'h', 1, $now, $now);
    INSERT INTO runs (uid, recipe_id, name, generation, attempt, phase, job_name, job_comment, created_at, updated_at, started_at, finished_at)
    SELECT 'r-$dep', id, '$dep-1-1', 1, 1, 'Succeeded', '$dep-1-1', 'c', $now, $now, $((now - 7200000)), $now FROM recipes WHERE name = '$dep'"
run 0 "$SRTCTL" get campaigns steer -o json --db "$DB"
[[ $(jq '.items[0].eta_seconds' out) == 60 ]] || fail "eta_seconds: $(jq '.items[0]' out)"
want_nh=$(awk -v n="$dnodes" 'BEGIN { print n * 2 }')
[[ $(jq '.items[0].node_hours' out) == "$want_nh" ]] || fail "node_hours: $(jq '.items[0].node_hours' out), want $want_nh"
run 0 "$SRTCTL" get campaigns steer -o wide --db "$DB"
grep -Eq '^steer .* 60s +[0-9]+s +Running +'"$want_nh"'\.0 ' out || fail "get -o wide: $(cat out)"
run 0 "$SRTCTL" describe campaign steer --db "$DB"
grep -q "^Node-Hours: *$want_nh.0 used of a budget of 100.0" out || fail "describe node-hours: $(cat out)"
grep -q '^ETA: *60s (mean point 60s x 2 left / 2 at once)' out || fail "describe ETA: $(cat out)"
grep -Eq "^  $dep +$dnodes +yes +1/2 " out || fail "describe deployment state: $(cat out)"
grep -Eq '^  steer-[0-9a-f]{8} +[0-9]+ +no +1/2 ' out || fail "describe inactive deployment: $(cat out)"

# wait: not a TTY, one line per change; the timeout is exit 1 with the last line.
run 1 "$SRTCTL" wait campaign steer --for done --timeout 1s --db "$DB"
grep -qx 'campaign/steer: Running, 2/4 done, 0 failed, 0 invalid, 1 running, 1 pending, ETA 60s' out ||
	fail "wait line: $(cat out)"
grep -qx 'campaign/steer: gave up waiting: the timeout passed; Running, 2/4 done, 0 failed, 0 invalid, 1 running, 1 pending, ETA 60s' out ||
	fail "wait timeout: $(cat out)"

# wait success: a background update finishes the last points and marks the campaign Done.
(
	sleep 1
	sq "UPDATE campaign_points SET state = 'done', started_at = $now, finished_at = $((now + 1000)) WHERE id IN ($p2, $p4)"
	sleep 1
	sq "UPDATE campaigns SET state = 'Done' WHERE id = $cid"
) &
bg=$!
run 0 "$SRTCTL" wait campaign/steer --for done --timeout 60s --db "$DB"
wait "$bg"
grep -qx 'campaign/steer: Running, 4/4 done, 0 failed, 0 invalid, 0 running, 0 pending, ETA 0s' out ||
	fail "wait progress: $(cat out)"
grep -qx 'campaign/steer: Done: all 4 points finished (4 done, 0 failed, 0 invalid)' out ||
	fail "wait done: $(cat out)"
[[ $(grep -c '^campaign/steer: ' out) -ge 3 ]] || fail "one line per change: $(cat out)"

# retry: nothing to retry; then 1 failed + 1 invalid on a Done campaign -> Running.
run 0 "$SRTCTL" retry campaign steer --db "$DB"
grep -qx 'campaign/steer: no failed or invalid point to retry' out || fail "retry none: $(cat out)"
[[ $(nevents PointsRetried) == 0 ]] || fail "no PointsRetried event expected"
sq "UPDATE campaign_points SET state = 'failed', attempts = 2, message = 'exit 1', raw_json = '{}', raw_path = 'r.json', p99_ttft_ms = 5, run_name = 'x-1-1' WHERE id = $p1;
    UPDATE campaign_points SET state = 'invalid', attempts = 2, message = 'errors 50%' WHERE id = $p2"
run 0 "$SRTCTL" retry campaign steer --invalid --db "$DB"
grep -qx 'campaign/steer: 1 point(s) back to pending (0 failed, 1 invalid), attempts reset; state Done -> Running; the controller runs them in its next pass' out ||
	fail "retry --invalid: $(cat out)"
[[ $(sq "SELECT state || ' ' || attempts FROM campaign_points WHERE id = $p2") == 'pending 0' ]] || fail "invalid point not reset"
sq "SELECT message FROM campaign_points WHERE id = $p2" | grep -Eq '^retried by user at 20[0-9-]+T[0-9:.]+Z \(was: errors 50%\)$' ||
	fail "retry message: $(sq "SELECT message FROM campaign_points WHERE id = $p2")"
[[ $(sq "SELECT state FROM campaign_points WHERE id = $p1") == failed ]] || fail "--invalid retried a failed point"
# Stopped (maxFailedPoints reached): wait says what to do and exits 1; retry --failed makes it Running.
sq "UPDATE campaigns SET state = 'Stopped' WHERE id = $cid"
run 1 "$SRTCTL" wait campaign steer --db "$DB"
grep -qx 'campaign/steer: Stopped: policy.maxFailedPoints reached (1 of 2 points failed or invalid); it will not finish by itself: `srtctl retry campaign steer` runs them again, or raise policy.maxFailedPoints and apply it again' out ||
	fail "wait on Stopped: $(cat out)"
run 0 "$SRTCTL" retry campaign steer --failed --db "$DB"
grep -q '1 point(s) back to pending (1 failed, 0 invalid), attempts reset; state Stopped -> Running' out ||
	fail "retry --failed: $(cat out)"
[[ $(sq "SELECT count(*) FROM campaign_points WHERE id = $p1 AND state = 'pending' AND attempts = 0 AND raw_json IS NULL AND raw_path IS NULL AND p99_ttft_ms IS NULL AND run_name IS NULL AND finished_at IS NULL") == 1 ]] ||
	fail "retried point not cleared"
[[ $(nevents PointsRetried) == 2 ]] || fail "two PointsRetried events expected"
run 0 "$SRTCTL" events --for campaign/steer --db "$DB"
grep -q 'PointsRetried .*1 point(s) back to pending by user (1 failed, 0 invalid), attempts reset; state Stopped -> Running' out ||
	fail "PointsRetried event: $(cat out)"
# OutOfBudget: wait names the budget; a retry leaves the state alone and says why.
sq "UPDATE campaign_points SET state = 'failed' WHERE id = $p1; UPDATE campaigns SET state = 'OutOfBudget' WHERE id = $cid"
run 1 "$SRTCTL" wait campaign steer --db "$DB"
grep -q "^campaign/steer: OutOfBudget: budget.nodeHours spent ($want_nh.0 of 100.0 node-hours used); it will not finish by itself: raise budget.nodeHours in $work/s.yaml" out ||
	fail "wait on OutOfBudget: $(cat out)"
run 0 "$SRTCTL" retry campaign steer --db "$DB"
grep -qx 'campaign/steer: 1 point(s) back to pending (1 failed, 0 invalid), attempts reset; it is OutOfBudget: raise budget.nodeHours and apply it again for them to run' out ||
	fail "retry out of budget: $(cat out)"
run 0 "$SRTCTL" get campaigns steer --db "$DB"
grep -Eq ' OutOfBudget ' out || fail "ETA of an OutOfBudget campaign: $(cat out)"
# A deleted campaign: refused by suspend, retry and wait.
run 0 "$SRTCTL" delete campaign steer --db "$DB"
run 1 "$SRTCTL" suspend campaign steer --db "$DB"
grep -qx "srtctl suspend: campaign 'steer' is deleted; \`srtctl apply\` brings it back" err || fail "deleted: $(cat err)"
run 1 "$SRTCTL" retry campaign steer --db "$DB"
run 1 "$SRTCTL" wait campaign steer --db "$DB"
grep -qx 'campaign/steer: deleted (`srtctl apply` brings it back); it will not finish' out || fail "wait deleted: $(cat out)"

echo "ok: campaigns"
