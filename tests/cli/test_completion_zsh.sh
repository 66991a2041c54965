#!/bin/bash
# tests/cli/test_completion_zsh.sh: zsh completion (packaging/completions/_srtctl)
# at a real zsh prompt: tests/cli/zsh_complete.zsh types each line and TAB
# into an interactive zsh (compinit, _srtctl first in $fpath) and reports
# what the completion system offered.  _srtctl runs the bash completion
# through zsh's bashcompinit, so this is the one test that the bash file
# also works under zsh (it once did not: bash's mapfile).  Fails when zsh is
# missing (scripts/install-deps installs it).
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"
# shellcheck source=tests/cli/lib.sh
source "$(dirname "$0")/lib.sh"
command -v zsh >/dev/null || fail "zsh is not installed: run scripts/install-deps (as root), which installs it"
isolated_workdir

# The binary under test stands in for srtctl on PATH; names come from this database.
mkdir bin
ln -s "$SRTCTL" bin/srtctl
PATH=$work/bin:$PATH
apply_pd "$work/a.db"
export SRTCTL_DB=$work/a.db

lines=('srtctl ap' 'srtctl d' 'srtctl apply --d' 'srtctl get r' 'srtctl get runs -o '
	'srtctl get recipes ' 'srtctl describe recipe a' "srtctl get --db $work/a.db recipes al"
	'srtctl controller --in')
want=('apply' 'delete describe diff doctor dry-run' '--db --dry-run' 'recipes runs'
	'json wide yaml' 'alpha' 'alpha' 'alpha' '--interval')
# Under ASan, LeakSanitizer's exit scan can deadlock in a program that runs as
# a job of an interactive zsh on a pseudo-terminal (seen: its tracer waits in
# ThreadSuspender::SuspendThread for a ptrace stop that never comes while
# srtctl spins waiting for the tracer).  This test is about what completion
# offers; the same verbs are leak-checked by the other tests.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
timeout 120 zsh -f "$SRT_SOURCE_DIR/tests/cli/zsh_complete.zsh" \
	"$SRT_SOURCE_DIR/packaging/completions" "${lines[@]}" >got 2>err ||
	fail "zsh_complete.zsh failed: $(cat err)"
mapfile -t got <got
[[ ${#got[@]} -eq ${#lines[@]} ]] || fail "want ${#lines[@]} answers, got: $(cat got) $(cat err)"
for i in "${!lines[@]}"; do
	[[ ${got[i]} == "${want[i]}" ]] ||
		fail "zsh completing '${lines[i]}': got '${got[i]}', want '${want[i]}'"
done
echo "test_completion_zsh: ok (${#lines[@]} lines completed at a zsh prompt)"
