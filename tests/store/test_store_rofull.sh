#!/usr/bin/env bash
# tests/store/test_store_rofull.sh: a read-only or full disk gives a clear
# error (what failed, which database, what to do) and leaves the database as
# it was.  Runs in a private mount namespace (unshare -m) on small tmpfs
# mounts, so nothing outlives the test; needs root (skips otherwise).
#
#   read-only filesystem      write fails, names the file, says "read-only";
#                             reading still works (immutable fallback)
#   read-only database file   (a read-only bind mount of the file) the same
#   read-only directory       as an unprivileged user: write fails and says
#                             the directory must be writable; reading works
#   unreadable file           as an unprivileged user: "permission denied"
#   full disk                 write fails with "full", both when the disk is
#                             completely full and when a large write runs out
#                             half-way; a new database cannot be created
#
# After each failure the digest of every row is unchanged, integrity_check
# is ok, and once the cause is removed the next write succeeds.
set -euo pipefail

driver=${STORE_DRIVER:?set STORE_DRIVER to the store_driver binary}

if [ "${1:-}" != --inner ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "SKIP: needs root to mount a tmpfs"
		exit 77
	fi
	if ! unshare -m --propagation private true 2>/dev/null; then
		echo "SKIP: cannot create a mount namespace (unshare -m)"
		exit 77
	fi
	exec unshare -m --propagation private bash "$0" --inner
fi

failures=0
mnt=$(mktemp -d)
mounted=()
cleanup() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[i]}" 2>/dev/null || true; done
	rmdir "$mnt" 2>/dev/null || true
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# expect_error WHAT DB PATTERN CMD...: CMD must exit 1 and its stderr must name DB and match PATTERN.
expect_error() {
	local what=$1 db=$2 pattern=$3 out rc=0
	shift 3
	out=$("$@" 2>&1 >/dev/null) || rc=$?
	if [ $rc -ne 1 ]; then
		fail "$what: exit status $rc, expected 1 (output: $out)"
	elif ! grep -qF -- "$db" <<<"$out"; then
		fail "$what: the error does not name the database: $out"
	elif ! grep -qiE -- "$pattern" <<<"$out"; then
		fail "$what: the error does not match /$pattern/: $out"
	else
		echo "ok: $what: $out"
	fi
}

# expect_same WHAT DB DIGEST: the database's rows are unchanged and intact.
expect_same() {
	local what=$1 db=$2 before=$3 after
	if ! after=$("$driver" dump "$db" 2>&1); then
		fail "$what: cannot read the database afterwards: $after"
		return
	fi
	[ "$after" = "$before" ] || fail "$what: the database changed ($before -> $after)"
	"$driver" check "$db" >/dev/null || fail "$what: check failed after the error"
}

as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

if ! mount -t tmpfs -o size=8m,mode=0755 tmpfs "$mnt"; then
	echo "SKIP: cannot mount a tmpfs here"
	exit 77
fi
mounted+=("$mnt")

# ---- read-only filesystem ----
mkdir "$mnt/ro"
mount -t tmpfs -o size=4m tmpfs "$mnt/ro"
mounted+=("$mnt/ro")
db=$mnt/ro/srtctl.db
"$driver" apply "$db" first >/dev/null
"$driver" apply "$db" second >/dev/null
digest=$("$driver" dump "$db")
mount -o remount,ro "$mnt/ro"
expect_error "apply on a read-only filesystem" "$db" "read-only" "$driver" apply "$db" third
expect_error "event on a read-only filesystem" "$db" "read-only" "$driver" event "$db"
out=$("$driver" get "$db" 2>&1) || fail "get on a read-only filesystem: $out"
[ "$out" = "recipes 2" ] || fail "get on a read-only filesystem printed: $out"
mount -o remount,rw "$mnt/ro"
expect_same "read-only filesystem" "$db" "$digest"
"$driver" apply "$db" third >/dev/null || fail "apply after remounting read-write"

# ---- read-only database file in a writable directory ----
digest=$("$driver" dump "$db")
mount --bind "$db" "$db"
mounted+=("$db")
mount -o remount,bind,ro "$db"
expect_error "apply to a read-only file" "$db" "read-only" "$driver" apply "$db" fourth
umount "$db"
unset 'mounted[${#mounted[@]}-1]'
expect_same "read-only file" "$db" "$digest"

# ---- permissions, as an unprivileged user (root ignores file modes) ----
if as_nobody test -x "$driver" 2>/dev/null; then
	mkdir "$mnt/user"
	chown 65534:65534 "$mnt/user"
	db=$mnt/user/srtctl.db
	as_nobody "$driver" apply "$db" first >/dev/null
	digest=$("$driver" dump "$db")
	chmod 0500 "$mnt/user"
	expect_error "apply in a read-only directory" "$db" "directory .*not writable" \
		as_nobody "$driver" apply "$db" second
	out=$(as_nobody "$driver" get "$db" 2>&1) || fail "get in a read-only directory: $out"
	[ "$out" = "recipes 1" ] || fail "get in a read-only directory printed: $out"
	chmod 0700 "$mnt/user"
	chmod 0000 "$db"
	expect_error "get of an unreadable file" "$db" "permission denied" \
		as_nobody "$driver" get "$db"
	chmod 0600 "$db"
	expect_same "read-only directory" "$db" "$digest"
	as_nobody "$driver" apply "$db" second >/dev/null || fail "apply after chmod u+w"
else
	echo "note: user nobody cannot run $driver; permission cases skipped"
fi

# ---- full disk ----
mkdir "$mnt/full"
mount -t tmpfs -o size=2m tmpfs "$mnt/full"
mounted+=("$mnt/full")
db=$mnt/full/srtctl.db
"$driver" apply "$db" first >/dev/null
"$driver" apply "$db" second >/dev/null
digest=$("$driver" dump "$db")
# Fill the disk completely (bounded by its 2 MiB).
dd if=/dev/zero of="$mnt/full/filler" bs=4k count=1024 2>/dev/null || true
expect_error "apply on a full disk" "$db" "full" "$driver" apply "$db" third 1000
expect_error "event on a full disk" "$db" "full" "$driver" event "$db"
expect_error "creating a database on a full disk" "$mnt/full/new.db" "full|no space" \
	"$driver" apply "$mnt/full/new.db" first
rm -f "$mnt/full/filler" "$mnt/full/new.db"* # even reading needs a little space (-shm)
expect_same "full disk" "$db" "$digest"
# Leave ~300 KiB free and write 1 MB: the disk fills half-way through the write.
free_kb=$(df -k --output=avail "$mnt/full" | tail -n 1)
dd if=/dev/zero of="$mnt/full/filler" bs=1k count=$((free_kb - 300)) 2>/dev/null || true
expect_error "large apply running out of space" "$db" "full" "$driver" apply "$db" big 1000000
rm -f "$mnt/full/filler"
expect_same "disk full half-way" "$db" "$digest"
"$driver" apply "$db" third >/dev/null || fail "apply after freeing space"
"$driver" check "$db" >/dev/null || fail "check after freeing space"

if [ $failures -ne 0 ]; then
	echo "$failures failure(s)" >&2
	exit 1
fi
echo "PASS: read-only and full disk"
