#!/usr/bin/env bash
# hmtt sim --rtl against hmtt sim (the C++ model) on the same workloads: the
# links' frames, captured and exported, give the same references, time stamps
# and events; bad --rtl set-ups are refused with a message.
# usage: sim_rtl_test.sh HMTT WORK_DIR
set -euo pipefail
hmtt=$1
work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work"
fail() { echo "sim_rtl_test: FAIL: $*" >&2; exit 1; }
for case in "bursty:2:interleaved" "appendix-a:3:open-page" "random-read:2:open-page"; do
	IFS=: read -r w links map <<<"$case"
	for b in model rtl; do
		flag=()
		[ $b = rtl ] && flag=(--rtl)
		"$hmtt" sim "${flag[@]}" --ranks 2 --map "$map" --workload "$w" -n 30000 --links "$links" \
			--events-every 500 -o "$b-$w" >"$b-$w.txt"
		pcaps=("$b-$w"-b0-l*.pcap)
		"$hmtt" capture --pcap "${pcaps[@]}" -o "$b-$w.hmtt" >/dev/null
		"$hmtt" export "$b-$w.hmtt" -o "$b-$w.csv" >/dev/null
		# the store's summary: counts by kind, span, links and their losses, events by type
		"$hmtt" info --json "$b-$w.hmtt" | grep -v '"file"' >"$b-$w.json"
	done
	n=$(($(wc -l <"rtl-$w.csv") - 1))
	[ "$n" -gt 0 ] || fail "$w: the RTL capture has no references"
	cmp -s "model-$w.csv" "rtl-$w.csv" || fail "$w: references differ between the model and the RTL"
	cmp -s "model-$w.json" "rtl-$w.json" || fail "$w: store summaries differ: $(diff "model-$w.json" "rtl-$w.json" | head -5)"
	echo "sim_rtl_test: $w over $links link(s), map $map: $n references, times and events identical"
done
# Refusals: a map the RTL is not built for, another FIFO depth.
if "$hmtt" sim --rtl --ranks 1 -n 100 -o x 2>err.txt; then fail "--rtl with a 1-rank map was accepted"; fi
grep -q 'no RTL board is built' err.txt || fail "unexpected message: $(cat err.txt)"
if "$hmtt" sim --rtl --ranks 2 --fifo 8 -n 100 -o x 2>err.txt; then fail "--rtl --fifo 8 was accepted"; fi
grep -q '16384-entry FIFO' err.txt || fail "unexpected message: $(cat err.txt)"
# One link carries one byte per cycle: random reads outrun it unless --link-mbps paces the board.
if "$hmtt" sim --rtl --ranks 2 --workload random-read -n 30000 --links 1 -o x 2>err.txt >/dev/null; then
	fail "--rtl over one unpaced link did not report the overrun"
fi
grep -q 'link buffer overrun' err.txt || fail "unexpected message: $(cat err.txt)"
"$hmtt" sim --rtl --ranks 2 --workload random-read -n 30000 --links 1 --link-mbps 1000 -o paced >paced.txt ||
	fail "--rtl paced at 1000 Mb/s failed"
echo "sim_rtl_test: PASS"
