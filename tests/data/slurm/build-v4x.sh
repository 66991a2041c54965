#!/usr/bin/env bash
# tests/data/slurm/build-v4x.sh: build the v0.0.40 to v0.0.44 reply fixtures.
#
# There is no Slurm 23.11+ daemon in CI, so these replies are built, once, from
# a real Slurm 24.11.5 GET job reply per version (shared/reference/slurmrestd/
# slurm-24.11.5/get-job-completed-v0.0.4{0,1,2}.json) and from the shapes the
# OpenAPI specs (v0040.json ... v0044.json) and the notes on 24.11 give:
# job_state arrays, exit_code objects, {set, infinite, number} structs, ping's
# "pinged" (and "responding" from v0.0.42), DELETE's status[] (v0.0.42+), a
# 404 for an unknown job, 511 for a bad token.  v0.0.43 and v0.0.44 are the
# v0.0.42 reply with their own meta: spec-shaped, never seen from a daemon.
# The output is committed; rerun only to change the fixtures:
#
#   tests/data/slurm/build-v4x.sh [SHARED_DIR]    # default: ../shared beside the repo
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
shared=${1:-$here/../../../../shared}
samples=$shared/reference/slurmrestd/slurm-24.11.5
[ -d "$samples" ] || {
	echo "build-v4x.sh: no $samples" >&2
	exit 2
}

num() { printf '{"set":true,"infinite":false,"number":%s}' "$1"; }
unset_num='{"set":false,"infinite":false,"number":0}'

for v in 40 41 42 43 44; do
	out=$here/v0.0.$v
	mkdir -p "$out"
	src=$samples/get-job-completed-v0.0.$v.json
	[ -f "$src" ] || src=$samples/get-job-completed-v0.0.42.json
	release=24.11.5 major=24 minor=11 micro=5
	case $v in
	43) release=25.05.0 major=25 minor=05 micro=0 ;;
	44) release=25.11.0 major=25 minor=11 micro=0 ;;
	esac
	meta=$(jq -c --arg dp "data_parser/v0.0.$v" --arg rel "$release" --arg ma "$major" \
		--arg mi "$minor" --arg mc "$micro" \
		'.meta | .plugin.data_parser = $dp | .slurm.release = $rel
		 | .slurm.version = {major: $ma, micro: $mc, minor: $mi}' "$src")
	job=$(jq -c '.jobs[0]' "$src")
	j() { jq -c --argjson meta "$meta" '.meta = $meta' >"$out/$1"; }

	# GET job/{id}: the recorded completed job, and states derived from it.
	jq -c --argjson meta "$meta" '.meta = $meta' "$src" >"$out/job-completed.json"
	mkjob() { # mkjob FILE JQ-FILTER-ON-THE-JOB
		jq -c --argjson meta "$meta" --argjson job "$job" \
			"{jobs: [\$job | .job_id = 42 | .name = \"fx\" | .comment = \"srtctl:run-1:1\" | $2],
			  last_backfill: $unset_num, last_update: $(num 1796025000),
			  meta: \$meta, errors: [], warnings: []}" -n >"$out/$1"
	}
	mkjob job-failed-exit3.json '.job_state = ["FAILED"] | .state_reason = "NonZeroExitCode"
		| .exit_code = {status: ["ERROR"], return_code: '"$(num 3)"', signal: {id: '"$unset_num"', name: ""}}'
	mkjob job-cancelled.json '.job_state = ["CANCELLED"] | .nodes = "node[1-2]" | .node_count = '"$(num 2)"'
		| .exit_code = {status: ["SIGNALED"], return_code: '"$unset_num"', signal: {id: '"$(num 15)"', name: "TERM"}}'
	mkjob job-timeout.json '.job_state = ["TIMEOUT"] | .state_reason = "TimeLimit" | .time_limit = '"$(num 1)"'
		| .exit_code = {status: ["SIGNALED"], return_code: '"$unset_num"', signal: {id: '"$(num 15)"', name: "TERM"}}'
	mkjob job-launch-failed.json '.job_state = ["FAILED"] | .state_reason = "RaisedSignal"
		| .state_description = "RaisedSignal:53(Real-time signal 19)"
		| .exit_code = {status: ["SIGNALED"], return_code: '"$unset_num"', signal: {id: '"$(num 53)"', name: "53"}}'
	mkjob job-pending-held.json '.job_state = ["PENDING"] | .state_reason = "JobHeldUser" | .nodes = ""
		| .start_time = '"$(num 0)"' | .end_time = '"$(num 0)"' | .batch_host = ""'
	mkjob job-completing.json '.job_state = ["COMPLETED", "COMPLETING"]'
	mkjob job-running-unlimited.json '.job_state = ["RUNNING"] | .end_time = '"$(num 1827560876)"'
		| .time_limit = {set: false, infinite: true, number: 0}
		| .exit_code = {status: ["SUCCESS"], return_code: '"$(num 0)"', signal: {id: '"$unset_num"', name: ""}}'
	mkjob job-requeued.json '.job_state = ["PENDING", "REQUEUED"] | .state_reason = "BeginTime"'
	mkjob job-extra-fields.json '.job_state = ["RUNNING", "SOME_FUTURE_FLAG"] | .brand_new_field = {a: [1, 2]}
		| del(.comment) | del(.exit_code) | del(.time_limit)'

	# GET jobs/: three jobs; and "nothing changed" (v0.0.42's answer to update_time).
	jq -c --argjson meta "$meta" --argjson job "$job" -n \
		"{jobs: [(\$job | .job_id = 1 | .comment = \"srtctl:a:1\"),
			 (\$job | .job_id = 2 | .comment = \"srtctl:b:1\" | .job_state = [\"RUNNING\"]),
			 (\$job | .job_id = 3 | .comment = \"srtctl:a:1\" | .name = \"other\" | .job_state = [\"PENDING\"])],
		  last_backfill: $unset_num, last_update: $(num 1796025100),
		  meta: \$meta, errors: [], warnings: []}" >"$out/jobs.json"
	jq -c --argjson meta "$meta" -n \
		"{jobs: [], last_backfill: $unset_num, last_update: $(num 1796025100), meta: \$meta, errors: [],
		  warnings: [{description: \"No job changes since update_time[1796025200]\", source: \"_op_handler_jobs\"}]}" \
		>"$out/jobs-unchanged.json"

	# GET ping/.
	if [ "$v" -ge 42 ]; then
		up='{"hostname":"vm","pinged":"UP","responding":true,"latency":654,"mode":"primary","primary":true}'
		down='{"hostname":"vm","pinged":"DOWN","responding":false,"latency":1203,"mode":"primary","primary":true}'
	else
		up='{"hostname":"vm","pinged":"UP","latency":654,"mode":"primary"}'
		down='{"hostname":"vm","pinged":"DOWN","latency":1203,"mode":"primary"}'
	fi
	echo "{\"pings\":[$up],\"errors\":[],\"warnings\":[]}" | j ping-ok.json
	echo "{\"pings\":[$down],\"errors\":[],\"warnings\":[]}" | j ping-down.json

	# POST job/submit (v0.0.40/41 add the deprecated result{}).
	if [ "$v" -le 41 ]; then
		echo '{"result":{"job_id":7,"step_id":"batch","error_code":0,"error":"No error","job_submit_user_msg":""},
		      "job_id":7,"step_id":"batch","job_submit_user_msg":"","errors":[],"warnings":[]}' | j submit-ok.json
	else
		echo '{"job_id":7,"step_id":"batch","job_submit_user_msg":"","errors":[],"warnings":[]}' | j submit-ok.json
	fi
	echo '{"job_id":7,"step_id":"batch","job_submit_user_msg":"","errors":[],
	      "warnings":[{"description":"Ignoring unknown field \"bogus_field\" of type 64 bit integer in DATA_PARSER_JOB_DESC_MSG","source":"#/job/bogus_field"}]}' |
		j submit-warning.json
	echo '{"errors":[{"description":"Batch job submission failed","error_number":2000,"error":"Invalid partition name specified","source":"slurm_submit_batch_job()"}],"warnings":[]}' |
		j submit-bad-partition.json
	echo '{"errors":[{"description":"Batch job submission failed","error_number":2019,"error":"I/O error writing script/environment to file","source":"slurm_submit_batch_job()"}],"warnings":[]}' |
		j submit-no-env.json
	echo '{"errors":[{"description":"Populated \"script\" field is required for job submission","error_number":9000,"error":"Query empty or not RFC7320 compliant","source":"_job_post"}],"warnings":[]}' |
		j submit-no-script.json

	# Errors that are not about the request.
	echo '{"jobs":[],"errors":[{"description":"Unable to query JobId=999999","error_number":2017,"error":"Invalid job id specified","source":"_handle_job_get"}],"warnings":[]}' |
		j job-unknown.json
	echo '{"errors":[{"error_number":1007,"error":"Protocol authentication error"}],"warnings":[]}' | j bad-token.json
	echo '{"errors":[{"description":"Unable to query jobs","error_number":5004,"error":"Socket timed out on send/recv operation","source":"slurm_load_jobs"}],"warnings":[]}' |
		j jobs-ctld-timeout.json

	# DELETE job/{id}.
	if [ "$v" -ge 42 ]; then
		echo '{"status":[],"errors":[],"warnings":[]}' | j delete-ok.json
		echo '{"status":[{"error":{"string":"Job/step already completing or completed","code":2021,"message":"Job/step already completing or completed"},"step_id":"40","job_id":{"set":true,"infinite":false,"number":40},"federation":{"sibling":""}}],"errors":[],"warnings":[]}' |
			j delete-done.json
		echo '{"status":[{"error":{"string":"Invalid job id specified","code":2017,"message":"Invalid job id specified"},"step_id":"999999","job_id":{"set":true,"infinite":false,"number":999999},"federation":{"sibling":""}}],"errors":[],"warnings":[]}' |
			j delete-unknown.json
	else
		echo '{"errors":[],"warnings":[]}' | j delete-ok.json
	fi
done
echo "build-v4x.sh: wrote $(find "$here"/v0.0.4? -name '*.json' | wc -l) files"
