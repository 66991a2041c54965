"""The flag tables of the strict stand-ins (tests/fakes/flags/*.flags).

Each table lists the options one real program accepts, one option a line,
with tab-separated columns:

    spellings  dest  kind  type  choices  default  required

- spellings: every accepted option string, comma-separated.
- kind: how many values the option takes.
    switch      no value, stores true (argparse store_true, clap flag)
    negatable   --X stores true, --no-X stores false (BooleanOptionalAction)
    deprecated  no value; accepted with a warning, changes nothing here
    removed     no value; accepting it is an error (SGLang's DeprecatedAction)
    value       exactly one value
    optional    zero or one value (nargs="?")
    some        one or more values (nargs="+")
    any         zero or more values (nargs="*", clap num_args=0..)
    append-some one or more values, repeatable, collected per use
    append-one  one value, repeatable
    prefill     vllm-router's --prefill URL [PORT|none], split before clap
    positional  a positional argument (vllm serve's MODEL)
    help        -h/--help (the parser adds it itself)
- type: int, uint, u16, float, hrint (an int with an optional k/m/g
  suffix), json, jsonlist, nullstr ("None" means none), boolstr (any
  string, as argparse's type=bool), bool (no value) or str.
- choices: comma-separated values the parser enforces, "-" when it enforces
  none (or when the source lists them only as a type name or "dynamic":
  then the stand-in does not guess).
- default: JSON; null when the source gives none or a computed one.
- required: "required" or "-".

The tables are generated from the flag lists in
../shared/reference/engines/ (their README names the source files and
commits) by `flagdata.py gen SRC_DIR OUT_DIR`; `flagdata.py check SRC_DIR
OUT_DIR` says whether the tables in OUT_DIR still match.  The tests only
read the generated tables, so they pass without ../shared.

Python 3 standard library only.
"""

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE_DIR = os.path.join(HERE, "flags")

# table name -> (source TSV, what the real program is, where its facts come from)
TABLES = {
    "sglang-launch-server": (
        "sglang-launch_server.flags.tsv", "python3 -m sglang.launch_server",
        ["sgl-project/sglang python/sglang/srt/server_args.py @ 001067fffe33427bee0ed2f007fb7551a1d76b44",
         "sgl-project/sglang python/sglang/srt/arg_groups/arg_utils.py @ 0116c6066d6ead4b97c0468f65e04cad47ca021e",
         "sgl-project/sglang python/sglang/srt/arg_groups/argparse_actions.py @ 1b3fb4c68362f076a4e77d40ee959a9c11fd6b52"]),
    "sglang-router": (
        "sglang-router.flags.tsv", "python3 -m sglang_router.launch_router",
        ["sgl-project/sglang sgl-model-gateway/bindings/python/src/sglang_router/router_args.py @ 05e589ad6f75127e5302a250d9e83a881fbb3a3b",
         "sgl-project/sglang sgl-model-gateway/bindings/python/src/sglang_router/launch_router.py @ d5b04e1c6c9f50fb5023914e8a5507b8d0d8881a"]),
    "vllm-serve": (
        "vllm-serve.flags.tsv", "vllm serve [MODEL]",
        ["vllm-project/vllm vllm/engine/arg_utils.py @ 99d7eb5d6a512cfcc5a2b104f24ebf2d6cda772b",
         "vllm-project/vllm vllm/entrypoints/openai/cli_args.py @ 005223338608bc94fd165a4f976c102a57bd1fc4",
         "vllm-project/vllm vllm/utils/argparse_utils.py @ 00da11e37d1ffac917c3427fff227500302eb452",
         "plus --nnodes, --node-rank, --master-addr, --master-port, --device-ids, --data-parallel-external-lb,",
         "--optimization-level as NVIDIA/srt-slurm @ c88ef731636890ff6385a783e152c1790e15b194 emits them (arity inferred)"]),
    "vllm-router": (
        "vllm-router.flags.tsv", "vllm-router",
        ["vllm-project/router src/main.rs @ 03e9af5c1982f7568d79021d80d812edecb2d702"]),
}

COLUMNS = ("spellings", "dest", "kind", "type", "choices", "default", "required")


# ---------------------------------------------------------------------------
# Reading a generated table

def load(name):
    """Rows of table `name` as dicts with the COLUMNS keys (choices a list or
    None, default decoded, required a bool)."""
    rows = []
    with open(os.path.join(TABLE_DIR, name + ".flags"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            row = dict(zip(COLUMNS, cols))
            row["spellings"] = row["spellings"].split(",")
            row["choices"] = None if row["choices"] == "-" else row["choices"].split(",")
            row["default"] = json.loads(row["default"])
            row["required"] = row["required"] == "required"
            rows.append(row)
    return rows


# ---------------------------------------------------------------------------
# Converting a reference TSV row into a table row

def kind_of(arity, notes, dest):
    """The kind column from the TSV's free-text arity (and notes)."""
    a = arity.strip()
    if dest == "help" or "--help" in notes:
        return "help"
    rules = [
        (r"^0 \(store_true\)$|^0 \(flag\)$", "switch"),
        (r"^0 \(BooleanOptionalAction", "negatable"),
        (r"^0 \(or --help", "help"),
        (r"^1$", "value"),
        (r"^1, repeatable", "append-one"),
        (r"^nargs=\+ action=append$", "append-some"),
        (r"^nargs=1 action=append$", "append-one"),
        (r"^nargs=\+$", "some"),
        (r"^nargs=\*$|^num_args=0\.\.$", "any"),
        (r"^nargs=\? \(positional\)$", "positional"),
        (r"^nargs=\?", "optional"),
        (r"^URL \[PORT\|none\]", "prefill"),
    ]
    for pattern, kind in rules:
        if re.search(pattern, a):
            return kind
    if a.startswith("0 (custom action"):
        return "removed" if notes.startswith("REMOVED") else "deprecated"
    if a == "0":
        return "help"
    raise ValueError("unknown arity %r" % arity)


TYPE_MAP = {
    "int": "int", "float": "float", "str": "str", "bool": "bool", "": "str",
    "human_readable_int": "hrint", "json.loads": "json", "json_list_type": "jsonlist",
    "nullable_str": "nullstr", "parse_cuda_graph_config_arg": "str",
    "bool() of string": "boolstr", "json list": "jsonlist",
    "String": "str", "String [u16]": "str", "enum": "str",
    "u16": "u16", "u32": "uint", "u64": "uint", "usize": "uint", "f32": "float", "f64": "float",
}


def type_of(text):
    t = text.strip()
    if t in TYPE_MAP:
        return TYPE_MAP[t]
    if t.startswith("json"):
        return "json"
    if t.startswith("str"):          # "str (YAML path)", "str/int", "str|json", ...
        return "str"
    raise ValueError("unknown type %r" % text)


CLEAN_CHOICES = re.compile(r"^([\w.\-]+(?:,[\w.\-]+)*)(\s+\(\+None\))?$")


# A choices cell that names the source's constant (DSA_CHOICES) instead of
# listing it: the alias shares the list of the flag with the same dest.
CHOICES_SYMBOL = re.compile(r"^[A-Z][A-Z0-9_]*_CHOICES$")


def choices_of(text):
    """The enforced choices, or None when the source gives no plain list
    (a type name, "dynamic", a prose description)."""
    if CHOICES_SYMBOL.match(text.strip()):
        return None
    m = CLEAN_CHOICES.match(text.strip())
    if not m:
        return None
    values = m.group(1).split(",")
    if m.group(2):
        values.append("None")
    return values


def default_of(text, typ, kind):
    """The default as a JSON value; None when the source gives a computed,
    environment-dependent or unverified one."""
    t = text.strip()
    if kind in ("switch",) and t in ("", "None", "SUPPRESS"):
        return False if t == "" else None
    if t in ("", "SUPPRESS", "(required)") or t.startswith("None") or "unverified" in t:
        return None
    if t in ("True", "true"):
        return True
    if t in ("False", "false"):
        return False
    if t[0] in "[{\"":
        try:
            return json.loads(t)
        except ValueError:
            return None
    if typ in ("int", "uint", "u16", "hrint"):
        try:
            return int(t)
        except ValueError:
            return None
    if typ == "float":
        try:
            return float(t)
        except ValueError:
            return None
    if " " in t or "$" in t or re.match(r"^[A-Z]\w*(Config|Args)", t):
        return None
    return t


def spellings_of(text):
    t = text.replace(" (positional)", "")
    return [s.strip() for s in re.split(r"[,/]", t) if s.strip()]


def convert_row(cols):
    flags, dest, arity, typ, choices, default, notes = (cols + [""] * 7)[:7]
    kind = kind_of(arity, notes, dest)
    t = "bool" if kind in ("switch", "negatable", "deprecated", "removed", "help") else type_of(typ)
    if kind == "prefill":
        dest = "prefill"
    required = "required" if default.strip() == "(required)" else "-"
    ch = choices_of(choices)
    return [",".join(spellings_of(flags)), dest, kind, t,
            "-" if ch is None else ",".join(ch),
            json.dumps(default_of(default, t, kind)), required]


def generate(src_dir, name):
    """Text of table `name` generated from its TSV in src_dir."""
    tsv, program, sources = TABLES[name]
    out = ["# %s.flags: the options `%s` accepts (see tests/fakes/flagdata.py for the columns)." % (name, program),
           "# Generated by `tests/fakes/flagdata.py gen` from ../shared/reference/engines/%s," % tsv,
           "# which was read from:"]
    out += ["#   " + s for s in sources]
    out.append("# " + "\t".join(COLUMNS))
    rows, symbolic = [], []
    with open(os.path.join(src_dir, tsv), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#") or line.startswith("flags\t"):
                continue
            cols = line.split("\t")
            rows.append(convert_row(cols))
            if len(cols) > 4 and CHOICES_SYMBOL.match(cols[4].strip()):
                symbolic.append(rows[-1])
    for row in symbolic:         # the list of the flag with the same dest
        for other in rows:
            if other is not row and other[1] == row[1] and other[4] != "-":
                row[4] = other[4]
                break
    out += ["\t".join(r) for r in rows]
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 3 or argv[0] not in ("gen", "check"):
        sys.stderr.write("usage: flagdata.py gen|check SRC_DIR OUT_DIR\n")
        return 2
    cmd, src, out = argv
    stale = []
    for name in TABLES:
        text = generate(src, name)
        path = os.path.join(out, name + ".flags")
        if cmd == "gen":
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            continue
        try:
            with open(path, encoding="utf-8") as f:
                have = f.read()
        except OSError:
            have = None
        if have != text:
            stale.append(name)
            if have is not None:
                import difflib
                sys.stdout.writelines(difflib.unified_diff(
                    have.splitlines(True), text.splitlines(True), path, "generated from " + src))
    if stale:
        print("tables out of date with %s: %s (run flagdata.py gen)" % (src, ", ".join(stale)))
        return 1
    if cmd == "check":
        print("%d tables match %s" % (len(TABLES), src))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
