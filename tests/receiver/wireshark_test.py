#!/usr/bin/env python3
"""tools/wireshark/hmtt.lua under tshark, with known answers.

1. A pcap written here, byte by byte from docs/wire-format.md (the worked examples
   of section 5 in one frame, a damaged copy, and a frame on another port), must
   dissect to exactly the header fields, record kinds, addresses and restored
   times the spec gives.
2. A pcap from hmtt_link_sender (the wire codec's encoder) must show exactly the
   number of references it generated, with times that increase on the board.
Exit 77 (skipped) when tshark is not installed."""
import os, shutil, struct, subprocess, sys, tempfile, zlib

lua, sender = sys.argv[1], sys.argv[2]
tshark = shutil.which("tshark")
if not tshark:
    print("tshark not installed (scripts/deps.sh all): skipped")
    sys.exit(77)

def rec(v): return v.to_bytes(5, "big")

def frame(board, link, seq, base, records, flags=1):
    h = b"HMTT" + bytes([1, board, link, 26, 6, flags]) + struct.pack(">HIQI", len(records), seq, base, 200000)
    body = h + b"".join(records)
    return body + struct.pack(">I", zlib.crc32(body))

def csum(b):
    if len(b) % 2: b += b"\0"
    s = sum(struct.unpack(">%dH" % (len(b) // 2), b))
    while s >> 16: s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF

def packet(payload, port):
    udp = struct.pack(">HHHH", port, port, 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0, bytes([10, 72, 0, 1]),
                     bytes([10, 72, 255, 1]))
    ip = ip[:10] + struct.pack(">H", csum(ip)) + ip[12:]
    return bytes([2, 0x48, 0x4d, 0x54, 0xff, 0]) + bytes([2, 0x48, 0x4d, 0x54, 0, 0]) + b"\x08\x00" + ip + udp

def pcap(path, packets):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, p in enumerate(packets):
            f.write(struct.pack("<IIII", 1700000000, i, len(p), len(p)) + p)

def run(path, fields, extra=()):
    cmd = [tshark, "-X", "lua_script:" + lua, "-r", path, "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=;"]
    for fl in fields: cmd += ["-e", fl]
    out = subprocess.run(cmd + list(extra), capture_output=True, text=True, check=True).stdout
    return [line.split("\t") for line in out.strip().split("\n") if line]

failures = 0
def check(what, got, want):
    global failures
    ok = got == want
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else f": got {got!r}, want {want!r}"))
    failures += not ok

tmp = tempfile.mkdtemp()
try:
    # Section 5 examples 1-6 in one frame: board 2, link 1, sequence 5, base_time 1000.
    examples = [rec(0x0048D15A005), rec(0x4000001FFF), rec(0x8000002710), rec(0x0000000000),
                rec(0x9003000001), rec(0xA0000004D2), rec(0xB000020007), rec(0xC00000000A), rec(0xC000000014)]
    f1 = frame(2, 1, 5, 1000, examples)
    bad = bytearray(frame(2, 1, 6, 30000, [rec(0x0000000001)])); bad[28] ^= 1
    path = os.path.join(tmp, "examples.pcap")
    pcap(path, [packet(f1, 7409), packet(bytes(bad), 7409), packet(frame(0, 0, 0, 0, []), 7400),
                packet(b"not hmtt", 5353)])
    rows = run(path, ["hmtt.board", "hmtt.link", "hmtt.sequence", "hmtt.base_time", "hmtt.count", "hmtt.flags.tracing",
                      "hmtt.crc.status"])
    check("frames dissected (the port-5353 packet is not)", len(rows), 3)
    check("header of the examples frame", rows[0], ["2", "1", "5", "1000", "9", "1", "good"])
    check("damaged frame's CRC", rows[1][6], "bad")
    check("keep-alive frame", rows[2], ["0", "0", "0", "0", "0", "1", "good"])
    r = run(path, ["hmtt.record.class", "hmtt.record.opcode", "hmtt.ref.kind", "hmtt.ref.address", "hmtt.record.time",
                   "hmtt.event.index", "hmtt.event.name", "hmtt.loss.count", "hmtt.report.unit",
                   "hmtt.report.interval", "hmtt.report.value"], ["-Y", "hmtt.sequence == 5"])[0]
    check("record classes", r[0].split(";"), ["reference", "reference", "control", "reference"] + ["control"] * 5)
    check("control opcodes", r[1].split(";"), ["OVERFLOW", "EVENT", "LOSS", "REPORT", "REPORT_VALUE", "REPORT_VALUE"])
    check("reference commands", r[2].split(";"), ["READ", "WRITE", "READ"])
    check("physical addresses (example 1: 0x12345680, 2: 0x40, 3: 0)", r[3].split(";"),
          ["0x0000000012345680", "0x0000000000000040", "0x0000000000000000"])
    # Times: 1000+5, +4095, +10000 (OVERFLOW) then READ +0, END TRACING +3, LOSS at the same time.
    check("restored times", r[4].split(";"), ["1005", "5100", "15100", "15103", "15103"])
    check("event index", r[5], "1")
    check("event name", r[6], "END TRACING")
    check("loss count (example 5)", r[7], "1234")
    check("report unit and interval (example 6)", (r[8], r[9]), ("0", "7"))
    check("report values", r[10].split(";"), ["10", "20"])

    # The codec's own frames: every reference shows, times increase.
    gen = os.path.join(tmp, "gen.pcap")
    subprocess.run([sender, "--pcap", gen, "--refs", "5000", "--links", "3", "--loss-rate", "0"], check=True,
                   capture_output=True)
    rows = run(gen, ["hmtt.sequence", "hmtt.crc.status", "hmtt.ref.address", "hmtt.record.time", "hmtt.record.class"])
    times = []
    refs = 0
    for row in rows:
        classes = row[4].split(";")
        refs += classes.count("reference")
        check_crc = row[1] == "good"
        if not check_crc: failures += 1
        # record.time is present on references and events; take the references' only.
        ts = [int(x) for x in row[3].split(";") if x]
        times += ts
    check("references in the generated capture", refs, 5000)
    check("restored times strictly increase across frames in board order", times == sorted(set(times)), True)
finally:
    shutil.rmtree(tmp)
sys.exit(1 if failures else 0)
