#include <doctest/doctest.h>

#include "hmtt/result.h"
#include "hmtt/stream.h"

using namespace hmtt;

namespace {
Status fails_when(bool bad) {
  if (bad) return make_error("x.din:3: bad kind");
  return Status::success();
}
Status propagates(bool bad) {
  HMTT_TRY(fails_when(bad));
  return Status::success();
}

class CountingSink final : public ReferenceSink {
 public:
  Status write(std::span<const Reference> refs) override {
    for (const auto& r : refs) sum += r.address;
    batches++;
    return Status::success();
  }
  Status finish() override {
    finished = true;
    return Status::success();
  }
  std::uint64_t sum = 0;
  int batches = 0;
  bool finished = false;
};
}  // namespace

TEST_CASE("Result carries a value or an error naming the place") {
  Result<int> a = 7;
  REQUIRE(a.ok());
  CHECK(*a == 7);
  Result<int> b = make_error("trace.csv:2: expected 3 fields");
  REQUIRE_FALSE(b.ok());
  CHECK(b.error().message == "trace.csv:2: expected 3 fields");
  CHECK(propagates(false).ok());
  auto st = propagates(true);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message == "x.din:3: bad kind");
}

TEST_CASE("pump moves every reference in batches and finishes the sink") {
  std::vector<Reference> refs;
  std::uint64_t expect = 0;
  for (std::uint64_t i = 0; i < 10001; ++i) {
    refs.push_back(Reference{i, i * 64, 64, Kind::Read, Origin::Unknown, 0});
    expect += i * 64;
  }
  VectorSource src(refs);
  CountingSink sink;
  auto n = pump(src, sink, 1000);
  REQUIRE(n.ok());
  CHECK(*n == 10001);
  CHECK(sink.sum == expect);
  CHECK(sink.batches == 11);
  CHECK(sink.finished);
}

TEST_CASE("collect returns the stream in order") {
  std::vector<Reference> refs{{1, 2, 4, Kind::Write, Origin::Cpu, 3}, {5, 6, 8, Kind::IFetch, Origin::Dma, 1}};
  VectorSource src(refs);
  auto all = collect(src);
  REQUIRE(all.ok());
  CHECK(*all == refs);
}
