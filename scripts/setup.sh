#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# scripts/setup.sh — prepare a Debian 12 machine to build, run and test slicepath.
#
#   1. installs the Debian packages slicepath needs (skipped when all are present),
#   2. reserves 2 MiB hugepages and mounts hugetlbfs; where that is impossible
#      (a container without hugepage support) it records the EAL fallback
#      "--no-huge -m 1024" in build/eal-extra-args for the other scripts,
#   3. configures (meson) and builds (ninja) into build/,
#   4. links the commands the guides use by name (slicectl, slicepath-plot...) into
#      /usr/local/bin, pointing into this tree (scripts/link-commands.sh).
#
# Idempotent; run it as root. Environment:
#   CI=true                  build with -Dwerror=true
#   SLICEPATH_HUGEPAGES=N    2 MiB pages to reserve (default 512; 0 = never use hugepages)
#   SLICEPATH_SKIP_APT=1     do not touch packages at all
#   SLICEPATH_BUILD_DIR=DIR  build directory (default: <repo>/build)
#   SLICEPATH_BIN_DIR=DIR    where scripts/link-commands.sh links the tree's commands
#                            (default /usr/local/bin)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${SLICEPATH_BUILD_DIR:-$ROOT/build}"
HUGEPAGES="${SLICEPATH_HUGEPAGES:-512}"
HP_SYSFS=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
HP_MOUNT=/dev/hugepages
FALLBACK_ARGS="--no-huge -m 1024"

# Everything installed comes from Debian's own archive.
PACKAGES=(
	build-essential meson ninja-build pkgconf      # toolchain
	git                                            # tests/integration/test_deb.py builds the .debs from a copy
	libdpdk-dev dpdk dpdk-dev                      # DPDK 22.11, PMDs, dpdk-testpmd, dpdk-telemetry.py
	dpdk-doc                                       # DPDK example sources (l3fwd, for tools/bench-pipeline.sh)
	libjansson-dev libevent-dev libpcap-dev        # libraries the daemons link
	libsqlite3-dev                                 # slicectld's store
	libcurl4-openssl-dev                           # the fleet's registry: etcd's JSON gateway
	etcd-server etcd-client                        # tests/integration/test_fleet.py starts its own, etcdctl sets up its users
	libcmocka-dev                                  # unit tests
	clang llvm                                     # fuzz targets (libFuzzer runtime), eBPF code options
	libbpf-dev                                     # the bpf code option opens eBPF objects
	libhyperscan-dev                               # the dpi code option's regular expressions
	python3 python3-scapy python3-pytest           # integration tests, demo traffic, telemetry client
	python3-matplotlib                             # slicepath-bench plots
	python3-prometheus-client                      # tests parse the metrics as Prometheus does
	tmux                                           # tests drive slicectl top in a terminal
	openssh-server                                 # tests reach an sshd through a DPDK-owned port
	iperf3 ethtool                                 # tools/bench-hostslice.py: a host slice against veth
	iproute2 procps adduser                        # ip netns, kill/pgrep, delgroup (not in every install)
	openssl curl                                   # test_fleet.py's TLS certificates; tests/systemd-vm/
	systemd                                        # systemctl, journalctl, systemd-analyze (test_notify.py, test_deb.py)
	valgrind                                       # tools/bench-pipeline.sh -I counts instructions
	linux-perf                                     # tools/bench-pipeline.sh -P: where the lcore's time goes
	tcpdump                                        # docs/guide-operator.md reads what dpdk-dumpcap captured
	debhelper                                      # debian/: the .deb packages
)

log() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }
is_root() { [ "$(id -u)" -eq 0 ]; }

install_packages() {
	if [ "${SLICEPATH_SKIP_APT:-0}" = 1 ]; then
		log "SLICEPATH_SKIP_APT=1: not checking packages"
		return
	fi
	local missing=() p status
	for p in "${PACKAGES[@]}"; do
		status="$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)"
		[ "$status" = installed ] || missing+=("$p")
	done
	if [ "${#missing[@]}" -eq 0 ]; then
		log "all ${#PACKAGES[@]} Debian packages already installed"
		return
	fi
	is_root || die "packages missing (${missing[*]}); run as root: sudo $0"
	if ! grep -qs '^VERSION_ID="12"' /etc/os-release; then
		log "warning: this is not Debian 12; package names may differ"
	fi
	log "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q "${missing[@]}"
}

# Prints nothing and returns 0 when hugepages are usable, else the reason.
setup_hugepages() {
	[ "$HUGEPAGES" -gt 0 ] 2>/dev/null || { echo "SLICEPATH_HUGEPAGES=$HUGEPAGES"; return 1; }
	is_root || { echo "not root"; return 1; }
	[ -w "$HP_SYSFS" ] || { echo "$HP_SYSFS is not writable (no hugepage support here)"; return 1; }
	local have
	have="$(cat "$HP_SYSFS")"
	if [ "$have" -lt "$HUGEPAGES" ]; then
		echo "$HUGEPAGES" >"$HP_SYSFS" 2>/dev/null || true
		have="$(cat "$HP_SYSFS")"
	fi
	# Need at least half the request to be worth using (the kernel may give fewer).
	[ "$have" -ge $((HUGEPAGES / 2)) ] || { echo "the kernel granted only $have of $HUGEPAGES 2 MiB pages"; return 1; }
	if ! grep -qs " $HP_MOUNT hugetlbfs " /proc/mounts; then
		mkdir -p "$HP_MOUNT" 2>/dev/null || true
		mount -t hugetlbfs nodev "$HP_MOUNT" 2>/dev/null || { echo "cannot mount hugetlbfs on $HP_MOUNT"; return 1; }
	fi
	return 0
}

build() {
	local werror=false
	[ "${CI:-}" = true ] && werror=true
	if [ -f "$BUILD_DIR/build.ninja" ]; then
		# Reconfigure (keeps the options): picks up test files added since the last run.
		local opts=()
		[ "$werror" = true ] && opts+=(-Dwerror=true)
		log "meson setup --reconfigure $BUILD_DIR ${opts[*]:-}"
		meson setup --reconfigure "$BUILD_DIR" "$ROOT" "${opts[@]}" >"$BUILD_DIR/meson-reconfigure.log" 2>&1 \
			|| { cat "$BUILD_DIR/meson-reconfigure.log" >&2; die "meson setup --reconfigure failed"; }
	else
		log "meson setup $BUILD_DIR (werror=$werror)"
		meson setup "$BUILD_DIR" "$ROOT" -Dwerror="$werror"
	fi
	log "ninja -C $BUILD_DIR"
	ninja -C "$BUILD_DIR"
	[ -x "$BUILD_DIR/slicepathd" ] || die "build finished but $BUILD_DIR/slicepathd is missing"
}

install_packages

if reason="$(setup_hugepages)"; then
	hp_args=""
	log "hugepages: $(cat "$HP_SYSFS") x 2 MiB reserved, hugetlbfs on $HP_MOUNT"
else
	hp_args="$FALLBACK_ARGS"
	log "hugepages unavailable ($reason): slicepathd will run with the EAL fallback '$FALLBACK_ARGS'"
fi

build

# The other scripts append the contents of this file to the daemon's EAL arguments.
printf '%s\n' "$hp_args" >"$BUILD_DIR/eal-extra-args"
bash "$ROOT/scripts/link-commands.sh" "${SLICEPATH_BIN_DIR:-/usr/local/bin}"
log "done: $BUILD_DIR/slicepathd (EAL extra args: '${hp_args}')"
