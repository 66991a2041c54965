#!/usr/bin/env bash
# tests/store/test_store_concurrent.sh: four processes apply recipes in a loop
# while a fifth writes events, all against one new database (so they also
# race to create and migrate it).  No process may see SQLITE_BUSY or any
# other error, and the final counts must be exact: every recipe's generation,
# every RecipeConfigured event, every Tick, and one deduplicated Ping row
# whose count is the number of Pings written by all five.
set -euo pipefail

driver=${STORE_DRIVER:?set STORE_DRIVER to the store_driver binary}
writers=4
applies=${STORE_TEST_APPLIES:-2000}
ticks=${STORE_TEST_TICKS:-6000}
deadline=$((SECONDS + 240))

tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

db=$tmp/state/srtctl.db
for id in $(seq 1 $writers); do
	"$driver" apply-loop "$db" "$id" "$applies" 2>"$tmp/err.$id" &
	pids+=($!)
done
"$driver" event-loop "$db" "$ticks" 2>"$tmp/err.events" &
pids+=($!)

# Wait for each by PID, bounded in time: kill what is still running after the deadline.
fail=0
for p in "${pids[@]}"; do
	while kill -0 "$p" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
	if kill -0 "$p" 2>/dev/null; then
		echo "FAIL: process $p still running after the deadline" >&2
		kill -9 "$p" 2>/dev/null || true
		fail=1
	fi
	if ! wait "$p"; then
		echo "FAIL: process $p exited with an error" >&2
		fail=1
	fi
done
pids=()
if cat "$tmp"/err.* | grep -q .; then
	echo "FAIL: a process reported an error:" >&2
	cat "$tmp"/err.* >&2
	fail=1
fi
if grep -qiE 'busy|locked' "$tmp"/err.*; then
	echo "FAIL: SQLITE_BUSY reached a caller" >&2
	fail=1
fi
"$driver" verify-concurrent "$db" "$writers" "$applies" "$ticks" || fail=1
[ $fail -eq 0 ] && echo "PASS: concurrent writers"
exit $fail
