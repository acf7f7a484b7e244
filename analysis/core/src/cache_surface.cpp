#include "hmtt/analysis/cache_surface.h"

#include <bit>
#include <cmath>
#include <iomanip>
#include <limits>

namespace hmtt::analysis {

std::unique_ptr<AnalysisTool> cache_surface_tool_create(const CacheSurfaceKnobs& knobs) {
  return std::make_unique<CacheSurfaceTool>(knobs);
}

double CacheSurface::at(std::uint64_t width, std::uint64_t depth) const {
  for (std::size_t w = 0; w < widths.size(); ++w)
    for (std::size_t d = 0; d < depths.size(); ++d)
      if (widths[w] == width && depths[d] == depth) return hit[w][d];
  return std::numeric_limits<double>::quiet_NaN();
}

CacheSurfaceSimulator::CacheSurfaceSimulator(std::vector<std::uint64_t> widths, std::vector<std::uint64_t> depths)
    : widths_(std::move(widths)), depths_(std::move(depths)) {
  for (std::uint64_t w : widths_) stacks_.emplace_back(w);
  histograms_.resize(widths_.size());
}

CacheSurface CacheSurfaceSimulator::surface() const {
  CacheSurface s;
  s.widths = widths_;
  s.depths = depths_;
  s.references = histograms_.empty() ? 0 : histograms_[0].total();
  for (const ReuseHistogram& h : histograms_) {
    std::vector<double> row;
    for (std::uint64_t d : depths_) row.push_back(h.hit_ratio(d));
    s.hit.push_back(std::move(row));
  }
  return s;
}

Status CacheSurfaceTool::init() {
  if (knobs_.widths.empty() || knobs_.depths.empty()) return make_error("needs at least one width and one depth");
  for (std::uint64_t w : knobs_.widths)
    if (w == 0) return make_error("block width must be at least 1 byte");
  for (std::uint64_t d : knobs_.depths)
    if (!std::has_single_bit(d)) return make_error("depth " + std::to_string(d) + " is not a power of two");
  sim_.emplace(knobs_.widths, knobs_.depths);
  return Status::success();
}

Status CacheSurfaceTool::process(std::span<const Reference> refs) {
  for (const Reference& r : refs) sim_->access(r.address);
  return Status::success();
}

Status CacheSurfaceTool::finish() {
  surface_ = sim_->surface();
  return Status::success();
}

void CacheSurfaceTool::print(std::ostream& out) const {
  out << "cache surface: hit ratio of fully-associative LRU caches (rows: depth in blocks, columns: width in bytes)\n";
  out << std::setw(8) << "depth";
  for (std::uint64_t w : surface_.widths) out << std::setw(8) << w;
  out << "\n";
  for (std::size_t d = 0; d < surface_.depths.size(); ++d) {
    out << std::setw(8) << surface_.depths[d];
    for (std::size_t w = 0; w < surface_.widths.size(); ++w)
      out << std::setw(8) << std::fixed << std::setprecision(4) << surface_.hit[w][d];
    out << "\n";
  }
  out.unsetf(std::ios::fixed);
}

Json to_json(const CacheSurface& s) {
  Json j;
  j["widths"] = s.widths;
  j["depths"] = s.depths;
  j["references"] = s.references;
  j["hit"] = s.hit;
  return j;
}

Json CacheSurfaceTool::to_json() const {
  Json j = analysis::to_json(surface_);
  j["tool"] = "surface";
  return j;
}

}  // namespace hmtt::analysis
