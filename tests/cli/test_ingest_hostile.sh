#!/usr/bin/env bash
# tests/cli/test_ingest_hostile.sh: the controller ingests a forged
# events.jsonl safely (issue #12, item 11).  A time of INT64_MIN is recorded
# at the ingest time; a 60 KB message is cut to 8 KiB with a marker (a line
# over 64 KiB is refused whole: tests/cli/test_ingest_files.sh); a reason,
# kind or name out of bounds becomes an AgentEventRefused Warning; a seq of
# INT64_MAX is refused and does not move the cursor, so the following events
# are still ingested; a small gap is an AgentEventsMissing Warning.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"

# fail, run, isolated_workdir, apply_pd, fake_run_dir
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
isolated_workdir
DB="$work/state/srtctl.db"
URL=http://127.0.0.1:9 # nothing listens on the discard port

apply_pd "$DB"
# As if the job had started: the run has a directory its agent writes.
fake_run_dir "$DB" "$URL"

python3 - "$dir/events.jsonl" <<'PY'
import json, sys
ev = lambda seq, **kw: json.dumps(dict({"seq": seq, "time": 1700000000000, "type": "Normal",
    "reason": "Started", "object": {"kind": "run"}, "message": "m%d" % seq}, **kw)) + "\n"
with open(sys.argv[1], "w") as f:
    f.write(ev(1, time=-9223372036854775808, reason="MinTime"))
    f.write(ev(2, reason="Huge", message="x" * 60000))
    f.write(ev(3, reason="Bad\nReason"))
    f.write(ev(4, reason="R" * 65))
    f.write(ev(5, object={"kind": "service", "name": "a\x01b"}))
    f.write(ev(6, object={"kind": "Service!", "name": "a"}))
    f.write(ev(9223372036854775807, reason="Forged"))
    f.write(ev(7, reason="AfterForged"))
    f.write(ev(10, reason="AfterGap"))
PY
"$SRTCTL" controller --once --url "$URL" --db "$DB" >ctl.log 2>&1 || true
cursor=$(sqlite3 "$DB" "SELECT last_seq FROM ingest_cursors")
[[ $cursor == 10 ]] || fail "ingest cursor is '$cursor', want 10: $(cat ctl.log)"
q() { sqlite3 "$DB" "$1"; }
now=$(($(date +%s) * 1000))
t=$(q "SELECT first_at FROM events WHERE reason = 'MinTime'")
[[ -n $t && $t -gt $((now - 3600000)) && $t -le $((now + 3600000)) ]] ||
	fail "INT64_MIN time stored as '$t', want the ingest time"
len=$(q "SELECT length(message) FROM events WHERE reason = 'Huge'")
[[ -n $len && $len -lt 9000 ]] || fail "60 KB message stored with length '$len'"
q "SELECT message FROM events WHERE reason = 'Huge'" |
	grep -q "\[truncated by srtctl: 60000 bytes in all\]$" || fail "no truncation marker"
[[ $(q "SELECT count(*) FROM events WHERE source = 'agent' AND reason NOT IN ('MinTime', 'Huge', 'AfterForged', 'AfterGap')") == 0 ]] ||
	fail "a malformed event was stored: $(q "SELECT reason, kind, name FROM events WHERE source = 'agent'")"
for s in 3 4 5 6; do
	q "SELECT message FROM events WHERE reason = 'AgentEventRefused'" |
		grep -q "the event with seq $s is refused" || fail "no AgentEventRefused for seq $s"
done
q "SELECT message FROM events WHERE reason = 'AgentEventRefused'" |
	grep -q "seq 9223372036854775807 is more than 1000 beyond the next expected seq 7" ||
	fail "the forged seq was not refused: $(q "SELECT reason, message FROM events")"
[[ $(q "SELECT count(*) FROM events WHERE reason IN ('AfterForged', 'AfterGap')") == 2 ]] ||
	fail "events after the forged seq were not ingested"
q "SELECT message FROM events WHERE reason = 'AgentEventsMissing'" |
	grep -q "events.jsonl lacks seq 8 to 9; going on at 10" || fail "no gap warning"
# `srtctl events` shows them without trouble.
run 0 "$SRTCTL" events --db "$DB"
grep -q AgentEventRefused out || fail "events does not list the refusal"
echo "test_ingest_hostile: ok"
