// The chunk codec against the worked examples of docs/store.md ("The chunk
// BLOB") and round trips over random and edge-case runs.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <random>

#include "hmtt/store/checksum.h"
#include "hmtt/store/chunk.h"

using namespace hmtt;
using namespace hmtt::store;

namespace {

std::vector<Reference> decode_all(std::span<const std::uint8_t> blob) {
  ChunkDecoder d;
  Status st = d.load(blob);
  REQUIRE_MESSAGE(st.ok(), (st.ok() ? "" : st.error().message));
  std::vector<Reference> out(d.refs());
  const std::uint64_t t_last = d.t_last();  // known before any reference is decoded
  // Odd batch sizes exercise the running prefix sums across calls.
  std::size_t at = 0;
  std::size_t batch = 1;
  while (at < out.size()) {
    std::size_t n = d.next(std::span<Reference>(out).subspan(at, std::min(batch, out.size() - at)));
    REQUIRE(n > 0);
    at += n;
    batch = batch * 3 + 1;
  }
  CHECK(d.next(std::span<Reference>(out)) == 0);
  CHECK(out.back().time == t_last);
  return out;
}

std::vector<std::uint8_t> encode(const std::vector<Reference>& refs, int accel = 1) {
  std::vector<std::uint8_t> blob;
  Status st = encode_chunk(refs, blob, accel);
  REQUIRE_MESSAGE(st.ok(), (st.ok() ? "" : st.error().message));
  return blob;
}

// Loads a BLOB after recomputing its XXH64 trailer (so that an edit reaches the checks behind the
// checksum): "ok" or the decoder's error.
std::string load_with_trailer(std::vector<std::uint8_t> b) {
  std::uint64_t h = xxh64({b.data(), b.size() - 8});
  std::memcpy(b.data() + b.size() - 8, &h, 8);
  ChunkDecoder d;
  Status st = d.load(b);
  return st.ok() ? std::string("ok") : st.error().message;
}

}  // namespace

TEST_CASE("xxh64 matches the reference implementation (docs/store.md test vectors)") {
  // Cross-checked against libxxhash 0.8.1's XXH64(seed 0); input byte i = (7*i + 1) mod 256.
  const std::pair<std::size_t, std::uint64_t> vectors[] = {
      {0, 0xef46db3751d8e999ULL},  {1, 0x8a4127811b21e730ULL},  {3, 0xb6e6c910c2fd373aULL},
      {4, 0x22eda2cf6af4c124ULL},  {8, 0xc6f1803a5e0b3222ULL},  {31, 0x6ab1c40e29f50073ULL},
      {32, 0x5a0756fbe9ecd3d1ULL}, {33, 0xdc50cdc37bb9c183ULL}, {100, 0xd248bfc5208b0b16ULL},
  };
  for (auto [n, want] : vectors) {
    std::vector<std::uint8_t> b(n);
    for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(7 * i + 1);
    CHECK(xxh64(b) == want);
  }
}

TEST_CASE("residual varints: the generic and the BMI2 encoder give plain LEB128 of zigzag(d >> shift)") {
  // Every varint length 1-10 (values around each 7-bit boundary, both signs), every shift 0-7.
  std::mt19937_64 rng(11);
  std::vector<std::uint64_t> d;
  for (unsigned bits = 0; bits <= 64; ++bits) {
    const std::uint64_t top = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    for (std::uint64_t v : {top, top + 1, top >> 1, rng() & top}) {
      d.push_back(v << 6);
      d.push_back((0 - v) << 6);
    }
  }
  for (int i = 0; i < 2000; ++i) d.push_back(rng() >> (rng() % 64));
  for (unsigned shift = 0; shift < 8; ++shift) {
    std::vector<std::uint8_t> want;
    for (std::uint64_t x : d) {
      const auto sx = static_cast<std::uint64_t>(static_cast<std::int64_t>(x) >> shift);
      std::uint64_t z = (sx << 1) ^ static_cast<std::uint64_t>(static_cast<std::int64_t>(sx) >> 63);
      do {
        want.push_back(static_cast<std::uint8_t>((z & 0x7F) | (z >= 0x80 ? 0x80 : 0)));
        z >>= 7;
      } while (z != 0);
    }
    std::vector<std::uint8_t> got(d.size() * 10 + 8, 0xEE);
    std::uint8_t* end = detail::encode_residuals_generic(d.data(), d.size(), shift, got.data());
    REQUIRE(static_cast<std::size_t>(end - got.data()) == want.size());
    CHECK(std::memcmp(got.data(), want.data(), want.size()) == 0);
#if defined(__x86_64__)
    if (detail::residual_bmi2_available()) {
      std::vector<std::uint8_t> fast(d.size() * 10 + 8, 0xEE);
      end = detail::encode_residuals_bmi2(d.data(), d.size(), shift, fast.data());
      REQUIRE(static_cast<std::size_t>(end - fast.data()) == want.size());
      CHECK(std::memcmp(fast.data(), want.data(), want.size()) == 0);
    }
#endif
  }
  MESSAGE("BMI2 residual encoder: " << detail::residual_bmi2_available());
}

// check_and_copy_references sums the copied rows four at a time with AVX2 where the CPU has it: the
// sums must be the generic loop's for every length around the four-row steps, either first row,
// times out of order anywhere (and equal, and far apart: the unsigned order), and any tail bytes.
namespace {
void check_same_sums(const detail::RowSums& got, const detail::RowSums& want) {
  CHECK(got.late == want.late);
  CHECK(got.dt_min == want.dt_min);
  CHECK(got.dt_max == want.dt_max);
  CHECK(got.a_min == want.a_min);
  CHECK(got.a_max == want.a_max);
  CHECK(got.tail_or == want.tail_or);
  CHECK(got.tail_xor == want.tail_xor);
  CHECK(got.kinds == want.kinds);
}
}  // namespace

TEST_CASE("row sums: the generic and the AVX2 loop agree") {
  std::mt19937_64 rng(31);
  int compared = 0;
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{4}, std::size_t{5},
                        std::size_t{7}, std::size_t{8}, std::size_t{9}, std::size_t{63}, std::size_t{4096},
                        std::size_t{4099}}) {
    for (int trial = 0; trial < 40; ++trial) {
      CAPTURE(n);
      CAPTURE(trial);
      std::vector<Reference> rows(n);
      std::uint64_t t = trial % 3 == 0 ? (std::uint64_t{1} << 63) - 50 : 1000;  // around the sign bit too
      for (auto& r : rows) {
        const int shape = static_cast<int>(rng() % 16);
        t += shape == 0 ? 0 : shape == 1 ? (rng() >> 1) : shape == 2 ? 0 - (rng() % 100) : rng() % 9;
        r.time = t;
        r.address = rng() % 3 == 0 ? rng() : 0x40000000 + (rng() % 4096) * 64;
        r.size = trial % 2 ? 64 : static_cast<std::uint32_t>(rng());
        r.kind = static_cast<Kind>(trial % 5 == 4 ? rng() % 256 : rng() % 4);
        r.origin = static_cast<Origin>(trial % 7 == 6 ? rng() % 256 : rng() % 4);
        r.source = static_cast<std::uint16_t>(trial % 2 ? 7 : rng());
      }
      for (bool first_has_delta : {false, true}) {
        const std::uint64_t prev = rng() % 2 ? rows[0].time : rows[0].time + 1 - rng() % 3;
        const detail::RowSums g = detail::row_sums_generic(rows.data(), n, prev, first_has_delta);
        // The generic loop against a plain restatement of what the sums mean.
        bool late = false;
        std::uint64_t dmin = UINT64_MAX, dmax = 0, amin = UINT64_MAX, amax = 0, tor = 0, txor = 0;
        std::uint32_t kinds = 0;
        std::uint64_t p = prev, w0 = 0;
        std::memcpy(&w0, reinterpret_cast<const unsigned char*>(&rows[0]) + 16, 8);
        for (std::size_t i = 0; i < n; ++i) {
          std::uint64_t w = 0;
          std::memcpy(&w, reinterpret_cast<const unsigned char*>(&rows[i]) + 16, 8);
          late = late || rows[i].time < p;
          if (i > 0 || first_has_delta) {
            dmin = std::min(dmin, rows[i].time - p);
            dmax = std::max(dmax, rows[i].time - p);
          }
          amin = std::min(amin, rows[i].address);
          amax = std::max(amax, rows[i].address);
          tor |= w;
          txor |= w ^ w0;
          kinds |= 1u << (static_cast<unsigned>(rows[i].kind) & 31);
          p = rows[i].time;
        }
        CHECK(g.late == late);
        CHECK(g.dt_min == dmin);
        CHECK(g.dt_max == dmax);
        CHECK(g.a_min == amin);
        CHECK(g.a_max == amax);
        CHECK(g.tail_or == tor);
        CHECK(g.tail_xor == txor);
        CHECK(g.kinds == kinds);
#if defined(__x86_64__)
        if (detail::row_sums_avx2_available()) {
          const detail::RowSums v = detail::row_sums_avx2(rows.data(), n, prev, first_has_delta);
          check_same_sums(v, g);
          // The copying loop: the same sums, and every row copied (the prologue's, the loop's
          // and the epilogue's), nothing written past the n rows.
          std::vector<Reference> out(n + 1);
          out[n].time = 0xC0FFEE;
          const detail::RowSums c = detail::row_sums_copy_avx2(rows.data(), n, prev, first_has_delta, out.data());
          check_same_sums(c, g);
          CHECK(std::memcmp(out.data(), rows.data(), n * sizeof(Reference)) == 0);
          CHECK(out[n].time == 0xC0FFEE);
          ++compared;
        }
#endif
        {
          std::vector<Reference> out(n);
          const detail::RowSums c = detail::row_sums_copy(rows.data(), n, prev, first_has_delta, out.data());
          check_same_sums(c, g);
          CHECK(std::memcmp(out.data(), rows.data(), n * sizeof(Reference)) == 0);
        }
      }
    }
  }
  MESSAGE("AVX2 row sums compared " << compared << " times");
}

// The scalar statement of split's board loop (docs/store.md, column 1's predictors), row by row.
static void board_loop_reference(const std::vector<Reference>& refs, std::size_t n, std::uint64_t time_base,
                                 detail::BoardLoopState& s, std::vector<std::uint8_t>& tp,
                                 std::vector<std::uint64_t>& td, std::vector<std::uint8_t>& kos,
                                 std::vector<std::uint64_t>& df) {
  for (std::size_t i = 0; i < n; ++i) {
    const Reference& r = refs[i];
    const auto k = static_cast<unsigned>(r.kind);
    const std::uint64_t d = r.address - s.last[k];
    unsigned sel = 3;
    if (d == s.stride[k]) {
      sel = 0;
    } else if (d == s.lsize[k]) {
      sel = 2;
    } else {
      df.push_back(d);
      ++s.misses;
      s.diff_bits |= d;
    }
    s.last[k] = r.address;
    s.stride[k] = d;
    s.lsize[k] = r.size;
    tp[i] = static_cast<std::uint8_t>(r.time - s.prev_t - time_base);
    td[i] = r.time - s.prev_t;
    s.prev_t = r.time;
    kos[i] = static_cast<std::uint8_t>(k | (static_cast<unsigned>(r.origin) << 2) | (sel << 4));
  }
}

TEST_CASE("board loop: the AVX-512 steps give the scalar loop's deltas, bytes, residuals and state") {
#if defined(__x86_64__)
  if (!detail::board_loop_avx512_available()) {
    MESSAGE("no AVX-512 F/CD on this CPU: the scalar loop alone is used");
    return;
  }
  std::mt19937_64 rng(29);
  int compared = 0, strides = 0, sequentials = 0, residuals = 0;
  for (int round = 0; round < 400; ++round) {
    const std::size_t n = rng() % 200;
    const unsigned kinds = 1 + static_cast<unsigned>(rng() % 4);  // kinds 0 .. kinds-1
    const bool runs = rng() % 2 == 0;                              // kinds in runs, or mixed row by row
    const bool sizes = rng() % 3 == 0;                             // sizes that vary (the lsize state)
    std::vector<Reference> refs(n);
    std::uint64_t t = rng() >> 8, a = rng() & ~std::uint64_t{63};
    std::uint64_t kind = 0, step = 64;
    for (auto& r : refs) {
      if (!runs || rng() % 6 == 0) kind = rng() % kinds;
      t += rng() % 200;
      switch (rng() % 4) {
        case 0: a += step; break;                  // a stride (repeats the last difference)
        case 1: a += 64; break;                    // sequential
        case 2: step = (rng() % 9) * 64 - 256; a += step; break;
        default: a = rng() % 3 == 0 ? a : rng(); break;  // a jump, or the same address
      }
      r = {t, a, sizes ? static_cast<std::uint32_t>(rng() % 3) * 64 : 64, static_cast<Kind>(kind),
           static_cast<Origin>(rng() % 4), 0};
    }
    // A state as a chunk's earlier rows would leave it (or a fresh chunk's).
    detail::BoardLoopState start;
    start.prev_t = n > 0 ? refs[0].time - rng() % 50 : 0;
    for (unsigned k = 0; k < kKindCount; ++k) {
      start.last[k] = rng() % 2 ? rng() : (n > 0 ? refs[0].address - 64 : 0);
      start.stride[k] = rng() % 2 ? 64 : rng() % 1024;
      start.lsize[k] = rng() % 2 ? 64 : 0;
    }
    start.misses = rng() % 4;
    start.diff_bits = rng() % 2 ? 0 : std::uint64_t{1} << 40;
    const std::uint64_t time_base = rng() % 3;
    const bool whole = rng() % 2 == 0;  // 64-bit time deltas (td) rather than bytes (tp)
    CAPTURE(round);
    CAPTURE(n);
    detail::BoardLoopState vs = start;
    std::vector<std::uint8_t> vtp(n + 1, 0xEE), vkos(n + 1, 0xEE);
    std::vector<std::uint64_t> vtd(n + 1, 0xEE), vdf(start.misses + n, 0);
    const std::size_t done = detail::board_loop_avx512(refs.data(), n, time_base, vs, whole ? nullptr : vtp.data(),
                                                       whole ? vtd.data() : nullptr, vkos.data(), vdf.data());
    REQUIRE(done == n / 8 * 8);
    detail::BoardLoopState ss = start;
    std::vector<std::uint8_t> stp(n), skos(n);
    std::vector<std::uint64_t> std_(n), sdf(start.misses, 0);
    board_loop_reference(refs, done, time_base, ss, stp, std_, skos, sdf);
    CHECK(vs.prev_t == (done > 0 ? ss.prev_t : start.prev_t));
    CHECK(vs.last == ss.last);
    CHECK(vs.stride == ss.stride);
    CHECK(vs.lsize == ss.lsize);
    REQUIRE(vs.misses == ss.misses);
    CHECK(vs.diff_bits == ss.diff_bits);
    const auto end = static_cast<std::ptrdiff_t>(done);
    if (whole) {
      CHECK(std::equal(std_.begin(), std_.begin() + end, vtd.begin()));
      CHECK(vtp[0] == 0xEE);
    } else {
      CHECK(std::equal(stp.begin(), stp.begin() + end, vtp.begin()));
      CHECK(vtd[0] == 0xEE);
    }
    CHECK(vtd[done] == 0xEE);
    CHECK(std::equal(skos.begin(), skos.begin() + end, vkos.begin()));
    CHECK(std::equal(sdf.begin() + static_cast<std::ptrdiff_t>(start.misses), sdf.end(),
                     vdf.begin() + static_cast<std::ptrdiff_t>(start.misses)));
    CHECK(vtp[done] == 0xEE);  // nothing written past the steps
    CHECK(vkos[done] == 0xEE);
    for (std::size_t i = 0; i < done; ++i) {
      const unsigned sel = skos[i] >> 4;
      strides += sel == 0;
      sequentials += sel == 2;
      residuals += sel == 3;
    }
    compared += done > 0;
  }
  // Every predictor's case came up (else the comparison proved less than it says).
  CHECK(strides > 1000);
  CHECK(sequentials > 1000);
  CHECK(residuals > 1000);
  MESSAGE("AVX-512 board loop compared " << compared << " times");
#else
  MESSAGE("not x86-64: the scalar loop alone is used");
#endif
}

TEST_CASE("worked example 1: three references, byte for byte") {
  const std::vector<Reference> refs = {
      {100, 0x1000, 64, Kind::Read, Origin::Unknown, 0},
      {105, 0x1040, 64, Kind::Read, Origin::Unknown, 0},
      {107, 0x2000, 64, Kind::Write, Origin::Unknown, 0},
  };
  const std::vector<std::uint8_t> want = {
      // header: magic, version 2, 5 columns, 3 references, 3 planes, t_first 100, a_first 0x1000
      0x48, 0x4d, 0x54, 0x43, 0x02, 0x00, 0x05, 0x00, 0x03, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
      0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      // column table: time (base 2, width 1), residuals (1 residual, 1 plane, shift 12),
      // kind/origin/predictor (0, 1), size (64, 0), source (0, 0)
      0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      // plane table (raw size, stored size, encoding): time 3/3 raw, residuals 1/1 raw, kind 3/3 raw
      0x03, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x03, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      // planes: time deltas minus base, the varint zigzag(0x1000 >> 12) = 2, kind/origin/predictor bytes
      0x00, 0x03, 0x00, 0x02, 0x00, 0x20, 0x31,
      // XXH64 trailer 0xec76872e3080623a
      0x3a, 0x62, 0x80, 0x30, 0x2e, 0x87, 0x76, 0xec,
  };
  CHECK(encode(refs) == want);
  CHECK(decode_all(want) == refs);
}

TEST_CASE("worked example 2: a sequential read stream is one LZ4 plane") {
  // 4096 reads of consecutive 64-byte lines, one tick apart, from cpu 1.
  std::vector<Reference> refs;
  for (std::uint64_t i = 0; i < 4096; ++i) refs.push_back({1000 + i, 0x40000000 + 64 * i, 64, Kind::Read, Origin::Cpu, 1});
  auto blob = encode(refs);
  // Header and tables to the byte; the LZ4 bytes themselves depend on the liblz4 version.
  const std::vector<std::uint8_t> tables = {
      0x48, 0x4d, 0x54, 0x43, 0x02, 0x00, 0x05, 0x00, 0x00, 0x10, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
      0xe8, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00,
      0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x10, 0x00, 0x00,  // raw size 4096
  };
  REQUIRE(blob.size() > tables.size() + 4 + 4 + 8);
  CHECK(std::vector<std::uint8_t>(blob.begin(), blob.begin() + static_cast<std::ptrdiff_t>(tables.size())) == tables);
  std::uint32_t stored = 0;
  std::memcpy(&stored, blob.data() + 116, 4);
  CHECK(blob[120] == 1);  // LZ4
  CHECK(stored < 64);     // 4096 bytes 04 24 04 04 ... fold into a few dozen
  CHECK(blob.size() == 124 + stored + 8);
  CHECK(decode_all(blob) == refs);

  // Every 16th reference is a write to a second stream: the writes predict by stride too.
  for (std::size_t i = 0; i < refs.size(); i += 16) {
    refs[i].kind = Kind::Write;
    refs[i].address = 0x80000000 + 64 * i;
  }
  blob = encode(refs);
  CHECK(blob.size() < 400);
  CHECK(decode_all(blob) == refs);
}

TEST_CASE("the address model: a lackey-like loop predicts every address after the first pass") {
  // for (i = 0; i < 1000; ++i) b[i] = a[i] + x: four instructions, a strided load, a stack load, a store.
  std::vector<Reference> refs;
  std::uint64_t t = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    refs.push_back({t++, 0x401000, 3, Kind::IFetch, Origin::Unknown, 0});
    refs.push_back({t++, 0x600000 + 8 * i, 8, Kind::Read, Origin::Unknown, 0});
    refs.push_back({t++, 0x401003, 4, Kind::IFetch, Origin::Unknown, 0});
    refs.push_back({t++, 0x7ffff000, 8, Kind::Read, Origin::Unknown, 0});
    refs.push_back({t++, 0x401007, 3, Kind::IFetch, Origin::Unknown, 0});
    refs.push_back({t++, 0x700000 + 8 * i, 8, Kind::Write, Origin::Unknown, 0});
    refs.push_back({t++, 0x40100a, 2, Kind::IFetch, Origin::Unknown, 0});
  }
  ChunkColumns cols;
  REQUIRE(cols.split(refs).ok());
  CHECK(cols.base(1) <= 12);  // residuals: only while the first two iterations train the model
  auto blob = encode(refs);
  CHECK(blob.size() < 7000 / 8);  // under a bit per reference
  CHECK(decode_all(blob) == refs);
}

TEST_CASE("the writer prefers the sequential predictor to the context one (docs/store.md)") {
  // A loop of four instructions (3, 4, 3 and 2 bytes), fetched 50 times. From the third pass the
  // context predicts every fetch exactly; the straight-line ones are sequential too and must be
  // predictor 2 (the decoder then need not wait for the table), the jump back predictor 1.
  std::vector<Reference> refs;
  std::uint64_t t = 0;
  for (int i = 0; i < 50; ++i) {
    for (auto [a, size] : {std::pair{0x401000u, 3u}, {0x401003u, 4u}, {0x401007u, 3u}, {0x40100au, 2u}}) {
      refs.push_back({t++, a, size, Kind::IFetch, Origin::Unknown, 0});
    }
  }
  ChunkColumns cols;
  REQUIRE(cols.split(refs).ok());
  REQUIRE(cols.width(2) == 1);
  const std::size_t kind_plane = cols.width(0) + (cols.base(1) > 0 ? 1 : 0);  // after time and residuals
  const auto plane = cols.plane(kind_plane);
  REQUIRE(plane.size() == refs.size());
  auto byte = [&](std::size_t row) { return static_cast<unsigned>(plane[row] + cols.base(2)); };
  constexpr unsigned kSequential = 0x22, kContext = 0x12;  // kind 2 (fetch) | predictor << 4
  for (std::size_t row = 1; row < refs.size(); ++row) {
    CAPTURE(row);
    if (row % 4 != 0) CHECK(byte(row) == kSequential);
    if (row % 4 == 0 && row >= 12) CHECK(byte(row) == kContext);
  }
  // The first two jumps back are residuals: the table entry has no address, then no stride yet.
  CHECK((byte(4) >> 4) == 3u);
  CHECK((byte(8) >> 4) == 7u);
  CHECK(decode_all(encode(refs)) == refs);
}

TEST_CASE("round trip: random runs, every field, every width") {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 1 + rng() % (trial < 100 ? 50 : 20000);
    std::vector<Reference> refs(n);
    std::uint64_t t = rng() >> (rng() % 64);
    const int tbits = static_cast<int>(rng() % 65);
    const int abits = static_cast<int>(rng() % 65);
    for (auto& r : refs) {
      const std::uint64_t dt = tbits == 0 ? 0 : (rng() >> (64 - tbits));
      t = (t + dt < t) ? t : t + dt;  // saturate instead of wrapping: time never decreases
      r.time = t;
      r.address = abits == 0 ? 0x1234 : (rng() >> (64 - abits));
      if (trial % 7 == 0) r.address &= ~std::uint64_t{63};  // line-aligned: residuals share 6+ zero bits
      r.size = trial % 3 == 0 ? static_cast<std::uint32_t>(rng()) : 64;
      r.kind = static_cast<Kind>(rng() % 4);
      r.origin = static_cast<Origin>(rng() % 4);
      r.source = trial % 5 == 0 ? static_cast<std::uint16_t>(rng()) : 0;
    }
    auto blob = encode(refs, 1 + trial % 4);
    CHECK(decode_all(blob) == refs);
    if (trial % 7 == 0 && abits > 8 && n > 20) CHECK(blob[32 + 16 + 9] >= 6);  // column 1's residual shift
  }
}

TEST_CASE("one ChunkColumns and buffer reused over chunks of every shape pack what fresh ones pack") {
  // Neither the split's scratch nor the BLOB buffer (ScratchVectors, never zero-filled) is cleared
  // between chunks: what an earlier, wider chunk left in them must not reach a BLOB.
  std::mt19937_64 rng(7);
  ChunkColumns reused;
  ScratchVector<std::uint8_t> buffer;
  for (int trial = 0; trial < 60; ++trial) {
    CAPTURE(trial);
    // Big and wide, then small and narrow, and back: every column's width and every plane's
    // encoding changes from one chunk to the next.
    const std::size_t n = trial % 3 == 0 ? 20000 + rng() % 50000 : 1 + rng() % 3000;
    const int tbits = trial % 2 == 0 ? 40 : 1 + static_cast<int>(rng() % 8);
    const int abits = trial % 4 == 0 ? 64 : 12 + static_cast<int>(rng() % 30);
    std::vector<Reference> refs(n);
    std::uint64_t t = rng() >> 20, a = rng() >> (64 - abits);
    for (auto& r : refs) {
      t += rng() >> (64 - tbits);
      a = rng() % 3 == 0 ? rng() >> (64 - abits) : a + 64;
      r.time = t;
      r.address = a;
      r.size = trial % 5 == 0 ? static_cast<std::uint32_t>(rng()) : 64;
      r.kind = static_cast<Kind>(rng() % (trial % 2 == 0 ? 4 : 2));
      r.origin = static_cast<Origin>(rng() % 4);
      r.source = trial % 3 == 1 ? static_cast<std::uint16_t>(rng()) : 0;
    }
    REQUIRE(reused.split(refs).ok());
    const std::size_t len = pack_chunk(reused, 1, buffer);
    ChunkColumns fresh;
    ScratchVector<std::uint8_t> fresh_buffer;
    REQUIRE(fresh.split(refs).ok());
    const std::size_t fresh_len = pack_chunk(fresh, 1, fresh_buffer);
    REQUIRE(len == fresh_len);
    CHECK(std::equal(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(len), fresh_buffer.begin()));
    CHECK(decode_all({buffer.data(), len}) == refs);
  }
}

TEST_CASE("encoder rejects what it cannot store") {
  std::vector<std::uint8_t> blob;
  CHECK_FALSE(encode_chunk({}, blob).ok());
  std::vector<Reference> back = {{10, 0, 0, Kind::Read, Origin::Unknown, 0}, {9, 0, 0, Kind::Read, Origin::Unknown, 0}};
  Status st = encode_chunk(back, blob);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message.find("reference 1: time 9 is before") != std::string::npos);
  std::vector<Reference> bad_kind = {{10, 0, 0, static_cast<Kind>(9), Origin::Unknown, 0}};
  CHECK_FALSE(encode_chunk(bad_kind, blob).ok());
}

TEST_CASE("decoder names what is wrong in a damaged BLOB") {
  std::vector<Reference> refs;
  for (std::uint64_t i = 0; i < 1000; ++i) refs.push_back({i * 3, (i * 7919) % 100000 * 64, 64, Kind::Read, Origin::Unknown, 0});
  const auto good = encode(refs);
  auto message = [](std::vector<std::uint8_t> b) {
    ChunkDecoder d;
    Status st = d.load(b);
    return st.ok() ? std::string("ok") : st.error().message;
  };
  auto refresh = [](std::vector<std::uint8_t>& b) {  // recompute the trailer after an edit
    std::uint64_t h = xxh64({b.data(), b.size() - 8});
    std::memcpy(b.data() + b.size() - 8, &h, 8);
  };
  CHECK(message(good) == "ok");
  CHECK(message({good.begin(), good.begin() + 50}).find("shorter than the minimum") != std::string::npos);
  auto b = good;
  b[0] = 'X';
  CHECK(message(b).find("magic") != std::string::npos);
  b = good;
  b[200] ^= 1;
  CHECK(message(b).find("checksum mismatch") != std::string::npos);
  b = good;
  b.pop_back();
  CHECK(message(b).find("checksum mismatch") != std::string::npos);
  b = good;
  b[4] = 4;
  refresh(b);
  CHECK(message(b).find("version 4, this reader knows 2 and 3") != std::string::npos);
  b = good;
  b[32 + 8] = 9;  // time width 9
  refresh(b);
  CHECK(message(b).find("width 9") != std::string::npos);
  b = good;
  b[4] = 1;  // the never-released version 1
  refresh(b);
  CHECK(message(b).find("version 1, this reader knows 2 and 3") != std::string::npos);
  b = good;
  b[12] += 1;  // plane count
  refresh(b);
  CHECK(message(b).find("plane count") != std::string::npos);
  b = good;
  b[8] = 0, b[9] = 0, b[10] = 0, b[11] = 0;  // zero references
  refresh(b);
  CHECK(message(b).find("reference count 0") != std::string::npos);
}

TEST_CASE("residual varints: the 10-byte case and the shift (docs/store.md varint table)") {
  // Read at 0, then at 2^63 + 1: the difference is odd (shift 0) and zigzags to 2^64 - 3, a 10-byte varint.
  std::vector<Reference> refs = {{0, 0, 8, Kind::Read, Origin::Unknown, 0},
                                 {1, (std::uint64_t{1} << 63) + 1, 8, Kind::Read, Origin::Unknown, 0}};
  auto blob = encode(refs);
  CHECK(blob[32 + 16] == 1);      // one residual
  CHECK(blob[32 + 16 + 9] == 0);  // shift 0
  // Planes: time (width 0: deltas all equal after row 0), residual stream, kind byte (width 1: 0x00, 0x30).
  std::uint32_t raw = 0;
  std::memcpy(&raw, blob.data() + 112, 4);
  CHECK(raw == 10);
  const std::vector<std::uint8_t> stream(blob.begin() + 112 + 24, blob.begin() + 112 + 24 + 10);
  CHECK(stream == std::vector<std::uint8_t>{0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01});
  CHECK(decode_all(blob) == refs);
  // Line-aligned differences share 6 zero bits (more here: 0x1000 apart), dropped by the shift.
  refs = {{0, 0x10000, 64, Kind::Read, Origin::Unknown, 0}, {1, 0x7000, 64, Kind::Write, Origin::Unknown, 0},
          {2, 0x30000, 64, Kind::Read, Origin::Unknown, 0}};
  blob = encode(refs);
  CHECK(blob[32 + 16] == 2);
  CHECK(blob[32 + 16 + 9] == 12);  // -0x9000 and 0x20000 share 12 trailing zero bits
  CHECK(decode_all(blob) == refs);
}

TEST_CASE("decoder rejects a malformed residual stream and says which residual") {
  // Two 10-byte residuals (differences of magnitude over 2^62, one odd, bytes LZ4 cannot shorten),
  // stored raw as plane 0 at offset 136.
  const std::vector<Reference> refs = {{0, 0, 8, Kind::Read, Origin::Unknown, 0},
                                       {1, 0xB7E151628AED2A6BULL, 8, Kind::Read, Origin::Unknown, 0},
                                       {2, 0x3243F6A8885A308DULL, 8, Kind::Read, Origin::Unknown, 0}};
  const auto good = encode(refs);
  REQUIRE(good[32 + 16] == 2);  // two residuals
  REQUIRE(good[112 + 8] == 0);  // plane 0 (the residual stream) is raw
  std::uint32_t raw = 0;
  std::memcpy(&raw, good.data() + 112, 4);
  REQUIRE(raw == 20);
  CHECK(decode_all(good) == refs);
  auto message = load_with_trailer;
  auto b = good;
  b[136 + 9] |= 0x80;  // residual 0 runs on: ten continuation bytes in a row
  CHECK(message(b).find("residual 0 is not a complete varint") != std::string::npos);
  b = good;
  b[136 + 19] |= 0x80;  // the stream ends inside residual 1
  CHECK(message(b).find("residual 1 is not a complete varint") != std::string::npos);
  b = good;  // two stop bytes as expected, but the first varint is 11 bytes long
  for (int i = 0; i < 20; ++i) b[136 + static_cast<std::size_t>(i)] = (i == 10 || i == 19) ? 0x01 : 0xFF;
  CHECK(message(b).find("residual 0 is not a complete varint") != std::string::npos);
  b = good;
  b[136] = 0x01;  // three varints where the kind column selects two
  CHECK(message(b).find("10 bytes left after the last residual") != std::string::npos);
}

// The store writer summarises each chunk while it copies the references in (kinds, column ranges)
// and split uses that summary instead of finding it again: the BLOB and the chunk's stats must be
// exactly those of a split without it, whatever the stream and however the chunk was filled.
TEST_CASE("split with the writer's summary packs the same BLOB and stats as without") {
  std::mt19937_64 rng(11);
  enum Shape { BoardLines, RandomSizes, RandomSources, WithIFetch, EqualTimes, BigGaps };
  for (Shape shape : {BoardLines, RandomSizes, RandomSources, WithIFetch, EqualTimes, BigGaps}) {
    for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{1000}, std::size_t{70000}}) {
      CAPTURE(static_cast<int>(shape));
      CAPTURE(n);
      std::vector<Reference> refs(n);
      std::uint64_t t = 1000 + rng() % 100, a = 0x40000000;
      for (auto& r : refs) {
        t += shape == EqualTimes ? 0 : (shape == BigGaps ? rng() % (1ull << 40) : 1 + rng() % 5);
        a = rng() % 4 == 0 ? (rng() & 0xFFFFFFFFULL) & ~std::uint64_t{63} : a + 64;
        r.time = t;
        r.address = a;
        r.size = shape == RandomSizes ? 1 + static_cast<std::uint32_t>(rng() % 300) : 64;
        r.source = shape == RandomSources ? static_cast<std::uint16_t>(rng()) : 3;
        r.kind = shape == WithIFetch ? static_cast<Kind>(rng() % 4) : static_cast<Kind>(rng() % 2);
        r.origin = Origin::Dma;
      }
      // The writer's way: uneven batches, each checked, copied and added to the summary.
      ChunkSummary summary;
      std::vector<Reference> copy(n);
      std::size_t at = 0, piece = 1;
      std::uint64_t prev = refs[0].time;
      while (at < n) {
        const std::size_t take = std::min(piece, n - at);
        REQUIRE(check_and_copy_references({refs.data() + at, take}, prev, at, copy.data() + at, summary).ok());
        prev = refs[at + take - 1].time;
        at += take;
        piece = piece * 3 + 1;
      }
      CHECK(copy == refs);
      ChunkColumns plain, summarised;
      REQUIRE(plain.split(refs).ok());
      REQUIRE(summarised.split(refs, true, &summary).ok());
      ScratchVector<std::uint8_t> b1, b2;
      const std::size_t l1 = pack_chunk(plain, 1, b1), l2 = pack_chunk(summarised, 1, b2);
      REQUIRE(l1 == l2);
      CHECK(std::memcmp(b1.data(), b2.data(), l1) == 0);
      const ChunkStats &s1 = plain.stats(), &s2 = summarised.stats();
      CHECK(s1.a_min == s2.a_min);
      CHECK(s1.a_max == s2.a_max);
      CHECK(s1.t_first == s2.t_first);
      CHECK(s1.t_last == s2.t_last);
      CHECK(s1.by_kind == s2.by_kind);
      CHECK(s1.kind_mask == s2.kind_mask);
      CHECK(s1.origin_mask == s2.origin_mask);
      CHECK(s1.plane_bytes == s2.plane_bytes);
    }
  }
}

TEST_CASE("a chunk's stats count every kind and name every origin present") {
  // split() counts kinds sixteen rows a step with byte counters emptied every 255 steps: sizes
  // around both, every mix of kinds and origins, against a plain count.
  std::mt19937_64 rng(23);
  for (std::size_t n : {std::size_t{1}, std::size_t{15}, std::size_t{16}, std::size_t{17}, std::size_t{4079},
                        std::size_t{4080}, std::size_t{4081}, std::size_t{16 * 255 * 3 + 7}, std::size_t{131072}}) {
    for (int trial = 0; trial < 6; ++trial) {
      CAPTURE(n);
      CAPTURE(trial);
      const unsigned kinds = 1 + static_cast<unsigned>(rng() % 15), origins = 1 + static_cast<unsigned>(rng() % 15);
      auto pick = [&](unsigned set) {
        for (;;) {
          const unsigned v = static_cast<unsigned>(rng() % 4);
          if ((set >> v) & 1) return v;
        }
      };
      std::vector<Reference> refs(n);
      std::array<std::uint64_t, kKindCount> want_kind{};
      std::uint32_t want_kinds = 0, want_origins = 0;
      std::uint64_t t = 10;
      unsigned run_kind = pick(kinds);
      for (auto& r : refs) {
        t += rng() % 3;
        r.time = t;
        r.address = (rng() & 0xFFFFFF) << 6;
        r.size = 64;
        // Odd trials: runs of one kind about 5000 long, so a byte counter sees 255 steps of it.
        if (rng() % 5000 == 0) run_kind = pick(kinds);
        const unsigned k = trial % 2 == 0 ? pick(kinds) : run_kind;
        r.kind = static_cast<Kind>(k);
        r.origin = static_cast<Origin>(pick(origins));
        ++want_kind[k];
        want_kinds |= 1u << k;
        want_origins |= 1u << static_cast<unsigned>(r.origin);
      }
      if (trial == 5) {  // one kind and one origin throughout
        for (auto& r : refs) {
          r.kind = Kind::Write;
          r.origin = Origin::Cpu;
        }
        want_kind = {0, n, 0, 0};
        want_kinds = 1u << 1;
        want_origins = 1u << static_cast<unsigned>(Origin::Cpu);
      }
      ChunkColumns cols;
      REQUIRE(cols.split(refs).ok());
      CHECK(cols.stats().by_kind == want_kind);
      CHECK(cols.stats().kind_mask == want_kinds);
      CHECK(cols.stats().origin_mask == want_origins);
    }
  }
}

TEST_CASE("a batch that fails its check leaves the chunk's summary as it was") {
  std::vector<Reference> refs(5);
  for (std::size_t i = 0; i < refs.size(); ++i) {
    refs[i].time = 10 * i;
    refs[i].address = 0x1000 + 64 * i;
  }
  ChunkSummary summary;
  std::vector<Reference> out(5);
  REQUIRE(check_and_copy_references({refs.data(), 2}, 0, 0, out.data(), summary).ok());
  const ChunkSummary before = summary;
  refs[3].time = 5;  // before reference 2's time 20
  Status st = check_and_copy_references({refs.data() + 2, 3}, refs[1].time, 2, out.data() + 2, summary);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message.find("reference 3: time 5 is before the previous reference's time 20") != std::string::npos);
  CHECK(summary.a_max == before.a_max);
  CHECK(summary.dt_max == before.dt_max);
  CHECK(summary.kind_mask == before.kind_mask);
}

TEST_CASE("a kind or origin out of range fails the check wherever it is, and names its reference") {
  // check_and_copy_references tests kinds and origins through one OR of each reference's last
  // eight bytes: every bit above the low two of either byte must show, in any row.
  for (const unsigned bad : {4u, 8u, 0x40u, 0x80u, 0xFFu}) {
    for (const bool in_origin : {false, true}) {
      for (const std::size_t row : {std::size_t{0}, std::size_t{1}, std::size_t{6}}) {
        CAPTURE(bad);
        CAPTURE(in_origin);
        CAPTURE(row);
        std::vector<Reference> refs(7);
        for (std::size_t i = 0; i < refs.size(); ++i) {
          refs[i].time = 10 * i;
          refs[i].address = 0x1000 + 64 * i;
          refs[i].size = 64;
          refs[i].kind = static_cast<Kind>(i % 4);
          refs[i].origin = static_cast<Origin>(3 - i % 4);
          refs[i].source = 0xFFFF;
        }
        if (in_origin) {
          refs[row].origin = static_cast<Origin>(bad);
        } else {
          refs[row].kind = static_cast<Kind>(bad);
        }
        ChunkSummary summary;
        std::vector<Reference> out(refs.size());
        Status st = check_and_copy_references(refs, 0, 5, out.data(), summary);
        REQUIRE_FALSE(st.ok());
        CHECK(st.error().message.find("reference " + std::to_string(5 + row) + ": kind") != std::string::npos);
        CHECK(summary.kind_mask == 0);
      }
    }
  }
}

TEST_CASE("packed planes: the docs/store.md example byte for byte, and every width round trips") {
  // {5, 9, 5, 7, 9, 9, 5, 7, 7}: k = 3 symbols {5, 7, 9}, w = 2, indices 0 2 0 1 2 2 0 1 1 LSB first.
  const std::vector<std::uint8_t> plane = {5, 9, 5, 7, 9, 9, 5, 7, 7};
  detail::PackedPlan plan;
  REQUIRE(detail::plan_packed(plane, plan));
  CHECK(plan.symbols == 3);
  CHECK(plan.width == 2);
  REQUIRE(plan.bytes == 7);
  std::vector<std::uint8_t> payload(plan.bytes + 8, 0xEE);
  detail::write_packed(plane, plan, payload.data());
  payload.resize(plan.bytes);
  CHECK(payload == std::vector<std::uint8_t>{0x02, 0x05, 0x07, 0x09, 0x48, 0x4A, 0x01});
  std::vector<std::uint8_t> back(plane.size());
  REQUIRE(detail::read_packed(payload, plane.size(), back.data()).ok());
  CHECK(back == plane);

  std::mt19937_64 rng(5);
  for (unsigned k : {1u, 2u, 3u, 4u, 5u, 8u, 9u, 16u, 17u, 31u, 32u, 33u, 64u, 65u, 100u, 128u}) {
    for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{9}, std::size_t{63},
                          std::size_t{1000}, std::size_t{4097}}) {
      CAPTURE(k);
      CAPTURE(n);
      // k symbols spread over 0..255, or a run of consecutive values (the unpacker's add path);
      // the first n draws use all of them when n >= k.
      const bool run = rng() % 2 == 0;
      CAPTURE(run);
      std::vector<std::uint8_t> symbols(256);
      for (unsigned v = 0; v < 256; ++v) symbols[v] = static_cast<std::uint8_t>(run ? (v + 256 - k) % 256 : v);
      if (!run) std::shuffle(symbols.begin(), symbols.end(), rng);
      symbols.resize(k);
      std::vector<std::uint8_t> in(n);
      for (std::size_t i = 0; i < n; ++i) in[i] = symbols[i < k ? i : rng() % k];
      REQUIRE(detail::plan_packed(in, plan));
      const unsigned used = static_cast<unsigned>(std::min<std::size_t>(k, n));
      CHECK(plan.symbols == used);
      const unsigned w = used <= 1 ? 0 : static_cast<unsigned>(std::bit_width(used - 1));
      CHECK(plan.width == w);
      CHECK(plan.bytes == 1 + used + (n * w + 7) / 8);
      std::vector<std::uint8_t> buf(plan.bytes + 8);
      detail::write_packed(in, plan, buf.data());
      buf.resize(plan.bytes);
      std::vector<std::uint8_t> out(n);
      REQUIRE(detail::read_packed(buf, n, out.data()).ok());
      CHECK(out == in);
    }
  }
  std::vector<std::uint8_t> many(300);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = static_cast<std::uint8_t>(i);
  CHECK_FALSE(detail::plan_packed(many, plan));  // 256 distinct values: more than 128
}

TEST_CASE("packed planes: the decoder names what is wrong") {
  const std::vector<std::uint8_t> good = {0x02, 0x05, 0x07, 0x09, 0x48, 0x4A, 0x01};  // the example above
  auto message = [](const std::vector<std::uint8_t>& payload, std::size_t raw = 9) {
    std::vector<std::uint8_t> out(raw);
    Status st = detail::read_packed(payload, raw, out.data());
    return st.ok() ? std::string("ok") : st.error().message;
  };
  CHECK(message(good) == "ok");
  CHECK(message({}).find("empty") != std::string::npos);
  auto b = good;
  b[0] = 200;
  CHECK(message(b).find("201 symbols, more than 128") != std::string::npos);
  b = good;
  b[2] = 0x05;  // table 5 5 9
  CHECK(message(b).find("not in increasing order at byte 2") != std::string::npos);
  b = good;
  b.push_back(0);
  CHECK(message(b).find("takes 7 bytes, not 8") != std::string::npos);
  CHECK(message(good, 13).find("3 symbols and 13 bytes takes 8 bytes, not 7") != std::string::npos);
  b = good;
  b[6] = 0x05;  // index 8 = 1, and a bit set in the padding
  CHECK(message(b).find("bits set past its last index") != std::string::npos);
  b = good;
  b[4] = 0x4B;  // index 0 = 3: past 3 symbols
  CHECK(message(b).find("index 0 (byte 4) is 3, past its 3 symbols") != std::string::npos);
  // The same deep in a long plane, where indices are unpacked eight at a time: a table of
  // consecutive values (5 6 7) and a scattered one (5 7 9).
  for (std::uint8_t mid : {std::uint8_t{6}, std::uint8_t{7}}) {
    std::vector<std::uint8_t> plane(4097);
    for (std::size_t i = 0; i < plane.size(); ++i) plane[i] = i % 3 == 0 ? 5 : i % 3 == 1 ? mid : 9 - (mid == 6 ? 2 : 0);
    detail::PackedPlan plan;
    REQUIRE(detail::plan_packed(plane, plan));
    REQUIRE(plan.width == 2);
    std::vector<std::uint8_t> payload(plan.bytes + 8);
    detail::write_packed(plane, plan, payload.data());
    payload.resize(plan.bytes);
    CHECK(message(payload, plane.size()) == "ok");
    payload[4 + 1000 / 4] |= 0x03 << (2 * (1000 % 4));  // index 1000 becomes 3
    CHECK(message(payload, plane.size()).find("index 1000 (byte 254) is 3, past its 3 symbols") != std::string::npos);
  }
}

TEST_CASE("a plane that repeats beyond the 4 KiB probe is not packed when LZ4 makes it far smaller") {
  // A loop of 2,000 references (random kinds and addresses, the same every pass), run 65 times. Once
  // the predictors' tables have settled they choose the same every pass, so the kind plane (kind and
  // predictor bits) repeats every 2,000 bytes and LZ4 shrinks it far below the 4-bit packed form; its
  // first 4 KiB, compressed alone, hold the first two passes, which differ, and see no repetition.
  // Before the wider probe the writer packed such planes (sed of 1 MB under lackey: 0.625 bytes a
  // reference packed against 0.18-0.25 with LZ4; docs/store.md "Packed planes").
  constexpr std::size_t kPeriod = 2000;
  std::mt19937_64 rng(11);
  std::vector<Kind> kinds(kPeriod);
  std::vector<std::uint64_t> addresses(kPeriod);
  for (std::size_t j = 0; j < kPeriod; ++j) {
    kinds[j] = static_cast<Kind>(rng() % 4);
    addresses[j] = 0x400000 + (rng() % 65536) * 4;
  }
  std::vector<Reference> refs(131072);
  for (std::size_t i = 0; i < refs.size(); ++i) {
    refs[i].time = i;
    refs[i].size = 4;
    refs[i].kind = kinds[i % kPeriod];
    refs[i].address = addresses[i % kPeriod];
  }
  const auto blob = encode(refs);
  std::uint32_t planes = 0;
  std::memcpy(&planes, blob.data() + 12, 4);
  REQUIRE(blob[64 + 8] == 1);  // column 2 (kinds) has one plane, after columns 0 and 1's
  const std::size_t kind_plane = std::size_t{blob[32 + 8]} + blob[48 + 8];
  REQUIRE(kind_plane < planes);
  const std::uint8_t* e = blob.data() + 112 + 12 * kind_plane;
  std::uint32_t stored = 0;
  std::memcpy(&stored, e + 4, 4);
  CHECK(e[8] == 1);                 // LZ4, not packed (2)
  CHECK(stored < refs.size() / 8);  // the 4-bit packed plane would take half a byte a reference
  CHECK(decode_all(blob) == refs);
}

TEST_CASE("a plane that looks like noise in its first 4 KiB but repeats further on is LZ4, not raw") {
  // Time steps of 0-127 ticks (seven bits each: no LZ4 match in the first 4 KiB), the same 5,000 steps
  // over and over. The first probe calls the plane noise; the wider one, which it asks because the
  // plane would pack, sees the repetition, and then LZ4 must get the whole plane.
  constexpr std::size_t kPeriod = 5000;
  std::mt19937_64 rng(12);
  std::vector<std::uint64_t> steps(kPeriod);
  for (auto& s : steps) s = rng() % 128;
  std::vector<Reference> refs(131072);
  std::uint64_t t = 0;
  for (std::size_t i = 0; i < refs.size(); ++i) {
    t += steps[i % kPeriod];
    refs[i].time = t;
    refs[i].size = 64;
    refs[i].kind = Kind::Read;
    refs[i].address = 0x10000000 + 64 * i;
  }
  const auto blob = encode(refs);
  REQUIRE(blob[32 + 8] == 1);  // column 0 (time deltas): one plane, the first
  std::uint32_t stored = 0;
  std::memcpy(&stored, blob.data() + 112 + 4, 4);
  CHECK(blob[112 + 8] == 1);  // LZ4, neither packed (2) nor raw (0)
  CHECK(stored < refs.size() / 4);
  CHECK(decode_all(blob) == refs);
}

TEST_CASE("a plane the probe takes for repetitive is packed when LZ4 of the whole plane is larger") {
  // 4,096 sequential reads, then reads and writes at random: the kind plane's first 4 KiB are one value
  // (the probe guesses about a kilobyte for the plane), the rest a few values at random, which LZ4 cannot shrink
  // to the packed plane's bits. With LZ4's real output in hand the writer must pack.
  std::mt19937_64 rng(13);
  std::vector<Reference> refs(131072);
  for (std::size_t i = 0; i < refs.size(); ++i) {
    refs[i].time = i;
    refs[i].size = 64;
    refs[i].kind = i < 4096 || rng() % 2 ? Kind::Read : Kind::Write;
    refs[i].address = 0x10000000 + 64 * i;
  }
  const auto blob = encode(refs);
  REQUIRE(blob[64 + 8] == 1);  // column 2 (kinds): one plane
  const std::size_t kind_plane = std::size_t{blob[32 + 8]} + blob[48 + 8];
  const std::uint8_t* e = blob.data() + 112 + 12 * kind_plane;
  CHECK(blob[4] == 3);
  CHECK(e[8] == 2);  // packed
  CHECK(decode_all(blob) == refs);
}

TEST_CASE("a board-like chunk bit-packs its time and kind planes (format 3) and decodes") {
  // Line-sized reads and writes, streams and random lines, time steps of 1-4 (one in eight up to 40):
  // the time plane (40 values) and the kind plane (a few) are packed; the residuals stay raw.
  std::mt19937_64 rng(3);
  std::vector<Reference> refs(131072);
  std::uint64_t t = 0, seq = 0x10000000;
  for (auto& r : refs) {
    t += 1 + (rng() % 8 == 0 ? rng() % 40 : rng() % 4);
    r.time = t;
    r.size = 64;
    if (rng() % 10 < 7) {
      r.address = seq;
      seq += 64;
      r.kind = Kind::Read;
    } else {
      r.address = (rng() & 0xFFFFFFFFULL) & ~std::uint64_t{63};
      r.kind = rng() % 4 == 0 ? Kind::Write : Kind::Read;
    }
  }
  const auto blob = encode(refs);
  CHECK(blob[4] == 3);
  std::uint32_t planes = 0;
  std::memcpy(&planes, blob.data() + 12, 4);
  REQUIRE(planes == 3);  // time, residuals, kind
  CHECK(blob[112 + 8] == 2);       // time: packed
  CHECK(blob[112 + 12 + 8] == 0);  // residuals: raw (random lines)
  CHECK(blob[112 + 24 + 8] == 2);  // kind: packed
  CHECK(decode_all(blob) == refs);

  // The plane table as `hmtt info --planes` reads it.
  auto table = chunk_planes(blob);
  REQUIRE(table);
  CHECK(table->refs == refs.size());
  REQUIRE(table->planes.size() == 3);
  CHECK(table->planes[0].column == Column::TimeDelta);
  CHECK(table->planes[0].encoding == PlaneEncoding::Packed);
  CHECK(table->planes[0].raw_bytes == refs.size());
  CHECK(table->planes[1].column == Column::Residual);
  CHECK(table->planes[1].encoding == PlaneEncoding::Raw);
  CHECK(table->planes[1].stored_bytes == table->planes[1].raw_bytes);
  CHECK(table->planes[2].column == Column::KindOrigin);
  CHECK(table->planes[2].encoding == PlaneEncoding::Packed);
  std::size_t stored = 0;
  for (const auto& p : table->planes) stored += p.stored_bytes;
  CHECK(stored + 112 + 3 * 12 + 8 == blob.size());  // header and column table, plane table, checksum

  auto message = load_with_trailer;
  auto b = blob;
  b[blob.size() - 1] ^= 1;
  auto damaged = chunk_planes(b);
  REQUIRE(!damaged);
  CHECK(damaged.error().message.find("checksum mismatch") != std::string::npos);
  b = blob;
  b[4] = 2;  // a packed plane in a format 2 chunk
  CHECK(message(b).find("offset 120: plane encoding 2 (packed) in a chunk of format version 2") != std::string::npos);
  b = blob;
  b[112 + 12 + 8] = 2;  // the residual stream marked packed
  CHECK(message(b).find("offset 132: the residual stream (plane 1) cannot be packed") != std::string::npos);
  const std::size_t time_at = 112 + 3 * 12;  // the time plane's payload follows the plane table
  b = blob;
  b[time_at + 2] = b[time_at + 1];  // the time plane's symbol table: two equal entries
  CHECK(message(b).find("offset 148: plane 0: packed plane's symbol table is not in increasing order at byte 2") !=
        std::string::npos);
}
