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
#pragma once

namespace hmtt::store::sql {

// Registers the VFS with SQLite the first time (thread-safe) and returns its name, or nullptr if
// it could not be registered (the caller then opens with the default VFS).
const char* batch_vfs_name();

}  // namespace hmtt::store::sql
