#include "hmtt/hhnhmm/codebook.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hmtt::hhnhmm {

RandomFrameStat random_frame_stat(std::span<const std::uint64_t> frame, std::uint64_t start) {
  RandomFrameStat s;
  if (frame.empty()) return s;
  const std::uint64_t lo = *std::min_element(frame.begin(), frame.end());
  const std::uint64_t hi = *std::max_element(frame.begin(), frame.end());
  const double width = static_cast<double>(hi - lo) / static_cast<double>(kHistogramBins);
  for (auto x : frame) {
    std::size_t bin = width > 0 ? static_cast<std::size_t>(static_cast<double>(x - lo) / width) : 0;
    bin = std::min(bin, kHistogramBins - 1);
    s.histogram[bin] += 1.0 / static_cast<double>(frame.size());
  }
  s.min = static_cast<double>(static_cast<std::int64_t>(lo - start));
  s.max = static_cast<double>(static_cast<std::int64_t>(hi - start));
  return s;
}

double draw_from_codeword(const RandomFrameStat& c, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double r = u(rng);
  double cum = 0;
  std::size_t bin = kHistogramBins - 1;
  for (std::size_t k = 0; k < kHistogramBins; ++k) {
    cum += c.histogram[k];
    if (r < cum) {
      bin = k;
      break;
    }
  }
  const double width = (c.max - c.min) / static_cast<double>(kHistogramBins);
  return c.min + width * (static_cast<double>(bin) + 0.5);
}

std::vector<double> Codebook::features(const RandomFrameStat& s) const {
  std::vector<double> f(s.histogram.begin(), s.histogram.end());
  f.push_back(s.min);
  f.push_back(s.max);
  if (scale_.size() == f.size())
    for (std::size_t i = 0; i < f.size(); ++i) f[i] /= scale_[i];
  return f;
}

namespace {
double distance2(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d += (a[i] - b[i]) * (a[i] - b[i]);
  return d;
}
}  // namespace

Codebook Codebook::train(const std::vector<RandomFrameStat>& stats, std::size_t size, std::uint64_t seed,
                         std::size_t iterations) {
  Codebook cb;
  if (stats.empty() || size == 0) return cb;
  const std::size_t dims = kHistogramBins + 2;
  // Scale: each component's standard deviation (1 when it does not vary).
  std::vector<double> mean(dims, 0), sd(dims, 0);
  std::vector<std::vector<double>> raw;
  raw.reserve(stats.size());
  for (const auto& s : stats) raw.push_back(cb.features(s));
  for (const auto& f : raw)
    for (std::size_t i = 0; i < dims; ++i) mean[i] += f[i] / static_cast<double>(raw.size());
  for (const auto& f : raw)
    for (std::size_t i = 0; i < dims; ++i) sd[i] += (f[i] - mean[i]) * (f[i] - mean[i]) / static_cast<double>(raw.size());
  cb.scale_.resize(dims);
  for (std::size_t i = 0; i < dims; ++i) cb.scale_[i] = sd[i] > 1e-12 ? std::sqrt(sd[i]) : 1.0;
  std::vector<std::vector<double>> x;
  x.reserve(raw.size());
  for (const auto& s : stats) x.push_back(cb.features(s));

  // k-means++ seeding.
  std::mt19937_64 rng(seed);
  std::vector<std::vector<double>> centres;
  centres.push_back(x[std::uniform_int_distribution<std::size_t>(0, x.size() - 1)(rng)]);
  std::vector<double> nearest(x.size(), std::numeric_limits<double>::infinity());
  while (centres.size() < size) {
    double total = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      nearest[i] = std::min(nearest[i], distance2(x[i], centres.back()));
      total += nearest[i];
    }
    if (total <= 0) break;  // no more distinct vectors
    double r = std::uniform_real_distribution<double>(0.0, total)(rng);
    std::size_t pick = x.size() - 1;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (r < nearest[i]) {
        pick = i;
        break;
      }
      r -= nearest[i];
    }
    centres.push_back(x[pick]);
  }
  // Lloyd iterations.
  std::vector<std::size_t> assign(x.size(), 0);
  for (std::size_t it = 0; it < iterations; ++it) {
    bool changed = it == 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      std::size_t best = 0;
      double bd = std::numeric_limits<double>::infinity();
      for (std::size_t c = 0; c < centres.size(); ++c) {
        const double d = distance2(x[i], centres[c]);
        if (d < bd) {
          bd = d;
          best = c;
        }
      }
      if (assign[i] != best) changed = true;
      assign[i] = best;
    }
    if (!changed) break;
    std::vector<std::vector<double>> sum(centres.size(), std::vector<double>(dims, 0));
    std::vector<std::size_t> count(centres.size(), 0);
    for (std::size_t i = 0; i < x.size(); ++i) {
      ++count[assign[i]];
      for (std::size_t d = 0; d < dims; ++d) sum[assign[i]][d] += x[i][d];
    }
    for (std::size_t c = 0; c < centres.size(); ++c)
      if (count[c] > 0)
        for (std::size_t d = 0; d < dims; ++d) centres[c][d] = sum[c][d] / static_cast<double>(count[c]);
  }
  cb.distortion_ = 0;
  for (std::size_t i = 0; i < x.size(); ++i) cb.distortion_ += distance2(x[i], centres[assign[i]]);
  for (const auto& c : centres) {
    RandomFrameStat s;
    double hs = 0;
    for (std::size_t k = 0; k < kHistogramBins; ++k) {
      s.histogram[k] = std::max(0.0, c[k] * cb.scale_[k]);
      hs += s.histogram[k];
    }
    for (auto& h : s.histogram) h = hs > 0 ? h / hs : 1.0 / static_cast<double>(kHistogramBins);
    s.min = c[kHistogramBins] * cb.scale_[kHistogramBins];
    s.max = c[kHistogramBins + 1] * cb.scale_[kHistogramBins + 1];
    cb.codewords_.push_back(s);
  }
  return cb;
}

std::size_t Codebook::quantise(const RandomFrameStat& stat) const {
  const auto f = features(stat);
  std::size_t best = 0;
  double bd = std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < codewords_.size(); ++c) {
    const double d = distance2(f, features(codewords_[c]));
    if (d < bd) {
      bd = d;
      best = c;
    }
  }
  return best;
}

}  // namespace hmtt::hhnhmm
