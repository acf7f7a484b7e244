// A SQLite VFS that batches the write-ahead log's appends (internal header).
//
// SQLite appends each WAL frame with two write() calls, a 24-byte frame header and the page, so a
// chunk of 340 KB costs 170 system calls, all straddling page-cache folios; and every byte of a
// capture goes through the WAL. The "hmtt-batch" VFS wraps the default one and, for WAL files
// only, gathers contiguous appends in a buffer that it writes with one call:
//   - when a commit frame's page has been appended (a frame header whose "database size after
//     commit" field is non-zero marks the last frame of a transaction; SQLite publishes the
//     commit in the wal-index only after that page's write returns, so every reader and every
//     recovery sees the frames in the file before the commit exists for them);
//   - before any other operation on the file (read, sync, truncate, size, file control, close);
//   - when the next write is not contiguous, or the buffer is full.
// Durability is unchanged: a transaction's frames are in the OS (written) when its commit
// becomes visible, exactly as without the VFS. The main database file, journals and every other
// file pass through untouched.
//
// It also reads the WAL ahead while a checkpoint copies it into the database: SQLite reads each
// frame's page with its own pread (30,000 calls for a 125 MB capture); between the checkpoint's
// SQLITE_FCNTL_CKPT_START and the next shm lock (its copy loop), the VFS reads 256 KiB at a time
// and serves the frames from that. Nothing read ahead outlives the copy.
#pragma once

#include <cstdint>

namespace hmtt::store::sql {

// The WAL read-ahead's counters (tests, benchmarks): checkpoints that used it, the frame reads
// made during them, those served from the buffer, and the buffer's fills (one pread each).
struct ReadAheadStats {
  std::uint64_t checkpoints = 0;
  std::uint64_t reads = 0;
  std::uint64_t served = 0;
  std::uint64_t fills = 0;
};

// sqlite3_file_control(db, "main", kReadAheadStatsFcntl, &stats) on a connection opened with the
// VFS: its WAL's ReadAheadStats (SQLITE_NOTFOUND if it has no WAL open).
constexpr int kReadAheadStatsFcntl = 0x484d5401;

// Registers the VFS with SQLite the first time (thread-safe) and returns its name, or nullptr if
// it could not be registered (the caller then opens with the default VFS).
const char* batch_vfs_name();

}  // namespace hmtt::store::sql
