#!/usr/bin/env bash
# hmtt sim with the Statistic Unit and the RDHPU on -> hmtt capture --pcap -> hmtt stats --json,
# checked against an independent recomputation from the controller's ground truth
# (tests/board/stats_oracle.py: per-interval READ/WRITE counts, ACTIVE and row-hit totals, an exact
# LRU stack per interval, exact page counts against the Space-Saving bounds); then the verb's
# refusals: a store without reports, a file that is no store, --help; and hmtt sim --rtl with the units
# against the model.
# usage: stats_e2e_test.sh HMTT SOURCE_DIR WORK_DIR
set -uo pipefail
hmtt=$1
src=$2
work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fails=0
# shellcheck source=../cli_lib.sh
. "$src/tests/cli_lib.sh"
su=4000 rd=2500 k=8
# appendix-a: every distance bin, no report lost. bursty over a 600 Mb/s link: the FIFO's backlog holds
# reports back beyond an interval, so some are lost on the board; the ones that arrive must still be
# exact and the lost ones counted.
for case in appendix-a:0 bursty:600; do
	IFS=: read -r w mbps <<<"$case"
	"$hmtt" sim --workload "$w" -n 12000 --ranks 2 --events-every 0 --no-begin-end --link-mbps "$mbps" \
		--su-interval $su --rdhpu-interval $rd --hot-k $k --ground-truth "$w-gt.csv" -o "$w" --json >"$w-sim.json" ||
		{ echo "FAIL $w: hmtt sim"; fails=$((fails + 1)); continue; }
	"$hmtt" capture --pcap "$w"-b0-l*.pcap -o "$w.hmtt" >/dev/null ||
		{ echo "FAIL $w: hmtt capture"; fails=$((fails + 1)); continue; }
	"$hmtt" stats --json --interval $su "$w.hmtt" >"$w-stats.json" ||
		{ echo "FAIL $w: hmtt stats"; fails=$((fails + 1)); continue; }
	python3 "$src/tests/board/stats_oracle.py" "$w-gt.csv" "$w-sim.json" "$w-stats.json" "$w.hmtt" $su $rd $k ||
		{ echo "FAIL $w: stats differ from the oracle"; fails=$((fails + 1)); }
	expect "$w text" 'row buffer: [0-9]+ hits' -- "$hmtt" stats --interval $su "$w.hmtt"
	# Without --interval the length is estimated from the report times, and said to be.
	est=$("$hmtt" stats --json "$w.hmtt" | python3 -c "import json,sys; b=json.load(sys.stdin)['boards'][0]
print(b['interval_cycles_source'], b['interval_cycles'])")
	read -r src_ cyc_ <<<"$est"
	if [ "$src_" != estimated ] || [ $((cyc_ * 100)) -lt $((su * 95)) ] || [ $((cyc_ * 100)) -gt $((su * 105)) ]; then
		echo "FAIL $w: estimated interval '$est', expected about $su"
		fails=$((fails + 1))
	fi
done
# The units off (the default): the same workload sends no reports, and stats says so, naming the file.
"$hmtt" sim --workload random-read -n 2000 --events-every 0 -o off >/dev/null &&
	"$hmtt" capture --pcap off-b0-l0.pcap -o off.hmtt >/dev/null || { echo "FAIL units off: sim/capture"; fails=$((fails + 1)); }
expect "no reports" 'off\.hmtt: the store holds no board reports' -- "$hmtt" stats off.hmtt
expect_rc "no reports rc" 1 -- "$hmtt" stats off.hmtt
echo "not a store" >foreign.txt
expect "foreign file" 'foreign\.txt: not an hmtt trace store' -- "$hmtt" stats foreign.txt
expect_rc "foreign rc" 1 -- "$hmtt" stats foreign.txt
expect "missing file" 'nothere\.hmtt' -- "$hmtt" stats nothere.hmtt
expect "help" 'reuse-distance histogram' -- "$hmtt" stats --help
# --rtl: the Verilated board top with both units built in (docs/board.md 13) sends what the model sends,
# so the stored reports and hmtt stats are the same; then its refusal of another --hot-k.
# bursty over 600 Mb/s, as above: reports held back and lost must be the same ones.
w=bursty
if "$hmtt" sim --rtl --workload $w -n 12000 --ranks 2 --events-every 0 --no-begin-end --link-mbps 600 \
	--su-interval $su --rdhpu-interval $rd --hot-k $k -o "rtl-$w" --json >"rtl-$w-sim.json" &&
	"$hmtt" capture --pcap "rtl-$w"-b0-l*.pcap -o "rtl-$w.hmtt" >/dev/null &&
	"$hmtt" stats --json --interval $su "rtl-$w.hmtt" >"rtl-$w-stats.json" &&
	"$hmtt" export "$w.hmtt" -o "$w.csv" >/dev/null && "$hmtt" export "rtl-$w.hmtt" -o "rtl-$w.csv" >/dev/null; then
	# (The packets themselves differ: the RTL's frames carry its AddrBits parameter, 26, hmtt sim's model
	# the map's 25 bits; the decoded references and times are the same.)
	cmp -s "$w.csv" "rtl-$w.csv" || { echo "FAIL --rtl units: references differ from the model's"; fails=$((fails + 1)); }
	python3 - "$w-sim.json" "rtl-$w-sim.json" "$w-stats.json" "rtl-$w-stats.json" <<'PY' || fails=$((fails + 1))
import json, sys
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in ("file", "store", "path", "board_kind", "board")}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
sim_m, sim_r, st_m, st_r = (json.load(open(f)) for f in sys.argv[1:])
def counts(j):
    return {k: j.get(k) for k in ("records", "events", "losses", "loss_records", "reports", "reports_lost", "frames")}
ok = True
if counts(sim_m) != counts(sim_r) or not sim_r.get("reports"):
    print("FAIL --rtl units: sim counters differ:", counts(sim_m), counts(sim_r)); ok = False
if strip(st_m) != strip(st_r):
    print("FAIL --rtl units: hmtt stats differ between the model's and the RTL's capture"); ok = False
if ok:
    print("stats_e2e: --rtl with the units: %d reports (%d lost), hmtt stats identical to the model's"
          % (sim_r["reports"], sim_r["reports_lost"]))
sys.exit(0 if ok else 1)
PY
else
	echo "FAIL --rtl units: hmtt sim/capture/stats"
	fails=$((fails + 1))
fi
expect "sim --rtl refuses another --hot-k" 'built with 8 hot pages' -- "$hmtt" sim --rtl --ranks 2 --rdhpu-interval 100 --hot-k 4 -n 10
[ $fails -eq 0 ] && echo "stats_e2e_test: PASS"
exit $((fails > 0))
