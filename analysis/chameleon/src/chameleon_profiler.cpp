#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "hmtt/chameleon/chameleon.h"
#include "hmtt/progress.h"

namespace hmtt::chameleon {

namespace {

constexpr std::string_view kMethod = "chameleon";
constexpr std::uint64_t kMaxFillCandidates = 64;

Result<std::uint64_t> unsigned_field(const Json& j, const char* field, const std::string& where) {
  const auto it = j.find(field);
  if (it == j.end()) return make_error(where + field + ": missing");
  if (!it->is_number_unsigned() && !(it->is_number_integer() && it->get<std::int64_t>() >= 0))
    return make_error(where + field + ": not an unsigned integer");
  return it->get<std::uint64_t>();
}

Result<double> number_field(const Json& j, const char* field, const std::string& where) {
  const auto it = j.find(field);
  if (it == j.end()) return make_error(where + field + ": missing");
  if (!it->is_number()) return make_error(where + field + ": not a number");
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < 0) return make_error(where + field + ": must be a finite number >= 0");
  return v;
}

}  // namespace

Result<SignatureModel> ChameleonProfile::model() const {
  std::vector<WeightedSignature> parts;
  if (regions.empty()) {
    parts.push_back({1.0, &signature});
  } else {
    for (const auto& r : regions) parts.push_back({r.weight, &r.signature});
  }
  return combine(parts);
}

Result<ChameleonProfile> parse_profile(std::string_view data) {
  auto parsed = analysis::parse_json_profile(data, kMethod);
  if (!parsed) return parsed.error();
  const Json& j = *parsed;
  const std::string where = "profile: ";
  ChameleonProfile p;
  auto refs = unsigned_field(j, "references", where);
  if (!refs) return refs.error();
  p.references = *refs;
  auto sampled = unsigned_field(j, "sampled_references", where);
  if (!sampled) return sampled.error();
  p.sampled_references = *sampled;
  auto block = unsigned_field(j, "block_bytes", where);
  if (!block) return block.error();
  auto word = unsigned_field(j, "word_bytes", where);
  if (!word) return word.error();
  auto sub = unsigned_field(j, "sub_bins", where);
  if (!sub) return sub.error();
  if (*sub > 64) return make_error(where + "sub_bins: must be a power of two <= 64");
  std::uint64_t age_bins = 1;
  if (j.contains("age_bins")) {
    auto a = unsigned_field(j, "age_bins", where);
    if (!a) return a.error();
    if (*a == 0 || *a > 16) return make_error(where + "age_bins: must be in 1 .. 16");
    age_bins = *a;
  }
  p.shape = {*block, *word, static_cast<std::uint32_t>(*sub), static_cast<std::uint32_t>(age_bins), false};
  if (const auto clock = j.find("age_clock"); clock != j.end()) {
    if (!clock->is_string() || (*clock != "references" && *clock != "visits"))
      return make_error(where + "age_clock: must be \"references\" or \"visits\"");
    p.shape.age_in_visits = *clock == "visits";
  }
  if (j.contains("line_bytes")) {  // absent in profiles written before the line histogram: none
    auto line = unsigned_field(j, "line_bytes", where);
    if (!line) return line.error();
    p.shape.line_bytes = *line;
  }
  if (j.contains("fill_bytes")) {  // absent in profiles written before the block fill counts
    auto fill = unsigned_field(j, "fill_bytes", where);
    if (!fill) return fill.error();
    p.shape.fill_bytes = *fill;
  }
  if (j.contains("layout_bytes")) {  // absent in profiles written before the layout: first-touch order
    auto layout = unsigned_field(j, "layout_bytes", where);
    if (!layout) return layout.error();
    p.shape.layout_bytes = *layout;
  }
  if (auto s = p.shape.validate(); !s) return make_error(where + s.error().message);
  const auto synth = j.find("synthesis");
  if (synth == j.end() || !synth->is_object()) return make_error(where + "synthesis: missing or not an object");
  auto seed_max = unsigned_field(*synth, "seed_max", where + "synthesis.");
  if (!seed_max) return seed_max.error();
  if (*seed_max == 0 || *seed_max > (std::uint64_t{1} << 31))
    return make_error(where + "synthesis.seed_max: must be in 1 .. 2^31");
  p.seed_max = *seed_max;
  auto iterations = unsigned_field(*synth, "max_iterations", where + "synthesis.");
  if (!iterations) return iterations.error();
  if (*iterations == 0 || *iterations > 100) return make_error(where + "synthesis.max_iterations: must be in 1 .. 100");
  p.max_iterations = static_cast<std::uint32_t>(*iterations);
  auto tolerance = number_field(*synth, "tolerance", where + "synthesis.");
  if (!tolerance) return tolerance.error();
  p.tolerance = *tolerance;
  if (synth->contains("fill_candidates")) {  // absent in profiles written before it: 1
    auto fill = unsigned_field(*synth, "fill_candidates", where + "synthesis.");
    if (!fill) return fill.error();
    if (*fill == 0 || *fill > kMaxFillCandidates)
      return make_error(where + "synthesis.fill_candidates: must be in 1 .. " + std::to_string(kMaxFillCandidates));
    p.fill_candidates = static_cast<std::uint32_t>(*fill);
  }
  if (synth->contains("scramble_bytes")) {  // absent in profiles written before it: 0, no scrambling
    auto scramble = unsigned_field(*synth, "scramble_bytes", where + "synthesis.");
    if (!scramble) return scramble.error();
    if (!valid_scramble(*scramble, p.shape))
      return make_error(where + "synthesis.scramble_bytes: must be 0 or a power of two from word_bytes to half of block_bytes");
    p.scramble_bytes = *scramble;
  }
  const auto sig = j.find("signature");
  if (sig == j.end()) return make_error(where + "signature: missing");
  auto whole = MemorySignature::from_json(*sig, p.shape, "profile: signature");
  if (!whole) return whole.error();
  p.signature = std::move(*whole);
  if (p.signature.references != p.sampled_references)
    return make_error(where + "signature.references: " + std::to_string(p.signature.references) +
                      " differs from sampled_references " + std::to_string(p.sampled_references));
  if (p.sampled_references > p.references)
    return make_error(where + "sampled_references: more than references");
  if (p.fill_candidates > 1 && p.signature.block_fill.empty())
    return make_error(where + "synthesis.fill_candidates: " + std::to_string(p.fill_candidates) +
                      " needs signature.block_fill (a profile made with fill_bytes > 0)");
  if (const auto regions = j.find("regions"); regions != j.end()) {
    if (!regions->is_array()) return make_error(where + "regions: not an array");
    std::unordered_map<std::uint32_t, std::size_t> seen;  // region id -> its entry
    for (std::size_t i = 0; i < regions->size(); ++i) {
      const Json& r = (*regions)[i];
      const std::string rw = "profile: regions[" + std::to_string(i) + "]";
      if (!r.is_object()) return make_error(rw + ": not an object");
      ChameleonProfile::Region region;
      auto id = unsigned_field(r, "id", rw + ".");
      if (!id) return id.error();
      // Region ids are 32-bit everywhere (CodeRegion::id, region maps, the "other" region's
      // 4294967295): a wider one would be cut short and alias another region.
      if (*id > UINT32_MAX)
        return make_error(rw + ".id: " + std::to_string(*id) + " is above 4294967295 (region ids are 32-bit)");
      region.region.id = static_cast<std::uint32_t>(*id);
      // One signature per region: a second entry with the same id (a hand-edited file) would be
      // mixed in as if it were another region.
      if (const auto [at, fresh] = seen.emplace(region.region.id, i); !fresh)
        return make_error(rw + ".id: " + std::to_string(*id) + " is also regions[" + std::to_string(at->second) +
                          "]'s (one entry per region)");
      const auto name = r.find("name");
      if (name == r.end() || !name->is_string()) return make_error(rw + ".name: missing or not a string");
      region.region.name = name->get<std::string>();
      auto weight = number_field(r, "weight", rw + ".");
      if (!weight) return weight.error();
      region.weight = *weight;
      const auto rs = r.find("signature");
      if (rs == r.end()) return make_error(rw + ".signature: missing");
      auto s = MemorySignature::from_json(*rs, p.shape, rw + ".signature");
      if (!s) return s.error();
      region.signature = std::move(*s);
      p.regions.push_back(std::move(region));
    }
  }
  return p;
}

Result<TraceSeed> seed_of(const ChameleonProfile& profile, std::uint64_t length, std::uint64_t random_seed) {
  auto model = profile.model();
  if (!model) return make_error("profile: " + model.error().message);
  GeneratorOptions g;
  const std::uint64_t want = length ? length : profile.references;
  g.seed_length = std::max<std::uint64_t>(1, std::min(want, profile.seed_max));
  g.random_seed = random_seed;
  g.max_iterations = profile.max_iterations;
  g.tolerance = profile.tolerance;
  g.fill_candidates = profile.fill_candidates;
  g.scramble_bytes = profile.scramble_bytes;
  return generate_seed(*model, g);
}

}  // namespace hmtt::chameleon

namespace hmtt::analysis {

namespace {

using chameleon::MemorySignature;

class ChameleonProfiler final : public Profiler {
 public:
  std::string_view name() const override { return "chameleon"; }
  std::string_view summary() const override {
    return "Chameleon memory signature: 512 B reuse-distance CDF + alpha trees per reuse bin; synthetic "
           "traces hit the same LRU rates";
  }
  std::vector<ProfileParam> params() const override {
    return {{"block", "512", "widest block (bytes): the CDF's width and the access-history tree's root"},
            {"word", "4", "narrowest working set (bytes): the tree's leaves"},
            {"sub_bins", "4", "histogram slices per octave of reuse distance (power of two <= 64)"},
            {"age_bins", "12", "alpha of nodes with both children used, split by the other child's age (references since its last use), log4 bins (1 = no split)"},
            {"age_clock", "references", "the age split's clock: references, or visits of the child's block"},
            {"line", "32", "narrowest width (bytes) whose reuse distances, like those of every width up to half the block, are kept per block-reuse bin and followed by synthesis (0 = none: the alpha trees alone)"},
            {"fill_bytes", "128", "width (bytes, a power of two from word to half the block; 0 = none) of the units whose count in each reused block is kept per reuse bin, so that synthesis reuses blocks as full as the original's"},
            {"layout", "0", "span (bytes, a power of two above the block; 0 = none) modulo which the distance between consecutively first-touched blocks is kept, so that synthesis places new blocks in the cache sets the original used instead of side by side"},
            {"sample_on", "0", "interval sampling: references characterised per interval (0 = every reference)"},
            {"sample_off", "0", "interval sampling: references skipped after each interval (e.g. 9M with sample_on=1M)"},
            {"regions", "", "code regions, one signature each: a region map file ('region ID NAME T0 T1' lines) or an hmtt store whose I-Code events HMTT_EVENT(k) start region k"},
            {"seed_max", "64M", "synthesis: longest trace seed; longer traces replicate it (replication loses the reuses between copies that L2 and L3 see)"},
            {"max_iterations", "8", "synthesis: attempts of the T/R cold-miss adjustment"},
            {"tolerance", "0.001", "synthesis: accepted max CDF gap between the seed and the signature"},
            {"scramble", "64", "synthesis: width (bytes, a power of two from word to half the block; 0 = none) of the units that change places inside every synthetic block by a per-block XOR, which keeps every reuse distance and spreads the units evenly over cache sets"},
            {"fill", "1", "synthesis: blocks tried per block reuse (inside the drawn distance bin) to reuse one with as many fill_bytes units used as the original's reused blocks had; 1 = the block at the drawn depth, as the paper does. 8 suits board captures (whole lines, hot sets of whole blocks): docs/chameleon.md"}};
  }

  Result<ProfileOutput> profile(ReferenceSource& trace, const ProfileParams& params, const RunOptions& run) override {
    chameleon::TracerOptions opt;
    auto block = params.u64("block");
    if (!block) return block.error();
    auto word = params.u64("word");
    if (!word) return word.error();
    auto sub = params.u64("sub_bins");
    if (!sub) return sub.error();
    if (*sub > 64) return make_error("parameter 'sub_bins': must be a power of two <= 64");
    auto age = params.u64("age_bins");
    if (!age) return age.error();
    if (*age == 0 || *age > 16) return make_error("parameter 'age_bins': must be in 1 .. 16");
    auto clock = params.text("age_clock");
    if (!clock) return clock.error();
    if (*clock != "references" && *clock != "visits")
      return make_error("parameter 'age_clock': must be references or visits");
    auto line = params.u64("line");
    if (!line) return line.error();
    auto layout = params.u64("layout");
    if (!layout) return layout.error();
    auto fill_bytes = params.u64("fill_bytes");
    if (!fill_bytes) return fill_bytes.error();
    opt.shape = {*block, *word, static_cast<std::uint32_t>(*sub), static_cast<std::uint32_t>(*age), *clock == "visits", *line, *layout, *fill_bytes};
    if (auto s = opt.shape.validate(); !s) {
      std::string m = s.error().message;
      m.replace(0, m.find(':'), m.starts_with("block") ? "parameter 'block'" : m.starts_with("word") ? "parameter 'word'"
                                : m.starts_with("line") ? "parameter 'line'"
                                : m.starts_with("layout") ? "parameter 'layout'"
                                : m.starts_with("fill") ? "parameter 'fill_bytes'" : "parameter 'sub_bins'");
      return make_error(m);
    }
    auto on = params.u64("sample_on");
    if (!on) return on.error();
    auto off = params.u64("sample_off");
    if (!off) return off.error();
    if (*on == 0 && *off != 0) return make_error("parameter 'sample_off': needs sample_on > 0");
    opt.sample_on = *on;
    opt.sample_off = *off;
    auto seed_max = params.u64("seed_max");
    if (!seed_max) return seed_max.error();
    if (*seed_max == 0 || *seed_max > (std::uint64_t{1} << 31))
      return make_error("parameter 'seed_max': must be in 1 .. 2^31");
    auto iterations = params.u64("max_iterations");
    if (!iterations) return iterations.error();
    if (*iterations == 0 || *iterations > 100) return make_error("parameter 'max_iterations': must be in 1 .. 100");
    auto tolerance = params.real("tolerance");
    if (!tolerance) return tolerance.error();
    if (!(*tolerance >= 0) || !std::isfinite(*tolerance))
      return make_error("parameter 'tolerance': must be a finite number >= 0");
    auto fill = params.u64("fill");
    if (!fill) return fill.error();
    if (*fill == 0 || *fill > chameleon::kMaxFillCandidates)
      return make_error("parameter 'fill': must be in 1 .. " + std::to_string(chameleon::kMaxFillCandidates));
    if (*fill > 1 && opt.shape.fill_bytes == 0)
      return make_error("parameter 'fill': needs fill_bytes > 0 (the counts it follows)");
    auto scramble = params.u64("scramble");
    if (!scramble) return scramble.error();
    if (!valid_scramble(*scramble, opt.shape))
      return make_error("parameter 'scramble': must be 0 or a power of two from word to half of block");
    auto regions_path = params.text("regions");
    if (!regions_path) return regions_path.error();
    if (!regions_path->empty()) {
      auto regions = analysis::load_regions(*regions_path);
      if (!regions) return regions.error();
      opt.regions = std::move(*regions);
    }

    chameleon::SignatureTracer tracer(opt);
    ProgressLine progress("chameleon", 0, run.progress && ProgressLine::stderr_is_terminal());
    std::vector<Reference> buf(run.batch ? run.batch : 4096);
    std::uint64_t refs = 0;
    while (run.limit == 0 || refs < run.limit) {
      auto n = trace.read(buf);
      if (!n) return n.error();
      if (*n == 0) break;
      std::size_t take = *n;
      if (run.limit) take = static_cast<std::size_t>(std::min<std::uint64_t>(take, run.limit - refs));
      tracer.access(std::span<const Reference>(buf.data(), take));
      refs += take;
      progress.update(refs, std::to_string(refs / 1000000) + " M refs");
    }
    progress.finish();
    tracer.finish();

    Json j = json_profile_header(name(), params);
    j["references"] = tracer.seen();
    j["sampled_references"] = tracer.sampled();
    j["block_bytes"] = opt.shape.block_bytes;
    j["word_bytes"] = opt.shape.word_bytes;
    j["sub_bins"] = opt.shape.sub_bins;
    j["age_bins"] = opt.shape.age_bins;
    j["age_clock"] = opt.shape.age_in_visits ? "visits" : "references";
    if (opt.shape.line_bytes) j["line_bytes"] = opt.shape.line_bytes;
    if (opt.shape.layout_bytes) j["layout_bytes"] = opt.shape.layout_bytes;
    if (opt.shape.fill_bytes) j["fill_bytes"] = opt.shape.fill_bytes;
    j["synthesis"] = {{"seed_max", *seed_max}, {"max_iterations", *iterations}, {"tolerance", *tolerance},
                      {"fill_candidates", *fill}, {"scramble_bytes", *scramble}};
    j["signature"] = tracer.signature().to_json();
    if (!opt.regions.empty()) {
      Json regions = Json::array();
      const auto& sigs = tracer.region_signatures();
      const auto& ids = tracer.region_ids();
      for (std::size_t r = 0; r < sigs.size(); ++r) {
        Json e;
        const bool other = r == ids.size();
        e["id"] = other ? std::uint64_t{chameleon::kOtherRegionId} : std::uint64_t{ids[r].id};
        e["name"] = other ? std::string("other") : ids[r].name;
        std::uint64_t intervals = 0;
        for (const auto& iv : opt.regions) intervals += !other && iv.id == ids[r].id;
        if (!other) e["intervals"] = intervals;
        e["weight"] = tracer.sampled() ? static_cast<double>(sigs[r].references) / static_cast<double>(tracer.sampled()) : 0.0;
        e["signature"] = sigs[r].to_json();
        regions.push_back(std::move(e));
      }
      j["regions"] = std::move(regions);
    }
    ProfileOutput out;
    out.data = j.dump(1);
    const MemorySignature& s = tracer.signature();
    out.summary["references"] = tracer.seen();
    out.summary["sampled_references"] = tracer.sampled();
    out.summary["cold_references"] = s.cold;
    const auto cdf = s.cdf();
    out.summary["hit_512B_depth_1"] = cdf.front();
    out.summary["hit_512B_depth_65536"] = cdf.back();
    // The paper's count: 17 CDF points + alpha per (reuse bin, level).
    out.summary["signature_numbers"] = chameleon::kCdfDepths + chameleon::kAlphaBins * opt.shape.levels();
    std::uint64_t line_counts = 0;  // line_reuse as written: rows without trailing empty columns
    for (std::size_t b = 0; b < opt.shape.line_widths() * chameleon::kAlphaBins; ++b) {
      std::size_t used = opt.shape.line_row();
      while (used > 0 && s.line_reuse[b * opt.shape.line_row() + used - 1] == 0) --used;
      line_counts += used;
    }
    out.summary["stored_counts"] =
        3 + s.reuse.size() + 2 * s.alpha_yes.size() + 2 * s.first_left.size() + kKindCount + line_counts +
        2 * s.layout_exact.size() + s.layout_bins.size() + s.block_fill.size();
    out.summary["regions"] = opt.regions.empty() ? 0 : tracer.region_ids().size() + 1;
    return out;
  }

  Result<std::unique_ptr<ReferenceSource>> synthesize(std::string_view data, const SynthOptions& options) override {
    auto p = chameleon::parse_profile(data);
    if (!p) return p.error();
    const std::uint64_t length = options.length ? options.length : p->references;
    auto seed = chameleon::seed_of(*p, length, options.seed);
    if (!seed) return seed.error();
    auto shared = std::make_shared<const chameleon::TraceSeed>(std::move(*seed));
    return std::unique_ptr<ReferenceSource>(std::make_unique<chameleon::SeedExpansion>(shared, length));
  }
};

}  // namespace

std::unique_ptr<Profiler> make_chameleon_profiler() { return std::make_unique<ChameleonProfiler>(); }

}  // namespace hmtt::analysis
