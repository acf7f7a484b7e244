#include "hmtt/analysis/compare.h"

#include <algorithm>
#include <cmath>
#include <iomanip>

#include "hmtt/analysis/cache_sim.h"

namespace hmtt::analysis {

double LevelComparison::abs_error() const { return std::fabs(hit_a - hit_b); }
double LevelComparison::served_error() const { return std::fabs(served_a - served_b); }

AbsoluteError absolute_error(const std::vector<double>& a, const std::vector<double>& b) {
  AbsoluteError e;
  e.points = std::min(a.size(), b.size());
  double sum = 0;
  for (std::size_t i = 0; i < e.points; ++i) {
    const double d = std::fabs(a[i] - b[i]);
    sum += d;
    e.max = std::max(e.max, d);
  }
  e.mean = e.points == 0 ? 0 : sum / static_cast<double>(e.points);
  return e;
}

namespace {

// The share of a hierarchy's references served at level `l` or above.
double served(const HierarchyResult& h, std::size_t l) {
  const std::uint64_t refs = h.levels.front().combined().accesses();
  if (refs == 0) return 0.0;
  return 1.0 - static_cast<double>(h.levels[l].combined().misses()) / static_cast<double>(refs);
}

Result<TraceMeasures> measure(ReferenceSource& src, const CompareOptions& o, const char* which) {
  CacheSimTool cache(CacheSimKnobs{o.hierarchy});
  CacheSurfaceKnobs sk;
  sk.widths = o.widths;
  sk.depths = o.depths;
  CacheSurfaceTool surface(sk);
  LocalitySurfaceTool locality(o.locality);
  ConcentrationTool concentration;
  AnalysisTool* tools[] = {&cache, &surface, &locality, &concentration};
  auto n = run_tools(src, tools, o.run);
  if (!n) return make_error(std::string("trace ") + which + ": " + n.error().message);
  TraceMeasures m;
  m.references = *n;
  m.hierarchies = cache.result();
  m.lru = surface.result();
  m.locality = locality.result();
  m.concentration = concentration.result();
  return m;
}

// The hit ratios of `s` at options' widths x depths, in that order.
Result<std::vector<double>> lru_points(const CacheSurface& s, const CompareOptions& o, const char* which) {
  std::vector<double> v;
  for (std::uint64_t w : o.widths)
    for (std::uint64_t d : o.depths) {
      const double h = s.at(w, d);
      if (h != h)
        return make_error(std::string("trace ") + which + ": cache surface lacks width " + std::to_string(w) +
                          " depth " + std::to_string(d));
      v.push_back(h);
    }
  return v;
}

}  // namespace

Result<ComparisonResult> compare(ReferenceSource& a, ReferenceSource& b, const CompareOptions& options) {
  auto ma = measure(a, options, "A");
  if (!ma) return ma.error();
  auto mb = measure(b, options, "B");
  if (!mb) return mb.error();
  return compare(*ma, *mb, options);
}

Result<ComparisonResult> compare(const TraceMeasures& ma, const TraceMeasures& mb, const CompareOptions& options) {
  ComparisonResult r;
  r.references_a = ma.references;
  r.references_b = mb.references;
  if (ma.hierarchies.size() != mb.hierarchies.size())
    return make_error("the two traces were simulated on different hierarchy sets");
  std::vector<double> ha, hb;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> by_level, served_by_level;
  for (std::size_t h = 0; h < ma.hierarchies.size(); ++h) {
    if (ma.hierarchies[h].levels.size() != mb.hierarchies[h].levels.size())
      return make_error("hierarchy " + ma.hierarchies[h].name + " has different levels in the two runs");
    for (std::size_t l = 0; l < ma.hierarchies[h].levels.size(); ++l) {
      LevelComparison c;
      c.hierarchy = ma.hierarchies[h].name;
      c.level = ma.hierarchies[h].levels[l].name;
      c.hit_a = ma.hierarchies[h].levels[l].combined().hit_ratio();
      c.hit_b = mb.hierarchies[h].levels[l].combined().hit_ratio();
      c.accesses_a = ma.hierarchies[h].levels[l].combined().accesses();
      c.accesses_b = mb.hierarchies[h].levels[l].combined().accesses();
      c.served_a = served(ma.hierarchies[h], l);
      c.served_b = served(mb.hierarchies[h], l);
      ha.push_back(c.hit_a);
      hb.push_back(c.hit_b);
      by_level[c.level].first.push_back(c.hit_a);
      by_level[c.level].second.push_back(c.hit_b);
      served_by_level[c.level].first.push_back(c.served_a);
      served_by_level[c.level].second.push_back(c.served_b);
      r.levels.push_back(c);
    }
  }
  r.hierarchy_error = absolute_error(ha, hb);
  for (const auto& [level, v] : by_level) r.per_level_error[level] = absolute_error(v.first, v.second);
  for (const auto& [level, v] : served_by_level) r.per_level_served_error[level] = absolute_error(v.first, v.second);
  auto la = lru_points(ma.lru, options, "A");
  if (!la) return la.error();
  auto lb = lru_points(mb.lru, options, "B");
  if (!lb) return lb.error();
  r.lru_error = absolute_error(*la, *lb);
  auto d = surface_distance(ma.locality, mb.locality);
  if (!d) return d.error();
  r.locality_distance = *d;
  r.lru_a = ma.lru;
  r.lru_b = mb.lru;
  r.locality_a = ma.locality;
  r.locality_b = mb.locality;
  r.hierarchies_a = ma.hierarchies;
  r.hierarchies_b = mb.hierarchies;
  r.concentration_a = ma.concentration;
  r.concentration_b = mb.concentration;
  return r;
}

namespace {
Json err_json(const AbsoluteError& e) { return {{"points", e.points}, {"mean_abs", e.mean}, {"max_abs", e.max}}; }
}  // namespace

Json ComparisonResult::to_json() const {
  Json j;
  j["references"] = {{"a", references_a}, {"b", references_b}};
  Json levels_j = Json::array();
  for (const auto& c : levels)
    levels_j.push_back({{"hierarchy", c.hierarchy}, {"level", c.level}, {"hit_a", c.hit_a}, {"hit_b", c.hit_b},
                        {"abs_error", c.abs_error()}, {"accesses_a", c.accesses_a}, {"accesses_b", c.accesses_b},
                        {"served_a", c.served_a}, {"served_b", c.served_b}, {"served_abs_error", c.served_error()}});
  j["hierarchy_levels"] = levels_j;
  j["hierarchy_error"] = err_json(hierarchy_error);
  Json per = Json::object();
  for (const auto& [level, e] : per_level_error) per[level] = err_json(e);
  j["hierarchy_error_per_level"] = per;
  Json served = Json::object();
  for (const auto& [level, e] : per_level_served_error) served[level] = err_json(e);
  j["hierarchy_served_error_per_level"] = served;
  j["lru_sweep"] = {{"widths", lru_a.widths}, {"depths", lru_a.depths}, {"hit_a", lru_a.hit}, {"hit_b", lru_b.hit}};
  j["lru_error"] = err_json(lru_error);
  j["locality_surface_distance"] = locality_distance;
  if (!concentration_a.empty() && !concentration_b.empty())
    j["concentration"] = {{"a", analysis::to_json(concentration_a)}, {"b", analysis::to_json(concentration_b)}};
  return j;
}

void ComparisonResult::print(std::ostream& out) const {
  out << "compare: A " << references_a << " references, B " << references_b << " references\n";
  out << "hierarchy hit ratios (local: A, B, |A-B|; the accesses each level got, A and B; cumulative, the share\n"
         "of all references served at this level or above: A, B, |A-B|):\n"
      << std::fixed
      << std::setprecision(4);
  for (const auto& c : levels)
    out << "  " << std::left << std::setw(20) << c.hierarchy << std::setw(4) << c.level << std::right << "  "
        << c.hit_a << "  " << c.hit_b << "  " << c.abs_error() << "  " << std::setw(12) << c.accesses_a << " "
        << std::setw(12) << c.accesses_b << "  " << c.served_a << "  " << c.served_b << "  " << c.served_error()
        << "\n";
  out << "hierarchy error over " << hierarchy_error.points << " levels: mean " << hierarchy_error.mean << ", max "
      << hierarchy_error.max << "\n";
  for (const auto& [level, e] : per_level_error) {
    out << "  " << level << ": mean " << e.mean << ", max " << e.max << " (" << e.points << ")";
    if (auto s = per_level_served_error.find(level); s != per_level_served_error.end())
      out << "; cumulative: mean " << s->second.mean << ", max " << s->second.max;
    out << "\n";
  }
  out << "LRU sweep (" << lru_error.points << " fully-associative caches): mean " << lru_error.mean << ", max "
      << lru_error.max << "\n";
  out << "locality surface distance: " << locality_distance << "\n";
  if (!concentration_a.empty() && concentration_a.size() == concentration_b.size()) {
    out << "concentration (share of the references to the busiest 10 / 100 units, A then B; busy = at least 1/1000 of them):\n";
    for (std::size_t k = 0; k < concentration_a.size(); ++k) {
      const auto& ca = concentration_a[k];
      const auto& cb = concentration_b[k];
      out << "  " << std::setw(4) << ca.width << " B  A " << ca.top10 << " / " << ca.top100 << ", " << ca.busy
          << " busy of " << ca.units << "   B " << cb.top10 << " / " << cb.top100 << ", " << cb.busy << " busy of "
          << cb.units << "\n";
    }
  }
  out.unsetf(std::ios::fixed);
}

}  // namespace hmtt::analysis
