// The cache-hierarchy tool: every hierarchy of a set (PSnAP Table 1 by
// default) over the stream in one pass; per level, demand accesses and the
// local hit ratio (hits / accesses reaching that level).
#pragma once

#include <optional>

#include "hmtt/analysis/cache_sim_create.h"
#include "hmtt/analysis/hierarchy.h"

namespace hmtt::analysis {

class CacheSimTool final : public AnalysisTool {
 public:
  explicit CacheSimTool(const CacheSimKnobs& knobs) : knobs_(knobs) {}
  std::string_view name() const override { return "cache"; }
  Status init() override;
  Status process(std::span<const Reference> refs) override;
  Status finish() override;
  void print(std::ostream& out) const override;
  Json to_json() const override;
  const std::vector<HierarchyResult>& result() const { return results_; }

 private:
  CacheSimKnobs knobs_;
  std::optional<HierarchySimulator> sim_;
  std::vector<HierarchyResult> results_;
};

Json to_json(const std::vector<HierarchyResult>& results);

}  // namespace hmtt::analysis
