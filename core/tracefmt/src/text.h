// Small text helpers shared by the line parsers and writers: tokens, numbers
// (std::from_chars / std::to_chars, no locale, no allocation) and quoting of
// bad input for error messages.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace hmtt::tracefmt::detail {

#define HMTT_HOT [[gnu::always_inline]] inline

// ' ', \t, \r, \v, \f: one compare for printable characters, the common case.
HMTT_HOT constexpr bool is_blank(char c) {
  auto u = static_cast<unsigned char>(c);
  return u <= ' ' && (u == ' ' || (u >= '\t' && u <= '\r' && u != '\n'));
}

inline bool all_blank(std::string_view s) {
  for (char c : s)
    if (!is_blank(c)) return false;
  return true;
}

// The next whitespace-separated token of `s`; `s` is advanced past it.
HMTT_HOT std::string_view next_token(std::string_view& s) {
  std::size_t i = 0;
  while (i < s.size() && is_blank(s[i])) ++i;
  std::size_t j = i;
  while (j < s.size() && !is_blank(s[j])) ++j;
  std::string_view tok = s.substr(i, j - i);
  s.remove_prefix(j);
  return tok;
}

enum class NumStatus { Ok, Bad, Overflow };

// Value of a hex digit, or -1.
struct HexTable {
  signed char v[256];
  constexpr HexTable() : v() {
    for (int i = 0; i < 256; ++i) v[i] = -1;
    for (int i = 0; i < 10; ++i) v['0' + i] = static_cast<signed char>(i);
    for (int i = 0; i < 6; ++i) {
      v['a' + i] = static_cast<signed char>(10 + i);
      v['A' + i] = static_cast<signed char>(10 + i);
    }
  }
};
inline constexpr HexTable kHex{};

// Digits in base 10 or 16, the whole token, nothing else (no sign, no prefix).
// Hand-written: the importers' inner loop.
HMTT_HOT NumStatus parse_uint(std::string_view tok, std::uint64_t& v, int base) {
  if (tok.empty()) return NumStatus::Bad;
  std::uint64_t x = 0;
  bool overflow = false;
  if (base == 16) {
    for (char ch : tok) {
      int d = kHex.v[static_cast<unsigned char>(ch)];
      if (d < 0) return NumStatus::Bad;
      overflow |= (x >> 60) != 0;
      x = (x << 4) | static_cast<unsigned>(d);
    }
  } else {
    for (char ch : tok) {
      unsigned d = static_cast<unsigned char>(ch) - static_cast<unsigned>('0');
      if (d > 9) return NumStatus::Bad;
      overflow |= __builtin_mul_overflow(x, 10u, &x);
      overflow |= __builtin_add_overflow(x, d, &x);
    }
  }
  if (overflow) return NumStatus::Overflow;
  v = x;
  return NumStatus::Ok;
}

HMTT_HOT bool has_0x(std::string_view tok) {
  return tok.size() >= 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X');
}

// Hexadecimal with an optional 0x/0X prefix.
HMTT_HOT NumStatus parse_hex_opt0x(std::string_view tok, std::uint64_t& v) {
  if (has_0x(tok)) tok.remove_prefix(2);
  return parse_uint(tok, v, 16);
}

// 'tok' quoted for an error message: printable ASCII kept, other bytes as \xNN,
// long tokens cut.
inline std::string quote(std::string_view tok) {
  static const char* hex = "0123456789abcdef";
  std::string q = "'";
  std::size_t n = 0;
  for (char ch : tok) {
    if (++n > 40) {
      q += "...";
      break;
    }
    auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '\'') {
      q += ch;
    } else {
      q += "\\x";
      q += hex[c >> 4];
      q += hex[c & 15];
    }
  }
  q += "'";
  return q;
}

// Appends decimal / lowercase hex digits at p (room for 20 chars needed).
inline char* put_dec(char* p, std::uint64_t v) { return std::to_chars(p, p + 20, v).ptr; }
inline char* put_hex(char* p, std::uint64_t v) { return std::to_chars(p, p + 16, v, 16).ptr; }
// Hex padded with zeros to at least `width` digits (printf "%0*lx").
inline char* put_hex_padded(char* p, std::uint64_t v, int width) {
  char tmp[16];
  char* e = std::to_chars(tmp, tmp + 16, v, 16).ptr;
  auto len = static_cast<int>(e - tmp);
  for (int i = len; i < width; ++i) *p++ = '0';
  for (char* q = tmp; q < e; ++q) *p++ = *q;
  return p;
}
inline char* put_str(char* p, std::string_view s) {
  for (char c : s) *p++ = c;
  return p;
}

}  // namespace hmtt::tracefmt::detail
