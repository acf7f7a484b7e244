#include "hmtt/hhnhmm/model.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace hmtt::hhnhmm {

std::uint64_t FrameCensus::total() const {
  std::uint64_t t = 0;
  for (auto f : frames) t += f;
  return t;
}

double FrameCensus::classification_rate() const {
  const auto t = total();
  return t ? 1.0 - static_cast<double>(frames[static_cast<std::size_t>(FrameClass::Other)]) / static_cast<double>(t)
           : 0.0;
}

double HhnhmmModel::classification_rate() const {
  FrameCensus c;
  c.frames = frames;
  return c.classification_rate();
}

FrameCensus classify_frames(std::span<const std::uint64_t> addresses, const ClassifierKnobs& knobs) {
  FrameCensus c;
  FrameClassifier fc(knobs);
  const std::size_t n = knobs.frame_length;
  if (n < 4) return c;
  for (std::size_t at = 0; at + n <= addresses.size(); at += n)
    ++c.frames[static_cast<std::size_t>(fc.classify(addresses.subspan(at, n)).cls)];
  return c;
}

std::vector<FrameLengthTrial> frame_length_trials(std::span<const std::uint64_t> addresses, const HhnhmmKnobs& knobs) {
  std::vector<FrameLengthTrial> trials;
  const auto prefix = addresses.first(std::min(addresses.size(), knobs.analysis_references));
  const std::size_t step = std::max<std::size_t>(knobs.frame_step, 1);
  for (std::size_t n = std::max<std::size_t>(knobs.frame_min, 4); n <= knobs.frame_max; n += step) {
    ClassifierKnobs k = knobs.classifier;
    k.frame_length = n;
    trials.push_back({n, classify_frames(prefix, k).classification_rate()});
  }
  std::stable_sort(trials.begin(), trials.end(), [](const auto& a, const auto& b) {
    return a.classification_rate > b.classification_rate + 1e-12;
  });
  return trials;
}

namespace {

constexpr std::size_t idx(FrameClass c) { return static_cast<std::size_t>(c); }

// A table of the most frequent keys (at most `limit`); every key maps to a
// kept one: itself, or the kept key nearest by `distance`.
template <typename Key, typename Distance>
std::pair<std::vector<Key>, std::vector<std::size_t>> symbol_table(const std::vector<Key>& keys, std::size_t limit,
                                                                   Distance distance) {
  std::map<Key, std::uint64_t> count;
  for (const auto& k : keys) ++count[k];
  std::vector<std::pair<Key, std::uint64_t>> sorted(count.begin(), count.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (sorted.size() > limit) sorted.resize(limit);
  std::vector<Key> table;
  std::map<Key, std::size_t> index;
  for (const auto& [k, c] : sorted) {
    index[k] = table.size();
    table.push_back(k);
  }
  std::vector<std::size_t> symbols;
  symbols.reserve(keys.size());
  std::map<Key, std::size_t> nearest_cache;
  for (const auto& k : keys) {
    auto it = index.find(k);
    if (it != index.end()) {
      symbols.push_back(it->second);
      continue;
    }
    auto c = nearest_cache.find(k);
    if (c == nearest_cache.end()) {
      std::size_t best = 0;
      double bd = distance(k, table[0]);
      for (std::size_t i = 1; i < table.size(); ++i) {
        const double d = distance(k, table[i]);
        if (d < bd) {
          bd = d;
          best = i;
        }
      }
      c = nearest_cache.emplace(k, best).first;
    }
    symbols.push_back(c->second);
  }
  return {table, symbols};
}

struct Frame {
  FrameClass cls;
  double value;  // the HMM observation (slope or symbol index)
};

}  // namespace

HhnhmmModel learn(std::span<const std::uint64_t> addresses, const HhnhmmKnobs& knobs) {
  HhnhmmModel m;
  m.references = addresses.size();
  if (!addresses.empty()) {
    m.first_address = addresses.front();
    m.address_min = *std::min_element(addresses.begin(), addresses.end());
    m.address_max = *std::max_element(addresses.begin(), addresses.end());
  }
  if (knobs.frame_length) {
    m.frame_length = knobs.frame_length;
  } else {
    m.trials = frame_length_trials(addresses, knobs);
    m.frame_length = m.trials.empty() ? 50 : m.trials.front().frame_length;
  }
  const std::size_t n = m.frame_length;
  m.jump_absolute = knobs.jump_absolute;
  ClassifierKnobs ck = knobs.classifier;
  ck.frame_length = n;
  FrameClassifier classifier(ck);

  // Median positive difference: the step around generated jumps.
  {
    std::vector<std::int64_t> pos;
    for (std::size_t i = 1; i < addresses.size() && pos.size() < (1u << 20); ++i)
      if (addresses[i] > addresses[i - 1] && addresses[i] - addresses[i - 1] < (1u << 16))
        pos.push_back(static_cast<std::int64_t>(addresses[i] - addresses[i - 1]));
    if (!pos.empty()) {
      std::nth_element(pos.begin(), pos.begin() + static_cast<std::ptrdiff_t>(pos.size() / 2), pos.end());
      m.jump_step = pos[pos.size() / 2];
    }
  }

  // Algorithm 1 over every whole frame; values collected per class.
  std::vector<FrameClass> classes;
  std::vector<double> slopes;
  std::vector<PeriodicSymbol> periods;
  std::vector<RandomFrameStat> stats;
  std::vector<std::int64_t> jumps;
  std::vector<std::vector<std::int64_t>> others;
  std::uint64_t start = m.first_address;
  for (std::size_t at = 0; n >= 4 && at + n <= addresses.size(); at += n) {
    const auto frame = addresses.subspan(at, n);
    const auto c = classifier.classify(frame);
    classes.push_back(c.cls);
    ++m.frames[idx(c.cls)];
    switch (c.cls) {
      case FrameClass::Sequential: slopes.push_back(c.slope); break;
      case FrameClass::Periodic: periods.push_back({c.period, c.step}); break;
      case FrameClass::Random: stats.push_back(random_frame_stat(frame, start)); break;
      case FrameClass::Jump:
        jumps.push_back(knobs.jump_absolute ? static_cast<std::int64_t>(frame.back()) : c.jump);
        break;
      case FrameClass::Other: {
        std::vector<std::int64_t> off(n);
        for (std::size_t i = 0; i < n; ++i) off[i] = static_cast<std::int64_t>(frame[i] - start);
        others.push_back(std::move(off));
        break;
      }
    }
    start = frame.back();
  }

  // Observations per frame (symbol tables built per class).
  std::vector<double> value(classes.size(), 0);
  {
    std::array<std::size_t, kFrameClassCount> next{};
    std::vector<std::size_t> psym, jsym, osym;
    std::vector<std::size_t> rsym;
    if (!periods.empty()) {
      std::vector<std::pair<std::uint64_t, std::int64_t>> keys;
      for (const auto& p : periods) keys.emplace_back(p.period, p.step);
      auto [table, sym] = symbol_table(keys, knobs.max_symbols, [](const auto& a, const auto& b) {
        return std::abs(static_cast<double>(a.first) - static_cast<double>(b.first)) * 1e6 +
               std::abs(static_cast<double>(a.second - b.second));
      });
      for (const auto& [p, s] : table) m.periodic_symbols.push_back({p, s});
      psym = std::move(sym);
    }
    if (!stats.empty()) {
      const Codebook cb = Codebook::train(stats, knobs.codebook, knobs.seed);
      m.codebook = cb.codewords();
      for (const auto& s : stats) rsym.push_back(cb.quantise(s));
    }
    if (!jumps.empty()) {
      auto [table, sym] = symbol_table(jumps, knobs.max_symbols, [](std::int64_t a, std::int64_t b) {
        return std::abs(static_cast<double>(a) - static_cast<double>(b));
      });
      m.jump_symbols = std::move(table);
      jsym = std::move(sym);
    }
    if (!others.empty()) {
      auto [table, sym] = symbol_table(others, knobs.max_symbols, [](const auto& a, const auto& b) {
        // Nearest by net displacement, then by the whole shape.
        double shape = 0;
        for (std::size_t i = 0; i < a.size(); ++i) shape += std::abs(static_cast<double>(a[i] - b[i]));
        return std::abs(static_cast<double>(a.back() - b.back())) * 1e3 + shape;
      });
      m.other_patterns = std::move(table);
      osym = std::move(sym);
    }
    for (std::size_t f = 0; f < classes.size(); ++f) {
      const auto c = idx(classes[f]);
      const std::size_t k = next[c]++;
      switch (classes[f]) {
        case FrameClass::Sequential: value[f] = slopes[k]; break;
        case FrameClass::Periodic: value[f] = static_cast<double>(psym[k]); break;
        case FrameClass::Random: value[f] = static_cast<double>(rsym[k]); break;
        case FrameClass::Jump: value[f] = static_cast<double>(jsym[k]); break;
        case FrameClass::Other: value[f] = static_cast<double>(osym[k]); break;
      }
    }
  }
  if (!slopes.empty()) {
    m.slope_min = *std::min_element(slopes.begin(), slopes.end());
    m.slope_max = *std::max_element(slopes.begin(), slopes.end());
  }

  // Runs: one observation sequence each; the chain counts run-to-run moves.
  std::array<std::vector<std::vector<double>>, kFrameClassCount> runs;
  std::array<std::array<double, kFrameClassCount>, kFrameClassCount> moves{};
  std::array<double, kFrameClassCount> run_count{};
  for (std::size_t f = 0; f < classes.size();) {
    std::size_t g = f;
    std::vector<double> seq;
    while (g < classes.size() && classes[g] == classes[f]) seq.push_back(value[g++]);
    runs[idx(classes[f])].push_back(std::move(seq));
    run_count[idx(classes[f])] += 1;
    if (g < classes.size()) moves[idx(classes[f])][idx(classes[g])] += 1;
    f = g;
  }
  double all_runs = 0;
  for (double r : run_count) all_runs += r;
  for (std::size_t c = 0; c < kFrameClassCount; ++c) {
    m.chain_initial[c] = all_runs > 0 ? run_count[c] / all_runs : 0.0;
    double row = 0;
    for (double x : moves[c]) row += x;
    for (std::size_t d = 0; d < kFrameClassCount; ++d) m.chain_transitions[c][d] = row > 0 ? moves[c][d] / row : 0.0;
  }
  const std::array<std::size_t, kFrameClassCount> alphabet = {
      0, m.periodic_symbols.size(), m.codebook.size(), m.jump_symbols.size(), m.other_patterns.size()};
  BaumWelchOptions bw;
  bw.max_iterations = knobs.iterations;
  bw.seed = knobs.seed;
  for (std::size_t c = 0; c < kFrameClassCount; ++c) {
    if (runs[c].empty()) continue;
    const Emission e = c == idx(FrameClass::Sequential) ? Emission::Gaussian : Emission::Discrete;
    ErgodicHmm h(e, std::max<std::size_t>(knobs.states, 1), alphabet[c]);
    if (e == Emission::Gaussian) bw.variance_floor = 1e-4;
    h.train(runs[c], bw);
    m.hmm[c] = std::move(h);
  }
  return m;
}

// ---- the model file -------------------------------------------------------

void model_to_json(const HhnhmmModel& m, Json& j) {
  j["references"] = m.references;
  j["frame_length"] = m.frame_length;
  j["classification_rate"] = m.classification_rate();
  Json trials = Json::array();
  for (const auto& t : m.trials)
    trials.push_back({{"frame_length", t.frame_length}, {"classification_rate", t.classification_rate}});
  j["frame_length_trials"] = trials;
  Json frames = Json::object();
  for (std::size_t c = 0; c < kFrameClassCount; ++c)
    frames[std::string(class_name(static_cast<FrameClass>(c)))] = m.frames[c];
  j["frames"] = frames;
  j["first_address"] = m.first_address;
  j["address_min"] = m.address_min;
  j["address_max"] = m.address_max;
  j["jump_step"] = m.jump_step;
  Json chain;
  chain["classes"] = {"S", "P", "R", "J", "O"};
  chain["initial"] = m.chain_initial;
  chain["transitions"] = m.chain_transitions;
  j["chain"] = chain;
  auto hmm_json = [&](FrameClass c) { return m.hmm[idx(c)] ? m.hmm[idx(c)]->to_json() : Json(nullptr); };
  j["sequential"] = {{"slope_min", m.slope_min}, {"slope_max", m.slope_max}, {"hmm", hmm_json(FrameClass::Sequential)}};
  Json ps = Json::array();
  for (const auto& p : m.periodic_symbols) ps.push_back(Json::array({p.period, p.step}));
  j["periodic"] = {{"symbols", ps}, {"hmm", hmm_json(FrameClass::Periodic)}};
  Json cb = Json::array();
  for (const auto& w : m.codebook) cb.push_back({{"histogram", w.histogram}, {"min", w.min}, {"max", w.max}});
  j["random"] = {{"codebook", cb}, {"hmm", hmm_json(FrameClass::Random)}};
  j["jump"] = {{"mode", m.jump_absolute ? "absolute" : "relative"},
               {"symbols", m.jump_symbols},
               {"hmm", hmm_json(FrameClass::Jump)}};
  j["other"] = {{"patterns", m.other_patterns}, {"hmm", hmm_json(FrameClass::Other)}};
}

namespace {

template <typename T>
Result<T> field(const Json& j, const std::string& name, const std::string& where) {
  const auto it = j.find(name);
  if (it == j.end()) return make_error("profile: " + where + name + ": missing");
  try {
    return it->get<T>();
  } catch (const std::exception& e) {
    return make_error("profile: " + where + name + ": " + e.what());
  }
}

#define HHNHMM_FIELD(var, type, json, name, where) \
  auto var##_r = field<type>(json, name, where);   \
  if (!var##_r) return var##_r.error();            \
  auto var = std::move(*var##_r)

Result<std::optional<ErgodicHmm>> class_hmm(const Json& section, const std::string& name, std::size_t alphabet,
                                            Emission expect) {
  const auto it = section.find("hmm");
  if (it == section.end()) return make_error("profile: " + name + ".hmm: missing");
  if (it->is_null()) return std::optional<ErgodicHmm>{};
  auto h = ErgodicHmm::from_json(*it, name + ".hmm");
  if (!h) return h.error();
  if (h->emission() != expect)
    return make_error("profile: " + name + ".hmm.emission: must be " +
                      (expect == Emission::Discrete ? "discrete" : "gaussian"));
  if (expect == Emission::Discrete && h->symbols() != alphabet)
    return make_error("profile: " + name + ".hmm.symbols: " + std::to_string(h->symbols()) + " but the table has " +
                      std::to_string(alphabet));
  return std::optional<ErgodicHmm>(std::move(*h));
}

Result<const Json*> section(const Json& j, const std::string& name) {
  const auto it = j.find(name);
  if (it == j.end() || !it->is_object()) return make_error("profile: " + name + ": missing or not an object");
  return &*it;
}

}  // namespace

namespace {
Result<HhnhmmModel> read_model(const Json& j);
}  // namespace

Result<HhnhmmModel> model_from_json(const Json& j) {
  // Every field is checked by name below; this catch turns anything a check
  // missed into an error too, never an exception out of `hmtt synth`.
  try {
    return read_model(j);
  } catch (const std::exception& e) {
    return make_error(std::string("profile: ") + e.what());
  }
}

namespace {

Result<HhnhmmModel> read_model(const Json& j) {
  if (!j.is_object()) return make_error("profile: not an object");
  HhnhmmModel m;
  HHNHMM_FIELD(refs, std::uint64_t, j, "references", "");
  HHNHMM_FIELD(n, std::size_t, j, "frame_length", "");
  if (n < 4 || n > 4096) return make_error("profile: frame_length: must be 4..4096");
  HHNHMM_FIELD(first, std::uint64_t, j, "first_address", "");
  HHNHMM_FIELD(lo, std::uint64_t, j, "address_min", "");
  HHNHMM_FIELD(hi, std::uint64_t, j, "address_max", "");
  if (lo > hi) return make_error("profile: address_min: greater than address_max");
  HHNHMM_FIELD(step, std::int64_t, j, "jump_step", "");
  m.references = refs;
  m.frame_length = n;
  m.first_address = first;
  m.address_min = lo;
  m.address_max = hi;
  m.jump_step = step;
  if (auto fr = j.find("frames"); fr != j.end() && fr->is_object())
    for (std::size_t c = 0; c < kFrameClassCount; ++c) {
      const std::string name(class_name(static_cast<FrameClass>(c)));
      const auto it = fr->find(name);
      if (it == fr->end()) continue;
      if (!it->is_number_unsigned()) return make_error("profile: frames." + name + ": not a count");
      m.frames[c] = it->get<std::uint64_t>();
    }

  auto chain = section(j, "chain");
  if (!chain) return chain.error();
  HHNHMM_FIELD(init, std::vector<double>, **chain, "initial", "chain.");
  HHNHMM_FIELD(trans, std::vector<std::vector<double>>, **chain, "transitions", "chain.");
  if (init.size() != kFrameClassCount) return make_error("profile: chain.initial: need 5 entries (S P R J O)");
  if (trans.size() != kFrameClassCount) return make_error("profile: chain.transitions: need 5 rows (S P R J O)");
  double isum = 0;
  for (std::size_t c = 0; c < kFrameClassCount; ++c) {
    if (!(init[c] >= 0)) return make_error("profile: chain.initial[" + std::to_string(c) + "]: negative");
    isum += init[c];
    m.chain_initial[c] = init[c];
    if (trans[c].size() != kFrameClassCount)
      return make_error("profile: chain.transitions[" + std::to_string(c) + "]: need 5 entries");
    double row = 0;
    for (std::size_t d = 0; d < kFrameClassCount; ++d) {
      if (!(trans[c][d] >= 0))
        return make_error("profile: chain.transitions[" + std::to_string(c) + "][" + std::to_string(d) + "]: negative");
      row += trans[c][d];
      m.chain_transitions[c][d] = trans[c][d];
    }
    if (row != 0 && std::abs(row - 1) > 1e-6)
      return make_error("profile: chain.transitions[" + std::to_string(c) + "]: sums to neither 0 nor 1");
  }
  if (std::abs(isum - 1) > 1e-6) return make_error("profile: chain.initial: does not sum to 1");

  auto seq = section(j, "sequential");
  if (!seq) return seq.error();
  HHNHMM_FIELD(smin, double, **seq, "slope_min", "sequential.");
  HHNHMM_FIELD(smax, double, **seq, "slope_max", "sequential.");
  if (smin > smax) return make_error("profile: sequential.slope_min: greater than slope_max");
  m.slope_min = smin;
  m.slope_max = smax;
  auto per = section(j, "periodic");
  if (!per) return per.error();
  HHNHMM_FIELD(psyms, std::vector<std::vector<std::int64_t>>, **per, "symbols", "periodic.");
  for (std::size_t i = 0; i < psyms.size(); ++i) {
    if (psyms[i].size() != 2 || psyms[i][0] < 1 || psyms[i][0] > static_cast<std::int64_t>(n))
      return make_error("profile: periodic.symbols[" + std::to_string(i) + "]: need [period 1..frame_length, step]");
    m.periodic_symbols.push_back({static_cast<std::uint64_t>(psyms[i][0]), psyms[i][1]});
  }
  auto rnd = section(j, "random");
  if (!rnd) return rnd.error();
  {
    const auto it = (*rnd)->find("codebook");
    if (it == (*rnd)->end() || !it->is_array()) return make_error("profile: random.codebook: missing or not an array");
    for (std::size_t i = 0; i < it->size(); ++i) {
      const std::string where = "random.codebook[" + std::to_string(i) + "].";
      const Json& w = (*it)[i];
      if (!w.is_object()) return make_error("profile: " + where + ": not an object");
      HHNHMM_FIELD(h, std::vector<double>, w, "histogram", where);
      HHNHMM_FIELD(wmin, double, w, "min", where);
      HHNHMM_FIELD(wmax, double, w, "max", where);
      if (h.size() != kHistogramBins) return make_error("profile: " + where + "histogram: need 16 bins");
      RandomFrameStat s;
      double hs = 0;
      for (std::size_t k = 0; k < kHistogramBins; ++k) {
        if (!(h[k] >= 0)) return make_error("profile: " + where + "histogram: negative bin");
        s.histogram[k] = h[k];
        hs += h[k];
      }
      if (std::abs(hs - 1) > 1e-6) return make_error("profile: " + where + "histogram: does not sum to 1");
      if (!(wmin <= wmax) || !std::isfinite(wmin) || !std::isfinite(wmax))
        return make_error("profile: " + where + "min: must be finite and at most max");
      s.min = wmin;
      s.max = wmax;
      m.codebook.push_back(s);
    }
  }
  auto jmp = section(j, "jump");
  if (!jmp) return jmp.error();
  HHNHMM_FIELD(jsyms, std::vector<std::int64_t>, **jmp, "symbols", "jump.");
  m.jump_symbols = std::move(jsyms);
  HHNHMM_FIELD(jmode, std::string, **jmp, "mode", "jump.");
  if (jmode != "relative" && jmode != "absolute")
    return make_error("profile: jump.mode: '" + jmode + "' is neither relative nor absolute");
  m.jump_absolute = jmode == "absolute";
  auto oth = section(j, "other");
  if (!oth) return oth.error();
  HHNHMM_FIELD(pats, std::vector<std::vector<std::int64_t>>, **oth, "patterns", "other.");
  for (std::size_t i = 0; i < pats.size(); ++i)
    if (pats[i].size() != n)
      return make_error("profile: other.patterns[" + std::to_string(i) + "]: need frame_length offsets");
  m.other_patterns = std::move(pats);

  const std::array<const Json*, kFrameClassCount> sections = {*seq, *per, *rnd, *jmp, *oth};
  const std::array<std::size_t, kFrameClassCount> alphabet = {
      0, m.periodic_symbols.size(), m.codebook.size(), m.jump_symbols.size(), m.other_patterns.size()};
  for (std::size_t c = 0; c < kFrameClassCount; ++c) {
    const std::string name(class_name(static_cast<FrameClass>(c)));
    auto h = class_hmm(*sections[c], name, alphabet[c], c == 0 ? Emission::Gaussian : Emission::Discrete);
    if (!h) return h.error();
    m.hmm[c] = std::move(*h);
  }
  // Every class the chain can enter needs its HMM.
  for (std::size_t c = 0; c < kFrameClassCount; ++c) {
    bool reachable = m.chain_initial[c] > 0;
    for (std::size_t d = 0; d < kFrameClassCount; ++d) reachable = reachable || m.chain_transitions[d][c] > 0;
    if (reachable && !m.hmm[c])
      return make_error("profile: " + std::string(class_name(static_cast<FrameClass>(c))) +
                        ".hmm: null, but the chain enters this class");
  }
  return m;
}

}  // namespace

}  // namespace hmtt::hhnhmm
