#!/usr/bin/env bash
# tests/cli/test_corpus_argv.sh: every worker and frontend command line srtctl
# renders for a real recipe passes the strict stand-ins' check.
#
# For every recipe srtctl accepts -- the v1 corpus ($SRT_CORPUS_DIR, every
# *.yaml / *.yml at all depths, migrated first) and srt-slurm 2.0's examples
# ($SRT_V2_EXAMPLES_DIR, dry-run as they are); a variant file gives several
# recipes -- `srtctl dry-run -o json` renders the plan twice, in pyxis
# containers and on bare nodes, with a cluster config whose `commands:` point
# sglang, vllm, sglang_router, vllm_router, the Dynamo programs, trtllm_launch,
# dynamo_trtllm and trtllm at the strict stand-ins in tests/fakes.  Each
# worker process (every rank of a multi-node SGLang/vLLM worker; the one
# process of a TRT-LLM worker) and each frontend process then goes through
# its stand-in with FAKE_CHECK_ONLY=1 (tests/cli/corpus_argv_check.py, one
# Python process for all of them): the argv's node placeholders bound as the
# agent binds them (node i = 10.0.0.<i+1>, <log_dir> a real directory per
# plan), the model directory created and mounted where the plan mounts it.
# A process with a config file (TRT-LLM's engine YAML, `trtllm-serve
# disaggregated`'s server config) gets its config_text written into the log
# directory first, its placeholders bound when config_runtime says the
# agent binds them; in pyxis the log directory is mounted at /logs, as the
# agent mounts it.  A TRT-LLM worker runs as rank 0 of its MPI step
# (SLURM_PROCID=0, SLURM_NTASKS=ntasks): trtllm_llmapi_launch checks its own
# argv, then calls the wrapped dynamo_trtllm / trtllm_serve stand-in in the
# same process, as the real launcher's rank 0 runs it (no MPI variables,
# tllm_mpi_size = ntasks).  Every one must exit 0, except the few listed in
# `known` below, which must be refused exactly as listed (a flag of the
# recipe, not of srtctl; the reason is printed).
#
# What this checks: the argv parses as the real CLI parses it (flag names,
# prefixes, value types, choices, required options; vllm's dotted JSON
# options; vllm-router's clap rules; dynamo.trtllm's argparse and leftovers,
# trtllm-serve's click rules), and the stand-ins' startup checks that need
# no peer: the model argument names the mounted model directory (or the
# recipe's own path on a bare node), 0 <= node rank < nnodes, tp * pp a
# multiple of nnodes, --dist-init-addr HOST:PORT when nnodes > 1, a prefill
# not using the fake transfer backend, the served name without ':',
# --headless without API servers, a PD router with prefill and decode URLs;
# for TRT-LLM, that the engine YAML the argv names is the file the agent
# writes (in the container too), that it parses as a mapping, that its
# tensor_parallel_size * pipeline_parallel_size * context_parallel_size
# equals the step's MPI ranks (ntasks), that no placeholder is left in
# config_text, and that `trtllm-serve disaggregated`'s config has
# context_servers and generation_servers with as many host:port urls as
# num_instances.
# What it does not check: anything that needs a running peer (dist-init
# rendezvous, bootstrap reachability, the Mooncake master, vLLM's
# data-parallel address, TRT-LLM's MPI Comm server and ranks > 0 of its
# step), the processes' env (CUDA_VISIBLE_DEVICES, MOONCAKE_*, the UCX_*
# that trtllm-llmapi-launch removes), whether the router's or the
# disaggregated server's URLs name the workers' ports, GPU counts against
# the node, --config files other than those srtctl writes, the engine
# YAML's keys against TRT-LLM's LlmArgs (only the parallel sizes are
# read), the engines' own checks after parsing beyond those above, and
# whether a flag exists in the SGLang / Dynamo / TRT-LLM version a
# recipe's image pins (the stand-ins' tables are from newer sources, so a
# flag added since passes here).
#
# Recipes srtctl refuses (a sweep, a frontend, stack or service srtctl does
# not run) are counted, not checked: tests/cli/test_corpus.sh and
# test_v2_examples.sh assert why each is refused, and a refusal for any
# other reason fails this test (frontend.type dynamo and trtllm_serve are
# run now, so refusing them fails it too).  A directory that is absent is
# skipped with a notice; the recipes of tests/data/argv (stacks neither holds, such as
# Dynamo's mocker) are always checked.
set -uo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
src=${SRT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
F=$src/tests/fakes
. "$src/tests/cli/corpus_lib.sh"

CORPUS=${SRT_CORPUS_DIR:-}
V2=${SRT_V2_EXAMPLES_DIR:-}
have_corpus=0 have_v2=0
if [[ -n $CORPUS && -d $CORPUS ]]; then
	have_corpus=1
	CORPUS=$(cd "$CORPUS" && pwd)
else
	echo "corpus not found at ${CORPUS:-(unset)} (set SRT_CORPUS_DIR): its part is skipped"
fi
if [[ -n $V2 && -d $V2 ]]; then
	have_v2=1
	V2=$(cd "$V2" && pwd)
else
	echo "srt-slurm 2.0 examples not found at ${V2:-(unset)} (set SRT_V2_EXAMPLES_DIR): their part is skipped"
fi
# Recipes of this repository for stacks neither holds (Dynamo's mocker): always checked.
LOCAL=$src/tests/data/argv

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
unset SRTCTL_DB FAKE_RECORD_DIR FAKE_RECORD_FILE FAKE_CONTAINER_MOUNTS FAKE_BIND_HOST


# corpus_lib.sh's cluster config (srt-slurm's keys) with the model aliases
# the recipes name (a cluster's srtslurm.yaml defines them), and the engines,
# routers, Dynamo programs and TRT-LLM's launcher replaced by the stand-ins.
# Every recipe is rendered twice: in pyxis containers (the model mounted at
# /model, the log directory at /logs), as srt-slurm runs, and on bare nodes
# (host paths in the argv).
cluster() { # cluster RUNTIME
	corpus_cluster_yaml dsr1=/lustre/models/dsr1 dsr1-fp8=/lustre/models/dsr1-fp8 \
		dsfp4=/lustre/models/dsfp4 dsfp8=/lustre/models/dsfp8 \
		qwen3-0.6b=/lustre/models/qwen3-0.6b qwen3-4b=/lustre/models/qwen3-4b \
		qwen3-32b=/lustre/models/qwen3-32b qwen3.5-fp8=/lustre/models/qwen3.5-fp8 \
		qwen3.5-nvfp4=/lustre/models/qwen3.5-nvfp4 qwen3-32b-fp8=/lustre/models/qwen3-32b-fp8 \
		dsr1-fp4=/lustre/models/dsr1-fp4 glm-5-fp4=/lustre/models/glm-5-fp4 \
		glm-5-fp8=/lustre/models/glm-5-fp8 deepseek-v4-pro=/lustre/models/deepseek-v4-pro \
		deepseekv4-fp4=/lustre/models/deepseekv4-fp4 \
		DeepSeek-R1-0528=/lustre/models/DeepSeek-R1-0528 glm5.3=/lustre/models/glm5.3
	cat <<EOF
runtime:
  container_runtime: $1
commands:
  sglang: [$F/sglang_launch_server]
  vllm: [$F/vllm, serve]
  sglang_router: [$F/sglang_router]
  vllm_router: [$F/vllm-router]
  dynamo_sglang: [$F/dynamo_sglang]
  dynamo_vllm: [$F/dynamo_vllm]
  dynamo_frontend: [$F/dynamo_frontend]
  mocker: [$F/dynamo_mocker]
  trtllm_launch: [$F/trtllm_llmapi_launch]
  numactl: [$F/numactl]
  dynamo_trtllm: [$F/dynamo_trtllm]
  dynamo_trtllm_pool: [$F/dynamo_trtllm_pool]
  trtllm: [$F/trtllm_serve]
  lmcache: [$F/lmcache]
  ray: [$F/ray]
  tilert_decode: [$F/tilert_decode_server]
  tilert_router: [$F/tilert_pd_router]
EOF
}
cluster pyxis >pyxis.yaml
cluster none >none.yaml

# Why srtctl may refuse a recipe; tests/cli/test_corpus.sh and
# test_v2_examples.sh check each refusal in detail.  A refusal for any other
# reason (this test's cluster config, say) fails the test.  frontend.type
# dynamo and trtllm_serve are no longer among them: srtctl runs both.
refusal='srtctl runs a sweep as a campaign|which srtctl does not run|is not run by srtctl'
refusal+="|is not started by srtctl|engine '[a-z]+' is not supported by srtctl"
refusal+="|Write 'type: sglang-router' to put a router in front"

# Argv the stand-ins refuse because of the recipe, not the rendering: FILE,
# the refusal's text, and why (counted; the test fails if one passes or is
# refused for anything else, so the list stays true).
known=(
	"corpus/srt-slurm-v1/qwen3-32b__ruter-3p2d-dynamo.yaml|model.path '\$RUTER_MODEL_PATH' is neither absolute|its model.path is the literal \$RUTER_MODEL_PATH, which the file's comment asks the user to export; srtctl does not expand variables in a recipe, so no mount or engine could find it"
	"corpus/srt-slurm-v1/dsv4-pro__sglang__gb300-fp4__8k1k.yaml|Unknown arguments specified: ['--no-kv-events']|frontend.args no-kv-events is a flag of the older Dynamo frontend this recipe pins (dynamo.hash); the Dynamo 1.x frontend the stand-in follows refuses it"
	"corpus/srt-slurm-v1/dsv4-pro__sglang__gb300-fp4__8k1k__disagg__disagg-12p1d-dep4-dep12.yaml|Unknown arguments specified: ['--no-kv-events']|the same older Dynamo frontend flag"
	"corpus/srt-slurm-v1/vllm__deepseek-v4-pro__GB200__8k1k__disagg-gb200-3p1d-dep8-dep16-c4096-offload.yaml|error: unrecognized arguments: --|its args pass flags of the vLLM it pins (v0.20: --numa-bind, --offload-*, --stream-interval, --no-enable-flashinfer-autotune) that the stand-ins' v0.11-era vLLM engine table lacks"
	"v2/examples__features__lmcache-server-disagg.yaml|Legacy L1 configuration requires --l1-size-gb and --eviction-policy|its lmcache-server args give --l1-size-gb but no --eviction-policy, which every LMCache read requires (argparse-required in older releases, a ValueError at startup in the newest); srt-slurm's aggregated example passes --eviction-policy LRU"
	"v2/examples__tilert__glm5-rocm-mooncake-disagg.yaml|Incorrect path_or_model_id: '/model'|its router's model-path is /model, where the model is mounted in a pyxis container (srt-slurm's and srtctl's); rendered for bare nodes (container_runtime: none) there is no /model to read the tokenizer from"
	"v2/examples__sglang__sgl-router-disagg.yaml|unrecognized arguments: --load-publish-endpoint|its args pass --load-publish-endpoint auto, an SGLang flag newer than the stand-ins' table (sgl-project/sglang#34608; SGLang needs --kv-events-config with it, which roles.*.kv_events gives)"
)

files=0 v1files=0 v2files=0 accepted=0 refused=0 njson=0
: >list
refusals=()
# note_refusal LABEL: srtctl refused it (err holds why); count it, or keep
# it as a failure when the reason is not one of $refusal.
note_refusal() {
	refused=$((refused + 1))
	# Not `grep -q` at the end of a pipe: it exits at its first match, the
	# grep before it can die of SIGPIPE, and pipefail turns the match into a
	# failure (seen once in CI on a long stderr).
	grep -v 'warning:' "$work/err" | grep -E "$refusal" >/dev/null ||
		refusals+=("$1: srtctl refused it: $(grep -m1 -v 'warning:' "$work/err")")
}
# dryrun RUNTIME LABEL FILE: FILE's dry-run JSON joins the list; a refusal
# is noted once (for the first runtime).
dryrun() {
	local out="$work/json/$njson.json"

	njson=$((njson + 1))
	if SRTSLURM_CONFIG="$work/$1.yaml" "$SRTCTL" dry-run -f "$3" -o json >"$out" \
		2>"$work/err"; then
		[[ $1 == pyxis ]] && accepted=$((accepted + 1))
		printf '%s\t%s\n' "$1:$2" "$out" >>list
	elif [[ $1 == pyxis ]]; then
		note_refusal "$2"
	fi
}
mkdir -p "$work/json"

for rt in pyxis none; do
	if ((have_corpus)); then
		while IFS= read -r -d '' f; do
			rel=${f#"$CORPUS"/}
			[[ $rt == pyxis ]] && files=$((files + 1)) v1files=$((v1files + 1))
			out="$work/v2/$rel"
			mkdir -p "$(dirname "$out")"
			if SRTSLURM_CONFIG="$work/$rt.yaml" "$SRTCTL" migrate -f "$f" -o "$out" \
				>/dev/null 2>"$work/err"; then
				dryrun $rt "corpus/$rel" "$out"
			elif grep -q 'already in the v2 layout' "$work/err"; then
				dryrun $rt "corpus/$rel" "$f"
			elif [[ $rt == pyxis ]]; then
				note_refusal "corpus/$rel"
			fi
		done < <(find "$CORPUS" -name '.*' -prune -o -type f \
			\( -name '*.yaml' -o -name '*.yml' \) -print0 | sort -z)
	fi
	for f in "$LOCAL"/*.yaml; do
		[[ $rt == pyxis ]] && files=$((files + 1))
		dryrun $rt "local/${f##*/}" "$f"
	done
	if ((have_v2)); then
		for f in "$V2"/*.yaml; do
			[[ -e $f ]] || continue
			[[ $rt == pyxis ]] && files=$((files + 1)) v2files=$((v2files + 1))
			dryrun $rt "v2/${f##*/}" "$f"
		done
	fi
done

python3 "$src/tests/cli/corpus_argv_check.py" "$F" "$work/check" list >"$work/result"
rc=$?
declare -A n=() seen=() recipes=()
expected=0 complete=0
fails=()
while IFS=$'\t' read -r tag label proc prog status msg; do
	case $tag in
	recipes*) read -r _ r k <<<"$tag" && recipes[$r]=$k ;;
	checked*) read -r _ p k <<<"$tag" && n[$p]=$k ;;
	end) complete=1 ;;
	FAIL)
		file=${label#*:}
		file=${file%% \[*}
		hit=
		for i in "${!known[@]}"; do
			IFS='|' read -r kf km _ <<<"${known[$i]}"
			if [[ $file == "$kf" && $msg == *"$km"* ]]; then
				hit=$i
				break
			fi
		done
		if [[ -n $hit ]]; then
			expected=$((expected + 1))
			seen[$hit]=1
		else
			fails+=("$label: process $proc ($prog, exit $status): $msg")
		fi
		;;
	esac
done <"$work/result"
for i in "${!known[@]}"; do
	[[ -n ${seen[$i]:-} ]] && continue
	IFS='|' read -r kf km _ <<<"${known[$i]}"
	if [[ -e ${V2:-/nonexistent}/${kf#v2/} || -e ${CORPUS:-/nonexistent}/${kf#corpus/} ]]; then
		fails+=("$kf: expected the stand-in to refuse it ($km), but it did not")
	fi
done

echo "files: $files ($v1files corpus, $v2files srt-slurm 2.0 examples); $accepted dry-run," \
	"$refused refused by srtctl (an engine, frontend, service or sweep it does not run; not checked)"
echo "recipes rendered: ${recipes[pyxis]:-0} in pyxis containers, ${recipes[none]:-0} on bare nodes"
total=0
for p in sglang_launch_server vllm sglang_router vllm-router dynamo_sglang dynamo_vllm \
	dynamo_mocker dynamo_frontend numactl trtllm_llmapi_launch dynamo_trtllm dynamo_trtllm_pool trtllm_serve \
	trtllm_serve_disaggregated trtllm_serve_pool lmcache ray tilert_decode_server tilert_pd_router nginx; do
	case $p in
	numactl) what="argv checked (the memory binding of TRT-LLM's gb200/gb300 prefill and decode ranks; its command checked below)" ;;
	trtllm_llmapi_launch) what="argv checked (rank 0 of the worker's MPI step)" ;;
	dynamo_trtllm | trtllm_serve) what="argv checked (under the launcher, in its world)" ;;
	dynamo_trtllm_pool) what="argv checked (dynamo.trtllm inside TRT-LLM's pool, under the launcher)" ;;
	trtllm_serve_disaggregated) what="argv checked (the orchestrator and its server config)" ;;
	trtllm_serve_pool) what="argv checked (TRT-LLM's pool: trtllm-serve mooncake_master and mooncake_donor)" ;;
	lmcache) what="argv checked (lmcache-server services: lmcache server)" ;;
	ray) what="argv checked (ray services: ray start --head, and each joiner's ray start --address)" ;;
	nginx) what="config checked by the real nginx -t (nginx in front of several frontends)" ;;
	*) what="argv checked" ;;
	esac
	echo "  ${p/_disaggregated/ disaggregated}: ${n[$p]:-0} $what"
	total=$((total + ${n[$p]:-0}))
done
echo "  refused by a stand-in because of the recipe (listed in the test): $expected"
for k in "${known[@]}"; do
	IFS='|' read -r kf _ why <<<"$k"
	echo "    $kf: $why"
done
fails+=("${refusals[@]}")
echo "  failures: ${#fails[@]}"
for m in "${fails[@]}"; do
	echo "FAIL   $m" >&2
done
if ((!complete || (rc != 0 && rc != 1))); then
	echo "FAIL: the argv checker exited $rc" >&2
	exit 1
fi
((files > 0)) || { echo "FAIL: no recipe files found" >&2; exit 1; }
((total > 0)) || { echo "FAIL: no worker or frontend argv was checked" >&2; exit 1; }
((${#fails[@]} == 0)) || exit 1
echo "test_corpus_argv.sh: ok"
