#!/usr/bin/env bash
# tests/cli/test_events.sh: `srtctl events` and `srtctl events prune`.
#
# apply writes RecipeCreated / RecipeConfigured events in its transaction;
# --for, --since, --type, --reason and --limit filter them; -o json has the
# documented fields (parsed with python3); bad arguments are usage errors
# (exit 2); prune honours --older-than, $SRTCTL_EVENT_RETENTION and the
# 30-day default; --watch prints a new event after another apply.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"

work=$(mktemp -d)
watcher=
cleanup() {
	if [[ -n $watcher ]]; then kill "$watcher" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
export SRTSLURM_CONFIG=
export XDG_STATE_HOME="$work/xdg"
unset SRTCTL_DB SRTCTL_WATCH_TIMEOUT SRTCTL_EVENT_RETENTION
DB="$work/state/srtctl.db"

# fail, run
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"


pyjson() {
	python3 -c "import json, re, sys
doc = json.load(open('out'))
items = doc['items']
reasons = [(i['reason'], i['object']['kind'] + '/' + i['object']['name']) for i in items]
RFC3339 = re.compile(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')
$1" || fail "json check failed: $1"$'\n'"$(cat out)"
}

recipe() {
	cat >"$1" <<YAML
name: $2
engine: sglang
roles:
  prefill:
    env: {MOONCAKE_PROTOCOL: $3}
    args: {disaggregation-transfer-backend: mooncake}
  decode:
    env: {MOONCAKE_PROTOCOL: $3}
    args: {disaggregation-transfer-backend: mooncake}
services:
  - name: mooncake-master
    type: mooncake-master
YAML
}

run 0 "$SRTCTL" events --help
grep -q '^usage: srtctl events' out || fail "events --help"
grep -q 'srtctl events prune' out || fail "events --help lacks prune"

# No database: nothing, exit 0, nothing created.
run 0 "$SRTCTL" events --db "$DB"
run 0 "$SRTCTL" events -o json --db "$DB"
pyjson 'assert items == []'
run 0 "$SRTCTL" events prune --db "$DB"
[[ ! -e $DB ]] || fail "events created the database"

# Usage errors (exit 2).
run 2 "$SRTCTL" events --since yesterday --db "$DB"
grep -q "not 'yesterday'" err || fail "bad --since: $(cat err)"
run 2 "$SRTCTL" events --type Fatal --db "$DB"
grep -q "unknown event type 'Fatal'" err || fail "bad --type: $(cat err)"
run 2 "$SRTCTL" events --for alpha --db "$DB"
run 2 "$SRTCTL" events --for pod/alpha --db "$DB"
run 2 "$SRTCTL" events --limit 0 --db "$DB"
run 2 "$SRTCTL" events --limit ten --db "$DB"
run 2 "$SRTCTL" events -o xml --db "$DB"
run 2 "$SRTCTL" events prune --older-than forever --db "$DB"
SRTCTL_EVENT_RETENTION=bogus run 2 "$SRTCTL" events prune --db "$DB"
grep -q 'SRTCTL_EVENT_RETENTION' err || fail "bad retention env: $(cat err)"

# apply writes the events.
recipe alpha.yaml alpha rdma
recipe alpha2.yaml alpha tcp
recipe beta.yaml beta rdma
run 0 "$SRTCTL" apply -f alpha.yaml --db "$DB"
run 0 "$SRTCTL" apply -f alpha.yaml --db "$DB" # unchanged: no event
run 0 "$SRTCTL" apply -f beta.yaml --db "$DB"
run 0 "$SRTCTL" apply -f alpha2.yaml --db "$DB"

run 0 "$SRTCTL" events -o json --db "$DB"
pyjson '
assert reasons == [("RecipeCreated", "recipe/alpha"), ("RecipeCreated", "recipe/beta"),
                   ("RecipeConfigured", "recipe/alpha")], reasons
for i in items:
    assert set(i) == {"type", "reason", "object", "message", "count", "first_timestamp",
                      "last_timestamp", "source"}, sorted(i)
    assert i["type"] == "Normal" and i["count"] == 1 and i["source"] == "cli"
    assert RFC3339.match(i["first_timestamp"]) and RFC3339.match(i["last_timestamp"])
assert "generation 2" in items[2]["message"], items[2]["message"]'

run 0 "$SRTCTL" events --for recipe/alpha -o json --db "$DB"
pyjson 'assert reasons == [("RecipeCreated", "recipe/alpha"), ("RecipeConfigured", "recipe/alpha")], reasons'
run 0 "$SRTCTL" events --for recipes/beta -o json --db "$DB"
pyjson 'assert reasons == [("RecipeCreated", "recipe/beta")], reasons'
run 0 "$SRTCTL" events --for run/alpha -o json --db "$DB"
pyjson 'assert items == []'
run 0 "$SRTCTL" events --reason RecipeConfigured -o json --db "$DB"
pyjson 'assert reasons == [("RecipeConfigured", "recipe/alpha")], reasons'
run 0 "$SRTCTL" events --type warning -o json --db "$DB"
pyjson 'assert items == []'
run 0 "$SRTCTL" events --limit 1 -o json --db "$DB"
pyjson 'assert reasons == [("RecipeConfigured", "recipe/alpha")], reasons'

# The table.
run 0 "$SRTCTL" events --db "$DB"
[[ $(sed -n 1p out) =~ ^LAST\ SEEN\ +TYPE\ +REASON\ +OBJECT\ +MESSAGE$ ]] || fail "header: $(sed -n 1p out)"
[[ $(sed -n 2p out) =~ ^[0-9]+s\ +Normal\ +RecipeCreated\ +recipe/alpha\ +Created\  ]] || fail "row: $(sed -n 2p out)"
[[ $(wc -l <out) == 4 ]] || fail "events table has $(wc -l <out) lines"
run 0 "$SRTCTL" events -o wide --db "$DB"
[[ $(sed -n 1p out) =~ ^LAST\ SEEN\ +TYPE\ +REASON\ +OBJECT\ +COUNT\ +FIRST\ SEEN\ +SOURCE\ +MESSAGE$ ]] ||
	fail "wide header: $(sed -n 1p out)"

# --since: events from two days ago (written as the controller would) are outside 1h.
python3 - "$DB" <<'PY'
import sqlite3, sys, time
now = int(time.time() * 1000)
old = now - 2 * 86400 * 1000
db = sqlite3.connect(sys.argv[1])
db.execute("""INSERT INTO events (type, reason, kind, name, message, count, first_at, last_at,
    source) VALUES ('Warning', 'JobFailed', 'run', 'alpha-1-1', 'job 7 failed', 3, ?, ?,
    'controller')""", (old - 60000, old))
db.execute("""INSERT INTO events (type, reason, kind, name, message, count, first_at, last_at,
    source) VALUES ('Normal', 'Ancient', 'run', 'alpha-1-1', 'from long ago', 1, ?, ?,
    'controller')""", (now - 40 * 86400 * 1000, now - 40 * 86400 * 1000))
db.commit()
PY
run 0 "$SRTCTL" events --since 1h -o json --db "$DB"
pyjson 'assert len(items) == 3 and all(r[0].startswith("Recipe") for r in reasons), reasons'
run 0 "$SRTCTL" events --since 3d --for run/alpha-1-1 -o json --db "$DB"
pyjson '
assert reasons == [("JobFailed", "run/alpha-1-1")], reasons
assert items[0]["type"] == "Warning" and items[0]["count"] == 3'
run 0 "$SRTCTL" events --type Warning --db "$DB"
[[ $(sed -n 2p out) =~ ^2d\ \(x3\ over\ 60s\)\ +Warning\ +JobFailed\ +run/alpha-1-1\ +job\ 7\ failed$ ]] ||
	fail "warning row: $(sed -n 2p out)"

# prune: the 30-day default removes only the 40-day-old event; then 1d removes the 2-day-old one.
run 0 "$SRTCTL" events prune --db "$DB"
[[ $(cat out) =~ ^pruned\ 1\ event\ last\ seen\ before\ [0-9T:.-]+Z$ ]] || fail "prune: $(cat out)"
SRTCTL_EVENT_RETENTION=3d run 0 "$SRTCTL" events prune --db "$DB"
[[ $(cat out) =~ ^pruned\ 0\ events ]] || fail "prune 3d: $(cat out)"
SRTCTL_EVENT_RETENTION=3d run 0 "$SRTCTL" events prune --older-than 1d --db "$DB"
[[ $(cat out) =~ ^pruned\ 1\ event\  ]] || fail "prune --older-than 1d: $(cat out)"
run 0 "$SRTCTL" events -o json --db "$DB"
pyjson 'assert len(items) == 3 and all(r[0].startswith("Recipe") for r in reasons), reasons'

# --watch prints the event of another apply (bounded by --watch-timeout).
"$SRTCTL" events --watch --watch-timeout 60s --for recipe/beta --db "$DB" >watch.out 2>watch.err &
watcher=$!
for _ in $(seq 100); do
	[[ $(grep -c 'RecipeCreated' watch.out || true) -ge 1 ]] && break
	sleep 0.1
done
recipe beta2.yaml beta tcp
run 0 "$SRTCTL" apply -f beta2.yaml --db "$DB"
run 0 "$SRTCTL" apply -f alpha.yaml --db "$DB" # another object: filtered out
for _ in $(seq 100); do
	grep -q 'RecipeConfigured' watch.out && break
	sleep 0.1
done
grep -Eq 'RecipeConfigured +recipe/beta' watch.out || fail "watch did not print the new event: $(cat watch.out)"
if grep -q 'recipe/alpha' watch.out; then fail "watch ignored --for"; fi
[[ $(grep -c 'RecipeCreated' watch.out) -eq 1 ]] || fail "watch repeated an old event"
kill -TERM "$watcher"
rc=0
wait "$watcher" || rc=$?
watcher=
[[ $rc -eq 0 ]] || fail "events --watch exited $rc on SIGTERM"

echo "ok: events"
