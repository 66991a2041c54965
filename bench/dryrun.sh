#!/usr/bin/env bash
# bench/dryrun.sh: time `srtctl dry-run` on a large recipe.
#
#   bench/dryrun.sh [-n RUNS] [-f RECIPE]
#
# Builds an optimised srtctl into build-bench/ (unless $SRTCTL names a
# binary), checks that the dry-run succeeds, then runs it RUNS times
# (default 200) with output to /dev/null and prints the mean, median, p95
# and max wall time in milliseconds and the peak RSS in MiB (/usr/bin/time
# -f %M, the worst of up to 20 runs).  Also runs bench_compile (the
# compiler alone, in process) and hyperfine when it is installed.
# Goal: under 5 ms and 8 MiB.  It prints figures; it never fails on a slow
# run.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=200
recipe=$root/bench/data/large-recipe.yaml
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=${2:?-n needs a number}; shift 2 ;;
	-f) recipe=${2:?-f needs a file}; shift 2 ;;
	-h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench/dryrun.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
case $runs in '' | *[!0-9]*) echo "bench/dryrun.sh: -n wants a positive number" >&2; exit 2 ;; esac
[ "$runs" -ge 1 ] && [ "$runs" -le 100000 ] || { echo "bench/dryrun.sh: -n out of range (1..100000)" >&2; exit 2; }
[ -f "$recipe" ] || { echo "bench/dryrun.sh: no such file '$recipe'" >&2; exit 2; }

bench_compile=
if [ -z "${SRTCTL:-}" ]; then
	echo "==> building an optimised srtctl (build-bench/, Release)"
	cmake -S "$root" -B "$root/build-bench" -DCMAKE_BUILD_TYPE=Release -DSRT_TESTS=OFF \
		-DSRT_WERROR=ON >/dev/null
	cmake --build "$root/build-bench" -j"$(nproc 2>/dev/null || echo 2)" --target srtctl bench_compile >/dev/null
	SRTCTL=$root/build-bench/srtctl
	bench_compile=$root/build-bench/bench/bench_compile
fi
[ -x "$SRTCTL" ] || { echo "bench/dryrun.sh: '$SRTCTL' is not an executable" >&2; exit 2; }

# The dry-run must succeed: timing a failure would measure the wrong thing.
# The cluster config is the built-in default, whatever the caller's shell has.
export SRTSLURM_CONFIG=
if ! "$SRTCTL" dry-run -f "$recipe" >/dev/null 2>"${TMPDIR:-/tmp}/srt-bench-err.$$"; then
	echo "bench/dryrun.sh: 'srtctl dry-run -f $recipe' failed:" >&2
	cat "${TMPDIR:-/tmp}/srt-bench-err.$$" >&2
	rm -f "${TMPDIR:-/tmp}/srt-bench-err.$$"
	exit 1
fi
rm -f "${TMPDIR:-/tmp}/srt-bench-err.$$"

lines=$(wc -l <"$recipe")
bytes=$(wc -c <"$recipe")
echo "==> srtctl dry-run -f ${recipe#"$root"/} ($lines lines, $bytes bytes), $runs runs"

# Wall time: posix_spawn + waitpid from one Python process, so each figure
# covers exec, dynamic loading, the dry-run itself and exit.
python3 - "$SRTCTL" "$recipe" "$runs" <<'PY'
import os, statistics, sys, time
exe, recipe, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
argv = [exe, "dry-run", "-f", recipe]
devnull = os.open(os.devnull, os.O_WRONLY)
fa = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
wall = []
for i in range(runs + 5):  # 5 warm-up runs, not counted
    t0 = time.perf_counter()
    pid = os.posix_spawn(exe, argv, os.environ, file_actions=fa)
    _, status = os.waitpid(pid, 0)
    t1 = time.perf_counter()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench/dryrun.sh: run {i} exited with status {status}")
    if i >= 5:
        wall.append((t1 - t0) * 1e3)
wall.sort()
p95 = wall[min(len(wall) - 1, int(len(wall) * 0.95))]
print(f"  wall: mean {statistics.fmean(wall):.2f} ms  median {statistics.median(wall):.2f} ms"
      f"  p95 {p95:.2f} ms  max {wall[-1]:.2f} ms  (goal < 5 ms)")
PY

# Peak RSS: GNU time's %M (KiB) over up to 20 runs.  (Not rusage from the
# Python loop above: a child spawned from Python inherits Python's own
# high-water mark across exec.)
if [ -x /usr/bin/time ]; then
	tf=$(mktemp)
	max=0
	n=$((runs < 20 ? runs : 20))
	for _ in $(seq "$n"); do
		/usr/bin/time -o "$tf" -f '%M' "$SRTCTL" dry-run -f "$recipe" >/dev/null 2>&1
		kib=$(tail -n 1 "$tf")
		[ "$kib" -gt "$max" ] && max=$kib
	done
	rm -f "$tf"
	awk -v k="$max" -v n="$n" 'BEGIN { printf "  peak RSS: %.2f MiB (%d KiB, max of %d runs, /usr/bin/time -f %%M)  (goal < 8 MiB)\n", k / 1024, k, n }'
else
	echo "  peak RSS: /usr/bin/time not installed (scripts/install-deps installs it)"
fi

if command -v hyperfine >/dev/null 2>&1; then
	echo "==> hyperfine (no shell)"
	hyperfine -N --warmup 5 --runs "$runs" --style basic \
		"$SRTCTL dry-run -f $recipe" 2>&1 | sed -n '/Time (mean/,/Range/p' | sed 's/^/  /'
fi

if [ -n "$bench_compile" ] && [ -x "$bench_compile" ]; then
	echo "==> compiler alone, in process"
	"$bench_compile" "$recipe" 1000 | sed 's/^/  /'
fi
