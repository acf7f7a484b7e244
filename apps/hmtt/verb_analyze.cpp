// hmtt analyze TRACE --with cache,reuse,scr,...: several analyses in one pass.
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "hmtt/analysis/demo_workload.h"
#include "hmtt/analysis/hierarchy.h"
#include "hmtt/analysis/tool_registry.h"
#include "hmtt/store/store.h"
#include "verb.h"
#if __has_include("hmtt/tracefmt/reader.h")
#include "hmtt/tracefmt/reader.h"
#define HMTT_ANALYZE_HAVE_TRACEFMT 1
#endif

namespace {

struct AnalyzeVerbOptions {
  std::string trace;
  std::string with = "cache,reuse,scr,dma,bandwidth";
  std::string hierarchy = "psnap";
  std::uint64_t block = 64;
  double sampled = 0;
  bool verify = false;
  std::vector<std::uint32_t> windows = {8, 16, 32, 64};
  std::uint64_t line = 64;
  std::string page_map;
  std::uint64_t page_bytes = 4096;
  std::string pids;
  double tick_ps = 5000;
  std::uint64_t interval_ticks = 200000;
  std::uint64_t limit = 0;
  bool list = false;
  bool show_hierarchy = false;
  bool json = false;
  std::string output;
};

hmtt::Result<std::unique_ptr<hmtt::ReferenceSource>> open_input(const std::string& spec) {
  if (hmtt::analysis::is_demo_spec(spec)) return hmtt::analysis::open_demo(spec);
#ifdef HMTT_ANALYZE_HAVE_TRACEFMT
  return hmtt::tracefmt::open_trace(spec);
#else
  return hmtt::make_error(spec + ": this build reads no trace files yet (tracefmt missing); use demo[:N[:SEED]]");
#endif
}

int run_analyze(const AnalyzeVerbOptions& o) {
  using namespace hmtt::analysis;
  if (o.list) {
    for (const auto& t : tool_catalog()) std::printf("%-10.*s %.*s\n", static_cast<int>(t.name.size()), t.name.data(),
                                                     static_cast<int>(t.summary.size()), t.summary.data());
    return hmtt::app::kExitOk;
  }
  if (o.show_hierarchy) {
    auto h = load_hierarchies(o.hierarchy);
    if (!h) return hmtt::app::fail("analyze", h.error());
    std::printf("%s", format_hierarchies(*h).c_str());
    return hmtt::app::kExitOk;
  }
  ToolSettings s;
  s.cache.hierarchy = o.hierarchy;
  s.reuse.block_bytes = o.block;
  s.reuse.sampled = o.sampled > 0;
  if (o.sampled > 0) s.reuse.rate = o.sampled;
  s.reuse.verify = o.verify;
  s.scr.windows = o.windows;
  s.scr.line_bytes = o.line;
  s.process.line_bytes = o.line;
  s.bandwidth.tick_ps = o.tick_ps;
  s.bandwidth.interval_ticks = o.interval_ticks;
  if (!o.page_map.empty()) {
    auto pm = PageMap::load(o.page_map, o.page_bytes);
    if (!pm) return hmtt::app::fail("analyze", pm.error());
    auto shared = std::make_shared<const PageMap>(std::move(*pm));
    s.scr.page_map = shared;
    s.process.page_map = shared;
  } else if (hmtt::store::looks_like_store(o.trace)) {
    // A capture with the kernel's page-map log (`hmtt logs --store`): its mappings,
    // each from the trace time its sync tag gave it (unaligned ones from time 0).
    auto reader = hmtt::store::StoreReader::open(o.trace);
    if (!reader) return hmtt::app::fail("analyze", reader.error());
    auto rows = (*reader)->page_map();
    if (!rows) return hmtt::app::fail("analyze", rows.error());
    if (!rows->empty()) {
      PageMap pm(o.page_bytes);
      for (const auto& r : *rows)
        if (!r.unmap) pm.add({r.time, r.pid, r.ppage, r.vpage});
      auto shared = std::make_shared<const PageMap>(std::move(pm));
      s.scr.page_map = shared;
      s.process.page_map = shared;
    }
  }
  if (!o.pids.empty()) {
    auto pl = PidList::load(o.pids);
    if (!pl) return hmtt::app::fail("analyze", pl.error());
    s.process.pids = std::make_shared<const PidList>(std::move(*pl));
  }
  auto tools = make_tools(o.with, s);
  if (!tools) return hmtt::app::fail("analyze", tools.error());
  auto src = open_input(o.trace);
  if (!src) return hmtt::app::fail("analyze", src.error());
  RunOptions ro;
  ro.limit = o.limit;
  auto n = run_tools(**src, *tools, ro);
  if (!n) return hmtt::app::fail("analyze", hmtt::make_error(o.trace + ": " + n.error().message));
  std::ostringstream text;
  if (o.json) {
    Json j;
    j["trace"] = o.trace;
    j["references"] = *n;
    Json a = Json::object();
    for (const auto& t : *tools) a[std::string(t->name())] = t->to_json();
    j["analyses"] = a;
    text << j.dump(2) << "\n";
  } else {
    text << o.trace << ": " << *n << " references\n\n";
    for (const auto& t : *tools) {
      t->print(text);
      text << "\n";
    }
  }
  if (o.output.empty()) {
    std::cout << text.str();
  } else {
    std::ofstream f(o.output, std::ios::binary);
    f << text.str();
    if (!f) return hmtt::app::fail("analyze", hmtt::make_error(o.output + ": cannot write"));
  }
  return hmtt::app::kExitOk;
}

}  // namespace

void setup_analyze(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<AnalyzeVerbOptions>();
  auto* cmd = app.add_subcommand("analyze", "Run several analyses over a trace in one pass (--list shows them)");
  cmd->add_option("TRACE", o->trace, "trace file or store; or demo[:N[:SEED]] for the built-in workload");
  cmd->add_option("--with,-w", o->with, "comma-separated analyses, or 'all'")->capture_default_str();
  cmd->add_flag("--list", o->list, "list the analyses and exit");
  cmd->add_flag("--show-hierarchy", o->show_hierarchy, "print the --hierarchy set in the hierarchy-file format and exit");
  cmd->add_option("--hierarchy", o->hierarchy, "cache: built-in 'psnap' (PSnAP Table 1) or a hierarchy file")
      ->capture_default_str();
  cmd->add_option("--block", o->block, "reuse: block size in bytes")->capture_default_str();
  cmd->add_option("--sampled", o->sampled, "reuse: SHARDS sampling rate in (0,1]; 0 = exact")->capture_default_str();
  cmd->add_flag("--verify", o->verify, "reuse: with --sampled, also run exact and report the error");
  cmd->add_option("--windows", o->windows, "scr: detection window sizes")->delimiter(',')->capture_default_str();
  cmd->add_option("--line", o->line, "scr, process: cache-line size in bytes")->capture_default_str();
  cmd->add_option("--page-map", o->page_map,
                  "scr, process: page-map log 'TIME PID PHYS_PAGE VIRT_PAGE' per line (default for a store: its "
                  "page_map table, from `hmtt logs --store`)");
  cmd->add_option("--page-bytes", o->page_bytes, "page size of the page map")->capture_default_str();
  cmd->add_option("--pids", o->pids, "process: one 'PID [COUNT]' line per run of references");
  cmd->add_option("--tick-ps", o->tick_ps, "bandwidth: picoseconds per trace tick")->capture_default_str();
  cmd->add_option("--interval-ticks", o->interval_ticks, "bandwidth: ticks per interval")->capture_default_str();
  cmd->add_option("--limit", o->limit, "stop after this many references (0 = all)")->capture_default_str();
  cmd->add_flag("--json", o->json, "print the results as JSON");
  cmd->add_option("-o,--output", o->output, "write the results to FILE instead of stdout");
  cmd->callback([o, cmd, &exit_code]() {
    if (o->trace.empty() && !o->list && !o->show_hierarchy) {
      std::fprintf(stderr, "hmtt analyze: a TRACE is required\n%s", cmd->help().c_str());
      exit_code = hmtt::app::kExitUsage;
      return;
    }
    exit_code = run_analyze(*o);
  });
}
