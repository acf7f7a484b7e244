-- Wireshark dissector for HMTT link frames (docs/wire-format.md, version 1).
--
-- The frames travel one per UDP datagram on ports 7400-7463 (7400 + 4*board + link).
-- Shows the 28-byte header, checks the CRC-32 trailer, and decodes every 5-byte
-- record by class and opcode with its restored absolute time (base_time plus the
-- durations and OVERFLOW payloads before it, as the host receiver does).
--
--   tshark -X lua_script:tools/wireshark/hmtt.lua -r link.pcap -V
--   wireshark -X lua_script:tools/wireshark/hmtt.lua link.pcap
-- or copy the file to ~/.local/lib/wireshark/plugins/.

local hmtt = Proto("hmtt", "HMTT memory trace link frame")

local opcodes = { [0] = "OVERFLOW", [1] = "EVENT", [2] = "LOSS", [3] = "REPORT", [4] = "REPORT_VALUE",
                  [5] = "reserved", [6] = "reserved", [7] = "reserved" }
local inner = { [0] = "BEGIN TRACING", [1] = "END TRACING", [2] = "SYNC TAG" }
local units = { [0] = "statistic unit", [1] = "reuse-distance/hot-page unit" }

local f = {
  magic = ProtoField.string("hmtt.magic", "Magic"),
  version = ProtoField.uint8("hmtt.version", "Version"),
  board = ProtoField.uint8("hmtt.board", "Board"),
  link = ProtoField.uint8("hmtt.link", "Link"),
  addr_bits = ProtoField.uint8("hmtt.addr_bits", "Address bits"),
  line_shift = ProtoField.uint8("hmtt.line_shift", "Line shift"),
  flags = ProtoField.uint8("hmtt.flags", "Flags", base.HEX),
  tracing = ProtoField.bool("hmtt.flags.tracing", "Tracing active", 8, nil, 0x01),
  count = ProtoField.uint16("hmtt.count", "Record count"),
  sequence = ProtoField.uint32("hmtt.sequence", "Sequence"),
  base_time = ProtoField.uint64("hmtt.base_time", "Base time (cycles)"),
  clock_khz = ProtoField.uint32("hmtt.clock_khz", "Clock (kHz)"),
  crc = ProtoField.uint32("hmtt.crc", "CRC-32", base.HEX),
  crc_status = ProtoField.string("hmtt.crc.status", "CRC-32 status"),
  record = ProtoField.bytes("hmtt.record", "Record"),
  class = ProtoField.string("hmtt.record.class", "Class"),
  opcode = ProtoField.string("hmtt.record.opcode", "Opcode"),
  time = ProtoField.uint64("hmtt.record.time", "Time (cycles)"),
  write = ProtoField.bool("hmtt.ref.write", "Write"),
  kind = ProtoField.string("hmtt.ref.kind", "Command"),
  address = ProtoField.uint64("hmtt.ref.address", "Physical address", base.HEX),
  duration = ProtoField.uint32("hmtt.record.duration", "Duration (cycles)"),
  overflow = ProtoField.uint64("hmtt.overflow.cycles", "Cycles added"),
  event_index = ProtoField.uint32("hmtt.event.index", "Config-space index"),
  event_name = ProtoField.string("hmtt.event.name", "Event"),
  loss = ProtoField.uint64("hmtt.loss.count", "Records dropped by the board FIFO"),
  report_unit = ProtoField.uint8("hmtt.report.unit", "Report unit"),
  report_values = ProtoField.uint16("hmtt.report.values", "Values that follow"),
  report_interval = ProtoField.uint16("hmtt.report.interval", "Interval"),
  report_value = ProtoField.uint64("hmtt.report.value", "Report value"),
}
hmtt.fields = f

local e_bad = ProtoExpert.new("hmtt.bad", "Malformed HMTT frame", expert.group.MALFORMED, expert.severity.ERROR)
local e_loss = ProtoExpert.new("hmtt.loss", "Board FIFO overflow", expert.group.SEQUENCE, expert.severity.WARN)
hmtt.experts = { e_bad, e_loss }

-- CRC-32 (IEEE 802.3, reflected), as zlib's crc32.
local crc_table = {}
for i = 0, 255 do
  local c = i
  for _ = 1, 8 do
    if bit32.band(c, 1) == 1 then c = bit32.bxor(0xEDB88320, bit32.rshift(c, 1)) else c = bit32.rshift(c, 1) end
  end
  crc_table[i] = c
end
local function crc32(tvb, offset, len)
  local c = 0xFFFFFFFF
  local bytes = tvb:raw(offset, len)
  for i = 1, #bytes do
    c = bit32.bxor(crc_table[bit32.band(bit32.bxor(c, bytes:byte(i)), 0xFF)], bit32.rshift(c, 8))
  end
  return bit32.bxor(c, 0xFFFFFFFF)
end

-- The 40-bit record as a Lua number (exact: below 2^53), and its bit fields.
local function bits(v, lo, n) return math.floor(v / 2 ^ lo) % 2 ^ n end

function hmtt.dissector(tvb, pinfo, tree)
  if tvb:len() < 32 or tvb(0, 4):string() ~= "HMTT" then return 0 end
  pinfo.cols.protocol = "HMTT"
  local t = tree:add(hmtt, tvb(), "HMTT link frame")
  t:add(f.magic, tvb(0, 4))
  t:add(f.version, tvb(4, 1))
  t:add(f.board, tvb(5, 1))
  t:add(f.link, tvb(6, 1))
  t:add(f.addr_bits, tvb(7, 1))
  t:add(f.line_shift, tvb(8, 1))
  local ft = t:add(f.flags, tvb(9, 1))
  ft:add(f.tracing, tvb(9, 1))
  t:add(f.count, tvb(10, 2))
  t:add(f.sequence, tvb(12, 4))
  t:add(f.base_time, tvb(16, 8))
  t:add(f.clock_khz, tvb(24, 4))
  local version, board, link = tvb(4, 1):uint(), tvb(5, 1):uint(), tvb(6, 1):uint()
  local abits, shift, count = tvb(7, 1):uint(), tvb(8, 1):uint(), tvb(10, 2):uint()
  local seq = tvb(12, 4):uint()
  pinfo.cols.info = string.format("board %d link %d seq %u, %d records", board, link, seq, count)
  if version ~= 1 or abits < 20 or abits > 32 or count > 288 or tvb:len() ~= 32 + 5 * count then
    t:add_proto_expert_info(e_bad, "version, address bits, count or length is not as docs/wire-format.md says")
    return tvb:len()
  end
  local crc_at = 28 + 5 * count
  t:add(f.crc, tvb(crc_at, 4))
  local good = crc32(tvb, 0, crc_at) == tvb(crc_at, 4):uint()
  t:add(f.crc_status, tvb(crc_at, 4), good and "good" or "bad")
  if not good then t:add_proto_expert_info(e_bad, "CRC-32 mismatch") end

  local dbits = 38 - abits
  local time = tvb(16, 8):uint64()
  for i = 0, count - 1 do
    local at = 28 + 5 * i
    local r = tvb(at, 5):uint64():tonumber()
    local rt = t:add(f.record, tvb(at, 5))
    if bits(r, 39, 1) == 0 then
      local write = bits(r, 38, 1) == 1
      local d = bits(r, 0, dbits)
      local addr = UInt64(bits(r, dbits, abits)) * UInt64(2 ^ shift)
      time = time + UInt64(d)
      rt:set_text(string.format("Record %d: %s 0x%s at %s (+%d)", i, write and "WRITE" or "READ",
                                addr:tohex():gsub("^0+(.)", "%1"), tostring(time), d))
      rt:add(f.class, tvb(at, 5), "reference")
      rt:add(f.kind, tvb(at, 5), write and "WRITE" or "READ")
      rt:add(f.write, tvb(at, 1), write)
      rt:add(f.address, tvb(at, 5), addr)
      rt:add(f.duration, tvb(at, 5), d)
      rt:add(f.time, tvb(at, 5), time)
    else
      local op = bits(r, 36, 3)
      local payload = bits(r, 0, 36)
      rt:add(f.class, tvb(at, 5), "control")
      rt:add(f.opcode, tvb(at, 1), opcodes[op])
      local text
      if op == 0 then
        time = time + UInt64(payload)
        rt:add(f.overflow, tvb(at, 5), UInt64(payload))
        text = string.format("OVERFLOW +%d", payload)
      elseif op == 1 then
        local d, w, index = bits(payload, 24, 12), bits(payload, 23, 1) == 1, bits(payload, 0, 23)
        time = time + UInt64(d)
        local name = inner[index] or (index >= 64 and string.format("user event %d", index - 64)) or
                     string.format("inner command %d", index)
        rt:add(f.duration, tvb(at, 5), d)
        rt:add(f.write, tvb(at, 1), w)
        rt:add(f.event_index, tvb(at, 5), index)
        rt:add(f.event_name, tvb(at, 5), name)
        rt:add(f.time, tvb(at, 5), time)
        text = string.format("EVENT %s at %s", name, tostring(time))
      elseif op == 2 then
        rt:add(f.loss, tvb(at, 5), UInt64(payload))
        rt:add(f.time, tvb(at, 5), time)
        text = string.format("LOSS %d records at %s", payload, tostring(time))
        t:add_proto_expert_info(e_loss, string.format("board TX FIFO dropped %d records", payload))
      elseif op == 3 then
        local unit, n, interval = bits(payload, 32, 4), bits(payload, 16, 16), bits(payload, 0, 16)
        rt:add(f.report_unit, tvb(at, 1), unit)
        rt:add(f.report_values, tvb(at + 2, 2), n)
        rt:add(f.report_interval, tvb(at + 3, 2), interval)
        text = string.format("REPORT %s interval %d, %d values", units[unit] or "reserved unit", interval, n)
      elseif op == 4 then
        rt:add(f.report_value, tvb(at, 5), UInt64(payload))
        text = string.format("REPORT_VALUE %d", payload)
      else
        text = "reserved opcode"
        rt:add_proto_expert_info(e_bad, "reserved opcode " .. op)
      end
      rt:set_text(string.format("Record %d: %s", i, text))
    end
  end
  return tvb:len()
end

local udp = DissectorTable.get("udp.port")
for port = 7400, 7463 do udp:add(port, hmtt) end
