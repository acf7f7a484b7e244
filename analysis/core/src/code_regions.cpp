// Code regions from region map files and from a store's I-Code events.
#include "hmtt/analysis/code_regions.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "hmtt/store/store.h"

namespace hmtt::analysis {

namespace {

std::optional<std::uint64_t> parse_number(const std::string& s) {
  std::uint64_t v = 0;
  int base = 10;
  std::size_t skip = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    skip = 2;
  }
  const char* b = s.data() + skip;
  const char* e = s.data() + s.size();
  auto [end, ec] = std::from_chars(b, e, v, base);
  if (b == e || ec != std::errc() || end != e) return std::nullopt;
  return v;
}

}  // namespace

Result<std::vector<CodeRegion>> parse_regions(const std::string& text, const std::string& name) {
  std::vector<CodeRegion> out;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string where = name + ":" + std::to_string(line_no) + ": ";
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::vector<std::string> tok;
    for (std::string w; words >> w;) tok.push_back(w);
    if (tok.empty()) continue;
    if (tok[0] == "range") continue;  // METRIC address ranges: not regions
    if (tok[0] != "region") return make_error(where + "expected 'region ID NAME T0 T1', got '" + tok[0] + "'");
    if (tok.size() != 5) return make_error(where + "expected 'region ID NAME T0 T1'");
    const auto id = parse_number(tok[1]);
    const auto t0 = parse_number(tok[3]);
    const auto t1 = parse_number(tok[4]);
    if (!id || *id > UINT32_MAX) return make_error(where + "bad region ID '" + tok[1] + "'");
    // The profile gives references outside every region the id kOtherRegionId: a map
    // region with that id would be indistinguishable from "other" in the profile.
    if (*id == kOtherRegionId)
      return make_error(where + "region id " + std::to_string(kOtherRegionId) +
                        " is reserved for references outside every region");
    if (!t0) return make_error(where + "bad T0 '" + tok[3] + "'");
    if (!t1) return make_error(where + "bad T1 '" + tok[4] + "'");
    if (*t1 <= *t0) return make_error(where + "T1 must be greater than T0");
    out.push_back({static_cast<std::uint32_t>(*id), tok[2], *t0, *t1});
  }
  std::sort(out.begin(), out.end(), [](const CodeRegion& a, const CodeRegion& b) { return a.t0 < b.t0; });
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i].t0 < out[i - 1].t1)
      return make_error(name + ": regions '" + out[i - 1].name + "' and '" + out[i].name + "' overlap");
  return out;
}

std::vector<CodeRegion> regions_from_icode_events(std::vector<std::pair<std::uint64_t, std::uint64_t>> events) {
  constexpr std::uint64_t kFirstUserIndex = 64, kProgramEvents = 4096;
  // Event ids are < kProgramEvents (others are dropped below), so none is kOtherRegionId.
  static_assert(kProgramEvents - 1 < kOtherRegionId);
  std::erase_if(events, [&](const auto& e) {
    return e.second < kFirstUserIndex || e.second >= kFirstUserIndex + kProgramEvents;
  });
  std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<CodeRegion> out;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const std::uint64_t t1 = i + 1 < events.size() ? events[i + 1].first : UINT64_MAX;
    if (t1 <= events[i].first) continue;  // two events at one time: the later one wins
    const auto k = static_cast<std::uint32_t>(events[i].second - kFirstUserIndex);
    out.push_back({k, "event" + std::to_string(k), events[i].first, t1});
  }
  return out;
}

bool is_store_file(const std::string& path) {
  static constexpr char kSqliteMagic[] = "SQLite format 3";  // a store is one SQLite file (16 bytes with the NUL)
  char head[sizeof kSqliteMagic] = {};
  std::ifstream f(path, std::ios::binary);
  return f.read(head, sizeof head) && std::memcmp(head, kSqliteMagic, sizeof head) == 0;
}

Result<std::vector<CodeRegion>> icode_regions(const std::string& store_path) {
  auto store = store::StoreReader::open(store_path);
  if (!store) return store.error();
  auto events = (*store)->events();
  if (!events) return events.error();
  std::vector<std::pair<std::uint64_t, std::uint64_t>> icodes;
  for (const auto& e : *events)
    if (e.type == store::EventType::ConfigSpace) icodes.emplace_back(e.time, e.value);
  return regions_from_icode_events(std::move(icodes));
}

Result<std::vector<CodeRegion>> load_regions(const std::string& path, const std::string& knob) {
  const std::string where = "parameter '" + knob + "': ";
  if (is_store_file(path)) {
    auto regions = icode_regions(path);
    if (!regions) return make_error(where + regions.error().message);
    if (regions->empty()) return make_error(where + path + ": the store has no program I-Code events");
    return regions;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return make_error(where + path + ": is a directory");
  std::ifstream f(path, std::ios::binary);
  if (!f) return make_error(where + path + ": cannot open");
  std::ostringstream text;
  text << f.rdbuf();
  auto regions = parse_regions(text.str(), path);
  if (regions && regions->empty())
    return make_error(where + path + ": no 'region ID NAME T0 T1' lines (and not an hmtt store)");
  return regions;
}

std::size_t RegionCursor::at(const std::vector<CodeRegion>& r, std::uint64_t time) {
  // References arrive in time order: the last region, then its successor, then a search.
  for (std::size_t i = hint_; i < r.size() && i <= hint_ + 1; ++i)
    if (r[i].t0 <= time && time < r[i].t1) return hint_ = i;
  const auto it = std::upper_bound(r.begin(), r.end(), time, [](std::uint64_t t, const CodeRegion& c) { return t < c.t0; });
  if (it != r.begin() && time < std::prev(it)->t1) return hint_ = static_cast<std::size_t>(std::prev(it) - r.begin());
  return r.size();
}

}  // namespace hmtt::analysis
