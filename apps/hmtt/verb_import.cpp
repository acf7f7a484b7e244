// hmtt import FILE [--format F] -o OUT.hmtt: a trace file into a trace store.
#include <cstdio>
#include <memory>
#include <string>

#include "hmtt/tracefmt/convert.h"
#include "verb.h"

namespace {

struct ImportVerbOptions {
  std::string input;
  std::string format = "auto";
  std::string output;
  std::uint64_t tick_ps = 0;
  bool overwrite = false;
  bool json = false;
};

void print_kinds(const std::uint64_t (&by_kind)[hmtt::kKindCount], bool json) {
  for (int k = 0; k < hmtt::kKindCount; ++k) {
    auto name = hmtt::kind_name(static_cast<hmtt::Kind>(k));
    if (json)
      std::printf("%s\"%.*s\": %llu", k ? ", " : "", static_cast<int>(name.size()), name.data(),
                  static_cast<unsigned long long>(by_kind[k]));
    else
      std::printf("  %-8.*s %llu\n", static_cast<int>(name.size()), name.data(),
                  static_cast<unsigned long long>(by_kind[k]));
  }
}

int run_import(const ImportVerbOptions& o) {
  using namespace hmtt::tracefmt;
  auto format = parse_format(o.format);
  if (!format) return hmtt::app::fail("import", format.error());
  ImportOptions opts;
  opts.format = *format;
  opts.overwrite = o.overwrite;
  opts.tick_ps = o.tick_ps;
  opts.progress = !o.json;
  auto s = import_trace(o.input, o.output, opts);
  if (!s) return hmtt::app::fail("import", s.error());
  const auto& c = s->counts;
  auto fname = format_name(s->format);
  if (o.json) {
    std::printf("{\"input\": %s, \"format\": \"%.*s\", \"output\": %s, \"bytes\": %llu, \"lines\": %llu, "
                "\"references\": %llu, \"by_kind\": {",
                hmtt::app::json_quote(o.input).c_str(), static_cast<int>(fname.size()), fname.data(), hmtt::app::json_quote(o.output).c_str(),
                static_cast<unsigned long long>(s->bytes), static_cast<unsigned long long>(c.lines),
                static_cast<unsigned long long>(c.references));
    print_kinds(c.by_kind, true);
    std::printf("}, \"skipped_records\": %llu, \"ignored_lines\": %llu}\n",
                static_cast<unsigned long long>(c.skipped_records), static_cast<unsigned long long>(c.ignored_lines));
  } else {
    std::printf("imported %s (%.*s, %llu lines) into %s: %llu references\n", o.input.c_str(),
                static_cast<int>(fname.size()), fname.data(), static_cast<unsigned long long>(c.lines),
                o.output.c_str(), static_cast<unsigned long long>(c.references));
    print_kinds(c.by_kind, false);
    if (c.skipped_records)
      std::printf("  skipped  %llu records that are not references (Dinero flush/invalidate)\n",
                  static_cast<unsigned long long>(c.skipped_records));
  }
  return hmtt::app::kExitOk;
}

}  // namespace

void setup_import(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ImportVerbOptions>();
  auto* cmd = app.add_subcommand("import", "Read a trace file (" + hmtt::tracefmt::format_names(false) +
                                               ") into an hmtt trace store");
  cmd->add_option("FILE", o->input, "trace file to read")->required();
  cmd->add_option("--format,-f", o->format,
                  "input format: auto (from the name, then the content) or one of " +
                      hmtt::tracefmt::format_names(false))
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output, "the store to create (.hmtt)")->required();
  cmd->add_option("--tick-ps", o->tick_ps,
                  "picoseconds per time unit of a timed input (DRAMsim3/DRAMSys cycles, CSV time); 0 = unknown")
      ->capture_default_str();
  cmd->add_flag("--overwrite", o->overwrite, "replace an existing store");
  cmd->add_flag("--json", o->json, "print the summary as JSON");
  cmd->callback([o, &exit_code]() { exit_code = run_import(*o); });
}
