#!/bin/bash
# tests/cli/test_man.sh: the man pages made from the help texts
# (packaging/man/gen-man.py, as the build and the .deb make them).
#
# One page per verb that `srtctl --help` lists, plus srtctl(1); each renders
# with man(1) at 80 columns without a single groff warning; each carries its
# verb's usage and options; the gzipped pages are the same pages.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"
# shellcheck source=tests/cli/lib.sh
source "$(dirname "$0")/lib.sh"
command -v man >/dev/null || { echo "test_man: SKIP: man(1) is not installed (man-db)"; exit 77; }
isolated_workdir

python3 "$SRT_SOURCE_DIR/packaging/man/gen-man.py" "$SRTCTL" plain
python3 "$SRT_SOURCE_DIR/packaging/man/gen-man.py" --gzip "$SRTCTL" gz
mapfile -t verbs < <("$SRTCTL" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 {print $1}')
[ "${#verbs[@]}" -ge 10 ] || fail "too few verbs in srtctl --help: ${verbs[*]}"
pages=(srtctl)
for v in "${verbs[@]}"; do pages+=("srtctl-$v"); done
[ "$(find plain -name '*.1' | wc -l)" -eq "${#pages[@]}" ] ||
	fail "pages: $(ls plain), want ${pages[*]}"

for p in "${pages[@]}"; do
	f=plain/$p.1
	[ -f "$f" ] || fail "no page $f"
	MANWIDTH=80 man --warnings -l "$f" >"$p.txt" 2>"$p.warn" || fail "man -l $f failed: $(cat "$p.warn")"
	[ ! -s "$p.warn" ] || fail "groff warnings for $p: $(cat "$p.warn")"
	grep -q "^NAME" "$p.txt" && grep -q "^SYNOPSIS" "$p.txt" || fail "$p: no NAME or SYNOPSIS"
	gzip -dc "gz/$p.1.gz" | cmp -s - "$f" || fail "gz/$p.1.gz is not $f"
done

# The content is the help's: usage, options, sections.
grep -q 'srtctl doctor \[--url URL\] \[--api-version VERSION\] \[--db PATH\]' srtctl-doctor.txt ||
	fail "srtctl-doctor(1) lacks the usage line: $(cat srtctl-doctor.txt)"
grep -A1 -E '^ +--db PATH$' srtctl-doctor.txt | grep -Eq 'the +state +database' ||
	fail "srtctl-doctor(1) lacks --db under OPTIONS"
grep -q '^EXAMPLES' srtctl-get.txt || fail "srtctl-get(1) has no EXAMPLES"
grep -q 'WatchdogSec' srtctl-controller.txt || fail "srtctl-controller(1) lacks the systemd paragraph"
for v in "${verbs[@]}"; do
	grep -q "srtctl-$v(1)" srtctl.txt || fail "srtctl(1) does not list srtctl-$v(1)"
done

echo "test_man: ok (${#pages[@]} pages)"
