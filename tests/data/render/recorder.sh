#!/bin/bash
# Test stand-in for an engine or service process (tests/unit/test_script.c).
# Records its argv and its environment, NUL-separated, into
# $SRT_RECORD_DIR/rec.<pid>.argv and .env, then exits, or with
# RECORDER_LINGER=N stays alive N seconds (as a server would).
set -eu
out=$SRT_RECORD_DIR/rec.$$
printf '%s\0' "$@" >"$out.argv.tmp"
env -0 >"$out.env"
mv "$out.argv.tmp" "$out.argv"
echo "recorder: $# argument(s) recorded"
if [[ -n ${RECORDER_LINGER:-} ]]; then
	exec sleep "$RECORDER_LINGER"
fi
