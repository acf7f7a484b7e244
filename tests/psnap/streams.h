// Known-answer reference streams for the PSnAP tests.
#pragma once

#include <cstdint>
#include <vector>

#include "hmtt/reference.h"

namespace psnap_test {

inline hmtt::Reference ref(std::uint64_t address, hmtt::Kind kind = hmtt::Kind::Read, std::uint32_t size = 8) {
  return {0, address, size, kind, hmtt::Origin::Unknown, 0};
}

// Two arrays swept in lock step, `reps` times: A (512 doubles, stride +8) and
// B (`b_lines` lines, stride +64, written).
inline std::vector<hmtt::Reference> two_sweeps(int reps, std::uint64_t b_lines = 256) {
  std::vector<hmtt::Reference> t;
  for (int r = 0; r < reps; ++r)
    for (std::uint64_t i = 0; i < 512; ++i) {
      t.push_back(ref(0x100000 + 8 * i));
      t.push_back(ref(0x800000 + 64 * (i % b_lines), hmtt::Kind::Write));
    }
  for (std::size_t i = 0; i < t.size(); ++i) t[i].time = i;
  return t;
}

}  // namespace psnap_test
