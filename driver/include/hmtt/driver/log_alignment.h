// The kernel module's log tied to a hardware trace by its sync tags.
//
// For every record it logs, hmtt.ko loads the config-space index
// sync_tag_index(seq, nsync) once; the board turns that load into a
// config-space EVENT at the moment it crossed the DIMM's command bus. So the
// trace time of log record `seq` is the time of the capture's config-space
// event with that index. Indices repeat every nsync records: events of one
// index are taken in time order by the records of that index in seq order
// (a sync load the board did not see, e.g. while tracing was off, shifts that
// one index by one wrap, i.e. only after nsync more records).
//
// A record whose sync event is not in the capture is unaligned: its time in
// the store tables is 0 (docs/store.md) and it is counted, never guessed.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "hmtt/driver/kernel_log.h"
#include "hmtt/store/store.h"

namespace hmtt::driver {

// Sync-tag index -> trace times of the capture's config-space events.
class SyncTagAligner {
 public:
  // events: any of the capture's events; only config-space ones are used.
  SyncTagAligner(std::span<const store::Event> events, std::uint32_t nsync);
  // The trace time of record seq's sync load, or nothing when the capture has
  // no (further) event of its index. Call in ascending seq order.
  std::optional<std::uint64_t> take(std::uint64_t seq);

 private:
  std::uint32_t nsync_;
  struct Queue {
    std::vector<std::uint64_t> times;  // ascending
    std::size_t next = 0;
  };
  std::unordered_map<std::uint32_t, Queue> by_index_;
};

// The store's side tables from a decoded log, each row's time aligned.
struct KernelLogTables {
  std::vector<store::PageMapEntry> page_map;  // a huge-page record gives its 512 <vpage, ppage> rows
  std::vector<store::DmaEntry> dma;
  std::vector<store::Event> tags;         // tag records (BEGIN/END/user) as EventType::Tag
  std::vector<store::Process> processes;  // pids seen in sched/syscall/page-map records
  std::uint64_t records = 0;              // records that go into a table
  std::uint64_t aligned = 0;              // of those, with their sync event found
};

// Builds the tables; capture_events are the events of the capture the log
// belongs to (an empty span leaves every row unaligned).
KernelLogTables kernel_log_tables(const KernelLog& log, std::span<const store::Event> capture_events,
                                  std::uint32_t nsync);

}  // namespace hmtt::driver
