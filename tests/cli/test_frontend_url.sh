#!/usr/bin/env bash
# tests/cli/test_frontend_url.sh: the frontend's URL as a user sees it (issue
# #14).  A recipe with a frontend and one without; `srtctl controller --once`
# (slurmrestd unreachable: nothing is submitted) creates their runs and reads
# what each run's agent wrote into status.json.  `get runs -o wide` has a
# FRONTEND column, `-o json` frontend_url / frontend_url_planned, and
# `describe run` a "Frontend URL" field: <none> without a frontend, "pending"
# while the plan has one (recorded with plan.json, before the submission)
# and the agent has not bound it, then the URL the agent reports.  A hostile
# frontend_url is not stored and warns.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"

# fail, run, isolated_workdir
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
isolated_workdir
DB="$work/state/srtctl.db"
URL=http://127.0.0.1:9 # nothing listens on the discard port
q() { sqlite3 "$DB" "$1"; }
pyjson() {
	python3 -c "import json
doc = json.load(open('out'))
runs = {r['recipe']: r for r in doc['items']}
$1" || fail "json check failed: $1"$'\n'"$(cat out)"
}
pass() {
	timeout 120 "$SRTCTL" controller --once --url "$URL" --db "$DB" >ctl.log 2>&1 || true
}
# status SEQ FRONTEND_URL_JSON: alpha's agent reports phase Starting.
status() {
	printf '{"version":1,"seq":%d,"plan_generation":1,"phase":"Starting","message":"","processes":[],"frontend_url":%s,"updated_at":1}\n' \
		"$1" "$2" >"$ad/status.json.tmp"
	mv "$ad/status.json.tmp" "$ad/status.json"
}
# frontend_column RUN: the FRONTEND cell of `get runs -o wide` for RUN.
frontend_column() {
	run 0 "$SRTCTL" get runs -o wide --db "$DB"
	awk -v r="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "FRONTEND") c = i }
		$1 == r { print $c }' out
}

cat >alpha.yaml <<YAML
name: alpha
engine: sglang
roles:
  prefill: {}
  decode: {}
frontend: {type: sglang-router}
YAML
cat >beta.yaml <<YAML
name: beta
engine: sglang
roles:
  prefill: {}
  decode: {}
YAML
run 0 "$SRTCTL" apply -f alpha.yaml --db "$DB"
run 0 "$SRTCTL" apply -f beta.yaml --db "$DB"
pass
A=$(q "SELECT name FROM runs WHERE name LIKE 'alpha-%'")
B=$(q "SELECT name FROM runs WHERE name LIKE 'beta-%'")
[[ -n $A && -n $B ]] || fail "no runs after a controller pass: $(cat ctl.log)"

# The pass wrote each run's plan.json before it tried to submit (slurmrestd
# does not answer), and recorded the plan's frontend URL with it.
for r in "$A" "$B"; do
	[[ -f $work/outputs/$r/plan.json ]] || fail "no plan.json for $r: $(cat ctl.log)"
done
[[ $(q "SELECT frontend_url_planned FROM runs WHERE name = '$A'") == 'http://<prefill_node_0_ip>:8000' ]] ||
	fail "planned URL: $(q "SELECT * FROM runs")"
grep -q '"frontend_url": "http://<prefill_node_0_ip>:8000"' "$work/outputs/$A/plan.json" ||
	fail "plan.json lacks the frontend URL"
run 0 "$SRTCTL" get runs --db "$DB"
! head -n 1 out | grep -q FRONTEND || fail "FRONTEND is a wide column: $(head -n 1 out)"
ad="$work/outputs/$A"
[[ $(frontend_column "$A") == pending ]] || fail "planned, not bound: $(cat out)"
head -n 1 out | grep -Eq 'EXIT_CODE +FRONTEND +RUN_DIR' || fail "wide header: $(head -n 1 out)"
[[ $(frontend_column "$A") == pending ]] || fail "planned, not bound: $(cat out)"
[[ $(frontend_column "$B") == "<none>" ]] || fail "no frontend: $(cat out)"
run 0 "$SRTCTL" get runs -o json --db "$DB"
pyjson 'a, b = runs["alpha"], runs["beta"]
assert a["frontend_url"] is None and a["frontend_url_planned"] == "http://<prefill_node_0_ip>:8000", a
assert b["frontend_url"] is None and b["frontend_url_planned"] is None, b'
run 0 "$SRTCTL" describe run "$A" --db "$DB"
grep -Eq "^Frontend URL: +pending \(http://<prefill_node_0_ip>:8000, once the agent has bound the allocation's IPs\)$" out ||
	fail "describe, pending: $(cat out)"

# The agent has started but not bound the IPs yet: still pending.
status 1 null
pass
[[ $(frontend_column "$A") == pending ]] || fail "status without a URL: $(cat out)"

# The agent bound it.
status 2 '"http://10.0.0.1:8000"'
pass
[[ $(frontend_column "$A") == http://10.0.0.1:8000 ]] || fail "bound URL: $(cat out) $(cat ctl.log)"
[[ $(frontend_column "$B") == "<none>" ]] || fail "no frontend after a pass: $(cat out)"
run 0 "$SRTCTL" get runs -o json --db "$DB"
pyjson 'assert runs["alpha"]["frontend_url"] == "http://10.0.0.1:8000", runs["alpha"]
assert runs["beta"]["frontend_url"] is None, runs["beta"]'
run 0 "$SRTCTL" get run "$A" -o yaml --db "$DB"
grep -q 'frontend_url: "\{0,1\}http://10.0.0.1:8000' out || fail "yaml: $(cat out)"
run 0 "$SRTCTL" describe run "$A" --db "$DB"
grep -Eq '^Frontend URL: +http://10.0.0.1:8000$' out || fail "describe, bound: $(cat out)"
run 0 "$SRTCTL" describe run "$B" --db "$DB"
grep -Eq '^Frontend URL: +<none>$' out || fail "describe, no frontend: $(cat out)"

# A hostile status.json: a terminal escape in the URL.  Not stored, a Warning.
status 3 '"http://10.0.0.1:8000\u001b]0;pwned\u0007"'
pass
[[ $(frontend_column "$A") == pending ]] || fail "hostile URL stored: $(cat out)"
[[ $(q "SELECT count(*) FROM runs WHERE frontend_url IS NOT NULL") == 0 ]] || fail "hostile URL in the database"
run 0 "$SRTCTL" events --for "run/$A" --db "$DB"
grep -q "InvalidFrontendURL" out || fail "no InvalidFrontendURL event: $(cat out)"
grep -q 'which is not http://HOST:PORT' out || fail "event message: $(cat out)"
! grep -q $'\x1b' out || fail "the escape reached the terminal"

# Over the length bound (256 bytes).
long="http://$(printf 'h%.0s' $(seq 1 300)):8000"
status 4 "\"$long\""
pass
[[ $(q "SELECT count(*) FROM runs WHERE frontend_url IS NOT NULL") == 0 ]] || fail "long URL stored"

# The run ended before a URL was known: <none>, and describe says why.
q "UPDATE runs SET phase = 'Failed' WHERE name = '$A'"
[[ $(frontend_column "$A") == "<none>" ]] || fail "ended run: $(cat out)"
run 0 "$SRTCTL" describe run "$A" --db "$DB"
grep -Eq '^Frontend URL: +<none> \(the run ended before its agent reported it\)$' out ||
	fail "describe, ended: $(cat out)"
echo "ok"
