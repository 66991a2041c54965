#!/usr/bin/env bash
# tests/cli/test_agent.sh: `srtctl agent` run for real, with SLURM stood in.
#
# Stand-ins first on PATH: `srun` drops its --options and runs the command
# here, "on" the node named by --nodelist (it exports FAKE_BIND_HOST and
# FAKE_ENGINE_DEFAULT_HOST = that node's IP so the tests/fakes servers bind
# it); `scontrol show hostnames` splits the list; `hostname -I` and
# `ip -4 -o addr show dev fk0` print the node's IP.  Node nK has IP
# $NET.K, where NET is a random 127.x.y network, so every node has its own
# loopback address and the fixed master ports (8700-8702) never collide
# with another test.  Processes are tests/fakes (master, store, engine,
# benchmark), named by srtslurm.yaml's commands like the real programs.
#
# Scenarios: SGLang (order, Env: lines, stamped env, hostile values, env
# hash, srun flags, SIGTERM order); vLLM with a dedicated master, stores
# gated on readiness and a benchmark (store_config, Succeeded); a master
# that never becomes ready and one that exits at once (Failed, the port
# and the log tail in the event); an agent restarted in the same run
# directory (event seq continues, torn line cut); an external master that
# is down, then up; a killed master restarted with its stores (issue 6);
# a hung master restarted by liveness; a crash loop ended by its budget; a
# port held by another process (the failure names the probes, the held
# port, and keeps the error lines whole); a second SIGTERM while stopping;
# a generation that cannot become ready, rolled back; a probe that hangs
# while another process is restarted.  The agent runs
# without a wrapper: every signal is sent once, by pid, and every wait is
# bounded.
set -euo pipefail

# shellcheck source=tests/cli/agent_lib.sh
source "$(dirname "$0")/agent_lib.sh"

# ---- 1. SGLang: order, env, Env: lines, hostile values, SIGTERM order ----

HOSTILE="it's \"q\" \$(touch $work/canary1) \`touch $work/canary2\`; echo x
second line"
new_case sglang "name: agent-sglang
engine: sglang
model: {path: $model}
roles:
  prefill:
    env:
      MOONCAKE_PROTOCOL: tcp
      HOSTILE: $(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$HOSTILE")
    args: {disaggregation-transfer-backend: mooncake, disaggregation-ib-device: mlx5_0}
  decode:
    env: {MOONCAKE_LOCAL_HOSTNAME: 9.9.9.9}
    args: {disaggregation-transfer-backend: mooncake, disaggregation-ib-device: mlx5_0}
services:
  - name: mooncake-master
    type: mooncake-master
    readiness: {timeout_seconds: 30, interval_seconds: 1}"
start_agent n1,n2
until_py 40 'status()["phase"] == "Ready" and len(records()) == 2'
export HOSTILE
check "order, env, status" '
ip1, ip2 = os.environ["FAKE_NET"] + ".1", os.environ["FAKE_NET"] + ".2"
es = events()
assert [e["seq"] for e in es] == list(range(1, len(es) + 1)), "seq is 1..N"
assert all(e["job_id"] == "4242" for e in es)
assert es[0]["reason"] == "AgentStarted" and es[0]["generation"] == 0   # before the plan is read
assert all(e["generation"] == 1 for e in es[1:])
ready = ev("Ready", "mooncake-master")[0]
starts = {e["object"]["name"]: e for e in ev("Started")}
for w in ("prefill_0", "decode_0"):
    assert starts[w]["seq"] > ready["seq"] and starts[w]["time"] >= ready["time"], w
    assert starts[w]["object"]["kind"] == "worker"
assert starts["mooncake-master"]["object"] == {"kind": "service", "name": "mooncake-master", "service": "mooncake-master"}
assert starts["prefill_0"]["object"]["role"] == "prefill" and starts["prefill_0"]["object"]["index"] == 0
assert ev("RunReady")[0]["seq"] > ready["seq"]
assert ev("NodesResolved")[0]["message"].startswith("n1=%s (infra), n2=%s" % (ip1, ip2))
recs = {r["env"]["SRT_FAKE_NODE"]: r for r in records()}
p, d = recs["n1"]["env"], recs["n2"]["env"]
assert p["MOONCAKE_MASTER"] == ip1 + ":8700" and d["MOONCAKE_MASTER"] == ip1 + ":8700"
assert p["MOONCAKE_TE_META_DATA_SERVER"] == "http://%s:8701/metadata" % ip1
assert p["MOONCAKE_LOCAL_HOSTNAME"] == ip1, p["MOONCAKE_LOCAL_HOSTNAME"]
assert d["MOONCAKE_LOCAL_HOSTNAME"] == "9.9.9.9"   # the role pins it
assert p["HOSTILE"] == os.environ["HOSTILE"], repr(p["HOSTILE"])
assert "HOSTILE" not in d
st = status()
assert st["version"] == 1 and st["plan_generation"] == 1 and st["job_id"] == "4242"
assert st["nodes"] == [{"host": "n1", "ip": ip1}, {"host": "n2", "ip": ip2}]
assert st["infra_ip"] == ip1 and st["exit_code"] is None
m = proc("mooncake-master")
assert m["state"] == "Ready" and m["endpoint"] == ip1 + ":8700" and m["node"] == 0 and m["ready_at"] >= m["started_at"] > 0
assert m["last_probe"] == "http 8702 /health: HTTP 200", m["last_probe"]
w = proc("prefill_0")
# Workers gate on GET /health of their engine (recipe/launch.h): Ready, not Running.
assert w["state"] == "Ready" and w["ip"] == ip1 and w["host"] == "n1" and w["restarts"] == 0
# env_hash: sha256 of NAME=value\0 in name order, over what the plan gave it.
import hashlib
plan = json.load(open("run/plan.json"))
names = [e["name"] for e in [x for x in plan["processes"] if x["name"] == "prefill_0"][0]["env"]]
h = hashlib.sha256(b"".join(n.encode() + b"=" + p[n].encode() + b"\0" for n in sorted(names))).hexdigest()
assert w["env_hash"] == h, (w["env_hash"], h)
'
[[ ! -e $work/canary1 && ! -e $work/canary2 ]] || fail "sglang: a hostile value ran a command"
check "Env: lines" '
ip1 = os.environ["FAKE_NET"] + ".1"
sq = lambda s: "\x27" + s.replace("\x27", "\x27\\\x27\x27") + "\x27"
want = ("Env: MOONCAKE_PROTOCOL=tcp HOSTILE=%s MOONCAKE_MASTER=%s:8700 "
        "MOONCAKE_TE_META_DATA_SERVER=http://%s:8701/metadata MOONCAKE_LOCAL_HOSTNAME=%s\n"
        % (sq(os.environ["HOSTILE"]), ip1, ip1, ip1))
got = open("run/logs/worker_prefill_0.out").read()
assert got.startswith(want), (got[:400], want)
want = ("Env: MOONCAKE_LOCAL_HOSTNAME=9.9.9.9 MOONCAKE_MASTER=%s:8700 "
        "MOONCAKE_TE_META_DATA_SERVER=http://%s:8701/metadata\n" % (ip1, ip1))
assert open("run/logs/worker_decode_0.out").read().startswith(want)
'
grep -q "Master service started on port 8700" run/logs/service_mooncake-master.out || fail "sglang: master log"
grep -qx -- "--overlap --nodes=1 --ntasks=1 --nodelist=n1 --job-name=mooncake-master env" srun.log || fail "sglang: master srun flags: $(cat srun.log)"
grep -qx -- "--overlap --nodes=1 --ntasks=1 --nodelist=n2 --job-name=decode_0 env" srun.log || fail "sglang: decode srun flags"
pids=$(step_pids)
stop_agent
[[ $rc == 143 ]] || fail "sglang: agent exit status $rc after SIGTERM, want 143"
for p in $pids; do kill -0 "$p" 2>/dev/null && fail "sglang: process $p left running"; done
check "SIGTERM order and final status" '
es = events()
assert [e["seq"] for e in es] == list(range(1, len(es) + 1))
stop = ev("Stopping")[0]
st = {e["object"]["name"]: e for e in ev("Stopped") if e["object"]["kind"] != "run"}
assert st["mooncake-master"]["seq"] > st["prefill_0"]["seq"] and st["mooncake-master"]["seq"] > st["decode_0"]["seq"]
assert st["prefill_0"]["seq"] > stop["seq"]
assert es[-1]["reason"] == "Stopped" and es[-1]["object"]["kind"] == "run"
assert len(ev("Stopping")) == 1 and not ev("Killed"), [e["message"] for e in ev("Killed")]
'"$RUN_STOPPED_ONCE"'
s = status()
assert s["phase"] == "Stopped" and s["exit_code"] == 143, (s["phase"], s["exit_code"])
assert all(p["state"] == "Stopped" and p["pid"] is None for p in s["processes"])
'
echo "ok 1 sglang: order, stamped env, Env: lines, hostile values, SIGTERM order"

# ---- 2. vLLM, dedicated master, stores gated on readiness, benchmark ----

new_case vllm "name: agent-vllm
engine: vllm
model: {path: $model}
roles:
  prefill:
    args: {kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_both\"}'}
  decode:
    args: {kv-transfer-config: '{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_both\"}'}
services:
  - name: mooncake-master
    type: mooncake-master
    placement: {node: dedicated}
    readiness: {timeout_seconds: 30, interval_seconds: 1}
    options:
      store_config: {metadata_server: P2PHANDSHAKE, global_segment_size: 1GB, protocol: tcp}
  - name: mooncake-store
    type: mooncake-store
    args: [--port, '8800']
    readiness: {port: 8800, timeout_seconds: 30, interval_seconds: 1}
benchmark:
  type: custom
  command: python3 $F/fake_benchmark" fk0
start_agent n1,n2,n3 FAKE_BENCH_SECONDS=2
finish_agent
[[ $rc == 0 ]] || fail "vllm: agent exit status $rc, want 0 (the benchmark's)"
check "vllm: store_config, order, Succeeded" '
ip = lambda k: os.environ["FAKE_NET"] + "." + str(k)
sc_path = os.path.realpath("run/logs/mooncake/store_config.json")
text = open(sc_path).read()
assert text.startswith("{\"master_server_address\":\"%s:8700\"," % ip(3)), text
assert json.loads(text) == {"master_server_address": ip(3) + ":8700", "metadata_server": "P2PHANDSHAKE", "global_segment_size": "1GB", "protocol": "tcp"}
recs = records()
assert len(recs) == 2
for r in recs:
    assert r["env"]["MOONCAKE_CONFIG_PATH"] == sc_path
    assert r["env"]["MOONCAKE_MASTER"] == ip(3) + ":8700"
ready_m = ev("Ready", "mooncake-master")[0]
ready_s = [e for e in ev("Ready") if e["object"].get("service") == "mooncake-store"]
start_s = [e for e in ev("Started") if e["object"].get("service") == "mooncake-store"]
start_w = [e for e in ev("Started") if e["object"]["kind"] == "worker"]
assert sorted(e["object"]["name"] for e in start_s) == ["mooncake-store_n1", "mooncake-store_n2"]
assert len(ready_s) == 2 and len(start_w) == 2
assert min(e["seq"] for e in start_s) > ready_m["seq"]
assert min(e["time"] for e in start_s) >= ready_m["time"]
assert min(e["seq"] for e in start_w) > max(e["seq"] for e in ready_s)
assert min(e["time"] for e in start_w) >= max(e["time"] for e in ready_s)
assert ev("Started", "benchmark")[0]["seq"] > ev("RunReady")[0]["seq"]
assert ev("RunSucceeded")
s = status()
assert s["phase"] == "Succeeded" and s["exit_code"] == 0
assert proc("mooncake-master")["host"] == "n3" and proc("mooncake-master")["endpoint"] == ip(3) + ":8700"
assert proc("mooncake-store_n2")["endpoint"] == ip(2) + ":8800"
assert proc("benchmark")["state"] == "Exited" and proc("benchmark")["exit_code"] == 0
assert ev("NodesResolved")[0]["message"].endswith("interface fk0")
'
[[ -f benchmark_result.json ]] || fail "vllm: no benchmark result"
echo "ok 2 vllm: dedicated master, store_config, stores gated before workers, benchmark -> Succeeded"

# ---- 3. a master that never becomes ready ----

master_only() { echo "name: agent-fail
engine: sglang
model: {path: $model}
roles:
  agg:
    args: {disaggregation-transfer-backend: mooncake, disaggregation-ib-device: mlx5_0}
services:
  - name: mooncake-master
    type: mooncake-master
    readiness: {timeout_seconds: $1, interval_seconds: 1}"; }
new_case never "$(master_only 3)"
start_agent n1 FAKE_MASTER_HANG=admin
finish_agent
[[ $rc == 1 ]] || fail "never: exit status $rc, want 1"
check "never ready" '
ip1 = os.environ["FAKE_NET"] + ".1"
t = ev("ReadinessTimeout", "mooncake-master")[0]
assert t["type"] == "Warning"
assert "not ready within 3 s: http port 8702 on %s never answered" % ip1 in t["message"], t["message"]
f = ev("RunFailed")[0]
assert "mooncake-master was not ready within 3 s: http port 8702" in f["message"], f["message"]
assert "last lines of service_mooncake-master.out" in f["message"]
assert not ev("Started", "agg_0")
s = status()
assert s["phase"] == "Failed" and s["exit_code"] == 1
assert proc("mooncake-master")["state"] == "Failed" and proc("agg_0")["state"] == "Pending"
'"$RUN_STOPPED_ONCE"'
'
echo "ok 3 a master that never becomes ready fails the run, naming the port"

# ---- 4. a master that exits at once; 5. the agent restarted in the same run dir ----

# The readiness budget is 60 s: the run ends long before it.
new_case atonce "$(master_only 60)"
start_agent n1 FAKE_MASTER_EXIT_AT_ONCE=1
finish_agent
[[ $rc == 1 ]] || fail "atonce: exit status $rc, want 1"
check "exits at once" '
f = ev("RunFailed")[0]
assert "mooncake-master exited with status 1 before it was ready: tcp 8700 never answered" in f["message"], f["message"]
assert "tcp 8701 never answered" in f["message"] and "http 8702 /health never answered" in f["message"], f["message"]
assert "still accept" not in f["message"], f["message"]
assert "last lines of service_mooncake-master.out:" in f["message"]
assert "Failed to start master service" in f["message"], f["message"]
x = ev("ProcessExited", "mooncake-master")[0]
assert x["type"] == "Warning" and x["seq"] < f["seq"]
assert not ev("ReadinessTimeout") and status()["phase"] == "Failed"
'"$RUN_STOPPED_ONCE"'
'
echo "ok 4 a master that exits at once fails the run at once with its log tail"

last=$(python3 -c "$PYLIB
print(events()[-1]['seq'], status()['seq'])")
printf '{"seq":%s,"time":1,"type":"Norm' "$((${last% *} + 1))" >>run/events.jsonl
start_agent n1 FAKE_MASTER_EXIT_AT_ONCE=1
finish_agent
check "seq continuity" '
last_ev, last_st = map(int, sys.argv[1:3])
raw = open("run/events.jsonl", "rb").read()
assert raw.endswith(b"\n") and b"\"Norm{" not in raw and b"Norm\n" not in raw
es = events()
assert [e["seq"] for e in es] == list(range(1, len(es) + 1)), [e["seq"] for e in es]
starts = ev("AgentStarted")
assert len(starts) == 2 and starts[1]["seq"] == last_ev + 1
assert status()["seq"] > last_st
' ${last}
echo "ok 5 a restarted agent continues event seq (torn line cut) and status seq"

# ---- 6. an external master that is down, then up ----

new_case external "name: agent-ext
engine: sglang
model: {path: $model}
roles:
  agg:
    args: {disaggregation-transfer-backend: mooncake, disaggregation-ib-device: mlx5_0}
services:
  - name: mooncake-master
    type: mooncake-master
    external: $NET.250:8700"
start_agent n1
until_py 20 'ev("MasterUnreachable")'
sleep 1.5
check "held back" '
w = ev("MasterUnreachable")[0]
assert w["type"] == "Warning" and os.environ["FAKE_NET"] + ".250:8700" in w["message"]
assert proc("agg_0")["state"] == "Pending" and not ev("Started")
m = proc("mooncake-master")
assert m["external"] and m["node"] is None and m["endpoint"] == os.environ["FAKE_NET"] + ".250:8700"
assert status()["phase"] == "Starting"
'
FAKE_BIND_HOST=$NET.250 python3 "$F/fake_mooncake_master" --rpc_port=8700 \
	--enable_http_metadata_server=true --http_metadata_server_port=8701 --metrics_port=8702 \
	>ext_master.log 2>&1 &
extra_pids+=($!)
until_py 30 'ev("Started", "agg_0") and status()["phase"] == "Ready"'
# The engine stand-in writes its record as it starts, just after the step is launched.
until_py 20 'records()'
check "proceeds" '
r = ev("Ready", "mooncake-master")[0]
assert r["seq"] < ev("Started", "agg_0")[0]["seq"]
assert records()[0]["env"]["MOONCAKE_MASTER"] == os.environ["FAKE_NET"] + ".250:8700"
'
stop_agent
[[ $rc == 143 ]] || fail "external: exit status $rc"
kill -TERM "${extra_pids[-1]}" 2>/dev/null || true
echo "ok 6 an external master that is down holds the workers back, then the run proceeds"

# ---- 7. issue 6: a killed master is restarted, and its stores follow ----

new_case heal "name: agent-heal
engine: sglang
model: {path: $model}
roles:
  agg:
    args: {disaggregation-transfer-backend: mooncake, disaggregation-ib-device: mlx5_0}
services:
  - name: mooncake-master
    type: mooncake-master
    readiness: {timeout_seconds: 30, interval_seconds: 1}
  - name: mooncake-store
    type: mooncake-store
    args: [--port, '8800']"
start_agent n1
until_py 40 'status()["phase"] == "Ready" and proc("mooncake-store")["state"] == "Running"'
mpid=$(python3 -c "$PYLIB
print(proc('mooncake-master')['pid'])")
kill -KILL "$mpid"
until_py 30 'proc("mooncake-master")["restarts"] == 1 and proc("mooncake-master")["state"] == "Ready" and ev("Restarted", "mooncake-store")'
check "restart and followers" '
x = ev("ProcessExited", "mooncake-master")[0]
assert "exited with status 137" in x["message"], x["message"]
b = ev("BackOff", "mooncake-master")[0]
assert "back-off 0.0 s before restart 1 of 5 (exit status 137)" in b["message"], b["message"]
r = ev("Restarted", "mooncake-master")[0]
rd = ev("Ready", "mooncake-master")[1]
fr = ev("Restarting", "mooncake-store")[0]
fs = ev("Restarted", "mooncake-store")[0]
assert x["seq"] < b["seq"] < r["seq"] < rd["seq"] < fr["seq"] < fs["seq"]
assert "restarted (restart 1: after exit status 137)" in r["message"], r["message"]
assert "because mooncake-master restarted" in fr["message"]
assert proc("mooncake-store")["restarts"] == 1 and proc("agg_0")["restarts"] == 0
assert proc("mooncake-master")["pid"] != int(sys.argv[1])
assert status()["phase"] == "Ready"
' "$mpid"
grep -q "restart 1: after exit status 137" run/logs/service_mooncake-master.out || fail "heal: restart marker in the log"
grep -c "Master service started" run/logs/service_mooncake-master.out | grep -qx 2 || fail "heal: the master log keeps both runs"

# A hung master (ports open, /health unanswered): restarted by liveness.
mpid=$(python3 -c "$PYLIB
print(proc('mooncake-master')['pid'])")
kill -STOP "$mpid"
until_py 40 'proc("mooncake-master")["restarts"] == 2 and proc("mooncake-master")["state"] == "Ready"'
check "liveness" '
u = ev("Unhealthy", "mooncake-master")[0]
assert u["type"] == "Warning" and "3 liveness probes in a row failed" in u["message"], u["message"]
assert "timed out" in u["message"], u["message"]
r = ev("Restarted", "mooncake-master")[1]
assert r["seq"] > u["seq"] and "restart 2: liveness probes failed (exit status 137)" in r["message"], r["message"]
k = ev("Killed", "mooncake-master")
assert len(k) == 1 and u["seq"] < k[0]["seq"] < r["seq"], k
assert k[0]["message"] == "did not stop within 2.0 s of SIGTERM (liveness probes failed); sent SIGKILL", k[0]["message"]
assert len(ev("Restarted", "mooncake-store")) == 2
'
stop_agent
[[ $rc == 143 ]] || fail "heal: exit status $rc"
echo "ok 7 a killed master is restarted (stores follow); a hung one is restarted by liveness"

# ---- 8. a crash loop ends with the budget ----

new_case loop "name: agent-loop
engine: sglang
model: {path: $model}
roles:
  agg:
    args: {disaggregation-transfer-backend: mooncake, disaggregation-ib-device: mlx5_0}
services:
  - name: mooncake-master
    type: mooncake-master
    readiness: {timeout_seconds: 30, interval_seconds: 1}
    restart: {policy: on-failure, max_restarts: 2, backoff_seconds: 1, max_backoff_seconds: 10}"
start_agent n1 FAKE_MASTER_CRASH_AFTER=1 FAKE_MASTER_CRASH_CODE=1
finish_agent
[[ $rc == 1 ]] || fail "loop: exit status $rc, want 1"
check "crash loop" '
b = [e["message"] for e in ev("BackOff", "mooncake-master")]
assert len(b) == 2, b
assert b[0].startswith("back-off 0.0 s before restart 1 of 2"), b
assert b[1].startswith("back-off 1.0 s before restart 2 of 2"), b
g = ev("RestartLimitReached", "mooncake-master")[0]
assert "used all 2 restarts" in g["message"]
f = ev("RunFailed")[0]
assert "critical process mooncake-master failed 3 times in a row" in f["message"], f["message"]
assert len(ev("Restarted", "mooncake-master")) == 2
s = status()
assert s["phase"] == "Failed" and proc("mooncake-master")["state"] == "Failed" and proc("mooncake-master")["restarts"] == 2
'"$RUN_STOPPED_ONCE"'
'
echo "ok 8 a crash loop backs off 0 s, 1 s and ends with the budget (run Failed)"

# ---- 9. a non-critical service given up: the run is Degraded, not Failed ----

new_case degraded "name: agent-degraded
engine: sglang
model: {path: $model}
roles:
  agg:
    args: {disaggregation-transfer-backend: mooncake, disaggregation-ib-device: mlx5_0}
services:
  - name: mooncake-master
    type: mooncake-master
    readiness: {timeout_seconds: 30, interval_seconds: 1}
  - name: sidecar
    command: [sh, -c, 'sleep 0.3; exit 3']
    start: with_workers
    restart: {policy: on-failure, max_restarts: 1, backoff_seconds: 1}"
start_agent n1
until_py 40 'status()["phase"] == "Degraded"'
check "degraded" '
s = status()
assert proc("sidecar")["state"] == "Failed" and proc("sidecar")["restarts"] == 1, proc("sidecar")
assert proc("mooncake-master")["state"] == "Ready" and proc("agg_0")["state"] in ("Running", "Ready")
d = ev("RunDegraded")[0]
assert d["type"] == "Warning", d
assert "sidecar was given up (exit status 3)" in d["message"], d["message"]
assert "not critical" in d["message"] and "service_sidecar.out" in d["message"], d["message"]
assert "srtctl events --for service/run/sidecar" in d["message"], d["message"]
assert s["message"] == d["message"]
assert not ev("RunFailed")
'
stop_agent
[[ $rc == 143 ]] || fail "degraded: exit status $rc"
echo "ok 9 a non-critical service that gives up leaves the run Degraded, with a Warning that says where to look"

# ---- 10. a new generation rolls out in place: only what changed restarts ----

roll_recipe() { # roll_recipe PREFILL_ENV MASTER_ARGS DECODE_NODES
	printf '%s\n' "name: agent-roll
engine: sglang
model: {path: $model}
roles:
  prefill:
    env: {$1}
    args: {disaggregation-transfer-backend: mooncake, disaggregation-ib-device: mlx5_0}
  decode:
    nodes: $3
    args: {disaggregation-transfer-backend: mooncake, disaggregation-ib-device: mlx5_0}
services:
  - name: mooncake-master
    type: mooncake-master
    args: [$2]
    readiness: {timeout_seconds: 30, interval_seconds: 1}
  - name: mooncake-store
    type: mooncake-store
    placement: {node: head}
    args: [--port, '8800']"
}
new_case roll "$(roll_recipe 'ROLL_A: one' '' 1)"
start_agent n1,n2
until_py 40 'status()["phase"] == "Ready" and proc("mooncake-store")["state"] == "Running" and len(records()) == 2'
pids1=$(python3 -c "$PYLIB
print(json.dumps({p['name']: p['pid'] for p in status()['processes']}))")

# Generation 2 changes one role's env: only that role's worker restarts.
write_plan 2 "$(roll_recipe 'ROLL_A: two, ROLL_B: new' '' 1)"
# (a worker without readiness probes counts as up once launched: wait for its record too)
until_py 30 'ev("RolloutComplete") and status()["phase"] == "Ready" and any(r["env"].get("ROLL_A") == "two" for r in records())'
check "rollout: env of one role" '
before = json.loads(sys.argv[1])
s = status()
now = {p["name"]: p["pid"] for p in s["processes"]}
assert s["plan_generation"] == 2, s["plan_generation"]
changed = sorted(n for n in now if now[n] != before[n])
assert changed == ["prefill_0"], (changed, before, now)
st = ev("RolloutStarted")[0]
assert st["generation"] == 2
assert "restarting prefill_0 (env ROLL_A, ROLL_B)" in st["message"], st["message"]
assert "3 process(es) unchanged keep running" in st["message"], st["message"]
r = ev("RolledOut", "prefill_0")[0]
assert "started with generation 2 (env ROLL_A, ROLL_B changed)" in r["message"], r["message"]
assert proc("prefill_0")["restarts"] == 0 and proc("decode_0")["restarts"] == 0
rec = [x for x in records() if x["env"].get("SRT_FAKE_NODE") == "n1"][-1]
assert rec["env"]["ROLL_A"] == "two" and rec["env"]["ROLL_B"] == "new", rec["env"]
assert not ev("Restarting") and not ev("Restarted")
' "$pids1"
grep -q "generation 2: env ROLL_A, ROLL_B changed" run/logs/worker_prefill_0.out ||
	fail "roll: the rollout marker in the worker's log"

# Generation 3 changes a master arg: the master restarts, and its store follows.
pids2=$(python3 -c "$PYLIB
print(json.dumps({p['name']: p['pid'] for p in status()['processes']}))")
write_plan 3 "$(roll_recipe 'ROLL_A: two, ROLL_B: new' '--eviction_ratio=0.1' 1)"
until_py 40 'len(ev("RolloutComplete")) == 2 and ev("Restarted", "mooncake-store") and proc("mooncake-store")["state"] == "Running"'
check "rollout: a master arg" '
before = json.loads(sys.argv[1])
now = {p["name"]: p["pid"] for p in status()["processes"]}
changed = sorted(n for n in now if now[n] != before[n])
assert changed == ["mooncake-master", "mooncake-store"], changed
st = ev("RolloutStarted")[1]
assert "restarting mooncake-master (command or args)" in st["message"], st["message"]
f = ev("Restarting", "mooncake-store")[0]
assert "because mooncake-master restarted" in f["message"], f["message"]
assert ev("RolledOut", "mooncake-master")[0]["seq"] < f["seq"] < ev("RolloutComplete")[1]["seq"]
assert status()["plan_generation"] == 3
' "$pids2"

# Generation 4 needs another node: this job cannot take it; generation 3 runs on.
write_plan 4 "$(roll_recipe 'ROLL_A: two, ROLL_B: new' '--eviction_ratio=0.1' 2)"
until_py 20 'ev("RolloutRejected")'
check "rollout: another layout" '
r = ev("RolloutRejected")[0]
assert r["type"] == "Warning" and "generation 4 cannot be rolled out in this job" in r["message"], r["message"]
assert "it needs 3 node(s)" in r["message"] and "this job has 2" in r["message"], r["message"]
s = status()
assert s["plan_generation"] == 3 and s["phase"] == "Ready", s["phase"]
'
stop_agent
[[ $rc == 143 ]] || fail "roll: exit status $rc"
echo "ok 10 a new generation rolls out in place: a role's env restarts that role only; a master arg restarts the master and its store; another layout is refused"

# ---- 11. a port the master needs is held by another process ----

# A long --root_fs_dir makes the first log line ~2.1 KB (the real line lists
# every setting): the error line after it must still reach the user whole.
LONG_DIR=/shared/$(printf 'mooncake-root-fs-%02d/' $(seq 1 30))
taken_recipe() { echo "name: agent-taken
engine: sglang
model: {path: $model}
roles:
  agg:
    args: {disaggregation-transfer-backend: mooncake, disaggregation-ib-device: mlx5_0}
services:
  - name: mooncake-master
    type: mooncake-master
    args: [--root_fs_dir=$LONG_DIR]
    readiness: {timeout_seconds: 30, interval_seconds: 1}"; }

# The admin port: the real master logs its error line and exits 1 after its 1 s pause.
new_case taken8702 "$(taken_recipe)"
hold "$NET.1" 8702
start_agent n1
finish_agent
unhold
[[ $rc == 1 ]] || fail "taken8702: exit status $rc, want 1"
check "admin port held" '
ip1 = os.environ["FAKE_NET"] + ".1"
log = open("run/logs/service_mooncake-master.out").read().splitlines()
assert len(log[0]) > 2000 and log[-1].endswith("Failed to start master admin server on port 8702"), (len(log[0]), log[-1])
f = ev("RunFailed")[0]["message"]
head = f.split("\n")[0]
assert head.startswith("mooncake-master exited with status 1 before it was ready: tcp 8700 never answered"), head
assert "tcp 8701 answered, http 8702 /health never answered" in head, head
assert "port 8702 on %s still accepts connections after mooncake-master exited: another process holds it" % ip1 in head, head
assert "8701 on" not in head.split(";", 1)[1], head     # the metadata port was its own
lp = proc("mooncake-master")["last_probe"]
assert lp == "tcp 8700: connection refused", lp        # the first probe that failed
assert f.endswith("\n" + log[-1]), f[-300:]              # the error line, whole, last
assert log[0] in f.split("\n"), f[:300]                  # 2.9 KB in all: nothing cut
assert status()["message"] == f
assert ev("ProcessExited", "mooncake-master")[0]["message"].endswith(log[-1])
'"$RUN_STOPPED_ONCE"'
'

# The metadata port: the real master aborts at once (LOG(FATAL), 134).
new_case taken8701 "$(taken_recipe)"
hold "$NET.1" 8701
start_agent n1
finish_agent
unhold
[[ $rc == 1 ]] || fail "taken8701: exit status $rc, want 1"
check "metadata port held" '
ip1 = os.environ["FAKE_NET"] + ".1"
log = open("run/logs/service_mooncake-master.out").read().splitlines()
e = [l for l in log if l.startswith("E")]
fl = [l for l in log if l.startswith("F")]
assert len(e) == 1 and e[0].endswith("Failed to start HTTP metadata server on 0.0.0.0:8701") and len(fl) == 1, log
f = ev("RunFailed")[0]["message"]
head = f.split("\n")[0]
assert head.startswith("mooncake-master exited with status 134 before it was ready: tcp 8700 never answered"), head
assert "http 8702 /health never answered" in head, head
assert "port 8701 on %s still accepts connections after mooncake-master exited: another process holds it" % ip1 in head, head
lines = f.split("\n")
assert e[0] in lines and fl[0] in lines and lines[-1] == log[-1], f[-600:]
assert status()["message"] == f
'"$RUN_STOPPED_ONCE"'
'
echo "ok 11 a port held by another process: the failure says which probes answered, which port is held, and keeps the error lines whole"

# ---- 12. a second signal while stopping ----

new_case hurry "$(master_only 30)"
STOP_TIMEOUT=60s start_agent n1 FAKE_MASTER_SHUTDOWN_SECONDS=120
until_py 40 'status()["phase"] == "Ready"'
kill -TERM "$agent_pid"
# The master has its SIGTERM (the last stage) and takes its time to stop.
until_py 30 '"Shutdown signal received" in open("run/logs/service_mooncake-master.out").read()'
check "one signal: no kill yet" '
assert len(ev("Stopping")) == 1 and not ev("Killed")
assert ev("Stopped", "agg_0") and not ev("Stopped", "mooncake-master")
'
kill -TERM "$agent_pid"
finish_agent 60
[[ $rc == 143 ]] || fail "hurry: exit status $rc, want 143"
check "a second signal" '
st = ev("Stopping")
assert len(st) == 2 and st[0]["type"] == "Normal" and st[1]["type"] == "Warning", st
assert "received signal 15 (Terminated) while stopping" in st[1]["message"], st[1]["message"]
k = ev("Killed")
assert [x["object"]["name"] for x in k] == ["mooncake-master"], k
assert k[0]["message"] == "a second signal (Terminated) asked for an immediate stop; sent SIGKILL without waiting out the 60.0 s grace after SIGTERM", k[0]["message"]
assert st[1]["seq"] < k[0]["seq"] < ev("Stopped", "mooncake-master")[0]["seq"]
assert "exit status 137" in ev("Stopped", "mooncake-master")[0]["message"]
assert status()["phase"] == "Stopped" and status()["exit_code"] == 143
'"$RUN_STOPPED_ONCE"'
'
echo "ok 12 one SIGTERM stops in order without kills; a second one SIGKILLs the current stage and says so"

# ---- 13. a generation that cannot become ready is rolled back ----

back_recipe() { # back_recipe MASTER_ARGS MASTER_ENV TIMEOUT [STORE_READINESS]
	printf '%s\n' "name: agent-back
engine: sglang
model: {path: $model}
roles:
  agg:
    args: {disaggregation-transfer-backend: mooncake, disaggregation-ib-device: mlx5_0}
services:
  - name: mooncake-master
    type: mooncake-master
    args: [$1]
    env: {$2}
    readiness: {timeout_seconds: $3, interval_seconds: 1}
  - name: mooncake-store
    type: mooncake-store
    args: [--port, '8800']
    ${4:-}"
}
new_case back "$(back_recipe '' '' 30)"
start_agent n1
until_py 40 'status()["phase"] == "Ready" and proc("mooncake-store")["state"] == "Running"'
pids1=$(python3 -c "$PYLIB
print(json.dumps({p['name']: p['pid'] for p in status()['processes']}))")

# Generation 2: an unknown flag; the master exits 1 at once (gflags).
write_plan 2 "$(back_recipe '--bogus_flag=1' '' 30)"
until_py 40 'ev("RolledBack") and [e for e in ev("RolledBack") if e["object"]["kind"] == "run"] and proc("mooncake-master")["state"] == "Ready" and proc("mooncake-store")["state"] == "Running"'
check "rollback after an unknown flag" '
before = json.loads(sys.argv[1])
f = ev("RolloutFailed")
assert len(f) == 1 and f[0]["type"] == "Warning" and f[0]["generation"] == 2, f
m = f[0]["message"]
assert m.startswith("generation 2 cannot become ready: mooncake-master exited with status 1 before it was ready: tcp 8700 never answered"), m
assert "rolling back to generation 1, the last one that was ready; generation 2 is not tried again" in m, m
assert m.endswith("ERROR: unknown command line flag \x27bogus_flag\x27"), m[-200:]
rb = ev("RollingBack")[0]
assert rb["type"] == "Warning" and rb["generation"] == 1, rb
assert "back to generation 1 after generation 2 failed: restarting mooncake-master (command or args)" in rb["message"], rb["message"]
pm = [e for e in ev("RolledBack") if e["object"]["kind"] != "run"]
assert [e["object"]["name"] for e in pm] == ["mooncake-master"], pm
assert "started again with generation 1 (command or args changed; generation 2 failed)" in pm[0]["message"], pm[0]["message"]
done = [e for e in ev("RolledBack") if e["object"]["kind"] == "run"][0]
assert "generation 1 runs again" in done["message"], done["message"]
fr = ev("Restarting", "mooncake-store")[-1]
seq = lambda e: e["seq"]
assert seq(ev("RolloutStarted")[0]) < seq(ev("RolledOut", "mooncake-master")[0]) < seq(f[0]) < seq(rb) < seq(pm[0]) < seq(ev("Ready", "mooncake-master")[-1]) < seq(fr) < seq(done), [e["reason"] for e in events()[-12:]]
assert not ev("BackOff") and not ev("RunFailed") and not ev("RestartLimitReached")
s = status()
assert s["phase"] == "Ready" and s["plan_generation"] == 1, (s["phase"], s["plan_generation"])
c = s["conditions"]
assert len(c) == 1 and c[0]["type"] == "RolloutFailed" and c[0]["status"] == "True", c
assert c[0]["reason"] == "RolledBack" and c[0]["generation"] == 2 and c[0]["rolled_back_to"] == 1, c
assert c[0]["message"].startswith("mooncake-master exited with status 1 before it was ready"), c[0]["message"]
assert "unknown command line flag" in c[0]["message"]
assert proc("mooncake-master")["restarts"] == 0 and proc("mooncake-master")["pid"] != before["mooncake-master"]
assert proc("agg_0")["pid"] == before["agg_0"]       # the worker never stopped
' "$pids1"
# The master runs generation 1's args again.
python3 -c "$PYLIB
r = [json.loads(l) for l in open('rec/mooncake_master.jsonl')]
assert [('--bogus_flag=1' in x['argv']) for x in r] == [False, True, False], [x['argv'] for x in r]
" || fail "back: master records"

# Generation 2 written again is not tried again (the agent looks once a second).
write_plan 2 "$(back_recipe '--bogus_flag=1' '' 30)"
sleep 2.5
check "not retried" '
assert len(ev("RolloutStarted")) == 1 and len(ev("RolloutFailed")) == 1
assert status()["plan_generation"] == 1
'

# Generation 3: a master that never becomes ready (readiness timeout): rolled back too.
write_plan 3 "$(back_recipe '' 'FAKE_MASTER_HANG: admin' 3)"
until_py 40 'len(ev("RolloutFailed")) == 2 and len([e for e in ev("RolledBack") if e["object"]["kind"] == "run"]) == 2 and proc("mooncake-master")["state"] == "Ready"'
check "rollback after a readiness timeout" '
f = ev("RolloutFailed")[1]
assert f["generation"] == 3, f
assert "generation 3 cannot become ready: mooncake-master was not ready within 3 s (readiness.timeout_seconds): http port 8702" in f["message"], f["message"]
assert "rolling back to generation 1" in f["message"], f["message"]
t = ev("ReadinessTimeout", "mooncake-master")[0]
assert t["seq"] < f["seq"] and "with generation 3" in t["message"], t["message"]
s = status()
assert s["plan_generation"] == 1 and s["phase"] == "Ready"
assert [(c["generation"], c["rolled_back_to"], c["reason"]) for c in s["conditions"]] == [(3, 1, "RolledBack")], s["conditions"]
assert not ev("RunFailed")
'

# Generation 4: a good master arg, but the store (to be restarted as the
# master's follower; its own spec unchanged: readiness is not part of it)
# is probed on a port it does not serve.  The store fails the generation
# (as a liveness or a readiness failure: see the check): it is started again
# too, with generation 1's readiness.
write_plan 4 "$(back_recipe '--eviction_ratio=0.2' '' 30 "readiness: {port: 8899, timeout_seconds: 2, interval_seconds: 1}")"
until_py 60 'len(ev("RolloutFailed")) == 3 and len([e for e in ev("RolledBack") if e["object"]["kind"] == "run"]) == 3 and proc("mooncake-store")["state"] == "Running"'
check "rollback after a follower failed" '
f = ev("RolloutFailed")[2]
# Which of two correct paths reports it is a race: while the master restarts,
# the store still runs from generation 1, so its new probes run as liveness
# probes (three failures: stopped as Unhealthy); once the master is ready the
# store is restarted as its follower, and the new probes are its readiness
# (not ready within 2 s).  Either way 8899 never answered and the store
# failed generation 4.
m = f["message"]
assert f["generation"] == 4, f
liveness = "mooncake-store was stopped (liveness probes failed (exit status 0)) before it was ready: tcp 8899 never answered" in m
readiness = "mooncake-store was not ready within 2 s (readiness.timeout_seconds): tcp port 8899 on " in m
assert liveness or readiness, m
if liveness:
    assert ev("Unhealthy", "mooncake-store")[0]["seq"] < f["seq"]
rb = ev("RollingBack")[2]
assert "restarting mooncake-master (command or args), mooncake-store (it failed with generation 4)" in rb["message"], rb["message"]
s = status()
assert s["plan_generation"] == 1 and s["phase"] == "Ready" and s["conditions"][0]["generation"] == 4, s["conditions"]
assert proc("mooncake-master")["state"] == "Ready"
'

# Generation 5 works: it rolls out, and the condition goes.
write_plan 5 "$(back_recipe '--eviction_ratio=0.1' '' 30)"
until_py 40 'ev("RolloutComplete") and status()["plan_generation"] == 5 and proc("mooncake-store")["state"] == "Running" and ev("Restarted", "mooncake-store")[-1]["seq"] > ev("RolloutStarted")[-1]["seq"]'
check "a newer generation after a failed one" '
s = status()
assert s["conditions"] == [] and s["phase"] == "Ready", s["conditions"]
assert ev("RolloutComplete")[0]["generation"] == 5
'
stop_agent
[[ $rc == 143 ]] || fail "back: exit status $rc"
check "back: stopped" "$RUN_STOPPED_ONCE"
echo "ok 13 a generation whose master or store cannot become ready (unknown flag; readiness timeout; a store that fails its new probes) is rolled back to the last ready one, marked failed in status.json and not tried again"

# ---- 14. a probe that hangs delays nothing else ----
#
# `hung` accepts its health probe's connection and never answers; the probe
# limit is 60 s.  While that probe is in flight, `crasher` is killed: it must
# be restarted before the hung probe ends.  The listener logs "closed" when
# the agent gives up a probe connection, so the order is observable: with a
# probe that blocked the loop, the restart would come only after "closed".

cat >"$work/hung.py" <<'PY'
import os, select, socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((os.environ["FAKE_BIND_HOST"], int(sys.argv[1])))
s.listen(16)
log = open(sys.argv[2], "a", buffering=1)
conns = []
end = time.monotonic() + 600
while time.monotonic() < end:
    r, _, _ = select.select([s] + conns, [], [], 1.0)
    for c in r:
        if c is s:
            conns.append(s.accept()[0])
            log.write("accepted\n")
        elif not c.recv(4096):
            conns.remove(c)
            c.close()
            log.write("closed\n")
PY
new_case hung "name: agent-hung
engine: sglang
model: {path: $model}
roles:
  agg:
    args: {disaggregation-transfer-backend: mooncake, disaggregation-ib-device: mlx5_0}
services:
  - name: mooncake-master
    type: mooncake-master
    readiness: {timeout_seconds: 30, interval_seconds: 1}
  - name: hung
    command: [python3, $work/hung.py, '8870', $work/hung/hung.log]
    start: with_workers
    readiness: {http: {port: 8870, path: /health}, timeout_seconds: 600, interval_seconds: 120}
  - name: crasher
    command: [sleep, '600']
    start: with_workers
    restart: {policy: always, max_restarts: 3, backoff_seconds: 0}"
PROBE_TIMEOUT=60s start_agent n1
until_py 60 'proc("crasher")["state"] == "Running" and proc("crasher")["pid"] and os.path.exists("hung.log") and "accepted" in open("hung.log").read()'
crasher=$(python3 -c "$PYLIB
print(proc('crasher')['pid'])")
kill -KILL "$crasher"
until_py 60 'ev("Restarted", "crasher")'
check "a hung probe delays no restart" '
log = open("hung.log").read().split()
assert log == ["accepted"], log          # the hung probe is still in flight
assert proc("hung")["state"] == "Starting", proc("hung")
assert proc("crasher")["restarts"] == 1 and proc("crasher")["pid"] != int(sys.argv[1])
' "$crasher"
stop_agent
[[ $rc == 143 ]] || fail "hung: exit status $rc"
check "hung: stopped" "$RUN_STOPPED_ONCE"
echo "ok 14 a health endpoint that accepts and never answers delays no other process: a killed one is restarted while its probe is still in flight"

# ---- 15. file readiness: a marker of an earlier start never passes for this one ----

new_case filemark "name: agent-filemark
engine: sglang
services:
  - name: writer
    command: [sh, -c, 'mkdir -p run/logs/m && echo \$\$ >run/logs/m/w.ready && exec sleep 100']
    start: before_workers
    readiness: {file: {path: m/w.ready}, timeout_seconds: 30, interval_seconds: 1}
  - name: stale
    command: [sleep, '100']
    start: before_workers
    restart: {policy: never}
    readiness: {file: {path: m/s.ready}, timeout_seconds: 2, interval_seconds: 1}"
# what an earlier start (or another run) left: the stale service never writes its marker
mkdir -p run/logs/m && echo old >run/logs/m/s.ready && echo old >run/logs/m/w.ready
start_agent n1
until_py 60 'status()["phase"] == "Degraded"'
check "file readiness" '
assert proc("writer")["state"] == "Ready", proc("writer")
assert open("run/logs/m/w.ready").read().strip() != "old"   # its own marker, not the stale one
assert proc("stale")["state"] == "Failed", proc("stale")
assert not os.path.exists("run/logs/m/s.ready")
msgs = " ".join(e["message"] for e in events() if e["object"]["name"] == "stale")
assert "file m/s.ready never appeared (nonempty) in the log directory" in msgs, msgs
assert not [e for e in events() if e["reason"] == "Ready" and e["object"]["name"] == "stale"]
'
stop_agent
[[ $rc == 143 ]] || fail "filemark: exit status $rc"
echo "ok 15 a file readiness probe passes on the marker its own process writes; the agent removes a stale one before the start, so it never passes"

# ---- 16. log readiness: a line of this start's output, not an earlier start's ----

new_case logmark "name: agent-logmark
engine: sglang
services:
  - name: daemon
    command: [sh, -c, 'echo booting; sleep 0.3; echo \"All 2 daemons on node 0 are ready\"; exec sleep 100']
    start: before_workers
    readiness: {log: {pattern: '^All [0-9]+ daemons on node 0 are ready\$'}, timeout_seconds: 30, interval_seconds: 1}
  - name: again
    command: [sh, -c, 'if [ -e run/logs/again.once ]; then exec sleep 100; fi; touch run/logs/again.once; echo ready now; sleep 0.3; exit 1']
    start: before_workers
    restart: {policy: on-failure, max_restarts: 1, backoff_seconds: 0}
    readiness: {log: {pattern: 'ready now'}, timeout_seconds: 3, interval_seconds: 1}"
start_agent n1
until_py 60 'status()["phase"] == "Degraded"'
check "log readiness" '
assert proc("daemon")["state"] == "Ready", proc("daemon")
r = [e for e in events() if e["reason"] == "Ready" and e["object"]["name"] == "daemon"]
assert r and "log /^All [0-9]+ daemons on node 0 are ready$/" in r[0]["message"], r
# the restarted start printed nothing: the line of the first start does not make it ready
assert proc("again")["restarts"] == 1 and proc("again")["state"] == "Failed", proc("again")
t = [e for e in events() if e["reason"] == "ReadinessTimeout" and e["object"]["name"] == "again"]
assert t and "no line of service_again.out matched /ready now/" in t[-1]["message"], t
'
stop_agent
[[ $rc == 143 ]] || fail "logmark: exit status $rc"
echo "ok 16 a log readiness probe passes on a line its process wrote in this start; a restart is not made ready by the line of the start before"

# ---- 17. a job of services only: a pool, a rider, terminal services ----

new_case terminal "name: agent-terminal
frontend: {type: none}
services:
  - name: train
    nodes: 2
    terminal: true
    command: [sh, -c, 'echo \"rank \$0 of \$1 at \$2 on \$3\"; sleep 0.5; exit \$((\$0 * 3))', '{index}', '{pool_node_count}', '{pool_ip}', '{node}']
  - name: watch
    placement: {pool: train}
    command: [sleep, '100']"
start_agent n1,n2
finish_agent 60
check "terminal services" '
ip1 = os.environ["FAKE_NET"] + ".1"
logs = {n: open("run/logs/service_train_" + n + ".out").read() for n in ("n1", "n2")}
assert "rank 0 of 2 at " + ip1 + " on n1" in logs["n1"], logs
assert "rank 1 of 2 at " + ip1 + " on n2" in logs["n2"], logs
st = status()
assert st["phase"] == "Failed", st
assert "every terminal service has exited: train_n2, the worst, exited with status 3" in st["message"], st["message"]
# not restarted (a terminal service is the run), and the riders stopped with it
assert proc("train_n2")["restarts"] == 0 and proc("train_n1")["state"] == "Exited", proc("train_n1")
assert proc("watch_n1")["state"] == "Stopped" and proc("watch_n2")["state"] == "Stopped", proc("watch_n1")
r = [e for e in events() if e["reason"] == "RunFailed"]
assert r and "train_n2" in r[0]["message"], r
'
[[ $rc == 3 ]] || fail "terminal: exit status $rc (want the worst, 3)"
echo "ok 17 a job of services only on a pool of two nodes: templates filled per instance, the terminal service's exits end the run with the worst status, not restarted, the riders stopped"

# ---- 18. a Ray cluster on a pool: the head first, the fleet gate, the joiner follows ----

new_case ray "name: agent-ray
frontend: {type: none}
resources: {gpus_per_node: 2}
services:
  - name: train
    type: ray
    nodes: 2
    readiness: {timeout_seconds: 60, interval_seconds: 1}
    restart: {policy: on-failure, max_restarts: 3, backoff_seconds: 0}"
start_agent n1,n2
until_py 60 'status()["phase"] == "Ready"'
check "ray cluster" '
ip1, ip2 = os.environ["FAKE_NET"] + ".1", os.environ["FAKE_NET"] + ".2"
ev = events()
def t(name, reason):
    return [e["seq"] for e in ev if e["object"]["name"] == name and e["reason"] == reason]
# the head (n1) is ready on its dashboard before the joiner (n2) starts
assert t("train_n1", "Ready") and t("train_n2", "Started"), ev
assert max(t("train_n1", "Ready")) < min(t("train_n2", "Started")), (t("train_n1", "Ready"), t("train_n2", "Started"))
r = [e for e in ev if e["reason"] == "Ready" and e["object"]["name"] == "train_n2"]
assert "log /Ray runtime started/" in r[0]["message"], r
assert "http " + ip1 + ":8265 /nodes?view=summary (2 Ray nodes ALIVE)" in r[0]["message"], r
# the joiner waited for the head, then joined it
log2 = open("run/logs/service_train_n2.out").read()
assert "Ray runtime started" in log2, log2
import urllib.request
s = json.load(urllib.request.urlopen("http://" + ip1 + ":8265/nodes?view=summary&nocache=1", timeout=5))
alive = sorted(n["raylet"]["nodeManagerAddress"] for n in s["data"]["summary"] if n["raylet"]["state"] == "ALIVE")
assert alive == [ip1, ip2], alive
'
# the head dies: it is restarted, and the joiner after it (a new head is a new cluster)
head_pid=$(python3 -c "$PYLIB
print(proc('train_n1')['pid'])")
kill -KILL "$head_pid"
until_py 60 'proc("train_n1")["restarts"] == 1 and proc("train_n2")["restarts"] >= 1 and status()["phase"] == "Ready" and proc("train_n2")["state"] == "Ready"'
check "ray head restarted, joiner followed" '
ev = events()
f = [e for e in ev if e["reason"] == "Restarting" and e["object"]["name"] == "train_n2"]
assert f and "a new Ray head is a new cluster" in f[0]["message"], f
'
stop_agent
[[ $rc == 143 ]] || fail "ray: exit status $rc"
echo "ok 18 a Ray cluster on a pool of two nodes: the head is ready on its dashboard before the joiner starts, the joiner once the head lists both raylets ALIVE; a killed head is restarted and its joiner follows it into the new cluster"
