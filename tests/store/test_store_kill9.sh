#!/usr/bin/env bash
# tests/store/test_store_kill9.sh: crash safety.  A process that applies
# changing recipes (pairs of recipes in one transaction, deletions, runs with
# their services, batches of events) is killed with SIGKILL at a random
# moment, 200 times.  After each kill `store_driver check` opens the database
# and requires PRAGMA integrity_check to be ok and every transaction to be
# wholly there or wholly absent: both recipes of a pair at the same
# generation, one RecipeConfigured event per generation, three services and
# one condition per run, events in whole batches.  Every 25th round starts
# from no database, so kills also land in the middle of creating it and
# applying the migrations (a database is then at schema 0 and empty, or
# complete).
set -euo pipefail

driver=${STORE_DRIVER:?set STORE_DRIVER to the store_driver binary}
kills=${STORE_TEST_KILLS:-200}
deadline=$((SECONDS + 240))

tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

db=$tmp/srtctl.db
killed=0
early=0 # kills before the schema was complete
for round in $(seq 1 "$kills"); do
	if [ $SECONDS -ge $deadline ]; then
		echo "FAIL: only $killed kills before the time limit" >&2
		exit 1
	fi
	if [ $((round % 25)) -eq 1 ]; then
		rm -f "$db" "$db-wal" "$db-shm"
		delay_ms=$((RANDOM % 15)) # inside open and migration
	else
		delay_ms=$((RANDOM % 120))
	fi
	# The driver stops by itself after 20 s, so nothing outlives the test.
	"$driver" apply-forever "$db" "$round" 20000 2>"$tmp/err" &
	pid=$!
	sleep "$(printf '0.%03d' "$delay_ms")"
	if ! kill -9 "$pid" 2>/dev/null; then
		echo "FAIL: round $round: the driver exited before it was killed:" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	rc=0
	{ wait "$pid"; } 2>/dev/null || rc=$?
	pid=
	if [ $rc -ne 137 ]; then
		echo "FAIL: round $round: driver exit status $rc, expected 137 (SIGKILL)" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	killed=$((killed + 1))
	if ! out=$("$driver" check "$db" 2>&1); then
		echo "FAIL: round $round (killed after ${delay_ms} ms):" >&2
		echo "$out" >&2
		exit 1
	fi
	case $out in "ok: no database yet" | "ok: version 0"*) early=$((early + 1)) ;; esac
	if [ $((round % 20)) -eq 0 ]; then echo "round $round: $out"; fi
done
echo "PASS: $killed kills ($early before the schema was complete), database consistent after each"
