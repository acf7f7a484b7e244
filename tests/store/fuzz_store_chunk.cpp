// Fuzz harness for the chunk decoder. The input is a chunk BLOB; it is tried
// as given (checksum almost always wrong) and with its XXH64 trailer
// recomputed, so mutations reach the table and plane checks behind it.
#include <cstdint>
#include <cstring>
#include <vector>

#include "hmtt/store/checksum.h"
#include "hmtt/store/chunk.h"

namespace {

void decode(const std::vector<std::uint8_t>& blob) {
  (void)hmtt::store::chunk_planes(blob);  // `hmtt info --planes`: the same checks, then the plane table
  hmtt::store::ChunkDecoder d;
  if (!d.load(blob).ok()) return;
  std::vector<hmtt::Reference> out(1000);
  std::uint64_t total = 0;
  while (total < (std::uint64_t{1} << 22)) {
    std::size_t n = d.next(out);
    if (n == 0) break;
    total += n;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::uint8_t> blob(data, data + size);
  decode(blob);
  if (size >= 8) {
    std::uint64_t h = hmtt::store::xxh64({blob.data(), size - 8});
    std::memcpy(blob.data() + size - 8, &h, 8);
    decode(blob);
  }
  return 0;
}
