// Fuzz harness for the Chameleon readers: the profile (JSON signature, its
// regions and knobs) and the region map file. The first input byte picks the
// reader: even = a profile given to `hmtt synth` (any bytes must give a stream
// of at most the asked length or an error, never a crash, hang or sanitizer
// report), odd = a region map (`region ID NAME T0 T1` lines; errors name the
// line, accepted regions are well formed).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hmtt/analysis/profiler.h"
#include "hmtt/chameleon/chameleon.h"
#include "hmtt/chameleon/tracer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 1) {
    auto regions = hmtt::analysis::parse_regions(std::string(rest), "fuzz.map");
    if (!regions.ok()) {
      if (regions.error().message.rfind("fuzz.map", 0) != 0) __builtin_trap();  // errors name the file
      return 0;
    }
    for (std::size_t i = 0; i < regions->size(); ++i) {
      const auto& r = (*regions)[i];
      if (r.t0 >= r.t1 || r.id == hmtt::chameleon::kOtherRegionId) __builtin_trap();  // well formed
      if (i > 0 && r.t0 < (*regions)[i - 1].t1) __builtin_trap();                      // sorted, disjoint
    }
    return 0;
  }
  auto profiler = hmtt::analysis::make_chameleon_profiler();
  constexpr std::size_t kLength = 2048;
  auto syn = profiler->synthesize(rest, hmtt::analysis::SynthOptions{.length = kLength, .seed = 1});
  if (!syn.ok()) return 0;
  std::vector<hmtt::Reference> batch(512);
  std::size_t total = 0;
  for (;;) {
    auto n = (*syn)->read(batch);
    if (!n.ok() || *n == 0) break;
    total += *n;
    if (total > kLength) __builtin_trap();  // more than asked for
  }
  return 0;
}
