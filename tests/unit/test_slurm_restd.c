/*
 * tests/unit/test_slurm_restd.c: the SLURM client's transport (slurm/restd.c)
 * against a fake slurmrestd on 127.0.0.1, for hostile replies and settings
 * (issue #12, items 7 and 10).
 *
 * Each test binds a listener on a port the kernel picks and forks a server
 * that answers a fixed number of connections with one canned reply each,
 * then exits; it is killed by its pid when the test ends.  The API version is
 * pinned, so the client sends no version probes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "slurm/internal.h"
#include "slurm/slurm.h"
#include "util/buf.h"

#include "loopback.h"

/* {"exp":4102444800,"iat":1700000000,"sun":"alice"} */
#define JWT_ALICE                                                                           \
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjQxMDI0NDQ4MDAsImlhdCI6MTcwMDAwMDAw" \
	"MCwic3VuIjoiYWxpY2UifQ.c2lnbmF0dXJlX29mX3RoZV90b2tlbg"
/* {"exp":4102444800,"iat":1700000000,"sun":"alice\r\nX-Evil: 1"} */
#define JWT_CRLF_SUN                                                                        \
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjQxMDI0NDQ4MDAsImlhdCI6MTcwMDAwMDAw" \
	"MCwic3VuIjoiYWxpY2VcclxuWC1FdmlsOiAxIn0.c2lnbmF0dXJlX29mX3RoZV90b2tlbg"
/* The signature part of both: what must never show. */
#define JWT_SIG "c2lnbmF0dXJlX29mX3RoZV90b2tlbg"
/* Another user's token, as a server might echo it in a message. */
#define JWT_OTHER "eyJhbGciOiJIUzI1NiJ9.eyJzdW4iOiJtYWxsb3J5In0.b3RoZXJzaWduYXR1cmU"

struct server {
	pid_t pid;
	int port;
};

/*
 * Fork a server on 127.0.0.1 that answers `nconn` connections: reads the
 * request head, writes `head` and then `body_len` bytes of `body` (repeated
 * from the start when body_len is longer), and closes.
 */
static struct server serve(int nconn, const char *head, const char *body, size_t body_len)
{
	struct server s;
	int fd = loopback_listener(8, &s.port);

	s.pid = fork();
	assert_true(s.pid >= 0);
	if (s.pid == 0) {
		size_t blen = strlen(body);

		for (int k = 0; k < nconn; k++) {
			struct timeval tv = { 5, 0 };
			char req[8192];
			size_t got = 0, sent = 0;
			ssize_t n;
			int c = accept(fd, NULL, NULL);

			if (c < 0)
				_exit(1);
			setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
			while (got < sizeof(req) - 1 &&
			       (n = recv(c, req + got, sizeof(req) - 1 - got, 0)) > 0) {
				got += (size_t)n;
				req[got] = '\0';
				if (strstr(req, "\r\n\r\n"))
					break;
			}
			(void)!write(c, head, strlen(head));
			while (sent < body_len && blen > 0) {
				size_t off = sent % blen;
				size_t chunk = blen - off < body_len - sent ? blen - off :
									      body_len - sent;

				n = write(c, body + off, chunk);
				if (n <= 0)
					break; /* the client hung up */
				sent += (size_t)n;
			}
			close(c);
		}
		_exit(0);
	}
	close(fd);
	return s;
}

/* A server of one canned reply with a Content-Length, for `nconn` connections. */
static struct server serve_json(int nconn, int status, const char *body)
{
	char head[256];

	snprintf(head, sizeof(head),
		 "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
		 "Connection: close\r\n\r\n",
		 status, strlen(body));
	return serve(nconn, head, body, strlen(body));
}

static void stop(struct server *s)
{
	int st;

	kill(s->pid, SIGKILL);
	waitpid(s->pid, &st, 0);
}

static struct srt_slurm *client(int port, const char *token, const char *user)
{
	struct srt_slurm_config cfg;
	struct srt_slurm *s = NULL;
	struct srt_error err = { "" };
	char url[64];

	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	memset(&cfg, 0, sizeof(cfg));
	cfg.url = url;
	cfg.api_version = "v0.0.42";
	cfg.user = user;
	cfg.auth.token = token;
	cfg.auth.origin = "$SLURM_JWT";
	cfg.timeout_ms = 20000;
	if (srt_slurm_new(&s, &cfg, &err) != 0)
		fail_msg("srt_slurm_new: %s", err.msg);
	return s;
}

/* ---- item 7: the reply cap ------------------------------------------------------------ */

/*
 * A reply that says it is bigger than the cap is refused at once, before its
 * body is read, with what happened, the limit and what to do.  (It was read
 * up to 1 GiB before, and this one then broke off: "UNREACHABLE".)
 */
static void test_reply_over_cap_by_length(void **state)
{
	const char *head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
			   "Content-Length: 900000000\r\nConnection: close\r\n\r\n";
	struct server srv = serve(1, head, "{\"jobs\":[", 9);
	struct srt_slurm *s = client(srv.port, NULL, NULL);
	struct srt_job_list l;
	struct srt_error err = { "" };
	char want[128];

	(void)state;
	assert_int_equal(srt_slurm_list_jobs(s, 0, &l, &err), SRT_SLURM_EPROTOCOL);
	snprintf(want, sizeof(want), "is larger than %d MiB", (int)(SRT_SLURM_MAX_REPLY >> 20));
	if (!strstr(err.msg, want) || !strstr(err.msg, "list jobs") ||
	    !strstr(err.msg, "MinJobAge"))
		fail_msg("unclear message: %s", err.msg);
	assert_int_equal(l.n, 0);
	srt_slurm_free(s);
	stop(&srv);
}

/* The same for a reply without a length: it is cut off at the cap (here 1 MiB). */
static void test_reply_over_cap_streamed(void **state)
{
	const char *head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
			   "Connection: close\r\n\r\n{\"jobs\":[";
	struct server srv = serve(1, head, "{\"job_id\":1},", 3u << 20);
	struct srt_slurm *s = client(srv.port, NULL, NULL);
	struct srt_job_list l;
	struct srt_error err = { "" };

	(void)state;
	srt_slurm_set_max_reply(s, 1u << 20);
	assert_int_equal(srt_slurm_list_jobs(s, 0, &l, &err), SRT_SLURM_EPROTOCOL);
	if (!strstr(err.msg, "is larger than 1 MiB"))
		fail_msg("unclear message: %s", err.msg);
	srt_slurm_free(s);
	stop(&srv);
}

/* ---- item 10: secrets -------------------------------------------------------------- */

/*
 * A server that echoes the token (ours, or anything that looks like a JWT) in
 * its error text, a non-JSON page or a job's fields: none of it reaches a
 * message or a job.
 */
static void test_token_redacted_from_replies(void **state)
{
	static const char *const tokens[] = { JWT_ALICE, "opaque-Token_0123456789" };
	struct srt_error err = { "" };

	(void)state;
	for (size_t t = 0; t < sizeof(tokens) / sizeof(tokens[0]); t++) {
		const char *tok = tokens[t];
		char *errors = srt_xasprintf(
			"{\"errors\":[{\"description\":\"cannot use token %s (nor " JWT_OTHER
			")\",\"error_number\":2010,\"error\":\"%s\",\"source\":\"%s\"}]}",
			tok, tok, tok);
		char *page = srt_xasprintf("<html>bad gateway for %s</html>", tok);
		char *jobs = srt_xasprintf(
			"{\"jobs\":[{\"job_id\":5,\"name\":\"%s\",\"comment\":\"x %s y\","
			"\"state_description\":\"" JWT_OTHER "\",\"job_state\":[\"RUNNING\"]}]}",
			tok, tok);
		struct server srv = serve_json(1, 500, errors);
		struct srt_slurm *s = client(srv.port, tok, NULL);
		struct srt_job j;
		struct srt_job_list l;

		assert_int_not_equal(srt_slurm_get_job(s, 42, &j, &err), 0);
		if (strstr(err.msg, tok) || strstr(err.msg, JWT_SIG) ||
		    strstr(err.msg, "b3RoZXJzaWduYXR1cmU"))
			fail_msg("the token shows: %s", err.msg);
		assert_non_null(strstr(err.msg, "cannot use token"));
		srt_slurm_free(s);
		stop(&srv);

		srv = serve_json(1, 502, page);
		s = client(srv.port, tok, NULL);
		assert_int_equal(srt_slurm_get_job(s, 42, &j, &err), SRT_SLURM_ESERVER);
		if (strstr(err.msg, tok) || !strstr(err.msg, "bad gateway for"))
			fail_msg("the token shows (or the page does not): %s", err.msg);
		srt_slurm_free(s);
		stop(&srv);

		srv = serve_json(1, 200, jobs);
		s = client(srv.port, tok, NULL);
		assert_int_equal(srt_slurm_list_jobs(s, 0, &l, &err), 0);
		assert_int_equal(l.n, 1);
		if (strstr(l.jobs[0].name, tok) || strstr(l.jobs[0].comment, tok) ||
		    strstr(l.jobs[0].description, "b3RoZXJzaWduYXR1cmU"))
			fail_msg("the token shows in a job: '%s' '%s' '%s'", l.jobs[0].name,
				 l.jobs[0].comment, l.jobs[0].description);
		assert_true(!strncmp(l.jobs[0].comment, "x ", 2));
		srt_job_list_release(&l);
		srt_slurm_free(s);
		stop(&srv);
		free(errors);
		free(page);
		free(jobs);
	}
}

/*
 * A user name that could split or add an HTTP header (CR, LF or any control
 * character), from the token's "sun" claim or the configuration, is refused
 * before anything is sent, with a message that names where it came from.
 */
static void test_header_values_checked(void **state)
{
	static const char *const users[] = { "bob\r\nX-Evil: 1", "bob\x1b[31m", "bob\tx",
					     "bob smith", "bob\x7f" };
	struct srt_slurm_config cfg;
	struct srt_slurm *s = NULL;
	struct srt_error err = { "" };

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.url = "http://127.0.0.1:9";
	cfg.api_version = "v0.0.42";
	cfg.auth.token = JWT_CRLF_SUN;
	cfg.auth.origin = "$SLURM_JWT";
	assert_int_equal(srt_slurm_new(&s, &cfg, &err), SRT_SLURM_EINVAL);
	assert_null(s);
	if (!strstr(err.msg, "'sun' claim") || !strstr(err.msg, "$SLURM_JWT") ||
	    strstr(err.msg, "Evil"))
		fail_msg("unclear message: %s", err.msg);
	/* A configured user wins over the claim, which is then not sent. */
	cfg.user = "alice";
	assert_int_equal(srt_slurm_new(&s, &cfg, &err), 0);
	srt_slurm_free(s);
	s = NULL;
	cfg.auth.token = JWT_ALICE;
	for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
		cfg.user = users[i];
		assert_int_equal(srt_slurm_new(&s, &cfg, &err), SRT_SLURM_EINVAL);
		assert_null(s);
		if (!strstr(err.msg, "slurmrestd.user"))
			fail_msg("user %zu: unclear message: %s", i, err.msg);
	}
}

/* A URL's password never shows: not in srt_slurm_url(), not in a message. */
static void test_url_password_masked(void **state)
{
	static const struct {
		const char *url, *want;
	} rows[] = {
		{ "http://u:pw@h:1", "http://u:***@h:1" },
		{ "https://u:p@ss@h/x", "https://u:***@h/x" },
		{ "http://:pw@h", "http://:***@h" },
		{ "http://u@h:1", "http://u@h:1" },
		{ "http://h:1/a:b@c", "http://h:1/a:b@c" },
		{ "http://h:1?a:b@c", "http://h:1?a:b@c" },
		{ "unix:/run/x:y@z", "unix:/run/x:y@z" },
		{ "", "" },
	};
	struct srt_slurm_config cfg;
	struct srt_slurm *s = NULL;
	struct srt_error err = { "" };
	struct srt_job j;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *got = srt_slurm_url_redact(rows[i].url);

		assert_string_equal(got, rows[i].want);
		free(got);
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.url = "http://ci:s3cret@127.0.0.1:9";
	cfg.api_version = "v0.0.42";
	cfg.timeout_ms = 5000;
	assert_int_equal(srt_slurm_new(&s, &cfg, &err), 0);
	assert_string_equal(srt_slurm_url(s), "http://ci:***@127.0.0.1:9");
	assert_int_equal(srt_slurm_get_job(s, 1, &j, &err), SRT_SLURM_EUNREACHABLE);
	if (strstr(err.msg, "s3cret") || !strstr(err.msg, "http://ci:***@127.0.0.1:9"))
		fail_msg("message: %s", err.msg);
	srt_slurm_free(s);
	/* A URL refused as malformed is quoted masked too. */
	cfg.url = "http://ci:s3cret@127.0.0.1:9/a b";
	assert_int_equal(srt_slurm_new(&s, &cfg, &err), SRT_SLURM_EINVAL);
	if (strstr(err.msg, "s3cret"))
		fail_msg("message: %s", err.msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reply_over_cap_by_length),
		cmocka_unit_test(test_reply_over_cap_streamed),
		cmocka_unit_test(test_token_redacted_from_replies),
		cmocka_unit_test(test_header_values_checked),
		cmocka_unit_test(test_url_password_masked),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
