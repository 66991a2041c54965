#!/usr/bin/env python3
"""Test stand-in for mooncake_master (tests/unit/test_script.c).

Accepts the --flag=value ports srtctl passes, records argv and env like
recorder.sh, then listens on 127.0.0.1: TCP on the RPC and metadata ports,
GET /health -> 200 on the metrics port. Exits 3 when a port is taken.
"""
import os
import socket
import sys
import threading

ports = {"rpc_port": 50051, "http_metadata_server_port": 8080, "metrics_port": 9003}
for arg in sys.argv[1:]:
    if arg.startswith("--") and "=" in arg:
        key, value = arg[2:].split("=", 1)
        if key in ports:
            ports[key] = int(value)

out = os.path.join(os.environ["SRT_RECORD_DIR"], "rec.%d" % os.getpid())
with open(out + ".env", "wb") as f:
    f.write(b"".join(k + b"=" + v + b"\0" for k, v in os.environb.items()))
with open(out + ".argv.tmp", "wb") as f:
    f.write(b"".join(os.fsencode(a) + b"\0" for a in ["master"] + sys.argv[1:]))
os.rename(out + ".argv.tmp", out + ".argv")

socks = []
for key in ("http_metadata_server_port", "rpc_port", "metrics_port"):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", ports[key]))
    except OSError as e:
        print("fake master: cannot bind %d: %s" % (ports[key], e), flush=True)
        sys.exit(3)
    s.listen(16)
    socks.append((key, s))


def serve(key, s):
    while True:
        c, _ = s.accept()
        if key == "metrics_port":
            data = c.recv(4096)
            if data.startswith(b"GET /health "):
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n{\"status\":\"ok\"}")
            else:
                c.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        c.close()


print("fake master: serving", ports, flush=True)
for key, s in socks:
    threading.Thread(target=serve, args=(key, s), daemon=True).start()
threading.Event().wait()
