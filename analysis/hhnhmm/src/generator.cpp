#include "hmtt/hhnhmm/generator.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace hmtt::hhnhmm {

namespace {
// Address arithmetic wraps (unsigned), so no profile value can overflow a signed type.
std::uint64_t offset(std::uint64_t start, std::int64_t by) { return start + static_cast<std::uint64_t>(by); }
std::uint64_t times(std::int64_t step, std::uint64_t k) { return static_cast<std::uint64_t>(step) * k; }
}  // namespace

std::vector<std::uint64_t> periodic_frame(std::uint64_t start, std::uint64_t period, std::int64_t step, std::size_t n) {
  std::vector<std::uint64_t> f(n);
  std::int64_t j = 0;
  for (std::size_t i = 1; i <= n; ++i) {
    const std::uint64_t m = period ? i % period : 0;
    j = j + 1;
    if (m == 0) {
      f[i - 1] = start;
      j = 1;
    } else {
      f[i - 1] = start + times(step, static_cast<std::uint64_t>(j - 1));
    }
  }
  return f;
}

std::vector<std::uint64_t> sequential_frame(std::uint64_t start, double slope, std::size_t n) {
  std::vector<std::uint64_t> f(n);
  for (std::size_t i = 1; i <= n; ++i) f[i - 1] = offset(start, std::llround(slope * static_cast<double>(i)));
  return f;
}

std::vector<std::uint64_t> jump_frame(std::uint64_t start, std::int64_t jump, std::int64_t step, std::size_t n) {
  std::vector<std::uint64_t> f(n);
  const std::size_t half = n / 2;
  for (std::size_t i = 0; i < n; ++i) {
    if (i < half)
      f[i] = start + times(step, i + 1);
    else
      f[i] = offset(start, jump) - times(step, n - 1 - i);
  }
  return f;
}

SyntheticFrameGenerator::SyntheticFrameGenerator(HhnhmmModel model, std::uint64_t seed)
    : model_(std::move(model)), rng_(seed), start_(model_.first_address) {}

std::uint64_t SyntheticFrameGenerator::fold(std::uint64_t address) const {
  const std::uint64_t lo = model_.address_min;
  const std::uint64_t width = model_.address_max - model_.address_min + 1;
  if (width == 0) return address;  // the whole 64-bit space
  if (address >= lo && address - lo < width) return address;
  // Below the range, fold from the top (as a signed modulo would); above it, from the bottom.
  if (address < lo) return model_.address_max - (lo - address - 1) % width;
  return lo + (address - lo) % width;
}

const std::vector<std::uint64_t>& SyntheticFrameGenerator::next_frame() {
  const std::size_t n = model_.frame_length;
  auto choose_class = [&](const std::array<double, kFrameClassCount>& w) {
    std::vector<double> v(w.begin(), w.end());
    double s = 0;
    for (double x : v) s += x;
    if (s <= 0) v.assign(model_.chain_initial.begin(), model_.chain_initial.end());
    return static_cast<FrameClass>(draw_index(v, rng_));
  };
  if (!in_run_) {
    cls_ = started_ ? choose_class(model_.chain_transitions[static_cast<std::size_t>(cls_)])
                    : choose_class(model_.chain_initial);
    started_ = true;
    const auto& h = model_.hmm[static_cast<std::size_t>(cls_)];
    if (!h) {  // model_from_json guarantees a model for every reachable class
      frame_.assign(n, start_);
      return frame_;
    }
    hidden_ = h->draw_initial(rng_);
    in_run_ = true;
  }
  const ErgodicHmm& h = *model_.hmm[static_cast<std::size_t>(cls_)];
  const double v = h.draw_emission(hidden_, rng_);
  const auto sym = static_cast<std::size_t>(std::max<long long>(0, std::llround(v)));
  switch (cls_) {
    case FrameClass::Sequential:
      frame_ = sequential_frame(start_, std::clamp(v, model_.slope_min, model_.slope_max), n);
      break;
    case FrameClass::Periodic: {
      const auto& p = model_.periodic_symbols[std::min(sym, model_.periodic_symbols.size() - 1)];
      frame_ = periodic_frame(start_, p.period, p.step, n);
      break;
    }
    case FrameClass::Random: {
      const auto& w = model_.codebook[std::min(sym, model_.codebook.size() - 1)];
      frame_.resize(n);
      for (auto& a : frame_) a = offset(start_, std::llround(draw_from_codeword(w, rng_)));
      break;
    }
    case FrameClass::Jump:
    {
      const std::int64_t v_j = model_.jump_symbols[std::min(sym, model_.jump_symbols.size() - 1)];
      const auto jump = model_.jump_absolute
                            ? static_cast<std::int64_t>(static_cast<std::uint64_t>(v_j) - start_)
                            : v_j;
      frame_ = jump_frame(start_, jump, model_.jump_step, n);
    }
      break;
    case FrameClass::Other: {
      const auto& pat = model_.other_patterns[std::min(sym, model_.other_patterns.size() - 1)];
      frame_.resize(n);
      for (std::size_t i = 0; i < n; ++i) frame_[i] = offset(start_, pat[i]);
      break;
    }
  }
  for (auto& a : frame_) a = fold(a);
  start_ = frame_.back();
  const std::size_t next = h.draw_next(hidden_, rng_);
  if (next >= h.states())
    in_run_ = false;
  else
    hidden_ = next;
  return frame_;
}

namespace {

class HhnhmmSource final : public ReferenceSource {
 public:
  HhnhmmSource(HhnhmmModel model, std::uint64_t length, std::uint64_t seed, const SynthesisKnobs& knobs)
      : gen_(std::move(model), seed), length_(length), knobs_(knobs), coin_rng_(seed ^ 0x9e3779b97f4a7c15ull) {}

  Result<std::size_t> read(std::span<Reference> out) override {
    std::size_t n = 0;
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    while (n < out.size() && done_ < length_) {
      if (pos_ >= frame_.size()) {
        frame_ = gen_.next_frame();
        pos_ = 0;
        if (frame_.empty()) break;
      }
      Reference r;
      r.time = done_;
      r.address = frame_[pos_++];
      r.size = knobs_.size;
      r.kind = knobs_.kind;
      if (knobs_.kind != Kind::IFetch && knobs_.write_fraction > 0)
        r.kind = coin(coin_rng_) < knobs_.write_fraction ? Kind::Write : Kind::Read;
      // Frames are arithmetic on addresses (slopes, codeword draws, folds into the range), so an
      // address can fall anywhere in a line. A load or store of 2^k bytes sits on a 2^k boundary:
      // a board capture's 64-byte references stay whole lines (815 of 217,681 spanned two before).
      // Instructions lie where the code puts them.
      if (r.kind != Kind::IFetch && std::has_single_bit(r.size) && r.size <= 64)
        r.address &= ~static_cast<std::uint64_t>(r.size - 1);
      out[n++] = r;
      ++done_;
    }
    return n;
  }

 private:
  SyntheticFrameGenerator gen_;
  std::uint64_t length_;
  SynthesisKnobs knobs_;
  std::mt19937_64 coin_rng_;
  std::vector<std::uint64_t> frame_;
  std::size_t pos_ = 0;
  std::uint64_t done_ = 0;
};

}  // namespace

std::unique_ptr<ReferenceSource> make_hhnhmm_source(HhnhmmModel model, std::uint64_t length, std::uint64_t seed,
                                                    const SynthesisKnobs& knobs) {
  return std::make_unique<HhnhmmSource>(std::move(model), length, seed, knobs);
}

}  // namespace hmtt::hhnhmm
