#!/usr/bin/env bash
# tests/cli/test_rundir_hostile.sh: a root controller creates run directories
# without following links (issue #12, item 1).  A symbolic link planted at the
# predictable run-directory path <log_root>/<recipe>-<gen>-<attempt> is
# refused: nothing is written into its target and the target is not chowned;
# the refusal is a RunDirFailed Warning and the run's message.  So is a
# directory there owned by another user, and a log root that others can write
# without the sticky bit.  A sticky shared log root works, and the new
# directory is handed to the job user (slurmrestd.user).
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
refused() { # case text
	sqlite3 "$DB" "SELECT message FROM events WHERE reason = 'RunDirFailed' AND type = 'Warning'" |
		grep -qF -- "$2" ||
		fail "$1: no RunDirFailed Warning with '$2': $(sqlite3 "$DB" "SELECT reason, message FROM events")"
	sqlite3 "$DB" "SELECT message FROM runs WHERE name = 'alpha-1-1'" | grep -qF -- "$2" ||
		fail "$1: the run's message does not say '$2'"
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
# Rendered again (a fresh database, same log root): a directory owned by the
# job user is accepted and written, and is not chowned again.
rm "$d/plan.json" "$d/job.sh"
chown root "$d/logs"
pass "$work/logs5"
[[ -f $d/plan.json && $(sqlite3 "$DB" "SELECT count(*) FROM events WHERE reason = 'RunDirFailed'") == 0 ]] ||
	fail "the job user's existing directory was not accepted: $(sqlite3 "$DB" "SELECT message FROM events WHERE reason = 'RunDirFailed'")"
[[ $(stat -c %u "$d/logs") == 0 ]] || fail "an existing logs/ was chowned again"
echo "test_rundir_hostile: ok"
