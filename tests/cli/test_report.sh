#!/usr/bin/env bash
# tests/cli/test_report.sh: `srtctl report` (issue 16) on a temporary
# database, sqlite3 playing the controller (points done with known results,
# two ISL/OSL shapes), the file opened in a real headless Chromium:
#  1. every chart is drawn (the page's own count of charts made and of
#     canvases with pixels: 4 per shape) and the console stays silent;
#  2. the same with no network at all (a network namespace of its own:
#     everything, Chart.js included, is in the file);
#  3. a screenshot is kept as the test's artifact ($SRT_TEST_ARTIFACTS, else
#     the work directory, which is removed);
#  4. what it refuses: no Chart.js (says how to install it), a Chart.js that
#     could end its script element, an unknown campaign.
# If chromium is missing the test fails (it does not skip).
set -euo pipefail
: "${SRTCTL:?set SRTCTL to the srtctl binary}"

# fail, run, isolated_workdir
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
for tool in chromium sqlite3 unshare; do
	command -v "$tool" >/dev/null ||
		fail "$tool is not installed: run scripts/install-deps (as root), which installs it"
done
CHARTJS=${SRTCTL_CHARTJS:-/usr/share/javascript/chart.js/chart.min.js}
[[ -f $CHARTJS ]] || fail "no Chart.js at $CHARTJS: run scripts/install-deps (as root), which installs libjs-chart.js"
isolated_workdir
DB="$work/state/srtctl.db"

agg_campaign sweep '[{isl: 1024, osl: 128}, {isl: 128, osl: 16}]' 1x2x4x8 vllm-bench \
	'slo: {ttftP99Ms: 200}'
run 0 "$SRTCTL" apply -f sweep.yaml --db "$DB"
# results that grow with concurrency; one point of each shape misses the SLO, one failed
sqlite3 "$DB" "UPDATE campaign_points SET state = 'done', slo_met = 1,
	output_throughput = 100.0 * concurrency * (1 + 0.3 * (deployment_id % 2)) + seq,
	median_tpot_ms = 5.0 + concurrency * (1 + 0.6 * (deployment_id % 2)),
	p99_tpot_ms = 9.0 + concurrency * (1 + 0.8 * (deployment_id % 2)),
	median_ttft_ms = 20.0 * concurrency * (1 + 0.2 * (deployment_id % 2)),
	p99_ttft_ms = 30.0 * concurrency * (1 + 0.4 * (deployment_id % 2)), run_name = 'sweep-run-' || seq, slurm_job_id = 40 + seq,
	raw_path = 'points/' || seq || '.json';
	UPDATE campaign_points SET slo_met = 0 WHERE concurrency = 8;
	UPDATE campaign_points SET state = 'failed', slo_met = NULL WHERE id = (SELECT min(id) FROM campaign_points);"

run 0 "$SRTCTL" report sweep -o sweep.html --db "$DB"
grep -Eq '^campaign/sweep: wrote sweep.html \(16 point\(s\), [0-9]+ on the frontier, [0-9]+ KiB\)$' out ||
	fail "report: $(cat out)"
grep -q '<td>ttftP99Ms &lt;= 200 ms</td>' sweep.html || fail "the SLO"
grep -q '16: 15 done, 1 failed' sweep.html || fail "the counts"

# open FILE LOG [WRAPPER...]: chromium's DOM after the page's scripts ran, to dom.html
open_page() {
	local file=$1 log=$2
	shift 2
	timeout 120 "$@" chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$work/chromium" --enable-logging=stderr --v=0 \
		--dump-dom "file://$work/$file" >dom.html 2>"$log" ||
		fail "chromium --dump-dom failed: $(tail -n 20 "$log")"
}
# checked LOG: 8 charts drawn (4 per shape), every canvas painted, no console message
checked() {
	grep -q '<body data-charts="8" data-painted="8">' dom.html ||
		fail "charts: $(grep -o '<body[^>]*>' dom.html) (want 8 charts, 8 painted); log: $(grep -i console "$1" | head)"
	[ -z "$(page_console "$1")" ] || fail "the console said: $(page_console "$1" | head)"
}
open_page sweep.html chromium.log
checked chromium.log
echo "ok 1 the report's 8 charts are drawn in Chromium, no console message"

open_page sweep.html chromium-nonet.log unshare --net
checked chromium-nonet.log
echo "ok 2 the same with no network"

artifacts=${SRT_TEST_ARTIFACTS:-$work}
mkdir -p "$artifacts"
timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
	--user-data-dir="$work/chromium" --window-size=1400,2600 \
	--screenshot="$artifacts/report.png" "file://$work/sweep.html" >/dev/null 2>&1 ||
	fail "chromium --screenshot failed"
[[ $(stat -c %s "$artifacts/report.png") -gt 20000 ]] || fail "the screenshot is nearly empty"
echo "ok 3 screenshot: $artifacts/report.png"

run 2 "$SRTCTL" report sweep --chartjs "$work/none.js" --db "$DB"
grep -q "apt install libjs-chart.js" err || fail "no chart.js: $(cat err)"
printf 'var x = "</SCRIPT>";\n' >bad.js
run 2 "$SRTCTL" report sweep --chartjs bad.js --db "$DB"
grep -q 'cannot be inlined' err || fail "bad chart.js: $(cat err)"
run 1 "$SRTCTL" report nosuch --db "$DB"
run 0 "$SRTCTL" report campaign/sweep -o - --db "$DB"
head -1 out | grep -qx '<!doctype html>' || fail "stdout: $(head -c 200 out)"
rm -f sweep.html
run 0 "$SRTCTL" report sweep --db "$DB"
[[ -s sweep.html ]] || fail "the default file name"
echo "ok 4 refusals and output choices"
