// SPDX-License-Identifier: MIT
/*
 * mig-udp.c - guest helper for tests/guest/test-migrate.sh: a UDP socket
 * that is not read during the migration. The datagrams the host sends
 * meanwhile stay in the RX buffers vnetd wrote them into (UDP does not copy
 * or collapse its queue), so after the switch-over the guest reads, on the
 * destination, exactly the pages only vnetd's dirty log can have carried
 * over. Each datagram is checked against the pattern the host sent.
 *
 * Usage: mig-udp PORT FILE   binds 0.0.0.0:PORT with a 32 MiB receive
 *   buffer, prints "MIGUDP bound", waits until FILE exists, then drains the
 *   queue and prints "MIGUDP received=N bad=M first_bad=SEQ end=WHY" (exit 0), or a
 *   reason (exit 1).
 * Datagram: 8000 bytes, byte i = (seq * 7 + i) & 0xff after a 4-byte
 *   big-endian seq (mig-peer.py udp). Larger than any mergeable RX buffer,
 *   so the driver keeps the data in vnetd's buffers without writing them
 *   (a small frame gets its skb_shared_info written into its buffer's
 *   page, which QEMU then sends again, dirty log or not).
 * Security model: test helper, run by root in the test guest only.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define MIGUDP_LEN	8000

static int migudp_ok(const unsigned char *b, ssize_t n, uint32_t *seq)
{
	ssize_t i;

	if (n != MIGUDP_LEN)
		return 0;
	*seq = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
	for (i = 4; i < n; i++)
		if (b[i] != (unsigned char)((*seq * 7 + (uint32_t)i) & 0xff))
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	static unsigned char buf[65536];
	struct sockaddr_in a = { .sin_family = AF_INET };
	unsigned long received = 0, bad = 0;
	long first_bad = -1;
	int fd, sz = 32 << 20;
	uint32_t seq;
	ssize_t n;

	if (argc != 3) {
		fprintf(stderr, "usage: mig-udp PORT FILE\n");
		return 1;
	}
	a.sin_port = htons((uint16_t)atoi(argv[1]));
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		fprintf(stderr, "mig-udp: socket/bind port %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	printf("MIGUDP bound\n");
	fflush(stdout);
	while (access(argv[2], F_OK))
		usleep(100000);
	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) >= 0) {
		received++;
		seq = 0;
		if (!migudp_ok(buf, n, &seq)) {
			bad++;
			if (first_bad < 0)
				first_bad = seq;
		}
	}
	/* EAGAIN: the queue is drained; anything else is worth seeing */
	printf("MIGUDP received=%lu bad=%lu first_bad=%ld end=%s\n", received,
	       bad, first_bad, errno == EAGAIN ? "drained" : strerror(errno));
	return 0;
}
