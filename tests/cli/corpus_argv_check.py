#!/usr/bin/env python3
"""tests/cli/corpus_argv_check.py: run rendered worker and frontend argv
through the strict stand-ins (tests/fakes) with FAKE_CHECK_ONLY=1, in one
Python process.  Helper of tests/cli/test_corpus_argv.sh.

usage: corpus_argv_check.py FAKES_DIR MODEL_ROOT LIST

LIST holds one line per dry-run: "<runtime>:<label>\t<path of `srtctl
dry-run -o json`>".  Every process of kind worker or frontend is checked:

- its argv_runtime words get the values the agent binds inside the
  allocation (srt_runplan_bind): node i is host "node<i>" with IP
  10.0.0.<i+1>, <infra_node_ip> is the infra node's IP, <log_dir> is
  /logs/run; any other "<...>" left in the argv is a failure;
- argv[0] names the stand-in (the test's cluster config points
  commands.sglang / vllm / sglang_router / vllm_router / dynamo_sglang /
  dynamo_vllm / dynamo_frontend at them); the rest is
  handed to the stand-in's own main(), exactly as its executable would;
- the model directory exists: MODEL_ROOT + the host path is created, and
  FAKE_CONTAINER_MOUNTS maps it to /model when the process has a
  model_mount (pyxis), else to the recipe's model.path itself.  So a model
  argument is accepted only when it is /model under a model mount, or the
  recipe's own model.path on a bare node (or an hf: model's hub id).  A
  model.path that is none of absolute, hf: or a resolved alias is a
  failure: no mount or engine could find it;
- exit status 0 is required; anything else is a failure with the stand-in's
  message (its stderr, last lines).

Prints "recipes <runtime> <n>" and "checked <prog> <n>" lines, then
"FAIL\t<label>\t<process>\t<prog>\t<status>\t<message>" lines, then "end".
Exit 0 when every argv passed, 1 otherwise, 2 on a usage or input error.
"""

import contextlib
import io
import json
import os
import re
import sys

sys.dont_write_bytecode = True      # leave no __pycache__ in tests/fakes

PROGS = ("sglang_launch_server", "vllm", "sglang_router", "vllm-router", "dynamo_sglang",
         "dynamo_vllm", "dynamo_frontend")
PLACEHOLDER = re.compile(r"<[a-z0-9_]+>")


def load_standins(fakes):
    sys.path.insert(0, fakes)
    import strict_engine  # noqa: E402
    import strict_router  # noqa: E402
    import strict_dynamo  # noqa: E402
    return {"sglang_launch_server": strict_engine.main_sglang,
            "vllm": strict_engine.main_vllm,
            "sglang_router": strict_router.main_sglang,
            "vllm-router": strict_router.main_vllm,
            "dynamo_sglang": strict_dynamo.main_sglang,
            "dynamo_vllm": strict_dynamo.main_vllm,
            "dynamo_frontend": strict_dynamo.main_frontend}


def bindings(plan):
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
        out[plan["log_dir"]] = "/logs/run"
    return out


def bind(word, table):
    return PLACEHOLDER.sub(lambda m: table.get(m.group(0), m.group(0)), word)


def model_dir(root, path):
    host = os.path.join(root, path.lstrip("/"))
    os.makedirs(host, exist_ok=True)
    return host


def run_one(main, args):
    """(status, stderr) of main(args), its output captured."""
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
    return status, err.getvalue()


def last_lines(text, n=2):
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return " | ".join(lines[-n:]) or "(no message)"


def items(doc):
    if isinstance(doc, dict) and doc.get("kind") == "List":
        return doc.get("items") or []
    return [doc]


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: corpus_argv_check.py FAKES_DIR MODEL_ROOT LIST\n")
        return 2
    fakes, root, listfile = argv[1:]
    standins = load_standins(os.path.abspath(fakes))
    os.environ["FAKE_CHECK_ONLY"] = "1"
    counts = {p: 0 for p in PROGS}
    recipes = {}
    failures = []
    with open(listfile) as f:
        entries = [ln.rstrip("\n").split("\t", 1) for ln in f if ln.strip()]
    for label, path in entries:
        with open(path) as f:
            doc = json.load(f)
        for item in items(doc):
            rt = label.split(":", 1)[0]
            recipes[rt] = recipes.get(rt, 0) + 1
            plan = item["plan"]
            table = bindings(plan)
            recipe_model = (item.get("model") or {}).get("path")
            name = "%s [%s]" % (label, item.get("recipe"))
            for pr in plan["processes"]:
                if pr.get("kind") not in ("worker", "frontend"):
                    continue
                pname = bind(pr["name"], table)
                words = list(pr["argv"])
                for k in pr.get("argv_runtime") or []:
                    words[k] = bind(words[k], table)
                prog = os.path.basename(words[0]) if words else ""
                if prog not in standins:
                    failures.append((name, pname, prog or "-", "-",
                                     "argv[0] %r is not a strict stand-in: the cluster "
                                     "config's commands did not decide the program" % words[:1]))
                    continue
                left = sorted({m for w in words for m in PLACEHOLDER.findall(w)})
                if left:
                    failures.append((name, pname, prog, "-",
                                     "placeholders the agent would not bind: %s"
                                     % " ".join(left)))
                    continue
                mount = pr.get("model_mount")
                if mount and not mount.startswith("/") or not mount and recipe_model \
                        and not recipe_model.startswith(("/", "hf:")):
                    failures.append((name, pname, prog, "-",
                                     "model.path %r is neither absolute, hf: nor an alias of "
                                     "the cluster config's model_paths: no real mount or "
                                     "engine could find it" % recipe_model))
                    continue
                if mount:
                    mounts = "%s:/model" % model_dir(root, mount)
                elif recipe_model and recipe_model.startswith("/"):
                    mounts = "%s:%s" % (model_dir(root, recipe_model), recipe_model)
                else:
                    mounts = ""
                os.environ["FAKE_CONTAINER_MOUNTS"] = mounts
                status, err = run_one(standins[prog], words[1:])
                counts[prog] += 1
                if status != 0:
                    failures.append((name, pname, prog, str(status), last_lines(err)))
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
