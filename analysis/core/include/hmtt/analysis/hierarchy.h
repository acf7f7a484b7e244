// Cache hierarchies: levels of set-associative caches (optionally split into
// instruction and data caches at a level), inclusive or not, described in a
// small text format (docs/analysis.md, "Hierarchy files") or built in: the ten
// hierarchies of the PSnAP paper's Table 1 (`psnap`).
//
// A HierarchySimulator runs many hierarchies over one reference stream in one
// pass. Non-inclusive hierarchies that begin with identical levels share the
// simulation of those levels (the stream a level sees depends only on the
// levels above it), so the six Table 1 hierarchies with the same 64 KB L1 pay
// for one L1.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hmtt/analysis/cache.h"
#include "hmtt/reference.h"
#include "hmtt/result.h"

namespace hmtt::analysis {

struct LevelConfig {
  std::string name = "L1";                  // "L1", "L2", ...
  CacheConfig data;                         // the unified (or data) cache
  std::optional<CacheConfig> instruction;   // split level: instruction fetches go here

  friend bool operator==(const LevelConfig&, const LevelConfig&) = default;
};

struct HierarchyConfig {
  std::string name;
  std::vector<LevelConfig> levels;          // L1 first
  bool inclusive = false;                   // an eviction below invalidates the line above
};

// Parses hierarchy descriptions; errors name `file_name:line`.
Result<std::vector<HierarchyConfig>> parse_hierarchies(std::string_view text, std::string_view file_name);
// Reads a hierarchy file, or returns a built-in set for a built-in name ("psnap").
Result<std::vector<HierarchyConfig>> load_hierarchies(const std::string& name_or_path);
// PSnAP Table 1: ten L1/L2(/L3) hierarchies, LRU, write-back, write-allocate, non-inclusive.
std::vector<HierarchyConfig> psnap_hierarchies();
// The same hierarchies written in the text format (documentation and tests).
std::string format_hierarchies(std::span<const HierarchyConfig> hierarchies);

struct LevelResult {
  std::string name;
  CacheStats data;
  std::optional<CacheStats> instruction;
  CacheStats combined() const;              // data + instruction
};
struct HierarchyResult {
  std::string name;
  std::uint64_t references = 0;
  std::vector<LevelResult> levels;
};

class HierarchySimulator {
 public:
  static Result<HierarchySimulator> create(std::vector<HierarchyConfig> hierarchies);
  HierarchySimulator(HierarchySimulator&&) noexcept;
  HierarchySimulator& operator=(HierarchySimulator&&) noexcept;
  ~HierarchySimulator();

  void access(const Reference& ref);
  void access(std::span<const Reference> refs) {
    for (const Reference& r : refs) access(r);
  }
  std::vector<HierarchyResult> results() const;
  const std::vector<HierarchyConfig>& configs() const { return configs_; }
  // Caches actually simulated (after sharing of common prefixes).
  std::size_t simulated_caches() const;

 private:
  struct Node;
  HierarchySimulator() = default;
  void access_node(Node& n, std::uint64_t address, CacheOp op);
  void back_invalidate(Node& upper, std::uint64_t address, std::uint64_t bytes);

  std::vector<HierarchyConfig> configs_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<Node*> roots_;
  std::vector<std::vector<Node*>> chains_;  // per hierarchy, its node per level
  std::uint64_t references_ = 0;
};

}  // namespace hmtt::analysis
