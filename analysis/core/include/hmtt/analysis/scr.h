// Stream Coverage Rate (HMTT paper, section 6.1, eq. 1): the share of
// references that belong to a fixed-stride stream, detected among cache-line
// addresses in a scan window of the most recent W references (W = 8, 16, 32,
// 64: Fig. 11's Phy-W / Virt-W).
//
// Detection rule (after Mohan et al.'s scan-window detector): a reference to
// line a at position p is a stream access when, for some earlier reference to
// line x at position q in the window (p-W <= q < p), the line y = x - (a - x)
// was last referenced at a position in [p-W, q), with a != x. Its stride is
// a - x lines, taken from the most recent such x. A stream is therefore
// counted from its third element on, as a prefetcher would issue it (the
// paper's remark on the AMD prefetcher needing three contiguous accesses).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "hmtt/analysis/block_map.h"
#include "hmtt/analysis/page_map.h"
#include "hmtt/analysis/tool.h"

namespace hmtt::analysis {

// Detects streams for several window sizes in one scan of the largest window.
class StreamDetector {
 public:
  explicit StreamDetector(std::vector<std::uint32_t> windows);
  // Feeds one line address; per window: 0 = not a stream access, else the stride (lines).
  // The returned span is valid until the next call.
  std::span<const std::int64_t> access(std::uint64_t line);
  const std::vector<std::uint32_t>& windows() const { return windows_; }

 private:
  std::vector<std::uint32_t> windows_;
  std::uint32_t max_window_;
  std::vector<std::uint64_t> ring_;     // line of position p at ring_[p % max_window_]
  BlockMap last_;                       // line -> latest position + 1
  std::uint64_t pos_ = 0;
  std::vector<std::int64_t> out_;
};

// Counts of a stream-coverage measurement for one window.
struct ScrCount {
  std::uint32_t window = 0;
  std::uint64_t references = 0;
  std::uint64_t stream = 0;
  double scr() const { return references == 0 ? 0 : static_cast<double>(stream) / static_cast<double>(references); }
};

// Histogram of |stride| in lines of stream accesses (Fig. 12a).
struct StrideHistogram {
  std::map<std::uint64_t, std::uint64_t> counts;  // |stride| -> stream accesses
  std::uint64_t total = 0;
  void add(std::int64_t stride);
  // CDF points (|stride|, fraction of stream accesses with stride <= it).
  std::vector<std::pair<std::uint64_t, double>> cdf() const;
};

struct ScrKnobs {
  std::vector<std::uint32_t> windows = {8, 16, 32, 64};
  std::uint64_t line_bytes = 64;
  std::uint32_t stride_window = 32;           // window whose strides form the CDF (the paper's choice)
  std::shared_ptr<const PageMap> page_map;    // when set, also the virtual view
};

struct ScrResult {
  std::vector<ScrCount> physical;
  std::vector<ScrCount> virtual_view;          // empty without a page map
  std::uint64_t unmapped = 0;                  // references without a mapping (virtual view)
  StrideHistogram physical_strides;
  StrideHistogram virtual_strides;
  std::map<std::uint64_t, std::uint64_t> remaps;  // Fig. 12c: mappings per physical page -> pages
};

std::unique_ptr<AnalysisTool> scr_tool_create(const ScrKnobs& knobs);

class ScrTool final : public AnalysisTool {
 public:
  explicit ScrTool(ScrKnobs knobs) : knobs_(std::move(knobs)) {}
  std::string_view name() const override { return "scr"; }
  Status init() override;
  Status process(std::span<const Reference> refs) override;
  Status finish() override;
  void print(std::ostream& out) const override;
  Json to_json() const override;
  const ScrResult& result() const { return result_; }

 private:
  ScrKnobs knobs_;
  std::optional<StreamDetector> phys_, virt_;
  std::size_t stride_index_ = 0;
  ScrResult result_;
};

Json to_json(const StrideHistogram& h);

}  // namespace hmtt::analysis
