// The analysis tool contract (after drcachesim's analysis_tool): one analysis
// is one class that consumes the reference stream, and several tools see every
// reference in one pass through a ToolRunner.
//
// Life cycle, in this order:
//   init()        once, before any reference. An error means the tool cannot
//                 run (bad knobs, unreadable side input); the runner stops
//                 before reading the trace and returns that error.
//   process(refs) once per batch, references in stream order. An error stops
//                 the whole run (the runner returns it).
//   finish()      once, after the last batch. Tools compute derived figures
//                 here; an error is returned by the runner.
//   print()/to_json()  any time after finish(): the results, for people and
//                 for programs. Each tool also returns its results as a value
//                 (`result()` on the concrete class).
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "hmtt/reference.h"
#include "hmtt/result.h"
#include "hmtt/stream.h"

namespace hmtt::analysis {

using Json = nlohmann::ordered_json;

class AnalysisTool {
 public:
  virtual ~AnalysisTool() = default;
  // Short name, as given to `hmtt analyze --with`.
  virtual std::string_view name() const = 0;
  // Set-up that may fail; see the life cycle above.
  virtual Status init() { return Status::success(); }
  // Consumes one batch of references (stream order).
  virtual Status process(std::span<const Reference> refs) = 0;
  // Called after the last batch.
  virtual Status finish() { return Status::success(); }
  // Human-readable results.
  virtual void print(std::ostream& out) const = 0;
  // Machine-readable results.
  virtual Json to_json() const = 0;
};

struct RunOptions {
  std::size_t batch = 4096;     // references per read() and per process()
  bool progress = true;         // progress line on a terminal (stderr)
  std::uint64_t limit = 0;      // stop after this many references; 0 = all
  // The file the references come from, when they come from one (an hmtt
  // store, a trace file): a profiler may read its side tables, e.g. PSnAP a
  // store's I-Code events for its loops. Empty: unknown.
  std::string trace_path = {};
};

// Feeds one ReferenceSource through several tools in one pass: init() all,
// process() every batch with every tool, finish() all. Returns the number of
// references read, or the first error (named by the tool that raised it).
Result<std::uint64_t> run_tools(ReferenceSource& source, std::span<AnalysisTool* const> tools,
                                const RunOptions& options = {});

// Convenience: the same over owned tools.
Result<std::uint64_t> run_tools(ReferenceSource& source,
                                const std::vector<std::unique_ptr<AnalysisTool>>& tools,
                                const RunOptions& options = {});

}  // namespace hmtt::analysis
