// Chameleon behind the profiling contract (analysis/core/.../profiler.h):
// `hmtt profile --method chameleon` writes the memory signature as JSON
// (docs/chameleon.md), `hmtt synth` regenerates a synthetic trace from it.
#pragma once

#include <memory>
#include <string_view>

#include "hmtt/analysis/profiler.h"
#include "hmtt/chameleon/generator.h"
#include "hmtt/chameleon/signature.h"
#include "hmtt/chameleon/tracer.h"

namespace hmtt::chameleon {

// A parsed Chameleon profile file.
struct ChameleonProfile {
  std::uint64_t references = 0;          // references of the original trace
  std::uint64_t sampled_references = 0;  // references characterised
  SignatureShape shape;
  MemorySignature signature;             // the whole trace
  struct Region {
    CodeRegion region;
    double weight = 0;
    MemorySignature signature;
  };
  std::vector<Region> regions;           // empty without a region map
  std::uint64_t seed_max = 0;            // longest seed synthesis builds (longer traces replicate it)
  std::uint32_t max_iterations = 8;
  double tolerance = 0.001;
  std::uint32_t fill_candidates = 1;     // blocks tried per block reuse (1: absent in older profiles)
  std::uint64_t scramble_bytes = 0;      // GeneratorOptions::scramble_bytes (0: absent in older profiles)

  // The model synthesis uses: the regions combined by their weights, else the whole signature.
  Result<SignatureModel> model() const;
};

// Parses a profile; errors name the field ("profile: signature.reuse[3]: ...").
Result<ChameleonProfile> parse_profile(std::string_view data);

// The trace seed `hmtt synth` would expand for `length` references (0 = the original's count).
Result<TraceSeed> seed_of(const ChameleonProfile& profile, std::uint64_t length, std::uint64_t random_seed);

}  // namespace hmtt::chameleon

namespace hmtt::analysis {
std::unique_ptr<Profiler> make_chameleon_profiler();
}  // namespace hmtt::analysis
