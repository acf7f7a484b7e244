#!/usr/bin/env bash
# End-to-end checks of `hmtt metric`: each verb's output shape, exit codes, and
# clear errors for bad input. Usage: cli_test.sh path/to/hmtt
set -u
HMTT=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
. "$(dirname "$0")/../cli_lib.sh"

expect kernel "20000 events -> [0-9]+ bytes" -- "$HMTT" metric kernel mm --events 20000 -o "$dir/mm.mtrc"
expect expand-count "^20000 events, checksum verified" -- "$HMTT" metric expand "$dir/mm.mtrc" --count
expect expand-text "^3 3 0x10000000 8 write cpu 0 xx_Write_3" -- "$HMTT" metric expand "$dir/mm.mtrc"
expect info "RSD<800, addr \+6400, seq \+4, time \+4>" -- "$HMTT" metric info "$dir/mm.mtrc" --descriptors
expect info-json "\"events\": 20000" -- "$HMTT" metric info "$dir/mm.mtrc" --json
expect report "xz_Read_1 +xz\[k\]\[j\] +0 +5000 +1 +no hits" -- "$HMTT" metric report "$dir/mm.mtrc"
expect report-json "\"reads\": 15000, \"writes\": 5000" -- "$HMTT" metric report "$dir/mm.mtrc" --json
expect report-cache "cache: 1048576 B, 8-way, 64 B lines" -- "$HMTT" metric report "$dir/mm.mtrc" --cache 1M:8:64
"$HMTT" metric report "$dir/mm.mtrc" -o "$dir/r.txt" >/dev/null 2>&1
expect report-file "Evictor information" -- cat "$dir/r.txt"
expect kernel-report "miss ratio = 0\.[0-9]+" -- "$HMTT" metric kernel adi-fused --events 10000 -o "$dir/a.mtrc" --report

# a lackey log with a reference-point map
cat >"$dir/t.lackey" <<'LACKEY'
==1== Lackey, an example Valgrind tool
I  04017e20,3
 L 00001000,8
 L 00001008,8
 L 00001010,8
 S 00002000,4
 M 00001018,8
 L 00009000,8
LACKEY
printf 'range arr 0x1000 0x2000\nrange out 0x2000 0x3000\nregion 1 start 0 2\n' >"$dir/map.txt"
expect lackey "6 events -> " -- "$HMTT" metric compress --lackey "$dir/t.lackey" --points "$dir/map.txt" -o "$dir/t.mtrc"
expect lackey-points "start/arr_Read" -- "$HMTT" metric info "$dir/t.mtrc"
expect lackey-expand "5 5 0x9000 8 read cpu 0 other_Read" -- "$HMTT" metric expand "$dir/t.mtrc"

# errors: exit 1 (work failed) or 2 (usage), with the place named
head -c 60 "$dir/mm.mtrc" >"$dir/cut.mtrc"
expect_rc truncated-rc 1 -- "$HMTT" metric report "$dir/cut.mtrc"
expect truncated "hmtt metric report: .*cut.mtrc: offset [0-9]+: " -- "$HMTT" metric report "$dir/cut.mtrc"
expect_rc bad-kernel-rc 1 -- "$HMTT" metric kernel nope -o "$dir/x.mtrc"
expect bad-kernel "unknown kernel 'nope' \(one of: mm, mm-tiled, adi, adi-interchanged, adi-fused\)" -- "$HMTT" metric kernel nope -o "$dir/x.mtrc"
expect bad-cache "cache geometry '32K:3:24': line size 24" -- "$HMTT" metric report "$dir/mm.mtrc" --cache 32K:3:24
printf ' X 1000,8\n' >"$dir/bad.lackey"
expect bad-lackey "bad.lackey:1: not a lackey trace line" -- "$HMTT" metric compress --lackey "$dir/bad.lackey" -o "$dir/b.mtrc"
printf 'range a 0 100\nrange b 50 60\n' >"$dir/badmap.txt"
expect bad-map "badmap.txt:2: range b overlaps range a" -- "$HMTT" metric compress --lackey "$dir/t.lackey" --points "$dir/badmap.txt" -o "$dir/b.mtrc"
expect_rc no-input-rc 2 -- "$HMTT" metric report
expect_rc help-rc 0 -- "$HMTT" metric report --help

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "all hmtt metric CLI checks passed"
