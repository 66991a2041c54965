# tests/cli/lib.sh: helpers shared by the CLI test scripts (sourced, not run).
#
#   fail MESSAGE      print FAIL: MESSAGE and stop the test (exit 1)
#   run CODE CMD...   run CMD with stdout in ./out and stderr in ./err; fail
#                     (showing both) unless it exits CODE

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

run() {
	local want=$1 rc=0
	shift
	"$@" >out 2>err || rc=$?
	if [[ $rc -ne $want ]]; then
		echo "--- stdout" >&2
		cat out >&2
		echo "--- stderr" >&2
		cat err >&2
		fail "'$*' exited $rc, expected $want"
	fi
}
