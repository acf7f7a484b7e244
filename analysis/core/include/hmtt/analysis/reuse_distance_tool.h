// The reuse-distance tool: the exact histogram of LRU stack distances (or a
// SHARDS-sampled miss-ratio curve, optionally checked against exact).
#pragma once

#include <optional>

#include "hmtt/analysis/reuse_distance.h"
#include "hmtt/analysis/reuse_distance_create.h"

namespace hmtt::analysis {

struct ReuseDistanceResult {
  std::uint64_t block_bytes = 0;
  std::uint64_t references = 0;
  std::uint64_t distinct_blocks = 0;         // exact mode only
  ReuseHistogram histogram;                  // exact mode (or verify)
  MissRatioCurve curve;                      // at the Chameleon depths 2^0..2^16
  bool sampled = false;
  double rate = 1;
  std::uint64_t sampled_references = 0;
  std::optional<MissRatioCurve> exact_curve;  // sampled + verify
  std::optional<CurveError> error;            // sampled + verify: sampled vs exact
};

class ReuseDistanceTool final : public AnalysisTool {
 public:
  explicit ReuseDistanceTool(const ReuseDistanceKnobs& knobs);
  std::string_view name() const override { return "reuse"; }
  Status init() override;
  Status process(std::span<const Reference> refs) override;
  Status finish() override;
  void print(std::ostream& out) const override;
  Json to_json() const override;
  const ReuseDistanceResult& result() const { return result_; }

 private:
  ReuseDistanceKnobs knobs_;
  std::optional<LruStackDistance> exact_;
  std::optional<SampledReuseDistance> sampled_;
  ReuseDistanceResult result_;
  std::vector<std::uint64_t> blocks_, distances_;  // per-batch scratch
};

Json to_json(const MissRatioCurve& curve);

}  // namespace hmtt::analysis
