#!/usr/bin/env bash
# tests/cli/test_corpus.sh: every real recipe migrates, validates and dry-runs.
#
# Walks $SRT_CORPUS_DIR at all depths (hidden entries skipped, sorted), with
# an srtslurm.yaml written for srt-slurm (model_paths, containers,
# default_container, use_gpus_per_node_directive, ...).  Each file: a v1
# recipe is migrated (a v2 one is taken as it is), then validated, then
# dry-run.  Prints the counts.  A recipe with `sweep:` (top level, or in a
# variant file's section) must never run as one job: migrate writes it as a
# campaign (kind: Campaign), which validates and dry-runs deployment by
# deployment, or, when a campaign cannot say it (a swept benchmark setting),
# as a variant file of one job per combination (zip_override_sweep), as
# srt-slurm submitted them; a v2 one is refused by validate, which names the migrate
# command that writes its campaign.  A recipe whose benchmark is sa-bench
# (srt-slurm runs it inside the job) migrates to a campaign of one deployment,
# the benchmark its load.  Any other failure fails the test
# (TRT-LLM's recipes included: Dynamo over TRT-LLM and trtllm_serve run).  Without the corpus the test is skipped (exit 77).
set -uo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
src=${SRT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$src/tests/cli/corpus_lib.sh"

CORPUS=${SRT_CORPUS_DIR:-}
if [[ -z $CORPUS || ! -d $CORPUS ]]; then
	echo "corpus not found at ${CORPUS:-(unset)} (set SRT_CORPUS_DIR)"
	exit 77
fi
CORPUS=$(cd "$CORPUS" && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
unset SRTCTL_DB

corpus_cluster_yaml >srtslurm.yaml
export SRTSLURM_CONFIG="$work/srtslurm.yaml"

files=0 v1=0 v2=0 migrated=0 validated=0 dryrun=0 recipes=0
sweep=0 sweep_campaign=0 sweep_variants=0 sweep_refused=0 failed=0 bench_campaign=0
failures=()

while IFS= read -r -d '' f; do
	rel=${f#"$CORPUS"/}
	files=$((files + 1))
	is_sweep=0
	grep -Eq '^(  )?sweep:' "$f" && is_sweep=1 && sweep=$((sweep + 1))
	out="$work/out/$rel"
	mkdir -p "$(dirname "$out")"
	step=""
	if "$SRTCTL" migrate -f "$f" -o "$out" >/dev/null 2>"$work/err"; then
		# a v2 recipe migrates too when its sa-bench benchmark becomes a campaign
		if grep -q '^backend:\|^  backend:' "$f"; then v1=$((v1 + 1)); else v2=$((v2 + 1)); fi
		migrated=$((migrated + 1))
		((!is_sweep)) && grep -q '^kind: Campaign' "$out" && bench_campaign=$((bench_campaign + 1))
	elif grep -q 'already in the v2 layout' "$work/err"; then
		v2=$((v2 + 1))
		cp "$f" "$out"
	else
		grep -q '^backend:\|^  backend:' "$f" && v1=$((v1 + 1))
		step=migrate
	fi
	if [[ -z $step ]]; then
		if "$SRTCTL" validate -f "$out" -o json >"$work/v.json" 2>"$work/err"; then
			validated=$((validated + 1))
			recipes=$((recipes + $(jq '[.files[].recipes | length] | add' "$work/v.json")))
		else
			step=validate
			jq -r '[.files[].errors[] | "\(.file):\(.line):\(.column): \(.path // ""): \(.message)"][0] // empty' \
				"$work/v.json" >"$work/err" 2>/dev/null || true
		fi
	fi
	if [[ -z $step ]]; then
		if "$SRTCTL" dry-run -f "$out" -o json >/dev/null 2>"$work/err"; then
			dryrun=$((dryrun + 1))
		else
			step=dry-run
		fi
	fi
	# A sweep never runs as one job: it is a campaign after migrate, or
	# validate refuses it and says how to get the campaign.
	if ((is_sweep)); then
		if [[ -z $step ]] && grep -q '^kind: Campaign' "$out"; then
			sweep_campaign=$((sweep_campaign + 1))
			continue
		fi
		# a sweep a campaign cannot say: one variant (one job) per combination
		if [[ -z $step ]] && grep -q '^zip_override_sweep:' "$out"; then
			sweep_variants=$((sweep_variants + 1))
			continue
		fi
		if [[ -n $step ]] && grep -q 'srtctl runs a sweep as a campaign' "$work/err"; then
			sweep_refused=$((sweep_refused + 1))
			continue
		fi
		[[ -n $step ]] || step="accepted as one job"
	fi
	[[ -z $step ]] && continue
	why=$(grep -v 'warning:' "$work/err" | head -n 1)
	if ((is_sweep)); then
		failed=$((failed + 1))
		failures+=("$rel (sweep): $step: $why")
	else
		failed=$((failed + 1))
		failures+=("$rel: $step: $why")
	fi
done < <(find "$CORPUS" -name '.*' -prune -o -type f \( -name '*.yaml' -o -name '*.yml' \) \
	-print0 | sort -z)

echo "corpus $CORPUS: $files files ($v1 v1, $v2 v2), $migrated migrated, $validated validated" \
	"($recipes recipes), $dryrun dry-run"
echo "  sa-bench recipes migrated to a campaign of one deployment (srt-slurm runs the benchmark" \
	"in the job, srtctl as the campaign's load): $bench_campaign"
echo "  sweep files: $sweep ($sweep_campaign migrated to a campaign that validates and dry-runs," \
	"$sweep_variants to a variant file of one job per combination, $sweep_refused refused naming" \
	"migrate); failures: $failed"
for m in "${failures[@]}"; do
	echo "FAIL   $m" >&2
done
((files > 0)) || { echo "FAIL: no recipe files under $CORPUS" >&2; exit 1; }
((failed == 0)) || exit 1
echo "test_corpus.sh: ok"
