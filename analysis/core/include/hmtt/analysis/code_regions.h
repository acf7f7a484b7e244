// Code regions: stretches of a trace's time attributed to one piece of code,
// from a store's I-Code events or a region map file. Chameleon keeps one
// signature per region (its section 3.2's basic blocks); PSnAP takes each
// region as a loop and each entry to it as one of the loop's instances.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hmtt/result.h"

namespace hmtt::analysis {

// The id of "no region": references outside every region (Chameleon's
// "other" signature, PSnAP's loops found by its fallback segmentation). No
// region of a map or of I-Code events may have it.
inline constexpr std::uint32_t kOtherRegionId = UINT32_MAX;

// A region of the trace: references with t0 <= time < t1.
struct CodeRegion {
  std::uint32_t id = 0;
  std::string name;
  std::uint64_t t0 = 0, t1 = 0;
  bool operator==(const CodeRegion&) const = default;
};

// Region map text, one region per line ('#' comments, numbers decimal or 0x-hex):
//   region ID NAME T0 T1
// (the region lines of METRIC's reference-point map, so one file serves both;
// its `range` lines are skipped). IDs are 0 .. 4294967294 (kOtherRegionId is an
// error here). Regions must not overlap; errors name `name:line`. Lines with
// the same ID are one region entered many times. Sorted by T0.
Result<std::vector<CodeRegion>> parse_regions(const std::string& text, const std::string& name);

// Regions from the I-Code events of a trace: a program event k (HMTT_EVENT(k),
// recorded as config-space index 64 + k, k < 4096) starts region k, which
// lasts until the next program event (the last one to the end of the trace).
// Region ids are therefore 0 .. 4095, never kOtherRegionId: an event with index
// 64 + 4294967295 (or any index >= 64 + 4096) is not a program event and is ignored.
// `events` are (time, config-space index) pairs in any order; others are ignored.
std::vector<CodeRegion> regions_from_icode_events(std::vector<std::pair<std::uint64_t, std::uint64_t>> events);

// True when the file at `path` is an hmtt store (an SQLite file).
bool is_store_file(const std::string& path);

// The regions of a store's program I-Code events (none when it has none).
Result<std::vector<CodeRegion>> icode_regions(const std::string& store_path);

// A `regions` knob's value: an hmtt store (its I-Code events) or a region map
// file. Errors start "parameter '<knob>': " (a map's own errors name FILE:LINE);
// a store without program events, a directory, or a map without regions is one.
Result<std::vector<CodeRegion>> load_regions(const std::string& path, const std::string& knob = "regions");

// Which region each reference of a time-ordered stream falls in: a hint
// that moves forward through sorted regions (a search when it misses, so
// time may also go backwards).
class RegionCursor {
 public:
  // The index in `regions` (sorted by t0, disjoint) of the region holding
  // `time`, or regions.size() for none. Pass the same regions every time.
  std::size_t at(const std::vector<CodeRegion>& regions, std::uint64_t time);

 private:
  std::size_t hint_ = 0;
};

}  // namespace hmtt::analysis
