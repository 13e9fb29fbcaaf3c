/* SPDX-License-Identifier: MIT */
/*
 * host.h - the host side of a port behind one ops table (bhyve's
 * net_backends.c shape). A host moves whole frames, each preceded by a
 * virtio-net header of the negotiated length, between vnetd and the host.
 * It knows nothing of rings. Adding a host adds a file and one line in
 * host.c's table.
 */
#ifndef VNET_HOST_H
#define VNET_HOST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "reason.h"
#include "util.h"

struct sw_vlans;
struct sw_police_cfg;

/**
 * struct host_cfg - What a port asks of its host side
 * @npairs:	Queue pairs the frontend may use (each gets its own host queue)
 * @tap_name:	tap: interface to create or attach to ("" = kernel picks)
 * @tap_fds:	tap: already-open queue fds from the parent, or NULL
 * @ntap_fds:	tap: how many in @tap_fds (must equal @npairs when given)
 * @mac:	tap: the guest's MAC; a TAP the host side creates gets
 *		mac_tap() of it. NULL: the tun driver's random MAC
 * @mac_given:	@mac is the port's mac= (not made up): switch: learned
 *		on the port when its guest starts
 * @xdp_if:	af_xdp: the existing interface to attach to
 * @xdp_queue:	af_xdp: its queue for pair 0 (pair k: @xdp_queue + k)
 * @xdp_mode:	af_xdp: copy, zero-copy, or auto (zero-copy, else copy)
 * @xdp_fds:	af_xdp: per pair an AF_XDP socket made by a privileged
 *		process (vnetctl), not yet bound, then the memfd of the UMEM
 *		registered on it; NULL: make them and load the program here
 *		(needs the capabilities). The host side uses duplicates and
 *		mappings: the caller keeps and closes these
 * @nxdp_fds:	af_xdp: how many in @xdp_fds (2 * @npairs when given)
 * @xdp_bound:	af_xdp: the sockets of @xdp_fds are bound, their rings
 *		mapped and settled by a previous vnetd (host_ops.hand_over):
 *		adopt them as they are (@xdp_mode says how they were bound)
 * @xdp_txmd:	af_xdp: the UMEMs of @xdp_fds were registered with
 *		XSK_TXMD_LEN bytes of TX metadata room (handed over:
 *		host_handover.txmd; passed in: the maker said so)
 * @sw_name:	switch: the switch to join (--switch NAME declared it)
 * @sw_vlans:	switch: the VLANs the port carries (vlan=, trunk=)
 * @sw_police:	switch: its ingress policer (police-*=), NULL: none
 * @gen_size:	gen: bytes of the frame it generates (without FCS,
 *		HOST_GEN_SIZE_MIN..HOST_GEN_SIZE_MAX), 0: HOST_GEN_SIZE_DEF
 */
struct host_cfg {
	unsigned int npairs;
	const char *tap_name;
	const int *tap_fds;
	unsigned int ntap_fds;
	const uint8_t *mac;
	bool mac_given;
	const char *xdp_if;
	unsigned int xdp_queue;
	enum host_xdp_mode {
		HOST_XDP_AUTO = 0,
		HOST_XDP_COPY,
		HOST_XDP_ZEROCOPY,
	} xdp_mode;
	const int *xdp_fds;
	unsigned int nxdp_fds;
	bool xdp_bound;
	bool xdp_txmd;
	const char *sw_name;
	const struct sw_vlans *sw_vlans;
	const struct sw_police_cfg *sw_police;
	unsigned int gen_size;
};

#define HOST_GEN_SIZE_DEF	64
#define HOST_GEN_SIZE_MIN	60
#define HOST_GEN_SIZE_MAX	9000

struct host;
struct tap_uring;

/**
 * struct host_handover - One pair's host queue as it passes to the next
 *			  process (host_ops.hand_over)
 * @fds:	Descriptors to pass, borrowed (af_xdp: the socket, the memfd
 *		of its UMEM)
 * @qid:	Interface queue it is bound to
 * @zerocopy:	Bound with zero-copy
 * @txmd:	Its UMEM has TX metadata room (af_xdp, xsk_txmd.h)
 * @dropped:	Frames held for the guest and dropped (none took them)
 */
struct host_handover {
	int fds[2];
	unsigned int qid;
	bool zerocopy;
	bool txmd;
	unsigned int dropped;
};

/**
 * struct host_ops - What every host implements
 *
 * Context: open/configure/close from the control thread with the data path
 * of the port paused; tx/rx/rx_fd from the worker thread that owns @pair.
 */
struct host_ops {
	/** @name: what --backend takes */
	const char *name;
	/**
	 * @open: set up @cfg->npairs host queues. Return: 0 or -errno, and
	 * fill @why (one sentence for an operator) on failure.
	 */
	int (*open)(struct host *host, const struct host_cfg *cfg,
		    struct reason *why);
	/**
	 * @host_features: virtio-net feature bits (VIRTIO_NET_F_*) whose
	 * offloads the host side can honour, e.g. HOST_TSO4 needs TAP with
	 * IFF_VNET_HDR. Called before any feature is offered.
	 */
	uint64_t (*host_features)(struct host *host);
	/**
	 * @configure: the guest acked @features; use a @hdr_len byte vnet
	 * header on every frame from now on (TUNSETVNETHDRSZ, TUNSETOFFLOAD
	 * from the GUEST_* bits). Return: 0 or -errno.
	 */
	int (*configure)(struct host *host, uint64_t features,
			 unsigned int hdr_len);
	/**
	 * @tx: send one frame (vnet header first) on @pair's host queue.
	 * Return: bytes taken, -EAGAIN if the host queue is full (the
	 * caller retries later), other -errno: frame dropped.
	 */
	ssize_t (*tx)(struct host *host, unsigned int pair,
		      const struct iovec *iov, unsigned int iovcnt);
	/**
	 * @tx_flush: optional (NULL: @tx sends at once): the caller's burst
	 * of @tx calls on @pair is over (or one said -EAGAIN); publish what
	 * @tx queued and wake the kernel once if it must (af_xdp). Every
	 * caller of @tx calls it before it waits or returns.
	 */
	void (*tx_flush)(struct host *host, unsigned int pair);
	/**
	 * @tx_batch: optional (NULL: net.c calls @tx per frame): send @n
	 * frames on @pair's host queue through the calling thread's @ring,
	 * frame k = @iov[k] (@cnt[k] entries), each on its own, in order,
	 * exactly once. Returns when all are done (the memory may then be
	 * reused). @res[k]: bytes taken or -errno; a refused frame is
	 * dropped, never retried (a later one may already be sent).
	 * Return: 0, or -errno if nothing was tried (the caller uses @tx).
	 */
	int (*tx_batch)(struct host *host, unsigned int pair,
			struct tap_uring *ring, struct iovec *const *iov,
			const unsigned int *cnt, unsigned int n, int *res);
	/**
	 * @rx: receive one frame (vnet header first) into @iov.
	 * Return: frame length, -EAGAIN if none is waiting, -EMSGSIZE if the
	 * frame did not fit (it is dropped), other -errno.
	 */
	ssize_t (*rx)(struct host *host, unsigned int pair,
		      const struct iovec *iov, unsigned int iovcnt);
	/**
	 * @rx_peek_len: length of the next frame waiting on @pair including
	 * the vnet header, 0 if none, -EMSGSIZE if it was cut (too large:
	 * @rx consumes it and says -EMSGSIZE), other -errno if unknown (the
	 * caller then offers buffers for the largest frame, or asks
	 * @rx_fill first).
	 */
	ssize_t (*rx_peek_len)(struct host *host, unsigned int pair);
	/**
	 * @rx_fill: optional (NULL: @rx reads the host queue frame by frame):
	 * read what waits on @pair's host queue, up to the host's batch, into
	 * the host's own buffers through the calling thread's @ring, in one
	 * call; @rx_peek_len then tells each held frame's length and @rx
	 * copies it out, in queue order. Called when @rx_peek_len says
	 * -errno (nothing held).
	 * Return: frames held (> 0), 0 if the queue was empty, -errno if
	 * nothing was tried (read this frame with @rx).
	 */
	int (*rx_fill)(struct host *host, unsigned int pair,
		       struct tap_uring *ring);
	/**
	 * @rx_fd: descriptor that polls readable when @pair may have a frame
	 * for the guest; -1 if the host side never produces frames, or
	 * produces them only from @pair's own TX (loop: the worker serving
	 * that TX serves RX in the same pass, as @rx_peek_len tells it).
	 */
	int (*rx_fd)(struct host *host, unsigned int pair);
	/**
	 * @queue_fd: the host queue fd of @pair for kernel offload
	 * (VHOST_NET_SET_BACKEND), -1 if the host side has none.
	 */
	int (*queue_fd)(struct host *host, unsigned int pair);
	/**
	 * @reset: optional (NULL: nothing to forget): a session ended (the
	 * frontend disconnected or reset the device); drop frames queued for
	 * its guest so the next connection starts empty. Called from the
	 * control thread with every worker of the port paused. A host whose
	 * queue lives outside vnetd (a TAP's kernel queue) keeps it: those
	 * frames belong to the host network, not to the session.
	 */
	void (*reset)(struct host *host);
	/**
	 * @hand_over: optional (NULL: only @queue_fd's descriptors pass): the
	 * port goes to the next process (vnetd's upgrade). Leave @pair so
	 * that what the kernel shares with us says where every frame is
	 * (af_xdp: queued TX sent and completed, held RX frames dropped and
	 * counted, every RX buffer back in the fill ring), then say in @out
	 * what passes. The caller delivered the held frames it could first
	 * (a host with this op holds frames in our memory). Called from the
	 * control thread with every worker of the port parked; the port may
	 * run on here afterwards if the hand-over fails.
	 * Return: 0, or -errno with @why set (the hand-over is refused)
	 */
	int (*hand_over)(struct host *host, unsigned int pair,
			 struct host_handover *out, struct reason *why);
	/**
	 * @mode: optional: how the host side runs, one line for the log
	 * and status once open() succeeded (af_xdp: interface, queues, copy
	 * or zero-copy and in auto mode why, what it refused), NULL if
	 * nothing to say. Context: control thread; the string lives until
	 * the next call or close()
	 */
	const char *(*mode)(struct host *host);
	/**
	 * @gro: optional: what the host side's software GRO did since
	 * open(), summed over its queues: @segs frames from the network
	 * merged into @frames GSO frames for the guest (af_xdp). Each a
	 * relaxed load of a worker's counter. Context: control thread
	 */
	void (*gro)(struct host *host, uint64_t *segs, uint64_t *frames);
	/** @close: release everything open() made; the host side is reusable */
	void (*close)(struct host *host);
};

/**
 * struct host - One port's host side
 * @ops:	Implementation
 * @npairs:	Host queues open
 * @hdr_len:	vnet header bytes per frame, set by configure()
 * @features:	Guest-acked virtio-net features, set by configure()
 * @priv:	Implementation state
 */
struct host {
	const struct host_ops *ops;
	unsigned int npairs;
	unsigned int hdr_len;
	uint64_t features;
	void *priv;
};

const struct host_ops *host_find(const char *name);
const char *host_names(void);

#endif /* VNET_HOST_H */
