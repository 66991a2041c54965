/*
 * tests/unit/test_probe.c: TCP and HTTP probes against local listeners.
 *
 * Each test binds a listener on 127.0.0.1 with a port the kernel picks and,
 * where a peer must behave in some way (answer 200 or 503, close at once,
 * stay silent, speak garbage), forks a one-connection server that does so
 * and reports the request it received through a pipe.  Every server is
 * killed by its pid when the test ends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe/probe.h"

#include "loopback.h"

/* A port nothing listens on (bound, then closed). */
static int dead_port(void)
{
	int port, fd = loopback_listener(1, &port);

	close(fd);
	return port;
}

enum mode {
	REPLY,
	CLOSE,
	SILENT
};

struct server {
	pid_t pid;
	int req_fd; /* the request's bytes, from the child */
};

/* Fork a server that accepts one connection on lfd and behaves as `mode`. */
static struct server serve(int lfd, enum mode mode, const char *reply)
{
	struct server s;
	int fds[2];

	assert_int_equal(pipe(fds), 0);
	s.pid = fork();
	assert_true(s.pid >= 0);
	if (s.pid == 0) {
		char buf[2048];
		ssize_t n;
		int c;

		close(fds[0]);
		c = accept(lfd, NULL, NULL);
		if (c < 0)
			_exit(1);
		if (mode == CLOSE) {
			close(c);
			_exit(0);
		}
		n = recv(c, buf, sizeof(buf), 0);
		if (n > 0)
			(void)!write(fds[1], buf, (size_t)n);
		close(fds[1]);
		if (mode == REPLY)
			(void)!write(c, reply, strlen(reply));
		if (mode == SILENT)
			pause();
		close(c);
		_exit(0);
	}
	close(fds[1]);
	s.req_fd = fds[0];
	return s;
}

static char *request_of(struct server *s)
{
	char *buf = calloc(1, 4096);
	size_t off = 0;
	ssize_t n;

	while (off < 4095 && (n = read(s->req_fd, buf + off, 4095 - off)) > 0)
		off += (size_t)n;
	return buf;
}

static void stop(struct server *s)
{
	int st;

	kill(s->pid, SIGKILL);
	waitpid(s->pid, &st, 0);
	close(s->req_fd);
}

static void test_tcp_connects(void **state)
{
	struct srt_probe_result r;
	int port, fd = loopback_listener(8, &port);

	(void)state;
	assert_int_equal(srt_probe_tcp("127.0.0.1", port, 1000, &r), 0);
	assert_true(r.ok);
	assert_string_equal(r.detail, "connected");
	close(fd);
}

static void test_tcp_refused(void **state)
{
	struct srt_probe_result r;

	(void)state;
	assert_int_equal(srt_probe_tcp("127.0.0.1", dead_port(), 1000, &r), -1);
	assert_false(r.ok);
	assert_string_equal(r.detail, "connection refused");
}

/*
 * A listener that never accepts and whose backlog is full: the kernel drops
 * further SYNs, so a connect can only time out.
 */
static void test_tcp_timeout(void **state)
{
	struct srt_probe_result r;
	int port, fd = loopback_listener(0, &port), fill[8];
	struct sockaddr_in sa;

	(void)state;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)port);
	for (size_t i = 0; i < 8; i++) {
		fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		(void)connect(fill[i], (struct sockaddr *)&sa, sizeof(sa));
	}
	assert_int_equal(srt_probe_tcp("127.0.0.1", port, 300, &r), -1);
	assert_string_equal(r.detail, "timed out after 300 ms");
	assert_true(r.elapsed_ms >= 250);
	for (size_t i = 0; i < 8; i++)
		close(fill[i]);
	close(fd);
}

static void test_tcp_bad_host_and_port(void **state)
{
	struct srt_probe_result r;

	(void)state;
	assert_int_equal(srt_probe_tcp("127.0.0.1", 0, 100, &r), -1);
	assert_string_equal(r.detail, "port 0 is out of range");
	assert_int_equal(srt_probe_tcp("no such host.invalid", 80, 100, &r), -1);
	assert_non_null(strstr(r.detail, "cannot resolve 'no such host.invalid'"));
}

static void test_http_ok_and_request(void **state)
{
	struct srt_probe_result r;
	int port, fd = loopback_listener(8, &port);
	struct server s = serve(
		fd, REPLY,
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"status\":\"ok\"}");
	char *req, want[128];

	(void)state;
	assert_int_equal(srt_probe_http("127.0.0.1", port, "/health", 200, 2000, &r), 0);
	assert_true(r.ok);
	assert_int_equal(r.http_status, 200);
	assert_string_equal(r.detail, "HTTP 200");
	req = request_of(&s);
	snprintf(want, sizeof(want), "GET /health HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n", port);
	assert_true(!strncmp(req, want, strlen(want)));
	assert_non_null(strstr(req, "Connection: close\r\n\r\n"));
	free(req);
	stop(&s);
	close(fd);
}

static void test_http_wrong_status(void **state)
{
	struct srt_probe_result r;
	int port, fd = loopback_listener(8, &port);
	struct server s = serve(fd, REPLY, "HTTP/1.1 503 Service Unavailable\r\n\r\n");

	(void)state;
	assert_int_equal(srt_probe_http("127.0.0.1", port, "/health", 200, 2000, &r), -1);
	assert_int_equal(r.http_status, 503);
	assert_string_equal(r.detail, "HTTP 503 (want 200)");
	stop(&s);
	close(fd);
}

static void test_http_any_2xx(void **state)
{
	struct srt_probe_result r;
	int port, fd = loopback_listener(8, &port);
	struct server s = serve(fd, REPLY, "HTTP/1.0 204 No Content\r\n\r\n");

	(void)state;
	/* want 0: any 2xx; a NULL path means /health. */
	assert_int_equal(srt_probe_http("127.0.0.1", port, NULL, 0, 2000, &r), 0);
	assert_int_equal(r.http_status, 204);
	free(request_of(&s));
	stop(&s);
	close(fd);
}

static void test_http_closed_silent_garbage(void **state)
{
	struct srt_probe_result r;
	int port, fd = loopback_listener(8, &port);
	struct server s = serve(fd, CLOSE, NULL);

	(void)state;
	assert_int_equal(srt_probe_http("127.0.0.1", port, "/health", 200, 2000, &r), -1);
	assert_true(!strcmp(r.detail, "connection closed before a status line") ||
		    strstr(r.detail, "reset") || strstr(r.detail, "failed"));
	stop(&s);

	s = serve(fd, SILENT, NULL);
	assert_int_equal(srt_probe_http("127.0.0.1", port, "/health", 200, 300, &r), -1);
	assert_string_equal(r.detail, "timed out after 300 ms waiting for the reply");
	stop(&s);

	s = serve(fd, REPLY, "SSH-2.0-OpenSSH\r\n");
	assert_int_equal(srt_probe_http("127.0.0.1", port, "/health", 200, 2000, &r), -1);
	assert_string_equal(r.detail, "the reply is not HTTP");
	stop(&s);
	close(fd);
}

/*
 * Two probes driven by one poll() loop, as the agent does: the one whose
 * server answers is DONE while the one whose server never answers is still
 * waiting (its limit is far away), so a hung endpoint holds up only itself.
 */
static void test_driven_side_by_side(void **state)
{
	int hport, sport, hfd = loopback_listener(8, &hport), sfd = loopback_listener(8, &sport);
	struct server silent = serve(sfd, SILENT, NULL);
	struct server good = serve(hfd, REPLY, "HTTP/1.1 200 OK\r\n\r\n");
	struct srt_probe_op ops[2];
	int rounds = 0;

	(void)state;
	srt_probe_start(&ops[0], "127.0.0.1", sport, "/health", 200, 60000);
	srt_probe_start(&ops[1], "127.0.0.1", hport, "/health", 200, 60000);
	do {
		struct pollfd p[2];

		assert_true(++rounds < 10000);
		for (int k = 0; k < 2; k++) {
			p[k].fd = srt_probe_pollfd(&ops[k], &p[k].events);
			p[k].revents = 0;
		}
		assert_true(poll(p, 2, 1000) >= 0);
		assert_false(srt_probe_step(&ops[0])); /* in flight throughout */
	} while (!srt_probe_step(&ops[1]));
	assert_true(ops[1].res.ok);
	assert_string_equal(ops[1].res.detail, "HTTP 200");
	assert_int_not_equal(ops[0].stage, SRT_PROBE_DONE);
	srt_probe_cancel(&ops[0]);
	assert_int_equal(ops[0].stage, SRT_PROBE_DONE);
	assert_false(ops[0].res.ok);
	assert_int_equal(srt_probe_pollfd(&ops[0], &(short){ 0 }), -1);
	stop(&good);
	stop(&silent);
	close(hfd);
	close(sfd);
}

static void test_http_refused_and_bad_path(void **state)
{
	struct srt_probe_result r;

	(void)state;
	assert_int_equal(srt_probe_http("127.0.0.1", dead_port(), "/health", 200, 500, &r), -1);
	assert_string_equal(r.detail, "connection refused");
	assert_int_equal(srt_probe_http("127.0.0.1", 80, "/a b", 200, 500, &r), -1);
	assert_string_equal(r.detail, "path '/a b' has a space or control character");
	assert_int_equal(srt_probe_http("127.0.0.1", 80, "/a\r\nX: y", 200, 500, &r), -1);
}

/* A test verdict: the body is exactly the text in arg. */
static bool body_is(const char *body, size_t len, const void *arg, char *detail, size_t size)
{
	snprintf(detail, size, "body '%.*s'", (int)len, body);
	return len == strlen(arg) && !memcmp(body, arg, len);
}

/* Drive a judged probe to its end in a bounded poll loop. */
static struct srt_probe_result judged(int port, const char *want, size_t max)
{
	struct srt_probe_op op;

	srt_probe_start_judged(&op, "127.0.0.1", port, "/nodes?view=summary", 200, 2000, body_is,
			       want, max);
	for (int k = 0; k < 10000 && !srt_probe_step(&op); k++) {
		short ev;
		struct pollfd p = { srt_probe_pollfd(&op, &ev), 0, 0 };

		p.events = ev;
		(void)poll(&p, 1, 100);
	}
	assert_int_equal(op.stage, SRT_PROBE_DONE);
	assert_null(op.reply);
	return op.res;
}

static void test_http_judged(void **state)
{
	static const struct {
		const char *reply;
		size_t max;
		bool ok;
		const char *detail;
	} cases[] = {
		{ "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nWikipedia", 4096, true,
		  "HTTP 200: body 'Wikipedia'" },
		{ "HTTP/1.1 200 OK\r\ntransfer-encoding: Chunked\r\n\r\n4;x=1\r\nWiki\r\n5\r\npedia\r\n0"
		  "\r\n\r\n",
		  4096, true, "HTTP 200: body 'Wikipedia'" },
		{ "HTTP/1.1 200 OK\r\n\r\nWikipedia!", 4096, false, "HTTP 200: body 'Wikipedia!'" },
		{ "HTTP/1.1 503 Busy\r\n\r\nWikipedia", 4096, false, "HTTP 503 (want 200)" },
		{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 4096, false,
		  "HTTP 200 with a malformed chunked body" },
		{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n99\r\nWiki\r\n", 4096,
		  false, "HTTP 200 with a malformed chunked body" },
		{ "HTTP/1.1 200 OK\r\nServer: x\r\n", 4096, false,
		  "HTTP 200 without the end of its headers" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int port, fd = loopback_listener(8, &port);
		struct server s = serve(fd, REPLY, cases[i].reply);
		struct srt_probe_result r = judged(port, "Wikipedia", cases[i].max);
		char *req = request_of(&s);

		if (r.ok != cases[i].ok || strcmp(r.detail, cases[i].detail))
			fail_msg("case %zu: ok %d, detail '%s'", i, r.ok, r.detail);
		assert_non_null(strstr(req, "GET /nodes?view=summary HTTP/1.1\r\n"));
		free(req);
		stop(&s);
		close(fd);
	}
	{
		/* A reply longer than the bound fails without reading on. */
		char big[3000];
		int port, fd = loopback_listener(8, &port);
		struct server s;
		struct srt_probe_result r;

		snprintf(big, sizeof(big), "HTTP/1.1 200 OK\r\n\r\n%2900d", 7);
		s = serve(fd, REPLY, big);
		r = judged(port, "7", 1024);
		assert_false(r.ok);
		assert_string_equal(r.detail, "the reply is longer than 1024 bytes");
		free(request_of(&s));
		stop(&s);
		close(fd);
	}
}

static void test_split_hostport(void **state)
{
	static const struct {
		const char *in;
		int rc;
		const char *host;
		int port;
	} cases[] = {
		{ "10.0.0.5:8700", 0, "10.0.0.5", 8700 },
		{ "master.example:1", 0, "master.example", 1 },
		{ "[fd00::1]:8700", 0, "fd00::1", 8700 },
		{ "fd00::1:8700", -1, NULL, 0 },
		{ "10.0.0.5", -1, NULL, 0 },
		{ "10.0.0.5:", -1, NULL, 0 },
		{ ":8700", -1, NULL, 0 },
		{ "h:70000", -1, NULL, 0 },
		{ "h:87x", -1, NULL, 0 },
		{ "[fd00::1]8700", -1, NULL, 0 },
		{ "", -1, NULL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char host[64];
		int port = -1;

		assert_int_equal(srt_probe_split_hostport(cases[i].in, host, sizeof(host), &port),
				 cases[i].rc);
		if (!cases[i].rc) {
			assert_string_equal(host, cases[i].host);
			assert_int_equal(port, cases[i].port);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp_connects),
		cmocka_unit_test(test_tcp_refused),
		cmocka_unit_test(test_tcp_timeout),
		cmocka_unit_test(test_tcp_bad_host_and_port),
		cmocka_unit_test(test_http_ok_and_request),
		cmocka_unit_test(test_http_wrong_status),
		cmocka_unit_test(test_http_any_2xx),
		cmocka_unit_test(test_http_closed_silent_garbage),
		cmocka_unit_test(test_http_refused_and_bad_path),
		cmocka_unit_test(test_driven_side_by_side),
		cmocka_unit_test(test_http_judged),
		cmocka_unit_test(test_split_hostport),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
