// The virtual bench's verdict (docs/vbench.md): what the board captured from a
// real Linux guest, checked against the LLC model's own counts and against the
// kernel module's page-map log, as the HMTT paper's Appendix A verifies the
// hardware (record counts against a DRAM access counter, physical addresses of
// micro-benchmarks against their patterns, virtual-address recovery).
//
// Inputs are the files vbench.sh leaves in its work directory: the store
// (references, config-space events, the aligned page-map log), the plugin's
// trace (what was handed to the memory controller, with user/kernel labels)
// and its summary, and the guest console's HMTT-VBENCH-REGION lines.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hmtt/result.h"

namespace hmtt::vbench {

// One measured workload, from its HMTT-VBENCH-REGION line.
struct WorkloadRegion {
  std::string workload;
  std::uint32_t pid = 0;
  std::uint64_t vaddr = 0;
  std::uint64_t bytes = 0;
  std::uint64_t count = 0;  // random-read: lines read; quicksort: elements; matmul: order
};

// The REGION lines of a guest console, in order; a malformed one is an error naming its line.
Result<std::vector<WorkloadRegion>> parse_regions(std::string_view console);

struct Check {
  std::string name;
  bool pass = false;
  std::string detail;  // the figures behind the verdict
};

struct VbenchReport {
  std::vector<Check> checks;
  std::string json;  // every figure and check, one JSON object
  bool all_pass() const;
};

struct VbenchInputs {
  std::string store;           // vbench.hmtt
  std::string plugin_trace;    // llc.csv
  std::string plugin_summary;  // llc.json
  std::string console;         // console.txt (the REGION lines)
};

// Runs every check. An unreadable or inconsistent input is an error naming the file.
Result<VbenchReport> check_vbench(const VbenchInputs& in);

}  // namespace hmtt::vbench
