// The PSnAP profile as JSON (docs/psnap.md, docs/psnap-profile.schema.json),
// and its validating reader: every error names the field.
#include <algorithm>
#include <string>
#include <unordered_map>

#include "hmtt/psnap/psnap.h"

namespace hmtt::psnap {

using analysis::Json;

namespace {

constexpr std::array<std::string_view, 4> kKindNames = {"read", "write", "ifetch", "modify"};

}  // namespace

Json to_json(const StreamProfile& p) {
  Json j;
  j["references"] = p.references;
  j["window"] = p.knobs.window;
  j["region_distance"] = p.knobs.region_distance;
  j["pattern_buffer"] = p.knobs.pattern_buffer;
  j["returns"] = std::string(return_scope_name(p.knobs.returns));
  j["loop_count"] = p.loops.size();
  j["region_count"] = p.region_count();
  j["complexity"] = p.complexity();
  Json order = Json::array();
  for (const auto& [loop, n] : p.order) order.push_back(Json::array({loop, n}));
  j["order"] = std::move(order);
  Json loops = Json::array();
  for (const auto& l : p.loops) {
    Json lj;
    if (l.code_region != analysis::kOtherRegionId) lj["code_region"] = l.code_region;
    lj["instances"] = l.instances;
    lj["references"] = l.references;
    Json regions = Json::array();
    for (const auto& r : l.regions) {
      Json rj;
      rj["base"] = r.base;
      rj["last"] = r.last;
      rj["first"] = r.first;
      rj["count"] = r.count;
      rj["runs"] = r.runs;
      rj["working_set"] = r.working_set;
      if (r.code) rj["code"] = true;
      if (r.merged) rj["merged"] = r.merged;
      rj["instances_seen"] = Json::array({r.first_instance, r.last_instance});
      if (r.growth.size() == RegionProfile::kGrowthPoints) rj["growth"] = r.growth;  // as the binary writer
      if (r.activity.size() == RegionProfile::kActivityPoints) rj["activity"] = r.activity;
      if (!r.footprint.empty()) {
        Json fp = Json::array();
        for (std::size_t i = 0; i < r.footprint.size(); ++i) {
          const auto& [block, lines] = r.footprint[i];
          Json e = Json::array({block << RegionProfile::kFootprintBlockShift, lines});
          if (r.footprint_open.size() == r.footprint.size()) e.push_back(r.footprint_open[i]);
          fp.push_back(std::move(e));
        }
        rj["footprint"] = std::move(fp);
      }
      Json kinds = Json::object();
      for (std::size_t k = 0; k < 4; ++k)
        if (r.kinds[k]) kinds[std::string(kKindNames[k])] = r.kinds[k];
      rj["kinds"] = std::move(kinds);
      Json sizes = Json::array();
      for (const auto& [s, c] : r.sizes) sizes.push_back(Json::array({s, c}));
      rj["sizes"] = std::move(sizes);
      Json strides = Json::object();
      for (int b = 0; b < kStrideBins; ++b) {
        const auto bi = static_cast<std::size_t>(b);
        if (!r.strides[bi]) continue;
        if (b == kRandomBin) strides[std::string(stride_bin_label(b))] = Json::array({r.strides[bi]});
        else strides[std::string(stride_bin_label(b))] = Json::array({r.strides[bi], r.exact[bi]});
      }
      rj["strides"] = std::move(strides);
      if (!r.sweeps.empty()) {
        Json sweeps = Json::array();
        for (const auto& w : r.sweeps) sweeps.push_back(Json::array({w.count, w.stride, w.runs, w.long_runs, w.alternations}));
        rj["sweeps"] = std::move(sweeps);
      }
      std::size_t used = r.jump_reuse.size();
      while (used > 0 && r.jump_reuse[used - 1] == 0) --used;
      if (used) rj["jump_reuse"] = std::vector<std::uint64_t>(r.jump_reuse.begin(), r.jump_reuse.begin() + static_cast<std::ptrdiff_t>(used));
      if (r.moves) {
        rj["moves"] = r.moves;
        used = r.move_reuse.size();
        while (used > 0 && r.move_reuse[used - 1] == 0) --used;
        if (used) rj["move_reuse"] = std::vector<std::uint64_t>(r.move_reuse.begin(), r.move_reuse.begin() + static_cast<std::ptrdiff_t>(used));
      }
      Json graph = Json::object();  // from bin -> {to bin: count}
      for (int a = 0; a < kStrideBins; ++a) {
        Json row = Json::object();
        for (int b = 0; b < kStrideBins; ++b) {
          const auto c = r.transitions[static_cast<std::size_t>(a * kStrideBins + b)];
          if (c) row[std::string(stride_bin_label(b))] = c;
        }
        if (!row.empty()) graph[std::string(stride_bin_label(a))] = std::move(row);
      }
      rj["stride_order"] = std::move(graph);
      regions.push_back(std::move(rj));
    }
    lj["regions"] = std::move(regions);
    Json pattern = Json::array();  // a run of one is the bare region index
    for (const auto& [r, n] : l.pattern) pattern.push_back(n == 1 ? Json(r) : Json::array({r, n}));
    lj["pattern"] = std::move(pattern);
    loops.push_back(std::move(lj));
  }
  j["loops"] = std::move(loops);
  return j;
}

namespace {

Error field_error(const std::string& path, const std::string& what) { return make_error("profile: " + path + ": " + what); }

Result<std::uint64_t> u64_field(const Json& o, const char* key, const std::string& path) {
  const auto it = o.find(key);
  if (it == o.end()) return field_error(path + "." + key, "missing");
  if (!it->is_number_unsigned()) return field_error(path + "." + key, "expected an unsigned integer");
  return it->get<std::uint64_t>();
}

Result<std::uint64_t> u64_value(const Json& v, const std::string& path) {
  if (!v.is_number_unsigned()) return field_error(path, "expected an unsigned integer");
  return v.get<std::uint64_t>();
}

Result<const Json*> array_field(const Json& o, const char* key, const std::string& path) {
  const auto it = o.find(key);
  if (it == o.end()) return field_error(path + "." + key, "missing");
  if (!it->is_array()) return field_error(path + "." + key, "expected an array");
  return &*it;
}

// A curve of 8 shares of a region's lifetime (growth, activity): non-decreasing, at most 65536.
Result<std::vector<std::uint32_t>> lifetime_curve(const Json& c, const std::string& path) {
  static_assert(RegionProfile::kGrowthPoints == RegionProfile::kActivityPoints);
  if (!c.is_array() || c.size() != RegionProfile::kGrowthPoints)
    return field_error(path, "expected 8 shares of the lifetime (0 .. 65536)");
  std::vector<std::uint32_t> curve;
  std::uint64_t previous = 0;
  for (std::size_t j = 0; j < RegionProfile::kGrowthPoints; ++j) {
    const std::string f = path + "[" + std::to_string(j) + "]";
    auto v = u64_value(c[j], f);
    if (!v) return v.error();
    if (*v > RegionProfile::kGrowthScale) return field_error(f, "past the lifetime's end (65536)");
    if (*v < previous) return field_error(f, "below the one before");
    previous = *v;
    curve.push_back(static_cast<std::uint32_t>(*v));
  }
  return curve;
}

Result<RegionProfile> region_from_json(const Json& rj, const std::string& path) {
  if (!rj.is_object()) return field_error(path, "expected an object");
  RegionProfile r;
  auto base = u64_field(rj, "base", path);
  if (!base) return base.error();
  auto last = u64_field(rj, "last", path);
  if (!last) return last.error();
  auto first = u64_field(rj, "first", path);
  if (!first) return first.error();
  auto count = u64_field(rj, "count", path);
  if (!count) return count.error();
  auto ws = u64_field(rj, "working_set", path);
  if (!ws) return ws.error();
  r.base = *base;
  r.last = *last;
  r.first = *first;
  r.count = *count;
  if (const auto it = rj.find("runs"); it != rj.end()) {
    auto runs = u64_value(*it, path + ".runs");
    if (!runs) return runs.error();
    if (*runs > r.count) return field_error(path + ".runs", "more runs than accesses");
    r.runs = *runs;
  }
  r.working_set = *ws;
  if (r.base > r.last) return field_error(path + ".last", "below base");
  if (r.first < r.base || r.first > r.last) return field_error(path + ".first", "outside [base, last]");
  r.last_instance = UINT64_MAX;  // absent (profiles before issue 10): every instance of the loop
  if (const auto it = rj.find("instances_seen"); it != rj.end()) {
    const std::string ip = path + ".instances_seen";
    if (!it->is_array() || it->size() != 2) return field_error(ip, "expected [first, last]");
    auto f = u64_value((*it)[0], ip + "[0]");
    if (!f) return f.error();
    auto l = u64_value((*it)[1], ip + "[1]");
    if (!l) return l.error();
    if (*l < *f) return field_error(ip + "[1]", "below the first instance");
    r.first_instance = *f;
    r.last_instance = *l;
  }
  if (const auto it = rj.find("growth"); it != rj.end()) {
    auto g = lifetime_curve(*it, path + ".growth");
    if (!g) return g.error();
    r.growth = std::move(*g);
  }
  if (const auto it = rj.find("activity"); it != rj.end()) {
    if (r.last_instance == r.first_instance) return field_error(path + ".activity", "given for a region of one instance");
    auto a = lifetime_curve(*it, path + ".activity");
    if (!a) return a.error();
    r.activity = std::move(*a);
  }
  if (const auto it = rj.find("footprint"); it != rj.end()) {
    const std::string fp = path + ".footprint";
    if (!it->is_array() || it->empty()) return field_error(fp, "expected [[block address, lines], ...]");
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < it->size(); ++i) {
      const auto& e = (*it)[i];
      const std::string f = fp + "[" + std::to_string(i) + "]";
      if (!e.is_array() || e.size() < 2 || e.size() > 3) return field_error(f, "expected [block address, lines(, open)]");
      auto a = u64_value(e[0], f + "[0]");
      if (!a) return a.error();
      if (*a & ((std::uint64_t{1} << RegionProfile::kFootprintBlockShift) - 1))
        return field_error(f + "[0]", "not a 64 KiB block's address");
      const std::uint64_t block = *a >> RegionProfile::kFootprintBlockShift;
      if (!r.footprint.empty() && block <= r.footprint.back().first) return field_error(f + "[0]", "not above the block before");
      const std::uint64_t room = r.lines_in_block(block);
      if (room == 0) return field_error(f + "[0]", "block outside [base, last]");
      auto n = u64_value(e[1], f + "[1]");
      if (!n) return n.error();
      if (*n == 0 || *n > room) return field_error(f + "[1]", "expected 1 .. " + std::to_string(room) + " lines (the block's in [base, last])");
      sum += *n;
      r.footprint.emplace_back(block, static_cast<std::uint32_t>(*n));
      if (e.size() == 3) {
        auto o = u64_value(e[2], f + "[2]");
        if (!o) return o.error();
        if (*o > RegionProfile::kGrowthScale) return field_error(f + "[2]", "expected 0 .. 65536");
        r.footprint_open.push_back(static_cast<std::uint32_t>(*o));
      }
    }
    if (!r.footprint_open.empty() && r.footprint_open.size() != r.footprint.size())
      return field_error(fp, "an open time on some blocks but not all");
    if (sum != r.working_set)
      return field_error(fp, "lines add up to " + std::to_string(sum) + ", not the working set " + std::to_string(r.working_set));
  }
  if (const auto it = rj.find("code"); it != rj.end()) {
    if (!it->is_boolean()) return field_error(path + ".code", "expected true or false");
    r.code = it->get<bool>();
  }
  if (const auto it = rj.find("merged"); it != rj.end()) {
    auto m = u64_value(*it, path + ".merged");
    if (!m) return m.error();
    r.merged = *m;
  }
  const auto kinds = rj.find("kinds");
  if (kinds == rj.end() || !kinds->is_object()) return field_error(path + ".kinds", "expected an object");
  for (const auto& [k, v] : kinds->items()) {
    std::size_t idx = 4;
    for (std::size_t i = 0; i < 4; ++i)
      if (kKindNames[i] == k) idx = i;
    if (idx == 4) return field_error(path + ".kinds." + k, "unknown kind (read, write, ifetch, modify)");
    auto c = u64_value(v, path + ".kinds." + k);
    if (!c) return c.error();
    r.kinds[idx] = *c;
  }
  auto sizes = array_field(rj, "sizes", path);
  if (!sizes) return sizes.error();
  for (std::size_t i = 0; i < (*sizes)->size(); ++i) {
    const auto& e = (**sizes)[i];
    const std::string ep = path + ".sizes[" + std::to_string(i) + "]";
    if (!e.is_array() || e.size() != 2) return field_error(ep, "expected [size, count]");
    auto s = u64_value(e[0], ep + "[0]");
    if (!s) return s.error();
    if (*s > 4096) return field_error(ep + "[0]", "access size above 4096 bytes");
    auto c = u64_value(e[1], ep + "[1]");
    if (!c) return c.error();
    r.sizes.emplace_back(static_cast<std::uint32_t>(*s), *c);
  }
  const auto strides = rj.find("strides");
  if (strides == rj.end() || !strides->is_object()) return field_error(path + ".strides", "expected an object");
  for (const auto& [label, v] : strides->items()) {
    const std::string sp = path + ".strides." + label;
    const int b = stride_bin_of_label(label);
    if (b < 0) return field_error(sp, "unknown stride bin (0, +1 .. +256, -1 .. -256, random)");
    const auto bi = static_cast<std::size_t>(b);
    if (!v.is_array() || v.empty() || v.size() > 2) return field_error(sp, "expected [count] or [count, stride]");
    // The random bin has no exact stride: [count] only (a second element would be ignored).
    if (b == kRandomBin && v.size() != 1) return field_error(sp, "expected [count] (the random bin has no stride)");
    auto c = u64_value(v[0], sp + "[0]");
    if (!c) return c.error();
    r.strides[bi] = *c;
    if (b != kRandomBin) {
      if (v.size() != 2 || !v[1].is_number_integer()) return field_error(sp + "[1]", "expected the exact stride (an integer)");
      const auto s = v[1].get<std::int64_t>();
      if (stride_bin(s) != b) return field_error(sp + "[1]", "stride " + std::to_string(s) + " is not in bin " + label);
      r.exact[bi] = s;
    }
  }
  for (int b = 0; b < kRandomBin; ++b)  // bins absent from the profile keep their nominal stride
    if (!r.strides[static_cast<std::size_t>(b)])
      r.exact[static_cast<std::size_t>(b)] = b == 0 ? 0 : b < 10 ? (std::int64_t{1} << (b - 1)) : -(std::int64_t{1} << (b - 10));
  if (const auto it = rj.find("moves"); it != rj.end()) {
    auto m = u64_value(*it, path + ".moves");
    if (!m) return m.error();
    r.moves = *m;
  }
  // jump_reuse / move_reuse: at most kJumpBins counts, summing to at most `limit`.
  auto reuse = [&](const char* key, std::array<std::uint64_t, RegionProfile::kJumpBins>& into,
                   std::uint64_t limit, const char* what) -> Status {
    const auto it = rj.find(key);
    if (it == rj.end()) return Status::success();
    const std::string fp = path + "." + key;
    if (!it->is_array() || it->size() > into.size())
      return field_error(fp, "expected an array of at most " + std::to_string(into.size()) + " counts");
    std::uint64_t sum = 0;
    for (std::size_t k = 0; k < it->size(); ++k) {
      auto c = u64_value((*it)[k], fp + "[" + std::to_string(k) + "]");
      if (!c) return c.error();
      into[k] = *c;
      if (*c > limit || sum > limit - *c) return field_error(fp, std::string("more returns than ") + what);
      sum += *c;
    }
    return Status::success();
  };
  // One sweep: [count, stride, runs, long runs], or [count, stride] as "sweep" was written before
  // runs were kept (each stride a run of its own).
  auto sweep = [&](const Json& j, const std::string& wp, bool with_runs) -> Status {
    if (!j.is_array() || j.size() != (with_runs ? 5u : 2u) || !j[1].is_number_integer())
      return field_error(wp, with_runs ? "expected [count, stride, runs, long runs, alternations] (the stride an integer)"
                                       : "expected [count, stride] (the stride an integer)");
    auto c = u64_value(j[0], wp + "[0]");
    if (!c) return c.error();
    if (*c == 0 || *c > r.strides[kRandomBin] - r.swept())
      return field_error(wp + "[0]", "not 1 .. the random strides' count (less the sweeps before)");
    if (j[1].is_number_unsigned() && j[1].get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
      return field_error(wp + "[1]", "stride " + j[1].dump() + " is beyond a 64-bit signed stride");
    const auto st = j[1].get<std::int64_t>();
    if (stride_bin(st) != kRandomBin) return field_error(wp + "[1]", "stride " + std::to_string(st) + " is not a random one (|stride| > 256)");
    for (const auto& before : r.sweeps)
      if (before.stride == st) return field_error(wp + "[1]", "stride " + std::to_string(st) + " is an earlier sweep's");
    Sweep w{st, *c, *c, 0};
    if (with_runs) {
      auto runs = u64_value(j[2], wp + "[2]");
      if (!runs) return runs.error();
      if (*runs == 0 || *runs > *c) return field_error(wp + "[2]", "not 1 .. the sweep's count");
      auto long_runs = u64_value(j[3], wp + "[3]");
      if (!long_runs) return long_runs.error();
      if (*long_runs > std::min(*runs, *c - *runs))
        return field_error(wp + "[3]", "more long runs than the runs, or than the strides that repeat the sweep");
      w.runs = *runs;
      w.long_runs = *long_runs;
      auto alternations = u64_value(j[4], wp + "[4]");
      if (!alternations) return alternations.error();
      if (*alternations > *runs) return field_error(wp + "[4]", "more alternations than the runs");
      w.alternations = *alternations;
    }
    r.sweeps.push_back(w);
    return Status::success();
  };
  const auto one = rj.find("sweep");
  const auto many = rj.find("sweeps");
  if (one != rj.end() && many != rj.end()) return field_error(path + ".sweep", "given with sweeps: one or the other");
  if (one != rj.end()) HMTT_TRY(sweep(*one, path + ".sweep", false));
  if (many != rj.end()) {
    if (!many->is_array() || many->empty() || many->size() > kMaxSweeps)
      return field_error(path + ".sweeps", "expected 1 .. " + std::to_string(kMaxSweeps) + " sweeps");
    for (std::size_t i = 0; i < many->size(); ++i)
      HMTT_TRY(sweep((*many)[i], path + ".sweeps[" + std::to_string(i) + "]", true));
  }
  HMTT_TRY(reuse("jump_reuse", r.jump_reuse, r.strides[kRandomBin] - r.swept(), "random strides"));
  HMTT_TRY(reuse("move_reuse", r.move_reuse, r.moves, "moves"));
  const auto graph = rj.find("stride_order");
  if (graph == rj.end() || !graph->is_object())
    return field_error(path + ".stride_order", "expected an object {from bin: {to bin: count}}");
  for (const auto& [from, row] : graph->items()) {
    const std::string rp = path + ".stride_order." + from;
    const int a = stride_bin_of_label(from);
    if (a < 0) return field_error(rp, "unknown stride bin");
    if (!row.is_object()) return field_error(rp, "expected an object {to bin: count}");
    for (const auto& [to, edge] : row.items()) {
      const int b = stride_bin_of_label(to);
      if (b < 0) return field_error(rp + "." + to, "unknown stride bin");
      auto c = u64_value(edge, rp + "." + to);
      if (!c) return c.error();
      r.transitions[static_cast<std::size_t>(a * kStrideBins + b)] = *c;
    }
  }
  return r;
}

}  // namespace

Result<StreamProfile> from_json(const Json& j) {
  StreamProfile p;
  auto refs = u64_field(j, "references", "");
  if (!refs) return refs.error();
  p.references = *refs;
  auto window = u64_field(j, "window", "");
  if (!window) return window.error();
  if (*window == 0) return field_error(".window", "must be at least 1");
  p.knobs.window = *window;
  if (j.contains("region_distance")) {
    auto d = u64_field(j, "region_distance", "");
    if (!d) return d.error();
    p.knobs.region_distance = *d;
  }
  if (j.contains("pattern_buffer")) {
    auto b = u64_field(j, "pattern_buffer", "");
    if (!b) return b.error();
    p.knobs.pattern_buffer = *b;
  }
  // Profiles from before the return scope have none: their returns were counted within a window.
  p.knobs.returns = ReturnScope::Window;
  if (j.contains("returns")) {
    const Json& r = j["returns"];
    if (!r.is_string() || !parse_return_scope(r.get<std::string>(), p.knobs.returns))
      return field_error(".returns", "expected \"loop\" or \"window\"");
  }
  auto loops = array_field(j, "loops", "");
  if (!loops) return loops.error();
  std::unordered_map<std::uint32_t, std::size_t> loop_of_region;  // code region -> its loop
  for (std::size_t li = 0; li < (*loops)->size(); ++li) {
    const auto& lj = (**loops)[li];
    const std::string lp = ".loops[" + std::to_string(li) + "]";
    if (!lj.is_object()) return field_error(lp, "expected an object");
    LoopProfile l;
    if (lj.contains("code_region")) {
      auto id = u64_field(lj, "code_region", lp);
      if (!id) return id.error();
      if (*id >= analysis::kOtherRegionId)
        return field_error(lp + ".code_region", std::to_string(*id) + " is above " +
                                                     std::to_string(analysis::kOtherRegionId - 1) +
                                                     " (region ids are 32-bit; the top one means none)");
      l.code_region = static_cast<std::uint32_t>(*id);
      if (const auto [at, fresh] = loop_of_region.try_emplace(l.code_region, li); !fresh)
        return field_error(lp + ".code_region",
                           std::to_string(*id) + " is also loops[" + std::to_string(at->second) + "]'s");
    }
    auto inst = u64_field(lj, "instances", lp);
    if (!inst) return inst.error();
    auto lrefs = u64_field(lj, "references", lp);
    if (!lrefs) return lrefs.error();
    if (*lrefs == 0) return field_error(lp + ".references", "must be at least 1");
    l.instances = *inst;
    l.references = *lrefs;
    auto regions = array_field(lj, "regions", lp);
    if (!regions) return regions.error();
    if ((*regions)->empty()) return field_error(lp + ".regions", "a loop needs at least one region");
    for (std::size_t ri = 0; ri < (*regions)->size(); ++ri) {
      auto r = region_from_json((**regions)[ri], lp + ".regions[" + std::to_string(ri) + "]");
      if (!r) return r.error();
      l.regions.push_back(std::move(*r));
    }
    auto pattern = array_field(lj, "pattern", lp);
    if (!pattern) return pattern.error();
    if ((*pattern)->empty()) return field_error(lp + ".pattern", "the pattern buffer is empty");
    for (std::size_t i = 0; i < (*pattern)->size(); ++i) {
      const auto& e = (**pattern)[i];
      const std::string ep = lp + ".pattern[" + std::to_string(i) + "]";
      Result<std::uint64_t> id = std::uint64_t{0};
      std::uint64_t run = 1;
      if (e.is_array()) {
        if (e.size() != 2) return field_error(ep, "expected a region index or [region, run]");
        id = u64_value(e[0], ep + "[0]");
        auto n = u64_value(e[1], ep + "[1]");
        if (!n) return n.error();
        if (*n == 0) return field_error(ep + "[1]", "a run is at least 1");
        run = *n;
      } else {
        id = u64_value(e, ep);
      }
      if (!id) return id.error();
      if (*id >= l.regions.size())
        return field_error(ep, "region " + std::to_string(*id) + " does not exist (the loop has " +
                                   std::to_string(l.regions.size()) + ")");
      l.pattern.emplace_back(static_cast<std::uint32_t>(*id), run);
    }
    p.loops.push_back(std::move(l));
  }
  auto order = array_field(j, "order", "");
  if (!order) return order.error();
  for (std::size_t i = 0; i < (*order)->size(); ++i) {
    const auto& e = (**order)[i];
    const std::string ep = ".order[" + std::to_string(i) + "]";
    if (!e.is_array() || e.size() != 2) return field_error(ep, "expected [loop, windows]");
    auto loop = u64_value(e[0], ep + "[0]");
    if (!loop) return loop.error();
    if (*loop >= p.loops.size()) return field_error(ep + "[0]", "loop " + std::to_string(*loop) + " does not exist");
    auto n = u64_value(e[1], ep + "[1]");
    if (!n) return n.error();
    if (*n == 0) return field_error(ep + "[1]", "must be at least 1");
    p.order.emplace_back(static_cast<std::uint32_t>(*loop), *n);
  }
  if (p.references > 0 && p.order.empty()) return field_error(".order", "empty, but the profile has references");
  return p;
}

}  // namespace hmtt::psnap
