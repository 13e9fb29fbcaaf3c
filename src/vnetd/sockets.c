// SPDX-License-Identifier: MIT
/*
 * sockets.c - where a port's socket comes from and who may use it:
 *
 *  - bound here: the file is created with --socket-mode (umask around
 *    bind(), so it is never more open than asked, not even briefly), then
 *    given --socket-owner/--socket-group; a missing /run/vnetd is created
 *    0755 first;
 *  - inherited: --fd N (vhost-user.rst, "Backend program conventions")
 *    or systemd socket activation (sd_listen_fds(3): LISTEN_PID,
 *    LISTEN_FDS, LISTEN_FDNAMES). A listening socket is accepted on; an
 *    already connected one, as QEMU passes it, is served directly.
 *    SO_ACCEPTCONN tells them apart. An inherited socket's file belongs to
 *    whoever made it: vnetd neither chmods nor removes it.
 *
 * The control socket's peer is checked with SO_PEERCRED: root, our own
 * uid, or a member of --ctl-group; everyone else is refused with a reason.
 * Parsing is cli.c's; this file only applies what it was given.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cfg.h"
#include "sockets.h"

/* #syscalls: socket connect bind listen unlink close getsockopt geteuid */

#define SD_LISTEN_FDS_START	3
#define SOCK_MAX_GROUPS		256
#define SOCK_LISTEN_BACKLOG	128

static int64_t sock_ctl_gid = -1;
static uid_t sock_ctl_members[SOCK_MAX_GROUPS];	/* --ctl-group members, at start */
static unsigned int sock_ctl_nmembers;

/**
 * sock_unix_addr() - The address of a UNIX socket path
 * @path:	Socket path
 * @sa:		Address (output)
 *
 * Return: 0, or -ENAMETOOLONG if @path does not fit
 */
int sock_unix_addr(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	strcpy(sa->sun_path, path);
	return 0;
}

/**
 * sock_unix_listen() - Listen on a UNIX socket path, replacing a stale one
 * @path:	Socket path
 * @why:	One sentence for the operator on failure
 *
 * A socket file nobody listens on (left by a crash) is removed; one that
 * answers, or a file that is not a socket, is left alone and is an error.
 *
 * Return: listening, non-blocking descriptor or -errno
 */
int sock_unix_listen(const char *path, struct reason *why)
{
	struct sockaddr_un sa;
	struct stat st;
	int fd, ret;

	if (sock_unix_addr(path, &sa)) {
		return reason_set(why, -ENAMETOOLONG, "%s: path too long", path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			reason_set(why, -EEXIST, "%s exists and is not a socket", path);
			ret = -EEXIST;
			goto err_close;
		}
		if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			reason_set(why, -EADDRINUSE, "%s is in use by a running process", path);
			ret = -EADDRINUSE;
			goto err_close;
		}
		/* connect() failed: nothing listens, the file is stale */
		close(fd);
		unlink(path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(fd, SOCK_LISTEN_BACKLOG) || fcntl(fd, F_SETFL, O_NONBLOCK)) {
		ret = -errno;
		reason_set(why, ret, "%s: %s", path, strerror(-ret));
		goto err_close;
	}
	return fd;

err_close:
	close(fd);
	return ret;
}

/**
 * sock_run_dir() - Create /run/vnetd (0755) if @path lives in it
 * @path:	Socket path
 *
 * Only that directory: any other missing directory is the operator's
 * mistake and bind() reports it.
 *
 * Return: 0 or -errno from mkdir()
 */
int sock_run_dir(const char *path)
{
	size_t n = strlen(SOCK_RUN_DIR);
	mode_t old;
	int ret = 0;

	if (strncmp(path, SOCK_RUN_DIR "/", n + 1) || strchr(path + n + 1, '/'))
		return 0;
	old = umask(0022);
	if (mkdir(SOCK_RUN_DIR, 0755) && errno != EEXIST)
		ret = -errno;
	umask(old);
	return ret;
}

/* Is @fd a socket, and is it listening? Return: 1, 0, or -errno */
static int sock_listening(int fd)
{
	int v = 0;
	socklen_t len = sizeof(v);
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISSOCK(st.st_mode))
		return -ENOTSOCK;
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &len))
		return -errno;
	return v ? 1 : 0;
}

static int sock_inherit(const struct vnetd_port_cfg *cfg, int *listen_fd,
			int *conn_fd, struct reason *why)
{
	int ret = sock_listening(cfg->fd);

	if (ret < 0) {
		return reason_set(why, ret, "--fd %d: %s: must be an open UNIX stream socket, listening or connected",
				  cfg->fd, strerror(-ret));
	}
	if (fcntl(cfg->fd, F_SETFD, FD_CLOEXEC) ||
	    (ret && fcntl(cfg->fd, F_SETFL, O_NONBLOCK))) {
		ret = -errno;
		return reason_set(why, ret, "--fd %d: fcntl: %s", cfg->fd,
				  strerror(-ret));
	}
	if (ret)
		*listen_fd = cfg->fd;
	else
		*conn_fd = cfg->fd;
	return 0;
}

/**
 * sock_port_open() - The socket a port listens on, or its one connection
 * @cfg:	Port configuration (server mode)
 * @listen_fd:	Listening socket (output), -1 if none
 * @conn_fd:	Already connected socket, inherited (output), -1 if none
 * @why:	One sentence for the operator on failure
 *
 * Return: 0 or -errno
 */
int sock_port_open(const struct vnetd_port_cfg *cfg, int *listen_fd,
		   int *conn_fd, struct reason *why)
{
	mode_t old;
	int fd, ret;

	*listen_fd = *conn_fd = -1;
	if (cfg->fd >= 0)
		return sock_inherit(cfg, listen_fd, conn_fd, why);
	ret = sock_run_dir(cfg->socket);
	if (ret) {
		return reason_set(why, ret, "mkdir %s: %s", SOCK_RUN_DIR,
				  strerror(-ret));
	}
	old = umask(~cfg->sock_mode & 0777);
	fd = sock_unix_listen(cfg->socket, why);
	umask(old);
	if (fd < 0)
		return fd;
	if ((cfg->sock_uid >= 0 || cfg->sock_gid >= 0) &&
	    chown(cfg->socket, (uid_t)cfg->sock_uid, (gid_t)cfg->sock_gid)) {
		ret = -errno;
		reason_set(why, ret, "%s: chown to %lld:%lld (--socket-owner/--socket-group): %s%s",
			   cfg->socket, (long long)cfg->sock_uid,
			   (long long)cfg->sock_gid, strerror(-ret),
			   ret == -EPERM ? " (needs CAP_CHOWN)" : "");
		close(fd);
		unlink(cfg->socket);
		return ret;
	}
	*listen_fd = fd;
	return 0;
}

/* The path an inherited socket is bound to, "" if none */
static void sock_bound_path(int fd, char *path, size_t len)
{
	struct sockaddr_un sa;
	socklen_t sl = sizeof(sa);

	path[0] = '\0';
	if (getsockname(fd, (struct sockaddr *)&sa, &sl) || sa.sun_family !=
	    AF_UNIX || sl <= offsetof(struct sockaddr_un, sun_path) ||
	    !sa.sun_path[0])
		return;
	snprintf(path, len, "%.*s", (int)(sl - offsetof(struct sockaddr_un,
							  sun_path)),
		 sa.sun_path);
}

/* Which port takes inherited fd @fd named @name? NULL: none */
static struct vnetd_port_cfg *sock_match(struct vnetd_cfg *cfg, int fd,
					 const char *name, unsigned int nfds)
{
	char path[VNETD_PATH_LEN];
	unsigned int i;

	for (i = 0; name && i < cfg->nports; i++)
		if (cfg->ports[i].fd < 0 && !strcmp(cfg->ports[i].name, name))
			return &cfg->ports[i];
	sock_bound_path(fd, path, sizeof(path));
	for (i = 0; path[0] && i < cfg->nports; i++)
		if (cfg->ports[i].fd < 0 && !cfg->ports[i].client &&
		    !strcmp(cfg->ports[i].socket, path))
			return &cfg->ports[i];
	if (nfds == 1 && cfg->nports == 1 && cfg->ports[0].fd < 0 &&
	    !cfg->ports[0].client)
		return &cfg->ports[0];
	return NULL;
}

/**
 * sock_activation() - Hand systemd's sockets (sd_listen_fds(3)) to ports
 * @cfg:	Configuration; matched ports get their @fd set
 * @why:	One sentence for the operator on failure
 *
 * A socket goes to the port named like its LISTEN_FDNAMES entry
 * (FileDescriptorName=), else to the port whose --socket it is bound to,
 * else, one socket and one port, to that port. Sockets no port takes are
 * closed with a warning. The variables are unset afterwards.
 *
 * Return: number of sockets taken, or -EINVAL for malformed variables
 */
int sock_activation(struct vnetd_cfg *cfg, struct reason *why)
{
	const char *pid_s = getenv("LISTEN_PID"), *fds_s = getenv("LISTEN_FDS");
	char names[1024] = "", *name, *save = NULL;
	struct vnetd_port_cfg *pc;
	unsigned long pid, nfds;
	unsigned int i, taken = 0;
	char *end;

	if (!pid_s || !fds_s)
		return 0;
	pid = strtoul(pid_s, &end, 10);
	if (*end || pid != (unsigned long)getpid())
		return 0;	/* meant for another process */
	nfds = strtoul(fds_s, &end, 10);
	if (*end || !*fds_s || nfds > VNETD_MAX_PORTS) {
		return reason_set(why, -EINVAL, "LISTEN_FDS=%s: must be 0..%d", fds_s,
				  VNETD_MAX_PORTS);
	}
	if (getenv("LISTEN_FDNAMES"))
		snprintf(names, sizeof(names), "%s", getenv("LISTEN_FDNAMES"));
	name = strtok_r(names, ":", &save);
	for (i = 0; i < nfds; i++) {
		int fd = SD_LISTEN_FDS_START + (int)i;

		pc = sock_match(cfg, fd, name, (unsigned int)nfds);
		if (pc) {
			pc->fd = fd;
			taken++;
		} else {
			log_warn("socket activation: fd %d (name %s) matches no port by name or socket path: closed",
				 fd, name ? name : "none");
			close(fd);
		}
		name = strtok_r(NULL, ":", &save);
	}
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	return (int)taken;
}

/**
 * sock_ctl_configure() - Set the group allowed on the control socket
 * @gid:	--ctl-group, or -1: root and our own uid only
 *
 * The group's members are looked up here, at start: after setup the
 * sandbox leaves /etc out of vnetd's view (and nss out of its syscalls), so
 * a member added later is let in after a restart; a user whose primary
 * group is @gid always is.
 */
void sock_ctl_configure(int64_t gid)
{
	struct passwd pw, *pres;
	struct group gr, *gres = NULL;
	char buf[16384], pbuf[1024];
	char **m;

	sock_ctl_gid = gid;
	sock_ctl_nmembers = 0;
	if (gid < 0 || getgrgid_r((gid_t)gid, &gr, buf, sizeof(buf), &gres) || !gres)
		return;
	for (m = gr.gr_mem; *m && sock_ctl_nmembers < SOCK_MAX_GROUPS; m++) {
		pres = NULL;
		if (!getpwnam_r(*m, &pw, pbuf, sizeof(pbuf), &pres) && pres)
			sock_ctl_members[sock_ctl_nmembers++] = pw.pw_uid;
	}
}

/**
 * sock_ctl_perms() - Open the control socket file to --ctl-group
 * @path:	Control socket, created 0600 by ctl_open()
 *
 * Return: 0 (also without --ctl-group) or -errno
 */
int sock_ctl_perms(const char *path)
{
	if (sock_ctl_gid < 0)
		return 0;
	if (chown(path, (uid_t)-1, (gid_t)sock_ctl_gid) || chmod(path, 0660))
		return -errno;
	return 0;
}

/* Is user @uid (primary group @gid) a member of @want? */
static int sock_in_group(uid_t uid, gid_t gid, gid_t want)
{
	unsigned int i;

	if (gid == want)
		return 1;
	for (i = 0; i < sock_ctl_nmembers; i++)
		if (sock_ctl_members[i] == uid)
			return 1;
	return 0;
}

/**
 * sock_ctl_check() - May this control client talk to us?
 * @fd:		Accepted control connection
 * @why:	Reason for the refusal, one line for client and log (output)
 *
 * Return: 0 if allowed, -EACCES if not
 */
int sock_ctl_check(int fd, struct reason *why)
{
	struct ucred uc;
	socklen_t sl = sizeof(uc);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &sl)) {
		return reason_set(why, -EACCES, "SO_PEERCRED: %s", strerror(errno));
	}
	if (uc.uid == 0 || uc.uid == geteuid())
		return 0;
	if (sock_ctl_gid >= 0 &&
	    sock_in_group(uc.uid, uc.gid, (gid_t)sock_ctl_gid))
		return 0;
	if (sock_ctl_gid >= 0)
		reason_set(why, -EACCES, "uid %u (pid %d) is not root and not in group %lld (--ctl-group)",
			   (unsigned int)uc.uid, (int)uc.pid,
			   (long long)sock_ctl_gid);
	else
		reason_set(why, -EACCES, "uid %u (pid %d) is not root (no --ctl-group given)",
			   (unsigned int)uc.uid, (int)uc.pid);
	return -EACCES;
}
