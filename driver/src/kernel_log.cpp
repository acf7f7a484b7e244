#include "hmtt/driver/kernel_log.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace hmtt::driver {
namespace {

// Little-endian field reader over one record; every read names its field.
class RecordReader {
 public:
  RecordReader(std::span<const std::byte> rec, std::uint64_t offset) : rec_(rec), offset_(offset) {}

  template <typename T>
  T get(std::size_t at) const {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i)
      v |= static_cast<std::uint64_t>(std::to_integer<std::uint8_t>(rec_[at + i])) << (8 * i);
    return static_cast<T>(v);
  }

  Error error(const std::string& field, const std::string& reason) const {
    return make_error("kernel log offset " + std::to_string(offset_) + ": " + field + ": " + reason);
  }

  Status zero(std::size_t at, std::size_t n, const std::string& field) const {
    for (std::size_t i = 0; i < n; ++i)
      if (rec_[at + i] != std::byte{0}) return error(field, "reserved, must be 0");
    return Status::success();
  }

  std::size_t size() const { return rec_.size(); }
  std::span<const std::byte> bytes() const { return rec_; }

 private:
  std::span<const std::byte> rec_;
  std::uint64_t offset_;
};

constexpr std::size_t kH = kLogHeaderBytes;

// Payload sizes of the fixed records (struct sizes in the uapi header).
constexpr std::size_t kTagBytes = 24, kSchedBytes = 24, kSyscallBytes = 56, kPteBytes = 40, kDmaBytes = 64;

Status need(const RecordReader& r, std::size_t payload, const char* what) {
  if (r.size() < kH + payload)
    return r.error("len", std::string(what) + " record needs " + std::to_string(kH + payload) +
                              " bytes, has " + std::to_string(r.size()));
  return Status::success();
}

template <typename T>
bool by_seq(const T& a, const T& b) {
  return a.header.seq < b.header.seq;
}

}  // namespace

std::uint32_t sync_tag_index(std::uint64_t seq, std::uint32_t nsync) {
  return 64 + kAppEvents + static_cast<std::uint32_t>(seq % nsync);
}

std::string_view to_string(DmaDirection d) {
  switch (d) {
    case DmaDirection::Bidirectional: return "bidirectional";
    case DmaDirection::ToDevice: return "to_device";
    case DmaDirection::FromDevice: return "from_device";
    case DmaDirection::None: return "none";
  }
  return "?";
}

Result<KernelLog> KernelLogDecoder::decode(std::span<const std::byte> bytes) const {
  KernelLog log;
  std::vector<std::uint64_t> seqs;
  std::size_t off = 0;
  while (off < bytes.size()) {
    if (bytes.size() - off < kH)
      return make_error("kernel log offset " + std::to_string(off) + ": truncated header: " +
                        std::to_string(bytes.size() - off) + " bytes left, need 24");
    RecordReader hr(bytes.subspan(off, kH), off);
    const auto type = hr.get<std::uint16_t>(0);
    const auto len = hr.get<std::uint16_t>(2);
    if (len < kH || len % 8 != 0 || len > kLogMaxRecordBytes)
      return hr.error("len", std::to_string(len) + " is not a multiple of 8 in 24..512");
    if (len > bytes.size() - off)
      return hr.error("len", std::to_string(len) + " but only " + std::to_string(bytes.size() - off) +
                                 " bytes left (truncated record)");
    RecordReader r(bytes.subspan(off, len), off);
    LogHeader h;
    h.cpu = r.get<std::uint32_t>(4);
    h.seq = r.get<std::uint64_t>(8);
    h.time_ns = r.get<std::uint64_t>(16);
    h.offset = off;
    switch (type) {
      case 1: {
        h.type = LogRecordType::User;
        UserRecord u{h, {}};
        auto p = r.bytes().subspan(kH);
        u.payload.assign(p.begin(), p.end());
        log.user.push_back(std::move(u));
        break;
      }
      case 2: {
        h.type = LogRecordType::Tag;
        HMTT_TRY(need(r, kTagBytes, "tag"));
        TagRecord t;
        t.header = h;
        const auto kind = r.get<std::uint32_t>(kH);
        if (kind < 1 || kind > 3) return r.error("tag.kind", std::to_string(kind) + " is not 1..3");
        t.kind = static_cast<TagKind>(kind);
        t.event = r.get<std::uint32_t>(kH + 4);
        t.value = r.get<std::uint64_t>(kH + 8);
        t.pid = r.get<std::int32_t>(kH + 16);
        HMTT_TRY(r.zero(kH + 20, 4, "tag.reserved"));
        log.tags.push_back(t);
        break;
      }
      case 3: {
        h.type = LogRecordType::Sched;
        HMTT_TRY(need(r, kSchedBytes, "sched"));
        SchedRecord s;
        s.header = h;
        s.prev_pid = r.get<std::int32_t>(kH);
        s.prev_tgid = r.get<std::int32_t>(kH + 4);
        s.next_pid = r.get<std::int32_t>(kH + 8);
        s.next_tgid = r.get<std::int32_t>(kH + 12);
        s.prev_state = r.get<std::uint32_t>(kH + 16);
        HMTT_TRY(r.zero(kH + 20, 4, "sched.reserved"));
        log.sched.push_back(s);
        break;
      }
      case 4: {
        h.type = LogRecordType::Syscall;
        HMTT_TRY(need(r, kSyscallBytes, "syscall"));
        SyscallRecord s;
        s.header = h;
        s.pid = r.get<std::int32_t>(kH);
        s.tgid = r.get<std::int32_t>(kH + 4);
        s.nr = r.get<std::int64_t>(kH + 8);
        const auto dir = r.get<std::uint32_t>(kH + 16);
        if (dir > 1) return r.error("syscall.dir", std::to_string(dir) + " is not 0 (enter) or 1 (exit)");
        s.exit = dir == 1;
        HMTT_TRY(r.zero(kH + 20, 4, "syscall.reserved"));
        s.ret = r.get<std::int64_t>(kH + 24);
        for (std::size_t i = 0; i < 3; ++i) s.args[i] = r.get<std::uint64_t>(kH + 32 + 8 * i);
        log.syscalls.push_back(s);
        break;
      }
      case 5: {
        h.type = LogRecordType::PageMap;
        HMTT_TRY(need(r, kPteBytes, "pte"));
        PageMapRecord p;
        p.header = h;
        p.pid = r.get<std::int32_t>(kH);
        p.tgid = r.get<std::int32_t>(kH + 4);
        p.op = r.get<std::uint32_t>(kH + 8);
        if (p.op < 1 || p.op > 3)
          return r.error("pte.op", std::to_string(p.op) + " is not 1 (map), 2 (unmap) or 3 (migrate)");
        p.fault_flags = r.get<std::uint32_t>(kH + 12);
        p.vpage = r.get<std::uint64_t>(kH + 16);
        p.ppage = r.get<std::uint64_t>(kH + 24);
        p.pte_addr = r.get<std::uint64_t>(kH + 32);
        log.page_map.push_back(p);
        break;
      }
      case 6: {
        h.type = LogRecordType::Dma;
        HMTT_TRY(need(r, kDmaBytes, "dma"));
        DmaRecord d;
        d.header = h;
        const auto op = r.get<std::uint32_t>(kH);
        if (op < 1 || op > 2) return r.error("dma.op", std::to_string(op) + " is not 1 (map) or 2 (unmap)");
        d.op = static_cast<DmaOp>(op);
        const auto dir = r.get<std::uint32_t>(kH + 4);
        if (dir > 3) return r.error("dma.dir", std::to_string(dir) + " is not 0..3");
        d.direction = static_cast<DmaDirection>(dir);
        d.phys = r.get<std::uint64_t>(kH + 8);
        d.dma_addr = r.get<std::uint64_t>(kH + 16);
        d.size = r.get<std::uint64_t>(kH + 24);
        const auto name = r.bytes().subspan(kH + 32, 32);
        std::size_t n = 0;
        while (n < name.size() && name[n] != std::byte{0}) ++n;
        if (n == name.size()) return r.error("dma.dev", "not NUL-terminated");
        d.device.assign(reinterpret_cast<const char*>(name.data()), n);
        log.dma.push_back(std::move(d));
        break;
      }
      default:
        return r.error("type", std::to_string(type) + " is not a record type (1..6)");
    }
    seqs.push_back(h.seq);
    off += len;
  }
  std::sort(seqs.begin(), seqs.end());
  for (std::size_t i = 1; i < seqs.size(); ++i)
    if (seqs[i] == seqs[i - 1])
      return make_error("kernel log: seq " + std::to_string(seqs[i]) + " appears twice");
  log.records = seqs.size();
  if (!seqs.empty()) {
    log.first_seq = seqs.front();
    log.last_seq = seqs.back();
    log.missing_seq = log.last_seq - log.first_seq + 1 - seqs.size();
  }
  std::sort(log.tags.begin(), log.tags.end(), by_seq<TagRecord>);
  std::sort(log.sched.begin(), log.sched.end(), by_seq<SchedRecord>);
  std::sort(log.syscalls.begin(), log.syscalls.end(), by_seq<SyscallRecord>);
  std::sort(log.page_map.begin(), log.page_map.end(), by_seq<PageMapRecord>);
  std::sort(log.dma.begin(), log.dma.end(), by_seq<DmaRecord>);
  std::sort(log.user.begin(), log.user.end(), by_seq<UserRecord>);
  return log;
}

}  // namespace hmtt::driver
