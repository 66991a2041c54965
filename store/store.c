/*
 * store/store.c: the connection: location, opening, PRAGMAs, transactions,
 * the prepared-statement cache and the error messages.
 *
 * A database is one SQLite file in WAL mode.  Opening it creates the file
 * (mode 0600, missing parent directories 0700) when asked, refuses a file a
 * newer srtctl wrote before touching it, sets the connection's PRAGMAs and
 * then applies the embedded migrations (store/migrate.c).  SQLite gives the
 * -wal and -shm files the permissions of the database file, so they are
 * 0600 as well.
 *
 * Every SQL statement is a static string prepared once per connection and
 * kept in a small cache keyed by the string's address; values are always
 * bound, never formatted into SQL.  The few statements without parameters
 * that run once per connection (PRAGMAs, the migrations themselves) go
 * through sqlite3_exec().
 *
 * Writers use BEGIN IMMEDIATE, so a transaction takes the write lock before
 * it reads anything and never has to be retried half-way.  While another
 * process holds the lock, SQLite's busy handler waits and srt_store_begin()
 * keeps retrying, up to SRT_STORE_BEGIN_TIMEOUT_MS in total: a user sees
 * SQLITE_BUSY only when a writer has held the database for that long.
 */
#include "store/store.h"
#include "store/internal.h"
#include "util/buf.h"
#include "util/sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char SQL_BEGIN[] = "BEGIN IMMEDIATE";
static const char SQL_COMMIT[] = "COMMIT";
static const char SQL_ROLLBACK[] = "ROLLBACK";
static const char SQL_DATA_VERSION[] = "PRAGMA data_version";
static const char SQL_JOURNAL_MODE[] = "PRAGMA journal_mode";

int srt_store_schema_version(void)
{
	return srt_store_migrations_count;
}

char *srt_store_default_path(const char *explicit_path)
{
	const char *v, *home;
	struct passwd *pw;

	if (explicit_path)
		return srt_xstrdup(explicit_path);
	v = getenv("SRTCTL_DB");
	if (v && *v)
		return srt_xstrdup(v);
	/* The XDG spec says a relative $XDG_STATE_HOME is invalid and ignored. */
	v = getenv("XDG_STATE_HOME");
	if (v && v[0] == '/')
		return srt_xasprintf("%s/srtctl/srtctl.db", v);
	home = getenv("HOME");
	if (!home || !*home) {
		pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	if (!home || !*home)
		return NULL;
	return srt_xasprintf("%s/.local/state/srtctl/srtctl.db", home);
}

/* ---- errors ---- */

static const char *hint_for(int rc, int sys_errno)
{
	if (rc == SQLITE_READONLY_DIRECTORY || rc == SQLITE_READONLY_CANTINIT ||
	    rc == SQLITE_READONLY_CANTLOCK)
		return "the directory holding the database is not writable, and SQLite must "
		       "create the -wal and -shm files beside it: make the directory writable "
		       "by this user, or move the database to one that is";
	switch (rc & 0xff) {
	case SQLITE_FULL:
		return "the filesystem holding the database is full: free some space and retry "
		       "(the failed change was not written)";
	case SQLITE_READONLY:
		return "the database cannot be written: check that the file and its directory "
		       "are writable by this user and that the filesystem is not mounted "
		       "read-only";
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return "another process kept the database locked for too long: look for a stuck "
		       "srtctl process ('fuser' on the file) and retry";
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return "the file is damaged or is not an srtctl database: move it aside (srtctl "
		       "then starts a new one) or restore a backup";
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return "permission denied: check the owner and mode of the file and its directory";
	case SQLITE_NOMEM:
		return "out of memory";
	case SQLITE_CONSTRAINT:
		return "the database refused a value; this is a bug in srtctl, please report it";
	case SQLITE_CANTOPEN:
	case SQLITE_IOERR:
		if (sys_errno == ENOSPC || sys_errno == EDQUOT)
			return hint_for(SQLITE_FULL, 0);
		if (sys_errno == EROFS)
			return hint_for(SQLITE_READONLY, 0);
		if (sys_errno == EACCES || sys_errno == EPERM)
			return hint_for(SQLITE_PERM, 0);
		if ((rc & 0xff) == SQLITE_CANTOPEN)
			return "check that the file and its directory exist and are readable and "
			       "writable by this user";
		return "an I/O error occurred: check the disk and the filesystem";
	default:
		return "this is unexpected; please report it as a bug in srtctl";
	}
}

int srt_store_sql_error(struct srt_store *s, struct srt_error *err, int rc, const char *fmt, ...)
{
	char what[1024];
	const char *detail = sqlite3_errstr(rc);
	int sys_errno = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (s && s->db) {
		if ((sqlite3_extended_errcode(s->db) & 0xff) == (rc & 0xff))
			detail = sqlite3_errmsg(s->db);
		sys_errno = sqlite3_system_errno(s->db);
	}
	if (sys_errno && ((rc & 0xff) == SQLITE_IOERR || (rc & 0xff) == SQLITE_CANTOPEN))
		return srt_error_set(err, "%s: %s (%s) (database %s); %s", what, detail,
				     strerror(sys_errno), s ? s->path : "?",
				     hint_for(rc, sys_errno));
	return srt_error_set(err, "%s: %s (database %s); %s", what, detail, s ? s->path : "?",
			     hint_for(rc, sys_errno));
}

/* ---- statements ---- */

sqlite3_stmt *srt_store_stmt(struct srt_store *s, const char *sql, struct srt_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	for (size_t i = 0; i < s->ncache; i++) {
		if (s->cache[i].sql == sql) {
			st = s->cache[i].stmt;
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			return st;
		}
	}
	rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL);
	if (rc != SQLITE_OK) {
		srt_store_sql_error(s, err, rc, "cannot prepare a query");
		sqlite3_finalize(st);
		return NULL;
	}
	if (s->ncache == s->capcache) {
		s->capcache = s->capcache ? s->capcache * 2 : 32;
		s->cache = srt_xrealloc(s->cache, s->capcache * sizeof(*s->cache));
	}
	s->cache[s->ncache].sql = sql;
	s->cache[s->ncache].stmt = st;
	s->ncache++;
	return st;
}

char *srt_store_col_text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	if (!t)
		return NULL;
	return srt_xstrndup((const char *)t, (size_t)sqlite3_column_bytes(st, col));
}

int srt_store_bind_text(sqlite3_stmt *st, int idx, const char *v)
{
	if (!v)
		return sqlite3_bind_null(st, idx);
	return sqlite3_bind_text(st, idx, v, -1, SQLITE_STATIC);
}

void srt_store_new_uid(char out[33])
{
	unsigned char raw[16];
	size_t got = 0;

	while (got < sizeof(raw)) {
		ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got < sizeof(raw)) {
		/* No getrandom (old kernel, seccomp): /dev/urandom, then a hash of
		 * time, pid and an address as a last resort. */
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			while (got < sizeof(raw)) {
				ssize_t n = read(fd, raw + got, sizeof(raw) - got);

				if (n < 0 && errno == EINTR)
					continue;
				if (n <= 0)
					break;
				got += (size_t)n;
			}
			close(fd);
		}
		if (got < sizeof(raw)) {
			struct timespec ts;
			char seed[128], hex[65];

			clock_gettime(CLOCK_REALTIME, &ts);
			snprintf(seed, sizeof(seed), "%lld.%ld.%d.%p", (long long)ts.tv_sec,
				 ts.tv_nsec, (int)getpid(), (void *)&ts);
			srt_sha256_hex(seed, strlen(seed), hex);
			memcpy(out, hex, 32);
			out[32] = '\0';
			return;
		}
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
}

/* ---- transactions ---- */

static void sleep_ms(int64_t ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Step a parameterless statement, retrying on BUSY until `deadline`. */
static int step_retrying(struct srt_store *s, const char *sql, int64_t deadline,
			 struct srt_error *err, const char *what)
{
	sqlite3_stmt *st = srt_store_stmt(s, sql, err);
	int64_t delay = 1;
	int rc;

	if (!st)
		return -1;
	for (;;) {
		int64_t left = deadline - srt_monotonic_ms();

		sqlite3_busy_timeout(s->db, (int)(left < SRT_STORE_BUSY_TIMEOUT_MS ?
							  (left > 0 ? left : 1) :
							  SRT_STORE_BUSY_TIMEOUT_MS));
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc == SQLITE_DONE || rc == SQLITE_ROW)
			break;
		if (((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) ||
		    srt_monotonic_ms() >= deadline) {
			sqlite3_busy_timeout(s->db, SRT_STORE_BUSY_TIMEOUT_MS);
			return srt_store_sql_error(s, err, rc, "%s", what);
		}
		/* Short sleeps with a little jitter so waiting writers interleave. */
		sleep_ms(delay + (srt_monotonic_ms() & 3));
		if (delay < 64)
			delay *= 2;
	}
	sqlite3_busy_timeout(s->db, SRT_STORE_BUSY_TIMEOUT_MS);
	return 0;
}

int srt_store_begin(struct srt_store *s, struct srt_error *err)
{
	if (!sqlite3_get_autocommit(s->db))
		return srt_error_set(err,
				     "internal error: a transaction is already open on database %s "
				     "(srt_store_begin does not nest); please report this bug",
				     s->path);
	return step_retrying(s, SQL_BEGIN, srt_monotonic_ms() + SRT_STORE_BEGIN_TIMEOUT_MS, err,
			     "cannot start a write transaction");
}

int srt_store_commit(struct srt_store *s, struct srt_error *err)
{
	if (sqlite3_get_autocommit(s->db))
		return srt_error_set(err,
				     "the transaction on database %s was rolled back by an earlier "
				     "error; nothing was written, retry the command",
				     s->path);
	if (step_retrying(s, SQL_COMMIT, srt_monotonic_ms() + SRT_STORE_BEGIN_TIMEOUT_MS, err,
			  "cannot commit") != 0) {
		srt_store_rollback(s);
		return -1;
	}
	return 0;
}

void srt_store_rollback(struct srt_store *s)
{
	sqlite3_stmt *st;

	if (!s || sqlite3_get_autocommit(s->db))
		return;
	st = srt_store_stmt(s, SQL_ROLLBACK, NULL);
	if (st) {
		sqlite3_step(st);
		sqlite3_reset(st);
	}
}

int srt_store_tx_enter(struct srt_store *s, bool *own, struct srt_error *err)
{
	*own = false;
	if (!sqlite3_get_autocommit(s->db))
		return 0;
	if (srt_store_begin(s, err) != 0)
		return -1;
	*own = true;
	return 0;
}

int srt_store_tx_end(struct srt_store *s, bool own, bool ok, struct srt_error *err)
{
	if (!own)
		return 0;
	if (!ok) {
		srt_store_rollback(s);
		return 0;
	}
	return srt_store_commit(s, err);
}

/* ---- opening ---- */

/* mkdir -p: directories it creates get mode 0700. */
static int make_dirs(const char *dir, struct srt_error *err)
{
	char *p = srt_xstrdup(dir);
	struct stat st;
	int rc = -1;

	for (char *c = p + 1;; c++) {
		bool last = *c == '\0';

		if (*c != '/' && !last)
			continue;
		*c = '\0';
		if (mkdir(p, 0700) == 0) {
			/* mkdir applies the umask; make sure the owner can use it. */
			if (chmod(p, 0700) != 0) {
				srt_error_set(err, "cannot set mode 0700 on directory %s: %s", p,
					      strerror(errno));
				goto out;
			}
		} else if (errno != EEXIST) {
			srt_error_set(err,
				      "cannot create directory %s for the database: %s; create it "
				      "yourself or choose another location with --db or $SRTCTL_DB",
				      p, strerror(errno));
			goto out;
		} else if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
			srt_error_set(err,
				      "%s is not a directory, so the database cannot be created "
				      "under it; choose another location with --db or $SRTCTL_DB",
				      p);
			goto out;
		}
		if (last)
			break;
		*c = '/';
	}
	rc = 0;
out:
	free(p);
	return rc;
}

/* Create the database file with mode 0600 (its parents 0700) if it is missing. */
static int create_file(const char *path, struct srt_error *err)
{
	char *dir = srt_xstrdup(path);
	char *slash = strrchr(dir, '/');
	int fd = -1, rc = -1;

	if (slash && slash != dir) {
		*slash = '\0';
		if (make_dirs(dir, err) != 0)
			goto out;
	}
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		if (errno == EEXIST) { /* another process just created it */
			rc = 0;
			goto out;
		}
		srt_error_set(err,
			      "cannot create database %s: %s; check that its directory is "
			      "writable, or choose another location with --db or $SRTCTL_DB",
			      path, strerror(errno));
		goto out;
	}
	if (fchmod(fd, 0600) != 0) {
		srt_error_set(err, "cannot set mode 0600 on database %s: %s", path,
			      strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(dir);
	return rc;
}

int srt_store_read_version(struct srt_store *s, int *version, struct srt_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	/* Not cached: the migration runner reads it around schema changes. */
	rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		srt_store_sql_error(s, err, rc, "cannot read the database's schema version");
		sqlite3_finalize(st);
		return -1;
	}
	*version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return 0;
}

int srt_store_check_version(const struct srt_store *s, int version, struct srt_error *err)
{
	const int known = srt_store_schema_version();

	if (version > known)
		return srt_error_set(err,
				     "database %s was written by a newer srtctl (schema %d, this "
				     "srtctl knows %d); upgrade srtctl",
				     s->path, version, known);
	if (version < 0)
		return srt_error_set(err,
				     "database %s has schema version %d, which no srtctl writes "
				     "(this srtctl knows schemas 0 to %d); the file is damaged or "
				     "was not written by srtctl: restore it from a backup or move "
				     "it aside",
				     s->path, version, known);
	return 0;
}

/* Switch to WAL (persistent in the file); a no-op when already in WAL. */
static int set_wal(struct srt_store *s, struct srt_error *err)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_JOURNAL_MODE, err);
	int64_t deadline = srt_monotonic_ms() + SRT_STORE_BEGIN_TIMEOUT_MS;
	bool wal;
	int rc;

	if (!st)
		return -1;
	rc = sqlite3_step(st);
	wal = rc == SQLITE_ROW && !sqlite3_stricmp((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return srt_store_sql_error(s, err, rc, "cannot read the journal mode");
	while (!wal) {
		char *msg = NULL;

		rc = sqlite3_exec(s->db, "PRAGMA journal_mode = WAL", NULL, NULL, &msg);
		sqlite3_free(msg);
		if (rc == SQLITE_OK) {
			rc = sqlite3_step(st);
			wal = rc == SQLITE_ROW &&
			      !sqlite3_stricmp((const char *)sqlite3_column_text(st, 0), "wal");
			sqlite3_reset(st);
			if (!wal)
				return srt_error_set(err,
						     "cannot switch database %s to WAL mode (the "
						     "filesystem may not support shared memory); "
						     "keep the database on a local disk",
						     s->path);
		} else if (((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) ||
			   srt_monotonic_ms() >= deadline) {
			return srt_store_sql_error(s, err, rc, "cannot switch to WAL mode");
		} else {
			sleep_ms(5);
		}
	}
	return 0;
}

/* Did opening fail because the -shm file could not be created or opened? */
static bool needs_shm(int rc)
{
	return (rc & 0xff) == SQLITE_CANTOPEN || rc == SQLITE_READONLY_DIRECTORY ||
	       rc == SQLITE_READONLY_CANTINIT || rc == SQLITE_READONLY_CANTLOCK;
}

/* True when "<path>-wal" is missing or empty: the file alone is the database. */
static bool wal_is_empty(const char *path)
{
	char *wal = srt_xasprintf("%s-wal", path);
	struct stat st;
	bool empty;

	empty = stat(wal, &st) != 0 ? errno == ENOENT : st.st_size == 0;
	free(wal);
	return empty;
}

/*
 * Reading a WAL database needs its -shm file, which SQLite cannot create in a
 * directory this user cannot write (or on a read-only mount).  When no -wal
 * holds data either, no writer is active and the database file alone is
 * complete, so a read-only connection opens it as immutable (no locks, no
 * -shm).  Such a reader does not see a writer that starts afterwards; that
 * is acceptable for one-shot reads such as 'srtctl get'.
 */
static int reopen_immutable(struct srt_store *s, struct srt_error *err)
{
	struct srt_buf uri;
	int rc;

	srt_buf_init(&uri);
	srt_buf_puts(&uri, "file:");
	for (const char *p = s->path; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("/-._~", c))
			srt_buf_putc(&uri, (char)c);
		else
			srt_buf_printf(&uri, "%%%02X", c);
	}
	srt_buf_puts(&uri, "?immutable=1");
	for (size_t i = 0; i < s->ncache; i++)
		sqlite3_finalize(s->cache[i].stmt);
	s->ncache = 0;
	sqlite3_close(s->db);
	s->db = NULL;
	rc = sqlite3_open_v2(uri.data, &s->db,
			     SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	srt_buf_release(&uri);
	if (rc != SQLITE_OK)
		return srt_store_sql_error(s, err, rc, "cannot open the database read-only");
	sqlite3_extended_result_codes(s->db, 1);
	return 0;
}

static int exec_pragma(struct srt_store *s, const char *sql, struct srt_error *err)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		return srt_store_sql_error(s, err, rc, "cannot configure the connection (%s)", sql);
	return 0;
}

static int open_at(struct srt_store **out, const char *path, int flags,
		   const struct srt_clock *clock, int target, struct srt_error *err)
{
	struct srt_store *s = NULL;
	struct stat st;
	int version = 0, rc = -1, oflags;
	const int known = srt_store_schema_version();

	*out = NULL;
	if (!path || !*path)
		return srt_error_set(err, "no database path given; pass --db PATH or set "
					  "$SRTCTL_DB");
	if ((flags & SRT_STORE_CREATE) && (flags & SRT_STORE_READONLY))
		return srt_error_set(err,
				     "internal error: database %s opened both read-only "
				     "and for creation",
				     path);
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return srt_error_set(err,
					     "database path %s is a directory; give the path of "
					     "a file, for example %s/srtctl.db",
					     path, path);
		/* SQLite would write PATH-journal and PATH-wal next to a device or
		 * FIFO (/dev/null-journal): only a regular file is a database. */
		if (!S_ISREG(st.st_mode))
			return srt_error_set(err,
					     "database path %s is not a regular file (%s); give "
					     "the path of a database file, or of a file that does "
					     "not exist yet (it is created)",
					     path,
					     S_ISCHR(st.st_mode)  ? "a character device" :
					     S_ISBLK(st.st_mode)  ? "a block device" :
					     S_ISFIFO(st.st_mode) ? "a FIFO" :
					     S_ISSOCK(st.st_mode) ? "a socket" :
								    "not a file");
	} else if (errno != ENOENT && errno != ENOTDIR) {
		return srt_error_set(err,
				     "cannot open database %s: %s; check the permissions "
				     "of its directories",
				     path, strerror(errno));
	} else if (!(flags & SRT_STORE_CREATE)) {
		return srt_error_set(err,
				     "database %s does not exist yet; 'srtctl apply -f RECIPE' "
				     "creates it (or point --db or $SRTCTL_DB at an existing one)",
				     path);
	} else if (create_file(path, err) != 0) {
		return -1;
	}

	s = srt_xcalloc(1, sizeof(*s));
	s->path = srt_xstrdup(path);
	s->clock = clock ? clock : srt_clock_system();
	s->readonly = flags & SRT_STORE_READONLY;
	oflags = (s->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX;
	rc = sqlite3_open_v2(path, &s->db, oflags, NULL);
	if (rc != SQLITE_OK) {
		srt_store_sql_error(s, err, rc, "cannot open the database");
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, SRT_STORE_BUSY_TIMEOUT_MS);
	/* SQLite silently falls back to read-only when it cannot open the file
	 * for writing (file mode, read-only mount): say so before any write. */
	if (!s->readonly && sqlite3_db_readonly(s->db, "main") == 1) {
		srt_error_set(err,
			      "cannot write to database %s: the file or its filesystem is "
			      "read-only; check that it is writable by this user and that the "
			      "filesystem is not mounted read-only (commands that only read, "
			      "such as 'srtctl get', do not need write access)",
			      path);
		goto fail;
	}
	/* Refuse a newer schema before anything (even the journal mode) is written. */
	rc = srt_store_read_version(s, &version, err);
	if (rc != 0 && s->readonly && needs_shm(sqlite3_extended_errcode(s->db)) &&
	    wal_is_empty(path)) {
		rc = reopen_immutable(s, err);
		if (rc == 0)
			rc = srt_store_read_version(s, &version, err);
	}
	if (rc != 0)
		goto fail;
	if (srt_store_check_version(s, version, err) != 0)
		goto fail;
	/* Up to 32 MiB of page cache (allocated as used): the event indexes of a
	 * busy cluster stay in memory while the controller writes. */
	if (exec_pragma(s, "PRAGMA cache_size = -32768", err) != 0)
		goto fail;
	if (s->readonly) {
		if (version < known) {
			srt_error_set(err,
				      "database %s has schema %d and this srtctl needs schema %d; "
				      "run a writing command such as 'srtctl apply' once to "
				      "upgrade it",
				      path, version, known);
			goto fail;
		}
		if (exec_pragma(s, "PRAGMA foreign_keys = ON", err) != 0)
			goto fail;
		*out = s;
		return 0;
	}
	if (set_wal(s, err) != 0 || exec_pragma(s, "PRAGMA synchronous = NORMAL", err) != 0)
		goto fail;
	if (srt_store_migrate(s, target, err) != 0)
		goto fail;
	if (exec_pragma(s, "PRAGMA foreign_keys = ON", err) != 0)
		goto fail;
	*out = s;
	return 0;
fail:
	srt_store_close(s);
	return -1;
}

int srt_store_open(struct srt_store **out, const char *path, int flags,
		   const struct srt_clock *clock, struct srt_error *err)
{
	return open_at(out, path, flags, clock, srt_store_schema_version(), err);
}

int srt_store_open_at_version(struct srt_store **out, const char *path, int target,
			      struct srt_error *err)
{
	if (target < 0 || target > srt_store_schema_version())
		return srt_error_set(err,
				     "internal error: no schema version %d (this srtctl "
				     "knows 0 to %d)",
				     target, srt_store_schema_version());
	return open_at(out, path, SRT_STORE_CREATE, NULL, target, err);
}

void srt_store_close(struct srt_store *s)
{
	if (!s)
		return;
	if (s->db && !sqlite3_get_autocommit(s->db))
		srt_store_rollback(s);
	for (size_t i = 0; i < s->ncache; i++)
		sqlite3_finalize(s->cache[i].stmt);
	free(s->cache);
	sqlite3_close(s->db);
	free(s->path);
	free(s);
}

const char *srt_store_path(const struct srt_store *s)
{
	return s->path;
}

int64_t srt_store_now(const struct srt_store *s)
{
	return srt_clock_now(s->clock);
}

int64_t srt_store_change_counter(struct srt_store *s)
{
	sqlite3_stmt *st = srt_store_stmt(s, SQL_DATA_VERSION, NULL);
	int64_t v = 0;

	if (st && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	if (st)
		sqlite3_reset(st);
	return v + sqlite3_total_changes64(s->db);
}
