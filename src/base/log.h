/* SPDX-License-Identifier: MIT */
/*
 * log.h - one place that writes log lines. Helpers never log: the caller
 * that decides logs once. Never called on the per-packet path; rate-limit
 * guest-triggered lines with log_ratelimit().
 *
 * Where lines go (log_init()): stderr with an ISO-8601 timestamp, stderr in
 * the journal's format ("<N>" syslog priority prefix, no timestamp: the
 * journal stamps lines itself), or syslog (a datagram to /dev/log).
 */
#ifndef VNET_LOG_H
#define VNET_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum log_level { LOG_ERR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* --log-target: LOG_TARGET_AUTO picks journal if stderr is the journal */
enum log_target {
	LOG_TARGET_AUTO = 0,
	LOG_TARGET_STDERR,
	LOG_TARGET_JOURNAL,
	LOG_TARGET_SYSLOG,
};

extern enum log_level log_max_level;

void vlog(enum log_level lvl, const char *fmt, ...) PRINTF_FMT(2, 3);
int log_target_parse(const char *s, enum log_target *t);
enum log_target log_init(enum log_target t, const char *ident);
bool log_stderr_is_journal(void);
size_t log_format_time(char *buf, size_t len, int64_t sec, long nsec);

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
