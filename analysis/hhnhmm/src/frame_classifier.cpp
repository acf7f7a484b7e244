#include "hmtt/hhnhmm/frame_classifier.h"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace hmtt::hhnhmm {

namespace {
double as_signed_difference(std::uint64_t a, std::uint64_t b) {
  // b - a as a signed number (addresses fit in 63 bits in practice).
  return static_cast<double>(static_cast<std::int64_t>(b - a));
}
}  // namespace

bool is_sequential(std::span<const std::uint64_t> frame, std::uint64_t max_step) {
  if (frame.size() < 2) return false;
  for (std::size_t i = 1; i < frame.size(); ++i)
    if (frame[i] <= frame[i - 1] || (max_step && frame[i] - frame[i - 1] > max_step)) return false;
  return true;
}

double sequential_slope(std::span<const std::uint64_t> frame) {
  if (frame.size() < 2) return 0;
  return as_signed_difference(frame.front(), frame.back()) / static_cast<double>(frame.size() - 1);
}

RandomnessTest randomness_test(std::span<const std::uint64_t> frame) {
  RandomnessTest r;
  const std::size_t n = frame.size();
  if (n < 3) return r;
  for (std::size_t i = 1; i < n; ++i) r.plus_signs += frame[i] > frame[i - 1];
  for (std::size_t i = 1; i + 1 < n; ++i) {
    const bool peak = frame[i] > frame[i - 1] && frame[i] > frame[i + 1];
    const bool trough = frame[i] < frame[i - 1] && frame[i] < frame[i + 1];
    r.turning_points += peak || trough;
  }
  const double N = static_cast<double>(n);
  r.z_signs = (static_cast<double>(r.plus_signs) - (N - 1) / 2) / std::sqrt((N + 1) / 12);
  r.z_turning = (static_cast<double>(r.turning_points) - 2 * (N - 2) / 3) / std::sqrt((16 * N - 29) / 90);
  return r;
}

bool is_jump(std::span<const std::uint64_t> frame, std::uint64_t threshold) {
  if (frame.size() < 2) return false;
  return std::abs(as_signed_difference(frame.front(), frame.back())) > static_cast<double>(threshold);
}

SpectralPeriodicity::SpectralPeriodicity(std::size_t frame_length) : n_(std::max<std::size_t>(frame_length, 4)) {
  in_ = fftw_alloc_real(n_);
  auto* out = fftw_alloc_complex(n_ / 2 + 1);
  out_ = out;
  plan_ = fftw_plan_dft_r2c_1d(static_cast<int>(n_), in_, out, FFTW_ESTIMATE);
  window_.resize(n_);
  for (std::size_t i = 0; i < n_; ++i)
    window_[i] = 0.54 - 0.46 * std::cos(2 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(n_ - 1));
  power_.assign(n_ / 2 + 1, 0);
}

SpectralPeriodicity::~SpectralPeriodicity() {
  fftw_destroy_plan(static_cast<fftw_plan>(plan_));
  fftw_free(in_);
  fftw_free(out_);
}

std::span<const double> SpectralPeriodicity::power() const { return power_; }

std::optional<SpectralPeriodicity::Period> SpectralPeriodicity::find_period(std::span<const std::uint64_t> frame,
                                                                             double repeat_tolerance) {
  if (frame.size() != n_) return std::nullopt;
  const std::uint64_t lo = *std::min_element(frame.begin(), frame.end());
  const std::uint64_t hi = *std::max_element(frame.begin(), frame.end());
  if (lo == hi) return Period{1, 0, 0.0};
  // Centre on the frame's mean (relative to its minimum, so doubles keep precision).
  double mean = 0;
  for (auto x : frame) mean += static_cast<double>(x - lo);
  mean /= static_cast<double>(n_);
  double deviation = 0;
  for (std::size_t i = 0; i < n_; ++i) {
    const double y = static_cast<double>(frame[i] - lo) - mean;
    deviation += std::abs(y);
    in_[i] = y * window_[i];
  }
  deviation /= static_cast<double>(n_);
  fftw_execute(static_cast<fftw_plan>(plan_));
  auto* out = static_cast<fftw_complex*>(out_);
  const std::size_t half = n_ / 2;
  double peak = 0;
  for (std::size_t k = 0; k <= half; ++k) {
    power_[k] = out[k][0] * out[k][0] + out[k][1] * out[k][1];
    if (k >= 1) peak = std::max(peak, power_[k]);
  }
  // The relative average difference at lag p (AMDF / mean deviation).
  auto repeat_difference = [&](std::size_t p) {
    double d = 0;
    for (std::size_t i = 0; i + p < n_; ++i) d += std::abs(as_signed_difference(frame[i], frame[i + p]));
    return d / static_cast<double>(n_ - p) / deviation;
  };
  std::optional<Period> best;
  for (std::size_t k = 2; k <= half; ++k) {
    const bool local_max = power_[k] >= power_[k - 1] && (k == half || power_[k] >= power_[k + 1]);
    if (!local_max || power_[k] < 0.05 * peak) continue;
    const double base = static_cast<double>(n_) / static_cast<double>(k);
    for (std::size_t m = 1; static_cast<double>(m) * base <= static_cast<double>(half) + 1; ++m) {
      const double c = static_cast<double>(m) * base;
      const auto lo_p = static_cast<std::size_t>(std::max(2.0, std::floor(c) - 1));
      const auto hi_p = std::min(half, static_cast<std::size_t>(std::ceil(c) + 1));
      for (std::size_t p = lo_p; p <= hi_p; ++p) {
        const double d = repeat_difference(p);
        if (!best || d < best->repeat_difference - 1e-12 ||
            (std::abs(d - best->repeat_difference) <= 1e-12 && p < best->period))
          best = Period{p, k, d};
      }
    }
  }
  if (!best || best->repeat_difference > repeat_tolerance) return std::nullopt;
  return best;
}

FrameClassifier::FrameClassifier(const ClassifierKnobs& knobs) : knobs_(knobs), spectrum_(knobs.frame_length) {}

FrameClassification FrameClassifier::classify(std::span<const std::uint64_t> frame) {
  FrameClassification c;
  if (is_sequential(frame, knobs_.sequential_max_step)) {
    c.cls = FrameClass::Sequential;
    c.slope = sequential_slope(frame);
    return c;
  }
  if (auto p = spectrum_.find_period(frame, knobs_.repeat_tolerance)) {
    c.cls = FrameClass::Periodic;
    c.period = p->period;
    // The loop step: the median positive difference (the body's instruction
    // length), so a body with one far call stays compact when regenerated.
    std::vector<std::uint64_t> ups;
    for (std::size_t i = 1; i < frame.size(); ++i)
      if (frame[i] > frame[i - 1]) ups.push_back(frame[i] - frame[i - 1]);
    if (p->period > 1 && !ups.empty()) {
      std::nth_element(ups.begin(), ups.begin() + static_cast<std::ptrdiff_t>(ups.size() / 2), ups.end());
      c.step = static_cast<std::int64_t>(ups[ups.size() / 2]);
    }
    return c;
  }
  const auto r = randomness_test(frame);
  if (frame.size() >= 3 && std::abs(r.z_signs) <= knobs_.z_critical && std::abs(r.z_turning) <= knobs_.z_critical) {
    c.cls = FrameClass::Random;
    return c;
  }
  if (is_jump(frame, knobs_.jump_threshold)) {
    c.cls = FrameClass::Jump;
    c.jump = static_cast<std::int64_t>(frame.back() - frame.front());
    return c;
  }
  c.cls = FrameClass::Other;
  return c;
}

}  // namespace hmtt::hhnhmm
