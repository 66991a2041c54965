"""Runtime of the Dynamo stand-ins (tests/fakes/dynamo_sglang,
tests/fakes/dynamo_vllm, tests/fakes/dynamo_frontend; see README.md,
"Dynamo stand-ins").

What is real and what is stood in
---------------------------------
etcd and NATS are the real servers.  The stand-ins speak to etcd through
its v3 HTTP/JSON gateway (POST /v3/lease/grant, /v3/lease/keepalive,
/v3/lease/revoke, /v3/kv/put, /v3/kv/range, keys and values base64) and to
NATS with its text protocol (INFO, CONNECT, PING/PONG), standard library
only.  What the stand-ins put in etcd has the layout of Dynamo's discovery
plane (lib/runtime/src/discovery/kv_store.rs):

    v1/instances/<ns>/<component>/<endpoint>/<instance id, hex>
        {"type": "Endpoint", "namespace", "component", "endpoint",
         "instance_id": <u64>, "transport": {"tcp": "<ip>:<port>"}}
    v1/mdc/<ns>/<component>/<endpoint>/<instance id, hex>
        {"type": "Model", "namespace", "component", "endpoint",
         "instance_id", "card_json": {"display_name": <served name>, ...}}

both attached to the worker's lease (TTL 10 s, kept alive every 3 s,
revoked on SIGTERM), whose id is the instance id.

The request plane (the stand-ins' own protocol)
-----------------------------------------------
Real Dynamo carries requests from the frontend to a worker over its own TCP
(or NATS) request plane with a two-part codec.  The stand-ins do not
imitate that wire format.  Instead `transport.tcp` names an HTTP/1.1 server
on the worker, and the frontend talks to it as the strict vLLM engine
stand-in is talked to (strict_engine.Worker serves it):

- POST /v1/completions or /v1/chat/completions with the client's OpenAI
  body and `X-Request-Id`.  The answer is the strict engine's: one JSON
  body, or with "stream": true a text/event-stream of `data: {json}`
  events, one per output token, timed by perfmodel.py.
- Disaggregated: the frontend first POSTs to a `prefill` instance with
  "max_tokens": 1, "stream": false and "kv_transfer_params":
  {"do_remote_decode": true}.  The prefill worker spends the prefill time
  and answers with "kv_transfer_params": {"do_remote_prefill": true,
  "remote_host", "remote_port", ...}.  The frontend then POSTs the
  client's body plus those kv_transfer_params to a `backend` instance,
  whose answer (stream) it relays to the client.  This is how the strict
  vllm-router drives the strict vLLM engines, so token counts and
  latencies come out as with those stand-ins.
- Any GET on the request plane is 404.

Every request a worker answers appends a line to
$FAKE_RECORD_DIR/requests.jsonl (prog dynamo.sglang / dynamo.vllm, role
prefill / decode / agg, port = the request-plane port, request_id, ...).

Python 3 standard library only.
"""

import argparse
import base64
import itertools
import json
import os
import random
import socket
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import flagdata  # noqa: E402
import perfmodel  # noqa: E402
import strict_cli  # noqa: E402
import strict_engine as SE  # noqa: E402
import strict_router as SR  # noqa: E402

FE = SE.FE
Refusal = SE.Refusal

# `python3 -m dynamo.X` runs .../dynamo/X/__main__.py: argparse names the
# program after it (inferred; no real run was seen).
PROG = "__main__.py"

LEASE_TTL = 10
T_START = time.monotonic()


# ---------------------------------------------------------------------------
# Log lines: Rust tracing style, "<time>  INFO target: message"

def log(level, target, msg):
    t = time.time()
    ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%06dZ" % int((t % 1) * 1e6)
    line = "%s %5s %s: %s" % (ts, level, target, msg)
    if level in ("ERROR", "WARN"):
        try:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
        except OSError:
            pass
    else:
        FE.say(line)


class Fatal(Exception):
    """Startup failed the way the runtime fails: an ERROR line and
    `Error: ...` on stderr, exit 1."""


def value_error(module, message, exc="ValueError", where="args.py\", line 1, in parse_args"):
    """An exception raised by Dynamo's Python (a ValueError unless `exc`
    says otherwise): traceback, exit 1."""
    sys.stderr.write("Traceback (most recent call last):\n"
                     "  File \"<frozen runpy>\", line 198, in _run_module_as_main\n"
                     "  File \"<frozen runpy>\", line 88, in _run_code\n"
                     "  File \"/opt/dynamo/components/src/dynamo/%s/__main__.py\", line 7, "
                     "in <module>\n    main()\n"
                     "  File \"/opt/dynamo/components/src/dynamo/%s/%s\n%s: %s\n"
                     % (module, module, where, exc, message))
    return 1


# ---------------------------------------------------------------------------
# Dynamo's own flags.  Defaults come from the environment as in
# dynamo/common/configuration/utils.py (env_or_default).

def nullable(typ):
    """A threshold type that takes the literal "None" as unset: Dynamo 1.2's
    router flags (--active-*-threshold*) are disabled that way, by the
    frontend and by a worker's router advertisement alike."""
    def conv(text):
        return None if text in ("None", "none", "") else typ(text)
    conv.__name__ = typ.__name__
    return conv


def env_or_default(env, default, typ=str):
    v = os.environ.get(env)
    if v is None:
        return default
    if typ is bool:
        return v.lower() in ("true", "1", "yes", "on")
    return typ(v)


def arg(g, flag, env, default, typ=str, choices=None, nargs=None, dest=None, const=None):
    kw = {"dest": dest or flag.lstrip("-").replace("-", "_"),
          "default": env_or_default(env, default, typ) if env else default, "type": typ}
    if choices is not None:
        kw["choices"] = choices
    if nargs is not None:
        kw["nargs"] = nargs
    if const is not None:
        kw["const"] = const
    g.add_argument(flag, **kw)


def neg(g, flag, env, default, dest=None):
    g.add_argument(flag, dest=dest or flag.lstrip("-").replace("-", "_"),
                   action=argparse.BooleanOptionalAction,
                   default=env_or_default(env, default, bool) if env else default)


def runtime_group(p):
    """DynamoRuntimeArgGroup (common/configuration/groups/runtime_args.py)."""
    g = p.add_argument_group("Dynamo Runtime Options")
    arg(g, "--namespace", "DYN_NAMESPACE", "dynamo")
    arg(g, "--endpoint", "DYN_ENDPOINT", None)
    arg(g, "--kv-state-endpoint", "DYN_KV_STATE_ENDPOINT", None)
    arg(g, "--discovery-backend", "DYN_DISCOVERY_BACKEND", "etcd",
        choices=["kubernetes", "etcd", "file", "mem"])
    arg(g, "--request-plane", "DYN_REQUEST_PLANE", "tcp", choices=["tcp", "nats"])
    arg(g, "--response-plane", "DYN_RESPONSE_PLANE", "tcp", choices=["tcp", "quic"])
    arg(g, "--event-plane", "DYN_EVENT_PLANE", None, choices=["nats", "zmq"])
    neg(g, "--fpm-trace", "DYN_FPM_TRACE", False)
    arg(g, "--connector", "DYN_CONNECTOR", [], nargs="*")
    # choices come from dynamo._core at run time: not enforced here
    arg(g, "--dyn-tool-call-parser", "DYN_TOOL_CALL_PARSER", None)
    arg(g, "--dyn-reasoning-parser", "DYN_REASONING_PARSER", None)
    arg(g, "--dyn-default-thinking-mode", "DYN_DEFAULT_THINKING_MODE", None,
        choices=["enabled", "disabled"])
    neg(g, "--exclude-tools-when-tool-choice-none", "DYN_EXCLUDE_TOOLS_WHEN_TOOL_CHOICE_NONE",
        True)
    neg(g, "--dyn-enable-structural-tag", "DYN_ENABLE_STRUCTURAL_TAG", None)
    arg(g, "--dyn-structural-tag-scope", "DYN_STRUCTURAL_TAG_SCOPE", None,
        choices=["auto", "always"])
    arg(g, "--dyn-structural-tag-schema", "DYN_STRUCTURAL_TAG_SCHEMA", None,
        choices=["auto", "strict"])
    arg(g, "--dyn-structural-tag", "DYN_STRUCTURAL_TAG", None, nargs="?", const="true")
    arg(g, "--custom-jinja-template", "DYN_CUSTOM_JINJA_TEMPLATE", None)
    arg(g, "--endpoint-types", "DYN_ENDPOINT_TYPES", "chat,completions")
    arg(g, "--dump-config-to", "DYN_DUMP_CONFIG_TO", None)
    arg(g, "--multimodal-embedding-cache-capacity-gb",
        "DYN_MULTIMODAL_EMBEDDING_CACHE_CAPACITY_GB", 0.0, typ=float)
    neg(g, "--multimodal-embedding-cache-publisher", "DYN_MULTIMODAL_EMBEDDING_CACHE_PUBLISHER",
        False)
    arg(g, "--output-modalities", "DYN_OUTPUT_MODALITIES", ["text"], nargs="*")
    arg(g, "--media-output-fs-url", "DYN_MEDIA_OUTPUT_FS_URL", "file:///tmp/dynamo_media")
    arg(g, "--media-output-http-url", "DYN_MEDIA_OUTPUT_HTTP_URL", None)
    arg(g, "--health-check-payload", "DYN_HEALTH_CHECK_PAYLOAD", None)
    arg(g, "--engine-request-limit", "DYN_ENGINE_REQUEST_LIMIT", None, typ=int)
    for name in ("cert-path", "key-path", "ca-cert-path", "server-name", "client-cert-path",
                 "client-key-path", "client-ca-cert-path"):
        arg(g, "--tcp-tls-" + name, "DYN_TCP_TLS_" + name.upper().replace("-", "_"), None)
    neg(g, "--tcp-tls-insecure", "DYN_TCP_TLS_INSECURE", False)
    arg(g, "--tcp-tls-handshake-timeout", "DYN_TCP_TLS_HANDSHAKE_TIMEOUT_SECS", None, typ=int,
        dest="tcp_tls_handshake_timeout_secs")
    for name in ("ca-cert-path", "client-cert-path", "client-key-path"):
        arg(g, "--nats-tls-" + name, "NATS_TLS_" + name.upper().replace("-", "_"), None)
    neg(g, "--nats-tls-insecure", "NATS_TLS_INSECURE", False)


def sglang_group(p):
    """The Dynamo-SGLang group (dynamo/sglang/backend_args.py)."""
    p.add_argument("--version", action="version", version="Dynamo Backend SGLang (stand-in)")
    g = p.add_argument_group("Dynamo SGLang Options")
    for flag in ("--use-sglang-tokenizer", "--multimodal-processor", "--multimodal-encode-worker",
                 "--multimodal-worker", "--embedding-worker", "--image-diffusion-worker",
                 "--video-generation-worker"):
        neg(g, flag, None, False)
    arg(g, "--disagg-config", None, None)
    arg(g, "--disagg-config-key", None, None)


def vllm_group(p):
    """The Dynamo-vLLM group (dynamo/vllm/backend_args.py, 2026)."""
    p.add_argument("--version", action="version", version="Dynamo Backend VLLM (stand-in)")
    g = p.add_argument_group("Dynamo vLLM Options")
    neg(g, "--is-prefill-worker", "DYN_VLLM_IS_PREFILL_WORKER", False)
    neg(g, "--is-decode-worker", "DYN_VLLM_IS_DECODE_WORKER", False)
    arg(g, "--disaggregation-mode", "DYN_VLLM_DISAGGREGATION_MODE", None,
        choices=["agg", "prefill", "decode"])
    neg(g, "--use-vllm-tokenizer", "DYN_VLLM_USE_TOKENIZER", False)
    arg(g, "--sleep-mode-level", "DYN_VLLM_SLEEP_MODE_LEVEL", 1, typ=int, choices=[1, 2, 3])
    neg(g, "--headless", None, False)
    arg(g, "--engine-config-json", None, None)
    for flag in ("--route-to-encoder", "--multimodal-encode-worker", "--multimodal-worker",
                 "--multimodal-decode-worker", "--enable-multimodal", "--frontend-decoding",
                 "--omni", "--enable-layerwise-offload", "--vae-use-slicing", "--vae-use-tiling",
                 "--enable-cache-dit-summary", "--enable-cpu-offload", "--enforce-eager"):
        neg(g, flag, None, False)
    arg(g, "--mm-prompt-template", None, "USER: <image>\n<prompt> ASSISTANT:")
    arg(g, "--stage-configs-path", None, None)
    arg(g, "--video-output-dir", None, "/tmp/dynamo_videos")
    arg(g, "--default-video-fps", None, 16, typ=int)
    arg(g, "--layerwise-num-gpu-layers", None, 1, typ=int)
    arg(g, "--boundary-ratio", None, None, typ=float)
    arg(g, "--flow-shift", None, None, typ=float)
    arg(g, "--diffusion-cache-backend", None, None, choices=["cache_dit", "tea_cache"])
    arg(g, "--diffusion-cache-config", None, None)
    arg(g, "--ulysses-degree", None, 1, typ=int)
    arg(g, "--ring-degree", None, 1, typ=int)
    arg(g, "--cfg-parallel-size", None, 1, typ=int, choices=[1, 2])
    arg(g, "--model-express-url", "MODEL_EXPRESS_URL", None)


def kv_router_group(g):
    """The KV router's flags (common/configuration/groups/kv_router_args.py),
    shared by the frontend and a worker's router advertisement."""
    arg(g, "--router-kv-overlap-score-weight", "DYN_ROUTER_KV_OVERLAP_SCORE_WEIGHT", 1.0,
        typ=float, dest="kv_overlap_score_weight")
    arg(g, "--router-temperature", "DYN_ROUTER_TEMPERATURE", 0.0, typ=float)
    neg(g, "--router-kv-events", "DYN_ROUTER_USE_KV_EVENTS", True, dest="use_kv_events")
    arg(g, "--router-ttl-secs", "DYN_ROUTER_TTL_SECS", 120.0, typ=float, dest="router_ttl")
    arg(g, "--router-max-tree-size", "DYN_ROUTER_MAX_TREE_SIZE", 2 ** 20, typ=int)
    arg(g, "--router-prune-target-ratio", "DYN_ROUTER_PRUNE_TARGET_RATIO", 0.8, typ=float)
    neg(g, "--router-replica-sync", "DYN_ROUTER_REPLICA_SYNC", False)
    arg(g, "--router-snapshot-threshold", "DYN_ROUTER_SNAPSHOT_THRESHOLD", 1000000, typ=int)
    neg(g, "--router-reset-states", "DYN_ROUTER_RESET_STATES", False)
    neg(g, "--router-durable-kv-events", "DYN_ROUTER_DURABLE_KV_EVENTS", False,
        dest="durable_kv_events")
    neg(g, "--router-track-active-blocks", "DYN_ROUTER_TRACK_ACTIVE_BLOCKS", True)
    neg(g, "--router-assume-kv-reuse", "DYN_ROUTER_ASSUME_KV_REUSE", True)
    neg(g, "--router-track-output-blocks", "DYN_ROUTER_TRACK_OUTPUT_BLOCKS", False)
    arg(g, "--router-event-threads", "DYN_ROUTER_EVENT_THREADS", 1, typ=int)
    arg(g, "--router-queue-threshold", "DYN_ROUTER_QUEUE_THRESHOLD", None, typ=float)


def frontend_parser():
    """dynamo.frontend's parser (frontend_args.py + router_args.py, 2026)."""
    p = argparse.ArgumentParser(prog=PROG, allow_abbrev=False)
    p.add_argument("--version", action="version", version="Dynamo Frontend (stand-in)")
    g = p.add_argument_group("Dynamo Frontend Options")
    g.add_argument("-i", "--interactive", dest="interactive",
                   action=argparse.BooleanOptionalAction,
                   default=env_or_default("DYN_INTERACTIVE", False, bool))
    arg(g, "--namespace", "DYN_NAMESPACE", None)
    arg(g, "--namespace-prefix", "DYN_NAMESPACE_PREFIX", None)
    arg(g, "--kv-cache-block-size", "DYN_KV_CACHE_BLOCK_SIZE", None, typ=int)
    arg(g, "--http-host", "DYN_HTTP_HOST", "0.0.0.0")
    arg(g, "--http-port", "DYN_HTTP_PORT", 8000, typ=int)
    arg(g, "--tls-cert-path", "DYN_TLS_CERT_PATH", None)
    arg(g, "--tls-key-path", "DYN_TLS_KEY_PATH", None)
    neg(g, "--serve-indexer", None, False)
    arg(g, "--router-mode", "DYN_ROUTER_MODE", "round-robin",
        choices=["round-robin", "random", "power-of-two", "kv", "direct", "least-loaded",
                 "device-aware-weighted"])
    arg(g, "--router-min-initial-workers", None, 0, typ=int)
    kv_router_group(g)
    neg(g, "--enforce-disagg", "DYN_ENFORCE_DISAGG", False)
    arg(g, "--active-decode-blocks-threshold", "DYN_ACTIVE_DECODE_BLOCKS_THRESHOLD", 1.0,
        typ=nullable(float))
    arg(g, "--active-prefill-tokens-threshold", "DYN_ACTIVE_PREFILL_TOKENS_THRESHOLD", 10000000,
        typ=nullable(int))
    arg(g, "--active-prefill-tokens-threshold-frac", "DYN_ACTIVE_PREFILL_TOKENS_THRESHOLD_FRAC",
        64.0, typ=nullable(float))
    arg(g, "--admission-control", None, None, choices=["token-capacity", "none"])
    arg(g, "--migration-limit", "DYN_MIGRATION_LIMIT", 0, typ=int)
    arg(g, "--migration-max-seq-len", None, None, typ=int)
    arg(g, "--model-name", "DYN_MODEL_NAME", None, typ=model_name_type)
    arg(g, "--model-path", "DYN_MODEL_PATH", None, typ=model_path_type)
    arg(g, "--metrics-prefix", "DYN_METRICS_PREFIX", None)
    neg(g, "--kserve-grpc-server", "DYN_KSERVE_GRPC_SERVER", False)
    arg(g, "--grpc-metrics-port", "DYN_GRPC_METRICS_PORT", 8788, typ=int)
    arg(g, "--dump-config-to", "DYN_DUMP_CONFIG_TO", None)
    arg(g, "--discovery-backend", "DYN_DISCOVERY_BACKEND", "etcd",
        choices=["kubernetes", "etcd", "file", "mem"])
    arg(g, "--request-plane", "DYN_REQUEST_PLANE", "tcp", choices=["nats", "tcp"])
    arg(g, "--event-plane", "DYN_EVENT_PLANE", None, choices=["nats", "zmq"])
    neg(g, "--enable-anthropic-api", "DYN_ENABLE_ANTHROPIC_API", False)
    arg(g, "--dyn-chat-processor", "DYN_CHAT_PROCESSOR", "dynamo", dest="chat_processor",
        choices=["dynamo", "vllm", "sglang"])
    neg(g, "--dyn-debug-perf", "DYN_DEBUG_PERF", False, dest="debug_perf")
    arg(g, "--dyn-preprocess-workers", "DYN_PREPROCESS_WORKERS", 0, typ=int,
        dest="preprocess_workers")
    arg(g, "--tokenizer", None, "default", choices=["default", "fastokens"])
    neg(g, "--trust-remote-code", None, False)
    return p


def model_name_type(value):
    if not value.strip():
        raise argparse.ArgumentTypeError("model-name must be a non-empty string, got: %s" % value)
    return value.strip()


def model_path_type(value):
    if not os.path.isdir(SE.host_path(value)):
        raise argparse.ArgumentTypeError(
            "model-path must be a valid directory on disk, got: %s" % value)
    return value


def worker_parser(engine):
    p = argparse.ArgumentParser(prog=PROG, allow_abbrev=False)
    runtime_group(p)
    (sglang_group if engine == "sglang" else vllm_group)(p)
    return p


def vllm_engine_parser():
    """vLLM's AsyncEngineArgs only: the rows of the `vllm serve` table from
    `--model` on (the rows before it are `vllm serve`'s own and the OpenAI
    frontend's: --host, --port, --api-server-count, --headless, ...)."""
    rows = flagdata.load("vllm-serve")
    start = next(i for i, r in enumerate(rows) if r["dest"] == "model")
    p = argparse.ArgumentParser(prog=PROG)
    for row in rows[start:]:
        strict_cli.add_row(p, row)
    return p


def sglang_rewrite(rest):
    """Dynamo maps `--disaggregation-mode agg|pd` to SGLang's `null`."""
    out = list(rest)
    for i, a in enumerate(out):
        if a == "--disaggregation-mode" and i + 1 < len(out) and out[i + 1] in ("agg", "pd"):
            out[i + 1] = "null"
        elif a in ("--disaggregation-mode=agg", "--disaggregation-mode=pd"):
            out[i] = "--disaggregation-mode=null"
    return out


def given(rest, flag, shortest):
    """Was `flag` (or an unambiguous prefix of it at least `shortest` long)
    on the command line?"""
    for a in rest:
        name = a.split("=", 1)[0]
        if name.startswith("--") and len(name) >= len(shortest) and flag.startswith(name):
            return True
    return False


# ---------------------------------------------------------------------------
# etcd through its v3 JSON gateway

class EtcdError(Exception):
    pass


def b64(text):
    return base64.b64encode(text.encode()).decode()


def unb64(text):
    return base64.b64decode(text or "").decode("utf-8", "replace")


def prefix_end(prefix):
    b = bytearray(prefix.encode())
    b[-1] += 1
    return base64.b64encode(bytes(b)).decode()


class Etcd:
    def __init__(self, env=None):
        env = os.environ if env is None else env
        raw = env.get("ETCD_ENDPOINTS") or "http://localhost:2379"
        self.urls = []
        for item in raw.split(","):
            item = item.strip().rstrip("/")
            if item:
                self.urls.append(item if "://" in item else "http://" + item)
        self.current = 0

    def call(self, path, obj, timeout=3.0):
        errors = []
        for k in range(len(self.urls)):
            i = (self.current + k) % len(self.urls)
            req = urllib.request.Request(self.urls[i] + path, data=json.dumps(obj).encode(),
                                         method="POST",
                                         headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=timeout) as r:
                    out = json.loads(r.read() or b"{}")
                self.current = i
                return out
            except urllib.error.HTTPError as e:
                errors.append("%s: HTTP %d %s" % (self.urls[i], e.code,
                                                  e.read()[:200].decode("utf-8", "replace")))
            except (OSError, ValueError) as e:
                errors.append("%s: %s" % (self.urls[i], getattr(e, "reason", e)))
        raise EtcdError("; ".join(errors))

    def connect(self, stop, seconds):
        """Wait (boundedly) until some endpoint answers."""
        end = time.monotonic() + seconds
        while True:
            try:
                return self.call("/v3/maintenance/status", {}, timeout=1.0)
            except EtcdError as e:
                if time.monotonic() >= end or stop.is_set():
                    raise Fatal("Unable to connect to etcd server(s) %s: %s"
                                % (",".join(self.urls), e))
            stop.wait(0.2)

    def grant(self, ttl):
        return int(self.call("/v3/lease/grant", {"TTL": ttl})["ID"])

    def keepalive(self, lease):
        """Remaining TTL (0: the lease is gone)."""
        out = self.call("/v3/lease/keepalive", {"ID": str(lease)})
        return int((out.get("result") or {}).get("TTL") or 0)

    def revoke(self, lease):
        self.call("/v3/lease/revoke", {"ID": str(lease)})

    def put(self, key, value, lease):
        self.call("/v3/kv/put", {"key": b64(key), "value": b64(json.dumps(value)),
                                 "lease": str(lease)})

    def range_prefix(self, prefix):
        out = self.call("/v3/kv/range", {"key": b64(prefix), "range_end": prefix_end(prefix)})
        return [(unb64(kv.get("key")), unb64(kv.get("value"))) for kv in out.get("kvs") or []]

    def local_ip(self):
        """The local IPv4 address that reaches the current etcd endpoint."""
        u = urllib.parse.urlsplit(self.urls[self.current])
        try:
            addr = socket.getaddrinfo(u.hostname, u.port or 2379, socket.AF_INET,
                                      socket.SOCK_DGRAM)[0][4]
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            try:
                s.connect(addr)
                return s.getsockname()[0]
            finally:
                s.close()
        except OSError:
            return "127.0.0.1"


# ---------------------------------------------------------------------------
# NATS: connect, PING/PONG, keep the connection (answering the server's PINGs)

def nats_urls(env=None):
    env = os.environ if env is None else env
    raw = env.get("NATS_SERVER") or "nats://localhost:4222"
    return [u.strip() for u in raw.split(",") if u.strip()]


class Nats:
    def __init__(self):
        self.sock = None
        self.lost = False
        self.url = None

    def connect_once(self, url):
        u = urllib.parse.urlsplit(url if "://" in url else "nats://" + url)
        s = socket.create_connection((u.hostname or "localhost", u.port or 4222), timeout=2.0)
        try:
            f = s.makefile("rb")
            info = f.readline(65536)
            if not info.startswith(b"INFO "):
                raise OSError("no INFO line from the server (got %r)" % info[:40])
            s.sendall(b'CONNECT {"verbose":false,"pedantic":false,"lang":"python",'
                      b'"name":"dynamo-stand-in"}\r\nPING\r\n')
            while True:
                line = f.readline(4096)
                if line.startswith(b"PONG"):
                    break
                if line.startswith(b"PING"):
                    s.sendall(b"PONG\r\n")
                    continue
                if not line or line.startswith(b"-ERR"):
                    raise OSError("server answered %r" % line.strip()[:80])
        except BaseException:
            s.close()
            raise
        s.settimeout(None)
        return s, f

    def connect(self, stop, seconds):
        end = time.monotonic() + seconds
        while True:
            errors = []
            for url in nats_urls():
                try:
                    self.sock, f = self.connect_once(url)
                    self.url = url
                    threading.Thread(target=self.pump, args=(f,), daemon=True).start()
                    return
                except (OSError, ValueError) as e:
                    errors.append("%s: %s" % (url, getattr(e, "strerror", None) or e))
            if time.monotonic() >= end or stop.is_set():
                raise Fatal("Failed to connect to NATS server(s) %s: %s"
                            % (",".join(nats_urls()), "; ".join(errors)))
            stop.wait(0.2)

    def pump(self, f):
        try:
            while True:
                line = f.readline(65536)
                if not line:
                    break
                if line.startswith(b"PING"):
                    self.sock.sendall(b"PONG\r\n")
        except OSError:
            pass
        self.lost = True

    def close(self):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass


# ---------------------------------------------------------------------------
# The worker's system status server (DYN_SYSTEM_PORT)

class Status(FE.Handler):
    state = {"ready": False, "health": "/health", "live": "/live"}

    def do_GET(self):
        p = self.path.split("?", 1)[0]
        up = time.monotonic() - T_START
        uptime = {"secs": int(up), "nanos": int((up % 1) * 1e9)}
        if p in (self.state["health"], self.state["live"]):
            ready = self.state["ready"]
            body = {"status": "ready" if ready else "notready", "uptime": uptime,
                    "endpoints": {"generate": "ready" if ready else "notready"}}
            return self.text(200 if ready else 503, json.dumps(body))
        if p == "/metrics":
            return self.text(200, "# TYPE dynamo_component_uptime_seconds gauge\n"
                                  "dynamo_component_uptime_seconds %.3f\n" % up)
        return self.text(404, "Route not found")

    def text(self, status, body):
        data = body.encode()
        self.send_response(status)
        self.send_header("content-type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)


def system_port():
    """DYN_SYSTEM_PORT as an int, or None when the server is disabled (unset or -1)."""
    raw = os.environ.get("DYN_SYSTEM_PORT", "").strip()
    if not raw:
        return None
    try:
        port = int(raw)
    except ValueError:
        raise Fatal("invalid DYN_SYSTEM_PORT %r" % raw)
    return None if port < 0 else port


def start_status():
    port = system_port()
    if port is None:
        return None
    host = os.environ.get("DYN_SYSTEM_HOST") or os.environ.get("FAKE_BIND_HOST") or "0.0.0.0"
    Status.state["health"] = os.environ.get("DYN_SYSTEM_HEALTH_PATH") or "/health"
    Status.state["live"] = os.environ.get("DYN_SYSTEM_LIVE_PATH") or "/live"
    Status.state["ready"] = (os.environ.get("DYN_SYSTEM_STARTING_HEALTH_STATUS") or
                             "notready").lower() == "ready"
    try:
        srv = FE.Server((host, port), Status)
    except OSError as e:
        raise Fatal("Failed to start system status server on %s:%d: %s"
                    % (host, port, e.strerror or e))
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05},
                     daemon=True).start()
    log("INFO", "dynamo_runtime::system_status_server",
        "System status server started on %s:%d" % (host, srv.server_address[1]))
    return srv


# ---------------------------------------------------------------------------
# The worker's request plane (see the module docstring)

class RequestPlane(SE.Worker):
    def do_GET(self):
        return self.reply(404, {"error": "Route not found"})


# ---------------------------------------------------------------------------
# Workers: parse, check, plan

def parse_worker(engine, args):
    """(dynamo options, engine options, remainder) or exits 2 as argparse."""
    dyn, rest = worker_parser(engine).parse_known_args(args)
    dyn = vars(dyn)
    if engine == "sglang":
        ns = vars(strict_cli.build_argparse("sglang-launch-server", PROG)
                  .parse_args(sglang_rewrite(rest)))
    else:
        ns = vars(vllm_engine_parser().parse_args(strict_cli.vllm_preprocess(rest)))
    return dyn, ns, rest


def parse_endpoint(text):
    parts = text.replace("dyn://", "", 1).split(".")
    if len(parts) != 3 or not all(parts):
        raise ValueError("Invalid endpoint format: '%s'. Expected format: "
                         "'dyn://namespace.component.endpoint'" % text)
    return parts


def namespace_of(dyn):
    ns = dyn["namespace"]
    suffix = os.environ.get("DYN_NAMESPACE_WORKER_SUFFIX")
    return "%s-%s" % (ns, suffix) if suffix else ns


def sglang_worker_plan(dyn, ns, rest):
    if ns.get("tool_call_parser") and dyn.get("dyn_tool_call_parser"):
        raise Fatal("Cannot use both --tool-call-parser and --dyn-tool-call-parser.")
    if dyn["custom_jinja_template"] and dyn["use_sglang_tokenizer"]:
        raise Fatal("Cannot use --custom-jinja-template and --use-sglang-tokenizer together.")
    if bool(dyn["disagg_config"]) != bool(dyn["disagg_config_key"]):
        raise ValueError("--disagg-config and --disagg-config-key must be provided together")
    plan = SE.sglang_plan(ns)           # the strict SGLang checks (Refusal on failure)
    role = plan["role"]
    if dyn["multimodal_encode_worker"]:
        component = "encode"
    elif role == "prefill":
        component = "prefill"
    else:
        component = "backend"
    bootstrap = None
    if role == "prefill":
        # Dynamo picks a free port when the flag is not given
        bootstrap = ns["disaggregation_bootstrap_port"] if given(
            rest, "--disaggregation-bootstrap-port", "--disaggregation-b") else 0
    plan.update({"prog": "dynamo.sglang", "owner": "sglang", "bootstrap_port": bootstrap,
                 "dyn_role": {"null": "agg"}.get(role, role)})
    return finish_plan(plan, dyn, component)


def worker_mode(opts, module, combined, both):
    """--disaggregation-mode, or the deprecated --is-*-worker (ValueError with
    each program's own words when they clash); default agg."""
    mode = opts["disaggregation_mode"]
    if (opts["is_prefill_worker"] or opts["is_decode_worker"]) and mode is not None:
        raise ValueError(combined)
    if opts["is_prefill_worker"] and opts["is_decode_worker"]:
        raise ValueError(both)
    if opts["is_prefill_worker"] or opts["is_decode_worker"]:
        log("WARN", "dynamo." + module, "DeprecationWarning: --is-prefill-worker/"
            "--is-decode-worker are deprecated; use --disaggregation-mode")
        mode = "prefill" if opts["is_prefill_worker"] else "decode"
    return mode or "agg"


def vllm_worker_plan(dyn, ns, rest):
    mode = worker_mode(dyn, "vllm", "--is-prefill-worker/--is-decode-worker cannot be "
                       "combined with --disaggregation-mode; use --disaggregation-mode only",
                       "Cannot set both --is-prefill-worker and --is-decode-worker")
    if dyn["connector"]:
        raise ValueError("--connector is not supported for vLLM; use --kv-transfer-config")
    if mode == "prefill" and not ns.get("kv_transfer_config"):
        raise ValueError("Prefill worker requires --kv-transfer-config, e.g. "
                         "--kv-transfer-config '{\"kv_connector\":\"NixlConnector\","
                         "\"kv_role\":\"kv_both\"}'")
    served = ns.get("served_model_name") or []
    if len(served) > 1:
        raise ValueError("Only one --served-model-name is supported, got %s" % served)
    model = ns.get("model") or SE.VLLM_DEFAULT_MODEL
    ns["model"] = model
    SE.check_model(model)
    SE.check_ranks(ns["nnodes"], ns["node_rank"])
    dist = None
    if ns["nnodes"] > 1 and ns.get("master_addr"):
        dist = (ns["master_addr"], ns.get("master_port") or 29501)
    if dyn["multimodal_encode_worker"]:
        component = "encode"
    elif mode == "prefill":
        component = "prefill"
    else:
        component = "backend"
    plan = {"engine": "vllm", "prog": "dynamo.vllm", "options": ns, "role": mode,
            "dyn_role": mode, "model": model, "served": served or [model], "owner": "vllm",
            "tp": ns.get("tensor_parallel_size") or 1, "rank": ns["node_rank"],
            "nnodes": ns["nnodes"], "dist": dist, "bootstrap_port": None,
            "headless": dyn["headless"]}
    return finish_plan(plan, dyn, component)


def finish_plan(plan, dyn, component):
    namespace, endpoint = namespace_of(dyn), "generate"
    if dyn["endpoint"]:
        namespace, component, endpoint = parse_endpoint(dyn["endpoint"])
    request_plane = dyn["request_plane"]
    event_plane = dyn["event_plane"] or "zmq"
    plan.update({"dynamo": dyn, "namespace": namespace, "component": component,
                 "endpoint": endpoint, "request_plane": request_plane,
                 "event_plane": event_plane,
                 "needs_nats": "nats" in (request_plane, event_plane),
                 "leader": plan["rank"] == 0 and not plan.get("headless")})
    return plan


def dump_config(path, plan):
    body = {"dynamo": plan["dynamo"], "engine": plan["options"],
            "namespace": plan["namespace"], "component": plan["component"],
            "endpoint": plan["endpoint"],
            "environment": {k: v for k, v in os.environ.items()
                            if k.startswith(("DYN_", "ETCD_", "NATS_"))}}
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    with open(path, "w") as f:
        json.dump(body, f, indent=2, sort_keys=True, default=str)
        f.write("\n")


def main_worker(engine, args):
    module = engine
    dyn, ns, rest = parse_worker(engine, args)
    try:
        plan = (sglang_worker_plan if engine == "sglang" else vllm_worker_plan)(dyn, ns, rest)
    except ValueError as e:
        return value_error(module, e)
    except Refusal as e:
        sys.stderr.write(str(e) + "\n")
        return e.code
    except Fatal as e:
        log("ERROR", "dynamo." + module, str(e))
        return 1
    if SE.check_only():
        SE.print_options({"dynamo": dyn, "engine": ns, "role": plan["dyn_role"],
                          "namespace": plan["namespace"], "component": plan["component"],
                          "endpoint": plan["endpoint"]})
        return 0
    if dyn["dump_config_to"]:
        dump_config(dyn["dump_config_to"], plan)
    return run_worker(plan)


def record_env():
    return {k: v for k, v in os.environ.items()
            if k in ("ETCD_ENDPOINTS", "NATS_SERVER") or k.startswith("DYN_")}


# ---------------------------------------------------------------------------
# Workers: the life of one

class Registration:
    """The worker's lease and keys in etcd, kept alive by a thread."""

    def __init__(self, etcd, plan, transport, stop):
        self.etcd, self.plan, self.transport, self.stop = etcd, plan, transport, stop
        self.lease = None
        self.lost = None        # why the lease was lost, once it was

    def register(self):
        p = self.plan
        self.lease = self.etcd.grant(LEASE_TTL)
        hexid = "%x" % self.lease
        tail = "%s/%s/%s/%s" % (p["namespace"], p["component"], p["endpoint"], hexid)
        ident = {"namespace": p["namespace"], "component": p["component"],
                 "endpoint": p["endpoint"], "instance_id": self.lease}
        self.etcd.put("v1/instances/" + tail,
                      dict(ident, type="Endpoint", transport={"tcp": self.transport}), self.lease)
        card = {"display_name": p["served"][0], "slug": p["served"][0].replace("/", "--"),
                "source_path": p["model"], "model_type": "Prefill"
                if p["component"] == "prefill" else "Chat | Completions",
                "model_input": "Tokens", "served_by": p["prog"],
                "kv_cache_block_size": p.get("kv_block_size") or p["options"].get("page_size")
                or p["options"].get("block_size"),
                "migration_limit": 0}
        self.etcd.put("v1/mdc/" + tail, dict(ident, type="Model", card_json=card), self.lease)
        return hexid

    def keep(self):
        period = FE.env_float("FAKE_DYN_KEEPALIVE_SECONDS", 3.0)
        last_ok = time.monotonic()
        while not self.stop.wait(period):
            try:
                ttl = self.etcd.keepalive(self.lease)
            except EtcdError as e:
                if time.monotonic() - last_ok > LEASE_TTL:
                    self.lost = "etcd unreachable for more than the lease TTL: %s" % e
                    return
                log("WARN", "dynamo_runtime::transports::etcd", "lease keep-alive failed: %s" % e)
                continue
            if ttl <= 0:
                self.lost = "lease %x expired" % self.lease
                return
            last_ok = time.monotonic()

    def revoke(self):
        if self.lease is None:
            return
        try:
            self.etcd.revoke(self.lease)
            log("INFO", "dynamo_runtime::transports::etcd", "revoked lease %x" % self.lease)
        except EtcdError as e:
            log("WARN", "dynamo_runtime::transports::etcd", "failed to revoke lease: %s" % e)


def run_worker(plan):
    stop = FE.SignalFlag()
    FE.signal.signal(FE.signal.SIGTERM, lambda s, f: stop.set())
    FE.signal.signal(FE.signal.SIGINT, lambda s, f: stop.set())
    servers = []
    try:
        return worker_life(plan, stop, servers)
    except Fatal as e:
        log("ERROR", "dynamo_runtime", str(e))
        sys.stderr.write("Error: %s\n" % e)
        return 1
    except Refusal as e:
        FE.say(str(e))
        sys.stderr.write(str(e) + "\n")
        return e.code
    finally:
        for srv in servers:
            if hasattr(srv, "shutdown"):
                srv.shutdown()
                srv.server_close()
            else:
                srv.close()


def worker_life(plan, stop, servers):
    target = "dynamo." + plan["engine"]
    FE.record(None, None, extra={
        "prog": plan["prog"], "options": plan["options"], "dynamo": plan["dynamo"],
        "role": plan["dyn_role"], "namespace": plan["namespace"],
        "component": plan["component"], "endpoint": plan["endpoint"],
        "served_model_names": plan["served"], "node_rank": plan["rank"],
        "nnodes": plan["nnodes"], "request_plane": plan["request_plane"],
        "event_plane": plan["event_plane"], "dyn_env": record_env(),
        **plan.get("record_extra", {})})
    log("INFO", target, "%s worker: pid %d on %s, role %s, rank %d/%d, dyn://%s.%s.%s" % (
        plan["prog"], os.getpid(), socket.gethostname(), plan["dyn_role"], plan["rank"],
        plan["nnodes"], plan["namespace"], plan["component"], plan["endpoint"]))
    connect = FE.env_float("FAKE_DYN_CONNECT_SECONDS", 3.0)
    if plan["dynamo"]["discovery_backend"] != "etcd":
        raise Fatal("discovery backend %r is not imitated by the stand-in (etcd only)"
                    % plan["dynamo"]["discovery_backend"])
    etcd = Etcd()
    etcd.connect(stop, connect)
    log("INFO", "dynamo_runtime::transports::etcd", "connected to etcd at %s"
        % etcd.urls[etcd.current])
    if plan["needs_nats"]:
        nats = Nats()
        nats.connect(stop, connect)
        servers.append(nats)
        log("INFO", "dynamo_runtime::transports::nats", "connected to NATS at %s" % nats.url)
    status = start_status()
    if status is not None:
        servers.append(status)
    group, stopped = SE.prepare(plan, stop)
    if stopped:
        log("INFO", target, "Received signal, shutting down")
        return 0
    if plan["bootstrap_port"] is not None and plan["rank"] == 0:
        bs = SE.listen(SE.bind_host(), plan["bootstrap_port"], SE.Bootstrap, "bootstrap")
        servers.append(bs)
        log("INFO", target, "bootstrap server listening on port %d" % bs.server_address[1])
    reg = None
    if plan["leader"]:
        ip = etcd.local_ip()
        SE.LOAD = perfmodel.Load(plan["tp"])
        rp = SE.listen(ip, 0, RequestPlane, "request plane")
        servers.append(rp)
        port = rp.server_address[1]
        RequestPlane.info = dict(plan, engine="vllm", role=plan["dyn_role"], port=port,
                                 advertise=ip)
        reg = Registration(etcd, plan, "%s:%d" % (ip, port), stop)
        try:
            hexid = reg.register()
        except EtcdError as e:
            raise Fatal("failed to register endpoint in etcd: %s" % e)
        threading.Thread(target=reg.keep, daemon=True).start()
        Status.state["ready"] = True
        log("INFO", "dynamo_runtime::component::endpoint",
            "Registered endpoint dyn://%s.%s.%s instance_id=%x (%d) transport tcp %s:%d "
            "model %s" % (plan["namespace"], plan["component"], plan["endpoint"], reg.lease,
                          reg.lease, ip, port, plan["served"][0]))
    else:
        log("INFO", target, "node rank %d is not the leader: no endpoint registered"
            % plan["rank"])
    code = wait_worker(stop, group, reg)
    if reg is not None:
        Status.state["ready"] = False
        reg.revoke()
    if code == 0:
        log("INFO", target, "Received signal, shutting down")
    return code


def wait_worker(stop, group, reg):
    crash = FE.env_float("FAKE_ENGINE_CRASH_AFTER")
    end = None if crash is None else time.monotonic() + crash
    while not stop.wait(0.1):
        if group is not None and group.lost.is_set():
            if stop.wait(1.0):
                return 0
            log("ERROR", "dynamo_runtime", "a peer of the distributed group went away "
                "(NCCL communicator aborted)")
            return 1
        if reg is not None and reg.lost:
            log("ERROR", "dynamo_runtime::transports::etcd", "primary lease lost: %s; "
                "shutting down" % reg.lost)
            reg.lease = None
            return 1
        if end is not None and time.monotonic() >= end:
            code = int(os.environ.get("FAKE_ENGINE_CRASH_CODE") or 1)
            log("ERROR", "dynamo_runtime", "worker exiting with code %d "
                "(FAKE_ENGINE_CRASH_AFTER=%s)" % (code, crash))
            return code
    return 0


# ---------------------------------------------------------------------------
# dynamo.mocker: Dynamo's simulated engine (components/src/dynamo/mocker/
# args.py, the Dynamo 1.4 line srt-slurm pins): plain argparse, prefixes
# allowed, no positional argument; checks after parsing raise ValueError.

MOCKER_KV_DTYPES = ["auto", "bfloat16", "fp8", "fp8_ds_mla", "fp8_e4m3", "fp8_e5m2", "fp8_inc"]


def mocker_parser():
    p = argparse.ArgumentParser(
        prog=PROG, description="Mocker engine for testing Dynamo LLM infrastructure with "
        "vLLM-style CLI.", formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version="Dynamo Mocker 1.4.2")
    p.add_argument("--model-path", type=str, default=None)
    p.add_argument("--endpoint", type=str, default=None)
    p.add_argument("--model-name", type=str, default=None)
    p.add_argument("--num-gpu-blocks-override", dest="num_gpu_blocks", type=int, default=16384)
    p.add_argument("--block-size", type=int, default=None)
    p.add_argument("--max-num-seqs", type=int, default=256)
    p.add_argument("--max-num-batched-tokens", type=int, default=8192)
    for name in ("prefix-caching", "chunked-prefill"):
        dest = "enable_" + name.replace("-", "_")
        p.add_argument("--enable-" + name, dest=dest, action="store_true", default=True)
        p.add_argument("--no-enable-" + name, dest=dest, action="store_false")
    p.add_argument("--preemption-mode", type=str, default="lifo", choices=["lifo", "fifo"])
    p.add_argument("--speedup-ratio", type=float, default=1.0)
    p.add_argument("--decode-speedup-ratio", type=float, default=1.0)
    p.add_argument("--data-parallel-size", dest="dp_size", type=int, default=1)
    p.add_argument("--startup-time", type=float, default=None)
    p.add_argument("--planner-profile-data", type=str, default=None)
    p.add_argument("--aic-perf-model", action="store_true", default=False)
    for f in ("--aic-system", "--aic-backend-version"):
        p.add_argument(f, type=str, default=None)
    for f in ("--aic-tp-size", "--aic-moe-tp-size", "--aic-moe-ep-size",
              "--aic-attention-dp-size"):
        p.add_argument(f, type=int, default=None)
    p.add_argument("--num-workers", type=int, default=1)
    p.add_argument("--reasoning", type=str, default=None)
    p.add_argument("--engine-type", type=str, default="vllm", choices=["vllm", "sglang"])
    p.add_argument("--sglang-schedule-policy", type=str, default=None,
                   choices=["fifo", "fcfs", "lpm"])
    for f in ("--sglang-page-size", "--sglang-max-prefill-tokens",
              "--sglang-chunked-prefill-size", "--sglang-clip-max-new-tokens"):
        p.add_argument(f, type=int, default=None)
    p.add_argument("--sglang-schedule-conservativeness", type=float, default=None)
    p.add_argument("--extra-engine-args", type=str, default=None)
    p.add_argument("--disaggregation-mode", type=str, default=None,
                   choices=["agg", "prefill", "decode"])
    p.add_argument("--is-prefill-worker", action="store_true", default=False)
    p.add_argument("--is-decode-worker", action="store_true", default=False)
    p.add_argument("--durable-kv-events", action="store_true",
                   default=os.environ.get("DYN_DURABLE_KV_EVENTS", "false").lower() == "true")
    p.add_argument("--zmq-kv-events-ports", type=str, default=None)
    p.add_argument("--zmq-replay-ports", type=str, default=None)
    p.add_argument("--bootstrap-ports", type=str, default=None)
    p.add_argument("--kv-transfer-bandwidth", type=float, default=64.0)
    p.add_argument("--kv-cache-dtype", type=str, default="auto", choices=MOCKER_KV_DTYPES)
    p.add_argument("--kv-bytes-per-token", type=int, default=None)
    p.add_argument("--stagger-delay", type=float, default=-1.0)
    p.add_argument("--discovery-backend", type=str,
                   default=os.environ.get("DYN_DISCOVERY_BACKEND", "etcd"),
                   choices=["kubernetes", "etcd", "file", "mem"])
    p.add_argument("--request-plane", type=str,
                   default=os.environ.get("DYN_REQUEST_PLANE", "tcp"),
                   choices=["nats", "http", "tcp"])
    p.add_argument("--event-plane", type=str, default=os.environ.get("DYN_EVENT_PLANE", "nats"),
                   choices=["nats", "zmq"])
    return p


def mocker_ports(text, flag):
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise ValueError("%s must be a comma-separated list of integers, got %r" % (flag, text))


def mocker_worker_plan(ns):
    """The checks args.py and main.py make after parsing (ValueError), and the plan."""
    mode = worker_mode(ns, "mocker", "Cannot combine --is-prefill-worker/--is-decode-worker "
                       "with --disaggregation-mode. Use only --disaggregation-mode.",
                       "Cannot specify both --is-prefill-worker and --is-decode-worker")
    n = ns["num_workers"]
    if n < 1:
        raise ValueError("--num-workers must be at least 1, got %d" % n)
    ports = {}
    for dest, flag in (("bootstrap_ports", "--bootstrap-ports"),
                       ("zmq_kv_events_ports", "--zmq-kv-events-ports"),
                       ("zmq_replay_ports", "--zmq-replay-ports")):
        if ns[dest] is not None:
            ports[dest] = mocker_ports(ns[dest], flag)
            if len(ports[dest]) != n:
                raise ValueError("%s must have exactly --num-workers (%d) ports, got %d: %s"
                                 % (flag, n, len(ports[dest]), ports[dest]))
    if ns["zmq_replay_ports"] is not None and ns["zmq_kv_events_ports"] is None:
        raise ValueError("--zmq-replay-ports requires --zmq-kv-events-ports")
    if ns["stagger_delay"] < 0 and ns["stagger_delay"] != -1:
        raise ValueError("--stagger-delay must be -1 (auto) or >= 0, got %s" % ns["stagger_delay"])
    model = ns["model_path"]
    if model:
        SE.check_model(model)
    served = ns["model_name"] or model or "mocker"
    dyn = {"namespace": os.environ.get("DYN_NAMESPACE", "dynamo"), "endpoint": ns["endpoint"],
           "request_plane": ns["request_plane"], "event_plane": ns["event_plane"],
           "discovery_backend": ns["discovery_backend"]}
    plan = {"engine": "mocker", "prog": "dynamo.mocker", "options": ns, "role": mode,
            "dyn_role": mode, "model": model or served, "served": [served], "owner": "mocker",
            "tp": 1, "rank": 0, "nnodes": 1, "dist": None, "headless": False,
            "kv_block_size": ns["block_size"] or (1 if ns["engine_type"] == "sglang" else 64),
            "bootstrap_port": ports["bootstrap_ports"][0] if mode == "prefill" and
            "bootstrap_ports" in ports else None,
            "record_extra": {"num_workers": n}}
    return finish_plan(plan, dyn, "prefill" if mode == "prefill" else "backend")


def main_mocker(args):
    ns = vars(mocker_parser().parse_args(args))
    try:
        plan = mocker_worker_plan(ns)
    except ValueError as e:
        return value_error("mocker", e, where="main.py\", line 1, in worker")
    except Refusal as e:
        sys.stderr.write(str(e) + "\n")
        return e.code
    if SE.check_only():
        SE.print_options({"dynamo": plan["dynamo"], "engine": ns, "role": plan["dyn_role"],
                          "namespace": plan["namespace"], "component": plan["component"],
                          "endpoint": plan["endpoint"]})
        return 0
    return run_worker(plan)


def main_sglang(args):
    return main_worker("sglang", args)


def main_vllm(args):
    return main_worker("vllm", args)


# ---------------------------------------------------------------------------
# The frontend

class Discovery:
    """What the frontend knows from etcd: instances and model cards,
    re-read every $FAKE_DYN_DISCOVERY_SECONDS (0.5)."""

    def __init__(self, etcd, namespace, prefix):
        self.etcd, self.namespace, self.prefix = etcd, namespace, prefix
        self.lock = threading.Lock()
        self.complete = False
        self.error = None
        self.instances = []     # every Endpoint value, as stored
        self.routes = []        # [(instance, model name)] generate endpoints with a card
        self.cursor = itertools.count()

    def refresh(self):
        insts, cards = [], {}
        for key, value in self.etcd.range_prefix("v1/instances/"):
            try:
                v = json.loads(value)
            except ValueError:
                continue
            if isinstance(v, dict) and v.get("type", "Endpoint") == "Endpoint":
                insts.append(v)
        for key, value in self.etcd.range_prefix("v1/mdc/"):
            try:
                v = json.loads(value)
                cards[key[len("v1/mdc/"):]] = v["card_json"]["display_name"]
            except (ValueError, KeyError, TypeError):
                continue
        routes = []
        for i in insts:
            ns = str(i.get("namespace"))
            if self.prefix is not None:
                if not ns.startswith(self.prefix):
                    continue
            elif self.namespace is not None and ns != self.namespace:
                continue
            tail = "%s/%s/%s/%x" % (ns, i.get("component"), i.get("endpoint"),
                                    int(i.get("instance_id") or 0))
            if i.get("endpoint") == "generate" and tail in cards:
                routes.append((i, cards[tail]))
        with self.lock:
            old = {(r[0]["instance_id"], r[1]) for r in self.routes}
            new = {(r[0]["instance_id"], r[1]) for r in routes}
            self.instances, self.routes = insts, routes
            first = not self.complete
            self.complete, self.error = True, None
        for r in routes:
            if (r[0]["instance_id"], r[1]) not in old:
                log("INFO", "dynamo_llm::discovery::watcher",
                    "added instance %x of dyn://%s.%s.%s for model %s" % (
                        r[0]["instance_id"], r[0]["namespace"], r[0]["component"],
                        r[0]["endpoint"], r[1]))
        for iid, model in sorted(old - new):
            log("INFO", "dynamo_llm::discovery::watcher",
                "removed instance %x (model %s)" % (iid, model))
        if first:
            log("INFO", "dynamo_llm::discovery", "initial discovery complete: %d instances"
                % len(insts))

    def run(self, stop):
        period = FE.env_float("FAKE_DYN_DISCOVERY_SECONDS", 0.5)
        while not stop.is_set():
            try:
                self.refresh()
            except EtcdError as e:
                with self.lock:
                    if not self.complete:
                        self.error = str(e)
                log("WARN", "dynamo_llm::discovery", "etcd read failed: %s" % e)
            stop.wait(period)

    def health(self):
        with self.lock:
            insts = [{"component": i.get("component"), "endpoint": i.get("endpoint"),
                      "namespace": i.get("namespace"), "instance_id": i.get("instance_id"),
                      "transport": i.get("transport")} for i in self.instances]
            return self.complete, self.error, insts

    def models(self):
        with self.lock:
            return sorted({m for i, m in self.routes if i.get("component") != "prefill"})

    def pick(self, model, prefill, random_mode):
        with self.lock:
            pool = [i for i, m in self.routes if m == model
                    and (i.get("component") == "prefill") == prefill]
        if not pool:
            return None
        pool.sort(key=lambda i: i["instance_id"])
        i = random.choice(pool) if random_mode else pool[next(self.cursor) % len(pool)]
        return {"url": "http://%s" % (i.get("transport") or {}).get("tcp"),
                "id": "%x" % i["instance_id"], "component": i.get("component")}


class Picks:
    """The strict routers' worker-set interface (pick("prefill"/"decode"/
    "regular")) over the instances serving one model, remembering the picks."""

    def __init__(self, disc, model, random_mode):
        self.disc, self.model, self.random = disc, model, random_mode
        self.got = {}

    def pick(self, kind):
        w = self.disc.pick(self.model, kind == "prefill", self.random)
        if w is not None:
            self.got[kind] = w
        return w


def oai_error(status, message, typ):
    return status, {"error": {"message": message, "type": typ, "code": status}}


class Frontend(SR.Router):
    disc = None
    opts = None
    shutting_down = False

    def do_GET(self):
        p = self.path.split("?", 1)[0]
        if p in ("/health", "/v1/health"):
            return self.health()
        if p == "/live":
            if self.shutting_down:
                return self.reply(503, {"status": "shutting_down",
                                        "message": "Service is shutting down"})
            return self.reply(200, {"status": "live", "message": "Service is live"})
        if p == "/v1/models":
            now = int(time.time())
            return self.reply(200, {"object": "list", "data": [
                {"id": m, "object": "model", "created": now, "owned_by": "nvidia"}
                for m in self.disc.models()]})
        if p == "/metrics":
            data = b"# TYPE dynamo_frontend_up gauge\ndynamo_frontend_up 1\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return None
        return self.reply(404, {"error": "Not Found"})

    def health(self):
        complete, error, insts = self.disc.health()
        if self.shutting_down:
            return self.reply(503, {"status": "shutting_down", "message": "Service is shutting "
                                    "down", "initial_discovery_complete": complete,
                                    "initial_discovery_error": error, "endpoints": [],
                                    "instances": []})
        if not complete:
            return self.reply(503, {
                "status": "not_ready",
                "message": "Initial discovery failed" if error else
                "Initial discovery in progress", "initial_discovery_complete": False,
                "initial_discovery_error": error, "endpoints": [], "instances": []})
        eps = sorted({"dyn://%s.%s.%s" % (i["namespace"], i["component"], i["endpoint"])
                      for i in insts})
        return self.reply(200, {"status": "healthy", "message": "Service is healthy",
                                "initial_discovery_complete": True,
                                "initial_discovery_error": None, "endpoints": eps,
                                "instances": insts})

    def do_POST(self):
        p = self.path.split("?", 1)[0]
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        if p not in ("/v1/completions", "/v1/chat/completions"):
            return self.reply(404, {"error": "Not Found"})
        try:
            body = json.loads(raw or b"{}")
            assert isinstance(body, dict)
        except (ValueError, AssertionError):
            return self.reply(*oai_error(400, "request body is not a JSON object",
                                         "invalid_request_error"))
        model = body.get("model")
        if not isinstance(model, str) or not model:
            return self.reply(*oai_error(400, "missing field `model`", "invalid_request_error"))
        rid = self.headers.get("X-Request-Id") or str(uuid.uuid4())
        picks = Picks(self.disc, model, self.opts["router_mode"] == "random")
        has_prefill = self.disc.pick(model, True, False) is not None
        if self.opts["enforce_disagg"] and not has_prefill:
            return self.answer_with(p, rid, model, picks, *oai_error(
                503, "no prefill instances available for model %s (--enforce-disagg)" % model,
                "Service Unavailable"))
        if self.disc.pick(model, False, False) is None:
            return self.answer_with(p, rid, model, picks, *oai_error(
                503, "no instances found for model %s" % model, "Service Unavailable"))
        stream = body.get("stream") is True
        if stream:
            if has_prefill:
                got = SR.pd_vllm_stream(picks, p, body, rid)
            else:
                w = picks.pick("regular")
                got = SR.open_stream(w["url"] + p, body, rid) if w else \
                    oai_error(503, "no instances found for model %s" % model,
                              "Service Unavailable") + (None,)
            self.note(p, rid, model, picks, got[0])
            return self.deliver(*got)
        if has_prefill:
            status, out = SR.pd_vllm(picks, p, body, rid)
        else:
            w = picks.pick("regular")
            status, out = SR.post(w["url"] + p, body, rid) if w else oai_error(
                503, "no instances found for model %s" % model, "Service Unavailable")
        return self.answer_with(p, rid, model, picks, status, out)

    def answer_with(self, path, rid, model, picks, status, out):
        self.note(path, rid, model, picks, status)
        return self.reply(status, out)

    def note(self, path, rid, model, picks, status):
        pf, dc = picks.got.get("prefill"), picks.got.get("decode") or picks.got.get("regular")
        log("INFO", "dynamo_llm::http::service", "request %s %s model=%s prefill=%s "
            "decode=%s status=%s" % (rid, path, model, pf["id"] if pf else "-",
                                     dc["id"] if dc else "-", status))


def main_frontend(args):
    parser = frontend_parser()
    ns, unknown = parser.parse_known_args(args)
    opts = vars(ns)
    if unknown:
        if opts["chat_processor"] != "vllm":
            log("ERROR", "dynamo.frontend", "Unknown arguments specified: %s" % unknown)
            return 1
        vllm_engine_parser().parse_args(strict_cli.vllm_preprocess(unknown))
    try:
        if bool(opts["tls_cert_path"]) ^ bool(opts["tls_key_path"]):
            raise ValueError("--tls-cert-path and --tls-key-path must be provided together")
        if not 0 <= opts["migration_limit"] <= 4294967295:
            raise ValueError("--migration-limit must be between 0 and 4294967295 (0=disabled)")
    except ValueError as e:
        return value_error("frontend", e)
    os.environ.pop("DYN_SYSTEM_PORT", None)     # the frontend has no status server
    host = opts["http_host"]
    if not given(args, "--http-host", "--http-host") and "DYN_HTTP_HOST" not in os.environ:
        host = os.environ.get("FAKE_BIND_HOST") or host
    if SE.check_only():
        SE.print_options(opts)
        return 0
    if opts["dump_config_to"]:
        with open(opts["dump_config_to"], "w") as f:
            json.dump(opts, f, indent=2, sort_keys=True, default=str)
            f.write("\n")
    stop = FE.SignalFlag()
    FE.signal.signal(FE.signal.SIGTERM, lambda s, f: stop.set())
    FE.signal.signal(FE.signal.SIGINT, lambda s, f: stop.set())
    FE.record(opts["http_port"], host, name="frontend.jsonl", extra={
        "prog": "dynamo.frontend", "options": opts, "dyn_env": record_env()})
    connect = FE.env_float("FAKE_DYN_CONNECT_SECONDS", 3.0)
    nats = None
    try:
        if opts["discovery_backend"] != "etcd":
            raise Fatal("discovery backend %r is not imitated by the stand-in (etcd only)"
                        % opts["discovery_backend"])
        etcd = Etcd()
        etcd.connect(stop, connect)
        log("INFO", "dynamo_runtime::transports::etcd", "connected to etcd at %s"
            % etcd.urls[etcd.current])
        if opts["request_plane"] == "nats" or (opts["router_mode"] == "kv"
                                               and opts["event_plane"] == "nats"):
            nats = Nats()
            nats.connect(stop, connect)
            log("INFO", "dynamo_runtime::transports::nats", "connected to NATS at %s"
                % nats.url)
        try:
            srv = FE.Server((host, opts["http_port"]), Frontend)
        except OSError as e:
            raise Fatal("Failed to bind HTTP service on %s:%d: %s"
                        % (host, opts["http_port"], e.strerror or e))
    except Fatal as e:
        log("ERROR", "dynamo_runtime", str(e))
        sys.stderr.write("Error: %s\n" % e)
        if nats is not None:
            nats.close()
        return 1
    Frontend.disc = Discovery(etcd, opts["namespace"], opts["namespace_prefix"])
    Frontend.opts = opts
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05},
                     daemon=True).start()
    log("INFO", "dynamo_llm::http::service::service_v2", "Starting HTTP service on: %s:%d "
        "address=\"%s:%d\"" % (host, opts["http_port"], host, opts["http_port"]))
    threading.Thread(target=Frontend.disc.run, args=(stop,), daemon=True).start()
    stop.wait()
    Frontend.shutting_down = True
    log("INFO", "dynamo.frontend", "Received signal, shutting down")
    srv.shutdown()
    srv.server_close()
    if nats is not None:
        nats.close()
    return 0
