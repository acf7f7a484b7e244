// The whole HHnHMM (paper section V): the observable first-level Markov chain
// over the execution classes S, P, R, J, O, and for each class that occurs an
// ergodic HMM with a termination state over the class's values. One run of
// consecutive frames of one class is one observation sequence of that class's
// HMM (the paper's gamma = (alpha, beta) pairs: alpha the class, beta the run's
// values); the chain learns which class follows a run (runs are maximal, so
// the chain has no self-transitions) and the HMM's termination state learns
// how long runs last.
//
// Values per class (the symbols of a discrete HMM are indices into the
// class's table; values beyond `max_symbols` map to the nearest kept one):
//   S  the slope                  Gaussian emissions
//   P  (period, loop step)        discrete over the distinct pairs
//   R  the codebook index          discrete over the codewords
//   J  the jump x[N-1] - x[0]      discrete over the distinct jumps (or, with
//      jump_absolute, the target x[N-1] itself: a deviation, docs/hhnhmm.md)
//   O  the frame's offsets from the previous frame's last address
//                                  discrete over the distinct offset patterns
//
// learn() is the analysis stage (Algorithm 1 over all frames);
// model_to_json()/model_from_json() are the documented model file
// (docs/hhnhmm.md); generation is generator.h.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "hmtt/analysis/tool.h"
#include "hmtt/hhnhmm/codebook.h"
#include "hmtt/hhnhmm/frame_classifier.h"
#include "hmtt/hhnhmm/hmm.h"
#include "hmtt/result.h"

namespace hmtt::hhnhmm {

struct HhnhmmKnobs {
  std::size_t frame_length = 0;  // 0 = chosen by the initial analysis
  std::size_t frame_min = 20, frame_max = 100, frame_step = 10;
  std::size_t analysis_references = 262144;  // the initial analysis reads this many
  ClassifierKnobs classifier;                 // its frame_length is set by learn()
  std::size_t states = 4;                     // hidden states per HMM
  std::size_t iterations = 30;                // Baum-Welch iterations at most
  std::size_t codebook = 32;                  // codewords for Random frames
  std::size_t max_symbols = 256;              // per discrete class table
  std::uint64_t seed = 1;
  bool jump_absolute = false;  // Jump value: the target address instead of x[N-1] - x[0]
};

struct FrameLengthTrial {
  std::size_t frame_length = 0;
  double classification_rate = 0;  // share of frames not Other
};

// The classification of a whole address sequence in frames of `frame_length`
// (Algorithm 1 without the training): per-class counts and the rate.
struct FrameCensus {
  std::array<std::uint64_t, kFrameClassCount> frames{};
  std::uint64_t total() const;
  double classification_rate() const;
};
FrameCensus classify_frames(std::span<const std::uint64_t> addresses, const ClassifierKnobs& knobs);

// The initial analysis: every candidate frame length on a prefix, best first
// chosen by the highest classification rate (the shorter on a tie).
std::vector<FrameLengthTrial> frame_length_trials(std::span<const std::uint64_t> addresses, const HhnhmmKnobs& knobs);

struct PeriodicSymbol {
  std::uint64_t period = 0;
  std::int64_t step = 0;
};

struct HhnhmmModel {
  std::uint64_t references = 0;  // addresses analysed
  std::size_t frame_length = 0;
  std::vector<FrameLengthTrial> trials;
  std::array<std::uint64_t, kFrameClassCount> frames{};
  std::uint64_t first_address = 0, address_min = 0, address_max = 0;
  // First level: the class of a run, then of the run after it.
  std::array<double, kFrameClassCount> chain_initial{};
  std::array<std::array<double, kFrameClassCount>, kFrameClassCount> chain_transitions{};
  // Second level (absent for a class that never occurs).
  std::array<std::optional<ErgodicHmm>, kFrameClassCount> hmm;
  double slope_min = 0, slope_max = 0;
  std::vector<PeriodicSymbol> periodic_symbols;
  std::vector<RandomFrameStat> codebook;
  std::vector<std::int64_t> jump_symbols;  // jumps, or target addresses when jump_absolute
  bool jump_absolute = false;
  std::vector<std::vector<std::int64_t>> other_patterns;  // each frame_length offsets
  std::int64_t jump_step = 4;  // address step around a generated jump (median positive difference)

  double classification_rate() const;
};

// The analysis stage over addresses in trace order.
HhnhmmModel learn(std::span<const std::uint64_t> addresses, const HhnhmmKnobs& knobs);

// The model's fields of the profile (merged into the hmtt-profile header).
void model_to_json(const HhnhmmModel& model, Json& out);
// Reads and checks them; errors name the field.
Result<HhnhmmModel> model_from_json(const Json& j);

}  // namespace hmtt::hhnhmm
