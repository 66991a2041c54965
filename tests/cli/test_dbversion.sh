#!/usr/bin/env bash
# tests/cli/test_dbversion.sh: a database whose PRAGMA user_version is outside
# 0..latest (negative, or from a newer srtctl) is refused by every verb that
# opens the store, reading or writing, with a message that names the database,
# the version found and the versions this srtctl knows; the file is unchanged
# (issue #12, item 2).
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"

# fail, run, isolated_workdir, apply_pd, fake_run_dir
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
isolated_workdir
DB="$work/state/srtctl.db"

apply_pd "$DB"
latest=$(sqlite3 "$DB" 'PRAGMA user_version')
[[ $latest -ge 1 ]] || fail "no schema version after apply: '$latest'"

for bad in -1 -2147483648 $((latest + 1)) 2147483647; do
	sqlite3 "$DB" "PRAGMA user_version = $bad"
	before=$(sha256sum "$DB")
	for verb in "get recipes" "get runs" "describe recipe alpha" "events" "events prune" \
		"delete recipe alpha" "apply -f r.yaml" "diff -f r.yaml" \
		"wait recipe/alpha --for=done --timeout 1s" \
		"controller --once --url http://127.0.0.1:9"; do
		rc=0
		# shellcheck disable=SC2086  # verb is a word list
		"$SRTCTL" $verb --db "$DB" >out 2>err || rc=$?
		# Refused (1, or 2 where the verb reports it so), never a crash.
		[[ $rc -eq 1 || $rc -eq 2 ]] || fail "$verb with user_version $bad exited $rc: $(cat err)"
		if [[ $bad -lt 0 ]]; then
			grep -qF "database $DB has schema version $bad, which no srtctl writes (this srtctl knows schemas 0 to $latest)" err ||
				fail "$verb with user_version $bad: $(cat err)"
		else
			grep -qF "database $DB was written by a newer srtctl (schema $bad, this srtctl knows $latest)" err ||
				fail "$verb with user_version $bad: $(cat err)"
		fi
		[[ $(sha256sum "$DB") == "$before" ]] || fail "$verb changed the database"
	done
done
echo "test_dbversion: ok"
