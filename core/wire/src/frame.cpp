#include "hmtt/wire/frame.h"

#include <zlib.h>

#include <algorithm>
#include <string>

namespace hmtt::wire {

namespace {

std::string where(const FrameHeader& h) {
  return "frame board " + std::to_string(h.board) + " link " + std::to_string(h.link) + " seq " +
         std::to_string(h.sequence);
}

}  // namespace

std::uint64_t get_record(const std::uint8_t* in) {
  return (std::uint64_t{in[0]} << 32) | (std::uint64_t{in[1]} << 24) | (std::uint64_t{in[2]} << 16) |
         (std::uint64_t{in[3]} << 8) | in[4];
}

std::uint32_t crc32(std::span<const std::uint8_t> bytes) {
  uLong c = ::crc32(0L, Z_NULL, 0);
  c = ::crc32(c, bytes.data(), static_cast<uInt>(bytes.size()));
  return static_cast<std::uint32_t>(c);
}

void DecodedFrame::clear() {
  refs.clear();
  events.clear();
  losses.clear();
  reports.clear();
  end_time = 0;
}

Result<FrameHeader> parse_header(std::span<const std::uint8_t> b) {
  if (b.size() < kHeaderBytes)
    return make_error("frame: " + std::to_string(b.size()) + " bytes is shorter than the 28-byte header");
  FrameHeader h;
  if (!read_header(b, h)) return make_error("frame: bad magic (not \"HMTT\")");
  const std::string at = where(h);
  if (h.version != kVersion) return make_error(at + ": unsupported version " + std::to_string(h.version));
  if (h.link >= kMaxLinks) return make_error(at + ": link_id " + std::to_string(h.link) + " is not 0-3");
  if (h.addr_bits < kMinAddrBits || h.addr_bits > kMaxAddrBits)
    return make_error(at + ": addr_bits " + std::to_string(h.addr_bits) + " is not 20-32");
  if (h.line_shift > kMaxLineShift)
    return make_error(at + ": line_shift " + std::to_string(h.line_shift) + " is not 0-12");
  if ((h.flags & 0xFE) != 0) return make_error(at + ": reserved flag bits set");
  if (h.count > kMaxRecords) return make_error(at + ": count " + std::to_string(h.count) + " exceeds 288");
  if (h.clock_khz == 0) return make_error(at + ": clock_khz is 0");
  return h;
}

void write_header(const FrameHeader& h, std::uint8_t* out) {
  out[0] = 'H';
  out[1] = 'M';
  out[2] = 'T';
  out[3] = 'T';
  out[4] = h.version;
  out[5] = h.board;
  out[6] = h.link;
  out[7] = h.addr_bits;
  out[8] = h.line_shift;
  out[9] = h.flags;
  store_be16(h.count, out + 10);
  store_be32(h.sequence, out + 12);
  store_be64(h.base_time, out + 16);
  store_be32(h.clock_khz, out + 24);
}

Status decode_frame(std::span<const std::uint8_t> b, DecodedFrame& out) {
  out.clear();
  auto hr = parse_header(b);
  if (!hr) return hr.error();
  const FrameHeader h = *hr;
  out.header = h;
  const std::string at = where(h);
  const std::size_t expect = kHeaderBytes + kRecordBytes * h.count + kCrcBytes;
  if (b.size() != expect)
    return make_error(at + ": length " + std::to_string(b.size()) + " bytes, count " + std::to_string(h.count) +
                      " needs " + std::to_string(expect));
  const std::uint32_t want = load_be32(&b[expect - kCrcBytes]);
  const std::uint32_t got = crc32(b.first(expect - kCrcBytes));
  if (want != got) return make_error(at + ": CRC-32 mismatch");

  const unsigned abits = h.addr_bits;
  const unsigned dbits = duration_bits(abits);
  const std::uint64_t dmask = (std::uint64_t{1} << dbits) - 1;
  const std::uint64_t amask = (std::uint64_t{1} << abits) - 1;
  const std::uint32_t unit_bytes = 1u << h.line_shift;
  std::uint64_t t = h.base_time;
  bool pending_overflow = false;
  std::size_t report_left = 0;
  out.refs.reserve(h.count);

  auto add_time = [&](std::uint64_t d, std::size_t i) -> Status {
    if (t + d < t) return make_error(at + ": record " + std::to_string(i) + ": time overflows 64 bits");
    t += d;
    return Status::success();
  };

  for (std::size_t i = 0; i < h.count; ++i) {
    const std::uint64_t r = get_record(&b[kHeaderBytes + kRecordBytes * i]);
    const std::string rec_at = at + ": record " + std::to_string(i);
    if (report_left > 0 && (r >> 36) != 0xC)
      return make_error(rec_at + ": expected REPORT_VALUE, " + std::to_string(report_left) + " still owed");
    if ((r >> 39) == 0) {
      HMTT_TRY(add_time(r & dmask, i));
      Reference ref;
      ref.time = t;
      ref.address = ((r >> dbits) & amask) << h.line_shift;
      ref.size = unit_bytes;
      ref.kind = ((r >> 38) & 1) ? Kind::Write : Kind::Read;
      out.refs.push_back(ref);
      pending_overflow = false;
      continue;
    }
    const unsigned op = static_cast<unsigned>((r >> 36) & 7);
    const std::uint64_t payload = r & kPayloadMask;
    switch (op) {
      case 0:  // OVERFLOW
        HMTT_TRY(add_time(payload, i));
        pending_overflow = true;
        break;
      case 1: {  // EVENT
        HMTT_TRY(add_time(payload >> 24, i));
        out.events.push_back(DecodedEvent{t, static_cast<std::uint32_t>(payload & kEventIndexMask),
                                          ((payload >> 23) & 1) != 0});
        pending_overflow = false;
        break;
      }
      case 2:  // LOSS
        if (pending_overflow) return make_error(rec_at + ": LOSS between OVERFLOW and its record");
        out.losses.push_back(DecodedLoss{t, payload});
        break;
      case 3: {  // REPORT
        if (pending_overflow) return make_error(rec_at + ": REPORT between OVERFLOW and its record");
        DecodedReport rep;
        rep.time = t;
        rep.unit = static_cast<std::uint8_t>((payload >> 32) & 0xF);
        rep.interval = static_cast<std::uint16_t>(payload & 0xFFFF);
        report_left = static_cast<std::size_t>((payload >> 16) & 0xFFFF);
        if (rep.unit > 1) return make_error(rec_at + ": REPORT unit " + std::to_string(rep.unit) + " is reserved");
        if (report_left > h.count - i - 1)
          return make_error(rec_at + ": REPORT announces " + std::to_string(report_left) +
                            " values but the frame ends first");
        rep.values.reserve(report_left);
        out.reports.push_back(std::move(rep));
        break;
      }
      case 4:  // REPORT_VALUE
        if (report_left == 0) return make_error(rec_at + ": REPORT_VALUE without a REPORT");
        out.reports.back().values.push_back(payload);
        --report_left;
        break;
      default:
        return make_error(rec_at + ": reserved opcode " + std::to_string(op));
    }
  }
  if (pending_overflow) return make_error(at + ": frame ends with an OVERFLOW record");
  out.end_time = t;
  return Status::success();
}

// --- encoder -----------------------------------------------------------------

Result<FrameEncoder> FrameEncoder::create(const EncoderConfig& c) {
  if (c.links < 1 || c.links > kMaxLinks) return make_error("encoder: links must be 1-4");
  if (c.addr_bits < kMinAddrBits || c.addr_bits > kMaxAddrBits) return make_error("encoder: addr_bits must be 20-32");
  if (c.line_shift > kMaxLineShift) return make_error("encoder: line_shift must be 0-12");
  if (c.clock_khz == 0) return make_error("encoder: clock_khz must not be 0");
  if (c.records_per_frame < 8 || c.records_per_frame > kMaxRecords)
    return make_error("encoder: records_per_frame must be 8-288");
  return FrameEncoder(c);
}

Status FrameEncoder::check_time(std::uint64_t time) const {
  if (time < last_time_)
    return make_error("encoder: time " + std::to_string(time) + " is before the previous record's " +
                      std::to_string(last_time_));
  return Status::success();
}

void FrameEncoder::ensure_room(std::size_t records) {
  if (open_count_ + records > config_.records_per_frame) close_frame();
  if (open_count_ == 0) open_frame();
}

std::uint64_t FrameEncoder::append_overflow(std::uint64_t gap, std::uint64_t field_max) {
  if (gap <= field_max) return gap;
  while (gap > 0) {
    const std::uint64_t part = gap > kPayloadMask ? kPayloadMask : gap;
    append(control_record(Opcode::Overflow, part));
    gap -= part;
  }
  return 0;
}

namespace {
std::size_t overflow_records(std::uint64_t gap, std::uint64_t field_max) {
  if (gap <= field_max) return 0;
  return static_cast<std::size_t>((gap + kPayloadMask - 1) / kPayloadMask);
}
}  // namespace

Status FrameEncoder::check_gap(std::uint64_t gap, std::uint64_t field_max) const {
  if (overflow_records(gap, field_max) + 1 > config_.records_per_frame)
    return make_error("encoder: a gap of " + std::to_string(gap) + " cycles needs more OVERFLOW records than a frame holds");
  return Status::success();
}

Status FrameEncoder::add_reference_checked(std::uint64_t time, std::uint64_t address, bool write) {
  HMTT_TRY(check_time(time));
  const std::uint64_t field = address >> config_.line_shift;
  if (config_.addr_bits < 64 && (field >> config_.addr_bits) != 0)
    return make_error("encoder: address " + std::to_string(address) + " does not fit " +
                      std::to_string(config_.addr_bits) + " address bits");
  const std::uint64_t dmax = (std::uint64_t{1} << duration_bits(config_.addr_bits)) - 1;
  const std::uint64_t gap = time - last_time_;
  HMTT_TRY(check_gap(gap, dmax));
  ensure_room(overflow_records(gap, dmax) + 1);
  const std::uint64_t d = append_overflow(gap, dmax);
  append(reference_record(write, field, d, config_.addr_bits));
  last_time_ = time;
  if (open_count_ >= config_.records_per_frame) close_frame();
  return Status::success();
}

Status FrameEncoder::add_event(std::uint64_t time, std::uint32_t index, bool write) {
  HMTT_TRY(check_time(time));
  if (index > kEventIndexMask) return make_error("encoder: event index " + std::to_string(index) + " exceeds 23 bits");
  const std::uint64_t dmax = (std::uint64_t{1} << kEventDurationBits) - 1;
  const std::uint64_t gap = time - last_time_;
  HMTT_TRY(check_gap(gap, dmax));
  ensure_room(overflow_records(gap, dmax) + 1);
  const std::uint64_t d = append_overflow(gap, dmax);
  append(event_record(d, write, index));
  last_time_ = time;
  if (open_count_ >= config_.records_per_frame) close_frame();
  return Status::success();
}

void FrameEncoder::add_loss(std::uint64_t count) {
  ensure_room(1);
  append(control_record(Opcode::Loss, count > kPayloadMask ? kPayloadMask : count));
  if (open_count_ >= config_.records_per_frame) close_frame();
}

Status FrameEncoder::add_report(std::uint8_t unit, std::uint16_t interval, std::span<const std::uint64_t> values) {
  if (unit > 1) return make_error("encoder: report unit " + std::to_string(unit) + " is reserved");
  if (values.size() + 1 > config_.records_per_frame)
    return make_error("encoder: report of " + std::to_string(values.size()) + " values does not fit one frame");
  ensure_room(values.size() + 1);
  append(control_record(Opcode::Report, (std::uint64_t{unit} << 32) | (std::uint64_t{values.size()} << 16) | interval));
  for (auto v : values) append(control_record(Opcode::ReportValue, v));
  if (open_count_ >= config_.records_per_frame) close_frame();
  return Status::success();
}

void FrameEncoder::close_frame() {
  if (open_count_ == 0) return;
  FrameHeader h;
  h.board = config_.board;
  h.link = next_link_;
  h.addr_bits = config_.addr_bits;
  h.line_shift = config_.line_shift;
  h.flags = open_flags_;
  h.count = static_cast<std::uint16_t>(open_count_);
  h.sequence = sequence_[next_link_]++;
  h.base_time = open_base_;
  h.clock_khz = config_.clock_khz;
  EncodedFrame f;
  f.link = next_link_;
  f.sequence = h.sequence;
  const std::size_t record_bytes = open_count_ * kRecordBytes;
  f.bytes.resize(kHeaderBytes + record_bytes + kCrcBytes);
  write_header(h, f.bytes.data());
  std::copy_n(open_.begin(), record_bytes, f.bytes.begin() + kHeaderBytes);
  const std::uint32_t c = crc32(std::span<const std::uint8_t>(f.bytes.data(), kHeaderBytes + record_bytes));
  store_be32(c, f.bytes.data() + kHeaderBytes + record_bytes);
  done_.push_back(std::move(f));
  open_count_ = 0;
  next_link_ = static_cast<std::uint8_t>((next_link_ + 1) % config_.links);
}

void FrameEncoder::flush() { close_frame(); }

EncodedFrame FrameEncoder::pop_frame() {
  EncodedFrame f = std::move(done_.front());
  done_.pop_front();
  return f;
}

}  // namespace hmtt::wire
