// Fuzz target: Ethernet/IPv4/UDP parsing with and without FCS, then the frame decoder.
#include <cstdint>
#include <cstdlib>

#include "hmtt/wire/ethernet.h"
#include "hmtt/wire/frame.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::uint8_t> bytes(data, size);
  for (bool fcs : {false, true}) {
    auto p = hmtt::wire::udp_payload(bytes, fcs);
    if (!p) continue;
    if (p->data() < data || p->data() + p->size() > data + size) std::abort();
    hmtt::wire::DecodedFrame f;
    (void)hmtt::wire::decode_frame(*p, f);
  }
  return 0;
}
