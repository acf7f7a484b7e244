#include "hmtt/analysis/profiler.h"

#include <algorithm>
#include <charconv>
#include <random>
#include <unordered_map>

namespace hmtt::analysis {

Result<ProfileParams> ProfileParams::parse(const std::vector<std::string>& assignments,
                                           const std::vector<ProfileParam>& known) {
  ProfileParams p;
  for (const auto& k : known) p.values_[k.name] = k.default_value;
  for (const auto& a : assignments) {
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      return make_error("--param '" + a + "': expected key=value");
    const std::string key = a.substr(0, eq);
    auto it = p.values_.find(key);
    if (it == p.values_.end()) {
      std::string names;
      for (const auto& k : known) names += (names.empty() ? "" : ", ") + k.name;
      return make_error("--param '" + key + "': unknown for this method (" +
                        (names.empty() ? std::string("it takes none") : names) + ")");
    }
    it->second = a.substr(eq + 1);
  }
  return p;
}

Result<std::string> ProfileParams::text(std::string_view key) const {
  auto it = values_.find(key);
  if (it == values_.end()) return make_error("parameter '" + std::string(key) + "' is not declared");
  return it->second;
}

Result<std::uint64_t> ProfileParams::u64(std::string_view key) const {
  auto t = text(key);
  if (!t) return t.error();
  std::string s = *t;
  std::uint64_t mult = 1;
  if (!s.empty()) {
    const char suffix = s.back();
    if (suffix == 'K' || suffix == 'k') mult = 1ull << 10;
    if (suffix == 'M' || suffix == 'm') mult = 1ull << 20;
    if (suffix == 'G' || suffix == 'g') mult = 1ull << 30;
    if (mult != 1) s.pop_back();
  }
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v > UINT64_MAX / mult)
    return make_error("parameter '" + std::string(key) + "': '" + *t + "' is not an unsigned integer (K/M/G allowed)");
  return v * mult;
}

Result<double> ProfileParams::real(std::string_view key) const {
  auto t = text(key);
  if (!t) return t.error();
  try {
    std::size_t used = 0;
    double v = std::stod(*t, &used);
    if (used == t->size()) return v;
  } catch (...) {
  }
  return make_error("parameter '" + std::string(key) + "': '" + *t + "' is not a number");
}

Result<bool> ProfileParams::flag(std::string_view key) const {
  auto t = text(key);
  if (!t) return t.error();
  if (*t == "1" || *t == "true" || *t == "yes" || *t == "on") return true;
  if (*t == "0" || *t == "false" || *t == "no" || *t == "off") return false;
  return make_error("parameter '" + std::string(key) + "': '" + *t + "' is not a boolean (true/false)");
}

namespace {
// "format": "hmtt-profile" at the top (a "format" of another type is no error here, just not ours:
// Json::value would throw on it, which a fuzzer found with {"format":1,...}).
bool has_profile_format(const Json& j) {
  if (!j.is_object()) return false;
  const auto f = j.find("format");
  return f != j.end() && f->is_string() && f->get<std::string>() == "hmtt-profile";
}
}  // namespace

std::string json_profile_method(std::string_view data) {
  const auto j = Json::parse(data.begin(), data.end(), nullptr, false);
  if (j.is_discarded() || !has_profile_format(j)) return "";
  const auto m = j.find("method");
  return m != j.end() && m->is_string() ? m->get<std::string>() : "";
}

Result<Json> parse_json_profile(std::string_view data, std::string_view method) {
  Json j = Json::parse(data.begin(), data.end(), nullptr, false);
  if (j.is_discarded()) return make_error("profile: not valid JSON");
  if (!has_profile_format(j)) return make_error("profile: no top-level \"format\": \"hmtt-profile\"");
  const auto m = j.find("method");
  if (m == j.end() || !m->is_string()) return make_error("profile: no top-level \"method\"");
  if (m->get<std::string>() != method)
    return make_error("profile: method is '" + m->get<std::string>() + "', not '" + std::string(method) + "'");
  // A profile of another version would be read as if it were this one: refuse it. Only the
  // integer 1 is version 1 (not 1.0, not "1").
  const auto v = j.find("version");
  if (v == j.end()) return make_error("profile: version: missing");
  if (!v->is_number_unsigned() || v->get<std::uint64_t>() != kJsonProfileVersion) {
    std::string shown = v->dump();
    if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
    return make_error("profile: version: " + shown + " is not a version this hmtt reads (" +
                      std::to_string(kJsonProfileVersion) + ")");
  }
  return j;
}

Json json_profile_header(std::string_view method, const ProfileParams& params) {
  Json j;
  j["format"] = "hmtt-profile";
  j["version"] = kJsonProfileVersion;
  j["method"] = std::string(method);
  Json p = Json::object();
  for (const auto& [k, v] : params.values()) p[k] = v;
  j["params"] = p;
  return j;
}

bool Profiler::recognizes(std::string_view data) const { return json_profile_method(data) == name(); }

namespace {

// Synthetic IRM stream: blocks drawn from the cumulative counts.
class IrmSource final : public ReferenceSource {
 public:
  IrmSource(std::vector<std::uint64_t> blocks, std::vector<std::uint64_t> cumulative, std::uint64_t block_bytes,
            double write_fraction, std::uint64_t length, std::uint64_t seed)
      : blocks_(std::move(blocks)), cum_(std::move(cumulative)), block_bytes_(block_bytes),
        write_fraction_(write_fraction), length_(length), rng_(seed) {}

  Result<std::size_t> read(std::span<Reference> out) override {
    std::size_t n = 0;
    if (cum_.empty()) return n;
    std::uniform_int_distribution<std::uint64_t> pick(0, cum_.back() - 1);
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    while (n < out.size() && done_ < length_) {
      const std::uint64_t r = pick(rng_);
      const auto i = static_cast<std::size_t>(std::upper_bound(cum_.begin(), cum_.end(), r) - cum_.begin());
      Reference ref;
      ref.time = done_;
      ref.address = blocks_[i] * block_bytes_;
      ref.size = 8;
      ref.kind = coin(rng_) < write_fraction_ ? Kind::Write : Kind::Read;
      out[n++] = ref;
      ++done_;
    }
    return n;
  }

 private:
  std::vector<std::uint64_t> blocks_, cum_;
  std::uint64_t block_bytes_;
  double write_fraction_;
  std::uint64_t length_;
  std::mt19937_64 rng_;
  std::uint64_t done_ = 0;
};

class IrmProfiler final : public Profiler {
 public:
  std::string_view name() const override { return "irm"; }
  std::string_view summary() const override {
    return "baseline: independent reference model (block popularity only, no order)";
  }
  std::vector<ProfileParam> params() const override {
    return {{"block", "64", "block size in bytes (a power of two)"},
            {"max_blocks", "65536", "keep the most popular blocks only; the rest are dropped and renormalised"}};
  }

  Result<ProfileOutput> profile(ReferenceSource& trace, const ProfileParams& params, const RunOptions& run) override {
    auto block = params.u64("block");
    if (!block) return block.error();
    if (*block == 0 || (*block & (*block - 1))) return make_error("parameter 'block': must be a power of two");
    auto max_blocks = params.u64("max_blocks");
    if (!max_blocks) return max_blocks.error();
    if (*max_blocks == 0) return make_error("parameter 'max_blocks': must be at least 1");
    std::unordered_map<std::uint64_t, std::uint64_t> counts;
    std::uint64_t refs = 0, writes = 0;
    std::vector<Reference> buf(run.batch);
    while (run.limit == 0 || refs < run.limit) {
      auto n = trace.read(buf);
      if (!n) return n.error();
      if (*n == 0) break;
      for (std::size_t i = 0; i < *n && (run.limit == 0 || refs < run.limit); ++i) {
        ++counts[buf[i].address / *block];
        ++refs;
        writes += is_write(buf[i].kind);
      }
    }
    std::vector<std::pair<std::uint64_t, std::uint64_t>> sorted(counts.begin(), counts.end());
    std::sort(sorted.begin(), sorted.end(),
              [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
    const std::size_t kept = std::min<std::size_t>(sorted.size(), *max_blocks);
    sorted.resize(kept);
    std::sort(sorted.begin(), sorted.end());
    Json j = json_profile_header(name(), params);
    j["references"] = refs;
    j["block_bytes"] = *block;
    j["write_fraction"] = refs ? static_cast<double>(writes) / static_cast<double>(refs) : 0.0;
    j["distinct_blocks"] = counts.size();
    Json arr = Json::array();
    for (const auto& [b, c] : sorted) arr.push_back(Json::array({b, c}));
    j["blocks"] = std::move(arr);
    ProfileOutput out;
    out.data = j.dump(1);
    out.summary["references"] = refs;
    out.summary["distinct_blocks"] = counts.size();
    out.summary["kept_blocks"] = kept;
    return out;
  }

  Result<std::unique_ptr<ReferenceSource>> synthesize(std::string_view data, const SynthOptions& options) override {
    auto j = parse_json_profile(data, name());
    if (!j) return j.error();
    try {
      const std::uint64_t block = j->at("block_bytes").get<std::uint64_t>();
      if (block == 0) return make_error("profile: block_bytes is 0");
      const double wf = j->at("write_fraction").get<double>();
      const std::uint64_t refs = j->at("references").get<std::uint64_t>();
      std::vector<std::uint64_t> blocks, cum;
      std::uint64_t total = 0;
      for (const auto& e : j->at("blocks")) {
        const auto b = e.at(0).get<std::uint64_t>();
        const auto c = e.at(1).get<std::uint64_t>();
        if (c == 0) continue;
        if (total > UINT64_MAX - c) return make_error("profile: block counts overflow");
        total += c;
        blocks.push_back(b);
        cum.push_back(total);
      }
      const std::uint64_t length = options.length ? options.length : refs;
      return std::unique_ptr<ReferenceSource>(
          std::make_unique<IrmSource>(std::move(blocks), std::move(cum), block, wf, length, options.seed));
    } catch (const std::exception& e) {
      return make_error(std::string("profile: ") + e.what());
    }
  }
};

}  // namespace

std::unique_ptr<Profiler> make_irm_profiler() { return std::make_unique<IrmProfiler>(); }

}  // namespace hmtt::analysis
