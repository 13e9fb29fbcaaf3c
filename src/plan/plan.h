/* SPDX-License-Identifier: MIT */
/*
 * plan.h - queue policy and VMM argument generation for one VM NIC.
 *
 * Pure functions: no I/O, no global state. The caller (vnetctl plan) probes
 * the host (QEMU version, /dev/vhost-net) and passes the results in; this
 * layer decides the queue pair count and renders QEMU, libvirt,
 * cloud-hypervisor and vnetd arguments into caller-owned buffers.
 */
#ifndef VNET_PLAN_H
#define VNET_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "reason.h"

#define PLAN_MAX_QUEUES_LIMIT	64u	/* highest node cap we accept */
#define PLAN_MAX_QUEUES_DEFAULT	16u	/* node cap when none is given */
#define PLAN_DEFAULT_PAIRS_CAP	16u	/* default never exceeds this */
#define PLAN_MAX_VCPUS		1024u
#define PLAN_MSG_LEN		256
#define PLAN_MAX_MSGS		4
/* What VXLAN over IPv4 takes of the underlay MTU: outer IPv4 20, UDP 8,
 * VXLAN 8, inner Ethernet 14 */
#define PLAN_VXLAN_OVERHEAD	50
#define PLAN_MAX_ARGS		48
#define PLAN_ARGS_BUF		4096

/* Where the VM's frames go on the host */
enum plan_backend {
	PLAN_BACKEND_VHOST_USER,	/* QEMU <-> vnetd over a UNIX socket */
	PLAN_BACKEND_TAP,		/* QEMU's own TAP netdev (kernel vhost-net or not) */
};

/* The node's vhost setting as asked for */
enum plan_vhost {
	PLAN_VHOST_AUTO,	/* on if available, else off with a warning */
	PLAN_VHOST_ON,		/* must be available, else the plan fails */
	PLAN_VHOST_OFF,
};

/**
 * struct plan_policy_in - Inputs of the queue policy
 * @vcpus:		vCPUs of the VM, 1..PLAN_MAX_VCPUS
 * @max_queues:		Node cap, 1..PLAN_MAX_QUEUES_LIMIT
 * @vhost:		Node vhost setting as requested
 * @vhost_available:	Whether the vhost data path can be used on this host
 *			(vnetd for vhost-user; an accessible /dev/vhost-net for TAP)
 * @vhost_why:		If not available: why, for the warning or error
 * @queues:		Explicit per-VM count as typed, or NULL for the default
 */
struct plan_policy_in {
	unsigned int vcpus;
	unsigned int max_queues;
	enum plan_vhost vhost;
	bool vhost_available;
	const char *vhost_why;
	const char *queues;
};

/**
 * struct plan_policy_out - What the policy decided
 * @pairs:	Queue pairs (1..max_queues)
 * @vectors:	MSI-X vectors for virtio-net-pci: 2 * @pairs + 2
 * @vhost:	Whether the vhost data path is used
 * @nnotes:	Number of notes (informational) in @notes
 * @notes:	Notes for the operator
 * @nwarnings:	Number of warnings (a default degraded) in @warnings
 * @warnings:	Warnings for the operator
 */
struct plan_policy_out {
	unsigned int pairs;
	unsigned int vectors;
	bool vhost;
	unsigned int nnotes;
	char notes[PLAN_MAX_MSGS][PLAN_MSG_LEN];
	unsigned int nwarnings;
	char warnings[PLAN_MAX_MSGS][PLAN_MSG_LEN];
};

/**
 * struct plan_vm - What the VMM configuration is generated from
 * @backend:	Data path
 * @id:		Netdev id (QEMU) / interface name stem, e.g. "net0"
 * @socket:	vhost-user socket path (vnetd listens, the VMM connects)
 * @tap:	Host TAP device name
 * @tap_fds:	TAP fds already open, "a:b:c", or NULL to let QEMU open @tap
 * @bridge:	Bridge for libvirt type='bridge', or NULL
 * @mac:	Guest MAC address, or NULL
 * @memory:	Guest RAM size as QEMU spells it, e.g. "1G"
 * @qemu_major:	Installed (or assumed) QEMU version, major
 * @qemu_minor:	Installed (or assumed) QEMU version, minor
 * @mtu:	Guest MTU to advertise (VIRTIO_NET_F_MTU), 0: none
 * @nic_only:	Leave out what is the VM's rather than the NIC's (memory,
 *		vCPUs): for a VM's second and later NICs
 * @no_tx_offloads: Withhold checksum and TSO offloads from the guest
 *		(vnetd --features): Open vSwitch's userspace datapath drops
 *		offloaded frames it should tunnel
 * @xdp_if:	vnetd's host side is af_xdp on this existing interface, one
 *		NIC queue per queue pair from @xdp_queue; NULL: a TAP
 * @xdp_queue:	af_xdp: the NIC queue of pair 0 (vnetd's xdp-queue=)
 */
struct plan_vm {
	enum plan_backend backend;
	const char *id;
	const char *socket;
	const char *tap;
	const char *tap_fds;
	const char *bridge;
	const char *mac;
	const char *memory;
	unsigned int qemu_major;
	unsigned int qemu_minor;
	unsigned int mtu;
	bool nic_only;
	bool no_tx_offloads;
	const char *xdp_if;
	unsigned int xdp_queue;
};

/* What vnetd --features withholds for @no_tx_offloads */
#define PLAN_NO_TX_OFFLOADS	"-csum,-host_tso4,-host_tso6,-host_ecn,-host_ufo"

/**
 * struct plan_args - An argument vector stored in its own buffer
 * @argc:	Number of arguments
 * @argv:	Pointers into @buf
 * @used:	Bytes of @buf in use
 * @buf:	Storage for the argument strings
 */
struct plan_args {
	int argc;
	const char *argv[PLAN_MAX_ARGS];
	size_t used;
	char buf[PLAN_ARGS_BUF];
};

int plan_parse_uint(const char *what, const char *s, unsigned int lo,
		    unsigned int hi, unsigned int *out, struct reason *why);
int plan_policy(const struct plan_policy_in *in, struct plan_policy_out *out,
		struct reason *why);
int plan_qemu_version_parse(const char *text, unsigned int *major,
			    unsigned int *minor);
int plan_check_vm(const struct plan_vm *vm, const struct plan_policy_out *pol,
		  struct reason *why);
int plan_xdp_check(const char *ifname, int nic_queues, unsigned int first,
		   unsigned int pairs, struct reason *why);
int plan_qemu_args(const struct plan_vm *vm, const struct plan_policy_in *in,
		   const struct plan_policy_out *pol, struct plan_args *a);
int plan_ch_args(const struct plan_vm *vm, const struct plan_policy_in *in,
		 const struct plan_policy_out *pol, struct plan_args *a);
int plan_vnetd_args(const struct plan_vm *vm, const struct plan_policy_out *pol,
		    struct plan_args *a);
int plan_libvirt_xml(const struct plan_vm *vm, const struct plan_policy_out *pol,
		     char *buf, size_t len);
int plan_libvirt_memory_xml(const struct plan_vm *vm, char *buf, size_t len);
int plan_guest_hint(const struct plan_policy_out *pol, char *buf, size_t len);
int plan_shell_join(const struct plan_args *a, const char *sep, char *buf,
		    size_t len);
int plan_json_string(const char *s, char *buf, size_t len);

#endif /* VNET_PLAN_H */
