#!/usr/bin/env bash
# tests/cli/test_fakes_lmcache.sh: the strict stand-in for LMCache's
# `lmcache server` (tests/fakes/lmcache) accepts the options the real one
# accepts and refuses the rest as it does (exit status and message), binds
# its RPC port before it answers GET /healthcheck, reports a taken port and
# stops on signals as it does; and a vLLM stand-in with LMCacheMPConnector
# serves only once it has registered with that server.  See
# tests/fakes/README.md.  Loopback only, free ports picked by the kernel,
# every wait bounded, every process killed by PID.
set -euo pipefail

src=${SRT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
F=$src/tests/fakes
LMC=$F/lmcache
VLLM=$F/vllm

. "$src/tests/cli/fakes_lib.sh"
unset FAKE_RECORD_DIR FAKE_RECORD_FILE FAKE_CHECK_ONLY FAKE_BIND_HOST FAKE_LMCACHE_START_DELAY \
	FAKE_LMCACHE_MQ_TIMEOUT FAKE_ENGINE_START_DELAY FAKE_ENGINE_CRASH_AFTER
export LMCACHE_DISABLE_BANNER=1
n=0
ok() {
	n=$((n + 1))
	echo "ok $n - $*"
}

listen_addr() { # PORT -> the IPv4 address listening there
	python3 - "$1" <<'PY'
import socket, sys
for line in open("/proc/net/tcp").readlines()[1:]:
    f = line.split()
    ip, port = f[1].split(":")
    if f[3] == "0A" and int(port, 16) == int(sys.argv[1]):
        print(socket.inet_ntoa(bytes.fromhex(ip)[::-1]))
PY
}

# ---- the command line ----
L1=(--l1-size-gb 1 --eviction-policy LRU)
refused 2 "lmcache: error: unrecognized arguments: --bogus" "an unknown option" -- \
	"$LMC" server "${L1[@]}" --bogus
refused 2 "lmcache server: error: argument --eviction-policy: invalid choice: 'LFU'" \
	"an eviction policy LMCache lacks" -- "$LMC" server --l1-size-gb 1 --eviction-policy LFU
refused 2 "lmcache server: error: argument --l1-init-size-gb: invalid int value: '1.5'" \
	"a float where LMCache wants an int" -- "$LMC" server "${L1[@]}" --l1-init-size-gb 1.5
refused 2 "lmcache: error: argument command: invalid choice: 'serve'" "a subcommand typo" -- \
	"$LMC" serve
rc=0
"$LMC" >out 2>err || rc=$?
[[ $rc == 1 ]] && grep -q "^usage: lmcache" out || fail "no subcommand: exit $rc, not the help on stdout"
ok "argparse's refusals: unknown option (root parser), bad choice and type (subcommand), exit 2"
refused 1 "ValueError: Legacy L1 configuration requires --l1-size-gb and --eviction-policy" \
	"no L1 size" -- "$LMC" server --eviction-policy LRU
grep -qF "LMCache ERROR: Command failed" err || fail "no 'Command failed' line"
refused 1 "worker_reap_timeout_seconds must be 0 (disabled) or >= 30" "a short reap timeout" -- \
	"$LMC" server "${L1[@]}" --worker-reap-timeout-seconds 10
refused 1 "--l1-manager cannot be combined with --l1-size-gb" "two L1 configurations" -- \
	"$LMC" server "${L1[@]}" --l1-manager '{"type": "dram"}'
refused 1 "--enable-tracing requires --otlp-endpoint" "tracing without an endpoint" -- \
	"$LMC" server "${L1[@]}" --enable-tracing
ok "the configuration checks after parsing: 'Command failed', the ValueError, exit 1"

# ---- serving ----
read -r P H P2 H2 < <(net freeports 4)
# srtctl's argv (recipe/render.c) with the recipe's args, on free ports.
start srv.log "$LMC" server --host 0.0.0.0 --port "$P" --http-host 0.0.0.0 --http-port "$H" \
	--l1-size-gb 16 --chunk-size 256 --max-workers 2 --eviction-policy LRU
SRV=$SPID
net waitjson "http://127.0.0.1:$H/healthcheck" 30 "d == {'status': 'healthy'}" ||
	fail "GET /healthcheck never answered {\"status\": \"healthy\"}"
[[ $(listen_addr "$P") == 0.0.0.0 && $(listen_addr "$H") == 0.0.0.0 ]] ||
	fail "the RPC and HTTP ports are not bound on every address"
grep -q "LMCache INFO: LMCache cache server is running\.\.\. (server.py:" srv.log ||
	fail "no 'cache server is running' line in LMCache's format"
# The RPC port is bound in the lifespan, before the HTTP port: its line comes first.
awk '/LMCache cache server is running/ { r = NR } /Uvicorn running on/ { u = NR }
	END { exit !(r && u && r < u) }' srv.log || fail "the RPC server came up after the HTTP one"
ok "srtctl's argv is accepted; RPC and HTTP on 0.0.0.0; /healthcheck 200 after the RPC port is up"
start def.log "$LMC" server "${L1[@]}" --port "$P2" --http-port "$H2"
net waitjson "http://127.0.0.1:$H2/healthcheck" 30 "d['status'] == 'healthy'" ||
	fail "the default-host server never answered"
[[ $(listen_addr "$P2") == 127.0.0.1 ]] || fail "--host defaults to localhost: RPC on $(listen_addr "$P2")"
kill -INT "$SPID"
expect_rc 130 "$SPID" 10 "SIGINT"
ok "--host defaults to localhost; SIGINT exits 130"

# A taken HTTP port: uvicorn's message, exit 1; a taken RPC port: startup failed, exit 0.
start busy.log "$LMC" server "${L1[@]}" --port "$P2" --http-port "$H"
expect_rc 1 "$SPID" 15 "a taken HTTP port"
grep -qF "ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', $H): address already in use" busy.log ||
	fail "no uvicorn bind error: $(tail -n 2 busy.log)"
start busy2.log "$LMC" server "${L1[@]}" --port "$P" --http-port "$H2"
expect_rc 0 "$SPID" 15 "a taken RPC port"
grep -qF "zmq.error.ZMQError: Address already in use" busy2.log &&
	grep -qF "ERROR:    Application startup failed. Exiting." busy2.log ||
	fail "no ZMQ bind error: $(tail -n 2 busy2.log)"
ok "a taken HTTP port exits 1 (uvicorn's Errno 98), a taken RPC port logs startup failed, exit 0"

# ---- vLLM's LMCacheMPConnector registers before the worker serves ----
read -r W W2 < <(net freeports 2)
kv() { # PORT: the lmcache-mp preset of recipe/launch.c, on PORT
	printf '{"kv_connector": "LMCacheMPConnector", "kv_connector_module_path": "lmcache.integration.vllm.lmcache_mp_connector", "kv_role": "kv_both", "kv_connector_extra_config": {"lmcache.mp.host": "tcp://localhost", "lmcache.mp.port": %s}}' "$1"
}
start w.log "$VLLM" serve Qwen/Qwen3-0.6B --host 127.0.0.1 --port "$W" --kv-transfer-config "$(kv "$P")"
WP=$SPID
net waitjson "http://127.0.0.1:$W/health" 30 "True" || net waitup "$W" 30 || fail "the worker never served"
grep -qF "Registered KV cache for GPU ID $WP with 28 layers" srv.log ||
	fail "the server logged no registration of the worker (pid $WP)"
stop "$WP" "the registered worker"
ok "a vLLM worker with LMCacheMPConnector registers with the server, then serves"

# No server: the connector waits (ZMQ reconnects), then the worker fails.
FAKE_LMCACHE_MQ_TIMEOUT=1 start w2.log "$VLLM" serve Qwen/Qwen3-0.6B --host 127.0.0.1 \
	--port "$W2" --kv-transfer-config "$(kv "$P2")"
expect_rc 1 "$SPID" 20 "a worker whose LMCache server never comes"
grep -qF "TimeoutError: LMCache MP server at tcp://localhost:$P2 did not answer within 1 s" w2.log ||
	fail "no timeout message: $(tail -n 2 w2.log)"
# Inside a MultiConnector (srt-slurm's prefill example) the member registers too.
multi=$(printf '{"kv_connector":"MultiConnector","kv_role":"kv_both","kv_connector_extra_config":{"connectors":[{"kv_connector":"NixlConnector","kv_role":"kv_both"},%s]}}' "$(kv "$P")")
start w3.log "$VLLM" serve Qwen/Qwen3-0.6B --host 127.0.0.1 --port "$W2" --kv-transfer-config "$multi"
net waitup "$W2" 30 || fail "the MultiConnector worker never served"
grep -qF "Registered KV cache for GPU ID $SPID with" srv.log || fail "the MultiConnector member did not register"
stop "$SPID" "the MultiConnector worker"
ok "without a server the worker times out (exit 1); a MultiConnector member registers too"

# SIGTERM: the graceful lines, then the signal again (recent uvicorn): killed by SIGTERM.
kill -TERM "$SRV"
expect_rc 143 "$SRV" 10 "SIGTERM"
grep -qF "LMCache HTTP server stopped" srv.log || fail "no graceful shutdown lines"
ok "SIGTERM: graceful shutdown, then the process dies of the signal (143)"
echo "1..$n"
