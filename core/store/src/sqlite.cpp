#include "sqlite.h"

namespace hmtt::store::sql {

Status Db::open(const std::string& path, int flags, const char* vfs) {
  close();
  path_ = path;
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags, vfs);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    close();
    return make_error(path + ": cannot open: " + msg);
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, 5000);
  return Status::success();
}

void Db::close() {
  if (db_) sqlite3_close_v2(db_);
  db_ = nullptr;
}

Status Db::exec(const std::string& sql) {
  char* msg = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg);
  if (rc != SQLITE_OK) {
    std::string m = msg ? msg : sqlite3_errstr(rc);
    sqlite3_free(msg);
    return make_error(path_ + ": sqlite: " + m + " (in: " + sql.substr(0, 60) + ")");
  }
  return Status::success();
}

Error Db::error(const std::string& what) const {
  return make_error(path_ + ": sqlite: " + what + ": " + (db_ ? sqlite3_errmsg(db_) : "no database"));
}

Status Stmt::prepare(const Db& db, const std::string& sql) {
  sqlite3_finalize(st_);
  st_ = nullptr;
  db_ = &db;
  if (sqlite3_prepare_v3(db.get(), sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &st_, nullptr) != SQLITE_OK) {
    return db.error("prepare \"" + sql.substr(0, 60) + "\"");
  }
  return Status::success();
}

Result<bool> Stmt::step() {
  int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  Error e = db_->error("step");
  sqlite3_reset(st_);
  return e;
}

Status Stmt::run() {
  auto r = step();
  reset();
  if (!r) return r.error();
  return Status::success();
}

std::string Stmt::text(int c) const {
  const auto* p = sqlite3_column_text(st_, c);
  int n = sqlite3_column_bytes(st_, c);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n)) : std::string();
}

std::span<const std::uint8_t> Stmt::blob(int c) const {
  const auto* p = static_cast<const std::uint8_t*>(sqlite3_column_blob(st_, c));
  int n = sqlite3_column_bytes(st_, c);
  if (!p || n <= 0) return {};
  return {p, static_cast<std::size_t>(n)};
}

}  // namespace hmtt::store::sql
