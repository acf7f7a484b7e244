// The chunk codec (docs/store.md, "The chunk BLOB").
#include "hmtt/store/chunk.h"

#include <lz4.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "hmtt/store/checksum.h"

namespace hmtt::store {
namespace {

// Byte order on disk is little-endian; hmtt builds only for little-endian hosts.
static_assert(std::endian::native == std::endian::little, "the chunk codec assumes a little-endian host");

inline void put16(std::uint8_t* p, std::uint16_t v) { std::memcpy(p, &v, 2); }
inline void put32(std::uint8_t* p, std::uint32_t v) { std::memcpy(p, &v, 4); }
inline void put64(std::uint8_t* p, std::uint64_t v) { std::memcpy(p, &v, 8); }
inline std::uint16_t get16(const std::uint8_t* p) {
  std::uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
inline std::uint32_t get32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline std::uint64_t get64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline std::uint64_t zigzag(std::uint64_t d) {
  return (d << 1) ^ static_cast<std::uint64_t>(static_cast<std::int64_t>(d) >> 63);
}
inline std::uint64_t unzigzag(std::uint64_t z) { return (z >> 1) ^ (0 - (z & 1)); }

// Bytes needed to hold v (0 for v == 0).
inline std::uint8_t byte_width(std::uint64_t v) {
  return static_cast<std::uint8_t>(v == 0 ? 0 : (64 - std::countl_zero(v) + 7) / 8);
}

// Room for n elements in a scratch buffer whose contents are about to be rewritten: when it must
// grow, nothing is moved to the new allocation.
template <typename V>
void grow(V& v, std::size_t n) {
  if (v.size() < n) {
    v.clear();
    v.resize(n);
  }
}

template <typename T>
void cut_planes(const T* values, std::size_t n, std::uint64_t base, std::uint8_t width, std::uint8_t* out) {
  for (std::uint8_t b = 0; b < width; ++b) {
    std::uint8_t* plane = out + static_cast<std::size_t>(b) * n;
    const unsigned shift = 8u * b;
    for (std::size_t i = 0; i < n; ++i) {
      plane[i] = static_cast<std::uint8_t>((static_cast<std::uint64_t>(values[i]) - base) >> shift);
    }
  }
}

// Rebuilds base + sum(plane[b][i] << 8b) for i in [from, from + m).
template <int W>
void gather_w(const std::uint8_t* const* planes, std::size_t from, std::size_t m, std::uint64_t base,
              std::uint64_t* out) {
  const std::uint8_t* p[W > 0 ? W : 1];
  for (int b = 0; b < W; ++b) p[b] = planes[b] + from;
  for (std::size_t j = 0; j < m; ++j) {
    std::uint64_t v = 0;
    for (int b = 0; b < W; ++b) v |= static_cast<std::uint64_t>(p[b][j]) << (8 * b);
    out[j] = v + base;
  }
}

void gather(const std::uint8_t* const* planes, int width, std::size_t from, std::size_t m, std::uint64_t base,
            std::uint64_t* out) {
  switch (width) {
    case 0: gather_w<0>(planes, from, m, base, out); break;
    case 1: gather_w<1>(planes, from, m, base, out); break;
    case 2: gather_w<2>(planes, from, m, base, out); break;
    case 3: gather_w<3>(planes, from, m, base, out); break;
    case 4: gather_w<4>(planes, from, m, base, out); break;
    case 5: gather_w<5>(planes, from, m, base, out); break;
    case 6: gather_w<6>(planes, from, m, base, out); break;
    case 7: gather_w<7>(planes, from, m, base, out); break;
    default: gather_w<8>(planes, from, m, base, out); break;
  }
}

}  // namespace

namespace detail {

namespace {
inline std::uint8_t* put_long_varint(std::uint64_t z, std::uint8_t* res) {
  while (z >= 0x80) {
    *res++ = static_cast<std::uint8_t>(z | 0x80);
    z >>= 7;
  }
  *res++ = static_cast<std::uint8_t>(z);
  return res;
}

inline unsigned varint_len(std::uint64_t z) { return (64 - static_cast<unsigned>(std::countl_zero(z | 1)) + 6) / 7; }
inline std::uint64_t stop_bits(unsigned len) { return 0x8080808080808080ULL & ((std::uint64_t{1} << (8 * (len - 1))) - 1); }

}  // namespace

// Column 1's residual stream (chunk.h): up to 8 bytes (values below 2^56) a varint is one word, its
// 7-bit groups spread into bytes and the stop bits set, written at once (`out` has 8 bytes of
// slack); longer ones take the byte loop.
std::uint8_t* encode_residuals_generic(const std::uint64_t* dv, std::uint64_t m, unsigned shift, std::uint8_t* res) {
  for (std::uint64_t v = 0; v < m; ++v) {
    const std::uint64_t z = zigzag(static_cast<std::uint64_t>(static_cast<std::int64_t>(dv[v]) >> shift));
    if (z >= (std::uint64_t{1} << 56)) {
      res = put_long_varint(z, res);
      continue;
    }
    const unsigned len = varint_len(z);
    std::uint64_t x = (z & 0x000000000FFFFFFFULL) | ((z & 0x00FFFFFFF0000000ULL) << 4);
    x = (x & 0x00003FFF00003FFFULL) | ((x & 0x0FFFC0000FFFC000ULL) << 2);
    x = (x & 0x007F007F007F007FULL) | ((x & 0x3F803F803F803F80ULL) << 1);
    x |= stop_bits(len);
    std::memcpy(res, &x, 8);
    res += len;
  }
  return res;
}

#if defined(__x86_64__)
// The same with BMI2's PDEP spreading the groups in one instruction (and LZCNT for the length).
__attribute__((target("bmi2,lzcnt"))) std::uint8_t* encode_residuals_bmi2(const std::uint64_t* dv, std::uint64_t m,
                                                                          unsigned shift, std::uint8_t* res) {
  for (std::uint64_t v = 0; v < m; ++v) {
    const std::uint64_t z = zigzag(static_cast<std::uint64_t>(static_cast<std::int64_t>(dv[v]) >> shift));
    if (z >= (std::uint64_t{1} << 56)) {
      res = put_long_varint(z, res);
      continue;
    }
    const unsigned len = varint_len(z);  // LZCNT here
    const std::uint64_t x = _pdep_u64(z, 0x7F7F7F7F7F7F7F7FULL) | stop_bits(len);
    std::memcpy(res, &x, 8);
    res += len;
  }
  return res;
}
#endif

bool residual_bmi2_available() {
#if defined(__x86_64__)
  // CPUID itself: clang's __builtin_cpu_supports knows no "lzcnt" (the libFuzzer build failed on it).
  static const bool ok = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    const bool bmi2 = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 8)) != 0;      // leaf 7 EBX bit 8
    const bool lzcnt = __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & (1u << 5)) != 0;  // ECX bit 5 (ABM)
    return bmi2 && lzcnt;
  }();
  return ok;
#else
  return false;
#endif
}

std::uint8_t* encode_residuals(const std::uint64_t* dv, std::uint64_t m, unsigned shift, std::uint8_t* res) {
#if defined(__x86_64__)
  if (residual_bmi2_available()) return encode_residuals_bmi2(dv, m, shift, res);
#endif
  return encode_residuals_generic(dv, m, shift, res);
}

// Packed planes. Eight values make W bytes of codes (8 x W bits), written or read as one word.
namespace {

template <unsigned W>
void pack_codes(const std::uint8_t* in, std::size_t n, const std::uint8_t* code, std::uint8_t* out) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t v = 0;
    for (unsigned j = 0; j < 8; ++j) v |= std::uint64_t{code[in[i + j]]} << (W * j);
    std::memcpy(out, &v, 8);  // W bytes belong to this group; the rest is overwritten or slack
    out += W;
  }
  if (i < n) {
    std::uint64_t v = 0;
    for (unsigned j = 0; i + j < n; ++j) v |= std::uint64_t{code[in[i + j]]} << (W * j);
    std::memcpy(out, &v, 8);
  }
}

// Returns nonzero if an index is k or more (then `out` holds garbage; the caller reports it).
template <unsigned W>
unsigned unpack_codes(const std::uint8_t* codes, std::size_t code_bytes, std::size_t n, const std::uint8_t* table,
                      unsigned k, std::uint8_t* out) {
  constexpr std::uint64_t mask = (std::uint64_t{1} << W) - 1;
  unsigned top = 0;
  std::size_t i = 0, at = 0;
  for (; i + 8 <= n && at + 8 <= code_bytes; i += 8, at += W) {
    std::uint64_t v;
    std::memcpy(&v, codes + at, 8);
    for (unsigned j = 0; j < 8; ++j) {
      const auto c = static_cast<unsigned>((v >> (W * j)) & mask);
      top |= c + (kPackedMaxSymbols - k);  // bit 7 set iff c >= k (c, k <= 128)
      out[i + j] = table[c];
    }
  }
  for (; i < n; i += 8, at += W) {  // the last groups, without reading past the payload
    std::uint8_t tail[16] = {};
    std::memcpy(tail, codes + at, std::min<std::size_t>(8, code_bytes - at));
    std::uint64_t v;
    std::memcpy(&v, tail, 8);
    for (unsigned j = 0; j < 8 && i + j < n; ++j) {
      const auto c = static_cast<unsigned>((v >> (W * j)) & mask);
      top |= c + (kPackedMaxSymbols - k);
      out[i + j] = table[c];
    }
  }
  return top & kPackedMaxSymbols;
}

#if defined(__x86_64__)
// The bulk of a plane eight indices at a time with BMI2's PDEP spreading them into bytes; the
// values are then index + table[0] when the table is a run of consecutive values (a time plane's
// steps), else an SSSE3 byte shuffle through the table when it has at most 16 entries. Returns how
// many values it did (a multiple of 8; 0 when neither applies) and ORs bit 7 into `bad` if an
// index is k or more.
__attribute__((target("bmi2,ssse3"))) std::size_t unpack_bulk_bmi2(const std::uint8_t* codes, std::size_t code_bytes,
                                                                   std::size_t n, unsigned w, unsigned k,
                                                                   const std::uint8_t* table, std::uint8_t* out,
                                                                   std::uint64_t& bad) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  const bool consecutive = table[k - 1] - table[0] == static_cast<int>(k - 1);
  if (w == 0 || (!consecutive && w > 4)) return 0;
  const std::uint64_t spread = ((std::uint64_t{1} << w) - 1) * kOnes;
  const std::uint64_t over = (kPackedMaxSymbols - k) * kOnes;  // + index: bit 7 set iff index >= k
  const std::uint64_t base = table[0] * kOnes;
  std::size_t i = 0, at = 0;
  std::uint64_t flag = 0;
  if (consecutive) {
    for (; i + 8 <= n && at + 8 <= code_bytes; i += 8, at += w) {
      std::uint64_t v;
      std::memcpy(&v, codes + at, 8);
      const std::uint64_t idx = _pdep_u64(v, spread);
      flag |= idx + over;
      const std::uint64_t bytes = idx + base;  // no carries: table[0] + index <= table[k - 1] <= 255
      std::memcpy(out + i, &bytes, 8);
    }
  } else {
    std::uint8_t t16[16] = {};
    std::memcpy(t16, table, k);
    const __m128i lut = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t16));
    for (; i + 8 <= n && at + 8 <= code_bytes; i += 8, at += w) {
      std::uint64_t v;
      std::memcpy(&v, codes + at, 8);
      const std::uint64_t idx = _pdep_u64(v, spread);
      flag |= idx + over;
      const auto bytes = static_cast<std::uint64_t>(
          _mm_cvtsi128_si64(_mm_shuffle_epi8(lut, _mm_cvtsi64_si128(static_cast<long long>(idx)))));
      std::memcpy(out + i, &bytes, 8);
    }
  }
  bad |= flag & (0x80 * kOnes);
  return i;
}
#endif

}  // namespace

namespace {

// Presence of each byte value. Eight bytes at a time, stored only when one of them is new: the
// loads do not wait on stores (0.28 against 0.70 ns a byte storing every byte, on 40 values).
void mark_present(std::span<const std::uint8_t> plane, std::array<std::uint8_t, 256>& seen) {
  const std::uint8_t* in = plane.data();
  const std::size_t n = plane.size();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const unsigned all = seen[in[i]] & seen[in[i + 1]] & seen[in[i + 2]] & seen[in[i + 3]] & seen[in[i + 4]] &
                         seen[in[i + 5]] & seen[in[i + 6]] & seen[in[i + 7]];
    if (!all) {
      for (unsigned j = 0; j < 8; ++j) seen[in[i + j]] = 1;
    }
  }
  for (; i < n; ++i) seen[in[i]] = 1;
}

}  // namespace

unsigned packed_width(unsigned k) { return k <= 1 ? 0 : static_cast<unsigned>(std::bit_width(k - 1)); }

unsigned distinct_bytes(std::span<const std::uint8_t> plane) {
  std::array<std::uint8_t, 256> seen{};
  mark_present(plane, seen);
  return static_cast<unsigned>(std::count(seen.begin(), seen.end(), std::uint8_t{1}));
}

bool plan_packed(std::span<const std::uint8_t> plane, PackedPlan& plan) {
  if (plane.empty()) return false;
  std::array<std::uint8_t, 256> seen{};
  mark_present(plane, seen);
  const auto k = static_cast<unsigned>(std::count(seen.begin(), seen.end(), std::uint8_t{1}));
  if (k > kPackedMaxSymbols) return false;
  plan.symbols = k;
  plan.width = packed_width(k);
  plan.bytes = 1 + k + (plane.size() * plan.width + 7) / 8;
  plan.code.fill(0);
  plan.table.fill(0);
  for (unsigned v = 0, r = 0; v < 256; ++v) {
    if (!seen[v]) continue;
    plan.code[v] = static_cast<std::uint8_t>(r);
    plan.table[r++] = static_cast<std::uint8_t>(v);
  }
  return true;
}

void write_packed(std::span<const std::uint8_t> plane, const PackedPlan& plan, std::uint8_t* out) {
  out[0] = static_cast<std::uint8_t>(plan.symbols - 1);
  std::memcpy(out + 1, plan.table.data(), plan.symbols);
  std::uint8_t* codes = out + 1 + plan.symbols;
  const std::uint8_t* in = plane.data();
  const std::size_t n = plane.size();
  const std::uint8_t* code = plan.code.data();
  switch (plan.width) {
    case 0: break;
    case 1: pack_codes<1>(in, n, code, codes); break;
    case 2: pack_codes<2>(in, n, code, codes); break;
    case 3: pack_codes<3>(in, n, code, codes); break;
    case 4: pack_codes<4>(in, n, code, codes); break;
    case 5: pack_codes<5>(in, n, code, codes); break;
    case 6: pack_codes<6>(in, n, code, codes); break;
    default: pack_codes<7>(in, n, code, codes); break;
  }
}

Status read_packed(std::span<const std::uint8_t> payload, std::size_t raw, std::uint8_t* out) {
  if (payload.empty()) return make_error("packed plane is empty");
  const unsigned k = payload[0] + 1u;
  if (k > kPackedMaxSymbols) {
    return make_error("packed plane has " + std::to_string(k) + " symbols, more than " + std::to_string(kPackedMaxSymbols));
  }
  const unsigned w = packed_width(k);
  const std::size_t code_bytes = (raw * w + 7) / 8;
  if (payload.size() != 1 + k + code_bytes) {
    return make_error("packed plane of " + std::to_string(k) + " symbols and " + std::to_string(raw) + " bytes takes " +
                      std::to_string(1 + k + code_bytes) + " bytes, not " + std::to_string(payload.size()));
  }
  std::array<std::uint8_t, kPackedMaxSymbols> table{};
  for (unsigned r = 0; r < k; ++r) {
    table[r] = payload[1 + r];
    if (r > 0 && table[r] <= table[r - 1]) {
      return make_error("packed plane's symbol table is not in increasing order at byte " + std::to_string(1 + r));
    }
  }
  const std::uint8_t* codes = payload.data() + 1 + k;
  if (const unsigned used = static_cast<unsigned>((raw * w) % 8); used != 0 && (codes[code_bytes - 1] >> used) != 0) {
    return make_error("packed plane's last byte (" + std::to_string(payload.size() - 1) + ") has bits set past its last index");
  }
  std::uint64_t top = 0;
  std::size_t done = 0;  // values unpacked by the BMI2 loop (a multiple of 8: its codes end on a byte)
#if defined(__x86_64__)
  static const bool simd = residual_bmi2_available() && [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 9)) != 0;  // SSSE3: leaf 1 ECX bit 9
  }();
  if (simd) done = unpack_bulk_bmi2(codes, code_bytes, raw, w, k, table.data(), out, top);
#endif
  const std::uint8_t* rest = codes + done / 8 * w;
  const std::size_t rest_bytes = code_bytes - done / 8 * w;
  switch (w) {
    case 0: std::memset(out, table[0], raw); break;
    case 1: top |= unpack_codes<1>(rest, rest_bytes, raw - done, table.data(), k, out + done); break;
    case 2: top |= unpack_codes<2>(rest, rest_bytes, raw - done, table.data(), k, out + done); break;
    case 3: top |= unpack_codes<3>(rest, rest_bytes, raw - done, table.data(), k, out + done); break;
    case 4: top |= unpack_codes<4>(rest, rest_bytes, raw - done, table.data(), k, out + done); break;
    case 5: top |= unpack_codes<5>(rest, rest_bytes, raw - done, table.data(), k, out + done); break;
    case 6: top |= unpack_codes<6>(rest, rest_bytes, raw - done, table.data(), k, out + done); break;
    default: top |= unpack_codes<7>(rest, rest_bytes, raw - done, table.data(), k, out + done); break;
  }
  if (top != 0) {
    // Name the first one (an index takes at most two bytes: w <= 7).
    for (std::size_t i = 0; i < raw; ++i) {
      const std::size_t bit = i * w;
      const unsigned pair = codes[bit / 8] | (bit / 8 + 1 < code_bytes ? codes[bit / 8 + 1] << 8 : 0u);
      const unsigned c = (pair >> (bit % 8)) & ((1u << w) - 1);
      if (c >= k) {
        return make_error("packed plane's index " + std::to_string(i) + " (byte " + std::to_string(1 + k + bit / 8) +
                          ") is " + std::to_string(c) + ", past its " + std::to_string(k) + " symbols");
      }
    }
  }
  return Status::success();
}

}  // namespace detail

namespace {

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

namespace {

// Typed gather: out[j] = base + sum(plane[b][from + j] << 8b), j < m.
template <typename T, int W>
void gather_t(const std::uint8_t* const* planes, std::size_t from, std::size_t m, std::uint64_t base, T* out) {
  if constexpr (W == 0) {
    std::fill(out, out + m, static_cast<T>(base));
  } else if constexpr (W == 1) {
    const std::uint8_t* p = planes[0] + from;
    for (std::size_t j = 0; j < m; ++j) out[j] = static_cast<T>(p[j] + base);
  } else {
    const std::uint8_t* p[W];
    for (int b = 0; b < W; ++b) p[b] = planes[b] + from;
    for (std::size_t j = 0; j < m; ++j) {
      std::uint64_t v = 0;
      for (int b = 0; b < W; ++b) v |= static_cast<std::uint64_t>(p[b][j]) << (8 * b);
      out[j] = static_cast<T>(v + base);
    }
  }
}

template <typename T>
void gather_typed(const std::uint8_t* const* planes, int width, std::size_t from, std::size_t m, std::uint64_t base,
                  T* out) {
  switch (width) {
    case 0: gather_t<T, 0>(planes, from, m, base, out); break;
    case 1: gather_t<T, 1>(planes, from, m, base, out); break;
    case 2: gather_t<T, 2>(planes, from, m, base, out); break;
    case 3: gather_t<T, 3>(planes, from, m, base, out); break;
    case 4: gather_t<T, 4>(planes, from, m, base, out); break;
    case 5: gather_t<T, 5>(planes, from, m, base, out); break;
    case 6: gather_t<T, 6>(planes, from, m, base, out); break;
    case 7: gather_t<T, 7>(planes, from, m, base, out); break;
    default: gather_t<T, 8>(planes, from, m, base, out); break;
  }
}

// One LEB128 varint at p (advanced past it). The residual stream always has 8 readable bytes
// after each varint's first byte (the BLOB's trailer, or the slack of the LZ4 buffer), so a
// varint of up to 8 bytes is read as one word; longer ones take the byte loop. A varint is at
// most 10 bytes (load() checks that): the loop stops there as load() assumes.
inline std::uint64_t read_varint(const std::uint8_t*& p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  const std::uint64_t stops = ~w & 0x8080808080808080ULL;
  if (stops != 0) {
    std::uint64_t x = w & (stops ^ (stops - 1)) & 0x7F7F7F7F7F7F7F7FULL;
    p += (std::countr_zero(stops) + 1) / 8;
    x = (x & 0x007F007F007F007FULL) | ((x & 0x7F007F007F007F00ULL) >> 1);
    x = (x & 0x00003FFF00003FFFULL) | ((x & 0x3FFF00003FFF0000ULL) >> 2);
    return (x & 0x000000000FFFFFFFULL) | ((x & 0x0FFFFFFF00000000ULL) >> 4);
  }
  std::uint64_t z = 0;
  unsigned bits = 0;
  std::uint8_t byte;
  do {
    byte = *p++;
    z |= static_cast<std::uint64_t>(byte & 0x7F) << bits;
    bits += 7;
  } while ((byte & 0x80) && bits < 64);
  return z;
}

// Decodes `count` varints from p into out[i] = unzigzag(v) << shift; returns the position after
// them. The stop bytes are found a word at a time and walked in a register, so one varint's
// decoding does not wait for the previous one's length (read_varint's pointer chain). Same
// slack as read_varint: 8 readable bytes after any byte of the stream.
inline const std::uint8_t* read_varints(const std::uint8_t* p, std::size_t count, unsigned shift, std::uint64_t* out) {
  std::size_t v = 0;
  std::size_t start = 0;  // first byte of the next varint, relative to p
  for (std::size_t w = 0; v < count; w += 8) {
    std::uint64_t word;
    std::memcpy(&word, p + w, 8);
    std::uint64_t stops = ~word & 0x8080808080808080ULL;  // every varint before w has ended before w
    while (stops != 0 && v < count) {
      const std::size_t end = w + (static_cast<std::size_t>(std::countr_zero(stops)) >> 3);  // its stop byte
      const std::size_t len = end - start + 1;
      std::uint64_t z;
      if (len <= 8) {
        std::uint64_t x;
        std::memcpy(&x, p + start, 8);
        x &= (~0ULL >> (64 - 8 * len)) & 0x7F7F7F7F7F7F7F7FULL;
        x = (x & 0x007F007F007F007FULL) | ((x & 0x7F007F007F007F00ULL) >> 1);
        x = (x & 0x00003FFF00003FFFULL) | ((x & 0x3FFF00003FFF0000ULL) >> 2);
        z = (x & 0x000000000FFFFFFFULL) | ((x & 0x0FFFFFFF00000000ULL) >> 4);
      } else {
        const std::uint8_t* q = p + start;
        z = read_varint(q);
      }
      out[v++] = unzigzag(z) << shift;
      start = end + 1;
      stops &= stops - 1;
    }
  }
  return p + start;
}

// All-ones if c, else zero.
inline std::uint64_t mask_if(bool c) { return 0 - static_cast<std::uint64_t>(c); }

}  // namespace

Status check_references(std::span<const Reference> refs, std::uint64_t prev_time, std::size_t first_index) {
  // One branch-free pass; only a bad run is walked again to say where.
  bool bad = false;
  std::uint64_t prev = prev_time;
  for (const Reference& r : refs) {
    bad |= r.time < prev || static_cast<unsigned>(r.kind) >= 4 || static_cast<unsigned>(r.origin) >= 4;
    prev = r.time;
  }
  if (!bad) return Status::success();
  prev = prev_time;
  for (std::size_t i = 0; i < refs.size(); ++i) {
    const Reference& r = refs[i];
    if (r.time < prev) {
      return make_error("reference " + std::to_string(first_index + i) + ": time " + std::to_string(r.time) +
                        " is before the previous reference's time " + std::to_string(prev));
    }
    if (static_cast<unsigned>(r.kind) >= 4 || static_cast<unsigned>(r.origin) >= 4) {
      return make_error("reference " + std::to_string(first_index + i) + ": kind " + std::to_string(static_cast<unsigned>(r.kind)) +
                        " or origin " + std::to_string(static_cast<unsigned>(r.origin)) + " out of range");
    }
    prev = r.time;
  }
  return Status::success();
}

void ChunkSummary::merge(const ChunkSummary& o) {
  if (o.kind_mask == 0) return;  // no references (every reference sets a kind bit)
  if (kind_mask == 0) {
    *this = o;
    return;
  }
  size_xor |= o.size_xor | (o.size_first ^ size_first);
  source_xor |= static_cast<std::uint16_t>(o.source_xor | (o.source_first ^ source_first));
  kind_mask |= o.kind_mask;
  a_min = std::min(a_min, o.a_min);
  a_max = std::max(a_max, o.a_max);
  dt_min = std::min(dt_min, o.dt_min);
  dt_max = std::max(dt_max, o.dt_max);
}

namespace {
// A Reference's bytes 16-23 as one little-endian word: size in bits 0-31, kind 32-39, origin 40-47,
// source 48-63.
static_assert(std::endian::native == std::endian::little, "tail_word reads a little-endian word");
static_assert(offsetof(Reference, size) == 16 && offsetof(Reference, kind) == 20 && offsetof(Reference, origin) == 21 &&
                  offsetof(Reference, source) == 22,
              "tail_word's layout");
constexpr unsigned kTailKindShift = 32;
constexpr std::uint64_t kTailKindOriginHigh = std::uint64_t{0xFCFC} << 32;  // kind or origin above 3
std::uint64_t tail_word(const Reference& r) {
  std::uint64_t w;
  std::memcpy(&w, reinterpret_cast<const unsigned char*>(&r) + 16, sizeof w);
  return w;
}
}  // namespace

namespace detail {

RowSums row_sums_generic(const Reference* rows, std::size_t n, std::uint64_t prev_time, bool first_has_delta) {
  // A reference's last eight bytes (size, kind, origin, source) read as one word: one load, and
  // one OR and one XOR take what four field loads and their tests took (the pass is bound by its
  // instruction count once the copy is in cache). Kinds and origins out of range show in the OR.
  RowSums s;
  if (n == 0) return s;
  std::uint64_t prev = prev_time;
  const std::uint64_t tail0 = tail_word(rows[0]);
  auto take = [&](std::size_t i, bool delta) {
    const Reference& r = rows[i];
    const std::uint64_t w = tail_word(r);
    s.late |= r.time < prev;
    if (delta) {
      const std::uint64_t dt = r.time - prev;
      s.dt_min = std::min(s.dt_min, dt);
      s.dt_max = std::max(s.dt_max, dt);
    }
    s.a_min = std::min(s.a_min, r.address);
    s.a_max = std::max(s.a_max, r.address);
    s.tail_or |= w;
    s.tail_xor |= w ^ tail0;
    s.kinds |= 1u << ((w >> kTailKindShift) & 31);
    prev = r.time;
  };
  std::size_t i = 0;
  if (!first_has_delta && n > 0) take(i++, false);
  for (; i < n; ++i) take(i, true);
  return s;
}

#if defined(__x86_64__)
// Four rows a step: three 32-byte loads hold them as [t0 a0 w0 t1] [a1 w1 t2 a2] [w2 t3 a3 w3]
// (time, address, tail word), blended into one vector of each; unsigned 64-bit order by comparing
// with the sign bit flipped (AVX2 compares signed). The rows before and after the steps, and the
// first row when it has no delta, go through the generic loop's steps.
// With kCopy, every row is also stored to `out` (the loop's three loads stored as they are).
template <bool kCopy>
__attribute__((target("avx2"))) RowSums row_sums_avx2_loop(const Reference* rows, std::size_t n,
                                                           std::uint64_t prev_time, bool first_has_delta,
                                                           Reference* out) {
  constexpr std::uint64_t kSign = 0x8000000000000000ULL;
  std::size_t i = first_has_delta ? 0 : 1;
  if (n == 0) return RowSums{};
  if constexpr (kCopy) std::memcpy(out, rows, i * sizeof(Reference));
  RowSums s = row_sums_generic(rows, i, prev_time, first_has_delta);
  std::uint64_t prev = i > 0 ? rows[0].time : prev_time;
  if (n - i >= 4) {
    const std::uint64_t tail0 = tail_word(rows[0]);
    const __m256i sign = _mm256_set1_epi64x(static_cast<long long>(kSign));
    __m256i prev_s = _mm256_set1_epi64x(static_cast<long long>(prev ^ kSign));
    __m256i late = _mm256_setzero_si256(), tail_or = late, tail_xor = late, kinds = late;
    __m256i dmin = _mm256_set1_epi64x(static_cast<long long>(~kSign)), dmax = sign;  // UINT64_MAX, 0 flipped
    __m256i amin = dmin, amax = sign;
    const __m256i t0 = _mm256_set1_epi64x(static_cast<long long>(tail0));
    const __m256i one = _mm256_set1_epi64x(1), k31 = _mm256_set1_epi64x(31);
    for (; i + 4 <= n; i += 4) {
      const auto* p = reinterpret_cast<const __m256i*>(rows + i);
      const __m256i v0 = _mm256_loadu_si256(p), v1 = _mm256_loadu_si256(p + 1), v2 = _mm256_loadu_si256(p + 2);
      if constexpr (kCopy) {
        auto* q = reinterpret_cast<__m256i*>(out + i);
        _mm256_storeu_si256(q, v0);
        _mm256_storeu_si256(q + 1, v1);
        _mm256_storeu_si256(q + 2, v2);
      }
      // [t0 t3 t2 t1] -> [t0 t1 t2 t3]; the addresses and tails in any order (their ORs and ranges).
      const __m256i t = _mm256_permute4x64_epi64(_mm256_blend_epi32(_mm256_blend_epi32(v0, v1, 0x30), v2, 0x0C), 0x6C);
      const __m256i a = _mm256_blend_epi32(_mm256_blend_epi32(v0, v1, 0xC3), v2, 0x30);
      const __m256i w = _mm256_blend_epi32(_mm256_blend_epi32(v0, v1, 0x0C), v2, 0xC3);
      const __m256i ts = _mm256_xor_si256(t, sign);
      const __m256i ps = _mm256_blend_epi32(_mm256_permute4x64_epi64(ts, 0x90), prev_s, 0x03);  // [prev t0 t1 t2]
      prev_s = _mm256_permute4x64_epi64(ts, 0xFF);
      late = _mm256_or_si256(late, _mm256_cmpgt_epi64(ps, ts));
      const __m256i ds = _mm256_xor_si256(_mm256_sub_epi64(ts, ps), sign);
      dmin = _mm256_blendv_epi8(dmin, ds, _mm256_cmpgt_epi64(dmin, ds));
      dmax = _mm256_blendv_epi8(dmax, ds, _mm256_cmpgt_epi64(ds, dmax));
      const __m256i as = _mm256_xor_si256(a, sign);
      amin = _mm256_blendv_epi8(amin, as, _mm256_cmpgt_epi64(amin, as));
      amax = _mm256_blendv_epi8(amax, as, _mm256_cmpgt_epi64(as, amax));
      tail_or = _mm256_or_si256(tail_or, w);
      tail_xor = _mm256_or_si256(tail_xor, _mm256_xor_si256(w, t0));
      kinds = _mm256_or_si256(
          kinds, _mm256_sllv_epi64(one, _mm256_and_si256(_mm256_srli_epi64(w, kTailKindShift), k31)));
    }
    alignas(32) std::uint64_t l[4][8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(l[0]), late);
    _mm256_store_si256(reinterpret_cast<__m256i*>(l[0] + 4), tail_or);
    _mm256_store_si256(reinterpret_cast<__m256i*>(l[1]), tail_xor);
    _mm256_store_si256(reinterpret_cast<__m256i*>(l[1] + 4), kinds);
    _mm256_store_si256(reinterpret_cast<__m256i*>(l[2]), dmin);
    _mm256_store_si256(reinterpret_cast<__m256i*>(l[2] + 4), dmax);
    _mm256_store_si256(reinterpret_cast<__m256i*>(l[3]), amin);
    _mm256_store_si256(reinterpret_cast<__m256i*>(l[3] + 4), amax);
    for (int j = 0; j < 4; ++j) {
      s.late |= l[0][j] != 0;
      s.tail_or |= l[0][4 + j];
      s.tail_xor |= l[1][j];
      s.kinds |= static_cast<std::uint32_t>(l[1][4 + j]);
      s.dt_min = std::min(s.dt_min, l[2][j] ^ kSign);
      s.dt_max = std::max(s.dt_max, l[2][4 + j] ^ kSign);
      s.a_min = std::min(s.a_min, l[3][j] ^ kSign);
      s.a_max = std::max(s.a_max, l[3][4 + j] ^ kSign);
    }
    prev = rows[i - 1].time;
  }
  // The last rows: sums over them (each has a delta) against the row before them, then merged.
  if (i < n) {
    if constexpr (kCopy) std::memcpy(out + i, rows + i, (n - i) * sizeof(Reference));
    RowSums r = row_sums_generic(rows + i, n - i, prev, true);
    r.tail_xor |= tail_word(rows[i]) ^ tail_word(rows[0]);  // theirs is against rows[i], ours against rows[0]
    s.late |= r.late;
    s.dt_min = std::min(s.dt_min, r.dt_min);
    s.dt_max = std::max(s.dt_max, r.dt_max);
    s.a_min = std::min(s.a_min, r.a_min);
    s.a_max = std::max(s.a_max, r.a_max);
    s.tail_or |= r.tail_or;
    s.tail_xor |= r.tail_xor;
    s.kinds |= r.kinds;
  }
  return s;
}

__attribute__((target("avx2"))) RowSums row_sums_avx2(const Reference* rows, std::size_t n, std::uint64_t prev_time,
                                                      bool first_has_delta) {
  return row_sums_avx2_loop<false>(rows, n, prev_time, first_has_delta, nullptr);
}

__attribute__((target("avx2"))) RowSums row_sums_copy_avx2(const Reference* rows, std::size_t n,
                                                           std::uint64_t prev_time, bool first_has_delta,
                                                           Reference* out) {
  return row_sums_avx2_loop<true>(rows, n, prev_time, first_has_delta, out);
}
#endif

bool row_sums_avx2_available() {
#if defined(__x86_64__)
  static const bool ok = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    // Leaf 7 EBX bit 5 (AVX2), and the OS saving the YMM registers (leaf 1 ECX bit 27 OSXSAVE, XCR0 bits 1-2).
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || (b & (1u << 5)) == 0) return false;
    if (!__get_cpuid(1, &a, &b, &c, &d) || (c & (1u << 27)) == 0) return false;
    unsigned lo = 0, hi = 0;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 6u) == 6u;
  }();
  return ok;
#else
  return false;
#endif
}

RowSums row_sums(const Reference* rows, std::size_t n, std::uint64_t prev_time, bool first_has_delta) {
#if defined(__x86_64__)
  if (row_sums_avx2_available()) return row_sums_avx2(rows, n, prev_time, first_has_delta);
#endif
  return row_sums_generic(rows, n, prev_time, first_has_delta);
}

RowSums row_sums_copy(const Reference* rows, std::size_t n, std::uint64_t prev_time, bool first_has_delta,
                      Reference* out) {
#if defined(__x86_64__)
  if (row_sums_avx2_available()) return row_sums_copy_avx2(rows, n, prev_time, first_has_delta, out);
#endif
  std::memcpy(out, rows, n * sizeof(Reference));
  return row_sums_generic(out, n, prev_time, first_has_delta);
}

bool board_loop_avx512_available() {
#if defined(__x86_64__)
  // libgcc's check includes the OS saving the ZMM registers (XCR0).
  static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd");
  return ok;
#else
  return false;
#endif
}

#if defined(__x86_64__)
// Eight rows a step. Their 24 words (time, address, tail word each) come in three 64-byte loads and
// are gathered into one vector of each by two permutes. The predictor's state is three vectors
// indexed by kind (lanes 0-3). Which earlier row of the same kind a row follows comes from one
// conflict detection over 16 dwords: the eight kinds, then the constants 0-3. Lane i's mask is
// the earlier rows of its kind in the step (the highest bit is the one it follows; none: the
// state's entry for its kind), and lane 8 + k's mask is every row of kind k in the step (the
// highest is the one the state keeps). A step is then a few dozen instructions where the scalar
// loop took about fifty a row, its state carried through memory by kind.
// GCC 12's AVX-512 intrinsics start many results from _mm512_undefined, which its flow analysis
// reports as maybe-uninitialized (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
template <bool kTimeBytes>
__attribute__((target("avx512f,avx512cd,popcnt"))) std::size_t board_loop_avx512_steps(
    const Reference* refs, std::size_t n, std::uint64_t time_base, BoardLoopState& s, std::uint8_t* tp,
    std::uint64_t* td, std::uint8_t* kos, std::uint64_t* df) {
  static_assert(sizeof(Reference) == 24 && offsetof(Reference, address) == 8, "three words a row");
  const std::size_t steps = n / 8;
  if (steps == 0) return 0;
  const __m512i time_of = _mm512_setr_epi64(0, 3, 6, 9, 12, 15, 0, 0);  // rows 0-5 from words 0-15
  const __m512i time_hi = _mm512_setr_epi64(0, 0, 0, 0, 0, 0, 2, 5);   // rows 6-7 from words 16-23
  const __m512i addr_of = _mm512_setr_epi64(1, 4, 7, 10, 13, 0, 0, 0);
  const __m512i addr_hi = _mm512_setr_epi64(0, 0, 0, 0, 0, 0, 3, 6);
  const __m512i tail_of = _mm512_setr_epi64(2, 5, 8, 11, 14, 0, 0, 0);
  const __m512i tail_hi = _mm512_setr_epi64(0, 0, 0, 0, 0, 1, 4, 7);
  // Lanes 8-11 hold the kinds 0-3 and lanes 12-15 values no kind has (kinds are below 4).
  const __m512i kind_consts = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 16, 17, 18, 19);
  const __m512i c63 = _mm512_set1_epi64(63), byte = _mm512_set1_epi64(0xFF), low32 = _mm512_set1_epi64(0xFFFFFFFF);
  const __m512i two = _mm512_set1_epi64(2), three = _mm512_set1_epi64(3);
  const __m512i base = _mm512_set1_epi64(static_cast<long long>(time_base));
  __m512i last = _mm512_maskz_loadu_epi64(0x0F, s.last.data());
  __m512i stride = _mm512_maskz_loadu_epi64(0x0F, s.stride.data());
  __m512i lsize = _mm512_maskz_loadu_epi64(0x0F, s.lsize.data());
  __m512i prev_t = _mm512_set1_epi64(static_cast<long long>(s.prev_t));
  __m512i diff_bits = _mm512_setzero_si512();
  std::uint64_t misses = s.misses;
  const auto* words = reinterpret_cast<const long long*>(refs);
  for (std::size_t step = 0; step < steps; ++step) {
    const std::size_t i = step * 8;
    const __m512i v0 = _mm512_loadu_si512(words + 3 * i);
    const __m512i v1 = _mm512_loadu_si512(words + 3 * i + 8);
    const __m512i v2 = _mm512_loadu_si512(words + 3 * i + 16);
    const __m512i t = _mm512_mask_permutexvar_epi64(_mm512_permutex2var_epi64(v0, time_of, v1), 0xC0, time_hi, v2);
    const __m512i a = _mm512_mask_permutexvar_epi64(_mm512_permutex2var_epi64(v0, addr_of, v1), 0xE0, addr_hi, v2);
    const __m512i w = _mm512_mask_permutexvar_epi64(_mm512_permutex2var_epi64(v0, tail_of, v1), 0xE0, tail_hi, v2);
    // Time deltas against the row before (the previous step's last time in lane 0).
    const __m512i dt = _mm512_sub_epi64(t, _mm512_alignr_epi64(t, prev_t, 7));
    prev_t = t;
    if constexpr (kTimeBytes) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(tp + i), _mm512_cvtepi64_epi8(_mm512_sub_epi64(dt, base)));
    } else {
      _mm512_storeu_si512(td + i, dt);
    }
    const __m512i k = _mm512_and_si512(_mm512_srli_epi64(w, 32), byte);
    const __m512i o = _mm512_and_si512(_mm512_srli_epi64(w, 40), byte);
    const __m512i z = _mm512_and_si512(w, low32);
    const __m512i conflicts =
        _mm512_conflict_epi32(_mm512_inserti64x4(kind_consts, _mm512_cvtepi64_epi32(k), 0));
    const __m512i earlier = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(conflicts));
    const __m512i latest = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(conflicts, 1));
    const __mmask8 has = _mm512_test_epi64_mask(earlier, earlier);
    const __m512i j = _mm512_sub_epi64(c63, _mm512_lzcnt_epi64(earlier));  // the row followed, where has
    const __m512i d =
        _mm512_sub_epi64(a, _mm512_mask_permutexvar_epi64(_mm512_permutexvar_epi64(k, last), has, j, a));
    const __m512i sprev = _mm512_mask_permutexvar_epi64(_mm512_permutexvar_epi64(k, stride), has, j, d);
    const __m512i zprev = _mm512_mask_permutexvar_epi64(_mm512_permutexvar_epi64(k, lsize), has, j, z);
    const __mmask8 e0 = _mm512_cmpeq_epi64_mask(d, sprev);
    const __mmask8 e2 = _mm512_cmpeq_epi64_mask(d, zprev);
    const auto miss = static_cast<__mmask8>(~(e0 | e2));
    const __m512i sel = _mm512_maskz_mov_epi64(static_cast<__mmask8>(~e0), _mm512_mask_blend_epi64(e2, three, two));
    _mm512_storeu_si512(df + misses, _mm512_maskz_compress_epi64(miss, d));
    misses += static_cast<unsigned>(__builtin_popcount(miss));
    diff_bits = _mm512_mask_or_epi64(diff_bits, miss, diff_bits, d);
    const __m512i ko = _mm512_or_si512(_mm512_or_si512(k, _mm512_slli_epi64(o, 2)), _mm512_slli_epi64(sel, 4));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(kos + i), _mm512_cvtepi64_epi8(ko));
    // The state: for each kind with a row in the step, that of its last row.
    const __mmask8 seen = _mm512_test_epi64_mask(latest, latest) & 0x0F;
    const __m512i at = _mm512_sub_epi64(c63, _mm512_lzcnt_epi64(latest));
    last = _mm512_mask_permutexvar_epi64(last, seen, at, a);
    stride = _mm512_mask_permutexvar_epi64(stride, seen, at, d);
    lsize = _mm512_mask_permutexvar_epi64(lsize, seen, at, z);
  }
  _mm512_mask_storeu_epi64(s.last.data(), 0x0F, last);
  _mm512_mask_storeu_epi64(s.stride.data(), 0x0F, stride);
  _mm512_mask_storeu_epi64(s.lsize.data(), 0x0F, lsize);
  s.prev_t = refs[steps * 8 - 1].time;
  s.misses = misses;
  s.diff_bits |= static_cast<std::uint64_t>(_mm512_reduce_or_epi64(diff_bits));
  return steps * 8;
}

std::size_t board_loop_avx512(const Reference* refs, std::size_t n, std::uint64_t time_base, BoardLoopState& s,
                              std::uint8_t* tp, std::uint64_t* td, std::uint8_t* kos, std::uint64_t* df) {
  return td != nullptr ? board_loop_avx512_steps<false>(refs, n, time_base, s, tp, td, kos, df)
                       : board_loop_avx512_steps<true>(refs, n, time_base, s, tp, td, kos, df);
}
#pragma GCC diagnostic pop
#endif

}  // namespace detail

Status check_and_copy_references(std::span<const Reference> refs, std::uint64_t prev_time, std::size_t first_index,
                                 Reference* out, ChunkSummary& summary) {
  // One pass that copies and sums four rows a step with AVX2 where the CPU has it (three 32-byte
  // loads, stored as they are): store_bench's "check and copy" 1.73-1.79 -> 1.15-1.27 ns a
  // reference against libc's memcpy and then a pass over the copy (docs/benchmarks.md, stop 47).
  // A field-by-field copy had waited on each cold line of the caller's references (2026-11-29);
  // whole-vector loads in address order do not. The ranges this pass takes cost little here and
  // spare the workers' split loop as many registers.
  if (refs.empty()) return Status::success();
  const detail::RowSums r = detail::row_sums_copy(refs.data(), refs.size(), prev_time, first_index != 0, out);
  const bool bad = r.late || (r.tail_or & kTailKindOriginHigh) != 0;
  if (bad) return check_references(refs, prev_time, first_index);  // names the first bad reference
  ChunkSummary s;
  s.kind_mask = r.kinds;
  s.a_min = r.a_min;
  s.a_max = r.a_max;
  s.dt_min = r.dt_min;
  s.dt_max = r.dt_max;
  s.size_first = out[0].size;
  s.size_xor = static_cast<std::uint32_t>(r.tail_xor);
  s.source_first = out[0].source;
  s.source_xor = static_cast<std::uint16_t>(r.tail_xor >> 48);
  summary.merge(s);
  return Status::success();
}

std::size_t ChunkColumns::plane_count() const { return plane_list_.size(); }

std::span<const std::uint8_t> ChunkColumns::plane(std::size_t p) const { return plane_list_[p]; }

Status ChunkColumns::split(std::span<const Reference> refs, bool checked, const ChunkSummary* summary) {
  const std::size_t n = refs.size();
  if (n == 0) return make_error("no references");
  if (n > kChunkMaxRefs) {
    return make_error(std::to_string(n) + " references, more than the limit " + std::to_string(kChunkMaxRefs));
  }
  grow(tdelta_, n);
  grow(size_, n);
  grow(source_, n);
  grow(ko_, n);
  grow(residuals_, n * 10 + 8);  // + 8: varints are written a word at a time
  if (!checked) HMTT_TRY(check_references(refs, refs[0].time));
  stats_ = ChunkStats{};
  stats_.refs = static_cast<std::uint32_t>(n);
  t_first_ = refs[0].time;
  a_first_ = refs[0].address;
  stats_.t_first = t_first_;
  stats_.t_last = refs[n - 1].time;

  // The context predictor pays off with instruction fetches (it keys data accesses by the instruction);
  // chunks without any leave it unused, which also lets the decoder skip the table.
  const bool use_context =
      summary ? (summary->kind_mask & (1u << static_cast<unsigned>(Kind::IFetch))) != 0
              : std::any_of(refs.begin(), refs.end(), [](const Reference& r) { return r.kind == Kind::IFetch; });
  // Sizes and sources that are all the same (a board capture's) need no column: width 0, no plane.
  const bool const_size = summary && summary->size_xor == 0;
  const bool const_source = summary && summary->source_xor == 0;
  model_.reset(a_first_);
  detail::AddressModel& model = model_;
  grow(diffs_, n);
  std::uint64_t misses = 0;
  std::uint64_t diff_bits = 0;
  // Row 0's time delta is not part of the column's range (the header holds t_first): start from the
  // time that makes it equal to row 1's, so the loops can take every row's delta into the range.
  std::uint64_t prev_t = n > 1 ? t_first_ - (refs[1].time - t_first_) : t_first_;
  std::uint64_t tmin = UINT64_MAX, tmax = 0;
  std::uint32_t smin = UINT32_MAX, smax = 0;
  std::uint16_t srcmin = UINT16_MAX, srcmax = 0;
  std::uint8_t komin = 0xFF, komax = 0;
  std::uint64_t amin = UINT64_MAX, amax = 0;
  std::uint32_t kind_bits = 0, origin_bits = 0;
  std::array<std::uint64_t, kKindCount> by_kind = {};
  // The model's per-kind state in locals and the columns through raw pointers, so the column stores
  // need not be assumed to alias the model (with them as members the compiler reloaded the model
  // every reference).
  std::uint64_t last[kKindCount], stride[kKindCount] = {}, lsize[kKindCount] = {};
  for (auto& v : last) v = a_first_;
  std::uint64_t* td = tdelta_.data();
  std::uint32_t* sz = size_.data();
  std::uint16_t* sc = source_.data();
  std::uint8_t* kos = ko_.data();
  std::uint64_t* df = diffs_.data();
  // The common case for board captures (no instruction fetches): the predictor chosen without
  // branches. With the writer's summary the loop carries no ranges (fewer live registers) and
  // stores no size or source that is the same throughout.
  // With the summary the time column's range is known before the loop: when the deltas fit one
  // byte (a board's always do) the loop writes column 0's plane itself, one byte per reference,
  // instead of 64-bit deltas that a later pass cuts into it.
  const bool time_direct =
      summary && !use_context && n > 1 && byte_width(summary->dt_max - summary->dt_min) <= 1;
  const std::uint64_t time_base = time_direct ? summary->dt_min : 0;
  if (time_direct) grow(time_plane_, n);
  std::uint8_t* tp = time_plane_.data();
  std::size_t first_row = 0;  // rows before it done by board_loop_avx512
  auto board_loop = [&]<bool kRanges, bool kSizes, bool kSources, bool kTimeBytes>() {
    for (std::size_t i = first_row; i < n; ++i) {
      const Reference& r = refs[i];
      const auto k = static_cast<unsigned>(r.kind);
      const auto o = static_cast<unsigned>(r.origin);
      const std::uint64_t dt = r.time - prev_t;
      prev_t = r.time;
      const std::uint64_t a = r.address;
      const std::uint64_t d = a - last[k];
      const unsigned e0 = d == stride[k];
      const unsigned e2 = d == lsize[k];
      const unsigned sel = (1u - e0) * (3u - e2);  // stride 0, else sequential 2, else residual 3
      const unsigned miss = sel >> 1 & sel;        // sel == 3
      df[misses] = d;  // kept only on a miss (misses <= i < n)
      misses += miss;
      diff_bits |= d & (0 - static_cast<std::uint64_t>(miss));
      stride[k] = d;
      last[k] = a;
      lsize[k] = r.size;
      if constexpr (kTimeBytes) {
        tp[i] = static_cast<std::uint8_t>(dt - time_base);
      } else {
        td[i] = dt;
      }
      kos[i] = static_cast<std::uint8_t>(k | (o << 2) | (sel << 4));
      if constexpr (kSizes) sz[i] = r.size;
      if constexpr (kSources) sc[i] = r.source;
      if constexpr (kRanges) {
        tmin = std::min(tmin, dt);
        tmax = std::max(tmax, dt);
        amin = std::min(amin, a);
        amax = std::max(amax, a);
      }
    }
  };
  if (!use_context) {
    if (!summary) {
      board_loop.template operator()<true, true, true, false>();
    } else if (const_size && const_source) {
#if defined(__x86_64__)
      // A board's chunk: eight rows a step where the CPU has AVX-512, the rest (under eight) below.
      if (detail::board_loop_avx512_available()) {
        detail::BoardLoopState st;
        st.prev_t = prev_t;
        std::copy(std::begin(last), std::end(last), st.last.begin());
        first_row = detail::board_loop_avx512(refs.data(), n, time_base, st, time_direct ? tp : nullptr,
                                              time_direct ? nullptr : td, kos, df);
        prev_t = st.prev_t;
        std::copy(st.last.begin(), st.last.end(), std::begin(last));
        std::copy(st.stride.begin(), st.stride.end(), std::begin(stride));
        std::copy(st.lsize.begin(), st.lsize.end(), std::begin(lsize));
        misses = st.misses;
        diff_bits = st.diff_bits;
      }
#endif
      if (time_direct) {
        board_loop.template operator()<false, false, false, true>();
      } else {
        board_loop.template operator()<false, false, false, false>();
      }
    } else if (time_direct) {
      board_loop.template operator()<false, true, true, true>();
    } else {
      board_loop.template operator()<false, true, true, false>();
    }
  } else {
    // Instruction-fetch traces: the context predictor too.
    detail::AddressModel::Entry* table = model.table.data();
    std::uint64_t ctx = model.ctx, ord = model.ord;
    bool seen_ifetch = model.seen_ifetch;
    auto context_loop = [&]<bool kRanges, bool kSizes, bool kSources>() {
      for (std::size_t i = 0; i < n; ++i) {
        const Reference& r = refs[i];
        const auto k = static_cast<unsigned>(r.kind);
        const auto o = static_cast<unsigned>(r.origin);
        const std::uint64_t dt = r.time - prev_t;
        prev_t = r.time;
        td[i] = dt;
        // The first exact predictor wins (stride, sequential, context); else a residual against the
        // nearer of last[k] and the context's last address (bit 6 says which). Context comes last:
        // a fetch predicted by it is one the decoder cannot start before the previous fetch's
        // table entry is loaded (a serial chain through the table), while stride and sequential
        // take registers. Straight-line code is sequential: on a lackey trace of gzip this order
        // decodes 10 % faster than context before sequential, and the chunks are 5 % smaller.
        const std::uint64_t a = r.address;
        detail::AddressModel::Entry& e = table[detail::AddressModel::slot_of(ctx, ord, k)];
        const std::uint64_t lk = last[k];
        const std::uint64_t dk = a - lk;
        const std::uint64_t dc = a - e.last;
        unsigned sel;
        if (dk == stride[k]) {
          sel = 0;
        } else if (dk == lsize[k]) {
          sel = 2;
        } else if (dc == e.stride) {
          sel = 1;
        } else {
          const bool use_c = zigzag(dc) < zigzag(dk);
          sel = use_c ? 7 : 3;
          const std::uint64_t d = use_c ? dc : dk;
          df[misses++] = d;
          diff_bits |= d;
        }
        stride[k] = dk;
        last[k] = a;
        lsize[k] = r.size;
        e.stride = dc;
        e.last = a;
        detail::AddressModel::advance(k, a, ctx, ord, seen_ifetch);
        kos[i] = static_cast<std::uint8_t>(k | (o << 2) | (sel << 4));
        if constexpr (kSizes) sz[i] = r.size;
        if constexpr (kSources) sc[i] = r.source;
        if constexpr (kRanges) {
          tmin = std::min(tmin, dt);
          tmax = std::max(tmax, dt);
          amin = std::min(amin, a);
          amax = std::max(amax, a);
        }
      }
    };
    if (!summary) {
      context_loop.template operator()<true, true, true>();
    } else if (const_source) {
      context_loop.template operator()<false, true, false>();  // lackey traces: sizes vary, sources do not
    } else {
      context_loop.template operator()<false, true, true>();
    }
    model.ctx = ctx;
    model.ord = ord;
    model.seen_ifetch = seen_ifetch;
  }
  if (summary) {
    tmin = summary->dt_min;
    tmax = summary->dt_max;
    amin = summary->a_min;
    amax = summary->a_max;
  }
  if (const_size) smin = smax = summary->size_first;
  if (const_source) srcmin = srcmax = summary->source_first;
  {
    // Column ranges and counts in separate passes over the (cache-resident) columns: they vectorise,
    // and the loops above carry no per-kind counter through memory. (The time deltas' range is taken
    // in the loops: 64-bit minima do not vectorise without AVX-512.)
    if (!const_size) {
      for (std::size_t i = 0; i < n; ++i) {
        smin = std::min(smin, sz[i]);
        smax = std::max(smax, sz[i]);
      }
    }
    if (!const_source) {
      for (std::size_t i = 0; i < n; ++i) {
        srcmin = std::min(srcmin, sc[i]);
        srcmax = std::max(srcmax, sc[i]);
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      komin = std::min(komin, kos[i]);
      komax = std::max(komax, kos[i]);
    }
    // Rows per kind and the origins present, sixteen kind bytes a step (SSE2): byte counters of
    // kinds 1-3 (kind 0 is the rest), emptied into 64-bit sums before they can wrap, and for
    // each origin a mask of the bytes that have it. (A 256-entry histogram of the bytes was 12 %
    // of split() on the synthetic mix; this is 7 % faster split() there.)
    std::uint64_t per_kind[kKindCount] = {};
    unsigned origins_seen = 0;
    {
      const __m128i kind_mask = _mm_set1_epi8(3), origin_mask = _mm_set1_epi8(0x0C), zero = _mm_setzero_si128();
      __m128i seen[4] = {zero, zero, zero, zero};
      std::size_t i = 0;
      while (i + 16 <= n) {
        __m128i c1 = zero, c2 = zero, c3 = zero;
        const std::size_t stop = std::min(n & ~std::size_t{15}, i + 16 * 255);
        for (; i < stop; i += 16) {
          const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kos + i));
          const __m128i k = _mm_and_si128(v, kind_mask);
          c1 = _mm_sub_epi8(c1, _mm_cmpeq_epi8(k, _mm_set1_epi8(1)));
          c2 = _mm_sub_epi8(c2, _mm_cmpeq_epi8(k, _mm_set1_epi8(2)));
          c3 = _mm_sub_epi8(c3, _mm_cmpeq_epi8(k, kind_mask));
          const __m128i o = _mm_and_si128(v, origin_mask);
          seen[0] = _mm_or_si128(seen[0], _mm_cmpeq_epi8(o, zero));
          seen[1] = _mm_or_si128(seen[1], _mm_cmpeq_epi8(o, _mm_set1_epi8(0x04)));
          seen[2] = _mm_or_si128(seen[2], _mm_cmpeq_epi8(o, _mm_set1_epi8(0x08)));
          seen[3] = _mm_or_si128(seen[3], _mm_cmpeq_epi8(o, origin_mask));
        }
        auto sum = [&](__m128i c) {
          const __m128i s = _mm_sad_epu8(c, zero);
          return static_cast<std::uint64_t>(_mm_cvtsi128_si64(s)) +
                 static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(s, s)));
        };
        per_kind[1] += sum(c1);
        per_kind[2] += sum(c2);
        per_kind[3] += sum(c3);
      }
      for (unsigned o = 0; o < 4; ++o) origins_seen |= _mm_movemask_epi8(seen[o]) != 0 ? 1u << o : 0u;
      for (; i < n; ++i) {
        per_kind[kos[i] & 3] += 1;
        origins_seen |= 1u << ((kos[i] >> 2) & 3);
      }
      per_kind[0] = n - per_kind[1] - per_kind[2] - per_kind[3];
    }
    for (int k = 0; k < kKindCount; ++k) {
      by_kind[static_cast<std::size_t>(k)] += per_kind[k];
      if (per_kind[k] > 0) kind_bits |= 1u << k;
    }
    origin_bits |= origins_seen;
  }
  if (n == 1) tmin = tmax = 0;
  // Row 0 carries no time delta (the header holds t_first): store the base there.
  tdelta_[0] = tmin;
  // Residuals share their trailing zero bits (6 for line-aligned board traces): drop them (column 1's shift).
  residual_shift_ = diff_bits == 0 ? 0 : static_cast<std::uint8_t>(std::countr_zero(diff_bits));
  std::uint8_t* res = detail::encode_residuals(diffs_.data(), misses, residual_shift_, residuals_.data());
  residual_bytes_ = static_cast<std::size_t>(res - residuals_.data());
  stats_.a_min = amin;
  stats_.a_max = amax;
  stats_.by_kind = by_kind;
  stats_.kind_mask = kind_bits;
  stats_.origin_mask = origin_bits;

  base_ = {tmin, misses, komin, smin, srcmin};
  width_ = {byte_width(tmax - tmin), static_cast<std::uint8_t>(misses > 0 ? 1 : 0),
            byte_width(static_cast<std::uint64_t>(komax - komin)), byte_width(static_cast<std::uint64_t>(smax - smin)),
            byte_width(static_cast<std::uint64_t>(srcmax - srcmin))};
  const std::size_t byte_planes = width_[0] + width_[2] + width_[3] + width_[4];
  // Column 0 written by the loop and column 2 (at most one plane: kind bytes are below 128) need no
  // room here; the other byte planes are cut into planes_.
  grow(planes_, ((time_direct ? 0 : width_[0]) + width_[3] + width_[4]) * n);
  std::uint8_t* out = planes_.data();
  plane_list_.clear();
  auto add_planes = [&](int column) {
    for (int b = 0; b < width_[column]; ++b) plane_list_.emplace_back(out + static_cast<std::size_t>(b) * n, n);
  };
  if (time_direct) {
    tp[0] = 0;  // row 0 holds the base, reduced to 0
    if (width_[0] == 1) plane_list_.emplace_back(tp, n);
  } else {
    add_planes(0);
    cut_planes(tdelta_.data(), n, base_[0], width_[0], out);
    out += width_[0] * n;
  }
  if (misses > 0) plane_list_.emplace_back(residuals_.data(), residual_bytes_);
  if (width_[2] == 1) {
    // Reduced in place (a byte loop that vectorises): the kind bytes are their own plane.
    const auto kb = static_cast<std::uint8_t>(komin);
    for (std::size_t i = 0; i < n; ++i) kos[i] = static_cast<std::uint8_t>(kos[i] - kb);
    plane_list_.emplace_back(kos, n);
  }
  add_planes(3);
  cut_planes(size_.data(), n, base_[3], width_[3], out);
  out += width_[3] * n;
  add_planes(4);
  cut_planes(source_.data(), n, base_[4], width_[4], out);
  stats_.plane_bytes = byte_planes * n + residual_bytes_;
  return Status::success();
}

// The second probe of a plane that the first (4 KiB) would pack; at most the plane (over 64 KiB here).
constexpr int kWideProbeBytes = 16384;

std::size_t pack_chunk(const ChunkColumns& columns, int acceleration, ScratchVector<std::uint8_t>& blob) {
  const std::size_t n = columns.stats().refs;
  const std::size_t planes = columns.plane_count();
  const std::size_t tables = kChunkHeaderBytes + kChunkColumns * kColumnEntryBytes + planes * kPlaneEntryBytes;
  std::size_t bound = tables + kChunkTrailerBytes;
  for (std::size_t p = 0; p < planes; ++p) {
    bound += static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(columns.plane(p).size())));
  }
  grow(blob, bound);
  std::uint8_t* b = blob.data();
  std::memset(b, 0, tables);
  std::memcpy(b, kChunkMagic, 4);
  put16(b + 4, kChunkVersionUnpacked);
  b[6] = kChunkColumns;
  put32(b + 8, static_cast<std::uint32_t>(n));
  put32(b + 12, static_cast<std::uint32_t>(planes));
  put64(b + 16, columns.t_first());
  put64(b + 24, columns.a_first());
  for (int c = 0; c < kChunkColumns; ++c) {
    std::uint8_t* e = b + kChunkHeaderBytes + static_cast<std::size_t>(c) * kColumnEntryBytes;
    put64(e, columns.base(c));
    e[8] = columns.width(c);
  }
  b[kChunkHeaderBytes + kColumnEntryBytes + 9] = columns.residual_shift();
  std::uint8_t* table = b + kChunkHeaderBytes + kChunkColumns * kColumnEntryBytes;
  const std::size_t residual_plane = columns.width(1) == 1 ? columns.width(0) : planes;  // column 1's, if any
  detail::PackedPlan plan;
  bool any_packed = false;
  std::size_t at = tables;
  for (std::size_t p = 0; p < planes; ++p) {
    const std::span<const std::uint8_t> plane = columns.plane(p);
    const int len = static_cast<int>(plane.size());
    const auto* in = reinterpret_cast<const char*>(plane.data());
    const auto ulen = static_cast<std::size_t>(len);
    // A byte plane of few distinct values may be bit-packed: taken when it is at most 5 % larger
    // than LZ4's output (known, or guessed from the probe below), for packing and unpacking cost a
    // fraction of LZ4's time on such planes (docs/store.md, "Packed planes").
    const bool packable = p != residual_plane && ulen >= 64;
    auto packed_wins = [&](std::size_t lz4_bytes) {
      return plan.bytes < ulen && 20 * plan.bytes <= 21 * lz4_bytes && ulen <= 255 * plan.bytes + 16;
    };
    int got = 0;
    bool packed = false;
    bool planned = false;  // `plan` holds this plane's packing
    // The probe's distinct values bound the indices' width from below: when even that cannot come
    // within 5 % of LZ4, the pass over the plane that plans the packing is skipped (real-program
    // traces' planes end here).
    unsigned kp = 0;
    std::size_t wmin = 0;
    auto may_pack = [&](std::size_t lz4_bytes) {
      return kp <= kPackedMaxSymbols && 20 * (wmin * ulen / 8) <= 21 * lz4_bytes;
    };
    // A plane of noise (random low address bytes) gains nothing: probe its first 4 KiB first.
    bool try_lz4 = len > 0;
    if (len > 65536) {
      const int probe = LZ4_compress_fast(in, reinterpret_cast<char*>(b + at), 4096, LZ4_compressBound(4096), acceleration);
      try_lz4 = probe > 0 && probe < 3900;
      const std::size_t guess = try_lz4 ? static_cast<std::size_t>(probe) * ulen / 4096 : ulen;
      if (packable) {
        kp = detail::distinct_bytes(plane.first(4096));
        wmin = detail::packed_width(kp);
        planned = may_pack(guess) && detail::plan_packed(plane, plan);
        packed = planned && packed_wins(guess);
        // 4 KiB see no repetition longer than themselves: a loop's kinds and sizes, thousands of
        // references a pass, LZ4 to a third of that guess (sed of 1 MB under lackey: 0.18-0.25 bytes a
        // reference, the guess 0.61, the packed plane 0.625). A 16 KiB probe confirms the choice.
        if (packed) {
          const int wide = LZ4_compress_fast(in, reinterpret_cast<char*>(b + at), kWideProbeBytes,
                                             LZ4_compressBound(kWideProbeBytes), acceleration);
          packed = wide > 0 && packed_wins(static_cast<std::size_t>(wide) * ulen / kWideProbeBytes);
          try_lz4 = try_lz4 || !packed;  // what repeats beyond the first probe's reach is no noise
        }
      }
    } else if (packable) {
      planned = detail::plan_packed(plane, plan);
    }
    if (!packed && try_lz4) {
      got = LZ4_compress_fast(in, reinterpret_cast<char*>(b + at), len, LZ4_compressBound(len), acceleration);
    }
    // Where LZ4's output is known, it decides: a probe's guess can be wrong either way (a plane whose
    // first 4 KiB repeat more than the rest is guessed too small).
    const std::size_t lz4_bytes = got > 0 && got < len ? static_cast<std::size_t>(got) : ulen;
    if (!packed && packable && !planned && len > 65536) {
      planned = may_pack(lz4_bytes) && detail::plan_packed(plane, plan);
    }
    if (!packed && planned) packed = packed_wins(lz4_bytes);
    std::uint8_t* e = table + p * kPlaneEntryBytes;
    put32(e, static_cast<std::uint32_t>(len));
    if (packed) {
      detail::write_packed(plane, plan, b + at);  // its slack: the later planes' room and the trailer
      put32(e + 4, static_cast<std::uint32_t>(plan.bytes));
      e[8] = static_cast<std::uint8_t>(PlaneEncoding::Packed);
      at += plan.bytes;
      any_packed = true;
    } else if (got > 0 && got < len) {
      put32(e + 4, static_cast<std::uint32_t>(got));
      e[8] = static_cast<std::uint8_t>(PlaneEncoding::Lz4);
      at += static_cast<std::size_t>(got);
    } else {
      if (len > 0) std::memcpy(b + at, in, static_cast<std::size_t>(len));
      put32(e + 4, static_cast<std::uint32_t>(len));
      e[8] = static_cast<std::uint8_t>(PlaneEncoding::Raw);
      at += static_cast<std::size_t>(len);
    }
  }
  if (any_packed) put16(b + 4, kChunkVersion);
  put64(b + at, xxh64({b, at}));
  return at + kChunkTrailerBytes;
}

Status encode_chunk(std::span<const Reference> refs, std::vector<std::uint8_t>& blob, int acceleration,
                    ChunkStats* stats) {
  ChunkColumns columns;
  HMTT_TRY(columns.split(refs));
  ScratchVector<std::uint8_t> buffer;
  const std::size_t len = pack_chunk(columns, acceleration, buffer);
  blob.assign(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(len));
  if (stats) *stats = columns.stats();
  return Status::success();
}

Status ChunkDecoder::load(std::span<const std::uint8_t> blob) {
  refs_ = 0;
  pos_ = 0;
  const std::size_t size = blob.size();
  const std::size_t fixed = kChunkHeaderBytes + kChunkColumns * kColumnEntryBytes;
  if (size < fixed + kChunkTrailerBytes) {
    return make_error("BLOB is " + std::to_string(size) + " bytes, shorter than the minimum " +
                      std::to_string(fixed + kChunkTrailerBytes));
  }
  const std::uint8_t* b = blob.data();
  if (std::memcmp(b, kChunkMagic, 4) != 0) return make_error("offset 0: magic is not \"HMTC\"");
  const std::uint16_t version = get16(b + 4);
  if (version != kChunkVersion && version != kChunkVersionUnpacked) {
    return make_error("offset 4: chunk format version " + std::to_string(version) + ", this reader knows " +
                      std::to_string(kChunkVersionUnpacked) + " and " + std::to_string(kChunkVersion));
  }
  const std::uint64_t stored = get64(b + size - kChunkTrailerBytes);
  const std::uint64_t computed = xxh64({b, size - kChunkTrailerBytes});
  if (stored != computed) {
    return make_error("offset " + std::to_string(size - kChunkTrailerBytes) + ": checksum mismatch (stored " +
                      hex(stored) + ", computed " + hex(computed) + ")");
  }
  if (b[6] != kChunkColumns) return make_error("offset 6: column count " + std::to_string(b[6]) + ", must be 5");
  if (b[7] != 0) return make_error("offset 7: reserved byte is not zero");
  const std::uint32_t n = get32(b + 8);
  if (n == 0 || n > kChunkMaxRefs) return make_error("offset 8: reference count " + std::to_string(n) + " out of range");
  const std::uint32_t planes = get32(b + 12);
  std::size_t width_sum = 0;
  for (int c = 0; c < kChunkColumns; ++c) {
    const std::size_t off = kChunkHeaderBytes + static_cast<std::size_t>(c) * kColumnEntryBytes;
    base_[c] = get64(b + off);
    width_[c] = b[off + 8];
    if (width_[c] > kColumnMaxWidth[c]) {
      return make_error("offset " + std::to_string(off + 8) + ": column " + std::to_string(c) + " width " +
                        std::to_string(width_[c]) + ", more than " + std::to_string(kColumnMaxWidth[c]));
    }
    for (std::size_t r = c == 1 ? 10 : 9; r < kColumnEntryBytes; ++r) {
      if (b[off + r] != 0) return make_error("offset " + std::to_string(off + r) + ": reserved byte is not zero");
    }
    width_sum += width_[c];
  }
  if (planes != width_sum) {
    return make_error("offset 12: plane count " + std::to_string(planes) + ", but the column widths sum to " +
                      std::to_string(width_sum));
  }
  const std::uint64_t misses = base_[1];
  shift_ = b[kChunkHeaderBytes + kColumnEntryBytes + 9];
  if (shift_ > 63) return make_error("offset 57: residual shift " + std::to_string(shift_) + ", more than 63");
  if (misses > n || (misses > 0) != (width_[1] == 1)) {
    return make_error("offset 48: residual count " + std::to_string(misses) + " does not fit column 1's width " +
                      std::to_string(width_[1]) + " and " + std::to_string(n) + " references");
  }
  if (base_[2] > 127 || base_[3] > UINT32_MAX || base_[4] > UINT16_MAX) {
    return make_error("column table: a base is out of its column's range");
  }
  const std::size_t tables = fixed + planes * kPlaneEntryBytes;
  if (size < tables + kChunkTrailerBytes) {
    return make_error("BLOB is " + std::to_string(size) + " bytes, shorter than its tables (" +
                      std::to_string(tables + kChunkTrailerBytes) + ")");
  }
  // Plane p belongs to column c; every plane but column 1's is n bytes long.
  std::array<int, 23> plane_column{};
  {
    std::size_t p = 0;
    for (int c = 0; c < kChunkColumns; ++c) {
      for (int w = 0; w < width_[c]; ++w) plane_column[p++] = c;
    }
  }
  std::size_t unpacked = 0;
  std::size_t data = 0;
  for (std::uint32_t p = 0; p < planes; ++p) {
    const std::size_t off = fixed + p * kPlaneEntryBytes;
    const std::uint8_t* e = b + off;
    const std::uint32_t raw = get32(e);
    const std::uint32_t len = get32(e + 4);
    if (e[8] > 2) return make_error("offset " + std::to_string(off + 8) + ": plane encoding " + std::to_string(e[8]) + " unknown");
    if (e[8] == 2 && version < kChunkVersion) {
      return make_error("offset " + std::to_string(off + 8) + ": plane encoding 2 (packed) in a chunk of format version " +
                        std::to_string(version) + " (it needs " + std::to_string(kChunkVersion) + ")");
    }
    if (e[8] == 2 && plane_column[p] == 1) {
      return make_error("offset " + std::to_string(off + 8) + ": the residual stream (plane " + std::to_string(p) +
                        ") cannot be packed");
    }
    if (e[9] || e[10] || e[11]) return make_error("offset " + std::to_string(off + 9) + ": reserved byte is not zero");
    if (plane_column[p] != 1 && raw != n) {
      return make_error("offset " + std::to_string(off) + ": plane " + std::to_string(p) + " is " +
                        std::to_string(raw) + " bytes, must be the reference count " + std::to_string(n));
    }
    if (plane_column[p] == 1 && (raw < misses || raw > 10 * misses)) {
      return make_error("offset " + std::to_string(off) + ": residual stream of " + std::to_string(raw) +
                        " bytes cannot hold " + std::to_string(misses) + " varints");
    }
    if (e[8] == 0 && len != raw) {
      return make_error("offset " + std::to_string(off + 4) + ": raw plane " + std::to_string(p) + " stores " +
                        std::to_string(len) + " bytes, must be " + std::to_string(raw));
    }
    if (e[8] == 1) {
      // LZ4 expands at most ~255:1, so a tiny block cannot hold a huge plane: reject before allocating.
      if (len == 0 || raw > 255 * static_cast<std::uint64_t>(len) + 16) {
        return make_error("offset " + std::to_string(off + 4) + ": LZ4 plane " + std::to_string(p) + " of " +
                          std::to_string(len) + " bytes cannot hold " + std::to_string(raw) + " bytes");
      }
      unpacked += raw;
    }
    if (e[8] == 2) {
      // The same expansion bound as LZ4's: a few bytes cannot claim a huge plane.
      if (len == 0 || raw > 255 * static_cast<std::uint64_t>(len) + 16) {
        return make_error("offset " + std::to_string(off + 4) + ": packed plane " + std::to_string(p) + " of " +
                          std::to_string(len) + " bytes cannot hold " + std::to_string(raw) + " bytes");
      }
      unpacked += raw;
    }
    data += len;
  }
  if (tables + data + kChunkTrailerBytes != size) {
    return make_error("plane sizes sum to " + std::to_string(data) + " bytes, but the BLOB holds " +
                      std::to_string(size - tables - kChunkTrailerBytes));
  }
  grow(unpacked_, unpacked + 16);  // slack: next() reads varints a word at a time
  std::size_t at = tables;
  std::size_t lz4_at = 0;
  const std::uint8_t* residuals = nullptr;
  std::size_t residual_len = 0;
  for (std::uint32_t p = 0; p < planes; ++p) {
    const std::uint8_t* e = b + fixed + p * kPlaneEntryBytes;
    const std::uint32_t raw = get32(e);
    const std::uint32_t len = get32(e + 4);
    const std::uint8_t* where = b + at;
    if (e[8] == 1) {
      std::uint8_t* dst = unpacked_.data() + lz4_at;
      int got = LZ4_decompress_safe(reinterpret_cast<const char*>(b + at), reinterpret_cast<char*>(dst),
                                    static_cast<int>(len), static_cast<int>(raw));
      if (got != static_cast<int>(raw)) {
        return make_error("offset " + std::to_string(at) + ": LZ4 plane " + std::to_string(p) +
                          " does not decompress to " + std::to_string(raw) + " bytes");
      }
      where = dst;
      lz4_at += raw;
    } else if (e[8] == 2) {
      std::uint8_t* dst = unpacked_.data() + lz4_at;
      if (Status st = detail::read_packed({b + at, len}, raw, dst); !st) {
        return make_error("offset " + std::to_string(at) + ": plane " + std::to_string(p) + ": " + st.error().message);
      }
      where = dst;
      lz4_at += raw;
    }
    const int c = plane_column[p];
    int w = 0;
    while (w < 8 && p >= static_cast<std::uint32_t>(w) + 1 && plane_column[p - static_cast<std::uint32_t>(w) - 1] == c) ++w;
    plane_[c][w] = where;
    if (c == 1) {
      residuals = where;
      residual_len = raw;
    }
    at += len;
  }
  // The kind/origin/predictor column and the residual stream must agree before decoding starts:
  // bits 6-7 zero, and exactly `misses` rows of predictor 3, each with one well-formed varint.
  {
    std::uint64_t delta_rows = 0;
    std::uint64_t context_rows = 0;
    std::uint8_t kv[4096];
    for (std::size_t from = 0; from < n; from += 4096) {
      const std::size_t m = std::min<std::size_t>(4096, n - from);
      gather_typed(plane_[2].data(), width_[2], from, m, base_[2], kv);
      // Eight rows per step, in a word (the compiler did not vectorise the byte loop, and it was a
      // fifth of decoding). Per byte: bit 7 must be clear, bit 6 only with predictor 3; count the
      // predictor-3 rows and the rows that read the context table (predictor 1 or bit 6).
      constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
      std::uint64_t bad = 0;
      std::size_t row = 0;
      for (; row + 8 <= m; row += 8) {
        std::uint64_t w;
        std::memcpy(&w, kv + row, 8);
        const std::uint64_t s4 = (w >> 4) & kOnes, s5 = (w >> 5) & kOnes, b6 = (w >> 6) & kOnes;
        const std::uint64_t is_delta = s4 & s5;
        bad |= (w & (kOnes << 7)) | (b6 & ~is_delta);
        delta_rows += (is_delta * kOnes) >> 56;  // bytes are 0 or 1: the product's top byte is their sum
        context_rows += (((s4 & ~s5) | b6) * kOnes) >> 56;
      }
      for (; row < m; ++row) {
        const std::uint8_t ko = kv[row];
        const bool is_delta = (ko & 0x30) == 0x30;
        bad |= (ko & 0x80) | ((ko & 0x40) && !is_delta ? 1 : 0);
        delta_rows += is_delta;
        context_rows += (ko & 0x30) == 0x10 || (ko & 0x40) != 0;
      }
      if (bad) {
        for (std::size_t j = 0; j < m; ++j) {
          if (kv[j] > 127) {
            return make_error("column 2, row " + std::to_string(from + j) + ": kind/origin byte 0x" +
                              hex(kv[j]).substr(16) + " has bit 7 set");
          }
          if ((kv[j] & 0x40) && (kv[j] >> 4) != 7) {
            return make_error("column 2, row " + std::to_string(from + j) + ": bit 6 set without predictor 3");
          }
        }
      }
    }
    uses_context_ = context_rows > 0;
    if (delta_rows != misses) {
      return make_error("column 2 selects the residual predictor in " + std::to_string(delta_rows) +
                        " rows, column 1 holds " + std::to_string(misses) + " residuals");
    }
    // Exactly `misses` varints of at most 10 bytes: count the last bytes and the longest run of
    // continuation bytes in one pass; only a bad stream is walked again to say where.
    // Eight bytes at a time: `stops` has bit 8i+7 set where byte i ends a varint.
    std::uint64_t ends = 0;
    std::uint64_t run = 0, longest = 0;  // continuation bytes before the current position
    std::size_t q = 0;
    for (; q + 8 <= residual_len; q += 8) {
      std::uint64_t w;
      std::memcpy(&w, residuals + q, 8);
      const std::uint64_t stops = ~w & 0x8080808080808080ULL;
      if (stops == 0) {
        run += 8;
        continue;
      }
      ends += ((stops >> 7) * 0x0101010101010101ULL) >> 56;  // bytes with a stop bit (popcount without -mpopcnt)
      longest = std::max(longest, run + static_cast<std::uint64_t>(std::countr_zero(stops) >> 3));
      run = static_cast<std::uint64_t>(std::countl_zero(stops) >> 3);
    }
    for (; q < residual_len; ++q) {
      const bool more = (residuals[q] & 0x80) != 0;
      ends += more ? 0 : 1;
      longest = std::max(longest, more ? 0 : run);
      run = more ? run + 1 : 0;
    }
    longest = std::max(longest, run);
    const bool tail_ok = residual_len == 0 || (residuals[residual_len - 1] & 0x80) == 0;
    if (ends != misses || longest >= 10 || !tail_ok) {
      std::size_t pos = 0;
      for (std::uint64_t v = 0; v < misses; ++v) {
        int bytes = 0;
        while (pos < residual_len && (residuals[pos] & 0x80)) {
          ++pos;
          if (++bytes >= 10) break;
        }
        if (pos >= residual_len || bytes >= 10) {
          return make_error("column 1: residual " + std::to_string(v) + " is not a complete varint (stream offset " +
                            std::to_string(pos) + ")");
        }
        ++pos;
      }
      return make_error("column 1: " + std::to_string(residual_len - pos) + " bytes left after the last residual");
    }
  }
  residual_ = residuals;
  refs_ = n;
  t_first_ = get64(b + 16);
  a_first_ = get64(b + 24);
  // Row 0's time delta is ignored: start the running sum so that row 0 lands on t_first.
  std::uint64_t v0[1];
  gather(plane_[0].data(), width_[0], 0, 1, base_[0], v0);
  time_ = t_first_ - v0[0];
  // t_last = time_ + the sum of all n deltas (mod 2^64): n * base + sum over planes b of (the sum
  // of plane b's bytes) << 8b. The byte sums run eight bytes per step in four 16-bit lanes (GCC left
  // the byte loop scalar: 5 % of a board chunk's decoding); now about 1 %.
  {
    std::uint64_t sum = static_cast<std::uint64_t>(n) * base_[0];
    for (int w = 0; w < width_[0]; ++w) {
      const std::uint8_t* pl = plane_[0][static_cast<std::size_t>(w)];
      constexpr std::uint64_t kLow = 0x00FF00FF00FF00FFULL;
      std::uint64_t bytes = 0;
      std::size_t i = 0;
      while (i + 8 <= n) {
        // Each step adds at most 2 * 255 to a lane: 128 steps stay below 2^16.
        const std::size_t stop = std::min<std::size_t>(n & ~std::size_t{7}, i + 8 * 128);
        std::uint64_t lanes = 0;
        for (; i < stop; i += 8) {
          std::uint64_t v;
          std::memcpy(&v, pl + i, 8);
          lanes += (v & kLow) + ((v >> 8) & kLow);
        }
        bytes += (lanes & 0xFFFF) + ((lanes >> 16) & 0xFFFF) + ((lanes >> 32) & 0xFFFF) + (lanes >> 48);
      }
      for (; i < n; ++i) bytes += pl[i];
      sum += bytes << (8 * w);
    }
    t_last_ = time_ + sum;
  }
  model_.reset(a_first_);
  grow(tmp_, 2 * 4096 + 1 + 4096);  // next(): time deltas, residuals + 1, sizes, sources, kind bytes
  return Status::success();
}

std::size_t ChunkDecoder::next(std::span<Reference> out) {
  constexpr std::size_t kBatch = 4096;
  const std::size_t total = std::min<std::size_t>(out.size(), refs_ - pos_);
  std::size_t done = 0;
  // Scratch: time deltas, residuals (one spare slot: the loop reads one ahead), sizes, sources, kind bytes.
  std::uint64_t* tv = tmp_.data();
  std::uint64_t* rv = tmp_.data() + kBatch;
  std::uint32_t* sv = reinterpret_cast<std::uint32_t*>(tmp_.data() + 2 * kBatch + 1);
  std::uint16_t* cv = reinterpret_cast<std::uint16_t*>(sv + kBatch);
  std::uint8_t* kv = reinterpret_cast<std::uint8_t*>(cv + kBatch);
  // The model's state lives in locals during the batch, so the compiler need not assume the
  // reference stores alias it.
  detail::AddressModel& model = model_;
  std::uint64_t last[kKindCount], stride[kKindCount], lsize[kKindCount];
  for (int k = 0; k < kKindCount; ++k) {
    last[k] = model.last[static_cast<std::size_t>(k)];
    stride[k] = model.stride[static_cast<std::size_t>(k)];
    lsize[k] = model.last_size[static_cast<std::size_t>(k)];
  }
  std::uint64_t ctx = model.ctx, ord = model.ord;
  bool seen_ifetch = model.seen_ifetch;
  detail::AddressModel::Entry* table = model.table.data();
  const std::uint8_t* res = residual_;
  const unsigned shift = shift_;
  std::uint64_t t = time_;
  while (done < total) {
    const std::size_t m = std::min<std::size_t>(total - done, kBatch);
    Reference* o = out.data() + done;
    const std::size_t from = pos_;
    gather_typed(plane_[0].data(), width_[0], from, m, base_[0], tv);
    gather_typed(plane_[2].data(), width_[2], from, m, base_[2], kv);
    gather_typed(plane_[3].data(), width_[3], from, m, base_[3], sv);
    gather_typed(plane_[4].data(), width_[4], from, m, base_[4], cv);
    // The batch's residuals, in row order (load() checked there is one well-formed varint per delta row).
    std::size_t nres = 0;
    for (std::size_t j = 0; j < m; ++j) nres += ((kv[j] >> 4) & 3) == 3;
    res = read_varints(res, nres, shift, rv);
    rv[nres] = 0;
    std::size_t ri = 0;
    auto emit = [&](Reference& ref, std::size_t j, std::uint64_t time, std::uint64_t a, unsigned ko) {
      ref.time = time;
      ref.address = a;
      ref.size = sv[j];
      ref.kind = static_cast<Kind>(ko & 3);
      ref.origin = static_cast<Origin>((ko >> 2) & 3);
      ref.source = cv[j];
    };
    if (!uses_context_) {
      // No row reads the context table (no predictor 1, no bit 6): every address is last[k] + something.
      for (std::size_t j = 0; j < m; ++j) {
        const unsigned ko = kv[j];
        const unsigned k = ko & 3;
        const unsigned sel = (ko >> 4) & 3;
        const std::uint64_t r = rv[ri];
        ri += sel == 3;
        const std::uint64_t add =
            (stride[k] & mask_if(sel == 0)) | (lsize[k] & mask_if(sel == 2)) | (r & mask_if(sel == 3));
        const std::uint64_t a = last[k] + add;
        stride[k] = add;
        last[k] = a;
        lsize[k] = sv[j];
        t += tv[j];
        emit(o[j], j, t, a, ko);
      }
    } else {
      for (std::size_t j = 0; j < m; ++j) {
        const unsigned ko = kv[j];
        const unsigned k = ko & 3;
        const unsigned sel = (ko >> 4) & 3;
        detail::AddressModel::Entry& e = table[detail::AddressModel::slot_of(ctx, ord, k)];
        const std::uint64_t r = rv[ri];
        ri += sel == 3;
        // Branches, not masks, here: in an instruction-fetch trace most rows are predictor 0 or 2,
        // and a branch lets their address skip the wait for the table entry (the serial chain).
        std::uint64_t a;
        switch (sel) {
          case 0: a = last[k] + stride[k]; break;
          case 1: a = e.last + e.stride; break;
          case 2: a = last[k] + lsize[k]; break;
          default: a = ((ko & 0x40) ? e.last : last[k]) + r; break;
        }
        stride[k] = a - last[k];
        last[k] = a;
        lsize[k] = sv[j];
        e.stride = a - e.last;
        e.last = a;
        const bool ifetch = k == static_cast<unsigned>(Kind::IFetch);
        const std::uint64_t next_ord = seen_ifetch ? (ord < 255 ? ord + 1 : 255) : ord;
        ctx = (ifetch || !seen_ifetch) ? a : ctx;
        ord = ifetch ? 0 : next_ord;
        seen_ifetch = seen_ifetch || ifetch;
        t += tv[j];
        emit(o[j], j, t, a, ko);
      }
    }
    pos_ += static_cast<std::uint32_t>(m);
    done += m;
  }
  for (int k = 0; k < kKindCount; ++k) {
    model.last[static_cast<std::size_t>(k)] = last[k];
    model.stride[static_cast<std::size_t>(k)] = stride[k];
    model.last_size[static_cast<std::size_t>(k)] = lsize[k];
  }
  model.ctx = ctx;
  model.ord = ord;
  model.seen_ifetch = seen_ifetch;
  residual_ = res;
  time_ = t;
  return total;
}

Result<ChunkPlanes> chunk_planes(std::span<const std::uint8_t> blob) {
  ChunkDecoder decoder;
  HMTT_TRY(decoder.load(blob));
  const std::uint8_t* b = blob.data();
  ChunkPlanes out;
  out.refs = decoder.refs();
  std::size_t p = 0;
  for (int c = 0; c < kChunkColumns; ++c) {
    const std::uint8_t width = b[kChunkHeaderBytes + static_cast<std::size_t>(c) * kColumnEntryBytes + 8];
    for (std::uint8_t w = 0; w < width; ++w, ++p) {
      const std::uint8_t* e = b + kChunkHeaderBytes + kChunkColumns * kColumnEntryBytes + p * kPlaneEntryBytes;
      PlaneInfo info;
      info.column = static_cast<Column>(c);
      info.raw_bytes = get32(e);
      info.stored_bytes = get32(e + 4);
      info.encoding = static_cast<PlaneEncoding>(e[8]);
      out.planes.push_back(info);
    }
  }
  return out;
}

}  // namespace hmtt::store
