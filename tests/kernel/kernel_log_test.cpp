// KernelLogDecoder against records laid out by the uapi header's own C
// structs (so the decoder and the module agree on every offset), and its
// errors on damaged input.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include <linux/hmtt.h>

#include "hmtt/driver/kernel_log.h"

using hmtt::driver::DmaDirection;
using hmtt::driver::DmaOp;
using hmtt::driver::KernelLogDecoder;
using hmtt::driver::TagKind;

namespace {

static_assert(sizeof(hmtt_rec_hdr) == hmtt::driver::kLogHeaderBytes);
static_assert(sizeof(hmtt_rec_tag) == 24 && sizeof(hmtt_rec_sched) == 24);
static_assert(sizeof(hmtt_rec_syscall) == 56 && sizeof(hmtt_rec_pte) == 40 && sizeof(hmtt_rec_dma) == 64);
static_assert(sizeof(hmtt_status) % 8 == 0 && sizeof(hmtt_tag) % 8 == 0);

class LogBuilder {
 public:
  template <typename T>
  LogBuilder& add(std::uint16_t type, std::uint64_t seq, const T& payload, std::uint32_t cpu = 0) {
    add_raw(type, seq, &payload, sizeof(payload), cpu);
    return *this;
  }
  LogBuilder& add_raw(std::uint16_t type, std::uint64_t seq, const void* p, std::size_t n, std::uint32_t cpu = 0) {
    hmtt_rec_hdr h{};
    h.type = type;
    h.len = static_cast<std::uint16_t>((sizeof(h) + n + 7) / 8 * 8);
    h.cpu = cpu;
    h.seq = seq;
    h.time_ns = 1000 * seq;
    const auto at = bytes.size();
    bytes.resize(at + h.len);
    std::memcpy(bytes.data() + at, &h, sizeof(h));
    std::memcpy(bytes.data() + at + sizeof(h), p, n);
    return *this;
  }
  std::vector<std::byte> bytes;
};

}  // namespace

TEST_CASE("every record type decodes to the values the module wrote") {
  hmtt_rec_pte pte{};
  pte.pid = 128;
  pte.tgid = 128;
  pte.op = HMTT_PTE_MAP;
  pte.fault_flags = 0x255;
  pte.vpage = 0x7f973f66b;
  pte.ppage = 0xb1e5;
  pte.pte_addr = 0x298b358;
  hmtt_rec_dma dma{};
  dma.op = HMTT_DMA_UNMAP;
  dma.dir = 2;
  dma.phys = 0xcfd5000;
  dma.dma_addr = 0xcfd5000;
  dma.size = 4096;
  std::strcpy(dma.dev, "0000:00:03.0");
  hmtt_rec_tag tag{};
  tag.kind = HMTT_TAG_USER;
  tag.event = 7;
  tag.value = 0xabc;
  tag.pid = 99;
  hmtt_rec_sched sched{1, 1, 2, 2, 0x1, 0};
  hmtt_rec_syscall sys{};
  sys.pid = 5;
  sys.tgid = 5;
  sys.nr = 110;
  sys.dir = HMTT_SYSCALL_EXIT;
  sys.ret = -14;
  const char text[] = "hello";
  // Read order is CPU by CPU, not seq order; the decoder sorts each table.
  LogBuilder b;
  b.add(HMTT_REC_DMA, 12, dma, 1).add(HMTT_REC_PTE, 10, pte).add(HMTT_REC_TAG, 11, tag)
      .add(HMTT_REC_SCHED, 14, sched).add(HMTT_REC_SYSCALL, 13, sys).add_raw(HMTT_REC_USER, 15, text, 5);
  auto log = KernelLogDecoder{}.decode(b.bytes);
  REQUIRE(log.ok());
  CHECK(log->records == 6);
  CHECK(log->missing_seq == 0);
  REQUIRE(log->page_map.size() == 1);
  CHECK(log->page_map[0].vpage == 0x7f973f66bULL);
  CHECK(log->page_map[0].ppage == 0xb1e5);
  CHECK(log->page_map[0].pte_addr == 0x298b358);
  CHECK(log->page_map[0].fault_flags == 0x255);
  CHECK(log->page_map[0].header.seq == 10);
  REQUIRE(log->dma.size() == 1);
  CHECK(log->dma[0].op == DmaOp::Unmap);
  CHECK(log->dma[0].direction == DmaDirection::FromDevice);
  CHECK(log->dma[0].size == 4096);
  CHECK(log->dma[0].device == "0000:00:03.0");
  CHECK(log->dma[0].header.cpu == 1);
  CHECK(log->dma[0].header.offset == 0);
  REQUIRE(log->tags.size() == 1);
  CHECK(log->tags[0].kind == TagKind::User);
  CHECK(log->tags[0].value == 0xabc);
  CHECK(log->tags[0].pid == 99);
  CHECK(log->sched[0].next_pid == 2);
  CHECK(log->syscalls[0].exit);
  CHECK(log->syscalls[0].ret == -14);
  CHECK(log->syscalls[0].nr == 110);
  REQUIRE(log->user.size() == 1);
  CHECK(log->user[0].payload.size() == 8);  // padded to 8 bytes
  CHECK(std::memcmp(log->user[0].payload.data(), "hello", 5) == 0);
}

TEST_CASE("gaps in the sequence ids count the records the module dropped") {
  hmtt_rec_tag tag{};
  tag.kind = HMTT_TAG_BEGIN;
  LogBuilder b;
  for (std::uint64_t s : {3, 4, 9, 5, 20}) b.add(HMTT_REC_TAG, s, tag);
  auto log = KernelLogDecoder{}.decode(b.bytes);
  REQUIRE(log.ok());
  CHECK(log->first_seq == 3);
  CHECK(log->last_seq == 20);
  CHECK(log->missing_seq == 18 - 5);
  CHECK(log->tags[2].header.seq == 5);
}

TEST_CASE("the sync tag index follows the module's formula") {
  CHECK(hmtt::driver::sync_tag_index(0, 126912) == 64 + 4096);
  CHECK(hmtt::driver::sync_tag_index(126913, 126912) == 64 + 4096 + 1);
}

TEST_CASE("damaged logs give errors naming the offset and the field") {
  hmtt_rec_tag tag{};
  tag.kind = HMTT_TAG_END;
  LogBuilder b;
  b.add(HMTT_REC_TAG, 1, tag).add(HMTT_REC_TAG, 2, tag);
  const auto good = b.bytes;

  auto err = [](std::vector<std::byte> bytes) {
    auto r = KernelLogDecoder{}.decode(bytes);
    REQUIRE_FALSE(r.ok());
    return r.error().message;
  };
  auto bytes = good;
  bytes.resize(good.size() - 10);
  CHECK(err(bytes) == "kernel log offset 48: len: 48 but only 38 bytes left (truncated record)");
  bytes.resize(good.size() - 40);
  CHECK(err(bytes) == "kernel log offset 48: truncated header: 8 bytes left, need 24");
  bytes = good;
  bytes[48] = std::byte{9};
  CHECK(err(bytes) == "kernel log offset 48: type: 9 is not a record type (1..6)");
  bytes = good;
  bytes[50] = std::byte{12};
  bytes[51] = std::byte{0};
  CHECK(err(bytes) == "kernel log offset 48: len: 12 is not a multiple of 8 in 24..512");
  bytes = good;
  bytes[48 + 24] = std::byte{7};
  CHECK(err(bytes) == "kernel log offset 48: tag.kind: 7 is not 1..3");
  bytes = good;
  bytes[48 + 24 + 20] = std::byte{1};
  CHECK(err(bytes) == "kernel log offset 48: tag.reserved: reserved, must be 0");
  bytes = good;
  bytes[48 + 8] = std::byte{1};
  CHECK(err(bytes) == "kernel log: seq 1 appears twice");

  hmtt_rec_dma dma{};
  dma.op = HMTT_DMA_MAP;
  std::memset(dma.dev, 'x', sizeof(dma.dev));
  LogBuilder d;
  d.add(HMTT_REC_DMA, 1, dma);
  CHECK(err(d.bytes) == "kernel log offset 0: dma.dev: not NUL-terminated");
  LogBuilder s;
  s.add_raw(HMTT_REC_PTE, 1, "ab", 2);
  CHECK(err(s.bytes) == "kernel log offset 0: len: pte record needs 64 bytes, has 32");
}

TEST_CASE("an empty log is no records") {
  auto log = KernelLogDecoder{}.decode({});
  REQUIRE(log.ok());
  CHECK(log->records == 0);
  CHECK(log->missing_seq == 0);
}

#include <filesystem>
#include <fstream>
#include <sstream>

TEST_CASE("CSV tables carry every record with its sync-tag index") {
  hmtt_rec_pte pte{};
  pte.pid = 7;
  pte.tgid = 7;
  pte.op = HMTT_PTE_UNMAP;
  pte.vpage = 0x10;
  pte.ppage = 0x20;
  hmtt_rec_dma dma{};
  dma.op = HMTT_DMA_MAP;
  dma.dir = 1;
  dma.phys = 4096;
  dma.dma_addr = 4096;
  dma.size = 16;
  std::strcpy(dma.dev, "vda");
  LogBuilder b;
  b.add(HMTT_REC_PTE, 5, pte).add(HMTT_REC_DMA, 6, dma);
  auto log = KernelLogDecoder{}.decode(b.bytes);
  REQUIRE(log.ok());
  const auto dir = std::filesystem::temp_directory_path() / "hmtt_kernel_log_csv_test";
  std::filesystem::remove_all(dir);
  const auto nsync = hmtt::driver::nsync_for_region(8u << 20);
  CHECK(nsync == 126912);
  REQUIRE(hmtt::driver::write_kernel_log_csv(*log, dir, nsync).ok());
  auto slurp = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  CHECK(slurp(dir / "page_map.csv") ==
        "seq,cpu,time_ns,sync_index,pid,tgid,op,vpage,ppage,pte_addr,fault_flags\n"
        "5,0,5000,4165,7,7,unmap,16,32,0,0\n");
  CHECK(slurp(dir / "dma.csv") ==
        "seq,cpu,time_ns,sync_index,device,op,direction,phys,dma_addr,size\n"
        "6,0,6000,4166,vda,map,to_device,4096,4096,16\n");
  CHECK(slurp(dir / "events.csv") == "seq,cpu,time_ns,sync_index,kind,event,value,pid\n");
  std::filesystem::remove_all(dir);
}

TEST_CASE("page-map ops: map, unmap, migrate; anything else is an error") {
  hmtt_rec_pte pte{};
  pte.op = HMTT_PTE_MIGRATE;
  pte.fault_flags = HMTT_PTE_HUGE;
  pte.vpage = 0x200;
  pte.ppage = 0x4321;
  LogBuilder b;
  b.add(HMTT_REC_PTE, 1, pte);
  auto log = KernelLogDecoder{}.decode(b.bytes);
  REQUIRE(log.ok());
  CHECK(log->page_map[0].op == 3);
  CHECK(log->page_map[0].fault_flags == 0x80000000u);
  pte.op = 4;
  LogBuilder bad;
  bad.add(HMTT_REC_PTE, 1, pte);
  auto r = KernelLogDecoder{}.decode(bad.bytes);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "kernel log offset 0: pte.op: 4 is not 1 (map), 2 (unmap) or 3 (migrate)");
}
