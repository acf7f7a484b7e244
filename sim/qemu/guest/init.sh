#!/bin/busybox sh
# /init of the virtual bench's guest: loads hmtt.ko on the reserved config
# space, switches the page-map and DMA probes on, runs each workload of
# vbench_workloads= (NAME:ARG[:ARG],...) traced from its exec on, dumps the
# module's log for the host and powers off.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
echo "HMTT-VBENCH-UP kernel=$(uname -r) cpus=$(nproc)"
for m in $(cat /lib/modules/order); do
	insmod /lib/modules/$m.ko || echo "HMTT-VBENCH-FAIL insmod $m"
done
i=0
while { [ ! -b /dev/vda ] || [ ! -b /dev/vdb ]; } && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
insmod /lib/modules/hmtt.ko base=$vbench_base size=$vbench_size buf_kb=4096 ||
	{ echo "HMTT-VBENCH-FAIL insmod"; poweroff -f; }
/bin/hmttctl --json status | sed 's/^/HMTT-VBENCH-STATUS /'
/bin/hmttctl probes pte,dma
for w in $(echo "$vbench_workloads" | tr ',' ' '); do
	args=$(echo "$w" | tr ':' ' ')
	# Trace this shell's pid, then exec the workload in it: every page of
	# the new image is logged from its first fault on.
	sh -c "/bin/hmttctl trace \$\$ && exec /bin/hmtt-vbench $args" ||
		echo "HMTT-VBENCH-FAIL workload $w"
done
/bin/hmttctl probes none
/bin/hmttctl untrace all
echo "HMTT-RAWLOG-BEGIN"
/bin/hmttctl logs --raw | base64
echo "HMTT-RAWLOG-END"
echo "HMTT-VBENCH-DONE-ALL"
poweroff -f
