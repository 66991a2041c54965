#!/usr/bin/env bash
# tests/cli/test_campaign.sh: campaigns (kind: Campaign) through the CLI on a
# temporary SQLite database: apply (all or nothing, generations, --dry-run
# with the point table and the node-hours estimate), point identity across
# re-applies, diff, get campaigns / get points (-o json, csv), describe, delete,
# strict errors with file:line:col, and the sweep refusal naming migrate.
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
write_campaign() { # CONCURRENCY
	cat >c.yaml <<YAML
kind: Campaign
name: sweep1
template: r.yaml
deployments:
  grid:
    roles.decode.workers: [1, 2]
load:
  shapes: [{isl: 1024, osl: 1024}]
  concurrency: "$1"
benchmark: {tool: vllm-bench}
policy: {maxConcurrentJobs: 2}
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

echo "ok: campaigns"
