#include "hmtt/analysis/locality_surface.h"

#include <bit>
#include <cmath>
#include <iomanip>

namespace hmtt::analysis {

std::uint64_t LocalitySurface::pairs() const {
  std::uint64_t n = 0;
  for (std::uint64_t c : counts) n += c;
  return n;
}

Result<double> surface_distance(const LocalitySurface& a, const LocalitySurface& b) {
  if (a.granule_bytes != b.granule_bytes || a.max_stride != b.max_stride || a.distance_bins != b.distance_bins ||
      a.counts.size() != b.counts.size())
    return make_error("locality surfaces of different geometry cannot be compared");
  const double na = static_cast<double>(a.pairs()), nb = static_cast<double>(b.pairs());
  if (na == 0 && nb == 0) return 0.0;
  if (na == 0 || nb == 0) return 1.0;
  double sum = 0;
  for (std::size_t i = 0; i < a.counts.size(); ++i)
    sum += std::fabs(static_cast<double>(a.counts[i]) / na - static_cast<double>(b.counts[i]) / nb);
  return sum / 2;
}

LocalitySurfaceBuilder::LocalitySurfaceBuilder(const LocalitySurfaceKnobs& knobs) {
  surface_.granule_bytes = knobs.granule_bytes;
  surface_.max_stride = static_cast<std::int32_t>(knobs.max_stride_bytes / knobs.granule_bytes);
  surface_.distance_bins = knobs.max_distance_log2 + 1;
  surface_.counts.assign(static_cast<std::size_t>(2 * surface_.max_stride + 1) * surface_.distance_bins, 0);
  max_distance_ = std::uint64_t{1} << knobs.max_distance_log2;
}

std::uint64_t* LocalitySurfaceBuilder::chunk(std::uint64_t index, bool create) {
  if (!create) {
    const std::uint64_t* slot = index_.find(index);
    return slot ? last_[static_cast<std::size_t>(*slot - 1)].data() : nullptr;
  }
  std::uint64_t& slot = index_.upsert(index);
  if (slot == 0) {
    last_.push_back({});
    slot = last_.size();
  }
  return last_[static_cast<std::size_t>(slot - 1)].data();
}

void LocalitySurfaceBuilder::access(std::uint64_t address) {
  const std::uint64_t g = address / surface_.granule_bytes;
  const std::uint64_t now = pos_ + 1;  // positions stored + 1
  const std::int32_t m = surface_.max_stride;
  const std::uint32_t bins = surface_.distance_bins;
  // Earlier reference at g - t pairs with stride t.
  const std::uint64_t lo = g - static_cast<std::uint64_t>(m);  // wraps harmlessly
  std::uint64_t cached_index = ~std::uint64_t{0};
  const std::uint64_t* cached = nullptr;
  for (std::int32_t t = m; t >= -m; --t) {
    const std::uint64_t n = lo + static_cast<std::uint64_t>(m - t);
    const std::uint64_t ci = n / kChunk;
    if (ci != cached_index) {
      cached_index = ci;
      cached = chunk(ci, false);
    }
    if (cached == nullptr) continue;
    const std::uint64_t last = cached[n % kChunk];
    if (last == 0) continue;
    const std::uint64_t d = now - last;
    if (d > max_distance_) continue;
    const std::uint32_t bin = static_cast<std::uint32_t>(std::bit_width(d) - 1);
    ++surface_.counts[static_cast<std::size_t>(t + m) * bins + bin];
  }
  chunk(g / kChunk, true)[g % kChunk] = now;
  ++pos_;
  ++surface_.references;
}

std::unique_ptr<AnalysisTool> locality_surface_tool_create(const LocalitySurfaceKnobs& knobs) {
  return std::make_unique<LocalitySurfaceTool>(knobs);
}

Status LocalitySurfaceTool::init() {
  if (knobs_.granule_bytes == 0) return make_error("granule must be at least 1 byte");
  if (knobs_.max_stride_bytes / knobs_.granule_bytes > 4096) return make_error("more than 4096 strides each way");
  if (knobs_.max_distance_log2 > 40) return make_error("distance limit above 2^40");
  builder_.emplace(knobs_);
  return Status::success();
}

Status LocalitySurfaceTool::process(std::span<const Reference> refs) {
  for (const Reference& r : refs) builder_->access(r.address);
  return Status::success();
}

void LocalitySurfaceTool::print(std::ostream& out) const {
  const LocalitySurface& s = builder_->surface();
  const double n = static_cast<double>(s.references);
  out << "locality surface: " << s.pairs() << " pairs over " << s.references << " references; pairs per reference by stride (bytes):\n ";
  for (std::int32_t t = -s.max_stride; t <= s.max_stride; t += std::max(1, s.max_stride / 8)) {
    std::uint64_t sum = 0;
    for (std::uint32_t b = 0; b < s.distance_bins; ++b) sum += s.at(t, b);
    out << " " << t * static_cast<std::int32_t>(s.granule_bytes) << ":" << std::setprecision(3)
        << (n > 0 ? static_cast<double>(sum) / n : 0.0);
  }
  out << "\n";
}

Json to_json(const LocalitySurface& s) {
  Json j;
  j["granule_bytes"] = s.granule_bytes;
  j["max_stride_granules"] = s.max_stride;
  j["distance_bins"] = s.distance_bins;
  j["references"] = s.references;
  j["pairs"] = s.pairs();
  Json rows = Json::array();
  for (std::int32_t t = -s.max_stride; t <= s.max_stride; ++t) {
    Json row = Json::array();
    for (std::uint32_t b = 0; b < s.distance_bins; ++b) row.push_back(s.at(t, b));
    rows.push_back(row);
  }
  j["counts_by_stride"] = rows;
  return j;
}

Json LocalitySurfaceTool::to_json() const {
  Json j = analysis::to_json(builder_->surface());
  j["tool"] = "locality";
  return j;
}

}  // namespace hmtt::analysis
