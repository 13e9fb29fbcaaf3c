// SPDX-License-Identifier: MIT
/*
 * log.c - log lines to stderr: "vnetd[LEVEL] message". One write() per line
 * so lines from several threads do not interleave.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

/* #syscalls: write writev clock_gettime */

enum log_level log_max_level = LOG_INFO;

static const char *const level_names[] = { "error", "warn", "info", "debug" };

/**
 * vlog() - Write one log line if @lvl is enabled
 * @lvl:	Severity
 * @fmt:	printf format, no trailing newline
 */
void vlog(enum log_level lvl, const char *fmt, ...)
{
	char line[1024];
	struct timespec ts;
	va_list ap;
	int n, m;

	if (lvl > log_max_level)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	n = snprintf(line, sizeof(line), "%ld.%03ld %s: ", (long)ts.tv_sec,
		     ts.tv_nsec / 1000000, level_names[lvl]);
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	n += m;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

/**
 * log_ratelimit() - Should a rate-limited line be printed now?
 * @rl:		Limiter state (zero-initialised: 5 lines per 5 s)
 *
 * Return: true if the caller may log
 */
bool log_ratelimit(struct log_ratelimit *rl)
{
	struct timespec ts;
	uint64_t now;

	if (!rl->interval_s)
		rl->interval_s = 5;
	if (!rl->burst)
		rl->burst = 5;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec;
	if (now - rl->window_start >= rl->interval_s) {
		if (rl->suppressed)
			vlog(LOG_WARN, "%u similar lines suppressed",
			     rl->suppressed);
		rl->window_start = now;
		rl->printed = 0;
		rl->suppressed = 0;
	}
	if (rl->printed < rl->burst) {
		rl->printed++;
		return true;
	}
	rl->suppressed++;
	return false;
}
