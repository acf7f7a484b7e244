// The hmtt-batch VFS's WAL read-ahead during checkpoints (core/store/src/batch_vfs.h): the
// checkpoints read their frames through it, and what they copy into the database is exactly what
// was committed, also when a reader holds a checkpoint part way and when the log restarts over
// bytes read ahead before.
#include <sqlite3.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "batch_vfs.h"
#include "sqlite.h"
#include "store_test.h"

namespace hmtt::store::test {
namespace {

std::vector<std::uint8_t> random_blob(std::mt19937_64& rng, std::size_t bytes) {
  std::vector<std::uint8_t> b(bytes);
  for (auto& x : b) x = static_cast<std::uint8_t>(rng());
  return b;
}

sql::ReadAheadStats read_ahead_stats(const sql::Db& db) {
  sql::ReadAheadStats s;
  REQUIRE(sqlite3_file_control(db.get(), "main", sql::kReadAheadStatsFcntl, &s) == SQLITE_OK);
  return s;
}

// Every row of `path`'s table `t`, read with SQLite's default VFS (no read-ahead).
std::vector<std::vector<std::uint8_t>> rows_of(const std::string& path) {
  sql::Db db;
  REQUIRE(db.open(path, SQLITE_OPEN_READONLY).ok());
  sql::Stmt st;
  REQUIRE(st.prepare(db, "SELECT b FROM t ORDER BY id").ok());
  std::vector<std::vector<std::uint8_t>> rows;
  for (;;) {
    auto r = st.step();
    REQUIRE(r.ok());
    if (!*r) break;
    const auto b = st.blob(0);
    rows.emplace_back(b.begin(), b.end());
  }
  return rows;
}

// Copies the rest of the WAL into the file, closes the connection and reads every row back.
std::vector<std::vector<std::uint8_t>> close_and_read(sql::Db& db, const std::string& path) {
  REQUIRE(db.exec("PRAGMA wal_checkpoint(TRUNCATE)").ok());
  db.close();
  return rows_of(path);
}

// The single value of a prepared count(*).
std::uint64_t count_of(sql::Stmt& count) {
  auto r = count.step();
  REQUIRE(r.ok());
  const std::uint64_t n = count.u64(0);
  count.reset();
  return n;
}

// Commits `count` random BLOBs, one transaction each (of 20-300 KB, or of `bytes` if given), and
// returns them.
std::vector<std::vector<std::uint8_t>> commit_blobs(sql::Db& db, std::mt19937_64& rng, int count,
                                                    std::size_t bytes = 0) {
  sql::Stmt ins;
  REQUIRE(ins.prepare(db, "INSERT INTO t(b) VALUES(?1)").ok());
  std::vector<std::vector<std::uint8_t>> blobs;
  for (int i = 0; i < count; ++i) {
    blobs.push_back(random_blob(rng, bytes ? bytes : 20000 + rng() % 280000));
    ins.bind_blob(1, blobs.back());
    REQUIRE(ins.run().ok());
  }
  return blobs;
}

// A batch-VFS connection in WAL mode that checkpoints every `pages` pages of 4 KiB.
void open_batch(sql::Db& db, const std::string& path, int pages = 64) {
  REQUIRE(sql::batch_vfs_name() != nullptr);
  REQUIRE(db.open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, sql::batch_vfs_name()).ok());
  REQUIRE(db.exec("PRAGMA page_size=4096").ok());
  REQUIRE(db.exec("PRAGMA journal_mode=WAL").ok());
  REQUIRE(db.exec("PRAGMA synchronous=OFF").ok());
  REQUIRE(db.exec("PRAGMA wal_autocheckpoint=" + std::to_string(pages)).ok());
  REQUIRE(db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, b BLOB)").ok());
}

}  // namespace

TEST_CASE("checkpoints read the WAL ahead and copy exactly what was committed") {
  TempDir dir;
  const auto path = dir.file("ra.db");
  std::mt19937_64 rng(11);
  sql::Db db;
  open_batch(db, path);
  const auto blobs = commit_blobs(db, rng, 60);
  const sql::ReadAheadStats s = read_ahead_stats(db);
  // About 9 MB through a 256 KiB log: dozens of checkpoints, each log restart rewriting the
  // offsets the previous ones read ahead.
  CHECK(s.checkpoints >= 20);
  CHECK(s.reads == s.served);          // every frame read of a checkpoint came from the buffer
  CHECK(s.served >= 20 * s.fills);     // a 256 KiB fill serves up to 63 frames of 4 KiB (30 here: small checkpoints)
  CHECK(close_and_read(db, path) == blobs);
}

// Equal commits, each checkpointed and the log restarted: every generation of the WAL puts the
// same pages at the same offsets, so a buffer kept from one checkpoint to the next would hand the
// next one the previous generation's frames.
TEST_CASE("nothing read ahead for one checkpoint is served to the next") {
  TempDir dir;
  const auto path = dir.file("gens.db");
  std::mt19937_64 rng(13);
  sql::Db db;
  open_batch(db, path, 1);
  const auto blobs = commit_blobs(db, rng, 40, 100000);
  CHECK(read_ahead_stats(db).checkpoints >= 39);
  CHECK(close_and_read(db, path) == blobs);
}

TEST_CASE("a checkpoint held part way by a reader copies only committed frames, and later ones finish it") {
  TempDir dir;
  const auto path = dir.file("held.db");
  std::mt19937_64 rng(12);
  sql::Db db;
  open_batch(db, path);
  auto blobs = commit_blobs(db, rng, 10);
  // A reader's open snapshot stops every checkpoint at its frame while the writer goes on.
  sql::Db reader;
  REQUIRE(reader.open(path, SQLITE_OPEN_READONLY).ok());
  REQUIRE(reader.exec("BEGIN").ok());
  sql::Stmt count;
  REQUIRE(count.prepare(reader, "SELECT count(*) FROM t").ok());
  CHECK(count_of(count) == 10);
  const auto more = commit_blobs(db, rng, 25);
  blobs.insert(blobs.end(), more.begin(), more.end());
  CHECK(count_of(count) == 10);  // the reader's snapshot is unchanged
  REQUIRE(reader.exec("COMMIT").ok());
  reader.close();
  const auto later = commit_blobs(db, rng, 25);
  blobs.insert(blobs.end(), later.begin(), later.end());
  CHECK(read_ahead_stats(db).checkpoints >= 10);
  CHECK(close_and_read(db, path) == blobs);
}

TEST_CASE("a connection without a WAL has no read-ahead counters") {
  TempDir dir;
  sql::Db db;
  REQUIRE(db.open(dir.file("plain.db"), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, sql::batch_vfs_name()).ok());
  REQUIRE(db.exec("PRAGMA journal_mode=DELETE").ok());
  REQUIRE(db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, b BLOB)").ok());
  sql::ReadAheadStats s;
  CHECK(sqlite3_file_control(db.get(), "main", sql::kReadAheadStatsFcntl, &s) == SQLITE_NOTFOUND);
}

}  // namespace hmtt::store::test
