// Scratch vectors for the chunk codec: resize() leaves new elements unwritten, and large
// allocations sit on transparent huge pages.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace hmtt::store {

// `bytes` (at least one) of uninitialised memory, to be released with std::free. An allocation of
// 1 MiB or more is whole 2 MiB pages, advised for transparent huge pages (a no-op where THP is
// off), so filling it faults and misses the TLB once per 2 MiB rather than once per 4 KiB; smaller
// ones keep plain malloc rather than round up to 2 MiB. Throws std::bad_alloc.
inline void* scratch_allocate(std::size_t bytes) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  bytes = std::max<std::size_t>(1, bytes);
  void* p = nullptr;
  if (bytes < kHuge / 2) {
    p = std::malloc(bytes);
  } else {
    const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    p = std::aligned_alloc(kHuge, rounded);
#ifdef MADV_HUGEPAGE
    if (p) (void)::madvise(p, rounded, MADV_HUGEPAGE);
#endif
  }
  if (!p) throw std::bad_alloc();
  return p;
}

// An allocator for buffers that are always written before they are read (the split's columns and
// planes). Its value-less construct() default-initialises, so resize() of a vector of integers
// does not zero-fill what it adds, and it allocates with scratch_allocate. A store writer's two
// workers used to zero-fill and fault in about 10 MB of these (docs/benchmarks.md, stop 43).
template <typename T>
struct ScratchAllocator {
  using value_type = T;
  ScratchAllocator() = default;
  template <typename U>
  ScratchAllocator(const ScratchAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(scratch_allocate(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }

  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <typename U>
  friend bool operator==(const ScratchAllocator&, const ScratchAllocator<U>&) noexcept {
    return true;
  }
};

template <typename T>
using ScratchVector = std::vector<T, ScratchAllocator<T>>;

}  // namespace hmtt::store
