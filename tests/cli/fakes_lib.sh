# tests/cli/fakes_lib.sh: shell helpers shared by the tests of the stand-ins
# under tests/fakes (test_fakes.sh, test_fakes_strict.sh, test_fakes_dynamo.sh,
# test_fakes_trtllm.sh).  Sourcing it
# makes a scratch directory $work and enters it; every PID a test appends to
# `pids` is killed, and $work removed, on exit.

fakes_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
cd "$work"

fail() {
	echo "FAIL: $*" >&2
	for f in "$work"/*.log; do
		[[ -f $f ]] || continue
		echo "--- $f" >&2
		tail -n 20 "$f" >&2
	done
	exit 1
}

alive() { # PID still running (not a zombie)?
	[[ -r /proc/$1/stat ]] || return 1
	local st
	st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
	[[ -n $st && $st != Z ]]
}

reap() { # PID SECONDS: RC=exit status of the child PID, or "timeout"
	local end=$((SECONDS + $2))
	RC=timeout
	while alive "$1"; do
		((SECONDS < end)) || return 0
		sleep 0.05
	done
	RC=0
	wait "$1" || RC=$?
}

expect_rc() { # WANT PID SECONDS WHAT
	reap "$2" "$3"
	[[ $RC == "$1" ]] || fail "$4: exit status $RC, expected $1"
}

net() { # freeports N | waitup PORT SECONDS | waitjson URL SECONDS PYEXPR(d): fakes_net.py
	python3 "$fakes_lib_dir/fakes_net.py" "$@"
}

start() { # LOG CMD...: start in the background, PID in SPID (killed on exit)
	local log=$1
	shift
	"$@" >"$log" 2>&1 &
	SPID=$!
	pids+=("$SPID")
}

# refused WANT_RC PATTERN WHAT -- CMD...: CMD exits WANT_RC with PATTERN on stderr
refused() {
	local want=$1 pat=$2 what=$3 rc=0
	shift 4
	timeout 30 "$@" >out 2>err || rc=$?
	[[ $rc == "$want" ]] || fail "$what: exit status $rc, expected $want: $(tail -n 3 err)"
	grep -qF -- "$pat" err || fail "$what: stderr lacks '$pat': $(tail -n 3 err)"
}

# accepted OUT WHAT -- CMD...: CMD (under FAKE_CHECK_ONLY) accepts, options in OUT
accepted() {
	local out=$1 what=$2 rc=0
	shift 3
	FAKE_CHECK_ONLY=1 timeout 30 "$@" >"$out" 2>err || rc=$?
	[[ $rc == 0 ]] || fail "$what: refused ($rc): $(tail -n 5 err)"
}

stop() { # PID WHAT: SIGTERM, exit 0
	kill -TERM "$1"
	expect_rc 0 "$1" 10 "$2 SIGTERM"
}

# The test's own h (its HTTP/check client) runs the check.
opts() { # FILE PYEXPR(o): assert on the printed options
	EXPR=$2 h py "
o, e = json.load(open('$1')), os.environ['EXPR']
assert eval(e), {k: o[k] for k in sorted(o) if \"'%s'\" % k in e}" ||
		fail "options of $1: $2"
}

# ---- Dynamo's discovery plane: the real etcd and nats-server ----

need_discovery_plane() { # ETCD and NATSD, or skip (77) when either is not installed
	ETCD=$(command -v etcd || echo /usr/bin/etcd)
	NATSD=$(command -v nats-server || echo /usr/sbin/nats-server)
	if [[ ! -x $ETCD || ! -x $NATSD ]]; then
		echo "skip: needs etcd ($ETCD) and nats-server ($NATSD)"
		exit 77
	fi
}

start_discovery_plane() { # etcd on EC, NATS on NP (127.0.0.1), both up; ETCD_PID, NATS_PID
	local ep
	read -r EC ep NP < <(net freeports 3)
	start etcd.log "$ETCD" --name t0 --data-dir "$work/etcd" \
		--listen-client-urls "http://127.0.0.1:$EC" --advertise-client-urls "http://127.0.0.1:$EC" \
		--listen-peer-urls "http://127.0.0.1:$ep" --initial-advertise-peer-urls "http://127.0.0.1:$ep" \
		--initial-cluster "t0=http://127.0.0.1:$ep"
	ETCD_PID=$SPID
	start nats.log "$NATSD" -a 127.0.0.1 -p "$NP" -js -sd "$work/nats"
	NATS_PID=$SPID
	net waitjson "http://127.0.0.1:$EC/health" 30 "d.get('health') == 'true'" ||
		fail "etcd never became healthy"
	net waitup "$NP" 30 || fail "nats-server never listened"
}

halt() { # PID WHAT: SIGTERM to a real server, which exits within 15 s (nats-server says 1)
	kill -TERM "$1"
	reap "$1" 15
	[[ $RC != timeout ]] || fail "$2 did not exit on SIGTERM"
}
