// Small text helpers shared by the line parsers and writers: tokens, numbers
// (std::from_chars / std::to_chars, no locale, no allocation) and quoting of
// bad input for error messages.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace hmtt::tracefmt::detail {

constexpr bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

inline bool all_blank(std::string_view s) {
  for (char c : s)
    if (!is_blank(c)) return false;
  return true;
}

// The next whitespace-separated token of `s`; `s` is advanced past it.
inline std::string_view next_token(std::string_view& s) {
  std::size_t i = 0;
  while (i < s.size() && is_blank(s[i])) ++i;
  std::size_t j = i;
  while (j < s.size() && !is_blank(s[j])) ++j;
  std::string_view tok = s.substr(i, j - i);
  s.remove_prefix(j);
  return tok;
}

enum class NumStatus { Ok, Bad, Overflow };

// Digits in base 10 or 16, the whole token, nothing else.
inline NumStatus parse_uint(std::string_view tok, std::uint64_t& v, int base) {
  if (tok.empty()) return NumStatus::Bad;
  auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v, base);
  if (ec == std::errc::result_out_of_range) return NumStatus::Overflow;
  if (ec != std::errc() || p != tok.data() + tok.size()) return NumStatus::Bad;
  return NumStatus::Ok;
}

inline bool has_0x(std::string_view tok) {
  return tok.size() >= 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X');
}

// Hexadecimal with an optional 0x/0X prefix.
inline NumStatus parse_hex_opt0x(std::string_view tok, std::uint64_t& v) {
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
