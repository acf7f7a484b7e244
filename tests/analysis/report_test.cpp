// The HTML report: self-contained, every figure present (unit); and, in the
// e2e tier, rendered by headless Chromium.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "hmtt/analysis/demo_workload.h"
#include "hmtt/analysis/report.h"

using namespace hmtt;
using namespace hmtt::analysis;

namespace {
std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

Report demo_report(bool two) {
  DemoWorkloadKnobs k;
  k.references = 50000;
  DemoWorkload a(k);
  k.seed = 2;
  DemoWorkload b(k);
  ReportOptions o;
  o.run.progress = false;
  o.name_a = "demo <A>";
  o.bandwidth.interval_ticks = 20000;
  auto r = render_report(a, two ? &b : nullptr, o);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return std::move(*r);
}
}  // namespace

#ifndef HMTT_REPORT_CHROMIUM
TEST_CASE("report: one trace has six figures, two traces nine, all inline") {
  Report one = demo_report(false);
  CHECK(one.figures == 6);
  CHECK(count(one.html, "<svg") == 6);
  CHECK_FALSE(one.comparison.has_value());
  Report two = demo_report(true);
  CHECK(two.figures == 9);
  CHECK(count(two.html, "<svg") == 9);
  REQUIRE(two.comparison.has_value());
  CHECK(two.html.find("id=\"compare\"") != std::string::npos);
  CHECK(two.html.find("id=\"dma-shares\"") != std::string::npos);
  // The comparison's levels in both measures: local L1-L3, cumulative below L1 only.
  const auto cmp = two.html.find("id=\"compare\"");
  const std::string cmp_rows = two.html.substr(cmp, two.html.find("</table>", cmp) - cmp);
  CHECK(count(cmp_rows, "<tr>") == 9);  // header, all levels, L1-L3, L2-L3 cumulative, LRU, locality
  CHECK(cmp_rows.find("L2 cumulative") != std::string::npos);
  CHECK(cmp_rows.find("L3 cumulative") != std::string::npos);
  CHECK(cmp_rows.find("L1 cumulative") == std::string::npos);
  // Where each trace's references go (hmtt compare's concentration), one row per trace and width.
  CHECK(one.html.find("id=\"concentration\"") == std::string::npos);
  const auto table = two.html.find("id=\"concentration\"");
  REQUIRE(table != std::string::npos);
  REQUIRE(two.comparison->concentration_a.size() == 2);
  REQUIRE(two.comparison->concentration_b.size() == 2);
  const std::string rows = two.html.substr(table, two.html.find("</table>", table) - table);
  CHECK(count(rows, "<tr>") == 5);  // the header and 2 widths x 2 traces
  for (const auto* points : {&two.comparison->concentration_a, &two.comparison->concentration_b}) {
    for (const ConcentrationPoint& p : *points) {
      CHECK(p.units > 0);
      CHECK(p.top10 > 0);
      CHECK(p.top10 <= p.top100);
      std::ostringstream want;
      want << std::fixed << std::setprecision(2) << 100 * p.top100 << " %";
      CHECK(rows.find(want.str()) != std::string::npos);
      CHECK(rows.find(">" + std::to_string(p.units) + "<") != std::string::npos);
    }
  }
  CHECK(two.comparison->concentration_a[0].width == 512);
  CHECK(two.comparison->concentration_a[1].width == 64);
  // Self-contained: nothing fetched (SVG namespaces are names, not fetches).
  CHECK(count(two.html, "src=") == 0);
  CHECK(count(two.html, "<link") == 0);
  CHECK(count(two.html, "<script") == 0);
  // Names are escaped.
  CHECK(two.html.find("demo &lt;A&gt;") != std::string::npos);
  // Figure ids kept apart between the inlined SVGs.
  CHECK(count(two.html, "id=\"f0_canvas\"") == 1);
  CHECK(count(two.html, "id=\"f8_canvas\"") == 1);
}

TEST_CASE("report: a missing plotting program is a clear error") {
  DemoWorkloadKnobs k;
  k.references = 1000;
  DemoWorkload a(k);
  ReportOptions o;
  o.run.progress = false;
  o.gnuplot = "/nonexistent/gnuplot";
  auto r = render_report(a, nullptr, o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("cannot run '/nonexistent/gnuplot'") == 0);
}
#else
TEST_CASE("report renders in headless Chromium with all its figures") {
  namespace fs = std::filesystem;
  Report r = demo_report(true);
  char tmpl[] = "/tmp/hmtt-report-test-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const fs::path dir = tmpl;
  {
    std::ofstream f(dir / "report.html");
    f << r.html;
  }
  const std::string common =
      "chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update "
      "--disable-sync --no-first-run --user-data-dir=" + (dir / "profile").string();
  const std::string dom_cmd = common + " --dump-dom file://" + (dir / "report.html").string() + " > " +
                              (dir / "dom.html").string() + " 2> " + (dir / "chromium.log").string();
  REQUIRE_MESSAGE(std::system(dom_cmd.c_str()) == 0, "chromium --dump-dom failed; is Debian's chromium installed?");
  std::ifstream dom_f(dir / "dom.html");
  std::stringstream dom;
  dom << dom_f.rdbuf();
  // Chromium parsed the page and kept every inline figure and table.
  CHECK(count(dom.str(), "<svg") == 9);
  CHECK(count(dom.str(), "<figure") == 9);
  CHECK(dom.str().find("id=\"compare\"") != std::string::npos);
  const std::string shot_cmd = common + " --window-size=1100,5200 --screenshot=" + (dir / "report.png").string() +
                               " file://" + (dir / "report.html").string() + " > /dev/null 2>> " +
                               (dir / "chromium.log").string();
  REQUIRE(std::system(shot_cmd.c_str()) == 0);
  // A PNG of the requested size, with enough content to be more than a blank page.
  std::ifstream png(dir / "report.png", std::ios::binary);
  unsigned char head[24] = {};
  png.read(reinterpret_cast<char*>(head), 24);
  REQUIRE(png.gcount() == 24);
  CHECK(head[1] == 'P');
  CHECK(head[2] == 'N');
  CHECK(head[3] == 'G');
  const unsigned width = (head[16] << 24) | (head[17] << 16) | (head[18] << 8) | head[19];
  const unsigned height = (head[20] << 24) | (head[21] << 16) | (head[22] << 8) | head[23];
  CHECK(width == 1100);
  CHECK(height == 5200);
  CHECK(fs::file_size(dir / "report.png") > 100000);  // a blank page compresses to a few KB
  if (const char* keep = std::getenv("HMTT_REPORT_SCREENSHOT")) fs::copy_file(dir / "report.png", keep, fs::copy_options::overwrite_existing);
  fs::remove_all(dir);
}
#endif
