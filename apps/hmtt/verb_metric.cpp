// hmtt metric: METRIC's compressed partial data traces and the cache analysis
// per reference point with evictors (docs/metric.md).
//
//   hmtt metric kernel NAME -o T.mtrc [--report]    a paper kernel's stream, compressed
//   hmtt metric compress (--kernel NAME | --lackey FILE) [--points MAP] -o T.mtrc
//   hmtt metric expand T.mtrc [-o FILE] [--count]   the exact original stream as text
//   hmtt metric info T.mtrc [--descriptors]         counts, points, descriptors
//   hmtt metric report T.mtrc [--cache 32K:2:32]    summary, per-reference table, evictors
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>

#include "hmtt/metric/metric.h"
#include "hmtt/progress.h"
#include "verb.h"

namespace {

using namespace hmtt;
using namespace hmtt::metric;

struct MetricOptions {
  // shared
  std::string output;
  bool json = false;
  std::uint32_t window = 64;
  std::uint32_t fold_levels = 8;
  // sources
  std::string kernel;
  std::uint32_t n = 800;
  std::uint32_t tile = 16;
  std::uint64_t events = 1000000;
  std::uint64_t gap = 8448;
  std::string lackey;
  bool with_ifetch = false;
  std::string points;
  // readers
  std::string input;
  std::string cache = "32K:2:32";
  bool no_evictors = false;
  bool count_only = false;
  bool descriptors = false;
  bool report = false;
};

// Passes a stream through, drawing a progress line on a terminal.
class ProgressSource final : public PointedSource {
 public:
  ProgressSource(PointedSource& inner, const std::string& label, std::uint64_t total)
      : inner_(inner), line_(label, total) {}
  Result<std::size_t> read_pointed(std::span<Reference> refs, std::span<std::uint32_t> points) override {
    auto n = inner_.read_pointed(refs, points);
    if (n.ok()) {
      done_ += *n;
      line_.update(done_, std::to_string(done_ / 1000000) + " M refs");
      if (*n == 0) line_.finish();
    }
    return n;
  }
  const std::vector<ReferencePoint>& points() const override { return inner_.points(); }

 private:
  PointedSource& inner_;
  ProgressLine line_;
  std::uint64_t done_ = 0;
};

Result<std::unique_ptr<PointedSource>> open_kernel(const MetricOptions& o) {
  auto id = kernel_by_name(o.kernel);
  if (!id) {
    std::string names;
    for (const auto& n : kernel_names()) names += (names.empty() ? "" : ", ") + n;
    return make_error("unknown kernel '" + o.kernel + "' (one of: " + names + ")");
  }
  KernelOptions ko;
  ko.id = *id;
  ko.n = o.n;
  ko.tile = o.tile;
  ko.events = o.events;
  ko.gap = o.gap;
  return std::unique_ptr<PointedSource>(new KernelSource(ko));
}

std::string stats_text(const CompressionStats& s, const std::string& path) {
  char b[1024];
  std::snprintf(b, sizeof b,
                "%s: %" PRIu64 " events -> %" PRIu64 " bytes (%.1fx over 24-byte references)\n"
                "  descriptors: %" PRIu64 " RSDs, %" PRIu64 " PRSDs covering %" PRIu64 " events; %" PRIu64 " IADs\n"
                "  keys %" PRIu64 ", reference points %" PRIu64 ", compressor state %" PRIu64 " bytes\n",
                path.c_str(), s.events, s.file_bytes, s.ratio(), s.rsds, s.prsds, s.descriptor_events, s.iads, s.keys,
                s.points, s.state_bytes);
  return b;
}

std::string stats_json(const CompressionStats& s, const std::string& path) {
  char b[1024];
  std::snprintf(b, sizeof b,
                "{\"file\": \"%s\", \"events\": %" PRIu64 ", \"file_bytes\": %" PRIu64 ", \"ratio\": %.3f, \"rsds\": %" PRIu64
                ", \"prsds\": %" PRIu64 ", \"descriptor_events\": %" PRIu64 ", \"iads\": %" PRIu64 ", \"keys\": %" PRIu64
                ", \"points\": %" PRIu64 ", \"state_bytes\": %" PRIu64 "}\n",
                path.c_str(), s.events, s.file_bytes, s.ratio(), s.rsds, s.prsds, s.descriptor_events, s.iads, s.keys,
                s.points, s.state_bytes);
  return b;
}

int write_text(const std::string& verb, const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::fputs(text.c_str(), stdout);
    return app::kExitOk;
  }
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f || std::fputs(text.c_str(), f) < 0 || std::fclose(f) != 0)
    return app::fail(verb, make_error(path + ": cannot write"));
  return app::kExitOk;
}

int run_compress(const MetricOptions& o, const std::string& verb) {
  CompressorOptions co;
  co.window = o.window;
  co.fold_levels = o.fold_levels;
  Result<CompressionStats> st = make_error("no input");
  if (!o.kernel.empty()) {
    if (!o.lackey.empty()) return app::fail(verb, make_error("give --kernel or --lackey, not both"));
    auto src = open_kernel(o);
    if (!src) return app::fail(verb, src.error());
    ProgressSource progress(**src, "compressing", o.events);
    st = compress_to_file(progress, o.output, co);
  } else if (!o.lackey.empty()) {
    ReferencePointMap map;
    if (!o.points.empty()) {
      auto m = ReferencePointMap::load(o.points);
      if (!m) return app::fail(verb, m.error());
      map = std::move(*m);
    }
    auto src = LackeySource::open(o.lackey, o.with_ifetch);
    if (!src) return app::fail(verb, src.error());
    ClassifiedSource classified(**src, std::move(map));
    ProgressSource progress(classified, "compressing", 0);
    st = compress_to_file(progress, o.output, co);
  } else {
    return app::fail(verb, make_error("nothing to compress: give --kernel NAME or --lackey FILE"));
  }
  if (!st) return app::fail(verb, st.error());
  std::fputs((o.json ? stats_json(*st, o.output) : stats_text(*st, o.output)).c_str(), stdout);
  if (o.report) {
    auto geo = CacheGeometry::parse(o.cache);
    if (!geo) return app::fail(verb, geo.error());
    auto ca = analyse_file(o.output, *geo);
    if (!ca) return app::fail(verb, ca.error());
    std::fputs(("\n" + ca->text_report(!o.no_evictors)).c_str(), stdout);
  }
  return app::kExitOk;
}

int run_expand(const MetricOptions& o) {
  auto trace = CompressedTrace::load(o.input);
  if (!trace) return app::fail("metric expand", trace.error());
  auto shared = std::make_shared<const CompressedTrace>(std::move(*trace));
  ExpandedSource ex(shared);
  std::FILE* out = stdout;
  const bool to_file = !o.output.empty() && o.output != "-";
  if (!o.count_only && to_file) {
    out = std::fopen(o.output.c_str(), "w");
    if (!out) return app::fail("metric expand", make_error(o.output + ": cannot open for writing"));
  }
  if (!o.count_only) std::fputs("# seq time address size kind origin source point\n", out);
  std::vector<Reference> refs(4096);
  std::vector<std::uint32_t> pts(4096);
  std::uint64_t seq = 0;
  ProgressLine progress("expanding", shared->events());
  int rc = app::kExitOk;
  for (;;) {
    auto n = ex.read_pointed(refs, pts);
    if (!n) {
      rc = app::fail("metric expand", n.error());
      break;
    }
    if (*n == 0) break;
    if (!o.count_only)
      for (std::size_t i = 0; i < *n; ++i, ++seq)
        std::fprintf(out, "%" PRIu64 " %" PRIu64 " 0x%" PRIx64 " %u %s %s %u %s\n", seq, refs[i].time, refs[i].address,
                     refs[i].size, std::string(kind_name(refs[i].kind)).c_str(),
                     std::string(origin_name(refs[i].origin)).c_str(), refs[i].source,
                     shared->points()[pts[i]].name.c_str());
    else
      seq += *n;
    progress.update(seq);
  }
  progress.finish();
  if (to_file && out != stdout && std::fclose(out) != 0 && rc == app::kExitOk)
    rc = app::fail("metric expand", make_error(o.output + ": write failed"));
  if (rc == app::kExitOk && o.count_only) std::printf("%" PRIu64 " events, checksum verified\n", seq);
  return rc;
}

std::string describe(const Descriptor& d, const CompressedTrace& t) {
  const EventKey& k = t.keys()[d.key];
  char b[256];
  std::string s;
  std::snprintf(b, sizeof b, "%s %s <start 0x%" PRIx64 ", seq %" PRIu64 ", time %" PRIu64 ">", t.points()[k.point].name.c_str(),
                std::string(kind_name(k.kind)).c_str(), d.start_addr, d.start_seq, d.start_time);
  s = b;
  for (std::size_t l = 0; l < d.levels.size(); ++l) {
    const Step& st = d.levels[l];
    std::snprintf(b, sizeof b, " %s<%" PRIu64 ", addr %+" PRId64 ", seq +%" PRIu64 ", time %+" PRId64 ">",
                  l == 0 ? "RSD" : "PRSD", st.count, static_cast<std::int64_t>(st.addr), st.seq,
                  static_cast<std::int64_t>(st.time));
    s += b;
  }
  return s;
}

int run_info(const MetricOptions& o) {
  auto t = CompressedTrace::load(o.input);
  if (!t) return app::fail("metric info", t.error());
  const std::uint64_t prsds = t->prsd_count();
  const std::uint64_t rsds = t->descriptors().size() - prsds;
  std::string out;
  char b[512];
  if (o.json) {
    std::snprintf(b, sizeof b,
                  "{\"file\": \"%s\", \"file_bytes\": %" PRIu64 ", \"events\": %" PRIu64 ", \"window\": %u, \"rsds\": %" PRIu64
                  ", \"prsds\": %" PRIu64 ", \"iads\": %" PRIu64 ", \"keys\": %zu, \"points\": %zu, \"ratio\": %.3f}\n",
                  o.input.c_str(), t->file_bytes(), t->events(), t->window(), rsds, prsds, t->iad_count(), t->keys().size(),
                  t->points().size(),
                  t->file_bytes() ? static_cast<double>(t->events()) * 24.0 / static_cast<double>(t->file_bytes()) : 0.0);
    std::fputs(b, stdout);
    return app::kExitOk;
  }
  std::snprintf(b, sizeof b,
                "%s: %" PRIu64 " bytes, %" PRIu64 " events, window %u\n  %" PRIu64 " RSDs, %" PRIu64 " PRSDs, %" PRIu64
                " IADs, %zu keys\n  reference points:\n",
                o.input.c_str(), t->file_bytes(), t->events(), t->window(), rsds, prsds, t->iad_count(), t->keys().size());
  out = b;
  for (std::size_t p = 0; p < t->points().size(); ++p) {
    const auto& rp = t->points()[p];
    out += "    " + std::to_string(p) + " " + rp.name + (rp.file.empty() ? "" : " " + rp.file + ":" + std::to_string(rp.line)) +
           (rp.source_ref.empty() ? "" : " " + rp.source_ref) + "\n";
  }
  if (o.descriptors) {
    out += "  descriptors (by first sequence id):\n";
    for (const auto& d : t->descriptors()) out += "    " + describe(d, *t) + "\n";
  }
  return write_text("metric info", o.output, out);
}

int run_report(const MetricOptions& o) {
  auto geo = CacheGeometry::parse(o.cache);
  if (!geo) return app::fail("metric report", geo.error());
  auto trace = CompressedTrace::load(o.input);
  if (!trace) return app::fail("metric report", trace.error());
  auto ca = ReferenceCacheAnalysis::create(*geo);
  if (!ca) return app::fail("metric report", ca.error());
  const std::uint64_t total = trace->events();
  ExpandedSource ex(std::make_shared<const CompressedTrace>(std::move(*trace)));
  ProgressSource progress(ex, "simulating", total);
  auto st = ca->run(progress);
  if (!st) return app::fail("metric report", st.error());
  return write_text("metric report", o.output, o.json ? ca->json_report() : ca->text_report(!o.no_evictors));
}

void add_source_options(CLI::App* c, MetricOptions& o) {
  c->add_option("--n", o.n, "Array dimension (MAT_DIM / N)")->capture_default_str();
  c->add_option("--tile", o.tile, "Tile size ts of mm-tiled")->capture_default_str();
  c->add_option("--events", o.events, "References logged; 0 = the whole loop nest")->capture_default_str();
  c->add_option("--gap", o.gap, "Bytes between consecutive arrays")->capture_default_str();
  c->add_option("--window", o.window, "Reservation-pool window w (RSD strides 1..w-1)")->capture_default_str();
  c->add_option("--fold-levels", o.fold_levels, "PRSD nesting levels tried per key (0..15)")->capture_default_str();
  c->add_flag("--json", o.json, "Print the compression figures as JSON");
  c->add_flag("--report", o.report, "Also print the cache report of the compressed trace");
  c->add_option("--cache", o.cache, "Cache for --report: SIZE:ASSOC:LINE")->capture_default_str();
}

}  // namespace

void setup_metric(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<MetricOptions>();
  auto* metric = app.add_subcommand("metric", "METRIC: compressed partial data traces (RSD/PRSD/IAD) and per-reference cache analysis with evictors");
  metric->require_subcommand(1);

  auto* kernel = metric->add_subcommand("kernel", "Generate a paper kernel's reference stream and compress it");
  kernel->add_option("name", opt->kernel, "mm, mm-tiled, adi, adi-interchanged, adi-fused")->required();
  kernel->add_option("-o,--output", opt->output, "Compressed trace to write")->required();
  add_source_options(kernel, *opt);
  kernel->callback([opt, &exit_code] { exit_code = run_compress(*opt, "metric kernel"); });

  auto* comp = metric->add_subcommand("compress", "Compress a reference stream into a METRIC trace (.mtrc)");
  comp->add_option("--kernel", opt->kernel, "A built-in kernel as input");
  comp->add_option("--lackey", opt->lackey, "A Valgrind lackey --trace-mem=yes log as input");
  comp->add_flag("--with-ifetch", opt->with_ifetch, "Keep lackey's instruction fetches (data only by default)");
  comp->add_option("--points", opt->points, "Reference-point map (range/region lines, see docs/metric.md)");
  comp->add_option("-o,--output", opt->output, "Compressed trace to write")->required();
  add_source_options(comp, *opt);
  comp->callback([opt, &exit_code] { exit_code = run_compress(*opt, "metric compress"); });

  auto* exp = metric->add_subcommand("expand", "Regenerate the exact original stream from a compressed trace");
  exp->add_option("input", opt->input, "Compressed trace")->required();
  exp->add_option("-o,--output", opt->output, "Text file to write (default stdout)");
  exp->add_flag("--count", opt->count_only, "Only expand, verify and count");
  exp->callback([opt, &exit_code] { exit_code = run_expand(*opt); });

  auto* info = metric->add_subcommand("info", "Summarise a compressed trace");
  info->add_option("input", opt->input, "Compressed trace")->required();
  info->add_option("-o,--output", opt->output, "Write the summary here (default stdout)");
  info->add_flag("--descriptors", opt->descriptors, "List every RSD/PRSD");
  info->add_flag("--json", opt->json, "Print the figures as JSON");
  info->callback([opt, &exit_code] { exit_code = run_info(*opt); });

  auto* rep = metric->add_subcommand("report", "Cache analysis per reference point with evictors (the paper's Figs. 5-8)");
  rep->add_option("input", opt->input, "Compressed trace")->required();
  rep->add_option("--cache", opt->cache, "Cache: SIZE:ASSOC:LINE (default: the R12000 L1)")->capture_default_str();
  rep->add_option("-o,--output", opt->output, "Write the report here (default stdout)");
  rep->add_flag("--no-evictors", opt->no_evictors, "Leave out the evictor tables");
  rep->add_flag("--json", opt->json, "Print the report as JSON");
  rep->callback([opt, &exit_code] { exit_code = run_report(*opt); });
}
