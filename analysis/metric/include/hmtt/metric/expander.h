// Exact regeneration of a compressed trace: the events come back in their
// original order, bit for bit, without materialising the trace. Descriptors
// are enumerated lazily and merged by sequence id with the IADs, which are
// decoded from the file as they are reached. Every sequence id must be
// produced exactly once and the END checksum must match, or read() fails.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "hmtt/metric/format.h"
#include "hmtt/metric/pointed_source.h"
#include "hmtt/stream.h"

namespace hmtt::metric {

class ExpandedSource final : public PointedSource, public ReferenceSource {
 public:
  explicit ExpandedSource(std::shared_ptr<const CompressedTrace> trace);

  Result<std::size_t> read_pointed(std::span<Reference> refs, std::span<std::uint32_t> points) override;
  Result<std::size_t> read(std::span<Reference> out) override;
  const std::vector<ReferencePoint>& points() const override { return trace_->points(); }
  // Descriptors being enumerated at once (the merge's width), at most.
  std::size_t peak_open_descriptors() const { return peak_open_; }

 private:
  struct Generator {
    const Descriptor* d = nullptr;
    std::uint64_t seq = 0, addr = 0, time = 0;
    std::vector<std::uint64_t> index;  // per level
    std::vector<std::uint64_t> base_seq, base_addr, base_time;  // start of the current instance per level
    bool advance();  // false when the descriptor is exhausted
  };
  Error fail(const std::string& what) const;
  Status next_iad();
  void push_heap(std::uint32_t g);
  std::uint32_t pop_heap();

  std::shared_ptr<const CompressedTrace> trace_;
  RecordCursor iad_cursor_;
  bool have_iad_ = false;
  Iad iad_;
  std::uint64_t next_seq_ = 0;
  std::size_t next_desc_ = 0;
  std::vector<Generator> gens_;
  std::vector<std::uint32_t> free_gens_;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> heap_;  // (next seq, generator), min-heap
  EventChecksum checksum_;
  bool failed_ = false;
  Error error_;
  bool done_ = false;
  std::size_t peak_open_ = 0;
  std::vector<std::uint32_t> point_buf_;
};

}  // namespace hmtt::metric
