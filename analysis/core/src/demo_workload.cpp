#include "hmtt/analysis/demo_workload.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace hmtt::analysis {

DemoWorkload::DemoWorkload(const DemoWorkloadKnobs& knobs)
    : knobs_(knobs), rng_(knobs.seed * 0x9e3779b97f4a7c15ULL + 0x1234567) {
  if (knobs_.footprint_bytes < (1u << 20)) knobs_.footprint_bytes = 1u << 20;
}

std::uint64_t DemoWorkload::next_random() {
  rng_ ^= rng_ >> 12;
  rng_ ^= rng_ << 25;
  rng_ ^= rng_ >> 27;
  return rng_ * 0x2545F4914F6CDD1DULL;
}

void DemoWorkload::refill() {
  pending_.clear();
  pending_pos_ = 0;
  const std::uint64_t fp = knobs_.footprint_bytes;
  auto cpu = [&](std::uint64_t addr, Kind k) {
    Reference r;
    r.address = addr;
    r.size = 8;
    r.kind = k;
    r.origin = Origin::Cpu;
    r.source = pid_;
    pending_.push_back(r);
  };
  const double u = static_cast<double>(next_random() >> 11) / 9007199254740992.0;
  if (u < knobs_.dma_fraction) {
    // A DMA request: disk write of 4..128 KB or a NIC read of 64..1536 B, in 64-byte bursts.
    const bool disk = (next_random() & 3) != 0;
    const std::uint64_t bytes = disk ? 4096ull << (next_random() % 6) : 64 * (1 + next_random() % 24);
    const std::uint64_t base = (fp + (next_random() % 256) * (128 << 10)) & ~std::uint64_t{63};
    for (std::uint64_t off = 0; off < bytes; off += 64) {
      Reference r;
      r.address = base + off;
      r.size = 64;
      r.kind = disk ? Kind::Write : Kind::Read;
      r.origin = Origin::Dma;
      r.source = disk ? 1 : 2;
      pending_.push_back(r);
    }
    return;
  }
  pid_ = pid_ == 1 ? 2 : 1;  // processes take turns
  const std::uint64_t pid_base = pid_ == 1 ? 0 : fp / 2;
  switch (next_random() % 4) {
    case 0: {  // array sweep, 8-byte elements, stride 1..4 elements or 1..3 lines
      const std::uint64_t stride = (next_random() & 1) ? 8 * (1 + next_random() % 4) : 64 * (1 + next_random() % 3);
      const std::uint64_t start = pid_base + (next_random() % (fp / 2 - (1 << 19))) / 64 * 64;
      const std::uint64_t n = 64 + next_random() % 2000;
      for (std::uint64_t i = 0; i < n; ++i) cpu(start + i * stride, (i % 4 == 3) ? Kind::Write : Kind::Read);
      break;
    }
    case 1: {  // hot set of 16 KB, skewed
      for (int i = 0; i < 400; ++i) {
        const std::uint64_t r = next_random();
        const std::uint64_t off = ((r >> 8) % 2048) * ((r >> 40) % 2048) / 2048;
        cpu(pid_base + off * 8, (r & 7) == 0 ? Kind::Write : Kind::Read);
      }
      break;
    }
    case 2: {  // pointer chase over the process's half
      for (int i = 0; i < 300; ++i) {
        chase_ = (chase_ * 6364136223846793005ULL + 1442695040888963407ULL);
        cpu(pid_base + ((chase_ >> 20) % (fp / 2)) / 8 * 8, Kind::Read);
      }
      break;
    }
    default: {  // medium working set, reused: 256 KB
      const std::uint64_t base = pid_base + (1 << 20);
      for (int i = 0; i < 500; ++i) cpu(base + (next_random() % (1 << 15)) * 8, Kind::Read);
      break;
    }
  }
}

Result<std::size_t> DemoWorkload::read(std::span<Reference> out) {
  std::size_t n = 0;
  while (n < out.size() && produced_ < knobs_.references) {
    if (pending_pos_ == pending_.size()) refill();
    Reference r = pending_[pending_pos_++];
    time_ += 1 + (next_random() & 7);
    r.time = time_;
    out[n++] = r;
    ++produced_;
  }
  return n;
}

bool is_demo_spec(std::string_view spec) { return spec == "demo" || spec.rfind("demo:", 0) == 0; }

Result<std::unique_ptr<ReferenceSource>> open_demo(std::string_view spec) {
  if (!is_demo_spec(spec)) return make_error(std::string(spec) + ": not a demo trace name");
  DemoWorkloadKnobs k;
  std::string_view rest = spec.size() > 5 ? spec.substr(5) : std::string_view{};
  std::uint64_t* fields[] = {&k.references, &k.seed};
  for (std::uint64_t* f : fields) {
    if (rest.empty()) break;
    const std::size_t colon = rest.find(':');
    const std::string_view part = rest.substr(0, colon);
    auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), *f);
    if (ec != std::errc() || p != part.data() + part.size() || part.empty())
      return make_error(std::string(spec) + ": expected demo[:REFERENCES[:SEED]]");
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
  }
  if (!rest.empty()) return make_error(std::string(spec) + ": expected demo[:REFERENCES[:SEED]]");
  return std::unique_ptr<ReferenceSource>(std::make_unique<DemoWorkload>(k));
}

}  // namespace hmtt::analysis
