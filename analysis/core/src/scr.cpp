#include "hmtt/analysis/scr.h"

#include <algorithm>
#include <iomanip>

namespace hmtt::analysis {

StreamDetector::StreamDetector(std::vector<std::uint32_t> windows) : windows_(std::move(windows)) {
  max_window_ = 1;
  for (std::uint32_t w : windows_) max_window_ = std::max(max_window_, w);
  ring_.assign(max_window_, 0);
  out_.assign(windows_.size(), 0);
}

std::span<const std::int64_t> StreamDetector::access(std::uint64_t a) {
  std::fill(out_.begin(), out_.end(), 0);
  const std::uint64_t p = pos_;
  std::size_t undecided = windows_.size();
  const std::uint64_t depth = std::min<std::uint64_t>(p, max_window_);
  for (std::uint64_t back = 1; back <= depth && undecided > 0; ++back) {
    const std::uint64_t q = p - back;
    const std::uint64_t x = ring_[q % max_window_];
    if (x == a) continue;
    const std::uint64_t y = x - (a - x);  // wraps like the addresses do
    const std::uint64_t* ty = last_.find(y);
    if (ty == nullptr) continue;
    const std::uint64_t t = *ty - 1;
    if (t >= q) continue;
    for (std::size_t i = 0; i < windows_.size(); ++i) {
      if (out_[i] != 0) continue;
      const std::uint64_t w = windows_[i];
      if (back > w || p - t > w) continue;  // x or y outside this window
      out_[i] = static_cast<std::int64_t>(a - x);
      --undecided;
    }
  }
  ring_[p % max_window_] = a;
  last_.upsert(a) = p + 1;
  ++pos_;
  return out_;
}

void StrideHistogram::add(std::int64_t stride) {
  const std::uint64_t m = stride < 0 ? static_cast<std::uint64_t>(-(stride + 1)) + 1 : static_cast<std::uint64_t>(stride);
  ++counts[m];
  ++total;
}

std::vector<std::pair<std::uint64_t, double>> StrideHistogram::cdf() const {
  std::vector<std::pair<std::uint64_t, double>> c;
  std::uint64_t sum = 0;
  for (const auto& [s, n] : counts) {
    sum += n;
    c.emplace_back(s, static_cast<double>(sum) / static_cast<double>(total));
  }
  return c;
}

std::unique_ptr<AnalysisTool> scr_tool_create(const ScrKnobs& knobs) { return std::make_unique<ScrTool>(knobs); }

Status ScrTool::init() {
  if (knobs_.windows.empty()) return make_error("needs at least one window size");
  for (std::uint32_t w : knobs_.windows)
    if (w < 2 || w > 4096) return make_error("window " + std::to_string(w) + " outside 2..4096");
  if (knobs_.line_bytes == 0) return make_error("line size must be at least 1 byte");
  auto it = std::find(knobs_.windows.begin(), knobs_.windows.end(), knobs_.stride_window);
  stride_index_ = it == knobs_.windows.end() ? knobs_.windows.size() - 1
                                             : static_cast<std::size_t>(it - knobs_.windows.begin());
  result_ = {};
  phys_.emplace(knobs_.windows);
  for (std::uint32_t w : knobs_.windows) result_.physical.push_back({w, 0, 0});
  if (knobs_.page_map) {
    virt_.emplace(knobs_.windows);
    for (std::uint32_t w : knobs_.windows) result_.virtual_view.push_back({w, 0, 0});
  }
  return Status::success();
}

Status ScrTool::process(std::span<const Reference> refs) {
  for (const Reference& r : refs) {
    auto s = phys_->access(r.address / knobs_.line_bytes);
    for (std::size_t i = 0; i < s.size(); ++i) {
      ++result_.physical[i].references;
      if (s[i] != 0) ++result_.physical[i].stream;
    }
    if (s[stride_index_] != 0) result_.physical_strides.add(s[stride_index_]);
    if (virt_) {
      auto v = knobs_.page_map->translate(r.address, r.time);
      if (!v) {
        ++result_.unmapped;
        continue;
      }
      // Lines of different processes never form one stream.
      const std::uint64_t vline = (v->address / knobs_.line_bytes) ^ (std::uint64_t{v->pid} << 48);
      auto t = virt_->access(vline);
      for (std::size_t i = 0; i < t.size(); ++i) {
        ++result_.virtual_view[i].references;
        if (t[i] != 0) ++result_.virtual_view[i].stream;
      }
      if (t[stride_index_] != 0) result_.virtual_strides.add(t[stride_index_]);
    }
  }
  return Status::success();
}

Status ScrTool::finish() {
  if (knobs_.page_map) result_.remaps = knobs_.page_map->remap_histogram();
  return Status::success();
}

void ScrTool::print(std::ostream& out) const {
  out << "stream coverage rate (" << knobs_.line_bytes << "-byte lines)\n";
  for (const auto& c : result_.physical)
    out << "  Phy-" << std::left << std::setw(4) << c.window << std::right << std::fixed << std::setprecision(2)
        << 100 * c.scr() << " %\n";
  for (const auto& c : result_.virtual_view)
    out << "  Virt-" << std::left << std::setw(3) << c.window << std::right << std::fixed << std::setprecision(2)
        << 100 * c.scr() << " %\n";
  if (!result_.virtual_view.empty()) out << "  unmapped references: " << result_.unmapped << "\n";
  out << "  stream strides (window " << knobs_.windows[stride_index_] << ", lines): ";
  int shown = 0;
  for (const auto& [s, f] : result_.physical_strides.cdf()) {
    if (shown++ == 8) break;
    out << "<=" << s << ": " << std::setprecision(3) << f << "  ";
  }
  out << "\n";
  if (!result_.remaps.empty()) {
    out << "  remaps (mappings per physical page: pages):";
    for (const auto& [k, n] : result_.remaps) out << " " << k << ":" << n;
    out << "\n";
  }
  out.unsetf(std::ios::fixed);
}

Json to_json(const StrideHistogram& h) {
  Json a = Json::array();
  for (const auto& [s, f] : h.cdf()) a.push_back({{"stride_lines", s}, {"cdf", f}});
  return a;
}

Json ScrTool::to_json() const {
  Json j;
  j["tool"] = "scr";
  j["line_bytes"] = knobs_.line_bytes;
  auto list = [](const std::vector<ScrCount>& v) {
    Json a = Json::array();
    for (const auto& c : v)
      a.push_back({{"window", c.window}, {"references", c.references}, {"stream", c.stream}, {"scr", c.scr()}});
    return a;
  };
  j["physical"] = list(result_.physical);
  if (knobs_.page_map) {
    j["virtual"] = list(result_.virtual_view);
    j["unmapped"] = result_.unmapped;
    Json r = Json::array();
    for (const auto& [k, n] : result_.remaps) r.push_back({{"mappings", k}, {"pages", n}});
    j["remaps"] = r;
    j["virtual_stride_cdf"] = analysis::to_json(result_.virtual_strides);
  }
  j["stride_window"] = knobs_.windows[stride_index_];
  j["physical_stride_cdf"] = analysis::to_json(result_.physical_strides);
  return j;
}

}  // namespace hmtt::analysis
