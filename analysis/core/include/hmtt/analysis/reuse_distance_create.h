// Knobs and factory of the reuse-distance tool (`hmtt analyze --with reuse`).
#pragma once

#include <cstdint>
#include <memory>

#include "hmtt/analysis/tool.h"

namespace hmtt::analysis {

struct ReuseDistanceKnobs {
  std::uint64_t block_bytes = 64;  // block size the distance is counted in (any size >= 1)
  bool sampled = false;            // SHARDS spatial sampling instead of the exact stack
  double rate = 0.01;              // sampling rate R when sampled
  std::uint64_t seed = 1;          // sampling hash seed
  bool verify = false;             // when sampled, also run the exact stack and report the error
};

std::unique_ptr<AnalysisTool> reuse_distance_tool_create(const ReuseDistanceKnobs& knobs);

}  // namespace hmtt::analysis
