#include "hmtt/analysis/tool.h"

#include <algorithm>

#include "hmtt/progress.h"

namespace hmtt::analysis {

namespace {
Error named(std::string_view tool, const Error& e) {
  return make_error(std::string(tool) + ": " + e.message);
}
}  // namespace

Result<std::uint64_t> run_tools(ReferenceSource& source, std::span<AnalysisTool* const> tools,
                                const RunOptions& options) {
  for (AnalysisTool* t : tools) {
    auto st = t->init();
    if (!st) return named(t->name(), st.error());
  }
  std::vector<Reference> buf(std::max<std::size_t>(options.batch, 1));
  ProgressLine progress("analyze", 0, options.progress && ProgressLine::stderr_is_terminal());
  std::uint64_t total = 0;
  for (;;) {
    std::span<Reference> want(buf);
    if (options.limit != 0) {
      if (total >= options.limit) break;
      want = want.first(static_cast<std::size_t>(
          std::min<std::uint64_t>(want.size(), options.limit - total)));
    }
    auto n = source.read(want);
    if (!n) return n.error();
    if (*n == 0) break;
    std::span<const Reference> batch(buf.data(), *n);
    for (AnalysisTool* t : tools) {
      auto st = t->process(batch);
      if (!st) return named(t->name(), st.error());
    }
    total += *n;
    progress.update(total, std::to_string(total / 1000000) + " M refs");
  }
  progress.finish();
  for (AnalysisTool* t : tools) {
    auto st = t->finish();
    if (!st) return named(t->name(), st.error());
  }
  return total;
}

Result<std::uint64_t> run_tools(ReferenceSource& source,
                                const std::vector<std::unique_ptr<AnalysisTool>>& tools,
                                const RunOptions& options) {
  std::vector<AnalysisTool*> raw;
  raw.reserve(tools.size());
  for (const auto& t : tools) raw.push_back(t.get());
  return run_tools(source, std::span<AnalysisTool* const>(raw), options);
}

}  // namespace hmtt::analysis
