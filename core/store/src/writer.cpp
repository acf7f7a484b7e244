// StoreWriter: references -> chunks (worker threads compress, one committer
// thread commits), side-table calls one transaction each, queued for the same
// committer. Every commit is its own WAL transaction, so a process killed at
// any moment leaves every committed chunk and side-table call readable.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include "hmtt/store/chunk.h"
#include "hmtt/store/store.h"
#include "batch_vfs.h"
#include "reference_buffer.h"
#include "schema.h"
#include "sqlite.h"
#include "wal_checkpointer.h"

namespace hmtt::store {

namespace {
constexpr unsigned kPackedChunks = 24;  // chunks packed and not yet committed, at most
constexpr std::size_t kSideCalls = 16;  // side-table calls queued and not yet committed, at most

using detail::ReferenceBuffer;
}  // namespace

// The pipeline: the caller fills a chunk buffer and checks its order; worker threads each take
// whole chunks and split them (the reference buffer goes back to the caller right after), compress
// and checksum them into a packed BLOB, in parallel. One committer thread writes the packed chunks
// into the file one at a time in chunk order, so the workers never wait for the file; a
// checkpointer thread copies the WAL into the file (and waits for its fdatasync calls), so the
// committer waits for the disk only when the WAL reaches twice checkpoint_bytes.
struct StoreWriter::Impl {
  sql::Db db;
  // With the background threads: the WAL's checkpoints, on a thread and connection of their own
  // (wal_checkpointer.h). Declared after `db`, so destroyed (stopped) before it is closed.
  sql::WalCheckpointer checkpointer;
  WriterOptions opt;
  std::mutex db_mu;  // one transaction at a time on the connection
  sql::Stmt insert_chunk;

  ReferenceBuffer* pending = nullptr;  // the buffer the caller fills
  std::size_t npending = 0;
  std::uint64_t prev_last_time = 0;
  bool any_chunk = false;
  std::uint64_t chunks_queued = 0;

  ChunkSummary pending_summary;  // kinds and column ranges of the pending chunk's references

  struct Job {
    std::uint64_t seq = 0;
    ReferenceBuffer* refs = nullptr;
    std::size_t n = 0;
    ChunkSummary summary;  // ChunkColumns::split's
  };
  std::vector<std::unique_ptr<ReferenceBuffer>> buffers;
  std::mutex q_mu;
  // Two waits under q_mu, each with its own condition variable so that a wake-up goes only to
  // whoever can go on: the workers wait for a job, the caller for a free buffer and a packed slot
  // (or, in wait_idle, for every chunk to be committed). With one variable for both, every freed
  // buffer and every commit woke the idle workers too.
  std::condition_variable work_cv;   // a job is queued, or stop
  std::condition_variable space_cv;  // a buffer was freed or a chunk committed
  std::deque<ReferenceBuffer*> free_bufs;
  std::deque<Job> jobs;
  // A chunk between its split and its commit.
  struct Packed {
    ChunkStats stats;
    ScratchVector<std::uint8_t> blob;  // not zero-filled, on huge pages (24 of them, ~1-3 MB each)
    std::size_t len = 0;
    Status status;  // the split's error, if any
  };
  std::vector<std::unique_ptr<Packed>> packed_pool;
  std::deque<Packed*> free_packed;
  std::map<std::uint64_t, Packed*> ready;  // packed, waiting for their turn
  // Side-table calls queued for the committer, in call order (each one transaction). The caller's
  // thread no longer waits for db_mu, which the committer holds through a chunk's commit and the
  // checkpoint inside it: in a pcap ingest, the receiver's thread waited 56 ms of 600 there.
  std::deque<std::function<Status()>> side_jobs;
  std::size_t side_pending = 0;  // queued or running
  std::condition_variable commit_cv;       // a chunk is ready, or stop_committer
  bool stop_committer = false;
  std::thread committer;
  std::uint64_t next_commit = 0;  // the chunk whose turn it is to be committed
  std::size_t in_flight = 0;      // queued and not yet committed (at most packed_pool.size())
  bool stop = false;
  bool worker_failed = false;
  Error worker_error;
  std::vector<std::thread> workers;
  ChunkColumns inline_cols;  // background == false
  ScratchVector<std::uint8_t> inline_blob;

  std::atomic<std::uint64_t> committed_chunks{0};
  std::atomic<std::uint64_t> committed_refs{0};
  bool finished = false;
  bool annotating = false;  // opened by annotate(): side tables only

  ~Impl() { stop_workers(); }

  Status encode_and_commit(const Job& job, ChunkColumns& cols, ScratchVector<std::uint8_t>& blob);
  Status commit(std::uint64_t id, const ChunkStats& s, std::span<const std::uint8_t> blob);
  void run_worker();
  void run_committer();
  void stop_workers();
  Status flush_pending();
  Status wait_idle();
  Status in_transaction(const std::function<Status()>& body);
  // A side-table call: `body` (which owns its rows) in a transaction of its own, queued for the
  // committer while the background threads run, else at once.
  Status side(std::function<Status()> body);
  // One row per element of `rows` (copied) in one side-table call: `sql` takes ?1..?n,
  // `columns(row)` gives the row's values in that order (a std::tie of its fields).
  template <class T, class Columns>
  Status side_rows(const char* sql, std::span<const T> rows, Columns columns);
  Status set_meta_locked(const std::string& key, const std::string& value);
};

Status StoreWriter::Impl::commit(std::uint64_t id, const ChunkStats& s, std::span<const std::uint8_t> blob) {
  std::lock_guard<std::mutex> lock(db_mu);
  sql::Stmt& st = insert_chunk;
  st.bind_u64(1, id);
  st.bind_u64(2, s.refs);
  st.bind_u64(3, s.t_first);
  st.bind_u64(4, s.t_last);
  st.bind_u64(5, s.a_min);
  st.bind_u64(6, s.a_max);
  st.bind_u64(7, s.kind_mask);
  st.bind_u64(8, s.origin_mask);
  for (int k = 0; k < kKindCount; ++k) st.bind_u64(9 + k, s.by_kind[static_cast<std::size_t>(k)]);
  st.bind_u64(13, s.plane_bytes);
  st.bind_u64(14, blob.size());
  st.bind_blob(15, blob);
  Status r = st.run();
  if (!r) return make_error(r.error().message + " (chunk " + std::to_string(id) + ")");
  committed_refs += s.refs;
  committed_chunks += 1;
  // A checkpoint that failed (a full disk) stops the writer here, at the next commit after it.
  if (checkpointer.running()) {
    if (Status c = checkpointer.status(); !c) return make_error(c.error().message + " (after chunk " + std::to_string(id) + ")");
  }
  return Status::success();
}

// Without background threads: split, pack and commit on the caller's thread.
Status StoreWriter::Impl::encode_and_commit(const Job& job, ChunkColumns& cols, ScratchVector<std::uint8_t>& blob) {
  Status st = cols.split({job.refs->data(), job.n}, true, &job.summary);  // write() checked them
  if (!st) return make_error(db.path() + ": chunk " + std::to_string(job.seq) + ": " + st.error().message);
  const std::size_t len = pack_chunk(cols, opt.lz4_acceleration, blob);
  return commit(job.seq, cols.stats(), {blob.data(), len});
}

void StoreWriter::Impl::run_worker() {
  ChunkColumns cols;
  for (;;) {
    Job job;
    Packed* pk = nullptr;
    {
      std::unique_lock<std::mutex> lock(q_mu);
      work_cv.wait(lock, [&] { return stop || !jobs.empty(); });
      if (jobs.empty()) return;
      job = jobs.front();
      jobs.pop_front();
      // The most recently freed one (last in, first out): its BLOB buffer is grown, faulted in and
      // likely still cached. Taken first in, first out, all 24 were grown in turn (page faults
      // were 2 % of a capture's CPU in store_bench's mix).
      pk = free_packed.back();  // in_flight <= pool size, so every queued job has one
      free_packed.pop_back();
    }
    pk->status = cols.split({job.refs->data(), job.n}, true, &job.summary);  // write() checked them
    {
      std::lock_guard<std::mutex> lock(q_mu);
      free_bufs.push_back(job.refs);  // the references are in the columns now
    }
    space_cv.notify_all();
    if (pk->status) {
      pk->len = pack_chunk(cols, opt.lz4_acceleration, pk->blob);
      pk->stats = cols.stats();
    }
    {
      std::lock_guard<std::mutex> lock(q_mu);
      ready.emplace(job.seq, pk);
    }
    commit_cv.notify_one();
  }
}

// The committer: packed chunks into the file one at a time in chunk order. Commits run here (and,
// at twice checkpoint_bytes of WAL, the wait for a checkpoint that copies it all), so the workers
// keep both cores busy meanwhile.
void StoreWriter::Impl::run_committer() {
  std::unique_lock<std::mutex> lock(q_mu);
  for (;;) {
    commit_cv.wait(lock, [&] { return stop_committer || ready.count(next_commit) > 0 || !side_jobs.empty(); });
    if (!side_jobs.empty()) {
      std::function<Status()> body = std::move(side_jobs.front());
      side_jobs.pop_front();
      const bool skip = worker_failed;
      lock.unlock();
      Status ss = skip ? Status::success() : in_transaction(body);
      body = nullptr;  // its rows freed outside the lock
      lock.lock();
      if (!ss && !worker_failed) {
        worker_failed = true;
        worker_error = ss.error();
      }
      --side_pending;
      space_cv.notify_all();
      continue;
    }
    auto it = ready.find(next_commit);
    if (it == ready.end()) return;  // stopped, and nothing left to commit
    Packed* p = it->second;
    const std::uint64_t seq = it->first;
    ready.erase(it);
    const bool skip = worker_failed;  // nothing after a failed chunk is committed
    lock.unlock();
    Status cs = Status::success();
    if (!skip) {
      cs = p->status ? commit(seq, p->stats, {p->blob.data(), p->len})
                     : make_error(db.path() + ": chunk " + std::to_string(seq) + ": " + p->status.error().message);
    }
    lock.lock();
    if (!cs && !worker_failed) {
      worker_failed = true;
      worker_error = cs.error();
    }
    free_packed.push_back(p);
    ++next_commit;
    --in_flight;
    space_cv.notify_all();
  }
}

void StoreWriter::Impl::stop_workers() {
  {
    std::lock_guard<std::mutex> lock(q_mu);
    stop = true;
  }
  work_cv.notify_all();
  for (auto& t : workers) t.join();
  workers.clear();
  {
    std::lock_guard<std::mutex> lock(q_mu);
    stop_committer = true;
  }
  commit_cv.notify_all();
  if (committer.joinable()) committer.join();
}

Status StoreWriter::Impl::flush_pending() {
  if (npending == 0) return Status::success();
  const Job job{chunks_queued, pending, npending, pending_summary};
  prev_last_time = (*pending)[npending - 1].time;
  any_chunk = true;
  npending = 0;
  pending_summary = ChunkSummary{};
  ++chunks_queued;
  if (!opt.background) return encode_and_commit(job, inline_cols, inline_blob);
  std::unique_lock<std::mutex> lock(q_mu);
  if (worker_failed) return worker_error;
  jobs.push_back(job);
  ++in_flight;
  // Notified with the lock released, so the woken worker does not at once block on it.
  lock.unlock();
  work_cv.notify_one();
  lock.lock();
  space_cv.wait(lock, [&] { return worker_failed || (!free_bufs.empty() && in_flight < packed_pool.size()); });
  if (worker_failed) return worker_error;
  pending = free_bufs.front();
  free_bufs.pop_front();
  return Status::success();
}

Status StoreWriter::Impl::wait_idle() {
  std::unique_lock<std::mutex> lock(q_mu);
  space_cv.wait(lock, [&] { return in_flight == 0 && side_pending == 0; });
  if (worker_failed) return worker_error;
  return Status::success();
}

Status StoreWriter::Impl::in_transaction(const std::function<Status()>& body) {
  std::lock_guard<std::mutex> lock(db_mu);
  HMTT_TRY(db.exec("BEGIN"));
  Status st = body();
  if (!st) {
    (void)db.exec("ROLLBACK");
    return st;
  }
  return db.exec("COMMIT");
}

Status StoreWriter::Impl::side(std::function<Status()> body) {
  {
    std::unique_lock<std::mutex> lock(q_mu);
    if (worker_failed) return worker_error;
    if (committer.joinable() && !stop_committer) {
      // Bounded, as the chunks are: a caller faster than the committer waits here.
      space_cv.wait(lock, [&] { return worker_failed || side_pending < kSideCalls; });
      if (worker_failed) return worker_error;
      side_jobs.push_back(std::move(body));
      ++side_pending;
      commit_cv.notify_one();
      return Status::success();
    }
  }
  return in_transaction(body);
}

template <class T, class Columns>
Status StoreWriter::Impl::side_rows(const char* sql, std::span<const T> rows, Columns columns) {
  return side([this, sql, copy = std::vector<T>(rows.begin(), rows.end()), columns]() -> Status {
    sql::Stmt st;
    HMTT_TRY(st.prepare(db, sql));
    for (const T& row : copy) {
      std::apply([&](const auto&... v) { st.bind_all(v...); }, columns(row));
      HMTT_TRY(st.run());
    }
    return Status::success();
  });
}

Status StoreWriter::Impl::set_meta_locked(const std::string& key, const std::string& value) {
  sql::Stmt st;
  HMTT_TRY(st.prepare(db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)"));
  st.bind(1, key);
  st.bind(2, value);
  return st.run();
}

StoreWriter::StoreWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

StoreWriter::~StoreWriter() {
  if (impl_ && !impl_->finished) (void)finish();
}

Result<std::unique_ptr<StoreWriter>> StoreWriter::create(const std::string& path, const CaptureInfo& info,
                                                         const WriterOptions& options) {
  if (options.chunk_refs == 0 || options.chunk_refs > kChunkMaxRefs) {
    return make_error(path + ": chunk_refs " + std::to_string(options.chunk_refs) + " out of range 1.." +
                      std::to_string(kChunkMaxRefs));
  }
  if (options.lz4_acceleration < 1) return make_error(path + ": lz4_acceleration must be at least 1");
  if (options.page_size < 512 || options.page_size > 65536 || (options.page_size & (options.page_size - 1)) != 0) {
    return make_error(path + ": page_size " + std::to_string(options.page_size) + " is not a power of two in 512..65536");
  }
  if (options.checkpoint_bytes < (64u << 10)) {
    return make_error(path + ": checkpoint_bytes " + std::to_string(options.checkpoint_bytes) + " is below 64 KiB");
  }
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    if (!options.overwrite) return make_error(path + ": file exists (choose another name or overwrite it)");
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path + suffix, ec);
  }
  auto impl = std::make_unique<Impl>();
  impl->opt = options;
  // The empty store is built under a temporary name and renamed into place, so a writer killed
  // during creation leaves either no file or a complete empty store.
  const std::string creating = path + ".creating";
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) std::filesystem::remove(creating + suffix, ec);
  {
    sql::Db db;
    HMTT_TRY(db.open(creating, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE));
    HMTT_TRY(db.exec("PRAGMA page_size=" + std::to_string(options.page_size)));
    // No journal and no sync while the file has its temporary name: a failed creation leaves a
    // file nobody opens (removed by the next create()). The store is switched to WAL here too, so
    // the writer's connection below need not switch it through a rollback journal. The file's
    // first sync is its first checkpoint's (finish()'s at the latest). (The two journals' seven
    // fdatasync calls took 2-4 ms of every capture on this machine's disk.)
    HMTT_TRY(db.exec("PRAGMA journal_mode=OFF"));
    HMTT_TRY(db.exec("PRAGMA synchronous=OFF"));
    HMTT_TRY(db.exec("BEGIN"));
    HMTT_TRY(db.exec(kSchemaSql));
    HMTT_TRY(db.exec("PRAGMA application_id=" + std::to_string(kApplicationId)));
    HMTT_TRY(db.exec("PRAGMA user_version=" + std::to_string(kSchemaVersion)));
    const std::pair<const char*, std::string> rows[] = {
        {"format", "hmtt-store"},
        {"schema_version", std::to_string(kSchemaVersion)},
        {"chunk_format_version", std::to_string(kChunkVersion)},  // the newest a BLOB may have
        {"tick_ps", std::to_string(info.tick_ps)},
        {"source", info.source},
        {"ddr_standard", info.ddr_standard},
        {"address_map", info.address_map},
        {"board_config", info.board_config},
        {"description", info.description},
        {"chunk_refs", std::to_string(options.chunk_refs)},
        {"finished", "0"},
    };
    sql::Stmt st;
    HMTT_TRY(st.prepare(db, "INSERT INTO meta(key, value) VALUES(?1, ?2)"));
    for (const auto& [k, v] : rows) {
      st.bind(1, std::string(k));
      st.bind(2, v);
      HMTT_TRY(st.run());
    }
    if (!options.sync) {
      // Written without fdatasync: whoever finds the file damaged after a power cut can tell why.
      st.bind(1, std::string("sync"));
      st.bind(2, std::string("off"));
      HMTT_TRY(st.run());
    }
    HMTT_TRY(db.exec("COMMIT"));
    HMTT_TRY(db.exec("PRAGMA journal_mode=WAL"));
  }
  std::filesystem::rename(creating, path, ec);
  if (ec) return make_error(path + ": cannot rename " + creating + " into place: " + ec.message());
  // The WAL's appends batched into one write() per commit (batch_vfs.h).
  HMTT_TRY(impl->db.open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, sql::batch_vfs_name()));
  sql::Db& db = impl->db;
  HMTT_TRY(db.exec("PRAGMA journal_mode=WAL"));
  HMTT_TRY(db.exec(options.sync ? "PRAGMA synchronous=NORMAL" : "PRAGMA synchronous=OFF"));
  // Checkpoint about every 4 MiB of WAL: the checkpoint finish() must make (sync the WAL, copy, sync
  // the file, truncate) is then short (finish 35-70 ms -> 12-14 ms for 20 M mix references); the
  // more frequent ones during the capture wait inside one commit while the packed chunks queue.
  HMTT_TRY(db.exec("PRAGMA wal_autocheckpoint=" + std::to_string((4u << 20) / options.page_size)));
  // With the background threads the checkpoints leave the committer: every 4 MiB of new WAL on a
  // thread of their own, the WAL held under 8 MiB (wal_checkpointer.h). Without them SQLite's
  // automatic checkpoint above stays (annotate()'s connection keeps SQLite's default, 1000 pages).
  if (options.background) {
    HMTT_TRY(impl->checkpointer.start(db.get(), path, sql::batch_vfs_name(), options.sync, options.checkpoint_bytes,
                                      2 * std::uint64_t{options.checkpoint_bytes}));
  }
  HMTT_TRY(impl->insert_chunk.prepare(db, "INSERT INTO chunk VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15)"));
  // Chunk buffers: the one being filled, one per worker and one queued.
  const unsigned workers = options.background ? std::clamp(std::thread::hardware_concurrency(), 1u, 4u) : 0u;
  for (unsigned i = 0; i < (options.background ? workers + 2 : 1); ++i) {
    impl->buffers.push_back(std::make_unique<ReferenceBuffer>(options.chunk_refs));
    impl->free_bufs.push_back(impl->buffers.back().get());
  }
  impl->pending = impl->free_bufs.front();
  impl->free_bufs.pop_front();
  // Packed chunks between their split and their commit. A commit that waits for a checkpoint (at
  // twice checkpoint_bytes of WAL) waits for two fdatasync calls (10-25 ms here); 24 packed chunks (3 M references at the default
  // size) let the other workers and the caller go on meanwhile instead of stalling after 6.
  for (unsigned i = 0; i < kPackedChunks && options.background; ++i) {
    impl->packed_pool.push_back(std::make_unique<Impl::Packed>());
    impl->free_packed.push_back(impl->packed_pool.back().get());
  }
  for (unsigned i = 0; i < workers; ++i) impl->workers.emplace_back([p = impl.get()] { p->run_worker(); });
  if (options.background) impl->committer = std::thread([p = impl.get()] { p->run_committer(); });
  return std::unique_ptr<StoreWriter>(new StoreWriter(std::move(impl)));
}

Result<std::unique_ptr<StoreWriter>> StoreWriter::annotate(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return make_error(path + ": no such store");
  if (!looks_like_store(path)) return make_error(path + ": not an hmtt trace store");
  auto impl = std::make_unique<Impl>();
  impl->annotating = true;
  impl->finished = true;  // no references, and nothing for the destructor to finish
  HMTT_TRY(impl->db.open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX));
  HMTT_TRY(impl->db.exec("PRAGMA busy_timeout=5000"));
  return std::unique_ptr<StoreWriter>(new StoreWriter(std::move(impl)));
}

Status StoreWriter::write(std::span<const Reference> refs) {
  Impl& m = *impl_;
  if (m.annotating) return make_error(m.db.path() + ": opened to annotate; its references are final");
  if (m.finished) return make_error(m.db.path() + ": write after finish");
  const std::size_t cap = m.opt.chunk_refs;
  if (refs.empty()) return Status::success();
  const std::uint64_t prev_time =
      m.npending > 0 ? (*m.pending)[m.npending - 1].time : (m.any_chunk ? m.prev_last_time : refs[0].time);
  // The common case, a batch that fits the pending chunk: check, copy and summarise it in one pass
  // (npending moves only if all of it is good, so a failed write takes nothing). Workers do not check
  // again.
  if (refs.size() <= cap - m.npending) {
    Status st = check_and_copy_references(refs, prev_time, m.npending, m.pending->data() + m.npending, m.pending_summary);
    if (!st) return make_error(m.db.path() + ": chunk " + std::to_string(m.chunks_queued) + ": " + st.error().message);
    m.npending += refs.size();
    if (m.npending == cap) HMTT_TRY(m.flush_pending());
    return Status::success();
  }
  // A batch across chunks: check all of it, piece by piece as it will land in chunks, before taking
  // any of it.
  {
    std::uint64_t prev = prev_time;
    std::size_t pos = m.npending;
    std::uint64_t chunk = m.chunks_queued;
    for (std::span<const Reference> rest = refs; !rest.empty();) {
      const std::size_t take = std::min(rest.size(), cap - pos);
      Status st = check_references(rest.first(take), prev, pos);
      if (!st) return make_error(m.db.path() + ": chunk " + std::to_string(chunk) + ": " + st.error().message);
      prev = rest[take - 1].time;
      rest = rest.subspan(take);
      pos = 0;
      ++chunk;
    }
  }
  while (!refs.empty()) {
    const std::size_t take = std::min(refs.size(), cap - m.npending);
    const std::uint64_t prev = m.npending > 0 ? (*m.pending)[m.npending - 1].time : refs[0].time;
    // Checked above: this pass copies and adds them to the chunk's summary.
    (void)check_and_copy_references(refs.first(take), prev, m.npending, m.pending->data() + m.npending, m.pending_summary);
    m.npending += take;
    refs = refs.subspan(take);
    if (m.npending == cap) HMTT_TRY(m.flush_pending());
  }
  return Status::success();
}

Status StoreWriter::finish() {
  Impl& m = *impl_;
  if (m.finished) return Status::success();
  m.finished = true;
  Status st = m.flush_pending();
  Status idle = m.wait_idle();
  m.stop_workers();
  Status ckpt = m.checkpointer.running() ? m.checkpointer.status() : Status::success();
  m.checkpointer.stop();  // waits for a running checkpoint; the one below copies the rest
  HMTT_TRY(st);
  HMTT_TRY(idle);
  HMTT_TRY(ckpt);
  Status marked = m.in_transaction([&]() -> Status {
    HMTT_TRY(m.set_meta_locked("finished", "1"));
    HMTT_TRY(m.set_meta_locked("references", std::to_string(m.committed_refs.load())));
    return m.set_meta_locked("chunks", std::to_string(m.committed_chunks.load()));
  });
  HMTT_TRY(marked);
  std::lock_guard<std::mutex> lock(m.db_mu);
  HMTT_TRY(m.db.exec("PRAGMA wal_checkpoint(TRUNCATE)"));
  // A finished capture is one self-contained file that opens read-only anywhere.
  return m.db.exec("PRAGMA journal_mode=DELETE");
}

std::uint64_t StoreWriter::committed_chunks() const { return impl_->committed_chunks.load(); }
std::uint64_t StoreWriter::committed_references() const { return impl_->committed_refs.load(); }

Status StoreWriter::add_events(std::span<const Event> events) {
  return impl_->side_rows(
      "INSERT INTO event(time,type,board,link,value,write,note) VALUES(?1,?2,?3,?4,?5,?6,?7)", events,
      [](const Event& e) { return std::tie(e.time, e.type, e.board, e.link, e.value, e.write, e.note); });
}

Status StoreWriter::add_page_map(std::span<const PageMapEntry> entries) {
  return impl_->side_rows("INSERT INTO page_map VALUES(?1,?2,?3,?4,?5,?6,?7)", entries, [](const PageMapEntry& e) {
    return std::tie(e.seq, e.time, e.pid, e.vpage, e.ppage, e.pte_addr, e.unmap);
  });
}

Status StoreWriter::add_dma(std::span<const DmaEntry> entries) {
  return impl_->side_rows("INSERT INTO dma VALUES(?1,?2,?3,?4,?5,?6,?7)", entries, [](const DmaEntry& e) {
    return std::tie(e.seq, e.time, e.device, e.phys, e.size, e.direction, e.unmap);
  });
}

Status StoreWriter::add_processes(std::span<const Process> processes) {
  return impl_->side_rows("INSERT INTO process VALUES(?1,?2,?3,?4)", processes,
                            [](const Process& p) { return std::tie(p.pid, p.name, p.first_time, p.last_time); });
}

Status StoreWriter::add_reports(std::span<const Report> reports) {
  return impl_->side([this, reports = std::vector<Report>(reports.begin(), reports.end())]() -> Status {
    sql::Stmt rep, val;
    HMTT_TRY(rep.prepare(impl_->db, "INSERT INTO report(time,board,unit,interval) VALUES(?1,?2,?3,?4)"));
    HMTT_TRY(val.prepare(impl_->db, "INSERT INTO report_value VALUES(?1,?2,?3)"));
    for (const auto& r : reports) {
      rep.bind_u64(1, r.time);
      rep.bind_u64(2, r.board);
      rep.bind_u64(3, r.unit);
      rep.bind_u64(4, r.interval);
      HMTT_TRY(rep.run());
      const std::int64_t id = sqlite3_last_insert_rowid(impl_->db.get());
      for (std::size_t i = 0; i < r.values.size(); ++i) {
        val.bind(1, id);
        val.bind_u64(2, i);
        val.bind_u64(3, r.values[i]);
        HMTT_TRY(val.run());
      }
    }
    return Status::success();
  });
}

Status StoreWriter::add_profile(const Profile& profile) {
  return impl_->side([this, profile]() -> Status {
    sql::Stmt st;
    HMTT_TRY(st.prepare(impl_->db, "INSERT INTO profile(method,name,format,data) VALUES(?1,?2,?3,?4)"));
    st.bind(1, profile.method);
    st.bind(2, profile.name);
    st.bind(3, profile.format);
    st.bind_blob(4, {reinterpret_cast<const std::uint8_t*>(profile.data.data()), profile.data.size()});
    return st.run();
  });
}

Status StoreWriter::set_link_stats(std::span<const LinkStats> links) {
  return impl_->side_rows(
      "INSERT OR REPLACE INTO link VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)", links, [](const LinkStats& l) {
        return std::tie(l.board, l.link, l.frames, l.records, l.gap_frames, l.late_frames, l.duplicate_frames,
                        l.bad_frames, l.fifo_lost_records);
      });
}

Status StoreWriter::set_meta(const std::string& key, const std::string& value) {
  return impl_->side([this, key, value] { return impl_->set_meta_locked(key, value); });
}

}  // namespace hmtt::store
