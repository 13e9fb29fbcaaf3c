// SPDX-License-Identifier: MIT
/*
 * vhost-net-txgen.c - guest helper for tests/guest/test-vhost-net-vnetd.sh:
 * sends N broadcast Ethernet frames of L bytes out of interface IF through
 * an AF_PACKET socket. On a TAP that is "transmit", i.e. the frames go to
 * the TAP's reader: vnetd's worker or the kernel's vhost-net RX ring, and
 * from there to the vhost-user frontend (vnet-bench --mode rx-only).
 *
 * Usage: vhost-net-txgen IF N [L]   (L: 60..1514, default 60)
 * Prints "TXGEN sent=N secs=S" and exits 0, or 1 with a reason.
 * Security model: test helper, run by root in the test guest only.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_packet.h>
#include <sys/socket.h>

#define TXGEN_ETHERTYPE	0x88b5	/* IEEE local experimental */

static double txgen_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int txgen_send(int fd, const struct sockaddr_ll *sll,
		      const unsigned char *f, size_t len)
{
	/* TAP queue full (no reader keeping up): wait a moment, retry */
	while (sendto(fd, f, len, 0, (const struct sockaddr *)sll,
		      sizeof(*sll)) < 0) {
		if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
			return -errno;
		usleep(100);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned char f[1514];
	struct sockaddr_ll sll;
	unsigned long n, i;
	size_t len = 60;
	double t0;
	int fd, ret;

	if (argc < 3) {
		fprintf(stderr, "usage: %s IF N [LEN]\n", argv[0]);
		return 1;
	}
	n = strtoul(argv[2], NULL, 0);
	if (argc > 3)
		len = strtoul(argv[3], NULL, 0);
	if (len < 60 || len > sizeof(f)) {
		fprintf(stderr, "txgen: length %zu outside 60..1514\n", len);
		return 1;
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(TXGEN_ETHERTYPE);
	sll.sll_ifindex = (int)if_nametoindex(argv[1]);
	sll.sll_halen = 6;
	memset(sll.sll_addr, 0xff, 6);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "txgen: no interface %s\n", argv[1]);
		return 1;
	}
	fd = socket(AF_PACKET, SOCK_RAW, htons(TXGEN_ETHERTYPE));
	if (fd < 0) {
		perror("txgen: socket(AF_PACKET)");
		return 1;
	}
	memset(f, 0, sizeof(f));
	memset(f, 0xff, 6);
	f[6] = 0x02;			/* locally administered source */
	f[11] = 0x01;
	f[12] = TXGEN_ETHERTYPE >> 8;
	f[13] = TXGEN_ETHERTYPE & 0xff;
	t0 = txgen_now();
	for (i = 0; i < n; i++) {
		memcpy(f + 14, &i, sizeof(i));
		ret = txgen_send(fd, &sll, f, len);
		if (ret) {
			fprintf(stderr, "txgen: sendto: %s after %lu frames\n",
				strerror(-ret), i);
			close(fd);
			return 1;
		}
	}
	printf("TXGEN sent=%lu secs=%.3f\n", n, txgen_now() - t0);
	close(fd);
	return 0;
}
