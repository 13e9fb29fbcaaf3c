/* SPDX-License-Identifier: MIT */
/*
 * log.h - one place that writes log lines (stderr, with a level and a
 * timestamp). Helpers never log: the caller that decides logs once. Never
 * called on the per-packet path; rate-limit guest-triggered lines with
 * log_ratelimit().
 */
#ifndef VNET_LOG_H
#define VNET_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

enum log_level { LOG_ERR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG };

extern enum log_level log_max_level;

void vlog(enum log_level lvl, const char *fmt, ...) PRINTF_FMT(2, 3);

#define log_err(...)	vlog(LOG_ERR, __VA_ARGS__)
#define log_warn(...)	vlog(LOG_WARN, __VA_ARGS__)
#define log_info(...)	vlog(LOG_INFO, __VA_ARGS__)
#define log_debug(...)	vlog(LOG_DEBUG, __VA_ARGS__)

/**
 * struct log_ratelimit - At most @burst lines per @interval_s seconds
 */
struct log_ratelimit {
	unsigned int interval_s;
	unsigned int burst;
	uint64_t window_start;
	unsigned int printed;
	unsigned int suppressed;
};

bool log_ratelimit(struct log_ratelimit *rl);

#endif /* VNET_LOG_H */
