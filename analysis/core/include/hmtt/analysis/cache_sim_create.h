// Knobs and factory of the cache-hierarchy tool (`hmtt analyze --with cache`).
#pragma once

#include <memory>
#include <string>

#include "hmtt/analysis/tool.h"

namespace hmtt::analysis {

struct CacheSimKnobs {
  std::string hierarchy = "psnap";  // built-in name or a hierarchy file (docs/analysis.md)
};

std::unique_ptr<AnalysisTool> cache_sim_tool_create(const CacheSimKnobs& knobs);

}  // namespace hmtt::analysis
