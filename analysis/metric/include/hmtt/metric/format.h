// The METRIC compressed-trace file (".mtrc"): byte layout in docs/metric.md.
//
// A 32-byte header, then records in the order the compressor produced them
// (POINT, KEY, IAD, DESC), then one END record that closes the file. The
// writer only appends, so a compressor streams its output; the reader
// (CompressedTrace) validates the whole file before anything is expanded.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "hmtt/metric/descriptor.h"
#include "hmtt/result.h"

namespace hmtt::metric {

inline constexpr std::array<std::uint8_t, 8> kMagic{'H', 'M', 'T', 'T', 'M', 'T', 'R', 'C'};
inline constexpr std::uint16_t kFormatVersion = 1;
inline constexpr std::uint16_t kHeaderSize = 32;
inline constexpr std::size_t kMaxDepth = 16;          // levels per descriptor (1 RSD + 15 PRSD)
inline constexpr std::size_t kMaxStringBytes = 4096;  // per string field of a POINT record

enum class RecordTag : std::uint8_t { Point = 0x01, Key = 0x02, Iad = 0x03, Desc = 0x04, End = 0x7f };

// Little helpers of the encoding, exposed for the tests and the docs' vectors.
void put_varint(std::vector<std::uint8_t>& out, std::uint64_t v);
constexpr std::uint64_t zigzag(std::uint64_t twos) {
  return (twos << 1) ^ (0 - (twos >> 63));
}
constexpr std::uint64_t unzigzag(std::uint64_t z) { return (z >> 1) ^ (0 - (z & 1)); }

// The END record's checksum over the events of a trace, in order (docs/metric.md).
class EventChecksum {
 public:
  void add(const Reference& r, std::uint32_t point);
  std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ull;
};

// What the delta-coded fields of IAD and DESC records are relative to
// (docs/metric.md, "Deltas"). Writer and reader keep one each, in step.
struct DeltaContext {
  std::uint64_t iad_next_seq = 0;             // previous IAD's sequence id + 1 (0 before the first)
  std::uint64_t iad_seq = 0, iad_time = 0;    // previous IAD's sequence id and time (0, 0 before the first)
  std::uint64_t desc_seq = 0, desc_time = 0;  // previous DESC's start sequence id and time (0, 0 before the first)
  std::vector<std::uint64_t> iad_addr;        // per key: address of the previous IAD of that key (0 before)
  std::vector<std::uint64_t> desc_addr;       // per key: start address of the previous DESC of that key (0 before)
  void add_key() {
    iad_addr.push_back(0);
    desc_addr.push_back(0);
  }
};

// Where encoded bytes go.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual Status write(std::span<const std::uint8_t> bytes) = 0;
};

class MemoryByteSink final : public ByteSink {
 public:
  Status write(std::span<const std::uint8_t> bytes) override {
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
    return Status::success();
  }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }
  std::vector<std::uint8_t> take() { return std::move(bytes_); }

 private:
  std::vector<std::uint8_t> bytes_;
};

class FileByteSink final : public ByteSink {
 public:
  static Result<std::unique_ptr<FileByteSink>> create(const std::string& path);
  ~FileByteSink() override;
  FileByteSink(const FileByteSink&) = delete;
  FileByteSink& operator=(const FileByteSink&) = delete;
  Status write(std::span<const std::uint8_t> bytes) override;
  Status close();

 private:
  FileByteSink(std::FILE* f, std::string path) : f_(f), path_(std::move(path)) {}
  std::FILE* f_;
  std::string path_;
};

// Encodes records. Buffers up to 64 KiB before writing to the sink.
class TraceWriter {
 public:
  explicit TraceWriter(ByteSink& sink) : sink_(sink) {}
  Status header(std::uint32_t window);
  Status point(std::uint32_t id, const ReferencePoint& p);
  Status key(std::uint32_t id, const EventKey& k);
  Status iad(const Iad& e);
  Status descriptor(const Descriptor& d);
  Status end(std::uint64_t events, std::uint64_t checksum);
  std::uint64_t bytes_written() const { return written_ + buf_.size(); }

 private:
  Status maybe_flush();
  Status flush();
  ByteSink& sink_;
  std::vector<std::uint8_t> buf_;
  std::uint64_t written_ = 0;
  DeltaContext ctx_;
};

// One decoded record (the variant alternative says which).
struct PointRecord { std::uint32_t id; ReferencePoint point; };
struct KeyRecord { std::uint32_t id; EventKey key; };
struct EndRecord { std::uint64_t events; std::uint64_t checksum; };
using Record = std::variant<PointRecord, KeyRecord, Iad, Descriptor, EndRecord>;

// Walks the records of a file body. Checks each record on its own and the
// references between them it needs to decode (KEY ids dense, keys defined
// before use); counts and coverage are the trace's checks.
class RecordCursor {
 public:
  RecordCursor(std::span<const std::uint8_t> file, std::string name);
  bool at_end() const { return pos_ >= file_.size(); }
  std::size_t offset() const { return pos_; }
  Result<Record> next();

 private:
  Error fail(std::size_t at, const std::string& what) const;
  bool varint(std::uint64_t& v);
  std::span<const std::uint8_t> file_;
  std::string name_;
  std::size_t pos_ = kHeaderSize;
  DeltaContext ctx_;
};

// A validated compressed trace held in memory: the file bytes, its points,
// keys and descriptors (sorted by first sequence id). IADs stay encoded and
// are decoded while expanding.
class CompressedTrace {
 public:
  static Result<CompressedTrace> parse(std::vector<std::uint8_t> bytes, std::string name);
  static Result<CompressedTrace> load(const std::string& path);

  const std::string& name() const { return name_; }
  std::uint32_t window() const { return window_; }
  std::uint64_t events() const { return events_; }
  std::uint64_t checksum() const { return checksum_; }
  std::uint64_t iad_count() const { return iads_; }
  std::uint64_t file_bytes() const { return bytes_.size(); }
  const std::vector<ReferencePoint>& points() const { return points_; }
  const std::vector<EventKey>& keys() const { return keys_; }
  const std::vector<Descriptor>& descriptors() const { return descriptors_; }
  std::span<const std::uint8_t> bytes() const { return bytes_; }
  std::uint64_t prsd_count() const;

 private:
  std::string name_;
  std::vector<std::uint8_t> bytes_;
  std::uint32_t window_ = 0;
  std::uint64_t events_ = 0;
  std::uint64_t checksum_ = 0;
  std::uint64_t iads_ = 0;
  std::vector<ReferencePoint> points_;
  std::vector<EventKey> keys_;
  std::vector<Descriptor> descriptors_;
};

}  // namespace hmtt::metric
