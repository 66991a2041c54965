#!/usr/bin/env bash
# tests/cli/test_migrate.sh: `srtctl migrate` as a user runs it.
#
# Checks stdout output, -o FILE, -o DIR for a directory, --in-place with its
# .v1.bak backup (and the refusal to run twice), that v2 input is refused
# with exit 1, that a result which does not validate never replaces a file,
# that a sweep is refused with nothing written, and the usage errors (exit 2).
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"

# The real-recipe corpus (outside the repository); the cases that read it
# are skipped with a notice when it is absent.
CORPUS="${SRT_CORPUS_DIR:-}/srt-slurm-v1"
DATA="$SRT_SOURCE_DIR/tests/data/migrate"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export SRTSLURM_CONFIG=

# fail, run
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"


# --help: usage with examples, exit 0.
run 0 "$SRTCTL" migrate --help
grep -q '^usage: srtctl migrate -f FILE|DIR' out || fail "help has no usage line"
grep -q 'Examples:' out || fail "help has no examples"
grep -q 'a sweep: section' out || fail "help does not say sweeps are refused"

# stdout: the header comment, then the v2 recipe.
run 0 "$SRTCTL" migrate -f "$DATA/mooncake-sglang.v1.yaml"
[[ $(head -n1 out) == "# Migrated to the v2 layout by srtctl migrate from mooncake-sglang.v1.yaml." ]] ||
	fail "first line is '$(head -n1 out)'"
grep -qx 'schema: 2' out || fail "no 'schema: 2' in the output"
grep -qx 'engine: sglang' out || fail "no 'engine: sglang' in the output"
grep -qx '    type: mooncake-master' out || fail "no mooncake-master service"
if grep -q '^backend:' out; then fail "backend: left in the output"; fi
cp out stdout.yaml

# The printed recipe validates as it is.
run 0 "$SRTCTL" validate -f stdout.yaml

# -o FILE writes the same text and prints nothing on stdout.
run 0 "$SRTCTL" migrate -f "$DATA/mooncake-sglang.v1.yaml" -o written.yaml
[[ -f written.yaml ]] || fail "-o did not write written.yaml"
[[ ! -s out ]] || fail "-o also printed to stdout"
cmp -s written.yaml stdout.yaml || fail "-o output differs from stdout output"

# --in-place: keeps FILE.v1.bak (the original bytes), rewrites FILE.
cp "$DATA/mooncake-vllm.v1.yaml" recipe.yaml
run 0 "$SRTCTL" migrate -f recipe.yaml --in-place
[[ -f recipe.yaml.v1.bak ]] || fail "no backup written"
cmp -s recipe.yaml.v1.bak "$DATA/mooncake-vllm.v1.yaml" || fail "backup is not the original"
grep -qx 'schema: 2' recipe.yaml || fail "recipe.yaml was not rewritten"
grep -q 'inferred engine' err || fail "no inference warning on stderr"
ls recipe.yaml.tmp.* >/dev/null 2>&1 && fail "temporary file left behind"
cp recipe.yaml migrated-once.yaml

# A second --in-place refuses because the backup exists, and changes nothing.
run 2 "$SRTCTL" migrate -f recipe.yaml --in-place
grep -q "backup 'recipe.yaml.v1.bak' already exists" err || fail "refusal does not name the backup"
cmp -s recipe.yaml migrated-once.yaml || fail "refused run changed recipe.yaml"
cmp -s recipe.yaml.v1.bak "$DATA/mooncake-vllm.v1.yaml" || fail "refused run changed the backup"

# v2 input: exit 1, says so, writes nothing.
run 1 "$SRTCTL" migrate -f "$DATA/already-v2.yaml"
grep -q 'already in the v2 layout; nothing to migrate' err || fail "no 'already v2' message"
[[ ! -s out ]] || fail "v2 input printed output"
cp "$DATA/already-v2.yaml" v2.yaml
run 1 "$SRTCTL" migrate -f v2.yaml --in-place
[[ ! -e v2.yaml.v1.bak ]] || fail "backup written for a file that was not migrated"
cmp -s v2.yaml "$DATA/already-v2.yaml" || fail "v2.yaml was changed"

# Migrated but invalid: exit 1; --in-place leaves the file alone (no
# backup), -o still writes the result for the user to finish by hand.
cp "$DATA/invalid-after.v1.yaml" bad.yaml
run 1 "$SRTCTL" migrate -f bad.yaml --in-place
grep -q 'roles.agg.nodes' err || fail "the validation error is not shown"
grep -q 'left unchanged' err || fail "no 'left unchanged' message"
cmp -s bad.yaml "$DATA/invalid-after.v1.yaml" || fail "invalid result replaced bad.yaml"
[[ ! -e bad.yaml.v1.bak ]] || fail "backup written although nothing was replaced"
run 1 "$SRTCTL" migrate -f bad.yaml -o bad-v2.yaml
grep -q 'written anyway' err || fail "no 'written anyway' message"
grep -qx '    nodes: -3' bad-v2.yaml || fail "-o did not write the invalid result"

# A sweep cannot be expressed yet: exit 1, the reason and the placeholders on
# stderr, nothing written (not to stdout, not -o, not --in-place).
run 1 "$SRTCTL" migrate -f "$DATA/sweep.v1.yaml"
grep -q 'srtctl cannot yet express sweeps' err || fail "no 'cannot yet express sweeps' message"
grep -q 'Sweep keys: tp, mrr' err || fail "the sweep keys are not named"
grep -q '{tp} in backend.sglang_config.aggregated.tensor-parallel-size' err ||
	fail "the placeholders are not named"
grep -q 'wait for campaigns' err || fail "no advice"
[[ ! -s out ]] || fail "a sweep printed output"
run 1 "$SRTCTL" migrate -f "$DATA/sweep.v1.yaml" -o sweep-v2.yaml
[[ ! -e sweep-v2.yaml ]] || fail "-o wrote a migrated sweep"
cp "$DATA/sweep.v1.yaml" sweep.yaml
run 1 "$SRTCTL" migrate -f sweep.yaml --in-place
cmp -s sweep.yaml "$DATA/sweep.v1.yaml" || fail "--in-place changed a sweep"
[[ ! -e sweep.yaml.v1.bak ]] || fail "backup written for a sweep"

# A directory: several files need -o DIR (or --in-place).
mkdir in
cp "$DATA/mooncake-sglang.v1.yaml" "$DATA/mooncake-vllm.v1.yaml" in/
have_corpus=1
if [[ -f "$CORPUS/b200-fp4__1k1k.yaml" ]]; then
	cp "$CORPUS/b200-fp4__1k1k.yaml" in/
else
	have_corpus=0
	echo "corpus not found at $CORPUS (set SRT_CORPUS_DIR); skipping the variant-file case"
fi
run 2 "$SRTCTL" migrate -f in
grep -q 'give -o DIR' err || fail "no hint to use -o DIR"
run 0 "$SRTCTL" migrate -f in -o outdir
[[ -f outdir/mooncake-sglang.v1.yaml && -f outdir/mooncake-vllm.v1.yaml ]] ||
	fail "-o DIR did not write both files"
if ((have_corpus)); then
	[[ -f outdir/b200-fp4__1k1k.yaml ]] || fail "-o DIR did not write the variant file"
	grep -q '^zip_override_stp_lowlat:' outdir/b200-fp4__1k1k.yaml || fail "variant sections lost"
	run 0 "$SRTCTL" validate -f outdir/b200-fp4__1k1k.yaml
fi

# A v1 recipe without `name:` is named after its file, also in migrate's own
# check of the result (which names the text "FILE (migrated)").
cat >disagg-1p1d-tp8.yaml <<'YAML'
backend:
  type: sglang
  sglang_config: {prefill: {a: 1}, decode: {a: 1}}
resources: {prefill_nodes: 1, decode_nodes: 1, prefill_workers: 1, decode_workers: 1}
YAML
run 0 "$SRTCTL" migrate -f disagg-1p1d-tp8.yaml
grep -q "not a valid name" err && fail "the default name took migrate's display suffix: $(cat err)"
cp out nameless.yaml
run 0 "$SRTCTL" validate -f nameless.yaml

# Usage errors exit 2.
run 2 "$SRTCTL" migrate
run 2 "$SRTCTL" migrate -f "$DATA/mooncake-sglang.v1.yaml" -o x.yaml --in-place
run 2 "$SRTCTL" migrate -f does-not-exist.yaml
run 2 "$SRTCTL" migrate -f "$DATA/mooncake-sglang.v1.yaml" extra-arg

echo "test_migrate.sh: ok"
