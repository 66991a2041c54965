/*
 * runplan/rundir.c: reading and writing the run directory's files.
 *
 * This file owns the byte format of plan.json's generation, status.json and
 * events.jsonl (see runplan/rundir.h), the atomic replace used for every
 * whole-file write, and the append-only event log with its sequence
 * numbers.  Both the agent (writer) and the controller (reader) link it.
 */
#include "runplan/rundir.h"
#include "util/strutil.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/fdio.h"
#include "util/sha256.h"

/* ---- files ---- */

static int mkdir_p(const char *dir, unsigned mode, struct srt_error *err);

/* fsync the directory holding path, so a rename or a new entry is durable. */
static void sync_parent(const char *path)
{
	char *copy = srt_xstrdup(path);
	int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(copy);
}

int srt_rundir_write_file_at(int dirfd, const char *dir, const char *name, const void *data,
			     size_t len, unsigned mode, long uid, long gid, struct srt_error *err)
{
	char *tmp = srt_xasprintf("%s.tmp.%ld", name, (long)getpid());
	int fd = -1, rc = -1;

	/*
	 * O_EXCL|O_NOFOLLOW: never open what someone else put at the temporary
	 * name (a link to /etc/shadow).  A leftover there (ours from a crash, or
	 * planted) is unlinked, which removes a link itself, not its target.
	 */
	for (int tries = 0; tries < 2; tries++) {
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    (mode_t)mode);
		if (fd >= 0 || errno != EEXIST || unlinkat(dirfd, tmp, 0) != 0)
			break;
	}
	if (fd < 0) {
		srt_error_set(err,
			      "cannot create '%s/%s': %s; check that the directory exists and is "
			      "writable",
			      dir, tmp, strerror(errno));
		goto out;
	}
	/* Given away through our own fd, before the file is visible under `name`. */
	if (uid >= 0 && fchown(fd, (uid_t)uid, (gid_t)gid) < 0) {
		srt_error_set(err, "cannot give '%s/%s' to uid %ld: %s", dir, tmp, uid,
			      strerror(errno));
		goto out;
	}
	if (srt_write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		srt_error_set(err, "cannot write '%s/%s': %s; check free space and quota", dir, tmp,
			      strerror(errno));
		goto out;
	}
	if (close(fd) < 0) {
		fd = -1;
		srt_error_set(err, "cannot write '%s/%s': %s; check free space and quota", dir, tmp,
			      strerror(errno));
		goto out;
	}
	fd = -1;
	/* rename replaces the name: a link planted at `name` is replaced, not followed. */
	if (renameat(dirfd, tmp, dirfd, name) < 0) {
		srt_error_set(err, "cannot rename '%s/%s' to '%s/%s': %s", dir, tmp, dir, name,
			      strerror(errno));
		goto out;
	}
	(void)fsync(dirfd);
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (rc < 0)
		(void)unlinkat(dirfd, tmp, 0);
	free(tmp);
	return rc;
}

int srt_rundir_write_file(const char *path, const void *data, size_t len, unsigned mode,
			  struct srt_error *err)
{
	char *copy = srt_xstrdup(path), *copy2 = srt_xstrdup(path);
	const char *dir = dirname(copy), *name = basename(copy2);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (dfd < 0) {
		rc = srt_error_set(err,
				   "cannot open directory '%s': %s; check that it exists and is "
				   "writable",
				   dir, strerror(errno));
	} else {
		rc = srt_rundir_write_file_at(dfd, dir, name, data, len, mode, -1, -1, err);
		close(dfd);
	}
	free(copy);
	free(copy2);
	return rc;
}

/* Who may own an existing run directory: this process, or the job's user. */
static bool owner_ok(const struct stat *sb, long job_uid)
{
	return sb->st_uid == geteuid() || (job_uid >= 0 && sb->st_uid == (uid_t)job_uid);
}

/*
 * mkdirat + openat(O_NOFOLLOW|O_DIRECTORY) of `name` in dirfd: *created says
 * whether this call made it.  An existing entry must be a real directory
 * owned by this process or the job's user.  Returns the fd or -1.
 */
static int make_dir_at(int dirfd, const char *shown, const char *name, long job_uid, bool *created,
		       struct srt_error *err)
{
	struct stat sb;
	int fd;

	*created = mkdirat(dirfd, name, SRT_RUNDIR_DIR_MODE) == 0;
	if (!*created && errno != EEXIST) {
		srt_error_set(err, "cannot create directory '%s': %s", shown, strerror(errno));
		return -1;
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP || errno == ENOTDIR)
			srt_error_set(
				err,
				"'%s' exists and is not a directory (%s); srtctl does not "
				"follow or reuse it: remove it, or check who planted it there",
				shown,
				fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
						!S_ISLNK(sb.st_mode) ?
					(S_ISREG(sb.st_mode) ? "a file" :
							       srt_file_kind(sb.st_mode)) :
					"a symbolic link");
		else
			srt_error_set(err, "cannot open directory '%s': %s", shown,
				      strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) < 0 || !S_ISDIR(sb.st_mode) || !owner_ok(&sb, job_uid)) {
		srt_error_set(err,
			      "'%s' exists but is owned by uid %ld, neither srtctl's (uid %ld) nor "
			      "the job user's; srtctl does not write into it: remove it",
			      shown, (long)sb.st_uid, (long)geteuid());
		close(fd);
		return -1;
	}
	return fd;
}

int srt_rundir_open_root(const char *root, struct srt_error *err)
{
	struct stat sb;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT) {
		if (mkdir_p(root, 0755, err) != 0)
			return -1;
		fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		int e = errno;

		if (e == ELOOP || e == ENOTDIR)
			srt_error_set(
				err,
				"log root '%s' is %s; set runtime.log_root in srtslurm.yaml to "
				"a real directory (the link's target, for one)",
				root,
				e == ELOOP || (lstat(root, &sb) == 0 && S_ISLNK(sb.st_mode)) ?
					"a symbolic link" :
					"not a directory");
		else
			srt_error_set(err, "cannot open the log root '%s': %s", root, strerror(e));
		return -1;
	}
	if (fstat(fd, &sb) < 0) {
		srt_error_set(err, "cannot stat the log root '%s': %s", root, strerror(errno));
		close(fd);
		return -1;
	}
	if (sb.st_uid != geteuid() && sb.st_uid != 0) {
		srt_error_set(err,
			      "log root '%s' is owned by uid %ld, neither srtctl's (uid %ld) nor "
			      "root's; its owner could swap run directories: chown it to uid %ld",
			      root, (long)sb.st_uid, (long)geteuid(), (long)geteuid());
		close(fd);
		return -1;
	}
	if ((sb.st_mode & 0022) && !(sb.st_mode & S_ISVTX)) {
		srt_error_set(err,
			      "log root '%s' (mode %04o) can be written by other users and has no "
			      "sticky bit, so they could put a link where a run directory goes: "
			      "chmod go-w '%s' (or chmod +t for a shared directory)",
			      root, (unsigned)(sb.st_mode & 07777), root);
		close(fd);
		return -1;
	}
	return fd;
}

int srt_rundir_create_at(const char *root, const char *name, long job_uid, long job_gid, int *dirfd,
			 struct srt_error *err)
{
	char *shown = srt_xasprintf("%s/%s", root, name);
	char *logs_shown = srt_xasprintf("%s/%s/" SRT_RUNDIR_LOGS, root, name);
	int rfd = -1, dfd = -1, lfd = -1, rc = -1;
	bool created = false, logs_created = false;

	*dirfd = -1;
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
		srt_error_set(err, "run name '%s' is not a plain directory name", name);
		goto out;
	}
	rfd = srt_rundir_open_root(root, err);
	if (rfd < 0)
		goto out;
	dfd = make_dir_at(rfd, shown, name, job_uid, &created, err);
	if (dfd < 0)
		goto out;
	lfd = make_dir_at(dfd, logs_shown, SRT_RUNDIR_LOGS, job_uid, &logs_created, err);
	if (lfd < 0)
		goto out;
	/* Hand over only what this call created, through its own fd. */
	if (job_uid >= 0 && ((created && fchown(dfd, (uid_t)job_uid, (gid_t)job_gid) != 0) ||
			     (logs_created && fchown(lfd, (uid_t)job_uid, (gid_t)job_gid) != 0))) {
		srt_error_set(err, "cannot give '%s' to uid %ld: %s", shown, job_uid,
			      strerror(errno));
		goto out;
	}
	if (created)
		(void)fsync(rfd);
	*dirfd = dfd;
	dfd = -1;
	rc = 0;
out:
	if (lfd >= 0)
		close(lfd);
	if (dfd >= 0)
		close(dfd);
	if (rfd >= 0)
		close(rfd);
	free(shown);
	free(logs_shown);
	return rc;
}

/*
 * One step of mkdir_p(): make `name` in dirfd when missing and open it.  A
 * symbolic link there is followed only when root or this process's user
 * owns it (an administrator's /scratch -> /lustre/scratch); a link anybody
 * else owns could point anywhere, so it is refused.  Returns the fd or -1.
 */
static int mkdir_step(int dirfd, const char *shown, const char *name, unsigned mode,
		      struct srt_error *err)
{
	struct stat sb;
	int fd;

	if (mkdirat(dirfd, name, (mode_t)mode) < 0 && errno != EEXIST) {
		srt_error_set(err, "cannot create directory '%s': %s", shown, strerror(errno));
		return -1;
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR) &&
	    fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode)) {
		if (sb.st_uid != 0 && sb.st_uid != geteuid()) {
			srt_error_set(
				err,
				"'%s' is a symbolic link owned by uid %ld, neither root nor "
				"srtctl's uid %ld; srtctl does not follow it to create "
				"directories: create the directory yourself, or remove the link",
				shown, (long)sb.st_uid, (long)geteuid());
			return -1;
		}
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd < 0)
		srt_error_set(err, "cannot open directory '%s': %s", shown, strerror(errno));
	return fd;
}

/*
 * mkdir -p, one component at a time from "/" (or the working directory) with
 * mkdirat + openat(O_NOFOLLOW|O_DIRECTORY) (see mkdir_step()), so a link
 * planted in a parent component does not redirect what is created.  What is
 * made gets `mode`.
 */
static int mkdir_p(const char *dir, unsigned mode, struct srt_error *err)
{
	char *p = srt_xstrdup(dir);
	int fd = open(*dir == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

	if (fd < 0) {
		rc = srt_error_set(err, "cannot open the directory '%s' starts from: %s", dir,
				   strerror(errno));
		goto out;
	}
	for (char *q = p; *q && rc == 0;) {
		char *end = strchr(q, '/');

		if (end)
			*end = '\0';
		if (*q) {
			char *shown = srt_xstrndup(dir, (size_t)(q - p) + strlen(q));
			int next = mkdir_step(fd, shown, q, mode, err);

			free(shown);
			close(fd);
			fd = next;
			if (fd < 0)
				rc = -1;
		}
		if (!end)
			break;
		q = end + 1;
	}
out:
	if (fd >= 0)
		close(fd);
	free(p);
	return rc;
}

int srt_rundir_create(const char *dir, struct srt_error *err)
{
	char *logs = srt_xasprintf("%s/" SRT_RUNDIR_LOGS, dir);
	int rc = mkdir_p(logs, SRT_RUNDIR_DIR_MODE, err);

	free(logs);
	return rc;
}

static char *join(const char *dir, const char *name)
{
	return srt_xasprintf("%s/%s", dir, name);
}

/*
 * Open `path` for reading only when it is a regular file: O_NOFOLLOW (a
 * symbolic link is refused, not followed to /dev/zero), O_NONBLOCK (opening a
 * FIFO does not wait for a writer), then fstat.  The job's user owns the run
 * directory, so these files are not trusted.  `name` is opened in dirfd
 * (AT_FDCWD: a path); `path` names it in messages.  Returns the fd (blocking
 * again), -2 when the file does not exist, -1 with err set.
 */
static int open_regular(int dirfd, const char *name, const char *path, struct stat *sb,
			struct srt_error *err)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), fl;

	if (fd < 0) {
		if (errno == ENOENT)
			return -2;
		if (errno == ELOOP)
			srt_error_set(err,
				      "'%s' is a symbolic link; srtctl reads only a regular file "
				      "there: remove the link (srtctl writes that file itself)",
				      path);
		else
			srt_error_set(err, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, sb) < 0 || !S_ISREG(sb->st_mode)) {
		srt_error_set(err,
			      "'%s' is %s; srtctl reads only a regular file there: remove it "
			      "(srtctl writes that file itself)",
			      path, srt_file_kind(sb->st_mode));
		close(fd);
		return -1;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

/*
 * Read a whole regular file `name` in dirfd (named `path` in messages) of at
 * most `max` bytes.  Returns 0, 1 when it does not exist, -1 on error (a
 * link, a device, a FIFO, a file larger than max: err names the file and the
 * limit).
 */
static int slurp_at(int dirfd, const char *name, const char *path, size_t max, struct srt_buf *out,
		    struct srt_error *err)
{
	struct stat sb;
	int fd = open_regular(dirfd, name, path, &sb, err);
	char chunk[65536];

	if (fd == -2)
		return 1;
	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return srt_error_set(err, "cannot read '%s': %s", path, strerror(errno));
		}
		if (!n)
			break;
		if (out->len + (size_t)n > max) {
			close(fd);
			return srt_error_set(err,
					     "'%s' is larger than %zu KiB, the most srtctl reads "
					     "of it; it is not read (remove or truncate it)",
					     path, max / 1024);
		}
		srt_buf_append(out, chunk, (size_t)n);
	}
	close(fd);
	return 0;
}

int srt_rundir_read_file(const char *path, size_t max, struct srt_buf *out, struct srt_error *err)
{
	return slurp_at(AT_FDCWD, path, path, max, out, err);
}

/* ---- plan.json ---- */

/* plan.json's bytes: plan with "generation"; NULL after setting err. */
static char *plan_text(const char *dir, const json_t *plan, int64_t generation,
		       struct srt_error *err)
{
	json_t *copy;
	char *text;
	size_t len;

	if (!json_is_object(plan)) {
		srt_error_set(err, "plan for '%s' is not a JSON object", dir);
		return NULL;
	}
	if (generation < 1) {
		srt_error_set(err, "plan generation %lld for '%s' must be at least 1",
			      (long long)generation, dir);
		return NULL;
	}
	copy = json_copy((json_t *)plan);
	json_object_set_new(copy, "generation", json_integer(generation));
	text = json_dumps(copy, JSON_INDENT(1));
	json_decref(copy);
	if (!text) {
		srt_error_set(err, "cannot serialise the plan for '%s'", dir);
		return NULL;
	}
	len = strlen(text);
	text = srt_xrealloc(text, len + 2);
	text[len] = '\n';
	text[len + 1] = '\0';
	return text;
}

int srt_rundir_write_plan(const char *dir, const json_t *plan, int64_t generation,
			  struct srt_error *err)
{
	char *text = plan_text(dir, plan, generation, err), *path = join(dir, SRT_RUNDIR_PLAN);
	int rc = text ? srt_rundir_write_file(path, text, strlen(text), SRT_RUNDIR_FILE_MODE, err) :
			-1;

	free(text);
	free(path);
	return rc;
}

int srt_rundir_write_plan_at(int dirfd, const char *dir, const json_t *plan, int64_t generation,
			     long uid, long gid, struct srt_error *err)
{
	char *text = plan_text(dir, plan, generation, err);
	int rc = text ? srt_rundir_write_file_at(dirfd, dir, SRT_RUNDIR_PLAN, text, strlen(text),
						 SRT_RUNDIR_FILE_MODE, uid, gid, err) :
			-1;

	free(text);
	return rc;
}

/* The checks of a plan read from `path` (j, or NULL with je saying why); takes j. */
static int plan_check(const char *path, json_t *j, const json_error_t *je, json_t **plan,
		      int64_t *generation, struct srt_error *err)
{
	json_t *v;

	if (!j)
		return je->line > 0 ?
			       srt_error_set(err,
					     "cannot read the plan '%s': %s (line %d); the "
					     "controller writes it in srtctl's plan format (srtctl "
					     "dry-run -o json shows one under \"plan\")",
					     path, je->text, je->line) :
			       srt_error_set(err,
					     "cannot read the plan '%s': %s; the controller writes "
					     "it before it submits the job (or pass --plan FILE)",
					     path, je->text);
	if (!json_is_object(j)) {
		json_decref(j);
		return srt_error_set(err, "plan '%s' is not a JSON object", path);
	}
	v = json_object_get(j, "version");
	if (!json_is_integer(v) || json_integer_value(v) != 1) {
		srt_error_set(err,
			      "plan '%s' has version %s; this srtctl reads version 1 (agent and "
			      "controller must be the same srtctl release)",
			      path, json_is_integer(v) ? "other than 1" : "missing");
		json_decref(j);
		return -1;
	}
	v = json_object_get(j, "generation");
	if (json_is_integer(v))
		*generation = json_integer_value(v);
	*plan = j;
	return 0;
}

int srt_rundir_read_plan_file(const char *path, json_t **plan, int64_t *generation,
			      struct srt_error *err)
{
	json_error_t je;
	json_t *j;

	*plan = NULL;
	*generation = 0;
	j = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	return plan_check(path, j, &je, plan, generation, err);
}

int srt_rundir_read_plan_at(int dirfd, const char *dir, json_t **plan, int64_t *generation,
			    struct srt_error *err)
{
	char *path = join(dir, SRT_RUNDIR_PLAN);
	struct srt_buf b;
	json_error_t je;
	int rc;

	*plan = NULL;
	*generation = 0;
	srt_buf_init(&b);
	rc = slurp_at(dirfd, SRT_RUNDIR_PLAN, path, SRT_RUNDIR_PLAN_MAX, &b, err);
	if (rc == 1)
		rc = srt_error_set(err, "'%s' does not exist", path);
	if (rc == 0)
		rc = plan_check(
			path, json_loadb(b.data ? b.data : "", b.len, JSON_REJECT_DUPLICATES, &je),
			&je, plan, generation, err);
	srt_buf_release(&b);
	free(path);
	return rc;
}

/* ---- names ---- */

static const char *const phase_names[] = { "Starting", "Ready",	    "Failed",  "Stopping",
					   "Stopped",  "Succeeded", "Degraded" };
static const char *const state_names[] = { "Pending", "Starting",  "Running",
					   "Ready",   "Unhealthy", "CrashLoopBackOff",
					   "Failed",  "Exited",	   "Stopped" };

const char *srt_run_phase_name(enum srt_run_phase p)
{
	return (size_t)p < sizeof(phase_names) / sizeof(phase_names[0]) ? phase_names[p] : "?";
}

int srt_run_phase_parse(const char *name, enum srt_run_phase *p)
{
	for (size_t i = 0; name && i < sizeof(phase_names) / sizeof(phase_names[0]); i++) {
		if (!strcmp(name, phase_names[i])) {
			*p = (enum srt_run_phase)i;
			return 0;
		}
	}
	return -1;
}

bool srt_run_phase_final(enum srt_run_phase p)
{
	return p == SRT_RUN_FAILED || p == SRT_RUN_STOPPED || p == SRT_RUN_SUCCEEDED;
}

const char *srt_proc_state_name(enum srt_proc_state s)
{
	return (size_t)s < sizeof(state_names) / sizeof(state_names[0]) ? state_names[s] : "?";
}

int srt_proc_state_parse(const char *name, enum srt_proc_state *s)
{
	for (size_t i = 0; name && i < sizeof(state_names) / sizeof(state_names[0]); i++) {
		if (!strcmp(name, state_names[i])) {
			*s = (enum srt_proc_state)i;
			return 0;
		}
	}
	return -1;
}

/* ---- status.json ---- */

/* Length of the valid UTF-8 sequence at p (1-4), or 0 when invalid. */
static size_t utf8_len(const unsigned char *p)
{
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if (n == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0)))
		return 0;
	if (n == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90)))
		return 0;
	return n;
}

/*
 * A JSON string of s.  Messages carry log tails, which may hold bytes that
 * are not UTF-8 (jansson refuses those): each such byte becomes '?'.
 */
static json_t *text_json(const char *s)
{
	struct srt_buf b;
	json_t *j;

	if (!s)
		return json_string("");
	j = json_string(s);
	if (j)
		return j;
	srt_buf_init(&b);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8_len(p);

		if (n) {
			srt_buf_append(&b, (const char *)p, n);
			p += n;
		} else {
			srt_buf_putc(&b, '?');
			p++;
		}
	}
	j = json_string(b.data);
	srt_buf_release(&b);
	return j ? j : json_string("");
}

static json_t *str_or_null(const char *s)
{
	return s ? text_json(s) : json_null();
}

static json_t *int_or_null(long long v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

static json_t *proc_to_json(const struct srt_rundir_proc *p)
{
	json_t *o = json_object();

	json_object_set_new(o, "name", str_or_null(p->name));
	json_object_set_new(o, "kind", str_or_null(p->kind));
	json_object_set_new(o, "role", str_or_null(p->role));
	json_object_set_new(o, "index", int_or_null(p->index));
	json_object_set_new(o, "service", str_or_null(p->service));
	json_object_set_new(o, "type", str_or_null(p->type));
	json_object_set_new(o, "node", int_or_null(p->node));
	json_object_set_new(o, "host", str_or_null(p->host));
	json_object_set_new(o, "ip", str_or_null(p->ip));
	json_object_set_new(o, "state", json_string(srt_proc_state_name(p->state)));
	json_object_set_new(o, "restarts", json_integer(p->restarts));
	json_object_set_new(o, "pid", p->pid > 0 ? json_integer(p->pid) : json_null());
	json_object_set_new(o, "started_at", json_integer(p->started_at));
	json_object_set_new(o, "ready_at", json_integer(p->ready_at));
	json_object_set_new(o, "exit_code", int_or_null(p->exit_code));
	json_object_set_new(o, "endpoint", str_or_null(p->endpoint));
	json_object_set_new(o, "env_hash", str_or_null(p->env_hash));
	json_object_set_new(o, "last_probe", str_or_null(p->last_probe));
	json_object_set_new(o, "message", text_json(p->message));
	json_object_set_new(o, "critical", json_boolean(p->critical));
	json_object_set_new(o, "external", json_boolean(p->external));
	return o;
}

json_t *srt_rundir_status_to_json(const struct srt_rundir_status *st)
{
	json_t *o = json_object(), *agent = json_object(), *nodes = json_array(),
	       *procs = json_array(), *conds = json_array();

	json_object_set_new(o, "version", json_integer(SRT_RUNDIR_VERSION));
	json_object_set_new(o, "seq", json_integer(st->seq));
	json_object_set_new(o, "plan_generation", json_integer(st->plan_generation));
	json_object_set_new(o, "phase", json_string(srt_run_phase_name(st->phase)));
	json_object_set_new(o, "message", text_json(st->message));
	json_object_set_new(o, "exit_code", int_or_null(st->exit_code));
	json_object_set_new(o, "job_id", str_or_null(st->job_id));
	json_object_set_new(agent, "host", str_or_null(st->agent_host));
	json_object_set_new(agent, "pid", json_integer(st->agent_pid));
	json_object_set_new(agent, "started_at", json_integer(st->agent_started_at));
	json_object_set_new(o, "agent", agent);
	for (size_t i = 0; i < st->nnodes; i++)
		json_array_append_new(nodes,
				      json_pack("{s:o,s:o}", "host", str_or_null(st->nodes[i].host),
						"ip", str_or_null(st->nodes[i].ip)));
	json_object_set_new(o, "nodes", nodes);
	json_object_set_new(o, "infra_ip", str_or_null(st->infra_ip));
	json_object_set_new(o, "frontend_url", str_or_null(st->frontend_url));
	for (size_t i = 0; i < st->nprocs; i++)
		json_array_append_new(procs, proc_to_json(&st->procs[i]));
	json_object_set_new(o, "processes", procs);
	for (size_t i = 0; i < st->nconditions; i++) {
		const struct srt_rundir_condition *c = &st->conditions[i];

		json_array_append_new(conds,
				      json_pack("{s:o,s:s,s:o,s:I,s:I,s:o,s:I}", "type",
						str_or_null(c->type), "status", "True", "reason",
						str_or_null(c->reason), "generation",
						(json_int_t)c->generation, "rolled_back_to",
						(json_int_t)c->rolled_back_to, "message",
						text_json(c->message ? c->message : ""), "since",
						(json_int_t)c->since));
	}
	json_object_set_new(o, "conditions", conds);
	json_object_set_new(o, "updated_at", json_integer(st->updated_at));
	return o;
}

int srt_rundir_write_status(const char *dir, const struct srt_rundir_status *st,
			    struct srt_error *err)
{
	json_t *j = srt_rundir_status_to_json(st);
	char *text = json_dumps(j, JSON_INDENT(1));
	char *path = join(dir, SRT_RUNDIR_STATUS);
	struct srt_buf b;
	int rc;

	srt_buf_init(&b);
	srt_buf_puts(&b, text ? text : "{}");
	srt_buf_putc(&b, '\n');
	rc = srt_rundir_write_file(path, b.data, b.len, SRT_RUNDIR_FILE_MODE, err);
	srt_buf_release(&b);
	free(text);
	free(path);
	json_decref(j);
	return rc;
}

static const char *get_str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static long long get_int(const json_t *o, const char *key, long long dflt)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? json_integer_value(v) : dflt;
}

static int parse_proc(const json_t *o, struct srt_rundir_proc *p)
{
	if (!json_is_object(o) || !get_str(o, "name"))
		return -1;
	p->name = get_str(o, "name");
	p->kind = get_str(o, "kind");
	p->role = get_str(o, "role");
	p->index = (int)get_int(o, "index", -1);
	p->service = get_str(o, "service");
	p->type = get_str(o, "type");
	p->node = (int)get_int(o, "node", -1);
	p->host = get_str(o, "host");
	p->ip = get_str(o, "ip");
	if (srt_proc_state_parse(get_str(o, "state"), &p->state) < 0)
		return -1;
	/* A bounded count, not whatever 64-bit value the file holds. */
	if (get_int(o, "restarts", 0) < 0 || get_int(o, "restarts", 0) > INT_MAX)
		return -1;
	p->restarts = (int)get_int(o, "restarts", 0);
	p->pid = (long)get_int(o, "pid", -1);
	p->started_at = get_int(o, "started_at", 0);
	p->ready_at = get_int(o, "ready_at", 0);
	p->exit_code = (int)get_int(o, "exit_code", -1);
	p->endpoint = get_str(o, "endpoint");
	p->env_hash = get_str(o, "env_hash");
	p->last_probe = get_str(o, "last_probe");
	p->message = get_str(o, "message");
	p->critical = json_is_true(json_object_get(o, "critical"));
	p->external = json_is_true(json_object_get(o, "external"));
	return 0;
}

int srt_rundir_read_status(const char *dir, struct srt_rundir_status *st, struct srt_error *err)
{
	char *path = join(dir, SRT_RUNDIR_STATUS);
	json_error_t je;
	json_t *j = NULL, *nodes, *procs, *agent, *conds;
	struct srt_buf b;
	int rc;

	memset(st, 0, sizeof(*st));
	st->exit_code = -1;
	srt_buf_init(&b);
	rc = srt_rundir_read_file(path, SRT_RUNDIR_STATUS_MAX, &b, err);
	if (rc)
		goto out;
	rc = -1;
	j = json_loadb(b.data, b.len, JSON_REJECT_DUPLICATES, &je);
	if (!json_is_object(j)) {
		srt_error_set(err, "'%s' is not valid status JSON (%s, line %d)", path,
			      j ? "not an object" : je.text, je.line);
		goto out;
	}
	st->version = (int)get_int(j, "version", 0);
	if (st->version != SRT_RUNDIR_VERSION) {
		srt_error_set(err,
			      "'%s' has status version %d; this srtctl reads version %d (agent and "
			      "controller must be the same srtctl release)",
			      path, st->version, SRT_RUNDIR_VERSION);
		goto out;
	}
	st->seq = get_int(j, "seq", -1);
	if (st->seq < 0 || srt_run_phase_parse(get_str(j, "phase"), &st->phase) < 0) {
		srt_error_set(err, "'%s' lacks a valid seq or phase", path);
		goto out;
	}
	st->plan_generation = get_int(j, "plan_generation", 0);
	st->message = get_str(j, "message");
	st->exit_code = (int)get_int(j, "exit_code", -1);
	st->job_id = get_str(j, "job_id");
	agent = json_object_get(j, "agent");
	st->agent_host = get_str(agent, "host");
	st->agent_pid = (long)get_int(agent, "pid", 0);
	st->agent_started_at = get_int(agent, "started_at", 0);
	st->infra_ip = get_str(j, "infra_ip");
	st->frontend_url = get_str(j, "frontend_url"); /* absent (older agents): NULL */
	st->updated_at = get_int(j, "updated_at", 0);
	nodes = json_object_get(j, "nodes");
	procs = json_object_get(j, "processes");
	st->nnodes = json_array_size(nodes);
	st->nodes = srt_xcalloc(st->nnodes + 1, sizeof(*st->nodes));
	for (size_t i = 0; i < st->nnodes; i++) {
		st->nodes[i].host = get_str(json_array_get(nodes, i), "host");
		st->nodes[i].ip = get_str(json_array_get(nodes, i), "ip");
	}
	st->nprocs = json_array_size(procs);
	st->procs = srt_xcalloc(st->nprocs + 1, sizeof(*st->procs));
	for (size_t i = 0; i < st->nprocs; i++) {
		if (parse_proc(json_array_get(procs, i), &st->procs[i]) < 0) {
			srt_error_set(err,
				      "'%s': processes[%zu] lacks a name, a valid state or a "
				      "restarts count from 0 to %d",
				      path, i, INT_MAX);
			goto out;
		}
	}
	conds = json_object_get(j, "conditions");
	st->nconditions = json_array_size(conds);
	st->conditions = srt_xcalloc(st->nconditions + 1, sizeof(*st->conditions));
	for (size_t i = 0; i < st->nconditions; i++) {
		const json_t *c = json_array_get(conds, i);
		struct srt_rundir_condition *q = &st->conditions[i];

		q->type = get_str(c, "type");
		if (!q->type) {
			srt_error_set(err, "'%s': conditions[%zu] lacks a type", path, i);
			goto out;
		}
		q->reason = get_str(c, "reason");
		q->generation = get_int(c, "generation", 0);
		q->rolled_back_to = get_int(c, "rolled_back_to", 0);
		q->message = get_str(c, "message");
		q->since = get_int(c, "since", 0);
	}
	st->root = j;
	j = NULL;
	rc = 0;
out:
	if (rc < 0) {
		free(st->nodes);
		free(st->procs);
		free(st->conditions);
		memset(st, 0, sizeof(*st));
		st->exit_code = -1;
	}
	json_decref(j);
	srt_buf_release(&b);
	free(path);
	return rc;
}

void srt_rundir_status_release(struct srt_rundir_status *st)
{
	if (!st)
		return;
	free(st->nodes);
	free(st->procs);
	free(st->conditions);
	json_decref(st->root);
	memset(st, 0, sizeof(*st));
}

bool srt_rundir_frontend_url_ok(const char *s)
{
	static const char scheme[] = "http://";
	const char *h, *colon;
	size_t n;
	long port = 0;

	if (!s || strnlen(s, SRT_RUNDIR_URL_MAX + 1) > SRT_RUNDIR_URL_MAX ||
	    strncmp(s, scheme, sizeof(scheme) - 1))
		return false;
	h = s + sizeof(scheme) - 1;
	if (*h == '[') {
		n = strspn(h + 1, "0123456789abcdefABCDEF:.");
		if (!n || h[1 + n] != ']')
			return false;
		colon = h + n + 2;
	} else {
		n = strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_");
		if (!n)
			return false;
		colon = h + n;
	}
	if (*colon != ':')
		return false;
	n = strspn(colon + 1, "0123456789");
	if (!n || n > 5 || colon[1] == '0' || colon[1 + n])
		return false;
	for (size_t i = 1; i <= n; i++)
		port = port * 10 + (colon[i] - '0');
	return port <= 65535;
}

/* ---- env hash ---- */

struct kv {
	const char *name, *value;
};

static int kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->name, ((const struct kv *)b)->name);
}

void srt_rundir_env_hash(const char *const *names, const char *const *values, size_t n,
			 char out[65])
{
	struct kv *v = srt_xcalloc(n + 1, sizeof(*v));
	struct srt_sha256 s;
	unsigned char d[32];

	for (size_t i = 0; i < n; i++)
		v[i] = (struct kv){ names[i], values[i] };
	qsort(v, n, sizeof(*v), kv_cmp);
	srt_sha256_init(&s);
	for (size_t i = 0; i < n; i++) {
		srt_sha256_update(&s, v[i].name, strlen(v[i].name));
		srt_sha256_update(&s, "=", 1);
		srt_sha256_update(&s, v[i].value, strlen(v[i].value) + 1);
	}
	srt_sha256_final(&s, d);
	for (size_t i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
	free(v);
}

/* ---- events.jsonl ---- */

/* Parse one line into ev; 0 when it is an event. */
static int parse_event(json_t *j, struct srt_rundir_event *ev)
{
	const json_t *obj, *seq = json_object_get(j, "seq");
	const char *type;

	if (!json_is_object(j) || !json_is_integer(seq))
		return -1;
	memset(ev, 0, sizeof(*ev));
	ev->seq = json_integer_value(seq);
	ev->time = get_int(j, "time", 0);
	type = get_str(j, "type");
	ev->warning = type && !strcmp(type, "Warning");
	ev->reason = get_str(j, "reason");
	obj = json_object_get(j, "object");
	ev->object_kind = get_str(obj, "kind");
	ev->object_name = get_str(obj, "name");
	ev->object_service = get_str(obj, "service");
	ev->object_role = get_str(obj, "role");
	ev->object_index = (int)get_int(obj, "index", -1);
	ev->message = get_str(j, "message");
	ev->job_id = get_str(j, "job_id");
	ev->generation = get_int(j, "generation", 0);
	ev->json = j;
	return ev->reason && ev->object_kind ? 0 : -1;
}

/* One complete line of events.jsonl: 0 to go on, or fn's value to stop. */
static int one_line(const char *data, size_t len, struct srt_rundir_events_read *r, int64_t *prev,
		    srt_rundir_event_fn fn, void *ctx)
{
	json_t *j = len ? json_loadb(data, len, JSON_REJECT_DUPLICATES, NULL) : NULL;
	struct srt_rundir_event ev;
	int rc = 0;

	if (!j || parse_event(j, &ev) < 0 || ev.seq <= *prev) {
		if (len)
			r->skipped++;
		goto out;
	}
	if (ev.seq > r->after_seq) {
		int v = fn(ctx, &ev);

		if (v == SRT_RUNDIR_EVENT_REFUSE) {
			r->skipped++;
			goto out;
		}
		if (v) {
			rc = v;
			goto out;
		}
		r->last_seq = ev.seq;
	}
	*prev = ev.seq;
out:
	json_decref(j);
	return rc;
}

int srt_rundir_read_events_from(const char *dir, struct srt_rundir_events_read *r,
				srt_rundir_event_fn fn, void *ctx, struct srt_error *err)
{
	char *path = join(dir, SRT_RUNDIR_EVENTS);
	size_t max_line = r->max_line ? r->max_line : SRT_RUNDIR_EVENT_LINE_MAX;
	size_t max_bytes = r->max_bytes ? r->max_bytes : SRT_RUNDIR_EVENTS_PASS_MAX;
	struct srt_buf line;
	struct stat sb;
	char chunk[65536];
	int64_t prev = 0, at, line_at;
	size_t total = 0;
	bool skipping;
	int fd, rc = -1;

	r->last_seq = r->after_seq;
	r->skipped = r->too_long = 0;
	r->too_long_at = -1;
	r->more = false;
	srt_buf_init(&line);
	fd = open_regular(AT_FDCWD, path, path, &sb, err);
	if (fd == -2) {
		r->pos = (struct srt_rundir_events_pos){ 0 };
		rc = 0;
		goto out;
	}
	if (fd < 0)
		goto out;
	/* Another file, or a shorter one: start again at its top (seq dedupes). */
	if (sb.st_dev != r->pos.dev || sb.st_ino != r->pos.ino || sb.st_size < r->pos.offset ||
	    r->pos.offset < 0)
		r->pos = (struct srt_rundir_events_pos){ .dev = sb.st_dev, .ino = sb.st_ino };
	at = line_at = r->pos.offset;
	skipping = r->pos.skipping;
	if (lseek(fd, (off_t)at, SEEK_SET) < 0) {
		srt_error_set(err, "cannot seek in '%s': %s", path, strerror(errno));
		goto out;
	}
	while (total < max_bytes) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			srt_error_set(err, "cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		if (!n)
			break;
		total += (size_t)n;
		for (size_t off = 0; off < (size_t)n;) {
			char *nl = memchr(chunk + off, '\n', (size_t)n - off);
			size_t seg = nl ? (size_t)(nl - (chunk + off)) : (size_t)n - off;

			if (!skipping && line.len + seg > max_line) {
				/* Refused as one bad line; reading goes on after its '\n'. */
				if (!r->too_long++)
					r->too_long_at = line_at;
				line.len = 0;
				skipping = true;
			}
			if (!skipping)
				srt_buf_append(&line, chunk + off, seg);
			off += seg;
			at += (int64_t)seg;
			if (!nl)
				break;
			off++;
			at++;
			if (!skipping) {
				int v = one_line(line.data ? line.data : "", line.len, r, &prev, fn,
						 ctx);

				if (v) {
					rc = v;
					goto out;
				}
			}
			skipping = false;
			line.len = 0;
			line_at = at;
			r->pos.offset = at;
		}
	}
	/* A line over the limit is passed over up to here even without its '\n'. */
	if (skipping) {
		r->pos.offset = at;
		r->pos.skipping = true;
	} else {
		r->pos.skipping = false;
	}
	r->more = total >= max_bytes;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	srt_buf_release(&line);
	free(path);
	return rc;
}

int srt_rundir_read_events(const char *dir, int64_t after_seq, srt_rundir_event_fn fn, void *ctx,
			   int64_t *last_seq, size_t *skipped, struct srt_error *err)
{
	struct srt_rundir_events_read r = { .after_seq = after_seq };
	int rc = srt_rundir_read_events_from(dir, &r, fn, ctx, err);

	if (last_seq)
		*last_seq = r.last_seq;
	if (skipped)
		*skipped = r.skipped + r.too_long;
	return rc;
}

/* The seq of one complete line, or 0 when it has none. */
static int64_t line_seq(const char *line, size_t n)
{
	json_t *j = json_loadb(line, n, 0, NULL);
	const json_t *seq = json_object_get(j, "seq");
	int64_t v = json_is_integer(seq) ? json_integer_value(seq) : 0;

	json_decref(j);
	return v;
}

/*
 * Scan the events file in chunks: *keep is the length of its complete lines
 * (a torn last line is cut there), *max the highest seq among them.  Memory
 * stays within one line of SRT_RUNDIR_EVENT_LINE_MAX whatever the file's
 * size; a longer line (not written by the agent) carries no seq.  A missing
 * file is empty.
 */
static int scan_events(const char *path, off_t *keep, int64_t *max, struct srt_error *err)
{
	struct stat sb;
	int fd = open_regular(AT_FDCWD, path, path, &sb, err);
	char chunk[65536];
	struct srt_buf line;
	bool overlong = false;
	off_t off = 0;
	int rc = 0;

	*keep = 0;
	*max = 0;
	if (fd == -2)
		return 0;
	if (fd < 0)
		return -1;
	srt_buf_init(&line);
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		size_t at = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = srt_error_set(err, "cannot read '%s': %s", path, strerror(errno));
			break;
		}
		if (!n)
			break;
		while (at < (size_t)n) {
			const char *nl = memchr(chunk + at, '\n', (size_t)n - at);
			size_t seg = nl ? (size_t)(nl - (chunk + at)) : (size_t)n - at;

			if (!overlong && line.len + seg <= SRT_RUNDIR_EVENT_LINE_MAX)
				srt_buf_append(&line, chunk + at, seg);
			else
				overlong = true;
			at += seg;
			if (!nl)
				break;
			at++; /* the newline */
			if (!overlong) {
				int64_t v = line_seq(line.data, line.len);

				if (v > *max)
					*max = v;
			}
			*keep = off + (off_t)at;
			srt_buf_reset(&line);
			overlong = false;
		}
		off += n;
	}
	srt_buf_release(&line);
	close(fd);
	return rc;
}

int srt_rundir_events_open(struct srt_rundir_events *w, const char *dir, struct srt_error *err)
{
	struct stat sb;
	off_t keep;
	int rc = -1;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	w->path = join(dir, SRT_RUNDIR_EVENTS);
	if (scan_events(w->path, &keep, &w->seq, err) < 0)
		goto out;
	w->fd = open(w->path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
		     SRT_RUNDIR_FILE_MODE);
	if (w->fd < 0) {
		srt_error_set(err, "cannot open '%s' for appending: %s", w->path, strerror(errno));
		goto out;
	}
	if (fstat(w->fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		srt_error_set(err, "'%s' is not a regular file; remove it (the agent writes it)",
			      w->path);
		goto out;
	}
	if (keep != sb.st_size && ftruncate(w->fd, keep) < 0) {
		srt_error_set(err, "cannot cut the torn last line of '%s': %s", w->path,
			      strerror(errno));
		goto out;
	}
	sync_parent(w->path);
	rc = 0;
out:
	if (rc < 0)
		srt_rundir_events_close(w);
	return rc;
}

int srt_rundir_events_append(struct srt_rundir_events *w, struct srt_rundir_event *ev,
			     struct srt_error *err)
{
	json_t *o = json_object(), *obj = json_object();
	char *text;
	struct srt_buf b;
	struct stat sb;
	int rc = -1;

	ev->seq = w->seq + 1;
	json_object_set_new(o, "seq", json_integer(ev->seq));
	json_object_set_new(o, "time", json_integer(ev->time));
	json_object_set_new(o, "type", json_string(ev->warning ? "Warning" : "Normal"));
	json_object_set_new(o, "reason", text_json(ev->reason ? ev->reason : "Unknown"));
	json_object_set_new(obj, "kind", text_json(ev->object_kind ? ev->object_kind : "run"));
	json_object_set_new(obj, "name", text_json(ev->object_name));
	if (ev->object_service)
		json_object_set_new(obj, "service", text_json(ev->object_service));
	if (ev->object_role) {
		json_object_set_new(obj, "role", text_json(ev->object_role));
		json_object_set_new(obj, "index", json_integer(ev->object_index));
	}
	json_object_set_new(o, "object", obj);
	json_object_set_new(o, "message", text_json(ev->message));
	json_object_set_new(o, "job_id", str_or_null(ev->job_id));
	json_object_set_new(o, "generation", json_integer(ev->generation));
	if (ev->point)
		json_object_set_new(o, "point", json_deep_copy(ev->point));
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (!text)
		return srt_error_set(err, "cannot serialise event '%s'", ev->reason);
	srt_buf_init(&b);
	srt_buf_puts(&b, text);
	srt_buf_putc(&b, '\n');
	free(text);
	if (w->fd < 0) {
		srt_error_set(err, "'%s' is not open", w->path ? w->path : SRT_RUNDIR_EVENTS);
		goto out;
	}
	/*
	 * O_APPEND: one write() puts the whole line at the end.  When it fails
	 * part-way, cut the fragment off so the next line starts clean.
	 */
	if (fstat(w->fd, &sb) < 0)
		sb.st_size = -1;
	if (srt_write_all(w->fd, b.data, b.len) < 0) {
		srt_error_set(err, "cannot append to '%s': %s; check free space and quota", w->path,
			      strerror(errno));
		if (sb.st_size >= 0)
			(void)ftruncate(w->fd, sb.st_size);
		goto out;
	}
	(void)fsync(w->fd);
	w->seq = ev->seq;
	rc = 0;
out:
	srt_buf_release(&b);
	return rc;
}

void srt_rundir_events_close(struct srt_rundir_events *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	free(w->path);
	w->path = NULL;
}

/* ---- paths inside the log directory ---- */

/*
 * Open the directory that holds rel's last component, walking from log_dir
 * with O_NOFOLLOW (creating the components when `create`); *leaf points
 * into rel at that component.  Returns the fd, or -1 with errno set.
 */
static int open_log_parent(const char *log_dir, const char *rel, bool create, const char **leaf)
{
	int fd = open(log_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	const char *q = rel;

	while (fd >= 0) {
		size_t n = strcspn(q, "/");
		char part[256];
		int next;

		if (!q[n]) {
			*leaf = q;
			return fd;
		}
		if (!n || n >= sizeof(part)) {
			close(fd);
			errno = EINVAL;
			return -1;
		}
		memcpy(part, q, n);
		part[n] = '\0';
		if (create && mkdirat(fd, part, 0755) < 0 && errno != EEXIST) {
			int e = errno;

			close(fd);
			errno = e;
			return -1;
		}
		next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
		q += n + 1;
	}
	return -1;
}

int srt_rundir_marker(const char *log_dir, const char *rel, char *detail, size_t size)
{
	const char *leaf;
	struct stat sb;
	int fd = open_log_parent(log_dir, rel, false, &leaf), rc = 0;

	if (fd < 0) {
		snprintf(detail, size, "%s: %s", rel,
			 errno == ENOENT ? "no such file" :
			 errno == ELOOP || errno == ENOTDIR ?
					   "a folder on the way is not a directory (a link?)" :
					   strerror(errno));
		return 0;
	}
	if (fstatat(fd, leaf, &sb, AT_SYMLINK_NOFOLLOW) < 0)
		snprintf(detail, size, "%s: %s", rel,
			 errno == ENOENT ? "no such file" : strerror(errno));
	else if (!S_ISREG(sb.st_mode))
		snprintf(detail, size, "%s: %s, not a regular file", rel,
			 S_ISLNK(sb.st_mode) ? "a symbolic link" : srt_file_kind(sb.st_mode));
	else if (sb.st_size == 0)
		snprintf(detail, size, "%s: empty", rel);
	else {
		snprintf(detail, size, "%s: %lld bytes", rel, (long long)sb.st_size);
		rc = 1;
	}
	close(fd);
	return rc;
}

int srt_rundir_log_mkdir(const char *log_dir, const char *rel, struct srt_error *err)
{
	const char *leaf;
	int fd = open_log_parent(log_dir, rel, true, &leaf), d;

	if (fd < 0)
		return srt_error_set(err, "cannot create '%s/%s': %s", log_dir, rel,
				     errno == ELOOP || errno == ENOTDIR ?
					     "a folder on the way is not a directory (a link?)" :
					     strerror(errno));
	if (mkdirat(fd, leaf, 0755) < 0 && errno != EEXIST) {
		srt_error_set(err, "cannot create '%s/%s': %s", log_dir, rel, strerror(errno));
		close(fd);
		return -1;
	}
	d = openat(fd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(fd);
	if (d < 0)
		return srt_error_set(err,
				     "'%s/%s' exists and is not a directory (a link?); remove it: "
				     "srtctl creates it for the process",
				     log_dir, rel);
	close(d);
	return 0;
}

int srt_rundir_log_remove(const char *log_dir, const char *rel, struct srt_error *err)
{
	const char *leaf;
	int fd = open_log_parent(log_dir, rel, false, &leaf);

	if (fd < 0)
		return errno == ENOENT ? 0 :
					 srt_error_set(err, "cannot reach '%s/%s': %s", log_dir,
						       rel, strerror(errno));
	if (unlinkat(fd, leaf, 0) < 0 && errno != ENOENT) {
		srt_error_set(err, "cannot remove '%s/%s': %s", log_dir, rel, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}
