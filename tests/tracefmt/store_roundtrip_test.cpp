// import -> store -> export: every text format comes back byte for byte from
// a canonical file, the store holds the counts the file has, open_trace reads
// a store like the file it came from, and the `hmtt import` / `hmtt export`
// verbs print the same counts (HMTT_BIN names the hmtt binary).
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "hmtt/store/store.h"
#include "hmtt/tracefmt/convert.h"
#include "hmtt/tracefmt/reader.h"
#include "hmtt/tracefmt/writer.h"
#include "../temp_dir.h"

using namespace hmtt;
using namespace hmtt::tracefmt;
namespace fs = std::filesystem;

namespace {

struct TempDir : hmtt::test::TempDir {
  TempDir() : hmtt::test::TempDir("hmtt-tracefmt-store-test") {}
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A canonical file of `format` holding `n` references of every kind the format has.
std::string canonical_text(Format format, std::size_t n) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(format) * 7919 + 1);
  std::vector<Reference> refs;
  std::uint64_t t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    t += rng() % 5;
    refs.push_back(Reference{t, rng() >> (rng() % 40), static_cast<std::uint32_t>(1 + rng() % 64),
                             static_cast<Kind>(rng() % 4), static_cast<Origin>(rng() % 4),
                             static_cast<std::uint16_t>(rng() % 16)});
  }
  std::string text;
  auto w = writer_to_string(&text, format);
  REQUIRE(w->write(refs).ok());
  REQUIRE(w->finish().ok());
  return text;
}

}  // namespace

TEST_CASE("import -> store -> export reproduces canonical files of every format byte for byte") {
  REQUIRE(store_supported());
  TempDir dir;
  for (Format f : kAllFormats) {
    if (f == Format::Store) continue;
    CAPTURE(format_name(f));
    std::string ext(format_name(f));
    std::string in = dir.file("in." + ext);
    std::string text = canonical_text(f, 200000);  // several store chunks
    std::ofstream(in, std::ios::binary) << text;
    std::string store_path = dir.file(ext + ".hmtt");
    ImportOptions iopts;
    iopts.format = f;  // dramsim3 has no extension of its own
    iopts.progress = false;
    auto imported = import_trace(in, store_path, iopts);
    REQUIRE_MESSAGE(imported.ok(), (imported.ok() ? "" : imported.error().message));
    CHECK(imported->counts.references == 200000);

    auto reader = store::StoreReader::open(store_path);
    REQUIRE(reader.ok());
    CHECK((*reader)->info().source == "import:" + ext);
    auto summary = (*reader)->summary();
    REQUIRE(summary.ok());
    CHECK(summary->references == imported->counts.references);
    for (int k = 0; k < kKindCount; ++k) CHECK(summary->by_kind[k] == imported->counts.by_kind[k]);

    // open_trace on the store yields what the file reader yields.
    auto from_store = open_trace(store_path);
    REQUIRE(from_store.ok());
    auto a = collect(**from_store);
    auto file_reader = open_reader(in, f);
    REQUIRE(file_reader.ok());
    auto b = collect(**file_reader);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(*a == *b);

    std::string out = dir.file("out." + ext);
    ExportOptions eopts;
    eopts.format = f;
    eopts.progress = false;
    auto exported = export_trace(store_path, out, eopts);
    REQUIRE_MESSAGE(exported.ok(), (exported.ok() ? "" : exported.error().message));
    CHECK(exported->input_format == Format::Store);
    CHECK(exported->counts.references == 200000);
    CHECK(read_file(out) == text);
  }
}

TEST_CASE("a failed import leaves no store behind, and never removes an existing file") {
  TempDir dir;
  std::string bad = dir.file("bad.din");
  std::ofstream(bad) << "0 10\n1 20\n9 30\n";
  ImportOptions opts;
  opts.progress = false;
  auto r = import_trace(bad, dir.file("bad.hmtt"), opts);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == bad + ":3: unknown label '9'");
  CHECK_FALSE(fs::exists(dir.file("bad.hmtt")));
  std::string good = dir.file("good.din");
  std::ofstream(good) << "0 10\n";
  std::string existing = dir.file("existing.hmtt");
  std::ofstream(existing) << "not a store";
  auto refused = import_trace(good, existing, opts);
  REQUIRE_FALSE(refused.ok());
  CHECK(read_file(existing) == "not a store");
}

TEST_CASE("a real lackey trace goes through the store and back as its access lines") {
  if (std::system("command -v valgrind >/dev/null 2>&1") != 0) {
    MESSAGE("valgrind not installed: test skipped");
    return;
  }
  TempDir dir;
  std::string input = dir.file("input.txt");
  {
    std::ofstream out(input);
    for (int i = 0; i < 200; ++i) out << "some text for gzip " << i << "\n";
  }
  std::string trace = dir.file("gzip.lackey");
  std::string cmd = "valgrind --tool=lackey --trace-mem=yes gzip -c '" + input + "' >/dev/null 2>'" + trace + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::string expect;
  {
    std::ifstream in(trace);
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("==", 0) != 0) expect += line + "\n";
  }
  ImportOptions iopts;
  iopts.progress = false;
  auto imported = import_trace(trace, dir.file("gzip.hmtt"), iopts);
  REQUIRE(imported.ok());
  CHECK(imported->format == Format::Lackey);
  ExportOptions eopts;
  eopts.format = Format::Lackey;
  eopts.progress = false;
  REQUIRE(export_trace(dir.file("gzip.hmtt"), dir.file("back.lackey"), eopts).ok());
  CHECK(read_file(dir.file("back.lackey")) == expect);
}

TEST_CASE("hmtt import and hmtt export print the counts by kind") {
  const char* bin = std::getenv("HMTT_BIN");
  if (bin == nullptr) {
    MESSAGE("HMTT_BIN not set: verb test skipped");
    return;
  }
  TempDir dir;
  std::string in = dir.file("t.din");
  std::ofstream(in) << "2 400\n0 1000\n1 1008\n2 404\n4 0\n";
  std::string store_path = dir.file("t.hmtt");
  std::string json = dir.file("import.json");
  std::string cmd = std::string(bin) + " import '" + in + "' -o '" + store_path + "' --json > '" + json + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::string out = read_file(json);
  CHECK(out.find("\"format\": \"din\"") != std::string::npos);
  CHECK(out.find("\"references\": 4") != std::string::npos);
  CHECK(out.find("\"by_kind\": {\"read\": 1, \"write\": 1, \"ifetch\": 2, \"modify\": 0}") != std::string::npos);
  CHECK(out.find("\"skipped_records\": 1") != std::string::npos);
  cmd = std::string(bin) + " export '" + store_path + "' --format csv -o '" + dir.file("t.csv") + "' --json > '" +
        json + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  out = read_file(json);
  CHECK(out.find("\"references\": 4") != std::string::npos);
  CHECK(read_file(dir.file("t.csv")) ==
        "time,address,kind,size,origin,source\n0,0x400,ifetch,4,unknown,0\n1,0x1000,read,4,unknown,0\n"
        "2,0x1008,write,4,unknown,0\n3,0x404,ifetch,4,unknown,0\n");
  // -o -: the trace on standard output, byte for byte the file's; the summary (JSON too) on stderr.
  cmd = std::string(bin) + " export '" + store_path + "' --format csv -o - --json > '" + dir.file("stdout.csv") +
        "' 2> '" + json + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK(read_file(dir.file("stdout.csv")) == read_file(dir.file("t.csv")));
  out = read_file(json);
  CHECK(out.find("\"output\": \"-\"") != std::string::npos);
  CHECK(out.find("\"references\": 4") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists("-"));
  // ... and it needs --format: a name "-" says none.
  cmd = std::string(bin) + " export '" + store_path + "' -o - > '" + dir.file("stdout.csv") + "' 2> '" + json + "'";
  CHECK(WEXITSTATUS(std::system(cmd.c_str())) == 1);
  CHECK(read_file(json).find("-: give --format") != std::string::npos);
  CHECK(read_file(dir.file("stdout.csv")).empty());
  // Malformed input: exit code 1 and the place of the error on stderr.
  std::ofstream(dir.file("bad.din")) << "0 10\nzz 1\n";
  cmd = std::string(bin) + " import '" + dir.file("bad.din") + "' -o '" + dir.file("bad.hmtt") + "' 2> '" + json + "'";
  int rc = std::system(cmd.c_str());
  CHECK(WEXITSTATUS(rc) == 1);
  CHECK(read_file(json) == "hmtt import: " + dir.file("bad.din") + ":2: bad label 'zz'\n");
}
