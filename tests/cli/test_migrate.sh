#!/usr/bin/env bash
# tests/cli/test_migrate.sh: `srtctl migrate` as a user runs it.
#
# Checks stdout output, -o FILE, -o DIR for a directory, --in-place with its
# .v1.bak backup (and the refusal to run twice), that v2 input is refused
# with exit 1, that a result which does not validate never replaces a file,
# that a sweep becomes a campaign, and the usage errors (exit 2).
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
grep -q "srt-slurm's sweep: section" out || fail "help does not say what becomes of sweeps"

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

# -o - is stdout, as -f - is stdin: no file named '-' appears.
run 0 "$SRTCTL" migrate -f "$DATA/mooncake-sglang.v1.yaml" -o -
cmp -s out stdout.yaml || fail "-o - did not print the recipe on stdout"
[[ ! -e ./- ]] || fail "-o - wrote a file named '-'"

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

# A sweep becomes a campaign: the recipe is its template, each sweep parameter
# an axis where "{name}" stands, the benchmark its load; apply takes it.
run 0 "$SRTCTL" migrate -f "$DATA/sweep.v1.yaml"
grep -qx 'kind: Campaign' out || fail "a sweep did not become a campaign: $(cat out)"
grep -qx '    roles.agg.args.tensor-parallel-size:' out || fail "tp axis: $(cat out)"
grep -qx '    roles.agg.args.max-running-requests:' out || fail "mrr axis: $(cat out)"
grep -qx "  concurrency: '4x8x16'" out || fail "load.concurrency: $(cat out)"
grep -qx '  tool: sa-bench' out || fail "benchmark.tool: $(cat out)"
! grep -q '^sweep:' out || fail "the sweep section was kept"
run 0 "$SRTCTL" migrate -f "$DATA/sweep.v1.yaml" -o sweep.campaign.yaml
run 0 "$SRTCTL" apply -f sweep.campaign.yaml --dry-run --db "$PWD/s.db"
grep -q '4 deployments, 12 points (12 new)' out || fail "the campaign's dry run: $(cat out)"
# A v2 recipe with a sweep (srt-slurm 2.0's example form): concurrency goes to load.
cat >sweep2.yaml <<'YAML'
name: s2
engine: sglang
model: {path: /models/m, container: img}
roles:
  agg: {nodes: 1, args: {max-running-requests: "{mrr}"}}
benchmark: {type: sa-bench, isl: 128, osl: 128, concurrencies: ["{conc}"]}
sweep:
  conc: [4, 8]
  mrr: [16, 64]
YAML
run 0 "$SRTCTL" migrate -f sweep2.yaml -o sweep2.campaign.yaml
run 0 "$SRTCTL" apply -f sweep2.campaign.yaml --dry-run --db "$PWD/s.db"
grep -q '2 deployments, 4 points (4 new)' out || fail "v2 sweep: $(cat out)"
# A placeholder inside a longer string cannot be a campaign axis: the sweep is
# written as a variant file, one job per combination in srt-slurm's order (a
# grid's last parameter fastest), each value substituted as srt-slurm does.
sed 's/"{mrr}"/"x{mrr}"/' sweep2.yaml >sweep3.yaml
run 0 "$SRTCTL" migrate -f sweep3.yaml -o sweep3.out.yaml
grep -q 'written as a variant file, not a campaign.*holds {mrr} inside a longer value' err ||
	fail "embedded placeholder: $(cat err)"
grep -qx 'zip_override_sweep:' sweep3.out.yaml || fail "no zip section: $(cat sweep3.out.yaml)"
run 0 "$SRTCTL" validate -f sweep3.out.yaml
[[ $(grep -c "recipe 's2_sweep_[0-3]' is valid" out) == 4 ]] || fail "4 variants: $(cat out)"
run 0 "$SRTCTL" dry-run -f sweep3.out.yaml
grep -o -e "^# Recipe 's2_sweep_[0-9]'" -e '--max-running-requests x[0-9]*' -e '^    concurrencies: [0-9]*' out |
	tr '\n' ' ' >order
want="# Recipe 's2_sweep_0' --max-running-requests x16 # Recipe 's2_sweep_1' --max-running-requests x64 "
want+="# Recipe 's2_sweep_2' --max-running-requests x16 # Recipe 's2_sweep_3' --max-running-requests x64 "
[[ $(cat order) == "$want" ]] || fail "variant order: $(cat order)"
sed -n '/^zip_override_sweep:/,$p' sweep3.out.yaml | grep -A4 '^    concurrencies:' | tr -d ' \n' |
	grep -qx -- 'concurrencies:--4--4--8--8' ||
	fail "a list holding a placeholder is one value per job: $(cat sweep3.out.yaml)"
# A swept setting of a custom benchmark (srt-slurm ran it inside each job), zip mode.
cat >sweep4.yaml <<'YAML'
name: s4
engine: sglang
model: {path: /models/m, container: img}
roles:
  agg: {nodes: 1}
benchmark: {type: custom, command: "bash run.sh", env: {CONC: "{conc}", OUT: "r_c{conc}_{tag}.json"}}
sweep: {mode: zip, parameters: {conc: [16, 32], tag: [a, b]}}
YAML
run 0 "$SRTCTL" migrate -f sweep4.yaml -o sweep4.out.yaml
grep -q "sweeps the benchmark setting 'benchmark.env.CONC'" err || fail "benchmark sweep: $(cat err)"
run 0 "$SRTCTL" dry-run -f sweep4.out.yaml
grep -o -e 'CONC *[0-9]*' -e 'OUT *r_[a-z0-9_]*.json' out | tr -s ' \n' ' ' >order
[[ $(cat order) == "CONC 16 OUT r_c16_a.json CONC 32 OUT r_c32_b.json " ]] || fail "zip: $(cat order)"
# What neither can say is refused, nothing written: a list substituted inside a string.
sed 's/tag: \[a, b\]/tag: [[a], b]/' sweep4.yaml >sweep5.yaml
run 1 "$SRTCTL" migrate -f sweep5.yaml -o sweep5.out.yaml
grep -q "sweep parameter 'tag' has a list here, substituted inside the string 'r_c{conc}_{tag}.json' (at benchmark.env.OUT)" err ||
	fail "list in a string: $(cat err)"
[[ ! -e sweep5.out.yaml ]] || fail "-o wrote a refused sweep"
# Combinations whose parallel world cannot run on the worker's GPUs are left
# out, said: srt-slurm drops them from a vLLM sweep (more ranks than GPUs, or a
# data-parallel world that is not the worker's GPUs), and submits TRT-LLM's,
# which cannot start (one MPI rank per GPU).  The rest is the campaign.
cat >sweep6.yaml <<'YAML'
name: s6
engine: trtllm
model: {path: /models/m, container: img}
resources: {gpus_per_node: 8}
roles:
  agg: {nodes: 1, args: {tensor_parallel_size: "{tp}", pipeline_parallel_size: "{pp}"}}
benchmark: {type: sa-bench, isl: 128, osl: 128, concurrencies: [4]}
sweep:
  tp: [1, 8]
  pp: [1, 2]
YAML
run 0 "$SRTCTL" migrate -f sweep6.yaml -o sweep6.campaign.yaml
grep -q "warning: sweep: 3 of the sweep's 4 combinations cannot run, their parallel world not fitting the worker's GPUs (the first: agg: TRT-LLM world 1 (tensor x pipeline x context parallel) on 8 MPI ranks); srt-slurm would submit them and TRT-LLM refuse to start" err ||
	fail "TRT-LLM sweep filter: $(cat err)"
run 0 "$SRTCTL" apply -f sweep6.campaign.yaml --dry-run --db "$PWD/s.db"
grep -q '1 deployments, 1 points (1 new)' out || fail "TRT-LLM sweep: $(cat out)"
cat >sweep7.yaml <<'YAML'
name: s7
engine: vllm
model: {path: /models/m, container: img}
resources: {gpus_per_node: 8}
roles:
  agg: {nodes: 1, args: {tensor-parallel-size: "{tp}", data-parallel-size: "{dp}"}}
benchmark: {type: sa-bench, isl: 128, osl: 128, concurrencies: [4]}
sweep:
  tp: [1, 4, 16]
  dp: [1, 2]
YAML
run 0 "$SRTCTL" migrate -f sweep7.yaml -o sweep7.campaign.yaml
grep -q "warning: sweep: 3 of the sweep's 6 combinations cannot run, .*srt-slurm drops them from a vLLM sweep too" err ||
	fail "vLLM sweep filter: $(cat err)"
# tp 1 dp 2 (2 of 8 GPUs, data parallel) and tp 16 (either dp) are out; tp 1 and tp 4 alone, and tp 4 dp 2, stay
run 0 "$SRTCTL" apply -f sweep7.campaign.yaml --dry-run --db "$PWD/s.db"
grep -q '3 deployments, 3 points (3 new)' out || fail "vLLM sweep: $(cat out)"
sed 's/tp: \[1, 4, 16\]/tp: [16]/' sweep7.yaml >sweep8.yaml
run 1 "$SRTCTL" migrate -f sweep8.yaml -o sweep8.out.yaml
grep -q "no combination of this sweep can run" err || fail "nothing runnable: $(cat err)"
[[ ! -e sweep8.out.yaml ]] || fail "-o wrote a sweep with nothing to run"

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

# srt-slurm runs a recipe's sa-bench benchmark inside the job; srtctl as a
# campaign's load: a v1 or v2 recipe with one (and no sweep) migrates to a
# campaign of one deployment, the recipe its template.  One a load cannot
# carry (no isl/osl) stays a recipe, said; validate points at migrate.
cat >bench1.v1.yaml <<'YAML'
name: b1
model: {path: /models/m, container: img}
backend:
  type: sglang
  sglang_config: {aggregated: {tp-size: 1}}
resources: {agg_nodes: 1, agg_workers: 1}
frontend: {type: sglang}
benchmark: {type: sa-bench, isl: 1024, osl: 128, concurrencies: "4x8", req_rate: inf, num_prompts_mult: 5}
YAML
run 0 "$SRTCTL" migrate -f bench1.v1.yaml -o bench1.yaml
grep -qx 'kind: Campaign' bench1.yaml || fail "an sa-bench recipe did not become a campaign: $(cat bench1.yaml)"
grep -q "^# srt-slurm runs its sa-bench benchmark inside the job" bench1.yaml || fail "no header saying why"
python3 - bench1.yaml <<'PY' || fail "sa-bench campaign: $(cat bench1.yaml)"
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
assert c["load"] == {"shapes": [{"isl": 1024, "osl": 128}], "concurrency": "4x8", "promptsPerConcurrency": 5}, c["load"]
assert c["benchmark"] == {"tool": "sa-bench", "params": {"request-rate": "inf"}}, c["benchmark"]
assert "benchmark" not in c["template"] and "deployments" not in c, c
PY
run 0 "$SRTCTL" apply -f bench1.yaml --dry-run --db "$PWD/s.db"
grep -q '1 deployments, 2 points (2 new)' out || fail "sa-bench campaign: $(cat out)"
# num_prompts / warmup_prompts (one count for every concurrency) are the
# load's prompts / warmup; srt-slurm's own keys are left out, said.
sed 's/num_prompts_mult: 5}/num_prompts: 100, warmup_prompts: 1, export_node_metrics: true}/' bench1.v1.yaml >bench4.v1.yaml
run 0 "$SRTCTL" migrate -f bench4.v1.yaml -o bench4.yaml
python3 - bench4.yaml <<'PY' || fail "num_prompts: $(cat bench4.yaml)"
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
assert c["load"]["prompts"] == 100 and c["load"]["warmup"] == 1, c["load"]
assert "promptsPerConcurrency" not in c["load"] and "export_node_metrics" not in c["benchmark"]["params"], c
PY
grep -q "warning: benchmark.export_node_metrics: srt-slurm's own setting, not sa-bench's; left out of the campaign (srtctl exports no node metrics)" err ||
	fail "export_node_metrics: $(cat err)"
run 0 "$SRTCTL" apply -f bench4.yaml --dry-run --db "$PWD/s.db"
grep -Eq 'b1-[0-9a-f]{8} +1 +\{\} +1024 +128 +8 +100 +1 ' out || fail "fixed prompts: $(cat out)"
# A param the tool's command line cannot take is refused at apply, not at the first point.
sed 's/request-rate: inf/max-concurrency: 3/' bench1.yaml >bench5.yaml
run 1 "$SRTCTL" apply -f bench5.yaml --dry-run --db "$PWD/s.db"
grep -q "benchmark.params: 'max-concurrency' is set by srtctl from the load point" err || fail "owned param: $(cat err)"
# srt-slurm 2.0's layout: the same
cat >bench2.yaml <<'YAML'
name: b2
engine: sglang
model: {path: /models/m, container: img}
roles:
  agg: {args: {tp-size: 1}}
frontend: {type: sglang}
benchmark: {type: sa-bench, isl: 1024, osl: 128, concurrencies: [4]}
YAML
"$SRTCTL" validate -f bench2.yaml >/dev/null 2>err
grep -q "warning: benchmark.type: srt-slurm runs sa-bench inside the job; srtctl runs it as a campaign's load, and this recipe alone runs no benchmark: \`srtctl migrate -f bench2.yaml -o CAMPAIGN.yaml\`" err ||
	fail "validate of a v2 sa-bench recipe: $(cat err)"
run 0 "$SRTCTL" migrate -f bench2.yaml -o bench2.campaign.yaml
grep -qx 'kind: Campaign' bench2.campaign.yaml || fail "a v2 sa-bench recipe did not become a campaign"
# No isl/osl: no load; the recipe is written, said.
sed 's/isl: 1024, osl: 128, //' bench1.v1.yaml >bench3.v1.yaml
run 0 "$SRTCTL" migrate -f bench3.v1.yaml -o bench3.yaml
! grep -q 'kind: Campaign' bench3.yaml || fail "an sa-bench without isl/osl became a campaign"
grep -q "warning: benchmark: srt-slurm runs this sa-bench benchmark inside the job, and srtctl runs it as a campaign's load; a campaign cannot carry it (the benchmark has no isl/osl" err ||
	fail "no isl/osl: $(cat err)"

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
