// How unevenly a trace uses its memory: per unit width (512 B blocks and 64 B
// lines by default), the share of the references that go to the busiest 10 and
// 100 units, and how many units are busy (at least 1/1000 of the references
// each). Programs keep a few blocks busy (sort -n: its 10 busiest 512 B blocks
// take 65 % of the references); a synthetic trace can hit the same
// fully-associative rates with its references spread evenly, so `hmtt compare`
// prints this beside the hit ratios. It describes, it does not explain an error:
// a synthetic with the program's own blocks had no better L2 (docs/accuracy.md,
// "The busy-block idea tested with an oracle").
#pragma once

#include <cstdint>
#include <ostream>
#include <span>
#include <vector>

#include "hmtt/analysis/block_map.h"
#include "hmtt/analysis/tool.h"

namespace hmtt::analysis {

struct ConcentrationPoint {
  std::uint64_t width = 0;   // unit bytes
  std::uint64_t units = 0;   // distinct units referenced
  std::uint64_t busy = 0;    // units with at least references / 1000 references
  double top10 = 0;          // share of the references to the 10 busiest units
  double top100 = 0;         // ... to the 100 busiest
};

class ConcentrationTool final : public AnalysisTool {
 public:
  // `widths`: powers of two (bytes).
  explicit ConcentrationTool(std::vector<std::uint64_t> widths = {512, 64});
  std::string_view name() const override { return "concentration"; }
  Status init() override;
  Status process(std::span<const Reference> refs) override;
  Status finish() override;
  void print(std::ostream& out) const override;
  Json to_json() const override;
  const std::vector<ConcentrationPoint>& result() const { return result_; }

 private:
  std::vector<std::uint64_t> widths_;
  std::vector<BlockMap> counts_;  // per width: unit -> references
  std::uint64_t references_ = 0;
  std::vector<ConcentrationPoint> result_;
};

Json to_json(const std::vector<ConcentrationPoint>& points);

}  // namespace hmtt::analysis
