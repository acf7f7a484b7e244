#!/usr/bin/env bash
# Resource use (yosys synth_ice40) and Fmax (nextpnr-ice40, HX8K CT256) of the
# board's capture path, rtl/hmtt_capture.v (DCBU + DSMU + CU + packer). The
# whole board's synthesis is checked by rtl/synth/synth_check.sh (ctest rtl_synth).
# Usage: bench/board/fpga.sh [target_mhz=200]   (from the repository root)
set -euo pipefail
mhz=${1:-200}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root/rtl"
srcs=$(echo hmtt_*.v)
yosys -q -l "$tmp/cap.log" -p "read_verilog $srcs; synth_ice40 -top hmtt_capture -json $tmp/cap.json; stat" >/dev/null
echo "== yosys synth_ice40, hmtt_capture (DCBU+DSMU+CU+packer)"
# yosys prints the statistics per module and for the design; the last block is the whole design.
awk '/Number of cells/{blk=""} /Number of cells/,/^$/{blk=blk $0 "\n"} END{printf "%s", blk}' "$tmp/cap.log"
# Pin placement is left to nextpnr; the capture path has 26 inputs and 43 outputs.
nextpnr-ice40 --hx8k --package ct256 --json "$tmp/cap.json" --freq "$mhz" --seed 1 \
  --placer heap -l "$tmp/pnr.log" >/dev/null 2>&1 || true
echo "== nextpnr-ice40 --hx8k --package ct256 --freq $mhz"
grep -E "ICESTORM_LC:|ICESTORM_RAM:|SB_IO:" "$tmp/pnr.log" | tail -3
grep -E "Max frequency for clock" "$tmp/pnr.log" | tail -1
