// DRAM timing parameters of the DDR standards the controller model speaks.
//
// All values are in command-clock cycles (tCK). The table is the data both the
// scheduler (which must obey it) and the timing checker (which verifies the pins
// against it, with its own formulas) read. Figures are the JEDEC speed bins:
// DDR-200 (PC1600, CL2, JESD79), DDR2-400 (3-3-3) and DDR2-800 (5-5-5, JESD79-2).
// DDR2: 1 Gb x8 devices (8 banks, 1 KB page: tRFC 127.5 ns, tFAW 37.5 ns, tRPA =
// tRP + 1); DDR: 512 Mb x8 (tRFC 80 ns). tREFI 7.8 us.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "hmtt/result.h"

namespace hmtt::sim {

enum class DdrStandard : std::uint8_t { Ddr200, Ddr2_400, Ddr2_800 };

struct DramTiming {
  DdrStandard standard = DdrStandard::Ddr2_400;
  std::uint32_t tck_ps = 5000;  // command clock period
  unsigned burst_length = 8;    // BL: data beats per READ/WRITE (4 or 8)
  unsigned bus_bytes = 8;       // data bus width (a 64-bit DIMM)
  unsigned cl = 3;              // CAS latency = read latency (no additive latency)
  unsigned wl = 2;              // write latency (DDR: 1, DDR2: CL-1)
  unsigned tRCD = 3;            // ACT to READ/WRITE, same bank
  unsigned tRP = 3;             // PRE to ACT, same bank
  unsigned tRPA = 4;            // PRECHARGE ALL to ACT/REF (DDR2 8-bank devices: tRP + 1 tCK)
  unsigned tRAS = 8;            // ACT to PRE, same bank
  unsigned tRC = 11;            // ACT to ACT, same bank
  unsigned tRRD = 2;            // ACT to ACT, other bank of the same rank
  unsigned tFAW = 8;            // window of four ACTs per rank (0 = none, DDR)
  unsigned tCCD = 2;            // column command to column command
  unsigned tWR = 3;             // end of write data to PRE (write recovery)
  unsigned tWTR = 2;            // end of write data to READ, same rank
  unsigned tRTP = 2;            // READ to PRE, beyond the burst (DDR2; DDR: 0)
  unsigned tRFC = 21;           // REF to ACT/REF
  unsigned tREFI = 1560;        // average refresh interval
  unsigned tRTRS = 1;           // data-bus turnaround between ranks

  unsigned burst_cycles() const { return burst_length / 2; }  // double data rate
  unsigned burst_bytes() const { return burst_length * bus_bytes; }
  std::uint32_t clock_khz() const { return static_cast<std::uint32_t>(1'000'000'000ull / tck_ps); }
  // READ to PRE of the same bank (JEDEC DDR2: AL + BL/2 + max(tRTP, 2) - 2; DDR: BL/2).
  unsigned read_to_precharge() const;
  // WRITE to PRE of the same bank: WL + BL/2 + tWR.
  unsigned write_to_precharge() const { return wl + burst_cycles() + tWR; }
};

// The timing of `standard` with burst length `burst_length` (4 or 8).
Result<DramTiming> dram_timing(DdrStandard standard, unsigned burst_length = 8);
// By name: "ddr-200", "ddr2-400", "ddr2-800".
Result<DdrStandard> parse_standard(std::string_view name);
std::string_view standard_name(DdrStandard s);

}  // namespace hmtt::sim
