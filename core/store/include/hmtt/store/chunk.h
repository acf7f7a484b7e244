// The chunk codec: one time-ordered run of references as one BLOB
// (docs/store.md, "The chunk BLOB", gives the layout to the byte).
//
// Encoding is two stages so a writer can run them on two threads:
//   ChunkColumns::split  (caller thread) runs the address model over the
//       references and produces five columns: time deltas, kind/origin/
//       predictor bytes, size, source (frame-of-reference reduced, cut into
//       byte planes) and the address residuals of mispredicted references
//       (a varint stream);
//   pack_chunk           (writer thread) LZ4-compresses each plane that gains (or
//       bit-packs a plane of few distinct bytes when that is about as small),
//       lays out header, tables, planes and the XXH64 trailer.
// ChunkDecoder validates a BLOB (size, magic, version, tables, checksum, LZ4,
// packed planes, the residual stream) and then decodes references in order, in batches.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hmtt/reference.h"
#include "hmtt/result.h"
#include "hmtt/store/scratch.h"

namespace hmtt::store {

inline constexpr std::uint8_t kChunkMagic[4] = {'H', 'M', 'T', 'C'};
// The newest chunk format: 3 adds packed planes (PlaneEncoding::Packed). Writers still mark a
// BLOB without a packed plane as version 2, byte for byte what they wrote before, so readers that
// know only 2 keep reading those; readers accept both.
inline constexpr std::uint16_t kChunkVersion = 3;
inline constexpr std::uint16_t kChunkVersionUnpacked = 2;
inline constexpr int kChunkColumns = 5;
inline constexpr std::size_t kChunkHeaderBytes = 32;
inline constexpr std::size_t kColumnEntryBytes = 16;
inline constexpr std::size_t kPlaneEntryBytes = 12;
inline constexpr std::size_t kChunkTrailerBytes = 8;
inline constexpr std::uint32_t kChunkMaxRefs = 1u << 24;

// Column ids, in BLOB order.
enum class Column : int { TimeDelta = 0, Residual = 1, KindOrigin = 2, Size = 3, Source = 4 };
// Widest legal plane count per column (column 1 has at most one plane: the varint stream).
inline constexpr std::array<std::uint8_t, kChunkColumns> kColumnMaxWidth = {8, 1, 1, 4, 2};

// Packed (chunk format 3): the plane's k <= 128 distinct byte values in increasing order, then each
// byte's index among them in ceil(log2 k) bits (docs/store.md, "Packed planes").
enum class PlaneEncoding : std::uint8_t { Raw = 0, Lz4 = 1, Packed = 2 };
inline constexpr unsigned kPackedMaxSymbols = 128;

// Address predictors, selected per reference by bits 4-5 of its kind/origin byte.
enum class Predictor : std::uint8_t {
  Stride = 0,      // last[k] + stride[k]: exact, no residual stored
  Context = 1,     // table[h].last + table[h].stride: exact, no residual stored
  Sequential = 2,  // last[k] + last_size[k]: exact, no residual stored
  Delta = 3,       // last[k] + residual: the residual is the next varint of column 1
};

// The per-chunk facts the `chunk` table indexes.
struct ChunkStats {
  std::uint32_t refs = 0;
  std::uint64_t t_first = 0;
  std::uint64_t t_last = 0;
  std::uint64_t a_min = 0;
  std::uint64_t a_max = 0;
  std::array<std::uint64_t, kKindCount> by_kind = {};
  std::uint32_t kind_mask = 0;    // bit (1 << Kind) for each kind present
  std::uint32_t origin_mask = 0;  // bit (1 << Origin) for each origin present
  std::uint64_t plane_bytes = 0;  // uncompressed plane bytes
};

namespace detail {
// The address model the encoder and the decoder both run, reference by
// reference (docs/store.md, "Address prediction"). For reference i of kind k:
//   stride:     last[k] + stride[k]
//   context:    table[h].last + table[h].stride, h = hash(ctx, ord, k)
//   sequential: last[k] + last_size[k]
// ctx is the address of the latest instruction fetch (or, while the chunk has
// none, of the previous reference); ord counts references since that fetch.
struct AddressModel {
  static constexpr int kTableBits = 12;
  struct Entry {
    std::uint64_t last = 0;
    std::uint64_t stride = 0;
  };
  std::array<std::uint64_t, kKindCount> last{};
  std::array<std::uint64_t, kKindCount> stride{};
  std::array<std::uint64_t, kKindCount> last_size{};
  std::vector<Entry> table;
  std::uint64_t ctx = 0;
  std::uint64_t ord = 0;
  bool seen_ifetch = false;

  void reset(std::uint64_t a_first) {
    last.fill(a_first);
    stride.fill(0);
    last_size.fill(0);
    table.assign(std::size_t{1} << kTableBits, Entry{});
    ctx = 0;
    ord = 0;
    seen_ifetch = false;
  }
  static std::size_t slot_of(std::uint64_t ctx, std::uint64_t ord, unsigned k) {
    const std::uint64_t key = ctx ^ (ord << 48) ^ (std::uint64_t{k} << 60);
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> (64 - kTableBits));
  }
  // The context after a reference of kind k at address a: an instruction fetch sets it and restarts
  // the count; until the first fetch the context is the previous reference.
  static void advance(unsigned k, std::uint64_t a, std::uint64_t& ctx, std::uint64_t& ord, bool& seen_ifetch) {
    if (k == static_cast<unsigned>(Kind::IFetch)) {
      ctx = a;
      ord = 0;
      seen_ifetch = true;
    } else if (seen_ifetch) {
      ord = ord < 255 ? ord + 1 : 255;
    } else {
      ctx = a;
    }
  }
};

// Column 1's residual stream (docs/store.md): each of the m differences as the LEB128 varint of
// zigzag(d >> shift), back to back from `out`, which needs 10 bytes a value plus 8 of slack (short
// varints are written a word at a time). Returns the end. encode_residuals picks the BMI2 (PDEP)
// loop where the CPU has it; both give the same bytes.
std::uint8_t* encode_residuals(const std::uint64_t* dv, std::uint64_t m, unsigned shift, std::uint8_t* out);
std::uint8_t* encode_residuals_generic(const std::uint64_t* dv, std::uint64_t m, unsigned shift, std::uint8_t* out);
bool residual_bmi2_available();
#if defined(__x86_64__)
std::uint8_t* encode_residuals_bmi2(const std::uint64_t* dv, std::uint64_t m, unsigned shift, std::uint8_t* out);
#endif

// check_and_copy_references's pass over the copied references (n rows, n may be 0): what its check and
// its summary need. row_sums picks the AVX2 loop where the CPU has it; both give the same sums.
struct RowSums {
  bool late = false;  // a row's time before the one before it (prev_time before rows[0])
  std::uint64_t dt_min = UINT64_MAX, dt_max = 0;  // time deltas, rows[0]'s only if first_has_delta
  std::uint64_t a_min = UINT64_MAX, a_max = 0;
  std::uint64_t tail_or = 0, tail_xor = 0;  // of every row's last eight bytes, and of their XOR with rows[0]'s
  std::uint32_t kinds = 0;                  // 1 << (kind byte & 31) of every row
};
RowSums row_sums(const Reference* rows, std::size_t n, std::uint64_t prev_time, bool first_has_delta);
// The same sums while copying the n rows to `out` (which must not overlap them): one pass instead of a
// memcpy and a pass over the copy. Uses the AVX2 loop where the CPU has it.
RowSums row_sums_copy(const Reference* rows, std::size_t n, std::uint64_t prev_time, bool first_has_delta,
                      Reference* out);
RowSums row_sums_generic(const Reference* rows, std::size_t n, std::uint64_t prev_time, bool first_has_delta);
bool row_sums_avx2_available();
#if defined(__x86_64__)
RowSums row_sums_avx2(const Reference* rows, std::size_t n, std::uint64_t prev_time, bool first_has_delta);
RowSums row_sums_copy_avx2(const Reference* rows, std::size_t n, std::uint64_t prev_time, bool first_has_delta,
                           Reference* out);
#endif

// ChunkColumns::split's loop over a board chunk (no instruction fetches, one size and one source
// throughout): the per-kind predictor's state carried between rows, and the counts it leaves.
// Each row i writes its time delta (tp[i], a byte less time_base, or td[i] whole), kos[i] (kind,
// origin and the predictor's choice: stride 0, sequential 2, residual 3) and, on a residual, its
// address difference at df[misses++]. Kinds and origins must be below 4 (the summary's check).
struct BoardLoopState {
  std::uint64_t prev_t = 0;  // the time before the next row
  std::array<std::uint64_t, kKindCount> last{}, stride{}, lsize{};
  std::uint64_t misses = 0, diff_bits = 0;  // residuals written, and the OR of them
};
bool board_loop_avx512_available();
#if defined(__x86_64__)
// Rows [0, n rounded down to a multiple of 8), eight a step (AVX-512 F and CD); returns the rows
// done. The rows after them go through the scalar loop with the state left in `s`. With td null
// the time deltas go to tp as bytes (less time_base), else to td whole (tp unused). Writes df in
// whole 8-word stores at df[misses]: df needs room for n words.
std::size_t board_loop_avx512(const Reference* refs, std::size_t n, std::uint64_t time_base, BoardLoopState& s,
                              std::uint8_t* tp, std::uint64_t* td, std::uint8_t* kos, std::uint64_t* df);
#endif

// Packed planes (PlaneEncoding::Packed, docs/store.md): the payload is k - 1 (one byte), the k
// distinct values in increasing order, then each byte's index among them in w = ceil(log2 k) bits
// (0 when k = 1), least significant bits first, the last byte's unused bits zero.
struct PackedPlan {
  unsigned symbols = 0;  // k
  unsigned width = 0;    // w
  std::size_t bytes = 0; // payload bytes: 1 + k + ceil(n * w / 8)
  std::array<std::uint8_t, 256> code{};
  std::array<std::uint8_t, kPackedMaxSymbols> table{};
};
// w for k symbols: ceil(log2 k), 0 when k <= 1.
unsigned packed_width(unsigned k);
// Distinct byte values in `plane` (0 .. 256).
unsigned distinct_bytes(std::span<const std::uint8_t> plane);
// False when the plane has more than kPackedMaxSymbols distinct values (or is empty).
bool plan_packed(std::span<const std::uint8_t> plane, PackedPlan& plan);
// Writes plan.bytes bytes at `out`, which needs 8 bytes of slack after them.
void write_packed(std::span<const std::uint8_t> plane, const PackedPlan& plan, std::uint8_t* out);
// Checks a payload against `raw` bytes (symbol count, table order, size, every index below k, the
// padding bits) and unpacks it into `out`. Errors say what is wrong, at which payload offset.
Status read_packed(std::span<const std::uint8_t> payload, std::size_t raw, std::uint8_t* out);
}  // namespace detail

// What a chunk may hold: times that never decrease (starting from `prev_time`), kinds and origins in
// range. The error names the first bad reference by its index in `refs` plus `first_index` (the
// position of refs[0] in its chunk, when `refs` is a piece of one).
Status check_references(std::span<const Reference> refs, std::uint64_t prev_time, std::size_t first_index = 0);
// What the store writer learns of a chunk's references while it checks and copies them, so that
// ChunkColumns::split need not find it again: the kinds present and each column's range.
struct ChunkSummary {
  std::uint32_t kind_mask = 0;  // bit (1 << Kind) of each kind present
  std::uint64_t a_min = UINT64_MAX, a_max = 0;
  std::uint64_t dt_min = UINT64_MAX, dt_max = 0;  // time deltas of rows 1 .. n-1 (row 0 has none)
  // Sizes and sources: the first one and the OR of every other's XOR with it (0: all the same, as
  // on a board; then the column needs no plane). Cheaper to take than ranges; split finds the
  // ranges itself when they vary.
  std::uint32_t size_first = 0, size_xor = 0;
  std::uint16_t source_first = 0, source_xor = 0;

  void merge(const ChunkSummary& o);
};

// The same check in the same pass that copies refs to `out` (room for refs.size()) and adds them
// to `summary` (refs[0] is row first_index of its chunk, prev_time the time of the row before it).
// On an error `summary` is unchanged and what was copied is to be ignored.
Status check_and_copy_references(std::span<const Reference> refs, std::uint64_t prev_time, std::size_t first_index,
                                 Reference* out, ChunkSummary& summary);

// Stage 1: references -> reduced columns (uncompressed planes).
class ChunkColumns {
 public:
  // Fails if refs is empty, longer than kChunkMaxRefs or not in time order. `checked`: the caller
  // has run check_references over exactly these references (the store writer does, as they are
  // written, so its error comes at write time), and split skips that pass.
  // `summary`: the kinds and ranges of exactly these references when the caller knows them (the
  // writer collects them while copying), else nullptr and split finds them itself. The BLOB is the
  // same either way.
  Status split(std::span<const Reference> refs, bool checked = false, const ChunkSummary* summary = nullptr);

  const ChunkStats& stats() const { return stats_; }
  std::uint64_t t_first() const { return t_first_; }
  std::uint64_t a_first() const { return a_first_; }
  std::uint64_t base(int column) const { return base_[column]; }
  std::uint8_t width(int column) const { return width_[column]; }
  std::size_t plane_count() const;
  // Trailing zero bits dropped from every residual (column 1 entry, byte 9).
  std::uint8_t residual_shift() const { return residual_shift_; }
  // Plane p in BLOB order: column 0's planes (low byte first), column 1's varint stream, ...
  std::span<const std::uint8_t> plane(std::size_t p) const;

 private:
  ChunkStats stats_;
  std::uint64_t t_first_ = 0;
  std::uint64_t a_first_ = 0;
  std::array<std::uint64_t, kChunkColumns> base_ = {};
  std::array<std::uint8_t, kChunkColumns> width_ = {};
  ScratchVector<std::uint64_t> tdelta_;
  ScratchVector<std::uint8_t> time_plane_;  // column 0's one plane, written by the loop when it fits a byte
  ScratchVector<std::uint32_t> size_;
  ScratchVector<std::uint16_t> source_;
  ScratchVector<std::uint8_t> ko_;
  ScratchVector<std::uint8_t> residuals_;  // LEB128 varints
  ScratchVector<std::uint64_t> diffs_;     // residual differences before the shift
  std::uint8_t residual_shift_ = 0;
  std::size_t residual_bytes_ = 0;
  ScratchVector<std::uint8_t> planes_;     // byte planes of columns 0, 2, 3, 4
  std::vector<std::span<const std::uint8_t>> plane_list_;
  detail::AddressModel model_;
};

// Stage 2: compresses planes and lays out the BLOB at the front of `buffer`
// (grown as needed, never shrunk, so a writer reuses it); returns the BLOB's length.
// acceleration is LZ4_compress_fast's (1 = LZ4_compress_default). Every byte of the BLOB is
// written; what lies past it in `buffer` is not (a ScratchVector is not zero-filled when it grows).
std::size_t pack_chunk(const ChunkColumns& columns, int acceleration, ScratchVector<std::uint8_t>& buffer);

// Convenience: both stages.
Status encode_chunk(std::span<const Reference> refs, std::vector<std::uint8_t>& blob, int acceleration = 1,
                    ChunkStats* stats = nullptr);

// Reads one BLOB. load() checks everything before any reference is decoded;
// its error says what is wrong (the caller adds file and chunk id).
class ChunkDecoder {
 public:
  // The BLOB must stay alive and unchanged until the next load() (raw planes are read in place).
  Status load(std::span<const std::uint8_t> blob);

  std::uint32_t refs() const { return refs_; }
  std::uint32_t decoded() const { return pos_; }
  std::uint64_t t_first() const { return t_first_; }
  std::uint64_t a_first() const { return a_first_; }
  // Time of the last reference, known at load() from the time column's sum (so a reader can check
  // it against its index row before it hands out any of the chunk's references).
  std::uint64_t t_last() const { return t_last_; }
  // Decodes the next min(out.size(), refs() - decoded()) references; returns the count.
  std::size_t next(std::span<Reference> out);

 private:
  std::uint32_t refs_ = 0;
  std::uint32_t pos_ = 0;
  std::uint64_t t_first_ = 0;
  std::uint64_t a_first_ = 0;
  std::array<std::uint64_t, kChunkColumns> base_ = {};
  std::array<std::uint8_t, kChunkColumns> width_ = {};
  std::array<std::array<const std::uint8_t*, 8>, kChunkColumns> plane_ = {};
  const std::uint8_t* residual_ = nullptr;  // next varint of column 1
  std::vector<std::uint8_t> unpacked_;      // decompressed LZ4 planes
  std::uint64_t time_ = 0;
  std::uint64_t t_last_ = 0;
  bool uses_context_ = true;
  std::uint8_t shift_ = 0;  // residual shift  // some row reads the context table (predictor 1 or bit 6)
  detail::AddressModel model_;
  std::vector<std::uint64_t> tmp_;
};

// One plane of a chunk BLOB, as its plane table describes it.
struct PlaneInfo {
  Column column = Column::TimeDelta;
  std::uint32_t raw_bytes = 0;     // the plane uncompressed
  std::uint32_t stored_bytes = 0;  // its bytes in the BLOB
  PlaneEncoding encoding = PlaneEncoding::Raw;
};
struct ChunkPlanes {
  std::uint32_t refs = 0;
  std::vector<PlaneInfo> planes;  // the plane table, in BLOB order
};
// The plane table of `blob`, once ChunkDecoder::load has accepted the BLOB (its errors otherwise).
// For `hmtt info --planes`: how a store's bytes split between the columns.
Result<ChunkPlanes> chunk_planes(std::span<const std::uint8_t> blob);

}  // namespace hmtt::store
