#include <doctest/doctest.h>

#include <random>

#include "hmtt/sim/address_map.h"
#include "hmtt/sim/ddr_bus.h"

using namespace hmtt::sim;

TEST_CASE("every command survives pins and back (JEDEC truth table)") {
  std::mt19937 rng(3);
  for (int i = 0; i < 10000; ++i) {
    DdrCommandWord w;
    w.cmd = static_cast<DdrCommand>(rng() % 9);
    if (w.cmd != DdrCommand::Deselect) w.rank = static_cast<std::uint8_t>(rng() % 4);
    if (w.cmd == DdrCommand::Active || w.cmd == DdrCommand::Read || w.cmd == DdrCommand::Write ||
        w.cmd == DdrCommand::Precharge)
      w.bank = static_cast<std::uint8_t>(rng() % 8);
    if (w.cmd == DdrCommand::Active || w.cmd == DdrCommand::ModeRegister) w.addr = static_cast<std::uint16_t>(rng());
    if (w.cmd == DdrCommand::Read || w.cmd == DdrCommand::Write) {
      w.addr = static_cast<std::uint16_t>(rng() & ~(1u << 10));
      w.auto_precharge = rng() & 1;
    }
    CHECK(decode_pins(encode_pins(w)) == w);
  }
  DdrPins p = encode_pins({DdrCommand::Read, 1, 2, 0x40, false});
  CHECK(p.cs_n == 0xFD);
  CHECK(p.ras_n);
  CHECK_FALSE(p.cas_n);
  CHECK(p.we_n);
  p.cs_n = 0xFC;  // two ranks selected at once is not a command
  CHECK(decode_pins(p).cmd == DdrCommand::Deselect);
}

TEST_CASE("address maps compose and decompose exactly") {
  for (const char* name : {"open-page", "interleaved"}) {
    auto m = AddressMap::builtin(name);
    REQUIRE(m.ok());
    CHECK(m->total_bits() == 31);
    std::mt19937_64 rng(5);
    for (int i = 0; i < 10000; ++i) {
      std::uint64_t a = rng() & ((std::uint64_t{1} << 31) - 1);
      CHECK(m->compose(m->decompose(a)) == a);
    }
  }
  auto m = AddressMap::builtin("interleaved");
  REQUIRE(m.ok());
  // consecutive 64-byte bursts go to consecutive banks
  CHECK(m->decompose(0x000).bank == 0);
  CHECK(m->decompose(0x040).bank == 1);
  CHECK(m->decompose(0x1C0).bank == 7);
  CHECK(m->decompose(0x200).rank == 1);
  CHECK(m->decompose(0x400).column == 8);
  auto o = AddressMap::builtin("open-page");
  REQUIRE(o.ok());
  CHECK(o->decompose(0x1FF8).column == 0x3FF);
  CHECK(o->decompose(0x2000).bank == 1);
}

TEST_CASE("bad address maps are rejected with the reason") {
  CHECK(AddressMap::parse("row:14,bank:3,col:10").error().message ==
        "address map 'row:14,bank:3,col:10': missing field 'bus'");
  CHECK(AddressMap::parse("row:14,bank:3,col:10,bus:3,row:2").error().message ==
        "address map 'row:14,bank:3,col:10,bus:3,row:2': field 'row' appears twice");
  CHECK(AddressMap::parse("row:x,bank:3,col:10,bus:3").error().message ==
        "address map 'row:x,bank:3,col:10,bus:3': field 'row:x' has a bad width");
  CHECK_FALSE(AddressMap::parse("row:14,bank:3,col:16,bus:3").ok());
  CHECK_FALSE(AddressMap::parse("bogus:1").ok());
}
