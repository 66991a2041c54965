#!/bin/bash
# tests/cli/test_completion.sh: bash completion (packaging/completions/srtctl.bash).
#
# Sourced into this bash, as bash-completion would: `complete -p srtctl`
# names the function; with COMP_WORDS/COMP_CWORD set, _srtctl fills
# COMPREPLY with the verbs, a verb's flags, the kinds of get/describe/delete,
# -o's formats, and object names from the database (also the one --db names).
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"
# shellcheck source=tests/cli/lib.sh
source "$(dirname "$0")/lib.sh"
isolated_workdir

# shellcheck source=packaging/completions/srtctl.bash
source "$SRT_SOURCE_DIR/packaging/completions/srtctl.bash"
[[ $(complete -p srtctl) == "complete -F _srtctl srtctl" ]] ||
	fail "complete -p srtctl: $(complete -p srtctl 2>&1)"

# The binary under test stands in for srtctl on PATH.
mkdir bin
ln -s "$SRTCTL" bin/srtctl
PATH=$work/bin:$PATH

# comp WORD... : complete the last word; COMPREPLY sorted, space-separated, in $got.
comp() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	set +u
	_srtctl
	set -u
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
	got=${got% }
}
expect() { # WANT WORD...
	local want=$1
	shift
	comp "$@"
	[[ $got == "$want" ]] || fail "completing '$*': got '$got', want '$want'"
}

expect "delete describe diff doctor dry-run" srtctl d
expect "apply" srtctl ap
comp srtctl ""
[[ " $got " == *" controller "* && " $got " == *" version "* && " $got " != *" agent "* ]] ||
	fail "the verbs: $got"
expect "--db --dry-run" srtctl apply --d
expect "--interval" srtctl controller --in
expect "campaigns" srtctl get c
expect "recipes runs" srtctl get r
expect "campaign recipe run service" srtctl describe ""
expect "json wide yaml" srtctl get runs -o ""
expect "csv json wide yaml" srtctl get points -o ""
expect "json text" srtctl doctor -o ""
expect "campaign" srtctl suspend ""
expect "campaign" srtctl resume c
expect "--db --failed --help --invalid" srtctl retry campaign x --
expect "render report resume retry" srtctl re

# Names from the database: $SRTCTL_DB, then the --db on the line.
apply_pd "$work/a.db"
cat >c.yaml <<'YAML'
kind: Campaign
name: sweepy
template: r.yaml
deployments: {grid: {roles.decode.workers: [1]}}
load: {shapes: [{isl: 8, osl: 8}], concurrency: [1]}
benchmark: {tool: vllm-bench}
YAML
run 0 "$SRTCTL" apply -f c.yaml --db "$work/a.db"
export SRTCTL_DB=$work/a.db
expect "sweepy" srtctl retry campaign ""
expect "sweepy" srtctl wait campaign s
expect "sweepy" srtctl compare ""
expect "sweepy" srtctl compare sweepy s
expect "" srtctl compare sweepy sweepy ""
expect "sweepy" srtctl report ""
expect "" srtctl report sweepy ""
expect "alpha" srtctl get recipes ""
expect "alpha" srtctl describe recipe a
expect "alpha campaign" srtctl wait ""
expect "alpha" srtctl delete recipe ""
unset SRTCTL_DB
expect "" srtctl get recipes ""
expect "alpha" srtctl get recipes --db "$work/a.db" ""
expect "alpha" srtctl get --db "$work/a.db" recipes al
expect "alpha" srtctl get runs --db "$work/a.db" --recipe ""

echo "test_completion: ok"
