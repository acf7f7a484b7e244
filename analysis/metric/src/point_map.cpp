#include "hmtt/metric/point_map.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace hmtt::metric {

namespace {
bool parse_u64(const std::string& s, std::uint64_t& v) {
  if (s.empty() || s[0] == '-' || s[0] == '+') return false;
  errno = 0;
  char* end = nullptr;
  v = std::strtoull(s.c_str(), &end, 0);
  return errno == 0 && end && *end == '\0';
}

std::string kind_label(Kind k) {
  switch (k) {
    case Kind::Read: return "Read";
    case Kind::Write: return "Write";
    case Kind::IFetch: return "IFetch";
    case Kind::Modify: return "Modify";
  }
  return "?";
}
}  // namespace

Status ReferencePointMap::add_range(AddressRange r) {
  if (r.hi <= r.lo) return make_error("range " + r.name + ": HI must be above LO");
  auto it = std::lower_bound(ranges_.begin(), ranges_.end(), r.lo,
                             [](const AddressRange& a, std::uint64_t lo) { return a.lo < lo; });
  if (it != ranges_.end() && it->lo < r.hi) return make_error("range " + r.name + " overlaps range " + it->name);
  if (it != ranges_.begin() && std::prev(it)->hi > r.lo)
    return make_error("range " + r.name + " overlaps range " + std::prev(it)->name);
  ranges_.insert(it, std::move(r));
  return Status::success();
}

Status ReferencePointMap::add_region(EventRegion r) {
  if (r.t1 <= r.t0) return make_error("region " + r.name + ": T1 must be above T0");
  auto it = std::lower_bound(regions_.begin(), regions_.end(), r.t0,
                             [](const EventRegion& a, std::uint64_t t0) { return a.t0 < t0; });
  if (it != regions_.end() && it->t0 < r.t1) return make_error("region " + r.name + " overlaps region " + it->name);
  if (it != regions_.begin() && std::prev(it)->t1 > r.t0)
    return make_error("region " + r.name + " overlaps region " + std::prev(it)->name);
  regions_.insert(it, std::move(r));
  return Status::success();
}

int ReferencePointMap::range_of(std::uint64_t a) const {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), a,
                             [](std::uint64_t x, const AddressRange& r) { return x < r.lo; });
  if (it == ranges_.begin()) return -1;
  --it;
  return a < it->hi ? static_cast<int>(it - ranges_.begin()) : -1;
}

int ReferencePointMap::region_of(std::uint64_t t) const {
  auto it = std::upper_bound(regions_.begin(), regions_.end(), t,
                             [](std::uint64_t x, const EventRegion& r) { return x < r.t0; });
  if (it == regions_.begin()) return -1;
  --it;
  return t < it->t1 ? static_cast<int>(it - regions_.begin()) : -1;
}

Result<ReferencePointMap> ReferencePointMap::parse(const std::string& text, const std::string& name) {
  ReferencePointMap m;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream ls(line);
    std::vector<std::string> f;
    for (std::string w; ls >> w;) f.push_back(w);
    if (f.empty()) continue;
    const std::string where = name + ":" + std::to_string(lineno) + ": ";
    if (f[0] == "range") {
      AddressRange r;
      if (f.size() != 4) return make_error(where + "expected 'range NAME LO HI'");
      r.name = f[1];
      if (!parse_u64(f[2], r.lo)) return make_error(where + "LO '" + f[2] + "' is not a number");
      if (!parse_u64(f[3], r.hi)) return make_error(where + "HI '" + f[3] + "' is not a number");
      auto st = m.add_range(r);
      if (!st) return make_error(where + st.error().message);
    } else if (f[0] == "region") {
      EventRegion r;
      std::uint64_t id = 0;
      if (f.size() != 5) return make_error(where + "expected 'region ID NAME T0 T1'");
      if (!parse_u64(f[1], id) || id > UINT32_MAX) return make_error(where + "ID '" + f[1] + "' is not a 32-bit number");
      r.id = static_cast<std::uint32_t>(id);
      r.name = f[2];
      if (!parse_u64(f[3], r.t0)) return make_error(where + "T0 '" + f[3] + "' is not a number");
      if (!parse_u64(f[4], r.t1)) return make_error(where + "T1 '" + f[4] + "' is not a number");
      auto st = m.add_region(r);
      if (!st) return make_error(where + st.error().message);
    } else {
      return make_error(where + "unknown entry '" + f[0] + "' (expected range or region)");
    }
  }
  return m;
}

Result<ReferencePointMap> ReferencePointMap::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return make_error(path + ": cannot open: " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path);
}

ClassifiedSource::ClassifiedSource(ReferenceSource& source, ReferencePointMap map)
    : source_(source), map_(std::move(map)) {}

Result<std::size_t> ClassifiedSource::read_pointed(std::span<Reference> refs, std::span<std::uint32_t> points) {
  const std::size_t want = std::min(refs.size(), points.size());
  auto n = source_.read(refs.first(want));
  if (!n) return n.error();
  for (std::size_t i = 0; i < *n; ++i) {
    const Reference& r = refs[i];
    const int rg = map_.region_of(r.time);
    const int ra = map_.range_of(r.address);
    const int kd = static_cast<int>(r.kind);
    auto key = std::make_tuple(rg, ra, kd);
    auto it = ids_.find(key);
    if (it == ids_.end()) {
      ReferencePoint p;
      const std::string obj = ra < 0 ? "other" : map_.ranges()[static_cast<std::size_t>(ra)].name;
      p.name = (rg < 0 ? "" : map_.regions()[static_cast<std::size_t>(rg)].name + "/") + obj + "_" + kind_label(r.kind);
      p.source_ref = obj;
      if (rg >= 0) p.file = "region " + std::to_string(map_.regions()[static_cast<std::size_t>(rg)].id);
      it = ids_.emplace(key, static_cast<std::uint32_t>(table_.size())).first;
      table_.push_back(std::move(p));
    }
    points[i] = it->second;
  }
  return *n;
}

}  // namespace hmtt::metric
