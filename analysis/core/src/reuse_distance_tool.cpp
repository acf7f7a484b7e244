#include "hmtt/analysis/reuse_distance_tool.h"

#include <iomanip>

namespace hmtt::analysis {

std::unique_ptr<AnalysisTool> reuse_distance_tool_create(const ReuseDistanceKnobs& knobs) {
  return std::make_unique<ReuseDistanceTool>(knobs);
}

ReuseDistanceTool::ReuseDistanceTool(const ReuseDistanceKnobs& knobs) : knobs_(knobs) {}

Status ReuseDistanceTool::init() {
  if (knobs_.block_bytes == 0) return make_error("block size must be at least 1 byte");
  if (knobs_.sampled && !(knobs_.rate > 0 && knobs_.rate <= 1))
    return make_error("sampling rate must be in (0, 1], got " + std::to_string(knobs_.rate));
  result_ = {};
  result_.block_bytes = knobs_.block_bytes;
  result_.sampled = knobs_.sampled;
  if (!knobs_.sampled || knobs_.verify) exact_.emplace(knobs_.block_bytes);
  if (knobs_.sampled) sampled_.emplace(knobs_.block_bytes, knobs_.rate, knobs_.seed);
  return Status::success();
}

Status ReuseDistanceTool::process(std::span<const Reference> refs) {
  result_.references += refs.size();
  if (exact_) {
    blocks_.resize(refs.size());
    distances_.resize(refs.size());
    const BlockSize& bs = exact_->block_size();
    for (std::size_t i = 0; i < refs.size(); ++i) blocks_[i] = bs.block_of(refs[i].address);
    exact_->access_blocks(blocks_, distances_);
    for (std::size_t i = 0; i < refs.size(); ++i) result_.histogram.add(distances_[i]);
  }
  if (sampled_)
    for (const Reference& r : refs) sampled_->access(r.address);
  return Status::success();
}

Status ReuseDistanceTool::finish() {
  const auto depths = chameleon_depths();
  if (exact_) result_.distinct_blocks = exact_->distinct_blocks();
  if (sampled_) {
    result_.rate = sampled_->rate();
    result_.sampled_references = sampled_->sampled();
    result_.curve = sampled_->curve(depths);
    if (exact_) {
      result_.exact_curve = result_.histogram.curve(depths);
      result_.error = curve_error(result_.curve, *result_.exact_curve);
    }
  } else {
    result_.curve = result_.histogram.curve(depths);
  }
  return Status::success();
}

void ReuseDistanceTool::print(std::ostream& out) const {
  const auto& r = result_;
  out << "reuse distance (" << r.block_bytes << "-byte blocks" << (r.sampled ? ", sampled" : ", exact")
      << "): " << r.references << " references";
  if (!r.sampled || r.exact_curve) out << ", " << r.distinct_blocks << " distinct blocks";
  out << "\n";
  if (r.sampled)
    out << "  sampling rate " << r.rate << ", " << r.sampled_references << " references sampled\n";
  out << "  depth(blocks)  miss ratio" << (r.exact_curve ? "  exact" : "") << "\n";
  for (std::size_t i = 0; i < r.curve.size(); ++i) {
    out << "  " << std::setw(13) << r.curve[i].depth << "  " << std::fixed << std::setprecision(4)
        << r.curve[i].miss_ratio;
    if (r.exact_curve) out << "      " << (*r.exact_curve)[i].miss_ratio;
    out << "\n";
  }
  if (r.error)
    out << "  sampled vs exact: mean abs error " << r.error->mean_abs << ", max " << r.error->max_abs << "\n";
  out.unsetf(std::ios::fixed);
}

Json to_json(const MissRatioCurve& curve) {
  Json a = Json::array();
  for (const auto& p : curve) a.push_back({{"depth", p.depth}, {"miss_ratio", p.miss_ratio}});
  return a;
}

Json ReuseDistanceTool::to_json() const {
  const auto& r = result_;
  Json j;
  j["tool"] = "reuse";
  j["block_bytes"] = r.block_bytes;
  j["references"] = r.references;
  j["mode"] = r.sampled ? "sampled" : "exact";
  if (!r.sampled || r.exact_curve) {
    j["distinct_blocks"] = r.distinct_blocks;
    j["cold"] = r.histogram.cold();
    Json b = Json::array();
    for (std::size_t i = 0; i < r.histogram.buckets().size(); ++i) {
      const std::uint64_t lo = i == 0 ? 0 : (std::uint64_t{1} << (i - 1));
      const std::uint64_t hi = i == 0 ? 0 : (std::uint64_t{1} << i) - 1;
      b.push_back({{"from", lo}, {"to", hi}, {"count", r.histogram.buckets()[i]}});
    }
    j["histogram"] = b;
  }
  if (r.sampled) {
    j["rate"] = r.rate;
    j["sampled_references"] = r.sampled_references;
  }
  j["miss_ratio_curve"] = analysis::to_json(r.curve);
  if (r.exact_curve) j["exact_miss_ratio_curve"] = analysis::to_json(*r.exact_curve);
  if (r.error) j["sampled_error"] = {{"mean_abs", r.error->mean_abs}, {"max_abs", r.error->max_abs}};
  return j;
}

}  // namespace hmtt::analysis
