#!/usr/bin/env bash
# Synthesises the RTL with yosys and fails on any warning:
#   1. every module and the board top, generic synthesis (memories shrunk:
#      FifoDepth 64, RecDepth 512, so the flop-mapped memories stay small);
#   2. the capture path (hmtt_capture) for the iCE40 (synth_ice40);
#   3. the board top again with the online units built in (WithSu, WithRdhpu: docs/board.md 13).
# Usage: synth/synth_check.sh [yosys]   (run from rtl/); logs in $TMPDIR.
set -euo pipefail
YOSYS=${1:-yosys}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
srcs=$(echo hmtt_*.v)
"$YOSYS" -q -l "$tmp/top.log" -p "read_verilog -defer $srcs;
  chparam -set FifoDepth 64 -set RecDepth 512 hmtt_board_top;
  hierarchy -check -top hmtt_board_top; synth -top hmtt_board_top; stat" >/dev/null
"$YOSYS" -q -l "$tmp/units.log" -p "read_verilog -defer $srcs;
  chparam -set FifoDepth 64 -set RecDepth 512 -set WithSu 1 -set WithRdhpu 1 hmtt_board_top;
  hierarchy -check -top hmtt_board_top; synth -top hmtt_board_top; stat" >/dev/null
"$YOSYS" -q -l "$tmp/cap.log" -p "read_verilog $srcs; synth_ice40 -top hmtt_capture; stat" >/dev/null
status=0
for f in top cap units; do
  if grep -E "^Warning" "$tmp/$f.log"; then
    echo "synth_check: yosys warnings in $f synthesis" >&2
    status=1
  fi
done
[ $status -eq 0 ] && echo "synth_check: hmtt_board_top (without and with the units) and hmtt_capture synthesise without warnings"
exit $status
