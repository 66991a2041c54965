"""Runtime of the TensorRT-LLM stand-ins (tests/fakes/trtllm_llmapi_launch,
tests/fakes/dynamo_trtllm, tests/fakes/trtllm_serve; see README.md,
"TensorRT-LLM stand-ins").  The facts they follow are in
../notes/trtllm-facts.md (outside the repository).

- trtllm-llmapi-launch: the MPI rank and world size from the environment
  as the real bash script reads them, rank 0 runs the wrapped command
  without the MPI variables plus the stand-in of the MPI Comm server (a
  TCP listener at TLLM_SPAWN_PROXY_PROCESS_IPC_ADDR), the other ranks stand
  in for `mgmn_worker_node` and wait for a signal.  Under FAKE_CHECK_ONLY=1
  rank 0 calls the wrapped stand-in's main() in-process instead
  (check_launch).
- python3 -m dynamo.trtllm: Dynamo's 2026 parser (runtime flags, the
  TRT-LLM group, the worker's router advertisement, `--trtllm.*` dynamic
  flags), the engine YAML read as TRT-LLM reads it, the MPI world checked
  against tensor_parallel_size * pipeline_parallel_size *
  context_parallel_size, then the Dynamo worker of strict_dynamo.py.
- trtllm-serve: click's parser over flags/trtllm-serve*.flags, the same
  YAML and world checks, then the strict engine of strict_engine.py
  (engine "trtllm": TRT-LLM's disaggregated_params); `disaggregated`
  reads the server config and routes context first, then generation.

Python 3 standard library plus PyYAML (what the real programs read YAML
with).
"""

import argparse
import errno
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import flagdata  # noqa: E402
import strict_cli  # noqa: E402
import strict_dynamo as SD  # noqa: E402
import strict_engine as SE  # noqa: E402
import strict_router as SR  # noqa: E402

FE = SE.FE
Refusal = SE.Refusal

# trtllm-llmapi-launch unsets these in the wrapped command's environment
MPI_ENV_PREFIXES = ("OMPI_", "PMIX_", "PMI_", "SLURM_", "MPI_", "UCX_", "I_MPI_", "HYDRA_",
                    "KMP_", "MPICH_", "MV2_", "CRAY_")
IPC_ADDR = "TLLM_SPAWN_PROXY_PROCESS_IPC_ADDR"
HMAC_KEY = "TLLM_SPAWN_PROXY_PROCESS_IPC_HMAC_KEY"


class PyError(Exception):
    """An uncaught Python exception of the real program: traceback, exit 1."""

    def __init__(self, exc, message):
        super().__init__(message)
        self.exc = exc


def traceback_exit(where, e):
    sys.stderr.write("Traceback (most recent call last):\n  File \"%s\"\n%s: %s\n"
                     % (where, e.exc, e))
    return 1


def env_first(names, default=None):
    """The first of the variables that is set and not empty (bash ${A:-${B:-...}})."""
    for n in names:
        if os.environ.get(n):
            return os.environ[n]
    return default


# ---------------------------------------------------------------------------
# trtllm-llmapi-launch

def launcher_log(msg):
    """The launcher's log_stderr: `echo -e "\\033[33m$@\\033[0m" >&2`."""
    try:
        sys.stderr.write("\033[33m%s\033[0m\n" % msg)
        sys.stderr.flush()
    except OSError:
        pass


class CommServer:
    """Stands in for rank 0's `mgmn_leader_node` (the MPI Comm server the
    wrapped LLM connects to): a listener on 127.0.0.1, the first free port
    from 10012 up as the real script looks for one."""

    def __init__(self):
        self.sock = socket.socket()
        port = 10012
        while True:
            try:
                self.sock.bind(("127.0.0.1", port))
                break
            except OSError:
                port += 1
        self.sock.listen(16)
        self.port = port
        self.conns = []
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)

    def close(self):
        for s in self.conns + [self.sock]:
            try:
                s.close()
            except OSError:
                pass


def free_port_from(port):
    while True:
        s = socket.socket()
        try:
            s.bind(("", port))
            return port
        except OSError:
            port += 1
        finally:
            s.close()


def main_launch(argv):
    if not SE.check_only():
        return launch(argv)
    saved = dict(os.environ)    # in-process callers (corpus_argv_check.py) get it back
    try:
        return launch(argv)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def launch(argv):
    rank_s = env_first(("SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMI_ID"), "0")
    world = env_first(("SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE"), "1")
    launcher_log("mpi_rank: %s" % rank_s)
    os.environ["TLLM_SPAWN_PROXY_PROCESS"] = "1"
    os.environ["tllm_mpi_size"] = world
    launcher_log("tllm_mpi_size: %s" % world)
    try:
        leader = int(rank_s) == 0
    except ValueError:
        sys.stderr.write("trtllm-llmapi-launch: line 54: [: %s: integer expression expected\n"
                         % rank_s)
        leader = False
    if SE.check_only():
        return check_launch(argv, rank_s, world, leader)
    server = CommServer() if leader else None
    os.environ[IPC_ADDR] = "tcp://127.0.0.1:%d" % (server.port if leader else free_port_from(10012))
    launcher_log("%s: %s" % (IPC_ADDR, os.environ[IPC_ADDR]))
    os.environ[HMAC_KEY] = secrets.token_hex(32)
    FE.record(None, None, name="launcher.jsonl", extra={
        "prog": "trtllm-llmapi-launch", "rank": rank_s, "world_size": world, "command": argv})
    caught = []

    def on_signal(signum, frame):
        caught.append(signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if not leader:
        launcher_log("Rank%s run mgmn worker node with mpi_world_size: %s ..." % (rank_s, world))
        while not caught:
            time.sleep(0.1)
        return 128 + caught[0]     # bash has no trap: the signal ends it
    try:
        return lead(argv, rank_s, world, caught)
    finally:
        server.close()


# The stand-ins that rank 0 runs in-process under FAKE_CHECK_ONLY=1, by the
# basename of the wrapped command's argv[0]
CHECK_ONLY_MAINS = {"dynamo_trtllm": "main_dynamo", "trtllm_serve": "main_serve"}


def check_launch(argv, rank_s, world, leader):
    """FAKE_CHECK_ONLY=1: no MPI Comm server, no subprocess.  Rank 0 calls the
    wrapped stand-in's main() in this process, with the environment the
    real subshell gives it (the MPI variables removed; TLLM_SPAWN_PROXY_PROCESS,
    tllm_mpi_size, the IPC address and HMAC key set), and returns its exit
    status (main_launch restores os.environ afterwards).  Ranks > 0 only log."""
    if not leader:
        launcher_log("Rank%s run mgmn worker node with mpi_world_size: %s ..." % (rank_s, world))
        return 0
    launcher_log("Rank%s run %s in background" % (rank_s, " ".join(argv)))
    if not argv:
        launcher_log("Rank%s Task exit code: 0" % rank_s)
        return 0
    name = CHECK_ONLY_MAINS.get(os.path.basename(argv[0]))
    if name is None:
        sys.stderr.write("trtllm-llmapi-launch: FAKE_CHECK_ONLY=1 runs only the stand-ins %s "
                         "in-process, not %r\n" % (", ".join(sorted(CHECK_ONLY_MAINS)), argv[0]))
        return 127
    os.environ[IPC_ADDR] = "tcp://127.0.0.1:10012"
    launcher_log("%s: %s" % (IPC_ADDR, os.environ[IPC_ADDR]))
    os.environ[HMAC_KEY] = secrets.token_hex(32)
    for k in [k for k in os.environ if k.startswith(MPI_ENV_PREFIXES)]:
        del os.environ[k]
    try:
        code = globals()[name](argv[1:])
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            code = e.code or 0
        else:
            sys.stderr.write("%s\n" % e.code)
            code = 1
    launcher_log("Rank%s Task exit code: %d" % (rank_s, code))
    return code


def lead(argv, rank_s, world, caught):
    launcher_log("Rank%s run %s in background" % (rank_s, " ".join(argv)))
    env = {k: v for k, v in os.environ.items() if not k.startswith(MPI_ENV_PREFIXES)}
    child, code = None, 0
    if argv:
        try:
            child = subprocess.Popen(argv, env=env)
        except OSError as e:
            sys.stderr.write("trtllm-llmapi-launch: line 77: %s: %s\n" % (
                argv[0], "command not found" if e.errno == errno.ENOENT else e.strerror))
            code = 127 if e.errno == errno.ENOENT else 126
    launcher_log("Rank%s Subshell PID: %d" % (rank_s, child.pid if child else os.getpid()))
    launcher_log("Rank%s run mgmn leader node with mpi_world_size: %s ..." % (rank_s, world))
    launcher_log("Rank0 host: %s" % socket.gethostname())
    if child is not None:
        while child.poll() is None and not caught:
            time.sleep(0.05)
        if caught:
            # under srun the step's signal reaches the task too; here the
            # stand-in passes it on, then ends as the untrapped bash would
            return stop_child(child, caught[0])
        code = child.returncode if child.returncode >= 0 else 128 - child.returncode
    launcher_log("Rank%s Task exit code: %d" % (rank_s, code))
    launcher_log("Rank%s MPI Comm server exit code: 0" % rank_s)
    launcher_log("Rank%s MGMN leader node exit code: 0" % rank_s)
    launcher_log("Rank%s Subshell exit code: %d" % (rank_s, code))
    return code


def stop_child(child, signum):
    try:
        child.send_signal(signum)
        child.wait(timeout=FE.env_float("FAKE_LAUNCH_STOP_SECONDS", 10.0))
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
    except OSError:
        pass
    return 128 + signum


# ---------------------------------------------------------------------------
# What TRT-LLM does with the engine YAML and the MPI world

def read_engine_yaml(path):
    """update_llm_args_with_extra_options: open(), yaml.safe_load(), then
    `field in d` and `llm_args | d`.  Returns the dict; PyError otherwise."""
    try:
        with open(SE.host_path(path)) as f:
            data = yaml.safe_load(f)
    except OSError as e:
        raise PyError({errno.ENOENT: "FileNotFoundError", errno.EACCES: "PermissionError",
                       errno.EISDIR: "IsADirectoryError"}.get(e.errno, "OSError"),
                      "[Errno %d] %s: '%s'" % (e.errno, e.strerror, path))
    except yaml.YAMLError as e:
        raise PyError("%s.%s" % (type(e).__module__, type(e).__name__), str(e))
    if isinstance(data, dict):
        return data
    if isinstance(data, (list, str)):
        raise PyError("TypeError", "unsupported operand type(s) for |: 'dict' and '%s'"
                      % type(data).__name__)
    raise PyError("TypeError", "argument of type '%s' is not iterable" % type(data).__name__)


# ---------------------------------------------------------------------------
# The mooncake-store KV connector (tensorrt_llm/_torch/pyexecutor/connectors/
# mooncake_store, the refined API of NVIDIA/TensorRT-LLM#19706): the client
# config MOONCAKE_CONFIG_PATH names wins over a mooncake_store block; its
# sizes are read with strict (binary) units; role is one of four.  The
# connector's own error words were not readable, so these ValueErrors are the
# stand-in's, shaped as TRT-LLM raises them (a traceback, exit 1).

MOONCAKE_MODULE = "tensorrt_llm._torch.pyexecutor.connectors.mooncake_store"
MOONCAKE_ROLES = ("both", "producer", "consumer", "capacity")
BINARY_UNITS = {"": 1, "b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}
DECIMAL_UNITS = ("k", "kb", "m", "mb", "g", "gb", "t", "tb")


def strict_size(key, value, least):
    import re
    if isinstance(value, bool):
        raise PyError("ValueError", "%s: %r is not a size" % (key, value))
    if isinstance(value, (int, float)):
        n = value
    else:
        m = re.match(r"^\s*([0-9]+(\.[0-9]+)?)\s*([a-zA-Z]*)\s*$", str(value))
        if not m:
            raise PyError("ValueError", "%s: %r is not a size" % (key, value))
        unit = m.group(3).lower()
        if unit in DECIMAL_UNITS:
            raise PyError("ValueError", "%s: %r uses a decimal unit; write binary units "
                          "(KiB, MiB, GiB, TiB)" % (key, value))
        if unit not in BINARY_UNITS:
            raise PyError("ValueError", "%s: unknown unit in %r" % (key, value))
        n = float(m.group(1)) * BINARY_UNITS[unit]
    if n != n or n in (float("inf"), float("-inf")) or n < least:
        raise PyError("ValueError", "%s must be at least %d bytes, not %r" % (key, least, value))
    return int(n)


def mooncake_client(llm_args):
    """The master address the connector of this engine config joins, None
    when it selects no Mooncake connector; PyError as TRT-LLM fails."""
    kc = llm_args.get("kv_connector_config")
    if not isinstance(kc, dict):
        return None
    module = kc.get("connector_module") or (
        MOONCAKE_MODULE if kc.get("connector") == "mooncake-store" else None)
    if module != MOONCAKE_MODULE:
        return None
    path = os.environ.get("MOONCAKE_CONFIG_PATH")
    if not path:
        if kc.get("mooncake_store"):
            raise Refusal("stand-in: TRT-LLM provisioning a Mooncake pool of its own "
                          "(kv_connector_config.mooncake_store without MOONCAKE_CONFIG_PATH) "
                          "is not imitated", 2)
        raise PyError("ValueError", "the mooncake-store connector needs a Mooncake client "
                      "config: set MOONCAKE_CONFIG_PATH or kv_connector_config.mooncake_store")
    try:
        with open(SE.host_path(path)) as f:
            cfg = json.load(f)
    except OSError as e:
        raise PyError("FileNotFoundError" if e.errno == errno.ENOENT else "OSError",
                      "[Errno %d] %s: '%s'" % (e.errno, e.strerror, path))
    except ValueError as e:
        raise PyError("json.decoder.JSONDecodeError", str(e))
    if not isinstance(cfg, dict):
        raise PyError("ValueError", "%s: the Mooncake client config is not an object" % path)
    role = str(cfg.get("role", "both")).strip().lower()
    if role not in MOONCAKE_ROLES:
        raise PyError("ValueError", "role must be one of %s, not %r"
                      % (", ".join(MOONCAKE_ROLES), cfg.get("role")))
    for key, least in (("global_segment_size", 0), ("local_buffer_size", 1)):
        if key in cfg:
            strict_size(key, cfg[key], least)
    if "transfer_batch_size" in cfg:
        v = cfg["transfer_batch_size"]
        try:
            if isinstance(v, bool) or int(v) <= 0:
                raise ValueError
        except (TypeError, ValueError):
            raise PyError("ValueError", "transfer_batch_size must be a positive integer, not %r"
                          % (v,))
    addr = cfg.get("master_server_address")
    if not isinstance(addr, str) or ":" not in addr:
        raise PyError("ValueError", "%s: master_server_address must be host:port, not %r"
                      % (path, addr))
    say_mooncake = "mooncake-store: %s joins the pool at %s as %s (model_key %s)" % (
        path, addr, role, cfg.get("model_key"))
    sys.stderr.write(say_mooncake + "\n")
    return None if SE.check_only() else addr     # check-only waits for no peer


def merge(base, over):
    out = dict(base)
    for k, v in over.items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def parallel_sizes(args):
    """(tp, pp, cp) of the merged LLM args, type-checked as pydantic would."""
    sizes = []
    for key in ("tensor_parallel_size", "pipeline_parallel_size", "context_parallel_size"):
        v = args.get(key)
        v = 1 if v is None else v
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise PyError("pydantic_core._pydantic_core.ValidationError",
                          "1 validation error for TorchLlmArgs\n%s\n  Input should be a "
                          "valid integer greater than 0 [input_value=%r]" % (key, v))
        sizes.append(v)
    return tuple(sizes)


def check_world(tp, pp, cp):
    """The MPI world this engine runs in; Refusal when it cannot run there.
    Under trtllm-llmapi-launch the wrapped command sees no MPI variables, only
    tllm_mpi_size (TRT-LLM's get_mpi_world_size reads it then)."""
    model = tp * pp * cp
    if os.environ.get("TLLM_SPAWN_PROXY_PROCESS") == "1":
        try:
            world = int(os.environ.get("tllm_mpi_size") or 1)
        except ValueError:
            raise PyError("ValueError", "invalid literal for int() with base 10: %r"
                          % os.environ["tllm_mpi_size"])
        if world != model:
            raise Refusal(
                "RuntimeError: trtllm-llmapi-launch started %d MPI rank(s) (tllm_mpi_size=%d) but "
                "tensor_parallel_size * pipeline_parallel_size * context_parallel_size = "
                "%d * %d * %d = %d: run %d MPI tasks (srun --ntasks) for this engine "
                "[stand-in check: the real engine does not say so; it fails or hangs later]"
                % (world, world, tp, pp, cp, model, model))
        if world > 1 and not SE.check_only():
            check_comm_server()
        return world
    world = int(env_first(("SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"), "1"))
    if world > 1:
        rank = env_first(("SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK"), "0")
        if rank != "0":
            raise Refusal("AssertionError: create_mpi_comm_session must be called by rank 0, "
                          "but it was called by rank %s" % rank)
        raise Refusal("RuntimeError: rank 0 of %d MPI tasks started without "
                      "trtllm-llmapi-launch: every rank runs its own copy of the command "
                      "[stand-in check; the real ranks > 0 fail the assertion above]" % world)
    return 1


def check_comm_server():
    """A world > 1 under the launcher: the LLM connects to the MPI Comm
    server at TLLM_SPAWN_PROXY_PROCESS_IPC_ADDR with the HMAC key."""
    addr = os.environ.get(IPC_ADDR)
    if not addr:
        raise Refusal("AssertionError: %s is not set." % IPC_ADDR)
    if not os.environ.get(HMAC_KEY):
        raise Refusal("RuntimeError: %s is not set. HMAC encryption is required for IPC "
                      "communication." % HMAC_KEY)
    u = urllib.parse.urlsplit(addr)
    end = time.monotonic() + FE.env_float("FAKE_TRTLLM_COMM_SECONDS", 10.0)
    while True:
        try:
            if u.scheme == "ipc":
                s = socket.socket(socket.AF_UNIX)
                s.connect(addr[len("ipc://"):])
            else:
                s = socket.create_connection((u.hostname, u.port), timeout=1.0)
            s.close()
            return
        except (OSError, ValueError, TypeError) as e:
            if time.monotonic() >= end:
                raise Refusal("RuntimeError: nothing answers at %s=%s (%s): no MPI Comm server "
                              "of trtllm-llmapi-launch's rank 0 [stand-in check: the real "
                              "client waits forever]" % (IPC_ADDR, addr, e))
        time.sleep(0.2)


# ---------------------------------------------------------------------------
# python3 -m dynamo.trtllm (components/src/dynamo/trtllm/args.py, backend_args.py)

DEFAULT_MODEL = "TinyLlama/TinyLlama-1.1B-Chat-v1.0"
DISAGG_MODES = ["agg", "pd", "prefill", "decode", "encode"]
MODALITIES = ["text", "multimodal", "video_diffusion", "image_diffusion"]
ROUTER_MODES = ["round-robin", "random", "power-of-two", "kv", "direct", "least-loaded",
                "device-aware-weighted"]


def nullable(typ):
    def conv(text):
        return None if text in ("None", "none", "") else typ(text)
    conv.__name__ = typ.__name__
    return conv


def trtllm_group(p):
    """DynamoTrtllmArgGroup (backend_args.py, 2026)."""
    arg, neg = SD.arg, SD.neg
    p.add_argument("--version", action="version", version="Dynamo Backend TRTLLM (stand-in)")
    g = p.add_argument_group("Dynamo TRT-LLM Options")
    g.add_argument("--model", "--model-path", dest="model",   # --model-path: the obsolete alias
                   default=SD.env_or_default("DYN_TRTLLM_MODEL", DEFAULT_MODEL))
    arg(g, "--served-model-name", "DYN_TRTLLM_SERVED_MODEL_NAME", None)
    for flag, default in (("tensor-parallel-size", 1), ("pipeline-parallel-size", 1),
                          ("expert-parallel-size", None)):
        arg(g, "--" + flag, "DYN_TRTLLM_" + flag.upper().replace("-", "_"), default, typ=int)
    neg(g, "--enable-attention-dp", "DYN_TRTLLM_ENABLE_ATTENTION_DP", False)
    neg(g, "--conversation-affinity", "DYN_ENGINE_CONV_AFFINITY", False)
    arg(g, "--conversation-affinity-dp-rank-source", "DYN_ENGINE_CONV_AFFINITY_DP_RANK_SOURCE",
        "engine", choices=["engine", "dynamo"])
    for flag, default in (("kv-block-size", 32), ("gpus-per-node", None),
                          ("max-batch-size", 2048), ("max-num-tokens", 8192),
                          ("max-seq-len", None), ("max-beam-width", 1)):
        arg(g, "--" + flag, "DYN_TRTLLM_" + flag.upper().replace("-", "_"), default, typ=int)
    arg(g, "--free-gpu-memory-fraction", "DYN_TRTLLM_FREE_GPU_MEMORY_FRACTION", 0.9, typ=float)
    arg(g, "--extra-engine-args", "DYN_TRTLLM_EXTRA_ENGINE_ARGS", "")
    arg(g, "--override-engine-args", "DYN_TRTLLM_OVERRIDE_ENGINE_ARGS", "")
    neg(g, "--publish-kv-events", "DYN_TRTLLM_PUBLISH_KV_EVENTS", False)
    neg(g, "--publish-metrics", "DYN_TRTLLM_PUBLISH_METRICS", False)
    arg(g, "--load-format", "DYN_TRTLLM_LOAD_FORMAT", "auto")
    arg(g, "--model-loader-extra-config", "DYN_TRTLLM_MODEL_LOADER_EXTRA_CONFIG", "")
    arg(g, "--disaggregation-mode", "DYN_TRTLLM_DISAGGREGATION_MODE", "agg",
        choices=DISAGG_MODES)
    neg(g, "--enable-multimodal", "DYN_TRTLLM_ENABLE_MULTIMODAL", False)
    arg(g, "--modality", "DYN_TRTLLM_MODALITY", "text", choices=MODALITIES)
    arg(g, "--encode-endpoint", "DYN_TRTLLM_ENCODE_ENDPOINT", "")
    arg(g, "--allowed-local-media-path", "DYN_TRTLLM_ALLOWED_LOCAL_MEDIA_PATH", "")
    arg(g, "--max-file-size-mb", "DYN_TRTLLM_MAX_FILE_SIZE_MB", 50, typ=int)
    neg(g, "--frontend-decoding", "DYN_TRTLLM_FRONTEND_DECODING", False)
    arg(g, "--guided-decoding-backend", "DYN_TRTLLM_GUIDED_DECODING_BACKEND", None,
        choices=["xgrammar", "llguidance"])
    d = p.add_argument_group("Diffusion Options [Experimental]")
    arg(d, "--quant-algo", "DYN_TRTLLM_QUANT_ALGO", None,
        choices=["FP8", "FP8_BLOCK_SCALES", "NVFP4", "W4A16_AWQ", "W4A8_AWQ",
                 "W8A8_SQ_PER_CHANNEL"])
    for flag, default in (("quant-dynamic", True), ("enable-teacache", False),
                          ("teacache-use-ret-steps", True), ("disable-torch-compile", False),
                          ("enable-fullgraph", False), ("enable-cuda-graph", False),
                          ("enable-layerwise-nvtx-marker", False), ("skip-warmup", False)):
        neg(d, "--" + flag, "DYN_TRTLLM_" + flag.upper().replace("-", "_"), default)
    arg(d, "--teacache-thresh", "DYN_TRTLLM_TEACACHE_THRESH", 0.2, typ=float)
    arg(d, "--torch-dtype", "DYN_TRTLLM_TORCH_DTYPE", "bfloat16",
        choices=["bfloat16", "float16", "float32"])
    arg(d, "--revision", "DYN_TRTLLM_REVISION", None)
    arg(d, "--attn-backend", "DYN_TRTLLM_ATTN_BACKEND", "VANILLA", choices=["VANILLA", "TRTLLM"])
    for flag in ("dit-ulysses-size", "dit-ring-size", "dit-cfg-size"):
        arg(d, "--" + flag, "DYN_TRTLLM_" + flag.upper().replace("-", "_"), 1, typ=int)
    r = p.add_argument_group("Diffusion Request Options [Experimental]")
    for flag, default in (("default-height", 480), ("default-width", 832),
                          ("default-num-inference-steps", 50), ("default-num-frames", 81),
                          ("default-num-images-per-prompt", 1)):
        arg(r, "--" + flag, "DYN_TRTLLM_" + flag.upper().replace("-", "_"), default, typ=int)
    arg(r, "--default-guidance-scale", "DYN_TRTLLM_DEFAULT_GUIDANCE_SCALE", 5.0, typ=float)


def worker_router_parser():
    """The worker's router advertisement (router_args.py: RouterArgGroup
    without the frontend-only flags, plus KvRouterArgGroup), parsed from what
    the main parser left over."""
    p = argparse.ArgumentParser(prog=SD.PROG, add_help=False)
    g = p.add_argument_group("Router Options")
    SD.arg(g, "--router-mode", "DYN_ROUTER_MODE", None, choices=ROUTER_MODES)
    SD.arg(g, "--router-session-affinity-ttl-secs", "DYN_ROUTER_SESSION_AFFINITY_TTL_SECS", None,
           typ=int, dest="session_affinity_ttl_secs")
    SD.arg(g, "--router-session-affinity-mode", "DYN_ROUTER_SESSION_AFFINITY_MODE", "hard",
           choices=["hard", "soft"], dest="session_affinity_mode")
    SD.arg(g, "--active-decode-blocks-threshold", "DYN_ACTIVE_DECODE_BLOCKS_THRESHOLD", None,
           typ=nullable(float))
    SD.arg(g, "--active-prefill-tokens-threshold", "DYN_ACTIVE_PREFILL_TOKENS_THRESHOLD", None,
           typ=nullable(int))
    SD.arg(g, "--active-prefill-tokens-threshold-frac",
           "DYN_ACTIVE_PREFILL_TOKENS_THRESHOLD_FRAC", None, typ=nullable(float))
    SD.kv_router_group(g)
    return p


def infer_type(text):
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def dynamic_flags(rest):
    """parse_dynamic_flags: `--trtllm.a.b value` into a nested dict; anything
    else left over is an error (exit 1, not argparse's 2)."""
    out = {}
    i = 0
    while i < len(rest):
        a = rest[i]
        if not a.startswith("--trtllm."):
            SD.log("ERROR", "dynamo.trtllm.dynamic_flags", "Unrecognized argument: %s" % a)
            sys.exit(1)
        keys = a[len("--trtllm."):].split(".")
        if not all(keys):
            SD.log("ERROR", "dynamo.trtllm.dynamic_flags",
                   "Invalid dynamic flag (empty key segment): %s" % a)
            sys.exit(1)
        if i + 1 >= len(rest) or rest[i + 1].startswith("--"):
            SD.log("ERROR", "dynamo.trtllm.dynamic_flags", "Dynamic flag %s requires a value" % a)
            sys.exit(1)
        strict_cli.set_dotted(out, keys, infer_type(rest[i + 1]))
        i += 2
    return out


def legacy_publish(args):
    """--publish-events-and-metrics is rewritten into both new flags (and
    its variable into both variables), with a deprecation warning."""
    out, seen = [], False
    for a in args:
        flag = a.split("=", 1)[0]
        if flag in ("--publish-events-and-metrics", "--no-publish-events-and-metrics"):
            seen = True
            neg = "--no-" if flag.startswith("--no-") else "--"
            out += [neg + "publish-kv-events", neg + "publish-metrics"]
        else:
            out.append(a)
    if seen:
        SD.log("WARN", "root", "--publish-events-and-metrics is deprecated; use both "
               "--publish-kv-events and --publish-metrics. The old flag remains an alias for "
               "both controls for one release.")
    legacy = os.environ.get("DYN_TRTLLM_PUBLISH_EVENTS_AND_METRICS")
    if legacy is not None:
        SD.log("WARN", "root", "DYN_TRTLLM_PUBLISH_EVENTS_AND_METRICS is deprecated; use "
               "DYN_TRTLLM_PUBLISH_KV_EVENTS and DYN_TRTLLM_PUBLISH_METRICS.")
        os.environ.setdefault("DYN_TRTLLM_PUBLISH_KV_EVENTS", legacy)
        os.environ.setdefault("DYN_TRTLLM_PUBLISH_METRICS", legacy)
    return out


def parse_dynamo_trtllm(args):
    """(options, router advertisement, dynamic overrides); exits as the real
    parser does (argparse errors 2, leftovers 1)."""
    args = legacy_publish(args)
    p = argparse.ArgumentParser(prog=SD.PROG, description="Dynamo TensorRT-LLM worker "
                                "configuration", formatter_class=argparse.RawTextHelpFormatter)
    SD.runtime_group(p)
    trtllm_group(p)
    ns, rest = p.parse_known_args(args)
    router, rest = worker_router_parser().parse_known_args(rest)
    dyn = vars(ns)
    overrides = dynamic_flags(rest)
    if overrides and dyn["override_engine_args"]:
        SD.log("ERROR", "root", "--override-engine-args and --trtllm.* dynamic flags are mutually "
               "exclusive. Use one or the other.")
        sys.exit(1)
    if overrides:
        dyn["override_engine_args"] = json.dumps(overrides)
    return dyn, vars(router), overrides


def validate_dynamo_trtllm(dyn):
    """Config.validate and the rest of parse_args; returns (mode, component)."""
    mode = dyn["disaggregation_mode"]
    if mode == "prefill_and_decode":      # only reachable through the variable
        raise ValueError("--disaggregation-mode=prefill_and_decode is no longer supported; use "
                         "--disaggregation-mode=agg for aggregated serving or "
                         "--disaggregation-mode=pd for a combined prefill+decode worker.")
    if mode not in DISAGG_MODES:
        raise ValueError("%r is not a valid DisaggregationMode" % mode)
    mode = "agg" if mode in ("agg", "pd") else mode
    diffusion = dyn["modality"] in ("video_diffusion", "image_diffusion")
    if dyn["enable_multimodal"] and diffusion:
        raise ValueError("--enable-multimodal cannot be combined with --modality %s. Use "
                         "--modality only for diffusion models." % dyn["modality"])
    if len(dyn["connector"]) > 1:
        raise ValueError("TRT-LLM supports at most one connector entry. Use `--connector none` "
                         "or `--connector kvbm`.")
    if dyn["connector"] and dyn["connector"][0] not in ("none", "kvbm"):
        SD.log("WARN", "root", "TRT-LLM does not support connector '%s'. Supported connectors: "
               "{'none', 'kvbm'}. Falling back to 'none'." % dyn["connector"][0])
        dyn["connector"] = ["none"]
    if dyn["custom_jinja_template"]:
        path = os.path.expanduser(os.path.expandvars(dyn["custom_jinja_template"]))
        if not os.path.isfile(SE.host_path(path)):
            raise PyError("FileNotFoundError", "Custom Jinja template file not found: %s" % path)
    component = ("diffusion" if diffusion else "encode" if mode == "encode"
                 else "prefill" if mode == "prefill" else "backend")
    return mode, component


def dynamo_engine_args(dyn):
    """init_llm_worker's engine arguments: the flags, then the YAML of
    --extra-engine-args, then --override-engine-args (JSON)."""
    engine = {"model": dyn["model"], "backend": "pytorch",
              "tensor_parallel_size": dyn["tensor_parallel_size"],
              "pipeline_parallel_size": dyn["pipeline_parallel_size"],
              "moe_expert_parallel_size": dyn["expert_parallel_size"],
              "kv_cache_config": {"free_gpu_memory_fraction": dyn["free_gpu_memory_fraction"]},
              "gpus_per_node": dyn["gpus_per_node"], "max_num_tokens": dyn["max_num_tokens"],
              "max_seq_len": dyn["max_seq_len"], "max_beam_width": dyn["max_beam_width"],
              "max_batch_size": dyn["max_batch_size"]}
    if dyn["extra_engine_args"]:
        engine = merge(engine, read_engine_yaml(dyn["extra_engine_args"]))
    if dyn["override_engine_args"]:
        try:
            over = json.loads(dyn["override_engine_args"])
        except ValueError as e:
            SD.log("ERROR", "root", "Failed to parse override_engine_args as JSON: %s" % e)
            sys.exit(1)
        if not isinstance(over, dict):
            SD.log("ERROR", "root", "override_engine_args must be a JSON object, got %s"
                   % type(over).__name__)
            sys.exit(1)
        engine = merge(engine, over)
    return engine


def main_dynamo(args):
    dyn, router, overrides = parse_dynamo_trtllm(args)
    try:
        mode, component = validate_dynamo_trtllm(dyn)
        engine = dynamo_engine_args(dyn)
        tp, pp, cp = parallel_sizes(engine)
        SE.check_model(dyn["model"])
        world = check_world(tp, pp, cp)
        master = mooncake_client(engine)
    except ValueError as e:
        return SD.value_error("trtllm", e)
    except PyError as e:
        return SD.value_error("trtllm", e, exc=e.exc,
                              where="main.py\", line 1, in init_llm_worker")
    except Refusal as e:
        sys.stderr.write(str(e) + "\n")
        return e.code
    plan = {"engine": "trtllm", "prog": "dynamo.trtllm", "options": engine, "role": mode,
            "dyn_role": mode, "model": dyn["model"],
            "served": [dyn["served_model_name"] or dyn["model"]], "owner": "tensorrt_llm",
            "tp": tp, "rank": 0, "nnodes": 1, "dist": None, "bootstrap_port": None,
            "headless": False, "kv_block_size": dyn["kv_block_size"],
            "mooncake_master": master,
            "record_extra": {"mpi_world_size": world, "router_advertisement": router,
                             "mooncake_master": master,
                             "under_launcher": os.environ.get("TLLM_SPAWN_PROXY_PROCESS") == "1"}}
    try:
        plan = SD.finish_plan(plan, dyn, component)
    except ValueError as e:
        return SD.value_error("trtllm", e)
    if SE.check_only():
        SE.print_options({"dynamo": dyn, "engine": engine, "role": mode, "router": router,
                          "dynamic_overrides": overrides, "namespace": plan["namespace"],
                          "component": plan["component"], "endpoint": plan["endpoint"],
                          "mpi_world_size": world})
        return 0
    if dyn["dump_config_to"]:
        SD.dump_config(dyn["dump_config_to"], plan)
    return SD.run_worker(plan)


# ---------------------------------------------------------------------------
# trtllm-serve (tensorrt_llm/commands/serve.py: a click group, `serve` its
# default command)

SERVE_WHERE = "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/commands/serve.py"
GROUP_USAGE = "trtllm-serve [OPTIONS] COMMAND [ARGS]..."
NOT_IMITATED = ("grpc", "disaggregated_mpi_worker", "mm_embedding_serve")


def main_serve(args):
    if not args or args[0] == "--help":
        sys.stdout.write("Usage: %s\n\n  (stand-in help)\n\nCommands:\n  disaggregated\n  "
                         "serve\n" % GROUP_USAGE)
        return 0
    if args[0].startswith("-"):
        strict_cli.click_fail(GROUP_USAGE, "trtllm-serve", "No such option: %s"
                              % args[0].split("=", 1)[0])
    if args[0] == "disaggregated":
        return main_disaggregated(args[1:])
    if args[0] in NOT_IMITATED:
        sys.stderr.write("trtllm-serve %s: not imitated by the stand-in\n" % args[0])
        return 2
    if args[0] == "serve":
        args = args[1:]
    ns = strict_cli.parse_click(flagdata.load("trtllm-serve"),
                                "trtllm-serve serve [OPTIONS] MODEL", "trtllm-serve serve",
                                args, aliases={"backend": {"trt": "tensorrt"}})
    try:
        plan = serve_plan(ns)
    except PyError as e:
        return traceback_exit(SERVE_WHERE + "\", line 1, in serve", e)
    except Refusal as e:
        sys.stderr.write(str(e) + "\n")
        return e.code
    if SE.check_only():
        SE.print_options(dict(ns, llm_args=plan["llm_args"]))
        return 0
    return SE.run(plan)


def serve_plan(ns):
    llm_args = {k: ns[k] for k in ("tensor_parallel_size", "pipeline_parallel_size",
                                   "context_parallel_size", "moe_expert_parallel_size",
                                   "max_batch_size", "max_num_tokens", "max_seq_len",
                                   "backend")}
    if ns["extra_llm_api_options"] is not None:
        llm_args = merge(llm_args, read_engine_yaml(ns["extra_llm_api_options"]))
    tp, pp, cp = parallel_sizes(llm_args)
    SE.check_model(ns["model"])
    world = check_world(tp, pp, cp)
    master = mooncake_client(llm_args)
    host, port = ns["host"], ns["port"]
    if not SE.check_only():     # check-only binds nothing (the host is another node's)
        s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        try:            # launch_server binds before it loads the model
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((host, port))
        except OSError as e:
            raise PyError("RuntimeError", "Failed to bind socket to %s:%d: %s" % (host, port, e))
        finally:
            s.close()
    return {"engine": "trtllm", "prog": "trtllm-serve", "options": ns, "llm_args": llm_args,
            "role": (ns["server_role"] or "null").lower(), "model": ns["model"],
            "served": [ns["model"]], "owner": "tensorrt_llm", "tp": tp, "host": host,
            "port": port, "advertise": host, "rank": 0, "nnodes": 1, "dist": None,
            "http": True, "bootstrap_port": None, "mooncake_master": master,
            "record_extra": {"mpi_world_size": world, "mooncake_master": master}}


# ---------------------------------------------------------------------------
# trtllm-serve disaggregated -c CONFIG (llmapi/disagg_utils.py)

def server_urls(section, name):
    """The [(host, port)] of a context_servers / generation_servers section,
    as extract_ctx_gen_cfgs reads it."""
    if not isinstance(section, dict):
        raise PyError("TypeError", "extract_ctx_gen_cfgs() argument after ** must be a "
                      "mapping, not %s" % type(section).__name__)
    num, urls = section.get("num_instances", 1), section.get("urls")
    if not urls:
        raise Refusal("%s has no urls: discovery through disagg_cluster or a metadata server is "
                      "not imitated by the stand-in" % name)
    out = []
    for url in urls:
        parts = str(url).split(":")
        if len(parts) != 2:
            raise PyError("ValueError", "too many values to unpack (expected 2)" if len(parts) > 2
                          else "not enough values to unpack (expected 2, got 1)")
        try:
            out.append((parts[0], int(parts[1])))
        except ValueError:
            raise PyError("ValueError", "invalid literal for int() with base 10: %r" % parts[1])
    if len(out) != num:
        raise PyError("ValueError", "Number of hostnames (%d) should be equal to the number of "
                      "instances (%s)" % (len(out), num))
    return out


def disagg_config(path):
    if path is None:
        raise PyError("TypeError", "expected str, bytes or os.PathLike object, not NoneType")
    cfg = read_engine_yaml(path)
    ctx = server_urls(cfg.get("context_servers") or {}, "context_servers")
    gen = server_urls(cfg.get("generation_servers") or {}, "generation_servers")
    return cfg, ctx, gen


class DisaggRouter(SR.Router):
    """The disaggregated server: /health is 200 with no body once serving."""

    def do_GET(self):
        if self.path.split("?", 1)[0] == "/health":
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        return super().do_GET()


def wait_servers(urls, seconds, stop):
    """The server waits for every context and generation server's /health
    before it listens (server_start_timeout)."""
    end = time.monotonic() + seconds
    while not stop.is_set():
        if all(SR.http_status(u + "/health", timeout=1.0) == 200 for u in urls):
            return True
        if time.monotonic() >= end:
            return False
        stop.wait(0.2)
    return False


def main_disaggregated(args):
    rows = flagdata.load("trtllm-serve-disaggregated")
    if os.environ.get("FAKE_TRTLLM_DISAGG_CONFIG_ALIAS") == "1":
        for r in rows:
            if r["dest"] == "config_file":
                r["spellings"].append("--config")
    ns = strict_cli.parse_click(rows, "trtllm-serve disaggregated [OPTIONS]",
                                "trtllm-serve disaggregated", args)
    where = SERVE_WHERE + "\", line 1, in disaggregated"
    try:
        cfg, ctx, gen = disagg_config(ns["config_file"])
    except PyError as e:
        return traceback_exit(where, e)
    except Refusal as e:
        sys.stderr.write(str(e) + "\n")
        return e.code
    host, port = cfg.get("hostname", "localhost"), cfg.get("port", 8000)
    if SE.check_only():
        SE.print_options(dict(ns, hostname=host, port=port, context_servers=ctx,
                              generation_servers=gen))
        return 0
    stop = FE.SignalFlag()
    signal.signal(signal.SIGTERM, lambda s, f: stop.set())
    signal.signal(signal.SIGINT, lambda s, f: stop.set())
    FE.record(port, host, name="router.jsonl", extra={
        "prog": "trtllm-serve disaggregated", "options": ns, "config": cfg,
        "context_servers": ctx, "generation_servers": gen})
    urls = lambda pairs: ["http://%s:%d" % hp for hp in pairs]   # noqa: E731
    if not wait_servers(urls(ctx) + urls(gen), ns["server_start_timeout"], stop):
        if stop.is_set():
            return 0
        return traceback_exit(where, PyError("TimeoutError", "Timeout waiting for context and "
                                             "generation servers to be ready [stand-in wording]"))
    workers = SR.Workers([(u, None) for u in urls(ctx)], urls(gen), [], "/health")
    for e in workers.entries:       # all answered /health just now
        e["is_healthy"] = True
    DisaggRouter.workers, DisaggRouter.flavour, DisaggRouter.pd = workers, "trtllm", True
    try:
        srv = FE.Server((host, port), DisaggRouter)
    except OSError as e:
        return traceback_exit(where, PyError("RuntimeError", "Failed to bind socket to %s:%d: %s"
                                             % (host, port, e)))
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05},
                     daemon=True).start()
    threading.Thread(target=workers.poll,
                     args=(stop, FE.env_float("FAKE_ROUTER_POLL_SECONDS", 0.5)),
                     daemon=True).start()
    SE.say("INFO:     Uvicorn running on http://%s:%d (Press CTRL+C to quit)" % (host, port))
    stop.wait()
    SE.say("Received signal, shutting down")
    srv.shutdown()
    srv.server_close()
    return 0
