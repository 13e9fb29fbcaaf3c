// SPDX-License-Identifier: MIT
/*
 * plan.c - queue policy and VMM argument generation for one VM NIC.
 *
 * Decides how many queue pairs a VM gets from its vCPUs, the node cap and
 * the node's vhost setting, and renders the matching QEMU, libvirt,
 * cloud-hypervisor and vnetd arguments. Pure: every input comes from the
 * caller (which probes the host), every output goes to a caller buffer, and
 * nothing here prints, allocates or exits. Refusals are sentences written to
 * the caller's error buffer, meant to be shown to a person as they are.
 *
 * Leaves to others: probing /dev/vhost-net and QEMU (provision.c, vnetctl),
 * creating TAP devices (provision.c), printing (vnetctl).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "reason.h"
#include "util.h"

enum plan_num {
	PLAN_NUM_OK,
	PLAN_NUM_EMPTY,
	PLAN_NUM_NOT_NUMBER,
	PLAN_NUM_NEGATIVE,
	PLAN_NUM_TOO_BIG,	/* does not fit in an unsigned int */
};

/* Strict decimal: digits only (a leading '-' is recognised to say "negative") */
static enum plan_num plan_num_classify(const char *s, unsigned int *out)
{
	unsigned long long v = 0;
	const char *p = s;
	bool neg = false;

	if (!s || !*s)
		return PLAN_NUM_EMPTY;
	if (*p == '-') {
		neg = true;
		p++;
	}
	if (!*p)
		return PLAN_NUM_NOT_NUMBER;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return PLAN_NUM_NOT_NUMBER;
		if (v <= 0xffffffffULL)
			v = v * 10 + (unsigned int)(*p - '0');
	}
	if (neg)
		return v ? PLAN_NUM_NEGATIVE : (*out = 0, PLAN_NUM_OK);
	if (v > 0xffffffffULL)
		return PLAN_NUM_TOO_BIG;
	*out = (unsigned int)v;
	return PLAN_NUM_OK;
}

/**
 * plan_parse_uint() - Parse a flag value that must be a whole number in a range
 * @what:	How to name the value in a message, e.g. "--vcpus"
 * @s:		The value as typed
 * @lo:		Lowest allowed value
 * @hi:		Highest allowed value
 * @out:	Parsed value (output, only on success)
 * @why:	Message naming @what, @s and the range (output, on failure)
 *
 * Return: 0 on success, -EINVAL if @s is not a whole number in @lo..@hi
 */
int plan_parse_uint(const char *what, const char *s, unsigned int lo,
		    unsigned int hi, unsigned int *out, struct reason *why)
{
	unsigned int v = 0;

	switch (plan_num_classify(s, &v)) {
	case PLAN_NUM_EMPTY:
		return reason_set(why, -EINVAL, "%s needs a value (allowed %u..%u)",
				  what, lo, hi);
	case PLAN_NUM_NOT_NUMBER:
		return reason_set(why, -EINVAL, "%s '%s' is not a number (allowed %u..%u)",
				  what, s, lo, hi);
	case PLAN_NUM_NEGATIVE:
		return reason_set(why, -EINVAL, "%s %s is negative (allowed %u..%u)",
				  what, s, lo, hi);
	case PLAN_NUM_TOO_BIG:
		break;
	case PLAN_NUM_OK:
		if (v >= lo && v <= hi) {
			*out = v;
			return 0;
		}
		break;
	}
	return reason_set(why, -EINVAL, "%s %s is out of range (allowed %u..%u)",
			  what, s, lo, hi);
}

static void plan_msg(char (*msgs)[PLAN_MSG_LEN], unsigned int *n,
		     const char *fmt, ...) PRINTF_FMT(3, 4);

static void plan_msg(char (*msgs)[PLAN_MSG_LEN], unsigned int *n,
		     const char *fmt, ...)
{
	va_list ap;

	if (*n >= PLAN_MAX_MSGS)
		return;
	va_start(ap, fmt);
	vsnprintf(msgs[*n], PLAN_MSG_LEN, fmt, ap);
	va_end(ap);
	(*n)++;
}

/* The explicit per-VM count: honoured in 1..cap, anything else refused */
static int plan_explicit_pairs(const char *s, unsigned int cap,
			       unsigned int *pairs, struct reason *why)
{
	unsigned int v = 0;

	switch (plan_num_classify(s, &v)) {
	case PLAN_NUM_EMPTY:
		return reason_set(why, -EINVAL, "queue count is empty: give a whole number from 1 to %u (node cap max_queues=%u)",
				  cap, cap);
	case PLAN_NUM_NOT_NUMBER:
		return reason_set(why, -EINVAL, "queue count '%s' is not a number: give a whole number from 1 to %u (node cap max_queues=%u)",
				  s, cap, cap);
	case PLAN_NUM_NEGATIVE:
		return reason_set(why, -EINVAL, "queue count %s is negative: give a whole number from 1 to %u (node cap max_queues=%u)",
				  s, cap, cap);
	case PLAN_NUM_TOO_BIG:
		break;
	case PLAN_NUM_OK:
		if (v == 0)
			return reason_set(why, -EINVAL, "queue count 0 is refused: a VM needs at least 1 queue pair (allowed 1 to %u, node cap max_queues=%u)",
					  cap, cap);
		if (v <= cap) {
			*pairs = v;
			return 0;
		}
		break;
	}
	return reason_set(why, -ERANGE, "queue count %s exceeds the node cap max_queues=%u: ask for 1 to %u queue pairs, or raise the cap",
			  s, cap, cap);
}

/* Resolve the vhost setting: a default degrades, an explicit "on" must hold */
static int plan_vhost_resolve(const struct plan_policy_in *in,
			      struct plan_policy_out *out, struct reason *why)
{
	const char *cause = in->vhost_why ? in->vhost_why : "unknown reason";

	switch (in->vhost) {
	case PLAN_VHOST_OFF:
		out->vhost = false;
		return 0;
	case PLAN_VHOST_ON:
		if (!in->vhost_available)
			return reason_set(why, -ENODEV, "vhost was requested (--vhost on) but cannot be used: %s",
					  cause);
		out->vhost = true;
		return 0;
	case PLAN_VHOST_AUTO:
		out->vhost = in->vhost_available;
		if (!in->vhost_available)
			plan_msg(out->warnings, &out->nwarnings,
				 "vhost is not available (%s): falling back to vhost off, 1 queue pair by default",
				 cause);
		return 0;
	}
	return reason_set(why, -EINVAL, "unknown vhost setting %d", (int)in->vhost);
}

/**
 * plan_policy() - Decide the queue pairs (and vectors) of one VM NIC
 * @in:		VM and node inputs
 * @out:	Decision, notes and warnings (output)
 * @why:	Why the inputs are refused (output, on failure): one sentence
 *
 * With vhost on the default is min(vCPUs, 16, node cap); with vhost off it
 * is 1. An explicit count is honoured when 1 <= count <= node cap; zero,
 * negative, non-numeric and too large counts are refused, never replaced.
 * More pairs than vCPUs is allowed, with a note.
 *
 * Return: 0 on success, -EINVAL or -ERANGE for a refused input, -ENODEV if
 *	   vhost was explicitly requested and is not available
 */
int plan_policy(const struct plan_policy_in *in, struct plan_policy_out *out,
		struct reason *why)
{
	unsigned int cap = in->max_queues;
	int ret;

	memset(out, 0, sizeof(*out));
	if (in->vcpus < 1 || in->vcpus > PLAN_MAX_VCPUS)
		return reason_set(why, -EINVAL, "vcpus %u is out of range (allowed 1..%u)",
				  in->vcpus, PLAN_MAX_VCPUS);
	if (cap < 1 || cap > PLAN_MAX_QUEUES_LIMIT)
		return reason_set(why, -EINVAL, "node cap max_queues=%u is out of range (allowed 1..%u)",
				  cap, PLAN_MAX_QUEUES_LIMIT);
	ret = plan_vhost_resolve(in, out, why);
	if (ret)
		return ret;

	if (in->queues) {
		ret = plan_explicit_pairs(in->queues, cap, &out->pairs, why);
		if (ret)
			return ret;
	} else if (out->vhost) {
		out->pairs = MIN(MIN(in->vcpus, (unsigned int)PLAN_DEFAULT_PAIRS_CAP),
				 cap);
		if (cap < MIN(in->vcpus, (unsigned int)PLAN_DEFAULT_PAIRS_CAP))
			plan_msg(out->notes, &out->nnotes,
				 "%u queue pairs: the node cap max_queues=%u is below the VM's %u vCPUs",
				 out->pairs, cap, in->vcpus);
	} else {
		out->pairs = 1;
	}

	if (out->pairs > in->vcpus)
		plan_msg(out->notes, &out->nnotes,
			 "%u queue pairs for %u vCPUs: the extra pairs stay idle until the VM gets more vCPUs",
			 out->pairs, in->vcpus);
	out->vectors = 2 * out->pairs + 2;
	return 0;
}

/**
 * plan_qemu_version_parse() - Find the version in `qemu-system-* --version`
 * @text:	The program's output
 * @major:	Major version (output)
 * @minor:	Minor version (output)
 *
 * Accepts "QEMU emulator version X.Y[.Z] ..." or a bare "X.Y[.Z]" (the
 * --qemu-version override).
 *
 * Return: 0 on success, -EINVAL if no version is found
 */
int plan_qemu_version_parse(const char *text, unsigned int *major,
			    unsigned int *minor)
{
	static const char key[] = "version ";
	const char *p = strstr(text, key);
	unsigned int a, b;
	char dot;

	p = p ? p + strlen(key) : text;
	if (sscanf(p, "%u%c%u", &a, &dot, &b) != 3 || dot != '.')
		return -EINVAL;
	if (a > 1000 || b > 1000)
		return -EINVAL;
	*major = a;
	*minor = b;
	return 0;
}

/* QEMU ids: a letter, then letters, digits, '-', '.', '_' */
static bool plan_id_ok(const char *id)
{
	const char *p;

	if (!id || !((*id >= 'a' && *id <= 'z') || (*id >= 'A' && *id <= 'Z')))
		return false;
	for (p = id; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-._", *p))
			return false;
	return strlen(id) <= 32;
}

/* "a:b:c": count the fds and check each is a number */
static int plan_count_fds(const char *fds)
{
	unsigned int v;
	int n = 0;
	const char *p = fds;
	char tmp[16];

	while (*p) {
		size_t len = strcspn(p, ":");

		if (!len || len >= sizeof(tmp))
			return -EINVAL;
		memcpy(tmp, p, len);
		tmp[len] = '\0';
		if (plan_num_classify(tmp, &v) != PLAN_NUM_OK)
			return -EINVAL;
		n++;
		p += len;
		if (*p == ':' && !*++p)
			return -EINVAL;
	}
	return n;
}

/**
 * plan_check_vm() - Check the VM description against the decided policy
 * @vm:		VM description
 * @pol:	Policy decision
 * @why:	What is wrong (output, on failure)
 *
 * Return: 0 if every generator can run, -EINVAL otherwise
 */
int plan_check_vm(const struct plan_vm *vm, const struct plan_policy_out *pol,
		  struct reason *why)
{
	int n;

	if (!plan_id_ok(vm->id))
		return reason_set(why, -EINVAL, "--id '%s' is not a valid id (a letter, then letters, digits, '-', '.', '_'; at most 32)",
				  vm->id ? vm->id : "");
	if (vm->backend == PLAN_BACKEND_VHOST_USER && (!vm->socket || !*vm->socket))
		return reason_set(why, -EINVAL, "--backend vhost-user needs --socket PATH");
	if (!vm->tap || !*vm->tap || strlen(vm->tap) > 15 || strchr(vm->tap, '/'))
		return reason_set(why, -EINVAL, "--tap '%s' is not a valid interface name (1..15 characters, no '/')",
				  vm->tap ? vm->tap : "");
	if (vm->xdp_if) {
		if (vm->backend != PLAN_BACKEND_VHOST_USER)
			return reason_set(why, -EINVAL, "--host af_xdp is vnetd's host side: only with --backend vhost-user");
		if (!*vm->xdp_if || strlen(vm->xdp_if) > 15 || strchr(vm->xdp_if, '/'))
			return reason_set(why, -EINVAL, "--if '%s' is not a valid interface name (1..15 characters, no '/')",
					  vm->xdp_if);
		if (strchr(vm->socket, ','))
			return reason_set(why, -EINVAL, "--socket '%s': a ',' cannot go into a vnetd --port group (--host af_xdp): pick a path without one",
					  vm->socket);
		if (vm->no_tx_offloads)
			return reason_set(why, -EINVAL, "--ovs-datapath: the VM's frames go out --if %s, not through an Open vSwitch bridge: not with --host af_xdp",
					  vm->xdp_if);
	}
	if (vm->tap_fds && vm->backend != PLAN_BACKEND_TAP)
		return reason_set(why, -EINVAL, "--tap-fds applies only to --backend tap");
	if (vm->tap_fds) {
		n = plan_count_fds(vm->tap_fds);
		if (n < 0)
			return reason_set(why, -EINVAL, "--tap-fds '%s' is not a list of fd numbers like 3:4:5",
					  vm->tap_fds);
		if ((unsigned int)n != pol->pairs)
			return reason_set(why, -EINVAL, "--tap-fds '%s' has %d fds but the plan has %u queue pairs: give one fd per queue pair",
					  vm->tap_fds, n, pol->pairs);
	}
	return 0;
}

/**
 * plan_xdp_check() - Can the interface take the VM's queue pairs?
 * @ifname:	--if as given (checked by plan_check_vm())
 * @nic_queues:	Its RX queue count as the caller read it, or -errno
 *		(-ENOENT: no such interface)
 * @first:	The queue of pair 0 (--xdp-queue)
 * @pairs:	Queue pairs the policy decided: vnetd binds one AF_XDP
 *		socket per pair, to queues @first..@first + @pairs - 1
 * @why:	Why not (output, on failure)
 *
 * Return: 0, -ENODEV if the interface does not exist or its queues cannot
 *	   be read, -ERANGE if it has fewer queues than @first + @pairs
 */
int plan_xdp_check(const char *ifname, int nic_queues, unsigned int first,
		   unsigned int pairs, struct reason *why)
{
	if (nic_queues == -ENOENT || nic_queues == -ENODEV)
		return reason_set(why, -ENODEV, "--if %s: no such interface: --host af_xdp needs an existing one (ip link)",
				  ifname);
	if (nic_queues < 0)
		return reason_set(why, -ENODEV, "--if %s: cannot read its queue count: %s",
				  ifname, strerror(-nic_queues));
	if (first && (unsigned int)nic_queues < first + pairs)
		return reason_set(why, -ERANGE, "--if %s has %d queue%s, the VM's %u queue pair%s from --xdp-queue %u need%s %u: give it more (ethtool -L %s combined %u) or lower --xdp-queue",
				  ifname, nic_queues, nic_queues == 1 ? "" : "s",
				  pairs, pairs == 1 ? "" : "s", first,
				  pairs == 1 ? "s" : "", first + pairs, ifname,
				  first + pairs);
	if ((unsigned int)nic_queues < pairs)
		return reason_set(why, -ERANGE, "--if %s has %d queue%s, the VM's %u queue pairs need %u: give it more (ethtool -L %s combined %u) or plan fewer pairs (--queues %d)",
				  ifname, nic_queues, nic_queues == 1 ? "" : "s",
				  pairs, pairs, ifname, pairs,
				  nic_queues ? nic_queues : 1);
	return 0;
}

/* ---- rendering helpers ---------------------------------------------------- */

static int plan_arg_add(struct plan_args *a, const char *fmt, ...)
	PRINTF_FMT(2, 3);

static int plan_arg_add(struct plan_args *a, const char *fmt, ...)
{
	size_t room = sizeof(a->buf) - a->used;
	va_list ap;
	int n;

	if (a->argc >= PLAN_MAX_ARGS)
		return -ENOSPC;
	va_start(ap, fmt);
	n = vsnprintf(a->buf + a->used, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room)
		return -ENOSPC;
	a->argv[a->argc++] = a->buf + a->used;
	a->used += (size_t)n + 1;
	return 0;
}

/* QEMU option values: a ',' is written ",," */
static int plan_qemu_escape(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; *s; s++) {
		if (o + 3 > len)
			return -ENOSPC;
		buf[o++] = *s;
		if (*s == ',')
			buf[o++] = ',';
	}
	if (o >= len)
		return -ENOSPC;
	buf[o] = '\0';
	return 0;
}

/* The options after netdev= on -device: mac, and for N > 1 mq and vectors */
static int plan_qemu_device(const struct plan_vm *vm,
			    const struct plan_policy_out *pol,
			    struct plan_args *a)
{
	char mac[40] = "", mq[48] = "", mtu[24] = "";

	if (vm->mac)
		snprintf(mac, sizeof(mac), ",mac=%s", vm->mac);
	if (pol->pairs > 1)
		snprintf(mq, sizeof(mq), ",mq=on,vectors=%u", pol->vectors);
	if (vm->mtu)
		snprintf(mtu, sizeof(mtu), ",host_mtu=%u", vm->mtu);
	return plan_arg_add(a, "-device") ?:
	       plan_arg_add(a, "virtio-net-pci,netdev=%s%s%s%s", vm->id, mac, mq, mtu);
}

static int plan_qemu_vhost_user(const struct plan_vm *vm,
				const struct plan_policy_out *pol,
				struct plan_args *a)
{
	bool new_spelling = vm->qemu_major > 9 ||
			    (vm->qemu_major == 9 && vm->qemu_minor >= 2);
	char path[1024], queues[32] = "";
	int ret;

	ret = plan_qemu_escape(vm->socket, path, sizeof(path));
	if (ret)
		return ret;
	if (pol->pairs > 1)
		snprintf(queues, sizeof(queues), ",queues=%u", pol->pairs);
	/* vhost-user needs guest RAM the backend can map: a shared memfd,
	 * once per VM (not again for a second NIC) */
	if (!vm->nic_only)
		ret = plan_arg_add(a, "-object") ?:
		      plan_arg_add(a, "memory-backend-memfd,id=mem-%s,size=%s,share=on",
				   vm->id, vm->memory) ?:
		      plan_arg_add(a, "-machine") ?:
		      plan_arg_add(a, "memory-backend=mem-%s", vm->id);
	if (ret)
		return ret;
	return plan_arg_add(a, "-chardev") ?:
	       plan_arg_add(a, "socket,id=chr-%s,path=%s,%s", vm->id, path,
			    new_spelling ? "reconnect-ms=1000" : "reconnect=1") ?:
	       plan_arg_add(a, "-netdev") ?:
	       plan_arg_add(a, "vhost-user,id=%s,chardev=chr-%s%s", vm->id,
			    vm->id, queues);
}

static int plan_qemu_tap(const struct plan_vm *vm,
			 const struct plan_policy_out *pol, struct plan_args *a)
{
	const char *vhost = pol->vhost ? "on" : "off";
	char queues[32] = "";

	if (vm->tap_fds)
		return plan_arg_add(a, "-netdev") ?:
		       plan_arg_add(a, "tap,id=%s,%s=%s,vhost=%s", vm->id,
				    pol->pairs > 1 ? "fds" : "fd", vm->tap_fds,
				    vhost);
	if (pol->pairs > 1)
		snprintf(queues, sizeof(queues), ",queues=%u", pol->pairs);
	return plan_arg_add(a, "-netdev") ?:
	       plan_arg_add(a, "tap,id=%s,ifname=%s,script=no,downscript=no,vhost=%s%s",
			    vm->id, vm->tap, vhost, queues);
}

/**
 * plan_qemu_args() - QEMU arguments for the VM's NIC (and what it needs)
 * @vm:		VM description, checked by plan_check_vm()
 * @in:		Policy inputs (for the vCPU count)
 * @pol:	Policy decision
 * @a:		Argument vector (output)
 *
 * vhost-user: -m, a shared memfd memory backend, -smp, the chardev (reconnect
 * spelled for the QEMU version), -netdev vhost-user, -device virtio-net-pci.
 * TAP: -m, -smp, -netdev tap (ifname or fds), -device. A single queue pair
 * emits no queues=, mq=on or vectors=. @vm->nic_only (a VM's second and
 * later NICs) leaves out what is the VM's: -m, -smp and the memory backend.
 *
 * Return: 0 on success, -ENOSPC if @a is too small
 */
int plan_qemu_args(const struct plan_vm *vm, const struct plan_policy_in *in,
		   const struct plan_policy_out *pol, struct plan_args *a)
{
	int ret;

	memset(a, 0, sizeof(*a));
	if (!vm->nic_only)
		ret = plan_arg_add(a, "-m") ?: plan_arg_add(a, "%s", vm->memory) ?:
		      plan_arg_add(a, "-smp") ?: plan_arg_add(a, "%u", in->vcpus);
	else
		ret = 0;
	if (ret)
		return ret;
	if (vm->backend == PLAN_BACKEND_VHOST_USER)
		ret = plan_qemu_vhost_user(vm, pol, a);
	else
		ret = plan_qemu_tap(vm, pol, a);
	return ret ?: plan_qemu_device(vm, pol, a);
}

/**
 * plan_ch_args() - cloud-hypervisor arguments for the VM's NIC
 * @vm:		VM description, checked by plan_check_vm()
 * @in:		Policy inputs (for the vCPU count)
 * @pol:	Policy decision
 * @a:		Argument vector (output)
 *
 * cloud-hypervisor counts queues, not pairs: num_queues=2N (omitted for N=1,
 * its default).
 *
 * Return: 0 on success, -ENOSPC if @a is too small
 */
int plan_ch_args(const struct plan_vm *vm, const struct plan_policy_in *in,
		 const struct plan_policy_out *pol, struct plan_args *a)
{
	char mac[64] = "", nq[32] = "";
	int ret;

	memset(a, 0, sizeof(*a));
	if (vm->mac)
		snprintf(mac, sizeof(mac), ",mac=%s", vm->mac);
	if (vm->mtu)
		snprintf(mac + strlen(mac), sizeof(mac) - strlen(mac), ",mtu=%u", vm->mtu);
	if (pol->pairs > 1)
		snprintf(nq, sizeof(nq), ",num_queues=%u", 2 * pol->pairs);
	ret = plan_arg_add(a, "--cpus") ?:
	      plan_arg_add(a, "boot=%u", in->vcpus) ?:
	      plan_arg_add(a, "--memory");
	if (ret)
		return ret;
	if (vm->backend == PLAN_BACKEND_VHOST_USER)
		return plan_arg_add(a, "size=%s,shared=on", vm->memory) ?:
		       plan_arg_add(a, "--net") ?:
		       plan_arg_add(a, "vhost_user=true,socket=%s%s%s",
				    vm->socket, nq, mac);
	return plan_arg_add(a, "size=%s", vm->memory) ?:
	       plan_arg_add(a, "--net") ?:
	       plan_arg_add(a, "tap=%s%s%s", vm->tap, nq, mac);
}

/**
 * plan_vnetd_args() - The vnetd command line serving this VM's NIC
 * @vm:		VM description, checked by plan_check_vm()
 * @pol:	Policy decision
 * @a:		Argument vector (output)
 *
 * A TAP host side as flags; af_xdp (@vm->xdp_if) as the port group vnetd
 * takes for one port among others (--port KEY=VAL,...).
 *
 * Return: 0 on success, -ENOENT for --backend tap (no vnetd involved),
 *	   -ENOSPC if @a is too small
 */
int plan_vnetd_args(const struct plan_vm *vm, const struct plan_policy_out *pol,
		    struct plan_args *a)
{
	char mtu[16] = "", xq[24] = "";

	memset(a, 0, sizeof(*a));
	if (vm->backend != PLAN_BACKEND_VHOST_USER)
		return -ENOENT;
	if (vm->xdp_if) {
		if (vm->mtu)
			snprintf(mtu, sizeof(mtu), ",mtu=%u", vm->mtu);
		if (vm->xdp_queue)
			snprintf(xq, sizeof(xq), ",xdp-queue=%u", vm->xdp_queue);
		return plan_arg_add(a, "vnetd") ?: plan_arg_add(a, "--port") ?:
		       plan_arg_add(a, "name=%s,socket=%s,backend=af_xdp,xdp-if=%s%s,queues=%u%s",
				    vm->id, vm->socket, vm->xdp_if, xq, pol->pairs, mtu);
	}
	return plan_arg_add(a, "vnetd") ?:
	       plan_arg_add(a, "--socket") ?: plan_arg_add(a, "%s", vm->socket) ?:
	       plan_arg_add(a, "--backend") ?: plan_arg_add(a, "tap") ?:
	       plan_arg_add(a, "--tap") ?: plan_arg_add(a, "%s", vm->tap) ?:
	       plan_arg_add(a, "--queues") ?: plan_arg_add(a, "%u", pol->pairs) ?:
	       (vm->mtu ? plan_arg_add(a, "--mtu") ?: plan_arg_add(a, "%u", vm->mtu) : 0) ?:
	       (vm->no_tx_offloads ? plan_arg_add(a, "--features") ?:
				     plan_arg_add(a, "%s", PLAN_NO_TX_OFFLOADS) : 0);
}

struct plan_sb {
	char *buf;
	size_t len;
	size_t used;
	int err;
};

static void plan_sb_add(struct plan_sb *sb, const char *fmt, ...)
	PRINTF_FMT(2, 3);

static void plan_sb_add(struct plan_sb *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sb->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->used, sb->len - sb->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sb->len - sb->used)
		sb->err = -ENOSPC;
	else
		sb->used += (size_t)n;
}

/* XML attribute value: escape the five special characters */
static void plan_sb_xml(struct plan_sb *sb, const char *s)
{
	for (; *s && !sb->err; s++) {
		switch (*s) {
		case '&':  plan_sb_add(sb, "&amp;"); break;
		case '<':  plan_sb_add(sb, "&lt;"); break;
		case '>':  plan_sb_add(sb, "&gt;"); break;
		case '\'': plan_sb_add(sb, "&apos;"); break;
		case '"':  plan_sb_add(sb, "&quot;"); break;
		default:   plan_sb_add(sb, "%c", *s); break;
		}
	}
}

static void plan_sb_xml_attr(struct plan_sb *sb, const char *pre,
			     const char *val, const char *post)
{
	plan_sb_add(sb, "%s", pre);
	plan_sb_xml(sb, val);
	plan_sb_add(sb, "%s", post);
}

/* The operator's part of a libvirt setup, as XML comments before the root */
static void plan_libvirt_notes(const struct plan_vm *vm, struct plan_sb *sb)
{
	if (vm->backend != PLAN_BACKEND_VHOST_USER) {
		plan_sb_xml_attr(sb, "<!-- a TAP made beforehand (vnetctl tap create ", vm->tap,
				 vm->bridge ? " with its bridge): libvirt opens it, never creates,"
					      " deletes or bridges it (managed='no') -->\n" :
					      "): libvirt opens it, never creates or deletes it"
					      " (managed='no') -->\n");
		return;
	}
	plan_sb_add(sb, "<!-- qemu:///system runs QEMU as libvirt-qemu (group kvm): vnetd's socket"
		    " must let it connect (vnetd's default: group kvm, mode 0660) -->\n"
		    "<!-- the domain needs shared guest memory, once per VM:"
		    " vnetctl plan with output libvirt-memory -->\n");
	if (vm->qemu_major < 10)
		plan_sb_add(sb, "<!-- QEMU %u.%u under TCG only (no KVM): vhost-user with MSI-X crashes it;"
			    " give the device vectors=0 with <qemu:override> (see docs/vnetctl.md) -->\n",
			    vm->qemu_major, vm->qemu_minor);
}

/**
 * plan_libvirt_xml() - libvirt <interface> XML for the VM's NIC
 * @vm:		VM description, checked by plan_check_vm()
 * @pol:	Policy decision
 * @buf:	Output, NUL-terminated: one XML document (comments, then the
 *		<interface> element), fit for virsh attach-device
 * @len:	Size of @buf
 *
 * vhost-user: <interface type='vhostuser'> whose <source> reconnects after
 * 1 s, like the QEMU plan's chardev. TAP: type='ethernet' with <target
 * managed='no'>, the only way libvirt takes a TAP made beforehand. <driver
 * queues='N'/> only for N > 1. The domain-wide part (shared memory) is
 * plan_libvirt_memory_xml()'s, so a VM with two NICs gets it once.
 *
 * Return: 0 on success, -ENOSPC if @buf is too small
 */
int plan_libvirt_xml(const struct plan_vm *vm, const struct plan_policy_out *pol,
		     char *buf, size_t len)
{
	struct plan_sb sb = { .buf = buf, .len = len };
	bool vu = vm->backend == PLAN_BACKEND_VHOST_USER;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	plan_libvirt_notes(vm, &sb);
	plan_sb_add(&sb, "<interface type='%s'>\n", vu ? "vhostuser" : "ethernet");
	if (vm->mac)
		plan_sb_xml_attr(&sb, "  <mac address='", vm->mac, "'/>\n");
	if (vu) {
		plan_sb_xml_attr(&sb, "  <source type='unix' path='", vm->socket,
				 "' mode='client'>\n");
		plan_sb_add(&sb, "    <reconnect enabled='yes' timeout='1'/>\n"
			    "  </source>\n");
	} else {
		plan_sb_xml_attr(&sb, "  <target dev='", vm->tap,
				 "' managed='no'/>\n");
	}
	plan_sb_add(&sb, "  <model type='virtio'/>\n");
	if (vm->mtu)
		plan_sb_add(&sb, "  <mtu size='%u'/>\n", vm->mtu);
	if (vu && pol->pairs > 1)
		plan_sb_add(&sb, "  <driver queues='%u'/>\n", pol->pairs);
	else if (!vu && pol->pairs > 1)
		plan_sb_add(&sb, "  <driver name='%s' queues='%u'/>\n",
			    pol->vhost ? "vhost" : "qemu", pol->pairs);
	else if (!vu)
		plan_sb_add(&sb, "  <driver name='%s'/>\n",
			    pol->vhost ? "vhost" : "qemu");
	plan_sb_add(&sb, "</interface>\n");
	return sb.err;
}

/**
 * plan_libvirt_memory_xml() - The <memoryBacking> a vhost-user VM needs
 * @vm:		VM description, checked by plan_check_vm()
 * @buf:	Output, NUL-terminated: one XML document for the <domain>, or
 *		"" for a TAP NIC (QEMU's own memory will do)
 * @len:	Size of @buf
 *
 * Once per VM, whatever the number of NICs: vnetd maps guest RAM, so it
 * must be a shared memfd.
 *
 * Return: 0 on success, -ENOSPC if @buf is too small
 */
int plan_libvirt_memory_xml(const struct plan_vm *vm, char *buf, size_t len)
{
	struct plan_sb sb = { .buf = buf, .len = len };

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	if (vm->backend != PLAN_BACKEND_VHOST_USER)
		return 0;
	plan_sb_add(&sb, "<!-- in <domain>, once per VM: vhost-user needs shared guest memory -->\n"
		    "<memoryBacking>\n  <source type='memfd'/>\n"
		    "  <access mode='shared'/>\n</memoryBacking>\n");
	return sb.err;
}

/**
 * plan_guest_hint() - What to run in a guest that does not use all channels
 * @pol:	Policy decision
 * @buf:	Output, NUL-terminated; empty for a single queue pair
 * @len:	Size of @buf
 *
 * Return: 0 on success, -ENOSPC if @buf is too small
 */
int plan_guest_hint(const struct plan_policy_out *pol, char *buf, size_t len)
{
	int n;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	if (pol->pairs <= 1)
		return 0;
	n = snprintf(buf, len, "ethtool -L eth0 combined %u", pol->pairs);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

static bool plan_shell_safe(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_-./:=,@%+", *s))
			return false;
	return true;
}

/**
 * plan_shell_join() - Join an argument vector into one shell-quoted string
 * @a:		Arguments
 * @sep:	Separator between arguments, e.g. " "; NULL puts each option
 *		(an argument starting with '-') on a new continued line
 * @buf:	Output, NUL-terminated
 * @len:	Size of @buf
 *
 * Arguments with characters outside a safe set are single-quoted, so the
 * result can be pasted into a shell or given to `eval set --`.
 *
 * Return: 0 on success, -ENOSPC if @buf is too small
 */
int plan_shell_join(const struct plan_args *a, const char *sep, char *buf,
		    size_t len)
{
	struct plan_sb sb = { .buf = buf, .len = len };
	const char *p;
	int i;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (i = 0; i < a->argc; i++) {
		if (i && sep)
			plan_sb_add(&sb, "%s", sep);
		else if (i)	/* one option and its value per line */
			plan_sb_add(&sb, "%s",
				    a->argv[i][0] == '-' ? " \\\n  " : " ");
		if (plan_shell_safe(a->argv[i])) {
			plan_sb_add(&sb, "%s", a->argv[i]);
			continue;
		}
		plan_sb_add(&sb, "'");
		for (p = a->argv[i]; *p; p++)
			plan_sb_add(&sb, *p == '\'' ? "'\\''" : "%c", *p);
		plan_sb_add(&sb, "'");
	}
	return sb.err;
}

/**
 * plan_json_string() - A JSON string literal, quotes included
 * @s:		UTF-8 text
 * @buf:	Output, NUL-terminated
 * @len:	Size of @buf
 *
 * Return: 0 on success, -ENOSPC if @buf is too small
 */
int plan_json_string(const char *s, char *buf, size_t len)
{
	struct plan_sb sb = { .buf = buf, .len = len };

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	plan_sb_add(&sb, "\"");
	for (; *s && !sb.err; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			plan_sb_add(&sb, "\\%c", c);
		else if (c == '\n')
			plan_sb_add(&sb, "\\n");
		else if (c < 0x20)
			plan_sb_add(&sb, "\\u%04x", c);
		else
			plan_sb_add(&sb, "%c", c);
	}
	plan_sb_add(&sb, "\"");
	return sb.err;
}
