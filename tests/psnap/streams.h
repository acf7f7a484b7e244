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

// A program-like mix in `phases` phases of 6000 references: instruction
// fetches in a small code region, a sweep over one of two arrays (alternating
// by phase, so the window segmentation finds several loops), a descending
// stack, and pointer chasing over a large heap (random strides, merged regions).
inline std::vector<hmtt::Reference> mixed(int phases) {
  std::vector<hmtt::Reference> t;
  std::uint64_t x = 7;
  auto rnd = [&] { return (x = x * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  for (int phase = 0; phase < phases; ++phase) {
    const std::uint64_t arr = phase % 2 ? 0x4000000 : 0x6000000;
    for (std::uint64_t i = 0; i < 1000; ++i) {
      t.push_back(ref(0x400000 + 4 * (i % 24), hmtt::Kind::IFetch, 1 + static_cast<std::uint32_t>(i % 5)));
      t.push_back(ref(arr + 8 * i));
      t.push_back(ref(0x7ff000 - 8 * (i % 32), i % 3 ? hmtt::Kind::Write : hmtt::Kind::Modify, 4));
      t.push_back(ref(0x10000000 + 64 * (rnd() % 100000)));
      t.push_back(ref(0x400000 + 4 * ((i + 7) % 24), hmtt::Kind::IFetch, 3));
      t.push_back(ref(arr + 8 * i + 0x20000 - 24 * (i % 9)));
    }
  }
  for (std::size_t i = 0; i < t.size(); ++i) t[i].time = i;
  return t;
}

// A table of 256 rows of 1 KB read down its columns, 8 bytes at a time
// (column c: rows 0 .. 255 at base + 1024 r + c), `columns` columns from 0:
// every step down a column is a +1024 stride, a random one for PSnAP's bins,
// and returns to the line read 256 accesses earlier unless the column enters
// a new 64-byte line.
inline std::vector<hmtt::Reference> column_walk(std::uint64_t columns = 128) {
  std::vector<hmtt::Reference> t;
  for (std::uint64_t c = 0; c < columns; ++c)
    for (std::uint64_t r = 0; r < 256; ++r) t.push_back(ref(0x2000000 + 1024 * r + 8 * c));
  for (std::size_t i = 0; i < t.size(); ++i) t[i].time = i;
  return t;
}

// bzip2's mainSort over its 256 x 256 table of 4-byte bucket counts (1 KB rows) at 0x3000000, for
// `columns` buckets ss in a scattered order: row ss read across (ftab[sb], ftab[sb + 1]: +4 then 0),
// then columns ss and ss + 1 read down together (+4, +1020: copyStart / copyEnd), then column ss
// marked down (+1024: SETMASK, one run of 255 steps).
inline std::vector<hmtt::Reference> bucket_table(std::uint64_t columns = 64) {
  std::vector<hmtt::Reference> t;
  auto at = [](std::uint64_t row, std::uint64_t col) { return 0x3000000 + 1024 * row + 4 * col; };
  for (std::uint64_t i = 0; i < columns; ++i) {
    const std::uint64_t ss = (i * 97) % 255;
    for (std::uint64_t j = 0; j < 255; ++j) {
      t.push_back(ref(at(ss, j), hmtt::Kind::Read, 4));
      t.push_back(ref(at(ss, j + 1), hmtt::Kind::Read, 4));
    }
    for (std::uint64_t j = 0; j < 256; ++j) {
      t.push_back(ref(at(j, ss), hmtt::Kind::Read, 4));
      t.push_back(ref(at(j, ss + 1), hmtt::Kind::Read, 4));
    }
    for (std::uint64_t j = 0; j < 256; ++j) t.push_back(ref(at(j, ss), hmtt::Kind::Modify, 4));
  }
  for (std::size_t i = 0; i < t.size(); ++i) t[i].time = i;
  return t;
}

// A list of `nodes` nodes, one per 4 KB page, walked twice in every window of
// 1000 references (so each node's region has 2 accesses a window and is
// merged), between 800 reads of a hot 400-byte array; `windows` windows.
// Every visit after the first walk returns to the line visited `nodes`
// list visits earlier.
inline std::vector<hmtt::Reference> list_walks(int windows, std::uint64_t nodes = 100) {
  std::vector<hmtt::Reference> t;
  std::uint64_t hot = 0;
  for (int w = 0; w < windows; ++w) {
    for (int pass = 0; pass < 2; ++pass)
      for (std::uint64_t n = 0; n < nodes; ++n) {
        t.push_back(ref(0x10000000 + 4096 * ((n * 37) % nodes) + 8));
        for (int k = 0; k < 4; ++k) t.push_back(ref(0x200000 + 8 * (hot++ % 50)));
      }
  }
  for (std::size_t i = 0; i < t.size(); ++i) t[i].time = i;
  return t;
}

}  // namespace psnap_test
