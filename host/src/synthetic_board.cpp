#include "hmtt/host/synthetic_board.h"

namespace hmtt::host {

Result<SyntheticBoard> SyntheticBoard::create(const SyntheticConfig& c) {
  wire::EncoderConfig ec;
  ec.board = c.board;
  ec.links = c.links;
  ec.records_per_frame = c.records_per_frame;
  auto e = wire::FrameEncoder::create(ec);
  if (!e) return e.error();
  SyntheticBoard b(c, std::move(*e));
  b.time_ = c.start_time;
  return b;
}

Status SyntheticBoard::generate(std::size_t references, std::vector<wire::EncodedFrame>& frames, SyntheticTruth* truth,
                                bool flush) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const std::uint64_t units = config_.address_bytes >> 6;
  for (std::size_t i = 0; i < references; ++i) {
    // Mostly short gaps; now and then one that needs OVERFLOW records.
    std::uint64_t gap = 1 + (rng_() % 64);
    if (u(rng_) < config_.long_gap_rate) gap = 4096 + (rng_() % 1000000);
    time_ += gap;
    // Mostly sequential lines, sometimes a jump.
    if (rng_() % 8 == 0)
      address_ = rng_() % units;
    else
      address_ = (address_ + 1) % units;
    const bool write = (rng_() & 3) == 0;
    HMTT_TRY(encoder_.add_reference(time_, address_ << 6, write));
    if (truth) {
      Reference r;
      r.time = time_;
      r.address = address_ << 6;
      r.size = 64;
      r.kind = write ? Kind::Write : Kind::Read;
      truth->refs.push_back(r);
    }
    if (u(rng_) < config_.event_rate) {
      time_ += 1 + rng_() % 16;
      const std::uint32_t index = wire::kFirstUserEvent + static_cast<std::uint32_t>(rng_() % 1000);
      HMTT_TRY(encoder_.add_event(time_, index, false));
      if (truth) truth->events.push_back(wire::DecodedEvent{time_, index, false});
    }
    if (u(rng_) < config_.loss_rate) {
      const std::uint64_t n = 1 + rng_() % 5000;
      encoder_.add_loss(n);
      if (truth) {
        truth->lost_records += n;
        ++truth->loss_markers;
      }
    }
    if (u(rng_) < config_.report_rate) {
      const std::uint64_t values[3] = {rng_() % 1000, rng_() % 1000, rng_() % 1000};
      HMTT_TRY(encoder_.add_report(0, static_cast<std::uint16_t>(rng_()), values));
      if (truth) ++truth->reports;
    }
    while (encoder_.has_frame()) frames.push_back(encoder_.pop_frame());
  }
  if (flush) encoder_.flush();
  while (encoder_.has_frame()) frames.push_back(encoder_.pop_frame());
  return Status::success();
}

void set_sequence(std::vector<std::uint8_t>& f, std::uint32_t sequence) {
  if (f.size() < wire::kHeaderBytes + wire::kCrcBytes) return;
  for (int i = 0; i < 4; ++i) f[12 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(sequence >> (24 - 8 * i));
  const std::size_t n = f.size() - wire::kCrcBytes;
  const std::uint32_t c = wire::crc32(std::span<const std::uint8_t>(f.data(), n));
  for (int i = 0; i < 4; ++i) f[n + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(c >> (24 - 8 * i));
}

}  // namespace hmtt::host
