#include "workloads.h"

#include <random>

namespace hmtt::cosim_test {

void generate(const WorkloadSpec& w, std::uint64_t capacity, board::AccessSequencer& seq) {
  std::mt19937_64 rng(w.seed);
  const std::uint64_t span = w.config_base;  // ordinary memory lies below the config space
  const std::uint64_t lines_per_unit = w.unit / 64;
  std::uint64_t cursor = (rng() % (span / 2)) & ~std::uint64_t{4095};
  std::size_t done = 0;
  std::size_t events = 0;
  auto gap = [&]() -> std::uint32_t {
    if (!w.bursty) return static_cast<std::uint32_t>(rng() % 6);
    const bool dense = (done / 2000) % 2 == 0;
    return dense ? 0 : static_cast<std::uint32_t>(rng() % 40);
  };
  if (w.begin_end) seq.add(w.config_base + 0x000, false, 2);  // BEGIN TRACING
  const std::size_t end_at = w.begin_end ? w.accesses - w.accesses / 10 : w.accesses + 1;
  while (done < w.accesses) {
    Pattern p = w.pattern;
    if (p == Pattern::Mixed) p = static_cast<Pattern>(rng() % 4);
    std::uint64_t unit_base = 0;
    switch (p) {
      case Pattern::SeqRead:
      case Pattern::SeqWrite:
      case Pattern::ReadAfterWrite:
        unit_base = cursor;
        cursor += w.unit;
        if (cursor + w.unit >= span) cursor = 0;
        break;
      default:
        unit_base = (rng() % (span - w.unit)) & ~std::uint64_t{w.unit - 1};
        break;
    }
    for (std::uint64_t l = 0; l < lines_per_unit && done < w.accesses; ++l) {
      const std::uint64_t a = unit_base + 64 * l;
      const bool write = p == Pattern::SeqWrite;
      seq.add(a, write, gap());
      ++done;
      if (p == Pattern::ReadAfterWrite && done < w.accesses) {
        seq.add(a, !write && (l % 2 == 0), 0);
        ++done;
      }
      if (w.user_event_every != 0 && done % w.user_event_every == 0) {
        const std::uint64_t k = events++ % 1000;
        seq.add(w.config_base + 0x1000 + 0x40 * k, (k & 1) != 0, 1);
      }
      if (done == end_at) seq.add(w.config_base + 0x040, false, 1);  // END TRACING
    }
  }
  (void)capacity;
}

}  // namespace hmtt::cosim_test
