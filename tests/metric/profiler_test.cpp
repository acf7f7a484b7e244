// METRIC behind the common profiling contract: profile = compressed trace,
// synthesis = exact expansion (repeated or truncated to the asked length).
#include <doctest/doctest.h>

#include "hmtt/analysis/profiler.h"
#include "hmtt/metric/metric.h"

using namespace hmtt;

namespace hmtt::analysis {
std::unique_ptr<Profiler> make_metric_profiler();
}

namespace {
std::vector<Reference> strided_loops() {
  std::vector<Reference> t;
  std::uint64_t time = 0;
  for (int rep = 0; rep < 50; ++rep)
    for (std::uint64_t i = 0; i < 200; ++i) {
      t.push_back({time++, 0x100000 + 8 * i, 8, Kind::Read, Origin::Unknown, 0});
      t.push_back({time++, 0x800000 + 64 * i, 4, Kind::Write, Origin::Unknown, 0});
    }
  return t;
}
}  // namespace

TEST_CASE("metric profiler: the synthetic trace is the original, reference for reference") {
  auto p = analysis::make_metric_profiler();
  const auto trace = strided_loops();
  VectorSource src(trace);
  auto params = analysis::ProfileParams::parse({}, p->params());
  REQUIRE(params.ok());
  auto prof = p->profile(src, *params, {});
  REQUIRE(prof.ok());
  CHECK(prof->format == "binary");
  CHECK(p->recognizes(prof->data));
  CHECK_FALSE(p->recognizes("{\"format\": \"hmtt-profile\"}"));
  // Loops compress: far fewer bytes than 24 per reference.
  CHECK(prof->data.size() * 100 < trace.size() * 24);

  auto syn = p->synthesize(prof->data, {});
  REQUIRE(syn.ok());
  auto out = collect(**syn);
  REQUIRE(out.ok());
  REQUIRE(out->size() == trace.size());
  for (std::size_t i = 0; i < trace.size(); ++i) {
    CHECK((*out)[i].address == trace[i].address);
    CHECK((*out)[i].kind == trace[i].kind);
    CHECK((*out)[i].time == i);
  }
  auto twice = p->synthesize(prof->data, analysis::SynthOptions{.length = 2 * trace.size() + 3, .seed = 1});
  REQUIRE(twice.ok());
  auto t2 = collect(**twice);
  REQUIRE(t2->size() == 2 * trace.size() + 3);
  CHECK((*t2)[trace.size()].address == trace[0].address);
  CHECK((*t2)[2 * trace.size() + 2].address == trace[2].address);
  CHECK((*t2).back().time == 2 * trace.size() + 2);

  // limit is honoured; bad knobs and bad bytes are errors.
  VectorSource src2(trace);
  auto limited = p->profile(src2, *params, analysis::RunOptions{.batch = 100, .progress = false, .limit = 1000});
  REQUIRE(limited.ok());
  CHECK(limited->summary["references"] == 1000);
  auto bad = analysis::ProfileParams::parse({"window=1"}, p->params());
  REQUIRE(bad.ok());
  VectorSource src3(trace);
  CHECK_FALSE(p->profile(src3, *bad, {}).ok());
  std::string corrupt = prof->data;
  corrupt.resize(corrupt.size() / 2);
  CHECK_FALSE(p->synthesize(corrupt, {}).ok());
}
