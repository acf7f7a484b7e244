// Errors as values: every fallible call in hmtt returns Result<T> (or Status).
//
// An Error carries a message that names the place (file, offset, line, field)
// and the reason, ready to print as-is: "trace.din:17: bad access type 'x'".
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace hmtt {

struct Error {
  std::string message;
};

// Result<T>: either a T or an Error. Test with ok(), read with value() / error().
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(v_); }
  const T& value() const& { assert(ok()); return std::get<0>(v_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { assert(!ok()); return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Status: success or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit by design
  static Status success() { return {}; }

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { assert(!ok_); return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

inline Error make_error(std::string message) { return Error{std::move(message)}; }

}  // namespace hmtt

// Propagate an error from a Status- or Result-returning expression.
#define HMTT_TRY(expr)                                  \
  do {                                                  \
    auto hmtt_try_status_ = (expr);                     \
    if (!hmtt_try_status_.ok()) return hmtt_try_status_.error(); \
  } while (0)
