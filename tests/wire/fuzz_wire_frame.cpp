// Fuzz target: the frame decoder must reject or decode any byte string, and a
// frame it accepts must re-decode identically (decode is a function of bytes).
#include <cstdint>
#include <cstdlib>

#include "hmtt/wire/frame.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  hmtt::wire::DecodedFrame a;
  hmtt::wire::DecodedFrame b;
  std::span<const std::uint8_t> bytes(data, size);
  auto sa = hmtt::wire::decode_frame(bytes, a);
  auto sb = hmtt::wire::decode_frame(bytes, b);
  if (sa.ok() != sb.ok()) std::abort();
  if (sa.ok()) {
    if (a.refs != b.refs || a.events != b.events || a.losses != b.losses || a.reports != b.reports) std::abort();
    for (std::size_t i = 1; i < a.refs.size(); ++i)
      if (a.refs[i].time < a.refs[i - 1].time) std::abort();
  } else if (sa.error().message.empty()) {
    std::abort();
  }
  return 0;
}
