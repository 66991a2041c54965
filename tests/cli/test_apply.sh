#!/usr/bin/env bash
# tests/cli/test_apply.sh: `srtctl apply`, `diff` and `delete` as a user runs them.
#
# apply: created / unchanged / configured and the generation behind each
# (read back with `get recipes -o json`); key order and comments do not
# count; a directory with one invalid recipe writes nothing; --dry-run
# writes nothing; stdin; two recipes with one name.  diff: exit 0 / 1 / 2
# and the unified diff itself.  delete: deleted, not found, a name given
# twice, campaigns.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"

work=$(mktemp -d)
locker=
cleanup() {
	if [[ -n $locker ]]; then kill "$locker" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
export SRTSLURM_CONFIG=
export XDG_STATE_HOME="$work/xdg" # never the user's own database
unset SRTCTL_DB
DB="$work/state/srtctl.db"

# fail, run
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"


# expect_out LINE: stdout is exactly LINE.
expect_out() {
	[[ "$(cat out)" == "$1" ]] || fail "stdout is '$(cat out)', expected '$1'"
}

# generation NAME: the generation `get recipes -o json` reports for NAME ("-" if absent).
generation() {
	"$SRTCTL" get recipes --include-deleted -o json --db "$DB" |
		python3 -c 'import json, sys
items = {i["name"]: i for i in json.load(sys.stdin)["items"]}
print(items[sys.argv[1]]["generation"] if sys.argv[1] in items else "-")' "$1"
}

# recipe FILE NAME PROTOCOL: write a valid recipe.
recipe() {
	cat >"$1" <<YAML
name: $2
engine: sglang
roles:
  prefill:
    env:
      MOONCAKE_PROTOCOL: $3
      MOONCAKE_DEVICE: mlx5_0
    args:
      disaggregation-transfer-backend: mooncake
  decode:
    env:
      MOONCAKE_PROTOCOL: $3
      MOONCAKE_DEVICE: mlx5_0
    args:
      disaggregation-transfer-backend: mooncake
services:
  - name: mooncake-master
    type: mooncake-master
YAML
}

run 0 "$SRTCTL" apply --help
grep -q '^usage: srtctl apply -f FILE|DIR|-' out || fail "apply --help has no usage line"
grep -q 'Examples:' out || fail "apply --help has no examples"
run 2 "$SRTCTL" apply --db "$DB"
grep -q 'no recipe given' err || fail "apply without -f: $(cat err)"
run 2 "$SRTCTL" apply -f "$work/nonexistent.yaml" --db "$DB"
[[ ! -e $DB ]] || fail "a failed apply created the database"

# --dry-run before anything exists: says created, writes nothing (not even the file).
recipe alpha.yaml alpha rdma
run 0 "$SRTCTL" apply -f alpha.yaml --dry-run --db "$DB"
expect_out "recipe/alpha created (dry run)"
[[ ! -e $DB ]] || fail "--dry-run created the database"

# created, generation 1; the note about the controller goes to stderr.
run 0 "$SRTCTL" apply -f alpha.yaml --db "$DB"
expect_out "recipe/alpha created"
grep -qx "note: no controller is running for $DB; start one with: srtctl controller --db $DB" err ||
	fail "no controller note: $(cat err)"
[[ $(stat -c %a "$DB") == 600 ]] || fail "database mode is $(stat -c %a "$DB")"
[[ $(generation alpha) == 1 ]] || fail "generation after create is $(generation alpha)"

# With a controller holding the database's lock (a flock on DB.lock), no note.
python3 -c 'import fcntl, sys, time
f = open(sys.argv[1] + ".lock", "w")
fcntl.flock(f, fcntl.LOCK_EX)
open(sys.argv[1] + ".locked", "w").close()
time.sleep(30)' "$DB" &
locker=$!
for _ in $(seq 100); do
	[[ -e $DB.locked ]] && break
	sleep 0.1
done
[[ -e $DB.locked ]] || fail "the lock holder did not start"
run 0 "$SRTCTL" apply -f alpha.yaml --db "$DB"
kill "$locker"
wait "$locker" 2>/dev/null || true
locker=
if grep -q 'no controller' err; then fail "note printed although the lock is held"; fi

# The same file again: unchanged.
run 0 "$SRTCTL" apply -f alpha.yaml --db "$DB"
expect_out "recipe/alpha unchanged"
[[ $(generation alpha) == 1 ]] || fail "unchanged apply moved the generation"

# Keys in another order, comments, flow style, other quoting: still unchanged.
cat >alpha-reordered.yaml <<'YAML'
# the same recipe, written differently
services:
  - {type: mooncake-master, name: "mooncake-master"}   # the master
roles:
  decode:
    args: {disaggregation-transfer-backend: mooncake}
    env:
      MOONCAKE_DEVICE: 'mlx5_0'
      MOONCAKE_PROTOCOL: rdma
  prefill:
    env: {MOONCAKE_DEVICE: mlx5_0, MOONCAKE_PROTOCOL: "rdma"}
    args:
        disaggregation-transfer-backend: mooncake
engine: sglang
name: alpha
YAML
run 0 "$SRTCTL" apply -f alpha-reordered.yaml --db "$DB"
expect_out "recipe/alpha unchanged"
[[ $(generation alpha) == 1 ]] || fail "reordered keys moved the generation"
run 0 "$SRTCTL" diff -f alpha-reordered.yaml --db "$DB"
[[ ! -s out ]] || fail "diff of an unchanged recipe printed: $(cat out)"

# diff of a changed value: exit 1, a unified diff of the pretty canonical JSON.
recipe alpha-tcp.yaml alpha tcp
run 1 "$SRTCTL" diff -f alpha-tcp.yaml --db "$DB"
[[ $(sed -n 1p out) == "--- recipe/alpha (applied, generation 1)" ]] || fail "diff header: $(sed -n 1p out)"
[[ $(sed -n 2p out) == "+++ recipe/alpha (alpha-tcp.yaml)" ]] || fail "diff header: $(sed -n 2p out)"
grep -q '^@@ -[0-9]*,[0-9]* +[0-9]*,[0-9]* @@$' out || fail "diff has no hunk header"
[[ $(grep -c '^-        "MOONCAKE_PROTOCOL": "rdma"$' out) == 2 ]] || fail "diff lacks the - lines: $(cat out)"
[[ $(grep -c '^+        "MOONCAKE_PROTOCOL": "tcp"$' out) == 2 ]] || fail "diff lacks the + lines"

# --dry-run of the change: configured (dry run), nothing written.
hash_before=$("$SRTCTL" get recipe alpha -o json --db "$DB" | python3 -c 'import json,sys; print(json.load(sys.stdin)["items"][0]["spec_hash"])')
run 0 "$SRTCTL" apply -f alpha-tcp.yaml --dry-run --db "$DB"
expect_out "recipe/alpha configured (dry run)"
[[ $(generation alpha) == 1 ]] || fail "--dry-run changed the generation"
hash_after=$("$SRTCTL" get recipe alpha -o json --db "$DB" | python3 -c 'import json,sys; print(json.load(sys.stdin)["items"][0]["spec_hash"])')
[[ $hash_before == "$hash_after" ]] || fail "--dry-run changed the spec hash"

# Applying the change: configured, generation 2; then diff is clean.
run 0 "$SRTCTL" apply -f alpha-tcp.yaml --db "$DB"
expect_out "recipe/alpha configured"
[[ $(generation alpha) == 2 ]] || fail "generation after configure is $(generation alpha)"
run 0 "$SRTCTL" diff -f alpha-tcp.yaml --db "$DB"
# The source path and YAML text are kept (absolute path).
"$SRTCTL" get recipe alpha -o json --db "$DB" | python3 -c '
import json, sys
item = json.load(sys.stdin)["items"][0]
assert item["source_file"] == sys.argv[1], item["source_file"]
assert item["spec"]["roles"]["decode"]["env"]["MOONCAKE_PROTOCOL"] == "tcp", item["spec"]
' "$work/alpha-tcp.yaml" || fail "stored source or spec is wrong"

# A directory with one invalid recipe: exit 1 and nothing written, not even the valid one.
mkdir dir
recipe dir/beta.yaml beta rdma
recipe dir/gamma.yaml gamma rdma
printf 'name: delta\nengine: sglang\nroles:\n  prefill:\n    replicas: lots\n' >dir/delta.yaml
run 1 "$SRTCTL" apply -f dir --db "$DB"
[[ ! -s out ]] || fail "invalid directory printed results: $(cat out)"
grep -q 'delta.yaml:' err || fail "no diagnostic for delta.yaml: $(cat err)"
grep -q 'nothing was applied' err || fail "no 'nothing was applied': $(cat err)"
[[ $(generation beta) == - ]] || fail "beta was written although delta.yaml is invalid"
[[ $(generation gamma) == - ]] || fail "gamma was written although delta.yaml is invalid"
run 1 "$SRTCTL" apply -f dir --dry-run --db "$DB"

# The same directory without the invalid file: one line per recipe, in file order.
rm dir/delta.yaml
cp alpha-tcp.yaml dir/alpha.yaml
run 0 "$SRTCTL" apply -f dir --db "$DB"
expect_out $'recipe/alpha unchanged\nrecipe/beta created\nrecipe/gamma created'
[[ $(generation beta) == 1 && $(generation gamma) == 1 ]] || fail "directory apply generations"

# Two recipes with one name: exit 1, nothing written.
recipe dup1.yaml epsilon rdma
recipe dup2.yaml epsilon tcp
run 1 "$SRTCTL" apply -f dup1.yaml -f dup2.yaml --db "$DB"
grep -q "recipe 'epsilon' is defined twice" err || fail "duplicate names: $(cat err)"
[[ $(generation epsilon) == - ]] || fail "a duplicate-name apply wrote epsilon"

# stdin.
recipe zeta.yaml zeta rdma
run 0 "$SRTCTL" apply -f - --db "$DB" <zeta.yaml
expect_out "recipe/zeta created"
"$SRTCTL" get recipe zeta -o json --db "$DB" | python3 -c '
import json, sys
assert json.load(sys.stdin)["items"][0]["source_file"] == "-"' || fail "stdin source_file"

# $SRTCTL_DB is the default database.
SRTCTL_DB="$DB" run 0 "$SRTCTL" apply -f zeta.yaml
expect_out "recipe/zeta unchanged"

# diff: a recipe never applied counts as different (against nothing); errors exit 2.
recipe eta.yaml eta rdma
run 1 "$SRTCTL" diff -f eta.yaml --db "$DB"
[[ $(sed -n 1p out) == "--- recipe/eta (not applied)" ]] || fail "unapplied diff header: $(sed -n 1p out)"
grep -q '^@@ -0,0 +1,[0-9]* @@$' out || fail "unapplied diff hunk: $(cat out)"
if grep -q '^-' <(tail -n +3 out); then fail "unapplied diff removes lines"; fi
run 1 "$SRTCTL" diff -f eta.yaml --db "$work/none.db"
[[ ! -e $work/none.db ]] || fail "diff created a database"
printf 'name: bad\nengine: nope\n' >bad.yaml
run 2 "$SRTCTL" diff -f bad.yaml --db "$DB"
run 2 "$SRTCTL" diff --db "$DB"

# delete: marks deleted (kept for get --include-deleted), a second delete is "not found".
run 0 "$SRTCTL" delete recipe beta --db "$DB"
expect_out "recipe/beta deleted"
"$SRTCTL" get recipes -o json --db "$DB" | python3 -c '
import json, sys
names = [i["name"] for i in json.load(sys.stdin)["items"]]
assert names == ["alpha", "gamma", "zeta"], names' || fail "deleted recipe still listed"
"$SRTCTL" get recipes --include-deleted -o json --db "$DB" | python3 -c '
import json, sys
items = {i["name"]: i for i in json.load(sys.stdin)["items"]}
assert items["beta"]["deleted_at"] is not None and items["alpha"]["deleted_at"] is None' ||
	fail "deleted_at not reported"
run 1 "$SRTCTL" delete recipe beta --db "$DB"
grep -q "^srtctl delete: recipe 'beta' not found" err || fail "second delete: $(cat err)"
run 1 "$SRTCTL" delete recipe nosuch --db "$DB"
grep -q "^srtctl delete: recipe 'nosuch' not found" err || fail "unknown delete: $(cat err)"
# One unknown name among several: nothing is deleted.
run 1 "$SRTCTL" delete recipe gamma nosuch --db "$DB"
[[ $(generation gamma) == 1 ]] && "$SRTCTL" get recipe gamma -o json --db "$DB" |
	python3 -c 'import json,sys; assert json.load(sys.stdin)["items"][0]["deleted_at"] is None' ||
	fail "a failed multi-delete deleted gamma"
run 0 "$SRTCTL" delete recipe/gamma --db "$DB"
expect_out "recipe/gamma deleted"
# A name given twice is deleted and reported once, not "not found" the second
# time (issue #12); an unknown name given twice is reported once.
run 0 "$SRTCTL" delete recipe zeta zeta --db "$DB"
expect_out "recipe/zeta deleted"
! grep -q "not found" err || fail "a repeated name was reported missing: $(cat err)"
run 0 "$SRTCTL" delete recipe/alpha recipe/alpha --db "$DB"
expect_out "recipe/alpha deleted"
run 1 "$SRTCTL" delete recipe nosuch nosuch --db "$DB"
[[ $(grep -c "recipe 'nosuch' not found" err) == 1 ]] ||
	fail "an unknown name given twice is not reported once: $(cat err)"
run 1 "$SRTCTL" delete campaign c1 --db "$DB"
grep -q "campaign 'c1' not found" err || fail "delete campaign: $(cat err)"
run 2 "$SRTCTL" delete run x --db "$DB"
run 1 "$SRTCTL" delete recipe alpha --db "$work/none.db"

# A deleted recipe diffs against nothing, and applying it again is "configured".
run 1 "$SRTCTL" diff -f dir/beta.yaml --db "$DB"
[[ $(sed -n 1p out) == "--- recipe/beta (deleted)" ]] || fail "deleted diff header: $(sed -n 1p out)"
run 0 "$SRTCTL" apply -f dir/beta.yaml --db "$DB"
expect_out "recipe/beta configured"
[[ $(generation beta) == 2 ]] || fail "re-applied deleted recipe has generation $(generation beta)"

# srt-slurm's -f FILE:SELECTOR: only the variants it picks, under their names in
# the whole file; a selector that picks nothing lists what the file has.
cat >vars.yaml <<'YAML'
base: {name: sel, engine: sglang, roles: {agg: {}}}
override_one: {roles: {agg: {args: {tp: 1}}}}
zip_override_conc: {slurm: {time_limit: ['1:00:00', '2:00:00']}}
YAML
run 0 "$SRTCTL" validate -f 'vars.yaml:zip_override_conc[1]'
expect_out "vars.yaml: recipe 'sel_conc_1' is valid (engine sglang, 0 services)"
run 1 "$SRTCTL" validate -f 'vars.yaml:zip_override_conc[2]'
grep -q "the selector 'zip_override_conc\[2\]' asks for variant 2, and zip_override_conc has 2 (0 to 1)" err ||
	fail "an index past the end: $(cat err)"
run 1 "$SRTCTL" apply -f 'vars.yaml:override_two' --db "$DB"
grep -q "it has: base, override_one, zip_override_conc, zip_override_conc\[i\]" err ||
	fail "an unknown selector: $(cat err)"
run 0 "$SRTCTL" apply -f 'vars.yaml:zip_override_conc[1]' --db "$DB"
expect_out "recipe/sel_conc_1 created"
[[ $(generation sel_conc_0) == - && $(generation sel_one) == - ]] || fail "a selector applied more"
run 0 "$SRTCTL" diff -f 'vars.yaml:zip_override_conc[1]' --db "$DB"
run 0 "$SRTCTL" apply -f 'vars.yaml:override_*' --db "$DB"
expect_out "recipe/sel_one created"

# srt-slurm's $VARs (model.path, model.container, the mounts' paths) come from
# the environment apply runs in, and the recorded spec holds their values: the
# controller, with an environment of its own, never resolves them.  validate
# and dry-run warn about an unset one; apply refuses the recipe until it is set.
cat >env.yaml <<'YAML'
name: envs
model:
  path: $SRT_T_MODELS/qwen
  container: ${SRT_T_IMAGE}.sqsh
extra_mount: ["$SRT_T_MODELS/x.py:/opt/x.py"]
engine: sglang
roles:
  agg: {}
benchmark: {type: custom, command: "bash /infmax-workspace/run.sh"}
YAML
unset SRT_T_MODELS SRT_T_IMAGE INFMAX_WORKSPACE
run 0 "$SRTCTL" validate -f env.yaml
grep -q 'env.yaml:4:14: warning: model.container: \$SRT_T_IMAGE is not set' err ||
	fail "validate did not warn about an unset variable: $(cat err)"
grep -q 'warning: benchmark.command: this recipe uses /infmax-workspace' err ||
	fail "validate did not say INFMAX_WORKSPACE is missing: $(cat err)"
run 1 "$SRTCTL" apply -f env.yaml --db "$DB"
grep -q 'env.yaml:3:9: model.path: \$SRT_T_MODELS is not set' err ||
	fail "apply did not refuse an unset variable: $(cat err)"
[[ $(generation envs) == - ]] || fail "a refused recipe was recorded"
SRT_T_MODELS=/lustre/models SRT_T_IMAGE=/images/sgl INFMAX_WORKSPACE=/shared/ix \
	run 0 "$SRTCTL" apply -f env.yaml --db "$DB"
expect_out "recipe/envs created"
"$SRTCTL" get recipe envs -o json --db "$DB" | python3 -c '
import json, sys
spec = json.load(sys.stdin)["items"][0]["spec"]
assert spec["model"] == {"path": "/lustre/models/qwen", "container": "/images/sgl.sqsh"}, spec["model"]
assert spec["extra_mount"] == ["/lustre/models/x.py:/opt/x.py"], spec["extra_mount"]
assert spec["container_mounts"] == {"/shared/ix": "/infmax-workspace"}, spec.get("container_mounts")
' || fail "the recorded spec is not the resolved one"
# The same file in the same environment is unchanged; another value is a new generation.
SRT_T_MODELS=/lustre/models SRT_T_IMAGE=/images/sgl INFMAX_WORKSPACE=/shared/ix \
	run 0 "$SRTCTL" apply -f env.yaml --db "$DB"
expect_out "recipe/envs unchanged"
SRT_T_MODELS=/lustre/models SRT_T_IMAGE=/images/sgl2 INFMAX_WORKSPACE=/shared/ix \
	run 0 "$SRTCTL" apply -f env.yaml --db "$DB"
expect_out "recipe/envs configured"

echo "ok: apply, diff, delete"
