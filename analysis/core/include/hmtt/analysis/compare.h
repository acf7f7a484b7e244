// The yardstick for trace synthesis: how closely trace B (synthetic)
// reproduces trace A (original), in the measures of the profiling papers:
//   - hit ratios on cache hierarchies, per level (PSnAP Table 1 by default), in
//     two measures: the local hit ratio (hits / the accesses the level got) and
//     the cumulative one (the share of all references served at this level or
//     above), which the PMaC papers appear to report (an inference: they do not
//     define theirs; docs/analysis.md, "Two per-level measures"),
//   - hit ratios on a sweep of fully-associative LRU caches (Chameleon's 17
//     depths 2^0..2^16 x widths 64..512 B = 68 caches),
//   - the distance between their locality surfaces (strides within +-256 B,
//     distances within 64 K; PSnAP section 3.2),
//   - and, beside them, how unevenly each uses its blocks and lines
//     (concentration.h): not an error measure, but where a synthetic's
//     set-associative errors come from.
// Absolute errors are in hit-ratio units (0.01 = one percentage point).
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "hmtt/analysis/cache_surface.h"
#include "hmtt/analysis/concentration.h"
#include "hmtt/analysis/hierarchy.h"
#include "hmtt/analysis/locality_surface.h"
#include "hmtt/analysis/tool.h"

namespace hmtt::analysis {

struct CompareOptions {
  std::string hierarchy = "psnap";  // built-in name or hierarchy file
  std::vector<std::uint64_t> widths = {64, 128, 256, 512};
  std::vector<std::uint64_t> depths = CacheSurfaceKnobs{}.depths;
  LocalitySurfaceKnobs locality;
  RunOptions run;
};

struct AbsoluteError {
  std::size_t points = 0;
  double mean = 0;
  double max = 0;
};

struct LevelComparison {
  std::string hierarchy;
  std::string level;
  double hit_a = 0;
  double hit_b = 0;
  // What each trace sent to this level: its references at L1, the misses (and write-backs) of the
  // level above below it. A level's hit ratio below L1 is a local one, out of these: a synthetic's
  // L2 error is often its L1's miss count (docs/accuracy.md, "What the L2 figure is made of").
  std::uint64_t accesses_a = 0;
  std::uint64_t accesses_b = 0;
  // Cumulative hit ratio: the share of the hierarchy's references served at this level or above,
  // 1 - (this level's misses) / (L1's accesses). At L1 it is the local ratio.
  double served_a = 0;
  double served_b = 0;
  double abs_error() const;
  double served_error() const;
};

struct ComparisonResult {
  std::uint64_t references_a = 0, references_b = 0;
  std::vector<LevelComparison> levels;           // every level of every hierarchy
  AbsoluteError hierarchy_error;                 // over all levels
  std::map<std::string, AbsoluteError> per_level_error;  // "L1", "L2", "L3": local hit ratios
  std::map<std::string, AbsoluteError> per_level_served_error;  // the same levels, cumulative ratios
  CacheSurface lru_a, lru_b;
  AbsoluteError lru_error;                       // over widths x depths
  LocalitySurface locality_a, locality_b;
  double locality_distance = 0;                  // total-variation distance, 0..1
  std::vector<HierarchyResult> hierarchies_a, hierarchies_b;
  std::vector<ConcentrationPoint> concentration_a, concentration_b;  // empty when not measured

  Json to_json() const;
  void print(std::ostream& out) const;
};

// Runs both traces (one pass each) and compares them.
Result<ComparisonResult> compare(ReferenceSource& a, ReferenceSource& b, const CompareOptions& options = {});

// What compare() measures on one trace; a caller that already ran these tools
// (the report) compares the measures without reading the traces again.
struct TraceMeasures {
  std::uint64_t references = 0;
  std::vector<HierarchyResult> hierarchies;
  CacheSurface lru;             // must hold options.widths x options.depths (more is fine)
  LocalitySurface locality;
  std::vector<ConcentrationPoint> concentration = {};  // optional
};
Result<ComparisonResult> compare(const TraceMeasures& a, const TraceMeasures& b, const CompareOptions& options = {});

AbsoluteError absolute_error(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace hmtt::analysis
