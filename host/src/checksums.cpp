#include "hmtt/host/checksums.h"

#include <zlib.h>

#include <bit>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace hmtt::host {

namespace {

#if defined(__x86_64__)
#define HMTT_CLMUL __attribute__((target("pclmul,sse4.1")))
HMTT_CLMUL inline __m128i load16(const std::uint8_t* q) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(q)); }
// x folded 128 bits forward with constants k, plus next.
HMTT_CLMUL inline __m128i fold128(__m128i x, __m128i k, __m128i next) {
  const __m128i lo = _mm_clmulepi64_si128(x, k, 0x00);
  return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x11), next), lo);
}
// Folds 64-byte blocks four lanes at a time, then to 128, 64 and 32 bits (Barrett reduction).
// `len` must be a multiple of 16 and at least 64; `crc` is the running CRC, not inverted.
HMTT_CLMUL std::uint32_t crc32_clmul(const std::uint8_t* p, std::size_t len,
                                                                    std::uint32_t crc) {
  const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596LL, 0x0154442bd4LL);
  const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009eLL, 0x01751997d0LL);
  const __m128i k5 = _mm_set_epi64x(0, 0x0163cd6124LL);
  const __m128i poly = _mm_set_epi64x(0x01f7011641LL, 0x01db710641LL);
  const __m128i low32 = _mm_setr_epi32(-1, 0, -1, 0);

  __m128i a = _mm_xor_si128(load16(p), _mm_cvtsi32_si128(static_cast<int>(~crc)));
  __m128i b = load16(p + 16), c = load16(p + 32), d = load16(p + 48);
  p += 64;
  len -= 64;
  while (len >= 64) {
    a = fold128(a, k1k2, load16(p));
    b = fold128(b, k1k2, load16(p + 16));
    c = fold128(c, k1k2, load16(p + 32));
    d = fold128(d, k1k2, load16(p + 48));
    p += 64;
    len -= 64;
  }
  a = fold128(a, k3k4, b);
  a = fold128(a, k3k4, c);
  a = fold128(a, k3k4, d);
  while (len >= 16) {
    a = fold128(a, k3k4, load16(p));
    p += 16;
    len -= 16;
  }
  // 128 -> 64 bits.
  __m128i t = _mm_clmulepi64_si128(a, k3k4, 0x10);
  a = _mm_xor_si128(_mm_srli_si128(a, 8), t);
  // 64 -> 32 bits.
  t = _mm_srli_si128(a, 4);
  a = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(a, low32), k5, 0x00), t);
  // Barrett reduction.
  t = _mm_clmulepi64_si128(_mm_and_si128(a, low32), poly, 0x10);
  t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), poly, 0x00);
  a = _mm_xor_si128(a, t);
  return ~static_cast<std::uint32_t>(_mm_extract_epi32(a, 1));
}

bool have_pclmul() {
  static const bool ok = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return ok;
}
#endif

}  // namespace

bool crc32_uses_pclmul() {
#if defined(__x86_64__)
  return have_pclmul();
#else
  return false;
#endif
}

std::uint32_t fast_crc32(std::span<const std::uint8_t> b) {
  uLong crc = ::crc32(0L, Z_NULL, 0);
  const std::uint8_t* p = b.data();
  std::size_t n = b.size();
#if defined(__x86_64__)
  if (n >= 64 && have_pclmul()) {
    const std::size_t bulk = n & ~std::size_t{15};
    crc = crc32_clmul(p, bulk, static_cast<std::uint32_t>(crc));
    p += bulk;
    n -= bulk;
  }
#endif
  if (n > 0) crc = ::crc32(crc, p, static_cast<uInt>(n));
  return static_cast<std::uint32_t>(crc);
}

std::uint16_t ones_sum16(std::span<const std::uint8_t> b, std::uint64_t sum) {
  // RFC 1071: the one's-complement sum does not depend on byte order, so the data are summed as
  // native (little-endian) words, 32 bits at a time into two 64-bit accumulators (no carry is
  // lost below 2^32 words), folded to 16 bits and byte-swapped once; then the caller's big-endian
  // `sum` is added. (Assembling big-endian words byte by byte cost 3 % of an ingest's CPU.)
  const std::uint8_t* p = b.data();
  std::size_t n = b.size();
  std::uint64_t a0 = 0, a1 = 0;
  while (n >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    a0 += w & 0xFFFFFFFFu;
    a1 += w >> 32;
    p += 8;
    n -= 8;
  }
  std::uint64_t acc = a0 + a1;
  if (n >= 4) {
    std::uint32_t w;
    std::memcpy(&w, p, 4);
    acc += w;
    p += 4;
    n -= 4;
  }
  if (n >= 2) {
    std::uint16_t w;
    std::memcpy(&w, p, 2);
    acc += w;
    p += 2;
    n -= 2;
  }
  if (n == 1) acc += p[0];  // the last byte is a big-endian word's high byte: a native word's low one
  while (acc >> 16) acc = (acc & 0xFFFF) + (acc >> 16);
  if constexpr (std::endian::native == std::endian::little) acc = __builtin_bswap16(static_cast<std::uint16_t>(acc));
  sum += acc;
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<std::uint16_t>(sum);
}

}  // namespace hmtt::host
