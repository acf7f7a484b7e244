#include "hmtt/analysis/cache_sim.h"

#include <iomanip>

namespace hmtt::analysis {

std::unique_ptr<AnalysisTool> cache_sim_tool_create(const CacheSimKnobs& knobs) {
  return std::make_unique<CacheSimTool>(knobs);
}

Status CacheSimTool::init() {
  auto configs = load_hierarchies(knobs_.hierarchy);
  if (!configs) return configs.error();
  auto sim = HierarchySimulator::create(std::move(*configs));
  if (!sim) return sim.error();
  sim_.emplace(std::move(*sim));
  return Status::success();
}

Status CacheSimTool::process(std::span<const Reference> refs) {
  sim_->access(refs);
  return Status::success();
}

Status CacheSimTool::finish() {
  results_ = sim_->results();
  return Status::success();
}

void CacheSimTool::print(std::ostream& out) const {
  out << "cache hierarchies (" << knobs_.hierarchy << "): local hit ratio per level\n";
  for (const auto& h : results_) {
    out << "  " << std::left << std::setw(20) << h.name << std::right;
    for (const auto& l : h.levels) {
      const CacheStats s = l.combined();
      out << "  " << l.name << " " << std::fixed << std::setprecision(4) << s.hit_ratio() << " ("
          << s.accesses() << ")";
    }
    out << "\n";
  }
  out.unsetf(std::ios::fixed);
}

Json to_json(const std::vector<HierarchyResult>& results) {
  Json a = Json::array();
  for (const auto& h : results) {
    Json levels = Json::array();
    for (const auto& l : h.levels) {
      const CacheStats s = l.combined();
      Json lj = {{"level", l.name},
                 {"accesses", s.accesses()},
                 {"hits", s.hits()},
                 {"hit_ratio", s.hit_ratio()},
                 {"reads", s.reads},
                 {"writes", s.writes},
                 {"ifetches", s.ifetches},
                 {"writebacks_in", s.writebacks_in},
                 {"writebacks_out", s.writebacks_out}};
      if (l.instruction) {
        lj["instruction_hit_ratio"] = l.instruction->hit_ratio();
        lj["data_hit_ratio"] = l.data.hit_ratio();
      }
      levels.push_back(lj);
    }
    a.push_back({{"hierarchy", h.name}, {"references", h.references}, {"levels", levels}});
  }
  return a;
}

Json CacheSimTool::to_json() const {
  Json j;
  j["tool"] = "cache";
  j["hierarchy"] = knobs_.hierarchy;
  j["hierarchies"] = analysis::to_json(results_);
  return j;
}

}  // namespace hmtt::analysis
