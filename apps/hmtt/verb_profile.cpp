// hmtt profile TRACE --method NAME -o PROFILE: a compact profile of a trace
// (Chameleon signature, PSnAP profile, ...), from which `hmtt synth` regenerates
// synthetic traces. `hmtt profile --list` names the methods and their knobs.
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <unistd.h>

#include "hmtt/analysis/demo_workload.h"
#include "hmtt/tracefmt/reader.h"
#include "profilers.h"
#include "verb.h"

namespace {

using hmtt::analysis::Json;

struct ProfileVerbOptions {
  std::string trace;
  std::string method;
  std::string output;
  std::vector<std::string> params;
  std::uint64_t limit = 0;
  bool list = false;
  bool overwrite = false;
  bool json = false;
};

// Writes `data` to `path` through a temporary file and a rename, so an
// interrupted run never leaves a half-written profile under the final name.
hmtt::Status write_file_atomically(const std::string& path, const std::string& data, bool overwrite) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!overwrite && fs::exists(path, ec)) return hmtt::make_error(path + ": exists (give --overwrite)");
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return hmtt::make_error(tmp + ": cannot create");
    f.write(data.data(), static_cast<std::streamsize>(data.size()));
    f.flush();
    if (!f) {
      fs::remove(tmp, ec);
      return hmtt::make_error(tmp + ": write failed");
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return hmtt::make_error(path + ": cannot rename into place: " + ec.message());
  }
  return hmtt::Status::success();
}

int list_methods(bool json) {
  auto all = hmtt::app::all_profilers();
  if (json) {
    Json j = Json::array();
    for (const auto& p : all) {
      Json m;
      m["method"] = std::string(p->name());
      m["summary"] = std::string(p->summary());
      Json params = Json::array();
      for (const auto& k : p->params())
        params.push_back({{"name", k.name}, {"default", k.default_value}, {"help", k.help}});
      m["params"] = params;
      j.push_back(m);
    }
    std::cout << j.dump(2) << "\n";
    return hmtt::app::kExitOk;
  }
  for (const auto& p : all) {
    std::printf("%-10.*s %.*s\n", static_cast<int>(p->name().size()), p->name().data(),
                static_cast<int>(p->summary().size()), p->summary().data());
    for (const auto& k : p->params())
      std::printf("    --param %s=%s  %s\n", k.name.c_str(), k.default_value.c_str(), k.help.c_str());
  }
  return hmtt::app::kExitOk;
}

int run_profile(const ProfileVerbOptions& o) {
  if (o.list) return list_methods(o.json);
  if (o.trace.empty() || o.method.empty() || o.output.empty()) {
    std::fprintf(stderr, "hmtt profile: give TRACE, --method and -o (or --list)\n");
    return hmtt::app::kExitUsage;
  }
  std::unique_ptr<hmtt::analysis::Profiler> method;
  std::string names;
  for (auto& p : hmtt::app::all_profilers()) {
    names += (names.empty() ? "" : ", ") + std::string(p->name());
    if (p->name() == o.method) method = std::move(p);
  }
  if (!method) {
    std::fprintf(stderr, "hmtt profile: unknown method '%s' (one of: %s)\n", o.method.c_str(), names.c_str());
    return hmtt::app::kExitUsage;
  }
  auto params = hmtt::analysis::ProfileParams::parse(o.params, method->params());
  if (!params) {
    std::fprintf(stderr, "hmtt profile: %s\n", params.error().message.c_str());
    return hmtt::app::kExitUsage;
  }
  auto src = hmtt::analysis::is_demo_spec(o.trace) ? hmtt::analysis::open_demo(o.trace)
                                                  : hmtt::tracefmt::open_trace(o.trace);
  if (!src) return hmtt::app::fail("profile", src.error());
  hmtt::analysis::RunOptions run;
  run.limit = o.limit;
  run.progress = !o.json;
  if (!hmtt::analysis::is_demo_spec(o.trace)) run.trace_path = o.trace;
  auto out = method->profile(**src, *params, run);
  if (!out) return hmtt::app::fail("profile", hmtt::make_error(o.trace + ": " + out.error().message));
  if (auto s = write_file_atomically(o.output, out->data, o.overwrite); !s) return hmtt::app::fail("profile", s.error());
  std::uintmax_t trace_bytes = 0;
  std::error_code ec;
  if (!hmtt::analysis::is_demo_spec(o.trace)) trace_bytes = std::filesystem::file_size(o.trace, ec);
  if (ec) trace_bytes = 0;
  Json j;
  j["method"] = o.method;
  j["trace"] = o.trace;
  j["profile"] = o.output;
  j["profile_format"] = out->format;
  j["profile_bytes"] = out->data.size();
  if (trace_bytes) {
    j["trace_bytes"] = trace_bytes;
    j["size_ratio"] = static_cast<double>(out->data.size()) / static_cast<double>(trace_bytes);
  }
  j["summary"] = out->summary;
  if (o.json) {
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("profiled %s with %s -> %s (%zu bytes, %s)\n", o.trace.c_str(), o.method.c_str(), o.output.c_str(),
                out->data.size(), out->format.c_str());
    if (trace_bytes)
      std::printf("  %.4f%% of the trace file's %ju bytes\n",
                  100.0 * static_cast<double>(out->data.size()) / static_cast<double>(trace_bytes), trace_bytes);
    for (const auto& [k, v] : out->summary.items()) std::printf("  %-24s %s\n", k.c_str(), v.dump().c_str());
  }
  return hmtt::app::kExitOk;
}

}  // namespace

void setup_profile(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ProfileVerbOptions>();
  auto* cmd = app.add_subcommand(
      "profile", "Build a compact profile of a trace (Chameleon, PSnAP, METRIC, HHnHMM, ...) for `hmtt synth`");
  cmd->add_option("TRACE", o->trace, "an hmtt store, a trace file in any readable format, or demo[:N[:SEED]]");
  cmd->add_option("--method,-m", o->method, "the profiling method (see --list)");
  cmd->add_option("-o,--output", o->output, "the profile file to write");
  cmd->add_option("--param,-p", o->params, "a method knob as key=value (repeatable; see --list)");
  cmd->add_option("--limit", o->limit, "profile only the first N references (0 = all)");
  cmd->add_flag("--list", o->list, "list the methods and their knobs");
  cmd->add_flag("--overwrite", o->overwrite, "replace an existing profile file");
  cmd->add_flag("--json", o->json, "print the summary as JSON");
  cmd->callback([o, &exit_code]() { exit_code = run_profile(*o); });
}
