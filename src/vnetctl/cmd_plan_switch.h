/* SPDX-License-Identifier: MIT */
/*
 * cmd_plan_switch.h - `vnetctl plan --switch NAME --vms N` output
 * (cmd_plan_switch.c), called by cmd_plan.c
 */
#ifndef VNETCTL_CMD_PLAN_SWITCH_H
#define VNETCTL_CMD_PLAN_SWITCH_H

#include "plan.h"
#include "plan_switch.h"

int plan_switch_print(const struct plan_switch *s, const struct plan_vm *vm,
		      const struct plan_policy_in *in,
		      const struct plan_policy_out *pol, const char *output);

#endif /* VNETCTL_CMD_PLAN_SWITCH_H */
