#!/usr/bin/env bash
# bench/fake_master_startup.sh: how long tests/fakes/fake_mooncake_master
# takes to come up and to stop, next to the real master's figures
# (../shared/notes/mooncake-master-observed.md §4.1, §4.7).
#
#   bench/fake_master_startup.sh [-n RUNS]
#
# Each run starts the stand-in on three free loopback ports with the HTTP
# metadata server enabled, polls every 5 ms (TCP connect on each port,
# GET /health on the admin port) and prints when each first answered, the
# pause between the metadata port and the RPC port (the real master sleeps
# 1 s there), and how long it took to exit after SIGTERM.  Real master:
# metadata ~0.01 s, RPC and admin ~1.035 s, /health ~1.04-1.06 s, SIGTERM
# exit ~0.9-1.0 s.  It prints figures; it never fails on a slow run
# (tests/cli/test_fakes.sh checks the order only).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=5
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=${2:?-n needs a number}; shift 2 ;;
	-h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench/fake_master_startup.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
case $runs in '' | *[!0-9]*) echo "bench/fake_master_startup.sh: -n wants a number" >&2; exit 2 ;; esac
[ "$runs" -ge 1 ] && [ "$runs" -le 100 ] || { echo "bench/fake_master_startup.sh: -n out of range (1..100)" >&2; exit 2; }

exec python3 - "$root/tests/fakes/fake_mooncake_master" "$runs" <<'PY'
import os, signal, socket, subprocess, sys, time, urllib.request

master, runs = sys.argv[1], int(sys.argv[2])

def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports

def accepts(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.05).close()
        return True
    except OSError:
        return False

def healthy(port):
    try:
        return urllib.request.urlopen("http://127.0.0.1:%d/health" % port, timeout=0.2).status == 200
    except Exception:
        return False

print("%4s %9s %9s %9s %9s %9s %9s" % ("run", "metadata", "rpc", "admin", "/health", "pause", "sigterm"))
for n in range(1, runs + 1):
    rpc, meta, admin = free_ports(3)
    env = dict(os.environ, FAKE_BIND_HOST="127.0.0.1")
    t0 = time.monotonic()
    p = subprocess.Popen([sys.executable, master, "--rpc_port=%d" % rpc,
                          "--enable_http_metadata_server=true",
                          "--http_metadata_server_port=%d" % meta, "--metrics_port=%d" % admin],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    first = {}
    try:
        while time.monotonic() - t0 < 15 and len(first) < 4 and p.poll() is None:
            for name, port in (("metadata", meta), ("rpc", rpc), ("admin", admin)):
                if name not in first and accepts(port):
                    first[name] = time.monotonic() - t0
            if "health" not in first and "admin" in first and healthy(admin):
                first["health"] = time.monotonic() - t0
            time.sleep(0.005)
        t1 = time.monotonic()
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=15)
            stop = time.monotonic() - t1
        except subprocess.TimeoutExpired:
            stop = float("nan")
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    f = lambda k: "%8.3fs" % first[k] if k in first else "%9s" % "-"
    pause = ("%8.3fs" % (first["rpc"] - first["metadata"])
             if "rpc" in first and "metadata" in first else "%9s" % "-")
    print("%4d %s %s %s %s %s %8.3fs" % (n, f("metadata"), f("rpc"), f("admin"), f("health"),
                                         pause, stop))
PY
