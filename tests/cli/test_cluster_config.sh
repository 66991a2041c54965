#!/usr/bin/env bash
# tests/cli/test_cluster_config.sh: srtslurm.yaml written for srt-slurm.
#
# A cluster config with srt-slurm's keys loads: model_paths and container
# aliases resolve, default_container applies, every key srtctl does not read
# is warned about once.  A broken config: migrate and validate warn and go
# on with the built-in defaults; dry-run, apply and controller refuse it.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"

DATA="$SRT_SOURCE_DIR/tests/data/migrate"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
unset SRTCTL_DB

# fail, run
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cat >srt-slurm.yaml <<'EOF'
default_account: acct
default_partition: batch
default_time_limit: "04:00:00"
gpus_per_node: 4
use_gpus_per_node_directive: false
use_segment_sbatch_directive: true
srtctl_root: /shared/srt-slurm
output_dir: /shared/outputs
reporting:
  s3: {bucket: logs}
cluster:
  account: old-acct
  default_container: latest
model_paths:
  qwen3-32b: /lustre/models/Qwen3-32B
containers:
  latest: /lustre/containers/sglang-latest.sqsh
EOF

cat >recipe.yaml <<'EOF'
name: alias-recipe
model:
  path: qwen3-32b
engine: sglang
roles:
  agg:
    nodes: 1
    args:
      tensor-parallel-size: 4
EOF

# The srt-slurm config is used: aliases resolve, defaults apply.
export SRTSLURM_CONFIG="$work/srt-slurm.yaml"
run 0 "$SRTCTL" dry-run -f recipe.yaml -o json
[[ $(jq -r .model.path out) == /lustre/models/Qwen3-32B ]] ||
	fail "model.path alias not resolved: $(jq -c .model out)"
[[ $(jq -r .model.container out) == /lustre/containers/sglang-latest.sqsh ]] ||
	fail "default_container (an alias) not applied: $(jq -c .model out)"
grep -q -- '--account=acct' out || fail "default_account not in the batch script"
grep -q -- '--partition=batch' out || fail "default_partition not in the batch script"
for key in output_dir reporting gpus_per_node; do
	n=$(grep -c "srt-slurm.yaml:[0-9]*:[0-9]*: warning: $key: " err || true)
	[[ $n == 1 ]] || fail "'$key' warned about $n times, want once: $(cat err)"
done
# The job switches are read, not warned about: no --gpus-per-node, --segment
# as a comment (Slurm 24.05+), and in the job as sent (v0.0.41+ only).
for key in use_gpus_per_node_directive use_segment_sbatch_directive srtctl_root; do
	! grep -q "warning: $key: " err || fail "'$key' is read, yet warned about: $(cat err)"
done
! grep -q -- '--gpus-per-node' out || fail "use_gpus_per_node_directive: false, yet --gpus-per-node"
jq -r .batch_script out | grep -q -- '^# #SBATCH --segment=1' || fail "use_segment_sbatch_directive: no --segment comment"
[[ $(jq -c '.job.slurmrestd["v0.0.42"].segment_size.number' out) == 1 &&
	$(jq -c '.job.slurmrestd["v0.0.40"].segment_size' out) == null &&
	$(jq -c '.job.slurmrestd["v0.0.38"].gpus_per_node' out) == null ]] ||
	fail "the job as sent: $(jq -c .job.slurmrestd out)"
run 0 "$SRTCTL" dry-run -f recipe.yaml
grep -q '^Model: /lustre/models/Qwen3-32B, container /lustre/containers/sglang-latest.sqsh$' out ||
	fail "text output does not show the resolved model: $(head -5 out)"
# The spec keeps what the recipe says (the alias), not the resolved path.
run 0 "$SRTCTL" validate -f recipe.yaml
run 0 "$SRTCTL" migrate -f "$DATA/mooncake-sglang.v1.yaml"

# A broken cluster config.
cat >broken.yaml <<'EOF'
default_account: acct
frobnicate: 1
EOF
export SRTSLURM_CONFIG="$work/broken.yaml"
# migrate and validate do not need the cluster: a warning, then the work.
run 0 "$SRTCTL" migrate -f "$DATA/mooncake-sglang.v1.yaml"
grep -qx 'schema: 2' out || fail "migrate did not print the migrated recipe"
grep -q "warning: unknown key 'frobnicate'" err || fail "the config's problem is not shown: $(cat err)"
grep -q "srtctl migrate: warning: the cluster config '$work/broken.yaml' is not usable" err ||
	fail "migrate does not say it goes on with the defaults: $(cat err)"
run 0 "$SRTCTL" validate -f recipe.yaml
grep -q "srtctl validate: warning: the cluster config '$work/broken.yaml' is not usable" err ||
	fail "validate does not say it goes on with the defaults: $(cat err)"
# A recipe that is invalid still fails validate (exit 1), config or not.
printf 'name: x\nengine: sglang\nroles: {agg: {nodes: 0}}\n' >bad.yaml
run 1 "$SRTCTL" validate -f bad.yaml
# The verbs that submit or render for the cluster refuse it.
run 1 "$SRTCTL" dry-run -f recipe.yaml
grep -q "srtctl dry-run: the cluster config '$work/broken.yaml' is not usable (see above); fix it" err ||
	fail "dry-run does not refuse the broken config clearly: $(cat err)"
grep -q "unknown key 'frobnicate'" err || fail "dry-run does not show the problem"
run 1 "$SRTCTL" apply -f recipe.yaml --db "$work/state.db"
grep -q "srtctl apply: the cluster config '$work/broken.yaml' is not usable" err ||
	fail "apply does not refuse the broken config clearly: $(cat err)"
run 1 "$SRTCTL" controller --db "$work/state.db" --once
grep -q "srtctl controller: the cluster config '$work/broken.yaml' is not usable" err ||
	fail "controller does not refuse the broken config clearly: $(cat err)"

# A config that is named but missing: the same split, as an I/O error (exit 2,
# see test_io_errors.sh).
export SRTSLURM_CONFIG="$work/missing.yaml"
run 0 "$SRTCTL" validate -f recipe.yaml
grep -q "warning: cannot read the cluster config '$work/missing.yaml'" err ||
	fail "validate does not warn about the missing config: $(cat err)"
run 2 "$SRTCTL" dry-run -f recipe.yaml

echo "test_cluster_config.sh: ok"
