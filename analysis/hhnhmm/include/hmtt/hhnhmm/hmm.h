// The second level of HHnHMM: an ergodic hidden Markov model with a
// termination state (paper section V.C). Every hidden state may move to every
// other; from state i the model either moves to j (probability a_ij) or ends
// the observation sequence (probability e_i), so that sum_j a_ij + e_i = 1. A
// sequence therefore has a length the model learns: it is the run of
// consecutive frames of one execution class.
//
// Emissions are discrete (a symbol 0..M-1 with probability b_i(k)) or a scalar
// Gaussian (mean mu_i, variance s_i). Training is Baum-Welch over many
// sequences with the scaled forward-backward recursions (Rabiner), so the
// likelihood never decreases from one iteration to the next (up to the
// Gaussian variance floor, which only acts when a state collapses).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "hmtt/analysis/tool.h"
#include "hmtt/result.h"

namespace hmtt::hhnhmm {

using analysis::Json;

enum class Emission : std::uint8_t { Discrete, Gaussian };

struct BaumWelchOptions {
  std::size_t max_iterations = 50;
  double tolerance = 1e-6;        // stop when the log-likelihood gains less (relative)
  double variance_floor = 1e-6;   // Gaussian variances never drop below this
  std::uint64_t seed = 1;         // initial parameters
};

struct BaumWelchReport {
  std::vector<double> log_likelihood;  // per iteration, before its re-estimation; last = final model
  std::size_t iterations = 0;
};

class ErgodicHmm {
 public:
  ErgodicHmm() = default;
  // A model of `states` hidden states; `symbols` is the alphabet size for
  // discrete emissions (ignored for Gaussian). Parameters are uniform.
  ErgodicHmm(Emission emission, std::size_t states, std::size_t symbols);

  Emission emission() const { return emission_; }
  std::size_t states() const { return pi_.size(); }
  std::size_t symbols() const { return symbols_; }

  // Parameters (rows of transitions() plus termination() sum to one).
  std::vector<double>& initial() { return pi_; }
  std::vector<std::vector<double>>& transitions() { return a_; }
  std::vector<double>& termination() { return e_; }
  std::vector<std::vector<double>>& emissions() { return b_; }  // discrete: states x symbols
  std::vector<double>& means() { return mu_; }                  // Gaussian
  std::vector<double>& variances() { return var_; }             // Gaussian
  const std::vector<double>& initial() const { return pi_; }
  const std::vector<std::vector<double>>& transitions() const { return a_; }
  const std::vector<double>& termination() const { return e_; }
  const std::vector<std::vector<double>>& emissions() const { return b_; }
  const std::vector<double>& means() const { return mu_; }
  const std::vector<double>& variances() const { return var_; }

  // Checks the shapes and that every distribution sums to one; errors name the part.
  Status validate() const;

  // log P(O | model) of one sequence (natural log); -inf when impossible.
  double log_likelihood(const std::vector<double>& sequence) const;
  // Sum over sequences.
  double log_likelihood(const std::vector<std::vector<double>>& sequences) const;

  // Baum-Welch from a seeded random start (discrete: emissions near the
  // symbols' overall frequencies; Gaussian: means at the data's quantiles).
  BaumWelchReport train(const std::vector<std::vector<double>>& sequences, const BaumWelchOptions& options);
  // One re-estimation step from the current parameters; returns the
  // log-likelihood of the sequences under the parameters before the step.
  double reestimate(const std::vector<std::vector<double>>& sequences, double variance_floor);

  // Draws one sequence (at least one value; at most `max_length`).
  std::vector<double> sample(std::mt19937_64& rng, std::size_t max_length = 1u << 20) const;

  // The model file's "hmm" object (docs/hhnhmm.md) and back; errors name `where`.
  Json to_json() const;
  static Result<ErgodicHmm> from_json(const Json& j, const std::string& where);

  // Pieces of sampling, for the generator that walks the model lazily.
  std::size_t draw_initial(std::mt19937_64& rng) const;
  // The next state, or states() for the termination state.
  std::size_t draw_next(std::size_t state, std::mt19937_64& rng) const;
  double draw_emission(std::size_t state, std::mt19937_64& rng) const;

 private:
  double emission_probability(std::size_t state, double o) const;
  void initialise(const std::vector<std::vector<double>>& sequences, std::uint64_t seed);

  Emission emission_ = Emission::Discrete;
  std::size_t symbols_ = 0;
  std::vector<double> pi_, e_, mu_, var_;
  std::vector<std::vector<double>> a_, b_;
};

// Draws an index from unnormalised non-negative weights (the last one when all are 0).
std::size_t draw_index(const std::vector<double>& weights, std::mt19937_64& rng);

}  // namespace hmtt::hhnhmm
