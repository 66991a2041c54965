#!/bin/bash
# tests/packaging/test_deb.sh BUILD_DIR: the .deb `cpack -G DEB` makes.
#
# Builds the package from BUILD_DIR, checks its control fields (Depends on
# the libraries srtctl links and the libcurl it loads) and its files (the
# binary, the systemd unit, the man pages, the completions), then installs
# it on this machine with dpkg -i, runs `srtctl version` and `srtctl doctor`
# from /usr/bin, reads a man page and verifies the unit from where they were
# installed, and removes the package (dpkg -r), leaving nothing behind.
#
# Installing needs root and a machine without another srtctl in /usr/bin;
# otherwise (or with SRT_DEB_INSTALL=0) the package is unpacked with
# dpkg -x into a scratch root and the same commands run from there.
set -euo pipefail

BUILD=${1:?usage: test_deb.sh BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
command -v dpkg-deb >/dev/null || { echo "test_deb: SKIP: not a Debian system (no dpkg-deb)"; exit 77; }
work=$(mktemp -d)
installed=0
cleanup() {
	if [ "$installed" -eq 1 ]; then dpkg_locked -r srtctl >/dev/null 2>&1 || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
# dpkg ARGS..., waiting up to two minutes for the lock another apt/dpkg holds.
dpkg_locked() {
	local i out
	for i in $(seq 1 60); do
		if out=$(dpkg "$@" 2>&1); then
			printf '%s\n' "$out"
			return 0
		fi
		grep -q 'lock' <<<"$out" || { printf '%s\n' "$out" >&2; return 1; }
		sleep 2
	done
	printf '%s\n' "$out" >&2
	return 1
}

# Build.
(cd "$work" && cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$work/pkg" >cpack.log 2>&1) ||
	fail "cpack failed: $(cat "$work/cpack.log")"
deb=$(find "$work/pkg" -maxdepth 1 -name 'srtctl_*.deb' | head -n 1)
[ -n "$deb" ] || fail "no srtctl_*.deb in $work/pkg: $(ls "$work/pkg")"

# Control fields.
[ "$(dpkg-deb -f "$deb" Package)" = srtctl ] || fail "Package: $(dpkg-deb -f "$deb" Package)"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libyaml-0-2 libjansson4 libsqlite3-0 libsystemd0 libcurl4 libmicrohttpd12 libc6; do
	grep -qE "(^|, )$lib( |,|$)" <<<"$depends" || fail "Depends lacks $lib: $depends"
done
# `srtctl report` inlines Debian's Chart.js; nothing else needs it
grep -q "libjs-chart.js" <<<"$(dpkg-deb -f "$deb" Recommends)" ||
	fail "Recommends lacks libjs-chart.js: $(dpkg-deb -f "$deb" Recommends)"

# Files.
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$work/files"
for f in /usr/bin/srtctl /usr/lib/systemd/system/srtctl-controller.service \
	/usr/share/man/man1/srtctl.1.gz /usr/share/man/man1/srtctl-controller.1.gz \
	/usr/share/man/man1/srtctl-doctor.1.gz /usr/share/man/man1/srtctl-apply.1.gz \
	/usr/share/bash-completion/completions/srtctl /usr/share/zsh/vendor-completions/_srtctl \
	/usr/share/doc/srtctl/examples/srtctl-controller.default; do
	grep -qx "$f" "$work/files" || fail "the package lacks $f: $(cat "$work/files")"
done
! grep -q '^/etc/' "$work/files" || fail "the package ships files under /etc: $(grep '^/etc/' "$work/files")"

# Install (or unpack).
root=
if [ "$(id -u)" -eq 0 ] && [ "${SRT_DEB_INSTALL:-1}" != 0 ] && [ ! -e /usr/bin/srtctl ]; then
	dpkg_locked -i "$deb" >"$work/dpkg.log" || fail "dpkg -i failed: $(cat "$work/dpkg.log")"
	installed=1
	[ "$(dpkg-query -W -f='${Status}' srtctl)" = "install ok installed" ] ||
		fail "dpkg does not list srtctl as installed"
	mode=installed
else
	dpkg-deb -x "$deb" "$work/root"
	root=$work/root
	mode="unpacked into $root (not root, SRT_DEB_INSTALL=0, or /usr/bin/srtctl already exists)"
fi
bin=$root/usr/bin/srtctl

cd "$work"
"$bin" version >version.out || fail "srtctl version failed"
grep -qE '^srtctl [0-9]+\.[0-9]+\.[0-9]+ ' version.out || fail "srtctl version: $(cat version.out)"
rc=0
env SRTSLURM_CONFIG= XDG_STATE_HOME="$work/xdg" SRTCTL_DB= SLURM_JWT= \
	"$bin" doctor --url http://127.0.0.1:9 >doctor.out 2>doctor.err || rc=$?
[ "$rc" -eq 1 ] || fail "srtctl doctor exited $rc, want 1 (slurmrestd unreachable): $(cat doctor.out doctor.err)"
grep -qE '^FAIL +slurmrestd +http://127.0.0.1:9 \(from --url\): NOT usable \(UNREACHABLE\)' doctor.out ||
	fail "srtctl doctor: $(cat doctor.out)"
grep -qE '^WARN +database ' doctor.out || fail "srtctl doctor has no database line: $(cat doctor.out)"
MANWIDTH=80 man --warnings -l "$root/usr/share/man/man1/srtctl-doctor.1.gz" >man.out 2>man.err ||
	fail "man srtctl-doctor: $(cat man.err)"
[ ! -s man.err ] || fail "man srtctl-doctor warns: $(cat man.err)"
if [ "$installed" -eq 1 ]; then
	[ "$(man -w srtctl-controller)" = /usr/share/man/man1/srtctl-controller.1.gz ] ||
		fail "man -w srtctl-controller: $(man -w srtctl-controller 2>&1)"
fi
if command -v systemd-analyze >/dev/null; then
	# verify also checks that ExecStart's binary and the man page exist:
	# true only once installed.
	if [ "$installed" -eq 1 ]; then
		systemd-analyze verify /usr/lib/systemd/system/srtctl-controller.service >verify.out 2>&1 ||
			fail "systemd-analyze verify: $(cat verify.out)"
		[ ! -s verify.out ] || fail "systemd-analyze verify warns: $(cat verify.out)"
	fi
fi

if [ "$installed" -eq 1 ]; then
	dpkg_locked -r srtctl >"$work/dpkg.log" || fail "dpkg -r failed: $(cat "$work/dpkg.log")"
	installed=0
	[ ! -e /usr/bin/srtctl ] || fail "/usr/bin/srtctl is still there after dpkg -r"
	[ ! -e /usr/lib/systemd/system/srtctl-controller.service ] || fail "the unit is still there after dpkg -r"
fi
echo "test_deb: ok ($(basename "$deb"), $mode)"
