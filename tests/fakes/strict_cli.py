"""Command-line parsers of the strict stand-ins, built from tests/fakes/flags.

SGLang's server and router parse with plain argparse, so the stand-ins
build a real argparse parser from the table: abbreviations, `--x=v`,
nargs, choices, "unrecognized arguments" and the required --model-path
behave (and print) as argparse does.  vLLM's FlexibleArgumentParser is
argparse plus a rewrite of argv first (underscores, dotted JSON keys),
done here by `vllm_preprocess`.  vllm-router is a Rust clap program;
`parse_clap` imitates the parts of clap it uses: exact long names only,
`--x=v`, presence flags, clap's error layout, exit status 2.

Every parser returns a plain dict dest -> value (defaults included), the
form the stand-ins write to their records.

Python 3 standard library only.
"""

import argparse
import json
import re
import sys

import flagdata


# ---------------------------------------------------------------------------
# Value types.  argparse names a failing type by its __name__ ("invalid int
# value: 'x'"), so each converter carries the name the real program uses.

def human_readable_int(text):
    """An int with an optional k/m/g (x1000) or K/M/G (x1024) suffix."""
    m = re.match(r"^(-?\d+(?:\.\d+)?)([kKmMgG]?)$", text.strip())
    if not m:
        raise ValueError(text)
    scale = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9,
             "K": 2**10, "M": 2**20, "G": 2**30}[m.group(2)]
    return int(float(m.group(1)) * scale)


def loads(text):
    return json.loads(text)


def json_list_type(text):
    value = json.loads(text)
    if not isinstance(value, list):
        raise ValueError(text)
    return value


def nullable_str(text):
    return None if text in ("", "None") else text


def boolstr(text):
    return bool(text)       # argparse type=bool: any non-empty string is True


ARGPARSE_TYPES = {
    "int": int, "uint": int, "u16": int, "float": float, "str": None,
    "hrint": human_readable_int, "json": loads, "jsonlist": json_list_type,
    "nullstr": nullable_str, "boolstr": boolstr,
}


def typed_choices(row, conv):
    """The row's choices converted to its type, as argparse compares the
    converted value against them."""
    if row["choices"] is None:
        return None
    out = []
    for c in row["choices"]:
        if c == "None":
            out.append(None if conv is nullable_str else c)
            continue
        try:
            out.append(conv(c) if conv else c)
        except ValueError:
            out.append(c)
    return out


class Removed(argparse.Action):
    """A flag the program still knows but refuses (SGLang's DeprecatedAction
    with an error message): parser.error, exit 2."""

    def __init__(self, option_strings, dest, **kw):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS)

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error("the flag %s has been removed" % option_string)


class Deprecated(argparse.Action):
    """A flag accepted with a warning on stderr."""

    def __init__(self, option_strings, dest, **kw):
        super().__init__(option_strings, dest, nargs=0, default=kw.get("default"))

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stderr.write("WARNING: %s is deprecated\n" % option_string)
        setattr(namespace, self.dest, True)


def add_row(parser, row):
    """Register one table row on an argparse parser."""
    kind, names = row["kind"], row["spellings"]
    conv = ARGPARSE_TYPES.get(row["type"])
    kw = {"dest": row["dest"], "default": row["default"]}
    if kind == "help":
        return                              # argparse adds -h/--help itself
    if kind == "switch":
        parser.add_argument(*names, action="store_true", **kw)
        return
    if kind == "negatable":
        names = [n for n in names if not n.startswith("--no-")]
        parser.add_argument(*names, action=argparse.BooleanOptionalAction, **kw)
        return
    if kind == "removed":
        parser.add_argument(*names, action=Removed, dest=row["dest"])
        return
    if kind == "deprecated":
        # several deprecated flags share one dest with different meanings;
        # record each under its own name so none hides another.
        parser.add_argument(*names, action=Deprecated, dest=names[0].lstrip("-").replace("-", "_"),
                            default=None)
        return
    if conv is not None:
        kw["type"] = conv
    choices = typed_choices(row, conv)
    if choices is not None:
        kw["choices"] = choices
    if row["required"]:
        kw["required"] = True
    if kind == "positional":
        del kw["dest"]
        parser.add_argument(row["dest"], nargs="?", **kw)
        return
    nargs = {"value": None, "optional": "?", "some": "+", "any": "*",
             "append-some": "+", "append-one": 1}[kind]
    if nargs is not None:
        kw["nargs"] = nargs
    if kind.startswith("append"):
        kw["action"] = "append"
    if kind == "optional":
        kw["const"] = ""
    parser.add_argument(*names, **kw)


def build_argparse(table, prog):
    parser = argparse.ArgumentParser(prog=prog)
    for row in flagdata.load(table):
        add_row(parser, row)
    return parser


def parse_argparse(table, prog, args):
    """Parse args as the real argparse program would; exits 2 on error."""
    return vars(build_argparse(table, prog).parse_args(args))


# ---------------------------------------------------------------------------
# vLLM: FlexibleArgumentParser's rewrite of argv before argparse runs

def set_dotted(obj, keys, value):
    """obj[k1][k2]...= value; a key ending in '+' appends to a list."""
    for k in keys[:-1]:
        obj = obj.setdefault(k, {})
    last = keys[-1]
    if last.endswith("+"):
        obj.setdefault(last[:-1], []).append(value)
    else:
        obj[last] = value


def dotted_value(text):
    """A dotted sub-key's value: JSON when it parses, else the string."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def vllm_preprocess(args):
    """argv with vLLM's rewrites applied: in `--name...` the part before the
    first '.' has '_' turned into '-', and `--opt.key value` pieces are
    merged into one `--opt JSON` argument (placed where the first piece was)."""
    out, merged, slot = [], {}, {}
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            out += args[i - 1:]
            break
        if not a.startswith("--"):
            out.append(a)
            continue
        key, eq, value = a.partition("=")
        head, dot, rest = key.partition(".")
        head = "--" + head[2:].replace("_", "-")
        if not dot:
            out.append(head + eq + value)
            continue
        if not eq:
            if i >= len(args):
                out.append(head + dot + rest)      # let argparse complain
                continue
            value = args[i]
            i += 1
        if head not in merged:
            merged[head] = {}
            slot[head] = len(out)
            out.append(None)
        set_dotted(merged[head], rest.split("."), dotted_value(value))
    for head, obj in sorted(slot.items(), key=lambda kv: -kv[1]):
        out[obj:obj + 1] = [head, json.dumps(merged[head])]
    return out


VLLM_SUBCOMMANDS = ("chat", "complete", "serve", "bench", "collect-env", "run-batch")


def parse_vllm(args):
    """`vllm SUBCOMMAND ...`: only `serve` is imitated.  Returns the parsed
    serve options; exits 2 on a parse error as the real CLI does."""
    top = argparse.ArgumentParser(prog="vllm", description="vLLM CLI")
    top.add_argument("-v", "--version", action="version", version="vllm (stand-in)")
    sub = top.add_subparsers(dest="subparser", metavar="{%s}" % ",".join(VLLM_SUBCOMMANDS))
    serve = sub.add_parser("serve", prog="vllm serve")
    for row in flagdata.load("vllm-serve"):
        add_row(serve, row)
    for name in VLLM_SUBCOMMANDS:
        if name != "serve":
            sub.add_parser(name, prog="vllm " + name)
    ns = vars(top.parse_args(vllm_preprocess(args)))
    if ns.get("subparser") is None:
        top.print_usage(sys.stderr)
        top.exit(2, "vllm: error: a subcommand is required\n")
    if ns["subparser"] != "serve":
        top.exit(2, "vllm %s: not imitated by the stand-in (only `vllm serve` is)\n"
                 % ns["subparser"])
    return vllm_model(serve, ns)


def vllm_model(parser, ns):
    """The model: the positional wins; `--model X` alone is moved there with
    a warning; --served-model-name needs a model given explicitly."""
    if ns.get("model_tag") is None and ns.get("model") is not None:
        sys.stderr.write("WARNING: With `vllm serve`, you should provide the model as a "
                         "positional argument instead of via the `--model` option.\n")
        ns["model_tag"] = ns["model"]
    if ns.get("model_tag") is not None:
        ns["model"] = ns["model_tag"]
    elif ns.get("served_model_name"):
        parser.error("--served-model-name requires the model to be given as a positional "
                     "argument")
    return ns


# ---------------------------------------------------------------------------
# clap (vllm-router)

class ClapError(Exception):
    pass


def clap_fail(prog, message):
    sys.stderr.write("error: %s\n\nUsage: %s [OPTIONS]\n\nFor more information, try "
                     "'--help'.\n" % (message, prog))
    sys.exit(2)


def clap_value(row, name, text):
    """Convert one value as clap's value parser for the row's type would."""
    metavar = "<%s>" % row["dest"].upper()
    t = row["type"]
    if row["choices"] is not None and text not in row["choices"]:
        raise ClapError("invalid value '%s' for '%s %s'\n  [possible values: %s]"
                        % (text, name, metavar, ", ".join(row["choices"])))
    try:
        if t in ("uint", "u16"):
            if not re.match(r"^\d+$", text):
                raise ValueError("invalid digit found in string")
            v = int(text)
            if t == "u16" and v > 65535:
                raise ValueError("65535 is the maximum")
            return v
        if t == "float":
            return float(text)
    except ValueError as e:
        raise ClapError("invalid value '%s' for '%s %s': %s" % (text, name, metavar, e))
    return text


def split_prefill(args):
    """vllm-router's own pre-pass: every `--prefill URL [PORT|none]` is taken
    out of argv before clap sees it.  Returns (rest, [(url, port|None)])."""
    rest, prefill = [], []
    i = 0
    while i < len(args):
        if args[i] != "--prefill":
            rest.append(args[i])
            i += 1
            continue
        if i + 1 >= len(args) or args[i + 1].startswith("-"):
            raise ClapError("--prefill requires a URL")
        url, port = args[i + 1], None
        i += 2
        if i < len(args) and re.match(r"^\d+$", args[i]) and int(args[i]) <= 65535:
            port = int(args[i])
            i += 1
        elif i < len(args) and args[i] == "none":
            i += 1
        prefill.append((url, port))
    return rest, prefill


def parse_clap(table, prog, args):
    """Parse args as vllm-router's clap definition; exits 2 on error."""
    rows = [r for r in flagdata.load(table) if r["kind"] not in ("help", "prefill")]
    by_name = {n: r for r in rows for n in r["spellings"]}
    out = {r["dest"]: r["default"] for r in rows}
    seen = set()
    try:
        args, out["prefill"] = split_prefill(args)
        i = 0
        while i < len(args):
            a = args[i]
            i += 1
            if a in ("-h", "--help", "-V", "--version"):
                sys.stdout.write("%s (stand-in)\n" % prog)
                sys.exit(0)
            name, eq, value = a.partition("=") if a.startswith("--") else (a, "", "")
            row = by_name.get(name)
            if row is None:
                raise ClapError("unexpected argument '%s' found" % a)
            if row["kind"] == "switch":
                if eq:
                    raise ClapError("unexpected value '%s' for '%s' found; no more were "
                                    "expected" % (value, name))
                out[row["dest"]] = True
                continue
            many = row["kind"] == "any"
            if row["dest"] in seen and row["kind"] == "value":
                raise ClapError("the argument '%s <%s>' cannot be used multiple times"
                                % (name, row["dest"].upper()))
            seen.add(row["dest"])
            if eq:
                values = [value]
            else:
                values = []
                while i < len(args) and not args[i].startswith("--") and (many or not values):
                    values.append(args[i])
                    i += 1
                if not values and not many:
                    raise ClapError("a value is required for '%s <%s>' but none was supplied"
                                    % (name, row["dest"].upper()))
            conv = [clap_value(row, name, v) for v in values]
            if row["kind"] == "append-one":
                out[row["dest"]] = (out[row["dest"]] or []) + conv
            elif many:
                out[row["dest"]] = conv
            else:
                out[row["dest"]] = conv[0]
    except ClapError as e:
        clap_fail(prog, str(e))
    return out


# ---------------------------------------------------------------------------
# click (trtllm-serve)

class ClickError(Exception):
    """A click UsageError/BadParameter: printed after the usage lines, exit 2."""


def click_fail(usage, try_cmd, message):
    sys.stderr.write("Usage: %s\nTry '%s --help' for help.\n\nError: %s\n"
                     % (usage, try_cmd, message))
    sys.exit(2)


def click_hint(row):
    return " / ".join("'%s'" % n for n in row["spellings"])


def click_value(row, text, aliases):
    """Convert one value as click's type for the row would."""
    t = row["type"]
    if t == "int":
        try:
            return int(text.strip())
        except ValueError:
            raise ClickError("Invalid value for %s: '%s' is not a valid integer."
                             % (click_hint(row), text))
    if t == "float":
        try:
            return float(text.strip())
        except ValueError:
            raise ClickError("Invalid value for %s: '%s' is not a valid float."
                             % (click_hint(row), text))
    text = aliases.get(text, text)
    if row["choices"] is not None and text not in row["choices"]:
        raise ClickError("Invalid value for %s: '%s' is not one of %s."
                         % (click_hint(row), text, ", ".join("'%s'" % c for c in row["choices"])))
    return text


def parse_click(rows, usage, try_cmd, args, aliases=None):
    """Parse args as a click command with the table's options (kinds switch,
    value, append-one, positional, help): exact names only, `--x=v`, `-cV`,
    interspersed positionals, `--` ends the options.  Values are converted
    in command-line order after parsing, as click processes them; a missing
    positional is reported last.  Exits 2 with click's layout on error."""
    aliases = aliases or {}
    opts = {n: r for r in rows if r["kind"] not in ("positional", "help")
            for n in r["spellings"]}
    positionals = [r for r in rows if r["kind"] == "positional"]
    out = {r["dest"]: r["default"] for r in rows if r["kind"] != "help"}
    given, extra = [], []
    try:
        i = 0
        while i < len(args):
            a = args[i]
            i += 1
            if a == "--":
                extra += args[i:]
                break
            if a in ("--help", "-h") and a in {n for r in rows if r["kind"] == "help"
                                               for n in r["spellings"]}:
                sys.stdout.write("Usage: %s\n\n  (stand-in help)\n" % usage)
                sys.exit(0)
            if not a.startswith("-") or a == "-":
                extra.append(a)
                continue
            if a.startswith("--"):
                name, eq, value = a.partition("=")
                inline = value if eq else None
            else:
                name, inline = a[:2], (a[2:] or None)
            row = opts.get(name)
            if row is None:
                import difflib
                near = sorted(difflib.get_close_matches(
                    name, [n for n in opts if n.startswith("--")]))
                msg = "No such option: %s" % name
                if len(near) == 1:
                    msg += " Did you mean %s?" % near[0]
                elif near:
                    msg += " (Possible options: %s)" % ", ".join(near)
                raise ClickError(msg)
            if row["kind"] == "switch":
                if inline is not None:
                    raise ClickError("Option '%s' does not take a value." % name)
                given.append((row, None))
                continue
            if inline is None:
                if i >= len(args):
                    raise ClickError("Option '%s' requires an argument." % name)
                inline = args[i]
                i += 1
            given.append((row, inline))
        for pos in positionals:
            if extra:
                given.append((pos, extra.pop(0)))
        if extra:
            raise ClickError("Got unexpected extra argument%s (%s)"
                             % ("s" if len(extra) > 1 else "", " ".join(extra)))
        for row, text in given:
            if row["kind"] == "switch":
                out[row["dest"]] = True
            elif row["kind"] == "append-one":
                out[row["dest"]] = (out[row["dest"]] or []) + [
                    click_value(row, text, aliases.get(row["dest"], {}))]
            else:
                out[row["dest"]] = click_value(row, text, aliases.get(row["dest"], {}))
        for pos in positionals:
            if pos["required"] and out[pos["dest"]] is None:
                raise ClickError("Missing argument '%s'." % pos["dest"].upper())
    except ClickError as e:
        click_fail(usage, try_cmd, str(e))
    return out
