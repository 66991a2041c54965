#!/usr/bin/env bash
# tests/slurm/test_slurm_env.sh: what a new user does, exactly: in a shell with
# nothing else set, eval "$(scripts/slurm-local [--release 24.11] env)" and run
# the srtctl verbs that talk to SLURM, with no srtslurm.yaml anywhere.
#
#   SRTCTL=build/srtctl tests/slurm/test_slurm_env.sh [--release 24.11]
#
# Checks: `srtctl doctor` says usable and found the URL in
# $SRTCTL_SLURMRESTD_URL; `apply` then `controller --once` submits the run's
# job through slurmrestd (it is in slurmrestd's own list under the run's
# comment); `delete` then `controller --once` cancels it; a run asking for
# more GPUs per node than the nodes have is Failed, and `srtctl describe`
# shows SLURM's reason.  The first job itself may
# fail (it runs the engines' default commands): this test is about the path
# from the printed env to SLURM.
#
# Exits 77 (skipped) when that flavour's cluster is not up, unless
# SRT_E2E_REQUIRED=1.  Every wait is bounded.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SRTCTL=$(realpath -m "${SRTCTL:-$root/build/srtctl}")
SL=("$root/scripts/slurm-local" "$@")

if ! "${SL[@]}" status >/dev/null 2>&1; then
	echo "test_slurm_env.sh: the local SLURM (${SL[*]:1}) is not up: scripts/slurm-local ${*} up" >&2
	[ "${SRT_E2E_REQUIRED:-0}" = 1 ] && exit 1
	exit 77
fi

WORK=$(mktemp -d /tmp/srt-env.XXXXXX)
chmod 755 "$WORK"
cp "$SRTCTL" "$WORK/srtctl" # the job user may not be able to enter this checkout
chmod 755 "$WORK/srtctl"
trap 'rm -rf "$WORK"' EXIT

n=0 passed=0 failed=0
check() { # check DESCRIPTION COMMAND...
	local d=$1
	shift
	n=$((n + 1))
	if "$@"; then
		passed=$((passed + 1))
		echo "ok $n - $d"
	else
		failed=$((failed + 1))
		echo "not ok $n - $d"
	fi
}

# user_shell SCRIPT: bash in $WORK with only PATH, HOME and the printed env.
user_shell() {
	env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME="$WORK" \
		SL="${SL[*]}" SRTCTL="$WORK/srtctl" bash -c 'cd "$HOME" && eval "$($SL env)" && '"$1"
}

user_shell '"$SRTCTL" doctor' >"$WORK/doctor.out" 2>&1
rc=$?
sed 's/^/#   /' "$WORK/doctor.out"
check "doctor after eval of env exits 0" test $rc -eq 0
check "doctor says usable" grep -Eq '^OK +slurmrestd .*: usable$' "$WORK/doctor.out"
check "doctor found the URL in \$SRTCTL_SLURMRESTD_URL" \
	grep -q '(from \$SRTCTL_SLURMRESTD_URL)' "$WORK/doctor.out"
check "doctor found the token in \$SLURM_JWT" grep -q 'from \$SLURM_JWT' "$WORK/doctor.out"

name=env-$$-$RANDOM
cat >"$WORK/r.yaml" <<YAML
name: $name
engine: sglang
roles:
  agg: {}
YAML

# apply + one controller pass: the job is submitted through slurmrestd.
user_shell '"$SRTCTL" apply -f r.yaml --db s.db && "$SRTCTL" controller --once --db s.db' \
	>"$WORK/ctl1.out" 2>&1
rc=$?
check "apply + controller --once after eval of env exit 0" test $rc -eq 0 || sed 's/^/#   /' "$WORK/ctl1.out"
user_shell '"$SRTCTL" get runs -o json --db s.db' >"$WORK/runs.json" 2>/dev/null
read -r job comment < <(python3 -c '
import json, sys
items = json.load(open(sys.argv[1]))["items"]
r = items[0] if items else {}
print(r.get("slurm_job_id") or "-", r.get("job_comment") or "-")' "$WORK/runs.json" 2>/dev/null || echo "- -")
echo "# run's job: $job, comment $comment"
check "the run has a SLURM job id" test "$job" != "-"
# slurmrestd's own view, through the same env, in the API version doctor chose.
api=$(sed -n 's/^ *api version *\(v0\.0\.[0-9]*\).*/\1/p' "$WORK/doctor.out")
echo "# API version: ${api:-?}"
in_list() {
	user_shell 'curl -sS -m 10 -H "X-SLURM-USER-NAME: $SRT_SLURM_USER" -H "X-SLURM-USER-TOKEN: $SLURM_JWT" \
		"$SRTCTL_SLURMRESTD_URL/slurm/'"$api"'/jobs"' >"$WORK/jobs.json" 2>/dev/null
	python3 -c '
import json, sys
try:
    jobs = json.load(open(sys.argv[1]))["jobs"]
except (ValueError, KeyError):
    sys.exit(1)
ids = [j["job_id"] for j in jobs if j.get("comment") == sys.argv[2]]
def state(j):
    s = j.get("job_state")
    return s[0] if isinstance(s, list) else s
live = [j for j in jobs if j.get("comment") == sys.argv[2] and state(j) in ("PENDING", "RUNNING", "CONFIGURING")]
want = sys.argv[3]
sys.exit(0 if (want == "listed" and ids == [int(sys.argv[4])]) or (want == "ended" and not live) else 1)
' "$WORK/jobs.json" "$comment" "$@"
}
check "slurmrestd lists exactly that job under the run's comment" in_list listed "$job"

# delete + controller passes: the job is cancelled (bounded: a few passes).
user_shell '"$SRTCTL" delete recipe '"$name"' --db s.db' >/dev/null 2>&1
ended=1
for _ in 1 2 3 4 5 6 7 8 9 10; do
	user_shell '"$SRTCTL" controller --once --db s.db' >>"$WORK/ctl2.out" 2>&1
	if in_list ended; then
		ended=0
		break
	fi
	sleep 1
done
check "delete + controller --once: the job is no longer pending or running" test $ended -eq 0

# A run asking for more GPUs per node than the nodes have (gres gpu, see
# scripts/slurm-local): SLURM refuses the job, and the user sees SLURM's
# reason in the run's events (srtctl describe).
big=gpus-$$-$RANDOM
cat >"$WORK/big.yaml" <<YAML
name: $big
engine: sglang
resources: {gpus_per_node: 64}
roles:
  agg: {}
YAML
user_shell '"$SRTCTL" apply -f big.yaml --db s.db && "$SRTCTL" controller --once --db s.db; "$SRTCTL" describe recipe '"$big"' --db s.db' \
	>"$WORK/big.out" 2>&1
run=$(user_shell '"$SRTCTL" get runs -o json --db s.db' 2>/dev/null |
	jq -r --arg r "$big" '.items[] | select(.recipe == $r) | .name' | head -1)
user_shell '"$SRTCTL" describe run '"${run:-none}"' --db s.db' >"$WORK/big-run.out" 2>&1
sed 's/^/#   /' "$WORK/big-run.out" | grep -E 'Phase|SubmitRejected|gres|GPU' | head -5
check "64 GPUs per node: the run is Failed" grep -Eq '^Phase: +Failed' "$WORK/big-run.out"
check "64 GPUs per node: describe shows SLURM's reason" \
	grep -q 'SLURM refused the job: .*Requested node configuration is not available' "$WORK/big-run.out"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
