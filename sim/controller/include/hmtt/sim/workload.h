// Built-in workloads: pull streams of memory requests (boundary 1).
//
//  - MicroBenchmark: the HMTT paper's verification micro-benchmarks (Appendix
//    A.1, step 1): sequential read, sequential write, sequential
//    read-after-write and random read, in units from a cache line (64 B) to a
//    page (4 KB).
//  - AppendixA: all four patterns in every unit 64, 128, ..., 4096 B, one after
//    the other (the whole verification sweep in one stream).
//  - BurstyPhases: re-times any workload into on/off phases (bursts that fill
//    the board's TX FIFO, then silence that drains it).
//  - ICodeInterleaver: adds the config-space I-Code accesses a traced program
//    makes: BEGIN TRACING first, a user event every N requests, END TRACING
//    last (paper section 4.3/4.4; offsets in docs/wire-format.md 3.2).
//  - ReferenceReplay: replays any hmtt::ReferenceSource (store, importers).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "hmtt/sim/memory_request.h"
#include "hmtt/stream.h"

namespace hmtt::sim {

enum class MicroPattern : std::uint8_t { SequentialRead, SequentialWrite, ReadAfterWrite, RandomRead };

struct MicroBenchmarkConfig {
  MicroPattern pattern = MicroPattern::SequentialRead;
  std::uint32_t unit = 64;          // bytes per request: a power of two, 64..4096
  std::uint64_t requests = 1000;    // requests to issue (read-after-write: a write and a read each count)
  std::uint64_t base = 0;           // first byte of the region
  std::uint64_t region = 64 << 20;  // bytes the pattern walks (sequential wraps; random draws from it)
  std::uint32_t gap = 0;            // cycles between requests (0: as fast as the controller takes them)
  std::uint64_t start = 0;          // time of the first request
  std::uint64_t seed = 1;
  std::uint32_t tag = 0;            // ground-truth tag on every request
};

class MicroBenchmark final : public RequestSource {
 public:
  static Result<std::unique_ptr<MicroBenchmark>> create(const MicroBenchmarkConfig& c);
  Result<std::size_t> read(std::span<MemoryRequest> out) override;

 private:
  explicit MicroBenchmark(const MicroBenchmarkConfig& c) : c_(c), rng_(c.seed) {}
  MicroBenchmarkConfig c_;
  std::mt19937_64 rng_;
  std::uint64_t issued_ = 0;
};

// Streams one source after another; each starts after the previous one's last request.
class ConcatenatedWorkload final : public RequestSource {
 public:
  explicit ConcatenatedWorkload(std::vector<std::unique_ptr<RequestSource>> parts) : parts_(std::move(parts)) {}
  Result<std::size_t> read(std::span<MemoryRequest> out) override;

 private:
  std::vector<std::unique_ptr<RequestSource>> parts_;
  std::size_t current_ = 0;
  std::uint64_t offset_ = 0;      // added to the times of the current part
  std::uint64_t last_time_ = 0;   // last time handed out
  bool started_part_ = false;
};

// The paper's verification sweep: 4 patterns x 7 units (64 B .. 4 KB), `requests` in total.
Result<std::unique_ptr<RequestSource>> appendix_a_sweep(std::uint64_t requests, std::uint64_t region,
                                                        std::uint64_t seed);

struct BurstyConfig {
  std::uint64_t on_cycles = 20000;   // length of a burst phase
  std::uint64_t off_cycles = 80000;  // length of a silent phase
  std::uint32_t gap = 0;             // cycles between requests inside a burst
};

// Re-times `inner`: requests follow each other `gap` cycles apart during an on
// phase; a request that would fall in an off phase moves to the next on phase.
class BurstyPhases final : public RequestSource {
 public:
  BurstyPhases(std::unique_ptr<RequestSource> inner, const BurstyConfig& c) : inner_(std::move(inner)), c_(c) {}
  Result<std::size_t> read(std::span<MemoryRequest> out) override;

 private:
  std::unique_ptr<RequestSource> inner_;
  BurstyConfig c_;
  std::uint64_t cursor_ = 0;
};

struct ICodeConfig {
  ConfigSpace space;
  std::uint64_t event_every = 0;  // a user event after every N requests (0: none)
  bool begin_end = true;          // BEGIN TRACING first, END TRACING last
};

// Adds config-space accesses (uncached single-burst reads, one per I-Code) to `inner`.
class ICodeInterleaver final : public RequestSource {
 public:
  ICodeInterleaver(std::unique_ptr<RequestSource> inner, const ICodeConfig& c) : inner_(std::move(inner)), c_(c) {}
  Result<std::size_t> read(std::span<MemoryRequest> out) override;

 private:
  MemoryRequest config_access(std::uint32_t index, std::uint64_t time) const;
  std::unique_ptr<RequestSource> inner_;
  ICodeConfig c_;
  std::vector<MemoryRequest> buffer_;
  std::size_t pos_ = 0;
  std::uint64_t since_event_ = 0;
  std::uint32_t next_event_ = 0;
  std::uint64_t last_time_ = 0;
  bool begun_ = false;
  bool ended_ = false;
};

struct ReplayConfig {
  std::uint64_t cycles_per_tick_num = 1;  // request time = reference time * num / den
  std::uint64_t cycles_per_tick_den = 1;
  std::uint64_t limit = 0;                // addresses wrap into [0, limit) (keeps the config space clear)
  // When set, references inside this config space are not wrapped: they go out
  // as the I-Codes they are (one 64-byte access at their line, labelled by
  // index), e.g. a guest's own I-Codes in the virtual bench's trace.
  std::optional<ConfigSpace> config_space;
};

// Replays references as requests: reads and instruction fetches become reads,
// writes writes, a modify a read then a write; origin and source carry over.
class ReferenceReplay final : public RequestSource {
 public:
  ReferenceReplay(ReferenceSource& refs, const ReplayConfig& c) : refs_(refs), c_(c) {}
  Result<std::size_t> read(std::span<MemoryRequest> out) override;

 private:
  ReferenceSource& refs_;
  ReplayConfig c_;
  std::vector<Reference> batch_;
  std::size_t pos_ = 0, count_ = 0;
  bool pending_write_ = false;  // second half of a modify
  MemoryRequest pending_;
  std::uint64_t last_time_ = 0;
  std::uint64_t records_ = 0;
};

// A built-in workload by name: seq-read, seq-write, read-after-write, random-read
// (with `unit`), appendix-a (the sweep), bursty (the four patterns at `unit` in
// on/off phases, a request every `gap` cycles in a burst, default 4 per 64 B).
// `requests` data requests in [0, limit).
struct WorkloadSpec {
  std::string name = "appendix-a";
  std::uint64_t requests = 100000;
  std::uint32_t unit = 64;
  std::uint64_t limit = 0;     // first byte not to touch (the config-space base)
  std::uint64_t seed = 1;
  std::uint32_t gap = 0;
  BurstyConfig bursty;
};
Result<std::unique_ptr<RequestSource>> make_workload(const WorkloadSpec& spec);
std::vector<std::string> workload_names();

}  // namespace hmtt::sim
