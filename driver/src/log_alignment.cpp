#include "hmtt/driver/log_alignment.h"

#include <algorithm>
#include <map>
#include <string>

namespace hmtt::driver {

SyncTagAligner::SyncTagAligner(std::span<const store::Event> events, std::uint32_t nsync) : nsync_(nsync) {
  for (const auto& e : events) {
    if (e.type != store::EventType::ConfigSpace || e.write) continue;  // sync tags are loads
    by_index_[static_cast<std::uint32_t>(e.value)].times.push_back(e.time);
  }
  for (auto& [index, q] : by_index_) std::sort(q.times.begin(), q.times.end());
}

std::optional<std::uint64_t> SyncTagAligner::take(std::uint64_t seq) {
  if (nsync_ == 0) return std::nullopt;
  auto it = by_index_.find(sync_tag_index(seq, nsync_));
  if (it == by_index_.end() || it->second.next == it->second.times.size()) return std::nullopt;
  return it->second.times[it->second.next++];
}

namespace {

constexpr std::uint32_t kHugePageFlag = 1u << 31;  // HMTT_PTE_HUGE in fault_flags
constexpr std::uint64_t kHugePages = 512;          // 4 KiB pages of a 2 MiB huge page

std::string tag_note(const TagRecord& t) {
  switch (t.kind) {
    case TagKind::Begin: return "kernel log: begin tracing, pid " + std::to_string(t.pid);
    case TagKind::End: return "kernel log: end tracing, pid " + std::to_string(t.pid);
    case TagKind::User: break;
  }
  return "kernel log: tag " + std::to_string(t.event) + ", pid " + std::to_string(t.pid);
}

}  // namespace

KernelLogTables kernel_log_tables(const KernelLog& log, std::span<const store::Event> capture_events,
                                  std::uint32_t nsync) {
  // Every record made one sync load, so every record takes its event, in seq order.
  std::vector<std::uint64_t> seqs;
  seqs.reserve(log.records);
  for (const auto& r : log.tags) seqs.push_back(r.header.seq);
  for (const auto& r : log.sched) seqs.push_back(r.header.seq);
  for (const auto& r : log.syscalls) seqs.push_back(r.header.seq);
  for (const auto& r : log.page_map) seqs.push_back(r.header.seq);
  for (const auto& r : log.dma) seqs.push_back(r.header.seq);
  for (const auto& r : log.user) seqs.push_back(r.header.seq);
  std::sort(seqs.begin(), seqs.end());
  SyncTagAligner aligner(capture_events, nsync);
  std::unordered_map<std::uint64_t, std::uint64_t> time_of;
  for (auto s : seqs)
    if (auto t = aligner.take(s)) time_of.emplace(s, *t);

  KernelLogTables out;
  auto time = [&](const LogHeader& h) -> std::uint64_t {
    ++out.records;
    auto it = time_of.find(h.seq);
    if (it == time_of.end()) return 0;
    ++out.aligned;
    return it->second;
  };
  std::map<std::uint32_t, store::Process> procs;
  auto saw = [&](std::int32_t pid, const LogHeader& h) {
    if (pid <= 0) return;
    auto& p = procs[static_cast<std::uint32_t>(pid)];
    p.pid = static_cast<std::uint32_t>(pid);
    auto it = time_of.find(h.seq);
    if (it == time_of.end()) return;
    if (p.first_time == 0 || it->second < p.first_time) p.first_time = it->second;
    p.last_time = std::max(p.last_time, it->second);
  };

  for (const auto& r : log.page_map) {
    store::PageMapEntry e;
    e.seq = r.header.seq;
    e.time = time(r.header);
    e.pid = static_cast<std::uint32_t>(r.pid);
    e.vpage = r.vpage;
    e.ppage = r.ppage;
    e.pte_addr = r.pte_addr;
    e.unmap = r.op == 2;  // HMTT_PTE_UNMAP; map and migrate install a mapping
    if ((r.fault_flags & kHugePageFlag) != 0 && r.vpage % kHugePages <= r.ppage) {
      // A transparent huge page: one record for its 512 pages (the faulting one is
      // named); the table holds every <vpage, ppage> it maps, all with this seq.
      const std::uint64_t k = r.vpage % kHugePages;
      for (std::uint64_t i = 0; i < kHugePages; ++i) {
        e.vpage = r.vpage - k + i;
        e.ppage = r.ppage - k + i;
        out.page_map.push_back(e);
      }
    } else {
      out.page_map.push_back(e);
    }
    saw(r.tgid, r.header);
  }
  for (const auto& r : log.dma) {
    store::DmaEntry e;
    e.seq = r.header.seq;
    e.time = time(r.header);
    e.device = r.device;
    e.phys = r.phys;
    e.size = r.size;
    e.direction = static_cast<std::uint8_t>(r.direction);
    e.unmap = r.op == DmaOp::Unmap;
    out.dma.push_back(e);
  }
  for (const auto& r : log.tags) {
    store::Event e;
    e.time = time(r.header);
    e.type = store::EventType::Tag;
    e.value = r.kind == TagKind::User ? r.value : static_cast<std::uint64_t>(r.kind);
    e.note = tag_note(r);
    out.tags.push_back(std::move(e));
    saw(r.pid, r.header);
  }
  for (const auto& r : log.sched) {
    saw(r.prev_tgid, r.header);
    saw(r.next_tgid, r.header);
  }
  for (const auto& r : log.syscalls) saw(r.tgid, r.header);
  for (auto& [pid, p] : procs) out.processes.push_back(p);
  // Tags go into the event table, which readers expect in time order.
  std::stable_sort(out.tags.begin(), out.tags.end(),
                   [](const store::Event& a, const store::Event& b) { return a.time < b.time; });
  return out;
}

}  // namespace hmtt::driver
