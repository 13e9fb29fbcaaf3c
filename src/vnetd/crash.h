/* SPDX-License-Identifier: MIT */
#ifndef VNETD_CRASH_H
#define VNETD_CRASH_H

void crash_report_init(void);

#endif /* VNETD_CRASH_H */
