#!/usr/bin/env bash
# bench/campaign/bench_get_points.sh: time `srtctl get points --campaign C` of
# 10,000 rows, and `srtctl report C` of them (issue 16: under 1 s and 5 MB),
# and the same report from the status page (GET /campaigns/C/report, issue 17).
#
#   bench/campaign/bench_get_points.sh [-n RUNS] [SRTCTL [BENCH_CAMPAIGN]]
#
# Builds the database bench_campaign builds (one campaign of 10,000 points
# over 1,000 deployments: 5,000 done with metrics and a raw result, 100
# running, 4,900 pending; bench_campaign --setup-only), then runs
# `srtctl get points --campaign bench` as a table, -o wide, -o json and
# -o csv, RUNS times each (default 10, after one warm-up) with output to
# /dev/null, and prints the median and max wall time and the peak RSS
# (/usr/bin/time -f %M, the worst run).  Defaults: build-rel/srtctl and
# build-rel/bench/campaign/bench_campaign (cmake -S . -B build-rel
# -DCMAKE_BUILD_TYPE=Release && cmake --build build-rel).  No SLURM needed.
# It prints figures; it never fails on a slow run.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
runs=10
if [ "${1:-}" = -n ]; then
	runs=${2:?-n needs a number}
	shift 2
fi
case $runs in '' | *[!0-9]*) echo "bench_get_points: -n wants a positive number" >&2; exit 2 ;; esac
[ "$runs" -ge 1 ] || { echo "bench_get_points: -n wants a positive number" >&2; exit 2; }
SRTCTL=$(realpath "${1:-$root/build-rel/srtctl}")
BENCH=$(realpath "${2:-$(dirname "$SRTCTL")/bench/campaign/bench_campaign}")
[ -x "$SRTCTL" ] || { echo "bench_get_points: no srtctl at $SRTCTL (build it first)" >&2; exit 2; }
[ -x "$BENCH" ] || { echo "bench_get_points: no bench_campaign at $BENCH (build it first)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench_get_points: /usr/bin/time is needed for the peak RSS" >&2; exit 2; }

WORK=$(mktemp -d /tmp/srt-bench-points.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
"$BENCH" -d "$WORK" --setup-only | sed 's/^/  /'
DB=$WORK/state.db
export SRTSLURM_CONFIG=
rows=$("$SRTCTL" get points --campaign bench --db "$DB" -o csv | tail -n +2 | wc -l)
echo "== srtctl get points --campaign bench ($rows rows), $runs runs each, output to /dev/null"

for fmt in table wide json csv report; do
	args=(get points --campaign bench --db "$DB")
	[ "$fmt" = table ] || args+=(-o "$fmt")
	# srtctl report of the same campaign to stdout: the goal is under 1 s and 5 MB
	[ "$fmt" = report ] && args=(report bench -o - --db "$DB")
	bytes=$("$SRTCTL" "${args[@]}" | wc -c) # a warm-up (page cache); it must succeed
	# Peak RSS: GNU time's %M (KiB), the worst of the runs.
	: >"$WORK/rss"
	for _ in $(seq "$runs"); do
		/usr/bin/time -a -o "$WORK/rss" -f '%M' "$SRTCTL" "${args[@]}" >/dev/null
	done
	# Wall: posix_spawn + waitpid from one Python process (exec, load, query, print, exit).
	python3 - "$WORK/rss" "$fmt" "$bytes" "$runs" "$SRTCTL" "${args[@]}" <<'PY'
import os, statistics, sys, time
rssf, fmt, nbytes, runs, exe, argv = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[5:]
devnull = os.open(os.devnull, os.O_WRONLY)
fa = [(os.POSIX_SPAWN_DUP2, devnull, 1)]
wall = []
for _ in range(runs):
    t0 = time.perf_counter()
    pid = os.posix_spawn(exe, argv, os.environ, file_actions=fa)
    _, st = os.waitpid(pid, 0)
    wall.append((time.perf_counter() - t0) * 1e3)
    if os.waitstatus_to_exitcode(st) != 0:
        sys.exit(f"bench_get_points: {' '.join(argv)} failed")
rss = max(int(l) for l in open(rssf) if l.strip())
print(f"  {fmt:<6}  wall median {statistics.median(wall):7.1f} ms  max {max(wall):7.1f} ms"
      f"  peak RSS {rss / 1024:6.1f} MiB  ({nbytes / 1e6:.1f} MB of output)")
PY
done

# The same report served by the controller's status page (/campaigns/bench/report):
# built per request on the server's own read-only connection.  The controller
# runs with slurmrestd unreachable (the discard port): its passes do nothing.
port_file=$WORK/ctl.log
"$SRTCTL" controller --db "$DB" --url http://127.0.0.1:9 --interval 60s \
	--listen 127.0.0.1:0 >"$port_file" 2>&1 &
ctl=$!
port=
for _ in $(seq 1 300); do
	port=$(sed -n 's/.*, http on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$port_file")
	[ -n "$port" ] && break
	kill -0 "$ctl" 2>/dev/null || break
	sleep 0.1
done
if [ -z "$port" ]; then
	echo "bench_get_points: the controller did not start: $(cat "$port_file")" >&2
	kill "$ctl" 2>/dev/null
	exit 1
fi
python3 - "$port" "$runs" <<'PY'
import http.client, statistics, sys, time
port, runs = int(sys.argv[1]), int(sys.argv[2])
def get():
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request("GET", "/campaigns/bench/report")
    r = c.getresponse()
    body = r.read()
    c.close()
    if r.status != 200:
        sys.exit(f"bench_get_points: /campaigns/bench/report answered {r.status}")
    return len(body)
nbytes = get()  # warm-up
wall = []
for _ in range(runs):
    t0 = time.perf_counter()
    get()
    wall.append((time.perf_counter() - t0) * 1e3)
print(f"  http    wall median {statistics.median(wall):7.1f} ms  max {max(wall):7.1f} ms"
      f"  (GET /campaigns/bench/report, {nbytes / 1e6:.1f} MB)")
PY
kill "$ctl"
wait "$ctl" 2>/dev/null || true
