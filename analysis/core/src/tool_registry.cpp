#include "hmtt/analysis/tool_registry.h"

#include "hmtt/analysis/cache_sim.h"
#include "hmtt/analysis/cache_surface.h"
#include "hmtt/analysis/concentration.h"
#include "hmtt/analysis/reuse_distance_tool.h"

namespace hmtt::analysis {

const std::vector<ToolInfo>& tool_catalog() {
  static const std::vector<ToolInfo> catalog = {
      {"cache", "set-associative cache hierarchies (PSnAP Table 1 or a hierarchy file), hit ratio per level"},
      {"surface", "cache surface: fully-associative LRU hit ratios, 17 depths x widths 8..512 B (Chameleon)"},
      {"reuse", "LRU stack (reuse) distance histogram and miss-ratio curve; exact or SHARDS-sampled"},
      {"scr", "stream coverage rate, windows 8/16/32/64, physical and virtual; stride CDF; remap counts"},
      {"process", "per-process SCR and run lengths between process switches"},
      {"dma", "CPU/DMA read/write shares; DMA request sizes per device"},
      {"bandwidth", "memory traffic and trace generation bandwidth over time"},
      {"locality", "Grimsrud locality surface: strides within +-256 B, distances within 64 K"},
      {"concentration", "how unevenly blocks (512 B) and lines (64 B) are used: share of the busiest 10 / 100, busy count"},
  };
  return catalog;
}

Result<std::unique_ptr<AnalysisTool>> make_tool(std::string_view name, const ToolSettings& s) {
  if (name == "cache") return cache_sim_tool_create(s.cache);
  if (name == "surface") return cache_surface_tool_create(s.surface);
  if (name == "reuse") return reuse_distance_tool_create(s.reuse);
  if (name == "scr") return scr_tool_create(s.scr);
  if (name == "process") return process_tool_create(s.process);
  if (name == "dma") return dma_tool_create(s.dma);
  if (name == "bandwidth") return bandwidth_tool_create(s.bandwidth);
  if (name == "locality") return locality_surface_tool_create(s.locality);
  if (name == "concentration") return std::unique_ptr<AnalysisTool>(std::make_unique<ConcentrationTool>());
  std::string known;
  for (const auto& t : tool_catalog()) known += (known.empty() ? "" : ", ") + std::string(t.name);
  return make_error("unknown analysis '" + std::string(name) + "' (" + known + ")");
}

Result<std::vector<std::unique_ptr<AnalysisTool>>> make_tools(std::string_view list, const ToolSettings& s) {
  std::vector<std::unique_ptr<AnalysisTool>> tools;
  if (list == "all") {
    for (const auto& t : tool_catalog()) {
      auto tool = make_tool(t.name, s);
      if (!tool) return tool.error();
      tools.push_back(std::move(*tool));
    }
    return tools;
  }
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = list.find(',', start);
    const std::string_view name = list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (name.empty()) return make_error("empty analysis name in '" + std::string(list) + "'");
    for (const auto& t : tools)
      if (t->name() == name) return make_error("analysis '" + std::string(name) + "' given twice");
    auto tool = make_tool(name, s);
    if (!tool) return tool.error();
    tools.push_back(std::move(*tool));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return tools;
}

}  // namespace hmtt::analysis
