// The memory-controller and DRAM model as a SystemC simulation.
//
// Processes (SystemC threads, spawned per simulation):
//  - the front end pulls MemoryRequests from a RequestSource, waits until each
//    one's time, splits it into bursts (BL x bus width bytes; a config-space
//    access is one uncached burst), routes each burst to the channel the
//    address map names, and blocks while that channel's queue is full. A
//    config-space access is strongly ordered: it waits until every earlier
//    burst has issued, and nothing after it enters a queue before it issues.
//  - one process per channel runs a ChannelScheduler (the DRAM bank/rank state,
//    the page policy, refresh) and drives that channel's command bus: it waits
//    in simulated time until the next command may issue, or until a burst
//    arrives, and then issues it.
// Output, per channel: the command-bus cycles that carry a command (BusCycle
// with pins from encode_pins) and the ground truth (IssuedAccess per READ/WRITE).
//
// Pull-based: reading a channel's bus or ground truth runs the SystemC kernel
// forward until enough output is buffered or the workload is done. Output of
// the other channel (and the ground truth, unless disabled) is buffered until
// read, so read all the streams you asked for.
//
// SystemC has one global simulation context per process. Hence ONLY ONE
// ControllerSimulation may exist at a time: create() returns an error while
// another is alive. Simulations may follow each other in one process (time in
// the kernel keeps running; each simulation counts cycles from its own start).
// Nothing else in the process may use SystemC at the same time.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "hmtt/result.h"
#include "hmtt/sim/address_map.h"
#include "hmtt/sim/channel_scheduler.h"
#include "hmtt/sim/command_stream.h"
#include "hmtt/sim/dram_timing.h"
#include "hmtt/sim/memory_request.h"

namespace hmtt::sim {

struct ControllerConfig {
  DramTiming timing;
  AddressMap map;                 // must have 2^rank = ranks and 2^channel = channels
  PagePolicy policy = PagePolicy::OpenPage;
  unsigned ranks = 1;             // 1 or 2 per channel
  unsigned channels = 1;          // 1 or 2
  unsigned queue_depth = 32;      // bursts per channel queue
  std::uint64_t starvation_cycles = 2000;
  ConfigSpace config_space;       // which addresses are uncached config-space accesses
  bool record_ground_truth = true;
  bool check_timing = false;      // run a TimingChecker on every channel's pins as they are issued
};

struct ChannelStats {
  SchedulerCounters commands;
  std::uint64_t bursts = 0;
  std::uint64_t config_accesses = 0;
};

struct ControllerStats {
  std::uint64_t requests = 0;          // requests fully served
  std::uint64_t bursts = 0;            // READ/WRITE commands issued (all channels)
  std::uint64_t config_accesses = 0;   // of which config space
  std::uint64_t commands = 0;          // all commands (all channels)
  std::uint64_t cycles = 0;            // cycles simulated so far
  std::uint64_t latency_sum = 0;       // request arrival to last data beat, summed over served requests
  std::uint64_t latency_max = 0;
  ChannelStats channel[2];
};

// Builds the address map for `name` (open-page, interleaved, or a map text) with
// a rank field for 2 ranks and a channel field for 2 channels.
Result<AddressMap> controller_address_map(const std::string& name, unsigned ranks, unsigned channels);

// A controller set-up by names, as `hmtt sim` and the co-simulation take it.
struct ControllerSpec {
  std::string standard = "ddr2-400";  // ddr-200, ddr2-400, ddr2-800
  std::string map = "open-page";      // open-page, interleaved, or a map text
  std::string policy = "open";        // open (FR-FCFS) or close
  unsigned ranks = 1;
  unsigned channels = 1;
  unsigned burst_length = 8;
  unsigned queue_depth = 32;
  bool check_timing = false;
};
// The configuration for `spec`, with the config space at the top 8 MiB of the map.
Result<ControllerConfig> make_controller_config(const ControllerSpec& spec);

class ControllerSimulation {
 public:
  // Fails when another ControllerSimulation exists or the configuration is invalid.
  // `requests` must outlive the simulation.
  static Result<std::unique_ptr<ControllerSimulation>> create(const ControllerConfig& config, RequestSource& requests);
  ~ControllerSimulation();
  ControllerSimulation(const ControllerSimulation&) = delete;
  ControllerSimulation& operator=(const ControllerSimulation&) = delete;

  // The command bus of `channel` (cycles carrying a command, counted from this simulation's start).
  CommandBusSource& bus(unsigned channel);
  // The ground truth of `channel`: every READ/WRITE in issue order. 0 = end.
  Result<std::size_t> read_issued(unsigned channel, std::span<IssuedAccess> out);
  // Runs the whole workload, discarding buffered output as it goes (for speed runs).
  Status run_to_end();

  bool done() const;
  ControllerStats stats() const;
  const ControllerConfig& config() const;

  struct Impl;

 private:
  explicit ControllerSimulation(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hmtt::sim
