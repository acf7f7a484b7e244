#include <algorithm>
#include <map>

#include "hmtt/hhnhmm/generator.h"
#include "hmtt/hhnhmm/hhnhmm.h"
#include "hmtt/hhnhmm/model.h"

namespace hmtt::analysis {

namespace {

using hhnhmm::HhnhmmKnobs;

class HhnhmmProfiler final : public Profiler {
 public:
  std::string_view name() const override { return "hhnhmm"; }
  std::string_view summary() const override {
    return "HHnHMM: frames classified S/P/R/J/O, a Markov chain over classes, an HMM per class (Baum-Welch)";
  }
  std::vector<ProfileParam> params() const override {
    return {{"kinds", "all", "references profiled: all, ifetch (the paper's case) or data"},
            {"frame_length", "0", "frame length N; 0 = the best of frame_min..frame_max by classification rate"},
            {"frame_min", "20", "shortest candidate frame length"},
            {"frame_max", "100", "longest candidate frame length"},
            {"frame_step", "10", "candidate frame lengths step"},
            {"analysis_refs", "262144", "references the initial frame-length analysis reads"},
            {"states", "4", "hidden states per class HMM"},
            {"iterations", "30", "Baum-Welch iterations at most"},
            {"codebook", "32", "codewords for Random frames (k-means)"},
            {"max_symbols", "256", "distinct periods / jumps / Other patterns kept per class"},
            {"jump_threshold", "4096", "|last - first| above this (bytes) makes a Jump frame"},
            {"repeat_tolerance", "0.1", "Periodic: relative |x[i+p]-x[i]| at most this"},
            {"z_critical", "1.96", "Random: both sign tests within this many standard deviations"},
            {"sequential_max_step", "64", "largest difference inside a Sequential frame; 0 = any ascending jump (the paper)"},
            {"jump_mode", "absolute", "Jump value: absolute (the target address) or relative (x[N-1]-x[0], the paper)"},
            {"seed", "1", "seed of Baum-Welch and k-means initialisation"}};
  }

  Result<ProfileOutput> profile(ReferenceSource& trace, const ProfileParams& params, const RunOptions& run) override {
    HhnhmmKnobs k;
    auto kinds = params.text("kinds");
    if (!kinds) return kinds.error();
    if (*kinds != "all" && *kinds != "ifetch" && *kinds != "data")
      return make_error("parameter 'kinds': '" + *kinds + "' is not all, ifetch or data");
    struct U {
      const char* key;
      std::size_t* out;
      std::size_t min;
    };
    std::uint64_t seed = 1, jt = 0;
    const U us[] = {{"frame_length", &k.frame_length, 0}, {"frame_min", &k.frame_min, 4},
                    {"frame_max", &k.frame_max, 4},       {"frame_step", &k.frame_step, 1},
                    {"analysis_refs", &k.analysis_references, 1}, {"states", &k.states, 1},
                    {"iterations", &k.iterations, 1},     {"codebook", &k.codebook, 1},
                    {"max_symbols", &k.max_symbols, 1}};
    for (const auto& u : us) {
      auto v = params.u64(u.key);
      if (!v) return v.error();
      if (*v < u.min || *v > (1u << 24))
        return make_error("parameter '" + std::string(u.key) + "': must be " + std::to_string(u.min) + "..16M");
      *u.out = static_cast<std::size_t>(*v);
    }
    if (k.frame_length != 0 && (k.frame_length < 4 || k.frame_length > 4096))
      return make_error("parameter 'frame_length': must be 0 or 4..4096");
    if (k.frame_max < k.frame_min || k.frame_max > 4096)
      return make_error("parameter 'frame_max': must be frame_min..4096");
    if (k.states > 64) return make_error("parameter 'states': at most 64");
    auto jtr = params.u64("jump_threshold");
    if (!jtr) return jtr.error();
    jt = *jtr;
    auto s = params.u64("seed");
    if (!s) return s.error();
    seed = *s;
    auto rt = params.real("repeat_tolerance");
    if (!rt) return rt.error();
    auto zc = params.real("z_critical");
    if (!zc) return zc.error();
    if (!(*rt >= 0)) return make_error("parameter 'repeat_tolerance': must be >= 0");
    if (!(*zc > 0)) return make_error("parameter 'z_critical': must be > 0");
    k.classifier.jump_threshold = jt;
    k.classifier.repeat_tolerance = *rt;
    k.classifier.z_critical = *zc;
    k.seed = seed;
    auto sms = params.u64("sequential_max_step");
    if (!sms) return sms.error();
    k.classifier.sequential_max_step = *sms;
    auto jm = params.text("jump_mode");
    if (!jm) return jm.error();
    if (*jm != "relative" && *jm != "absolute")
      return make_error("parameter 'jump_mode': '" + *jm + "' is neither relative nor absolute");
    k.jump_absolute = *jm == "absolute";

    std::vector<std::uint64_t> addresses;
    std::map<std::uint32_t, std::uint64_t> sizes;
    std::array<std::uint64_t, kKindCount> by_kind{};
    std::uint64_t read = 0;
    std::vector<Reference> buf(run.batch);
    while (run.limit == 0 || read < run.limit) {
      auto n = trace.read(buf);
      if (!n) return n.error();
      if (*n == 0) break;
      for (std::size_t i = 0; i < *n && (run.limit == 0 || read < run.limit); ++i, ++read) {
        const Reference& r = buf[i];
        const bool ifetch = r.kind == Kind::IFetch;
        if ((*kinds == "ifetch" && !ifetch) || (*kinds == "data" && ifetch)) continue;
        addresses.push_back(r.address);
        ++sizes[r.size];
        ++by_kind[static_cast<std::size_t>(r.kind)];
      }
    }
    const std::size_t shortest = k.frame_length ? k.frame_length : k.frame_min;
    if (addresses.size() < shortest)
      return make_error("trace: " + std::to_string(addresses.size()) + " references of the profiled kinds, fewer than " +
                        "one frame (" + std::to_string(shortest) + ")");
    const auto model = hhnhmm::learn(addresses, k);

    Json j = json_profile_header(name(), params);
    // The synthetic references' kind and size: the most common ones.
    const auto kind = static_cast<Kind>(std::max_element(by_kind.begin(), by_kind.end()) - by_kind.begin());
    const std::uint64_t writes = by_kind[static_cast<std::size_t>(Kind::Write)] + by_kind[static_cast<std::size_t>(Kind::Modify)];
    const std::uint64_t data = writes + by_kind[static_cast<std::size_t>(Kind::Read)];
    j["kind"] = std::string(kind_name(kind));
    j["size"] = std::max_element(sizes.begin(), sizes.end(), [](const auto& a, const auto& b) {
                  return a.second < b.second;
                })->first;
    j["write_fraction"] = data ? static_cast<double>(writes) / static_cast<double>(data) : 0.0;
    hhnhmm::model_to_json(model, j);
    ProfileOutput out;
    out.data = j.dump(1);
    out.summary["references"] = model.references;
    out.summary["frame_length"] = model.frame_length;
    out.summary["frames"] = j["frames"];
    out.summary["classification_rate"] = model.classification_rate();
    out.summary["profile_bytes"] = out.data.size();
    return out;
  }

  Result<std::unique_ptr<ReferenceSource>> synthesize(std::string_view data, const SynthOptions& options) override {
    auto j = parse_json_profile(data, name());
    if (!j) return j.error();
    auto model = hhnhmm::model_from_json(*j);
    if (!model) return model.error();
    hhnhmm::SynthesisKnobs sk;
    try {
      const auto kind = j->at("kind").get<std::string>();
      bool known = false;
      for (int i = 0; i < kKindCount; ++i)
        if (kind_name(static_cast<Kind>(i)) == kind) {
          sk.kind = static_cast<Kind>(i);
          known = true;
        }
      if (!known) return make_error("profile: kind: '" + kind + "' is not read, write, ifetch or modify");
      sk.size = j->at("size").get<std::uint32_t>();
      sk.write_fraction = j->at("write_fraction").get<double>();
      if (!(sk.write_fraction >= 0 && sk.write_fraction <= 1))
        return make_error("profile: write_fraction: must be 0..1");
    } catch (const std::exception& e) {
      return make_error(std::string("profile: kind/size/write_fraction: ") + e.what());
    }
    const std::uint64_t length = options.length ? options.length : model->references;
    return hhnhmm::make_hhnhmm_source(std::move(*model), length, options.seed, sk);
  }
};

}  // namespace

std::unique_ptr<Profiler> make_hhnhmm_profiler() { return std::make_unique<HhnhmmProfiler>(); }

}  // namespace hmtt::analysis
