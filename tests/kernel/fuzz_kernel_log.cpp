// Fuzz harness: the kernel-log decoder must return a value or an error for
// any bytes, never crash; a decoded log re-counts to its record total.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "hmtt/driver/kernel_log.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  auto log = hmtt::driver::KernelLogDecoder{}.decode(bytes);
  if (log.ok()) {
    const auto n = log->tags.size() + log->sched.size() + log->syscalls.size() + log->page_map.size() +
                   log->dma.size() + log->user.size();
    if (n != log->records) std::abort();
  }
  return 0;
}
