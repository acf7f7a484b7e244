// Pull-based reference streams: the contract between every producer of
// references (store reader, importers, receiver, simulators) and every consumer
// (store writer, exporters, analyses).
//
// A ReferenceSource is pulled in batches: read() fills the front of `out` and
// returns how many it wrote; 0 means the stream has ended. Batches keep the
// virtual call off the per-reference path. An error ends the stream; calling
// read() again after an error or after the end returns 0 or the same error.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "hmtt/reference.h"
#include "hmtt/result.h"

namespace hmtt {

class ReferenceSource {
 public:
  virtual ~ReferenceSource() = default;
  virtual Result<std::size_t> read(std::span<Reference> out) = 0;
};

class ReferenceSink {
 public:
  virtual ~ReferenceSink() = default;
  virtual Status write(std::span<const Reference> refs) = 0;
  // Flushes everything written so far to its destination.
  virtual Status finish() = 0;
};

// A source over references held in memory (tests, small generated traces).
class VectorSource final : public ReferenceSource {
 public:
  explicit VectorSource(std::vector<Reference> refs) : refs_(std::move(refs)) {}
  Result<std::size_t> read(std::span<Reference> out) override {
    std::size_t n = 0;
    while (n < out.size() && pos_ < refs_.size()) out[n++] = refs_[pos_++];
    return n;
  }

 private:
  std::vector<Reference> refs_;
  std::size_t pos_ = 0;
};

// Pulls `source` dry into `sink` in batches of `batch` references; returns the count.
Result<std::uint64_t> pump(ReferenceSource& source, ReferenceSink& sink, std::size_t batch = 4096);

// Pulls `source` dry into a vector (tests and small traces only).
Result<std::vector<Reference>> collect(ReferenceSource& source);

}  // namespace hmtt
