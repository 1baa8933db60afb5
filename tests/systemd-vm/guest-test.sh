#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# In the guest of tests/systemd-vm/run.sh, at boot (guest-test.service): installs the .debs
# in /root/debs and uses the units as docs/guide-sysadmin.md and docs/running.md tell a
# sysadmin to. Phase 1 ends by enabling both units and rebooting; phase 2 checks them after
# that boot, removes and purges the packages and powers off.
#
# Commands, their output and the verdicts, one line each as "RESULT <check> PASS|FAIL|INFO
# <evidence>", go to the console, the serial port that run.sh logs on the host (so they are
# there even if the guest hangs). The guest has no route to a mirror: the packages'
# dependencies are installed already.

PHASE2=/var/lib/guest-test.phase2
CONF=/etc/slicepath/slicepathd.json
UNITS=(slicepathd slicectld)
export DEBIAN_FRONTEND=noninteractive

run() { echo "+ $*"; "$@"; }
# result CHECK STATUS EVIDENCE: PASS when STATUS is 0.
result() {
	local v=FAIL
	[ "$2" = 0 ] && v=PASS
	echo "RESULT $1 $v ${3//$'\n'/ }"
}
info() { echo "RESULT $1 INFO ${2//$'\n'/ }"; }
prop() { systemctl show -p "$2" --value "$1"; }
props() { systemctl show -p "$2" "$1" | tr '\n' ' '; }
state() { systemctl "$1" "${UNITS[@]}" | xargs; }
# wait_until SECONDS COMMAND...: polls, since TCG makes every step slow by a varying amount.
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt "$end" ] || return 1
		sleep 0.5
	done
}
# restarted UNIT NRESTARTS: systemd restarted it since and the new process is ready. (Not
# "MainPID changed": it reads 0 between the death and the restart.)
restarted() { [ "$(prop "$1" NRestarts)" -gt "$2" ] && [ "$(prop "$1" ActiveState)" = active ]; }
in_force() { slicectl slice list | grep -q "^$1 .*in force$"; }

phase1() {
	cd /root/debs || exit 1
	run apt-get install -y ./slicepath_*.deb ./slicepath-dev_*.deb
	result install $? "apt-get install ./slicepath_*.deb ./slicepath-dev_*.deb, offline"
	local out rc en act pid nr free1 free2
	out=$(getent group slicepath)
	result group $? "$out"
	en=$(state is-enabled) act=$(state is-active)
	[ "$en / $act" = "disabled disabled / inactive inactive" ]
	result installed-disabled-stopped $? "is-enabled: $en; is-active: $act"

	out=$(slicepathd -c $CONF --check-config 2>&1)
	result check-config $? "$out"

	for u in "${UNITS[@]}"; do
		run systemctl start "$u"
		rc=$?
		[ $rc = 0 ] && [ "$(prop "$u" ActiveState)" = active ] && [ -n "$(prop "$u" StatusText)" ]
		result start-"$u" $? "rc=$rc $(props "$u" ActiveState,SubState,StatusText)"
	done
	info network "$(ip -br addr | tr -s ' ')"

	run slicectl iface
	result slicectl-iface-root $? "slicectl iface as root"
	useradd -m alice && usermod -aG slicepath alice && useradd -m bob
	run runuser -u alice -- slicectl slice create alice1 codeopt ipv4 owner alice filters 1024 memory 4096 bandwidth 200M
	result member-creates-slice $? "alice (group slicepath) created alice1"
	out=$(runuser -u bob -- slicectl slice create bob1 codeopt ipv4 owner bob filters 16 2>&1)
	rc=$?
	echo "$out"
	[ $rc != 0 ]
	result non-member-refused $? "bob: rc=$rc: $out"

	out=$(curl -s -m 10 http://127.0.0.1:9464/metrics)
	grep -q '^slicepath_up 1$' <<<"$out"
	result metrics $? "127.0.0.1:9464/metrics: $(grep -c . <<<"$out") lines, $(grep -m1 '^slicepath_up' <<<"$out")"

	# The unit unsets RUNTIME_DIRECTORY so that DPDK's files are where its tools look.
	[ -S /run/dpdk/slicepath/dpdk_telemetry.v2 ] && [ ! -e /run/slicepath/dpdk ]
	result dpdk-runtime-dir $? "/run/dpdk/slicepath: $(ls /run/dpdk/slicepath 2>&1 | xargs)"

	for u in "${UNITS[@]}"; do
		pid=$(prop "$u" MainPID) nr=$(prop "$u" NRestarts)
		# (MainPID 0, a daemon not running, must not become "kill -9 0".)
		[ "$pid" != 0 ] && run kill -9 "$pid" && wait_until 60 restarted "$u" "$nr"
		result kill9-restarts-"$u" $? "pid $pid -> $(prop "$u" MainPID), $(props "$u" ActiveState,NRestarts)"
	done

	run systemctl stop slicectld slicepathd
	rc=$?
	out="$(prop slicepathd ExecMainStatus) $(prop slicepathd Result) $(prop slicectld ExecMainStatus) $(prop slicectld Result)"
	[ $rc = 0 ] && [ "$out" = "0 success 0 success" ]
	result stop-clean $? "rc=$rc; ExecMainStatus and Result of slicepathd, slicectld: $out"

	run systemctl start slicectld
	act=$(state is-active)
	[ "$act" = "active active" ]
	result slicectld-pulls-in-slicepathd $? "systemctl start slicectld; is-active: $act"
	run systemctl stop slicectld slicepathd

	# Exit status 1 (bad config) must not be restarted: RestartSec=2, so a restart would
	# show within the 6 s waited.
	cp -a $CONF /root/good.json
	sed -i 's/"ipv4": "10.0.0.1"/"ipv4": "10.0.0.300"/' $CONF
	run systemctl start slicepathd
	rc=$?
	sleep 6
	out=$(journalctl -b -u slicepathd -o cat | grep -m1 'ports\[0\]\.ipv4')
	[ $rc != 0 ] && [ "$(prop slicepathd ActiveState)" = failed ] &&
		[ "$(prop slicepathd NRestarts)" = 0 ] && [ -n "$out" ]
	result broken-config-not-restarted $? "start rc=$rc, $(props slicepathd ActiveState,ExecMainStatus,NRestarts)journal: $out"
	cp -a /root/good.json $CONF
	systemctl reset-failed slicepathd
	run systemctl start slicepathd
	result config-restored $? "$(props slicepathd ActiveState,NRestarts)"

	# Hugepages as in the guide's section 3 (256 pages, not 2048: the guest has 2 GiB);
	# dpdk-dumpcap, a secondary process, needs them.
	echo 'vm.nr_hugepages = 256' >/etc/sysctl.d/80-slicepath.conf
	run sysctl -q --system
	sed -i 's/, "--no-huge", "-m", "512"//' $CONF
	free1=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	run systemctl restart slicepathd
	rc=$?
	free2=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	[ $rc = 0 ] && [ "$free2" -lt "$free1" ]
	result hugepages $? "restart rc=$rc, HugePages_Free $free1 -> $free2, $(grep '"eal"' $CONF | tr -d '\t')"
	if command -v dpdk-dumpcap >/dev/null; then
		out=$(timeout 60 dpdk-dumpcap --file-prefix slicepath -D 2>&1)
		rc=$?
		echo "$out"
		result dpdk-dumpcap $rc "dpdk-dumpcap --file-prefix slicepath -D: rc=$rc: $(grep -v 'not driven by\|cannot be used' <<<"$out")"
	else
		info dpdk-dumpcap "not checked: dpdk-dev is not installed"
	fi

	run systemctl enable slicepathd slicectld
	result enable $? "is-enabled: $(state is-enabled)"
	touch $PHASE2
	sync
	systemctl reboot
}

phase2() {
	local act nr out links pids after
	act=$(state is-active)
	nr="$(prop slicepathd NRestarts) $(prop slicectld NRestarts)"
	[ "$act" = "active active" ] && [ "$nr" = "0 0" ]
	result active-after-reboot $? "is-active: $act; NRestarts: $nr; $(props slicectld StatusText)"
	info network-after-reboot "$(ip -br addr | tr -s ' ')"
	wait_until 30 in_force alice1
	result slice-restored-after-reboot $? "slicectl slice list: $(slicectl slice list 2>&1 | grep alice1 | tr -s ' ')"

	# An upgrade (a reinstall looks the same to the maintainer scripts) leaves running
	# daemons alone: the sysadmin restarts them when traffic allows (guide, section 7).
	pids="$(prop slicepathd MainPID) $(prop slicectld MainPID)"
	(cd /root/debs && run apt-get install -y --reinstall ./slicepath_*.deb)
	after="$(prop slicepathd MainPID) $(prop slicectld MainPID)"
	[ "$pids" = "$after" ] && [ "$(state is-active)" = "active active" ]
	result upgrade-keeps-daemons $? "MainPID before $pids, after $after; is-active: $(state is-active)"

	run apt-get remove -y slicepath-dev slicepath
	# One name each: pgrep matches nothing with a pattern longer than a process name can be.
	out=$(pgrep -ax slicepathd; pgrep -ax slicectld)
	[ -z "$out" ]
	result remove-stops-daemons $? "${out:-no slicepathd or slicectld process}; is-active: $(state is-active)"
	run apt-get purge -y slicepath
	links=$(find /etc/systemd/system -name 'slicepathd.service' -o -name 'slicectld.service')
	[ -z "$links" ]
	result purge-removes-enable-links $? "${links:-none left under /etc/systemd/system}"
	[ ! -e /var/lib/slicepath ]
	result purge-removes-state $? "$(ls -d /var/lib/slicepath 2>&1)"
}

if [ -e $PHASE2 ]; then
	rm -f $PHASE2
	phase2
	result guest-finished 0 "both phases ran"
	sync
	systemctl poweroff
else
	phase1
fi
