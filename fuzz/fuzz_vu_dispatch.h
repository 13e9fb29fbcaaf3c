/* SPDX-License-Identifier: MIT */
/*
 * fuzz_vu_dispatch.h - what the dispatch harness (fuzz_vu_dispatch.c)
 * shows its corpus test: the device every input is dispatched to
 */
#ifndef VNET_FUZZ_VU_DISPATCH_H
#define VNET_FUZZ_VU_DISPATCH_H

#include "fuzz_target.h"

struct vu_dev;

struct vu_dev *fz_vu_dispatch_dev(void);

#endif /* VNET_FUZZ_VU_DISPATCH_H */
