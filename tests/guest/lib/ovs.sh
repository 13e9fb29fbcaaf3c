# shellcheck shell=bash
# tests/guest/lib/ovs.sh - one Open vSwitch per network namespace, no systemd (source it).
#
# Each "host" gets its own ovsdb-server and ovs-vswitchd, started in its netns, with the
# database, sockets, pidfiles and logs in one directory D. The clients find them through
# OVS_RUNDIR/OVS_DBDIR/OVS_LOGDIR=D, the way an operator types them:
#   ovs_start NETNS D       start both daemons (PIDs appended to OVS_PIDS), 0 or 1
#   ovs_env D CMD...        run CMD (ovs-vsctl, ovs-appctl, a plan's attach line) against D's OVS
#   ovs_appctl D ARGS...    ovs-appctl to D's ovs-vswitchd
#   ovs_logs D              the tail of D's ovs-vswitchd log, as "# " lines
#   ovs_stop                stop every daemon ovs_start started (by PID)
# Only the userspace datapath (bridges with datapath_type=netdev) needs no kernel module.

OVS_SCHEMA=${OVS_SCHEMA:-/usr/share/openvswitch/vswitch.ovsschema}
OVS_PIDS=()

# ovs_missing: prints why OVS cannot run here and returns 0, or returns 1 when it can
ovs_missing() {
	local c
	for c in ovsdb-tool ovsdb-server ovs-vswitchd ovs-vsctl ovs-appctl; do
		command -v "$c" > /dev/null || { echo "$c missing (apt-get install openvswitch-switch)"; return 0; }
	done
	[ -r "$OVS_SCHEMA" ] || { echo "$OVS_SCHEMA missing (apt-get install openvswitch-common)"; return 0; }
	return 1
}

ovs_env() {
	local d=$1; shift
	env OVS_RUNDIR="$d" OVS_DBDIR="$d" OVS_LOGDIR="$d" OVS_SYSCONFDIR="$d" "$@"
}

ovs_appctl() {
	local d=$1; shift
	ovs-appctl -t "$d/ovs-vswitchd.ctl" --timeout=60 "$@"
}

ovs_start() {
	local ns=$1 d=$2 _
	# not through ovs_env: "FUNCTION &" would put a subshell's PID in $!, not the daemon's
	local e=(env OVS_RUNDIR="$d" OVS_DBDIR="$d" OVS_LOGDIR="$d" OVS_SYSCONFDIR="$d")
	mkdir -p "$d"
	ovsdb-tool create "$d/conf.db" "$OVS_SCHEMA" > "$d/ovsdb-tool.log" 2>&1 || return 1
	"${e[@]}" ip netns exec "$ns" ovsdb-server "$d/conf.db" --remote="punix:$d/db.sock" \
		--pidfile="$d/ovsdb-server.pid" --unixctl="$d/ovsdb-server.ctl" \
		--log-file="$d/ovsdb-server.log" > "$d/ovsdb-server.out" 2>&1 < /dev/null &
	OVS_PIDS+=($!)
	for _ in $(seq 100); do [ -S "$d/db.sock" ] && break; sleep 0.1; done
	ovs_env "$d" ovs-vsctl --timeout=30 --no-wait init || return 1
	"${e[@]}" ip netns exec "$ns" ovs-vswitchd "unix:$d/db.sock" --pidfile="$d/ovs-vswitchd.pid" \
		--unixctl="$d/ovs-vswitchd.ctl" --log-file="$d/ovs-vswitchd.log" \
		> "$d/ovs-vswitchd.out" 2>&1 < /dev/null &
	OVS_PIDS+=($!)
	for _ in $(seq 100); do [ -S "$d/ovs-vswitchd.ctl" ] && return 0; sleep 0.1; done
	return 1
}

ovs_logs() {
	tail -n "${2:-8}" "$1/ovs-vswitchd.log" 2>/dev/null | sed "s|^|# ${1##*/} vswitchd: |"
}

ovs_stop() {
	local i
	# ovs-vswitchd first (it holds the db connection), then ovsdb-server
	for ((i = ${#OVS_PIDS[@]} - 1; i >= 0; i--)); do stop_pid "${OVS_PIDS[$i]}"; done
	OVS_PIDS=()
}
