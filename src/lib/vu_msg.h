/* SPDX-License-Identifier: MIT */
/*
 * vu_msg.h - vhost-user framing: one message with its fds in, one out.
 */
#ifndef VNET_VU_MSG_H
#define VNET_VU_MSG_H

#include "vu_proto.h"

int vu_msg_recv(int sock, struct vu_msg *m);
int vu_msg_send(int sock, const struct vu_msg *m);
void vu_msg_close_fds(struct vu_msg *m);
int vu_msg_take_fd(struct vu_msg *m, unsigned int i);
const char *vu_request_name(uint32_t request);

#endif /* VNET_VU_MSG_H */
