// Knobs and factory of the cache-surface tool (`hmtt analyze --with surface`).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "hmtt/analysis/tool.h"

namespace hmtt::analysis {

struct CacheSurfaceKnobs {
  // Block widths in bytes (Chameleon: 8..512) and depths in blocks (2^0..2^16).
  std::vector<std::uint64_t> widths = {8, 16, 32, 64, 128, 256, 512};
  std::vector<std::uint64_t> depths = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096,
                                       8192, 16384, 32768, 65536};
};

std::unique_ptr<AnalysisTool> cache_surface_tool_create(const CacheSurfaceKnobs& knobs);

}  // namespace hmtt::analysis
