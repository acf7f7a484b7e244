// PSnAP behind the profiling contract: `hmtt profile --method psnap`.
#include <vector>

#include "hmtt/psnap/psnap.h"

namespace hmtt::analysis {

namespace {

// The profile file's layout: compact JSON with one line per top-level field,
// per loop header, per pattern buffer and per region, so it reads (and diffs)
// line by line yet stays small.
std::string layout(const Json& j) {
  std::string out = "{\n";
  bool first = true;
  for (const auto& [key, value] : j.items()) {
    out += first ? " " : ",\n ";
    first = false;
    out += Json(key).dump() + ": ";
    if (key != "loops") {
      out += value.dump();
      continue;
    }
    out += "[";
    for (std::size_t l = 0; l < value.size(); ++l) {
      const Json& loop = value[l];
      out += l ? ",\n  {" : "\n  {";
      bool f = true;
      for (const auto& [lk, lv] : loop.items()) {
        out += f ? "" : ",\n   ";
        f = false;
        out += Json(lk).dump() + ": ";
        if (lk != "regions") {
          out += lv.dump();
          continue;
        }
        out += "[";
        for (std::size_t r = 0; r < lv.size(); ++r) out += (r ? ",\n    " : "\n    ") + lv[r].dump();
        out += "]";
      }
      out += "}";
    }
    out += "]";
  }
  return out + "\n}\n";
}

class PsnapProfiler final : public Profiler {
 public:
  std::string_view name() const override { return "psnap"; }
  std::string_view summary() const override {
    return "PSnAP: per-region stride histograms and stride-order graphs, pattern buffers, loop order";
  }
  std::vector<ProfileParam> params() const override {
    const psnap::PsnapKnobs d;
    return {{"region_distance", std::to_string(d.region_distance), "bytes: an address this close to a region joins it"},
            {"pattern_buffer", std::to_string(d.pattern_buffer), "region runs kept per loop (the pattern buffer)"},
            {"window", std::to_string(d.window), "references per loop instance (segmentation when the trace carries no loop events)"},
            {"loop_similarity", "0.5", "Jaccard index of two windows' signatures for them to be the same loop (0..1)"},
            {"loop_signature", "code",
             "a window's signature: code (its instruction lines; pages if it has none) or pages (4 KB pages touched)"},
            {"merge_below", std::to_string(d.merge_below),
             "regions accessed fewer times per window are merged into one (pointer chasing)"},
            {"lattice_stride", std::to_string(d.lattice_stride),
             "bytes: new regions a constant stride apart (above region_distance, up to this) walked in turn join one "
             "region (a table read down a column); 0: off"},
            {"returns", "loop",
             "where a region's returns to a line are counted: loop (across the loop's windows; replay returns to a "
             "line last touched that long ago) or window (within a window, the model of profiles before version 3)"},
            {"loops", "auto",
             "program structure: auto (a store's I-Code events, HMTT_EVENT(k) entering loop k, when it has any), "
             "none (the fallback segmentation alone), or a file: a store whose I-Code events to take, or a region "
             "map ('region ID NAME T0 T1' lines); references outside every region are segmented"},
            {"encoding", "binary",
             "the profile file: binary (varints in columns, LZMA2; docs/psnap.md), binary-deflate (interleaved varints, "
             "deflate: the format written before LZMA2), binary-stored (interleaved, not compressed) or json"}};
  }

  Result<ProfileOutput> profile(ReferenceSource& trace, const ProfileParams& params, const RunOptions& run) override {
    psnap::PsnapKnobs k;
    auto distance = params.u64("region_distance");
    if (!distance) return distance.error();
    auto pattern = params.u64("pattern_buffer");
    if (!pattern) return pattern.error();
    auto window = params.u64("window");
    if (!window) return window.error();
    auto similarity = params.real("loop_similarity");
    if (!similarity) return similarity.error();
    auto merge = params.u64("merge_below");
    if (!merge) return merge.error();
    auto lattice = params.u64("lattice_stride");
    if (!lattice) return lattice.error();
    auto signature = params.text("loop_signature");
    if (!signature) return signature.error();
    if (*signature != "code" && *signature != "pages")
      return make_error("parameter 'loop_signature': '" + *signature + "' is not code or pages");
    k.loop_signature = *signature == "code" ? psnap::LoopSignature::Code : psnap::LoopSignature::Pages;
    auto returns = params.text("returns");
    if (!returns) return returns.error();
    if (!psnap::parse_return_scope(*returns, k.returns))
      return make_error("parameter 'returns': '" + *returns + "' is not loop or window");
    auto encoding = params.text("encoding");
    if (!encoding) return encoding.error();
    if (*encoding != "binary" && *encoding != "binary-deflate" && *encoding != "binary-stored" && *encoding != "json")
      return make_error("parameter 'encoding': '" + *encoding + "' is not binary, binary-deflate, binary-stored or json");
    if (*pattern == 0) return make_error("parameter 'pattern_buffer': must be at least 1");
    if (*window == 0) return make_error("parameter 'window': must be at least 1");
    if (*window > psnap::kMaxWindow)
      return make_error("parameter 'window': at most " + std::to_string(psnap::kMaxWindow) +
                        " references (the profiler holds a window's references, 32 bytes each)");
    if (!(*similarity >= 0.0 && *similarity <= 1.0)) return make_error("parameter 'loop_similarity': must be within 0..1");
    k.region_distance = *distance;
    k.pattern_buffer = *pattern;
    k.window = *window;
    k.loop_similarity = *similarity;
    k.merge_below = *merge;
    k.lattice_stride = *lattice;

    auto loops = params.text("loops");
    if (!loops) return loops.error();
    std::vector<analysis::CodeRegion> code_regions;
    std::string loops_from = "segmentation";
    if (*loops == "auto") {
      if (!run.trace_path.empty() && analysis::is_store_file(run.trace_path)) {
        auto r = analysis::icode_regions(run.trace_path);
        if (!r) return make_error("parameter 'loops': " + r.error().message);
        code_regions = std::move(*r);
        if (!code_regions.empty()) loops_from = "I-Code events of " + run.trace_path;
      }
    } else if (loops->empty()) {
      return make_error("parameter 'loops': empty (give auto, none, or a store or region map file)");
    } else if (*loops != "none") {
      auto r = analysis::load_regions(*loops, "loops");
      if (!r) return r.error();
      code_regions = std::move(*r);
      loops_from = *loops;
    }
    const std::size_t intervals = code_regions.size();
    psnap::StreamProfiler profiler(k, std::move(code_regions));
    std::vector<Reference> buf(run.batch ? run.batch : 4096);
    std::uint64_t refs = 0;
    while (run.limit == 0 || refs < run.limit) {
      auto n = trace.read(buf);
      if (!n) return n.error();
      if (*n == 0) break;
      for (std::size_t i = 0; i < *n && (run.limit == 0 || refs < run.limit); ++i, ++refs) profiler.access(buf[i]);
    }
    const psnap::StreamProfile p = profiler.finish();
    ProfileOutput out;
    if (*encoding == "json") {
      Json j = json_profile_header(name(), params);
      const Json fields = psnap::to_json(p);
      for (const auto& [key, value] : fields.items()) j[key] = value;
      out.data = layout(j);
    } else {
      out.format = "binary";
      // LZMA2 over columns; deflate and stored keep the fields interleaved, as written before stop 26.
      const bool lzma = *encoding == "binary";
      out.data = psnap::to_binary(p,
                                  lzma                            ? psnap::BinaryCompression::Lzma
                                  : *encoding == "binary-deflate" ? psnap::BinaryCompression::Deflate
                                                                  : psnap::BinaryCompression::Stored,
                                  lzma ? psnap::BodyLayout::Columns : psnap::BodyLayout::Interleaved);
    }
    out.summary["references"] = p.references;
    out.summary["loops"] = p.loops.size();
    out.summary["regions"] = p.region_count();
    std::size_t code_loops = 0, instances = 0;
    for (const auto& l : p.loops) {
      code_loops += l.code_region != analysis::kOtherRegionId;
      instances += l.instances;
    }
    out.summary["loops_from"] = loops_from;
    out.summary["code_region_intervals"] = intervals;
    out.summary["code_region_loops"] = code_loops;
    out.summary["windows"] = instances;
    out.summary["profile_bytes"] = out.data.size();
    out.summary["complexity"] = p.complexity();
    return out;
  }

  bool recognizes(std::string_view data) const override {
    return psnap::is_binary_profile(data) || Profiler::recognizes(data);
  }

  Result<std::unique_ptr<ReferenceSource>> synthesize(std::string_view data, const SynthOptions& options) override {
    if (psnap::is_binary_profile(data)) {
      auto p = psnap::from_binary(data);
      if (!p) return p.error();
      return psnap::make_replay(std::move(*p), options.length, options.seed);
    }
    auto j = parse_json_profile(data, name());
    if (!j) return j.error();
    auto p = psnap::from_json(*j);
    if (!p) return p.error();
    return psnap::make_replay(std::move(*p), options.length, options.seed);
  }
};

}  // namespace

std::unique_ptr<Profiler> make_psnap_profiler() { return std::make_unique<PsnapProfiler>(); }

}  // namespace hmtt::analysis
