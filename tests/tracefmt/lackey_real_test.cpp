// A lackey trace of a real program (gzip under valgrind, made by the test)
// imports with exactly the reference counts the file has, counted here by an
// independent scan of the line prefixes.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "hmtt/tracefmt/reader.h"

using namespace hmtt;
using namespace hmtt::tracefmt;
namespace fs = std::filesystem;

TEST_CASE("lackey trace of gzip imports with the file's own counts") {
  if (std::system("command -v valgrind >/dev/null 2>&1 && command -v gzip >/dev/null 2>&1") != 0) {
    MESSAGE("valgrind or gzip not installed: test skipped (scripts/deps.sh installs valgrind)");
    return;
  }
  fs::path dir = fs::temp_directory_path() / ("hmtt-lackey-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string input = (dir / "input.txt").string();
  std::string trace = (dir / "gzip.lackey").string();
  {
    std::ofstream out(input);
    for (int i = 0; i < 300; ++i) out << "line " << i << " of the file gzip compresses under lackey " << i * i << "\n";
  }
  std::string cmd = "valgrind --tool=lackey --trace-mem=yes gzip -c '" + input + "' >/dev/null 2>'" + trace + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);

  // Independent oracle: the first characters of each line.
  std::uint64_t count[kKindCount] = {};
  std::uint64_t valgrind_lines = 0;
  std::uint64_t lines = 0;
  {
    std::ifstream in(trace);
    std::string line;
    while (std::getline(in, line)) {
      ++lines;
      std::string head = line.substr(0, 3);
      if (head == "I  ") ++count[static_cast<int>(Kind::IFetch)];
      else if (head == " L ") ++count[static_cast<int>(Kind::Read)];
      else if (head == " S ") ++count[static_cast<int>(Kind::Write)];
      else if (head == " M ") ++count[static_cast<int>(Kind::Modify)];
      else if (line.rfind("==", 0) == 0) ++valgrind_lines;
    }
  }
  REQUIRE(count[static_cast<int>(Kind::IFetch)] > 10000);
  REQUIRE(count[static_cast<int>(Kind::Read)] > 1000);
  REQUIRE(count[static_cast<int>(Kind::Write)] > 1000);

  auto reader = open_reader(trace);  // format told from the content (.lackey name here)
  REQUIRE(reader.ok());
  CHECK((*reader)->format() == Format::Lackey);
  auto refs = collect(**reader);
  REQUIRE(refs.ok());
  const ReaderCounts& c = (*reader)->counts();
  for (int k = 0; k < kKindCount; ++k) {
    CAPTURE(kind_name(static_cast<Kind>(k)));
    CHECK(c.by_kind[k] == count[k]);
  }
  CHECK(c.references == refs->size());
  CHECK(c.references + valgrind_lines == lines);
  CHECK(c.ignored_lines == valgrind_lines);
  CHECK(c.lines == lines);
  // Times are the record indices 0..n-1 and no size is 0 (lackey prints the access size).
  std::size_t bad_time = 0, zero_size = 0;
  for (std::size_t i = 0; i < refs->size(); ++i) {
    bad_time += (*refs)[i].time != i;
    zero_size += (*refs)[i].size == 0;
  }
  CHECK(bad_time == 0);
  CHECK(zero_size == 0);
  fs::remove_all(dir);
}
