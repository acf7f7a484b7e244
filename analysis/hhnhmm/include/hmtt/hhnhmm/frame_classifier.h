// Frame classification (paper section IV.B, Algorithm 1): a frame of N
// consecutive addresses is Sequential, Periodic, Random, Jump or Other, tested
// in that order; each class carries the value its HMM learns.
//
//   Sequential  every difference x[i+1] - x[i] is positive (ascending jumps
//               allowed); value: the slope (x[N-1] - x[0]) / (N - 1).
//   Periodic    the Hamming-windowed frame's spectrum (FFTW) has peaks; each
//               peak bin k proposes the period N/k (its neighbours and its
//               multiples, to reach the fundamental below a strong harmonic),
//               and the candidate whose lag makes the frame repeat best (the
//               smallest average |x[i+p] - x[i]|, relative to the frame's mean
//               deviation) is the period when that relative difference is at
//               most `repeat_tolerance` and p <= N/2 (two whole periods). A
//               constant frame is periodic with period 1. Value: the period
//               and the loop's step (the median positive difference; the
//               paper's Algorithm 3 steps by 1).
//   Random      the difference-sign test (plus signs: mean (N-1)/2, variance
//               (N+1)/12) and its turning-point variant (mean 2(N-2)/3,
//               variance (16N-29)/90) both within `z_critical` standard
//               deviations; value: the frame's 16-bin histogram and its range
//               (codebook.h).
//   Jump        |x[N-1] - x[0]| > `jump_threshold`; value: x[N-1] - x[0].
//   Other       none of these; value: the frame's offsets from its first address.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace hmtt::hhnhmm {

enum class FrameClass : std::uint8_t { Sequential = 0, Periodic = 1, Random = 2, Jump = 3, Other = 4 };
inline constexpr std::size_t kFrameClassCount = 5;
constexpr std::string_view class_letter(FrameClass c) {
  switch (c) {
    case FrameClass::Sequential: return "S";
    case FrameClass::Periodic: return "P";
    case FrameClass::Random: return "R";
    case FrameClass::Jump: return "J";
    case FrameClass::Other: return "O";
  }
  return "?";
}
constexpr std::string_view class_name(FrameClass c) {
  switch (c) {
    case FrameClass::Sequential: return "sequential";
    case FrameClass::Periodic: return "periodic";
    case FrameClass::Random: return "random";
    case FrameClass::Jump: return "jump";
    case FrameClass::Other: return "other";
  }
  return "?";
}

struct ClassifierKnobs {
  std::size_t frame_length = 50;
  double repeat_tolerance = 0.1;
  double z_critical = 1.96;
  std::uint64_t jump_threshold = 4096;
  // Sequential frames may contain ascending jumps (the paper); a positive
  // value caps the difference allowed inside a Sequential frame.
  std::uint64_t sequential_max_step = 0;
};

// Sequential(Frame): all differences positive.
// With max_step > 0 every difference must also be at most max_step.
bool is_sequential(std::span<const std::uint64_t> frame, std::uint64_t max_step = 0);
double sequential_slope(std::span<const std::uint64_t> frame);

// The quick randomness tests of the difference signs.
struct RandomnessTest {
  std::size_t plus_signs = 0;
  std::size_t turning_points = 0;
  double z_signs = 0;
  double z_turning = 0;
};
RandomnessTest randomness_test(std::span<const std::uint64_t> frame);

// Bounce(Frame) in the paper's Jump sense.
bool is_jump(std::span<const std::uint64_t> frame, std::uint64_t threshold);

// Spectral periodicity of frames of one length; owns its FFTW plan and buffers.
class SpectralPeriodicity {
 public:
  explicit SpectralPeriodicity(std::size_t frame_length);
  ~SpectralPeriodicity();
  SpectralPeriodicity(const SpectralPeriodicity&) = delete;
  SpectralPeriodicity& operator=(const SpectralPeriodicity&) = delete;

  struct Period {
    std::size_t period = 0;           // FindPeriod(Frame)
    std::size_t fundamental_bin = 0;  // the spectral bin that proposed it (0: constant frame)
    double repeat_difference = 0;     // relative |x[i+p] - x[i]|, 0 = exact repetition
  };
  // The period when the frame is periodic (frame.size() must be the frame length).
  std::optional<Period> find_period(std::span<const std::uint64_t> frame, double repeat_tolerance);
  // Power spectrum |Y_k|^2, k = 0..N/2, of the last analysed frame (tests, docs).
  std::span<const double> power() const;

 private:
  std::size_t n_;
  double* in_ = nullptr;
  void* out_ = nullptr;  // fftw_complex[n/2+1]
  void* plan_ = nullptr;  // fftw_plan
  std::vector<double> window_, power_;
};

struct FrameClassification {
  FrameClass cls = FrameClass::Other;
  double slope = 0;           // Sequential
  std::size_t period = 0;     // Periodic
  std::int64_t step = 0;      // Periodic: loop step (median positive difference)
  std::int64_t jump = 0;      // Jump
};

class FrameClassifier {
 public:
  explicit FrameClassifier(const ClassifierKnobs& knobs);
  const ClassifierKnobs& knobs() const { return knobs_; }
  FrameClassification classify(std::span<const std::uint64_t> frame);

 private:
  ClassifierKnobs knobs_;
  SpectralPeriodicity spectrum_;
};

}  // namespace hmtt::hhnhmm
