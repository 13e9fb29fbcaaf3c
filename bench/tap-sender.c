// SPDX-License-Identifier: MIT
/*
 * tap-sender.c - a paced frame source for bench/tap-rx-load.sh: 64 B UDP
 * frames out of an interface (the host side of vnetd's TAP) through an
 * AF_PACKET socket, sendmmsg() in bursts, the qdisc bypassed. Frames vary
 * the UDP source port over FLOWS flows so the tun driver spreads them over
 * a multiqueue TAP's queues.
 *
 * Usage: tap-sender IFNAME RATE SECONDS [FLOWS]
 *   RATE   frames per second, 0: as fast as it can
 * Prints one line: sent=N secs=S rate=R errors=E
 *
 * Pacing: bursts of RATE / 20000 frames (1..32), one every burst / RATE
 * seconds, on an absolute clock (clock_nanosleep, timer slack 1 us). A
 * sender that falls more than 10 ms behind skips ahead rather than burst:
 * "sent" is what really went out, so the rate printed is the offered one.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#define FRAME_LEN	64
#define MAX_BURST	64
#define MAX_FLOWS	256

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint16_t ip_csum(const uint8_t *p, size_t len)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* Ethernet + IPv4 + UDP, 64 bytes without FCS, UDP source port 10000 + @flow */
static void frame_build(uint8_t *f, unsigned int flow)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 0x99 };
	uint8_t *ip = f + 14, *udp = ip + 20;
	uint16_t v;

	memset(f, 0, FRAME_LEN);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08;
	ip[0] = 0x45;
	v = htons(FRAME_LEN - 14);
	memcpy(ip + 2, &v, 2);
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, (uint8_t[4]){ 10, 0, 0, 2 }, 4);
	memcpy(ip + 16, (uint8_t[4]){ 10, 0, 0, 1 }, 4);
	v = htons(ip_csum(ip, 20));
	memcpy(ip + 10, &v, 2);
	v = htons((uint16_t)(10000 + flow));
	memcpy(udp, &v, 2);
	v = htons(9);
	memcpy(udp + 2, &v, 2);
	v = htons(FRAME_LEN - 14 - 20);
	memcpy(udp + 4, &v, 2);
}

static int open_sock(const char *ifname)
{
	struct sockaddr_ll sll;
	int fd, one = 1;

	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror("tap-sender: socket(AF_PACKET)");
		return -1;
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "tap-sender: interface %s: %s\n", ifname,
			strerror(errno));
		close(fd);
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		perror("tap-sender: bind");
		close(fd);
		return -1;
	}
	/* best effort: without it the qdisc is one more queue in the way */
	(void)setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	return fd;
}

int main(int argc, char **argv)
{
	static uint8_t frames[MAX_FLOWS][FRAME_LEN];
	struct mmsghdr msg[MAX_BURST];
	struct iovec iov[MAX_BURST];
	uint64_t sent = 0, errors = 0, t0, end, next, gap = 0, t;
	unsigned long rate, secs, flows = 64, i, burst, flow = 0;
	struct timespec ts;
	int fd, n;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: tap-sender IFNAME RATE SECONDS [FLOWS]\n");
		return 2;
	}
	rate = strtoul(argv[2], NULL, 10);
	secs = strtoul(argv[3], NULL, 10);
	if (argc == 5)
		flows = strtoul(argv[4], NULL, 10);
	if (!secs || secs > 3600 || !flows || flows > MAX_FLOWS ||
	    rate > 100000000) {
		fprintf(stderr, "tap-sender: SECONDS 1..3600, FLOWS 1..%d, "
			"RATE 0..100000000\n", MAX_FLOWS);
		return 2;
	}
	fd = open_sock(argv[1]);
	if (fd < 0)
		return 1;
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	for (i = 0; i < flows; i++)
		frame_build(frames[i], (unsigned int)i);
	burst = rate ? rate / 20000 : MAX_BURST;
	burst = burst < 1 ? 1 : burst > 32 && rate ? 32 : burst;
	if (rate)
		gap = burst * 1000000000ull / rate;
	memset(msg, 0, sizeof(msg));
	for (i = 0; i < burst; i++) {
		iov[i].iov_len = FRAME_LEN;
		msg[i].msg_hdr.msg_iov = &iov[i];
		msg[i].msg_hdr.msg_iovlen = 1;
	}
	t0 = next = now_ns();
	end = t0 + secs * 1000000000ull;
	while ((t = now_ns()) < end) {
		if (rate) {
			if (t < next) {
				ts.tv_sec = (time_t)(next / 1000000000u);
				ts.tv_nsec = (long)(next % 1000000000u);
				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
						&ts, NULL);
			} else if (t > next + 10000000u) {
				next = t;	/* far behind: skip, do not burst */
			}
			next += gap;
		}
		for (i = 0; i < burst; i++) {
			iov[i].iov_base = frames[flow];
			flow = flow + 1 < flows ? flow + 1 : 0;
		}
		n = sendmmsg(fd, msg, (unsigned int)burst, 0);
		if (n > 0)
			sent += (uint64_t)n;
		if (n < (int)burst)
			errors++;
	}
	t = now_ns();
	printf("sent=%llu secs=%.3f rate=%.0f errors=%llu\n",
	       (unsigned long long)sent, (double)(t - t0) / 1e9,
	       (double)sent * 1e9 / (double)(t - t0),
	       (unsigned long long)errors);
	close(fd);
	return 0;
}
