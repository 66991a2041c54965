#!/bin/bash
# tests/cli/test_sdnotify.sh: `srtctl controller` speaks systemd's sd_notify
# protocol (service/sdnotify.h), without systemd: the test plays systemd's
# part with a unix datagram socket at $NOTIFY_SOCKET and reads what the
# controller sends, against a slurmrestd that does not answer (loopback).
#
# - READY=1 once, with STATUS= the first pass's summary;
# - WATCHDOG=1 at half $WATCHDOG_USEC, also while a pass interval longer
#   than the watchdog period runs (the loop wakes to ping);
# - SIGTERM: STOPPING=1, then exit 0;
# - an abstract socket ("@name") works too;
# - $WATCHDOG_PID naming another process turns the watchdog off.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
# shellcheck source=tests/cli/lib.sh
source "$(dirname "$0")/lib.sh"
isolated_workdir

python3 - "$SRTCTL" "$work" <<'PY'
import os, signal, socket, subprocess, sys, time

srtctl, work = sys.argv[1], sys.argv[2]
url = "http://127.0.0.1:9"  # the discard port: nothing answers
fails = []

def check(cond, what):
    if not cond:
        fails.append(what)

def listen(addr):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(addr)
    s.settimeout(0.2)
    return s

def collect(sock, proc, until, stop_when=None):
    """Messages (one list of fields each) until `until` (monotonic) or stop_when(msg)."""
    got = []
    while time.monotonic() < until:
        try:
            data = sock.recv(4096)
        except socket.timeout:
            if proc.poll() is not None:
                break
            continue
        msg = data.decode().split("\n")
        got.append(msg)
        if stop_when and stop_when(msg):
            break
    return got

def start(notify_socket, extra_env, *args):
    env = dict(os.environ, NOTIFY_SOCKET=notify_socket, **extra_env)
    return subprocess.Popen([srtctl, "controller", "--db", work + "/state.db", "--url", url,
                             *args], env=env, cwd=work, stderr=open(work + "/ctl.log", "ab"))

# 1. A file socket; watchdog 600 ms (ping every 300 ms); a 3 s interval.
path = work + "/notify.sock"
sock = listen(path)
proc = start(path, {"WATCHDOG_USEC": "600000"}, "--interval", "3s")
t0 = time.monotonic()
msgs = collect(sock, proc, t0 + 60, lambda m: "READY=1" in m)
check(msgs and "READY=1" in msgs[-1], "no READY=1 within 60 s: %r" % msgs)
ready = msgs[-1] if msgs else []
status = [f for f in ready if f.startswith("STATUS=")]
check(status and status[0].startswith("STATUS=last pass: 0 run(s), 0 action(s)")
      and "(SLURM unknown)" in status[0], "READY=1 without the pass summary: %r" % ready)
check(sum("WATCHDOG=1" in m for m in msgs) == 0 or msgs.index(ready) < len(msgs),
      "WATCHDOG=1 before READY=1")
# The next pass is 3 s after the first (more after a failed listing): in
# 2 s of waiting, the loop must have woken about 6 times to ping.
t1 = time.monotonic()
msgs = collect(sock, proc, t1 + 2.0)
pings = sum(m == ["WATCHDOG=1"] for m in msgs)
check(pings >= 4, "only %d WATCHDOG=1 in 2 s with a 600 ms watchdog: %r" % (pings, msgs))
check(not any("READY=1" in m for m in msgs), "READY=1 sent twice: %r" % msgs)
proc.send_signal(signal.SIGTERM)
msgs = collect(sock, proc, time.monotonic() + 60, lambda m: "STOPPING=1" in m)
check(msgs and "STOPPING=1" in msgs[-1], "no STOPPING=1 after SIGTERM: %r" % msgs)
try:
    rc = proc.wait(60)
except subprocess.TimeoutExpired:
    proc.kill()
    rc = "still running after 60 s"
check(rc == 0, "SIGTERM: exit %r, want 0" % rc)
sock.close()

# 2. An abstract socket, --once: READY=1, then STOPPING=1, exit 0; no
#    watchdog when $WATCHDOG_PID names another process.
name = "srtctl-test-%d" % os.getpid()
sock = listen("\0" + name)
proc = start("@" + name, {"WATCHDOG_USEC": "600000", "WATCHDOG_PID": "1"}, "--once")
rc = proc.wait(60)
msgs = collect(sock, proc, time.monotonic() + 1)
fields = [f for m in msgs for f in m]
check(rc == 0, "--once: exit %r, want 0" % rc)
check("READY=1" in fields and "STOPPING=1" in fields, "abstract socket: got %r" % msgs)
check("WATCHDOG=1" not in fields, "WATCHDOG=1 although $WATCHDOG_PID is another process: %r" % msgs)

if fails:
    for f in fails:
        print("FAIL:", f, file=sys.stderr)
    sys.stderr.write(open(work + "/ctl.log").read())
    sys.exit(1)
PY
echo "test_sdnotify: ok"
