// Fuzz harness for the text inputs of the analysis core: hierarchy files, the
// page-map log and the pid list. The first byte picks the parser; whatever
// parses is then used (a small hierarchy simulates a few references, the page
// map translates, the pid list is summed), so accepted input must be usable.
#include <cstdint>
#include <string_view>

#include "hmtt/analysis/hierarchy.h"
#include "hmtt/analysis/page_map.h"
#include "hmtt/analysis/process_interleaving.h"

using namespace hmtt;
using namespace hmtt::analysis;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 3) {
    case 0: {
      auto h = parse_hierarchies(text, "fuzz");
      if (!h) return 0;
      std::uint64_t lines = 0;
      for (const auto& hc : *h)
        for (const auto& l : hc.levels) {
          lines += l.data.size_bytes / l.data.line_bytes;
          if (l.instruction) lines += l.instruction->size_bytes / l.instruction->line_bytes;
        }
      if (lines > (1u << 16)) return 0;  // keep memory small; geometry was validated
      auto sim = HierarchySimulator::create(*h);
      if (!sim) return 0;
      Reference r;
      for (std::uint64_t i = 0; i < 64; ++i) {
        r.address = i * 0x9e3779b97f4a7c15ULL >> 40;
        r.size = static_cast<std::uint32_t>(i % 70);
        r.kind = static_cast<Kind>(i % 4);
        sim->access(r);
      }
      (void)sim->results();
      (void)format_hierarchies(*h);
      break;
    }
    case 1: {
      auto pm = PageMap::parse(text, "fuzz", 4096);
      if (!pm) return 0;
      for (std::uint64_t a = 0; a < 1u << 16; a += 4093) (void)pm->translate(a, a);
      (void)pm->remap_histogram();
      break;
    }
    default: {
      auto pl = PidList::parse(text, "fuzz");
      if (pl) (void)pl->size();
      break;
    }
  }
  return 0;
}
