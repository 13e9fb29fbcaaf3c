/* SPDX-License-Identifier: MIT */
/*
 * ctl_path.h - where vnetd's control socket lives by default, shared by the
 * daemon (which listens there) and vnetctl (which asks there).
 */
#ifndef VNET_CTL_PATH_H
#define VNET_CTL_PATH_H

const char *ctl_default_path(void);

#endif /* VNET_CTL_PATH_H */
