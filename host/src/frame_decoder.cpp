#include "hmtt/host/frame_decoder.h"

#include "hmtt/host/checksums.h"

#include <bit>
#include <cstring>

namespace hmtt::host {

namespace {

// Decodes the records, the references into `o` (room for h.count of them) and the rest into `out`;
// false on any rule of docs/wire-format.md section 3 broken. `refs` is set to the references decoded.
bool records_ok(std::span<const std::uint8_t> b, const wire::FrameHeader& h, wire::DecodedFrame& out, Reference* o,
                std::size_t& refs) {
  const unsigned abits = h.addr_bits;
  const unsigned dbits = wire::duration_bits(abits);
  const std::uint64_t dmask = (std::uint64_t{1} << dbits) - 1;
  const std::uint64_t amask = (std::uint64_t{1} << abits) - 1;
  const std::uint32_t unit_bytes = 1u << h.line_shift;
  const unsigned shift = h.line_shift;
  std::uint64_t t = h.base_time;
  bool pending_overflow = false;
  std::size_t report_left = 0;
  const std::size_t n = h.count;
  // References written through a pointer into room for every record (push_back kept the vector's
  // end in memory, a load and a store per reference); the caller cuts to the references decoded.
  std::size_t k = 0;
  const std::uint8_t* p = b.data() + wire::kHeaderBytes;
  // The record at p as a 40-bit value (8 bytes from a record's start stay inside the frame: the
  // 4-byte CRC follows the last record).
  auto record = [](const std::uint8_t* at) {
    std::uint64_t word;
    std::memcpy(&word, at, sizeof word);
    if constexpr (std::endian::native == std::endian::little) word = __builtin_bswap64(word);
    return word >> 24;
  };
  for (std::size_t i = 0; i < n; ++i, p += wire::kRecordBytes) {
    // References, the bulk of a frame, in a loop of their own that keeps its few variables in
    // registers (with the control records' cases in the same loop they were kept on the stack).
    if (report_left == 0) {
      std::uint64_t tt = t;
      Reference* w = o + k;
      const std::uint8_t* q = p;
      const std::uint8_t* const last = b.data() + wire::kHeaderBytes + n * wire::kRecordBytes;
      bool wrapped = false;
      for (; q != last; q += wire::kRecordBytes) {
        const std::uint64_t r = record(q);
        if ((r >> 39) != 0) break;
        const std::uint64_t d = r & dmask;
        wrapped |= tt + d < tt;
        tt += d;
        *w++ = Reference{tt, ((r >> dbits) & amask) << shift, unit_bytes, ((r >> 38) & 1) ? Kind::Write : Kind::Read,
                         Origin::Unknown, 0};
      }
      if (wrapped) return false;
      if (q != p) pending_overflow = false;
      t = tt;
      k = static_cast<std::size_t>(w - o);
      i += static_cast<std::size_t>(q - p) / wire::kRecordBytes;
      p = q;
      if (i == n) break;
    }
    const std::uint64_t r = record(p);
    if ((r >> 39) == 0) return false;  // a reference inside a report's values
    const unsigned op = static_cast<unsigned>((r >> 36) & 7);
    const std::uint64_t payload = r & wire::kPayloadMask;
    if (report_left > 0 && op != 4) return false;
    switch (op) {
      case 0:  // OVERFLOW
        if (t + payload < t) return false;
        t += payload;
        pending_overflow = true;
        break;
      case 1: {  // EVENT
        const std::uint64_t d = payload >> 24;
        if (t + d < t) return false;
        t += d;
        out.events.push_back(wire::DecodedEvent{t, static_cast<std::uint32_t>(payload & wire::kEventIndexMask),
                                                ((payload >> 23) & 1) != 0});
        pending_overflow = false;
        break;
      }
      case 2:  // LOSS
        if (pending_overflow) return false;
        out.losses.push_back(wire::DecodedLoss{t, payload});
        break;
      case 3: {  // REPORT
        if (pending_overflow) return false;
        wire::DecodedReport rep;
        rep.time = t;
        rep.unit = static_cast<std::uint8_t>((payload >> 32) & 0xF);
        rep.interval = static_cast<std::uint16_t>(payload & 0xFFFF);
        report_left = static_cast<std::size_t>((payload >> 16) & 0xFFFF);
        if (rep.unit > 1) return false;
        if (report_left > n - i - 1) return false;
        rep.values.reserve(report_left);
        out.reports.push_back(std::move(rep));
        break;
      }
      case 4:  // REPORT_VALUE
        if (report_left == 0) return false;
        out.reports.back().values.push_back(payload);
        --report_left;
        break;
      default:
        return false;
    }
  }
  refs = k;
  if (pending_overflow) return false;
  out.end_time = t;
  return true;
}

// The header and length checks, then records_ok. `room(n)` gives room for n references.
// `crc_ok`: frame_crc_ok(b) is known true, so the CRC is not computed again.
template <typename Room>
bool frame_ok(std::span<const std::uint8_t> b, wire::DecodedFrame& out, Room room, std::size_t& refs,
              bool crc_ok = false) {
  // Everything but the references: the caller's room holds them.
  out.events.clear();
  out.losses.clear();
  out.reports.clear();
  out.end_time = 0;
  refs = 0;
  wire::FrameHeader h;
  if (!wire::read_header(b, h) || !wire::header_valid(h)) return false;
  out.header = h;
  const std::size_t expect = wire::kHeaderBytes + wire::kRecordBytes * h.count + wire::kCrcBytes;
  return b.size() == expect &&
         (crc_ok || wire::load_be32(&b[expect - wire::kCrcBytes]) == fast_crc32(b.first(expect - wire::kCrcBytes))) &&
         records_ok(b, h, out, room(h.count), refs);
}

// Rejected: the codec names the frame, record and field.
Status rejection(std::span<const std::uint8_t> b, wire::DecodedFrame& out) {
  Status s = wire::decode_frame(b, out);
  out.clear();
  if (s.ok()) return make_error("receiver: frame decoders disagree (accepted by the codec, rejected by the receiver)");
  return s;
}

}  // namespace

Status decode_link_frame(std::span<const std::uint8_t> b, wire::DecodedFrame& out) {
  // A vector reused at its last frame's size is not zero-filled again.
  std::size_t refs = 0;
  const bool ok = frame_ok(
      b, out,
      [&out](std::size_t n) {
        out.refs.resize(n);
        return out.refs.data();
      },
      refs);
  out.refs.resize(refs);
  if (ok) return Status::success();
  return rejection(b, out);
}

bool frame_crc_ok(std::span<const std::uint8_t> b) {
  return b.size() >= wire::kCrcBytes &&
         wire::load_be32(&b[b.size() - wire::kCrcBytes]) == fast_crc32(b.first(b.size() - wire::kCrcBytes));
}

Status decode_link_frame(std::span<const std::uint8_t> b, wire::DecodedFrame& side, std::span<Reference> room,
                         std::size_t& refs, bool crc_ok) {
  side.refs.clear();
  refs = 0;
  if (room.size() < wire::kMaxRecords)
    return make_error("receiver: room for " + std::to_string(room.size()) + " references, less than a frame's " +
                      std::to_string(wire::kMaxRecords));
  if (frame_ok(b, side, [&room](std::size_t) { return room.data(); }, refs, crc_ok)) return Status::success();
  refs = 0;
  return rejection(b, side);
}

}  // namespace hmtt::host
