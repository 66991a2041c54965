# tests/cli/agent_lib.sh: what the tests of `srtctl agent` share (sourced):
# a work directory, SLURM stand-ins first on PATH (`srun` drops its
# --options and runs the command "on" the node named by --nodelist,
# `scontrol show hostnames`, `hostname -I`, `ip`), a cluster config naming
# the tests/fakes programs, and helpers: new_case (a case directory with
# run/plan.json from a recipe), start_agent / finish_agent / stop_agent
# (the agent by pid, every wait bounded), until_py and check (Python over
# run/status.json and run/events.jsonl).  tests/cli/test_agent.sh says why
# it is built this way.
SRTCTL=${SRTCTL:?set SRTCTL to the srtctl binary}
src=${SRT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
F=$src/tests/fakes

work=$(mktemp -d)
# The model directory the workers are given (the strict engine stand-ins check that it exists).
model=$work/model
mkdir -p "$model"
agent_pid=
extra_pids=()
# Pids of every process the agents of this test started (from status.json).
step_pids() {
	python3 - "$work" <<'PY' 2>/dev/null || true
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*/run/status.json"):
    try:
        for p in json.load(open(f))["processes"]:
            if p.get("pid"):
                print(p["pid"])
    except Exception:
        pass
PY
}
# PID and its descendants (children first found, then theirs), while they
# are still linked: nginx's workers outlive a SIGKILLed master.
tree_pids() {
	local p=$1 c
	echo "$p"
	for c in $(pgrep -P "$p" 2>/dev/null); do tree_pids "$c"; done
}
cleanup() {
	local p all=()
	[[ -n $agent_pid ]] && kill -KILL "$agent_pid" 2>/dev/null || true
	for p in "${extra_pids[@]}" $(step_pids); do all+=($(tree_pids "$p")); done
	for p in "${all[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	if [[ -n ${SRT_TEST_KEEP:-} ]]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
cd "$work"

NET=127.$((100 + RANDOM % 100)).$((1 + RANDOM % 250))
export FAKE_NET=$NET FAKE_IFACE=fk0
unset FAKE_BIND_HOST FAKE_RECORD_DIR FAKE_RECORD_FILE FAKE_MASTER_HANG FAKE_MASTER_EXIT_AT_ONCE \
	FAKE_MASTER_CRASH_AFTER MOONCAKE_MASTER MOONCAKE_CONFIG_PATH SRTSLURM_CONFIG || true

fail() {
	echo "FAIL: $*" >&2
	local d
	for d in "$work"/*/run; do
		[[ -d $d ]] || continue
		echo "--- $d/events.jsonl" >&2
		cat "$d/events.jsonl" >&2 2>/dev/null || true
		for f in "$d"/logs/*.out; do
			[[ -f $f ]] || continue
			echo "--- $f" >&2
			tail -n 15 "$f" >&2
		done
	done
	exit 1
}

# ---- stand-ins ----

mkdir bin
cat >bin/srun <<'EOF'
#!/bin/bash
# srun stand-in: drop the --options, run the command on "node" --nodelist.
opts=
while [[ $# -gt 0 && $1 == --* ]]; do
	case $1 in --nodelist=*) export SRT_FAKE_NODE=${1#--nodelist=} ;; esac
	opts+="$1 "
	shift
done
export FAKE_BIND_HOST=$FAKE_NET.${SRT_FAKE_NODE#n}
export FAKE_ENGINE_DEFAULT_HOST=$FAKE_BIND_HOST
printf '%s%s\n' "$opts" "$1" >>"$FAKE_SRUN_LOG"
exec "$@"
EOF
cat >bin/scontrol <<'EOF'
#!/bin/bash
[[ $1 == show && $2 == hostnames ]] || exit 2
tr ',' '\n' <<<"$3"
EOF
cat >bin/hostname <<'EOF'
#!/bin/bash
if [[ ${1:-} == -I ]]; then echo "$FAKE_NET.${SRT_FAKE_NODE#n} 10.9.9.9"; else echo "${SRT_FAKE_NODE:-login}"; fi
EOF
cat >bin/ip <<'EOF'
#!/bin/bash
[[ "$*" == "-4 -o addr show dev $FAKE_IFACE" ]] || { echo "Device \"${*: -1}\" does not exist." >&2; exit 1; }
echo "2: $FAKE_IFACE    inet $FAKE_NET.${SRT_FAKE_NODE#n}/8 scope host $FAKE_IFACE"
EOF
chmod +x bin/*

cluster() { # cluster FILE [network_interface]
	{
		echo "runtime:"
		echo "  container_runtime: none"
		[[ -n ${2:-} ]] && echo "  network_interface: $2"
		echo "commands:"
		echo "  mooncake_master: [python3, $F/fake_mooncake_master]"
		echo "  mooncake_store: [python3, $F/fake_mooncake_store]"
		echo "  sglang: [python3, $F/sglang_launch_server]"
		echo "  vllm: [python3, $F/vllm, serve]"
		echo "  sglang_router: [python3, $F/sglang_router]"
		echo "  ray: [python3, $F/ray]"
	} >"$1"
}

# write_plan GEN RECIPE_TEXT: the recipe's plan as run/plan.json generation
# GEN, replaced atomically, the way the controller writes it.
write_plan() {
	printf '%s\n' "$2" >recipe.yaml
	SRTSLURM_CONFIG=$PWD/srtslurm.yaml "$SRTCTL" dry-run -f recipe.yaml -o json >dry.json ||
		fail "$(basename "$PWD"): dry-run of generation $1"
	python3 - "$1" <<'PY' || fail "$(basename "$PWD"): plan $1"
import json, os, sys
p = json.load(open("dry.json"))["plan"]
p["generation"] = int(sys.argv[1])
json.dump(p, open("run/plan.json.tmp", "w"), indent=1)
os.rename("run/plan.json.tmp", "run/plan.json")
PY
}

# new_case NAME RECIPE_TEXT [iface]: a case dir with run/plan.json (generation 1).
new_case() {
	local name=$1
	mkdir -p "$work/$name/run" "$work/$name/rec"
	cd "$work/$name"
	cluster srtslurm.yaml "${3:-}"
	write_plan 1 "$2"
	export FAKE_SRUN_LOG=$PWD/srun.log FAKE_RECORD_DIR=$PWD/rec
}

# start_agent NODELIST [VAR=value ...]: the agent in the background, its
# own pid in agent_pid (no wrapper: a signal the test sends reaches it
# once; `timeout` would send it again to its process group).  The stop
# grace is $STOP_TIMEOUT (default 2s).
start_agent() {
	local nodes=$1
	shift
	(
		export PATH="$work/bin:$PATH" SLURM_JOB_ID=4242 SLURM_JOB_NODELIST=$nodes "$@"
		exec "$SRTCTL" agent --run-dir run --stop-timeout "${STOP_TIMEOUT:-2s}" \
			--probe-timeout "${PROBE_TIMEOUT:-2s}" ${POINT_TIMEOUT:+--point-timeout "$POINT_TIMEOUT"}
	) >agent.out 2>&1 &
	agent_pid=$!
}

alive() { # PID runs (not a zombie)
	local st
	st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
	[[ -n $st && $st != Z ]]
}

# finish_agent [SECONDS]: wait for the agent to end (at most SECONDS,
# default 120; then it is killed and the test fails); sets rc.
finish_agent() {
	local secs=${1:-120} i
	for ((i = 0; i < secs * 10; i++)); do
		alive "$agent_pid" || break
		sleep 0.1
	done
	if alive "$agent_pid"; then
		kill -KILL "$agent_pid" 2>/dev/null || true
		wait "$agent_pid" 2>/dev/null || true
		agent_pid=
		fail "$(basename "$PWD"): the agent did not end within $secs s"
	fi
	rc=0
	wait "$agent_pid" || rc=$?
	agent_pid=
}

# stop_agent: one SIGTERM to the agent, by pid; wait for it to end.
stop_agent() {
	kill -TERM "$agent_pid"
	finish_agent 60
}

# hold IP PORT: a plain listener (accepts and closes) on IP:PORT, as another
# program holding a port would; its pid goes to extra_pids.
hold() {
	python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # its TIME-WAITs must not block the next test
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(64)
s.settimeout(0.2)
end = time.monotonic() + 300
while time.monotonic() < end:
    try:
        s.accept()[0].close()
    except socket.timeout:
        pass
' "$1" "$2" &
	extra_pids+=($!)
	local i
	for ((i = 0; i < 100; i++)); do
		python3 -c 'import socket, sys; socket.create_connection((sys.argv[1], int(sys.argv[2])), 1).close()' "$1" "$2" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "hold: $1:$2 never listened"
}

unhold() { # stop the last hold
	kill -KILL "${extra_pids[-1]}" 2>/dev/null || true
	wait "${extra_pids[-1]}" 2>/dev/null || true
}

# RUN_STOPPED_ONCE: exactly one run-level Stopped event, and it is the last event.
RUN_STOPPED_ONCE='
rs = [e for e in ev("Stopped") if e["object"]["kind"] == "run"]
assert len(rs) == 1, [e["seq"] for e in rs]
assert events()[-1]["seq"] == rs[0]["seq"]
'

# until_py SECONDS PYTHON: poll until the expression over run/ is true.
# Helpers: status() -> status.json, events() -> list, ev(reason, name=None).
PYLIB='
import json, os, sys
def status():
    return json.load(open("run/status.json"))
def events():
    out = []
    for line in open("run/events.jsonl", "rb").read().split(b"\n")[:-1]:
        out.append(json.loads(line))
    return out
def ev(reason, name=None):
    return [e for e in events() if e["reason"] == reason and (name is None or e["object"]["name"] == name)]
def proc(name):
    return [p for p in status()["processes"] if p["name"] == name][0]
def records():
    path = "rec/engine.jsonl"
    return [json.loads(l) for l in open(path)] if os.path.exists(path) else []
'
until_py() {
	local secs=$1 expr=$2 i
	for ((i = 0; i < secs * 10; i++)); do
		if python3 -c "$PYLIB
try:
    ok = bool($expr)
except Exception:
    ok = False
sys.exit(0 if ok else 1)" 2>/dev/null; then
			return 0
		fi
		sleep 0.1
	done
	fail "$(basename "$PWD"): timed out waiting for: $expr"
}

check() { # check DESCRIPTION PYTHON-STATEMENTS [ARG...] (assert ...; sys.argv[1:] = ARGs)
	printf '%s\n%s\n' "$PYLIB" "$2" >check.py # a file, so a failure shows its line
	python3 check.py "${@:3}" || fail "$(basename "$PWD"): $1"
}

