// Regenerates the committed fuzz corpora (tests/fuzz/corpus/store_reader and
// store_chunk) when HMTT_STORE_CORPUS_DIR is set to the tests/fuzz/corpus
// directory; otherwise checks that the committed reader corpus still opens.
#include "store_test.h"

#include <sqlite3.h>

#include <fstream>

#include "hmtt/store/chunk.h"
#include "hmtt/store/store.h"
#include "hmtt/stream.h"

using namespace hmtt;
using namespace hmtt::store;
using hmtt::store::test::synthetic_reference;

namespace {

void write_small_store(const std::string& path, std::uint64_t refs, bool side_tables) {
  WriterOptions opt;
  opt.chunk_refs = 64;
  opt.page_size = 512;
  opt.overwrite = true;
  CaptureInfo info;
  info.tick_ps = 5000;
  info.source = "corpus";
  auto w = StoreWriter::create(path, info, opt);
  REQUIRE(w.ok());
  std::vector<Reference> v;
  for (std::uint64_t i = 0; i < refs; ++i) v.push_back(synthetic_reference(i));
  REQUIRE((*w)->write(v).ok());
  if (side_tables) {
    Event e{8, EventType::FifoLoss, 0, 1, 3, false, ""};
    REQUIRE((*w)->add_events({&e, 1}).ok());
    LinkStats l{0, 1, 10, 100, 1, 0, 0, 0, 3};
    REQUIRE((*w)->set_link_stats({&l, 1}).ok());
    Report r{50, 0, 2, 100, {4, 5}};
    REQUIRE((*w)->add_reports({&r, 1}).ok());
  }
  REQUIRE((*w)->finish().ok());
}

}  // namespace

TEST_CASE("fuzz corpus: regenerate on request, else the committed reader corpus opens") {
  const char* dir = std::getenv("HMTT_STORE_CORPUS_DIR");
  if (dir) {
    const std::string d = dir;
    write_small_store(d + "/store_reader/two-chunks.hmtt", 100, false);
    write_small_store(d + "/store_reader/side-tables.hmtt", 10, true);
    write_small_store(d + "/store_reader/empty.hmtt", 0, false);
    // A store whose chunk 1 has one flipped byte (for `hmtt info --verify` and the fuzzer).
    const std::string bad = d + "/store_reader/corrupt-chunk.hmtt";
    std::filesystem::copy_file(d + "/store_reader/two-chunks.hmtt", bad, std::filesystem::copy_options::overwrite_existing);
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(bad.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "UPDATE chunk SET data = substr(data, 1, 130) || x'ff' || substr(data, 132) WHERE id = 1",
                         nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    for (std::uint64_t n : {1, 3, 64}) {
      std::vector<Reference> v;
      for (std::uint64_t i = 0; i < n; ++i) v.push_back(synthetic_reference(i));
      std::vector<std::uint8_t> blob;
      REQUIRE(encode_chunk(v, blob).ok());
      std::ofstream(d + "/store_chunk/mixed-" + std::to_string(n) + ".bin", std::ios::binary)
          .write(reinterpret_cast<const char*>(blob.data()), static_cast<std::streamsize>(blob.size()));
    }
    return;
  }
  const std::string corpus = std::string(HMTT_SOURCE_DIR) + "/tests/fuzz/corpus/store_reader/two-chunks.hmtt";
  if (!std::filesystem::exists(corpus)) return;
  // Open a copy: opening may create side files next to the store.
  hmtt::store::test::TempDir tmp;
  const auto copy = tmp.file("c.hmtt");
  std::filesystem::copy_file(corpus, copy);
  auto r = StoreReader::open(copy);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  auto src = (*r)->references();
  REQUIRE(src.ok());
  auto all = collect(**src);
  REQUIRE(all.ok());
  REQUIRE(all->size() == 100);
  for (std::uint64_t i = 0; i < 100; ++i) CHECK((*all)[i] == synthetic_reference(i));
}
