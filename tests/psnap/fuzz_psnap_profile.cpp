// Fuzz harness for the binary PSnAP profile reader and the replay behind it.
// The first input byte picks the entry point: even = the whole file
// (header, LZMA2 or deflate, CRC, body), odd = the body decoder alone (a CRC would
// otherwise stop almost every mutation before the body) of version 2, of
// version 1 when bit 1 is set too, of version 3 when bit 2 is set (and not
// bit 1), of version 4 when bit 3 is set (and neither), or of version 9 (the current one) when
// bit 5 is set, 5 when bit 6 is set too, 7 when bit 7 is set and bit 6 is not, 8 when both are (bit
// 5 before all the others); column-arranged when bit 4 is set. Any input must give
// a stream of at most the asked length or an error naming the byte, never a
// crash, hang or sanitizer report.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "hmtt/psnap/psnap.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto layout = data[0] & 16 ? hmtt::psnap::BodyLayout::Columns : hmtt::psnap::BodyLayout::Interleaved;
  auto p = data[0] % 2 == 0 ? hmtt::psnap::from_binary(rest)
                            : hmtt::psnap::decode_body(rest,
                                                       data[0] & 32  ? (data[0] & 64 ? (data[0] & 128 ? 8 : 5) : data[0] & 128 ? 7 : 9)
                                                       : data[0] & 2 ? 1
                                                       : data[0] & 4 ? 3
                                                       : data[0] & 8 ? 4
                                                                     : 2,
                                                       layout);
  if (!p.ok()) {
    if (p.error().message.rfind("profile: ", 0) != 0) __builtin_trap();  // errors name the place
    return 0;
  }
  auto syn = hmtt::psnap::make_replay(std::move(*p), 4096, 1);
  std::vector<hmtt::Reference> batch(1024);
  std::size_t total = 0;
  for (;;) {
    auto n = syn->read(batch);
    if (!n.ok() || *n == 0) break;
    total += *n;
    if (total > 4096) __builtin_trap();  // more than asked for
  }
  return 0;
}
