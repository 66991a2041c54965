#!/usr/bin/env bash
# shellcheck disable=SC2016
# tests/slurm/test_slurm_client.sh: the SLURM client (slurm/) against the real
# local slurmrestd that scripts/slurm-local runs, through tests/slurm/slurm_it.
#
#   scripts/slurm-local up --nodes 3 && eval "$(scripts/slurm-local env)"
#   SLURM_IT=build/tests/slurm/slurm_it SRTCTL=build/srtctl tests/slurm/test_slurm_client.sh
#
# Works with either flavour (22.05: v0.0.38; --release 24.11: v0.0.40-42, the
# newest chosen, or SRT_SLURM_API_VERSION pins one).  Checks: ping and the
# version choice; submit, get, list (and "changed since"), find by comment;
# a job that exits 3 (FAILED, exit code 3); cancel (CANCELLED, idempotent);
# a signal the job traps; a held job; a job over its time limit (TIMEOUT, run
# in parallel with the rest: 60-120 s); the unix socket; an expired token
# (AUTH, "the token was rejected (expired?)") and a token file renewed under
# a running client; slurmrestd killed (UNREACHABLE), killed during a call
# (UNREACHABLE), frozen (TIMEOUT), then restarted (the same client works
# again); TLS against a plain-HTTP port; `srtctl doctor`, which never prints
# the token; and last, a job purged after MinJobAge (GONE), with MinJobAge
# restored afterwards.  It restarts slurmrestd and reconfigures MinJobAge,
# so run nothing else against the cluster meanwhile.
#
# Exits 77 (skipped) only when SRT_SLURMRESTD_URL is unset.  Every wait is
# bounded.  Prints TAP-like lines and "N passed, N failed".
set -uo pipefail

if [ -z "${SRT_SLURMRESTD_URL:-}" ]; then
	cat >&2 <<'EOF'
########################################################################
# SKIPPED: test_slurm_client.sh needs a running slurmrestd, and
# SRT_SLURMRESTD_URL is not set.  To run it:
#   scripts/slurm-local up --nodes 3 && eval "$(scripts/slurm-local env)"
# (CI must do this before ctest, or this integration test never runs.)
########################################################################
EOF
	exit 77
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
IT=$(realpath -m "${SLURM_IT:-$root/build/tests/slurm/slurm_it}")
SRTCTL=$(realpath -m "${SRTCTL:-$root/build/srtctl}")
SL=("$root/scripts/slurm-local")
case ${SRT_SLURM_RELEASE:-} in 24.11*) SL+=(--release 24.11) ;; esac
JOBS=${SRT_SLURM_JOBS_DIR:?SRT_SLURM_JOBS_DIR is not set; eval "$(scripts/slurm-local env)"}
STATE_DIR=$(cd "$(dirname "${SLURM_CONF:?SLURM_CONF is not set}")/.." && pwd)
TAG=it-$$-$RANDOM
WORK=$(mktemp -d)

n=0 passed=0 failed=0
ok() {
	n=$((n + 1)) passed=$((passed + 1))
	echo "ok $n - $*"
}
not_ok() {
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n - $*"
}
note() { echo "# $*"; }
# expect DESCRIPTION JSON JQ-EXPRESSION: pass when the expression is true.
expect() {
	if jq -e "$3" >/dev/null 2>&1 <<<"$2"; then ok "$1"; else
		not_ok "$1"
		echo "#   wanted: $3"
		echo "#   got:    $(head -c 1500 <<<"$2")"
	fi
}
it() { "$IT" "$@" 2>"$WORK/it.err"; }
field() { jq -r "$2" <<<"$1"; }

for tool in jq curl; do
	command -v $tool >/dev/null || {
		echo "test_slurm_client: $tool is missing" >&2
		exit 2
	}
done
[ -x "$IT" ] || {
	echo "test_slurm_client: no driver at $IT (build slurm_it, or set SLURM_IT)" >&2
	exit 2
}

rest_pid() { cat "$STATE_DIR/run/slurmrestd-tcp.pid" 2>/dev/null; }
orig_min_age=${SRT_SLURM_MIN_JOB_AGE:-600}
cleanup() {
	local p
	p=$(rest_pid)
	[ -n "$p" ] && kill -CONT "$p" 2>/dev/null
	# Leave slurmrestd running and MinJobAge as we found them, whatever happened.
	if ! curl -s -m 3 -o /dev/null "$SRT_SLURMRESTD_URL/" 2>/dev/null; then
		"${SL[@]}" restart-rest >/dev/null 2>&1 || true
	fi
	if [ -n "${min_age_changed:-}" ]; then
		SLURM_LOCAL_MIN_JOB_AGE=$orig_min_age "${SL[@]}" up >/dev/null 2>&1 || true
	fi
	for id in "${cleanup_ids[@]}"; do "$IT" cancel "$id" >/dev/null 2>&1; done
	[ -n "${repl_pid:-}" ] && kill "$repl_pid" 2>/dev/null
	rm -rf "$WORK"
}
cleanup_ids=()
trap cleanup EXIT

script() { # script NAME BODY: write a batch script, print its path
	printf '#!/bin/bash\n%s\n' "$2" >"$WORK/$1.sh"
	echo "$WORK/$1.sh"
}

note "slurmrestd $SRT_SLURMRESTD_URL, driver $IT, tag $TAG"

# ---- ping and version choice ----------------------------------------------------
out=$(it ping)
expect "ping: OK, slurmctld up, auth works" "$out" '.rc == "OK" and .controller_up and .auth_ok'
want_api=v0.0.38
case ${SRT_SLURM_RELEASE:-} in 24.11*) want_api=v0.0.42 ;; esac
[ -n "${SRT_SLURM_API_VERSION:-}" ] && want_api=$SRT_SLURM_API_VERSION
expect "ping: API $want_api chosen, a release reported" "$out" \
	".api_version == \"$want_api\" and (.release | test(\"^[0-9]+\\\\.[0-9]+\"))"
API=$(field "$out" .api_version)
note "API $API, Slurm $(field "$out" .release)"

# ---- the time-limit job starts first: it takes 60-120 s -----------------------------
out=$(it submit "$TAG-timeout" "srtctl:$TAG:timeout" "$(script timeout 'sleep 150')" time=1)
expect "submit a 1-minute job that sleeps 150 s" "$out" '.rc == "OK" and .job_id > 0'
TIMEOUT_ID=$(field "$out" .job_id)
cleanup_ids+=("$TIMEOUT_ID")
t_timeout=$SECONDS

# ---- submit, get, list, find --------------------------------------------------------
t_before=$(($(date +%s) - 2))
out=$(it submit "$TAG-ok" "srtctl:$TAG:1" "$(script ok 'echo "hello $SLURM_JOB_ID FOO=$FOO"; sleep 2')" \
	nodes=2 env=FOO=bar "env=PATH=/usr/bin:/bin")
expect "submit a 2-node job with a name, comment and environment" "$out" '.rc == "OK" and .job_id > 0'
OK_ID=$(field "$out" .job_id)
cleanup_ids+=("$OK_ID")
out=$(it get "$OK_ID")
expect "get: the job carries our name and comment" "$out" \
	".rc == \"OK\" and .job.id == $OK_ID and .job.name == \"$TAG-ok\" and .job.comment == \"srtctl:$TAG:1\""
expect "get: it is PENDING or RUNNING, with no exit code yet" "$out" \
	'(.job.state == "PENDING" or .job.state == "RUNNING") and .job.exit_code == -1 and .job.end_time == 0'
out=$(it wait "$OK_ID" COMPLETED 60)
expect "the job COMPLETED with exit code 0 on 2 nodes" "$out" \
	'.rc == "OK" and .job.state == "COMPLETED" and .job.exit_code == 0 and .job.signal == 0 and (.job.hosts | length) == 2'
expect "its times are set: submit <= start <= end" "$out" \
	'.job.submit_time > 0 and .job.start_time >= .job.submit_time and .job.end_time >= .job.start_time'
outfile=$(ls "$JOBS/$TAG-ok-$OK_ID.out" 2>/dev/null)
if [ -n "$outfile" ] && grep -q "hello $OK_ID FOO=bar" "$outfile"; then ok "the job ran with our environment"; else
	not_ok "the job ran with our environment ($JOBS/$TAG-ok-$OK_ID.out)"
fi

out=$(it list)
expect "list: every job, ours among them" "$out" \
	".rc == \"OK\" and .unchanged == false and ([.jobs[] | select(.id == $OK_ID and .comment == \"srtctl:$TAG:1\")] | length) == 1"
last=$(field "$out" .last_update)
out=$(it list "$t_before")
expect "list changed since before the submit: ours is there" "$out" \
	".rc == \"OK\" and ([.jobs[].id] | index($OK_ID)) != null"
out=$(it find "srtctl:$TAG:1")
expect "find by comment: exactly our job" "$out" ".rc == \"OK\" and .ids == [$OK_ID]"
out=$(it find "srtctl:$TAG:nothing")
expect "find by an unknown comment: none" "$out" '.rc == "OK" and .ids == []'

# ---- a job that exits 3 ------------------------------------------------------------------
out=$(it submit "$TAG-exit3" "srtctl:$TAG:3" "$(script exit3 'exit 3')")
E3_ID=$(field "$out" .job_id)
cleanup_ids+=("$E3_ID")
out=$(it wait "$E3_ID" FAILED 60)
expect "exit 3: FAILED, exit code 3, no signal" "$out" \
	'.rc == "OK" and .job.state == "FAILED" and .job.exit_code == 3 and .job.signal == 0 and .job.reason == "NonZeroExitCode"'

# ---- "changed since" sees a change after the last poll -------------------------------------
out=$(it list "$last")
expect "list changed since the last poll: OK (unchanged or a full list)" "$out" '.rc == "OK"'
expect "...and it is not 'unchanged', since a job was submitted" "$out" \
	".unchanged == false and ([.jobs[].id] | index($E3_ID)) != null"

# ---- cancel ------------------------------------------------------------------------------
out=$(it submit "$TAG-cancel" "srtctl:$TAG:c" "$(script cancel 'sleep 300 & wait')")
C_ID=$(field "$out" .job_id)
cleanup_ids+=("$C_ID")
out=$(it wait "$C_ID" RUNNING 30)
expect "the job to cancel is RUNNING" "$out" '.rc == "OK" and .job.state == "RUNNING"'
out=$(it cancel "$C_ID")
expect "cancel: OK" "$out" '.rc == "OK"'
out=$(it wait "$C_ID" CANCELLED 30)
expect "the job is CANCELLED, killed by a signal" "$out" \
	'.rc == "OK" and .job.state == "CANCELLED" and .job.exit_code == -1 and .job.signal > 0'
out=$(it cancel "$C_ID")
expect "cancelling it again is OK" "$out" '.rc == "OK"'

# ---- signal ------------------------------------------------------------------------------
out=$(it submit "$TAG-sig" "srtctl:$TAG:s" "$(script sig "trap 'echo got-usr1 > $JOBS/$TAG-sig.mark; exit 7' USR1
touch $JOBS/$TAG-sig.ready
for i in \$(seq 600); do sleep 0.1; done")")
S_ID=$(field "$out" .job_id)
cleanup_ids+=("$S_ID")
for _ in $(seq 150); do [ -e "$JOBS/$TAG-sig.ready" ] && break; sleep 0.2; done
out=$(it signal "$S_ID" 10)
expect "signal USR1: OK" "$out" '.rc == "OK"'
out=$(it wait "$S_ID" FAILED 30)
expect "the job's trap ran and it exited 7" "$out" '.job.state == "FAILED" and .job.exit_code == 7'
if grep -q got-usr1 "$JOBS/$TAG-sig.mark" 2>/dev/null; then ok "the trap saw USR1"; else not_ok "the trap saw USR1"; fi
out=$(it signal "$S_ID" 11)
expect "SIGSEGV cannot be sent: INVALID, nothing sent" "$out" '.rc == "INVALID" and (.error | test("cannot be sent"))'

# ---- a held job ----------------------------------------------------------------------------
out=$(it submit "$TAG-held" "srtctl:$TAG:h" "$(script held 'true')" hold)
expect "submit held: OK with a job id" "$out" '.rc == "OK" and .job_id > 0'
H_ID=$(field "$out" .job_id)
cleanup_ids+=("$H_ID")
out=$(it get "$H_ID")
expect "the held job is PENDING, flagged HELD, reason JobHeldUser" "$out" \
	'.job.state == "PENDING" and (.job.flags | index("HELD")) != null and .job.reason == "JobHeldUser"'
out=$(it cancel "$H_ID")
out=$(it wait "$H_ID" CANCELLED 20)
expect "the held job cancelled: CANCELLED" "$out" '.job.state == "CANCELLED"'

# ---- errors the controller branches on ---------------------------------------------------------
out=$(it get 99999999)
expect "an unknown job id: GONE" "$out" '.rc == "GONE" and (.error | test("purged"))'
out=$(it submit "$TAG-badpart" - "$(script bp 'true')" partition=no-such-partition)
expect "a bad partition: REJECTED, saying why" "$out" '.rc == "REJECTED" and (.error | test("[Pp]artition"))'
out=$(it --url "http://127.0.0.1:1" ping)
expect "nothing listening: UNREACHABLE" "$out" '.rc == "UNREACHABLE"'
out=$(it --url "unix:$WORK/no.sock" ping)
expect "no such socket: UNREACHABLE, naming it" "$out" ".rc == \"UNREACHABLE\" and (.error | contains(\"$WORK/no.sock\"))"
out=$(it --url "${SRT_SLURMRESTD_URL/http:/https:}" ping)
expect "https to a plain-HTTP port: TLS" "$out" '.rc == "TLS"'
out=$(it --no-token ping)
expect "no token at all: AUTH" "$out" '.rc == "AUTH"'

# ---- the unix socket (rest_auth/local: no token, no user header) ----------------------------------
if [ -n "${SRT_SLURMRESTD_SOCKET:-}" ]; then
	out=$(it --url "unix:$SRT_SLURMRESTD_SOCKET" --no-token --user "" ping)
	expect "unix socket: ping OK" "$out" ".rc == \"OK\" and .api_version == \"$API\""
	out=$(it --url "$SRT_SLURMRESTD_SOCKET" --no-token --user "" get "$E3_ID")
	expect "unix socket (bare path): get the exit-3 job" "$out" '.rc == "OK" and .job.exit_code == 3'
else
	not_ok "unix socket: SRT_SLURMRESTD_SOCKET is not set (run slurm-local with the socket)"
fi

# ---- an expired token; a token file renewed under a running client ----------------------------------
short=$("${SL[@]}" token --lifespan 1)
sleep 2.2
out=$(SLURM_JWT=$short it get "$OK_ID")
expect "an expired token: AUTH, 'the token was rejected (expired?)'" "$out" \
	'.rc == "AUTH" and (.error | contains("the token was rejected (expired?)")) and (.error | test("expired [0-9]+ s ago"))'
if grep -qF "$short" <<<"$out"; then not_ok "the error does not quote the token"; else ok "the error does not quote the token"; fi
out=$(SLURM_JWT=$short it ping)
expect "an expired token: ping AUTH too" "$out" '.rc == "AUTH" and .auth_ok == false'
printf 'SLURM_JWT=%s\n' "$short" >"$WORK/token"
chmod 600 "$WORK/token"
coproc REPL { "$IT" --token-file "$WORK/token" repl 2>"$WORK/repl.err"; }
# shellcheck disable=SC2153 # REPL_PID is the coproc's
repl_pid=$REPL_PID # bash unsets REPL_PID as soon as the coproc has ended
ask() { # ask COMMAND...: one command to the REPL client, its answer (30 s at most)
	local line=
	echo "$*" >&"${REPL[1]}"
	read -r -t 30 line <&"${REPL[0]}" || line='{"rc":"NO ANSWER"}'
	printf '%s' "$line"
}
out=$(ask get "$OK_ID")
expect "token file with an expired token: AUTH" "$out" '.rc == "AUTH"'
printf '%s\n' "$SLURM_JWT" >"$WORK/token"
out=$(ask get "$OK_ID")
expect "the file renewed: the same client works again" "$out" '.rc == "OK" and .job.state == "COMPLETED"'

# ---- slurmrestd killed, killed during a call, frozen; then restarted -----------------------------------
out=$(ask ping)
expect "REPL client: ping OK" "$out" '.rc == "OK"'
pid=$(rest_pid)
kill -KILL "$pid"
for _ in $(seq 50); do [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] || [ ! -e "/proc/$pid" ] && break; sleep 0.1; done
out=$(ask get "$OK_ID")
expect "slurmrestd killed: UNREACHABLE (not failed, not gone)" "$out" '.rc == "UNREACHABLE"'
"${SL[@]}" restart-rest >"$WORK/restart.log" 2>&1 || note "restart-rest: $(tail -3 "$WORK/restart.log")"
out=$(ask get "$OK_ID")
expect "slurmrestd restarted: the same client works again" "$out" '.rc == "OK" and .job.state == "COMPLETED"'

pid=$(rest_pid)
kill -STOP "$pid"
echo "get $OK_ID" >&"${REPL[1]}"
sleep 1.5
kill -KILL "$pid"
line=
read -r -t 30 line <&"${REPL[0]}" || line='{"rc":"NO ANSWER"}'
# (libcurl may retry a GET on a fresh connection when a kept-alive one dies
# without an answer: then it is "refused", still UNREACHABLE.)
expect "slurmrestd killed during a call: UNREACHABLE" "$line" '.rc == "UNREACHABLE"'
"${SL[@]}" restart-rest >"$WORK/restart.log" 2>&1 || note "restart-rest: $(tail -3 "$WORK/restart.log")"
out=$(ask get "$OK_ID")
expect "restarted again: the same client works" "$out" '.rc == "OK"'

pid=$(rest_pid)
kill -STOP "$pid"
out=$(it --timeout-ms 1500 get "$OK_ID")
expect "slurmrestd frozen: TIMEOUT, 'the outcome is unknown'" "$out" \
	'.rc == "TIMEOUT" and (.error | test("outcome is unknown"))'
kill -CONT "$pid"
out=$(ask get "$OK_ID")
expect "slurmrestd thawed: OK" "$out" '.rc == "OK"'
out=$(ask stats)
expect "the client counted its requests" "$out" '.requests >= 8 and .failures >= 3'
echo quit >&"${REPL[1]}"
wait "$repl_pid" 2>/dev/null
repl_pid=

# ---- srtctl doctor -----------------------------------------------------------------------------------
if [ -x "$SRTCTL" ]; then
	out=$(cd "$WORK" && SRTSLURM_CONFIG='' SRTCTL_SLURMRESTD_URL=$SRT_SLURMRESTD_URL "$SRTCTL" doctor -o json \
		${SRT_SLURM_API_VERSION:+--api-version "$SRT_SLURM_API_VERSION"})
	rc=$?
	expect "srtctl doctor -o json: usable, the version, auth works, no config file" "$out" \
		".usable and .api_version == \"$API\" and .auth_ok and .config == null and .result == \"OK\""
	if [ $rc -eq 0 ]; then ok "srtctl doctor: exit 0 when usable"; else not_ok "srtctl doctor: exit $rc when usable"; fi
	# The release the cluster runs (slurm-local's env names it for 24.11):
	# doctor must name it and the API version it chose, e.g. v0.0.42 and 24.11.5.
	if [ -n "${SRT_SLURM_RELEASE:-}" ]; then
		out=$(cd "$WORK" && SRTSLURM_CONFIG='' SRTCTL_SLURMRESTD_URL=$SRT_SLURMRESTD_URL "$SRTCTL" doctor \
			${SRT_SLURM_API_VERSION:+--api-version "$SRT_SLURM_API_VERSION"} 2>&1)
		if grep -Eq "^ *api version +$API( |\$)" <<<"$out" && grep -Eq "^ *slurm release +$SRT_SLURM_RELEASE\$" <<<"$out"; then
			ok "srtctl doctor names API $API and Slurm release $SRT_SLURM_RELEASE"
		else
			not_ok "srtctl doctor names API $API and Slurm release $SRT_SLURM_RELEASE: $(grep -E '^ *(api version|slurm release)' <<<"$out" | tr '\n' ';')"
		fi
	fi
	out=$(cd "$WORK" && SRTCTL_SLURMRESTD_URL=$SRT_SLURMRESTD_URL SLURM_JWT=$short "$SRTCTL" doctor 2>&1)
	rc=$?
	if [ $rc -eq 1 ] && grep -q "NOT usable (AUTH)" <<<"$out" && grep -q "the token was rejected (expired?)" <<<"$out"; then
		ok "srtctl doctor with an expired token: exit 1, AUTH, says why"
	else
		not_ok "srtctl doctor with an expired token (exit $rc): $(head -c 600 <<<"$out")"
	fi
	all=$(cd "$WORK" && SRTCTL_SLURMRESTD_URL=$SRT_SLURMRESTD_URL "$SRTCTL" doctor -o json 2>&1; SRTCTL_SLURMRESTD_URL=$SRT_SLURMRESTD_URL "$SRTCTL" doctor 2>&1)
	if grep -q "slurm release" <<<"$all" && ! grep -qF "$short" <<<"$out" && ! grep -qF "$SLURM_JWT" <<<"$all"; then
		ok "srtctl doctor never prints the token"
	else
		not_ok "srtctl doctor never prints the token"
	fi
else
	not_ok "srtctl doctor: no srtctl at $SRTCTL"
fi

# ---- the time-limit job -------------------------------------------------------------------------------
left=$((200 - (SECONDS - t_timeout)))
[ $left -gt 10 ] || left=10
out=$(it wait "$TIMEOUT_ID" TIMEOUT $left)
# Slurm TERMs every process of the job: the script dies of it (signal 15) or,
# when its child died first, exits 143 itself.  Either way: TIMEOUT.
expect "over its time limit: TIMEOUT, TimeLimit (after $((SECONDS - t_timeout)) s)" "$out" \
	'.rc == "OK" and .job.state == "TIMEOUT" and .job.reason == "TimeLimit" and (.job.signal == 15 or .job.exit_code == 143)'

# ---- purged after MinJobAge: GONE (last: it reconfigures the cluster) ----------------------------------
# (On 24.11 the reconfigure re-execs slurmctld and the slurmds under new PIDs;
# slurm-local's up waits for them.)
if SLURM_LOCAL_MIN_JOB_AGE=2 "${SL[@]}" up >"$WORK/up.log" 2>&1; then
	min_age_changed=1
	out=$(it submit "$TAG-purge" "srtctl:$TAG:p" "$(script purge 'true')")
	P_ID=$(field "$out" .job_id)
	out=$(it wait "$P_ID" COMPLETED 60)
	expect "the job to be purged COMPLETED" "$out" '.job.state == "COMPLETED"'
	out=$(it wait-gone "$P_ID" 90)
	expect "after MinJobAge: GONE, not FAILED (after $(field "$out" .waited_ms) ms)" "$out" '.rc == "GONE"'
	out=$(it cancel "$P_ID")
	case $API in
	v0.0.40 | v0.0.41) expect "cancel of a purged job: OK ($API cannot tell)" "$out" '.rc == "OK"' ;;
	*) expect "cancel of a purged job: GONE" "$out" '.rc == "GONE"' ;;
	esac
	out=$(it find "srtctl:$TAG:p")
	expect "find no longer sees it" "$out" '.rc == "OK" and .ids == []'
	if SLURM_LOCAL_MIN_JOB_AGE=$orig_min_age "${SL[@]}" up >"$WORK/up.log" 2>&1; then
		min_age_changed=
		ok "MinJobAge restored to $orig_min_age"
	else
		not_ok "MinJobAge restored to $orig_min_age: $(tail -3 "$WORK/up.log")"
	fi
else
	not_ok "MinJobAge=2 (slurm-local up): $(tail -3 "$WORK/up.log")"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
