/*
 * agent/proc.c: the operating-system side of the agent's processes.
 *
 * This file owns how a process of the plan becomes a SLURM step (the srun
 * argv, the `Env:` header of its log), fork/exec with the log file as
 * stdout and stderr, signalling a step's process group, exit statuses, log
 * tails for events, and short commands whose output the agent reads
 * (scontrol, the per-node IP steps).  No shell is involved anywhere:
 * values reach execvp() as argv words and env assignments unchanged.
 */
#define _GNU_SOURCE /* pipe2() */
#include "agent/agent.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/shell.h"

/* ---- the step ---- */

struct argvb {
	const char **v;
	size_t n, cap;
	struct srt_arena *a;
};

static void push(struct argvb *b, const char *s)
{
	if (b->n + 1 >= b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 32;
		const char **v = srt_arena_alloc(b->a, cap * sizeof(*v));

		if (b->n)
			memcpy(v, b->v, b->n * sizeof(*v));
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n++] = s;
	b->v[b->n] = NULL;
}

const char **srt_agent_step_argv(struct srt_arena *a, const struct srt_agent_plan *p,
				 const struct srt_agent_proc *pr, size_t *argc)
{
	struct argvb b = { NULL, 0, 0, a };

	push(&b, "srun");
	push(&b, "--overlap");
	push(&b, "--nodes=1");
	push(&b, "--ntasks=1");
	push(&b, srt_arena_printf(a, "--nodelist=%s", pr->host));
	push(&b, srt_arena_printf(a, "--job-name=%s", pr->name));
	if (p->pyxis && pr->container) {
		push(&b, srt_arena_printf(a, "--container-image=%s", pr->container));
		push(&b, srt_arena_printf(a, "--container-mounts=%s:%s", p->log_dir,
					  SRT_CONTAINER_LOG_DIR));
	}
	push(&b, "env");
	push(&b, "--");
	for (size_t i = 0; i < pr->nenv; i++)
		push(&b, srt_arena_printf(a, "%s=%s", pr->env_names[i], pr->env_values[i]));
	for (size_t i = 0; i < pr->argc; i++)
		push(&b, pr->argv[i]);
	if (argc)
		*argc = b.n;
	return b.v;
}

char *srt_agent_env_line(const struct srt_agent_proc *pr)
{
	struct srt_buf b;

	srt_buf_init(&b);
	srt_buf_puts(&b, "Env:");
	for (size_t i = 0; i < pr->nenv; i++) {
		srt_buf_putc(&b, ' ');
		/* Names were checked when the plan was loaded; values cannot hold a NUL. */
		(void)srt_shell_assign(&b, pr->env_names[i], pr->env_values[i],
				       strlen(pr->env_values[i]), NULL);
	}
	srt_buf_putc(&b, '\n');
	return srt_buf_detach(&b);
}

/* ---- spawning ---- */

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* In the child: back to a clean signal state. */
static void child_signals(void)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGCHLD, SIGHUP, SIGPIPE, SIGQUIT };
	sigset_t none;

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

pid_t srt_agent_spawn(const char *const *argv, const char *log_path, bool truncate,
		      const char *header, struct srt_error *err)
{
	int fd, nul;
	pid_t pid;

	fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (truncate ? O_TRUNC : 0),
		  0644);
	if (fd < 0) {
		srt_error_set(err, "cannot open log '%s': %s; check the run directory", log_path,
			      strerror(errno));
		return -1;
	}
	if (header && write_all(fd, header, strlen(header)) < 0) {
		srt_error_set(err, "cannot write to log '%s': %s", log_path, strerror(errno));
		close(fd);
		return -1;
	}
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pid = fork();
	if (pid < 0) {
		srt_error_set(err, "cannot fork for '%s': %s", argv[0], strerror(errno));
		close(fd);
		if (nul >= 0)
			close(nul);
		return -1;
	}
	if (pid == 0) {
		child_signals();
		(void)setpgid(0, 0);
		if (nul >= 0)
			dup2(nul, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execvp(argv[0], (char *const *)argv);
		{
			char msg[512];
			int n = snprintf(msg, sizeof(msg), "srtctl agent: cannot run '%s': %s\n",
					 argv[0], strerror(errno));

			if (n > 0)
				(void)!write(STDERR_FILENO, msg,
					     (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
		}
		_exit(127);
	}
	/* Also from the parent, so a signal sent before the child ran setpgid() finds the group. */
	(void)setpgid(pid, pid);
	close(fd);
	if (nul >= 0)
		close(nul);
	return pid;
}

void srt_agent_signal(pid_t pid, int sig)
{
	if (pid <= 0)
		return;
	if (kill(-pid, sig) < 0)
		(void)kill(pid, sig);
}

int srt_agent_exit_code(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return -1;
}

char *srt_agent_log_tail(const char *path, int lines, size_t max_bytes)
{
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	struct stat sb;
	off_t start;
	char *buf, *p;
	ssize_t n;
	int seen = 0;

	if (fd < 0)
		return srt_xstrdup("");
	if (fstat(fd, &sb) < 0) {
		close(fd);
		return srt_xstrdup("");
	}
	start = sb.st_size > (off_t)max_bytes ? sb.st_size - (off_t)max_bytes : 0;
	buf = srt_xmalloc(max_bytes + 1);
	n = pread(fd, buf, max_bytes, start);
	close(fd);
	if (n <= 0) {
		free(buf);
		return srt_xstrdup("");
	}
	buf[n] = '\0';
	/* Drop a trailing newline, then walk back `lines` newlines. */
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	for (p = buf + n; p > buf; p--) {
		if (p[-1] == '\n' && ++seen == lines)
			break;
	}
	if (p == buf && start > 0) {
		/* A partial first line: start after its end. */
		char *nl = strchr(buf, '\n');

		p = nl ? nl + 1 : buf;
	}
	memmove(buf, p, strlen(p) + 1);
	return buf;
}

/* ---- captured commands ---- */

static int start_cmd(struct srt_agent_cmd *c, struct srt_error *err)
{
	int fds[2];
	int nul;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return srt_error_set(err, "cannot create a pipe: %s", strerror(errno));
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	c->pid = fork();
	if (c->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		if (nul >= 0)
			close(nul);
		return srt_error_set(err, "cannot fork for '%s': %s", c->argv[0], strerror(errno));
	}
	if (c->pid == 0) {
		child_signals();
		(void)setpgid(0, 0);
		if (nul >= 0)
			dup2(nul, STDIN_FILENO);
		dup2(fds[1], STDOUT_FILENO);
		execvp(c->argv[0], (char *const *)c->argv);
		_exit(127);
	}
	(void)setpgid(c->pid, c->pid);
	close(fds[1]);
	if (nul >= 0)
		close(nul);
	c->fd = fds[0];
	(void)fcntl(c->fd, F_SETFL, O_NONBLOCK);
	return 0;
}

/* Kill and reap whatever of cmds[] still runs. */
static void finish_all(struct srt_agent_cmd *cmds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct srt_agent_cmd *c = &cmds[i];
		int st;

		if (c->fd >= 0) {
			close(c->fd);
			c->fd = -1;
		}
		if (c->pid > 0) {
			srt_agent_signal(c->pid, SIGKILL);
			while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
				;
			c->pid = 0;
			c->status = -1;
		}
	}
}

int srt_agent_run_cmds(struct srt_agent_cmd *cmds, size_t n, int timeout_ms, int cancel_fd,
		       struct srt_error *err)
{
	int64_t deadline = srt_monotonic_ms() + timeout_ms;
	struct pollfd *pfd = srt_xcalloc(n + 1, sizeof(*pfd));
	int rc = -1;

	for (size_t i = 0; i < n; i++) {
		srt_buf_init(&cmds[i].out);
		cmds[i].status = -1;
		cmds[i].pid = 0;
		cmds[i].fd = -1;
	}
	for (size_t i = 0; i < n; i++)
		if (start_cmd(&cmds[i], err) < 0)
			goto out;
	for (;;) {
		size_t np = 0, open_fds = 0;
		int64_t left = deadline - srt_monotonic_ms();
		int r;

		/* Reap what has exited once its output is drained. */
		for (size_t i = 0; i < n; i++) {
			struct srt_agent_cmd *c = &cmds[i];
			int st;

			if (c->fd >= 0) {
				open_fds++;
				continue;
			}
			if (c->pid > 0 && waitpid(c->pid, &st, WNOHANG) == c->pid) {
				c->status = srt_agent_exit_code(st);
				c->pid = 0;
			}
		}
		if (!open_fds) {
			bool running = false;

			for (size_t i = 0; i < n; i++)
				running = running || cmds[i].pid > 0;
			if (!running)
				break;
		}
		if (left <= 0) {
			rc = 0;
			goto out; /* finish_all() kills the rest: status -1 */
		}
		for (size_t i = 0; i < n; i++) {
			if (cmds[i].fd >= 0) {
				pfd[np].fd = cmds[i].fd;
				pfd[np].events = POLLIN;
				np++;
			}
		}
		if (cancel_fd >= 0) {
			pfd[np].fd = cancel_fd;
			pfd[np].events = POLLIN;
			np++;
		}
		/* With every pipe closed only exits are awaited: poll in short steps. */
		r = poll(pfd, np,
			 open_fds ? (int)(left < 1000 ? left : 1000) :
				    (int)(left < 20 ? left : 20));
		if (r < 0 && errno != EINTR) {
			srt_error_set(err, "poll failed: %s", strerror(errno));
			goto out;
		}
		if (cancel_fd >= 0 && r > 0 && (pfd[np - 1].revents & POLLIN)) {
			rc = -2;
			srt_error_set(err, "interrupted by a signal");
			goto out;
		}
		for (size_t i = 0; i < n; i++) {
			struct srt_agent_cmd *c = &cmds[i];
			char chunk[4096];
			ssize_t got;

			if (c->fd < 0)
				continue;
			got = read(c->fd, chunk, sizeof(chunk));
			if (got > 0) {
				if (c->out.len < 65536)
					srt_buf_append(&c->out, chunk, (size_t)got);
			} else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
				close(c->fd);
				c->fd = -1;
			}
		}
	}
	rc = 0;
out:
	finish_all(cmds, n);
	free(pfd);
	return rc;
}
