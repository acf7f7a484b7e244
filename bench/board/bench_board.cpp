// Board benchmarks (docs/benchmarks.md, "Board"):
//  1. C++ board model: bus commands consumed per second (target >= 50 M/s), as a
//     ratio to a baseline that only decodes the same pins (decode_pins) in the same run;
//     the whole bus in one call (frames collected at the end), then in spans as `hmtt sim`;
//  2. co-simulation: DDR clock cycles per second of the Verilated RTL board
//     (target >= 1 M/s), as a ratio to the C++ model on the same bus.
// Usage: bench_board [accesses_for_model=4000000] [accesses_for_rtl=300000] [--json]
#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include <CLI/CLI.hpp>

#include "hmtt/board/access_sequencer.h"
#include "json_figures.h"
#include "hmtt/board/board_model.h"
#include "hmtt/cosim/cosim.h"

using namespace hmtt;

namespace {

// Thread CPU time: the machine is shared, wall time would count other processes' turns.
double now_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

board::AccessSequencer make_bus(const sim::AddressMap& map, std::size_t n, std::uint64_t cfg_base) {
  board::SequencerTiming t;
  board::AccessSequencer seq(map, t);
  std::mt19937_64 rng(42);
  std::uint64_t seq_addr = 0;
  for (std::size_t i = 0; i < n; ++i) {
    // Half sequential 4 KB units, half random lines; dense bursts and pauses.
    std::uint64_t a;
    if ((i / 64) % 2 == 0) {
      a = seq_addr;
      seq_addr = (seq_addr + 64) % cfg_base;
    } else {
      a = (rng() % cfg_base) & ~std::uint64_t{63};
    }
    seq.add(a, (rng() & 3) == 0, (i / 5000) % 2 ? static_cast<std::uint32_t>(rng() % 16) : 0);
  }
  return seq;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Speed of the C++ board model (bus commands/s, against decoding the pins alone) and of the Verilated "
      "RTL board in co-simulation (DDR cycles/s, against the model on the same bus)."};
  std::size_t n_model = 4000000;
  std::size_t n_rtl = 300000;
  bool json = false;
  app.add_option("MODEL_ACCESSES", n_model, "memory accesses on the bus for the model's run")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30));
  app.add_option("RTL_ACCESSES", n_rtl, "accesses for the co-simulation run (0 skips it)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 30));
  app.add_flag("--json", json, "print the figures as one JSON object (the text goes to stderr)");
  CLI11_PARSE(app, argc, argv);
  std::FILE* out = json ? stderr : stdout;
  bench::JsonFigures js;
  auto jnum = [&js](const char* key, double v) { js.number(key, v); };
  auto finish_json = [&](int rc) {
    if (json) js.print();
    return rc;
  };
  auto map = *sim::AddressMap::builtin("open-page");
  board::BoardConfig c;
  c.map = map;
  c.config_base = board::default_config_base(map);
  c.config_size = board::kDefaultConfigSize;
  c.encoder.links = 2;

  // 1. model
  auto seq = make_bus(map, n_model, c.config_base);
  const auto& bus = seq.bus();
  double t0 = now_s();
  std::uint64_t sink = 0;
  for (const auto& bc : bus) sink += static_cast<std::uint64_t>(sim::decode_pins(bc.pins).cmd);
  const double t_decode = now_s() - t0;
  auto model = *board::BoardModel::create(c);
  t0 = now_s();
  if (!model.consume(bus).ok() || !model.finish().ok()) {
    std::fprintf(stderr, "bench_board: model failed\n");
    return 1;
  }
  std::size_t frames = 0;
  while (model.has_frame()) {
    model.pop_frame();
    ++frames;
  }
  const double t_model = now_s() - t0;
  const double model_rate = static_cast<double>(bus.size()) / t_model;
  std::fprintf(out, "board model: %zu commands (%zu RD/WR), %zu frames in %.3f s CPU: %.1f M commands/s "
              "(decode-only baseline %.1f M/s, ratio %.2f) [target >= 50 M/s: %s]\n",
              bus.size(), seq.issued().size(), frames, t_model, model_rate / 1e6,
              static_cast<double>(bus.size()) / t_decode / 1e6, t_decode / t_model,
              model_rate >= 50e6 ? "met" : "NOT met");
  if (sink == 1) std::fprintf(out, " ");
  jnum("model_commands", static_cast<double>(bus.size()));
  jnum("model_commands_per_s", model_rate);
  jnum("decode_only_commands_per_s", static_cast<double>(bus.size()) / t_decode);
  // The same bus in spans, popping frames as they come (how `hmtt sim` drives the model):
  // the frames' memory is reused instead of 20 MB of fresh pages.
  auto spans = *board::BoardModel::create(c);
  constexpr std::size_t kSpan = 4096;
  std::size_t span_frames = 0;
  t0 = now_s();
  for (std::size_t pos = 0; pos < bus.size(); pos += kSpan) {
    const std::size_t n = std::min(kSpan, bus.size() - pos);
    if (!spans.consume(std::span<const sim::BusCycle>(bus).subspan(pos, n)).ok()) {
      std::fprintf(stderr, "bench_board: model failed\n");
      return 1;
    }
    for (; spans.has_frame(); ++span_frames) spans.pop_frame();
  }
  if (!spans.finish().ok()) {
    std::fprintf(stderr, "bench_board: model failed\n");
    return 1;
  }
  for (; spans.has_frame(); ++span_frames) spans.pop_frame();
  const double t_spans = now_s() - t0;
  std::fprintf(out, "board model in %zu-command spans, frames popped as they come: %zu frames in %.3f s CPU: %.1f M commands/s\n",
              kSpan, span_frames, t_spans, static_cast<double>(bus.size()) / t_spans / 1e6);

  jnum("model_spans_commands_per_s", static_cast<double>(bus.size()) / t_spans);
  if (n_rtl == 0) return finish_json(0);
  // 2. co-simulation
  auto seq2 = make_bus(map, n_rtl, c.config_base);
  seq2.mark_config_space(c.config_base, c.config_size);
  auto c2 = c;
  c2.rate_q16 = static_cast<std::uint32_t>(0.9 * 5.0 * 288 / (6.0 * 288 + 108.0) * 2 * 65536);
  auto s = cosim::run_cosim(c2, seq2.bus(), seq2.issued(), true);
  if (!s) {
    std::fprintf(stderr, "bench_board: %s\n", s.error().message.c_str());
    return 1;
  }
  const double cps = static_cast<double>(s->cycles) / s->rtl_seconds;
  const double model_cps = static_cast<double>(s->cycles) / s->model_seconds;
  std::fprintf(out, "co-simulation: %llu DDR cycles, %llu RD/WR, %llu frames in %.3f s: %.2f M cycles/s "
              "(C++ model on the same bus: %.1f M cycles/s, RTL/model %.4f) [target >= 1 M cycles/s: %s]; %s\n",
              static_cast<unsigned long long>(s->cycles), static_cast<unsigned long long>(s->issued_rw),
              static_cast<unsigned long long>(s->rtl_frames), s->rtl_seconds, cps / 1e6, model_cps / 1e6,
              cps / model_cps, cps >= 1e6 ? "met" : "NOT met", s->perfect() ? "scored perfect" : "SCORE FAILED");
  jnum("cosim_cycles", static_cast<double>(s->cycles));
  jnum("cosim_cycles_per_s", cps);
  jnum("cosim_model_cycles_per_s", model_cps);
  js.boolean("cosim_scored_perfect", s->perfect());
  return finish_json(s->perfect() ? 0 : 1);
}
