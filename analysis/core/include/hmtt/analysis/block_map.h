// BlockMap: an open-addressing hash map from a 64-bit block number to a
// non-zero 64-bit value (0 marks an empty slot), with linear probing. The
// per-reference structure of the stack-distance and locality analyses:
// std::unordered_map allocates a node per block and is several times slower.
#pragma once

#include <cstdint>
#include <vector>

namespace hmtt::analysis {

class BlockMap {
 public:
  explicit BlockMap(std::size_t initial_capacity = 1024);

  // Pointer to the value slot of `key`, or nullptr when absent.
  std::uint64_t* find(std::uint64_t key) {
    std::size_t i = slot_of(key);
    for (;;) {
      Slot& s = slots_[i];
      if (s.value == 0) return nullptr;
      if (s.key == key) return &s.value;
      i = (i + 1) & mask_;
    }
  }
  // Slot of `key`, inserted with value 0 when absent (the caller must store a
  // non-zero value before the next insert).
  std::uint64_t& upsert(std::uint64_t key);
  std::size_t size() const { return size_; }
  // Starts loading the slot `key` hashes to (hides memory latency in batch loops).
  void prefetch(std::uint64_t key) const { __builtin_prefetch(&slots_[slot_of(key)]); }
  template <typename F>
  void for_each(F&& f) const {
    for (const Slot& s : slots_)
      if (s.value != 0) f(s.key, s.value);
  }
  // Rewrites every value (used when positions are renumbered); f(key, value) -> new value != 0.
  template <typename F>
  void rewrite(F&& f) {
    for (Slot& s : slots_)
      if (s.value != 0) s.value = f(s.key, s.value);
  }

 private:
  struct Slot {
    std::uint64_t key = 0;
    std::uint64_t value = 0;
  };
  static std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
  }
  std::size_t slot_of(std::uint64_t key) const { return static_cast<std::size_t>(mix(key)) & mask_; }
  void grow();

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace hmtt::analysis
