// A thin RAII layer over the SQLite C API for the store (internal header).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

#include "hmtt/result.h"

namespace hmtt::store::sql {

class Db {
 public:
  Db() = default;
  ~Db() { close(); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  Db(Db&& o) noexcept : db_(o.db_), path_(std::move(o.path_)) { o.db_ = nullptr; }

  // vfs: a registered VFS name (batch_vfs_name()), or nullptr for SQLite's default.
  Status open(const std::string& path, int flags, const char* vfs = nullptr);
  void close();
  Status exec(const std::string& sql);
  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }
  // "path: sqlite: <what> (<sqlite message>)"
  Error error(const std::string& what) const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

class Stmt {
 public:
  Stmt() = default;
  ~Stmt() { sqlite3_finalize(st_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt(Stmt&& o) noexcept : st_(o.st_), db_(o.db_) { o.st_ = nullptr; }
  Stmt& operator=(Stmt&& o) noexcept {
    if (this != &o) {
      sqlite3_finalize(st_);
      st_ = o.st_;
      db_ = o.db_;
      o.st_ = nullptr;
    }
    return *this;
  }

  Status prepare(const Db& db, const std::string& sql);
  void reset() {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
  }
  void bind(int i, std::int64_t v) { sqlite3_bind_int64(st_, i, v); }
  void bind_u64(int i, std::uint64_t v) { sqlite3_bind_int64(st_, i, static_cast<std::int64_t>(v)); }
  void bind(int i, const std::string& v) {
    sqlite3_bind_text(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void bind_blob(int i, std::span<const std::uint8_t> v) {
    sqlite3_bind_blob64(st_, i, v.data(), v.size(), SQLITE_STATIC);
  }
  // Binds ?1, ?2, ... to the values in order: strings as text, signed integers as they are,
  // unsigned ones, enums and bools (0/1) as their 64-bit value.
  template <class... V>
  void bind_all(const V&... v) {
    int i = 0;
    (bind_value(++i, v), ...);
  }
  // SQLITE_ROW -> true, SQLITE_DONE -> false, else an error.
  Result<bool> step();
  Status run();  // step to DONE, then reset

  std::int64_t i64(int c) const { return sqlite3_column_int64(st_, c); }
  std::uint64_t u64(int c) const { return static_cast<std::uint64_t>(sqlite3_column_int64(st_, c)); }
  std::string text(int c) const;
  std::span<const std::uint8_t> blob(int c) const;
  int type(int c) const { return sqlite3_column_type(st_, c); }

 private:
  template <class V>
  void bind_value(int i, const V& v) {
    if constexpr (std::is_same_v<V, std::string>) {
      bind(i, v);
    } else if constexpr (std::is_enum_v<V>) {
      bind_u64(i, static_cast<std::uint64_t>(v));
    } else if constexpr (std::is_same_v<V, bool>) {
      bind_u64(i, v ? 1 : 0);
    } else {
      static_assert(std::is_integral_v<V>, "bind_all takes strings, integers, enums and bools");
      if constexpr (std::is_signed_v<V>) {
        bind(i, static_cast<std::int64_t>(v));
      } else {
        bind_u64(i, v);
      }
    }
  }

  sqlite3_stmt* st_ = nullptr;
  const Db* db_ = nullptr;
};

}  // namespace hmtt::store::sql
