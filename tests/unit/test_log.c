// SPDX-License-Identifier: MIT
/*
 * test_log.c - log.c's formats: ISO-8601 local time with milliseconds and
 * the +hh:mm offset, --log-target names, and JOURNAL_STREAM detection
 * (stderr pointed at a file whose dev:ino is, or is not, the variable's).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "testlib.h"

static void test_time_utc(void)
{
	char buf[40];

	setenv("TZ", "UTC", 1);
	tzset();
	/* 2026-12-01T10:20:31Z = 1796120431 */
	CHECK(log_format_time(buf, sizeof(buf), 1796120431, 123456789) > 0);
	CHECK(!strcmp(buf, "2026-12-01T10:20:31.123+00:00"));
}

static void test_time_offset(void)
{
	char buf[40];

	setenv("TZ", "<IST>-5:30", 1);	/* POSIX TZ: no tzdata needed */
	tzset();
	CHECK(log_format_time(buf, sizeof(buf), 1796120431, 5000000) > 0);
	CHECK(!strcmp(buf, "2026-12-01T15:50:31.005+05:30"));
	setenv("TZ", "<ABC>3", 1);	/* west of UTC: negative offset */
	tzset();
	CHECK(log_format_time(buf, sizeof(buf), 1796120431, 999999999) > 0);
	CHECK(!strcmp(buf, "2026-12-01T07:20:31.999-03:00"));
	CHECK_EQ(log_format_time(buf, 10, 1796120431, 0), 0);	/* too small */
}

static void test_target_parse(void)
{
	enum log_target t = LOG_TARGET_STDERR;

	CHECK(!log_target_parse("auto", &t) && t == LOG_TARGET_AUTO);
	CHECK(!log_target_parse("journal", &t) && t == LOG_TARGET_JOURNAL);
	CHECK(!log_target_parse("syslog", &t) && t == LOG_TARGET_SYSLOG);
	CHECK(!log_target_parse("stderr", &t) && t == LOG_TARGET_STDERR);
	CHECK(log_target_parse("Journal", &t) < 0);
	CHECK(log_target_parse("", &t) < 0);
	CHECK(t == LOG_TARGET_STDERR);		/* a miss leaves the output alone */
}

/* The table lookup behind log_target_parse() and tap_io_parse() */
static void test_name_lookup(void)
{
	static const char *const names[] = { [0] = "zero", [2] = "two" };

	CHECK_EQ(name_lookup(names, ARRAY_SIZE(names), "zero"), 0);
	CHECK_EQ(name_lookup(names, ARRAY_SIZE(names), "two"), 2);
	CHECK_EQ(name_lookup(names, ARRAY_SIZE(names), "tw"), -EINVAL);
	CHECK_EQ(name_lookup(names, ARRAY_SIZE(names), "twoo"), -EINVAL);
	CHECK_EQ(name_lookup(names, 2, "two"), -EINVAL);	/* past @n */
	CHECK_EQ(name_lookup(names, ARRAY_SIZE(names), ""), -EINVAL);
}

static void test_journal_stream(void)
{
	char path[] = "/tmp/test_log.XXXXXX", js[64];
	int fd, saved = dup(STDERR_FILENO);
	struct stat st;

	fd = mkstemp(path);
	CHECK(fd >= 0 && saved >= 0);
	if (fd < 0 || saved < 0)
		return;
	CHECK(!fstat(fd, &st));
	dup2(fd, STDERR_FILENO);
	snprintf(js, sizeof(js), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", js, 1);
	CHECK(log_stderr_is_journal());
	snprintf(js, sizeof(js), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + 1);
	setenv("JOURNAL_STREAM", js, 1);
	CHECK(!log_stderr_is_journal());
	setenv("JOURNAL_STREAM", "garbage", 1);
	CHECK(!log_stderr_is_journal());
	unsetenv("JOURNAL_STREAM");
	CHECK(!log_stderr_is_journal());
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(fd);
	unlink(path);
}

int main(void)
{
	RUN(test_time_utc);
	RUN(test_time_offset);
	RUN(test_target_parse);
	RUN(test_name_lookup);
	RUN(test_journal_stream);
	return test_exit();
}
