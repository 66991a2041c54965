#!/bin/bash
# tests/cli/test_seed_examples.sh: every YAML example of the feature spec
# validates and dry-runs as written, in text and JSON; the documented failure
# fails with the documented text; the IB device snippet works inside a recipe.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"

SEED=$SRT_SOURCE_DIR/tests/data/seed
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
export SRTSLURM_CONFIG=

fails=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

n=0
for f in "$SEED"/seed-[0-9]*.yaml; do
	n=$((n + 1))
	"$SRTCTL" validate -f "$f" >/dev/null 2>"$TMP/err" || fail "$(basename "$f") does not validate: $(cat "$TMP/err")"
	"$SRTCTL" dry-run -f "$f" >"$TMP/out" 2>"$TMP/err" || fail "$(basename "$f") does not dry-run: $(cat "$TMP/err")"
	grep -q '^#!/bin/bash' "$TMP/out" || fail "$(basename "$f"): no batch script in the dry-run"
	"$SRTCTL" dry-run -f "$f" -o json | python3 -c '
import json, sys
d = json.load(sys.stdin)
for k in ("batch_script", "services", "env", "store_config", "warnings"):
    assert k in d, k
' || fail "$(basename "$f"): dry-run -o json"
	# Where a master exists, the env table shows the stamped variables (the
	# spec's troubleshooting advice: look for mooncake in this table).
	if grep -q 'type: mooncake-master' "$f" && grep -q '^roles:' "$f"; then
		grep -q 'MOONCAKE_MASTER  *<infra_node_ip>:8700  *srtctl' "$TMP/out" ||
			fail "$(basename "$f"): MOONCAKE_MASTER missing from the env table"
	fi
done
[ "$n" -eq 11 ] || fail "expected 11 seed examples, found $n"

# The documented failure, with the documented text.
rc=0
"$SRTCTL" validate -f "$SEED/seed-failure-backend.yaml" >/dev/null 2>"$TMP/err" || rc=$?
[ "$rc" -eq 1 ] || fail "seed-failure-backend: exit $rc, want 1"
python3 - "$TMP/err" <<'PY' || fail "seed-failure-backend: text differs"
import sys
text = open(sys.argv[1]).read()
want = ("ValidationError: a mooncake-master service is configured but neither roles.prefill.args\n"
        "nor roles.decode.args has 'disaggregation-transfer-backend: mooncake'.\n"
        "Add it to both roles (and 'disaggregation-ib-device') so workers actually\n"
        "use the mooncake master srtslurm launches for you.\n")
assert want in text, text
PY
rc=0
"$SRTCTL" dry-run -f "$SEED/seed-failure-backend.yaml" >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "dry-run of the failure: exit $rc, want 1"

# The per-GPU IB device snippet, placed into the RDMA example it belongs to.
python3 - "$SEED/seed-09.yaml" "$SEED/fragment-ib-device-map.yaml" >"$TMP/merged.yaml" <<'PY'
import sys
base = open(sys.argv[1]).read()
frag = open(sys.argv[2]).read()
line = [l for l in frag.splitlines() if "disaggregation-ib-device" in l][0].strip()
out = []
in_prefill = False
for l in base.splitlines():
    if l.startswith("  prefill:"):
        in_prefill = True
    elif l.startswith("  decode:"):
        in_prefill = False
    if in_prefill and "disaggregation-ib-device" in l:
        l = "      " + line
    out.append(l)
print("\n".join(out))
PY
"$SRTCTL" dry-run -f "$TMP/merged.yaml" >"$TMP/out" 2>"$TMP/err" || fail "IB device map recipe: $(cat "$TMP/err")"
grep -qF -- "--disaggregation-ib-device '{\"0\": \"mlx5_0\", \"1\": \"mlx5_1\", \"2\": \"mlx5_2\", \"3\": \"mlx5_3\"}'" "$TMP/out" ||
	fail "the IB device map does not reach the prefill worker as one JSON argument"

if [ "$fails" -ne 0 ]; then
	echo "test_seed_examples: $fails failure(s)" >&2
	exit 1
fi
echo "test_seed_examples: ok ($n examples)"
