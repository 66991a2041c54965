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

#include "util/fdio.h"
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

/*
 * Is the plan's mount SRC:DST[:FLAGS] at the model directory?  Validation
 * lets only the model's own path go there (a srt-slurm recipe mounts it again
 * for a benchmark image), so a process that mounts the model skips it.
 */
static bool mount_at_model(const char *spec)
{
	const char *dst = strchr(spec, ':');

	return dst && srt_runplan_at_model_dir(dst + 1);
}

const char **srt_agent_step_argv(struct srt_arena *a, const struct srt_runplan *p,
				 const struct srt_runplan_proc *pr, size_t *argc)
{
	struct argvb b = { NULL, 0, 0, a };

	push(&b, "srun");
	push(&b, "--overlap");
	push(&b, srt_arena_printf(a, "--nodes=%zu", pr->nnodes));
	push(&b, srt_arena_printf(a, "--ntasks=%d", pr->ntasks));
	if (pr->mpi && !strcmp(pr->mpi, "none")) {
		push(&b, "--mpi=none"); /* one task that must not join an MPI world */
	} else if (pr->mpi) {
		/*
		 * One rank per GPU, ranks 0.. on the first node (block
		 * distribution over the job's node order, which is the plan's);
		 * the ranks share the step's CPUs as the engine threads them;
		 * one rank that fails ends the step, so the agent sees it exit.
		 */
		push(&b,
		     srt_arena_printf(a, "--ntasks-per-node=%zu", (size_t)pr->ntasks / pr->nnodes));
		push(&b, srt_arena_printf(a, "--mpi=%s", pr->mpi));
		push(&b, "--oversubscribe");
		push(&b, "--kill-on-bad-exit=1");
	}
	push(&b, srt_arena_printf(a, "--nodelist=%s", pr->hosts ? pr->hosts : pr->host));
	push(&b, srt_arena_printf(a, "--job-name=%s", pr->name));
	if (p->pyxis && pr->container) {
		struct srt_buf m;

		push(&b, srt_arena_printf(a, "--container-image=%s", pr->container));
		srt_buf_init(&m);
		srt_buf_printf(&m, "--container-mounts=%s:%s", p->log_dir, SRT_CONTAINER_LOG_DIR);
		if (pr->model_mount)
			srt_buf_printf(&m, ",%s:%s", pr->model_mount, SRT_CONTAINER_MODEL_DIR);
		for (size_t i = 0; i < p->nmounts; i++)
			if (!(pr->model_mount && mount_at_model(p->mounts[i])))
				srt_buf_printf(&m, ",%s", p->mounts[i]);
		push(&b, srt_arena_strdup(a, m.data));
		srt_buf_release(&m);
	}
	/* The recipe's own (checked when the plan was loaded: none of the above). */
	for (size_t i = 0; i < pr->nsrun_opts; i++)
		push(&b, pr->srun_opts[i]);
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

char *srt_agent_env_line(const struct srt_runplan_proc *pr)
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
	if (header && srt_write_all(fd, header, strlen(header)) < 0) {
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

/* Bytes read from the end of a log for a tail: enough for many long lines, bounded. */
#define TAIL_READ_MAX 65536
/* A line cut in its middle keeps at least this much of it. */
#define TAIL_MIN_KEEP 96

struct span {
	const char *p;
	size_t n;
};

/* The marker put where a long line was cut: " [... N bytes cut ...] ". */
static size_t cut_marker(char *out, size_t cap, size_t cut)
{
	int w = snprintf(out, cap, " [... %zu bytes cut ...] ", cut);

	return w > 0 ? (size_t)w : 0;
}

/* Bytes `lines` need when each line longer than cap keeps cap bytes plus a marker. */
static size_t tail_cost(const struct span *l, size_t k, size_t cap)
{
	char mark[64];
	size_t total = k ? k - 1 : 0; /* newlines between lines */

	for (size_t i = 0; i < k; i++)
		total += l[i].n <= cap ? l[i].n :
					 cap + cut_marker(mark, sizeof(mark), l[i].n - cap);
	return total;
}

/* Move a cut point off a UTF-8 continuation byte: back (head end) or forward (tail start). */
static size_t utf8_back(const char *p, size_t i)
{
	while (i > 0 && ((unsigned char)p[i] & 0xC0) == 0x80)
		i--;
	return i;
}

static size_t utf8_fwd(const char *p, size_t i, size_t n)
{
	while (i < n && ((unsigned char)p[i] & 0xC0) == 0x80)
		i++;
	return i;
}

static void put_line(struct srt_buf *b, const struct span *l, size_t cap)
{
	char mark[64];
	size_t head, tail;

	if (l->n <= cap) {
		srt_buf_append(b, l->p, l->n);
		return;
	}
	head = utf8_back(l->p, cap / 2);
	tail = utf8_fwd(l->p, l->n - (cap - cap / 2), l->n);
	srt_buf_append(b, l->p, head);
	srt_buf_append(b, mark, cut_marker(mark, sizeof(mark), tail - head));
	srt_buf_append(b, l->p + tail, l->n - tail);
}

char *srt_agent_log_tail(const char *path, int lines, size_t max_bytes)
{
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	struct span *l = NULL;
	struct stat sb;
	struct srt_buf out;
	off_t start;
	char *buf = NULL;
	size_t n = 0, k = 0, first = 0, cap, lo, hi;
	ssize_t got;

	srt_buf_init(&out);
	if (fd < 0 || lines <= 0)
		goto out;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode))
		goto out;
	start = sb.st_size > TAIL_READ_MAX ? sb.st_size - TAIL_READ_MAX : 0;
	buf = srt_xmalloc(TAIL_READ_MAX + 1);
	while ((got = pread(fd, buf + n, TAIL_READ_MAX - n, start + (off_t)n)) > 0)
		n += (size_t)got;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	if (!n)
		goto out;
	/* The last `lines` lines, newest last.  A partial first line (the read
	 * began mid-line) counts only when it is all there is. */
	l = srt_xcalloc((size_t)lines + 1, sizeof(*l));
	for (size_t end = n, i = n;; i--) {
		if (i == 0 || buf[i - 1] == '\n') {
			if (i == 0 && start > 0 && k > 0)
				break;
			l[k].p = buf + i;
			l[k].n = end - i;
			if (l[k].n && l[k].p[l[k].n - 1] == '\r')
				l[k].n--;
			k++;
			end = i ? i - 1 : 0;
			if (i == 0 || k == (size_t)lines)
				break;
		}
	}
	for (size_t i = 0; i < k / 2; i++) {
		struct span t = l[i];

		l[i] = l[k - 1 - i];
		l[k - 1 - i] = t;
	}
	/* Fit max_bytes: cut the longest lines in their middle (all to the same
	 * length), keeping short lines such as error messages whole; drop the
	 * oldest lines only when even TAIL_MIN_KEEP bytes each do not fit.  The
	 * last line is always kept. */
	hi = 0;
	for (size_t i = 0; i < k; i++)
		hi = l[i].n > hi ? l[i].n : hi;
	cap = hi;
	if (tail_cost(l, k, cap) > max_bytes) {
		while (k - first > 1 && tail_cost(l + first, k - first, TAIL_MIN_KEEP) > max_bytes)
			first++;
		lo = TAIL_MIN_KEEP < hi ? TAIL_MIN_KEEP : hi;
		if (k - first == 1 && tail_cost(l + first, 1, lo) > max_bytes)
			lo = max_bytes > 64 ? max_bytes - 64 : max_bytes; /* the marker's room */
		/* The largest cap in [lo, hi] that fits: cost grows with cap. */
		while (lo < hi) {
			size_t mid = lo + (hi - lo + 1) / 2;

			if (tail_cost(l + first, k - first, mid) <= max_bytes)
				lo = mid;
			else
				hi = mid - 1;
		}
		cap = lo;
	}
	for (size_t i = first; i < k; i++) {
		if (i > first)
			srt_buf_putc(&out, '\n');
		put_line(&out, &l[i], cap);
	}
out:
	if (fd >= 0)
		close(fd);
	free(l);
	free(buf);
	return srt_buf_detach(&out);
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
