// Known answers for every frame-classification test (paper section IV.B).
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <random>

#include "hmtt/hhnhmm/codebook.h"
#include "hmtt/hhnhmm/frame_classifier.h"

using namespace hmtt::hhnhmm;

namespace {
std::vector<std::uint64_t> sawtooth(std::size_t n, std::size_t period, std::uint64_t base, std::uint64_t step) {
  std::vector<std::uint64_t> f(n);
  for (std::size_t i = 0; i < n; ++i) f[i] = base + step * (i % period);
  return f;
}
}  // namespace

TEST_CASE("Sequential: every difference positive, ascending jumps allowed; slope = (last-first)/(N-1)") {
  std::vector<std::uint64_t> f;
  for (std::uint64_t i = 0; i < 50; ++i) f.push_back(0x400000 + 4 * i);
  CHECK(is_sequential(f));
  CHECK(sequential_slope(f) == doctest::Approx(4.0));
  f[30] += 0;  // still ascending
  for (std::size_t i = 25; i < 50; ++i) f[i] += 1000;  // an ascending jump
  CHECK(is_sequential(f));
  CHECK(sequential_slope(f) == doctest::Approx((4.0 * 49 + 1000) / 49));
  f[10] = f[9];  // one zero difference
  CHECK_FALSE(is_sequential(f));
  FrameClassifier c({.frame_length = 50});
  std::vector<std::uint64_t> g;
  for (std::uint64_t i = 0; i < 50; ++i) g.push_back(100 + 3 * i);
  const auto r = c.classify(g);
  CHECK(r.cls == FrameClass::Sequential);
  CHECK(r.slope == doctest::Approx(3.0));
}

TEST_CASE("Periodic: the spectrum's peak is at N/period and FindPeriod returns the period") {
  SpectralPeriodicity s(64);
  const auto f = sawtooth(64, 8, 0x1000, 4);
  auto p = s.find_period(f, 0.1);
  REQUIRE(p.has_value());
  CHECK(p->period == 8);
  CHECK(p->repeat_difference == doctest::Approx(0.0));
  // The fundamental of a sawtooth is its strongest bin: k = 64 / 8 = 8.
  const auto power = s.power();
  std::size_t kmax = 1;
  for (std::size_t k = 1; k < power.size(); ++k)
    if (power[k] > power[kmax]) kmax = k;
  CHECK(kmax == 8);
}

TEST_CASE("Periodic: the paper's Figure 8 case, f0 = 0.03 in a frame of 100, gives period 33") {
  SpectralPeriodicity s(100);
  const auto f = sawtooth(100, 33, 0x8000, 4);
  auto p = s.find_period(f, 0.1);
  REQUIRE(p.has_value());
  CHECK(p->period == 33);
  CHECK(p->fundamental_bin == 3);  // 100 / 3 = 33.3
}

TEST_CASE("Periodic: an instruction loop with an inner call, a constant frame, and non-periodic frames") {
  // Loop body of 7 instructions, one of them far away (a call), repeated.
  const std::vector<std::uint64_t> body = {0x400100, 0x400104, 0x400108, 0x7f0000, 0x7f0004, 0x40010c, 0x400110};
  std::vector<std::uint64_t> f;
  for (std::size_t i = 0; i < 60; ++i) f.push_back(body[i % body.size()]);
  FrameClassifier c({.frame_length = 60});
  const auto r = c.classify(f);
  CHECK(r.cls == FrameClass::Periodic);
  CHECK(r.period == 7);
  CHECK(r.step == 4);  // the median positive difference: the body's instruction length

  SpectralPeriodicity s(60);
  const std::vector<std::uint64_t> constant(60, 0x1234);
  auto p = s.find_period(constant, 0.1);
  REQUIRE(p.has_value());
  CHECK(p->period == 1);

  // A ramp (period longer than half the frame) and white noise are not periodic.
  std::vector<std::uint64_t> ramp;
  for (std::uint64_t i = 0; i < 60; ++i) ramp.push_back(1000 + (i < 40 ? 8 * i : 8 * (i - 40)));
  CHECK_FALSE(s.find_period(ramp, 0.1).has_value());
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::uint64_t> u(0, 1 << 20);
  int periodic = 0;
  for (int t = 0; t < 200; ++t) {
    std::vector<std::uint64_t> noise(60);
    for (auto& x : noise) x = u(rng);
    periodic += s.find_period(noise, 0.1).has_value();
  }
  CHECK(periodic == 0);
}

TEST_CASE("Random: exact sign and turning-point counts, and the tests' rates on iid and ordered frames") {
  const std::vector<std::uint64_t> zigzag = {1, 3, 2, 4, 3, 5};
  const auto r = randomness_test(zigzag);
  CHECK(r.plus_signs == 3);
  CHECK(r.turning_points == 4);
  CHECK(r.z_signs == doctest::Approx((3 - 2.5) / std::sqrt(7.0 / 12)));
  CHECK(r.z_turning == doctest::Approx((4 - 8.0 / 3) / std::sqrt(67.0 / 90)));

  // iid uniform frames pass both 5% tests about 90% of the time.
  FrameClassifier c({.frame_length = 100});
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<std::uint64_t> u(0x10000, 0x20000);
  int random = 0;
  const int frames = 1000;
  for (int t = 0; t < frames; ++t) {
    std::vector<std::uint64_t> f(100);
    for (auto& x : f) x = u(rng);
    random += c.classify(f).cls == FrameClass::Random;
  }
  CHECK(random > 850);
  CHECK(random < 960);
  // A zig-zag has a turning point everywhere: not random.
  std::vector<std::uint64_t> zz(100);
  for (std::size_t i = 0; i < 100; ++i) zz[i] = 1000 + (i % 2 ? 0 : 500) + 3 * i;
  const auto rz = randomness_test(zz);
  CHECK(rz.turning_points == 98);
  CHECK(std::abs(rz.z_turning) > 1.96);
}

TEST_CASE("Jump and Other: |last - first| against the threshold") {
  std::vector<std::uint64_t> f;
  for (std::uint64_t i = 0; i < 25; ++i) f.push_back(4 * i);
  for (std::uint64_t i = 0; i < 24; ++i) f.push_back(10000 + 4 * i);
  f.push_back(9990);
  FrameClassifier c({.frame_length = 50, .jump_threshold = 4096});
  auto r = c.classify(f);
  CHECK(r.cls == FrameClass::Jump);
  CHECK(r.jump == 9990);
  CHECK(is_jump(f, 9989));
  CHECK_FALSE(is_jump(f, 9990));
  // The same shape within the threshold is Other.
  for (std::size_t i = 25; i < 49; ++i) f[i] = 200 + 4 * (i - 25);
  f[49] = 150;
  r = c.classify(f);
  CHECK(r.cls == FrameClass::Other);
}

TEST_CASE("Random frames' Stat: 16-bin histogram summing to one, range relative to the start") {
  std::vector<std::uint64_t> f;
  for (std::uint64_t i = 0; i < 32; ++i) f.push_back(1000 + (i % 16) * 10);  // 1000..1150, two per bin
  const auto s = random_frame_stat(f, 900);
  for (double h : s.histogram) CHECK(h == doctest::Approx(2.0 / 32));
  CHECK(s.min == 100);
  CHECK(s.max == 250);

  // Two well-separated families of frames make two codewords; VQ picks the right one.
  std::vector<RandomFrameStat> stats;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> jitter(-5, 5);
  for (int i = 0; i < 40; ++i) {
    RandomFrameStat a;
    a.histogram.fill(0);
    a.histogram[0] = 0.5;
    a.histogram[15] = 0.5;
    a.min = -100 + jitter(rng);
    a.max = 100 + jitter(rng);
    stats.push_back(a);
    RandomFrameStat b;
    b.histogram.fill(1.0 / 16);
    b.min = 5000 + jitter(rng);
    b.max = 9000 + jitter(rng);
    stats.push_back(b);
  }
  const auto cb = Codebook::train(stats, 2, 1);
  REQUIRE(cb.codewords().size() == 2);
  const std::size_t ca = cb.quantise(stats[0]), cbi = cb.quantise(stats[1]);
  CHECK(ca != cbi);
  CHECK(cb.codewords()[ca].min == doctest::Approx(-100).epsilon(0.05));
  CHECK(cb.codewords()[cbi].max == doctest::Approx(9000).epsilon(0.01));
  CHECK(cb.codewords()[ca].histogram[0] == doctest::Approx(0.5));
  for (std::size_t i = 0; i < stats.size(); ++i) CHECK(cb.quantise(stats[i]) == (i % 2 ? cbi : ca));
  // Asking for more codewords than distinct vectors gives no more than there are.
  const auto one = Codebook::train(std::vector<RandomFrameStat>(10, stats[0]), 8, 1);
  CHECK(one.codewords().size() == 1);
  // genRseq's inverse transform returns a bin's value (its centre): 16 values, each as often as its bin.
  std::mt19937_64 g(5);
  std::map<double, int> seen;
  const int draws = 16000;
  for (int i = 0; i < draws; ++i) ++seen[draw_from_codeword(s, g)];
  REQUIRE(seen.size() == 16);
  int k = 0;
  for (const auto& [v, count] : seen) {
    CHECK(v == doctest::Approx(100 + (250.0 - 100) / 16 * (k++ + 0.5)));
    CHECK(count == doctest::Approx(draws / 16).epsilon(0.1));
  }
}
