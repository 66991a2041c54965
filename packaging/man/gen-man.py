#!/usr/bin/env python3
"""packaging/man/gen-man.py: the man pages, made from srtctl's own help.

Usage: gen-man.py [--gzip] SRTCTL OUTDIR

Writes OUTDIR/srtctl.1 (from `srtctl --help`) and OUTDIR/srtctl-VERB.1 for
each verb that help lists (from `srtctl VERB --help`), so the pages never
say something the binary does not: the help texts are the one source.  The
help texts follow one layout, which this script reads:

  usage: srtctl VERB ...          (continued on indented lines)
  <paragraphs>                    plain text, blank-line separated
  Options:                        a heading: an unindented line ending in ':'
    -x, --long ARG   text         an option: two spaces, a dash, two+ spaces
                     more text    continuation, indented deeper
  Exit codes: ...                 a paragraph whose first words end in ':'
    indented lines                shown as they are (examples, tables)

Deterministic: no dates; the version comes from `srtctl version`.  With
--gzip each page is written as NAME.1.gz (gzip -9n: no name, no time), as
Debian installs them.
"""
import gzip
import os
import re
import subprocess
import sys


def run(srtctl, *args):
    out = subprocess.run([srtctl, *args], stdout=subprocess.PIPE, check=True,
                         env=dict(os.environ, SRTSLURM_CONFIG=""))
    return out.stdout.decode()


def esc(text):
    """Text for roff: backslashes, hyphens of options, and no leading '.' or "'"."""
    text = text.replace("\\", "\\e")
    text = re.sub(r"(?<![\w])-", r"\\-", text)
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def bold_options(text):
    return re.sub(r"(\\-\\-?[A-Za-z][\w\\-]*)", r"\\fB\1\\fR", text)


def header(name, version):
    return ['.TH %s 1 "" "srtctl %s" "srtctl manual"' % (name.upper(), version)]


def section_name(title):
    t = title.rstrip(":").strip()
    return {"Options": "OPTIONS", "Examples": "EXAMPLES", "Commands": "COMMANDS"}.get(
        t, t.upper())


OPTION = re.compile(r"^  +(-\S.*?)(?:\s{2,}(\S.*))?$")


def body(lines):
    """Roff for the help text after the usage lines."""
    out = []
    para = []
    in_options = False
    block = []  # indented lines shown as they are

    def flush_para():
        if para:
            out.append(".PP")
            out.append(bold_options(esc(" ".join(para))))
            para.clear()

    def flush_block():
        if block:
            indent = min(len(l) - len(l.lstrip()) for l in block if l.strip())
            out.append(".PP")
            out.append(".RS 4")
            out.append(".nf")
            out.extend(esc(l[indent:]) if l.strip() else "" for l in block)
            out.append(".fi")
            out.append(".RE")
            block.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            flush_para()
            flush_block()
            i += 1
            continue
        indented = line.startswith(" ")
        if not indented and line.endswith(":") and not para:
            flush_block()
            title = section_name(line)
            in_options = title == "OPTIONS"
            out.append(".SH " + esc(title))
            i += 1
            continue
        if indented and in_options and OPTION.match(line):
            flush_para()
            m = OPTION.match(line)
            opt, text = m.group(1), [m.group(2) or ""]
            i += 1
            while i < len(lines) and lines[i].startswith(" ") and lines[i].strip() and \
                    not OPTION.match(lines[i]):
                text.append(lines[i].strip())
                i += 1
            out.append(".TP")
            out.append("\\fB" + esc(opt.strip()) + "\\fR")
            out.append(bold_options(esc(" ".join(t for t in text if t))))
            continue
        if indented:
            flush_para()
            block.append(line)
            i += 1
            continue
        flush_block()
        para.append(line.strip())
        i += 1
    flush_para()
    flush_block()
    return out


def split_usage(text):
    lines = text.rstrip("\n").split("\n")
    assert lines[0].startswith("usage: "), lines[0]
    usage = [lines[0][len("usage: "):]]
    i = 1
    while i < len(lines) and lines[i].startswith(" ") and lines[i].strip():
        usage.append(lines[i].strip())
        i += 1
    return usage, lines[i:]


def synopsis(usage):
    return [".SH SYNOPSIS", ".nf"] + [esc(u) for u in usage] + [".fi"]


def verbs_of(top):
    """(verb, summary) from the Commands: list of `srtctl --help`."""
    lines = top.split("\n")
    start = lines.index("Commands:") + 1
    verbs = []
    for l in lines[start:]:
        m = re.match(r"^  (\S+)\s+(.*)$", l)
        if not m:
            break
        verbs.append((m.group(1), m.group(2)))
    return verbs


def write(outdir, name, lines, compress):
    data = ("\n".join(lines) + "\n").encode()
    path = os.path.join(outdir, name + ".1")
    if compress:
        with open(path + ".gz", "wb") as raw:
            with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw,
                               mtime=0) as f:
                f.write(data)
    else:
        with open(path, "wb") as f:
            f.write(data)


def main():
    args = sys.argv[1:]
    compress = args[:1] == ["--gzip"]
    if compress:
        args = args[1:]
    srtctl, outdir = args
    os.makedirs(outdir, exist_ok=True)
    version = run(srtctl, "version").split()[1]  # "srtctl 0.1.0 (libyaml ...)"
    top = run(srtctl, "--help")
    verbs = verbs_of(top)

    for verb, summary in verbs:
        usage, rest = split_usage(run(srtctl, verb, "--help"))
        name = "srtctl-" + verb
        page = header(name, version)
        page += [".SH NAME", "%s \\- %s" % (name, esc(summary))]
        page += synopsis(usage)
        page += [".SH DESCRIPTION"] + body(rest)
        page += [".SH SEE ALSO", "\\fBsrtctl\\fR(1)"]
        write(outdir, name, page, compress)

    usage, rest = split_usage(top)
    page = header("srtctl", version)
    page += [".SH NAME", "srtctl \\- run LLM serving jobs on SLURM from declarative recipes"]
    page += synopsis(usage)
    desc, cmds, after = [], [], []
    part = desc
    for l in rest:
        if l == "Commands:":
            part = cmds
            continue
        if part is cmds and not l.startswith("  "):
            part = after
        part.append(l)
    page += [".SH DESCRIPTION"] + body(desc)
    page += [".SH COMMANDS"]
    for verb, summary in verbs:
        page += [".TP", "\\fBsrtctl\\-%s\\fR(1)" % esc(verb), esc(summary)]
    page += body(after)
    page += [".SH SEE ALSO", ", ".join("\\fBsrtctl\\-%s\\fR(1)" % esc(v) for v, _ in verbs)]
    write(outdir, "srtctl", page, compress)


if __name__ == "__main__":
    main()
