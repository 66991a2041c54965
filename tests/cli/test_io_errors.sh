#!/usr/bin/env bash
# tests/cli/test_io_errors.sh: I/O errors exit 2, as docs/cli-reference.md's
# exit-code table says (issue #12, items a and b).
#
# A cluster config that cannot be read (a directory, a missing file, mode 000
# for a user who is not root) is an I/O error: exit 2 for every verb that
# needs the cluster (dry-run, apply, diff, controller), with a message naming
# the file; validate and migrate, which do not need it, warn and go on (exit
# 0).  An invalid config stays exit 1.  A failed write to standard output
# (/dev/full) is an I/O error for every verb that prints: exit 2 and a message
# on stderr, never exit 0 with the output lost.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"

# fail, run, isolated_workdir, apply_pd
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
isolated_workdir
DB="$work/state/srtctl.db"
URL=http://127.0.0.1:9 # nothing listens on the discard port

apply_pd "$DB"
V1="$SRT_SOURCE_DIR/tests/data/migrate/mooncake-sglang.v1.yaml"
sed 's/decode: {}/decode: {nodes: 2}/' r.yaml >r2.yaml # differs from what was applied

# ---- an unreadable cluster config ----

# expect_io CASE: the last `run` named the config in $cfg as unreadable.
expect_io() {
	grep -qF "cannot read the cluster config '$cfg'" err ||
		fail "$1: the error does not name the unreadable config: $(cat err)"
}
mkdir cfgdir
for cfg in "$work/cfgdir" "$work/missing.yaml"; do
	export SRTSLURM_CONFIG=$cfg
	run 2 "$SRTCTL" dry-run -f r.yaml
	expect_io "dry-run, $cfg"
	run 2 "$SRTCTL" apply -f r.yaml --db "$DB"
	expect_io "apply, $cfg"
	run 2 "$SRTCTL" diff -f r.yaml --db "$DB"
	expect_io "diff, $cfg"
	run 2 "$SRTCTL" controller --once --url "$URL" --db "$DB"
	expect_io "controller, $cfg"
	# validate and migrate do not need the cluster: a warning, then the work.
	run 0 "$SRTCTL" validate -f r.yaml
	grep -qF "warning: cannot read the cluster config '$cfg'" err ||
		fail "validate does not warn about $cfg: $(cat err)"
	run 0 "$SRTCTL" migrate -f "$V1"
done
export SRTSLURM_CONFIG=
run 2 "$SRTCTL" dry-run -f r.yaml --cluster-config "$work/cfgdir"
cfg="$work/cfgdir" expect_io "dry-run --cluster-config"
# ./srtslurm.yaml found by discovery, but a directory.
mkdir srtslurm.yaml
cfg=srtslurm.yaml
run 2 "$SRTCTL" dry-run -f r.yaml
expect_io "dry-run, ./srtslurm.yaml a directory"
rmdir srtslurm.yaml

# Mode 000: root reads it anyway, so this case runs as nobody.
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
printf 'default_account: acct\n' >locked.yaml
chmod 000 locked.yaml
chmod 0755 "$work"
if [[ $(id -u) != 0 ]]; then
	cfg="$work/locked.yaml"
	SRTSLURM_CONFIG=$cfg run 2 "$SRTCTL" dry-run -f r.yaml
	expect_io "dry-run, mode 000"
elif as_nobody "$SRTCTL" version >/dev/null 2>&1; then
	cfg="$work/locked.yaml"
	chmod 0644 r.yaml
	SRTSLURM_CONFIG=$cfg run 2 as_nobody "$SRTCTL" dry-run -f r.yaml
	expect_io "dry-run as nobody, mode 000"
else
	echo "note: user nobody cannot run $SRTCTL; the mode 000 case is skipped"
fi

# An invalid config is still invalid input, exit 1.
printf 'frobnicate: 1\n' >broken.yaml
export SRTSLURM_CONFIG="$work/broken.yaml"
run 1 "$SRTCTL" dry-run -f r.yaml
run 1 "$SRTCTL" apply -f r.yaml --db "$DB"
run 1 "$SRTCTL" controller --once --url "$URL" --db "$DB"
export SRTSLURM_CONFIG=

# ---- a failed write to standard output ----

# full CASE CMD...: CMD with stdout on /dev/full exits 2 and says why.
full() {
	local what=$1 rc=0
	shift
	"$@" >/dev/full 2>err || rc=$?
	[[ $rc == 2 ]] || fail "$what with stdout on /dev/full exited $rc, want 2: $(cat err)"
	grep -q "cannot write to standard output" err ||
		fail "$what: no message about the failed write: $(cat err)"
}
full "get -o json" "$SRTCTL" get recipes -o json --db "$DB"
full "get" "$SRTCTL" get recipes --db "$DB"
full "get runs -o yaml" "$SRTCTL" get recipes -o yaml --db "$DB"
full "describe" "$SRTCTL" describe recipe alpha --db "$DB"
full "events" "$SRTCTL" events --db "$DB"
full "validate" "$SRTCTL" validate -f r.yaml -o json
full "dry-run" "$SRTCTL" dry-run -f r.yaml
full "migrate" "$SRTCTL" migrate -f "$V1"
full "diff" "$SRTCTL" diff -f r2.yaml --db "$DB"
full "apply --dry-run" "$SRTCTL" apply -f r.yaml --dry-run --db "$DB"
full "version" "$SRTCTL" version
full "--help" "$SRTCTL" --help
full "get --help" "$SRTCTL" get --help
# The failed write changed nothing else: the same commands print normally.
run 0 "$SRTCTL" get recipes -o json --db "$DB"
[[ $(jq -r '.items[0].name' out) == alpha ]] || fail "get after the failed writes: $(cat out)"

echo "test_io_errors: ok"
