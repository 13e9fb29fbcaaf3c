#!/usr/bin/env bash
# tests/guest/lib/guest.sh - the project's QEMU test guest: Debian's own kernel (unpacked
# from its .deb, never installed), a busybox-static initramfs, booted under TCG with guest
# RAM in a shared memfd so a vhost-user backend (vnetd, or any other) can map it.
#
# usage: guest.sh kernel
#            make sure the kernel cache exists; print "KVER KERNEL MODDIR"
#        guest.sh initrd
#            print the default image (cached in $CACHE; rebuilt when init.sh, guest.sh,
#            ethtool, iperf3 or build/{vnetd,vnetctl,vnet-bench} are newer)
#        guest.sh build-initramfs [-o OUT] [-m MOD]... [--include-module MOD]...
#                                 [--no-default-extras] [EXTRA...]
#            -o OUT      output (default: $CACHE/initramfs-custom.cpio.gz); the path is printed
#            -m MOD      also load MOD (and its dependencies) at boot; "a,b" works
#            --include-module MOD   put MOD in the image without loading it
#            --no-default-extras    leave out ethtool, iperf3 and build/{vnetd,vnetctl,vnet-bench}
#            EXTRA       SRC or SRC:DST; ELF files bring their ldd libraries and loader; a
#                        directory is copied whole. DST defaults to /bin/<basename>
#        guest.sh run [options] [-- extra qemu args]
#            boots the guest, console on stdout; exit status = the guest script's status,
#            124 = timeout, 125 = QEMU failed or no exit marker
#            --vu SOCK          vhost-user virtio-net NIC on UNIX socket SOCK (QEMU is the
#                               client); repeatable, NICs are eth0, eth1, ...
#            --vu-server        QEMU listens on SOCK instead (the backend connects)
#            --vu-reconnect S   client: reconnect every S s (backend restarts, late starts)
#            --queues N         queue pairs per vhost-user NIC (default 1; N>1 adds mq=on)
#            --dev-opts OPTS    appended to each NIC's -device, e.g. packed=on
#            --vectors N        MSI-X vectors (default 0 with QEMU < 10 under TCG: 7.2 crashes
#                               in msix_set_vector_notifiers() with vhost-user and MSI-X)
#            --mac MAC          first NIC's MAC (default 52:54:00:12:34:01, then +1)
#            --ip CIDR          eth0 address in the guest (--ip1 CIDR: eth1)
#            --script FILE      guest script (sh), shipped through fw_cfg: no rebuild needed
#            --run "CMDS"       same, from a string
#            --shell            interactive console (Ctrl-A x quits)
#            --append ARGS      extra kernel command line
#            --kernel F --initrd F  (default: cache kernel, default initramfs, rebuilt when
#                               its inputs are newer)
#            --smp N (2) --mem MB (512) --machine M (q35) --accel A (tcg,thread=multi)
#            --timeout S (240)  --log FILE (copy of the console)  --pidfile F (QEMU's PID)
#
# Environment: VNET_GUEST_CACHE (default tests/guest/cache), VNET_KFLAVOUR (cloud-amd64),
#   VNET_KPKG (exact linux-image package), VNET_QEMU (qemu-system-x86_64 to use).
# Needs: qemu-system-x86 busybox-static cpio apt (for the kernel download); ethtool, iperf3.
set -uo pipefail

GL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GL_TOP=$(cd "$GL_DIR/../../.." && pwd)
CACHE=${VNET_GUEST_CACHE:-$GL_TOP/tests/guest/cache}
KFLAVOUR=${VNET_KFLAVOUR:-cloud-amd64}
DEFAULT_MODS="virtio_pci virtio_net qemu_fw_cfg tun tap vhost_iotlb vhost vhost_net"

gl_log() { echo "[guest] $*" >&2; }
gl_die() { echo "[guest] ERROR: $*" >&2; exit 1; }

# ---- kernel cache ------------------------------------------------------------------
gl_resolve_kpkg() {
	local p
	if [ -n "${VNET_KPKG:-}" ]; then echo "$VNET_KPKG"; return 0; fi
	p=$(apt-cache depends "linux-image-$KFLAVOUR" 2>/dev/null | awk '/Depends:/{print $2; exit}')
	if [ -z "$p" ]; then
		gl_log "apt-cache does not know linux-image-$KFLAVOUR: apt-get update"
		apt-get update -qq >&2 || return 1
		p=$(apt-cache depends "linux-image-$KFLAVOUR" 2>/dev/null | awk '/Depends:/{print $2; exit}')
	fi
	[ -n "$p" ] && echo "$p"
}

# gl_download_deb - print the path of a kernel .deb in the cache, downloading it if needed
gl_download_deb() {
	local deb pkg tmp
	if [ -n "${VNET_KPKG:-}" ]; then
		deb=$(ls -t "$CACHE/${VNET_KPKG}"_*.deb 2>/dev/null | head -n1)
	else
		deb=$(ls -t "$CACHE"/linux-image-*"$KFLAVOUR"*.deb 2>/dev/null | head -n1)
	fi
	[ -n "$deb" ] && { echo "$deb"; return 0; }
	pkg=$(gl_resolve_kpkg) || { gl_log "cannot resolve linux-image-$KFLAVOUR"; return 1; }
	deb=$(ls -t /var/cache/apt/archives/"${pkg}"_*.deb 2>/dev/null | head -n1)
	if [ -n "$deb" ]; then cp "$deb" "$CACHE/"; echo "$CACHE/${deb##*/}"; return 0; fi
	gl_log "apt-get download $pkg"
	tmp=$(mktemp -d /tmp/vnet-kdeb.XXXXXX); chmod 777 "$tmp"	# apt drops to user _apt
	if ! (cd "$tmp" && apt-get download -q "$pkg" >&2); then
		apt-get update -qq >&2
		pkg=$(gl_resolve_kpkg) && (cd "$tmp" && apt-get download -q "$pkg" >&2) ||
			{ rm -rf "$tmp"; gl_log "apt-get download $pkg failed"; return 1; }
	fi
	deb=$(ls "$tmp"/*.deb | head -n1)
	mv "$deb" "$CACHE/" && rm -rf "$tmp"
	echo "$CACHE/${deb##*/}"
}

# gl_kernel - make sure $CACHE has an unpacked kernel; sets KVER KERNEL MODDIR
gl_kernel() {
	local deb t0
	mkdir -p "$CACHE" || return 1
	if [ -s "$CACHE/kver" ] && [ -f "$CACHE/vmlinuz" ] &&
	   [ -f "$CACHE/kroot/lib/modules/$(cat "$CACHE/kver")/modules.dep" ]; then
		KVER=$(cat "$CACHE/kver")
	else
		t0=$SECONDS
		deb=$(gl_download_deb) || return 1
		gl_log "unpacking ${deb##*/}"
		rm -rf "$CACHE/kroot" && mkdir -p "$CACHE/kroot"
		dpkg-deb -x "$deb" "$CACHE/kroot" || { gl_log "dpkg-deb -x failed"; return 1; }
		KVER=$(ls "$CACHE/kroot/lib/modules" | head -n1)
		[ -n "$KVER" ] || { gl_log "no lib/modules in $deb"; return 1; }
		# the .deb has no modules.dep (its postinst makes it); busybox depmod works offline
		busybox depmod -b "$CACHE/kroot" "$KVER" || { gl_log "busybox depmod failed"; return 1; }
		echo "$KVER" > "$CACHE/kver"
		ln -sfn "kroot/boot/vmlinuz-$KVER" "$CACHE/vmlinuz"
		gl_log "kernel $KVER ready in $((SECONDS - t0)) s"
	fi
	KERNEL=$CACHE/vmlinuz
	MODDIR=$CACHE/kroot/lib/modules/$KVER
}

# ---- initramfs ------------------------------------------------------------------------
gl_is_static() { case "$(ldd "$1" 2>&1)" in *"not a dynamic"*|*"statically linked"*) return 0 ;; esac; return 1; }

gl_copy_elf() { # ROOT SRC DST
	local root=$1 src=$2 dst=$3 lib
	install -D -m 755 "$src" "$root$dst" || return 1
	gl_is_static "$src" && return 0
	for lib in $(ldd "$src" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'); do
		[ -e "$root$lib" ] || install -D -m 755 "$(readlink -f "$lib")" "$root$lib" || return 1
	done
}

# gl_modules ROOT "LOAD" "INCLUDE" - copy modules + dependency closure, write /etc/vnet/modules
gl_modules() {
	local root=$1 load=$2 inc=$3 line p n m
	local -A path deps seen
	local order=()
	while IFS= read -r line; do
		p=${line%%:*}; n=${p##*/}; n=${n%%.ko*}; n=${n//-/_}
		path[$n]=$p; deps[$n]=${line#*:}
	done < "$MODDIR/modules.dep"
	gl_visit() {
		local v=${1//-/_} x
		[ -n "${seen[$v]:-}" ] && return 0
		seen[$v]=1
		if [ -z "${path[$v]:-}" ]; then
			grep -q "/${v}.ko" "$MODDIR/modules.builtin" 2>/dev/null && return 0
			gl_log "module $v not in $KVER"; return 1
		fi
		for x in ${deps[$v]}; do x=${x##*/}; gl_visit "${x%%.ko*}" || return 1; done
		order+=("$v")
	}
	for m in $load $inc; do gl_visit "$m" || return 1; done
	for n in "${order[@]}"; do
		install -D -m 644 "$MODDIR/${path[$n]}" "$root/lib/modules/$KVER/${path[$n]}" || return 1
	done
	cp "$MODDIR"/modules.builtin* "$MODDIR/modules.order" "$root/lib/modules/$KVER/" 2>/dev/null
	busybox depmod -b "$root" "$KVER" || return 1
	for m in $load; do echo "$m"; done > "$root/etc/vnet/modules"
	GL_MODS_DONE="${order[*]}"
}

gl_default_extras() {
	local x
	for x in ethtool iperf3; do command -v "$x" >/dev/null && command -v "$x"; done
	for x in vnetd vnetctl vnet-bench; do [ -x "$GL_TOP/build/$x" ] && echo "$GL_TOP/build/$x"; done
	return 0
}

gl_build_initramfs() {
	local out='' load="$DEFAULT_MODS" inc='' defx=1 root x src dst a t0=$SECONDS
	local extras=()
	while [ $# -gt 0 ]; do
		case "$1" in
		-o) out=$2; shift 2 ;;
		-m) load="$load ${2//,/ }"; shift 2 ;;
		--include-module) inc="$inc ${2//,/ }"; shift 2 ;;
		--no-default-extras) defx=''; shift ;;
		--) shift; extras+=("$@"); break ;;
		-*) gl_die "build-initramfs: unknown option $1" ;;
		*) extras+=("$1"); shift ;;
		esac
	done
	[ -n "$defx" ] && while read -r x; do extras=("$x" "${extras[@]+"${extras[@]}"}"); done < <(gl_default_extras)
	command -v busybox >/dev/null && gl_is_static "$(command -v busybox)" ||
		gl_die "static busybox missing (apt-get install busybox-static)"
	command -v cpio >/dev/null || gl_die "cpio missing (apt-get install cpio)"
	gl_kernel || gl_die "no kernel"
	[ -n "$out" ] || out=$CACHE/initramfs-custom.cpio.gz
	root=$(mktemp -d /tmp/vnet-initramfs.XXXXXX)
	# shellcheck disable=SC2064
	trap "rm -rf '$root'" EXIT
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc/vnet,proc,sys,dev,tmp,run,root,lib/modules/"$KVER"}
	cp "$(command -v busybox)" "$root/bin/busybox"
	for a in $(busybox --list); do
		[ "$a" = busybox ] || [ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
	done
	install -m 755 "$GL_DIR/init.sh" "$root/init"
	printf 'root:x:0:0:root:/root:/bin/sh\n' > "$root/etc/passwd"
	printf 'root:x:0:\n' > "$root/etc/group"
	printf '127.0.0.1 localhost\n' > "$root/etc/hosts"
	gl_modules "$root" "$load" "$inc" || gl_die "modules"
	for x in "${extras[@]+"${extras[@]}"}"; do
		src=${x%%:*}; dst=${x#*:}
		[ "$dst" = "$x" ] && dst=/bin/${src##*/}
		[ -e "$src" ] || src=$(command -v "$src") || gl_die "extra '$x' not found"
		if [ -d "$src" ]; then mkdir -p "$root$dst" && cp -a "$src/." "$root$dst/"
		else gl_copy_elf "$root" "$src" "$dst" || gl_die "copying $src"; fi
	done
	mkdir -p "$(dirname "$out")"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -1) > "$out.tmp.$$" &&
		mv "$out.tmp.$$" "$out" || gl_die "cpio"
	rm -rf "$root"; trap - EXIT
	gl_log "initramfs $out ($(du -h "$out" | cut -f1)) kernel $KVER modules: $GL_MODS_DONE ($((SECONDS - t0)) s)"
	echo "$out"
}

# gl_default_initrd - the cached default image, rebuilt when an input is newer
gl_default_initrd() {
	local img=$CACHE/initramfs.cpio.gz f stale=''
	if [ -f "$img" ]; then
		for f in "$GL_DIR/init.sh" "$GL_DIR/guest.sh" $(gl_default_extras); do
			[ "$f" -nt "$img" ] && stale=1
		done
	else
		stale=1
	fi
	if [ -n "$stale" ]; then
		( gl_build_initramfs -o "$img" ) > /dev/null || return 1
	fi
	echo "$img"
}

# ---- run ------------------------------------------------------------------------------
gl_mac_plus() { local l=$((16#${1##*:} + $2)); printf '%s:%02x' "${1%:*}" $((l & 255)); }

gl_run_cleanup() {
	if [ -n "${GL_QPID:-}" ] && kill -0 "$GL_QPID" 2>/dev/null; then
		kill -TERM "$GL_QPID" 2>/dev/null; sleep 0.5; kill -KILL "$GL_QPID" 2>/dev/null
	fi
	rm -f "${GL_TMP:-}" ${GL_GEN:+"$GL_GEN"}
}

gl_run() {
	local vus=() vu_server='' vu_reconnect='' queues=1 devopts='' vectors='' mac=52:54:00:12:34:01
	local ip='' ip1='' script='' run='' shell_='' append='' kernel='' initrd='' smp=2 mem=512
	local machine=q35 accel=tcg,thread=multi timeout=240 log='' pidfile='' extra=()
	while [ $# -gt 0 ]; do
		case "$1" in
		--vu) vus+=("$2"); shift 2 ;;
		--vu-server) vu_server=1; shift ;;
		--vu-reconnect) vu_reconnect=$2; shift 2 ;;
		--queues) queues=$2; shift 2 ;;
		--dev-opts) devopts=$2; shift 2 ;;
		--vectors) vectors=$2; shift 2 ;;
		--mac) mac=$2; shift 2 ;;
		--ip) ip=$2; shift 2 ;;
		--ip1) ip1=$2; shift 2 ;;
		--script) script=$2; shift 2 ;;
		--run) run=$2; shift 2 ;;
		--shell) shell_=1; shift ;;
		--append) append=$2; shift 2 ;;
		--kernel) kernel=$2; shift 2 ;;
		--initrd) initrd=$2; shift 2 ;;
		--smp) smp=$2; shift 2 ;;
		--mem) mem=$2; shift 2 ;;
		--machine) machine=$2; shift 2 ;;
		--accel) accel=$2; shift 2 ;;
		--timeout) timeout=$2; shift 2 ;;
		--log) log=$2; shift 2 ;;
		--pidfile) pidfile=$2; shift 2 ;;
		--) shift; extra=("$@"); break ;;
		*) gl_die "run: unknown option $1 (see --help)" ;;
		esac
	done
	local qemu=${VNET_QEMU:-qemu-system-x86_64} qmajor i=0 s dev chr cmdline rc st tmp gen=''
	command -v "$qemu" > /dev/null || gl_die "$qemu missing (apt-get install qemu-system-x86)"
	if [ -z "$kernel" ]; then gl_kernel || gl_die "no kernel"; kernel=$KERNEL; fi
	[ -n "$initrd" ] || initrd=$(gl_default_initrd) || gl_die "no initramfs"
	qmajor=$("$qemu" --version | awk 'NR==1{split($4, v, "."); print v[1] + 0}')
	local a=("$qemu" -name vnet-guest -nodefaults -no-user-config -display none -no-reboot
		-M "$machine" -accel "$accel" -cpu max -smp "$smp" -m "${mem}M"
		-kernel "$kernel" -initrd "$initrd")
	# vhost-user: the backend must be able to mmap guest RAM -> shared memfd
	[ ${#vus[@]} -gt 0 ] &&
		a+=(-object "memory-backend-memfd,id=mem0,size=${mem}M,share=on" -numa "node,memdev=mem0")
	for s in "${vus[@]+"${vus[@]}"}"; do
		chr="socket,id=vuc$i,path=$s"
		[ -n "$vu_server" ] && chr+=",server=on,wait=off"
		[ -n "$vu_reconnect" ] && [ -z "$vu_server" ] && chr+=",reconnect=$vu_reconnect"
		dev="virtio-net-pci,netdev=vun$i,mac=$(gl_mac_plus "$mac" $i)"
		[ "$queues" -gt 1 ] && dev+=",mq=on"
		if [ -n "$vectors" ]; then dev+=",vectors=$vectors"
		elif [[ "$accel" == tcg* ]] && [ "$qmajor" -lt 10 ]; then dev+=",vectors=0"
		else dev+=",vectors=$((2 * queues + 2))"; fi
		[ -n "$devopts" ] && dev+=",$devopts"
		a+=(-chardev "$chr" -netdev "vhost-user,id=vun$i,chardev=vuc$i,queues=$queues" -device "$dev")
		i=$((i + 1))
	done
	if [ -n "$run" ]; then
		gen=$(mktemp /tmp/vnet-guest-script.XXXXXX)
		printf '%s\n' "$run" > "$gen"; script=$gen
	fi
	[ -n "$script" ] && a+=(-fw_cfg "name=opt/vnet/script,file=$script")
	cmdline="console=ttyS0 panic=-1 quiet loglevel=4"
	[ -n "$ip" ] && cmdline+=" vnet.ip=$ip"
	[ -n "$ip1" ] && cmdline+=" vnet.ip1=$ip1"
	[ -n "$shell_" ] && cmdline+=" vnet.shell=1"
	[ -n "$append" ] && cmdline+=" $append"
	a+=(-append "$cmdline")
	if [ -n "$shell_" ]; then a+=(-serial mon:stdio); else a+=(-serial stdio); fi
	a+=("${extra[@]+"${extra[@]}"}")
	tmp=$(mktemp /tmp/vnet-guest-log.XXXXXX)
	GL_TMP=$tmp GL_GEN=$gen GL_QPID=''
	# killed ourselves (a test's cleanup, a timeout): take QEMU and the temp files along
	trap gl_run_cleanup EXIT
	trap 'exit 143' TERM INT
	gl_log "$(printf '%q ' "${a[@]}")"
	local t0=$SECONDS
	if [ -n "$shell_" ]; then
		timeout --foreground -k 5 "$timeout" "${a[@]}" 2>&1 | tee "$tmp"
		rc=${PIPESTATUS[0]}
	else
		# QEMU in the background so its PID is known (the caller may want to watch it)
		"${a[@]}" < /dev/null > "$tmp" 2>&1 &
		local qpid=$!
		GL_QPID=$qpid
		[ -n "$pidfile" ] && echo "$qpid" > "$pidfile"
		tail -f --pid="$qpid" -n +1 "$tmp" 2>/dev/null | tee ${log:+"$log"} &
		local tpid=$!
		local waited=0
		while kill -0 "$qpid" 2>/dev/null && [ "$waited" -lt $((timeout * 10)) ]; do
			sleep 0.1; waited=$((waited + 1))
		done
		if kill -0 "$qpid" 2>/dev/null; then
			kill -TERM "$qpid"; sleep 1; kill -KILL "$qpid" 2>/dev/null
			rc=124
		else
			wait "$qpid"; rc=$?
		fi
		wait "$tpid" 2>/dev/null
	fi
	st=$(grep -a -o 'VNET-GUEST-EXIT status=[0-9]*' "$tmp" | tail -n1 | cut -d= -f2)
	gl_log "qemu rc=$rc wall=$((SECONDS - t0))s guest-status=${st:-none}"
	GL_QPID=''
	rm -f "$tmp" ${gen:+"$gen"}
	[ "$rc" = 124 ] && { gl_log "TIMEOUT after ${timeout}s"; return 124; }
	[ -n "$st" ] && return "$st"
	return 125
}

case "${1:-}" in
kernel) gl_kernel || exit 1; echo "$KVER $KERNEL $MODDIR" ;;
initrd) gl_default_initrd ;;
build-initramfs) shift; gl_build_initramfs "$@" ;;
run) shift; gl_run "$@" ;;
-h|--help|help) sed -n '2,/^set -uo/{/^#/s/^# \{0,1\}//p}' "$0" ;;
*) echo "usage: guest.sh kernel|initrd|build-initramfs|run ... (guest.sh --help)" >&2; exit 2 ;;
esac
