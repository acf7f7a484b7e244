// hmtt synth PROFILE -o OUT: a synthetic trace regenerated from a profile made by
// `hmtt profile` (the method is recognised from the profile itself). OUT is an
// hmtt store (*.hmtt) or a trace file in any writable format. With --compare
// ORIGINAL, the synthetic trace is judged against the original as `hmtt compare`
// does (PSnAP hierarchies, 68-cache LRU sweep, locality surfaces).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "hmtt/analysis/compare.h"
#include "hmtt/analysis/demo_workload.h"
#include "hmtt/progress.h"
#include "hmtt/store/store.h"
#include "hmtt/tracefmt/reader.h"
#include "hmtt/tracefmt/writer.h"
#include "profilers.h"
#include "verb.h"

namespace {

using hmtt::analysis::Json;

struct SynthVerbOptions {
  std::string profile;
  std::string output;
  std::string format;
  std::uint64_t length = 0;
  std::uint64_t seed = 1;
  std::string compare_with;
  double max_error = -1;
  bool overwrite = false;
  bool json = false;
};

constexpr std::uintmax_t kMaxProfileBytes = 1ull << 30;

hmtt::Result<std::string> read_profile(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return hmtt::make_error(path + ": " + ec.message());
  if (size > kMaxProfileBytes) return hmtt::make_error(path + ": larger than 1 GiB; not a profile");
  std::ifstream f(path, std::ios::binary);
  if (!f) return hmtt::make_error(path + ": cannot open");
  std::string data(size, '\0');
  f.read(data.data(), static_cast<std::streamsize>(size));
  if (static_cast<std::uintmax_t>(f.gcount()) != size) return hmtt::make_error(path + ": short read");
  return data;
}

hmtt::Result<std::unique_ptr<hmtt::ReferenceSink>> open_output(const SynthVerbOptions& o, const std::string& method) {
  using namespace hmtt::tracefmt;
  Format f = Format::Auto;
  if (o.format.empty()) {
    f = format_from_extension(o.output);
    if (f == Format::Auto)
      return hmtt::make_error(o.output + ": give --format (store, " + format_names(false) + ")");
  } else {
    auto p = parse_format(o.format);
    if (!p) return p.error();
    f = *p;
  }
  if (f == Format::Store) {
    hmtt::store::CaptureInfo info;
    info.source = "synth:" + method;
    info.description = "synthesised by `hmtt synth` from " + o.profile;
    hmtt::store::WriterOptions wo;
    wo.overwrite = o.overwrite;
    auto w = hmtt::store::StoreWriter::create(o.output, info, wo);
    if (!w) return w.error();
    return std::unique_ptr<hmtt::ReferenceSink>(std::move(*w));
  }
  WriterOptions wo;
  wo.overwrite = o.overwrite;
  auto w = open_writer(o.output, f, wo);
  if (!w) return w.error();
  return std::unique_ptr<hmtt::ReferenceSink>(std::move(*w));
}

int run_synth(const SynthVerbOptions& o) {
  auto data = read_profile(o.profile);
  if (!data) return hmtt::app::fail("synth", data.error());
  std::unique_ptr<hmtt::analysis::Profiler> method;
  for (auto& p : hmtt::app::all_profilers())
    if (!method && p->recognizes(*data)) method = std::move(p);
  if (!method)
    return hmtt::app::fail("synth", hmtt::make_error(o.profile + ": not a profile of any method (`hmtt profile --list`)"));
  hmtt::analysis::SynthOptions so;
  so.length = o.length;
  so.seed = o.seed;
  auto src = method->synthesize(*data, so);
  if (!src) return hmtt::app::fail("synth", hmtt::make_error(o.profile + ": " + src.error().message));
  auto sink = open_output(o, std::string(method->name()));
  if (!sink) return hmtt::app::fail("synth", sink.error());
  hmtt::ProgressLine line("synth", o.length, !o.json && hmtt::ProgressLine::stderr_is_terminal());
  std::vector<hmtt::Reference> buf(4096);
  std::uint64_t total = 0;
  for (;;) {
    auto n = (*src)->read(buf);
    if (!n) return hmtt::app::fail("synth", n.error());
    if (*n == 0) break;
    if (auto s = (*sink)->write(std::span<const hmtt::Reference>(buf.data(), *n)); !s)
      return hmtt::app::fail("synth", s.error());
    total += *n;
    line.update(total, std::to_string(total / 1000000) + " M refs");
  }
  line.finish();
  if (auto s = (*sink)->finish(); !s) return hmtt::app::fail("synth", s.error());
  sink->reset();

  Json j;
  j["profile"] = o.profile;
  j["method"] = std::string(method->name());
  j["output"] = o.output;
  j["references"] = total;
  j["seed"] = o.seed;
  int rc = hmtt::app::kExitOk;
  std::ostringstream cmp_text;
  if (!o.compare_with.empty()) {
    auto a = hmtt::analysis::is_demo_spec(o.compare_with) ? hmtt::analysis::open_demo(o.compare_with)
                                                          : hmtt::tracefmt::open_trace(o.compare_with);
    if (!a) return hmtt::app::fail("synth", a.error());
    auto b = hmtt::tracefmt::open_trace(o.output);
    if (!b) return hmtt::app::fail("synth", b.error());
    hmtt::analysis::CompareOptions co;
    co.run.progress = !o.json;
    auto r = hmtt::analysis::compare(**a, **b, co);
    if (!r) return hmtt::app::fail("synth", r.error());
    j["compare"] = r->to_json();
    r->print(cmp_text);
    if (o.max_error >= 0 && (r->hierarchy_error.mean > o.max_error || r->lru_error.mean > o.max_error))
      rc = hmtt::app::kExitMismatch;
  }
  if (o.json) {
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("synthesised %llu references from %s (%.*s) -> %s\n", static_cast<unsigned long long>(total),
                o.profile.c_str(), static_cast<int>(method->name().size()), method->name().data(), o.output.c_str());
    if (!o.compare_with.empty()) std::cout << "A = " << o.compare_with << ", B = " << o.output << "\n" << cmp_text.str();
  }
  return rc;
}

}  // namespace

void setup_synth(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<SynthVerbOptions>();
  auto* cmd = app.add_subcommand("synth", "Regenerate a synthetic trace of any length from a profile (`hmtt profile`)");
  cmd->add_option("PROFILE", o->profile, "a profile file written by `hmtt profile`")->required();
  cmd->add_option("-o,--output", o->output, "the synthetic trace: a store (*.hmtt) or a trace file")->required();
  cmd->add_option("--format,-f", o->format, "output format (default: from the -o file name)");
  cmd->add_option("--length,-n", o->length, "references to generate (0 = as many as the original)");
  cmd->add_option("--seed", o->seed, "pseudo-random seed (same seed, same trace)")->capture_default_str();
  cmd->add_option("--compare", o->compare_with, "judge the result against the original trace (as `hmtt compare`)");
  cmd->add_option("--max-error", o->max_error,
                  "with --compare: exit 3 when the mean hierarchy hit-ratio error (local: each level's hits over "
                  "its own accesses) or the mean LRU-sweep error exceeds this");
  cmd->add_flag("--overwrite", o->overwrite, "replace an existing output");
  cmd->add_flag("--json", o->json, "print the summary as JSON");
  cmd->callback([o, &exit_code]() { exit_code = run_synth(*o); });
}
