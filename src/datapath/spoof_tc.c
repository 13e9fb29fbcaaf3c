// SPDX-License-Identifier: MIT
/*
 * spoof_tc.c - anti-spoofing where frames do not cross vnetd (kernel
 * vhost-net): spoof.c's checks compiled into a classic BPF program, run by
 * a tc "bpf da" (direct action) filter on the TAP's ingress, which is the
 * guest's TX. The program returns TC_ACT_SHOT (drop) or TC_ACT_OK. It is
 * installed by running tc(8) once per port, before the sandbox (it needs
 * CAP_NET_ADMIN and exec); nothing here runs per packet.
 *
 * Why cBPF and not flower/u32 rules: one filter holds the whole policy in
 * spoof.c's order (MAC, then ARP/IPv4/IPv6 sources) with explicit length
 * checks, and it needs only cls_bpf (no flower, matchall or gact module;
 * Debian's cloud kernels lack those). At tc ingress the kernel has already
 * taken one VLAN tag off (skb_vlan_untag()), so offset 12 is the inner
 * ethertype, as spoof.c checks; a second tag is refused with --allow-ip.
 * A cBPF load past the frame's end ends the program with 0 (TC_ACT_OK),
 * so every header is length-checked before it is read.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <linux/pkt_cls.h>

#include "reason.h"
#include "spoof_tc.h"

#define T_ACCEPT	(-1)
#define T_DROP		(-2)

/* Program under construction: targets are relative, or T_ACCEPT/T_DROP */
struct spoof_asm {
	struct sock_filter *f;
	int jt[SPOOF_TC_MAX_INSNS];
	int jf[SPOOF_TC_MAX_INSNS];
	unsigned int n;
	unsigned int max;
};

static void sa_emit(struct spoof_asm *a, uint16_t code, uint32_t k, int jt,
		    int jf)
{
	if (a->n < a->max && a->n < SPOOF_TC_MAX_INSNS) {
		a->f[a->n] = (struct sock_filter){ code, 0, 0, k };
		a->jt[a->n] = jt;
		a->jf[a->n] = jf;
	}
	a->n++;
}

#define LD_W(a, off)	sa_emit(a, BPF_LD | BPF_W | BPF_ABS, off, 0, 0)
#define LD_H(a, off)	sa_emit(a, BPF_LD | BPF_H | BPF_ABS, off, 0, 0)
#define LD_B(a, off)	sa_emit(a, BPF_LD | BPF_B | BPF_ABS, off, 0, 0)
#define LD_LEN(a)	sa_emit(a, BPF_LD | BPF_W | BPF_LEN, 0, 0, 0)
#define AND(a, k)	sa_emit(a, BPF_ALU | BPF_AND | BPF_K, k, 0, 0)
#define JEQ(a, k, t, f)	sa_emit(a, BPF_JMP | BPF_JEQ | BPF_K, k, t, f)
#define JGE(a, k, t, f)	sa_emit(a, BPF_JMP | BPF_JGE | BPF_K, k, t, f)
#define JA(a, t)	sa_emit(a, BPF_JMP | BPF_JA, 0, t, t)

static uint32_t sa_be32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

/* A (frame) is at least @len bytes, else drop */
static void sa_need(struct spoof_asm *a, uint32_t len)
{
	LD_LEN(a);
	JGE(a, len, 0, T_DROP);
}

/* The MAC at @off is the port's, else drop */
static void sa_mac(struct spoof_asm *a, const uint8_t mac[6], uint32_t off)
{
	LD_W(a, off);
	JEQ(a, sa_be32(mac), 0, T_DROP);
	LD_H(a, off + 4);
	JEQ(a, (uint32_t)(mac[4] << 8 | mac[5]), 0, T_DROP);
}

/* The IPv4 address at @off is allowed (spoof.c's rules), else drop */
static void sa_v4(struct spoof_asm *a, const struct spoof_policy *p,
		  uint32_t off)
{
	unsigned int i;

	LD_W(a, off);
	JEQ(a, 0, T_ACCEPT, 0);
	for (i = 0; i < p->n4; i++) {
		LD_W(a, off);
		AND(a, p->v4[i].mask);
		JEQ(a, p->v4[i].addr, T_ACCEPT, 0);
	}
	JA(a, T_DROP);
}

/* One IPv6 prefix: all its words match -> accept, else the next block */
static void sa_v6_prefix(struct spoof_asm *a, const uint8_t *addr,
			 unsigned int len, uint32_t off)
{
	unsigned int w, nw = (len + 31) / 32, size = 1, bits;
	uint32_t mask;

	for (w = 0; w < nw; w++)
		size += len - w * 32 >= 32 ? 2 : 3;
	for (w = 0; w < nw; w++) {
		bits = len - w * 32 >= 32 ? 32 : len - w * 32;
		mask = bits == 32 ? ~0u : ~0u << (32 - bits);
		LD_W(a, off + 4 * w);
		if (bits < 32)
			AND(a, mask);
		size -= bits < 32 ? 3 : 2;
		/* jf: past this block's remaining instructions */
		JEQ(a, sa_be32(addr + 4 * w) & mask, 0, (int)size);
	}
	JA(a, T_ACCEPT);
}

static void sa_v6(struct spoof_asm *a, const struct spoof_policy *p,
		  uint32_t off)
{
	static const uint8_t any[16];
	unsigned int i;

	sa_v6_prefix(a, any, 128, off);
	for (i = 0; i < p->n6; i++)
		sa_v6_prefix(a, p->v6[i].addr, p->v6[i].len, off);
	JA(a, T_DROP);
}

/* Resolve T_ACCEPT/T_DROP to the two returns at the end */
static int sa_link(struct spoof_asm *a)
{
	unsigned int i, acc = a->n, drop = a->n + 1;
	int t[2];

	sa_emit(a, BPF_RET | BPF_K, TC_ACT_OK, 0, 0);
	sa_emit(a, BPF_RET | BPF_K, TC_ACT_SHOT, 0, 0);
	if (a->n > a->max || a->n > SPOOF_TC_MAX_INSNS)
		return -E2BIG;
	for (i = 0; i < acc; i++) {
		t[0] = a->jt[i];
		t[1] = a->jf[i];
		for (int k = 0; k < 2; k++) {
			long rel = t[k] == T_ACCEPT ? (long)acc - i - 1 :
				   t[k] == T_DROP ? (long)drop - i - 1 : t[k];

			if (rel < 0 || rel > 255)
				return -E2BIG;
			if (BPF_OP(a->f[i].code) == BPF_JA &&
			    BPF_CLASS(a->f[i].code) == BPF_JMP)
				a->f[i].k = (uint32_t)rel;
			else if (k)
				a->f[i].jf = (uint8_t)rel;
			else
				a->f[i].jt = (uint8_t)rel;
		}
	}
	return (int)a->n;
}

/**
 * spoof_tc_prog() - Compile a policy into a cBPF program for tc ingress
 * @p:		Policy, spoof_active()
 * @prog:	Output
 * @max:	Room in @prog
 *
 * Return: instructions, -E2BIG if the lists make it longer than @max or
 *	   beyond cBPF's 255-instruction jumps (fewer prefixes then)
 */
int spoof_tc_prog(const struct spoof_policy *p, struct sock_filter *prog,
		  unsigned int max)
{
	static struct spoof_asm a;	/* control thread only; large */
	unsigned int arp_at, ip4_at, ip6_at, at;

	memset(&a, 0, sizeof(a));
	a.f = prog;
	a.max = max;
	sa_need(&a, 14);
	if (p->mac_lock)
		sa_mac(&a, p->mac, 6);
	LD_H(&a, 12);
	/* jumps to the sections below, patched once their places are known */
	at = a.n;
	JEQ(&a, 0x0806, 0, 0);
	JEQ(&a, 0x8035, 0, 0);
	JEQ(&a, 0x0800, 0, 0);
	JEQ(&a, 0x86dd, 0, 0);
	JEQ(&a, 0x8100, p->ip_lock ? T_DROP : T_ACCEPT, 0);
	JEQ(&a, 0x88a8, p->ip_lock ? T_DROP : T_ACCEPT, 0);
	JA(&a, T_ACCEPT);
	arp_at = a.n;
	sa_need(&a, 14 + 28);
	LD_H(&a, 14);
	JEQ(&a, 1, 0, T_DROP);
	LD_H(&a, 16);
	JEQ(&a, 0x0800, 0, T_DROP);
	LD_H(&a, 18);
	JEQ(&a, 0x0604, 0, T_DROP);
	if (p->mac_lock)
		sa_mac(&a, p->mac, 22);
	if (p->ip_lock)
		sa_v4(&a, p, 28);
	else
		JA(&a, T_ACCEPT);
	ip4_at = a.n;
	if (p->ip_lock) {
		sa_need(&a, 14 + 20);
		LD_B(&a, 14);
		AND(&a, 0xf0);
		JEQ(&a, 0x40, 0, T_DROP);
		sa_v4(&a, p, 26);
	}
	ip6_at = a.n;
	if (p->ip_lock) {
		sa_need(&a, 14 + 40);
		LD_B(&a, 14);
		AND(&a, 0xf0);
		JEQ(&a, 0x60, 0, T_DROP);
		sa_v6(&a, p, 22);
	}
	if (a.n > SPOOF_TC_MAX_INSNS)
		return -E2BIG;
	a.jt[at] = (int)(arp_at - at - 1);
	a.jt[at + 1] = (int)(arp_at - at - 2);
	a.jt[at + 2] = p->ip_lock ? (int)(ip4_at - at - 3) : T_ACCEPT;
	a.jt[at + 3] = p->ip_lock ? (int)(ip6_at - at - 4) : T_ACCEPT;
	return sa_link(&a);
}

/**
 * spoof_tc_bytecode() - A program in tc's "bytecode" syntax
 * @prog:	Program
 * @n:		Instructions
 * @buf:	Output: "N,code jt jf k,..."
 * @len:	Size of @buf
 *
 * Return: 0, -ENOSPC if @buf is too small
 */
int spoof_tc_bytecode(const struct sock_filter *prog, unsigned int n,
		      char *buf, size_t len)
{
	size_t used;
	unsigned int i;
	int w;

	w = snprintf(buf, len, "%u,", n);
	if (w < 0 || (size_t)w >= len)
		return -ENOSPC;
	used = (size_t)w;
	for (i = 0; i < n; i++) {
		w = snprintf(buf + used, len - used, "%u %u %u %u%s",
			     prog[i].code, prog[i].jt, prog[i].jf, prog[i].k,
			     i + 1 < n ? "," : "");
		if (w < 0 || (size_t)w >= len - used)
			return -ENOSPC;
		used += (size_t)w;
	}
	return 0;
}

/* Run tc with @argv (argv[0] "tc"); its exit status, or -errno */
static int spoof_tc_run(char *const argv[])
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		execvp("tc", argv);
		execv("/usr/sbin/tc", argv);
		execv("/sbin/tc", argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/**
 * spoof_tc_install() - Put the policy on a TAP's ingress (the guest's TX)
 * @dev:	TAP name
 * @p:		Policy, spoof_active()
 * @why:	One sentence on failure (names the TAP and the fix)
 *
 * Runs "tc qdisc replace dev DEV clsact", then replaces the filter at
 * priority SPOOF_TC_PREF with "bpf da bytecode ...". Other filters on the
 * TAP stay. Needs CAP_NET_ADMIN: call before dropping privileges.
 *
 * Context: setup, before the sandbox (fork, exec)
 * Return: 0 or -errno
 */
int spoof_tc_install(const char *dev, const struct spoof_policy *p,
		     struct reason *why)
{
	static struct sock_filter prog[SPOOF_TC_MAX_INSNS];
	static char code[SPOOF_TC_MAX_INSNS * 24];
	char pref[8];
	int n, ret;

	n = spoof_tc_prog(p, prog, SPOOF_TC_MAX_INSNS);
	if (n < 0 || spoof_tc_bytecode(prog, (unsigned int)n, code,
				       sizeof(code))) {
		return reason_set(why, -E2BIG, "tap %s: anti-spoofing lists too long for the tc filter: list fewer --allow-ip prefixes",
				  dev);
	}
	snprintf(pref, sizeof(pref), "%d", SPOOF_TC_PREF);
	ret = spoof_tc_run((char *const[]){ "tc", "qdisc", "replace", "dev",
			   (char *)dev, "clsact", NULL });
	if (!ret) {
		/* absent the first time: its status does not matter */
		(void)spoof_tc_run((char *const[]){ "tc", "filter", "del",
				   "dev", (char *)dev, "ingress", "pref", pref,
				   NULL });
		ret = spoof_tc_run((char *const[]){ "tc", "filter", "add",
				   "dev", (char *)dev, "ingress", "pref", pref,
				   "bpf", "da", "bytecode", code, NULL });
	}
	if (ret)
		return reason_set(why, ret < 0 ? ret : -EIO, "tap %s: installing the anti-spoofing tc filter failed (tc exit %d): needs tc (iproute2), CAP_NET_ADMIN and cls_bpf",
				  dev, ret);
	return 0;
}
