// Fuzz target: the receiver's frame path. The input is a sequence of frames,
// each [length: 2 bytes big-endian][port offset: 1 byte][bytes]. Every frame is
// decoded by the receiver's decoder and by the codec (they must agree), then
// the sequence goes through a Receiver (sequence accounting, merge with a small
// horizon, live or file mode by the first byte). Checks: no crash or hang, the
// merged stream is in time order, and every reference of an accepted frame is
// either released or counted as too late.
#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "hmtt/host/frame_decoder.h"
#include "hmtt/host/receiver.h"

using namespace hmtt;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  host::ReceiverOptions o;
  o.live = (data[0] & 1) != 0;
  o.horizon_refs = 64 + (data[0] >> 1) * 16;
  o.idle_ns = 3'000'000;
  o.reorder_ns = 2'000'000;
  host::MemoryCaptureSink sink;
  host::Receiver rx(sink, o);
  host::FrameBatch batch;
  wire::DecodedFrame a, b, side;
  std::vector<Reference> room(wire::kMaxRecords), room4(wire::kMaxRecords);
  std::size_t in_room = 0;
  std::uint64_t now = 1, accepted_refs = 0;
  std::size_t at = 1;
  while (at + 3 <= size) {
    const std::size_t len = (std::size_t{data[at]} << 8) | data[at + 1];
    const std::uint16_t port = static_cast<std::uint16_t>(7400 + data[at + 2] % 70);
    at += 3;
    const std::size_t n = len < size - at ? len : size - at;
    std::span<const std::uint8_t> frame(data + at, n);
    at += n;
    const Status s1 = wire::decode_frame(frame, a);
    const Status s2 = host::decode_link_frame(frame, b);
    const Status s3 = host::decode_link_frame(frame, side, room, in_room);
    if (s1.ok() != s2.ok() || s1.ok() != s3.ok()) std::abort();
    {
      // The form the receiver uses, with the CRC taken beforehand (FrameBatch::add).
      wire::DecodedFrame side4;
      std::size_t in_room4 = 0;
      const Status s4 = host::decode_link_frame(frame, side4, room4, in_room4, host::frame_crc_ok(frame));
      if (s4.ok() != s1.ok()) std::abort();
      if (!s1.ok() && s1.error().message != s4.error().message) std::abort();
      if (s1.ok() && (in_room4 != a.refs.size() || !std::equal(a.refs.begin(), a.refs.end(), room4.begin()) ||
                      a.end_time != side4.end_time))
        std::abort();
    }
    if (s1.ok() && (a.refs != b.refs || a.events != b.events || a.losses != b.losses || a.reports != b.reports ||
                    a.end_time != b.end_time || !(a.header == b.header)))
      std::abort();
    if (s1.ok() && (in_room != a.refs.size() || !std::equal(a.refs.begin(), a.refs.end(), room.begin()) ||
                    a.events != side.events || a.losses != side.losses || a.reports != side.reports ||
                    a.end_time != side.end_time || !(a.header == side.header)))
      std::abort();
    if (!s1.ok() && (in_room != 0 || s1.error().message != s3.error().message)) std::abort();
    batch.clear();
    batch.add(frame, port, now);
    if (!rx.accept(batch, now).ok()) std::abort();
    now += 1'000'000;
    if (!rx.tick(now).ok()) std::abort();
  }
  if (!rx.finish().ok()) std::abort();
  for (const auto& l : rx.links()) accepted_refs += l.references;
  const auto& refs = sink.references();
  for (std::size_t i = 1; i < refs.size(); ++i)
    if (refs[i].time < refs[i - 1].time) std::abort();
  if (refs.size() != accepted_refs) std::abort();
  return 0;
}
