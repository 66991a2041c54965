#!/usr/bin/env bash
# tests/cli/test_compare.sh: what results say (issue 16) on a temporary
# database, sqlite3 playing the controller (it marks the points done with
# known results).  `srtctl compare A B` (campaigns, or run/NAME): an
# improvement exits 0, a regression
# beyond the threshold exits 1 (a latency the other way round), and 2 for
# what cannot be gated on: no overlap, campaigns of different benchmark
# tools, an unknown metric or campaign, a bad threshold.  `get points
# --frontier`: exactly the points of a known Pareto frontier, with their
# per-user and per-GPU rates.
set -euo pipefail
: "${SRTCTL:?set SRTCTL to the srtctl binary}"

# fail, run, isolated_workdir
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
isolated_workdir
DB="$work/state/srtctl.db"

campaign() { # NAME CONCURRENCY [TOOL]: applied
	agg_campaign "$1" '[{isl: 1024, osl: 128}]' "$2" "${3:-}"
	run 0 "$SRTCTL" apply -f "$1.yaml" --db "$DB"
}
# results NAME THROUGHPUT TPOT [CONCURRENCY THROUGHPUT]: every point of NAME done with these
# (the points of that concurrency with the other throughput).
results() {
	sqlite3 "$DB" "UPDATE campaign_points SET state = 'done', output_throughput = $2,
		median_tpot_ms = $3 WHERE campaign_id = (SELECT id FROM campaigns WHERE name = '$1');"
	if [[ -n ${4:-} ]]; then
		sqlite3 "$DB" "UPDATE campaign_points SET output_throughput = $5 WHERE concurrency = $4
			AND campaign_id = (SELECT id FROM campaigns WHERE name = '$1');"
	fi
}

campaign week1 4x8
campaign week2 4x8
results week1 1000 20
results week2 1100 20 8 960 # conc 8: -4%, within 5%

run 0 "$SRTCTL" compare week1 week2 --db "$DB"
[[ $(grep -c ' better$' out) == 2 && $(grep -c ' same$' out) == 2 ]] || fail "improvement: $(cat out)"
grep -q '^4 point(s) matched, 0 regressed beyond 5% (output_throughput, higher is better)' out ||
	fail "summary: $(cat out)"
grep -Eq '^\{"roles.agg.workers": ?1\} +1024 +128 +4 +1 +1000 +1100 +\+10\.0% +better$' out ||
	fail "a row: $(cat out)"

# -4% is a regression at a 3% threshold; -o json says which
run 1 "$SRTCTL" compare week1 week2 --threshold 3% -o json --db "$DB"
[[ $(jq '.regressions' out) == 2 && $(jq '.matched' out) == 4 ]] || fail "json: $(cat out)"
[[ $(jq -r '[.items[] | select(.verdict == "regression") | .concurrency] | unique | join(",")' out) == 8 ]] ||
	fail "json regressions: $(cat out)"
[[ $(jq '.items[0].delta_pct | floor' out) == 10 && $(jq -r '.better' out) == higher ]] ||
	fail "json fields: $(cat out)"

# a latency: lower is better
results week2 1100 25
run 1 "$SRTCTL" compare campaign/week1 campaign/week2 --metric median_tpot_ms --db "$DB"
[[ $(grep -c ' regression$' out) == 4 ]] || fail "tpot +25%: $(cat out)"
run 0 "$SRTCTL" compare week2 week1 --metric median_tpot_ms --db "$DB"
[[ $(grep -c ' better$' out) == 4 ]] || fail "tpot -20%: $(cat out)"

# two runs: the points each ran, matched without their axes (two deployments)
sqlite3 "$DB" "UPDATE campaign_points SET run_name = 'run-w' || json_extract((SELECT axes FROM
	campaign_deployments d WHERE d.id = deployment_id), '$.\"roles.agg.workers\"')
	WHERE campaign_id = (SELECT id FROM campaigns WHERE name = 'week2');"
run 0 "$SRTCTL" compare run/run-w1 run/run-w2 --metric median_tpot_ms -o json --db "$DB"
[[ $(jq '.matched' out) == 2 && $(jq -r '.a' out) == run/run-w1 ]] || fail "runs: $(cat out)"
run 2 "$SRTCTL" compare run/run-w1 run/nosuch --db "$DB"
grep -q "run 'nosuch' ran no point" err || fail "unknown run: $(cat err)"

# what cannot be gated on: exit 2
campaign other 16x32
results other 1000 20
run 2 "$SRTCTL" compare week1 other --db "$DB"
grep -q "no done point of 'week1' matches one of 'other'" err || fail "no overlap: $(cat err)"
campaign sa 4x8 sa-bench
results sa 1000 20
run 2 "$SRTCTL" compare week1 sa --db "$DB"
grep -q "'week1' ran vllm-bench and 'sa' ran sa-bench: their numbers are not comparable" err ||
	fail "tools: $(cat err)"
run 2 "$SRTCTL" compare week1 week2 --metric ttft --db "$DB"
grep -q "no metric 'ttft'; the metrics are completed, duration_s," err || fail "metric: $(cat err)"
run 2 "$SRTCTL" compare week1 nosuch --db "$DB"
grep -q "campaign 'nosuch' has no points" err || fail "unknown campaign: $(cat err)"
run 2 "$SRTCTL" compare week1 week2 --threshold -1 --db "$DB"
run 2 "$SRTCTL" compare week1 --db "$DB"
# pending points are not compared
sqlite3 "$DB" "UPDATE campaign_points SET state = 'pending' WHERE campaign_id = (SELECT id FROM campaigns WHERE name = 'week2');"
run 2 "$SRTCTL" compare week1 week2 --db "$DB"
# --frontier: output tok/s per user (1000 / median TPOT) against per GPU (1 node x 4 GPUs)
point() { # NAME WORKERS CONCURRENCY THROUGHPUT TPOT
	sqlite3 "$DB" "UPDATE campaign_points SET state = 'done', output_throughput = $4,
		median_tpot_ms = $5 WHERE concurrency = $3 AND deployment_id = (SELECT d.id FROM
		campaign_deployments d JOIN campaigns c ON c.id = d.campaign_id WHERE c.name = '$1'
		AND d.removed_at IS NULL AND json_extract(d.axes, '$.\"roles.agg.workers\"') = $2);"
}
campaign front 4x8
point front 1 4 400 10  # 100 tok/s/user, 100 tok/s/GPU: on it
point front 1 8 800 20  # 50, 200: on it
point front 2 4 300 10  # 100, 75: under the first
point front 2 8 1000 25 # 40, 250: on it
run 0 "$SRTCTL" get points --campaign front --frontier -o json --db "$DB"
[[ $(jq -c '[.items[] | [.axes["roles.agg.workers"], .concurrency, .output_tok_s_per_user, .output_tok_s_per_gpu, .gpus]]' out) == \
	'[[1,4,100,100,4],[1,8,50,200,4],[2,8,40,250,4]]' ]] || fail "frontier: $(cat out)"
run 0 "$SRTCTL" get points --campaign front --frontier --db "$DB"
[[ $(grep -c '^front ' out) == 3 ]] || fail "frontier table: $(cat out)"
run 0 "$SRTCTL" get points --campaign front --frontier -o csv --db "$DB"
head -1 out | grep -q ',gpus,output_tok_s_per_user,output_tok_s_per_gpu$' || fail "csv header: $(head -1 out)"
[[ $(wc -l <out) == 4 ]] || fail "frontier csv: $(cat out)"
# a point not done is on no frontier
sqlite3 "$DB" "UPDATE campaign_points SET state = 'failed' WHERE concurrency = 8 AND campaign_id = (SELECT id FROM campaigns WHERE name = 'front');"
run 0 "$SRTCTL" get points --campaign front --frontier -o json --db "$DB"
[[ $(jq -c '[.items[] | .concurrency]' out) == '[4]' ]] || fail "frontier without the failed: $(cat out)"
run 2 "$SRTCTL" get runs --frontier --db "$DB"
echo "ok: compare, get points --frontier"
