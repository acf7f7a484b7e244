// End-to-end checks of the analysis verbs through the built `hmtt` command:
// output shape, JSON that parses, exit codes scripts rely on.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

namespace {

struct Run {
  int status = -1;
  std::string out;
};

Run run(const std::string& args) {
  Run r;
  const std::string cmd = std::string(HMTT_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

}  // namespace

TEST_CASE("hmtt analyze --with all --json gives every analysis") {
  Run r = run("analyze demo:20000 --with all --json");
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["references"] == 20000);
  for (const char* t : {"cache", "surface", "reuse", "scr", "process", "dma", "bandwidth", "locality"})
    CHECK(j["analyses"].contains(t));
  CHECK(j["analyses"]["cache"]["hierarchies"].size() == 10);
  CHECK(j["analyses"]["surface"]["widths"].size() == 7);
  CHECK(j["analyses"]["surface"]["depths"].size() == 17);
}

TEST_CASE("hmtt analyze: bad input is a clear error with exit 1; bad usage exit 2") {
  Run bad = run("analyze demo:100 --with cache,nope");
  CHECK(bad.status == 1);
  CHECK(bad.out.find("hmtt analyze: unknown analysis 'nope'") != std::string::npos);
  Run nofile = run("analyze demo:100 --with cache --hierarchy /nonexistent/h.txt");
  CHECK(nofile.status == 1);
  CHECK(nofile.out.find("/nonexistent/h.txt: cannot open hierarchy file") != std::string::npos);
  Run usage = run("analyze --no-such-option");
  CHECK(usage.status == 2);
  Run demo = run("analyze demo:abc");
  CHECK(demo.status == 1);
  CHECK(demo.out.find("expected demo[:REFERENCES[:SEED]]") != std::string::npos);
}

TEST_CASE("hmtt compare: identical traces pass --max-error 0, different ones exit 3") {
  Run same = run("compare demo:20000 demo:20000 --json --max-error 0");
  REQUIRE(same.status == 0);
  auto j = nlohmann::json::parse(same.out);
  CHECK(j["hierarchy_error"]["max_abs"] == 0.0);
  CHECK(j["lru_error"]["points"] == 68);
  CHECK(j["locality_surface_distance"] == 0.0);
  Run diff = run("compare demo:20000 demo:20000:5 --max-error 0");
  CHECK(diff.status == 3);
  CHECK(diff.out.find("LRU sweep (68 fully-associative caches)") != std::string::npos);
}

TEST_CASE("hmtt analyze --show-hierarchy prints PSnAP Table 1 in the file format") {
  Run r = run("analyze --show-hierarchy");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("hierarchy psnap-1-PowerPC\n  L1 32K 128 2 lru write-back write-allocate\n") == 0);
  CHECK(r.out.find("hierarchy psnap-10") != std::string::npos);
}

TEST_CASE("hmtt profile / synth: the IRM baseline round trip through files, and its errors") {
  const std::string dir = "profile_verbs_test.d";
  REQUIRE(std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str()) == 0);
  Run list = run("profile --list --json");
  REQUIRE(list.status == 0);
  auto methods = nlohmann::json::parse(list.out);
  bool has_irm = false;
  for (const auto& m : methods) has_irm |= m["method"] == "irm";
  CHECK(has_irm);

  Run prof = run("profile demo:20000 --method irm -o " + dir + "/p.json --json");
  REQUIRE(prof.status == 0);
  auto pj = nlohmann::json::parse(prof.out);
  CHECK(pj["summary"]["references"] == 20000);
  Run again = run("profile demo:20000 --method irm -o " + dir + "/p.json");
  CHECK(again.status == 1);
  CHECK(again.out.find("exists (give --overwrite)") != std::string::npos);

  Run syn = run("synth " + dir + "/p.json -o " + dir + "/s.din --length 5000 --json");
  REQUIRE(syn.status == 0);
  auto sj = nlohmann::json::parse(syn.out);
  CHECK(sj["method"] == "irm");
  CHECK(sj["references"] == 5000);
  Run store = run("synth " + dir + "/p.json -o " + dir + "/s.hmtt --compare demo:20000 --json");
  REQUIRE(store.status == 0);
  auto cj = nlohmann::json::parse(store.out);
  CHECK(cj["references"] == 20000);
  CHECK(cj["compare"].contains("lru_error"));
  // IRM loses all order: it cannot be perfect on the LRU sweep.
  Run strict = run("synth " + dir + "/p.json -o " + dir + "/s2.hmtt --compare demo:20000 --max-error 0");
  CHECK(strict.status == 3);

  Run unknown = run("profile demo:100 --method nope -o " + dir + "/x.json");
  CHECK(unknown.status == 2);
  CHECK(unknown.out.find("unknown method 'nope'") != std::string::npos);
  Run knob = run("profile demo:100 --method irm --param nope=1 -o " + dir + "/x.json");
  CHECK(knob.status == 2);
  CHECK(knob.out.find("'nope'") != std::string::npos);
  REQUIRE(std::system(("echo '{\"a\": 1}' > " + dir + "/bad.json").c_str()) == 0);
  Run bad = run("synth " + dir + "/bad.json -o " + dir + "/y.din");
  CHECK(bad.status == 1);
  CHECK(bad.out.find("not a profile of any method") != std::string::npos);
}
