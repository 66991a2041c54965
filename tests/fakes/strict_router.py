"""Runtime of the router stand-ins (tests/fakes/sglang_router,
tests/fakes/vllm-router; see README.md).

A router knows its workers from the command line: prefill URLs (each with
an optional bootstrap port) and decode URLs in PD mode, plain worker URLs
otherwise.  A poller asks each worker's health endpoint every
$FAKE_ROUTER_POLL_SECONDS (0.5; the real default interval, 60 s, would make
tests slow) and only workers that answered 200 count and get traffic.

HTTP surface:
- GET /health: 200 once the router serves.
- GET /workers: {"workers": [...], "total": n, "stats": {"prefill_count",
  "decode_count", "regular_count"}}, counting healthy workers only: the
  shape srt-slurm's readiness gate reads.
- GET /v1/models: the first healthy decode (or regular) worker's answer.
- POST /v1/completions, /v1/chat/completions, /generate: forwarded.  The
  SGLang router sends the request to one prefill and one decode at once,
  with bootstrap_host/bootstrap_port/bootstrap_room added, and returns the
  decode's answer.  vllm-router sends it to a prefill first (with
  kv_transfer_params asking for a remote decode), then to a decode with the
  kv_transfer_params the prefill returned.  trtllm-serve's disaggregated
  server (strict_trtllm.py) sends a context server the request marked
  disaggregated_params {"request_type": "context_only"}, then a generation
  server the same request with the context answer's disaggregated_params
  marked generation_only.  Workers are taken round-robin.
  Streaming is not imitated: the answer is always one JSON body.

Python 3 standard library only.
"""

import http.client
import json
import os
import random
import socket
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler

import strict_cli
from strict_engine import FE, check_only, print_options, say


class Workers:
    """The worker list with health state and round-robin cursors."""

    def __init__(self, prefill, decode, regular, endpoint):
        self.entries = ([{"url": u, "worker_type": "prefill", "bootstrap_port": p}
                         for u, p in prefill]
                        + [{"url": u, "worker_type": "decode"} for u in decode]
                        + [{"url": u, "worker_type": "regular"} for u in regular])
        for e in self.entries:
            e["is_healthy"] = False
        self.endpoint = endpoint
        self.lock = threading.Lock()
        self.cursor = {}

    def poll(self, stop, period):
        while not stop.is_set():
            for e in self.entries:
                ok = http_status(e["url"].rstrip("/") + self.endpoint) == 200
                with self.lock:
                    e["is_healthy"] = ok
            stop.wait(period)

    def healthy(self, kind):
        with self.lock:
            return [e for e in self.entries if e["worker_type"] == kind and e["is_healthy"]]

    def pick(self, kind):
        pool = self.healthy(kind)
        if not pool:
            return None
        with self.lock:
            i = self.cursor.get(kind, 0)
            self.cursor[kind] = i + 1
        return pool[i % len(pool)]

    def report(self):
        with self.lock:
            listed = [dict(e) for e in self.entries]
        stats = {k + "_count": sum(1 for e in listed if e["worker_type"] == k and e["is_healthy"])
                 for k in ("prefill", "decode", "regular")}
        return {"workers": listed, "total": len(listed), "stats": stats}


def http_status(url, timeout=2.0):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, ValueError):
        return None


def post(url, body, request_id, timeout=30.0):
    """POST JSON; (status, decoded body or text) -- never raises."""
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json",
                                          "X-Request-Id": request_id})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, data = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, data = e.code, e.read()
    except (OSError, ValueError) as e:
        return 502, {"error": "worker %s unreachable: %s" % (url, e)}
    try:
        return status, json.loads(data)
    except ValueError:
        return status, {"error": data.decode("utf-8", "replace")}


STREAM_TIMEOUT = 600.0     # seconds a streaming worker may stay silent


def open_stream(url, body, request_id):
    """POST JSON and read the answer's head: (status, response, connection)
    with the body unread, or (502, error dict, None)."""
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=STREAM_TIMEOUT)
    try:
        conn.request("POST", u.path or "/", body=json.dumps(body).encode(),
                     headers={"Content-Type": "application/json", "X-Request-Id": request_id})
        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        resp = conn.getresponse()
    except (OSError, http.client.HTTPException) as e:
        conn.close()
        return 502, {"error": "worker %s unreachable: %s" % (url, e)}, None
    return resp.status, resp, conn


def read_event(resp):
    """The next server-sent event (its lines up to the blank one), b''
    at the end of the stream."""
    lines = []
    while True:
        line = resp.readline()
        if not line:
            return b"".join(lines)
        lines.append(line)
        if line in (b"\n", b"\r\n"):
            return b"".join(lines)


class Router(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    workers = None
    flavour = "sglang"      # or "vllm": how a PD request is split
    pd = False              # PD mode (else requests go to regular workers)

    def log_message(self, fmt, *args):
        pass

    def reply(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        p = self.path.split("?", 1)[0]
        if p in ("/health", "/liveness", "/readiness"):
            return self.reply(200, {"status": "ok"})
        if p == "/workers":
            return self.reply(200, self.workers.report())
        if p == "/v1/models":
            w = self.workers.pick("decode") or self.workers.pick("regular")
            if w is None:
                return self.reply(503, {"error": "no healthy worker"})
            try:
                with urllib.request.urlopen(w["url"].rstrip("/") + p, timeout=5) as r:
                    return self.reply(r.status, json.loads(r.read()))
            except (OSError, ValueError) as e:
                return self.reply(502, {"error": str(e)})
        return self.reply(404, {"error": "not found"})

    def do_POST(self):
        p = self.path.split("?", 1)[0]
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b"{}"
        if p not in ("/generate", "/v1/completions", "/v1/chat/completions"):
            return self.reply(404, {"error": "not found"})
        try:
            body = json.loads(raw)
            assert isinstance(body, dict)
        except (ValueError, AssertionError):
            return self.reply(400, {"error": "request body is not a JSON object"})
        rid = self.headers.get("X-Request-Id") or "req-" + uuid.uuid4().hex
        if body.get("stream") is True:
            return self.stream(p, body, rid)
        if self.pd:
            status, out = PD_SPLIT[self.flavour][0](self.workers, p, body, rid)
        else:
            w = self.workers.pick("regular")
            status, out = (503, {"error": "no healthy worker"}) if w is None else \
                post(w["url"].rstrip("/") + p, body, rid)
        return self.reply(status, out)


    def stream(self, path, body, rid):
        if not self.pd:
            w = self.workers.pick("regular")
            if w is None:
                return self.reply(503, {"error": "no healthy worker"})
            got = open_stream(w["url"].rstrip("/") + path, body, rid)
        else:
            got = PD_SPLIT[self.flavour][1](self.workers, path, body, rid)
        return self.deliver(*got)

    def deliver(self, status, resp, conn):
        """Answer with what a stream opener returned: an error as JSON
        (conn None), else the worker's answer relayed, then conn closed."""
        if conn is None:
            return self.reply(status, resp)
        try:
            self.relay(resp)
        finally:
            conn.close()
        return None

    def relay(self, resp):
        """Pass a worker's answer on: JSON as JSON, an event stream event by
        event as it arrives."""
        if resp.status != 200 or not (resp.getheader("Content-Type") or "").startswith(
                "text/event-stream"):
            data = resp.read()
            try:
                out = json.loads(data)
            except ValueError:
                out = {"error": data.decode("utf-8", "replace")}
            return self.reply(resp.status, out)
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.send_response(200)
        self.send_header("Content-Type", resp.getheader("Content-Type"))
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            while True:
                ev = read_event(resp)
                if not ev:
                    break
                self.wfile.write(b"%x\r\n%s\r\n" % (len(ev), ev))
            self.wfile.write(b"0\r\n\r\n")
        except (OSError, http.client.HTTPException):
            self.close_connection = True     # either side went away


NO_PAIR = (503, {"error": "PD mode needs a healthy prefill and a healthy decode worker"})


def with_bootstrap(body, pf):
    """The body a SGLang router sends to both halves of a PD pair."""
    return dict(body, bootstrap_host=urllib.parse.urlsplit(pf["url"]).hostname,
                bootstrap_port=pf["bootstrap_port"], bootstrap_room=random.getrandbits(63))


def vllm_prefill_body(body):
    """The body vllm-router sends to the prefill: one token, not streamed,
    the KV cache left for a remote decode."""
    first = dict(body, max_tokens=1, stream=False,
                 kv_transfer_params={"do_remote_decode": True, "do_remote_prefill": False,
                                     "remote_engine_id": None, "remote_block_ids": None,
                                     "remote_host": None, "remote_port": None})
    first.pop("stream_options", None)
    return first


def pd_sglang(workers, path, body, rid):
    """One prefill and one decode at once, bootstrap fields added; the
    decode's answer is the router's."""
    pf, dc = workers.pick("prefill"), workers.pick("decode")
    if pf is None or dc is None:
        return NO_PAIR
    body = with_bootstrap(body, pf)
    result = {}

    def send(key, w):
        result[key] = post(w["url"].rstrip("/") + path, body, rid)

    threads = [threading.Thread(target=send, args=k) for k in (("p", pf), ("d", dc))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if result["p"][0] != 200:
        return 502, {"error": "prefill %s answered %s" % (pf["url"], result["p"][0]),
                     "detail": result["p"][1]}
    return result["d"]


def pd_vllm(workers, path, body, rid):
    """Prefill first (asked to leave the KV cache for a remote decode), then
    decode with the prefill's kv_transfer_params."""
    pf, dc = workers.pick("prefill"), workers.pick("decode")
    if pf is None or dc is None:
        return NO_PAIR
    st, out = post(pf["url"].rstrip("/") + path, vllm_prefill_body(body), rid)
    if st != 200:
        return 502, {"error": "prefill %s answered %s" % (pf["url"], st), "detail": out}
    second = dict(body, kv_transfer_params=out.get("kv_transfer_params") or {})
    return post(dc["url"].rstrip("/") + path, second, rid)


def pd_sglang_stream(workers, path, body, rid):
    """The streaming form of pd_sglang: prefill and decode at once; the
    prefill's answer is read and dropped, the decode's is relayed (its
    first event comes once the prefill handed the KV cache over).
    (status, response, connection) as open_stream."""
    pf, dc = workers.pick("prefill"), workers.pick("decode")
    if pf is None or dc is None:
        return NO_PAIR + (None,)
    body = with_bootstrap(body, pf)
    lock, got = threading.Lock(), {}

    def prefill():
        got["p"] = post(pf["url"].rstrip("/") + path, body, rid, timeout=STREAM_TIMEOUT)

    def decode():
        d = open_stream(dc["url"].rstrip("/") + path, body, rid)
        with lock:
            got["d"] = d
            abandoned = got.get("abandoned")
        if abandoned and d[2] is not None:
            d[2].close()

    tp = threading.Thread(target=prefill, daemon=True)
    td = threading.Thread(target=decode, daemon=True)
    tp.start()
    td.start()
    tp.join()
    if got["p"][0] != 200:
        with lock:
            got["abandoned"] = True
            d = got.get("d")
        if d is not None and d[2] is not None:
            d[2].close()
        return 502, {"error": "prefill %s answered %s" % (pf["url"], got["p"][0]),
                     "detail": got["p"][1]}, None
    td.join()
    return got["d"]


def pd_vllm_stream(workers, path, body, rid):
    """The streaming form of pd_vllm: the prefill as there (not
    streamed), then the decode's stream."""
    pf, dc = workers.pick("prefill"), workers.pick("decode")
    if pf is None or dc is None:
        return NO_PAIR + (None,)
    st, out = post(pf["url"].rstrip("/") + path, vllm_prefill_body(body), rid,
                   timeout=STREAM_TIMEOUT)
    if st != 200:
        return 502, {"error": "prefill %s answered %s" % (pf["url"], st), "detail": out}, None
    second = dict(body, kv_transfer_params=out.get("kv_transfer_params") or {})
    return open_stream(dc["url"].rstrip("/") + path, second, rid)


def trtllm_context_body(body):
    """What trtllm-serve's disaggregated server sends a context server: the
    client's request, not streamed, marked context_only."""
    first = dict(body, stream=False, disaggregated_params={"request_type": "context_only"})
    first.pop("stream_options", None)
    return first


def trtllm_generation_body(body, out):
    """The generation request: the client's, with the context server's
    disaggregated_params (from its first choice) marked generation_only."""
    choices = out.get("choices") if isinstance(out, dict) else None
    dp = dict((choices[0].get("disaggregated_params") or {}) if choices else {},
              request_type="generation_only")
    return dict(body, disaggregated_params=dp)


def pd_trtllm(workers, path, body, rid):
    """trtllm-serve disaggregated (context_first): a context server first,
    then a generation server with its disaggregated_params."""
    pf, dc = workers.pick("prefill"), workers.pick("decode")
    if pf is None or dc is None:
        return NO_PAIR
    st, out = post(pf["url"].rstrip("/") + path, trtllm_context_body(body), rid)
    if st != 200:
        return 502, {"error": "context server %s answered %s" % (pf["url"], st), "detail": out}
    return post(dc["url"].rstrip("/") + path, trtllm_generation_body(body, out), rid)


def pd_trtllm_stream(workers, path, body, rid):
    pf, dc = workers.pick("prefill"), workers.pick("decode")
    if pf is None or dc is None:
        return NO_PAIR + (None,)
    st, out = post(pf["url"].rstrip("/") + path, trtllm_context_body(body), rid,
                   timeout=STREAM_TIMEOUT)
    if st != 200:
        return 502, {"error": "context server %s answered %s" % (pf["url"], st),
                     "detail": out}, None
    return open_stream(dc["url"].rstrip("/") + path, trtllm_generation_body(body, out), rid)


# flavour -> (split, streaming split) of a PD request
PD_SPLIT = {"sglang": (pd_sglang, pd_sglang_stream), "vllm": (pd_vllm, pd_vllm_stream),
            "trtllm": (pd_trtllm, pd_trtllm_stream)}


# ---------------------------------------------------------------------------

def sglang_workers(ns):
    """(prefill [(url, port|None)], decode [url], regular [url]) from the
    SGLang router's options, as its _parse_prefill_urls reads them."""
    if not ns["pd_disaggregation"]:
        return [], [], list(ns["worker_urls"] or [])
    prefill = []
    for item in ns["prefill"] or []:
        port = None
        if len(item) > 1 and item[1].lower() != "none":
            try:
                port = int(item[1])
            except ValueError:
                raise SystemExit("ValueError: invalid bootstrap port %r for prefill %s"
                                 % (item[1], item[0]))
        prefill.append((item[0], port))
    decode = [d[0] for d in ns["decode"] or []]
    if not ns["service_discovery"] and (not prefill or not decode):
        raise SystemExit("ValueError: PD disaggregation mode requires at least one --prefill "
                         "and one --decode URL (or service discovery)")
    return prefill, decode, []


def vllm_workers(ns):
    if not ns["vllm_pd_disaggregation"]:
        return [], [], list(ns["worker_urls"] or [])
    prefill, decode = ns["prefill"], list(ns["decode"] or [])
    if not ns["service_discovery"] and not ns["vllm_discovery_address"] \
            and (not prefill or not decode):
        raise SystemExit("Error: PD mode needs --prefill and --decode URLs, "
                         "--vllm-discovery-address, or service discovery")
    return prefill, decode, []


def serve(prog, flavour, ns, lists):
    if check_only():
        print_options(ns)
        return 0
    stop = FE.SignalFlag()
    FE.signal.signal(FE.signal.SIGTERM, lambda s, f: stop.set())
    FE.signal.signal(FE.signal.SIGINT, lambda s, f: stop.set())
    prefill, decode, regular = lists
    FE.record(ns["port"], ns["host"], name="router.jsonl", extra={
        "prog": prog, "options": ns, "prefill": [list(p) for p in prefill],
        "decode": decode, "regular": regular})
    workers = Workers(prefill, decode, regular, ns["health_check_endpoint"] or "/health")
    Router.workers, Router.flavour, Router.pd = workers, flavour, bool(prefill or decode)
    # every address of the node: in loopback tests ($FAKE_BIND_HOST) that node's address
    host = os.environ.get("FAKE_BIND_HOST") if ns["host"] == "0.0.0.0" else None
    host = host or ns["host"]
    try:
        srv = FE.Server((host, ns["port"]), Router)
    except OSError as e:
        say("ERROR: failed to bind %s:%d: %s" % (ns["host"], ns["port"], e.strerror))
        return 1
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05},
                     daemon=True).start()
    threading.Thread(target=workers.poll,
                     args=(stop, FE.env_float("FAKE_ROUTER_POLL_SECONDS", 0.5)),
                     daemon=True).start()
    say("%s: pid %d on %s, %d prefill, %d decode, %d regular workers; listening on %s:%d"
        % (prog, os.getpid(), socket.gethostname(), len(prefill), len(decode), len(regular),
           ns["host"], ns["port"]))
    stop.wait()
    say("Received signal, shutting down")
    srv.shutdown()
    srv.server_close()
    return 0


def start(prog, flavour, ns, workers_of):
    try:
        lists = workers_of(ns)
    except SystemExit as e:
        sys.stderr.write("%s\n" % e)
        return 1
    return serve(prog, flavour, ns, lists)


def main_sglang(args):
    # run as `python3 -m sglang_router.launch_router`, argparse names the
    # program after the module's file
    ns = strict_cli.parse_argparse("sglang-router", "launch_router.py", args)
    return start("sglang_router.launch_router", "sglang", ns, sglang_workers)


def main_vllm(args):
    ns = strict_cli.parse_clap("vllm-router", "vllm-router", args)
    return start("vllm-router", "vllm", ns, vllm_workers)
