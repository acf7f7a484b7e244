// DMA against CPU references (HMTT paper, section 6.3): the shares of CPU and
// DMA reads and writes (Table 3), and DMA requests: a request is a maximal run
// of one device's DMA references in one direction at consecutive addresses
// (each starts where the previous one ended), other references in between
// allowed. Per device and direction: the share of requests, their average
// size (Table 4) and the CDF of request sizes (Fig. 16).
//
// Origin::Dma and Origin::DmaModelled count as DMA; Origin::Cpu as CPU;
// Origin::Unknown is reported apart (a plain board trace cannot tell).
#pragma once

#include <map>
#include <memory>

#include "hmtt/analysis/tool.h"

namespace hmtt::analysis {

struct DmaKnobs {
  std::uint32_t reference_bytes = 64;  // size of a reference whose size field is 0
};

struct DmaRequestStats {
  std::uint64_t requests = 0;
  std::uint64_t bytes = 0;
  std::map<std::uint64_t, std::uint64_t> sizes;  // request bytes -> requests
  double average_bytes() const { return requests == 0 ? 0 : static_cast<double>(bytes) / static_cast<double>(requests); }
};

struct DmaResult {
  // [origin class][direction]: class 0 = CPU, 1 = DMA, 2 = unknown; direction 0 = read, 1 = write.
  std::uint64_t counts[3][2] = {{0, 0}, {0, 0}, {0, 0}};
  std::uint64_t total = 0;
  double share(int origin_class, int direction) const {
    return total == 0 ? 0 : static_cast<double>(counts[origin_class][direction]) / static_cast<double>(total);
  }
  // (device id, direction 0 read / 1 write) -> requests
  std::map<std::pair<std::uint16_t, int>, DmaRequestStats> requests;
  std::uint64_t request_count() const;
};

std::unique_ptr<AnalysisTool> dma_tool_create(const DmaKnobs& knobs);

class DmaTool final : public AnalysisTool {
 public:
  explicit DmaTool(const DmaKnobs& knobs) : knobs_(knobs) {}
  std::string_view name() const override { return "dma"; }
  Status init() override;
  Status process(std::span<const Reference> refs) override;
  Status finish() override;
  void print(std::ostream& out) const override;
  Json to_json() const override;
  const DmaResult& result() const { return result_; }

 private:
  struct Open {
    std::uint64_t next = 0;
    std::uint64_t bytes = 0;
  };
  void close(std::pair<std::uint16_t, int> key, const Open& o);
  DmaKnobs knobs_;
  std::map<std::pair<std::uint16_t, int>, Open> open_;
  DmaResult result_;
};

}  // namespace hmtt::analysis
