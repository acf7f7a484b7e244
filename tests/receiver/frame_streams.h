// Generated link traffic for the receiver tests: boards' frames interleaved in
// arrival order, fault injection, and the expected merge computed by sorting
// the codec's own decoding of the frames that survive.
#pragma once

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "hmtt/host/link_source.h"
#include "hmtt/host/synthetic_board.h"
#include "hmtt/wire/frame.h"

namespace hmtt::test {

struct WireFrame {
  std::uint32_t board = 0;
  std::uint8_t link = 0;
  std::vector<std::uint8_t> bytes;
  std::uint16_t port() const { return static_cast<std::uint16_t>(7400 + 4 * board + link); }
};

struct Traffic {
  std::vector<WireFrame> frames;  // in arrival order
  std::vector<host::SyntheticTruth> truth;  // per board
};

// `boards` boards of `links` links each, `refs` references per board; the boards'
// frames interleave at random (each board's own order kept).
inline Traffic make_traffic(unsigned boards, std::uint8_t links, std::size_t refs, std::uint64_t seed,
                            host::SyntheticConfig base = {}) {
  Traffic t;
  std::vector<std::vector<WireFrame>> per(boards);
  t.truth.resize(boards);
  for (unsigned b = 0; b < boards; ++b) {
    host::SyntheticConfig c = base;
    c.board = static_cast<std::uint8_t>(b);
    c.links = links;
    c.seed = seed * 1000 + b;
    auto sb = host::SyntheticBoard::create(c);
    REQUIRE(sb.ok());
    std::vector<wire::EncodedFrame> frames;
    REQUIRE(sb->generate(refs, frames, &t.truth[b]).ok());
    for (auto& f : frames) per[b].push_back(WireFrame{b, f.link, std::move(f.bytes)});
  }
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> at(boards, 0);
  for (;;) {
    std::vector<unsigned> open;
    for (unsigned b = 0; b < boards; ++b)
      if (at[b] < per[b].size()) open.push_back(b);
    if (open.empty()) break;
    const unsigned b = open[rng() % open.size()];
    t.frames.push_back(std::move(per[b][at[b]++]));
  }
  return t;
}

struct Tagged {
  Reference ref;
  std::uint32_t board;
};

// The merge the receiver must produce from `frames`: every frame the codec accepts, its
// references sorted by (time, board) (stable, so a board's own order is kept).
inline std::vector<Reference> expected_merge(const std::vector<const WireFrame*>& frames) {
  std::vector<Tagged> all;
  wire::DecodedFrame d;
  for (const WireFrame* f : frames) {
    if (!wire::decode_frame(f->bytes, d).ok()) continue;
    for (const auto& r : d.refs) all.push_back({r, f->board});
  }
  std::stable_sort(all.begin(), all.end(), [](const Tagged& a, const Tagged& b) {
    return a.ref.time != b.ref.time ? a.ref.time < b.ref.time : a.board < b.board;
  });
  std::vector<Reference> out;
  out.reserve(all.size());
  for (const auto& t : all) out.push_back(t.ref);
  return out;
}

inline void to_batch(const std::vector<WireFrame>& frames, std::size_t from, std::size_t to, host::FrameBatch& batch) {
  batch.clear();
  for (std::size_t i = from; i < to; ++i) batch.add(frames[i].bytes, frames[i].port(), i);
}

}  // namespace hmtt::test
