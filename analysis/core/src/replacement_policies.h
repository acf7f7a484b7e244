// Constructors of the replacement policies (one file each) used by the factory.
#pragma once

#include "hmtt/analysis/replacement.h"

namespace hmtt::analysis {
std::unique_ptr<ReplacementPolicy> make_lru_policy(std::size_t sets, std::size_t ways);
std::unique_ptr<ReplacementPolicy> make_fifo_policy(std::size_t sets, std::size_t ways);
std::unique_ptr<ReplacementPolicy> make_random_policy(std::size_t ways, std::uint64_t seed);
std::unique_ptr<ReplacementPolicy> make_tree_plru_policy(std::size_t sets, std::size_t ways);
}  // namespace hmtt::analysis
