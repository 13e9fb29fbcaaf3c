// SPDX-License-Identifier: MIT
/*
 * host_afxdp.c - the af_xdp host: one AF_XDP socket per queue pair, bound
 * to queue (first + pair) of an existing interface (--xdp-if, --xdp-queue),
 * each with its own UMEM and fill/completion rings. libxdp loads its
 * redirect program with the XSKMAP (the default program QEMU's af-xdp
 * netdev and OVS use too) and, where the kernel refuses TX metadata room,
 * makes the sockets; else we make them (see TX checksums below). Writing
 * and pinning our own
 * program buys nothing measurable on the copy path and costs a BPF build
 * dependency. The frame path is xsk_ring.c: copies between guest memory and
 * the UMEM, no syscall per frame; this file only turns its wake-up requests
 * into syscalls:
 *
 * - TX: tx() queues a frame without publishing it, tx_flush() publishes
 *   the burst and, when the kernel set NEED_WAKEUP on the TX ring (always,
 *   in copy mode), sends one sendto(); the kernel's copy-mode budget is 32
 *   frames per call and a burst is at most NET_TX_BURST.
 * - RX: rx_peek_len() refills the fill ring with the chunks the last batch
 *   freed (one publish) and, only when the kernel set NEED_WAKEUP on the
 *   fill ring, calls recvfrom(); then takes up to XSK_RX_BATCH descriptors
 *   at once. The socket fd polls readable while the RX ring has frames.
 *
 * AF_XDP carries no virtio-net header: host_features() offers the guest
 * CSUM, HOST_TSO4, HOST_TSO6 and HOST_USO, and tx() does the work in
 * software (gso.c): a frame asking for a checksum or segmentation becomes
 * complete wire frames written straight into TX chunks, all segments of
 * one frame reserved together so none is sent half. A frame gso refuses
 * (bad header, a segment larger than a chunk, more segments than the ring)
 * is dropped: -EINVAL, which net.c counts as a host drop, and counted here
 * for status. Towards the guest it offers GUEST_CSUM, GUEST_TSO4 and
 * GUEST_TSO6: when the guest acked GUEST_CSUM and a TSO family, each RX
 * batch's consecutive TCP segments of one flow of that family go to the
 * guest merged into one GSO frame (GRO, xsk_ring.c and gro.c, checksums
 * verified in software first); every other frame comes with an all-zero
 * header (the guest checks the checksums itself).
 *
 * TX checksums (xsk_txmd.h): the sockets made here get a UMEM with
 * XSK_TXMD_LEN bytes of TX metadata room, registered by hand (libxdp 1.3
 * cannot ask for it), bound as a passed-in socket is and put in the
 * XSKMAP. In copy mode gso then leaves the transport checksums partial
 * (gso_partial()) and each frame asks the kernel for its checksum in its
 * metadata. A kernel refusing the room (EINVAL) gets libxdp's sockets and
 * software sums, as do zero-copy (only drivers with the xsk TX checksum
 * feature would honour the request, and we do not ask the driver).
 * Sockets passed in have the room when their maker says so: vnetctl
 * registers it and adds xdp-txmd= to `port add` (afxdp_room.h); sockets
 * passed without it get software sums.
 *
 * Modes (--xdp-mode): copy binds with XDP_COPY, zerocopy with XDP_ZEROCOPY
 * (refused by drivers without it, veth among them), auto tries zero-copy
 * and falls back to copy, remembering why for the log (host_ops.mode).
 *
 * Setup needs CAP_NET_ADMIN, CAP_BPF/CAP_SYS_ADMIN and locked memory: it
 * runs before the sandbox. A port added at run time comes with its
 * sockets (host_cfg.xdp_fds): a privileged process (vnetctl) made them
 * (socket(AF_XDP) needs CAP_NET_RAW), registered on each a UMEM of
 * afxdp_layout.h's size in a memfd it passes along (the pinned pages are
 * charged to it: CAP_IPC_LOCK, which we no longer have), loaded the program
 * and, once we answered, puts them in the XSKMAP (bpf() needs CAP_BPF
 * where unprivileged BPF is off). Here the memfd is mapped, the rings
 * sized, mapped and the socket bound: mmap, setsockopt, getsockopt and
 * bind on fds we hold, which the sandbox allows and no capability guards.
 * Such a socket binds once (its rings cannot be sized twice), so auto
 * means copy mode there; zerocopy is one zero-copy try. close() (port removed, exit) only unmaps and
 * closes (the socket leaves the XSKMAP as it closes), so the sandboxed
 * process needs no bpf() and no capability; the program stays on the
 * interface for the next start to reuse (host_afxdp_prog()).
 *
 * Upgrade (vnetd's upgrade.c): every UMEM is a sealed memfd, also for the
 * sockets libxdp makes here, so hand_over() can pass it with the socket
 * once xsk_queue_settle() left the rings saying where every chunk is. The
 * next process gets them as host_cfg.xdp_fds with xdp_bound: it maps the
 * memfd and the rings of the bound socket (no sizing, no bind) and adopts
 * them (xsk_queue_adopt()). The socket never closes, so it stays in the
 * XSKMAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <net/if.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/if_xdp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>

#include "afxdp_layout.h"
#include "afxdp_room.h"
#include "gso.h"
#include "host.h"
#include "host_priv.h"
#include "log.h"
#include "netif.h"
#include "reason.h"
#include "util.h"
#include "vnet_hdr.h"
#include "xsk_ring.h"
#include "xsk_txmd.h"

/* #syscalls: sendto recvfrom getsockopt munmap close
 * #syscalls: fcntl setsockopt mmap bind socket ioctl fstat newfstatat nanosleep clock_nanosleep
 * (a port added at run time: its passed sockets set up under the sandbox;
 * socket and ioctl are if_nametoindex() inside libxdp) */

/*
 * Per queue pair (afxdp_layout.h): the largest frame is a chunk less the
 * kernel's XDP headroom on RX; 8 MiB of locked UMEM per pair.
 */
_Static_assert(AFXDP_CHUNK == XSK_UMEM__DEFAULT_FRAME_SIZE, "libxdp's chunk");
/* sendto() calls per flush at most: a burst needs one in copy mode */
#define AFXDP_KICKS	4
/* A hand-over waits this long at most for the kernel to complete TX (the
 * reason host_afxdp_hand_over() gives says 20 ms) */
#define AFXDP_SETTLE_MS	20
/* A queue busy with a just-closed socket: tried again every step for this
 * long at most (afxdp_busy_wait()) */
#define AFXDP_BIND_WAIT_MS	250
#define AFXDP_BIND_STEP_MS	10
#define AFXDP_STR_(x)	#x
#define AFXDP_STR(x)	AFXDP_STR_(x)

/**
 * struct afxdp_q - One pair's socket
 * @q:		Its rings and UMEM (xsk_ring.c)
 * @umem:	libxdp's UMEM
 * @xsk:	libxdp's socket
 * @area:	The UMEM's memory (AFXDP_UMEM bytes), a MAP_SHARED mapping of
 *		@umem_fd
 * @umem_fd:	The UMEM's memfd, ours (a hand-over passes it on)
 * @fd:		Socket fd
 * @given_fd:	The socket passed in (host_cfg.xdp_fds, not ours), -1: none
 * @given_umem:	Its UMEM's memfd (not ours)
 * @map:	A passed-in socket's rings as mapped (fill, completion, RX,
 *		TX; libxdp's own sockets leave these NULL)
 * @map_len:	Their lengths
 * @kick_err:	sendto()/recvfrom() failures other than "try again"
 * @bad_offload: Guest frames whose offload request gso refused (dropped)
 * @gso:	Scratch of the frame being segmented (worker-owned)
 * @lx_fill:	libxdp's view of the rings, for as long as the socket lives:
 * @lx_comp:	xsk_umem__create() and xsk_socket__create() keep pointers to
 * @lx_rx:	them and xsk_socket__delete() / xsk_umem__delete() unmap the
 * @lx_tx:	rings through them (the data path uses @q's copies)
 */
struct afxdp_q {
	struct xsk_queue q;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	void *area;
	int umem_fd;
	int fd;
	int given_fd;
	int given_umem;
	void *map[4];
	size_t map_len[4];
	uint64_t kick_err;
	uint64_t bad_offload;
	struct gso gso;
	struct xsk_ring_prod lx_fill, lx_tx;
	struct xsk_ring_cons lx_comp, lx_rx;
};

/**
 * struct afxdp_priv - The sockets of one port
 * @ifname:	Interface
 * @first:	Queue of pair 0
 * @npairs:	Sockets open
 * @zerocopy:	Bound with XDP_ZEROCOPY
 * @txmd:	The UMEMs have TX metadata room (XSK_TXMD_LEN); during
 *		open(): still to try
 * @tx_sw_csum:	Register them with XDP_UMEM_TX_SW_CSUM (the test switch
 *		VNETD_XDP_TX_SW_CSUM)
 * @csum_kernel: tx() asks for checksums in the TX metadata (@txmd, copy
 *		mode) instead of summing them
 * @txcsum:	Who fills the checksums and why, for status
 * @map_fd:	The redirect program's XSKMAP, during open() only
 * @mode:	Copy or zero-copy and, for auto, why
 * @status:	What host_afxdp_mode() last said (control thread)
 * @qs:		Per pair
 */
struct afxdp_priv {
	char ifname[IFNAMSIZ];
	unsigned int first;
	unsigned int npairs;
	bool zerocopy;
	bool txmd;
	bool tx_sw_csum;
	bool csum_kernel;
	char txcsum[128];
	int map_fd;
	char mode[192];
	char status[768];
	struct afxdp_q qs[VNET_MAX_PAIRS];
};

/* libxdp's and libbpf's chatter: debug lines (our reason says what failed) */
static int host_afxdp_print(enum libxdp_print_level level, const char *fmt,
			    va_list ap)
{
	char line[256];
	size_t n;

	if (level == LIBXDP_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = '\0';
	log_debug("libxdp: %s", line);
	return 0;
}

static int host_afxdp_bpf_print(enum libbpf_print_level level, const char *fmt,
				va_list ap)
{
	return host_afxdp_print(level == LIBBPF_WARN ? LIBXDP_WARN : LIBXDP_DEBUG,
				fmt, ap);
}

/* What an operator can do when binding or loading failed with @err */
static const char *host_afxdp_hint(int err)
{
	switch (err) {
	case EPERM:
	case EACCES:
		return "needs root (CAP_NET_ADMIN, CAP_BPF, locked memory)";
	case EEXIST:
	case EBUSY:
		return "the interface or queue is in use: another XDP program "
		       "(ip link show; xdp-loader status) or another AF_XDP "
		       "socket on that queue: remove it or pick other queues "
		       "(--xdp-queue)";
	case EOPNOTSUPP:
	case EINVAL:
		return "the driver refuses this mode: try --xdp-mode copy";
	case ENOMEM:
	case ENOBUFS:
		return "locked memory: raise RLIMIT_MEMLOCK (LimitMEMLOCK=)";
	default:
		return "check the interface (ip link) and dmesg";
	}
}

/* What a bind that failed with -@err waited for first, else "" */
static const char *host_afxdp_waited(int err)
{
	return err == -EBUSY ? " (still busy after "
			       AFXDP_STR(AFXDP_BIND_WAIT_MS) " ms)" : "";
}

/*
 * Load libxdp's redirect program on the interface, or find the one a
 * previous start left there; its XSKMAP takes each socket by queue id. A
 * socket leaves the map by itself when it is closed; the program stays
 * (any later start reuses it; xdp-loader unload IF --all removes it).
 */
static int host_afxdp_prog(struct afxdp_priv *p, struct reason *why)
{
	int ret = xsk_setup_xdp_prog((int)if_nametoindex(p->ifname), &p->map_fd);

	if (ret)
		return reason_set(why, ret < 0 ? ret : -EINVAL, "af_xdp %s: loading "
				  "the XDP redirect program: %s: %s", p->ifname,
				  strerror(ret < 0 ? -ret : EINVAL),
				  host_afxdp_hint(ret < 0 ? -ret : EINVAL));
	return 0;
}

/* Delete libxdp's socket and UMEM of @aq, those that exist (not the memory) */
static void host_afxdp_lx_delete(struct afxdp_q *aq)
{
	if (aq->xsk)
		xsk_socket__delete(aq->xsk);
	if (aq->umem)
		xsk_umem__delete(aq->umem);
	aq->xsk = NULL;
	aq->umem = NULL;
}

/* Unmap the four rings of a socket we mapped by hand (passed in or our own) */
static void host_afxdp_unmap_rings(struct afxdp_q *aq)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(aq->map); i++) {
		if (aq->map[i])
			munmap(aq->map[i], aq->map_len[i]);
		aq->map[i] = NULL;
	}
}

static void host_afxdp_q_close(struct afxdp_q *aq)
{
	host_afxdp_unmap_rings(aq);
	if (!aq->xsk && aq->fd >= 0)	/* a passed-in socket's duplicate */
		close(aq->fd);
	host_afxdp_lx_delete(aq);
	if (aq->area)
		munmap(aq->area, AFXDP_UMEM);
	if (aq->umem_fd >= 0)
		close(aq->umem_fd);
	xsk_queue_cleanup(&aq->q);
	aq->area = NULL;
	aq->umem_fd = -1;
	aq->fd = -1;
}

static void host_afxdp_close(struct host *host)
{
	struct afxdp_priv *p = host->priv;
	unsigned int i;

	if (!p)
		return;
	for (i = 0; i < p->npairs; i++)
		host_afxdp_q_close(&p->qs[i]);
	if (p->map_fd >= 0)
		close(p->map_fd);
	free(p);
	host->priv = NULL;
	host->npairs = 0;
}

/*
 * The UMEM's memory: a memfd sealed against resizing, mapped shared, so
 * that a hand-over can pass it (the kernel's RX frames and its fill
 * entries point into it). Registering it pins its pages and charges them
 * to RLIMIT_MEMLOCK as it does anonymous memory. Return: 0 or -errno
 */
static int host_afxdp_area(struct afxdp_q *aq)
{
	aq->umem_fd = memfd_create("vnetd-umem", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (aq->umem_fd < 0)
		return -errno;
	if (ftruncate(aq->umem_fd, AFXDP_UMEM) ||
	    fcntl(aq->umem_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW))
		return -errno;
	aq->area = mmap(NULL, AFXDP_UMEM, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_POPULATE, aq->umem_fd, 0);
	if (aq->area == MAP_FAILED) {
		aq->area = NULL;
		return -errno;
	}
	return 0;
}

/* Make the UMEM of @aq (memory, libxdp UMEM, fill/completion rings) */
static int host_afxdp_umem(struct afxdp_q *aq)
{
	int ret;

	struct xsk_umem_config uc = {
		.fill_size = AFXDP_RING,
		.comp_size = AFXDP_RING,
		.frame_size = AFXDP_CHUNK,
		.frame_headroom = 0,
		.flags = 0,
	};

	if (!aq->area) {
		ret = host_afxdp_area(aq);
		if (ret)
			return ret;
	}
	memset(&aq->lx_fill, 0, sizeof(aq->lx_fill));
	memset(&aq->lx_comp, 0, sizeof(aq->lx_comp));
	return xsk_umem__create(&aq->umem, aq->area, AFXDP_UMEM, &aq->lx_fill,
				&aq->lx_comp, &uc);
}

/* Our view of a libxdp ring */
static void host_afxdp_ring(struct xsk_ring *r, uint32_t *producer,
			    uint32_t *consumer, uint32_t *flags, void *desc,
			    uint32_t mask)
{
	r->producer = producer;
	r->consumer = consumer;
	r->flags = flags;
	r->desc = desc;
	r->mask = mask;
}

/**
 * afxdp_busy_wait() - The one rule for a queue that bind() found busy
 * @p:		The port
 * @qid:	The queue
 * @err:	What the last try returned (0 or -errno)
 * @waited_ms:	What this bind has waited so far, 0 at the first try
 *
 * A socket closed on the queue just before (a port deleted and added again,
 * a vnetd restarted) frees the queue only once the kernel's deferred release
 * of its UMEM pool has run, in a workqueue: until then bind() fails with
 * EBUSY. So EBUSY waits AFXDP_BIND_STEP_MS and is tried again, for up to
 * AFXDP_BIND_WAIT_MS in all, before it counts (control thread, at port
 * setup only). The first wait is logged.
 *
 * Return: true after waiting a step: try again; false: @err is the answer
 */
static bool afxdp_busy_wait(const struct afxdp_priv *p, unsigned int qid,
			    int err, unsigned int *waited_ms)
{
	if (err != -EBUSY || *waited_ms >= AFXDP_BIND_WAIT_MS)
		return false;
	if (!*waited_ms)
		log_info("af_xdp %s queue %u: busy: trying again for up to %d ms "
			 "(a socket closed on it is released a moment later)",
			 p->ifname, qid, AFXDP_BIND_WAIT_MS);
	usleep(AFXDP_BIND_STEP_MS * 1000);
	*waited_ms += AFXDP_BIND_STEP_MS;
	return true;
}

/* After the last try of a bind of @p's queue @qid: say how long it waited */
static int afxdp_busy_done(const struct afxdp_priv *p, unsigned int qid,
			   int err, unsigned int waited_ms)
{
	if (!err && waited_ms)
		log_info("af_xdp %s queue %u: bound after waiting %u ms for the "
			 "queue to be released", p->ifname, qid, waited_ms);
	return err;
}

/*
 * libxdp's UMEM and socket bound to queue @qid with @sc, made anew while
 * the queue is busy (afxdp_busy_wait()). A failed xsk_socket__create() has
 * unmapped the socket's RX and TX rings and left the UMEM (its socket, fill
 * and completion rings) to us: xsk_umem__delete() closes and (libxdp 1.3
 * on) unmaps that, and the next try starts from a fresh socket; only @aq's
 * memory (the memfd's mapping) is kept. Return: 0 or -errno, @aq->umem NULL
 * then
 */
static int host_afxdp_create(struct afxdp_priv *p, struct afxdp_q *aq,
			     unsigned int qid, const struct xsk_socket_config *sc)
{
	unsigned int waited = 0;
	int ret;

	do {
		ret = host_afxdp_umem(aq);
		if (ret)
			return ret;
		ret = xsk_socket__create(&aq->xsk, p->ifname, qid, aq->umem,
					 &aq->lx_rx, &aq->lx_tx, sc);
		if (!ret)
			break;
		aq->xsk = NULL;		/* the failed create freed it */
		host_afxdp_lx_delete(aq);
	} while (afxdp_busy_wait(p, qid, ret, &waited));
	return afxdp_busy_done(p, qid, ret, waited);
}

/* One bind of queue @qid with @bind flags; Return: 0 or -errno */
static int host_afxdp_bind(struct afxdp_priv *p, struct afxdp_q *aq,
			   unsigned int qid, uint16_t bind)
{
	struct xsk_socket_config sc = {
		.rx_size = AFXDP_RING,
		.tx_size = AFXDP_RING,
		/* the program is ours to load (host_afxdp_prog()): libxdp's
		 * delete then needs no bpf() under the sandbox */
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.xdp_flags = 0,
		.bind_flags = bind | XDP_USE_NEED_WAKEUP,
	};
	struct xsk_ring_prod *fill = &aq->lx_fill, *tx = &aq->lx_tx;
	struct xsk_ring_cons *comp = &aq->lx_comp, *rx = &aq->lx_rx;
	int ret;

	ret = host_afxdp_create(p, aq, qid, &sc);
	if (ret)
		return ret;
	ret = xsk_socket__update_xskmap(aq->xsk, p->map_fd);
	if (ret) {
		host_afxdp_lx_delete(aq);
		return ret < 0 ? ret : -EINVAL;
	}
	aq->fd = xsk_socket__fd(aq->xsk);
	host_afxdp_ring(&aq->q.fill, fill->producer, fill->consumer, fill->flags,
			fill->ring, fill->mask);
	host_afxdp_ring(&aq->q.comp, comp->producer, comp->consumer, comp->flags,
			comp->ring, comp->mask);
	host_afxdp_ring(&aq->q.rx, rx->producer, rx->consumer, rx->flags,
			rx->ring, rx->mask);
	host_afxdp_ring(&aq->q.tx, tx->producer, tx->consumer, tx->flags,
			tx->ring, tx->mask);
	ret = xsk_queue_init(&aq->q, aq->area, AFXDP_CHUNK, AFXDP_RING,
			     AFXDP_RING);
	/* the fill ring is full now: the first RX look wakes the driver once */
	aq->q.fill_kick = !ret;
	return ret;
}

/* bind() a fresh socket to its queue, waiting while it is busy
 * (afxdp_busy_wait()). Return: 0 or -errno */
static int afxdp_bind_queue(const struct afxdp_priv *p, int fd,
			    const struct sockaddr_xdp *sa)
{
	unsigned int waited = 0;
	int ret;

	do
		ret = bind(fd, (const struct sockaddr *)sa, sizeof(*sa)) ? -errno : 0;
	while (afxdp_busy_wait(p, sa->sxdp_queue_id, ret, &waited));
	return afxdp_busy_done(p, sa->sxdp_queue_id, ret, waited);
}

/* Map ring @i of a passed-in socket: @entries of @esize bytes at @pgoff */
static void *host_afxdp_map(struct afxdp_q *aq, unsigned int i,
			    const struct xdp_ring_offset *o, size_t esize,
			    off_t pgoff)
{
	size_t len = o->desc + (size_t)AFXDP_RING * esize;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, aq->fd, pgoff);

	if (m == MAP_FAILED)
		return NULL;
	aq->map[i] = m;
	aq->map_len[i] = len;
	return m;
}

/*
 * Size and map the four rings of @aq->fd (@aq->area mapped), bind queue
 * @qid with @flags (XDP_COPY, XDP_ZEROCOPY) and take them into use. A
 * socket a previous vnetd handed over (@bound) has its rings and binding:
 * they are only mapped, and our state is rebuilt from their indices
 * (xsk_queue_adopt()). Return: 0 or -errno
 */
static int host_afxdp_rings(struct afxdp_priv *p, struct afxdp_q *aq,
			    unsigned int qid, uint16_t flags, bool bound)
{
	struct sockaddr_xdp sa = { .sxdp_family = AF_XDP };
	struct xdp_mmap_offsets off;
	socklen_t olen = sizeof(off);
	int n = AFXDP_RING;
	uint8_t *f, *c, *r, *t;

	if (!bound &&
	    (setsockopt(aq->fd, SOL_XDP, XDP_UMEM_FILL_RING, &n, sizeof(n)) ||
	     setsockopt(aq->fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &n, sizeof(n)) ||
	     setsockopt(aq->fd, SOL_XDP, XDP_RX_RING, &n, sizeof(n)) ||
	     setsockopt(aq->fd, SOL_XDP, XDP_TX_RING, &n, sizeof(n))))
		return -errno;
	if (getsockopt(aq->fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &olen))
		return -errno;
	f = host_afxdp_map(aq, 0, &off.fr, sizeof(uint64_t), XDP_UMEM_PGOFF_FILL_RING);
	c = host_afxdp_map(aq, 1, &off.cr, sizeof(uint64_t),
			   XDP_UMEM_PGOFF_COMPLETION_RING);
	r = host_afxdp_map(aq, 2, &off.rx, sizeof(struct xdp_desc), XDP_PGOFF_RX_RING);
	t = host_afxdp_map(aq, 3, &off.tx, sizeof(struct xdp_desc), XDP_PGOFF_TX_RING);
	if (!f || !c || !r || !t)
		return -ENOMEM;
	sa.sxdp_ifindex = if_nametoindex(p->ifname);
	sa.sxdp_queue_id = qid;
	sa.sxdp_flags = flags | XDP_USE_NEED_WAKEUP;
	if (!sa.sxdp_ifindex)
		return -ENODEV;
	if (!bound) {
		int ret = afxdp_bind_queue(p, aq->fd, &sa);

		if (ret)
			return ret;
	}
	host_afxdp_ring(&aq->q.fill, (uint32_t *)(f + off.fr.producer),
			(uint32_t *)(f + off.fr.consumer),
			(uint32_t *)(f + off.fr.flags), f + off.fr.desc,
			AFXDP_RING - 1);
	host_afxdp_ring(&aq->q.comp, (uint32_t *)(c + off.cr.producer),
			(uint32_t *)(c + off.cr.consumer),
			(uint32_t *)(c + off.cr.flags), c + off.cr.desc,
			AFXDP_RING - 1);
	host_afxdp_ring(&aq->q.rx, (uint32_t *)(r + off.rx.producer),
			(uint32_t *)(r + off.rx.consumer),
			(uint32_t *)(r + off.rx.flags), r + off.rx.desc,
			AFXDP_RING - 1);
	host_afxdp_ring(&aq->q.tx, (uint32_t *)(t + off.tx.producer),
			(uint32_t *)(t + off.tx.consumer),
			(uint32_t *)(t + off.tx.flags), t + off.tx.desc,
			AFXDP_RING - 1);
	if (bound)
		return xsk_queue_adopt(&aq->q, aq->area, AFXDP_CHUNK, AFXDP_RING,
				       AFXDP_RING);
	if (xsk_queue_init(&aq->q, aq->area, AFXDP_CHUNK, AFXDP_RING, AFXDP_RING))
		return -ENOMEM;
	aq->q.fill_kick = true;
	return 0;
}

/*
 * A passed-in socket, set up by hand (libxdp 1.3 cannot take an fd made
 * elsewhere): map its UMEM's memfd, then host_afxdp_rings(). Only calls on
 * our duplicate of the fd: no capability, nothing the sandbox refuses.
 * Return: 0 or -errno
 */
static int host_afxdp_bind_given(struct afxdp_priv *p, struct afxdp_q *aq,
				 unsigned int qid, uint16_t flags, bool bound)
{
	aq->area = mmap(NULL, AFXDP_UMEM, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_POPULATE, aq->given_umem, 0);
	if (aq->area == MAP_FAILED) {
		aq->area = NULL;
		return -errno;
	}
	aq->fd = fcntl(aq->given_fd, F_DUPFD_CLOEXEC, 0);
	if (aq->fd < 0)
		return -errno;
	/* ours to pass on at the next hand-over */
	aq->umem_fd = fcntl(aq->given_umem, F_DUPFD_CLOEXEC, 0);
	if (aq->umem_fd < 0)
		return -errno;
	return host_afxdp_rings(p, aq, qid, flags, bound);
}

/* Undo a failed host_afxdp_bind_own() of @aq: rings unmapped, socket
 * closed; the UMEM's memory stays for the next try */
static void host_afxdp_own_drop(struct afxdp_q *aq)
{
	host_afxdp_unmap_rings(aq);
	if (aq->fd >= 0)
		close(aq->fd);
	aq->fd = -1;
	xsk_queue_cleanup(&aq->q);
}

/*
 * Register @aq's UMEM on a fresh socket with TX metadata room
 * (afxdp_room_reg()). Return: 0, 1 if the kernel refused the room (EINVAL:
 * before 6.11), or -errno
 */
static int host_afxdp_own_umem(struct afxdp_priv *p, struct afxdp_q *aq)
{
	int ret;

	aq->fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (aq->fd < 0)
		return -errno;
	ret = afxdp_room_reg(aq->fd, aq->area, p->tx_sw_csum);
	return ret == -EINVAL ? 1 : ret;
}

/*
 * Our own socket and UMEM with TX metadata room, bound to queue @qid with
 * @bind and put in the XSKMAP: as vnetctl makes sockets, then the
 * passed-socket path (host_afxdp_rings()). Return: 0, 1 if the kernel
 * refused the metadata room (nothing left open), or -errno
 */
static int host_afxdp_bind_own(struct afxdp_priv *p, struct afxdp_q *aq,
			       unsigned int qid, uint16_t bind)
{
	int ret;

	if (!aq->area) {
		ret = host_afxdp_area(aq);
		if (ret)
			return ret;
	}
	ret = host_afxdp_own_umem(p, aq);
	if (!ret)
		ret = host_afxdp_rings(p, aq, qid, bind, false);
	if (!ret && bpf_map_update_elem(p->map_fd, &qid, &aq->fd, 0))
		ret = -errno;
	if (ret) {
		host_afxdp_own_drop(aq);
		return ret;
	}
	xsk_tx_metadata(&aq->q, XSK_TXMD_LEN);
	return 0;
}

/*
 * Bind queue @qid with @bind: our own socket with TX metadata room while
 * the kernel takes it (p->txmd), else libxdp's. Return: 0 or -errno
 */
static int host_afxdp_bind_any(struct afxdp_priv *p, struct afxdp_q *aq,
			       unsigned int qid, uint16_t bind)
{
	int ret;

	if (p->txmd) {
		ret = host_afxdp_bind_own(p, aq, qid, bind);
		if (ret <= 0)
			return ret;
		p->txmd = false;
		snprintf(p->txcsum, sizeof(p->txcsum), "software: the kernel "
			 "refused TX metadata (before 6.11?)");
		log_info("af_xdp %s queue %u: the kernel refused a UMEM with TX "
			 "metadata (EINVAL, it needs 6.11): checksums in software",
			 p->ifname, qid);
	}
	return host_afxdp_bind(p, aq, qid, bind);
}

/* Bound with zero-copy? (a handed-over socket; -errno: cannot tell) */
static int host_afxdp_is_zc(const struct afxdp_q *aq)
{
	struct xdp_options o = { 0 };
	socklen_t len = sizeof(o);

	if (getsockopt(aq->fd, SOL_XDP, XDP_OPTIONS, &o, &len))
		return -errno;
	return !!(o.flags & XDP_OPTIONS_ZEROCOPY);
}

/*
 * Open pair @i's socket in @mode. auto: pair 0 tries zero-copy, then copy;
 * the others follow pair 0.
 */
static int host_afxdp_open_q(struct afxdp_priv *p, unsigned int i,
			     enum host_xdp_mode mode, bool bound,
			     struct reason *why)
{
	struct afxdp_q *aq = &p->qs[i];
	unsigned int qid = p->first + i;
	int ret, zc_err = 0;

	aq->fd = -1;
	if (bound) {
		ret = host_afxdp_bind_given(p, aq, qid, 0, true);
		if (ret)
			return reason_set(why, ret, "af_xdp %s queue %u: handed-over "
					  "socket: %s%s", p->ifname, qid,
					  strerror(-ret), ret == -EBUSY ?
					  " (its rings were not settled)" : "");
		if (p->txmd)	/* the previous vnetd registered the room */
			xsk_tx_metadata(&aq->q, XSK_TXMD_LEN);
		ret = host_afxdp_is_zc(aq);
		p->zerocopy = ret < 0 ? mode == HOST_XDP_ZEROCOPY : ret;
		if (!i)
			snprintf(p->mode, sizeof(p->mode), "%s mode (sockets "
				 "handed over by the previous vnetd)",
				 p->zerocopy ? "zero-copy" : "copy");
		return 0;
	}
	if (aq->given_fd >= 0) {
		/* one bind per passed socket (see the top of the file) */
		if (mode == HOST_XDP_AUTO && !i)
			snprintf(p->mode, sizeof(p->mode), "copy mode (auto, "
				 "sockets passed in: no zero-copy try; "
				 "xdp-mode=zerocopy asks for it)");
		ret = host_afxdp_bind_given(p, aq, qid, mode == HOST_XDP_ZEROCOPY ?
					    XDP_ZEROCOPY : XDP_COPY, false);
		if (ret)
			return reason_set(why, ret, "af_xdp %s queue %u: passed "
					  "socket: %s%s: %s", p->ifname, qid,
					  strerror(-ret), host_afxdp_waited(ret),
					  host_afxdp_hint(-ret));
		if (p->txmd)	/* vnetctl registered the room */
			xsk_tx_metadata(&aq->q, XSK_TXMD_LEN);
		p->zerocopy = mode == HOST_XDP_ZEROCOPY;
		return 0;
	}
	if (mode == HOST_XDP_ZEROCOPY || (mode == HOST_XDP_AUTO && !i)) {
		ret = host_afxdp_bind_any(p, aq, qid, XDP_ZEROCOPY);
		if (!ret) {
			p->zerocopy = true;
			return 0;
		}
		if (mode == HOST_XDP_ZEROCOPY)
			return reason_set(why, ret, "af_xdp %s queue %u: zero-copy "
					  "bind: %s%s: %s", p->ifname, qid,
					  strerror(-ret), host_afxdp_waited(ret),
					  host_afxdp_hint(-ret));
		zc_err = ret;
	}
	if (zc_err == -EBUSY)	/* waited for already: busy in copy mode too */
		ret = zc_err;
	else if (p->zerocopy)
		ret = host_afxdp_bind_any(p, aq, qid, XDP_ZEROCOPY);
	else
		ret = host_afxdp_bind_any(p, aq, qid, XDP_COPY);
	if (ret)
		return reason_set(why, ret, "af_xdp %s queue %u: %s%s: %s",
				  p->ifname, qid, strerror(-ret),
				  host_afxdp_waited(ret), host_afxdp_hint(-ret));
	if (zc_err)
		snprintf(p->mode, sizeof(p->mode), "copy mode (auto: zero-copy "
			 "refused: %s)", strerror(-zc_err));
	return 0;
}

/*
 * Take the sockets of @cfg->xdp_fds (one per pair, checked here: they
 * come from a control client): AF_XDP sockets, not yet bound
 */
static int host_afxdp_given(struct afxdp_priv *p, const struct host_cfg *cfg,
			    struct reason *why)
{
	struct stat st;
	socklen_t len;
	unsigned int i;
	int dom;

	if (cfg->nxdp_fds != 2 * cfg->npairs)
		return reason_set(why, -EINVAL, "af_xdp %s: %u descriptors "
				  "passed for %u queue pairs: pass an AF_XDP "
				  "socket and its UMEM memfd per pair",
				  p->ifname, cfg->nxdp_fds, cfg->npairs);
	for (i = 0; i < cfg->npairs; i++) {
		int sock = cfg->xdp_fds[2 * i], umem = cfg->xdp_fds[2 * i + 1];

		len = sizeof(dom);
		if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &dom, &len) ||
		    dom != AF_XDP)
			return reason_set(why, -EBADF, "af_xdp %s: pair %u: "
					  "passed descriptor is not an AF_XDP "
					  "socket (vnetctl port add makes them)",
					  p->ifname, i);
		/* sealed against shrinking: a truncate by the sender
		 * cannot turn the workers' accesses into SIGBUS */
		if (fstat(umem, &st) || !S_ISREG(st.st_mode) ||
		    (size_t)st.st_size < AFXDP_UMEM ||
		    !(fcntl(umem, F_GET_SEALS) & F_SEAL_SHRINK))
			return reason_set(why, -EBADF, "af_xdp %s: pair %u: "
					  "passed UMEM is not a memfd of %zu "
					  "bytes sealed against shrinking "
					  "(vnetctl port add makes it)",
					  p->ifname, i, AFXDP_UMEM);
		p->qs[i].given_fd = sock;
		p->qs[i].given_umem = umem;
	}
	return 0;
}

static void host_afxdp_apply_gro(struct host *host);

/*
 * Before the sockets: our own sockets get TX metadata room (tried, the
 * kernel may refuse it), passed-in ones have what their maker said it
 * registered (vnetctl's xdp-txmd=, @cfg->xdp_txmd), handed-over ones what
 * the previous vnetd registered (@cfg->xdp_txmd too)
 */
static void host_afxdp_txmd_init(struct afxdp_priv *p, const struct host_cfg *cfg)
{
	p->tx_sw_csum = afxdp_room_sw_csum();
	if (cfg->xdp_fds && cfg->xdp_bound) {
		p->txmd = cfg->xdp_txmd;
		snprintf(p->txcsum, sizeof(p->txcsum), "software: the sockets "
			 "handed over have no TX metadata room");
	} else if (cfg->xdp_fds) {
		p->txmd = cfg->xdp_txmd;
		snprintf(p->txcsum, sizeof(p->txcsum), "software: sockets "
			 "passed in have no TX metadata room");
	} else {
		p->txmd = true;
	}
}

/*
 * Once every socket is bound: the kernel fills checksums in copy mode. In
 * zero-copy only drivers with the xsk TX checksum feature would: vnetd
 * does not ask the driver, so it keeps summing there.
 */
static void host_afxdp_txmd_done(struct afxdp_priv *p)
{
	p->csum_kernel = p->txmd && !p->zerocopy;
	if (p->csum_kernel)
		snprintf(p->txcsum, sizeof(p->txcsum), "kernel%s", p->tx_sw_csum ?
			 " (filled in software: VNETD_XDP_TX_SW_CSUM, a test "
			 "switch)" : "");
	else if (p->txmd)
		snprintf(p->txcsum, sizeof(p->txcsum), "software: zero-copy "
			 "(the driver's TX checksum offload is not asked)");
}

static int host_afxdp_open(struct host *host, const struct host_cfg *cfg,
			   struct reason *why)
{
	struct afxdp_priv *p;
	unsigned int i;
	int ret, nq;

	if (!cfg->npairs || cfg->npairs > VNET_MAX_PAIRS)
		return reason_set(why, -EINVAL, "af_xdp: %u queue pairs: use 1..%u",
				  cfg->npairs, (unsigned int)VNET_MAX_PAIRS);
	if (!cfg->xdp_if || !cfg->xdp_if[0])
		return reason_set(why, -EINVAL, "af_xdp: no interface: give "
				  "--xdp-if IF (an existing interface)");
	if (strlen(cfg->xdp_if) >= IFNAMSIZ)
		return reason_set(why, -ENAMETOOLONG, "af_xdp %s: name longer "
				  "than %d characters", cfg->xdp_if, IFNAMSIZ - 1);
	if (!if_nametoindex(cfg->xdp_if))
		return reason_set(why, -ENODEV, "af_xdp %s: no such interface: "
				  "--xdp-if must name an existing interface "
				  "(ip link)", cfg->xdp_if);
	nq = netif_rx_queues(NULL, cfg->xdp_if);
	if (nq >= 0 && (unsigned int)nq < cfg->xdp_queue + cfg->npairs)
		return reason_set(why, -ERANGE, "af_xdp %s: has %d queues, the "
				  "port needs queues %u..%u: give the interface "
				  "more (ethtool -L %s combined %u) or lower "
				  "--xdp-queue/--queues", cfg->xdp_if, nq,
				  cfg->xdp_queue, cfg->xdp_queue + cfg->npairs - 1,
				  cfg->xdp_if, cfg->xdp_queue + cfg->npairs);
	p = calloc(1, sizeof(*p));
	if (!p)
		return reason_set(why, -ENOMEM, "af_xdp: out of memory");
	host->priv = p;
	memcpy(p->ifname, cfg->xdp_if, strlen(cfg->xdp_if) + 1);
	p->first = cfg->xdp_queue;
	p->map_fd = -1;
	for (i = 0; i < VNET_MAX_PAIRS; i++)
		p->qs[i].fd = p->qs[i].given_fd = p->qs[i].given_umem =
			p->qs[i].umem_fd = -1;
	libxdp_set_print(host_afxdp_print);
	libbpf_set_print(host_afxdp_bpf_print);
	host_afxdp_txmd_init(p, cfg);
	if (cfg->xdp_fds) {
		ret = host_afxdp_given(p, cfg, why);
	} else {
		ret = host_afxdp_prog(p, why);
	}
	if (ret)
		goto err_close;
	for (i = 0; i < cfg->npairs; i++) {
		ret = host_afxdp_open_q(p, i, cfg->xdp_mode,
					cfg->xdp_fds && cfg->xdp_bound, why);
		if (ret)
			goto err_close;
		p->npairs = i + 1;
	}
	if (!p->mode[0])
		snprintf(p->mode, sizeof(p->mode), "%s mode",
			 p->zerocopy ? "zero-copy" : "copy");
	host_afxdp_txmd_done(p);
	if (p->map_fd >= 0)
		close(p->map_fd);
	p->map_fd = -1;
	host->npairs = cfg->npairs;
	/* features acked before the sockets opened stay in force */
	host_afxdp_apply_gro(host);
	return 0;

err_close:
	/* the socket that failed may hold a UMEM and memory */
	host_afxdp_q_close(&p->qs[p->npairs]);
	host_afxdp_close(host);
	return ret;
}

/* No vnet header crosses AF_XDP: tx() does the offloads in software, and
 * RX merges TCP segments for the guest (GRO) */
static uint64_t host_afxdp_host_features(struct host *host)
{
	(void)host;
	return BIT(VIRTIO_NET_F_CSUM) | BIT(VIRTIO_NET_F_HOST_TSO4) |
	       BIT(VIRTIO_NET_F_HOST_TSO6) | BIT(VIRTIO_NET_F_HOST_USO) |
	       BIT(VIRTIO_NET_F_GUEST_CSUM) | BIT(VIRTIO_NET_F_GUEST_TSO4) |
	       BIT(VIRTIO_NET_F_GUEST_TSO6);
}

/* The families whose TCP segments RX merges for a guest that acked
 * @features: a merged frame needs GUEST_CSUM and the family's GUEST_TSO */
static unsigned int host_afxdp_gro_families(uint64_t features)
{
	unsigned int fam = 0;

	if (!(features & BIT(VIRTIO_NET_F_GUEST_CSUM)))
		return 0;
	if (features & BIT(VIRTIO_NET_F_GUEST_TSO4))
		fam |= GRO_IPV4;
	if (features & BIT(VIRTIO_NET_F_GUEST_TSO6))
		fam |= GRO_IPV6;
	return fam;
}

/* Tell every open queue what the guest takes merged */
static void host_afxdp_apply_gro(struct host *host)
{
	struct afxdp_priv *p = host->priv;
	unsigned int i, fam = host_afxdp_gro_families(host->features);

	if (!p)
		return;
	for (i = 0; i < p->npairs; i++)
		xsk_rx_gro(&p->qs[i].q, host->hdr_len ? fam : 0, VNET_FRAME_MAX);
}

static int host_afxdp_configure(struct host *host, uint64_t features,
				unsigned int hdr_len)
{
	host->features = features;
	host->hdr_len = hdr_len;
	host_afxdp_apply_gro(host);
	return 0;
}

/*
 * Publish the frames queued on @aq's TX ring and, when the kernel asked
 * for a wake-up, sendto() until it took the burst
 */
static void host_afxdp_submit_tx(struct afxdp_q *aq)
{
	unsigned int i;

	if (!xsk_tx_submit(&aq->q))
		return;
	for (i = 0; i < AFXDP_KICKS; i++) {
		if (syscall(SYS_sendto, aq->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 &&
		    errno != EAGAIN && errno != EBUSY && errno != ENOBUFS) {
			aq->kick_err++;
			break;
		}
		if (!xsk_tx_busy(&aq->q))
			break;
	}
}

/*
 * A frame whose header @vh asks for an offload: its wire frames, all
 * reserved first, written by gso into TX chunks; with @csum the transport
 * checksums are asked of the kernel (TX metadata), not summed.
 * Return: as host_afxdp_tx()
 */
static ssize_t host_afxdp_tx_offload(struct afxdp_q *aq, bool csum,
				     const struct virtio_net_hdr_v1 *vh,
				     const struct iovec *iov, unsigned int iovcnt,
				     unsigned int skip)
{
	struct gso *g = &aq->gso;
	int nseg = gso_init(g, vh, iov, iovcnt, skip), i;
	uint16_t start = 0, off = 0;
	ssize_t n;

	if (nseg < 0 || (unsigned int)nseg > AFXDP_RING ||
	    gso_seg_max(g) > xsk_tx_room(&aq->q)) {
		aq->bad_offload++;
		return -EINVAL;
	}
	csum = csum && gso_partial(g, &start, &off);
	if (!xsk_tx_reserve(&aq->q, (uint32_t)nseg)) {
		/* what is queued goes out first, then one more try */
		host_afxdp_submit_tx(aq);
		if (!xsk_tx_reserve(&aq->q, (uint32_t)nseg))
			return -EAGAIN;
	}
	/* exactly the reserved chunks: each segment fits one (checked above) */
	for (i = 0; i < nseg; i++) {
		n = gso_next(g, xsk_tx_chunk(&aq->q), xsk_tx_room(&aq->q));
		if (n <= 0)
			break;
		if (csum)
			xsk_tx_put_csum(&aq->q, (uint32_t)n, start, off);
		else
			xsk_tx_put(&aq->q, (uint32_t)n);
	}
	return (ssize_t)(skip + g->len);
}

static ssize_t host_afxdp_tx(struct host *host, unsigned int pair,
			     const struct iovec *iov, unsigned int iovcnt)
{
	struct afxdp_priv *p = host->priv;
	struct virtio_net_hdr_v1 vh;
	struct afxdp_q *aq;
	ssize_t n;

	if (!p || pair >= p->npairs)
		return -EINVAL;
	aq = &p->qs[pair];
	/* the header is the host copy net.c checked: the first iovec */
	if (host->hdr_len && iovcnt && iov[0].iov_len >= host->hdr_len &&
	    host->hdr_len <= sizeof(vh)) {
		const uint8_t *h = iov[0].iov_base;

		if (unlikely(h[0] || h[1])) {	/* flags, gso_type */
			memset(&vh, 0, sizeof(vh));
			memcpy(&vh, h, host->hdr_len);
			return host_afxdp_tx_offload(aq, p->csum_kernel, &vh,
						     iov, iovcnt, host->hdr_len);
		}
	}
	n = xsk_tx_push(&aq->q, iov, iovcnt, host->hdr_len);
	if (n != -EAGAIN)
		return n;
	/* full: what is queued goes out first (copy mode completes in the
	 * kick), then one more try */
	host_afxdp_submit_tx(aq);
	return xsk_tx_push(&aq->q, iov, iovcnt, host->hdr_len);
}

static void host_afxdp_tx_flush(struct host *host, unsigned int pair)
{
	struct afxdp_priv *p = host->priv;

	if (!p || pair >= p->npairs)
		return;
	host_afxdp_submit_tx(&p->qs[pair]);
}

static ssize_t host_afxdp_rx_peek_len(struct host *host, unsigned int pair)
{
	struct afxdp_priv *p = host->priv;
	struct afxdp_q *aq;
	ssize_t n;

	if (!p || pair >= p->npairs)
		return -EINVAL;
	aq = &p->qs[pair];
	n = xsk_rx_peek(&aq->q, host->hdr_len);
	if (aq->q.fill_kick) {
		aq->q.fill_kick = false;
		if (syscall(SYS_recvfrom, aq->fd, NULL, 0, MSG_DONTWAIT, NULL,
			    NULL) < 0 && errno != EAGAIN && errno != EBUSY)
			aq->kick_err++;
	}
	return n;
}

static ssize_t host_afxdp_rx(struct host *host, unsigned int pair,
			     const struct iovec *iov, unsigned int iovcnt)
{
	struct afxdp_priv *p = host->priv;

	if (!p || pair >= p->npairs)
		return -EINVAL;
	return xsk_rx_copy(&p->qs[pair].q, iov, iovcnt, host->hdr_len);
}

static int host_afxdp_rx_fd(struct host *host, unsigned int pair)
{
	struct afxdp_priv *p = host->priv;

	if (!p || pair >= p->npairs)
		return -1;
	return p->qs[pair].fd;
}

/* No queue fd for vhost-net: the kernel cannot serve an AF_XDP socket */
static int host_afxdp_queue_fd(struct host *host, unsigned int pair)
{
	(void)host;
	(void)pair;
	return -1;
}

/*
 * Hand pair @pair to the next process: settle its rings (xsk_ring.c),
 * kicking the kernel until it sent and completed every TX frame, at most
 * AFXDP_SETTLE_MS; then the socket and the UMEM's memfd pass. The socket
 * stays in the XSKMAP: the map refers to it, and it stays open.
 */
static int host_afxdp_hand_over(struct host *host, unsigned int pair,
				struct host_handover *out, struct reason *why)
{
	struct afxdp_priv *p = host->priv;
	unsigned int dropped, i;
	struct afxdp_q *aq;
	int ret;

	if (!p || pair >= p->npairs)
		return reason_set(why, -EINVAL, "af_xdp: no queue pair %u", pair);
	aq = &p->qs[pair];
	memset(out, 0, sizeof(*out));
	for (i = 0;; i++) {
		ret = xsk_queue_settle(&aq->q, &dropped);
		out->dropped += dropped;
		if (ret != -EBUSY || i == AFXDP_SETTLE_MS)
			break;
		if (syscall(SYS_sendto, aq->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 &&
		    errno != EAGAIN && errno != EBUSY && errno != ENOBUFS)
			aq->kick_err++;
		if (xsk_tx_busy(&aq->q))
			(void)poll(NULL, 0, 1);
	}
	if (ret)
		return reason_set(why, ret, "af_xdp %s queue %u: %s", p->ifname,
				  p->first + pair, ret == -EBUSY ?
				  "the kernel did not complete the queued TX frames in "
				  "20 ms" :
				  "the fill ring did not take every free RX buffer");
	if (aq->umem_fd < 0)
		return reason_set(why, -ENOENT, "af_xdp %s queue %u: its UMEM has "
				  "no descriptor to pass", p->ifname, p->first + pair);
	out->fds[0] = aq->fd;
	out->fds[1] = aq->umem_fd;
	out->qid = p->first + pair;
	out->zerocopy = p->zerocopy;
	out->txmd = p->txmd;
	return 0;
}

/**
 * host_afxdp_gro() - GRO's counters, summed over the port's queues
 * @host:	The port's host side
 * @segs:	Out: frames from the interface merged
 * @frames:	Out: GSO frames made of them
 *
 * The workers' counters, read without a lock (a relaxed 64-bit load each).
 */
static void host_afxdp_gro(struct host *host, uint64_t *segs,
			   uint64_t *frames)
{
	struct afxdp_priv *p = host->priv;
	unsigned int i;

	*segs = 0;
	*frames = 0;
	for (i = 0; p && i < p->npairs; i++) {
		*frames += __atomic_load_n(&p->qs[i].q.stats.gro_frames,
					   __ATOMIC_RELAXED);
		*segs += __atomic_load_n(&p->qs[i].q.stats.gro_segs,
					 __ATOMIC_RELAXED);
	}
}

/*
 * The mode, queues and what the sockets refused, for the log at open and
 * `vnetctl status`: the counters are the workers', read here without a
 * lock (each a relaxed 64-bit load, as the ring counters are).
 */
static const char *host_afxdp_mode(struct host *host)
{
	struct afxdp_priv *p = host->priv;
	uint64_t bad_rx = 0, bad_comp = 0, too_big = 0, kick_err = 0, bad_off = 0;
	uint64_t gro_frames = 0, gro_segs = 0, csum_req = 0;
	unsigned int i;

	if (!p)
		return NULL;
	for (i = 0; i < p->npairs; i++) {
		const struct afxdp_q *aq = &p->qs[i];

		bad_rx += __atomic_load_n(&aq->q.stats.bad_rx, __ATOMIC_RELAXED);
		bad_comp += __atomic_load_n(&aq->q.stats.bad_comp, __ATOMIC_RELAXED);
		too_big += __atomic_load_n(&aq->q.stats.tx_too_big, __ATOMIC_RELAXED) +
			   __atomic_load_n(&aq->q.stats.rx_too_big, __ATOMIC_RELAXED);
		kick_err += __atomic_load_n(&aq->kick_err, __ATOMIC_RELAXED);
		bad_off += __atomic_load_n(&aq->bad_offload, __ATOMIC_RELAXED);
		gro_frames += __atomic_load_n(&aq->q.stats.gro_frames, __ATOMIC_RELAXED);
		gro_segs += __atomic_load_n(&aq->q.stats.gro_segs, __ATOMIC_RELAXED);
		csum_req += __atomic_load_n(&aq->q.stats.tx_csum_req, __ATOMIC_RELAXED);
	}
	snprintf(p->status, sizeof(p->status), "af_xdp on %s queues %u..%u, %s; "
		 "refused from the kernel: %llu RX descriptors, %llu completions; "
		 "frames over a chunk %llu, offloads refused %llu, failed "
		 "wake-ups %llu; GRO %llu frames merged into %llu; "
		 "tx-csum: %s, %llu frames asked",
		 p->ifname, p->first, p->first + p->npairs - 1,
		 p->mode, (unsigned long long)bad_rx,
		 (unsigned long long)bad_comp, (unsigned long long)too_big,
		 (unsigned long long)bad_off, (unsigned long long)kick_err,
		 (unsigned long long)gro_segs, (unsigned long long)gro_frames,
		 p->txcsum, (unsigned long long)csum_req);
	return p->status;
}

const struct host_ops host_afxdp_ops = {
	.name = "af_xdp",
	.open = host_afxdp_open,
	.host_features = host_afxdp_host_features,
	.configure = host_afxdp_configure,
	.tx = host_afxdp_tx,
	.tx_flush = host_afxdp_tx_flush,
	.rx = host_afxdp_rx,
	.rx_peek_len = host_afxdp_rx_peek_len,
	.rx_fd = host_afxdp_rx_fd,
	.queue_fd = host_afxdp_queue_fd,
	.mode = host_afxdp_mode,
	.gro = host_afxdp_gro,
	.hand_over = host_afxdp_hand_over,
	.close = host_afxdp_close,
};
