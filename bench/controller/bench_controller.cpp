// Speed of the memory-controller model: simulated DDR command-clock cycles per
// CPU second (process CPU time; the model is single-threaded), memory requests per second and commands per second.
//
// Baseline (measured in the same run): the same ChannelScheduler driven by a
// plain C++ loop with no SystemC kernel, on the same bursts. The ratio shows
// what the SystemC processes (front end, channel, events) cost on top of the
// scheduling itself.
//
//   bench_controller [requests] [--json]    (default 200000 requests per row; --json: one object per row)
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "hmtt/sim/controller_simulation.h"
#include "hmtt/sim/workload.h"
#include "json_figures.h"

using namespace hmtt;
using namespace hmtt::sim;

namespace {

// Process CPU time: the build machine is shared, and wall time there measures the neighbours.
double now_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Figures {
  double seconds = 0;
  std::uint64_t cycles = 0, requests = 0, commands = 0;
};

std::unique_ptr<RequestSource> workload(const std::string& name, std::uint64_t n, std::uint64_t limit) {
  WorkloadSpec w;
  w.name = name;
  w.requests = n;
  w.limit = limit;
  auto s = make_workload(w);
  if (!s.ok()) {
    std::fprintf(stderr, "bench_controller: %s\n", s.error().message.c_str());
    std::exit(1);
  }
  return std::move(s).value();
}

// Baseline: the scheduler alone, fed by a plain loop (requests split into bursts as the front end does).
Figures baseline(const ControllerConfig& cfg, RequestSource& src) {
  std::vector<MemoryRequest> reqs, batch(4096);
  for (;;) {
    auto r = src.read(batch);
    if (!r.ok() || *r == 0) break;
    reqs.insert(reqs.end(), batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(*r));
  }
  const double t0 = now_s();
  ChannelScheduler s(cfg.timing, cfg.policy, cfg.ranks, 8, cfg.queue_depth, cfg.starvation_cycles);
  const std::uint64_t bb = cfg.timing.burst_bytes();
  Figures f;
  std::uint64_t now = 0;
  std::size_t i = 0;
  std::uint64_t next_addr = 0, last_addr = 0;
  bool in_request = false;
  while (i < reqs.size() || in_request || !s.empty()) {
    while (s.has_room() && (in_request || (i < reqs.size() && reqs[i].time <= now))) {
      if (!in_request) {
        next_addr = reqs[i].address - reqs[i].address % bb;
        last_addr = reqs[i].address + reqs[i].size - 1;
        in_request = true;
      }
      Burst b;
      b.request = i;
      b.address = next_addr;
      b.where = cfg.map.decompose(next_addr);
      b.write = reqs[i].write;
      b.arrival = now;
      s.enqueue(b);
      next_addr += bb;
      if (next_addr > last_addr) {
        in_request = false;
        ++i;
        ++f.requests;
      }
    }
    const PlannedCommand p = s.next(now);
    if (p.cycle > now) {
      const std::uint64_t arrival = !in_request && i < reqs.size() && s.has_room()
                                        ? reqs[i].time
                                        : std::numeric_limits<std::uint64_t>::max();
      if (arrival < p.cycle) {
        now = std::max(arrival, now);
        continue;
      }
      now = p.cycle;
    }
    s.commit(p);
    ++f.commands;
    f.cycles = p.cycle;
  }
  f.seconds = now_s() - t0;
  return f;
}

Figures systemc(const ControllerConfig& cfg, RequestSource& src) {
  const double t0 = now_s();
  auto sim = ControllerSimulation::create(cfg, src);
  if (!sim.ok()) {
    std::fprintf(stderr, "bench_controller: %s\n", sim.error().message.c_str());
    std::exit(1);
  }
  if (auto st = (*sim)->run_to_end(); !st.ok()) {
    std::fprintf(stderr, "bench_controller: %s\n", st.error().message.c_str());
    std::exit(1);
  }
  Figures f;
  f.seconds = now_s() - t0;
  const auto s = (*sim)->stats();
  f.cycles = s.cycles;
  f.requests = s.requests;
  f.commands = s.commands;
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Speed of the SystemC memory-controller model (DDR cycles, requests and commands per CPU second) for "
      "each DDR standard, page policy and workload, against the same scheduler in a plain loop."};
  std::uint64_t n = 200000;
  bool json = false;
  app.add_option("REQUESTS", n, "memory requests per row")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 32));
  app.add_flag("--json", json, "print one JSON object per row (JSON Lines; the table goes to stderr)");
  CLI11_PARSE(app, argc, argv);
  std::FILE* out = json ? stderr : stdout;
  std::fprintf(out, "%-9s %-6s %-12s %10s %12s %10s %12s %12s %12s %8s\n", "standard", "policy", "workload", "requests",
              "DDR cycles", "commands", "Mcycles/s", "Mreq/s", "Mcmd/s", "vs loop");
  for (auto std_ : {DdrStandard::Ddr200, DdrStandard::Ddr2_400, DdrStandard::Ddr2_800})
    for (auto policy : {PagePolicy::OpenPage, PagePolicy::ClosePage})
      for (const char* wl : {"seq-read", "random-read", "appendix-a"}) {
        ControllerConfig cfg;
        cfg.timing = *dram_timing(std_);
        cfg.map = *controller_address_map("open-page", 1, 1);
        cfg.policy = policy;
        cfg.config_space = ConfigSpace::at_top(cfg.map.capacity_bytes());
        cfg.record_ground_truth = false;
        auto w1 = workload(wl, n, cfg.config_space.base);
        const Figures base = baseline(cfg, *w1);
        auto w2 = workload(wl, n, cfg.config_space.base);
        const Figures sc = systemc(cfg, *w2);
        const double mcyc = static_cast<double>(sc.cycles) / sc.seconds / 1e6;
        const double base_mcyc = static_cast<double>(base.cycles) / base.seconds / 1e6;
        if (json) {
          bench::JsonFigures row;
          row.text("standard", std::string(standard_name(std_)));
          row.text("policy", policy == PagePolicy::OpenPage ? "open" : "close");
          row.text("workload", wl);
          row.integer("requests", sc.requests);
          row.integer("cycles", sc.cycles);
          row.integer("commands", sc.commands);
          row.number("mcycles_per_s", mcyc);
          row.number("mrequests_per_s", static_cast<double>(sc.requests) / sc.seconds / 1e6);
          row.number("mcommands_per_s", static_cast<double>(sc.commands) / sc.seconds / 1e6);
          row.number("baseline_mcycles_per_s", base_mcyc);
          row.number("over_baseline", mcyc / base_mcyc);
          row.boolean("baseline_agrees", base.commands == sc.commands && base.cycles == sc.cycles);
          row.print();
        }
        std::fprintf(out, "%-9s %-6s %-12s %10llu %12llu %10llu %12.2f %12.3f %12.2f %7.2fx\n",
                    std::string(standard_name(std_)).c_str(), policy == PagePolicy::OpenPage ? "open" : "close", wl,
                    static_cast<unsigned long long>(sc.requests), static_cast<unsigned long long>(sc.cycles),
                    static_cast<unsigned long long>(sc.commands), mcyc,
                    static_cast<double>(sc.requests) / sc.seconds / 1e6,
                    static_cast<double>(sc.commands) / sc.seconds / 1e6, mcyc / base_mcyc);
        if (base.commands != sc.commands || base.cycles != sc.cycles)
          std::fprintf(out, "  (baseline loop: %llu commands, %llu cycles, %.2f Mcycles/s)\n",
                      static_cast<unsigned long long>(base.commands), static_cast<unsigned long long>(base.cycles),
                      base_mcyc);
      }
  return 0;
}
