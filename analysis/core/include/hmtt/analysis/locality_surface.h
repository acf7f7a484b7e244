// Locality surface (Grimsrud et al.; used by PSnAP section 3.2): a histogram
// over (stride, distance) of pairs of references. Each reference is paired
// with every later reference up to and including the next reference to its own
// address; stride = later address - earlier address, distance = how many
// references later. PSnAP limits the field to strides within +-256 bytes and
// distances within 64 K.
//
// Counting from the later reference: for a reference to address a at position
// i and a stride t, exactly one earlier reference pairs with it, the most
// recent reference to a - t (any older one has met its own re-reference
// first). So one pass with the last position of every address in reach gives
// the whole surface: for each reference and each of the 2*256/granule + 1
// strides, one lookup. Addresses are counted in granules (default 8 bytes, so
// 65 strides); distances are binned by powers of two, 1 .. 2^16 (17 bins).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "hmtt/analysis/block_map.h"
#include "hmtt/analysis/tool.h"

namespace hmtt::analysis {

struct LocalitySurfaceKnobs {
  std::uint32_t granule_bytes = 8;       // address unit of a stride
  std::uint32_t max_stride_bytes = 256;  // strides within +-this
  std::uint32_t max_distance_log2 = 16;  // distances within 2^this
};

struct LocalitySurface {
  std::uint32_t granule_bytes = 8;
  std::int32_t max_stride = 32;       // in granules; strides -max..+max
  std::uint32_t distance_bins = 17;   // bin k: distances [2^k, 2^(k+1))
  std::uint64_t references = 0;
  std::vector<std::uint64_t> counts;  // [(stride + max) * distance_bins + bin]
  std::uint64_t at(std::int32_t stride, std::uint32_t bin) const {
    return counts[static_cast<std::size_t>(stride + max_stride) * distance_bins + bin];
  }
  std::uint64_t pairs() const;
};

// Total-variation distance between two surfaces normalised to distributions:
// 0 = same shape, 1 = disjoint. The surfaces must have the same geometry.
Result<double> surface_distance(const LocalitySurface& a, const LocalitySurface& b);

class LocalitySurfaceBuilder {
 public:
  explicit LocalitySurfaceBuilder(const LocalitySurfaceKnobs& knobs);
  void access(std::uint64_t address);
  const LocalitySurface& surface() const { return surface_; }

 private:
  static constexpr std::uint32_t kChunk = 64;  // granules per chunk
  std::uint64_t* chunk(std::uint64_t index, bool create);
  LocalitySurface surface_;
  std::uint64_t max_distance_;
  BlockMap index_;                                        // chunk number -> slot + 1
  std::vector<std::array<std::uint64_t, kChunk>> last_;  // last position + 1 per granule
  std::uint64_t pos_ = 0;
};

class LocalitySurfaceTool final : public AnalysisTool {
 public:
  explicit LocalitySurfaceTool(const LocalitySurfaceKnobs& knobs) : knobs_(knobs) {}
  std::string_view name() const override { return "locality"; }
  Status init() override;
  Status process(std::span<const Reference> refs) override;
  void print(std::ostream& out) const override;
  Json to_json() const override;
  const LocalitySurface& result() const { return builder_->surface(); }

 private:
  LocalitySurfaceKnobs knobs_;
  std::optional<LocalitySurfaceBuilder> builder_;
};

std::unique_ptr<AnalysisTool> locality_surface_tool_create(const LocalitySurfaceKnobs& knobs);
Json to_json(const LocalitySurface& s);

}  // namespace hmtt::analysis
