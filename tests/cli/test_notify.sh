#!/usr/bin/env bash
# tests/cli/test_notify.sh: notify: in srtslurm.yaml (issue #17), with the
# real controller and no SLURM: a stand-in slurmrestd (v0.0.38, every job
# listing empty) keeps the loop passing every 200 ms instead of backing off.
# The failed run and the crash-looping service are written into the database
# as the controller would (their recipe deleted, so the controller leaves
# them alone); the triggers queue the notifications.
#   - a run that becomes Failed is sent to the notify command once it
#     succeeds: the command fails twice, then succeeds; it saw the same event
#     id three times (SRTCTL_EVENT_ID and "id" in the JSON on stdin) and,
#     deduplicating by that id, delivered the event once;
#   - a service entering CrashLoopBackOff whose notifier hangs: the command
#     is killed (by its PID) after notify.timeout while the controller keeps
#     passing, and the retry delivers it;
#   - the database records each notification as Delivered with its attempts;
#   - a campaign's own notify: command gets its campaign's end too, once.
# Waits are bounded loops on what the controller did, never on wall time.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"

# fail, run, isolated_workdir, apply_pd
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v sqlite3 >/dev/null || fail "sqlite3 is not installed: run scripts/install-deps"

isolated_workdir
CTL= RESTD=
stop_all() {
	local p
	for p in $CTL $RESTD; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap stop_all EXIT
DB="$work/state.db"

# The stand-in slurmrestd: GET .../jobs answers an empty listing; nothing else is expected.
cat >restd.py <<'PY'
import http.server, json, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        ok = self.path.startswith("/slurm/v0.0.38/jobs")
        body = json.dumps({"meta": {}, "errors": [], "warnings": [], "jobs": []} if ok else
                          {"errors": [{"error": "unexpected " + self.path}]}).encode()
        self.send_response(200 if ok else 500)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
python3 restd.py >restd.port 2>restd.log &
RESTD=$!
for _ in $(seq 1 300); do [[ -s restd.port ]] && break; sleep 0.1; done
[[ -s restd.port ]] || fail "the stand-in slurmrestd did not start: $(cat restd.log)"
URL="http://127.0.0.1:$(cat restd.port)"
sql() { sqlite3 -cmd ".timeout 10000" "$DB" "$@"; }

# The notifier: every attempt is logged; a RunFailed event fails its first two
# attempts; a ServiceCrashLoopBackOff event hangs on its first attempt (its
# PID is written down). Success delivers once per event id.
cat >notifier.sh <<'SH'
#!/bin/bash
set -u
dir=$(dirname "$0")
json=$(cat)
n=$(($(grep -c -x -F -- "$SRTCTL_EVENT_ID" "$dir/attempts.log" 2>/dev/null || true) + 1))
echo "$SRTCTL_EVENT_ID" >>"$dir/attempts.log"
printf '%s\n' "$json" >>"$dir/stdin.log"
case $SRTCTL_EVENT_REASON in
RunFailed) [ "$n" -ge 3 ] || exit 1 ;;
ServiceCrashLoopBackOff)
	if [ "$n" -eq 1 ]; then
		echo $$ >"$dir/hang.pid.tmp" && mv "$dir/hang.pid.tmp" "$dir/hang.pid"
		exec sleep 1000
	fi
	;;
esac
grep -q -x -F -- "$SRTCTL_EVENT_ID" "$dir/delivered.log" 2>/dev/null ||
	echo "$SRTCTL_EVENT_ID" >>"$dir/delivered.log"
SH
chmod +x notifier.sh
cat >srtslurm.yaml <<YAML
slurmrestd:
  api_version: v0.0.38
notify:
  command: [$work/notifier.sh]
  timeout: 1s
  backoff: 100ms
  max_attempts: 10
YAML
export SRTSLURM_CONFIG=$work/srtslurm.yaml

# A bad notify: section is refused before anything runs.
cat >bad.yaml <<'YAML'
notify:
  timeout: forever
YAML
SRTSLURM_CONFIG=$work/bad.yaml run 1 "$SRTCTL" controller --db "$DB" --url "$URL" --once
grep -q "notify.timeout" err || fail "no error naming notify.timeout: $(cat err)"
grep -q "needs command" err || fail "no error for the missing notify.command: $(cat err)"

apply_pd "$DB"
run 0 "$SRTCTL" delete recipe alpha --db "$DB"
"$SRTCTL" controller --db "$DB" --url "$URL" --interval 200ms -v >ctl.log 2>&1 &
CTL=$!
for _ in $(seq 1 600); do
	grep -q 'srtctl controller: pass:' ctl.log && break
	kill -0 "$CTL" 2>/dev/null || fail "the controller exited: $(cat ctl.log)"
	sleep 0.1
done
grep -q 'srtctl controller: pass:' ctl.log || fail "no pass: $(cat ctl.log)"

# A run fails (as the controller's record() does: an UPDATE of its phase).
RUN=alpha-1-1
now=$(date +%s%3N) # the rows' times (a notification is due from its change's time)
sql "BEGIN; INSERT INTO runs (uid, recipe_id, name, generation, attempt, phase, job_name,
	job_comment, created_at, updated_at) SELECT 'u1', id, '$RUN', 1, 1, 'Starting', '$RUN',
	'srtctl:u1:1', $now, $now FROM recipes WHERE name = 'alpha';
	UPDATE runs SET phase = 'Failed', message = 'exit 137', updated_at = $now
	WHERE name = '$RUN'; COMMIT;"
id=$(sql "SELECT event_id FROM notifications WHERE reason = 'RunFailed'")
[[ $id == run-failed:u1 ]] || fail "no RunFailed notification queued: '$id'"
for _ in $(seq 1 600); do
	[[ $(sql "SELECT state FROM notifications WHERE event_id = '$id'") == Delivered ]] && break
	kill -0 "$CTL" 2>/dev/null || fail "the controller exited: $(cat ctl.log)"
	sleep 0.1
done
[[ $(sql "SELECT state || ' ' || attempts FROM notifications WHERE event_id = '$id'") == "Delivered 3" ]] ||
	fail "the RunFailed notification is not Delivered after 3 attempts: $(sql "SELECT * FROM notifications"); $(cat ctl.log)"
[[ $(grep -c -x -F -- "$id" attempts.log) -eq 3 ]] || fail "want 3 attempts with id $id: $(cat attempts.log)"
[[ $(cat delivered.log) == "$id" ]] || fail "delivered.log is not the one id: $(cat delivered.log)"
python3 - stdin.log "$id" "$RUN" <<'PY' || fail "the JSON on stdin is not the event"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 3, lines
for e in lines:
    assert e["id"] == sys.argv[2] and e["reason"] == "RunFailed" and e["kind"] == "run", e
    assert e["name"] == sys.argv[3] and e["recipe"] == "alpha" and e["message"] == "exit 137", e
PY
grep -q "notify: $id: attempt 2 of 10 failed: exited 1; retried in 200 ms" ctl.log ||
	fail "no log line for the second failed attempt: $(cat ctl.log)"

# A service in CrashLoopBackOff; its notifier hangs and is killed after 1 s.
sql "INSERT INTO services (run_id, name, service, type, state, restarts, updated_at)
	SELECT id, 'mooncake-master', 'mooncake-master', 'mooncake-master', 'CrashLoopBackOff', 4,
	$now FROM runs WHERE name = '$RUN'"
sid=$(sql "SELECT event_id FROM notifications WHERE reason = 'ServiceCrashLoopBackOff'")
[[ $sid == "service-crashloop:u1:mooncake-master:4" ]] || fail "no CrashLoopBackOff notification: '$sid'"
for _ in $(seq 1 600); do
	[[ -s hang.pid ]] && break
	sleep 0.1
done
[[ -s hang.pid ]] || fail "the hanging notifier never started: $(cat ctl.log)"
hang=$(cat hang.pid)
# The loop keeps passing while the notifier hangs.
passes=$(grep -c 'srtctl controller: pass:' ctl.log || true)
for _ in $(seq 1 600); do
	(($(grep -c 'srtctl controller: pass:' ctl.log || true) >= passes + 3)) && break
	sleep 0.1
done
(($(grep -c 'srtctl controller: pass:' ctl.log || true) >= passes + 3)) ||
	fail "the controller stopped passing while the notifier hung: $(tail -n 5 ctl.log)"
for _ in $(seq 1 600); do
	[[ $(sql "SELECT state FROM notifications WHERE event_id = '$sid'") == Delivered ]] && break
	kill -0 "$CTL" 2>/dev/null || fail "the controller exited: $(cat ctl.log)"
	sleep 0.1
done
[[ $(sql "SELECT state || ' ' || attempts FROM notifications WHERE event_id = '$sid'") == "Delivered 2" ]] ||
	fail "the CrashLoopBackOff notification is not Delivered after 2 attempts: $(sql "SELECT * FROM notifications")"
grep -q "notify: $sid: attempt 1 of 10 failed: still running after 1000 ms; killed" ctl.log ||
	fail "no log line for the killed notifier: $(cat ctl.log)"
if kill -0 "$hang" 2>/dev/null; then
	fail "the hanging notifier (pid $hang) is still running"
fi
[[ $(grep -c -x -F -- "$sid" delivered.log) -eq 1 ]] || fail "want $sid delivered once: $(cat delivered.log)"

kill -TERM "$CTL"
rc=0
wait "$CTL" || rc=$?
CTL=
[[ $rc -eq 0 ]] || fail "SIGTERM: the controller exited $rc, want 0: $(tail -n 5 ctl.log)"

# A campaign's own notify: command hears its campaign's end, with the
# campaign named in the event, besides the cluster's command (each once).
# The campaign is applied and deleted while no controller runs, so none
# of its deployments starts; its end is written as the controller would.
cat >camp-notifier.sh <<'SH'
#!/bin/bash
dir=$(dirname "$0")
{ echo "$SRTCTL_EVENT_ID"; cat; } >>"$dir/campaign.log"
SH
chmod +x camp-notifier.sh
agg_campaign cn '[{isl: 128, osl: 16}]' 4 vllm-bench \
	"notify: {command: [$work/camp-notifier.sh], backoff: 100ms}"
run 0 "$SRTCTL" apply -f cn.yaml --db "$DB"
run 0 "$SRTCTL" delete campaign cn --db "$DB"
sql "UPDATE campaigns SET state = 'Done', updated_at = $now WHERE name = 'cn'"
[[ $(sql "SELECT count(*) || ' ' || count(DISTINCT event_id) || ' ' || sum(campaign_id = 0)
	FROM notifications WHERE reason = 'CampaignDone'") == "2 1 1" ]] ||
	fail "want one CampaignDone event for the cluster and one for the campaign: $(sql "SELECT * FROM notifications")"
"$SRTCTL" controller --db "$DB" --url "$URL" --interval 200ms -v >ctl2.log 2>&1 &
CTL=$!
for _ in $(seq 1 600); do
	[[ $(sql "SELECT count(*) FROM notifications WHERE reason = 'CampaignDone' AND
		state = 'Delivered'") == 2 ]] && break
	kill -0 "$CTL" 2>/dev/null || fail "the controller exited: $(cat ctl2.log)"
	sleep 0.1
done
[[ $(sql "SELECT count(*) FROM notifications WHERE reason = 'CampaignDone' AND
	state = 'Delivered'") == 2 ]] ||
	fail "CampaignDone not delivered to both commands: $(sql "SELECT * FROM notifications"); $(cat ctl2.log)"
cid=$(sql "SELECT DISTINCT event_id FROM notifications WHERE reason = 'CampaignDone'")
[[ $(head -n 1 campaign.log) == "$cid" ]] || fail "the campaign's command saw: $(cat campaign.log)"
[[ $(wc -l <campaign.log) -eq 2 ]] || fail "the campaign's command ran more than once: $(cat campaign.log)"
sed -n 2p campaign.log | jq -e --arg id "$cid" \
	'.id == $id and .reason == "CampaignDone" and .name == "cn" and .campaign == "cn"' >/dev/null ||
	fail "the campaign's event: $(cat campaign.log)"
grep -q -x -F -- "$cid" delivered.log || fail "the cluster's command did not get $cid: $(cat delivered.log)"
grep -q "notify: $cid (campaign cn): delivered (attempt 1)" ctl2.log ||
	fail "no log line naming the campaign's delivery: $(cat ctl2.log)"
kill -TERM "$CTL"
rc=0
wait "$CTL" || rc=$?
CTL=
[[ $rc -eq 0 ]] || fail "SIGTERM: the controller exited $rc, want 0: $(tail -n 5 ctl2.log)"
echo "test_notify: ok"
