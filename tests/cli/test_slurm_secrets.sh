#!/bin/bash
# tests/cli/test_slurm_secrets.sh: the password of a slurmrestd URL's
# user:password@ is never printed or stored (issue #12, item 10).
#
# `srtctl doctor` (text and json), the controller's log, and what the
# controller records (`srtctl events`, `get`, `describe`) show the URL with
# the password masked (user:***@); nothing listens at the URL, so every
# call fails and its message (which names the URL) is recorded too.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"
# shellcheck source=tests/cli/lib.sh
. "$SRT_SOURCE_DIR/tests/cli/lib.sh"
isolated_workdir
unset SLURM_JWT SRTCTL_SLURMRESTD_URL

SECRET=s3cr3tPa55
URL="http://ci:$SECRET@127.0.0.1:9" # nothing listens on the discard port
DB=$work/state.db

no_secret() { # no_secret WHAT FILE...
	local what=$1
	shift
	if grep -q "$SECRET" "$@"; then
		grep -n "$SECRET" "$@" >&2
		fail "$what shows the URL's password"
	fi
}

run 1 "$SRTCTL" doctor --url "$URL"
no_secret "doctor" out err
grep -q 'http://ci:\*\*\*@127.0.0.1:9 (from --url)' out || fail "doctor does not show the masked URL: $(cat out)"
grep -q 'slurmrestd at http://ci:\*\*\*@127.0.0.1:9' err || fail "doctor's error lacks the masked URL: $(cat err)"

run 1 "$SRTCTL" doctor --url "$URL" -o json
no_secret "doctor -o json" out err
python3 - out <<'PY' || fail "doctor -o json: url is not masked: $(cat out)"
import json, sys
o = json.load(open(sys.argv[1]))
assert o["url"] == "http://ci:***@127.0.0.1:9", o["url"]
assert "ci:***@" in o["error"], o["error"]
PY

# The same from the environment, and a URL doctor refuses (it is quoted).
SRTCTL_SLURMRESTD_URL="http://ci:$SECRET@127.0.0.1:9/a b" run 1 "$SRTCTL" doctor
no_secret "doctor (bad URL from the environment)" out err

apply_pd "$DB"
for _ in 1 2; do
	"$SRTCTL" controller --once --url "$URL" --db "$DB" >>ctl.log 2>&1 || true
done
no_secret "the controller's log" ctl.log
grep -q 'ci:\*\*\*@' ctl.log || fail "the controller's log lacks the masked URL: $(cat ctl.log)"
run 0 "$SRTCTL" events --db "$DB" -o json
no_secret "events" out
grep -q 'ci:\*\*\*@' out || fail "no event names the masked URL: $(cat out)"
run 0 "$SRTCTL" get runs --db "$DB" -o json
no_secret "get runs" out
RUN=$(sqlite3 "$DB" "SELECT name FROM runs LIMIT 1")
run 0 "$SRTCTL" describe "run/$RUN" --db "$DB"
no_secret "describe" out
no_secret "the database" "$DB"
echo "PASS"
