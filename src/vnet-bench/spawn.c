// SPDX-License-Identifier: MIT
/*
 * spawn.c - `vnet-bench --spawn`: start vnetd (build/vnetd next to our own
 * binary, or $VNETD) on a private socket, wait for it to listen, and stop it
 * again (SIGTERM, then SIGKILL) when the run is over. Its log goes to a temp
 * file that is kept, and named, only when something went wrong.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "bench.h"

#define SPAWN_WAIT_MS	5000

static int vnetd_path(char *buf, size_t len)
{
	char self[PATH_MAX];
	const char *env = getenv("VNETD");
	ssize_t n;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return 0;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return -errno;
	self[n] = '\0';
	snprintf(buf, len, "%s/vnetd", dirname(self));
	return access(buf, X_OK) ? -ENOENT : 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void spawn_child(const struct bench_vm *vm, const char *path)
{
	char queues[16], ctl[128];
	const char *argv[16];
	int fd, n = 0;

	/* If vnet-bench dies without stopping us (crash, SIGKILL), so do we */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	snprintf(queues, sizeof(queues), "%u", vm->cfg->pairs);
	/* Our own control socket: several spawned vnetds must not collide */
	snprintf(ctl, sizeof(ctl), "/tmp/vnet-bench-%d-%u.ctl", (int)getppid(),
		 vm->id);
	fd = open(vm->vnetd_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		  0600);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
	}
	argv[n++] = path;
	argv[n++] = "--socket";
	argv[n++] = vm->socket;
	argv[n++] = "--backend";
	argv[n++] = vm->cfg->spawn_backend;
	argv[n++] = "--queues";
	argv[n++] = queues;
	argv[n++] = "--ctl-socket";
	argv[n++] = ctl;
	if (vm->cfg->poll) {
		argv[n++] = "--poll-us";
		argv[n++] = "1000000";
	}
	argv[n] = NULL;
	/* A binary being rebuilt right now fails for a moment: retry briefly */
	for (n = 0; n < 20; n++) {
		execv(path, (char *const *)argv);
		if (errno != EACCES && errno != ETXTBSY && errno != ENOENT)
			break;
		sleep_ms(100);
	}
	fprintf(stderr, "exec %s: %s\n", path, strerror(errno));
	_exit(127);
}

/**
 * bench_spawn() - Start vnetd for one VM and wait until its socket listens
 * @vm:	VM with @cfg and @id; @socket and @vnetd are filled in
 *
 * Return: 0, or -errno with a line on stderr
 */
int bench_spawn(struct bench_vm *vm)
{
	char path[PATH_MAX];
	struct stat st;
	int ret, i, status;

	ret = vnetd_path(path, sizeof(path));
	if (ret) {
		fprintf(stderr, "vnet-bench: --spawn: vnetd not found next to vnet-bench (%s); set VNETD\n",
			path);
		return ret;
	}
	snprintf(vm->socket, sizeof(vm->socket), "/tmp/vnet-bench-%d-%u.sock",
		 (int)getpid(), vm->id);
	snprintf(vm->vnetd_log, sizeof(vm->vnetd_log),
		 "/tmp/vnet-bench-%d-%u.vnetd.log", (int)getpid(), vm->id);
	unlink(vm->socket);
	vm->vnetd = fork();
	if (vm->vnetd < 0)
		return -errno;
	if (!vm->vnetd)
		spawn_child(vm, path);
	for (i = 0; i < SPAWN_WAIT_MS / 10; i++) {
		if (!stat(vm->socket, &st) && S_ISSOCK(st.st_mode)) {
			if (!vm->cfg->json)
				printf("spawned %s --backend %s (pid %d) on %s\n",
				       path, vm->cfg->spawn_backend,
				       (int)vm->vnetd, vm->socket);
			return 0;
		}
		if (waitpid(vm->vnetd, &status, WNOHANG) == vm->vnetd) {
			vm->vnetd = 0;
			fprintf(stderr, "vnet-bench: vnetd exited at start, log: %s\n",
				vm->vnetd_log);
			return -ECHILD;
		}
		sleep_ms(10);
	}
	fprintf(stderr, "vnet-bench: vnetd did not create %s within %d ms, log: %s\n",
		vm->socket, SPAWN_WAIT_MS, vm->vnetd_log);
	bench_spawn_stop(vm, true);
	return -ETIMEDOUT;
}

/**
 * bench_spawn_stop() - Stop the vnetd of @vm (by its pid) and tidy up
 * @vm:		VM
 * @keep_log:	Keep vnetd's log file (something failed)
 */
void bench_spawn_stop(struct bench_vm *vm, bool keep_log)
{
	int i, status;

	if (vm->vnetd > 0) {
		kill(vm->vnetd, SIGTERM);
		for (i = 0; i < 300; i++) {
			if (waitpid(vm->vnetd, &status, WNOHANG) == vm->vnetd)
				break;
			sleep_ms(10);
		}
		if (i == 300) {
			kill(vm->vnetd, SIGKILL);
			waitpid(vm->vnetd, &status, 0);
		}
		vm->vnetd = 0;
	}
	if (vm->socket[0])
		unlink(vm->socket);
	if (vm->vnetd_log[0] && !keep_log)
		unlink(vm->vnetd_log);
	else if (vm->vnetd_log[0])
		fprintf(stderr, "vnet-bench: vnetd log kept: %s\n", vm->vnetd_log);
}
