#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/systemd-vm/run.sh — the packages' systemd units in a Debian 12 guest with real systemd.
#
#   sudo tests/systemd-vm/run.sh [--debs DIR] [--work DIR] [--setup nic|no-nic]
#                                [--accel kvm|tcg] [--timeout SECONDS] [--mirror URL]
#
# Builds the .debs from `git archive HEAD` of this repository (uncommitted changes are not
# in them), debootstraps a bookworm root into the work directory (once: later runs reuse
# it), installs the .debs' dependencies into it, makes a disk image and boots a copy of it
# under QEMU for each network set-up:
#
#   nic      a NIC with a static IPv4 address, as on a server
#   no-nic   no NIC: lo and the installed config's tap sp0 (IPv6 link-local) only
#
# In the guest, guest-test.sh installs the .debs and uses the units as a sysadmin does,
# reboots once, and powers off. Prints every set-up's verdicts and exits 0 only if none
# is FAIL.
#
#   --debs DIR       test slicepath_*.deb and slicepath-dev_*.deb from DIR instead
#   --work DIR       guest root, images and logs (default /var/tmp/slicepath-systemd-vm;
#                    remove it to debootstrap afresh)
#   --setup NAME     only this set-up (default both)
#   --accel kvm|tcg  default kvm where /dev/kvm is usable, else tcg
#   --timeout S      seconds one guest run (two boots) may take (default 900)
#   --mirror URL     debootstrap's mirror (default http://deb.debian.org/debian)
#
# Needs root on Debian 12, the Debian mirror (the guest gets its packages from the host's
# apt sources), and installs qemu-system-x86 and debootstrap when missing (not with
# SLICEPATH_SKIP_APT=1); building needs the packages scripts/setup.sh installs. About 6
# minutes under TCG on two cores, 2 of them the first debootstrap.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
WORK=/var/tmp/slicepath-systemd-vm
DEBS=""
SETUPS=(nic no-nic)
ACCEL=""
TIMEOUT=900
MIRROR=http://deb.debian.org/debian
PACKAGES=(qemu-system-x86 debootstrap e2fsprogs)

log() { printf '[systemd-vm] %s\n' "$*"; }
die() { printf '[systemd-vm] ERROR: %s\n' "$*" >&2; exit 1; }
usage() { awk 'NR > 3 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"; }
value() { [ $# -ge 2 ] || die "$1 needs a value (-h for help)"; }

while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) usage; exit 0 ;;
	--debs) value "$@"; DEBS="$(realpath "$2")" ;;
	--work) value "$@"; WORK="$(realpath -m "$2")" ;;
	--setup) value "$@"; [[ "$2" =~ ^(nic|no-nic)$ ]] || die "--setup nic or no-nic"; SETUPS=("$2") ;;
	--accel) value "$@"; [[ "$2" =~ ^(kvm|tcg)$ ]] || die "--accel kvm or tcg"; ACCEL="$2" ;;
	--timeout) value "$@"; [[ "$2" =~ ^[0-9]+$ ]] || die "--timeout SECONDS"; TIMEOUT="$2" ;;
	--mirror) value "$@"; MIRROR="$2" ;;
	*) usage >&2; exit 2 ;;
	esac
	shift 2
done

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mkfs): sudo $0"

# As scripts/setup.sh does: install what is missing, from Debian's archive.
install_packages() {
	local missing=() p status
	for p in "${PACKAGES[@]}"; do
		status="$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)"
		[ "$status" = installed ] || missing+=("$p")
	done
	[ "${#missing[@]}" -gt 0 ] || return 0
	[ "${SLICEPATH_SKIP_APT:-0}" != 1 ] || die "missing packages: apt-get install ${missing[*]}"
	log "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# The guest boots with -kernel: no GUI or UEFI firmware.
	apt-get install -y -q --no-install-recommends "${missing[@]}"
}

build_debs() {
	local src="$WORK/build"
	rm -rf "$src"
	mkdir -p "$src/slicepath"
	git -C "$REPO" archive HEAD | tar -x -C "$src/slicepath"
	log "building the .debs of $(git -C "$REPO" log -1 --format='%h %s' | cut -c1-60) (log: $src/build.log)"
	(cd "$src/slicepath" && DEB_BUILD_OPTIONS="parallel=$(nproc)" dpkg-buildpackage -b -us -uc) \
		>"$src/build.log" 2>&1 ||
		{ tail -n 20 "$src/build.log" >&2; die "dpkg-buildpackage failed (build dependencies: sudo scripts/setup.sh)"; }
	DEBS="$src"
}

# A bookworm root with systemd and a kernel; made once, reused by later runs.
make_root() {
	[ ! -e "$WORK/root.done" ] || return 0
	rm -rf "$WORK/root"
	log "debootstrap bookworm into $WORK/root (log: $WORK/debootstrap.log)"
	debootstrap --variant=minbase \
		--include=systemd-sysv,linux-image-amd64,initramfs-tools,udev,dbus,iproute2,procps,kmod,curl \
		bookworm "$WORK/root" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$WORK/debootstrap.log" >&2; die "debootstrap failed"; }
	touch "$WORK/root.done"
}

# The guest has no mirror: its dependencies come in now, from the host's apt sources (the
# versions the .debs were built against), with dpdk-dev, which slicepath suggests, for
# dpdk-dumpcap. Then the .debs and the check go in.
prepare_root() {
	local r="$WORK/root" deps
	deps="$(for d in "$DEBS"/slicepath_*.deb "$DEBS"/slicepath-dev_*.deb; do dpkg-deb -f "$d" Depends; done |
		tr ',' '\n' | sed 's/^ *//' | grep -v '^slicepath\( \|$\)' | paste -sd,)"
	rm -rf "$r/etc/apt/sources.list" "$r/etc/apt/sources.list.d"
	cp -a /etc/apt/sources.list.d "$r/etc/apt/"
	[ ! -e /etc/apt/sources.list ] || cp /etc/apt/sources.list "$r/etc/apt/"
	log "installing the .debs' dependencies into the guest root (log: $WORK/prepare.log)"
	mount -t proc proc "$r/proc"
	# No service starts inside the chroot.
	printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d"
	chmod +x "$r/usr/sbin/policy-rc.d"
	trap 'umount "$WORK/root/proc"; rm -f "$WORK/root/usr/sbin/policy-rc.d"' EXIT
	{ chroot "$r" apt-get update -q &&
		DEBIAN_FRONTEND=noninteractive chroot "$r" apt-get satisfy -y -q "$deps, dpdk-dev" &&
		chroot "$r" apt-get clean; } >"$WORK/prepare.log" 2>&1 ||
		{ tail -n 20 "$WORK/prepare.log" >&2; die "installing the dependencies into the guest root failed"; }
	umount "$r/proc"
	rm -f "$r/usr/sbin/policy-rc.d"
	trap - EXIT

	rm -rf "$r/root/debs"
	mkdir -p "$r/root/debs"
	cp "$DEBS"/slicepath_*.deb "$DEBS"/slicepath-dev_*.deb "$r/root/debs/"
	install -m 0755 "$HERE/guest-test.sh" "$r/usr/local/sbin/guest-test.sh"
	install -m 0644 "$HERE/guest-test.service" "$r/etc/systemd/system/guest-test.service"
	ln -sf ../guest-test.service "$r/etc/systemd/system/multi-user.target.wants/guest-test.service"
	echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' >"$r/etc/fstab"
	echo slicepath-vm >"$r/etc/hostname"
	# The nic set-up's NIC (QEMU's user network), configured like a server's.
	printf '[Match]\nName=en*\n\n[Network]\nAddress=10.0.2.15/24\nGateway=10.0.2.2\n' \
		>"$r/etc/systemd/network/10-nic.network"
	chroot "$r" systemctl enable -q systemd-networkd
	# The serial port carries the check's output, not a login prompt.
	ln -sf /dev/null "$r/etc/systemd/system/serial-getty@ttyS0.service"
}

make_image() {
	rm -f "$WORK/guest.img"
	truncate -s 4G "$WORK/guest.img"
	mkfs.ext4 -q -F -L slicepath-vm -d "$WORK/root" "$WORK/guest.img"
	cp -L "$WORK/root/vmlinuz" "$WORK/root/initrd.img" "$WORK/"
}

# boot SETUP: one guest run (check, reboot, check, power off) on a fresh copy of the image.
boot() {
	local img="$WORK/$1.img" nic=(-nic none) accel=(-accel tcg -cpu max)
	[ "$1" = no-nic ] || nic=(-nic user,model=virtio-net-pci,restrict=on)
	[ "$ACCEL" = tcg ] || accel=(-accel kvm -cpu host)
	cp --sparse=always "$WORK/guest.img" "$img"
	log "$1: booting ($ACCEL, serial log: $WORK/$1-serial.log)"
	# Two vCPUs: the installed config forwards on lcore 1.
	timeout "$TIMEOUT" nice -n 10 qemu-system-x86_64 "${accel[@]}" -m 2048 -smp 2 \
		-nodefaults -display none -serial "file:$WORK/$1-serial.log" \
		-kernel "$WORK/vmlinuz" -initrd "$WORK/initrd.img" \
		-append "root=/dev/vda rw console=ttyS0 quiet" \
		-drive "file=$img,if=virtio,format=raw" "${nic[@]}" ||
		log "$1: qemu exited with status $? (124: --timeout $TIMEOUT reached)"
	tr -d '\r' <"$WORK/$1-serial.log" | grep -aoE 'RESULT [a-z0-9-]+ (PASS|FAIL|INFO)( .*)?$' \
		>"$WORK/$1-results.txt" || true
	grep -q '^RESULT guest-finished PASS' "$WORK/$1-results.txt" ||
		echo "RESULT guest-finished FAIL no power-off after both phases: see $WORK/$1-serial.log" \
			>>"$WORK/$1-results.txt"
}

install_packages
mkdir -p "$WORK"
exec 9>"$WORK/lock"
flock -n 9 || die "another run is using $WORK"
if [ -z "$ACCEL" ]; then
	# PVM (module kvm_pvm, the nested hypervisor of some cloud VMs) hangs Debian's kernel
	# right after decompression.
	if [ -w /dev/kvm ] && [ ! -d /sys/module/kvm_pvm ]; then ACCEL=kvm; else ACCEL=tcg; fi
fi

t0=$SECONDS
if [ -z "$DEBS" ]; then build_debs; fi
compgen -G "$DEBS/slicepath_*.deb" >/dev/null && compgen -G "$DEBS/slicepath-dev_*.deb" >/dev/null ||
	die "no slicepath_*.deb and slicepath-dev_*.deb in $DEBS"
t1=$SECONDS
make_root
prepare_root
make_image
t2=$SECONDS
for s in "${SETUPS[@]}"; do
	boot "$s"
done
t3=$SECONDS

results=()
for s in "${SETUPS[@]}"; do
	results+=("$WORK/$s-results.txt")
	while read -r _ check verdict evidence; do
		printf '%-7s %-30s %-4s %s\n' "$s" "$check" "$verdict" "$evidence"
	done <"$WORK/$s-results.txt"
done
fails=$(cat "${results[@]}" | grep -c '^RESULT [^ ]* FAIL' || true)
log "$fails FAIL; $((t1 - t0)) s to build, $((t2 - t1)) s for the guest root and image, $((t3 - t2)) s in the guest (${SETUPS[*]})"
[ "$fails" -eq 0 ]
