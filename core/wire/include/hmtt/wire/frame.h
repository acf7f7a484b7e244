// The HMTT wire format, version 1 (docs/wire-format.md): 5-byte records in
// frames with a 28-byte header and a CRC-32 trailer.
//
// FrameEncoder is the reference packer+framer: it turns time-stamped board
// items into records (durations, OVERFLOW chains) and records into frames
// spread round-robin over the board's links. decode_frame is the host side:
// it checks every field and restores absolute times. The RTL and the C++ board
// model must produce exactly the bytes FrameEncoder produces.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <vector>

#include "hmtt/reference.h"
#include "hmtt/result.h"
#include "hmtt/wire/bytes.h"

namespace hmtt::wire {

inline constexpr std::uint8_t kVersion = 1;
inline constexpr std::size_t kHeaderBytes = 28;
inline constexpr std::size_t kRecordBytes = 5;
inline constexpr std::size_t kCrcBytes = 4;
inline constexpr std::size_t kMaxRecords = 288;
inline constexpr std::size_t kMaxFrameBytes = kHeaderBytes + kRecordBytes * kMaxRecords + kCrcBytes;  // 1472
inline constexpr unsigned kMinAddrBits = 20;
inline constexpr unsigned kMaxAddrBits = 32;
inline constexpr unsigned kMaxLineShift = 12;
inline constexpr unsigned kMaxLinks = 4;
inline constexpr std::uint64_t kPayloadMask = (std::uint64_t{1} << 36) - 1;
inline constexpr unsigned kEventDurationBits = 12;
inline constexpr std::uint32_t kEventIndexMask = (1u << 23) - 1;

// Config-space indices of the inner commands (offset >> 6).
inline constexpr std::uint32_t kBeginTracing = 0;
inline constexpr std::uint32_t kEndTracing = 1;
inline constexpr std::uint32_t kSyncTag = 2;
inline constexpr std::uint32_t kFirstUserEvent = 64;  // offset 0x1000

enum class Opcode : std::uint8_t { Overflow = 0, Event = 1, Loss = 2, Report = 3, ReportValue = 4 };

struct FrameHeader {
  std::uint8_t version = kVersion;
  std::uint8_t board = 0;
  std::uint8_t link = 0;
  std::uint8_t addr_bits = 26;
  std::uint8_t line_shift = 6;
  std::uint8_t flags = 0;  // bit 0: tracing active
  std::uint16_t count = 0;
  std::uint32_t sequence = 0;
  std::uint64_t base_time = 0;
  std::uint32_t clock_khz = 200000;

  friend bool operator==(const FrameHeader&, const FrameHeader&) = default;
};

// The header's fields as they lie in the first kHeaderBytes of a frame; false (h untouched) if
// `bytes` is shorter than that or does not start with the magic "HMTT". No field is checked:
// header_valid does that, parse_header says which field is wrong. (Both the codec and the
// receiver's line-rate decoder read headers through these two.)
inline bool read_header(std::span<const std::uint8_t> b, FrameHeader& h) {
  if (b.size() < kHeaderBytes || b[0] != 'H' || b[1] != 'M' || b[2] != 'T' || b[3] != 'T') return false;
  h.version = b[4];
  h.board = b[5];
  h.link = b[6];
  h.addr_bits = b[7];
  h.line_shift = b[8];
  h.flags = b[9];
  h.count = load_be16(&b[10]);
  h.sequence = load_be32(&b[12]);
  h.base_time = load_be64(&b[16]);
  h.clock_khz = load_be32(&b[24]);
  return true;
}

// Every header field within the format's ranges (docs/wire-format.md, section 2), the rule
// parse_header applies field by field with its messages (tests/wire: both accept the same headers).
inline bool header_valid(const FrameHeader& h) {
  return h.version == kVersion && h.link < kMaxLinks && h.addr_bits >= kMinAddrBits && h.addr_bits <= kMaxAddrBits &&
         h.line_shift <= kMaxLineShift && (h.flags & 0xFE) == 0 && h.count <= kMaxRecords && h.clock_khz != 0;
}

// --- raw records (a 40-bit value in the low bits of a uint64) ---------------

constexpr unsigned duration_bits(unsigned addr_bits) { return 38 - addr_bits; }

constexpr std::uint64_t reference_record(bool write, std::uint64_t addr_field, std::uint64_t duration,
                                         unsigned addr_bits) {
  const unsigned d = duration_bits(addr_bits);
  return (std::uint64_t{write} << 38) | ((addr_field & ((std::uint64_t{1} << addr_bits) - 1)) << d) |
         (duration & ((std::uint64_t{1} << d) - 1));
}

constexpr std::uint64_t control_record(Opcode op, std::uint64_t payload) {
  return (std::uint64_t{1} << 39) | (std::uint64_t{static_cast<std::uint8_t>(op)} << 36) | (payload & kPayloadMask);
}

constexpr std::uint64_t event_record(std::uint64_t duration, bool write, std::uint32_t index) {
  return control_record(Opcode::Event, ((duration & 0xFFF) << 24) | (std::uint64_t{write} << 23) |
                                           (index & kEventIndexMask));
}

// 5 bytes, big-endian.
inline void put_record(std::uint64_t record, std::uint8_t* out) {
  for (int i = 0; i < 5; ++i) out[i] = static_cast<std::uint8_t>(record >> (32 - 8 * i));
}
std::uint64_t get_record(const std::uint8_t* in);

// --- decoded items ----------------------------------------------------------

struct DecodedEvent {
  std::uint64_t time = 0;
  std::uint32_t index = 0;  // config-space index
  bool write = false;
  friend bool operator==(const DecodedEvent&, const DecodedEvent&) = default;
};

struct DecodedLoss {
  std::uint64_t time = 0;   // time of the record before the hole
  std::uint64_t count = 0;  // records dropped
  friend bool operator==(const DecodedLoss&, const DecodedLoss&) = default;
};

struct DecodedReport {
  std::uint64_t time = 0;
  std::uint8_t unit = 0;
  std::uint16_t interval = 0;
  std::vector<std::uint64_t> values;
  friend bool operator==(const DecodedReport&, const DecodedReport&) = default;
};

struct DecodedFrame {
  FrameHeader header;
  std::vector<Reference> refs;  // kind Read/Write, origin Unknown, size = 1 << line_shift
  std::vector<DecodedEvent> events;
  std::vector<DecodedLoss> losses;
  std::vector<DecodedReport> reports;
  std::uint64_t end_time = 0;  // time after the last record (base_time + all durations)

  void clear();
};

// Checks and parses the 28-byte header (does not check the CRC).
Result<FrameHeader> parse_header(std::span<const std::uint8_t> bytes);
void write_header(const FrameHeader& h, std::uint8_t* out);

// Decodes one whole frame (header, records, CRC) into `out` (buffers reused).
// Errors name the board, link, sequence, record index and field.
Status decode_frame(std::span<const std::uint8_t> bytes, DecodedFrame& out);

std::uint32_t crc32(std::span<const std::uint8_t> bytes);

// --- encoder -----------------------------------------------------------------

struct EncoderConfig {
  std::uint8_t board = 0;
  std::uint8_t links = 1;            // 1..4; frames go round-robin
  std::uint8_t addr_bits = 26;
  std::uint8_t line_shift = 6;
  std::uint32_t clock_khz = 200000;
  std::uint16_t records_per_frame = kMaxRecords;  // close a frame at this many records
};

struct EncodedFrame {
  std::uint8_t link = 0;
  std::uint32_t sequence = 0;
  std::vector<std::uint8_t> bytes;
};

// Packs time-stamped items into records and frames. Times must not decrease.
class FrameEncoder {
 public:
  static Result<FrameEncoder> create(const EncoderConfig& config);

  // A reference at absolute `time` of byte address `address` (must fit addr_bits after line_shift).
  // Inline: the common case (the gap fits the duration field, the address fits) is the board
  // model's per-reference step; everything else goes through add_reference_checked.
  Status add_reference(std::uint64_t time, std::uint64_t address, bool write) {
    const std::uint64_t field = address >> config_.line_shift;
    const std::uint64_t gap = time - last_time_;
    if (time < last_time_ || (field >> config_.addr_bits) != 0 || gap > ref_dmax_) [[unlikely]]
      return add_reference_checked(time, address, write);
    if (open_count_ == 0) open_frame();
    append(reference_record(write, field, gap, config_.addr_bits));
    last_time_ = time;
    if (open_count_ >= config_.records_per_frame) close_frame();
    return Status::success();
  }
  Status add_event(std::uint64_t time, std::uint32_t index, bool write);
  void add_loss(std::uint64_t count);
  Status add_report(std::uint8_t unit, std::uint16_t interval, std::span<const std::uint64_t> values);
  void set_tracing(bool active) { tracing_ = active; }

  // Closes the open frame, if it has records.
  void flush();
  // Frames completed so far, oldest first.
  bool has_frame() const { return !done_.empty(); }
  EncodedFrame pop_frame();
  std::uint64_t last_time() const { return last_time_; }

 private:
  explicit FrameEncoder(const EncoderConfig& c)
      : config_(c), sequence_(c.links, 0), ref_dmax_((std::uint64_t{1} << duration_bits(c.addr_bits)) - 1) {}
  Status add_reference_checked(std::uint64_t time, std::uint64_t address, bool write);
  Status check_time(std::uint64_t time) const;
  Status check_gap(std::uint64_t gap, std::uint64_t field_max) const;
  void ensure_room(std::size_t records);
  // The first record of a frame fixes its base_time and tracing flag.
  void open_frame() {
    open_base_ = last_time_;
    open_flags_ = tracing_ ? 1 : 0;
  }
  void append(std::uint64_t record) {
    put_record(record, open_.data() + open_count_ * kRecordBytes);
    ++open_count_;
  }
  // Appends OVERFLOW records for `gap` beyond what `field_max` can carry; returns the remainder.
  std::uint64_t append_overflow(std::uint64_t gap, std::uint64_t field_max);
  void close_frame();

  EncoderConfig config_;
  std::vector<std::uint32_t> sequence_;
  std::deque<EncodedFrame> done_;
  std::uint64_t ref_dmax_ = 0;      // largest duration a reference record carries
  std::array<std::uint8_t, kMaxRecords * kRecordBytes> open_{};  // records of the open frame
  std::size_t open_count_ = 0;
  std::uint64_t open_base_ = 0;
  std::uint8_t open_flags_ = 0;
  std::uint64_t last_time_ = 0;
  std::uint8_t next_link_ = 0;
  bool tracing_ = true;
};

}  // namespace hmtt::wire
