# tests/cli/lib.sh: helpers shared by the CLI test scripts (sourced, not run).
#
#   fail MESSAGE      print FAIL: MESSAGE and stop the test (exit 1)
#   run CODE CMD...   run CMD with stdout in ./out and stderr in ./err; fail
#                     (showing both) unless it exits CODE
#   isolated_workdir  cd into a new $work (removed on exit) with no srtctl
#                     state, cluster config or timeouts from the environment
#   apply_pd DB       write r.yaml (recipe alpha: one prefill, one decode
#                     worker) and apply it to DB
#   page_console LOG  the console messages of the page under test in a
#                     chromium --enable-logging=stderr LOG: Chromium's own
#                     pages (source chrome://...) are not the page's
#   fake_run_dir DB URL
#                     one controller pass (slurmrestd at URL unreachable)
#                     creates the run of the applied recipe; give it a run
#                     directory as its agent would: sets $RUN and $dir

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# Chromium's own UI logs to the same stream (seen under load: the omnibox's
# chrome://resources/.../composebox_input.js saying "Slow network is
# detected" about its font), which says nothing about the page.
page_console() {
	grep 'CONSOLE' "$1" | grep -v 'source: chrome://' || true
}

run() {
	local want=$1 rc=0
	shift
	"$@" >out 2>err || rc=$?
	if [[ $rc -ne $want ]]; then
		echo "--- stdout" >&2
		cat out >&2
		echo "--- stderr" >&2
		cat err >&2
		fail "'$*' exited $rc, expected $want"
	fi
}

isolated_workdir() {
	work=$(mktemp -d)
	# shellcheck disable=SC2064 # $work is fixed now
	trap "rm -rf '$work'" EXIT
	cd "$work" || exit 1
	export SRTSLURM_CONFIG=
	export XDG_STATE_HOME="$work/xdg"
	unset SRTCTL_DB SRTCTL_WATCH_TIMEOUT SRTCTL_EVENT_RETENTION
	# scripts/test exports the local SLURM's env (a token in SLURM_JWT, the
	# URL) for the tests that talk to it; these tests choose their own.
	unset SLURM_JWT SRTCTL_SLURMRESTD_URL
}

fake_run_dir() {
	local db=$1 url=$2
	"$SRTCTL" controller --once --url "$url" --db "$db" >ctl.log 2>&1 || true
	RUN=$(sqlite3 "$db" "SELECT name FROM runs LIMIT 1")
	[[ -n $RUN ]] || fail "no run after a controller pass: $(cat ctl.log)"
	dir="$work/outputs/$RUN"
	mkdir -p "$dir"
	sqlite3 "$db" "UPDATE runs SET run_dir = '$dir' WHERE name = '$RUN'"
}

apply_pd() {
	cat >r.yaml <<'YAML'
name: alpha
engine: sglang
roles:
  prefill: {}
  decode: {}
YAML
	run 0 "$SRTCTL" apply -f r.yaml --db "$1"
}

# agg_campaign NAME SHAPES CONCURRENCY [TOOL [MORE-YAML]]: NAME.yaml, a campaign of two
# deployments (roles.agg.workers 1 and 2) of r.yaml, one aggregated SGLang role (written
# here); SHAPES is the flow list of load.shapes, MORE-YAML lines added at the end.
agg_campaign() {
	cat >r.yaml <<'YAML'
name: base
engine: sglang
model: {path: /models/m, container: img}
roles:
  agg: {workers: 1}
YAML
	cat >"$1.yaml" <<YAML
kind: Campaign
name: $1
template: r.yaml
deployments:
  grid:
    roles.agg.workers: [1, 2]
load:
  shapes: $2
  concurrency: "$3"
benchmark: {tool: ${4:-vllm-bench}}
${5:-}
YAML
}
