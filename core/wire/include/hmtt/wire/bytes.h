// Big-endian loads and stores: every multi-byte field of the wire format (docs/wire-format.md) and of
// the Ethernet, IPv4 and UDP headers around it is stored most significant byte first.
#pragma once

#include <cstdint>

namespace hmtt::wire {

inline std::uint16_t load_be16(const std::uint8_t* p) { return static_cast<std::uint16_t>((p[0] << 8) | p[1]); }
inline std::uint32_t load_be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}
inline std::uint64_t load_be64(const std::uint8_t* p) { return (std::uint64_t{load_be32(p)} << 32) | load_be32(p + 4); }

inline void store_be16(std::uint16_t v, std::uint8_t* p) {
  p[0] = static_cast<std::uint8_t>(v >> 8);
  p[1] = static_cast<std::uint8_t>(v);
}
inline void store_be32(std::uint32_t v, std::uint8_t* p) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}
inline void store_be64(std::uint64_t v, std::uint8_t* p) {
  store_be32(static_cast<std::uint32_t>(v >> 32), p);
  store_be32(static_cast<std::uint32_t>(v), p + 4);
}

}  // namespace hmtt::wire
