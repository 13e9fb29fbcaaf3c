/* SPDX-License-Identifier: MIT */
/*
 * vu_msg.h - vhost-user framing: one message with its fds in, one out;
 * blocking (vu_msg_*) or buffered per connection (vu_conn_*) for an event
 * loop that must never wait on one peer.
 */
#ifndef VNET_VU_MSG_H
#define VNET_VU_MSG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vu_proto.h"

/*
 * One reply's worth: what the socket did not take of the one reply that may
 * wait. The caller reads no request while it waits (vnetd's port.c), so a
 * peer that never reads holds vnetd to this much, whatever it sends.
 */
#define VU_CONN_TXQ_MAX		(sizeof(struct vu_hdr) + sizeof(union vu_payload))

/**
 * struct vu_conn - One peer's half-received message and unsent replies
 * @sock:	Connected UNIX stream socket, -1: none (not owned)
 * @rx:		Message being assembled; its fds are owned here until done
 * @rx_got:	Bytes of @rx (header, then payload) received so far
 * @rx_start_ms: CLOCK_MONOTONIC ms of @rx's first byte, 0: none pending
 * @tx_head:	First unsent byte in @txq
 * @tx_len:	End of the unsent bytes in @txq
 * @txq:	Bytes of the one reply the socket did not take yet (never fds)
 */
struct vu_conn {
	int sock;
	struct vu_msg rx;
	size_t rx_got;
	uint64_t rx_start_ms;
	size_t tx_head;
	size_t tx_len;
	uint8_t txq[VU_CONN_TXQ_MAX];
};

void vu_conn_init(struct vu_conn *c, int sock);
void vu_conn_reset(struct vu_conn *c);
int vu_conn_recv(struct vu_conn *c, struct vu_msg *m);
int vu_conn_send(struct vu_conn *c, const struct vu_msg *m);
int vu_conn_flush(struct vu_conn *c);
size_t vu_conn_tx_pending(const struct vu_conn *c);
uint64_t vu_conn_now_ms(void);

int vu_msg_recv(int sock, struct vu_msg *m);
int vu_msg_send(int sock, const struct vu_msg *m);
void vu_msg_close_fds(struct vu_msg *m);
int vu_msg_take_fd(struct vu_msg *m, unsigned int i);
const char *vu_request_name(uint32_t request);

#endif /* VNET_VU_MSG_H */
