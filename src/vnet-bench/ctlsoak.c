// SPDX-License-Identifier: MIT
/*
 * ctlsoak.c - `vnet-bench --ctl-soak N`: while the workers carry traffic,
 * the main thread sends each VM's backend N rounds of what a VMM sends to
 * a running device: memory hotplug (ADD_MEM_REG then REM_MEM_REG of a
 * 2 MiB region the rings do not use), the start and end of dirty logging
 * (SET_LOG_BASE, SET_FEATURES with and without VHOST_F_LOG_ALL), and one
 * TX ring switched off and on (SET_VRING_ENABLE); --ctl-soak-ops picks a
 * subset. The window ends when the rounds are done. With --check-seq every
 * frame must still come back once and in order; that holds for mem and log
 * only: a started but disabled TX ring is drained and its frames discarded
 * (vhost-user "Ring states"), so rounds with enable lose frames by design
 * and are checked for duplicates and reordering only.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "bench.h"

#define SOAK_REGION	(2u << 20)

static int soak_fail(struct bench_vm *vm, const char *what)
{
	fprintf(stderr, "vnet-bench: vm %u: ctl-soak round %u: %s: %s\n",
		vm->id, vm->soak.done + 1, what, vu_frontend_error(&vm->fe));
	vm->soak.err = -EIO;
	return -EIO;
}

/* The extra region and the log, once per VM */
static int soak_setup(struct bench_vm *vm)
{
	struct bench_soak *s = &vm->soak;
	uint64_t end = vu_frontend_mem_end(&vm->fe);

	s->reg.fd = memfd_create("vnet-bench-hotplug", MFD_CLOEXEC);
	s->log_fd = memfd_create("vnet-bench-log", MFD_CLOEXEC);
	s->log_size = vu_frontend_log_size(&vm->fe);
	if (s->reg.fd < 0 || s->log_fd < 0 ||
	    ftruncate(s->reg.fd, SOAK_REGION) || ftruncate(s->log_fd, (off_t)s->log_size)) {
		fprintf(stderr, "vnet-bench: vm %u: ctl-soak memfd: %s\n", vm->id,
			strerror(errno));
		return -errno;
	}
	s->host = mmap(NULL, SOAK_REGION, PROT_READ | PROT_WRITE, MAP_SHARED,
		       s->reg.fd, 0);
	if (s->host == MAP_FAILED) {
		s->host = NULL;
		return -errno;
	}
	/* Above everything the rings use, 2 MiB aligned */
	s->reg.gpa = (end + 2 * SOAK_REGION - 1) & ~((uint64_t)SOAK_REGION - 1);
	s->reg.size = SOAK_REGION;
	s->reg.offset = 0;
	s->ready = true;
	return 0;
}

/* One round on one VM */
static int soak_round(struct bench_vm *vm)
{
	struct bench_soak *s = &vm->soak;
	struct vu_frontend *f = &vm->fe;
	unsigned int ring = 2 * (s->done % vm->cfg->pairs) + 1;	/* a TX ring */

	unsigned int ops = vm->cfg->ctl_soak_ops;

	if (ops & BENCH_SOAK_MEM) {
		if (vu_frontend_mem_add(f, &s->reg, s->host))
			return soak_fail(vm, "ADD_MEM_REG");
		if (vu_frontend_mem_remove(f, &s->reg, s->host))
			return soak_fail(vm, "REM_MEM_REG");
	}
	if (ops & BENCH_SOAK_LOG) {
		if (vu_frontend_log_start(f, s->log_fd, s->log_size))
			return soak_fail(vm, "log start");
		if (vu_frontend_log_stop(f))
			return soak_fail(vm, "log stop");
	}
	if (ops & BENCH_SOAK_ENABLE) {
		if (vu_frontend_ring_enable(f, ring, false))
			return soak_fail(vm, "SET_VRING_ENABLE 0");
		if (vu_frontend_ring_enable(f, ring, true))
			return soak_fail(vm, "SET_VRING_ENABLE 1");
	}
	s->done++;
	return 0;
}

/**
 * bench_ctl_soak_step() - One round on every VM that has rounds left
 * @vms:	VMs, started, workers running
 * @nvms:	How many
 *
 * Return: 1 while rounds remain, 0 when all are done, -errno on a failure
 * (a line on stderr says which request of which round)
 */
int bench_ctl_soak_step(struct bench_vm *vms, unsigned int nvms)
{
	unsigned int v;
	bool left = false;
	int ret;

	for (v = 0; v < nvms; v++) {
		struct bench_vm *vm = &vms[v];

		if (vm->soak.done >= vm->cfg->ctl_soak)
			continue;
		if (!vm->soak.ready) {
			ret = soak_setup(vm);
			if (ret)
				return vm->soak.err = ret;
		}
		ret = soak_round(vm);
		if (ret)
			return ret;
		left |= vm->soak.done < vm->cfg->ctl_soak;
	}
	return left;
}

/**
 * bench_ctl_soak_finish() - Report the rounds, free what the soak made
 * @vms:	VMs
 * @nvms:	How many
 *
 * Return: 0 if every VM did all its rounds, else 1
 */
int bench_ctl_soak_finish(struct bench_vm *vms, unsigned int nvms)
{
	unsigned int v;
	int status = 0;

	for (v = 0; v < nvms; v++) {
		struct bench_soak *s = &vms[v].soak;

		if (s->done < vms[v].cfg->ctl_soak || s->err)
			status = 1;
		if (!vms[v].cfg->json)
			printf("ctl-soak: vm %u: %u of %u rounds of%s%s%s\n",
			       v, s->done, vms[v].cfg->ctl_soak,
			       vms[v].cfg->ctl_soak_ops & BENCH_SOAK_MEM ?
			       " ADD/REM_MEM_REG" : "",
			       vms[v].cfg->ctl_soak_ops & BENCH_SOAK_LOG ?
			       " SET_LOG_BASE+LOG_ALL on/off" : "",
			       vms[v].cfg->ctl_soak_ops & BENCH_SOAK_ENABLE ?
			       " SET_VRING_ENABLE off/on" : "");
		if (s->host)
			munmap(s->host, SOAK_REGION);
		if (s->reg.fd >= 0)
			close(s->reg.fd);
		if (s->log_fd >= 0)
			close(s->log_fd);
		*s = (struct bench_soak){ .reg.fd = -1, .log_fd = -1 };
	}
	return status;
}
