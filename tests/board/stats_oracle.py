#!/usr/bin/env python3
"""Independent check of `hmtt stats --json` (tests/board/stats_e2e_test.sh).

From the controller's ground truth (every READ/WRITE it put on the bus, with its
cycle) and its command totals, recompute in plain Python what the board's
Statistic Unit and RDHPU must have reported, and compare:

- SU, per interval: READs and WRITEs (a command on the pins in cycle c reaches
  the SU in cycle c+1 and counts in interval (c+1) // I); over the run: ACTIVEs
  (sum over banks) = the controller's ACT count, row-buffer hits = the
  controller's row hits, hits + misses = READs + WRITEs, misses <= ACTIVEs.
- RDHPU, per interval, from the store's `report` table: the reuse-distance
  histogram equals an exact LRU stack (naive list, capped at 128 pages) over the
  page stream (page = address >> 12; an access of cycle c counts in interval
  (c + 2 + 128) // I); the hot pages obey the Space-Saving bounds against exact
  counting (count - err <= accesses <= count; exact when the interval has at
  most K pages); every page with more than N/K accesses is in the table.
- `hmtt stats --json`'s histogram and timeline equal the oracle's sums.

usage: stats_oracle.py GROUND_TRUTH.csv SIM.json STATS.json STORE.hmtt SU_INTERVAL RDHPU_INTERVAL K
"""
import csv
import json
import sqlite3
import sys
from collections import Counter, defaultdict

DEPTH = 128
NB = 9  # log2(128) + 2


def bin_of(dist):
    if dist is None:
        return NB - 1
    return dist.bit_length()


def main():
    gt_path, sim_path, stats_path, store_path, su_iv, rd_iv, k = sys.argv[1:8]
    su_iv, rd_iv, k = int(su_iv), int(rd_iv), int(k)
    accesses = []
    with open(gt_path) as f:
        for row in csv.DictReader(f):
            assert row["config_space"] == "0", "the workload must not touch the config space"
            accesses.append((int(row["cycle"]), int(row["address"], 16), row["write"] == "1"))
    accesses.sort()
    sim = json.load(open(sim_path))
    stats = json.load(open(stats_path))
    fails = []

    def check(cond, what):
        if not cond:
            fails.append(what)

    ctl = sim["channel_commands"][0]
    board = stats["boards"][0]
    check(len(stats["boards"]) == 1, "one board")
    check(board["interval_cycles"] == su_iv, f"interval {board['interval_cycles']} != {su_iv}")

    # --- Statistic Unit -------------------------------------------------------------------------
    su = board["su"]
    want = defaultdict(lambda: [0, 0])
    for c, _, w in accesses:
        want[(c + 1) // su_iv][1 if w else 0] += 1
    timeline = {iv["interval"]: iv for iv in su["timeline"]}
    lossless = su["missing_intervals"] == 0
    last = max(timeline)
    check(su["missing_intervals"] == last + 1 - len(timeline), "SU: missing intervals counted")
    check(sim["reports_lost"] == su["missing_intervals"] + board["rdhpu"]["missing_intervals"],
          f"reports lost on the board {sim['reports_lost']} != intervals missing in the store")
    for i, got in timeline.items():
        r, w = want.get(i, (0, 0))
        check(got["reads"] == r and got["writes"] == w,
              f"SU interval {i}: reads/writes {(got['reads'], got['writes'])} != {(r, w)}")
    check(set(want) <= set(range(last + 1)), "SU: the last report covers the last access")
    if lossless:
        check(su["reads"] == ctl["rd"] and su["writes"] == ctl["wr"],
              f"SU totals {su['reads']}/{su['writes']} != controller {ctl['rd']}/{ctl['wr']}")
        acts = sum(sum(r) for r in su["bank_activates"])
        check(acts == ctl["act"], f"SU ACTIVEs {acts} != controller {ctl['act']}")
        check(su["row_hits"] == ctl["row_hits"], f"SU row hits {su['row_hits']} != controller {ctl['row_hits']}")
        check(sum(iv["activates"] for iv in su["timeline"]) == acts, "SU timeline ACTIVEs sum to the bank grid")
        # (an ACTIVE whose row a refresh closes before any access opens no miss)
        check(su["row_misses"] <= acts, f"row misses {su['row_misses']} > ACTIVEs {acts}")
        check(su["row_hits"] + su["row_misses"] == len(accesses), "row hits + misses = accesses")
    tick_ps = stats["tick_ps"]
    for iv in su["timeline"]:
        mbs = (iv["reads"] + iv["writes"]) * 64 / (su_iv * tick_ps * 1e-12) / 1e6
        check(abs(iv["mb_per_s"] - mbs) <= 1e-6 * max(1.0, mbs), f"SU interval {iv['interval']}: MB/s")

    # --- RDHPU: exact LRU stack and exact counts per interval ---------------------------------
    stack = []
    hist = defaultdict(lambda: [0] * NB)
    pages = defaultdict(Counter)
    for c, a, _ in accesses:
        p = (a >> 12) & ((1 << 24) - 1)
        try:
            d = stack.index(p)
            stack.pop(d)
        except ValueError:
            d = None
            if len(stack) == DEPTH:
                stack.pop()
        stack.insert(0, p)
        i = (c + 2 + DEPTH) // rd_iv
        hist[i][bin_of(d)] += 1
        pages[i][p] += 1
    db = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True)
    reports = defaultdict(dict)
    for rid, interval in db.execute("SELECT id, interval FROM report WHERE unit = 1 ORDER BY id"):
        vals = [v for (v,) in db.execute("SELECT value FROM report_value WHERE report = ? ORDER BY idx", (rid,))]
        reports[interval] = vals
    check(len(reports) > 2, f"RDHPU: only {len(reports)} reports")
    exact_tables = 0
    for i, vals in reports.items():
        check(len(vals) == NB + 3 * k, f"RDHPU interval {i}: {len(vals)} values")
        check(vals[:NB] == hist[i], f"RDHPU interval {i}: histogram {vals[:NB]} != LRU {hist[i]}")
        true = pages[i]
        n = sum(true.values())
        table = {}
        for j in range(k):
            page, count, err = vals[NB + 3 * j:NB + 3 * j + 3]
            if count:
                table[page] = (count, err)
                check(count - err <= true[page] <= count,
                      f"RDHPU interval {i}: page {page:#x} count {count} err {err}, true {true[page]}")
        for page, t in true.items():
            if t * k > n:
                check(page in table, f"RDHPU interval {i}: page {page:#x} ({t} of {n}) missing from the table")
        if len(true) <= k:
            exact_tables += 1
            check(table == {p: (t, 0) for p, t in true.items()}, f"RDHPU interval {i}: table not exact")
    rd_lossless = board["rdhpu"]["missing_intervals"] == 0
    check(board["rdhpu"]["intervals"] == len(reports), "stats: RDHPU interval count")
    total = [sum(hist[i][b] for i in reports) for b in range(NB)]
    got = [b["count"] for b in board["rdhpu"]["histogram"]]
    check(got == total, f"stats histogram {got} != LRU {total}")
    if rd_lossless:
        for i in hist:
            check(i in reports, f"RDHPU: interval {i} has accesses but no report")
        check(sum(total) == len(accesses), "RDHPU: every access counted once")
    check(board["rdhpu"]["hot_k"] == k, "stats hot_k")
    print(f"stats_oracle: {len(accesses)} accesses, {len(timeline)} SU intervals "
          f"({su['missing_intervals']} lost), {len(reports)} RDHPU intervals ({board['rdhpu']['missing_intervals']} "
          f"lost, {exact_tables} with <= K pages), histogram {total}")
    for f_ in fails[:20]:
        print("FAIL", f_)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
