// A reference stream in which every reference carries the reference point it
// is attributed to: what METRIC compresses and what its cache analysis
// consumes. Built-in kernels, a classified hmtt::ReferenceSource and an
// expanded compressed trace all provide one.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hmtt/metric/descriptor.h"
#include "hmtt/reference.h"
#include "hmtt/result.h"

namespace hmtt::metric {

class PointedSource {
 public:
  virtual ~PointedSource() = default;
  // Fills the fronts of `refs` and `points` (same length) and returns how many;
  // 0 = the end. An error ends the stream.
  virtual Result<std::size_t> read_pointed(std::span<Reference> refs, std::span<std::uint32_t> points) = 0;
  // The reference points known so far, indexed by id. May grow while reading,
  // never changes an existing entry.
  virtual const std::vector<ReferencePoint>& points() const = 0;
};

}  // namespace hmtt::metric
