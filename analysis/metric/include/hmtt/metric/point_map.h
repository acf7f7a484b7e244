// Reference points for traces that carry no instruction identity (board
// captures, imported traces): a reference point is a named address range, an
// I-Code event region (a time interval), or both, refined by the access kind
// (METRIC names a point by its data object and access type, e.g. "xz_Read").
//
// Map file, one entry per line ('#' starts a comment, numbers decimal or 0x-hex):
//   range  NAME LO HI          addresses LO <= a < HI belong to array NAME
//   region ID NAME T0 T1       references with T0 <= time < T1 are in region ID
// Ranges must not overlap; regions must not overlap. Points are created as
// they are first seen: "<range>_<Kind>", "<region>/<range>_<Kind>", with
// "other" for addresses outside every range.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "hmtt/metric/pointed_source.h"
#include "hmtt/stream.h"

namespace hmtt::metric {

struct AddressRange {
  std::string name;
  std::uint64_t lo = 0, hi = 0;  // [lo, hi)
};
struct EventRegion {
  std::uint32_t id = 0;
  std::string name;
  std::uint64_t t0 = 0, t1 = 0;  // [t0, t1)
};

class ReferencePointMap {
 public:
  static Result<ReferencePointMap> parse(const std::string& text, const std::string& name);
  static Result<ReferencePointMap> load(const std::string& path);
  Status add_range(AddressRange r);
  Status add_region(EventRegion r);

  // The index of the range holding `address`, or -1.
  int range_of(std::uint64_t address) const;
  // The index of the region holding `time`, or -1.
  int region_of(std::uint64_t time) const;
  const std::vector<AddressRange>& ranges() const { return ranges_; }
  const std::vector<EventRegion>& regions() const { return regions_; }

 private:
  std::vector<AddressRange> ranges_;   // sorted by lo
  std::vector<EventRegion> regions_;   // sorted by t0
};

// Attributes each reference of `source` to a point of `map`.
class ClassifiedSource final : public PointedSource {
 public:
  ClassifiedSource(ReferenceSource& source, ReferencePointMap map);
  Result<std::size_t> read_pointed(std::span<Reference> refs, std::span<std::uint32_t> points) override;
  const std::vector<ReferencePoint>& points() const override { return table_; }

 private:
  ReferenceSource& source_;
  ReferencePointMap map_;
  std::map<std::tuple<int, int, int>, std::uint32_t> ids_;  // (region, range, kind) -> point
  std::vector<ReferencePoint> table_;
};

}  // namespace hmtt::metric
