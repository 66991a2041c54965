# shellcheck shell=bash disable=SC2015,SC2016,SC2034,SC2317
# scripts/lib/slurm-local-2411.sh: the "24.11" flavour of scripts/slurm-local.
#
# Sourced by scripts/slurm-local, after all of its own functions are defined,
# for `--release 24.11` (or SLURM_LOCAL_RELEASE=24.11).  Debian 13's real Slurm
# 24.11.5 (slurmrestd REST v0.0.40, v0.0.41 and v0.0.42) runs in a trixie
# chroot that debootstrap builds once from Debian's registry and that stays
# cached between runs ($SLURM_LOCAL_2411_CHROOT, /var/cache/srtctl/trixie-chroot).
#
# The shape is the native flavour's: munged, slurmctld and slurmrestd run in
# the host's network namespace, each node's slurmd in a network, UTS and mount
# namespace of its own on a bridge of its own (srt24-br, 10.232.0.0/24), and
# every daemon is chroot'ed into the trixie tree.  The state directory is
# bind-mounted into the chroot at the same path, so slurm.conf, the jobs
# directory, the pid files and the munge socket have one path inside and out.
#
# Everything that could collide with a native cluster running at the same time
# is different: state directory, ports (6837 ctld, 6838 slurmd, 6831 REST),
# bridge, subnet, namespace names.  The native script's generic helpers (say,
# die, alive, readpid, wait_for, stop_pids, net_up, net_down, daemons,
# cluster_state, write_token, ...) are reused through the variables set here;
# what differs is redefined below.
#
# Pitfall that shapes the design (shared/notes/slurm-2411-chroot-facts.md §5):
# without slurmdbd, a REST DELETE by a non-privileged user of ANOTHER user's
# job deadlocks slurmctld for good.  So: one JWT user per cluster (the env
# token's), and `down` cancels with scancel as root inside the chroot.

# ---- settings (the 24.11 flavour) -------------------------------------------

RELEASE=24.11
NET=srt24 # prefix of every network object: srt24-br, srt24-node1, srt24-v1
BR=$NET-br
CTL_HOST=$NET-ctl
OPENAPI=openapi/slurmctld # the job API only (no openapi/slurmdbd: not needed)
DEFAULT_NODES=3
CLUSTER=srtlocal2411
# On the host: MariaDB runs from the host's package, slurmdbd in the chroot.
PACKAGES=(debootstrap mariadb-server curl jq iproute2 util-linux procps)
# In the chroot.  hostname and iproute2 so that job scripts can print their
# node's IPs (hostname -I, ip route get) as on the native flavour.  The
# runtime of srtctl (built on the host, run by the batch jobs in the chroot:
# libyaml, jansson, sqlite, libsystemd, libmicrohttpd, and libcurl, which it
# dlopen()s), python3 and python3-yaml for the stand-ins under tests/fakes,
# and libpmix-dev for srun --mpi=pmix (TRT-LLM's MPI steps).  debootstrap
# installs CHROOT_BASE_PKGS; CHROOT_APT_PKGS are installed after it with
# apt-get (upgrade_chroot), because debootstrap's resolver takes the first
# of a dependency's alternatives only: libpmix-dev needs libltdl-dev, which
# needs "automake-1.17 | automaken", and debootstrap leaves it unconfigured.
# A cached chroot whose marker lacks some of CHROOT_PKGS gets them installed
# by the next up.
CHROOT_BASE_PKGS=(slurmctld slurmd slurmrestd slurm-client munge slurm-wlm-jwt-plugin slurmdbd
	curl ca-certificates hostname iproute2 procps
	libyaml-0-2 libjansson4 libsqlite3-0 libsystemd0 libmicrohttpd12t64 libcurl4t64 python3
	python3-yaml)
CHROOT_APT_PKGS=(libpmix-dev)
CHROOT_PKGS=("${CHROOT_BASE_PKGS[@]}" "${CHROOT_APT_PKGS[@]}")
CHROOT_SUITE=trixie
PMIX_DIR=/var/lib/srtctl-pmix # in the chroot; each node's own (start_slurmd)
CHROOT_FORMAT=1 # bump to force a rebuild of every cached chroot

settings_2411() { # the caller's settings (again in up: not a dead run's)
	L=${SLURM_LOCAL_2411_DIR:-/tmp/srtctl-slurm-local-2411}
	ROOTFS=${SLURM_LOCAL_2411_CHROOT:-/var/cache/srtctl/trixie-chroot}
	SUBNET=${SLURM_LOCAL_2411_SUBNET:-10.232.0}
	CTLD_PORT=${SLURM_LOCAL_2411_CTLD_PORT:-6837}
	SLURMD_PORT=${SLURM_LOCAL_2411_SLURMD_PORT:-6838}
	REST_PORT=${SLURM_LOCAL_2411_REST_PORT:-6831}
	ACCOUNTING=${SLURM_LOCAL_ACCOUNTING:-1}
	DBD_PORT=${SLURM_LOCAL_2411_DBD_PORT:-6839}
	PING_VERSION=${SLURM_LOCAL_2411_PING_VERSION:-v0.0.42}
	MIN_JOB_AGE=${SLURM_LOCAL_MIN_JOB_AGE:-600}
	TOKEN_LIFESPAN=${SLURM_LOCAL_TOKEN_LIFESPAN:-86400}
	CPUS=${SLURM_LOCAL_CPUS:-4}
	GPUS=${SLURM_LOCAL_GPUS:-4}
	JOB_USER=${SLURM_LOCAL_USER:-slurmci}
	UNIX_SOCKET=${SLURM_LOCAL_UNIX_SOCKET:-1}
	KEEP_ON_FAIL=${SLURM_LOCAL_KEEP_ON_FAIL:-0}
	CONF=$L/etc/slurm.conf
	CLUSTER_ENV=$L/cluster.env
	TOKEN_FILE=$L/etc/$JOB_USER.jwt
	HEADERS=$L/etc/rest-headers
	REST_SOCK=$L/sock/rest.sock
	CHROOT_MARK=$ROOTFS/.srtctl-chroot-complete
	CHROOT_OWNER=$ROOTFS.owner # the state directory whose cluster uses the chroot
}
settings_2411

usage() {
	cat <<'EOF'
scripts/slurm-local --release 24.11 CMD   (or SLURM_LOCAL_RELEASE=24.11)
  Slurm 24.11.5 (REST v0.0.40..v0.0.42) in a cached Debian trixie chroot.

  up [--nodes N]       build the chroot if needed (debootstrap, ~70 s once), start
  down                 cancel jobs, stop every daemon, unmount, remove the state
  status               what runs (exit 0 up, 1 down or broken)
  env                  shell lines to eval (same names as the native flavour,
                       plus SRT_SLURM_RELEASE and SRT_SLURM_CHROOT)
  token [--lifespan S] print a fresh JWT for the cluster's user
  shell NODE [CMD...]  run CMD (default: bash) on node NODE, inside the chroot
  restart-rest [tcp|unix]  stop slurmrestd and start it again (client tests)
  chroot [CMD...]      run CMD (default: bash) in the chroot, host namespaces
EOF
}

check_settings_2411() {
	check_settings
	[[ $ROOTFS =~ ^/[A-Za-z0-9._/-]+$ ]] && [ "$ROOTFS" != / ] && [ "${ROOTFS%/}" = "$ROOTFS" ] ||
		die "SLURM_LOCAL_2411_CHROOT='$ROOTFS' must be an absolute path of [A-Za-z0-9._/-] without a trailing /"
	[ "${L%/}" = "$L" ] || die "SLURM_LOCAL_2411_DIR must not end with /"
	case $L/ in "$ROOTFS"/*) die "the state directory must not be inside the chroot" ;; esac
	case $ROOTFS/ in "$L"/*) die "the chroot must not be inside the state directory" ;; esac
	[[ $PING_VERSION =~ ^v0\.0\.4[0-2]$ ]] || die "SLURM_LOCAL_2411_PING_VERSION must be v0.0.40, v0.0.41 or v0.0.42"
}

# Slurm commands of the chroot, as root, with a clean environment and bounded
# (a wedged slurmctld must not hang us).  Never with SLURM_JWT in it.
sl() { timeout 20 chroot "$ROOTFS" /usr/bin/env -i PATH="$DPATH" SLURM_CONF="$CONF" "$@"; }

chroot_id() { # chroot_id passwd|group NAME: the numeric id inside the chroot
	awk -F: -v n="$2" '$1 == n { print $3; f = 1; exit } END { exit !f }' "$ROOTFS/etc/$1"
}

# ---- mounts -------------------------------------------------------------------

mounts_under() { # mounts_under DIR: mount points at or below DIR, last mounted first
	awk -v d="$1" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/mounts | tac
}

unmount_under() { # unmount_under DIR: unmount everything at or below DIR (bounded)
	local m round
	for round in 1 2 3 4 5; do
		[ -n "$(mounts_under "$1")" ] || return 0
		while read -r m; do
			[ -n "$m" ] || continue
			umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
		done < <(mounts_under "$1")
	done
	[ -z "$(mounts_under "$1")" ] || {
		say "WARNING: still mounted under $1: $(mounts_under "$1" | tr '\n' ' ')"
		return 1
	}
}

# remove_tree DIR: rm -rf, but never across a mount (a bind of /dev/pts or of
# the state directory inside a chroot must not be emptied through it).
remove_tree() {
	[ -e "$1" ] || return 0
	unmount_under "$1" || die "refusing to remove $1: something is still mounted below it"
	rm -rf --one-file-system "$1"
}

# The chroot's /tmp is the host's /tmp (a bind): batch jobs see a test's
# files under /tmp (its srtctl copy, stand-ins, database, records) at the same
# path as the host does.  The state directory is bound at its own path too
# (it need not be under /tmp).
mount_chroot() {
	local R=$ROOTFS
	mkdir -p "$R/proc" "$R/sys" "$R/dev/pts" "$R/dev/shm" "$R/tmp"
	mountpoint -q "$R/proc" || mount -t proc proc "$R/proc"
	mountpoint -q "$R/sys" || mount -t sysfs sysfs "$R/sys"
	mountpoint -q "$R/dev/pts" || mount --bind /dev/pts "$R/dev/pts"
	mountpoint -q "$R/dev/shm" || mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$R/dev/shm"
	mountpoint -q "$R/tmp" || mount --bind /tmp "$R/tmp"
	mkdir -p "$R$L" # through the /tmp bind when $L is under /tmp
	mountpoint -q "$R$L" || mount --bind "$L" "$R$L"
	printf '%s\n' "$L" >"$CHROOT_OWNER"
}

chroot_owner() { cat "$CHROOT_OWNER" 2>/dev/null || true; }

# unmount_chroot: our bind of the state directory, and the chroot's shared
# mounts (proc, sys, dev/pts, dev/shm, tmp) unless another state directory's
# cluster uses the chroot.
unmount_chroot() {
	local owner rc=0
	[ -d "$ROOTFS" ] || return 0
	unmount_under "$ROOTFS$L" || rc=1
	owner=$(chroot_owner)
	if [ -n "$owner" ] && [ "$owner" != "$L" ] && [ -n "$(mounts_under "$ROOTFS$owner")" ]; then
		say "the chroot's proc/sys/dev/tmp mounts belong to the cluster of $owner; leaving them"
		return $rc
	fi
	unmount_under "$ROOTFS/tmp" || rc=1
	# The chroot's own (empty) mount point, never the host's $L through a bind.
	if ! mountpoint -q "$ROOTFS/tmp"; then rmdir "$ROOTFS$L" 2>/dev/null || true; fi
	unmount_under "$ROOTFS/dev/shm" || rc=1
	unmount_under "$ROOTFS/dev/pts" || rc=1
	unmount_under "$ROOTFS/sys" || rc=1
	unmount_under "$ROOTFS/proc" || rc=1
	[ "$rc" -ne 0 ] || rm -f "$CHROOT_OWNER"
	return $rc
}

# ---- the chroot ---------------------------------------------------------------

chroot_spec() { printf 'srtctl %s chroot format %s: %s\n' "$CHROOT_SUITE" "$CHROOT_FORMAT" "$*"; } # PKG...

# chroot_built: a finished build of this suite and format (the marker is
# written last), whatever packages it has.
chroot_built() {
	[ -f "$CHROOT_MARK" ] && [ "$(sed 's/:.*//' "$CHROOT_MARK")" = "$(chroot_spec | sed 's/:.*//')" ] &&
		[ -x "$ROOTFS/usr/sbin/slurmctld" ] && [ -x "$ROOTFS/usr/sbin/slurmrestd" ] &&
		[ -x "$ROOTFS/usr/sbin/munged" ]
}

chroot_missing_pkgs() { # the packages of CHROOT_PKGS that the marker does not name
	local have p
	have=" $(sed 's/^[^:]*: *//' "$CHROOT_MARK" 2>/dev/null) "
	for p in "${CHROOT_PKGS[@]}"; do
		case $have in *" $p "*) ;; *) printf '%s\n' "$p" ;; esac
	done
}

chroot_complete() { chroot_built && [ -z "$(chroot_missing_pkgs)" ]; }

# apt_mirror: the Debian mirror apt uses on this machine (it serves trixie too).
apt_mirror() {
	local m=${SLURM_LOCAL_2411_MIRROR:-}
	if [ -z "$m" ] && [ -r /etc/apt/sources.list.d/debian.sources ]; then
		m=$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
	fi
	if [ -z "$m" ]; then
		m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; exit } }')
	fi
	[ -n "$m" ] || die "cannot find the Debian mirror apt uses (no URIs: in /etc/apt/sources.list.d/debian.sources, no deb line in sources.list); set SLURM_LOCAL_2411_MIRROR"
	printf '%s' "$m"
}

build_chroot() {
	local tmp=$ROOTFS.build log=$ROOTFS.build.log mirror t0 rc=0
	t0=$(now)
	[ -e "/usr/share/debootstrap/scripts/$CHROOT_SUITE" ] ||
		die "CANNOT BUILD THE SLURM 24.11 CHROOT: debootstrap $(dpkg-query -W -f '${Version}' debootstrap 2>/dev/null) has no '$CHROOT_SUITE' script (Debian 12's 1.0.128+nmu2+deb12u2 has one)"
	mirror=$(apt_mirror)
	mkdir -p "$(dirname "$ROOTFS")"
	remove_tree "$tmp"
	say "building the Slurm 24.11 chroot: debootstrap $CHROOT_SUITE from $mirror into $ROOTFS (about 70 s, once per machine; log $log)"
	debootstrap --variant=minbase --include="$(
		IFS=,
		echo "${CHROOT_BASE_PKGS[*]}"
	)" "$CHROOT_SUITE" "$tmp" "$mirror" </dev/null >"$log" 2>&1 8>&- 9>&- || rc=$?
	unmount_under "$tmp" || true # debootstrap unmounts its own; make sure
	if [ "$rc" -ne 0 ]; then
		tail -n 15 "$log" | sed 's/^/  /' >&2
		remove_tree "$tmp" || true
		die "CANNOT BUILD THE SLURM 24.11 CHROOT: 'debootstrap $CHROOT_SUITE' from $mirror failed (exit $rc; is Debian's registry reachable?).  Full log: $log.  The 24.11 flavour cannot run on this machine without it."
	fi
	# Users: slurmrest (slurmrestd drops to it) and the JWT user.  The
	# packages made munge and slurm.
	chroot "$tmp" /usr/bin/env -i PATH="$DPATH" useradd --system --user-group --no-create-home \
		--home-dir /nonexistent --shell /usr/sbin/nologin "$REST_USER" >>"$log" 2>&1 ||
		die "useradd $REST_USER in the chroot failed; see $log"
	chroot "$tmp" /usr/bin/env -i PATH="$DPATH" apt-get clean >>"$log" 2>&1 || true
	chroot_spec "${CHROOT_BASE_PKGS[@]}" >"$tmp/.srtctl-chroot-complete" # last: marks the build complete
	if [ -e "$ROOTFS" ]; then
		say "removing the incomplete or outdated chroot $ROOTFS"
		remove_tree "$ROOTFS"
	fi
	mv "$tmp" "$ROOTFS"
	say "built the chroot in $(since "$t0") s: Slurm $(chroot_slurm_version), $(du -sh --one-file-system "$ROOTFS" | cut -f1) in $ROOTFS"
}

chroot_slurm_version() { # 24.11.5 (from the package, e.g. 24.11.5-4+deb13u1)
	local v
	v=$(chroot "$ROOTFS" /usr/bin/dpkg-query -W -f '${Version}' slurmctld 2>/dev/null) || v=unknown
	v=${v#*:}
	printf '%s' "${v%%-*}"
}

# upgrade_chroot: install the packages that a cached chroot of an older
# srtctl lacks (apt-get in the chroot), instead of building it again.  proc
# and the host's resolv.conf (the chroot's own names no nameserver) are
# mounted in a private mount namespace that ends with the install.
upgrade_chroot() {
	local log=$ROOTFS.upgrade.log t0 rc=0 missing
	mapfile -t missing < <(chroot_missing_pkgs)
	t0=$(now)
	say "the chroot $ROOTFS lacks ${missing[*]}: installing (apt-get in the chroot, log $log)"
	unshare --mount --propagation private -- /bin/sh -c '
		set -e
		R=$1 P=$2
		shift 2
		mount -t proc proc "$R/proc"
		mount --bind /etc/resolv.conf "$R/etc/resolv.conf"
		apt() { chroot "$R" /usr/bin/env -i PATH="$P" DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -q "$@"; }
		apt update
		apt install -y --no-install-recommends "$@"
		apt clean
	' sh "$ROOTFS" "$DPATH" "${missing[@]}" </dev/null >"$log" 2>&1 8>&- 9>&- || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 15 "$log" | sed 's/^/  /' >&2
		die "CANNOT UPGRADE THE SLURM 24.11 CHROOT: apt-get install ${missing[*]} in $ROOTFS failed (exit $rc; is Debian's registry reachable?).  Full log: $log.  Or rebuild it: rm $CHROOT_MARK"
	fi
	chroot_spec "${CHROOT_PKGS[@]}" >"$CHROOT_MARK.tmp" && mv -f "$CHROOT_MARK.tmp" "$CHROOT_MARK"
	say "upgraded the chroot in $(since "$t0") s: $(du -sh --one-file-system "$ROOTFS" | cut -f1) in $ROOTFS"
}

ensure_chroot() {
	mkdir -p "$(dirname "$ROOTFS")"
	exec 8>"$ROOTFS.lock"
	flock -w 900 8 || die "another slurm-local holds $ROOTFS.lock (a chroot build?) for 15 minutes"
	if ! chroot_complete; then
		if [ -n "$(mounts_under "$ROOTFS")" ]; then
			die "$ROOTFS is incomplete or outdated but has mounts below it ($(mounts_under "$ROOTFS" | tr '\n' ' ')); run 'scripts/slurm-local --release 24.11 down' first"
		fi
		chroot_built || build_chroot
		chroot_complete || upgrade_chroot
	fi
	exec 8>&-
}

# ensure_users: slurm, munge and slurmrest come with the build.  The JWT user
# (the user REST jobs run as) has one uid and gid on the host and in the
# chroot, created on the host when missing as the native flavour does: jobs
# write under the shared /tmp, and host-side tools (srtctl's controller gives
# a run's directory to the job user by name) must mean the same user.
ensure_users() {
	local u hu hg cu cg
	for u in slurm munge "$REST_USER"; do
		chroot_id passwd "$u" >/dev/null || die "user '$u' is missing in the chroot $ROOTFS; remove the chroot's marker $CHROOT_MARK to rebuild it"
	done
	if ! getent passwd "$JOB_USER" >/dev/null; then
		useradd --user-group --create-home --shell /bin/bash "$JOB_USER" || die "useradd $JOB_USER on the host failed"
		say "created user $JOB_USER on the host (REST jobs run as it, in the chroot with the same uid)"
	fi
	hu=$(id -u "$JOB_USER") hg=$(id -g "$JOB_USER")
	cu=$(chroot_id passwd "$JOB_USER" || true) cg=$(chroot_id group "$JOB_USER" || true)
	in_chroot() { chroot "$ROOTFS" /usr/bin/env -i PATH="$DPATH" "$@"; }
	if [ -z "$cg" ]; then
		in_chroot groupadd -g "$hg" "$JOB_USER" || die "groupadd -g $hg $JOB_USER in the chroot failed"
	elif [ "$cg" != "$hg" ]; then
		in_chroot groupmod -g "$hg" "$JOB_USER" || die "groupmod -g $hg $JOB_USER in the chroot failed"
	fi
	if [ -z "$cu" ]; then
		in_chroot useradd --uid "$hu" --gid "$hg" --create-home --shell /bin/bash "$JOB_USER" ||
			die "useradd --uid $hu $JOB_USER in the chroot failed"
		say "created user $JOB_USER (uid $hu, as on the host) in the chroot (REST jobs run as it)"
	elif [ "$cu" != "$hu" ]; then
		in_chroot usermod -u "$hu" -g "$hg" "$JOB_USER" || die "usermod -u $hu $JOB_USER in the chroot failed"
		say "user $JOB_USER in the chroot: uid $cu -> $hu, as on the host"
	fi
}

# ---- state directory and configuration ----------------------------------------

make_state() {
	local i mem h u_munge g_munge u_slurm g_slurm u_rest g_rest
	u_munge=$(chroot_id passwd munge) g_munge=$(chroot_id group munge)
	u_slurm=$(chroot_id passwd slurm) g_slurm=$(chroot_id group slurm)
	u_rest=$(chroot_id passwd "$REST_USER") g_rest=$(chroot_id group "$REST_USER")
	mkdir -p "$L"
	: >"$L/$MARKER"
	chmod 755 "$L"
	mkdir -p "$L"/{etc,munge,state/ctld,log,run,sock,jobs}
	chmod 755 "$L"/{etc,munge,state,state/ctld,log,run,sock}
	chown "$u_munge:$g_munge" "$L/munge"
	chown "$u_slurm:$g_slurm" "$L/state/ctld" "$L/log" "$L/run"
	chown "$u_rest:$g_rest" "$L/sock"
	chmod 1777 "$L/jobs"
	for ((i = 1; i <= NODES; i++)); do
		mkdir -p "$L/state/d-node$i" "$L/state/tmp-node$i"
		chmod 1777 "$L/state/tmp-node$i"
	done

	(umask 077 && head -c 1024 /dev/urandom >"$L/munge/munge.key")
	chown "$u_munge:$g_munge" "$L/munge/munge.key"
	chmod 400 "$L/munge/munge.key"
	(umask 077 && head -c 32 /dev/urandom >"$L/etc/jwt_hs256.key")
	chown "$u_slurm:$g_slurm" "$L/etc/jwt_hs256.key"
	chmod 600 "$L/etc/jwt_hs256.key"

	# The chroot's own resolv.conf and hosts (one file for the controller,
	# slurmrestd and every node).  No reachable nameserver: fail at once.
	printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' >"$ROOTFS/etc/resolv.conf.srtctl"
	mv -f "$ROOTFS/etc/resolv.conf.srtctl" "$ROOTFS/etc/resolv.conf"
	{
		printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n'
		printf '%s\t%s' "$(host_ip)" "$CTL_HOST"
		h=$(hostname -s 2>/dev/null || true)
		case $h in '' | localhost | "$CTL_HOST" | node[0-9]*) ;; *) printf ' %s' "$h" ;; esac
		printf '\n'
		for ((i = 1; i <= NODES; i++)); do printf '%s\tnode%d\n' "$(node_ip "$i")" "$i"; done
	} >"$ROOTFS/etc/hosts.srtctl"
	mv -f "$ROOTFS/etc/hosts.srtctl" "$ROOTFS/etc/hosts"
	chmod 644 "$ROOTFS/etc/resolv.conf" "$ROOTFS/etc/hosts"

	# slurmd 24.11 always loads a cgroup plugin and dies without one mounted,
	# unless cgroup.conf (next to slurm.conf) disables it.
	printf '# Written by scripts/slurm-local --release 24.11.\nCgroupPlugin=disabled\n' >"$L/etc/cgroup.conf"
	# PMIx's per-step client directory (spmix_appdir_<uid>_<job>.<step>):
	# 24.11 puts it under the step's TMPDIR, /tmp, which the nodes here
	# share, so the nodes of one MPI step raced to create the same
	# directory and one failed ("task N launch failed", File exists).  Each
	# slurmd's mount namespace has its node's own directory at PMIX_DIR
	# (start_slurmd), and mpi.conf points PMIx there.
	mkdir -p "$ROOTFS$PMIX_DIR"
	printf '# Written by scripts/slurm-local --release 24.11.\nPMIxCliTmpDirBase=%s\n' "$PMIX_DIR" >"$L/etc/mpi.conf"
	mem=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 }' /proc/meminfo)
	{
		cat <<EOF
# Written by scripts/slurm-local --release 24.11; regenerated by every 'up'.
ClusterName=$CLUSTER
SlurmctldHost=$CTL_HOST($(host_ip))
SlurmUser=slurm
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
# slurmctld binds the bridge address only, not 0.0.0.0
CommunicationParameters=NoCtldInAddrAny
AuthType=auth/munge
AuthInfo=socket=$L/munge/munge.socket.2
CredType=cred/munge
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$L/etc/jwt_hs256.key
StateSaveLocation=$L/state/ctld
SlurmdSpoolDir=$L/state/d-%n
TmpFS=$L/state/tmp-%n
SlurmctldPidFile=$L/run/slurmctld.pid
SlurmdPidFile=$L/run/slurmd-%n.pid
SlurmctldLogFile=$L/log/slurmctld.log
SlurmdLogFile=$L/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
# 24.11 ships no */none plugins: no TaskPlugin, JobAcctGatherType,
# JobCompType or SwitchType lines (nor AccountingStorageType without accounting).
$(accounting_conf)
# A block topology (topology.conf): one block of all nodes, so that every
# job fits in it and --segment is honoured.
TopologyPlugin=topology/block
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=$MIN_JOB_AGE
KillWait=5
InactiveLimit=0
SlurmdParameters=config_overrides
GresTypes=gpu
EOF
		for ((i = 1; i <= NODES; i++)); do
			printf 'NodeName=node%d NodeAddr=%s NodeHostname=node%d CPUs=%d RealMemory=%d Gres=gpu:%d Features=srtlocal State=UNKNOWN\n' \
				"$i" "$(node_ip "$i")" "$i" "$CPUS" "$mem" "$GPUS"
		done
		printf 'PartitionName=debug Nodes=ALL Default=YES DefaultTime=60 MaxTime=INFINITE State=UP\n'
	} >"$CONF"
	printf '# Written by scripts/slurm-local --release 24.11; regenerated by every up.\nBlockName=b1 Nodes=node[1-%d]\nBlockSizes=%d\n' \
		"$NODES" "$NODES" >"$L/etc/topology.conf"
	chmod 644 "$CONF" "$L/etc/cgroup.conf" "$L/etc/topology.conf" "$L/etc/mpi.conf"
	# GPUs as a generic resource, so a GPU request is scheduled (and refused
	# beyond the count) for real.  Slurm drops a gpu gres without File= ("Removing
	# file-less GPU"), so each GPU is a stand-in device node: a copy of
	# /dev/null (char 1:3) under $L/dev, which no job opens.
	mkdir -p "$L/dev"
	for ((g = 0; g < GPUS; g++)); do
		[ -c "$L/dev/gpu$g" ] || mknod -m 666 "$L/dev/gpu$g" c 1 3
	done
	printf '# Written by scripts/slurm-local --release 24.11; regenerated by every up.\nNodeName=node[1-%d] Name=gpu File=%s/dev/gpu[0-%d]\n' \
		"$NODES" "$L" $((GPUS - 1)) >"$L/etc/gres.conf"
	chmod 644 "$L/etc/gres.conf"
}

# ---- daemons (all chroot'ed; stdio on a log, cwd /, no lock fds) --------------

start_munged() {
	(cd / && chroot "$ROOTFS" /usr/bin/env -i PATH="$DPATH" runuser -u munge -- /usr/sbin/munged \
		--socket="$L/munge/munge.socket.2" --key-file="$L/munge/munge.key" \
		--pid-file="$L/munge/munged.pid" --log-file="$L/munge/munged.log" \
		--seed-file="$L/munge/munged.seed") </dev/null >>"$L/log/start.log" 2>&1 8>&- 9>&-
	munge_ready() { [ -S "$L/munge/munge.socket.2" ] && alive "$(readpid "$L/munge/munged.pid")" munged; }
	wait_for 10 munge_ready || die "munged did not come up in 10 s; see $L/munge/munged.log and $L/log/start.log"
}

# slurmctld in the host's netns with a UTS namespace of its own: hostname
# $CTL_HOST must match SlurmctldHost; the chroot's hosts maps it to the bridge
# address, which NoCtldInAddrAny then binds.
start_slurmctld() {
	(cd / && unshare --uts -- /bin/sh -c '
			set -e
			hostname "$1"
			exec chroot "$2" /usr/bin/env -i PATH="$3" SLURM_CONF="$4" slurmctld -f "$4"
		' sh "$CTL_HOST" "$ROOTFS" "$DPATH" "$CONF") </dev/null >>"$L/log/start.log" 2>&1 8>&- 9>&-
	wait_for 30 ctld_ready || die "slurmctld did not answer in 30 s; see $L/log/slurmctld.log"
}

# slurmd of node I: the node's netns, its own UTS (hostname nodeI) and mount
# namespace, in which a sysfs of the netns covers the chroot's /sys (so
# /sys/class/net shows lo and eth0) and the node's scratch directory covers
# PMIX_DIR (node-local, as /tmp is on a real node).  The namespace ends with
# its last process.
start_slurmd() {
	local n=node$1
	(cd / && nsenter --net="/run/netns/$NET-$n" -- unshare --uts --mount --propagation slave -- \
		/bin/sh -c '
			set -e
			hostname "$1"
			mount -t sysfs sysfs "$2/sys"
			mount --bind "$5" "$2$6"
			exec chroot "$2" /usr/bin/env -i PATH="$3" SLURM_CONF="$4" slurmd -f "$4" -N "$1"
		' sh "$n" "$ROOTFS" "$DPATH" "$CONF" "$L/state/tmp-$n" "$PMIX_DIR") </dev/null >>"$L/log/start.log" 2>&1 8>&- 9>&-
	slurmd_ready() { alive "$(readpid "$L/run/slurmd-$n.pid")" slurmd; }
	wait_for 10 slurmd_ready || die "slurmd of $n did not start in 10 s; see $L/log/slurmd-$n.log and $L/log/start.log"
}

# slurmdbd: as the native flavour's (a UTS namespace named localhost, so
# that NoInAddrAny binds 127.0.0.1), chroot'ed.  MariaDB is the host's; its
# socket is under $L, which the chroot sees at the same path.
start_slurmdbd() {
	(cd / && unshare --uts -- /bin/sh -c 'hostname localhost && exec chroot "$1" /usr/bin/env -i PATH="$2" SLURM_CONF="$3" MYSQL_UNIX_PORT="$4" slurmdbd' \
		sh "$ROOTFS" "$DPATH" "$CONF" "$L/db/mariadbd.sock") </dev/null >>"$L/log/start.log" 2>&1 8>&- 9>&-
	dbd_started() { alive "$(readpid "$L/run/slurmdbd.pid")" slurmdbd; }
	wait_for 10 dbd_started || die "slurmdbd did not start in 10 s; see $L/log/slurmdbd.log and $L/log/start.log"
}

# slurmrestd in the foreground, detached by setsid --fork; the shell writes its
# own pid, which chroot, env and slurmrestd keep through exec.
start_slurmrestd() { # start_slurmrestd tcp|unix
	local kind=$1 pidfile=$L/run/slurmrestd-$1.pid extra listen auth
	rm -f "$pidfile"
	if [ "$kind" = tcp ]; then
		extra=SLURM_JWT=daemon auth=rest_auth/jwt listen=127.0.0.1:$REST_PORT
	else
		extra=SLURM_LOCAL_UNUSED=1 auth=rest_auth/local listen=unix:$REST_SOCK
	fi
	setsid --fork /bin/sh -c 'cd / && echo $$ >"$1" && exec chroot "$9" /usr/bin/env -i PATH="$2" SLURM_CONF="$3" "$4" \
		slurmrestd -f "$3" -u "$5" -g "$5" -s "$6" -a "$7" "$8"' \
		sh "$pidfile" "$DPATH" "$CONF" "$extra" "$REST_USER" "$OPENAPI" "$auth" "$listen" "$ROOTFS" \
		</dev/null >>"$L/log/slurmrestd-$kind.log" 2>&1 8>&- 9>&-
	rest_started() { alive "$(readpid "$pidfile")" slurmrestd; }
	wait_for 10 rest_started || die "slurmrestd ($kind) did not start; see $L/log/slurmrestd-$kind.log"
}

# 24.11 answers a ping with HTTP 200 even for a rejected token: look for
# "pinged":"UP".
rest_ping() {
	local body
	body=$(curl -sS -m 3 -H @"$HEADERS" "http://127.0.0.1:$REST_PORT/slurm/$PING_VERSION/ping" 2>/dev/null) || return 1
	grep -Eq '"pinged" *: *"UP"' <<<"$body"
}

unix_ping() {
	local body
	body=$(curl -sS -m 3 --unix-socket "$REST_SOCK" "http://localhost/slurm/$PING_VERSION/ping" 2>/dev/null) || return 1
	grep -Eq '"pinged" *: *"UP"' <<<"$body"
}

# Nodes that stayed DRAIN/DOWN from an earlier crash (state is fresh on every
# up, so this is only a safety net): resume them.
resume_nodes() {
	local bad
	bad=$(sl sinfo -h -N -t drain,down,fail -o %N 2>/dev/null | sort -u | tr '\n' ',' | sed 's/,$//') || true
	[ -n "$bad" ] || return 0
	sl scontrol update nodename="$bad" state=resume >/dev/null 2>&1 || true
}

# ---- stopping -----------------------------------------------------------------

teardown() {
	local m
	load_cluster_env || true
	[ "${NODES:-0}" -gt 0 ] || NODES=$MAX_NODES
	# Cancel as root (munge) with scancel inside the chroot: never a REST
	# DELETE, which as a plain user on another user's job deadlocks slurmctld.
	if [ -r "$CONF" ] && [ -d "$ROOTFS$L/etc" ] && mountpoint -q "$ROOTFS/proc" &&
		alive "$(readpid "$L/run/slurmctld.pid")" slurmctld && ctld_ready; then
		cancel_all_jobs
	fi
	mapfile -t _d < <(live_daemons 'slurmrestd-*')
	stop_pids INT 10 "${_d[@]}"
	mapfile -t _d < <(live_daemons 'slurmd-node*')
	stop_pids TERM 10 "${_d[@]}"
	mapfile -t _d < <(live_daemons slurmctld)
	stop_pids TERM 10 "${_d[@]}"
	stop_accounting
	mapfile -t _d < <(live_daemons munged)
	stop_pids TERM 10 "${_d[@]}"
	mapfile -t _d < <(stray_daemons)
	if [ ${#_d[@]} -gt 0 ]; then
		say "stopping daemons of $L that had no pid file: ${_d[*]}"
		stop_pids TERM 10 "${_d[@]}"
	fi
	net_down # kills whatever is left in the nodes' namespaces
	unmount_chroot || say "WARNING: could not unmount everything in $ROOTFS"
	while read -r _ m _; do
		case $m in "$L"/*) umount -l "$m" 2>/dev/null && say "unmounted $m" ;; esac
	done < <(tac /proc/mounts)
	if [ -d "$L" ]; then
		if [ -n "$(mounts_under "$L")" ]; then
			say "WARNING: $L still has mounts below it; not removing it"
		elif [ -e "$L/$MARKER" ] || [ -z "$(ls -A "$L")" ]; then
			rm -rf --one-file-system "$L"
		else
			say "WARNING: $L has no $MARKER file; not removing it"
		fi
	fi
}

# reconfigure: `scontrol reconfigure`, then wait until slurmctld and every
# slurmd run again.  Slurm 24.11 re-execs them (as slurmctld-wlm, slurmd-wlm:
# see alive) under new PIDs, which the new processes write to the same pid
# files; the slurmds follow slurmctld by up to a second or so.
# (The pattern leaves out slurmdbd, which scontrol reconfigure does not touch.)
reconfigure() {
	local before
	before=$(live_daemons 'slurm[cd][!b]*')
	sl scontrol reconfigure >/dev/null || die "scontrol reconfigure failed"
	reexeced() { # every pid of before is replaced by a live one
		local now line
		now=$(live_daemons 'slurm[cd][!b]*')
		[ "$(wc -l <<<"$now")" -eq "$(wc -l <<<"$before")" ] || return 1
		while read -r line; do
			if grep -qxF "$line" <<<"$now"; then return 1; fi
		done <<<"$before"
	}
	wait_for 20 reexeced || say "note: not every daemon re-exec'ed within 20 s of scontrol reconfigure"
	wait_for 30 cluster_state ||
		die "after scontrol reconfigure, not every daemon runs: $(cmd_status 2>&1 | grep DEAD | tr -s ' ' | tr '\n' ';')"
	wait_for 30 ctld_ready || die "slurmctld does not answer after scontrol reconfigure; see $L/log/slurmctld.log"
}

# ---- commands -----------------------------------------------------------------

cmd_up() {
	local want=$DEFAULT_NODES asked=0 t0 t1 i st=0 owner
	while [ $# -gt 0 ]; do
		case $1 in
		--nodes)
			[ $# -ge 2 ] || die "--nodes needs a number"
			want=$2 asked=1
			shift 2
			;;
		--nodes=*)
			want=${1#*=} asked=1
			shift
			;;
		*) die "up: unknown argument '$1'; see 'scripts/slurm-local --release 24.11 --help'" ;;
		esac
	done
	[[ $want =~ ^[0-9]+$ ]] && [ "$want" -ge 1 ] && [ "$want" -le "$MAX_NODES" ] ||
		die "--nodes must be a number from 1 to $MAX_NODES"
	need_root up
	check_settings_2411
	mkdir -p "$(dirname "$L")"
	take_lock
	t0=$(now)
	local min_age_asked=${SLURM_LOCAL_MIN_JOB_AGE:-}

	cluster_state || st=$?
	if [ "$st" -eq 0 ]; then
		if [ "$asked" = 1 ] && [ "$NODES" -ne "$want" ]; then
			die "already up with $NODES node(s), not $want; run 'scripts/slurm-local --release 24.11 down' first"
		fi
		if [ -n "$min_age_asked" ] && [ "$min_age_asked" != "$MIN_JOB_AGE" ]; then
			sed -i "s/^MinJobAge=.*/MinJobAge=$min_age_asked/" "$CONF"
			reconfigure
			say "MinJobAge changed from $MIN_JOB_AGE to $min_age_asked (scontrol reconfigure)"
			MIN_JOB_AGE=$min_age_asked
			write_cluster_env up
		fi
		wait_for 10 rest_ping ||
			die "daemons run but the REST ping fails; see $L/log/slurmrestd-tcp.log (or run down, then up)"
		say "already up: Slurm $SLURM_VERSION, $NODES node(s), REST http://127.0.0.1:$REST_PORT"
		return 0
	fi
	if [ "$st" -eq 2 ]; then
		say "a half-running cluster was found in $L; taking it down first"
		teardown
	elif [ -d "$L" ] || [ -n "$(mounts_under "$ROOTFS$L")" ]; then
		teardown
	fi
	if [ -e "$L" ] && [ ! -e "$L/$MARKER" ]; then
		die "$L exists but is not a slurm-local state directory; remove it or set SLURM_LOCAL_2411_DIR"
	fi
	settings_2411
	NODES=$want

	install_packages
	ensure_chroot
	owner=$(chroot_owner)
	if [ -n "$owner" ] && [ "$owner" != "$L" ] && [ -n "$(mounts_under "$ROOTFS$owner")" ]; then
		die "the chroot $ROOTFS is in use by the cluster of $owner; stop it first: SLURM_LOCAL_2411_DIR=$owner scripts/slurm-local --release 24.11 down"
	fi
	ensure_users
	preflight
	SLURM_VERSION=$(chroot_slurm_version)

	trap 'up_failed $?' EXIT
	t1=$(now)
	make_state
	write_cluster_env starting
	mount_chroot
	net_up
	say "network: bridge $BR $(host_ip)/24, nodes $(node_names | tr , ' ') = $(node_ips | tr , ' ')"
	start_munged
	start_accounting "$(chroot_id passwd slurm):$(chroot_id group slurm)"
	start_slurmctld
	for ((i = 1; i <= NODES; i++)); do start_slurmd "$i"; done
	resume_nodes
	wait_for 30 nodes_idle || die "not all $NODES nodes became idle in 30 s: $(sl sinfo -h -N -o '%N=%T' | tr '\n' ' '); see $L/log/slurmd-node*.log"
	start_slurmrestd tcp
	if [ "$UNIX_SOCKET" = 1 ]; then start_slurmrestd unix; fi
	write_token
	wait_for 60 rest_ping || die "no REST ping answer (\"pinged\":\"UP\") from 127.0.0.1:$REST_PORT in 60 s; see $L/log/slurmrestd-tcp.log"
	if [ "$UNIX_SOCKET" = 1 ]; then
		wait_for 30 unix_ping || die "no REST ping answer on $REST_SOCK in 30 s; see $L/log/slurmrestd-unix.log"
	fi
	write_cluster_env up
	trap - EXIT
	say "up: Slurm $SLURM_VERSION (chroot $ROOTFS), $NODES node(s), REST http://127.0.0.1:$REST_PORT, started in $(since "$t1") s (total $(since "$t0") s)"
	say "use it: eval \"\$(scripts/slurm-local --release 24.11 env)\""
}

# The native cluster.env plus what this flavour adds.
write_cluster_env() { # write_cluster_env STATE
	local tmp=$CLUSTER_ENV.tmp
	cat >"$tmp" <<EOF
STATE=$1
RELEASE=$RELEASE
SLURM_VERSION=${SLURM_VERSION:-}
ROOTFS=$ROOTFS
NODES=$NODES
SUBNET=$SUBNET
CTLD_PORT=$CTLD_PORT
SLURMD_PORT=$SLURMD_PORT
REST_PORT=$REST_PORT
MIN_JOB_AGE=$MIN_JOB_AGE
TOKEN_LIFESPAN=$TOKEN_LIFESPAN
CPUS=$CPUS
GPUS=$GPUS
JOB_USER=$JOB_USER
UNIX_SOCKET=$UNIX_SOCKET
PING_VERSION=$PING_VERSION
ACCOUNTING=$ACCOUNTING
DBD_PORT=$DBD_PORT
EOF
	mv -f "$tmp" "$CLUSTER_ENV"
}

load_cluster_env() {
	NODES=0
	STATE=
	[ -r "$CLUSTER_ENV" ] || return 1
	ACCOUNTING=0 # a cluster.env without the key: a cluster of before accounting
	local k v
	while IFS='=' read -r k v; do
		case $k in
		NODES | SUBNET | CTLD_PORT | SLURMD_PORT | REST_PORT | MIN_JOB_AGE | TOKEN_LIFESPAN | \
			CPUS | GPUS | JOB_USER | UNIX_SOCKET | PING_VERSION | STATE | SLURM_VERSION | ROOTFS | \
			ACCOUNTING | DBD_PORT)
			printf -v "$k" '%s' "$v"
			;;
		esac
	done <"$CLUSTER_ENV"
	TOKEN_FILE=$L/etc/$JOB_USER.jwt
	CHROOT_MARK=$ROOTFS/.srtctl-chroot-complete
	CHROOT_OWNER=$ROOTFS.owner
}

cmd_down() {
	local t0
	[ $# -eq 0 ] || die "down takes no arguments"
	need_root down
	check_settings_2411
	take_lock
	t0=$(now)
	load_cluster_env || true
	if [ ! -e "$L" ] && [ -z "$(our_netns)" ] && ! ip link show "$BR" >/dev/null 2>&1 &&
		[ -z "$(mounts_under "$ROOTFS$L")" ] && { [ "$(chroot_owner)" != "$L" ] || [ -z "$(mounts_under "$ROOTFS")" ]; }; then
		[ "$(chroot_owner)" != "$L" ] || rm -f "$CHROOT_OWNER"
		say "down: nothing to do ($L does not exist)"
		return 0
	fi
	teardown
	say "down in $(since "$t0") s (the chroot stays cached in $ROOTFS)"
}

cmd_status() {
	local st=0 name file comm pid mark m
	[ $# -eq 0 ] || die "status takes no arguments"
	cluster_state || st=$?
	if [ "$st" -eq 1 ]; then
		echo "slurm-local 24.11: down ($L)"
		if chroot_complete; then
			echo "  chroot           $ROOTFS (cached, Slurm $(chroot_slurm_version))"
		elif chroot_built; then
			echo "  chroot           $ROOTFS (cached, Slurm $(chroot_slurm_version); lacks $(chroot_missing_pkgs | tr '\n' ' ')which up installs)"
		else echo "  chroot           $ROOTFS: not built (up builds it)"; fi
		if [ -n "$(our_netns)" ] || ip link show "$BR" >/dev/null 2>&1; then
			echo "  leftover network objects: $(our_netns | tr '\n' ' ')$(ip link show "$BR" >/dev/null 2>&1 && echo "$BR") (run down)"
		fi
		m=$(mounts_under "$ROOTFS$L")
		if [ -n "$m" ] || { [ "$(chroot_owner)" = "$L" ] && [ -n "$(mounts_under "$ROOTFS")" ]; }; then
			echo "  leftover mounts: $(mounts_under "$ROOTFS" | tr '\n' ' ')(run down)"
		fi
		return 1
	fi
	if [ "$st" -eq 0 ]; then
		echo "slurm-local 24.11: up, Slurm $SLURM_VERSION, $NODES node(s), state in $L, chroot $ROOTFS"
	else
		echo "slurm-local 24.11: BROKEN (some daemons are dead; run down, then up), state in $L"
	fi
	while read -r name file comm; do
		pid=$(readpid "$file")
		if alive "$pid" "$comm"; then mark="running  pid $pid"; else
			mark="DEAD"
			st=2
		fi
		printf '  %-16s %s\n' "$name" "$mark"
	done < <(daemons)
	if [ "$st" -eq 0 ]; then
		printf '  %-16s %s\n' "network" "bridge $BR $(host_ip)/24, slurmctld $(host_ip):$CTLD_PORT, slurmd :$SLURMD_PORT"
		sl sinfo -h -N -o '%N %T' 2>/dev/null | while read -r name mark; do
			printf '  %-16s %s %s\n' "$name" "$(node_ip "${name#node}")" "$mark"
		done
		if rest_ping; then mark="ping UP ($PING_VERSION)"; else
			mark="ping FAILED"
			st=2
		fi
		printf '  %-16s %s\n' "rest (tcp)" "http://127.0.0.1:$REST_PORT  $mark"
		if [ "$UNIX_SOCKET" = 1 ]; then
			if unix_ping; then mark="ping UP"; else mark="ping FAILED"; fi
			printf '  %-16s %s\n' "rest (unix)" "$REST_SOCK  $mark"
		fi
		printf '  %-16s %s\n' "jobs in queue" "$(sl squeue -h -o %A 2>/dev/null | wc -l)"
		printf '  %-16s %s s\n' "MinJobAge" "$MIN_JOB_AGE"
		if [ "$ACCOUNTING" = 1 ]; then
			printf '  %-16s %s\n' "accounting" "slurmdbd 127.0.0.1:$DBD_PORT, MariaDB $L/db/mariadbd.sock, QOS $QOS"
		else
			printf '  %-16s %s\n' "accounting" "none"
		fi
		printf '  %-16s %s\n' "mounts" "$(mounts_under "$ROOTFS" | tac | tr '\n' ' ')"
	fi
	[ "$st" -eq 0 ] && return 0 || return 1
}

require_up() {
	local st=0
	cluster_state || st=$?
	[ "$st" -eq 0 ] || die "the local 24.11 cluster is not up (run 'scripts/slurm-local --release 24.11 up')"
}

cmd_env() {
	[ $# -eq 0 ] || die "env takes no arguments"
	require_up
	local margin=$((TOKEN_LIFESPAN / 10))
	[ "$margin" -le 600 ] || margin=600
	if [ "$(token_exp "$TOKEN_FILE")" -lt $(($(date +%s) + margin)) ]; then
		need_root env
		write_token
	fi
	# SRTCTL_SLURMRESTD_URL and SLURM_JWT are what srtctl reads.
	cat <<EOF
export SRTCTL_SLURMRESTD_URL=http://127.0.0.1:$REST_PORT
export SRT_SLURMRESTD_URL=http://127.0.0.1:$REST_PORT
export SLURM_JWT=$(cat "$TOKEN_FILE")
export SRT_SLURM_USER=$JOB_USER
export SRT_SLURM_TOKEN_FILE=$TOKEN_FILE
export SLURM_CONF=$CONF
export SRT_SLURM_NODES=$(node_names)
export SRT_SLURM_NODE_IPS=$(node_ips)
export SRT_SLURM_HOST_IP=$(host_ip)
export SRT_SLURM_PARTITION=debug
export SRT_SLURM_JOBS_DIR=$L/jobs
export SRT_SLURM_MIN_JOB_AGE=$MIN_JOB_AGE
export SRT_SLURM_GPUS_PER_NODE=$GPUS
export SRT_SLURM_RELEASE=$SLURM_VERSION
export SRT_SLURM_CHROOT=$ROOTFS
EOF
	if [ "$UNIX_SOCKET" = 1 ]; then
		echo "export SRT_SLURMRESTD_SOCKET=$REST_SOCK"
	fi
	if [ "$ACCOUNTING" = 1 ]; then
		echo "export SRT_SLURM_QOS=$QOS"
	fi
}

cmd_token() {
	local lifespan user
	require_up
	lifespan=$TOKEN_LIFESPAN user=$JOB_USER
	while [ $# -gt 0 ]; do
		case $1 in
		--lifespan)
			[ $# -ge 2 ] || die "--lifespan needs seconds"
			lifespan=$2
			shift 2
			;;
		--user)
			[ $# -ge 2 ] || die "--user needs a name"
			user=$2
			shift 2
			;;
		*) die "token: unknown argument '$1'" ;;
		esac
	done
	[[ $lifespan =~ ^[0-9]+$ ]] && [ "$lifespan" -ge 1 ] || die "--lifespan must be a positive number of seconds"
	need_root token
	if [ "$user" != "$JOB_USER" ] && [ "$user" != root ] && [ "$user" != slurm ]; then
		say "WARNING: a token for '$user', not $JOB_USER: never DELETE a job of another user with it (Slurm 24.11 without slurmdbd deadlocks slurmctld)"
	fi
	mint_token "$user" "$lifespan"
	echo
}

cmd_shell() {
	local n=${1:-} pid
	[ -n "$n" ] || die "shell needs a node name (node1..)"
	shift
	require_up
	need_root shell
	pid=$(readpid "$L/run/slurmd-$n.pid")
	alive "$pid" slurmd || die "no running slurmd for '$n' (nodes: $(node_names))"
	[ $# -gt 0 ] || set -- bash
	exec nsenter --target "$pid" --net --uts --mount -- \
		chroot "$ROOTFS" /usr/bin/env -i PATH="$DPATH" HOME=/root TERM="${TERM:-dumb}" SLURM_CONF="$CONF" "$@"
}

cmd_chroot() { # the host's namespaces, the chroot's files (e.g. squeue, scontrol)
	require_up
	need_root chroot
	[ $# -gt 0 ] || set -- bash
	exec chroot "$ROOTFS" /usr/bin/env -i PATH="$DPATH" HOME=/root TERM="${TERM:-dumb}" SLURM_CONF="$CONF" "$@"
}

main() {
	local cmd=${1:-}
	[ $# -eq 0 ] || shift
	case $cmd in
	up) cmd_up "$@" ;;
	down) cmd_down "$@" ;;
	status) cmd_status "$@" ;;
	env) cmd_env "$@" ;;
	token) cmd_token "$@" ;;
	shell) cmd_shell "$@" ;;
	chroot) cmd_chroot "$@" ;;
	restart-rest) cmd_restart_rest "$@" ;;
	-h | --help | help) usage ;;
	'')
		usage >&2
		exit 2
		;;
	*)
		say "unknown command '$cmd'"
		usage >&2
		exit 2
		;;
	esac
}
