// hmtt compare A B: how closely trace B reproduces trace A (hit-ratio errors on
// the PSnAP hierarchies and an LRU sweep, locality-surface distance).
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "hmtt/analysis/compare.h"
#include "hmtt/analysis/demo_workload.h"
#include "verb.h"
#if __has_include("hmtt/tracefmt/reader.h")
#include "hmtt/tracefmt/reader.h"
#define HMTT_COMPARE_HAVE_TRACEFMT 1
#endif

namespace {

struct CompareVerbOptions {
  std::string a, b;
  std::string hierarchy = "psnap";
  std::uint64_t limit = 0;
  double max_error = -1;  // when >= 0: exit 3 if the mean hierarchy or LRU error exceeds it
  bool json = false;
  std::string output;
};

hmtt::Result<std::unique_ptr<hmtt::ReferenceSource>> open_input(const std::string& spec) {
  if (hmtt::analysis::is_demo_spec(spec)) return hmtt::analysis::open_demo(spec);
#ifdef HMTT_COMPARE_HAVE_TRACEFMT
  return hmtt::tracefmt::open_trace(spec);
#else
  return hmtt::make_error(spec + ": this build reads no trace files yet (tracefmt missing); use demo[:N[:SEED]]");
#endif
}

int run_compare(const CompareVerbOptions& o) {
  using namespace hmtt::analysis;
  auto a = open_input(o.a);
  if (!a) return hmtt::app::fail("compare", a.error());
  auto b = open_input(o.b);
  if (!b) return hmtt::app::fail("compare", b.error());
  CompareOptions co;
  co.hierarchy = o.hierarchy;
  co.run.limit = o.limit;
  auto r = compare(**a, **b, co);
  if (!r) return hmtt::app::fail("compare", r.error());
  std::ostringstream text;
  if (o.json) {
    Json j = r->to_json();
    j["a"] = o.a;
    j["b"] = o.b;
    text << j.dump(2) << "\n";
  } else {
    text << "A = " << o.a << ", B = " << o.b << "\n";
    r->print(text);
  }
  if (o.output.empty()) {
    std::cout << text.str();
  } else {
    std::ofstream f(o.output, std::ios::binary);
    f << text.str();
    if (!f) return hmtt::app::fail("compare", hmtt::make_error(o.output + ": cannot write"));
  }
  if (o.max_error >= 0 && (r->hierarchy_error.mean > o.max_error || r->lru_error.mean > o.max_error))
    return hmtt::app::kExitMismatch;
  return hmtt::app::kExitOk;
}

}  // namespace

void setup_compare(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<CompareVerbOptions>();
  auto* cmd = app.add_subcommand(
      "compare", "Compare trace B (e.g. synthetic) with trace A: hit-ratio errors and locality-surface distance");
  cmd->add_option("A", o->a, "original trace (file, store, or demo[:N[:SEED]])")->required();
  cmd->add_option("B", o->b, "trace to judge against A")->required();
  cmd->add_option("--hierarchy", o->hierarchy, "built-in 'psnap' (PSnAP Table 1) or a hierarchy file")
      ->capture_default_str();
  cmd->add_option("--limit", o->limit, "use at most this many references of each trace (0 = all)")
      ->capture_default_str();
  cmd->add_option("--max-error", o->max_error,
                  "exit 3 when the mean hierarchy hit-ratio error (local: each level's hits over its own accesses) or "
                  "the mean LRU-sweep error exceeds this (e.g. 0.02)");
  cmd->add_flag("--json", o->json, "print the results as JSON");
  cmd->add_option("-o,--output", o->output, "write the results to FILE instead of stdout");
  cmd->callback([o, &exit_code]() { exit_code = run_compare(*o); });
}
