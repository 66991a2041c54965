/*
 * slurm/auth.c: the JWT slurmrestd wants, from where the configuration says.
 *
 * Sources: the token itself ($SLURM_JWT), a file (rotated by someone else),
 * or a command that prints one (`scontrol token lifespan=...`).  A token
 * from a file or command is loaded again when its exp claim is near (a
 * tenth of its lifetime, 30 s to 300 s before) and once after slurmrestd
 * rejects it.  The claims are read without checking the signature: they
 * only decide when to reload and whom to authenticate as (the "sun" claim).
 *
 * The token is secret.  Nothing here prints it, and no message quotes a
 * file's or a command's output, which may hold it.  It is wiped from memory
 * when replaced or freed.
 */
#define _GNU_SOURCE /* execvpe, explicit_bzero */
#include "slurm/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define TOKEN_MAX (64 * 1024)
#define COMMAND_TIMEOUT_MS 20000
#define RELOAD_PAUSE_MS 10000 /* between command runs that did not help (files: none) */

enum source_kind {
	SRC_NONE,
	SRC_TOKEN,
	SRC_FILE,
	SRC_COMMAND
};

struct srt_slurm_auth {
	enum source_kind kind;
	char *file;
	char **argv; /* NULL-terminated */
	char *origin;
	char *token; /* current token, NULL when none */
	int64_t exp, iat;
	char *sun;
	int64_t next_reload_ms; /* no reload before this (monotonic), after one that did not help */
	int timeout_ms;		/* the token command's limit */
	const struct srt_clock *clock;
};

/* ---- JWT claims ---------------------------------------------------------------------- */

static int b64url_value(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '-' || c == '+')
		return 62;
	if (c == '_' || c == '/')
		return 63;
	return -1;
}

/* Decode base64url (padding optional) into a malloc'd buffer. */
static int b64url_decode(const char *s, size_t n, char **out, size_t *outlen)
{
	char *buf = srt_xmalloc(n * 3 / 4 + 3);
	size_t o = 0;
	unsigned acc = 0;
	int bits = 0;

	while (n > 0 && s[n - 1] == '=')
		n--;
	for (size_t i = 0; i < n; i++) {
		int v = b64url_value((unsigned char)s[i]);

		if (v < 0) {
			free(buf);
			return -1;
		}
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	buf[o] = '\0';
	*out = buf;
	*outlen = o;
	return 0;
}

int srt_jwt_claims(const char *token, int64_t *exp, int64_t *iat, char **sun)
{
	const char *dot1, *dot2;
	char *payload = NULL;
	size_t len;
	json_t *j, *v;

	*exp = 0;
	*iat = 0;
	*sun = NULL;
	if (!token || !(dot1 = strchr(token, '.')) || !(dot2 = strchr(dot1 + 1, '.')))
		return -1;
	if (strchr(dot2 + 1, '.'))
		return -1;
	if (b64url_decode(dot1 + 1, (size_t)(dot2 - dot1 - 1), &payload, &len) != 0)
		return -1;
	j = json_loadb(payload, len, 0, NULL);
	free(payload);
	if (!json_is_object(j)) {
		json_decref(j);
		return -1;
	}
	v = json_object_get(j, "exp");
	if (json_is_integer(v))
		*exp = (int64_t)json_integer_value(v);
	v = json_object_get(j, "iat");
	if (json_is_integer(v))
		*iat = (int64_t)json_integer_value(v);
	v = json_object_get(j, "sun");
	if (json_is_string(v))
		*sun = srt_xstrdup(json_string_value(v));
	json_decref(j);
	return 0;
}

int64_t srt_jwt_refresh_margin(int64_t iat, int64_t exp)
{
	int64_t m = 60;

	if (iat > 0 && exp > iat)
		m = (exp - iat) / 10;
	if (m < 30)
		m = 30;
	if (m > 300)
		m = 300;
	return m;
}

/* ---- loading ---------------------------------------------------------------------------- */

static void wipe_free(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

/* A token may hold only these: anything else could end or split an HTTP header. */
static bool token_chars_ok(const char *t)
{
	if (!*t)
		return false;
	for (; *t; t++) {
		unsigned char c = (unsigned char)*t;

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-' || c == '+' || c == '/' || c == '=' ||
		      c == '~'))
			return false;
	}
	return true;
}

/*
 * The token in text (a file's or a command's output): the first non-empty
 * line, trimmed, without a leading "SLURM_JWT=" or "export SLURM_JWT=".
 * Returns a malloc'd copy, or NULL.
 */
static char *token_from_text(const char *text, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t start, end;
		char *t;

		/* Leading blanks, blank lines included. */
		while (i < len &&
		       (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
			i++;
		start = i;
		while (i < len && text[i] != '\n')
			i++;
		end = i;
		while (end > start &&
		       (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\r'))
			end--;
		if (end == start)
			continue;
		if (end - start > 7 && !strncmp(text + start, "export ", 7))
			start += 7;
		if (end - start > 10 && !strncmp(text + start, "SLURM_JWT=", 10))
			start += 10;
		t = srt_xstrndup(text + start, end - start);
		if (strlen(t) != end - start || !token_chars_ok(t)) {
			wipe_free(t);
			return NULL;
		}
		return t;
	}
	return NULL;
}

/* A token given as is: trimmed, and nothing but token characters. */
static char *literal_token(const char *s)
{
	size_t n;
	char *t;

	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	n = strlen(s);
	while (n > 0 &&
	       (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	t = srt_xstrndup(s, n);
	if (!token_chars_ok(t)) {
		wipe_free(t);
		return NULL;
	}
	return t;
}

static int read_file(const struct srt_slurm_auth *a, char **out, struct srt_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	ssize_t r;
	int fd, rc = SRT_SLURM_EINVAL;

	*out = NULL;
	fd = open(a->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return srt_slurm_fail(err, SRT_SLURM_EINVAL, "cannot read the token file %s: %s",
				      a->file, strerror(errno));
	buf = srt_xmalloc(TOKEN_MAX + 1);
	while (len < TOKEN_MAX && (r = read(fd, buf + len, TOKEN_MAX - len)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			srt_slurm_fail(err, rc, "cannot read the token file %s: %s", a->file,
				       strerror(errno));
			goto out;
		}
		len += (size_t)r;
	}
	buf[len] = '\0';
	*out = token_from_text(buf, len);
	if (!*out) {
		srt_slurm_fail(err, rc,
			       "the token file %s holds no token (expected one line: the JWT, "
			       "or SLURM_JWT=<jwt> as `scontrol token` prints it)",
			       a->file);
		goto out;
	}
	rc = 0;
out:
	if (buf) {
		explicit_bzero(buf, len);
		free(buf);
	}
	close(fd);
	return rc;
}

/* The environment for the command, without SLURM_JWT (it would not mint a new one). */
static char **child_env(void)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ && environ[n])
		n++;
	env = srt_xcalloc(n + 1, sizeof(*env));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "SLURM_JWT=", 10) != 0)
			env[k++] = environ[i];
	env[k] = NULL;
	return env;
}

/*
 * Kill the command's process group (it and anything it started) and reap
 * the command.  It is not reaped before this, so its pid (and with it the
 * group id) cannot have been reused by an unrelated process.
 */
static void kill_group(pid_t pid, int *status)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL); /* in case setpgid() failed in the child */
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
}

/* Whether the command has exited (left unreaped: a zombie keeps its pid). */
static bool has_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/*
 * Run the token command with stdout on a pipe, in its own process group.
 * Whatever it does, this returns within a->timeout_ms: output beyond
 * TOKEN_MAX, a command that closes stdout and lingers, or one that never
 * exits all end with the group killed (SIGKILL) and the command reaped.
 */
static int run_command(const struct srt_slurm_auth *a, char **out, struct srt_error *err)
{
	int pfd[2] = { -1, -1 };
	char *buf = NULL;
	size_t len = 0;
	char **env = NULL;
	pid_t pid = -1;
	int status = 0, rc = SRT_SLURM_EINVAL;
	int64_t deadline;
	bool timed_out = false, too_much = false, eof = false, exited = false;

	*out = NULL;
	if (pipe2(pfd, O_CLOEXEC) != 0)
		return srt_slurm_fail(err, rc, "token command %s: pipe: %s", a->argv[0],
				      strerror(errno));
	env = child_env();
	pid = fork();
	if (pid < 0) {
		srt_slurm_fail(err, rc, "token command %s: fork: %s", a->argv[0], strerror(errno));
		goto out;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(pfd[1], 1);
		execvpe(a->argv[0], a->argv, env);
		_exit(127);
	}
	setpgid(pid, pid); /* also here: no race with the kill below */
	close(pfd[1]);
	pfd[1] = -1;
	buf = srt_xmalloc(TOKEN_MAX + 1);
	deadline = srt_monotonic_ms() + a->timeout_ms;
	/* Read until EOF and exit, the deadline, or too much output. */
	while (!(eof && exited)) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int64_t left = deadline - srt_monotonic_ms();
		ssize_t r;

		if (left <= 0) {
			timed_out = true;
			break;
		}
		if (eof) { /* stdout closed: wait for the exit, in short steps */
			exited = has_exited(pid);
			if (!exited)
				poll(NULL, 0, left < 20 ? (int)left : 20);
			continue;
		}
		r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			timed_out = true;
			break;
		}
		if (r == 0)
			continue; /* the deadline check above ends it */
		if (len >= TOKEN_MAX) {
			too_much = true; /* not a token: stop it now */
			break;
		}
		r = read(pfd[0], buf + len, TOKEN_MAX - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			eof = true;
		else
			len += (size_t)r;
	}
	buf[len] = '\0';
	/* Always: a timed-out command, and anything a finished one left behind. */
	kill_group(pid, &status);
	if (too_much) {
		srt_slurm_fail(err, rc,
			       "token command %s printed more than %d KiB, which is not a token; "
			       "it was stopped (check that it prints only the JWT)",
			       a->argv[0], TOKEN_MAX / 1024);
		goto out;
	}
	if (timed_out) {
		srt_slurm_fail(err, rc,
			       "token command %s did not finish in %d ms%s; it was killed (check "
			       "that it exits after printing the token)",
			       a->argv[0], a->timeout_ms,
			       eof ? " (it closed its output but kept running)" : "");
		goto out;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		srt_slurm_fail(err, rc, "token command %s could not be run (not found in PATH?)",
			       a->argv[0]);
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		srt_slurm_fail(err, rc, "token command %s failed (%s %d); see its messages above",
			       a->argv[0], WIFEXITED(status) ? "exit status" : "signal",
			       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		goto out;
	}
	*out = token_from_text(buf, len);
	if (!*out) {
		srt_slurm_fail(err, rc,
			       "token command %s printed no token (expected the JWT, or "
			       "SLURM_JWT=<jwt> as `scontrol token` prints it)",
			       a->argv[0]);
		goto out;
	}
	rc = 0;
out:
	if (buf) {
		explicit_bzero(buf, len);
		free(buf);
	}
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	free(env);
	return rc;
}

/* Load the token from its source; on success replace the current one. */
static int load(struct srt_slurm_auth *a, struct srt_error *err)
{
	char *t = NULL;
	int rc;

	if (a->kind == SRC_FILE)
		rc = read_file(a, &t, err);
	else if (a->kind == SRC_COMMAND)
		rc = run_command(a, &t, err);
	else
		return 0;
	if (rc != 0)
		return rc;
	wipe_free(a->token);
	free(a->sun);
	a->token = t;
	srt_jwt_claims(t, &a->exp, &a->iat, &a->sun);
	return 0;
}

int srt_slurm_auth_new(struct srt_slurm_auth **out, const struct srt_slurm_token_source *src,
		       const struct srt_clock *clock, struct srt_error *err)
{
	struct srt_slurm_auth *a = srt_xcalloc(1, sizeof(*a));
	int nsrc = 0;
	int rc;

	*out = NULL;
	a->clock = clock ? clock : srt_clock_system();
	a->timeout_ms = src->token_command_timeout_ms > 0 ? src->token_command_timeout_ms :
							    COMMAND_TIMEOUT_MS;
	if (src->token && *src->token) {
		nsrc++;
		a->kind = SRC_TOKEN;
	}
	if (src->token_file && *src->token_file) {
		nsrc++;
		a->kind = SRC_FILE;
	}
	if (src->token_command && src->token_command_n > 0) {
		nsrc++;
		a->kind = SRC_COMMAND;
	}
	if (nsrc > 1) {
		srt_slurm_auth_free(a);
		return srt_slurm_fail(err, SRT_SLURM_EINVAL,
				      "give the token one way only: the token itself, a token "
				      "file or a token command");
	}
	switch (a->kind) {
	case SRC_TOKEN:
		a->origin = srt_xstrdup(src->origin ? src->origin : "the configured token");
		a->token = literal_token(src->token);
		if (!a->token) {
			rc = srt_slurm_fail(err, SRT_SLURM_EINVAL,
					    "the token from %s is not a JWT (it holds characters a "
					    "token cannot have)",
					    a->origin);
			srt_slurm_auth_free(a);
			return rc;
		}
		srt_jwt_claims(a->token, &a->exp, &a->iat, &a->sun);
		break;
	case SRC_FILE:
		/* "~/x" as a shell would say it (srtslurm.yaml examples do). */
		if (!strncmp(src->token_file, "~/", 2) && getenv("HOME") && *getenv("HOME"))
			a->file = srt_xasprintf("%s/%s", getenv("HOME"), src->token_file + 2);
		else
			a->file = srt_xstrdup(src->token_file);
		a->origin = src->origin ? srt_xasprintf("%s (%s)", src->origin, a->file) :
					  srt_xasprintf("token file %s", a->file);
		break;
	case SRC_COMMAND:
		a->argv = srt_xcalloc(src->token_command_n + 1, sizeof(*a->argv));
		for (size_t i = 0; i < src->token_command_n; i++)
			a->argv[i] =
				srt_xstrdup(src->token_command[i] ? src->token_command[i] : "");
		a->origin = src->origin ? srt_xasprintf("%s (%s)", src->origin, a->argv[0]) :
					  srt_xasprintf("token command %s", a->argv[0]);
		break;
	case SRC_NONE:
		a->origin = srt_xstrdup("no token");
		break;
	}
	rc = load(a, err);
	if (rc != 0) {
		srt_slurm_auth_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

void srt_slurm_auth_free(struct srt_slurm_auth *a)
{
	if (!a)
		return;
	wipe_free(a->token);
	free(a->sun);
	free(a->file);
	if (a->argv)
		for (size_t i = 0; a->argv[i]; i++)
			free(a->argv[i]);
	free(a->argv);
	free(a->origin);
	free(a);
}

bool srt_slurm_auth_enabled(const struct srt_slurm_auth *a)
{
	return a && a->token;
}

int srt_slurm_auth_token(struct srt_slurm_auth *a, const char **token, struct srt_error *err)
{
	int64_t now;

	(void)err;
	*token = a ? a->token : NULL;
	if (!a || !a->token)
		return 0;
	if ((a->kind == SRC_FILE || a->kind == SRC_COMMAND) && a->exp > 0) {
		now = srt_clock_now(a->clock) / 1000;
		if (now >= a->exp - srt_jwt_refresh_margin(a->iat, a->exp) &&
		    srt_monotonic_ms() >= a->next_reload_ms) {
			struct srt_error e2;
			int64_t old_exp = a->exp;

			/*
			 * A failed reload keeps the old token: slurmrestd
			 * may still take it, and if not, says so.
			 */
			if ((load(a, &e2) != 0 || a->exp <= old_exp) && a->kind == SRC_COMMAND)
				a->next_reload_ms = srt_monotonic_ms() + RELOAD_PAUSE_MS;
		}
	}
	*token = a->token;
	return 0;
}

int srt_slurm_auth_reload(struct srt_slurm_auth *a)
{
	char *old;
	struct srt_error e2;
	int changed;

	if (!a || (a->kind != SRC_FILE && a->kind != SRC_COMMAND))
		return 0;
	if (srt_monotonic_ms() < a->next_reload_ms)
		return 0;
	old = a->token ? srt_xstrdup(a->token) : NULL;
	if (load(a, &e2) != 0) {
		wipe_free(old);
		if (a->kind == SRC_COMMAND)
			a->next_reload_ms = srt_monotonic_ms() + RELOAD_PAUSE_MS;
		return 0;
	}
	changed = !old || strcmp(old, a->token) != 0;
	wipe_free(old);
	if (!changed && a->kind == SRC_COMMAND)
		a->next_reload_ms = srt_monotonic_ms() + RELOAD_PAUSE_MS;
	return changed;
}

const char *srt_slurm_auth_user(const struct srt_slurm_auth *a)
{
	return a && a->sun ? a->sun : "";
}

int64_t srt_slurm_auth_exp(const struct srt_slurm_auth *a)
{
	return a ? a->exp : 0;
}

const char *srt_slurm_auth_origin(const struct srt_slurm_auth *a)
{
	return a ? a->origin : "no token";
}
