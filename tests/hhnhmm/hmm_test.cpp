// Baum-Welch with a termination state: exact likelihoods, likelihood never
// decreasing, and recovery of known models from their samples.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "hmtt/hhnhmm/hmm.h"

using namespace hmtt::hhnhmm;

namespace {

ErgodicHmm known_discrete() {
  ErgodicHmm h(Emission::Discrete, 2, 3);
  h.initial() = {0.7, 0.3};
  h.transitions() = {{0.85, 0.10}, {0.10, 0.80}};
  h.termination() = {0.05, 0.10};
  h.emissions() = {{0.80, 0.15, 0.05}, {0.05, 0.15, 0.80}};
  return h;
}

ErgodicHmm known_gaussian() {
  ErgodicHmm h(Emission::Gaussian, 2, 0);
  h.initial() = {0.4, 0.6};
  h.transitions() = {{0.80, 0.15}, {0.20, 0.75}};
  h.termination() = {0.05, 0.05};
  h.means() = {0.0, 10.0};
  h.variances() = {1.0, 4.0};
  return h;
}

std::vector<std::vector<double>> samples(const ErgodicHmm& h, std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<double>> s;
  for (std::size_t i = 0; i < count; ++i) s.push_back(h.sample(rng));
  return s;
}

}  // namespace

TEST_CASE("forward likelihood of a one-state model is the product of its probabilities") {
  ErgodicHmm h(Emission::Discrete, 1, 2);
  h.initial() = {1.0};
  h.transitions() = {{0.75}};
  h.termination() = {0.25};
  h.emissions() = {{0.5, 0.5}};
  REQUIRE(h.validate().ok());
  // 3 symbols: b * a * b * a * b * e.
  CHECK(h.log_likelihood(std::vector<double>{0, 1, 1}) ==
        doctest::Approx(std::log(0.5 * 0.75 * 0.5 * 0.75 * 0.5 * 0.25)));
  // A symbol outside the alphabet is impossible.
  CHECK(std::isinf(h.log_likelihood(std::vector<double>{0, 5})));
  // Two-state model: the sum over both paths of one symbol.
  auto k = known_discrete();
  CHECK(k.log_likelihood(std::vector<double>{2}) == doctest::Approx(std::log(0.7 * 0.05 * 0.05 + 0.3 * 0.80 * 0.10)));
}

TEST_CASE("Baum-Welch: the likelihood never decreases (discrete and Gaussian)") {
  for (auto truth : {known_discrete(), known_gaussian()}) {
    const auto data = samples(truth, 300, 2);
    ErgodicHmm h(truth.emission(), 3, truth.symbols());
    const auto report = h.train(data, {.max_iterations = 60, .tolerance = 0, .variance_floor = 1e-6, .seed = 9});
    REQUIRE(report.log_likelihood.size() >= 10);
    for (std::size_t i = 1; i < report.log_likelihood.size(); ++i)
      CHECK(report.log_likelihood[i] >= report.log_likelihood[i - 1] - 1e-7 * std::abs(report.log_likelihood[i - 1]));
    CHECK(h.validate().ok());
    CHECK(report.log_likelihood.back() == doctest::Approx(h.log_likelihood(data)));
  }
}

TEST_CASE("Baum-Welch recovers a known discrete HMM with termination within 0.04 of every parameter") {
  const auto truth = known_discrete();
  const auto data = samples(truth, 4000, 21);
  ErgodicHmm h(Emission::Discrete, 2, 3);
  h.train(data, {.max_iterations = 300, .tolerance = 1e-9, .variance_floor = 1e-6, .seed = 4});
  // States are found up to a permutation: state 0 is the one that favours symbol 0.
  const std::size_t s0 = h.emissions()[0][0] > h.emissions()[1][0] ? 0 : 1, s1 = 1 - s0;
  const std::size_t map[2] = {s0, s1};
  const double tol = 0.04;
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(std::abs(h.initial()[map[i]] - truth.initial()[i]) < tol);
    CHECK(std::abs(h.termination()[map[i]] - truth.termination()[i]) < tol);
    for (std::size_t j = 0; j < 2; ++j)
      CHECK(std::abs(h.transitions()[map[i]][map[j]] - truth.transitions()[i][j]) < tol);
    for (std::size_t k = 0; k < 3; ++k) CHECK(std::abs(h.emissions()[map[i]][k] - truth.emissions()[i][k]) < tol);
  }
}

TEST_CASE("Baum-Welch recovers a known Gaussian HMM: means within 0.2, variances within 15 %, transitions within 0.04") {
  const auto truth = known_gaussian();
  const auto data = samples(truth, 2000, 5);
  ErgodicHmm h(Emission::Gaussian, 2, 0);
  h.train(data, {.max_iterations = 200, .tolerance = 1e-9, .variance_floor = 1e-6, .seed = 8});
  const std::size_t s0 = h.means()[0] < h.means()[1] ? 0 : 1, s1 = 1 - s0;
  const std::size_t map[2] = {s0, s1};
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(std::abs(h.means()[map[i]] - truth.means()[i]) < 0.2);
    CHECK(std::abs(h.variances()[map[i]] / truth.variances()[i] - 1) < 0.15);
    CHECK(std::abs(h.termination()[map[i]] - truth.termination()[i]) < 0.04);
    CHECK(std::abs(h.initial()[map[i]] - truth.initial()[i]) < 0.04);
    for (std::size_t j = 0; j < 2; ++j)
      CHECK(std::abs(h.transitions()[map[i]][map[j]] - truth.transitions()[i][j]) < 0.04);
  }
}

TEST_CASE("the hmm JSON round-trips and bad objects are errors naming the part") {
  const auto h = known_discrete();
  auto back = ErgodicHmm::from_json(h.to_json(), "periodic.hmm");
  REQUIRE(back.ok());
  CHECK(back->initial() == h.initial());
  CHECK(back->emissions() == h.emissions());
  auto j = h.to_json();
  j["termination"] = {0.5, 0.10};
  auto bad = ErgodicHmm::from_json(j, "periodic.hmm");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("periodic.hmm") != std::string::npos);
  CHECK(bad.error().message.find("transitions[0]") != std::string::npos);
  j = h.to_json();
  j["emission"] = "poisson";
  bad = ErgodicHmm::from_json(j, "jump.hmm");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("jump.hmm.emission") != std::string::npos);
  j = h.to_json();
  j.erase("initial");
  bad = ErgodicHmm::from_json(j, "jump.hmm");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("initial") != std::string::npos);
  j = known_gaussian().to_json();
  j["variances"] = {1.0, -2.0};
  bad = ErgodicHmm::from_json(j, "sequential.hmm");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("variances[1]") != std::string::npos);
}
