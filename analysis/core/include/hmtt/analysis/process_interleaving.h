// Multicore impact on the memory controller (HMTT paper, section 6.2): the
// stream coverage rate of the mixed trace against each process's own SCR
// (Fig. 13b), and the run lengths of one process's consecutive references
// before another process interrupts (Fig. 13d).
//
// The process of a reference comes from, in order of preference: a side list
// of one pid per reference (PidList), the page map (the pid of the mapping),
// or Reference::source of CPU references (DMA references have no process).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "hmtt/analysis/page_map.h"
#include "hmtt/analysis/scr.h"
#include "hmtt/analysis/tool.h"

namespace hmtt::analysis {

// One pid per reference, in stream order. Text form: one line per run,
// "PID" (one reference) or "PID COUNT" (COUNT consecutive references).
struct PidList {
  std::vector<std::pair<std::uint32_t, std::uint64_t>> runs;  // (pid, count)
  std::uint64_t size() const;
  static Result<PidList> parse(std::string_view text, std::string_view file_name);
  static Result<PidList> load(const std::string& path);
};

struct ProcessKnobs {
  std::uint32_t window = 32;
  std::uint64_t line_bytes = 64;
  std::shared_ptr<const PidList> pids;      // preferred
  std::shared_ptr<const PageMap> page_map;  // else
};

struct ProcessResult {
  ScrCount mixed;
  std::map<std::uint32_t, ScrCount> per_process;
  std::uint64_t unattributed = 0;          // references without a pid (page map without a mapping)
  // Run lengths: run length -> number of runs (a run ends when the pid changes).
  std::map<std::uint64_t, std::uint64_t> runs;
  std::uint64_t run_count() const;
  // CDF of run lengths over runs: (length, fraction of runs with length <= it).
  std::vector<std::pair<std::uint64_t, double>> run_cdf() const;
};

std::unique_ptr<AnalysisTool> process_tool_create(const ProcessKnobs& knobs);

class ProcessTool final : public AnalysisTool {
 public:
  explicit ProcessTool(ProcessKnobs knobs) : knobs_(std::move(knobs)) {}
  std::string_view name() const override { return "process"; }
  Status init() override;
  Status process(std::span<const Reference> refs) override;
  Status finish() override;
  void print(std::ostream& out) const override;
  Json to_json() const override;
  const ProcessResult& result() const { return result_; }

 private:
  std::optional<std::uint32_t> pid_of(const Reference& r);
  ProcessKnobs knobs_;
  std::optional<StreamDetector> mixed_;
  std::unordered_map<std::uint32_t, StreamDetector> per_pid_;
  std::size_t run_index_ = 0;
  std::uint64_t run_left_ = 0;
  std::uint64_t seen_ = 0;
  std::optional<std::uint32_t> current_pid_;
  std::uint64_t current_run_ = 0;
  ProcessResult result_;
};

}  // namespace hmtt::analysis
