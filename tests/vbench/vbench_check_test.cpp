// hmtt::vbench: the guest console's REGION lines and the errors for bad inputs.
// The checks themselves run on a real guest in the vbench tier (vbench_e2e).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "hmtt/vbench/vbench_check.h"

using hmtt::vbench::parse_regions;

TEST_CASE("REGION lines: every field, in order; other console lines ignored") {
  const char* console =
      "[    1.0] random kernel line\n"
      "HMTT-VBENCH-REGION workload=seq-read pid=97 vaddr=0x7f595c693000 bytes=4194304 count=65536 flush_bytes=4194304\n"
      "HMTT-VBENCH-DONE workload=seq-read check=1024\n"
      "HMTT-VBENCH-REGION workload=quicksort pid=117 vaddr=0x7ff2473a7000 bytes=1048576 count=262144\n";
  auto r = parse_regions(console);
  REQUIRE(r.ok());
  REQUIRE(r->size() == 2);
  CHECK((*r)[0].workload == "seq-read");
  CHECK((*r)[0].pid == 97);
  CHECK((*r)[0].vaddr == 0x7f595c693000ull);
  CHECK((*r)[0].bytes == 4194304);
  CHECK((*r)[0].count == 65536);
  CHECK((*r)[1].workload == "quicksort");
  CHECK((*r)[1].count == 262144);
  CHECK(parse_regions("")->empty());
}

TEST_CASE("malformed REGION lines are errors naming the line") {
  auto missing = parse_regions("x\nHMTT-VBENCH-REGION workload=seq-read pid=1 bytes=4096\n");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("console line 2") != std::string::npos);
  auto bad = parse_regions("HMTT-VBENCH-REGION workload=a pid=x vaddr=0x1 bytes=1\n");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("pid=x") != std::string::npos);
  CHECK_FALSE(parse_regions("HMTT-VBENCH-REGION workload\n").ok());
}

TEST_CASE("check_vbench names the input it cannot use") {
  namespace fs = std::filesystem;
  const auto dir = fs::temp_directory_path() / "hmtt_vbench_check_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string d = dir.string() + "/";
  hmtt::vbench::VbenchInputs in{d + "vbench.hmtt", d + "llc.csv", d + "llc.json", d + "console.txt"};
  auto none = hmtt::vbench::check_vbench(in);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().message.find("llc.json") != std::string::npos);
  std::ofstream(d + "llc.json") << "{\"base\": 1}";
  auto partial = hmtt::vbench::check_vbench(in);
  REQUIRE_FALSE(partial.ok());
  CHECK(partial.error().message.find("'size'") != std::string::npos);
  std::ofstream(d + "llc.json") << "not json";
  CHECK(hmtt::vbench::check_vbench(in).error().message.find("not JSON") != std::string::npos);
  std::ofstream(d + "llc.json")
      << "{\"base\": 1, \"size\": 1, \"misses\": 1, \"writebacks\": 1, \"config_accesses\": 1, \"written\": 1, "
         "\"written_user\": 1}";
  std::ofstream(d + "console.txt") << "HMTT-VBENCH-REGION workload=a\n";
  CHECK(hmtt::vbench::check_vbench(in).error().message.find("console.txt") != std::string::npos);
  std::ofstream(d + "console.txt") << "";
  CHECK(hmtt::vbench::check_vbench(in).error().message.find("vbench.hmtt") != std::string::npos);
  fs::remove_all(dir);
}
