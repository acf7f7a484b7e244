// The chunk codec (docs/store.md, "The chunk BLOB").
#include "hmtt/store/chunk.h"

#include <lz4.h>

#include <algorithm>
#include <bit>
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

template <typename T>
void grow(std::vector<T>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
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

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::size_t ChunkColumns::plane_count() const {
  std::size_t p = 0;
  for (auto w : width_) p += w;
  return p;
}

Status ChunkColumns::split(std::span<const Reference> refs) {
  const std::size_t n = refs.size();
  if (n == 0) return make_error("no references");
  if (n > kChunkMaxRefs) {
    return make_error(std::to_string(n) + " references, more than the limit " +
                      std::to_string(kChunkMaxRefs));
  }
  grow(tdelta_, n);
  grow(adelta_, n);
  grow(size_, n);
  grow(source_, n);
  grow(ko_, n);
  stats_ = ChunkStats{};
  stats_.refs = static_cast<std::uint32_t>(n);
  t_first_ = refs[0].time;
  a_first_ = refs[0].address;
  stats_.t_first = t_first_;
  stats_.t_last = refs[n - 1].time;

  std::array<std::uint64_t, kKindCount> last;
  last.fill(a_first_);
  std::uint64_t prev_t = t_first_;
  std::uint64_t tmin = UINT64_MAX, tmax = 0, zmin = UINT64_MAX, zmax = 0;
  std::uint32_t smin = UINT32_MAX, smax = 0;
  std::uint16_t srcmin = UINT16_MAX, srcmax = 0;
  std::uint8_t komin = 0xFF, komax = 0;
  std::uint64_t amin = UINT64_MAX, amax = 0;
  std::uint32_t kind_bits = 0, origin_bits = 0;
  std::array<std::uint64_t, kKindCount> by_kind = {};
  for (std::size_t i = 0; i < n; ++i) {
    const Reference& r = refs[i];
    const auto k = static_cast<unsigned>(r.kind);
    const auto o = static_cast<unsigned>(r.origin);
    if (r.time < prev_t || k >= 4 || o >= 4) {
      if (r.time < prev_t) {
        return make_error("reference " + std::to_string(i) + ": time " + std::to_string(r.time) +
                          " is before the previous reference's time " + std::to_string(prev_t));
      }
      return make_error("reference " + std::to_string(i) + ": kind " + std::to_string(k) + " or origin " +
                        std::to_string(o) + " out of range");
    }
    const std::uint64_t dt = r.time - prev_t;
    prev_t = r.time;
    const std::uint64_t z = zigzag(r.address - last[k]);
    last[k] = r.address;
    tdelta_[i] = dt;
    adelta_[i] = z;
    size_[i] = r.size;
    source_[i] = r.source;
    const auto ko = static_cast<std::uint8_t>(k | (o << 2));
    ko_[i] = ko;
    if (i > 0) {
      tmin = std::min(tmin, dt);
      tmax = std::max(tmax, dt);
      zmin = std::min(zmin, z);
      zmax = std::max(zmax, z);
    }
    smin = std::min(smin, r.size);
    smax = std::max(smax, r.size);
    srcmin = std::min(srcmin, r.source);
    srcmax = std::max(srcmax, r.source);
    komin = std::min(komin, ko);
    komax = std::max(komax, ko);
    amin = std::min(amin, r.address);
    amax = std::max(amax, r.address);
    kind_bits |= 1u << k;
    origin_bits |= 1u << o;
    by_kind[k]++;
  }
  if (n == 1) tmin = tmax = zmin = zmax = 0;
  // Row 0 carries no delta (the header holds t_first and a_first): store the base there.
  tdelta_[0] = tmin;
  adelta_[0] = zmin;
  stats_.a_min = amin;
  stats_.a_max = amax;
  stats_.by_kind = by_kind;
  stats_.kind_mask = kind_bits;
  stats_.origin_mask = origin_bits;

  base_ = {tmin, zmin, komin, smin, srcmin};
  width_ = {byte_width(tmax - tmin), byte_width(zmax - zmin), byte_width(static_cast<std::uint64_t>(komax - komin)),
            byte_width(static_cast<std::uint64_t>(smax - smin)), byte_width(static_cast<std::uint64_t>(srcmax - srcmin))};
  const std::size_t planes = plane_count();
  grow(planes_, planes * n);
  std::uint8_t* out = planes_.data();
  cut_planes(tdelta_.data(), n, base_[0], width_[0], out);
  out += width_[0] * n;
  cut_planes(adelta_.data(), n, base_[1], width_[1], out);
  out += width_[1] * n;
  cut_planes(ko_.data(), n, base_[2], width_[2], out);
  out += width_[2] * n;
  cut_planes(size_.data(), n, base_[3], width_[3], out);
  out += width_[3] * n;
  cut_planes(source_.data(), n, base_[4], width_[4], out);
  stats_.plane_bytes = planes * n;
  return Status::success();
}

std::size_t pack_chunk(const ChunkColumns& columns, int acceleration, std::vector<std::uint8_t>& blob) {
  const std::size_t n = columns.stats().refs;
  const std::size_t planes = columns.plane_count();
  const std::size_t tables = kChunkHeaderBytes + kChunkColumns * kColumnEntryBytes + planes * kPlaneEntryBytes;
  const std::size_t bound =
      tables + planes * static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(n))) + kChunkTrailerBytes;
  grow(blob, bound);
  std::uint8_t* b = blob.data();
  std::memset(b, 0, tables);
  std::memcpy(b, kChunkMagic, 4);
  put16(b + 4, kChunkVersion);
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
  std::uint8_t* table = b + kChunkHeaderBytes + kChunkColumns * kColumnEntryBytes;
  std::size_t at = tables;
  const std::uint8_t* src = columns.planes().data();
  for (std::size_t p = 0; p < planes; ++p) {
    const auto* in = reinterpret_cast<const char*>(src + p * n);
    int got = LZ4_compress_fast(in, reinterpret_cast<char*>(b + at), static_cast<int>(n),
                                LZ4_compressBound(static_cast<int>(n)), acceleration);
    std::uint8_t* e = table + p * kPlaneEntryBytes;
    if (got > 0 && static_cast<std::size_t>(got) < n) {
      put32(e, static_cast<std::uint32_t>(got));
      e[4] = static_cast<std::uint8_t>(PlaneEncoding::Lz4);
      at += static_cast<std::size_t>(got);
    } else {
      std::memcpy(b + at, in, n);
      put32(e, static_cast<std::uint32_t>(n));
      e[4] = static_cast<std::uint8_t>(PlaneEncoding::Raw);
      at += n;
    }
  }
  put64(b + at, xxh64({b, at}));
  return at + kChunkTrailerBytes;
}

Status encode_chunk(std::span<const Reference> refs, std::vector<std::uint8_t>& blob, int acceleration,
                    ChunkStats* stats) {
  ChunkColumns columns;
  HMTT_TRY(columns.split(refs));
  std::vector<std::uint8_t> buffer;
  std::size_t len = pack_chunk(columns, acceleration, buffer);
  buffer.resize(len);
  blob = std::move(buffer);
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
  if (get16(b + 4) != kChunkVersion) {
    return make_error("offset 4: chunk format version " + std::to_string(get16(b + 4)) + ", this reader knows " +
                      std::to_string(kChunkVersion));
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
    for (std::size_t r = 9; r < kColumnEntryBytes; ++r) {
      if (b[off + r] != 0) return make_error("offset " + std::to_string(off + r) + ": reserved byte is not zero");
    }
    width_sum += width_[c];
  }
  if (planes != width_sum) {
    return make_error("offset 12: plane count " + std::to_string(planes) + ", but the column widths sum to " +
                      std::to_string(width_sum));
  }
  if (base_[2] > 15 || base_[3] > UINT32_MAX || base_[4] > UINT16_MAX) {
    return make_error("column table: a base is out of its column's range");
  }
  const std::size_t tables = fixed + planes * kPlaneEntryBytes;
  if (size < tables + kChunkTrailerBytes) {
    return make_error("BLOB is " + std::to_string(size) + " bytes, shorter than its tables (" +
                      std::to_string(tables + kChunkTrailerBytes) + ")");
  }
  std::size_t lz4_planes = 0;
  std::size_t data = 0;
  for (std::uint32_t p = 0; p < planes; ++p) {
    const std::uint8_t* e = b + fixed + p * kPlaneEntryBytes;
    const std::size_t off = fixed + p * kPlaneEntryBytes;
    const std::uint32_t len = get32(e);
    if (e[4] > 1) return make_error("offset " + std::to_string(off + 4) + ": plane encoding " + std::to_string(e[4]) + " unknown");
    if (e[5] || e[6] || e[7]) return make_error("offset " + std::to_string(off + 5) + ": reserved byte is not zero");
    if (e[4] == 0 && len != n) {
      return make_error("offset " + std::to_string(off) + ": raw plane " + std::to_string(p) + " is " +
                        std::to_string(len) + " bytes, must be the reference count " + std::to_string(n));
    }
    if (e[4] == 1 && (len == 0 || n > 255 * static_cast<std::uint64_t>(len) + 16)) {
      // LZ4 expands at most ~255:1, so a tiny block cannot hold a huge plane: reject before allocating.
      return make_error("offset " + std::to_string(off) + ": LZ4 plane " + std::to_string(p) + " of " +
                        std::to_string(len) + " bytes cannot hold " + std::to_string(n) + " bytes");
    }
    lz4_planes += e[4];
    data += len;
  }
  if (tables + data + kChunkTrailerBytes != size) {
    return make_error("plane sizes sum to " + std::to_string(data) + " bytes, but the BLOB holds " +
                      std::to_string(size - tables - kChunkTrailerBytes));
  }
  grow(unpacked_, lz4_planes * n);
  std::size_t at = tables;
  std::size_t lz4_at = 0;
  std::uint32_t p = 0;
  for (int c = 0; c < kChunkColumns; ++c) {
    for (int w = 0; w < width_[c]; ++w, ++p) {
      const std::uint8_t* e = b + fixed + p * kPlaneEntryBytes;
      const std::uint32_t len = get32(e);
      if (e[4] == 0) {
        plane_[c][w] = b + at;
      } else {
        std::uint8_t* dst = unpacked_.data() + lz4_at;
        int got = LZ4_decompress_safe(reinterpret_cast<const char*>(b + at), reinterpret_cast<char*>(dst),
                                      static_cast<int>(len), static_cast<int>(n));
        if (got != static_cast<int>(n)) {
          return make_error("offset " + std::to_string(at) + ": LZ4 plane " + std::to_string(p) +
                            " does not decompress to " + std::to_string(n) + " bytes");
        }
        plane_[c][w] = dst;
        lz4_at += n;
      }
      at += len;
    }
  }
  refs_ = n;
  t_first_ = get64(b + 16);
  a_first_ = get64(b + 24);
  // Row 0's deltas are ignored: start the running sums so that row 0 lands on t_first / a_first.
  std::uint64_t v0[1];
  gather(plane_[0].data(), width_[0], 0, 1, base_[0], v0);
  time_ = t_first_ - v0[0];
  std::uint64_t z0[1], ko0[1];
  gather(plane_[1].data(), width_[1], 0, 1, base_[1], z0);
  gather(plane_[2].data(), width_[2], 0, 1, base_[2], ko0);
  last_addr_.fill(a_first_);
  last_addr_[ko0[0] & 3] = a_first_ - unzigzag(z0[0]);
  grow(tmp_, 2 * 4096);
  return Status::success();
}

std::size_t ChunkDecoder::next(std::span<Reference> out) {
  const std::size_t total = std::min<std::size_t>(out.size(), refs_ - pos_);
  std::size_t done = 0;
  std::uint64_t* tv = tmp_.data();
  std::uint64_t* kv = tmp_.data() + 4096;
  while (done < total) {
    const std::size_t m = std::min<std::size_t>(total - done, 4096);
    Reference* o = out.data() + done;
    const std::size_t from = pos_;
    // Time: prefix sum of deltas.
    gather(plane_[0].data(), width_[0], from, m, base_[0], tv);
    std::uint64_t t = time_;
    for (std::size_t j = 0; j < m; ++j) {
      t += tv[j];
      o[j].time = t;
    }
    time_ = t;
    // Size and source.
    gather(plane_[3].data(), width_[3], from, m, base_[3], tv);
    for (std::size_t j = 0; j < m; ++j) o[j].size = static_cast<std::uint32_t>(tv[j]);
    gather(plane_[4].data(), width_[4], from, m, base_[4], tv);
    for (std::size_t j = 0; j < m; ++j) o[j].source = static_cast<std::uint16_t>(tv[j]);
    // Address: per-kind prefix sums of zigzag deltas.
    gather(plane_[1].data(), width_[1], from, m, base_[1], tv);
    if (width_[2] == 0) {
      const auto ko = static_cast<unsigned>(base_[2]);
      const auto kind = static_cast<Kind>(ko & 3);
      const auto origin = static_cast<Origin>((ko >> 2) & 3);
      std::uint64_t a = last_addr_[ko & 3];
      for (std::size_t j = 0; j < m; ++j) {
        a += unzigzag(tv[j]);
        o[j].address = a;
        o[j].kind = kind;
        o[j].origin = origin;
      }
      last_addr_[ko & 3] = a;
    } else {
      gather(plane_[2].data(), width_[2], from, m, base_[2], kv);
      std::uint64_t last[kKindCount] = {last_addr_[0], last_addr_[1], last_addr_[2], last_addr_[3]};
      for (std::size_t j = 0; j < m; ++j) {
        const auto ko = static_cast<unsigned>(kv[j]);
        const unsigned k = ko & 3;
        const std::uint64_t a = last[k] + unzigzag(tv[j]);
        last[k] = a;
        o[j].address = a;
        o[j].kind = static_cast<Kind>(k);
        o[j].origin = static_cast<Origin>((ko >> 2) & 3);
      }
      for (int k = 0; k < kKindCount; ++k) last_addr_[k] = last[k];
    }
    pos_ += static_cast<std::uint32_t>(m);
    done += m;
  }
  return total;
}

}  // namespace hmtt::store
