#include "hmtt/analysis/block_map.h"

#include <bit>

namespace hmtt::analysis {

BlockMap::BlockMap(std::size_t initial_capacity) {
  std::size_t cap = std::bit_ceil(initial_capacity < 16 ? std::size_t{16} : initial_capacity);
  slots_.resize(cap);
  mask_ = cap - 1;
}

std::uint64_t& BlockMap::upsert(std::uint64_t key) {
  if ((size_ + 1) * 4 > slots_.size() * 3) grow();
  std::size_t i = slot_of(key);
  for (;;) {
    Slot& s = slots_[i];
    if (s.value == 0) {
      s.key = key;
      ++size_;
      return s.value;
    }
    if (s.key == key) return s.value;
    i = (i + 1) & mask_;
  }
}

void BlockMap::grow() {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(old.size() * 2, Slot{});
  mask_ = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.value == 0) continue;
    std::size_t i = slot_of(s.key);
    while (slots_[i].value != 0) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

}  // namespace hmtt::analysis
