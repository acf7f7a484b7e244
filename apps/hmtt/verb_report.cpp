// hmtt report TRACE [B] -o report.html: a self-contained HTML page with the
// figures of TRACE, and the comparison with B when given.
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "hmtt/analysis/demo_workload.h"
#include "hmtt/analysis/report.h"
#include "verb.h"
#if __has_include("hmtt/tracefmt/reader.h")
#include "hmtt/tracefmt/reader.h"
#define HMTT_REPORT_HAVE_TRACEFMT 1
#endif

namespace {

struct ReportVerbOptions {
  std::string a, b;
  std::string output = "report.html";
  std::string title;
  std::string hierarchy = "psnap";
  std::string page_map;
  std::uint64_t page_bytes = 4096;
  double tick_ps = 5000;
  std::uint64_t interval_ticks = 200000;
  std::uint64_t limit = 0;
  bool json = false;
};

hmtt::Result<std::unique_ptr<hmtt::ReferenceSource>> open_input(const std::string& spec) {
  if (hmtt::analysis::is_demo_spec(spec)) return hmtt::analysis::open_demo(spec);
#ifdef HMTT_REPORT_HAVE_TRACEFMT
  return hmtt::tracefmt::open_trace(spec);
#else
  return hmtt::make_error(spec + ": this build reads no trace files yet (tracefmt missing); use demo[:N[:SEED]]");
#endif
}

int run_report(const ReportVerbOptions& o) {
  using namespace hmtt::analysis;
  ReportOptions ro;
  ro.title = o.title.empty() ? "hmtt report: " + o.a + (o.b.empty() ? "" : " vs " + o.b) : o.title;
  ro.name_a = o.a;
  ro.name_b = o.b;
  ro.hierarchy = o.hierarchy;
  ro.bandwidth.tick_ps = o.tick_ps;
  ro.bandwidth.interval_ticks = o.interval_ticks;
  ro.run.limit = o.limit;
  if (!o.page_map.empty()) {
    auto pm = PageMap::load(o.page_map, o.page_bytes);
    if (!pm) return hmtt::app::fail("report", pm.error());
    ro.scr.page_map = std::make_shared<const PageMap>(std::move(*pm));
  }
  auto a = open_input(o.a);
  if (!a) return hmtt::app::fail("report", a.error());
  std::unique_ptr<hmtt::ReferenceSource> b;
  if (!o.b.empty()) {
    auto opened = open_input(o.b);
    if (!opened) return hmtt::app::fail("report", opened.error());
    b = std::move(*opened);
  }
  auto r = render_report(**a, b.get(), ro);
  if (!r) return hmtt::app::fail("report", r.error());
  std::ofstream f(o.output, std::ios::binary);
  f << r->html;
  f.close();
  if (!f) return hmtt::app::fail("report", hmtt::make_error(o.output + ": cannot write"));
  if (o.json) {
    Json j;
    j["output"] = o.output;
    j["bytes"] = r->html.size();
    j["figures"] = r->figures;
    if (r->comparison) j["comparison"] = r->comparison->to_json();
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "wrote " << o.output << " (" << r->html.size() << " bytes, " << r->figures << " figures)\n";
  }
  return hmtt::app::kExitOk;
}

}  // namespace

void setup_report(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ReportVerbOptions>();
  auto* cmd = app.add_subcommand("report", "Write a self-contained HTML report of a trace (and its comparison with B)");
  cmd->add_option("TRACE", o->a, "trace file or store; or demo[:N[:SEED]]")->required();
  cmd->add_option("B", o->b, "optional second trace (e.g. synthetic) compared against TRACE");
  cmd->add_option("-o,--output", o->output, "the HTML file to write")->capture_default_str();
  cmd->add_option("--title", o->title, "page title");
  cmd->add_option("--hierarchy", o->hierarchy, "built-in 'psnap' or a hierarchy file")->capture_default_str();
  cmd->add_option("--page-map", o->page_map, "page-map log for the virtual SCR");
  cmd->add_option("--page-bytes", o->page_bytes, "page size of the page map")->capture_default_str();
  cmd->add_option("--tick-ps", o->tick_ps, "picoseconds per trace tick")->capture_default_str();
  cmd->add_option("--interval-ticks", o->interval_ticks, "bandwidth interval in ticks")->capture_default_str();
  cmd->add_option("--limit", o->limit, "use at most this many references of each trace (0 = all)")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "print a JSON summary (and the comparison) instead of one line");
  cmd->callback([o, &exit_code]() { exit_code = run_report(*o); });
}
