#!/usr/bin/env bash
# tests/cli/test_fakes_flagdata.sh: the strict stand-ins' flag tables
# (tests/fakes/flags/*.flags) still say what the real engines' flag lists in
# $SRT_ENGINE_FLAGS_DIR say: regenerating them from those lists changes
# nothing.  Without the lists the test is skipped (exit 77); the stand-ins
# themselves never need them.
set -uo pipefail

src=${SRT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
DIR=${SRT_ENGINE_FLAGS_DIR:-}
if [[ -z $DIR || ! -d $DIR ]]; then
	echo "engine flag lists not found at ${DIR:-(unset)} (set SRT_ENGINE_FLAGS_DIR)"
	exit 77
fi
python3 "$src/tests/fakes/flagdata.py" check "$DIR" "$src/tests/fakes/flags"
