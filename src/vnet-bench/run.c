// SPDX-License-Identifier: MIT
/*
 * run.c - vnet-bench's workers: one thread per queue pair per VM, each
 * driving its pair through the frontend library.
 *
 * Every frame carries a marker (VM, pair, sequence number, send time) so
 * the receiving side can prove, per queue, that nothing was lost, duplicated
 * or reordered, and ping-pong can time the round trip. Frames up to 9018
 * bytes are raw Ethernet with a local-experimental ethertype; larger ones
 * are IPv4/TCP TSO frames with a proper virtio-net GSO header.
 *
 * The per-packet loop allocates nothing and makes no syscall when polling:
 * frames are built once per queue, only the marker changes; kicks happen
 * per batch and only when the backend asks for them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>

#include "bench.h"
#include "iov.h"

#define BUMP(x, n)	__atomic_store_n(&(x), (x) + (n), __ATOMIC_RELAXED)
#define RX_BUDGET	256
#define PP_TIMEOUT_NS	1000000000ULL
/* In-flight frames may take a while on a loaded machine (p999 ~0.5 s seen
 * on 2 busy CPUs); without a sequence check only TX reclaim matters */
#define DRAIN_QUIET_NS	2000000000ULL
#define DRAIN_QUIET_NOCHECK_NS	200000000ULL
#define DRAIN_MAX_NS	8000000000ULL
#define ANNOUNCE_WAIT_MS	1000U
#define CONNECT_TRIES	100		/* x 50 ms */
#define TSO_MSS		1448
#define L2_PLAIN_MAX	9018	/* jumbo frame; larger ones go as TSO */
#define TSO_NEEDS	(BIT(VIRTIO_NET_F_HOST_TSO4) | BIT(VIRTIO_NET_F_CSUM))

/**
 * struct bench_mark - What each frame carries after its headers
 */
struct bench_mark {
	uint32_t magic;
	uint16_t vm;
	uint16_t pair;
	uint64_t seq;
	uint64_t ts_ns;
} __attribute__((packed));

volatile int bench_stop;
volatile int bench_quit;
volatile sig_atomic_t bench_interrupted;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * --announce: one broadcast frame from the VM's MAC, as a guest's gratuitous
 * ARP after link-up, so a learning switch knows the VM's port before the
 * window even if the VM only receives. It carries no marker (receivers count
 * it as foreign) and is not counted as sent; its slot is rebuilt from the
 * template when the stream first uses it.
 */
static int bench_announce(struct bench_q *q)
{
	const struct bench_cfg *c = q->vm->cfg;
	unsigned int i;
	uint32_t slot;
	uint8_t *p;
	int ret;

	ret = vu_frontend_tx_reserve(&q->vm->fe, q->pair, 60, (void **)&p, &slot);
	if (ret)
		return ret;
	memset(p, 0, 60);
	memset(p, 0xff, 6);
	memcpy(p + 6, c->have_src_mac ? c->src_mac : q->vm->fe.mac, 6);
	p[12] = BENCH_ETHERTYPE >> 8;
	p[13] = BENCH_ETHERTYPE & 0xff;
	ret = vu_frontend_tx_commit(&q->vm->fe, q->pair, NULL);
	if (ret)
		return ret;
	vu_frontend_tx_flush(&q->vm->fe, q->pair);
	/* Take its buffer back: an rx-only VM never reclaims, and a used TX
	 * buffer left in the ring would end every vu_frontend_wait() at once
	 * (the VM would spin instead of sleeping on its call eventfd) */
	for (i = 0; i < ANNOUNCE_WAIT_MS; i++) {
		if (vu_frontend_tx_reclaim(&q->vm->fe, q->pair))
			return 0;
		usleep(1000);
	}
	fprintf(stderr, "vnet-bench: vm %u: the backend did not take the announcement in %u ms\n",
		q->vm->id, ANNOUNCE_WAIT_MS);
	return -ETIMEDOUT;
}

static uint16_t ip_csum(const uint8_t *p, unsigned int len)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Build the frame template of one worker (setup time) */
/* --csum: no TSO, the TCP checksum field holds the pseudo-header sum */
static void bench_csum_only(struct bench_q *q)
{
	uint8_t *f = q->frame;
	uint32_t len = q->vm->cfg->size - 34, s = 6 + len;
	unsigned int i;

	for (i = 26; i < 34; i += 2)
		s += (uint32_t)f[i] << 8 | f[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	f[50] = (uint8_t)(s >> 8);
	f[51] = (uint8_t)s;
	q->hdr.gso_type = VIRTIO_NET_HDR_GSO_NONE;
	q->hdr.gso_size = 0;
	q->hdr.hdr_len = 0;
}

static void bench_frame_init(struct bench_q *q)
{
	const struct bench_cfg *c = q->vm->cfg;
	uint8_t *f = q->frame;
	uint32_t i;

	for (i = 0; i < c->size; i++)
		f[i] = (uint8_t)(i * 7);
	if (c->have_dst_mac)
		memcpy(f, c->dst_mac, 6);
	else
		memset(f, 0xff, 6);		/* broadcast: any L2 peer takes it */
	memcpy(f + 6, c->have_src_mac ? c->src_mac : q->vm->fe.mac, 6);
	memset(&q->hdr, 0, sizeof(q->hdr));
	q->mac_rng = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)q->vm->id << 32 | q->pair);
	if (c->flows) {
		/* IPv4/UDP 10.0.0.1:10000+k -> 10.0.0.2:5001, no UDP checksum;
		 * the marker at 54 as in a TSO frame */
		f[12] = 0x08;
		f[13] = 0x00;
		memset(f + 14, 0, 28);
		f[14] = 0x45;
		f[16] = (uint8_t)((c->size - 14) >> 8);
		f[17] = (uint8_t)(c->size - 14);
		f[22] = 64;
		f[23] = 17;			/* UDP */
		memcpy(f + 26, (const uint8_t[]){ 10, 0, 0, 1, 10, 0, 0, 2 }, 8);
		i = ip_csum(f + 14, 20);
		f[24] = (uint8_t)(i >> 8);
		f[25] = (uint8_t)i;
		f[36] = 0x13;			/* port 5001 */
		f[37] = 0x89;
		f[38] = (uint8_t)((c->size - 34) >> 8);
		f[39] = (uint8_t)(c->size - 34);
		q->marker_off = 54;
		return;
	}
	if (c->size <= L2_PLAIN_MAX && !c->csum) {
		f[12] = BENCH_ETHERTYPE >> 8;
		f[13] = BENCH_ETHERTYPE & 0xff;
		q->marker_off = 14;
		return;
	}
	/* IPv4 + TCP, sent as one TSO frame (virtio 1.2 5.1.6.2), or with
	 * --csum as one frame with a partial checksum */
	f[12] = 0x08;
	f[13] = 0x00;
	memset(f + 14, 0, 40);
	f[14] = 0x45;
	f[16] = (uint8_t)((c->size - 14) >> 8);
	f[17] = (uint8_t)(c->size - 14);
	f[22] = 64;
	f[23] = 6;				/* TCP */
	memcpy(f + 26, (const uint8_t[]){ 10, 0, 0, 1, 10, 0, 0, 2 }, 8);
	i = ip_csum(f + 14, 20);
	f[24] = (uint8_t)(i >> 8);
	f[25] = (uint8_t)i;
	f[34] = 0x30;				/* ports 12345 -> 5001 */
	f[35] = 0x39;
	f[36] = 0x13;
	f[37] = 0x89;
	f[46] = 5 << 4;				/* data offset */
	f[47] = 0x18;				/* PSH | ACK */
	f[48] = 0xff;				/* window */
	q->marker_off = 54;
	q->hdr.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	q->hdr.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	q->hdr.hdr_len = 54;
	q->hdr.gso_size = TSO_MSS;
	q->hdr.csum_start = 34;
	q->hdr.csum_offset = 16;
	if (c->size <= L2_PLAIN_MAX)
		bench_csum_only(q);
}

static void bench_seq_check(struct bench_q *q, uint64_t seq)
{
	if (seq == q->expect_seq) {
		q->expect_seq++;
	} else if (seq > q->expect_seq) {
		BUMP(q->lost, seq - q->expect_seq);
		q->expect_seq = seq + 1;
	} else {
		BUMP(q->dup, 1);	/* older than expected: dup or reordered */
	}
}

/* Receive callback: validate the marker, check the sequence, time it */
static void bench_rx_cb(void *opaque, const struct virtio_net_hdr_v1 *hdr,
			const struct iovec *iov, unsigned int niov,
			uint32_t len)
{
	struct bench_q *q = opaque;
	struct bench_mark m;
	uint8_t eth[14];
	size_t off;

	(void)hdr;
	BUMP(q->rx_frames, 1);
	BUMP(q->rx_bytes, len);
	if (iov_to_buf(iov, niov, 0, eth, sizeof(eth)) != sizeof(eth)) {
		BUMP(q->foreign, 1);
		return;
	}
	off = (eth[12] << 8 | eth[13]) == BENCH_ETHERTYPE ? 14 : 54;
	if (iov_to_buf(iov, niov, off, &m, sizeof(m)) != sizeof(m) || m.magic != BENCH_MAGIC) {
		BUMP(q->foreign, 1);	/* not ours, e.g. testpmd txonly */
		return;
	}
	if (m.vm != q->vm->id || m.pair != q->pair) {
		BUMP(q->bad, 1);	/* came back on the wrong VM or queue */
		return;
	}
	bench_seq_check(q, m.seq);
	if (q->vm->cfg->mode == BENCH_PINGPONG && m.seq == q->pp_seq &&
	    !q->pp_back) {
		uint64_t rtt = now_ns() - m.ts_ns;

		q->pp_back = true;
		if (q->nlat < BENCH_LAT_MAX)
			q->lat[q->nlat++] = (uint32_t)MIN(rtt, UINT32_MAX);
		else
			q->lat_dropped++;
	}
}

/*
 * Queue one frame with the next sequence number; 0 or -EAGAIN. The frame
 * is built in place in its ring slot: the template is copied into a slot
 * the first time the slot is used, afterwards only the marker changes (the
 * slot keeps the rest, as DPDK's txonly re-sends its prebuilt mbufs).
 */
static int bench_tx_one(struct bench_q *q, uint64_t ts)
{
	const struct bench_cfg *c = q->vm->cfg;
	struct bench_mark m = {
		.magic = BENCH_MAGIC, .vm = (uint16_t)q->vm->id,
		.pair = (uint16_t)q->pair, .seq = q->next_seq, .ts_ns = ts,
	};
	uint32_t slot;
	uint8_t *p;
	int ret;

	ret = vu_frontend_tx_reserve(&q->vm->fe, q->pair, c->size,
				     (void **)&p, &slot);
	if (ret)
		return ret;
	if (unlikely(!q->slot_ready[slot])) {
		memcpy(p, q->frame, c->size);
		q->slot_ready[slot] = 1;
	}
	memcpy(p + q->marker_off, &m, sizeof(m));
	if (c->flows) {
		uint16_t port = (uint16_t)(10000 + q->next_seq % c->flows);

		p[34] = (uint8_t)(port >> 8);
		p[35] = (uint8_t)port;
	}
	if (c->rand_src_mac) {
		uint64_t r;

		q->mac_rng ^= q->mac_rng << 13;
		q->mac_rng ^= q->mac_rng >> 7;
		q->mac_rng ^= q->mac_rng << 17;
		r = q->mac_rng;
		memcpy(p + 6, &r, 6);
		p[6] = (uint8_t)((p[6] & 0xfc) | 0x02);	/* local, unicast */
	}
	ret = vu_frontend_tx_commit(&q->vm->fe, q->pair,
				    c->size > L2_PLAIN_MAX || c->csum ?
				    &q->hdr : NULL);
	if (ret)
		return ret;
	q->next_seq++;
	return 0;
}

/* Frames this burst may send: --batch, less what --frames and --pps leave */
static unsigned int bench_tx_allowed(struct bench_q *q)
{
	const struct bench_cfg *c = q->vm->cfg;
	uint64_t max = c->batch, due;

	if (c->frames)
		max = MIN(max, c->frames - MIN(c->frames, q->next_seq));
	if (c->pps && max) {
		if (!q->tx_t0)
			q->tx_t0 = now_ns();
		due = (now_ns() - q->tx_t0) * c->pps / 1000000000ULL + 1;
		if (due > q->next_seq + c->batch) {
			/* stalled (a busy host): resume the pace, no burst */
			q->tx_t0 = now_ns() - q->next_seq * 1000000000ULL / c->pps;
			due = q->next_seq + 1;
		}
		max = due > q->next_seq ? MIN(max, due - q->next_seq) : 0;
	}
	return (unsigned int)max;
}

static unsigned int bench_tx_batch(struct bench_q *q)
{
	const struct bench_cfg *c = q->vm->cfg;
	unsigned int n, max = bench_tx_allowed(q);

	for (n = 0; n < max; n++) {
		int ret = bench_tx_one(q, 0);

		if (ret) {
			if (ret != -EAGAIN)
				q->err = ret;
			break;
		}
	}
	if (n) {
		vu_frontend_tx_flush(&q->vm->fe, q->pair);
		BUMP(q->tx_frames, n);
		BUMP(q->tx_bytes, (uint64_t)n * c->size);
	}
	return n;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

static void bench_idle(struct bench_q *q)
{
	unsigned int i;

	/* Back off a little: re-reading the used index in a tight loop
	 * bounces its cache line off the backend that is writing it */
	if (q->vm->cfg->poll)
		for (i = 0; i < 32; i++)
			cpu_relax();
	else
		vu_frontend_wait(&q->vm->fe, q->pair, 50);
}

static void bench_stream(struct bench_q *q)
{
	const struct bench_cfg *c = q->vm->cfg;

	while (!bench_stop && !q->err) {
		unsigned int n = 0;
		int r;

		if (c->mode != BENCH_RX)
			n += bench_tx_batch(q);
		r = c->rx_hang ? 0 : vu_frontend_rx(&q->vm->fe, q->pair,
						    bench_rx_cb, q, RX_BUDGET);
		if (r > 0)
			n += (unsigned int)r;
		if (!n && c->pps && c->mode != BENCH_RX)
			usleep(100);	/* paced: the next frame is due soon */
		else if (!n)
			bench_idle(q);
	}
}

static void bench_pingpong(struct bench_q *q)
{
	const struct bench_cfg *c = q->vm->cfg;

	while (!bench_stop && !q->err) {
		uint64_t t0 = now_ns();
		int ret;

		q->pp_seq = q->next_seq;
		q->pp_back = false;
		ret = bench_tx_one(q, t0);
		if (ret == -EAGAIN) {
			vu_frontend_tx_reclaim(&q->vm->fe, q->pair);
			bench_idle(q);
			continue;
		}
		if (ret) {
			q->err = ret;
			break;
		}
		vu_frontend_tx_flush(&q->vm->fe, q->pair);
		BUMP(q->tx_frames, 1);
		BUMP(q->tx_bytes, c->size);
		while (!q->pp_back && !bench_stop) {
			if (vu_frontend_rx(&q->vm->fe, q->pair, bench_rx_cb, q,
					   RX_BUDGET) > 0)
				continue;
			if (now_ns() - t0 > PP_TIMEOUT_NS)
				break;		/* counted as lost by the seq check */
			bench_idle(q);
		}
	}
}

/* After the measured window: collect what is still in flight */
static void bench_drain(struct bench_q *q)
{
	uint64_t start = now_ns(), last = start, seen = UINT64_MAX;
	uint64_t quiet = q->vm->cfg->check_seq ? DRAIN_QUIET_NS :
			 DRAIN_QUIET_NOCHECK_NS;

	while (!bench_quit) {
		uint64_t t = now_ns();
		uint64_t rx;
		int r;

		vu_frontend_tx_reclaim(&q->vm->fe, q->pair);
		r = q->vm->cfg->rx_hang ? 0 :
		    vu_frontend_rx(&q->vm->fe, q->pair, bench_rx_cb, q,
				   RX_BUDGET);
		rx = q->rx_frames;
		if (r > 0 || rx != seen) {
			seen = rx;
			last = t;
		}
		if (q->vm->cfg->check_seq && q->vm->cfg->mode != BENCH_RX &&
		    rx >= q->tx_frames)
			break;		/* everything came back */
		if (t - last > quiet || t - start > DRAIN_MAX_NS)
			break;
		if (r <= 0)
			vu_frontend_wait(&q->vm->fe, q->pair, 10);
	}
}

static void *bench_worker(void *arg)
{
	struct bench_q *q = arg;

	if (q->vm->cfg->mode == BENCH_PINGPONG)
		bench_pingpong(q);
	else
		bench_stream(q);
	if (!q->vm->cfg->no_drain)
		bench_drain(q);
	return NULL;
}

/* --caller-mem: one memfd region at 4 GiB and one eventfd per kick/call,
 * all ours: the library borrows them */
static int bench_caller_mem(struct bench_vm *vm, struct vu_frontend_opts *o)
{
	const struct bench_cfg *c = vm->cfg;
	uint64_t slot = VU_FRONTEND_HDR_LEN + o->max_frame + 4096;
	unsigned int i;

	vm->region.fd = memfd_create("vnet-bench-guest", MFD_CLOEXEC);
	if (vm->region.fd < 0)
		return -errno;
	/* Rings, buffers and indirect tables of every ring, generously */
	vm->region.size = ((uint64_t)c->pairs * 2 * c->ring * (slot + 4096) +
			   (16ULL << 20)) & ~((2ULL << 20) - 1);
	vm->region.gpa = 1ULL << 32;
	if (ftruncate(vm->region.fd, (off_t)vm->region.size) < 0)
		return -errno;
	for (i = 0; i < 4 * c->pairs; i++) {
		vm->efd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (vm->efd[i] < 0)
			return -errno;
	}
	o->regions = &vm->region;
	o->nregions = 1;
	o->kick_fds = vm->efd;
	o->call_fds = vm->efd + 2 * c->pairs;
	return 0;
}

/**
 * bench_vm_start() - Connect one VM's frontend and prepare its workers
 * @vm:	VM with @cfg, @id and @socket set
 *
 * Return: 0 or -errno (a line on stderr says why)
 */
int bench_vm_start(struct bench_vm *vm)
{
	const struct bench_cfg *c = vm->cfg;
	struct vu_frontend_opts o = {
		.pairs = c->pairs, .ring_size = c->ring, .packed = c->packed,
		.features = c->features, .mem_regions = c->mem_regions,
		.max_frame = bench_max_frame(c),
		.no_reply_ack = c->no_reply_ack, .no_mem_slots = c->no_mem_slots,
	};
	unsigned int i;
	int ret;

	/* No MAC: the backend's config space (GET_CONFIG) or the default */
	if (c->caller_mem) {
		ret = bench_caller_mem(vm, &o);
		if (ret) {
			fprintf(stderr, "vnet-bench: caller memory: %s\n",
				strerror(-ret));
			return ret;
		}
	}
	ret = vu_frontend_init(&vm->fe, &o);
	/* A backend may create its socket before it listens: retry a while */
	for (i = 0; !ret && i < CONNECT_TRIES; i++) {
		ret = vu_frontend_connect(&vm->fe, vm->socket);
		if (ret != -ECONNREFUSED && ret != -ENOENT)
			break;
		if (i + 1 < CONNECT_TRIES) {
			usleep(50000);
			ret = 0;
		}
	}
	if (ret) {
		fprintf(stderr, "vnet-bench: vm %u: %s\n", vm->id,
			vu_frontend_error(&vm->fe));
		return ret;
	}
	if (c->size > L2_PLAIN_MAX &&
	    (vm->fe.features & TSO_NEEDS) != TSO_NEEDS) {
		fprintf(stderr, "vnet-bench: vm %u: %u B frames are sent as TSO frames, the backend did not negotiate HOST_TSO4 and CSUM\n",
			vm->id, c->size);
		return -EOPNOTSUPP;
	}
	if (c->csum && !(vm->fe.features & BIT(VIRTIO_NET_F_CSUM))) {
		fprintf(stderr, "vnet-bench: vm %u: --csum frames need CSUM, the backend did not negotiate it\n",
			vm->id);
		return -EOPNOTSUPP;
	}
	for (i = 0; i < c->pairs; i++) {
		struct bench_q *q = &vm->q[i];

		q->vm = vm;
		q->pair = i;
		q->frame = calloc(1, c->size);
		q->slot_ready = calloc(vm->fe.ring_size, 1);
		if (c->mode == BENCH_PINGPONG)
			q->lat = calloc(BENCH_LAT_MAX, sizeof(*q->lat));
		if (!q->frame || !q->slot_ready || (c->mode == BENCH_PINGPONG && !q->lat)) {
			fprintf(stderr, "vnet-bench: out of memory\n");
			return -ENOMEM;
		}
		bench_frame_init(q);
	}
	if (c->announce)
		return bench_announce(&vm->q[0]);
	return 0;
}

/**
 * bench_vm_finish() - Disconnect a VM and free its workers' memory
 * @vm:	VM
 */
void bench_vm_finish(struct bench_vm *vm)
{
	unsigned int i;

	vu_frontend_cleanup(&vm->fe);
	/* Borrowed by the library: still ours to close */
	if (vm->region.fd >= 0)
		close(vm->region.fd);
	vm->region.fd = -1;
	for (i = 0; i < ARRAY_SIZE(vm->efd); i++) {
		if (vm->efd[i] >= 0)
			close(vm->efd[i]);
		vm->efd[i] = -1;
	}
	for (i = 0; i < VU_FRONTEND_MAX_PAIRS; i++) {
		free(vm->q[i].frame);
		free(vm->q[i].slot_ready);
		free(vm->q[i].lat);
		vm->q[i].frame = NULL;
		vm->q[i].slot_ready = NULL;
		vm->q[i].lat = NULL;
	}
}

static void bench_progress(struct bench_vm *vms, unsigned int nvms,
			   uint64_t *ptx, uint64_t *prx, double t)
{
	uint64_t tx = 0, rx = 0;
	unsigned int v, i;

	for (v = 0; v < nvms; v++)
		for (i = 0; i < vms[v].cfg->pairs; i++) {
			tx += __atomic_load_n(&vms[v].q[i].tx_frames,
					      __ATOMIC_RELAXED);
			rx += __atomic_load_n(&vms[v].q[i].rx_frames,
					      __ATOMIC_RELAXED);
		}
	fprintf(stdout, "\r  %5.1f s  tx %8.3f Mpps  rx %8.3f Mpps   ", t,
		(double)(tx - *ptx) / 1e6, (double)(rx - *prx) / 1e6);
	fflush(stdout);
	*ptx = tx;
	*prx = rx;
}

/**
 * bench_run_workers() - Run every worker of every VM for @secs seconds
 * @vms:	VMs, started
 * @nvms:	How many
 * @secs:	Measured window
 * @elapsed:	Add the window's real length here (shorter on SIGINT/SIGTERM)
 *
 * Workers then drain what is still in flight before they are joined.
 *
 * Return: 0, or -errno if a thread could not start
 */
int bench_run_workers(struct bench_vm *vms, unsigned int nvms, double secs,
		      double *elapsed)
{
	uint64_t end, ptx = 0, prx = 0, t0 = now_ns();
	unsigned int v, i;
	int ret = 0;

	bench_stop = 0;
	bench_quit = 0;
	for (v = 0; v < nvms; v++)
		for (i = 0; i < vms[v].cfg->pairs; i++) {
			ptx += vms[v].q[i].tx_frames;
			prx += vms[v].q[i].rx_frames;
		}
	for (v = 0; v < nvms && !ret; v++)
		for (i = 0; i < vms[v].cfg->pairs && !ret; i++)
			ret = -pthread_create(&vms[v].q[i].thread, NULL,
					      bench_worker, &vms[v].q[i]);
	end = t0 + (uint64_t)(secs * 1e9);
	while (!ret && !bench_interrupted && now_ns() < end) {
		uint64_t left = end - now_ns();
		struct timespec ts = { .tv_sec = 0,
				       .tv_nsec = (long)MIN(left, 999999999ULL) };

		if (vms[0].cfg->ctl_soak) {	/* the window is the rounds */
			if (bench_ctl_soak_step(vms, nvms) <= 0)
				break;
			continue;
		}
		if (left > 1000000000ULL) {
			ts.tv_sec = 1;
			ts.tv_nsec = 0;
		}
		nanosleep(&ts, NULL);
		if (vms[0].cfg->progress)
			bench_progress(vms, nvms, &ptx, &prx,
				       (double)(now_ns() - t0) / 1e9);
	}
	if (vms[0].cfg->progress)
		fprintf(stdout, "\n");
	bench_stop = 1;
	*elapsed += (double)(now_ns() - t0) / 1e9;
	for (v = 0; v < nvms; v++)
		for (i = 0; i < vms[v].cfg->pairs; i++)
			if (vms[v].q[i].thread)
				pthread_join(vms[v].q[i].thread, NULL);
	for (v = 0; v < nvms; v++)
		for (i = 0; i < vms[v].cfg->pairs; i++)
			vms[v].q[i].thread = 0;
	return ret;
}
