#!/usr/bin/env bash
# tests/cli/test_agent_nginx.sh: frontend.enable_multiple_frontends run by
# `srtctl agent` with the real nginx (Debian's nginx-light) in front of two
# SGLang router stand-ins, SLURM stood in as in test_agent.sh.
#
# Three nodes: the prefill worker and nginx on n1 (the head), a decode
# worker on each of n2 and n3, and one router on each of them at 8180.
# nginx listens on every address (as in srt-slurm), so its port is one no
# other test uses: picked at random in 24000-28999 (no stand-in's default
# there; below the ephemeral range) and checked free, so two runs of this
# test at once do not meet.  The routers bind their node's loopback IP.
set -euo pipefail

# shellcheck source=tests/cli/agent_lib.sh
source "$(dirname "$0")/agent_lib.sh"

command -v nginx >/dev/null || fail "nginx is not installed (scripts/install-deps installs nginx-light)"
PORT=$(python3 -c '
import random, socket
for _ in range(200):
    port = random.randrange(24000, 29000)
    s = socket.socket()
    try:
        s.bind(("0.0.0.0", port))
    except OSError:
        continue
    finally:
        s.close()
    print(port)
    break
')
[[ -n $PORT ]] || fail "no free port in 24000-28999"
export PORT

recipe() { # recipe AFFINITY
	cat <<EOF
name: agent-nginx
engine: sglang
model: {path: $model}
roles:
  prefill: {}
  decode: {workers: 2, nodes: 2}
frontend:
  type: sglang-router
  port: $PORT
  enable_multiple_frontends: true
  num_additional_frontends: 3
  nginx_session_affinity: $1
  nginx_keepalive_timeout: 90s
EOF
}

# ---- 1. round robin: nginx on the head, a router on each other node ----

new_case rr "$(recipe false)"
start_agent n1,n2,n3
until_py 60 'status()["phase"] == "Ready"'
check "nginx: plan, config, order" '
ip = lambda k: os.environ["FAKE_NET"] + "." + str(k)
ps = {p["name"]: p for p in status()["processes"]}
assert sorted(ps) == ["decode_0", "decode_1", "frontend_0", "frontend_1", "nginx", "prefill_0"], sorted(ps)
conf = open("run/logs/nginx.conf").read()
assert "        server %s:8180;\n        server %s:8180;\n" % (ip(2), ip(3)) in conf, conf
assert "listen %s;" % os.environ["PORT"] in conf and "keepalive_timeout 90s;" in conf, conf
assert "\npid \"%s/nginx.pid\";\n" % os.path.realpath("run/logs") in conf, conf
assert "hash " not in conf, conf
ready = {e["object"]["name"]: e["seq"] for e in ev("Ready")}
started = {e["object"]["name"]: e["seq"] for e in ev("Started")}
# the routers and nginx start once every worker is ready
for n in ("frontend_0", "frontend_1", "nginx"):
    assert started[n] > max(ready["prefill_0"], ready["decode_0"], ready["decode_1"]), (n, started, ready)
assert status()["frontend_url"] == "http://%s:%s" % (ip(1), os.environ["PORT"]), status()["frontend_url"]
'
check "nginx: requests through it reach the routers" '
import urllib.request
url = status()["frontend_url"]
for i in range(4):
    with urllib.request.urlopen(url + "/health", timeout=10) as r:
        assert r.status == 200
req = urllib.request.Request(url + "/v1/completions", data=json.dumps({"model": "m", "prompt": "hi", "max_tokens": 4}).encode(), headers={"Content-Type": "application/json"})
with urllib.request.urlopen(req, timeout=20) as r:
    body = json.loads(r.read())
    assert r.status == 200 and body.get("choices"), body
'
stop_agent
check "nginx: stopped with the run" '
assert status()["phase"] == "Stopped", status()["phase"]
assert ev("Stopped", "nginx"), [e["reason"] for e in events()]
'

# ---- 2. session affinity: nginx accepts the generated hash and map (and a
# log directory whose path has a space and a ';') ----

new_case "affinity; x" "$(recipe true)"
start_agent n1,n2,n3
until_py 60 'status()["phase"] == "Ready"'
check "nginx: session affinity" '
conf = open("run/logs/nginx.conf").read()
assert "map $http_x_dynamo_session_id $srtctl_affinity_key" in conf, conf
assert "hash $srtctl_affinity_key consistent;" in conf, conf
import urllib.request
req = urllib.request.Request(status()["frontend_url"] + "/health", headers={"X-Dynamo-Session-ID": "s1"})
with urllib.request.urlopen(req, timeout=10) as r:
    assert r.status == 200
'
stop_agent

echo "test_agent_nginx: ok"
