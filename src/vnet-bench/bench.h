/* SPDX-License-Identifier: MIT */
/*
 * bench.h - vnet-bench's pieces: options (main.c), the per-queue workers
 * (run.c), starting vnetd (spawn.c), the report (report.c), and the ring
 * micro-benchmark (ring.c, `vnet-bench ring`).
 */
#ifndef VNET_BENCH_H
#define VNET_BENCH_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util.h"
#include "vu_frontend.h"

#define BENCH_MAX_VMS		64
#define BENCH_ETHERTYPE		0x88b5	/* IEEE local experimental */
#define BENCH_MAGIC		0x564e4254u	/* "VNBT" */
#define BENCH_LAT_MAX		(1u << 21)	/* latency samples per queue */

enum bench_mode {
	BENCH_TX = 0,		/* tx-only */
	BENCH_RX,		/* rx-only */
	BENCH_BIDIR,		/* bidirectional */
	BENCH_PINGPONG,		/* one frame in flight, round-trip latency */
};

/**
 * struct bench_cfg - What the command line asked for
 */
struct bench_cfg {
	const char *socket;	/* backend socket; with --vms N: PATH, PATH.1.. */
	bool spawn;		/* start vnetd --backend loop ourselves */
	const char *spawn_backend;
	enum bench_mode mode;
	uint32_t size;		/* frame bytes (no vnet header, no FCS) */
	unsigned int pairs;
	unsigned int vms;
	double duration;
	bool poll;
	bool packed;
	bool no_drain;		/* count nothing after the window */
	unsigned int ring;
	unsigned int batch;
	unsigned int mem_regions;
	uint64_t features;	/* 0: library default */
	bool json;
	bool check_seq;
	bool progress;
	double restart_at;	/* >0: stop, restart the backend, resume */
	bool no_reply_ack;	/* library: do not use REPLY_ACK */
	bool no_mem_slots;	/* library: SET_MEM_TABLE, not ADD_MEM_REG */
	bool caller_mem;	/* pass our own memfd and eventfds (borrowed) */
	unsigned int sessions;	/* >0: that many short sessions (sessions.c) */
	unsigned int session_frames;	/* frames each session sends */
	unsigned int ctl_soak;	/* >0: control rounds under traffic (ctlsoak.c) */
	unsigned int ctl_soak_ops;	/* BENCH_SOAK_* */
	uint8_t src_mac[6];	/* --src-mac, if @have_src_mac */
	bool have_src_mac;
	uint8_t dst_mac[6];	/* --dst-mac, if @have_dst_mac (else broadcast) */
	bool have_dst_mac;
	uint64_t frames;	/* --frames: per pair at most, 0: no limit */
	uint64_t pps;		/* --pps: per pair at most, 0: no limit */
	bool rx_hang;		/* tx-only: never take a received frame */
	unsigned int flows;	/* --flows: IPv4/UDP, N source ports; 0: raw */
	bool rand_src_mac;	/* --rand-src-mac: a new source MAC per frame */
	bool csum;		/* --csum: IPv4/TCP, a partial checksum (NEEDS_CSUM) */
	bool announce;		/* --announce: one broadcast frame first */
};

/**
 * struct bench_q - One worker: one queue pair of one VM
 */
struct bench_q {
	struct bench_vm *vm;
	unsigned int pair;
	pthread_t thread;
	uint8_t *frame;			/* template, cfg.size bytes */
	uint8_t *slot_ready;		/* [ring] TX slot holds the template */
	struct virtio_net_hdr_v1 hdr;	/* TSO header for large frames */
	uint32_t marker_off;		/* where our marker sits in a frame */
	/* written by the worker (relaxed atomics), read by the main thread */
	uint64_t tx_frames, tx_bytes, rx_frames, rx_bytes;
	uint64_t lost, dup, reorder, foreign, bad;
	/* worker private */
	uint64_t next_seq, expect_seq;
	uint64_t tx_t0;			/* --pps: when sending started */
	uint64_t pp_seq;		/* ping-pong: seq awaiting its echo */
	uint64_t mac_rng;		/* --rand-src-mac: xorshift state */
	bool pp_back;
	uint32_t *lat;			/* [BENCH_LAT_MAX] ns */
	uint32_t nlat;
	uint64_t lat_dropped;
	double p50_us, p99_us, p999_us;
	int err;
};

/* --ctl-soak-ops: what each round sends */
#define BENCH_SOAK_MEM		0x1	/* ADD_MEM_REG + REM_MEM_REG */
#define BENCH_SOAK_LOG		0x2	/* SET_LOG_BASE, LOG_ALL on, off */
#define BENCH_SOAK_ENABLE	0x4	/* a TX ring disabled, enabled */

/**
 * struct bench_soak - One VM's --ctl-soak state
 * @reg:	The hotplugged region (memfd, gpa above the rings')
 * @host:	Our mapping of it
 * @log_fd:	The dirty log
 * @log_size:	Its bytes
 * @done:	Rounds completed
 * @ready:	@reg and @log_fd made
 * @err:	-errno of the failed round, 0 if none
 */
struct bench_soak {
	struct vu_frontend_region reg;
	void *host;
	int log_fd;
	uint64_t log_size;
	unsigned int done;
	bool ready;
	int err;
};

/**
 * struct bench_vm - One emulated VM: a frontend and its workers
 */
struct bench_vm {
	const struct bench_cfg *cfg;
	unsigned int id;
	char socket[108];
	struct vu_frontend fe;
	struct bench_q q[VU_FRONTEND_MAX_PAIRS];
	pid_t vnetd;			/* spawned backend, 0 if none */
	struct vu_frontend_region region;	/* --caller-mem: our memfd */
	int efd[2 * VU_FRONTEND_MAX_PAIRS];	/* --caller-mem: kick then call */
	char vnetd_log[128];
	struct bench_soak soak;		/* --ctl-soak */
};

extern volatile int bench_stop;		/* workers stop sending */
extern volatile int bench_quit;		/* workers stop draining too */
extern volatile sig_atomic_t bench_interrupted;	/* SIGINT/SIGTERM seen */

/**
 * bench_max_frame() - The largest frame a VM's frontend must take
 * @c:	Run's configuration
 *
 * Return: the frame size asked for, at least a full Ethernet frame
 */
static inline uint32_t bench_max_frame(const struct bench_cfg *c)
{
	return MAX(c->size, 1518u);
}

int bench_vm_start(struct bench_vm *vm);
int bench_run_workers(struct bench_vm *vms, unsigned int nvms, double secs,
		      double *elapsed);
void bench_vm_finish(struct bench_vm *vm);

int bench_spawn(struct bench_vm *vm);
void bench_spawn_stop(struct bench_vm *vm, bool keep_log);

int bench_report(const struct bench_cfg *cfg, struct bench_vm *vms,
		 unsigned int nvms, double secs);
const char *bench_mode_name(enum bench_mode m);

/* sessions.c */
int bench_sessions(const struct bench_cfg *c, const char *path);
int bench_ctl_soak_step(struct bench_vm *vms, unsigned int nvms);
int bench_ctl_soak_finish(struct bench_vm *vms, unsigned int nvms);

/* ring.c (another file's owner): the ring micro-benchmark, `vnet-bench ring`.
 * Weak, so vnet-bench links (and says so) before ring.c exists. */
int bench_ring_main(int argc, char **argv) __attribute__((weak));

#endif /* VNET_BENCH_H */
