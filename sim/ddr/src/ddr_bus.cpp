#include "hmtt/sim/ddr_bus.h"

namespace hmtt::sim {

std::string_view command_name(DdrCommand c) {
  switch (c) {
    case DdrCommand::Deselect: return "DES";
    case DdrCommand::Nop: return "NOP";
    case DdrCommand::Active: return "ACT";
    case DdrCommand::Read: return "RD";
    case DdrCommand::Write: return "WR";
    case DdrCommand::Precharge: return "PRE";
    case DdrCommand::PrechargeAll: return "PREA";
    case DdrCommand::Refresh: return "REF";
    case DdrCommand::ModeRegister: return "MRS";
  }
  return "?";
}

DdrPins encode_pins(const DdrCommandWord& w) {
  DdrPins p;
  if (w.cmd == DdrCommand::Deselect) return p;
  p.cs_n = static_cast<std::uint8_t>(~(1u << w.rank));
  p.ba = w.bank;
  const auto ap = static_cast<std::uint16_t>(1u << kAutoPrechargeBit);
  switch (w.cmd) {
    case DdrCommand::Nop: break;
    case DdrCommand::Active:
      p.ras_n = false;
      p.a = w.addr;
      break;
    case DdrCommand::Read:
    case DdrCommand::Write:
      p.cas_n = false;
      p.we_n = w.cmd == DdrCommand::Read;
      p.a = static_cast<std::uint16_t>((w.addr & ~ap) | (w.auto_precharge ? ap : 0));
      break;
    case DdrCommand::Precharge:
      p.ras_n = false;
      p.we_n = false;
      break;
    case DdrCommand::PrechargeAll:
      p.ras_n = false;
      p.we_n = false;
      p.a = ap;
      p.ba = 0;
      break;
    case DdrCommand::Refresh:
      p.ras_n = false;
      p.cas_n = false;
      p.ba = 0;
      break;
    case DdrCommand::ModeRegister:
      p.ras_n = false;
      p.cas_n = false;
      p.we_n = false;
      p.a = w.addr;
      break;
    case DdrCommand::Deselect: break;
  }
  return p;
}

DdrCommandWord decode_pins(const DdrPins& p) {
  DdrCommandWord w;
  const std::uint8_t sel = static_cast<std::uint8_t>(~p.cs_n);
  if (sel == 0 || (sel & (sel - 1)) != 0) return w;  // none, or more than one rank
  while (((sel >> w.rank) & 1) == 0) ++w.rank;
  const auto ap = static_cast<std::uint16_t>(1u << kAutoPrechargeBit);
  const unsigned code = (p.ras_n ? 4u : 0u) | (p.cas_n ? 2u : 0u) | (p.we_n ? 1u : 0u);
  switch (code) {
    case 0b111: w.cmd = DdrCommand::Nop; break;
    case 0b011:
      w.cmd = DdrCommand::Active;
      w.bank = p.ba;
      w.addr = p.a;
      break;
    case 0b101:
    case 0b100:
      w.cmd = code == 0b101 ? DdrCommand::Read : DdrCommand::Write;
      w.bank = p.ba;
      w.addr = static_cast<std::uint16_t>(p.a & ~ap);
      w.auto_precharge = (p.a & ap) != 0;
      break;
    case 0b010:
      if (p.a & ap) {
        w.cmd = DdrCommand::PrechargeAll;
      } else {
        w.cmd = DdrCommand::Precharge;
        w.bank = p.ba;
      }
      break;
    case 0b001: w.cmd = DdrCommand::Refresh; break;
    case 0b000:
      w.cmd = DdrCommand::ModeRegister;
      w.addr = p.a;
      break;
    default: w.cmd = DdrCommand::Nop; break;  // 0b110: burst terminate, ignored
  }
  return w;
}

}  // namespace hmtt::sim
