// ReferenceBuffer: room for n references, left uninitialised, on transparent huge pages when large.
// Shared by the writer's chunk buffers and the reader's read-ahead slots.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

#include "hmtt/reference.h"

namespace hmtt::store::detail {

// The owner fills what it uses before reading it: nothing is zero-filled. (Zero-filling four 3 MB
// buffers was most of the writer's create() CPU, and a tenth of a 20 M-reference read's.) Reference
// is an aggregate, an implicit-lifetime type, so copying or decoding into the allocation creates
// its objects.
//
// A buffer of 1 MiB or more (a default chunk's is 3 MB) is whole 2 MiB pages, advised for
// transparent huge pages (a no-op where THP is off): filling it and reading it back then fault and
// miss the TLB once per 2 MiB, not once per 4 KiB. store_bench's mix wrote 4-12 % more references
// per second (2026-11-30); the read's page faults fell from 5,467 to about 1,400 for 20 M references
// (2026-12-01; docs/benchmarks.md). Smaller buffers keep plain malloc rather than round up to 2 MiB.
class ReferenceBuffer {
 public:
  ReferenceBuffer() = default;
  explicit ReferenceBuffer(std::size_t n) : n_(n) {
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    const std::size_t want = std::max<std::size_t>(1, n * sizeof(Reference));
    if (want < kHuge / 2) {
      p_.reset(static_cast<Reference*>(std::malloc(want)));
    } else {
      const std::size_t bytes = (want + kHuge - 1) / kHuge * kHuge;
      p_.reset(static_cast<Reference*>(std::aligned_alloc(kHuge, bytes)));
#ifdef MADV_HUGEPAGE
      if (p_) (void)::madvise(p_.get(), bytes, MADV_HUGEPAGE);
#endif
    }
    if (!p_) throw std::bad_alloc();
  }
  Reference* data() { return p_.get(); }
  const Reference* data() const { return p_.get(); }
  Reference& operator[](std::size_t i) { return p_.get()[i]; }
  // References it has room for.
  std::size_t capacity() const { return n_; }

 private:
  struct Free {
    void operator()(Reference* p) const { std::free(p); }
  };
  std::unique_ptr<Reference, Free> p_;
  std::size_t n_ = 0;
};

}  // namespace hmtt::store::detail
