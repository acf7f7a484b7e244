// A minimal reader of Valgrind lackey `--trace-mem=yes` output, so that METRIC
// can compress traces of real programs:
//
//   I  04017e20,3        instruction fetch (skipped unless with_ifetch)
//    L 1ffefffdf8,8      load   -> Kind::Read
//    S 1ffefffdf8,8      store  -> Kind::Write
//    M 0422a1b8,4        modify -> Kind::Modify
//
// Lines starting with "==" or "--" (Valgrind's own messages) are skipped.
// Each reference's time is its position among the references kept; origin cpu 0.
// The shared importer of core/tracefmt supersedes this once it exists.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "hmtt/stream.h"

namespace hmtt::metric {

class LackeySource final : public ReferenceSource {
 public:
  static Result<std::unique_ptr<LackeySource>> open(const std::string& path, bool with_ifetch = false);
  ~LackeySource() override;
  LackeySource(const LackeySource&) = delete;
  LackeySource& operator=(const LackeySource&) = delete;
  Result<std::size_t> read(std::span<Reference> out) override;

 private:
  LackeySource(std::FILE* f, std::string path, bool with_ifetch) : f_(f), path_(std::move(path)), ifetch_(with_ifetch) {}
  std::FILE* f_;
  std::string path_;
  bool ifetch_;
  std::uint64_t line_ = 0;
  std::uint64_t count_ = 0;
  bool failed_ = false;
  std::string error_;
};

}  // namespace hmtt::metric
