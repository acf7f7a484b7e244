// The receiver's checksums at line rate: CRC-32 (IEEE 802.3, as zlib's crc32:
// the frame trailer and the Ethernet FCS) folded with PCLMULQDQ when the CPU
// has it (Gopal et al., "Fast CRC Computation for Generic Polynomials Using
// PCLMULQDQ Instruction", Intel 2009), else zlib; and the Internet checksum
// (RFC 1071) summed 32 bits at a time. Both are checked against the plain
// versions (zlib, wire codec) on every length in tests/receiver.
#pragma once

#include <cstdint>
#include <span>

namespace hmtt::host {

// Same value as zlib's crc32(0, bytes, size).
std::uint32_t fast_crc32(std::span<const std::uint8_t> bytes);
// The one's-complement sum of big-endian 16-bit words (odd tail padded with zero), folded to 16 bits,
// plus `initial`; the Internet checksum is its complement.
std::uint16_t ones_sum16(std::span<const std::uint8_t> bytes, std::uint64_t initial = 0);
// True if the PCLMULQDQ path is in use.
bool crc32_uses_pclmul();

}  // namespace hmtt::host
