// The Chameleon memory signature (Weinberg and Snavely, "Chameleon: a
// framework for observing, understanding, and imitating the memory behavior
// of applications", sections 2.1-2.2 and 3.2): the reuse-distance CDF of
// the widest block (512 B by default) and, per reuse-distance bin, the alpha
// values of every level of the per-block access-history tree.
//
//   reuse        counts of 512-byte reuse distances in `sub_bins` equal slices
//                of every octave: bin 0 = distance 0, then octave k (distances
//                [2^(k-1), 2^k)) is bins 1+(k-1)*S .. k*S. Every power-of-two
//                depth is a bin edge, so the paper's 17-point CDF hit(d, 512),
//                d = 2^0..2^16, is read off exactly; the finer slices only
//                decide where inside an octave a synthetic distance falls.
//   cold         first references to a block (infinite distance).
//   alpha        yes/no counts per (alpha bin, tree level, node state):
//                alpha bin 0 = distance 0, bin k = [2^(k-1), 2^k) for
//                k = 1..16, bin 17 = distance >= 2^16; level 0 is the root
//                (512 B -> which 256 B half), the last level chooses the word.
//                alpha = yes/(yes+no), the probability that a visit to a tree
//                node takes the same edge as the previous visit to that node.
//                We split each count by the node's state: only one child
//                visited so far (a "no" explores a new half) or both (a "no"
//                returns to a known half), and "both" by the age of the other
//                child (references since it was last used, `age_bins` log4
//                bins); the paper's alpha is the sum over states.
//                Without the split, flips between two used halves and first
//                steps into an unused half share one probability, and the
//                synthetic blocks fill up: every half gets used eventually.
//   first        per level, how often a node's first visit went left/right
//                (the paper leaves first visits uncounted; we keep their
//                direction so that synthetic blocks are entered like the
//                original's).
//   kinds        read / write / ifetch / modify counts.
//   line_reuse   (when shape.line_bytes != 0, default 32 B) for every width
//                W = line_bytes, 2 line_bytes, ..., block_bytes / 2 and every
//                alpha bin of a block reuse, the histogram of the reuse
//                distance of the referenced W-byte unit (inside the block) in
//                units of W: column 0 = the unit's first reference (its block
//                was referenced before), column 1 + b = histogram bin b of
//                the distance (same slices as `reuse`). It says how a block
//                reuse at a given depth lands on the narrower units: the same
//                line (short distance), another one used long ago, or one
//                never used. Synthesis picks the line of each block reuse to
//                follow these (generator.h), so the reuse distances at every
//                width the CDF does not cover follow the original's too.
//   block_fill   (when shape.fill_bytes != 0, default 128 B; absent in
//                signatures written before it) for every alpha bin of a block
//                reuse, how many of the block's fill_bytes-wide units had been
//                referenced before it: column k = k units (0 .. block_bytes /
//                fill_bytes). It says which blocks are reused at a given
//                depth: in a hot set of whole blocks read at random the
//                reused blocks are full, while blocks a pointer chase touched
//                once have one unit used. Synthesis tries several blocks inside
//                each drawn distance bin and takes the one whose count
//                follows these (generator.h); without them a block reuse at
//                depth d takes whichever block is there, mostly young blocks
//                with few lines, and reaching for the far lines the original
//                reused it touches new ones instead.
//   layout       (when shape.layout_bytes != 0) where new blocks are placed.
//                At every first touch of a block: if it is the block right
//                after the j-th most recent new block (j = 1..kLayoutStreams:
//                a walk continuing, e.g. j = 2 for two arrays walked
//                together), layout_streams[j-1] counts it; otherwise (a jump)
//                its distance in blocks from the block first touched before
//                it, modulo layout_bytes / block_bytes, is counted: the most
//                frequent distances exactly (layout_exact, at most
//                kLayoutExact), the rest in log2 bins (layout_bins: bin 0 = 0,
//                bin k = [2^(k-1), 2^k)). Cache sets are address bits below
//                layout_bytes, so this says which blocks share sets (e.g. two
//                page-aligned arrays walked together); synthesis places its
//                new blocks by it instead of side by side.
//
// Signatures add: the signature of a region is the counts of its references,
// and a weighted combination scales each region's counts to its weight
// (section 3.2's per-basic-block signatures combined by execution counts).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hmtt/analysis/tool.h"
#include "hmtt/reference.h"
#include "hmtt/result.h"

namespace hmtt::chameleon {

using analysis::Json;

// The 17 depths of the paper's CDF (2^0 .. 2^16 blocks) and the alpha bins over them.
inline constexpr std::size_t kCdfDepths = 17;
inline constexpr std::size_t kAlphaBins = kCdfDepths + 1;
// Octaves of reuse distance the histogram covers (distances < 2^40 blocks).
inline constexpr std::size_t kOctaves = 40;
// Layout distances kept exactly (the most frequent ones); the rest go to log2 bins.
inline constexpr std::size_t kLayoutExact = 32;
// Walks the layout follows: a new block right after one of the last this many new blocks.
inline constexpr std::size_t kLayoutStreams = 8;
// Access sizes, by power of two: slot s holds sizes in (2^(s-1), 2^s] bytes (slot 0: 1 byte), up to
// 4096 and beyond in the last slot. Synthesis emits 2^s, naturally aligned.
inline constexpr std::size_t kSizeSlots = 13;
std::size_t size_slot(std::uint32_t bytes);

// The shape every signature of one profile shares.
struct SignatureShape {
  std::uint64_t block_bytes = 512;  // the widest block: the CDF's width, the tree's root
  std::uint64_t word_bytes = 4;     // the tree's leaves
  std::uint32_t sub_bins = 4;       // histogram slices per octave
  std::uint32_t age_bins = 1;       // "both" states split by the age of the other child, log4 bins
  bool age_in_visits = false;       // age clock: references (false) or visits of the child's block (true)
  std::uint64_t line_bytes = 0;     // line-distance histogram per alpha bin at this width (0 = none)
  std::uint64_t layout_bytes = 0;   // new-block placement modulo this span (0 = none: first-touch order)
  std::uint64_t fill_bytes = 0;     // block_fill counts units of this width (0 = none)

  std::size_t levels() const;          // log2(block / word)
  std::size_t histogram_bins() const;  // 1 + kOctaves * sub_bins
  std::size_t node_states() const { return 2 * std::size_t{age_bins}; }  // (one/both children) x age
  std::size_t alpha_row() const { return node_states() * levels(); }     // counts per alpha bin
  // Levels of the tree above the line (log2(block / line)); 0 without lines.
  std::size_t line_levels() const;
  // Widths with a line histogram: line_bytes, 2 line_bytes, ..., block_bytes / 2.
  std::size_t line_widths() const { return line_levels(); }
  // Columns of a line_reuse row: first touch of the line, then histogram_bins().
  std::size_t line_row() const { return line_bytes ? 1 + histogram_bins() : 0; }
  // Columns of a block_fill row: 0 .. block_bytes / fill_bytes units referenced before;
  // the units' depth in the access-history tree (log2(block / fill)).
  std::size_t fill_row() const { return fill_bytes ? 1 + block_bytes / fill_bytes : 0; }
  std::size_t fill_levels() const;
  // Blocks of the layout span (0 without layout) and its log2 bins (1 + log2 of that).
  std::uint64_t layout_blocks() const { return layout_bytes ? layout_bytes / block_bytes : 0; }
  std::size_t layout_bins() const;
  // Layout bin of a distance < layout_blocks(): 0 for 0, k for [2^(k-1), 2^k).
  static std::size_t layout_bin(std::uint64_t distance);
  // Age bin of a child last used `age` (>= 1) references ago: 1, 2-4, 5-16, 17-64, ... (capped).
  std::size_t age_bin(std::uint64_t age) const;
  // Histogram bin of a (finite) distance; alpha bin of a distance.
  std::size_t histogram_bin(std::uint64_t distance) const;
  static std::size_t alpha_bin(std::uint64_t distance);
  // Distances [lo, hi) of histogram bin `bin` (empty when lo == hi).
  std::pair<std::uint64_t, std::uint64_t> histogram_range(std::size_t bin) const;
  // Checks the shape (powers of two, block > word, sub_bins a power of two <= 64,
  // line_bytes 0 or a power of two with word < line < block, layout_bytes 0 or a
  // power of two with block < layout <= 2^40, fill_bytes 0 or a power of two
  // with word <= fill < block).
  Status validate() const;
  friend bool operator==(const SignatureShape&, const SignatureShape&) = default;
};

struct MemorySignature {
  SignatureShape shape;
  std::uint64_t references = 0;             // references characterised
  std::uint64_t cold = 0;                   // first references to a block
  std::vector<std::uint64_t> reuse;         // histogram_bins() counts
  // kAlphaBins rows of shape.alpha_row() counts, see alpha_index(): per age bin,
  // `levels` counts with one child visited, then `levels` with both.
  std::vector<std::uint64_t> alpha_yes;
  std::vector<std::uint64_t> alpha_no;
  std::vector<std::uint64_t> first_left;    // levels()
  std::vector<std::uint64_t> first_right;   // levels()
  // line_widths() x kAlphaBins rows of shape.line_row() counts, width-major
  // (row w * kAlphaBins + alpha bin: width line_bytes << w); empty when line_bytes == 0.
  std::vector<std::uint64_t> line_reuse;
  // kAlphaBins rows of shape.fill_row() counts; empty when fill_bytes == 0 or
  // the signature was written before them.
  std::vector<std::uint64_t> block_fill;
  // Layout (empty without shape.layout_bytes): distance -> count for the exact
  // distances, and layout_bins() counts of the others.
  std::map<std::uint64_t, std::uint64_t> layout_exact;
  std::vector<std::uint64_t> layout_bins;
  std::vector<std::uint64_t> layout_streams;  // kLayoutStreams counts (empty without layout)
  std::array<std::uint64_t, kKindCount> kinds{};
  // References per access-size slot (size_slot); all zero in signatures written before sizes
  // were kept, whose synthetic traces take the word size.
  std::array<std::uint64_t, kSizeSlots> sizes{};

  // An all-zero signature of `shape`.
  static MemorySignature empty(const SignatureShape& shape);

  // The paper's alpha(bin, level) = yes / (yes + no) over both node states;
  // `fallback` when never observed.
  double alpha(std::size_t bin, std::size_t level, double fallback) const;
  // Index into alpha_yes / alpha_no.
  std::size_t alpha_index(std::size_t bin, std::size_t level, bool both, std::size_t age = 0) const {
    return bin * shape.alpha_row() + (age * 2 + (both ? 1 : 0)) * shape.levels() + level;
  }
  // hit(d, block_bytes): share of references with distance < depth, depth a power of two.
  double hit_ratio(std::uint64_t depth) const;
  // The paper's 17-point CDF, hit(2^k, block_bytes) for k = 0..16.
  std::vector<double> cdf() const;

  // Keeps the kLayoutExact most frequent layout distances exact (ties: the
  // smaller distance) and moves the others into their bins.
  void compact_layout();

  // Adds `other` (same shape) count by count (layout: exact to exact, then compact_layout()).
  Status add(const MemorySignature& other);

  // The JSON object of a signature (the counts, plus the derived CDF and
  // alpha values for readers; from_json ignores the derived fields).
  Json to_json() const;
  // Parses the object written by to_json; errors name the field, prefixed by `where`.
  static Result<MemorySignature> from_json(const Json& j, const SignatureShape& shape, const std::string& where);

  friend bool operator==(const MemorySignature&, const MemorySignature&) = default;
};

// A signature as probabilities, ready for synthesis: the weighted mixture of
// region signatures (each region's counts normalised by its references,
// scaled by its weight), or a single signature.
struct SignatureModel {
  SignatureShape shape;
  double cold = 0;                    // probability of a first reference
  std::vector<double> reuse;          // probability of each histogram bin
  std::vector<double> alpha;          // P(same edge), indexed like MemorySignature::alpha_index
  std::vector<double> first_left;     // levels: P(first visit goes left)
  // line_widths() x kAlphaBins rows of shape.line_row(): P(line distance column |
  // width, alpha bin of the block reuse); a row never observed is all zero.
  std::vector<double> line_reuse;
  // kAlphaBins rows of shape.fill_row(): P(the reused block had k units used |
  // alpha bin); a row never observed is all zero. Empty when any region's
  // signature has no counts (then synthesis takes the block at the drawn depth).
  std::vector<double> block_fill;
  // Layout distances: (distance, weight) exact, then layout_bins() bin weights;
  // both empty without layout (or when no distance was observed).
  std::vector<std::pair<std::uint64_t, double>> layout_exact;
  std::vector<double> layout_bins;
  std::vector<double> layout_streams;  // kLayoutStreams weights: after the j-th most recent new block
  std::array<double, kKindCount> kinds{};
  std::array<double, kSizeSlots> sizes{};  // all zero: every access of the word size
};

struct WeightedSignature {
  double weight = 1;
  const MemorySignature* signature = nullptr;
};
// Combines regions by weight (weights need not sum to one); errors when the
// shapes differ or no region has weight and references.
Result<SignatureModel> combine(const std::vector<WeightedSignature>& regions);

}  // namespace hmtt::chameleon
