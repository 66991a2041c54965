#!/bin/bash
# tests/cli/test_dynamo_install.sh: dynamo.install, as srt-slurm runs it.
#
# Under the Dynamo frontend, in a container, the frontend and every worker
# install Dynamo before they start.  The rendered preamble is run here for
# real: by bash, with Debian's real pip (python3-pip) in a virtual
# environment of the test's own (its sys.prefix stands for the container's),
# installing wheels the test builds (PIP_NO_INDEX and PIP_FIND_LINKS keep pip
# off the network).  The checks: the command line pip takes; the order
# (setup_script, install, then the process); a failed install stops the
# process with pip's status; a second start and a concurrent rank skip the
# install (one lock, one sentinel per version); a nightly already there is
# not installed again; the srun step runs as root in its container; what
# srtctl does not install (a source build, no containers, install: false) is
# said or left alone.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"

SYSPY=/usr/bin/python3 # Debian's python3, with python3-pip (scripts/install-deps)
if ! "$SYSPY" -m pip --version >/dev/null 2>&1; then
	echo "SKIP: $SYSPY has no pip (scripts/install-deps installs python3-pip)" >&2
	exit 77
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
export SRTSLURM_CONFIG=
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_NO_INDEX=1 PIP_FIND_LINKS=$TMP/wheels

fails=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# py JSONFILE EXPR: EXPR (over the document d) holds.
py() {
	python3 - "$1" "$2" <<'EOF' || fail "$1: $2"
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
}

# wheel NAME VERSION: a pure-Python wheel of distribution NAME in wheels/
# (ai-dynamo carries the dynamo.llm module the nightly check imports).
wheel() {
	python3 - "$TMP/wheels" "$1" "$2" <<'EOF'
import os, sys, zipfile
out, name, ver = sys.argv[1:]
dist = name.replace("-", "_")
info = f"{dist}-{ver}.dist-info"
files = {
    f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {ver}\n",
    f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
if name == "ai-dynamo":
    files["dynamo/__init__.py"] = ""
    files["dynamo/llm/__init__.py"] = ""
files[f"{info}/RECORD"] = "".join(f"{p},,\n" for p in files) + f"{info}/RECORD,,\n"
os.makedirs(out, exist_ok=True)
with zipfile.ZipFile(f"{out}/{dist}-{ver}-py3-none-any.whl", "w") as z:
    for p, text in files.items():
        z.writestr(p, text)
EOF
}

# venv DIR: a virtual environment whose pip is Debian's (system site packages).
venv() {
	"$SYSPY" -m venv --without-pip --system-site-packages "$1"
	printf '#!/bin/sh\nexec "%s/bin/python3" -m pip "$@"\n' "$1" >"$1/bin/pip"
	chmod +x "$1/bin/pip"
}

# argv JSONFILE KIND OUT: the first KIND process's argv, NUL-separated, its
# own command (the words after the preamble's "$0") swapped for a marker.
argv() {
	python3 - "$1" "$2" >"$3" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
w = [p for p in d["plan"]["processes"] if p["kind"] == sys.argv[2]][0]["argv"]
assert w[:2] == ["bash", "-c"], w[:3]
print("\0".join(w[:4] + ["sh", "-c", "echo process-started"]), end="")
EOF
}

# start ARGV VENV OUT: run a rendered start in VENV as the container's python.
start() {
	PATH=$2/bin:$PATH xargs -0 env <"$1" >"$3" 2>&1
}

recipe() { # recipe FILE DYNAMO-MAPPING
	cat >"$1" <<YAML
name: dyn
engine: sglang
model: {path: /models/m, container: /images/s.sqsh}
frontend: {type: dynamo}
dynamo: $2
roles:
  prefill: {args: {tp: 1}}
  decode: {args: {tp: 1}}
setup_script: deps.sh
YAML
}
mkdir -p root/configs
printf 'runtime: {container_runtime: pyxis}\nsrtctl_root: %s/root\n' "$TMP" >pyxis.yaml
printf 'runtime: {container_runtime: none}\n' >bare.yaml

# --- the default: PyPI's 0.8.0, srt-slurm's DEFAULT_PYPI_VERSION ---
recipe pypi.yaml '{}'
SRTSLURM_CONFIG=$TMP/pyxis.yaml "$SRTCTL" dry-run -f pypi.yaml -o json >pypi.json 2>pypi.err ||
	fail "dry-run: $(cat pypi.err)"
py pypi.json 'all("pip install --break-system-packages --quiet --extra-index-url https://pypi.nvidia.com ai-dynamo-runtime==0.8.0 ai-dynamo==0.8.0" in p["argv"][2] for p in d["plan"]["processes"] if p["kind"] in ("worker", "frontend"))'
py pypi.json 'all(p["argv"][2].index("/configs/deps.sh") < p["argv"][2].index("pip install") for p in d["plan"]["processes"] if p["kind"] in ("worker", "frontend"))'
py pypi.json 'all(p.get("srun_options", [None])[0] == "--export=ALL,ENROOT_REMAP_ROOT=yes" for p in d["plan"]["processes"] if p["kind"] in ("worker", "frontend"))'
py pypi.json 'all(p["argv"][0] != "bash" and "ENROOT_REMAP_ROOT" not in str(p.get("srun_options")) for p in d["plan"]["processes"] if p["kind"] not in ("worker", "frontend"))'
SRTSLURM_CONFIG=$TMP/pyxis.yaml "$SRTCTL" dry-run -f pypi.yaml >pypi.txt 2>&1 || fail "dry-run text: $(cat pypi.txt)"
grep -q "srun:      --export=ALL,ENROOT_REMAP_ROOT=yes (root in the container for Dynamo's install" pypi.txt ||
	fail "the text dry-run does not say why the step runs as root"

# Run it: setup_script (not in the image: said, skipped), pip, the process.
wheel ai-dynamo 0.8.0
wheel ai-dynamo-runtime 0.8.0
venv v1
argv pypi.json worker pypi.argv
start pypi.argv v1 ran.out || fail "install + worker failed: $(cat ran.out)"
[[ $(tr '\n' ' ' <ran.out) == "WARNING: /configs/deps.sh not found Installing dynamo 0.8.0... Dynamo 0.8.0 installed process-started " ]] ||
	fail "order of setup, install and start: $(cat ran.out)"
v1/bin/python3 -c 'import importlib.metadata as m, dynamo.llm; assert m.version("ai-dynamo") == "0.8.0"' ||
	fail "pip did not install ai-dynamo 0.8.0 in the environment"
[[ -f v1/.srtctl_dynamo_install.0.8.0.complete ]] || fail "no sentinel in sys.prefix"
# A restart in the same container installs nothing.
start pypi.argv v1 ran.out || fail "second start failed: $(cat ran.out)"
grep -q "Dynamo 0.8.0 already installed here, skipping" ran.out && grep -q process-started ran.out ||
	fail "second start: $(cat ran.out)"

# Ranks of one step share the container: one installs, the others wait and skip.
venv v2
for i in 1 2 3; do start pypi.argv v2 "rank$i.out" & done
rc=0
for i in 1 2 3; do wait -n || rc=$?; done
((rc == 0)) || fail "a concurrent rank failed: $(cat rank*.out)"
[[ $(cat rank*.out | grep -c '^Installing dynamo 0.8.0') == 1 &&
	$(cat rank*.out | grep -c 'already installed here, skipping') == 2 &&
	$(cat rank*.out | grep -c process-started) == 3 ]] || fail "three ranks: $(cat rank*.out)"

# A failed install stops the process with pip's status.
venv v3
recipe missing.yaml '{version: 9.9.9}'
SRTSLURM_CONFIG=$TMP/pyxis.yaml "$SRTCTL" dry-run -f missing.yaml -o json >missing.json 2>/dev/null ||
	fail "dry-run version 9.9.9"
argv missing.json frontend missing.argv
rc=0
start missing.argv v3 ran.out || rc=$?
# xargs says 123 when its command exits 1-125
[[ $rc == 123 ]] && grep -q "ai-dynamo-runtime==9.9.9" ran.out && ! grep -q process-started ran.out ||
	fail "a failed install did not stop the frontend (xargs rc $rc): $(cat ran.out)"
[[ ! -e v3/.srtctl_dynamo_install.9.9.9.complete ]] || fail "a failed install left a sentinel"

# --- a nightly (v1 wheel:, 2.0 source.wheel): pip with --pre from the
# overridable indexes, skipped when that exact version already imports ---
recipe wheel.yaml '{source: {wheel: 1.4.0.dev20260730}}'
SRTSLURM_CONFIG=$TMP/pyxis.yaml "$SRTCTL" dry-run -f wheel.yaml -o json >wheel.json 2>/dev/null || fail "dry-run wheel"
py wheel.json '"pip install --break-system-packages --quiet --pre --index-url \"${DYNAMO_INDEX_URL:-https://pypi.org/simple}\" --extra-index-url \"${DYNAMO_EXTRA_INDEX_URL:-https://pypi.nvidia.com}\" ai-dynamo-runtime==1.4.0.dev20260730 ai-dynamo==1.4.0.dev20260730" in [p for p in d["plan"]["processes"] if p["kind"] == "worker"][0]["argv"][2]'
wheel ai-dynamo 1.4.0.dev20260730
wheel ai-dynamo-runtime 1.4.0.dev20260730
venv v4
argv wheel.json worker wheel.argv
start wheel.argv v4 ran.out || fail "wheel install failed: $(cat ran.out)"
v4/bin/python3 -c 'import importlib.metadata as m; assert m.version("ai-dynamo-runtime") == "1.4.0.dev20260730"' ||
	fail "the nightly was not installed: $(cat ran.out)"
# Already there (no sentinel: installed by the image): pip is not run, so
# no wheels to find does not matter.
rm v4/.srtctl_dynamo_install.1.4.0.dev20260730.complete
PIP_FIND_LINKS=$TMP/nowhere start wheel.argv v4 ran.out || fail "an installed nightly was installed again: $(cat ran.out)"
grep -q process-started ran.out || fail "installed nightly: $(cat ran.out)"
v1_wheel='{wheel: "1.4.0.dev20260730"}'
recipe wheel1.yaml "$v1_wheel"
SRTSLURM_CONFIG=$TMP/pyxis.yaml "$SRTCTL" dry-run -f wheel1.yaml -o json >wheel1.json 2>/dev/null || fail "dry-run v1 wheel"
py wheel1.json '"--pre" in [p for p in d["plan"]["processes"] if p["kind"] == "frontend"][0]["argv"][2]'

# --- what srtctl does not install ---
# install: false: no preamble but the setup script's, no root.
recipe off.yaml '{install: false, version: 0.9.0}'
SRTSLURM_CONFIG=$TMP/pyxis.yaml "$SRTCTL" dry-run -f off.yaml -o json >off.json 2>/dev/null || fail "dry-run install: false"
py off.json 'all("pip" not in p["argv"][2] and "ENROOT_REMAP_ROOT" not in str(p.get("srun_options")) for p in d["plan"]["processes"] if p["kind"] in ("worker", "frontend"))'
# A source build (v1 hash, 2.0 source.git, top_of_tree): said, not built.
for spec in '{hash: 6a159fedd8e4a1563aa647c31f622aedbf254b5b}' \
	'{source: {git: https://github.com/ai-dynamo/dynamo.git, rev: v0.9.0}}' '{top_of_tree: true}'; do
	recipe src.yaml "$spec"
	SRTSLURM_CONFIG=$TMP/pyxis.yaml "$SRTCTL" validate -f src.yaml >/dev/null 2>src.err || fail "$spec: $(cat src.err)"
	grep -q "warning: dynamo: srt-slurm builds Dynamo from source here" src.err || fail "$spec: no warning: $(cat src.err)"
	SRTSLURM_CONFIG=$TMP/pyxis.yaml "$SRTCTL" dry-run -f src.yaml -o json >src.json 2>/dev/null || fail "dry-run $spec"
	py src.json 'all("pip" not in " ".join(p["argv"]) for p in d["plan"]["processes"])'
done
# No containers: nothing installed on the nodes; said when the recipe asks.
recipe bare-ask.yaml '{version: 0.9.0}'
SRTSLURM_CONFIG=$TMP/bare.yaml "$SRTCTL" validate -f bare-ask.yaml >/dev/null 2>bare.err || fail "bare: $(cat bare.err)"
grep -q "warning: dynamo: Dynamo 0.9.0 is installed in each container before its process starts, and this cluster runs no containers" bare.err ||
	fail "no warning without containers: $(cat bare.err)"
SRTSLURM_CONFIG=$TMP/bare.yaml "$SRTCTL" validate -f pypi.yaml >/dev/null 2>bare.err || fail "bare default: $(cat bare.err)"
! grep -q "warning: dynamo:" bare.err || fail "the default install warned without containers: $(cat bare.err)"
SRTSLURM_CONFIG=$TMP/bare.yaml "$SRTCTL" dry-run -f bare-ask.yaml -o json >bare.json 2>/dev/null || fail "dry-run bare"
py bare.json 'all("pip" not in " ".join(p["argv"]) for p in d["plan"]["processes"])'
# Another frontend: its workers are the engine's own and install nothing.
sed 's/frontend: {type: dynamo}/frontend: {type: sglang-router}/' pypi.yaml >router.yaml
SRTSLURM_CONFIG=$TMP/pyxis.yaml "$SRTCTL" dry-run -f router.yaml -o json >router.json 2>/dev/null || fail "dry-run router"
py router.json 'all("pip" not in " ".join(p["argv"]) for p in d["plan"]["processes"])'

# --- refused as srt-slurm refuses them ---
refused() { # refused DYNAMO-MAPPING MESSAGE
	recipe bad.yaml "$1"
	if "$SRTCTL" validate -f bad.yaml >/dev/null 2>bad.err; then
		fail "accepted: dynamo: $1"
	elif ! grep -qF -- "$2" bad.err; then
		fail "dynamo: $1: $(cat bad.err)"
	fi
}
refused '{version: 0.8.0, wheel: 1.0.0}' "dynamo.wheel: a second Dynamo source beside 'version'"
refused '{source: {pypi: 0.8.0}, top_of_tree: true}' "dynamo.top_of_tree: a second Dynamo source beside 'source'"
refused '{source: {pypi: 0.8.0, wheel: 1.0.0}}' "dynamo.source: names more than one source; write exactly one of git (with rev), pypi or wheel"
refused '{source: {}}' "dynamo.source: names no source"
refused '{source: {git: https://x/y.git}}' "dynamo.source.git: needs rev"
refused '{source: {rev: main}}' "dynamo.source.rev: 'main' moves; name a commit"
refused '{source: {pypi: 0.8.0, sha: abc}}' "dynamo.source.sha: belongs to a git source"
refused '{source: {pypi: 0.8.0, branch: x}}' "dynamo.source.branch: unknown key 'branch'"
refused '{version: "0.8.0; rm -rf /"}' "dynamo.version: '0.8.0; rm -rf /' is not a version pip takes"
refused '{hash: "--upload-pack=x"}' "dynamo.hash: '--upload-pack=x' is not a git commit or ref"
refused '{version: 0.8.0, cargo_patches: ["a = 1"]}' "dynamo.cargo_patches: patches a source build and needs dynamo.hash"
refused '{install: maybe}' "dynamo.install: must be true or false"

if ((fails)); then
	echo "$fails check(s) failed" >&2
	exit 1
fi
echo "dynamo install: all checks passed"
