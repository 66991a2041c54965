#!/usr/bin/env bash
# tests/cli/test_get.sh: `srtctl get` and `srtctl describe` as a user runs them.
#
# A missing or empty database lists nothing and exits 0 ("No resources
# found.", or an empty List); tables have the documented columns and a
# humanised AGE; -o json has the documented snake_case fields with RFC 3339
# times and -o yaml holds the same data.  Runs, jobs, services and workers
# are written by the controller, which does not exist yet: the test inserts
# them with python3's sqlite3 module, as the controller would.  --watch
# prints again after another apply and ends on SIGTERM (all waits bounded).
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
unset SRTCTL_DB SRTCTL_WATCH_TIMEOUT
DB="$work/state/srtctl.db"

# fail, run
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"


# pyjson CODE: run python CODE with the JSON on stdout of the last `run` as `doc`.
pyjson() {
	python3 -c "import json, re, sys
doc = json.load(open('out'))
RFC3339 = re.compile(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')
$1" || fail "json check failed: $1"$'\n'"$(cat out)"
}

recipe() {
	cat >"$1" <<YAML
name: $2
engine: sglang
roles:
  prefill:
    env: {MOONCAKE_PROTOCOL: rdma, MOONCAKE_DEVICE: mlx5_0}
    args: {disaggregation-transfer-backend: mooncake}
  decode:
    env: {MOONCAKE_PROTOCOL: rdma, MOONCAKE_DEVICE: mlx5_0}
    args: {disaggregation-transfer-backend: mooncake}
services:
  - name: mooncake-master
    type: mooncake-master
YAML
}

run 0 "$SRTCTL" get --help
grep -q '^usage: srtctl get recipes|runs|jobs|services|workers|campaigns' out || fail "get --help"
run 2 "$SRTCTL" get
run 2 "$SRTCTL" get pods --db "$DB"
grep -q "unknown kind 'pods'" err || fail "bad kind: $(cat err)"
run 2 "$SRTCTL" get recipes -o table --db "$DB"
run 2 "$SRTCTL" get recipes --run x --db "$DB"

# ---- no database yet: nothing found, exit 0, and no database created ----
for kind in recipes runs jobs services workers campaigns; do
	run 0 "$SRTCTL" get "$kind" --db "$DB"
	[[ ! -s out ]] || fail "get $kind on a missing database printed: $(cat out)"
	grep -qx 'No resources found.' err || fail "get $kind on a missing database: $(cat err)"
	run 0 "$SRTCTL" get "$kind" -o json --db "$DB"
	pyjson 'assert doc == {"kind": "List", "items": []}, doc'
done
run 0 "$SRTCTL" get recipes -o yaml --db "$DB"
[[ "$(cat out)" == $'kind: List\nitems: []' ]] || fail "empty yaml list: $(cat out)"
run 1 "$SRTCTL" get recipe alpha --db "$DB"
run 1 "$SRTCTL" describe recipe alpha --db "$DB"
grep -q "no state database at $DB yet" err || fail "describe on a missing database: $(cat err)"
[[ ! -e $DB ]] || fail "a read-only verb created the database"

# ---- recipes ----
recipe alpha.yaml alpha
run 0 "$SRTCTL" apply -f alpha.yaml --db "$DB"
run 0 "$SRTCTL" get recipes --db "$DB"
[[ $(sed -n 1p out) =~ ^NAME\ +GENERATION\ +AGE$ ]] || fail "recipes header: $(sed -n 1p out)"
[[ $(sed -n 2p out) =~ ^alpha\ +1\ +[0-9]+s$ ]] || fail "recipes row: $(sed -n 2p out)"
# Columns line up: each value starts where its header does.
h=$(sed -n 1p out)
r=$(sed -n 2p out)
prefix=${h%%GENERATION*}
[[ ${r:${#prefix}:2} == "1 " ]] || fail "GENERATION column misaligned: '$h' / '$r'"
prefix=${h%%AGE*}
[[ ${r:${#prefix}:1} =~ [0-9] ]] || fail "AGE column misaligned: '$h' / '$r'"
run 0 "$SRTCTL" get recipes -o wide --db "$DB"
[[ $(sed -n 1p out) =~ ^NAME\ +GENERATION\ +AGE\ +SPEC_HASH\ +SOURCE\ +DELETED$ ]] ||
	fail "wide header: $(sed -n 1p out)"
[[ $(sed -n 2p out) =~ ^alpha\ +1\ +[0-9]+s\ +[0-9a-f]{12}\ +$work/alpha.yaml\ +\<none\>$ ]] ||
	fail "wide row: $(sed -n 2p out)"
run 0 "$SRTCTL" get recipes -o json --db "$DB"
pyjson '
assert doc["kind"] == "List" and len(doc["items"]) == 1
i = doc["items"][0]
assert set(i) == {"name", "uid", "generation", "spec_hash", "source_file", "created_at",
                  "applied_at", "deleted_at", "spec"}, sorted(i)
assert i["name"] == "alpha" and i["generation"] == 1 and len(i["spec_hash"]) == 64
assert RFC3339.match(i["created_at"]) and RFC3339.match(i["applied_at"]) and i["deleted_at"] is None
assert i["spec"]["engine"] == "sglang"'
cp out recipes.json
run 0 "$SRTCTL" get recipes -o yaml --db "$DB"
if python3 -c 'import yaml' 2>/dev/null; then
	python3 -c 'import json, sys, yaml
assert yaml.safe_load(open("out")) == json.load(open("recipes.json")), "yaml != json"' ||
		fail "-o yaml does not hold the same data as -o json"
else
	grep -qx 'kind: List' out || fail "-o yaml: $(cat out)"
fi
run 0 "$SRTCTL" get recipe alpha --db "$DB"
[[ $(wc -l <out) == 2 ]] || fail "get recipe alpha: $(cat out)"
run 1 "$SRTCTL" get recipe nosuch --db "$DB"
grep -q "recipe 'nosuch' not found" err || fail "get unknown recipe: $(cat err)"

# ---- what the controller writes: runs, conditions, services, workers ----
python3 - "$DB" <<'PY'
import sqlite3, sys, time
now = int(time.time() * 1000)
db = sqlite3.connect(sys.argv[1])
rid = db.execute("SELECT id FROM recipes WHERE name = 'alpha'").fetchone()[0]
db.execute("""INSERT INTO runs (uid, recipe_id, name, generation, attempt, phase, job_name,
    job_comment, slurm_job_id, slurm_state, run_dir, created_at, updated_at, started_at)
    VALUES ('u1', ?, 'alpha-1-1', 1, 1, 'Ready', 'srt-alpha-1-1', 'srtctl:u1:1', 4242,
    'RUNNING', '/runs/alpha-1-1', ?, ?, ?)""", (rid, now - 600000, now, now - 300000))
db.execute("""INSERT INTO runs (uid, recipe_id, name, generation, attempt, phase, job_name,
    job_comment, created_at, updated_at)
    VALUES ('u2', ?, 'alpha-1-2', 1, 2, 'Pending', 'srt-alpha-1-2', 'srtctl:u2:2', ?, ?)""",
    (rid, now - 1000, now - 1000))
run1 = db.execute("SELECT id FROM runs WHERE name = 'alpha-1-1'").fetchone()[0]
db.execute("""INSERT INTO run_conditions VALUES (?, 'Ready', 'True', 'AllServicesReady',
    'every service answers its probe', 1, ?)""", (run1, now - 60000))
db.execute("""INSERT INTO services (run_id, name, service, type, node, endpoint, state,
    restarts, last_probe, last_probe_at, started_at, updated_at)
    VALUES (?, 'mooncake-master', 'mooncake-master', 'mooncake-master', 'node1',
    '10.0.0.1:8700', 'Ready', 2, 'ok', ?, ?, ?)""", (run1, now - 5000, now - 7200000, now))
db.execute("""INSERT INTO workers (run_id, role, idx, node, ip, env_hash, state, restarts,
    started_at, updated_at) VALUES (?, 'prefill', 0, 'node2', '10.0.0.2',
    'abcdef0123456789', 'Ready', 0, ?, ?)""", (run1, now - 90000, now))
db.execute("""INSERT INTO events (type, reason, kind, name, message, count, first_at, last_at,
    source) VALUES ('Warning', 'ServiceRestarted', 'run', 'alpha-1-1',
    'mooncake-master restarted', 2, ?, ?, 'controller')""", (now - 120000, now - 30000))
db.commit()
PY

run 0 "$SRTCTL" get runs --db "$DB"
[[ $(sed -n 1p out) =~ ^NAME\ +RECIPE\ +GENERATION\ +ATTEMPT\ +PHASE\ +JOB\ +AGE$ ]] ||
	fail "runs header: $(sed -n 1p out)"
[[ $(sed -n 2p out) =~ ^alpha-1-1\ +alpha\ +1\ +1\ +Ready\ +4242\ +10m$ ]] || fail "runs row 1: $(sed -n 2p out)"
[[ $(sed -n 3p out) =~ ^alpha-1-2\ +alpha\ +1\ +2\ +Pending\ +\<none\>\ +[0-9]s$ ]] ||
	fail "runs row 2: $(sed -n 3p out)"
run 0 "$SRTCTL" get runs -o json --db "$DB"
pyjson '
a, b = doc["items"]
assert a["name"] == "alpha-1-1" and a["slurm_job_id"] == 4242 and a["phase"] == "Ready"
assert a["slurm_state"] == "RUNNING" and a["exit_code"] is None and a["run_dir"] == "/runs/alpha-1-1"
assert RFC3339.match(a["started_at"]) and a["finished_at"] is None
assert b["slurm_job_id"] is None and b["attempt"] == 2'
run 0 "$SRTCTL" get runs --recipe nosuch --db "$DB"
grep -qx 'No resources found.' err || fail "runs --recipe filter"

run 0 "$SRTCTL" get jobs -o wide --db "$DB"
[[ $(sed -n 1p out) =~ ^RUN\ +JOB_ID\ +STATE\ +ATTEMPT\ +AGE\ +JOB_NAME\ +EXIT_CODE$ ]] ||
	fail "jobs header: $(sed -n 1p out)"
[[ $(wc -l <out) == 2 ]] || fail "jobs lists an unsubmitted run: $(cat out)"
[[ $(sed -n 2p out) =~ ^alpha-1-1\ +4242\ +RUNNING\ +1\ +10m\ +srt-alpha-1-1\ +\<none\>$ ]] ||
	fail "jobs row: $(sed -n 2p out)"
run 0 "$SRTCTL" get job 4242 -o json --db "$DB"
pyjson 'assert [i["job_id"] for i in doc["items"]] == [4242] and doc["items"][0]["run"] == "alpha-1-1"'

run 0 "$SRTCTL" get services -o wide --db "$DB"
[[ $(sed -n 1p out) =~ ^RUN\ +NAME\ +TYPE\ +STATE\ +ENDPOINT\ +RESTARTS\ +AGE\ +NODE\ +LAST_PROBE$ ]] ||
	fail "services header: $(sed -n 1p out)"
[[ $(sed -n 2p out) =~ ^alpha-1-1\ +mooncake-master\ +mooncake-master\ +Ready\ +10\.0\.0\.1:8700\ +2\ +2h\ +node1\ +ok$ ]] ||
	fail "services row: $(sed -n 2p out)"
run 0 "$SRTCTL" get svc --run alpha-1-1 -o json --db "$DB"
pyjson '
s = doc["items"][0]
assert s["endpoint"] == "10.0.0.1:8700" and s["restarts"] == 2 and s["type"] == "mooncake-master"
assert RFC3339.match(s["last_probe_at"]) and s["message"] is None'
run 0 "$SRTCTL" get services --run alpha-1-2 --db "$DB"
grep -qx 'No resources found.' err || fail "services --run filter"

run 0 "$SRTCTL" get workers --db "$DB"
[[ $(sed -n 1p out) =~ ^RUN\ +ROLE\ +INDEX\ +NODE\ +IP\ +STATE\ +RESTARTS\ +AGE$ ]] ||
	fail "workers header: $(sed -n 1p out)"
[[ $(sed -n 2p out) =~ ^alpha-1-1\ +prefill\ +0\ +node2\ +10\.0\.0\.2\ +Ready\ +0\ +9[0-9]s$ ]] ||
	fail "workers row: $(sed -n 2p out)"
run 0 "$SRTCTL" get worker prefill-0 -o json --db "$DB"
pyjson 'assert doc["items"][0]["index"] == 0 and doc["items"][0]["env_hash"] == "abcdef0123456789"'
run 1 "$SRTCTL" get worker decode-3 --db "$DB"

run 0 "$SRTCTL" get campaigns --db "$DB"
grep -qx 'No resources found.' err || fail "campaigns"

# ---- describe ----
run 0 "$SRTCTL" describe run alpha-1-1 --db "$DB"
grep -Eq '^Phase: +Ready$' out || fail "describe run: no phase"
grep -Eq '^  Job ID: +4242$' out || fail "describe run: no job id"
grep -Eq '^  Ready +True +AllServicesReady +1 +[0-9T:.-]+Z +every service answers its probe$' out ||
	fail "describe run: no Ready condition: $(cat out)"
grep -Eq '^  mooncake-master +mooncake-master +Ready +10\.0\.0\.1:8700 +2 +node1$' out ||
	fail "describe run: no service"
grep -Eq '^  Warning +ServiceRestarted +[34][0-9]s \(x2 over 90s\) +controller +mooncake-master restarted$' out ||
	fail "describe run: no event: $(cat out)"
run 0 "$SRTCTL" describe run/alpha-1-2 --db "$DB"
grep -Eq '^Events: +<none>$' out || fail "describe run without events: $(cat out)"
run 0 "$SRTCTL" describe recipe alpha --db "$DB"
grep -Eq '^Generation: +1$' out || fail "describe recipe: generation"
grep -Eq '^  alpha-1-1 +1 +1 +Ready +4242 +10m$' out || fail "describe recipe: runs"
grep -Eq '^  Normal +RecipeCreated +[0-9]+s +cli +' out || fail "describe recipe: events"
grep -Eq '^  engine: sglang$' out || fail "describe recipe: spec"
run 0 "$SRTCTL" describe service mooncake-master --db "$DB"
grep -Eq '^Endpoint: +10\.0\.0\.1:8700$' out || fail "describe service"
run 1 "$SRTCTL" describe run nosuch --db "$DB"
grep -q "run 'nosuch' not found" err || fail "describe unknown run: $(cat err)"
run 2 "$SRTCTL" describe pod x --db "$DB"

# ---- an empty database (everything deleted) still exits 0 ----
empty="$work/empty.db"
run 0 "$SRTCTL" apply -f alpha.yaml --db "$empty"
run 0 "$SRTCTL" delete recipe alpha --db "$empty"
run 0 "$SRTCTL" get recipes --db "$empty"
grep -qx 'No resources found.' err || fail "empty database: $(cat err)"

# ---- --watch: prints again after another apply; SIGTERM ends it with exit 0 ----
run 2 "$SRTCTL" get recipes --watch --watch-timeout soon --db "$DB"
"$SRTCTL" get recipes --watch --watch-timeout 60s --db "$DB" >watch.out 2>watch.err &
watcher=$!
for _ in $(seq 100); do
	[[ $(grep -c '^NAME ' watch.out || true) -ge 1 ]] && break
	sleep 0.1
done
[[ $(grep -c '^NAME ' watch.out || true) -eq 1 ]] || fail "watch did not print the table"
recipe beta.yaml beta
run 0 "$SRTCTL" apply -f beta.yaml --db "$DB"
for _ in $(seq 100); do
	[[ $(grep -c '^NAME ' watch.out || true) -ge 2 ]] && break
	sleep 0.1
done
[[ $(grep -c '^NAME ' watch.out) -eq 2 ]] || fail "watch did not print again: $(cat watch.out)"
grep -q '^beta ' watch.out || fail "watch output lacks beta"
kill -TERM "$watcher"
rc=0
wait "$watcher" || rc=$?
watcher=
[[ $rc -eq 0 ]] || fail "watch exited $rc on SIGTERM"

# The hidden bound ends a watch on its own (exit 0).
SRTCTL_WATCH_TIMEOUT=300ms run 0 "$SRTCTL" get runs --watch --db "$DB"
[[ $(grep -c '^NAME ' out) -eq 1 ]] || fail "bounded watch printed $(grep -c '^NAME ' out) tables"

echo "ok: get, describe"
