#include "hmtt/metric/kernels.h"

#include <algorithm>

namespace hmtt::metric {

namespace {
struct Named {
  const char* name;
  KernelId id;
};
constexpr Named kKernels[] = {{"mm", KernelId::Mm},
                              {"mm-tiled", KernelId::MmTiled},
                              {"adi", KernelId::Adi},
                              {"adi-interchanged", KernelId::AdiInterchanged},
                              {"adi-fused", KernelId::AdiFused}};

ReferencePoint rp(const char* name, const char* file, std::uint32_t line, const char* src) {
  return ReferencePoint{name, file, line, src};
}
}  // namespace

std::optional<KernelId> kernel_by_name(const std::string& name) {
  for (const auto& k : kKernels)
    if (name == k.name) return k.id;
  return std::nullopt;
}

std::string kernel_name(KernelId id) {
  for (const auto& k : kKernels)
    if (k.id == id) return k.name;
  return "?";
}

std::vector<std::string> kernel_names() {
  std::vector<std::string> v;
  for (const auto& k : kKernels) v.emplace_back(k.name);
  return v;
}

KernelSource::KernelSource(KernelOptions options) : opt_(options) {
  switch (opt_.id) {
    case KernelId::Mm:
    case KernelId::MmTiled: {
      const std::uint32_t line = opt_.id == KernelId::Mm ? 63 : 86;
      points_ = {rp("xy_Read_0", "mm.c", line, "xy[i][k]"), rp("xz_Read_1", "mm.c", line, "xz[k][j]"),
                 rp("xx_Read_2", "mm.c", line, "xx[i][j]"), rp("xx_Write_3", "mm.c", line, "xx[i][j]")};
      break;
    }
    case KernelId::Adi:
    case KernelId::AdiInterchanged:
    case KernelId::AdiFused: {
      const std::uint32_t l1 = opt_.id == KernelId::AdiFused ? 16 : 18;
      const std::uint32_t l2 = opt_.id == KernelId::AdiFused ? 17 : 20;
      points_ = {rp("x_Read_0", "adi.c", l1, "x[i-1][k]"), rp("a_Read_1", "adi.c", l1, "a[i][k]"),
                 rp("b_Read_2", "adi.c", l1, "b[i-1][k]"), rp("x_Read_3", "adi.c", l1, "x[i][k]"),
                 rp("x_Write_4", "adi.c", l1, "x[i][k]"),  rp("a_Read_5", "adi.c", l2, "a[i][k]"),
                 rp("a_Read_6", "adi.c", l2, "a[i][k]"),   rp("b_Read_7", "adi.c", l2, "b[i-1][k]"),
                 rp("b_Read_8", "adi.c", l2, "b[i][k]"),   rp("b_Write_9", "adi.c", l2, "b[i][k]")};
      break;
    }
  }
}

std::uint64_t KernelSource::nest_references() const {
  const std::uint64_t n = opt_.n;
  switch (opt_.id) {
    case KernelId::Mm:
    case KernelId::MmTiled: return n * n * n * 4;
    default: return n < 3 ? 0 : (n - 1) * (n - 2) * 10;
  }
}

std::uint64_t KernelSource::elem(int array, std::uint64_t row, std::uint64_t col) const {
  const std::uint64_t n = opt_.n;
  return opt_.base + static_cast<std::uint64_t>(array) * (n * n * 8 + opt_.gap) + (row * n + col) * 8;
}

bool KernelSource::next_body() {
  body_.clear();
  body_pos_ = 0;
  const std::uint64_t n = opt_.n;
  switch (opt_.id) {
    case KernelId::Mm: {
      // for i, for j, for k
      if (!started_) { i_ = j_ = k_ = 0; started_ = true; }
      else if (++k_ == n) { k_ = 0; if (++j_ == n) { j_ = 0; ++i_; } }
      if (n == 0 || i_ >= n) return false;
      body_ = {{0, elem(1, i_, k_), Kind::Read}, {1, elem(2, k_, j_), Kind::Read},
               {2, elem(0, i_, j_), Kind::Read}, {3, elem(0, i_, j_), Kind::Write}};
      return true;
    }
    case KernelId::MmTiled: {
      // for jj, for kk, for i, for k in [kk, kk+ts), for j in [jj, jj+ts)
      const std::uint64_t ts = std::max<std::uint32_t>(opt_.tile, 1);
      if (!started_) { jj_ = kk_ = i_ = 0; k_ = 0; j_ = 0; started_ = true; }
      else if (++j_ == std::min(jj_ + ts, n)) {
        j_ = jj_;
        if (++k_ == std::min(kk_ + ts, n)) {
          k_ = kk_;
          if (++i_ == n) {
            i_ = 0;
            kk_ += ts;
            if (kk_ >= n) { kk_ = 0; jj_ += ts; }
            k_ = kk_;
            j_ = jj_;
          }
        }
      }
      if (n == 0 || jj_ >= n) return false;
      body_ = {{0, elem(1, i_, k_), Kind::Read}, {1, elem(2, k_, j_), Kind::Read},
               {2, elem(0, i_, j_), Kind::Read}, {3, elem(0, i_, j_), Kind::Write}};
      return true;
    }
    case KernelId::Adi:
    case KernelId::AdiInterchanged:
    case KernelId::AdiFused: {
      if (n < 3) return false;
      const bool k_outer = opt_.id == KernelId::Adi;
      const bool fused = opt_.id == KernelId::AdiFused;
      // outer in [lo_o, n), inner in [lo_i, n); k runs from 1, i from 2
      const std::uint64_t lo_outer = k_outer ? 1 : 2, lo_inner = k_outer ? 2 : 1;
      std::uint64_t& outer = k_outer ? k_ : i_;
      std::uint64_t& inner = k_outer ? i_ : k_;
      if (!started_) { outer = lo_outer; inner = lo_inner; phase_ = 0; started_ = true; }
      else if (++inner == n) {
        inner = lo_inner;
        if (!fused && phase_ == 0) phase_ = 1;
        else { phase_ = 0; ++outer; }
      }
      if (outer >= n) return false;
      const std::uint64_t i = i_, k = k_;
      // arrays: 0 = x, 1 = a, 2 = b
      if (fused || phase_ == 0) {
        body_.push_back({0, elem(0, i - 1, k), Kind::Read});
        body_.push_back({1, elem(1, i, k), Kind::Read});
        body_.push_back({2, elem(2, i - 1, k), Kind::Read});
        body_.push_back({3, elem(0, i, k), Kind::Read});
        body_.push_back({4, elem(0, i, k), Kind::Write});
      }
      if (fused || phase_ == 1) {
        body_.push_back({5, elem(1, i, k), Kind::Read});
        body_.push_back({6, elem(1, i, k), Kind::Read});
        body_.push_back({7, elem(2, i - 1, k), Kind::Read});
        body_.push_back({8, elem(2, i, k), Kind::Read});
        body_.push_back({9, elem(2, i, k), Kind::Write});
      }
      return true;
    }
  }
  return false;
}

Result<std::size_t> KernelSource::read_pointed(std::span<Reference> refs, std::span<std::uint32_t> points) {
  const std::size_t want = std::min(refs.size(), points.size());
  std::size_t n = 0;
  while (n < want && !done_) {
    if (opt_.events != 0 && emitted_ >= opt_.events) { done_ = true; break; }
    if (body_pos_ >= body_.size() && !next_body()) { done_ = true; break; }
    const Access& a = body_[body_pos_++];
    refs[n] = Reference{emitted_, a.addr, 8, a.kind, Origin::Cpu, 0};
    points[n] = a.point;
    ++n;
    ++emitted_;
  }
  return n;
}

}  // namespace hmtt::metric
