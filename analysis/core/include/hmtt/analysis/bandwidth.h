// Bandwidth over time: bytes referenced and references per interval, as MB/s
// (the unit of the HMTT paper's Table 5, where the trace generation bandwidth
// is the reference rate times the bytes of one trace record).
#pragma once

#include <memory>

#include "hmtt/analysis/tool.h"

namespace hmtt::analysis {

struct BandwidthKnobs {
  double tick_ps = 5000;               // one tick (DDR-200 command clock: 5000 ps)
  std::uint64_t interval_ticks = 200000;  // 1 ms at 5000 ps
  std::uint32_t reference_bytes = 64;  // size of a reference whose size field is 0
  double record_bytes = 4;             // bytes of one trace record (trace generation bandwidth)
};

struct BandwidthPoint {
  double start_seconds = 0;
  std::uint64_t references = 0;
  std::uint64_t bytes = 0;
  double mb_per_s = 0;        // memory traffic, 10^6 bytes per second
  double trace_mb_per_s = 0;  // references * record_bytes per second
};

struct BandwidthResult {
  std::vector<BandwidthPoint> series;
  std::uint64_t references = 0;
  std::uint64_t bytes = 0;
  double seconds = 0;          // first to last reference time, plus one interval's end
  double average_mb_per_s = 0;
  double peak_mb_per_s = 0;
  double average_trace_mb_per_s = 0;
};

std::unique_ptr<AnalysisTool> bandwidth_tool_create(const BandwidthKnobs& knobs);

class BandwidthTool final : public AnalysisTool {
 public:
  explicit BandwidthTool(const BandwidthKnobs& knobs) : knobs_(knobs) {}
  std::string_view name() const override { return "bandwidth"; }
  Status init() override;
  Status process(std::span<const Reference> refs) override;
  Status finish() override;
  void print(std::ostream& out) const override;
  Json to_json() const override;
  const BandwidthResult& result() const { return result_; }

 private:
  BandwidthKnobs knobs_;
  bool started_ = false;
  std::uint64_t origin_ = 0, last_time_ = 0, index_ = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> buckets_;  // (references, bytes)
  BandwidthResult result_;
};

}  // namespace hmtt::analysis
