// The profiling-and-synthesis contract (profiler.h): knob parsing, the JSON
// profile header, and the IRM baseline's profile/synthesis round trip.
#include <doctest/doctest.h>

#include <map>

#include "hmtt/analysis/profiler.h"
#include "traces.h"

using namespace hmtt;
using namespace hmtt::analysis;

namespace {
const std::vector<ProfileParam> kKnobs = {{"block", "64", ""}, {"rate", "0.5", ""}, {"on", "false", ""}};
}

TEST_CASE("ProfileParams: defaults, overrides, suffixes and errors that name the key") {
  auto p = ProfileParams::parse({"block=4K"}, kKnobs);
  REQUIRE(p.ok());
  CHECK(*p->u64("block") == 4096);
  CHECK(*p->real("rate") == doctest::Approx(0.5));
  CHECK(*p->flag("on") == false);

  auto unknown = ProfileParams::parse({"blocks=1"}, kKnobs);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message.find("'blocks'") != std::string::npos);
  CHECK_FALSE(ProfileParams::parse({"noequals"}, kKnobs).ok());
  CHECK_FALSE(ProfileParams::parse({"=1"}, kKnobs).ok());

  auto bad = ProfileParams::parse({"block=12x", "rate=abc", "on=maybe"}, kKnobs);
  REQUIRE(bad.ok());
  CHECK(bad->u64("block").error().message.find("'block'") != std::string::npos);
  CHECK_FALSE(bad->real("rate").ok());
  CHECK_FALSE(bad->flag("on").ok());
  auto overflow = ProfileParams::parse({"block=99999999999999999999"}, kKnobs);
  REQUIRE(overflow.ok());
  CHECK_FALSE(overflow->u64("block").ok());
  auto big = ProfileParams::parse({"block=17179869184G"}, kKnobs);  // 2^34 * 2^30 overflows
  REQUIRE(big.ok());
  CHECK_FALSE(big->u64("block").ok());
}

TEST_CASE("JSON profiles: header, method sniffing, and errors for wrong input") {
  auto p = ProfileParams::parse({}, kKnobs);
  REQUIRE(p.ok());
  const std::string doc = json_profile_header("irm", *p).dump();
  CHECK(json_profile_method(doc) == "irm");
  CHECK(json_profile_method("{\"method\": \"irm\"}") == "");  // no format field
  CHECK(json_profile_method("not json") == "");
  CHECK(json_profile_method("[1,2]") == "");
  CHECK(parse_json_profile(doc, "irm").ok());
  auto wrong = parse_json_profile(doc, "psnap");
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().message.find("'irm'") != std::string::npos);
  CHECK_FALSE(parse_json_profile("{\"format\": \"hmtt-profile\"", "irm").ok());
  // A "format" that is not a string is not ours, not a crash (libFuzzer found {"format":1,...},
  // which threw from inside the JSON library).
  CHECK(json_profile_method("{\"format\":1,\"method\":\"hhnhmm\"}") == "");
  auto numeric = parse_json_profile("{\"format\":1,\"method\":\"hhnhmm\"}", "hhnhmm");
  REQUIRE_FALSE(numeric.ok());
  CHECK(numeric.error().message == "profile: no top-level \"format\": \"hmtt-profile\"");
  // Only version 1 is read; any other is refused with the field and the value named (every
  // JSON method: irm, chameleon, psnap, hhnhmm share this reader).
  auto error_with_version = [&](const Json& version) {
    Json j = Json::parse(doc);
    if (version.is_discarded()) j.erase("version");
    else j["version"] = version;
    auto r = parse_json_profile(j.dump(), "irm");
    return r.ok() ? std::string() : r.error().message;
  };
  CHECK(error_with_version(1) == "");
  CHECK(error_with_version(7) == "profile: version: 7 is not a version this hmtt reads (1)");
  CHECK(error_with_version(0) == "profile: version: 0 is not a version this hmtt reads (1)");
  CHECK(error_with_version(-1) == "profile: version: -1 is not a version this hmtt reads (1)");
  CHECK(error_with_version(1.0) == "profile: version: 1.0 is not a version this hmtt reads (1)");
  CHECK(error_with_version("1") == "profile: version: \"1\" is not a version this hmtt reads (1)");
  CHECK(error_with_version(Json(std::string(100, 'x'))).starts_with("profile: version: \"xxxx"));
  CHECK(error_with_version(Json(std::string(100, 'x'))).size() < 100);
  CHECK(error_with_version(Json(Json::value_t::discarded)) == "profile: version: missing");
  auto irm = make_irm_profiler();
  Json seven = Json::parse(doc);
  seven["version"] = 7;
  auto synth = irm->synthesize(seven.dump(), {});
  REQUIRE_FALSE(synth.ok());
  CHECK(synth.error().message == "profile: version: 7 is not a version this hmtt reads (1)");
}

TEST_CASE("IRM baseline: the synthetic stream keeps block popularity, length and write share") {
  auto profiler = make_irm_profiler();
  // Block 0 three times as popular as block 1; block 2 rare.
  std::vector<Reference> trace;
  for (int i = 0; i < 30000; ++i) trace.push_back(testing::ref(0x1000 + 8 * (i % 8), i % 4 == 0 ? Kind::Write : Kind::Read, i));
  for (int i = 0; i < 10000; ++i) trace.push_back(testing::ref(0x1040, Kind::Read, 30000 + i));
  for (int i = 0; i < 100; ++i) trace.push_back(testing::ref(0x9000, Kind::Read, 40000 + i));
  VectorSource src(trace);
  auto params = ProfileParams::parse({}, profiler->params());
  REQUIRE(params.ok());
  auto prof = profiler->profile(src, *params, RunOptions{.batch = 1000, .progress = false, .limit = 0});
  REQUIRE(prof.ok());
  CHECK(prof->summary["distinct_blocks"] == 3);
  CHECK(profiler->recognizes(prof->data));

  auto syn = profiler->synthesize(prof->data, SynthOptions{.length = 0, .seed = 7});
  REQUIRE(syn.ok());
  auto refs = collect(**syn);
  REQUIRE(refs.ok());
  CHECK(refs->size() == trace.size());
  std::map<std::uint64_t, std::size_t> count;
  std::size_t writes = 0;
  for (const auto& r : *refs) {
    ++count[r.address / 64];
    writes += r.kind == Kind::Write;
  }
  CHECK(count.size() == 3);
  const double share0 = static_cast<double>(count[0x1000 / 64]) / static_cast<double>(refs->size());
  CHECK(share0 == doctest::Approx(30000.0 / 40100).epsilon(0.02));
  CHECK(static_cast<double>(writes) / static_cast<double>(refs->size()) ==
        doctest::Approx(7500.0 / 40100).epsilon(0.05));

  // Same seed, same stream; explicit length honoured.
  auto again = profiler->synthesize(prof->data, SynthOptions{.length = 0, .seed = 7});
  REQUIRE(again.ok());
  CHECK(*collect(**again) == *refs);
  auto shorter = profiler->synthesize(prof->data, SynthOptions{.length = 123, .seed = 7});
  REQUIRE(shorter.ok());
  CHECK(collect(**shorter)->size() == 123);

  // max_blocks keeps the most popular ones.
  VectorSource src2(trace);
  auto top1 = ProfileParams::parse({"max_blocks=1"}, profiler->params());
  REQUIRE(top1.ok());
  auto prof1 = profiler->profile(src2, *top1, RunOptions{.batch = 1000, .progress = false, .limit = 0});
  REQUIRE(prof1.ok());
  auto syn1 = profiler->synthesize(prof1->data, SynthOptions{.length = 1000, .seed = 1});
  REQUIRE(syn1.ok());
  auto refs1 = collect(**syn1);  // a named Result: range-for over *temporary would dangle
  REQUIRE(refs1.ok());
  CHECK(refs1->size() == 1000);
  for (const auto& r : *refs1) CHECK(r.address == 0x1000);
}

TEST_CASE("IRM baseline: a malformed profile is an error, never a crash") {
  auto profiler = make_irm_profiler();
  const char* bad[] = {
      "{\"format\":\"hmtt-profile\",\"version\":1,\"method\":\"irm\"}",
      "{\"format\":\"hmtt-profile\",\"version\":1,\"method\":\"irm\",\"block_bytes\":0,\"write_fraction\":0,\"references\":1,\"blocks\":[]}",
      "{\"format\":\"hmtt-profile\",\"version\":1,\"method\":\"irm\",\"block_bytes\":64,\"write_fraction\":0,\"references\":1,\"blocks\":[[1]]}",
      "{\"format\":\"hmtt-profile\",\"version\":1,\"method\":\"irm\",\"block_bytes\":64,\"write_fraction\":0,\"references\":1,\"blocks\":[[1,\"x\"]]}",
      "{\"format\":\"hmtt-profile\",\"version\":1,\"method\":\"irm\",\"block_bytes\":64,\"write_fraction\":0,\"references\":1,"
      "\"blocks\":[[1,18446744073709551615],[2,18446744073709551615]]}",
  };
  for (const char* doc : bad) {
    CAPTURE(doc);
    auto r = profiler->synthesize(doc, {});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("version") == std::string::npos);  // refused for its own fault
  }
  // An empty block list synthesises an empty stream.
  auto empty = profiler->synthesize(
      "{\"format\":\"hmtt-profile\",\"version\":1,\"method\":\"irm\",\"block_bytes\":64,\"write_fraction\":0,\"references\":5,\"blocks\":[]}",
      {});
  REQUIRE(empty.ok());
  CHECK(collect(**empty)->empty());
}
