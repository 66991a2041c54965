#!/usr/bin/env bash
# tests/e2e/test_e2e.sh: srtctl end to end on the real local multi-node SLURM.
#
#   scripts/slurm-local up --nodes 3 && eval "$(scripts/slurm-local env)"
#   SRTCTL=build/srtctl tests/e2e/test_e2e.sh
#
# Either flavour: against Slurm 24.11 (scripts/slurm-local --release 24.11),
# run it as tests/slurm/with_2411_env.sh bash tests/e2e/test_e2e.sh (ctest:
# e2e/test_e2e_2411).  The cluster comes only from the env's variables; the
# jobs run srtctl and the stand-ins from this test's directory under /tmp,
# which the 24.11 flavour's chroot shares with the host.
#
# A controller (srtctl controller) runs against the cluster's slurmrestd; each
# case applies a recipe with `srtctl apply --wait`, and checks what a user would
# see (`srtctl get ... -o json`, `srtctl events`) and what the processes got:
# the stand-ins under tests/fakes record their argv and full environment.
# Prefill, decode and (where asked) a dedicated master run on different nodes,
# each with its own IP, so every address checked is a real, distinct node IP.
#
#  1. SGLang quick start, master on a dedicated node: master Ready at
#     <infra ip>:8700; the worker env follows the ownership table; a role that
#     pins MOONCAKE_LOCAL_HOSTNAME keeps it; a user MOONCAKE_MASTER is overridden.
#  2. vLLM quick start: MOONCAKE_CONFIG_PATH is store_config + master_server_address.
#  3. Standalone stores start after the master is ready and before any worker.
#  4. Hostile env values and args arrive byte for byte and run nothing.
#  5. A master that never becomes ready fails the run, naming the port; one
#     that exits at once fails it at once.
#  6. Deleting a recipe cancels its job; none of its processes keeps running.
#  7. `srtctl events --for run/NAME` tells the story from submission to Ready.
#  8. The engines' real command lines (the strict stand-ins accept only what
#     the real programs accept): case 1's prefill and decode servers get the
#     model, their mode, host, ports and bootstrap port; SGLang's router lists
#     them; a request sent to the router from another node reaches exactly
#     one prefill and one decode worker.
#  9. A decode worker over 2 nodes (TP 8 on 4-GPU nodes): the same command on
#     both nodes but the node rank, one dist-init address, HTTP on rank 0 only.
# 10. Two workers on one node: distinct ports (HTTP, NCCL, KV events) and GPU sets.
# 11. Dynamo (frontend.type: dynamo, request plane NATS): the real etcd and
#     nats-server on a node of their own start first and are Ready before any
#     worker starts; Dynamo's SGLang workers (strict stand-ins) get the
#     discovery env and register in that etcd; the frontend starts after they
#     are Ready, lists both, and answers a completion from another node
#     through prefill then decode; deleting the recipe stops etcd and NATS.
# 12. TRT-LLM over Dynamo: each worker is one MPI step (srun --mpi=pmix), one
#     rank per GPU: prefill 2 ranks, decode 8 ranks 4 a node over 2 nodes, rank
#     0 on its first node running dynamo.trtllm with the engine YAML written
#     from the role's args; a completion goes through; a killed rank ends the
#     step and the agent restarts the worker whole; delete leaves nothing.
# 13. trtllm_serve over prefill/decode: trtllm-serve workers (two decode
#     workers on one node: own ports and GPU sets), then TRT-LLM's orchestrator
#     (trtllm-serve disaggregated) with the config srtctl writes; a completion
#     goes context server first, then a generation server.  The workers use
#     TRT-LLM's mooncake-store connector: the master comes first, each role
#     reads its own client config and joins the master it names.
# 13p. trtllm_serve on TRT-LLM's own Mooncake pool (srt-slurm's design A):
#     `trtllm-serve mooncake_master` and a donor start with the workers, the
#     master's address file and the donor's ready marker gate the frontend,
#     the prefill worker provisions the pool from its engine YAML.
# 14. Dynamo's mocker under Dynamo's frontend: dynamo.mocker's argv as
#     srt-slurm renders it (role, bootstrap port, knobs, the role's args
#     last), ZMQ events without NATS, a completion through prefill then
#     decode, nothing left after delete.
# 15. LMCache under vLLM (connector: lmcache-mp): one `lmcache server` per
#     worker node before the workers, its preamble run in the same bash, and
#     each worker registered with the server on its own node.
# 16. A job of services only (Miles's RL layout): a Ray cluster owns a pool of
#     two nodes (strict `ray` stand-in): the head is Ready on its dashboard
#     before the other node joins; the joiner is Ready once the head lists
#     both raylets ALIVE; a service rides the pool with its templates filled;
#     the custom benchmark reads srt-slurm's SRT_SERVICE_* contract, finds
#     the cluster formed and ends the run Succeeded; nothing is left.
# 17. TileRT's prefill/decode (srt-slurm 2.0): a vLLM prefill worker with the
#     TileRTConnector, a TileRT decode server (strict stand-ins) on another
#     node, TileRT's router after both are Ready; a completion from a third
#     node goes prefill, then decode over the control port srtctl gave it.
#
# Exits 77 (skipped) when SRT_SLURMRESTD_URL is unset, unless
# SRT_E2E_REQUIRED=1 (CI), which makes that a failure.  Every wait is bounded.
set -uo pipefail

if [ -z "${SRT_SLURMRESTD_URL:-}" ]; then
	echo "################################################################" >&2
	echo "# test_e2e.sh needs the local SLURM: scripts/slurm-local up --nodes 3" >&2
	echo "# && eval \"\$(scripts/slurm-local env)\"" >&2
	echo "################################################################" >&2
	[ "${SRT_E2E_REQUIRED:-0}" = 1 ] && exit 1
	exit 77
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SRTCTL=$(realpath -m "${SRTCTL:-$root/build/srtctl}")
FAKES=$root/tests/fakes
WORK=$(mktemp -d /tmp/srt-e2e.XXXXXX)
# The model directory the workers are given (the strict engine stand-ins check that it exists).
MODEL=$WORK/model
mkdir -p "$MODEL"
chmod 755 "$WORK" "$MODEL"
# The jobs run as the SLURM job user, who may not be able to enter this checkout
# (a clone under a 0700 directory): give them copies they can read.
mkdir -p "$WORK/bin"
cp "$SRTCTL" "$WORK/bin/srtctl"
# Dynamo's discovery plane is real (etcd-server, nats-server: Go binaries that
# need only libc, so they run in the 24.11 flavour's chroot too).
ETCD_BIN=$(command -v etcd || echo /usr/bin/etcd)
NATS_BIN=$(command -v nats-server || echo /usr/sbin/nats-server)
cp "$ETCD_BIN" "$WORK/bin/etcd"
cp "$NATS_BIN" "$WORK/bin/nats-server"
cp -r "$root/tests/fakes" "$WORK/fakes"
chmod -R a+rX "$WORK/bin" "$WORK/fakes"
SRTCTL=$WORK/bin/srtctl
FAKES=$WORK/fakes
DB=$WORK/state.db
REC=$WORK/rec
mkdir -p "$REC" "$WORK/runs"
chmod 1777 "$REC"
CTL_PID=

n=0 passed=0 failed=0
ok() { n=$((n + 1)) passed=$((passed + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)) failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { # check DESCRIPTION COMMAND...
	local d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}

S() { "$SRTCTL" "$@" --db "$DB"; }

cleanup() {
	local r
	for r in $(S get recipes -o json 2>/dev/null | python3 -c 'import json,sys; [print(i["name"]) for i in json.load(sys.stdin)["items"]]' 2>/dev/null); do
		S delete recipe "$r" >/dev/null 2>&1 || true
	done
	if [ -n "$CTL_PID" ]; then
		wait_no_jobs 40
		kill "$CTL_PID" 2>/dev/null || true
		wait "$CTL_PID" 2>/dev/null || true
	fi
	if [ "$failed" -ne 0 ]; then
		echo "# controller log:"
		tail -n 60 "$WORK/controller.log" 2>/dev/null | sed 's/^/#   /'
		# The processes' own words: a failed run's message in the controller
		# log is cut short, and the run directory goes with $WORK.
		for st in "$WORK"/runs/*/status.json; do
			grep -q '"phase": *"Failed"' "$st" 2>/dev/null || continue
			for f in "$(dirname "$st")"/logs/*.out "$(dirname "$st")"/agent-*.out; do
				[ -f "$f" ] || continue
				echo "# ${f#"$WORK"/runs/} (last 20 lines):"
				tail -n 20 "$f" | cut -c1-400 | sed 's/^/#   /'
			done
		done
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

# Jobs of this test's runs still known to SLURM and not ended.
live_jobs() {
	S get jobs -o json 2>/dev/null | python3 -c '
import json, sys
live = [str(i["job_id"]) for i in json.load(sys.stdin)["items"]
        if i.get("state") not in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
                                  "PREEMPTED", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "GONE")]
print(" ".join(live))'
}
wait_no_jobs() { # wait_no_jobs SECONDS: until no run of ours has a live job
	local deadline=$((SECONDS + $1))
	while [ -n "$(live_jobs)" ] && [ $SECONDS -lt $deadline ]; do sleep 1; done
	[ -z "$(live_jobs)" ]
}
# Processes that a job of ours left behind (stand-ins run as the job user).
leftovers() { pgrep -u "${SRT_SLURM_USER:-slurmci}" -f "$FAKES/|$WORK/bin/(etcd|nats)" || true; }
# no_leftovers [PATTERN]: until no such process (nor one matching PATTERN) is
# left, for at most 30 s; then it prints what is left and fails.  Once a job
# has ended, slurmd stops what its steps left on the nodes on its own time
# (SIGTERM, then SIGKILL after KillWait): a fixed pause raced that.
no_leftovers() {
	local deadline=$((SECONDS + 30)) left
	while :; do
		left=$(leftovers)
		[ -n "${1:-}" ] && left+=" $(pgrep -u "${SRT_SLURM_USER:-slurmci}" -f "$1" || true)"
		left=$(echo $left)
		[ -z "$left" ] && return 0
		[ $SECONDS -ge $deadline ] && break
		sleep 0.5
	done
	echo "# left after 30 s:"
	ps -o pid,ppid,stat,etime,args -p "${left// /,}" 2>/dev/null | sed 's/^/#   /'
	return 1
}

cat >"$WORK/srtslurm.yaml" <<YAML
runtime:
  log_root: $WORK/runs
slurmrestd:
  url: $SRT_SLURMRESTD_URL
  user: ${SRT_SLURM_USER:-slurmci}
  token_file: ${SRT_SLURM_TOKEN_FILE:?}
default_partition: ${SRT_SLURM_PARTITION:-debug}
commands:
  mooncake_master: [$FAKES/fake_mooncake_master]
  mooncake_store: [$FAKES/fake_mooncake_store]
  sglang: [$FAKES/sglang_launch_server]
  vllm: [$FAKES/vllm, serve]
  sglang_router: [$FAKES/sglang_router]
  vllm_router: [$FAKES/vllm-router]
  dynamo_sglang: [$FAKES/dynamo_sglang]
  dynamo_vllm: [$FAKES/dynamo_vllm]
  dynamo_frontend: [$FAKES/dynamo_frontend]
  dynamo_trtllm: [$FAKES/dynamo_trtllm]
  mocker: [$FAKES/dynamo_mocker]
  lmcache: [$FAKES/lmcache]
  trtllm: [$FAKES/trtllm_serve]
  trtllm_launch: [$FAKES/trtllm_llmapi_launch]
  numactl: [$FAKES/numactl]
  etcd: [$WORK/bin/etcd]
  nats: [$WORK/bin/nats-server]
  srtctl: [$SRTCTL]
  ray: [$FAKES/ray]
  tilert_decode: [$FAKES/tilert_decode_server]
  tilert_router: [$FAKES/tilert_pd_router]
YAML
export SRTSLURM_CONFIG=$WORK/srtslurm.yaml
unset SLURM_JWT # the token comes from the token file, as a user's would

IFS=, read -r -a NODE_IPS <<<"${SRT_SLURM_NODE_IPS:?}"
echo "# nodes: ${SRT_SLURM_NODES:-?} (${SRT_SLURM_NODE_IPS})"

"$SRTCTL" controller --db "$DB" --interval 1s >"$WORK/controller.log" 2>&1 &
CTL_PID=$!

# py SCRIPT ARGS...: run a python3 check; the records and state are in $WORK.
py() { python3 - "$@"; }
# worker_field FILE RUN ROLE FIELD: FIELD (ip, node) of RUN's first ROLE worker in FILE
# (`get workers -o json`).
worker_field() {
	python3 -c 'import json, sys
f, run, role, field = sys.argv[1:]
print([w[field] for w in json.load(open(f))["items"] if w["run"] == run and w["role"] == role][0])' "$@"
}
# complete_from NODE URL MODEL RID: one completion POSTed to URL from NODE, as a
# client on the cluster would send it; prints the answer.
complete_from() {
	"$root/scripts/slurm-local" ${SRT_SLURM_RELEASE:+--release "$SRT_SLURM_RELEASE"} shell "$1" \
		python3 -c 'import json, sys, urllib.request
url, model, rid = sys.argv[1:]
req = urllib.request.Request(url + "/v1/completions", data=json.dumps({"model": model, "prompt": "hi", "max_tokens": 4}).encode(),
                             headers={"Content-Type": "application/json", "X-Request-Id": rid})
print(urllib.request.urlopen(req, timeout=20).read().decode())' "$2" "$3" "$4"
}

# ---- 1. SGLang, dedicated master --------------------------------------------------
cat >"$WORK/sglang.yaml" <<YAML
name: e2e-sglang
environment:
  FAKE_RECORD_DIR: $REC/sglang
engine: sglang
model: {path: $MODEL}
roles:
  prefill:
    env:
      MOONCAKE_PROTOCOL: tcp
      MOONCAKE_GLOBAL_SEGMENT_SIZE: "4gb"
      MOONCAKE_MASTER: "1.2.3.4:1"
    args:
      disaggregation-transfer-backend: mooncake
  decode:
    env:
      MOONCAKE_PROTOCOL: tcp
      MOONCAKE_LOCAL_HOSTNAME: "192.0.2.7"
    args:
      disaggregation-transfer-backend: mooncake
services:
  - name: mooncake-master
    type: mooncake-master
    placement:
      node: dedicated
frontend:
  type: sglang-router
YAML
mkdir -p "$REC/sglang" && chmod 1777 "$REC/sglang"
t0=$SECONDS
S apply -f "$WORK/sglang.yaml" --wait --timeout 90s >"$WORK/wait1.out" 2>&1
check "1. SGLang quick start reaches Ready (apply --wait)" test $? -eq 0
echo "# apply -> Ready: $((SECONDS - t0)) s"
S get services -o json >"$WORK/svc1.json"
S get workers -o json >"$WORK/wrk1.json"
py "$WORK" "${NODE_IPS[@]}" <<'PY'
import json, sys, os
work, ips = sys.argv[1], sys.argv[2:]
svc = json.load(open(f"{work}/svc1.json"))["items"]
wrk = json.load(open(f"{work}/wrk1.json"))["items"]
m = [s for s in svc if s["name"] == "mooncake-master"][0]
infra = m["endpoint"].rsplit(":", 1)[0]
assert m["state"] == "Ready", m
assert m["endpoint"] == f"{infra}:8700", m
assert infra in ips, (infra, ips)
worker_ips = {w["role"]: w["ip"] for w in wrk}
assert infra not in worker_ips.values(), ("dedicated master shares a worker node", infra, worker_ips)
assert worker_ips["prefill"] != worker_ips["decode"], worker_ips
recs = [json.loads(l) for l in open(f"{work}/rec/sglang/engine.jsonl")]
assert len(recs) == 2, len(recs)
by_role = {}
for r in recs:
    own = [a["addr"] for a in r["addrs"] if a["addr"] != "127.0.0.1"]
    role = "prefill" if worker_ips["prefill"] in own else "decode"
    by_role[role] = (r, own)
for role, (r, own) in by_role.items():
    e = r["env"]
    assert e["MOONCAKE_MASTER"] == f"{infra}:8700", (role, e["MOONCAKE_MASTER"])
    assert e["MOONCAKE_TE_META_DATA_SERVER"] == f"http://{infra}:8701/metadata", role
    assert e["MOONCAKE_PROTOCOL"] == "tcp", role
    if role == "prefill":
        assert e["MOONCAKE_LOCAL_HOSTNAME"] == worker_ips["prefill"], e["MOONCAKE_LOCAL_HOSTNAME"]
        assert e["MOONCAKE_LOCAL_HOSTNAME"] in own and e["MOONCAKE_LOCAL_HOSTNAME"] != "127.0.0.1"
        assert e["MOONCAKE_GLOBAL_SEGMENT_SIZE"] == "4gb"
    else:
        assert e["MOONCAKE_LOCAL_HOSTNAME"] == "192.0.2.7", "a pinned LOCAL_HOSTNAME must win"
print(f"# infra {infra}, prefill {worker_ips['prefill']}, decode {worker_ips['decode']}")
PY
check "1. master Ready at <infra ip>:8700; worker env follows the ownership table" test $? -eq 0
grep -q '^Env: ' "$WORK"/runs/e2e-sglang-1-1/logs/worker_prefill_0.out
check "1. a worker's log starts with its Env: line" test $? -eq 0

# ---- 8. the real command lines, the router, one request through it -----------------
py "$WORK" "$MODEL" <<'PY'
import json, sys
work, model = sys.argv[1], sys.argv[2]
wrk = json.load(open(f"{work}/wrk1.json"))["items"]
ip = {w["role"]: w["ip"] for w in wrk}
def opt(argv, flag):
    return argv[argv.index(flag) + 1] if flag in argv else None
recs = {r["options"]["disaggregation_mode"]: r for r in map(json.loads, open(f"{work}/rec/sglang/engine.jsonl"))}
assert set(recs) == {"prefill", "decode"}, list(recs)
for role, r in recs.items():
    a = r["argv"]
    assert opt(a, "--model-path") == model, a
    assert opt(a, "--served-model-name") == "model", a
    assert opt(a, "--host") == ip[role], (a, ip)
    assert opt(a, "--port") == "6100", a
    assert opt(a, "--disaggregation-mode") == role, a
    assert opt(a, "--disaggregation-transfer-backend") == "mooncake", a
assert opt(recs["prefill"]["argv"], "--disaggregation-bootstrap-port") == "7200"
assert "--disaggregation-bootstrap-port" not in recs["decode"]["argv"]
routers = [json.loads(l) for l in open(f"{work}/rec/sglang/router.jsonl")]
assert len(routers) == 1, routers
a = routers[0]["argv"]
i = a.index("--prefill")
assert "--pd-disaggregation" in a and a[i + 1] == f"http://{ip['prefill']}:6100" and a[i + 2] == "7200", a
assert opt(a, "--decode") == f"http://{ip['decode']}:6100", a
assert opt(a, "--host") == "0.0.0.0" and opt(a, "--port") == "8000", a
print(f"# router argv: {' '.join(a[1:])}")
PY
check "8. prefill/decode servers get model, mode, host, ports, bootstrap; the router lists them" test $? -eq 0
router_ip=$(python3 -c 'import json,sys; print([w["ip"] for w in json.load(open(sys.argv[1]))["items"] if w["role"] == "prefill"][0])' "$WORK/wrk1.json")
decode_node=$(python3 -c 'import json,sys; print([w["node"] for w in json.load(open(sys.argv[1]))["items"] if w["role"] == "decode"][0])' "$WORK/wrk1.json")
# From the decode worker's node (not the router's), as a client on the cluster would.
"$root/scripts/slurm-local" ${SRT_SLURM_RELEASE:+--release "$SRT_SLURM_RELEASE"} shell "$decode_node" \
	python3 -c 'import json, sys, urllib.request
req = urllib.request.Request(sys.argv[1], data=json.dumps({"model": "model", "prompt": "hi", "max_tokens": 4}).encode(),
                             headers={"Content-Type": "application/json", "X-Request-Id": "e2e-req-1"})
print(urllib.request.urlopen(req, timeout=20).read().decode())' "http://$router_ip:8000/v1/completions" >"$WORK/answer8.json" 2>&1
check "8. the router answers a completion sent from another node ($decode_node)" grep -q '"choices"' "$WORK/answer8.json"
py "$WORK" <<'PY'
import json, sys
reqs = [r for r in map(json.loads, open(f"{sys.argv[1]}/rec/sglang/requests.jsonl")) if r.get("request_id") == "e2e-req-1"]
roles = sorted(r["role"] for r in reqs)
assert roles == ["decode", "prefill"], reqs
assert all(r["status"] == 200 for r in reqs), reqs
assert len({r["bootstrap_room"] for r in reqs}) == 1, reqs
PY
check "8. that request reached exactly one prefill and one decode worker (one bootstrap room)" test $? -eq 0

# ---- 7. the story of run 1 ---------------------------------------------------------
S events --for run/e2e-sglang-1-1 -o json >"$WORK/ev1.json"
py "$WORK" <<'PY'
import json, sys
items = json.load(open(f"{sys.argv[1]}/ev1.json"))["items"]
reasons = [i["reason"] for i in items]
for want in ("RunCreated", "JobSubmitted", "AgentStarted", "NodesResolved", "RunReady", "PhaseReady"):
    assert want in reasons, (want, reasons)
assert reasons.index("RunCreated") < reasons.index("JobSubmitted") < reasons.index("PhaseReady"), reasons
PY
check "7. events --for run/NAME tells the story from submission to Ready" test $? -eq 0

# ---- 6. delete ---------------------------------------------------------------------
S delete recipe e2e-sglang >/dev/null
wait_no_jobs 40
check "6. deleting the recipe cancels its job" test $? -eq 0
check "6. no process of the deleted run keeps running" no_leftovers

# ---- 2. vLLM -------------------------------------------------------------------------
cat >"$WORK/vllm.yaml" <<YAML
name: e2e-vllm
environment:
  FAKE_RECORD_DIR: $REC/vllm
engine: vllm
model: {path: $MODEL}
srun_options: {cpu-bind: none}
roles:
  prefill:
    srun_options: {cpu-bind: "verbose,none"}
    env: {MC_ENABLE_DEST_DEVICE_AFFINITY: "1"}
    args:
      kv-transfer-config: '{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}'
  decode:
    args:
      kv-transfer-config: '{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}'
services:
  - name: mooncake-master
    type: mooncake-master
    options:
      store_config:
        metadata_server: "P2PHANDSHAKE"
        global_segment_size: "100GB"
        local_buffer_size: "4GB"
        protocol: "tcp"
        device_name: ""
        master_server_address: "9.9.9.9:1"
YAML
mkdir -p "$REC/vllm" && chmod 1777 "$REC/vllm"
S apply -f "$WORK/vllm.yaml" --wait --timeout 90s >"$WORK/wait2.out" 2>&1
check "2. vLLM quick start reaches Ready" test $? -eq 0
S get services -o json >"$WORK/svc2.json"
py "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
m = [s for s in json.load(open(f"{work}/svc2.json"))["items"] if s["run"] == "e2e-vllm-1-1" and s["name"] == "mooncake-master"][0]
infra = m["endpoint"].rsplit(":", 1)[0]
want = {"metadata_server": "P2PHANDSHAKE", "global_segment_size": "100GB", "local_buffer_size": "4GB",
        "protocol": "tcp", "device_name": "", "master_server_address": f"{infra}:8700"}
recs = [json.loads(l) for l in open(f"{work}/rec/vllm/engine.jsonl")]
assert len(recs) == 2
for r in recs:
    path = r["env"]["MOONCAKE_CONFIG_PATH"]
    got = json.load(open(path))
    assert got == want, (got, want)
    assert r["env"]["MOONCAKE_MASTER"] == f"{infra}:8700"
binds = sorted(r["env"].get("SLURM_CPU_BIND") for r in recs)
assert binds == ["quiet,none", "verbose,none"], binds
PY
check "2. MOONCAKE_CONFIG_PATH points at store_config plus master_server_address; srun_options reach srun (the role's over the recipe's)" test $? -eq 0
S delete recipe e2e-vllm >/dev/null
wait_no_jobs 40

# ---- 3. standalone stores ------------------------------------------------------------
cat >"$WORK/store.yaml" <<YAML
name: e2e-store
environment:
  FAKE_RECORD_DIR: $REC/store
engine: sglang
model: {path: $MODEL}
roles:
  prefill:
    env: {MOONCAKE_GLOBAL_SEGMENT_SIZE: "0"}
    args: {disaggregation-transfer-backend: mooncake}
  decode:
    env: {MOONCAKE_GLOBAL_SEGMENT_SIZE: "0"}
    args: {disaggregation-transfer-backend: mooncake}
services:
  - name: mooncake-master
    type: mooncake-master
  - name: store
    type: mooncake-store
    placement:
      node: workers
    args: ["--port", "8800"]
    env:
      MOONCAKE_PROTOCOL: tcp
      MOONCAKE_GLOBAL_SEGMENT_SIZE: "1073741824"
    readiness:
      port: 8800
YAML
mkdir -p "$REC/store" && chmod 1777 "$REC/store"
S apply -f "$WORK/store.yaml" --wait --timeout 120s >"$WORK/wait3.out" 2>&1
check "3. the store recipe reaches Ready" test $? -eq 0
S events -o json >"$WORK/ev3.json"
py "$WORK" <<'PY'
import json, sys
items = [i for i in json.load(open(f"{sys.argv[1]}/ev3.json"))["items"]
         if i["object"]["name"].startswith("e2e-store-1-1/")]
def t(kind, prefix, reason):
    return [i["first_timestamp"] for i in items
            if i["object"]["kind"] == kind and i["object"]["name"].split("/", 1)[1].startswith(prefix)
            and i["reason"] == reason]
master_ready = t("service", "mooncake-master", "Ready")
store_started = t("service", "store", "Started")
store_ready = t("service", "store", "Ready")
workers_started = t("worker", "", "Started")
assert master_ready and len(store_started) == 2 and len(store_ready) == 2 and len(workers_started) == 2, \
    (master_ready, store_started, store_ready, workers_started)
assert max(master_ready) <= min(store_started), "a store started before the master was ready"
assert max(store_ready) <= min(workers_started), "a worker started before every store was ready"
PY
check "3. stores start after the master is ready and before any worker (event times)" test $? -eq 0
S delete recipe e2e-store >/dev/null
wait_no_jobs 40

# ---- 4. hostile values ---------------------------------------------------------------
HOSTILE_ENV='it'"'"'s "$(touch '"$WORK"'/canary)" `touch '"$WORK"'/canary`; touch '"$WORK"'/canary
second line'
cat >"$WORK/hostile.yaml" <<YAML
name: e2e-hostile
environment:
  FAKE_RECORD_DIR: $REC/hostile
engine: sglang
model: {path: $MODEL}
roles:
  agg:
    env:
      HOSTILE: $(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$HOSTILE_ENV")
    args:
      served-model-name: $(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "\$(touch $WORK/canary); \`touch $WORK/canary\` 'q' \"dq\"")
YAML
mkdir -p "$REC/hostile" && chmod 1777 "$REC/hostile"
S apply -f "$WORK/hostile.yaml" --wait --timeout 90s >"$WORK/wait4.out" 2>&1
check "4. the hostile recipe reaches Ready" test $? -eq 0
py "$WORK" "$HOSTILE_ENV" <<'PY'
import json, sys, os
work, want_env = sys.argv[1], sys.argv[2]
want_arg = f"$(touch {work}/canary); `touch {work}/canary` 'q' \"dq\""
recs = [json.loads(l) for l in open(f"{work}/rec/hostile/engine.jsonl")]
assert len(recs) == 1
r = recs[0]
assert r["env"]["HOSTILE"] == want_env, repr(r["env"]["HOSTILE"])
i = r["argv"].index("--served-model-name")
assert r["argv"][i + 1] == want_arg, repr(r["argv"][i + 1])
assert not os.path.exists(f"{work}/canary"), "something was executed"
PY
check "4. hostile env values and args arrive byte for byte; nothing is executed" test $? -eq 0
S delete recipe e2e-hostile >/dev/null
wait_no_jobs 40

# ---- 5. a master that never becomes ready / exits at once -----------------------------
cat >"$WORK/hang.yaml" <<YAML
name: e2e-hang
slurm: {max_attempts: 1}
engine: sglang
model: {path: $MODEL}
roles:
  prefill: {args: {disaggregation-transfer-backend: mooncake}}
  decode: {args: {disaggregation-transfer-backend: mooncake}}
services:
  - name: mooncake-master
    type: mooncake-master
    env: {FAKE_MASTER_HANG: admin}
    readiness: {timeout_seconds: 6, interval_seconds: 1}
YAML
t0=$SECONDS
S apply -f "$WORK/hang.yaml" --wait --timeout 90s >"$WORK/wait5.out" 2>&1
rc=$?
check "5. a master that never becomes ready fails the run (apply --wait exits 1)" test $rc -eq 1
S events --for service/e2e-hang-1-1/mooncake-master -o json >"$WORK/ev5.json"
py "$WORK" <<'PY'
import json, sys
items = json.load(open(f"{sys.argv[1]}/ev5.json"))["items"]
msgs = [i["message"] for i in items if i["type"] == "Warning"]
assert any("8702" in m for m in msgs), msgs
PY
check "5. the Warning event names the port that never answered (8702)" test $? -eq 0
S get runs e2e-hang-1-1 -o json | grep -q '"phase": *"Failed"'
check "5. the run is Failed" test $? -eq 0
S delete recipe e2e-hang >/dev/null
wait_no_jobs 40

sed -e 's/e2e-hang/e2e-exit/' -e 's/FAKE_MASTER_HANG: admin/FAKE_MASTER_EXIT_AT_ONCE: "1"/' \
	-e 's/timeout_seconds: 6/timeout_seconds: 120/' "$WORK/hang.yaml" >"$WORK/exit.yaml"
t0=$SECONDS
S apply -f "$WORK/exit.yaml" --wait --timeout 90s >"$WORK/wait6.out" 2>&1
rc=$?
took=$((SECONDS - t0))
check "5. a master that exits at once fails the run at once (${took}s, readiness budget 120s)" \
	test $rc -eq 1 -a $took -lt 60
S events --for service/e2e-exit-1-1/mooncake-master -o json | grep -q 'exited with status 1'
check "5. its event says how it exited" test $? -eq 0
S delete recipe e2e-exit >/dev/null
wait_no_jobs 40

# ---- 9. a decode worker over two nodes; prefill on its own HTTP port --------------------
# (roles.prefill.args.port: the worker's --port, once; the router and the probe use it)
cat >"$WORK/multi.yaml" <<YAML
name: e2e-multi
environment:
  FAKE_RECORD_DIR: $REC/multi
engine: sglang
model: {path: $MODEL}
resources: {gpus_per_node: 4}
roles:
  prefill:
    args: {tensor-parallel-size: 4, port: 5000}
  decode:
    nodes: 2
    gpus: 8
    args: {tensor-parallel-size: 8}
frontend:
  type: sglang-router
YAML
mkdir -p "$REC/multi" && chmod 1777 "$REC/multi"
S apply -f "$WORK/multi.yaml" --wait --timeout 120s >"$WORK/wait9.out" 2>&1
check "9. a decode worker over 2 nodes reaches Ready" test $? -eq 0
py "$WORK" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(f"{sys.argv[1]}/rec/multi/engine.jsonl")]
dec = sorted((r for r in recs if r["options"]["disaggregation_mode"] == "decode"),
             key=lambda r: r["options"]["node_rank"])
assert len(dec) == 2, len(dec)
def opt(a, f):
    return a[a.index(f) + 1]
def without(a, *flags):  # argv without these flags and their values
    out, skip = [], False
    for w in a:
        if skip:
            skip = False
        elif w in flags:
            skip = True
        else:
            out.append(w)
    return out
a0, a1 = dec[0]["argv"], dec[1]["argv"]
assert [opt(a, "--node-rank") for a in (a0, a1)] == ["0", "1"], (a0, a1)
assert opt(a0, "--nnodes") == opt(a1, "--nnodes") == "2"
lead = opt(a0, "--dist-init-addr")
assert lead == opt(a1, "--dist-init-addr") and lead.endswith(":8300"), (a0, a1)
assert lead.rsplit(":", 1)[0] == opt(a0, "--host"), "dist-init is not the leader's node"
assert opt(a1, "--port") == "0" and opt(a0, "--port") == "6100", (a0, a1)
assert without(a0, "--node-rank", "--host", "--port") == without(a1, "--node-rank", "--host", "--port"), (a0, a1)
assert dec[0]["host"] != dec[1]["host"], "both ranks on one node"
r = [json.loads(l) for l in open(f"{sys.argv[1]}/rec/multi/router.jsonl")][0]["argv"]
assert r.count("--decode") == 1 and opt(r, "--decode") == f"http://{opt(a0, '--host')}:6100", r
pre = [x["argv"] for x in recs if x["options"]["disaggregation_mode"] == "prefill"]
assert len(pre) == 1 and pre[0].count("--port") == 1 and opt(pre[0], "--port") == "5000", pre
assert opt(r, "--prefill") == f"http://{opt(pre[0], '--host')}:5000", r
PY
check "9. both ranks: one dist-init address, nnodes 2, node-rank 0/1, HTTP on rank 0 only; prefill serves and is routed on its args.port 5000" test $? -eq 0
S delete recipe e2e-multi >/dev/null
wait_no_jobs 40

# ---- 10. two workers on one node -------------------------------------------------------
cat >"$WORK/pair.yaml" <<YAML
name: e2e-pair
environment:
  FAKE_RECORD_DIR: $REC/pair
engine: sglang
model: {path: $MODEL}
resources: {gpus_per_node: 4}
roles:
  agg:
    workers: 2
    gpus: 2
    args: {tensor-parallel-size: 2}
    kv_events: {topic: pair}
frontend:
  type: sglang-router
YAML
mkdir -p "$REC/pair" && chmod 1777 "$REC/pair"
S apply -f "$WORK/pair.yaml" --wait --timeout 120s >"$WORK/wait10.out" 2>&1
check "10. two workers sharing a node reach Ready" test $? -eq 0
py "$WORK" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(f"{sys.argv[1]}/rec/pair/engine.jsonl")]
assert len(recs) == 2 and recs[0]["host"] == recs[1]["host"], recs
def opt(a, f):
    return a[a.index(f) + 1]
ports = sorted(opt(r["argv"], "--port") for r in recs)
gpus = sorted(r["env"]["CUDA_VISIBLE_DEVICES"] for r in recs)
nccl = {opt(r["argv"], "--nccl-port") for r in recs}
assert ports == ["6100", "6132"], ports
assert gpus == ["0,1", "2,3"], gpus
assert len(nccl) == 2, nccl
kv = sorted(json.loads(opt(r["argv"], "--kv-events-config"))["endpoint"] for r in recs)
assert kv == ["tcp://*:5200", "tcp://*:5201"], kv
assert all(json.loads(opt(r["argv"], "--kv-events-config"))["topic"] == "pair" for r in recs)
PY
check "10. distinct HTTP, NCCL and KV-event ports (each bound by its worker), CUDA_VISIBLE_DEVICES 0,1 and 2,3" test $? -eq 0
S delete recipe e2e-pair >/dev/null
wait_no_jobs 40

# ---- 11. Dynamo ------------------------------------------------------------------------
cat >"$WORK/dynamo.yaml" <<YAML
name: e2e-dynamo
environment:
  FAKE_RECORD_DIR: $REC/dynamo
engine: sglang
model: {path: $MODEL}
roles:
  prefill: {}
  decode: {}
frontend:
  type: dynamo
  args: {router-mode: round-robin}
dynamo:
  request_plane: nats
services:
  - name: etcd
    type: etcd
    placement: {node: dedicated}
  - name: nats
    type: nats
    placement: {node: dedicated}
YAML
mkdir -p "$REC/dynamo" && chmod 1777 "$REC/dynamo"
S apply -f "$WORK/dynamo.yaml" --wait --timeout 120s >"$WORK/wait11.out" 2>&1
check "11. the Dynamo recipe reaches Ready (real etcd and NATS, Dynamo stand-ins)" test $? -eq 0
S get services -o json >"$WORK/svc11.json"
S get workers -o json >"$WORK/wrk11.json"
S events -o json >"$WORK/ev11.json"
py "$WORK" "$MODEL" <<'PY'
import json, sys
work, model = sys.argv[1], sys.argv[2]
svc = {s["name"]: s for s in json.load(open(f"{work}/svc11.json"))["items"] if s["run"] == "e2e-dynamo-1-1"}
wrk = [w for w in json.load(open(f"{work}/wrk11.json"))["items"] if w["run"] == "e2e-dynamo-1-1"]
ip = {w["role"]: w["ip"] for w in wrk}
assert svc["etcd"]["state"] == "Ready" and svc["nats"]["state"] == "Ready", svc
infra = svc["etcd"]["endpoint"].rsplit(":", 1)[0]
assert svc["etcd"]["endpoint"] == f"{infra}:2379", svc
assert svc["nats"]["endpoint"] == f"{infra}:4222" and infra not in ip.values(), (svc, ip)
recs = {r["role"]: r for r in map(json.loads, open(f"{work}/rec/dynamo/engine.jsonl"))}
assert set(recs) == {"prefill", "decode"}, list(recs)
def opt(a, f):
    return a[a.index(f) + 1] if f in a else None
for role, r in recs.items():
    a, env = r["argv"], r["env"]
    assert opt(a, "--model-path") == model and opt(a, "--disaggregation-mode") == role, a
    assert opt(a, "--request-plane") == "nats", a
    assert env["ETCD_ENDPOINTS"] == f"http://{infra}:2379", env["ETCD_ENDPOINTS"]
    assert env["NATS_SERVER"] == f"nats://{infra}:4222", env["NATS_SERVER"]
    assert env["DYN_REQUEST_PLANE"] == "nats" and env["DYN_SYSTEM_PORT"] == "7500", env
assert recs["prefill"]["component"] == "prefill" and recs["decode"]["component"] == "backend"
fe = [json.loads(l) for l in open(f"{work}/rec/dynamo/frontend.jsonl")]
assert len(fe) == 1 and opt(fe[0]["argv"], "--router-mode") == "round-robin", fe
assert "--http-port=8000" in fe[0]["argv"], fe[0]["argv"]
items = [i for i in json.load(open(f"{work}/ev11.json"))["items"]
         if i["object"]["name"].startswith("e2e-dynamo-1-1/")]
def t(kind, prefix, reason):
    return [i["first_timestamp"] for i in items
            if i["object"]["kind"] == kind and i["object"]["name"].split("/", 1)[1].startswith(prefix)
            and i["reason"] == reason]
plane_ready = t("service", "etcd", "Ready") + t("service", "nats", "Ready")
workers_started, workers_ready = t("worker", "", "Started"), t("worker", "", "Ready")
fe_started = t("service", "frontend", "Started")  # the frontend reports as a service
assert len(plane_ready) == 2 and len(workers_started) == 2 and len(workers_ready) == 2 and fe_started, \
    (plane_ready, workers_started, workers_ready, fe_started)
assert max(plane_ready) <= min(workers_started), "a worker started before etcd and NATS were ready"
assert max(workers_ready) <= min(fe_started), "the frontend started before every worker was ready"
PY
check "11. etcd and NATS on their own node, Ready before the workers start; the workers' discovery env; the frontend after them" test $? -eq 0
fe_ip=$(worker_field "$WORK/wrk11.json" e2e-dynamo-1-1 prefill ip)
decode_node=$(worker_field "$WORK/wrk11.json" e2e-dynamo-1-1 decode node)
"$root/scripts/slurm-local" ${SRT_SLURM_RELEASE:+--release "$SRT_SLURM_RELEASE"} shell "$decode_node" \
	python3 -c 'import json, sys, urllib.request
h = json.loads(urllib.request.urlopen(sys.argv[1] + "/health", timeout=20).read())
print(json.dumps(sorted(i["component"] for i in h["instances"] if i["endpoint"] == "generate")))
req = urllib.request.Request(sys.argv[1] + "/v1/completions", data=json.dumps({"model": "model", "prompt": "hi", "max_tokens": 4}).encode(),
                             headers={"Content-Type": "application/json", "X-Request-Id": "e2e-dyn-1"})
print(urllib.request.urlopen(req, timeout=20).read().decode())' "http://$fe_ip:8000" >"$WORK/answer11.json" 2>&1
check "11. the frontend's /health lists the prefill and the decode worker" \
	grep -qx '\["backend", "prefill"\]' "$WORK/answer11.json"
check "11. the frontend answers a completion sent from another node ($decode_node)" grep -q '"choices"' "$WORK/answer11.json"
py "$WORK" <<'PY'
import json, sys
reqs = [r for r in map(json.loads, open(f"{sys.argv[1]}/rec/dynamo/requests.jsonl")) if r.get("request_id") == "e2e-dyn-1"]
assert sorted(r["role"] for r in reqs) == ["decode", "prefill"], reqs
assert min(reqs, key=lambda r: r["time"])["role"] == "prefill", reqs
PY
check "11. that request went to the prefill worker, then the decode worker" test $? -eq 0
S delete recipe e2e-dynamo >/dev/null
wait_no_jobs 40
check "11. deleting the recipe cancels its job" test $? -eq 0
check "11. etcd, NATS and the Dynamo processes are gone" no_leftovers
# ---- 12. TRT-LLM over Dynamo: each worker one MPI step ---------------------------------
cat >"$WORK/trtllm.yaml" <<YAML
name: e2e-trtllm
environment:
  FAKE_RECORD_DIR: $REC/trtllm
engine: {type: trtllm, served_model_name: org/e2e-model}
model: {path: $MODEL}
resources: {gpus_per_node: 4, gpu_type: gb200}
roles:
  prefill:
    gpus: 2
    args: {tensor_parallel_size: 2, cache_transceiver_config: {backend: UCX}}
  decode:
    nodes: 2
    gpus: 8
    args: {tensor_parallel_size: 8, kv_cache_config: {free_gpu_memory_fraction: 0.5}}
frontend: {type: dynamo}
YAML
mkdir -p "$REC/trtllm" && chmod 1777 "$REC/trtllm"
S apply -f "$WORK/trtllm.yaml" --wait --timeout 120s >"$WORK/wait12.out" 2>&1
check "12. the TRT-LLM recipe reaches Ready (MPI steps under srun --mpi=pmix, Dynamo stand-ins)" test $? -eq 0
S get workers -o json >"$WORK/wrk12.json"
py "$WORK" "$MODEL" <<'PY'
import json, sys, yaml
work, model = sys.argv[1], sys.argv[2]
wrk = {w["role"]: w for w in json.load(open(f"{work}/wrk12.json"))["items"] if w["run"] == "e2e-trtllm-1-1"}
ranks = [r for r in map(json.loads, open(f"{work}/rec/trtllm/launcher.jsonl"))]
by_world = {}
for r in ranks:
    by_world.setdefault(int(r["world_size"]), []).append(r)
assert sorted(by_world) == [2, 8], sorted(by_world)
for world, rs in by_world.items():
    assert sorted(int(r["rank"]) for r in rs) == list(range(world)), rs
    # under srun --mpi=pmix: PMIx names each rank (what TRT-LLM's MPI reads)
    assert all(r["env"].get("PMIX_RANK") == r["rank"] for r in rs), [r["env"].get("PMIX_RANK") for r in rs]
pre_nodes = {r["env"]["SLURMD_NODENAME"] for r in by_world[2]}
dec_nodes = [r["env"]["SLURMD_NODENAME"] for r in sorted(by_world[8], key=lambda r: int(r["rank"]))]
assert pre_nodes == {wrk["prefill"]["node"]}, (pre_nodes, wrk["prefill"])
assert dec_nodes[:4] == [wrk["decode"]["node"]] * 4, dec_nodes
assert len(set(dec_nodes[4:])) == 1 and dec_nodes[4] not in (dec_nodes[0],) + tuple(pre_nodes), dec_nodes
recs = {r["role"]: r for r in map(json.loads, open(f"{work}/rec/trtllm/engine.jsonl"))}
assert set(recs) == {"prefill", "decode"}, list(recs)
def opt(a, f):
    return a[a.index(f) + 1] if f in a else None
want = {"prefill": {"tensor_parallel_size": 2, "cache_transceiver_config": {"backend": "UCX"}},
        "decode": {"tensor_parallel_size": 8, "kv_cache_config": {"free_gpu_memory_fraction": 0.5}}}
for role, r in recs.items():
    a = r["argv"]
    assert opt(a, "--disaggregation-mode") == role and opt(a, "--served-model-name") == "org/e2e-model", a
    path = opt(a, "--extra-engine-args")
    assert path == f"{work}/runs/e2e-trtllm-1-1/logs/trtllm_{role}_0.yaml", path
    assert yaml.safe_load(open(path)) == want[role], open(path).read()
    assert r["mpi_world_size"] == (2 if role == "prefill" else 8), r["mpi_world_size"]
    assert r["env"]["DYN_SYSTEM_PORT"] == "7500" and r["env"]["ETCD_ENDPOINTS"].endswith(":2379"), r["env"]
# gb200: every rank ran under numactl -m 0,1, which then ran the launcher
numa = [r for r in map(json.loads, open(f"{work}/rec/trtllm/numactl.jsonl"))]
assert sorted(int(r["env"]["SLURM_PROCID"]) for r in numa) == sorted(list(range(2)) + list(range(8))), numa
assert all(r["options"] == {"policy": "bind", "nodes": [0, 1]} for r in numa), numa
assert all(r["command"][0].endswith("/trtllm_llmapi_launch") for r in numa), numa
PY
check "12. one MPI rank per GPU: prefill 2 ranks on its node, decode 8 ranks 4 a node on 2 nodes (rank 0 first), each under numactl -m 0,1 (gb200); rank 0 runs dynamo.trtllm with the engine YAML written from the role's args" test $? -eq 0
fe_ip=$(worker_field "$WORK/wrk12.json" e2e-trtllm-1-1 prefill ip)
decode_node=$(worker_field "$WORK/wrk12.json" e2e-trtllm-1-1 decode node)
complete_from "$decode_node" "http://$fe_ip:8000" org/e2e-model e2e-trt-1 >"$WORK/answer12.json" 2>&1
check "12. the Dynamo frontend answers a completion through the TRT-LLM workers" grep -q '"choices"' "$WORK/answer12.json"
# One rank of the decode worker on its second node dies: the whole step ends
# (--kill-on-bad-exit), and the agent restarts the worker, every rank.
victim=$(python3 -c 'import json,sys; print([r["pid"] for r in map(json.loads, open(sys.argv[1])) if r["world_size"] == "8" and r["rank"] == "5"][0])' "$REC/trtllm/launcher.jsonl")
kill -9 "$victim"
check "12. SIGKILLed decode rank 5 (pid $victim)" test $? -eq 0
restarted=
for _ in $(seq 1 60); do
	S get workers -o json >"$WORK/wrk12b.json"
	restarted=$(python3 -c 'import json,sys; w=[w for w in json.load(open(sys.argv[1]))["items"] if w["run"] == "e2e-trtllm-1-1" and w["role"] == "decode"][0]; print("yes" if w["restarts"] >= 1 and w["state"] == "Ready" else "")' "$WORK/wrk12b.json")
	[ -n "$restarted" ] && break
	sleep 1
done
check "12. the decode worker is restarted whole and Ready again" test -n "$restarted"
py "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
ranks = [r for r in map(json.loads, open(f"{work}/rec/trtllm/launcher.jsonl")) if r["world_size"] == "8"]
assert sorted(int(r["rank"]) for r in ranks) == sorted(list(range(8)) * 2), [r["rank"] for r in ranks]
PY
check "12. the restart launched all 8 decode ranks again" test $? -eq 0
S delete recipe e2e-trtllm >/dev/null
wait_no_jobs 40
check "12. deleting the recipe cancels its job" test $? -eq 0
check "12. no rank, etcd or Dynamo process is left" no_leftovers
# ---- 13. trtllm_serve: TRT-LLM's own orchestrator over trtllm-serve workers ----------
cat >"$WORK/trtserve.yaml" <<YAML
name: e2e-trtserve
environment:
  FAKE_RECORD_DIR: $REC/trtserve
engine: trtllm
model: {path: $MODEL}
resources: {gpus_per_node: 4}
roles:
  prefill:
    gpus: 4
    args:
      tensor_parallel_size: 4
      cache_transceiver_config: {backend: UCX}
      kv_connector_config: {connector: mooncake-store}
  decode:
    workers: 2
    gpus: 2
    args:
      tensor_parallel_size: 2
      cache_transceiver_config: {backend: UCX}
      kv_connector_config: {connector: mooncake-store}
    mooncake_store_config: {global_segment_size: 2GiB}
frontend:
  type: trtllm_serve
  gen_router: {type: round_robin}
services:
  - name: mooncake-master
    type: mooncake-master
    options:
      store_config: {protocol: tcp, global_segment_size: 1GiB, stage_through_host: true}
YAML
mkdir -p "$REC/trtserve" && chmod 1777 "$REC/trtserve"
S apply -f "$WORK/trtserve.yaml" --wait --timeout 120s >"$WORK/wait13.out" 2>&1
check "13. the trtllm_serve recipe reaches Ready (orchestrator after its trtllm-serve workers)" test $? -eq 0
S get workers -o json >"$WORK/wrk13.json"
S events -o json >"$WORK/ev13.json"
py "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
wrk = [w for w in json.load(open(f"{work}/wrk13.json"))["items"] if w["run"] == "e2e-trtserve-1-1"]
ip = {(w["role"], w["index"]): w["ip"] for w in wrk}
def opt(a, f):
    return a[a.index(f) + 1] if f in a else None
# trtllm-serve has no role: each worker is known by the engine YAML it reads
recs = {opt(r["argv"], "--extra_llm_api_options").rsplit("/", 1)[1]: r
        for r in map(json.loads, open(f"{work}/rec/trtserve/engine.jsonl"))}
want = {"trtllm_prefill_0.yaml": (ip[("prefill", 0)], "6100", None, 4),
        "trtllm_decode_0.yaml": (ip[("decode", 0)], "6100", "0,1", 2),
        "trtllm_decode_1.yaml": (ip[("decode", 1)], "6132", "2,3", 2)}
assert sorted(recs) == sorted(want), sorted(recs)
for name, (host, port, gpus, world) in want.items():
    r = recs[name]
    assert opt(r["argv"], "--host") == host and opt(r["argv"], "--port") == port, (name, r["argv"])
    assert opt(r["argv"], "--extra_llm_api_options") == f"{work}/runs/e2e-trtserve-1-1/logs/{name}"
    assert r["mpi_world_size"] == world, (name, r["mpi_world_size"])
    # a worker that owns its node gets no GPU set from srtctl (SLURM's gres may set one)
    assert gpus is None or r["env"].get("CUDA_VISIBLE_DEVICES") == gpus, (name, r["env"].get("CUDA_VISIBLE_DEVICES"))
orch = [json.loads(l) for l in open(f"{work}/rec/trtserve/router.jsonl")]
assert len(orch) == 1, orch
cfg = json.load(open(f"{work}/runs/e2e-trtserve-1-1/logs/trtllm_disagg.yaml"))
assert cfg["context_servers"]["urls"] == [f"{ip[('prefill', 0)]}:6100"], cfg
assert cfg["generation_servers"]["urls"] == [f"{ip[('decode', 0)]}:6100", f"{ip[('decode', 1)]}:6132"], cfg
assert cfg["generation_servers"]["router"] == {"type": "round_robin"} and cfg["port"] == 8000, cfg
items = [i for i in json.load(open(f"{work}/ev13.json"))["items"]
         if i["object"]["name"].startswith("e2e-trtserve-1-1/")]
def t(kind, prefix, reason):
    return [i["first_timestamp"] for i in items
            if i["object"]["kind"] == kind and i["object"]["name"].split("/", 1)[1].startswith(prefix)
            and i["reason"] == reason]
assert len(t("worker", "", "Ready")) == 3 and t("service", "frontend", "Started"), items
assert max(t("worker", "", "Ready")) <= min(t("service", "frontend", "Started"))
PY
check "13. three trtllm-serve workers (two sharing a node: distinct ports and GPU sets, MPI worlds of 4, 2, 2); the orchestrator's config lists them, started after they are Ready" test $? -eq 0
py "$WORK" "$MODEL" <<'PY'
import json, sys
work, model = sys.argv[1], sys.argv[2]
logs = f"{work}/runs/e2e-trtserve-1-1/logs"
wrk = [w for w in json.load(open(f"{work}/wrk13.json"))["items"] if w["run"] == "e2e-trtserve-1-1"]
ips = {w["ip"] for w in wrk}
cfg = {role: json.load(open(f"{logs}/mooncake/store_config_{role}.json")) for role in ("prefill", "decode")}
addr = cfg["prefill"]["master_server_address"]
assert addr.endswith(":8700") and addr.rsplit(":", 1)[0] in ips, (addr, ips)
assert cfg["prefill"] == {"protocol": "tcp", "global_segment_size": "1GiB", "stage_through_host": True,
                          "role": "both", "model_key": model.rstrip("/").rsplit("/", 1)[1],
                          "master_server_address": addr}, cfg
assert cfg["decode"] == dict(cfg["prefill"], role="capacity", global_segment_size="2GiB"), cfg
def opt(a, f):
    return a[a.index(f) + 1] if f in a else None
recs = list(map(json.loads, open(f"{work}/rec/trtserve/engine.jsonl")))
assert len(recs) == 3, recs
for r in recs:
    role = opt(r["argv"], "--extra_llm_api_options").rsplit("/", 1)[1].split("_")[1]
    assert r["env"]["MOONCAKE_CONFIG_PATH"] == f"{logs}/mooncake/store_config_{role}.json", r["env"]
    assert r["mooncake_master"] == addr, (r["mooncake_master"], addr)
items = [i for i in json.load(open(f"{work}/ev13.json"))["items"]
         if i["object"]["name"].startswith("e2e-trtserve-1-1/")]
master_ready = [i["first_timestamp"] for i in items if i["object"]["name"].endswith("/mooncake-master")
                and i["reason"] == "Ready"]
started = [i["first_timestamp"] for i in items if i["object"]["kind"] == "worker" and i["reason"] == "Started"]
assert master_ready and len(started) == 3 and master_ready[0] <= min(started), (master_ready, started)
PY
check "13. TRT-LLM's mooncake-store connector: the master Ready before the workers start, each role's client config written (prefill both, decode capacity with its own segment), every worker reads its role's file and joins the master it names" test $? -eq 0
fe_ip=$(worker_field "$WORK/wrk13.json" e2e-trtserve-1-1 prefill ip)
decode_node=$(worker_field "$WORK/wrk13.json" e2e-trtserve-1-1 decode node)
complete_from "$decode_node" "http://$fe_ip:8000" model e2e-trtserve-1 >"$WORK/answer13.json" 2>&1
check "13. the orchestrator answers a completion sent from another node" grep -q '"choices"' "$WORK/answer13.json"
py "$WORK" <<'PY'
import json, sys
rr = [r for r in map(json.loads, open(f"{sys.argv[1]}/rec/trtserve/requests.jsonl"))
      if r.get("request_id") == "e2e-trtserve-1"]
kinds = [r["disaggregated_params"]["request_type"] for r in sorted(rr, key=lambda r: r["time"])]
assert kinds == ["context_only", "generation_only"], rr
PY
check "13. that request went to the context (prefill) server, then a generation (decode) server" test $? -eq 0
S delete recipe e2e-trtserve >/dev/null
wait_no_jobs 40
check "13. deleting the recipe cancels its job" test $? -eq 0
check "13. no trtllm-serve rank or orchestrator is left" no_leftovers
# ---- 13p. trtllm_serve on TRT-LLM's own Mooncake pool ----------------------------------
# srt-slurm's design: `trtllm-serve mooncake_master` publishes the master's
# address in a file, a donor on the decode node lends memory and writes its
# ready marker, the prefill worker provisions the pool from its engine YAML.
cat >"$WORK/trtpool.yaml" <<YAML
name: e2e-trtpool
environment:
  FAKE_RECORD_DIR: $REC/trtpool
engine: trtllm
model: {path: $MODEL}
resources: {gpus_per_node: 4}
roles:
  prefill:
    gpus: 2
    args:
      tensor_parallel_size: 2
      cache_transceiver_config: {backend: UCX}
      kv_connector_config:
        connector: mooncake-store
        mooncake_store:
          master_server_address: file:///logs/mooncake_master.addr
          protocol: tcp
          global_segment_size: 1GiB
  decode:
    gpus: 2
    args:
      tensor_parallel_size: 2
      cache_transceiver_config: {backend: UCX}
frontend:
  type: trtllm_serve
services:
  - name: mooncake-master
    type: mooncake-master
    start: with_workers
    options: {eviction_ratio: 0.05, master_timeout_s: 60, store_role: both}
  - name: mooncake-donor
    type: mooncake-donor
    start: with_workers
    readiness: {file: {path: "mooncake/donor-{node}.ready"}, timeout_seconds: 60}
    options: {size: 2GiB, protocol: tcp}
YAML
mkdir -p "$REC/trtpool" && chmod 1777 "$REC/trtpool"
S apply -f "$WORK/trtpool.yaml" --wait --timeout 120s >"$WORK/wait13p.out" 2>&1
check "13p. a trtllm_serve recipe on TRT-LLM's own pool reaches Ready" test $? -eq 0
S get workers -o json >"$WORK/wrk13p.json"
S events -o json >"$WORK/ev13p.json"
py "$WORK" <<'PY'
import json, os, sys
work = sys.argv[1]
run = "e2e-trtpool-1-1"
logs = f"{work}/runs/{run}/logs"
wrk = [w for w in json.load(open(f"{work}/wrk13p.json"))["items"] if w["run"] == run]
ip = {w["role"]: w["ip"] for w in wrk}
node = {w["role"]: w["node"] for w in wrk}
# the master's address, published by trtllm-serve mooncake_master once its RPC port answered
addr = open(f"{logs}/mooncake_master.addr").read()
assert addr.endswith(":8700\n"), addr
# the donor's marker: its host and the bytes it lends
marker = open(f"{logs}/mooncake/donor-{node['decode']}.ready").read().split()
assert marker[1] == str(2 << 30), marker
# the prefill worker provisioned the pool in its own run dir and joined that master
recs = {r["argv"][r["argv"].index("--extra_llm_api_options") + 1].rsplit("/", 1)[1]: r
        for r in map(json.loads, open(f"{work}/rec/trtpool/engine.jsonl"))}
pre = recs["trtllm_prefill_0.yaml"]
assert pre["env"]["TRTLLM_MOONCAKE_RUN_DIR"] == f"{logs}/mooncake/prefill-0", pre["env"]
assert pre["env"]["TRTLLM_MOONCAKE_STORE_ROLE"] == "both" and pre["env"]["TRTLLM_MOONCAKE_MASTER_TIMEOUT"] == "60"
assert pre["mooncake_master"] == addr.strip(), (pre["mooncake_master"], addr)
client = json.load(open(f"{logs}/mooncake/prefill-0/mooncake.json"))
assert client["master_server_address"] == addr.strip(), client
dec = recs["trtllm_decode_0.yaml"]
assert "TRTLLM_MOONCAKE_STORE_ROLE" not in dec["env"] and not dec.get("mooncake_master"), dec
items = [i for i in json.load(open(f"{work}/ev13p.json"))["items"]
         if i["object"]["name"].startswith(run + "/")]
def t(name, reason):
    return [i["first_timestamp"] for i in items
            if i["object"]["name"].split("/", 1)[1].startswith(name) and i["reason"] == reason]
# with_workers: the master and the donor start with the workers, and gate the frontend
assert t("mooncake-master", "Ready") and t("mooncake-donor", "Ready"), items
assert max(t("mooncake-master", "Ready") + t("mooncake-donor", "Ready")) <= min(t("frontend", "Started"))
PY
check "13p. the master publishes its address, the donor lends 2 GiB and marks itself ready, the prefill worker provisions the pool from its YAML and joins that master; the frontend starts after both are Ready" test $? -eq 0
fe_ip=$(worker_field "$WORK/wrk13p.json" e2e-trtpool-1-1 prefill ip)
decode_node=$(worker_field "$WORK/wrk13p.json" e2e-trtpool-1-1 decode node)
complete_from "$decode_node" "http://$fe_ip:8000" model e2e-trtpool-1 >"$WORK/answer13p.json" 2>&1
check "13p. the orchestrator over the pool answers a completion" grep -q '"choices"' "$WORK/answer13p.json"
S delete recipe e2e-trtpool >/dev/null
wait_no_jobs 40
check "13p. deleting the recipe cancels its job" test $? -eq 0
check "13p. no pool master, donor or worker is left" no_leftovers
# ---- 14. Dynamo's mocker -------------------------------------------------------------
cat >"$WORK/mocker.yaml" <<YAML
name: e2e-mocker
environment:
  FAKE_RECORD_DIR: $REC/mocker
engine: {type: mocker, speedup_ratio: 50, max_num_seqs: 64}
model: {path: $MODEL}
roles:
  prefill: {}
  decode: {args: {max-num-seqs: 32}}
frontend: {type: dynamo}
YAML
mkdir -p "$REC/mocker" && chmod 1777 "$REC/mocker"
S apply -f "$WORK/mocker.yaml" --wait --timeout 120s >"$WORK/wait14.out" 2>&1
check "14. the mocker recipe reaches Ready (implied etcd, dynamo.mocker stand-ins)" test $? -eq 0
S get workers -o json >"$WORK/wrk14.json"
py "$WORK" "$MODEL" <<'PY'
import json, sys
work, model = sys.argv[1], sys.argv[2]
recs = {r["role"]: r for r in map(json.loads, open(f"{work}/rec/mocker/engine.jsonl"))}
assert set(recs) == {"prefill", "decode"}, list(recs)
def opt(a, f):
    return a[a.index(f) + 1] if f in a else None
for role, r in recs.items():
    a, env = r["argv"], r["env"]
    assert r["prog"] == "dynamo.mocker" and opt(a, "--model-path") == model, a
    assert opt(a, "--disaggregation-mode") == role and opt(a, "--speedup-ratio") == "50.0", a
    assert "--request-plane" not in a and env["DYN_REQUEST_PLANE"] == "tcp", (a, env)
    assert env["DYN_EVENT_PLANE"] == "zmq" and env["DYN_SYSTEM_PORT"] == "7500", env
assert opt(recs["prefill"]["argv"], "--bootstrap-ports") == "7200", recs["prefill"]["argv"]
assert "--bootstrap-ports" not in recs["decode"]["argv"]
d = recs["decode"]["argv"]
assert [d[i + 1] for i, w in enumerate(d) if w == "--max-num-seqs"] == ["64", "32"], d
assert recs["prefill"]["component"] == "prefill" and recs["decode"]["component"] == "backend"
PY
check "14. dynamo.mocker's argv as srt-slurm renders it (role, bootstrap port, knobs, the role's args last); ZMQ events without NATS" test $? -eq 0
fe_ip=$(worker_field "$WORK/wrk14.json" e2e-mocker-1-1 prefill ip)
decode_node=$(worker_field "$WORK/wrk14.json" e2e-mocker-1-1 decode node)
complete_from "$decode_node" "http://$fe_ip:8000" "$MODEL" e2e-mocker-1 >"$WORK/answer14.json" 2>&1
check "14. the frontend answers a completion through the mockers, sent from another node" grep -q '"choices"' "$WORK/answer14.json"
py "$WORK" <<'PY'
import json, sys
rr = sorted((r for r in map(json.loads, open(f"{sys.argv[1]}/rec/mocker/requests.jsonl"))
             if r.get("request_id") == "e2e-mocker-1"), key=lambda r: r["time"])
assert [r["role"] for r in rr] == ["prefill", "decode"], rr
PY
check "14. that request went to the prefill mocker, then the decode mocker" test $? -eq 0
S delete recipe e2e-mocker >/dev/null
wait_no_jobs 40
check "14. deleting the recipe cancels its job" test $? -eq 0
check "14. no mocker, etcd or frontend process is left" no_leftovers

# ---- 15. LMCache under vLLM ----------------------------------------------------------
cat >"$WORK/lmcache.yaml" <<YAML
name: e2e-lmcache
environment:
  FAKE_RECORD_DIR: $REC/lmcache
engine: {type: vllm, connector: lmcache-mp}
model: {path: $MODEL}
roles:
  prefill: {}
  decode: {}
services:
  - name: lmc
    type: lmcache-server
    args: [--l1-size-gb, "16", --chunk-size, "256", --eviction-policy, LRU]
    env: {LMCACHE_DISABLE_BANNER: "1"}
    preamble: |
      export LMC_PREAMBLE_RAN="ran in \${0##*/}'s bash"
YAML
mkdir -p "$REC/lmcache" && chmod 1777 "$REC/lmcache"
S apply -f "$WORK/lmcache.yaml" --wait --timeout 90s >"$WORK/wait15.out" 2>&1
check "15. the LMCache recipe reaches Ready (an lmcache-server on each worker node)" test $? -eq 0
py "$WORK" <<'PY'
import glob, json, sys
work = sys.argv[1]
srv = [json.loads(l) for l in open(f"{work}/rec/lmcache/lmcache.jsonl")]
eng = [json.loads(l) for l in open(f"{work}/rec/lmcache/engine.jsonl")]
assert len(srv) == 2 and len(eng) == 2, (len(srv), len(eng))
assert {s["host"] for s in srv} == {e["host"] for e in eng}, "one server per worker node"
for s in srv:
    a = s["argv"][1:]
    assert a[:9] == ["server", "--host", "0.0.0.0", "--port", "8750", "--http-host", "0.0.0.0",
                     "--http-port", "8751"], a
    assert a[9:] == ["--l1-size-gb", "16", "--chunk-size", "256", "--eviction-policy", "LRU"], a
    assert s["env"].get("LMC_PREAMBLE_RAN") == "ran in lmcache's bash", s["env"].get("LMC_PREAMBLE_RAN")
for e in eng:
    kv = e["options"]["kv_transfer_config"]
    assert kv["kv_connector"] == "LMCacheMPConnector", kv
    logs = glob.glob(f"{work}/runs/e2e-lmcache-1-1/**/service_lmc_{e['host']}.out", recursive=True)
    assert len(logs) == 1, logs
    assert f"Registered KV cache for GPU ID {e['pid']} with 28 layers" in open(logs[0]).read(), \
        (e["host"], e["pid"])
PY
check "15. lmcache server's argv (srtctl's ports, the args), its preamble ran; each worker registered with the server on its node" test $? -eq 0
S delete recipe e2e-lmcache >/dev/null
wait_no_jobs 40
check "15. deleting the recipe cancels its job" test $? -eq 0
check "15. no lmcache or vLLM process is left" no_leftovers
# ---- 16. a Ray cluster on a pool, a job of services only -----------------------------
cat >"$WORK/bin/ray_bench.sh" <<'SH'
#!/bin/bash
# What Miles's launcher does first: find the head in srt-slurm's contract and attach.
set -eu
ips=$SRT_SERVICE_TRAIN_IPS
head=${ips%%,*}
python3 - "$head" "$SRT_SERVICE_TRAIN_NODE_COUNT" "$SRT_SERVICE_ENV_IPS" "$OUT" <<'PY'
import json, sys, urllib.request
head, count, env_ips, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
summary = json.load(urllib.request.urlopen(f"http://{head}:8265/nodes?view=summary", timeout=10))
alive = sorted(n["raylet"]["nodeManagerAddress"] for n in summary["data"]["summary"]
               if n["raylet"]["state"] == "ALIVE")
rider = [urllib.request.urlopen(f"http://{ip}:8003/", timeout=10).read().decode() for ip in env_ips.split(",")]
json.dump({"head": head, "count": count, "alive": alive, "rider": rider}, open(out, "w"))
PY
"$RAY" status --address "$head:6379" >>"$OUT.status"
SH
chmod 755 "$WORK/bin/ray_bench.sh"
cat >"$WORK/ray.yaml" <<YAML
name: e2e-ray
model: {path: $MODEL}
resources: {gpus_per_node: 4}
frontend: {type: none}
services:
  - name: train
    type: ray
    nodes: 2
    readiness: {timeout_seconds: 60}
  - name: env
    placement: {pool: train}
    command: [python3, -c, "import http.server as h, sys; b = ('rank ' + sys.argv[1] + ' of ' + sys.argv[2] + ' head ' + sys.argv[3]).encode(); H = type('H', (h.BaseHTTPRequestHandler,), {'do_GET': lambda s: (s.send_response(200), s.send_header('Content-Length', str(len(b))), s.end_headers(), s.wfile.write(b))}); h.HTTPServer((sys.argv[4], 8003), H).serve_forever()", "{index}", "{pool_node_count}", "{pool_ip}", "{node_ip}"]
    readiness: {http: {port: 8003, path: /}, timeout_seconds: 30}
benchmark:
  type: custom
  command: $WORK/bin/ray_bench.sh
  env: {OUT: $REC/ray/bench.json, RAY: $FAKES/ray}
YAML
mkdir -p "$REC/ray" && chmod 1777 "$REC/ray"
S apply -f "$WORK/ray.yaml" >/dev/null 2>&1
S wait recipe/e2e-ray --for done --timeout 150s >"$WORK/wait16.out" 2>&1
S get runs -o json >"$WORK/runs16.json"
S events -o json >"$WORK/ev16.json"
py "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
run = "e2e-ray-1-1"
runs = [r for r in json.load(open(f"{work}/runs16.json"))["items"] if r["name"] == run]
assert runs and runs[0]["phase"] == "Succeeded", runs
b = json.load(open(f"{work}/rec/ray/bench.json"))
assert b["count"] == 2 and len(b["alive"]) == 2 and b["head"] in b["alive"], b
assert b["rider"] == [f"rank 0 of 2 head {b['head']}", f"rank 1 of 2 head {b['head']}"], b
status = open(f"{work}/rec/ray/bench.json.status").read()
assert status.strip(), "ray status printed nothing"
items = [i for i in json.load(open(f"{work}/ev16.json"))["items"]
         if i["object"]["name"].startswith(run + "/")]
def t(name, reason):
    return [i["first_timestamp"] for i in items
            if i["object"]["name"].split("/", 1)[1] == name and i["reason"] == reason]
ready = {i["object"]["name"].split("/", 1)[1]: i["message"] for i in items
         if i["reason"] == "Ready" and "/train_" in i["object"]["name"]}
assert len(ready) == 2, ready
# the head is ready on its dashboard, the joiner once the head lists both raylets ALIVE
head = [n for n, m in ready.items() if "/api/version" in m]
join = [n for n, m in ready.items() if "(2 Ray nodes ALIVE)" in m]
assert len(head) == 1 and len(join) == 1 and head != join, ready
head, join = head[0], join[0]
# the head is Ready before the joiner starts; the benchmark starts after both are Ready
assert max(t(head, "Ready")) <= min(t(join, "Started")), (t(head, "Ready"), t(join, "Started"))
assert max(t(join, "Ready") + t(head, "Ready")) <= min(t("benchmark", "Started"))
PY
check "16. the Ray head is Ready before its joiner starts, the joiner once both raylets are ALIVE; the rider got its templates; the custom benchmark found the cluster through SRT_SERVICE_TRAIN_IPS and the run Succeeded" test $? -eq 0
wait_no_jobs 40
check "16. the job ended with its benchmark" test $? -eq 0
check "16. no raylet or rider is left" no_leftovers serve_forever
# ---- 17. TileRT: vLLM prefill, TileRT decode, TileRT's router --------------------------
# TileRT's converted weights: what its converter leaves (config, chat template, index)
mkdir -p "$WORK/tilert_weights"
echo '{}' >"$WORK/tilert_weights/config.json"
: >"$WORK/tilert_weights/chat_template.jinja"
echo '{"weight_map": {}}' >"$WORK/tilert_weights/model.safetensors.index.json"
chmod -R a+rX "$WORK/tilert_weights"
cat >"$WORK/tilert.yaml" <<YAML
name: e2e-tilert
environment:
  FAKE_RECORD_DIR: $REC/tilert
model: {path: $MODEL}
resources: {gpus_per_node: 4}
roles:
  prefill:
    engine: vllm
    gpus: 4
    args:
      served-model-name: glm-test
      tensor-parallel-size: 4
      max-model-len: 4096
      kv-cache-dtype: fp8_ds_mla
      return-tokens-as-token-ids: true
      kv-transfer-config: '{"kv_connector":"TileRTConnector","kv_connector_module_path":"tilert.pd_vllm.prefill_connector","kv_role":"kv_producer","kv_connector_extra_config":{"tilert_model":"glm5","tilert_max_seq_len":4096,"tilert_transport":"nixl"}}'
  decode:
    engine: tilert
    gpus: 4
    args:
      model: glm5
      model-weights-dir: $WORK/tilert_weights
      max-seq-len: 4096
      kv-cache-dtype: fp8
      transport: nixl
      with-mtp: true
frontend:
  type: tilert-router
  args: {parser: none, queue-timeout: 60}
YAML
mkdir -p "$REC/tilert" && chmod 1777 "$REC/tilert"
S apply -f "$WORK/tilert.yaml" --wait --timeout 120s >"$WORK/wait17.out" 2>&1
check "17. the TileRT recipe reaches Ready (router after the prefill and decode workers)" test $? -eq 0
S get workers -o json >"$WORK/wrk17.json"
S events -o json >"$WORK/ev17.json"
fe_ip=$(worker_field "$WORK/wrk17.json" e2e-tilert-1-1 prefill ip)
decode_node=$(worker_field "$WORK/wrk17.json" e2e-tilert-1-1 decode node)
complete_from "$decode_node" "http://$fe_ip:8000" glm-test e2e-tilert-1 >"$WORK/answer17.json" 2>&1
check "17. TileRT's router answers a completion sent from the decode node" grep -q '"choices"' "$WORK/answer17.json"
if ! grep -q '"choices"' "$WORK/answer17.json"; then # what each of the three said
	for f in "$WORK/answer17.json" "$WORK"/runs/e2e-tilert-1-1/logs/{frontend,worker_prefill_0,worker_decode_0}.out; do
		echo "# --- $f"
		tail -n 15 "$f" 2>&1 | sed 's/^/#   /'
	done
fi
py "$WORK" <<'PY'
import glob, json, sys
work = sys.argv[1]
run = "e2e-tilert-1-1"
items = [i for i in json.load(open(f"{work}/ev17.json"))["items"]
         if i["object"]["name"].startswith(run + "/")]
def t(name, reason):
    return [i["first_timestamp"] for i in items
            if i["object"]["name"].split("/", 1)[1] == name and i["reason"] == reason]
assert max(t("prefill_0", "Ready") + t("decode_0", "Ready")) <= min(t("frontend", "Started")), items
logs = glob.glob(f"{work}/runs/{run}/**/worker_decode_0.out", recursive=True)
assert len(logs) == 1, logs
text = open(logs[0]).read()
assert "control plane listening on :5400" in text, text[-2000:]
plan = json.load(open(f"{work}/runs/{run}/plan.json"))
dec = [p for p in plan["processes"] if p["name"] == "decode_0"][0]["argv"]
i = dec.index("--engine")
assert dec[i:i + 6] == ["--engine", "tilert", "--http-port", "6100", "--ctrl-port", "5400"], dec
PY
check "17. the router started after both workers were Ready; the decode server took srtctl's ports" test $? -eq 0
S delete recipe e2e-tilert >/dev/null
wait_no_jobs 40
check "17. deleting the recipe cancels its job" test $? -eq 0
check "17. no TileRT or vLLM process is left" no_leftovers
check "no job of this test is left running" test -z "$(live_jobs)"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
