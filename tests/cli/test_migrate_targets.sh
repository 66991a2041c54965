#!/usr/bin/env bash
# tests/cli/test_migrate_targets.sh: srtctl writes only regular files it may
# replace (issue #12, item 4).  `migrate -o PATH` refuses a symbolic link, a
# character device, a FIFO and a read-only file, leaving each unchanged;
# `--in-place` on a link migrates the link's target and keeps the link, and
# refuses a FIFO; `--db PATH` refuses a character device and a FIFO without
# creating PATH-journal next to it.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"

DATA="$SRT_SOURCE_DIR/tests/data/migrate"
V1="$DATA/mooncake-sglang.v1.yaml"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export SRTSLURM_CONFIG=
export XDG_STATE_HOME="$work/xdg"
unset SRTCTL_DB

# fail, run
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# -o onto a symbolic link: refused; the link and its target are unchanged.
echo precious >target.txt
ln -s target.txt link.yaml
run 2 "$SRTCTL" migrate -f "$V1" -o link.yaml
grep -q "'link.yaml' is a symbolic link, not a regular file" err || fail "link: $(cat err)"
[[ -L link.yaml && $(readlink link.yaml) == target.txt ]] || fail "-o replaced the link"
[[ $(cat target.txt) == precious ]] || fail "-o wrote through the link"

# -o onto a character device (a copy of /dev/full) and a FIFO: refused, unchanged.
have_mknod=0
if mknod full c 1 7 2>/dev/null; then
	have_mknod=1
	run 2 "$SRTCTL" migrate -f "$V1" -o full
	grep -q "'full' is a character device, not a regular file" err || fail "device: $(cat err)"
	[[ -c full && $(stat -c %t:%T full) == 1:7 ]] || fail "-o replaced the device"
else
	echo "test_migrate_targets: mknod not permitted; device cases skipped"
fi
mkfifo fifo
run 2 "$SRTCTL" migrate -f "$V1" -o fifo
grep -q "'fifo' is a FIFO, not a regular file" err || fail "fifo: $(cat err)"
[[ -p fifo ]] || fail "-o replaced the FIFO"
[[ -z $(ls -a | grep '\.tmp\.') ]] || fail "a temporary file was left: $(ls -a)"

# -o onto a read-only file (even as root): refused, unchanged.
echo keep >ro.yaml
chmod 0444 ro.yaml
run 2 "$SRTCTL" migrate -f "$V1" -o ro.yaml
grep -q "'ro.yaml' is read-only (mode 0444)" err || fail "read-only: $(cat err)"
[[ $(cat ro.yaml) == keep && $(stat -c %a ro.yaml) == 444 ]] || fail "-o replaced a read-only file"

# -o onto a writable regular file still works.
echo old >ok.yaml
run 0 "$SRTCTL" migrate -f "$V1" -o ok.yaml
grep -qx 'schema: 2' ok.yaml || fail "-o did not replace a writable regular file"

# --in-place on a link: the target is migrated (backup next to it), the link stays.
mkdir real
cp "$V1" real/r.yaml
ln -s real/r.yaml inplace.yaml
run 0 "$SRTCTL" migrate -f inplace.yaml --in-place
[[ -L inplace.yaml && $(readlink inplace.yaml) == real/r.yaml ]] || fail "--in-place replaced the link"
grep -qx 'schema: 2' real/r.yaml || fail "--in-place did not migrate the link's target"
cmp -s real/r.yaml.v1.bak "$V1" || fail "no backup of the target next to it"

# --in-place on a FIFO: refused at once (no blocking read), unchanged.
mkfifo infifo
run 2 timeout 10 "$SRTCTL" migrate -f infifo --in-place
grep -q "'infifo' is a FIFO, not a regular file" err || fail "in-place fifo: $(cat err)"
[[ -p infifo && ! -e infifo.v1.bak ]] || fail "--in-place touched the FIFO"

# --db on a character device or a FIFO: refused, no -journal created.
cat >r.yaml <<YAML
name: alpha
engine: sglang
roles:
  prefill: {}
  decode: {}
YAML
dbs=(dbfifo)
mkfifo dbfifo
if [[ $have_mknod == 1 ]]; then
	mknod dbnull c 1 3
	dbs+=(dbnull)
fi
for db in "${dbs[@]}"; do
	rc=0
	timeout 10 "$SRTCTL" apply -f r.yaml --db "$work/$db" >out 2>err || rc=$?
	[[ $rc -ne 0 && $rc -ne 124 ]] || fail "--db $db: exit $rc: $(cat err)"
	grep -q "database path $work/$db is not a regular file" err || fail "--db $db: $(cat err)"
	[[ ! -e $work/$db-journal && ! -e $work/$db-wal ]] || fail "--db $db created $(ls "$work")"
done
[[ -p dbfifo ]] || fail "the FIFO database path was replaced"
[[ $have_mknod == 0 || ($(stat -c %t:%T dbnull) == 1:3 && -c dbnull) ]] || fail "dbnull changed"

# An absent --db is still created.
run 0 "$SRTCTL" apply -f r.yaml --db "$work/new.db"
[[ -f new.db ]] || fail "an absent --db was not created"
echo "test_migrate_targets: ok"
