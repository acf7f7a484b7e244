// The Random class's values (paper eq. 3): a random frame is summarised by
// Stat(i) = [h1..h16, max, min], its 16-bin histogram over [min, max] (each
// bin the share of the frame's values in it, so the bins sum to one) and its
// range. Here min and max are kept relative to the address the frame starts
// from (the previous frame's last address), so a codeword can be replayed
// anywhere in the address space; the generator (genRseq) adds the start back.
//
// All Stat vectors are vector-quantised into a Codebook by k-means
// (k-means++ seeding, Euclidean distance after scaling each component by its
// spread over the training set so the range does not drown the histogram).
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace hmtt::hhnhmm {

inline constexpr std::size_t kHistogramBins = 16;

struct RandomFrameStat {
  std::array<double, kHistogramBins> histogram{};  // sums to 1
  double min = 0;  // relative to the start address
  double max = 0;
};

// Histogram(Frame) with the range taken relative to `start`.
RandomFrameStat random_frame_stat(std::span<const std::uint64_t> frame, std::uint64_t start);

// genRseq's draw: one value from the codeword's distribution by inverse
// transform over its cumulative histogram, relative to start. As in the paper
// the array's value is returned: the centre of the bin the uniform number
// falls in (drawing uniformly inside the bin instead spreads a frame over
// every line of a range that can span the whole address space).
double draw_from_codeword(const RandomFrameStat& codeword, std::mt19937_64& rng);

class Codebook {
 public:
  Codebook() = default;
  // CB(H, max, min): k-means with at most `size` codewords (fewer when there are
  // fewer distinct vectors); deterministic for a given seed.
  static Codebook train(const std::vector<RandomFrameStat>& stats, std::size_t size, std::uint64_t seed,
                        std::size_t iterations = 25);
  explicit Codebook(std::vector<RandomFrameStat> codewords) : codewords_(std::move(codewords)) {}

  // VQ(CodeBook, H, max, min): the index of the nearest codeword.
  std::size_t quantise(const RandomFrameStat& stat) const;
  const std::vector<RandomFrameStat>& codewords() const { return codewords_; }
  // Sum of squared scaled distances of the training set to its codewords.
  double distortion() const { return distortion_; }

 private:
  std::vector<double> features(const RandomFrameStat& s) const;
  std::vector<RandomFrameStat> codewords_;
  std::vector<double> scale_;
  double distortion_ = 0;
};

}  // namespace hmtt::hhnhmm
