// WalCheckpointer: WAL checkpoints on a thread and connection of their own (internal header).
//
// A checkpoint copies the WAL into the database file and, in the default durable mode, waits for
// two fdatasync calls (the WAL before the copy, the file after). Run by SQLite's automatic
// checkpoint, it ran inside the commit that crossed 4 MiB of WAL, on the writer's committer thread:
// in a 50 M-reference pcap ingest on a paravirtualised VM the committer then spent 300 of its
// 880 ms waiting for the disk (92 cache flushes, 138 ms of writeback), while the 24 packed chunks
// queued behind it and the workers and the caller stopped (docs/benchmarks.md, "Receiver", stop 48).
//
// Here the committer's connection has no automatic checkpoint. Its WAL hook (on_commit, called by
// SQLite after each commit with the WAL's length) asks this thread for a PASSIVE checkpoint every
// `step` bytes of new WAL, and the committer goes on appending while the copy and its fdatasync run
// on this thread's own connection. The log restarts only after a checkpoint that copied it all, so
// at `limit` bytes the committer waits for one, which bounds the WAL.
//
// Durability is SQLite's own: the same checkpoints with the same synchronous setting, only on
// another connection; a killed process leaves the same file and WAL. A checkpoint that fails (a
// full disk) is remembered, and status() returns it from then on, naming the file.
#pragma once

#include <sqlite3.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "hmtt/result.h"
#include "sqlite.h"

namespace hmtt::store::sql {

class WalCheckpointer {
 public:
  WalCheckpointer() = default;
  ~WalCheckpointer() { stop(); }
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

  // Opens its connection to `path` (with `vfs`), starts the thread and installs the WAL hook on
  // `writer`, replacing its automatic checkpoint. `sync`: synchronous=NORMAL (else OFF), as the
  // writer's connection. `step` and `limit` are in bytes of WAL (limit > step > 0).
  Status start(sqlite3* writer, const std::string& path, const char* vfs, bool sync, std::uint64_t step,
               std::uint64_t limit);
  // Waits for a running checkpoint, stops the thread, removes the hook and closes the connection.
  // The writer's connection is left without any automatic checkpoint.
  void stop();
  bool running() const { return thread_.joinable(); }
  // The first checkpoint failure (other than SQLITE_BUSY, a checkpoint held back by a reader).
  Status status();
  // Checkpoints run so far (tests).
  std::uint64_t checkpoints();

 private:
  static int hook(void* self, sqlite3* db, const char* name, int frames);
  int on_commit(int frames);
  void run();

  Db db_;
  sqlite3* writer_ = nullptr;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool request_ = false;
  bool busy_ = false;
  bool stop_ = false;
  int page_ = 4096;
  std::uint64_t step_frames_ = 0;
  std::uint64_t limit_frames_ = 0;
  std::uint64_t requested_at_ = 0;  // the WAL's frames when the last checkpoint was asked for
  std::uint64_t checkpoints_ = 0;
  Status error_ = Status::success();
};

}  // namespace hmtt::store::sql
