#!/usr/bin/env python3
"""tests/cli/corpus_argv_check.py: run rendered worker and frontend argv
through the strict stand-ins (tests/fakes) with FAKE_CHECK_ONLY=1, in one
Python process.  Helper of tests/cli/test_corpus_argv.sh.

usage: corpus_argv_check.py FAKES_DIR ROOT LIST

LIST holds one line per dry-run: "<runtime>:<label>\t<path of `srtctl
dry-run -o json`>".  ROOT is a scratch directory: model directories are
created under ROOT/models, run log directories under ROOT/logs.  Every
process of kind worker or frontend, every lmcache-server service, and
TRT-LLM's pool commands (a mooncake-donor, a mooncake-master that runs
`trtllm-serve mooncake_master`), each command after a preamble's `bash -c
... $0`, is checked:

- its argv_runtime words get the values the agent binds inside the
  allocation (srt_runplan_bind): node i is host "node<i>" with IP
  10.0.0.<i+1>, <infra_node_ip> is the infra node's IP, <log_dir> is the
  plan's own log directory, created as ROOT/logs/<n>; any other "<...>"
  left in the argv is a failure;
- a process with config_file (TRT-LLM's engine YAML, trtllm-serve
  disaggregated's server config) gets its config_text written to
  <log dir>/<config_file> before it starts, as the agent writes it; when
  config_runtime is true the text's placeholders are bound first with the
  same table; a placeholder left in the text (or in a text without
  config_runtime) is a failure;
- argv[0] names the stand-in (the test's cluster config points
  commands.sglang / vllm / sglang_router / vllm_router / dynamo_sglang /
  dynamo_vllm / mocker (dynamo_mocker) / dynamo_frontend / trtllm_launch / dynamo_trtllm /
  dynamo_trtllm_pool (srt-slurm's `python3 -c` Mooncake pool wrapper) / trtllm
  at them); the rest is handed to the stand-in's own main(), exactly as its
  executable would;
- a process with ntasks (a TRT-LLM worker: one MPI step of ntasks ranks)
  runs as rank 0 of that step: SLURM_PROCID=0, SLURM_NTASKS=ntasks,
  SLURM_NNODES=nnodes, as srun sets them.  trtllm_llmapi_launch's
  check-only path reads them, exports tllm_mpi_size and the rest, removes
  the MPI variables and calls the wrapped stand-in's main() (dynamo_trtllm,
  dynamo_trtllm_pool or trtllm_serve) in this process, which checks its
  argv, reads the engine YAML and checks tp * pp * cp against the world.  Ranks > 0 run
  nothing a check could see (the real ones wait for rank 0), so they are
  not run;
- the model directory exists: ROOT/models + the host path is created, and
  FAKE_CONTAINER_MOUNTS maps it to /model when the process has a
  model_mount (pyxis), else to the recipe's model.path itself.  So a model
  argument is accepted only when it is /model under a model mount, or the
  recipe's own model.path on a bare node (or an hf: model's hub id).  A
  model.path that is none of absolute, hf: or a resolved alias is a
  failure: no mount or engine could find it;
- in a pyxis container (the plan's runtime pyxis, the process with a
  container) FAKE_CONTAINER_MOUNTS also maps the log directory to /logs,
  where the agent mounts it, so /logs/<config_file> in the argv reads the
  file written above; <log_dir> (the host path) in such a process's argv
  or runtime config_text is a failure;
- exit status 0 is required; anything else is a failure with the stand-in's
  message (its stderr, last lines).  os.environ is restored after each
  process.

Prints "recipes <runtime> <n>" and "checked <prog> <n>" lines (a launcher
line counts the launcher's argv, and its wrapped program is counted under
its own name; trtllm_serve_pool counts the pool's `trtllm-serve mooncake_master`
and `mooncake_donor`; trtllm_serve_disaggregated counts `trtllm_serve
disaggregated`, apart from trtllm_serve's workers), then
"FAIL\t<label>\t<process>\t<prog>\t<status>\t<message>" lines, then "end".
Exit 0 when every argv passed, 1 otherwise, 2 on a usage or input error.
"""
import contextlib
import io
import json
import os
import re
import shlex
import subprocess
import sys

sys.dont_write_bytecode = True      # leave no __pycache__ in tests/fakes

PROGS = ("sglang_launch_server", "vllm", "sglang_router", "vllm-router", "dynamo_sglang",
         "dynamo_vllm", "dynamo_mocker", "dynamo_frontend", "numactl", "trtllm_llmapi_launch", "dynamo_trtllm",
         "dynamo_trtllm_pool", "trtllm_serve", "trtllm_serve_disaggregated", "trtllm_serve_pool",
         "lmcache", "ray", "tilert_decode_server", "tilert_pd_router", "nginx")
# variables of an MPI step or of trtllm-llmapi-launch: none may leak from the
# checker's own environment into a stand-in
LEAK_PREFIXES = ("SLURM_", "OMPI_", "PMIX_", "PMI_", "MPI_", "TLLM_", "tllm_")
PLACEHOLDER = re.compile(r"<[a-z0-9_]+>")


def load_standins(fakes):
    sys.path.insert(0, fakes)
    import strict_engine  # noqa: E402
    import strict_router  # noqa: E402
    import strict_dynamo  # noqa: E402
    import strict_trtllm  # noqa: E402
    global strict_numactl
    import strict_numactl  # noqa: E402
    import strict_lmcache  # noqa: E402
    import strict_ray  # noqa: E402
    import importlib.machinery

    def script(name):    # a stand-in without a .py suffix, as a module
        return importlib.machinery.SourceFileLoader(
            name, os.path.join(fakes, name)).load_module()
    return {"ray": strict_ray.main,
            "tilert_decode_server": script("tilert_decode_server").main,
            "tilert_pd_router": script("tilert_pd_router").main,
            "sglang_launch_server": strict_engine.main_sglang,
            "vllm": strict_engine.main_vllm,
            "sglang_router": strict_router.main_sglang,
            "vllm-router": strict_router.main_vllm,
            "dynamo_sglang": strict_dynamo.main_sglang,
            "dynamo_vllm": strict_dynamo.main_vllm,
            "dynamo_mocker": strict_dynamo.main_mocker,
            "dynamo_frontend": strict_dynamo.main_frontend,
            "trtllm_llmapi_launch": strict_trtllm.main_launch,
            "dynamo_trtllm": strict_trtllm.main_dynamo,
            "dynamo_trtllm_pool": strict_trtllm.main_dynamo_pool,
            "trtllm_serve": strict_trtllm.main_serve,
            "lmcache": strict_lmcache.main}


def bindings(plan, log_dir):
    """placeholder -> value, as srt_runplan_bind fills them in."""
    out = {}
    ips = []
    for i, n in enumerate(plan.get("nodes") or []):
        ip = "10.0.0.%d" % (i + 1)
        ips.append(ip)
        if n.get("ip"):
            out[n["ip"]] = ip
        if n.get("host"):
            out[n["host"]] = "node%d" % i
    infra = plan.get("infra_node") or 0
    if plan.get("infra_ip") and infra < len(ips):
        out[plan["infra_ip"]] = ips[infra]
    if plan.get("log_dir"):
        out[plan["log_dir"]] = log_dir
    return out


def bind(word, table):
    return PLACEHOLDER.sub(lambda m: table.get(m.group(0), m.group(0)), word)


def model_dir(root, path):
    host = os.path.join(root, path.lstrip("/"))
    os.makedirs(host, exist_ok=True)
    return host


def run_one(main, args, env):
    """(status, stderr) of main(args) with env added to os.environ, its
    output captured; os.environ is restored afterwards."""
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        return run_captured(main, args)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run_captured(main, args):
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            status = main(args)
        except SystemExit as e:
            if e.code is None or isinstance(e.code, int):
                status = e.code or 0
            else:
                err.write("%s\n" % e.code)
                status = 1
        except Exception as e:  # an uncaught exception: Python's traceback, exit 1
            err.write("Traceback (most recent call last):\n%s: %s\n"
                      % (type(e).__name__, e))
            status = 1
    return status, err.getvalue()


ANSI = re.compile(r"\x1b\[[0-9;]*m")
LAUNCHER_LOG = "\x1b[33m"      # trtllm-llmapi-launch's own log lines are yellow


def last_lines(text, n=2):
    """The message's last lines, without trtllm-llmapi-launch's own log lines
    (the wrapped program's error is what tells why) and ANSI codes."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    lines = [ln for ln in lines if not ln.startswith(LAUNCHER_LOG)] or lines
    return " | ".join(ANSI.sub("", ln) for ln in lines[-n:]) or "(no message)"


def items(doc):
    if isinstance(doc, dict) and doc.get("kind") == "List":
        return doc.get("items") or []
    return [doc]


def write_config(pr, table, log_dir):
    """Write the process's config_text where the agent writes it; None, or
    why it cannot be written as the agent would."""
    cfg = pr.get("config_file")
    if not cfg:
        return None
    text = pr.get("config_text")
    if text is None:
        return "config_file %r without config_text: the agent has nothing to write" % cfg
    if "/" in cfg or cfg in ("", ".", ".."):
        return "config_file %r is not a file name in the log directory" % cfg
    if pr.get("config_runtime"):
        text = bind(text, table)
    left = sorted(set(PLACEHOLDER.findall(text)))
    if left:
        return ("placeholders the agent would not bind in config_text%s: %s"
                % ("" if pr.get("config_runtime") else " (config_runtime is not true)",
                   " ".join(left)))
    with open(os.path.join(log_dir, cfg), "w") as f:
        f.write(text)
    return None


def check_nginx(pr, words, table, log_dir, contained):
    """The nginx in front of several frontends: its config written as the
    agent writes it, then the real nginx's -t over its own command line
    (bash -c '[ulimit -n N && ]PATH=...; exec "$@"' nginx nginx ARGS); None,
    or why it fails."""
    why = write_config(pr, table, log_dir)
    if why:
        return why
    if words[:2] != ["bash", "-c"] or len(words) < 6 or not words[2].endswith('exec "$@"') \
            or words[3:5] != ["nginx", "nginx"]:
        return "argv is not bash -c '... exec \"$@\"' nginx nginx ARGS: %r" % words
    args = words[5:]
    if contained:
        # the container sees the log directory at /logs
        args = [a.replace("/logs/", log_dir + "/", 1) if a.startswith("/logs/") else a
                for a in args]
    conf = os.path.join(log_dir, pr["config_file"])
    if "-c" not in args or args[args.index("-c") + 1:args.index("-c") + 2] != [conf]:
        return "nginx's -c is not the config the agent writes (%s): %r" % (conf, args)
    with open(conf) as f:
        text = f.read()
    if contained:
        text = text.replace(' "/logs/', ' "%s/' % log_dir)
        with open(conf, "w") as f:
            f.write(text)
    try:
        r = subprocess.run(["nginx", "-t", "-q"] + args, capture_output=True, text=True,
                           timeout=60)
    except OSError as e:
        return "cannot run nginx -t (scripts/install-deps installs nginx-light): %s" % e
    if r.returncode != 0:
        return "nginx -t refuses it: %s" % " ".join((r.stderr or r.stdout).split())[:400]
    return None


def write_store_configs(plan, table):
    """Write the plan's Mooncake client configs where the agent writes them
    (master_server_address bound), as it does before any process starts."""
    for sc in plan.get("store_configs") or []:
        cfg = dict(sc["config"])
        if isinstance(cfg.get("master_server_address"), str):
            cfg["master_server_address"] = bind(cfg["master_server_address"], table)
        path = bind(sc["file"], table)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump(cfg, f)


# the plan env a stand-in reads in check-only mode (the rest changes nothing it checks)
PLAN_ENV = ("MOONCAKE_CONFIG_PATH", "TRTLLM_MOONCAKE_STORE_ROLE", "TRTLLM_MOONCAKE_MASTER_TIMEOUT")


def plan_env(pr, table):
    return {e["name"]: bind(e["value"], table) for e in pr.get("env") or []
            if e["name"] in PLAN_ENV}


def mpi_env(pr):
    """The environment srun gives rank 0 of the process's step."""
    if pr.get("ntasks") is None:
        return {}
    return {"SLURM_PROCID": "0", "SLURM_NTASKS": str(pr["ntasks"]),
            "SLURM_NNODES": str(pr.get("nnodes") or 1), "SLURM_NODEID": "0",
            "SLURM_LOCALID": "0"}


def tilert_weights(root, words):
    """A converted-weights directory for a TileRT decode server's
    --model-weights-dir (what TileRT's converter leaves: config, chat
    template, safetensors index), as a FAKE_CONTAINER_MOUNTS entry."""
    if "--model-weights-dir" not in words[:-1]:
        return None
    path = words[words.index("--model-weights-dir") + 1]
    host = os.path.join(root, "tilert", path.strip("/").replace("/", "_") or "w")
    os.makedirs(host, exist_ok=True)
    for name, text in (("config.json", "{}"), ("chat_template.jinja", ""),
                       ("model.safetensors.index.json", '{"weight_map": {}}')):
        with open(os.path.join(host, name), "w") as f:
            f.write(text)
    return "%s:%s" % (host, path)


def prog_name(words, i=0):
    return os.path.basename(words[i]) if len(words) > i else ""


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: corpus_argv_check.py FAKES_DIR ROOT LIST\n")
        return 2
    fakes, root, listfile = argv[1:]
    standins = load_standins(os.path.abspath(fakes))
    models = os.path.join(os.path.abspath(root), "models")
    logs = os.path.join(os.path.abspath(root), "logs")
    for k in [k for k in os.environ if k.startswith(LEAK_PREFIXES)]:
        del os.environ[k]
    os.environ["FAKE_CHECK_ONLY"] = "1"
    counts = {p: 0 for p in PROGS}
    recipes = {}
    failures = []
    nplan = 0
    with open(listfile) as f:
        entries = [ln.rstrip("\n").split("\t", 1) for ln in f if ln.strip()]
    for label, path in entries:
        with open(path) as f:
            doc = json.load(f)
        for item in items(doc):
            rt = label.split(":", 1)[0]
            recipes[rt] = recipes.get(rt, 0) + 1
            plan = item["plan"]
            log_dir = os.path.join(logs, str(nplan))
            nplan += 1
            os.makedirs(log_dir)
            table = bindings(plan, log_dir)
            write_store_configs(plan, table)
            pyxis = (plan.get("runtime") or {}).get("container_runtime") == "pyxis"
            recipe_model = (item.get("model") or {}).get("path")
            name = "%s [%s]" % (label, item.get("recipe"))
            for pr in plan["processes"]:
                service = pr.get("kind") == "service"
                # TRT-LLM's pool commands: the donors, and a master that is trtllm-serve's
                pool = service and (pr.get("type") == "mooncake-donor" or
                                    pr.get("type") == "mooncake-master" and
                                    "mooncake_master" in pr["argv"][1:] and
                                    "trtllm_serve" in " ".join(pr["argv"]))
                if not (pr.get("kind") in ("worker", "frontend") or pool or
                        service and pr.get("type") in ("lmcache-server", "ray")):
                    continue
                pname = bind(pr["name"], table)
                # the agent mounts the log directory at /logs in a pyxis container
                contained = pyxis and bool(pr.get("container"))
                hostpath = [w for k in (pr.get("argv_runtime") or [])
                            for w in [pr["argv"][k]] if "<log_dir>" in w]
                if contained and (hostpath or pr.get("config_runtime")
                                  and "<log_dir>" in (pr.get("config_text") or "")):
                    failures.append((name, pname, prog_name(pr["argv"]) or "-", "-",
                                     "<log_dir> (a host path) in a pyxis container's %s: the "
                                     "container sees the log directory at /logs"
                                     % ("argv" if hostpath else "config_text")))
                    continue
                words = list(pr["argv"])
                for k in pr.get("argv_runtime") or []:
                    words[k] = bind(words[k], table)
                if pr.get("kind") == "frontend" and pr["name"] == "nginx":
                    why = check_nginx(pr, words, table, log_dir, contained)
                    if why:
                        failures.append((name, pname, "nginx", "-", why))
                    counts["nginx"] += 1
                    continue
                while words[:2] == ["bash", "-c"] and len(words) > 4:
                    # a service's preamble: bash -c '<preamble> exec "$@"' $0 CMD...;
                    # a Ray joiner's wait: bash -c SCRIPT ray-join HEAD_IP PORT CMD...
                    words = words[6:] if words[3] == "ray-join" else words[4:]
                prog = prog_name(words)
                if prog == "numactl":
                    # numactl runs its command in its place: check its own
                    # options, then the command as if it stood alone
                    try:
                        _, words = strict_numactl.parse(words[1:])
                    except strict_numactl.Refusal as r:
                        failures.append((name, pname, prog, "-", "numactl refuses: %s"
                                         % (r.out + r.err).strip().splitlines()[0]))
                        continue
                    counts["numactl"] += 1
                    prog = prog_name(words)
                if prog not in standins:
                    failures.append((name, pname, prog or "-", "-",
                                     "argv[0] %r is not a strict stand-in: the cluster "
                                     "config's commands did not decide the program" % words[:1]))
                    continue
                wrapped = prog_name(words, 1) if prog == "trtllm_llmapi_launch" else None
                if wrapped is not None and wrapped not in standins:
                    failures.append((name, pname, prog, "-",
                                     "the launcher wraps %r, not a strict stand-in: the "
                                     "cluster config's commands did not decide the program"
                                     % words[1:2]))
                    continue
                left = sorted({m for w in words for m in PLACEHOLDER.findall(w)})
                if left:
                    failures.append((name, pname, prog, "-",
                                     "placeholders the agent would not bind: %s"
                                     % " ".join(left)))
                    continue
                why = write_config(pr, table, log_dir)
                if why:
                    failures.append((name, pname, prog, "-", why))
                    continue
                mount = pr.get("model_mount")
                if service:
                    mount = None    # a service gets no model mount and names no model
                elif mount and not mount.startswith("/") or not mount and recipe_model \
                        and not recipe_model.startswith(("/", "hf:")):
                    failures.append((name, pname, prog, "-",
                                     "model.path %r is neither absolute, hf: nor an alias of "
                                     "the cluster config's model_paths: no real mount or "
                                     "engine could find it" % recipe_model))
                    continue
                mounts = []
                if mount:
                    mounts.append("%s:/model" % model_dir(models, mount))
                elif recipe_model and recipe_model.startswith("/"):
                    mounts.append("%s:%s" % (model_dir(models, recipe_model), recipe_model))
                if contained:
                    mounts.append("%s:/logs" % log_dir)
                if prog == "tilert_decode_server" and tilert_weights(root, words):
                    mounts.append(tilert_weights(root, words))
                env = dict(mpi_env(pr), FAKE_CONTAINER_MOUNTS=",".join(mounts),
                           **plan_env(pr, table))
                status, err = run_one(standins[prog], words[1:], env)
                counts[prog] += 1
                if wrapped:
                    counts[wrapped] += 1
                elif prog == "trtllm_serve" and words[1:2] == ["disaggregated"]:
                    counts[prog] -= 1
                    counts["trtllm_serve_disaggregated"] += 1
                elif prog == "trtllm_serve" and pool:
                    counts[prog] -= 1
                    counts["trtllm_serve_pool"] += 1
                if status != 0:
                    failures.append((name, pname, prog if not wrapped else
                                     "%s %s" % (prog, wrapped), str(status), last_lines(err)))
    for rt in sorted(recipes):
        sys.stdout.write("recipes %s %d\n" % (rt, recipes[rt]))
    for p in PROGS:
        sys.stdout.write("checked %s %d\n" % (p, counts[p]))
    for f in failures:
        sys.stdout.write("FAIL\t%s\n" % "\t".join(x.replace("\t", " ").replace("\n", " ")
                                                  for x in f))
    sys.stdout.write("end\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
