// The `regions` knob's sources: a store's I-Code events, or a region map file.
#include <fstream>
#include <sstream>

#include "hmtt/chameleon/tracer.h"
#include "hmtt/store/store.h"

namespace hmtt::chameleon {

Result<std::vector<CodeRegion>> load_regions(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return make_error("parameter 'regions': " + path + ": cannot open");
  std::ostringstream text;
  text << f.rdbuf();
  const std::string bytes = text.str();
  static constexpr char kSqliteMagic[] = "SQLite format 3";  // a store is one SQLite file
  if (bytes.compare(0, sizeof kSqliteMagic, std::string(kSqliteMagic, sizeof kSqliteMagic)) == 0) {
    auto store = store::StoreReader::open(path);
    if (!store) return make_error("parameter 'regions': " + store.error().message);
    auto events = (*store)->events();
    if (!events) return make_error("parameter 'regions': " + events.error().message);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> icodes;
    for (const auto& e : *events)
      if (e.type == store::EventType::ConfigSpace) icodes.emplace_back(e.time, e.value);
    auto regions = regions_from_icode_events(std::move(icodes));
    if (regions.empty()) return make_error("parameter 'regions': " + path + ": the store has no program I-Code events");
    return regions;
  }
  return parse_regions(bytes, path);
}

}  // namespace hmtt::chameleon
