// The chunk checksum: XXH64 with seed 0, written from the published algorithm
// (Yann Collet's xxHash, doc/xxhash_spec.md). liblz4 carries an xxhash copy but
// does not export it, so hmtt keeps its own; docs/store.md gives test vectors.
#pragma once

#include <cstdint>
#include <span>

namespace hmtt::store {

std::uint64_t xxh64(std::span<const std::uint8_t> bytes, std::uint64_t seed = 0);

}  // namespace hmtt::store
