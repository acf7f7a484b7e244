// Shared helpers of the metric tests: compress a stream in memory, expand it
// back, and compare event by event.
#pragma once

#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "hmtt/metric/compressor.h"
#include "hmtt/metric/expander.h"
#include "hmtt/metric/format.h"

namespace metric_test {

using namespace hmtt;
using namespace hmtt::metric;

// A PointedSource over vectors, with `npoints` anonymous points.
class VectorPointedSource final : public PointedSource {
 public:
  VectorPointedSource(std::vector<Reference> refs, std::vector<std::uint32_t> pts, std::uint32_t npoints)
      : refs_(std::move(refs)), pts_(std::move(pts)) {
    for (std::uint32_t i = 0; i < npoints; ++i) table_.push_back(ReferencePoint{"p" + std::to_string(i), "", 0, ""});
  }
  Result<std::size_t> read_pointed(std::span<Reference> r, std::span<std::uint32_t> p) override {
    std::size_t n = 0;
    while (n < r.size() && n < p.size() && pos_ < refs_.size()) {
      r[n] = refs_[pos_];
      p[n] = pts_[pos_];
      ++n;
      ++pos_;
    }
    return n;
  }
  const std::vector<ReferencePoint>& points() const override { return table_; }

 private:
  std::vector<Reference> refs_;
  std::vector<std::uint32_t> pts_;
  std::vector<ReferencePoint> table_;
  std::size_t pos_ = 0;
};

struct RoundTrip {
  CompressionStats stats;
  std::shared_ptr<const CompressedTrace> trace;
};

inline RoundTrip compress_to_memory(PointedSource& src, CompressorOptions opt = {}) {
  MemoryByteSink sink;
  auto st = compress(src, sink, opt);
  REQUIRE_MESSAGE(st.ok(), (st.ok() ? "" : st.error().message));
  CHECK(st->file_bytes == sink.bytes().size());
  auto tr = CompressedTrace::parse(sink.take(), "mem.mtrc");
  REQUIRE_MESSAGE(tr.ok(), (tr.ok() ? "" : tr.error().message));
  return {*st, std::make_shared<const CompressedTrace>(std::move(*tr))};
}

// Compresses refs/pts, expands, and requires the identical stream back.
inline CompressionStats check_roundtrip(const std::vector<Reference>& refs, const std::vector<std::uint32_t>& pts,
                                        CompressorOptions opt = {}, std::uint32_t npoints = 1) {
  VectorPointedSource src(refs, pts, npoints);
  auto rt = compress_to_memory(src, opt);
  CHECK(rt.trace->events() == refs.size());
  ExpandedSource ex(rt.trace);
  std::vector<Reference> out(1000);
  std::vector<std::uint32_t> op(1000);
  std::size_t pos = 0;
  bool same = true;
  for (;;) {
    auto n = ex.read_pointed(out, op);
    REQUIRE_MESSAGE(n.ok(), (n.ok() ? "" : n.error().message));
    if (*n == 0) break;
    for (std::size_t i = 0; i < *n && same; ++i, ++pos) {
      if (pos >= refs.size() || !(out[i] == refs[pos]) || op[i] != pts[pos]) {
        same = false;
        FAIL_CHECK("event " << pos << " differs after expansion");
      }
    }
    if (!same) break;
  }
  CHECK(same);
  if (same) CHECK(pos == refs.size());
  return rt.stats;
}

// Pulls a PointedSource dry into (reference, point) pairs (small streams only).
inline std::vector<std::pair<Reference, std::uint32_t>> collect_pointed(PointedSource& src) {
  std::vector<std::pair<Reference, std::uint32_t>> all;
  std::vector<Reference> r(512);
  std::vector<std::uint32_t> p(512);
  for (;;) {
    auto n = src.read_pointed(r, p);
    REQUIRE(n.ok());
    if (*n == 0) break;
    for (std::size_t i = 0; i < *n; ++i) all.emplace_back(r[i], p[i]);
  }
  return all;
}

}  // namespace metric_test
