// The chunk codec: one time-ordered run of references as one BLOB
// (docs/store.md, "The chunk BLOB", gives the layout to the byte).
//
// Encoding is two stages so a writer can run them on two threads:
//   ChunkColumns::split  (caller thread) turns references into five columns,
//       delta/zigzag coded, frame-of-reference reduced and cut into byte planes;
//   pack_chunk           (writer thread) LZ4-compresses each plane that gains,
//       lays out header, tables, planes and the XXH64 trailer.
// ChunkDecoder validates a BLOB (size, magic, version, tables, checksum, LZ4)
// and then decodes references in order, in batches, into a caller's buffer.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hmtt/reference.h"
#include "hmtt/result.h"

namespace hmtt::store {

inline constexpr std::uint8_t kChunkMagic[4] = {'H', 'M', 'T', 'C'};
inline constexpr std::uint16_t kChunkVersion = 1;
inline constexpr int kChunkColumns = 5;
inline constexpr std::size_t kChunkHeaderBytes = 32;
inline constexpr std::size_t kColumnEntryBytes = 16;
inline constexpr std::size_t kPlaneEntryBytes = 8;
inline constexpr std::size_t kChunkTrailerBytes = 8;
inline constexpr std::uint32_t kChunkMaxRefs = 1u << 24;

// Column ids, in BLOB order.
enum class Column : int { TimeDelta = 0, AddressDelta = 1, KindOrigin = 2, Size = 3, Source = 4 };
// Widest legal plane count per column (bytes of the reduced value).
inline constexpr std::array<std::uint8_t, kChunkColumns> kColumnMaxWidth = {8, 8, 1, 4, 2};

enum class PlaneEncoding : std::uint8_t { Raw = 0, Lz4 = 1 };

// The per-chunk facts the `chunk` table indexes.
struct ChunkStats {
  std::uint32_t refs = 0;
  std::uint64_t t_first = 0;
  std::uint64_t t_last = 0;
  std::uint64_t a_min = 0;
  std::uint64_t a_max = 0;
  std::array<std::uint64_t, kKindCount> by_kind = {};
  std::uint32_t kind_mask = 0;    // bit (1 << Kind) for each kind present
  std::uint32_t origin_mask = 0;  // bit (1 << Origin) for each origin present
  std::uint64_t plane_bytes = 0;  // uncompressed plane bytes
};

// Stage 1: references -> reduced columns cut into byte planes (uncompressed).
class ChunkColumns {
 public:
  // Fails if refs is empty, longer than kChunkMaxRefs or not in time order.
  Status split(std::span<const Reference> refs);

  const ChunkStats& stats() const { return stats_; }
  std::uint64_t t_first() const { return t_first_; }
  std::uint64_t a_first() const { return a_first_; }
  std::uint64_t base(int column) const { return base_[column]; }
  std::uint8_t width(int column) const { return width_[column]; }
  // Plane bytes: column 0's planes (low byte first), then column 1's, ... each refs() long.
  std::span<const std::uint8_t> planes() const { return {planes_.data(), plane_count() * stats_.refs}; }
  std::size_t plane_count() const;

 private:
  ChunkStats stats_;
  std::uint64_t t_first_ = 0;
  std::uint64_t a_first_ = 0;
  std::array<std::uint64_t, kChunkColumns> base_ = {};
  std::array<std::uint8_t, kChunkColumns> width_ = {};
  std::vector<std::uint64_t> tdelta_, adelta_;
  std::vector<std::uint32_t> size_;
  std::vector<std::uint16_t> source_;
  std::vector<std::uint8_t> ko_;
  std::vector<std::uint8_t> planes_;
};

// Stage 2: compresses planes and lays out the BLOB at the front of `buffer`
// (grown as needed, never shrunk, so a writer reuses it); returns the BLOB's length.
// acceleration is LZ4_compress_fast's (1 = LZ4_compress_default).
std::size_t pack_chunk(const ChunkColumns& columns, int acceleration, std::vector<std::uint8_t>& buffer);

// Convenience: both stages.
Status encode_chunk(std::span<const Reference> refs, std::vector<std::uint8_t>& blob, int acceleration = 1,
                    ChunkStats* stats = nullptr);

// Reads one BLOB. load() checks everything before any reference is decoded;
// its error says what is wrong (the caller adds file and chunk id).
class ChunkDecoder {
 public:
  // The BLOB must stay alive and unchanged until the next load() (raw planes are read in place).
  Status load(std::span<const std::uint8_t> blob);

  std::uint32_t refs() const { return refs_; }
  std::uint32_t decoded() const { return pos_; }
  std::uint64_t t_first() const { return t_first_; }
  std::uint64_t a_first() const { return a_first_; }
  // Decodes the next min(out.size(), refs() - decoded()) references; returns the count.
  std::size_t next(std::span<Reference> out);

 private:
  std::uint32_t refs_ = 0;
  std::uint32_t pos_ = 0;
  std::uint64_t t_first_ = 0;
  std::uint64_t a_first_ = 0;
  std::array<std::uint64_t, kChunkColumns> base_ = {};
  std::array<std::uint8_t, kChunkColumns> width_ = {};
  std::array<std::array<const std::uint8_t*, 8>, kChunkColumns> plane_ = {};
  std::vector<std::uint8_t> unpacked_;  // decompressed LZ4 planes
  // Running state of the prefix sums.
  std::uint64_t time_ = 0;
  std::array<std::uint64_t, kKindCount> last_addr_ = {};
  std::vector<std::uint64_t> tmp_;
};

}  // namespace hmtt::store
