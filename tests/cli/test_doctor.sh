#!/bin/bash
# tests/cli/test_doctor.sh: `srtctl doctor`, one line per check.
#
# The cluster config, the database (missing, sound, not a database), the
# controller (none, then one running with its last pass), slurmrestd
# (unreachable on loopback), the token's expiry (none, near, expired,
# hostile), the log root (missing, not writable by the job user, writable),
# and -o json carrying the same checks.  Exit 1 whenever a check FAILs.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
# shellcheck source=tests/cli/lib.sh
source "$(dirname "$0")/lib.sh"
isolated_workdir
URL=http://127.0.0.1:9 # the discard port: nothing answers
CTL=
trap '[ -n "$CTL" ] && kill "$CTL" 2>/dev/null; rm -rf "$work"' EXIT

line() { # CHECK: the line of that check in ./out
	grep -E "^(OK|WARN|FAIL) +$1 " out || fail "no '$1' line: $(cat out)"
}
want() { # CHECK REGEX
	line "$1" | grep -Eq -- "$2" || fail "the $1 line is not /$2/: $(line "$1")"
}
jwt() { # EXP: a token whose payload is {"exp": EXP, "sun": "nobody"} (unsigned)
	printf 'eyJhbGciOiJIUzI1NiJ9.%s.c2ln' \
		"$(printf '{"exp":%s,"sun":"nobody"}' "$1" | base64 -w0 | tr '+/' '-_' | tr -d =)"
}

# Nothing here yet: WARNs, and the unreachable slurmrestd FAILs.
run 1 "$SRTCTL" doctor --url "$URL"
want "cluster config" '^WARN .*built-in defaults.*to fix: .*SRTSLURM_CONFIG'
want database "^WARN .*$work/xdg/srtctl/srtctl.db: none yet; to fix: .srtctl apply"
want controller '^WARN .*none running for this database; to fix: start one'
want slurmrestd '^FAIL .*http://127.0.0.1:9 \(from --url\): NOT usable \(UNREACHABLE\); to fix: start slurmrestd'
want token '^OK .*none \(no auth headers are sent\)$'
want "log root" "^WARN .*$work/outputs: does not exist yet; to fix: create it"
[ "$(grep -cE '^(OK|WARN|FAIL) ' out)" -eq 6 ] || fail "not six check lines: $(cat out)"

# A database and a running controller: its pid and its last pass.
DB=$work/state.db
apply_pd "$DB"
mkdir -p outputs
"$SRTCTL" controller --db "$DB" --url "$URL" --interval 200ms >ctl.log 2>&1 &
CTL=$!
for _ in $(seq 1 300); do grep -q 'srtctl controller: database' ctl.log && break; sleep 0.1; done
sleep 0.5 # a pass or two
run 1 "$SRTCTL" doctor --url "$URL" --db "$DB"
want database "^OK .*$DB: schema [0-9]+ \(current\), [0-9.]+ KiB, quick_check ok$"
want controller "^OK .*running \(pid and host: $CTL [^)]*\), last pass [0-9]+(ms|s) ago$"
want "log root" "^OK .*$work/outputs: writable by $(id -un)$"
kill -TERM "$CTL"
wait "$CTL" || true
CTL=
run 1 "$SRTCTL" doctor --url "$URL" --db "$DB"
want controller '^WARN .*none running'

# -o json: the same checks, by name.
run 1 "$SRTCTL" doctor --url "$URL" --db "$DB" -o json
python3 - out <<'PY' || fail "doctor -o json: $(cat out)"
import json, sys
o = json.load(open(sys.argv[1]))
c = {x["check"]: x for x in o["checks"]}
assert list(c) == ["cluster config", "database", "controller", "slurmrestd", "token", "log root"], list(c)
assert c["database"]["status"] == "OK" and c["database"]["fix"] is None, c["database"]
assert c["slurmrestd"]["status"] == "FAIL" and "start slurmrestd" in c["slurmrestd"]["fix"]
assert o["usable"] is False and o["result"] == "UNREACHABLE", o
PY

# Not a database.
printf 'this is not an SQLite database, not at all.........................' >bad.db
run 1 "$SRTCTL" doctor --url "$URL" --db "$work/bad.db"
want database '^FAIL .*bad.db.*; to fix: check the path'

# The token: expires within a day (WARN), expired (FAIL), not a JWT (no claim, no crash).
now=$(date +%s)
SLURM_JWT=$(jwt $((now + 3600))) run 1 "$SRTCTL" doctor --url "$URL" --db "$DB"
want token '^WARN .*from \$SLURM_JWT, user nobody, expires in (59|60)m; to fix: renew it'
SLURM_JWT=$(jwt $((now + 30 * 86400))) run 1 "$SRTCTL" doctor --url "$URL" --db "$DB"
want token '^OK .*expires in 29d|^OK .*expires in 30d'
SLURM_JWT=$(jwt $((now - 7200))) run 1 "$SRTCTL" doctor --url "$URL" --db "$DB"
want token '^FAIL .*EXPIRED 2h ago; to fix: get a new token'
SLURM_JWT="a.$(head -c 3000 /dev/zero | tr '\0' 'A').b" run 1 "$SRTCTL" doctor --url "$URL" --db "$DB"
want token '^OK .*no exp claim'

# The log root as the job user (slurmrestd.user) sees it, by its mode bits.
mkdir -m 0755 shared
JOBU=nobody
[ "$(id -un)" != nobody ] || JOBU=daemon # another user than this one
cat >srtslurm.yaml <<YAML
runtime:
  log_root: $work/shared
slurmrestd:
  url: $URL
  user: $JOBU
YAML
export SRTSLURM_CONFIG=$work/srtslurm.yaml
run 1 "$SRTCTL" doctor --db "$DB"
want "cluster config" "^OK .*$work/srtslurm.yaml$"
if [ "$(id -u)" -eq 0 ]; then
	# A root controller hands each run directory to slurmrestd.user.
	want "log root" "^OK .*$work/shared: writable by root, which gives each run directory to job user nobody$"
else
	want "log root" "^FAIL .*$work/shared: NOT writable by job user $JOBU \(mode 755\); to fix: make it writable by $JOBU"
	chmod 1777 shared
	run 1 "$SRTCTL" doctor --db "$DB"
	want "log root" "^OK .*$work/shared: writable by job user $JOBU \(mode 777\)$"
fi
# Not writable by this user (a read-only directory; root passes any mode check).
if [ "$(id -u)" -ne 0 ]; then
	sed -i "/user: $JOBU/d" srtslurm.yaml
	chmod 0555 shared
	run 1 "$SRTCTL" doctor --db "$DB"
	want "log root" "^FAIL .*$work/shared: NOT writable by $(id -un); to fix"
	chmod 0755 shared
fi

echo "test_doctor: ok"
