// SPDX-License-Identifier: MIT
/*
 * vhost_mode_testutil.c - stand-ins for /dev/vhost-net in a private
 * temporary directory, and the `on` decision as uid 65534
 * (vhost_mode_testutil.h), built once into build/libvnet-test.a.
 */
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"
#include "vhost_mode_testutil.h"

char test_tmpdir[64];

/**
 * test_tmpdir_make() - Make a private directory for the device stand-ins
 *
 * On failure test_tmpdir is "" (the caller says so and stops).
 */
void test_tmpdir_make(void)
{
	snprintf(test_tmpdir, sizeof(test_tmpdir), "/tmp/vnet-vhost-mode.XXXXXX");
	if (!mkdtemp(test_tmpdir))
		test_tmpdir[0] = '\0';
}

/**
 * test_tmpdir_file() - Create @name in test_tmpdir with @mode and content
 * @name:	File name
 * @mode:	Its mode
 * @path:	Its path, written
 * @len:	Room at @path
 *
 * Return: @path, or NULL when it cannot be made
 */
const char *test_tmpdir_file(const char *name, mode_t mode, char *path,
			     size_t len)
{
	int fd;

	snprintf(path, len, "%s/%s", test_tmpdir, name);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (fd < 0)
		return NULL;
	if (write(fd, "64\n", 3) != 3 || fchmod(fd, mode)) {
		close(fd);
		return NULL;
	}
	close(fd);
	return path;
}

/**
 * test_decide_as_nobody() - The `on` decision for @path taken as uid 65534
 * @path:	Device path
 * @d:		The decision, as the child saw it
 * @ret:	What vhost_mode_decide() returned there
 *
 * A child drops to 65534:65534 (root needed) and sends both back through a
 * pipe.
 *
 * Return: 0, or -1 when the child could not drop or answer
 */
int test_decide_as_nobody(const char *path, struct vhost_decision *d,
			  int *ret)
{
	int pfd[2], status;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(pfd[0]);
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(2);
		*ret = vhost_mode_decide(d, VHOST_MODE_ON, path, NULL);
		if (write(pfd[1], ret, sizeof(*ret)) != sizeof(*ret) ||
		    write(pfd[1], d, sizeof(*d)) != sizeof(*d))
			_exit(3);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], ret, sizeof(*ret)) != sizeof(*ret) ||
	    read(pfd[0], d, sizeof(*d)) != sizeof(*d)) {
		close(pfd[0]);
		waitpid(pid, &status, 0);
		return -1;
	}
	close(pfd[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/**
 * test_tmpdir_remove() - Remove the stand-ins and test_tmpdir
 */
void test_tmpdir_remove(void)
{
	static const char *const names[] = { "notadev", "noperm", "maxreg",
					     "plain", "kvmdev" };
	char path[128];
	size_t i;

	if (!test_tmpdir[0])
		return;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", test_tmpdir, names[i]);
		unlink(path);
	}
	rmdir(test_tmpdir);
}
