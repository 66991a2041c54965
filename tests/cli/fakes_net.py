"""tests/cli/fakes_net.py: loopback helpers for the tests of the stand-ins
under tests/fakes (run through `net` of fakes_lib.sh).

  freeports N                  N free TCP ports on 127.0.0.1, space-separated
  waitup PORT SECONDS          exit 0 once 127.0.0.1:PORT accepts, 1 after SECONDS
  waitjson URL SECONDS EXPR    exit 0 once EXPR (Python, over the GET answer d) holds

Python 3 standard library only.
"""

import json
import socket
import sys
import time
import urllib.request


def freeports(n):
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
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
        print(" ".join(map(str, freeports(int(a[0])))))
        return 0
    if cmd == "waitup":
        return 0 if waitup(int(a[0]), float(a[1])) else 1
    if cmd == "waitjson":
        return 0 if waitjson(a[0], float(a[1]), a[2]) else 1
    sys.stderr.write("fakes_net.py: unknown command %r\n" % cmd)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
