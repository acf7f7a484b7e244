// Synthetic trace generation (paper section VI, Algorithms 2 and 3): the
// first-level chain picks a class, the class's HMM emits values until its
// termination state, each value becomes one frame of N addresses starting
// from the last address generated (genSseq, genPseq, genRseq, genJseq,
// genOseq), then the chain moves on.
//
// Addresses are folded into the original's [address_min, address_max]
// (modulo its width), so a long synthetic stream keeps the original's
// footprint instead of drifting away by the sum of its slopes and jumps.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "hmtt/hhnhmm/model.h"
#include "hmtt/stream.h"

namespace hmtt::hhnhmm {

// Algorithm 3: period p frames  start, start+step, ..., restarting at `start` every p.
std::vector<std::uint64_t> periodic_frame(std::uint64_t start, std::uint64_t period, std::int64_t step, std::size_t n);
// genSseq: start + round(slope * i), i = 1..n.
std::vector<std::uint64_t> sequential_frame(std::uint64_t start, double slope, std::size_t n);
// genJseq: ascending by `step` from start for the first half, then ascending
// into start + jump for the second (the last address is start + jump).
std::vector<std::uint64_t> jump_frame(std::uint64_t start, std::int64_t jump, std::int64_t step, std::size_t n);

struct GeneratedReference {
  std::uint64_t address;
  FrameClass cls;
};

class SyntheticFrameGenerator {
 public:
  SyntheticFrameGenerator(HhnhmmModel model, std::uint64_t seed);
  // The next frame (Algorithm 2); its class is last_class().
  const std::vector<std::uint64_t>& next_frame();
  FrameClass last_class() const { return cls_; }
  const HhnhmmModel& model() const { return model_; }

 private:
  std::uint64_t fold(std::uint64_t address) const;
  HhnhmmModel model_;
  std::mt19937_64 rng_;
  FrameClass cls_ = FrameClass::Other;
  std::size_t hidden_ = 0;
  bool in_run_ = false;
  bool started_ = false;
  std::uint64_t start_ = 0;
  std::vector<std::uint64_t> frame_;
};

struct SynthesisKnobs {
  Kind kind = Kind::Read;
  double write_fraction = 0;  // share of Kind::Write when kind is a data kind
  std::uint32_t size = 4;
};

// A ReferenceSource of `length` references from the model; time = index.
std::unique_ptr<ReferenceSource> make_hhnhmm_source(HhnhmmModel model, std::uint64_t length, std::uint64_t seed,
                                                    const SynthesisKnobs& knobs);

}  // namespace hmtt::hhnhmm
