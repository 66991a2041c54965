#!/usr/bin/env bash
# tests/cli/test_ingest_files.sh: the controller reads a run directory's
# files with bounds (issue #12, item 3).  status.json and events.jsonl as a
# symbolic link to /dev/zero or as a FIFO, a 100 MB events.jsonl, a status.json
# over 4 MiB and an event line over 64 KiB followed by good lines: each time
# the pass finishes, another run's events are still ingested, and a
# RunDirUnreadable Warning on the run names the file and the limit.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"

work=$(mktemp -d)
CTL=
cleanup() {
	[[ -n $CTL ]] && kill "$CTL" 2>/dev/null && wait "$CTL" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
export SRTSLURM_CONFIG=
export XDG_STATE_HOME="$work/xdg"
unset SRTCTL_DB SRTCTL_WATCH_TIMEOUT SRTCTL_EVENT_RETENTION
DB="$work/state/srtctl.db"
URL=http://127.0.0.1:9 # nothing listens on the discard port

# fail, run
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
q() { sqlite3 "$DB" "$1"; }

for n in alpha beta; do
	cat >"$n.yaml" <<YAML
name: $n
engine: sglang
roles:
  prefill: {}
  decode: {}
YAML
	run 0 "$SRTCTL" apply -f "$n.yaml" --db "$DB"
done
"$SRTCTL" controller --once --url "$URL" --db "$DB" >ctl.log 2>&1 || true
A=$(q "SELECT name FROM runs WHERE name LIKE 'alpha-%'")
B=$(q "SELECT name FROM runs WHERE name LIKE 'beta-%'")
[[ -n $A && -n $B ]] || fail "no runs after a controller pass: $(cat ctl.log)"
# As if the jobs had started: each run has a directory its agent writes.
for r in "$A" "$B"; do
	rm -rf "$work/outputs/$r"
	mkdir -p "$work/outputs/$r"
	q "UPDATE runs SET run_dir = '$work/outputs/$r' WHERE name = '$r'"
done
ad="$work/outputs/$A"
bd="$work/outputs/$B"

ev() { # seq reason
	printf '{"seq":%d,"time":1700000000000,"type":"Normal","reason":"%s","object":{"kind":"run"},"message":"m"}\n' "$1" "$2"
}
bseq=0
# One controller pass (bounded in time: a FIFO must not block it); beta gets a
# new event first, which the pass must ingest.
pass() {
	bseq=$((bseq + 1))
	ev "$bseq" "Beta$bseq" >>"$bd/events.jsonl"
	rc=0
	timeout 120 "$SRTCTL" controller --once --url "$URL" --db "$DB" >ctl.log 2>&1 || rc=$?
	[[ $rc -ne 124 ]] || fail "$1: the controller pass did not finish"
	[[ $(q "SELECT count(*) FROM events WHERE reason = 'Beta$bseq'") == 1 ]] ||
		fail "$1: the other run's event was not ingested: $(cat ctl.log)"
}
warned() { # case text
	q "SELECT message FROM events WHERE reason = 'RunDirUnreadable' AND type = 'Warning' AND name = '$A'" |
		grep -qF -- "$2" ||
		fail "$1: no RunDirUnreadable Warning with '$2': $(q "SELECT reason, message FROM events WHERE name = '$A'")"
}

# Symbolic links to /dev/zero.
ln -s /dev/zero "$ad/events.jsonl"
ln -s /dev/zero "$ad/status.json"
pass "link to /dev/zero"
warned "link" "$ad/events.jsonl' is a symbolic link"
warned "link" "$ad/status.json' is a symbolic link"

# FIFOs (no writer: a blocking open would hang the pass).
rm -f "$ad/events.jsonl" "$ad/status.json"
mkfifo "$ad/events.jsonl" "$ad/status.json"
pass "FIFO"
warned "FIFO" "$ad/events.jsonl' is a FIFO"
warned "FIFO" "$ad/status.json' is a FIFO"

# A status.json over 4 MiB.
rm -f "$ad/events.jsonl" "$ad/status.json"
head -c $((5 * 1024 * 1024)) /dev/zero | tr '\0' ' ' >"$ad/status.json"
pass "large status.json"
warned "large status.json" "$ad/status.json' is larger than 4096 KiB"
rm -f "$ad/status.json"

# An over-long line followed by good lines.
{
	ev 1 Good1
	printf '{"seq":2,"reason":"Long","object":{"kind":"run"},"message":"%s"}\n' "$(head -c 70000 /dev/zero | tr '\0' x)"
	ev 3 Good3
	ev 4 Good4
} >"$ad/events.jsonl"
pass "over-long line"
warned "over-long line" "$ad/events.jsonl: 1 line longer than 64 KiB (the limit for one event), the first at byte"
for r in Good1 Good3 Good4; do
	[[ $(q "SELECT count(*) FROM events WHERE reason = '$r'") == 1 ]] || fail "$r after the long line was not ingested"
done
[[ $(q "SELECT count(*) FROM events WHERE reason = 'Long'") == 0 ]] || fail "the long line was ingested"

# A 100 MB events.jsonl: good event 5, 100 MB of junk lines, good event 6.
python3 - "$ad/events.jsonl" <<'PY'
import sys
with open(sys.argv[1], "a") as f:
    f.write('{"seq":5,"time":1700000000000,"type":"Normal","reason":"Head5","object":{"kind":"run"}}\n')
    line = "j" * 1023 + "\n"
    f.write(line * (100 * 1024))
    f.write('{"seq":6,"time":1700000000000,"type":"Normal","reason":"Tail6","object":{"kind":"run"}}\n')
PY
pass "100 MB events.jsonl"
warned "100 MB" "$ad/events.jsonl: read 16 MiB this pass, the most the controller reads of one run per pass"
[[ $(q "SELECT count(*) FROM events WHERE reason = 'Head5'") == 1 ]] || fail "the event before the junk was not ingested"
[[ $(q "SELECT count(*) FROM events WHERE reason = 'Tail6'") == 0 ]] || fail "one pass read all 100 MB"
# A running controller goes on from where each pass stopped (16 MiB a pass).
"$SRTCTL" controller --url "$URL" --db "$DB" --interval 100ms >ctl-loop.log 2>&1 &
CTL=$!
for _ in $(seq 1 600); do
	[[ $(q "SELECT count(*) FROM events WHERE reason = 'Tail6'") == 1 ]] && break
	sleep 0.2
done
kill "$CTL"
wait "$CTL" 2>/dev/null || true
CTL=
[[ $(q "SELECT count(*) FROM events WHERE reason = 'Tail6'") == 1 ]] ||
	fail "the event after 100 MB was never ingested: $(tail -5 ctl-loop.log)"
echo "test_ingest_files: ok"
