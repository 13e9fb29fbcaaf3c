// SPDX-License-Identifier: MIT
/*
 * log.c - log lines, one write per line so lines from several threads do
 * not interleave. Three formats:
 *
 *	stderr	"2026-12-01T10:20:31.123+00:00 info: message" (local time)
 *	journal	"<6>message": sd-daemon(3) priority prefix, no timestamp
 *	syslog	"<30>vnetd[PID]: message" datagram to /dev/log (RFC 3164 as
 *		glibc's syslog() sends it, facility daemon)
 *
 * The syslog protocol is written here rather than with <syslog.h>, whose
 * LOG_ERR/LOG_INFO/LOG_DEBUG macros collide with enum log_level, and so
 * the socket is opened once by log_init() (before any privilege drop or
 * sandbox) and never reconnected.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

/* #syscalls: write writev clock_gettime
 * #syscalls: socket connect sendto close (--log-target syslog) */

enum log_level log_max_level = LOG_INFO;

static enum log_target log_target = LOG_TARGET_STDERR;
static int log_syslog_fd = -1;
static char log_ident[32] = "vnet";

static const char *const level_names[] = { "error", "warn", "info", "debug" };
/* syslog severities (RFC 5424 6.2.1): err, warning, info, debug */
static const int level_prio[] = { 3, 4, 6, 7 };
#define LOG_FAC_DAEMON	3

static const char *const target_names[] = {
	[LOG_TARGET_AUTO] = "auto", [LOG_TARGET_STDERR] = "stderr",
	[LOG_TARGET_JOURNAL] = "journal", [LOG_TARGET_SYSLOG] = "syslog",
};

/**
 * log_target_parse() - Parse a --log-target value
 * @s:		"auto", "stderr", "journal" or "syslog"
 * @t:		Target (output)
 *
 * Return: 0, or -EINVAL if @s is none of those
 */
int log_target_parse(const char *s, enum log_target *t)
{
	int i = name_lookup(target_names, ARRAY_SIZE(target_names), s);

	if (i < 0)
		return i;
	*t = (enum log_target)i;
	return 0;
}

/**
 * log_stderr_is_journal() - Is stderr connected to the systemd journal?
 *
 * systemd sets JOURNAL_STREAM=DEV:INODE for the stream it connects to
 * stdout/stderr (systemd.exec(5)); it only counts if stderr is still that
 * file, not something a child redirected it to.
 *
 * Return: true if stderr is the journal stream
 */
bool log_stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char tail;

	if (!js || sscanf(js, "%llu:%llu%c", &dev, &ino, &tail) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st))
		return false;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

static int log_syslog_open(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX,
				  .sun_path = "/dev/log" };
	int fd;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

/**
 * log_init() - Choose where log lines go
 * @t:		Requested target; LOG_TARGET_AUTO: journal if stderr is the
 *		journal stream, stderr otherwise
 * @ident:	Program name for syslog lines
 *
 * Falls back to stderr (with a line saying why) if /dev/log cannot be
 * reached. Call before threads start.
 *
 * Return: the target in use
 */
enum log_target log_init(enum log_target t, const char *ident)
{
	int fd;

	snprintf(log_ident, sizeof(log_ident), "%s", ident);
	if (t == LOG_TARGET_AUTO)
		t = log_stderr_is_journal() ? LOG_TARGET_JOURNAL :
					      LOG_TARGET_STDERR;
	if (t == LOG_TARGET_SYSLOG) {
		fd = log_syslog_open();
		if (fd < 0) {
			log_target = LOG_TARGET_STDERR;
			log_warn("--log-target syslog: /dev/log: %s; logging to stderr",
				 strerror(-fd));
			return log_target;
		}
		log_syslog_fd = fd;
	}
	log_target = t;
	return t;
}

/**
 * log_format_time() - ISO-8601 local time with milliseconds and UTC offset
 * @buf:	Output, e.g. "2026-12-01T10:20:31.123+00:00"
 * @len:	Size of @buf (30 bytes are enough)
 * @sec:	Seconds since the epoch
 * @nsec:	Nanoseconds
 *
 * Return: length written, 0 if it did not fit
 */
size_t log_format_time(char *buf, size_t len, int64_t sec, long nsec)
{
	time_t t = (time_t)sec;
	char off[8];
	size_t n;
	struct tm tm;

	if (!localtime_r(&t, &tm))
		return 0;
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!n || !strftime(off, sizeof(off), "%z", &tm) || strlen(off) != 5)
		return 0;
	/* strftime's %z is +hhmm; ISO-8601 extended format wants +hh:mm */
	if ((size_t)snprintf(buf + n, len - n, ".%03ld%.3s:%s",
			     nsec / 1000000, off, off + 3) >= len - n)
		return 0;
	return strlen(buf);
}

/* The line's prefix for the current target */
static int log_prefix(char *line, size_t len, enum log_level lvl)
{
	struct timespec ts;
	char when[40];

	switch (log_target) {
	case LOG_TARGET_JOURNAL:
		return snprintf(line, len, "<%d>", level_prio[lvl]);
	case LOG_TARGET_SYSLOG:
		return snprintf(line, len, "<%d>%s[%ld]: ",
				LOG_FAC_DAEMON * 8 + level_prio[lvl], log_ident,
				(long)getpid());
	default:
		clock_gettime(CLOCK_REALTIME, &ts);
		if (!log_format_time(when, sizeof(when), ts.tv_sec, ts.tv_nsec))
			snprintf(when, sizeof(when), "%lld",
				 (long long)ts.tv_sec);
		return snprintf(line, len, "%s %s: ", when, level_names[lvl]);
	}
}

/**
 * vlog() - Write one log line if @lvl is enabled
 * @lvl:	Severity
 * @fmt:	printf format, no trailing newline
 */
void vlog(enum log_level lvl, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n, m;

	if (lvl > log_max_level)
		return;
	n = log_prefix(line, sizeof(line), lvl);
	if (n < 0 || (size_t)n >= sizeof(line) / 2)
		n = 0;
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	n += m;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	if (log_target == LOG_TARGET_SYSLOG && log_syslog_fd >= 0 &&
	    send(log_syslog_fd, line, (size_t)n, MSG_NOSIGNAL) == n)
		return;
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
