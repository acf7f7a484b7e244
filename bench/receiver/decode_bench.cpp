// The receiver's frame decoder against the wire codec's decode_frame (the
// baseline) on the same 5 M references of full frames: CPU ns per reference.
//   receiver_decode_bench [REFERENCES]
#include <ctime>
#include <cstdio>

#include <CLI/CLI.hpp>

#include "hmtt/host/frame_decoder.h"
#include "hmtt/host/synthetic_board.h"

using namespace hmtt;

namespace {
double cpu() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "The receiver's frame decoder against the wire codec's decode_frame (the baseline) on the same full frames "
      "of a synthetic board: CPU ns per reference, printed as one JSON object."};
  std::size_t refs = 5'000'000;
  app.add_option("REFERENCES", refs, "references to generate")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 32));
  CLI11_PARSE(app, argc, argv);
  auto board = host::SyntheticBoard::create({});
  if (!board) return std::fprintf(stderr, "receiver_decode_bench: %s\n", board.error().message.c_str()), 1;
  std::vector<wire::EncodedFrame> frames;
  if (auto st = board->generate(refs, frames, nullptr); !st.ok()) {
    return std::fprintf(stderr, "receiver_decode_bench: %s\n", st.error().message.c_str()), 1;
  }
  wire::DecodedFrame d;
  std::size_t a = 0, b = 0;
  const double t0 = cpu();
  for (const auto& f : frames)
    if (wire::decode_frame(f.bytes, d).ok()) a += d.refs.size();
  const double t1 = cpu();
  for (const auto& f : frames)
    if (host::decode_link_frame(f.bytes, d).ok()) b += d.refs.size();
  const double t2 = cpu();
  std::printf("{\"references\": %zu, \"codec_ns_per_ref\": %.2f, \"receiver_ns_per_ref\": %.2f, \"speedup\": %.1f}\n", a,
              (t1 - t0) / static_cast<double>(a) * 1e9, (t2 - t1) / static_cast<double>(b) * 1e9, (t1 - t0) / (t2 - t1));
  return a == b ? 0 : 1;
}
