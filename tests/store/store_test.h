// Shared helpers for the store tests.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "hmtt/reference.h"
#include "../temp_dir.h"

namespace hmtt::store::test {

// A fresh directory under the system temp dir, removed at scope exit.
struct TempDir : hmtt::test::TempDir {
  TempDir() : hmtt::test::TempDir("hmtt-store") {}
};

// A deterministic mixed trace: reference i of the stream (sequential, strided and scattered parts).
inline Reference synthetic_reference(std::uint64_t i) {
  Reference r;
  r.time = i * 8 + (i % 7);
  switch (i % 4) {
    case 0: r.address = 0x10000000 + 64 * (i / 4); r.kind = Kind::Read; break;
    case 1: r.address = 0x20000000 + 4096 * ((i / 4) % 1000); r.kind = Kind::Write; break;
    case 2: r.address = ((i * 0x9E3779B97F4A7C15ULL) >> 20) & ~std::uint64_t{63}; r.kind = Kind::Read; break;
    default: r.address = 0x400000 + 4 * (i % 5000); r.kind = Kind::IFetch; break;
  }
  r.size = r.kind == Kind::IFetch ? 4 : 64;
  r.origin = Origin::Cpu;
  r.source = static_cast<std::uint16_t>(i % 2);
  return r;
}

}  // namespace hmtt::store::test
