#!/bin/bash
# tests/cli/test_controller.sh: `srtctl controller` without a SLURM to talk to.
#
# One controller per database (a second exits 1 naming the first); SIGTERM
# stops it cleanly between passes; and "unknown is never dead": with
# slurmrestd unreachable, a new recipe gets its run row (intent) but no job,
# the submission is recorded as unconfirmed, later passes record
# SlurmUnavailable and never fail or resubmit the run.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"
TMP=$(mktemp -d)
CTL=
cleanup() {
	[ -n "$CTL" ] && kill "$CTL" 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT
cd "$TMP"
export SRTSLURM_CONFIG=
DB=$TMP/state.db
URL=http://127.0.0.1:9 # nothing listens on the discard port
fails=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# The lock.
"$SRTCTL" controller --db "$DB" --url "$URL" --interval 200ms >ctl1.log 2>&1 &
CTL=$!
# The second controller must start only once the first holds the lock: wait
# for its start line (bounded), and say so if it never came.
for _ in $(seq 1 600); do grep -q 'srtctl controller: database' ctl1.log && break; sleep 0.1; done
grep -q 'srtctl controller: database' ctl1.log ||
	fail "the first controller did not start within 60 s: $(cat ctl1.log)"
rc=0
"$SRTCTL" controller --db "$DB" --url "$URL" --once >ctl2.log 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "a second controller exited $rc, want 1"
grep -q "another controller already manages database $DB (pid and host: $CTL " ctl2.log ||
	fail "the second controller does not name the first: $(cat ctl2.log)"
kill -TERM "$CTL"
rc=0
wait "$CTL" || rc=$?
CTL=
[ "$rc" -eq 0 ] || fail "SIGTERM: the controller exited $rc, want 0"
grep -q 'srtctl controller: stopped' ctl1.log || fail "no clean stop line after SIGTERM"

# Unknown is never dead.
cp "$SRT_SOURCE_DIR/examples/sglang-mooncake.yaml" r.yaml
"$SRTCTL" apply -f r.yaml --db "$DB" >/dev/null 2>&1
for _ in 1 2 3; do "$SRTCTL" controller --db "$DB" --url "$URL" --once >>ctl3.log 2>&1; done
"$SRTCTL" get runs -o json --db "$DB" >runs.json
python3 - runs.json <<'PY' || fail "the run is not Pending without a job after unreachable passes"
import json, sys
items = json.load(open(sys.argv[1]))["items"]
assert len(items) == 1, items
r = items[0]
assert r["phase"] == "Pending" and r["slurm_job_id"] is None and r["attempt"] == 1, r
assert r["job_comment"].startswith("srtctl:") and r["job_comment"].endswith(":1"), r
PY
"$SRTCTL" events --for run/sglang-mooncake-1-1 -o json --db "$DB" >ev.json
python3 - ev.json <<'PY' || fail "missing RunCreated / SubmitUnknown / SlurmUnavailable events"
import json, sys
items = json.load(open(sys.argv[1]))["items"]
reasons = {i["reason"]: i for i in items}
assert "RunCreated" in reasons and "SubmitUnknown" in reasons, list(reasons)
assert reasons["SubmitUnknown"]["type"] == "Warning"
u = reasons.get("SlurmUnavailable")
assert u and u["type"] == "Warning" and u["count"] >= 2, u   # deduplicated, counted
assert "nothing is resubmitted" in u["message"], u["message"]
assert not any(i["reason"] in ("PhaseFailed", "JobSubmitted") for i in items), list(reasons)
PY

if [ "$fails" -ne 0 ]; then
	echo "test_controller: $fails failure(s)" >&2
	exit 1
fi
echo "test_controller: ok"
