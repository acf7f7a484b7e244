// Fuzz target: the board model must take any command bus (any pins, any cycle
// gaps, FIFO depth and link rate from the input) without crashing, return an
// error naming the place for what it cannot take, and otherwise send frames the
// host decoder accepts, with no more references than READ/WRITEs to open banks
// and dropped records all accounted for by LOSS records.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "hmtt/board/board_model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hmtt;
  if (size < 4) return 0;
  auto map = sim::AddressMap::builtin((data[0] & 1) ? "interleaved" : "open-page");
  if (!map) std::abort();
  board::BoardConfig c;
  c.map = *map;
  c.config_base = board::default_config_base(*map);
  c.config_size = board::kDefaultConfigSize;
  c.trace_on_reset = (data[0] & 2) != 0;
  c.fifo_depth = 1 + data[1] % 16;
  c.rate_q16 = 1 + static_cast<std::uint32_t>(data[2]) * 1500;
  c.encoder.links = static_cast<std::uint8_t>(1 + data[3] % 4);
  c.encoder.records_per_frame = static_cast<std::uint16_t>(8 + data[3] % 40);
  auto m = board::BoardModel::create(c);
  if (!m) std::abort();
  std::vector<sim::BusCycle> bus;
  std::uint64_t cycle = 0;
  for (std::size_t i = 4; i + 5 <= size; i += 5) {
    cycle += 1 + data[i] % 8;
    sim::BusCycle bc;
    bc.cycle = cycle;
    bc.pins.cs_n = static_cast<std::uint8_t>(data[i + 1] | 0xFC);
    bc.pins.ras_n = data[i + 1] & 4;
    bc.pins.cas_n = data[i + 1] & 8;
    bc.pins.we_n = data[i + 1] & 16;
    bc.pins.ba = static_cast<std::uint8_t>((data[i + 1] >> 5) & 7);
    bc.pins.a = static_cast<std::uint16_t>((data[i + 2] << 8) | data[i + 3]);
    bus.push_back(bc);
  }
  auto s = m->consume(bus);
  if (!s.ok()) {
    if (s.error().message.empty()) std::abort();
    return 0;
  }
  if (!m->finish().ok()) std::abort();
  wire::DecodedFrame f;
  std::uint64_t refs = 0, lost = 0;
  while (m->has_frame()) {
    auto ef = m->pop_frame();
    if (!wire::decode_frame(ef.bytes, f).ok()) std::abort();
    refs += f.refs.size();
    for (const auto& l : f.losses) lost += l.count;
  }
  const auto& k = m->counters();
  if (refs > k.reads + k.writes) std::abort();
  if (lost != k.dropped) std::abort();
  if (refs + lost < k.references) std::abort();
  return 0;
}
