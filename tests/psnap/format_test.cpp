// The JSON profile (the `encoding=json` export): round trip through the profiling contract, and malformed
// profiles rejected with an error that names the field (never a crash).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "hmtt/psnap/psnap.h"
#include "hmtt/store/store.h"
#include "../icode_store.h"
#include "streams.h"

using namespace hmtt;
using analysis::Json;

namespace {
std::string profile_bytes() {
  auto p = analysis::make_psnap_profiler();
  const auto t = psnap_test::two_sweeps(10);
  VectorSource src(t);
  auto params = analysis::ProfileParams::parse({"encoding=json"}, p->params());
  REQUIRE(params.ok());
  auto out = p->profile(src, *params, analysis::RunOptions{.progress = false});
  REQUIRE(out.ok());
  REQUIRE(out->format == "json");
  return out->data;
}
// The error synthesize() gives for `data`; "" when it succeeds.
std::string synth_error(const std::string& data) {
  auto p = analysis::make_psnap_profiler();
  auto s = p->synthesize(data, {});
  if (s.ok()) {
    auto all = collect(**s);  // a profile accepted must also replay
    CHECK(all.ok());
    return "";
  }
  return s.error().message;
}
std::string mutated(const std::string& data, void (*edit)(Json&)) {
  Json j = Json::parse(data);
  edit(j);
  return j.dump();
}
}  // namespace

TEST_CASE("psnap profile: header, recognised, summary with the complexity measure, round trip") {
  auto p = analysis::make_psnap_profiler();
  const std::string data = profile_bytes();
  CHECK(p->recognizes(data));
  CHECK_FALSE(analysis::make_irm_profiler()->recognizes(data));
  const Json j = Json::parse(data);
  CHECK(j["format"] == "hmtt-profile");
  CHECK(j["method"] == "psnap");
  CHECK(j["params"]["region_distance"] == "256");
  CHECK(j["returns"] == "loop");
  CHECK(j["loops"][0]["regions"][0]["strides"]["+8"] == Json::array({5110, 8}));
  CHECK(j["region_count"] == 2);
  CHECK(j["loops"][0]["regions"][0]["stride_order"]["+8"]["+8"] == 10 * 510);
  // JSON -> profile -> JSON is the identity on the method's fields.
  auto back = psnap::from_json(j);
  REQUIRE(back.ok());
  Json again = psnap::to_json(*back);
  for (const auto& [k, v] : again.items()) CHECK(j[k] == v);
  CHECK(back->knobs.returns == psnap::ReturnScope::Loop);
  // A profile written before the return scope has no "returns": its returns were counted within a window.
  Json old = j;
  old.erase("returns");
  auto old_back = psnap::from_json(old);
  REQUIRE(old_back.ok());
  CHECK(old_back->knobs.returns == psnap::ReturnScope::Window);

  const auto t = psnap_test::two_sweeps(10);
  VectorSource src(t);
  auto params = analysis::ProfileParams::parse({"encoding=json"}, p->params());
  auto out = p->profile(src, *params, analysis::RunOptions{.batch = 100, .progress = false, .limit = 1000});
  REQUIRE(out.ok());
  CHECK(out->summary["references"] == 1000);
  CHECK(out->summary["complexity"].get<double>() > 0);
  CHECK(out->summary["profile_bytes"] == out->data.size());
}

TEST_CASE("psnap profile: bad knobs are errors naming the knob") {
  auto p = analysis::make_psnap_profiler();
  for (const char* bad : {"window=0", "window=4194305", "pattern_buffer=0", "loop_similarity=2", "window=x", "region_distance=-1",
                          "returns=sometimes", "loops=", "loops=/nonexistent/map"}) {
    auto params = analysis::ProfileParams::parse({bad}, p->params());
    REQUIRE(params.ok());
    VectorSource src(psnap_test::two_sweeps(1));
    auto out = p->profile(src, *params, analysis::RunOptions{.progress = false});
    REQUIRE_FALSE(out.ok());
    const std::string key = std::string(bad).substr(0, std::string(bad).find('='));
    CHECK(out.error().message.find(key) != std::string::npos);
  }
}

TEST_CASE("psnap profile: malformed profiles give an error naming the field") {
  const std::string good = profile_bytes();
  CHECK(synth_error(good).empty());
  CHECK(synth_error("not json").find("JSON") != std::string::npos);
  CHECK(synth_error("{\"format\":\"hmtt-profile\",\"method\":\"irm\"}").find("irm") != std::string::npos);

  struct Case {
    const char* field;
    void (*edit)(Json&);
  };
  const Case cases[] = {
      {".window", [](Json& j) { j.erase("window"); }},
      {".window", [](Json& j) { j["window"] = 0; }},
      {".references", [](Json& j) { j["references"] = -5; }},
      {".loops", [](Json& j) { j["loops"] = "many"; }},
      {".loops[0].references", [](Json& j) { j["loops"][0]["references"] = 0; }},
      {".loops[0].regions", [](Json& j) { j["loops"][0]["regions"] = Json::array(); }},
      {".loops[0].pattern", [](Json& j) { j["loops"][0]["pattern"] = Json::array(); }},
      {".loops[0].pattern[3]", [](Json& j) { j["loops"][0]["pattern"][3] = 7; }},
      {".loops[0].pattern[0]", [](Json& j) { j["loops"][0]["pattern"][0] = "a"; }},
      {".loops[0].regions[1].base", [](Json& j) { j["loops"][0]["regions"][1].erase("base"); }},
      {".loops[0].regions[1].last", [](Json& j) { j["loops"][0]["regions"][1]["last"] = 1; }},
      {".loops[0].regions[0].first", [](Json& j) { j["loops"][0]["regions"][0]["first"] = 0x100001000ull; }},
      {".loops[0].regions[0].count", [](Json& j) { j["loops"][0]["regions"][0]["count"] = 1.5; }},
      {".loops[0].regions[0].kinds.jump", [](Json& j) { j["loops"][0]["regions"][0]["kinds"]["jump"] = 1; }},
      {".loops[0].regions[0].kinds", [](Json& j) { j["loops"][0]["regions"][0]["kinds"] = 3; }},
      {".loops[0].regions[0].sizes[0]", [](Json& j) { j["loops"][0]["regions"][0]["sizes"][0] = 8; }},
      {".loops[0].regions[0].sizes[0][0]", [](Json& j) { j["loops"][0]["regions"][0]["sizes"][0][0] = 1u << 20; }},
      {".loops[0].regions[0].strides.+3", [](Json& j) { j["loops"][0]["regions"][0]["strides"]["+3"] = Json::array({1, 3}); }},
      {".loops[0].regions[0].strides.+8[1]", [](Json& j) { j["loops"][0]["regions"][0]["strides"]["+8"][1] = 64; }},
      {".loops[0].regions[0].strides.+8[1]", [](Json& j) { j["loops"][0]["regions"][0]["strides"]["+8"] = Json::array({5}); }},
      {".loops[0].regions[0].stride_order", [](Json& j) { j["loops"][0]["regions"][0]["stride_order"] = Json::array(); }},
      {".loops[0].regions[0].stride_order.+8.up", [](Json& j) { j["loops"][0]["regions"][0]["stride_order"]["+8"]["up"] = 1; }},
      {".loops[0].regions[0].stride_order.+8.+8", [](Json& j) { j["loops"][0]["regions"][0]["stride_order"]["+8"]["+8"] = -1; }},
      {".loops[0].regions[0].stride_order.+8", [](Json& j) { j["loops"][0]["regions"][0]["stride_order"]["+8"] = 3; }},
      {".loops[0].regions[0].code", [](Json& j) { j["loops"][0]["regions"][0]["code"] = "yes"; }},
      {".loops[0].regions[0].sweep", [](Json& j) { j["loops"][0]["regions"][0]["sweep"] = Json::array({1}); }},
      {".loops[0].regions[0].sweep[0]", [](Json& j) { j["loops"][0]["regions"][0]["sweep"] = Json::array({1u << 30, 1024}); }},
      {".loops[0].regions[0].sweep[1]", [](Json& j) {
         auto& r = j["loops"][0]["regions"][0];
         r["strides"]["random"] = Json::array({5});
         r.erase("jump_reuse");
         r["sweep"] = Json::array({2, 100});
       }},
      {".loops[0].regions[0].sweep[1]", [](Json& j) {  // 2^63 would read as INT64_MIN
         auto& r = j["loops"][0]["regions"][0];
         r["strides"]["random"] = Json::array({5});
         r.erase("jump_reuse");
         r["sweep"] = Json::array({2, std::uint64_t{1} << 63});
       }},
      {".loops[0].regions[0].jump_reuse", [](Json& j) {
         auto& r = j["loops"][0]["regions"][0];
         r["strides"]["random"] = Json::array({5});
         r["jump_reuse"] = Json::array({0, 3});
         r["sweep"] = Json::array({3, -4096});  // 3 + 3 of 5
       }},
      {".loops[0].regions[0].sweeps", [](Json& j) { j["loops"][0]["regions"][0]["sweeps"] = Json::array(); }},
      {".loops[0].regions[0].sweeps[0]", [](Json& j) { j["loops"][0]["regions"][0]["sweeps"] = Json::array({Json::array({2, 1024})}); }},
      {".loops[0].regions[0].sweep", [](Json& j) {  // both spellings at once
         auto& r = j["loops"][0]["regions"][0];
         r["strides"]["random"] = Json::array({5});
         r.erase("jump_reuse");
         r["sweep"] = Json::array({2, 1024});
         r["sweeps"] = Json::array({Json::array({2, 1024, 2, 0, 0})});
       }},
      {".loops[0].regions[0].sweeps[1][0]", [](Json& j) {  // 3 + 3 of 5
         auto& r = j["loops"][0]["regions"][0];
         r["strides"]["random"] = Json::array({5});
         r.erase("jump_reuse");
         r["sweeps"] = Json::array({Json::array({3, 1024, 3, 0, 0}), Json::array({3, 2048, 3, 0, 0})});
       }},
      {".loops[0].regions[0].sweeps[1][1]", [](Json& j) {
         auto& r = j["loops"][0]["regions"][0];
         r["strides"]["random"] = Json::array({5});
         r.erase("jump_reuse");
         r["sweeps"] = Json::array({Json::array({2, 1024, 2, 0, 0}), Json::array({2, 1024, 2, 0, 0})});
       }},
      {".loops[0].regions[0].sweeps[0][2]", [](Json& j) {
         auto& r = j["loops"][0]["regions"][0];
         r["strides"]["random"] = Json::array({5});
         r.erase("jump_reuse");
         r["sweeps"] = Json::array({Json::array({2, 1024, 3, 0, 0})});
       }},
      {".loops[0].regions[0].sweeps[0][4]", [](Json& j) {  // 3 runs, 4 alternations
         auto& r = j["loops"][0]["regions"][0];
         r["strides"]["random"] = Json::array({5});
         r.erase("jump_reuse");
         r["sweeps"] = Json::array({Json::array({4, 1024, 3, 1, 4})});
       }},
      {".loops[0].regions[0].sweeps[0][3]", [](Json& j) {  // 4 strides in 3 runs: at most 1 long
         auto& r = j["loops"][0]["regions"][0];
         r["strides"]["random"] = Json::array({5});
         r.erase("jump_reuse");
         r["sweeps"] = Json::array({Json::array({4, 1024, 3, 2, 0})});
       }},
      {".returns", [](Json& j) { j["returns"] = "sideways"; }},
      {".returns", [](Json& j) { j["returns"] = 1; }},
      {".order[0][0]", [](Json& j) { j["order"][0][0] = 3; }},
      {".order[0][1]", [](Json& j) { j["order"][0][1] = 0; }},
      {".order[0]", [](Json& j) { j["order"][0] = 1; }},
      {".order", [](Json& j) { j["order"] = Json::array(); }},
      {"profile: version", [](Json& j) { j["version"] = 7; }},
      {"profile: version", [](Json& j) { j["version"] = "1"; }},
      {"profile: version", [](Json& j) { j.erase("version"); }},
      {".loops[0].regions[0].strides.random", [](Json& j) { j["loops"][0]["regions"][0]["strides"]["random"] = Json::array({1, 8}); }},
      {".loops[0].regions[0].strides.random", [](Json& j) { j["loops"][0]["regions"][0]["strides"]["random"] = Json::array({1, "any"}); }},
  };
  for (const auto& c : cases) {
    const std::string err = synth_error(mutated(good, c.edit));
    INFO("field " << c.field << ": " << err);
    CHECK(err.find(std::string(c.field) + ":") != std::string::npos);
  }
  // The whole text of the version and random-bin errors.
  CHECK(synth_error(mutated(good, [](Json& j) { j["version"] = 7; })) ==
        "profile: version: 7 is not a version this hmtt reads (1)");
  CHECK(synth_error(mutated(good, [](Json& j) { j["loops"][0]["regions"][0]["strides"]["random"] = Json::array({1, 8}); })) ==
        "profile: .loops[0].regions[0].strides.random: expected [count] (the random bin has no stride)");
  // [count] alone is a good random bin (a count that covers the region's returns, jump_reuse).
  CHECK(synth_error(mutated(good, [](Json& j) {
          auto& r = j["loops"][0]["regions"][0];
          std::uint64_t returns = 0;
          for (const auto& c : r.value("jump_reuse", Json::array())) returns += c.get<std::uint64_t>();
          r["strides"]["random"] = Json::array({returns + 1});
        })).empty());
  // Every truncation of a profile is an error, never a crash.
  for (std::size_t cut = 0; cut < good.size(); cut += 97) CHECK_FALSE(synth_error(good.substr(0, cut)).empty());
}

TEST_CASE("psnap JSON profile: a sweep written before runs were kept reads as strides each a run of their own") {
  psnap::StreamProfiler profiler{psnap::PsnapKnobs{}};
  for (const auto& r : psnap_test::column_walk(24)) profiler.access(r);
  auto p = profiler.finish();
  REQUIRE(p.loops.size() == 1);
  auto& r = p.loops[0].regions[0];
  REQUIRE(r.sweeps.size() == 1);
  CHECK(r.sweeps[0] == psnap::Sweep{1024, 24 * 255, 24, 24});
  auto j = psnap::to_json(p);
  auto& rj = j["loops"][0]["regions"][0];
  CHECK(rj["sweeps"] == Json::array({Json::array({24 * 255, 1024, 24, 24, 0})}));
  rj.erase("sweeps");
  rj["sweep"] = Json::parse("[6120, 1024]");  // as hmtt wrote it before
  auto old = psnap::from_json(j);
  INFO((old.ok() ? std::string() : old.error().message));
  REQUIRE(old.ok());
  r.sweeps[0].runs = r.sweeps[0].count;
  r.sweeps[0].long_runs = 0;
  CHECK(*old == p);
}

TEST_CASE("psnap profile: loops from a store's I-Code events (loops=auto), a region map, or none") {
  const auto dir = std::filesystem::temp_directory_path() / ("hmtt_psnap_loops_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string store_path = (dir / "t.hmtt").string(), bare = (dir / "bare.hmtt").string();
  const std::string map = (dir / "t.map").string();
  std::vector<Reference> trace;
  for (std::uint64_t i = 0; i < 3000; ++i)
    trace.push_back({i, (i < 2000 ? 0x100000 + 8 * (i % 500) : 0x900000 + 4096 * (i % 7)), 4, Kind::Read, Origin::Unknown, 0});
  hmtt_test::write_icode_store(store_path, trace);  // HMTT_EVENT(2) at t = 0 and 2500, HMTT_EVENT(7) at 1000
  hmtt_test::write_icode_store(bare, trace, false);
  std::ofstream(map) << "# two loops\nregion 5 outer 0 1200\nregion 6 inner 1200 1800\n";

  auto run = [&](std::vector<std::string> knobs, const std::string& trace_path) {
    auto p = analysis::make_psnap_profiler();
    knobs.push_back("encoding=json");
    auto params = analysis::ProfileParams::parse(knobs, p->params());
    REQUIRE(params.ok());
    VectorSource src(trace);
    analysis::RunOptions ro;
    ro.progress = false;
    ro.trace_path = trace_path;
    return p->profile(src, *params, ro);
  };
  auto loops_of = [](const analysis::ProfileOutput& out) {
    auto j = analysis::parse_json_profile(out.data, "psnap");
    REQUIRE(j.ok());
    auto p = psnap::from_json(*j);
    REQUIRE(p.ok());
    return *p;
  };
  // auto: the store's events. Event 2's two entries are one loop of two instances.
  auto out = run({}, store_path);
  REQUIRE(out.ok());
  CHECK(out->summary["code_region_loops"] == 2);
  auto p = loops_of(*out);
  REQUIRE(p.loops.size() == 2);
  CHECK(p.loops[0].code_region == 2);
  CHECK(p.loops[0].instances == 2);
  CHECK(p.loops[0].references == 1000 + 500);
  CHECK(p.loops[1].code_region == 7);
  CHECK(p.loops[1].instances == 1);
  CHECK(p.loops[1].references == 1500);
  CHECK(p.order == std::vector<std::pair<std::uint32_t, std::uint64_t>>{{0, 1}, {1, 1}, {0, 1}});
  // The same references with no events (a store without any, or loops=none): one window, one loop.
  for (const auto& [knobs, path] : {std::pair{std::vector<std::string>{}, bare},
                                    std::pair{std::vector<std::string>{"loops=none"}, store_path}}) {
    auto plain = run(knobs, path);
    REQUIRE(plain.ok());
    CHECK(plain->summary["code_region_loops"] == 0);
    const auto q = loops_of(*plain);
    REQUIRE(q.loops.size() == 1);
    CHECK(q.loops[0].code_region == analysis::kOtherRegionId);
  }
  // A region map: regions 5 and 6 are loops; the rest (1800 .. 2999) is segmented.
  auto mapped = run({"loops=" + map}, store_path);
  REQUIRE(mapped.ok());
  const auto m = loops_of(*mapped);
  REQUIRE(m.loops.size() == 3);
  CHECK(m.loops[0].code_region == 5);
  CHECK(m.loops[0].references == 1200);
  CHECK(m.loops[1].code_region == 6);
  CHECK(m.loops[1].references == 600);
  CHECK(m.loops[2].code_region == analysis::kOtherRegionId);
  CHECK(m.loops[2].references == 1200);
  // Replay keeps each loop's instances at their own length: 1200, 600, then the rest.
  auto syn = analysis::make_psnap_profiler()->synthesize(mapped->data, {});
  REQUIRE(syn.ok());
  auto all = collect(**syn);
  REQUIRE(all.ok());
  REQUIRE(all->size() == trace.size());
  std::size_t sweep_first = 0, pages_after = 0;
  for (std::size_t i = 0; i < all->size(); ++i) {
    const bool pages = (*all)[i].address >= 0x900000;
    sweep_first += i < 1800 && !pages;
    pages_after += i >= 1800 && pages;
  }
  CHECK(sweep_first == 1800);  // regions 5 and 6 sweep only
  CHECK(pages_after == 1000);  // the rest holds every page stride
  // Errors name the knob: a store without program events given by name, a missing file, a bad map.
  const std::string bad_map = (dir / "bad.map").string();
  std::ofstream(bad_map) << "region 1 a 0 10\nregion 2 b 5 20\n";
  const std::string empty_map = (dir / "empty.map").string();
  std::ofstream(empty_map) << "# nothing but a comment\n";
  for (const auto& [value, says] : {std::pair{bare, std::string("has no program I-Code events")},
                                    std::pair{(dir / "nope").string(), std::string("cannot open")},
                                    std::pair{dir.string(), std::string("is a directory")},
                                    std::pair{empty_map, std::string("no 'region ID NAME T0 T1' lines")},
                                    std::pair{bad_map, std::string("overlap")}}) {
    auto e = run({"loops=" + value}, "");
    REQUIRE_FALSE(e.ok());
    INFO(e.error().message);
    CHECK(e.error().message.find(says) != std::string::npos);
    if (value != bad_map) CHECK(e.error().message.find("parameter 'loops'") != std::string::npos);
  }
  std::filesystem::remove_all(dir);
}
