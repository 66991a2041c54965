"""tests/cli/fakes_net.py: loopback helpers for the tests of the stand-ins
under tests/fakes (run through `net` of fakes_lib.sh).

  freeports N [SPAN]           N free TCP ports on 127.0.0.1 below the ephemeral
                               range, each followed by SPAN-1 free ones too
  waitup PORT SECONDS          exit 0 once 127.0.0.1:PORT accepts, 1 after SECONDS
  waitjson URL SECONDS EXPR    exit 0 once EXPR (Python, over the GET answer d) holds

Python 3 standard library only.
"""

import json
import socket
import sys
import time
import urllib.request


def freeports(n, span=1):
    """n ports P, each with P..P+span-1 free on 127.0.0.1 (disjoint runs).

    They are taken below the kernel's ephemeral range: a port bind(0) hands
    out is in that range, and once closed the kernel may give it to any
    outgoing connection before the test binds it (seen: a vLLM stand-in's
    second KV-event port, P+1, taken while a suite ran beside it).  Below
    the range only an explicit bind can take it.  Bounded: 4000 tries.
    """
    import random

    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            eph = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        eph = 32768
    hi = eph - span
    lo = 10000 if hi - 10000 >= 1000 else 1024
    if hi - lo < 100:
        raise SystemExit("freeports: the ephemeral range starts at %d: no room below it" % eph)
    rng = random.Random()
    ports, held = [], []
    try:
        for _ in range(4000):
            if len(ports) == n:
                break
            p = rng.randrange(lo, hi)
            if any(q - span < p < q + span for q in ports):
                continue
            run = []
            try:
                for k in range(span):
                    s = socket.socket()
                    run.append(s)
                    s.bind(("127.0.0.1", p + k))
            except OSError:
                for s in run:
                    s.close()
                continue
            held += run
            ports.append(p)
    finally:
        for s in held:
            s.close()
    if len(ports) < n:
        raise SystemExit("freeports: found %d of %d free port runs" % (len(ports), n))
    return ports


def waitup(port, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


def waitjson(url, seconds, expr):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            d = json.load(urllib.request.urlopen(url, timeout=2))
            if eval(expr, {"d": d}):
                return True
        except (OSError, ValueError):
            pass
        time.sleep(0.1)
    return False


def main(argv):
    cmd, a = argv[0], argv[1:]
    if cmd == "freeports":
        print(" ".join(map(str, freeports(int(a[0]), int(a[1]) if len(a) > 1 else 1))))
        return 0
    if cmd == "waitup":
        return 0 if waitup(int(a[0]), float(a[1])) else 1
    if cmd == "waitjson":
        return 0 if waitjson(a[0], float(a[1]), a[2]) else 1
    sys.stderr.write("fakes_net.py: unknown command %r\n" % cmd)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
