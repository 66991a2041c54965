#!/usr/bin/env bash
# tests/cli/test_rundir_hostile.sh: a root controller creates run directories
# without following links (issue #12, item 1).  A symbolic link planted at the
# predictable run-directory path <log_root>/<recipe>-<gen>-<attempt> is
# refused: nothing is written into its target and the target is not chowned;
# the refusal is a RunDirFailed Warning and the run's message.  So is a
# directory there owned by another user, and a log root that others can write
# without the sticky bit.  A sticky shared log root works, and the new
# directory is handed to the job user (slurmrestd.user).
#
# Modes (issue #12, item d): plan.json holds the recipe's env values, so the
# run directory and logs/ are 0700, plan.json 0600 and job.sh 0700, all the
# job user's: that user reads and writes them, another user cannot.  Every
# refusal is visible in `describe run` (item e), also when it happens while
# a new generation is rolled out into a running job.
set -euo pipefail

: "${SRTCTL:?set SRTCTL to the srtctl binary}"
: "${SRT_SOURCE_DIR:?set SRT_SOURCE_DIR to the source tree}"

[[ $(id -u) == 0 ]] || {
	echo "test_rundir_hostile: needs root (the controller's hand-over); skipped"
	exit 77
}
work=$(mktemp -d)
chmod 0755 "$work"
trap 'rm -rf "$work"' EXIT
cd "$work"
export XDG_STATE_HOME="$work/xdg"
unset SRTCTL_DB SRTCTL_WATCH_TIMEOUT SRTCTL_EVENT_RETENTION
URL=http://127.0.0.1:9 # nothing listens on the discard port
NOBODY=$(id -u nobody)

# fail, run
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# One case: a fresh database and log root ROOT (made by SETUP), one pass.
pass() { # root
	DB="$work/db-$RANDOM/srtctl.db"
	cat >srtslurm.yaml <<YAML
runtime:
  log_root: $1
slurmrestd:
  url: $URL
  user: nobody
YAML
	export SRTSLURM_CONFIG="$work/srtslurm.yaml"
	apply_pd "$DB"
	"$SRTCTL" controller --once --url "$URL" --db "$DB" >ctl.log 2>&1 || true
	RUN=$(sqlite3 "$DB" "SELECT name FROM runs LIMIT 1")
	[[ $RUN == alpha-1-1 ]] || fail "run is '$RUN', want alpha-1-1: $(cat ctl.log)"
}
# A RunDirFailed Warning says TEXT, and so does the run's message, in the
# database and in `describe run`.
run_dir_failed() { # case text
	sqlite3 "$DB" "SELECT message FROM events WHERE reason = 'RunDirFailed' AND type = 'Warning'" |
		grep -qF -- "$2" ||
		fail "$1: no RunDirFailed Warning with '$2': $(sqlite3 "$DB" "SELECT reason, message FROM events")"
	sqlite3 "$DB" "SELECT message FROM runs WHERE name = 'alpha-1-1'" | grep -qF -- "$2" ||
		fail "$1: the run's message does not say '$2'"
	"$SRTCTL" describe run alpha-1-1 --db "$DB" >describe.out 2>&1 ||
		fail "$1: describe run failed: $(cat describe.out)"
	grep -E '^Message: ' describe.out | grep -qF -- "$2" ||
		fail "$1: describe run does not show '$2': $(cat describe.out)"
}
refused() { # case text
	run_dir_failed "$1" "$2"
	[[ $(sqlite3 "$DB" "SELECT count(*) FROM events WHERE reason IN ('JobSubmitted', 'SubmitUnknown')") == 0 ]] ||
		fail "$1: the run was submitted anyway"
}

# A link planted at the run directory's path: not followed, target untouched.
mkdir -m 0755 logs1 victim
pass_root="$work/logs1"
ln -s "$work/victim" logs1/alpha-1-1
pass "$pass_root"
refused "planted link" "'$pass_root/alpha-1-1' exists and is not a directory (a symbolic link)"
[[ -z $(ls -A victim) ]] || fail "files were written into the link's target: $(ls -A victim)"
[[ $(stat -c %u victim) == 0 ]] || fail "the link's target was chowned to $(stat -c %u victim)"
[[ -L logs1/alpha-1-1 ]] || fail "the link was replaced"

# A directory there owned by another user: refused, nothing written into it.
mkdir -m 0755 logs2 logs2/alpha-1-1
chown 12345:12345 logs2/alpha-1-1
pass "$work/logs2"
refused "foreign directory" "'$work/logs2/alpha-1-1' exists but is owned by uid 12345"
[[ -z $(ls -A logs2/alpha-1-1) ]] || fail "files were written into another user's directory"

# A log root others can write, without the sticky bit: refused.
mkdir logs3
chmod 0777 logs3
pass "$work/logs3"
refused "world-writable root" "log root '$work/logs3' (mode 0777) can be written by other users and has no sticky bit"
[[ -z $(ls -A logs3) ]] || fail "a run directory was made in a world-writable log root"

# A log root that is itself a link: refused.
mkdir -m 0755 logs4real
ln -s logs4real logs4
pass "$work/logs4"
refused "link root" "log root '$work/logs4' is a symbolic link"

# A shared sticky log root works; the new directory and logs/ go to the job user.
mkdir logs5
chmod 1777 logs5
pass "$work/logs5"
[[ $(sqlite3 "$DB" "SELECT count(*) FROM events WHERE reason = 'RunDirFailed'") == 0 ]] ||
	fail "sticky root refused: $(sqlite3 "$DB" "SELECT message FROM events WHERE reason = 'RunDirFailed'")"
d="$work/logs5/alpha-1-1"
[[ -d $d && ! -L $d && -f $d/plan.json && -f $d/job.sh && -d $d/logs ]] || fail "run directory incomplete: $(ls -la "$d")"
[[ $(stat -c %u "$d") == "$NOBODY" && $(stat -c %u "$d/logs") == "$NOBODY" ]] ||
	fail "the run directory was not handed to nobody: $(stat -c %u "$d") $(stat -c %u "$d/logs")"
# Least exposure: only the job user (and root) can read the plan's env values.
modes=$(stat -c '%n %a %u' "$d" "$d/logs" "$d/plan.json" "$d/job.sh" | sed "s|$d|D|")
want="D 700 $NOBODY
D/logs 700 $NOBODY
D/plan.json 600 $NOBODY
D/job.sh 700 $NOBODY"
[[ $modes == "$want" ]] || fail "run directory modes and owners: $modes, want $want"
# The job user (the agent) reads the plan and writes its files there.
setpriv --reuid="$NOBODY" --regid="$(id -g nobody)" --clear-groups \
	sh -c "cat '$d/plan.json' >/dev/null && echo '{}' >'$d/status.json' && : >'$d/logs/x.out'" ||
	fail "the job user cannot read plan.json or write into the run directory"
rm "$d/status.json" "$d/logs/x.out"
# Another user cannot read it.
if setpriv --reuid=12345 --regid=12345 --clear-groups cat "$d/plan.json" >/dev/null 2>&1; then
	fail "another user can read plan.json"
fi
# Rendered again (a fresh database, same log root): a directory owned by the
# job user is accepted and written, and is not chowned again.
rm "$d/plan.json" "$d/job.sh"
chown root "$d/logs"
pass "$work/logs5"
[[ -f $d/plan.json && $(sqlite3 "$DB" "SELECT count(*) FROM events WHERE reason = 'RunDirFailed'") == 0 ]] ||
	fail "the job user's existing directory was not accepted: $(sqlite3 "$DB" "SELECT message FROM events WHERE reason = 'RunDirFailed'")"
[[ $(stat -c %u "$d/logs") == 0 ]] || fail "an existing logs/ was chowned again"
[[ $(stat -c '%a %u' "$d/plan.json") == "600 $NOBODY" ]] ||
	fail "plan.json written again is $(stat -c '%a %u' "$d/plan.json"), want 600 $NOBODY"

# A new generation for the running job (slurmrestd unreachable: a rollout
# goes ahead) writes plan.json in place, for the job user, 0600.
sqlite3 "$DB" "UPDATE runs SET slurm_job_id = 4242, phase = 'Ready' WHERE name = 'alpha-1-1'"
sed -i 's/decode: {}/decode: {env: {SECRET_TOKEN: s3cret}}/' r.yaml
run 0 "$SRTCTL" apply -f r.yaml --db "$DB"
"$SRTCTL" controller --once --url "$URL" --db "$DB" >ctl.log 2>&1 || true
[[ $(sqlite3 "$DB" "SELECT count(*) FROM events WHERE reason = 'RollingOut'") == 1 ]] ||
	fail "generation 2 was not rolled out: $(sqlite3 "$DB" "SELECT reason, message FROM events") $(cat ctl.log)"
grep -q s3cret "$d/plan.json" || fail "plan.json does not hold generation 2"
[[ $(stat -c '%a %u' "$d/plan.json") == "600 $NOBODY" ]] ||
	fail "plan.json rolled out is $(stat -c '%a %u' "$d/plan.json"), want 600 $NOBODY"
# The same while the directory is another user's: refused, a RunDirFailed
# Warning and the run's message, nothing written into it.
chown 12345 "$d"
sed -i 's/s3cret/s3cret2/' r.yaml
run 0 "$SRTCTL" apply -f r.yaml --db "$DB"
"$SRTCTL" controller --once --url "$URL" --db "$DB" >ctl.log 2>&1 || true
run_dir_failed "rollout into a foreign directory" "'$d' exists but is owned by uid 12345"
run_dir_failed "rollout into a foreign directory" "generation 3 is not rolled out until it can be"
! grep -q s3cret2 "$d/plan.json" || fail "plan.json was written into another user's directory"
echo "test_rundir_hostile: ok"
