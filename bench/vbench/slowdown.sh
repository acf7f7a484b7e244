#!/usr/bin/env bash
# The virtual bench's cost (issue: slowdown of the guest under the plugin <= 10x):
# the same guest run (boot, the workloads, power-off) without and then with the
# hmtt_llc plugin, wall time of QEMU each, and the ratio. Prints one JSON line.
#
# usage: bench/vbench/slowdown.sh BUILD_DIR [WORKLOADS]
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
export VBENCH_WORKLOADS=${2:-seq-read:4194304,seq-write:4194304,read-after-write:2097152,random-read:4194304:32768,quicksort:262144}
export HMTT_KERNEL_CACHE=$build/kernel-tier/cache VBENCH_QUIET=1
work=$build/vbench-slowdown
VBENCH_PLUGIN=0 "$src/sim/qemu/vbench.sh" "$src" "$work/without" "$build/apps/hmtt/hmtt"
VBENCH_PLUGIN=1 "$src/sim/qemu/vbench.sh" "$src" "$work/with" "$build/apps/hmtt/hmtt"
without=$(cat "$work/without/boot_ns")
with=$(cat "$work/with/boot_ns")
accesses=$(sed -n 's/.*"accesses": \([0-9]*\).*/\1/p' "$work/with/llc.json")
load=$(cut -d' ' -f1-3 /proc/loadavg)
awk -v a="$without" -v b="$with" -v n="$accesses" -v load="$load" -v w="$VBENCH_WORKLOADS" 'BEGIN {
	printf "{\"workloads\": \"%s\", \"guest_s_without_plugin\": %.2f, \"guest_s_with_plugin\": %.2f, \"slowdown\": %.2f, \"guest_memory_accesses\": %d, \"ns_per_access\": %.1f, \"target\": \"<= 10\", \"loadavg\": \"%s\"}\n",
		w, a / 1e9, b / 1e9, b / a, n, (b - a) / n, load }'
