// Bench of hmtt_csel_sub (combinational): diff_o must equal a_i - b_i modulo
// 2^Width for edge values around every borrow boundary of the low half and for
// random pairs. Built at the board's Width 64 and at Width 16 (HMTT_TB_WIDTH),
// where the low half's borrow is exercised on a small, dense grid as well.
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "tb_common.h"

#ifndef HMTT_TB_WIDTH
#define HMTT_TB_WIDTH 64
#endif

namespace {
constexpr unsigned kWidth = HMTT_TB_WIDTH;
constexpr std::uint64_t kMask = kWidth == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << kWidth) - 1;
constexpr unsigned kHalf = kWidth / 2;
}  // namespace

TEST_CASE("hmtt_csel_sub: a - b modulo 2^Width, across the low half's borrow") {
  auto ctx = std::make_unique<VerilatedContext>();
  auto dut = std::make_unique<Vhmtt_csel_sub>(ctx.get());
  std::uint64_t checked = 0, wrong = 0;
  auto check = [&](std::uint64_t a, std::uint64_t b) {
    a &= kMask;
    b &= kMask;
    dut->a_i = a;
    dut->b_i = b;
    dut->eval();
    const std::uint64_t want = (a - b) & kMask;
    if (static_cast<std::uint64_t>(dut->diff_o) != want) {
      if (++wrong <= 5) FAIL_CHECK("a " << a << " b " << b << ": diff " << dut->diff_o << ", want " << want);
    }
    ++checked;
  };
  // Values at the edges of the low half and of the whole word.
  const std::uint64_t low = (std::uint64_t{1} << kHalf) - 1;
  std::vector<std::uint64_t> edges = {0, 1, 2, low - 1, low, low + 1, low + 2, kMask, kMask - 1, kMask >> 1,
                                      (kMask >> 1) + 1, low << kHalf, (low << kHalf) | low};
  for (std::uint64_t a : edges)
    for (std::uint64_t b : edges) check(a, b);
  std::mt19937_64 rng(kWidth);
  for (int i = 0; i < 200000; ++i) {
    const std::uint64_t a = rng();
    // Half the pairs share the high half, so the borrow alone decides the result's high half.
    const std::uint64_t b = (i & 1) ? rng() : ((a & ~low) | (rng() & low));
    check(a, b);
  }
  if (kWidth <= 16) {
    for (std::uint64_t a = 0; a <= kMask; a += 7)
      for (std::uint64_t b = 0; b <= kMask; b += 251) check(a, b);
  }
  CHECK(wrong == 0);
  CHECK(checked > 200000);
}
