#include "hmtt/hhnhmm/hmm.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace hmtt::hhnhmm {

namespace {

constexpr double kTiny = 1e-300;

void normalise(std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  if (s <= 0) {
    for (double& x : v) x = 1.0 / static_cast<double>(v.size());
    return;
  }
  for (double& x : v) x /= s;
}

bool sums_to_one(double s) { return std::abs(s - 1.0) < 1e-6; }

std::size_t symbol_of(double o) { return static_cast<std::size_t>(std::llround(o)); }

}  // namespace

std::size_t draw_index(const std::vector<double>& weights, std::mt19937_64& rng) {
  double total = 0;
  for (double w : weights) total += w;
  if (weights.empty()) return 0;
  if (total <= 0) return weights.size() - 1;
  double u = std::uniform_real_distribution<double>(0.0, total)(rng);
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (u < weights[i]) return i;
    u -= weights[i];
  }
  // Rounding left u just above the last positive weight.
  for (std::size_t i = weights.size(); i-- > 0;)
    if (weights[i] > 0) return i;
  return weights.size() - 1;
}

ErgodicHmm::ErgodicHmm(Emission emission, std::size_t states, std::size_t symbols)
    : emission_(emission), symbols_(emission == Emission::Discrete ? symbols : 0) {
  const double n = static_cast<double>(states);
  pi_.assign(states, 1.0 / n);
  e_.assign(states, 1.0 / (n + 1.0));
  a_.assign(states, std::vector<double>(states, 1.0 / (n + 1.0)));
  if (emission_ == Emission::Discrete) {
    b_.assign(states, std::vector<double>(symbols_, symbols_ ? 1.0 / static_cast<double>(symbols_) : 0.0));
  } else {
    mu_.assign(states, 0.0);
    var_.assign(states, 1.0);
  }
}

Status ErgodicHmm::validate() const {
  const std::size_t n = pi_.size();
  if (n == 0) return make_error("no states");
  double s = 0;
  for (double x : pi_) {
    if (!(x >= 0)) return make_error("initial: negative or not a number");
    s += x;
  }
  if (!sums_to_one(s)) return make_error("initial: does not sum to 1");
  if (a_.size() != n || e_.size() != n) return make_error("transitions/termination: need one row per state");
  for (std::size_t i = 0; i < n; ++i) {
    if (a_[i].size() != n) return make_error("transitions[" + std::to_string(i) + "]: need one entry per state");
    double r = e_[i];
    if (!(e_[i] >= 0)) return make_error("termination[" + std::to_string(i) + "]: negative or not a number");
    for (double x : a_[i]) {
      if (!(x >= 0)) return make_error("transitions[" + std::to_string(i) + "]: negative or not a number");
      r += x;
    }
    if (!sums_to_one(r))
      return make_error("transitions[" + std::to_string(i) + "] + termination: does not sum to 1");
  }
  if (emission_ == Emission::Discrete) {
    if (symbols_ == 0) return make_error("emissions: no symbols");
    if (b_.size() != n) return make_error("emissions: need one row per state");
    for (std::size_t i = 0; i < n; ++i) {
      if (b_[i].size() != symbols_)
        return make_error("emissions[" + std::to_string(i) + "]: need one entry per symbol");
      double r = 0;
      for (double x : b_[i]) {
        if (!(x >= 0)) return make_error("emissions[" + std::to_string(i) + "]: negative or not a number");
        r += x;
      }
      if (!sums_to_one(r)) return make_error("emissions[" + std::to_string(i) + "]: does not sum to 1");
    }
  } else {
    if (mu_.size() != n || var_.size() != n) return make_error("means/variances: need one per state");
    for (std::size_t i = 0; i < n; ++i) {
      if (!std::isfinite(mu_[i])) return make_error("means[" + std::to_string(i) + "]: not a finite number");
      if (!(var_[i] > 0) || !std::isfinite(var_[i]))
        return make_error("variances[" + std::to_string(i) + "]: must be a positive finite number");
    }
  }
  return Status::success();
}

double ErgodicHmm::emission_probability(std::size_t state, double o) const {
  if (emission_ == Emission::Discrete) {
    const std::size_t k = symbol_of(o);
    return o >= 0 && k < symbols_ ? b_[state][k] : 0.0;
  }
  const double d = o - mu_[state];
  return std::exp(-0.5 * d * d / var_[state]) / std::sqrt(2.0 * std::numbers::pi * var_[state]);
}

double ErgodicHmm::log_likelihood(const std::vector<double>& o) const {
  const std::size_t n = states();
  if (o.empty() || n == 0) return -std::numeric_limits<double>::infinity();
  std::vector<double> alpha(n), next(n);
  double ll = 0;
  for (std::size_t i = 0; i < n; ++i) alpha[i] = pi_[i] * emission_probability(i, o[0]);
  for (std::size_t t = 0;; ++t) {
    double c = 0;
    for (double x : alpha) c += x;
    if (c <= kTiny) return -std::numeric_limits<double>::infinity();
    ll += std::log(c);
    for (double& x : alpha) x /= c;
    if (t + 1 == o.size()) break;
    for (std::size_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::size_t i = 0; i < n; ++i) s += alpha[i] * a_[i][j];
      next[j] = s * emission_probability(j, o[t + 1]);
    }
    alpha.swap(next);
  }
  double end = 0;
  for (std::size_t i = 0; i < n; ++i) end += alpha[i] * e_[i];
  if (end <= kTiny) return -std::numeric_limits<double>::infinity();
  return ll + std::log(end);
}

double ErgodicHmm::log_likelihood(const std::vector<std::vector<double>>& sequences) const {
  double s = 0;
  for (const auto& o : sequences) s += log_likelihood(o);
  return s;
}

void ErgodicHmm::initialise(const std::vector<std::vector<double>>& sequences, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> jitter(0.5, 1.5);
  const std::size_t n = states();
  // Mean run length L gives a termination share of about 1/L.
  double values = 0;
  for (const auto& o : sequences) values += static_cast<double>(o.size());
  const double mean_length = sequences.empty() ? 1.0 : std::max(1.0, values / static_cast<double>(sequences.size()));
  for (std::size_t i = 0; i < n; ++i) {
    pi_[i] = jitter(rng);
    for (std::size_t j = 0; j < n; ++j) a_[i][j] = jitter(rng);
    normalise(a_[i]);
    e_[i] = 1.0 / mean_length;
    for (double& x : a_[i]) x *= 1.0 - e_[i];
  }
  normalise(pi_);
  if (emission_ == Emission::Discrete) {
    std::vector<double> freq(symbols_, 1e-3);
    for (const auto& o : sequences)
      for (double x : o)
        if (x >= 0 && symbol_of(x) < symbols_) freq[symbol_of(x)] += 1;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t k = 0; k < symbols_; ++k) b_[i][k] = freq[k] * jitter(rng);
      normalise(b_[i]);
    }
  } else {
    std::vector<double> all;
    for (const auto& o : sequences) all.insert(all.end(), o.begin(), o.end());
    std::sort(all.begin(), all.end());
    double mean = 0, var = 0;
    for (double x : all) mean += x;
    if (!all.empty()) mean /= static_cast<double>(all.size());
    for (double x : all) var += (x - mean) * (x - mean);
    if (!all.empty()) var /= static_cast<double>(all.size());
    for (std::size_t i = 0; i < n; ++i) {
      mu_[i] = all.empty() ? 0.0 : all[(2 * i + 1) * all.size() / (2 * n)];
      var_[i] = std::max(var, 1e-6);
    }
  }
}

double ErgodicHmm::reestimate(const std::vector<std::vector<double>>& sequences, double variance_floor) {
  const std::size_t n = states();
  std::vector<double> pi_num(n, 0), end_num(n, 0), occ(n, 0), mu_num(n, 0), var_num(n, 0);
  std::vector<std::vector<double>> a_num(n, std::vector<double>(n, 0));
  std::vector<std::vector<double>> b_num;
  if (emission_ == Emission::Discrete) b_num.assign(n, std::vector<double>(symbols_, 0));
  double total_ll = 0;
  std::size_t used = 0;
  std::vector<std::vector<double>> alpha, beta, emit;
  std::vector<double> scale;
  for (const auto& o : sequences) {
    const std::size_t T = o.size();
    if (T == 0) continue;
    alpha.assign(T, std::vector<double>(n));
    beta.assign(T, std::vector<double>(n));
    emit.assign(T, std::vector<double>(n));
    scale.assign(T + 1, 0);
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t i = 0; i < n; ++i) emit[t][i] = emission_probability(i, o[t]);
    bool possible = true;
    for (std::size_t t = 0; t < T && possible; ++t) {
      for (std::size_t j = 0; j < n; ++j) {
        double s = 0;
        if (t == 0) {
          s = pi_[j];
        } else {
          for (std::size_t i = 0; i < n; ++i) s += alpha[t - 1][i] * a_[i][j];
        }
        alpha[t][j] = s * emit[t][j];
      }
      double c = 0;
      for (double x : alpha[t]) c += x;
      if (c <= kTiny) possible = false;
      scale[t] = c;
      for (double& x : alpha[t]) x /= c;
    }
    double cend = 0;
    if (possible) {
      for (std::size_t i = 0; i < n; ++i) cend += alpha[T - 1][i] * e_[i];
      if (cend <= kTiny) possible = false;
    }
    if (!possible) continue;  // impossible under the model: contributes nothing
    scale[T] = cend;
    ++used;
    for (std::size_t t = 0; t <= T; ++t) total_ll += std::log(scale[t]);
    for (std::size_t i = 0; i < n; ++i) beta[T - 1][i] = e_[i] / cend;
    for (std::size_t t = T - 1; t-- > 0;)
      for (std::size_t i = 0; i < n; ++i) {
        double s = 0;
        for (std::size_t j = 0; j < n; ++j) s += a_[i][j] * emit[t + 1][j] * beta[t + 1][j];
        beta[t][i] = s / scale[t + 1];
      }
    for (std::size_t t = 0; t < T; ++t) {
      for (std::size_t i = 0; i < n; ++i) {
        const double g = alpha[t][i] * beta[t][i];
        occ[i] += g;
        if (t == 0) pi_num[i] += g;
        if (t + 1 == T) end_num[i] += g;
        if (emission_ == Emission::Discrete) {
          b_num[i][symbol_of(o[t])] += g;
        } else {
          mu_num[i] += g * o[t];
        }
        if (t + 1 < T)
          for (std::size_t j = 0; j < n; ++j)
            a_num[i][j] += alpha[t][i] * a_[i][j] * emit[t + 1][j] * beta[t + 1][j] / scale[t + 1];
      }
    }
    if (emission_ == Emission::Gaussian) {
      // Variances need the new means: keep gamma-weighted sums of o and o^2.
      for (std::size_t t = 0; t < T; ++t)
        for (std::size_t i = 0; i < n; ++i) var_num[i] += alpha[t][i] * beta[t][i] * o[t] * o[t];
    }
  }
  if (used == 0) return -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < n; ++i) {
    pi_[i] = pi_num[i] / static_cast<double>(used);
    if (occ[i] <= kTiny) continue;  // a state nobody visits keeps its parameters
    for (std::size_t j = 0; j < n; ++j) a_[i][j] = a_num[i][j] / occ[i];
    e_[i] = end_num[i] / occ[i];
    double row = e_[i];
    for (double x : a_[i]) row += x;
    for (double& x : a_[i]) x /= row;
    e_[i] /= row;
    if (emission_ == Emission::Discrete) {
      for (std::size_t k = 0; k < symbols_; ++k) b_[i][k] = b_num[i][k] / occ[i];
      normalise(b_[i]);
    } else {
      mu_[i] = mu_num[i] / occ[i];
      var_[i] = std::max(var_num[i] / occ[i] - mu_[i] * mu_[i], variance_floor);
    }
  }
  normalise(pi_);
  return total_ll;
}

BaumWelchReport ErgodicHmm::train(const std::vector<std::vector<double>>& sequences, const BaumWelchOptions& options) {
  BaumWelchReport report;
  if (states() == 0) return report;
  initialise(sequences, options.seed);
  double previous = -std::numeric_limits<double>::infinity();
  for (std::size_t it = 0; it < options.max_iterations; ++it) {
    const double ll = reestimate(sequences, options.variance_floor);
    report.log_likelihood.push_back(ll);
    ++report.iterations;
    if (std::isfinite(previous) && std::abs(ll - previous) <= options.tolerance * std::abs(previous)) break;
    previous = ll;
  }
  report.log_likelihood.push_back(log_likelihood(sequences));
  return report;
}

std::size_t ErgodicHmm::draw_initial(std::mt19937_64& rng) const { return draw_index(pi_, rng); }

std::size_t ErgodicHmm::draw_next(std::size_t state, std::mt19937_64& rng) const {
  std::vector<double> w = a_[state];
  w.push_back(e_[state]);
  return draw_index(w, rng);
}

double ErgodicHmm::draw_emission(std::size_t state, std::mt19937_64& rng) const {
  if (emission_ == Emission::Discrete) return static_cast<double>(draw_index(b_[state], rng));
  return std::normal_distribution<double>(mu_[state], std::sqrt(var_[state]))(rng);
}

std::vector<double> ErgodicHmm::sample(std::mt19937_64& rng, std::size_t max_length) const {
  std::vector<double> out;
  std::size_t s = draw_initial(rng);
  while (out.size() < max_length) {
    out.push_back(draw_emission(s, rng));
    s = draw_next(s, rng);
    if (s == states()) break;
  }
  return out;
}

Json ErgodicHmm::to_json() const {
  Json j;
  j["states"] = states();
  j["emission"] = emission_ == Emission::Discrete ? "discrete" : "gaussian";
  j["initial"] = pi_;
  j["transitions"] = a_;
  j["termination"] = e_;
  if (emission_ == Emission::Discrete) {
    j["symbols"] = symbols_;
    j["emissions"] = b_;
  } else {
    j["means"] = mu_;
    j["variances"] = var_;
  }
  return j;
}

Result<ErgodicHmm> ErgodicHmm::from_json(const Json& j, const std::string& where) {
  auto fail = [&](const std::string& what) { return make_error("profile: " + where + "." + what); };
  if (!j.is_object()) return make_error("profile: " + where + ": not an object");
  try {
    ErgodicHmm h;
    const std::string kind = j.at("emission").get<std::string>();
    if (kind == "discrete") {
      h.emission_ = Emission::Discrete;
      h.symbols_ = j.at("symbols").get<std::size_t>();
      h.b_ = j.at("emissions").get<std::vector<std::vector<double>>>();
    } else if (kind == "gaussian") {
      h.emission_ = Emission::Gaussian;
      h.mu_ = j.at("means").get<std::vector<double>>();
      h.var_ = j.at("variances").get<std::vector<double>>();
    } else {
      return fail("emission: '" + kind + "' is neither discrete nor gaussian");
    }
    const auto n = j.at("states").get<std::size_t>();
    h.pi_ = j.at("initial").get<std::vector<double>>();
    h.a_ = j.at("transitions").get<std::vector<std::vector<double>>>();
    h.e_ = j.at("termination").get<std::vector<double>>();
    if (n != h.pi_.size()) return fail("states: " + std::to_string(n) + " but initial has " + std::to_string(h.pi_.size()));
    if (auto st = h.validate(); !st.ok()) return fail(st.error().message);
    return h;
  } catch (const std::exception& e) {
    return make_error("profile: " + where + ": " + e.what());
  }
}

}  // namespace hmtt::hhnhmm
