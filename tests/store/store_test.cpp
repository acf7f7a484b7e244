// The store end to end: write a capture, read it back whole and filtered,
// side tables, views from SQL, and damaged or foreign files.
#include "store_test.h"

#include <sqlite3.h>

#include <fstream>
#include <atomic>
#include <random>
#include <thread>

#include "hmtt/store/chunk.h"
#include "hmtt/store/store.h"
#include "hmtt/stream.h"

using namespace hmtt;
using namespace hmtt::store;
using hmtt::store::test::synthetic_reference;
using hmtt::store::test::TempDir;

namespace {

std::vector<Reference> make_trace(std::uint64_t n) {
  std::vector<Reference> v(n);
  for (std::uint64_t i = 0; i < n; ++i) v[i] = synthetic_reference(i);
  return v;
}

void write_store(const std::string& path, const std::vector<Reference>& refs, WriterOptions opt = {}) {
  CaptureInfo info;
  info.tick_ps = 5000;
  info.source = "test";
  info.ddr_standard = "DDR2-400";
  auto w = StoreWriter::create(path, info, opt);
  REQUIRE_MESSAGE(w.ok(), (w.ok() ? "" : w.error().message));
  // Uneven batches cross chunk boundaries.
  std::size_t at = 0, batch = 1;
  while (at < refs.size()) {
    std::size_t n = std::min(batch, refs.size() - at);
    Status st = (*w)->write(std::span<const Reference>(refs).subspan(at, n));
    REQUIRE_MESSAGE(st.ok(), (st.ok() ? "" : st.error().message));
    at += n;
    batch = batch * 2 + 3;
  }
  Status st = (*w)->finish();
  REQUIRE_MESSAGE(st.ok(), (st.ok() ? "" : st.error().message));
  CHECK((*w)->committed_references() == refs.size());
}

std::unique_ptr<StoreReader> open_store(const std::string& path) {
  auto r = StoreReader::open(path);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return std::move(*r);
}

std::vector<Reference> read_all(const StoreReader& r, const Filter& f = {}) {
  auto src = r.references(f);
  REQUIRE_MESSAGE(src.ok(), (src.ok() ? "" : src.error().message));
  auto all = collect(**src);
  REQUIRE_MESSAGE(all.ok(), (all.ok() ? "" : all.error().message));
  return std::move(*all);
}

std::string read_error(const StoreReader& r, const Filter& f = {}) {
  auto src = r.references(f);
  if (!src) return src.error().message;
  auto all = collect(**src);
  return all.ok() ? std::string("ok") : all.error().message;
}

// Runs SQL on a store file (the way a user of the sqlite3 shell would) and returns the first column of each row.
std::vector<std::string> sql(const std::string& path, const std::string& query) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  std::vector<std::string> rows;
  sqlite3_stmt* st = nullptr;
  int rc = sqlite3_prepare_v2(db, query.c_str(), -1, &st, nullptr);
  REQUIRE_MESSAGE(rc == SQLITE_OK, sqlite3_errmsg(db));
  while (sqlite3_step(st) == SQLITE_ROW) {
    const auto* t = sqlite3_column_text(st, 0);
    rows.emplace_back(t ? reinterpret_cast<const char*>(t) : "NULL");
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return rows;
}

}  // namespace

TEST_CASE("write then read back every reference, in order") {
  TempDir dir;
  const auto path = dir.file("a.hmtt");
  const auto refs = make_trace(100000);
  for (bool background : {true, false}) {
    WriterOptions opt;
    opt.chunk_refs = 4096;
    opt.background = background;
    opt.overwrite = true;
    write_store(path, refs, opt);
    auto r = open_store(path);
    CHECK(r->info().tick_ps == 5000);
    CHECK(r->info().ddr_standard == "DDR2-400");
    CHECK(read_all(*r) == refs);
    auto s = r->summary();
    REQUIRE(s.ok());
    CHECK(s->references == 100000);
    CHECK(s->chunks == (100000 + 4095) / 4096);
    CHECK(s->by_kind[0] == 50000);
    CHECK(s->by_kind[1] == 25000);
    CHECK(s->by_kind[2] == 25000);
    CHECK(s->first_time == refs.front().time);
    CHECK(s->last_time == refs.back().time);
    CHECK(*r->meta("finished") == "1");
    CHECK(*r->meta("references") == "100000");
  }
  // A finished store is one file: no -wal left beside it.
  CHECK_FALSE(std::filesystem::exists(path + "-wal"));
  CHECK(looks_like_store(path));
}

TEST_CASE("a board-like capture's packed chunks (format 3) read back through the writer and reader") {
  // Line reads and writes, two streams and random lines, time steps of 1-4 ticks (one in eight up to
  // 40): the time and kind planes are packed (docs/store.md, "Packed planes").
  std::mt19937_64 rng(9);
  std::vector<Reference> refs(300000);
  std::uint64_t t = 0, s0 = 0x10000000, s1 = 0x30000000;
  for (auto& r : refs) {
    t += 1 + (rng() % 8 == 0 ? rng() % 40 : rng() % 4);
    r.time = t;
    r.size = 64;
    const auto pick = rng() % 10;
    if (pick < 4) {
      r.address = s0, s0 += 64, r.kind = Kind::Read;
    } else if (pick < 7) {
      r.address = s1, s1 += 64, r.kind = Kind::Write;
    } else {
      r.address = (rng() & 0xFFFFFFFFULL) & ~std::uint64_t{63};
      r.kind = rng() % 4 == 0 ? Kind::Write : Kind::Read;
    }
  }
  TempDir dir;
  const auto path = dir.file("board.hmtt");
  WriterOptions opt;
  opt.chunk_refs = 100000;  // planes over 64 KiB: the probe's guess decides
  write_store(path, refs, opt);
  // Every chunk BLOB says format 3 (bytes 4-5, little-endian), which writers use only for a BLOB with a packed plane.
  CHECK(sql(path, "SELECT DISTINCT hex(substr(data, 5, 2)) FROM chunk") == std::vector<std::string>{"0300"});
  auto r = open_store(path);
  CHECK(read_all(*r) == refs);
  // The plane census (`hmtt info --planes`): per column, planes and how they were stored.
  std::vector<std::uint64_t> seen;
  auto census = r->planes([&](const PlaneCensus& c) { seen.push_back(c.references); });
  REQUIRE(census.ok());
  CHECK(seen == std::vector<std::uint64_t>{100000, 200000, 300000});
  CHECK(census->chunks == 3);
  CHECK(census->references == refs.size());
  CHECK(census->blob_bytes == r->summary()->compressed_bytes);
  const ColumnBytes& time = census->columns[static_cast<int>(Column::TimeDelta)];
  const ColumnBytes& kind = census->columns[static_cast<int>(Column::KindOrigin)];
  CHECK(time.planes == 3);
  CHECK(time.by_encoding[static_cast<int>(PlaneEncoding::Packed)] == 3);
  CHECK(time.raw_bytes == refs.size());
  CHECK(kind.by_encoding[static_cast<int>(PlaneEncoding::Packed)] == 3);
  CHECK(census->columns[static_cast<int>(Column::Size)].planes == 0);  // every size is 64: no plane
  std::uint64_t stored = 0;
  for (const auto& c : census->columns) stored += c.stored_bytes;
  CHECK(stored < census->blob_bytes);
}

TEST_CASE("filters by time window, address range and kind match a brute-force filter") {
  TempDir dir;
  const auto path = dir.file("f.hmtt");
  const auto refs = make_trace(60000);
  WriterOptions opt;
  opt.chunk_refs = 1000;
  write_store(path, refs, opt);
  auto r = open_store(path);
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    Filter f;
    const std::uint64_t tmax = refs.back().time + 10;
    f.time_begin = rng() % tmax;
    f.time_end = trial % 4 == 0 ? UINT64_MAX : f.time_begin + rng() % (tmax / 3);
    if (trial % 3 == 0) {
      f.addr_begin = 0x10000000 + rng() % 0x100000;
      f.addr_end = f.addr_begin + rng() % 0x20000000;
    }
    f.kind_mask = trial % 5 == 0 ? 0xF : static_cast<unsigned>(1 + rng() % 15);
    std::vector<Reference> want;
    for (const auto& x : refs) {
      if (x.time >= f.time_begin && x.time < f.time_end && x.address >= f.addr_begin && x.address < f.addr_end &&
          ((f.kind_mask >> static_cast<unsigned>(x.kind)) & 1)) {
        want.push_back(x);
      }
    }
    CHECK(read_all(*r, f) == want);
  }
  Filter empty;
  empty.time_begin = 50;
  empty.time_end = 50;
  CHECK(read_all(*r, empty).empty());
}

namespace {
// Another connection holding the store's write lock (BEGIN IMMEDIATE) until release() or the end
// of its scope: the writer's next transaction finds the file busy (after its 5 s busy timeout).
class ForeignWriteLock {
 public:
  explicit ForeignWriteLock(const std::string& path) {
    REQUIRE(sqlite3_open(path.c_str(), &db_) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK);
  }
  ForeignWriteLock(const ForeignWriteLock&) = delete;
  ForeignWriteLock& operator=(const ForeignWriteLock&) = delete;
  ~ForeignWriteLock() { release(); }
  void release() {
    if (!db_) return;
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
    db_ = nullptr;
  }

 private:
  sqlite3* db_ = nullptr;
};
}  // namespace

// Side-table calls made while the writer's threads run are queued for its committer (the caller's
// thread does not wait for a chunk's commit and checkpoint): they must still land in call order,
// each with the rows as they were at the call, and a failure must not go unreported.
TEST_CASE("side-table calls between chunks are committed in call order with the rows as called") {
  TempDir dir;
  const auto path = dir.file("order.hmtt");
  CaptureInfo info;
  WriterOptions opt;
  opt.chunk_refs = 1000;
  auto w = StoreWriter::create(path, info, opt);
  REQUIRE(w.ok());
  StoreWriter& sw = **w;
  std::vector<Reference> batch(2500);
  std::uint64_t next = 0;
  for (std::uint64_t round = 0; round < 60; ++round) {
    for (auto& r : batch) r = synthetic_reference(next++);
    REQUIRE(sw.write(batch).ok());
    // Times out of call order, so that the order the reader finds (by id) is the calls'.
    std::vector<Event> ev = {{1000 - round, EventType::Tag, 0, 0, round, false, "round " + std::to_string(round)}};
    REQUIRE(sw.add_events(ev).ok());
    ev[0].value = 999999;  // after the call: must not reach the file
    std::vector<LinkStats> ls = {{0, 0, round, round * 10, 0, 0, 0, 0, 0}};
    REQUIRE(sw.set_link_stats(ls).ok());
    ls[0].frames = 999999;
    REQUIRE(sw.set_meta("round", std::to_string(round)).ok());
  }
  REQUIRE(sw.finish().ok());
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "SELECT value, note FROM event ORDER BY id", -1, &st, nullptr) == SQLITE_OK);
  std::uint64_t want = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    CHECK(static_cast<std::uint64_t>(sqlite3_column_int64(st, 0)) == want);
    CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 1))) == "round " + std::to_string(want));
    ++want;
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  CHECK(want == 60);
  auto r = open_store(path);
  auto links = r->links();
  REQUIRE(links.ok());
  REQUIRE(links->size() == 1);
  CHECK((*links)[0].frames == 59);
  CHECK(*r->meta("round") == "59");
  auto s = r->summary();
  REQUIRE(s.ok());
  CHECK(s->references == next);
}

TEST_CASE("a side-table call that fails on the committer fails finish() with the reason, naming the file") {
  TempDir dir;
  const auto path = dir.file("locked.hmtt");
  CaptureInfo info;
  auto w = StoreWriter::create(path, info);
  REQUIRE(w.ok());
  ForeignWriteLock other(path);
  std::vector<Event> ev = {{5, EventType::Tag, 0, 0, 1, false, "t"}};
  REQUIRE((*w)->add_events(ev).ok());  // queued
  // The committer's failure reaches a later call (within seconds: it is the next thing it does).
  Status later;
  for (int i = 0; i < 1000 && later.ok(); ++i) {
    later = (*w)->set_meta("probe", "1");
    if (later.ok()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE_FALSE(later.ok());
  CHECK(later.error().message.find(path) != std::string::npos);
  CHECK(later.error().message.find("locked") != std::string::npos);
  // With the lock gone, finish() still reports it: the writer stopped at the failure.
  other.release();
  const Status f = (*w)->finish();
  REQUIRE_FALSE(f.ok());
  CHECK(f.error().message == later.error().message);
}

TEST_CASE("queued side-table calls are bounded: a caller ahead of the committer waits") {
  TempDir dir;
  const auto path = dir.file("bounded.hmtt");
  CaptureInfo info;
  auto w = StoreWriter::create(path, info);
  REQUIRE(w.ok());
  // The committer's first side-table call waits for the write lock another connection holds (the
  // busy timeout, 5 s) and then fails. The calls behind it queue; once the queue is full the next
  // call waits, and so learns of the failure instead of queueing without end.
  ForeignWriteLock other(path);
  std::vector<Event> ev(1000, Event{5, EventType::Tag, 0, 0, 1, false, "t"});
  int ok = 0;
  Status first_error;
  for (int i = 0; i < 40 && first_error.ok(); ++i) {
    Status s = (*w)->add_events(ev);
    if (s.ok())
      ++ok;
    else
      first_error = s;
  }
  other.release();
  CHECK(ok >= 1);
  CHECK(ok <= 16);
  REQUIRE_FALSE(first_error.ok());
  CHECK(first_error.error().message.find("locked") != std::string::npos);
  CHECK_FALSE((*w)->finish().ok());
}

TEST_CASE("side tables round-trip and read from the plain SQL views") {
  TempDir dir;
  const auto path = dir.file("s.hmtt");
  CaptureInfo info;
  info.source = "sim";
  auto w = StoreWriter::create(path, info);
  REQUIRE(w.ok());
  StoreWriter& sw = **w;
  std::vector<Event> events = {{10, EventType::ConfigSpace, 0, 0, 0x40, true, ""},
                               {20, EventType::FifoLoss, 0, 1, 17, false, ""},
                               {30, EventType::Tag, 0, 0, 5, false, "phase 2"}};
  REQUIRE(sw.add_events(events).ok());
  std::vector<LinkStats> links = {{0, 0, 100, 3000, 2, 1, 0, 0, 17}, {0, 1, 98, 2900, 0, 0, 1, 0, 0}};
  REQUIRE(sw.set_link_stats(links).ok());
  links[1].frames = 99;
  REQUIRE(sw.set_link_stats(std::span<const LinkStats>(links).subspan(1)).ok());  // replaces link 1
  std::vector<PageMapEntry> pm = {{1, 5, 42, 0x7f000, 0x1234, 0xabc000, false}, {2, 9, 42, 0x7f000, 0x1234, 0xabc000, true}};
  REQUIRE(sw.add_page_map(pm).ok());
  std::vector<DmaEntry> dma = {{1, 7, "eth0", 0x9000000, 1536, 2, false}};
  REQUIRE(sw.add_dma(dma).ok());
  std::vector<Process> procs = {{42, "gzip", 5, 900}};
  REQUIRE(sw.add_processes(procs).ok());
  std::vector<Report> reports = {{100, 0, 3, 1000, {1, 2, 3}}, {200, 0, 4, 1000, {}}};
  REQUIRE(sw.add_reports(reports).ok());
  REQUIRE(sw.add_profile({"psnap", "gzip", "json", "{\"a\":1}"}).ok());
  REQUIRE(sw.set_meta("note", "hello").ok());
  std::vector<Reference> refs = {{10, 0x40, 64, Kind::Read, Origin::Unknown, 0}, {25, 0x80, 64, Kind::Write, Origin::Unknown, 0}};
  REQUIRE(sw.write(refs).ok());
  REQUIRE(sw.finish().ok());

  auto r = open_store(path);
  auto ev = r->events();
  REQUIRE(ev.ok());
  REQUIRE(ev->size() == 3);
  CHECK((*ev)[1].type == EventType::FifoLoss);
  CHECK((*ev)[1].value == 17);
  CHECK((*ev)[0].write);
  CHECK((*ev)[2].note == "phase 2");
  auto ls = r->links();
  REQUIRE(ls.ok());
  REQUIRE(ls->size() == 2);
  CHECK((*ls)[1].frames == 99);
  CHECK((*ls)[0].fifo_lost_records == 17);
  auto p = r->page_map();
  REQUIRE(p.ok());
  REQUIRE(p->size() == 2);
  CHECK((*p)[1].unmap);
  CHECK((*p)[0].pte_addr == 0xabc000);
  auto d = r->dma();
  REQUIRE(d.ok());
  REQUIRE(d->size() == 1);
  CHECK((*d)[0].device == "eth0");
  CHECK((*d)[0].direction == 2);
  auto pr = r->processes();
  REQUIRE(pr.ok());
  CHECK((*pr)[0].name == "gzip");
  auto rep = r->reports();
  REQUIRE(rep.ok());
  REQUIRE(rep->size() == 2);
  CHECK((*rep)[0].values == std::vector<std::uint64_t>{1, 2, 3});
  CHECK((*rep)[1].values.empty());
  auto prof = r->profiles();
  REQUIRE(prof.ok());
  CHECK((*prof)[0].data == "{\"a\":1}");
  CHECK(*r->meta("note") == "hello");
  CHECK_FALSE(r->meta("absent").ok());
  auto s = r->summary();
  REQUIRE(s.ok());
  CHECK(s->events == 3);

  // The views, as a sqlite3 shell user sees them.
  CHECK(sql(path, "SELECT type || ':' || value FROM v_events") ==
        std::vector<std::string>{"config-space:64", "fifo-loss:17", "tag:5"});
  CHECK(sql(path, "SELECT type || '=' || events FROM v_event_counts") ==
        std::vector<std::string>{"config-space=1", "fifo-loss=1", "tag=1"});
  CHECK(sql(path, "SELECT link || ':' || frames || ':' || fifo_lost_records FROM v_links") ==
        std::vector<std::string>{"0:100:17", "1:99:0"});
  CHECK(sql(path, "SELECT refs || ' ' || a_min || ' ' || a_max || ' ' || n_read || ' ' || n_write FROM v_chunks") ==
        std::vector<std::string>{"2 0x40 0x80 1 1"});
  CHECK(sql(path, "SELECT vpage || ' ' || action FROM v_page_map") == std::vector<std::string>{"0x7f000 map", "0x7f000 unmap"});
  CHECK(sql(path, "SELECT device || ' ' || phys || ' ' || direction FROM v_dma") ==
        std::vector<std::string>{"eth0 0x9000000 from-device"});
  CHECK(sql(path, "SELECT unit || ':' || n_values || ':' || ifnull(\"values\", '') FROM v_reports") ==
        std::vector<std::string>{"3:3:1 2 3", "4:0:"});
  CHECK(sql(path, "SELECT refs || ' ' || t_first || ' ' || t_last FROM v_summary") == std::vector<std::string>{"2 10 25"});
  CHECK(sql(path, "SELECT method || ' ' || bytes FROM v_profiles") == std::vector<std::string>{"psnap 7"});
  CHECK(sql(path, "PRAGMA user_version") == std::vector<std::string>{"1"});
}

TEST_CASE("create() leaves the empty store in place, in WAL mode, and no temporary file") {
  // The schema is written under PATH.creating with no journal and switched to WAL there
  // (docs/store.md, Durability): once create() returns, PATH is a WAL-mode store (file header
  // bytes 18 and 19 are 2) and nothing of the temporary file is left.
  TempDir dir;
  const auto path = dir.file("fresh.hmtt");
  {
    std::ofstream stale(path + ".creating-journal");  // from a creation killed earlier
    stale << "stale";
  }
  auto w = StoreWriter::create(path, {}, {});
  REQUIRE_MESSAGE(w.ok(), (w.ok() ? "" : w.error().message));
  for (const char* suffix : {".creating", ".creating-journal", ".creating-wal", ".creating-shm", "-journal"}) {
    CAPTURE(suffix);
    CHECK_FALSE(std::filesystem::exists(path + suffix));
  }
  unsigned char header[100] = {};
  {
    std::ifstream f(path, std::ios::binary);
    f.read(reinterpret_cast<char*>(header), sizeof header);
    REQUIRE(f.gcount() == 100);
  }
  CHECK(std::string(reinterpret_cast<const char*>(header), 15) == "SQLite format 3");
  CHECK(header[18] == 2);  // write version: WAL
  CHECK(header[19] == 2);  // read version: WAL
  REQUIRE((*w)->write(make_trace(1000)).ok());
  REQUIRE((*w)->finish().ok());
  auto r = open_store(path);
  CHECK(read_all(*r).size() == 1000);
  CHECK(*r->meta("finished") == "1");
}

TEST_CASE("writer errors: time order, existing file, bad options") {
  TempDir dir;
  const auto path = dir.file("e.hmtt");
  {
    WriterOptions opt;
    opt.chunk_refs = 4;
    auto w = StoreWriter::create(path, {}, opt);
    REQUIRE(w.ok());
    std::vector<Reference> refs = {{5, 0, 0, Kind::Read, Origin::Unknown, 0}, {6, 0, 0, Kind::Read, Origin::Unknown, 0},
                                   {7, 0, 0, Kind::Read, Origin::Unknown, 0}, {8, 0, 0, Kind::Read, Origin::Unknown, 0},
                                   {3, 0, 0, Kind::Read, Origin::Unknown, 0}};
    // The bad reference fails the write that carries it, and that write takes nothing.
    Status st = (*w)->write(refs);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().message.find("chunk 1: reference 0: time 3 is before the previous reference's time 8") !=
          std::string::npos);
    CHECK(st.error().message.find(path) != std::string::npos);
    REQUIRE((*w)->write(std::span(refs).first(2)).ok());
    const std::vector<Reference> late = {refs[2], refs[4]};  // 7, then 3: the 3 would be chunk 0's fourth
    Status inside = (*w)->write(late);
    REQUIRE_FALSE(inside.ok());
    CHECK(inside.error().message.find("chunk 0: reference 3: time 3 is before the previous reference's time 7") !=
          std::string::npos);
    REQUIRE((*w)->write(std::span(refs).subspan(2, 2)).ok());  // 7, 8: chunk 0 is full
    Status wrong = (*w)->write(std::span(refs).subspan(2, 1));  // 7 after 8, across the chunk boundary
    REQUIRE_FALSE(wrong.ok());
    CHECK(wrong.error().message.find("chunk 1: reference 0: time 7 is before the previous reference's time 8") !=
          std::string::npos);
    REQUIRE((*w)->finish().ok());
  }
  {
    auto r = StoreReader::open(path);
    REQUIRE(r.ok());
    CHECK((*r)->summary()->references == 4);  // only the accepted references
  }
  auto again = StoreWriter::create(path, {});
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().message.find("exists") != std::string::npos);
  WriterOptions zero;
  zero.chunk_refs = 0;
  CHECK_FALSE(StoreWriter::create(dir.file("z.hmtt"), {}, zero).ok());
}

namespace {

// Everything a stream gives with a buffer of `size` references, and its error ("ok" if none).
// Each call must fill the buffer whole unless the stream ends (or fails) within it.
std::pair<std::vector<Reference>, std::string> read_with(const StoreReader& r, std::size_t size, const Filter& f = {}) {
  auto src = r.references(f);
  REQUIRE(src.ok());
  std::vector<Reference> buf(size), all;
  for (;;) {
    auto got = (*src)->read(buf);
    if (!got) {
      auto again = (*src)->read(buf);  // an error stays
      CHECK_FALSE(again.ok());
      return {all, got.error().message};
    }
    if (*got == 0) break;
    all.insert(all.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(*got));
  }
  auto after = (*src)->read(buf);
  CHECK((after.ok() && *after == 0));
  return {all, "ok"};
}

}  // namespace

// The caller's thread decodes some chunks straight into its buffer and copies others from the
// read-ahead slots: every buffer size, whole and filtered, must give the same references.
TEST_CASE("the stream gives the same references for any buffer size, whole and filtered") {
  TempDir dir;
  const auto path = dir.file("b.hmtt");
  const auto refs = make_trace(30011);
  WriterOptions opt;
  opt.chunk_refs = 1000;
  write_store(path, refs, opt);
  auto r = open_store(path);
  Filter f;
  f.time_begin = refs[1500].time;
  f.time_end = refs[27000].time;
  f.kind_mask = 0b0101;
  std::vector<Reference> want_f;
  for (const auto& x : refs) {
    if (x.time >= f.time_begin && x.time < f.time_end && ((f.kind_mask >> static_cast<unsigned>(x.kind)) & 1)) {
      want_f.push_back(x);
    }
  }
  for (std::size_t size : {std::size_t{1}, std::size_t{7}, std::size_t{999}, std::size_t{1000}, std::size_t{1001},
                           std::size_t{3005}, std::size_t{4096}, std::size_t{30011}, std::size_t{40000}}) {
    INFO("buffer of " << size);
    auto [all, err] = read_with(*r, size);
    CHECK(err == "ok");
    CHECK(all == refs);
    auto [some, err_f] = read_with(*r, size, f);
    CHECK(err_f == "ok");
    CHECK(some == want_f);
  }
  // One chunk (no read-ahead thread), and one reference.
  const auto one = dir.file("one.hmtt");
  write_store(one, std::vector<Reference>(refs.begin(), refs.begin() + 1000), opt);
  auto r1 = open_store(one);
  for (std::size_t size : {std::size_t{1}, std::size_t{999}, std::size_t{1000}, std::size_t{5000}}) {
    CHECK(read_with(*r1, size).first == std::vector<Reference>(refs.begin(), refs.begin() + 1000));
  }
  const auto single = dir.file("single.hmtt");
  write_store(single, {refs[0]}, opt);
  auto rs = open_store(single);
  CHECK(read_with(*rs, 1).first == std::vector<Reference>{refs[0]});
  CHECK(read_with(*rs, 4096).first == std::vector<Reference>{refs[0]});
}

// A damaged chunk ends the stream at that chunk: every reference before it, none of it, then the
// error, whichever thread decoded it (chunk 0 is always the caller's own; later ones may be either).
TEST_CASE("a damaged chunk ends the stream after every reference before it, for any buffer size") {
  TempDir dir;
  const auto refs = make_trace(20000);
  WriterOptions opt;
  opt.chunk_refs = 2000;
  struct Damage {
    const char* sql;
    std::size_t chunk;
    const char* error;
  };
  const Damage damages[] = {
      {"UPDATE chunk SET data = substr(data, 1, 150) || x'ff' || substr(data, 152) WHERE id = 0", 0, "checksum mismatch"},
      {"UPDATE chunk SET data = substr(data, 1, 150) || x'ff' || substr(data, 152) WHERE id = 3", 3, "checksum mismatch"},
      {"UPDATE chunk SET data = substr(data, 1, 150) || x'ff' || substr(data, 152) WHERE id = 9", 9, "checksum mismatch"},
      {"UPDATE chunk SET t_last = t_last + 1 WHERE id = 0", 0, "decoded last time"},
      {"UPDATE chunk SET t_last = t_last + 1 WHERE id = 2", 2, "decoded last time"},
      {"UPDATE chunk SET refs = refs + 1, n_read = n_read + 1 WHERE id = 5", 5, "the index row says 2001 references"},
  };
  int i = 0;
  for (const auto& d : damages) {
    const auto path = dir.file("d" + std::to_string(i++) + ".hmtt");
    write_store(path, refs, opt);
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, d.sql, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    auto r = open_store(path);
    for (std::size_t size : {std::size_t{1}, std::size_t{1999}, std::size_t{2000}, std::size_t{2001},
                             std::size_t{4096}, std::size_t{20000}}) {
      INFO(d.sql << ", buffer of " << size);
      auto [got, err] = read_with(*r, size);
      CHECK(err.find(path + ": chunk " + std::to_string(d.chunk) + ": ") != std::string::npos);
      CHECK(err.find(d.error) != std::string::npos);
      CHECK(got == std::vector<Reference>(refs.begin(), refs.begin() + static_cast<std::ptrdiff_t>(2000 * d.chunk)));
    }
  }
}

TEST_CASE("damaged and foreign files give an error naming the file and what is wrong") {
  TempDir dir;
  const auto path = dir.file("d.hmtt");
  const auto refs = make_trace(20000);
  WriterOptions opt;
  opt.chunk_refs = 2000;
  write_store(path, refs, opt);

  SUBCASE("a flipped byte inside chunk 3's BLOB") {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "UPDATE chunk SET data = substr(data, 1, 150) || x'ff' || substr(data, 152) WHERE id = 3",
                         nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    auto r = open_store(path);
    std::string msg = read_error(*r);
    CHECK(msg.find(path + ": chunk 3: ") != std::string::npos);
    CHECK(msg.find("checksum mismatch") != std::string::npos);
    // Chunk skipping: a window that ends before chunk 3 never touches it.
    Filter early;
    early.time_end = refs[5000].time;
    CHECK(read_error(*r, early) == "ok");
    Filter late;
    late.time_begin = refs[10000].time;
    CHECK(read_error(*r, late) == "ok");
  }
  SUBCASE("an index row that disagrees with its BLOB") {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "UPDATE chunk SET t_last = t_last + 1 WHERE id = 2", nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    auto r = open_store(path);
    std::string msg = read_error(*r);
    CHECK(msg.find("chunk 2: decoded last time") != std::string::npos);
  }
  SUBCASE("a schema version this reader does not know") {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "PRAGMA user_version = 7", nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    auto r = StoreReader::open(path);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message == path + ": store schema version 7, this hmtt reads version 1");
  }
  SUBCASE("a truncated file") {
    const auto cut = dir.file("cut.hmtt");
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (std::size_t keep : {std::size_t{0}, std::size_t{50}, std::size_t{4096}, bytes.size() / 2, bytes.size() - 100}) {
      std::ofstream(cut, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(keep));
      auto r = StoreReader::open(cut);
      std::string msg = r.ok() ? read_error(**r) : r.error().message;
      INFO("kept " << keep << " bytes: " << msg);
      CHECK(msg != "ok");
      CHECK(msg.find(cut) != std::string::npos);
    }
  }
  SUBCASE("a file that is not a store") {
    const auto text = dir.file("t.txt");
    std::ofstream(text) << "hello\n";
    auto r = StoreReader::open(text);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message == text + ": not an hmtt store (no SQLite header at offset 0)");
    CHECK_FALSE(looks_like_store(text));
    sqlite3* db = nullptr;
    const auto other = dir.file("other.db");
    REQUIRE(sqlite3_open(other.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "CREATE TABLE x(a)", nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    auto o = StoreReader::open(other);
    REQUIRE_FALSE(o.ok());
    CHECK(o.error().message.find("not an hmtt store (application_id 0") != std::string::npos);
    auto missing = StoreReader::open(dir.file("missing.hmtt"));
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().message.find("no such file") != std::string::npos);
  }
}

// The writer's connection batches the WAL's appends and the checkpoints' page writes (batch_vfs.h):
// commits far larger than its 2 MiB buffer and than the 0x1ffff bytes the default VFS writes in one
// call must still land whole, at every page size.
TEST_CASE("commits larger than the batching buffer round-trip at every page size") {
  TempDir dir;
  std::mt19937_64 rng(7);
  std::vector<Reference> refs(600000);
  std::uint64_t t = 0;
  for (auto& r : refs) {
    t += 1 + rng() % 3;
    r.time = t;
    r.address = rng() & 0xFFFFFFFFFFFFULL;  // byte addresses at random: ~7 residual bytes each
    r.size = 1 + static_cast<std::uint32_t>(rng() % 64);
    r.kind = static_cast<Kind>(rng() % 4);
    r.origin = Origin::Cpu;
  }
  for (std::uint32_t page : {512u, 4096u, 65536u}) {
    CAPTURE(page);
    const auto path = dir.file("big-" + std::to_string(page) + ".hmtt");
    WriterOptions opt;
    opt.chunk_refs = 1u << 18;  // ~3 MB BLOBs: one commit spans several buffers and many write pieces
    opt.page_size = page;
    write_store(path, refs, opt);
    auto r = open_store(path);
    auto s = r->summary();
    REQUIRE(s.ok());
    CHECK(s->compressed_bytes > 2u * (2u << 20));  // the commits really were larger than the buffer
    CHECK(read_all(*r) == refs);
  }
}

// The WAL's checkpoints run on a thread of their own (wal_checkpointer.h) every checkpoint_bytes of
// new WAL, and the committer waits for one at twice that: the WAL file never grows much past it
// (one commit beyond), however long the capture, and every chunk arrives intact.
TEST_CASE("the background checkpoints hold the WAL under twice checkpoint_bytes") {
  TempDir dir;
  const auto path = dir.file("ckpt.hmtt");
  WriterOptions opt;
  opt.chunk_refs = 8192;
  opt.checkpoint_bytes = 256u << 10;
  auto w = StoreWriter::create(path, {}, opt);
  REQUIRE(w.ok());
  std::mt19937_64 rng(5);
  std::vector<Reference> refs(2'000'000);
  std::uint64_t t = 0;
  for (auto& r : refs) {
    t += 1 + rng() % 3;
    r.time = t;
    r.address = rng() & 0xFFFFFFFFFFC0ULL;  // random lines: ~5 bytes a reference, ~10 MB in all
    r.size = 64;
    r.kind = Kind::Read;
    r.origin = Origin::Cpu;
  }
  std::uintmax_t wal_max = 0;
  for (std::size_t at = 0; at < refs.size(); at += 50'000) {
    REQUIRE((*w)->write(std::span<const Reference>(refs).subspan(at, 50'000)).ok());
    std::error_code ec;
    wal_max = std::max(wal_max, std::filesystem::file_size(path + "-wal", ec));
  }
  REQUIRE((*w)->finish().ok());
  w->reset();
  MESSAGE("largest WAL seen: " << wal_max << " bytes");
  CHECK(wal_max > 0);
  // 512 KiB, plus the commit that crossed it (a chunk of 8192 random references is ~45 KB). With
  // the checkpoints running back to back and no limit, the log would never restart and grow to
  // the whole capture.
  CHECK(wal_max < (512u << 10) + (128u << 10));
  CHECK(read_all(*open_store(path)) == refs);
  WriterOptions bad;
  bad.checkpoint_bytes = 1000;
  auto rejected = StoreWriter::create(dir.file("bad.hmtt"), {}, bad);
  REQUIRE_FALSE(rejected.ok());
  CHECK(rejected.error().message.find("checkpoint_bytes 1000 is below 64 KiB") != std::string::npos);
}

// A reader opened while the writer runs (its own connection, SQLite's default VFS) must find every
// chunk the writer has reported committed, each intact: the batched frames reach the file before
// SQLite publishes their commit.
TEST_CASE("a reader opened during a capture sees every committed chunk intact") {
  TempDir dir;
  const auto path = dir.file("live.hmtt");
  WriterOptions opt;
  opt.chunk_refs = 8192;
  auto w = StoreWriter::create(path, {}, opt);
  REQUIRE(w.ok());
  constexpr std::uint64_t kTotal = 3'000'000;
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> written{0};
  std::thread producer([&] {
    std::vector<Reference> batch(5000);
    std::uint64_t next = 0;
    while (next < kTotal) {
      for (auto& r : batch) r = synthetic_reference(next++);
      if (!(*w)->write(batch).ok()) break;
      written = next;
    }
    done = true;
  });
  int opens = 0;
  std::uint64_t max_seen = 0;
  bool all_ok = true;
  std::string first_error;
  while (!done || opens < 3) {
    const std::uint64_t committed = (*w)->committed_references();
    auto r = StoreReader::open(path);
    ++opens;
    if (!r) {
      all_ok = false;
      first_error = r.error().message;
      break;
    }
    auto src = (*r)->references();
    auto all = src ? collect(**src) : Result<std::vector<Reference>>(src.error());
    if (!all) {
      all_ok = false;
      first_error = all.error().message;
      break;
    }
    if (all->size() < committed) {
      all_ok = false;
      first_error = "read " + std::to_string(all->size()) + " references, the writer had committed " +
                    std::to_string(committed);
      break;
    }
    for (std::uint64_t i = 0; i < all->size(); ++i) {
      if (!((*all)[i] == synthetic_reference(i))) {
        all_ok = false;
        first_error = "reference " + std::to_string(i) + " differs";
        break;
      }
    }
    if (!all_ok) break;
    max_seen = std::max<std::uint64_t>(max_seen, all->size());
    if (done && opens >= 3) break;
  }
  producer.join();
  CHECK_MESSAGE(all_ok, first_error);
  CHECK(opens >= 3);
  MESSAGE("opens " << opens << ", most references seen " << max_seen);
  CHECK(max_seen > 0);  // some opens happened while chunks were being committed
  REQUIRE((*w)->finish().ok());
  auto r = open_store(path);
  CHECK(read_all(*r).size() == kTotal);
}
