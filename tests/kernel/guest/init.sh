#!/bin/busybox sh
# /init of the test initramfs: runs the hmtt.ko checks and powers off.
# Values come from the kernel command line (unknown parameters land in the
# environment): ktest_base, ktest_size (the memmap= reservation), ktest_md5
# (of the virtio disk), ktest_disk_bytes.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
echo "HMTT-GUEST-UP kernel=$(uname -r) cpus=$(nproc) cmdline=$(cat /proc/cmdline)"
for m in $(cat /lib/modules/order); do
	insmod /lib/modules/$m.ko || echo "HMTT-TEST insmod_$m FAIL"
done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

# A guest that stops making progress says where: after 180 s (the checks
# need under a minute) the blocked tasks and every CPU's backtrace go to the
# console. The host tells such a guest from a frozen emulator by this line.
(sleep 180; echo 8 > /proc/sys/kernel/printk
 echo "HMTT-WATCHDOG $(cut -d' ' -f1 /proc/uptime)"
 echo w > /proc/sysrq-trigger; echo l > /proc/sysrq-trigger) &

M=/lib/modules/hmtt.ko
if [ "$ktest_mode" = cfgspy ]; then
	# Second boot, under the cfgspy TCG plugin that records every access
	# to the config space: I-Codes from user space, then a window of
	# probe records (the 16 KiB buffers overflow) dumped for the host.
	spystep() { echo "HMTT-SPYSTEP $* $(cut -d' ' -f1 /proc/uptime)"; }
	spystep insmod
	insmod $M base=$ktest_base size=$ktest_size buf_kb=16
	spystep icode
	/bin/hmtt-ktest icode
	spystep drain
	/bin/hmttctl logs > /dev/null
	spystep probes-on
	/bin/hmttctl probes syscall,sched
	spystep traced-dd
	sh -c '/bin/hmttctl trace $$ && exec dd if=/dev/zero of=/dev/null bs=1 count=1500 2>/dev/null'
	spystep probes-off
	/bin/hmttctl probes none
	/bin/hmttctl untrace all
	spystep dump
	/bin/hmttctl --json status | sed 's/^/HMTT-STATUS-SPY /'
	echo "HMTT-RAWLOG-BEGIN"
	/bin/hmttctl logs --raw | base64
	echo "HMTT-RAWLOG-END"
	spystep rmmod
	rmmod hmtt
	echo HMTT-TIER-DONE
	poweroff -f
fi
T=/bin/hmtt-ktest
B=$ktest_base
S=$ktest_size
P="base=$B size=$S"
step() { echo "HMTT-STEP $* $(cut -d' ' -f1 /proc/uptime)"; }

step start
echo "--- /proc/iomem (top level) ---"
grep -v '^ ' /proc/iomem
echo "--- end ---"

step refusals
$T load_no_reservation $M "base=0x10000000 size=$S" EADDRNOTAVAIL
$T load_partly_ram $M "base=$((B - 0x100000)) size=0x200000" EADDRNOTAVAIL
$T load_nothing_there $M "base=0x40000000 size=$S" ENXIO
$T load_overlap_in_use $M "base=0xb0000000 size=$S" EBUSY
$T load_unaligned $M "base=$((B + 16)) size=$S" EINVAL
$T load_too_small $M "base=$B size=0x1000" EINVAL
echo "--- dmesg of the refusals ---"
dmesg | grep 'hmtt:'
echo "--- end ---"

step cycles
$T cycles $M "$P" 100

step checks
insmod $M $P || echo "HMTT-TEST insmod_hmtt FAIL"
ls -l /dev/hmtt
grep -A1 -i reserved /proc/iomem | grep -B1 hmtt
/bin/hmttctl status
/bin/hmttctl --json status
$T icode
$T errors
$T probes
$T pagemap 256
$T thp
$T overhead
step dma
$T dma vda $ktest_disk_bytes
$T dma vda $((ktest_disk_bytes / 2)) buffered
sum=$(md5sum /dev/vda | cut -d' ' -f1)
if [ "$sum" = "$ktest_md5" ]; then r=PASS; else r=FAIL; fi
echo "HMTT-TEST disk_content $r md5=$sum want=$ktest_md5"
/bin/hmttctl probes sched,pte
/bin/hmttctl status
/bin/hmttctl probes none
/bin/hmttctl begin
/bin/hmttctl tag 7 0xabc
/bin/hmttctl end
/bin/hmttctl logs | tail -n 3
echo "--- syscall probe on this shell ---"
/bin/hmttctl trace $$
/bin/hmttctl probes syscall
read -r up _ < /proc/uptime
/bin/hmttctl probes none
/bin/hmttctl untrace all
/bin/hmttctl logs | head -n 8
echo "--- end ---"
# A raw log for the host-side decoder (hmtt logs): every probe on, a
# traced dd reading the virtio disk, the bytes base64-encoded.
/bin/hmttctl logs > /dev/null
/bin/hmttctl --json status | sed 's/^/HMTT-STATUS-BEFORE /'
/bin/hmttctl probes all
sh -c '/bin/hmttctl trace $$ && exec dd if=/dev/vda of=/dev/null bs=65536 count=8 2>/dev/null'
/bin/hmttctl probes none
/bin/hmttctl untrace all
/bin/hmttctl --json status | sed 's/^/HMTT-STATUS-AFTER /'
echo "HMTT-RAWLOG-BEGIN"
/bin/hmttctl logs --raw | base64
echo "HMTT-RAWLOG-END"
rmmod hmtt

step printk
insmod $M $P buf_kb=16
$T printk 2 400 0
$T printk 2 400 1
$T kprintk /lib/modules/hmtt_stress.ko 2000 200
dmesg | grep hmtt_stress
# Unload with every probe attached and a pid traced: the exit path detaches.
/bin/hmttctl trace $$
/bin/hmttctl probes all
ls /proc > /dev/null
if rmmod hmtt && ! grep -q ': hmtt$' /proc/iomem; then r=PASS; else r=FAIL; fi
echo "HMTT-TEST unload_with_probes $r"

step cache
insmod $M $P cache_control=1
$T cache
rmmod hmtt

step group
insmod $M $P group=1000
chgrp 1000 /dev/hmtt
ls -l /dev/hmtt
$T group 1000
rmmod hmtt

step dmesg
dmesg > /tmp/dmesg
bad=$(grep -cE 'WARNING:|BUG:|Call Trace|general protection|Oops|refcount_t:|list_(add|del) corruption|ioremap on RAM' /tmp/dmesg)
if [ "$bad" = 0 ]; then r=PASS; else r=FAIL; grep -E -A20 'WARNING:|BUG:|Call Trace|Oops' /tmp/dmesg | head -60; fi
echo "HMTT-TEST dmesg_clean $r suspicious_lines=$bad hmtt_lines=$(grep -c 'hmtt' /tmp/dmesg)"
step end
echo HMTT-TIER-DONE
poweroff -f
