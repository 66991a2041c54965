"""Runtime of the strict engine stand-ins (tests/fakes/sglang_launch_server,
tests/fakes/vllm; see README.md).

After the command line parsed (strict_cli), an engine checks what a real
one would find wrong before it ever touched a GPU, then starts as the real
one does:

- the model path exists (a path starting with '/' is looked up through the
  container mounts in $FAKE_CONTAINER_MOUNTS, pyxis style "host:ctr,...");
- 0 <= node rank < nnodes, and for SGLang (tp * pp) % nnodes == 0;
- a multi-node SGLang worker names --dist-init-addr HOST:PORT; rank 0
  listens there (as torch's TCP store does) and every rank waits until all
  nnodes ranks have joined, the followers retrying the connection for
  $FAKE_DIST_INIT_TIMEOUT seconds (30) before failing as a torch init does;
- a SGLang prefill leader listens on its bootstrap port; a decode worker
  answers a request only when the bootstrap server the request names
  accepts a connection;
- SGLang ranks > 0 and vLLM --headless processes serve no HTTP.

A streaming completion ("stream": true) is answered as the real servers
stream it, one server-sent event per output token, timed by the
performance model of perfmodel.py: the prompt's prefill, then one decode
step per token, slower with more requests in flight, faster with more TP.
A SGLang decode worker starts only once the prefill worker named by the
request's bootstrap fields finished that request's prefill (it asks that
worker's bootstrap server), as a real one waits for the KV cache.
Answers without "stream" are one JSON body, as before.

A `vllm serve` whose --kv-transfer-config names TileRT's TileRTConnector
(tilert.pd_vllm.prefill_connector) checks the connector's configuration at
start and, for each request whose kv_transfer_params name tilert_host, hands
the prompt's KV to that TileRT decode node's control plane after the prefill
(tilert_decode_server holds both ends).  Requests asking for logprobs get
vLLM's logprobs of the answer token ("token_id:N" with
--return-tokens-as-token-ids).

The process record (fake_engine's, plus "options": dest -> value and a few
derived fields) is written once the checks pass.  Each completion request
a worker answers is appended to requests.jsonl in the record directory.

Python 3 standard library only.
"""

import importlib.machinery
import importlib.util
import itertools
import json
import os
import socket
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import perfmodel  # noqa: E402


def load_fake_engine():
    """fake_engine (no .py suffix) as a module: the strict stand-ins share
    its record, signal and Mooncake code."""
    path = os.path.join(HERE, "fake_engine")
    loader = importlib.machinery.SourceFileLoader("fake_engine", path)
    spec = importlib.util.spec_from_loader("fake_engine", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


FE = load_fake_engine()
say = FE.say
FATAL = []      # set by a request that kills the engine: [exit status]


def load_tilert():
    """tests/fakes/tilert_decode_server as a module: both ends of TileRT's
    control plane, for vLLM's TileRTConnector."""
    mod = sys.modules.get("tilert_decode_server")
    if mod is None:
        path = os.path.join(HERE, "tilert_decode_server")
        loader = importlib.machinery.SourceFileLoader("tilert_decode_server", path)
        mod = importlib.util.module_from_spec(importlib.util.spec_from_loader(
            "tilert_decode_server", loader))
        sys.modules["tilert_decode_server"] = mod
        loader.exec_module(mod)
    return mod


def fake_token_id(text):
    """A stable fake token id for a piece of text (a ~150k vocabulary)."""
    return 1000 + zlib.crc32(text.encode("utf-8", "surrogateescape")) % 150000


def prompt_text(body):
    """The prompt of a completion or chat request, as one string."""
    if "messages" in body:
        parts = []
        for m in body.get("messages") or []:
            c = m.get("content") if isinstance(m, dict) else None
            parts.append(c if isinstance(c, str) else json.dumps(c))
        return "\n".join(parts)
    p = body.get("prompt", body.get("text", ""))
    return p if isinstance(p, str) else json.dumps(p)


class Refusal(Exception):
    """A startup check failed: print the message, exit with `code`."""

    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code


# ---------------------------------------------------------------------------
# Static checks (no network)

def container_mounts():
    """[(container_path, host_path)] from $FAKE_CONTAINER_MOUNTS, longest
    container path first so the most specific mount wins."""
    out = []
    for item in os.environ.get("FAKE_CONTAINER_MOUNTS", "").split(","):
        parts = item.strip().split(":")
        if len(parts) >= 2 and parts[0] and parts[1]:
            out.append((parts[1].rstrip("/") or "/", parts[0]))
    return sorted(out, key=lambda m: -len(m[0]))


def host_path(path):
    """Where a path seen inside the container lives on the host."""
    for ctr, host in container_mounts():
        if path == ctr or path.startswith(ctr + "/"):
            return host + path[len(ctr):]
    return path


def check_model(path):
    """A local model path must exist; anything else is a hub id."""
    if not path or not path.startswith("/"):
        return
    hp = host_path(path)
    if not os.path.exists(hp):
        where = "" if hp == path else " (host path %s)" % hp
        raise Refusal("OSError: model path %s does not exist%s; the real engine would read "
                      "its config.json there" % (path, where))


def check_ranks(nnodes, rank):
    if nnodes is None or nnodes < 1:
        raise Refusal("ValueError: --nnodes must be at least 1, got %s" % nnodes)
    if rank is None or not 0 <= rank < nnodes:
        raise Refusal("ValueError: --node-rank %s is outside [0, %d) for --nnodes %d"
                      % (rank, nnodes, nnodes))


def parse_hostport(flag, text):
    """(host, port) from HOST:PORT or [V6]:PORT, else a Refusal."""
    host, port = None, ""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, port = text.split(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise Refusal("ValueError: %s %r is not HOST:PORT" % (flag, text))
    return host, int(port)


# ---------------------------------------------------------------------------
# Multi-node rendezvous: what torch.distributed's TCP store gives a group

def bind_host():
    """The implicit listen address: all interfaces, or $FAKE_BIND_HOST."""
    return os.environ.get("FAKE_BIND_HOST") or "0.0.0.0"


class Rendezvous:
    """Rank 0 listens on the dist-init port; every other rank connects and
    says its rank; rank 0 answers "ok" to all once nnodes ranks are in.
    Afterwards each side watches its connections: a lost peer ends the
    group, as an NCCL watchdog would."""

    def __init__(self, host, port, nnodes, rank, timeout, stop):
        self.host, self.port, self.nnodes, self.rank = host, port, nnodes, rank
        self.timeout, self.stop = timeout, stop
        self.peers = []
        self.lost = FE.SignalFlag()

    def run(self):
        if self.rank == 0:
            self.lead()
        else:
            self.follow()
        for s in self.peers:
            threading.Thread(target=self.watch, args=(s,), daemon=True).start()

    def lead(self):
        lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            lsock.bind((bind_host(), self.port))
        except OSError as e:
            raise Refusal("torch.distributed.DistNetworkError: The server socket has failed "
                          "to listen on any local network address. port: %d, %s"
                          % (self.port, e.strerror))
        lsock.listen(64)
        lsock.settimeout(0.2)
        joined = {}
        deadline = time.monotonic() + self.timeout
        say("dist init: waiting for %d ranks on port %d" % (self.nnodes - 1, self.port))
        while len(joined) < self.nnodes - 1:
            if self.stop.is_set():
                return
            if time.monotonic() > deadline:
                raise Refusal("torch.distributed.DistStoreError: Timed out after %d seconds "
                              "waiting for clients. %d/%d clients joined."
                              % (self.timeout, len(joined) + 1, self.nnodes))
            try:
                conn, _ = lsock.accept()
            except socket.timeout:
                continue
            rank = self.read_rank(conn)
            if rank is None or rank in joined or not 0 < rank < self.nnodes:
                conn.close()
                continue
            joined[rank] = conn
        lsock.close()
        for conn in joined.values():
            conn.sendall(b"ok\n")
        self.peers = list(joined.values())
        say("dist init: all %d ranks joined" % self.nnodes)

    @staticmethod
    def read_rank(conn):
        conn.settimeout(5)
        try:
            line = conn.makefile("rb").readline(64).decode("ascii", "replace").split()
            return int(line[1]) if len(line) == 2 and line[0] == "rank" else None
        except (OSError, ValueError):
            return None

    def follow(self):
        deadline = time.monotonic() + self.timeout
        attempt = 0
        while True:
            attempt += 1
            try:
                s = socket.create_connection((self.host, self.port), timeout=1.0)
                break
            except OSError as e:
                err = e
            if time.monotonic() > deadline:
                raise Refusal("torch.distributed.DistNetworkError: failed to connect to "
                              "%s:%d after %d attempts over %d s: %s"
                              % (self.host, self.port, attempt, self.timeout, err))
            if self.stop.wait(0.5):
                return
        s.sendall(b"rank %d\n" % self.rank)
        s.settimeout(max(1.0, deadline - time.monotonic()))
        try:
            ok = s.makefile("rb").readline(16)
        except OSError:
            ok = b""
        if ok != b"ok\n":
            raise Refusal("torch.distributed.DistStoreError: rank %d: the group on %s:%d "
                          "did not complete" % (self.rank, self.host, self.port))
        s.settimeout(None)
        self.peers = [s]
        say("dist init: rank %d joined %s:%d" % (self.rank, self.host, self.port))

    def watch(self, s):
        try:
            while s.recv(64):
                pass
        except OSError:
            pass
        self.lost.set()


# ---------------------------------------------------------------------------
# HTTP: the worker's API and the SGLang prefill bootstrap server

class Worker(FE.Handler):
    """fake_engine's handler with the strict worker's model names and a
    record of every completion request it answers."""

    info = {}       # set once by serve(): model names, role, ports

    def do_GET(self):
        p = self.path.split("?", 1)[0]
        if p == "/v1/models":
            return self.reply(200, {"object": "list", "data": [
                {"id": n, "object": "model", "owned_by": self.info["owner"],
                 "root": self.info["model"]} for n in self.info["served"]]})
        if p == "/get_model_info":
            return self.reply(200, {"model_path": self.info["model"], "is_generation": True})
        if p in ("/get_server_info", "/server_info"):
            return self.reply(200, self.info["options"])
        return super().do_GET()

    def do_POST(self):
        p = self.path.split("?", 1)[0]
        if p not in ("/generate", "/v1/completions", "/v1/chat/completions"):
            return super().do_POST()
        n = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(n) or b"{}")
        except ValueError:
            return self.reply(400, {"error": "request body is not JSON"})
        if not isinstance(body, dict):
            return self.reply(400, {"error": "request body is not a JSON object"})
        problem = self.pd_problem(body)
        self.note(p, body, problem)
        if problem:
            return self.reply(problem[0], {"error": problem[1]})
        tilert = self.info.get("tilert")
        if tilert is not None and p != "/generate" and tilert.claim(body) is not None:
            return self.tilert_prefill(p, body, tilert)
        if body.get("stream") is True:
            return self.stream(p, body)
        if self.prefill_only(body):
            # a PD prefill takes its time (the router waits for it) and
            # hands the KV cache over; the answer is the same JSON body
            LOAD.enter()
            try:
                perfmodel.sleep_until(LOAD.prefill_end(perfmodel.prompt_tokens(body)))
            finally:
                LOAD.leave()
            ROOMS.done(body.get("bootstrap_room"))
        return self.reply(200, self.answer(p, body))

    def tilert_prefill(self, path, body, conn):
        """A request vLLM's TileRTConnector claims (kv_transfer_params names
        tilert_host): the prefill, then the connector hands the prompt's KV
        to that decode node's control plane from its sender thread
        (tilert_decode_server.PrefillConnector); the answer is vLLM's."""
        chat = path.endswith("chat/completions")
        resp_id = ("chatcmpl-" if chat else "cmpl-") + uuid.uuid4().hex
        req_id = resp_id + ("" if chat else "-0") + "-" + uuid.uuid4().hex[:8]
        n_prompt = perfmodel.prompt_tokens(body)
        words = prompt_text(body).split()
        last = fake_token_id(words[-1]) if words else 0
        if body.get("stream") is not True:
            LOAD.enter()
            try:
                perfmodel.sleep_until(LOAD.prefill_end(n_prompt))
            finally:
                LOAD.leave()
        try:
            conn.submit(req_id, n_prompt, last, conn.claim(body))
        except load_tilert().FatalEngineError as e:
            say("ERROR: EngineCore encountered a fatal error.\nTraceback (most recent call "
                "last):\n  File \"tilert/pd_vllm/prefill_connector.py\", in wait_for_save\n%s"
                % e)
            FATAL.append(1)
            return self.reply(500, {"error": "EngineCore encountered an issue. See stack trace "
                                             "(above) for the root cause."})
        if body.get("stream") is True:
            return self.stream(path, body)
        out = self.answer(path, body)
        out["id"] = resp_id
        out["usage"] = {"prompt_tokens": n_prompt, "completion_tokens": 1,
                        "total_tokens": n_prompt + 1}
        return self.reply(200, out)

    def logprobs(self, path, body):
        """vLLM's logprobs of the one answer token, when the request asks
        for them; with --return-tokens-as-token-ids a token is named
        "token_id:N"."""
        chat = path.endswith("chat/completions")
        asked = body.get("logprobs")
        if self.info["engine"] != "vllm" or asked in (None, False) or (chat and asked is not True):
            return None
        tid = fake_token_id(prompt_text(body))
        tok = "token_id:%d" % tid if self.info["options"].get("return_tokens_as_token_ids") \
            else "ok"
        lp = -0.125

        def alt(k):     # the k-th most likely token (0: the one sampled)
            if k == 0:
                return tok
            return "token_id:%d" % (tid + k) if tok != "ok" else "tok%d" % k
        if chat:
            alts = [{"token": alt(k), "logprob": lp - k, "bytes": list(alt(k).encode())}
                    for k in range(body.get("top_logprobs") or 0)]
            return {"content": [{"token": tok, "logprob": lp, "bytes": list(tok.encode()),
                                 "top_logprobs": alts}]}
        top = {alt(k): lp - k for k in range(max(1, asked if isinstance(asked, int) else 1))}
        return {"text_offset": [0], "token_logprobs": [lp], "tokens": [tok],
                "top_logprobs": [top]}

    def prefill_only(self, body):
        """Is this request the prefill half of a PD pair?"""
        if self.info["engine"] == "sglang":
            return self.info["role"] == "prefill"
        if self.info["engine"] == "trtllm":
            return trtllm_request_type(body) == "context_only"
        kv = body.get("kv_transfer_params")
        return isinstance(kv, dict) and kv.get("do_remote_decode") is True

    # -- streaming ---------------------------------------------------------

    def stream(self, path, body):
        """Answer a streaming request: one event per output token, timed
        by the performance model, then usage (when asked) and [DONE]."""
        n_prompt, n_out = perfmodel.prompt_tokens(body), perfmodel.max_tokens(body)
        role, sglang = self.info["role"], self.info["engine"] == "sglang"
        key = object()
        if sglang and role == "decode":
            # the first token comes with the KV cache, once the prefill is done
            err = wait_kv(body)
            if err:
                return self.reply(500, {"error": err})
            first = time.monotonic() + LOAD.kv_delay(n_prompt)
            LOAD.enter()
        elif not sglang and isinstance(body.get("kv_transfer_params"), dict) \
                and body["kv_transfer_params"].get("do_remote_prefill") \
                or trtllm_request_type(body) == "generation_only":
            first = time.monotonic() + LOAD.kv_delay(n_prompt)   # the router prefilled first
            LOAD.enter()
        else:
            LOAD.enter()
            first = LOAD.prefill_end(n_prompt)
        if sglang and role == "prefill":
            n_out = min(n_out, 1)   # the prefill makes the first token; decode streams them all
        try:
            self.start_stream()
            chunks = Chunks(path, body, self.info["served"][0], n_prompt, n_out)
            perfmodel.sleep_until(first)
            if sglang and role == "prefill":
                ROOMS.done(body.get("bootstrap_room"))
            deadline = first
            for i in range(n_out):
                if i:
                    deadline += LOAD.step()
                    perfmodel.sleep_until(deadline)
                self.event(chunks.token(i))
                LOAD.hold(key, n_prompt + i + 1)
            if chunks.usage_chunk():
                self.event(chunks.usage_chunk())
            self.event(None)
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            self.close_connection = True     # the client went away
        finally:
            LOAD.leave(key)

    def start_stream(self):
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def event(self, obj):
        """One server-sent event (data: JSON, or data: [DONE] for None) as
        one HTTP chunk in one write."""
        data = ("data: %s\n\n" % ("[DONE]" if obj is None else json.dumps(obj))).encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def pd_problem(self, body):
        """(status, message) when a PD worker could not serve this request."""
        if self.info["engine"] == "trtllm":
            return trtllm_problem(body)
        role = self.info["role"]
        if self.info["engine"] != "sglang" or role not in ("prefill", "decode"):
            return None
        if body.get("bootstrap_room") is None or not body.get("bootstrap_host"):
            return (400, "%s server needs bootstrap_host and bootstrap_room (sent by the "
                    "router)" % role)
        if role == "decode":
            port = body.get("bootstrap_port") or 8998
            try:
                socket.create_connection((body["bootstrap_host"], int(port)), timeout=2).close()
            except (OSError, ValueError) as e:
                return (500, "KV transfer failed: bootstrap server %s:%s unreachable: %s"
                        % (body["bootstrap_host"], port, e))
        return None

    def answer(self, path, body):
        if path == "/generate":
            return {"text": "ok", "meta_info": {"completion_tokens": 1}}
        choice = {"index": 0, "finish_reason": "stop"}
        if path.endswith("chat/completions"):
            choice["message"] = {"role": "assistant", "content": "ok"}
        else:
            choice["text"] = "ok"
        lp = self.logprobs(path, body)
        if lp is not None:
            choice["logprobs"] = lp
        out = {"id": "cmpl-%d" % os.getpid(), "object": "completion",
               "model": body.get("model") or self.info["served"][0], "choices": [choice],
               "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
        if self.info["engine"] == "trtllm" and trtllm_request_type(body) == "context_only":
            # a TRT-LLM context server hands the generation server its params
            choice["disaggregated_params"] = {
                "request_type": "context_only", "first_gen_tokens": [0],
                "ctx_request_id": next(CTX_IDS), "encoded_opaque_state": None,
                "draft_tokens": None}
        kv = body.get("kv_transfer_params")
        if self.info["engine"] == "vllm" and isinstance(kv, dict) and kv.get("do_remote_decode"):
            # a vLLM prefill hands decode what it needs to pull the KV cache
            out["kv_transfer_params"] = {"do_remote_prefill": True, "do_remote_decode": False,
                                         "remote_engine_id": "engine-%d" % os.getpid(),
                                         "remote_host": self.info["advertise"],
                                         "remote_port": self.info["port"],
                                         "remote_block_ids": []}
        return out

    def note(self, path, body, problem):
        d = os.environ.get("FAKE_RECORD_DIR")
        if not d:
            return
        rec = {"prog": self.info["prog"], "pid": os.getpid(), "host": socket.gethostname(),
               "port": self.info["port"], "role": self.info["role"], "path": path,
               "request_id": self.headers.get("X-Request-Id") or body.get("rid"),
               "model": body.get("model"), "time": time.time(),
               "status": problem[0] if problem else 200}
        for k in ("bootstrap_host", "bootstrap_port", "bootstrap_room", "kv_transfer_params",
                  "disaggregated_params"):
            if k in body:
                rec[k] = body[k]
        if body.get("stream") is True:
            rec["stream"] = True
        FE.append_line(os.path.join(d, "requests.jsonl"), rec)


CTX_IDS = itertools.count(1)
TRTLLM_REQUEST_TYPES = ("context_only", "generation_only", "context_and_generation")


def trtllm_request_type(body):
    """TRT-LLM's disaggregated_params.request_type of a request, or None."""
    dp = body.get("disaggregated_params")
    return dp.get("request_type") if isinstance(dp, dict) else None


def trtllm_problem(body):
    """(status, message) when a trtllm-serve worker refuses the request's
    disaggregated_params (the shape the disaggregated server sends)."""
    dp = body.get("disaggregated_params")
    if dp is None:
        return None
    if not isinstance(dp, dict) or dp.get("request_type") not in TRTLLM_REQUEST_TYPES:
        return (400, "invalid disaggregated_params: request_type must be one of %s"
                % ", ".join(TRTLLM_REQUEST_TYPES))
    if dp["request_type"] == "generation_only" and dp.get("ctx_request_id") is None:
        return (400, "generation_only request without ctx_request_id (it must carry the "
                "context server's disaggregated_params)")
    return None


class Chunks:
    """The events of one streamed answer, shaped as SGLang and vLLM shape
    them: /v1/completions text_completion chunks, /v1/chat/completions
    chat.completion.chunk deltas, /generate cumulative text + meta_info.
    Every token is the word "tok", so the text has n_out words."""

    serial = itertools.count(1)

    def __init__(self, path, body, served, n_prompt, n_out):
        self.path, self.n_prompt, self.n_out = path, n_prompt, n_out
        self.id = "%s-%d-%x" % ("chatcmpl" if path.endswith("chat/completions") else "cmpl",
                                os.getpid(), next(self.serial))
        self.model = body.get("model") or served
        self.created = int(time.time())
        opts = body.get("stream_options")
        self.with_usage = isinstance(opts, dict) and opts.get("include_usage") is True

    def usage(self, done):
        return {"prompt_tokens": self.n_prompt, "completion_tokens": done,
                "total_tokens": self.n_prompt + done}

    def token(self, i):
        text = "tok" if i == 0 else " tok"
        last = i == self.n_out - 1
        if self.path == "/generate":
            return {"text": "tok" + " tok" * i, "index": 0, "meta_info": {
                "id": self.id, "prompt_tokens": self.n_prompt, "completion_tokens": i + 1,
                "finish_reason": {"type": "length", "length": self.n_out} if last else None}}
        choice = {"index": 0, "logprobs": None, "finish_reason": "length" if last else None}
        if self.path.endswith("chat/completions"):
            choice["delta"] = {"role": "assistant", "content": text} if i == 0 else \
                {"content": text}
            obj = "chat.completion.chunk"
        else:
            choice["text"] = text
            obj = "text_completion"
        return {"id": self.id, "object": obj, "created": self.created, "model": self.model,
                "choices": [choice], "usage": None}

    def usage_chunk(self):
        """The closing usage chunk, when stream_options.include_usage."""
        if not self.with_usage or self.path == "/generate":
            return None
        obj = "chat.completion.chunk" if self.path.endswith("chat/completions") \
            else "text_completion"
        return {"id": self.id, "object": obj, "created": self.created, "model": self.model,
                "choices": [], "usage": self.usage(self.n_out)}


class Rooms:
    """Bootstrap rooms whose prefill finished on this (prefill) worker.
    A decode worker asks the bootstrap server for its room and waits."""

    KEEP = 600.0        # forget a room nobody asked for after this long

    def __init__(self):
        self.lock = threading.Lock()
        self.rooms = {}     # room -> (Event, creation time)
        self.limit = 1000   # prune old rooms when there are more (amortized)

    def get(self, room):
        now = time.monotonic()
        with self.lock:
            if len(self.rooms) > self.limit:
                self.rooms = {r: v for r, v in self.rooms.items() if now - v[1] < self.KEEP}
                self.limit = max(1000, 2 * len(self.rooms))
            if room not in self.rooms:
                self.rooms[room] = (threading.Event(), now)
            return self.rooms[room][0]

    def done(self, room):
        if room is not None:
            self.get(str(room)).set()

    def wait(self, room, timeout):
        ok = self.get(room).wait(timeout)
        if ok:
            with self.lock:
                self.rooms.pop(room, None)
        return ok


ROOMS = Rooms()
LOAD = perfmodel.Load(1)    # replaced by serve() with the worker's TP


def wait_kv(body):
    """A SGLang decode worker waits for the prefill of its bootstrap room:
    None once done, else why not (within $FAKE_KV_TIMEOUT seconds, 60)."""
    timeout = FE.env_float("FAKE_KV_TIMEOUT", 60.0)
    url = "http://%s:%s/kv/%s?timeout=%s" % (
        body["bootstrap_host"], body.get("bootstrap_port") or 8998,
        urllib.parse.quote(str(body["bootstrap_room"]), safe=""), timeout)
    try:
        with urllib.request.urlopen(url, timeout=timeout + 5) as r:
            r.read()
        return None
    except urllib.error.HTTPError as e:
        return "KV transfer failed: bootstrap room %s: %s" % (body["bootstrap_room"], e.code)
    except (OSError, ValueError) as e:
        return "KV transfer failed: bootstrap server %s unreachable: %s" % (url, e)


class Bootstrap(FE.Handler):
    """The prefill side's bootstrap server: decode workers connect to it.
    GET /kv/ROOM?timeout=S waits until this worker finished the prefill of
    that room (200) or S seconds passed (504); any other GET answers 200."""

    def do_GET(self):
        path, _, query = self.path.partition("?")
        if not path.startswith("/kv/"):
            return self.reply(200, {})
        timeout = 60.0
        for item in query.split("&"):
            k, _, v = item.partition("=")
            if k == "timeout":
                try:
                    timeout = float(v)
                except ValueError:
                    pass
        room = urllib.parse.unquote(path[4:])
        if ROOMS.wait(room, timeout):
            return self.reply(200, {"room": room, "ready": True})
        return self.reply(504, {"room": room, "ready": False})


def listen(host, port, handler, what):
    try:
        srv = FE.Server((host, port), handler)
    except OSError as e:
        raise Refusal("ERROR: [Errno %s] error while attempting to bind on address %r (%s): %s"
                      % (e.errno, (host, port), what, (e.strerror or str(e)).lower()))
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05},
                     daemon=True).start()
    return srv


# ---------------------------------------------------------------------------
# The engine's life

def canonical_args(engine, ns):
    """An argv holding just what fake_engine's Mooncake checks read, in its
    canonical spelling, whatever abbreviation or dotted form was used."""
    args = []
    if engine == "sglang":
        for dest, flag in (("hicache_storage_backend", "--hicache-storage-backend"),
                           ("hicache_storage_backend_extra_config",
                            "--hicache-storage-backend-extra-config")):
            if ns.get(dest) is not None:
                args += [flag, ns[dest]]
    elif ns.get("kv_transfer_config") is not None:
        args += ["--kv-transfer-config", json.dumps(ns["kv_transfer_config"])]
    return args


def run(plan):
    """Start an engine described by `plan` (built by sglang_plan/vllm_plan)
    and serve until SIGTERM/SIGINT.  Returns the exit status."""
    stop = FE.SignalFlag()
    FE.signal.signal(FE.signal.SIGTERM, lambda s, f: stop.set())
    FE.signal.signal(FE.signal.SIGINT, lambda s, f: stop.set())
    try:
        return serve(plan, stop)
    except Refusal as e:
        say(str(e))
        sys.stderr.write(str(e) + "\n")
        return e.code


def kv_event_ports(plan):
    """The ports a --kv-events-config makes this process bind: a ZMQ
    publisher on tcp://*:PORT, vLLM's one per local DP rank (PORT + rank).
    Only the explicit form srt-slurm renders (publisher zmq, a '*' bind
    endpoint; vLLM also enable_kv_cache_events) is modelled."""
    raw = plan["options"].get("kv_events_config")
    if not raw:
        return []
    cfg = json.loads(raw) if isinstance(raw, str) else raw
    if not isinstance(cfg, dict) or cfg.get("publisher") != "zmq":
        return []
    if plan["engine"] == "vllm" and cfg.get("enable_kv_cache_events") is not True:
        return []
    host, _, port = str(cfg.get("endpoint", "")).rpartition(":")
    if host != "tcp://*" or not port.isdigit():
        return []
    n = 1
    if plan["engine"] == "vllm":
        opts = plan["options"]
        n = opts.get("data_parallel_size_local") or opts.get("data_parallel_size") or 1
    return [int(port) + i for i in range(n)]


def bind_kv_events(plan):
    """Bind the KV-event publishers as the engine's ZmqEventPublisher does
    at startup; a taken port fails the engine (ZMQError)."""
    socks = []
    for port in kv_event_ports(plan):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("0.0.0.0", port))
            s.listen(16)
        except OSError:
            s.close()
            for t in socks:
                t.close()
            raise Refusal("zmq.error.ZMQError: Address already in use (addr='tcp://*:%d')"
                          % port)
        say("kv events: ZMQ publisher bound on tcp://*:%d" % port)
        socks.append(s)
    return socks


def prepare(plan, stop):
    """What an engine does before it serves (also Dynamo's workers,
    strict_dynamo.py): wait for the Mooncake master its args name, register
    with the LMCache server a vLLM LMCacheMPConnector names (strict_lmcache),
    join the dist-init rendezvous, then $FAKE_ENGINE_START_DELAY.  Returns (the
    rendezvous group or None, whether a stop came first)."""
    if os.environ.get("FAKE_ENGINE_MOONCAKE_CHECK", "1") != "0":
        try:
            addr = plan.get("mooncake_master") or FE.mooncake_master_address(
                canonical_args(plan["engine"], plan["options"]))
            if addr:
                FE.wait_master(addr, stop)
        except FE.StartupError as e:
            raise Refusal("ERROR: %s" % e)
    if plan["engine"] == "vllm":
        import strict_lmcache
        try:
            plan["lmcache"] = strict_lmcache.attach(plan["options"].get("kv_transfer_config"),
                                                    stop, say)
        except strict_lmcache.AttachError as e:
            raise Refusal("ERROR: %s" % e, 1)
    if plan.get("tilert") is not None:
        say("INFO: Creating v1 connector with name: TileRTConnector and engine_id: %s"
            % uuid.uuid4())
    plan["kv_events"] = bind_kv_events(plan)
    group = None
    if plan["dist"]:
        host, port = plan["dist"]
        group = Rendezvous(host, port, plan["nnodes"], plan["rank"],
                           FE.env_float("FAKE_DIST_INIT_TIMEOUT", 30.0), stop)
        group.run()
    delay = FE.env_float("FAKE_ENGINE_START_DELAY", 0.0)
    return group, stop.is_set() or (delay > 0 and stop.wait(delay))


def serve(plan, stop):
    FE.record(plan["port"], plan["host"], extra={
        "prog": plan["prog"], "options": plan["options"], "role": plan["role"],
        "served_model_names": plan["served"], "node_rank": plan["rank"],
        "nnodes": plan["nnodes"], "serves_http": plan["http"],
        "bootstrap_port": plan["bootstrap_port"], **plan.get("record_extra", {})})
    say("engine %s: pid %d on %s, role %s, rank %d/%d" % (
        plan["prog"], os.getpid(), socket.gethostname(), plan["role"], plan["rank"],
        plan["nnodes"]))
    group, stopped = prepare(plan, stop)
    if stopped:
        say("Received signal, shutting down")
        return 0
    servers = []
    if plan["bootstrap_port"] is not None and plan["rank"] == 0:
        servers.append(listen(bind_host(), plan["bootstrap_port"], Bootstrap, "bootstrap"))
        say("bootstrap server listening on port %d" % plan["bootstrap_port"])
    if plan["http"]:
        global LOAD
        LOAD = perfmodel.Load(plan["tp"])
        Worker.info = plan
        servers.append(listen(plan["host"], plan["port"], Worker, "http"))
        say("INFO:     Uvicorn running on http://%s:%d (Press CTRL+C to quit)"
            % (plan["host"], plan["port"]))
        say("The server is fired up and ready to roll!")
    else:
        say("rank %d serves no HTTP" % plan["rank"])
    return wait_end(stop, group, servers)


def wait_end(stop, group, servers):
    crash = FE.env_float("FAKE_ENGINE_CRASH_AFTER")
    end = None if crash is None else time.monotonic() + crash
    code = 0
    while not stop.wait(0.1):
        if group is not None and group.lost.is_set():
            # give a group-wide SIGTERM a moment to arrive before calling it a crash
            if stop.wait(1.0):
                break
            say("ERROR: a peer of the distributed group went away (NCCL communicator aborted)")
            code = 1
            break
        if FATAL:
            code = FATAL[0]
            break
        if end is not None and time.monotonic() >= end:
            code = int(os.environ.get("FAKE_ENGINE_CRASH_CODE") or 1)
            say("ERROR: engine exiting with code %d (FAKE_ENGINE_CRASH_AFTER=%s)" % (code, crash))
            break
    if code == 0:
        say("Received signal, shutting down")
    for srv in servers:
        srv.shutdown()
        srv.server_close()
    return code


def sglang_plan(ns):
    """What an SGLang server with these options does, after the checks."""
    check_model(ns["model_path"])
    check_ranks(ns["nnodes"], ns["node_rank"])
    world = (ns["tp_size"] or 1) * (ns["pp_size"] or 1)
    if world % ns["nnodes"] != 0:
        raise Refusal("AssertionError: tp_size * pp_size (%d) must be divisible by nnodes (%d)"
                      % (world, ns["nnodes"]))
    dist = None
    if ns["nnodes"] > 1:
        if not ns["dist_init_addr"]:
            raise Refusal("ValueError: --dist-init-addr is required when --nnodes > 1")
        dist = parse_hostport("--dist-init-addr", ns["dist_init_addr"])
    elif ns["dist_init_addr"]:
        parse_hostport("--dist-init-addr", ns["dist_init_addr"])
    role = ns["disaggregation_mode"] or "null"
    if role == "prefill" and ns.get("disaggregation_transfer_backend") == "fake":
        raise Refusal("ValueError: a prefill server cannot use --disaggregation-transfer-backend "
                      "fake")
    name = ns["served_model_name"] or ns["model_path"]
    if ":" in name:
        raise Refusal("ValueError: served model name %r must not contain ':' (reserved for "
                      "LoRA adapters)" % name)
    return {"engine": "sglang", "prog": "sglang.launch_server", "options": ns, "role": role,
            "model": ns["model_path"], "served": [name], "owner": "sglang",
            "tp": ns.get("tp_size") or 1,
            "host": ns["host"], "port": ns["port"], "advertise": ns["host"],
            "rank": ns["node_rank"], "nnodes": ns["nnodes"], "dist": dist,
            "http": ns["node_rank"] == 0,
            "bootstrap_port": ns["disaggregation_bootstrap_port"] if role == "prefill" else None}


VLLM_DEFAULT_MODEL = "Qwen/Qwen3-0.6B"


def vllm_plan(ns):
    """What `vllm serve` with these options does, after the checks."""
    model = ns.get("model_tag") or VLLM_DEFAULT_MODEL
    ns["model"] = model
    check_model(model)
    check_ranks(ns["nnodes"], ns["node_rank"])
    if ns["headless"] and (ns.get("api_server_count") or 0) > 0:
        raise Refusal("ValueError: --api-server-count cannot be used with --headless")
    dist = None
    if ns["nnodes"] > 1 and ns.get("master_addr"):
        dist = (ns["master_addr"], ns.get("master_port") or 29501)
    kv = ns.get("kv_transfer_config") or {}
    role = kv.get("kv_role", "kv_both") if isinstance(kv, dict) and kv else "null"
    host = ns["host"] or "0.0.0.0"
    tilert = tilert_connector(kv, ns)
    return {"tilert": tilert, "engine": "vllm", "prog": "vllm serve", "options": ns, "role": role,
            "model": model, "served": ns["served_model_name"] or [model], "owner": "vllm",
            "tp": ns.get("tensor_parallel_size") or 1,
            "host": host, "port": ns["port"], "advertise": socket.gethostname(),
            "rank": ns["node_rank"], "nnodes": ns["nnodes"], "dist": dist,
            "http": not ns["headless"] and ns["node_rank"] == 0, "bootstrap_port": None}


def tilert_connector(kv, ns):
    """vLLM's TileRTConnector when the --kv-transfer-config names it
    (tilert.pd_vllm.prefill_connector), checked as vLLM's connector factory
    and the connector's constructor check it at engine start; None for any
    other connector, which is left as it was."""
    if not isinstance(kv, dict) or (
            kv.get("kv_connector") != "TileRTConnector"
            and kv.get("kv_connector_module_path") != "tilert.pd_vllm.prefill_connector"):
        return None
    td = load_tilert()
    try:
        return td.prefill_connector(kv, ns)
    except td.ConfigError as e:
        raise Refusal("ValueError: %s" % e)
    except (ValueError, TypeError, KeyError, AttributeError, ImportError) as e:
        raise Refusal("%s: %s\nRuntimeError: Engine core initialization failed. See root cause "
                      "above. Failed core proc(s): {}" % (type(e).__name__, e))


def main_sglang(args):
    import strict_cli
    ns = strict_cli.parse_argparse("sglang-launch-server", "sglang serve", args)
    return plan_and_run(sglang_plan, ns)


def main_vllm(args):
    import strict_cli
    ns = strict_cli.parse_vllm(args)
    return plan_and_run(vllm_plan, ns)


def check_only():
    """$FAKE_CHECK_ONLY=1: parse and check, print the options, start nothing
    (for tests that only ask whether an argv would be accepted)."""
    return os.environ.get("FAKE_CHECK_ONLY", "") not in ("", "0")


def print_options(ns):
    sys.stdout.write(json.dumps(ns, sort_keys=True) + "\n")


def plan_and_run(planner, ns):
    try:
        plan = planner(ns)
    except Refusal as e:
        sys.stderr.write(str(e) + "\n")
        return e.code
    if check_only():
        print_options(ns)
        return 0
    return run(plan)
