#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_receiver_frames (tests/fuzz/corpus/receiver_frames):
frame sequences in the harness's format [len:2][port:1][frame], built from
docs/wire-format.md directly (header, 5-byte records, CRC-32 trailer)."""
import os, struct, sys, zlib

out = sys.argv[1] if len(sys.argv) > 1 else "tests/fuzz/corpus/receiver_frames"
os.makedirs(out, exist_ok=True)

def rec(v):
    return v.to_bytes(5, "big")

def ref(write, addr_field, dur, abits=26):
    d = 38 - abits
    return rec((int(write) << 38) | (addr_field << d) | dur)

def ctl(op, payload):
    return rec((1 << 39) | (op << 36) | payload)

def frame(board, link, seq, base, records, abits=26, shift=6, flags=1, clock=200000):
    h = b"HMTT" + bytes([1, board, link, abits, shift, flags]) + struct.pack(">HIQI", len(records), seq, base, clock)
    body = h + b"".join(records)
    return body + struct.pack(">I", zlib.crc32(body))

def seq_file(name, frames, mode=0):
    data = bytes([mode])
    for port, f in frames:
        data += struct.pack(">HB", len(f), port) + f
    open(os.path.join(out, name), "wb").write(data)

t = 0
def refs(n, start):
    return [ref(i % 3 == 0, start + i, 1 + i % 7) for i in range(n)]

# Two links in turn, clean.
fs = []
base = 0
for s in range(6):
    r = refs(20, s * 20)
    fs.append((s % 2, frame(0, s % 2, s // 2, base, r)))
    base += sum(1 + i % 7 for i in range(20))
seq_file("two_links", fs)
seq_file("two_links_live", fs, 1)
# Reordered, duplicated, gap.
seq_file("faults", [fs[0], fs[2], fs[1], fs[1], fs[5], fs[4]], 3)
# Every record kind: OVERFLOW, EVENT, LOSS, REPORT with values.
kinds = [ctl(0, 100000), ref(0, 5, 0), ctl(1, (3 << 24) | 65), ctl(2, 1234), ctl(3, (2 << 16) | 7), ctl(4, 10), ctl(4, 20),
         ref(1, 6, 4095)]
seq_file("kinds", [(0, frame(1, 0, 0xFFFFFFFF, 1 << 40, kinds)), (0, frame(1, 0, 0, (1 << 40) + 200000, refs(5, 0)))])
# Keep-alive and bad frames.
seq_file("keepalive_bad", [(3, frame(2, 3, 9, 50, [])), (3, frame(2, 3, 10, 50, [])[:-1]), (3, b"HMTT\x02" + b"\0" * 27)])
