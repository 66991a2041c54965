#!/usr/bin/env python3
"""tests/cli/fakes_http.py: the HTTP client of the stand-ins' tests
(test_fakes_dynamo.sh, test_fakes_trtllm.sh), stdlib only, every wait bounded.

  http METHOD URL [BODY [RID]]    print the status, then the body
  waitstatus URL SECONDS CODE     exit 0 once GET URL answers CODE, 1 at the deadline
  stream URL BODY RID             POST a streamed completion; print its status, chunk
                                  count, usage and whether [DONE] came
  py CODE                         run a Python check (json and os imported)
"""
import json, os, sys, time, urllib.request, urllib.error

cmd, a = sys.argv[1], sys.argv[2:]

def request(method, url, body=None, rid=None, timeout=10):
    hdrs = {"Content-Type": "application/json"}
    if rid:
        hdrs["X-Request-Id"] = rid
    req = urllib.request.Request(url, method=method, headers=hdrs,
                                 data=body.encode() if body is not None else None)
    try:
        r = urllib.request.urlopen(req, timeout=timeout)
        return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()

if cmd == "http":                      # http METHOD URL [BODY [RID]] -> status, body
    st, body = request(a[0], a[1], a[2] if len(a) > 2 else None, a[3] if len(a) > 3 else None)
    sys.stdout.write("%d\n" % st)
    sys.stdout.buffer.write(body)
elif cmd == "waitstatus":              # waitstatus URL SECONDS CODE: until GET answers CODE
    end = time.monotonic() + float(a[1])
    while time.monotonic() < end:
        try:
            if request("GET", a[0], timeout=2)[0] == int(a[2]):
                sys.exit(0)
        except OSError:
            pass
        time.sleep(0.05)
    sys.exit(1)
elif cmd == "stream":                  # stream URL BODY RID -> {"status", "chunks", "usage"}
    st, body = request("POST", a[0], a[1], a[2], timeout=30)
    chunks, usage, done = 0, None, False
    for line in body.decode().splitlines():
        if not line.startswith("data: "):
            continue
        if line == "data: [DONE]":
            done = True
            continue
        ev = json.loads(line[6:])
        chunks += bool(ev.get("choices"))
        usage = ev.get("usage") or usage
    print(json.dumps({"status": st, "chunks": chunks, "usage": usage, "done": done}))
elif cmd == "py":                      # py CODE: run a check
    exec(a[0])
