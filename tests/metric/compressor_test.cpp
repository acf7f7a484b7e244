// Online RSD/PRSD detection and exact regeneration (issue 11, items 1 and 2):
// lossless round trips on regular, irregular and adversarial streams; the
// descriptors of the paper's Fig. 2 loop; memory bounded by the window, not
// by the trace length.
#include <doctest/doctest.h>

#include <random>

#include "hmtt/metric/kernels.h"
#include "roundtrip.h"

using namespace metric_test;

namespace {
Reference ref(std::uint64_t t, std::uint64_t a, Kind k = Kind::Read, std::uint32_t size = 8) {
  return Reference{t, a, size, k, Origin::Cpu, 0};
}
}  // namespace

TEST_CASE("empty and one-event traces round-trip") {
  check_roundtrip({}, {});
  check_roundtrip({ref(5, 0x1234)}, {0});
  auto st = check_roundtrip({ref(0, 1), ref(1, 2)}, {0, 0});
  CHECK(st.iads == 2);
  CHECK(st.rsds == 0);
}

TEST_CASE("a constant-stride run becomes one RSD of the minimum length 3 and up") {
  std::vector<Reference> refs;
  for (std::uint64_t i = 0; i < 3; ++i) refs.push_back(ref(i, 0x1000 + 8 * i));
  auto st = check_roundtrip(refs, std::vector<std::uint32_t>(refs.size(), 0));
  CHECK(st.rsds == 1);
  CHECK(st.iads == 0);
  refs.resize(2);
  st = check_roundtrip(refs, {0, 0});
  CHECK(st.rsds == 0);
  CHECK(st.iads == 2);
}

TEST_CASE("the paper's Fig. 2 loop folds into one PRSD per reference") {
  // for i < n-1: for j < n-1: A[i] = A[i] + B[i+1][j+1]   (8-byte elements,
  // no scope events: hmtt traces carry none, so the sequence-id shift is
  // 3(n-1) rather than the paper's 3n-1)
  const std::uint64_t n = 50, A = 0x10000, B = 0x20000;
  std::vector<Reference> refs;
  std::vector<std::uint32_t> pts;
  for (std::uint64_t i = 0; i < n - 1; ++i)
    for (std::uint64_t j = 0; j < n - 1; ++j) {
      refs.push_back(ref(refs.size(), A + 8 * i, Kind::Read));
      pts.push_back(0);
      refs.push_back(ref(refs.size(), B + 8 * ((i + 1) * n + j + 1), Kind::Read));
      pts.push_back(1);
      refs.push_back(ref(refs.size(), A + 8 * i, Kind::Write));
      pts.push_back(2);
    }
  VectorPointedSource src(refs, pts, 3);
  auto rt = compress_to_memory(src);
  CHECK(rt.stats.iads == 0);
  const auto& d = rt.trace->descriptors();
  REQUIRE(d.size() == 3);
  const std::uint64_t shift = 3 * (n - 1);
  // PRSD1: <A, shift 1 element, seq base 0, seq shift 3(n-1), n-1, RSD1 <A, n-1, 0, READ, 0, 3>>
  CHECK(d[0].start_addr == A);
  CHECK(d[0].start_seq == 0);
  CHECK(d[0].levels == std::vector<Step>{{n - 1, 0, 3, 3}, {n - 1, 8, shift, shift}});
  // PRSD3: <B+n+1, ..., RSD5 <B+n+1, n-1, 1, READ, 1, 3>> with a row shift of n elements
  CHECK(d[1].start_addr == B + 8 * (n + 1));
  CHECK(d[1].start_seq == 1);
  CHECK(d[1].levels == std::vector<Step>{{n - 1, 8, 3, 3}, {n - 1, 8 * n, shift, shift}});
  // PRSD2: the writes of A
  CHECK(d[2].start_addr == A);
  CHECK(d[2].start_seq == 2);
  CHECK(d[2].levels == std::vector<Step>{{n - 1, 0, 3, 3}, {n - 1, 8, shift, shift}});
  CHECK(rt.trace->keys()[d[2].key].kind == Kind::Write);
  check_roundtrip(refs, pts, {}, 3);
}

TEST_CASE("random traces round-trip and stay IADs") {
  std::mt19937_64 rng(11);
  std::vector<Reference> refs;
  std::vector<std::uint32_t> pts;
  for (int i = 0; i < 20000; ++i) {
    Reference r{rng(), rng(), static_cast<std::uint32_t>(rng() % 5), static_cast<Kind>(rng() % 4),
                static_cast<Origin>(rng() % 4), static_cast<std::uint16_t>(rng() % 3)};
    refs.push_back(r);
    pts.push_back(static_cast<std::uint32_t>(rng() % 4));
  }
  auto st = check_roundtrip(refs, pts, {}, 4);
  CHECK(st.iads + st.descriptor_events == refs.size());
  CHECK(st.descriptor_events < 100);
}

TEST_CASE("strides that break mid-run, overlapping and interleaved patterns round-trip") {
  std::mt19937_64 rng(7);
  for (std::uint32_t window : {2u, 3u, 5u, 64u, 300u}) {
    CAPTURE(window);
    std::vector<Reference> refs;
    std::vector<std::uint32_t> pts;
    std::uint64_t a[3] = {0x1000, 0x900000, 0xfffffffffffff000ull};
    std::int64_t stride[3] = {8, -64, 1};
    std::uint64_t t = 0;
    while (refs.size() < 30000) {
      const int run = 1 + static_cast<int>(rng() % 12);
      const int which = static_cast<int>(rng() % 3);
      if (rng() % 4 == 0) stride[which] = static_cast<std::int64_t>(rng() % 256) - 128;
      for (int r = 0; r < run; ++r) {
        // interleave: the same key from two address streams, sometimes with equal strides
        const int s = (rng() % 5 == 0) ? (which + 1) % 3 : which;
        a[s] += static_cast<std::uint64_t>(stride[s]);
        t += (rng() % 9 == 0) ? rng() % 100 : 1;
        refs.push_back(ref(t, a[s], rng() % 7 == 0 ? Kind::Write : Kind::Read));
        pts.push_back(static_cast<std::uint32_t>(s % 2));
      }
    }
    CompressorOptions opt;
    opt.window = window;
    check_roundtrip(refs, pts, opt, 2);
  }
}

TEST_CASE("repeated patterns with equal shapes but overlapping ranges do not fold out of order") {
  // Two same-key streams A and B interleaved element by element; their RSDs
  // overlap in sequence ids, so they must not be folded into one PRSD.
  std::vector<Reference> refs;
  for (std::uint64_t rep = 0; rep < 40; ++rep)
    for (std::uint64_t i = 0; i < 10 + rep % 3; ++i) {
      refs.push_back(ref(refs.size(), 0x1000 + 8 * i + rep * 0x100));
      refs.push_back(ref(refs.size(), 0x8000 + 8 * i + rep * 0x100));
    }
  auto st = check_roundtrip(refs, std::vector<std::uint32_t>(refs.size(), 0));
  CHECK(st.iads < refs.size() / 10);
}

TEST_CASE("extreme values: 2^64 wrap-around, zero and maximal strides, huge sizes and times") {
  std::vector<Reference> refs;
  for (std::uint64_t i = 0; i < 1000; ++i)
    refs.push_back(Reference{UINT64_MAX - 3 * i, UINT64_MAX - 5 + 16 * i, UINT32_MAX, Kind::Modify, Origin::DmaModelled, 65535});
  for (std::uint64_t i = 0; i < 1000; ++i) refs.push_back(Reference{7, 0x8000000000000000ull * (i % 2), 0, Kind::IFetch, Origin::Dma, 1});
  auto st = check_roundtrip(refs, std::vector<std::uint32_t>(refs.size(), 0));
  CHECK(st.iads < 10);
}

TEST_CASE("a long run round-trips as one RSD: huge counts") {
  std::vector<Reference> refs;
  const std::uint64_t n = 3000000;
  refs.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) refs.push_back(ref(i, 0x40 + 4 * i, Kind::Read, 4));
  auto st = check_roundtrip(refs, std::vector<std::uint32_t>(n, 0));
  CHECK(st.rsds == 1);
  CHECK(st.iads == 0);
  CHECK(st.file_bytes < 120);
}

TEST_CASE("window and fold-level options are checked and every setting round-trips") {
  std::vector<Reference> refs;
  std::vector<std::uint32_t> pts;
  for (std::uint64_t i = 0; i < 6; ++i)
    for (std::uint64_t j = 0; j < 5; ++j)
      for (std::uint64_t k = 0; k < 4; ++k) {
        refs.push_back(ref(refs.size(), 0x100 * i + 0x10 * j + k));
        pts.push_back(0);
      }
  for (std::uint32_t levels : {0u, 1u, 2u, 15u}) {
    CompressorOptions opt;
    opt.fold_levels = levels;
    auto st = check_roundtrip(refs, pts, opt);
    if (levels >= 2) CHECK(st.prsds + st.rsds == 1);
    if (levels == 0) CHECK(st.prsds == 0);
  }
  MemoryByteSink sink;
  CompressorOptions bad;
  bad.window = 1;
  TraceCompressor c(sink, bad);
  auto st = c.begin();
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message.find("window 1") != std::string::npos);
  TraceCompressor c2(sink);
  REQUIRE(c2.begin().ok());
  auto app = c2.append(ref(0, 0), 0);
  REQUIRE_FALSE(app.ok());
  CHECK(app.error().message.find("not defined") != std::string::npos);
}

TEST_CASE("built-in kernels: lossless, >= 100x, memory independent of the trace length") {
  for (const auto& name : kernel_names()) {
    CAPTURE(name);
    std::uint64_t state = 0, bytes = 0;
    for (std::uint64_t events : {250000ull, 1000000ull, 4000000ull}) {
      CAPTURE(events);
      KernelOptions ko;
      ko.id = *kernel_by_name(name);
      ko.events = events;
      KernelSource src(ko);
      auto rt = compress_to_memory(src);
      CHECK(rt.stats.events == events);
      CHECK(rt.stats.ratio() >= 100.0);
      CHECK(rt.stats.iads == 0);
      // The working state does not grow with the trace (the paper's constant
      // space), and the output grows by a handful of descriptors at most.
      if (state != 0) CHECK(rt.stats.state_bytes == state);
      if (bytes != 0) CHECK(rt.stats.file_bytes < bytes + 128);
      state = rt.stats.state_bytes;
      bytes = rt.stats.file_bytes;
      CHECK(state < 64 * 1024);
      // exact regeneration, compared with a fresh run of the kernel
      KernelSource again(ko);
      ExpandedSource ex(rt.trace);
      std::vector<Reference> a(4096), b(4096);
      std::vector<std::uint32_t> pa(4096), pb(4096);
      std::uint64_t total = 0;
      bool same = true;
      for (;;) {
        auto n1 = ex.read_pointed(a, pa);
        REQUIRE(n1.ok());
        auto n2 = again.read_pointed(std::span(b).first(*n1 ? *n1 : 1), std::span(pb).first(*n1 ? *n1 : 1));
        REQUIRE(n2.ok());
        if (*n1 == 0) {
          CHECK(*n2 == 0);
          break;
        }
        REQUIRE(*n2 == *n1);
        for (std::size_t i = 0; i < *n1; ++i) same = same && a[i] == b[i] && pa[i] == pb[i];
        total += *n1;
      }
      CHECK(same);
      CHECK(total == events);
      CHECK(ex.peak_open_descriptors() <= 16);
    }
  }
}

TEST_CASE("property: 10,000 small structured traces round-trip under random options") {
  // Nested loops over a few arrays with random bounds, strides, breaks and
  // noise, under random windows and fold levels: every folding corner case
  // the generator can reach must still expand to the same stream.
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 10000; ++trial) {
    CAPTURE(trial);
    std::vector<Reference> refs;
    std::vector<std::uint32_t> pts;
    const int outer = 1 + static_cast<int>(rng() % 6), mid = 1 + static_cast<int>(rng() % 6),
              inner = 1 + static_cast<int>(rng() % 8), arrays = 1 + static_cast<int>(rng() % 3);
    std::uint64_t t = 0;
    for (int o = 0; o < outer; ++o)
      for (int m = 0; m < mid; ++m)
        for (int i = 0; i < inner; ++i)
          for (int a = 0; a < arrays; ++a) {
            if (rng() % 40 == 0) continue;  // a missing access breaks the pattern
            std::uint64_t addr = 0x1000u * static_cast<std::uint64_t>(a + 1) + 8u * static_cast<std::uint64_t>(i) +
                                 0x100u * static_cast<std::uint64_t>(m) + 0x800u * static_cast<std::uint64_t>(o);
            if (rng() % 50 == 0) addr = rng() % 0x10000;  // noise
            t += rng() % 30 == 0 ? 2 : 1;
            refs.push_back(Reference{t, addr, 8, rng() % 60 == 0 ? Kind::Write : Kind::Read, Origin::Cpu, 0});
            pts.push_back(static_cast<std::uint32_t>(a % 2));
          }
    CompressorOptions opt;
    opt.window = 2 + static_cast<std::uint32_t>(rng() % 20);
    opt.fold_levels = static_cast<std::uint32_t>(rng() % 6);
    check_roundtrip(refs, pts, opt, 2);
  }
}
