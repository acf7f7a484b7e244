// The "hmtt-batch" VFS: the default VFS with the WAL's appends batched (see batch_vfs.h).
#include "batch_vfs.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

namespace hmtt::store::sql {
namespace {

constexpr int kBufferBytes = 2 << 20;     // one write() per commit up to 2 MiB of frames
constexpr int kFrameHeaderBytes = 24;     // a WAL frame header (the WAL header itself is 32)
constexpr int kReadAheadBytes = 256 << 10;  // one pread per 256 KiB of a checkpoint's WAL reads

struct State;

// One open file: our sqlite3_file, then the default VFS's file object right behind it.
struct File {
  sqlite3_file base;
  sqlite3_file* real;
  unsigned char* buf;  // the WAL and the main database; nullptr: every call passes straight through
  bool wal;            // flush at the end of each commit frame
  sqlite3_int64 buf_at;
  int buf_len;
  bool in_commit;  // the latest frame header was a commit frame's: write through until the next
  bool ckpt;       // WAL: its connection's checkpoint is copying frames (reads may be read ahead)
  int error;       // a failed flush's code, returned by every later flush: the buffer it lost is not forgotten
  // The main database and its WAL, opened by the same connection, know each other (`peer`), so the
  // database's checkpoint notices can switch the WAL's read-ahead on and off.
  File* peer;
  State* vfs;
  const char* db_name;     // main database: the name it was opened with
  unsigned char* ra;       // WAL: the read-ahead buffer (kReadAheadBytes), allocated at the first use
  sqlite3_int64 ra_at;
  int ra_len;              // 0: nothing held
  sqlite3_int64 ckpt_size; // WAL: its size when the checkpoint started
  ReadAheadStats stats;
};
static_assert(sizeof(File) % 8 == 0, "the default VFS's file object follows File, 8-byte aligned");

// The VFS's state: the default VFS, and the main databases open through this one (to link a WAL to
// the database of its connection when it opens).
struct State {
  sqlite3_vfs* real = nullptr;
  std::mutex mu;
  std::vector<File*> dbs;
};

State* state(sqlite3_vfs* v) { return static_cast<State*>(v->pAppData); }
sqlite3_vfs* real_vfs(sqlite3_vfs* v) { return state(v)->real; }
File* F(sqlite3_file* f) { return reinterpret_cast<File*>(f); }
const sqlite3_io_methods* M(File* f) { return f->real->pMethods; }

// The default (unix) VFS writes at most 0x1ffff bytes a call (it masks the length: a longer write
// comes out short and reads as "disk full"), so the buffer goes out in pieces below that.
constexpr int kWritePiece = 31 * 4096;

int flush(File* f) {
  // SQLite ignores what some calls return (SQLITE_FCNTL_CKPT_DONE, which flushes a checkpoint's
  // last page writes): a failure there must still fail the truncation, sync or lock that follows.
  if (f->error != SQLITE_OK) return f->error;
  int rc = SQLITE_OK;
  for (int done = 0; done < f->buf_len && rc == SQLITE_OK; done += kWritePiece) {
    rc = M(f)->xWrite(f->real, f->buf + done, std::min(kWritePiece, f->buf_len - done), f->buf_at + done);
  }
  f->buf_len = 0;
  if (rc != SQLITE_OK) f->error = rc;
  return rc;
}

void unlink_file(File* f) {
  std::lock_guard<std::mutex> lock(f->vfs->mu);
  std::erase(f->vfs->dbs, f);
  if (f->peer) f->peer->peer = nullptr;
  f->peer = nullptr;
}

int x_close(sqlite3_file* pf) {
  File* f = F(pf);
  const int frc = flush(f);
  unlink_file(f);
  const int rc = M(f)->xClose(f->real);
  sqlite3_free(f->buf);
  sqlite3_free(f->ra);
  f->buf = nullptr;
  f->ra = nullptr;
  return frc != SQLITE_OK ? frc : rc;
}

// The WAL's read-ahead ends: nothing read ahead is served again.
void end_checkpoint(File* wal) {
  wal->ckpt = false;
  wal->ra_len = 0;
}

int x_read(sqlite3_file* pf, void* out, int n, sqlite3_int64 at) {
  File* f = F(pf);
  if (const int rc = flush(f); rc != SQLITE_OK) return rc;
  if (!f->ckpt || n <= 0 || n > kReadAheadBytes / 4) return M(f)->xRead(f->real, out, n, at);
  // A checkpoint copies frames in page order, which for a capture's appended pages is the frames'
  // order: one read of 256 KiB serves the next 60-odd 4 KiB frames. Safe only while the copy runs:
  // the frames it reads (up to its mxSafeFrame) cannot change until it ends (SQLite holds the
  // WAL's read-mark 0 exclusively, so no writer can restart the log); bytes read ahead beyond them
  // are never asked for, and all of it is dropped when the checkpoint ends.
  ++f->stats.reads;
  if (f->ra_len == 0 || at < f->ra_at || at + n > f->ra_at + f->ra_len) {
    const sqlite3_int64 len = std::min<sqlite3_int64>(kReadAheadBytes, f->ckpt_size - at);
    if (len < n) return M(f)->xRead(f->real, out, n, at);
    if (!f->ra) f->ra = static_cast<unsigned char*>(sqlite3_malloc(kReadAheadBytes));
    if (!f->ra) return M(f)->xRead(f->real, out, n, at);
    f->ra_len = 0;
    if (const int rc = M(f)->xRead(f->real, f->ra, static_cast<int>(len), at); rc != SQLITE_OK) return rc;
    f->ra_at = at;
    f->ra_len = static_cast<int>(len);
    ++f->stats.fills;
  }
  std::memcpy(out, f->ra + (at - f->ra_at), static_cast<std::size_t>(n));
  ++f->stats.served;
  return SQLITE_OK;
}

int x_write(sqlite3_file* pf, const void* data, int n, sqlite3_int64 at) {
  File* f = F(pf);
  f->ra_len = 0;
  if (!f->buf) return M(f)->xWrite(f->real, data, n, at);
  const bool header = f->wal && n == kFrameHeaderBytes;
  if (header) {
    // Bytes 4-7 of a frame header: the database size after the commit, non-zero only in a
    // transaction's last frame (and the copies of it that pad a synced commit).
    const auto* h = static_cast<const unsigned char*>(data);
    f->in_commit = (h[4] | h[5] | h[6] | h[7]) != 0;
  }
  const bool contiguous = f->buf_len > 0 && at == f->buf_at + f->buf_len;
  if ((f->buf_len > 0 && !contiguous) || f->buf_len + n > kBufferBytes) {
    if (const int rc = flush(f); rc != SQLITE_OK) return rc;
  }
  if (n > kWritePiece) {
    // Not from SQLite (its pages are at most 64 KiB), but if it comes: what is buffered goes first,
    // so nothing is left behind a write that may end a transaction.
    if (const int rc = flush(f); rc != SQLITE_OK) return rc;
    return M(f)->xWrite(f->real, data, n, at);
  }
  if (f->buf_len == 0) f->buf_at = at;
  std::memcpy(f->buf + f->buf_len, data, static_cast<std::size_t>(n));
  f->buf_len += n;
  // The commit frame's page: write everything out before SQLite publishes the commit.
  if (!header && f->in_commit) return flush(f);
  return SQLITE_OK;
}

int x_truncate(sqlite3_file* pf, sqlite3_int64 size) {
  File* f = F(pf);
  f->ra_len = 0;
  if (const int rc = flush(f); rc != SQLITE_OK) return rc;
  return M(f)->xTruncate(f->real, size);
}

int x_sync(sqlite3_file* pf, int flags) {
  File* f = F(pf);
  if (const int rc = flush(f); rc != SQLITE_OK) return rc;
  return M(f)->xSync(f->real, flags);
}

int x_file_size(sqlite3_file* pf, sqlite3_int64* size) {
  File* f = F(pf);
  if (const int rc = flush(f); rc != SQLITE_OK) return rc;
  return M(f)->xFileSize(f->real, size);
}

int x_lock(sqlite3_file* pf, int level) {
  File* f = F(pf);
  if (const int rc = flush(f); rc != SQLITE_OK) return rc;
  return M(f)->xLock(f->real, level);
}

int x_unlock(sqlite3_file* pf, int level) {
  File* f = F(pf);
  if (const int rc = flush(f); rc != SQLITE_OK) return rc;
  return M(f)->xUnlock(f->real, level);
}

int x_check_reserved(sqlite3_file* pf, int* out) {
  File* f = F(pf);
  if (const int rc = flush(f); rc != SQLITE_OK) return rc;
  return M(f)->xCheckReservedLock(f->real, out);
}

int x_file_control(sqlite3_file* pf, int op, void* arg) {
  File* f = F(pf);
  if (op == kReadAheadStatsFcntl) {
    if (!f->peer) return SQLITE_NOTFOUND;
    *static_cast<ReadAheadStats*>(arg) = f->peer->stats;
    return SQLITE_OK;
  }
  if (const int rc = flush(f); rc != SQLITE_OK) return rc;
  if (File* wal = f->peer; wal && (op == SQLITE_FCNTL_CKPT_START || op == SQLITE_FCNTL_CKPT_DONE)) {
    end_checkpoint(wal);
    // Sent on the database by the checkpoint that is about to copy frames (SQLite holds the WAL's
    // read-mark 0 from here to the copy's end); the WAL's size bounds what may be read ahead.
    if (op == SQLITE_FCNTL_CKPT_START && flush(wal) == SQLITE_OK &&
        M(wal)->xFileSize(wal->real, &wal->ckpt_size) == SQLITE_OK) {
      wal->ckpt = true;
      ++wal->stats.checkpoints;
    }
  }
  return M(f)->xFileControl(f->real, op, arg);
}

int x_sector_size(sqlite3_file* pf) { return M(F(pf))->xSectorSize(F(pf)->real); }
int x_device(sqlite3_file* pf) { return M(F(pf))->xDeviceCharacteristics(F(pf)->real); }

int x_shm_map(sqlite3_file* pf, int page, int size, int extend, void volatile** out) {
  File* f = F(pf);
  if (M(f)->iVersion < 2) return SQLITE_IOERR_SHMMAP;
  if (const int rc = flush(f); rc != SQLITE_OK) return rc;
  return M(f)->xShmMap(f->real, page, size, extend, out);
}

int x_shm_lock(sqlite3_file* pf, int offset, int n, int flags) {
  File* f = F(pf);
  // The copy takes no lock between its first and its last frame; whatever lock comes next (the
  // read-mark's release after the copy, even when it failed part way) ends the read-ahead.
  if (f->peer && f->peer->ckpt) end_checkpoint(f->peer);
  if (M(f)->iVersion < 2) return SQLITE_IOERR_SHMLOCK;
  if (const int rc = flush(f); rc != SQLITE_OK) return rc;
  return M(f)->xShmLock(f->real, offset, n, flags);
}

void x_shm_barrier(sqlite3_file* pf) {
  File* f = F(pf);
  (void)flush(f);  // SQLite calls it between writing and publishing; the flush before them reports errors
  if (M(f)->iVersion >= 2) M(f)->xShmBarrier(f->real);
}

int x_shm_unmap(sqlite3_file* pf, int del) {
  File* f = F(pf);
  if (M(f)->iVersion < 2) return SQLITE_OK;
  return M(f)->xShmUnmap(f->real, del);
}

int x_fetch(sqlite3_file* pf, sqlite3_int64 at, int n, void** out) {
  File* f = F(pf);
  *out = nullptr;
  if (M(f)->iVersion < 3) return SQLITE_OK;  // no mapping: SQLite reads instead
  if (const int rc = flush(f); rc != SQLITE_OK) return rc;
  return M(f)->xFetch(f->real, at, n, out);
}

int x_unfetch(sqlite3_file* pf, sqlite3_int64 at, void* p) {
  File* f = F(pf);
  if (M(f)->iVersion < 3) return SQLITE_OK;
  return M(f)->xUnfetch(f->real, at, p);
}

const sqlite3_io_methods kMethods = {
    3,         x_close,       x_read,         x_write,       x_truncate,  x_sync,
    x_file_size, x_lock,      x_unlock,       x_check_reserved, x_file_control, x_sector_size,
    x_device,  x_shm_map,     x_shm_lock,     x_shm_barrier, x_shm_unmap, x_fetch,
    x_unfetch,
};

int x_open(sqlite3_vfs* vfs, sqlite3_filename name, sqlite3_file* pf, int flags, int* out_flags) {
  File* f = F(pf);
  f->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(pf) + sizeof(File));
  f->buf = nullptr;
  f->buf_at = 0;
  f->buf_len = 0;
  f->in_commit = false;
  f->ckpt = false;
  f->error = SQLITE_OK;
  f->peer = nullptr;
  f->vfs = state(vfs);
  f->db_name = nullptr;
  f->ra = nullptr;
  f->ra_at = 0;
  f->ra_len = 0;
  f->ckpt_size = 0;
  f->stats = ReadAheadStats{};
  f->wal = (flags & SQLITE_OPEN_WAL) != 0;
  const int rc = real_vfs(vfs)->xOpen(real_vfs(vfs), name, f->real, flags, out_flags);
  if (rc != SQLITE_OK) {
    pf->pMethods = nullptr;  // nothing to close
    return rc;
  }
  // The WAL's appends and the checkpoints' page writes into the database are batched; journals and
  // temporary files pass through, and so does a file whose buffer cannot be had.
  if (flags & (SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_DB)) f->buf = static_cast<unsigned char*>(sqlite3_malloc(kBufferBytes));
  pf->pMethods = &kMethods;
  // A WAL is linked to its connection's database: SQLite opens it with a name that
  // sqlite3_filename_database() maps back to the very string the database was opened with.
  if (name && (flags & (SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_DB))) {
    std::lock_guard<std::mutex> lock(f->vfs->mu);
    if (flags & SQLITE_OPEN_MAIN_DB) {
      f->db_name = name;
      f->vfs->dbs.push_back(f);
    } else {
      const char* db = sqlite3_filename_database(name);
      for (File* d : f->vfs->dbs) {
        if (d->db_name == db && !d->peer) {
          d->peer = f;
          f->peer = d;
          break;
        }
      }
    }
  }
  return SQLITE_OK;
}

// The VFS-level calls go to the default VFS as they are.
int x_delete(sqlite3_vfs* v, const char* p, int sync) { return real_vfs(v)->xDelete(real_vfs(v), p, sync); }
int x_access(sqlite3_vfs* v, const char* p, int flags, int* out) {
  return real_vfs(v)->xAccess(real_vfs(v), p, flags, out);
}
int x_full_pathname(sqlite3_vfs* v, const char* p, int n, char* out) {
  return real_vfs(v)->xFullPathname(real_vfs(v), p, n, out);
}
void* x_dl_open(sqlite3_vfs* v, const char* p) { return real_vfs(v)->xDlOpen(real_vfs(v), p); }
void x_dl_error(sqlite3_vfs* v, int n, char* out) { real_vfs(v)->xDlError(real_vfs(v), n, out); }
void (*x_dl_sym(sqlite3_vfs* v, void* h, const char* s))(void) { return real_vfs(v)->xDlSym(real_vfs(v), h, s); }
void x_dl_close(sqlite3_vfs* v, void* h) { real_vfs(v)->xDlClose(real_vfs(v), h); }
int x_randomness(sqlite3_vfs* v, int n, char* out) { return real_vfs(v)->xRandomness(real_vfs(v), n, out); }
int x_sleep(sqlite3_vfs* v, int us) { return real_vfs(v)->xSleep(real_vfs(v), us); }
int x_current_time(sqlite3_vfs* v, double* t) { return real_vfs(v)->xCurrentTime(real_vfs(v), t); }
int x_last_error(sqlite3_vfs* v, int n, char* out) { return real_vfs(v)->xGetLastError(real_vfs(v), n, out); }
int x_current_time64(sqlite3_vfs* v, sqlite3_int64* t) {
  return real_vfs(v)->xCurrentTimeInt64(real_vfs(v), t);
}

}  // namespace

const char* batch_vfs_name() {
  // Registered once per process and never changed after: SQLite's VFS list is process-wide.
  static const char* const name = []() -> const char* {
    sqlite3_vfs* real = sqlite3_vfs_find(nullptr);
    if (!real || real->iVersion < 2) return nullptr;
    static State st;
    st.real = real;
    static sqlite3_vfs vfs{};
    vfs.iVersion = 2;
    vfs.szOsFile = static_cast<int>(sizeof(File)) + real->szOsFile;
    vfs.mxPathname = real->mxPathname;
    vfs.zName = "hmtt-batch";
    vfs.pAppData = &st;
    vfs.xOpen = x_open;
    vfs.xDelete = x_delete;
    vfs.xAccess = x_access;
    vfs.xFullPathname = x_full_pathname;
    vfs.xDlOpen = x_dl_open;
    vfs.xDlError = x_dl_error;
    vfs.xDlSym = x_dl_sym;
    vfs.xDlClose = x_dl_close;
    vfs.xRandomness = x_randomness;
    vfs.xSleep = x_sleep;
    vfs.xCurrentTime = x_current_time;
    vfs.xGetLastError = x_last_error;
    vfs.xCurrentTimeInt64 = x_current_time64;
    if (sqlite3_vfs_register(&vfs, 0) != SQLITE_OK) return nullptr;
    return vfs.zName;
  }();
  return name;
}

}  // namespace hmtt::store::sql
