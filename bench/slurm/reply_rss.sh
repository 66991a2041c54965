#!/usr/bin/env bash
# bench/slurm/reply_rss.sh: peak memory of the SLURM client on a job listing
# near its reply cap (SRT_SLURM_MAX_REPLY, slurm/internal.h), issue #12 item 7.
#
#   bench/slurm/reply_rss.sh [--mib N] [--build DIR]
#
# Builds a v0.0.42 listing of about N MiB (default 700) from copies of the
# real Slurm 24.11.5 jobs in tests/data/slurm/v0.0.42/real-jobs.json, serves
# it from a fake slurmrestd on 127.0.0.1 (python3), lists it once with
# DIR/bench/slurm/bench_reply (default build/) under /usr/bin/time -v, and
# prints the reply's size, the jobs decoded and the peak RSS.  Figures only.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mib=700
build=$root/build
while [ $# -gt 0 ]; do
	case $1 in
	--mib) mib=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	*) echo "usage: $0 [--mib N] [--build DIR]" >&2; exit 2 ;;
	esac
done
bin=$build/bench/slurm/bench_reply
[ -x "$bin" ] || { echo "no $bin: build it (cmake --build $build --target bench_reply)" >&2; exit 1; }

tmp=$(mktemp -d)
server=
cleanup() {
	if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

python3 - "$root/tests/data/slurm/v0.0.42/real-jobs.json" "$tmp/jobs.json" "$mib" <<'PY'
import json, sys
src, out, mib = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = json.load(open(src))
jobs = d["jobs"]
d["jobs"] = []
head = json.dumps(d, separators=(",", ":"))
cut = head.index('"jobs":[]') + len('"jobs":[')
limit = mib << 20
with open(out, "w") as f:
    f.write(head[:cut])
    n, size = 0, len(head)
    while True:
        j = dict(jobs[n % len(jobs)], job_id=100000 + n)
        text = json.dumps(j, separators=(",", ":"))
        if size + len(text) + 1 > limit:
            break
        f.write(("," if n else "") + text)
        size += len(text) + 1
        n += 1
    f.write(head[cut:])
PY

python3 - "$tmp/jobs.json" "$tmp/port" <<'PY' &
import http.server, os, socketserver, sys
path, portfile = sys.argv[1], sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        size = os.path.getsize(path)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        with open(path, "rb") as f:
            self.wfile.flush()
            self.connection.sendfile(f)
    def log_message(self, *a):
        pass
s = socketserver.TCPServer(("127.0.0.1", 0), H)
open(portfile + ".tmp", "w").write(str(s.server_address[1]))
os.rename(portfile + ".tmp", portfile)
s.serve_forever()
PY
server=$!
for _ in $(seq 1 100); do [ -f "$tmp/port" ] && break; sleep 0.1; done
[ -f "$tmp/port" ] || { echo "the fake slurmrestd did not start" >&2; exit 1; }

/usr/bin/time -v "$bin" "http://127.0.0.1:$(cat "$tmp/port")" v0.0.42 >"$tmp/out" 2>"$tmp/time" || true
cat "$tmp/out"
grep -E 'Maximum resident set size|Elapsed \(wall' "$tmp/time" | sed 's/^[[:space:]]*/time -v: /'
