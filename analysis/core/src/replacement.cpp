#include <bit>
#include <string>

#include "replacement_policies.h"

namespace hmtt::analysis {

Result<std::unique_ptr<ReplacementPolicy>> make_replacement_policy(std::string_view name, std::size_t sets,
                                                                   std::size_t ways, std::uint64_t seed) {
  if (sets == 0 || ways == 0) return make_error("replacement policy needs at least one set and one way");
  if (name == "lru") return make_lru_policy(sets, ways);
  if (name == "fifo") return make_fifo_policy(sets, ways);
  if (name == "random") return make_random_policy(ways, seed);
  if (name == "plru") {
    if (!std::has_single_bit(ways))
      return make_error("plru needs a power-of-two number of ways, got " + std::to_string(ways));
    return make_tree_plru_policy(sets, ways);
  }
  return make_error("unknown replacement policy '" + std::string(name) + "' (lru, fifo, random, plru)");
}

}  // namespace hmtt::analysis
