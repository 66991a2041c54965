"""Strict stand-in for the `ray` command line of Ray 2.53.0 (the version
radixark/miles pins, `ray[default]==2.53.0`, and so what srt-slurm's Miles
images ship), tests/fakes; see README.md.  What srtctl runs:

    ray start --head --port=P --dashboard-host=H --dashboard-port=D
              --node-ip-address=IP --num-gpus=N --disable-usage-stats --block [args]
    ray start --address=HEAD:P --node-ip-address=IP --num-gpus=N
              --disable-usage-stats --block [args]
    ray status --address HEAD:P
    ray --version

Facts (sources and commits in /work/ray-facts.md, written with this file):
ray-project/ray python/ray/scripts/scripts.py (`start`, `status`, the click
group), python/ray/autoscaler/_private/cli_logger.py (how the CLI prints),
python/ray/_private/node.py (GCS connection, SIGTERM), the accelerator
check of python/ray/_private/resource_and_label_spec.py,
python/ray/dashboard/modules/job/job_head.py and modules/version.py
(/api/version), python/ray/dashboard/modules/node/node_head.py and
datacenter.py, dashboard/utils.py (/nodes?view=summary), dashboard/head.py
(the advertised dashboard address), src/ray/rpc/grpc_server.cc (the GCS
binds 0.0.0.0).

Command line: click rules, as `ray` (a click group) parses them.  The group
takes --logging-level, --logging-format, --version ("ray, version 2.53.0")
and --help.  `ray start` takes every option the real one has, with its
type (the hidden ones too):

    option                          type    default     notes
    --node-ip-address               str     -
    --address                       str     -           worker: HEAD:PORT
    --port                          int     6379        head only
    --node-name                     str     -           hidden
    --redis-username                str     ""          hidden
    --redis-password                str     ""          hidden
    --redis-shard-ports             str     -           hidden, head only
    --object-manager-port           int     -
    --node-manager-port             int     0
    --min-worker-port               int     10002
    --max-worker-port               int     19999
    --worker-port-list              str     -
    --ray-client-server-port        int     -
    --memory                        int     -           hidden
    --object-store-memory           int     -
    --num-cpus                      int     -
    --num-gpus                      int     -
    --resources                     str     "{}"        a JSON object
    --head                          flag
    --include-dashboard             bool    -           head only
    --dashboard-host                str     127.0.0.1
    --dashboard-port                int     8265
    --dashboard-agent-listen-port   int     52365
    --dashboard-agent-grpc-port     int     -
    --runtime-env-agent-port        int     -
    --block                         flag
    --plasma-directory              str     -
    --object-spilling-directory     str     -
    --autoscaling-config            str     -
    --no-redirect-output            flag
    --temp-dir                      str     -
    --system-config                 json    -           hidden
    --enable-object-reconstruction  flag                hidden
    --metrics-export-port           int     -
    --no-monitor                    flag                hidden
    --tracing-startup-hook          str     -           hidden
    --ray-debugger-external         flag
    --disable-usage-stats           flag
    --labels                        str     ""          hidden, k=v,k2=v2 or JSON
    --labels-file                   str     ""          hidden
    --include-log-monitor           bool    -
    --enable-resource-isolation     flag
    --system-reserved-cpu           float   -
    --system-reserved-memory        int     -
    --cgroup-path                   str     -
    --log-style                     choice  auto        auto, record, pretty
    --log-color                     choice  auto        auto, false, true
    -v, --verbose                   count
    --help

Click's errors, exit 2, after "Usage: ray start [OPTIONS]" / "Try 'ray
start --help' for help.": "No such option: --x [Did you mean --y?]",
"Invalid value for '--port': 'x' is not a valid integer." (also float,
boolean, choice), "Option '--port' requires an argument.", "Option
'--head' does not take a value.", "Got unexpected extra argument (x)".

What the real one does next, and this stand-in too:
- Neither --head nor --address: cli_logger.abort, exit 1 (a PANIC line; in
  record style also click's "Error: " with the unformatted template, as
  the real one prints it).  --port / --redis-shard-ports /
  --include-dashboard without --head: the same, "`--port` should only be
  specified when starting head node with `--head`."
- Output through Ray's cli_logger: on stdout (PANIC on stderr), "record"
  style (`<date time,ms>\\tLEVEL scripts.py:N -- msg`, blank lines dropped)
  when stdin is not a terminal, "pretty" (indented, blank lines) when it is;
  ANSI colours unless --log-color false or an explicit --log-style record.
  "Ray runtime started." is printed once the node is up (the head: GCS and
  dashboard bound; a worker: registered with the head), then the --block
  lines.
- Head: the GCS port is bound on 0.0.0.0 (gRPC's "0.0.0.0:PORT";
  $FAKE_BIND_HOST narrows it for loopback tests); a taken GCS port fails
  ("RuntimeError: Failed to start GCS. ...", exit 1).  The dashboard binds
  --dashboard-host:--dashboard-port; a taken dashboard port is logged and
  the head runs without a dashboard, as Ray does unless
  --include-dashboard=true (then exit 1).  The advertised dashboard address
  is the node IP when --dashboard-host is not 127.0.0.1.
- Dashboard: GET /api/version -> {"version": "4", "ray_version", "ray_commit",
  "session_name"}; GET /nodes?view=summary -> {"result": true, "msg": "Node
  summary fetched.", "data": {"summary": [...], "nodeLogicalResources":
  {...}}} with every key camel-cased recursively as the dashboard's
  to_google_style does (so resourcesTotal holds "objectStoreMemory" and
  "node:InternalHead"); one entry per node, DEAD ones kept.  /nodes answers
  are cached 2 s per query string (aiohttp_cache), except with nocache=1 or
  RAY_DASHBOARD_NO_CACHE.  /nodes?view=hostNameList; any other view: 500
  "Unknown view X".  Other paths 404 "404: Not Found".
- Worker: "Local node IP", then the GCS connection: RAY_NUM_REDIS_GET_RETRIES
  (20) attempts, each waiting RAY_gcs_rpc_server_connect_timeout_s (5) with
  the C++ warning "Failed to connect to GCS at address H:P within 5
  seconds.", 1 s apart; then "RuntimeError: Failed to connect to GCS. ...",
  exit 1.  --num-gpus above the count in CUDA_VISIBLE_DEVICES: "ValueError:
  Attempting to start raylet with N GPU, but CUDA_VISIBLE_DEVICES contains
  [...]", exit 1; negative: "Resource quantities must be nonnegative.",
  exit 1.
- SIGTERM (either role, once started): the node's processes are stopped
  and the process exits 1 (node.py's handler: sys.exit(1)), printing
  nothing.  SIGINT: click's "Aborted!" on stderr, exit 1.  A worker whose
  head goes away exits 1 after RAY_gcs_rpc_server_reconnect_timeout_s (60)
  with the --block loop's "Some Ray subprocesses exited unexpectedly:" lines.
- The head marks a worker DEAD at once when it stops (EXPECTED_TERMINATION,
  "received SIGTERM"), and RAY_health_check_period_ms (3000) x
  RAY_health_check_failure_threshold (5) after its connection drops
  without a goodbye (UNEXPECTED_TERMINATION).

Not modelled (refused, exit 2, with a message): `ray start` without
--block (srtctl always passes it), --head with --address (external Redis),
--address=auto, --labels-file, every other `ray` subcommand.  The GCS here
speaks one text line per message over TCP (REGISTER/OK/BYE/STATUS, JSON
payloads), not gRPC; no raylet, object store, jobs or actors exist.

Environment: FAKE_RAY_VERSION / FAKE_RAY_COMMIT (what the node reports; the
commit is not the real release's), FAKE_RAY_START_DELAY (seconds before the
node comes up), FAKE_BIND_HOST, FAKE_CHECK_ONLY=1 (options checked and
printed as JSON, nothing started), FAKE_RECORD_DIR (ray.jsonl), and the Ray
variables named above.

Python 3 standard library only.
"""

import json
import os
import platform
import signal
import socket
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import strict_cli  # noqa: E402  (click's error layout)

RAY_VERSION = os.environ.get("FAKE_RAY_VERSION", "2.53.0")
RAY_COMMIT = os.environ.get("FAKE_RAY_COMMIT", "0" * 40)
DASHBOARD_API_VERSION = "4"     # dashboard/modules/version.py CURRENT_VERSION
RAY_BIN = "/usr/local/bin/ray"
SITE = "/usr/local/lib/python3.12/dist-packages/ray"


def env_float(name, default):
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return float(default)


def env_bool(name):
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


# ---------------------------------------------------------------------------
# click

START_OPTIONS = [
    # spellings, type, default, hidden
    (("--node-ip-address",), "str", None, False),
    (("--address",), "str", None, False),
    (("--port",), "int", None, False),
    (("--node-name",), "str", None, True),
    (("--redis-username",), "str", "", True),
    (("--redis-password",), "str", "", True),
    (("--redis-shard-ports",), "str", None, True),
    (("--object-manager-port",), "int", None, False),
    (("--node-manager-port",), "int", 0, False),
    (("--min-worker-port",), "int", 10002, False),
    (("--max-worker-port",), "int", 19999, False),
    (("--worker-port-list",), "str", None, False),
    (("--ray-client-server-port",), "int", None, False),
    (("--memory",), "int", None, True),
    (("--object-store-memory",), "int", None, False),
    (("--num-cpus",), "int", None, False),
    (("--num-gpus",), "int", None, False),
    (("--resources",), "str", "{}", False),
    (("--head",), "flag", False, False),
    (("--include-dashboard",), "bool", None, False),
    (("--dashboard-host",), "str", "127.0.0.1", False),
    (("--dashboard-port",), "int", 8265, False),
    (("--dashboard-agent-listen-port",), "int", 52365, False),
    (("--dashboard-agent-grpc-port",), "int", None, False),
    (("--runtime-env-agent-port",), "int", None, False),
    (("--block",), "flag", False, False),
    (("--plasma-directory",), "str", None, False),
    (("--object-spilling-directory",), "str", None, False),
    (("--autoscaling-config",), "str", None, False),
    (("--no-redirect-output",), "flag", False, False),
    (("--temp-dir",), "str", None, False),
    (("--system-config",), "json", None, True),
    (("--enable-object-reconstruction",), "flag", False, True),
    (("--metrics-export-port",), "int", None, False),
    (("--no-monitor",), "flag", False, True),
    (("--tracing-startup-hook",), "str", None, True),
    (("--ray-debugger-external",), "flag", False, False),
    (("--disable-usage-stats",), "flag", False, False),
    (("--labels",), "str", "", True),
    (("--labels-file",), "str", "", True),
    (("--include-log-monitor",), "bool", None, False),
    (("--enable-resource-isolation",), "flag", False, False),
    (("--system-reserved-cpu",), "float", None, False),
    (("--system-reserved-memory",), "int", None, False),
    (("--cgroup-path",), "str", None, False),
    (("--log-style",), "choice:auto,record,pretty", "auto", False),
    (("--log-color",), "choice:auto,false,true", "auto", False),
    (("-v", "--verbose"), "count", None, False),
    (("--help",), "help", None, False),
]

STATUS_OPTIONS = [
    (("--address",), "str", None, False),
    (("-v", "--verbose"), "flag", False, True),
    (("--help",), "help", None, False),
]

GROUP_OPTIONS = [
    (("--logging-level",), "str", "info", False),
    (("--logging-format",), "str", None, False),
    (("--version",), "version", None, False),
    (("--help",), "help", None, False),
]

# The other `ray` subcommands (click turns _ into -): known, not modelled.
OTHER_COMMANDS = {
    "attach", "check-open-ports", "cluster-dump", "cpp", "dashboard", "debug",
    "disable-usage-stats", "down", "drain-node", "enable-usage-stats", "exec",
    "get", "get-auth-token", "get-head-ip", "get-worker-ips", "global-gc",
    "health-check", "job", "kill-actor", "kill-random-node", "kuberay-autoscaler",
    "list", "local-dump", "logs", "memory", "metrics", "microbenchmark", "monitor",
    "rsync-down", "rsync-up", "sanity-check", "serve", "stack", "stop", "submit",
    "summary", "symmetric-run", "timeline", "up",
}

BOOL_TRUE = {"1", "true", "t", "yes", "y", "on"}
BOOL_FALSE = {"0", "false", "f", "no", "n", "off"}


def dest_of(spellings):
    return spellings[-1].lstrip("-").replace("-", "_")


def hint(spellings):
    return " / ".join("'%s'" % s for s in spellings)


def convert(row, text):
    spellings, typ = row[0], row[1]
    if typ == "int":
        try:
            return int(text)
        except ValueError:
            raise strict_cli.ClickError("Invalid value for %s: %r is not a valid integer."
                                        % (hint(spellings), text))
    if typ == "float":
        try:
            return float(text)
        except ValueError:
            raise strict_cli.ClickError("Invalid value for %s: %r is not a valid float."
                                        % (hint(spellings), text))
    if typ == "bool":
        low = text.strip().lower()
        if low in BOOL_TRUE:
            return True
        if low in BOOL_FALSE:
            return False
        raise strict_cli.ClickError("Invalid value for %s: %r is not a valid boolean."
                                    % (hint(spellings), text))
    if typ == "json":
        try:
            return json.loads(text)
        except ValueError:
            raise strict_cli.ClickError("Invalid value for %s: %s" % (hint(spellings), text))
    if typ.startswith("choice:"):
        choices = typ[len("choice:"):].split(",")
        for c in choices:
            if c.lower() == text.lower():
                return c
        raise strict_cli.ClickError("Invalid value for %s: %r is not one of %s."
                                    % (hint(spellings), text,
                                       ", ".join(repr(c) for c in choices)))
    return text


def click_parse(rows, args, usage, try_cmd, interspersed=True, on_help=None):
    """Parse args as click does for one command: exact option names,
    --x=v, -vv, `--` ends the options.  Returns (values, rest): rest is the
    non-option arguments (with interspersed=False, from the first one on,
    as a click group stops there)."""
    longs, shorts = {}, {}
    for row in rows:
        for s in row[0]:
            (longs if s.startswith("--") else shorts)[s] = row
    seen = []           # rows in order of first use
    last = {}           # dest -> last text (or count)
    rest = []
    try:
        i = 0
        while i < len(args):
            a = args[i]
            i += 1
            if a == "--":
                rest += args[i:]
                break
            if not a.startswith("-") or a == "-":
                if not interspersed:
                    rest += args[i - 1:]
                    break
                rest.append(a)
                continue
            name, eq, inline = a.partition("=")
            row = longs.get(name)
            if row is None and a[:2] != "--":
                # click falls back to short options: -vv, -x...
                for ch in a[1:]:
                    srow = shorts.get("-" + ch)
                    if srow is None:
                        raise strict_cli.ClickError("No such option: -%s" % ch)
                    i = take(srow, "-" + ch, None, args, i, seen, last)
                continue
            if row is None:
                import difflib
                near = difflib.get_close_matches(name, list(longs))
                msg = "No such option: %s" % name
                if len(near) == 1:
                    msg += " Did you mean %s?" % near[0]
                elif near:
                    msg += " (Possible options: %s)" % ", ".join(sorted(near))
                raise strict_cli.ClickError(msg)
            i = take(row, name, inline if eq else None, args, i, seen, last)
        values = {}
        for row in rows:
            if row[1] in ("help", "version"):
                continue
            values[dest_of(row[0])] = row[2]
        for row in seen:                    # eager options first
            if row[1] == "help" and on_help:
                on_help()
            if row[1] == "version":
                print_version()
        for row in seen:
            d = dest_of(row[0])
            if row[1] in ("help", "version"):
                continue
            if row[1] == "flag":
                values[d] = True
            elif row[1] == "count":
                values[d] = last[d]
            else:
                values[d] = convert(row, last[d])
        if rest and interspersed:
            raise strict_cli.ClickError("Got unexpected extra argument%s (%s)"
                                        % ("s" if len(rest) > 1 else "", " ".join(rest)))
    except strict_cli.ClickError as e:
        strict_cli.click_fail(usage, try_cmd, str(e))
    return values, rest


def take(row, name, inline, args, i, seen, last):
    d = dest_of(row[0])
    if row not in seen:
        seen.append(row)
    if row[1] in ("flag", "count", "help", "version"):
        if inline is not None:
            raise strict_cli.ClickError("Option %r does not take a value." % name)
        last[d] = last.get(d, 0) + 1 if row[1] == "count" else True
        return i
    if inline is None:
        if i >= len(args):
            raise strict_cli.ClickError("Option %r requires an argument." % name)
        inline = args[i]
        i += 1
    last[d] = inline
    return i


def print_version():
    sys.stdout.write("ray, version %s\n" % RAY_VERSION)
    sys.stdout.flush()
    sys.exit(0)


def help_printer(usage, summary, rows):
    def show():
        out = ["Usage: %s" % usage, "", "  " + summary, "", "Options:"]
        for row in rows:
            if not row[3]:
                out.append("  %s" % ", ".join(row[0]))
        sys.stdout.write("\n".join(out) + "\n")
        sys.exit(0)
    return show


# ---------------------------------------------------------------------------
# Output: Ray's cli_logger, Python logging and glog lines

def stamp():
    now = time.time()
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now)) + ",%03d" % (
        int(now * 1000) % 1000)


OUT_LOCK = threading.Lock()


def write(stream, text):
    with OUT_LOCK:
        try:
            stream.write(text)
            stream.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass


class Cli:
    """cli_logger: 'pretty' (a terminal) or 'record' style; colours as
    colorful's 8-colour mode writes them."""

    def __init__(self, pretty, colors):
        self.pretty, self.colors, self.indent = pretty, colors, 0

    def c(self, text, on, off):
        return "\x1b[%dm%s\x1b[%dm" % (on, text, off) if self.colors else text

    def bold(self, t):
        return self.c(t, 1, 22)

    def reset_tail(self):       # what a concatenated ColorfulString leaves behind
        return "\x1b[26m" if self.colors else ""

    def emit(self, msg, level="INFO", line=0, where="scripts.py"):
        if self.pretty:
            text = "  " * self.indent + msg
        else:
            if msg.strip() == "":
                return
            text = "%s\t%s %s:%d -- %s" % (stamp(), level, where, line, msg)
        # cli_logger._print: only WARNING, ERROR and PANIC go to stderr.
        stream = sys.stderr if level in ("WARNING", "ERROR", "PANIC") else sys.stdout
        write(stream, text + "\n")

    def newline(self):
        if self.pretty:
            write(sys.stdout, "\n")

    def success(self, msg, line):
        self.emit(self.c(msg, 32, 39), "SUCC", line)

    def group(self, title, line):
        self.emit(self.c(title, 36, 39), "INFO", line)
        self.indent += 1

    def end_group(self):
        self.indent -= 1

    def labeled(self, key, value, line):
        self.emit(self.c(key, 37, 39) + ": " + self.bold(value), "INFO", line)

    def error(self, msg, line):
        self.emit(self.c(msg, 31, 39), "ERR", line)

    def abort(self, template, *args, line=0):
        """cli_logger.abort: a PANIC line; in record style click then prints
        'Error: ' with the message *template* (unformatted) and exits 1, in
        pretty style a silent ClickException, exit 1."""
        self.emit(self.c(template.format(*[self.bold(a) for a in args]), 31, 39), "PANIC", line)
        if not self.pretty:
            write(sys.stderr, "Error: %s\n" % template)
        sys.exit(1)


def pylog(level, msg, where):
    """A line of Ray's Python loggers (LOGGER_FORMAT) on stderr."""
    write(sys.stderr, "%s\t%s %s -- %s\n" % (stamp(), level, where, msg))


def glog(sev, where, msg):
    """A line of Ray's C++ logging, as the core client prints it."""
    write(sys.stderr, "[%s %s %d %d] %s: %s\n" % (stamp(), sev, os.getpid(),
                                                  threading.get_native_id(), where, msg))


def crash(frames, last):
    """An uncaught exception out of the click command: traceback, exit 1."""
    out = ["Traceback (most recent call last):",
           '  File "%s", line 8, in <module>' % RAY_BIN,
           "    sys.exit(main())"]
    for f, line, fn, code in [("scripts/scripts.py", 2872, "main", "return cli()")] + frames:
        out.append('  File "%s/%s", line %d, in %s' % (SITE, f, line, fn))
        out.append("    " + code)
    out.append(last)
    write(sys.stderr, "\n".join(out) + "\n")
    sys.exit(1)


START_FRAMES = [("scripts/scripts.py", 1012, "start", "node = ray._private.node.Node(")]


def not_modelled(what):
    write(sys.stderr, "ray (stand-in, tests/fakes/strict_ray.py): %s is not modelled\n" % what)
    sys.exit(2)


# ---------------------------------------------------------------------------
# The node a `ray start` describes

def to_camel(key):
    parts = key.split("_")
    return parts[0] + "".join(p.title() for p in parts[1:])


def google_style(obj):
    """dashboard/utils.py to_google_style: every dict key camel-cased,
    recursively, lists of dicts included."""
    if isinstance(obj, dict):
        return {(to_camel(k) if isinstance(k, str) else k): google_style(v)
                for k, v in obj.items()}
    if isinstance(obj, list):
        return [google_style(v) if isinstance(v, dict) else v for v in obj]
    return obj


def meminfo():
    out = {}
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                k, _, v = line.partition(":")
                out[k] = int(v.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return out


def shm_bytes():
    try:
        st = os.statvfs("/dev/shm")
        return st.f_bavail * st.f_frsize
    except OSError:
        return 0


def fmt_gib(n):
    return "%.2fGiB" % (n / 2**30)


def describe_node(o, ip, head):
    """The node's resources and physical stats, as its raylet and
    reporter agent would report them."""
    mem = meminfo()
    avail = mem.get("MemAvailable", 8 * 2**30)
    obj = o.get("object_store_memory")
    if obj is None:
        obj = int(min(avail * 0.3, 200 * 10**9, max(shm_bytes(), 0) or avail * 0.3))
    memory = o.get("memory")
    if memory is None:
        memory = max(int(avail - obj), 0)
    cpus = o.get("num_cpus")
    if cpus is None:
        cpus = os.cpu_count() or 1
    resources = {"CPU": float(cpus)}
    if o.get("num_gpus"):
        resources["GPU"] = float(o["num_gpus"])
    resources.update({k: float(v) for k, v in o["resources_dict"].items()})
    resources["memory"] = float(memory)
    resources["object_store_memory"] = float(obj)
    resources["node:%s" % ip] = 1.0
    if head:
        resources["node:__internal_head__"] = 1.0
    host = socket.gethostname()
    try:
        load = list(os.getloadavg())
    except OSError:
        load = [0.0, 0.0, 0.0]
    total = mem.get("MemTotal", avail)
    physical = {
        "now": time.time(), "hostname": host, "ip": ip,
        "cpu": 0.0, "cpus": [os.cpu_count() or 1, os.cpu_count() or 1],
        "mem": [total, avail, round(100.0 * (total - avail) / total, 1) if total else 0.0,
                total - avail],
        "shm": shm_bytes(), "bootTime": time.time() - time.monotonic(),
        "loadAvg": [load, [x / (os.cpu_count() or 1) for x in load]],
        "disk": {}, "gpus": [], "network": [0, 0], "networkSpeed": [0.0, 0.0],
        "cmdline": ["ray", "start"],
    }
    return {"resources": resources, "physical": physical, "hostname": host,
            "labels": o["labels_dict"], "object_store_memory": obj}


def new_node_id():
    return os.urandom(28).hex()


class Cluster:
    """The head's GCS: the node table the dashboard and `ray status` read."""

    def __init__(self, session):
        self.session = session
        self.nodes = {}             # node id -> node record (insertion order)
        self.lock = threading.Lock()

    def add(self, desc, ip, head, ports):
        nid = new_node_id()
        labels = {"ray.io/node-id": nid}
        labels.update(desc.get("labels") or {})
        gcs = {
            "nodeId": nid,
            "nodeManagerAddress": ip,
            "rayletSocketName": "/tmp/ray/%s/sockets/raylet" % self.session,
            "objectStoreSocketName": "/tmp/ray/%s/sockets/plasma_store" % self.session,
            "nodeManagerPort": ports.get("node_manager_port") or 0,
            "objectManagerPort": ports.get("object_manager_port") or 0,
            "state": "ALIVE",
            "nodeManagerHostname": desc.get("hostname", ""),
            "metricsExportPort": ports.get("metrics_export_port") or 0,
            "runtimeEnvAgentPort": ports.get("runtime_env_agent_port") or 0,
            "resourcesTotal": desc["resources"],
            "nodeName": ports.get("node_name") or ip,
            "instanceId": "",
            "nodeTypeName": "",
            "instanceType": "",
            "startTimeMs": str(int(time.time() * 1000)),
            "endTimeMs": "0",
            "isHeadNode": head,
            "labels": labels,
            "stateSnapshot": {"state": "ACTIVE"},
        }
        with self.lock:
            self.nodes[nid] = {"gcs": gcs, "physical": desc.get("physical") or {},
                               "object_store_memory": desc.get("object_store_memory", 0)}
        return nid

    def mark_dead(self, nid, reason, message):
        with self.lock:
            node = self.nodes.get(nid)
            if node is None or node["gcs"]["state"] == "DEAD":
                return
            node["gcs"]["state"] = "DEAD"
            node["gcs"]["endTimeMs"] = str(int(time.time() * 1000))
            node["gcs"]["deathInfo"] = {"reason": reason, "reasonMessage": message}
            node["gcs"]["stateSnapshot"] = {"state": "DEAD"}

    def summary(self):
        out = []
        with self.lock:
            for nid, node in self.nodes.items():
                info = {k: v for k, v in node["physical"].items() if k != "workers"}
                total = int(node["object_store_memory"])
                raylet = {
                    "storeStats": {"objectStoreBytesAvail": str(total)},
                    "numWorkers": 0,
                    "coreWorkersStats": [],
                    "object_store_used_memory": 0,
                    "object_store_available_memory": total,
                }
                raylet.update(json.loads(json.dumps(node["gcs"])))
                death = node["gcs"].get("deathInfo") or {}
                raylet["stateMessage"] = state_message(death.get("reason"),
                                                       death.get("reasonMessage"))
                info["raylet"] = raylet
                out.append(info)
        return out

    def usage_lines(self, resources):
        lines = []
        for key in ("CPU", "GPU"):
            if key in resources:
                lines.append("0.0/%s %s" % (resources[key], key))
        lines.append("0B/%s memory" % fmt_gib(resources.get("memory", 0)))
        lines.append("0B/%s object_store_memory" % fmt_gib(resources.get("object_store_memory", 0)))
        return lines

    def logical_resources(self):
        with self.lock:
            return {nid: "\n".join(self.usage_lines(n["gcs"]["resourcesTotal"]))
                    for nid, n in self.nodes.items() if n["gcs"]["state"] == "ALIVE"}

    def alive(self):
        with self.lock:
            return [dict(n["gcs"]) for n in self.nodes.values() if n["gcs"]["state"] == "ALIVE"]


def state_message(reason, message):
    text = {"EXPECTED_TERMINATION": "Expected termination",
            "UNEXPECTED_TERMINATION": "Unexpected termination",
            "AUTOSCALER_DRAIN_PREEMPTED": "Terminated due to preemption",
            "AUTOSCALER_DRAIN_IDLE": "Terminated due to idle (no Ray activity)"}.get(reason)
    if message:
        text = "%s: %s" % (text, message) if text else message
    return text


# ---------------------------------------------------------------------------
# Head: the GCS port and the dashboard

class Gcs:
    """The GCS port.  One text line per message, a JSON payload after the
    verb: REGISTER {node} -> OK {node_id, session_name, ray_version,
    python_version}, then the connection stays open while the node lives;
    BYE {reason} before a worker stops; STATUS -> one JSON line."""

    def __init__(self, cluster, bind_host, port):
        self.cluster = cluster
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((bind_host, port))
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        self.conns = set()
        self.closed = False
        period = env_float("RAY_health_check_period_ms", 3000) / 1000.0
        self.health_timeout = period * env_float("RAY_health_check_failure_threshold", 5)

    def serve(self):
        while not self.closed:
            try:
                conn, addr = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.client, args=(conn, addr), daemon=True).start()

    def client(self, conn, addr):
        self.conns.add(conn)
        nid = None
        said_bye = False
        try:
            f = conn.makefile("rb")
            for raw in f:
                verb, _, payload = raw.decode("utf-8", "replace").strip().partition(" ")
                if verb == "REGISTER" and nid is None:
                    desc = json.loads(payload)
                    nid = self.cluster.add(desc, desc.get("ip") or addr[0], False,
                                           desc.get("ports") or {})
                    reply = {"node_id": nid, "session_name": self.cluster.session,
                             "ray_version": RAY_VERSION,
                             "python_version": platform.python_version()}
                    conn.sendall(("OK %s\n" % json.dumps(reply)).encode())
                elif verb == "BYE" and nid is not None:
                    said_bye = True
                    self.cluster.mark_dead(nid, "EXPECTED_TERMINATION",
                                           json.loads(payload or '""') or "received SIGTERM")
                elif verb == "STATUS":
                    conn.sendall((json.dumps(self.status()) + "\n").encode())
                    break
                else:
                    break
        except (OSError, ValueError):
            pass
        finally:
            self.conns.discard(conn)
            try:
                conn.close()
            except OSError:
                pass
        if nid is not None and not said_bye and not self.closed:
            # The GCS notices through its health checks.
            t = threading.Timer(self.health_timeout, self.cluster.mark_dead,
                                (nid, "UNEXPECTED_TERMINATION",
                                 "health check failed due to missing too many heartbeats"))
            t.daemon = True
            t.start()

    def status(self):
        nodes = self.cluster.alive()
        total = {}
        for n in nodes:
            for k, v in n["resourcesTotal"].items():
                if not k.startswith("node:"):
                    total[k] = total.get(k, 0.0) + v
        return {"nodes": [n["nodeId"] for n in nodes], "usage": self.cluster.usage_lines(total)}

    def close(self):
        self.closed = True
        try:
            self.sock.close()
        except OSError:
            pass
        for c in list(self.conns):
            try:
                c.shutdown(socket.SHUT_RDWR)
                c.close()
            except OSError:
                pass


class Dashboard(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    cluster = None
    cache = {}
    cache_lock = threading.Lock()
    ROUTES = ("/api/version", "/nodes")

    def log_message(self, fmt, *args):
        pass

    def version_string(self):
        return "Python/%s aiohttp/3.11.18" % platform.python_version()

    def reply(self, code, body, ctype="application/json; charset=utf-8"):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        if url.path == "/api/version":
            self.reply(200, json.dumps({
                "version": DASHBOARD_API_VERSION, "ray_version": RAY_VERSION,
                "ray_commit": RAY_COMMIT, "session_name": self.cluster.session}))
        elif url.path == "/nodes":
            self.cached(self.path, query, self.nodes)
        else:
            self.reply(404, "404: Not Found", "text/plain; charset=utf-8")

    do_HEAD = do_GET

    def refuse(self):
        path = urllib.parse.urlsplit(self.path).path
        if path in self.ROUTES:
            self.reply(405, "405: Method Not Allowed", "text/plain; charset=utf-8")
        else:
            self.reply(404, "404: Not Found", "text/plain; charset=utf-8")

    do_POST = do_PUT = do_DELETE = do_PATCH = refuse

    def cached(self, key, query, handler):
        """aiohttp_cache: an answer is reused for 2 s per path and query."""
        use = not env_bool("RAY_DASHBOARD_NO_CACHE") and query.get("nocache") != ["1"]
        now = time.monotonic()
        with self.cache_lock:
            hit = self.cache.get(key) if use else None
        if hit and hit[0] > now:
            self.reply(hit[1], hit[2])
            return
        code, body = handler(query)
        if use:
            with self.cache_lock:
                self.cache[key] = (now + 2.0, code, body)
        self.reply(code, body)

    def nodes(self, query):
        view = query.get("view", [None])[-1]
        if view == "summary":
            return 200, json.dumps({"result": True, "msg": "Node summary fetched.",
                                    "data": google_style({
                                        "summary": self.cluster.summary(),
                                        "node_logical_resources":
                                            self.cluster.logical_resources()})})
        if view is not None and view.lower() == "hostnamelist":
            hosts = sorted({n["nodeManagerHostname"] for n in self.cluster.alive()})
            return 200, json.dumps({"result": True, "msg": "Node hostname list fetched.",
                                    "data": {"hostNameList": hosts}})
        return 500, json.dumps({"result": False, "msg": "Unknown view %s" % view, "data": {}})


# ---------------------------------------------------------------------------
# ray start

class Stop:
    """SIGTERM / SIGINT, set from the handler, polled by the main thread."""
    sig = None


def on_signal(signum, frame):
    Stop.sig = signum


def parse_json_object(text, what, cli):
    try:
        value = json.loads(text)
        if not isinstance(value, dict):
            raise ValueError("The format after deserialization is not a key-value pair map.")
        for k, v in value.items():
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                raise ValueError("The value is not a number.")
        return value
    except ValueError as e:
        cli.error("`%s` is not a valid JSON string, detailed error:%s"
                  % (cli.bold("%s=%s" % (what, text)), e), 805)
        cli.abort("Valid values look like this: `{}`",
                  what + "='{\"CustomResource3\": 1, \"CustomResource2\": 2}'", line=809)


def parse_labels(text, cli):
    if not text:
        return {}
    try:
        out = {}
        for pair in text.split(","):
            k, eq, v = pair.partition("=")
            if not eq or not k.strip():
                raise ValueError("Label string is not a key-value pair.")
            out[k.strip()] = v.strip()
        return out
    except ValueError as e:
        try:
            value = json.loads(text)
            if isinstance(value, dict):
                return {str(k): str(v) for k, v in value.items()}
        except ValueError:
            pass
        cli.abort("`{}` is not a valid string of key-value pairs, detailed error: %s "
                  "Valid values look like this: `{}`" % e,
                  "--labels=%s" % text, '--labels="key1=val1,key2=val2"', line=880)


def visible_gpus():
    v = os.environ.get("CUDA_VISIBLE_DEVICES")
    if v is None:
        return None
    if v in ("", "NoDevFiles"):
        return []
    return v.split(",")


def check_gpus(o):
    n = o.get("num_gpus")
    ids = visible_gpus()
    if n is not None and ids is not None and n > len(ids):
        crash(START_FRAMES + [
            ("_private/resource_and_label_spec.py", 352, "_resolve_accelerator_resources",
             "raise ValueError(")],
            "ValueError: Attempting to start raylet with %d GPU, but CUDA_VISIBLE_DEVICES "
            "contains %r." % (n, ids))
    if n is not None and n < 0:
        crash(START_FRAMES + [("_private/resource_and_label_spec.py", 281, "_validate",
                               "raise ValueError(")],
              "ValueError: Resource quantities must be nonnegative. Violated by resource "
              "'GPU' in {'GPU': %d}." % n)


def session_name():
    now = time.time()
    return "session_%s_%06d_%d" % (time.strftime("%Y-%m-%d_%H-%M-%S", time.localtime(now)),
                                  int((now % 1) * 1e6), os.getpid())


def record(o, role):
    try:
        import strict_engine
        strict_engine.FE.record(o.get("port"), o.get("node_ip_address"), name="ray.jsonl",
                                extra={"prog": "ray start", "role": role, "options": o})
    except Exception:       # the record is a convenience; never a failure
        pass


def wait_delay():
    end = time.monotonic() + env_float("FAKE_RAY_START_DELAY", 0)
    while time.monotonic() < end and Stop.sig is None:
        time.sleep(0.05)


def block_lines(cli, session):
    cli.newline()
    cli.group(cli.bold("--block"), 1089)
    cli.emit("This command will now block forever until terminated by a signal.", "INFO", 1090)
    cli.emit("Running subprocesses are monitored and a message will be printed if any of "
             "them terminate unexpectedly. Subprocesses exit with SIGTERM will be treated "
             "as graceful, thus NOT reported.", "INFO", 1093)
    cli.emit("Process exit logs will be saved to: %s"
             % cli.bold("/tmp/ray/%s/logs/ray_process_exit.log" % session), "INFO", 1098)
    cli.end_group()


def finish(cli):
    """What the --block loop ends with once a signal arrived."""
    if Stop.sig == signal.SIGINT:
        write(sys.stderr, "\nAborted!\n")
    sys.exit(1)


def start_head(o, cli):
    if o["address"] is not None:
        not_modelled("`ray start --head --address` (an external Redis)")
    if o["disable_usage_stats"] or os.environ.get("RAY_USAGE_STATS_ENABLED") == "0":
        cli.emit("Usage stats collection is disabled.", "INFO", 372, "usage_lib.py")
    else:
        cli.emit("Usage stats collection is enabled by default without user confirmation "
                 "because this terminal is detected to be non-interactive. To disable this, "
                 "add `--disable-usage-stats` to the command that starts the cluster, or run "
                 "the following command: `ray disable-usage-stats` before starting the "
                 "cluster. See https://docs.ray.io/en/master/cluster/usage-stats.html for "
                 "more details.", "INFO", 461, "usage_lib.py")
    cli.newline()
    port = 6379 if o["port"] is None else o["port"]
    ip = o["node_ip_address"]
    cli.labeled("Local node IP", ip, 924)
    session = session_name()
    wait_delay()
    if Stop.sig is not None:
        finish(cli)
    bind = os.environ.get("FAKE_BIND_HOST") or "0.0.0.0"
    cluster = Cluster(session)
    try:
        if not 0 <= port <= 65535:
            raise OverflowError(port)
        gcs = Gcs(cluster, bind, port)
    except (OSError, OverflowError):
        line = ("[%s C %d %d] grpc_server.cc:134:  Check failed: server_ Failed to start the "
                "grpc server. The specified port is %d. This means that Ray's core components "
                "will not be able to function correctly. If the server startup error message "
                "is `Address already in use`, it indicates the server fails to start because "
                "the port is already used by other processes (such as --node-manager-port, "
                "--object-manager-port, --gcs-server-port, and ports between "
                "--min-worker-port, --max-worker-port). Try running sudo lsof -i :%d to check "
                "if there are other processes listening to the port."
                % (stamp(), os.getpid(), os.getpid(), port, port))
        crash(START_FRAMES + [
            ("_private/node.py", 352, "__init__", "self.start_head_processes()"),
            ("_private/node.py", 1402, "start_head_processes", "self._init_gcs_client()"),
            ("_private/node.py", 760, "_init_gcs_client", "raise RuntimeError(")],
            "RuntimeError: Failed to start GCS.  Last 1 lines of error files:\n%s\n.Please "
            "check /tmp/ray/%s/logs/gcs_server.out for details. Last connection error: None"
            % (line, session))
    threading.Thread(target=gcs.serve, daemon=True).start()
    check_gpus(o)
    desc = describe_node(o, ip, True)
    cluster.add(desc, ip, True, o)
    dashboard_url = None
    http = None
    if o["include_dashboard"] is not False:
        Dashboard.cluster = cluster
        host = o["dashboard_host"]
        try:
            http = ThreadingHTTPServer(("127.0.0.1" if host == "localhost" else host,
                                        o["dashboard_port"]), Dashboard)
        except OSError as e:
            if o["include_dashboard"]:
                gcs.close()
                crash(START_FRAMES + [("_private/services.py", 1342, "start_api_server",
                                       "raise Exception(err_msg + last_log_str)")],
                      "Exception: Failed to start the dashboard , return code 1\n"
                      " The last 20 lines of /tmp/ray/%s/logs/dashboard.log:\n"
                      "OSError: [Errno %d] error while attempting to bind on address "
                      "('%s', %d): %s" % (session, e.errno, host, o["dashboard_port"],
                                           "address already in use" if e.errno == 98
                                           else (e.strerror or "").lower()))
            pylog("ERROR", "Failed to start the dashboard , return code 1", "services.py:1342")
            pylog("ERROR", "Error should be written to 'dashboard.log' or 'dashboard.err'. We "
                  "are printing the last 20 lines for you. See 'https://docs.ray.io/en/master/"
                  "ray-observability/user-guides/configure-logging.html#logging-directory-"
                  "structure' to find where the log file is.", "services.py:1367")
            pylog("ERROR", "The last 20 lines of /tmp/ray/%s/logs/dashboard.log (it contains "
                  "the error message from the dashboard): \nOSError: [Errno %d] error while "
                  "attempting to bind on address ('%s', %d): %s"
                  % (session, e.errno, host, o["dashboard_port"],
                     "address already in use" if e.errno == 98
                     else (e.strerror or "").lower()), "services.py:1377")
            http = None
        if http is not None:
            http.daemon_threads = True
            threading.Thread(target=http.serve_forever, kwargs={"poll_interval": 0.1},
                             daemon=True).start()
            bound = http.server_address
            shown = ip if host != "127.0.0.1" else bound[0]
            dashboard_url = "%s:%d" % (shown, bound[1])
    address = "%s:%d" % (ip, gcs.port)

    cli.newline()
    msg = "Ray runtime started."
    cli.success("-" * len(msg), 961)
    cli.success(msg, 962)
    cli.success("-" * len(msg), 963)
    cli.newline()
    cli.group("Next steps", 965)
    cli.emit("To add another node to this Ray cluster, run", "INFO", 968)
    cli.emit(cli.bold("  ray start --address='%s'" % address), "INFO", 971)
    cli.newline()
    cli.emit("To connect to this Ray cluster:", "INFO", 981)
    cli.indent += 1
    cli.emit(cli.c("import", 35, 39) + cli.reset_tail() + " ray", "INFO", 983)
    cli.emit("ray" + cli.c(".", 35, 39) + cli.reset_tail() + "init(_node_ip_address"
             + cli.c("=", 35, 39) + cli.reset_tail() + cli.c("'%s'" % ip, 33, 39)
             + cli.reset_tail() + ")", "INFO", 984)
    cli.indent -= 1
    if dashboard_url:
        cli.newline()
        cli.emit("To submit a Ray job using the Ray Jobs CLI:", "INFO", 997)
        cli.emit(cli.bold("  RAY_API_SERVER_ADDRESS='http://%s' ray job submit --working-dir . "
                          "-- python my_script.py" % dashboard_url), "INFO", 998)
        cli.newline()
        cli.emit("See https://docs.ray.io/en/latest/cluster/running-applications/"
                 "job-submission/index.html ", "INFO", 1007)
        cli.emit("for more information on submitting Ray jobs to the Ray cluster.", "INFO", 1011)
    cli.newline()
    cli.emit("To terminate the Ray runtime, run", "INFO", 1016)
    cli.emit(cli.bold("  ray stop"), "INFO", 1017)
    cli.newline()
    cli.emit("To view the status of the cluster, use", "INFO", 1020)
    cli.emit("  %s%s" % (cli.bold("ray status"), cli.reset_tail()), "INFO", 1021)
    if dashboard_url:
        cli.newline()
        cli.emit("To monitor and debug Ray, view the dashboard at ", "INFO", 1025)
        cli.emit("  %s%s" % (cli.bold(dashboard_url), cli.reset_tail()), "INFO", 1026)
        cli.newline()
        cli.emit(cli.c("If connection to the dashboard fails, check your firewall settings "
                       "and network configuration.", 4, 24), "INFO", 1033)
    cli.end_group()
    block_lines(cli, session)
    record(o, "head")
    while Stop.sig is None:
        time.sleep(0.05)
    # node.py's SIGTERM handler: stop the node's processes, exit 1.
    if http is not None:
        http.shutdown()
        http.server_close()
    gcs.close()
    finish(cli)


def connect_gcs(host, port, src, cli):
    retries = int(env_float("RAY_NUM_REDIS_GET_RETRIES", 20))
    window = env_float("RAY_gcs_rpc_server_connect_timeout_s", 5)
    for _ in range(max(retries, 1)):
        end = time.monotonic() + window
        while True:
            if Stop.sig is not None:
                finish(cli)
            try:
                try:
                    return socket.create_connection((host, port), timeout=1,
                                                    source_address=(src, 0))
                except OSError as e:
                    if e.errno not in (99,):            # EADDRNOTAVAIL: not our address
                        raise
                    return socket.create_connection((host, port), timeout=1)
            except OSError:
                if time.monotonic() >= end:
                    break
                time.sleep(0.1)
        glog("W", "rpc_client.h:153", "Failed to connect to GCS at address %s:%d within %d "
             "seconds." % (host, port, window))
        t = time.monotonic() + 1.0
        while time.monotonic() < t:
            if Stop.sig is not None:
                finish(cli)
            time.sleep(0.05)
    crash(START_FRAMES + [
        ("_private/node.py", 193, "__init__", "self._init_gcs_client()"),
        ("_private/node.py", 765, "_init_gcs_client", "raise RuntimeError(")],
        "RuntimeError: Failed to connect to GCS. Last connection error: Traceback (most "
        "recent call last):\n"
        '  File "%s/_private/node.py", line 727, in _init_gcs_client\n'
        "    client = GcsClient(\n"
        '  File "python/ray/includes/gcs_client.pxi", line 64, in '
        "ray._raylet.InnerGcsClient.standalone\n"
        '  File "python/ray/includes/common.pxi", line 100, in '
        "ray._raylet.check_status_timeout_as_rpc_error\n"
        "ray.exceptions.RpcError: Timed out while waiting for GCS to become available.\n"
        % SITE)


def start_worker(o, cli):
    if o["address"] is None:
        cli.abort("`{}` is a required flag unless starting a head node with `{}`.",
                  "--address", "--head", line=1046)
    for flag, val in (("--port", o["port"]), ("--redis-shard-ports", o["redis_shard_ports"]),
                      ("--include-dashboard", o["include_dashboard"])):
        if val is not None:
            cli.abort("`{}` should only be specified when starting head node with `{}`.",
                      flag, "--head", line=1063)
    address = o["address"]
    if address == "auto":
        not_modelled("`ray start --address=auto` (finding a local cluster)")
    host, _, port_text = address.rpartition(":")
    if not host or not port_text.isdigit():
        crash(START_FRAMES + [("_private/node.py", 190, "__init__",
                               "self.validate_ip_port(self.address)"),
                              ("_private/node.py", 398, "validate_ip_port", "raise ValueError(")],
              "ValueError: Port is not specified for address %s" % address)
    port = int(port_text)
    if o["temp_dir"]:
        cli.emit(cli.c("`--temp-dir=%s` option will be ignored. `--head` is a required flag "
                       "to use `--temp-dir`. temp_dir is only configurable from a head node. "
                       "All the worker nodes will use the same temp_dir as a head node. "
                       % o["temp_dir"], 33, 39), "WARN", 880)
    ip = o["node_ip_address"]
    cli.labeled("Local node IP", ip, 1087)
    wait_delay()
    conn = connect_gcs(host, port, ip, cli)
    check_gpus(o)
    desc = describe_node(o, ip, False)
    desc.update({"ip": ip, "ports": {k: o.get(k) for k in (
        "node_manager_port", "object_manager_port", "metrics_export_port",
        "runtime_env_agent_port", "node_name")}})
    try:
        conn.settimeout(10)
        conn.sendall(("REGISTER %s\n" % json.dumps(desc)).encode())
        f = conn.makefile("rb")
        verb, _, payload = f.readline().decode("utf-8", "replace").strip().partition(" ")
        if verb != "OK":
            raise OSError("the GCS refused the registration")
        head = json.loads(payload)
        conn.settimeout(None)
    except (OSError, ValueError) as e:
        crash(START_FRAMES, "RuntimeError: Failed to register this node with the GCS at "
              "%s: %s" % (address, e))
    mine = (RAY_VERSION, platform.python_version())
    theirs = (head.get("ray_version"), head.get("python_version"))
    if mine != theirs:
        conn.close()
        crash(START_FRAMES + [("_private/node.py", 1199, "check_version_info",
                               "ray._private.utils.check_version_info(")],
              "RuntimeError: Version mismatch: The cluster was started with:\n"
              "    Ray: %s\n    Python: %s\nThis process on node %s was started with:\n"
              "    Ray: %s\n    Python: %s\n" % (theirs[0], theirs[1], ip, mine[0], mine[1]))
    session = head.get("session_name", "session_latest")
    cli.newline()
    msg = "Ray runtime started."
    cli.success("-" * len(msg), 1125)
    cli.success(msg, 1126)
    cli.success("-" * len(msg), 1127)
    cli.newline()
    cli.emit("To terminate the Ray runtime, run", "INFO", 1129)
    cli.emit(cli.bold("  ray stop"), "INFO", 1130)
    block_lines(cli, session)
    record(o, "worker")

    lost = {"at": None}

    def watch():
        try:
            while conn.recv(4096):
                pass
        except OSError:
            pass
        lost["at"] = time.monotonic()

    threading.Thread(target=watch, daemon=True).start()
    reconnect = env_float("RAY_gcs_rpc_server_reconnect_timeout_s", 60)
    while Stop.sig is None:
        time.sleep(0.05)
        if lost["at"] is not None and time.monotonic() - lost["at"] >= reconnect:
            # The raylet gives up on the GCS and exits; the --block loop
            # reports it and kills the rest.
            cli.newline()
            cli.error("Some Ray subprocesses exited unexpectedly:", 1150)
            cli.indent += 1
            cli.emit(cli.c(cli.bold("raylet") + cli.c(" [exit code=1]", 2, 22), 31, 39),
                     "ERR", 1154)
            cli.indent -= 1
            cli.newline()
            cli.error("Remaining processes will be killed.", 1175)
            os._exit(1)
    # node.py's SIGTERM handler: the raylet is stopped and unregisters.
    try:
        conn.sendall(('BYE "received %s"\n' % ("SIGTERM" if Stop.sig == signal.SIGTERM
                                                else "SIGINT")).encode())
        conn.shutdown(socket.SHUT_RDWR)
        conn.close()
    except OSError:
        pass
    finish(cli)


def cmd_start(args):
    usage = "ray start [OPTIONS]"
    o, _ = click_parse(START_OPTIONS, args, usage, "ray start",
                       on_help=help_printer(usage, "Start Ray processes manually on the "
                                            "local machine.", START_OPTIONS))
    style, color = o["log_style"].lower(), o["log_color"].lower()
    try:
        tty = sys.__stdin__ is not None and sys.__stdin__.isatty()
    except (ValueError, OSError):
        tty = False
    pretty = tty if style == "auto" else style == "pretty"
    colors = color == "true" or (color == "auto" and style != "record")
    cli = Cli(pretty, colors)
    if not o["block"]:
        not_modelled("`ray start` without --block (srtctl always passes --block)")
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if o["node_ip_address"] == "localhost":
        o["node_ip_address"] = "127.0.0.1"
    if o["node_ip_address"] is None:
        try:
            o["node_ip_address"] = socket.gethostbyname(socket.gethostname())
        except OSError:
            o["node_ip_address"] = "127.0.0.1"
    o["resources_dict"] = parse_json_object(o["resources"], "--resources", cli)
    o["labels_dict"] = parse_labels(o["labels"], cli)
    if o["labels_file"]:
        not_modelled("--labels-file (a YAML file)")
    if os.environ.get("FAKE_CHECK_ONLY", "") not in ("", "0"):
        sys.stdout.write(json.dumps(o, sort_keys=True) + "\n")
        return 0
    if o["head"]:
        start_head(o, cli)
    else:
        start_worker(o, cli)
    return 1


# ---------------------------------------------------------------------------
# ray status

def cmd_status(args):
    usage = "ray status [OPTIONS]"
    o, _ = click_parse(STATUS_OPTIONS, args, usage, "ray status",
                       on_help=help_printer(usage, "Print cluster status, including "
                                            "autoscaling info.", STATUS_OPTIONS))
    address = o["address"] or os.environ.get("RAY_ADDRESS")
    frames = [("scripts/scripts.py", 2240, "status",
               "address = services.canonicalize_bootstrap_address_or_die(address)")]
    if not address:
        crash(frames + [("_private/services.py", 560, "canonicalize_bootstrap_address_or_die",
                         "raise ConnectionError(")],
              "ConnectionError: Could not find any running Ray instance. Please specify the "
              "one to connect to by setting `--address` flag or `RAY_ADDRESS` environment "
              "variable.")
    host, _, port_text = address.rpartition(":")
    if not host or not port_text.isdigit():
        crash(frames, "ValueError: Invalid address %s" % address)
    port = int(port_text)
    window = env_float("RAY_gcs_rpc_server_connect_timeout_s", 5)
    end = time.monotonic() + window
    reply = None
    while reply is None:
        try:
            with socket.create_connection((host, port), timeout=2) as s:
                s.sendall(b"STATUS\n")
                line = s.makefile("rb").readline()
                reply = json.loads(line)
        except (OSError, ValueError):
            if time.monotonic() >= end:
                break
            time.sleep(0.1)
    if reply is None:
        glog("W", "rpc_client.h:153", "Failed to connect to GCS at address %s within %d "
             "seconds." % (address, window))
        crash([("scripts/scripts.py", 2241, "status",
                "gcs_client = ray._raylet.GcsClient(address=address)")],
              "ray.exceptions.RpcError: Timed out while waiting for GCS to become available.")
    now = time.time()
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now)) + ".%06d" % (
        int(now * 1e6) % 10**6)
    header = "=" * 8 + " Autoscaler status: %s " % when + "=" * 8
    sep = "-" * 63
    lines = [header, "Node status", sep, "Active:", " (no active nodes)", "Idle:"]
    lines += [" 1 node_%s" % nid for nid in reply["nodes"]] or [" (no idle nodes)"]
    lines += ["Pending:", " (no pending nodes)", "Recent failures:", " (no failures)", "",
              "Resources", sep, "Usage:"]
    lines += [" " + u for u in reply["usage"]]
    lines += ["", "Demands:", " (no resource demands)"]
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()
    return 0


# ---------------------------------------------------------------------------

def main(argv):
    usage = "ray [OPTIONS] COMMAND [ARGS]..."
    group_help = help_printer(usage, "Ray command line (stand-in: start, status).",
                              GROUP_OPTIONS)
    _, rest = click_parse(GROUP_OPTIONS, argv, usage, "ray", interspersed=False,
                          on_help=group_help)
    if not rest:
        group_help()
    cmd, args = rest[0], rest[1:]
    if cmd == "start":
        return cmd_start(args)
    if cmd == "status":
        return cmd_status(args)
    if cmd in OTHER_COMMANDS:
        not_modelled("`ray %s`" % cmd)
    strict_cli.click_fail(usage, "ray", "No such command '%s'." % cmd)
