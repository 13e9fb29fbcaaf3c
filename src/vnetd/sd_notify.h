/* SPDX-License-Identifier: MIT */
/*
 * sd_notify.h - systemd notification (sd_notify.c)
 */
#ifndef VNETD_SD_NOTIFY_H
#define VNETD_SD_NOTIFY_H

int sd_notify_init(void);
int sd_notify_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* VNETD_SD_NOTIFY_H */
