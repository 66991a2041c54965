#!/usr/bin/env bash
# tests/cli/test_v2_examples.sh: srt-slurm 2.0's example recipes.
#
# Each file of $SRT_V2_EXAMPLES_DIR either validates and dry-runs, or is
# refused because it needs a stack srtctl does not run (vLLM's GPU memory
# service), a sweep (apply refuses it and
# names the migrate command that writes its campaign; tests/cli/test_migrate.sh
# converts this example), or it writes the pre-2.0 router spelling
# `frontend.type: sglang` over several workers (2.0 reads `sglang` as one
# worker without a router; the error says to write sglang-router).  A refused file must say
# so in at least one error, and none of its errors may be an unknown key:
# every key srt-slurm accepts is known to srtctl.  Prints the counts.
# Without the examples the test is skipped (exit 77).
set -uo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"

DIR=${SRT_V2_EXAMPLES_DIR:-}
if [[ -z $DIR || ! -d $DIR ]]; then
	echo "srt-slurm 2.0 examples not found at ${DIR:-(unset)} (set SRT_V2_EXAMPLES_DIR)"
	exit 77
fi
DIR=$(cd "$DIR" && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
unset SRTCTL_DB
export SRTSLURM_CONFIG=

stack='which srtctl does not run|is not run by srtctl|is not started by srtctl'
stack+="|engine '[a-z]+' is not supported by srtctl|srtctl runs a sweep as a campaign"
stack+="|Write 'type: sglang-router' to put a router in front"
# Stacks srtctl runs, which once were refused: TRT-LLM's mooncake-store
# connector on the native master (each role's client config), on
# TRT-LLM's own pool commands (trtllm-serve mooncake_master, donors), Ray
# clusters on node pools (Miles's RL jobs of services only), and TileRT's
# prefill/decode (vLLM prefill, TileRT decode, TileRT's router).
must_run=(examples__trtllm__trtllm-serve-disagg-mooncake.yaml examples__trtllm__dynamo-disagg-mooncake.yaml
	examples__trtllm__trtllm-serve-mooncake.yaml examples__trtllm__dynamo-mooncake.yaml
	examples__miles__qwen3-4b-grpo.yaml examples__miles__qwen3-4b-openenv-tbench2.yaml
	examples__miles__openenv-tbench2-smoke.yaml examples__tilert__glm5-disagg.yaml
	examples__tilert__glm5-rocm-mooncake-disagg.yaml)
files=0 ran=0 refused=0
failures=()
for f in "$DIR"/*.yaml; do
	[[ -e $f ]] || continue
	files=$((files + 1))
	name=${f##*/}
	if "$SRTCTL" validate -f "$f" >/dev/null 2>"$work/err"; then
		if "$SRTCTL" dry-run -f "$f" >/dev/null 2>"$work/err"; then
			ran=$((ran + 1))
		else
			failures+=("$name: validates but dry-run fails: $(grep -m1 -v 'warning:' "$work/err")")
		fi
		continue
	fi
	grep -v 'warning:' "$work/err" >"$work/errors"
	if [[ " ${must_run[*]} " == *" $name "* ]]; then
		failures+=("$name: must validate and dry-run: $(head -n1 "$work/errors")")
	elif ! grep -Eq "$stack" "$work/errors"; then
		failures+=("$name: refused, but not for a stack srtctl does not run: $(head -n1 "$work/errors")")
	elif grep -q "unknown key" "$work/errors"; then
		failures+=("$name: a key srt-slurm accepts is unknown: $(grep -m1 'unknown key' "$work/errors")")
	else
		refused=$((refused + 1))
	fi
done

echo "srt-slurm 2.0 examples: $files files, $ran validate and dry-run, $refused refused for a stack srtctl does not run"
if ((files == 0)); then
	echo "FAIL: no *.yaml in $DIR"
	exit 1
fi
if ((${#failures[@]})); then
	printf 'FAIL: %s\n' "${failures[@]}"
	exit 1
fi
echo "PASS"
