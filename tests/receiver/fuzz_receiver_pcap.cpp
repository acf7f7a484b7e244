// Fuzz target: the pcap/pcapng reader and packet classification (Ethernet with
// and without FCS, VLAN, Linux cooked captures) into a Receiver. No crash, no
// hang; a malformed file is an error value naming it.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "hmtt/host/pcap_source.h"
#include "hmtt/host/receiver.h"

using namespace hmtt;

namespace {

// The whole input through a Receiver; with `read_ahead`, told the streams the read-ahead found
// (as run_capture does for files).
std::vector<Reference> ingest(const std::uint8_t* data, std::size_t size, bool read_ahead) {
  auto src = host::PcapSource::open_buffer(std::span<const std::uint8_t>(data, size), "fuzz.pcap");
  if (!src) return {};
  host::MemoryCaptureSink sink;
  host::ReceiverOptions o;
  o.horizon_refs = 4096;  // small enough for the hold and the read-ahead to differ on small inputs
  host::Receiver rx(sink, o);
  if (read_ahead) {
    if (auto ahead = (*src)->streams_ahead(o.horizon_refs)) rx.expect_file_streams(*ahead);
  }
  host::FrameBatch batch;
  for (int guard = 0; guard < 100000; ++guard) {
    batch.clear();
    auto st = (*src)->read(batch, 64, std::chrono::milliseconds(0));
    if (!st) break;
    if (!rx.accept(batch, 1).ok()) std::abort();
    if (*st == host::ReadState::End) break;
  }
  if (!rx.finish().ok()) std::abort();
  const auto& c = (*src)->counters();
  if (c.non_hmtt > c.packets) std::abort();
  return sink.references();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Held until the horizon, and released from the first frames after a read-ahead: no crash, no
  // hang, and the merge in time order both ways. (Their references are the same for well-formed
  // files, tests/receiver; a fuzzed file need not be one, e.g. one frame sent on two ports.)
  for (const bool read_ahead : {false, true}) {
    const std::vector<Reference> refs = ingest(data, size, read_ahead);
    for (std::size_t i = 1; i < refs.size(); ++i)
      if (refs[i].time < refs[i - 1].time) std::abort();
  }
  return 0;
}
