// StoreReader: opens a store read-only, checks it is one (application id,
// schema version, chunk index), and streams references chunk by chunk,
// skipping chunks whose indexed ranges miss the filter.
#include <algorithm>
#include <array>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "hmtt/store/chunk.h"
#include "hmtt/store/store.h"
#include "reference_buffer.h"
#include "schema.h"
#include "sqlite.h"

namespace hmtt::store {
namespace {

struct ChunkRow {
  std::uint64_t id = 0;
  std::uint64_t refs = 0;
  std::uint64_t t_first = 0, t_last = 0, a_min = 0, a_max = 0;
  std::uint32_t kind_mask = 0;
  std::uint64_t by_kind[kKindCount] = {};
  std::uint64_t blob_bytes = 0;
};

Status open_readonly(sql::Db& db, const std::string& path) {
  return db.open(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX);
}

bool passes(const Filter& f, unsigned kinds, const Reference& r) {
  return r.time >= f.time_begin && r.time < f.time_end && r.address >= f.addr_begin && r.address < f.addr_end &&
         ((kinds >> static_cast<unsigned>(r.kind)) & 1u);
}

// Keeps the references of refs[0, n) that pass `filter` at the front; returns how many.
std::size_t filter_in_place(const Filter& filter, Reference* refs, std::size_t n) {
  const unsigned kinds = filter.kind_mask & 0xF;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (passes(filter, kinds, refs[i])) refs[kept++] = refs[i];
  }
  return kept;
}

// Whether every reference of the chunk passes the filter (then none needs a test).
bool whole_chunk(const ChunkRow& row, const Filter& filter) {
  const unsigned kinds = filter.kind_mask & 0xF;
  return row.t_first >= filter.time_begin && row.t_last < filter.time_end && row.a_min >= filter.addr_begin &&
         row.a_max < filter.addr_end && (row.kind_mask & ~kinds) == 0;
}

// One chunk's BLOB, checked against its index row and decoded: the unit of work of the stream.
class ChunkWork {
 public:
  Status open(const std::string& path) {
    HMTT_TRY(open_readonly(db_, path));
    // Chunk BLOBs are read straight from the mapped file instead of page by page through read().
    HMTT_TRY(db_.exec("PRAGMA mmap_size=" + std::to_string(std::uint64_t{1} << 40)));
    HMTT_TRY(select_.prepare(db_, "SELECT data FROM chunk WHERE id = ?1"));
    open_ = true;
    return Status::success();
  }
  bool is_open() const { return open_; }

  // Reads and checks chunk `row` (BLOB, and its count, first and last time against the row); its
  // references are then taken with next(). Every check is made before any reference is decoded.
  // The BLOB stays in the statement until the next load().
  Status load(const ChunkRow& row) {
    const std::string where = db_.path() + ": chunk " + std::to_string(row.id) + ": ";
    select_.reset();
    select_.bind_u64(1, row.id);
    auto has = select_.step();
    if (!has) return make_error(where + has.error().message);
    if (!*has) return make_error(where + "row vanished while reading");
    Status st = decoder_.load(select_.blob(0));
    if (!st) return make_error(where + st.error().message);
    if (decoder_.refs() != row.refs || decoder_.t_first() != row.t_first) {
      return make_error(where + "the index row says " + std::to_string(row.refs) + " references from time " +
                        std::to_string(row.t_first) + ", the BLOB holds " + std::to_string(decoder_.refs()) +
                        " from time " + std::to_string(decoder_.t_first()));
    }
    if (decoder_.t_last() != row.t_last) {
      return make_error(where + "decoded last time " + std::to_string(decoder_.t_last()) +
                        " differs from the index row's t_last " + std::to_string(row.t_last));
    }
    return Status::success();
  }
  std::size_t next(std::span<Reference> out) { return decoder_.next(out); }
  bool done() const { return decoder_.decoded() == decoder_.refs(); }

  // load(), then the whole chunk into `out` (grown when too small), keeping the references that pass `filter`.
  Status decode(const ChunkRow& row, const Filter& filter, detail::ReferenceBuffer& out, std::size_t& kept) {
    HMTT_TRY(load(row));
    if (out.capacity() < row.refs) out = detail::ReferenceBuffer(row.refs);
    const std::size_t n = decoder_.next({out.data(), static_cast<std::size_t>(row.refs)});
    select_.reset();
    kept = whole_chunk(row, filter) ? n : filter_in_place(filter, out.data(), n);
    return Status::success();
  }

 private:
  sql::Db db_;
  sql::Stmt select_;
  ChunkDecoder decoder_;
  bool open_ = false;
};

// The references of the chunks in `rows` that pass `filter`, in order. Chunks decode independently.
// The caller's thread decodes the chunk it is on straight into the buffer read() is given, while a
// read-ahead thread (each with its own connection) decodes later chunks whole into slots, which
// read() then copies out; at most kDepth chunks from the caller's on are in flight. The read-ahead
// thread takes the farthest free chunk in that window, leaving the near ones to the caller, so that
// about half the chunks skip the slot and its copy (the copy was 14 % of the stream's CPU time).
// When its chunk is still being decoded by the read-ahead thread, the caller decodes a free chunk of
// the window into its slot instead of waiting.
class ChunkStream final : public ReferenceSource {
 public:
  ChunkStream(std::string path, std::vector<ChunkRow> rows, const Filter& filter)
      : path_(std::move(path)), rows_(std::move(rows)), filter_(filter), state_(rows_.size(), kFree),
        limit_(rows_.size()) {}

  ~ChunkStream() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }

  Result<std::size_t> read(std::span<Reference> out) override {
    if (failed_) return error_;
    if (!started_) start();
    std::size_t filled = 0;
    while (filled < out.size() && current_ < rows_.size()) {
      if (direct_) {
        // The chunk this thread decodes: straight into `out`, filtered there when needed.
        const std::size_t got = own_.next(out.subspan(filled));
        filled += whole_ ? got : filter_in_place(filter_, out.data() + filled, got);
        if (own_.done()) {
          direct_ = false;
          advance();
        }
        continue;
      }
      if (have_slot_) {
        Slot& slot = slots_[current_ % kDepth];
        const std::size_t take = std::min(out.size() - filled, slot.kept - slot_pos_);
        if (take > 0) std::memcpy(out.data() + filled, slot.refs.data() + slot_pos_, take * sizeof(Reference));
        filled += take;
        slot_pos_ += take;
        if (slot_pos_ == slot.kept) {
          have_slot_ = false;
          advance();
        }
        continue;
      }
      // The next chunk: decode it here if it is free, take its slot if it is ready, else help.
      std::size_t help = kNone;
      State mine;
      {
        std::unique_lock<std::mutex> lock(mu_);
        for (;;) {
          mine = state_[current_];
          if (mine == kFree) {
            state_[current_] = mine = kCaller;
            break;
          }
          if (mine == kReady) break;
          help = pick(/*farthest=*/false);
          if (help != kNone) {
            state_[help] = kBusy;
            break;
          }
          cv_.wait(lock);
        }
      }
      if (help != kNone) {
        decode_into_slot(own_, help, open_own());
        continue;
      }
      if (mine == kCaller) {
        Status st = open_own();
        if (st.ok()) st = own_.load(rows_[current_]);
        if (!st.ok()) return fail(st.error(), filled);
        direct_ = true;
        whole_ = whole_chunk(rows_[current_], filter_);
        continue;
      }
      Slot& slot = slots_[current_ % kDepth];
      if (!slot.status.ok()) return fail(slot.status.error(), filled);
      have_slot_ = true;
      slot_pos_ = 0;
    }
    return filled;
  }

 private:
  static constexpr std::size_t kDepth = 4;
  static constexpr std::size_t kNone = SIZE_MAX;
  // Per chunk (guarded by mu_): free, decoded here straight into read()'s buffer, being decoded into
  // its slot, or decoded into its slot (or failed: the slot's status says).
  enum State : std::uint8_t { kFree, kCaller, kBusy, kReady };
  struct Slot {
    detail::ReferenceBuffer refs;
    std::size_t kept = 0;
    Status status;
  };

  void start() {
    started_ = true;
    if (rows_.size() < 2) return;
    // With the caller decoding too, one read-ahead thread per further core, at most two.
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t n = std::min<std::size_t>({2, hw - 1, rows_.size() - 1});
    for (std::size_t i = 0; i < n; ++i) workers_.emplace_back([this] { work(); });
  }

  Status open_own() { return own_.is_open() ? Status::success() : own_.open(path_); }

  // Chunk current_ failed: the stream ends there. The references this read() has already put in
  // its buffer (all from earlier chunks) are returned first, the error by the next call.
  Result<std::size_t> fail(const Error& e, std::size_t filled) {
    failed_ = true;
    error_ = e;
    {
      std::lock_guard<std::mutex> lock(mu_);
      limit_ = std::min(limit_, current_ + 1);  // nothing after it is decoded
    }
    if (filled > 0) return filled;
    return error_;
  }

  // The caller has finished chunk current_.
  void advance() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++current_;
    }
    cv_.notify_all();
  }

  // A free chunk after the caller's, in the window of kDepth chunks from it (mu_ held).
  std::size_t pick(bool farthest) const {
    const std::size_t lo = current_ + 1;
    const std::size_t hi = std::min(current_ + kDepth, limit_);
    if (farthest) {
      for (std::size_t j = hi; j-- > lo;) {
        if (state_[j] == kFree) return j;
      }
    } else {
      for (std::size_t j = lo; j < hi; ++j) {
        if (state_[j] == kFree) return j;
      }
    }
    return kNone;
  }

  // Decodes chunk `job` (claimed kBusy) into its slot and marks it ready.
  void decode_into_slot(ChunkWork& w, std::size_t job, const Status& opened) {
    Slot& slot = slots_[job % kDepth];
    std::size_t kept = 0;
    Status st = opened.ok() ? w.decode(rows_[job], filter_, slot.refs, kept) : opened;
    {
      std::lock_guard<std::mutex> lock(mu_);
      slot.kept = kept;
      slot.status = st;
      state_[job] = kReady;
      if (!st.ok()) limit_ = std::min(limit_, job + 1);  // nothing after an error is decoded
    }
    cv_.notify_all();
  }

  void work() {
    ChunkWork w;
    Status opened = w.open(path_);
    for (;;) {
      std::size_t job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || pick(/*farthest=*/true) != kNone; });
        if (stop_) return;
        job = pick(/*farthest=*/true);
        state_[job] = kBusy;
      }
      decode_into_slot(w, job, opened);
    }
  }

  std::string path_;
  std::vector<ChunkRow> rows_;
  Filter filter_;
  std::array<Slot, kDepth> slots_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::thread> workers_;
  std::vector<State> state_;          // guarded by mu_
  std::size_t current_ = 0;           // chunk the caller is reading (written under mu_)
  std::size_t limit_;                 // chunks from here on are not decoded (after an error; guarded by mu_)
  bool stop_ = false;
  bool started_ = false;
  ChunkWork own_;                     // the caller's connection and decoder
  bool direct_ = false;               // own_ holds chunk current_, decoding into read()'s buffer
  bool whole_ = false;                // ... and every one of its references passes the filter
  bool have_slot_ = false;            // chunk current_ is in its slot, slot_pos_ of it taken
  std::size_t slot_pos_ = 0;
  bool failed_ = false;
  Error error_;
};

}  // namespace

struct StoreReader::Impl {
  std::string path;
  sql::Db db;
  CaptureInfo info;
  std::vector<ChunkRow> chunks;

  Error err(const std::string& what) const { return make_error(path + ": " + what); }
  Status load_index();
};

Status StoreReader::Impl::load_index() {
  sql::Stmt st;
  HMTT_TRY(st.prepare(db, "SELECT id, refs, t_first, t_last, a_min, a_max, kind_mask, n_read, n_write, n_ifetch, "
                          "n_modify, blob_bytes FROM chunk ORDER BY id"));
  for (;;) {
    auto row = st.step();
    if (!row) return row.error();
    if (!*row) break;
    ChunkRow c;
    c.id = st.u64(0);
    c.refs = st.u64(1);
    c.t_first = st.u64(2);
    c.t_last = st.u64(3);
    c.a_min = st.u64(4);
    c.a_max = st.u64(5);
    c.kind_mask = static_cast<std::uint32_t>(st.u64(6));
    std::uint64_t kinds = 0;
    for (int k = 0; k < kKindCount; ++k) {
      c.by_kind[k] = st.u64(7 + k);
      kinds += c.by_kind[k];
    }
    c.blob_bytes = st.u64(11);
    const std::string at = "chunk " + std::to_string(c.id) + ": ";
    if (c.refs == 0 || c.refs > kChunkMaxRefs) return err(at + "index row has " + std::to_string(c.refs) + " references");
    if (kinds != c.refs) return err(at + "index row's per-kind counts do not add up to its reference count");
    if (c.t_first > c.t_last || c.a_min > c.a_max) return err(at + "index row has an empty time or address range");
    if (!chunks.empty() && c.t_first < chunks.back().t_last) {
      return err(at + "starts at time " + std::to_string(c.t_first) + ", before the previous chunk ends (" +
                 std::to_string(chunks.back().t_last) + ")");
    }
    chunks.push_back(c);
  }
  return Status::success();
}

StoreReader::StoreReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StoreReader::~StoreReader() = default;

bool looks_like_store(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::uint8_t head[100] = {};
  if (!in.read(reinterpret_cast<char*>(head), sizeof head)) return false;
  if (std::memcmp(head, "SQLite format 3\0", 16) != 0) return false;
  const std::uint32_t app = (std::uint32_t{head[68]} << 24) | (std::uint32_t{head[69]} << 16) |
                            (std::uint32_t{head[70]} << 8) | head[71];
  return app == static_cast<std::uint32_t>(kApplicationId);
}

Result<std::unique_ptr<StoreReader>> StoreReader::open(const std::string& path) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return impl->err("no such file");
  std::ifstream in(path, std::ios::binary);
  std::uint8_t head[100] = {};
  in.read(reinterpret_cast<char*>(head), sizeof head);
  if (!in || std::memcmp(head, "SQLite format 3\0", 16) != 0) {
    return impl->err("not an hmtt store (no SQLite header at offset 0)");
  }
  // A file cut short: the header's page count (valid when no WAL holds newer pages) says how long it must be.
  auto be32 = [&](int at) {
    return (std::uint32_t{head[at]} << 24) | (std::uint32_t{head[at + 1]} << 16) | (std::uint32_t{head[at + 2]} << 8) |
           head[at + 3];
  };
  const std::uint32_t page = head[16] == 0 && head[17] == 1 ? 65536u : (std::uint32_t{head[16]} << 8) | head[17];
  const std::uint64_t need = std::uint64_t{be32(28)} * page;
  const std::uint64_t have = std::filesystem::file_size(path, ec);
  const bool wal = std::filesystem::exists(path + "-wal", ec) && std::filesystem::file_size(path + "-wal", ec) > 0;
  if (!wal && be32(24) == be32(92) && have < need) {
    return impl->err("truncated: the file is " + std::to_string(have) + " bytes, its SQLite header says " +
                     std::to_string(be32(28)) + " pages of " + std::to_string(page) + " bytes (" +
                     std::to_string(need) + ")");
  }
  HMTT_TRY(open_readonly(impl->db, path));
  sql::Db& db = impl->db;
  auto pragma = [&](const char* name) -> Result<std::int64_t> {
    sql::Stmt st;
    HMTT_TRY(st.prepare(db, std::string("PRAGMA ") + name));
    auto row = st.step();
    if (!row) return row.error();
    if (!*row) return db.error(std::string("PRAGMA ") + name + " returned nothing");
    return st.i64(0);
  };
  auto app = pragma("application_id");
  if (!app) return app.error();
  if (*app != kApplicationId) {
    return impl->err("not an hmtt store (application_id " + std::to_string(*app) + ", must be " +
                     std::to_string(kApplicationId) + ")");
  }
  auto ver = pragma("user_version");
  if (!ver) return ver.error();
  if (*ver != kSchemaVersion) {
    return impl->err("store schema version " + std::to_string(*ver) + ", this hmtt reads version " +
                     std::to_string(kSchemaVersion));
  }
  {
    sql::Stmt st;
    HMTT_TRY(st.prepare(db, "SELECT key, value FROM meta"));
    for (;;) {
      auto row = st.step();
      if (!row) return row.error();
      if (!*row) break;
      const std::string key = st.text(0);
      const std::string value = st.text(1);
      CaptureInfo& i = impl->info;
      if (key == "tick_ps") {
        char* end = nullptr;
        i.tick_ps = std::strtoull(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0') return impl->err("meta 'tick_ps': '" + value + "' is not a number");
      } else if (key == "source") {
        i.source = value;
      } else if (key == "ddr_standard") {
        i.ddr_standard = value;
      } else if (key == "address_map") {
        i.address_map = value;
      } else if (key == "board_config") {
        i.board_config = value;
      } else if (key == "description") {
        i.description = value;
      }
    }
  }
  HMTT_TRY(impl->load_index());
  return std::unique_ptr<StoreReader>(new StoreReader(std::move(impl)));
}

const CaptureInfo& StoreReader::info() const { return impl_->info; }

Result<Summary> StoreReader::summary() const {
  Summary s;
  bool first = true;
  for (const auto& c : impl_->chunks) {
    s.references += c.refs;
    for (int k = 0; k < kKindCount; ++k) s.by_kind[k] += c.by_kind[k];
    if (first) {
      s.first_time = c.t_first;
      s.min_address = c.a_min;
      s.max_address = c.a_max;
      first = false;
    }
    s.last_time = std::max(s.last_time, c.t_last);
    s.min_address = std::min(s.min_address, c.a_min);
    s.max_address = std::max(s.max_address, c.a_max);
    s.compressed_bytes += c.blob_bytes;
  }
  s.chunks = impl_->chunks.size();
  sql::Stmt st;
  HMTT_TRY(st.prepare(impl_->db,
                      "SELECT (SELECT count(*) FROM event), (SELECT count(*) FROM page_map), (SELECT count(*) FROM dma), "
                      "(SELECT count(*) FROM process), (SELECT count(*) FROM report), (SELECT count(*) FROM profile), "
                      "(SELECT value FROM meta WHERE key = 'finished')"));
  auto row = st.step();
  if (!row) return row.error();
  if (*row) {
    s.events = st.u64(0);
    s.page_map_entries = st.u64(1);
    s.dma_entries = st.u64(2);
    s.processes = st.u64(3);
    s.reports = st.u64(4);
    s.profiles = st.u64(5);
    s.finished = st.text(6) == "1";
  }
  return s;
}

Result<std::unique_ptr<ReferenceSource>> StoreReader::references(const Filter& filter) const {
  std::vector<ChunkRow> rows;
  const unsigned kinds = filter.kind_mask & 0xF;
  const auto& all = impl_->chunks;
  // Chunks are time-ordered: binary-search the first chunk that can reach time_begin.
  auto it = std::lower_bound(all.begin(), all.end(), filter.time_begin,
                             [](const ChunkRow& c, std::uint64_t t) { return c.t_last < t; });
  for (; it != all.end() && it->t_first < filter.time_end; ++it) {
    if (it->a_max < filter.addr_begin || it->a_min >= filter.addr_end) continue;
    if ((it->kind_mask & kinds) == 0) continue;
    rows.push_back(*it);
  }
  if (filter.time_begin >= filter.time_end || filter.addr_begin >= filter.addr_end) rows.clear();
  return std::unique_ptr<ReferenceSource>(std::make_unique<ChunkStream>(impl_->path, std::move(rows), filter));
}

Result<PlaneCensus> StoreReader::planes(const std::function<void(const PlaneCensus&)>& progress) const {
  static_assert(kChunkColumns == 5, "PlaneCensus holds five columns");
  PlaneCensus census;
  sql::Stmt st;
  HMTT_TRY(st.prepare(impl_->db, "SELECT id, data FROM chunk ORDER BY id"));
  for (;;) {
    auto row = st.step();
    if (!row) return row.error();
    if (!*row) break;
    const std::span<const std::uint8_t> blob = st.blob(1);
    auto planes = chunk_planes(blob);
    if (!planes) return impl_->err("chunk " + std::to_string(st.u64(0)) + ": " + planes.error().message);
    census.chunks++;
    census.references += planes->refs;
    census.blob_bytes += blob.size();
    for (const PlaneInfo& p : planes->planes) {
      ColumnBytes& c = census.columns[static_cast<int>(p.column)];
      c.planes++;
      c.raw_bytes += p.raw_bytes;
      c.stored_bytes += p.stored_bytes;
      c.by_encoding[static_cast<int>(p.encoding)]++;
    }
    if (progress) progress(census);
  }
  return census;
}

Result<std::vector<Event>> StoreReader::events() const {
  sql::Stmt st;
  HMTT_TRY(st.prepare(impl_->db, "SELECT time, type, board, link, value, write, note FROM event ORDER BY time, id"));
  std::vector<Event> out;
  for (;;) {
    auto row = st.step();
    if (!row) return row.error();
    if (!*row) break;
    Event e;
    e.time = st.u64(0);
    const std::uint64_t type = st.u64(1);
    if (type > 3) return impl_->err("event table: unknown event type " + std::to_string(type));
    e.type = static_cast<EventType>(type);
    e.board = static_cast<std::uint32_t>(st.u64(2));
    e.link = static_cast<std::uint32_t>(st.u64(3));
    e.value = st.u64(4);
    e.write = st.i64(5) != 0;
    e.note = st.text(6);
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::vector<LinkStats>> StoreReader::links() const {
  sql::Stmt st;
  HMTT_TRY(st.prepare(impl_->db, "SELECT * FROM link ORDER BY board, link"));
  std::vector<LinkStats> out;
  for (;;) {
    auto row = st.step();
    if (!row) return row.error();
    if (!*row) break;
    LinkStats l;
    l.board = static_cast<std::uint32_t>(st.u64(0));
    l.link = static_cast<std::uint32_t>(st.u64(1));
    l.frames = st.u64(2);
    l.records = st.u64(3);
    l.gap_frames = st.u64(4);
    l.late_frames = st.u64(5);
    l.duplicate_frames = st.u64(6);
    l.bad_frames = st.u64(7);
    l.fifo_lost_records = st.u64(8);
    out.push_back(l);
  }
  return out;
}

Result<std::vector<PageMapEntry>> StoreReader::page_map() const {
  sql::Stmt st;
  HMTT_TRY(st.prepare(impl_->db, "SELECT * FROM page_map ORDER BY seq, rowid"));
  std::vector<PageMapEntry> out;
  for (;;) {
    auto row = st.step();
    if (!row) return row.error();
    if (!*row) break;
    PageMapEntry e;
    e.seq = st.u64(0);
    e.time = st.u64(1);
    e.pid = static_cast<std::uint32_t>(st.u64(2));
    e.vpage = st.u64(3);
    e.ppage = st.u64(4);
    e.pte_addr = st.u64(5);
    e.unmap = st.i64(6) != 0;
    out.push_back(e);
  }
  return out;
}

Result<std::vector<DmaEntry>> StoreReader::dma() const {
  sql::Stmt st;
  HMTT_TRY(st.prepare(impl_->db, "SELECT * FROM dma ORDER BY seq, rowid"));
  std::vector<DmaEntry> out;
  for (;;) {
    auto row = st.step();
    if (!row) return row.error();
    if (!*row) break;
    DmaEntry e;
    e.seq = st.u64(0);
    e.time = st.u64(1);
    e.device = st.text(2);
    e.phys = st.u64(3);
    e.size = st.u64(4);
    e.direction = static_cast<std::uint8_t>(st.u64(5));
    e.unmap = st.i64(6) != 0;
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::vector<Process>> StoreReader::processes() const {
  sql::Stmt st;
  HMTT_TRY(st.prepare(impl_->db, "SELECT * FROM process ORDER BY rowid"));
  std::vector<Process> out;
  for (;;) {
    auto row = st.step();
    if (!row) return row.error();
    if (!*row) break;
    Process p;
    p.pid = static_cast<std::uint32_t>(st.u64(0));
    p.name = st.text(1);
    p.first_time = st.u64(2);
    p.last_time = st.u64(3);
    out.push_back(std::move(p));
  }
  return out;
}

Result<std::vector<Report>> StoreReader::reports() const {
  sql::Stmt st, vals;
  HMTT_TRY(st.prepare(impl_->db, "SELECT id, time, board, unit, interval FROM report ORDER BY id"));
  HMTT_TRY(vals.prepare(impl_->db, "SELECT value FROM report_value WHERE report = ?1 ORDER BY idx"));
  std::vector<Report> out;
  for (;;) {
    auto row = st.step();
    if (!row) return row.error();
    if (!*row) break;
    Report r;
    const std::int64_t id = st.i64(0);
    r.time = st.u64(1);
    r.board = static_cast<std::uint32_t>(st.u64(2));
    r.unit = static_cast<std::uint32_t>(st.u64(3));
    r.interval = static_cast<std::uint32_t>(st.u64(4));
    vals.reset();
    vals.bind(1, id);
    for (;;) {
      auto v = vals.step();
      if (!v) return v.error();
      if (!*v) break;
      r.values.push_back(vals.u64(0));
    }
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::vector<Profile>> StoreReader::profiles() const {
  sql::Stmt st;
  HMTT_TRY(st.prepare(impl_->db, "SELECT method, name, format, data FROM profile ORDER BY id"));
  std::vector<Profile> out;
  for (;;) {
    auto row = st.step();
    if (!row) return row.error();
    if (!*row) break;
    Profile p;
    p.method = st.text(0);
    p.name = st.text(1);
    p.format = st.text(2);
    auto b = st.blob(3);
    p.data.assign(reinterpret_cast<const char*>(b.data()), b.size());
    out.push_back(std::move(p));
  }
  return out;
}

Result<std::string> StoreReader::meta(const std::string& key) const {
  sql::Stmt st;
  HMTT_TRY(st.prepare(impl_->db, "SELECT value FROM meta WHERE key = ?1"));
  st.bind(1, key);
  auto row = st.step();
  if (!row) return row.error();
  if (!*row) return impl_->err("meta key '" + key + "' not present");
  return st.text(0);
}

}  // namespace hmtt::store
