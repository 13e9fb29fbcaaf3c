// SPDX-License-Identifier: MIT
/*
 * cmd_upgrade.c - `vnetctl upgrade [--binary PATH] [--socket CTL]`: replace
 * a running vnetd by a new binary under its running VMs (docs/vnetd.md
 * "Upgrading without downtime"). vnetctl starts the new binary itself, as
 * `PATH --takeover CTL --report-fd N`: the running vnetd is sandboxed
 * (no execve) and a child of it would inherit the sandbox. The new process
 * takes the old one's command line, ports and connections over the control
 * socket (vnetd's upgrade.c) and writes one line to the pipe at fd N:
 * "ok pid P ports N paused_ms T" or "error: REASON". vnetctl prints it and
 * exits 0 or 1; the new process runs on, in a process group of its own.
 *
 * The default binary is the one the running vnetd was started as
 * (/proc/PID/cmdline, PID from the control socket's "pid" request): after
 * a package upgrade that path holds the new binary.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd_opts.h"
#include "cmds.h"
#include "ctl_path.h"

#define UPGRADE_WAIT_MS	20000	/* the whole hand-over, start to report */

static void upgrade_usage(FILE *f)
{
	fprintf(f,
"Usage: vnetctl upgrade [--binary PATH] [--socket CTL]\n"
"Replace the running vnetd by a new binary without disconnecting its VMs:\n"
"the new process takes over every port, connection and ring where the old\n"
"one stopped, and the old one exits. On any failure the old one keeps\n"
"serving as before and the reason is printed.\n"
"  -b, --binary PATH  the new vnetd (default: the path the running vnetd was\n"
"                     started as)\n"
"  -s, --socket CTL   vnetd control socket (default: %s); also --ctl-socket\n"
"  -h, --help         this text\n", ctl_default_path());
}

/* PID of the vnetd serving @path (its "pid" request), -errno */
static int upgrade_peer(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char reply[32] = "";
	ssize_t n = -1;
	int fd, ret;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	    write(fd, "pid\n", 4) == 4)
		n = read(fd, reply, sizeof(reply) - 1);
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	ret = atoi(reply);
	return ret > 0 ? ret : -EPROTO;	/* an older vnetd: "error: unknown" */
}

/* The path PID was started as, absolute (its cwd prepended) */
static int upgrade_default_binary(int pid, char *out, size_t len)
{
	char p[64], cmd[4096] = "", cwd[4096] = "";
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "/proc/%d/cmdline", pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, cmd, sizeof(cmd) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	cmd[n] = '\0';
	if (cmd[0] != '/' && strchr(cmd, '/')) {
		snprintf(p, sizeof(p), "/proc/%d/cwd", pid);
		n = readlink(p, cwd, sizeof(cwd) - 1);
		if (n <= 0)
			return -errno;
		cwd[n] = '\0';
		if ((size_t)snprintf(out, len, "%s/%s", cwd, cmd) >= len)
			return -ENAMETOOLONG;
		return 0;
	}
	if ((size_t)snprintf(out, len, "%s", cmd) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * In the child: a process group of its own, stdin from /dev/null, exec.
 *
 * Not a session of its own: with the scheduler's autogroups (on by default)
 * a new session is a new group, and on a busy host the kernel let the new
 * process wait for a CPU for seconds before it even connected (loop ports
 * under vnet-bench load on 2 CPUs: 5 of 13 setsid() starts took 0.6-3.8 s,
 * 11 of 11 setpgid() ones under 0.2 s; a CI run once saw vnetctl's 20 s
 * pass in this phase). Its own group keeps it
 * out of the terminal's foreground group: a Ctrl-C or hangup there does not
 * reach it; and it ignores the terminal's stop signals for a background
 * group (writing its first log lines to vnetctl's stderr with tostop set).
 */
static void upgrade_exec(const char *bin, const char *ctl, int wfd)
{
	char fdarg[16];
	int nul = open("/dev/null", O_RDONLY);

	setpgid(0, 0);
	signal(SIGTTOU, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	if (nul >= 0) {
		dup2(nul, STDIN_FILENO);
		close(nul);
	}
	snprintf(fdarg, sizeof(fdarg), "%d", wfd);
	execlp(bin, bin, "--takeover", ctl, "--report-fd", fdarg, (char *)NULL);
	dprintf(wfd, "error: cannot run %s: %s\n", bin, strerror(errno));
	_exit(127);
}

/* Read the new process's one line. Return: false if it timed out */
static bool upgrade_read_report(int rfd, char *line, size_t len)
{
	size_t got = 0;
	struct pollfd p = { .fd = rfd, .events = POLLIN };
	ssize_t n;

	line[0] = '\0';
	while (got < len - 1) {
		if (poll(&p, 1, UPGRADE_WAIT_MS) <= 0)
			return false;
		n = read(rfd, line + got, len - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
		line[got] = '\0';
		if (strchr(line, '\n'))
			break;
	}
	line[strcspn(line, "\n")] = '\0';
	return true;
}

static int upgrade_run(const char *bin, const char *ctl)
{
	char line[512];
	int pfd[2], status = 0;
	bool eof;
	pid_t child;

	if (pipe2(pfd, O_CLOEXEC)) {
		fprintf(stderr, "vnetctl upgrade: pipe: %s\n", strerror(errno));
		return CMD_FAIL;
	}
	child = fork();
	if (child < 0) {
		fprintf(stderr, "vnetctl upgrade: fork: %s\n", strerror(errno));
		return CMD_FAIL;
	}
	if (!child) {
		close(pfd[0]);
		fcntl(pfd[1], F_SETFD, 0);	/* the new vnetd's report fd */
		upgrade_exec(bin, ctl, pfd[1]);
	}
	close(pfd[1]);
	eof = upgrade_read_report(pfd[0], line, sizeof(line));
	close(pfd[0]);
	if (!strncmp(line, "ok ", 3)) {
		printf("vnetctl upgrade: %s: %s\n", bin, line);
		return CMD_OK;
	}
	if (line[0]) {
		fprintf(stderr, "vnetctl upgrade: %s: %s; the running vnetd keeps serving\n",
			bin, line);
		(void)waitpid(child, &status, WNOHANG);
		return CMD_FAIL;
	}
	/* no line: it exited (or hung) before taking over */
	if (eof && waitpid(child, &status, 0) == child)
		fprintf(stderr, "vnetctl upgrade: %s exited (%s %d) before taking over; the running vnetd keeps serving\n",
			bin, WIFEXITED(status) ? "status" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	else if (!kill(child, 0))
		fprintf(stderr, "vnetctl upgrade: %s (pid %d) did not report within %d ms and still runs: if it takes over later, it serves on and logs \"takeover: serving\"; else the running vnetd keeps serving\n",
			bin, (int)child, UPGRADE_WAIT_MS);
	else
		fprintf(stderr, "vnetctl upgrade: %s did not report within %d ms; the running vnetd keeps serving unless it was handed over\n",
			bin, UPGRADE_WAIT_MS);
	return CMD_FAIL;
}

/**
 * cmd_upgrade() - vnetctl upgrade
 * @argc:	Argument count (the arguments after "upgrade")
 * @argv:	Arguments
 *
 * Return: exit status (cmds.h)
 */
int cmd_upgrade(int argc, char **argv)
{
	const char *ctl = ctl_default_path(), *bin = NULL, *v;
	char defbin[4096];
	bool missing;
	int i, pid, ret;

	if (cmd_wants_help(argc, argv)) {
		upgrade_usage(stdout);
		return CMD_OK;
	}
	for (i = 0; i < argc; i++) {
		if ((v = cmd_opt(argc, argv, &i, "--binary", &missing)) ||
		    (!missing && (v = cmd_opt(argc, argv, &i, "-b", &missing))))
			bin = v;
		else if (!missing && (v = cmd_ctl_opt(argc, argv, &i, &missing)))
			ctl = v;
		if (missing || !v) {
			fprintf(stderr, "vnetctl upgrade: %s '%s'\n",
				missing ? "missing value for" : "unknown argument",
				argv[i]);
			upgrade_usage(stderr);
			return CMD_USAGE;
		}
	}
	pid = upgrade_peer(ctl);
	if (pid < 0) {
		fprintf(stderr, "vnetctl upgrade: control socket %s: %s (is vnetd running?)\n",
			ctl, strerror(-pid));
		return CMD_FAIL;
	}
	if (!bin) {
		ret = upgrade_default_binary(pid, defbin, sizeof(defbin));
		if (ret) {
			fprintf(stderr, "vnetctl upgrade: the binary of vnetd pid %d: %s: give --binary PATH\n",
				pid, strerror(-ret));
			return CMD_FAIL;
		}
		bin = defbin;
	}
	signal(SIGPIPE, SIG_IGN);
	return upgrade_run(bin, ctl);
}
