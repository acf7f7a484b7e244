// The compact PSnAP profile (docs/psnap.md, "The binary profile"): a 20-byte
// header, then the body of LEB128 varints, by default arranged in columns (like
// fields of every region together) and LZMA2-compressed; interleaved fields,
// deflate and stored bodies are read and written too. The decoder checks
// everything from_json() checks; every error names the byte offset and the field.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <string>
#include <unordered_map>

#include <lzma.h>
#include <zlib.h>

#include "hmtt/psnap/psnap.h"

namespace hmtt::psnap {

namespace {

constexpr std::size_t kHeaderBytes = 20;
// 2 added lattice_stride, 3 the return scope, 4 the sweep's runs, 5 the loops' code regions, 6 the
// regions' footprint growth, 7 the merged regions' footprint blocks, 8 the regions' activity
// curves, 9 the footprint blocks' open times; 1 .. 8 are still read (lattice_stride 0 in 1, returns
// counted within a window in 1 and 2, each sweep stride a run of its own in 1 .. 3, no loop from a
// code region in 1 .. 4, no growth curve in 1 .. 5, no footprint blocks in 1 .. 6, no activity curve
// in 1 .. 7, no open times in 1 .. 8).
constexpr std::uint8_t kVersion = 9;
constexpr std::uint8_t kStored = 0;
constexpr std::uint8_t kDeflate = 1;
constexpr std::uint8_t kLzma = 2;
constexpr std::uint8_t kInterleaved = 0, kColumnsLayout = 1;  // header byte 10
// Deflate expands at most ~1032:1, LZMA2 at most ~7000:1 (measured on zeros); a header
// claiming more is corrupt (and would make the decoder allocate for nothing).
constexpr std::uint64_t kMaxInflation = 1032;
constexpr std::uint64_t kMaxLzmaInflation = 8192;

// The raw LZMA2 filter both sides use: no container (the header holds the length and the
// CRC-32), preset 9 extreme with one literal context bit and no position bits (the body is
// varints, not text: 1-2 % smaller than the preset's lc=3 pb=2), and a dictionary as long as the
// body (no match reaches further; the decoder allocates no more than it must).
struct LzmaFilter {
  lzma_options_lzma options{};
  lzma_filter chain[2]{};
  explicit LzmaFilter(std::uint32_t body_bytes) {
    lzma_lzma_preset(&options, 9 | LZMA_PRESET_EXTREME);
    options.lc = 1;
    options.lp = 0;
    options.pb = 0;
    options.dict_size = std::clamp<std::uint32_t>(body_bytes, LZMA_DICT_SIZE_MIN, std::uint32_t{1} << 30);
    chain[0] = {LZMA_FILTER_LZMA2, &options};
    chain[1] = {LZMA_VLI_UNKNOWN, nullptr};
  }
};
constexpr std::uint8_t kFlagCode = 1, kFlagMerged = 2, kFlagMoves = 4, kFlagSweep = 8, kFlagGrowth = 16,
                         kFlagFootprint = 32, kFlagActivity = 64, kFlagFootprintOpen = 128;

std::int64_t nominal(int bin) {
  if (bin == 0 || bin >= kRandomBin) return 0;
  return bin < 10 ? (std::int64_t{1} << (bin - 1)) : -(std::int64_t{1} << (bin - 10));
}

// |exact| - 2^k for a stride in bin +-2^k (0 <= offset < 2^k).
std::uint64_t magnitude(std::int64_t s) {
  return s >= 0 ? static_cast<std::uint64_t>(s) : static_cast<std::uint64_t>(-(s + 1)) + 1;
}

// The columns of a column-arranged body (docs/psnap.md, *Columns*): each field of every region, loop
// and the stream header goes to one column, so LZMA2 finds like fields side by side (xz's long profile:
// 10 % smaller than interleaved). Read in the same order as written, field by field.
enum class Col : std::uint8_t {
  Meta, Flags, Base, Range, Count, Runs, WorkingSet, Merged, Instances, Kinds, Sizes,
  StrideMask, StrideCount, StrideExact, Sweeps, JumpReuse, Moves, MoveReuse, GraphMask, GraphCount, Pattern,
};
constexpr std::size_t kColumns = 21;
constexpr std::array<std::string_view, kColumns> kColumnNames = {
    "meta", "flags", "base", "range", "count", "runs", "working_set", "merged", "instances", "kinds", "sizes",
    "stride_mask", "stride_count", "stride_exact", "sweeps", "jump_reuse", "moves", "move_reuse", "graph_mask",
    "graph_count", "pattern"};

class BodyWriter {
 public:
  // The column the next fields belong to (the interleaved body keeps them in order regardless).
  void at(Col c) { col_ = static_cast<std::size_t>(c); }
  void u(std::uint64_t v) {
    while (v >= 0x80) {
      put(static_cast<char>(static_cast<std::uint8_t>(v) | 0x80));
      v >>= 7;
    }
    put(static_cast<char>(v));
  }
  void s(std::int64_t v) {  // zigzag
    u((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63));
  }
  void byte(std::uint8_t b) { put(static_cast<char>(b)); }
  void f64(double d) {
    const auto bits = std::bit_cast<std::uint64_t>(d);
    for (int i = 0; i < 8; ++i) byte(static_cast<std::uint8_t>(bits >> (8 * i)));
  }
  // The body as written, field after field.
  std::string take() { return std::move(out_); }
  // The body column-arranged: the number of columns and each one's length (varints), then the
  // columns one after another.
  std::string take_columns() {
    BodyWriter directory;
    directory.u(kColumns);
    for (const auto& c : columns_) directory.u(c.size());
    std::string out = directory.take();
    for (const auto& c : columns_) out += c;
    return out;
  }

 private:
  void put(char c) {
    out_.push_back(c);
    columns_[col_].push_back(c);
  }
  std::string out_;
  std::array<std::string, kColumns> columns_;
  std::size_t col_ = 0;
};

void put_u32(std::string& out, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out[at + static_cast<std::size_t>(i)] = static_cast<char>(static_cast<std::uint8_t>(v >> (8 * i)));
}

std::uint32_t get_u32(std::string_view in, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t{static_cast<std::uint8_t>(in[at + static_cast<std::size_t>(i)])} << (8 * i);
  return v;
}

void write_region(BodyWriter& w, const RegionProfile& r, std::uint64_t previous_base) {
  std::uint8_t flags = 0;
  if (r.code) flags |= kFlagCode;
  if (r.merged) flags |= kFlagMerged;
  if (r.moves) flags |= kFlagMoves;
  if (!r.sweeps.empty()) flags |= kFlagSweep;
  const bool growth = r.growth.size() == RegionProfile::kGrowthPoints;
  if (growth) flags |= kFlagGrowth;
  if (!r.footprint.empty()) flags |= kFlagFootprint;
  const bool activity = r.activity.size() == RegionProfile::kActivityPoints;
  if (activity) flags |= kFlagActivity;
  const bool open = !r.footprint.empty() && r.footprint_open.size() == r.footprint.size();
  if (open) flags |= kFlagFootprintOpen;
  w.at(Col::Flags);
  w.byte(flags);
  w.at(Col::Base);
  w.s(static_cast<std::int64_t>(r.base - previous_base));
  w.at(Col::Range);
  w.u(r.last - r.base);
  w.u(r.first - r.base);
  w.at(Col::Count);
  w.u(r.count);
  w.at(Col::Runs);
  w.u(r.runs);
  w.at(Col::WorkingSet);
  w.u(r.working_set);
  if (!r.footprint.empty()) {
    // The blocks as gaps (the first from base's block) and each one's lines less one.
    w.u(r.footprint.size());
    std::uint64_t next = r.base >> RegionProfile::kFootprintBlockShift;
    for (const auto& [block, lines] : r.footprint) {
      w.u(block - next);
      w.u(lines - 1);
      next = block + 1;
    }
  }
  w.at(Col::Merged);
  if (r.merged) w.u(r.merged);
  w.at(Col::Instances);
  w.u(r.first_instance);
  w.u(r.last_instance - r.first_instance);
  auto curve = [&w](const std::vector<std::uint32_t>& points) {
    std::uint32_t previous = 0;
    for (const auto g : points) {
      w.u(g - std::min(g, previous));  // non-decreasing: the steps
      previous = std::max(g, previous);
    }
  };
  if (growth) curve(r.growth);
  if (activity) curve(r.activity);
  if (open)
    for (const auto t : r.footprint_open) w.u(t);
  w.at(Col::Kinds);
  std::uint8_t kinds = 0;
  for (std::size_t k = 0; k < r.kinds.size(); ++k)
    if (r.kinds[k]) kinds |= static_cast<std::uint8_t>(1u << k);
  w.byte(kinds);
  for (const auto c : r.kinds)
    if (c) w.u(c);
  w.at(Col::Sizes);
  w.u(r.sizes.size());
  for (const auto& [size, c] : r.sizes) {
    w.u(size);
    w.u(c);
  }
  std::uint64_t mask = 0;
  for (int b = 0; b < kStrideBins; ++b)
    if (r.strides[static_cast<std::size_t>(b)]) mask |= std::uint64_t{1} << b;
  w.at(Col::StrideMask);
  w.u(mask);
  for (int b = 0; b < kStrideBins; ++b) {
    const auto bi = static_cast<std::size_t>(b);
    if (!r.strides[bi]) continue;
    w.at(Col::StrideCount);
    w.u(r.strides[bi]);
    w.at(Col::StrideExact);
    if (b != 0 && b != kRandomBin) w.u(magnitude(r.exact[bi]) - magnitude(nominal(b)));
  }
  auto reuse = [&](const std::array<std::uint64_t, RegionProfile::kJumpBins>& a) {
    std::size_t used = a.size();
    while (used > 0 && a[used - 1] == 0) --used;
    w.u(used);
    for (std::size_t k = 0; k < used; ++k) w.u(a[k]);
  };
  w.at(Col::Sweeps);
  if (!r.sweeps.empty()) {
    w.u(r.sweeps.size());
    for (const auto& sw : r.sweeps) {
      w.u(sw.count);
      w.s(sw.stride);
      w.u(sw.count - sw.runs);  // the repeats: 0 .. count - 1
      w.u(sw.long_runs);
      w.u(sw.alternations);
    }
  }
  w.at(Col::JumpReuse);
  reuse(r.jump_reuse);
  if (r.moves) {
    w.at(Col::Moves);
    w.u(r.moves);
    w.at(Col::MoveReuse);
    reuse(r.move_reuse);
  }
  std::uint64_t rows = 0;
  std::array<std::uint64_t, kStrideBins> cols{};
  for (int a = 0; a < kStrideBins; ++a)
    for (int b = 0; b < kStrideBins; ++b)
      if (r.transitions[static_cast<std::size_t>(a * kStrideBins + b)]) {
        rows |= std::uint64_t{1} << a;
        cols[static_cast<std::size_t>(a)] |= std::uint64_t{1} << b;
      }
  w.at(Col::GraphMask);
  w.u(rows);
  for (int a = 0; a < kStrideBins; ++a) {
    if (!cols[static_cast<std::size_t>(a)]) continue;
    w.at(Col::GraphMask);
    w.u(cols[static_cast<std::size_t>(a)]);
    w.at(Col::GraphCount);
    for (int b = 0; b < kStrideBins; ++b)
      if (const auto c = r.transitions[static_cast<std::size_t>(a * kStrideBins + b)]) w.u(c);
  }
}

// Reads the body, interleaved or column-arranged; every error is "profile: body byte N (field):
// reason", N counted from the start of the body either way.
class BodyReader {
 public:
  explicit BodyReader(std::string_view body) : in_(body) { end_.fill(body.size()); }

  // Reads a column-arranged body's directory; the fields then come from their columns (at()).
  Status columns() {
    auto n = u(".columns");
    if (!n) return n.error();
    if (*n != kColumns) return fail(".columns", std::to_string(*n) + " columns, expected " + std::to_string(kColumns));
    std::array<std::uint64_t, kColumns> length{};
    for (std::size_t c = 0; c < kColumns; ++c) {
      auto len = u(".columns." + std::string(kColumnNames[c]));
      if (!len) return len.error();
      length[c] = *len;
    }
    std::size_t from = pos_[0];
    for (std::size_t c = 0; c < kColumns; ++c) {
      if (length[c] > in_.size() - from) {
        start_ = from;
        return fail(".columns." + std::string(kColumnNames[c]), "column of " + std::to_string(length[c]) +
                                                                   " bytes, past the end of the body");
      }
      pos_[c] = from;
      end_[c] = from += length[c];
    }
    if (from != in_.size()) {
      start_ = from;
      return fail(".columns", std::to_string(in_.size() - from) + " bytes after the last column");
    }
    columnar_ = true;
    return Status::success();
  }
  // The column the next fields come from (an interleaved body has one cursor for all).
  void at(Col c) {
    if (columnar_) k_ = static_cast<std::size_t>(c);
  }
  // An error if any column holds bytes the profile did not read (interleaved: the body).
  Status finish() {
    for (std::size_t c = 0; c < (columnar_ ? kColumns : 1); ++c) {
      if (pos_[c] == end_[c]) continue;
      k_ = c;
      start_ = pos_[c];
      return fail(columnar_ ? ".columns." + std::string(kColumnNames[c]) : "end",
                  std::to_string(end_[c] - pos_[c]) + (columnar_ ? " bytes left in the column" : " bytes after the profile"));
    }
    return Status::success();
  }

  Error fail(const std::string& field, const std::string& what) const {
    return make_error("profile: body byte " + std::to_string(start_) + " (" + field + "): " + what);
  }
  std::size_t remaining() const { return end_[k_] - pos_[k_]; }

  Result<std::uint64_t> u(const std::string& field) {
    auto& pos = pos_[k_];
    start_ = pos;
    std::uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      if (pos >= end_[k_]) return fail(field, columnar_ ? "the column ends inside this field" : "the body ends inside this field");
      const auto b = static_cast<std::uint8_t>(in_[pos++]);
      if (shift == 63 && b > 1) return fail(field, "varint overflows 64 bits");
      v |= std::uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return v;
    }
  }
  Result<std::int64_t> s(const std::string& field) {
    auto v = u(field);
    if (!v) return v.error();
    return static_cast<std::int64_t>((*v >> 1) ^ (~(*v & 1) + 1));
  }
  Result<std::uint8_t> byte(const std::string& field) {
    auto& pos = pos_[k_];
    start_ = pos;
    if (pos >= end_[k_]) return fail(field, columnar_ ? "the column ends inside this field" : "the body ends inside this field");
    return static_cast<std::uint8_t>(in_[pos++]);
  }
  Result<double> f64(const std::string& field) {
    auto& pos = pos_[k_];
    start_ = pos;
    if (remaining() < 8) return fail(field, columnar_ ? "the column ends inside this field" : "the body ends inside this field");
    std::uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) bits |= std::uint64_t{static_cast<std::uint8_t>(in_[pos++])} << (8 * i);
    return std::bit_cast<double>(bits);
  }

 private:
  std::string_view in_;
  bool columnar_ = false;
  std::size_t k_ = 0;                        // the column read from (always 0 when interleaved)
  std::array<std::size_t, kColumns> pos_{};  // each column's cursor and end, offsets in the body
  std::array<std::size_t, kColumns> end_{};
  std::size_t start_ = 0;                    // where the field being read began
};

#define HMTT_READ(var, expr)          \
  auto var##_r = (expr);              \
  if (!var##_r) return var##_r.error(); \
  const auto var = *var##_r

Result<std::uint64_t> read_mask(BodyReader& in, const std::string& field) {
  HMTT_READ(mask, in.u(field));
  if (mask >> kStrideBins) return in.fail(field, "bit above the " + std::to_string(kStrideBins) + " stride bins");
  return mask;
}

Status read_reuse(BodyReader& in, const std::string& field, std::array<std::uint64_t, RegionProfile::kJumpBins>& into,
                  std::uint64_t limit, const char* what) {
  HMTT_READ(n, in.u(field));
  if (n > into.size()) return in.fail(field, "more than " + std::to_string(into.size()) + " distance bins");
  std::uint64_t sum = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::string fk = field + "[" + std::to_string(k) + "]";
    HMTT_READ(c, in.u(fk));
    if (c > limit || sum > limit - c) return in.fail(fk, std::string("more returns than ") + what);
    sum += c;
    into[k] = c;
  }
  if (n > 0 && into[n - 1] == 0) return in.fail(field, "a trailing zero count (not canonical)");
  return Status::success();
}

Result<RegionProfile> read_region(BodyReader& in, const std::string& path, std::uint64_t previous_base, int version) {
  RegionProfile r;
  in.at(Col::Flags);
  HMTT_READ(flags, in.byte(path + ".flags"));
  const std::uint8_t known = kFlagCode | kFlagMerged | kFlagMoves | kFlagSweep | (version >= 6 ? kFlagGrowth : 0) |
                             (version >= 7 ? kFlagFootprint : 0) | (version >= 8 ? kFlagActivity : 0) |
                             (version >= 9 ? kFlagFootprintOpen : 0);
  if (flags & ~known) return in.fail(path + ".flags", "reserved bits set");
  if ((flags & kFlagFootprintOpen) && !(flags & kFlagFootprint))
    return in.fail(path + ".flags", "open times flagged without footprint blocks");
  r.code = flags & kFlagCode;
  in.at(Col::Base);
  HMTT_READ(delta, in.s(path + ".base"));
  r.base = previous_base + static_cast<std::uint64_t>(delta);
  in.at(Col::Range);
  HMTT_READ(span, in.u(path + ".last"));
  if (span > ~r.base) return in.fail(path + ".last", "past the end of the address space");
  r.last = r.base + span;
  HMTT_READ(first, in.u(path + ".first"));
  if (first > span) return in.fail(path + ".first", "outside [base, last]");
  r.first = r.base + first;
  in.at(Col::Count);
  HMTT_READ(count, in.u(path + ".count"));
  r.count = count;
  in.at(Col::Runs);
  HMTT_READ(runs, in.u(path + ".runs"));
  if (runs > count) return in.fail(path + ".runs", "more runs than accesses");
  r.runs = runs;
  in.at(Col::WorkingSet);
  HMTT_READ(ws, in.u(path + ".working_set"));
  r.working_set = ws;
  if (flags & kFlagFootprint) {
    const std::string fp = path + ".footprint";
    HMTT_READ(n, in.u(fp));
    if (n == 0) return in.fail(fp, "flagged but empty");
    if (n > in.remaining() / 2) return in.fail(fp, "more blocks than the body holds");
    std::uint64_t next = r.base >> RegionProfile::kFootprintBlockShift, sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string f = fp + "[" + std::to_string(i) + "]";
      HMTT_READ(gap, in.u(f));
      HMTT_READ(lines, in.u(f));
      const std::uint64_t last_block = r.last >> RegionProfile::kFootprintBlockShift;
      if (next > last_block || gap > last_block - next) return in.fail(f, "block outside [base, last]");
      const std::uint64_t block = next + gap;
      if (lines >= r.lines_in_block(block)) return in.fail(f, "more lines than the block holds in [base, last]");
      sum += lines + 1;
      r.footprint.emplace_back(block, static_cast<std::uint32_t>(lines + 1));
      next = block + 1;
    }
    if (sum != ws) return in.fail(fp, "lines add up to " + std::to_string(sum) + ", not the working set " + std::to_string(ws));
  }
  if (flags & kFlagMerged) {
    in.at(Col::Merged);
    HMTT_READ(merged, in.u(path + ".merged"));
    if (merged == 0) return in.fail(path + ".merged", "flagged but zero");
    r.merged = merged;
  }
  in.at(Col::Instances);
  HMTT_READ(first_instance, in.u(path + ".first_instance"));
  HMTT_READ(lifetime, in.u(path + ".last_instance"));
  if (lifetime > ~first_instance) return in.fail(path + ".last_instance", "past 2^64 - 1");
  r.first_instance = first_instance;
  r.last_instance = first_instance + lifetime;
  // A curve of 8 shares of the lifetime (growth, activity), as steps that must not pass 65536.
  auto curve = [&in](const std::string& field, std::vector<std::uint32_t>& points) -> Status {
    std::uint64_t at = 0;
    for (std::size_t j = 0; j < RegionProfile::kGrowthPoints; ++j) {
      const std::string f = field + "[" + std::to_string(j) + "]";
      HMTT_READ(step, in.u(f));
      if (step > RegionProfile::kGrowthScale - at) return in.fail(f, "past the lifetime's end (65536)");
      at += step;
      points.push_back(static_cast<std::uint32_t>(at));
    }
    return Status::success();
  };
  if (flags & kFlagGrowth) HMTT_TRY(curve(path + ".growth", r.growth));
  if (flags & kFlagActivity) {
    if (r.last_instance == r.first_instance) return in.fail(path + ".activity", "flagged for a region of one instance");
    HMTT_TRY(curve(path + ".activity", r.activity));
  }
  if (flags & kFlagFootprintOpen) {
    for (std::size_t i = 0; i < r.footprint.size(); ++i) {
      const std::string f = path + ".footprint_open[" + std::to_string(i) + "]";
      HMTT_READ(t, in.u(f));
      if (t > RegionProfile::kGrowthScale) return in.fail(f, "past the lifetime's end (65536)");
      r.footprint_open.push_back(static_cast<std::uint32_t>(t));
    }
  }
  in.at(Col::Kinds);
  HMTT_READ(kinds, in.byte(path + ".kinds"));
  if (kinds >> r.kinds.size()) return in.fail(path + ".kinds", "unknown kind bit (read, write, ifetch, modify)");
  for (std::size_t k = 0; k < r.kinds.size(); ++k) {
    if (!(kinds & (1u << k))) continue;
    const std::string f = path + ".kinds[" + std::to_string(k) + "]";
    HMTT_READ(c, in.u(f));
    if (c == 0) return in.fail(f, "flagged but zero");
    r.kinds[k] = c;
  }
  in.at(Col::Sizes);
  HMTT_READ(nsizes, in.u(path + ".sizes"));
  if (nsizes > in.remaining() / 2) return in.fail(path + ".sizes", "more sizes than the body holds");
  for (std::size_t i = 0; i < nsizes; ++i) {
    const std::string f = path + ".sizes[" + std::to_string(i) + "]";
    HMTT_READ(size, in.u(f + "[0]"));
    if (size > 4096) return in.fail(f + "[0]", "access size above 4096 bytes");
    HMTT_READ(c, in.u(f + "[1]"));
    r.sizes.emplace_back(static_cast<std::uint32_t>(size), c);
  }
  in.at(Col::StrideMask);
  HMTT_READ(mask, read_mask(in, path + ".strides"));
  for (int b = 0; b < kStrideBins; ++b) {
    const auto bi = static_cast<std::size_t>(b);
    r.exact[bi] = nominal(b);
    if (!(mask & (std::uint64_t{1} << b))) continue;
    const std::string f = path + ".strides." + std::string(stride_bin_label(b));
    in.at(Col::StrideCount);
    HMTT_READ(c, in.u(f + "[0]"));
    if (c == 0) return in.fail(f + "[0]", "flagged but zero");
    r.strides[bi] = c;
    if (b == 0 || b == kRandomBin) continue;
    in.at(Col::StrideExact);
    HMTT_READ(offset, in.u(f + "[1]"));
    const std::uint64_t low = magnitude(nominal(b));
    if (offset >= low) return in.fail(f + "[1]", "stride offset " + std::to_string(offset) + " is outside the bin");
    const auto mag = static_cast<std::int64_t>(low + offset);
    r.exact[bi] = b < 10 ? mag : -mag;
  }
  in.at(Col::Sweeps);
  if (flags & kFlagSweep) {
    std::uint64_t n = 1;  // versions 1 .. 3: one sweep, its strides each a run of its own
    if (version >= 4) {
      HMTT_READ(sweeps, in.u(path + ".sweeps"));
      if (sweeps == 0 || sweeps > kMaxSweeps)
        return in.fail(path + ".sweeps", "flagged, so 1 .. " + std::to_string(kMaxSweeps) + " sweeps");
      n = sweeps;
    }
    std::uint64_t swept = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::string f = version >= 4 ? path + ".sweeps[" + std::to_string(i) + "]" : path + ".sweep";
      HMTT_READ(sc, in.u(f + "[0]"));
      if (sc == 0 || sc > r.strides[kRandomBin] - swept)
        return in.fail(f + "[0]", "not 1 .. the random strides' count (less the sweeps before)");
      HMTT_READ(st, in.s(f + "[1]"));
      if (stride_bin(st) != kRandomBin) return in.fail(f + "[1]", "not a random stride (|stride| > 256)");
      for (const auto& before : r.sweeps)
        if (before.stride == st) return in.fail(f + "[1]", "the stride of an earlier sweep");
      Sweep sw{st, sc, sc, 0};
      if (version >= 4) {
        HMTT_READ(repeats, in.u(f + "[2]"));
        if (repeats >= sc) return in.fail(f + "[2]", "repeats leave no run (at most count - 1)");
        sw.runs = sc - repeats;
        HMTT_READ(long_runs, in.u(f + "[3]"));
        if (long_runs > std::min(sw.runs, repeats))
          return in.fail(f + "[3]", "more long runs than the runs, or than the strides that repeat the sweep");
        sw.long_runs = long_runs;
        HMTT_READ(alternations, in.u(f + "[4]"));
        if (alternations > sw.runs) return in.fail(f + "[4]", "more alternations than the runs");
        sw.alternations = alternations;
      }
      swept += sc;
      r.sweeps.push_back(sw);
    }
  }
  in.at(Col::JumpReuse);
  HMTT_TRY(read_reuse(in, path + ".jump_reuse", r.jump_reuse, r.strides[kRandomBin] - r.swept(), "random strides"));
  if (flags & kFlagMoves) {
    in.at(Col::Moves);
    HMTT_READ(moves, in.u(path + ".moves"));
    if (moves == 0) return in.fail(path + ".moves", "flagged but zero");
    r.moves = moves;
    in.at(Col::MoveReuse);
    HMTT_TRY(read_reuse(in, path + ".move_reuse", r.move_reuse, r.moves, "moves"));
  }
  in.at(Col::GraphMask);
  HMTT_READ(rows, read_mask(in, path + ".stride_order"));
  for (int a = 0; a < kStrideBins; ++a) {
    if (!(rows & (std::uint64_t{1} << a))) continue;
    const std::string rp = path + ".stride_order." + std::string(stride_bin_label(a));
    in.at(Col::GraphMask);
    HMTT_READ(cols, read_mask(in, rp));
    if (cols == 0) return in.fail(rp, "an empty row");
    in.at(Col::GraphCount);
    for (int b = 0; b < kStrideBins; ++b) {
      if (!(cols & (std::uint64_t{1} << b))) continue;
      const std::string f = rp + "." + std::string(stride_bin_label(b));
      HMTT_READ(c, in.u(f));
      if (c == 0) return in.fail(f, "flagged but zero");
      r.transitions[static_cast<std::size_t>(a * kStrideBins + b)] = c;
    }
  }
  return r;
}

}  // namespace

Result<StreamProfile> decode_body(std::string_view body, int version, BodyLayout layout) {
  BodyReader in(body);
  if (layout == BodyLayout::Columns) HMTT_TRY(in.columns());
  StreamProfile p;
  HMTT_READ(refs, in.u(".references"));
  p.references = refs;
  HMTT_READ(window, in.u(".window"));
  if (window == 0) return in.fail(".window", "must be at least 1");
  p.knobs.window = window;
  HMTT_READ(distance, in.u(".region_distance"));
  p.knobs.region_distance = distance;
  HMTT_READ(buffer, in.u(".pattern_buffer"));
  p.knobs.pattern_buffer = buffer;
  HMTT_READ(merge, in.u(".merge_below"));
  p.knobs.merge_below = merge;
  HMTT_READ(similarity, in.f64(".loop_similarity"));
  if (!(similarity >= 0.0 && similarity <= 1.0)) return in.fail(".loop_similarity", "not within 0..1");
  p.knobs.loop_similarity = similarity;
  HMTT_READ(signature, in.byte(".loop_signature"));
  if (signature > 1) return in.fail(".loop_signature", "must be 0 (pages) or 1 (code)");
  p.knobs.loop_signature = static_cast<LoopSignature>(signature);
  p.knobs.lattice_stride = 0;  // version 1 profiles were made before it
  if (version >= 2) {
    HMTT_READ(lattice, in.u(".lattice_stride"));
    p.knobs.lattice_stride = lattice;
  }
  p.knobs.returns = ReturnScope::Window;  // versions 1 and 2 counted returns within a window
  if (version >= 3) {
    HMTT_READ(returns, in.byte(".returns"));
    if (returns > 1) return in.fail(".returns", "must be 0 (window) or 1 (loop)");
    p.knobs.returns = static_cast<ReturnScope>(returns);
  }
  HMTT_READ(nloops, in.u(".loops"));
  std::unordered_map<std::uint32_t, std::uint64_t> loop_of_region;  // code region -> its loop
  for (std::uint64_t li = 0; li < nloops; ++li) {
    const std::string lp = ".loops[" + std::to_string(li) + "]";
    LoopProfile l;
    in.at(Col::Meta);
    HMTT_READ(inst, in.u(lp + ".instances"));
    l.instances = inst;
    HMTT_READ(lrefs, in.u(lp + ".references"));
    if (lrefs == 0) return in.fail(lp + ".references", "must be at least 1");
    l.references = lrefs;
    if (version >= 5) {  // 0: the segmentation's loop, else the code region's id + 1
      HMTT_READ(region, in.u(lp + ".code_region"));
      if (region > analysis::kOtherRegionId)
        return in.fail(lp + ".code_region", std::to_string(region - 1) + " is above " +
                                                std::to_string(analysis::kOtherRegionId - 1) + " (region ids are 32-bit)");
      if (region > 0) {
        l.code_region = static_cast<std::uint32_t>(region - 1);
        // A map, not a scan of the loops before: a corrupt body may hold hundreds of thousands.
        if (const auto [at, fresh] = loop_of_region.try_emplace(l.code_region, li); !fresh)
          return in.fail(lp + ".code_region",
                         std::to_string(l.code_region) + " is also loops[" + std::to_string(at->second) + "]'s");
      }
    }
    HMTT_READ(nregions, in.u(lp + ".regions"));
    if (nregions == 0) return in.fail(lp + ".regions", "a loop needs at least one region");
    std::uint64_t base = 0;
    for (std::uint64_t ri = 0; ri < nregions; ++ri) {
      auto r = read_region(in, lp + ".regions[" + std::to_string(ri) + "]", base, version);
      if (!r) return r.error();
      base = r->base;
      l.regions.push_back(std::move(*r));
    }
    in.at(Col::Pattern);
    HMTT_READ(npattern, in.u(lp + ".pattern"));
    if (npattern == 0) return in.fail(lp + ".pattern", "the pattern buffer is empty");
    for (std::uint64_t i = 0; i < npattern; ++i) {
      const std::string ep = lp + ".pattern[" + std::to_string(i) + "]";
      HMTT_READ(v, in.u(ep));
      const std::uint64_t id = v >> 1;
      if (id >= l.regions.size())
        return in.fail(ep, "region " + std::to_string(id) + " does not exist (the loop has " +
                               std::to_string(l.regions.size()) + ")");
      std::uint64_t run = 1;
      if (v & 1) {
        HMTT_READ(more, in.u(ep + ".run"));
        if (more > ~std::uint64_t{0} - 2) return in.fail(ep + ".run", "run too long");
        run = more + 2;
      }
      l.pattern.emplace_back(static_cast<std::uint32_t>(id), run);
    }
    p.loops.push_back(std::move(l));
  }
  in.at(Col::Meta);
  HMTT_READ(norder, in.u(".order"));
  for (std::uint64_t i = 0; i < norder; ++i) {
    const std::string ep = ".order[" + std::to_string(i) + "]";
    HMTT_READ(loop, in.u(ep + "[0]"));
    if (loop >= p.loops.size()) return in.fail(ep + "[0]", "loop " + std::to_string(loop) + " does not exist");
    HMTT_READ(n, in.u(ep + "[1]"));
    if (n == 0) return in.fail(ep + "[1]", "must be at least 1");
    p.order.emplace_back(static_cast<std::uint32_t>(loop), n);
  }
  if (p.references > 0 && p.order.empty()) return in.fail(".order", "empty, but the profile has references");
  HMTT_TRY(in.finish());
  return p;
}

#undef HMTT_READ

namespace {

Error header_error(std::size_t offset, const std::string& what) {
  return make_error("profile: byte " + std::to_string(offset) + ": " + what);
}

}  // namespace

bool is_binary_profile(std::string_view data) { return data.substr(0, kBinaryMagic.size()) == kBinaryMagic; }

std::string encode_body(const StreamProfile& p, BodyLayout layout) {
  BodyWriter w;
  w.u(p.references);
  w.u(p.knobs.window);
  w.u(p.knobs.region_distance);
  w.u(p.knobs.pattern_buffer);
  w.u(p.knobs.merge_below);
  w.f64(p.knobs.loop_similarity);
  w.byte(static_cast<std::uint8_t>(p.knobs.loop_signature));
  w.u(p.knobs.lattice_stride);
  w.byte(static_cast<std::uint8_t>(p.knobs.returns));
  w.u(p.loops.size());
  for (const auto& l : p.loops) {
    w.at(Col::Meta);
    w.u(l.instances);
    w.u(l.references);
    w.u(l.code_region == analysis::kOtherRegionId ? 0 : std::uint64_t{l.code_region} + 1);
    w.u(l.regions.size());
    std::uint64_t base = 0;
    for (const auto& r : l.regions) {
      write_region(w, r, base);
      base = r.base;
    }
    w.at(Col::Pattern);
    w.u(l.pattern.size());
    for (const auto& [id, run] : l.pattern) {
      w.u((std::uint64_t{id} << 1) | (run != 1 ? 1 : 0));
      if (run != 1) w.u(run - 2);
    }
  }
  w.at(Col::Meta);
  w.u(p.order.size());
  for (const auto& [loop, n] : p.order) {
    w.u(loop);
    w.u(n);
  }
  return layout == BodyLayout::Columns ? w.take_columns() : w.take();
}

std::string to_binary(const StreamProfile& p, BinaryCompression compression, BodyLayout layout) {
  const std::string body = encode_body(p, layout);
  std::string out(kHeaderBytes, '\0');
  std::memcpy(out.data(), kBinaryMagic.data(), kBinaryMagic.size());
  out[8] = static_cast<char>(kVersion);
  out[9] = static_cast<char>(compression == BinaryCompression::Lzma      ? kLzma
                             : compression == BinaryCompression::Deflate ? kDeflate
                                                                         : kStored);
  out[10] = static_cast<char>(layout == BodyLayout::Columns ? kColumnsLayout : kInterleaved);
  put_u32(out, 12, static_cast<std::uint32_t>(body.size()));
  const auto crc = crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()));
  put_u32(out, 16, static_cast<std::uint32_t>(crc));
  if (compression == BinaryCompression::Stored) return out + body;
  if (compression == BinaryCompression::Lzma) {
    const LzmaFilter filter(static_cast<std::uint32_t>(body.size()));
    std::size_t packed = 0;
    out.resize(kHeaderBytes + body.size() + body.size() / 64 + 256);  // LZMA2 stores what does not compress
    const lzma_ret rc = lzma_raw_buffer_encode(filter.chain, nullptr, reinterpret_cast<const std::uint8_t*>(body.data()),
                                               body.size(), reinterpret_cast<std::uint8_t*>(out.data() + kHeaderBytes),
                                               &packed, out.size() - kHeaderBytes);
    if (rc != LZMA_OK) return to_binary(p, BinaryCompression::Deflate, layout);  // (only on allocation failure)
    out.resize(kHeaderBytes + packed);
    return out;
  }
  uLongf packed = compressBound(static_cast<uLong>(body.size()));
  out.resize(kHeaderBytes + packed);
  const int rc = compress2(reinterpret_cast<Bytef*>(out.data() + kHeaderBytes), &packed,
                           reinterpret_cast<const Bytef*>(body.data()), static_cast<uLong>(body.size()), Z_BEST_COMPRESSION);
  if (rc != Z_OK) return to_binary(p, BinaryCompression::Stored, layout);  // (only on allocation failure)
  out.resize(kHeaderBytes + packed);
  return out;
}

namespace {

// One codec's run over a compressed body into `out` (sized to the header's body length): the
// bytes it wrote and read, or why it failed.
struct Decompressed {
  std::size_t out = 0;
  std::size_t in = 0;
  std::string error;
};

Decompressed decompress_deflate(std::string_view payload, std::string& out) {
  uLongf out_len = static_cast<uLongf>(out.size());
  uLong in_len = static_cast<uLong>(payload.size());
  const int rc = uncompress2(reinterpret_cast<Bytef*>(out.data()), &out_len, reinterpret_cast<const Bytef*>(payload.data()), &in_len);
  if (rc == Z_OK) return {out_len, in_len, {}};
  return {0, 0, std::string("zlib: ") + (rc == Z_BUF_ERROR    ? "longer than the header's body length, or cut short"
                                         : rc == Z_DATA_ERROR ? "bad deflate data"
                                                              : "error " + std::to_string(rc))};
}

Decompressed decompress_lzma2(std::string_view payload, std::string& out) {
  const LzmaFilter filter(static_cast<std::uint32_t>(out.size()));
  std::size_t in_pos = 0, out_pos = 0;
  const lzma_ret rc = lzma_raw_buffer_decode(filter.chain, nullptr, reinterpret_cast<const std::uint8_t*>(payload.data()),
                                             &in_pos, payload.size(), reinterpret_cast<std::uint8_t*>(out.data()),
                                             &out_pos, out.size());
  if (rc == LZMA_OK) return {out_pos, in_pos, {}};
  return {0, 0, std::string("LZMA2: ") + (rc == LZMA_BUF_ERROR    ? "longer than the header's body length, or cut short"
                                          : rc == LZMA_DATA_ERROR ? "bad data"
                                          : rc == LZMA_MEM_ERROR  ? "out of memory"
                                                                  : "error " + std::to_string(rc))};
}

}  // namespace

Result<StreamProfile> from_binary(std::string_view data) {
  if (data.size() < kHeaderBytes) return header_error(data.size(), "the 20-byte header is cut short");
  if (!is_binary_profile(data)) return header_error(0, "not a binary PSnAP profile (magic HMTTPSNP)");
  const auto version = static_cast<std::uint8_t>(data[8]);
  if (version < 1 || version > kVersion)
    return header_error(8, "version " + std::to_string(version) + " (this reader knows 1 to " + std::to_string(kVersion) + ")");
  const auto compression = static_cast<std::uint8_t>(data[9]);
  if (compression != kStored && compression != kDeflate && compression != kLzma)
    return header_error(9, "unknown compression " + std::to_string(compression) + " (0 stored, 1 deflate, 2 LZMA2)");
  const auto layout = static_cast<std::uint8_t>(data[10]);
  if (layout != kInterleaved && layout != kColumnsLayout)
    return header_error(10, "unknown body layout " + std::to_string(layout) + " (0 interleaved, 1 columns)");
  if (data[11] != 0) return header_error(11, "reserved, must be 0");
  const std::uint32_t body_bytes = get_u32(data, 12);
  const std::uint32_t crc = get_u32(data, 16);
  const std::string_view payload = data.substr(kHeaderBytes);
  std::string inflated;
  std::string_view body;
  if (compression == kStored) {
    if (payload.size() != body_bytes)
      return header_error(12, "body length " + std::to_string(body_bytes) + ", but " + std::to_string(payload.size()) +
                                  " bytes follow the header");
    body = payload;
  } else {
    const bool lzma = compression == kLzma;
    if (body_bytes > (lzma ? kMaxLzmaInflation : kMaxInflation) * payload.size() + 64)
      return header_error(12, "body length " + std::to_string(body_bytes) + " is impossible for " +
                                  std::to_string(payload.size()) + " compressed bytes");
    inflated.resize(body_bytes);
    const Decompressed d = lzma ? decompress_lzma2(payload, inflated) : decompress_deflate(payload, inflated);
    if (!d.error.empty()) return header_error(kHeaderBytes, "the compressed body is corrupt (" + d.error + ")");
    if (d.out != body_bytes)
      return header_error(12, "body length " + std::to_string(body_bytes) + ", but the body decompresses to " +
                                  std::to_string(d.out));
    if (d.in != payload.size())
      return header_error(kHeaderBytes + d.in, std::to_string(payload.size() - d.in) + " bytes after the compressed body");
    body = inflated;
  }
  const auto actual = static_cast<std::uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size())));
  if (actual != crc) return header_error(16, "body CRC-32 mismatch: the profile is corrupt");
  return decode_body(body, version, layout == kColumnsLayout ? BodyLayout::Columns : BodyLayout::Interleaved);
}

}  // namespace hmtt::psnap
