// The Chameleon stream generator (paper section 2.3): a trace seed from a
// signature, and its expansion to any length.
//
//   1. Block trace. Reuse distances are drawn from the signature's histogram
//      by inverse-transform sampling (uniformly inside a bin slice) and
//      applied to an LRU list of blocks: the block at that depth is
//      referenced and moves to the head. A cold reference, or a distance
//      deeper than the list is long, references a new block. The latter
//      adds cold misses the original did not have, so the generator iterates
//      (the paper's T/R rescaling): after each attempt it scales the
//      probability of every bin by target / achieved and tries again, until
//      the achieved CDF is within `tolerance` of the target at every bin edge
//      or `max_iterations` attempts were made (the best attempt is kept).
//   1b. Layout. Blocks are numbered in first-touch order; without a layout
//      model block b sits at base + b x block. With one (shape.layout_bytes),
//      each new block sits at a distance drawn from the signature's layout
//      from the one before it (modulo the span, in the first free lap), so
//      blocks share cache sets as the original's did.
//   1c. Which block (with options.fill_candidates > 1 and a signature with
//      block_fill). The depths stay those of the chosen attempt, but a reuse
//      takes, among up to fill_candidates blocks drawn inside its depth's
//      histogram bin, one that has used as many fill_bytes units so far as a
//      count drawn from the signature's block_fill row for that depth. This
//      runs alongside step 2, which decides the units each block uses.
//   2. Offsets. Each synthetic block keeps an access-history tree like the
//      tracer's; a reference walks it from the root, taking at each visited
//      node the previous edge with probability alpha(level, reuse bin) and
//      the other edge otherwise, and at an unvisited node going left with
//      the observed first-visit probability. The leaf is the word.
//
// The seed carries the metadata of section 2.3: its working set (blocks),
// the word size, and the minimum number of replications that flush the
// deepest modelled cache (2^16 blocks), so that copies of the seed placed
// at shifted addresses start cold on every modelled cache. Expansion lays
// copies of the seed end to end, copy r at address offset (r mod (m + 1))
// x working set, m = minimum replications: every copy sees the cache state
// the seed was generated for, so hit rates on LRU caches of up to 2^16
// blocks are the seed's whatever the length.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "hmtt/chameleon/signature.h"
#include "hmtt/stream.h"

namespace hmtt::chameleon {

struct GeneratorOptions {
  std::uint64_t seed_length = 1u << 20;  // references in the seed
  std::uint64_t random_seed = 1;
  std::uint32_t max_iterations = 8;
  double tolerance = 0.001;              // max |target - achieved| of the CDF at any bin edge
  std::uint64_t base_address = 0x10000000;
  // Blocks tried per block reuse to follow the signature's line counts (block_fill);
  // 1 = the block at the drawn depth, as the paper does.
  std::uint32_t fill_candidates = 1;
  // Units of this width (bytes; 0 = none) change places inside every block: unit
  // u of block b is written as u XOR m(b), m(b) a pseudo-random mask per block. A
  // XOR maps every aligned group of units onto one, so the reuse distance of every
  // reference is the same at every width from the word to the block; only which
  // cache sets the units fall in changes, evenly instead of piling onto the unit
  // the alpha trees favour (docs/accuracy.md, "Where issue 9 stands (stop 40 ...)").
  std::uint64_t scramble_bytes = 0;
};

// Whether `bytes` is a scramble width for blocks of `shape`: 0, or a power of
// two from the word to half the block.
bool valid_scramble(std::uint64_t bytes, const SignatureShape& shape);

struct TraceSeed {
  SignatureShape shape;
  std::vector<std::uint64_t> addresses;  // byte addresses (base + slot(block) * block_bytes + word' * word_bytes, word' scrambled)
  std::vector<Kind> kinds;
  // Per reference, the access size's slot (size_slot: 2^slot bytes; its address is aligned to
  // that, at most to a block); empty when the signature kept no sizes: the word size.
  std::vector<std::uint8_t> size_slots;
  std::uint64_t base_address = 0;
  std::uint64_t working_set_blocks = 0;  // distinct blocks of the seed
  std::uint64_t min_replications = 0;    // copies that flush 2^16 blocks
  std::uint64_t span_blocks = 0;         // address range the blocks take (= working set without a layout model)
  std::uint32_t iterations = 0;          // attempts the T/R adjustment made
  double cdf_mean_error = 0;             // achieved vs target CDF at the 17 depths (the chosen attempt)
  double cdf_max_error = 0;
  // working set, word size, replications, length, errors.
  analysis::Json metadata() const;
};

Result<TraceSeed> generate_seed(const SignatureModel& model, const GeneratorOptions& options);

// The seed expanded (by shifted replication) or truncated to `length`
// references; time = index, size = the seed's (the word size without recorded sizes).
class SeedExpansion final : public ReferenceSource {
 public:
  SeedExpansion(std::shared_ptr<const TraceSeed> seed, std::uint64_t length);
  Result<std::size_t> read(std::span<Reference> out) override;

 private:
  std::shared_ptr<const TraceSeed> seed_;
  std::uint64_t length_;
  std::uint64_t done_ = 0;
};

}  // namespace hmtt::chameleon
