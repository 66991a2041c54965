#!/usr/bin/env bash
# shellcheck disable=SC2016,SC2317
# tests/slurm/test_slurm_local.sh: smoke test of scripts/slurm-local against the
# real daemons.  Runs the whole cycle: up --nodes 3 (idempotent twice), env,
# REST ping over TCP+JWT and the unix socket, a 2-node REST job whose srun
# steps print `hostname -I` per node (distinct namespace IPs), a job that exits
# 3 (FAILED, exit code 3), a REST cancel (no job process left), status, a
# short-lived token that expires, accounting (slurmdbd on 127.0.0.1 only, the
# QOS registered), down, and then: no daemon (MariaDB and slurmdbd included),
# no netns, no bridge, no state directory, no listening port left.
#
#   tests/slurm/test_slurm_local.sh        # as root; takes about 20 s
#
# It ends with 'down': run it before or after other tests that use the local
# cluster, not while they run.  Prints TAP-like lines and closes with
# "N passed, N failed"; exits non-zero when any check failed.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SL=$root/scripts/slurm-local
NODES=3
API=v0.0.38
L=${SLURM_LOCAL_DIR:-/tmp/srtctl-slurm-local}

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
	echo "test_slurm_local: must run as root (it starts daemons and network namespaces)" >&2
	exit 2
fi

# Slurm/munge daemons (not zombies) already running before we start: the
# final check only looks for new ones, so another flavour may run beside us.
slurm_pids() {
	local d comm line rest st
	for d in /proc/[0-9]*; do
		{ read -r comm <"$d/comm"; } 2>/dev/null || continue
		case $comm in munged | slurmctld | slurmd | slurmrestd | slurmstepd | slurmdbd | mariadbd) ;; *) continue ;; esac
		{ read -r line <"$d/stat"; } 2>/dev/null || continue
		rest=${line##*) }
		st=${rest%% *}
		[ "$st" = Z ] || [ "$st" = X ] || echo "${d#/proc/}"
	done | sort -n
}
before=$(slurm_pids | tr '\n' ' ')

downed=0
cleanup() {
	if [ "$downed" = 0 ]; then "$SL" down >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

# ---- up ----------------------------------------------------------------------
t=$EPOCHREALTIME
out=$("$SL" up --nodes "$NODES" 2>&1)
rc=$?
echo "$out" | indent
note "up took $(since "$t") s"
check "up --nodes $NODES exits 0" [ "$rc" -eq 0 ]
if [ "$rc" -ne 0 ]; then
	not_ok "cannot go on without a cluster"
	finish
fi

t=$EPOCHREALTIME
out=$("$SL" up --nodes "$NODES" 2>&1)
rc=$?
note "second up took $(since "$t") s"
check "a second up --nodes $NODES exits 0 and says it is already up" \
	[ "$rc" -eq 0 -a -n "$(grep 'already up' <<<"$out")" ]
"$SL" up --nodes 2 >/dev/null 2>&1
check "up --nodes 2 while 3 nodes run is refused" [ $? -ne 0 ]

# ---- env ---------------------------------------------------------------------
envout=$("$SL" env)
check "env exits 0" [ $? -eq 0 ]
eval "$envout"
echo "$envout" | sed 's/^\(export SLURM_JWT=\).*/\1<token>/' | indent
missing=
for v in SRT_SLURMRESTD_URL SLURM_JWT SRT_SLURM_USER SRT_SLURM_TOKEN_FILE SLURM_CONF \
	SRT_SLURM_NODES SRT_SLURM_NODE_IPS SRT_SLURMRESTD_SOCKET; do
	[ -n "${!v:-}" ] || missing+=" $v"
done
check "env sets every variable (missing:${missing:- none})" [ -z "$missing" ]
check "SRT_SLURMRESTD_URL is on 127.0.0.1" grep -Eq '^http://127\.0\.0\.1:[0-9]+$' <<<"${SRT_SLURMRESTD_URL:-}"
check "the token file has mode 600 and holds SLURM_JWT" \
	[ "$(stat -c %a "${SRT_SLURM_TOKEN_FILE:-/nonexistent}" 2>/dev/null)" = 600 -a \
	"$(cat "${SRT_SLURM_TOKEN_FILE:-/nonexistent}" 2>/dev/null)" = "${SLURM_JWT:-x}" ]
IFS=, read -r -a node_names <<<"${SRT_SLURM_NODES:-}"
IFS=, read -r -a node_ips <<<"${SRT_SLURM_NODE_IPS:-}"
check "$NODES node names and $NODES node IPs" [ ${#node_names[@]} -eq $NODES -a ${#node_ips[@]} -eq $NODES ]

# ---- REST --------------------------------------------------------------------
U=${SRT_SLURMRESTD_URL:-http://127.0.0.1:6820}/slurm/$API
H=(-H "X-SLURM-USER-NAME: ${SRT_SLURM_USER:-}" -H "X-SLURM-USER-TOKEN: ${SLURM_JWT:-}")
rest() { curl -sS -m 10 "${H[@]}" "$@"; }

body=$(rest -w '\n%{http_code}' "$U/ping")
check "REST ping with the JWT: HTTP 200, UP, no errors" \
	[ "$(tail -n1 <<<"$body")" = 200 -a \
	"$(sed '$d' <<<"$body" | jq -r '(.pings[0].ping) + " " + (.errors | length | tostring)')" = "UP 0" ]
code=$(curl -sS -m 10 -o /dev/null -w '%{http_code}' "$U/ping")
check "REST ping without auth headers: HTTP 401 (got $code)" [ "$code" = 401 ]
body=$(curl -sS -m 10 --unix-socket "${SRT_SLURMRESTD_SOCKET:-/nonexistent}" "http://localhost/slurm/$API/ping")
check "REST ping on the unix socket (rest_auth/local): UP" [ "$(jq -r '.pings[0].ping' <<<"$body" 2>/dev/null)" = UP ]

# submit NAME SCRIPT [EXTRA-JOB-JSON]: print the job id (empty on failure).
submit() {
	local extra=${3:-}
	[ -n "$extra" ] || extra='{}'
	jq -n --arg d "$SRT_SLURM_JOBS_DIR" --arg n "$1" --arg s "$2" --argjson x "$extra" \
		'{script: $s, job: ({name: $n, partition: "debug", current_working_directory: $d,
		  standard_output: ($d + "/" + $n + "-%j.out"), environment: {PATH: "/usr/bin:/bin"}} + $x)}' |
		rest -H 'Content-Type: application/json' -d @- "$U/job/submit" |
		jq -r 'if (.errors | length) == 0 then .job_id else empty end'
}
job() { rest "$U/job/$1" | jq -r ".jobs[0] | $2"; }
# wait_state ID SECONDS STATE...: poll until the job is in one of STATEs.
wait_state() {
	local id=$1 secs=$2 s i
	shift 2
	for ((i = 0; i < secs * 10; i++)); do
		s=$(job "$id" .job_state)
		for w in "$@"; do [ "$s" = "$w" ] && return 0; done
		sleep 0.1
	done
	note "job $id is '$s' after ${secs}s, not $*"
	return 1
}

# A 2-node job: one srun step per node prints the node's name and IPs.
t=$EPOCHREALTIME
id=$(submit smoke-ips '#!/bin/bash
srun --nodes=2 --ntasks=2 --ntasks-per-node=1 bash -c '\''echo "$SLURMD_NODENAME $(hostname) $(hostname -I)"'\''
' '{"nodes": 2, "tasks_per_node": 1}')
check "REST submit of a 2-node job returns a job id ($id)" [ -n "$id" ]
wait_state "$id" 60 COMPLETED FAILED CANCELLED TIMEOUT NODE_FAIL
note "2-node job: submit -> $(job "$id" .job_state) in $(since "$t") s"
check "the 2-node job COMPLETED" [ "$(job "$id" .job_state)" = COMPLETED ]
outfile=$SRT_SLURM_JOBS_DIR/smoke-ips-$id.out
indent <"$outfile" 2>/dev/null
ips=()
good=1
while read -r nodename host ip extra; do
	ips+=("$ip")
	idx=$((${nodename#node} - 1))
	# On nodeK the step's hostname is nodeK and its only address is the K-th IP.
	if [ "$host" != "$nodename" ] || [ "$ip" != "${node_ips[$idx]:-}" ] || [ -n "$extra" ]; then
		note "unexpected line: $nodename $host $ip $extra"
		good=0
	fi
done < <(grep . "$outfile" 2>/dev/null)
check "two steps printed their node's own namespace IP" [ ${#ips[@]} -eq 2 -a "$good" = 1 ]
check "the two IPs differ and none is loopback" \
	[ ${#ips[@]} -eq 2 -a "${ips[0]:-a}" != "${ips[1]:-a}" -a -z "$(printf '%s\n' "${ips[@]}" | grep '^127\.')" ]

# A job that exits 3: FAILED, and v0.0.38's raw wait status 768 = exit code 3.
id=$(submit smoke-exit3 '#!/bin/bash
exit 3
')
wait_state "$id" 60 COMPLETED FAILED CANCELLED TIMEOUT NODE_FAIL
st=$(job "$id" '.job_state + " " + (.exit_code | tostring) + " " + .state_reason')
check "a job that exits 3 is FAILED with exit code 3 ($st)" [ "$st" = "FAILED 768 NonZeroExitCode" ]

# Cancel a running job over REST; its processes must go away.
t=$EPOCHREALTIME
id=$(submit smoke-cancel '#!/bin/bash
sleep 3600 &
wait
')
check "the long job starts RUNNING" wait_state "$id" 30 RUNNING
note "long job: submit -> RUNNING in $(since "$t") s"
errs=$(rest -X DELETE "$U/job/$id" | jq -r '.errors | length')
check "REST DELETE answers with no errors" [ "$errs" = 0 ]
check "the cancelled job is CANCELLED" wait_state "$id" 30 CANCELLED
job_procs() { # job_procs: sleep 3600 processes in our nodes' namespaces
	local ns p
	for ns in $(ip netns list | awk '$1 ~ /^srtsl-node/ { print $1 }'); do
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

# ---- status, token -------------------------------------------------------------
out=$("$SL" status)
rc=$?
echo "$out" | indent
check "status exits 0 and reports $NODES nodes" [ "$rc" -eq 0 -a -n "$(grep "up, $NODES node(s)" <<<"$out")" ]

# ---- accounting ----------------------------------------------------------------
dbd_port=$(awk -F= '$1 == "DBD_PORT" { print $2 }' "$L/cluster.env")
qos=$(env -u SLURM_JWT SLURM_CONF="$L/etc/slurm.conf" timeout 20 sacctmgr -n -P list qos format=name 2>&1 | tr '\n' ' ')
check "slurmdbd answers and has the QOS ${SRT_SLURM_QOS:-(unset)} (sacctmgr: $qos)" \
	[ -n "${SRT_SLURM_QOS:-}" -a -n "$(grep -w -- "${SRT_SLURM_QOS:-}" <<<"$qos")" ]
left=$(ss -Htln | awk -v re=":${dbd_port:-none}\$" '$4 ~ re { print $4 }' | tr '\n' ' ')
check "slurmdbd listens on 127.0.0.1:$dbd_port only (${left:-nothing})" [ "$left" = "127.0.0.1:$dbd_port " ]

short=$("$SL" token --lifespan 2)
code=$(curl -sS -m 10 -o /dev/null -w '%{http_code}' -H "X-SLURM-USER-NAME: $SRT_SLURM_USER" \
	-H "X-SLURM-USER-TOKEN: $short" "$U/ping")
check "a fresh 2 s token works (HTTP $code)" [ "$code" = 200 ]
sleep 4
code=$(curl -sS -m 10 -o /dev/null -w '%{http_code}' -H "X-SLURM-USER-NAME: $SRT_SLURM_USER" \
	-H "X-SLURM-USER-TOKEN: $short" "$U/ping")
check "the same token is rejected once expired (HTTP $code; 22.05 says 500)" [ "$code" != 200 ]

# ---- down ----------------------------------------------------------------------
t=$EPOCHREALTIME
out=$("$SL" down 2>&1)
rc=$?
downed=1
echo "$out" | indent
note "down took $(since "$t") s"
check "down exits 0" [ "$rc" -eq 0 ]
"$SL" status >/dev/null 2>&1
check "status exits 1 after down" [ $? -eq 1 ]
after=$(slurm_pids | tr '\n' ' ')
new=
for p in $after; do [[ " $before " == *" $p "* ]] || new+=" $p($(cat "/proc/$p/comm" 2>/dev/null))"; done
check "no slurm or munge process is left (new:${new:- none})" [ -z "$new" ]
left=$(ip netns list | awk '$1 ~ /^srtsl-/ { print $1 }' | tr '\n' ' ')
check "no network namespace is left (${left:-none})" [ -z "$left" ]
left=$(ip -o link show | awk -F': ' '$2 ~ /^srtsl-/ { print $2 }' | tr '\n' ' ')
check "no bridge or veth is left (${left:-none})" [ -z "$left" ]
check "the state directory is gone" [ ! -e "$L" ]
check "nothing listens on the ctld, REST and slurmdbd ports" \
	[ -z "$(ss -Htln | awk -v re=":(${SLURM_LOCAL_CTLD_PORT:-6817}|${SLURM_LOCAL_REST_PORT:-6820}|${dbd_port:-6819})\$" '$4 ~ re')" ]
check "nothing of the state directory is mounted" [ -z "$(grep " $L/" /proc/mounts)" ]

finish
