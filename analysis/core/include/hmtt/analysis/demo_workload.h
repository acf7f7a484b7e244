// A deterministic synthetic workload for demos, tests and benchmarks when no
// captured trace is at hand: two CPU processes taking turns (Reference::source
// = pid) that sweep arrays at small strides, hammer a hot set, and chase
// pointers through a large region; and two DMA devices (a disk writing
// requests of 4-128 KB and a NIC reading small packets) between them. Time
// advances 1-8 ticks per reference. Same seed, same trace.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "hmtt/stream.h"

namespace hmtt::analysis {

struct DemoWorkloadKnobs {
  std::uint64_t references = 1'000'000;
  std::uint64_t seed = 1;
  double dma_fraction = 0.1;      // share of references issued by DMA devices
  std::uint64_t footprint_bytes = 64ull << 20;
};

class DemoWorkload final : public ReferenceSource {
 public:
  explicit DemoWorkload(const DemoWorkloadKnobs& knobs);
  Result<std::size_t> read(std::span<Reference> out) override;

 private:
  std::uint64_t next_random();
  void refill();  // plans the next phase into pending_

  DemoWorkloadKnobs knobs_;
  std::uint64_t rng_;
  std::uint64_t produced_ = 0;
  std::uint64_t time_ = 0;
  std::vector<Reference> pending_;
  std::size_t pending_pos_ = 0;
  std::uint64_t chase_ = 0;
  std::uint16_t pid_ = 1;
};

// Trace names the verbs accept in place of a file: "demo", "demo:N" or
// "demo:N:SEED" (N references, default 1000000).
bool is_demo_spec(std::string_view spec);
Result<std::unique_ptr<ReferenceSource>> open_demo(std::string_view spec);

}  // namespace hmtt::analysis
