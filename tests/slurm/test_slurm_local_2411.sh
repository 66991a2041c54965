#!/usr/bin/env bash
# shellcheck disable=SC2016,SC2317
# tests/slurm/test_slurm_local_2411.sh: smoke test of the 24.11 flavour of
# scripts/slurm-local (Debian 13's Slurm 24.11.5 in a cached trixie chroot)
# against the real daemons.  The cycle: up --nodes 3 (builds the chroot the
# first time: ~50-70 s; fails loudly, never skips, when it cannot), env, REST
# ping on v0.0.42 with the JWT (and v0.0.40/v0.0.41 answer, v0.0.39 does not),
# no auth -> 401, a bad token -> ping 200 "DOWN" and 511 elsewhere, submit on
# all three versions, a 2-node job whose srun steps print each node's IP, a job
# that exits 3 (FAILED, exit_code {status [ERROR], return_code 3}), an unknown
# job -> 404, cancelling our own running job (CANCELLED, no process left),
# srtctl's runtime libraries and python3 in the chroot, the host's /tmp
# shared with the nodes, one uid for the job user inside and out,
# `scontrol reconfigure` (slurmctld and the slurmds re-exec under new PIDs:
# status follows them) and an up that changes MinJobAge, an expired token,
# down, and then: no slurmctld of before or after the reconfigures, no
# process in the chroot, no netns, bridge, port, mount or state directory
# left, the chroot still cached.  A native
# cluster running beside it must still be up at the end.
#
#   tests/slurm/test_slurm_local_2411.sh   # as root; ~15 s warm, ~70 s cold
#
# Every REST call uses the one JWT user of the cluster and DELETEs only that
# user's jobs: a plain user's DELETE of another user's job deadlocks 24.11's
# slurmctld when there is no slurmdbd.  Prints TAP-like lines and closes with
# "N passed, N failed"; exits non-zero when any check failed.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SL=("$root/scripts/slurm-local" --release 24.11)
NODES=3
API=v0.0.42
L=${SLURM_LOCAL_2411_DIR:-/tmp/srtctl-slurm-local-2411}
ROOTFS=${SLURM_LOCAL_2411_CHROOT:-/var/cache/srtctl/trixie-chroot}

n=0 passed=0 failed=0
ok() {
	n=$((n + 1)) passed=$((passed + 1))
	echo "ok $n - $*"
}
not_ok() {
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n - $*"
}
check() { # check DESCRIPTION CMD...
	local d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
note() { echo "# $*"; }
indent() { sed 's/^/#   /'; }
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

if [ "$(id -u)" -ne 0 ]; then
	echo "test_slurm_local_2411: must run as root (it starts daemons, mounts and network namespaces)" >&2
	exit 2
fi
T0=$EPOCHREALTIME

# Processes whose root directory is the chroot: every daemon, step and job
# process of this flavour, and nothing of a native cluster running beside it.
chroot_pids() {
	local d r
	for d in /proc/[0-9]*; do
		r=$(readlink "$d/root" 2>/dev/null) || continue
		case $r in "$ROOTFS" | "$ROOTFS"/*) echo "${d#/proc/}($(cat "$d/comm" 2>/dev/null))" ;; esac
	done
}
# A native cluster beside us (scripts/slurm-local without --release): its
# daemons must outlive our up and down.  Someone else may restart it meanwhile
# (then its cluster.env is newer than our start and the check says so).
NL=${SLURM_LOCAL_DIR:-/tmp/srtctl-slurm-local}
native_daemons() { # pids of the native cluster's daemons, from its pid files
	local f p
	for f in "$NL"/munge/munged.pid "$NL"/run/*.pid; do
		[ -r "$f" ] && read -r p <"$f" 2>/dev/null && [ -d "/proc/$p" ] && echo "$p"
	done
	return 0
}
native_up=0 native_pids=
if "$root/scripts/slurm-local" --release 22.05 status >/dev/null 2>&1; then
	native_up=1
	native_pids=$(native_daemons | tr '\n' ' ')
fi
touch -d "@${EPOCHREALTIME%.*}" "/tmp/.srtctl-2411-test-start.$$" 2>/dev/null || true
note "a native cluster is $([ $native_up = 1 ] && echo "up (daemons $native_pids)" || echo not running) beside this test"

downed=0
cleanup() {
	if [ "$downed" = 0 ]; then "${SL[@]}" down >/dev/null 2>&1 || true; fi
	rm -f "/tmp/.srtctl-2411-test-start.$$"
}
trap cleanup EXIT

# ---- up ----------------------------------------------------------------------
cold=0
[ -f "$ROOTFS/.srtctl-chroot-complete" ] || cold=1
t=$EPOCHREALTIME
out=$("${SL[@]}" up --nodes "$NODES" 2>&1)
rc=$?
echo "$out" | indent
note "up took $(since "$t") s ($([ $cold = 1 ] && echo 'cold: no cached chroot, built now' || echo 'warm: cached chroot'))"
check "up --nodes $NODES exits 0" [ "$rc" -eq 0 ]
if [ "$rc" -ne 0 ]; then
	not_ok "cannot go on without a cluster (the 24.11 flavour needs its chroot: see the messages above)"
	finish
fi
check "the chroot is cached with its completion marker" [ -f "$ROOTFS/.srtctl-chroot-complete" ]

t=$EPOCHREALTIME
out=$("${SL[@]}" up --nodes "$NODES" 2>&1)
rc=$?
note "second up took $(since "$t") s"
check "a second up --nodes $NODES exits 0 and says it is already up" \
	[ "$rc" -eq 0 -a -n "$(grep 'already up' <<<"$out")" ]
"${SL[@]}" up --nodes 2 >/dev/null 2>&1
check "up --nodes 2 while 3 nodes run is refused" [ $? -ne 0 ]

# ---- env ---------------------------------------------------------------------
envout=$("${SL[@]}" env)
check "env exits 0" [ $? -eq 0 ]
eval "$envout"
echo "$envout" | sed 's/^\(export SLURM_JWT=\).*/\1<token>/' | indent
missing=
for v in SRT_SLURMRESTD_URL SLURM_JWT SRT_SLURM_USER SRT_SLURM_TOKEN_FILE SLURM_CONF \
	SRT_SLURM_NODES SRT_SLURM_NODE_IPS SRT_SLURM_HOST_IP SRT_SLURM_PARTITION SRT_SLURM_JOBS_DIR \
	SRT_SLURM_MIN_JOB_AGE SRT_SLURMRESTD_SOCKET SRT_SLURM_RELEASE SRT_SLURM_CHROOT; do
	[ -n "${!v:-}" ] || missing+=" $v"
done
check "env sets every variable (missing:${missing:- none})" [ -z "$missing" ]
check "SRT_SLURM_RELEASE is 24.11.5 (${SRT_SLURM_RELEASE:-})" [ "${SRT_SLURM_RELEASE:-}" = 24.11.5 ]
check "SRT_SLURMRESTD_URL is on 127.0.0.1" grep -Eq '^http://127\.0\.0\.1:[0-9]+$' <<<"${SRT_SLURMRESTD_URL:-}"
check "the token file has mode 600 and holds SLURM_JWT" \
	[ "$(stat -c %a "${SRT_SLURM_TOKEN_FILE:-/nonexistent}" 2>/dev/null)" = 600 -a \
	"$(cat "${SRT_SLURM_TOKEN_FILE:-/nonexistent}" 2>/dev/null)" = "${SLURM_JWT:-x}" ]
check "SLURM_CONF exists on the host and, at the same path, in the chroot" \
	[ -f "${SLURM_CONF:-/nonexistent}" -a -f "$ROOTFS${SLURM_CONF:-/nonexistent}" ]
IFS=, read -r -a node_names <<<"${SRT_SLURM_NODES:-}"
IFS=, read -r -a node_ips <<<"${SRT_SLURM_NODE_IPS:-}"
check "$NODES node names and $NODES node IPs" [ ${#node_names[@]} -eq $NODES -a ${#node_ips[@]} -eq $NODES ]

# ---- what batch jobs of srtctl's tests need in the chroot -------------------------
# srtctl (built on the host) and the python3 stand-ins run there, from a
# test's directory under /tmp, as the job user.
libs=$("${SL[@]}" chroot /sbin/ldconfig -p 2>/dev/null)
left=
for l in libyaml-0.so.2 libjansson.so.4 libsqlite3.so.0 libcurl.so.4; do
	grep -q "^[[:space:]]*$l " <<<"$libs" || left+=" $l"
done
check "the chroot has srtctl's runtime libraries (missing:${left:- none})" [ -z "$left" ]
check "python3 runs in the chroot" "${SL[@]}" chroot python3 -c 'import http.server, json, urllib.request'
probe=$(mktemp -d /tmp/srt-2411-probe.XXXXXX)
chmod 755 "$probe"
echo "probe $$" >"$probe/f"
chmod 644 "$probe/f"
got=$("${SL[@]}" shell node1 runuser -u "$SRT_SLURM_USER" -- cat "$probe/f" 2>&1)
check "a node sees the host's /tmp at the same path, readable by $SRT_SLURM_USER ($got)" [ "$got" = "probe $$" ]
"${SL[@]}" shell node1 runuser -u "$SRT_SLURM_USER" -- touch "$SRT_SLURM_JOBS_DIR/uid-probe" 2>/dev/null
check "the job user has the same uid on the host and in the chroot" \
	[ "$(stat -c %u "$SRT_SLURM_JOBS_DIR/uid-probe" 2>/dev/null)" = "$(id -u "$SRT_SLURM_USER" 2>/dev/null)" ]
rm -rf "$probe" "$SRT_SLURM_JOBS_DIR/uid-probe"

# ---- REST: ping, versions, auth --------------------------------------------------
B=${SRT_SLURMRESTD_URL:-http://127.0.0.1:6831}/slurm
U=$B/$API
H=(-H "X-SLURM-USER-NAME: ${SRT_SLURM_USER:-}" -H "X-SLURM-USER-TOKEN: ${SLURM_JWT:-}")
rest() { curl -sS -m 10 "${H[@]}" "$@"; }
# code_of CURL-ARGS...: the HTTP status only
code_of() { curl -sS -m 10 -o /dev/null -w '%{http_code}' "$@"; }

body=$(rest -w '\n%{http_code}' "$U/ping")
check "REST $API ping with the JWT: HTTP 200, pinged UP, responding, no errors" \
	[ "$(tail -n1 <<<"$body")" = 200 -a \
	"$(sed '$d' <<<"$body" | jq -r '"\(.pings[0].pinged) \(.pings[0].responding) \(.errors | length)"')" = "UP true 0" ]
check "the ping's meta names release 24.11.5 and data_parser/$API" \
	[ "$(sed '$d' <<<"$body" | jq -r '"\(.meta.slurm.release) \(.meta.plugin.data_parser)"')" = "24.11.5 data_parser/$API" ]
for v in v0.0.40 v0.0.41; do
	body=$(rest -w '\n%{http_code}' "$B/$v/ping")
	check "REST $v ping answers too: HTTP 200, pinged UP" \
		[ "$(tail -n1 <<<"$body")" = 200 -a "$(sed '$d' <<<"$body" | jq -r '.pings[0].pinged')" = UP ]
done
code=$(code_of "${H[@]}" "$B/v0.0.39/ping")
check "REST v0.0.39 is not served: HTTP 404 (got $code)" [ "$code" = 404 ]
code=$(code_of "$U/ping")
check "REST ping without auth headers: HTTP 401 (got $code)" [ "$code" = 401 ]
BAD=(-H "X-SLURM-USER-NAME: ${SRT_SLURM_USER:-}" -H "X-SLURM-USER-TOKEN: not.a.token")
body=$(curl -sS -m 10 "${BAD[@]}" -w '\n%{http_code}' "$U/ping")
check "a bad token: ping answers HTTP 200 but pinged DOWN ($(tail -n1 <<<"$body") $(sed '$d' <<<"$body" | jq -r '.pings[0].pinged' 2>/dev/null))" \
	[ "$(tail -n1 <<<"$body")" = 200 -a "$(sed '$d' <<<"$body" | jq -r '.pings[0].pinged' 2>/dev/null)" = DOWN ]
body=$(curl -sS -m 10 "${BAD[@]}" -w '\n%{http_code}' "$U/jobs")
check "a bad token: GET jobs is HTTP 511 with error_number 1007 ($(tail -n1 <<<"$body"))" \
	[ "$(tail -n1 <<<"$body")" = 511 -a "$(sed '$d' <<<"$body" | jq -r '.errors[0].error_number' 2>/dev/null)" = 1007 ]
body=$(curl -sS -m 10 --unix-socket "${SRT_SLURMRESTD_SOCKET:-/nonexistent}" "http://localhost/slurm/$API/ping")
check "REST ping on the unix socket (rest_auth/local): UP" [ "$(jq -r '.pings[0].pinged' <<<"$body" 2>/dev/null)" = UP ]

# ---- REST: jobs ------------------------------------------------------------------
# submit VERSION NAME SCRIPT [EXTRA-JOB-JSON]: print the job id (empty on failure).
# 24.11: job.script, environment a string array, time_limit a {set,infinite,number}.
submit() {
	local extra=${4:-}
	[ -n "$extra" ] || extra='{}'
	jq -n --arg d "$SRT_SLURM_JOBS_DIR" --arg n "$2" --arg s "$3" --argjson x "$extra" \
		'{job: ({script: $s, name: $n, partition: "debug", current_working_directory: $d,
		  standard_output: ($d + "/" + $n + "-%j.out"), environment: ["PATH=/usr/bin:/bin"],
		  time_limit: {set: true, infinite: false, number: 10}} + $x)}' |
		rest -H 'Content-Type: application/json' -d @- "$B/$1/job/submit" |
		jq -r 'if (.errors | length) == 0 then .job_id else empty end'
}
job() { rest "$U/job/$1" | jq -r ".jobs[0] | $2"; }
# wait_state ID SECONDS STATE...: poll (jobs/state, the cheap call) until the
# job's first state is one of STATEs.
wait_state() {
	local id=$1 secs=$2 s i w
	shift 2
	for ((i = 0; i < secs * 10; i++)); do
		s=$(rest "$U/jobs/state/?job_id=$id" | jq -r '.jobs[0].state[0] // empty' 2>/dev/null)
		for w in "$@"; do [ "$s" = "$w" ] && return 0; done
		sleep 0.1
	done
	note "job $id is '$s' after ${secs}s, not $*"
	return 1
}
FINAL=(COMPLETED FAILED CANCELLED TIMEOUT NODE_FAIL OUT_OF_MEMORY)

ids_by_version=()
for v in v0.0.40 v0.0.41 v0.0.42; do
	id=$(submit "$v" "smoke-$v" '#!/bin/bash
true
')
	check "REST $v submit returns a job id (${id:-none})" [ -n "$id" ]
	ids_by_version+=("$id")
done
for id in "${ids_by_version[@]}"; do [ -z "$id" ] || wait_state "$id" 60 "${FINAL[@]}"; done
st=$(for id in "${ids_by_version[@]}"; do job "$id" '.job_state[0]'; done | sort -u | tr '\n' ' ')
check "the three jobs COMPLETED ($st)" [ "$st" = "COMPLETED " ]

# A 2-node job: one srun step per node prints the node's name and IPs.
t=$EPOCHREALTIME
id=$(submit "$API" smoke-ips '#!/bin/bash
srun --nodes=2 --ntasks=2 --ntasks-per-node=1 bash -c '\''echo "$SLURMD_NODENAME $(hostname) $(hostname -I)"'\''
' '{"nodes": "2", "tasks_per_node": 1}')
check "REST submit of a 2-node job returns a job id ($id)" [ -n "$id" ]
wait_state "$id" 60 "${FINAL[@]}"
note "2-node job: submit -> $(job "$id" '.job_state[0]') in $(since "$t") s"
check "the 2-node job COMPLETED" [ "$(job "$id" '.job_state | join(",")')" = COMPLETED ]
outfile=$SRT_SLURM_JOBS_DIR/smoke-ips-$id.out
indent <"$outfile" 2>/dev/null
ips=()
good=1
while read -r nodename host ip extra; do
	ips+=("$ip")
	idx=$((${nodename#node} - 1))
	if [ "$host" != "$nodename" ] || [ "$ip" != "${node_ips[$idx]:-}" ] || [ -n "$extra" ]; then
		note "unexpected line: $nodename $host $ip $extra"
		good=0
	fi
done < <(grep . "$outfile" 2>/dev/null)
check "two steps printed their node's own namespace IP" [ ${#ips[@]} -eq 2 -a "$good" = 1 ]
check "the two IPs differ and none is loopback" \
	[ ${#ips[@]} -eq 2 -a "${ips[0]:-a}" != "${ips[1]:-a}" -a -z "$(printf '%s\n' "${ips[@]}" | grep '^127\.')" ]

# A job that exits 3: FAILED; 24.11's exit_code is an object.
id=$(submit "$API" smoke-exit3 '#!/bin/bash
exit 3
')
wait_state "$id" 60 "${FINAL[@]}"
st=$(job "$id" '"\(.job_state | join(",")) \(.state_reason) \(.exit_code.status | join(",")) \(.exit_code.return_code.set) \(.exit_code.return_code.number)"')
check "a job that exits 3 is FAILED, exit_code {status [ERROR], return_code 3} ($st)" \
	[ "$st" = "FAILED NonZeroExitCode ERROR true 3" ]

body=$(rest -w '\n%{http_code}' "$U/job/999999")
check "GET of an unknown job: HTTP 404, error 2017 ($(tail -n1 <<<"$body"))" \
	[ "$(tail -n1 <<<"$body")" = 404 -a "$(sed '$d' <<<"$body" | jq -r '.errors[0].error_number')" = 2017 ]

# Cancel our own running job over REST (same JWT user that submitted it).
t=$EPOCHREALTIME
id=$(submit "$API" smoke-cancel '#!/bin/bash
sleep 3600 &
wait
')
check "the long job starts RUNNING" wait_state "$id" 30 RUNNING
note "long job: submit -> RUNNING in $(since "$t") s"
check "the long job's user is $SRT_SLURM_USER (we DELETE only our own jobs)" [ "$(job "$id" .user_name)" = "$SRT_SLURM_USER" ]
body=$(rest -w '\n%{http_code}' -X DELETE "$U/job/$id")
check "REST DELETE of our own job: HTTP 200, no errors, empty status ($(tail -n1 <<<"$body"))" \
	[ "$(tail -n1 <<<"$body")" = 200 -a "$(sed '$d' <<<"$body" | jq -r '"\(.errors | length) \(.status | length)"')" = "0 0" ]
check "the cancelled job is CANCELLED" wait_state "$id" 30 CANCELLED
st=$(job "$id" '"\(.exit_code.status | join(",")) \(.exit_code.signal.name)"')
check "its exit_code says SIGNALED by TERM ($st)" [ "$st" = "SIGNALED TERM" ]
job_procs() { # sleep 3600 processes in our nodes' namespaces
	local ns p
	for ns in $(ip netns list | awk '$1 ~ /^srt24-node/ { print $1 }'); do
		for p in $(ip netns pids "$ns"); do
			[ "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" = "sleep 3600 " ] && echo "$p"
		done
	done
}
no_job_procs() {
	local i
	for ((i = 0; i < 100; i++)); do
		[ -z "$(job_procs)" ] && return 0
		sleep 0.1
	done
	return 1
}
check "no process of the cancelled job is left" no_job_procs
ctld_answers() { timeout 15 "${SL[@]}" chroot squeue -h -o %A >/dev/null 2>&1; }
check "slurmctld still answers (no deadlock): squeue in the chroot" ctld_answers

# ---- scontrol reconfigure: slurmctld and the slurmds re-exec ----------------------
# 24.11 re-execs slurmctld and every slurmd (comm slurmctld-wlm, slurmd-wlm)
# under new PIDs that they write to their pid files.  status and down must
# follow them: a user's own reconfigure first, then up's (a MinJobAge change).
pidof_file() { local p=; read -r p <"$1" 2>/dev/null; echo "$p"; }
ctld_pid0=$(pidof_file "$L/run/slurmctld.pid")
d1_pid0=$(pidof_file "$L/run/slurmd-node1.pid")
timeout 20 "${SL[@]}" chroot scontrol reconfigure >/dev/null 2>&1
check "scontrol reconfigure (in the chroot) exits 0" [ $? -eq 0 ]
reexeced() { # the pid files name new, live daemons and status says up
	local c d
	c=$(pidof_file "$L/run/slurmctld.pid") d=$(pidof_file "$L/run/slurmd-node1.pid")
	[ -n "$c" ] && [ "$c" != "$ctld_pid0" ] && [ -n "$d" ] && [ "$d" != "$d1_pid0" ] &&
		"${SL[@]}" status >/dev/null 2>&1
}
wait_reexec() {
	local i
	for ((i = 0; i < 150; i++)); do
		reexeced && return 0
		sleep 0.2
	done
	return 1
}
check "after reconfigure: new slurmctld and slurmd PIDs in the pid files, status exits 0" wait_reexec
ctld_pid1=$(pidof_file "$L/run/slurmctld.pid")
note "slurmctld pid $ctld_pid0 -> $ctld_pid1 ($(cat "/proc/$ctld_pid1/comm" 2>/dev/null)), slurmd of node1 $d1_pid0 -> $(pidof_file "$L/run/slurmd-node1.pid")"
check "the old slurmctld ($ctld_pid0) is gone" [ ! -e "/proc/$ctld_pid0/cmdline" -o -z "$({ tr -d '\0' <"/proc/$ctld_pid0/cmdline"; } 2>/dev/null)" ]
out=$("${SL[@]}" status 2>&1)
check "status names the re-exec'ed slurmctld as running (pid $ctld_pid1)" grep -q "slurmctld  *running  pid $ctld_pid1\$" <<<"$out"
out=$(SLURM_LOCAL_MIN_JOB_AGE=700 "${SL[@]}" up 2>&1)
rc=$?
check "up with another MinJobAge reconfigures and exits 0 ($(tail -n1 <<<"$out"))" [ "$rc" -eq 0 ]
"${SL[@]}" status >/dev/null 2>&1
check "status exits 0 right after that up" [ $? -eq 0 ]
mja=$(timeout 20 "${SL[@]}" chroot scontrol show config 2>/dev/null | awk '$1 == "MinJobAge" { print $3 }')
check "slurmctld runs with MinJobAge 700 ($mja)" [ "$mja" = 700 ]
ctld_pid2=$(pidof_file "$L/run/slurmctld.pid")
check "that up followed the second re-exec (slurmctld pid $ctld_pid1 -> $ctld_pid2)" \
	[ -n "$ctld_pid2" -a "$ctld_pid2" != "$ctld_pid1" ]

# ---- status, token -------------------------------------------------------------
out=$("${SL[@]}" status)
rc=$?
echo "$out" | indent
check "status exits 0 and reports $NODES nodes" [ "$rc" -eq 0 -a -n "$(grep "up, Slurm 24.11.5, $NODES node(s)" <<<"$out")" ]

# Accounting: slurmdbd 24.11 (in the chroot) on the host's MariaDB.
dbd_port=$(awk -F= '$1 == "DBD_PORT" { print $2 }' "$L/cluster.env")
qos=$(timeout 20 "${SL[@]}" chroot sacctmgr -n -P list qos format=name 2>&1 | tr '\n' ' ')
check "slurmdbd answers and has the QOS ${SRT_SLURM_QOS:-(unset)} (sacctmgr: $qos)" \
	[ -n "${SRT_SLURM_QOS:-}" -a -n "$(grep -w -- "${SRT_SLURM_QOS:-}" <<<"$qos")" ]
left=$(ss -Htln | awk -v re=":${dbd_port:-none}\$" '$4 ~ re { print $4 }' | tr '\n' ' ')
check "slurmdbd listens on 127.0.0.1:$dbd_port only (${left:-nothing})" [ "$left" = "127.0.0.1:$dbd_port " ]

short=$("${SL[@]}" token --lifespan 2)
SH=(-H "X-SLURM-USER-NAME: $SRT_SLURM_USER" -H "X-SLURM-USER-TOKEN: $short")
code=$(code_of "${SH[@]}" "$U/jobs/state/")
check "a fresh 2 s token works (HTTP $code)" [ "$code" = 200 ]
sleep 4
code=$(code_of "${SH[@]}" "$U/jobs/state/")
check "the same token is rejected once expired (HTTP $code; 24.11 says 511)" [ "$code" = 511 ]

# ---- down ----------------------------------------------------------------------
t=$EPOCHREALTIME
out=$("${SL[@]}" down 2>&1)
rc=$?
downed=1
echo "$out" | indent
note "down took $(since "$t") s"
check "down exits 0" [ "$rc" -eq 0 ]
"${SL[@]}" status >/dev/null 2>&1
check "status exits 1 after down" [ $? -eq 1 ]
left=$(chroot_pids | tr '\n' ' ')
check "no process runs in the chroot (${left:-none})" [ -z "$left" ]
left=$(for p in "$ctld_pid0" "$ctld_pid1" "${ctld_pid2:-}"; do
	[ -n "$p" ] && [ -n "$({ tr -d '\0' <"/proc/$p/cmdline"; } 2>/dev/null)" ] && echo "$p"
done | tr '\n' ' ')
check "no slurmctld of before or after the reconfigures is left (${left:-none})" [ -z "$left" ]
left=$(ip netns list | awk '$1 ~ /^srt24-/ { print $1 }' | tr '\n' ' ')
check "no network namespace is left (${left:-none})" [ -z "$left" ]
left=$(ip -o link show | awk -F': ' '$2 ~ /^srt24-/ { print $2 }' | tr '\n' ' ')
check "no bridge or veth is left (${left:-none})" [ -z "$left" ]
check "the state directory is gone" [ ! -e "$L" ]
left=$(ss -Htln | awk -v re=":(${SLURM_LOCAL_2411_CTLD_PORT:-6837}|${SLURM_LOCAL_2411_REST_PORT:-6831}|${dbd_port:-6839})\$" '$4 ~ re { print $4 }' | tr '\n' ' ')
check "nothing listens on the ctld, REST and slurmdbd ports (${left:-none})" [ -z "$left" ]
left=$(for d in /proc/[0-9]*; do
	[ "$(cat "$d/comm" 2>/dev/null)" = mariadbd ] || continue
	case $(tr '\0' ' ' <"$d/cmdline" 2>/dev/null) in *"$L/"*) echo "${d#/proc/}" ;; esac
done | tr '\n' ' ')
check "no MariaDB of the state directory is left (${left:-none})" [ -z "$left" ]
left=$(findmnt -rn -o TARGET | awk -v r="$ROOTFS" -v l="$L" 'index($0, r) == 1 || index($0, l "/") == 1 || $0 == l' | tr '\n' ' ')
check "findmnt: nothing is mounted in the chroot or the state directory (${left:-none})" [ -z "$left" ]
check "the chroot stays cached ($ROOTFS)" [ -f "$ROOTFS/.srtctl-chroot-complete" -a -x "$ROOTFS/usr/sbin/slurmctld" ]
if [ "$native_up" = 1 ]; then
	native_untouched() {
		local p
		if [ "$NL/cluster.env" -nt "/tmp/.srtctl-2411-test-start.$$" ]; then
			note "the native cluster was restarted by someone else during this test; its daemons were not compared"
			return 0
		fi
		for p in $native_pids; do
			[ -d "/proc/$p" ] || {
				note "native daemon $p is gone"
				return 1
			}
		done
		ip link show srtsl-br >/dev/null 2>&1 || {
			note "the native bridge srtsl-br is gone"
			return 1
		}
	}
	check "the native cluster's daemons and bridge beside it are untouched" native_untouched
fi
note "smoke test took $(since "$T0") s"

finish
