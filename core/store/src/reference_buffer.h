// ReferenceBuffer: room for n references, left uninitialised, on transparent huge pages when large.
// Shared by the writer's chunk buffers and the reader's read-ahead slots.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

#include "hmtt/reference.h"
#include "hmtt/store/scratch.h"

namespace hmtt::store::detail {

// The owner fills what it uses before reading it: nothing is zero-filled. (Zero-filling four 3 MB
// buffers was most of the writer's create() CPU, and a tenth of a 20 M-reference read's.) Reference
// is an aggregate, an implicit-lifetime type, so copying or decoding into the allocation creates
// its objects.
//
// It allocates with scratch_allocate: a buffer of 1 MiB or more (a default chunk's is 3 MB) is on
// transparent huge pages. store_bench's mix wrote 4-12 % more references per second (2026-11-30);
// `hmtt info --verify` of 20 M references took 2,410 page faults instead of 5,475 and 10-15 % less
// CPU once the read's slots were these too (2026-12-01; docs/benchmarks.md). (A ScratchVector of
// References would not do: default-initialising a Reference runs its member initialisers.)
class ReferenceBuffer {
 public:
  ReferenceBuffer() = default;
  explicit ReferenceBuffer(std::size_t n)
      : p_(static_cast<Reference*>(scratch_allocate(n * sizeof(Reference)))), n_(n) {}
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
