#include "wal_checkpointer.h"

#include <algorithm>

namespace hmtt::store::sql {

Status WalCheckpointer::start(sqlite3* writer, const std::string& path, const char* vfs, bool sync,
                              std::uint64_t step, std::uint64_t limit) {
  if (running()) return make_error(path + ": checkpointer already started");
  if (step == 0 || limit <= step) return make_error(path + ": checkpoint step and limit out of order");
  HMTT_TRY(db_.open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, vfs));
  HMTT_TRY(db_.exec(sync ? "PRAGMA synchronous=NORMAL" : "PRAGMA synchronous=OFF"));
  // Both connections see the same page size: the file's.
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(writer, "PRAGMA page_size", -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    page_ = std::max(512, sqlite3_column_int(st, 0));
  sqlite3_finalize(st);
  step_frames_ = std::max<std::uint64_t>(1, step / static_cast<std::uint64_t>(page_));
  limit_frames_ = std::max<std::uint64_t>(step_frames_ + 1, limit / static_cast<std::uint64_t>(page_));
  writer_ = writer;
  thread_ = std::thread([this] { run(); });
  sqlite3_wal_hook(writer_, &WalCheckpointer::hook, this);  // replaces wal_autocheckpoint
  return Status::success();
}

void WalCheckpointer::stop() {
  if (!running()) return;
  sqlite3_wal_hook(writer_, nullptr, nullptr);
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  db_.close();
}

Status WalCheckpointer::status() {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

std::uint64_t WalCheckpointer::checkpoints() {
  std::lock_guard<std::mutex> lock(mu_);
  return checkpoints_;
}

int WalCheckpointer::hook(void* self, sqlite3*, const char*, int frames) {
  return static_cast<WalCheckpointer*>(self)->on_commit(frames);
}

// On the writer's thread, inside the commit's sqlite3_step (after the commit is complete).
int WalCheckpointer::on_commit(int frames) {
  const auto n = static_cast<std::uint64_t>(std::max(frames, 0));
  std::unique_lock<std::mutex> lock(mu_);
  if (n < requested_at_) requested_at_ = 0;  // the log restarted
  if (n >= limit_frames_) {
    // The log restarts only after a checkpoint that copied all of it: wait for the running one,
    // then run one more over everything, with nothing appended meanwhile.
    cv_.wait(lock, [&] { return !busy_ && !request_; });
    request_ = true;
    requested_at_ = n;
    cv_.notify_all();
    cv_.wait(lock, [&] { return !busy_ && !request_; });
  } else if (n - requested_at_ >= step_frames_ && !busy_ && !request_) {
    request_ = true;
    requested_at_ = n;
    cv_.notify_all();
  }
  return SQLITE_OK;  // a failure is reported by status(), at the writer's next commit
}

void WalCheckpointer::run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || request_; });
    if (!request_) return;  // stopped, nothing asked for
    request_ = false;
    busy_ = true;
    const bool skip = !error_.ok();
    lock.unlock();
    int log = 0, copied = 0;
    const int rc = skip ? SQLITE_OK : sqlite3_wal_checkpoint_v2(db_.get(), nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
    lock.lock();
    busy_ = false;
    ++checkpoints_;
    if (rc != SQLITE_OK && rc != SQLITE_BUSY && error_.ok())
      error_ = db_.error("checkpoint");
    cv_.notify_all();
  }
}

}  // namespace hmtt::store::sql
