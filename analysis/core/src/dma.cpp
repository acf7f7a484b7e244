#include "hmtt/analysis/dma.h"

#include <iomanip>

namespace hmtt::analysis {

std::uint64_t DmaResult::request_count() const {
  std::uint64_t n = 0;
  for (const auto& [k, s] : requests) n += s.requests;
  return n;
}

std::unique_ptr<AnalysisTool> dma_tool_create(const DmaKnobs& knobs) { return std::make_unique<DmaTool>(knobs); }

Status DmaTool::init() {
  if (knobs_.reference_bytes == 0) return make_error("reference size must be at least 1 byte");
  result_ = DmaResult{};
  open_.clear();
  return Status::success();
}

void DmaTool::close(std::pair<std::uint16_t, int> key, const Open& o) {
  DmaRequestStats& s = result_.requests[key];
  ++s.requests;
  s.bytes += o.bytes;
  ++s.sizes[o.bytes];
}

Status DmaTool::process(std::span<const Reference> refs) {
  for (const Reference& r : refs) {
    const int dir = is_write(r.kind) ? 1 : 0;
    int cls = 2;
    if (r.origin == Origin::Cpu) cls = 0;
    if (r.origin == Origin::Dma || r.origin == Origin::DmaModelled) cls = 1;
    ++result_.counts[cls][dir];
    ++result_.total;
    if (cls != 1) continue;
    const std::uint64_t size = r.size == 0 ? knobs_.reference_bytes : r.size;
    const auto key = std::make_pair(r.source, dir);
    auto it = open_.find(key);
    if (it != open_.end() && it->second.next == r.address) {
      it->second.bytes += size;
      it->second.next += size;
      continue;
    }
    if (it != open_.end()) close(key, it->second);
    open_[key] = Open{r.address + size, size};
  }
  return Status::success();
}

Status DmaTool::finish() {
  for (const auto& [key, o] : open_) close(key, o);
  open_.clear();
  return Status::success();
}

void DmaTool::print(std::ostream& out) const {
  static const char* cls[] = {"CPU", "DMA", "unknown"};
  out << "reference types (" << result_.total << " references)\n" << std::fixed << std::setprecision(2);
  for (int c = 0; c < 3; ++c)
    for (int d = 0; d < 2; ++d) {
      if (c == 2 && result_.counts[c][d] == 0) continue;
      out << "  " << std::left << std::setw(8) << cls[c] << std::setw(6) << (d ? "write" : "read") << std::right
          << std::setw(8) << 100 * result_.share(c, d) << " %\n";
    }
  const double nreq = static_cast<double>(result_.request_count());
  if (nreq > 0) {
    out << "DMA requests (" << result_.request_count() << ")\n";
    for (const auto& [k, s] : result_.requests)
      out << "  device " << k.first << " " << (k.second ? "write" : "read ") << std::setw(8)
          << 100 * static_cast<double>(s.requests) / nreq << " %   average " << s.average_bytes() / 1024 << " KB\n";
  }
  out.unsetf(std::ios::fixed);
}

Json DmaTool::to_json() const {
  static const char* cls[] = {"cpu", "dma", "unknown"};
  Json j;
  j["tool"] = "dma";
  j["references"] = result_.total;
  Json shares = Json::object();
  for (int c = 0; c < 3; ++c)
    for (int d = 0; d < 2; ++d)
      shares[std::string(cls[c]) + "_" + (d ? "write" : "read")] = {{"references", result_.counts[c][d]},
                                                                     {"share", result_.share(c, d)}};
  j["shares"] = shares;
  Json req = Json::array();
  const double nreq = static_cast<double>(result_.request_count());
  for (const auto& [k, s] : result_.requests) {
    Json cdf = Json::array();
    std::uint64_t sum = 0;
    for (const auto& [size, n] : s.sizes) {
      sum += n;
      cdf.push_back({{"bytes", size}, {"cdf", static_cast<double>(sum) / static_cast<double>(s.requests)}});
    }
    req.push_back({{"device", k.first},
                   {"direction", k.second ? "write" : "read"},
                   {"requests", s.requests},
                   {"share", static_cast<double>(s.requests) / nreq},
                   {"average_bytes", s.average_bytes()},
                   {"size_cdf", cdf}});
  }
  j["requests"] = req;
  return j;
}

}  // namespace hmtt::analysis
