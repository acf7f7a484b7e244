// Built-in kernels that generate the data-reference streams of the METRIC
// paper's experiments (Section 7), with one reference point per access
// instruction named as the paper names them ("xz_Read_1": data object, access
// type, position among the loop body's accesses).
//
//   mm                 Sec. 7.1, mm.c lines 60-63: i, j, k loops, body
//                      xx[i][j] = xy[i][k]*xz[k][j] + xx[i][j]
//                      accesses xy_Read_0, xz_Read_1, xx_Read_2, xx_Write_3
//   mm-tiled           lines 81-86: jj, kk, i, k, j loops with tile ts
//   adi                Sec. 7.2, Erlebacher ADI, k outer, two i loops (lines 16-21)
//                      x_Read_0 x[i-1][k], a_Read_1 a[i][k], b_Read_2 b[i-1][k],
//                      x_Read_3 x[i][k], x_Write_4 x[i][k];
//                      a_Read_5 a[i][k], a_Read_6 a[i][k], b_Read_7 b[i-1][k],
//                      b_Read_8 b[i][k], b_Write_9 b[i][k]
//   adi-interchanged   i outer, two k loops
//   adi-fused          i outer, one k loop with both statements
//
// Arrays are row-major N x N doubles (8 bytes), laid out one after another
// from `base` in declaration order (mm: xx, xy, xz; adi: x, a, b), `gap`
// bytes apart. The paper does not give its layout. The default gap, 8448 bytes,
// lies in the band of layouts (8448..11264 in 256-byte steps) with which the
// ADI kernels reproduce the paper's figures (interchanged 0.1254, fused
// 0.1003); gap 0 packs the arrays like C globals. docs/accuracy.md shows how
// the figures move with the gap.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hmtt/metric/pointed_source.h"

namespace hmtt::metric {

enum class KernelId { Mm, MmTiled, Adi, AdiInterchanged, AdiFused };

struct KernelOptions {
  KernelId id = KernelId::Mm;
  std::uint32_t n = 800;             // MAT_DIM / N
  std::uint32_t tile = 16;           // ts (mm-tiled)
  std::uint64_t events = 1000000;    // references logged (0 = the whole loop nest)
  std::uint64_t base = 0x10000000;   // address of the first array
  std::uint64_t gap = 8448;          // bytes between one array's end and the next one's start
};

std::optional<KernelId> kernel_by_name(const std::string& name);
std::string kernel_name(KernelId id);
std::vector<std::string> kernel_names();

class KernelSource final : public PointedSource {
 public:
  explicit KernelSource(KernelOptions options);
  Result<std::size_t> read_pointed(std::span<Reference> refs, std::span<std::uint32_t> points) override;
  const std::vector<ReferencePoint>& points() const override { return points_; }
  // References the whole loop nest issues (before the `events` cut).
  std::uint64_t nest_references() const;

 private:
  struct Access {
    std::uint32_t point;
    std::uint64_t addr;
    Kind kind;
  };
  bool next_body();  // fills body_ with the next loop-body iteration; false at the end
  std::uint64_t elem(int array, std::uint64_t row, std::uint64_t col) const;

  KernelOptions opt_;
  std::vector<ReferencePoint> points_;
  std::vector<Access> body_;
  std::size_t body_pos_ = 0;
  std::uint64_t emitted_ = 0;
  bool done_ = false;
  // loop indices (meaning depends on the kernel)
  std::uint64_t i_ = 0, j_ = 0, k_ = 0, jj_ = 0, kk_ = 0;
  int phase_ = 0;
  bool started_ = false;
};

}  // namespace hmtt::metric
