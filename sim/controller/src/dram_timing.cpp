#include "hmtt/sim/dram_timing.h"

#include <algorithm>
#include <string>

namespace hmtt::sim {

unsigned DramTiming::read_to_precharge() const {
  if (standard == DdrStandard::Ddr200) return burst_cycles();
  return burst_cycles() + std::max(tRTP, 2u) - 2;
}

Result<DramTiming> dram_timing(DdrStandard standard, unsigned burst_length) {
  if (burst_length != 4 && burst_length != 8)
    return make_error("burst length " + std::to_string(burst_length) + ": must be 4 or 8");
  DramTiming t;
  t.standard = standard;
  t.burst_length = burst_length;
  switch (standard) {
    case DdrStandard::Ddr200:  // PC1600, 100 MHz, CL2 (JESD79)
      t.tck_ps = 10000;
      t.cl = 2; t.wl = 1;
      t.tRCD = 2; t.tRP = 2; t.tRPA = 2; t.tRAS = 5; t.tRC = 7; t.tRRD = 2; t.tFAW = 0;
      t.tCCD = 1; t.tWR = 2; t.tWTR = 1; t.tRTP = 0;
      t.tRFC = 8;       // 80 ns
      t.tREFI = 780;    // 7.8 us
      break;
    case DdrStandard::Ddr2_400:  // 200 MHz, 3-3-3 (JESD79-2)
      t.tck_ps = 5000;
      t.cl = 3; t.wl = 2;
      t.tRCD = 3; t.tRP = 3; t.tRPA = 4; t.tRAS = 8; t.tRC = 11; t.tRRD = 2; t.tFAW = 8;
      t.tCCD = 2; t.tWR = 3; t.tWTR = 2; t.tRTP = 2;
      t.tRFC = 26;      // 127.5 ns
      t.tREFI = 1560;
      break;
    case DdrStandard::Ddr2_800:  // 400 MHz, 5-5-5 (JESD79-2)
      t.tck_ps = 2500;
      t.cl = 5; t.wl = 4;
      t.tRCD = 5; t.tRP = 5; t.tRPA = 6; t.tRAS = 18; t.tRC = 23; t.tRRD = 3; t.tFAW = 15;
      t.tCCD = 2; t.tWR = 6; t.tWTR = 3; t.tRTP = 3;
      t.tRFC = 51;      // 127.5 ns
      t.tREFI = 3120;
      break;
  }
  return t;
}

Result<DdrStandard> parse_standard(std::string_view name) {
  if (name == "ddr-200" || name == "ddr200") return DdrStandard::Ddr200;
  if (name == "ddr2-400" || name == "ddr2_400") return DdrStandard::Ddr2_400;
  if (name == "ddr2-800" || name == "ddr2_800") return DdrStandard::Ddr2_800;
  return make_error("unknown DDR standard '" + std::string(name) + "' (known: ddr-200, ddr2-400, ddr2-800)");
}

std::string_view standard_name(DdrStandard s) {
  switch (s) {
    case DdrStandard::Ddr200: return "ddr-200";
    case DdrStandard::Ddr2_400: return "ddr2-400";
    case DdrStandard::Ddr2_800: return "ddr2-800";
  }
  return "?";
}

}  // namespace hmtt::sim
