// The cache surface (Chameleon, section 2.1.1): hit(d, w), the hit ratio of a
// fully-associative LRU cache of depth d blocks of width w bytes, for every
// (d, w) in one pass. One exact stack-distance counter per width gives every
// depth at once (a reference hits depth d exactly when its distance is < d).
#pragma once

#include "hmtt/analysis/cache_surface_create.h"
#include "hmtt/analysis/reuse_distance.h"

namespace hmtt::analysis {

struct CacheSurface {
  std::vector<std::uint64_t> widths;
  std::vector<std::uint64_t> depths;
  std::vector<std::vector<double>> hit;  // hit[width index][depth index]
  std::uint64_t references = 0;
  double at(std::uint64_t width, std::uint64_t depth) const;  // NaN when not sampled
};

// Depths must be powers of two (the histogram buckets are exact there).
class CacheSurfaceSimulator {
 public:
  CacheSurfaceSimulator(std::vector<std::uint64_t> widths, std::vector<std::uint64_t> depths);
  void access(std::uint64_t address) {
    for (std::size_t i = 0; i < stacks_.size(); ++i) histograms_[i].add(stacks_[i].access(address));
  }
  CacheSurface surface() const;

 private:
  std::vector<std::uint64_t> widths_, depths_;
  std::vector<LruStackDistance> stacks_;
  std::vector<ReuseHistogram> histograms_;
};

class CacheSurfaceTool final : public AnalysisTool {
 public:
  explicit CacheSurfaceTool(const CacheSurfaceKnobs& knobs) : knobs_(knobs) {}
  std::string_view name() const override { return "surface"; }
  Status init() override;
  Status process(std::span<const Reference> refs) override;
  Status finish() override;
  void print(std::ostream& out) const override;
  Json to_json() const override;
  const CacheSurface& result() const { return surface_; }

 private:
  CacheSurfaceKnobs knobs_;
  std::optional<CacheSurfaceSimulator> sim_;
  CacheSurface surface_;
};

Json to_json(const CacheSurface& s);

}  // namespace hmtt::analysis
