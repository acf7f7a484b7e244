// A real program: gzip under Valgrind lackey (recorded at test time; skipped
// cleanly when valgrind or gzip is missing). PSnAP's synthetic trace must
// match the hit rates within the paper's averages and have a locality
// surface closer to the original than the IRM baseline's.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "hmtt/analysis/compare.h"
#include "hmtt/psnap/psnap.h"
#include "hmtt/tracefmt/reader.h"

using namespace hmtt;

namespace {

struct Judged {
  analysis::ComparisonResult cmp;
  std::size_t profile_bytes = 0;
};

Judged judge(analysis::Profiler& method, const std::string& trace) {
  auto params = analysis::ProfileParams::parse({}, method.params());
  REQUIRE(params.ok());
  auto src = tracefmt::open_trace(trace);
  REQUIRE(src.ok());
  auto prof = method.profile(**src, *params, analysis::RunOptions{.progress = false});
  REQUIRE(prof.ok());
  auto syn = method.synthesize(prof->data, {});
  REQUIRE(syn.ok());
  auto orig = tracefmt::open_trace(trace);
  REQUIRE(orig.ok());
  analysis::CompareOptions opt;
  opt.run.progress = false;
  auto cmp = analysis::compare(**orig, **syn, opt);
  REQUIRE(cmp.ok());
  return {std::move(*cmp), prof->data.size()};
}

}  // namespace

TEST_CASE("psnap on a real program: gzip under valgrind lackey") {
  if (std::system("valgrind --version >/dev/null 2>&1") != 0 || std::system("gzip --version >/dev/null 2>&1") != 0) {
    MESSAGE("skipped: valgrind or gzip is not installed");
    return;
  }
  const auto dir = std::filesystem::temp_directory_path() / ("hmtt_psnap_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream in(dir / "input.txt");
    for (int i = 0; i < 400; ++i) in << "line " << i << " of a small deterministic input, " << (i * 7919) % 1000 << "\n";
  }
  const std::string trace = (dir / "gzip.lackey").string();
  const std::string cmd = "valgrind --tool=lackey --trace-mem=yes gzip -c '" + (dir / "input.txt").string() +
                          "' > /dev/null 2> '" + trace + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);

  auto psnap = analysis::make_psnap_profiler();
  auto irm = analysis::make_irm_profiler();
  const Judged p = judge(*psnap, trace);
  const Judged i = judge(*irm, trace);
  MESSAGE("gzip: " << p.cmp.references_a << " references; psnap L1/L2/L3 mean error "
                   << p.cmp.per_level_error.at("L1").mean << " / " << p.cmp.per_level_error.at("L2").mean << " / "
                   << p.cmp.per_level_error.at("L3").mean << ", locality distance " << p.cmp.locality_distance
                   << " (irm " << i.cmp.locality_distance << "), profile " << p.profile_bytes << " bytes");
  CHECK(p.cmp.references_b == p.cmp.references_a);
  // PSnAP conclusion / Tables 2-3: 2.2 % L1, 1.9 % L2, 1.8 % L3 on average.
  CHECK(p.cmp.per_level_error.at("L1").mean <= 0.022);
  CHECK(p.cmp.per_level_error.at("L2").mean <= 0.019);
  CHECK(p.cmp.per_level_error.at("L3").mean <= 0.018);
  CHECK(p.cmp.locality_distance < i.cmp.locality_distance);
  CHECK(p.cmp.hierarchy_error.mean < i.cmp.hierarchy_error.mean);
  std::filesystem::remove_all(dir);
}
