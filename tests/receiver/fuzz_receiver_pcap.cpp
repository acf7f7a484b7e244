// Fuzz target: the pcap/pcapng reader and packet classification (Ethernet with
// and without FCS, VLAN, Linux cooked captures) into a Receiver. No crash, no
// hang; a malformed file is an error value naming it.
#include <cstdint>
#include <cstdlib>

#include "hmtt/host/pcap_source.h"
#include "hmtt/host/receiver.h"

using namespace hmtt;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto src = host::PcapSource::open_buffer(std::span<const std::uint8_t>(data, size), "fuzz.pcap");
  if (!src) return 0;
  host::MemoryCaptureSink sink;
  host::Receiver rx(sink, {});
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
  return 0;
}
