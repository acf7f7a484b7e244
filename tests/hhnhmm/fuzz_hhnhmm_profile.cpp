// Fuzz harness for the HHnHMM model reader and generator: any bytes given to
// `hmtt synth` as an hhnhmm profile must give a stream of at most the asked
// length or an error naming the field, never a crash, hang or sanitizer report.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "hmtt/analysis/profiler.h"
#include "hmtt/hhnhmm/hhnhmm.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto profiler = hmtt::analysis::make_hhnhmm_profiler();
  const std::string_view doc(reinterpret_cast<const char*>(data), size);
  auto syn = profiler->synthesize(doc, hmtt::analysis::SynthOptions{.length = 4096, .seed = 1});
  if (!syn.ok()) return 0;
  std::vector<hmtt::Reference> batch(1024);
  std::size_t total = 0;
  for (;;) {
    auto n = (*syn)->read(batch);
    if (!n.ok() || *n == 0) break;
    total += *n;
    if (total > 4096) __builtin_trap();  // more than asked for
  }
  return 0;
}
