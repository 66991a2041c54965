"""Strict stand-in for LMCache's multiprocess server, `lmcache server`, and
the client side of vLLM's LMCacheMPConnector (tests/fakes; see README.md).

The server side (`tests/fakes/lmcache server ...`):
- The `lmcache` console script: argparse with prog "lmcache" and one
  subcommand here, `server`, whose options are LMCache's own groups (MP
  server, P2P, HTTP frontend, storage manager, observability, coordinator)
  with their types, defaults and choices.  An unknown option is refused by
  the root parser ("lmcache: error: unrecognized arguments: ...", exit 2),
  a bad value by the subcommand's ("lmcache server: error: ...", exit 2),
  no subcommand prints the help and exits 1.
- The configuration checks LMCache makes after parsing (legacy L1 needs
  --l1-size-gb and --eviction-policy, --l1-manager excludes them, the
  worker reap timeout, JSON options, tracing without an endpoint) fail with
  "Command failed" and a ValueError traceback, exit 1, as `lmcache` does.
- Startup order as under uvicorn: the lifespan binds the RPC (ZMQ) port on
  --host:--port first, then the HTTP port --http-host:--http-port is bound,
  so once GET /healthcheck answers (200 {"status":"healthy"}) the RPC port
  is up.  HTTP port taken: uvicorn's "[Errno 98] ... address already in
  use", exit 1.  RPC port taken: the traceback, "Application startup
  failed. Exiting.", exit 0 (uvicorn's Server.run() returns).
- Log lines in LMCache's format on stderr ("[date time,ms] LMCache LEVEL:
  message (file:line:logger)", without its ANSI colours) and uvicorn's.
- SIGTERM: the graceful shutdown lines, then the signal is raised again
  (recent uvicorn), so the process dies of SIGTERM; SIGINT exits 130.

The client side (`attach()`, used by the vLLM stand-ins): a worker whose
--kv-transfer-config names LMCacheMPConnector (alone or inside a
MultiConnector) connects to the server at kv_connector_extra_config's
lmcache.mp.host / lmcache.mp.port (defaults tcp://localhost and 5555) and
registers its KV caches before it serves; the server logs "Registered KV
cache for GPU ID <pid> with <n> layers".  The wire format between the two
stand-ins is theirs (one text line), not LMCache's msgpack.

Facts: LMCache's lmcache/cli/main.py, lmcache/cli/commands/server.py,
lmcache/v1/multiprocess/config.py, lmcache/v1/distributed/config.py,
lmcache/v1/mp_observability/config.py, lmcache/v1/multiprocess/http_server.py,
lmcache/integration/vllm/lmcache_mp_connector.py.
"""

import argparse
import json
import os
import signal
import socket
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_MP_PORT = 5555
DEFAULT_HTTP_PORT = 8080
EVICTION_POLICIES = ["LRU", "ARC", "IsolatedLRU", "noop"]
LAYERS = 28     # Qwen3-0.6B's, what a registering rank reports


# ---------------------------------------------------------------------------
# Command line

def add(g, flag, typ=str, default=None, **kw):
    g.add_argument(flag, type=typ, default=default, **kw)


def server_parser(sub):
    p = sub.add_parser("server", help="Launch the LMCache server (ZMQ + HTTP).")
    g = p.add_argument_group("MP Server")
    add(g, "--instance-id")
    add(g, "--host", default="localhost")
    add(g, "--port", int, DEFAULT_MP_PORT)
    add(g, "--chunk-size", int, 256)
    add(g, "--max-workers", int, 1)
    add(g, "--max-gpu-workers", int)
    add(g, "--max-cpu-workers", int)
    add(g, "--hash-algorithm", default="blake3")
    add(g, "--engine-type", default="default", choices=["default", "blend", "blend_legacy"])
    add(g, "--supported-transfer-mode", default="auto",
        choices=["lmcache_driven", "engine_driven", "auto"])
    g.add_argument("--runtime-plugin-locations", nargs="*", default=[])
    add(g, "--runtime-plugin-config", default="{}")
    add(g, "--shm-name")
    g.add_argument("--script-allowed-imports", nargs="*", default=[])
    g.add_argument("--separate-object-groups", action=argparse.BooleanOptionalAction,
                   default=True)
    add(g, "--worker-reap-timeout-seconds", float, 120.0)
    add(g, "--worker-registration-grace-seconds", float, 3600.0)
    g.add_argument("--enable-segmented-prefix", action="store_true")

    g = p.add_argument_group("P2P")
    for flag in ("--p2p-advertise-url", "--p2p-listen-url", "--p2p-rdma-device",
                 "--p2p-rdma-gid-indices"):
        add(g, flag, default="")
    add(g, "--p2p-lookup-timeout", float, 30.0)
    add(g, "--p2p-load-timeout", float, 30.0)
    add(g, "--p2p-transfer-engine", default="nixl")
    add(g, "--p2p-rdma-port", int, 1)
    add(g, "--p2p-rdma-gid-index", int, -1)
    add(g, "--p2p-rdma-queue-depth", int, 4096)
    add(g, "--p2p-rdma-handshake-timeout-ms", int, 10000)

    g = p.add_argument_group("HTTP Frontend")
    add(g, "--http-host", default="0.0.0.0")
    add(g, "--http-port", int, DEFAULT_HTTP_PORT)

    g = p.add_argument_group("Storage Manager")
    g.add_argument("--l1-manager", action="append", default=[])
    add(g, "--l1-size-gb", float)
    g.add_argument("--l1-use-lazy", action=argparse.BooleanOptionalAction, default=True)
    add(g, "--l1-init-size-gb", int, 20)
    add(g, "--l1-align-bytes", int, 4096)
    g.add_argument("--l1-use-hugepages", action=argparse.BooleanOptionalAction, default=False)
    add(g, "--l1-devdax-path")
    add(g, "--gds-l1-path")
    g.add_argument("--gds-l1-use-direct-io", action=argparse.BooleanOptionalAction,
                   default=True)
    add(g, "--gds-l1-backend", default="auto", choices=["auto"])
    add(g, "--l1-write-ttl-seconds", int, 600)
    add(g, "--l1-read-ttl-seconds", int, 300)
    add(g, "--eviction-policy", choices=EVICTION_POLICIES)
    add(g, "--eviction-trigger-watermark", float, 0.8)
    add(g, "--eviction-ratio", float, 0.2)
    add(g, "--l2-store-policy", default="default", choices=["default"])
    add(g, "--l2-prefetch-policy", default="default", choices=["default"])
    add(g, "--l2-prefetch-max-in-flight", int, 8)
    add(g, "--l2-prefetch-load-timeout", float)
    add(g, "--periodic-notifier-interval-ms", int, 5)
    g.add_argument("--l2-adapter", action="append", default=[], dest="l2_adapter")

    g = p.add_argument_group("Observability")
    for flag in ("--disable-observability", "--disable-metrics", "--disable-logging",
                 "--enable-tracing", "--enable-gc-monitor", "--enable-extra-logging"):
        g.add_argument(flag, action="store_true")
    add(g, "--otlp-endpoint")
    add(g, "--event-bus-queue-size", int, 10000)
    add(g, "--prometheus-port", int, 9090)
    add(g, "--metrics-sample-rate", float, 0.01)
    add(g, "--lookup-hash-log-dir", default="")
    add(g, "--lookup-hash-log-rotation-interval", int, 21600)
    add(g, "--lookup-hash-log-rotation-max-size", int, 104857600)
    add(g, "--lookup-hash-log-max-files", int, 100)
    add(g, "--gc-monitor-min-pause-ms", float, 1.0)
    add(g, "--gc-monitor-top-objects", int, 0)
    add(g, "--extra-logging-interval", float, 10.0)
    add(g, "--trace-level", choices=["storage"])
    add(g, "--trace-output")

    g = p.add_argument_group("Coordinator")
    add(g, "--coordinator-url", default=os.environ.get("LMCACHE_COORDINATOR_URL"))
    add(g, "--coordinator-advertise-ip")
    add(g, "--coordinator-heartbeat-interval", float)
    g.add_argument("--coordinator-l2-event-reporting", action="store_true", default=None)
    add(g, "--coordinator-l2-event-flush-interval", float)
    return p


def root_parser():
    p = argparse.ArgumentParser(prog="lmcache",
                                description="LMCache \u2014 KV cache management for LLM serving")
    sub = p.add_subparsers(dest="command")
    server_parser(sub)
    return p


def check_config(ns):
    """LMCache's checks after parsing (its config builders raise ValueError)."""
    if ns.l1_manager:
        if ns.l1_size_gb is not None or ns.gds_l1_path or ns.l1_devdax_path:
            raise ValueError("--l1-manager cannot be combined with --l1-size-gb, "
                             "--gds-l1-path or --l1-devdax-path")
        for spec in ns.l1_manager:
            json.loads(spec)
    elif ns.l1_size_gb is None or ns.eviction_policy is None:
        raise ValueError("Legacy L1 configuration requires --l1-size-gb and --eviction-policy")
    reap = ns.worker_reap_timeout_seconds
    if reap != 0 and reap < 30:
        raise ValueError("worker_reap_timeout_seconds must be 0 (disabled) or >= 30, got %s"
                         % reap)
    if ns.worker_registration_grace_seconds < reap:
        raise ValueError("worker_registration_grace_seconds must be >= "
                         "worker_reap_timeout_seconds")
    json.loads(ns.runtime_plugin_config)
    for spec in ns.l2_adapter:
        obj = json.loads(spec)
        if not isinstance(obj, dict) or "type" not in obj:
            raise ValueError("L2 adapter spec must be a JSON object with a 'type' field: %s"
                             % spec)
    if ns.enable_tracing and not ns.otlp_endpoint:
        raise ValueError("--enable-tracing requires --otlp-endpoint")
    if ns.enable_extra_logging and ns.disable_observability:
        raise ValueError("--enable-extra-logging cannot be used with --disable-observability")
    if ns.extra_logging_interval <= 0:
        raise ValueError("--extra-logging-interval must be > 0")


# ---------------------------------------------------------------------------
# Logging

LOCK = threading.Lock()


def write_err(text):
    with LOCK:
        try:
            sys.stderr.write(text)
            sys.stderr.flush()
        except (BrokenPipeError, OSError):
            pass


def log(level, msg, where="server.py:483", name="__main__"):
    now = time.time()
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now)) \
        + ",%03d" % int((now % 1) * 1000)
    write_err("[%s] LMCache %s: %s (%s:%s)\n" % (stamp, level, msg, where, name))


def uvicorn(level, msg):
    write_err("%s:%s %s\n" % (level, " " * (8 - len(level)), msg))


# ---------------------------------------------------------------------------
# Server

class Health(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def reply(self, code, body, ctype="application/json", reason=""):
        data = body.encode()
        self.send_response(code)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        uvicorn("INFO", '%s:%d - "%s %s HTTP/1.1" %d %s' % (
            self.client_address[0], self.client_address[1], self.command, self.path, code,
            reason))

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/healthcheck":
            self.reply(200, '{"status":"healthy"}', reason="OK")
        elif path == "/":
            self.reply(200, '{"status":"ok","service":"LMCache HTTP API"}', reason="OK")
        elif path == "/metrics":
            self.reply(200, "# HELP lmcache_mp_registered_workers Registered GPU workers\n"
                       "# TYPE lmcache_mp_registered_workers gauge\n"
                       "lmcache_mp_registered_workers %d\n" % Rpc.registered,
                       ctype="text/plain; version=0.0.4; charset=utf-8", reason="OK")
        else:
            self.reply(404, '{"detail":"Not Found"}', reason="Not Found")


class Rpc:
    """The RPC port: accepts the stand-in clients' registration lines."""
    registered = 0

    def __init__(self, host, port):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((resolve(host), port))
        self.sock.listen(128)
        self.closed = False

    def serve(self):
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.client, args=(conn,), daemon=True).start()

    def client(self, conn):
        with conn:
            f = conn.makefile("rb")
            for raw in f:
                words = dict(w.split("=", 1) for w in raw.decode("ascii", "replace").split()
                             if "=" in w)
                if words.get("op") == "register":
                    Rpc.registered += 1
                    log("INFO", "Registered KV cache for GPU ID %s with %s layers"
                        % (words.get("gpu", "?"), words.get("layers", LAYERS)),
                        where="server.py:212")
                    conn.sendall(b"ok\n")

    def close(self):
        self.closed = True
        self.sock.close()


def resolve(host):
    if host == "localhost":
        return "127.0.0.1"
    if host in ("*", ""):
        return "0.0.0.0"
    return host


def run_server(ns):
    stop = {"sig": None}

    def on_signal(signum, frame):
        stop["sig"] = signum

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    log("INFO", "Starting LMCache HTTP server on http://%s:%d" % (ns.http_host, ns.http_port),
        where="http_server.py:160")
    uvicorn("INFO", "Started server process [%d]" % os.getpid())
    uvicorn("INFO", "Waiting for application startup.")
    log("INFO", "Starting LMCache HTTP server... (accelerator available: False)",
        where="http_server.py:88")
    delay = float(os.environ.get("FAKE_LMCACHE_START_DELAY", "0") or 0)
    end = time.monotonic() + delay
    while time.monotonic() < end and stop["sig"] is None:
        time.sleep(0.05)
    try:
        rpc = Rpc(ns.host, ns.port)
    except OSError as e:
        write_err("Traceback (most recent call last):\n"
                  '  File "lmcache/v1/multiprocess/mq.py", line 71, in __init__\n'
                  "    self.socket.bind(bind_url)\n"
                  "zmq.error.ZMQError: %s (addr='tcp://%s:%d')\n"
                  % ("Address already in use" if e.errno == 98 else e.strerror, ns.host,
                     ns.port))
        uvicorn("ERROR", "Application startup failed. Exiting.")
        return 0
    threading.Thread(target=rpc.serve, daemon=True).start()
    log("INFO", "LMCache zmq cache server is running on %s:%d" % (ns.host, ns.port))
    log("INFO", "LMCache cache server is running...")
    log("INFO", "LMCache HTTP server initialized", where="http_server.py:104")
    try:
        http = ThreadingHTTPServer((resolve(ns.http_host), ns.http_port), Health)
    except OSError as e:
        uvicorn("ERROR", "[Errno %d] error while attempting to bind on address ('%s', %d): %s"
                % (e.errno, ns.http_host, ns.http_port,
                   "address already in use" if e.errno == 98 else e.strerror.lower()))
        rpc.close()
        return 1
    http.daemon_threads = True
    threading.Thread(target=http.serve_forever, kwargs={"poll_interval": 0.1},
                     daemon=True).start()
    uvicorn("INFO", "Application startup complete.")
    uvicorn("INFO", "Uvicorn running on http://%s:%d (Press CTRL+C to quit)"
            % (ns.http_host, ns.http_port))
    while stop["sig"] is None:
        time.sleep(0.05)
    uvicorn("INFO", "Shutting down")
    http.shutdown()
    http.server_close()
    uvicorn("INFO", "Waiting for application shutdown.")
    log("INFO", "Shutting down LMCache HTTP server...", where="http_server.py:110")
    rpc.close()
    log("INFO", "LMCache HTTP server stopped", where="http_server.py:118")
    uvicorn("INFO", "Application shutdown complete.")
    uvicorn("INFO", "Finished server process [%d]" % os.getpid())
    if stop["sig"] == signal.SIGINT:
        return 130
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(5)
    return 143


def main(argv):
    if os.environ.get("LMCACHE_DISABLE_BANNER", "").lower() not in ("1", "true", "yes"):
        write_err("LMCache (stand-in, tests/fakes)\n")
    parser = root_parser()
    ns = parser.parse_args(argv)
    if ns.command is None:
        parser.print_help()
        return 1
    try:
        check_config(ns)
    except ValueError:
        write_err("[%s] LMCache ERROR: Command failed (main.py:43:lmcache.cli.main)\n"
                  % time.strftime("%Y-%m-%d %H:%M:%S,000"))
        write_err(traceback.format_exc())
        return 1
    if os.environ.get("FAKE_CHECK_ONLY", "") not in ("", "0"):
        sys.stdout.write(json.dumps(vars(ns), sort_keys=True) + "\n")
        return 0
    record(ns)
    return run_server(ns)


def record(ns):
    """One line in $FAKE_RECORD_DIR/lmcache.jsonl, in the engines' record
    format (fake_engine's record(): host, pid, argv, env, ...)."""
    import strict_engine
    strict_engine.FE.record(ns.port, ns.host, name="lmcache.jsonl",
                            extra={"prog": "lmcache server", "options": vars(ns)})


# ---------------------------------------------------------------------------
# Client: vLLM's LMCacheMPConnector

def mp_targets(kv):
    """(host, port) of every LMCacheMPConnector in a kv-transfer-config
    (a dict), MultiConnector members included, in order."""
    out = []
    if not isinstance(kv, dict):
        return out
    if kv.get("kv_connector") == "LMCacheMPConnector":
        extra = kv.get("kv_connector_extra_config") or {}
        urls = extra.get("lmcache.mp.server_urls")
        if isinstance(urls, str):
            urls = [u for u in urls.split(",") if u]
        if not urls:
            host = str(extra.get("lmcache.mp.host", "tcp://localhost"))
            urls = ["%s:%s" % (host, extra.get("lmcache.mp.port", DEFAULT_MP_PORT))]
        for url in urls:
            if not url.startswith("tcp://"):
                url = "tcp://" + url
            host, _, port = url[len("tcp://"):].rpartition(":")
            out.append((host, int(port)))
    if kv.get("kv_connector") == "MultiConnector":
        extra = kv.get("kv_connector_extra_config") or {}
        for member in extra.get("connectors") or []:
            out.extend(mp_targets(member))
    return out


class AttachError(Exception):
    pass


def attach(kv, stop, say):
    """Connect to and register with every LMCache server the config names;
    retry while the server is not up (ZMQ reconnects), up to the
    connector's lmcache.mp.mq_timeout (300 s).  Returns the open sockets
    (kept for the worker's life); raises AttachError on the timeout."""
    socks = []
    for host, port in mp_targets(kv):
        timeout = float(((kv.get("kv_connector_extra_config") or {})
                         .get("lmcache.mp.mq_timeout", 300.0)))
        timeout = float(os.environ.get("FAKE_LMCACHE_MQ_TIMEOUT", timeout))
        end = time.monotonic() + timeout
        while True:
            try:
                s = socket.create_connection((resolve(host), port), timeout=2)
                break
            except OSError:
                if stop.is_set():
                    return socks
                if time.monotonic() >= end:
                    raise AttachError("TimeoutError: LMCache MP server at tcp://%s:%d did not "
                                      "answer within %.0f s" % (host, port, timeout))
                time.sleep(0.1)
        s.sendall(("op=register gpu=%d layers=%d\n" % (os.getpid(), LAYERS)).encode())
        if s.makefile("rb").readline().strip() != b"ok":
            raise AttachError("LMCache MP server at tcp://%s:%d refused the registration"
                              % (host, port))
        say("LMCache INFO: Registering kv caches! (lmcache_mp_connector.py:405)")
        socks.append(s)
    return socks
