// Online compression of an event stream into RSDs, PRSDs and IADs (METRIC,
// Section 5 and Fig. 3), in memory bounded by the window, the number of
// distinct event keys and the folding depth, never by the trace length.
//
//   reservation pool  the last 2(w-1) events not yet in a pattern, a ring
//                     indexed by sequence id. A new event that no active RSD
//                     expects enters the pool; if events of the same key sit at
//                     sequence ids s-2i and s-i (1 <= i < w) with the same
//                     address and time differences, the three form an RSD of
//                     length 3 (the paper's minimum).
//   stream table      the active RSDs, indexed by the sequence id each expects
//                     next; an event that matches is absorbed (length + 1), an
//                     RSD whose expected event does not match is closed.
//   folding           a closed RSD is folded, per key, into a PRSD when it has
//                     the same shape as the previous one and starts a constant
//                     base-address / sequence-id / time shift later; a closed
//                     PRSD folds one level up in the same way (nested loops).
//   IADs              events that leave the pool unabsorbed.
//
// Separating events by key is the paper's "per access type": a key is the
// reference point plus the access kind, size, origin and source.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "hmtt/metric/descriptor.h"
#include "hmtt/metric/format.h"
#include "hmtt/metric/pointed_source.h"

namespace hmtt::metric {

struct CompressorOptions {
  std::uint32_t window = 64;        // w: RSD sequence-id strides 1..w-1 (2..4096)
  std::uint32_t fold_levels = 8;    // PRSD nesting levels tried per key (0..15)
  std::uint32_t max_keys = 1u << 16;  // distinct event keys before compression fails
};

struct CompressionStats {
  std::uint64_t events = 0;
  std::uint64_t iads = 0;
  std::uint64_t rsds = 0;            // descriptors written without a PRSD level
  std::uint64_t prsds = 0;           // descriptors written with PRSD levels
  std::uint64_t descriptor_events = 0;
  std::uint64_t file_bytes = 0;
  std::uint64_t keys = 0;
  std::uint64_t points = 0;
  std::uint64_t peak_active_rsds = 0;
  std::uint64_t state_bytes = 0;     // bound of the compressor's working memory (see state_bytes())
  // raw = events x 24 bytes (sizeof(hmtt::Reference)) over the compressed file.
  double ratio() const {
    return file_bytes == 0 ? 0.0 : static_cast<double>(events) * 24.0 / static_cast<double>(file_bytes);
  }
};

class TraceCompressor {
 public:
  TraceCompressor(ByteSink& sink, CompressorOptions options = {});

  // Writes the header. Must come first; compress() calls it.
  Status begin();
  // Declares reference point `id` (ids are dense, from 0, in order).
  Status define_point(std::uint32_t id, const ReferencePoint& point);
  // One event; `point` must have been defined.
  Status append(const Reference& ref, std::uint32_t point);
  // Closes every pattern, writes the END record.
  Result<CompressionStats> finish();

  // Bytes of working state in use now: pool, stream table and one fold stack
  // per key. Bounded by O(w + keys * fold_levels * depth), whatever the length.
  std::uint64_t state_bytes() const;

 private:
  struct PoolEntry {
    bool live = false;
    std::uint32_t key = 0;
    std::uint64_t seq = 0, addr = 0, time = 0;
  };
  struct Active {
    std::uint32_t key = 0;
    std::uint64_t start_seq = 0, start_addr = 0, start_time = 0;
    std::uint64_t length = 0;
    std::uint64_t seq_stride = 0, addr_stride = 0, time_stride = 0;
    std::uint64_t next_seq = 0, next_addr = 0, next_time = 0;
  };
  struct FoldGroup {
    bool open = false;
    Descriptor first;       // the first instance (also the shape)
    std::uint64_t count = 0;
    Step shift;             // valid when count >= 2 (count field unused)
  };
  struct KeyHash {
    std::size_t operator()(const EventKey& k) const;
  };

  Result<std::uint32_t> intern(const EventKey& k);
  Status emit_iad(const PoolEntry& e);
  Status close_active(std::uint32_t idx);
  Status fold(Descriptor d, std::uint32_t level);
  bool completes_rsd(const Active& a) const;
  bool completes_parent(const FoldGroup& g, std::uint32_t key, std::uint32_t level) const;
  Status write_descriptor(const Descriptor& d);
  static Descriptor close_group(const FoldGroup& g);

  TraceWriter writer_;
  CompressorOptions opt_;
  bool begun_ = false;
  bool finished_ = false;
  std::uint64_t seq_ = 0;
  EventChecksum checksum_;
  std::uint32_t points_ = 0;
  std::unordered_map<EventKey, std::uint32_t, KeyHash> key_ids_;
  std::vector<EventKey> keys_;
  std::vector<std::vector<FoldGroup>> folds_;  // [key][level]
  std::vector<PoolEntry> pool_;                // ring of 2w entries by seq
  std::vector<Active> active_;                 // free-listed stream table
  std::vector<std::uint32_t> free_active_;
  std::vector<std::vector<std::uint32_t>> slots_;  // ring of w: actives expecting that seq
  std::uint64_t active_count_ = 0;
  CompressionStats stats_;
};

// Pulls `source` dry into a compressed trace written to `sink`.
Result<CompressionStats> compress(PointedSource& source, ByteSink& sink, CompressorOptions options = {});

}  // namespace hmtt::metric
