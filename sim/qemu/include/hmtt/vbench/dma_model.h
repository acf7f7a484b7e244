// Device DMA in the virtual bench, modelled from the kernel's DMA log.
//
// QEMU's devices read and write guest memory without passing through TCG, so
// the plugin never sees their bus-master traffic (QEMU 7.2 has no plugin hook
// for device memory accesses). The kernel module logs every DMA mapping
// <device, phys, size, direction, map/unmap> and loads that record's sync tag,
// which the plugin does see, in place in the access stream. So the device's
// traffic is put back where it happened: a buffer mapped to the device is read
// by it (one read per line) right after the map's sync load; a buffer mapped
// from the device is written by it right before the unmap's sync load (the
// data has arrived when the driver unmaps); bidirectional buffers get both.
// These references carry Origin::DmaModelled and source = the device's number
// (1 + its index in DmaModelStats::devices), never Origin::Dma.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hmtt/driver/kernel_log.h"
#include "hmtt/result.h"

namespace hmtt::vbench {

struct DmaModelStats {
  std::uint64_t maps = 0, unmaps = 0;  // DMA records whose sync load was found in the trace
  std::uint64_t unmatched = 0;         // DMA records whose sync load was not (not modelled)
  std::uint64_t reads = 0, writes = 0;  // modelled references (64-byte lines)
  std::uint64_t read_bytes = 0, write_bytes = 0;  // the mapped bytes they cover
  std::vector<std::string> devices;
};

// Copies the plugin's trace `trace_in` to `trace_out` (hmtt CSV) with the modelled
// device references inserted. cfg_base/cfg_size: the config space; nsync: the module's
// sync ids (HMTT_IOC_STATUS).
Result<DmaModelStats> model_dma(const std::string& trace_in, const driver::KernelLog& log, std::uint32_t nsync,
                                std::uint64_t cfg_base, std::uint64_t cfg_size, const std::string& trace_out);

}  // namespace hmtt::vbench
