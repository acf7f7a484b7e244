// hmtt export TRACE --format F -o FILE: a store (or any trace file) into a trace file.
#include <cstdio>
#include <memory>
#include <string>

#include "hmtt/tracefmt/convert.h"
#include "verb.h"

namespace {

struct ExportVerbOptions {
  std::string input;
  std::string input_format = "auto";
  std::string format;
  std::string output;
  bool overwrite = false;
  bool json = false;
};

int run_export(const ExportVerbOptions& o) {
  using namespace hmtt::tracefmt;
  ExportOptions opts;
  auto in_format = parse_format(o.input_format);
  if (!in_format) return hmtt::app::fail("export", in_format.error());
  opts.input_format = *in_format;
  if (o.format.empty()) {
    opts.format = format_from_extension(o.output);
    if (opts.format == Format::Auto || opts.format == Format::Store)
      return hmtt::app::fail("export", hmtt::make_error(o.output + ": give --format (" + format_names(false) + ")"));
  } else {
    auto f = parse_format(o.format);
    if (!f) return hmtt::app::fail("export", f.error());
    opts.format = *f;
  }
  opts.overwrite = o.overwrite;
  opts.progress = !o.json;
  auto s = export_trace(o.input, o.output, opts);
  if (!s) return hmtt::app::fail("export", s.error());
  const auto& c = s->counts;
  auto fname = format_name(opts.format);
  // With -o - the trace is standard output; the summary goes to standard error.
  std::FILE* out = o.output == "-" ? stderr : stdout;
  if (o.json) {
    std::fprintf(out, "{\"input\": %s, \"output\": %s, \"format\": \"%.*s\", \"references\": %llu, \"by_kind\": {",
                hmtt::app::json_quote(o.input).c_str(), hmtt::app::json_quote(o.output).c_str(), static_cast<int>(fname.size()), fname.data(),
                static_cast<unsigned long long>(c.references));
    for (int k = 0; k < hmtt::kKindCount; ++k) {
      auto name = hmtt::kind_name(static_cast<hmtt::Kind>(k));
      std::fprintf(out, "%s\"%.*s\": %llu", k ? ", " : "", static_cast<int>(name.size()), name.data(),
                  static_cast<unsigned long long>(c.by_kind[k]));
    }
    std::fprintf(out, "}, \"kind_normalised\": %llu, \"bytes\": %llu}\n", static_cast<unsigned long long>(c.kind_normalised),
                static_cast<unsigned long long>(c.bytes));
  } else {
    std::fprintf(out, "exported %llu references from %s to %s (%.*s, %llu bytes)\n",
                static_cast<unsigned long long>(c.references), o.input.c_str(), o.output.c_str(),
                static_cast<int>(fname.size()), fname.data(), static_cast<unsigned long long>(c.bytes));
    for (int k = 0; k < hmtt::kKindCount; ++k) {
      auto name = hmtt::kind_name(static_cast<hmtt::Kind>(k));
      std::fprintf(out, "  %-8.*s %llu\n", static_cast<int>(name.size()), name.data(),
                  static_cast<unsigned long long>(c.by_kind[k]));
    }
    if (c.kind_normalised)
      std::fprintf(out, "  %llu references written as another kind (the format has no ifetch/modify; see "
                  "docs/trace-formats.md)\n",
                  static_cast<unsigned long long>(c.kind_normalised));
  }
  return hmtt::app::kExitOk;
}

}  // namespace

void setup_export(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ExportVerbOptions>();
  auto* cmd = app.add_subcommand("export", "Write the references of a store (or of any trace file) to a trace file");
  cmd->add_option("TRACE", o->input, "an hmtt store, or a trace file in any readable format")->required();
  cmd->add_option("--format,-f", o->format,
                  "output format: " + hmtt::tracefmt::format_names(false) + " (default: from the -o file name)");
  cmd->add_option("--input-format", o->input_format, "format of TRACE (default: auto)")->capture_default_str();
  cmd->add_option("-o,--output", o->output, "the trace file to write; - for standard output (give --format; the summary goes to standard error)")->required();
  cmd->add_flag("--overwrite", o->overwrite, "replace an existing file");
  cmd->add_flag("--json", o->json, "print the summary as JSON");
  cmd->callback([o, &exit_code]() { exit_code = run_export(*o); });
}
