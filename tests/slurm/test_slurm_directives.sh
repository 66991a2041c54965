#!/usr/bin/env bash
# tests/slurm/test_slurm_directives.sh: every directive of srtctl's table
# (slurm/directives.c) reaches SLURM through slurmrestd, in SLURM's own view.
#
#   scripts/slurm-local up && eval "$(scripts/slurm-local env)"
#   SLURM_IT=build/tests/slurm/slurm_it tests/slurm/test_slurm_directives.sh
#
# Works with either flavour (22.05: v0.0.38; --release 24.11: v0.0.40-42, or
# SRT_SLURM_API_VERSION pins one).  Each directive goes on a held job
# submitted through the SLURM client (slurm_it submit ... dir=NAME=VALUE),
# and `scontrol show job` must show it; a directive the API version has no
# field for must be refused before anything is sent (EINVAL naming it and the
# version).  Then GPUs for real: a job asking for every GPU of a node runs to
# COMPLETED; one asking for one more is refused with SLURM's reason.  The
# cluster's nodes have SRT_SLURM_GPUS_PER_NODE GPUs (gres) and the feature
# srtlocal (scripts/slurm-local).  Creates and deletes a reservation.
# QOS: the clusters have accounting (slurmdbd) with the QOS SRT_SLURM_QOS
# allowed for the job user: a job shows it, and a QOS that does not exist is
# refused with SLURM's reason.  Segment (v0.0.41+): the 24.11 cluster has a
# block topology of one block of all nodes; a job whose segment fits runs, one
# whose segment exceeds the block stays pending (BadConstraints) and
# slurmctld's log names its segment.
#
# Exits 77 (skipped) only when SRT_SLURMRESTD_URL is unset.  Prints TAP-like
# lines and "N passed, N failed".
set -uo pipefail

if [ -z "${SRT_SLURMRESTD_URL:-}" ]; then
	echo "test_slurm_directives.sh: SKIPPED: no SRT_SLURMRESTD_URL (eval \"\$(scripts/slurm-local env)\")" >&2
	exit 77
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
IT=$(realpath -m "${SLURM_IT:-$root/build/tests/slurm/slurm_it}")
SL=("$root/scripts/slurm-local")
case ${SRT_SLURM_RELEASE:-} in 24.11*) SL+=(--release 24.11) ;; esac
GPUS=${SRT_SLURM_GPUS_PER_NODE:?SRT_SLURM_GPUS_PER_NODE is not set: bring the cluster up again with this scripts/slurm-local}
TAG=dir-$$-$RANDOM
WORK=$(mktemp -d)
RES=srt$$

n=0 passed=0 failed=0
ok() {
	n=$((n + 1)) passed=$((passed + 1))
	echo "ok $n - $*"
}
not_ok() {
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n - $*"
}
# scontrol of the flavour under test (24.11's lives in its chroot), as root
# (munge), not as the job user of $SLURM_JWT.
sctl() {
	if [ ${#SL[@]} -gt 1 ]; then
		"${SL[@]}" chroot scontrol "$@"
	else
		env -u SLURM_JWT scontrol "$@"
	fi
}
# scancel, the same way.
scan() {
	if [ ${#SL[@]} -gt 1 ]; then
		"${SL[@]}" chroot scancel "$@"
	else
		env -u SLURM_JWT scancel "$@"
	fi
}
it() { "$IT" "$@" 2>>"$WORK/it.err"; }

cleanup() {
	local ids
	ids=$(sctl show job -o 2>/dev/null | grep -o "JobId=[0-9]* .*Comment=$TAG" | sed 's/JobId=\([0-9]*\).*/\1/')
	for id in $ids; do scan "$id" >/dev/null 2>&1 || true; done
	sctl delete ReservationName="$RES" >/dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT

printf '#!/bin/bash\nsleep 1\n' >"$WORK/job.sh"
api=$(it ping | jq -r .api_version)
echo "# API version $api, $GPUS GPUs per node"

# submit_held NAME ARG...: a held job with those submit arguments; prints its id.
submit_held() {
	local name=$1 out
	shift
	out=$(it submit "$name" "$TAG" "$WORK/job.sh" hold "$@")
	jq -r 'select(.rc == "OK") | .job_id' <<<"$out"
	[ "$(jq -r .rc <<<"$out")" = OK ] || echo "# submit $name: $(jq -c . <<<"$out")" >&2
}

# want DIRECTIVE... -- REGEX...: submitted with the directives, the job's
# `scontrol show job -o` line matches every regex.
want() {
	local args=() res=() id line
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	res=("$@")
	id=$(submit_held "d" "${args[@]}" 2>&1)
	if ! [[ $id =~ ^[0-9]+$ ]]; then
		not_ok "${args[*]}: submitted ($id)"
		return
	fi
	line=$(sctl show job -o "$id" 2>&1)
	for re in "${res[@]}"; do
		if ! grep -Eq -- "$re" <<<"$line"; then
			not_ok "${args[*]}: job $id shows /$re/"
			echo "#   scontrol: $(tr ' ' '\n' <<<"$line" | grep -Ev '^(UserId|GroupId|Priority|SubmitTime|EligibleTime|AccrueTime|LastSchedEval|StdIn|Power|Command)=' | tr '\n' ' ' | head -c 1500)"
			sctl release "$id" >/dev/null 2>&1
			scan "$id" >/dev/null 2>&1
			return
		fi
	done
	ok "${args[*]}: job $id shows ${res[*]}"
	scan "$id" >/dev/null 2>&1
}

# refused DIRECTIVE... -- REGEX: the client refuses it before sending (EINVAL).
refused() {
	local args=() out
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	out=$(it submit "r" "$TAG" "$WORK/job.sh" hold "${args[@]}")
	if [ "$(jq -r .rc <<<"$out")" = INVALID ] && jq -r .error <<<"$out" | grep -Eq -- "$2"; then
		ok "${args[*]}: refused on $api ($(jq -r .error <<<"$out" | head -c 200))"
	else
		not_ok "${args[*]}: refused on $api with /$2/"
		echo "#   got: $(jq -c . <<<"$out")"
	fi
}

# segment_checks: Slurm 24.11 keeps a job's segment size but shows it neither
# in scontrol nor in the job record; topology/block acts on it.  The cluster
# has one block of all its nodes (scontrol show topology says how many): a
# 2-node job in segments of 1 runs to COMPLETED; a 1-node job whose segment
# is one more than the block stays PENDING with reason BadConstraints, and
# slurmctld's log says why, naming the job and its segment.
segment_checks() {
	local bsize seg out id st line logf i
	bsize=$(sctl show topology 2>/dev/null | sed -n 's/.*BlockSize=\([0-9]*\).*/\1/p' | head -n 1)
	if ! [[ $bsize =~ ^[0-9]+$ ]]; then
		not_ok "segment: the cluster has a block topology (scontrol show topology: $(sctl show topology 2>&1 | head -c 300))"
		return
	fi
	out=$(it submit seg "$TAG" "$WORK/job.sh" nodes=2 dir=segment=1)
	id=$(jq -r .job_id <<<"$out")
	if [ "$(jq -r .rc <<<"$out")" = OK ]; then
		st=$(it wait "$id" COMPLETED 60 | jq -r .job.state)
		if [ "$st" = COMPLETED ]; then ok "dir=segment=1 nodes=2: job $id COMPLETED in block(s) of $bsize"; else
			not_ok "dir=segment=1 nodes=2: job $id ended $st"
		fi
	else
		not_ok "dir=segment=1 nodes=2 submitted on $api: $(jq -c . <<<"$out")"
	fi
	seg=$((bsize + 1))
	id=$(submit_held seg "dir=segment=$seg" 2>&1)
	if ! [[ $id =~ ^[0-9]+$ ]]; then
		not_ok "dir=segment=$seg: submitted ($id)"
		return
	fi
	sctl release "$id" >/dev/null 2>&1
	line=
	for ((i = 0; i < 100; i++)); do
		line=$(sctl show job -o "$id" 2>&1)
		grep -q 'Reason=BadConstraints' <<<"$line" && break
		sleep 0.1
	done
	logf=$(sctl show config 2>/dev/null | sed -n 's/^SlurmctldLogFile *= *//p')
	if grep -q 'JobState=PENDING' <<<"$line" && grep -q 'Reason=BadConstraints' <<<"$line" &&
		[ -r "$logf" ] && grep -q "JobId=$id segment ($seg) > bblock_node_cnt ($bsize)" "$logf"; then
		ok "dir=segment=$seg (more than the block of $bsize): job $id PENDING/BadConstraints; slurmctld: $(grep -o "JobId=$id segment ($seg) > bblock_node_cnt ($bsize)[^\"]*" "$logf" | head -n 1)"
	else
		not_ok "dir=segment=$seg: job $id pending for its segment: $(grep -o 'JobState=[^ ]*\|Reason=[^ ]*' <<<"$line" | tr '\n' ' ')log $logf: $(grep "JobId=$id " "$logf" 2>/dev/null | tail -n 2)"
	fi
	scan "$id" >/dev/null 2>&1
}

# What srtctl sets itself, through the same submission.
want nodes=2 time=7 exclusive -- 'NumNodes=2' 'TimeLimit=00:07:00' 'OverSubscribe=NO' "Comment=$TAG" \
	"Partition=$SRT_SLURM_PARTITION"
# The table.
want dir=gpus-per-node=2 -- 'TresPerNode=gres[:/]gpu:2'
want dir=gres=gpu:1 -- 'TresPerNode=gres[:/]gpu:1'
want dir=gpus=2 -- 'TresPerJob=gres[:/]gpu:2'
want dir=gpus-per-node=2 dir=cpus-per-gpu=1 -- 'CpusPerTres=gres[:/]gpu:1'
want dir=c=2 -- 'CPUs/Task=2'
want dir=mem=100 -- 'MinMemoryNode=100M'
want dir=mem=1G -- 'MinMemoryNode=1G'
want dir=mem-per-cpu=50 -- 'MinMemoryCPU=50M'
want dir=gpus-per-node=1 dir=mem-per-gpu=100 -- 'MemPerTres=gres[:/]gpu:100'
want dir=constraint=srtlocal -- 'Features=srtlocal'
# QOS needs accounting (slurmdbd): without it slurmctld keeps none
# (SLURM_LOCAL_ACCOUNTING=0), and only the request is checked, by
# tests/unit/test_slurm_restd.c.
if [ -n "${SRT_SLURM_QOS:-}" ]; then
	want "dir=qos=$SRT_SLURM_QOS" -- "QOS=$SRT_SLURM_QOS"
	out=$(it submit q "$TAG" "$WORK/job.sh" hold dir=qos=srtnosuchqos)
	if [ "$(jq -r .rc <<<"$out")" = REJECTED ] && jq -r .error <<<"$out" | grep -qi 'invalid qos'; then
		ok "dir=qos=srtnosuchqos (no such QOS): refused: $(jq -r .error <<<"$out")"
	else
		not_ok "dir=qos=srtnosuchqos refused with SLURM's reason: $(jq -c . <<<"$out")"
	fi
else
	echo "ok # SKIP qos: this cluster has no accounting (SRT_SLURM_QOS is unset), so no job shows a QOS"
fi
want dir=requeue -- 'Requeue=1'
if [ "$api" = v0.0.38 ]; then
	refused dir=no-requeue -- 'directive --no-requeue cannot be sent through slurmrestd API v0.0.38'
else
	want dir=no-requeue -- 'Requeue=0'
fi
want dir=mail-type=END,FAIL dir=mail-user=srt@example.com -- 'MailUser=srt@example.com' \
	'MailType=(END,FAIL|FAIL,END)'
dep=$(submit_held dep)
want "dir=dependency=afterok:$dep" -- "Dependency=afterok:$dep"
scan "$dep" >/dev/null 2>&1
if sctl create reservation ReservationName="$RES" Users="$SRT_SLURM_USER" Nodes=node1 \
	StartTime=now Duration=60 Flags=IGNORE_JOBS >"$WORK/res.out" 2>&1; then
	want "dir=reservation=$RES" -- "Reservation=$RES"
else
	not_ok "create reservation $RES: $(cat "$WORK/res.out")"
fi
case $api in
v0.0.38)
	refused dir=exclude=node2 -- 'directive --exclude cannot be sent through slurmrestd API v0.0.38'
	refused dir=w=node1 -- 'directive --nodelist cannot be sent through slurmrestd API v0.0.38'
	refused dir=segment=1 -- 'directive --segment cannot be sent through slurmrestd API v0.0.38.*v0.0.41'
	;;
*)
	want dir=exclude=node2 -- 'ExcNodeList=node2'
	want dir=nodelist=node1 -- 'ReqNodeList=node1'
	if [ "$api" = v0.0.40 ]; then
		refused dir=segment=1 -- 'directive --segment cannot be sent through slurmrestd API v0.0.40'
	else
		segment_checks
	fi
	;;
esac
# GPUs for real: every GPU of a node runs; one more is refused with SLURM's reason.
out=$(it submit gpus "$TAG" "$WORK/job.sh" "dir=gpus-per-node=$GPUS")
id=$(jq -r .job_id <<<"$out")
if [ "$(jq -r .rc <<<"$out")" = OK ]; then
	st=$(it wait "$id" COMPLETED 60 | jq -r .job.state)
	if [ "$st" = COMPLETED ]; then ok "gpus-per-node=$GPUS (all of a node's): job $id COMPLETED"; else
		not_ok "gpus-per-node=$GPUS: job $id ended $st"
	fi
else
	not_ok "gpus-per-node=$GPUS submitted: $(jq -c . <<<"$out")"
fi
out=$(it submit gpus "$TAG" "$WORK/job.sh" "dir=gpus-per-node=$((GPUS + 1))")
if [ "$(jq -r .rc <<<"$out")" = REJECTED ] &&
	jq -r .error <<<"$out" | grep -q 'Requested node configuration is not available'; then
	ok "gpus-per-node=$((GPUS + 1)) (one more than a node has): refused: $(jq -r .error <<<"$out")"
else
	not_ok "gpus-per-node=$((GPUS + 1)) refused with SLURM's reason: $(jq -c . <<<"$out")"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
