#!/usr/bin/env bash
# tests/cli/test_rollout_condition.sh: a generation the agent could not make
# ready and rolled back (status.json "conditions": RolloutFailed) becomes a
# condition of the run that `describe run` shows; once the agent no longer
# reports it (a newer generation rolled out), the condition turns False.
# Values from the run directory (a process's message, its last probe) reach
# `describe` with their control characters made spaces (issue #12, item 10).
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"

# fail, run, isolated_workdir, fake_run_dir
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
isolated_workdir
DB="$work/state/srtctl.db"
URL=http://127.0.0.1:9 # nothing listens on the discard port

cat >r.yaml <<YAML
name: alpha
engine: sglang
roles:
  agg: {}
YAML
run 0 "$SRTCTL" apply -f r.yaml --db "$DB"
# As if the job had started: the run has a directory its agent writes.
fake_run_dir "$DB" "$URL"

# The agent rolled generation 2 back to 1.
cat >"$dir/status.json" <<'JSON'
{"version":1,"seq":3,"phase":"Ready","plan_generation":1,"processes":[],
 "conditions":[{"type":"RolloutFailed","status":"True","reason":"RolledBack","generation":2,
 "rolled_back_to":1,"message":"mooncake-master exited before it was ready (exit status 1)",
 "since":1700000000000}]}
JSON
"$SRTCTL" controller --once --url "$URL" --db "$DB" >ctl.log 2>&1 || true
run 0 "$SRTCTL" describe run "$RUN" --db "$DB"
grep -E 'RolloutFailed +True +RolledBack +2 ' out >/dev/null ||
	fail "describe run shows no RolloutFailed condition: $(cat out)"
grep -q 'generation 2 could not become ready; running generation 1: mooncake-master exited before it was ready (exit status 1)' out ||
	fail "the condition's message does not say what happened: $(cat out)"

# Values from the run directory never reach the terminal raw: escape
# sequences in a process's message and last probe become spaces.
cat >"$dir/status.json" <<'JSON'
{"version":1,"seq":5,"phase":"Ready","plan_generation":1,"processes":[
 {"name":"mooncake-master","kind":"service","state":"Ready","restarts":0,
  "last_probe":"tcp \u001b]0;owned\u0007 8700","message":"\u001b[2J\u001b[31mRED\r"}],
 "conditions":[{"type":"RolloutFailed","status":"True","reason":"RolledBack","generation":2,
 "rolled_back_to":1,"message":"mooncake-master exited before it was ready (exit status 1)",
 "since":1700000000000}]}
JSON
"$SRTCTL" controller --once --url "$URL" --db "$DB" >ctl.log 2>&1 || true
run 0 "$SRTCTL" describe service mooncake-master --run "$RUN" --db "$DB"
grep -q 'RED' out || fail "describe service does not show the service's message: $(cat out)"
if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" out; then
	fail "describe service printed control characters: $(od -c out | head -20)"
fi
run 0 "$SRTCTL" describe run "$RUN" --db "$DB"
if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" out; then
	fail "describe run printed control characters: $(od -c out | head -20)"
fi

# Generation 3 rolled out: the agent reports no condition any more.
cat >"$dir/status.json" <<'JSON'
{"version":1,"seq":4,"phase":"Ready","plan_generation":3,"processes":[]}
JSON
"$SRTCTL" controller --once --url "$URL" --db "$DB" >ctl.log 2>&1 || true
run 0 "$SRTCTL" describe run "$RUN" --db "$DB"
grep -E 'RolloutFailed +False +RolledOut +3 ' out >/dev/null ||
	fail "the RolloutFailed condition did not turn False: $(cat out)"
echo "test_rollout_condition: ok"
