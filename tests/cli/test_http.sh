#!/usr/bin/env bash
# tests/cli/test_http.sh: `srtctl controller --listen` (issue #17) without a
# SLURM (slurmrestd unreachable on the discard port), as a user would see it:
#   - the start line names the port the kernel chose for --listen 127.0.0.1:0;
#   - /healthz and /readyz answer 200 once a pass ended; POST is 405 with
#     Allow, an unknown path 404, HEAD has no body; oversized headers are 431,
#     a long URL 414, a GET with a body 413;
#   - /metrics is scraped by a real Prometheus (Debian's package, 1 s
#     interval) and the expected series come back through its HTTP API;
#   - the status page, fetched and rendered by headless Chromium, shows a
#     hostile recipe name and event message as text, never as markup, and a
#     campaign's progress with a link to its report;
#   - the report (/campaigns/NAME/report) draws its charts in Chromium from
#     its inlined Chart.js; unknown or malformed names are 404, a missing
#     Chart.js 503 saying what to install;
#   - a non-loopback --listen is refused without --listen-public, a port in
#     use with exit 1.
# Prometheus and Chromium are installed by scripts/install-deps: when either
# is missing the test fails (it does not skip).
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"

# fail, run, isolated_workdir, apply_pd
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

for tool in prometheus chromium python3 sqlite3; do
	command -v "$tool" >/dev/null ||
		fail "$tool is not installed: run scripts/install-deps (as root), which installs it"
done

isolated_workdir
CTL= PROM=
stop_all() {
	local p
	for p in $CTL $PROM; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap stop_all EXIT
DB="$work/state.db"
URL=http://127.0.0.1:9 # nothing listens on the discard port

# Refused: a public address without --listen-public (exit 2, usage).
run 2 "$SRTCTL" controller --db "$DB" --url "$URL" --once --listen 0.0.0.0:0
grep -q -- "--listen-public" err || fail "the refusal does not name --listen-public: $(cat err)"

# A recipe, then a hostile name and event message (as any writer of the database could).
apply_pd "$DB"
sqlite3 "$DB" "UPDATE recipes SET name = '<script>alert(1)</script>' WHERE name = 'alpha'"
sqlite3 "$DB" "INSERT INTO events (type, reason, kind, name, message, first_at, last_at, source)
	VALUES ('Warning', 'Hostile', 'run', 'x', '<img src=x onerror=alert(2)>', 1800000000000,
	1800000000000, 'agent')"

# A campaign with results (sqlite3 playing the controller), suspended so that
# the controller starts none of its deployments; every point is finished, so
# the first pass marks it Done (its CampaignDone notification stays Pending:
# no notify: here).  Its report is served from a copy of Chart.js that the
# test can take away.
CHARTJS=${SRTCTL_CHARTJS:-/usr/share/javascript/chart.js/chart.min.js}
[[ -f $CHARTJS ]] || fail "no Chart.js at $CHARTJS: run scripts/install-deps (as root), which installs libjs-chart.js"
cp "$CHARTJS" chart.js
export SRTCTL_CHARTJS=$work/chart.js
agg_campaign sweep '[{isl: 128, osl: 16}]' 1x2x4
run 0 "$SRTCTL" apply -f sweep.yaml --db "$DB"
run 0 "$SRTCTL" suspend campaign sweep --db "$DB"
sqlite3 "$DB" "UPDATE campaign_points SET state = 'done', slo_met = 1,
	output_throughput = 100.0 * concurrency + seq, median_tpot_ms = 5.0 + concurrency,
	p99_tpot_ms = 9.0 + concurrency, median_ttft_ms = 20.0 * concurrency,
	p99_ttft_ms = 30.0 * concurrency;
	UPDATE campaign_points SET state = 'failed', slo_met = NULL
	WHERE id = (SELECT min(id) FROM campaign_points);"

"$SRTCTL" controller --db "$DB" --url "$URL" --interval 200ms --listen 127.0.0.1:0 >ctl.log 2>&1 &
CTL=$!
port=
for _ in $(seq 1 600); do
	port=$(sed -n 's/.*, http on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' ctl.log)
	[[ -n $port ]] && break
	kill -0 "$CTL" 2>/dev/null || fail "the controller exited: $(cat ctl.log)"
	sleep 0.1
done
[[ -n $port && $port != 0 ]] || fail "no 'http on 127.0.0.1:PORT' in the start line: $(cat ctl.log)"
base="http://127.0.0.1:$port"
# Another controller (another database) cannot take the same port: exit 1, saying why.
run 1 "$SRTCTL" controller --db "$work/other.db" --url "$URL" --once --listen "127.0.0.1:$port"
grep -q -- "--listen 127.0.0.1:$port: cannot listen there" err || fail "no bind error: $(cat err)"

# The HTTP surface, through Python's client (no proxy).
python3 - "$base" <<'PY' || fail "the HTTP endpoints do not answer as expected"
import sys, time, urllib.request, urllib.error
base = sys.argv[1]
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
def req(path, method="GET", data=None):
    r = urllib.request.Request(base + path, method=method, data=data)
    try:
        with opener.open(r, timeout=10) as resp:
            return resp.status, dict(resp.headers), resp.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()
# Ready once a pass ended (bounded: at most 300 tries).
for _ in range(300):
    code, _, body = req("/readyz")
    if code == 200:
        break
    assert code == 503 and "not ready" in body, (code, body)
    time.sleep(0.1)
assert (code, body) == (200, "ready\n"), (code, body)
code, _, body = req("/healthz")
assert (code, body) == (200, "ok\n"), (code, body)
code, h, body = req("/", "POST", b"x=1")
assert code == 405 and h.get("Allow") == "GET, HEAD" and "read-only" in body, (code, h, body)
code, _, _ = req("/metrics", "DELETE")
assert code == 405, code
code, _, body = req("/nope")
assert code == 404 and "/metrics" in body, (code, body)
code, h, body = req("/", "HEAD")
assert code == 200 and body == "" and h["Content-Type"].startswith("text/html"), (code, h)
code, h, body = req("/metrics")
assert code == 200 and h["Content-Type"].startswith("text/plain; version=0.0.4"), (code, h)
assert 'srtctl_runs{phase="Pending"} 1\n' in body, body
# Every sample belongs to a family declared with HELP and TYPE before it.
declared = set()
for line in body.splitlines():
    if line.startswith("# TYPE "):
        declared.add(line.split()[2])
    elif not line.startswith("#"):
        name = line.split("{")[0].split(" ")[0]
        base_name = name
        for suffix in ("_bucket", "_sum", "_count"):
            if name.endswith(suffix) and name[: -len(suffix)] in declared:
                base_name = name[: -len(suffix)]
        assert base_name in declared, line
# Bounded requests: headers over the memory limit, a long URL, a body on a GET.
import http.client
host, port = base[len("http://"):].split(":")
def raw(path, headers={}, body=None):
    c = http.client.HTTPConnection(host, int(port), timeout=10)
    c.request("GET", path, body=body, headers=headers)
    r = c.getresponse()
    r.read()
    c.close()
    return r.status
assert raw("/", {"X-Big": "a" * 40000}) == 431
assert raw("/" + "a" * 40000) == 414
assert raw("/metrics", body=b"x" * 100000) == 413
code, h, body = req("/")
assert code == 200 and "&lt;script&gt;alert(1)&lt;/script&gt;" in body, body
assert "<script" not in body and "<img" not in body, body
assert h.get("Content-Security-Policy", "").startswith("default-src 'none'"), h
PY

# A real Prometheus scraping the controller every second.
prom_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >prometheus.yml <<YAML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: srtctl
    static_configs:
      - targets: ['127.0.0.1:$port']
YAML
prometheus --config.file=prometheus.yml --storage.tsdb.path="$work/tsdb" \
	--web.listen-address="127.0.0.1:$prom_port" >prom.log 2>&1 &
PROM=$!
python3 - "http://127.0.0.1:$prom_port" "$PROM" <<'PY' || fail "Prometheus did not return the expected srtctl series; its log: $(tail -n 20 prom.log)"
import json, os, sys, time, urllib.parse, urllib.request
api, pid = sys.argv[1], int(sys.argv[2])
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
def query(q):
    url = api + "/api/v1/query?" + urllib.parse.urlencode({"query": q})
    try:
        with opener.open(url, timeout=10) as r:
            d = json.load(r)
    except OSError:
        return None
    assert d["status"] == "success", d
    return d["data"]["result"]
want = {
    'up{job="srtctl"}': lambda v: v == 1,
    'srtctl_runs{phase="Pending"}': lambda v: v == 1,
    'srtctl_runs{phase="Failed"}': lambda v: v == 0,
    'srtctl_recipes{state="live"}': lambda v: v == 1,
    'srtctl_controller_passes_total{result="ok"}': lambda v: v >= 1,
    'srtctl_slurmrestd_listing_failures_total{code="UNREACHABLE"}': lambda v: v >= 1,
    'srtctl_slurm_known': lambda v: v == 0,
    'srtctl_controller_pass_duration_seconds_count': lambda v: v >= 1,
    'srtctl_events{type="Warning",reason="Hostile"}': lambda v: v == 1,
    'srtctl_notifications{state="Pending"}': lambda v: v == 1,
}
got = {}
for _ in range(600):  # bounded: Prometheus starts, then scrapes every second
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit("prometheus exited")
    for q in want:
        if q in got:
            continue
        res = query(q)
        if res:
            assert len(res) == 1, (q, res)
            got[q] = float(res[0]["value"][1])
    if len(got) == len(want):
        break
    time.sleep(0.2)
missing = [q for q in want if q not in got]
assert not missing, "no series for %s" % missing
bad = {q: v for q, v in got.items() if not want[q](v)}
assert not bad, bad
print("prometheus:", got)
PY

# The page in headless Chromium: the DOM it builds has the hostile strings as text only.
timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
	--user-data-dir="$work/chromium" --dump-dom "$base/" >dom.html 2>chromium.log ||
	fail "chromium --dump-dom failed: $(tail -n 20 chromium.log)"
grep -q '<h1>srtctl controller</h1>' dom.html || fail "the page's DOM has no title: $(head -c 2000 dom.html)"
grep -q '<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>' dom.html ||
	fail "the hostile recipe name is not shown as text in the DOM"
grep -q 'alpha\|&lt;script&gt;alert(1)&lt;/script&gt;-1-1' dom.html ||
	fail "the run is not on the page"
grep -q '&lt;img src=x onerror=alert(2)&gt;' dom.html || fail "the hostile event message is not shown as text"
if grep -q '<script\|<img' dom.html; then
	fail "the DOM has a script or img element from hostile input"
fi
grep -q '<span id="health">ok</span>' dom.html || fail "the page does not say the controller is healthy"
grep -q '<td>sweep</td><td>Done</td><td>5 / 6</td>' dom.html ||
	fail "the campaign's progress is not on the page: $(grep -o '<tr><td>sweep</td>.*' dom.html)"
grep -q '<a href="campaigns/sweep/report">report</a>' dom.html || fail "no link to the campaign's report"

# The campaign's report, served by the controller: its 4 charts drawn in
# Chromium from the page's own inlined Chart.js (the CSP allows inline
# scripts and nothing from the network).
timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
	--user-data-dir="$work/chromium" --enable-logging=stderr --v=0 \
	--dump-dom "$base/campaigns/sweep/report" >report-dom.html 2>chromium-report.log ||
	fail "chromium --dump-dom of the report failed: $(tail -n 20 chromium-report.log)"
grep -q '<body data-charts="4" data-painted="4">' report-dom.html ||
	fail "report charts: $(grep -o '<body[^>]*>' report-dom.html) (want 4 drawn); log: $(grep -i console chromium-report.log | head)"
[ -z "$(page_console chromium-report.log)" ] ||
	fail "the report's console said: $(page_console chromium-report.log | head)"
python3 - "$base" "$work/chart.js" <<'PY' || fail "the report route does not answer as expected"
import http.client, os, sys
host, port = sys.argv[1][len("http://"):].split(":")
def get(path):
    c = http.client.HTTPConnection(host, int(port), timeout=30)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read().decode()
    c.close()
    return r.status, dict(r.getheaders()), body
code, h, body = get("/campaigns/sweep/report")
assert code == 200 and h["Content-Type"] == "text/html; charset=utf-8", (code, h)
csp = h["Content-Security-Policy"]
assert csp.startswith("default-src 'none'") and "script-src 'unsafe-inline'" in csp, csp
assert "6: 5 done, 1 failed" in body, body[:2000]
for path in ("/campaigns/nosuch/report", "/campaigns/../report", "/campaigns/sweep/x",
             "/campaigns/sweep/report/x", "/campaigns//report", "/campaigns/" + "a" * 200 + "/report"):
    code, _, body = get(path)
    assert code == 404, (path, code, body)
code, h, body = get("/")
assert "script" not in h["Content-Security-Policy"], h
# Without Chart.js: 503, saying what to install; back again: 200.
os.rename(sys.argv[2], sys.argv[2] + ".away")
code, _, body = get("/campaigns/sweep/report")
assert code == 503 and "apt install libjs-chart.js" in body, (code, body)
os.rename(sys.argv[2] + ".away", sys.argv[2])
code, _, _ = get("/campaigns/sweep/report")
assert code == 200, code
PY

kill -TERM "$CTL"
rc=0
wait "$CTL" || rc=$?
CTL=
[[ $rc -eq 0 ]] || fail "SIGTERM: the controller exited $rc, want 0: $(cat ctl.log)"
echo "test_http: ok"
