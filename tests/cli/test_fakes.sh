#!/usr/bin/env bash
# tests/cli/test_fakes.sh: the stand-ins under tests/fakes speak the real
# programs' surface (see tests/fakes/README.md).
#
# mooncake master: gflags errors (unknown flag, --undefok, bad int, bad
# duration, missing argument), --version/--help, the bool-with-space pitfall,
# startup order (metadata port before RPC/admin), the admin and metadata HTTP
# surfaces byte for byte, the RPC port, SIGTERM once serving (exit 0, shutdown
# line) and during startup (143), port-in-use failures, and the FAKE_MASTER_*
# modes.  Store: waits for the master, binds REST only after setup, fails
# after --max-wait-time, config resolution.  Engine: records hostile argv/env
# byte for byte, parallel records do not interleave, health, signals, modes.
# Benchmark: result file.  Everything on 127.0.0.1, free ports picked by the
# kernel, every wait bounded, every process killed by PID.
set -euo pipefail

src=${SRT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
F=$src/tests/fakes
MASTER=$F/fake_mooncake_master
STORE=$F/fake_mooncake_store
ENGINE=$F/fake_engine
BENCH=$F/fake_benchmark

. "$src/tests/cli/fakes_lib.sh"
export FAKE_BIND_HOST=127.0.0.1
unset FAKE_RECORD_DIR FAKE_RECORD_FILE FAKE_RESULT_FILE SRT_LOG_DIR MOONCAKE_CONFIG_PATH \
	MOONCAKE_MASTER MOONCAKE_CLIENT MOONCAKE_TE_META_DATA_SERVER MOONCAKE_LOCAL_HOSTNAME \
	FAKE_MASTER_HANG FAKE_MASTER_HEALTH FAKE_MASTER_CRASH_AFTER FAKE_MASTER_SLOW_START \
	FAKE_MASTER_EXIT_AT_ONCE FAKE_MASTER_VERSION

cat >h.py <<'PY'
import json, os, socket, sys, time, urllib.request, urllib.error

def conn_ok(port, timeout=0.5):
    try:
        socket.create_connection(("127.0.0.1", int(port)), timeout=timeout).close()
        return True
    except OSError:
        return False

cmd, a = sys.argv[1], sys.argv[2:]
if cmd == "freeports":
    socks = []
    for _ in range(int(a[0])):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    print(" ".join(str(s.getsockname()[1]) for s in socks))
elif cmd == "up":                      # up PORT -> exit 0 if accepting
    sys.exit(0 if conn_ok(a[0]) else 1)
elif cmd == "waitup":                  # waitup PORT SECONDS [PID]
    end = time.monotonic() + float(a[1])
    while time.monotonic() < end:
        if conn_ok(a[0], 0.2):
            sys.exit(0)
        if len(a) > 2:
            try:
                if open("/proc/%s/stat" % a[2]).read().rsplit(")", 1)[1].split()[0] == "Z":
                    sys.exit(1)
            except OSError:
                sys.exit(1)
        time.sleep(0.02)
    sys.exit(1)
elif cmd == "http":                    # http METHOD URL [BODY] -> status, ctype, body
    req = urllib.request.Request(a[1], method=a[0],
                                 data=a[2].encode() if len(a) > 2 else None)
    try:
        r = urllib.request.urlopen(req, timeout=5)
        st, ct, body = r.status, r.headers.get("Content-Type"), r.read()
    except urllib.error.HTTPError as e:
        st, ct, body = e.code, e.headers.get("Content-Type"), e.read()
    sys.stdout.write("%d\n%s\n" % (st, ct))
    sys.stdout.buffer.write(body)
elif cmd == "stall":                   # stall URL SECONDS -> "timeout" or status
    try:
        r = urllib.request.urlopen(a[0], timeout=float(a[1]))
        print(r.status)
    except urllib.error.HTTPError as e:
        print(e.code)
    except (socket.timeout, TimeoutError):
        print("timeout")
    except urllib.error.URLError as e:
        print("timeout" if isinstance(e.reason, (socket.timeout, TimeoutError)) else "error")
elif cmd == "garbage":                 # garbage PORT -> what the RPC port sends back
    s = socket.create_connection(("127.0.0.1", int(a[0])), timeout=3)
    s.sendall(b"GET / HTTP/1.0\r\n\r\n")
    print("closed-empty" if s.recv(100) == b"" else "replied")
elif cmd == "timeline":                # timeline SECONDS PORT... -> first-accept times
    t0, ports = time.monotonic(), a[1:]
    first, snap = {}, {}
    while time.monotonic() - t0 < float(a[0]) and len(first) < len(ports):
        for p in ports:
            if p not in first and conn_ok(p, 0.05):
                first[p] = time.monotonic() - t0
                if not snap:
                    snap = {q: conn_ok(q, 0.05) for q in ports}
        time.sleep(0.005)
    print(json.dumps({"first": first, "at_first": snap}))
elif cmd == "hold":                    # hold PORT SECONDS: a plain listener
    s = socket.socket()
    s.bind(("127.0.0.1", int(a[0])))
    s.listen(1)
    time.sleep(float(a[1]))
elif cmd == "py":                      # py CODE: run a check with json loaded
    exec(a[0])
PY
h() { python3 "$work/h.py" "$@"; }

wait_up() { # PORT SECONDS [PID]: port accepts, fail early if PID died
	h waitup "$@"
}
body() { tail -n +3 <<<"$1"; }
status() { head -n 1 <<<"$1"; }
ctype() { sed -n 2p <<<"$1"; }

# start_master LOG [flags...]: start a master with metadata enabled on three
# fresh ports (M_RPC M_META M_ADMIN), retrying on a port collision; sets MPID.
start_master() {
	local log=$1
	shift
	for _ in 1 2 3; do
		read -r M_RPC M_META M_ADMIN < <(h freeports 3)
		"$MASTER" --rpc_port="$M_RPC" --enable_http_metadata_server=true \
			--http_metadata_server_port="$M_META" --metrics_port="$M_ADMIN" "$@" \
			>"$log" 2>&1 &
		MPID=$!
		pids+=("$MPID")
		if wait_up "$M_ADMIN" 15 "$MPID" && wait_up "$M_RPC" 5 "$MPID"; then return 0; fi
		kill -KILL "$MPID" 2>/dev/null || true
		grep -q 'Failed to start' "$log" || fail "master did not come up: $(tail -5 "$log")"
	done
	fail "master: no free ports after 3 tries"
}

###########################################################################
# mooncake master: command line

read -r P1 P2 P3 < <(h freeports 3)
rc=0
"$MASTER" --rpc_port="$P1" --bogus_flag=1 >out 2>err || rc=$?
[[ $rc -eq 1 ]] || fail "unknown flag: exit $rc, expected 1"
[[ $(cat err) == "ERROR: unknown command line flag 'bogus_flag'" ]] ||
	fail "unknown flag message: $(cat err)"
[[ ! -s out ]] || fail "unknown flag wrote to stdout"
h up "$P1" && fail "unknown flag: RPC port bound"

# --metrics_host exists only after v0.3.12.post1; --undefok lets it through.
rc=0
"$MASTER" --metrics_host=127.0.0.1 >out 2>err || rc=$?
[[ $rc -eq 1 && $(cat err) == "ERROR: unknown command line flag 'metrics_host'" ]] ||
	fail "metrics_host: rc $rc, $(cat err)"

rc=0
"$MASTER" --nobogus -bogus2=x --rpc-port=abc >out 2>err || rc=$?
[[ $rc -eq 1 ]] || fail "several errors: rc $rc"
[[ $(cat err) == "ERROR: unknown command line flag 'bogus2'
ERROR: unknown command line flag 'nobogus'
ERROR: illegal value 'abc' specified for int32 flag 'rpc_port'" ]] || fail "several errors: $(cat err)"

rc=0
"$MASTER" --default_kv_lease_ttl=abc >out 2>err || rc=$?
[[ $rc -eq 1 ]] || fail "bad duration: rc $rc"
grep -q "^E.* Invalid value for --default_kv_lease_ttl: abc" err || fail "bad duration E line"
[[ $(tail -n 1 err) == "ERROR: failed validation of new value 'abc' for flag 'default_kv_lease_ttl'" ]] ||
	fail "bad duration: $(cat err)"

rc=0
"$MASTER" --rpc_port >out 2>err || rc=$?
[[ $rc -eq 1 && $(cat err) == "ERROR: flag '--rpc_port' is missing its argument" ]] ||
	fail "missing argument: rc $rc $(cat err)"

rc=0
"$MASTER" --eviction_ratio=2 >out 2>err || rc=$?
[[ $rc -eq 134 ]] || fail "eviction_ratio=2: rc $rc, expected 134 (SIGABRT)"
grep -q "^F.*Mem eviction ratio must be between 0.0 and 1.0" err || fail "eviction ratio F line"

rc=0
"$MASTER" --version >out 2>err || rc=$?
[[ $rc -eq 0 ]] || fail "--version: rc $rc"
grep -Eq '^[^ ]+ version 0\.3\.12\.post1 \(git: [0-9a-f]+\)$' out || fail "--version: $(cat out)"
rc=0
FAKE_MASTER_VERSION=0.3.10 "$MASTER" --version --bogus >out 2>err || rc=$?
[[ $rc -eq 0 && $(wc -w <out) -eq 1 ]] || fail "0.3.10 --version: rc $rc $(cat out)"
rc=0
FAKE_MASTER_VERSION=0.3.10 "$MASTER" --nof_eviction_ratio=0.1 >out 2>err || rc=$?
[[ $rc -eq 1 && $(cat err) == "ERROR: unknown command line flag 'nof_eviction_ratio'" ]] ||
	fail "0.3.10 rejects a v0.3.11 flag: rc $rc $(cat err)"

rc=0
"$MASTER" --help >out 2>err || rc=$?
[[ $rc -eq 1 ]] || fail "--help: rc $rc, expected 1"
grep -q -- '-rpc_port' out || fail "--help lists no rpc_port"

###########################################################################
# mooncake master: startup order, surfaces, shutdown

export FAKE_RECORD_DIR=$work/rec
read -r M_RPC M_META M_ADMIN < <(h freeports 3)
# -flag=value, --flag value, dashes in names, --undefok, the bool pitfall:
# "--enable_http_metadata_server false" turns the metadata server ON.
"$MASTER" -rpc_port="$M_RPC" --metrics-port "$M_ADMIN" --metrics_host=127.0.0.1 \
	--undefok=metrics_host --http_metadata_server_port="$M_META" \
	--enable_http_metadata_server false --noenable_metric_reporting >m1.log 2>&1 &
MPID=$!
pids+=("$MPID")
tl=$(h timeline 15 "$M_META" "$M_RPC" "$M_ADMIN")
h py "
t = json.loads('''$tl''')
f, s = t['first'], t['at_first']
m, r, a = '$M_META', '$M_RPC', '$M_ADMIN'
assert set(f) == {m, r, a}, t
assert min(f, key=f.get) == m, ('metadata port must come up first', t)
assert s[m] and not s[r] and not s[a], ('RPC/admin must not accept with metadata', t)
" || fail "startup order: $tl"
alive "$MPID" || fail "master died"
# The same order in the log: metadata server, then (after the pause) the admin server.
h py "
l = open('$work/m1.log').read()
assert l.index('Master service started') < l.index('C++ HTTP metadata server started successfully') < l.index('Master admin server started on port $M_ADMIN'), l
" || fail "startup order in the log: $(cat m1.log)"
# (bench/fake_master_startup.sh prints how long the pause and each port take.)

head -n 1 m1.log | grep -Eq "^I[0-9]{8} [0-9:.]+ +[0-9]+ master\.cpp:[0-9]+\] Master service started on port $M_RPC, .*enable_http_metadata_server=1, http_metadata_server_port=$M_META" ||
	fail "first log line: $(head -n 1 m1.log)"
grep -q "C++ HTTP metadata server started successfully" m1.log || fail "metadata log line"
# As long as the real line (~1.5 KB of settings, the glog prefix aside).
line1=$(head -n 1 m1.log)
((${#line1} > 1450)) || fail "first log line is ${#line1} bytes, the real one ~1.5 KB"
grep -q "Master admin server started on port $M_ADMIN" m1.log || fail "admin log line"

r=$(h http GET "http://127.0.0.1:$M_ADMIN/health")
[[ $(status "$r") == 200 && $(ctype "$r") == "application/json; charset=utf-8" ]] ||
	fail "/health: $r"
[[ $(body "$r") == '{"status":"ok","role":"leader","ha_state":"serving","service_ready":true,"leader_address":null,"view_version":null}' ]] ||
	fail "/health body: $(body "$r")"
r=$(h http GET "http://127.0.0.1:$M_ADMIN/role")
[[ $(status "$r") == 200 && $(body "$r") == leader ]] || fail "/role: $r"
r=$(h http GET "http://127.0.0.1:$M_ADMIN/ha_status")
[[ $(body "$r") == serving ]] || fail "/ha_status: $r"
r=$(h http GET "http://127.0.0.1:$M_ADMIN/leader")
[[ $(body "$r") == '{"present":false,"leader_address":null,"view_version":null}' ]] || fail "/leader: $r"
r=$(h http GET "http://127.0.0.1:$M_ADMIN/metrics")
[[ $(status "$r") == 200 && $(ctype "$r") == "text/plain; version=0.0.4" ]] || fail "/metrics: $r"
grep -qx 'master_active_clients 0' <<<"$r" || fail "/metrics lacks master_active_clients 0"
grep -qx '# TYPE master_key_count gauge' <<<"$r" || fail "/metrics lacks master_key_count"
r=$(h http GET "http://127.0.0.1:$M_ADMIN/metrics/summary")
[[ $(body "$r") == "role=leader, state=serving, service_ready=true, master={"*"Clients: 0 |"* ]] ||
	fail "/metrics/summary: $r"
summary=$(body "$r")
((${#summary} == 1615)) || fail "/metrics/summary is ${#summary} bytes when idle, the real one 1615"
r=$(h http GET "http://127.0.0.1:$M_ADMIN/get_all_segments")
[[ $(status "$r") == 200 && -z $(body "$r") ]] || fail "/get_all_segments: $r"
r=$(h http GET "http://127.0.0.1:$M_ADMIN/query_key?key=x")
[[ $(status "$r") == 404 && $(body "$r") == '{"success":false,"error_code":-704,"error_message":"OBJECT_NOT_FOUND"}' ]] ||
	fail "/query_key: $r"
for req in "POST /health" "GET /nope" "PUT /metrics"; do
	r=$(h http "${req% *}" "http://127.0.0.1:$M_ADMIN${req#* }")
	[[ $(status "$r") == 404 && $(body "$r") == "404 Not Found" ]] || fail "$req: $r"
done
r=$(h http HEAD "http://127.0.0.1:$M_ADMIN/health")
[[ $(status "$r") == 404 ]] || fail "HEAD /health: $r"

# HTTP metadata server
md="http://127.0.0.1:$M_META/metadata"
chk() { # METHOD URL [BODY] -- STATUS BODY
	local r
	r=$(h http "$1" "$2" ${3:+"$3"})
	[[ $(status "$r") == "$4" && $(body "$r") == "$5" ]] ||
		fail "$1 $2 ${3:-}: got $(status "$r") '$(body "$r")', want $4 '$5'"
}
chk GET "$md?key=x" "" 404 "metadata not found"
chk PUT "$md?key=x" '{"a":1}' 200 "metadata updated"
chk GET "$md?key=x" "" 200 '{"a":1}'
chk PUT "$md?key=x" '{"a":2}' 200 "metadata updated"
chk GET "$md?key=x" "" 200 '{"a":2}'
chk DELETE "$md?key=x" "" 200 "metadata deleted"
chk DELETE "$md?key=x" "" 404 "metadata not found"
chk GET "$md" "" 400 "Missing key parameter"
chk POST "$md?key=x" "{}" 404 "404 Not Found"
rk="$md?key=mooncake%2Frpc_meta%2F10.0.0.1%3A12345"
chk PUT "$rk" '{"ip_or_host_name":"10.0.0.1","rpc_port":12345}' 200 "metadata updated"
chk PUT "$rk" '{"ip_or_host_name":"10.0.0.1","rpc_port":12345}' 200 "metadata unchanged"
chk PUT "$rk" '{"ip_or_host_name":"10.0.0.2","rpc_port":1}' 400 "Duplicate rpc_meta key not allowed"
chk GET "$rk" "" 200 '{"ip_or_host_name":"10.0.0.1","rpc_port":12345}'
chk GET "http://127.0.0.1:$M_META/health" "" 200 "OK"
chk GET "http://127.0.0.1:$M_META/metrics" "" 404 "404 Not Found"
r=$(h http GET "$md?key=mooncake%2Frpc_meta%2F10.0.0.1%3A12345")
[[ $(ctype "$r") == application/json ]] || fail "metadata GET content type: $r"

# RPC port: TCP only; bytes get the connection closed with nothing back.
[[ $(h garbage "$M_RPC") == closed-empty ]] || fail "RPC port answered garbage"

# the record of what was launched
h py "
recs = [json.loads(l) for l in open('$work/rec/mooncake_master.jsonl')]
r = [x for x in recs if x['pid'] == $MPID]
assert len(r) == 1, recs
assert r[0]['argv'][1:3] == ['-rpc_port=$M_RPC', '--metrics-port'], r[0]['argv']
assert r[0]['host'] == socket.gethostname() and r[0]['prog'] == 'mooncake_master'
assert r[0]['env']['FAKE_BIND_HOST'] == '127.0.0.1'
" || fail "master record"
unset FAKE_RECORD_DIR

kill -TERM "$MPID"
expect_rc 0 "$MPID" 10 "SIGTERM once serving"
grep -q "Shutdown signal received, exiting gracefully" m1.log || fail "no shutdown line"
h up "$M_ADMIN" && fail "admin port still open after exit"

# SIGTERM before the handler is installed (startup sleep) -> default action.
read -r P1 P2 P3 < <(h freeports 3)
FAKE_MASTER_SLOW_START=5 "$MASTER" --rpc_port="$P1" --enable_http_metadata_server \
	--http_metadata_server_port="$P2" --metrics_port="$P3" >m2.log 2>&1 &
MPID=$!
pids+=("$MPID")
wait_up "$P2" 10 "$MPID" || fail "metadata port never came up"
kill -TERM "$MPID"
expect_rc 143 "$MPID" 10 "SIGTERM during startup"
grep -q "Shutdown signal" m2.log && fail "shutdown line during startup"

# SIGINT once serving, plain /health (the <= v0.3.10 form)
FAKE_MASTER_HEALTH=plain start_master m3.log
r=$(h http GET "http://127.0.0.1:$M_ADMIN/health")
[[ $(status "$r") == 200 && $(body "$r") == OK ]] || fail "plain /health: $r"
kill -INT "$MPID"
expect_rc 0 "$MPID" 10 "SIGINT once serving"

# FAKE_MASTER_VERSION=0.3.10: plain health, old admin log line, no /role
FAKE_MASTER_VERSION=0.3.10 start_master m4.log
r=$(h http GET "http://127.0.0.1:$M_ADMIN/health")
[[ $(body "$r") == OK ]] || fail "0.3.10 /health: $r"
r=$(h http GET "http://127.0.0.1:$M_ADMIN/role")
[[ $(status "$r") == 404 ]] || fail "0.3.10 /role: $r"
grep -q "HTTP metrics server started on port $M_ADMIN" m4.log || fail "0.3.10 admin log line"
kill -TERM "$MPID"
expect_rc 0 "$MPID" 10 "0.3.10 SIGTERM"

# crash after N seconds of serving: SIGABRT (134) by default, or a code
read -r P1 P2 P3 < <(h freeports 3)
FAKE_MASTER_CRASH_AFTER=0.3 "$MASTER" --rpc_port="$P1" --metrics_port="$P3" >m5.log 2>&1 &
MPID=$!
pids+=("$MPID")
expect_rc 134 "$MPID" 15 "FAKE_MASTER_CRASH_AFTER"
grep -q "Master admin server started on port $P3" m5.log || fail "crash: never served"
grep -q "^F" m5.log || fail "crash: no F line"
h py "
l = open('$work/m5.log').read().splitlines()
i = [k for k, x in enumerate(l) if x.startswith('F')][0]
assert l[i + 1] == '*** Check failure stack trace: ***', l[i:]
assert len(l) - i - 2 >= 6 and all(x.startswith('    @     0x') for x in l[i + 2:]), l[i:]
" || fail "crash: glog's stack trace after the F line: $(tail -12 m5.log)"
FAKE_MASTER_CRASH_AFTER=0.3 FAKE_MASTER_CRASH_CODE=1 "$MASTER" --rpc_port="$P1" \
	--metrics_port="$P3" >m6.log 2>&1 &
MPID=$!
pids+=("$MPID")
expect_rc 1 "$MPID" 15 "FAKE_MASTER_CRASH_CODE=1"

# the periodic metrics line, as long as the real one (FAKE_MASTER_REPORT_SECONDS: its period)
FAKE_MASTER_REPORT_SECONDS=0.2 start_master m12.log
end=$((SECONDS + 15))
until grep -q "Master Admin Metrics: " m12.log; do
	((SECONDS < end)) || fail "no metrics log line"
	sleep 0.05
done
kill -TERM "$MPID"
expect_rc 0 "$MPID" 10 "metrics: SIGTERM"
h py "
l = [x for x in open('$work/m12.log').read().splitlines() if 'Master Admin Metrics: ' in x][0]
assert l.startswith('I') and 'master_metric_manager.cpp:' in l, l
assert len(l.split('Master Admin Metrics: ', 1)[1]) == 1615, len(l)
" || fail "metrics log line"

# hang: every port accepts, /health never answers
FAKE_MASTER_HANG=1 start_master m7.log
wait_up "$M_META" 2 || fail "hang: metadata port closed"
[[ $(h stall "http://127.0.0.1:$M_ADMIN/health" 1.5) == timeout ]] || fail "hang: /health answered"
chk GET "http://127.0.0.1:$M_META/health" "" 200 "OK"
kill -TERM "$MPID"
expect_rc 0 "$MPID" 10 "hang: SIGTERM"

# hang=rpc: admin healthy, the RPC port never opens
read -r P1 P2 P3 < <(h freeports 3)
FAKE_MASTER_HANG=rpc "$MASTER" --rpc_port="$P1" --metrics_port="$P3" >m8.log 2>&1 &
MPID=$!
pids+=("$MPID")
wait_up "$P3" 10 "$MPID" || fail "hang=rpc: admin never up"
h up "$P1" && fail "hang=rpc: RPC port open"
kill -TERM "$MPID"
expect_rc 0 "$MPID" 10 "hang=rpc: SIGTERM"

# hang=standby: /health 200 with service_ready false
FAKE_MASTER_HANG=standby start_master m9.log
r=$(h http GET "http://127.0.0.1:$M_ADMIN/health")
[[ $(body "$r") == *'"service_ready":false'* ]] || fail "standby /health: $r"
kill -TERM "$MPID"
expect_rc 0 "$MPID" 10 "standby: SIGTERM"

# slow start: RPC and admin come up late (no metadata server, no 1 s pause):
# closed after the first log line, until the pause ends; then both accept.
read -r P1 P2 P3 < <(h freeports 3)
FAKE_MASTER_SLOW_START=1.5 "$MASTER" --rpc_port="$P1" --metrics_port="$P3" >m10.log 2>&1 &
MPID=$!
pids+=("$MPID")
end=$((SECONDS + 10))
until grep -q "Master service started" m10.log; do
	((SECONDS < end)) || fail "slow start: no first log line"
	sleep 0.02
done
if ! grep -q "Master admin server started" m10.log; then
	h up "$P1" && ! grep -q "Master admin server started" m10.log && fail "slow start: RPC port open during the pause"
fi
tl=$(h timeline 15 "$P1" "$P3")
h py "
t = json.loads('''$tl''')['first']
assert set(t) == {'$P1', '$P3'}, t
" || fail "slow start: $tl"
grep -q "Master admin server started on port $P3" m10.log || fail "slow start: admin line"
kill -TERM "$MPID"
expect_rc 0 "$MPID" 10 "slow start: SIGTERM"

# exits at once
read -r P1 P2 P3 < <(h freeports 3)
rc=0
FAKE_MASTER_EXIT_AT_ONCE=1 "$MASTER" --rpc_port="$P1" --metrics_port="$P3" >out 2>err || rc=$?
[[ $rc -eq 1 ]] || fail "exit at once: rc $rc"
grep -q "^E.*Failed to start master service" err || fail "exit at once: $(cat err)"

# port in use: metadata -> SIGABRT; admin -> exit 1 with its error line; RPC -> exit 1, no error line
read -r P1 P2 P3 < <(h freeports 3)
python3 "$work/h.py" hold "$P2" 30 &
HOLD=$!
pids+=("$HOLD")
wait_up "$P2" 5 "$HOLD" || fail "holder did not listen"
rc=0
timeout 20 "$MASTER" --rpc_port="$P1" --enable_http_metadata_server=1 \
	--http_metadata_server_port="$P2" --metrics_port="$P3" >out 2>err || rc=$?
[[ $rc -eq 134 ]] || fail "metadata port in use: rc $rc"
grep -q "Failed to start HTTP metadata server on 0.0.0.0:$P2" err || fail "metadata in use: $(cat err)"
rc=0
timeout 20 "$MASTER" --rpc_port="$P1" --metrics_port="$P2" >out 2>err || rc=$?
[[ $rc -eq 1 ]] || fail "admin port in use: rc $rc"
grep -q "Failed to start master admin server on port $P2" err || fail "admin in use: $(cat err)"
# the RPC port: no error line at all; the admin server was up before the exit
rc=0
timeout 20 "$MASTER" --rpc_port="$P2" --enable_http_metadata_server=1 \
	--http_metadata_server_port="$P1" --metrics_port="$P3" >out 2>err || rc=$?
[[ $rc -eq 1 ]] || fail "RPC port in use: rc $rc"
grep -q "^[EF]" err && fail "RPC port in use: an error line: $(cat err)"
grep -q "Master admin server started on port $P3" err || fail "RPC in use: admin never up: $(cat err)"
kill "$HOLD" 2>/dev/null || true

###########################################################################
# mooncake store service

read -r S_PORT < <(h freeports 1)
read -r M_RPC M_META M_ADMIN < <(h freeports 3)
export FAKE_RECORD_DIR=$work/rec
MOONCAKE_MASTER=127.0.0.1:$M_RPC MOONCAKE_LOCAL_HOSTNAME=127.0.0.1 \
	MOONCAKE_TE_META_DATA_SERVER=http://127.0.0.1:$M_META/metadata \
	"$STORE" --port "$S_PORT" --max-wait-time 30 >s1.log 2>&1 &
SPID=$!
pids+=("$SPID")
end=$((SECONDS + 10))
until grep -q "attempt 2," s1.log; do
	((SECONDS < end)) || fail "store: no second attempt"
	alive "$SPID" || fail "store died before the master started"
	sleep 0.05
done
h up "$S_PORT" && fail "store: REST port bound before setup"
"$MASTER" --rpc_port="$M_RPC" --enable_http_metadata_server=true \
	--http_metadata_server_port="$M_META" --metrics_port="$M_ADMIN" >m11.log 2>&1 &
MPID=$!
pids+=("$MPID")
wait_up "$M_RPC" 15 "$MPID" || fail "store test: master never up"
wait_up "$S_PORT" 15 "$SPID" || fail "store: REST never bound"
grep -q "Store service started successfully on 127.0.0.1" s1.log || fail "store: started line"
grep -q "REST API started on port $S_PORT" s1.log || fail "store: REST line"
h py "
l = open('$work/s1.log').read()
assert l.index('Attempting to start store service (attempt 1,') < l.index('Store service started successfully') < l.index('REST API started on port')
" || fail "store: log order"
r=$(h http GET "http://127.0.0.1:$S_PORT/api/exist/k")
[[ $(status "$r") == 200 && $(body "$r") == '{"exists": false}' ]] || fail "store exist: $r"
r=$(h http PUT "http://127.0.0.1:$S_PORT/api/put" '{"key":"k","value":"v1"}')
[[ $(status "$r") == 200 ]] || fail "store put: $r"
r=$(h http GET "http://127.0.0.1:$S_PORT/api/get/k")
[[ $(status "$r") == 200 && $(body "$r") == v1 ]] || fail "store get: $r"
r=$(h http GET "http://127.0.0.1:$S_PORT/api/get/nope")
[[ $(status "$r") == 404 ]] || fail "store get missing: $r"
# the store holds a client connection to the master and published its keys
end=$((SECONDS + 5))
until h http GET "http://127.0.0.1:$M_ADMIN/metrics" | grep -qx 'master_active_clients 1'; do
	((SECONDS < end)) || fail "master does not count the store as a client"
	sleep 0.1
done
r=$(h http GET "http://127.0.0.1:$M_ADMIN/get_all_segments")
[[ -n $(body "$r") ]] || fail "no segment listed"
h py "
recs = [json.loads(l) for l in open('$work/rec/mooncake_store.jsonl')]
assert recs[-1]['pid'] == $SPID and recs[-1]['env']['MOONCAKE_MASTER'] == '127.0.0.1:$M_RPC'
assert recs[-1]['argv'][1:] == ['--port', '$S_PORT', '--max-wait-time', '30']
" || fail "store record"
unset FAKE_RECORD_DIR
kill -TERM "$SPID"
expect_rc 0 "$SPID" 10 "store SIGTERM"

# MOONCAKE_CONFIG_PATH wins over MOONCAKE_MASTER
read -r S_PORT < <(h freeports 1)
printf '{"local_hostname":"127.0.0.1","metadata_server":"P2PHANDSHAKE","master_server_address":"127.0.0.1:%s"}\n' \
	"$M_RPC" >store.json
MOONCAKE_CONFIG_PATH=$work/store.json MOONCAKE_MASTER=127.0.0.1:1 \
	"$STORE" --port "$S_PORT" --max-wait-time 10 >s2.log 2>&1 &
SPID=$!
pids+=("$SPID")
wait_up "$S_PORT" 15 "$SPID" || fail "store with MOONCAKE_CONFIG_PATH never bound"
kill -TERM "$SPID"
expect_rc 0 "$SPID" 10 "store 2 SIGTERM"
kill -TERM "$MPID"
expect_rc 0 "$MPID" 10 "store test master SIGTERM"

# a vLLM-style config (no local_hostname) breaks the store service
printf '{"metadata_server":"P2PHANDSHAKE","master_server_address":"127.0.0.1:1"}\n' >vllm.json
rc=0
MOONCAKE_CONFIG_PATH=$work/vllm.json timeout 20 "$STORE" --port "$S_PORT" >out 2>err || rc=$?
[[ $rc -eq 1 ]] || fail "store missing field: rc $rc"
grep -q "Configuration load failed: Missing required config field: local_hostname" err ||
	fail "store missing field: $(cat err)"

# neither MOONCAKE_CONFIG_PATH nor MOONCAKE_MASTER
rc=0
timeout 20 "$STORE" --port "$S_PORT" >out 2>err || rc=$?
[[ $rc -eq 1 ]] || fail "store without master env: rc $rc"
grep -q "Neither the environment variable 'MOONCAKE_CONFIG_PATH' nor 'MOONCAKE_MASTER' is set." err ||
	fail "store without master env: $(cat err)"

# no master at all: gives up after --max-wait-time, REST never bound
read -r P1 S_PORT < <(h freeports 2)
MOONCAKE_MASTER=127.0.0.1:$P1 "$STORE" --port "$S_PORT" --max-wait-time 2 >s3.log 2>&1 &
SPID=$!
pids+=("$SPID")
expect_rc 1 "$SPID" 20 "store without master"
grep -q "Store startup failed: exceeded max wait time of 2.0s after [0-9]* attempts" s3.log ||
	fail "store max wait line"
grep -q "REST API started" s3.log && fail "store bound REST without a master"
h up "$S_PORT" && fail "store REST port open"

###########################################################################
# engine

read -r E_PORT < <(h freeports 1)
# shellcheck disable=SC2016 # the $(...) and `...` must stay unexpanded
v1=$'dq"sq\'bs\\ $(touch '"$work"'/pwned) `touch '"$work"'/pwned2`; rm -rf /nope && echo $HOME'
v2=$'line1\nline2\n\ttab  trailing space '
# shellcheck disable=SC2016
v3='ünïcødé ✓ ${HOME} %s %n'
v4=''
printf '%s\0' "$v1" "$v2" "$v3" "$v4" >expect_env
a1=$'--flag=$(touch '"$work"'/pwned3)'
a2=$'two\nlines "q" \'s\''
printf '%s\0' --host 127.0.0.1 --port "$E_PORT" "$a1" "$a2" '' ';' >expect_argv
env "HOSTILE_1=$v1" "HOSTILE_2=$v2" "HOSTILE_3=$v3" "HOSTILE_4=$v4" \
	FAKE_RECORD_FILE="$work/rec/engine.jsonl" \
	"$ENGINE" --host 127.0.0.1 --port "$E_PORT" "$a1" "$a2" '' ';' >e1.log 2>&1 &
EPID=$!
pids+=("$EPID")
wait_up "$E_PORT" 15 "$EPID" || fail "engine never served"
r=$(h http GET "http://127.0.0.1:$E_PORT/health")
[[ $(status "$r") == 200 ]] || fail "engine /health: $r"
r=$(h http GET "http://127.0.0.1:$E_PORT/nope")
[[ $(status "$r") == 404 ]] || fail "engine 404: $r"
h py "
recs = [json.loads(l) for l in open('$work/rec/engine.jsonl', 'rb')]
assert len(recs) == 1, recs
r = recs[0]
enc = lambda s: os.fsencode(s)
ev = open('$work/expect_env', 'rb').read().split(b'\0')[:-1]
got = [enc(r['env']['HOSTILE_%d' % i]) for i in (1, 2, 3, 4)]
assert got == ev, (got, ev)
av = open('$work/expect_argv', 'rb').read().split(b'\0')[:-1]
assert [enc(x) for x in r['argv'][1:]] == av, (r['argv'], av)
assert r['pid'] == $EPID and r['host'] == socket.gethostname() and r['port'] == $E_PORT
assert r['cwd'] == os.getcwd() and r['env']['PATH'] == os.environ['PATH']
assert isinstance(r['time'], float) and r['time_iso'].endswith('Z')
" || fail "engine record is not byte for byte"
for f in pwned pwned2 pwned3; do [[ ! -e $work/$f ]] || fail "a hostile value was executed ($f)"; done
kill -TERM "$EPID"
expect_rc 0 "$EPID" 10 "engine SIGTERM"

# parallel engines append whole lines (one write each)
big=$(head -c 100000 /dev/zero | tr '\0' x)
epids=()
for i in 1 2 3 4 5 6 7 8; do
	BIG="$big$i" FAKE_ENGINE_NO_HTTP=1 FAKE_RECORD_DIR="$work/par" "$ENGINE" --port 1 --n "$i" \
		>"e_par$i.log" 2>&1 &
	epids+=($!)
	pids+=($!)
done
end=$((SECONDS + 20))
until [[ -f par/engine.jsonl && $(wc -l <par/engine.jsonl) -ge 8 ]]; do
	((SECONDS < end)) || fail "parallel records missing"
	sleep 0.1
done
h py "
recs = [json.loads(l) for l in open('$work/par/engine.jsonl')]
assert sorted(r['argv'][-1] for r in recs) == [str(i) for i in range(1, 9)]
assert all(r['env']['BIG'] == 'x' * 100000 + r['argv'][-1] for r in recs)
" || fail "parallel records interleaved"
h up 1 && fail "FAKE_ENGINE_NO_HTTP served"
for p in "${epids[@]}"; do kill -TERM "$p"; done
for p in "${epids[@]}"; do expect_rc 0 "$p" 10 "no-http engine SIGTERM"; done

# crash after N seconds
read -r E_PORT < <(h freeports 1)
FAKE_ENGINE_CRASH_AFTER=0.5 "$ENGINE" --host 127.0.0.1 --port="$E_PORT" >e2.log 2>&1 &
EPID=$!
pids+=("$EPID")
expect_rc 1 "$EPID" 10 "engine crash"
grep -q "Uvicorn running on http://127.0.0.1:$E_PORT" e2.log || fail "engine --port=N not used"

# Mooncake store path without its configuration fails like SGLang / vLLM
rc=0
timeout 20 "$ENGINE" --host 127.0.0.1 --port "$E_PORT" --enable-hierarchical-cache \
	--hicache-storage-backend mooncake >out 2>&1 || rc=$?
[[ $rc -eq 1 ]] || fail "hicache without MOONCAKE_MASTER: rc $rc"
grep -q "Either the environment variable 'MOONCAKE_MASTER' or 'MOONCAKE_CLIENT' is not set." out ||
	fail "hicache message: $(cat out)"
rc=0
timeout 20 "$ENGINE" --port "$E_PORT" \
	--kv-transfer-config '{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}' >out 2>&1 || rc=$?
[[ $rc -eq 1 ]] || fail "vllm store connector without MOONCAKE_CONFIG_PATH: rc $rc"
grep -q "The environment variable 'MOONCAKE_CONFIG_PATH' is not set." out || fail "vllm message: $(cat out)"

###########################################################################
# benchmark

read -r E_PORT < <(h freeports 1)
"$ENGINE" --host 127.0.0.1 --port "$E_PORT" >e3.log 2>&1 &
EPID=$!
pids+=("$EPID")
rc=0
FAKE_BENCH_SECONDS=0 FAKE_RESULT_FILE=$work/res/result.json SRT_BENCH_RATE=4 \
	timeout 30 "$BENCH" --url "http://127.0.0.1:$E_PORT/health" --num-prompts 3 >b1.log 2>&1 || rc=$?
[[ $rc -eq 0 ]] || fail "benchmark: rc $rc"
h py "
r = json.load(open('$work/res/result.json'))
assert r['ok'] is True and r['url_status'] == 200, r
assert r['args'] == ['--url', 'http://127.0.0.1:$E_PORT/health', '--num-prompts', '3'], r
assert r['env'] == {'SRT_BENCH_RATE': '4'} and r['duration_s'] >= 0, r
" || fail "benchmark result"
kill -TERM "$EPID"
expect_rc 0 "$EPID" 10 "benchmark engine SIGTERM"

rc=0
FAKE_BENCH_WAIT=1 FAKE_BENCH_SECONDS=0 SRT_LOG_DIR=$work/logs \
	timeout 30 "$BENCH" --url="http://127.0.0.1:$E_PORT/health" >b2.log 2>&1 || rc=$?
[[ $rc -eq 1 ]] || fail "benchmark without a server: rc $rc"
h py "
r = json.load(open('$work/logs/benchmark_result.json'))
assert r['ok'] is False and r['url_status'] is None and r['url_tries'] >= 2, r
" || fail "benchmark failure result"

rc=0
FAKE_BENCH_SECONDS=0 FAKE_BENCH_EXIT=3 timeout 30 "$BENCH" >b3.log 2>&1 || rc=$?
[[ $rc -eq 3 && -f benchmark_result.json ]] || fail "FAKE_BENCH_EXIT / ./benchmark_result.json: rc $rc"

echo "ok: fakes"
