// Every analysis tool by name, with the knobs of all of them in one struct:
// what `hmtt analyze --with NAME,NAME,...` and `hmtt report` build from.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hmtt/analysis/bandwidth.h"
#include "hmtt/analysis/cache_sim_create.h"
#include "hmtt/analysis/cache_surface_create.h"
#include "hmtt/analysis/dma.h"
#include "hmtt/analysis/locality_surface.h"
#include "hmtt/analysis/process_interleaving.h"
#include "hmtt/analysis/reuse_distance_create.h"
#include "hmtt/analysis/scr.h"

namespace hmtt::analysis {

struct ToolSettings {
  CacheSimKnobs cache;
  CacheSurfaceKnobs surface;
  ReuseDistanceKnobs reuse;
  ScrKnobs scr;
  ProcessKnobs process;
  DmaKnobs dma;
  BandwidthKnobs bandwidth;
  LocalitySurfaceKnobs locality;
};

struct ToolInfo {
  std::string_view name;
  std::string_view summary;
};
// cache, surface, reuse, scr, process, dma, bandwidth, locality
const std::vector<ToolInfo>& tool_catalog();

Result<std::unique_ptr<AnalysisTool>> make_tool(std::string_view name, const ToolSettings& settings);
// A comma-separated list ("cache,reuse,scr" or "all").
Result<std::vector<std::unique_ptr<AnalysisTool>>> make_tools(std::string_view list, const ToolSettings& settings);

}  // namespace hmtt::analysis
