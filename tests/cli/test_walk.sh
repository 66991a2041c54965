#!/usr/bin/env bash
# tests/cli/test_walk.sh: `-f DIR` walks the tree, as srt-slurm's apply does.
#
# migrate, validate, dry-run and apply take every *.yaml / *.yml below DIR,
# in sorted order; hidden files and directories are skipped; a symlink back
# into the tree is skipped with a warning; a tree deeper than 32 levels is
# an error.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"

DATA="$SRT_SOURCE_DIR/tests/data/migrate"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
unset SRTCTL_DB
export SRTSLURM_CONFIG=

# fail, run
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

recipe() { # recipe NAME: a small valid v2 recipe
	printf 'name: %s\nengine: sglang\nroles:\n  agg:\n    nodes: 1\n' "$1"
}

# A v1 tree: files at three depths, a hidden file and a hidden directory, a
# file that is not YAML.
mkdir -p v1/b/deeper v1/a v1/.hidden
cp "$DATA/mooncake-sglang.v1.yaml" v1/z-top.yaml
cp "$DATA/mooncake-vllm.v1.yaml" v1/b/deeper/vllm.yml
cp "$DATA/mooncake-sglang.v1.yaml" v1/a/sglang.yaml
cp "$DATA/mooncake-sglang.v1.yaml" v1/.hidden/skipped.yaml
cp "$DATA/mooncake-sglang.v1.yaml" v1/.skipped.yaml
echo 'not a recipe' >v1/b/notes.txt

# migrate -o DIR mirrors the tree.
run 0 "$SRTCTL" migrate -f v1 -o v2
for f in a/sglang.yaml b/deeper/vllm.yml z-top.yaml; do
	[[ -f v2/$f ]] || fail "migrate -o did not write v2/$f"
	grep -qx 'schema: 2' "v2/$f" || fail "v2/$f is not migrated"
done
[[ ! -e v2/.hidden && ! -e v2/.skipped.yaml ]] || fail "hidden entries were migrated"
# ... in sorted order: a/, b/deeper/, z-top.
grep '^migrated ' err | sed 's/ ->.*//' >order
printf 'migrated v1/a/sglang.yaml\nmigrated v1/b/deeper/vllm.yml\nmigrated v1/z-top.yaml\n' >want
cmp -s order want || fail "migrate order: $(cat order)"

# validate, dry-run and apply see the same three recipes.
run 0 "$SRTCTL" validate -f v2 -o json
[[ $(jq -r '.files[].file' out | tr '\n' ' ') == "v2/a/sglang.yaml v2/b/deeper/vllm.yml v2/z-top.yaml " ]] ||
	fail "validate files: $(jq -c '[.files[].file]' out)"
run 0 "$SRTCTL" dry-run -f v2 -o json
[[ $(jq -r '.kind' out) == List && $(jq '.items | length' out) == 3 ]] ||
	fail "dry-run of a directory: $(jq -c '{kind, n: (.items | length)}' out)"
[[ $(jq -r '[.items[].file] | join(" ")' out) == "v2/a/sglang.yaml v2/b/deeper/vllm.yml v2/z-top.yaml" ]] ||
	fail "dry-run order: $(jq -c '[.items[].file]' out)"
run 0 "$SRTCTL" dry-run -f v2
[[ $(grep -c '^# Recipe ' out) == 3 ]] || fail "dry-run text shows $(grep -c '^# Recipe ' out) recipes"

# apply: three distinct recipes (names from the files), all or nothing.
mkdir -p tree/x/y
recipe one >tree/x/y/one.yaml
recipe two >tree/two.yaml
recipe three >tree/x/three.yml
run 0 "$SRTCTL" apply -f tree --db "$work/state.db"
[[ $(grep -c ' created' out) == 3 ]] || fail "apply created: $(cat out)"
run 0 "$SRTCTL" apply -f tree --db "$work/state.db" --dry-run
[[ $(grep -c ' unchanged' out) == 3 ]] || fail "apply --dry-run: $(cat out)"

# A symlink back into the tree is skipped with a warning, not walked forever.
ln -s .. tree/x/y/loop
run 0 "$SRTCTL" validate -f tree
grep -q "warning: skipping 'tree/x/y/loop': it leads back into a directory already being walked" err ||
	fail "no symlink-loop warning: $(cat err)"
# A symlink to a file outside the tree is followed like a file.
recipe four >four.yaml
ln -s ../four.yaml tree/four-link.yaml
run 0 "$SRTCTL" validate -f tree -o json
[[ $(jq '.files | length' out) == 4 ]] || fail "validate saw $(jq '.files | length' out) files, want 4"
# A dangling symlink is skipped with a warning.
ln -s does-not-exist.yaml tree/dangling.yaml
run 0 "$SRTCTL" validate -f tree
grep -q "warning: skipping 'tree/dangling.yaml'" err || fail "no warning for a dangling symlink"
rm tree/dangling.yaml

# Too deep: an error that names the limit.
deep=deep
for _ in $(seq 1 34); do deep="$deep/d"; done
mkdir -p "$deep"
recipe deep >"$deep/r.yaml"
run 2 "$SRTCTL" validate -f deep
grep -q "srtctl walks at most 32 levels" err || fail "no depth-limit error: $(cat err)"

# A directory with no recipe below it.
mkdir -p empty/sub/.git
recipe hidden >empty/sub/.git/x.yaml
run 2 "$SRTCTL" validate -f empty
grep -q 'no \*.yaml or \*.yml files in this directory or below it' err || fail "empty: $(cat err)"

echo "test_walk.sh: ok"
