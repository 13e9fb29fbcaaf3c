// SPDX-License-Identifier: MIT
/*
 * test_guard_vnetd.c - an adversarial frontend shrinks its guest memory
 * under a running vnetd (two ports, --backend loop, both on the one thread
 * of --worker-threads 1). Port A is set up on
 * an unsealed memfd and carries traffic; the memfd is then truncated (to
 * 4 KiB, to 0, shrunk and grown back) and A's rings kicked. Expected: vnetd
 * lives, one log line names port A and the region, A's connection is
 * closed, port B still carries traffic. The same for the dirty log: A
 * sets LOG_SHMFD + SET_LOG_BASE (raw messages: the library does not
 * migrate) + LOG_ALL, the log memfd is truncated to 0 and traffic makes
 * vnetd write it. Needs build/vnetd (else skip).
 *
 * Each A session runs in a child: after the truncation its own accesses
 * to that memory would fault too, so it touches none, only eventfds and
 * the socket.
 */
/* needs: none */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"
#include "vu_frontend.h"
#include "vu_msg.h"
#include "vu_proto.h"

#define T_MEM	(8u << 20)
#define T_FRAMES 32

static char t_dir[64], t_log[96], t_sa[96], t_sb[96];
static pid_t t_vnetd = -1;

static void t_rx_cb(void *opaque, const struct virtio_net_hdr_v1 *hdr,
		    const struct iovec *iov, unsigned int niov, uint32_t len)
{
	(void)hdr; (void)iov; (void)niov; (void)len;
	++*(unsigned int *)opaque;
}

/* Send T_FRAMES on pair 0, expect them all back (loop). Return: 0 or -1 */
static int t_traffic(struct vu_frontend *f)
{
	uint8_t frame[64] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2 };
	unsigned int got = 0, sent = 0, tries;
	int tx = 0, rx = 0;

	for (tries = 0; tries < 3000 && got < T_FRAMES; tries++) {
		if (sent < T_FRAMES) {
			tx = vu_frontend_tx(f, 0, NULL, frame, sizeof(frame));
			sent += !tx;
		}
		vu_frontend_tx_flush(f, 0);
		rx = vu_frontend_rx(f, 0, t_rx_cb, &got, 64);
		if (got < sent || tx)
			usleep(1000);
	}
	/* >=: the loop backend may still hold a frame of the last session */
	if (got >= T_FRAMES)
		return 0;
	fprintf(stderr, "  traffic: sent %u got %u (last tx %d rx %d)\n", sent,
		got, tx, rx);
	return -1;
}

static int t_connect(struct vu_frontend *f, const char *sock,
		     const struct vu_frontend_region *reg)
{
	memset(f, 0, sizeof(*f));
	struct vu_frontend_opts o = { .pairs = 1, .ring_size = 64 };
	int i;

	o.regions = reg;
	o.nregions = reg ? 1 : 0;
	if (vu_frontend_init(f, &o))
		return -1;
	for (i = 0; i < 100; i++) {
		if (!vu_frontend_connect(f, sock))
			return 0;
		usleep(20000);
	}
	return -1;
}

static unsigned int t_count_lines(const char *needle)
{
	char line[512];
	unsigned int n = 0;
	FILE *fp = fopen(t_log, "r");

	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp))
		n += strstr(line, needle) && strstr(line, "port a:") ? 1 : 0;
	fclose(fp);
	return n;
}

/* One raw request; with @reply, read the u64 answer. Return: 0 or -1 */
static int t_raw(struct vu_frontend *f, uint32_t req, const void *pl,
		 uint32_t size, int fd, bool reply)
{
	struct vu_msg m = { .hdr = { req, VHOST_USER_VERSION, size } };

	memcpy(&m.payload, pl, size);
	if (fd >= 0) {
		m.fds[0] = fd;
		m.nfds = 1;
	}
	if (vu_msg_send(f->sock, &m))
		return -1;
	if (!reply)
		return 0;
	if (vu_msg_recv(f->sock, &m))
		return -1;
	vu_msg_close_fds(&m);
	return m.hdr.request == req ? 0 : -1;
}

/* Turn on dirty logging into @logfd (@size bytes). Return: 0 or -1 */
static int t_log_on(struct vu_frontend *f, int logfd, uint64_t size)
{
	uint64_t pf = f->protocol_features |
		      (1ULL << VHOST_USER_PROTOCOL_F_LOG_SHMFD);
	uint64_t feat = f->features | (1ULL << VHOST_F_LOG_ALL_BIT) |
			(1ULL << VHOST_USER_F_PROTOCOL_FEATURES);
	struct vu_log l = { .mmap_size = size, .mmap_offset = 0 };

	if (t_raw(f, VHOST_USER_SET_PROTOCOL_FEATURES, &pf, sizeof(pf), -1,
		  false) ||
	    t_raw(f, VHOST_USER_SET_LOG_BASE, &l, sizeof(l), logfd, true) ||
	    t_raw(f, VHOST_USER_SET_FEATURES, &feat, sizeof(feat), -1, false))
		return -1;
	return t_traffic(f);	/* vnetd logs while it works */
}

/*
 * Child: set up A on @memfd, traffic, tell the parent (@to), wait for its
 * go (@from), kick every ring, then wait for vnetd to hang up.
 * Exit: 0 hung up, 1 setup or traffic failed, 2 not hung up
 */
static void t_child(int memfd, int logfd, int to, int from)
{
	struct vu_frontend_region reg = { .fd = memfd, .gpa = 0x100000,
					  .size = T_MEM };
	struct vu_frontend f;
	struct pollfd p;
	uint64_t one = 1;
	char c = 0;
	int i;

	if (t_connect(&f, t_sa, &reg) || t_traffic(&f)) {
		fprintf(stderr, "  child: setup/traffic: %s\n",
			vu_frontend_error(&f));
		_exit(1);
	}
	if (logfd >= 0 && t_log_on(&f, logfd, T_MEM >> 15)) {
		fprintf(stderr, "  child: dirty log setup failed\n");
		_exit(1);
	}
	if (write(to, &c, 1) != 1 || read(from, &c, 1) != 1)
		_exit(1);
	if (logfd >= 0)		/* our memory is fine: make vnetd log */
		t_traffic(&f);
	for (i = 0; i < 2; i++)
		if (write(f.q[i].kick_fd, &one, sizeof(one)) < 0)
			_exit(1);
	p.fd = f.sock;
	p.events = POLLIN;
	for (i = 0; i < 50; i++) {
		if (poll(&p, 1, 100) == 1 && recv(f.sock, &c, 1, MSG_DONTWAIT) == 0)
			_exit(0);
		if (write(f.q[i & 1].kick_fd, &one, sizeof(one)) < 0)
			_exit(1);
	}
	_exit(2);
}

/*
 * One attack on A: shrink to @to_size (the dirty log's memfd if @log),
 * grow back if @grow
 */
static void t_attack(off_t to_size, bool grow, bool log)
{
	int memfd, logfd = -1, up[2], down[2], st;
	unsigned int before = t_count_lines("shrank");
	unsigned int before_kind = t_count_lines(log ? "dirty log" :
						 "memory region");
	struct vu_frontend b;
	char c;
	pid_t pid;

	memfd = memfd_create("t-unsealed", MFD_CLOEXEC);
	CHECK(memfd >= 0);
	CHECK_EQ(ftruncate(memfd, T_MEM), 0);
	if (log) {
		logfd = memfd_create("t-unsealed-log", MFD_CLOEXEC);
		CHECK(logfd >= 0);
		CHECK_EQ(ftruncate(logfd, T_MEM >> 15), 0);
	}
	CHECK(!pipe(up) && !pipe(down));
	pid = fork();
	CHECK(pid >= 0);
	if (!pid)
		t_child(memfd, logfd, up[1], down[0]);
	close(up[1]);
	close(down[0]);
	CHECK_EQ(read(up[0], &c, 1), 1);	/* A set up and carried traffic */
	CHECK_EQ(ftruncate(log ? logfd : memfd, to_size), 0);
	CHECK_EQ(write(down[1], &c, 1), 1);
	if (grow) {
		usleep(300000);
		CHECK_EQ(ftruncate(log ? logfd : memfd, T_MEM), 0);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);		/* vnetd closed A */
	CHECK_EQ(waitpid(t_vnetd, &st, WNOHANG), 0);	/* vnetd alive */
	CHECK_EQ(t_count_lines(log ? "dirty log" : "memory region"),
		 before_kind + 1);
	CHECK_EQ(t_count_lines("shrank"), before + 1);
	CHECK_EQ(t_connect(&b, t_sb, NULL), 0);
	CHECK_EQ(t_traffic(&b), 0);		/* B untouched */
	vu_frontend_cleanup(&b);
	/* and A serves a well-behaved frontend again */
	CHECK_EQ(t_connect(&b, t_sa, NULL), 0);
	CHECK_EQ(t_traffic(&b), 0);
	vu_frontend_cleanup(&b);
	close(memfd);
	if (logfd >= 0)
		close(logfd);
	close(up[0]);
	close(down[1]);
}

static void test_truncate_4k(void) { t_attack(4096, false, false); }
static void test_truncate_0(void) { t_attack(0, false, false); }
static void test_shrink_grow(void) { t_attack(4096, true, false); }
static void test_log_truncate_0(void) { t_attack(0, false, true); }
static void test_log_shrink_grow(void) { t_attack(0, true, true); }

static int t_start_vnetd(void)
{
	const char *bin = getenv("VNETD") ? getenv("VNETD") : "build/vnetd";
	char pa[160], pb[160], ctl[96];
	struct stat st;

	if (access(bin, X_OK))
		return -1;
	snprintf(t_dir, sizeof(t_dir), "/tmp/t-guard-XXXXXX");
	if (!mkdtemp(t_dir))
		return -1;
	snprintf(t_log, sizeof(t_log), "%s/vnetd.log", t_dir);
	snprintf(t_sa, sizeof(t_sa), "%s/a.sock", t_dir);
	snprintf(t_sb, sizeof(t_sb), "%s/b.sock", t_dir);
	snprintf(ctl, sizeof(ctl), "%s/ctl.sock", t_dir);
	snprintf(pa, sizeof(pa), "socket=%s,backend=loop,name=a", t_sa);
	snprintf(pb, sizeof(pb), "socket=%s,backend=loop,name=b", t_sb);
	t_vnetd = fork();
	if (t_vnetd < 0)
		return -1;
	if (!t_vnetd) {
		int fd = open(t_log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(127);
		/* one worker thread: A's fault must spare B on the same thread */
		execl(bin, bin, "--port", pa, "--port", pb, "--ctl-socket", ctl,
		      "--worker-threads", "1", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 200; i++) {
		if (!stat(t_sb, &st))
			return 0;
		usleep(10000);
	}
	return -1;
}

int main(void)
{
	int st;

	signal(SIGPIPE, SIG_IGN);
	if (t_start_vnetd()) {
		printf("SKIP: cannot start vnetd (build/vnetd, or $VNETD)\n");
		return 77;
	}
	RUN(test_truncate_4k);
	RUN(test_truncate_0);
	RUN(test_shrink_grow);
	RUN(test_log_truncate_0);
	RUN(test_log_shrink_grow);
	kill(t_vnetd, SIGTERM);
	waitpid(t_vnetd, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("not ok - vnetd exit status %#x; log in %s\n", st, t_log);
		return 1;
	}
	if (!t_failed) {	/* keep the log of a failed run */
		unlink(t_log);
		rmdir(t_dir);
	}
	return test_exit();
}
