"""Runtime of the TensorRT-LLM stand-ins (tests/fakes/trtllm_llmapi_launch,
tests/fakes/dynamo_trtllm, tests/fakes/dynamo_trtllm_pool,
tests/fakes/trtllm_serve; see README.md,
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
- TRT-LLM's Mooncake pool: `trtllm-serve mooncake_master` (runs the master
  binary, publishes its address file once the RPC port answers, withdraws
  it on exit), `trtllm-serve mooncake_donor` (lends a segment to the pool
  named by such a file, then writes its ready file), the provisioning of a
  kv_connector_config.mooncake_store block by trtllm-serve, and srt-slurm's
  Dynamo pool wrapper (tests/fakes/dynamo_trtllm_pool: main_dynamo_pool).
  Facts: ../trtllm-mooncake-facts.md.

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
    # `where` is FILE", line N, in FUNC: the quote after FILE comes with it
    sys.stderr.write("Traceback (most recent call last):\n  File \"%s\n%s: %s\n"
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
CHECK_ONLY_MAINS = {"dynamo_trtllm": "main_dynamo", "trtllm_serve": "main_serve",
                    "dynamo_trtllm_pool": "main_dynamo_pool"}


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
# mooncake_store).  Two ways a worker learns its pool:
#
# - the client config MOONCAKE_CONFIG_PATH names (what a launcher renders;
#   the refined API of NVIDIA/TensorRT-LLM#19706): read as the connector
#   reads it, sizes in strict (binary) units, role one of four.  The
#   connector's own error words were not readable, so these ValueErrors are
#   the stand-in's, shaped as TRT-LLM raises them (a traceback, exit 1);
# - TRT-LLM's own provisioning (provision_pool, master.py@b20e54a1): a
#   kv_connector_config.mooncake_store block and no MOONCAKE_CONFIG_PATH.
#   trtllm-serve provisions; `python3 -m dynamo.trtllm` does not (it builds
#   its LLM itself), which is why srt-slurm wraps it in a `python3 -c`
#   program (main_dynamo_pool).  Provisioning resolves the master (a
#   `file://` address file polled every 0.5 s), waits for its RPC port,
#   renders $TRTLLM_MOONCAKE_RUN_DIR/mooncake.json and exports
#   MOONCAKE_CONFIG_PATH, which the connector then reads as above.

MOONCAKE_MODULE = "tensorrt_llm._torch.pyexecutor.connectors.mooncake_store"
MOONCAKE_ROLES = ("both", "producer", "consumer", "capacity")
BINARY_UNITS = {"": 1, "b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}
DECIMAL_UNITS = ("k", "kb", "m", "mb", "g", "gb", "t", "tb")
SIZE_RE = r"^\s*([0-9]+(\.[0-9]+)?)\s*([a-zA-Z]*)\s*$"
# a process's own traffic directions (StoreRole at b20e54a1; `capacity` came later)
STORE_ROLES = ("producer", "consumer", "both")
CONFIG_PATH_ENV = "MOONCAKE_CONFIG_PATH"
RUN_DIR_ENV = "TRTLLM_MOONCAKE_RUN_DIR"
TIMEOUT_ENV = "TRTLLM_MOONCAKE_MASTER_TIMEOUT"
ROLE_ENV = "TRTLLM_MOONCAKE_STORE_ROLE"
BINARY_ENV = "TRTLLM_MOONCAKE_MASTER_BINARY"
CLIENT_CONFIG_NAME = "mooncake.json"
MASTER_LOG_NAME = "mooncake_master.log"
MASTER_ADDRESS_NAME = "master.addr"
ADDRESS_FILE_SCHEME = "file://"
DEFAULT_MASTER_TIMEOUT = 60.0
DEFAULT_METADATA_SERVER = "P2PHANDSHAKE"
DEFAULT_DONOR_LOCAL_BUFFER_SIZE = 64 << 20
IB_SYSFS_ROOT = "/sys/class/infiniband"
# Mooncake's transfer engine transports; any other protocol fails store.setup
MOONCAKE_PROTOCOLS = ("tcp", "rdma", "nvlink", "nvlink_intra", "hip", "cxl", "ascend", "efa")
VALIDATION_ERROR = "pydantic_core._pydantic_core.ValidationError"
# set by main_dynamo_pool under FAKE_CHECK_ONLY=1: the wrapper stands for the
# pool, so the worker it runs does not look for a client config
CHECK_ONLY_POOL = []
# the client configs provision_pool rendered in this process
PROVISIONED = []


def tllm_log(tag, msg):
    """tensorrt_llm.logger: `[date] [TRT-LLM] [I] msg` on stdout, shown from
    $TLLM_LOG_LEVEL up (default `error`, so the pool commands' info lines
    appear only with TLLM_LOG_LEVEL=INFO, as srt-slurm sets it for donors)."""
    levels = {"internal_error": 50, "error": 40, "warning": 30, "info": 20, "verbose": 10,
              "debug": 10, "trace": 10}
    threshold = levels.get((os.environ.get("TLLM_LOG_LEVEL") or "error").lower(), 40)
    if {"F": 50, "E": 40, "W": 30, "I": 20, "V": 10}[tag] < threshold:
        return
    SE.say("[%s] [TRT-LLM] [%s] %s" % (time.strftime("%m/%d/%Y-%H:%M:%S"), tag, msg))


def strict_size(key, value, least):
    import re
    if isinstance(value, bool):
        raise PyError("ValueError", "%s: %r is not a size" % (key, value))
    if isinstance(value, (int, float)):
        n = value
    else:
        m = re.match(SIZE_RE, str(value))
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


def parse_size(value):
    """mooncake_store.config.parse_size without strict units (what the donor
    reads its sizes with): binary units count in 1024s, decimal in 1000s.
    ValueError with TRT-LLM's words."""
    import re
    if isinstance(value, bool):
        raise ValueError("expected a size, got %r" % (value,))
    if isinstance(value, (int, float)):
        return int(value)
    m = re.match(SIZE_RE, str(value))
    if m is None:
        raise ValueError("cannot parse size %r" % (value,))
    unit = m.group(3).lower()
    scale = BINARY_UNITS.get(unit) or {"k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6,
                                       "g": 10**9, "gb": 10**9, "t": 10**12,
                                       "tb": 10**12}.get(unit)
    if scale is None:
        raise ValueError("unknown size unit %r in %r" % (m.group(3), value))
    return int(float(m.group(1)) * scale)


def master_timeout():
    """$TRTLLM_MOONCAKE_MASTER_TIMEOUT in seconds (60 when unset or empty)."""
    raw = os.environ.get(TIMEOUT_ENV)
    if not raw:
        return DEFAULT_MASTER_TIMEOUT
    try:
        timeout = float(raw)
    except ValueError:
        raise PyError("ValueError", "%s=%r is not a number" % (TIMEOUT_ENV, raw))
    if not timeout > 0:
        raise PyError("ValueError", "%s=%r must be > 0" % (TIMEOUT_ENV, raw))
    return timeout


def split_address(address):
    """(host, port) of `host:port`, None for any other form."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        return None
    return host.strip("[]"), int(port)


def local_address(peer=None):
    """The address this host is reached at: the source address of the route
    to `peer` (the master), else of the route off this host (a datagram
    connect to 192.0.2.1 sends nothing), skipping 127.*; then the hostname's
    address; then (the stand-in's addition, for network namespaces without a
    default route) the first non-loopback interface address."""
    probes = [split_address(peer)] if peer and split_address(peer) else []
    for endpoint in probes + [("192.0.2.1", 9)]:
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect(endpoint)
                addr = s.getsockname()[0]
        except OSError:
            continue
        if addr and not addr.startswith("127."):
            return addr
    try:
        named = socket.gethostbyname(socket.gethostname())
    except OSError:
        named = "127.0.0.1"
    if named.startswith("127."):
        own = [a["addr"] for a in FE.ipv4_addrs() if not a["addr"].startswith("127.")]
        if own:
            return own[0]
    return named


def master_host():
    """Where a master this host runs is advertised: local_address(), or
    FAKE_BIND_HOST when a loopback test narrowed the stand-in master to it."""
    bind = os.environ.get("FAKE_BIND_HOST", "")
    return bind if bind not in ("", "0.0.0.0", "::") else local_address()


def resolve_master_address(address, timeout):
    """A `file://PATH` address read from PATH (polled every 0.5 s until it
    holds something, then stripped); any other address passed through."""
    if not address.startswith(ADDRESS_FILE_SCHEME):
        return address
    path = address[len(ADDRESS_FILE_SCHEME):]
    started = time.monotonic()
    announced = started
    tllm_log("I", "mooncake-store: reading the master's address from %s" % path)
    while True:
        try:
            with open(SE.host_path(path)) as f:
                published = f.read().strip()
        except FileNotFoundError:
            published = ""
        except OSError as e:
            raise PyError({errno.EACCES: "PermissionError", errno.EISDIR: "IsADirectoryError",
                           errno.ENOTDIR: "NotADirectoryError"}.get(e.errno, "OSError"),
                          "[Errno %d] %s: '%s'" % (e.errno, e.strerror, path))
        if published:
            tllm_log("I", "mooncake-store: %s names the master at %s" % (path, published))
            return published
        now = time.monotonic()
        if now - announced >= 5.0:
            announced = now
            tllm_log("I", "mooncake-store: no master address in %s yet (%.0fs of %gs); waiting "
                     "for the master to start and publish it" % (path, now - started, timeout))
        if now - started >= timeout:
            raise PyError("TimeoutError", "No Mooncake master address appeared in %s within %gs. "
                          "Start one with 'trtllm-serve mooncake_master --address-file %s', or "
                          "name a reachable host:port in master_server_address. Raise %s if "
                          "the master is only slow to start." % (path, timeout, path, TIMEOUT_ENV))
        time.sleep(0.5)


def log_tail(path, lines=20):
    try:
        with open(SE.host_path(path), errors="replace") as f:
            tail = f.read().splitlines()[-lines:]
    except OSError as e:
        return " Its log at %s could not be read: %s." % (path, e)
    if not tail:
        return (" Its log at %s is empty, which usually means it failed before glog opened; "
                "check that the binary runs at all." % path)
    return " The last %d lines of %s:\n  %s" % (len(tail), path, "\n  ".join(tail))


def wait_until_accepting(host, port, timeout, process=None, log_path=None):
    """Seconds until host:port accepted a TCP connection (tried every 0.5 s);
    PyError when `process` (our master) exits first or the time runs out."""
    started = time.monotonic()
    announced = started
    while True:
        if process is not None and process.poll() is not None:
            raise PyError("RuntimeError", "mooncake_master exited with code %d after %.1fs, "
                          "before it accepted connections on %s:%d.%s"
                          % (process.returncode, time.monotonic() - started, host, port,
                             log_tail(log_path) if log_path else ""))
        try:
            socket.create_connection((host, port), timeout=1.0).close()
            return time.monotonic() - started
        except OSError as e:
            last = e
        now = time.monotonic()
        if now - started >= timeout:
            raise PyError("TimeoutError", "The Mooncake master at %s:%d did not accept "
                          "connections within %gs (%s). Raise %s if it is only slow to start.%s"
                          % (host, port, timeout, last, TIMEOUT_ENV,
                             log_tail(log_path) if log_path else ""))
        if now - announced >= 5.0:
            announced = now
            tllm_log("I", "mooncake-store: still waiting for the master at %s:%d (%.0fs of %gs, "
                     "%s)" % (host, port, now - started, timeout, last))
        time.sleep(0.5)


def wait_for_master(address, timeout=None):
    """Wait for the master at `address` to answer; an address not in
    host:port form is left for the workers to find (a warning)."""
    timeout = master_timeout() if timeout is None else timeout
    endpoint = split_address(address)
    if endpoint is None:
        tllm_log("W", "mooncake-store: cannot parse master_server_address=%r as host:port, so "
                 "its reachability is left for the workers to discover." % address)
        return None
    elapsed = wait_until_accepting(endpoint[0], endpoint[1], timeout)
    tllm_log("I", "mooncake-store: the master at %s answered in %.1fs" % (address, elapsed))
    return elapsed


def resolve_device_name(protocol, configured):
    """RDMA devices: the configured ones, else the active InfiniBand ports
    of the highest rate under /sys/class/infiniband, else ""."""
    if configured or protocol != "rdma":
        return configured
    rated = {}
    try:
        devices = sorted(os.listdir(IB_SYSFS_ROOT))
    except OSError:
        devices = []
    for dev in devices:
        def attr(name):
            try:
                with open(os.path.join(IB_SYSFS_ROOT, dev, "ports", "1", name)) as f:
                    return f.read().strip()
            except OSError:
                return ""
        rate = attr("rate").split()
        if attr("link_layer") == "InfiniBand" and "ACTIVE" in attr("state") and rate \
                and rate[0].isdigit():
            rated[dev] = int(rate[0])
    if not rated:
        tllm_log("W", "mooncake-store: protocol is rdma but no active InfiniBand device was "
                 "found under %s, so device_name is left empty for Mooncake's own discovery. "
                 "Set device_name to choose explicitly." % IB_SYSFS_ROOT)
        return ""
    best = max(rated.values())
    joined = ",".join(d for d in sorted(rated) if rated[d] == best)
    tllm_log("I", "mooncake-store: transferring over the fastest active InfiniBand devices on "
             "this host: %s" % joined)
    return joined


# kv_connector_config.mooncake_store (llm_args.MooncakeStoreConfig): the keys
# the docs name plus those provision_pool and its client config read, with
# pydantic's lax coercions; anything else is `extra_forbidden`
POOL_FIELDS = {
    "master_server_address": ("optstr", None), "master_address_file": ("optstr", None),
    "launch_master": ("bool", False), "protocol": ("str", "rdma"), "device_name": ("str", ""),
    "global_segment_size": ("size", 3355443200), "local_buffer_size": ("size", 1073741824),
    "metadata_server": ("str", DEFAULT_METADATA_SERVER), "master_port": ("int", 50051),
    "master_metrics_port": ("int", 9004), "master_eviction_ratio": ("float", 0.05),
    "transfer_batch_size": ("int", 64), "stage_through_host": ("bool", True),
    "cache_prefix": ("optstr", None), "staging_buffer_bytes": ("optint", None),
}
BOOL_WORDS = {"true": True, "t": True, "yes": True, "y": True, "on": True, "1": True,
              "false": False, "f": False, "no": False, "n": False, "off": False, "0": False}


def lax(kind, value):
    """(value, None) as pydantic's lax mode converts it, or (None, (message, type))."""
    if kind.startswith("opt"):
        if value is None:
            return None, None
        kind = kind[3:]
    if kind == "str":
        return (value, None) if isinstance(value, str) else (
            None, ("Input should be a valid string", "string_type"))
    if kind == "bool":
        if isinstance(value, bool):
            return value, None
        if isinstance(value, int) and value in (0, 1):
            return bool(value), None
        if isinstance(value, str) and value.strip().lower() in BOOL_WORDS:
            return BOOL_WORDS[value.strip().lower()], None
        return None, (("Input should be a valid boolean, unable to interpret input",
                       "bool_parsing") if isinstance(value, str)
                      else ("Input should be a valid boolean", "bool_type"))
    if kind == "int":
        if isinstance(value, int):
            return int(value), None
        if isinstance(value, float) and value == int(value):
            return int(value), None
        if isinstance(value, str):
            try:
                return int(value.strip()), None
            except ValueError:
                return None, ("Input should be a valid integer, unable to parse string as an "
                              "integer", "int_parsing")
        return None, ("Input should be a valid integer", "int_type")
    if kind == "float":
        if isinstance(value, (int, float)):
            return float(value), None
        if isinstance(value, str):
            try:
                return float(value), None
            except ValueError:
                return None, ("Input should be a valid number, unable to parse string as a "
                              "number", "float_parsing")
        return None, ("Input should be a valid number", "float_type")
    raise AssertionError(kind)


def validation_error(model, errors):
    """pydantic's ValidationError over [(loc, message, type, input)]."""
    lines = ["%d validation error%s for %s" % (len(errors), "s" if len(errors) > 1 else "",
                                               model)]
    for loc, msg, typ, value in errors:
        lines += [loc, "  %s [type=%s, input_value=%r, input_type=%s]"
                  % (msg, typ, value, type(value).__name__)]
    return PyError(VALIDATION_ERROR, "\n".join(lines))


def pool_block(block, model="TorchLlmArgs", loc="kv_connector_config.mooncake_store"):
    """The mooncake_store block with its defaults, sizes in bytes; the
    ValidationError pydantic raises for it otherwise."""
    if not isinstance(block, dict):
        raise validation_error(model, [(loc, "Input should be a valid dictionary or instance "
                                        "of MooncakeStoreConfig", "model_type", block)])
    pool, errors = {}, []
    for key, value in block.items():
        if key not in POOL_FIELDS:
            errors.append(("%s.%s" % (loc, key), "Extra inputs are not permitted",
                           "extra_forbidden", value))
            continue
        kind = POOL_FIELDS[key][0]
        if kind == "size":
            try:
                pool[key] = strict_size(key, value, 0 if key == "global_segment_size" else 1)
            except PyError as e:
                errors.append(("%s.%s" % (loc, key), "Value error, %s" % e, "value_error", value))
            continue
        conv, bad = lax(kind, value)
        if bad is not None:
            errors.append(("%s.%s" % (loc, key), bad[0], bad[1], value))
        else:
            pool[key] = conv
    if "transfer_batch_size" in pool and pool["transfer_batch_size"] <= 0:
        errors.append(("%s.transfer_batch_size" % loc, "Value error, transfer_batch_size must "
                       "be > 0", "value_error", block["transfer_batch_size"]))
    if errors:
        raise validation_error(model, errors)
    for key, (_, default) in POOL_FIELDS.items():
        pool.setdefault(key, default)
    return pool


def store_role():
    """This process's own StoreRole: $TRTLLM_MOONCAKE_STORE_ROLE (both when unset)."""
    raw = os.environ.get(ROLE_ENV)
    if raw is None:
        return None
    if raw not in STORE_ROLES:
        raise PyError("ValueError", "%r is not a valid StoreRole" % raw)
    return raw


def client_config(pool, master, device_name):
    """The client config provision_pool renders (vLLM's schema; `role` is
    `both` because the file describes the pool: what this process drives
    comes from its own TRTLLM_MOONCAKE_STORE_ROLE)."""
    cfg = {"metadata_server": pool["metadata_server"], "master_server_address": master,
           "protocol": pool["protocol"], "device_name": device_name,
           "global_segment_size": pool["global_segment_size"],
           "local_buffer_size": pool["local_buffer_size"], "role": "both",
           "transfer_batch_size": pool["transfer_batch_size"],
           "stage_through_host": pool["stage_through_host"]}
    if pool["cache_prefix"] is not None:
        cfg["cache_prefix"] = pool["cache_prefix"]
    if pool["staging_buffer_bytes"] is not None:
        cfg["staging_buffer_bytes"] = pool["staging_buffer_bytes"]
    return cfg


def provision_pool(pool):
    """TRT-LLM's provision_pool for a block without launch_master: the
    client config's path (as this process names it), exported as
    MOONCAKE_CONFIG_PATH; None when an inherited MOONCAKE_CONFIG_PATH wins,
    or under FAKE_CHECK_ONLY=1 (checked, nothing waited for or written)."""
    inherited = os.environ.get(CONFIG_PATH_ENV)
    if inherited:
        tllm_log("I", "mooncake-store: %s=%s is already set, so kv_connector_config."
                 "mooncake_store is ignored and the pool it names is used as is."
                 % (CONFIG_PATH_ENV, inherited))
        return None
    if pool["launch_master"]:
        raise Refusal("stand-in: kv_connector_config.mooncake_store.launch_master (TRT-LLM "
                      "starting a Mooncake master inside the server) is not imitated; run "
                      "`trtllm-serve mooncake_master` and name its address file", 2)
    if pool["master_server_address"] is None:
        raise PyError("ValueError", "kv_connector_config.mooncake_store names no master: set "
                      "master_server_address (host:port or file://<path>) or launch_master "
                      "[stand-in wording]")
    timeout = master_timeout()
    if SE.check_only():
        sys.stderr.write("mooncake-store: would provision the pool of %s (check only: no "
                         "master waited for)\n" % pool["master_server_address"])
        return None
    run_dir = os.environ.get(RUN_DIR_ENV)
    if not run_dir:
        import atexit
        import shutil
        import tempfile
        run_dir = tempfile.mkdtemp(prefix="trtllm-mooncake-")
        atexit.register(shutil.rmtree, run_dir, True)
        tllm_log("I", "mooncake-store: provisioning the pool in %s, which is removed at shutdown "
                 "along with the master's log; set %s to keep them" % (run_dir, RUN_DIR_ENV))
    else:
        tllm_log("I", "mooncake-store: provisioning the pool, run directory %s" % run_dir)
    os.makedirs(SE.host_path(run_dir), exist_ok=True)
    master = resolve_master_address(pool["master_server_address"], timeout)
    wait_for_master(master, timeout)
    tllm_log("I", "mooncake-store: using the master at %s" % master)
    path = os.path.join(run_dir, CLIENT_CONFIG_NAME)
    cfg = client_config(pool, master, resolve_device_name(pool["protocol"], pool["device_name"]))
    with open(SE.host_path(path), "w") as f:
        json.dump(cfg, f, indent=2)
    os.environ[CONFIG_PATH_ENV] = path
    PROVISIONED.append(path)
    tllm_log("I", "mooncake-store: %s=%s (%s)" % (CONFIG_PATH_ENV, path,
                                                 json.dumps(cfg, sort_keys=True)))
    tllm_log("I", "mooncake-store: this server's ranks will each contribute global_segment_size="
             "%d to the pool; total capacity is that times the number of ranks that open a "
             "handle, plus whatever any mooncake_donation adds" % pool["global_segment_size"])
    return path


def mooncake_connector(kc):
    """Whether a kv_connector_config selects the mooncake-store connector."""
    if not isinstance(kc, dict):
        return False
    module = kc.get("connector_module") or (
        MOONCAKE_MODULE if kc.get("connector") == "mooncake-store" else None)
    return module == MOONCAKE_MODULE


def mooncake_client(llm_args, provision=True):
    """What the mooncake-store connector of this engine config joins:
    {"master", "config", "role", "provisioned"} (master None under
    FAKE_CHECK_ONLY=1), or None when it selects no Mooncake connector; PyError
    as TRT-LLM fails.  `provision`: the program provisions a mooncake_store
    block itself (trtllm-serve), which dynamo.trtllm does not."""
    kc = llm_args.get("kv_connector_config")
    block = kc.get("mooncake_store") if isinstance(kc, dict) else None
    pool = pool_block(block) if block is not None else None    # checked whatever the connector
    if not mooncake_connector(kc):
        return None
    role = store_role()
    path, provisioned = os.environ.get(CONFIG_PATH_ENV), False
    if not path and pool is not None and (provision or CHECK_ONLY_POOL):
        path = provision_pool(pool) if provision else None
        provisioned = True
        if path is None:        # FAKE_CHECK_ONLY=1: the block is checked, no file to read
            return {"master": None, "config": None, "role": role or "both", "provisioned": True}
    if not path and os.environ.get(RUN_DIR_ENV):
        # ranks an external launcher started read what the server rendered
        rendered = os.path.join(os.environ[RUN_DIR_ENV], CLIENT_CONFIG_NAME)
        if os.path.exists(SE.host_path(rendered)):
            path = rendered
    if not path:
        if pool is not None:
            raise PyError("ValueError", "The mooncake-store connector needs %s set to a Mooncake "
                          "JSON config, or kv_connector_config.mooncake_store set so the server "
                          "renders one [stand-in: this program builds its LLM itself and does "
                          "not provision a mooncake_store block; trtllm-serve and the pool "
                          "wrapper (dynamo_trtllm_pool) do]" % CONFIG_PATH_ENV)
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
    file_role = str(cfg.get("role", "both")).strip().lower()
    if file_role not in MOONCAKE_ROLES:
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
    role = role or file_role
    sys.stderr.write("mooncake-store: %s joins the pool at %s as %s (model_key %s)\n"
                     % (path, addr, role, cfg.get("model_key")))
    return {"master": None if SE.check_only() else addr,     # check-only waits for no peer
            "config": path, "role": role, "provisioned": provisioned or path in PROVISIONED}


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
           typ=SD.nullable(float))
    SD.arg(g, "--active-prefill-tokens-threshold", "DYN_ACTIVE_PREFILL_TOKENS_THRESHOLD", None,
           typ=SD.nullable(int))
    SD.arg(g, "--active-prefill-tokens-threshold-frac",
           "DYN_ACTIVE_PREFILL_TOKENS_THRESHOLD_FRAC", None, typ=SD.nullable(float))
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
        mc = mooncake_client(engine, provision=False)
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
            "mooncake_master": mc and mc["master"],
            "record_extra": {"mpi_world_size": world, "router_advertisement": router,
                             "mooncake_master": mc and mc["master"], "mooncake": mc,
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
                         "mooncake_donor\n  mooncake_master\n  serve\n" % GROUP_USAGE)
        return 0
    if args[0].startswith("-"):
        strict_cli.click_fail(GROUP_USAGE, "trtllm-serve", "No such option: %s"
                              % args[0].split("=", 1)[0])
    if args[0] == "disaggregated":
        return main_disaggregated(args[1:])
    if args[0] == "mooncake_master":
        return main_mooncake_master(args[1:])
    if args[0] == "mooncake_donor":
        return main_mooncake_donor(args[1:])
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
    mc = mooncake_client(llm_args)      # provisions a mooncake_store block first
    master = mc and mc["master"]
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
            "record_extra": {"mpi_world_size": world, "mooncake_master": master,
                             "mooncake": mc}}


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


# ---------------------------------------------------------------------------
# trtllm-serve mooncake_master / mooncake_donor (tensorrt_llm/commands/
# mooncake.py@138e5e3f over the connector's master.py@b20e54a1 and
# donor.py@1e19d2bd): the pool's master with a lifetime of its own, which
# publishes its address for workers and donors to find, and a node lending
# host memory to that pool.

MOONCAKE_WHERE = "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/commands/mooncake.py"
MASTER_SPEC = (("rpc_port", "int", 50051), ("metrics_port", "int", 9004),
               ("eviction_ratio", "float", 0.05), ("address_file", "str", None),
               ("run_dir", "str", None), ("config", "str", None),
               ("heartbeat_seconds", "int", 300))
DONOR_SPEC = (("master_server_address", "str", None), ("segment_size", "str", "32GiB"),
              ("config", "str", None), ("protocol", "str", None), ("device_name", "str", None),
              ("metadata_server", "str", None), ("local_buffer_size", "str", None),
              ("ready_file", "str", None), ("heartbeat_seconds", "int", 300))


class SignalExit(BaseException):
    """_telemetry.SignalExit: a SIGINT/SIGTERM unwinding the command (its
    resources released on the way out); trtllm-serve then exits 128 + N."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


class ClickError(Exception):
    """click.ClickException: `Error: MESSAGE` on stderr, exit 1."""


def signal_handoff():
    """_signal_handoff: SIGINT and SIGTERM raise SignalExit.  (Only the
    first: the stand-in ignores a second one that arrives while the first
    unwinds.)"""
    fired = []

    def handler(signum, frame):
        if not fired:
            fired.append(signum)
            raise SignalExit(signum)

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


def os_error(e, path):
    return PyError({errno.ENOENT: "FileNotFoundError", errno.EACCES: "PermissionError",
                    errno.EISDIR: "IsADirectoryError", errno.ENOTDIR: "NotADirectoryError"}.get(
                        e.errno, "OSError"), "[Errno %d] %s: '%s'" % (e.errno, e.strerror, path))


def read_json_file(path):
    try:
        with open(SE.host_path(path)) as f:
            return json.load(f)
    except OSError as e:
        raise os_error(e, path)
    except ValueError as e:
        raise PyError("json.decoder.JSONDecodeError", str(e))


def parse_pool_command(name, spec, args):
    """click's parse of the command's options (all optional, exact names,
    `--x=v`); exits 2 with click's usage error otherwise."""
    row = lambda dest, flags, kind, typ=None, default=None: {      # noqa: E731
        "dest": dest, "spellings": flags, "kind": kind, "type": typ, "default": default,
        "choices": None, "required": False}
    rows = [row("help", ["--help"], "help")]
    rows += [row(dest, ["--" + dest], "value", typ, default) for dest, typ, default in spec]
    rows += [row("telemetry", ["--telemetry"], "switch", default=False),
             row("no_telemetry", ["--no-telemetry"], "switch", default=False)]
    ns = strict_cli.parse_click(rows, "trtllm-serve %s [OPTIONS]" % name, "trtllm-serve " + name,
                                args)
    flags = [a for a in args[:args.index("--")] if a in ("--telemetry", "--no-telemetry")] \
        if "--" in args else [a for a in args if a in ("--telemetry", "--no-telemetry")]
    del ns["no_telemetry"]
    ns["telemetry"] = not flags or flags[-1] == "--telemetry"
    return ns


class LaunchedMaster:
    def __init__(self, process, address, log_path):
        self.process, self.address, self.log_path = process, address, log_path

    def stop(self, timeout=10.0):
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def launch_master(ns, run_dir):
    """_launch_master: start the binary on this host, wait for its RPC port."""
    import shutil
    binary = os.environ.get(BINARY_ENV) or "mooncake_master"
    resolved = shutil.which(binary)
    if resolved is None and not os.environ.get(BINARY_ENV):
        resolved = os.path.join(HERE, "fake_mooncake_master")   # the stand-in's fallback
    if resolved is None:
        raise PyError("FileNotFoundError", "%r is not on PATH, so launch_master cannot start a "
                      "Mooncake master. It ships with the Mooncake runtime, which docker/common/"
                      "install_mooncake.sh installs. Point %s at the binary, or drop "
                      "launch_master and set master_server_address to a master you run "
                      "yourself." % (binary, BINARY_ENV))
    host = master_host()
    log_path = os.path.join(run_dir, MASTER_LOG_NAME)
    env = dict(os.environ, GLOG_logtostderr="1")
    env.setdefault("GLOG_v", "1")
    command = [resolved, "--rpc_port=%d" % ns["rpc_port"], "--metrics_port=%d" % ns["metrics_port"],
               "--eviction_ratio=%s" % ns["eviction_ratio"]]
    tllm_log("I", "mooncake-store: starting %s on %s" % (" ".join(command), host))
    with open(SE.host_path(log_path), "wb") as f:
        process = subprocess.Popen(command, env=env, stdout=f, stderr=subprocess.STDOUT)
    master = LaunchedMaster(process, "%s:%d" % (host, ns["rpc_port"]), log_path)
    tllm_log("I", "mooncake-store: master pid=%d logging to %s (GLOG_v=%s); waiting for it to "
             "accept connections" % (process.pid, log_path, env["GLOG_v"]))
    try:
        elapsed = wait_until_accepting(host, ns["rpc_port"], master_timeout(), process=process,
                                       log_path=log_path)
    except BaseException:
        master.stop()
        raise
    tllm_log("I", "mooncake-store: master ready at %s after %.1fs (metrics http://%s:%d, log %s)"
             % (master.address, elapsed, host, ns["metrics_port"], log_path))
    return master


def publish_address(address, path):
    """Write `address\\n` to PATH.partial, then rename it into place."""
    hp = SE.host_path(path)
    if os.path.dirname(hp):
        os.makedirs(os.path.dirname(hp), exist_ok=True)
    with open(hp + ".partial", "w") as f:
        f.write("%s\n" % address)
    os.replace(hp + ".partial", hp)
    tllm_log("I", "mooncake-store: published master %s to %s" % (address, path))


def withdraw_addresses(paths):
    for path in paths:
        try:
            os.remove(SE.host_path(path))
        except OSError:
            continue
        tllm_log("I", "mooncake-store: withdrew the master address at %s" % path)


def master_client_config(raw, address, run_dir):
    """--config: a copy of the pool's config naming this master, written to
    run_dir as the client config its workers read (approximate: PoolSpec's
    own checks of the file were not imitated)."""
    pool = dict((k, d) for k, (_, d) in POOL_FIELDS.items())
    pool.update((k, v) for k, v in raw.items() if k in pool)
    for key, least in (("global_segment_size", 0), ("local_buffer_size", 1)):
        pool[key] = strict_size(key, pool[key], least)
    path = os.path.join(run_dir, CLIENT_CONFIG_NAME)
    cfg = client_config(pool, address, resolve_device_name(pool["protocol"], pool["device_name"]))
    with open(SE.host_path(path), "w") as f:
        json.dump(cfg, f, indent=2)
    return path


def run_master(ns, raw, run_dir):
    os.makedirs(SE.host_path(run_dir), exist_ok=True)
    master = launch_master(ns, run_dir)
    try:
        paths = [os.path.join(run_dir, MASTER_ADDRESS_NAME)]
        extra = ns["address_file"]
        if extra and os.path.abspath(extra) not in {os.path.abspath(p) for p in paths}:
            paths.append(extra)
        published = []
        try:
            for path in paths:
                publish_address(master.address, path)
                published.append(path)
            if ns["config"]:
                master_client_config(raw, master.address, run_dir)
            host = master.address.rsplit(":", 1)[0]
            tllm_log("I", "mooncake-store: this master owns the pool until this command stops; "
                     "address %s, log %s, metrics http://%s:%d/metrics"
                     % (master.address, master.log_path, host, ns["metrics_port"]))
            started = announced = time.monotonic()
            while True:
                if master.process.poll() is not None:
                    raise ClickError("mooncake_master exited with code %d. See %s"
                                     % (master.process.returncode, master.log_path))
                time.sleep(1.0)
                now = time.monotonic()
                if ns["heartbeat_seconds"] > 0 and now - announced >= ns["heartbeat_seconds"]:
                    announced = now
                    tllm_log("I", "mooncake-store: master at %s alive after %.0fm"
                             % (master.address, (now - started) / 60))
        finally:
            withdraw_addresses(published)
    finally:
        master.stop()
        tllm_log("I", "mooncake-store: master at %s stopped" % master.address)


def main_mooncake_master(args):
    ns = parse_pool_command("mooncake_master", MASTER_SPEC, args)
    try:
        raw = {}
        if ns["config"]:
            raw = read_json_file(ns["config"])
            if not isinstance(raw, dict):
                raise PyError("AttributeError", "'%s' object has no attribute 'pop'"
                              % type(raw).__name__)
            raw.pop("master_server_address", None)
        if SE.check_only():
            master_timeout()
            SE.print_options(dict(ns, prog="trtllm-serve mooncake_master"))
            return 0
        import tempfile
        run_dir = ns["run_dir"] or os.environ.get(RUN_DIR_ENV) or tempfile.mkdtemp(
            prefix="trtllm-mooncake-master-")
        FE.record(None, None, name="mooncake_pool.jsonl", extra={
            "prog": "trtllm-serve mooncake_master", "options": ns, "run_dir": run_dir})
        signal_handoff()
        try:
            run_master(ns, raw, run_dir)
        except SignalExit as e:
            tllm_log("I", "mooncake-store: signal %d received, shut down" % e.signum)
            return 128 + e.signum
    except PyError as e:
        return traceback_exit(MOONCAKE_WHERE + "\", line 1, in mooncake_master", e)
    except ClickError as e:
        sys.stderr.write("Error: %s\n" % e)
        return 1
    return 0


class Segment:
    """The donor's store handle: MooncakeDistributedStore().setup() stands
    for a TCP connection to the master's RPC port, held idle (the stand-in
    master lists it in /get_all_segments) and reopened if it drops."""

    def __init__(self, master, protocol):
        self.master, self.protocol = master, protocol
        self.conn, self.closed = None, threading.Event()

    def connect(self):
        host, port = split_address(self.master)
        conn = socket.create_connection((host, port), timeout=5.0)
        conn.settimeout(None)
        return conn

    def setup(self):
        """0, or the transfer engine's -1 (no transport for the protocol, no
        master at the address)."""
        if self.protocol not in MOONCAKE_PROTOCOLS or split_address(self.master) is None:
            return -1
        try:
            self.conn = self.connect()
        except OSError:
            return -1
        threading.Thread(target=self.hold, daemon=True).start()
        return 0

    def hold(self):
        while not self.closed.is_set():
            conn = self.conn
            if conn is not None:
                try:
                    data = conn.recv(1)
                except OSError:
                    data = b""
                if not data:
                    self.conn = None
                continue
            if self.closed.wait(1.0):
                return
            try:
                self.conn = self.connect()
            except OSError:
                pass

    def close(self):
        self.closed.set()
        conn = self.conn
        if conn is not None:
            try:
                conn.shutdown(socket.SHUT_RDWR)
                conn.close()
            except OSError:
                pass


def donate(ns, master, resolved, donating, buffer, protocol, device, metadata):
    """donate_segment, then the ready file, then idle: what the command does
    once the master answers.  Ends only by an exception (SignalExit)."""
    host = local_address(peer=resolved)
    donated = "%.1fGiB" % (donating / 1024 ** 3)
    tllm_log("I", "mooncake-store: lending memory to the pool at %s as capacity only, no reads or "
             "writes: host=%s segment_size=%s (%d bytes) protocol=%s device=%s metadata_server=%s "
             "local_buffer_size=%d bytes" % (resolved, host, donated, donating, protocol,
                                             device or "(none)", metadata, buffer))
    seg = Segment(resolved, protocol)
    started = time.monotonic()
    status = seg.setup()
    elapsed = time.monotonic() - started
    if status != 0:
        raise PyError("RuntimeError", "Mooncake store.setup failed with status %d after %.1fs, so "
                      "no memory was lent to the pool. The master at %s must already be "
                      "accepting connections; protocol=%r with device=%r must be usable from %s; "
                      "and this node must have %s of memory to spare, which it does not if its "
                      "own kv_cache_config.host_cache_size has already claimed it."
                      % (status, elapsed, resolved, protocol, device or "(none)", host, donated))
    tllm_log("I", "mooncake-store: %s of %s is now part of the pool, registered in %.1fs; the "
             "master at %s can place blocks here from now on" % (donated, host, elapsed, resolved))
    try:
        ready = ns["ready_file"]
        if ready:
            try:
                with open(SE.host_path(ready), "w") as f:     # not atomic, as the real one
                    f.write("%s %d\n" % (host, donating))
            except OSError as e:
                raise os_error(e, ready)
            tllm_log("I", "mooncake-store: announced this segment in %s, so a launcher waiting "
                     "on the pool's capacity can proceed" % ready)
        started = time.monotonic()
        while True:
            if ns["heartbeat_seconds"] <= 0:
                time.sleep(60.0)
                continue
            time.sleep(ns["heartbeat_seconds"])
            tllm_log("I", "mooncake-store: %s still lending %.1fGiB to the pool at %s after %.0fm"
                     % (host, donating / 1024 ** 3, master, (time.monotonic() - started) / 60))
    finally:
        seg.close()
        tllm_log("I", "mooncake-store: withdrew the %s lent from %s; the master will report "
                 "blocks that lived there as lost" % (donated, host))


def main_mooncake_donor(args):
    name = "mooncake_donor"
    ns = parse_pool_command(name, DONOR_SPEC, args)
    usage = lambda msg: strict_cli.click_fail(      # noqa: E731
        "trtllm-serve %s [OPTIONS]" % name, "trtllm-serve " + name, msg)
    try:
        raw = {}
        config = ns["config"] or os.environ.get(CONFIG_PATH_ENV)
        if config:
            raw = read_json_file(config)
            if not isinstance(raw, dict):
                raise PyError("AttributeError", "'%s' object has no attribute 'get'"
                              % type(raw).__name__)
        master = ns["master_server_address"] or raw.get("master_server_address", "")
        if not master:
            usage("No master to join. Pass --master_server_address, or a --config naming one "
                  "(or set %s)." % CONFIG_PATH_ENV)
        sizes = []
        for flag, value in (("--segment_size", ns["segment_size"]),
                            ("--local_buffer_size", ns["local_buffer_size"])):
            if value is None:
                sizes.append(DEFAULT_DONOR_LOCAL_BUFFER_SIZE)
                continue
            try:
                sizes.append(parse_size(value))
            except ValueError as e:
                usage("%s: %s" % (flag, e))
        donating, buffer = sizes
        timeout = master_timeout()
        protocol = ns["protocol"] or raw.get("protocol") or "rdma"
        device = ns["device_name"] or raw.get("device_name", "") or ""
        metadata = ns["metadata_server"] or raw.get("metadata_server") or DEFAULT_METADATA_SERVER
        if SE.check_only():
            SE.print_options(dict(ns, prog="trtllm-serve mooncake_donor", master=master,
                                  segment_bytes=donating, local_buffer_bytes=buffer,
                                  protocol=protocol, device_name=device,
                                  metadata_server=metadata))
            return 0
        FE.record(None, None, name="mooncake_pool.jsonl", extra={
            "prog": "trtllm-serve mooncake_donor", "options": ns, "segment_bytes": donating})
        resolved = resolve_master_address(master, timeout)
        wait_for_master(resolved)
        signal_handoff()
        try:
            donate(ns, master, resolved, donating, buffer, protocol, device, metadata)
        except SignalExit as e:
            tllm_log("I", "mooncake-store: signal %d received, shut down" % e.signum)
            return 128 + e.signum
    except PyError as e:
        return traceback_exit(MOONCAKE_WHERE + "\", line 1, in mooncake_donor", e)
    except KeyboardInterrupt:       # SIGINT before the handoff: click's Abort
        sys.stderr.write("\nAborted!\n")
        return 1
    return 0


# ---------------------------------------------------------------------------
# srt-slurm's Dynamo pool wrapper (backends/trtllm.py _DYNAMO_MOONCAKE_ENTRYPOINT,
# run as `python3 -c PROGRAM YAML <dynamo.trtllm args>`): the engine YAML
# popped from argv, KvCacheConnectorConfig(**yaml["kv_connector_config"]),
# then dynamo.trtllm run inside maybe_provision_pool(connector), which is a
# no-op unless it selects mooncake-store with a mooncake_store block.

def pool_wrapper_fail(line, e):
    return traceback_exit("<string>\", line %d, in <module>" % line, e)


def main_dynamo_pool(args):
    if not args:
        return pool_wrapper_fail(7, PyError("IndexError", "pop index out of range"))
    path, rest = args[0], args[1:]
    try:
        with open(SE.host_path(path)) as f:
            text = f.read()
    except OSError as e:
        return pool_wrapper_fail(7, os_error(e, path))
    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError as e:
        return pool_wrapper_fail(8, PyError("%s.%s" % (type(e).__module__, type(e).__name__),
                                            str(e)))
    try:
        if isinstance(config, dict):
            if "kv_connector_config" not in config:
                raise PyError("KeyError", "'kv_connector_config'")
            kc = config["kv_connector_config"]
        elif isinstance(config, list):
            raise PyError("TypeError", "list indices must be integers or slices, not str")
        elif isinstance(config, str):
            raise PyError("TypeError", "string indices must be integers, not 'str'")
        else:
            raise PyError("TypeError", "'%s' object is not subscriptable" % type(config).__name__)
        if not isinstance(kc, dict):
            raise PyError("TypeError", "tensorrt_llm.llmapi.llm_args.KvCacheConnectorConfig() "
                          "argument after ** must be a mapping, not %s" % type(kc).__name__)
        block = kc.get("mooncake_store")
        pool = pool_block(block, "KvCacheConnectorConfig", "mooncake_store") \
            if block is not None else None
    except PyError as e:
        return pool_wrapper_fail(9, e)
    exported = os.environ.get(CONFIG_PATH_ENV)
    try:
        if mooncake_connector(kc) and pool is not None:
            try:
                provision_pool(pool)
            except PyError as e:
                return pool_wrapper_fail(10, e)
            except Refusal as e:
                sys.stderr.write(str(e) + "\n")
                return e.code
            if SE.check_only():
                CHECK_ONLY_POOL.append(path)
        return main_dynamo(rest)
    finally:
        del CHECK_ONLY_POOL[:]
        if exported is None:
            os.environ.pop(CONFIG_PATH_ENV, None)
