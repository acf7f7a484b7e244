// Fuzz harness for the store reader: the input bytes become a file, which is
// opened and read whole (summary, side tables, plane census, every reference). Any error is
// fine; a crash, sanitizer report or hang is not. Work per input is bounded.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "hmtt/store/store.h"

namespace {

const std::string& scratch_path() {
  static const std::string path = [] {
    std::string dir = "/tmp/hmtt-fuzz-store-" + std::to_string(getpid());
    return dir + ".hmtt";
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = scratch_path();
  for (const char* suffix : {"-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  if (size > 0) std::fwrite(data, 1, size, f);
  std::fclose(f);
  (void)hmtt::store::looks_like_store(path);
  auto reader = hmtt::store::StoreReader::open(path);
  if (reader.ok()) {
    const auto& r = **reader;
    (void)r.summary();
    (void)r.events();
    (void)r.links();
    (void)r.page_map();
    (void)r.dma();
    (void)r.processes();
    (void)r.reports();
    (void)r.profiles();
    (void)r.meta("tick_ps");
    (void)r.planes();
    hmtt::store::Filter filter;
    filter.kind_mask = 0x5;
    for (const auto& fl : {hmtt::store::Filter{}, filter}) {
      auto src = r.references(fl);
      if (!src.ok()) continue;
      std::vector<hmtt::Reference> buf(4096);
      std::uint64_t total = 0;
      while (total < (std::uint64_t{1} << 22)) {
        auto n = (*src)->read(buf);
        if (!n.ok() || *n == 0) break;
        total += *n;
      }
    }
  }
  std::remove(path.c_str());
  for (const char* suffix : {"-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
  return 0;
}
