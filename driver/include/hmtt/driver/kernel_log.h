// The kernel module's log (read(2) on /dev/hmtt) decoded into plain values.
//
// The byte layout is the uapi header kernel-module/include/uapi/linux/hmtt.h:
// a stream of records, each a 24-byte header {type, len, cpu, seq, time_ns}
// and a payload, len rounded up to 8 bytes, little-endian (the module writes
// the host's byte order; hmtt runs on x86-64). The decoder does not include
// the uapi header, so it builds and runs anywhere; a test checks the layouts
// agree. Errors name the byte offset of the record and the field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hmtt/result.h"

namespace hmtt::driver {

// Record types (HMTT_REC_*).
enum class LogRecordType : std::uint16_t { User = 1, Tag = 2, Sched = 3, Syscall = 4, PageMap = 5, Dma = 6 };

struct LogHeader {
  LogRecordType type = LogRecordType::User;
  std::uint32_t cpu = 0;
  std::uint64_t seq = 0;      // global sequence id = the sync tag's id
  std::uint64_t time_ns = 0;  // local_clock() of the logging CPU
  std::uint64_t offset = 0;   // byte offset of the record in the input
};

enum class TagKind : std::uint32_t { Begin = 1, End = 2, User = 3 };

struct TagRecord {
  LogHeader header;
  TagKind kind = TagKind::User;
  std::uint32_t event = 0;
  std::uint64_t value = 0;
  std::int32_t pid = 0;
};

struct SchedRecord {
  LogHeader header;
  std::int32_t prev_pid = 0, prev_tgid = 0, next_pid = 0, next_tgid = 0;
  std::uint32_t prev_state = 0;
};

struct SyscallRecord {
  LogHeader header;
  std::int32_t pid = 0, tgid = 0;
  std::int64_t nr = 0;
  bool exit = false;
  std::int64_t ret = 0;             // exit only
  std::uint64_t args[3] = {0, 0, 0};  // entry only
};

// <seq, pid, virt page, phys page, pte addr>: op 1, a fault installed
// vpage -> ppage; op 2, the mapping was removed; op 3, a migration mapped
// vpage to a new ppage (pte_addr 0 for ops 2 and 3).
struct PageMapRecord {
  LogHeader header;
  std::int32_t pid = 0, tgid = 0;
  std::uint32_t op = 1;
  std::uint32_t fault_flags = 0;  // bit 31: transparent huge page
  std::uint64_t vpage = 0;     // virtual address >> 12
  std::uint64_t ppage = 0;     // page frame number
  std::uint64_t pte_addr = 0;  // physical address of the page-table entry
};

enum class DmaOp : std::uint32_t { Map = 1, Unmap = 2 };
enum class DmaDirection : std::uint32_t { Bidirectional = 0, ToDevice = 1, FromDevice = 2, None = 3 };

// <seq, device, phys start, size, direction, map/unmap>.
struct DmaRecord {
  LogHeader header;
  DmaOp op = DmaOp::Map;
  DmaDirection direction = DmaDirection::Bidirectional;
  std::uint64_t phys = 0;
  std::uint64_t dma_addr = 0;
  std::uint64_t size = 0;
  std::string device;
};

struct UserRecord {
  LogHeader header;
  std::vector<std::byte> payload;  // hmtt_printk() bytes, padding removed only by length known to the writer
};

// A decoded log, each table in sequence order.
struct KernelLog {
  std::vector<TagRecord> tags;
  std::vector<SchedRecord> sched;
  std::vector<SyscallRecord> syscalls;
  std::vector<PageMapRecord> page_map;
  std::vector<DmaRecord> dma;
  std::vector<UserRecord> user;
  std::uint64_t records = 0;
  std::uint64_t first_seq = 0, last_seq = 0;
  // Sequence ids in [first_seq, last_seq] with no record: records the module
  // dropped because a buffer was full (exact if the whole log was read).
  std::uint64_t missing_seq = 0;
};

inline constexpr std::size_t kLogHeaderBytes = 24;
inline constexpr std::size_t kLogMaxRecordBytes = 512;
inline constexpr std::uint32_t kAppEvents = 4096;  // HMTT_APP_EVENTS

// The config-space index (docs/wire-format.md 3.2) of the sync tag the
// module emitted for record seq, with nsync from HMTT_IOC_STATUS.
std::uint32_t sync_tag_index(std::uint64_t seq, std::uint32_t nsync);

// Decodes a whole log. Trailing bytes that do not form a record are an error.
class KernelLogDecoder {
 public:
  Result<KernelLog> decode(std::span<const std::byte> bytes) const;
};

std::string_view to_string(DmaDirection d);

}  // namespace hmtt::driver

#include <filesystem>

namespace hmtt::driver {

// Writes the decoded tables as CSV files in dir (created if missing):
// page_map.csv, dma.csv, events.csv (tags), sched.csv, syscalls.csv, user.csv.
// Every row carries seq, cpu, time_ns and sync_index, the config-space index
// of the record's sync tag for a module with nsync sync ids (0: no column value).
Status write_kernel_log_csv(const KernelLog& log, const std::filesystem::path& dir, std::uint32_t nsync);

// nsync of a configuration space of region_bytes (HMTT_IOC_STATUS reports it too).
std::uint32_t nsync_for_region(std::uint64_t region_bytes);

}  // namespace hmtt::driver
