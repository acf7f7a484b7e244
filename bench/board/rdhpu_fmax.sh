#!/usr/bin/env bash
# Fmax and resources of the RDHPU's systolic LRU stack (rtl/hmtt_rdhpu_stack.v) as its depth grows:
# yosys synth_ice40 + nextpnr-ice40 (HX8K CT256, heap placer) per depth and per placement seed; a depth
# that does not fit the HX8K gets yosys synth_xilinx resource counts instead. The property to see:
# Fmax does not fall with depth (every cell talks only to its neighbours; what varies is placement and
# routing, hence several seeds). docs/board.md section 11.4, docs/benchmarks.md.
# With --fill, a constant-fill sweep instead: COPIESxDEPTH stacks side by side in the bench-only top
# bench/board/rdhpu_fill_top.v (LFSR-driven, one output pin), so every depth fills the device about
# equally and what remains of the Fmax change is the depth itself, not the fill or the pins.
# Usage: bench/board/rdhpu_fmax.sh [tag_width=16] ["depths"="16 32 64 128"] ["seeds"="1 2 3"] [target_mhz=200]
#        bench/board/rdhpu_fmax.sh --fill [tag_width=8] ["shapes"="8x16 4x32 2x64 1x128"] ["seeds"="1 2 3"] [target_mhz=200]
#        HMTT_FMAX_LOGS=DIR keeps every nextpnr log in DIR
#        (from anywhere; depth 128 takes a few minutes per seed on a busy machine)
set -euo pipefail
fill=0
if [ "${1:-}" = "--fill" ]; then
  fill=1
  shift
fi
if [ $fill -eq 1 ]; then
  tw=${1:-8}
  depths=${2:-"8x16 4x32 2x64 1x128"}
else
  tw=${1:-16}
  depths=${2:-"16 32 64 128"}
fi
seeds=${3:-"1 2 3"}
mhz=${4:-200}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src="$root/rtl/hmtt_rdhpu_stack.v"
top=hmtt_rdhpu_stack
if [ $fill -eq 1 ]; then
  src="$src $root/bench/board/rdhpu_fill_top.v"
  top=rdhpu_fill_top
fi
# count CELLTYPE-REGEX LOG: sum of the cells of the matching types in the last yosys stat block.
count() {
  awk -v re="$1" '/Number of cells/{delete n} $1 ~ re && $2 ~ /^[0-9]+$/ {n[$1]=$2}
    END{s=0; for (k in n) s+=n[k]; print s}' "$2"
}
synth() {  # synth DEPTH-or-COPIESxDEPTH PASS LOG [JSON]
  local json="" params
  [ -n "${4:-}" ] && json="-json $4"
  if [ $fill -eq 1 ]; then
    params="-set Copies ${1%x*} -set Depth ${1#*x}"
  else
    params="-set Depth $1"
  fi
  yosys -q -l "$3" -p "read_verilog -defer $src; chparam $params -set TagWidth $tw $top;
    hierarchy -top $top; $2 -top $top $json; stat" >/dev/null
}
echo "== $top, TagWidth $tw: yosys synth_ice40, nextpnr-ice40 --hx8k --package ct256 --freq $mhz, seeds $seeds"
printf "%-6s %-6s %-6s %-11s %-28s %-8s %-8s %s\n" depth LUT4 DFF LC "Fmax per seed (MHz)" median max \
  "critical path per seed: LUT levels/logic ns/routing ns"
for d in $depths; do
  synth "$d" synth_ice40 "$tmp/s$d.log" "$tmp/s$d.json"
  lut=$(count '^SB_LUT4$' "$tmp/s$d.log")
  dff=$(count '^SB_DFF' "$tmp/s$d.log")
  fs=() cps=() lc="-" fit=1
  for s in $seeds; do
    if ! nextpnr-ice40 --hx8k --package ct256 --json "$tmp/s$d.json" --freq "$mhz" --seed "$s" \
         --timing-allow-fail --placer heap -l "$tmp/p$d.log" >/dev/null 2>&1; then
      fit=0
      break
    fi
    lc=$(grep -E "ICESTORM_LC:" "$tmp/p$d.log" | tail -1 | awk '{print $3 $4}')
    fs+=("$(grep -E "Max frequency for clock" "$tmp/p$d.log" | tail -1 | sed -E 's/.*: ([0-9.]+) MHz.*/\1/')")
    # The clock's critical path: LUT levels (sources after the first flip-flop), logic and routing delay (the logic is one cell at every depth).
    cp=$(awk '/Critical path report for clock/{on=1; n=0} on && /Source/{n++}
      on && /ns logic/{print n-1 "/" $2 "/" $5; exit}' "$tmp/p$d.log")
    cps+=("$cp")
    if [ -n "${HMTT_FMAX_LOGS:-}" ]; then  # keep the nextpnr logs (global-buffer promotion, paths)
      mkdir -p "$HMTT_FMAX_LOGS" && cp "$tmp/p$d.log" "$HMTT_FMAX_LOGS/pnr_${top}_tw${tw}_${d}_seed$s.log"
    fi
  done
  if [ $fit -eq 1 ]; then
    sorted=$(printf "%s\n" "${fs[@]}" | sort -n)
    med=$(echo "$sorted" | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
    max=$(echo "$sorted" | tail -1)
    printf "%-6s %-6s %-6s %-11s %-28s %-8s %-8s %s\n" "$d" "$lut" "$dff" "$lc" "${fs[*]}" "$med" "$max" "${cps[*]}"
  else
    why=$(grep -E "ERROR" "$tmp/p$d.log" | head -1 | cut -c1-70)
    synth "$d" synth_xilinx "$tmp/x$d.log"
    printf "%-6s %-6s %-6s %s\n" "$d" "$lut" "$dff" "does not fit the HX8K ($why)"
    printf "%-6s synth_xilinx: %s LUTs (LUT1-6), %s flip-flops\n" "" "$(count '^LUT[1-6]$' "$tmp/x$d.log")" \
      "$(count '^FD' "$tmp/x$d.log")"
  fi
done
