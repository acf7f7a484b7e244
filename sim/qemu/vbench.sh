#!/usr/bin/env bash
# The virtual bench's guest half (docs/vbench.md; `hmtt vbench` runs it, then
# the host half). Builds hmtt.ko, the guest workloads and an initramfs, boots
# Debian's kernel under QEMU/TCG with the hmtt_llc plugin (guest physical
# accesses through a last-level-cache model: what a DIMM sees) and a virtio
# disk, and leaves in WORK_DIR: llc.csv (the trace), llc.json (the model's
# counts), guest.hlog (the kernel module's log), console.txt, nsync, config_base.
#
# usage: vbench.sh SOURCE_DIR WORK_DIR HMTT_BINARY
# env:   VBENCH_WORKLOADS  NAME:ARG[:ARG],...  (default: the micro-benchmarks, quicksort, matmul, filecopy)
#        VBENCH_LLC        LLC model bytes (default 524288), VBENCH_WAYS (16), VBENCH_CACHE (on|off)
#        VBENCH_PLUGIN     0 boots without the plugin (the slowdown baseline)
#        HMTT_KVER         kernel version (default: the newest /usr/src/linux-headers-*-amd64)
#        HMTT_KERNEL_CACHE directory holding linux-image-KVER (shared with the kernel tier)
#        HMTT_QEMU_TIMEOUT seconds (default 900)
set -euo pipefail
src=$(cd "$1" && pwd)
work=$2
hmtt=$3
mkdir -p "$work"
work=$(cd "$work" && pwd)
t0=$(date +%s)
quiet=${VBENCH_QUIET:-0}
say() { [ "$quiet" = 1 ] || echo "vbench: $* (+$(( $(date +%s) - t0 ))s)" >&2; }
die() { echo "vbench: error: $*" >&2; exit 1; }

for tool in qemu-system-x86_64 cpio gzip gcc make dpkg-deb base64; do
	command -v "$tool" >/dev/null || die "$tool missing: run scripts/deps.sh all"
done
[ -x /bin/busybox ] || die "busybox-static missing: run scripts/deps.sh all"

workloads=${VBENCH_WORKLOADS:-seq-read:4194304,seq-write:4194304,read-after-write:2097152,random-read:4194304:32768,quicksort:262144,matmul:96,filecopy:2097152}
# 1 GiB of guest RAM = the capacity of the board's address map (open-page:
# row 14, bank 3, col 10, bus 3). The config space is 8 MiB at 992 MiB, not the
# very top: QEMU loads the initramfs at the top of RAM, and it must not land
# in the reserved region. The board is told where it is (--config-base).
ram=0x40000000
base=0x3e000000
size=0x800000

# 1. Kernel image and headers (the kernel tier's cache is reused if given).
. "$src/scripts/guest-kernel.sh"
guest_kernel "${HMTT_KERNEL_CACHE:-$work/cache}"

# 2. The module, the guest programs, the initramfs, the plugin.
mod=$work/module
rm -rf "$mod" && mkdir -p "$mod"
cp -r "$src"/kernel-module/. "$mod"/
make -s -C "$hdr" M="$mod" modules >"$work/module-build.log" 2>&1 \
	|| { cat "$work/module-build.log" >&2; die "hmtt.ko does not build"; }
root=$work/initramfs
rm -rf "$root" && mkdir -p "$root"/{bin,dev,proc,sys,tmp,lib/modules}
inc=(-I "$src/kernel-module/include/uapi" -I "$src/driver/include")
cflags=(-static -O2 -Wall -Wextra -Werror -Wno-unused-parameter)
gcc "${cflags[@]}" "${inc[@]}" -o "$root/bin/hmtt-vbench" \
	"$src/sim/qemu/guest/hmtt_vbench.c" "$src/driver/libhmtt/libhmtt.c"
gcc "${cflags[@]}" "${inc[@]}" -o "$root/bin/hmttctl" \
	"$src/driver/hmttctl/hmttctl.c" "$src/driver/libhmtt/libhmtt.c"
cp /bin/busybox "$root/bin/busybox"
cp "$src/sim/qemu/guest/init.sh" "$root/init"
chmod 755 "$root/init"
cp "$mod/hmtt.ko" "$root/lib/modules/"
# virtio_blk and what it needs, in dependency order.
guest_modules "$root" virtio_pci virtio_blk
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initramfs.cpio.gz"
gcc -shared -fPIC -O2 -Wall -Wextra -Werror -Wno-unused-parameter -fvisibility=hidden \
	-I "$src/sim/qemu/plugin" -o "$work/libhmtt_llc.so" "$src/sim/qemu/plugin/hmtt_llc.c"
say "kernel $HMTT_KVER, hmtt.ko, guest workloads and plugin built"

# The virtio disks the filecopy workload copies from and to (their DMA goes
# through the DMA API: iommu_platform=on, so the module's DMA probe sees every mapping).
head -c $((8 << 20)) /dev/urandom >"$work/disk.img"
truncate -s 0 "$work/copy.img" && truncate -s $((8 << 20)) "$work/copy.img"

# 3. Boot with the plugin (one vCPU: one cache model, a deterministic order).
plugin=()
if [ "${VBENCH_PLUGIN:-1}" = 1 ]; then
	plugin=(-plugin "$work/libhmtt_llc.so,base=$base,size=$size,ram=$ram,out=$work/llc.csv,summary=$work/llc.json,llc=${VBENCH_LLC:-524288},ways=${VBENCH_WAYS:-16},cache=${VBENCH_CACHE:-on}")
fi
rm -f "$work/llc.csv" "$work/llc.json"
say "booting under QEMU/TCG: $workloads"
boot_t0=$(date +%s%N)
timeout "${HMTT_QEMU_TIMEOUT:-900}" qemu-system-x86_64 \
	-machine q35 -accel tcg -cpu max -smp 1 -m 1G \
	-nographic -no-reboot -monitor none \
	-kernel "$img/boot/vmlinuz-$HMTT_KVER" -initrd "$work/initramfs.cpio.gz" \
	-append "console=ttyS0 loglevel=1 panic=-1 no_timer_check memmap=8M\$$base vbench_base=$base vbench_size=$size vbench_workloads=$workloads" \
	-drive file="$work/disk.img",if=none,id=d0,format=raw \
	-device virtio-blk-pci,drive=d0,iommu_platform=on,disable-legacy=on \
	-drive file="$work/copy.img",if=none,id=d1,format=raw \
	-device virtio-blk-pci,drive=d1,iommu_platform=on,disable-legacy=on \
	"${plugin[@]}" </dev/null >"$work/console.raw" 2>&1 || say "qemu exited with status $?"
boot_ns=$(( $(date +%s%N) - boot_t0 ))
tr -d '\r' <"$work/console.raw" >"$work/console.txt"
echo "$boot_ns" >"$work/boot_ns"
grep -q '^HMTT-VBENCH-DONE-ALL' "$work/console.txt" || die "the guest did not finish (see $work/console.txt)"
if grep -q '^HMTT-VBENCH-FAIL' "$work/console.txt"; then
	grep '^HMTT-VBENCH-FAIL' "$work/console.txt" >&2
	die "a guest step failed (see $work/console.txt)"
fi
say "guest finished in $(( boot_ns / 1000000 )) ms"
[ "${VBENCH_PLUGIN:-1}" = 1 ] || exit 0
grep '^HMTT-VBENCH-REGION' "$work/console.txt" >"$work/regions.txt"
sed -n '/^HMTT-RAWLOG-BEGIN/,/^HMTT-RAWLOG-END/p' "$work/console.txt" | sed '1d;$d' | base64 -d >"$work/guest.hlog"
nsync=$(grep '^HMTT-VBENCH-STATUS' "$work/console.txt" | sed -n 's/.*"nsync": \([0-9]*\).*/\1/p')
[ -n "$nsync" ] || die "no nsync in the guest's status line"
echo "$nsync" >"$work/nsync"
echo "$base" >"$work/config_base"
say "guest trace $work/llc.csv, kernel log $work/guest.hlog"
