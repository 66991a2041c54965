/*
 * tests/unit/loopback.h: a listening socket on 127.0.0.1 for the unit tests
 * that fork a fake server (test_probe.c, test_slurm_restd.c).  Include it
 * after <cmocka.h>: a failure fails the calling test.
 */
#ifndef SRT_TESTS_UNIT_LOOPBACK_H
#define SRT_TESTS_UNIT_LOOPBACK_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

/* A listening socket on 127.0.0.1:<a port the kernel picks>, in *port. */
static inline int loopback_listener(int backlog, int *port)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, backlog), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

#endif
