#!/usr/bin/env bash
# Resource use of the board top with and without the online units (docs/board.md 13): yosys
# synth_xilinx of hmtt_board_top with WithSu=WithRdhpu=0 and =1 (HotK 8), the memories shrunk as in
# rtl/synth/synth_check.sh (FifoDepth 64, RecDepth 512: the 16K-entry FIFO reads asynchronously and would
# be mapped to LUT RAM). The board with the units does not fit an iCE40 HX8K (the RDHPU's stack alone has
# 10.6 K flip-flops), hence Xilinx 7-series counts. Per module (one instance) and for the design.
# Usage: bench/board/units_resources.sh   (from the repository root; about 3 minutes)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root/rtl"
srcs=$(echo hmtt_*.v)
for units in 0 1; do
  yosys -q -l "$tmp/x$units.log" -p "read_verilog -defer $srcs;
    chparam -set WithSu $units -set WithRdhpu $units -set HotK 8 -set FifoDepth 64 -set RecDepth 512 hmtt_board_top;
    hierarchy -check -top hmtt_board_top; synth_xilinx -top hmtt_board_top" >/dev/null
  echo "== hmtt_board_top, WithSu=WithRdhpu=$units (yosys synth_xilinx)"
  # synth_xilinx ends with a stat per module, then the design's total.
  awk '/^=== /{m=$2; if (m ~ /^\$paramod/) { split(m, p, "\\"); m = p[2] } if (m == "design") m = "design (total)"}
       /^ +LUT[1-6] /{lut[m]+=$2} /^ +FD[A-Z]+ /{ff[m]+=$2} /^ +CARRY4 /{c[m]+=$2} /^ +RAM(32M|64M) /{ram[m]+=$2}
       END{for (m in lut) printf "  %-16s LUTs %6d  flip-flops %6d  CARRY4 %5d  LUT RAM %4d\n", m, lut[m], ff[m], c[m], ram[m]}' \
    "$tmp/x$units.log" | sort
done
