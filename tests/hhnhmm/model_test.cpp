// The two levels learned from a stream with a known class sequence, and the
// generator walking them (Algorithm 2).
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "hmtt/hhnhmm/generator.h"
#include "hmtt/hhnhmm/model.h"

using namespace hmtt::hhnhmm;

namespace {
// Runs of three Sequential frames (slope 4) then two Periodic frames (period 5, step 4), 50 times.
std::vector<std::uint64_t> known_runs() {
  std::vector<std::uint64_t> a;
  std::uint64_t pc = 0x10000;
  for (int r = 0; r < 50; ++r) {
    for (int f = 0; f < 3; ++f)
      for (int i = 0; i < 20; ++i) {
        a.push_back(pc);
        pc += 4;
      }
    for (int i = 0; i < 40; ++i) a.push_back(0x9000 + 4 * static_cast<std::uint64_t>(i % 5));
  }
  return a;
}
}  // namespace

TEST_CASE("learn(): frame census, the first-level chain and the run lengths of a known class sequence") {
  HhnhmmKnobs k;
  k.frame_length = 20;
  const auto m = learn(known_runs(), k);
  CHECK(m.frame_length == 20);
  CHECK(m.frames[0] == 150);
  CHECK(m.frames[1] == 100);
  CHECK(m.frames[2] + m.frames[3] + m.frames[4] == 0);
  CHECK(m.classification_rate() == 1.0);
  CHECK(m.chain_initial[0] == doctest::Approx(0.5));
  CHECK(m.chain_initial[1] == doctest::Approx(0.5));
  CHECK(m.chain_transitions[0][1] == doctest::Approx(1.0));
  CHECK(m.chain_transitions[1][0] == doctest::Approx(1.0));
  CHECK(m.chain_transitions[0][0] == 0.0);  // runs are maximal
  REQUIRE(m.periodic_symbols.size() == 1);
  CHECK(m.periodic_symbols[0].period == 5);
  CHECK(m.periodic_symbols[0].step == 4);
  REQUIRE(m.hmm[0].has_value());
  REQUIRE(m.hmm[1].has_value());
  CHECK_FALSE(m.hmm[2].has_value());
  // The termination state learned the runs' lengths: 3 and 2 frames on average.
  std::mt19937_64 rng(1);
  double s_len = 0, p_len = 0, slope = 0;
  const int draws = 4000;
  for (int i = 0; i < draws; ++i) {
    const auto s = m.hmm[0]->sample(rng);
    s_len += static_cast<double>(s.size()) / draws;
    slope += s[0] / draws;
    p_len += static_cast<double>(m.hmm[1]->sample(rng).size()) / draws;
  }
  CHECK(s_len == doctest::Approx(3.0).epsilon(0.1));
  CHECK(p_len == doctest::Approx(2.0).epsilon(0.1));
  CHECK(slope == doctest::Approx(4.0).epsilon(0.01));

  // Generation alternates S runs and P runs, 3:2 in frames, and the P frames are Algorithm 3's.
  SyntheticFrameGenerator g(m, 7);
  int s_frames = 0, p_frames = 0, switches = 0;
  FrameClass last = FrameClass::Other;
  for (int f = 0; f < 5000; ++f) {
    const auto frame = g.next_frame();
    const auto c = g.last_class();
    REQUIRE((c == FrameClass::Sequential || c == FrameClass::Periodic));
    if (c == FrameClass::Sequential) {
      ++s_frames;
      // Ascending, except where the fold wraps the stream back to address_min (at most once).
      int descents = 0;
      for (std::size_t i = 1; i < frame.size(); ++i) descents += frame[i] <= frame[i - 1];
      CHECK(descents <= 1);
    } else {
      ++p_frames;
      // Algorithm 3 verbatim: the first cycle is one short, periodic from index period-1 on.
      for (std::size_t i = 9; i < frame.size(); ++i) CHECK(frame[i] == frame[i - 5]);
    }
    switches += f > 0 && c != last;
    last = c;
    for (auto a : frame) {
      CHECK(a >= m.address_min);
      CHECK(a <= m.address_max);
    }
  }
  CHECK(static_cast<double>(s_frames) / 5000 == doctest::Approx(0.6).epsilon(0.05));
  CHECK(switches > 1500);
}

TEST_CASE("the model file round-trips: the parsed model generates the same stream") {
  HhnhmmKnobs k;
  k.frame_length = 20;
  const auto m = learn(known_runs(), k);
  Json j;
  model_to_json(m, j);
  auto back = model_from_json(j);
  REQUIRE(back.ok());
  SyntheticFrameGenerator a(m, 3), b(*back, 3);
  for (int f = 0; f < 200; ++f) CHECK(a.next_frame() == b.next_frame());
}
