#include "hmtt/sim/controller_simulation.h"

#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <atomic>
#include <cstdlib>
#include <deque>
#include <exception>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "hmtt/sim/timing_checker.h"

// SystemC's shared library calls sc_main from its own main(); hmtt programs have
// their own main and never enter SystemC that way. The definition satisfies the
// linker and must never run.
int sc_main(int, char*[]) { return 1; }

namespace hmtt::sim {

namespace {
std::atomic<bool> g_alive{false};
}  // namespace

Result<AddressMap> controller_address_map(const std::string& name, unsigned ranks, unsigned channels) {
  if (ranks != 1 && ranks != 2) return make_error("ranks: " + std::to_string(ranks) + " (must be 1 or 2)");
  if (channels != 1 && channels != 2) return make_error("channels: " + std::to_string(channels) + " (must be 1 or 2)");
  const std::string rank = ranks == 2 ? "rank:1," : "";
  const std::string chan = channels == 2 ? "channel:1," : "";
  if (name == "open-page") return AddressMap::parse("row:14," + rank + "bank:3," + chan + "col:10,bus:3");
  if (name == "interleaved") return AddressMap::parse("row:14,col:7," + rank + "bank:3," + chan + "colLow:3,bus:3");
  auto m = AddressMap::parse(name);
  if (!m.ok()) return make_error(m.error().message + " (built in: open-page, interleaved)");
  return m;
}

Result<ControllerConfig> make_controller_config(const ControllerSpec& spec) {
  auto standard = parse_standard(spec.standard);
  if (!standard.ok()) return standard.error();
  auto timing = dram_timing(*standard, spec.burst_length);
  if (!timing.ok()) return timing.error();
  auto map = controller_address_map(spec.map, spec.ranks, spec.channels);
  if (!map.ok()) return map.error();
  if (spec.policy != "open" && spec.policy != "close")
    return make_error("page policy '" + spec.policy + "': must be open or close");
  if (map->capacity_bytes() < 2 * ConfigSpace::kDefaultBytes)
    return make_error("address map '" + map->text() + "': too small for the 8 MiB config space");
  ControllerConfig c;
  c.timing = *timing;
  c.map = *map;
  c.policy = spec.policy == "open" ? PagePolicy::OpenPage : PagePolicy::ClosePage;
  c.ranks = spec.ranks;
  c.channels = spec.channels;
  c.queue_depth = spec.queue_depth;
  c.check_timing = spec.check_timing;
  c.config_space = ConfigSpace::at_top(map->capacity_bytes());
  return c;
}

struct ControllerSimulation::Impl {
  ControllerConfig cfg;
  RequestSource& source;
  std::uint64_t start_ps = 0;
  std::uint64_t tck = 0;
  std::vector<ChannelScheduler> sched;
  std::vector<std::optional<TimingChecker>> checker;
  std::vector<std::deque<BusCycle>> bus_out;
  std::vector<std::deque<IssuedAccess>> truth_out;
  ControllerStats stats;
  struct Pending {
    std::uint64_t time = 0;
    std::uint32_t bursts = 0;
  };
  std::unordered_map<std::uint64_t, Pending> pending;
  std::uint64_t next_request = 0;
  std::uint64_t queued_total = 0;  // bursts in all queues

  sc_core::sc_event arrival[2];
  sc_core::sc_event space[2];
  sc_core::sc_event issued;
  sc_core::sc_event abort_event;
  // Wake-up lists built once (an `a | b` expression allocates on every wait).
  sc_core::sc_event_or_list wake_channel[2];
  sc_core::sc_event_or_list wake_space[2];
  sc_core::sc_event_or_list wake_issued;
  bool front_done = false;
  bool channel_done[2] = {true, true};
  // The cycle a sleeping channel process planned its next command for. A new burst
  // wakes it only if it might issue earlier (the scheduler cannot issue before
  // earliest(now); if the plan is already that cycle, waking changes nothing).
  std::uint64_t planned[2] = {0, 0};
  bool front_ended = false;
  bool aborting = false;
  std::optional<Error> error;
  std::uint64_t last_cycle = 0;

  class Bus final : public CommandBusSource {
   public:
    Bus(Impl& impl, unsigned ch) : impl_(impl), ch_(ch) {}
    Result<std::size_t> read(std::span<BusCycle> out) override { return impl_.read_bus(ch_, out); }

   private:
    Impl& impl_;
    unsigned ch_;
  };
  std::vector<std::unique_ptr<Bus>> buses;

  Impl(const ControllerConfig& c, RequestSource& s) : cfg(c), source(s) {
    for (int ch = 0; ch < 2; ++ch) {
      wake_channel[ch] |= arrival[ch];
      wake_channel[ch] |= abort_event;
      wake_space[ch] |= space[ch];
      wake_space[ch] |= abort_event;
    }
    wake_issued |= issued;
    wake_issued |= abort_event;
  }

  std::uint64_t now_cycle() const {
    return (sc_core::sc_time_stamp().value() - start_ps) / tck;
  }
  sc_core::sc_time cycles(std::uint64_t n) const { return sc_core::sc_time::from_value(n * tck); }
  bool finished() const { return front_ended && channel_done[0] && channel_done[1]; }
  void fail(Error e) {
    if (!error) error = std::move(e);
    aborting = true;
    abort_event.notify(sc_core::SC_ZERO_TIME);
  }

  // --- the front end ---------------------------------------------------------
  void front_end() {
    std::vector<MemoryRequest> batch(1024);
    const std::uint64_t bb = cfg.timing.burst_bytes();
    const std::uint64_t capacity = cfg.map.capacity_bytes();
    while (!aborting) {
      auto r = source.read(batch);
      if (!r.ok()) {
        fail(r.error());
        break;
      }
      if (*r == 0) break;
      for (std::size_t i = 0; i < *r && !aborting; ++i) {
        const MemoryRequest& q = batch[i];
        const std::uint64_t id = next_request++;
        if (q.size == 0 || q.address >= capacity || q.size > capacity - q.address) {
          fail(make_error("request " + std::to_string(id) + ": address 0x" + to_hex(q.address) + " size " +
                          std::to_string(q.size) + " is outside the " + std::to_string(capacity >> 20) +
                          " MiB the address map covers"));
          break;
        }
        const std::uint64_t now = now_cycle();
        if (q.time > now) sc_core::wait(cycles(q.time - now), abort_event);
        if (aborting) break;
        const bool config = cfg.config_space.contains(q.address);
        std::uint64_t first = q.address - q.address % bb;
        std::uint64_t last = config ? first : (q.address + q.size - 1) - (q.address + q.size - 1) % bb;
        if (config) {  // strongly ordered: everything before it issues first
          while (queued_total != 0 && !aborting) sc_core::wait(wake_issued);
        }
        // Latency counts from when the request reaches the controller (not from a time it could not be taken).
        pending[id] = Pending{now_cycle(), static_cast<std::uint32_t>((last - first) / bb + 1)};
        for (std::uint64_t a = first; a <= last && !aborting; a += bb) {
          Burst b;
          b.request = id;
          b.address = a;
          b.where = cfg.map.decompose(a);
          b.write = q.write;
          b.config_space = config;
          const unsigned ch = b.where.channel;
          while (!sched[ch].has_room() && !aborting) sc_core::wait(wake_space[ch]);
          if (aborting) break;
          b.arrival = now_cycle();
          sched[ch].enqueue(b);
          ++queued_total;
          if (planned[ch] > sched[ch].earliest(b.arrival)) arrival[ch].notify(sc_core::SC_ZERO_TIME);
        }
        if (config) {
          while (queued_total != 0 && !aborting) sc_core::wait(wake_issued);
        }
      }
    }
    front_done = true;
    for (auto& e : arrival) e.notify(sc_core::SC_ZERO_TIME);
    front_ended = true;
  }

  static std::string to_hex(std::uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
    return buf;
  }

  // --- one channel -------------------------------------------------------------
  void channel(unsigned ch) {
    ChannelScheduler& s = sched[ch];
    const DramTiming& t = cfg.timing;
    while (!aborting) {
      if (front_done && s.empty()) break;
      const std::uint64_t now = now_cycle();
      const PlannedCommand p = s.next(now);
      if (p.cycle > now) {
        planned[ch] = p.cycle;
        sc_core::wait(cycles(p.cycle - now), wake_channel[ch]);
        planned[ch] = 0;
        continue;
      }
      const auto served = s.commit(p);
      const BusCycle bc{p.cycle, encode_pins(p.word)};
      ++stats.commands;
      last_cycle = std::max(last_cycle, p.cycle);
      if (checker[ch]) {
        const Status st = checker[ch]->observe(bc);
        if (!st.ok()) {
          fail(make_error("channel " + std::to_string(ch) + ": " + st.error().message));
          break;
        }
      }
      bus_out[ch].push_back(bc);
      if (served) {
        --queued_total;
        ++stats.bursts;
        ++stats.channel[ch].bursts;
        if (served->config_space) {
          ++stats.config_accesses;
          ++stats.channel[ch].config_accesses;
        }
        if (cfg.record_ground_truth)
          truth_out[ch].push_back(IssuedAccess{p.cycle, served->address, served->request,
                                               static_cast<std::uint8_t>(ch), served->write, served->config_space});
        auto it = pending.find(served->request);
        if (it != pending.end() && --it->second.bursts == 0) {
          const std::uint64_t data_end = p.cycle + (served->write ? t.wl : t.cl) + t.burst_cycles();
          const std::uint64_t latency = data_end > it->second.time ? data_end - it->second.time : 0;
          stats.latency_sum += latency;
          stats.latency_max = std::max(stats.latency_max, latency);
          ++stats.requests;
          pending.erase(it);
        }
        space[ch].notify(sc_core::SC_ZERO_TIME);
        issued.notify(sc_core::SC_ZERO_TIME);
      }
    }
    stats.channel[ch].commands = s.counters();
    channel_done[ch] = true;
  }

  // --- driving the kernel ------------------------------------------------------
  Status step() {
    try {
      sc_core::sc_start(cycles(16384));
    } catch (const std::exception& e) {
      return make_error(std::string("SystemC: ") + e.what());
    }
    return {};
  }

  template <typename Ready>
  Status advance(Ready ready) {
    while (!ready() && !finished() && !error) HMTT_TRY(step());
    if (error) return *error;
    return {};
  }

  Result<std::size_t> read_bus(unsigned ch, std::span<BusCycle> out) {
    HMTT_TRY(advance([&] { return bus_out[ch].size() >= out.size(); }));
    std::size_t n = 0;
    auto& q = bus_out[ch];
    while (n < out.size() && !q.empty()) {
      out[n++] = q.front();
      q.pop_front();
    }
    return n;
  }

  Result<std::size_t> read_truth(unsigned ch, std::span<IssuedAccess> out) {
    HMTT_TRY(advance([&] { return truth_out[ch].size() >= out.size(); }));
    std::size_t n = 0;
    auto& q = truth_out[ch];
    while (n < out.size() && !q.empty()) {
      out[n++] = q.front();
      q.pop_front();
    }
    return n;
  }

  // Ends the spawned processes (they wait on abort_event) so nothing refers to this object.
  void shut_down() {
    if (finished()) return;
    aborting = true;
    abort_event.notify(sc_core::SC_ZERO_TIME);
    for (int i = 0; i < 8 && !finished(); ++i) {
      try {
        sc_core::sc_start(sc_core::SC_ZERO_TIME);
      } catch (const std::exception&) {
        break;
      }
    }
  }
};

ControllerSimulation::ControllerSimulation(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ControllerSimulation::~ControllerSimulation() {
  impl_->shut_down();
  if (!impl_->finished()) {
    // A process is still suspended and refers to impl_: keep it alive (a leak, never a crash).
    (void)impl_.release();
  }
  g_alive = false;
}

Result<std::unique_ptr<ControllerSimulation>> ControllerSimulation::create(const ControllerConfig& config,
                                                                           RequestSource& requests) {
  const ControllerConfig& c = config;
  if (c.ranks != 1 && c.ranks != 2) return make_error("controller: ranks " + std::to_string(c.ranks) + " (must be 1 or 2)");
  if (c.channels != 1 && c.channels != 2)
    return make_error("controller: channels " + std::to_string(c.channels) + " (must be 1 or 2)");
  if ((1u << c.map.width(AddressMap::Field::Rank)) != c.ranks)
    return make_error("controller: address map '" + c.map.text() + "' has " +
                      std::to_string(1u << c.map.width(AddressMap::Field::Rank)) + " rank(s), the controller " +
                      std::to_string(c.ranks));
  if ((1u << c.map.width(AddressMap::Field::Channel)) != c.channels)
    return make_error("controller: address map '" + c.map.text() + "' has " +
                      std::to_string(1u << c.map.width(AddressMap::Field::Channel)) + " channel(s), the controller " +
                      std::to_string(c.channels));
  if ((1u << c.map.width(AddressMap::Field::Bus)) != c.timing.bus_bytes)
    return make_error("controller: address map '" + c.map.text() + "' has a " +
                      std::to_string(1u << c.map.width(AddressMap::Field::Bus)) + "-byte bus, the DIMM " +
                      std::to_string(c.timing.bus_bytes));
  const unsigned col_bits = c.map.width(AddressMap::Field::Col) + c.map.width(AddressMap::Field::ColLow);
  if ((1u << col_bits) < c.timing.burst_length)
    return make_error("controller: address map '" + c.map.text() + "' has fewer columns than a burst");
  if (c.queue_depth == 0) return make_error("controller: queue depth must be at least 1");
  if (c.config_space.bytes < 0x1000 || c.config_space.base % 64 != 0 ||
      c.config_space.base + c.config_space.bytes > c.map.capacity_bytes())
    return make_error("controller: config space does not fit the address map's " +
                      std::to_string(c.map.capacity_bytes() >> 20) + " MiB");

  bool expected = false;
  if (!g_alive.compare_exchange_strong(expected, true))
    return make_error(
        "controller: a ControllerSimulation already exists in this process (SystemC has one global kernel; "
        "destroy the first before creating another)");

  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  auto impl = std::make_unique<Impl>(config, requests);
  Impl& m = *impl;
  if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS)) {
    g_alive = false;
    return make_error("controller: the SystemC time resolution is not 1 ps");
  }
  m.start_ps = sc_core::sc_time_stamp().value();
  m.tck = c.timing.tck_ps;
  const unsigned banks = 1u << c.map.width(AddressMap::Field::Bank);
  for (unsigned ch = 0; ch < c.channels; ++ch) {
    m.sched.emplace_back(c.timing, c.policy, c.ranks, banks, c.queue_depth, c.starvation_cycles);
    if (c.check_timing) {
      m.checker.emplace_back(TimingChecker(c.timing, c.ranks, banks));
    } else {
      m.checker.emplace_back(std::nullopt);
    }
    m.bus_out.emplace_back();
    m.truth_out.emplace_back();
    m.buses.push_back(std::make_unique<Impl::Bus>(m, ch));
    m.channel_done[ch] = false;
  }
  try {
    sc_core::sc_spawn_options big_stack;
    big_stack.set_stack_size(1 << 20);  // the front end runs the RequestSource (decoders, stores)
    sc_core::sc_spawn([&m] { m.front_end(); }, sc_core::sc_gen_unique_name("hmtt_front_end"), &big_stack);
    for (unsigned ch = 0; ch < c.channels; ++ch) {
      sc_core::sc_spawn_options opts;
      opts.set_stack_size(256 << 10);
      sc_core::sc_spawn([&m, ch] { m.channel(ch); }, sc_core::sc_gen_unique_name("hmtt_channel"), &opts);
    }
  } catch (const std::exception& e) {
    g_alive = false;
    return make_error(std::string("controller: SystemC: ") + e.what());
  }
  return std::unique_ptr<ControllerSimulation>(new ControllerSimulation(std::move(impl)));
}

CommandBusSource& ControllerSimulation::bus(unsigned channel) { return *impl_->buses.at(channel); }

Result<std::size_t> ControllerSimulation::read_issued(unsigned channel, std::span<IssuedAccess> out) {
  if (channel >= impl_->cfg.channels) return make_error("controller: no channel " + std::to_string(channel));
  return impl_->read_truth(channel, out);
}

Status ControllerSimulation::run_to_end() {
  Impl& m = *impl_;
  while (!m.finished() && !m.error) {
    HMTT_TRY(m.step());
    for (auto& q : m.bus_out) q.clear();
    for (auto& q : m.truth_out) q.clear();
  }
  if (m.error) return *m.error;
  for (unsigned ch = 0; ch < m.cfg.channels; ++ch)
    if (m.checker[ch]) HMTT_TRY(m.checker[ch]->finish(m.last_cycle));
  return {};
}

bool ControllerSimulation::done() const { return impl_->finished(); }

ControllerStats ControllerSimulation::stats() const {
  ControllerStats s = impl_->stats;
  s.cycles = impl_->last_cycle;
  for (unsigned ch = 0; ch < impl_->cfg.channels; ++ch) s.channel[ch].commands = impl_->sched[ch].counters();
  return s;
}

const ControllerConfig& ControllerSimulation::config() const { return impl_->cfg; }

}  // namespace hmtt::sim
