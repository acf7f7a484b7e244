#include "hmtt/analysis/report.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "hmtt/analysis/cache_sim.h"
#include "hmtt/analysis/cache_surface.h"
#include "hmtt/analysis/concentration.h"
#include "hmtt/analysis/dma.h"
#include "hmtt/analysis/locality_surface.h"
#include "hmtt/analysis/reuse_distance_tool.h"

extern char** environ;

namespace hmtt::analysis {

namespace {

namespace fs = std::filesystem;

std::string html_escape(std::string_view s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

// A title inside a gnuplot double-quoted string.
std::string gp_text(std::string_view s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\' || c == '@' || c == '_' || c == '^' || c == '{' || c == '}') o += ' ';
    else o += c;
  }
  return o;
}

std::string pct(double f, int digits = 2) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << 100 * f << " %";
  return o.str();
}

std::string num(double v, int digits = 4) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << v;
  return o.str();
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "hmtt-report-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

Status run_gnuplot(const std::string& program, const fs::path& script) {
  pid_t pid = 0;
  std::string arg0 = program, arg1 = script.string();
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string log = (script.parent_path() / "gnuplot.log").string();
  posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  const int rc = posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    return make_error("cannot run '" + program + "' (" + std::strerror(rc) +
                      "); the report draws its plots with gnuplot (Debian package gnuplot-nox)");
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return make_error("waiting for gnuplot failed");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::ifstream f(log);
    std::stringstream ss;
    ss << f.rdbuf();
    return make_error("gnuplot failed on " + script.string() + ": " + ss.str());
  }
  return Status::success();
}

std::string read_svg(const fs::path& p, int index) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string s = ss.str();
  const std::size_t start = s.find("<svg");
  if (start == std::string::npos) return {};
  s = s.substr(start);
  // Several gnuplot SVGs in one page: keep their ids apart.
  const std::string prefix = "f" + std::to_string(index);
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
  };
  replace_all("gpDot", prefix + "Dot");
  replace_all("gpPt", prefix + "Pt");
  replace_all("gnuplot_canvas", prefix + "_canvas");
  return s;
}

struct Figure {
  std::string name;     // file stem
  std::string caption;
  std::string script;   // gnuplot commands after terminal/output
};

const char* kTerminal = "set terminal svg size 760,420 font \"Helvetica,12\" background rgb \"white\"\n";
const char* kStyle =
    "set grid lc rgb \"#dddddd\"\nset border lc rgb \"#444444\"\nset key top left box opaque\n"
    "set style line 1 lc rgb \"#1f77b4\" lw 2 pt 7 ps 0.6\nset style line 2 lc rgb \"#d62728\" lw 2 pt 5 ps 0.6\n"
    "set style line 3 lc rgb \"#2ca02c\" lw 2 pt 9 ps 0.6\nset style line 4 lc rgb \"#9467bd\" lw 2 pt 11 ps 0.6\n"
    "set style line 5 lc rgb \"#ff7f0e\" lw 2 pt 13 ps 0.6\nset style line 6 lc rgb \"#8c564b\" lw 2 pt 4 ps 0.6\n"
    "set style line 7 lc rgb \"#17becf\" lw 2 pt 6 ps 0.6\n";

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
}

std::string table_row(std::initializer_list<std::string> cells, bool header = false) {
  std::string r = "<tr>";
  for (const auto& c : cells) r += (header ? "<th>" : "<td>") + c + (header ? "</th>" : "</td>");
  return r + "</tr>\n";
}

}  // namespace

Result<Report> render_report(ReferenceSource& a, ReferenceSource* b, const ReportOptions& options) {
  // ---- measure ----
  CacheSimTool cache_a(CacheSimKnobs{options.hierarchy}), cache_b(CacheSimKnobs{options.hierarchy});
  CacheSurfaceTool surface_a(CacheSurfaceKnobs{}), surface_b(CacheSurfaceKnobs{});
  ReuseDistanceTool reuse_a(ReuseDistanceKnobs{}), reuse_b(ReuseDistanceKnobs{});
  LocalitySurfaceTool loc_a(LocalitySurfaceKnobs{}), loc_b(LocalitySurfaceKnobs{});
  ScrTool scr(options.scr);
  DmaTool dma(DmaKnobs{});
  BandwidthTool bw(options.bandwidth);
  // The concentration of both traces' references (hmtt compare's): only measured when there are two.
  ConcentrationTool conc_a, conc_b;
  std::vector<AnalysisTool*> tools_a = {&cache_a, &surface_a, &reuse_a, &loc_a, &scr, &dma, &bw};
  if (b != nullptr) tools_a.push_back(&conc_a);
  auto na = run_tools(a, tools_a, options.run);
  if (!na) return make_error(options.name_a + ": " + na.error().message);
  Report report;
  if (b != nullptr) {
    AnalysisTool* tools_b[] = {&cache_b, &surface_b, &reuse_b, &loc_b, &conc_b};
    auto nb = run_tools(*b, tools_b, options.run);
    if (!nb) return make_error(options.name_b + ": " + nb.error().message);
    TraceMeasures ma{*na, cache_a.result(), surface_a.result(), loc_a.result(), conc_a.result()};
    TraceMeasures mb{*nb, cache_b.result(), surface_b.result(), loc_b.result(), conc_b.result()};
    auto c = compare(ma, mb, CompareOptions{});
    if (!c) return c.error();
    report.comparison = std::move(*c);
  }

  // ---- data files and plots ----
  TempDir dir;
  if (dir.path().empty()) return make_error("cannot create a temporary directory for the plots");
  const std::string A = gp_text(options.name_a), B = gp_text(options.name_b);
  std::vector<Figure> figures;
  {
    const CacheSurface& s = surface_a.result();
    std::ostringstream d;
    for (std::size_t di = 0; di < s.depths.size(); ++di) {
      d << s.depths[di];
      for (std::size_t wi = 0; wi < s.widths.size(); ++wi) d << " " << s.hit[wi][di];
      d << "\n";
    }
    write_file(dir.path() / "surface.dat", d.str());
    std::ostringstream p;
    p << "set logscale x 2\nset format x \"2^{%L}\"\nset xlabel \"cache depth (blocks)\"\nset ylabel \"hit ratio\"\n"
         "set yrange [0:1]\nset title \"Cache surface of "
      << A << ": fully-associative LRU, one line per block width\"\nplot ";
    for (std::size_t wi = 0; wi < s.widths.size(); ++wi)
      p << (wi ? ", " : "") << "'surface.dat' using 1:" << wi + 2 << " with linespoints ls " << wi + 1 << " title \""
        << s.widths[wi] << " B\"";
    p << "\n";
    figures.push_back({"surface", "Cache surface hit(d, w) (Chameleon section 2.1.1): depths 2^0..2^16 blocks, widths 8..512 B.", p.str()});
  }
  {
    auto cdf = [](const ReuseHistogram& h) {
      std::ostringstream d;
      const std::size_t top = std::max<std::size_t>(h.buckets().size(), 1);
      for (std::size_t k = 0; k <= top; ++k) {
        const std::uint64_t depth = std::uint64_t{1} << k;
        d << depth << " " << h.hit_ratio(depth) << "\n";
      }
      return d.str();
    };
    write_file(dir.path() / "reuse_a.dat", cdf(reuse_a.result().histogram));
    std::ostringstream p;
    p << "set logscale x 2\nset format x \"2^{%L}\"\nset xlabel \"reuse distance D (64-byte blocks)\"\n"
         "set ylabel \"fraction of references with distance < D\"\nset yrange [0:1]\n"
         "set title \"Reuse-distance CDF (cold misses never count)\"\nplot 'reuse_a.dat' using 1:2 with steps ls 1 title \""
      << A << "\"";
    if (b) {
      write_file(dir.path() / "reuse_b.dat", cdf(reuse_b.result().histogram));
      p << ", 'reuse_b.dat' using 1:2 with steps ls 2 title \"" << B << "\"";
    }
    p << "\n";
    figures.push_back({"reuse", "Reuse-distance CDF: exact LRU stack distances, 64-byte blocks.", p.str()});
  }
  const ScrResult& sr = scr.result();
  {
    std::ostringstream d;
    for (std::size_t i = 0; i < sr.physical.size(); ++i)
      d << sr.physical[i].window << " " << 100 * sr.physical[i].scr() << " "
        << (sr.virtual_view.empty() ? 0.0 : 100 * sr.virtual_view[i].scr()) << "\n";
    write_file(dir.path() / "scr.dat", d.str());
    std::ostringstream p;
    p << "set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.85 border -1\n"
         "set boxwidth 0.9\nset yrange [0:100]\nset ylabel \"SCR (%)\"\nset xlabel \"detection window (entries)\"\n"
         "set title \"Stream coverage rate (HMTT Fig. 11)\"\nplot 'scr.dat' using 2:xtic(1) ls 1 title \"physical\"";
    if (!sr.virtual_view.empty()) p << ", '' using 3 ls 2 title \"virtual\"";
    p << "\n";
    figures.push_back({"scr", "Stream coverage rate by detection window (physical, and virtual with a page map).", p.str()});
  }
  {
    std::ostringstream d;
    for (const auto& [s, f] : sr.physical_strides.cdf()) d << s << " " << f << "\n";
    if (sr.physical_strides.total == 0) d << "1 0\n";
    write_file(dir.path() / "stride.dat", d.str());
    std::ostringstream p;
    p << "set logscale x 10\nset xlabel \"|stride| (cache lines)\"\nset ylabel \"fraction of stream references\"\n"
         "set yrange [0:1]\nset title \"Stream stride CDF (HMTT Fig. 12a), window "
      << options.scr.stride_window << "\"\nplot 'stride.dat' using 1:2 with steps ls 1 title \"" << A << "\"\n";
    figures.push_back({"stride", "CDF of the strides of detected streams, in cache lines.", p.str()});
  }
  {
    // Locality surfaces (PSnAP Fig. 3): log10(1 + pairs) by stride and distance bin.
    auto matrix = [](const LocalitySurface& ls) {
      std::ostringstream d;
      for (std::uint32_t bin = 0; bin < ls.distance_bins; ++bin) {
        for (std::int32_t t = -ls.max_stride; t <= ls.max_stride; ++t) d << (t == -ls.max_stride ? "" : " ") << ls.at(t, bin);
        d << "\n";
      }
      return d.str();
    };
    auto script = [&](const std::string& file, const std::string& who, const LocalitySurface& ls) {
      std::ostringstream p;
      p << "set view map\nset xlabel \"stride (bytes)\"\nset ylabel \"distance (log2 references)\"\n"
           "set cblabel \"log10(1 + pairs)\"\nset palette rgbformulae 30,31,32\nset xrange [*:*] noextend\n"
           "set yrange [*:*] noextend\nset key off\nset title \"Locality surface of "
        << who << " (strides within +-" << ls.max_stride * static_cast<std::int32_t>(ls.granule_bytes)
        << " B, distances within 64 K)\"\nplot '" << file << "' matrix using ($1*" << ls.granule_bytes << "-"
        << ls.max_stride * static_cast<std::int32_t>(ls.granule_bytes) << "):2:(log10(1+$3)) with image\n";
      return p.str();
    };
    write_file(dir.path() / "locality_a.dat", matrix(loc_a.result()));
    figures.push_back({"locality_a", "Locality surface (Grimsrud; PSnAP section 3.2): pairs of references by stride and distance.",
                       script("locality_a.dat", A, loc_a.result())});
    if (b) {
      write_file(dir.path() / "locality_b.dat", matrix(loc_b.result()));
      figures.push_back({"locality_b", "Locality surface of the second trace, same axes.", script("locality_b.dat", B, loc_b.result())});
    }
  }
  const BandwidthResult& br = bw.result();
  {
    std::ostringstream d;
    for (const auto& pt : br.series) d << pt.start_seconds * 1e3 << " " << pt.mb_per_s << "\n";
    if (br.series.empty()) d << "0 0\n";
    write_file(dir.path() / "bandwidth.dat", d.str());
    std::ostringstream p;
    p << "set xlabel \"time (ms)\"\nset ylabel \"MB/s\"\nset yrange [0:*]\nset title \"Memory traffic over time\"\n"
         "plot 'bandwidth.dat' using 1:2 with steps ls 1 title \""
      << A << "\"\n";
    figures.push_back({"bandwidth", "Bandwidth timeline: bytes referenced per interval, in MB/s.", p.str()});
  }
  if (report.comparison) {
    const ComparisonResult& c = *report.comparison;
    std::ostringstream d;
    for (std::size_t di = 0; di < c.lru_a.depths.size(); ++di) {
      d << c.lru_a.depths[di];
      for (std::uint64_t w : CompareOptions{}.widths) d << " " << c.lru_a.at(w, c.lru_a.depths[di]) << " " << c.lru_b.at(w, c.lru_a.depths[di]);
      d << "\n";
    }
    write_file(dir.path() / "sweep.dat", d.str());
    std::ostringstream p;
    p << "set logscale x 2\nset format x \"2^{%L}\"\nset xlabel \"cache depth (blocks)\"\nset ylabel \"hit ratio\"\n"
         "set yrange [0:1]\nset title \"LRU sweep: "
      << A << " (solid) vs " << B << " (dashed)\"\nplot ";
    const auto widths = CompareOptions{}.widths;
    for (std::size_t i = 0; i < widths.size(); ++i) {
      p << (i ? ", " : "") << "'sweep.dat' using 1:" << 2 + 2 * i << " with linespoints ls " << i + 1 << " title \"A "
        << widths[i] << " B\", 'sweep.dat' using 1:" << 3 + 2 * i << " with linespoints ls " << i + 1
        << " dt 2 title \"B " << widths[i] << " B\"";
    }
    p << "\n";
    figures.push_back({"sweep", "Comparison: fully-associative LRU hit ratios of both traces (17 depths x 4 widths).", p.str()});
    std::ostringstream h;
    for (const auto& l : c.levels) h << "\"" << gp_text(l.hierarchy.substr(6)) << " " << l.level << "\" " << l.hit_a << " " << l.hit_b << "\n";
    write_file(dir.path() / "levels.dat", h.str());
    std::ostringstream q;
    q << "set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.85 border -1\n"
         "set yrange [0:1]\nset ylabel \"local hit ratio\"\nset xtics rotate by -60 font \",9\"\n"
         "set title \"PSnAP Table 1 hierarchies, per level\"\nplot 'levels.dat' using 2:xtic(1) ls 1 title \""
      << A << "\", '' using 3 ls 2 title \"" << B << "\"\n";
    figures.push_back({"levels", "Comparison: hit ratio of every level of every hierarchy.", q.str()});
  }
  std::ostringstream script;
  // gnuplot resolves data and output files against its own directory.
  script << "cd '" << dir.path().string() << "'\n" << kTerminal << kStyle;
  for (const auto& f : figures)
    script << "reset\n" << kStyle << "set output '" << f.name << ".svg'\n" << f.script << "unset output\n";
  write_file(dir.path() / "plots.gp", script.str());
  auto st = run_gnuplot(options.gnuplot, dir.path() / "plots.gp");
  if (!st) return st.error();

  // ---- page ----
  std::map<std::string, std::string> svg;
  int index = 0;
  for (const auto& f : figures) {
    svg[f.name] = read_svg(dir.path() / (f.name + ".svg"), index++);
    if (svg[f.name].empty()) return make_error("gnuplot produced no " + f.name + ".svg");
  }
  auto figure = [&](const std::string& name) {
    for (const auto& f : figures)
      if (f.name == name) {
        ++report.figures;
        return "<figure id=\"fig-" + name + "\">" + svg[name] + "<figcaption>" + html_escape(f.caption) +
               "</figcaption></figure>\n";
      }
    return std::string{};
  };
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" << html_escape(options.title)
    << "</title>\n<style>\n"
       "body{font-family:Helvetica,Arial,sans-serif;margin:24px auto;max-width:1000px;color:#222}\n"
       "h1{font-size:24px}h2{font-size:19px;border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}\n"
       "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 9px;text-align:right}\n"
       "th{background:#f2f2f2}td:first-child,th:first-child{text-align:left}\n"
       "figure{margin:12px 0}figcaption{font-size:13px;color:#555}svg{max-width:100%;height:auto}\n"
       ".note{font-size:13px;color:#555}\n</style></head><body>\n";
  h << "<h1>" << html_escape(options.title) << "</h1>\n";
  h << "<h2>Summary</h2>\n<table>\n" << table_row({"trace", "references", "distinct 64-byte blocks"}, true)
    << table_row({html_escape(options.name_a), std::to_string(*na), std::to_string(reuse_a.result().distinct_blocks)});
  if (b) h << table_row({html_escape(options.name_b), std::to_string(report.comparison->references_b), std::to_string(reuse_b.result().distinct_blocks)});
  h << "</table>\n";
  h << "<h2>Cache surface</h2>\n" << figure("surface");
  h << "<h2>Reuse distance</h2>\n" << figure("reuse");
  h << "<h2>Cache hierarchies</h2>\n<p class=\"note\">Local hit ratio (hits / accesses reaching the level); "
    << html_escape(options.hierarchy) << " hierarchies, LRU, write-back, write-allocate.</p>\n<table>\n"
    << table_row({"hierarchy", "L1", "L2", "L3"}, true);
  for (const auto& hr : cache_a.result()) {
    std::string cells[3];
    for (std::size_t l = 0; l < hr.levels.size() && l < 3; ++l) cells[l] = pct(hr.levels[l].combined().hit_ratio());
    h << table_row({html_escape(hr.name), cells[0], cells[1], cells[2]});
  }
  h << "</table>\n";
  h << "<h2>Stream coverage</h2>\n" << figure("scr") << figure("stride");
  h << "<h2>Locality surface</h2>\n" << figure("locality_a") << figure("locality_b");
  h << "<h2>Bandwidth</h2>\n<p>Average " << num(br.average_mb_per_s, 2) << " MB/s, peak " << num(br.peak_mb_per_s, 2)
    << " MB/s over " << num(br.seconds * 1e3, 3) << " ms; trace generation " << num(br.average_trace_mb_per_s, 2)
    << " MB/s at " << options.bandwidth.record_bytes << " bytes per record.</p>\n" << figure("bandwidth");
  const DmaResult& dr = dma.result();
  h << "<h2>DMA and CPU references</h2>\n<table id=\"dma-shares\">\n" << table_row({"type", "references", "share"}, true);
  static const char* cls[] = {"CPU", "DMA", "unknown"};
  for (int c = 0; c < 3; ++c)
    for (int d = 0; d < 2; ++d) {
      if (c == 2 && dr.counts[c][d] == 0) continue;
      h << table_row({std::string(cls[c]) + (d ? " write" : " read"), std::to_string(dr.counts[c][d]), pct(dr.share(c, d))});
    }
  h << "</table>\n";
  if (dr.request_count() > 0) {
    h << "<table id=\"dma-requests\">\n" << table_row({"DMA requests", "requests", "%", "average size"}, true);
    for (const auto& [k, s] : dr.requests)
      h << table_row({"device " + std::to_string(k.first) + (k.second ? " write" : " read"), std::to_string(s.requests),
                      pct(static_cast<double>(s.requests) / static_cast<double>(dr.request_count()), 1),
                      num(s.average_bytes() / 1024, 2) + " KB"});
    h << "</table>\n";
  }
  if (report.comparison) {
    const ComparisonResult& c = *report.comparison;
    h << "<h2>Comparison: " << html_escape(options.name_b) << " against " << html_escape(options.name_a) << "</h2>\n"
      << "<table id=\"compare\">\n" << table_row({"measure", "points", "mean |A-B|", "max |A-B|"}, true)
      << table_row({"hierarchy levels", std::to_string(c.hierarchy_error.points), num(c.hierarchy_error.mean), num(c.hierarchy_error.max)});
    for (const auto& [level, e] : c.per_level_error)
      h << table_row({"&nbsp;&nbsp;" + html_escape(level), std::to_string(e.points), num(e.mean), num(e.max)});
    // The cumulative measure (the share of all references served at a level or above; at L1 it is the
    // local one, so only the levels below are shown).
    for (const auto& [level, e] : c.per_level_served_error)
      if (level != "L1")
        h << table_row({"&nbsp;&nbsp;" + html_escape(level) + " cumulative", std::to_string(e.points), num(e.mean),
                        num(e.max)});
    h << table_row({"LRU sweep", std::to_string(c.lru_error.points), num(c.lru_error.mean), num(c.lru_error.max)})
      << table_row({"locality-surface distance", "1", num(c.locality_distance), ""}) << "</table>\n";
    if (!c.concentration_a.empty() && c.concentration_a.size() == c.concentration_b.size()) {
      // Where the references go: a synthetic trace can match every hit ratio above on
      // fully-associative caches and still spread its references over more units (docs/analysis.md).
      h << "<table id=\"concentration\">\n"
        << table_row({"unit", "trace", "busiest 10", "busiest 100", "busy units", "units"}, true);
      for (std::size_t k = 0; k < c.concentration_a.size(); ++k) {
        for (int t = 0; t < 2; ++t) {
          const ConcentrationPoint& p = t == 0 ? c.concentration_a[k] : c.concentration_b[k];
          h << table_row({std::to_string(p.width) + " B", html_escape(t == 0 ? options.name_a : options.name_b),
                          pct(p.top10), pct(p.top100), std::to_string(p.busy), std::to_string(p.units)});
        }
      }
      h << "</table>\n";
    }
    h << figure("sweep") << figure("levels");
  }
  h << "<p class=\"note\">Generated by hmtt report.</p>\n</body></html>\n";
  report.html = h.str();
  return report;
}

}  // namespace hmtt::analysis
