#!/usr/bin/env bash
# tests/cli/test_durations.sh: durations beyond the documented maximum (36500d,
# 100 years) are usage errors naming the flag and the value, never wrapped
# (issue #12, item 6: `events prune --older-than 213503982335d` wrapped to
# 9.6 h and deleted day-old events); an out-of-range slurm.time_limit fails the
# run with InvalidSpec instead of overflowing.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"

# fail, run, isolated_workdir, apply_pd, fake_run_dir
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
isolated_workdir
DB="$work/state/srtctl.db"

apply_pd "$DB"
# An event seen a day ago must survive any prune the user did not ask for.
sqlite3 "$DB" "UPDATE events SET first_at = first_at - 86400000, last_at = last_at - 86400000"
nevents=$(sqlite3 "$DB" "SELECT count(*) FROM events")
[[ $nevents -ge 1 ]] || fail "apply wrote no events"

long="longer than the longest duration srtctl accepts, 36500d (100 years)"
for v in 213503982335d 36501d 9223372036854775807ms 876001h 36500d1s; do
	run 2 "$SRTCTL" events prune --older-than "$v" --db "$DB"
	grep -qF -- "--older-than '$v' is $long" err || fail "prune --older-than $v: $(cat err)"
	SRTCTL_EVENT_RETENTION=$v run 2 "$SRTCTL" events prune --db "$DB"
	grep -qF -- "\$SRTCTL_EVENT_RETENTION '$v' is $long" err || fail "retention $v: $(cat err)"
	run 2 "$SRTCTL" events --since "$v" --db "$DB"
	grep -qF -- "--since '$v' is $long" err || fail "--since $v: $(cat err)"
	run 2 timeout 20 "$SRTCTL" wait recipe/alpha --timeout "$v" --db "$DB"
	grep -qF -- "--timeout '$v' is $long" err || fail "wait --timeout $v: $(cat err)"
	SRTCTL_WATCH_TIMEOUT=$v run 2 timeout 20 "$SRTCTL" get recipes --watch --db "$DB"
	grep -qF -- "\$SRTCTL_WATCH_TIMEOUT '$v' is $long" err || fail "watch timeout $v: $(cat err)"
	run 2 "$SRTCTL" controller --once --interval "$v" --db "$DB"
	grep -qF -- "--interval '$v' is $long" err || fail "--interval $v: $(cat err)"
done
[[ $(sqlite3 "$DB" "SELECT count(*) FROM events") -eq $nevents ]] ||
	fail "a refused prune deleted events"
# The maximum itself is fine (and deletes nothing a day old).
run 0 "$SRTCTL" events prune --older-than 36500d --db "$DB"
[[ $(sqlite3 "$DB" "SELECT count(*) FROM events") -eq $nevents ]] || fail "prune 36500d deleted events"
run 0 "$SRTCTL" events --since 36500d --db "$DB"

# slurm.time_limit beyond 100 years: the run fails with InvalidSpec naming it.
for tl in 99999999999999999999-00 36501-00:00:00 9223372036854775807; do
	cat >t.yaml <<YAML
name: tl
engine: sglang
slurm: {time_limit: "$tl"}
roles:
  prefill: {}
  decode: {}
YAML
	rm -f "$work/t.db"*
	run 0 "$SRTCTL" apply -f t.yaml --db "$work/t.db"
	rc=0
	"$SRTCTL" controller --once --url http://127.0.0.1:9 --db "$work/t.db" >ctl.log 2>&1 || rc=$?
	[[ $rc -eq 0 || $rc -eq 1 ]] || fail "controller with time_limit $tl exited $rc: $(cat ctl.log)"
	run 0 "$SRTCTL" events --for run/tl-1-1 --db "$work/t.db"
	grep -q "InvalidSpec" out || fail "time_limit $tl: no InvalidSpec: $(cat out) $(cat ctl.log)"
	grep -qF "slurm.time_limit '$tl' is longer than 100 years" out ||
		fail "time_limit $tl: $(cat out)"
done
echo "test_durations: ok"
