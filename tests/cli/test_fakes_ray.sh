#!/usr/bin/env bash
# tests/cli/test_fakes_ray.sh: the strict stand-in for Ray's `ray` CLI
# (tests/fakes/ray, Ray 2.53.0) refuses what the real one refuses (click's
# exit 2, cli_logger's aborts exit 1), starts a head whose dashboard answers
# /api/version and /nodes?view=summary, lets a worker join it over the GCS
# port, lists nodes ALIVE and then DEAD as Ray does, fails on taken ports
# and unreachable heads as Ray does, and exits 1 on SIGTERM.  See
# tests/fakes/README.md.  Loopback only (127.0.0.1-3), free ports picked by
# the kernel, every wait bounded, every process killed by PID on exit.
set -euo pipefail

src=${SRT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
RAY=$src/tests/fakes/ray

. "$src/tests/cli/fakes_lib.sh"
unset FAKE_RECORD_DIR FAKE_RECORD_FILE FAKE_CHECK_ONLY FAKE_RAY_VERSION FAKE_RAY_COMMIT \
	FAKE_RAY_START_DELAY RAY_ADDRESS RAY_NUM_REDIS_GET_RETRIES \
	RAY_gcs_rpc_server_connect_timeout_s RAY_gcs_rpc_server_reconnect_timeout_s \
	RAY_health_check_period_ms RAY_health_check_failure_threshold RAY_DASHBOARD_NO_CACHE \
	CUDA_VISIBLE_DEVICES RAY_USAGE_STATS_ENABLED
# The GCS binds 0.0.0.0 like Ray's; keep this test's heads on loopback.
export FAKE_BIND_HOST=127.0.0.1
n=0
ok() {
	n=$((n + 1))
	echo "ok $n - $*"
}

plain() { # FILE: its text without ANSI colours (Ray's record-style lines carry them)
	sed 's/\x1b\[[0-9;]*m//g' "$1"
}

wait_line() { # FILE PATTERN SECONDS PID: PATTERN (grep -E, colours stripped) appears in FILE
	local end=$((SECONDS + $3))
	while ! plain "$1" | grep -qE -- "$2"; do
		alive "$4" || fail "$1: the process exited before printing '$2'"
		((SECONDS < end)) || fail "$1: no '$2' within $3 s"
		sleep 0.05
	done
}

summary() { # PYEXPR over the nodes list ns (each {ip, state, gpu, reason}); waits up to 20 s
	net waitjson "http://127.0.0.1:$D/nodes?view=summary&nocache=1" 20 \
		"(lambda ns: $1)([{'ip': x['raylet']['nodeManagerAddress'], 'state': x['raylet']['state'], 'gpu': x['raylet']['resourcesTotal'].get('GPU'), 'head': x['raylet']['isHeadNode'], 'reason': (x['raylet'].get('deathInfo') or {}).get('reason')} for x in d['data']['summary']])"
}

read -r P D P2 D2 DEAD < <(net freeports 5)

# ---- the command line ----
rc=0
"$RAY" --version >out 2>err || rc=$?
[[ $rc == 0 && $(cat out) == "ray, version 2.53.0" ]] || fail "ray --version: exit $rc, '$(cat out)'"
refused 2 "Error: No such option: --foo" "an unknown option" -- \
	"$RAY" start --head --block --foo
grep -qx "Usage: ray start \[OPTIONS\]" err || fail "no click usage line for an unknown option"
refused 2 "Error: No such option: --hed (Possible options: --head, --help)" "a near miss" -- \
	"$RAY" start --hed --block
refused 2 "Error: Invalid value for '--port': 'x' is not a valid integer." "a bad int" -- \
	"$RAY" start --head --block --port x
refused 2 "Error: Invalid value for '--include-dashboard': 'maybe' is not a valid boolean." \
	"a bad bool" -- "$RAY" start --head --block --include-dashboard maybe
refused 2 "Error: Option '--head' does not take a value." "a flag with a value" -- \
	"$RAY" start --head=1 --block
refused 2 "without --block" "no --block (the stand-in models --block only)" -- \
	"$RAY" start --head --port "$P" --dashboard-port "$D"
refused 2 "Error: No such command 'strat'." "a subcommand typo" -- "$RAY" strat
ok "click's refusals exit 2 (unknown option, bad int and bool, flag value, typo); no --block exits 2"

refused 1 "is a required flag unless starting a head node with" "neither --head nor --address" -- \
	"$RAY" start --block --node-ip-address=127.0.0.2
grep -qF 'Error: `{}` is a required flag unless starting a head node with `{}`.' err ||
	fail "no click Error line with cli_logger's template"
refused 1 "should only be specified when starting head node with" "--port on a worker" -- \
	"$RAY" start --block --address="127.0.0.1:$P" --port 6380
refused 1 "ValueError: Attempting to start raylet with 2 GPU, but CUDA_VISIBLE_DEVICES contains ['0']." \
	"more GPUs than CUDA_VISIBLE_DEVICES lists" -- \
	env CUDA_VISIBLE_DEVICES=0 "$RAY" start --head --block --port "$P" --dashboard-port "$D" \
	--node-ip-address=127.0.0.1 --num-gpus=2 --disable-usage-stats
ok "cli_logger's aborts and the accelerator check exit 1 with Ray's messages"

# ---- a head and a worker, as srtctl starts them ----
export RAY_health_check_period_ms=100 RAY_health_check_failure_threshold=3
start head.log "$RAY" start --head --port="$P" --dashboard-host=0.0.0.0 --dashboard-port="$D" \
	--node-ip-address=127.0.0.1 --num-gpus=2 --disable-usage-stats --block
HEAD=$SPID
net waitjson "http://127.0.0.1:$D/api/version" 30 \
	"sorted(d) == ['ray_commit', 'ray_version', 'session_name', 'version'] and d['ray_version'] == '2.53.0' and d['version'] == '4' and d['session_name'].startswith('session_')" ||
	fail "GET /api/version never answered Ray's shape"
wait_line head.log "SUCC scripts\.py:[0-9]+ -- Ray runtime started\.$" 10 "$HEAD"
plain head.log | grep -qF "  ray start --address='127.0.0.1:$P'" || fail "no ray start --address line"
plain head.log | grep -qF -- "--   127.0.0.1:$D" || fail "the banner does not show the dashboard at 127.0.0.1:$D"
plain head.log | grep -qF "Usage stats collection is disabled." || fail "no usage-stats line"
grep -qF $'\x1b[32mRay runtime started.\x1b[39m' head.log ||
	fail "the record-style banner lacks Ray's colour codes"
rc=0
curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$D/no/such/path" >code || rc=$?
[[ $rc == 0 && $(cat code) == 404 ]] || fail "an unknown dashboard path: $(cat code), not 404"
ok "the head: /api/version in Ray's shape, the banner with the join address and dashboard, 404 elsewhere"

start w1.log "$RAY" start --address="127.0.0.1:$P" --node-ip-address=127.0.0.2 --num-gpus=2 \
	--disable-usage-stats --block
W1=$SPID
wait_line w1.log "Ray runtime started" 30 "$W1"
summary "len(ns) == 2 and all(x['state'] == 'ALIVE' and x['gpu'] == 2.0 for x in ns) and sorted(x['ip'] for x in ns) == ['127.0.0.1', '127.0.0.2'] and [x['head'] for x in ns] == [True, False]" ||
	fail "the node summary does not list the head and the worker ALIVE with 2 GPUs"
net waitjson "http://127.0.0.1:$D/nodes?view=summary" 5 \
	"d['result'] is True and d['msg'] == 'Node summary fetched.' and 'nodeLogicalResources' in d['data'] and 'objectStoreMemory' in d['data']['summary'][0]['raylet']['resourcesTotal']" ||
	fail "the summary is not in the dashboard's camel-cased shape"
rc=0
"$RAY" status --address "127.0.0.1:$P" >out 2>err || rc=$?
[[ $rc == 0 ]] && grep -q "^======== Autoscaler status: " out && [[ $(grep -c "^ 1 node_" out) == 2 ]] &&
	grep -qx " 0.0/4.0 GPU" out || fail "ray status: exit $rc: $(head -n 12 out)"
ok "a worker joins: the summary lists 2 ALIVE nodes (camel-cased, 2 GPUs each); ray status lists both"

kill -TERM "$W1"
expect_rc 1 "$W1" 10 "the worker on SIGTERM"
summary "[(x['ip'], x['state'], x['reason']) for x in ns] == [('127.0.0.1', 'ALIVE', None), ('127.0.0.2', 'DEAD', 'EXPECTED_TERMINATION')]" ||
	fail "the stopped worker is not DEAD (EXPECTED_TERMINATION) in the summary"
start w2.log "$RAY" start --address="127.0.0.1:$P" --node-ip-address=127.0.0.3 --disable-usage-stats \
	--block --log-style=pretty --log-color=false
W2=$SPID
wait_line w2.log "^Ray runtime started\.$" 30 "$W2"
summary "sum(x['state'] == 'ALIVE' for x in ns) == 2" || fail "the second worker never became ALIVE"
kill -KILL "$W2"
reap "$W2" 10 2>/dev/null # (no "Killed" job notice)
summary "[(x['ip'], x['state'], x['reason']) for x in ns][-1] == ('127.0.0.3', 'DEAD', 'UNEXPECTED_TERMINATION') and sum(x['state'] == 'ALIVE' for x in ns) == 1" ||
	fail "a killed worker is not marked DEAD after the health checks"
ok "SIGTERM: the worker exits 1 and is DEAD (expected); SIGKILL: DEAD after the health checks"

# ---- taken ports, unreachable heads ----
refused 1 "RuntimeError: Failed to start GCS." "a second head on the same GCS port" -- \
	"$RAY" start --head --port="$P" --dashboard-port="$D2" --node-ip-address=127.0.0.1 \
	--disable-usage-stats --block
start h2.log "$RAY" start --head --port="$P2" --dashboard-port="$D" --node-ip-address=127.0.0.1 \
	--disable-usage-stats --block
H2=$SPID
wait_line h2.log "Ray runtime started" 30 "$H2"
grep -q "ERROR services.py:[0-9]* -- Failed to start the dashboard" h2.log ||
	fail "a taken dashboard port was not logged"
plain h2.log | grep -q "view the dashboard" && fail "a head without a dashboard advertises one"
kill -TERM "$H2"
expect_rc 1 "$H2" 10 "the dashboard-less head on SIGTERM"
refused 1 "Exception: Failed to start the dashboard" "a taken dashboard port with --include-dashboard=true" -- \
	"$RAY" start --head --port="$P2" --dashboard-port="$D" --include-dashboard=true \
	--node-ip-address=127.0.0.1 --disable-usage-stats --block
ok "a taken GCS port exits 1; a taken dashboard port is logged and the head runs without one, unless required"

RAY_gcs_rpc_server_connect_timeout_s=1 refused 1 \
	"ray.exceptions.RpcError: Timed out while waiting for GCS to become available." \
	"ray status at a dead address" -- "$RAY" status --address "127.0.0.1:$DEAD"
grep -qF "Failed to connect to GCS at address 127.0.0.1:$DEAD within 1 seconds." err ||
	fail "ray status: no GCS connection warning"
RAY_NUM_REDIS_GET_RETRIES=2 RAY_gcs_rpc_server_connect_timeout_s=1 start w3.log \
	"$RAY" start --address="127.0.0.1:$DEAD" --node-ip-address=127.0.0.2 --disable-usage-stats --block
expect_rc 1 "$SPID" 30 "a worker whose head is not there"
[[ $(grep -c "Failed to connect to GCS at address 127.0.0.1:$DEAD within 1 seconds." w3.log) == 2 ]] &&
	grep -q "^RuntimeError: Failed to connect to GCS. " w3.log || fail "worker to a dead head: $(tail -n 3 w3.log)"
plain w3.log | grep -q "Ray runtime started" && fail "a worker that never joined printed the banner"
ok "ray status and a worker at a dead GCS retry as configured, then exit 1 with Ray's errors"

# ---- the head goes away; SIGINT ----
RAY_gcs_rpc_server_reconnect_timeout_s=1 start w4.log "$RAY" start --address="127.0.0.1:$P" \
	--node-ip-address=127.0.0.2 --disable-usage-stats --block
W4=$SPID
wait_line w4.log "Ray runtime started" 30 "$W4"
kill -TERM "$HEAD"
expect_rc 1 "$HEAD" 10 "the head on SIGTERM"
expect_rc 1 "$W4" 15 "a worker whose head stopped"
plain w4.log | grep -q "ERR scripts.py:[0-9]* -- Some Ray subprocesses exited unexpectedly:" ||
	fail "the orphaned worker did not report its raylet's exit"
start h3.log "$RAY" start --head --port="$P2" --dashboard-port="$D2" --node-ip-address=127.0.0.1 \
	--disable-usage-stats --block
H3=$SPID
wait_line h3.log "Ray runtime started" 30 "$H3"
kill -INT "$H3"
expect_rc 1 "$H3" 10 "the head on SIGINT"
grep -qx "Aborted!" h3.log || fail "SIGINT: no click 'Aborted!'"
ok "SIGTERM ends the head (exit 1), its worker follows after the reconnect timeout; SIGINT: Aborted!, exit 1"
echo "1..$n"
