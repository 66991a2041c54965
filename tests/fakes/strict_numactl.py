"""Strict stand-in for numactl (numactl 2.0, Debian's `numactl` package), as
srt-slurm runs it in front of TensorRT-LLM's launcher on Grace Blackwell
trays: `numactl -m 0,1 trtllm-llmapi-launch ...`.

What it models, as numactl does it:
- options are parsed with getopt_long and a leading '+': parsing stops at the
  first word that is not an option, which starts the command; long options
  may be abbreviated while unambiguous; `-m0,1`, `-m 0,1`, `--membind=0,1`
  and `--membind 0,1` are the same;
- a node list is `all` or comma-separated N and N-M items, optionally
  preceded by `!` (all but those) or `+` (cpuset-relative); a node above the
  machine's last one is refused as libnuma does (a warning on stderr, then
  `<LIST> is invalid` on stdout and the usage on stderr, exit 1);
- two memory policies (-m, -i, -p, -P, -l) conflict (`numactl: Conflicting
  policies`, usage, exit 1); an unknown option is getopt's message and the
  usage, exit 1; no command is the usage, exit 1;
- then the command runs in numactl's place (execvp), or `numactl: execution
  of `CMD': <strerror>` and exit 1.

The machine it pretends to be has $FAKE_NUMA_NODES NUMA nodes (default 4:
a Grace tray's two CPU nodes and memory nodes of its GPUs).  The shared
memory options (--shm, --file, --length, ...) are not modelled: they are
refused with a stand-in message and exit 2, never silently accepted.

With $FAKE_RECORD_DIR set, each run appends one line to numactl.jsonl (the
policy, the command, the MPI rank variables); parse() is what
tests/cli/corpus_argv_check.py calls in-process."""

import json
import os
import sys

USAGE = """usage: numactl [--all | -a] [--balancing | -b] [--interleave= | -i <nodes>]
               [--preferred= | -p <node>] [--preferred-many= | -P <nodes>]
               [--physcpubind= | -C <cpus>] [--cpunodebind= | -N <nodes>]
               [--membind= | -m <nodes>] [--localalloc | -l] command args ...
       numactl [--show | -s]
       numactl [--hardware | -H]
       numactl [--length | -L <length>] [--offset | -o <offset>] [--shmmode | -M <shmmode>]
               [--strict | -t]
               [--shmid | -I <id>] --shm | -S <shmkeyfile>
               [--shmid | -I <id>] --file | -f <tmpfsfile>
               [--huge | -u] [--touch | -T]
               memory policy | --dump | -d | --dump-nodes | -D

memory policy is --preferred, --membind, --localalloc
nodes is a comma delimited list of node numbers or A-B ranges or all.
Instead of a number a node can also be:
  netdev:DEV the node connected to network device DEV
  file:PATH  the node the block device of path is connected to
  ip:HOST    the node of the network device host routes through
  block:PATH the node of block device path
  pci:[seg:]bus:dev[:func] The node of a PCI device
cpus is a comma delimited list of cpu numbers or A-B ranges or all
all ranges can be inverted with !
all numbers and ranges can be made cpuset-relative with +
the old --cpubind argument is deprecated.
use --cpunodebind or --physcpubind instead
length can have g (GB), m (MB) or k (KB) suffixes
"""

# long name -> (short letter, takes an argument)
LONG = {
    "all": ("a", False), "balancing": ("b", False), "interleave": ("i", True),
    "preferred": ("p", True), "preferred-many": ("P", True), "cpubind": ("c", True),
    "cpunodebind": ("N", True), "physcpubind": ("C", True), "membind": ("m", True),
    "show": ("s", False), "localalloc": ("l", False), "hardware": ("H", False),
    "shm": ("S", True), "file": ("f", True), "offset": ("o", True), "length": ("L", True),
    "strict": ("t", False), "shmmode": ("M", True), "dump": ("d", False),
    "dump-nodes": ("D", False), "shmid": ("I", True), "huge": ("u", False),
    "touch": ("T", False), "verify": ("V", False),
}
SHORT = {v[0]: v[1] for v in LONG.values()}
POLICY = {"m": "bind", "i": "interleave", "p": "preferred", "P": "preferred-many",
          "l": "local"}
NODE_ARGS = {"m", "i", "p", "P", "N", "c"}
SHM = {"S", "f", "o", "L", "M", "d", "D", "I", "u", "T", "V", "t"}


class Refusal(Exception):
    """numactl's refusal: what it printed (stdout, stderr) and its status."""

    def __init__(self, out, err, status=1):
        super().__init__(err)
        self.out, self.err, self.status = out, err, status


def nodes():
    try:
        return max(1, int(os.environ.get("FAKE_NUMA_NODES", "4")))
    except ValueError:
        return 4


def usage(out="", err=""):
    raise Refusal(out, err + USAGE)


def parse_nodes(text, limit):
    """The node numbers of a node list, or Refusal as libnuma + numactl."""
    s = text
    if s == "all":
        return list(range(limit))
    invert = s.startswith("!")
    s = s[1:] if invert else s
    s = s[1:] if s.startswith("+") else s
    got = set()
    for item in s.split(","):
        lo, sep, hi = item.partition("-")
        if not lo.isdigit() or (sep and not hi.isdigit()):
            usage("<%s> is invalid\n" % text)
        a, b = int(lo), int(hi) if sep else int(lo)
        for n in (a, b):
            if n >= limit:
                usage("<%s> is invalid\n" % text,
                      "libnuma: Warning: node argument %d is out of range\n\n" % n)
        if b < a:
            usage("<%s> is invalid\n" % text)
        got.update(range(a, b + 1))
    if invert:
        got = set(range(limit)) - got
    return sorted(got)


def parse(argv):
    """(options, command) of a numactl command line, or Refusal."""
    limit = nodes()
    opts, policy, i = {}, None, 0
    while i < len(argv):
        w = argv[i]
        if w == "--":
            i += 1
            break
        if not w.startswith("-") or w == "-":
            break
        if w.startswith("--"):
            name, eq, val = w[2:].partition("=")
            hits = [k for k in LONG if k == name] or [k for k in LONG if k.startswith(name)]
            if len(hits) != 1:
                usage(err="numactl: %s option '%s'\n"
                      % ("option" if hits else "unrecognized", w.split("=")[0]))
            letter, needs = LONG[hits[0]]
            if needs and not eq:
                if i + 1 >= len(argv):
                    usage(err="numactl: option '--%s' requires an argument\n" % hits[0])
                i += 1
                val = argv[i]
            elif not needs and eq:
                usage(err="numactl: option '--%s' doesn't allow an argument\n" % hits[0])
            i += 1
            opts, policy = apply(opts, policy, letter, val if needs else None, limit)
            continue
        j = 1
        while j < len(w):
            letter = w[j]
            if letter not in SHORT:
                usage(err="numactl: invalid option -- '%s'\n" % letter)
            if SHORT[letter]:
                val = w[j + 1:]
                if not val:
                    if i + 1 >= len(argv):
                        usage(err="numactl: option requires an argument -- '%s'\n" % letter)
                    i += 1
                    val = argv[i]
                opts, policy = apply(opts, policy, letter, val, limit)
                break
            opts, policy = apply(opts, policy, letter, None, limit)
            j += 1
        i += 1
    command = argv[i:]
    if not command and not opts.get("show") and not opts.get("hardware"):
        usage()
    return opts, command


def apply(opts, policy, letter, val, limit):
    if letter in SHM:
        raise Refusal("", "numactl stand-in: the shared memory options are not modelled "
                          "(tests/fakes/strict_numactl.py); srtctl never passes them\n", 2)
    if letter in POLICY:
        if policy:
            usage(err="numactl: Conflicting policies\n")
        policy = POLICY[letter]
        opts["policy"] = policy
    if letter in NODE_ARGS:
        got = parse_nodes(val, limit)
        if letter == "p" and len(got) != 1:
            usage()
        opts["cpunodebind" if letter in ("N", "c") else "nodes"] = got
    elif letter == "C":
        if not all(p.replace("-", "", 1).isdigit() for p in val.lstrip("!+").split(",")) \
                and val != "all":
            usage("<%s> is invalid\n" % val)
        opts["physcpubind"] = val
    elif letter == "s":
        opts["show"] = True
    elif letter == "H":
        opts["hardware"] = True
    elif letter in ("a", "b"):
        opts["all" if letter == "a" else "balancing"] = True
    return opts, policy


def record(opts, command):
    d = os.environ.get("FAKE_RECORD_DIR")
    if not d:
        return
    rec = {"prog": "numactl", "pid": os.getpid(), "options": opts, "command": command,
           "env": {k: v for k, v in os.environ.items()
                   if k in ("SLURM_PROCID", "SLURM_NTASKS", "PMIX_RANK", "SLURMD_NODENAME")}}
    data = (json.dumps(rec, sort_keys=True) + "\n").encode("ascii")
    fd = os.open(os.path.join(d, "numactl.jsonl"), os.O_WRONLY | os.O_APPEND | os.O_CREAT,
                 0o666)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def main(argv):
    try:
        opts, command = parse(argv)
    except Refusal as r:
        sys.stdout.write(r.out)
        sys.stdout.flush()
        sys.stderr.write(r.err)
        return r.status
    if opts.get("show"):
        sys.stdout.write("policy: default\npreferred node: current\nphyscpubind: 0\n"
                         "cpubind: 0\nnodebind: 0\nmembind: %s\n"
                         % " ".join(str(n) for n in range(nodes())))
        return 0
    if opts.get("hardware"):
        sys.stdout.write("available: %d nodes (0-%d)\n" % (nodes(), nodes() - 1))
        return 0
    record(opts, command)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execvp(command[0], command)
    except OSError as e:
        sys.stderr.write("numactl: execution of `%s': %s\n" % (command[0], e.strerror))
        return 1
