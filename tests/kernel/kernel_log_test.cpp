// KernelLogDecoder against records laid out by the uapi header's own C
// structs (so the decoder and the module agree on every offset), and its
// errors on damaged input.
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <linux/hmtt.h>

#include "hmtt/driver/kernel_log.h"
#include "hmtt/driver/log_alignment.h"
#include "hmtt/store/store.h"

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

namespace {

// A config-space load of sync_tag_index(seq, nsync) seen by the board at `time`.
hmtt::store::Event sync_event(std::uint64_t time, std::uint64_t seq, std::uint32_t nsync, bool write = false) {
  hmtt::store::Event e;
  e.time = time;
  e.type = hmtt::store::EventType::ConfigSpace;
  e.value = hmtt::driver::sync_tag_index(seq, nsync);
  e.write = write;
  return e;
}

}  // namespace

TEST_CASE("sync tags align log records to trace time; unmatched records stay unaligned (time 0)") {
  constexpr std::uint32_t nsync = 8;  // indices repeat every 8 records: seq 10 and 18 share one
  hmtt_rec_pte pte{};
  pte.pid = 41;
  pte.tgid = 40;
  pte.op = HMTT_PTE_MAP;
  pte.vpage = 0x7f00;
  pte.ppage = 0x1234;
  pte.pte_addr = 0x9000;
  hmtt_rec_dma dma{};
  dma.op = HMTT_DMA_UNMAP;
  dma.dir = 2;
  dma.phys = 0x100000;
  dma.size = 8192;
  std::strcpy(dma.dev, "0000:00:03.0");
  hmtt_rec_tag tag{};
  tag.kind = HMTT_TAG_USER;
  tag.event = 3;
  tag.value = 77;
  tag.pid = 40;
  hmtt_rec_sched sched{40, 40, 50, 50, 0, 0};
  hmtt_rec_pte unmap = pte;
  unmap.op = HMTT_PTE_UNMAP;
  LogBuilder b;
  b.add(HMTT_REC_PTE, 10, pte).add(HMTT_REC_DMA, 11, dma).add(HMTT_REC_TAG, 12, tag);
  b.add(HMTT_REC_SCHED, 13, sched).add(HMTT_REC_PTE, 18, unmap);
  auto log = KernelLogDecoder{}.decode(b.bytes);
  REQUIRE(log.ok());

  // The board saw the sync loads of seq 10, 11, 13 and 18 (not 12), plus a store to
  // seq 12's index (not a sync load) and a FIFO loss marker: both ignored.
  std::vector<hmtt::store::Event> events = {sync_event(100, 10, nsync), sync_event(200, 11, nsync),
                                            sync_event(250, 12, nsync, true), sync_event(300, 13, nsync),
                                            sync_event(900, 18, nsync)};
  hmtt::store::Event loss;
  loss.time = 120;
  loss.type = hmtt::store::EventType::FifoLoss;
  loss.value = hmtt::driver::sync_tag_index(12, nsync);
  events.push_back(loss);

  const auto t = hmtt::driver::kernel_log_tables(*log, events, nsync);
  CHECK(t.records == 4);  // two page-map rows, one DMA row, one tag (sched feeds processes only)
  CHECK(t.aligned == 3);
  REQUIRE(t.page_map.size() == 2);
  CHECK(t.page_map[0].seq == 10);
  CHECK(t.page_map[0].time == 100);  // the first event of index 2 goes to seq 10 ...
  CHECK(t.page_map[0].pid == 41);
  CHECK(t.page_map[0].vpage == 0x7f00);
  CHECK(t.page_map[0].ppage == 0x1234);
  CHECK(t.page_map[0].pte_addr == 0x9000);
  CHECK_FALSE(t.page_map[0].unmap);
  CHECK(t.page_map[1].seq == 18);
  CHECK(t.page_map[1].time == 900);  // ... the second to seq 18, one wrap later
  CHECK(t.page_map[1].unmap);
  REQUIRE(t.dma.size() == 1);
  CHECK(t.dma[0].time == 200);
  CHECK(t.dma[0].device == "0000:00:03.0");
  CHECK(t.dma[0].size == 8192);
  CHECK(t.dma[0].direction == 2);
  CHECK(t.dma[0].unmap);
  REQUIRE(t.tags.size() == 1);
  CHECK(t.tags[0].time == 0);  // its sync load was never seen: unaligned, not guessed
  CHECK(t.tags[0].type == hmtt::store::EventType::Tag);
  CHECK(t.tags[0].value == 77);
  REQUIRE(t.processes.size() == 2);
  CHECK(t.processes[0].pid == 40);
  CHECK(t.processes[0].first_time == 100);
  CHECK(t.processes[0].last_time == 900);
  CHECK(t.processes[1].pid == 50);
  CHECK(t.processes[1].first_time == 300);

  // Without a capture nothing aligns; with nsync 0 neither.
  CHECK(hmtt::driver::kernel_log_tables(*log, {}, nsync).aligned == 0);
  CHECK(hmtt::driver::kernel_log_tables(*log, events, 0).aligned == 0);
}

TEST_CASE("StoreWriter::annotate adds the aligned tables to a finished capture") {
  namespace fs = std::filesystem;
  const auto dir = fs::temp_directory_path() / "hmtt_kernel_log_store_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "capture.hmtt").string();
  constexpr std::uint32_t nsync = 8;
  {
    hmtt::store::CaptureInfo info;
    info.source = "board";
    auto w = hmtt::store::StoreWriter::create(path, info);
    REQUIRE(w.ok());
    std::vector<hmtt::Reference> refs(3);
    for (std::size_t i = 0; i < refs.size(); ++i) refs[i].time = 100 * i;
    REQUIRE((*w)->write(refs).ok());
    const hmtt::store::Event ev[] = {sync_event(50, 5, nsync)};
    REQUIRE((*w)->add_events(ev).ok());
    REQUIRE((*w)->finish().ok());
  }
  hmtt_rec_pte pte{};
  pte.pid = 7;
  pte.tgid = 7;
  pte.op = HMTT_PTE_MAP;
  pte.vpage = 0x10;
  pte.ppage = 0x20;
  LogBuilder b;
  b.add(HMTT_REC_PTE, 5, pte).add(HMTT_REC_PTE, 6, pte);
  auto log = KernelLogDecoder{}.decode(b.bytes);
  REQUIRE(log.ok());
  {
    auto r = hmtt::store::StoreReader::open(path);
    REQUIRE(r.ok());
    auto events = (*r)->events();
    REQUIRE(events.ok());
    const auto t = hmtt::driver::kernel_log_tables(*log, *events, nsync);
    auto a = hmtt::store::StoreWriter::annotate(path);
    REQUIRE(a.ok());
    CHECK((*a)->add_page_map(t.page_map).ok());
    CHECK((*a)->add_processes(t.processes).ok());
    CHECK((*a)->set_meta("kernel_log.aligned", std::to_string(t.aligned)).ok());
    // Its references are final.
    std::vector<hmtt::Reference> more(1);
    auto st = (*a)->write(more);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().message.find("annotate") != std::string::npos);
    CHECK((*a)->finish().ok());
  }
  auto r = hmtt::store::StoreReader::open(path);
  REQUIRE(r.ok());
  auto pm = (*r)->page_map();
  REQUIRE(pm.ok());
  REQUIRE(pm->size() == 2);
  CHECK((*pm)[0].seq == 5);
  CHECK((*pm)[0].time == 50);
  CHECK((*pm)[1].time == 0);
  CHECK(*(*r)->meta("kernel_log.aligned") == "1");
  auto s = (*r)->summary();
  REQUIRE(s.ok());
  CHECK(s->references == 3);
  CHECK(s->finished);
  CHECK(s->processes == 1);

  // Not a store: an error naming the file.
  const std::string text = (dir / "not-a-store.hmtt").string();
  std::ofstream(text) << "hello\n";
  auto bad = hmtt::store::StoreWriter::annotate(text);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find(text) != std::string::npos);
  CHECK_FALSE(hmtt::store::StoreWriter::annotate((dir / "missing.hmtt").string()).ok());
  fs::remove_all(dir);
}

TEST_CASE("a transparent huge page record gives the 512 mappings it installs") {
  hmtt_rec_pte pte{};
  pte.pid = 9;
  pte.tgid = 9;
  pte.op = HMTT_PTE_MAP;
  pte.fault_flags = HMTT_PTE_HUGE;
  pte.vpage = 0x7f200 + 3;  // the fault hit page 3 of the huge page
  pte.ppage = 0x40000 + 3;
  LogBuilder b;
  b.add(HMTT_REC_PTE, 1, pte);
  auto log = KernelLogDecoder{}.decode(b.bytes);
  REQUIRE(log.ok());
  const auto t = hmtt::driver::kernel_log_tables(*log, {}, 8);
  REQUIRE(t.page_map.size() == 512);
  CHECK(t.records == 1);
  for (std::size_t i = 0; i < t.page_map.size(); ++i) {
    CHECK(t.page_map[i].vpage == 0x7f200 + i);
    CHECK(t.page_map[i].ppage == 0x40000 + i);
    CHECK(t.page_map[i].seq == 1);
  }
}
