#include "hmtt/analysis/bandwidth.h"

#include <algorithm>
#include <iomanip>

namespace hmtt::analysis {

std::unique_ptr<AnalysisTool> bandwidth_tool_create(const BandwidthKnobs& knobs) {
  return std::make_unique<BandwidthTool>(knobs);
}

Status BandwidthTool::init() {
  if (!(knobs_.tick_ps > 0)) return make_error("tick period must be positive");
  if (knobs_.interval_ticks == 0) return make_error("interval must be at least one tick");
  if (knobs_.reference_bytes == 0) return make_error("reference size must be at least 1 byte");
  started_ = false;
  buckets_.clear();
  index_ = 0;
  result_ = {};
  return Status::success();
}

Status BandwidthTool::process(std::span<const Reference> refs) {
  for (const Reference& r : refs) {
    if (!started_) {
      started_ = true;
      origin_ = r.time;
      last_time_ = r.time;
    }
    if (r.time < last_time_)
      return make_error("reference " + std::to_string(index_) + ": time " + std::to_string(r.time) +
                        " is before the previous reference's " + std::to_string(last_time_) +
                        " (bandwidth needs a time-ordered trace)");
    last_time_ = r.time;
    ++index_;
    const std::uint64_t b = (r.time - origin_) / knobs_.interval_ticks;
    if (b > (std::uint64_t{1} << 26))
      return make_error("reference " + std::to_string(index_ - 1) + ": more than 2^26 intervals; use a longer interval");
    if (b >= buckets_.size()) buckets_.resize(static_cast<std::size_t>(b + 1), {0, 0});
    ++buckets_[static_cast<std::size_t>(b)].first;
    buckets_[static_cast<std::size_t>(b)].second += r.size == 0 ? knobs_.reference_bytes : r.size;
  }
  return Status::success();
}

Status BandwidthTool::finish() {
  const double interval_s = static_cast<double>(knobs_.interval_ticks) * knobs_.tick_ps * 1e-12;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    BandwidthPoint p;
    p.start_seconds = static_cast<double>(i) * interval_s;
    p.references = buckets_[i].first;
    p.bytes = buckets_[i].second;
    p.mb_per_s = static_cast<double>(p.bytes) / interval_s / 1e6;
    p.trace_mb_per_s = static_cast<double>(p.references) * knobs_.record_bytes / interval_s / 1e6;
    result_.references += p.references;
    result_.bytes += p.bytes;
    result_.peak_mb_per_s = std::max(result_.peak_mb_per_s, p.mb_per_s);
    result_.series.push_back(p);
  }
  result_.seconds = static_cast<double>(buckets_.size()) * interval_s;
  if (result_.seconds > 0) {
    result_.average_mb_per_s = static_cast<double>(result_.bytes) / result_.seconds / 1e6;
    result_.average_trace_mb_per_s = static_cast<double>(result_.references) * knobs_.record_bytes / result_.seconds / 1e6;
  }
  return Status::success();
}

void BandwidthTool::print(std::ostream& out) const {
  out << "bandwidth: " << result_.references << " references, " << result_.bytes << " bytes over " << std::fixed
      << std::setprecision(6) << result_.seconds << " s\n"
      << std::setprecision(2) << "  memory traffic average " << result_.average_mb_per_s << " MB/s, peak "
      << result_.peak_mb_per_s << " MB/s (intervals of " << knobs_.interval_ticks << " ticks)\n"
      << "  trace generation average " << result_.average_trace_mb_per_s << " MB/s at " << knobs_.record_bytes
      << " bytes per record\n";
  out.unsetf(std::ios::fixed);
}

Json BandwidthTool::to_json() const {
  Json j;
  j["tool"] = "bandwidth";
  j["tick_ps"] = knobs_.tick_ps;
  j["interval_ticks"] = knobs_.interval_ticks;
  j["references"] = result_.references;
  j["bytes"] = result_.bytes;
  j["seconds"] = result_.seconds;
  j["average_mb_per_s"] = result_.average_mb_per_s;
  j["peak_mb_per_s"] = result_.peak_mb_per_s;
  j["average_trace_mb_per_s"] = result_.average_trace_mb_per_s;
  Json s = Json::array();
  for (const auto& p : result_.series)
    s.push_back({{"t", p.start_seconds}, {"references", p.references}, {"bytes", p.bytes}, {"mb_per_s", p.mb_per_s}});
  j["series"] = s;
  return j;
}

}  // namespace hmtt::analysis
