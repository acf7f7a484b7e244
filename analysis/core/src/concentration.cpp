#include "hmtt/analysis/concentration.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <iomanip>

namespace hmtt::analysis {

ConcentrationTool::ConcentrationTool(std::vector<std::uint64_t> widths) : widths_(std::move(widths)) {}

Status ConcentrationTool::init() {
  for (std::uint64_t w : widths_)
    if (!std::has_single_bit(w)) return make_error("concentration: width " + std::to_string(w) + " is not a power of two");
  counts_.assign(widths_.size(), BlockMap());
  references_ = 0;
  result_.clear();
  return Status::success();
}

Status ConcentrationTool::process(std::span<const Reference> refs) {
  for (std::size_t k = 0; k < widths_.size(); ++k) {
    const int shift = std::countr_zero(widths_[k]);
    BlockMap& m = counts_[k];
    for (const Reference& r : refs) ++m.upsert(r.address >> shift);
  }
  references_ += refs.size();
  return Status::success();
}

Status ConcentrationTool::finish() {
  result_.clear();
  for (std::size_t k = 0; k < widths_.size(); ++k) {
    std::vector<std::uint64_t> v;
    v.reserve(counts_[k].size());
    counts_[k].for_each([&](std::uint64_t, std::uint64_t n) { v.push_back(n); });
    ConcentrationPoint p;
    p.width = widths_[k];
    p.units = v.size();
    const std::size_t top = std::min<std::size_t>(100, v.size());
    std::partial_sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(top), v.end(), std::greater<>());
    std::uint64_t s10 = 0, s100 = 0;
    for (std::size_t i = 0; i < top; ++i) {
      if (i < 10) s10 += v[i];
      s100 += v[i];
    }
    const std::uint64_t threshold = std::max<std::uint64_t>(1, references_ / 1000);
    p.busy = static_cast<std::uint64_t>(std::count_if(v.begin(), v.end(), [&](std::uint64_t n) { return n >= threshold; }));
    if (references_ > 0) {
      p.top10 = static_cast<double>(s10) / static_cast<double>(references_);
      p.top100 = static_cast<double>(s100) / static_cast<double>(references_);
    }
    result_.push_back(p);
  }
  counts_.clear();
  return Status::success();
}

void ConcentrationTool::print(std::ostream& out) const {
  out << "concentration (share of the references to the busiest 10 / 100 units; busy = at least 1/1000 of them):\n";
  for (const auto& p : result_)
    out << "  " << std::setw(4) << p.width << " B: " << std::fixed << std::setprecision(4) << p.top10 << " / "
        << p.top100 << ", " << p.busy << " busy of " << p.units << "\n";
  out.unsetf(std::ios::fixed);
}

Json to_json(const std::vector<ConcentrationPoint>& points) {
  Json a = Json::array();
  for (const auto& p : points)
    a.push_back({{"width", p.width}, {"units", p.units}, {"busy", p.busy}, {"top10_share", p.top10}, {"top100_share", p.top100}});
  return a;
}

Json ConcentrationTool::to_json() const { return {{"references", references_}, {"widths", analysis::to_json(result_)}}; }

}  // namespace hmtt::analysis
