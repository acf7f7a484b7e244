#include "hmtt/sim/workload.h"

#include <algorithm>
#include <string>

namespace hmtt::sim {

// --- MicroBenchmark ----------------------------------------------------------

Result<std::unique_ptr<MicroBenchmark>> MicroBenchmark::create(const MicroBenchmarkConfig& c) {
  if (c.unit < 64 || c.unit > 4096 || (c.unit & (c.unit - 1)) != 0)
    return make_error("micro-benchmark: unit " + std::to_string(c.unit) + " B: must be a power of two from 64 to 4096");
  if (c.base % c.unit != 0) return make_error("micro-benchmark: base " + std::to_string(c.base) + " is not unit-aligned");
  if (c.region < c.unit) return make_error("micro-benchmark: region of " + std::to_string(c.region) + " B is smaller than one unit");
  MicroBenchmarkConfig k = c;
  k.region -= k.region % k.unit;
  return std::unique_ptr<MicroBenchmark>(new MicroBenchmark(k));
}

Result<std::size_t> MicroBenchmark::read(std::span<MemoryRequest> out) {
  std::size_t n = 0;
  const std::uint64_t units = c_.region / c_.unit;
  while (n < out.size() && issued_ < c_.requests) {
    MemoryRequest r;
    r.time = c_.start + issued_ * c_.gap;
    r.size = c_.unit;
    r.tag = c_.tag;
    switch (c_.pattern) {
      case MicroPattern::SequentialRead:
      case MicroPattern::SequentialWrite:
        r.address = c_.base + (issued_ % units) * c_.unit;
        r.write = c_.pattern == MicroPattern::SequentialWrite;
        break;
      case MicroPattern::ReadAfterWrite:  // write a unit, then read it back
        r.address = c_.base + ((issued_ / 2) % units) * c_.unit;
        r.write = issued_ % 2 == 0;
        break;
      case MicroPattern::RandomRead:
        r.address = c_.base + (rng_() % units) * c_.unit;
        break;
    }
    out[n++] = r;
    ++issued_;
  }
  return n;
}

// --- ConcatenatedWorkload ----------------------------------------------------

Result<std::size_t> ConcatenatedWorkload::read(std::span<MemoryRequest> out) {
  while (current_ < parts_.size()) {
    auto r = parts_[current_]->read(out);
    if (!r.ok()) return r.error();
    if (*r == 0) {
      ++current_;
      if (started_part_) offset_ = last_time_ + 1;
      started_part_ = false;
      continue;
    }
    for (std::size_t i = 0; i < *r; ++i) {
      out[i].time += offset_;
      last_time_ = std::max(last_time_, out[i].time);
    }
    started_part_ = true;
    return *r;
  }
  return std::size_t{0};
}

Result<std::unique_ptr<RequestSource>> appendix_a_sweep(std::uint64_t requests, std::uint64_t region,
                                                        std::uint64_t seed) {
  constexpr MicroPattern kPatterns[] = {MicroPattern::SequentialRead, MicroPattern::SequentialWrite,
                                        MicroPattern::ReadAfterWrite, MicroPattern::RandomRead};
  constexpr std::uint32_t kUnits = 7;  // 64 .. 4096
  const std::uint64_t parts = 4 * kUnits;
  std::vector<std::unique_ptr<RequestSource>> list;
  for (std::uint64_t p = 0; p < parts; ++p) {
    MicroBenchmarkConfig c;
    c.pattern = kPatterns[p / kUnits];
    c.unit = 64u << (p % kUnits);
    c.requests = requests / parts + (p < requests % parts ? 1 : 0);
    c.region = region;
    c.seed = seed + p;
    c.tag = static_cast<std::uint32_t>(p);
    auto m = MicroBenchmark::create(c);
    if (!m.ok()) return m.error();
    list.push_back(std::move(*m));
  }
  return std::unique_ptr<RequestSource>(new ConcatenatedWorkload(std::move(list)));
}

// --- BurstyPhases ------------------------------------------------------------

Result<std::size_t> BurstyPhases::read(std::span<MemoryRequest> out) {
  auto r = inner_->read(out);
  if (!r.ok()) return r;
  const std::uint64_t period = c_.on_cycles + c_.off_cycles;
  const std::uint64_t step = std::max<std::uint32_t>(c_.gap, 1);
  for (std::size_t i = 0; i < *r; ++i) {
    if (period != 0 && cursor_ % period >= c_.on_cycles) cursor_ = (cursor_ / period + 1) * period;
    out[i].time = cursor_;
    cursor_ += step;
  }
  return r;
}

// --- ICodeInterleaver --------------------------------------------------------

MemoryRequest ICodeInterleaver::config_access(std::uint32_t index, std::uint64_t time) const {
  MemoryRequest r;
  r.time = time;
  r.address = c_.space.address_of(index);
  r.size = 64;
  r.write = false;  // an I-Code is one uncached load
  r.label = ConfigSpace::label_of(index);
  r.tag = index;
  return r;
}

Result<std::size_t> ICodeInterleaver::read(std::span<MemoryRequest> out) {
  std::size_t n = 0;
  std::vector<MemoryRequest> batch;
  while (n < out.size()) {
    if (pos_ < buffer_.size()) {
      out[n++] = buffer_[pos_++];
      continue;
    }
    if (ended_) break;
    buffer_.clear();
    pos_ = 0;
    batch.resize(512);
    auto r = inner_->read(batch);
    if (!r.ok()) return r.error();
    if (*r == 0) {
      if (c_.begin_end) {
        if (!begun_) buffer_.push_back(config_access(ConfigSpace::kBegin, last_time_));
        buffer_.push_back(config_access(ConfigSpace::kEnd, last_time_));
      }
      begun_ = true;
      ended_ = true;
      continue;
    }
    const std::uint64_t user_events = c_.space.bytes / 64 - ConfigSpace::kFirstUserEvent;
    for (std::size_t i = 0; i < *r; ++i) {
      const MemoryRequest& q = batch[i];
      if (!begun_ && c_.begin_end) buffer_.push_back(config_access(ConfigSpace::kBegin, q.time));
      begun_ = true;
      buffer_.push_back(q);
      last_time_ = q.time;
      if (c_.event_every != 0 && ++since_event_ == c_.event_every) {
        since_event_ = 0;
        const auto k = static_cast<std::uint32_t>(next_event_++ % user_events);
        buffer_.push_back(config_access(ConfigSpace::kFirstUserEvent + k, q.time));
      }
    }
  }
  return n;
}

// --- ReferenceReplay ---------------------------------------------------------

Result<std::size_t> ReferenceReplay::read(std::span<MemoryRequest> out) {
  if (c_.limit < 4096) return make_error("trace replay: address limit must be at least 4096 bytes");
  if (c_.cycles_per_tick_den == 0) return make_error("trace replay: cycles per tick has a zero denominator");
  std::size_t n = 0;
  while (n < out.size()) {
    if (pending_write_) {
      out[n++] = pending_;
      pending_write_ = false;
      continue;
    }
    if (pos_ == count_) {
      batch_.resize(1024);
      auto r = refs_.read(batch_);
      if (!r.ok()) return r.error();
      count_ = *r;
      pos_ = 0;
      if (count_ == 0) break;
    }
    const Reference& ref = batch_[pos_++];
    ++records_;
    const std::uint32_t size = ref.size == 0 ? 64 : ref.size;
    if (size > (1u << 20))
      return make_error("trace replay: reference " + std::to_string(records_) + ": size " + std::to_string(size) +
                        " B is over 1 MiB");
    MemoryRequest q;
    q.time = std::max(last_time_, ref.time * c_.cycles_per_tick_num / c_.cycles_per_tick_den);
    last_time_ = q.time;
    if (c_.config_space && c_.config_space->contains(ref.address)) {
      const std::uint32_t index = c_.config_space->index_of(ref.address);
      q.address = c_.config_space->address_of(index);
      q.size = 64;
      q.write = ref.kind == Kind::Write;
      q.origin = ref.origin == Origin::Unknown ? Origin::Cpu : ref.origin;
      q.source = ref.source;
      q.label = ConfigSpace::label_of(index);
      q.tag = index;
      out[n++] = q;
      continue;
    }
    q.size = static_cast<std::uint32_t>(std::min<std::uint64_t>(size, c_.limit));
    q.address = ref.address % c_.limit;
    if (q.address + q.size > c_.limit) q.address = c_.limit - q.size;
    q.origin = ref.origin == Origin::Unknown ? Origin::Cpu : ref.origin;
    q.source = ref.source;
    q.write = ref.kind == Kind::Write;
    if (ref.kind == Kind::Modify) {
      pending_ = q;
      pending_.write = true;
      pending_write_ = true;
    }
    out[n++] = q;
  }
  return n;
}

// --- by name -----------------------------------------------------------------

std::vector<std::string> workload_names() {
  return {"seq-read", "seq-write", "read-after-write", "random-read", "appendix-a", "bursty"};
}

Result<std::unique_ptr<RequestSource>> make_workload(const WorkloadSpec& s) {
  if (s.limit < (1u << 20)) return make_error("workload: address limit must be at least 1 MiB");
  MicroBenchmarkConfig c;
  c.unit = s.unit;
  c.requests = s.requests;
  c.seed = s.seed;
  c.gap = s.gap;
  c.region = std::min<std::uint64_t>(s.limit, 64ull << 20);
  auto micro = [&](MicroPattern p) -> Result<std::unique_ptr<RequestSource>> {
    c.pattern = p;
    if (p == MicroPattern::RandomRead) c.region = s.limit;
    auto m = MicroBenchmark::create(c);
    if (!m.ok()) return m.error();
    return std::unique_ptr<RequestSource>(std::move(*m));
  };
  if (s.name == "seq-read") return micro(MicroPattern::SequentialRead);
  if (s.name == "seq-write") return micro(MicroPattern::SequentialWrite);
  if (s.name == "read-after-write") return micro(MicroPattern::ReadAfterWrite);
  if (s.name == "random-read") return micro(MicroPattern::RandomRead);
  if (s.name == "appendix-a") return appendix_a_sweep(s.requests, std::min<std::uint64_t>(s.limit, 64ull << 20), s.seed);
  if (s.name == "bursty") {
    if (s.bursty.on_cycles == 0) return make_error("bursty workload: the on phase must last at least one cycle");
    // The four micro-benchmarks at `unit`, one after the other, re-timed into on/off
    // phases. Inside a burst a request follows every `gap` cycles (default: one 64-byte
    // BL8 burst per 4 cycles, the data-bus peak), so the trace rate during a burst is the
    // memory's peak and the board's FIFO must absorb it.
    std::vector<std::unique_ptr<RequestSource>> parts;
    for (MicroPattern p : {MicroPattern::SequentialRead, MicroPattern::SequentialWrite, MicroPattern::ReadAfterWrite,
                           MicroPattern::RandomRead}) {
      MicroBenchmarkConfig m = c;
      m.pattern = p;
      m.gap = 0;
      m.requests = s.requests / 4 + (static_cast<std::uint64_t>(p) < s.requests % 4 ? 1 : 0);
      if (p == MicroPattern::RandomRead) m.region = s.limit;
      auto mb = MicroBenchmark::create(m);
      if (!mb.ok()) return mb.error();
      parts.push_back(std::move(*mb));
    }
    BurstyConfig b = s.bursty;
    b.gap = s.gap != 0 ? s.gap : 4 * (s.unit / 64);
    return std::unique_ptr<RequestSource>(
        new BurstyPhases(std::make_unique<ConcatenatedWorkload>(std::move(parts)), b));
  }
  std::string names;
  for (const auto& n : workload_names()) names += (names.empty() ? "" : ", ") + n;
  return make_error("unknown workload '" + s.name + "' (built in: " + names + ")");
}

}  // namespace hmtt::sim
