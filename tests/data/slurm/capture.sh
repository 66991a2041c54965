#!/usr/bin/env bash
# tests/data/slurm/capture.sh: record real slurmrestd replies as fixtures.
#
#   eval "$(scripts/slurm-local [--release 24.11] env)"
#   tests/data/slurm/capture.sh VERSION      # e.g. v0.0.38, v0.0.42
#
# Writes tests/data/slurm/VERSION/real-*.json (v0.0.38: the files without the
# prefix, as first recorded), one reply each, and VERSION/real-status.txt with
# the HTTP status of each.  Submits a few tiny jobs as the cluster's JWT user
# and cancels only those.  Needs curl and jq; takes about 10 s.
set -euo pipefail

v=${1:?usage: capture.sh VERSION}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$here/$v
mkdir -p "$out"
: "${SRT_SLURMRESTD_URL:?eval \"\$(scripts/slurm-local env)\" first}"
U=$SRT_SLURMRESTD_URL/slurm/$v
D=$SRT_SLURM_JOBS_DIR
H=(-H "X-SLURM-USER-NAME: $SRT_SLURM_USER" -H "X-SLURM-USER-TOKEN: $SLURM_JWT")
slash=/
[ "$v" = v0.0.38 ] && slash=
pre=real-
[ "$v" = v0.0.38 ] && pre=
status=$out/${pre}status.txt
: >"$status"

get() { # get NAME PATH [curl args...]
	local name=$1 path=$2 code
	shift 2
	code=$(curl -s -o "$out/$pre$name.json" -w '%{http_code}' "${H[@]}" "$@" "$U/$path")
	echo "$pre$name.json $code" >>"$status"
}
body() { # body SCRIPT JOB-JSON: a submit body for this version
	if [ "$v" = v0.0.38 ]; then
		jq -nc --arg s "$1" --argjson j "$2" --arg d "$D" \
			'{script: $s, job: ($j + {current_working_directory: $d, environment: {PATH: "/bin:/usr/bin"}})}'
	else
		jq -nc --arg s "$1" --argjson j "$2" --arg d "$D" \
			'{job: ($j + {script: $s, current_working_directory: $d, environment: ["PATH=/bin:/usr/bin"]})}'
	fi
}
submit() { # submit NAME SCRIPT JOB-JSON: print the job id
	get "$1" "job/submit" -H 'Content-Type: application/json' -d "$(body "$2" "$3")"
	jq -r .job_id "$out/$pre$1.json"
}

get ping-ok "ping$slash"
id3=$(submit submit-ok $'#!/bin/sh\nexit 3' '{"name":"fx-exit3","comment":"srtctl:fx:1"}')
idh=$(submit submit-held $'#!/bin/sh\nsleep 100' '{"name":"fx-held","comment":"srtctl:fx:2","hold":true}')
idc=$(submit submit-cancel $'#!/bin/sh\nsleep 100' '{"name":"fx-cancel","comment":"srtctl:fx:3"}')
t0=$(date +%s)
sleep 3
get job-failed-exit3 "job/$id3"
get job-pending-held "job/$idh"
get job-running "job/$idc"
get delete-ok "job/$idc" -X DELETE
curl -s -o /dev/null "${H[@]}" -X DELETE "$U/job/$idh"
sleep 2
get job-cancelled "job/$idc"
get job-cancelled-held "job/$idh"
get job-unknown "job/999999"
get delete-unknown "job/999999" -X DELETE
get jobs "jobs$slash"
since=$(($(date +%s) + 5))
[ "$v" = v0.0.40 ] || [ "$v" = v0.0.41 ] && since=uts$since
get jobs-unchanged "jobs$slash?update_time=$since"
tok=$("$root/scripts/slurm-local" ${SRT_SLURM_RELEASE:+--release 24.11} token --lifespan 1)
sleep 2
H=(-H "X-SLURM-USER-NAME: $SRT_SLURM_USER" -H "X-SLURM-USER-TOKEN: $tok")
get ping-bad-token "ping$slash"
get job-bad-token "job/$id3"
echo "capture.sh: $(wc -l <"$status") replies of $v in $out (jobs $id3 $idh $idc, from $t0)"
